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

/* ovs-xdp-bench forward --cpus=LIST: how the switches scale with the
 * number of CPUs that receive (see bench-forward.c for the benchmark as a
 * whole).
 *
 * For a count N of LIST, N generators run at once, one pinned to each of
 * N CPUs ('opts.gen_cpus': --cpu or the last CPU first, then the others
 * from the highest down), each with its own instance of the generator
 * program.  The flows are divided among them as a NIC's receive side
 * scaling would divide them among its queues: generator k of N sends its
 * own contiguous share of the UDP source ports; with fewer flows than
 * generators (one flow), every generator sends all of them, so that every
 * CPU forwards the same flow.
 *
 * Each CPU's frames must be received in that CPU's NAPI context, as a
 * NIC's queues would have them, or the CPUs would meet in one queue and
 * measure the veth instead of the switch.  A veth's ndo_xdp_xmit puts a
 * frame on the peer's receive queue number smp_processor_id() modulo the
 * peer's real number of receive queues, and schedules that queue's NAPI on
 * the sending CPU.  Both pairs therefore get as many receive and transmit
 * queues as the largest count (ethtool -L, at setup), which carries the
 * generator's frames into the generator's end of the switch and the
 * switch's redirects into the sink, each on its own CPU.  Switches that
 * transmit skbs (the Linux bridge) pick a transmit queue, and the veth
 * the peer's receive queue of the same number: transmit packet steering
 * (xps_cpus) on the switch-side ends maps CPU c to queue c modulo the
 * number, as drivers of multi-queue NICs set it up.  A note per result
 * gives how the sink's frames spread over the CPUs, which shows whether
 * each generator's CPU carried its own.
 *
 * The userspace datapath of Debian's ovs-vswitchd polls its ports from
 * threads of its own, on CPUs other than the generator's: with a
 * generator on every CPU there is none left, so its switches are measured
 * with one generator only.
 *
 * Every count is measured in every run, alternating with the switches,
 * and the results are one table per count and a scaling table: each
 * switch's rate at N CPUs over its rate at 1, and that over the floor's
 * (a switch that scales as the bare redirect does has 1.00). */

#include <config.h>

#include "utilities/bench-forward.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "openvswitch/dynamic-string.h"
#include "util.h"

/* Fills 'opts->gen_cpus' with the CPUs this process may use: 'first' (a
 * CPU number, or -1 for the last one), then the others from the highest
 * down.  Exits if 'first' is not one of them. */
void
fwd_cpus_order(struct fwd_options *opts, int first)
{
    cpu_set_t set;
    size_t n = 0;

    if (sched_getaffinity(0, sizeof set, &set)) {
        ovs_fatal(errno, "cannot read this process's CPU affinity");
    }
    if (first >= 0 && !CPU_ISSET(first, &set)) {
        ovs_fatal(0, "--cpu: this process may not run on CPU %d", first);
    }
    if (first >= 0) {
        opts->gen_cpus[n++] = first;
    }
    for (int cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--) {
        if (CPU_ISSET(cpu, &set) && cpu != first
            && n < FWD_MAX_GENERATORS) {
            opts->gen_cpus[n++] = cpu;
        }
    }
    ovs_assert(n > 0);
    opts->n_gen_cpus = n;
}

static int
fwd_cpus_compare(const void *a_, const void *b_)
{
    const unsigned int *a = a_, *b = b_;

    return *a < *b ? -1 : *a > *b;
}

/* Parses --cpus's comma-separated 'list' of numbers of generators (each
 * from 1 to the number of 'opts->gen_cpus', or "all" for that number) into
 * 'opts->cpu_counts', ascending and without repeats.  Call after
 * fwd_cpus_order(). */
void
fwd_cpus_parse(struct fwd_options *opts, const char *list)
{
    char *copy = xstrdup(list);
    char *token, *save_ptr = NULL;
    size_t n = 0;

    for (token = strtok_r(copy, ",", &save_ptr); token;
         token = strtok_r(NULL, ",", &save_ptr)) {
        unsigned int count;

        if (!strcmp(token, "all")) {
            count = opts->n_gen_cpus;
        } else {
            count = bench_parse_count("--cpus", token, 1, opts->n_gen_cpus);
        }
        for (size_t i = 0; i < n; i++) {
            if (opts->cpu_counts[i] == count) {
                count = 0;
            }
        }
        if (count) {
            opts->cpu_counts[n++] = count;
        }
    }
    free(copy);
    if (!n) {
        ovs_fatal(0, "--cpus: no number of CPUs in \"%s\"", list);
    }
    qsort(opts->cpu_counts, n, sizeof *opts->cpu_counts, fwd_cpus_compare);
    opts->n_cpu_counts = n;
}

/* Returns the largest number of generators that the options measure. */
unsigned int
fwd_cpus_max(const struct fwd_options *opts)
{
    return opts->cpu_counts[opts->n_cpu_counts - 1];
}

/* Returns why switch 'sw' is not measured with 'count' generators, or
 * NULL if it is. */
const char *
fwd_cpus_unsupported(const struct fwd_switch *sw, unsigned int count)
{
    if (count > 1 && sw->kind == FWD_OVS_STOCK) {
        return "not on more than one CPU: its poll threads need CPUs "
               "that the generators do not use";
    }
    return NULL;
}

/* Stores in '*first' and '*n' the UDP source ports, as offsets from
 * FWD_UDP_SPORT_BASE, that generator 'k' of 'n_gens' sends out of
 * 'n_flows' (see the top of the file). */
void
fwd_cpus_flow_share(unsigned int n_flows, size_t n_gens, size_t k,
                    unsigned int *first, unsigned int *n)
{
    if (n_flows < n_gens) {
        *first = 0;
        *n = n_flows;
    } else {
        *first = k * n_flows / n_gens;
        *n = (k + 1) * n_flows / n_gens - *first;
    }
}

/* Writes 'value' into sysfs file 'file'.  Returns 0 or a positive errno
 * value. */
static int
fwd_cpus_write_sysfs(const char *file, const char *value)
{
    FILE *stream = fopen(file, "w");
    int error;

    if (!stream) {
        return errno;
    }
    error = fputs(value, stream) < 0 ? errno : 0;
    if (fclose(stream) && !error) {
        error = errno;
    }
    return error;
}

/* Gives both ends of 'pair' 'n' receive and transmit queues and sets
 * transmit packet steering on its root end (see the top of the file).
 * Returns 0, or a positive errno value after explaining in 'why'. */
static int
fwd_cpus_pair_queues(const struct bench_pair *pair, unsigned int n,
                     struct ds *why)
{
    unsigned int n_cpus = MIN(MAX(libbpf_num_possible_cpus(), 1),
                              FWD_MAX_GENERATORS);
    struct ds output = DS_EMPTY_INITIALIZER;
    int status;

    status = bench_run(&output,
                       "ethtool -L %s rx %u tx %u"
                       " && ip netns exec %s ethtool -L %s rx %u tx %u",
                       pair->root_name, n, n, pair->ns, pair->ns_name, n, n);
    if (status) {
        bench_explain(why, "ethtool -L (veth queues)", status, &output);
        ds_destroy(&output);
        return EIO;
    }
    ds_destroy(&output);

    for (unsigned int q = 0; q < n; q++) {
        uint32_t mask[FWD_MAX_GENERATORS / 32] = { 0 };
        struct ds value = DS_EMPTY_INITIALIZER;
        char *file;
        int error;

        /* A cpumask in sysfs: 32-bit groups in hexadecimal, the highest
         * first, separated by commas, no longer than the possible CPUs. */
        for (unsigned int cpu = q; cpu < n_cpus; cpu += n) {
            mask[cpu / 32] |= UINT32_C(1) << (cpu % 32);
        }
        for (int i = DIV_ROUND_UP(n_cpus, 32) - 1; i >= 0; i--) {
            ds_put_format(&value, "%08"PRIx32"%s", mask[i], i ? "," : "");
        }
        file = xasprintf("/sys/class/net/%s/queues/tx-%u/xps_cpus",
                         pair->root_name, q);
        error = fwd_cpus_write_sysfs(file, ds_cstr(&value));
        if (error) {
            ds_put_format(why, "%s: cannot write \"%s\" (%s)", file,
                          ds_cstr(&value), ovs_strerror(error));
        }
        free(file);
        ds_destroy(&value);
        if (error) {
            return error;
        }
    }
    return 0;
}

/* Gives the generator's and the sink's pairs a queue per generator of the
 * largest count, if that is more than 1.  Exits on failure. */
void
fwd_cpus_setup(struct fwd *fwd)
{
    unsigned int n = fwd_cpus_max(&fwd->opts);
    struct ds why = DS_EMPTY_INITIALIZER;

    if (n > 1 && (fwd_cpus_pair_queues(&fwd->gen, n, &why)
                  || fwd_cpus_pair_queues(&fwd->sink, n, &why))) {
        ovs_fatal(0, "--cpus: %s", ds_cstr(&why));
    }
    ds_destroy(&why);
}

/* Appends to 'note' how the sink's frames spread over the CPUs between
 * the per-CPU counts 'before' and 'after' (of 'n_cpus' CPUs) while
 * 'n_gens' generators ran: each generator's CPU first, then the rest
 * together. */
void
fwd_cpus_note(const struct fwd *fwd, size_t n_gens,
              const unsigned long long *before,
              const unsigned long long *after, size_t n_cpus,
              struct ds *note)
{
    unsigned long long total = 0, others = 0;

    for (size_t i = 0; i < n_cpus; i++) {
        total += after[i] - before[i];
    }
    if (!total) {
        return;
    }
    ds_put_cstr(note, "\nsink's frames by CPU:");
    for (size_t i = 0; i < n_cpus; i++) {
        unsigned long long frames = after[i] - before[i];
        bool gen = false;

        for (size_t k = 0; k < n_gens; k++) {
            gen |= fwd->opts.gen_cpus[k] == (int) i;
        }
        if (gen) {
            ds_put_format(note, " CPU %zu %.1f%%,", i, 100.0 * frames / total);
        } else {
            others += frames;
        }
    }
    ds_put_format(note, " others %.1f%%", 100.0 * others / total);
}

/* Returns the median rate of switch 'idx' in pipeline 'p' with the
 * generators of count number 'c' over its rate with one, or 0 if either is
 * missing. */
double
fwd_cpus_scaling(const struct fwd *fwd, size_t c, size_t idx,
                 enum fwd_pipeline p)
{
    double one = fwd_median_pps(fwd, 0, idx, p);
    double n = fwd_median_pps(fwd, c, idx, p);

    return fwd->opts.cpu_counts[0] == 1 && one > 0 && n > 0 ? n / one : 0;
}

/* Appends the scaling table to 'out', if the counts include 1 and another
 * one. */
void
fwd_cpus_put_table(const struct fwd *fwd, struct ds *out)
{
    const struct fwd_options *opts = &fwd->opts;

    if (opts->n_cpu_counts < 2 || opts->cpu_counts[0] != 1) {
        return;
    }

    ds_put_format(out, "Scaling over CPUs, a generator on each of CPUs");
    for (size_t k = 0; k < fwd_cpus_max(opts); k++) {
        ds_put_format(out, "%s%d", k ? "," : " ", opts->gen_cpus[k]);
    }
    ds_put_format(out, " (N generators on the first N):\n\n");
    ds_put_format(out, "%-15s %-14s %4s %7s %10s %7s %10s\n",
                  "switch", "pipeline", "CPUs", "Mpps", "CPU s/Mpkt",
                  "scaling", "of floor's");
    for (size_t i = 0; i < FWD_N_SWITCHES; i++) {
        for (size_t p = 0; p < FWD_N_PIPELINES; p++) {
            for (size_t c = 0; c < opts->n_cpu_counts; c++) {
                const struct fwd_result *r = &fwd->results[c][i][p];
                double scaling, floor_scaling;
                double cpu;

                if (!r->selected || !r->n) {
                    continue;
                }
                cpu = bench_median(r->cpu, r->n);
                ds_put_format(out, "%-15s %-14s %4u %7.3f",
                              fwd_switches[i].name, fwd_pipeline_label(i, p),
                              opts->cpu_counts[c],
                              bench_median(r->pps, r->n) / 1e6);
                if (isnan(cpu)) {
                    ds_put_format(out, " %10s", "-");
                } else {
                    ds_put_format(out, " %10.3f", cpu);
                }
                scaling = fwd_cpus_scaling(fwd, c, i, p);
                floor_scaling = fwd_cpus_scaling(fwd, c, FWD_FLOOR_IDX,
                                                 FWD_STATELESS);
                if (scaling > 0) {
                    ds_put_format(out, " %7.2f", scaling);
                } else {
                    ds_put_format(out, " %7s", "-");
                }
                if (scaling > 0 && floor_scaling > 0) {
                    ds_put_format(out, " %10.2f", scaling / floor_scaling);
                } else {
                    ds_put_format(out, " %10s", "-");
                }
                ds_put_char(out, '\n');
            }
        }
    }
    ds_put_format(out, "\nscaling: the median Mpps at N CPUs over the "
                  "median at 1; of floor's: that over\nthe floor's "
                  "scaling at N (1.00: scales as the bare redirect "
                  "does).\n");
}
