/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_TC_H
#define XDP_DP_TC_H 1

/* The TC half of the datapath (xdp_dp_tc), on each port's ingress.
 *
 * XDP cannot clone a frame, set an skb's priority, push a tunnel header
 * onto a GSO segment or tell an offloaded (partial) checksum from a full
 * one.  So where a flow's outputs need any of that, XDP leaves a 'struct
 * xdp_dp_skb_meta' in front of the frame and passes it up; the TC program
 * that runs next on the same skb takes it, fixes the L4 checksum by the
 * difference the rewrites left, sets the priority, pushes the tunnel
 * header, and redirects the skb to each output (cloning it to all but the
 * last, which it may cut).  It also sends up the upcalls of frames that
 * arrived in generic mode (XDP_DP_SKB_META_F_UPCALL), which may be whole
 * GSO segments, with their outer VLAN tag taken out into the skb.  A
 * frame without the metadata's magic is not ours: it passes on
 * untouched.  Included by xdp-dp.bpf.c; what it shares with the TC
 * pipeline is in xdp-dp-skb.h. */

/* The TC ingress half of outputs through the stack (see pass_to_tc()):
 * fixes up the TCP or UDP checksum for the rewrites XDP made (partial or
 * full, as bpf_l4_csum_replace() knows), clones the skb to every output
 * but the last, and redirects it to the last.  Frames without our
 * metadata go on to the stack. */
SEC("tc")
int
xdp_dp_tc(struct __sk_buff *skb)
{
    struct xdp_dp_skb_meta *meta = (void *) (long) skb->data_meta;
    __u32 ifindex[XDP_DP_MAX_OUTPUTS];
    __u32 pseudo, other, flags;
    __u32 n;

    if ((void *) (meta + 1) > (void *) (long) skb->data
        || meta->magic != XDP_DP_SKB_META_MAGIC) {
        return TC_ACT_OK;
    }
    if (meta->flags & XDP_DP_SKB_META_F_UPCALL) {
        struct xdp_dp_upcall up = {
            .type = meta->up.type,
            .in_port = meta->up.in_port,
            .slot = meta->up.slot,
            .recirc_id = meta->up.recirc_id,
            .dp_hash = meta->up.dp_hash,
            .ct = meta->up.ct,
        };
        return tc_upcall(skb, &up);
    }
    n = meta->n_outputs;
    if (!n || n > XDP_DP_MAX_OUTPUTS) {
        COUNT(n_tc_error, 1);
        return TC_ACT_SHOT;
    }
    /* bpf_clone_redirect() and the checksum helpers invalidate packet
     * pointers, 'meta' too. */
    flags = meta->flags;
    if (flags & XDP_DP_SKB_META_F_PRIORITY) {
        /* For the qdisc of the device it leaves by (see "Queues and
         * truncation"). */
        skb->priority = meta->ifindex[XDP_DP_MAX_OUTPUTS - 1];
    }
    __u32 trunc_len = (flags & XDP_DP_SKB_META_F_TRUNC
                       ? meta->ifindex[XDP_DP_MAX_OUTPUTS - 1] : 0);
    pseudo = meta->csum_pseudo;
    other = meta->csum_other;
#pragma unroll
    for (int i = 0; i < XDP_DP_MAX_OUTPUTS; i++) {
        ifindex[i] = meta->ifindex[i];
    }

    if (flags & XDP_DP_SKB_META_F_L4_CSUM && tc_fix_l4_csum(skb, pseudo, other)) {
        COUNT(n_tc_error, 1);
        return TC_ACT_SHOT;
    }

    if (flags & XDP_DP_SKB_META_F_TNL_PUSH) {
        if (tc_tnl_push(skb)) {
            COUNT(n_tc_error, 1);
            return TC_ACT_SHOT;
        }
        COUNT(n_tnl_push, 1);
    } else if (tc_vlan_inband(skb)) {
        COUNT(n_tc_error, 1);
        return TC_ACT_SHOT;
    }

    return tc_send(skb, ifindex, n, trunc_len);
}

#endif /* xdp-dp-tc.h */
