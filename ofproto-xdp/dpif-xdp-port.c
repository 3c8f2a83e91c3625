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

/* A datapath's ports: adding and removing them, attaching the program to
 * their devices, and keeping up with devices that change under them.
 *
 * A port is a kernel device (or, for an internal port, a veth pair whose
 * hidden end runs the program: internal-port.c) that the one program of
 * the datapath is attached to (dispatcher/xdp-attach.c) and that the
 * program's maps know: xdp_dp_in_ports from the ingress ifindex to the
 * port number (with XDP_DP_IN_PORT_F_GENERIC for a generic-mode device),
 * xdp_dp_ports and xdp_dp_tx_ports from the port number to how to
 * transmit on it.  The attach mode comes from other_config:xdp-mode, by
 * default "auto" (dispatcher/xdp-auto-mode.c), the transmit path from
 * other_config:xdp-tx (choose_tx_mode()).  Ports are promiscuous while
 * they are ports.  A tunnel port (vxlan_sys_4789 and the like) is no
 * device: it has a number and netdev-vport's netdev for pushing and
 * popping its headers (dpif-xdp-tnl.c), and xdp_dp_ports tells the
 * program its tunnel type.  Other netdev types are refused, with the
 * reason in the log and in the Interface's error column
 * (dp_xdp_port_type_refusal()).  Everything here runs under the
 * datapath's 'port_mutex'. */

#include <config.h>

#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "connectivity.h"
#include "coverage.h"
#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dpif-provider.h"
#include "dpif-xdp-private.h"
#include "hash.h"
#include "maps/pin.h"
#include "netdev.h"
#include "netdev-vport.h"
#include "odp-util.h"
#include "ofproto-xdp/dpif-xdp.h"
#include "ofproto-xdp/internal-port.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "seq.h"
#include "smap.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_port);

COVERAGE_DEFINE(xdp_port_map_full);

/* The last port that dpif_xdp_port_add() refused for its netdev type, and
 * why, until dpif_xdp_port_take_refusal() takes it for the Interface's
 * error column or the next dpif_xdp_port_add() forgets it.  Both NULL if
 * none. */
static struct ovs_mutex refusal_mutex = OVS_MUTEX_INITIALIZER;
static char *refused_name OVS_GUARDED_BY(refusal_mutex);
static char *refused_why OVS_GUARDED_BY(refusal_mutex);

uint32_t
dp_xdp_hash_port_no(odp_port_t port_no)
{
    return hash_int(odp_to_u32(port_no), 0);
}

struct dp_xdp_port *
dp_xdp_lookup_port(const struct dp_xdp *dp, odp_port_t port_no)
    OVS_REQUIRES(dp->port_mutex)
{
    struct dp_xdp_port *port;

    HMAP_FOR_EACH_IN_BUCKET (port, node, dp_xdp_hash_port_no(port_no),
                             &dp->ports) {
        if (port->port_no == port_no) {
            return port;
        }
    }
    return NULL;
}

struct dp_xdp_port *
dp_xdp_lookup_port_by_name(const struct dp_xdp *dp, const char *devname)
    OVS_REQUIRES(dp->port_mutex)
{
    struct dp_xdp_port *port;

    HMAP_FOR_EACH (port, node, &dp->ports) {
        if (!strcmp(netdev_get_name(port->netdev), devname)) {
            return port;
        }
    }
    return NULL;
}

/* Returns the number of the port whose output goes to the device with
 * 'ifindex' (the ifindex in its xdp_dp_ports entry), or ODPP_NONE. */
odp_port_t
dp_xdp_port_no_by_tx_ifindex(struct dp_xdp *dp, int ifindex)
{
    odp_port_t port_no = ODPP_NONE;
    struct dp_xdp_port *port;

    ovs_mutex_lock(&dp->port_mutex);
    HMAP_FOR_EACH (port, node, &dp->ports) {
        if (netdev_get_ifindex(port->tx_netdev) == ifindex) {
            port_no = port->port_no;
            break;
        }
    }
    ovs_mutex_unlock(&dp->port_mutex);
    return port_no;
}

/* Returns the lowest free port number, or ODPP_NONE if all are taken.
 * Port 0 (ODPP_LOCAL) is not handed out: the datapath has no local port of
 * its own, each bridge's local port is an ordinary internal port. */
static odp_port_t
dp_xdp_choose_port(const struct dp_xdp *dp)
    OVS_REQUIRES(dp->port_mutex)
{
    for (uint32_t i = 1; i < dp->max_ports; i++) {
        if (!dp_xdp_lookup_port(dp, u32_to_odp(i))) {
            return u32_to_odp(i);
        }
    }
    return ODPP_NONE;
}

/* Returns how XDP should transmit on the device of 'port', and appends
 * why to 'why'.  A veth's XDP transmit (ndo_xdp_xmit) silently drops
 * frames unless its peer runs NAPI, which a container's end usually does
 * not: there the skb path delivers.  A device whose driver has no native
 * XDP (the program runs there in generic mode: a Linux bridge, macvlan,
 * tun/tap without XDP) has no XDP transmit either, and a redirect to it
 * would be dropped: the skb path again.  Until the program is attached,
 * the skb path. */
static enum xdp_dp_tx_mode
choose_tx_mode(const struct dp_xdp_port *port, struct ds *why)
{
    struct smap status = SMAP_INITIALIZER(&status);
    enum xdp_dp_tx_mode mode = XDP_DP_TX_SKB;

    if (!port->attached) {
        ds_put_cstr(why, "not attached");
    } else if (port->att.tc_only) {
        ds_put_cstr(why, "no XDP program (tc mode), so no XDP transmit");
    } else if (!port->att.native) {
        ds_put_cstr(why, "generic XDP, which has no XDP transmit");
    } else if (!netdev_get_status(port->netdev, &status)
               && !strcmp(smap_get_def(&status, "driver_name", ""),
                          "veth")) {
        ds_put_cstr(why, "a veth, whose peer may not take redirected "
                    "frames");
    } else {
        ds_put_cstr(why, "native XDP");
        mode = XDP_DP_TX_REDIRECT;
    }
    smap_destroy(&status);
    return mode;
}

const char *
dp_xdp_tx_mode_to_string(enum xdp_dp_tx_mode mode)
{
    switch (mode) {
    case XDP_DP_TX_NONE: return "none";
    case XDP_DP_TX_REDIRECT: return "redirect";
    case XDP_DP_TX_SKB: return "skb";
    case XDP_DP_TX_SLOW: return "userspace";
    case XDP_DP_TX_PEER: return "peer";
    }
    return "unknown";
}

/* Creates internal port 'name' as a veth pair and opens its hidden peer as
 * 'port->tx_netdev'.  A pair left from an earlier run is reused, so that
 * the host's configuration of the port survives a restart. */
static int
setup_internal_port(struct dp_xdp *dp, struct dp_xdp_port *port,
                    const char *name)
{
    char peer[INTERNAL_PORT_PEER_NAME_LEN];
    int error;

    internal_port_peer_name(name, peer);
    error = internal_port_create(name, peer);
    if (error == EEXIST) {
        struct netdev *probe;

        if (netdev_open(peer, "system", &probe)) {
            VLOG_WARN("%s: cannot add internal port %s: a device with that "
                      "name exists and is not ours", dp->name, name);
            return EEXIST;
        }
        netdev_close(probe);
        VLOG_INFO("%s: reusing internal port %s (peer %s)",
                  dp->name, name, peer);
    } else if (error) {
        VLOG_WARN("%s: cannot create internal port %s (%s)",
                  dp->name, name, ovs_strerror(error));
        return error;
    }

    error = netdev_open(peer, "system", &port->tx_netdev);
    if (!error) {
        error = netdev_turn_flags_on(port->tx_netdev, NETDEV_UP, NULL);
    }
    if (error) {
        VLOG_WARN("%s: cannot bring up %s, peer of internal port %s (%s)",
                  dp->name, peer, name, ovs_strerror(error));
        internal_port_delete(name);
        return error;
    }
    port->peer_name = xstrdup(peer);
    return 0;
}

/* The attach mode for 'port' now: its other_config:xdp-mode, or for
 * "auto" what xdp_auto_mode() chooses for the device the program runs on,
 * with the reason in 'port->mode_why'; XDP_ATTACH_AUTO if it cannot
 * tell. */
static enum xdp_attach_mode
port_attach_mode(struct dp_xdp_port *port)
{
    if (port->mode != XDP_ATTACH_AUTO) {
        ds_clear(&port->mode_why);
        return port->mode;
    }
    return xdp_auto_mode(netdev_get_name(port->tx_netdev),
                         port->xdp_ifindex, &port->mode_why);
}

/* Whether 'port''s program is attached as attach mode 'mode' asks. */
static bool
port_attached_as(const struct dp_xdp_port *port, enum xdp_attach_mode mode)
{
    switch (mode) {
    case XDP_ATTACH_NATIVE:
        return port->att.native;
    case XDP_ATTACH_GENERIC:
        return !port->att.native && !port->att.tc_only;
    case XDP_ATTACH_BEST_EFFORT:
        /* Native, or generic after native failed when it was tried. */
        return (port->att.native
                || (!port->att.tc_only
                    && port->att_mode == XDP_ATTACH_BEST_EFFORT));
    case XDP_ATTACH_TC:
        return port->att.tc_only;
    case XDP_ATTACH_AUTO:
    default:
        return false;
    }
}

/* The value of 'port''s entry in xdp_dp_in_ports: its number and flags,
 * with XDP_DP_IN_PORT_F_GENERIC unless 'native'. */
static uint32_t
port_in_value(const struct dp_xdp_port *port, bool native)
{
    return (odp_to_u32(port->port_no)
            | (native ? 0 : XDP_DP_IN_PORT_F_GENERIC)
            | (dp_xdp_police_is_set(&port->police)
               ? XDP_DP_IN_PORT_F_POLICED : 0));
}

/* Writes the entry of attached 'port' in xdp_dp_in_ports again, for a
 * change of its flags.  Returns 0 or a positive errno. */
int
dp_xdp_port_write_in_value(struct dp_xdp *dp, const struct dp_xdp_port *port)
    OVS_REQUIRES(dp->port_mutex)
{
    uint32_t value = port_in_value(port, port->att.native);
    uint32_t xdp_ifindex = port->xdp_ifindex;

    if (bpf_map_update_elem(bpf_map__fd(dp->skel->maps.xdp_dp_in_ports),
                            &xdp_ifindex, &value, BPF_EXIST)) {
        return errno;
    }
    return 0;
}

/* Tells the program about 'port' and attaches it there. */
static int
attach_port(struct dp_xdp *dp, struct dp_xdp_port *port)
{
    const char *dev = netdev_get_name(port->tx_netdev);
    int tx_ifindex = netdev_get_ifindex(port->tx_netdev);
    uint32_t port_no = odp_to_u32(port->port_no);
    uint32_t xdp_ifindex = port->xdp_ifindex;
    struct xdp_dp_port value = {
        .ifindex = tx_ifindex,
        .tx_mode = port->tx_mode,
    };
    int in_fd = bpf_map__fd(dp->skel->maps.xdp_dp_in_ports);
    uint32_t in_value;
    int error;

    /* Until the program is known to run natively, its packets may be GSO
     * segments: the flag sends their outputs through the TC half, which
     * is right in either mode (see XDP_DP_IN_PORT_F_GENERIC). */
    port->att_mode = port_attach_mode(port);
    if (port->att_mode == XDP_ATTACH_AUTO) {
        port->att_mode = XDP_ATTACH_BEST_EFFORT;
        ds_clear(&port->mode_why);
        ds_put_cstr(&port->mode_why, "the device could not be inspected: "
                    "native if the driver has it");
    }
    if (port->att_mode == XDP_ATTACH_TC && dp->tc_pipeline_fd < 0
        && port->mode == XDP_ATTACH_AUTO) {
        port->att_mode = XDP_ATTACH_GENERIC;
        ds_put_cstr(&port->mode_why, "; the TC pipeline did not load: "
                    "generic");
    }
    in_value = port_in_value(port, false);
    error = dp_xdp_police_write(dp, port);
    if (error) {
        VLOG_WARN("%s: port %s: cannot write its ingress policer (%s)",
                  dp->name, dev, ovs_strerror(error));
        return error;
    }
    if (bpf_map_update_elem(bpf_map__fd(dp->skel->maps.xdp_dp_ports),
                            &port_no, &value, BPF_ANY)
        || bpf_map_update_elem(bpf_map__fd(dp->skel->maps.xdp_dp_tx_ports),
                               &port_no, &tx_ifindex, BPF_ANY)
        || bpf_map_update_elem(in_fd, &xdp_ifindex, &in_value, BPF_ANY)) {
        error = errno;
        VLOG_WARN("%s: cannot add port %s to the XDP program's maps (%s)",
                  dp->name, dev, ovs_strerror(error));
        return error;
    }

    char *pin = (dp->pinned
                 ? xdp_pin_link_path(dp->name, port->xdp_ifindex) : NULL);
    dp_xdp_claim_stale_link(dp, port->xdp_ifindex);
    if (port->att_mode == XDP_ATTACH_TC && pin && !access(pin, F_OK)) {
        /* After a restart, the XDP link that the earlier run pinned for
         * the device is taken over, whatever 'auto' says now: ofproto adds
         * a port before it hands it its configuration, which may ask for
         * XDP (and forwarding goes on, seamless, either way).  The
         * configuration then moves the port to tc mode if it must. */
        port->att_mode = XDP_ATTACH_BEST_EFFORT;
        ds_put_cstr(&port->mode_why, "; an earlier run's XDP link taken "
                    "over, until the configuration is applied");
    }
    if (port->att_mode == XDP_ATTACH_TC && dp->tc_pipeline_fd < 0) {
        VLOG_WARN("%s: port %s: the TC pipeline did not load: no tc mode",
                  dp->name, dev);
        error = EOPNOTSUPP;
    } else {
        error = xdp_attach_port(dev, port->xdp_ifindex, dp->xdp_prog_fd,
                                (port->att_mode == XDP_ATTACH_TC
                                 ? dp->tc_pipeline_fd : dp->tc_prog_fd),
                                port->att_mode, pin, &port->att);
    }
    free(pin);
    if (error) {
        bpf_map_delete_elem(in_fd, &xdp_ifindex);
        return error;
    }
    if (port->att.native) {
        in_value = port_in_value(port, true);
        if (bpf_map_update_elem(in_fd, &xdp_ifindex, &in_value, BPF_ANY)) {
            VLOG_WARN("%s: port %s: cannot mark it native in the XDP "
                      "program's maps (%s): its outputs take the TC path",
                      dp->name, dev, ovs_strerror(errno));
        }
    }
    port->attached = true;
    return 0;
}

static void
detach_port(struct dp_xdp *dp, struct dp_xdp_port *port)
{
    uint32_t port_no = odp_to_u32(port->port_no);
    uint32_t xdp_ifindex = port->xdp_ifindex;
    struct xdp_dp_port none = { .tx_mode = XDP_DP_TX_NONE };

    if (!port->attached) {
        return;
    }
    char *pin = (dp->pinned
                 ? xdp_pin_link_path(dp->name, port->xdp_ifindex) : NULL);
    xdp_detach_port(netdev_get_name(port->tx_netdev), pin, &port->att);
    free(pin);
    bpf_map_delete_elem(bpf_map__fd(dp->skel->maps.xdp_dp_in_ports),
                        &xdp_ifindex);
    bpf_map_update_elem(bpf_map__fd(dp->skel->maps.xdp_dp_ports),
                        &port_no, &none, BPF_ANY);
    bpf_map_delete_elem(bpf_map__fd(dp->skel->maps.xdp_dp_tx_ports),
                        &port_no);
    port->attached = false;
}

void
dp_xdp_port_destroy(struct dp_xdp *dp, struct dp_xdp_port *port)
{
    netdev_restore_flags(port->sf);
    dp_xdp_peer_destroy(dp, port);
    detach_port(dp, port);
    if (netdev_get_tunnel_config(port->netdev)) {
        uint32_t port_no = odp_to_u32(port->port_no);
        struct xdp_dp_port none = { .tx_mode = XDP_DP_TX_NONE };

        bpf_map_update_elem(bpf_map__fd(dp->skel->maps.xdp_dp_ports),
                            &port_no, &none, BPF_ANY);
    }
    if (port->peer_name) {
        int error = internal_port_delete(netdev_get_name(port->netdev));

        if (error && error != ENODEV) {
            VLOG_WARN("%s: cannot delete internal port %s (%s)", dp->name,
                      netdev_get_name(port->netdev), ovs_strerror(error));
        }
    }
    netdev_close(port->tx_netdev);
    netdev_close(port->netdev);
    ds_destroy(&port->mode_why);
    ds_destroy(&port->tx_why);
    free(port->qos_type);
    free(port->cfg_error);
    free(port->tx_error);
    free(port->peer_name);
    free(port->type);
    free(port);
}

static bool update_qos_type(struct dp_xdp_port *);

/* Tells the program which tunnel type 'port', a tunnel port, is, if its
 * packets can be popped in XDP (see "Tunnels" in datapath/xdp-dp.h).
 * Returns 0 or a positive errno. */
static int
write_tnl_port(struct dp_xdp *dp, const struct dp_xdp_port *port)
{
    const struct netdev_tunnel_config *cfg;
    uint32_t port_no = odp_to_u32(port->port_no);
    struct xdp_dp_port value = { .tx_mode = XDP_DP_TX_NONE };

    cfg = netdev_get_tunnel_config(port->netdev);
    if (!cfg) {
        /* Not a tunnel XDP knows. */
    } else if (!strcmp(port->type, "vxlan")
               && !(cfg->exts & (1 << OVS_VXLAN_EXT_GPE))) {
        value.tnl_type = XDP_DP_TNL_VXLAN;
    } else if (!strcmp(port->type, "geneve")) {
        value.tnl_type = XDP_DP_TNL_GENEVE;
    } else if ((!strcmp(port->type, "gre") || !strcmp(port->type, "ip6gre"))
               && cfg->pt_mode != NETDEV_PT_LEGACY_L3) {
        /* Ethernet inside (legacy_l2, the default, or ptap); over IPv4 or
         * IPv6, which the program tells from the packet. */
        value.tnl_type = XDP_DP_TNL_GRE;
    }
    if (bpf_map_update_elem(bpf_map__fd(dp->skel->maps.xdp_dp_ports),
                            &port_no, &value, BPF_ANY)) {
        int error = errno;

        VLOG_WARN("%s: cannot add tunnel port %s to the XDP program's "
                  "maps (%s)", dp->name, netdev_get_name(port->netdev),
                  ovs_strerror(error));
        return error;
    }
    return 0;
}

/* Remembers, in place of any earlier one, that the port named 'name' was
 * refused because of 'why' (which this takes over), for
 * dpif_xdp_port_take_refusal(); with 'name' NULL, forgets the last one. */
static void
set_refusal(const char *name, char *why)
{
    ovs_mutex_lock(&refusal_mutex);
    free(refused_name);
    free(refused_why);
    refused_name = nullable_xstrdup(name);
    refused_why = why;
    ovs_mutex_unlock(&refusal_mutex);
}

/* If the last port that dpif_xdp_port_add() refused for its type was
 * named 'name', returns why, for the caller to free, and forgets it;
 * otherwise returns NULL. */
char *
dpif_xdp_port_take_refusal(const char *name)
{
    char *why = NULL;

    ovs_mutex_lock(&refusal_mutex);
    if (refused_name && !strcmp(refused_name, name)) {
        why = refused_why;
        refused_why = NULL;
        free(refused_name);
        refused_name = NULL;
    }
    ovs_mutex_unlock(&refusal_mutex);
    return why;
}

/* Returns NULL if a port of netdev type 'type', not a tunnel, can be a
 * port of an xdp datapath, otherwise why not, for the caller to free.
 *
 * The program runs on kernel devices: netdev-linux's "system" and "tap"
 * ports, and "internal" ones (internal-port.c); "dummy" ports are for
 * tests (see dp_xdp_port_setup()).  Every other type is refused by name,
 * before anything asks the netdev for an ifindex: a DPDK port ("dpdk",
 * "dpdkvhostuser", ...) answers with a number hashed from its name,
 * which may be some kernel device's, and an AF_XDP port ("afxdp",
 * "afxdp-nonpmd") is a socket that OVS's userspace datapath polls. */
static char *
dp_xdp_port_type_refusal(const char *type)
{
    if (!strcmp(type, "system") || !strcmp(type, "tap")
        || !strcmp(type, "internal") || !strncmp(type, "dummy", 5)) {
        return NULL;
    }
    return xasprintf("xdp bridges take kernel network devices (types "
                     "system, internal, tap) and tunnels; put a port of "
                     "type %s on a bridge with datapath_type=netdev", type);
}

/* Sets up 'port', whose 'port_no', 'netdev' and 'type' are set, in the
 * kernel. */
static int
dp_xdp_port_setup(struct dp_xdp *dp, struct dp_xdp_port *port)
{
    const char *name = netdev_get_name(port->netdev);
    const char *type = port->type;
    char *why;
    int error;

    if (netdev_get_tunnel_config(port->netdev)) {
        /* A tunnel port (vxlan_sys_4789 and the like) is no device: as in
         * dpif-netdev, ofproto's native tunneling gives its flows
         * tnl_push() and tnl_pop() actions, which run on the underlay's
         * ports, and nothing is ever sent on or received from the tunnel
         * port itself. */
        if (!netdev_has_tunnel_push_pop(port->netdev)) {
            VLOG_WARN("%s: cannot add port %s: %s tunnels have no "
                      "userspace encapsulation", dp->name, name, type);
            return EOPNOTSUPP;
        }
        port->ifindex = -1;
        port->tx_mode = XDP_DP_TX_NONE;
        return write_tnl_port(dp, port);
    }

    why = dp_xdp_port_type_refusal(type);
    if (why) {
        VLOG_WARN("%s: cannot add port %s: %s", dp->name, name, why);
        set_refusal(name, why);
        return EINVAL;
    }

    if (!strcmp(type, "internal")) {
        error = setup_internal_port(dp, port, name);
        if (error) {
            return error;
        }
        port->xdp_ifindex = netdev_get_ifindex(port->tx_netdev);
        port->tx_mode = XDP_DP_TX_SKB;
    } else {
        port->tx_netdev = netdev_ref(port->netdev);
    }

    port->ifindex = netdev_get_ifindex(port->netdev);
    if (port->ifindex < 0) {
        error = -port->ifindex;
        VLOG_WARN("%s: cannot add port %s: it has no kernel ifindex (%s)",
                  dp->name, name, ovs_strerror(error));
        return error;
    }

    if (!strncmp(type, "dummy", 5)) {
        /* A dummy device (tests only) has no kernel device behind its
         * ifindex: the program is not attached and switches nothing. */
        port->tx_mode = XDP_DP_TX_NONE;
        return 0;
    }

    enum netdev_flags flags;
    if (!netdev_get_flags(port->netdev, &flags) && flags & NETDEV_LOOPBACK) {
        /* As the kernel datapath refuses it: what the host sends itself
         * would be switched into the network, and back. */
        VLOG_WARN("%s: cannot add port %s: a loopback device cannot be a "
                  "switch port", dp->name, name);
        return EINVAL;
    }
    if (!port->peer_name) {
        port->xdp_ifindex = port->ifindex;
        port->tx_mode = XDP_DP_TX_SKB;  /* Until attached. */
    }
    update_qos_type(port);
    if (port->tx_request != XDP_DP_TX_NONE) {
        port->tx_mode = port->tx_request;
    }
    error = attach_port(dp, port);
    if (!error) {
        /* Now that the attach mode is known. */
        error = dp_xdp_port_update_tx_mode(dp, port);
    }
    if (!error && !port->peer_name) {
        /* A switch port takes frames for any address, as the kernel
         * datapath and dpif-netdev make their ports: without it a NIC
         * filters out frames for the VMs behind it, and a Linux bridge
         * device never passes up the unicast frames it has not learned.
         * (An internal port's hidden peer takes whatever the host sends
         * it anyway.) */
        int error2 = netdev_turn_flags_on(port->netdev, NETDEV_PROMISC,
                                          &port->sf);
        if (error2) {
            VLOG_WARN("%s: port %s: cannot turn promiscuous mode on (%s): "
                      "frames for other addresses may not reach it",
                      dp->name, name, ovs_strerror(error2));
        }
    }
    return error;
}

/* After a restart, returns the port number that 'netdev' had in the earlier
 * run, if the pinned maps remember one that is free, else ODPP_NONE.  The
 * flows taken back from the pinned maps name ports by number, so a port
 * must get its number back. */
static odp_port_t
dp_xdp_previous_port_no(struct dp_xdp *dp, const struct netdev *netdev)
    OVS_REQUIRES(dp->port_mutex)
{
    uint32_t ifindex, port_no;

    if (!dp->reused) {
        return ODPP_NONE;
    }
    if (!strcmp(netdev_get_type(netdev), "internal")) {
        char peer[INTERNAL_PORT_PEER_NAME_LEN];

        internal_port_peer_name(netdev_get_name(netdev), peer);
        ifindex = if_nametoindex(peer);
    } else {
        int error = netdev_get_ifindex(netdev);

        ifindex = error > 0 ? error : 0;
    }
    if (!ifindex
        || bpf_map_lookup_elem(bpf_map__fd(dp->skel->maps.xdp_dp_in_ports),
                               &ifindex, &port_no)
        || !(port_no &= XDP_DP_IN_PORT_MASK)
        || port_no >= dp->max_ports
        || dp_xdp_lookup_port(dp, u32_to_odp(port_no))) {
        return ODPP_NONE;
    }
    return u32_to_odp(port_no);
}

int
dpif_xdp_port_add(struct dpif *dpif, struct netdev *netdev,
                  odp_port_t *port_nop)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    char namebuf[NETDEV_VPORT_NAME_BUFSIZE];
    const char *name;
    struct dp_xdp_port *port;
    odp_port_t port_no;
    int error = 0;

    /* A tunnel port has a name of its own in the datapath, one for all
     * ports of its type and UDP port ("vxlan_sys_4789"), under which
     * ofproto looks it up; others keep the device's name. */
    name = netdev_vport_get_dpif_port(netdev, namebuf, sizeof namebuf);
    set_refusal(NULL, NULL);
    ovs_mutex_lock(&dp->port_mutex);
    if (dp_xdp_lookup_port_by_name(dp, name)) {
        error = EEXIST;
        goto out;
    }
    if (*port_nop != ODPP_NONE) {
        port_no = *port_nop;
        if (odp_to_u32(port_no) == 0
            || odp_to_u32(port_no) >= dp->max_ports) {
            error = EINVAL;
            goto out;
        }
        if (dp_xdp_lookup_port(dp, port_no)) {
            error = EBUSY;
            goto out;
        }
    } else {
        port_no = dp_xdp_previous_port_no(dp, netdev);
        if (port_no == ODPP_NONE) {
            port_no = dp_xdp_choose_port(dp);
        }
        if (port_no == ODPP_NONE) {
            static struct vlog_rate_limit full_rl = VLOG_RATE_LIMIT_INIT(1, 5);

            /* The port map has a fixed size, like the kernel datapath's
             * 'max_vports' had: the operator gets the message in the log
             * and ofproto's "could not add network device" in the
             * Interface's error column. */
            COVERAGE_INC(xdp_port_map_full);
            VLOG_WARN_RL(&full_rl, "%s: cannot add %s: all %"PRIu32" port "
                         "numbers of the datapath are in use", dp->name,
                         name, dp->max_ports - 1);
            error = EFBIG;
            goto out;
        }
    }

    port = xzalloc(sizeof *port);
    port->port_no = port_no;
    if (strcmp(name, netdev_get_name(netdev))) {
        /* The tunnel port's own netdev, of the datapath's name, as
         * dpif-netdev opens it (netdev-vport reads the UDP port back from
         * the name). */
        error = netdev_open(name, netdev_get_type(netdev), &port->netdev);
        if (error) {
            free(port);
            goto out;
        }
    } else {
        port->netdev = netdev_ref(netdev);
    }
    port->type = xstrdup(netdev_get_type(netdev));
    port->att.link_fd = -1;
    port->netdev_seq = netdev_get_change_seq(netdev);
    error = dp_xdp_port_setup(dp, port);
    if (error) {
        dp_xdp_port_destroy(dp, port);
        goto out;
    }
    hmap_insert(&dp->ports, &port->node, dp_xdp_hash_port_no(port_no));
    seq_change(dp->port_seq);
    *port_nop = port_no;

    if (port->attached) {
        VLOG_INFO("%s: added port %s as port %"PRIu32" (ifindex %d, %s "
                  "mode, transmit by %s)", dp->name, name,
                  odp_to_u32(port_no), port->ifindex,
                  xdp_attachment_mode(&port->att),
                  dp_xdp_tx_mode_to_string(port->tx_mode));
    } else if (netdev_get_tunnel_config(port->netdev)) {
        VLOG_INFO("%s: added tunnel port %s as port %"PRIu32, dp->name,
                  name, odp_to_u32(port_no));
    } else {
        VLOG_INFO("%s: added port %s as port %"PRIu32" (not a kernel "
                  "device: no XDP)", dp->name, name, odp_to_u32(port_no));
    }
out:
    ovs_mutex_unlock(&dp->port_mutex);
    return error;
}

int
dpif_xdp_port_del(struct dpif *dpif, odp_port_t port_no)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    struct dp_xdp_port *port;
    int error = 0;

    ovs_mutex_lock(&dp->port_mutex);
    port = dp_xdp_lookup_port(dp, port_no);
    if (port) {
        hmap_remove(&dp->ports, &port->node);
        seq_change(dp->port_seq);
        VLOG_INFO("%s: removed port %s", dp->name,
                  netdev_get_name(port->netdev));
        dp_xdp_port_destroy(dp, port);
    } else {
        error = ENOENT;
    }
    ovs_mutex_unlock(&dp->port_mutex);
    return error;
}

/* Parses 'other_config:xdp-mode'.  Returns false if it is invalid. */
static bool
parse_xdp_mode(const char *s, enum xdp_attach_mode *mode)
{
    if (!s || !strcmp(s, "auto")) {
        *mode = XDP_ATTACH_AUTO;
    } else if (!strcmp(s, "best-effort")) {
        *mode = XDP_ATTACH_BEST_EFFORT;
    } else if (!strcmp(s, "native")) {
        *mode = XDP_ATTACH_NATIVE;
    } else if (!strcmp(s, "generic")) {
        *mode = XDP_ATTACH_GENERIC;
    } else if (!strcmp(s, "tc")) {
        *mode = XDP_ATTACH_TC;
    } else {
        return false;
    }
    return true;
}

/* Parses 'other_config:xdp-tx'.  Returns false if it is invalid. */
static bool
parse_xdp_tx(const char *s, enum xdp_dp_tx_mode *mode)
{
    if (!s || !strcmp(s, "auto")) {
        *mode = XDP_DP_TX_NONE;
    } else if (!strcmp(s, "redirect")) {
        *mode = XDP_DP_TX_REDIRECT;
    } else if (!strcmp(s, "skb")) {
        *mode = XDP_DP_TX_SKB;
    } else if (!strcmp(s, "peer")) {
        *mode = XDP_DP_TX_PEER;
    } else {
        return false;
    }
    return true;
}

/* Sets 'port->qos_type' to the type of QoS that the Port's QoS row put on
 * its device (netdev_get_qos(): "linux-htb" and the like), or NULL if it
 * has none.  bridge.c applies a Port's QoS just before its Interfaces'
 * other_config, so this is up to date in dpif_xdp_port_set_config().
 * Returns true if it changed. */
static bool
update_qos_type(struct dp_xdp_port *port)
{
    struct smap details = SMAP_INITIALIZER(&details);
    const char *type = NULL;
    char *new = NULL;
    bool changed;

    if (!netdev_get_qos(port->netdev, &type, &details) && type && *type) {
        new = xstrdup(type);
    }
    smap_destroy(&details);
    changed = !nullable_string_is_equal(new, port->qos_type);
    free(port->qos_type);
    port->qos_type = new;
    return changed;
}

/* Chooses how XDP transmits on 'port', from 'port->tx_request', the device
 * and its QoS, and applies it to the program.
 *
 * Egress QoS (the qdisc that OVS puts on a device for the Port's QoS:
 * linux-htb, linux-hfsc, ...) sees only frames that leave by skb: XDP
 * redirect hands a frame straight to the device's driver, past the qdisc,
 * so a rate limit there would be silently ignored, and so does
 * bpf_redirect_peer() (XDP_DP_TX_PEER, dpif-xdp-peer.c).  A port with QoS
 * therefore transmits by skb whatever was asked, and an explicit
 * other_config:xdp-tx=redirect or peer is refused, with the reason in
 * 'port->tx_error' for the Interface's error column.  Otherwise "auto"
 * sends into a veth's peer in another namespace by XDP_DP_TX_PEER where
 * it would send by skb. */
int
dp_xdp_port_update_tx_mode(struct dp_xdp *dp, struct dp_xdp_port *port)
    OVS_REQUIRES(dp->port_mutex)
{
    uint32_t port_no = odp_to_u32(port->port_no);
    struct xdp_dp_port value;

    ds_clear(&port->tx_why);
    free(port->tx_error);
    port->tx_error = NULL;
    if (port->qos_type && port->tx_request != XDP_DP_TX_SKB
        && !port->peer_name) {
        port->tx_mode = XDP_DP_TX_SKB;
        ds_put_format(&port->tx_why, "QoS %s on the device, whose qdisc "
                      "only the skb path passes", port->qos_type);
        if (port->tx_request == XDP_DP_TX_REDIRECT
            || port->tx_request == XDP_DP_TX_PEER) {
            port->tx_error = xasprintf(
                "other_config:xdp-tx=%s refused: the port has QoS "
                "(%s), which %s frames would bypass; transmitting "
                "by skb", dp_xdp_tx_mode_to_string(port->tx_request),
                port->qos_type,
                port->tx_request == XDP_DP_TX_PEER ? "peer" : "redirected");
        }
    } else if (port->tx_request == XDP_DP_TX_PEER) {
        struct ds why = DS_EMPTY_INITIALIZER;

        if (dp_xdp_peer_eligible(port, &why)) {
            port->tx_mode = XDP_DP_TX_PEER;
            ds_put_cstr(&port->tx_why, "other_config:xdp-tx");
        } else {
            port->tx_mode = XDP_DP_TX_SKB;
            ds_put_format(&port->tx_why, "xdp-tx=peer, but %s",
                          ds_cstr(&why));
            port->tx_error = xasprintf(
                "other_config:xdp-tx=peer refused: %s; transmitting by skb",
                ds_cstr(&why));
        }
        ds_destroy(&why);
    } else if (port->tx_request != XDP_DP_TX_NONE) {
        port->tx_mode = port->tx_request;
        ds_put_cstr(&port->tx_why, "other_config:xdp-tx");
    } else if (port->peer_name) {
        port->tx_mode = XDP_DP_TX_SKB;
        ds_put_cstr(&port->tx_why, "an internal port");
    } else {
        port->tx_mode = choose_tx_mode(port, &port->tx_why);
        if (port->tx_mode == XDP_DP_TX_SKB && port->attached) {
            /* The skb path, into the peer's ingress where it can. */
            struct ds why = DS_EMPTY_INITIALIZER;

            if (dp_xdp_peer_eligible(port, &why)) {
                port->tx_mode = XDP_DP_TX_PEER;
                ds_put_format(&port->tx_why, "; a veth whose peer is in "
                              "another namespace (id %d): into its "
                              "ingress", port->peer.netnsid);
            } else if (!port->not_veth) {
                ds_put_format(&port->tx_why, "; not into the peer's "
                              "ingress: %s", ds_cstr(&why));
            }
            ds_destroy(&why);
        }
    }
    if (!port->attached) {
        return 0;
    }
    value = (struct xdp_dp_port) {
        .ifindex = netdev_get_ifindex(port->tx_netdev),
        .tx_mode = port->tx_mode,
    };
    /* The peer's entry (or its removal) before the port's mode: a program
     * that finds XDP_DP_TX_PEER without the entry sends the usual way. */
    int error = dp_xdp_peer_write(dp, port);
    if (error) {
        VLOG_WARN("%s: port %s: cannot write its veth peer to the datapath "
                  "(%s): transmitting by skb", dp->name,
                  netdev_get_name(port->netdev), ovs_strerror(error));
        port->tx_mode = value.tx_mode = XDP_DP_TX_SKB;
    }
    return (bpf_map_update_elem(bpf_map__fd(dp->skel->maps.xdp_dp_ports),
                                &port_no, &value, BPF_ANY)
            ? errno : 0);
}

/* Chooses again how XDP transmits on 'port' (dp_xdp_port_update_tx_mode())
 * and says so: a refused request in the log and the Interface's error
 * column, a new mode in the log.  Returns 0 or a positive errno. */
int
dp_xdp_port_retx(struct dp_xdp *dp, struct dp_xdp_port *port)
    OVS_REQUIRES(dp->port_mutex)
{
    enum xdp_dp_tx_mode old_mode = port->tx_mode;
    bool had_error = port->tx_error != NULL;
    int error = dp_xdp_port_update_tx_mode(dp, port);

    if (port->tx_error) {
        VLOG_WARN("%s: port %s: %s", dp->name,
                  netdev_get_name(port->netdev), port->tx_error);
    } else if (port->tx_mode != old_mode) {
        VLOG_INFO("%s: port %s: transmit by %s (%s)", dp->name,
                  netdev_get_name(port->netdev),
                  dp_xdp_tx_mode_to_string(port->tx_mode),
                  ds_cstr(&port->tx_why));
    }
    if (had_error || port->tx_error) {
        dp_xdp_port_error_changed();
    }
    return error;
}

/* The Interface's other_config reaches the datapath here.  other_config,
 * not options: ofproto hands 'options' to the netdev, and Linux system
 * devices take none, while other_config goes to the datapath (as
 * dpif-netdev's pmd-rxq-affinity does).  'xdp-mode' takes the values of
 * OVS's afxdp ports, native, generic and best-effort, and "auto" (the
 * default), which chooses per device (dispatcher/xdp-auto-mode.c) and
 * chooses again at every reconfiguration, so that a port follows its
 * veth's peer when an XDP program comes or goes there.
 *
 * 'xdp-tx' says how the program sends to the port: "redirect" (XDP
 * redirect through the devmap), "skb" (through the TC half), or "auto"
 * (the default: skb for veths, whose XDP transmit loses frames unless the
 * peer runs NAPI, which we cannot see from here when the peer is in
 * another namespace, and for devices where the program runs in generic
 * mode, which have no XDP transmit; redirect for everything else).  An
 * operator who knows that a veth's peer runs NAPI can ask for
 * "redirect".  Packets that arrive in generic mode go through the TC half
 * whatever the output's mode (see XDP_DP_IN_PORT_F_GENERIC).
 *
 * XDP cannot switch a link between native and generic mode, so a change
 * detaches and attaches again: the port is without the program for that
 * moment. */
int
dpif_xdp_port_set_config(struct dpif *dpif, odp_port_t port_no,
                         const struct smap *cfg)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    const char *value = smap_get(cfg, "xdp-mode");
    const char *tx_value = smap_get(cfg, "xdp-tx");
    enum xdp_dp_tx_mode tx_request = XDP_DP_TX_NONE;
    enum xdp_attach_mode mode = XDP_ATTACH_AUTO;
    struct dp_xdp_port *port;
    char *cfg_error = NULL;
    int error = 0;

    if (!parse_xdp_mode(value, &mode)) {
        cfg_error = xasprintf("other_config:xdp-mode=%s is not one of auto, "
                              "native, generic, best-effort, tc; ignored", value);
    } else if (!parse_xdp_tx(tx_value, &tx_request)) {
        cfg_error = xasprintf("other_config:xdp-tx=%s is not one of auto, "
                              "redirect, skb, peer; ignored", tx_value);
    }

    ovs_mutex_lock(&dp->port_mutex);
    port = dp_xdp_lookup_port(dp, port_no);
    if (!port) {
        error = cfg_error ? EINVAL : 0;
        free(cfg_error);
        goto out;
    }
    if (cfg_error) {
        /* The port keeps what it had, but follows its QoS (below). */
        VLOG_WARN("%s: port %s: %s", dp->name, netdev_get_name(port->netdev),
                  cfg_error);
        free(port->cfg_error);
        port->cfg_error = cfg_error;
        dp_xdp_port_error_changed();
        tx_request = port->tx_request;
        mode = port->mode;
    } else if (port->cfg_error) {
        free(port->cfg_error);
        port->cfg_error = NULL;
        dp_xdp_port_error_changed();
    }
    if (update_qos_type(port) || tx_request != port->tx_request) {
        port->tx_request = tx_request;
        error = dp_xdp_port_retx(dp, port);
    } else if (port->tx_error) {
        /* bridge.c cleared the Interface's error column before calling us:
         * have it ask again. */
        dp_xdp_port_error_changed();
    }
    if (port->cfg_error) {
        error = EINVAL;
    }
    if (port->cfg_error || (mode == port->mode && mode != XDP_ATTACH_AUTO)) {
        goto out;
    }
    port->mode = mode;
    if (!port->attached) {
        goto out;
    }
    enum xdp_attach_mode effective = port_attach_mode(port);
    if (effective == XDP_ATTACH_AUTO || port_attached_as(port, effective)) {
        /* Attached as asked, or "auto" cannot tell now (the device is
         * going away, say): leave it. */
        if (effective != XDP_ATTACH_AUTO) {
            port->att_mode = effective;
        }
        goto out;
    }

    detach_port(dp, port);
    error = attach_port(dp, port);
    if (!error) {
        error = dp_xdp_port_update_tx_mode(dp, port);
    }
    if (error) {
        VLOG_WARN("%s: port %s: cannot attach in %s mode (%s): the port "
                  "does not switch packets", dp->name,
                  netdev_get_name(port->netdev),
                  xdp_attach_mode_to_string(mode), ovs_strerror(error));
    } else {
        VLOG_INFO("%s: port %s: now attached in %s mode", dp->name,
                  netdev_get_name(port->netdev),
                  xdp_attachment_mode(&port->att));
    }
out:
    ovs_mutex_unlock(&dp->port_mutex);
    return error;
}

/* Returns a reference to the netdev of port 'port_no': if 'tnl', its own,
 * if it is a tunnel port (whose class pushes and pops its headers),
 * otherwise the one through which userspace sends on it.  NULL if there
 * is none.  The caller closes it. */
static struct netdev *
port_netdev_ref(struct dp_xdp *dp, odp_port_t port_no, bool tnl)
{
    struct netdev *netdev = NULL;
    struct dp_xdp_port *port;

    ovs_mutex_lock(&dp->port_mutex);
    port = dp_xdp_lookup_port(dp, port_no);
    if (port && !tnl) {
        netdev = netdev_ref(port->tx_netdev);
    } else if (port && netdev_get_tunnel_config(port->netdev)) {
        netdev = netdev_ref(port->netdev);
    }
    ovs_mutex_unlock(&dp->port_mutex);
    return netdev;
}

struct netdev *
dp_xdp_port_netdev_ref(struct dp_xdp *dp, odp_port_t port_no)
{
    return port_netdev_ref(dp, port_no, false);
}

struct netdev *
dp_xdp_port_tnl_netdev_ref(struct dp_xdp *dp, odp_port_t port_no)
{
    return port_netdev_ref(dp, port_no, true);
}

/* Configuration errors.
 *
 * What is wrong with an Interface's configuration belongs in its error
 * column, where operators look, not only in the log.  bridge.c fills that
 * column from ofproto_vport_get_status(), which ovs-vswitchd-xdp wraps to
 * ask dpif_xdp_port_get_error() as well, and it asks whenever the
 * connectivity seq moves.  bridge.c also clears the column at every
 * reconfiguration, just before it hands the Interface's other_config to
 * dpif_xdp_port_set_config(), so that function moves the seq whenever a
 * port has an error, and when one goes away. */
void
dp_xdp_port_error_changed(void)
{
    seq_change(connectivity_seq_get());
}

struct get_error_aux {
    const char *name;
    char *error;
};

static void
get_error_cb(struct dp_xdp *dp, void *aux_)
{
    struct get_error_aux *aux = aux_;
    struct dp_xdp_port *port;

    ovs_mutex_lock(&dp->port_mutex);
    port = dp_xdp_lookup_port_by_name(dp, aux->name);
    if (port && !aux->error) {
        const char *error = port->cfg_error ? port->cfg_error : port->tx_error;

        aux->error = nullable_xstrdup(error);
    }
    ovs_mutex_unlock(&dp->port_mutex);
}

/* Returns what is wrong with the configuration of 'netdev', a port of an
 * xdp datapath, as a string for the Interface's error column that the
 * caller frees, or NULL if nothing is (or it is no port of ours). */
char *
dpif_xdp_port_get_error(const struct netdev *netdev)
{
    const char *dpif_type = netdev_get_dpif_type(netdev);
    struct get_error_aux aux = { .name = netdev_get_name(netdev) };

    if (!dpif_type || strcmp(dpif_type, "xdp")) {
        return NULL;
    }
    dp_xdp_foreach(NULL, get_error_cb, &aux);
    return aux.error;
}

/* Interfaces that come and go.
 *
 * A port's kernel device may go away under it: a container restarts and
 * its veth is deleted and made again with the same name, or the device is
 * moved to another namespace or renamed.  The program's link went with
 * the old device, and the maps name its old ifindex, so the port would
 * switch nothing ever again.  The kernel datapath drops such a port and
 * lets the bridge add it back; so do we.  When netdev-linux reports a
 * change of a port's device (its change seq moves, on rtnetlink events),
 * we check that the name still has the ifindex the port was set up with;
 * if not, the port is removed and ofproto told (port_seq).  The bridge
 * notices the device when it appears again (its if_notifier reconfigures)
 * and adds the port back, with a new attachment.  Internal ports are ours
 * and are left alone. */
void
dp_xdp_check_devices(struct dp_xdp *dp)
    OVS_REQUIRES(dp->port_mutex)
{
    struct dp_xdp_port *port;

    HMAP_FOR_EACH_SAFE (port, node, &dp->ports) {
        uint64_t seq = netdev_get_change_seq(port->netdev);
        const char *name = netdev_get_name(port->netdev);

        if (seq == port->netdev_seq || port->peer_name || !port->attached) {
            continue;
        }
        port->netdev_seq = seq;
        if (if_nametoindex(name) == port->ifindex) {
            continue;
        }
        VLOG_INFO("%s: device %s went away (ifindex %d): removing its port "
                  "until the bridge adds it again", dp->name, name,
                  port->ifindex);
        hmap_remove(&dp->ports, &port->node);
        dp_xdp_port_destroy(dp, port);
        seq_change(dp->port_seq);
    }
}
