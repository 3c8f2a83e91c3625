/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_METER_H
#define XDP_DP_METER_H 1

/* OpenFlow meters in XDP (see "Meters" in xdp-dp.h).
 *
 * xdp_dp_meter__() is dp_netdev_run_meter() of dpif-netdev for one packet:
 * the same buckets, units, refill by whole milliseconds and choice of the
 * band that drops, so that a meter means on xdp what it means on OVS's
 * userspace datapath.  It is a global function, checked once by the
 * verifier, called by the meter action in XDP and by xdp_dp_meter_run,
 * the program that ovs-vswitchd runs (BPF_PROG_TEST_RUN) for a packet it
 * executes itself: one implementation and one set of buckets for both,
 * at the price of a system call per metered packet of the slow path. */

/* Passes a packet of 'len' bytes through meter 'id'.  Returns 1 if the
 * packet may go on, 0 if a band dropped it.  A meter that does not exist
 * passes everything, as in dpif-netdev. */
__attribute__((noinline)) int
xdp_dp_meter__(__u32 id, __u32 len)
{
    struct xdp_dp_meter *m = bpf_map_lookup_elem(&xdp_dp_meters, &id);
    __u64 now_ms = bpf_ktime_get_ns() / 1000000;
    __u32 exceeded_rate = 0;
    int exceeded = -1;
    __u64 delta, volume;

    if (!m) {
        return 1;
    }
    bpf_spin_lock(&m->lock);
    if (!(m->flags & XDP_DP_METER_F_SET)) {
        bpf_spin_unlock(&m->lock);
        return 1;
    }
    delta = now_ms > m->used_ms ? now_ms - m->used_ms : 0;
    if (delta > m->max_delta_ms) {
        delta = m->max_delta_ms;    /* Fills every bucket: no overflow. */
    }
    m->used_ms = now_ms;
    m->n_packets++;
    m->n_bytes += len;
    volume = m->flags & XDP_DP_METER_F_PKTPS ? 1000 : (__u64) len * 8;

    for (int i = 0; i < XDP_DP_METER_MAX_BANDS; i++) {
        struct xdp_dp_meter_band *b = &m->bands[i];

        if (i >= m->n_bands) {
            break;
        }
        b->bucket += delta * b->rate;
        if (b->bucket > b->bucket_max) {
            b->bucket = b->bucket_max;
        }
        if (b->bucket >= volume) {
            b->bucket -= volume;
        } else if (b->rate > exceeded_rate) {
            exceeded_rate = b->rate;
            exceeded = i;
        }
    }
    if (exceeded >= 0 && exceeded < XDP_DP_METER_MAX_BANDS) {
        m->bands[exceeded].n_packets++;
        m->bands[exceeded].n_bytes += len;
    }
    bpf_spin_unlock(&m->lock);
    return exceeded < 0;
}

#ifndef XDP_DP_SKB_PIPELINE
/* The meter action for the packets that ovs-vswitchd executes: the frame
 * is a 'struct xdp_dp_meter_run'.  Returns XDP_PASS if the packet may go
 * on, XDP_DROP if the meter dropped it, XDP_ABORTED for a short frame. */
SEC("xdp")
int
xdp_dp_meter_run(struct xdp_md *ctx)
{
    struct xdp_dp_meter_run *r = (void *) (long) ctx->data;

    if ((void *) (r + 1) > (void *) (long) ctx->data_end) {
        return XDP_ABORTED;
    }
    return xdp_dp_meter__(r->id, r->len) ? XDP_PASS : XDP_DROP;
}
#endif

#endif /* xdp-dp-meter.h */
