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
 * the OpenFlow table has one rule per port, exact on it: ofproto's
 * megaflow for each port matches it exactly, so the datapath holds N
 * megaflows.  Their masks come from the classifier's staged lookup, which
 * un-wildcards the fields of every subtable it looked into before the
 * one that matched: the rules are spread over M groups, group j at
 * priority FWD_MFLOW_PRIORITY - j also matching the generator's IPv4
 * source on a prefix of 16 + j bits, so that a packet whose rule is in
 * group j was looked up in groups 0 to j and its megaflow matches the
 * source on 16 + j bits: one mask per group.  What the datapath holds,
 * flows and masks, is read at the end of each run (dpctl/show) and shown
 * in the result's note, since the counts are ofproto's to make, with the
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

/* Priority of group 0; group j is at this minus j. */
#define FWD_MFLOW_PRIORITY 1000

/* Adds to 'flows' the megaflow table of the options 'opts' (see the top of
 * the file) from port 'a', the generator's, to port 'b', and what takes
 * everything else both ways. */
void
fwd_megaflow_flows(const struct fwd_options *opts, const char *a,
                   const char *b, struct svec *flows)
{
    for (unsigned int i = 0; i < opts->n_megaflows; i++) {
        unsigned int group = i % opts->n_masks;

        svec_add_nocopy(flows, xasprintf(
                            "priority=%u,udp,in_port=%s,nw_src=%s/%u,"
                            "tp_src=%u,actions=output:%s",
                            FWD_MFLOW_PRIORITY - group, a, FWD_GEN_IP,
                            16 + group, FWD_UDP_SPORT_BASE + i, b));
    }
    svec_add_nocopy(flows, xasprintf("priority=0,in_port=%s,actions=output:%s",
                                     a, b));
    svec_add_nocopy(flows, xasprintf("priority=0,in_port=%s,actions=output:%s",
                                     b, a));
}

/* Returns the number that follows 'label' in 's', or -1. */
static long long int
find_count(const char *s, const char *label)
{
    const char *p = strstr(s, label);
    long long int value;

    return (p && sscanf(p + strlen(label), "%lld", &value) == 1
            ? value : -1);
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
    c->n_flows = find_count(s, "flows: ");
    c->n_masks = find_count(s, "total:");
    c->n_hit = find_count(s, "lookups: hit:");
    c->n_mask_hit = find_count(s, "masks: hit:");
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
    if (after->n_flows < (long long int) fwd->opts.n_megaflows) {
        ovs_error(0, "%s: %lld datapath flows, fewer than the %u megaflows "
                  "asked for", sw->name, after->n_flows,
                  fwd->opts.n_megaflows);
    }
}
