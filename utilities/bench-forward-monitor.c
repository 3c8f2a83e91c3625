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

/* ovs-xdp-bench forward: the 'sflow' and 'meter' pipelines, what
 * monitoring and rate limits cost a switch that forwards by port (see
 * bench-forward.c for the benchmark as a whole).
 *
 * Both OVS switches get the stateless pipeline's flows, and then, as an
 * operator would set them up: for 'sflow', the bridge's sFlow at 1 in
 * FWD_SFLOW_SAMPLING to a collector address where nothing listens (the
 * datagrams cost ovs-vswitchd the same), which puts a sample() action on
 * every datapath flow; for 'meter', OpenFlow meter FWD_METER_ID with one
 * drop band far above the offered load and flows that send every frame
 * through it, so that every frame pays for the bucket and none is dropped.
 * The Linux bridge would need tc's sample and police actions, which this
 * kernel lacks (fwd_pipeline_unsupported()).
 *
 * For ovs-xdp, the result's note says what the program counted while the
 * stream ran: the copies it drew and sent up (xdp-sampled), those past the
 * sample budget (xdp-sample-limited), frames its meter dropped
 * (xdp-metered) and frames handed to ovs-vswitchd (xdp-slow-path), which
 * should be none. */

#include <config.h>

#include "utilities/bench-forward.h"

#include <errno.h>

#include "openvswitch/dynamic-string.h"
#include "util.h"
#include "utilities/bench-common.h"

/* Sets up pipeline 'p''s monitoring or rate limit on OVS switch 'sw',
 * whose bridge exists with the pipeline's flows.  Returns 0 if successful
 * (or 'p' needs nothing), otherwise a positive errno value after
 * explaining in 'why'. */
int
fwd_monitor_setup(struct fwd *fwd, const struct fwd_switch *sw,
                  enum fwd_pipeline p, struct ds *why)
{
    struct bench_ovs *ovs = fwd_switch_ovs(fwd, sw);
    const char *br = fwd->ovs_bridge;
    const char *a = fwd->gen.root_name;
    const char *b = fwd->sink.root_name;
    struct ds output = DS_EMPTY_INITIALIZER;
    int error = 0;

    if (p == FWD_SFLOW) {
        if (bench_ovs_run(ovs, &output,
                          "ovs-vsctl -- --id=@s create sflow agent=lo "
                          "target='\"127.0.0.1:6343\"' sampling=%d "
                          "-- set bridge %s sflow=@s",
                          FWD_SFLOW_SAMPLING, br)) {
            bench_explain(why, "ovs-vsctl create sflow", 1, &output);
            error = EIO;
        }
    } else if (p == FWD_METER) {
        /* One command each: bench_ovs_run() points the first command of a
         * shell list at the switch's run directory, not the others. */
        char *cmds[] = {
            xasprintf("ovs-ofctl -O OpenFlow13 add-meter %s meter=%d,kbps,"
                      "band=type=drop,rate=100000000", br, FWD_METER_ID),
            xasprintf("ovs-ofctl -O OpenFlow13 add-flow %s in_port=%s,"
                      "actions=meter:%d,output:%s", br, a, FWD_METER_ID, b),
            xasprintf("ovs-ofctl -O OpenFlow13 add-flow %s in_port=%s,"
                      "actions=meter:%d,output:%s", br, b, FWD_METER_ID, a),
        };

        for (size_t i = 0; i < ARRAY_SIZE(cmds); i++) {
            int status = error ? 0 : bench_ovs_run(ovs, &output, "%s",
                                                   cmds[i]);

            if (status) {
                bench_explain(why, cmds[i], status, &output);
                error = EIO;
            }
            free(cmds[i]);
        }
    }
    ds_destroy(&output);
    return error;
}

/* Stores ovs-vswitchd-xdp's counters of sampling and metering in '*c'
 * (see struct fwd_monitor_counts). */
void
fwd_monitor_counts(struct fwd *fwd, struct fwd_monitor_counts *c)
{
    static const char *const names[] = {
        "xdp-sampled", "xdp-sample-limited", "xdp-metered", "xdp-slow-path",
    };
    long long *const values[] = {
        &c->sampled, &c->sample_limited, &c->metered, &c->slow_path,
    };

    bench_ovs_counters(&fwd->ovs_xdp, "dpif-xdp/stats-show", names, values,
                       ARRAY_SIZE(names));
}

/* Appends to 'note' what ovs-xdp's program counted in pipeline 'p'
 * between 'before' and 'after', while 'frames' reached the sink, and
 * complains on stderr if a frame went to ovs-vswitchd or, for 'meter',
 * the meter dropped any. */
void
fwd_monitor_note(struct fwd *fwd OVS_UNUSED, enum fwd_pipeline p,
                 const struct fwd_monitor_counts *before,
                 const struct fwd_monitor_counts *after,
                 unsigned long long frames, struct ds *note)
{
    long long slow = after->slow_path - before->slow_path;

    if (p == FWD_SFLOW) {
        long long sampled = after->sampled - before->sampled;
        long long limited = after->sample_limited - before->sample_limited;

        ds_put_format(note, "%ssampling in XDP: xdp-sampled +%lld (1 in "
                      "%.1f frames at the sink), xdp-sample-limited "
                      "+%lld,\nxdp-slow-path +%lld",
                      note->length ? "\n" : "", sampled,
                      sampled > 0 ? (double) frames / sampled : 0.0,
                      limited, slow);
        if (sampled + limited <= 0) {
            ovs_error(0, "ovs-xdp sflow: no sample drawn in XDP");
        }
    } else {
        long long metered = after->metered - before->metered;

        ds_put_format(note, "%smeter in XDP: xdp-metered +%lld (frames "
                      "dropped), xdp-slow-path +%lld",
                      note->length ? "\n" : "", metered, slow);
        if (metered) {
            ovs_error(0, "ovs-xdp meter: the meter dropped %lld frames",
                      metered);
        }
    }
    if (slow) {
        ovs_error(0, "ovs-xdp %s: %lld frames went to ovs-vswitchd",
                  p == FWD_SFLOW ? "sflow" : "meter", slow);
    }
}
