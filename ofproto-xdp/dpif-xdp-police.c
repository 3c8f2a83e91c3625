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

/* Ingress policing on xdp ports: the Interface's ingress_policing_rate,
 * ingress_policing_burst, ingress_policing_kpkts_rate and
 * ingress_policing_kpkts_burst, enforced in XDP.
 *
 * bridge.c applies these columns with netdev_set_policing(), which on
 * Linux puts a tc policer on the device's ingress hook (netdev-linux.c).
 * On an xdp port that policer would never see what XDP redirects, and it
 * cannot even be installed: the clsact qdisc of our TC half holds the
 * ingress hook, and netdev-linux logs "adding policing qdisc failed: File
 * exists".  OVS gives a datapath no say in policing, so ovs-vswitchd-xdp
 * is linked with --wrap=netdev_set_policing (ovs-vswitchd-xdp.c): a
 * netdev that is a port of an xdp datapath (netdev_get_dpif_type()) is
 * policed here; any other goes to netdev-linux as before.
 *
 * Here means in the datapath program: each port's configuration becomes a
 * token bucket in xdp_dp_policers (struct xdp_dp_policer, with the
 * arithmetic of the kernel's policer, and the units and defaults that
 * netdev-linux gives the kernel's), and the port's entry in
 * xdp_dp_in_ports gets XDP_DP_IN_PORT_F_POLICED, which makes the program
 * pass every frame of the port through the bucket before anything else
 * (datapath/xdp-dp-police.h).  The configuration lives in the port, and
 * attach_port() writes it again whenever the port is attached, so it
 * holds across the port's device going and coming back; the maps outlive
 * program swaps. */

#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dpif-xdp-private.h"
#include "netdev.h"
#include "ofproto-xdp/dpif-xdp.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_police);

/* Whether 'cfg' limits anything. */
bool
dp_xdp_police_is_set(const struct dp_xdp_police_cfg *cfg)
{
    return cfg->kbits_rate || cfg->kpkts_rate;
}

/* The bucket that enforces 'cfg', as netdev-linux configures the kernel's
 * policer: a rate of 'kbits_rate' * 1000 bit/s with a burst of
 * 'kbits_burst' * 1024 bits, and 'kpkts_rate' * 1000 packet/s with a burst
 * of 'kpkts_burst' * 1000 packets. */
static struct xdp_dp_policer
policer_from_cfg(const struct dp_xdp_police_cfg *cfg)
{
    struct xdp_dp_policer p;

    memset(&p, 0, sizeof p);
    if (cfg->kbits_rate) {
        p.kbits_rate = cfg->kbits_rate;
        p.byte_burst_ns = ((uint64_t) cfg->kbits_burst * 1024 * 1000000
                           / cfg->kbits_rate);
    }
    if (cfg->kpkts_rate) {
        p.pkt_cost_ns = MAX(1, 1000000 / cfg->kpkts_rate);
        p.pkt_burst_ns = ((uint64_t) cfg->kpkts_burst * 1000000000
                          / cfg->kpkts_rate);
    }
    return p;
}

/* Writes 'port''s policer into xdp_dp_policers (an empty one if it has
 * none), with a full bucket.  Returns 0 or a positive errno. */
int
dp_xdp_police_write(struct dp_xdp *dp, const struct dp_xdp_port *port)
    OVS_REQUIRES(dp->port_mutex)
{
    struct xdp_dp_policer p = policer_from_cfg(&port->police);
    uint32_t port_no = odp_to_u32(port->port_no);

    if (bpf_map_update_elem(bpf_map__fd(dp->skel->maps.xdp_dp_policers),
                            &port_no, &p, BPF_ANY)) {
        return errno;
    }
    return 0;
}

static void
format_cfg(struct ds *s, const struct dp_xdp_police_cfg *cfg)
{
    if (cfg->kbits_rate) {
        ds_put_format(s, "%"PRIu32" kbit/s (burst %"PRIu32" kbit)",
                      cfg->kbits_rate, cfg->kbits_burst);
    }
    if (cfg->kpkts_rate) {
        ds_put_format(s, "%s%"PRIu32" kpkt/s (burst %"PRIu32" kpkt)",
                      cfg->kbits_rate ? ", " : "", cfg->kpkts_rate,
                      cfg->kpkts_burst);
    }
}

/* Gives 'port' policing 'cfg' and, if it is attached, applies it at once:
 * the bucket first, then the flag that makes the program use it (and,
 * when policing ends, the other way round).  Returns 0 or a positive
 * errno. */
static int
set_port_policing(struct dp_xdp *dp, struct dp_xdp_port *port,
                  const struct dp_xdp_police_cfg *cfg)
    OVS_REQUIRES(dp->port_mutex)
{
    const char *name = netdev_get_name(port->netdev);
    bool on = dp_xdp_police_is_set(cfg);
    int error = 0;

    if (!memcmp(&port->police, cfg, sizeof *cfg)) {
        return 0;
    }
    port->police = *cfg;
    if (port->attached) {
        error = on ? dp_xdp_police_write(dp, port) : 0;
        if (!error) {
            error = dp_xdp_port_write_in_value(dp, port);
        }
        if (!error && !on) {
            error = dp_xdp_police_write(dp, port);
        }
    }

    if (error) {
        VLOG_WARN("%s: port %s: cannot apply ingress policing in XDP (%s)",
                  dp->name, name, ovs_strerror(error));
    } else if (on) {
        struct ds s = DS_EMPTY_INITIALIZER;

        format_cfg(&s, cfg);
        VLOG_INFO("%s: port %s: ingress policing at %s, in XDP%s",
                  dp->name, name, ds_cstr(&s),
                  port->attached ? "" : " once the device is attached");
        ds_destroy(&s);
    } else {
        VLOG_INFO("%s: port %s: ingress policing off", dp->name, name);
    }
    return error;
}

/* What dpif_xdp_set_policing() hands to each datapath. */
struct set_policing_aux {
    const struct netdev *netdev;
    struct dp_xdp_police_cfg cfg;
    bool found;
    int error;
};

static void
set_policing_cb(struct dp_xdp *dp, void *aux_)
{
    struct set_policing_aux *aux = aux_;
    struct dp_xdp_port *port;

    ovs_mutex_lock(&dp->port_mutex);
    port = dp_xdp_lookup_port_by_name(dp, netdev_get_name(aux->netdev));
    if (port) {
        aux->found = true;
        aux->error = set_port_policing(dp, port, &aux->cfg);
    }
    ovs_mutex_unlock(&dp->port_mutex);
}

/* netdev_set_policing() for 'netdev', with its arguments, if 'netdev' is a
 * port of an xdp datapath: then returns true and stores 0 or a positive
 * errno in '*errorp'.  Returns false for any other netdev, which is not
 * ours to police.  Burst values of 0 get netdev-linux's defaults. */
bool
dpif_xdp_set_policing(struct netdev *netdev, uint32_t kbits_rate,
                      uint32_t kbits_burst, uint32_t kpkts_rate,
                      uint32_t kpkts_burst, int *errorp)
{
    const char *dpif_type = netdev_get_dpif_type(netdev);
    struct set_policing_aux aux = {
        .netdev = netdev,
        .cfg = {
            .kbits_rate = kbits_rate,
            .kbits_burst = !kbits_rate ? 0 : kbits_burst ? kbits_burst : 8000,
            .kpkts_rate = kpkts_rate,
            .kpkts_burst = !kpkts_rate ? 0 : kpkts_burst ? kpkts_burst : 16,
        },
    };

    if (!dpif_type || strcmp(dpif_type, "xdp")
        || netdev_get_tunnel_config(netdev)) {
        /* Not ours, or a tunnel port, which receives nothing itself and
         * which no datapath polices (netdev-vport has no set_policing). */
        return false;
    }
    dp_xdp_foreach(NULL, set_policing_cb, &aux);
    if (!aux.found && dp_xdp_police_is_set(&aux.cfg)) {
        /* An xdp netdev that no datapath has as a port: it was one, and
         * was removed.  The tc policer could not work either (see the
         * top of the file), so say so rather than pretend. */
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);

        VLOG_WARN_RL(&rl, "%s: not a port of any xdp datapath: cannot police "
                     "its ingress", netdev_get_name(netdev));
        aux.error = ENODEV;
    }
    *errorp = aux.error;
    return true;
}

/* Formats the policers of 'dp''s ports, with what the program counted in
 * each, into 's'. */
void
dp_xdp_police_format(struct dp_xdp *dp, struct ds *s)
{
    int fd = bpf_map__fd(dp->skel->maps.xdp_dp_policers);
    struct dp_xdp_port *port;

    ovs_mutex_lock(&dp->port_mutex);
    HMAP_FOR_EACH (port, node, &dp->ports) {
        uint32_t port_no = odp_to_u32(port->port_no);
        struct xdp_dp_policer p;

        if (!dp_xdp_police_is_set(&port->police)) {
            continue;
        }
        ds_put_format(s, "  port %"PRIu32" (%s): ", port_no,
                      netdev_get_name(port->netdev));
        format_cfg(s, &port->police);
        if (!port->attached) {
            ds_put_cstr(s, ", not attached\n");
        } else if (bpf_map_lookup_elem(fd, &port_no, &p)) {
            ds_put_format(s, ", cannot read its counters (%s)\n",
                          ovs_strerror(errno));
        } else {
            ds_put_format(s, ", passed %"PRIu64", dropped %"PRIu64
                          " (%"PRIu64" bytes)\n", (uint64_t) p.n_passed,
                          (uint64_t) p.n_dropped,
                          (uint64_t) p.n_dropped_bytes);
        }
    }
    ovs_mutex_unlock(&dp->port_mutex);
}
