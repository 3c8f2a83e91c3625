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
 * It runs every action the XDP program runs, with the same executor
 * (xdp-dp-execute.h) and the skb's own means where XDP's would lose its
 * GSO state: outputs (several, through
 * clones), VLAN push and pop (the kernel's skb_vlan_push() and
 * skb_vlan_pop()), the rewrites (direct writes, the L4 checksum fixed at
 * the output by bpf_l4_csum_replace(), partial or full), recirculation
 * and the datapath hash, ct() through the connection cache, tnl_push
 * (the TC half's push, with the GSO tunnel types) and tnl_pop
 * (bpf_skb_adjust_room()), meters, sampling and check_pkt_len().  Every
 * pass is a call of one global function (see tc_dp_pass__()).
 *
 * Its packets count in the same datapath counters as the XDP program's
 * (xdp-hit, xdp-forwarded, ...: moved only by the two programs, never by
 * ovs-vswitchd), and also in tc-hit, tc-forwarded, tc-missed and
 * tc-slow-path, which only this program moves. */

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
#include "xdp-dp-meter.h"
#include "xdp-dp-rewrite.h"
#include "xdp-dp-pass.h"
#include "xdp-dp-ct.h"
#include "xdp-dp-tnl.h"
#include "xdp-dp-skb.h"

/* How much of a frame whose headers go on past the skb's linear part is
 * pulled into it: an Ethernet header with two tags and LLC/SNAP, an IPv6
 * header with a few extension headers and a TCP header with options.  A
 * frame whose headers go on further is parsed as incomplete, and goes up
 * (see XDP_PARSE_SKB). */
#define TC_DP_PULL_LEN 256

/* A GSO segment of jumbo frames (a GSO size above this) is made linear
 * before it is switched.  Measured with ovs-xdp-bench tcp at MTU 9000,
 * the receiving namespace then takes 1.2 times what it takes of the same
 * segments in pages, at 1 and at 4 streams, the floor (a bare veth pair)
 * included: generic XDP's copy of every segment showed it first.  At MTU
 * 1500 the copy costs more than it brings (4 streams: 0.70 of the floor
 * copied, 0.93 not).  Why the receiver gains, we have not found. */
#define TC_DP_LINEAR_GSO_MIN 4000

/* What a pass works on, per CPU, for all the passes of a packet (see
 * struct pass_buf in xdp-dp.bpf.c, and why one per CPU is enough). */
struct tc_dp_buf {
    struct xdp_flow_key key;
    struct xdp_parse_info info;
    struct xdp_dp_ct_key ck;
    struct xdp_dp_upcall up;
    __u32 ifindex[XDP_DP_MAX_OUTPUTS];  /* tc_dp_outputs()'s devices. */
};

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct tc_dp_buf);
} tc_dp_buf SEC(".maps");

/* Hands the skb, with the packet's metadata 'md', to ovs-vswitchd as an
 * upcall of 'type' with 'arg' (a flow slot, or a port for OUTPUT), if the
 * port's upcall budget allows, after making the checksum changes that the
 * rewrites of earlier passes left to the output.  Returns the TC
 * verdict. */
static __always_inline int
tc_dp_upcall(struct __sk_buff *skb, struct tc_dp_buf *buf, __u32 type,
             const struct pkt_md *md, __u32 arg)
{
    struct xdp_dp_upcall *up = &buf->up;

    if (!upcall_allowed(md->in_port, type)) {
        COUNT(n_upcall_limited, 1);
        COUNT(n_lost, 1);
        return TC_ACT_SHOT;
    }
    if (tc_fix_l4_csum(skb, csum_fold16(md->diff.pseudo),
                       csum_fold16(md->diff.other))) {
        COUNT(n_tc_error, 1);
        return TC_ACT_SHOT;
    }
    upcall_fill_md(up, md);
    up->type = type;
    up->slot = arg;
    return tc_upcall(skb, up);
}

/* XDP_DP_ACTION_SAMPLE 'a' of the flow in 'slot', as xdp_dp_sample__()
 * does it in XDP: the first XDP_DP_SAMPLE_MAX_COPY bytes of the skb go up
 * as an XDP_DP_UPCALL_SAMPLE, drawn with the action's probability, within
 * the port's sampling budget.  The outer VLAN tag travels in the header
 * (ovs-vswitchd puts it back).  Returns 0.  A global function. */
__attribute__((noinline)) int
tc_dp_sample__(struct __sk_buff *skb, const struct pkt_md *md,
               struct tc_dp_buf *buf, const struct xdp_dp_action *a,
               __u32 slot)
{
    struct xdp_dp_upcall *up;
    __u64 copy;

    if (!skb || !md || !buf || !a) {
        return 0;
    }
    copy = skb->len < XDP_DP_SAMPLE_MAX_COPY ? skb->len
                                             : XDP_DP_SAMPLE_MAX_COPY;
    if (a->sample.probability != 0xffffffff
        && bpf_get_prandom_u32() >= a->sample.probability) {
        return 0;
    }
    if (!budget_allows(XDP_DP_MAX_PORTS + md->in_port, XDP_DP_SAMPLE_BURST,
                       XDP_DP_UPCALL_WINDOW_NS)) {
        COUNT(n_sample_limited, 1);
        return 0;
    }
    up = &buf->up;
    upcall_fill_md(up, md);
    up->type = XDP_DP_UPCALL_SAMPLE;
    up->slot = slot;
    up->pkt_len = copy;
    up->sample = a->sample.index;
    up->orig_len = XDP_DP_FRAME_LEN(skb);
    if (skb->vlan_present) {
        up->vlan_tpid = skb->vlan_proto;
        up->vlan_tci = bpf_htons(skb->vlan_tci);
    }
    if (bpf_perf_event_output(skb, &xdp_dp_samples,
                              BPF_F_CURRENT_CPU | (copy << 32),
                              up, sizeof *up)) {
        COUNT(n_sample_limited, 1);
        return 0;
    }
    COUNT(n_sampled, 1);
    return 0;
}

/* xdp_dp_check_len__() on an skb: whether the packet is longer than
 * 'limit' bytes for OVS's check_pkt_len(), once the actions before it
 * have added 'grow' bytes, counting no L2 padding past 'ip_end' (see
 * ip_end()).  The skb may be a GSO segment: one longer than the limit is
 * judged by its device's MTU, as in generic XDP.  A global function. */
__attribute__((noinline)) int
tc_dp_check_len__(struct __sk_buff *skb, __u32 limit, __s32 grow,
                  __u32 ip_end)
{
    __s64 len;
    __u32 mtu = 0;

    if (!skb) {
        return 0;
    }
    /* 'ip_end' counts from the start of the frame in the skb, which does
     * not hold the outer VLAN tag: the tag comes on top. */
    len = skb->len;
    if (ip_end & XDP_DP_IP_END_IPV6) {
        __u32 l3 = ip_end & 0xff;
        __u8 plen[2];

        ip_end = 0;
        if (!bpf_skb_load_bytes(skb, l3 + 4, plen, 2)) {
            __u32 end = l3 + 40 + ((plen[0] << 8) | plen[1]);

            ip_end = end <= len ? end : 0;
        }
    }
    if (ip_end && ip_end < len) {
        len = ip_end;
    }
    len += skb->vlan_present ? 4 : 0;
    if (len + grow <= limit) {
        return 0;
    }
    bpf_check_mtu(skb, 0, &mtu, 0, 0);
    return !mtu || (__s64) mtu + ETH_HLEN + grow > limit;
}

/* Sends the skb to the 'k' devices 'ifindex', cut to 'trunc_len' bytes if
 * nonzero, after fixing its L4 checksum by 'diff' and putting its outer
 * VLAN tag back into the frame.  Returns the TC verdict. */
static __always_inline int
tc_dp_send(struct __sk_buff *skb, __u32 *ifindex, __u32 k, __u32 trunc_len,
           const struct l4_csum_diff *diff)
{
    if (tc_fix_l4_csum(skb, csum_fold16(diff->pseudo),
                       csum_fold16(diff->other))
        || tc_vlan_inband(skb)) {
        COUNT(n_tc_error, 1);
        return TC_ACT_SHOT;
    }
    return tc_send(skb, ifindex, k, trunc_len);
}

/* Sends the skb to the ports of outputs 'first' to 'n - 1' of 'flow' (the
 * outputs end a flow's actions, see xdp-actions.c), after fixing its L4
 * checksum by 'diff' and putting its outer VLAN tag back into the frame,
 * with what the action before them asks (a priority or a length to cut
 * to).  The devices go into 'buf', not onto the stack, whose 512 bytes
 * the chain of calls under tc_dp_pass__() fills.  Returns the TC
 * verdict. */
static __always_inline int
tc_dp_outputs(struct __sk_buff *skb, const struct xdp_flow *flow, __u32 first,
              __u32 n, const struct pkt_md *md, struct tc_dp_buf *buf,
              const struct l4_csum_diff *diff)
{
    __u32 *ifindex = buf->ifindex;
    __u32 trunc_len = 0;
    __u32 k = outputs_ifindex(flow, first, n, ifindex);

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
    return tc_dp_send(skb, ifindex, k, trunc_len, diff);
}

/* The pass after a cached ct() (see ct_next_lookup()): if the packet may
 * skip it, counts the packet in the flow of that pass, sends it to that
 * flow's output and returns the TC verdict; otherwise returns -1. */
static __always_inline int
tc_dp_ct_next(struct __sk_buff *skb, struct pkt_md *md, struct tc_dp_buf *buf,
              const struct l4_csum_diff *diff,
              const struct xdp_dp_ct_entry *cte, __u32 ct, __u32 recirc_id)
{
    const struct xdp_flow_key *key = &buf->key;
    __u32 slot;
    __u32 port_no = ct_next_lookup(md, key, cte, ct, recirc_id, &slot);
    struct xdp_dp_port *port;
    __u32 ifindex;

    if (!port_no--) {
        return -1;
    }
    port = bpf_map_lookup_elem(&xdp_dp_ports, &port_no);
    if (!port || port->tx_mode == XDP_DP_TX_NONE || !port->ifindex) {
        return -1;              /* The second pass says what to do. */
    }
    ifindex = port_tx_ifindex(port);

    __u32 zero = 0;
    struct xdp_dp_stats *dp_stats = bpf_map_lookup_elem(&xdp_dp_stats,
                                                        &zero);

    if (dp_stats) {             /* One lookup for the three counters. */
        dp_stats->n_hit++;
        dp_stats->n_tc_hit++;
        dp_stats->n_ct_next++;
    }
    xdp_dp_flow_count(slot, XDP_DP_FRAME_LEN(skb),
                      key->nw_proto == IPPROTO_TCP ? key->tcp_flags : 0);
    return tc_dp_send(skb, &ifindex, 1, 0, diff);
}

/* XDP_DP_ACTION_TNL_PUSH at 'flow->actions[i]' and the output that ends
 * the flow's actions after it (see do_tnl_push() in xdp-dp.bpf.c), on the
 * skb whose key is 'buf->key', with the checksum changes 'diff'.  The TC
 * half pushes the header (tc_tnl_push(), which keeps a GSO segment one); the
 * outer VLAN tag, if the skb holds one, goes into the inner frame first.
 * Returns the TC verdict, or -1 if the actions are malformed. */
static __always_inline int
tc_dp_tnl_push(struct __sk_buff *skb, const struct xdp_flow *flow, __u32 i,
               __u32 n, const struct pkt_md *md,
               struct tc_dp_buf *buf, const struct l4_csum_diff *diff)
{
    const struct xdp_flow_key *key = &buf->key;
    const struct xdp_dp_action *out = &flow->actions[(n - 1) & 7];
    const struct xdp_dp_action *a;
    struct xdp_dp_tnl_hdr *h;
    __u32 zero = 0, range, port;

    if (out->type != XDP_DP_ACTION_OUTPUT || i > 3) {
        return -1;
    }
    h = bpf_map_lookup_elem(&xdp_dp_tnl_hdrs, &zero);
    if (!h) {
        return -1;
    }
    a = &flow->actions[i & 3];
    range = a->tnl_push.port_max - a->tnl_push.port_min;
    port = ((__u64) hash_5tuple(key, 0) * range >> 32) + a->tnl_push.port_min;
    if (!tnl_assemble(flow, i, h, bpf_htons(port))) {
        return -1;
    }
    if (tc_fix_l4_csum(skb, csum_fold16(diff->pseudo),
                       csum_fold16(diff->other))
        || tc_vlan_inband(skb) || tc_tnl_push(skb)) {
        COUNT(n_tc_error, 1);
        return TC_ACT_SHOT;
    }
    COUNT(n_tnl_push, 1);

    __u32 port_no = out->output.port;
    struct xdp_dp_port *p = bpf_map_lookup_elem(&xdp_dp_ports, &port_no);
    __u32 ifindex = (p && p->tx_mode != XDP_DP_TX_NONE && p->ifindex
                     ? port_tx_ifindex(p) : 0);

    if (!ifindex) {
        COUNT(n_tx_error, 1);   /* No port to send to (any more). */
        return TC_ACT_SHOT;
    }
    return tc_send(skb, &ifindex, 1, 0);
}

/* What execute() needs of this program (see xdp-dp-execute.h); the TC
 * verdicts include TC_ACT_UNSPEC (-1), so RECIRCULATE is none of them. */
#define XDP_DP_PASS_BUF struct tc_dp_buf
#define XDP_DP_DROP TC_ACT_SHOT
#define XDP_DP_KEEPS_KEY 0      /* Every pass parses the skb afresh. */
#define exec_check_len(CTX, MD, C, IP_END)                               \
    tc_dp_check_len__(CTX, (C)->check_len.len, (C)->check_len.grow, IP_END)
#define exec_sample tc_dp_sample__
#define exec_outputs tc_dp_outputs
#define exec_ct_next tc_dp_ct_next
#define exec_tnl_push tc_dp_tnl_push
#include "xdp-dp-execute.h"

/* One pass of the skb, with metadata 'md', through the flow table, as
 * dp_pass() in xdp-dp.bpf.c: parses, classifies, counts, and runs the
 * flow's actions or hands the packet to ovs-vswitchd.  Returns the TC
 * verdict, or RECIRCULATE with 'md' set up for the next pass. */
static __always_inline int
tc_dp_pass(struct __sk_buff *skb, struct pkt_md *md, struct tc_dp_buf *buf)
{
    struct xdp_parse_info *info = &buf->info;
    struct xdp_flow_key *key = &buf->key;
    struct xdp_dp_stats *dp_stats;
    struct xdp_flow *flow;
    __u32 n_visited = 0;
    __u32 zero = 0;

    dp_stats = bpf_map_lookup_elem(&xdp_dp_stats, &zero);
    if (!dp_stats) {
        return TC_ACT_SHOT;
    }

    /* The parser and the rewrites read the headers in the linear part,
     * where a GSO segment of a local sender has them, and nothing more:
     * pulling payload in would cost a copy per segment.  Only if a header
     * lies past it does the skb get more, and the parser a second try. */
    xdp_parse_frame(skb, key, info);
    if (info->flags & XDP_PARSE_F_INCOMPLETE) {
        __u32 want = skb->len < TC_DP_PULL_LEN ? skb->len : TC_DP_PULL_LEN;

        if ((void *) (long) skb->data + want > (void *) (long) skb->data_end
            && !bpf_skb_pull_data(skb, want)) {
            xdp_parse_frame(skb, key, info);
        }
    }
    __u64 ct_next = md->ct_next;
    md->ct_next = 0;
    if (md->hash_pending) {
        md->dp_hash = hash_5tuple(key, md->hash_basis);
        md->hash_pending = 0;
    }
    key->in_port = md->in_port;
    key->recirc_id = md->recirc_id;
    key->dp_hash = md->dp_hash;
    if (md->ct) {
        ct_fill_key(key, md->ct);
    }
    if (tnl_md_is_set(&md->tun)) {
        tnl_fill_key(key, &md->tun);
    }
    if (info->flags & XDP_PARSE_F_INCOMPLETE) {
        dp_stats->n_missed++;
        dp_stats->n_tc_missed++;
        return tc_dp_upcall(skb, buf, XDP_DP_UPCALL_MISS, md, 0);
    }
    flow = classify_generic(key, &n_visited, dp_stats);
    if (!flow) {
        dp_stats->n_missed++;
        dp_stats->n_tc_missed++;
        return tc_dp_upcall(skb, buf, XDP_DP_UPCALL_MISS, md, 0);
    }
    dp_stats->n_mask_hit += n_visited;

    __u32 slot = flow->slot;
    int slow = needs_slow_path(skb, flow, md, key, info);

    /* ct() looks its connection up before any action runs, and tnl_pop
     * checks that it can pop, as in dp_pass(). */
    const struct xdp_dp_ct_entry *cte = NULL;
    __u32 ct_md = 0;
    if (!slow && flow->action_bits & ACTION_BIT(XDP_DP_ACTION_CT)) {
        cte = ct_pass_lookup(skb, flow, key, info, &buf->ck, dp_stats,
                             &ct_md);
        slow = !cte;
    }
    if (!slow && flow->action_bits & ACTION_BIT(XDP_DP_ACTION_TNL_POP)) {
        /* xdp_dp_tnl_pop_ok__() checks a UDP checksum over the frame's
         * bytes, which must then be in the linear part: a frame (no GSO
         * segment, which it refuses anyway) is pulled in whole. */
        if (!skb->gso_size
            && (void *) (long) skb->data + skb->len
               > (void *) (long) skb->data_end) {
            bpf_skb_pull_data(skb, skb->len);
        }
        if (!tnl_pop_ok(skb, key, flow->actions[0].tnl_pop.port, 1)) {
            slow = 1;
        }
    }
    if (slow) {
        dp_stats->n_slow_path++;
        dp_stats->n_tc_slow_path++;
        return tc_dp_upcall(skb, buf, XDP_DP_UPCALL_SLOW_PATH, md, slot);
    }
    dp_stats->n_hit++;
    dp_stats->n_tc_hit++;
    if (ct_next && md->ct) {
        ct_next_record(md->ct, ct_next, slot);
    }

    xdp_dp_flow_count(slot, XDP_DP_FRAME_LEN(skb),
                      key->nw_proto == IPPROTO_TCP ? key->tcp_flags : 0);
    return execute(skb, flow, md, buf, cte, cte ? ct_md : 0, 1);
}

/* tc_dp_pass() as a global function, which the verifier checks once for
 * every pass of a packet: inline, the first pass (as in xdp_dp_main())
 * took it to 814,000 instructions, near its limit of a million.  A GSO
 * segment pays the call once for dozens of frames' worth of data. */
__attribute__((noinline)) int
tc_dp_pass__(struct __sk_buff *skb, struct pkt_md *md, struct tc_dp_buf *buf)
{
    if (!skb || !md || !buf) {
        return TC_ACT_SHOT;
    }
    return tc_dp_pass(skb, md, buf);
}

SEC("tc")
int
tc_dp_main(struct __sk_buff *skb)
{
    __u32 ifindex = skb->ifindex;
    __u32 *port_no = bpf_map_lookup_elem(&xdp_dp_in_ports, &ifindex);
    struct pkt_md md = {};
    struct tc_dp_buf *buf;
    __u32 zero = 0;
    int verdict;

    if (!port_no) {
        return TC_ACT_OK;
    }
    md.in_port = *port_no & XDP_DP_IN_PORT_MASK;
    md.skb_only = 1;
    if (*port_no & XDP_DP_IN_PORT_F_POLICED
        && !police(XDP_DP_PKT_LEN(skb), md.in_port)) {
        COUNT(n_policed, 1);
        return TC_ACT_SHOT;
    }
    buf = bpf_map_lookup_elem(&tc_dp_buf, &zero);
    if (!buf) {
        return TC_ACT_SHOT;
    }
    if (skb->gso_size > TC_DP_LINEAR_GSO_MIN) {
        bpf_skb_pull_data(skb, skb->len);   /* As it was, if it fails. */
    }
    verdict = tc_dp_pass__(skb, &md, buf);
    for (int i = 0; verdict == RECIRCULATE; i++) {
        if (i == XDP_DP_MAX_RECIRC) {
            COUNT(n_recirc_limited, 1);
            return TC_ACT_SHOT;
        }
        verdict = tc_dp_pass__(skb, &md, buf);
    }
    /* Upcalls and drops return TC_ACT_SHOT; only outputs redirect. */
    if (verdict == TC_ACT_REDIRECT) {
        struct xdp_dp_stats *dp_stats = bpf_map_lookup_elem(&xdp_dp_stats,
                                                            &zero);

        if (dp_stats) {         /* One lookup for both counters. */
            dp_stats->n_forwarded++;
            dp_stats->n_tc_forwarded++;
        }
    }
    return verdict;
}

/* The kernel knows no "Apache/GPL" pair: GPL is the licence of the two
 * that it understands (see the SPDX line). */
char LICENSE[] SEC("license") = "GPL";
