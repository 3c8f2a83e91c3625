/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

/* The TC pipeline: the datapath at a port's TC ingress hook, for ports
 * that run no XDP program (attach mode "tc", see dispatcher/xdp-attach.c).
 *
 * Any XDP program on a veth costs the stack behind it something: native
 * mode takes TSO away from the peer, and generic mode copies every
 * nonlinear skb, which a GSO segment of a local TCP sender always is,
 * into one linear buffer before the program runs.  At TC ingress the skb
 * arrives as the sender built it, a GSO segment of up to 64 kB whose
 * payload stays in its pages.  So this program does what the XDP program
 * does for a frame, on the skb: it parses it with the same parser (the
 * whole skb, its outer VLAN tag kept in the skb included, see
 * XDP_PARSE_SKB), classifies the key against the same megaflow maps with
 * the same classifier, counts the hit in the same mmapped flow
 * statistics, runs the flow's actions with the same rewrites, and sends
 * the skb on with bpf_redirect(), GSO state and all, as the kernel
 * datapath and the TC half of the XDP program (xdp-dp-skb.h) send theirs.
 * The kernel segments it where a device needs it.
 *
 * This object is loaded next to the XDP program's and shares all of its
 * maps (ofproto-xdp/dpif-xdp.c reuses their descriptors): the flow table,
 * ports, statistics, counters and upcall rings are one.  Its globals are
 * its own, and ovs-vswitchd sets them in both.
 *
 * It runs the actions of the flows that switching between containers
 * needs: outputs (several, through clones), VLAN push and pop, Ethernet,
 * IPv4, IPv6 and L4 port rewrites, skb priority and truncation.  A flow
 * with any other action (recirculation, ct(), tunnels, meters, sampling,
 * check_pkt_len()) is run by ovs-vswitchd, as a slow-path hit (counted in
 * 'n_tc_slow_path'): xdp-mode=auto does not choose this mode, an operator
 * does (other_config:xdp-mode=tc), until it runs them too. */

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define XDP_PARSE_CTX struct __sk_buff
#define XDP_PARSE_SKB 1
#define XDP_DP_SKB_PIPELINE 1

#include "xdp-dp.h"
#include "xdp-dp-maps.h"
#include "xdp-dp-parse.h"
#include "xdp-dp-classify.h"
#include "xdp-dp-police.h"
#include "xdp-dp-rewrite.h"
#include "xdp-dp-skb.h"

/* How much of a frame whose headers go on past the skb's linear part is
 * pulled into it: an Ethernet header with two tags and LLC/SNAP, an IPv6
 * header with a few extension headers and a TCP header with options.  A
 * frame whose headers go on further is parsed as incomplete, and goes up
 * (see XDP_PARSE_SKB). */
#define TC_DP_PULL_LEN 256

/* The actions this program runs (see above). */
#define TC_DP_ACTIONS ((1u << XDP_DP_ACTION_OUTPUT)             \
                       | (1u << XDP_DP_ACTION_PUSH_VLAN)        \
                       | (1u << XDP_DP_ACTION_POP_VLAN)         \
                       | (1u << XDP_DP_ACTION_SET_ETH)          \
                       | (1u << XDP_DP_ACTION_SET_IPV4)         \
                       | (1u << XDP_DP_ACTION_SET_L4_PORTS)     \
                       | (1u << XDP_DP_ACTION_SET_IPV6_ADDR)    \
                       | (1u << XDP_DP_ACTION_SET_IPV6)         \
                       | (1u << XDP_DP_ACTION_SET_PRIORITY)     \
                       | (1u << XDP_DP_ACTION_TRUNC)            \
                       | XDP_DP_ACTION_F_OUTPUTS)

/* What the program works on, per CPU: the key and the upcall header do not
 * fit its 512 bytes of stack next to the parser's frames. */
struct tc_dp_buf {
    struct xdp_flow_key key;
    struct xdp_parse_info info;
    struct xdp_dp_upcall up;
};

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct tc_dp_buf);
} tc_dp_buf SEC(".maps");

/* Hands the skb, which arrived on port 'in_port', to ovs-vswitchd as an
 * upcall of 'type' about flow slot 'slot', if the port's upcall budget
 * allows.  Returns the TC verdict. */
static __always_inline int
tc_dp_upcall(struct __sk_buff *skb, struct tc_dp_buf *buf, __u32 type,
             __u32 in_port, __u32 slot)
{
    struct xdp_dp_upcall *up = &buf->up;

    if (!upcall_allowed(in_port)) {
        COUNT(n_upcall_limited, 1);
        COUNT(n_lost, 1);
        return TC_ACT_SHOT;
    }
    __builtin_memset(up, 0, sizeof *up);
    up->type = type;
    up->in_port = in_port;
    up->slot = slot;
    return tc_upcall(skb, up);
}

/* Whether the TC pipeline must hand a packet that hit 'flow', with key
 * 'key' and headers 'info', to ovs-vswitchd: as needs_slow_path() in
 * xdp-dp.bpf.c, and for the actions it has no code for. */
static __always_inline int
tc_dp_needs_slow_path(struct __sk_buff *skb, const struct xdp_flow *flow,
                      const struct xdp_flow_key *key,
                      const struct xdp_parse_info *info)
{
    __u32 bits = flow->action_bits;

    if (flow->flags & XDP_FLOW_F_SLOW_PATH || bits & ~TC_DP_ACTIONS) {
        return 1;
    }
    /* An IP rewrite in a packet whose IP header the parser did not
     * accept, or an IPv6 L4 rewrite past extension headers: see
     * needs_slow_path(). */
    if (bits & ((1u << XDP_DP_ACTION_SET_IPV4)
                | (1u << XDP_DP_ACTION_SET_IPV6_ADDR)
                | (1u << XDP_DP_ACTION_SET_IPV6))
        && info->l4_ofs == XDP_PARSE_OFS_NONE) {
        return 1;
    }
    return (bits & ((1u << XDP_DP_ACTION_SET_IPV6_ADDR)
                    | (1u << XDP_DP_ACTION_SET_L4_PORTS))
            && key->eth_type == bpf_htons(ETH_P_IPV6)
            && !(key->nw_frag & XDP_NW_FRAG_LATER)
            && l4_has_pseudo_hdr(key) && ipv6_l4_offset(skb, key) < 0);
}

/* Sends the skb to the ports of outputs 'first' to 'n - 1' of 'flow' (the
 * outputs end a flow's actions, see xdp-actions.c), after fixing its L4
 * checksum by 'diff' and with what the action before them asks (a
 * priority or a length to cut to).  Returns the TC verdict. */
static __always_inline int
tc_dp_outputs(struct __sk_buff *skb, const struct xdp_flow *flow,
              __u32 first, __u32 n, const struct l4_csum_diff *diff)
{
    __u32 ifindex[XDP_DP_MAX_OUTPUTS];
    __u32 trunc_len = 0;
    __u32 k = 0;

    for (__u32 i = first; i < n && i < XDP_FLOW_MAX_ACTIONS; i++) {
        __u32 port_no = flow->actions[i].output.port;
        struct xdp_dp_port *port = bpf_map_lookup_elem(&xdp_dp_ports,
                                                       &port_no);

        /* A device that XDP cannot send to (XDP_DP_TX_SLOW) takes an
         * skb. */
        if (port && port->tx_mode != XDP_DP_TX_NONE && port->ifindex
            && k < XDP_DP_MAX_OUTPUTS) {
            ifindex[k++] = port->ifindex;
        }
    }
    if (!k) {
        COUNT(n_tx_error, 1);   /* No port to send to (any more). */
        return TC_ACT_SHOT;
    }
    if (first) {
        const struct xdp_dp_action *mark = &flow->actions[(first - 1) & 7];

        if (mark->type == XDP_DP_ACTION_SET_PRIORITY) {
            skb->priority = mark->priority.value;
        } else if (mark->type == XDP_DP_ACTION_TRUNC) {
            trunc_len = mark->trunc.max_len;
        }
    }
    if (tc_fix_l4_csum(skb, csum_fold16(diff->pseudo),
                       csum_fold16(diff->other))
        || tc_vlan_inband(skb)) {
        COUNT(n_tc_error, 1);
        return TC_ACT_SHOT;
    }
    COUNT(n_tc_forwarded, 1);
    return tc_send(skb, ifindex, k, trunc_len);
}

/* Runs 'flow''s actions on the skb, whose key is 'key'.  Returns the TC
 * verdict. */
static __always_inline int
tc_dp_execute(struct __sk_buff *skb, const struct xdp_flow *flow,
              const struct xdp_flow_key *key)
{
    struct l4_csum_diff diff = {};
    __u32 n = flow->n_actions;

    for (__u32 i = 0; i < XDP_FLOW_MAX_ACTIONS && i < n; i++) {
        const struct xdp_dp_action *a = &flow->actions[i];
        int error = 0;

        switch (a->type) {
        case XDP_DP_ACTION_OUTPUT:
            return tc_dp_outputs(skb, flow, i, n, &diff);
        case XDP_DP_ACTION_PUSH_VLAN:
            error = do_push_vlan(skb, &a->vlan);
            break;
        case XDP_DP_ACTION_POP_VLAN:
            error = do_pop_vlan(skb);
            break;
        case XDP_DP_ACTION_SET_ETH:
            error = do_set_eth(skb, a);
            break;
        case XDP_DP_ACTION_SET_IPV4:
            error = do_set_ipv4(skb, a, key, &diff);
            break;
        case XDP_DP_ACTION_SET_L4_PORTS:
            error = do_set_l4_ports(skb, a, key, &diff);
            break;
        case XDP_DP_ACTION_SET_IPV6_ADDR:
            error = do_set_ipv6_addr(skb, a, key, &diff);
            break;
        case XDP_DP_ACTION_SET_IPV6:
            error = do_set_ipv6(skb, a);
            break;
        case XDP_DP_ACTION_SET_PRIORITY:
        case XDP_DP_ACTION_TRUNC:
            /* For the outputs after it (tc_dp_outputs()). */
            break;
        default:
            /* tc_dp_needs_slow_path() let no other through. */
            error = -1;
            break;
        }
        if (error) {
            COUNT(n_tx_error, 1);
            return TC_ACT_SHOT;
        }
    }
    COUNT(n_dropped, 1);
    return TC_ACT_SHOT;
}

SEC("tc")
int
tc_dp_main(struct __sk_buff *skb)
{
    __u32 ifindex = skb->ifindex;
    __u32 *port_no = bpf_map_lookup_elem(&xdp_dp_in_ports, &ifindex);
    struct xdp_dp_stats *dp_stats;
    struct xdp_flow_stats *stats;
    struct xdp_flow *flow;
    struct tc_dp_buf *buf;
    __u32 n_visited = 0;
    __u32 zero = 0;
    __u32 in_port;

    if (!port_no) {
        return TC_ACT_OK;
    }
    in_port = *port_no & XDP_DP_IN_PORT_MASK;
    if (*port_no & XDP_DP_IN_PORT_F_POLICED
        && !police(skb->len + (skb->vlan_present ? 4 : 0), in_port)) {
        COUNT(n_policed, 1);
        return TC_ACT_SHOT;
    }
    buf = bpf_map_lookup_elem(&tc_dp_buf, &zero);
    dp_stats = bpf_map_lookup_elem(&xdp_dp_stats, &zero);
    if (!buf || !dp_stats) {
        return TC_ACT_SHOT;
    }

    /* The parser and the rewrites read the headers in the linear part,
     * where a GSO segment of a local sender has them, and nothing more:
     * pulling payload in would cost a copy per segment.  Only if a header
     * lies past it does the skb get more, and the parser a second try. */
    struct xdp_flow_key *key = &buf->key;
    struct xdp_parse_info *info = &buf->info;
    xdp_parse_frame(skb, key, info);
    if (info->flags & XDP_PARSE_F_INCOMPLETE) {
        __u32 want = skb->len < TC_DP_PULL_LEN ? skb->len : TC_DP_PULL_LEN;

        if ((void *) (long) skb->data + want > (void *) (long) skb->data_end
            && !bpf_skb_pull_data(skb, want)) {
            xdp_parse_frame(skb, key, info);
        }
    }
    key->in_port = in_port;
    if (info->flags & XDP_PARSE_F_INCOMPLETE) {
        dp_stats->n_tc_missed++;
        return tc_dp_upcall(skb, buf, XDP_DP_UPCALL_MISS, in_port, 0);
    }
    flow = classify_generic(key, &n_visited, dp_stats);
    if (!flow) {
        dp_stats->n_tc_missed++;
        return tc_dp_upcall(skb, buf, XDP_DP_UPCALL_MISS, in_port, 0);
    }
    dp_stats->n_mask_hit += n_visited;
    if (tc_dp_needs_slow_path(skb, flow, key, info)) {
        dp_stats->n_tc_slow_path++;
        return tc_dp_upcall(skb, buf, XDP_DP_UPCALL_SLOW_PATH, in_port,
                            flow->slot);
    }
    dp_stats->n_tc_hit++;

    __u32 slot = flow->slot;
    stats = bpf_map_lookup_elem(&xdp_dp_flow_stats, &slot);
    if (stats) {
        /* As OVS counts the frame: with its outer VLAN tag. */
        __sync_fetch_and_add(&stats->n_packets, 1);
        __sync_fetch_and_add(&stats->n_bytes,
                             skb->len + (skb->vlan_present ? 4 : 0));
        stats->used = bpf_ktime_get_coarse_ns();
        if (key->tcp_flags && key->nw_proto == IPPROTO_TCP) {
            __sync_fetch_and_or(&stats->tcp_flags, bpf_ntohs(key->tcp_flags));
        }
    }
    return tc_dp_execute(skb, flow, key);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
