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
 * The files of the benchmark, whose shared types and functions are in
 * bench-forward.h:
 *
 *   bench-forward.c          this overview, the switches and pipelines,
 *                            building and removing the topology, and the
 *                            loop over runs, switches and pipelines.
 *   bench-forward-options.c  the command line, and which results it
 *                            selects.
 *   bench-forward-switch.c   setting each switch up and taking it down.
 *   bench-forward-measure.c  the stream's frame, the generators, the sink's
 *                            counters and one measurement.
 *   bench-forward-report.c   the table, the JSON and the chart.
 *   bench-forward-ct.c       the stateful pipelines: each switch's
 *                            firewall, establishing the connections before
 *                            a measurement, and what the switches tell
 *                            about them.
 *   bench-forward-monitor.c  the sflow and meter pipelines.
 *   bench-forward-tnl.c      the tunnel pipelines.
 *   bench-forward-mflow.c    --megaflows and --masks.
 *   bench-forward-cpus.c     --cpus, generators on several CPUs. */

#include <config.h>

#include "utilities/bench-forward.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "fatal-signal.h"
#include "openvswitch/dynamic-string.h"
#include "util.h"
#include "utilities/bench-common.h"
#include "utilities/bench-generator.h"
#include "utilities/ovs-xdp-bench.h"

#include "datapath/bench-redirect.skel.h"
#include "datapath/bench-sink.skel.h"

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
const char *const fwd_pipeline_names[FWD_N_PIPELINES] = {
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
const char *const fwd_pipeline_descriptions[FWD_N_PIPELINES] = {
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
                   fwd->opts.ovs.vswitchd_xdp, NULL);
    bench_ovs_init(&fwd->ovs_stock, "Debian's ovs-vswitchd",
                   fwd->opts.ovs.vswitchd_stock, pmd_mask);
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
    if (fwd.opts.ovs.json_file) {
        fwd_write_json(&fwd);
    }
    if (fwd.opts.plot_file) {
        fwd_plot(&fwd);
    }
    return n_measured ? 0 : 1;
}
