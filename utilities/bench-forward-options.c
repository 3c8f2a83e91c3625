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

/* ovs-xdp-bench forward: its options.
 *
 * fwd_parse_options() fills 'struct fwd_options' from the command line in
 * three steps: getopt_long() reads each option into its field (the lists
 * of --switches, --pipeline and --tunnel become arrays of flags indexed
 * like fwd_switches[] and the pipelines, --cpu and --cpus the generators'
 * CPUs through bench-forward-cpus.c); then the options that depend on
 * each other are checked together (--megaflows sets the number of flows
 * and allows only the stateless pipeline, --masks needs it, conntrack-setup
 * runs on one CPU) and the defaults that depend on the machine are filled
 * in; last, fwd_select_results() marks the results that the run will
 * measure, and as skipped, with the reason, those that a switch cannot
 * run (fwd_pipeline_unsupported(), fwd_cpus_unsupported()), so that the
 * measuring loop and the report only read the 'selected' and 'skipped'
 * fields.  A wrong option is fatal, before anything is set up. */

#include <config.h>

#include "utilities/bench-forward.h"

#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command-line.h"
#include "util.h"
#include "utilities/bench-common.h"

static void
fwd_usage(void)
{
    printf("\
%s forward: packets per second through ovs-xdp and the alternatives\n\
usage: %s forward [OPTION]...\n\
\n\
Sends a stream of 64-byte UDP frames (BPF_PROG_TEST_RUN live frames, one\n\
CPU, or several with --cpus) through each switch in turn, between two\n\
network namespaces, and counts them with XDP at the far end.  Needs root.\n\
\n\
Options:\n\
  --duration=SECONDS     measure each run this long (default 5)\n\
  --warmup=SECONDS       traffic before measuring (default 1)\n\
  --runs=N               runs per switch, alternating (default 3)\n\
  --flows=N              spread frames over N UDP source ports (default 1)\n\
  --switches=LIST        comma-separated, from: floor, ovs-xdp,\n\
                         ovs-xdp-normal, ovs-afxdp, ovs-system,\n\
                         linux-bridge (default: all)\n\
  --pipeline=LIST        comma-separated, from: stateless (forward by\n\
                         port), conntrack (a stateful firewall),\n\
                         conntrack-dnat (the same with destination NAT),\n\
                         sflow (stateless with sFlow at 1/64), meter\n\
                         (stateless through a meter), vxlan-encap,\n\
                         vxlan-decap, geneve-encap, geneve-decap\n\
                         (default: stateless)\n\
  --tunnel=LIST          vxlan, geneve or both: adds the tunnel's\n\
                         encap and decap pipelines\n\
  --cpu=N                run the generator on CPU N (default: the last)\n\
  --cpus=LIST            comma-separated numbers of CPUs (or \"all\"), each\n\
                         measured in every run: a generator on each of\n\
                         that many CPUs (--cpu's first, then from the\n\
                         highest down), the flows divided among them, and\n\
                         a scaling table over 1 CPU (default: 1)\n\
  --batch-size=N         frames per live-frames batch (default 64)\n\
  --vswitchd-xdp=PATH    ovs-vswitchd-xdp (default: the build tree's,\n\
                         or from $PATH)\n\
  --vswitchd=PATH        stock ovs-vswitchd (default:\n\
                         %s)\n\
  --json=FILE            also write the results to FILE\n\
  --plot=FILE.png        draw a bar chart with gnuplot, if installed\n\
  --megaflows=N          N OpenFlow rules, one per UDP source port, and\n\
                         the stream over all N (stateless pipeline)\n\
  --masks=M              spread the rules so that their megaflows have M\n\
                         masks (1 to 16, default 1)\n\
  --sink=xdp|stack       count at the sink with XDP (default), or at the\n\
                         TC hook of a veth end without XDP, as a\n\
                         container's stack receives (the floor is then\n\
                         bpf_redirect_peer() at TC ingress)\n\
  -h, --help             display this help message\n",
           program_name, program_name, BENCH_STOCK_VSWITCHD);
}

static const char *
fwd_switch_name(size_t i)
{
    return fwd_switches[i].name;
}

/* Parses --pipeline's comma-separated 'list' into 'opts->pipelines'. */
static void
fwd_parse_pipelines(struct fwd_options *opts, const char *list)
{
    char *copy = xstrdup(list);
    char *token, *save_ptr = NULL;
    bool any = false;

    memset(opts->pipelines, 0, sizeof opts->pipelines);
    for (token = strtok_r(copy, ",", &save_ptr); token;
         token = strtok_r(NULL, ",", &save_ptr)) {
        size_t i;

        for (i = 0; i < FWD_N_PIPELINES; i++) {
            if (!strcmp(token, fwd_pipeline_names[i])) {
                break;
            }
        }
        if (i >= FWD_N_PIPELINES) {
            ovs_fatal(0, "--pipeline: unknown pipeline \"%s\" (use --help)",
                      token);
        }
        opts->pipelines[i] = any = true;
    }
    free(copy);
    if (!any) {
        ovs_fatal(0, "--pipeline: no pipeline in \"%s\"", list);
    }
}

/* Parses --tunnel's comma-separated 'list' of tunnel types into
 * 'pipelines': both pipelines of each. */
static void
fwd_parse_tunnels(bool pipelines[FWD_N_PIPELINES], const char *list)
{
    char *copy = xstrdup(list);
    char *token, *save_ptr = NULL;

    for (token = strtok_r(copy, ",", &save_ptr); token;
         token = strtok_r(NULL, ",", &save_ptr)) {
        if (!strcmp(token, "vxlan")) {
            pipelines[FWD_VXLAN_ENCAP] = true;
            pipelines[FWD_VXLAN_DECAP] = true;
        } else if (!strcmp(token, "geneve")) {
            pipelines[FWD_GENEVE_ENCAP] = true;
            pipelines[FWD_GENEVE_DECAP] = true;
        } else {
            ovs_fatal(0, "--tunnel: unknown tunnel \"%s\" (vxlan or "
                      "geneve)", token);
        }
    }
    free(copy);
}

/* Marks the results that --switches, --pipeline and --cpus chose, and
 * those that cannot be measured as skipped. */
static void
fwd_select_results(struct fwd *fwd)
{
    for (size_t c = 0; c < fwd->opts.n_cpu_counts; c++) {
        for (size_t i = 0; i < FWD_N_SWITCHES; i++) {
            const struct fwd_switch *sw = &fwd_switches[i];
            const char *cpus_why = fwd_cpus_unsupported(
                sw, fwd->opts.cpu_counts[c]);

            for (size_t p = 0; p < FWD_N_PIPELINES; p++) {
                struct fwd_result *r = &fwd->results[c][i][p];
                const char *why;

                if (sw->kind == FWD_FLOOR) {
                    r->selected = (fwd->opts.switches[i]
                                   && p == FWD_STATELESS);
                    continue;
                }
                r->selected = (fwd->opts.switches[i]
                               && fwd->opts.pipelines[p]);
                why = fwd_pipeline_unsupported(sw, p);
                if (r->selected && (why || cpus_why)) {
                    r->skipped = xstrdup(why ? why : cpus_why);
                }
            }
        }
    }
}

void
fwd_parse_options(struct fwd *fwd, int argc, char *argv[])
{
    enum {
        OPT_DURATION = UCHAR_MAX + 1,
        OPT_WARMUP,
        OPT_RUNS,
        OPT_FLOWS,
        OPT_SWITCHES,
        OPT_PIPELINE,
        OPT_CPU,
        OPT_CPUS,
        OPT_BATCH_SIZE,
        OPT_PLOT,
        OPT_SINK,
        OPT_TUNNEL,
    };
    static const struct option long_options[] = {
        {"duration", required_argument, NULL, OPT_DURATION},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"runs", required_argument, NULL, OPT_RUNS},
        {"flows", required_argument, NULL, OPT_FLOWS},
        {"switches", required_argument, NULL, OPT_SWITCHES},
        {"pipeline", required_argument, NULL, OPT_PIPELINE},
        {"cpu", required_argument, NULL, OPT_CPU},
        {"cpus", required_argument, NULL, OPT_CPUS},
        {"batch-size", required_argument, NULL, OPT_BATCH_SIZE},
        BENCH_OVS_LONG_OPTIONS,
        {"plot", required_argument, NULL, OPT_PLOT},
        {"sink", required_argument, NULL, OPT_SINK},
        {"tunnel", required_argument, NULL, OPT_TUNNEL},
        BENCH_MEGAFLOW_LONG_OPTIONS,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char *short_options = ovs_cmdl_long_options_to_short_options(long_options);
    struct fwd_options *opts = &fwd->opts;
    bool tunnels[FWD_N_PIPELINES] = { false };
    const char *cpus = NULL;
    bool flows_set = false;
    int cpu = -1;

    opts->duration = 5;
    opts->warmup = 1;
    opts->runs = 3;
    opts->n_flows = 1;
    opts->batch_size = 64;
    for (size_t i = 0; i < FWD_N_SWITCHES; i++) {
        opts->switches[i] = true;
    }
    opts->pipelines[FWD_STATELESS] = true;

    for (;;) {
        int c = getopt_long(argc, argv, short_options, long_options, NULL);

        if (c == -1) {
            break;
        } else if (bench_ovs_parse_option(&opts->ovs, c, optarg)
                   || bench_megaflow_parse_option(&opts->mflow, c, optarg)) {
            continue;
        }
        switch (c) {
        case OPT_DURATION:
            opts->duration = bench_parse_seconds("--duration",
                                                 optarg, 0, 3600);
            break;
        case OPT_WARMUP:
            opts->warmup = bench_parse_seconds("--warmup", optarg, 0, 3600);
            break;
        case OPT_RUNS:
            opts->runs = bench_parse_count("--runs", optarg, 1, 100);
            break;
        case OPT_FLOWS:
            opts->n_flows = bench_parse_count("--flows", optarg, 1, 60000);
            flows_set = true;
            break;
        case OPT_SWITCHES:
            bench_select(optarg, fwd_switch_name, FWD_N_SWITCHES,
                         opts->switches);
            break;
        case OPT_PIPELINE:
            fwd_parse_pipelines(opts, optarg);
            break;
        case OPT_CPU:
            if (!str_to_int(optarg, 10, &cpu) || cpu < 0
                || cpu >= CPU_SETSIZE) {
                ovs_fatal(0, "--cpu: \"%s\" is not a CPU number", optarg);
            }
            break;
        case OPT_CPUS:
            cpus = optarg;
            break;
        case OPT_BATCH_SIZE:
            opts->batch_size = bench_parse_count("--batch-size",
                                                 optarg, 1, 256);
            break;
        case OPT_PLOT:
            if (strchr(optarg, '\'')) {
                ovs_fatal(0, "--plot: file name must not contain '");
            }
            free(opts->plot_file);
            opts->plot_file = xstrdup(optarg);
            break;
        case OPT_TUNNEL:
            fwd_parse_tunnels(tunnels, optarg);
            break;
        case OPT_SINK:
            if (!strcmp(optarg, "stack")) {
                opts->stack_sink = true;
            } else if (strcmp(optarg, "xdp")) {
                ovs_fatal(0, "--sink: \"%s\" is not xdp or stack", optarg);
            }
            break;
        case 'h':
            fwd_usage();
            exit(EXIT_SUCCESS);
        case '?':
            exit(EXIT_FAILURE);
        default:
            OVS_NOT_REACHED();
        }
    }
    free(short_options);
    bench_no_arguments("forward", argc, argv);
    for (size_t p = 0; p < FWD_N_PIPELINES; p++) {
        opts->pipelines[p] |= tunnels[p];
    }
    bench_megaflow_options_finish(&opts->mflow);
    if (opts->mflow.n_megaflows) {
        if (flows_set) {
            ovs_fatal(0, "--megaflows sets the number of flows: no --flows "
                      "with it");
        }
        for (size_t p = 0; p < FWD_N_PIPELINES; p++) {
            if (opts->pipelines[p] && p != FWD_STATELESS) {
                ovs_fatal(0, "--megaflows is for the stateless pipeline "
                          "only");
            }
        }
        opts->n_flows = opts->mflow.n_megaflows;
    }

    fwd_cpus_order(opts, cpu);
    if (cpus) {
        fwd_cpus_parse(opts, cpus);
    } else {
        opts->cpu_counts[0] = 1;
        opts->n_cpu_counts = 1;
    }
    if (fwd_cpus_max(opts) > 1 && opts->pipelines[FWD_CONNTRACK_SETUP]) {
        /* Each generator would open the same connections as the others:
         * the frame counter that numbers them is each one's own. */
        ovs_fatal(0, "--cpus: conntrack-setup runs on one CPU only");
    }
    bench_ovs_options_finish(&opts->ovs);
    fwd_select_results(fwd);
}
