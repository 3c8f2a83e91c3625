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

/* Transmit into a container's namespace: the XDP_DP_TX_PEER mode of a
 * veth port.
 *
 * A container's veth is the port that most hosts have most of, and what
 * the datapath sends to it leaves as an skb (by the TC half of the XDP
 * program, or the TC pipeline): bpf_redirect() to the host's end, whose
 * transmit queues the skb on the CPU's backlog for the container's end to
 * receive in a second softirq pass.  bpf_redirect_peer() hands the skb to
 * the container's end directly, in the same pass: that trip is most of
 * what a small packet costs on this path (ovs-xdp-bench forward
 * --sink=stack).  struct xdp_dp_peer in datapath/xdp-dp.h says what it
 * skips (the address check of eth_type_trans(), the MTU check, the port
 * device's qdisc and transmit counters) and how the programs make up for
 * each: they use it only for frames addressed to the peer's Ethernet
 * address and within its MTU, which this module reads from rtnetlink
 * (xdp_veth_peer_get()) into xdp_dp_peers; ports with QoS keep the qdisc
 * path (update_tx_mode()); and the programs count what they send there,
 * which dpif_xdp_add_peer_stats() adds to the device's transmit counters
 * for ofproto (ovs-vswitchd-xdp.c wraps netdev_get_stats()).
 *
 * The peer's namespace sends us no rtnetlink events, so a change there
 * (its address, its MTU, an XDP program attached to it, the device moving
 * to another namespace) is seen by polling, every DP_XDP_PEER_CHECK_MS.
 * Until then the programs act on what they last knew: a frame for a
 * changed address goes the usual way, and one for the old address still
 * goes straight in. */

#include <config.h>

#include <errno.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dispatcher/xdp-attach.h"
#include "dpif-xdp-private.h"
#include "netdev.h"
#include "ofproto-xdp/dpif-xdp.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_peer);

/* How often the peers of veth ports are read again. */
#define DP_XDP_PEER_CHECK_MS 2000

/* Reads what 'port''s device says about its veth peer into 'port->peer'
 * and returns true if the port may transmit into the peer's ingress;
 * otherwise appends why not to 'why'. */
bool
dp_xdp_peer_eligible(struct dp_xdp_port *port, struct ds *why)
{
    struct xdp_veth_peer peer;

    if (port->peer_name) {
        ds_put_cstr(why, "an internal port");
        port->has_peer = false;
        return false;
    }
    if (port->not_veth) {
        ds_put_cstr(why, "not a veth with a peer");
        return false;
    }
    int error = xdp_veth_peer_get(port->ifindex, &peer, why);
    if (error) {
        port->not_veth = error == EOPNOTSUPP;
        port->has_peer = false;
        return false;
    }
    port->has_peer = true;
    port->peer = peer;
    return true;
}

/* Reads the 'n' per-CPU copies of 'port''s entry in xdp_dp_peers into
 * 'values'.  Returns 0 or a positive errno (ENOENT: no entry). */
static int
read_peer(struct dp_xdp *dp, const struct dp_xdp_port *port,
          struct xdp_dp_peer *values)
{
    uint32_t key = port->ifindex;

    return (bpf_map_lookup_elem(bpf_map__fd(dp->skel->maps.xdp_dp_peers),
                                &key, values) ? errno : 0);
}

/* Folds what the programs counted in 'port''s entry of xdp_dp_peers into
 * 'port->peer_tx' and removes the entry. */
static void
remove_peer(struct dp_xdp *dp, struct dp_xdp_port *port)
{
    int n_cpus = libbpf_num_possible_cpus();
    struct xdp_dp_peer *values;
    uint32_t key = port->ifindex;

    if (n_cpus <= 0 || port->ifindex <= 0) {
        return;
    }
    values = xcalloc(n_cpus, sizeof *values);
    if (!read_peer(dp, port, values)) {
        for (int i = 0; i < n_cpus; i++) {
            port->peer_tx_packets += values[i].tx_packets;
            port->peer_tx_bytes += values[i].tx_bytes;
        }
        bpf_map_delete_elem(bpf_map__fd(dp->skel->maps.xdp_dp_peers), &key);
    }
    free(values);
}

/* Makes xdp_dp_peers agree with 'port': an entry with its peer's address
 * and MTU if the port is in XDP_DP_TX_PEER mode, none otherwise.  An
 * existing entry keeps its counters.  Returns 0 or a positive errno. */
int
dp_xdp_peer_write(struct dp_xdp *dp, struct dp_xdp_port *port)
{
    int fd = bpf_map__fd(dp->skel->maps.xdp_dp_peers);
    int n_cpus = libbpf_num_possible_cpus();
    struct xdp_dp_peer *values;
    uint32_t key = port->ifindex;
    int error;

    if (port->tx_mode != XDP_DP_TX_PEER || !port->attached) {
        remove_peer(dp, port);
        return 0;
    }
    if (n_cpus <= 0) {
        return n_cpus ? -n_cpus : EINVAL;
    }
    values = xcalloc(n_cpus, sizeof *values);
    read_peer(dp, port, values);    /* Keeps the counters, if any. */
    for (int i = 0; i < n_cpus; i++) {
        memcpy(values[i].mac, port->peer.mac.ea, ETH_ADDR_LEN);
        values[i].max_len = port->peer.mtu + ETH_HEADER_LEN + VLAN_HEADER_LEN;
    }
    error = bpf_map_update_elem(fd, &key, values, BPF_ANY) ? errno : 0;
    free(values);
    return error;
}

/* Forgets 'port''s peer, as the port goes. */
void
dp_xdp_peer_destroy(struct dp_xdp *dp, struct dp_xdp_port *port)
{
    remove_peer(dp, port);
}

/* Polls the peers of 'dp''s ports (see the top of the file) and switches
 * a port between XDP_DP_TX_PEER and XDP_DP_TX_SKB, or rewrites its entry,
 * when what it knew of its peer no longer holds. */
void
dp_xdp_peer_run(struct dp_xdp *dp)
    OVS_REQUIRES(dp->port_mutex)
{
    long long int now = time_msec();
    struct dp_xdp_port *port;

    if (now < dp->peer_check_deadline) {
        return;
    }
    dp->peer_check_deadline = now + DP_XDP_PEER_CHECK_MS;
    HMAP_FOR_EACH (port, node, &dp->ports) {
        struct xdp_veth_peer old = port->peer;
        bool had_peer = port->has_peer;
        struct ds why = DS_EMPTY_INITIALIZER;

        /* Only ports that would send into their peer if they could: not
         * those with QoS or another xdp-tx, whatever their peer. */
        if (!port->attached || port->peer_name || port->not_veth
            || port->qos_type
            || (port->tx_request != XDP_DP_TX_NONE
                && port->tx_request != XDP_DP_TX_PEER)
            || (port->tx_mode != XDP_DP_TX_PEER
                && port->tx_mode != XDP_DP_TX_SKB)) {
            continue;
        }
        dp_xdp_peer_eligible(port, &why);
        ds_destroy(&why);
        if (had_peer != port->has_peer
            || (port->has_peer && memcmp(&old, &port->peer, sizeof old))) {
            dp_xdp_port_retx(dp, port);
        }
    }
}

/* What dpif_xdp_add_peer_stats() looks for in each datapath. */
struct peer_stats_aux {
    const char *name;
    uint64_t packets;
    uint64_t bytes;
};

static void
peer_stats_cb(struct dp_xdp *dp, void *aux_)
{
    struct peer_stats_aux *aux = aux_;
    int n_cpus = libbpf_num_possible_cpus();
    struct dp_xdp_port *port;

    ovs_mutex_lock(&dp->port_mutex);
    port = dp_xdp_lookup_port_by_name(dp, aux->name);
    if (port && n_cpus > 0) {
        struct xdp_dp_peer *values = xcalloc(n_cpus, sizeof *values);

        aux->packets += port->peer_tx_packets;
        aux->bytes += port->peer_tx_bytes;
        if (port->tx_mode == XDP_DP_TX_PEER && !read_peer(dp, port, values)) {
            for (int i = 0; i < n_cpus; i++) {
                aux->packets += values[i].tx_packets;
                aux->bytes += values[i].tx_bytes;
            }
        }
        free(values);
    }
    ovs_mutex_unlock(&dp->port_mutex);
}

/* Adds to 'stats', the counters that netdev_get_stats() read from the
 * kernel for 'netdev', what a datapath of ours sent into the peer of
 * 'netdev' past the device's transmit path (see the top of the file), if
 * 'netdev' is a port of an xdp datapath. */
void
dpif_xdp_add_peer_stats(const struct netdev *netdev,
                        struct netdev_stats *stats)
{
    const char *dpif_type = netdev_get_dpif_type(netdev);
    struct peer_stats_aux aux = { .name = netdev_get_name(netdev) };

    if (!dpif_type || strcmp(dpif_type, "xdp")
        || netdev_get_tunnel_config(netdev)) {
        return;
    }
    dp_xdp_foreach(NULL, peer_stats_cb, &aux);
    if (aux.packets) {
        stats->tx_packets += aux.packets;
        stats->tx_bytes += aux.bytes;
    }
}
