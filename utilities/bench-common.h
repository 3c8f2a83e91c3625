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

#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H 1

/* Helpers shared by the modes of ovs-xdp-bench, most of which build a
 * topology of their own, run switches on it one after the other and must
 * leave nothing behind, and parse the same options ('forward', 'latency',
 * 'storm' and 'tcp' take --vswitchd-xdp, --vswitchd and --json=FILE
 * through bench_ovs_parse_option(); 'forward' and 'latency' --megaflows
 * and --masks, with the OpenFlow rules that make them, through
 * bench_megaflow_parse_option() and bench_megaflow_rules()).
 *
 * Naming: every namespace, interface and bridge that a mode creates is
 * named BENCH_PREFIX, a short role and the process id, so that two runs
 * never collide and anything left over is easy to recognise (and the
 * system test checks that nothing with the prefix remains).
 *
 * Commands: the tools are run as shell commands ('ip', 'ovs-vsctl', ...)
 * found on $PATH, each with its output captured, never through system(),
 * which would ignore Ctrl-C while the command runs.
 *
 * Cleanup: a mode registers one fatal_signal hook (lib/fatal-signal.h)
 * that undoes everything it built; the hook runs at exit, on ovs_fatal()
 * and on SIGINT or SIGTERM, the latter noticed when the mode next calls
 * bench_sleep() or fatal_signal_run(). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openvswitch/compiler.h"
#include "openvswitch/types.h"

struct bpf_link;
struct bpf_program;
struct ds;

/* Prefix of every name a mode creates. */
#define BENCH_PREFIX "oxb"

/* The counters of datapath/bench-sink.bpf.c's 'bench_sink_counts'. */
enum bench_sink_counter {
    BENCH_SINK_STREAM,          /* Frames of the benchmark's stream. */
    BENCH_SINK_OTHER,           /* Any other frame. */
    BENCH_SINK_CHECKED,         /* IPv4 UDP frames to the stream's port
                                 * whose headers were checked (while
                                 * 'check_headers' was set). */
    BENCH_SINK_BAD,             /* Of those, frames with a wrong destination
                                 * address, IPv4 header checksum or a
                                 * nonzero UDP checksum. */
    BENCH_SINK_N_COUNTERS
};

/* Commands. */
int bench_run(struct ds *output, const char *format, ...)
    OVS_PRINTF_FORMAT(2, 3);
void bench_explain(struct ds *why, const char *what, int status,
                   const struct ds *output);
char *bench_find_program(const char *name);
char *bench_find_sibling(const char *const candidates[], size_t n,
                         const char *name);
char *bench_default_vswitchd_xdp(void);

/* Time. */
double bench_now(void);
void bench_sleep(double seconds);

/* CPU time of the whole machine, from /proc/stat. */
struct bench_cpu {
    unsigned long long busy;    /* Ticks not idle, summed over all CPUs. */
    unsigned long long total;   /* All ticks, summed over all CPUs. */
};
void bench_cpu_sample(struct bench_cpu *);
double bench_cpu_busy_seconds(const struct bench_cpu *before,
                              const struct bench_cpu *after);

/* Option values.  Each returns the value that 'arg' gives option 'option'
 * (named with its dashes, "--runs"), or exits with a message that names
 * the option and the range: a whole number from 'min' to 'max', or a
 * number of seconds above 0 (or from 'min') up to 'max'. */
unsigned long long bench_parse_count(const char *option, const char *arg,
                                     unsigned long long min,
                                     unsigned long long max);
double bench_parse_seconds(const char *option, const char *arg,
                           double min, double max);

/* Debian's own ovs-vswitchd (openvswitch-switch), with AF_XDP support: the
 * default of --vswitchd. */
#define BENCH_STOCK_VSWITCHD "/usr/lib/openvswitch-switch/ovs-vswitchd"

/* The options of the modes that run Open vSwitch, parsed one way for all:
 * --vswitchd-xdp=PATH, --vswitchd=PATH and --json=FILE.  A mode puts
 * BENCH_OVS_LONG_OPTIONS into its getopt_long() table, offers each option
 * that getopt_long() returns to bench_ovs_parse_option() before its own
 * switch, and calls bench_ovs_options_finish() after the loop. */
struct bench_ovs_options {
    char *vswitchd_xdp;         /* ovs-vswitchd-xdp, or NULL if none. */
    char *vswitchd_stock;       /* Debian's ovs-vswitchd. */
    char *json_file;            /* --json, or NULL. */
};

/* Their getopt_long() codes, above every mode's own. */
enum {
    BENCH_OPT_VSWITCHD_XDP = 0x1000,
    BENCH_OPT_VSWITCHD,
    BENCH_OPT_JSON,
};
#define BENCH_OVS_LONG_OPTIONS                                          \
    {"vswitchd-xdp", required_argument, NULL, BENCH_OPT_VSWITCHD_XDP},  \
    {"vswitchd", required_argument, NULL, BENCH_OPT_VSWITCHD},          \
    {"json", required_argument, NULL, BENCH_OPT_JSON}

bool bench_ovs_parse_option(struct bench_ovs_options *, int option,
                            const char *arg);
void bench_ovs_options_finish(struct bench_ovs_options *);

/* Exits with a message that names 'mode' if getopt_long() left any
 * argument in 'argv' past 'optind'. */
void bench_no_arguments(const char *mode, int argc, char *argv[]);

/* Writes 'json' (pretty, with sorted keys) and a new-line into 'file_name'
 * (stdout if NULL) and destroys it; reports a failure on stderr. */
struct json;
void bench_write_json(struct json *json, const char *file_name);

/* Megaflows: 'n' OpenFlow rules, from 'in_port' and for IPv4 source
 * 'src_ip', that give a datapath 'n' megaflows over 'm' masks (see
 * bench-common.c), for UDP ports 'base' to 'base' + 'n' - 1 in 'field'
 * (tp_src or tp_dst), output to 'out_port'. */
struct svec;
void bench_megaflow_rules(struct svec *flows, unsigned int n, unsigned int m,
                          const char *in_port, const char *src_ip,
                          const char *field, unsigned int base,
                          const char *out_port);
#define BENCH_MAX_MEGAFLOWS 60000
#define BENCH_MAX_MASKS 16

/* --megaflows and --masks, for the modes that take them, as
 * BENCH_OVS_LONG_OPTIONS: the table entries, a parser to offer each option
 * to, and a check after the loop (--masks needs --megaflows, at most one
 * mask per megaflow; no --masks means one). */
struct bench_megaflow_options {
    unsigned int n_megaflows;   /* --megaflows, or 0. */
    unsigned int n_masks;       /* --masks. */
};
enum {
    BENCH_OPT_MEGAFLOWS = 0x1100,
    BENCH_OPT_MASKS,
};
#define BENCH_MEGAFLOW_LONG_OPTIONS                                     \
    {"megaflows", required_argument, NULL, BENCH_OPT_MEGAFLOWS},        \
    {"masks", required_argument, NULL, BENCH_OPT_MASKS}
bool bench_megaflow_parse_option(struct bench_megaflow_options *,
                                 int option, const char *arg);
void bench_megaflow_options_finish(struct bench_megaflow_options *);
long long int bench_find_count(const char *s, const char *label);

/* Statistics over the runs of one measurement. */
void bench_select(const char *list, const char *(*name)(size_t i), size_t n,
                  bool selected[]);
double bench_median(const double *values, size_t n);
double bench_min(const double *values, size_t n);
double bench_max(const double *values, size_t n);

/* Network namespaces and veth pairs.
 *
 * A pair has one end in the root namespace, 'root_name', where a switch
 * takes it as a port, and one end named 'ns_name' in namespace 'ns'. */
struct bench_pair {
    char *root_name;            /* Switch-side end, in the root namespace. */
    char *ns;                   /* Namespace of the far end. */
    char *ns_name;              /* Far end's name inside 'ns'. */
    struct eth_addr ns_mac;     /* Far end's Ethernet address. */
    bool created;               /* Namespace created, to be removed. */
};

int bench_pair_create(struct bench_pair *, const char *role,
                      struct eth_addr ns_mac, const char *ns_addr,
                      struct ds *why);
void bench_pair_destroy(struct bench_pair *);
int bench_linux_bridge_create(const char *name, const char *a,
                              const char *b, struct ds *why);

int bench_netns_enter(const char *ns, int *saved_fd);
void bench_netns_leave(int saved_fd);
void bench_netns_remove(const char *ns, bool *created);
int bench_link_detach(int *link_fd);

int bench_set_gro(const char *ifname, bool on);
struct bpf_link *bench_xdp_attach(const struct bpf_program *,
                                  const char *ns, const char *ifname,
                                  struct ds *why);
void bench_xdp_clear(const char *ifname, const char *after);
int bench_tc_attach(const struct bpf_program *, const char *ns,
                    const char *ifname, struct ds *why);
int bench_send_frame(const char *ns, const char *ifname,
                     const void *frame, size_t size);

/* A private Open vSwitch: ovsdb-server and one ovs-vswitchd with a run
 * directory of their own (OVS_RUNDIR and friends point there), never the
 * system's, started the way utilities/quickstart.sh starts its sandbox. */
struct bench_ovs {
    const char *label;          /* Name for messages. */
    char *vswitchd;             /* ovs-vswitchd binary to run. */
    char *other_config;         /* Extra "key=value" for other_config, or
                                 * NULL. */
    char *dir;                  /* Run directory while started. */
    char *pin_root;             /* OVS_XDP_PIN_ROOT of ovs-vswitchd-xdp,
                                 * in bpffs, while started: never the
                                 * system's. */
    char *error;                /* Why starting failed, once it has. */
    bool tried;                 /* Starting was attempted. */
    bool libxdp_dir;            /* BENCH_LIBXDP_DIR was there before. */
};

/* Where libxdp, which Debian's ovs-vswitchd uses for afxdp ports, makes a
 * directory for its pins: removed when the benchmark made it. */
#define BENCH_LIBXDP_DIR "/sys/fs/bpf/xdp"

void bench_ovs_init(struct bench_ovs *, const char *label,
                    const char *vswitchd, const char *other_config);
int bench_ovs_start(struct bench_ovs *, struct ds *why);
void bench_ovs_stop(struct bench_ovs *);
void bench_ovs_destroy(struct bench_ovs *);
int bench_ovs_run(const struct bench_ovs *, struct ds *output,
                  const char *format, ...)
    OVS_PRINTF_FORMAT(3, 4);
void bench_ovs_counters(const struct bench_ovs *, const char *command,
                        const char *const names[],
                        long long *const values[], size_t n);
int bench_ovs_add_bridge(struct bench_ovs *, const char *bridge,
                         const char *datapath_type, const char *port_type,
                         const char *const ports[], size_t n_ports,
                         const char *const flows[], size_t n_flows,
                         struct ds *why);
void bench_ovs_del_bridge(struct bench_ovs *, const char *bridge);

/* bench-nft.c: the Linux bridge's stateful firewall. */
int bench_bridge_nf_call_iptables(void);
int bench_nft_firewall(const char *table, const char *bridge,
                       const char *opener, const char *other,
                       unsigned int *n_setups, char **note, struct ds *why);
void bench_nft_teardown(const char *table);
long long bench_nft_counter(const char *table, const char *name);

#endif /* bench-common.h */
