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

#ifndef BENCH_STORM_H
#define BENCH_STORM_H 1

/* The state of ovs-xdp-bench storm, shared by its three files:
 * bench-storm.c (the topology, the storm, the switches, the probes and the
 * phases; its opening comment explains the benchmark),
 * bench-storm-traffic.c (the established stream's threads, the new-flow
 * frames and the drops the host counted) and bench-storm-report.c (the
 * tables and the JSON results).  Private to ovs-xdp-bench. */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "openvswitch/types.h"
#include "ovs-atomic.h"
#include "utilities/bench-common.h"
#include "utilities/bench-forward.h"
#include "utilities/bench-generator.h"

struct bench_gen;
struct bench_sink;
struct bpf_link;
struct ds;

/* The established stream: UDP between two addresses of the benchmarking
 * range, to this port, datagrams of this magic. */
#define STORM_SEND_IP "198.19.0.1"
#define STORM_RECV_IP "198.19.0.2"
#define STORM_UDP_PORT 9000
#define STORM_MAGIC 0x6f786273     /* "oxbs". */

/* The new-flow frames: from the receiver's namespace to the sender's
 * address, each from a new source address (storm_nf_mac and a
 * counter), of this EtherType and with this magic. */
#define STORM_NF_ETH_TYPE 0x88b5    /* Local experimental EtherType. */
#define STORM_NF_MAGIC 0x6f78626e  /* "oxbn". */

/* Addresses of the four namespaces' veth ends ("oxb" in the middle).  The
 * storm's frames start from 'storm_gen_mac' and change its low four
 * bytes. */
extern const struct eth_addr storm_gen_mac;
extern const struct eth_addr storm_sink_mac;
extern const struct eth_addr storm_send_mac;
extern const struct eth_addr storm_recv_mac;
extern const struct eth_addr storm_nf_mac;

/* Phases of a measurement.  The warm-up's datagrams are counted but not
 * reported. */
enum storm_phase {
    STORM_WARMUP,
    STORM_QUIET,
    STORM_STORM,
    STORM_AFTER,
    STORM_N_PHASES
};
extern const char *const storm_phase_names[STORM_N_PHASES];

/* The switches under test. */
enum storm_kind {
    STORM_OVS_XDP,              /* ovs-vswitchd-xdp, datapath_type=xdp. */
    STORM_OVS_STOCK,            /* Debian's ovs-vswitchd, netdev. */
};
struct storm_switch {
    const char *name;           /* For --switches and the tables. */
    const char *description;    /* One line for the legend. */
    enum storm_kind kind;
};
#define STORM_N_SWITCHES 2
extern const struct storm_switch storm_switches[STORM_N_SWITCHES];

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
    char *lost_ranges;          /* When the lost datagrams were sent, or
                                 * NULL if none was lost. */
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
    struct bench_ovs_options ovs;  /* --vswitchd-xdp, --vswitchd, --json. */
    char *log_dir;              /* --log-dir, or NULL. */
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
    double start_realtime;      /* CLOCK_REALTIME when it sent number 0:
                                 * number N was due 'N / rate' later. */

    /* Receiver's counters. */
    unsigned long *seen;        /* Bitmap of the numbers received. */
    size_t n_seen_bits;         /* Its size. */
    unsigned long long received[STORM_N_PHASES];
    unsigned long long dups[STORM_N_PHASES];
    unsigned long long sock_drops[STORM_N_PHASES];
    atomic_ullong n_received;   /* All datagrams received so far. */
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

    struct bench_generator generator;
    uint8_t gen_frame[FWD_FRAME_SIZE];  /* The storm's frame. */
    struct storm_stream stream;

    int nf_fd;                  /* Packet socket in the send namespace
                                 * that receives the new-flow frames, or
                                 * -1. */
    unsigned long long nf_seq;  /* New-flow frames sent so far. */
    struct storm_result *nf_result;     /* Where they count now. */
};

/* bench-storm.c. */
void storm_block_signals(void);
int storm_thread_enter(const char *ns);
void storm_avoid_cpu(int avoid);

/* bench-storm-traffic.c: the established stream. */
void storm_stream_start(struct storm *);
int storm_stream_stop(struct storm *, struct ds *why);

char *storm_stream_lost_ranges(const struct storm *);

/* bench-storm-traffic.c: new flows on the other ports. */
void storm_nf_open(struct storm *);
void storm_nf_send(struct storm *, enum storm_phase);
void storm_nf_receive(struct storm *);

/* bench-storm-traffic.c: drops the host counted. */
long long storm_host_drops(const struct storm *);

/* bench-storm-report.c. */
long long storm_lost(const struct storm_phase_result *);
void storm_print(const struct storm *);
void storm_write_json(const struct storm *);

#endif /* bench-storm.h */
