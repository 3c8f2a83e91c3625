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

/* Native tunneling: the tnl_push() and tnl_pop() actions, run in
 * ovs-vswitchd.
 *
 * Tunnels on an xdp bridge work as on OVS's userspace datapath
 * (Documentation/howto/userspace-tunneling.rst in the OVS tree): a tunnel
 * port (type vxlan, geneve, gre...) is no device, only a datapath port
 * named after its type and UDP port ("vxlan_sys_4789"); ofproto resolves
 * the underlay route (ovs-router) and next hop (tnl-neigh-cache, learnt
 * from the ARP and ND that cross the bridges), builds the outer headers
 * itself, and gives the datapath tnl_push(header, out_port) where a packet
 * enters a tunnel, and tnl_pop(tunnel port) on the underlay bridge where a
 * packet addressed to a tunnel endpoint arrives.  ovs-vswitchd-xdp says yes
 * to dpif_supports_tnl_push_pop() for xdp (ovs-vswitchd-xdp.c), so ofproto
 * composes them.
 *
 * Both actions run here with netdev-vport's own header code
 * (lib/netdev-native-tnl.c, reached through netdev_push_header() and
 * netdev_pop_header() on the tunnel port's netdev): pushing copies the
 * prebuilt header in front of the packet and fills in its lengths,
 * checksums and the UDP source port from the packet's hash; popping checks
 * the outer headers, strips them and leaves the tunnel metadata in the
 * packet's metadata, after which the packet is looked up again with the
 * tunnel port as its input port (dpif-xdp-upcall.c).  A flow that matches
 * tunnel metadata is classified by ovs-vswitchd (dpif-xdp-uflow.c).
 *
 * One thing OVS's push keeps that XDP cannot reach: a GRE tunnel's sequence
 * numbers (options:seq=true), counted in the tunnel port's netdev.  XDP
 * numbers the packets it pushes from a count per tunnel port in the map
 * xdp_dp_gre_seq, and the packets pushed here take their numbers from the
 * same count, through the mapped array (gre_seq_set()): one sequence per
 * port, whoever pushes, as a receiver that checks them wants. */

#include <config.h>

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "coverage.h"
#include "csum.h"
#include "dp-packet.h"
#include "dpif-xdp-private.h"
#include "flow.h"
#include "netdev.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "odp-util.h"
#include "packets.h"
#include "openvswitch/vlog.h"
#include "unaligned.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_tnl);

COVERAGE_DEFINE(xdp_tnl_push);
COVERAGE_DEFINE(xdp_tnl_pop);
COVERAGE_DEFINE(xdp_tnl_drop);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

/* Where the tnl_push() action 'a' in the 'actions_len' bytes of actions
 * at 'actions' sends its packets: the port of the output right after it
 * (in the same list, which may be a clone()'s), or ODPP_NONE. */
static odp_port_t
output_after(const struct nlattr *actions, size_t actions_len,
             const struct nlattr *a)
{
    const struct nlattr *x;
    size_t left;

    NL_ATTR_FOR_EACH (x, left, actions, actions_len) {
        if (x == a) {
            size_t len = NLA_ALIGN(x->nla_len);
            const struct nlattr *next = nl_attr_next(x);

            return (left >= len + NLA_HDRLEN
                    && nl_attr_type(next) == OVS_ACTION_ATTR_OUTPUT
                    ? nl_attr_get_odp_port(next) : ODPP_NONE);
        }
        if (nl_attr_type(x) == OVS_ACTION_ATTR_CLONE
            && (const char *) a > (const char *) x
            && (const char *) a < (const char *) x + x->nla_len) {
            return output_after(nl_attr_get(x), nl_attr_get_size(x), a);
        }
    }
    return ODPP_NONE;
}

/* If 'data' is a GRE header with a sequence number, renumbers the packets
 * of 'batch', which netdev_push_header() just encapsulated with it and
 * numbered from OVS's own count, from the count of the tunnel port in
 * 'xdp_dp_gre_seq', which XDP takes its numbers from too.  If the header
 * has a checksum, which covers the number, it is made again (OVS 3.1 sums
 * before it writes the number, so its checksum is of the prebuilt one). */
static void
gre_seq_set(struct dp_xdp *dp, struct dp_packet_batch *batch,
            const struct ovs_action_push_tnl *data)
{
    const uint8_t *hdr = (const uint8_t *) data->header;
    uint32_t port = odp_to_u32(data->tnl_port);
    bool ip6 = hdr[12] == 0x86 && hdr[13] == 0xdd;
    size_t l4 = ETH_HEADER_LEN + (ip6 ? IPV6_HEADER_LEN : IP_HEADER_LEN);
    struct dp_packet *packet;

    if ((data->tnl_type != OVS_VPORT_TYPE_GRE
         && data->tnl_type != OVS_VPORT_TYPE_IP6GRE)
        || data->header_len < l4 + 8 || !(hdr[l4] & 0x10)) {
        return;
    }
    if (port >= dp->gre_seq_size / sizeof *dp->gre_seq) {
        return;
    }
    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        uint32_t seq = __atomic_fetch_add(&dp->gre_seq[port], 1,
                                          __ATOMIC_RELAXED);
        uint8_t *p = dp_packet_data(packet);

        if (dp_packet_size(packet) < data->header_len) {
            continue;
        }
        put_unaligned_be32((ovs_be32 *) (p + data->header_len - 4),
                           htonl(seq));
        if (hdr[l4] & 0x80) {
            ovs_be16 *check = (ovs_be16 *) (p + l4 + 4);

            *check = 0;
            *check = csum(p + l4, dp_packet_size(packet) - l4);
        }
    }
}

/* What the pieces of a cut packet need (see push_cut_piece()). */
struct push_cut_aux {
    struct dp_xdp *dp;
    struct netdev *tnl;         /* The tunnel port's netdev. */
    const struct ovs_action_push_tnl *data;
    uint32_t hash;              /* The original packet's hash. */
    struct dp_packet_batch out; /* Encapsulated pieces, to be sent... */
    struct netdev *out_netdev;  /* ...here. */
};

static void
push_cut_piece(void *aux_, struct dp_packet *piece)
{
    struct push_cut_aux *aux = aux_;
    struct dp_packet_batch one;
    struct dp_packet *p;

    dp_packet_set_rss_hash(piece, aux->hash);
    dp_packet_batch_init_packet(&one, piece);
    netdev_push_header(aux->tnl, &one, aux->data);
    gre_seq_set(aux->dp, &one, aux->data);
    if (dp_packet_batch_is_full(&aux->out)) {
        netdev_send(aux->out_netdev, 0, &aux->out, true);
        dp_packet_batch_init(&aux->out);
    }
    DP_PACKET_BATCH_FOR_EACH (i, p, &one) {
        dp_packet_batch_add(&aux->out, p);
    }
}

/* The tnl_push() action 'a', found in the 'actions_len' bytes of actions
 * at 'actions', on 'batch', whose packets it changes in place.
 * 'gso_size' is the packets' GSO size, or 0.
 *
 * A GSO segment (a container's TCP, or the first packet of a flow, which
 * ofproto executes whole), encapsulated whole, would be too long for the
 * underlay, and no packet socket cuts an encapsulated packet.  So one
 * whose inner packet would not fit the MTU of the output after the push
 * is cut first (dp_xdp_gso_cut(), the sender's segment size if known), and
 * its pieces are encapsulated and sent on that output here, in place of
 * the whole; odp_execute_actions()'s batch has no room for them all. */
void
dp_xdp_tnl_push(struct dp_xdp *dp, struct dp_packet_batch *batch,
                const struct nlattr *a, uint32_t gso_size,
                const struct nlattr *actions, size_t actions_len)
{
    const struct ovs_action_push_tnl *data = nl_attr_get(a);
    struct netdev *netdev = dp_xdp_port_tnl_netdev_ref(dp, data->tnl_port);
    odp_port_t out_port = output_after(actions, actions_len, a);
    struct push_cut_aux aux = { .dp = dp, .tnl = netdev, .data = data };
    struct dp_packet *packet;
    int inner_mtu = INT_MAX;
    size_t i, n;

    if (!netdev) {
        COVERAGE_ADD(xdp_tnl_drop, dp_packet_batch_size(batch));
        VLOG_WARN_RL(&rl, "%s: tnl_push to port %"PRIu32": no such tunnel "
                     "port; packets dropped", dp->name,
                     odp_to_u32(data->tnl_port));
        dp_packet_delete_batch(batch, true);
        dp_packet_batch_init(batch);
        return;
    }
    aux.out_netdev = (out_port != ODPP_NONE
                      ? dp_xdp_port_netdev_ref(dp, out_port) : NULL);
    if (aux.out_netdev && !netdev_get_mtu(aux.out_netdev, &inner_mtu)) {
        /* The outer IP packet is the header (less its Ethernet part) and
         * the inner frame (its Ethernet header and IP packet). */
        inner_mtu -= data->header_len;
    }
    dp_packet_batch_init(&aux.out);

    COVERAGE_ADD(xdp_tnl_push, dp_packet_batch_size(batch));
    dp_packet_batch_apply_cutlen(batch);
    n = dp_packet_batch_size(batch);
    DP_PACKET_BATCH_REFILL_FOR_EACH (i, n, packet, batch) {
        struct flow flow;

        /* The outer UDP source port is the packet's RSS hash, which
         * flow_extract() does not set and the XDP program did not pass
         * up: the 5-tuple's hash, as a NIC's RSS would give it. */
        flow_extract(packet, &flow);
        aux.hash = flow_hash_5tuple(&flow, 0);
        dp_packet_set_rss_hash(packet, aux.hash);
        if (aux.out_netdev && dp_packet_l3(packet)
            && (gso_size || (dp_packet_size(packet) - packet->l3_ofs
                             > (size_t) inner_mtu))
            && dp_xdp_gso_cut(packet, inner_mtu, gso_size, push_cut_piece,
                              &aux)) {
            continue;           /* Cut, encapsulated and sent. */
        }
        dp_packet_batch_refill(batch, packet, i);
    }
    if (dp_packet_batch_size(&aux.out)) {
        netdev_send(aux.out_netdev, 0, &aux.out, true);
    }
    netdev_push_header(netdev, batch, data);
    gre_seq_set(dp, batch, data);
    netdev_close(aux.out_netdev);
    netdev_close(netdev);
}

/* Finishes the partial TCP or UDP checksum, if any, of the packet inside
 * the UDP tunnel packet 'p' of tunnel port 'netdev', whose outer headers
 * are 'outer'.
 *
 * A host that sends into a VXLAN or Geneve device leaves the inner
 * checksum to offload and computes the outer UDP checksum as if the inner
 * one were done (local checksum offload); the kernel's own receive path
 * keeps the note that the inner one is unfinished.  A copy in
 * ovs-vswitchd has lost that note: the pop would find the outer checksum
 * wrong and drop the packet, or the inner one would reach its receiver
 * wrong.  So the inner one is finished first, as for any packet sent up
 * (dp_xdp_complete_partial_csum()). */
static void
complete_inner_csum(struct dp_packet *p, const struct netdev *netdev,
                    const struct flow *outer)
{
    const char *type = netdev_get_type(netdev);
    uint8_t *l4 = dp_packet_l4(p);
    size_t size = l4 ? dp_packet_l4_size(p) : 0;
    size_t ofs = UDP_HEADER_LEN + 8;    /* VXLAN's header. */
    struct dp_packet inner;
    struct flow flow;

    if (outer->nw_proto != IPPROTO_UDP || size < ofs) {
        return;
    }
    if (!strcmp(type, "geneve")) {
        ofs += 4 * (l4[UDP_HEADER_LEN] & 0x3f);     /* Its options. */
    } else if (strcmp(type, "vxlan")
               || l4[UDP_HEADER_LEN] & 0x04) {
        return;                 /* Another tunnel, or VXLAN-GPE. */
    }
    if (size < ofs + ETH_HEADER_LEN) {
        return;
    }
    /* A view of the inner packet, in place: its checksum is finished in
     * 'p' itself. */
    dp_packet_use_const(&inner, l4 + ofs, size - ofs);
    flow_extract(&inner, &flow);
    dp_xdp_complete_partial_csum(&inner, &flow);
}

/* The tnl_pop() action 'a' on 'batch': stores in 'out' the packets that
 * it decapsulated (copies of them, unless 'should_steal', when it takes
 * 'batch''s packets), with their tunnel metadata and the tunnel port as
 * input port, to be looked up again.  Returns false, with 'out' empty, if
 * there is no such tunnel port. */
bool
dp_xdp_tnl_pop(struct dp_xdp *dp, struct dp_packet_batch *batch,
               const struct nlattr *a, bool should_steal,
               struct dp_packet_batch *out)
{
    odp_port_t port_no = nl_attr_get_odp_port(a);
    struct netdev *netdev = dp_xdp_port_tnl_netdev_ref(dp, port_no);
    struct dp_packet *packet;
    size_t n;

    dp_packet_batch_init(out);
    if (!netdev) {
        COVERAGE_ADD(xdp_tnl_drop, dp_packet_batch_size(batch));
        VLOG_WARN_RL(&rl, "%s: tnl_pop to port %"PRIu32": no such tunnel "
                     "port; packets dropped", dp->name, odp_to_u32(port_no));
        dp_packet_delete_batch(batch, should_steal);
        return false;
    }

    if (should_steal) {
        *out = *batch;
        dp_packet_batch_init(batch);
    } else {
        dp_packet_batch_clone(out, batch);
        dp_packet_batch_reset_cutlen(batch);
    }
    dp_packet_batch_apply_cutlen(out);

    /* The pop finds the outer headers through the layer offsets. */
    DP_PACKET_BATCH_FOR_EACH (i, packet, out) {
        struct flow flow;

        flow_extract(packet, &flow);
        complete_inner_csum(packet, netdev, &flow);
    }
    n = dp_packet_batch_size(out);
    netdev_pop_header(netdev, out);
    netdev_close(netdev);
    COVERAGE_ADD(xdp_tnl_pop, dp_packet_batch_size(out));
    if (dp_packet_batch_size(out) < n) {
        COVERAGE_ADD(xdp_tnl_drop, n - dp_packet_batch_size(out));
    }
    DP_PACKET_BATCH_FOR_EACH (i, packet, out) {
        packet->md.in_port.odp_port = port_no;
    }
    return true;
}
