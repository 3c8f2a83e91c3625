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
 * still forwarded, without a flow) and those that failed. */

#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_packet.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "bitmap.h"
#include "command-line.h"
#include "fatal-signal.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "ovs-atomic.h"
#include "ovs-thread.h"
#include "packets.h"
#include "signals.h"
#include "util.h"
#include "utilities/bench-common.h"
#include "utilities/bench-forward.h"
#include "utilities/ovs-xdp-bench.h"

#include "datapath/bench-gen.skel.h"
#include "datapath/bench-sink.skel.h"

/* Debian's own ovs-vswitchd (openvswitch-switch). */
#define STORM_STOCK_VSWITCHD "/usr/lib/openvswitch-switch/ovs-vswitchd"

/* Frames per BPF_PROG_TEST_RUN call, and the signal that interrupts one:
 * as in 'forward' (see FWD_REPEAT in bench-forward.c). */
#define STORM_REPEAT (1u << 26)
#define STORM_GENERATOR_SIGNAL SIGUSR1

/* The generator thread's nice value. */
#define STORM_GENERATOR_NICE (-10)

/* The established stream: UDP between two addresses of the benchmarking
 * range, to this port, datagrams of this magic. */
#define STORM_SEND_IP "198.19.0.1"
#define STORM_RECV_IP "198.19.0.2"
#define STORM_UDP_PORT 9000
#define STORM_MAGIC 0x6f786273     /* "oxbs". */

/* The new-flow frames: from the receiver's namespace to the sender's
 * address, each from a new source address (STORM_NF_MAC_PREFIX and a
 * counter), of this EtherType and with this magic. */
#define STORM_NF_ETH_TYPE 0x88b5    /* Local experimental EtherType. */
#define STORM_NF_MAGIC 0x6f78626e  /* "oxbn". */

/* Addresses of the four namespaces' veth ends ("oxb" in the middle).  The
 * storm's frames start from 'storm_gen_mac' and change its low four
 * bytes. */
static const struct eth_addr storm_gen_mac = ETH_ADDR_C(02,6f,78,62,00,11);
static const struct eth_addr storm_sink_mac = ETH_ADDR_C(02,6f,78,62,00,12);
static const struct eth_addr storm_send_mac = ETH_ADDR_C(02,6f,78,62,00,13);
static const struct eth_addr storm_recv_mac = ETH_ADDR_C(02,6f,78,62,00,14);
static const struct eth_addr storm_nf_mac = ETH_ADDR_C(06,6f,78,62,00,00);

/* Phases of a measurement.  The warm-up's datagrams are counted but not
 * reported. */
enum storm_phase {
    STORM_WARMUP,
    STORM_QUIET,
    STORM_STORM,
    STORM_AFTER,
    STORM_N_PHASES
};
static const char *const storm_phase_names[STORM_N_PHASES] = {
    "warmup", "quiet", "storm", "after"
};

/* The switches. */
enum storm_kind {
    STORM_OVS_XDP,              /* ovs-vswitchd-xdp, datapath_type=xdp. */
    STORM_OVS_STOCK,            /* Debian's ovs-vswitchd, netdev. */
};
static const struct storm_switch {
    const char *name;
    const char *description;
    enum storm_kind kind;
} storm_switches[] = {
    { "ovs-xdp", "ovs-vswitchd-xdp, datapath_type=xdp, actions=normal",
      STORM_OVS_XDP },
    { "ovs-system", "Debian ovs-vswitchd, datapath_type=netdev, system "
      "ports, actions=normal", STORM_OVS_STOCK },
};
#define STORM_N_SWITCHES ARRAY_SIZE(storm_switches)

/* A datagram of the established stream. */
struct storm_datagram {
    ovs_be32 magic;             /* STORM_MAGIC. */
    ovs_be32 phase;             /* enum storm_phase it was sent in. */
    ovs_be64 seq;               /* 0, 1, 2, ... */
};

/* The switch's counters at one moment; -1 where it has no such counter. */
struct storm_counters {
    long long missed;           /* Misses sent up, or refused. */
    long long refused;          /* Upcalls the budget or the flow limit
                                 * refused. */
    long long handled;          /* Upcalls ovs-vswitchd handled. */
    long long lost;             /* Upcalls lost otherwise (ring full). */
    long long forwarded;        /* ovs-xdp: frames forwarded in XDP. */
    double stream_sent;         /* Established datagrams sent by the
                                 * middle of the read. */
};

/* What one phase of one switch measured. */
struct storm_phase_result {
    double seconds;             /* Length of the phase. */
    unsigned long long sent;    /* Established datagrams sent, */
    unsigned long long send_errors;     /* refused by the sender's stack, */
    unsigned long long received;        /* received (once each), */
    unsigned long long dups;    /* received again, */
    unsigned long long sock_drops;      /* dropped by the receiver's
                                         * socket buffer (SO_RXQ_OVFL). */
    long long host_drops;       /* Drops the kernel counted on the
                                 * stream's four veth ends and in the
                                 * CPUs' backlogs (machine-wide), or -1. */
    unsigned long long offered; /* Storm frames offered. */
    unsigned long long delivered;       /* Storm frames at the sink. */
    double gen_cpu;             /* CPU seconds the generator's thread
                                 * used (its softirqs not included). */
    double cpu_busy;            /* Share of the storm's CPU that was busy, */
    double cpu_softirq;         /* and in softirq context. */
    struct storm_counters delta;        /* Counters' growth; its
                                         * 'stream_sent', datagrams sent
                                         * between the reads. */
    unsigned long long nf_sent; /* New-flow frames sent, */
    unsigned long long nf_received;     /* and received. */
    double *nf_latency;         /* Their one-way latencies, in seconds. */
    double *latency;            /* ovs-appctl durations, in seconds, */
    long long *rss;             /* and VmRSS in kB after each, */
    long long *flows;           /* and the datapath flows it told (-1 if
                                 * it did not), per probe. */
    size_t n_probes;            /* ovs-appctl runs. */
    size_t n_answered;          /* Of those, runs that exited 0. */
    long long flows_max;        /* Most datapath flows upcall/show told. */
    long long limit_min;        /* Least flow limit it told. */
    long long rss_start;        /* ovs-vswitchd's VmRSS, kB, at the start */
    long long rss_max;          /* and at most. */
    long long rss_end;          /* and at the end. */
};

/* The results of one switch. */
struct storm_result {
    bool selected;              /* Chosen by --switches. */
    char *skipped;              /* Why it was not measured, or NULL. */
    bool measured;              /* Measured. */
    struct storm_phase_result phases[STORM_N_PHASES];
};

/* Options. */
struct storm_options {
    double seconds;             /* Length of each phase. */
    double warmup;              /* Established stream before measuring. */
    double interval;            /* Between ovs-appctl probes. */
    unsigned int rate;          /* Established datagrams per second. */
    int burst;                  /* xdp-upcall-burst, -1 for the default. */
    int cpu;                    /* Storm generator's CPU. */
    unsigned int batch_size;    /* BPF_PROG_TEST_RUN batch size. */
    char *json_file;            /* --json, or NULL. */
    char *vswitchd_xdp;         /* ovs-vswitchd-xdp, or NULL if none. */
    char *vswitchd_stock;       /* Debian's ovs-vswitchd. */
    bool switches[STORM_N_SWITCHES];    /* Chosen by --switches. */
};

/* The established stream's two threads.  The main thread writes 'phase'
 * and the 'stop_*' flags; each thread writes its own counters, which the
 * main thread reads only after joining it, but for the atomic ones. */
struct storm_stream {
    atomic_int phase;           /* enum storm_phase now. */
    atomic_bool stop_sender;    /* Set to end the sender, */
    atomic_bool stop_receiver;  /* and the receiver. */
    unsigned int rate;          /* Datagrams per second. */
    int cpu;                    /* CPU to avoid, or -1. */
    const char *send_ns;
    const char *recv_ns;

    pthread_t sender, receiver;
    bool running;
    atomic_bool receiver_ready; /* The receiver's socket is bound. */
    int error;                  /* Positive errno if a thread failed, */
    const char *what;           /* and what failed. */

    /* Sender's counters. */
    unsigned long long sent[STORM_N_PHASES];
    unsigned long long send_errors[STORM_N_PHASES];
    atomic_ullong n_sent;       /* All datagrams sent so far. */

    /* Receiver's counters. */
    unsigned long *seen;        /* Bitmap of the numbers received. */
    size_t n_seen_bits;         /* Its size. */
    unsigned long long received[STORM_N_PHASES];
    unsigned long long dups[STORM_N_PHASES];
    unsigned long long sock_drops[STORM_N_PHASES];
    atomic_ullong n_received;   /* All datagrams received so far. */
};

/* The storm's generator thread (as in bench-forward.c). */
struct storm_generator {
    pthread_t thread;
    bool running;
    atomic_bool stop;
    atomic_bool exited;
    int error;
    const char *what;
    int prog_fd;
    const char *ns;
    const char *ifname;
    int cpu;
    unsigned int batch_size;
    uint8_t frame[FWD_FRAME_SIZE];
};

/* The whole benchmark, reachable from the cleanup hook. */
struct storm {
    struct storm_options opts;
    struct storm_result results[STORM_N_SWITCHES];

    struct bench_pair gen;      /* The storm's pair. */
    struct bench_pair sink;     /* Its sink's pair. */
    struct bench_pair send;     /* The established stream's sender's */
    struct bench_pair recv;     /* and receiver's. */
    char *bridge;
    struct bench_ovs ovs_xdp;
    struct bench_ovs ovs_stock;
    const struct storm_switch *active;  /* Set up now, or NULL. */

    struct bench_gen *gen_skel;
    struct bench_sink *sink_skel;
    struct bpf_link *sink_link;

    struct storm_generator generator;
    struct storm_stream stream;

    int nf_fd;                  /* Packet socket in the send namespace
                                 * that receives the new-flow frames, or
                                 * -1. */
    unsigned long long nf_seq;  /* New-flow frames sent so far. */
    struct storm_result *nf_result;     /* Where they count now. */
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
  -h, --help             display this help message\n",
           program_name, program_name, STORM_STOCK_VSWITCHD);
}

static const char *
storm_switch_name(size_t i)
{
    return storm_switches[i].name;
}

static double
storm_parse_seconds(const char *option, const char *arg)
{
    char *end;
    double value = strtod(arg, &end);

    if (*end || !(value > 0) || value > 3600) {
        ovs_fatal(0, "%s: \"%s\" is not a number of seconds", option, arg);
    }
    return value;
}

static unsigned int
storm_parse_count(const char *option, const char *arg, unsigned int min,
                  unsigned int max)
{
    char *end;
    unsigned long value = strtoul(arg, &end, 10);

    if (*end || !*arg || value < min || value > max) {
        ovs_fatal(0, "%s: \"%s\" is not a number from %u to %u",
                  option, arg, min, max);
    }
    return value;
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
        OPT_VSWITCHD_XDP,
        OPT_VSWITCHD,
        OPT_JSON,
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
        {"vswitchd-xdp", required_argument, NULL, OPT_VSWITCHD_XDP},
        {"vswitchd", required_argument, NULL, OPT_VSWITCHD},
        {"json", required_argument, NULL, OPT_JSON},
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
        }
        switch (c) {
        case OPT_SECONDS:
            opts->seconds = storm_parse_seconds("--seconds", optarg);
            break;
        case OPT_WARMUP:
            opts->warmup = storm_parse_seconds("--warmup", optarg);
            break;
        case OPT_INTERVAL:
            opts->interval = storm_parse_seconds("--interval", optarg);
            break;
        case OPT_RATE:
            opts->rate = storm_parse_count("--rate", optarg, 1, 1000000);
            break;
        case OPT_BURST:
            opts->burst = storm_parse_count("--burst", optarg, 0, 1000000);
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
            opts->batch_size = storm_parse_count("--batch-size", optarg,
                                                 1, 256);
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
    if (optind < argc) {
        ovs_fatal(0, "storm: unexpected argument \"%s\" (use --help)",
                  argv[optind]);
    }
    if (!cpu_set) {
        opts->cpu = storm_default_cpu();
    }
    if (!opts->vswitchd_xdp) {
        opts->vswitchd_xdp = bench_default_vswitchd_xdp();
    }
    if (!opts->vswitchd_stock) {
        opts->vswitchd_stock = xstrdup(STORM_STOCK_VSWITCHD);
    }
    for (size_t i = 0; i < STORM_N_SWITCHES; i++) {
        st->results[i].selected = opts->switches[i];
    }
}

/* Threads: common. */

/* Pins the calling thread to every CPU this process may use but 'avoid',
 * if there is another. */
static void
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
static int
storm_thread_enter(const char *ns)
{
    int saved_fd;
    int error = bench_netns_enter(ns, &saved_fd);

    if (!error && saved_fd >= 0) {
        close(saved_fd);
    }
    return error;
}

/* Blocks every signal in the calling thread but 'except' (0: none). */
static void
storm_block_signals(int except)
{
    sigset_t signals;

    sigfillset(&signals);
    if (except) {
        sigdelset(&signals, except);
    }
    pthread_sigmask(SIG_SETMASK, &signals, NULL);
}

/* The established stream. */

static void *
storm_sender_main(void *s_)
{
    struct storm_stream *s = s_;
    struct sockaddr_in sin;
    unsigned long long seq = 0;
    double start;
    int fd;

    storm_block_signals(0);
    storm_avoid_cpu(s->cpu);
    s->error = storm_thread_enter(s->send_ns);
    if (s->error) {
        s->what = "sender: cannot enter its namespace";
        return NULL;
    }
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        s->error = errno;
        s->what = "sender: socket";
        return NULL;
    }
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons(STORM_UDP_PORT);
    sin.sin_addr.s_addr = fwd_ip(STORM_RECV_IP);
    /* No UDP checksum: a datagram with a checksum left to the device
     * (CHECKSUM_PARTIAL, as veths take them) reaches the receiver with a
     * wrong one through a switch that reads frames from packet sockets,
     * such as OVS's userspace datapath with system ports. */
    if (setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &(int) { 1 }, sizeof(int))
        || connect(fd, (struct sockaddr *) &sin, sizeof sin)) {
        s->error = errno;
        s->what = "sender: connect";
        close(fd);
        return NULL;
    }

    /* Sends what the rate asks for by now, then sleeps 200 us: a steady
     * stream, that catches up after the thread could not run. */
    start = bench_now();
    for (;;) {
        struct timespec ts = { .tv_nsec = 200 * 1000 };
        unsigned long long due;
        bool stop;
        int phase;

        atomic_read_relaxed(&s->stop_sender, &stop);
        if (stop) {
            break;
        }
        atomic_read_relaxed(&s->phase, &phase);
        due = (bench_now() - start) * s->rate;
        while (seq < due) {
            struct storm_datagram d = {
                .magic = htonl(STORM_MAGIC),
                .phase = htonl(phase),
                .seq = htonll(seq),
            };

            if (send(fd, &d, sizeof d, 0) != sizeof d) {
                s->send_errors[phase]++;
            }
            s->sent[phase]++;
            seq++;
        }
        atomic_store_relaxed(&s->n_sent, seq);
        nanosleep(&ts, NULL);
    }
    close(fd);
    return NULL;
}

/* Marks 'seq', of phase 'phase', as received. */
static void
storm_receive(struct storm_stream *s, unsigned long long seq, int phase)
{
    if (seq >= s->n_seen_bits) {
        size_t n = MAX(seq + 1, 2 * s->n_seen_bits);

        s->seen = xrealloc(s->seen, bitmap_n_bytes(n));
        memset((char *) s->seen + bitmap_n_bytes(s->n_seen_bits), 0,
               bitmap_n_bytes(n) - bitmap_n_bytes(s->n_seen_bits));
        s->n_seen_bits = bitmap_n_bytes(n) * CHAR_BIT;
    }
    if (bitmap_is_set(s->seen, seq)) {
        s->dups[phase]++;
    } else {
        bitmap_set1(s->seen, seq);
        s->received[phase]++;
    }
}

static void *
storm_receiver_main(void *s_)
{
    struct storm_stream *s = s_;
    struct timeval tv = { .tv_usec = 50 * 1000 };
    int one = 1, bufsize = 16 << 20;
    uint32_t last_drops = 0;
    unsigned long long n = 0;
    struct sockaddr_in sin;
    int fd;

    storm_block_signals(0);
    storm_avoid_cpu(s->cpu);
    s->error = storm_thread_enter(s->recv_ns);
    if (s->error) {
        s->what = "receiver: cannot enter its namespace";
        goto out;
    }
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        s->error = errno;
        s->what = "receiver: socket";
        goto out;
    }
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons(STORM_UDP_PORT);
    sin.sin_addr.s_addr = fwd_ip(STORM_RECV_IP);
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsize, sizeof bufsize)
        || setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one)
        || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv)
        || bind(fd, (struct sockaddr *) &sin, sizeof sin)) {
        s->error = errno;
        s->what = "receiver: socket options or bind";
        close(fd);
        goto out;
    }
    atomic_store_relaxed(&s->receiver_ready, true);

    for (;;) {
        char control[CMSG_SPACE(sizeof(uint32_t))];
        struct storm_datagram d;
        struct iovec iov = { .iov_base = &d, .iov_len = sizeof d };
        struct msghdr msg = {
            .msg_iov = &iov,
            .msg_iovlen = 1,
            .msg_control = control,
            .msg_controllen = sizeof control,
        };
        ssize_t retval;
        bool stop;
        int phase;

        atomic_read_relaxed(&s->stop_receiver, &stop);
        if (stop) {
            break;
        }
        retval = recvmsg(fd, &msg, 0);
        if (retval != sizeof d || ntohl(d.magic) != STORM_MAGIC) {
            continue;
        }
        phase = ntohl(d.phase);
        if (phase < 0 || phase >= STORM_N_PHASES) {
            continue;
        }
        storm_receive(s, ntohll(d.seq), phase);
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c;
             c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
                uint32_t drops;

                memcpy(&drops, CMSG_DATA(c), sizeof drops);
                s->sock_drops[phase] += drops - last_drops;
                last_drops = drops;
            }
        }
        atomic_store_relaxed(&s->n_received, ++n);
    }
    close(fd);
out:
    /* Lets the main thread stop waiting, even after an error. */
    atomic_store_relaxed(&s->receiver_ready, true);
    return NULL;
}

/* Starts the stream's two threads, the receiver first. */
static void
storm_stream_start(struct storm *st)
{
    struct storm_stream *s = &st->stream;
    bool ready;

    free(s->seen);
    memset(s, 0, sizeof *s);
    s->rate = st->opts.rate;
    s->cpu = st->opts.cpu;
    s->send_ns = st->send.ns;
    s->recv_ns = st->recv.ns;
    atomic_init(&s->phase, STORM_WARMUP);
    atomic_init(&s->stop_sender, false);
    atomic_init(&s->stop_receiver, false);
    atomic_init(&s->receiver_ready, false);
    atomic_init(&s->n_sent, 0);
    atomic_init(&s->n_received, 0);

    s->receiver = ovs_thread_create("storm-recv", storm_receiver_main, s);
    do {
        bench_sleep(0.01);
        atomic_read_relaxed(&s->receiver_ready, &ready);
    } while (!ready);
    s->sender = ovs_thread_create("storm-send", storm_sender_main, s);
    s->running = true;
}

/* Stops the sender, waits until the receiver has had what is still on its
 * way (nothing more for 0.3 s), stops the receiver.  Returns 0, or a
 * positive errno value after explaining in 'why' if a thread failed. */
static int
storm_stream_stop(struct storm *st, struct ds *why)
{
    struct storm_stream *s = &st->stream;
    unsigned long long last = 0, n;
    double quiet_since;

    if (!s->running) {
        return 0;
    }
    atomic_store_relaxed(&s->stop_sender, true);
    xpthread_join(s->sender, NULL);

    /* The receiver looks at its flag between datagrams, and its receive
     * times out every 50 ms. */
    quiet_since = bench_now();
    for (int i = 0; i < 100; i++) {
        bench_sleep(0.05);
        atomic_read_relaxed(&s->n_received, &n);
        if (n != last) {
            last = n;
            quiet_since = bench_now();
        } else if (bench_now() - quiet_since >= 0.3) {
            break;
        }
    }
    atomic_store_relaxed(&s->stop_receiver, true);
    xpthread_join(s->receiver, NULL);
    s->running = false;
    if (s->error && why) {
        ds_put_format(why, "%s (%s)", s->what, ovs_strerror(s->error));
    }
    return s->error;
}

/* The storm's generator. */

static void
storm_generator_signal_handler(int sig OVS_UNUSED)
{
}

static void *
storm_generator_main(void *gen_)
{
    struct storm_generator *gen = gen_;
    unsigned int ifindex;
    cpu_set_t cpus;

    storm_block_signals(STORM_GENERATOR_SIGNAL);

    /* A NIC's receive path runs in softirq context, ahead of every thread
     * on its CPU: a storm stands for one only if it is not itself pushed
     * aside by the switch's threads.  Best effort. */
    setpriority(PRIO_PROCESS, syscall(SYS_gettid), STORM_GENERATOR_NICE);
    CPU_ZERO(&cpus);
    CPU_SET(gen->cpu, &cpus);
    if (sched_setaffinity(0, sizeof cpus, &cpus)) {
        gen->error = errno;
        gen->what = "cannot pin the generator to its CPU";
        goto out;
    }
    gen->error = storm_thread_enter(gen->ns);
    if (gen->error) {
        gen->what = "cannot enter the generator's namespace";
        goto out;
    }
    ifindex = if_nametoindex(gen->ifname);
    if (!ifindex) {
        gen->error = errno;
        gen->what = "generator's veth end";
        goto out;
    }

    struct xdp_md ctx = {
        .data_end = FWD_FRAME_SIZE,
        .ingress_ifindex = ifindex,
    };
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = gen->frame,
                .data_size_in = FWD_FRAME_SIZE,
                .ctx_in = &ctx,
                .ctx_size_in = sizeof ctx,
                .repeat = STORM_REPEAT,
                .flags = BPF_F_TEST_XDP_LIVE_FRAMES,
                .batch_size = gen->batch_size);
    for (;;) {
        bool stop;
        int error;

        atomic_read_relaxed(&gen->stop, &stop);
        if (stop) {
            break;
        }
        error = bpf_prog_test_run_opts(gen->prog_fd, &opts);
        if (error && error != -EINTR) {
            gen->error = -error;
            gen->what = "BPF_PROG_TEST_RUN with live frames";
            break;
        }
    }
out:
    atomic_store_relaxed(&gen->exited, true);
    return NULL;
}

static void
storm_generator_start(struct storm *st)
{
    struct storm_generator *gen = &st->generator;
    const struct ip_header *ip = (const struct ip_header *)
        (gen->frame + sizeof(struct eth_header));

    fwd_put_frame(gen->frame, storm_gen_mac, storm_sink_mac, FWD_GEN_IP,
                  FWD_SINK_IP, FWD_UDP_SPORT_BASE, FWD_UDP_DPORT);
    st->gen_skel->bss->ip_daddr = get_16aligned_be32(&ip->ip_dst);
    st->gen_skel->bss->ip_csum = ip->ip_csum;

    gen->prog_fd = bpf_program__fd(st->gen_skel->progs.bench_gen);
    gen->ns = st->gen.ns;
    gen->ifname = st->gen.ns_name;
    gen->cpu = st->opts.cpu;
    gen->batch_size = st->opts.batch_size;
    gen->error = 0;
    gen->what = NULL;
    atomic_store_relaxed(&gen->stop, false);
    atomic_store_relaxed(&gen->exited, false);
    gen->thread = ovs_thread_create("storm-gen", storm_generator_main, gen);
    gen->running = true;
}

/* Stops the generator, if it runs.  Returns 0 if it ran without error,
 * otherwise a positive errno value after explaining in 'why', if 'why' is
 * nonnull. */
static int
storm_generator_stop(struct storm *st, struct ds *why)
{
    struct storm_generator *gen = &st->generator;

    if (!gen->running) {
        return 0;
    }
    /* The signal may come just before the thread enters the kernel, so
     * send it until the thread is gone. */
    atomic_store_relaxed(&gen->stop, true);
    for (;;) {
        struct timespec ts = { .tv_nsec = 10 * 1000 * 1000 };
        bool exited;

        atomic_read_relaxed(&gen->exited, &exited);
        if (exited) {
            break;
        }
        pthread_kill(gen->thread, STORM_GENERATOR_SIGNAL);
        nanosleep(&ts, NULL);
    }
    xpthread_join(gen->thread, NULL);
    gen->running = false;
    if (gen->error && why) {
        ds_put_format(why, "generator: %s (%s)", gen->what,
                      ovs_strerror(gen->error));
    }
    return gen->error;
}

/* Reading the switch. */

static struct bench_ovs *
storm_switch_ovs(struct storm *st, const struct storm_switch *sw)
{
    return sw->kind == STORM_OVS_XDP ? &st->ovs_xdp : &st->ovs_stock;
}

/* Sums, for each of the 'n' 'names', the values of the "  NAME: VALUE"
 * lines that 'command' (ovs-appctl ...) prints into '*values[i]', which
 * is -1 if no line has it. */
static void
storm_read_counters(struct bench_ovs *ovs, const char *command,
                    const char *const names[], long long *const values[],
                    size_t n)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    char *line, *save_ptr = NULL;

    for (size_t i = 0; i < n; i++) {
        *values[i] = -1;
    }
    if (bench_ovs_run(ovs, &output, "ovs-appctl --timeout=10 %s", command)) {
        ds_destroy(&output);
        return;
    }
    for (line = strtok_r(ds_cstr(&output), "\n", &save_ptr); line;
         line = strtok_r(NULL, "\n", &save_ptr)) {
        const char *s = line + strspn(line, " ");

        for (size_t i = 0; i < n; i++) {
            size_t len = strlen(names[i]);
            long long value;

            if (!strncmp(s, names[i], len) && s[len] == ':'
                && sscanf(s + len + 1, "%lld", &value) == 1) {
                *values[i] = MAX(*values[i], 0) + value;
            }
        }
    }
    ds_destroy(&output);
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

        storm_read_counters(ovs, "dpif-xdp/stats-show", names, values,
                            ARRAY_SIZE(names));
        /* xdp-upcall-lost includes the upcalls the budget refused. */
        c->lost = (xdp_lost < 0 || ovs_lost < 0 || c->refused < 0 ? -1
                   : xdp_lost - c->refused + ovs_lost);
    } else {
        static const char *const names[] = {
            "miss with success upcall", "miss with failed upcall",
        };
        long long *const values[] = { &c->handled, &c->refused };

        storm_read_counters(ovs, "dpif-netdev/pmd-stats-show", names,
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

/* The payload of a new-flow frame, after its Ethernet header. */
struct storm_nf_payload {
    ovs_be32 magic;             /* STORM_NF_MAGIC. */
    ovs_be32 phase;             /* enum storm_phase it was sent in. */
    ovs_be64 sent_ns;           /* CLOCK_REALTIME when sent, in ns. */
};

/* Opens 'st->nf_fd', the packet socket in the send namespace that
 * receives the new-flow frames, with kernel receive timestamps. */
static void
storm_nf_open(struct storm *st)
{
    int saved_fd, fd, error;
    struct sockaddr_ll sll;

    error = bench_netns_enter(st->send.ns, &saved_fd);
    if (error) {
        ovs_fatal(error, "cannot enter namespace %s", st->send.ns);
    }
    memset(&sll, 0, sizeof sll);
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(STORM_NF_ETH_TYPE);
    sll.sll_ifindex = if_nametoindex(st->send.ns_name);
    fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
                htons(STORM_NF_ETH_TYPE));
    if (fd < 0 || !sll.sll_ifindex
        || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &(int) { 1 },
                      sizeof(int))
        || bind(fd, (struct sockaddr *) &sll, sizeof sll)) {
        ovs_fatal(errno, "cannot open the new-flow frames' socket");
    }
    bench_netns_leave(saved_fd);
    st->nf_fd = fd;
}

/* Sends a new-flow frame from the receiver's veth end to the sender's
 * address, from a new source address, tagged with 'phase'.  Sends it from
 * the storm's CPU, whose upcall ring the storm's misses use too: the
 * kernel then switches the frame on that CPU (the backlog of the CPU that
 * transmits into a veth). */
static void
storm_nf_send(struct storm *st, enum storm_phase phase)
{
    uint8_t frame[ETH_HEADER_LEN + sizeof(struct storm_nf_payload) + 32];
    struct eth_header *eth = (struct eth_header *) frame;
    struct storm_nf_payload *pl = (struct storm_nf_payload *) (eth + 1);
    unsigned long long seq = st->nf_seq++;
    struct timespec now;
    cpu_set_t saved, cpus;
    bool pinned;

    memset(frame, 0, sizeof frame);
    eth->eth_dst = storm_send_mac;
    eth->eth_src = storm_nf_mac;
    eth->eth_src.ea[3] = seq >> 16;
    eth->eth_src.ea[4] = seq >> 8;
    eth->eth_src.ea[5] = seq;
    eth->eth_type = htons(STORM_NF_ETH_TYPE);
    pl->magic = htonl(STORM_NF_MAGIC);
    pl->phase = htonl(phase);

    CPU_ZERO(&cpus);
    CPU_SET(st->opts.cpu, &cpus);
    pinned = (!sched_getaffinity(0, sizeof saved, &saved)
              && !sched_setaffinity(0, sizeof cpus, &cpus));
    clock_gettime(CLOCK_REALTIME, &now);
    pl->sent_ns = htonll(now.tv_sec * 1000000000ULL + now.tv_nsec);
    bench_send_frame(st->recv.ns, st->recv.ns_name, frame, sizeof frame);
    if (pinned) {
        sched_setaffinity(0, sizeof saved, &saved);
    }
    st->nf_result->phases[phase].nf_sent++;
}

/* Receives the new-flow frames that arrived so far. */
static void
storm_nf_receive(struct storm *st)
{
    for (;;) {
        uint8_t frame[256];
        char control[CMSG_SPACE(sizeof(struct timespec))];
        struct iovec iov = { .iov_base = frame, .iov_len = sizeof frame };
        struct msghdr msg = {
            .msg_iov = &iov,
            .msg_iovlen = 1,
            .msg_control = control,
            .msg_controllen = sizeof control,
        };
        const struct storm_nf_payload *pl;
        struct storm_phase_result *p;
        struct timespec ts = { 0, 0 };
        ssize_t n;
        int phase;

        n = recvmsg(st->nf_fd, &msg, 0);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            break;
        }
        if (n < ETH_HEADER_LEN + sizeof *pl) {
            continue;
        }
        pl = (const struct storm_nf_payload *) (frame + ETH_HEADER_LEN);
        phase = ntohl(pl->phase);
        if (ntohl(pl->magic) != STORM_NF_MAGIC || phase < 0
            || phase >= STORM_N_PHASES) {
            continue;
        }
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c;
             c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET
                && c->cmsg_type == SO_TIMESTAMPNS) {
                memcpy(&ts, CMSG_DATA(c), sizeof ts);
            }
        }
        p = &st->nf_result->phases[phase];
        p->nf_latency = xrealloc(p->nf_latency, (p->nf_received + 1)
                                 * sizeof *p->nf_latency);
        p->nf_latency[p->nf_received++]
            = (ts.tv_sec * 1e9 + ts.tv_nsec
               - (double) ntohll(pl->sent_ns)) / 1e9;
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

/* Adds to '*sum' the RX and TX drops of 'ifname' in namespace 'ns' (NULL:
 * the root namespace), as "ip -s -o link show" tells them.  Returns false
 * if it does not tell. */
static bool
storm_add_link_drops(const char *ns, const char *ifname, long long *sum)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    const char *dirs[] = { "RX:", "TX:" };
    bool ok = true;

    if (bench_run(&output, "ip %s%s -s -o link show %s", ns ? "-n " : "",
                  ns ? ns : "", ifname)) {
        ds_destroy(&output);
        return false;
    }
    for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
        /* "RX:  bytes packets errors dropped ... \    1234 5 0 0 ..." */
        const char *p = strstr(ds_cstr(&output), dirs[i]);
        unsigned long long bytes, packets, errors, dropped;

        p = p ? strchr(p, '\\') : NULL;
        if (!p || sscanf(p + 1, "%llu %llu %llu %llu", &bytes, &packets,
                         &errors, &dropped) != 4) {
            ok = false;
            break;
        }
        *sum += dropped;
    }
    ds_destroy(&output);
    return ok;
}

/* Returns the drops that the kernel counted so far on the established
 * stream's four veth ends and in every CPU's backlog (/proc/net/
 * softnet_stat, whose drops are machine-wide), or -1 if it does not
 * tell. */
static long long
storm_host_drops(const struct storm *st)
{
    const struct bench_pair *pairs[] = { &st->send, &st->recv };
    long long sum = 0;
    char line[512];
    FILE *stream;

    for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
        if (!storm_add_link_drops(NULL, pairs[i]->root_name, &sum)
            || !storm_add_link_drops(pairs[i]->ns, pairs[i]->ns_name,
                                     &sum)) {
            return -1;
        }
    }
    stream = fopen("/proc/net/softnet_stat", "re");
    if (!stream) {
        return -1;
    }
    while (fgets(line, sizeof line, stream)) {
        unsigned int processed, dropped;

        if (sscanf(line, "%x %x", &processed, &dropped) == 2) {
            sum += dropped;
        }
    }
    fclose(stream);
    return sum;
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
    struct storm_generator *gen = &st->generator;
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
    error = storm_generator_stop(st, why);
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
    r->measured = true;
    return 0;
}

/* Results. */

/* Established datagrams of phase 'p' that never arrived. */
static long long
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

static void
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

static void
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

    char *s = json_to_string(top, JSSF_PRETTY | JSSF_SORT);
    FILE *stream = fopen(opts->json_file, "w");
    if (!stream || fprintf(stream, "%s\n", s) < 0 || fclose(stream)) {
        ovs_error(errno, "%s: cannot write results", opts->json_file);
    }
    free(s);
    json_destroy(top);
}

/* Setup and cleanup of the whole benchmark. */

/* Removes everything the benchmark built.  Runs at exit and on fatal
 * signals (fatal_signal_add_hook()), and is safe to run more than once. */
static void
storm_cleanup(void *st_)
{
    struct storm *st = st_;

    storm_generator_stop(st, NULL);
    storm_stream_stop(st, NULL);
    if (st->active) {
        storm_switch_teardown(st, st->active);
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
    st->sink_skel->rodata->udp_dport = FWD_UDP_DPORT;
    st->sink_skel->rodata->stream_daddr = fwd_ip(FWD_SINK_IP);
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
    bench_ovs_init(&st->ovs_xdp, "ovs-vswitchd-xdp", st->opts.vswitchd_xdp,
                   other_config);
    bench_ovs_init(&st->ovs_stock, "Debian's ovs-vswitchd",
                   st->opts.vswitchd_stock, NULL);
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

    /* No SA_RESTART: the signal must end the generator's system call. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = storm_generator_signal_handler;
    sigemptyset(&sa.sa_mask);
    xsigaction(STORM_GENERATOR_SIGNAL, &sa, NULL);
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
    if (st.opts.json_file) {
        storm_write_json(&st);
    }
    return n_measured ? 0 : 1;
}
