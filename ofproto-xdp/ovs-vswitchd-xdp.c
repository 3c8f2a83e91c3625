/*
 * Copyright (c) 2026 The ovs-xdp authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

/* ovs-vswitchd-xdp is Open vSwitch's own ovs-vswitchd, linked unchanged from
 * the objects of the OVS tree we build against (its main() included), plus
 * this file.  OVS offers no hook between main() and bridge_init() for a new
 * datapath class, so the class is registered from a constructor, before
 * main() runs: dp_register_provider() only takes a statically initialised
 * mutex and adds to a statically initialised shash, and our class has no
 * init() to run that early.  This object is linked directly (not from an
 * archive), so the linker keeps the constructor. */

#include <config.h>

#include <cap-ng.h>
#include <errno.h>
#include <string.h>

#include "dpif.h"
#include "dpif-provider.h"
#include "maps/pin.h"
#include "netdev.h"
#include "ofproto/ofproto-provider.h"
#include "ofproto-xdp/dpif-xdp.h"
#include "util.h"
#include "openvswitch/vlog.h"
#include "vswitch-idl.h"

VLOG_DEFINE_THIS_MODULE(ovs_vswitchd_xdp);

OVS_CONSTRUCTOR(ovs_vswitchd_xdp_register)
{
    int error = dp_register_provider(&dpif_xdp_class);

    if (error) {
        ovs_fatal(error, "cannot register the xdp datapath provider");
    }
}

/* Ingress policing.  bridge.c calls netdev_set_policing() for every
 * Interface, and for a port of an xdp datapath netdev-linux's tc policer
 * is the wrong place (see ofproto-xdp/dpif-xdp-police.c).  OVS offers no
 * hook there either, so this program is linked with
 * -Wl,--wrap=netdev_set_policing: bridge.c's calls land here, and the xdp
 * datapath takes those that are its ports' before OVS's own function
 * sees the rest. */
int __real_netdev_set_policing(struct netdev *, uint32_t kbits_rate,
                               uint32_t kbits_burst, uint32_t kpkts_rate,
                               uint32_t kpkts_burst);
int __wrap_netdev_set_policing(struct netdev *, uint32_t kbits_rate,
                               uint32_t kbits_burst, uint32_t kpkts_rate,
                               uint32_t kpkts_burst);

int
__wrap_netdev_set_policing(struct netdev *netdev, uint32_t kbits_rate,
                           uint32_t kbits_burst, uint32_t kpkts_rate,
                           uint32_t kpkts_burst)
{
    int error;

    if (dpif_xdp_set_policing(netdev, kbits_rate, kbits_burst, kpkts_rate,
                              kpkts_burst, &error)) {
        return error;
    }
    return __real_netdev_set_policing(netdev, kbits_rate, kbits_burst,
                                      kpkts_rate, kpkts_burst);
}

/* Native tunneling (Documentation/howto/userspace-tunneling.rst in the OVS
 * tree): ofproto composes tnl_push() and tnl_pop() actions only for a
 * datapath for which dpif_supports_tnl_push_pop() says yes, and OVS 3.1
 * says yes for dpif-netdev alone.  Its one caller is ofproto-dpif's
 * feature check, so this program is linked with
 * -Wl,--wrap=dpif_supports_tnl_push_pop and answers yes for xdp too;
 * dpif-xdp runs both actions (dpif-xdp-upcall.c). */
bool __real_dpif_supports_tnl_push_pop(const struct dpif *);
bool __wrap_dpif_supports_tnl_push_pop(const struct dpif *);

bool
__wrap_dpif_supports_tnl_push_pop(const struct dpif *dpif)
{
    return (!strcmp(dpif_type(dpif), dpif_xdp_class.type)
            || __real_dpif_supports_tnl_push_pop(dpif));
}

/* The Interface's error column.  bridge.c fills it from
 * ofproto_vport_get_status(), whose ofproto-dpif implementation knows
 * only patch ports, and OVS has no other way for a datapath to say that a
 * port's configuration is wrong.  So this program is linked with
 * -Wl,--wrap=ofproto_vport_get_status: a port of an xdp datapath with a
 * bad or refused setting (dpif_xdp_port_get_error()) reports it there. */
int __real_ofproto_vport_get_status(const struct ofproto *, ofp_port_t,
                                    char **errp);
int __wrap_ofproto_vport_get_status(const struct ofproto *, ofp_port_t,
                                    char **errp);

int
__wrap_ofproto_vport_get_status(const struct ofproto *ofproto,
                                ofp_port_t ofp_port, char **errp)
{
    int error = __real_ofproto_vport_get_status(ofproto, ofp_port, errp);
    const struct ofport *ofport;
    char *msg;

    if (error && error != EOPNOTSUPP) {
        return error;
    }
    ofport = ofproto_get_port(ofproto, ofp_port);
    msg = ofport ? dpif_xdp_port_get_error(ofport->netdev) : NULL;
    if (msg) {
        *errp = msg;
        return EINVAL;
    }
    return error;
}

/* The Interface's error column, for a port that could not be added.
 * bridge.c writes there "could not add network device NAME to ofproto"
 * and the errno that ofproto_port_add() returned, which for a port of a
 * type that the xdp datapath refuses (a DPDK port on an xdp bridge, say)
 * is a bare EINVAL; the reason is only in the log.  The port never
 * becomes an ofproto port, so ofproto_vport_get_status() is never asked
 * about it.  So this program is linked with
 * -Wl,--wrap=ovsrec_interface_set_error: when bridge.c writes that message
 * for the port that dpif-xdp has just refused, the reason is added to it
 * (dpif_xdp_port_take_refusal()).  Every other error passes unchanged. */
void __real_ovsrec_interface_set_error(const struct ovsrec_interface *,
                                       const char *error);
void __wrap_ovsrec_interface_set_error(const struct ovsrec_interface *,
                                       const char *error);

void
__wrap_ovsrec_interface_set_error(const struct ovsrec_interface *iface,
                                  const char *error)
{
    static const char prefix[] = "could not add network device ";
    char *why = NULL;

    if (error && !strncmp(error, prefix, strlen(prefix))) {
        why = dpif_xdp_port_take_refusal(iface->name);
    }
    if (why) {
        char *full = xasprintf("%s: %s", error, why);

        __real_ovsrec_interface_set_error(iface, full);
        free(full);
        free(why);
    } else {
        __real_ovsrec_interface_set_error(iface, error);
    }
}

/* Interface statistics.  A port in XDP_DP_TX_PEER mode sends into its
 * veth peer past its own device's transmit path, whose counters the
 * kernel reads back for netdev-linux (see ofproto-xdp/dpif-xdp-peer.c).
 * bridge.c, ofproto and sFlow read them with netdev_get_stats(), so this
 * program is linked with -Wl,--wrap=netdev_get_stats: what the datapath
 * counted is added for the ports of xdp datapaths. */
int __real_netdev_get_stats(const struct netdev *, struct netdev_stats *);
int __wrap_netdev_get_stats(const struct netdev *, struct netdev_stats *);

int
__wrap_netdev_get_stats(const struct netdev *netdev,
                        struct netdev_stats *stats)
{
    int error = __real_netdev_get_stats(netdev, stats);

    if (!error) {
        dpif_xdp_add_peer_stats(netdev, stats);
    }
    return error;
}

/* Running as another user (--user USER:GROUP).  OVS's daemon-unix.c keeps
 * the capabilities that the kernel datapath needs (CAP_NET_ADMIN,
 * CAP_NET_RAW, CAP_NET_BROADCAST, CAP_IPC_LOCK, CAP_NET_BIND_SERVICE) and
 * then calls capng_change_id(), still as root; OVS has no hook for a
 * datapath to ask for more.  So this program is linked with
 * -Wl,--wrap=capng_change_id, and adds what the xdp datapath needs:
 *
 *   - CAP_BPF: loading programs, creating and updating maps, BPF links.
 *   - CAP_PERFMON: the upcall and sample rings are per-CPU perf events
 *     (perf_event_open() on every CPU, any task), and the verifier allows
 *     the program's pointer arithmetic (a packet pointer minus another,
 *     arithmetic on map value pointers) only to perfmon_capable()
 *     loaders: with CAP_BPF alone the datapath program is refused
 *     ("R4 pointer -= pointer prohibited").
 *
 * CAP_NET_ADMIN (XDP and TC attachment, tc filters, netdev ioctls) and
 * CAP_NET_RAW (the slow path's packet sockets) OVS already keeps.  Not
 * CAP_SYS_ADMIN: nothing here reopens a BPF object from its id (see
 * subtable pins in maps/pin.c).  Before the switch, the BPF pin root is
 * handed to the new user (xdp_pin_hand_over()). */
int __real_capng_change_id(int uid, int gid, capng_flags_t);
int __wrap_capng_change_id(int uid, int gid, capng_flags_t);

int
__wrap_capng_change_id(int uid, int gid, capng_flags_t flags)
{
    static const int caps[] = { CAP_BPF, CAP_PERFMON };
    const capng_type_t sets = CAPNG_EFFECTIVE | CAPNG_PERMITTED;

    for (size_t i = 0; i < ARRAY_SIZE(caps); i++) {
        if (capng_update(CAPNG_ADD, sets, caps[i])) {
            VLOG_ERR("cannot keep capability %s when changing to user %d",
                     capng_capability_to_name(caps[i]), uid);
            return -1;
        }
    }
    xdp_pin_hand_over(uid, gid);
    return __real_capng_change_id(uid, gid, flags);
}
