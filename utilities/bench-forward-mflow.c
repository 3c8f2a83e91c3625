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

/* ovs-xdp-bench forward --megaflows=N --masks=M: a flow table that gives
 * the datapath N megaflows over M masks, and a stream spread over all of
 * them (see bench-forward.c for the benchmark as a whole).
 *
 * The generator sends from N UDP source ports (as --flows=N does), and
 * the OpenFlow table has one rule per port, exact on it, in M groups of
 * masks (bench_megaflow_rules()).  What the datapath holds, flows and
 * masks, is read at the end of each run (dpctl/show) and shown in the
 * result's note, since the counts are ofproto's to make, with the
 * subtables looked up per packet while measuring (the mask cache of
 * compiled programs should bring it near 1; see
 * datapath/xdp-dp-classify.h).
 *
 * The Linux bridge bridges, as always: it has no flow table. */

#include <config.h>

#include "utilities/bench-forward.h"

#include <string.h>

#include "openvswitch/dynamic-string.h"
#include "svec.h"
#include "util.h"

/* Adds to 'flows' the megaflow table of the options 'opts' (see the top of
 * the file) from port 'a', the generator's, to port 'b', and what takes
 * everything else both ways. */
void
fwd_megaflow_flows(const struct fwd_options *opts, const char *a,
                   const char *b, struct svec *flows)
{
    bench_megaflow_rules(flows, opts->mflow.n_megaflows, opts->mflow.n_masks, a,
                         FWD_GEN_IP, "tp_src", FWD_UDP_SPORT_BASE, b);
    svec_add_nocopy(flows, xasprintf("priority=0,in_port=%s,actions=output:%s",
                                     a, b));
    svec_add_nocopy(flows, xasprintf("priority=0,in_port=%s,actions=output:%s",
                                     b, a));
}

/* Reads what dpctl/show says of the datapath of switch 'sw' into 'c'
 * (-1 for what it does not say). */
void
fwd_megaflow_counts(struct fwd *fwd, const struct fwd_switch *sw,
                    struct fwd_megaflow_counts *c)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    const char *s;

    bench_ovs_run(fwd_switch_ovs(fwd, sw), &output, "ovs-appctl dpctl/show");
    s = ds_cstr(&output);
    c->n_flows = bench_find_count(s, "flows: ");
    c->n_masks = bench_find_count(s, "total:");
    c->n_hit = bench_find_count(s, "lookups: hit:");
    c->n_mask_hit = bench_find_count(s, "masks: hit:");
    ds_destroy(&output);
}

/* Appends to 'note' how many flows and masks the datapath of switch 'sw'
 * holds at the end of a run, and how many subtables a packet was looked
 * up in on average while it ran ('before' and 'after'), and complains on
 * stderr if there are fewer flows than --megaflows asked for. */
void
fwd_megaflow_note(struct fwd *fwd, const struct fwd_switch *sw,
                  const struct fwd_megaflow_counts *before,
                  const struct fwd_megaflow_counts *after, struct ds *note)
{
    long long int hits = after->n_hit - before->n_hit;

    if (note->length) {
        ds_put_char(note, '\n');
    }
    ds_put_format(note, "datapath at the end of the run (dpctl/show): "
                  "%lld flows, ", after->n_flows);
    if (after->n_masks >= 0) {
        ds_put_format(note, "%lld masks", after->n_masks);
    } else {
        ds_put_cstr(note, "masks not shown");
    }
    if (hits > 0 && before->n_mask_hit >= 0 && after->n_mask_hit >= 0) {
        ds_put_format(note, "; %.2f subtables looked up per packet while "
                      "measuring", (double) (after->n_mask_hit
                                             - before->n_mask_hit) / hits);
    }
    if (after->n_flows < (long long int) fwd->opts.mflow.n_megaflows) {
        ovs_error(0, "%s: %lld datapath flows, fewer than the %u megaflows "
                  "asked for", sw->name, after->n_flows,
                  fwd->opts.mflow.n_megaflows);
    }
}
