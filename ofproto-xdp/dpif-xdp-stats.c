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

/* Where packets were switched: the datapath's counters, and
 * 'ovs-appctl dpif-xdp/stats-show'.
 *
 * Two kinds of counter, kept apart so that one cannot vouch for the other.
 * The programs' counters (struct xdp_dp_stats, a per-CPU array that the
 * XDP program and its TC half alone write) say what the programs did with
 * each packet: switched it ("xdp-hit", "xdp-forwarded", "tc-redirected"),
 * dropped it, or sent it up ("xdp-missed", "xdp-slow-path",
 * "xdp-output-upcall").  ovs-vswitchd's own counters (struct
 * dp_xdp_uspace_stats, atomics in 'struct dp_xdp') say what it did with
 * the packets that reached it.  A packet switched in XDP moves only the
 * first kind; a packet that ovs-vswitchd forwarded moves the second, and
 * an "upcall" counter of the first.  Tests prove the fast path by checking
 * that the second kind, and the programs' upcall counters, stood still
 * while their traffic ran.
 *
 * ovs-vswitchd reads the per-CPU array with one system call per command,
 * and sums it over the CPUs. */

#include <config.h>

#include <errno.h>
#include <string.h>

#include <stddef.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dpif-xdp-private.h"
#include "openvswitch/dynamic-string.h"
#include "unixctl.h"
#include "util.h"

/* Reads entry 'key' of the per-CPU map 'map_fd', whose values are 'size'
 * bytes of 64-bit counters, and stores in 'sum' each counter summed over
 * the CPUs.  Returns 0 or a positive errno (then 'sum' is all zeros). */
int
dp_xdp_sum_percpu(int map_fd, uint32_t key, void *sum, size_t size)
{
    int n_cpus = libbpf_num_possible_cpus();
    size_t n_counters = size / sizeof(uint64_t);
    uint64_t *per_cpu, *total = sum;
    int error = 0;

    ovs_assert(size % sizeof(uint64_t) == 0);
    memset(sum, 0, size);
    if (n_cpus <= 0) {
        return n_cpus ? -n_cpus : EINVAL;
    }
    per_cpu = xcalloc(n_cpus, size);
    if (bpf_map_lookup_elem(map_fd, &key, per_cpu)) {
        error = errno;
    } else {
        for (int i = 0; i < n_cpus; i++) {
            for (size_t j = 0; j < n_counters; j++) {
                total[j] += per_cpu[i * n_counters + j];
            }
        }
    }
    free(per_cpu);
    return error;
}

/* Stores in '*sum' the datapath's counters (xdp_dp_stats) summed over the
 * CPUs.  Returns 0 or a positive errno (then '*sum' is all zeros). */
int
dp_xdp_read_stats(struct dp_xdp *dp, struct xdp_dp_stats *sum)
{
    return dp_xdp_sum_percpu(bpf_map__fd(dp->skel->maps.xdp_dp_stats), 0,
                             sum, sizeof *sum);
}

/* The programs' counters that dpif-xdp/stats-show prints, in its order,
 * by name and place in struct xdp_dp_stats.  First those moved only by
 * the datapath's programs: the XDP program, and the TC pipeline of ports
 * in tc mode (datapath/tc-dp.bpf.c), which also counts its own share in
 * the tc-hit, tc-forwarded, tc-missed and tc-slow-path counters.  Then
 * those moved only by the TC programs: the TC pipeline alone moves those
 * four, the XDP program's TC half and the TC pipeline the others.  Every
 * counter of the structure is here but 'n_mask_hit', which dpctl/show
 * prints (dpif_xdp_get_stats()), and 'mask_hits', which the compiler
 * ranks subtables by; "test-xdp-flow stats-layout" checks it. */
#define C(NAME, MEMBER) { NAME, offsetof(struct xdp_dp_stats, MEMBER) }
const struct dp_xdp_counter dp_xdp_prog_counters[] = {
    C("xdp-hit", n_hit),
    C("xdp-forwarded", n_forwarded),
    C("xdp-dropped", n_dropped),
    C("xdp-tx-error", n_tx_error),
    C("xdp-recirc-limited", n_recirc_limited),
    C("xdp-missed", n_missed),
    C("xdp-slow-path", n_slow_path),
    C("xdp-output-upcall", n_output_upcall),
    C("xdp-upcall-limited", n_upcall_limited),
    C("xdp-upcall-lost", n_lost),
    C("xdp-upcall-quiet", n_upcall_quiet),
    C("xdp-upcall-nudge", n_upcall_nudge),
    C("xdp-fallback", n_fallback),
    C("xdp-ct-hit", n_ct_hit),
    C("xdp-ct-miss", n_ct_miss),
    C("xdp-ct-next", n_ct_next),
    C("xdp-policed", n_policed),
    C("xdp-metered", n_metered),
    C("xdp-sampled", n_sampled),
    C("xdp-sample-limited", n_sample_limited),
    C("xdp-tnl-push", n_tnl_push),
    C("xdp-tnl-pop", n_tnl_pop),
    C("tc-hit", n_tc_hit),
    C("tc-forwarded", n_tc_forwarded),
    C("tc-missed", n_tc_missed),
    C("tc-slow-path", n_tc_slow_path),
    C("tc-redirected", n_tc_redirected),
    C("tc-peer", n_tc_peer),
    C("tc-error", n_tc_error),
    C("tc-tnl-no-csum", n_tc_tnl_no_csum),
};
#undef C
const size_t dp_xdp_n_prog_counters = ARRAY_SIZE(dp_xdp_prog_counters);

static uint64_t
read_counter(atomic_uint64_t *counter)
{
    uint64_t value;

    atomic_read_relaxed(counter, &value);
    return value;
}

static void
put_counter(struct ds *s, const char *name, uint64_t value)
{
    ds_put_format(s, "  %s: %"PRIu64"\n", name, value);
}

/* Formats 'dp''s counters into 's', one "  name: value" line each, so that
 * scripts can pick one out by its name. */
static void
format_stats(struct dp_xdp *dp, void *s_)
{
    struct dp_xdp_uspace_stats *u = &dp->uspace;
    struct ds *s = s_;
    struct xdp_dp_stats x;
    int error;

    ds_put_format(s, "%s:\n", dp->name);
    error = dp_xdp_read_stats(dp, &x);
    if (error) {
        ds_put_format(s, "  cannot read the program's counters (%s)\n",
                      ovs_strerror(error));
    }

    for (size_t i = 0; i < dp_xdp_n_prog_counters; i++) {
        const struct dp_xdp_counter *c = &dp_xdp_prog_counters[i];
        uint64_t value;

        memcpy(&value, (const char *) &x + c->ofs, sizeof value);
        put_counter(s, c->name, value);
    }

    /* Moved only by ovs-vswitchd. */
    put_counter(s, "ovs-miss-upcall", read_counter(&u->n_miss));
    put_counter(s, "ovs-slow-path", read_counter(&u->n_slow_path));
    put_counter(s, "ovs-output", read_counter(&u->n_output));
    put_counter(s, "ovs-uspace-hit", read_counter(&u->n_uspace_hit));
    put_counter(s, "ovs-execute", read_counter(&u->n_execute));
    put_counter(s, "ovs-sample", read_counter(&u->n_sample));
    put_counter(s, "ovs-upcall-lost", dp_xdp_upcall_lost(dp));
}

/* The connections cached in XDP, with the packets XDP counted in each
 * direction. */
static void
format_ctcache(struct dp_xdp *dp, void *s_)
{
    struct ds *s = s_;

    ds_put_format(s, "%s:\n", dp->name);
    dp_xdp_ctcache_format(dp->ctcache, s, true);
}

/* The ports' ingress policers, with what the program counted in each. */
static void
format_policing(struct dp_xdp *dp, void *s_)
{
    struct ds *s = s_;

    ds_put_format(s, "%s:\n", dp->name);
    dp_xdp_police_format(dp, s);
}

/* A "show" command: what it formats of one datapath. */
struct show_command {
    void (*format)(struct dp_xdp *, void *ds);
};
static const struct show_command stats_show = { format_stats };
static const struct show_command ct_cache_show = { format_ctcache };
static const struct show_command policing_show = { format_policing };

/* ovs-appctl dpif-xdp/stats-show [DP], dpif-xdp/ct-cache-show [DP] and
 * dpif-xdp/policing-show [DP]: 'cmd_' (a 'struct show_command') of each
 * datapath, or of DP. */
static void
dpif_xdp_unixctl_show(struct unixctl_conn *conn, int argc,
                      const char *argv[], void *cmd_)
{
    const struct show_command *cmd = cmd_;
    struct ds s = DS_EMPTY_INITIALIZER;

    if (dp_xdp_foreach(argc > 1 ? argv[1] : NULL, cmd->format, &s)) {
        unixctl_command_reply(conn, ds_cstr(&s));
    } else {
        unixctl_command_reply_error(conn, "no such xdp datapath");
    }
    ds_destroy(&s);
}

void
dp_xdp_stats_register_commands(void)
{
    unixctl_command_register("dpif-xdp/ct-cache-show", "[dp]", 0, 1,
                             dpif_xdp_unixctl_show,
                             CONST_CAST(struct show_command *,
                                        &ct_cache_show));
    unixctl_command_register("dpif-xdp/policing-show", "[dp]", 0, 1,
                             dpif_xdp_unixctl_show,
                             CONST_CAST(struct show_command *,
                                        &policing_show));
    unixctl_command_register("dpif-xdp/stats-show", "[dp]", 0, 1,
                             dpif_xdp_unixctl_show,
                             CONST_CAST(struct show_command *, &stats_show));
}
