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

/* ovs-xdp-bench fastpath: what the flow-table compiler buys, in
 * nanoseconds per packet through BPF_PROG_TEST_RUN: the program compiled
 * for a flow table (ofproto-xdp/dpif-xdp-compile.c) against the generic
 * program on the same table, with the trivial XDP_PASS program as the
 * floor, for tables of 1, 4, 16 and 64 masks (--masks) in one run.  The
 * issue's target is a compiled program at least 1.5 times as fast as the
 * generic one at 16 masks; the mode reports the ratio and never judges it.
 *
 * The table.  For each mask count M, a fresh xdp datapath (created with
 * dpif_create_and_open(), its automatic compilation turned off) gets
 * --flows flows (1000) through dpif_operate(), as ofproto-dpif installs
 * them, spread round-robin over M distinct masks, all with empty actions
 * (drop), so that what differs between the programs is classification.
 * Every mask matches recirc_id(0), in_port(1), eth_type(0x0800), frag=no
 * and the IPv4 TTL exactly, and flows of mask k have TTL k + 1, so that a
 * packet can match flows of one mask only.  On top of that, mask k has a
 * shape of its own, so that the 64 masks are distinct:
 *
 *   nw_src prefix    /32, /24, /20, /16       by k % 4
 *   L4               none (nw_proto wildcarded), nw_proto, nw_proto and
 *                    UDP destination, nw_proto and both UDP ports
 *                                             by k / 4 % 4
 *   nw_dst prefix    /0, /8, /16, /24         by k / 16 % 4
 *
 * The flows of one mask differ in the nw_src bits their mask keeps.  The
 * packet mix is one 64-byte UDP frame per flow, built to hit that flow
 * (its unmasked bits set to a pattern, so that masking is exercised).
 *
 * The programs.  dp_xdp_compile_now() compiles the table and swaps the
 * compiled program in: the datapath's own program is then the compiled
 * one.  dp_xdp_load_program() with no configuration loads a generic
 * instance sharing all of the datapath's maps.  The trivial program is
 * datapath/bench-trivial.bpf.c, as in the 'dispatch' mode.  Frames arrive
 * on 'lo', which the datapath's xdp_dp_in_ports maps to port 1, as in
 * tests/test-xdp-packet.c.
 *
 * The check.  Before timing, every frame is run once through the compiled
 * and once through the generic program: both must return the same verdict
 * (XDP_DROP), each run must move the datapath's n_hit and not n_missed,
 * and afterwards every flow must have counted exactly two packets and run
 * in XDP.  The mode fails otherwise, and it fails if any timed run gives
 * another verdict or misses.  Frames that the compiled program could not
 * classify itself, and passed on to its generic fallback (n_fallback),
 * are counted and reported: they mean the compiled program is not what
 * was timed for those frames.
 *
 * The timing.  BPF_PROG_TEST_RUN runs one frame --repeat times (1000) and
 * reports the kernel's own time per run, opts.duration, in whole ns; a
 * program's figure for a round is the mean of that over the frames of the
 * mix.  The three programs run in turn, in an order that rotates every
 * round, over --rounds rounds (5), and the table shows medians.  Each
 * frame's runs follow each other, so caches are warm: this compares the
 * instructions and lookups of the programs, not their cache footprints.
 *
 * The dispatcher.  BPF_PROG_TEST_RUN with repeat > 1 calls the program
 * through the kernel's XDP dispatcher, and gives it an entry for the
 * length of the call if it has none: two dispatcher updates per call,
 * each waiting for an RCU grace period (16 ms a call on a 2-CPU VM).  So
 * that the calls are cheap and the three programs are timed alike, each
 * is attached for the whole run to a veth of its own, down, in a network
 * namespace of the run (oxb-f-PID, veths oxbfPID-0 to oxbfPID-3), which
 * holds it an entry, as a datapath program attached to ports holds one.
 * The XDP programs attached on the machine are counted and reported: if
 * there are more than the dispatcher's 48 entries, some of ours may have
 * none.  The datapaths pin their maps under a pin root of the run's own
 * (/sys/fs/bpf/oxb-fp-PID).  The namespace, the veths, the datapaths and
 * their pinned maps are removed at the end, also on failure or Ctrl-C (a
 * fatal_signal hook). */

#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "csum.h"
#include "dispatcher/xdp-dispatcher.h"
#include "dpif.h"
#include "dpif-provider.h"
#include "fatal-signal.h"
#include "maps/pin.h"
#include "odp-util.h"
#include "ofproto-xdp/dpif-xdp.h"
#include "ofproto-xdp/dpif-xdp-private.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "util.h"
#include "utilities/bench-common.h"
#include "utilities/ovs-xdp-bench.h"

#include "datapath/xdp-dp.h"      /* Before the skeletons: their types. */
#include "datapath/xdp-dp.skel.h"
#include "datapath/bench-trivial.skel.h"

#define FP_DEFAULT_MASKS "1,4,16,64"
#define FP_DEFAULT_FLOWS 1000
#define FP_MAX_FLOWS 65536
#define FP_DEFAULT_ROUNDS 5
#define FP_DEFAULT_REPEAT 1000
#define FP_MAX_REPEAT 10000000
#define FP_MAX_TABLES 16        /* Entries of --masks. */

/* The frames: 64 bytes of Ethernet, IPv4 and UDP. */
#define FP_FRAME_SIZE 64

/* Datapath port number of 'lo', where the frames arrive. */
#define FP_PORT_NO 1

/* Flows per dpif_operate() call. */
#define FP_PUT_BATCH 128

/* Failures listed before the mode gives up. */
#define FP_MAX_REPORTED 10

/* The programs timed, one column each. */
enum fp_prog {
    FP_TRIVIAL,                 /* datapath/bench-trivial.bpf.c. */
    FP_GENERIC,                 /* xdp_dp_main, generic. */
    FP_COMPILED,                /* xdp_dp_main, compiled for the table. */
    FP_N_PROGS
};

static const char *const fp_prog_names[FP_N_PROGS] = {
    [FP_TRIVIAL] = "trivial",
    [FP_GENERIC] = "generic",
    [FP_COMPILED] = "compiled",
};

/* What a mask matches beyond what every mask matches (see the comment at
 * the top). */
enum fp_l4 {
    FP_L4_NONE,                 /* nw_proto wildcarded, no L4 field. */
    FP_L4_PROTO,                /* nw_proto, no port. */
    FP_L4_DST,                  /* nw_proto and the UDP destination. */
    FP_L4_BOTH,                 /* nw_proto and both UDP ports. */
};

struct fp_shape {
    int src_len;                /* nw_src prefix length. */
    int dst_len;                /* nw_dst prefix length. */
    enum fp_l4 l4;              /* Transport fields matched. */
};

/* A flow of a table and the frame that hits it. */
struct fp_flow {
    int mask_idx;               /* Its mask, 0 to M - 1. */
    struct ofpbuf key;          /* ODP key. */
    struct ofpbuf mask;         /* ODP mask. */
    ovs_u128 ufid;              /* Unique flow id. */
    uint8_t frame[FP_FRAME_SIZE];   /* The frame that hits it. */
};

/* Results for one mask count. */
struct fp_table {
    unsigned int n_masks;       /* M. */
    double *samples[FP_N_PROGS];    /* Mean ns per frame, per round. */
    uint64_t n_fallback_check;  /* Frames of the check that the compiled
                                 * program passed to its fallback. */
    uint64_t n_fallback_timed;  /* Timed runs of the compiled program that
                                 * went to its fallback. */
    uint64_t n_timed;           /* Timed runs of the compiled program. */
    uint32_t compiled_insns;    /* Instructions (xlated) of the compiled */
    uint32_t generic_insns;     /* and the generic program. */
};

/* The scratch devices: one per program. */
#define FP_N_DEVS 4             /* Two veth pairs. */

/* The whole benchmark, reachable from the cleanup hook.  The process has
 * one thread, which also runs the hook, from fatal_signal_run() or at
 * exit, so nothing here is locked. */
struct fp {
    /* Options. */
    unsigned int masks[FP_MAX_TABLES];  /* --masks. */
    size_t n_tables;            /* Entries in 'masks'. */
    unsigned int n_flows;       /* --flows. */
    unsigned int n_rounds;      /* --rounds. */
    unsigned int repeat;        /* --repeat. */
    bool json;                  /* --json. */
    bool verbose;               /* --verbose. */

    /* The scratch namespace and devices. */
    char *pin_root;             /* OVS_XDP_PIN_ROOT of its datapaths. */
    char *ns;                   /* Namespace name. */
    bool ns_created;            /* 'ns' was created, to be removed. */
    int root_fd;                /* The namespace we came from, or -1. */
    char *dev_names[FP_N_DEVS]; /* Interface names, in the namespace. */
    unsigned int ifindex[FP_N_PROGS];   /* Device of each program. */
    int link_fd[FP_N_PROGS];    /* XDP link of each program, or -1. */
    uint32_t lo_ifindex;        /* 'lo' in the namespace. */

    /* Programs. */
    struct bench_trivial *trivial;  /* The trivial program. */
    struct dpif *dpif;          /* The datapath of the current table. */
    struct dp_xdp *dp;          /* Its internals. */
    struct xdp_dp *generic;     /* Its generic instance. */
    int prog_fd[FP_N_PROGS];    /* Each program, or -1. */

    /* The machine. */
    char *dispatcher_info;      /* xdp_dispatcher_format_kernel(), with
                                 * our programs attached. */
    int bpf_stats;              /* kernel.bpf_stats_enabled, -1 unknown. */

    /* Results. */
    struct fp_table tables[FP_MAX_TABLES];
};

/* The machine. */

static int
fp_read_bpf_stats(void)
{
    FILE *stream = fopen("/proc/sys/kernel/bpf_stats_enabled", "re");
    int value = -1;

    if (stream) {
        if (fscanf(stream, "%d", &value) != 1) {
            value = -1;
        }
        fclose(stream);
    }
    return value;
}

/* The scratch namespace. */

/* Creates the namespace and the veth pairs in it, enters it, and finds
 * the devices' ifindexes there. */
static void
fp_create_devices(struct fp *fp)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    struct ds batch = DS_EMPTY_INITIALIZER;
    struct ds why = DS_EMPTY_INITIALIZER;
    long pid = getpid();
    int status, error;

    for (int i = 0; i < FP_N_DEVS; i++) {
        fp->dev_names[i] = xasprintf("%sf%ld-%d", BENCH_PREFIX, pid, i);
        ovs_assert(strlen(fp->dev_names[i]) < IFNAMSIZ);
    }
    for (int i = 0; i < FP_N_DEVS; i += 2) {
        ds_put_format(&batch, "link add %s type veth peer name %s\n",
                      fp->dev_names[i], fp->dev_names[i + 1]);
    }

    fp->ns = xasprintf("%s-f-%ld", BENCH_PREFIX, pid);
    status = bench_run(&output, "ip netns add %s", fp->ns);
    if (status) {
        bench_explain(&why, "ip netns add", status, &output);
        ovs_fatal(0, "%s", ds_cstr(&why));
    }
    fp->ns_created = true;

    /* nsenter, not 'ip -n', which remounts /sys and fails in a chroot. */
    status = bench_run(&output, "nsenter --net=/run/netns/%s ip -batch - "
                       "<<'EOF'\n%sEOF\n", fp->ns, ds_cstr(&batch));
    if (status) {
        bench_explain(&why, "creating veth pairs", status, &output);
        ovs_fatal(0, "%s", ds_cstr(&why));
    }
    ds_destroy(&batch);
    ds_destroy(&output);
    ds_destroy(&why);

    /* BPF_PROG_TEST_RUN looks the frame's ingress device up in the
     * caller's namespace, and XDP links take an ifindex of it. */
    error = bench_netns_enter(fp->ns, &fp->root_fd);
    if (error) {
        ovs_fatal(error, "cannot enter namespace %s", fp->ns);
    }
    for (int p = 0; p < FP_N_PROGS; p++) {
        fp->ifindex[p] = if_nametoindex(fp->dev_names[p]);
        if (!fp->ifindex[p]) {
            ovs_fatal(errno, "%s", fp->dev_names[p]);
        }
    }
    fp->lo_ifindex = if_nametoindex("lo");
    if (!fp->lo_ifindex) {
        ovs_fatal(errno, "lo");
    }
    fprintf(stderr, "topology: namespace %s, veths %s to %s (%d pairs, "
            "down)\n", fp->ns, fp->dev_names[0],
            fp->dev_names[FP_N_DEVS - 1], FP_N_DEVS / 2);
}

/* Attaches program 'p' to its device, which gives it a dispatcher entry
 * if one is free. */
static void
fp_attach(struct fp *fp, enum fp_prog p)
{
    ovs_assert(fp->link_fd[p] < 0);
    fp->link_fd[p] = bpf_link_create(fp->prog_fd[p], fp->ifindex[p], BPF_XDP,
                                     NULL);
    if (fp->link_fd[p] < 0) {
        ovs_fatal(errno, "%s: cannot attach the %s program",
                  fp->dev_names[p], fp_prog_names[p]);
    }
}

/* Detaches program 'p', if it is attached (see bench_link_detach()). */
static int
fp_detach(struct fp *fp, enum fp_prog p)
{
    return bench_link_detach(&fp->link_fd[p]);
}

/* The flow table. */

static void
fp_get_shape(unsigned int k, struct fp_shape *shape)
{
    static const int src_lens[] = { 32, 24, 20, 16 };
    static const int dst_lens[] = { 0, 8, 16, 24 };

    shape->src_len = src_lens[k % 4];
    shape->l4 = (k / 4) % 4;
    shape->dst_len = dst_lens[(k / 16) % 4];
}

/* Writes into 'frame' a 64-byte UDP frame with the given fields. */
static void
fp_build_frame(uint8_t frame[FP_FRAME_SIZE], ovs_be32 nw_src, ovs_be32 nw_dst,
               uint8_t ttl, uint16_t tp_src, uint16_t tp_dst)
{
    static const struct eth_addr src_mac = ETH_ADDR_C(02,6f,78,62,00,01);
    static const struct eth_addr dst_mac = ETH_ADDR_C(02,6f,78,62,00,02);
    struct eth_header *eth = (struct eth_header *) frame;
    struct ip_header *ip = (struct ip_header *) (eth + 1);
    struct udp_header *udp = (struct udp_header *) (ip + 1);
    size_t ip_len = FP_FRAME_SIZE - sizeof *eth;

    memset(frame, 0, FP_FRAME_SIZE);
    eth->eth_dst = dst_mac;
    eth->eth_src = src_mac;
    eth->eth_type = htons(ETH_TYPE_IP);

    ip->ip_ihl_ver = IP_IHL_VER(5, IP_VERSION);
    ip->ip_tot_len = htons(ip_len);
    ip->ip_frag_off = htons(IP_DONT_FRAGMENT);
    ip->ip_ttl = ttl;
    ip->ip_proto = IPPROTO_UDP;
    put_16aligned_be32(&ip->ip_src, nw_src);
    put_16aligned_be32(&ip->ip_dst, nw_dst);
    ip->ip_csum = csum(ip, sizeof *ip);

    udp->udp_src = htons(tp_src);
    udp->udp_dst = htons(tp_dst);
    udp->udp_len = htons(ip_len - sizeof *ip);
}

/* Makes flow 'i' of a table of 'n_masks' masks, and its frame, into
 * '*f'. */
static void
fp_make_flow(unsigned int n_masks, unsigned int i, struct fp_flow *f)
{
    unsigned int k = i % n_masks;       /* The mask. */
    unsigned int j = i / n_masks;       /* The flow within the mask. */
    struct ds s = DS_EMPTY_INITIALIZER;
    struct fp_shape shape;
    char *error = NULL;

    fp_get_shape(k, &shape);

    /* The nw_src bits the mask keeps are distinct for each flow of the
     * mask (j + 1 < 2 ** 16 <= 2 ** src_len); the others are a
     * pattern. */
    ovs_be32 src_mask = be32_prefix_mask(shape.src_len);
    uint32_t src_bits = 0x0a000000 + ((uint32_t) (j + 1)
                                      << (32 - shape.src_len));
    ovs_be32 nw_src = ((htonl(src_bits) & src_mask)
                       | (htonl(0x5a5a5a5a) & ~src_mask));
    ovs_be32 dst_mask = be32_prefix_mask(shape.dst_len);
    ovs_be32 nw_dst = htonl(0xc0a80001 | (k << 8));  /* 192.168.k.1 */
    uint8_t ttl = k + 1;
    uint16_t tp_src = 1024 + j % 60000;
    uint16_t tp_dst = 5000 + k;

    ovs_assert(j + 1 < (1u << 16));
    f->mask_idx = k;
    fp_build_frame(f->frame, nw_src, nw_dst, ttl, tp_src, tp_dst);

    ds_put_format(&s, "recirc_id(0),in_port(%d),eth(),eth_type(0x0800),"
                  "ipv4(src="IP_FMT"/"IP_FMT",dst="IP_FMT"/"IP_FMT","
                  "proto=17%s,ttl=%d,frag=no),udp(src=%d%s,dst=%d%s)",
                  FP_PORT_NO,
                  IP_ARGS(nw_src & src_mask), IP_ARGS(src_mask),
                  IP_ARGS(nw_dst & dst_mask), IP_ARGS(dst_mask),
                  shape.l4 == FP_L4_NONE ? "/0" : "", ttl,
                  tp_src, shape.l4 == FP_L4_BOTH ? "" : "/0",
                  tp_dst, shape.l4 >= FP_L4_DST ? "" : "/0");
    ofpbuf_init(&f->key, 0);
    ofpbuf_init(&f->mask, 0);
    if (odp_flow_from_string(ds_cstr(&s), NULL, &f->key, &f->mask, &error)) {
        ovs_fatal(0, "%s: %s", ds_cstr(&s), error);
    }
    ds_destroy(&s);

    memset(&f->ufid, 0, sizeof f->ufid);
    f->ufid.u32[0] = i + 1;
    f->ufid.u32[3] = 0xfa57;
}

static void
fp_free_flows(struct fp_flow *flows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ofpbuf_uninit(&flows[i].key);
        ofpbuf_uninit(&flows[i].mask);
    }
    free(flows);
}

/* Formats flow 'f' as "ovs-appctl dpctl/dump-flows" would. */
static void
fp_format_flow(struct ds *s, const struct fp_flow *f)
{
    odp_flow_format(f->key.data, f->key.size, f->mask.data, f->mask.size,
                    NULL, s, false);
}

/* Installs the 'n' 'flows' in the current datapath, FP_PUT_BATCH to a
 * dpif_operate() call, with no actions (drop).  Fails if any is not
 * installed. */
static void
fp_install(struct fp *fp, const struct fp_flow *flows, size_t n)
{
    struct dpif_op ops[FP_PUT_BATCH], *opp[FP_PUT_BATCH];
    struct ds why = DS_EMPTY_INITIALIZER;
    int n_failed = 0;

    for (size_t start = 0; start < n; start += FP_PUT_BATCH) {
        size_t n_ops = MIN(n - start, FP_PUT_BATCH);

        for (size_t i = 0; i < n_ops; i++) {
            const struct fp_flow *f = &flows[start + i];

            memset(&ops[i], 0, sizeof ops[i]);
            ops[i].type = DPIF_OP_FLOW_PUT;
            ops[i].flow_put = (struct dpif_flow_put) {
                .flags = DPIF_FP_CREATE,
                .key = f->key.data, .key_len = f->key.size,
                .mask = f->mask.data, .mask_len = f->mask.size,
                .actions = NULL, .actions_len = 0,
                .ufid = &f->ufid, .pmd_id = PMD_ID_NULL,
            };
            opp[i] = &ops[i];
        }
        dpif_operate(fp->dpif, opp, n_ops, DPIF_OFFLOAD_NEVER);
        for (size_t i = 0; i < n_ops; i++) {
            if (ops[i].error && n_failed++ < FP_MAX_REPORTED) {
                ds_put_format(&why, "\n  flow %"PRIuSIZE" (%s): ", start + i,
                              ovs_strerror(ops[i].error));
                fp_format_flow(&why, &flows[start + i]);
            }
        }
        fatal_signal_run();
    }
    if (n_failed) {
        ovs_fatal(0, "%d of %"PRIuSIZE" flows were not installed:%s",
                  n_failed, n, ds_cstr(&why));
    }
    ds_destroy(&why);
}

/* The datapath. */

/* Creates the datapath for a table of 'n_masks' masks, with automatic
 * compilation off and 'lo' as port FP_PORT_NO. */
static void
fp_open_datapath(struct fp *fp, unsigned int n_masks)
{
    static bool registered;
    uint32_t port_no = FP_PORT_NO;
    char *name;
    int error;

    if (!registered) {
        dp_register_provider(&dpif_xdp_class);
        registered = true;
    }
    name = xasprintf("%sf%ldm%u", BENCH_PREFIX, (long) getpid(), n_masks);
    error = dpif_create_and_open(name, "xdp", &fp->dpif);
    if (error) {
        ovs_fatal(error, "cannot create datapath %s", name);
    }
    free(name);
    fp->dp = dp_xdp_from_dpif(fp->dpif);
    dp_xdp_compile_set_auto(fp->dp, false);

    if (bpf_map_update_elem(bpf_map__fd(fp->dp->skel->maps.xdp_dp_in_ports),
                            &fp->lo_ifindex, &port_no, BPF_ANY)) {
        ovs_fatal(errno, "cannot map lo to port %d", FP_PORT_NO);
    }
}

/* Detaches and unloads the datapath programs and deletes the datapath, if
 * there is one.  Not for the cleanup hook (see fp_cleanup()). */
static void
fp_close_datapath(struct fp *fp)
{
    for (int p = FP_GENERIC; p <= FP_COMPILED; p++) {
        int error = fp_detach(fp, p);

        if (error) {
            ovs_error(error, "%s: cannot detach the %s program",
                      fp->dev_names[p], fp_prog_names[p]);
        }
        fp->prog_fd[p] = -1;
    }
    xdp_dp__destroy(fp->generic);
    fp->generic = NULL;
    if (fp->dpif) {
        dpif_delete(fp->dpif);
        dpif_close(fp->dpif);
        fp->dpif = NULL;
        fp->dp = NULL;
    }
}

/* Returns the sums over the CPUs of the datapath's counters. */
static struct xdp_dp_stats
fp_read_stats(const struct fp *fp)
{
    struct xdp_dp_stats sum;
    int error = dp_xdp_read_stats(fp->dp, &sum);

    if (error) {
        ovs_fatal(error, "cannot read xdp_dp_stats");
    }
    return sum;
}

static uint32_t
fp_prog_insns(int fd)
{
    struct bpf_prog_info info;
    uint32_t len = sizeof info;

    memset(&info, 0, sizeof info);
    return (!bpf_obj_get_info_by_fd(fd, &info, &len)
            ? info.xlated_prog_len / sizeof(struct bpf_insn) : 0);
}

/* Running. */

/* Runs program 'p' on 'frame', arriving on 'lo', 'repeat' times with
 * BPF_PROG_TEST_RUN.  Stores the verdict in '*verdict' and returns the
 * kernel's time per run, in ns. */
static uint32_t
fp_test_run(const struct fp *fp, enum fp_prog p, const uint8_t *frame,
            unsigned int repeat, uint32_t *verdict)
{
    struct xdp_md ctx_in = {
        .data_end = FP_FRAME_SIZE,
        .ingress_ifindex = fp->lo_ifindex,
    };
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = frame, .data_size_in = FP_FRAME_SIZE,
                .ctx_in = &ctx_in, .ctx_size_in = sizeof ctx_in,
                .repeat = repeat);
    int error;

    for (;;) {
        error = -bpf_prog_test_run_opts(fp->prog_fd[p], &opts);
        if (error != EINTR) {
            break;
        }
        /* A signal ended the runs: if it was Ctrl-C, this cleans up and
         * exits. */
        fatal_signal_run();
    }
    if (error) {
        ovs_fatal(error, "%s: BPF_PROG_TEST_RUN failed", fp_prog_names[p]);
    }
    /* A signal that came between two calls: the same. */
    fatal_signal_run();

    *verdict = opts.retval;
    return opts.duration;
}

static const char *
fp_verdict_name(uint32_t verdict)
{
    static const char *const names[] = {
        "XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT",
    };
    return verdict < ARRAY_SIZE(names) ? names[verdict] : "unknown";
}

/* Appends to 'why' that the frame of 'f' (number 'i') did 'what', unless
 * '*n_failed' is past FP_MAX_REPORTED, and counts the failure. */
static void
fp_report(struct ds *why, int *n_failed, size_t i, const struct fp_flow *f,
          const char *what)
{
    if ((*n_failed)++ < FP_MAX_REPORTED) {
        ds_put_format(why, "\n  frame %"PRIuSIZE" (mask %d): %s; flow ", i,
                      f->mask_idx, what);
        fp_format_flow(why, f);
    }
}

/* Runs every frame once through the compiled and the generic program and
 * checks that both drop it after a hit, then that each flow counted both
 * frames and runs in XDP.  Fails with the first few reasons otherwise.
 * Counts the compiled program's fallbacks in 't'. */
static void
fp_check(struct fp *fp, const struct fp_flow *flows, size_t n,
         struct fp_table *t)
{
    struct ds why = DS_EMPTY_INITIALIZER;
    int n_failed = 0;

    for (size_t i = 0; i < n; i++) {
        const struct fp_flow *f = &flows[i];
        uint32_t verdicts[FP_N_PROGS];

        for (int p = FP_GENERIC; p <= FP_COMPILED; p++) {
            struct xdp_dp_stats before = fp_read_stats(fp);

            fp_test_run(fp, p, f->frame, 1, &verdicts[p]);

            struct xdp_dp_stats after = fp_read_stats(fp);
            uint64_t d_hit = after.n_hit - before.n_hit;
            uint64_t d_missed = after.n_missed - before.n_missed;
            uint64_t d_fallback = after.n_fallback - before.n_fallback;

            if (d_hit != 1 || d_missed) {
                char *what = xasprintf("%s program counted %"PRIu64" hits "
                                       "and %"PRIu64" misses",
                                       fp_prog_names[p], d_hit, d_missed);
                fp_report(&why, &n_failed, i, f, what);
                free(what);
            }
            if (p == FP_COMPILED) {
                t->n_fallback_check += d_fallback;
            } else if (d_fallback) {
                fp_report(&why, &n_failed, i, f,
                          "generic program counted a fallback");
            }
        }
        if (verdicts[FP_GENERIC] != verdicts[FP_COMPILED]) {
            char *what = xasprintf("generic %s, compiled %s",
                                   fp_verdict_name(verdicts[FP_GENERIC]),
                                   fp_verdict_name(verdicts[FP_COMPILED]));
            fp_report(&why, &n_failed, i, f, what);
            free(what);
        } else if (verdicts[FP_GENERIC] != XDP_DROP) {
            char *what = xasprintf("%s from both programs, not XDP_DROP",
                                   fp_verdict_name(verdicts[FP_GENERIC]));
            fp_report(&why, &n_failed, i, f, what);
            free(what);
        }

        fp_test_run(fp, FP_TRIVIAL, f->frame, 1, &verdicts[FP_TRIVIAL]);
        if (verdicts[FP_TRIVIAL] != XDP_PASS) {
            fp_report(&why, &n_failed, i, f, "trivial program did not pass");
        }
        fatal_signal_run();
    }

    /* Each frame hit its own flow in both programs: every flow counted
     * two packets. */
    for (size_t i = 0; i < n; i++) {
        const struct fp_flow *f = &flows[i];
        uint64_t stub[DPIF_FLOW_BUFSIZE / 8];
        struct ofpbuf buf = OFPBUF_STUB_INITIALIZER(stub);
        struct dpif_flow flow;
        int error;

        error = dpif_flow_get(fp->dpif, f->key.data, f->key.size, &f->ufid,
                              PMD_ID_NULL, &buf, &flow);
        if (error) {
            char *what = xasprintf("cannot get its flow (%s)",
                                   ovs_strerror(error));
            fp_report(&why, &n_failed, i, f, what);
            free(what);
        } else if (flow.stats.n_packets != 2
                   || !flow.attrs.dp_layer
                   || strcmp(flow.attrs.dp_layer, "xdp")) {
            char *what = xasprintf("its flow counted %"PRIu64" packets, "
                                   "not 2, and runs in %s",
                                   flow.stats.n_packets,
                                   flow.attrs.dp_layer
                                   ? flow.attrs.dp_layer : "?");
            fp_report(&why, &n_failed, i, f, what);
            free(what);
        }
        ofpbuf_uninit(&buf);
    }

    if (n_failed) {
        ovs_fatal(0, "masks %u: %d failures in the check of the generic "
                  "and compiled programs%s:%s", t->n_masks, n_failed,
                  n_failed > FP_MAX_REPORTED ? " (first ones)" : "",
                  ds_cstr(&why));
    }
    ds_destroy(&why);
}

/* Times program 'p' on every frame, --repeat runs each, checking every
 * verdict and, for the datapath programs, that every run hit.  Returns
 * the mean over the frames of the kernel's ns per run. */
static double
fp_time(struct fp *fp, enum fp_prog p, const struct fp_flow *flows,
        size_t n, struct fp_table *t)
{
    uint32_t expected = p == FP_TRIVIAL ? XDP_PASS : XDP_DROP;
    struct xdp_dp_stats before = fp_read_stats(fp);
    uint64_t total = 0;

    for (size_t i = 0; i < n; i++) {
        uint32_t verdict;

        total += fp_test_run(fp, p, flows[i].frame, fp->repeat, &verdict);
        if (verdict != expected) {
            ovs_fatal(0, "masks %u: %s program: %s for frame %"PRIuSIZE
                      ", not %s", t->n_masks, fp_prog_names[p],
                      fp_verdict_name(verdict), i,
                      fp_verdict_name(expected));
        }
    }

    struct xdp_dp_stats after = fp_read_stats(fp);
    uint64_t runs = p == FP_TRIVIAL ? 0 : (uint64_t) n * fp->repeat;
    uint64_t d_hit = after.n_hit - before.n_hit;
    uint64_t d_missed = after.n_missed - before.n_missed;
    if (d_hit != runs || d_missed) {
        ovs_fatal(0, "masks %u: %s program: %"PRIu64" hits and %"PRIu64
                  " misses in %"PRIu64" runs", t->n_masks, fp_prog_names[p],
                  d_hit, d_missed, runs);
    }
    if (p == FP_COMPILED) {
        t->n_fallback_timed += after.n_fallback - before.n_fallback;
        t->n_timed += runs;
    }
    return (double) total / n;
}

/* Builds, checks and times the table of 't->n_masks' masks. */
static void
fp_run_table(struct fp *fp, struct fp_table *t)
{
    struct fp_flow *flows = xcalloc(fp->n_flows, sizeof *flows);
    struct ds reply = DS_EMPTY_INITIALIZER;
    int error;

    for (size_t i = 0; i < fp->n_flows; i++) {
        fp_make_flow(t->n_masks, i, &flows[i]);
    }
    fp_open_datapath(fp, t->n_masks);
    fp_install(fp, flows, fp->n_flows);

    error = dp_xdp_compile_now(fp->dp, &reply);
    if (error) {
        ds_chomp(&reply, '\n');
        ovs_fatal(error, "masks %u: compiling the table failed%s%s",
                  t->n_masks, reply.length ? ": " : "", ds_cstr(&reply));
    }
    fp->prog_fd[FP_COMPILED] = fp->dp->xdp_prog_fd;
    error = dp_xdp_load_program(fp->dp, NULL, &fp->generic);
    if (error) {
        ovs_fatal(error, "masks %u: cannot load the generic program",
                  t->n_masks);
    }
    fp->prog_fd[FP_GENERIC] = bpf_program__fd(fp->generic->progs.xdp_dp_main);
    t->compiled_insns = fp_prog_insns(fp->prog_fd[FP_COMPILED]);
    t->generic_insns = fp_prog_insns(fp->prog_fd[FP_GENERIC]);
    if (fp->verbose) {
        ds_chomp(&reply, '\n');
        fprintf(stderr, "masks %u: %s\n", t->n_masks, ds_cstr(&reply));
        ds_clear(&reply);
        dp_xdp_compile_format(fp->dp, &reply);
        fputs(ds_cstr(&reply), stderr);
    }
    ds_destroy(&reply);

    fp_attach(fp, FP_GENERIC);
    fp_attach(fp, FP_COMPILED);
    if (!fp->dispatcher_info) {
        struct ds s = DS_EMPTY_INITIALIZER;

        xdp_dispatcher_format_kernel(&s);
        fp->dispatcher_info = ds_steal_cstr(&s);
    }

    fp_check(fp, flows, fp->n_flows, t);
    fprintf(stderr, "masks %u: %u flows installed and compiled; each frame "
            "hit its flow in both programs\n", t->n_masks, fp->n_flows);

    for (int p = 0; p < FP_N_PROGS; p++) {
        t->samples[p] = xcalloc(fp->n_rounds, sizeof *t->samples[p]);
    }
    for (unsigned int r = 0; r < fp->n_rounds; r++) {
        fprintf(stderr, "masks %u: round %u/%u:", t->n_masks, r + 1,
                fp->n_rounds);
        for (int i = 0; i < FP_N_PROGS; i++) {
            enum fp_prog p = (r + i) % FP_N_PROGS;

            t->samples[p][r] = fp_time(fp, p, flows, fp->n_flows, t);
            fprintf(stderr, " %s %.1f ns", fp_prog_names[p],
                    t->samples[p][r]);
        }
        fprintf(stderr, "\n");
    }

    fp_close_datapath(fp);
    fp_free_flows(flows, fp->n_flows);
}

/* Removes everything the benchmark built that would outlive the process.
 * Runs at exit and on fatal signals (fatal_signal_add_hook()), and is safe
 * to run more than once.
 *
 * The datapath of a table that was not finished is left open: closing it
 * takes the datapath's locks and joins its threads, more than a fatal-
 * signal hook should do while the code it interrupted may hold them.  Its
 * programs and maps go with the process; only its pinned maps would stay,
 * and they are removed here. */
static void
fp_cleanup(void *fp_)
{
    struct fp *fp = fp_;

    for (int p = 0; p < FP_N_PROGS; p++) {
        int error = fp_detach(fp, p);

        if (error) {
            ovs_error(error, "%s: cannot detach the %s program",
                      fp->dev_names[p], fp_prog_names[p]);
        }
        fp->prog_fd[p] = -1;
    }
    xdp_dp__destroy(fp->generic);
    fp->generic = NULL;
    bench_trivial__destroy(fp->trivial);
    fp->trivial = NULL;
    if (fp->dp && fp->dp->pinned) {
        xdp_pin_remove(fp->dp->name);
    }
    if (fp->pin_root) {
        rmdir(fp->pin_root);    /* Empty by now; ENOENT if never made. */
    }

    if (fp->root_fd >= 0) {
        bench_netns_leave(fp->root_fd);
        fp->root_fd = -1;
    }
    bench_netns_remove(fp->ns, &fp->ns_created);
}

/* Results. */

static double
fp_median(const struct fp *fp, const struct fp_table *t, enum fp_prog p)
{
    return bench_median(t->samples[p], fp->n_rounds);
}

static void
fp_print_table(const struct fp *fp)
{
    struct ds out = DS_EMPTY_INITIALIZER;
    struct utsname uts;

    uname(&uts);
    ds_put_format(&out, "ovs-xdp-bench fastpath: ns per packet through "
                  "BPF_PROG_TEST_RUN, %d-byte UDP\nframes, one per flow, "
                  "repeat %u each, median of %u round%s (programs in "
                  "turn)\n", FP_FRAME_SIZE, fp->repeat, fp->n_rounds,
                  fp->n_rounds > 1 ? "s" : "");
    ds_put_format(&out, "kernel: Linux %s, %ld CPUs\n", uts.release,
                  sysconf(_SC_NPROCESSORS_ONLN));
    if (fp->dispatcher_info) {
        ds_put_cstr(&out, fp->dispatcher_info);
    }
    ds_put_format(&out, "kernel.bpf_stats_enabled: %s%s\n\n",
                  fp->bpf_stats < 0 ? "unknown" : fp->bpf_stats ? "on" : "off",
                  fp->bpf_stats > 0 ? " (adds to every run; left as it is)"
                  : "");

    ds_put_format(&out, "%5s  %5s  %10s  %10s  %11s  %16s\n", "masks",
                  "flows", "trivial ns", "generic ns", "compiled ns",
                  "generic/compiled");
    for (size_t i = 0; i < fp->n_tables; i++) {
        const struct fp_table *t = &fp->tables[i];
        double generic = fp_median(fp, t, FP_GENERIC);
        double compiled = fp_median(fp, t, FP_COMPILED);

        ds_put_format(&out, "%5u  %5u  %10.1f  %10.1f  %11.1f",
                      t->n_masks, fp->n_flows,
                      fp_median(fp, t, FP_TRIVIAL), generic, compiled);
        if (compiled > 0) {
            ds_put_format(&out, "  %15.2fx\n", generic / compiled);
        } else {
            ds_put_format(&out, "  %16s\n", "-");
        }
    }

    ds_put_format(&out, "\nns: the kernel's time per run (opts.duration), "
                  "averaged over the frames,\nmedian of the rounds.  Flows "
                  "drop (no actions); a frame's TTL selects its mask.\n"
                  "  trivial   datapath/bench-trivial.bpf.c (XDP_PASS), "
                  "the floor\n"
                  "  generic   xdp_dp_main, generic classifier (every "
                  "subtable's mask read at run time)\n"
                  "  compiled  xdp_dp_main compiled for the table "
                  "(dp_xdp_compile_now())\n"
                  "Checked before timing: every frame hit its own flow in "
                  "both the generic and\nthe compiled program, with the same "
                  "verdict.\n");
    for (size_t i = 0; i < fp->n_tables; i++) {
        const struct fp_table *t = &fp->tables[i];

        if (t->n_fallback_check || t->n_fallback_timed) {
            ds_put_format(&out, "warning: masks %u: the compiled program "
                          "passed %"PRIu64" of %u checked frames and %"PRIu64
                          " of %"PRIu64" timed runs to its generic "
                          "fallback\n", t->n_masks, t->n_fallback_check,
                          fp->n_flows, t->n_fallback_timed, t->n_timed);
        }
    }
    fputs(ds_cstr(&out), stdout);
    fflush(stdout);
    ds_destroy(&out);
}

static void
fp_print_json(const struct fp *fp)
{
    struct json *top = json_object_create();
    struct json *tables = json_array_create_empty();
    struct utsname uts;

    uname(&uts);
    json_object_put_string(top, "mode", "fastpath");
    json_object_put_string(top, "kernel", uts.release);
    json_object_put(top, "cpus",
                    json_integer_create(sysconf(_SC_NPROCESSORS_ONLN)));
    json_object_put(top, "bpf_stats_enabled", fp->bpf_stats < 0
                    ? json_null_create()
                    : json_boolean_create(fp->bpf_stats > 0));
    json_object_put(top, "frame_size", json_integer_create(FP_FRAME_SIZE));
    json_object_put(top, "flows", json_integer_create(fp->n_flows));
    json_object_put(top, "repeat", json_integer_create(fp->repeat));
    json_object_put(top, "rounds", json_integer_create(fp->n_rounds));

    for (size_t i = 0; i < fp->n_tables; i++) {
        const struct fp_table *t = &fp->tables[i];
        struct json *table = json_object_create();
        double generic = fp_median(fp, t, FP_GENERIC);
        double compiled = fp_median(fp, t, FP_COMPILED);

        json_object_put(table, "masks", json_integer_create(t->n_masks));
        for (int p = 0; p < FP_N_PROGS; p++) {
            struct json *samples = json_array_create_empty();
            char *name;

            for (unsigned int r = 0; r < fp->n_rounds; r++) {
                json_array_add(samples, json_real_create(t->samples[p][r]));
            }
            name = xasprintf("%s_ns", fp_prog_names[p]);
            json_object_put(table, name, samples);
            free(name);
            name = xasprintf("%s_median_ns", fp_prog_names[p]);
            json_object_put(table, name,
                            json_real_create(fp_median(fp, t, p)));
            free(name);
        }
        json_object_put(table, "generic_over_compiled", compiled > 0
                        ? json_real_create(generic / compiled)
                        : json_null_create());
        json_object_put(table, "compiled_fallbacks_checked",
                        json_integer_create(t->n_fallback_check));
        json_object_put(table, "compiled_fallbacks_timed",
                        json_integer_create(t->n_fallback_timed));
        json_object_put(table, "generic_insns",
                        json_integer_create(t->generic_insns));
        json_object_put(table, "compiled_insns",
                        json_integer_create(t->compiled_insns));
        json_array_add(tables, table);
    }
    json_object_put(top, "tables", tables);

    bench_write_json(top, NULL);
}

/* Command line. */

static void
fp_usage(void)
{
    printf("\
%s fastpath: ns per packet, compiled against generic program\n\
usage: %s fastpath [OPTION]...\n\
\n\
For each number of masks, installs the flows (drop) spread over that many\n\
distinct masks in a new xdp datapath, compiles the table, checks that every\n\
frame of the mix (one per flow) hits its flow in the generic and in the\n\
compiled program alike, then times the trivial XDP_PASS program, the generic\n\
and the compiled program with BPF_PROG_TEST_RUN, in turn, over the rounds.\n\
Creates and removes a network namespace with 4 veths.  Needs root.\n\
\n\
Options:\n\
  --masks=LIST   comma-separated mask counts, 1 to %d (default %s)\n\
  --flows=N      flows in each table (default %d)\n\
  --rounds=N     rounds (default %d)\n\
  --repeat=N     runs of each frame per BPF_PROG_TEST_RUN call (default %d)\n\
  --json         print the results as JSON\n\
  -v, --verbose  show what each program was compiled from\n\
  -h, --help     display this help message\n",
           program_name, program_name, XDP_DP_MAX_MASKS, FP_DEFAULT_MASKS,
           FP_DEFAULT_FLOWS, FP_DEFAULT_ROUNDS, FP_DEFAULT_REPEAT);
}


static void
fp_parse_masks(struct fp *fp, const char *list)
{
    char *copy = xstrdup(list);
    char *save_ptr = NULL;

    fp->n_tables = 0;
    for (char *s = strtok_r(copy, ",", &save_ptr); s;
         s = strtok_r(NULL, ",", &save_ptr)) {
        if (fp->n_tables >= FP_MAX_TABLES) {
            ovs_fatal(0, "--masks: at most %d entries", FP_MAX_TABLES);
        }
        fp->masks[fp->n_tables++] = bench_parse_count("--masks", s, 1,
                                                   XDP_DP_MAX_MASKS);
    }
    if (!fp->n_tables) {
        ovs_fatal(0, "--masks: no mask count in \"%s\"", list);
    }
    free(copy);
}

static void
fp_parse_options(struct fp *fp, int argc, char *argv[])
{
    enum {
        OPT_MASKS = UCHAR_MAX + 1,
        OPT_FLOWS,
        OPT_ROUNDS,
        OPT_REPEAT,
        OPT_JSON,
    };
    static const struct option long_options[] = {
        {"masks", required_argument, NULL, OPT_MASKS},
        {"flows", required_argument, NULL, OPT_FLOWS},
        {"rounds", required_argument, NULL, OPT_ROUNDS},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"json", no_argument, NULL, OPT_JSON},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };

    fp_parse_masks(fp, FP_DEFAULT_MASKS);
    fp->n_flows = FP_DEFAULT_FLOWS;
    fp->n_rounds = FP_DEFAULT_ROUNDS;
    fp->repeat = FP_DEFAULT_REPEAT;
    for (;;) {
        int c = getopt_long(argc, argv, "vh", long_options, NULL);

        if (c == -1) {
            break;
        }
        switch (c) {
        case OPT_MASKS:
            fp_parse_masks(fp, optarg);
            break;
        case OPT_FLOWS:
            fp->n_flows = bench_parse_count("--flows",
                                            optarg, 1, FP_MAX_FLOWS);
            break;
        case OPT_ROUNDS:
            fp->n_rounds = bench_parse_count("--rounds", optarg, 1, 1000);
            break;
        case OPT_REPEAT:
            fp->repeat = bench_parse_count("--repeat",
                                           optarg, 1, FP_MAX_REPEAT);
            break;
        case OPT_JSON:
            fp->json = true;
            break;
        case 'v':
            fp->verbose = true;
            break;
        case 'h':
            fp_usage();
            exit(EXIT_SUCCESS);
        default:
            ovs_fatal(0, "use --help for usage");
        }
    }
    if (optind < argc) {
        ovs_fatal(0, "fastpath takes no arguments (use --help for usage)");
    }
    for (size_t i = 0; i < fp->n_tables; i++) {
        if (fp->masks[i] > fp->n_flows) {
            ovs_fatal(0, "--masks: %u masks need at least as many flows "
                      "(--flows=%u)", fp->masks[i], fp->n_flows);
        }
    }
}

int
bench_fastpath_main(int argc, char *argv[])
{
    static struct fp fp_;
    struct fp *fp = &fp_;

    fp->root_fd = -1;
    for (int p = 0; p < FP_N_PROGS; p++) {
        fp->link_fd[p] = fp->prog_fd[p] = -1;
    }
    fp_parse_options(fp, argc, argv);
    if (geteuid()) {
        ovs_fatal(0, "fastpath: must run as root (datapaths, network "
                  "namespaces and BPF_PROG_TEST_RUN need it)");
    }
    /* The datapath logs its creation and each program swap at INFO. */
    vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_WARN);
    fp->bpf_stats = fp_read_bpf_stats();
    /* A pin root of the run's own, so that its datapaths never meet those
     * of the system's ovs-vswitchd-xdp, or leave a pin root behind. */
    fp->pin_root = xasprintf("/sys/fs/bpf/%s-fp-%ld", BENCH_PREFIX,
                             (long) getpid());
    setenv("OVS_XDP_PIN_ROOT", fp->pin_root, 1);

    fatal_signal_add_hook(fp_cleanup, NULL, fp, true);
    fp_create_devices(fp);

    fp->trivial = bench_trivial__open_and_load();
    if (!fp->trivial) {
        ovs_fatal(errno, "cannot load the trivial program");
    }
    fp->prog_fd[FP_TRIVIAL] = bpf_program__fd(
        fp->trivial->progs.bench_trivial);
    fp_attach(fp, FP_TRIVIAL);

    for (size_t i = 0; i < fp->n_tables; i++) {
        fp->tables[i].n_masks = fp->masks[i];
        fp_run_table(fp, &fp->tables[i]);
    }
    fp_cleanup(fp);

    if (fp->json) {
        fp_print_json(fp);
    } else {
        fp_print_table(fp);
    }

    for (size_t i = 0; i < fp->n_tables; i++) {
        for (int p = 0; p < FP_N_PROGS; p++) {
            free(fp->tables[i].samples[p]);
        }
    }
    for (int i = 0; i < FP_N_DEVS; i++) {
        free(fp->dev_names[i]);
    }
    free(fp->dispatcher_info);
    free(fp->ns);
    return 0;
}
