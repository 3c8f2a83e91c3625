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

/* OpenFlow meters: the dpif's meter_get_features, meter_set, meter_get and
 * meter_del, and the meter action for the packets ovs-vswitchd executes.
 *
 * A meter lives in the map xdp_dp_meters, indexed by the datapath meter id
 * that ofproto allocates below the maximum we report (see "Meters" in
 * datapath/xdp-dp.h): its configuration and buckets; the counters that
 * meter-stats shows are per CPU, in xdp_dp_meter_stats, summed here.
 * meter_set writes the whole value, buckets full as dpif-netdev starts
 * them, and zeroes the counters; a deleted meter is written back empty.
 * The program's meter action (xdp_dp_meter__() in
 * datapath/xdp-dp-meter.h) takes from those buckets in XDP, with atomic
 * operations: a meter rewritten while packets meet it may charge one of
 * them to the old buckets, as dpif-netdev may while it swaps a meter.  A packet that
 * ovs-vswitchd executes (a slow-path flow, a packet-out) meets the same
 * meter through the program xdp_dp_meter_run, run with BPF_PROG_TEST_RUN:
 * writing the bucket arithmetic a second time, in C, would give it a
 * second set of buckets, and a meter shared by a flow in XDP and one in
 * the slow path would let through twice its rate. */

#include <config.h>

#include <errno.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "coverage.h"
#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dp-packet.h"
#include "dpif-xdp-private.h"
#include "openvswitch/ofp-meter.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_meter);

COVERAGE_DEFINE(xdp_meter_drop_uspace);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

/* The meter flags and band types that work, as dpif-netdev's. */
#define DP_XDP_METER_FLAGS \
    (OFPMF13_STATS | OFPMF13_PKTPS | OFPMF13_KBPS | OFPMF13_BURST)
#define DP_XDP_METER_BAND_TYPES (1 << OFPMBT13_DROP)

void
dpif_xdp_meter_get_features(const struct dpif *dpif OVS_UNUSED,
                            struct ofputil_meter_features *features)
{
    features->max_meters = XDP_DP_MAX_METERS;
    features->band_types = DP_XDP_METER_BAND_TYPES;
    features->capabilities = DP_XDP_METER_FLAGS;
    features->max_bands = XDP_DP_METER_MAX_BANDS;
    features->max_color = 0;
}

/* The clock of bpf_ktime_get_ns(), in milliseconds.  Not OVS's
 * time_msec(), which tests may warp. */
static uint64_t
monotonic_msec(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static int
meters_fd(const struct dp_xdp *dp)
{
    return bpf_map__fd(dp->skel->maps.xdp_dp_meters);
}

static int
stats_fd(const struct dp_xdp *dp)
{
    return bpf_map__fd(dp->skel->maps.xdp_dp_meter_stats);
}

/* Reads meter 'id''s counters, summed over the CPUs, into '*sum' if it is
 * nonnull, and then zeroes them on every CPU if 'clear'.  Returns 0 or a
 * positive errno. */
static int
meter_stats_read(struct dp_xdp *dp, uint32_t id,
                 struct xdp_dp_meter_stats *sum, bool clear)
{
    int n_cpus = libbpf_num_possible_cpus();
    int error = 0;

    if (sum) {
        error = dp_xdp_sum_percpu(stats_fd(dp), id, sum, sizeof *sum);
    }
    if (!error && clear) {
        struct xdp_dp_meter_stats *zeros;

        if (n_cpus <= 0) {
            return n_cpus ? -n_cpus : EINVAL;
        }
        zeros = xcalloc(n_cpus, sizeof *zeros);
        if (bpf_map_update_elem(stats_fd(dp), &id, zeros, 0)) {
            error = errno;
        }
        free(zeros);
    }
    return error;
}

int
dpif_xdp_meter_set(struct dpif *dpif, ofproto_meter_id meter_id,
                   struct ofputil_meter_config *config)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    uint32_t id = meter_id.uint32;
    struct xdp_dp_meter m;
    int error;

    if (id >= XDP_DP_MAX_METERS) {
        return EFBIG;
    }
    if (config->flags & ~DP_XDP_METER_FLAGS) {
        return EBADF;
    }
    if (config->n_bands > XDP_DP_METER_MAX_BANDS) {
        return EINVAL;
    }
    for (size_t i = 0; i < config->n_bands; i++) {
        if (config->bands[i].type != OFPMBT13_DROP) {
            return ENODEV;
        }
        if (!config->bands[i].rate) {
            return EDOM;
        }
    }

    memset(&m, 0, sizeof m);
    m.flags = (XDP_DP_METER_F_SET
               | (config->flags & OFPMF13_PKTPS ? XDP_DP_METER_F_PKTPS : 0));
    m.n_bands = config->n_bands;
    m.used_ms = monotonic_msec();
    for (size_t i = 0; i < config->n_bands; i++) {
        struct xdp_dp_meter_band *b = &m.bands[i];
        uint32_t burst = config->bands[i].burst_size;
        uint64_t fill_ms;

        /* As dpif-netdev: without a burst, a second's worth. */
        if (!burst) {
            burst = config->bands[i].rate;
        }
        b->rate = config->bands[i].rate;
        b->bucket_max = burst * 1000ULL;
        b->bucket = b->bucket_max;      /* Full to begin with. */
        /* At least 1: dpif-netdev's 0, for a burst smaller than a
         * millisecond at the rate, would never refill the bucket. */
        fill_ms = MAX(b->bucket_max / b->rate, 1);
        m.max_delta_ms = MAX(m.max_delta_ms, MIN(fill_ms, UINT32_MAX));
    }
    error = meter_stats_read(dp, id, NULL, true);
    if (!error && bpf_map_update_elem(meters_fd(dp), &id, &m, 0)) {
        error = errno;
    }
    if (error) {
        VLOG_WARN_RL(&rl, "%s: cannot write meter %"PRIu32" (%s)",
                     dp->name, id, ovs_strerror(error));
    }
    return error;
}

/* Reads meter 'id' into '*m'.  Returns 0, ENOENT if it is not set, or
 * another positive errno. */
static int
meter_read(struct dp_xdp *dp, uint32_t id, struct xdp_dp_meter *m)
{
    if (id >= XDP_DP_MAX_METERS) {
        return EFBIG;
    }
    if (bpf_map_lookup_elem(meters_fd(dp), &id, m)) {
        return errno;
    }
    return m->flags & XDP_DP_METER_F_SET ? 0 : ENOENT;
}

/* Fills in '*stats' for meter 'm' of id 'id', with at most 'n_bands'
 * bands, and zeroes the meter's counters if 'clear'.  Returns 0 or a
 * positive errno. */
static int
meter_stats(struct dp_xdp *dp, uint32_t id, const struct xdp_dp_meter *m,
            struct ofputil_meter_stats *stats, uint16_t n_bands, bool clear)
{
    struct xdp_dp_meter_stats st;
    int error = meter_stats_read(dp, id, &st, clear);

    if (error) {
        return error;
    }
    stats->packet_in_count = st.n_packets;
    stats->byte_in_count = st.n_bytes;
    for (size_t i = 0; i < n_bands && i < m->n_bands
                       && i < XDP_DP_METER_MAX_BANDS; i++) {
        stats->bands[i].packet_count = st.bands[i].n_packets;
        stats->bands[i].byte_count = st.bands[i].n_bytes;
    }
    stats->n_bands = MIN(n_bands, m->n_bands);
    return 0;
}

int
dpif_xdp_meter_get(const struct dpif *dpif, ofproto_meter_id meter_id,
                   struct ofputil_meter_stats *stats, uint16_t n_bands)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    struct xdp_dp_meter m;
    int error = meter_read(dp, meter_id.uint32, &m);

    if (!error && stats) {
        error = meter_stats(dp, meter_id.uint32, &m, stats, n_bands, false);
    }
    return error;
}

int
dpif_xdp_meter_del(struct dpif *dpif, ofproto_meter_id meter_id,
                   struct ofputil_meter_stats *stats, uint16_t n_bands)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    uint32_t id = meter_id.uint32;
    struct xdp_dp_meter m;
    int error = meter_read(dp, id, &m);

    if (error) {
        return error;
    }
    if (stats) {
        error = meter_stats(dp, id, &m, stats, n_bands, true);
    } else {
        error = meter_stats_read(dp, id, NULL, true);
    }
    memset(&m, 0, sizeof m);
    if (bpf_map_update_elem(meters_fd(dp), &id, &m, 0) && !error) {
        error = errno;
    }
    return error;
}

/* The meter action 'meter_id' on the packets of 'batch' that ovs-vswitchd
 * executes: passes each through the meter, in xdp_dp_meter_run, and
 * takes out (and frees) those it drops. */
void
dp_xdp_meter_execute(struct dp_xdp *dp, struct dp_packet_batch *batch,
                     uint32_t meter_id)
{
    int prog_fd = bpf_program__fd(dp->skel->progs.xdp_dp_meter_run);
    const size_t n = dp_packet_batch_size(batch);
    struct dp_packet *packet;
    size_t i;

    /* 'n' before the loop: the macro empties the batch first. */
    DP_PACKET_BATCH_REFILL_FOR_EACH (i, n, packet, batch) {
        /* XDP's test run wants a frame at least as long as an Ethernet
         * header. */
        uint8_t frame[ETH_HEADER_LEN + sizeof(struct xdp_dp_meter_run)];
        struct xdp_dp_meter_run *r = (struct xdp_dp_meter_run *) frame;
        LIBBPF_OPTS(bpf_test_run_opts, opts,
                    .data_in = frame,
                    .data_size_in = sizeof frame,
                    .repeat = 1);

        memset(frame, 0, sizeof frame);
        r->id = meter_id;
        r->len = dp_packet_size(packet);
        if (bpf_prog_test_run_opts(prog_fd, &opts)) {
            VLOG_WARN_RL(&rl, "%s: cannot run meter %"PRIu32" (%s); "
                         "packet passed", dp->name, meter_id,
                         ovs_strerror(errno));
        } else if (opts.retval == XDP_DROP) {
            COVERAGE_INC(xdp_meter_drop_uspace);
            dp_packet_delete(packet);
            continue;
        }
        dp_packet_batch_refill(batch, packet, i);
    }
}
