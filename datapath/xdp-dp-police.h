/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_POLICE_H
#define XDP_DP_POLICE_H 1

/* Ingress policing in XDP.
 *
 * Open vSwitch polices a port's ingress (the Interface's
 * ingress_policing_rate and ingress_policing_kpkts_rate) with a tc policer
 * on the device's ingress hook.  XDP runs before that hook, and a frame
 * that XDP redirects never reaches it, so on an xdp port the policer must
 * be here: xdp_dp_main() asks police() about every frame of a port flagged
 * XDP_DP_IN_PORT_F_POLICED before it parses the frame, and drops what the
 * policer refuses (counted as 'n_policed').  The bucket arithmetic is that
 * of the kernel's act_police (see struct xdp_dp_policer); the frame's
 * length is its whole length, all fragments of a multi-buffer frame and a
 * whole GSO segment in generic mode, as the tc policer counts skb->len. */

/* The credit of a bucket that had 'credit' and has gained 'elapsed' ns
 * since, capped at 'burst'. */
static __always_inline __u64
bucket_credit(__u64 credit, __u64 elapsed, __u64 burst)
{
    __u64 c = credit + elapsed;

    return c > burst || c < elapsed ? burst : c;
}

/* Whether a frame of 'len' bytes, arriving on port 'port_no', passes the
 * port's policer.  A port without one passes everything. */
static __always_inline int
police(__u64 len, __u32 port_no)
{
    struct xdp_dp_policer *p = bpf_map_lookup_elem(&xdp_dp_policers,
                                                   &port_no);
    __u64 now = bpf_ktime_get_ns();
    __u64 byte_cost, byte_credit, pkt_credit, elapsed;
    int pass;

    if (!p) {
        return 1;
    }
    /* The division is outside the lock, where the verifier allows no
     * helper call and a rate change (a new configuration) would reset the
     * bucket anyway. */
    byte_cost = p->kbits_rate ? len * 8000000ULL / p->kbits_rate : 0;

    bpf_spin_lock(&p->lock);
    elapsed = now > p->last_ns ? now - p->last_ns : 0;
    byte_credit = bucket_credit(p->byte_credit_ns, elapsed, p->byte_burst_ns);
    pkt_credit = bucket_credit(p->pkt_credit_ns, elapsed, p->pkt_burst_ns);
    pass = byte_credit >= byte_cost && pkt_credit >= p->pkt_cost_ns;
    if (pass) {
        /* As act_police, a dropped frame leaves the bucket as it was, so
         * that the credit it did not take keeps growing from 'last_ns'. */
        p->byte_credit_ns = byte_credit - byte_cost;
        p->pkt_credit_ns = pkt_credit - p->pkt_cost_ns;
        p->last_ns = now;
        p->n_passed++;
    } else {
        p->n_dropped++;
        p->n_dropped_bytes += len;
    }
    bpf_spin_unlock(&p->lock);
    return pass;
}

#ifndef XDP_DP_SKB_PIPELINE
/* police() out of line, for xdp_dp_main(): what it spills around its
 * helper calls then takes no room in the frame of xdp_dp_main(), one of
 * the deepest chain of frames (see "Passes" in xdp-dp.bpf.c).  A global
 * function: the verifier checks it once. */
__attribute__((noinline)) int
xdp_dp_police__(__u64 len, __u32 port_no)
{
    return police(len, port_no);
}
#endif

#endif /* xdp-dp-police.h */
