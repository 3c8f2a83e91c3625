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

/* ovs-xdp-bench forward: packets per second through a switch.
 *
 * Topology, built for the run and removed at its end (also on failure or
 * Ctrl-C): two network namespaces, a generator's and a sink's, each joined
 * to the root namespace by a veth pair.  The switch under test takes the
 * two root-side ends, oxbgPID and oxbsPID, as its ports.
 *
 *     [gen ns] veth0 ==== oxbgPID  (switch)  oxbsPID ==== veth0 [sink ns]
 *
 * The generator, a thread pinned to one CPU inside the generator's
 * namespace, runs datapath/bench-gen.bpf.c with BPF_PROG_TEST_RUN and
 * BPF_F_TEST_XDP_LIVE_FRAMES, 'repeat' frames per call, in a loop: the
 * kernel turns each run that returns XDP_TX into a real 64-byte UDP frame
 * sent out of veth0, so one core offers several million frames a second.
 * The frames spread over --flows UDP source ports.  The sink,
 * datapath/bench-sink.bpf.c attached to the sink's veth0, counts the
 * stream's frames in a per-CPU array and drops them: the count is what
 * crossed the switch.
 *
 * XDP can only send into a veth whose receiving end has NAPI, so GRO is
 * turned on on both switch-side ends, as a real NIC's receive path would
 * have it; switches built on XDP have NAPI there anyway.
 *
 * Each run measures every selected switch in turn, the same way, so that
 * the switches alternate (A B C A B C ...) and slow drifts of a shared
 * machine spread over all of them: set the switch up, send a few learning
 * frames from the sink's side (so that MAC-learning switches know where
 * the sink is), start the generator, let it warm up (flow setup, MAC
 * learning), then count for --duration seconds the frames at the sink, the
 * frames offered and the busy time of all CPUs from /proc/stat, stop the
 * generator and take the switch down.  A switch that cannot be set up is
 * reported as skipped, with the reason.
 *
 * Pipelines (--pipeline): what the switch does with the stream.
 * 'stateless', the default, forwards by port.  'conntrack' is a stateful
 * firewall: the OVS switches send every IPv4 frame through ct() in zone
 * FWD_CT_ZONE, commit the connections that the generator's port opens,
 * forward established ones both ways and drop new ones from the sink's
 * port; the Linux bridge gets the same from nftables ("ct state").
 * 'conntrack-dnat' is the same with the stream sent to a virtual address,
 * FWD_VIP, that ct(commit,nat(dst=...)) translates to the sink's, so that
 * the datapath rewrites every frame; the sink counts only frames to the
 * sink's own address.  Before a stateful pipeline is measured, every flow
 * is established: one frame per flow from the generator's side (it
 * commits the connection), then one reply per flow from the sink's side,
 * counted as it arrives in the generator's namespace, then a pause so that
 * a datapath that caches established connections (ovs-xdp) has them
 * cached when the stream starts.  Each run measures every selected
 * pipeline of every switch in turn, so that the pipelines alternate as the
 * switches do.  After each measurement, with the stream still running, the
 * sink checks the headers of the stream's frames for a moment: address,
 * IPv4 checksum, and the zero UDP checksum that a NAT must leave alone.
 *
 * The result per switch and pipeline is the median of its runs' rates at
 * the sink, the spread (min-max), the CPU seconds spent per million frames
 * delivered (over all CPUs, the generator's included: it is the same for
 * every switch), the ratios to the floor and to ovs-xdp's stateless
 * figure, and how many times ovs-xdp's figure in the same pipeline is.
 *
 * With --cpus, generators run on several CPUs at once, a share of the
 * flows each, and every number of them is measured in every run; see
 * bench-forward-cpus.c.
 *
 * The stateful pipelines' machinery, which gives each switch its stateful
 * firewall, establishes the connections before a measurement and reads
 * what the switches tell about them, is in bench-forward-ct.c; the types
 * that the two files share are in bench-forward.h. */

#include <config.h>

#include "utilities/bench-forward.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "command-line.h"
#include "csum.h"
#include "fatal-signal.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "ovs-atomic.h"
#include "ovs-thread.h"
#include "packets.h"
#include "signals.h"
#include "svec.h"
#include "util.h"
#include "utilities/bench-common.h"
#include "utilities/bench-generator.h"
#include "utilities/ovs-xdp-bench.h"

#include "datapath/bench-gen.skel.h"
#include "datapath/bench-redirect.skel.h"
#include "datapath/bench-sink.skel.h"

/* Seconds during which the sink checks headers after a measurement. */
#define FWD_CHECK_TIME 0.1

/* Debian's own ovs-vswitchd (openvswitch-switch), with AF_XDP support. */
#define FWD_STOCK_VSWITCHD "/usr/lib/openvswitch-switch/ovs-vswitchd"

const struct fwd_switch fwd_switches[FWD_N_SWITCHES] = {
    { "floor", "bare XDP program, bpf_redirect() to the sink's veth "
      "(--sink=stack: bare TC program, bpf_redirect_peer())",
      FWD_FLOOR, NULL, false },
    { "ovs-xdp", "ovs-vswitchd-xdp, datapath_type=xdp",
      FWD_OVS_XDP, NULL, false },
    { "ovs-xdp-normal", "ovs-vswitchd-xdp, datapath_type=xdp, actions=normal",
      FWD_OVS_XDP, NULL, true },
    { "ovs-afxdp", "Debian ovs-vswitchd, datapath_type=netdev, type=afxdp "
      "ports", FWD_OVS_STOCK, "afxdp", false },
    { "ovs-system", "Debian ovs-vswitchd, datapath_type=netdev, system "
      "ports", FWD_OVS_STOCK, NULL, false },
    { "linux-bridge", "Linux bridge (ip link add type bridge)",
      FWD_LINUX_BRIDGE, NULL, false },
};
BUILD_ASSERT_DECL(ARRAY_SIZE(fwd_switches) == FWD_N_SWITCHES);

/* Names, for --pipeline and the table, and one line for the legend. */
static const char *const fwd_pipeline_names[FWD_N_PIPELINES] = {
    [FWD_STATELESS] = "stateless",
    [FWD_CONNTRACK] = "conntrack",
    [FWD_CONNTRACK_DNAT] = "conntrack-dnat",
    [FWD_CONNTRACK_SLOW] = "conntrack-slow",
    [FWD_CONNTRACK_SETUP] = "conntrack-setup",
    [FWD_SFLOW] = "sflow",
    [FWD_METER] = "meter",
    [FWD_VXLAN_ENCAP] = "vxlan-encap",
    [FWD_VXLAN_DECAP] = "vxlan-decap",
    [FWD_GENEVE_ENCAP] = "geneve-encap",
    [FWD_GENEVE_DECAP] = "geneve-decap",
};
static const char *const fwd_pipeline_descriptions[FWD_N_PIPELINES] = {
    [FWD_STATELESS] = "in_port=A,actions=output:B and back; Linux bridge: "
    "bridging",
    [FWD_CONNTRACK] = "ip,ct_state=-trk: ct(zone=1,table=1); table 1: from "
    "A, +new:\nct(commit),output:B, +est: output:B; from B, +est: "
    "output:A,\n+new: drop.  Linux bridge: nftables ct state (see its "
    "note)",
    [FWD_CONNTRACK_DNAT] = "as conntrack, with ct(zone=1,nat,table=1), the "
    "stream to\n" FWD_VIP ", and from A, +new: ct(commit,nat(dst="
    FWD_SINK_IP "))",
    [FWD_CONNTRACK_SLOW] = "as conntrack; ovs-xdp with "
    "other_config:xdp-ct-cache-size=0, so that\nevery frame's ct() runs in "
    "ovs-vswitchd: its slow path",
    [FWD_CONNTRACK_SETUP] = "as conntrack, each frame from a new source "
    "address and port: a new\nconnection, committed; frames at the sink are "
    "connections set up",
    [FWD_SFLOW] = "as stateless, with the bridge's sFlow sampling 1 in "
    OVS_STRINGIZE(FWD_SFLOW_SAMPLING) "\n(to a collector address where "
    "nothing listens)",
    [FWD_METER] = "in_port=A,actions=meter:1,output:B and back; meter 1 "
    "drops above\n100 Gbit/s, far above the offered load, so every frame "
    "passes its bucket",
    [FWD_VXLAN_ENCAP] = "in_port=A,actions=output:vxlan (remote "
    FWD_TNL_REMOTE_IP "), out of underlay\nport B (native tunneling); Linux "
    "bridge: A and a VXLAN device",
    [FWD_VXLAN_DECAP] = "the generator sends VXLAN to " FWD_TNL_LOCAL_IP
    " on underlay port A;\nin_port=vxlan,actions=output:B",
    [FWD_GENEVE_ENCAP] = "as vxlan-encap, with Geneve",
    [FWD_GENEVE_DECAP] = "as vxlan-decap, with Geneve",
};

/* Addresses of the two namespaces' veth ends ("oxb" in the middle). */
const struct eth_addr fwd_gen_mac = ETH_ADDR_C(02,6f,78,62,00,01);
const struct eth_addr fwd_sink_mac = ETH_ADDR_C(02,6f,78,62,00,02);

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
           program_name, program_name, FWD_STOCK_VSWITCHD);
}

/* Returns other_config:pmd-cpu-mask for Debian's ovs-vswitchd: every CPU
 * this process may use but 'gen_cpu', so that a polling thread (afxdp)
 * does not share the generator's CPU.  Returns NULL if 'gen_cpu' is the
 * only one.  The caller frees the result. */
static char *
fwd_pmd_cpu_mask(int gen_cpu)
{
    unsigned long long mask = 0;
    cpu_set_t set;

    if (sched_getaffinity(0, sizeof set, &set)) {
        return NULL;
    }
    for (int i = 0; i < 64; i++) {
        if (CPU_ISSET(i, &set) && i != gen_cpu) {
            mask |= 1ULL << i;
        }
    }
    return mask ? xasprintf("pmd-cpu-mask=0x%llx", mask) : NULL;
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



static void
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
        OPT_VSWITCHD_XDP,
        OPT_VSWITCHD,
        OPT_JSON,
        OPT_PLOT,
        OPT_SINK,
        OPT_TUNNEL,
        OPT_MEGAFLOWS,
        OPT_MASKS,
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
        {"vswitchd-xdp", required_argument, NULL, OPT_VSWITCHD_XDP},
        {"vswitchd", required_argument, NULL, OPT_VSWITCHD},
        {"json", required_argument, NULL, OPT_JSON},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"sink", required_argument, NULL, OPT_SINK},
        {"tunnel", required_argument, NULL, OPT_TUNNEL},
        {"megaflows", required_argument, NULL, OPT_MEGAFLOWS},
        {"masks", required_argument, NULL, OPT_MASKS},
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
        case OPT_MEGAFLOWS:
            opts->n_megaflows = bench_parse_count("--megaflows", optarg, 1,
                                                60000);
            break;
        case OPT_MASKS:
            opts->n_masks = bench_parse_count("--masks", optarg, 1,
                                            FWD_MAX_MASKS);
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
        case OPT_VSWITCHD_XDP:
            free(opts->vswitchd_xdp);
            opts->vswitchd_xdp = xstrdup(optarg);
            break;
        case OPT_VSWITCHD:
            free(opts->vswitchd_stock);
            opts->vswitchd_stock = xstrdup(optarg);
            break;
        case OPT_JSON:
            free(opts->json_file);
            opts->json_file = xstrdup(optarg);
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
    if (optind < argc) {
        ovs_fatal(0, "forward: unexpected argument \"%s\" (use --help)",
                  argv[optind]);
    }
    for (size_t p = 0; p < FWD_N_PIPELINES; p++) {
        opts->pipelines[p] |= tunnels[p];
    }
    if (opts->n_masks && !opts->n_megaflows) {
        ovs_fatal(0, "--masks goes with --megaflows");
    } else if (opts->n_megaflows) {
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
        opts->n_masks = MAX(opts->n_masks, 1);
        if (opts->n_masks > opts->n_megaflows) {
            ovs_fatal(0, "--masks: more masks (%u) than megaflows (%u)",
                      opts->n_masks, opts->n_megaflows);
        }
        opts->n_flows = opts->n_megaflows;
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
    if (!opts->vswitchd_xdp) {
        opts->vswitchd_xdp = bench_default_vswitchd_xdp();
    }
    if (!opts->vswitchd_stock) {
        opts->vswitchd_stock = xstrdup(FWD_STOCK_VSWITCHD);
    }
    fwd_select_results(fwd);
}

/* Returns the IPv4 address 's', a dotted quad that is known to parse. */
ovs_be32
fwd_ip(const char *s)
{
    ovs_be32 ip;

    ovs_assert(ip_parse(s, &ip));
    return ip;
}

/* Writes into 'frame' a FWD_FRAME_SIZE-byte IPv4 UDP frame from 'eth_src',
 * 'ip_src' and port 'sport' to 'eth_dst', 'ip_dst' and port 'dport', with
 * TTL 64, no UDP checksum and zero padding. */
void
fwd_put_frame(uint8_t *frame, struct eth_addr eth_src,
              struct eth_addr eth_dst, const char *ip_src,
              const char *ip_dst, uint16_t sport, uint16_t dport)
{
    fwd_put_frame_sized(frame, FWD_FRAME_SIZE, eth_src, eth_dst, ip_src,
                        ip_dst, sport, dport);
}

/* The same for a frame of 'size' bytes (a tunnel's outer headers, with
 * the payload left zero for the caller). */
void
fwd_put_frame_sized(uint8_t *frame, size_t size, struct eth_addr eth_src,
                    struct eth_addr eth_dst, const char *ip_src,
                    const char *ip_dst, uint16_t sport, uint16_t dport)
{
    struct eth_header *eth = (struct eth_header *) frame;
    struct ip_header *ip = (struct ip_header *) (eth + 1);
    struct udp_header *udp = (struct udp_header *) (ip + 1);
    size_t ip_len = size - sizeof *eth;

    memset(frame, 0, size);
    eth->eth_dst = eth_dst;
    eth->eth_src = eth_src;
    eth->eth_type = htons(ETH_TYPE_IP);

    ip->ip_ihl_ver = IP_IHL_VER(5, IP_VERSION);
    ip->ip_tot_len = htons(ip_len);
    ip->ip_frag_off = htons(IP_DONT_FRAGMENT);
    ip->ip_ttl = 64;
    ip->ip_proto = IPPROTO_UDP;
    put_16aligned_be32(&ip->ip_src, fwd_ip(ip_src));
    put_16aligned_be32(&ip->ip_dst, fwd_ip(ip_dst));
    ip->ip_csum = csum(ip, sizeof *ip);

    udp->udp_src = htons(sport);
    udp->udp_dst = htons(dport);
    udp->udp_len = htons(ip_len - sizeof *ip);
}

/* Returns the address that the generator sends the stream to in pipeline
 * 'p'. */
const char *
fwd_stream_dst(enum fwd_pipeline p)
{
    return p == FWD_CONNTRACK_DNAT ? FWD_VIP : FWD_SINK_IP;
}

/* Builds the stream's frame of pipeline 'p' in 'fwd->frame': from the
 * generator's veth end to the sink's, IPv4 from FWD_GEN_IP to the sink's
 * address or FWD_VIP, UDP from FWD_UDP_SPORT_BASE (which the generator
 * changes per flow) to FWD_UDP_DPORT. */
static void
fwd_build_frame(struct fwd *fwd, enum fwd_pipeline p)
{
    fwd_put_frame(fwd->frame, fwd_gen_mac, fwd_sink_mac, FWD_GEN_IP,
                  fwd_stream_dst(p), FWD_UDP_SPORT_BASE, FWD_UDP_DPORT);
    fwd->frame_size = FWD_FRAME_SIZE;
}

/* Sends a frame from the sink's veth end to the generator's, so that a
 * switch that learns MAC addresses knows which port leads to the sink. */
static void
fwd_send_learning_frame(struct fwd *fwd)
{
    uint8_t frame[60];
    struct eth_header *eth = (struct eth_header *) frame;

    memset(frame, 0, sizeof frame);
    eth->eth_dst = fwd_gen_mac;
    eth->eth_src = fwd_sink_mac;
    eth->eth_type = htons(0x88b5);      /* Local experimental EtherType. */
    bench_send_frame(fwd->sink.ns, fwd->sink.ns_name, frame, sizeof frame);
}

/* The generator threads (bench-generator.c). */

/* Loads a generator program for the frames of pipeline 'p', whose frame
 * is in 'fwd->frame', sending 'n_flows' flows from UDP source port
 * FWD_UDP_SPORT_BASE + 'first'.  Exits on failure. */
static struct bench_gen *
fwd_generator_load(struct fwd *fwd, enum fwd_pipeline p, unsigned int first,
                   unsigned int n_flows)
{
    const struct ip_header *ip = (const struct ip_header *)
        (fwd->frame + sizeof(struct eth_header));
    struct bench_gen *skel = bench_gen__open();

    if (!skel) {
        ovs_fatal(errno, "cannot open the generator program");
    }
    skel->rodata->n_flows = n_flows;
    skel->rodata->sport_base = FWD_UDP_SPORT_BASE + first;
    if (bench_gen__load(skel)) {
        ovs_fatal(errno, "cannot load the generator program");
    }

    /* The program writes these into every frame (see bench-gen.bpf.c). */
    skel->bss->ip_daddr = get_16aligned_be32(&ip->ip_dst);
    skel->bss->ip_csum = ip->ip_csum;
    skel->bss->ip_saddr = get_16aligned_be32(&ip->ip_src);
    skel->bss->new_conns = p == FWD_CONNTRACK_SETUP;
    return skel;
}

/* Starts 'n' generators of pipeline 'p', each on its CPU with its share of
 * the flows (bench-forward-cpus.c). */
static void
fwd_generators_start(struct fwd *fwd, enum fwd_pipeline p, size_t n)
{
    ovs_assert(!fwd->n_generators && n <= fwd->opts.n_gen_cpus);
    for (size_t k = 0; k < n; k++) {
        struct bench_generator *gen = &fwd->generators[k];
        unsigned int first, n_flows;
        char *name;

        fwd_cpus_flow_share(fwd->opts.n_flows, n, k, &first, &n_flows);
        fwd->gen_skels[k] = fwd_generator_load(fwd, p, first, n_flows);
        fwd->n_generators = k + 1;

        gen->prog_fd = bpf_program__fd(fwd->gen_skels[k]->progs.bench_gen);
        gen->ns = fwd->gen.ns;
        gen->ifname = fwd->gen.ns_name;
        gen->cpu = fwd->opts.gen_cpus[k];
        gen->nice = 0;
        gen->batch_size = fwd->opts.batch_size;
        gen->frame = fwd->frame;
        gen->frame_size = fwd->frame_size;
        name = xasprintf("generator%zu", k);
        bench_generator_start(gen, name);
        free(name);
    }
}

/* Stops the generators that run, if any, and destroys their programs.
 * Returns 0 if they ran without error, otherwise the first one's positive
 * errno value after explaining in 'why', if 'why' is nonnull. */
static int
fwd_generators_stop(struct fwd *fwd, struct ds *why)
{
    int error = 0;

    for (size_t k = 0; k < fwd->n_generators; k++) {
        int gen_error = bench_generator_stop(&fwd->generators[k],
                                             error ? NULL : why);

        error = error ? error : gen_error;
        bench_gen__destroy(fwd->gen_skels[k]);
        fwd->gen_skels[k] = NULL;
    }
    fwd->n_generators = 0;
    return error;
}

/* Returns the frames that the running generators offered so far. */
static unsigned long long
fwd_generators_sent(const struct fwd *fwd)
{
    unsigned long long sent = 0;

    for (size_t k = 0; k < fwd->n_generators; k++) {
        sent += *(volatile __u64 *) &fwd->gen_skels[k]->bss->n_sent;
    }
    return sent;
}

/* Switches: setting up and taking down. */

/* Returns the private Open vSwitch that runs OVS switch 'sw'. */
struct bench_ovs *
fwd_switch_ovs(struct fwd *fwd, const struct fwd_switch *sw)
{
    return sw->kind == FWD_OVS_XDP ? &fwd->ovs_xdp : &fwd->ovs_stock;
}

static int
fwd_floor_setup(struct fwd *fwd, struct ds *why)
{
    if (!fwd->redirect_skel) {
        unsigned int target = if_nametoindex(fwd->sink.root_name);
        struct bench_redirect *skel = bench_redirect__open();

        if (!skel) {
            ds_put_format(why, "cannot open the floor program (%s)",
                          ovs_strerror(errno));
            return EIO;
        }
        skel->rodata->target_ifindex = target;
        if (bench_redirect__load(skel)) {
            ds_put_format(why, "cannot load the floor program (%s)",
                          ovs_strerror(errno));
            bench_redirect__destroy(skel);
            return EIO;
        }
        fwd->redirect_skel = skel;
    }
    if (fwd->opts.stack_sink) {
        /* No XDP program: the kernel builds the skb, as for any switch on
         * this path, and the floor hands it into the sink's namespace. */
        int error = bench_tc_attach(
            fwd->redirect_skel->progs.bench_redirect_peer, NULL,
            fwd->gen.root_name, why);

        fwd->floor_tc = !error;
        return error;
    }
    fwd->floor_link = bench_xdp_attach(
        fwd->redirect_skel->progs.bench_redirect, NULL, fwd->gen.root_name,
        why);
    return fwd->floor_link ? 0 : EIO;
}

/* Removes the --sink=stack floor's TC program and the clsact qdisc it
 * made from the generator's switch-side end. */
static void
fwd_floor_tc_teardown(struct fwd *fwd)
{
    if (fwd->floor_tc) {
        LIBBPF_OPTS(bpf_tc_hook, hook,
                    .ifindex = if_nametoindex(fwd->gen.root_name),
                    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);

        if (hook.ifindex) {
            bpf_tc_hook_destroy(&hook);
        }
        fwd->floor_tc = false;
    }
}

static int
fwd_ovs_setup(struct fwd *fwd, const struct fwd_switch *sw,
              enum fwd_pipeline p, struct ds *why)
{
    const char *ports[] = { fwd->gen.root_name, fwd->sink.root_name };
    struct svec flows = SVEC_EMPTY_INITIALIZER;
    int error;

    if (sw->normal) {
        svec_add(&flows, "actions=normal");
    } else if (fwd->opts.n_megaflows) {
        fwd_megaflow_flows(&fwd->opts, fwd->gen.root_name,
                           fwd->sink.root_name, &flows);
    } else {
        fwd_ovs_flows(p, fwd->gen.root_name, fwd->sink.root_name, &flows);
    }
    error = bench_ovs_add_bridge(
        fwd_switch_ovs(fwd, sw), fwd->ovs_bridge,
        sw->kind == FWD_OVS_XDP ? "xdp" : "netdev", sw->port_type,
        ports, ARRAY_SIZE(ports),
        (const char *const *) flows.names, flows.n, why);
    svec_destroy(&flows);
    if (!error) {
        error = fwd_monitor_setup(fwd, sw, p, why);
    }
    if (!error && p == FWD_CONNTRACK_SETUP) {
        struct ds output = DS_EMPTY_INITIALIZER;

        if (bench_ovs_run(fwd_switch_ovs(fwd, sw), &output,
                          "ovs-appctl dpctl/ct-set-maxconns %d",
                          FWD_SETUP_MAXCONNS)) {
            bench_explain(why, "ovs-appctl dpctl/ct-set-maxconns", 1,
                          &output);
            error = EIO;
        }
        ds_destroy(&output);
    }

    /* The sink's end of its veth runs an XDP program, so it has NAPI and
     * XDP redirect delivers into it: ask ovs-xdp for the XDP redirect
     * path, which it does not choose for veths by itself.  The generator
     * stands for a NIC's receive path: its frames are XDP frames, but it
     * runs through BPF_PROG_TEST_RUN, not as an attached program, so
     * xdp-mode=auto would take its veth for a container's (generic mode,
     * to keep TSO) and must be told to attach natively. */
    if (!error && sw->kind == FWD_OVS_XDP) {
        struct ds output = DS_EMPTY_INITIALIZER;

        /* conntrack-slow turns the cache of established connections off;
         * every other pipeline has the default. */
        const char *cache = (p == FWD_CONNTRACK_SLOW
                             ? "set Open_vSwitch . "
                               "other_config:xdp-ct-cache-size=0"
                             : "remove Open_vSwitch . other_config "
                               "xdp-ct-cache-size");

        if (bench_ovs_run(fwd_switch_ovs(fwd, sw), &output,
                          "ovs-vsctl set interface %s "
                          "other_config:xdp-tx=%s -- set interface %s "
                          "other_config:xdp-mode=native -- %s",
                          fwd->sink.root_name,
                          fwd->opts.stack_sink ? "auto" : "redirect",
                          fwd->gen.root_name, cache)) {
            bench_explain(why, "ovs-vsctl set interface", 1, &output);
            error = EIO;
        }
        ds_destroy(&output);
    }
    return error;
}

static int
fwd_linux_bridge_setup(struct fwd *fwd, enum fwd_pipeline p,
                       struct fwd_result *r, struct ds *why)
{
    int error = bench_linux_bridge_create(fwd->linux_bridge,
                                          fwd->gen.root_name,
                                          fwd->sink.root_name, why);

    if (!error && fwd_pipeline_is_stateful(p)) {
        char *note;

        error = fwd_nft_setup(fwd, &note, why);
        if (!error && !r->note) {
            r->note = note;
        } else {
            free(note);
        }
    }
    return error;
}

/* Takes switch 'sw' down and makes sure that the ports are as before: up,
 * GRO on, no XDP program attached. */
static void
fwd_switch_teardown(struct fwd *fwd, const struct fwd_switch *sw)
{
    if (sw->kind != FWD_FLOOR && fwd_pipeline_is_tunnel(fwd->pipeline)) {
        fwd_tnl_teardown(fwd, sw);
        bench_xdp_clear(fwd->gen.root_name, sw->name);
        bench_xdp_clear(fwd->sink.root_name, sw->name);
        fwd->active = NULL;
        return;
    }
    switch (sw->kind) {
    case FWD_FLOOR:
        bpf_link__destroy(fwd->floor_link);
        fwd->floor_link = NULL;
        fwd_floor_tc_teardown(fwd);
        break;
    case FWD_OVS_XDP:
    case FWD_OVS_STOCK:
        bench_ovs_del_bridge(fwd_switch_ovs(fwd, sw), fwd->ovs_bridge);
        break;
    case FWD_LINUX_BRIDGE:
        if (fwd_pipeline_is_stateful(fwd->pipeline)) {
            fwd_nft_teardown(fwd);
        }
        bench_run(NULL, "ip link del %s", fwd->linux_bridge);
        break;
    }
    bench_xdp_clear(fwd->gen.root_name, sw->name);
    bench_xdp_clear(fwd->sink.root_name, sw->name);
    fwd->active = NULL;
}

/* Sets up switch 'sw' with pipeline 'p' between the two pairs; may add a
 * note to its results 'r'.  Returns 0 if successful, otherwise a positive
 * errno value after explaining in 'why' and taking down whatever was set
 * up. */
static int
fwd_switch_setup(struct fwd *fwd, const struct fwd_switch *sw,
                 enum fwd_pipeline p, struct fwd_result *r, struct ds *why)
{
    const char *ports[] = { fwd->gen.root_name, fwd->sink.root_name };
    int error = 0;

    for (size_t i = 0; i < ARRAY_SIZE(ports); i++) {
        bench_run(NULL, "ip link set %s up", ports[i]);
        error = bench_set_gro(ports[i], true);
        if (error) {
            ds_put_format(why, "%s: cannot turn GRO on (%s)", ports[i],
                          ovs_strerror(error));
            return error;
        }
    }

    fwd->active = sw;
    fwd->pipeline = p;
    if (fwd_pipeline_is_tunnel(p) && sw->kind != FWD_FLOOR) {
        error = fwd_tnl_setup(fwd, sw, p, why);
        if (error) {
            fwd_switch_teardown(fwd, sw);
        }
        return error;
    }
    switch (sw->kind) {
    case FWD_FLOOR:
        error = fwd_floor_setup(fwd, why);
        break;
    case FWD_OVS_XDP:
    case FWD_OVS_STOCK:
        error = fwd_ovs_setup(fwd, sw, p, why);
        break;
    case FWD_LINUX_BRIDGE:
        error = fwd_linux_bridge_setup(fwd, p, r, why);
        break;
    }
    if (error) {
        fwd_switch_teardown(fwd, sw);
    }
    return error;
}

/* Returns how ovs-vswitchd-xdp transmits on the sink's port, as
 * "dispatcher/show" tells ("transmit by skb"), or NULL if it does not say.
 * The caller frees the result. */
static char *
fwd_ovs_xdp_tx_mode(struct fwd *fwd)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    char *port = xasprintf(" %s:", fwd->sink.root_name);
    char *line, *save_ptr = NULL;
    char *mode = NULL;

    bench_ovs_run(&fwd->ovs_xdp, &output, "ovs-appctl dispatcher/show");
    for (line = strtok_r(ds_cstr(&output), "\n", &save_ptr); line && !mode;
         line = strtok_r(NULL, "\n", &save_ptr)) {
        const char *tx = strstr(line, "transmit by ");

        if (strstr(line, port) && tx) {
            mode = xasprintf("%s on the sink's port (dispatcher/show)", tx);
        }
    }
    free(port);
    ds_destroy(&output);
    return mode;
}

/* Measuring. */

/* The CPUs whose sink counts a snapshot keeps. */
#define FWD_SNAPSHOT_CPUS FWD_MAX_GENERATORS

/* Counters at one moment. */
struct fwd_snapshot {
    double time;                /* bench_now(). */
    unsigned long long sink;    /* Stream frames counted by the sink... */
    unsigned long long sink_cpus[FWD_SNAPSHOT_CPUS];  /* ...on each CPU. */
    unsigned long long sent;    /* Frames offered by the generators. */
    struct bench_cpu cpu;       /* CPU time of the machine. */
};

/* Returns the sink's counter 'idx', summed over the CPUs. */
unsigned long long
fwd_read_sink(const struct fwd *fwd, enum bench_sink_counter idx)
{
    return fwd_read_sink_cpus(fwd, idx, NULL, 0);
}

/* Returns the sink's counter 'idx', summed over the CPUs, and stores the
 * counts of the first 'n' CPUs in 'per_cpu' (zero for CPUs that are not
 * possible). */
unsigned long long
fwd_read_sink_cpus(const struct fwd *fwd, enum bench_sink_counter idx,
                   unsigned long long *per_cpu, size_t n)
{
    int n_cpus = libbpf_num_possible_cpus();
    uint64_t *values = xcalloc(MAX(n_cpus, 1), sizeof *values);
    int map_fd = bpf_map__fd(fwd->sink_skel->maps.bench_sink_counts);
    uint32_t key = idx;
    unsigned long long sum = 0;

    if (bpf_map_lookup_elem(map_fd, &key, values)) {
        ovs_fatal(errno, "cannot read the sink's counters");
    }
    for (int i = 0; i < n_cpus; i++) {
        sum += values[i];
    }
    for (size_t i = 0; i < n; i++) {
        per_cpu[i] = (int) i < n_cpus ? values[i] : 0;
    }
    free(values);
    return sum;
}

static void
fwd_snapshot(const struct fwd *fwd, struct fwd_snapshot *s)
{
    s->time = bench_now();
    s->sink = fwd_read_sink_cpus(fwd, BENCH_SINK_STREAM, s->sink_cpus,
                                 FWD_SNAPSHOT_CPUS);
    s->sent = fwd_generators_sent(fwd);
    bench_cpu_sample(&s->cpu);
}

/* Has the sink check the headers of the stream's frames (see
 * datapath/bench-sink.bpf.c) for FWD_CHECK_TIME seconds, while the
 * generator runs, adds what it found to 'r' and complains, naming 'what',
 * about frames that failed. */
static void
fwd_check_headers(struct fwd *fwd, const char *what, struct fwd_result *r)
{
    volatile __u32 *check = &fwd->sink_skel->bss->check_headers;
    unsigned long long checked, bad;

    checked = fwd_read_sink(fwd, BENCH_SINK_CHECKED);
    bad = fwd_read_sink(fwd, BENCH_SINK_BAD);
    *check = 1;
    bench_sleep(FWD_CHECK_TIME);
    *check = 0;
    checked = fwd_read_sink(fwd, BENCH_SINK_CHECKED) - checked;
    bad = fwd_read_sink(fwd, BENCH_SINK_BAD) - bad;

    r->n_checked += checked;
    r->n_bad += bad;
    if (bad) {
        ovs_error(0, "%s: %llu of %llu frames checked at the sink had a "
                  "wrong destination address, IPv4 checksum or UDP "
                  "checksum", what, bad, checked);
    }
}

/* One run of switch number 'idx' in pipeline 'p' with the generators of
 * count number 'c': sets it up, measures, takes it down and adds the run
 * to its results.  Returns 0 if successful, otherwise a positive errno
 * value after explaining in 'why'. */
static int
fwd_measure(struct fwd *fwd, size_t c, size_t idx, enum fwd_pipeline p,
            struct ds *why)
{
    const struct fwd_switch *sw = &fwd_switches[idx];
    struct fwd_result *r = &fwd->results[c][idx][p];
    size_t n_gens = fwd->opts.cpu_counts[c];
    bool stateful = fwd_pipeline_is_stateful(p);
    bool xdp_ct = stateful && sw->kind == FWD_OVS_XDP;
    bool xdp_monitor = ((p == FWD_SFLOW || p == FWD_METER)
                        && sw->kind == FWD_OVS_XDP);
    bool tunnel = fwd_pipeline_is_tunnel(p) && sw->kind != FWD_FLOOR;
    bool xdp_tnl = tunnel && sw->kind == FWD_OVS_XDP;
    bool mflow = (fwd->opts.n_megaflows && !sw->normal
                  && (sw->kind == FWD_OVS_XDP || sw->kind == FWD_OVS_STOCK));
    struct fwd_megaflow_counts mflow_before;
    struct fwd_monitor_counts mon_before, mon_after;
    struct fwd_tnl_counts tnl_before, tnl_after;
    struct fwd_ct_counts ct_before, ct_after;
    struct fwd_snapshot before, after;
    struct ds note = DS_EMPTY_INITIALIZER;
    char *what;
    int cached = -1;
    int error;

    fwd_build_frame(fwd, p);
    error = fwd_switch_setup(fwd, sw, p, r, why);
    if (error) {
        return error;
    }
    if (sw->kind == FWD_OVS_XDP && !r->note) {
        r->note = fwd_ovs_xdp_tx_mode(fwd);
    }
    if (tunnel) {
        /* Encapsulated frames go to the switch's own address. */
        fwd_tnl_build_frame(fwd, p);
    }
    fwd_tnl_set_sink(fwd, tunnel ? p : FWD_STATELESS);

    /* Learning frames before and while the generator starts: the first
     * may come before the switch listens on its ports. */
    fwd_send_learning_frame(fwd);
    if (fwd_pipeline_establishes(p)) {
        fwd_establish(fwd, p, &note);
        if (xdp_ct) {
            cached = fwd_ovs_xdp_cached(fwd);
        }
    }
    fwd_generators_start(fwd, p, n_gens);
    if (xdp_tnl) {
        double waited = fwd_tnl_wait_compiled(fwd, p);

        if (waited < 0) {
            ovs_error(0, "ovs-xdp %s: no code for the tunnel action in "
                      "XDP after 10 s", fwd_pipeline_names[p]);
        } else {
            ds_put_format(&note, "program with the tunnel action's code "
                          "running %.1f s after the stream started",
                          waited);
        }
    }
    for (int i = 0; i < 5; i++) {
        bench_sleep(fwd->opts.warmup / 5);
        fwd_send_learning_frame(fwd);
    }

    if (xdp_ct) {
        fwd_ovs_xdp_ct_counts(fwd, &ct_before);
    }
    if (xdp_monitor) {
        fwd_monitor_counts(fwd, &mon_before);
    }
    if (xdp_tnl) {
        fwd_tnl_counts(fwd, &tnl_before);
    }
    if (mflow) {
        fwd_megaflow_counts(fwd, sw, &mflow_before);
    }
    fwd_snapshot(fwd, &before);
    bench_sleep(fwd->opts.duration);
    fwd_snapshot(fwd, &after);
    if (xdp_tnl) {
        fwd_tnl_counts(fwd, &tnl_after);
        fwd_tnl_put_slow_flows(fwd, &tnl_before, &tnl_after);
    }
    if (xdp_ct) {
        fwd_ovs_xdp_ct_counts(fwd, &ct_after);
    }
    if (xdp_monitor) {
        fwd_monitor_counts(fwd, &mon_after);
    }

    what = xasprintf("%s %s", sw->name, fwd_pipeline_names[p]);
    fwd_check_headers(fwd, what, r);
    free(what);
    if (stateful && sw->kind == FWD_LINUX_BRIDGE) {
        ds_put_format(&note, "\nnftables counters: %lld frames "
                      "established, %lld new, %lld dropped",
                      fwd_nft_counter(fwd, "est"),
                      fwd_nft_counter(fwd, "opened"),
                      fwd_nft_counter(fwd, "dropped"));
    } else if (stateful) {
        fwd_ovs_put_ct_flows(fwd, sw, &note);
    }
    if (p == FWD_CONNTRACK_SETUP && sw->kind != FWD_LINUX_BRIDGE) {
        struct ds output = DS_EMPTY_INITIALIZER;

        if (!bench_ovs_run(fwd_switch_ovs(fwd, sw), &output,
                           "ovs-appctl dpctl/ct-get-nconns")) {
            ds_chomp(&output, '\n');
            ds_put_format(&note, "\nconnections in the tracker at the end: "
                          "%s", ds_cstr(&output));
        }
        ds_destroy(&output);
    }
    if (mflow) {
        struct fwd_megaflow_counts mflow_after;

        fwd_megaflow_counts(fwd, sw, &mflow_after);
        fwd_megaflow_note(fwd, sw, &mflow_before, &mflow_after, &note);
    }

    error = fwd_generators_stop(fwd, why);
    fwd_switch_teardown(fwd, sw);
    if (error) {
        ds_destroy(&note);
        return error;
    }

    double seconds = after.time - before.time;
    unsigned long long frames = after.sink - before.sink;
    double busy = bench_cpu_busy_seconds(&before.cpu, &after.cpu);

    if (xdp_ct) {
        long long hit = ct_after.hit - ct_before.hit;
        long long miss = ct_after.miss - ct_before.miss;

        if (cached >= 0) {
            ds_put_format(&note, "\nct() in XDP: %d of %u connections "
                          "cached (dpif-xdp/ct-cache-show); while\n"
                          "measuring,", cached, fwd->opts.n_flows);
        } else {
            ds_put_cstr(&note, "\nct() in XDP while measuring:");
        }
        ds_put_format(&note, " xdp-ct-hit +%lld, xdp-ct-miss +%lld (%.2f "
                      "and %.2f per frame at the sink)", hit, miss,
                      frames ? (double) hit / frames : 0.0,
                      frames ? (double) miss / frames : 0.0);
        if (p == FWD_CONNTRACK_SETUP) {
            /* Nothing to check: no connection lives long enough. */
        } else if (p == FWD_CONNTRACK_SLOW) {
            if (cached || hit) {
                ovs_error(0, "%s %s: connections cached in XDP (%d) or ct() "
                          "ran there (xdp-ct-hit +%lld) with the cache off",
                          sw->name, fwd_pipeline_names[p], cached, hit);
            }
        } else if (cached < (int) fwd->opts.n_flows || hit <= 0) {
            ovs_error(0, "%s %s: connections not cached in XDP (%d of %u) "
                      "or no ct() ran in XDP (xdp-ct-hit +%lld)", sw->name,
                      fwd_pipeline_names[p], cached, fwd->opts.n_flows,
                      hit);
        }
    }
    if (xdp_monitor) {
        fwd_monitor_note(fwd, p, &mon_before, &mon_after, frames, &note);
    }
    if (xdp_tnl) {
        fwd_tnl_note(p, &tnl_before, &tnl_after, frames, &note);
    }
    if (n_gens > 1) {
        fwd_cpus_note(fwd, n_gens, before.sink_cpus, after.sink_cpus,
                      FWD_SNAPSHOT_CPUS, &note);
    }
    if (stateful || xdp_monitor || xdp_tnl || mflow || n_gens > 1) {
        /* Every part but the first starts a new line. */
        const char *text = ds_cstr(&note);

        free(r->state_note);
        r->state_note = xstrdup(text + (text[0] == '\n'));
    }
    ds_destroy(&note);

    r->pps = xrealloc(r->pps, (r->n + 1) * sizeof *r->pps);
    r->offered = xrealloc(r->offered, (r->n + 1) * sizeof *r->offered);
    r->cpu = xrealloc(r->cpu, (r->n + 1) * sizeof *r->cpu);
    r->frames = xrealloc(r->frames, (r->n + 1) * sizeof *r->frames);
    r->pps[r->n] = frames / seconds;
    r->offered[r->n] = (after.sent - before.sent) / seconds;
    r->cpu[r->n] = frames ? busy / (frames / 1e6) : NAN;
    r->frames[r->n] = frames;
    r->n++;
    return 0;
}

/* Results. */

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

static void
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
    if (opts->n_megaflows) {
        ds_put_format(&out, "flow table: one OpenFlow rule per flow (UDP "
                      "source port), spread for %u megaflow mask%s\n",
                      opts->n_masks, opts->n_masks > 1 ? "s" : "");
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

    if (linux_bridge && fwd_bridge_nf_call_iptables()) {
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

static void
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
    json_object_put(top, "megaflows", json_integer_create(opts->n_megaflows));
    json_object_put(top, "masks", json_integer_create(opts->n_masks));
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

    bench_write_json(top, opts->json_file);
}

/* Draws the medians and spreads as a bar chart in --plot's file, with
 * gnuplot, or says why not. */
static void
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

/* Setup and cleanup of the whole benchmark. */

/* Removes everything the benchmark built.  Runs at exit and on fatal
 * signals (fatal_signal_add_hook()), and is safe to run more than once. */
static void
fwd_cleanup(void *fwd_)
{
    struct fwd *fwd = fwd_;

    fwd_generators_stop(fwd, NULL);
    if (fwd->active) {
        fwd_switch_teardown(fwd, fwd->active);
    }
    bench_ovs_destroy(&fwd->ovs_xdp);
    bench_ovs_destroy(&fwd->ovs_stock);
    bpf_link__destroy(fwd->floor_link);
    fwd->floor_link = NULL;
    fwd_floor_tc_teardown(fwd);
    bpf_link__destroy(fwd->sink_link);
    fwd->sink_link = NULL;
    bench_pair_destroy(&fwd->gen);
    bench_pair_destroy(&fwd->sink);
    bench_sink__destroy(fwd->sink_skel);
    fwd->sink_skel = NULL;
    bench_redirect__destroy(fwd->redirect_skel);
    fwd->redirect_skel = NULL;
}

/* Builds the topology and loads the generator and the sink. */
static void
fwd_setup(struct fwd *fwd)
{
    struct ds why = DS_EMPTY_INITIALIZER;

    fwd->ovs_bridge = xasprintf("%sbr%ld", BENCH_PREFIX, (long) getpid());
    fwd->tnl_bridge = xasprintf("%sbu%ld", BENCH_PREFIX, (long) getpid());
    fwd->tnl_port = xasprintf("%stn%ld", BENCH_PREFIX, (long) getpid());
    fwd->linux_bridge = xasprintf("%slb%ld", BENCH_PREFIX, (long) getpid());
    fwd->nft_table = xasprintf("%s%ld", BENCH_PREFIX, (long) getpid());
    if (bench_pair_create(&fwd->gen, "g", fwd_gen_mac, NULL, &why)
        || bench_pair_create(&fwd->sink, "s", fwd_sink_mac, NULL, &why)) {
        ovs_fatal(0, "cannot build the topology: %s", ds_cstr(&why));
    }
    fprintf(stderr, "topology: namespaces %s, %s; veths %s, %s\n",
            fwd->gen.ns, fwd->sink.ns, fwd->gen.root_name,
            fwd->sink.root_name);
    fwd_cpus_setup(fwd);

    fwd->sink_skel = bench_sink__open();
    if (!fwd->sink_skel) {
        ovs_fatal(errno, "cannot open the sink program");
    }
    fwd->sink_skel->data->udp_dport = FWD_UDP_DPORT;
    fwd->sink_skel->bss->stream_daddr = fwd_ip(FWD_SINK_IP);
    if (bench_sink__load(fwd->sink_skel)) {
        ovs_fatal(errno, "cannot load the sink program");
    }
    if (fwd->opts.stack_sink) {
        if (bench_tc_attach(fwd->sink_skel->progs.bench_sink_tc,
                            fwd->sink.ns, fwd->sink.ns_name, &why)) {
            ovs_fatal(0, "sink: %s", ds_cstr(&why));
        }
    } else {
        fwd->sink_link = bench_xdp_attach(fwd->sink_skel->progs.bench_sink,
                                          fwd->sink.ns, fwd->sink.ns_name,
                                          &why);
        if (!fwd->sink_link) {
            ovs_fatal(0, "sink: %s", ds_cstr(&why));
        }
    }
    ds_destroy(&why);

    char *pmd_mask = fwd_pmd_cpu_mask(fwd->opts.gen_cpus[0]);
    bench_ovs_init(&fwd->ovs_xdp, "ovs-vswitchd-xdp",
                   fwd->opts.vswitchd_xdp, NULL);
    bench_ovs_init(&fwd->ovs_stock, "Debian's ovs-vswitchd",
                   fwd->opts.vswitchd_stock, pmd_mask);
    free(pmd_mask);
}

/* Measures run 'run' of switch 'i' in pipeline 'p' with the generators of
 * count number 'c', if that result is selected and not skipped, and says
 * how it went on stderr. */
static void
fwd_run_one(struct fwd *fwd, int run, size_t c, size_t i, enum fwd_pipeline p)
{
    struct fwd_result *r = &fwd->results[c][i][p];
    struct ds why = DS_EMPTY_INITIALIZER;

    if (!r->selected || r->skipped) {
        return;
    }
    fprintf(stderr, "run %d/%d: %-15s %-14s ", run + 1, fwd->opts.runs,
            fwd_switches[i].name, fwd_pipeline_label(i, p));
    if (fwd->opts.n_cpu_counts > 1) {
        fprintf(stderr, "%2u CPU%s ", fwd->opts.cpu_counts[c],
                fwd->opts.cpu_counts[c] > 1 ? "s" : " ");
    }
    fflush(stderr);
    if (fwd_measure(fwd, c, i, p, &why)) {
        fatal_signal_run();
        r->skipped = ds_steal_cstr(&why);
        fprintf(stderr, "skipped: %s\n", r->skipped);
    } else {
        fprintf(stderr, "%.3f Mpps\n", r->pps[r->n - 1] / 1e6);
        if (!r->frames[r->n - 1]) {
            ovs_error(0, "%s %s: no frame reached the sink",
                      fwd_switches[i].name, fwd_pipeline_label(i, p));
        }
    }
    ds_destroy(&why);
}

int
bench_forward_main(int argc, char *argv[])
{
    static struct fwd fwd;
    size_t n_measured = 0;

    fwd_parse_options(&fwd, argc, argv);
    if (geteuid()) {
        ovs_fatal(0, "forward: must run as root (network namespaces, XDP "
                  "and BPF_PROG_TEST_RUN need it)");
    }

    /* Before any thread starts: fatal_signal_init() insists. */
    fatal_signal_add_hook(fwd_cleanup, NULL, &fwd, true);

    bench_generator_init_signal();
    fwd_setup(&fwd);

    for (int run = 0; run < fwd.opts.runs; run++) {
        for (size_t c = 0; c < fwd.opts.n_cpu_counts; c++) {
            for (size_t i = 0; i < FWD_N_SWITCHES; i++) {
                for (size_t p = 0; p < FWD_N_PIPELINES; p++) {
                    fwd_run_one(&fwd, run, c, i, p);
                }
            }
        }
    }

    for (size_t c = 0; c < fwd.opts.n_cpu_counts; c++) {
        for (size_t i = 0; i < FWD_N_SWITCHES; i++) {
            for (size_t p = 0; p < FWD_N_PIPELINES; p++) {
                const struct fwd_result *r = &fwd.results[c][i][p];

                n_measured += r->selected && r->n;
            }
        }
    }
    fwd_cleanup(&fwd);

    fwd_print_table(&fwd);
    if (fwd.opts.json_file) {
        fwd_write_json(&fwd);
    }
    if (fwd.opts.plot_file) {
        fwd_plot(&fwd);
    }
    return n_measured ? 0 : 1;
}
