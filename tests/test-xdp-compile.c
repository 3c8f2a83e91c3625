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

/* test-xdp-compile: differential tests of compiled datapath programs.
 *
 *   test-xdp-compile [-v] [--seed=N] [--rounds=N] [--no-table]
 *                    [--sabotage]
 *
 * A program compiled for a flow table (ofproto-xdp/dpif-xdp-compile.c) must
 * do exactly what the generic program does with the same table, while the
 * table changes under it too.  This program creates an xdp datapath with
 * automatic compiles off, loads a second, generic instance of the datapath
 * program that shares all of the datapath's maps (dp_xdp_load_program()
 * with no configuration), and then, phase after phase, changes the flow
 * table through dpif_operate() as ofproto-dpif would, compiles it with
 * dp_xdp_compile_now() at some points and not at others, and runs every
 * frame of its frame list through both programs with BPF_PROG_TEST_RUN,
 * arriving on port 1 (the ifindex of 'lo').  For each frame it compares:
 *
 *   - the verdicts;
 *   - the bytes that come out ('data_out': metadata for the TC half, then
 *     the frame) and the metadata's length;
 *   - the upcalls, read from the upcall rings: type, port, flow slot and
 *     frame;
 *   - the changes of the datapath's counters n_hit, n_missed, n_lost,
 *     n_slow_path, n_tx_error and of every subtable's mask_hits[] (not
 *     n_mask_hit and n_fallback, which count subtables visited: they differ
 *     by design);
 *   - the changes of every flow's counters (packets and bytes) and the TCP
 *     flags each flow collected.
 *
 * A compiled program has code only for the action types of the table it
 * was compiled for: a flow with another action type, installed since,
 * must be handed to ovs-vswitchd (a SLOW_PATH upcall naming the flow, with
 * the frame untouched, verdict XDP_DROP, n_slow_path counted) where the
 * generic program runs its actions.  The compiled program then counts
 * the packet neither in the flow's slot nor in n_hit (ovs-vswitchd counts
 * it in the slot when it executes the flow); n_missed must still agree.
 * That is the only difference allowed.
 *
 * Besides the comparisons, each frame is checked against Open vSwitch
 * itself: the flow that flow_extract() and the installed megaflows select
 * (at most one: megaflows never overlap, and the test refuses a table in
 * which two do) must be the flow whose counter moved.  And for a compiled
 * program, every hit on a flow of a compiled subtable must have been
 * found by the compiled lookup, not by the fallback to the generic
 * classifier (n_fallback unchanged, n_mask_hit the subtable's position),
 * and every other packet must have gone through the fallback; otherwise a
 * compiled program that always fell back would pass every comparison.
 *
 * Frames go through the programs twice per phase, with two port layouts:
 * "skb", where every output port transmits through the TC half (so that
 * the metadata names every port a frame goes to), and "mixed", where port 2
 * redirects through the devmap (XDP_REDIRECT), port 3 redirects but has no
 * devmap entry (XDP_DROP), port 4 transmits through the TC half, port 5 is
 * a slow port (an OUTPUT upcall) and port 6 is not a port.
 *
 * The phases of the table part (see do_table()) are written to reach the
 * corners of the compiler: a first table without transport-layer masks
 * (the compiled program then parses only TCP before its lookups), with
 * masks of up to and more than XDP_DP_CKEY_MAX_WORDS key words (compact
 * keys and the full-size key); then flows added without a recompile: new
 * masks (transport-layer ones among them), new flows of compiled masks
 * (written to the compact maps), more flows than a compact map holds, new
 * action types, actions modified in place; then deletes, of single flows
 * and of every flow of compiled masks, and masks that come back; then a
 * recompile, and the same again until the table is empty, and flows added
 * to the program compiled for the empty table.  The random
 * part (--rounds, default 4) builds tables from the same frames and
 * masks with a pseudo-random generator seeded with --seed (default 1,
 * printed), through the same steps: each round's table runs first in the
 * program compiled for the last round's, then is compiled, grown without
 * a recompile, thinned, and recompiled.
 *
 * After each compile the live configuration is checked against the table
 * (one compiled subtable per mask in use, with that mask's words; the
 * transport layer parsed if and only if a mask needs it; code for the
 * action types the flows use), and in every compiled phase the compact
 * maps must hold exactly the flows of their subtables.  At the end of
 * each phase, the counters that dpif_flow_get() reports must be the sums
 * of what the runs counted.
 *
 * Prints "ok PHASE/CHECK" or "FAIL PHASE/CHECK:" followed by one indented
 * line per reason for each check, then "N checks, M failed", and exits
 * with status 1 if M is not 0.  With --sabotage, the generic run of some
 * frames gets a changed frame or runs twice, and in every compiled phase
 * the flow that the first frame hits goes missing from its compact map,
 * to show that the checks notice.  Needs root.
 *
 * This file holds the driver: the options, the phases, the runs through
 * both programs, the comparisons, the checks and their report.  The frame
 * list, the mask templates, the making of flows and the changes of the
 * table are in test-xdp-compile-frames.c; test-xdp-compile.h has what the
 * two share. */

#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dpif.h"
#include "dpif-provider.h"
#include "flow.h"
#include "maps/flow-stats.h"
#include "netlink.h"
#include "ofproto-xdp/dpif-xdp.h"
#include "ofproto-xdp/dpif-xdp-private.h"
#include "ofproto-xdp/xdp-compile.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/match.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "random.h"
#include "tests/test-xdp-compile.h"
#include "timeval.h"
#include "util.h"

#define XC_IFINDEX_BASE 1000    /* Made-up ifindex of "skb" port N: + N. */
#define XC_FIRST_PORT 2         /* Ports configured in the layouts: 2 ... */
#define XC_LAST_PORT 6          /* ... to 6. */
#define XC_MAX_UPCALLS 4        /* Upcalls kept from one run. */
#define XC_QUARANTINE_MS 200    /* Longer than the datapath keeps a freed
                                 * subtable or statistics slot. */

/* Actions for random tables: 'xc_base_actions' for the tables that get
 * compiled, 'xc_more_actions' too for flows added later, with action types
 * the compiled program may have no code for. */
static const char *const xc_base_actions[] = {
    "drop", "2", "3", "4", "5", "6",
    "set(eth(dst=02:00:00:00:00:bb)),2",
    "set(eth(src=02:00:00:00:00:cc,dst=02:00:00:00:00:dd)),4",
    "push_vlan(vid=42,pcp=5),3",
    "set(ipv4(ttl=7)),2",
    "set(ipv4(src=10.9.9.9,dst=10.8.8.8)),5",
};
static const char *const xc_more_actions[] = {
    "pop_vlan,2",
    "pop_vlan,pop_vlan,3",
    "set(udp(dst=5353)),2",
    "set(tcp(src=1234,dst=8080)),4",
    "2,3",
    "set(eth(dst=02:00:00:00:00:ee)),2,4,5",
    "set(ipv4(src=192.168.0.1/255.255.0.0)),3",
    "push_vlan(vid=5,pcp=0),set(ipv4(tos=0x20)),2",
    "set(udp(src=1)),set(eth(src=02:00:00:00:00:ee)),6",
    "userspace(pid=4321)",
    "set(ipv6(hlimit=9)),2",
};

/* How the ports transmit. */
enum xc_port_mode {
    XC_PORT_NONE,               /* Not a port. */
    XC_PORT_REDIRECT,           /* Devmap redirect, with a devmap entry. */
    XC_PORT_REDIRECT_MISSING,   /* Devmap redirect, no devmap entry. */
    XC_PORT_SKB,                /* Through the TC half. */
    XC_PORT_SLOW,               /* To ovs-vswitchd. */
};

struct xc_layout {
    const char *name;
    enum xc_port_mode modes[XC_LAST_PORT + 1];  /* Indexed by port. */
};

static const struct xc_layout xc_layouts[] = {
    { "skb", { [2] = XC_PORT_SKB, [3] = XC_PORT_SKB, [4] = XC_PORT_SKB,
               [5] = XC_PORT_SKB, [6] = XC_PORT_NONE } },
    { "mixed", { [2] = XC_PORT_REDIRECT, [3] = XC_PORT_REDIRECT_MISSING,
                 [4] = XC_PORT_SKB, [5] = XC_PORT_SLOW,
                 [6] = XC_PORT_NONE } },
};

/* An upcall read from the rings. */
struct xc_upcall {
    struct xdp_dp_upcall up;
    uint8_t data[XC_MAX_FRAME];
    uint32_t len;               /* Bytes in 'data'. */
};

/* The datapath's counters (struct xdp_dp_stats, summed over the CPUs),
 * in userspace's types. */
struct xc_counters {
    uint64_t n_hit, n_missed, n_lost, n_mask_hit, n_slow_path, n_tx_error;
    uint64_t n_fallback;
    uint64_t mask_hits[XDP_DP_MAX_MASKS];
};

/* What one run of a frame through a program did. */
struct xc_run {
    uint32_t verdict;
    uint8_t data[XC_MAX_FRAME + 64];    /* Metadata, then the frame. */
    uint32_t size;              /* Bytes in 'data'. */
    uint32_t meta_len;          /* Bytes of metadata at its start. */
    struct xc_upcall upcalls[XC_MAX_UPCALLS];
    int n_upcalls;              /* Upcalls (may exceed XC_MAX_UPCALLS). */
    struct xc_counters d;       /* Changes of the datapath's counters. */
    uint64_t *d_packets;        /* Changes of each flow's counters, */
    uint64_t *d_bytes;          /* indexed as the test's flows, */
    uint64_t *tcp_flags;        /* and the TCP flags each collected. */
    int hit;                    /* The flow whose counter moved, or -1, or
                                 * -2 if more than one did. */
};

/* What a phase saw, for its "coverage" check. */
struct xc_coverage {
    int csub_hits;              /* Hits found by the compiled lookups. */
    int cache_hits;             /* Of those, found again through the mask
                                 * cache by one lookup. */
    int fallback_hits;          /* Hits found by the fallback. */
    int slow_paths;             /* Compiled runs handed to ovs-vswitchd for
                                 * want of action code. */
};

/* Coverage a phase must have. */
enum {
    XC_WANT_CSUB = 1 << 0,
    XC_WANT_FALLBACK = 1 << 1,
    XC_WANT_SLOW = 1 << 2,
    XC_WANT_CACHE = 1 << 3,
};

/* Checks. */

/* Reports check 'phase'/'what': passed if 'why' is empty, otherwise failed
 * for the reasons in 'why' (each on its own line, starting with "\n"). */
void
xc_report(struct xc_ctx *ctx, const char *phase, const char *what,
          const struct ds *why)
{
    ctx->n_checks++;
    if (!why->length) {
        printf("ok %s/%s\n", phase, what);
    } else {
        ctx->n_failed++;
        printf("FAIL %s/%s:%s\n", phase, what, ds_cstr_ro(why));
    }
    fflush(stdout);
}

static void
xc_put_hex(struct ds *s, const uint8_t *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ds_put_format(s, "%02x", data[i]);
    }
}

/* Appends at most 48 bytes of 'data' ('n' bytes), from 16-byte aligned
 * offset 'ofs'. */
static void
xc_put_hex_at(struct ds *s, const uint8_t *data, size_t n, size_t ofs)
{
    size_t end = MIN(n, ofs + 48);

    ds_put_format(s, "%s", ofs ? "..." : "");
    if (ofs < end) {
        xc_put_hex(s, data + ofs, end - ofs);
    }
    ds_put_format(s, "%s", end < n ? "..." : "");
}

/* The 16-byte aligned offset of the first byte where 'a' ('na' bytes)
 * and 'b' ('nb' bytes) differ. */
static size_t
xc_diff_ofs(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    size_t i = 0;

    while (i < na && i < nb && a[i] == b[i]) {
        i++;
    }
    return i & ~(size_t) 15;
}

static const char *
xc_verdict_name(uint32_t verdict)
{
    static const char *const names[] = {
        "XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT",
    };
    return verdict < ARRAY_SIZE(names) ? names[verdict] : "unknown";
}

/* Programs and runs. */

static void
xc_map_update(struct bpf_map *map, const void *key, const void *value)
{
    if (bpf_map_update_elem(bpf_map__fd(map), key, value, BPF_ANY)) {
        ovs_fatal(errno, "cannot update %s", bpf_map__name(map));
    }
}

static void
xc_setup_layout(struct xc_ctx *ctx, const struct xc_layout *layout)
{
    struct xdp_dp *skel = ctx->dp->skel;

    for (uint32_t p = XC_FIRST_PORT; p <= XC_LAST_PORT; p++) {
        struct xdp_dp_port port = { .ifindex = 0, .tx_mode = XDP_DP_TX_NONE };
        uint32_t ifindex = ctx->lo_ifindex;

        switch (layout->modes[p]) {
        case XC_PORT_NONE:
            break;
        case XC_PORT_REDIRECT:
        case XC_PORT_REDIRECT_MISSING:
            port.ifindex = ctx->lo_ifindex;
            port.tx_mode = XDP_DP_TX_REDIRECT;
            break;
        case XC_PORT_SKB:
            port.ifindex = XC_IFINDEX_BASE + p;
            port.tx_mode = XDP_DP_TX_SKB;
            break;
        case XC_PORT_SLOW:
            port.ifindex = XC_IFINDEX_BASE + p;
            port.tx_mode = XDP_DP_TX_SLOW;
            break;
        }
        xc_map_update(skel->maps.xdp_dp_ports, &p, &port);
        if (layout->modes[p] == XC_PORT_REDIRECT) {
            xc_map_update(skel->maps.xdp_dp_tx_ports, &p, &ifindex);
        } else {
            bpf_map_delete_elem(bpf_map__fd(skel->maps.xdp_dp_tx_ports), &p);
        }
    }
}

static void
xc_on_sample(void *ctx_, int cpu OVS_UNUSED, void *data, __u32 size)
{
    struct xc_ctx *ctx = ctx_;
    const struct xdp_dp_upcall *up = data;
    int n = (*ctx->n_sink)++;

    if (n < XC_MAX_UPCALLS && size >= sizeof *up) {
        struct xc_upcall *u = &ctx->sink[n];
        uint32_t len = MIN(size - sizeof *up, up->pkt_len);

        u->up = *up;
        u->len = MIN(len, sizeof u->data);
        memcpy(u->data, up + 1, u->len);
    }
}

static void
xc_on_lost(void *ctx_, int cpu OVS_UNUSED, __u64 cnt)
{
    struct xc_ctx *ctx = ctx_;

    ctx->n_ring_lost += cnt;
}

static struct xc_counters
xc_read_dp_stats(struct xc_ctx *ctx)
{
    struct xdp_dp_stats s;
    struct xc_counters sum;
    int error = dp_xdp_read_stats(ctx->dp, &s);

    if (error) {
        ovs_fatal(error, "cannot read xdp_dp_stats");
    }
    sum.n_hit = s.n_hit;
    sum.n_missed = s.n_missed;
    sum.n_lost = s.n_lost;
    sum.n_mask_hit = s.n_mask_hit;
    sum.n_slow_path = s.n_slow_path;
    sum.n_tx_error = s.n_tx_error;
    sum.n_fallback = s.n_fallback;
    memcpy(sum.mask_hits, s.mask_hits, sizeof sum.mask_hits);
    return sum;
}

static struct xc_counters
xc_stats_delta(const struct xc_counters *a, const struct xc_counters *b)
{
    struct xc_counters d;

    d.n_hit = b->n_hit - a->n_hit;
    d.n_missed = b->n_missed - a->n_missed;
    d.n_lost = b->n_lost - a->n_lost;
    d.n_mask_hit = b->n_mask_hit - a->n_mask_hit;
    d.n_slow_path = b->n_slow_path - a->n_slow_path;
    d.n_tx_error = b->n_tx_error - a->n_tx_error;
    d.n_fallback = b->n_fallback - a->n_fallback;
    for (int j = 0; j < XDP_DP_MAX_MASKS; j++) {
        d.mask_hits[j] = b->mask_hits[j] - a->mask_hits[j];
    }
    return d;
}

static void
xc_run_init(struct xc_run *r, size_t n_flows)
{
    memset(r, 0, sizeof *r);
    r->d_packets = xcalloc(MAX(n_flows, 1), sizeof *r->d_packets);
    r->d_bytes = xcalloc(MAX(n_flows, 1), sizeof *r->d_bytes);
    r->tcp_flags = xcalloc(MAX(n_flows, 1), sizeof *r->tcp_flags);
}

static void
xc_run_destroy(struct xc_run *r)
{
    free(r->d_packets);
    free(r->d_bytes);
    free(r->tcp_flags);
}

/* Empties the compiled programs' mask cache (see classify_compiled() in
 * datapath/xdp-dp-classify.h) on every CPU, in one batch, so that a
 * compiled lookup's n_mask_hit is the position of the subtable it found
 * the packet in. */
static void
xc_clear_mask_cache(struct xc_ctx *ctx)
{
    int n_cpus = libbpf_num_possible_cpus();
    uint32_t n = XDP_DP_MASK_CACHE_SETS;
    uint32_t *keys = xmalloc(n * sizeof *keys);
    struct xdp_dp_mask_cache_entry *values;
    int error;

    values = xcalloc((size_t) n * MAX(n_cpus, 1), sizeof *values);
    for (uint32_t i = 0; i < n; i++) {
        keys[i] = i;
    }
    error = bpf_map_update_batch(
        bpf_map__fd(ctx->dp->skel->maps.xdp_dp_mask_cache), keys, values,
        &n, NULL);
    if (error) {
        ovs_fatal(-error, "cannot clear the mask cache");
    }
    free(keys);
    free(values);
}

/* Runs 'frame' ('len' bytes) 'repeat' times through program 'prog_fd' and
 * stores what happened in 'r' (initialized with xc_run_init()). */
static void
xc_run(struct xc_ctx *ctx, int prog_fd, const uint8_t *frame, size_t len,
       int repeat, struct xc_run *r)
{
    struct xdp_flow_stats_map *sm = &ctx->dp->stats_map;
    struct xdp_md ctx_in = { .data_end = len,
                             .ingress_ifindex = ctx->lo_ifindex };
    struct xdp_md ctx_out;
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = frame, .data_size_in = len,
                .data_out = r->data, .data_size_out = sizeof r->data,
                .ctx_in = &ctx_in, .ctx_size_in = sizeof ctx_in,
                .ctx_out = &ctx_out, .ctx_size_out = sizeof ctx_out,
                .repeat = repeat);
    int error;

    /* The TCP flags of a flow are an OR over its packets: start each run
     * from none, through the mapping (it is writable), so that the run's
     * own flags show. */
    uint64_t *packets = xmalloc(MAX(ctx->n_flows, 1) * sizeof *packets);
    uint64_t *bytes = xmalloc(MAX(ctx->n_flows, 1) * sizeof *bytes);
    for (size_t i = 0; i < ctx->n_flows; i++) {
        struct xdp_flow_stats s;

        sm->slots[ctx->flows[i]->slot].tcp_flags = 0;
        xdp_flow_stats_read(sm, ctx->flows[i]->slot, &s);
        packets[i] = s.n_packets;
        bytes[i] = s.n_bytes;
    }
    perf_buffer__consume(ctx->pb);      /* Nothing should be there. */

    struct xc_counters before = xc_read_dp_stats(ctx);
    memset(&ctx_out, 0, sizeof ctx_out);
    error = bpf_prog_test_run_opts(prog_fd, &opts);
    if (error) {
        ovs_fatal(-error, "BPF_PROG_TEST_RUN");
    }
    struct xc_counters after = xc_read_dp_stats(ctx);

    r->verdict = opts.retval;
    r->size = opts.data_size_out;
    r->meta_len = ctx_out.data;
    r->d = xc_stats_delta(&before, &after);

    ctx->sink = r->upcalls;
    ctx->n_sink = &r->n_upcalls;
    perf_buffer__consume(ctx->pb);
    ctx->sink = NULL;
    ctx->n_sink = NULL;

    r->hit = -1;
    for (size_t i = 0; i < ctx->n_flows; i++) {
        struct xdp_flow_stats s;

        xdp_flow_stats_read(sm, ctx->flows[i]->slot, &s);
        r->d_packets[i] = s.n_packets - packets[i];
        r->d_bytes[i] = s.n_bytes - bytes[i];
        r->tcp_flags[i] = s.tcp_flags;
        if (r->d_packets[i]) {
            r->hit = r->hit == -1 ? (int) i : -2;
        }
    }
    /* A packet that hit a flow and went up to ovs-vswitchd to execute it
     * is not counted in the flow's slot by the program, but its upcall
     * names the slot. */
    if (r->hit == -1 && r->n_upcalls
        && r->upcalls[0].up.type == XDP_DP_UPCALL_SLOW_PATH) {
        for (size_t i = 0; i < ctx->n_flows; i++) {
            if (ctx->flows[i]->slot == r->upcalls[0].up.slot) {
                r->hit = i;
            }
        }
    }
    free(packets);
    free(bytes);
}

/* The reference: the installed flow that OVS's flow_extract() and the
 * flows' masks select for 'frame', or -1; -2 if several match, with the
 * overlapping flows appended to 'why'. */
static int
xc_reference(const struct xc_ctx *ctx, const struct xc_frame *frame,
             struct ds *why)
{
    int hit = -1;

    for (size_t i = 0; i < ctx->n_flows; i++) {
        const struct match *m = &ctx->flows[i]->match;

        if (flow_equal_except(&frame->flow, &m->flow, &m->wc)) {
            if (hit != -1) {
                ds_put_format(why, "\n    table error: flows %s and %s "
                              "both match", ctx->flows[hit >= 0 ? hit : 0]
                              ->name, ctx->flows[i]->name);
                hit = -2;
            } else {
                hit = i;
            }
        }
    }
    return hit;
}

/* The compiled program's state, for the expectations of a phase. */
struct xc_state {
    struct xdp_dp_cfg cfg;      /* The live program's configuration. */
    bool compiled;              /* Is the datapath's program compiled? */
    int csub_pos[XDP_DP_MAX_MASKS];     /* Position in 'cfg' of each mask
                                         * slot's compiled subtable (with
                                         * the slot's current mask), or -1. */
    bool direct[XDP_DP_MAX_MASKS];      /* Are the slot's flows all found by
                                         * its compiled lookup (full key, or
                                         * a complete compact map)? */
};

/* Whether the compiled subtable 'cs' was compiled for 'mask'. */
static bool
xc_csub_is_mask(const struct xdp_dp_csub *cs, const struct xdp_flow_key *mask)
{
    const uint32_t *m = (const uint32_t *) mask;
    uint32_t j = 0;

    for (uint32_t w = 0; w < XDP_FLOW_KEY_WORDS32; w++) {
        if (m[w]) {
            if (j >= cs->n_words || cs->word[j] != w || cs->mask[j] != m[w]) {
                return false;
            }
            j++;
        }
    }
    return j == cs->n_words || (!j && cs->n_words == 1 && !cs->mask[0]);
}

static void
xc_read_state(struct xc_ctx *ctx, struct xc_state *st)
{
    struct dp_xdp *dp = ctx->dp;

    dp_xdp_compile_get_cfg(dp, &st->cfg);
    ovs_mutex_lock(&dp->flow_mutex);
    st->compiled = dp->live_skel->rodata->xdp_dp_cfg.enabled;
    ovs_mutex_unlock(&dp->flow_mutex);
    for (int i = 0; i < XDP_DP_MAX_MASKS; i++) {
        st->csub_pos[i] = -1;
        st->direct[i] = false;
    }
    if (!st->compiled) {
        return;
    }
    ovs_mutex_lock(&dp->flow_mutex);
    for (uint32_t i = 0; i < st->cfg.n_csubs; i++) {
        const struct xdp_dp_csub *cs = &st->cfg.csubs[i];
        const struct dp_xdp_mask *m;

        if (cs->slot >= XDP_DP_MAX_MASKS) {
            continue;
        }
        m = &dp->masks[cs->slot];
        if (m->in_use && xc_csub_is_mask(cs, &m->mask)) {
            const struct dp_xdp_cslot *cslot
                = dp_xdp_compile_slot(dp, cs->slot);

            st->csub_pos[cs->slot] = i;
            st->direct[cs->slot] = (!cs->ckey_words
                                    || (cslot->cmap_fd >= 0
                                        && !cslot->cmap_full));
        }
    }
    ovs_mutex_unlock(&dp->flow_mutex);
}

/* Compares the runs of 'frame' through the compiled program ('c') and the
 * generic one ('g'); appends the differences to 'why' and counts in 'cov'
 * what the compiled run exercised. */
static void
xc_compare(struct xc_ctx *ctx, const struct xc_state *st,
           const struct xc_frame *frame, const struct xc_run *c,
           const struct xc_run *g, struct xc_coverage *cov, struct ds *why)
{
    const struct xc_flow *hf = g->hit >= 0 ? ctx->flows[g->hit] : NULL;
    bool slow = (st->compiled && hf && !(hf->flags & XDP_FLOW_F_SLOW_PATH)
                 && hf->action_bits & ~st->cfg.action_bits);

    /* The programs' own behaviour. */
    if (g->hit == -2 || c->hit == -2) {
        ds_put_format(why, "\n    more than one flow counted the packet "
                      "(compiled %s, generic %s)", c->hit == -2 ? "yes" : "no",
                      g->hit == -2 ? "yes" : "no");
    }
    /* A packet that the compiled program sends up is not counted as
     * switched in XDP: not in its flow's slot (ovs-vswitchd counts it
     * there when it executes the flow), not in n_hit. */
    if (c->hit != g->hit) {
        ds_put_format(why, "\n    hit: compiled %s, generic %s",
                      c->hit >= 0 ? ctx->flows[c->hit]->name : "none",
                      hf ? hf->name : "none");
    }
    for (size_t i = 0; i < ctx->n_flows; i++) {
        if (slow && (int) i == g->hit) {
            if (c->d_packets[i]) {
                ds_put_format(why, "\n    compiled: flow %s counted %"
                              PRIu64" packets that it sent up",
                              ctx->flows[i]->name, c->d_packets[i]);
            }
            continue;
        }
        if (c->d_packets[i] != g->d_packets[i]
            || c->d_bytes[i] != g->d_bytes[i]
            || c->tcp_flags[i] != g->tcp_flags[i]) {
            ds_put_format(why, "\n    flow %s: compiled %"PRIu64" packets "
                          "%"PRIu64" bytes tcp_flags %#"PRIx64", generic "
                          "%"PRIu64" packets %"PRIu64" bytes tcp_flags "
                          "%#"PRIx64, ctx->flows[i]->name, c->d_packets[i],
                          c->d_bytes[i], c->tcp_flags[i], g->d_packets[i],
                          g->d_bytes[i], g->tcp_flags[i]);
        }
    }

#define XC_CMP_COUNTER(FIELD)                                            \
    if (c->d.FIELD != g->d.FIELD) {                                      \
        ds_put_format(why, "\n    " #FIELD ": compiled +%"PRIu64          \
                      ", generic +%"PRIu64, c->d.FIELD, g->d.FIELD);     \
    }
    if (!slow) {
        XC_CMP_COUNTER(n_hit);
    } else if (c->d.n_hit || g->d.n_hit != 1) {
        ds_put_format(why, "\n    n_hit: compiled +%"PRIu64", generic +%"
                      PRIu64", expected +0 and +1", c->d.n_hit, g->d.n_hit);
    }
    XC_CMP_COUNTER(n_missed);
    for (int j = 0; j < XDP_DP_MAX_MASKS; j++) {
        if (c->d.mask_hits[j] != g->d.mask_hits[j]) {
            ds_put_format(why, "\n    mask_hits[%d]: compiled +%"PRIu64
                          ", generic +%"PRIu64, j, c->d.mask_hits[j],
                          g->d.mask_hits[j]);
        }
    }
    if (!st->compiled) {
        /* Two generic programs: everything alike. */
        XC_CMP_COUNTER(n_mask_hit);
        XC_CMP_COUNTER(n_fallback);
    }

    if (slow) {
        /* The compiled program has no code for this flow's actions: it
         * hands the untouched frame to ovs-vswitchd. */
        const struct xc_upcall *u = &c->upcalls[0];

        cov->slow_paths++;
        if (c->verdict != XDP_DROP) {
            ds_put_format(why, "\n    compiled: verdict %s for a flow "
                          "whose actions it has no code for (%#"PRIx32" "
                          "not in %#"PRIx32"), expected XDP_DROP",
                          xc_verdict_name(c->verdict), hf->action_bits,
                          st->cfg.action_bits);
        }
        if (c->d.n_slow_path != 1 || g->d.n_slow_path != 0) {
            ds_put_format(why, "\n    n_slow_path: compiled +%"PRIu64
                          ", generic +%"PRIu64", expected +1 and +0",
                          c->d.n_slow_path, g->d.n_slow_path);
        }
        if (c->d.n_tx_error || c->d.n_lost) {
            ds_put_format(why, "\n    compiled: n_tx_error +%"PRIu64
                          ", n_lost +%"PRIu64" on a slow-path packet",
                          c->d.n_tx_error, c->d.n_lost);
        }
        if (c->n_upcalls != 1 || u->up.type != XDP_DP_UPCALL_SLOW_PATH
            || u->up.in_port != XC_IN_PORT || u->up.slot != hf->slot
            || u->len != frame->len || memcmp(u->data, frame->data,
                                              frame->len)) {
            ds_put_format(why, "\n    compiled: %d upcalls, expected one "
                          "SLOW_PATH upcall for slot %"PRIu32" with the "
                          "frame as it came", c->n_upcalls, hf->slot);
            if (c->n_upcalls) {
                ds_put_format(why, " (type %"PRIu32", port %"PRIu32
                              ", slot %"PRIu32", %"PRIu32" bytes)",
                              u->up.type, u->up.in_port, u->up.slot,
                              u->len);
            }
        }
        if (c->meta_len || c->size != frame->len
            || memcmp(c->data, frame->data, frame->len)) {
            ds_put_format(why, "\n    compiled: slow-path frame changed "
                          "(%"PRIu32" bytes of metadata, %"PRIu32" in all): ",
                          c->meta_len, c->size);
            xc_put_hex_at(why, c->data, c->size,
                          xc_diff_ofs(c->data, c->size, frame->data,
                                      frame->len));
        }
    } else {
        XC_CMP_COUNTER(n_lost);
        XC_CMP_COUNTER(n_slow_path);
        XC_CMP_COUNTER(n_tx_error);
        if (c->verdict != g->verdict) {
            ds_put_format(why, "\n    verdict: compiled %s, generic %s",
                          xc_verdict_name(c->verdict),
                          xc_verdict_name(g->verdict));
        }
        if (c->meta_len != g->meta_len || c->size != g->size
            || memcmp(c->data, g->data, c->size)) {
            size_t ofs = xc_diff_ofs(c->data, c->size, g->data, g->size);

            ds_put_format(why, "\n    output: compiled %"PRIu32" bytes (%"
                          PRIu32" of metadata), generic %"PRIu32" (%"PRIu32
                          "), from byte %"PRIuSIZE":", c->size, c->meta_len,
                          g->size, g->meta_len, ofs);
            ds_put_cstr(why, "\n      compiled ");
            xc_put_hex_at(why, c->data, c->size, ofs);
            ds_put_cstr(why, "\n      generic  ");
            xc_put_hex_at(why, g->data, g->size, ofs);
        }
        bool same = c->n_upcalls == g->n_upcalls;
        for (int i = 0; same && i < MIN(c->n_upcalls, XC_MAX_UPCALLS); i++) {
            const struct xc_upcall *a = &c->upcalls[i];
            const struct xc_upcall *b = &g->upcalls[i];

            same = (a->up.type == b->up.type && a->up.in_port == b->up.in_port
                    && a->up.slot == b->up.slot
                    && a->up.pkt_len == b->up.pkt_len && a->len == b->len
                    && !memcmp(a->data, b->data, a->len));
        }
        if (!same) {
            ds_put_format(why, "\n    upcalls: compiled %d, generic %d "
                          "(or different)", c->n_upcalls, g->n_upcalls);
            for (int k = 0; k < 2; k++) {
                const struct xc_run *r = k ? g : c;

                for (int i = 0; i < MIN(r->n_upcalls, XC_MAX_UPCALLS); i++) {
                    const struct xc_upcall *u = &r->upcalls[i];

                    ds_put_format(why, "\n      %s: type %"PRIu32" port "
                                  "%"PRIu32" slot %"PRIu32", %"PRIu32
                                  " bytes: ", k ? "generic " : "compiled",
                                  u->up.type, u->up.in_port, u->up.slot,
                                  u->len);
                    xc_put_hex_at(why, u->data, u->len, 0);
                }
            }
        }
    }
#undef XC_CMP_COUNTER

    /* The compiled program must have found the flows of its compiled
     * subtables by itself, and only those. */
    if (st->compiled && !frame->spec->xdp_upcalls && g->hit != -2) {
        int pos = hf && hf->mask_slot >= 0 ? st->csub_pos[hf->mask_slot] : -1;

        if (g->d.n_fallback) {
            ds_put_format(why, "\n    generic: n_fallback +%"PRIu64,
                          g->d.n_fallback);
        }
        if (!hf) {
            if (c->d.n_fallback != 1) {
                ds_put_format(why, "\n    compiled: a packet that matches "
                              "no flow counted n_fallback +%"PRIu64,
                              c->d.n_fallback);
            }
        } else if (pos >= 0 && st->direct[hf->mask_slot]) {
            cov->csub_hits++;
            if (c->d.n_fallback || c->d.n_mask_hit != pos + 1) {
                ds_put_format(why, "\n    compiled: flow %s of compiled "
                              "subtable %d (slot %d) found with n_fallback "
                              "+%"PRIu64" and n_mask_hit +%"PRIu64
                              ", expected +0 and +%d", hf->name, pos + 1,
                              hf->mask_slot, c->d.n_fallback,
                              c->d.n_mask_hit, pos + 1);
            }
        } else if (pos < 0) {
            cov->fallback_hits++;
            if (c->d.n_fallback != 1) {
                ds_put_format(why, "\n    compiled: flow %s of subtable "
                              "slot %d, which is not compiled, found with "
                              "n_fallback +%"PRIu64, hf->name,
                              hf->mask_slot, c->d.n_fallback);
            }
        }
    }

    /* Open vSwitch's own classification. */
    struct ds overlap = DS_EMPTY_INITIALIZER;
    int ref = xc_reference(ctx, frame, &overlap);
    ds_put_cstr(why, ds_cstr(&overlap));
    ds_destroy(&overlap);
    if (ref != -2 && !frame->spec->xdp_upcalls && ref != g->hit) {
        ds_put_format(why, "\n    OVS matches %s, the generic program "
                      "hits %s", ref >= 0 ? ctx->flows[ref]->name : "none",
                      g->hit >= 0 ? ctx->flows[g->hit]->name
                      : g->hit == -1 ? "none" : "several");
    }
}

/* Phases. */

/* Checks that every compiled subtable's compact map holds exactly the
 * flows of its subtable, under their compact keys, with their values. */
static void
xc_check_cmaps(struct xc_ctx *ctx, const char *phase,
               const struct xc_state *st)
{
    struct ds why = DS_EMPTY_INITIALIZER;
    struct dp_xdp *dp = ctx->dp;

    if (!st->compiled) {
        return;
    }
    ovs_mutex_lock(&dp->flow_mutex);
    for (uint32_t i = 0; i < st->cfg.n_csubs; i++) {
        const struct xdp_dp_csub *cs = &st->cfg.csubs[i];
        const struct dp_xdp_cslot *cslot = dp_xdp_compile_slot(dp,
                                                               cs->slot);
        const struct dp_xdp_mask *m = &dp->masks[cs->slot];
        uint32_t n_flows = 0;

        if (!cs->ckey_words) {
            continue;
        }
        if (cslot->cmap_fd < 0) {
            ds_put_format(&why, "\n    subtable slot %"PRIu32" has no "
                          "compact map", cs->slot);
            continue;
        }
        if (!xc_csub_is_mask(cs, &m->mask)) {
            if (m->in_use) {
                ds_put_format(&why, "\n    subtable slot %"PRIu32" was "
                              "compiled for another mask", cs->slot);
            }
            continue;
        }
        for (size_t k = 0; k < ctx->n_flows; k++) {
            const struct xc_flow *f = ctx->flows[k];
            const uint32_t *kw = (const uint32_t *) &f->xkey;
            uint32_t ckey[XDP_DP_CKEY_MAX_WORDS];
            struct xdp_flow value;

            if (f->mask_slot != (int) cs->slot) {
                continue;
            }
            n_flows++;
            memset(ckey, 0, sizeof ckey);
            for (uint32_t j = 0; j < cs->ckey_words; j++) {
                ckey[j] = kw[cs->word[j]] & cs->mask[j];
            }
            if (bpf_map_lookup_elem(cslot->cmap_fd, ckey, &value)) {
                if (!cslot->cmap_full) {
                    ds_put_format(&why, "\n    flow %s is not in the "
                                  "compact map of slot %"PRIu32, f->name,
                                  cs->slot);
                }
            } else if (value.slot != f->slot
                       || value.action_bits != f->action_bits
                       || value.flags != f->flags) {
                ds_put_format(&why, "\n    flow %s: compact map of slot "
                              "%"PRIu32" has slot %"PRIu32", action bits "
                              "%#"PRIx32", flags %#"PRIx16"; the flow has "
                              "%"PRIu32", %#"PRIx32", %#"PRIx16, f->name,
                              cs->slot, value.slot, value.action_bits,
                              value.flags, f->slot, f->action_bits,
                              f->flags);
            }
        }

        /* And nothing else: no deleted flow stays behind. */
        uint32_t key[XDP_DP_CKEY_MAX_WORDS], next[XDP_DP_CKEY_MAX_WORDS];
        uint32_t n_entries = 0;
        void *prev = NULL;
        while (!bpf_map_get_next_key(cslot->cmap_fd, prev, next)) {
            n_entries++;
            memcpy(key, next, sizeof key);
            prev = key;
        }
        if (n_entries > n_flows
            || (n_entries < n_flows && !cslot->cmap_full)) {
            ds_put_format(&why, "\n    compact map of slot %"PRIu32" holds "
                          "%"PRIu32" entries for %"PRIu32" flows", cs->slot,
                          n_entries, n_flows);
        }
    }
    ovs_mutex_unlock(&dp->flow_mutex);
    xc_report(ctx, phase, "compact-maps", &why);
    ds_destroy(&why);
}

/* Checks that the counters dpif_flow_get() reports are what the runs
 * counted. */
static void
xc_check_flow_stats(struct xc_ctx *ctx, const char *phase)
{
    struct ds why = DS_EMPTY_INITIALIZER;

    for (size_t i = 0; i < ctx->n_flows; i++) {
        struct xc_flow *f = ctx->flows[i];
        uint64_t stub[DPIF_FLOW_BUFSIZE / 8];
        struct ofpbuf buf = OFPBUF_STUB_INITIALIZER(stub);
        struct dpif_flow flow;
        int error;

        error = dpif_flow_get(ctx->dpif, f->key.data, f->key.size, &f->ufid,
                              PMD_ID_NULL, &buf, &flow);
        if (error) {
            ds_put_format(&why, "\n    cannot get flow %s (%s)", f->name,
                          ovs_strerror(error));
        } else if (flow.stats.n_packets != f->n_packets
                   || flow.stats.n_bytes != f->n_bytes) {
            ds_put_format(&why, "\n    flow %s: dpif says %"PRIu64" packets "
                          "%"PRIu64" bytes, the runs counted %"PRIu64
                          " and %"PRIu64, f->name, flow.stats.n_packets,
                          flow.stats.n_bytes, f->n_packets, f->n_bytes);
        }
        ofpbuf_uninit(&buf);
    }
    xc_report(ctx, phase, "flow-stats", &why);
    ds_destroy(&why);
}

/* --sabotage: removes the flow that the first frame hits from the compact
 * map of its compiled subtable behind the datapath's back, as a compiler
 * that forgot to write it there would. */
static void
xc_sabotage_cmap(struct xc_ctx *ctx, const struct xc_state *st)
{
    struct ds ignored = DS_EMPTY_INITIALIZER;
    int ref = xc_reference(ctx, &ctx->frames[0], &ignored);
    struct dp_xdp *dp = ctx->dp;

    ds_destroy(&ignored);
    if (!st->compiled || ref < 0 || ctx->flows[ref]->mask_slot < 0) {
        return;
    }

    const struct xc_flow *f = ctx->flows[ref];
    int pos = st->csub_pos[f->mask_slot];
    if (pos < 0 || !st->cfg.csubs[pos].ckey_words) {
        return;
    }
    const struct xdp_dp_csub *cs = &st->cfg.csubs[pos];
    const uint32_t *kw = (const uint32_t *) &f->xkey;
    uint32_t ckey[XDP_DP_CKEY_MAX_WORDS];

    memset(ckey, 0, sizeof ckey);
    for (uint32_t j = 0; j < cs->ckey_words; j++) {
        ckey[j] = kw[cs->word[j]] & cs->mask[j];
    }
    ovs_mutex_lock(&dp->flow_mutex);
    const struct dp_xdp_cslot *cslot = dp_xdp_compile_slot(dp, f->mask_slot);
    if (cslot->cmap_fd >= 0) {
        bpf_map_delete_elem(cslot->cmap_fd, ckey);
    }
    ovs_mutex_unlock(&dp->flow_mutex);
}

/* A frame that the compiled program 'prog_fd' found in compiled subtable
 * position 2 or later ('c', after an empty mask cache), in a program with
 * XDP_DP_MASK_CACHE_MIN compiled subtables or more, runs again: the mask
 * cache must take it to the same flow with one lookup. */
static void
xc_check_mask_cache(struct xc_ctx *ctx, const struct xc_state *st,
                    int prog_fd, const struct xc_frame *frame,
                    const struct xc_run *c, struct xc_coverage *cov,
                    struct ds *why)
{
    const struct xc_flow *f = c->hit >= 0 ? ctx->flows[c->hit] : NULL;
    struct xc_run again;
    int pos;

    if (!st->compiled || st->cfg.n_csubs < XDP_DP_MASK_CACHE_MIN || !f
        || f->mask_slot < 0 || frame->spec->xdp_upcalls || c->n_upcalls
        || c->d.n_fallback || !st->direct[f->mask_slot]) {
        return;
    }
    pos = st->csub_pos[f->mask_slot];
    if (pos < 1 || c->d.n_mask_hit != (uint64_t) pos + 1) {
        return;
    }
    xc_run_init(&again, ctx->n_flows);
    xc_run(ctx, prog_fd, frame->data, frame->len, 1, &again);
    for (size_t k = 0; k < ctx->n_flows; k++) {
        ctx->flows[k]->n_packets += again.d_packets[k];
        ctx->flows[k]->n_bytes += again.d_bytes[k];
    }
    if (again.hit != c->hit || again.d.n_mask_hit != 1
        || again.d.n_fallback) {
        ds_put_format(why, "\n    compiled, again: flow %s of compiled "
                      "subtable %d found %s with n_mask_hit +%"PRIu64
                      " and n_fallback +%"PRIu64", expected the same flow "
                      "with +1 and +0 through the mask cache", f->name,
                      pos + 1, again.hit == c->hit ? "again" : "not",
                      again.d.n_mask_hit, again.d.n_fallback);
    } else {
        cov->cache_hits++;
    }
    xc_run_destroy(&again);
}

/* Runs every frame through both programs with every port layout and
 * compares, then checks the compact maps, the flow counters and that the
 * phase exercised what 'want' (XC_WANT_*) says. */
static void
xc_phase(struct xc_ctx *ctx, const char *phase, int want)
{
    struct ds why = DS_EMPTY_INITIALIZER;
    struct xc_coverage cov;
    struct xc_state st;

    memset(&cov, 0, sizeof cov);
    xc_refresh_flows(ctx, &why);
    if (why.length) {
        xc_report(ctx, phase, "table", &why);
        ds_clear(&why);
    }
    xc_read_state(ctx, &st);
    if (ctx->sabotage) {
        xc_sabotage_cmap(ctx, &st);
    }
    if (ctx->verbose) {
        struct ds s = DS_EMPTY_INITIALIZER;

        dp_xdp_compile_format(ctx->dp, &s);
        printf("-- %s: %"PRIuSIZE" flows\n%s", phase, ctx->n_flows,
               ds_cstr(&s));
        ds_destroy(&s);
    }

    int prog_fd = ctx->dp->xdp_prog_fd;
    int generic_fd = bpf_program__fd(ctx->generic->progs.xdp_dp_main);
    for (size_t l = 0; l < ARRAY_SIZE(xc_layouts); l++) {
        xc_setup_layout(ctx, &xc_layouts[l]);
        for (size_t i = 0; i < ctx->n_frames; i++) {
            const struct xc_frame *frame = &ctx->frames[i];
            uint8_t sabotaged[XC_MAX_FRAME];
            const uint8_t *g_in = frame->data;
            int g_repeat = 1;
            struct xc_run c, g;
            char what[128];

            if (ctx->sabotage && i % 5 == 1) {
                memcpy(sabotaged, frame->data, frame->len);
                sabotaged[frame->len - 1] ^= 0x5a;
                g_in = sabotaged;
            } else if (ctx->sabotage && i % 5 == 3) {
                g_repeat = 2;
            }

            xc_run_init(&c, ctx->n_flows);
            xc_run_init(&g, ctx->n_flows);
            xc_clear_mask_cache(ctx);
            xc_run(ctx, prog_fd, frame->data, frame->len, 1, &c);
            xc_run(ctx, generic_fd, g_in, frame->len, g_repeat, &g);
            for (size_t k = 0; k < ctx->n_flows; k++) {
                ctx->flows[k]->n_packets += c.d_packets[k] + g.d_packets[k];
                ctx->flows[k]->n_bytes += c.d_bytes[k] + g.d_bytes[k];
            }
            xc_compare(ctx, &st, frame, &c, &g, &cov, &why);
            xc_check_mask_cache(ctx, &st, prog_fd, frame, &c, &cov, &why);

            snprintf(what, sizeof what, "%s@%s", frame->spec->name,
                     xc_layouts[l].name);
            xc_report(ctx, phase, what, &why);
            if (ctx->verbose) {
                printf("    compiled %s, %"PRIu32" bytes, hit %s; generic "
                       "%s\n", xc_verdict_name(c.verdict), c.size,
                       c.hit >= 0 ? ctx->flows[c.hit]->name : "none",
                       xc_verdict_name(g.verdict));
            }
            ds_clear(&why);
            xc_run_destroy(&c);
            xc_run_destroy(&g);
        }
    }
    if (ctx->n_ring_lost) {
        ds_put_format(&why, "\n    the upcall rings lost %"PRIu64" samples",
                      ctx->n_ring_lost);
        xc_report(ctx, phase, "rings", &why);
        ds_clear(&why);
        ctx->n_ring_lost = 0;
    }

    xc_check_cmaps(ctx, phase, &st);
    xc_check_flow_stats(ctx, phase);
    if (want) {
        if (want & XC_WANT_CSUB && !cov.csub_hits) {
            ds_put_cstr(&why, "\n    no hit found by a compiled lookup");
        }
        if (want & XC_WANT_CACHE && !cov.cache_hits) {
            ds_put_cstr(&why, "\n    no hit found again through the mask "
                        "cache");
        }
        if (want & XC_WANT_FALLBACK && !cov.fallback_hits) {
            ds_put_cstr(&why, "\n    no hit found by the fallback");
        }
        if (want & XC_WANT_SLOW && !cov.slow_paths) {
            ds_put_cstr(&why, "\n    no packet handed to ovs-vswitchd for "
                        "want of action code");
        }
        xc_report(ctx, phase, "coverage", &why);
    }
    ds_destroy(&why);
}

/* What a compile must have produced. */
struct xc_cfg_expect {
    int parse_l4;               /* 0 or 1, or -1 for whatever the table
                                 * needs (always checked against it). */
    bool full_key;              /* A subtable looked up by the full key? */
    bool compact_max;           /* A compact key of the most words? */
    uint32_t absent_bits;       /* Action bits the program must lack. */
};

/* Compiles the table and checks the configuration against it. */
static void
xc_compile(struct xc_ctx *ctx, const char *phase,
           const struct xc_cfg_expect *exp)
{
    struct ds why = DS_EMPTY_INITIALIZER;
    struct ds reply = DS_EMPTY_INITIALIZER;
    struct dp_xdp *dp = ctx->dp;
    struct xdp_dp_cfg cfg;
    int error;

    error = dp_xdp_compile_now(dp, &reply);
    if (error) {
        ds_put_format(&why, "\n    compile failed (%s): %s",
                      ovs_strerror(error), ds_cstr(&reply));
    }
    ds_destroy(&reply);

    xc_refresh_flows(ctx, &why);
    dp_xdp_compile_get_cfg(dp, &cfg);
    ovs_mutex_lock(&dp->flow_mutex);
    bool live_compiled = dp->live_skel->rodata->xdp_dp_cfg.enabled;
    uint32_t live_action_bits = dp->live_action_bits;
    ovs_mutex_unlock(&dp->flow_mutex);
    if (!cfg.enabled || !live_compiled) {
        ds_put_format(&why, "\n    the running program is not compiled "
                      "(configuration %s, datapath says %s)",
                      cfg.enabled ? "enabled" : "generic",
                      live_compiled ? "compiled" : "generic");
    } else if (live_action_bits != cfg.action_bits) {
        ds_put_format(&why, "\n    the running program has code for "
                      "actions %#"PRIx32", its configuration says %#"PRIx32,
                      live_action_bits, cfg.action_bits);
    }
    /* OVS_XDP_COMPILE_OUT_OF_LINE=1 asks for every compiled program with
     * its actions out of line (xdp_dp_execute__()). */
    const char *ool = getenv("OVS_XDP_COMPILE_OUT_OF_LINE");
    uint32_t want_call = ool && !strcmp(ool, "1");
    if (cfg.enabled && cfg.execute_call != want_call) {
        ds_put_format(&why, "\n    actions %s, but %s were asked for",
                      cfg.execute_call ? "out of line" : "inline",
                      want_call ? "out of line" : "inline");
    }

    /* One compiled subtable per mask in use, each with its mask. */
    bool seen[XDP_DP_MAX_MASKS] = { false };
    uint32_t action_bits = 0;
    bool needs_l4 = false, full_key = false, compact_max = false;
    size_t n_masks = 0;

    for (size_t i = 0; i < ctx->n_flows; i++) {
        const struct xc_flow *f = ctx->flows[i];

        if (f->mask_slot >= 0 && !seen[f->mask_slot]) {
            seen[f->mask_slot] = true;
            n_masks++;
        }
        if (f->mask_slot >= 0) {
            action_bits |= f->action_bits;
        }
    }
    ovs_mutex_lock(&dp->flow_mutex);
    if (dp->n_masks != n_masks) {
        ds_put_format(&why, "\n    the datapath has %"PRIu32" masks, the "
                      "table %"PRIuSIZE, dp->n_masks, n_masks);
    }
    if (cfg.n_csubs != n_masks) {
        ds_put_format(&why, "\n    %"PRIu32" compiled subtables for %"PRIuSIZE
                      " masks in use", cfg.n_csubs, n_masks);
    }
    for (uint32_t i = 0; i < cfg.n_csubs && i < XDP_DP_MAX_CSUBS; i++) {
        const struct xdp_dp_csub *cs = &cfg.csubs[i];
        const struct dp_xdp_mask *m;

        if (cs->slot >= XDP_DP_MAX_MASKS || !seen[cs->slot]) {
            ds_put_format(&why, "\n    compiled subtable %"PRIu32" is slot "
                          "%"PRIu32", which no flow uses (or twice)", i + 1,
                          cs->slot);
            continue;
        }
        seen[cs->slot] = false;
        m = &dp->masks[cs->slot];
        if (!xc_csub_is_mask(cs, &m->mask)) {
            ds_put_format(&why, "\n    compiled subtable %"PRIu32" (slot "
                          "%"PRIu32") does not have its mask's words",
                          i + 1, cs->slot);
        }
        uint32_t want_ckey = xdp_compile_ckey_words(cs->n_words);
        if (cs->ckey_words != want_ckey) {
            ds_put_format(&why, "\n    compiled subtable %"PRIu32" has "
                          "%"PRIu32" key words but a compact key of %"PRIu32,
                          i + 1, cs->n_words, cs->ckey_words);
        }
        full_key |= !cs->ckey_words;
        compact_max |= cs->ckey_words == XDP_DP_CKEY_MAX_WORDS;

        const uint8_t *mb = (const uint8_t *) &m->mask;
        for (size_t b = offsetof(struct xdp_flow_key, nd_target);
             b < sizeof m->mask; b++) {
            needs_l4 |= mb[b] != 0;
        }
    }
    ovs_mutex_unlock(&dp->flow_mutex);
    for (int slot = 0; slot < XDP_DP_MAX_MASKS; slot++) {
        if (seen[slot]) {
            ds_put_format(&why, "\n    subtable slot %d is in use but not "
                          "compiled", slot);
        }
    }

    if (cfg.parse_l4 != needs_l4) {
        ds_put_format(&why, "\n    parse_l4 %"PRIu32", but %s mask needs "
                      "the transport layer", cfg.parse_l4,
                      needs_l4 ? "a" : "no");
    }
    if (exp->parse_l4 >= 0 && needs_l4 != exp->parse_l4) {
        ds_put_format(&why, "\n    table error: the table should%s need "
                      "the transport layer", exp->parse_l4 ? "" : " not");
    }
    if (cfg.action_bits != action_bits) {
        ds_put_format(&why, "\n    code for actions %#"PRIx32", the flows "
                      "use %#"PRIx32, cfg.action_bits, action_bits);
    }
    if (cfg.action_bits & exp->absent_bits) {
        ds_put_format(&why, "\n    table error: the program has code for "
                      "%#"PRIx32", which later flows must lack",
                      cfg.action_bits & exp->absent_bits);
    }
    if (exp->full_key && !full_key) {
        ds_put_cstr(&why, "\n    table error: no subtable looked up by the "
                    "full key");
    }
    if (exp->compact_max && !compact_max) {
        ds_put_format(&why, "\n    table error: no compact key of %d words",
                      XDP_DP_CKEY_MAX_WORDS);
    }
    xc_report(ctx, phase, "compile", &why);
    ds_destroy(&why);
}

/* Handcrafted phases. */

static void
xc_quarantine(void)
{
    xnanosleep(XC_QUARANTINE_MS * 1000 * 1000);
}

#define XC_BIT(TYPE) (1u << (TYPE))

/* The table part: see the comment at the top of the file. */
static void
do_table(struct xc_ctx *ctx)
{
    /* 1. No transport-layer mask; actions: output, set eth, push_vlan,
     *    set ipv4.  Masks of 5 to 17 32-bit key words: compact keys up to
     *    the largest (XDP_DP_CKEY_MAX_WORDS) and full keys. */
    static const struct xc_flow_spec table1[] = {
        { "p1-udp4", "udp4", "ip4-dst32-proto", "2", false, 0 },
        { "p1-tcp4", "tcp4-syn", "ip4-dst32-proto",
          "set(eth(dst=02:00:00:00:00:bb)),3", false, 0 },
        { "p1-udp4b", "udp4-b", "ip4-dst32-proto",
          "push_vlan(vid=7,pcp=1),4", false, 0 },
        { "p1-frag-first", "frag4-first", "ip4-dst32-proto",
          "set(ipv4(ttl=9)),2", false, 0 },
        { "p1-frag-later", "frag4-later", "ip4-dst32-proto", "drop",
          false, 0 },
        { "p1-decoy-dst", "udp4", "ip4-dst32-proto", "5", true, 0 },
        { "p1-icmp-ttl", "icmp4", "ip4-ttl", "set(ipv4(src=10.9.9.9)),2",
          false, 0 },
        { "p1-tos", "udp4-tos", "ip4-tos", "5", false, 0 },
        { "p1-src16", "tcp4-b", "ip4-src16-dst24",
          "set(ipv4(dst=10.7.7.7)),4", false, 0 },
        { "p1-l2", "eth-other", "l2", "3", false, 0 },
        { "p1-oui", "llc-802.2", "l2-oui",
          "set(eth(src=02:00:00:00:00:ab)),3", false, 0 },
        { "p1-vlan100", "vlan-udp4", "vlan", "2", false, 0 },
        { "p1-vlan200", "vlan-tcp4", "vlan",
          "set(eth(src=02:00:00:00:00:cc)),4", false, 0 },
        { "p1-qinq", "qinq-udp4", "vlan", "drop", false, 0 },
        { "p1-arp-req", "arp-req", "arp", "2", false, 0 },
        { "p1-arp-reply", "arp-reply", "arp", "5", false, 0 },
        { "p1-ip6-full", "udp6", "ip6-full", "3", false, 0 },
        { "p1-ip6-full-b", "tcp6", "ip6-full-label",
          "set(eth(dst=02:00:00:00:00:dd)),2", false, 0 },
        { "p1-ip6-pair", "udp6-b", "ip6-pair", "4", false, 0 },
        { "p1-ip6-src64", "udp6-c", "ip6-src64", "2", false, 0 },
        { "p1-ip6-dst", "nd-ns", "ip6-dst", "4", false, 0 },
        { "p1-port2", "udp4", "in_port", "drop", true, 0 },
    };
    /* 2. Without a recompile: new flows of compiled masks (more than a
     *    compact map holds, among them), new masks (transport-layer ones),
     *    new action types (pop_vlan, set L4 ports, several outputs), and
     *    actions changed in place. */
    static const struct xc_flow_spec table2[] = {
        { "p2-bulk", "udp4", "ip4-dst32-proto", "2", false, 1100 },
        { "p2-udp4d", "udp4-d", "ip4-dst32-proto", "set(udp(src=7777)),3",
          false, 0 },
        { "p2-trunc", "ipv4-trunc10", "ip4-dst32-proto", "2", false, 0 },
        { "p2-vlan-arp", "vlan-arp", "vlan", "3", false, 0 },
        { "p2-vlan300", "vlan-udp6", "vlan", "pop_vlan,2", false, 0 },
        { "p2-ip6-full-c", "icmp6-echo", "ip6-full", "2,4", false, 0 },
        { "p2-icmp-unreach", "icmp4-unreach", "icmp4", "pop_vlan,2",
          false, 0 },
        { "p2-tcpflags", "tcp4-c", "ip4-tcpflags", "set(tcp(dst=2022)),2",
          false, 0 },
        { "p2-tpdst", "udp4-e", "ip4-tpdst", "4", false, 0 },
        { "p2-arp-sha", "arp-req-b", "arp-sha", "2,3", false, 0 },
        { "p2-nd-na", "nd-na", "nd", "3", false, 0 },
        { "p2-ip6-tp", "tcp6-b", "ip6-src64-tp", "4", false, 0 },
    };
    static const char *const del3[] = {
        "p1-tcp4", "p1-vlan200", "p1-arp-req", "p1-arp-reply",
        "p1-ip6-full", "p1-ip6-full-b", "p2-ip6-full-c", "p2-icmp-unreach",
        "p2-bulk-*", NULL,
    };
    /* 3. After deletes: a mask that had gone comes back (while the
     *    program still compiles it), new masks, a deleted flow's key back
     *    with other actions. */
    static const struct xc_flow_spec table3[] = {
        { "p3-arp-req", "arp-req", "arp", "3", false, 0 },
        { "p3-tcp4", "tcp4-ack", "ip4-dst32-proto", "6", false, 0 },
        { "p3-ip6-label", "tcp6-c", "ip6-label",
          "set(eth(dst=02:00:00:00:00:01)),5", false, 0 },
        { "p3-ip6-full-tp", "udp6", "ip6-full-tp", "2", false, 0 },
    };
    /* 6. A wide mask: the input port and the Ethertype only (with what
     *    every megaflow matches: no VLAN, not a fragment). */
    static const struct xc_flow_spec table6[] = {
        { "p6-any-ip4", "udp4", "in_port", "set(eth(src=02:00:00:00:00:99)),4",
          false, 0 },
    };
    /* 8. Into the program compiled for the empty table: flows whose every
     *    action, output included, it has no code for, and a drop flow. */
    static const struct xc_flow_spec table8[] = {
        { "p8-udp4", "udp4", "ip4-dst32-proto", "2", false, 0 },
        { "p8-arp", "arp-req", "arp", "drop", false, 0 },
        { "p8-nd", "nd-ns", "ip6-dst", "set(eth(src=02:00:00:00:00:99)),3",
          false, 0 },
    };
    const uint32_t new_bits = (XC_BIT(XDP_DP_ACTION_POP_VLAN)
                               | XC_BIT(XDP_DP_ACTION_SET_L4_PORTS)
                               | XDP_DP_ACTION_F_OUTPUTS);
    struct ds why = DS_EMPTY_INITIALIZER;

    xc_put_specs(ctx, "1.compiled", table1, ARRAY_SIZE(table1));

    /* 0. Before any compile, both programs are generic: everything must be
     *    alike, n_mask_hit and n_fallback too. */
    xc_phase(ctx, "0.generic", 0);

    xc_compile(ctx, "1.compiled", &(struct xc_cfg_expect) {
                   .parse_l4 = 0, .full_key = true, .compact_max = true,
                   .absent_bits = new_bits });
    xc_phase(ctx, "1.compiled", XC_WANT_CSUB | XC_WANT_CACHE);

    xc_put_specs(ctx, "2.added", table2, ARRAY_SIZE(table2));
    xc_modify(ctx, "2.added", "p1-arp-reply", "2,5");
    xc_modify(ctx, "2.added", "p1-udp4b", "push_vlan(vid=8,pcp=0),2");
    xc_modify(ctx, "2.added", "p1-vlan100", "userspace(pid=99)");
    xc_phase(ctx, "2.added", XC_WANT_CSUB | XC_WANT_FALLBACK | XC_WANT_SLOW);

    xc_delete(ctx, "3.deleted", del3);
    xc_phase(ctx, "3.deleted", XC_WANT_CSUB | XC_WANT_FALLBACK
                               | XC_WANT_SLOW);

    xc_quarantine();
    xc_put_specs(ctx, "3.readded", table3, ARRAY_SIZE(table3));
    xc_phase(ctx, "3.readded", XC_WANT_CSUB | XC_WANT_FALLBACK);

    xc_compile(ctx, "4.recompiled", &(struct xc_cfg_expect) {
                   .parse_l4 = 1, .full_key = true });
    xc_phase(ctx, "4.recompiled", XC_WANT_CSUB);

    xc_delete_l4(ctx, "5.l4-gone");
    xc_quarantine();
    xc_compile(ctx, "5.l4-gone", &(struct xc_cfg_expect) { .parse_l4 = 0 });
    xc_phase(ctx, "5.l4-gone", XC_WANT_CSUB);

    xc_del_all(ctx, &why);
    xc_quarantine();
    xc_put_specs(ctx, "6.wide", table6, ARRAY_SIZE(table6));
    xc_compile(ctx, "6.wide", &(struct xc_cfg_expect) { .parse_l4 = 0 });
    xc_phase(ctx, "6.wide", XC_WANT_CSUB);

    xc_del_all(ctx, &why);
    xc_quarantine();
    xc_compile(ctx, "7.empty", &(struct xc_cfg_expect) { .parse_l4 = 0 });
    xc_phase(ctx, "7.empty", 0);

    xc_put_specs(ctx, "8.after-empty", table8, ARRAY_SIZE(table8));
    xc_phase(ctx, "8.after-empty", XC_WANT_FALLBACK | XC_WANT_SLOW);
    xc_del_all(ctx, &why);
    xc_quarantine();

    if (why.length) {
        xc_report(ctx, "8.after-empty", "table", &why);
    }
    ds_destroy(&why);
}

/* Random tables. */

static void
do_random(struct xc_ctx *ctx, uint32_t seed, int rounds)
{
    struct ds why = DS_EMPTY_INITIALIZER;

    printf("seed %"PRIu32"\n", seed);
    random_set_seed(seed);
    for (int r = 1; r <= rounds; r++) {
        char phase[32];

        /* Odd rounds start without transport-layer masks.  The new table
         * runs first in the program compiled for the last one, whose flows
         * are gone (after the first round). */
        snprintf(phase, sizeof phase, "r%d.new", r);
        xc_random_add(ctx, "a", r, 200, !(r % 2), xc_base_actions,
                      ARRAY_SIZE(xc_base_actions), false);
        xc_phase(ctx, phase, 0);

        snprintf(phase, sizeof phase, "r%d.compiled", r);
        xc_compile(ctx, phase, &(struct xc_cfg_expect) {
                       .parse_l4 = r % 2 ? 0 : -1 });
        xc_phase(ctx, phase, XC_WANT_CSUB);

        snprintf(phase, sizeof phase, "r%d.added", r);
        const char **all = xmalloc((ARRAY_SIZE(xc_base_actions)
                                    + ARRAY_SIZE(xc_more_actions))
                                   * sizeof *all);
        size_t n_all = 0;
        for (size_t i = 0; i < ARRAY_SIZE(xc_base_actions); i++) {
            all[n_all++] = xc_base_actions[i];
        }
        for (size_t i = 0; i < ARRAY_SIZE(xc_more_actions); i++) {
            all[n_all++] = xc_more_actions[i];
        }
        xc_random_add(ctx, "b", r, 100, true, all, n_all, false);
        xc_random_add(ctx, "c", r, 50, true, all, n_all, true);
        free(all);
        xc_phase(ctx, phase, 0);

        snprintf(phase, sizeof phase, "r%d.deleted", r);
        size_t *idx = xmalloc(MAX(ctx->n_flows, 1) * sizeof *idx);
        size_t n = 0;
        for (size_t i = 0; i < ctx->n_flows; i++) {
            if (random_range(2)) {
                idx[n++] = i;
            }
        }
        xc_del_flows(ctx, idx, n, &why);
        free(idx);
        xc_phase(ctx, phase, 0);

        snprintf(phase, sizeof phase, "r%d.recompiled", r);
        xc_compile(ctx, phase, &(struct xc_cfg_expect) { .parse_l4 = -1 });
        xc_phase(ctx, phase, 0);

        xc_del_all(ctx, &why);
        xc_quarantine();
    }
    if (why.length) {
        xc_report(ctx, "random", "table", &why);
    }
    ds_destroy(&why);
}

/* Setting up. */

static void
xc_open(struct xc_ctx *ctx)
{
    char name[32];
    int error;

    dp_register_provider(&dpif_xdp_class);
    snprintf(name, sizeof name, "xdpcmp%ld", (long) getpid());
    error = dpif_create_and_open(name, "xdp", &ctx->dpif);
    if (error) {
        ovs_fatal(error, "cannot create datapath %s", name);
    }
    ctx->dp = dp_xdp_from_dpif(ctx->dpif);
    dp_xdp_compile_set_auto(ctx->dp, false);
    /* Thousands of upcalls from one port in a few milliseconds: the
     * per-port upcall budget would drop some, at times that differ between
     * the two programs' runs.  It is not what this test compares. */
    ctx->dp->skel->data->xdp_dp_upcall_burst = 0;

    uint32_t port_no = XC_IN_PORT;
    xc_map_update(ctx->dp->skel->maps.xdp_dp_in_ports, &ctx->lo_ifindex,
                  &port_no);

    error = dp_xdp_load_program(ctx->dp, NULL, &ctx->generic);
    if (error) {
        ovs_fatal(error, "cannot load a generic program");
    }

    /* Our own reader of the upcall rings: perf_buffer__new() puts its
     * rings in the map's slots, in place of the datapath's, so that the
     * samples come to us (no handler thread reads the datapath's). */
    ctx->pb_map_fd = dup(bpf_map__fd(ctx->dp->skel->maps.xdp_dp_upcalls));
    if (ctx->pb_map_fd < 0) {
        ovs_fatal(errno, "dup");
    }
    ctx->pb = perf_buffer__new(ctx->pb_map_fd, 16, xc_on_sample, xc_on_lost,
                               ctx, NULL);
    if (!ctx->pb) {
        ovs_fatal(errno, "cannot read the upcall rings");
    }
}

static void
xc_close(struct xc_ctx *ctx)
{
    struct ds why = DS_EMPTY_INITIALIZER;

    xc_del_all(ctx, &why);
    ds_destroy(&why);
    perf_buffer__free(ctx->pb);
    close(ctx->pb_map_fd);
    xdp_dp__destroy(ctx->generic);
    dpif_delete(ctx->dpif);
    dpif_close(ctx->dpif);
    free(ctx->flows);
    free(ctx->frames);
}

int
main(int argc, char *argv[])
{
    enum { OPT_SEED = UCHAR_MAX + 1, OPT_ROUNDS, OPT_NO_TABLE, OPT_SABOTAGE };
    static const struct option long_options[] = {
        { "seed", required_argument, NULL, OPT_SEED },
        { "rounds", required_argument, NULL, OPT_ROUNDS },
        { "no-table", no_argument, NULL, OPT_NO_TABLE },
        { "sabotage", no_argument, NULL, OPT_SABOTAGE },
        { "verbose", no_argument, NULL, 'v' },
        { NULL, 0, NULL, 0 },
    };
    struct xc_ctx ctx;
    uint32_t seed = 1;
    int rounds = 4;
    bool table = true;

    set_program_name(argv[0]);
    vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_WARN);
    memset(&ctx, 0, sizeof ctx);
    for (;;) {
        int c = getopt_long(argc, argv, "v", long_options, NULL);

        if (c == -1) {
            break;
        }
        switch (c) {
        case OPT_SEED:
            seed = strtoul(optarg, NULL, 10);
            break;
        case OPT_ROUNDS:
            rounds = atoi(optarg);
            break;
        case OPT_NO_TABLE:
            table = false;
            break;
        case OPT_SABOTAGE:
            ctx.sabotage = true;
            break;
        case 'v':
            ctx.verbose = true;
            break;
        default:
            ovs_fatal(0, "usage: %s [-v] [--seed=N] [--rounds=N] "
                      "[--no-table] [--sabotage]", program_name);
        }
    }
    if (optind != argc) {
        ovs_fatal(0, "no arguments expected");
    }

    ctx.lo_ifindex = if_nametoindex("lo");
    xc_make_frames(&ctx);

    xc_open(&ctx);
    if (table) {
        do_table(&ctx);
    }
    if (rounds > 0) {
        do_random(&ctx, seed, rounds);
    }
    xc_close(&ctx);

    printf("%d checks, %d failed\n", ctx.n_checks, ctx.n_failed);
    return ctx.n_failed ? 1 : 0;
}
