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

/* ovs-xdp-bench storm: an upcall storm against established traffic.
 *
 * A port that sends nothing but new flows, at full rate, makes every frame
 * miss the datapath's flow table and asks ovs-vswitchd to handle each of
 * them.  This mode measures what such a storm does to the rest of a
 * switch: to the traffic of flows already set up on other ports, to the
 * control plane (ovs-appctl), and to ovs-vswitchd's memory.
 *
 * Topology, built for the run and removed at its end (also on failure or
 * Ctrl-C): four network namespaces, each joined to the root namespace by
 * a veth pair whose root end the switch takes as a port.
 *
 *     [storm ns] veth0 ==== oxbtPID            oxbkPID ==== veth0 [sink ns]
 *                                  (switch)
 *     [send ns]  veth0 ==== oxbePID            oxbrPID ==== veth0 [recv ns]
 *
 * The storm: datapath/bench-gen.bpf.c, run with BPF_PROG_TEST_RUN and
 * BPF_F_TEST_XDP_LIVE_FRAMES by a thread pinned to one CPU in the storm's
 * namespace (as 'forward' runs it), sends 64-byte UDP frames to the sink's
 * address at full rate, each from a new Ethernet source address (the frame
 * counter in its low four bytes) and a new UDP source port (1024 up to
 * 65535, then again).  The switch runs OpenFlow's NORMAL action, whose
 * megaflows match the Ethernet addresses, so the new source address is
 * what makes every frame miss; the UDP port changes too, for switches
 * whose flows would match it.  datapath/bench-sink.bpf.c counts at the
 * sink the storm frames that the switch delivered.  The storm's thread
 * runs at nice -10: a NIC's receive path runs in softirq context, ahead
 * of every thread on its CPU, and a storm that the switch's own threads
 * could push aside would be no storm.  The busy and softirq shares of
 * its CPU (/proc/stat) tell how much of the CPU it had.
 *
 * The established traffic: a sender thread in the send namespace sends
 * numbered UDP datagrams at a steady --rate to a receiver thread in the
 * recv namespace, both pinned away from the storm's CPU where there is
 * another.  Static neighbour entries keep ARP out of it.  Each datagram
 * carries its number and the phase it was sent in; the receiver keeps a
 * bitmap of the numbers it saw, so that every datagram lost or received
 * twice is counted, per phase, and asks the kernel (SO_RXQ_OVFL) how many
 * its own socket dropped, so that a loss in the receiving host is not
 * mistaken for the switch's.  The datagrams carry no UDP checksum, which
 * a switch that reads frames through packet sockets would otherwise pass
 * on unfinished (CHECKSUM_PARTIAL).  Every --interval, the sink's and the
 * receiver's ends send a frame to the sender's address, so that MAC
 * learning keeps knowing where they are while the storm churns its table.
 *
 * New flows on the other ports: every --interval, the receiver's end also
 * sends a frame from a new source address (so a new megaflow, whose first
 * frame must go up to ovs-vswitchd) to the sender's address, from the
 * storm's CPU, whose upcall ring the storm's misses fill; a packet socket
 * in the send namespace receives them, with kernel timestamps.  Per phase,
 * how many arrived and their one-way latency tell whether the storm's
 * upcalls crowd out the other ports' (a storm within its port's budget
 * still fills the queues shared by all ports if the budget is above what
 * ovs-vswitchd can handle).
 *
 * The control plane: every --interval, the main thread runs
 * "ovs-appctl upcall/show" against the switch and records how long the
 * command took, start to end (what an operator typing it waits, process
 * start included), whether it answered, and the datapath flows and flow
 * limit it reports.  ovs-vswitchd's resident memory (VmRSS) is read at the
 * same moments.
 *
 * Each switch is measured in three phases of --seconds each, after a
 * warm-up that sets the established flow up: "quiet" (the established
 * stream alone), "storm" (the storm too) and "after" (the storm stopped).
 * Per phase, the datapath's own counters tell how many misses went up,
 * how many the per-port upcall budget refused and how many ovs-vswitchd
 * handled: for ovs-xdp, dpif-xdp/stats-show (xdp-missed,
 * xdp-upcall-limited, ovs-miss-upcall, ...) with other_config:
 * xdp-upcall-burst as the budget (--burst), and xdp-forwarded, which only
 * XDP moves, to tell that the established datagrams crossed in XDP (set
 * against the datagrams sent between the two reads of the counters); for
 * Debian's ovs-vswitchd (datapath_type=netdev, system ports, measured
 * after it when installed), dpif-netdev/pmd-stats-show, whose "miss with
 * failed upcall" count the upcalls its flow limit refused (their frames
 * still forwarded, without a flow) and those that failed.
 *
 * The established stream's threads, the new-flow frames and the host's
 * drops are in bench-storm-traffic.c, the tables and the JSON results in
 * bench-storm-report.c; the types the three files share are in
 * bench-storm.h. */

#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "command-line.h"
#include "fatal-signal.h"
#include "openvswitch/dynamic-string.h"
#include "ovs-atomic.h"
#include "ovs-thread.h"
#include "packets.h"
#include "signals.h"
#include "util.h"
#include "utilities/bench-common.h"
#include "utilities/bench-forward.h"
#include "utilities/bench-storm.h"
#include "utilities/ovs-xdp-bench.h"

#include "datapath/bench-gen.skel.h"
#include "datapath/bench-sink.skel.h"

/* The generator thread's nice value. */
#define STORM_GENERATOR_NICE (-10)

/* Addresses of the four namespaces' veth ends ("oxb" in the middle).  The
 * storm's frames start from 'storm_gen_mac' and change its low four
 * bytes. */
const struct eth_addr storm_gen_mac = ETH_ADDR_C(02,6f,78,62,00,11);
const struct eth_addr storm_sink_mac = ETH_ADDR_C(02,6f,78,62,00,12);
const struct eth_addr storm_send_mac = ETH_ADDR_C(02,6f,78,62,00,13);
const struct eth_addr storm_recv_mac = ETH_ADDR_C(02,6f,78,62,00,14);
const struct eth_addr storm_nf_mac = ETH_ADDR_C(06,6f,78,62,00,00);


const char *const storm_phase_names[STORM_N_PHASES] = {
    "warmup", "quiet", "storm", "after"
};

const struct storm_switch storm_switches[STORM_N_SWITCHES] = {
    { "ovs-xdp", "ovs-vswitchd-xdp, datapath_type=xdp, actions=normal",
      STORM_OVS_XDP },
    { "ovs-system", "Debian ovs-vswitchd, datapath_type=netdev, system "
      "ports, actions=normal", STORM_OVS_STOCK },
};

static void
storm_usage(void)
{
    printf("\
%s storm: an upcall storm against established traffic\n\
usage: %s storm [OPTION]...\n\
\n\
Floods one port of each switch with frames that all miss (a new source\n\
MAC and UDP port per frame, BPF_PROG_TEST_RUN live frames at full rate,\n\
one CPU) while a steady stream of numbered UDP datagrams crosses two\n\
other ports, and measures per phase (quiet, storm, after): datagrams\n\
lost, ovs-appctl latency, upcalls sent up, refused and handled, datapath\n\
flows and ovs-vswitchd's memory.  Needs root.\n\
\n\
Options:\n\
  --seconds=SECONDS      length of each phase (default 5)\n\
  --warmup=SECONDS       established stream before measuring (default 1)\n\
  --rate=N               established datagrams per second (default 20000)\n\
  --burst=N              ovs-xdp's other_config:xdp-upcall-burst, upcalls\n\
                         per port per CPU per 10 ms, 0 for no limit\n\
                         (default: the datapath's default)\n\
  --interval=SECONDS     between ovs-appctl probes (default 0.1)\n\
  --switches=LIST        comma-separated, from: ovs-xdp, ovs-system\n\
                         (default: both)\n\
  --cpu=N                run the storm on CPU N (default: the last)\n\
  --batch-size=N         frames per live-frames batch (default 64)\n\
  --vswitchd-xdp=PATH    ovs-vswitchd-xdp (default: the build tree's,\n\
                         or from $PATH)\n\
  --vswitchd=PATH        stock ovs-vswitchd (default:\n\
                         %s)\n\
  --json=FILE            also write the results to FILE\n\
  --log-dir=DIR          keep each ovs-vswitchd's log there\n\
  -h, --help             display this help message\n",
           program_name, program_name, BENCH_STOCK_VSWITCHD);
}

static const char *
storm_switch_name(size_t i)
{
    return storm_switches[i].name;
}



/* Returns the highest CPU that this process may run on. */
static int
storm_default_cpu(void)
{
    cpu_set_t set;
    int cpu = 0;

    if (!sched_getaffinity(0, sizeof set, &set)) {
        for (int i = 0; i < CPU_SETSIZE; i++) {
            if (CPU_ISSET(i, &set)) {
                cpu = i;
            }
        }
    }
    return cpu;
}

static void
storm_parse_options(struct storm *st, int argc, char *argv[])
{
    enum {
        OPT_SECONDS = UCHAR_MAX + 1,
        OPT_WARMUP,
        OPT_RATE,
        OPT_BURST,
        OPT_INTERVAL,
        OPT_SWITCHES,
        OPT_CPU,
        OPT_BATCH_SIZE,
        OPT_LOG_DIR,
    };
    static const struct option long_options[] = {
        {"seconds", required_argument, NULL, OPT_SECONDS},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"rate", required_argument, NULL, OPT_RATE},
        {"burst", required_argument, NULL, OPT_BURST},
        {"interval", required_argument, NULL, OPT_INTERVAL},
        {"switches", required_argument, NULL, OPT_SWITCHES},
        {"cpu", required_argument, NULL, OPT_CPU},
        {"batch-size", required_argument, NULL, OPT_BATCH_SIZE},
        BENCH_OVS_LONG_OPTIONS,
        {"log-dir", required_argument, NULL, OPT_LOG_DIR},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char *short_options = ovs_cmdl_long_options_to_short_options(long_options);
    struct storm_options *opts = &st->opts;
    bool cpu_set = false;

    opts->seconds = 5;
    opts->warmup = 1;
    opts->interval = 0.1;
    opts->rate = 20000;
    opts->burst = -1;
    opts->batch_size = 64;
    for (size_t i = 0; i < STORM_N_SWITCHES; i++) {
        opts->switches[i] = true;
    }

    for (;;) {
        int c = getopt_long(argc, argv, short_options, long_options, NULL);

        if (c == -1) {
            break;
        } else if (bench_ovs_parse_option(&opts->ovs, c, optarg)) {
            continue;
        }
        switch (c) {
        case OPT_SECONDS:
            opts->seconds = bench_parse_seconds("--seconds", optarg, 0, 3600);
            break;
        case OPT_WARMUP:
            opts->warmup = bench_parse_seconds("--warmup", optarg, 0, 3600);
            break;
        case OPT_INTERVAL:
            opts->interval = bench_parse_seconds("--interval",
                                                 optarg, 0, 3600);
            break;
        case OPT_RATE:
            opts->rate = bench_parse_count("--rate", optarg, 1, 1000000);
            break;
        case OPT_BURST:
            opts->burst = bench_parse_count("--burst", optarg, 0, 1000000);
            break;
        case OPT_SWITCHES:
            bench_select(optarg, storm_switch_name, STORM_N_SWITCHES,
                         opts->switches);
            break;
        case OPT_CPU:
            if (!str_to_int(optarg, 10, &opts->cpu) || opts->cpu < 0
                || opts->cpu >= CPU_SETSIZE) {
                ovs_fatal(0, "--cpu: \"%s\" is not a CPU number", optarg);
            }
            cpu_set = true;
            break;
        case OPT_BATCH_SIZE:
            opts->batch_size = bench_parse_count("--batch-size", optarg,
                                                 1, 256);
            break;
        case OPT_LOG_DIR:
            if (strchr(optarg, '\'')) {
                ovs_fatal(0, "--log-dir: directory name must not contain '");
            }
            free(opts->log_dir);
            opts->log_dir = xstrdup(optarg);
            break;
        case 'h':
            storm_usage();
            exit(EXIT_SUCCESS);
        case '?':
            exit(EXIT_FAILURE);
        default:
            OVS_NOT_REACHED();
        }
    }
    free(short_options);
    bench_no_arguments("storm", argc, argv);
    if (!cpu_set) {
        opts->cpu = storm_default_cpu();
    }
    bench_ovs_options_finish(&opts->ovs);
    for (size_t i = 0; i < STORM_N_SWITCHES; i++) {
        st->results[i].selected = opts->switches[i];
    }
}

/* Threads: helpers for the storm's and the stream's. */

/* Pins the calling thread to every CPU this process may use but 'avoid',
 * if there is another. */
void
storm_avoid_cpu(int avoid)
{
    cpu_set_t set;

    if (avoid < 0 || sched_getaffinity(0, sizeof set, &set)) {
        return;
    }
    CPU_CLR(avoid, &set);
    if (CPU_COUNT(&set)) {
        sched_setaffinity(0, sizeof set, &set);
    }
}

/* Enters namespace 'ns' for good (the thread ends with the run).  Returns
 * 0 or a positive errno value. */
int
storm_thread_enter(const char *ns)
{
    int saved_fd;
    int error = bench_netns_enter(ns, &saved_fd);

    if (!error && saved_fd >= 0) {
        close(saved_fd);
    }
    return error;
}

/* Blocks every signal in the calling thread. */
void
storm_block_signals(void)
{
    sigset_t signals;

    sigfillset(&signals);
    pthread_sigmask(SIG_SETMASK, &signals, NULL);
}

/* The storm's generator (bench-generator.c). */

static void
storm_generator_start(struct storm *st)
{
    struct bench_generator *gen = &st->generator;
    const struct ip_header *ip = (const struct ip_header *)
        (st->gen_frame + sizeof(struct eth_header));

    fwd_put_frame(st->gen_frame, storm_gen_mac, storm_sink_mac, FWD_GEN_IP,
                  FWD_SINK_IP, FWD_UDP_SPORT_BASE, FWD_UDP_DPORT);
    st->gen_skel->bss->ip_daddr = get_16aligned_be32(&ip->ip_dst);
    st->gen_skel->bss->ip_csum = ip->ip_csum;

    gen->prog_fd = bpf_program__fd(st->gen_skel->progs.bench_gen);
    gen->ns = st->gen.ns;
    gen->ifname = st->gen.ns_name;
    gen->cpu = st->opts.cpu;
    /* A NIC's receive path runs in softirq context, ahead of every thread
     * on its CPU: a storm stands for one only if it is not itself pushed
     * aside by the switch's threads. */
    gen->nice = STORM_GENERATOR_NICE;
    gen->batch_size = st->opts.batch_size;
    gen->frame = st->gen_frame;
    gen->frame_size = FWD_FRAME_SIZE;
    bench_generator_start(gen, "storm-gen");
}

/* Reading the switch. */

static struct bench_ovs *
storm_switch_ovs(struct storm *st, const struct storm_switch *sw)
{
    return sw->kind == STORM_OVS_XDP ? &st->ovs_xdp : &st->ovs_stock;
}

/* Stores switch 'sw''s counters in '*c'. */
static void
storm_counters(struct storm *st, const struct storm_switch *sw,
               struct storm_counters *c)
{
    struct bench_ovs *ovs = storm_switch_ovs(st, sw);
    unsigned long long sent0, sent1;

    atomic_read_relaxed(&st->stream.n_sent, &sent0);
    if (sw->kind == STORM_OVS_XDP) {
        static const char *const names[] = {
            "xdp-missed", "xdp-upcall-limited", "ovs-miss-upcall",
            "xdp-upcall-lost", "ovs-upcall-lost", "xdp-forwarded",
        };
        long long xdp_lost, ovs_lost;
        long long *const values[] = {
            &c->missed, &c->refused, &c->handled, &xdp_lost, &ovs_lost,
            &c->forwarded,
        };

        bench_ovs_counters(ovs, "dpif-xdp/stats-show", names, values,
                            ARRAY_SIZE(names));
        /* xdp-upcall-lost includes the upcalls the budget refused. */
        c->lost = (xdp_lost < 0 || ovs_lost < 0 || c->refused < 0 ? -1
                   : xdp_lost - c->refused + ovs_lost);
    } else {
        static const char *const names[] = {
            "miss with success upcall", "miss with failed upcall",
        };
        long long *const values[] = { &c->handled, &c->refused };

        bench_ovs_counters(ovs, "dpif-netdev/pmd-stats-show", names,
                            values, ARRAY_SIZE(names));
        c->missed = (c->handled < 0 || c->refused < 0 ? -1
                     : c->handled + c->refused);
        c->lost = -1;
        c->forwarded = -1;
    }
    atomic_read_relaxed(&st->stream.n_sent, &sent1);
    c->stream_sent = (sent0 + sent1) / 2.0;
}

/* Returns 'b' - 'a', or -1 if either is unknown. */
static long long
storm_delta(long long a, long long b)
{
    return a < 0 || b < 0 ? -1 : b - a;
}

/* Returns ovs-vswitchd's VmRSS in kB, or -1. */
static long long
storm_rss(struct bench_ovs *ovs)
{
    char *file = xasprintf("%s/ovs-vswitchd.pid", ovs->dir);
    FILE *stream = fopen(file, "re");
    long long rss = -1;
    long pid = 0;

    free(file);
    if (!stream) {
        return -1;
    }
    if (fscanf(stream, "%ld", &pid) != 1) {
        pid = 0;
    }
    fclose(stream);
    if (pid <= 0) {
        return -1;
    }

    char line[256];
    file = xasprintf("/proc/%ld/status", pid);
    stream = fopen(file, "re");
    free(file);
    if (!stream) {
        return -1;
    }
    while (fgets(line, sizeof line, stream)) {
        if (sscanf(line, "VmRSS: %lld", &rss) == 1) {
            break;
        }
    }
    fclose(stream);
    return rss;
}

/* Returns the storm frames that the sink counted so far, summed over the
 * CPUs. */
static unsigned long long
storm_read_sink(const struct storm *st)
{
    int n_cpus = libbpf_num_possible_cpus();
    uint64_t *values = xcalloc(MAX(n_cpus, 1), sizeof *values);
    int map_fd = bpf_map__fd(st->sink_skel->maps.bench_sink_counts);
    uint32_t key = BENCH_SINK_STREAM;
    unsigned long long sum = 0;

    if (bpf_map_lookup_elem(map_fd, &key, values)) {
        ovs_fatal(errno, "cannot read the sink's counters");
    }
    for (int i = 0; i < n_cpus; i++) {
        sum += values[i];
    }
    free(values);
    return sum;
}

/* Sends a frame from the sink's and one from the receiver's veth end to
 * the sender's address, so that the switch's MAC learning knows (and,
 * as the storm churns its table, keeps knowing) where they are. */
static void
storm_send_learning_frames(struct storm *st)
{
    const struct bench_pair *pairs[] = { &st->sink, &st->recv };

    for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
        uint8_t frame[60];
        struct eth_header *eth = (struct eth_header *) frame;

        memset(frame, 0, sizeof frame);
        eth->eth_dst = storm_send_mac;
        eth->eth_src = pairs[i]->ns_mac;
        eth->eth_type = htons(0x88b5);  /* Local experimental EtherType. */
        bench_send_frame(pairs[i]->ns, pairs[i]->ns_name, frame,
                         sizeof frame);
    }
}

/* Runs one probe: "ovs-appctl upcall/show", timed, and VmRSS; adds them
 * to 'p'. */
static void
storm_probe(struct storm *st, const struct storm_switch *sw,
            struct storm_phase_result *p)
{
    struct bench_ovs *ovs = storm_switch_ovs(st, sw);
    struct ds output = DS_EMPTY_INITIALIZER;
    char *line, *save_ptr = NULL;
    double start = bench_now();
    int status;
    long long rss;

    status = bench_ovs_run(ovs, &output,
                           "ovs-appctl --timeout=10 upcall/show");
    p->latency = xrealloc(p->latency, (p->n_probes + 1) * sizeof *p->latency);
    p->latency[p->n_probes++] = bench_now() - start;
    p->flows = xrealloc(p->flows, p->n_probes * sizeof *p->flows);
    p->flows[p->n_probes - 1] = -1;
    if (!status) {
        p->n_answered++;
        for (line = strtok_r(ds_cstr(&output), "\n", &save_ptr); line;
             line = strtok_r(NULL, "\n", &save_ptr)) {
            long long flows, limit;
            const char *s = strstr(line, "(current ");

            if (s && strstr(line, "flows")
                && sscanf(s, "(current %lld)", &flows) == 1) {
                p->flows_max = MAX(p->flows_max, flows);
                p->flows[p->n_probes - 1] = flows;
                s = strstr(line, "(limit ");
                if (s && sscanf(s, "(limit %lld)", &limit) == 1) {
                    p->limit_min = (p->limit_min < 0 ? limit
                                    : MIN(p->limit_min, limit));
                }
            }
        }
    }
    ds_destroy(&output);

    rss = storm_rss(ovs);
    p->rss_max = MAX(p->rss_max, rss);
    p->rss = xrealloc(p->rss, p->n_probes * sizeof *p->rss);
    p->rss[p->n_probes - 1] = rss;
}

/* Ticks of one CPU, from /proc/stat. */
struct storm_cpu_ticks {
    unsigned long long busy;    /* Not idle nor waiting for I/O. */
    unsigned long long softirq; /* Of those, in softirq context. */
    unsigned long long total;   /* All. */
};

/* Stores CPU 'cpu''s ticks so far in '*t' (all zero if unknown). */
static void
storm_cpu_sample(int cpu, struct storm_cpu_ticks *t)
{
    unsigned long long v[8];
    char line[512], *name;
    FILE *stream;

    memset(t, 0, sizeof *t);
    stream = fopen("/proc/stat", "re");
    if (!stream) {
        return;
    }
    name = xasprintf("cpu%d ", cpu);
    while (fgets(line, sizeof line, stream)) {
        if (!strncmp(line, name, strlen(name))
            && sscanf(line + strlen(name),
                      "%llu %llu %llu %llu %llu %llu %llu %llu",
                      &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                      &v[7]) == 8) {
            /* user nice system idle iowait irq softirq steal */
            t->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
            t->softirq = v[6];
            t->total = t->busy + v[3] + v[4];
            break;
        }
    }
    free(name);
    fclose(stream);
}

/* Returns the time of 'clock', in seconds. */
static double
storm_clock(clockid_t clock)
{
    struct timespec ts;

    return clock_gettime(clock, &ts) ? 0 : ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Measures phase 'phase' of switch 'sw' into 'p': counters and the
 * storm's frames before and after, probes every --interval between. */
static void
storm_run_phase(struct storm *st, const struct storm_switch *sw,
                enum storm_phase phase, struct storm_phase_result *p)
{
    struct bench_generator *gen = &st->generator;
    struct storm_counters before, after;
    unsigned long long sent0, sink0;
    struct storm_cpu_ticks cpu0_ticks, cpu1;
    long long drops0, drops1;
    double start, next, cpu0 = 0;
    clockid_t gen_clock;

    p->flows_max = -1;
    p->limit_min = -1;
    p->rss_max = -1;
    atomic_store_relaxed(&st->stream.phase, phase);
    storm_counters(st, sw, &before);
    sent0 = *(volatile __u64 *) &st->gen_skel->bss->n_sent;
    sink0 = storm_read_sink(st);
    p->rss_start = storm_rss(storm_switch_ovs(st, sw));
    if (gen->running && !pthread_getcpuclockid(gen->thread, &gen_clock)) {
        cpu0 = storm_clock(gen_clock);
    } else {
        gen_clock = -1;
    }
    drops0 = storm_host_drops(st);
    storm_cpu_sample(st->opts.cpu, &cpu0_ticks);
    start = next = bench_now();
    while (bench_now() - start < st->opts.seconds) {
        storm_send_learning_frames(st);
        storm_nf_send(st, phase);
        storm_probe(st, sw, p);
        storm_nf_receive(st);
        next += st->opts.interval;
        if (next > bench_now()) {
            bench_sleep(next - bench_now());
        } else {
            next = bench_now();
        }
    }
    p->seconds = bench_now() - start;
    if (gen_clock != -1) {
        p->gen_cpu = storm_clock(gen_clock) - cpu0;
    }
    drops1 = storm_host_drops(st);
    p->host_drops = storm_delta(drops0, drops1);
    storm_cpu_sample(st->opts.cpu, &cpu1);
    if (cpu1.total > cpu0_ticks.total) {
        double total = cpu1.total - cpu0_ticks.total;

        p->cpu_busy = (cpu1.busy - cpu0_ticks.busy) / total;
        p->cpu_softirq = (cpu1.softirq - cpu0_ticks.softirq) / total;
    }
    p->offered = *(volatile __u64 *) &st->gen_skel->bss->n_sent - sent0;
    p->delivered = storm_read_sink(st) - sink0;
    p->rss_end = storm_rss(storm_switch_ovs(st, sw));
    p->rss_max = MAX(p->rss_max, MAX(p->rss_start, p->rss_end));
    storm_counters(st, sw, &after);
    p->delta.missed = storm_delta(before.missed, after.missed);
    p->delta.refused = storm_delta(before.refused, after.refused);
    p->delta.handled = storm_delta(before.handled, after.handled);
    p->delta.lost = storm_delta(before.lost, after.lost);
    p->delta.forwarded = storm_delta(before.forwarded, after.forwarded);
    p->delta.stream_sent = after.stream_sent - before.stream_sent;
}

/* Switches: setting up and taking down. */

/* Returns the root ends of the four pairs, the switch's ports, in
 * 'ports'. */
static void
storm_ports(const struct storm *st, const char *ports[4])
{
    ports[0] = st->gen.root_name;
    ports[1] = st->sink.root_name;
    ports[2] = st->send.root_name;
    ports[3] = st->recv.root_name;
}

/* Takes switch 'sw' down and makes sure that no XDP program is left on
 * the ports. */
static void
storm_switch_teardown(struct storm *st, const struct storm_switch *sw)
{
    const char *ports[4];

    bench_ovs_del_bridge(storm_switch_ovs(st, sw), st->bridge);
    storm_ports(st, ports);
    for (size_t i = 0; i < ARRAY_SIZE(ports); i++) {
        bench_xdp_clear(ports[i], sw->name);
    }
    st->active = NULL;
}

/* Sets up switch 'sw': a bridge with the four ports and actions=normal.
 * Returns 0 if successful, otherwise a positive errno value after
 * explaining in 'why' and taking down whatever was set up. */
static int
storm_switch_setup(struct storm *st, const struct storm_switch *sw,
                   struct ds *why)
{
    static const char *const flows[] = { "actions=normal" };
    struct bench_ovs *ovs = storm_switch_ovs(st, sw);
    const char *ports[4];
    int error;

    storm_ports(st, ports);

    /* The storm's frames are XDP frames from BPF_PROG_TEST_RUN, which a
     * veth delivers only to a peer with NAPI: GRO gives the switch-side
     * end NAPI when no XDP program of the switch does. */
    for (size_t i = 0; i < 2; i++) {
        error = bench_set_gro(ports[i], true);
        if (error) {
            ds_put_format(why, "%s: cannot turn GRO on (%s)", ports[i],
                          ovs_strerror(error));
            return error;
        }
    }

    st->active = sw;
    error = bench_ovs_add_bridge(ovs, st->bridge,
                                 sw->kind == STORM_OVS_XDP ? "xdp" : "netdev",
                                 NULL, ports, ARRAY_SIZE(ports),
                                 flows, ARRAY_SIZE(flows), why);

    /* As in 'forward': the storm's port attaches natively (its frames are
     * XDP frames, as from a NIC), and the sink's end, which runs an XDP
     * program, takes XDP redirects.  The established stream's ports are
     * containers' veths, left to xdp-mode=auto. */
    if (!error && sw->kind == STORM_OVS_XDP) {
        struct ds output = DS_EMPTY_INITIALIZER;
        int status;

        status = bench_ovs_run(ovs, &output,
                               "ovs-vsctl set interface %s "
                               "other_config:xdp-mode=native -- set "
                               "interface %s other_config:xdp-tx=redirect",
                               ports[0], ports[1]);
        if (status) {
            bench_explain(why, "ovs-vsctl set interface", status, &output);
            error = EIO;
        }
        ds_destroy(&output);
    }
    if (error) {
        storm_switch_teardown(st, sw);
    }
    return error;
}

/* Measuring. */

/* Measures switch number 'idx': sets it up, runs the established stream
 * through the warm-up and the three phases, the storm through the second,
 * takes it down and stores the results.  Returns 0 if successful,
 * otherwise a positive errno value after explaining in 'why'. */
static int
storm_measure(struct storm *st, size_t idx, struct ds *why)
{
    const struct storm_switch *sw = &storm_switches[idx];
    struct storm_result *r = &st->results[idx];
    struct storm_stream *s = &st->stream;
    int error;

    error = storm_switch_setup(st, sw, why);
    if (error) {
        return error;
    }

    st->nf_result = r;
    storm_nf_receive(st);       /* Drops what an earlier switch left. */
    storm_send_learning_frames(st);
    storm_stream_start(st);
    for (double t = 0; t < st->opts.warmup; t += st->opts.interval) {
        bench_sleep(st->opts.interval);
        storm_send_learning_frames(st);
    }
    storm_run_phase(st, sw, STORM_QUIET, &r->phases[STORM_QUIET]);
    storm_generator_start(st);
    storm_run_phase(st, sw, STORM_STORM, &r->phases[STORM_STORM]);
    error = bench_generator_stop(&st->generator, why);
    storm_run_phase(st, sw, STORM_AFTER, &r->phases[STORM_AFTER]);
    if (storm_stream_stop(st, error ? NULL : why) && !error) {
        error = s->error;
    }
    storm_nf_receive(st);
    storm_switch_teardown(st, sw);
    if (error) {
        return error;
    }

    for (size_t p = 0; p < STORM_N_PHASES; p++) {
        struct storm_phase_result *pr = &r->phases[p];

        pr->sent = s->sent[p];
        pr->send_errors = s->send_errors[p];
        pr->received = s->received[p];
        pr->dups = s->dups[p];
        pr->sock_drops = s->sock_drops[p];
    }
    free(r->lost_ranges);
    r->lost_ranges = storm_stream_lost_ranges(st);
    r->measured = true;
    return 0;
}

/* Setup and cleanup of the whole benchmark. */

/* Removes everything the benchmark built.  Runs at exit and on fatal
 * signals (fatal_signal_add_hook()), and is safe to run more than once. */
static void
storm_cleanup(void *st_)
{
    struct storm *st = st_;

    bench_generator_stop(&st->generator, NULL);
    storm_stream_stop(st, NULL);
    if (st->active) {
        storm_switch_teardown(st, st->active);
    }
    if (st->opts.log_dir) {
        struct bench_ovs *ovss[] = { &st->ovs_xdp, &st->ovs_stock };
        const char *names[] = { "ovs-xdp", "ovs-system" };

        for (size_t i = 0; i < ARRAY_SIZE(ovss); i++) {
            if (ovss[i]->dir) {
                bench_run(NULL, "cp %s/ovs-vswitchd.log '%s/%s.log'",
                          ovss[i]->dir, st->opts.log_dir, names[i]);
            }
        }
    }
    bench_ovs_destroy(&st->ovs_xdp);
    bench_ovs_destroy(&st->ovs_stock);
    bpf_link__destroy(st->sink_link);
    st->sink_link = NULL;
    if (st->nf_fd >= 0) {
        close(st->nf_fd);
        st->nf_fd = -1;
    }
    bench_pair_destroy(&st->gen);
    bench_pair_destroy(&st->sink);
    bench_pair_destroy(&st->send);
    bench_pair_destroy(&st->recv);
    bench_gen__destroy(st->gen_skel);
    st->gen_skel = NULL;
    bench_sink__destroy(st->sink_skel);
    st->sink_skel = NULL;
    free(st->stream.seen);
    st->stream.seen = NULL;
}

/* Builds the topology, with static neighbour entries between the
 * established stream's two ends, and loads the generator and the sink. */
static void
storm_setup(struct storm *st)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    struct ds why = DS_EMPTY_INITIALIZER;
    char *other_config = NULL;
    int status;

    st->bridge = xasprintf("%sbr%ld", BENCH_PREFIX, (long) getpid());
    if (bench_pair_create(&st->gen, "t", storm_gen_mac, NULL, &why)
        || bench_pair_create(&st->sink, "k", storm_sink_mac, NULL, &why)
        || bench_pair_create(&st->send, "e", storm_send_mac,
                             STORM_SEND_IP "/24", &why)
        || bench_pair_create(&st->recv, "r", storm_recv_mac,
                             STORM_RECV_IP "/24", &why)) {
        ovs_fatal(0, "cannot build the topology: %s", ds_cstr(&why));
    }
    fprintf(stderr, "topology: namespaces %s, %s, %s, %s; veths %s, %s, "
            "%s, %s\n", st->gen.ns, st->sink.ns, st->send.ns, st->recv.ns,
            st->gen.root_name, st->sink.root_name, st->send.root_name,
            st->recv.root_name);
    status = bench_run(&output,
                       "nsenter --net=/run/netns/%s ip neigh replace %s "
                       "lladdr "ETH_ADDR_FMT" dev %s nud permanent"
                       " && nsenter --net=/run/netns/%s ip neigh replace %s "
                       "lladdr "ETH_ADDR_FMT" dev %s nud permanent",
                       st->send.ns, STORM_RECV_IP,
                       ETH_ADDR_ARGS(storm_recv_mac), st->send.ns_name,
                       st->recv.ns, STORM_SEND_IP,
                       ETH_ADDR_ARGS(storm_send_mac), st->recv.ns_name);
    if (status) {
        bench_explain(&why, "ip neigh", status, &output);
        ovs_fatal(0, "cannot build the topology: %s", ds_cstr(&why));
    }

    st->gen_skel = bench_gen__open();
    if (!st->gen_skel) {
        ovs_fatal(errno, "cannot open the generator program");
    }
    /* Every UDP source port from FWD_UDP_SPORT_BASE up, and a new source
     * address per frame. */
    st->gen_skel->rodata->n_flows = 65536 - FWD_UDP_SPORT_BASE;
    st->gen_skel->rodata->sport_base = FWD_UDP_SPORT_BASE;
    st->gen_skel->rodata->vary_eth_src = 1;
    if (bench_gen__load(st->gen_skel)) {
        ovs_fatal(errno, "cannot load the generator program");
    }

    st->sink_skel = bench_sink__open();
    if (!st->sink_skel) {
        ovs_fatal(errno, "cannot open the sink program");
    }
    st->sink_skel->data->udp_dport = FWD_UDP_DPORT;
    st->sink_skel->bss->stream_daddr = fwd_ip(FWD_SINK_IP);
    if (bench_sink__load(st->sink_skel)) {
        ovs_fatal(errno, "cannot load the sink program");
    }
    st->sink_link = bench_xdp_attach(st->sink_skel->progs.bench_sink,
                                     st->sink.ns, st->sink.ns_name, &why);
    if (!st->sink_link) {
        ovs_fatal(0, "sink: %s", ds_cstr(&why));
    }
    storm_nf_open(st);
    ds_destroy(&output);
    ds_destroy(&why);

    if (st->opts.burst >= 0) {
        other_config = xasprintf("xdp-upcall-burst=%d", st->opts.burst);
    }
    bench_ovs_init(&st->ovs_xdp, "ovs-vswitchd-xdp", st->opts.ovs.vswitchd_xdp,
                   other_config);
    bench_ovs_init(&st->ovs_stock, "Debian's ovs-vswitchd",
                   st->opts.ovs.vswitchd_stock, NULL);
    free(other_config);
}

int
bench_storm_main(int argc, char *argv[])
{
    static struct storm st;
    size_t n_measured = 0;

    st.nf_fd = -1;
    storm_parse_options(&st, argc, argv);
    if (geteuid()) {
        ovs_fatal(0, "storm: must run as root (network namespaces, XDP and "
                  "BPF_PROG_TEST_RUN need it)");
    }

    /* Before any thread starts: fatal_signal_init() insists. */
    fatal_signal_add_hook(storm_cleanup, NULL, &st, true);

    bench_generator_init_signal();
    storm_setup(&st);

    for (size_t i = 0; i < STORM_N_SWITCHES; i++) {
        struct storm_result *r = &st.results[i];
        struct ds why = DS_EMPTY_INITIALIZER;

        if (!r->selected) {
            continue;
        }
        fprintf(stderr, "%-11s ", storm_switches[i].name);
        fflush(stderr);
        if (storm_measure(&st, i, &why)) {
            fatal_signal_run();
            r->skipped = ds_steal_cstr(&why);
            fprintf(stderr, "skipped: %s\n", r->skipped);
        } else {
            const struct storm_phase_result *s = &r->phases[STORM_STORM];

            fprintf(stderr, "storm %.2f Mpps, %lld established datagrams "
                    "lost\n", s->offered / s->seconds / 1e6,
                    storm_lost(s));
            n_measured++;
        }
        ds_destroy(&why);
    }
    storm_cleanup(&st);

    storm_print(&st);
    if (st.opts.ovs.json_file) {
        storm_write_json(&st);
    }
    return n_measured ? 0 : 1;
}
