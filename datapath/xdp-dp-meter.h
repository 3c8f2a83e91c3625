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
 * at the price of a system call per metered packet of the slow path.
 *
 * The buckets are shared by the CPUs without a lock.  A bpf_spin_lock
 * around the whole meter cost a quarter of a metered frame's time here
 * (the helper saves and restores the interrupt flag, which is slow in a
 * virtual machine), so each bucket is one 64-bit word changed with atomic
 * operations: the CPU that first sees a new millisecond claims the refill
 * with a compare-and-swap of 'used_ms' and adds the time's tokens to every
 * band; a packet takes its tokens with an atomic add, checked first with
 * a plain read and given back if another CPU took them in between.  On
 * one CPU that is exactly the locked arithmetic.  With several, a packet
 * may find a bucket that others are about to refund and be refused by a
 * band that a locked meter would have passed it through: only when that
 * band is within a few packets of empty, so the meter never passes more
 * than its rate.  The counters are per CPU (xdp_dp_meter_stats): plain
 * adds. */

/* Adds 'tokens' to the bucket '*bucket', capped at 'max'.  A few tries of
 * compare-and-swap: a packet that takes tokens in between makes the first
 * fail; if all fail, the refill is lost, which only slows the meter. */
static __always_inline void
meter_refill(__u64 *bucket, __u64 tokens, __u64 max)
{
    for (int try = 0; try < 4; try++) {
        __s64 old = *(volatile __s64 *) bucket;
        __s64 new = old + (__s64) tokens;

        if (new > (__s64) max || new < old) {
            new = max;
        }
        if (__sync_val_compare_and_swap((__s64 *) bucket, old, new) == old) {
            break;
        }
    }
}

/* Takes 'volume' tokens from '*bucket' if it has them.  Returns 1 if it
 * did, 0 if the bucket is short (then it is left as it was). */
static __always_inline int
meter_take(__u64 *bucket, __u64 volume)
{
    if (*(volatile __s64 *) bucket < (__s64) volume) {
        return 0;
    }
    if (__sync_fetch_and_add((__s64 *) bucket, -(__s64) volume)
        >= (__s64) volume) {
        return 1;
    }
    __sync_fetch_and_add((__s64 *) bucket, (__s64) volume);
    return 0;
}

/* Passes a packet of 'len' bytes through meter 'id'.  Returns 1 if the
 * packet may go on, 0 if a band dropped it.  A meter that does not exist
 * passes everything, as in dpif-netdev. */
__attribute__((noinline)) int
xdp_dp_meter__(__u32 id, __u32 len)
{
    struct xdp_dp_meter *m = bpf_map_lookup_elem(&xdp_dp_meters, &id);
    struct xdp_dp_meter_stats *st;
    __u32 exceeded_rate = 0;
    int exceeded = -1;
    __u64 now_ms, used, volume;

    if (!m || !(m->flags & XDP_DP_METER_F_SET)) {
        return 1;
    }
    now_ms = bpf_ktime_get_ns() / 1000000;
    used = *(volatile __u64 *) &m->used_ms;
    if (now_ms > used
        && __sync_val_compare_and_swap(&m->used_ms, used, now_ms) == used) {
        __u64 delta = now_ms - used;

        if (delta > m->max_delta_ms) {
            delta = m->max_delta_ms;    /* Fills every bucket. */
        }
        for (int i = 0; i < XDP_DP_METER_MAX_BANDS; i++) {
            struct xdp_dp_meter_band *b = &m->bands[i];

            if (i >= m->n_bands) {
                break;
            }
            meter_refill(&b->bucket, delta * b->rate, b->bucket_max);
        }
    }

    volume = m->flags & XDP_DP_METER_F_PKTPS ? 1000 : (__u64) len * 8;
    for (int i = 0; i < XDP_DP_METER_MAX_BANDS; i++) {
        struct xdp_dp_meter_band *b = &m->bands[i];

        if (i >= m->n_bands) {
            break;
        }
        if (!meter_take(&b->bucket, volume) && b->rate > exceeded_rate) {
            exceeded_rate = b->rate;
            exceeded = i;
        }
    }

    st = bpf_map_lookup_elem(&xdp_dp_meter_stats, &id);
    if (st) {
        st->n_packets++;
        st->n_bytes += len;
        if (exceeded >= 0 && exceeded < XDP_DP_METER_MAX_BANDS) {
            st->bands[exceeded].n_packets++;
            st->bands[exceeded].n_bytes += len;
        }
    }
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
