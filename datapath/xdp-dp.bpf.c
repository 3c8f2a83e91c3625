/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

/* The datapath program: one instance per datapath, attached to every port.
 *
 * For each frame: the ingress ifindex is mapped to a datapath port (frames
 * from other devices go to the stack untouched); the frame is parsed into a
 * 'struct xdp_flow_key' (xdp-dp-parse.h); the key is classified against
 * the megaflow table (xdp-dp-classify.h), by the generic classifier or, in
 * a program compiled for the current table, by the compiled subtables and
 * then the generic classifier.  On a hit the flow's actions run (the
 * executor both programs share, xdp-dp-execute.h) and its counters are
 * bumped in the mmapped statistics array; a slow-path flow's packets, and
 * all packets that miss, go to ovs-vswitchd through a perf event ring
 * (struct xdp_dp_upcall, then the whole frame), and only ovs-vswitchd
 * counts them in their flow's slot.  The datapath counters
 * (struct xdp_dp_stats) say which packets the programs switched and which
 * they sent up; nothing but the programs moves them.
 *
 * Output is bpf_redirect_map() on a devmap, except for ports whose XDP
 * transmit would lose the frame (a veth whose peer has no NAPI): there the
 * program leaves a 'struct xdp_dp_skb_meta' in front of the frame and
 * passes it up, and xdp_dp_tc, on the same device's TC ingress hook,
 * redirects the resulting skb (see enum xdp_dp_tx_mode).
 *
 * A compiled program (xdp_dp_cfg.enabled) also leaves out the code of the
 * actions no flow used when it was compiled, and the transport-layer
 * parsing that no compiled mask needs; a flow installed since then with
 * another action is handed to ovs-vswitchd as a slow-path flow, and a
 * packet that misses the compiled subtables is parsed in full before the
 * generic classifier sees it.
 *
 * Recirculation.  A flow whose last action is XDP_DP_ACTION_RECIRC sends
 * the packet, as its actions have left it, through the flow table again:
 * the frame is parsed anew, its key gets the flow's recirculation id and
 * the packet's datapath hash, and the pass counts its hit or miss and runs
 * its flow's actions, as any pass does (see dp_pass()).  What a packet
 * carries from one pass to the next is a 'struct pkt_md'; a packet that
 * recirculates more than XDP_DP_MAX_RECIRC times is dropped.  Upcalls
 * carry the recirculation id and datapath hash, so that ovs-vswitchd
 * classifies or executes the packet where XDP left it, and they first make
 * the TCP and UDP checksum changes that the rewrites of earlier passes
 * left to the output.  An XDP_DP_ACTION_HASH action sets the datapath hash
 * (see "Datapath hash"). */

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

#include "xdp-dp.h"
#include "xdp-dp-maps.h"
#include "xdp-dp-parse.h"
#include "xdp-dp-classify.h"
#include "xdp-dp-police.h"
#include "xdp-dp-meter.h"
#include "xdp-dp-rewrite.h"
#include "xdp-dp-pass.h"

/* What a pass through the flow table works on (see dp_pass()).  There is
 * one per CPU, in map xdp_dp_pass_buf, for all the passes of a packet: the
 * 512 bytes of stack that a program has for all its frames held it until
 * the key gained the conntrack fields (the frames of xdp_dp_main(),
 * xdp_dp_recirc_pass__() and xdp_parse_l4__() then took 544).  A program
 * runs to its end on one CPU, and nothing it calls runs another XDP or TC
 * program of ours on the same CPU before it returns, so one per CPU is
 * enough. */
struct pass_buf {
    struct xdp_flow_key key;    /* The packet's key. */
    struct xdp_parse_info info; /* Where its headers are. */
    union {                     /* Room for one of these at a time: */
        __u32 ck[XDP_DP_CKEY_MAX_WORDS];    /* Compact keys of compiled
                                             * lookups, */
        __u32 ifindex[XDP_DP_MAX_OUTPUTS];  /* the devices of several
                                             * outputs, */
        struct xdp_dp_upcall up;            /* an upcall's header. */
    } tmp;
    struct pkt_md md;           /* The packet's metadata, in a program
                                 * with 'xdp_dp_cfg.execute_call' (see
                                 * xdp_dp_main()). */
};

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct pass_buf);
} xdp_dp_pass_buf SEC(".maps");

/* Makes room for a 'struct xdp_dp_skb_meta' in front of the frame in 'ctx',
 * for the TC half, and stamps its magic.  Returns it, or NULL if the
 * frame has no room. */
static __always_inline struct xdp_dp_skb_meta *
push_skb_meta(struct xdp_md *ctx)
{
    struct xdp_dp_skb_meta *meta;

    if (bpf_xdp_adjust_meta(ctx, -(int) sizeof *meta)) {
        return NULL;
    }
    meta = (void *) (long) ctx->data_meta;
    if ((void *) (meta + 1) > (void *) (long) ctx->data) {
        return NULL;
    }
    meta->magic = XDP_DP_SKB_META_MAGIC;
    return meta;
}

/* What upcall() returns, instead of an XDP verdict, for an upcall that the
 * TC half makes: XDP_PASS, not counted as forwarded. */
#define UPCALL_VIA_TC (-2)

/* Whether the stack would lose the frame in 'ctx' if XDP passed it up:
 * __netif_receive_skb_core() takes the outer VLAN tag out of a frame
 * (skb_vlan_untag()) before TC sees it, and frees one whose Ethertype is a
 * VLAN TPID followed by less than a whole tag and the 2 bytes after it.
 * No such frame comes in from a device (the stack drops it before generic
 * XDP's TC half or a packet socket sees it), but a pop_vlan or pop_mpls
 * can leave one, and dpif-netdev sends that.  Such frames go up through
 * the upcall ring instead (outputs_up()), whole: they are too short for
 * GSO, checksums or a tunnel header left to TC. */
static __always_inline int
stack_drops_frame(struct xdp_md *ctx)
{
    void *data = (void *) (long) ctx->data;
    void *data_end = (void *) (long) ctx->data_end;
    __be16 *type = data + 12;

    if ((void *) (type + 1) > data_end
        || (*type != ETH_P_8021Q_BE && *type != ETH_P_8021AD_BE)) {
        return 0;
    }
    return bpf_xdp_get_buff_len(ctx) < ETH_HLEN + 6;
}

/* Puts the frame in 'ctx', with 'up' filled in, on the upcall ring. */
static __always_inline void
upcall_ring(struct xdp_md *ctx, struct xdp_dp_upcall *up)
{
    __u64 len = ctx->data_end - ctx->data;

    up->pkt_len = len;
    if (upcall_output(ctx, BPF_F_CURRENT_CPU | (len << 32), up,
                      sizeof *up)) {
        COUNT(n_lost, 1);
    }
}

/* Hands the frame to ovs-vswitchd, with the packet's metadata 'md', if its
 * port's upcall budget allows: through the upcall ring, or for a packet
 * that arrived in generic mode through the TC half, which can tell its GSO
 * size.  Returns the XDP verdict, or UPCALL_VIA_TC. */
static __always_inline int
upcall(struct xdp_md *ctx, __u32 type, const struct pkt_md *md,
       struct pass_buf *buf, __u32 arg)
{
    struct xdp_dp_upcall *up = &buf->tmp.up;

    if (!upcall_allowed(md->in_port, type)) {
        COUNT(n_upcall_limited, 1);
        COUNT(n_lost, 1);
        return XDP_DROP;
    }
    if (md->skb_only && !tnl_md_is_set(&md->tun)
        && !stack_drops_frame(ctx)) {
        /* The TC half makes the upcall, with the skb's GSO size (see
         * XDP_DP_SKB_META_F_UPCALL).  Not for a packet that XDP popped
         * out of a tunnel: the skb's metadata has no room for its tunnel
         * metadata, and XDP pops no GSO segment (xdp_dp_tnl_pop_ok__()). */
        struct xdp_dp_skb_meta *meta = push_skb_meta(ctx);

        if (!meta) {
            COUNT(n_lost, 1);
            return XDP_DROP;
        }
        meta->n_outputs = 0;
        meta->flags = XDP_DP_SKB_META_F_UPCALL;
        meta->csum_pseudo = meta->csum_other = 0;
        meta->up.type = type;
        meta->up.in_port = md->in_port;
        meta->up.slot = arg;
        meta->up.recirc_id = md->recirc_id;
        meta->up.dp_hash = md->dp_hash;
        meta->up.ct = md->ct;
        return UPCALL_VIA_TC;
    }
    upcall_fill_md(up, md);
    up->type = type;
    up->slot = arg;
    upcall_ring(ctx, up);
    return XDP_DROP;
}

/* Sends the frame in 'ctx', of the packet with metadata 'md', to the 'n'
 * devices in 'ifindex' through ovs-vswitchd, one XDP_DP_UPCALL_OUTPUT
 * upcall each, cut to 'mark''s length if it is an XDP_DP_ACTION_TRUNC
 * (a queue priority does not go with them): for a frame that the stack
 * would lose (stack_drops_frame()).  Returns the XDP verdict. */
static __always_inline int
outputs_up(struct xdp_md *ctx, const struct pkt_md *md,
           struct pass_buf *buf, const __u32 *ifindex, __u32 n,
           const struct xdp_dp_action *mark)
{
    struct xdp_dp_upcall *up = &buf->tmp.up;
    __u32 devs[XDP_DP_MAX_OUTPUTS];

    /* 'ifindex' may be in 'buf->tmp' too. */
#pragma unroll
    for (int i = 0; i < XDP_DP_MAX_OUTPUTS; i++) {
        devs[i] = i < n ? ifindex[i] & ~XDP_DP_IFINDEX_F_PEER : 0;
    }
    if (!upcall_allowed(md->in_port, XDP_DP_UPCALL_OUTPUT)) {
        COUNT(n_upcall_limited, 1);
        COUNT(n_lost, 1);
        return XDP_DROP;
    }
    upcall_fill_md(up, md);
    up->type = XDP_DP_UPCALL_OUTPUT;
    up->slot = 0;
    up->orig_len = (mark && mark->type == XDP_DP_ACTION_TRUNC
                    ? mark->trunc.max_len : ~0u);
#pragma unroll
    for (int i = 0; i < XDP_DP_MAX_OUTPUTS; i++) {
        if (i < n && devs[i]) {
            up->ifindex = devs[i];
            COUNT(n_output_upcall, 1);
            upcall_ring(ctx, up);
        }
    }
    return XDP_DROP;
}

/* Leaves a 'struct xdp_dp_skb_meta' naming the 'n' devices in 'ifindex'
 * and carrying 'diff' and what 'mark' asks (XDP_DP_ACTION_SET_PRIORITY
 * or XDP_DP_ACTION_TRUNC for these outputs, or NULL) in front of the
 * frame and passes it up, for xdp_dp_tc to fix the checksum, set the
 * priority and redirect the skb (cloning it to all but the last, which it
 * may cut).  A frame that the stack would lose goes to ovs-vswitchd
 * instead.  'md' and 'buf' are the packet's.  Returns the XDP verdict. */
static __always_inline int
pass_to_tc(struct xdp_md *ctx, const struct pkt_md *md, struct pass_buf *buf,
           const __u32 *ifindex, __u32 n, const struct l4_csum_diff *diff,
           __u32 flags, const struct xdp_dp_action *mark)
{
    struct xdp_dp_skb_meta *meta;

    if (stack_drops_frame(ctx)) {
        return outputs_up(ctx, md, buf, ifindex, n, mark);
    }
    meta = push_skb_meta(ctx);
    if (!meta) {
        COUNT(n_tx_error, 1);
        return XDP_DROP;
    }
    meta->n_outputs = n;
    meta->flags = (flags | (diff->pseudo || diff->other
                            ? XDP_DP_SKB_META_F_L4_CSUM : 0));
    meta->csum_pseudo = csum_fold16(diff->pseudo);
    meta->csum_other = csum_fold16(diff->other);
#pragma unroll
    for (int i = 0; i < XDP_DP_MAX_OUTPUTS; i++) {
        meta->ifindex[i] = i < n ? ifindex[i] : 0;
    }
    if (mark && n < XDP_DP_MAX_OUTPUTS) {
        if (mark->type == XDP_DP_ACTION_TRUNC) {
            meta->flags |= XDP_DP_SKB_META_F_TRUNC;
            meta->ifindex[XDP_DP_MAX_OUTPUTS - 1] = mark->trunc.max_len;
        } else {
            meta->flags |= XDP_DP_SKB_META_F_PRIORITY;
            meta->ifindex[XDP_DP_MAX_OUTPUTS - 1] = mark->priority.value;
        }
    }
    return XDP_PASS;
}

/* Cuts the frame in 'ctx' to the 'mark''s length, if 'mark' is an
 * XDP_DP_ACTION_TRUNC. */
static __always_inline void
xdp_trunc(struct xdp_md *ctx, const struct xdp_dp_action *mark)
{
    if (mark && mark->type == XDP_DP_ACTION_TRUNC) {
        __u32 len = bpf_xdp_get_buff_len(ctx);
        __u32 max_len = mark->trunc.max_len;

        if (len > max_len) {
            bpf_xdp_adjust_tail(ctx, (int) max_len - (int) len);
        }
    }
}

/* Sends the frame to the ports of outputs 'first' to 'n - 1' of 'flow',
 * all of them outputs (see xdp-actions.c): a single one as its port asks,
 * several through the TC half, which clones the skb to each.  Returns the
 * XDP verdict. */
static __always_inline int
do_outputs(struct xdp_md *ctx, const struct xdp_flow *flow, __u32 first,
           __u32 n, const struct pkt_md *md, const struct l4_csum_diff *diff,
           struct pass_buf *buf, const struct xdp_dp_action *mark)
{
    __u32 *ifindex = buf->tmp.ifindex;
    __u32 k = outputs_ifindex(flow, first, n, ifindex);

    if (!k) {
        COUNT(n_tx_error, 1);   /* No port to send to (any more). */
        return XDP_DROP;
    }
    return pass_to_tc(ctx, md, buf, ifindex, k, diff, 0, mark);
}

/* Sends the frame of the packet with metadata 'md' and key 'buf->key',
 * with the checksum changes 'diff', to datapath port 'port_no'; 'tc_flags'
 * are XDP_DP_SKB_META_F_* for the TC half (a frame that arrived in
 * generic mode always goes through it).  Returns the XDP verdict. */
static __always_inline int
do_output(struct xdp_md *ctx, const struct pkt_md *md, struct pass_buf *buf,
          const struct l4_csum_diff *diff, __u32 port_no, __u32 tc_flags,
          const struct xdp_dp_action *mark)
{
    const struct xdp_flow_key *key = &buf->key;
    struct xdp_dp_port *port = bpf_map_lookup_elem(&xdp_dp_ports, &port_no);

    if (!port) {
        COUNT(n_tx_error, 1);
        return XDP_DROP;
    }
    switch (port->tx_mode) {
    case XDP_DP_TX_REDIRECT:
        if (md->skb_only) {
            return pass_to_tc(ctx, md, buf, &port->ifindex, 1, diff, tc_flags,
                              mark);
        }
        apply_l4_csum_diff(ctx, key, diff);
        xdp_trunc(ctx, mark);
        return bpf_redirect_map(&xdp_dp_tx_ports, port_no, XDP_DROP);

    case XDP_DP_TX_SKB:
    case XDP_DP_TX_PEER: {
        __u32 ifindex = port_tx_ifindex(port);

        return pass_to_tc(ctx, md, buf, &ifindex, 1, diff, tc_flags, mark);
    }

    case XDP_DP_TX_SLOW:
        if (tc_flags) {
            /* The header is not pushed yet. */
            COUNT(n_tx_error, 1);
            return XDP_DROP;
        }
        apply_l4_csum_diff(ctx, key, diff);
        xdp_trunc(ctx, mark);
        COUNT(n_output_upcall, 1);
        return upcall(ctx, XDP_DP_UPCALL_OUTPUT, md, buf, port_no);

    default:
        COUNT(n_tx_error, 1);   /* Not a port XDP can send to. */
        return XDP_DROP;
    }
}

/* What applies to the outputs from 'flow->actions[first]' on: the
 * XDP_DP_ACTION_SET_PRIORITY or XDP_DP_ACTION_TRUNC just before them, or
 * NULL (see "Queues and truncation" in xdp-dp.h). */
static __always_inline const struct xdp_dp_action *
outputs_mark(const struct xdp_flow *flow, __u32 first)
{
    const struct xdp_dp_action *a = &flow->actions[(first - 1) & 7];

    if (!first) {
        return NULL;
    }
    if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_SET_PRIORITY))
        && a->type == XDP_DP_ACTION_SET_PRIORITY) {
        return a;
    }
    if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_TRUNC))
        && a->type == XDP_DP_ACTION_TRUNC) {
        return a;
    }
    return NULL;
}

/* Whether the packet in 'ctx' is longer than 'limit' bytes for OVS's
 * check_pkt_len() (see "Packet length checks" in xdp-dp.h), once the
 * actions before it have added 'grow' bytes (check_len's), counting no L2
 * padding past 'ip_end', the end of its IP packet (0 if none, see
 * ip_end()): if 'skb_only' (struct pkt_md's), a frame that may be a GSO
 * segment, by the ingress device's MTU.  A global function: inline, its
 * stack and branches took the verifier of the generic program past its
 * limit of a million instructions. */
__attribute__((noinline)) int
xdp_dp_check_len__(struct xdp_md *ctx, __u32 limit, __u32 skb_only,
                   __s32 grow, __u32 ip_end)
{
    __s64 len;
    __u32 mtu = 0;

    if (!ctx) {
        return 0;
    }
    len = bpf_xdp_get_buff_len(ctx);
    if (ip_end & XDP_DP_IP_END_IPV6) {
        /* The IPv6 header at this offset ends where its payload length
         * says, if the frame holds that much (ipv6_sanity_check()). */
        void *data = (void *) (long) ctx->data;
        void *data_end = (void *) (long) ctx->data_end;
        __u32 l3 = ip_end & 0xff;
        __u8 *p = data + l3;

        ip_end = 0;
        if ((void *) (p + 6) <= data_end) {
            __u32 end = l3 + 40 + ((p[4] << 8) | p[5]);

            ip_end = end <= len ? end : 0;
        }
    }
    if (ip_end && ip_end < len) {
        len = ip_end;
    }
    if (len + grow <= limit) {
        return 0;
    }
    if (skb_only) {
        /* It says whether the frame fits, which a GSO segment does not,
         * and gives the MTU either way. */
        bpf_check_mtu(ctx, 0, &mtu, 0, 0);
        return !mtu || (__s64) mtu + ETH_HLEN + grow > limit;
    }
    return 1;
}

#include "xdp-dp-ct.h"

#include "xdp-dp-tnl.h"

/* XDP_DP_ACTION_SAMPLE 'a' of the flow in 'slot' (see "Sampling" in
 * xdp-dp.h): draws the packet in 'ctx' with the action's probability and,
 * if drawn and the port's sampling budget allows, sends its first
 * XDP_DP_SAMPLE_MAX_COPY bytes up, with its metadata 'md', as an
 * XDP_DP_UPCALL_SAMPLE.  The frame goes as it is: checksum changes that
 * an output would make ('md->diff' and the caller's) are not in it, and
 * neither sFlow nor IPFIX reads a TCP or UDP checksum.  Returns 0.
 *
 * A global function, so that the verifier checks it once, not at every
 * step of execute()'s loop in both kinds of pass (inline, it cost the
 * generic program 130,000 more processed instructions; as it is, 36,000).
 * It builds the header in 'buf->tmp', which nothing holds while actions
 * run before an output. */
__attribute__((noinline)) int
xdp_dp_sample__(struct xdp_md *ctx, const struct pkt_md *md,
                struct pass_buf *buf, const struct xdp_dp_action *a,
                __u32 slot)
{
    __u64 linear = ctx->data_end - ctx->data;
    __u64 copy = (linear < XDP_DP_SAMPLE_MAX_COPY
                  ? linear : XDP_DP_SAMPLE_MAX_COPY);
    struct xdp_dp_upcall *up;

    if (!md || !buf || !a) {
        return 0;
    }
    if (a->sample.probability != 0xffffffff
        && bpf_get_prandom_u32() >= a->sample.probability) {
        return 0;
    }
    if (!budget_allows(XDP_DP_MAX_PORTS + md->in_port, XDP_DP_SAMPLE_BURST,
                       XDP_DP_UPCALL_WINDOW_NS)) {
        COUNT(n_sample_limited, 1);
        return 0;
    }
    up = &buf->tmp.up;
    upcall_fill_md(up, md);
    up->type = XDP_DP_UPCALL_SAMPLE;
    up->slot = slot;
    up->pkt_len = copy;
    up->sample = a->sample.index;
    up->orig_len = bpf_xdp_get_buff_len(ctx);   /* Fragments too. */
    if (bpf_perf_event_output(ctx, &xdp_dp_samples,
                              BPF_F_CURRENT_CPU | (copy << 32),
                              up, sizeof *up)) {
        COUNT(n_sample_limited, 1);
        return 0;
    }
    COUNT(n_sampled, 1);
    return 0;
}

/* XDP_DP_ACTION_TNL_PUSH at 'flow->actions[i]' (see xdp-dp-tnl.h), and
 * the output that ends the flow's actions after it (the only action that
 * may follow, see xdp-actions.c), on the packet in 'ctx' with metadata
 * 'md', key 'buf->key' and the checksum changes 'diff' of the rewrites
 * before it.  Those are made before the header hides them: here for a
 * native-mode frame, by the TC half (before its push) for one that arrived
 * in generic mode.  Returns the XDP verdict.
 *
 * Ending the actions here, rather than going on with the loop in
 * execute(), keeps the verifier from checking every later step of the
 * loop twice, with and without a pushed header. */
static __always_inline int
do_tnl_push(struct xdp_md *ctx, const struct xdp_flow *flow, __u32 i,
            __u32 n, const struct pkt_md *md, struct pass_buf *buf,
            const struct l4_csum_diff *diff)
{
    const struct xdp_dp_action *out = &flow->actions[(n - 1) & 7];
    struct l4_csum_diff none = {};

    if (out->type != XDP_DP_ACTION_OUTPUT) {
        return -1;
    }
    /* A frame that the stack would lose gets its header here (it is too
     * short to be a GSO segment) and so is not lost. */
    if (md->skb_only && !stack_drops_frame(ctx)) {
        if (xdp_dp_tnl_push__(ctx, flow, i, &buf->key, 1)) {
            return -1;
        }
        return do_output(ctx, md, buf, diff, out->output.port,
                         XDP_DP_SKB_META_F_TNL_PUSH, NULL);
    }
    apply_l4_csum_diff(ctx, &buf->key, diff);
    if (xdp_dp_tnl_push__(ctx, flow, i, &buf->key, 0)) {
        return -1;
    }
    COUNT(n_tnl_push, 1);
    return do_output(ctx, md, buf, &none, out->output.port, 0, NULL);
}

/* The pass after a cached ct() (see ct_next_lookup()): if the packet may
 * skip it, counts the packet in the flow of that pass, outputs it and
 * returns the verdict; otherwise returns -1. */
static __always_inline int
ct_next_output(struct xdp_md *ctx, struct pkt_md *md, struct pass_buf *buf,
               const struct l4_csum_diff *diff,
               const struct xdp_dp_ct_entry *cte, __u32 ct, __u32 recirc_id)
{
    const struct xdp_flow_key *key = &buf->key;
    __u32 slot;
    __u32 port1 = ct_next_lookup(md, key, cte, ct, recirc_id, &slot);

    if (!port1) {
        return -1;
    }
    __u32 zero = 0;
    struct xdp_dp_stats *dp_stats = bpf_map_lookup_elem(&xdp_dp_stats,
                                                        &zero);

    if (dp_stats) {             /* One lookup for both counters. */
        dp_stats->n_hit++;
        dp_stats->n_ct_next++;
    }
    xdp_dp_flow_count(slot, ctx->data_end - ctx->data,
                      key->nw_proto == IPPROTO_TCP ? key->tcp_flags : 0);
    return do_output(ctx, md, buf, diff, port1 - 1, 0, NULL);
}

/* The outputs that end 'flow''s actions, from 'flow->actions[first]' on,
 * for execute() (xdp-dp-execute.h): one through do_output(), several
 * through the TC half, with what the action before them asks. */
static __always_inline int
exec_outputs(struct xdp_md *ctx, const struct xdp_flow *flow, __u32 first,
             __u32 n, struct pkt_md *md, struct pass_buf *buf,
             const struct l4_csum_diff *diff)
{
    const struct xdp_dp_action *mark = outputs_mark(flow, first);

    if (first + 1 == n) {
        return do_output(ctx, md, buf, diff,
                         flow->actions[first & 7].output.port, 0, mark);
    } else if (HAS_ACTION(XDP_DP_ACTION_F_OUTPUTS)) {
        return do_outputs(ctx, flow, first, n, md, diff, buf, mark);
    }
    COUNT(n_tx_error, 1);
    return XDP_DROP;
}

/* What execute() needs of this program (see xdp-dp-execute.h). */
#define XDP_DP_PASS_BUF struct pass_buf
#define XDP_DP_DROP XDP_DROP
#define XDP_DP_KEEPS_KEY 1
#define exec_check_len(CTX, MD, C, IP_END)                               \
    xdp_dp_check_len__(CTX, (C)->check_len.len, (MD)->skb_only,         \
                       (C)->check_len.grow, IP_END)
#define exec_sample xdp_dp_sample__
#define exec_ct_next ct_next_output
#define exec_tnl_push do_tnl_push
#include "xdp-dp-execute.h"

/* execute() out of line, for a compiled program with
 * 'xdp_dp_cfg.execute_call' (see "Passes" below): 'ct' is the packet's
 * connection (as execute() takes it, or 0), with XDP_DP_EXECUTE_F_FIRST
 * for the first pass. */
#define XDP_DP_EXECUTE_F_FIRST (1u << 30)
_Static_assert(!(XDP_DP_EXECUTE_F_FIRST
                 & (XDP_DP_PKT_CT_SLOT_MASK | XDP_DP_PKT_CT_F_NAT)),
               "a free bit of 'ct'");
__attribute__((noinline)) int
xdp_dp_execute__(struct xdp_md *ctx, const struct xdp_flow *flow,
                 struct pkt_md *md, struct pass_buf *buf, __u32 ct)
{
    const struct xdp_dp_ct_entry *cte = NULL;
    int first_pass = !!(ct & XDP_DP_EXECUTE_F_FIRST);

    if (!flow || !md || !buf) {
        return XDP_DROP;
    }
    ct &= ~XDP_DP_EXECUTE_F_FIRST;
    if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_CT)) && ct) {
        __u32 ct_slot = (ct & XDP_DP_PKT_CT_SLOT_MASK) - 1;

        cte = bpf_map_lookup_elem(&xdp_dp_ct_entries, &ct_slot);
        if (!cte) {
            return XDP_DROP;
        }
    }
    return execute(ctx, flow, md, buf, cte, ct, first_pass);
}

/* Passes
 * ======
 *
 * One pass of a packet through the flow table is dp_pass().  The first
 * pass of every packet is inline in xdp_dp_main(); the passes after a
 * recirculation are calls of xdp_dp_recirc_pass__(), a global BPF
 * function, so that the verifier checks the code of a pass twice however
 * many passes a packet may make: once inline, where it knows the packet's
 * metadata to be that of an arriving packet and leaves out what that
 * rules out (a pending hash, pending checksum changes), and once on its
 * own.  A compiled program whose flows do not recirculate has no code for
 * the RECIRC action, so nothing calls the function: the verifier never
 * checks it.
 *
 * Measured on Linux 6.18, the verifier processes about 198,000
 * instructions for the generic program this way (96,000 for one pass
 * alone), and for a compiled program without recirculation as many as
 * before (about 20,000).  A bounded loop around the inline pass made it
 * process 970,000 for the generic program, near its limit of a million;
 * every pass through the global function, the first one too, processed
 * 104,000 but made compiled programs 6 to 15% slower per packet in
 * ovs-xdp-bench fastpath.
 *
 * The verifier also walks a pass's actions once for each kind of map a
 * flow can come from: each key size of the compiled subtables, the
 * full-size subtables and the generic classifier leave the flow pointer
 * in a state of its own (the map it points into), which it does not
 * prune as alike.  With many actions in use (OVN: ct(), ct_clear,
 * tunnels, rewrites) that went past its million instructions.  A compiled
 * program with 'xdp_dp_cfg.execute_call' runs the actions in a global
 * function instead, xdp_dp_execute__(), checked once, and, for the stack
 * that one more frame takes, every pass in another, xdp_dp_pass__(), with
 * the packet's metadata in the per-CPU pass_buf rather than on the stack.
 * The generic program (all actions, every kind of subtable) takes the
 * verifier about 700,000 instructions inline, 390,000 out of line.
 * ovs-vswitchd asks for it only when the verifier refused the program
 * without it (dpif-xdp-compile.c): the calls cost a little per packet,
 * and the first pass no longer leaves out what an arriving packet's
 * metadata rules out. */

/* Hands the packet to ovs-vswitchd for a miss or a slow-path flow of this
 * pass, after making the checksum changes of earlier passes, so that
 * ovs-vswitchd gets a consistent frame.  Returns the XDP verdict. */
static __always_inline int
upcall_pass(struct xdp_md *ctx, __u32 type, struct pkt_md *md,
            struct pass_buf *buf, __u32 arg)
{
    apply_l4_csum_diff(ctx, &buf->key, &md->diff);
    return upcall(ctx, type, md, buf, arg);
}

/* classify_compiled() in a frame of its own, for a program with
 * 'xdp_dp_cfg.execute_call': the registers that its unrolled lookups spill
 * (over 100 bytes) then take no room in the frame of the pass, which is
 * one of the deepest chain of frames, with the actions' and a tunnel
 * push's.  Not a global function: it returns a pointer into a map. */
static __attribute__((noinline)) struct xdp_flow *
classify_compiled_call(const struct xdp_flow_key *key, __u32 *ck,
                       __u32 *n_visited, struct xdp_dp_stats *dp_stats)
{
    return classify_compiled(key, ck, n_visited, dp_stats);
}

/* One pass of the packet in 'ctx', with metadata 'md', through the flow
 * table, working in 'buf': parses the frame into a key, classifies it,
 * counts the hit or the miss, and runs the flow's actions or hands the
 * packet to ovs-vswitchd.  Returns the XDP verdict, or RECIRCULATE with
 * 'md' set up for the next pass. */
static __always_inline int
dp_pass(struct xdp_md *ctx, struct pkt_md *md, struct pass_buf *buf,
        int first_pass)
{
    struct xdp_parse_info *info = &buf->info;
    struct xdp_flow_key *key = &buf->key;
    struct xdp_dp_stats *dp_stats;
    struct xdp_flow *flow;
    __u32 n_visited = 0;
    __u32 zero = 0;

    dp_stats = bpf_map_lookup_elem(&xdp_dp_stats, &zero);
    if (!dp_stats) {
        return XDP_DROP;
    }

    int all_l4 = !xdp_dp_cfg.enabled || xdp_dp_cfg.parse_l4;
    /* After a flow that was only a ct() and its recirc (md->key_ok), the
     * key and parse info of the last pass are this frame's (a NAT made
     * in the frame was made in the key too, ct_nat_fill_key()): only the
     * metadata below changes.  That saves the second parse of every
     * packet of an established connection. */
    if (!(HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_CT)) && md->key_ok)) {
        xdp_parse_frame_l4(ctx, key, info, all_l4);
    }
    md->key_ok = 0;
    __u64 ct_next = 0;
    if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_CT)) && !first_pass) {
        ct_next = md->ct_next;
        md->ct_next = 0;
    }
    if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_HASH)) && md->hash_pending) {
        if (!all_l4 && xdp_parse_l4_pending(key, info)) {
            xdp_parse_l4__(ctx, key, info);
        }
        md->dp_hash = hash_5tuple(key, md->hash_basis);
        md->hash_pending = 0;
    }
    key->in_port = md->in_port;
    key->recirc_id = md->recirc_id;
    key->dp_hash = md->dp_hash;
    if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_CT)) && md->ct) {
        ct_fill_key(key, md->ct);
    }
    if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_TNL_POP))
        && tnl_md_is_set(&md->tun)) {
        tnl_fill_key(key, &md->tun);
    }
    if (info->flags & XDP_PARSE_F_INCOMPLETE) {
        /* The key is not what flow_extract() would make: no megaflow may
         * match it.  ovs-vswitchd handles the packet. */
        dp_stats->n_missed++;
        return upcall_pass(ctx, XDP_DP_UPCALL_MISS, md, buf, 0);
    }

    if (xdp_dp_cfg.enabled) {
        flow = (xdp_dp_cfg.execute_call
                ? classify_compiled_call(key, buf->tmp.ck, &n_visited,
                                         dp_stats)
                : classify_compiled(key, buf->tmp.ck, &n_visited, dp_stats));
        if (!flow) {
            dp_stats->n_fallback++;
            if (!all_l4 && xdp_parse_l4_pending(key, info)) {
                xdp_parse_l4__(ctx, key, info);
                if (info->flags & XDP_PARSE_F_INCOMPLETE) {
                    dp_stats->n_missed++;
                    return upcall_pass(ctx, XDP_DP_UPCALL_MISS, md, buf, 0);
                }
            }
            flow = classify_generic(key, &n_visited, dp_stats);
        }
    } else {
        flow = classify_generic(key, &n_visited, dp_stats);
    }
    if (!flow) {
        dp_stats->n_missed++;
        return upcall_pass(ctx, XDP_DP_UPCALL_MISS, md, buf, 0);
    }
    dp_stats->n_mask_hit += n_visited;

    /* Counted as switched in XDP only from here on: a packet that
     * ovs-vswitchd executes is counted in the flow's slot by ovs-vswitchd
     * (see struct xdp_dp_stats). */
    __u32 slot = flow->slot;
    int slow = needs_slow_path(ctx, flow, md, key, info);

    /* The ct() of the flow, if any, looks its connection up before any of
     * the flow's actions runs (through the one upcall below: each upcall
     * is a lot of code for the verifier). */
    const struct xdp_dp_ct_entry *cte = NULL;
    __u32 ct_md = 0;
    if (!slow && HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_CT))
        && flow->action_bits & ACTION_BIT(XDP_DP_ACTION_CT)) {
        if (!all_l4 && xdp_parse_l4_pending(key, info)) {
            xdp_parse_l4__(ctx, key, info);
        }
        cte = ct_pass_lookup(ctx, flow, key, info,
                             (struct xdp_dp_ct_key *) buf->tmp.ck, dp_stats,
                             &ct_md);
        slow = !cte;
    }
    /* So does a tnl_pop check that XDP can pop the packet. */
    if (!slow && HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_TNL_POP))
        && flow->action_bits & ACTION_BIT(XDP_DP_ACTION_TNL_POP)
        && !tnl_pop_ok(ctx, key, flow->actions[0].tnl_pop.port,
                       md->skb_only)) {
        slow = 1;
    }
    if (slow) {
        dp_stats->n_slow_path++;
        return upcall_pass(ctx, XDP_DP_UPCALL_SLOW_PATH, md, buf, slot);
    }
    dp_stats->n_hit++;
    if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_CT)) && ct_next && md->ct) {
        ct_next_record(md->ct, ct_next, slot);
    }

    xdp_dp_flow_count(slot, ctx->data_end - ctx->data,
                      key->nw_proto == IPPROTO_TCP ? key->tcp_flags : 0);
    if (xdp_dp_cfg.execute_call) {
        return xdp_dp_execute__(ctx, flow, md, buf,
                                ((cte ? ct_md : 0)
                                 | (first_pass ? XDP_DP_EXECUTE_F_FIRST : 0)));
    }
    return execute(ctx, flow, md, buf, cte, cte ? ct_md : 0, first_pass);
}

/* dp_pass() for the passes after a recirculation: a global BPF function,
 * see "Passes" above. */
__attribute__((noinline)) int
xdp_dp_recirc_pass__(struct xdp_md *ctx, struct pkt_md *md,
                     struct pass_buf *buf)
{
    if (!md || !buf) {
        return XDP_DROP;
    }
    return dp_pass(ctx, md, buf, 0);
}

/* dp_pass() for every pass, the first one too, of a program with
 * 'xdp_dp_cfg.execute_call': the frames of xdp_dp_main(), a pass, the
 * actions (xdp_dp_execute__()) and a tunnel push and its checksum fit the
 * verifier's 512 bytes of stack only if xdp_dp_main()'s holds no pass.
 * 'first_pass' is not a constant here, so this one function has the code
 * of both (see "Passes"). */
__attribute__((noinline)) int
xdp_dp_pass__(struct xdp_md *ctx, struct pkt_md *md, struct pass_buf *buf,
              __u32 first_pass)
{
    if (!md || !buf) {
        return XDP_DROP;
    }
    return dp_pass(ctx, md, buf, first_pass != 0);
}

/* The passes of the packet in 'ctx', with metadata 'md', through the flow
 * table, working in 'buf': the first inline, then one per recirculation,
 * or, if 'out_of_line' (a constant, for a program with
 * 'xdp_dp_cfg.execute_call'), every one a call of xdp_dp_pass__().
 * Returns the verdict of the last. */
static __always_inline int
all_passes(struct xdp_md *ctx, struct pkt_md *md, struct pass_buf *buf,
           int out_of_line)
{
    int verdict = (out_of_line
                   ? xdp_dp_pass__(ctx, md, buf, 1)
                   : dp_pass(ctx, md, buf, 1));

    for (int i = 0; HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_RECIRC)
                               | ACTION_BIT(XDP_DP_ACTION_TNL_POP))
                    && verdict == RECIRCULATE; i++) {
        if (i == XDP_DP_MAX_RECIRC) {
            COUNT(n_recirc_limited, 1);
            return XDP_DROP;
        }
        verdict = (out_of_line
                   ? xdp_dp_pass__(ctx, md, buf, 0)
                   : xdp_dp_recirc_pass__(ctx, md, buf));
    }
    return verdict;
}

/* The program, for the packet in 'ctx': its port, its policer, its passes
 * and the verdict.  'out_of_line' (a constant) for a program with
 * 'xdp_dp_cfg.execute_call', whose passes and actions run in global
 * functions (see "Passes"): its frames are then two calls deeper, and the
 * 512 bytes of stack for all of them have no room for the metadata,
 * which goes into 'buf'. */
static __always_inline int
xdp_dp_run(struct xdp_md *ctx, int out_of_line)
{
    __u32 ifindex = ctx->ingress_ifindex;
    __u32 *port_no = bpf_map_lookup_elem(&xdp_dp_in_ports, &ifindex);
    struct pass_buf *buf;
    __u32 zero = 0, in_port, skb_only;
    int verdict;

    if (!port_no) {
        return XDP_PASS;
    }
    in_port = *port_no & XDP_DP_IN_PORT_MASK;
    skb_only = *port_no & XDP_DP_IN_PORT_F_GENERIC;
    if (*port_no & XDP_DP_IN_PORT_F_POLICED
        && !xdp_dp_police__(XDP_DP_PKT_LEN(ctx), in_port)) {
        COUNT(n_policed, 1);
        return XDP_DROP;
    }
    buf = bpf_map_lookup_elem(&xdp_dp_pass_buf, &zero);
    if (!buf) {
        return XDP_PASS;
    }
    if (out_of_line) {
        struct pkt_md *md = &buf->md;

        __builtin_memset(md, 0, sizeof *md);
        md->in_port = in_port;
        md->skb_only = skb_only;
        verdict = all_passes(ctx, md, buf, 1);
    } else {
        /* On the stack, the verifier knows what the first pass starts
         * with, and leaves out the code that that rules out. */
        struct pkt_md md = { .in_port = in_port, .skb_only = skb_only };

        verdict = all_passes(ctx, &md, buf, 0);
    }
    /* Upcalls and drops return XDP_DROP, but for upcalls that the TC half
     * makes (UPCALL_VIA_TC); only the outputs of a flow's actions return
     * XDP_REDIRECT or, towards the TC half, XDP_PASS. */
    if (verdict == UPCALL_VIA_TC) {
        return XDP_PASS;
    }
    if (verdict == XDP_REDIRECT || verdict == XDP_PASS) {
        COUNT(n_forwarded, 1);
    }
    return verdict;
}

/* xdp_dp_run() for a program with 'xdp_dp_cfg.execute_call', in a frame of
 * its own: xdp_dp_main()'s is laid out for the inline passes, and what it
 * spills there would take the room that the calls need. */
__attribute__((noinline)) int
xdp_dp_run_out_of_line__(struct xdp_md *ctx)
{
    return xdp_dp_run(ctx, 1);
}

SEC("xdp")
int
xdp_dp_main(struct xdp_md *ctx)
{
    if (xdp_dp_cfg.execute_call) {
        return xdp_dp_run_out_of_line__(ctx);
    }
    return xdp_dp_run(ctx, 0);
}

#include "xdp-dp-skb.h"
#include "xdp-dp-tc.h"

/* The kernel knows no "Apache/GPL" pair: GPL is the licence of the two
 * that it understands (see the SPDX line). */
char LICENSE[] SEC("license") = "GPL";
