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

/* ovs-xdp-bench forward: the results.
 *
 * Everything here reads 'struct fwd' after the last run, when every
 * switch is down, and writes it three ways.  fwd_print_table() prints on
 * stdout a header that says how the numbers were made, one table per
 * number of generators (a row per selected switch and pipeline: the median
 * rate and its spread, the offered rate, CPU seconds per million frames
 * and the ratios to the floor and to ovs-xdp), the summary lines of the
 * other pipelines, bench-forward-cpus.c's scaling table, the legend, the
 * notes that the measurements left, and what the sink's header check
 * found.  fwd_write_json() writes the same numbers to --json's file, every
 * run's value and not only the median, and fwd_plot() draws the medians
 * with gnuplot.  A ratio needs both sides: one that has none prints as
 * "-" and writes null. */

#include <config.h>

#include "utilities/bench-forward.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "util.h"
#include "utilities/bench-common.h"

/* Returns the median rate of switch 'idx' in pipeline 'p' with the
 * generators of count number 'c', 0 if it was not measured. */
double
fwd_median_pps(const struct fwd *fwd, size_t c, size_t idx,
               enum fwd_pipeline p)
{
    const struct fwd_result *r = &fwd->results[c][idx][p];

    return r->selected && r->n ? bench_median(r->pps, r->n) : 0;
}

/* Returns the label of pipeline 'p' of switch 'idx' in the table: the
 * floor has none. */
const char *
fwd_pipeline_label(size_t idx, enum fwd_pipeline p)
{
    return fwd_switches[idx].kind == FWD_FLOOR ? "-" : fwd_pipeline_names[p];
}

/* Prints "%*.2f" of 'a' / 'b' into 'out', or "-" if 'a' or 'b' is 0. */
static void
fwd_put_ratio(struct ds *out, int width, double a, double b)
{
    if (a > 0 && b > 0) {
        ds_put_format(out, " %*.2f", width, a / b);
    } else {
        ds_put_format(out, " %*s", width, "-");
    }
}

/* Appends 'text' to 'out', each of its lines indented by 'indent'
 * spaces. */
static void
fwd_put_indented(struct ds *out, int indent, const char *text)
{
    for (;;) {
        const char *nl = strchr(text, '\n');
        int len = nl ? nl - text : strlen(text);

        ds_put_format(out, "%*s%.*s\n", indent, "", len, text);
        if (!nl) {
            break;
        }
        text = nl + 1;
    }
}

/* Appends to 'out', for stateful pipeline 'p', how many times ovs-xdp's
 * median is those of the other OVS switches and the Linux bridge in the
 * same pipeline, and its own stateless one: the ratios the issue for
 * ct() in XDP set targets for.  Appends nothing if ovs-xdp was not
 * measured in 'p'. */
static void
fwd_put_summary(const struct fwd *fwd, size_t c, enum fwd_pipeline p,
                struct ds *out)
{
    double xdp = fwd_median_pps(fwd, c, FWD_OVS_XDP_IDX, p);
    double stateless = fwd_median_pps(fwd, c, FWD_OVS_XDP_IDX,
                                      FWD_STATELESS);
    struct ds line = DS_EMPTY_INITIALIZER;

    if (!xdp) {
        return;
    }
    for (size_t i = 0; i < FWD_N_SWITCHES; i++) {
        double pps = fwd_median_pps(fwd, c, i, p);

        if (i != FWD_OVS_XDP_IDX && fwd_switches[i].kind != FWD_FLOOR
            && pps > 0) {
            ds_put_format(&line, ", %.2fx %s", xdp / pps,
                          fwd_switches[i].name);
        }
    }
    if (stateless > 0) {
        ds_put_format(&line, ", %.2fx its stateless figure",
                      xdp / stateless);
    }
    if (line.length) {
        ds_put_format(out, "%s: ovs-xdp is %s\n", fwd_pipeline_names[p],
                      ds_cstr(&line) + 2);
    }
    ds_destroy(&line);
}

/* Appends to 'out' the rows of the results with the generators of count
 * number 'c', and the summary lines of the stateful pipelines; adds to
 * '*n_checked' and '*n_bad' the frames the sink checked and found bad, and
 * notes in '*linux_bridge' whether the Linux bridge has a row. */
static void
fwd_put_rows(const struct fwd *fwd, size_t c, unsigned long long *n_checked,
             unsigned long long *n_bad, bool *linux_bridge, struct ds *out)
{
    const struct fwd_options *opts = &fwd->opts;
    double floor_pps = fwd_median_pps(fwd, c, FWD_FLOOR_IDX, FWD_STATELESS);
    double ovs_xdp_pps = fwd_median_pps(fwd, c, FWD_OVS_XDP_IDX,
                                        FWD_STATELESS);

    if (opts->n_cpu_counts > 1 || opts->cpu_counts[c] > 1) {
        ds_put_format(out, "With %u generator%s (CPU", opts->cpu_counts[c],
                      opts->cpu_counts[c] > 1 ? "s" : "");
        for (size_t k = 0; k < opts->cpu_counts[c]; k++) {
            ds_put_format(out, "%s%d", k ? "," : (opts->cpu_counts[c] > 1
                                                   ? "s " : " "),
                          opts->gen_cpus[k]);
        }
        ds_put_cstr(out, "):\n");
    }
    ds_put_format(out, "%-15s %-14s %7s %13s %7s %10s %7s %9s %8s\n",
                  "switch", "pipeline", "Mpps", "min-max", "offered",
                  "CPU s/Mpkt", "x floor", "x ovs-xdp", "xdp/this");
    for (size_t i = 0; i < FWD_N_SWITCHES; i++) {
        for (size_t p = 0; p < FWD_N_PIPELINES; p++) {
            const struct fwd_result *r = &fwd->results[c][i][p];

            if (!r->selected) {
                continue;
            }
            *linux_bridge |= fwd_switches[i].kind == FWD_LINUX_BRIDGE;
            *n_checked += r->n_checked;
            *n_bad += r->n_bad;
            ds_put_format(out, "%-15s %-14s", fwd_switches[i].name,
                          fwd_pipeline_label(i, p));
            if (r->n) {
                double pps = bench_median(r->pps, r->n);
                double cpu = bench_median(r->cpu, r->n);
                char *range = xasprintf("%.3f-%.3f",
                                        bench_min(r->pps, r->n) / 1e6,
                                        bench_max(r->pps, r->n) / 1e6);

                ds_put_format(out, " %7.3f %13s %7.3f", pps / 1e6, range,
                              bench_median(r->offered, r->n) / 1e6);
                if (isnan(cpu)) {
                    ds_put_format(out, " %10s", "-");
                } else {
                    ds_put_format(out, " %10.3f", cpu);
                }
                fwd_put_ratio(out, 7, pps, floor_pps);
                fwd_put_ratio(out, 9, pps, ovs_xdp_pps);
                fwd_put_ratio(out, 8,
                              fwd_switches[i].kind == FWD_FLOOR ? 0
                              : fwd_median_pps(fwd, c, FWD_OVS_XDP_IDX, p),
                              pps);
                free(range);
            }
            if (r->skipped) {
                ds_put_format(out, "%sskipped: %s", r->n ? "  " : " ",
                              r->skipped);
            }
            ds_put_char(out, '\n');
        }
    }

    ds_put_char(out, '\n');
    for (size_t p = 0; p < FWD_N_PIPELINES; p++) {
        if (p != FWD_STATELESS && opts->pipelines[p]) {
            fwd_put_summary(fwd, c, p, out);
        }
    }
}

/* Appends to 'notes' the notes of switch 'i' with the generators of count
 * number 'c', in every pipeline, but a note that is the same as
 * '*last_note', the switch's last one (which this updates). */
static void
fwd_put_notes(const struct fwd *fwd, size_t c, size_t i,
              const char **last_note, struct ds *notes)
{
    const struct fwd_options *opts = &fwd->opts;

    for (size_t p = 0; p < FWD_N_PIPELINES; p++) {
        const struct fwd_result *r = &fwd->results[c][i][p];
        bool new_note;

        if (!r->selected) {
            continue;
        }
        /* A switch's note is the same in every pipeline, mostly. */
        new_note = r->note && (!*last_note || strcmp(r->note, *last_note));
        if (!new_note && !r->state_note && !r->n_bad) {
            continue;
        }
        ds_put_format(notes, "  %s %s", fwd_switches[i].name,
                      fwd_pipeline_label(i, p));
        if (opts->n_cpu_counts > 1) {
            ds_put_format(notes, ", %u CPU%s", opts->cpu_counts[c],
                          opts->cpu_counts[c] > 1 ? "s" : "");
        }
        ds_put_cstr(notes, ":\n");
        if (new_note) {
            fwd_put_indented(notes, 4, r->note);
            *last_note = r->note;
        }
        if (r->state_note) {
            fwd_put_indented(notes, 4, r->state_note);
        }
        if (r->n_bad) {
            ds_put_format(notes, "    sink check: %llu of %llu frames "
                          "with a wrong destination address,\n    IPv4 "
                          "checksum or UDP checksum\n",
                          r->n_bad, r->n_checked);
        }
    }
}

void
fwd_print_table(const struct fwd *fwd)
{
    const struct fwd_options *opts = &fwd->opts;
    unsigned long long n_checked = 0, n_bad = 0;
    struct ds out = DS_EMPTY_INITIALIZER;
    bool linux_bridge = false;
    struct utsname uts;

    uname(&uts);
    ds_put_format(&out, "ovs-xdp-bench forward: %d-byte UDP frames, "
                  "%u flow%s, %d run%s of %g s per switch and pipeline "
                  "(after %g s warm-up), alternating\n",
                  FWD_FRAME_SIZE, opts->n_flows, opts->n_flows > 1 ? "s" : "",
                  opts->runs, opts->runs > 1 ? "s" : "", opts->duration,
                  opts->warmup);
    if (opts->mflow.n_megaflows) {
        ds_put_format(&out, "flow table: one OpenFlow rule per flow (UDP "
                      "source port), spread for %u megaflow mask%s\n",
                      opts->mflow.n_masks, opts->mflow.n_masks > 1 ? "s" : "");
    }
    ds_put_format(&out, "sink: %s\n", (opts->stack_sink
                                         ? "a veth end without XDP, counted "
                                         "at its TC ingress hook (a "
                                         "container's stack); the floor "
                                         "is a bare TC program, "
                                         "bpf_redirect_peer() into it"
                                         : "XDP on the far veth end"));
    if (fwd_cpus_max(opts) > 1) {
        ds_put_format(&out, "generators: BPF_PROG_TEST_RUN live frames, "
                      "one per CPU, the flows divided\namong them (batch "
                      "%u); veths with %u queues; %ld CPUs online; Linux "
                      "%s\n\n", opts->batch_size, fwd_cpus_max(opts),
                      sysconf(_SC_NPROCESSORS_ONLN), uts.release);
    } else {
        ds_put_format(&out, "generator: BPF_PROG_TEST_RUN live frames on CPU "
                      "%d (batch %u); %ld CPUs online; Linux %s\n\n",
                      opts->gen_cpus[0], opts->batch_size,
                      sysconf(_SC_NPROCESSORS_ONLN), uts.release);
    }
    for (size_t c = 0; c < opts->n_cpu_counts; c++) {
        fwd_put_rows(fwd, c, &n_checked, &n_bad, &linux_bridge, &out);
    }
    fwd_cpus_put_table(fwd, &out);
    ds_put_format(&out, "\nMpps: frames per second counted at the sink, "
                  "median of the runs (min-max);\noffered: frames per "
                  "second the generators sent; CPU s/Mpkt: busy CPU seconds\n"
                  "of all CPUs (/proc/stat, the generator's included) per "
                  "million frames at\nthe sink; x floor, x ovs-xdp: this "
                  "row's median over the floor's and over\novs-xdp's "
                  "stateless one; xdp/this: ovs-xdp's median in the same "
                  "pipeline\nover this row's.\n");
    ds_put_cstr(&out, "Switches:\n");
    for (size_t i = 0; i < FWD_N_SWITCHES; i++) {
        if (opts->switches[i]) {
            ds_put_format(&out, "  %-15s %s\n", fwd_switches[i].name,
                          fwd_switches[i].description);
        }
    }
    ds_put_cstr(&out, "Pipelines:\n");
    for (size_t p = 0; p < FWD_N_PIPELINES; p++) {
        if (opts->pipelines[p]) {
            /* The first line after the name, the others under it. */
            const char *d = fwd_pipeline_descriptions[p];
            const char *nl = strchr(d, '\n');

            ds_put_format(&out, "  %-15s %.*s\n", fwd_pipeline_names[p],
                          nl ? (int) (nl - d) : (int) strlen(d), d);
            if (nl) {
                fwd_put_indented(&out, 18, nl + 1);
            }
        }
    }
    struct ds notes = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < FWD_N_SWITCHES; i++) {
        const char *last_note = NULL;

        for (size_t c = 0; c < opts->n_cpu_counts; c++) {
            fwd_put_notes(fwd, c, i, &last_note, &notes);
        }
    }
    if (notes.length) {
        ds_put_format(&out, "Notes:\n%s", ds_cstr(&notes));
    }
    ds_destroy(&notes);
    if (n_checked && !n_bad) {
        bool encap = (fwd->opts.pipelines[FWD_VXLAN_ENCAP]
                      || fwd->opts.pipelines[FWD_GENEVE_ENCAP]);

        ds_put_format(&out, "Sink check, %g s after each measurement: all "
                      "%llu frames checked were\nto %s%s, with right IPv4 "
                      "checksums and the generator's zero UDP checksum.\n",
                      FWD_CHECK_TIME, n_checked, FWD_SINK_IP,
                      encap ? " (encapsulated ones to " FWD_TNL_REMOTE_IP ")"
                      : "");
    }

    if (linux_bridge && bench_bridge_nf_call_iptables()) {
        ds_put_format(&out, "Note: br_netfilter is loaded with "
                      "net.bridge.bridge-nf-call-iptables=1: bridged IPv4 "
                      "frames also\ntraverse iptables, which slows the Linux "
                      "bridge.\n");
    }
    fputs(ds_cstr(&out), stdout);
    fflush(stdout);
    ds_destroy(&out);
}

static struct json *
fwd_json_array(const double *values, size_t n)
{
    struct json *array = json_array_create_empty();

    for (size_t i = 0; i < n; i++) {
        json_array_add(array, isnan(values[i]) ? json_null_create()
                                               : json_real_create(values[i]));
    }
    return array;
}

/* Returns a JSON number for 'a' / 'b', or null if either is 0. */
static struct json *
fwd_json_ratio(double a, double b)
{
    return a > 0 && b > 0 ? json_real_create(a / b) : json_null_create();
}

/* Returns the JSON object of the results of switch 'i' in pipeline 'p'
 * with the generators of count number 'c'. */
static struct json *
fwd_json_result(const struct fwd *fwd, size_t c, size_t i,
                enum fwd_pipeline p)
{
    const struct fwd_result *r = &fwd->results[c][i][p];
    double floor_pps = fwd_median_pps(fwd, c, FWD_FLOOR_IDX, FWD_STATELESS);
    double ovs_xdp_pps = fwd_median_pps(fwd, c, FWD_OVS_XDP_IDX,
                                        FWD_STATELESS);
    struct json *sw = json_object_create();
    struct json *frames;

    json_object_put_string(sw, "name", fwd_switches[i].name);
    json_object_put(sw, "pipeline",
                    fwd_switches[i].kind == FWD_FLOOR
                    ? json_null_create()
                    : json_string_create(fwd_pipeline_names[p]));
    json_object_put(sw, "generators",
                    json_integer_create(fwd->opts.cpu_counts[c]));
    json_object_put_string(sw, "description", fwd_switches[i].description);
    json_object_put(sw, "skipped", r->skipped
                    ? json_string_create(r->skipped)
                    : json_null_create());
    json_object_put(sw, "note", r->note
                    ? json_string_create(r->note)
                    : json_null_create());
    json_object_put(sw, "state_note", r->state_note
                    ? json_string_create(r->state_note)
                    : json_null_create());
    json_object_put(sw, "pps", fwd_json_array(r->pps, r->n));
    json_object_put(sw, "offered_pps", fwd_json_array(r->offered, r->n));
    json_object_put(sw, "cpu_s_per_mpkt", fwd_json_array(r->cpu, r->n));

    frames = json_array_create_empty();
    for (size_t j = 0; j < r->n; j++) {
        json_array_add(frames, json_integer_create(r->frames[j]));
    }
    json_object_put(sw, "sink_frames", frames);
    json_object_put(sw, "sink_checked", json_integer_create(r->n_checked));
    json_object_put(sw, "sink_bad", json_integer_create(r->n_bad));

    if (r->n) {
        double pps = bench_median(r->pps, r->n);
        double cpu = bench_median(r->cpu, r->n);
        double scaling = fwd_cpus_scaling(fwd, c, i, p);
        double floor_scaling = fwd_cpus_scaling(fwd, c, FWD_FLOOR_IDX,
                                                FWD_STATELESS);

        json_object_put(sw, "pps_median", json_real_create(pps));
        json_object_put(sw, "pps_min",
                        json_real_create(bench_min(r->pps, r->n)));
        json_object_put(sw, "pps_max",
                        json_real_create(bench_max(r->pps, r->n)));
        json_object_put(sw, "cpu_s_per_mpkt_median", isnan(cpu)
                        ? json_null_create() : json_real_create(cpu));
        json_object_put(sw, "ratio_to_floor",
                        fwd_json_ratio(pps, floor_pps));
        json_object_put(sw, "ratio_to_ovs_xdp",
                        fwd_json_ratio(pps, ovs_xdp_pps));
        json_object_put(sw, "ovs_xdp_same_pipeline_ratio",
                        fwd_json_ratio(
                            fwd_switches[i].kind == FWD_FLOOR ? 0
                            : fwd_median_pps(fwd, c, FWD_OVS_XDP_IDX, p),
                            pps));
        json_object_put(sw, "scaling", scaling > 0
                        ? json_real_create(scaling) : json_null_create());
        json_object_put(sw, "scaling_of_floor",
                        fwd_json_ratio(scaling, floor_scaling));
    }
    return sw;
}

void
fwd_write_json(const struct fwd *fwd)
{
    const struct fwd_options *opts = &fwd->opts;
    struct json *top = json_object_create();
    struct json *switches = json_array_create_empty();
    struct json *pipelines = json_array_create_empty();
    struct json *gen_cpus = json_array_create_empty();
    struct json *counts = json_array_create_empty();
    struct utsname uts;

    uname(&uts);
    json_object_put_string(top, "mode", "forward");
    json_object_put(top, "frame_size", json_integer_create(FWD_FRAME_SIZE));
    json_object_put(top, "flows", json_integer_create(opts->n_flows));
    json_object_put(top, "megaflows", json_integer_create(opts->mflow.n_megaflows));
    json_object_put(top, "masks", json_integer_create(opts->mflow.n_masks));
    json_object_put(top, "duration", json_real_create(opts->duration));
    json_object_put(top, "warmup", json_real_create(opts->warmup));
    json_object_put(top, "runs", json_integer_create(opts->runs));
    json_object_put(top, "generator_cpu",
                    json_integer_create(opts->gen_cpus[0]));
    for (size_t k = 0; k < fwd_cpus_max(opts); k++) {
        json_array_add(gen_cpus, json_integer_create(opts->gen_cpus[k]));
    }
    json_object_put(top, "generator_cpus", gen_cpus);
    for (size_t c = 0; c < opts->n_cpu_counts; c++) {
        json_array_add(counts, json_integer_create(opts->cpu_counts[c]));
    }
    json_object_put(top, "generator_counts", counts);
    json_object_put(top, "batch_size",
                    json_integer_create(opts->batch_size));
    json_object_put(top, "cpus",
                    json_integer_create(sysconf(_SC_NPROCESSORS_ONLN)));
    json_object_put_string(top, "kernel", uts.release);
    for (size_t p = 0; p < FWD_N_PIPELINES; p++) {
        if (opts->pipelines[p]) {
            json_array_add(pipelines,
                           json_string_create(fwd_pipeline_names[p]));
        }
    }
    json_object_put(top, "pipelines", pipelines);

    for (size_t c = 0; c < opts->n_cpu_counts; c++) {
        for (size_t i = 0; i < FWD_N_SWITCHES; i++) {
            for (size_t p = 0; p < FWD_N_PIPELINES; p++) {
                if (fwd->results[c][i][p].selected) {
                    json_array_add(switches, fwd_json_result(fwd, c, i, p));
                }
            }
        }
    }
    json_object_put(top, "switches", switches);

    bench_write_json(top, opts->ovs.json_file);
}

/* Draws the medians and spreads as a bar chart in --plot's file, with
 * gnuplot, or says why not. */
void
fwd_plot(const struct fwd *fwd)
{
    const char *file = fwd->opts.plot_file;
    char *gnuplot = bench_find_program("gnuplot");
    char dir_template[] = "/tmp/" BENCH_PREFIX "-plot.XXXXXX";
    struct ds output = DS_EMPTY_INITIALIZER;
    char *data, *script;
    FILE *stream;
    int status;

    if (!gnuplot) {
        ovs_error(0, "--plot: gnuplot is not installed (Debian package "
                  "gnuplot-nox), so %s was not drawn", file);
        return;
    }
    if (!mkdtemp(dir_template)) {
        ovs_error(errno, "--plot: cannot create a temporary directory");
        free(gnuplot);
        return;
    }
    data = xasprintf("%s/data", dir_template);
    script = xasprintf("%s/plot.gp", dir_template);

    stream = fopen(data, "w");
    for (size_t c = 0; stream && c < fwd->opts.n_cpu_counts; c++) {
        char *cpus = (fwd->opts.n_cpu_counts > 1
                      ? xasprintf("@%u", fwd->opts.cpu_counts[c])
                      : xstrdup(""));

        for (size_t i = 0; i < FWD_N_SWITCHES; i++) {
            for (size_t p = 0; p < FWD_N_PIPELINES; p++) {
                const struct fwd_result *r = &fwd->results[c][i][p];

                if (!r->selected || !r->n) {
                    continue;
                }
                fprintf(stream, "%s%s%s%s %.4f %.4f %.4f\n",
                        fwd_switches[i].name,
                        p == FWD_STATELESS ? "" : ":",
                        p == FWD_STATELESS ? "" : fwd_pipeline_names[p],
                        cpus, bench_median(r->pps, r->n) / 1e6,
                        bench_min(r->pps, r->n) / 1e6,
                        bench_max(r->pps, r->n) / 1e6);
            }
        }
        free(cpus);
    }
    if (stream) {
        fclose(stream);
    }
    stream = fopen(script, "w");
    if (stream) {
        fprintf(stream,
                "set terminal png size 900,520\n"
                "set output '%s'\n"
                "set title 'ovs-xdp-bench forward: %d-byte frames, %u "
                "flow(s), median and min-max of %d run(s)'\n"
                "set ylabel 'Mpps at the sink'\n"
                "set yrange [0:*]\n"
                "set style data histograms\n"
                "set style histogram errorbars gap 1 lw 1\n"
                "set style fill solid 0.6 border -1\n"
                "set boxwidth 0.8\n"
                "set xtics rotate by -25\n"
                "unset key\n"
                "plot '%s' using 2:3:4:xtic(1) linecolor rgb '#3366aa'\n",
                file, FWD_FRAME_SIZE, fwd->opts.n_flows, fwd->opts.runs,
                data);
        fclose(stream);
    }
    status = bench_run(&output, "'%s' '%s'", gnuplot, script);
    if (status) {
        struct ds why = DS_EMPTY_INITIALIZER;

        bench_explain(&why, "gnuplot", status, &output);
        ovs_error(0, "--plot: %s", ds_cstr(&why));
        ds_destroy(&why);
    } else {
        fprintf(stderr, "%s: chart written to %s\n", program_name, file);
    }
    bench_run(NULL, "rm -rf %s", dir_template);
    ds_destroy(&output);
    free(data);
    free(script);
    free(gnuplot);
}
