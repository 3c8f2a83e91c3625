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

/* ovs-xdp-bench storm: the results (see bench-storm.c for the benchmark
 * as a whole).  Three tables, each a row per switch and phase (the
 * established stream and the control plane; new flows on the other
 * ports; the storm and its upcalls), a summary per switch, a legend, and
 * with --json the same figures with every probe's duration, memory and
 * flow count. */

#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "util.h"
#include "utilities/bench-storm.h"

/* Established datagrams of phase 'p' that never arrived. */
long long
storm_lost(const struct storm_phase_result *p)
{
    return (long long) p->sent - (long long) p->received;
}

/* Prints 'value' / 'seconds' as "%*.0f" into 'out', or "-" if 'value' is
 * unknown (negative). */
static void
storm_put_rate(struct ds *out, int width, long long value, double seconds)
{
    if (value < 0 || !(seconds > 0)) {
        ds_put_format(out, " %*s", width, "-");
    } else {
        ds_put_format(out, " %*.0f", width, value / seconds);
    }
}

static void
storm_put_ll(struct ds *out, int width, long long value)
{
    if (value < 0) {
        ds_put_format(out, " %*s", width, "-");
    } else {
        ds_put_format(out, " %*lld", width, value);
    }
}

static void
storm_put_mb(struct ds *out, int width, long long kb)
{
    if (kb < 0) {
        ds_put_format(out, " %*s", width, "-");
    } else {
        ds_put_format(out, " %*.1f", width, kb / 1024.0);
    }
}

/* Appends to 'out' one line that sums up switch 'idx''s storm: established
 * loss, appctl latency against the quiet phase's, refused upcalls and
 * memory. */
static void
storm_put_summary(const struct storm *st, size_t idx, struct ds *out)
{
    const struct storm_result *r = &st->results[idx];
    const struct storm_phase_result *q = &r->phases[STORM_QUIET];
    const struct storm_phase_result *s = &r->phases[STORM_STORM];
    const struct storm_phase_result *a = &r->phases[STORM_AFTER];

    ds_put_format(out, "%s: during the storm (%.2f Mpps offered), %lld of "
                  "%llu established datagrams lost",
                  storm_switches[idx].name, s->offered / s->seconds / 1e6,
                  storm_lost(s), s->sent);
    if (s->offered) {
        ds_put_format(out, "\n  (the storm's CPU %d: %.0f%% busy, %.0f%% in "
                      "its thread, %.0f%% in softirq)", st->opts.cpu,
                      100 * s->cpu_busy, 100 * s->gen_cpu / s->seconds,
                      100 * s->cpu_softirq);
    }
    if (s->sock_drops) {
        ds_put_format(out, " (%llu by the receiver's socket)",
                      s->sock_drops);
    }
    if (r->lost_ranges) {
        ds_put_format(out, ";\n  the run's lost datagrams, by when they "
                      "were sent (UTC): %s", r->lost_ranges);
    }
    ds_put_format(out, ";\n  %llu of %llu new flows' first frames from "
                  "another port arrived", s->nf_received, s->nf_sent);
    ds_put_format(out, ";\n  ovs-appctl answered %zu of %zu, median %.1f ms, "
                  "max %.1f ms (quiet: %.1f, %.1f)",
                  s->n_answered, s->n_probes,
                  bench_median(s->latency, s->n_probes) * 1e3,
                  bench_max(s->latency, s->n_probes) * 1e3,
                  bench_median(q->latency, q->n_probes) * 1e3,
                  bench_max(q->latency, q->n_probes) * 1e3);
    if (s->delta.missed > 0 && s->delta.refused >= 0) {
        ds_put_format(out, ";\n  %.1f%% of the misses refused (%.0f/s), "
                      "%.0f upcalls/s handled",
                      100.0 * s->delta.refused / s->delta.missed,
                      s->delta.refused / s->seconds,
                      MAX(s->delta.handled, 0) / s->seconds);
    }
    if (q->rss_end >= 0 && s->rss_max >= 0 && a->rss_end >= 0) {
        ds_put_format(out, ";\n  ovs-vswitchd RSS %.1f MB before, %.1f MB "
                      "at most during, %.1f MB after (%+.1f MB)",
                      q->rss_end / 1024.0, s->rss_max / 1024.0,
                      a->rss_end / 1024.0,
                      (a->rss_end - q->rss_end) / 1024.0);
    }
    ds_put_cstr(out, ".\n");
}

void
storm_print(const struct storm *st)
{
    const struct storm_options *opts = &st->opts;
    struct ds out = DS_EMPTY_INITIALIZER;
    struct utsname uts;

    uname(&uts);
    ds_put_format(&out, "ovs-xdp-bench storm: phases of %g s (after %g s "
                  "warm-up), established stream %u datagrams/s,\n"
                  "ovs-appctl every %g s; storm: %d-byte frames, a new "
                  "source MAC and UDP port each, on CPU %d\n(batch %u); "
                  "ovs-xdp upcall budget: ",
                  opts->seconds, opts->warmup, opts->rate, opts->interval,
                  FWD_FRAME_SIZE, opts->cpu, opts->batch_size);
    if (opts->burst < 0) {
        ds_put_cstr(&out, "the datapath's default");
    } else if (!opts->burst) {
        ds_put_cstr(&out, "none (xdp-upcall-burst=0)");
    } else {
        ds_put_format(&out, "xdp-upcall-burst=%d per port per CPU per 10 ms",
                      opts->burst);
    }
    ds_put_format(&out, "; %ld CPUs online; Linux %s\n\n",
                  sysconf(_SC_NPROCESSORS_ONLN), uts.release);

    ds_put_cstr(&out, "Established stream and control plane:\n");
    ds_put_format(&out, "%-11s %-6s %8s %8s %6s %3s %6s %6s %8s %5s %7s "
                  "%6s %6s\n", "switch", "phase", "sent", "received", "lost",
                  "dup", "sockdr", "hostdr", "xdp-fwd", "%xdp", "appctl",
                  "med ms", "max ms");
    for (size_t i = 0; i < STORM_N_SWITCHES; i++) {
        const struct storm_result *r = &st->results[i];

        if (!r->selected) {
            continue;
        }
        if (!r->measured) {
            ds_put_format(&out, "%-11s skipped: %s\n", storm_switches[i].name,
                          r->skipped ? r->skipped : "not measured");
            continue;
        }
        for (size_t p = STORM_QUIET; p < STORM_N_PHASES; p++) {
            const struct storm_phase_result *pr = &r->phases[p];
            char *answered = xasprintf("%zu/%zu", pr->n_answered,
                                       pr->n_probes);

            ds_put_format(&out, "%-11s %-6s %8llu %8llu %6lld %3llu %6llu",
                          storm_switches[i].name, storm_phase_names[p],
                          pr->sent, pr->received, storm_lost(pr), pr->dups,
                          pr->sock_drops);
            storm_put_ll(&out, 6, pr->host_drops);
            storm_put_ll(&out, 8, pr->delta.forwarded);
            if (pr->delta.forwarded >= 0 && pr->delta.stream_sent > 0) {
                ds_put_format(&out, " %5.1f", 100.0 * pr->delta.forwarded
                              / pr->delta.stream_sent);
            } else {
                ds_put_format(&out, " %5s", "-");
            }
            ds_put_format(&out, " %7s %6.1f %6.1f\n", answered,
                          bench_median(pr->latency, pr->n_probes) * 1e3,
                          bench_max(pr->latency, pr->n_probes) * 1e3);
            free(answered);
        }
    }

    ds_put_format(&out, "\nNew flows on other ports: a frame from a new "
                  "source MAC every %g s, switched\non the storm's CPU, from "
                  "the receiver's port to the sender's:\n", opts->interval);
    ds_put_format(&out, "%-11s %-6s %6s %8s %7s %7s\n", "switch", "phase",
                  "sent", "received", "med ms", "max ms");
    for (size_t i = 0; i < STORM_N_SWITCHES; i++) {
        const struct storm_result *r = &st->results[i];

        if (!r->selected || !r->measured) {
            continue;
        }
        for (size_t p = STORM_QUIET; p < STORM_N_PHASES; p++) {
            const struct storm_phase_result *pr = &r->phases[p];

            ds_put_format(&out, "%-11s %-6s %6llu %8llu",
                          storm_switches[i].name, storm_phase_names[p],
                          pr->nf_sent, pr->nf_received);
            if (pr->nf_received) {
                ds_put_format(&out, " %7.2f %7.2f\n",
                              bench_median(pr->nf_latency,
                                           pr->nf_received) * 1e3,
                              bench_max(pr->nf_latency,
                                        pr->nf_received) * 1e3);
            } else {
                ds_put_format(&out, " %7s %7s\n", "-", "-");
            }
        }
    }

    ds_put_cstr(&out, "\nStorm and upcalls (per second, but flows and "
                "RSS):\n");
    ds_put_format(&out, "%-11s %-6s %8s %8s %8s %8s %8s %7s %7s %7s %6s "
                  "%6s\n", "switch", "phase", "offered", "deliv", "missed",
                  "refused", "handled", "lost", "flows", "limit", "RSS",
                  "RSSmax");
    for (size_t i = 0; i < STORM_N_SWITCHES; i++) {
        const struct storm_result *r = &st->results[i];

        if (!r->selected || !r->measured) {
            continue;
        }
        for (size_t p = STORM_QUIET; p < STORM_N_PHASES; p++) {
            const struct storm_phase_result *pr = &r->phases[p];

            ds_put_format(&out, "%-11s %-6s", storm_switches[i].name,
                          storm_phase_names[p]);
            storm_put_rate(&out, 8, pr->offered, pr->seconds);
            storm_put_rate(&out, 8, pr->delivered, pr->seconds);
            storm_put_rate(&out, 8, pr->delta.missed, pr->seconds);
            storm_put_rate(&out, 8, pr->delta.refused, pr->seconds);
            storm_put_rate(&out, 8, pr->delta.handled, pr->seconds);
            storm_put_rate(&out, 7, pr->delta.lost, pr->seconds);
            storm_put_ll(&out, 7, pr->flows_max);
            storm_put_ll(&out, 7, pr->limit_min);
            storm_put_mb(&out, 6, pr->rss_end);
            storm_put_mb(&out, 6, pr->rss_max);
            ds_put_char(&out, '\n');
        }
    }

    ds_put_char(&out, '\n');
    for (size_t i = 0; i < STORM_N_SWITCHES; i++) {
        if (st->results[i].measured) {
            storm_put_summary(st, i, &out);
        }
    }

    ds_put_cstr(&out, "\n\
sent, received, lost, dup: established datagrams sent in the phase,\n\
received (once), never received, received again; sockdr: of the lost,\n\
dropped by the receiver's own socket (SO_RXQ_OVFL), not by the switch;\n\
hostdr: drops the kernel counted on the stream's four veth ends and in\n\
the CPUs' backlogs (softnet_stat: machine-wide, other traffic's too);\n\
xdp-fwd: growth of xdp-forwarded, frames that only XDP forwards (the\n\
stream and 20 learning frames a second); %xdp: that over the datagrams\n\
sent between the two reads of the counter; appctl: ovs-appctl\n\
upcall/show runs answered, their median and max duration, process\n\
start included.\n\
offered: storm frames sent; deliv: storm frames at the sink; missed:\n\
misses sent up or refused (ovs-xdp: xdp-missed; ovs-system: misses with\n\
a successful or failed upcall); refused: by ovs-xdp's per-port upcall\n\
budget (xdp-upcall-limited, the frames dropped), or ovs-system's failed\n\
upcalls (its flow limit's refusals, frames forwarded without a flow,\n\
among them); handled: upcalls ovs-vswitchd handled (ovs-miss-upcall;\n\
success upcalls); lost: upcalls lost otherwise (xdp-upcall-lost beyond\n\
the budget's, ovs-upcall-lost); flows, limit: most datapath flows and\n\
least flow limit upcall/show told; RSS, RSSmax: ovs-vswitchd's VmRSS at\n\
the end of the phase and at most, MB.\n");
    ds_put_cstr(&out, "Switches:\n");
    for (size_t i = 0; i < STORM_N_SWITCHES; i++) {
        if (opts->switches[i]) {
            ds_put_format(&out, "  %-11s %s\n", storm_switches[i].name,
                          storm_switches[i].description);
        }
    }
    fputs(ds_cstr(&out), stdout);
    fflush(stdout);
    ds_destroy(&out);
}

static struct json *
storm_json_ll(long long value)
{
    return value < 0 ? json_null_create() : json_integer_create(value);
}

void
storm_write_json(const struct storm *st)
{
    const struct storm_options *opts = &st->opts;
    struct json *top = json_object_create();
    struct json *switches = json_array_create_empty();
    struct utsname uts;

    uname(&uts);
    json_object_put_string(top, "mode", "storm");
    json_object_put(top, "seconds", json_real_create(opts->seconds));
    json_object_put(top, "warmup", json_real_create(opts->warmup));
    json_object_put(top, "interval", json_real_create(opts->interval));
    json_object_put(top, "rate", json_integer_create(opts->rate));
    json_object_put(top, "burst", opts->burst < 0 ? json_null_create()
                    : json_integer_create(opts->burst));
    json_object_put(top, "generator_cpu", json_integer_create(opts->cpu));
    json_object_put(top, "cpus",
                    json_integer_create(sysconf(_SC_NPROCESSORS_ONLN)));
    json_object_put_string(top, "kernel", uts.release);

    for (size_t i = 0; i < STORM_N_SWITCHES; i++) {
        const struct storm_result *r = &st->results[i];
        struct json *sw, *phases;

        if (!r->selected) {
            continue;
        }
        sw = json_object_create();
        json_object_put_string(sw, "name", storm_switches[i].name);
        json_object_put_string(sw, "description",
                               storm_switches[i].description);
        json_object_put(sw, "skipped", r->skipped
                        ? json_string_create(r->skipped)
                        : json_null_create());
        json_object_put(sw, "lost_ranges", r->lost_ranges
                        ? json_string_create(r->lost_ranges)
                        : json_null_create());
        phases = json_object_create();
        for (size_t p = STORM_QUIET; r->measured && p < STORM_N_PHASES;
             p++) {
            const struct storm_phase_result *pr = &r->phases[p];
            struct json *j = json_object_create();
            struct json *lat = json_array_create_empty();

            json_object_put(j, "seconds", json_real_create(pr->seconds));
            json_object_put(j, "sent", json_integer_create(pr->sent));
            json_object_put(j, "send_errors",
                            json_integer_create(pr->send_errors));
            json_object_put(j, "received",
                            json_integer_create(pr->received));
            json_object_put(j, "lost", json_integer_create(storm_lost(pr)));
            json_object_put(j, "duplicates", json_integer_create(pr->dups));
            json_object_put(j, "socket_drops",
                            json_integer_create(pr->sock_drops));
            json_object_put(j, "host_drops", storm_json_ll(pr->host_drops));
            json_object_put(j, "storm_offered",
                            json_integer_create(pr->offered));
            json_object_put(j, "storm_delivered",
                            json_integer_create(pr->delivered));
            json_object_put(j, "storm_thread_cpu_seconds",
                            json_real_create(pr->gen_cpu));
            json_object_put(j, "storm_cpu_busy",
                            json_real_create(pr->cpu_busy));
            json_object_put(j, "storm_cpu_softirq",
                            json_real_create(pr->cpu_softirq));
            json_object_put(j, "missed", storm_json_ll(pr->delta.missed));
            json_object_put(j, "refused", storm_json_ll(pr->delta.refused));
            json_object_put(j, "handled", storm_json_ll(pr->delta.handled));
            json_object_put(j, "upcalls_lost",
                            storm_json_ll(pr->delta.lost));
            json_object_put(j, "xdp_forwarded",
                            storm_json_ll(pr->delta.forwarded));
            json_object_put(j, "sent_between_counter_reads",
                            json_real_create(pr->delta.stream_sent));
            for (size_t k = 0; k < pr->n_probes; k++) {
                json_array_add(lat, json_real_create(pr->latency[k]));
            }
            json_object_put(j, "appctl_seconds", lat);
            json_object_put(j, "new_flows_sent",
                            json_integer_create(pr->nf_sent));
            lat = json_array_create_empty();
            for (size_t k = 0; k < pr->nf_received; k++) {
                json_array_add(lat, json_real_create(pr->nf_latency[k]));
            }
            json_object_put(j, "new_flow_seconds", lat);
            lat = json_array_create_empty();
            for (size_t k = 0; k < pr->n_probes; k++) {
                json_array_add(lat, storm_json_ll(pr->rss[k]));
            }
            json_object_put(j, "rss_kb", lat);
            lat = json_array_create_empty();
            for (size_t k = 0; k < pr->n_probes; k++) {
                json_array_add(lat, storm_json_ll(pr->flows[k]));
            }
            json_object_put(j, "flows", lat);
            json_object_put(j, "appctl_answered",
                            json_integer_create(pr->n_answered));
            json_object_put(j, "flows_max", storm_json_ll(pr->flows_max));
            json_object_put(j, "flow_limit_min",
                            storm_json_ll(pr->limit_min));
            json_object_put(j, "rss_kb_start", storm_json_ll(pr->rss_start));
            json_object_put(j, "rss_kb_max", storm_json_ll(pr->rss_max));
            json_object_put(j, "rss_kb_end", storm_json_ll(pr->rss_end));
            json_object_put(phases, storm_phase_names[p], j);
        }
        json_object_put(sw, "phases", phases);
        json_array_add(switches, sw);
    }
    json_object_put(top, "switches", switches);

    bench_write_json(top, opts->ovs.json_file);
}
