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

#ifndef BENCH_FORWARD_H
#define BENCH_FORWARD_H 1

/* The state of ovs-xdp-bench forward, shared by its files: the opening
 * comment of bench-forward.c explains the benchmark and says what each
 * file holds.  Private to ovs-xdp-bench. */

#include <stdbool.h>
#include <stdint.h>

#include "openvswitch/types.h"
#include "utilities/bench-common.h"
#include "utilities/bench-generator.h"

struct bench_gen;
struct bench_redirect;
struct bench_sink;
struct bpf_link;
struct ds;
struct svec;

/* The frames: 64 bytes of Ethernet, IPv4 and UDP to port FWD_UDP_DPORT,
 * from FWD_UDP_SPORT_BASE and up. */
#define FWD_FRAME_SIZE 64

/* The longest frame the generator sends: the stream's frame in a tunnel
 * header (bench-forward-tnl.c). */
#define FWD_FRAME_MAX 128
#define FWD_UDP_DPORT 9
#define FWD_UDP_SPORT_BASE 1024

/* IPv4 addresses, in the benchmarking range 198.18.0.0/15: the
 * generator's, the sink's, and the virtual address that conntrack-dnat
 * translates to the sink's. */
#define FWD_GEN_IP "198.18.0.1"
#define FWD_SINK_IP "198.18.0.2"
#define FWD_VIP "198.18.0.100"

/* The connections the OVS switches' trackers may hold in conntrack-setup
 * (dpctl/ct-set-maxconns). */
#define FWD_SETUP_MAXCONNS 16000000

/* The tunnel pipelines' endpoints: the switch's underlay address and the
 * remote one, behind its underlay port. */
#define FWD_TNL_LOCAL_IP "198.19.0.1"
#define FWD_TNL_REMOTE_IP "198.19.0.2"

/* The conntrack zone of the stateful pipelines. */
#define FWD_CT_ZONE 1

/* Seconds during which the sink checks headers after a measurement. */
#define FWD_CHECK_TIME 0.1

/* What kind of switch a 'struct fwd_switch' is. */
enum fwd_kind {
    FWD_FLOOR,                  /* bench-redirect.bpf.c between the ends. */
    FWD_OVS_XDP,                /* ovs-vswitchd-xdp, datapath_type=xdp. */
    FWD_OVS_STOCK,              /* Debian's ovs-vswitchd, netdev. */
    FWD_LINUX_BRIDGE,           /* The kernel's bridge. */
};

/* A switch under test. */
struct fwd_switch {
    const char *name;           /* For --switches and the table. */
    const char *description;    /* One line for the table's legend. */
    enum fwd_kind kind;
    const char *port_type;      /* FWD_OVS_STOCK: Interface type, NULL for
                                 * system ports. */
    bool normal;                /* FWD_OVS_*: actions=normal instead of
                                 * the pipeline's flows. */
};

/* The number of switches under test: the entries of fwd_switches[] in
 * bench-forward.c. */
#define FWD_N_SWITCHES 6

/* What the switch does with the stream (--pipeline).  The floor has no
 * pipeline: it is measured once per run, as FWD_STATELESS, whichever
 * pipelines are chosen. */
enum fwd_pipeline {
    FWD_STATELESS,              /* Forward by port. */
    FWD_CONNTRACK,              /* A stateful firewall. */
    FWD_CONNTRACK_DNAT,         /* The same, with destination NAT. */
    FWD_CONNTRACK_SLOW,         /* conntrack, ovs-xdp's cache of
                                 * established connections off: every
                                 * ct() in ovs-vswitchd (its slow path). */
    FWD_CONNTRACK_SETUP,        /* conntrack, every frame a new
                                 * connection. */
    FWD_SFLOW,                  /* Stateless, with sFlow sampling 1/64. */
    FWD_METER,                  /* Stateless, through a meter whose rate
                                 * is above the offered load. */
    FWD_VXLAN_ENCAP,            /* Into a VXLAN tunnel... */
    FWD_VXLAN_DECAP,            /* ...and out of one. */
    FWD_GENEVE_ENCAP,           /* The same with Geneve. */
    FWD_GENEVE_DECAP,
    FWD_N_PIPELINES
};

/* The most generators, one per CPU, that --cpus may ask for. */
#define FWD_MAX_GENERATORS 64

/* The results of one switch in one pipeline with one number of
 * generators. */
struct fwd_result {
    bool selected;              /* Chosen by --switches and --pipeline. */
    char *skipped;              /* Why it was not (fully) measured, or
                                 * NULL. */
    char *note;                 /* What the legend should add, or NULL. */
    char *state_note;           /* What the last run found of the
                                 * connections, or NULL. */
    size_t n;                   /* Number of runs measured. */
    double *pps;                /* Frames per second at the sink, per run. */
    double *offered;            /* Frames per second offered, per run. */
    double *cpu;                /* CPU seconds per million frames, per run. */
    unsigned long long *frames; /* Frames at the sink, per run. */
    unsigned long long n_checked;   /* Frames whose headers the sink
                                     * checked, over all runs. */
    unsigned long long n_bad;   /* Of those, frames that failed. */
};

/* Options. */
struct fwd_options {
    double duration;            /* Seconds measured per run. */
    double warmup;              /* Seconds of traffic before measuring. */
    int runs;                   /* Runs per switch. */
    unsigned int n_flows;       /* Distinct UDP source ports. */
    struct bench_megaflow_options mflow;  /* --megaflows: that many
                                           * OpenFlow rules, one per
                                           * source port, over --masks
                                           * masks. */
    int gen_cpus[FWD_MAX_GENERATORS];   /* The generators' CPUs, in the
                                         * order they are taken: N
                                         * generators run on the first N
                                         * (--cpu, or the last CPUs this
                                         * process may use). */
    size_t n_gen_cpus;          /* Number of 'gen_cpus'. */
    unsigned int cpu_counts[FWD_MAX_GENERATORS];  /* --cpus: the numbers
                                                   * of generators to
                                                   * measure, ascending;
                                                   * { 1 } by default. */
    size_t n_cpu_counts;        /* Number of 'cpu_counts'. */
    unsigned int batch_size;    /* BPF_PROG_TEST_RUN batch size. */
    struct bench_ovs_options ovs;  /* --vswitchd-xdp, --vswitchd, --json. */
    char *plot_file;            /* --plot, or NULL. */
    bool switches[FWD_N_SWITCHES];      /* Chosen by --switches. */
    bool pipelines[FWD_N_PIPELINES];    /* Chosen by --pipeline. */
    bool stack_sink;            /* --sink=stack: count at the TC hook of a
                                 * veth end without XDP, as a container's
                                 * stack receives, not in XDP. */
};

/* The whole benchmark, reachable from the cleanup hook. */
struct fwd {
    struct fwd_options opts;

    /* Indexed by the number of generators (an index into
     * 'opts.cpu_counts'), the switch and the pipeline. */
    struct fwd_result results[FWD_MAX_GENERATORS][FWD_N_SWITCHES]
                             [FWD_N_PIPELINES];

    struct bench_pair gen;      /* Generator's veth pair. */
    struct bench_pair sink;     /* Sink's veth pair. */
    char *ovs_bridge;           /* Name of the OVS bridges. */
    char *tnl_bridge;           /* Name of the OVS underlay bridges. */
    char *tnl_port;             /* Name of the tunnel ports and devices. */
    struct eth_addr tnl_mac;    /* The switch's underlay address. */
    char *linux_bridge;         /* Name of the Linux bridge. */
    char *nft_table;            /* Name of its nftables tables. */
    unsigned int n_nft_setups;  /* bench_nft_firewall() calls so far. */
    struct bench_ovs ovs_xdp;   /* Private ovs-vswitchd-xdp. */
    struct bench_ovs ovs_stock; /* Private Debian ovs-vswitchd. */

    /* The generators that run now, each with its own instance of the
     * generator program (its own frame counter, which a second CPU would
     * otherwise share, and its own share of the flows), loaded as they
     * start and destroyed as they stop. */
    struct bench_gen *gen_skels[FWD_MAX_GENERATORS];
    struct bench_generator generators[FWD_MAX_GENERATORS];
    size_t n_generators;

    struct bench_sink *sink_skel;
    struct bench_redirect *redirect_skel;
    struct bpf_link *sink_link;     /* Sink program on the sink's veth0. */
    struct bpf_link *floor_link;    /* Floor program, while set up. */
    bool floor_tc;                  /* --sink=stack floor's TC program on
                                     * the generator's port? */

    const struct fwd_switch *active;    /* Switch set up now, or NULL. */
    enum fwd_pipeline pipeline;         /* Its pipeline. */
    uint8_t frame[FWD_FRAME_MAX];       /* The stream's frame... */
    size_t frame_size;                  /* ...of this many bytes. */
};

/* ovs-vswitchd-xdp's counters of ct() (dpif-xdp/stats-show), summed over
 * its datapaths. */
struct fwd_ct_counts {
    long long hit;              /* xdp-ct-hit: ct() run in XDP, or -1. */
    long long miss;             /* xdp-ct-miss: ct() handed up, or -1. */
    long long next;             /* xdp-ct-next: passes after a ct()
                                 * skipped, or -1. */
};

/* Addresses of the two namespaces' veth ends ("oxb" in the middle). */
extern const struct eth_addr fwd_gen_mac;
extern const struct eth_addr fwd_sink_mac;

/* The switches, and the indexes of those that others are compared to. */
extern const struct fwd_switch fwd_switches[FWD_N_SWITCHES];
#define FWD_FLOOR_IDX 0
#define FWD_OVS_XDP_IDX 1

/* bench-forward.c: the pipelines' names, for --pipeline and the table,
 * and one line each for the legend (more after each '\n'). */
extern const char *const fwd_pipeline_names[FWD_N_PIPELINES];
extern const char *const fwd_pipeline_descriptions[FWD_N_PIPELINES];

/* bench-forward-options.c: the command line. */
void fwd_parse_options(struct fwd *, int argc, char *argv[]);

/* bench-forward-switch.c: setting a switch up and taking it down. */
struct bench_ovs *fwd_switch_ovs(struct fwd *, const struct fwd_switch *);
int fwd_switch_setup(struct fwd *, const struct fwd_switch *,
                     enum fwd_pipeline, struct fwd_result *, struct ds *why);
void fwd_switch_teardown(struct fwd *, const struct fwd_switch *);
void fwd_floor_tc_teardown(struct fwd *);
char *fwd_ovs_xdp_tx_mode(struct fwd *);

/* bench-forward-measure.c: frames, the generators, the sink and one
 * measurement. */
ovs_be32 fwd_ip(const char *s);
void fwd_put_frame_sized(uint8_t *frame, size_t size, struct eth_addr eth_src,
                         struct eth_addr eth_dst, const char *ip_src,
                         const char *ip_dst, uint16_t sport, uint16_t dport);
void fwd_put_frame(uint8_t *frame, struct eth_addr eth_src,
                   struct eth_addr eth_dst, const char *ip_src,
                   const char *ip_dst, uint16_t sport, uint16_t dport);
const char *fwd_stream_dst(enum fwd_pipeline);
int fwd_generators_stop(struct fwd *, struct ds *why);
unsigned long long fwd_read_sink(const struct fwd *,
                                 enum bench_sink_counter);
unsigned long long fwd_read_sink_cpus(const struct fwd *,
                                      enum bench_sink_counter,
                                      unsigned long long *per_cpu,
                                      size_t n_cpus);
int fwd_measure(struct fwd *, size_t c, size_t idx, enum fwd_pipeline,
                struct ds *why);

/* bench-forward-report.c: the results. */
double fwd_median_pps(const struct fwd *, size_t c, size_t idx,
                      enum fwd_pipeline);
const char *fwd_pipeline_label(size_t idx, enum fwd_pipeline);
void fwd_print_table(const struct fwd *);
void fwd_write_json(const struct fwd *);
void fwd_plot(const struct fwd *);

/* bench-forward-cpus.c: --cpus, generators on several CPUs. */
void fwd_cpus_order(struct fwd_options *, int first);
void fwd_cpus_parse(struct fwd_options *, const char *list);
unsigned int fwd_cpus_max(const struct fwd_options *);
const char *fwd_cpus_unsupported(const struct fwd_switch *,
                                 unsigned int count);
void fwd_cpus_flow_share(unsigned int n_flows, size_t n_gens, size_t k,
                         unsigned int *first, unsigned int *n);
void fwd_cpus_setup(struct fwd *);
void fwd_cpus_note(const struct fwd *, size_t n_gens,
                   const unsigned long long *before,
                   const unsigned long long *after, size_t n_cpus,
                   struct ds *note);
double fwd_cpus_scaling(const struct fwd *, size_t c, size_t idx,
                        enum fwd_pipeline);
void fwd_cpus_put_table(const struct fwd *, struct ds *out);

/* bench-forward-mflow.c: --megaflows and --masks. */
void fwd_megaflow_flows(const struct fwd_options *, const char *a,
                        const char *b, struct svec *flows);
struct fwd_megaflow_counts {
    long long int n_flows;      /* Datapath flows. */
    long long int n_masks;      /* Their masks. */
    long long int n_hit;        /* Packets that hit a flow. */
    long long int n_mask_hit;   /* Subtables looked up for them. */
};
void fwd_megaflow_counts(struct fwd *, const struct fwd_switch *,
                         struct fwd_megaflow_counts *);
void fwd_megaflow_note(struct fwd *, const struct fwd_switch *,
                       const struct fwd_megaflow_counts *before,
                       const struct fwd_megaflow_counts *after,
                       struct ds *note);

/* bench-forward-monitor.c: the sflow and meter pipelines. */
#define FWD_SFLOW_SAMPLING 64
#define FWD_METER_ID 1
int fwd_monitor_setup(struct fwd *, const struct fwd_switch *,
                      enum fwd_pipeline, struct ds *why);
struct fwd_monitor_counts {
    long long sampled;          /* xdp-sampled, or -1. */
    long long sample_limited;   /* xdp-sample-limited, or -1. */
    long long metered;          /* xdp-metered, or -1. */
    long long slow_path;        /* xdp-slow-path, or -1. */
};
void fwd_monitor_counts(struct fwd *, struct fwd_monitor_counts *);
void fwd_monitor_note(struct fwd *, enum fwd_pipeline,
                      const struct fwd_monitor_counts *before,
                      const struct fwd_monitor_counts *after,
                      unsigned long long frames, struct ds *note);

/* bench-forward-ct.c: which switches run the stateful pipelines, and
 * their flows. */
bool fwd_pipeline_is_stateful(enum fwd_pipeline);
bool fwd_pipeline_establishes(enum fwd_pipeline);
const char *fwd_pipeline_unsupported(const struct fwd_switch *,
                                     enum fwd_pipeline);
void fwd_ovs_flows(enum fwd_pipeline, const char *a, const char *b,
                   struct svec *flows);

/* bench-forward-ct.c: the Linux bridge's nftables ruleset. */

/* bench-forward-ct.c: establishing connections, and what the switches
 * tell about them. */
void fwd_establish(struct fwd *, enum fwd_pipeline, struct ds *note);
void fwd_ovs_xdp_ct_counts(struct fwd *, struct fwd_ct_counts *);
int fwd_ovs_xdp_cached(struct fwd *);
void fwd_ovs_put_ct_flows(struct fwd *, const struct fwd_switch *,
                          struct ds *note);

/* bench-forward-tnl.c: the tunnel pipelines. */
bool fwd_pipeline_is_tunnel(enum fwd_pipeline);
int fwd_tnl_setup(struct fwd *, const struct fwd_switch *, enum fwd_pipeline,
                  struct ds *why);
void fwd_tnl_teardown(struct fwd *, const struct fwd_switch *);
void fwd_tnl_build_frame(struct fwd *, enum fwd_pipeline);
void fwd_tnl_set_sink(struct fwd *, enum fwd_pipeline);
struct fwd_tnl_counts {
    long long push;             /* xdp-tnl-push, or -1. */
    long long pop;              /* xdp-tnl-pop, or -1. */
    long long slow_path;        /* xdp-slow-path, or -1. */
    long long fallback;         /* xdp-fallback, or -1. */
};
void fwd_tnl_counts(struct fwd *, struct fwd_tnl_counts *);
double fwd_tnl_wait_compiled(struct fwd *, enum fwd_pipeline);
void fwd_tnl_put_slow_flows(struct fwd *, const struct fwd_tnl_counts *before,
                            const struct fwd_tnl_counts *after);
void fwd_tnl_note(enum fwd_pipeline, const struct fwd_tnl_counts *before,
                  const struct fwd_tnl_counts *after,
                  unsigned long long frames, struct ds *note);

#endif /* bench-forward.h */
