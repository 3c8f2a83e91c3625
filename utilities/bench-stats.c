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

/* ovs-xdp-bench stats: flow installs, statistics dumps and flow deletes,
 * batched against per element, and statistics through mmap().
 *
 * The mode creates the two maps the datapath keeps its flows in, as the
 * datapath creates them: a subtable (BPF_MAP_TYPE_HASH, BPF_F_NO_PREALLOC,
 * 'struct xdp_flow_key' -> 'struct xdp_flow', XDP_DP_MAX_FLOWS entries) and
 * the BPF_F_MMAPABLE statistics array, mapped with maps/flow-stats.c.  No
 * program is loaded.  It builds N distinct keys (nw_src and tp_src vary)
 * whose flows own statistics slots 0 to N - 1, and writes nonzero counters
 * into those slots through the mapping.  Then, on these same maps, it times
 * each operation with every method:
 *
 *   install: BPF_MAP_UPDATE_BATCH on the subtable, 'batch' flows a call,
 *            against one bpf_map_update_elem(BPF_NOEXIST) per flow, as
 *            ofproto-xdp/dpif-xdp-flow.c does each.
 *
 *   dump:    the counters of every flow, summed, three ways:
 *            - mmap: for each flow of the userspace copy of the table (as
 *              ovs-vswitchd keeps one), its slot read from the mapping with
 *              xdp_flow_stats_read();
 *            - lookup-batch: slots 0 to N - 1 of the statistics array
 *              copied out by BPF_MAP_LOOKUP_BATCH, 'batch' slots a call;
 *            - per-element: what a dump must do without a userspace copy:
 *              walk the subtable with bpf_map_get_next_key(), look each key
 *              up in it for the flow's slot, then look that slot up in the
 *              statistics array.
 *            All three must find N flows and the same n_packets and n_bytes
 *            totals (those written at setup); the mode fails otherwise.
 *
 *   delete:  BPF_MAP_DELETE_BATCH, 'batch' keys a call, against one
 *            bpf_map_delete_elem() per flow.
 *
 * Each libbpf call made here is exactly one bpf() system call, so counting
 * our own calls counts the system calls of each method: the counts are
 * exact, the same every round, and checked to be.  Times are wall-clock
 * CLOCK_MONOTONIC around the whole operation.  After one untimed warm-up
 * round (so that the hash map's element allocator is not cold for the
 * first method only), each round runs install, dump, delete with one
 * method and then with the other, swapping which goes first every round,
 * and dumps after both installs with the three dump methods in rotating
 * order.  A method's time is the median of its samples (one per round, two
 * for dumps); its ratio is the per-element method's median over its own. */

#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "datapath/xdp-dp.h"
#include "maps/flow-stats.h"
#include "utilities/bench-common.h"
#include "utilities/ovs-xdp-bench.h"
#include "util.h"

#define BENCH_STATS_DEFAULT_FLOWS 200000
#define BENCH_STATS_DEFAULT_BATCH 4096
#define BENCH_STATS_DEFAULT_ROUNDS 3

/* The maps and the flows, shared by every method. */
struct bench_ctx {
    uint32_t n_flows;           /* Flows installed, dumped and deleted. */
    uint32_t batch;             /* Elements per batched call. */
    int table_fd;               /* The subtable hash map. */
    struct xdp_flow_stats_map stats;    /* The statistics array, mapped. */
    struct xdp_flow_key *keys;  /* 'n_flows' distinct keys. */
    struct xdp_flow *flows;     /* Their values; flows[i].slot == i. */
    uint32_t *batch_keys;       /* 'batch' array keys, for lookup-batch. */
    struct xdp_flow_stats *batch_stats; /* 'batch' values, likewise. */
    uint64_t n_packets;         /* Sum of n_packets written at setup. */
    uint64_t n_bytes;           /* Sum of n_bytes written at setup. */
    uint64_t other_calls;       /* bpf() calls outside timed operations. */
};

/* What a dump found. */
struct dump_totals {
    uint64_t n_flows;           /* Flows visited. */
    uint64_t n_packets;         /* Sum of their n_packets. */
    uint64_t n_bytes;           /* Sum of their n_bytes. */
};

/* A method: runs one operation on all 'ctx->n_flows' flows and returns the
 * number of bpf() calls it made.  Dumps store what they found in
 * '*totals'. */
typedef uint64_t bench_method_func(struct bench_ctx *ctx,
                                   struct dump_totals *totals);

/* Rows of the results table. */
enum bench_row_id {
    ROW_INSTALL_BATCH,
    ROW_INSTALL_ELEM,
    ROW_DUMP_MMAP,
    ROW_DUMP_BATCH,
    ROW_DUMP_ELEM,
    ROW_DELETE_BATCH,
    ROW_DELETE_ELEM,
    N_ROWS
};

struct bench_row {
    const char *operation;      /* "install", "dump" or "delete". */
    const char *method;         /* "batch", "per-element", ... */
    bench_method_func *run;     /* The method. */
    enum bench_row_id baseline; /* The per-element row of 'operation'. */
    double *samples;            /* Wall time of each timed run, in ns. */
    size_t n_samples;           /* Number of 'samples'. */
    uint64_t calls;             /* bpf() calls of one run. */
    double median;              /* Median of 'samples', in ns. */
};

static void
fatal_bpf(const char *what)
{
    ovs_fatal(errno, "%s failed", what);
}

static uint64_t
now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Install. */

static uint64_t
install_batch(struct bench_ctx *ctx, struct dump_totals *totals OVS_UNUSED)
{
    uint32_t done = 0;
    uint64_t calls = 0;

    while (done < ctx->n_flows) {
        uint32_t n = MIN(ctx->batch, ctx->n_flows - done);
        uint32_t count = n;

        calls++;
        if (bpf_map_update_batch(ctx->table_fd, &ctx->keys[done],
                                 &ctx->flows[done], &count, NULL)) {
            fatal_bpf("BPF_MAP_UPDATE_BATCH");
        }
        if (count != n) {
            ovs_fatal(0, "BPF_MAP_UPDATE_BATCH installed %"PRIu32" flows "
                      "of %"PRIu32, count, n);
        }
        done += n;
    }
    return calls;
}

static uint64_t
install_elem(struct bench_ctx *ctx, struct dump_totals *totals OVS_UNUSED)
{
    uint64_t calls = 0;

    for (uint32_t i = 0; i < ctx->n_flows; i++) {
        calls++;
        if (bpf_map_update_elem(ctx->table_fd, &ctx->keys[i],
                                &ctx->flows[i], BPF_NOEXIST)) {
            fatal_bpf("bpf_map_update_elem");
        }
    }
    return calls;
}

/* Dump. */

static void
dump_add(struct dump_totals *totals, const struct xdp_flow_stats *s)
{
    totals->n_flows++;
    totals->n_packets += s->n_packets;
    totals->n_bytes += s->n_bytes;
}

static uint64_t
dump_mmap(struct bench_ctx *ctx, struct dump_totals *totals)
{
    memset(totals, 0, sizeof *totals);
    for (uint32_t i = 0; i < ctx->n_flows; i++) {
        struct xdp_flow_stats s;

        xdp_flow_stats_read(&ctx->stats, ctx->flows[i].slot, &s);
        dump_add(totals, &s);
    }
    return 0;
}

static uint64_t
dump_lookup_batch(struct bench_ctx *ctx, struct dump_totals *totals)
{
    uint32_t in_batch, out_batch;
    uint32_t done = 0;
    uint64_t calls = 0;

    memset(totals, 0, sizeof *totals);
    while (done < ctx->n_flows) {
        uint32_t n = MIN(ctx->batch, ctx->n_flows - done);
        uint32_t count = n;

        calls++;
        if (bpf_map_lookup_batch(ctx->stats.fd, done ? &in_batch : NULL,
                                 &out_batch, ctx->batch_keys,
                                 ctx->batch_stats, &count, NULL)) {
            fatal_bpf("BPF_MAP_LOOKUP_BATCH");
        }
        if (count != n) {
            ovs_fatal(0, "BPF_MAP_LOOKUP_BATCH read %"PRIu32" slots "
                      "of %"PRIu32, count, n);
        }
        for (uint32_t i = 0; i < n; i++) {
            dump_add(totals, &ctx->batch_stats[i]);
        }
        in_batch = out_batch;
        done += n;
    }
    return calls;
}

static uint64_t
dump_elem(struct bench_ctx *ctx, struct dump_totals *totals)
{
    struct xdp_flow_key keys[2];
    const struct xdp_flow_key *prev = NULL;
    uint64_t calls = 0;

    memset(totals, 0, sizeof *totals);
    for (int i = 0; ; i = !i) {
        struct xdp_flow_stats s;
        struct xdp_flow flow;

        calls++;
        if (bpf_map_get_next_key(ctx->table_fd, prev, &keys[i])) {
            if (errno == ENOENT) {
                break;
            }
            fatal_bpf("bpf_map_get_next_key");
        }
        calls++;
        if (bpf_map_lookup_elem(ctx->table_fd, &keys[i], &flow)) {
            fatal_bpf("bpf_map_lookup_elem (subtable)");
        }
        if (flow.slot >= ctx->stats.n_slots) {
            ovs_fatal(0, "flow with slot %"PRIu32" out of range", flow.slot);
        }
        calls++;
        if (bpf_map_lookup_elem(ctx->stats.fd, &flow.slot, &s)) {
            fatal_bpf("bpf_map_lookup_elem (statistics)");
        }
        dump_add(totals, &s);
        prev = &keys[i];
    }
    return calls;
}

/* Delete. */

static uint64_t
delete_batch(struct bench_ctx *ctx, struct dump_totals *totals OVS_UNUSED)
{
    uint32_t done = 0;
    uint64_t calls = 0;

    while (done < ctx->n_flows) {
        uint32_t n = MIN(ctx->batch, ctx->n_flows - done);
        uint32_t count = n;

        calls++;
        if (bpf_map_delete_batch(ctx->table_fd, &ctx->keys[done], &count,
                                 NULL)) {
            fatal_bpf("BPF_MAP_DELETE_BATCH");
        }
        if (count != n) {
            ovs_fatal(0, "BPF_MAP_DELETE_BATCH deleted %"PRIu32" flows "
                      "of %"PRIu32, count, n);
        }
        done += n;
    }
    return calls;
}

static uint64_t
delete_elem(struct bench_ctx *ctx, struct dump_totals *totals OVS_UNUSED)
{
    uint64_t calls = 0;

    for (uint32_t i = 0; i < ctx->n_flows; i++) {
        calls++;
        if (bpf_map_delete_elem(ctx->table_fd, &ctx->keys[i])) {
            fatal_bpf("bpf_map_delete_elem");
        }
    }
    return calls;
}

static struct bench_row rows[N_ROWS] = {
    [ROW_INSTALL_BATCH] = { "install", "batch", install_batch,
                            ROW_INSTALL_ELEM },
    [ROW_INSTALL_ELEM] = { "install", "per-element", install_elem,
                           ROW_INSTALL_ELEM },
    [ROW_DUMP_MMAP] = { "dump", "mmap", dump_mmap, ROW_DUMP_ELEM },
    [ROW_DUMP_BATCH] = { "dump", "lookup-batch", dump_lookup_batch,
                         ROW_DUMP_ELEM },
    [ROW_DUMP_ELEM] = { "dump", "per-element", dump_elem, ROW_DUMP_ELEM },
    [ROW_DELETE_BATCH] = { "delete", "batch", delete_batch,
                           ROW_DELETE_ELEM },
    [ROW_DELETE_ELEM] = { "delete", "per-element", delete_elem,
                          ROW_DELETE_ELEM },
};

/* Setup. */

/* Creates the maps, maps the statistics array, builds the flows and writes
 * their counters. */
static void
bench_setup(struct bench_ctx *ctx)
{
    LIBBPF_OPTS(bpf_map_create_opts, table_opts,
                .map_flags = BPF_F_NO_PREALLOC);
    LIBBPF_OPTS(bpf_map_create_opts, stats_opts,
                .map_flags = BPF_F_MMAPABLE);
    uint32_t n = ctx->n_flows;
    int stats_fd, error;

    ctx->other_calls++;
    ctx->table_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "bench_subtbl",
                                   sizeof(struct xdp_flow_key),
                                   sizeof(struct xdp_flow),
                                   XDP_DP_MAX_FLOWS, &table_opts);
    if (ctx->table_fd < 0) {
        fatal_bpf("creating the subtable map");
    }
    ctx->other_calls++;
    stats_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bench_stats",
                              sizeof(uint32_t),
                              sizeof(struct xdp_flow_stats),
                              XDP_DP_MAX_FLOWS, &stats_opts);
    if (stats_fd < 0) {
        fatal_bpf("creating the statistics array");
    }
    error = xdp_flow_stats_map_open(&ctx->stats, stats_fd, XDP_DP_MAX_FLOWS);
    if (error) {
        ovs_fatal(error, "cannot mmap the statistics array");
    }

    ctx->keys = xcalloc(n, sizeof *ctx->keys);
    ctx->flows = xcalloc(n, sizeof *ctx->flows);
    ctx->batch_keys = xcalloc(ctx->batch, sizeof *ctx->batch_keys);
    ctx->batch_stats = xcalloc(ctx->batch, sizeof *ctx->batch_stats);
    for (uint32_t i = 0; i < n; i++) {
        struct xdp_flow_key *key = &ctx->keys[i];
        struct xdp_flow *flow = &ctx->flows[i];
        struct xdp_flow_stats *s = &ctx->stats.slots[i];

        /* A UDP flow from 10.x.y.z (i's low 24 bits) and port i's low 16
         * bits: distinct for every i below 2**24. */
        key->in_port = 1;
        key->eth_type = htons(0x0800);
        key->nw_src = htonl(0x0a000000 | (i & 0xffffff));
        key->nw_dst = htonl(0x0a090909);
        key->nw_ttl = 64;
        key->nw_proto = 17;
        key->tp_src = htons(i & 0xffff);
        key->tp_dst = htons(4789);

        flow->slot = i;
        flow->n_actions = 1;
        flow->actions[0].type = XDP_DP_ACTION_OUTPUT;
        flow->actions[0].output.port = 2;

        s->n_packets = i % 1000 + 1;
        s->n_bytes = s->n_packets * (64 + i % 1437);
        s->used = 1000000000ULL + i;
        s->tcp_flags = 0;
        ctx->n_packets += s->n_packets;
        ctx->n_bytes += s->n_bytes;
    }
}

static void
bench_teardown(struct bench_ctx *ctx)
{
    xdp_flow_stats_map_close(&ctx->stats);
    close(ctx->stats.fd);
    close(ctx->table_fd);
    free(ctx->keys);
    free(ctx->flows);
    free(ctx->batch_keys);
    free(ctx->batch_stats);
}

/* Checks that the subtable is empty, as after a delete. */
static void
check_empty(struct bench_ctx *ctx, const char *after)
{
    struct xdp_flow_key key;

    ctx->other_calls++;
    if (!bpf_map_get_next_key(ctx->table_fd, NULL, &key)) {
        ovs_fatal(0, "the subtable is not empty after %s", after);
    } else if (errno != ENOENT) {
        fatal_bpf("bpf_map_get_next_key");
    }
}

/* Runs row 'id' once, timing it if 'timed' (otherwise its bpf() calls
 * count among the untimed ones), and checks its calls and results. */
static void
run_row(struct bench_ctx *ctx, enum bench_row_id id, bool timed)
{
    struct bench_row *row = &rows[id];
    struct dump_totals totals;
    uint64_t start, calls;

    start = now_ns();
    calls = row->run(ctx, &totals);
    if (timed) {
        row->samples[row->n_samples++] = now_ns() - start;
    }

    if (row->calls != UINT64_MAX && calls != row->calls) {
        ovs_fatal(0, "%s %s: %"PRIu64" bpf() calls, but %"PRIu64" before",
                  row->operation, row->method, calls, row->calls);
    }
    row->calls = calls;
    if (!timed) {
        ctx->other_calls += calls;
    }

    if (!strcmp(row->operation, "dump")
        && (totals.n_flows != ctx->n_flows
            || totals.n_packets != ctx->n_packets
            || totals.n_bytes != ctx->n_bytes)) {
        ovs_fatal(0, "dump %s found %"PRIu64" flows, %"PRIu64" packets, "
                  "%"PRIu64" bytes, but %"PRIu32" flows with %"PRIu64" "
                  "packets and %"PRIu64" bytes are installed",
                  row->method, totals.n_flows, totals.n_packets,
                  totals.n_bytes, ctx->n_flows, ctx->n_packets,
                  ctx->n_bytes);
    }
    if (!strcmp(row->operation, "delete")) {
        check_empty(ctx, row->method);
    }
}

/* Runs the three dumps, the 'k'th time, starting with a different method
 * each time. */
static void
run_dumps(struct bench_ctx *ctx, unsigned int k, bool timed)
{
    static const enum bench_row_id dumps[] = {
        ROW_DUMP_MMAP, ROW_DUMP_BATCH, ROW_DUMP_ELEM,
    };

    for (size_t i = 0; i < ARRAY_SIZE(dumps); i++) {
        run_row(ctx, dumps[(k + i) % ARRAY_SIZE(dumps)], timed);
    }
}

/* One round: install, dump, delete with one method each, then with the
 * others.  Odd rounds start with the per-element methods. */
static void
run_round(struct bench_ctx *ctx, unsigned int round, bool timed)
{
    enum bench_row_id first_install = ROW_INSTALL_BATCH;
    enum bench_row_id second_install = ROW_INSTALL_ELEM;
    enum bench_row_id first_delete = ROW_DELETE_ELEM;
    enum bench_row_id second_delete = ROW_DELETE_BATCH;

    if (round % 2) {
        first_install = ROW_INSTALL_ELEM;
        second_install = ROW_INSTALL_BATCH;
        first_delete = ROW_DELETE_BATCH;
        second_delete = ROW_DELETE_ELEM;
    }
    run_row(ctx, first_install, timed);
    run_dumps(ctx, 2 * round, timed);
    run_row(ctx, first_delete, timed);
    run_row(ctx, second_install, timed);
    run_dumps(ctx, 2 * round + 1, timed);
    run_row(ctx, second_delete, timed);
}

/* Results. */

static int
compare_doubles(const void *a_, const void *b_)
{
    const double *a = a_, *b = b_;

    return *a < *b ? -1 : *a > *b;
}

static double
median(double *samples, size_t n)
{
    qsort(samples, n, sizeof *samples, compare_doubles);
    return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

/* How many times faster row 'id' is than its per-element baseline. */
static double
row_speedup(enum bench_row_id id)
{
    const struct bench_row *row = &rows[id];

    return rows[row->baseline].median / MAX(row->median, 1.0);
}

static void
print_table(const struct bench_ctx *ctx, unsigned int n_rounds)
{
    uint64_t timed_calls = 0;

    printf("ovs-xdp-bench stats: %"PRIu32" flows, batch size %"PRIu32", "
           "median of %u round%s (dumps: %u samples), CLOCK_MONOTONIC\n",
           ctx->n_flows, ctx->batch, n_rounds, n_rounds == 1 ? "" : "s",
           2 * n_rounds);
    printf("%-9s %-13s %12s %10s %12s %12s\n", "operation", "method",
           "wall ms", "ns/flow", "bpf() calls", "vs per-elem");
    for (int i = 0; i < N_ROWS; i++) {
        const struct bench_row *row = &rows[i];

        printf("%-9s %-13s %12.3f %10.1f %12"PRIu64" %11.2fx\n",
               row->operation, row->method, row->median / 1e6,
               row->median / ctx->n_flows, row->calls, row_speedup(i));
        timed_calls += row->calls * row->n_samples;
    }
    printf("\n");

    /* One line per operation; each operation's baseline is its last row. */
    for (int i = 0; i < N_ROWS; i++) {
        const struct bench_row *row = &rows[i];
        const struct bench_row *base = &rows[row->baseline];
        bool first = !i || strcmp(rows[i - 1].operation, row->operation);
        double speedup = row_speedup(i);

        if (first) {
            printf("%s:", row->operation);
        }
        if (row != base) {
            printf("%s %s %.1fx %s than %s", first ? "" : ",", row->method,
                   speedup >= 1 ? speedup : 1 / speedup,
                   speedup >= 1 ? "faster" : "slower", base->method);
        } else {
            printf("\n");
        }
    }
    printf("\nwhat each dump reads, per flow:\n"
           "  mmap          its slot, found in the userspace copy of the "
           "table,\n"
           "                with xdp_flow_stats_read() from the mapping\n"
           "  lookup-batch  slots 0 to %"PRIu32" of the statistics array, "
           "%"PRIu32" a call\n"
           "  per-element   get_next_key and lookup in the subtable (its "
           "slot),\n"
           "                then lookup of that slot in the statistics "
           "array\n",
           ctx->n_flows - 1, ctx->batch);
    printf("every dump: %"PRIu32" flows, %"PRIu64" packets, "
           "%"PRIu64" bytes\n", ctx->n_flows, ctx->n_packets, ctx->n_bytes);
    printf("bpf() calls in this run: %"PRIu64" (timed %"PRIu64", "
           "warm-up, setup and checks %"PRIu64")\n",
           timed_calls + ctx->other_calls, timed_calls, ctx->other_calls);
}

static void
print_json(const struct bench_ctx *ctx, unsigned int n_rounds)
{
    printf("{\"flows\": %"PRIu32", \"batch_size\": %"PRIu32", "
           "\"rounds\": %u, \"clock\": \"CLOCK_MONOTONIC\",\n"
           " \"totals\": {\"n_packets\": %"PRIu64", \"n_bytes\": %"PRIu64"},\n"
           " \"results\": [\n",
           ctx->n_flows, ctx->batch, n_rounds, ctx->n_packets,
           ctx->n_bytes);
    for (int i = 0; i < N_ROWS; i++) {
        const struct bench_row *row = &rows[i];

        printf("  {\"operation\": \"%s\", \"method\": \"%s\", "
               "\"samples\": %"PRIuSIZE", \"wall_ms\": %.3f, "
               "\"ns_per_flow\": %.1f, \"bpf_calls\": %"PRIu64", "
               "\"speedup_vs_per_element\": %.3f}%s\n",
               row->operation, row->method, row->n_samples,
               row->median / 1e6, row->median / ctx->n_flows, row->calls,
               row_speedup(i), i < N_ROWS - 1 ? "," : "");
    }
    printf(" ]}\n");
}

/* Command line. */

static void
usage(void)
{
    printf("%s stats: flow installs, statistics dumps and deletes, batched\n"
           "against per element, and statistics through mmap().\n"
           "usage: %s stats [OPTION]...\n"
           "Creates a subtable hash map and an mmapped statistics array as\n"
           "the datapath does (no program is loaded; needs root), then\n"
           "times on them, alternating methods over several rounds:\n"
           "  install  BPF_MAP_UPDATE_BATCH vs bpf_map_update_elem per flow\n"
           "  dump     every flow's counters: read through mmap() (slots\n"
           "           from the userspace copy of the table), vs\n"
           "           BPF_MAP_LOOKUP_BATCH on the statistics array, vs\n"
           "           get_next_key + lookup in the subtable, then lookup\n"
           "           of the slot in the statistics array, per flow\n"
           "  delete   BPF_MAP_DELETE_BATCH vs bpf_map_delete_elem per flow\n"
           "Each libbpf call is one bpf() system call; the counts shown are\n"
           "those calls, for one run of the method.\n"
           "options:\n"
           "  --flows=N    number of flows (default %d, at most %d)\n"
           "  --batch=N    elements per batched call (default %d)\n"
           "  --rounds=N   timed rounds, after one warm-up (default %d)\n"
           "  --json       print the results as JSON\n"
           "  -h, --help   display this help message\n",
           program_name, program_name, BENCH_STATS_DEFAULT_FLOWS,
           XDP_DP_MAX_FLOWS, BENCH_STATS_DEFAULT_BATCH,
           BENCH_STATS_DEFAULT_ROUNDS);
}


int
bench_stats_main(int argc, char *argv[])
{
    enum {
        OPT_FLOWS = UCHAR_MAX + 1,
        OPT_BATCH,
        OPT_ROUNDS,
        OPT_JSON,
    };
    static const struct option long_options[] = {
        {"flows", required_argument, NULL, OPT_FLOWS},
        {"batch", required_argument, NULL, OPT_BATCH},
        {"rounds", required_argument, NULL, OPT_ROUNDS},
        {"json", no_argument, NULL, OPT_JSON},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct bench_ctx ctx = {
        .n_flows = BENCH_STATS_DEFAULT_FLOWS,
        .batch = BENCH_STATS_DEFAULT_BATCH,
    };
    unsigned int n_rounds = BENCH_STATS_DEFAULT_ROUNDS;
    bool json = false;

    for (;;) {
        int c = getopt_long(argc, argv, "h", long_options, NULL);

        if (c == -1) {
            break;
        }
        switch (c) {
        case OPT_FLOWS:
            ctx.n_flows = bench_parse_count("--flows",
                                            optarg, 1, XDP_DP_MAX_FLOWS);
            break;
        case OPT_BATCH:
            ctx.batch = bench_parse_count("--batch",
                                          optarg, 1, XDP_DP_MAX_FLOWS);
            break;
        case OPT_ROUNDS:
            n_rounds = bench_parse_count("--rounds", optarg, 1, 1000);
            break;
        case OPT_JSON:
            json = true;
            break;
        case 'h':
            usage();
            return 0;
        default:
            ovs_fatal(0, "use --help for usage");
        }
    }
    if (optind < argc) {
        ovs_fatal(0, "stats takes no arguments (use --help for usage)");
    }

    bench_setup(&ctx);
    for (int i = 0; i < N_ROWS; i++) {
        rows[i].samples = xcalloc(2 * n_rounds, sizeof *rows[i].samples);
        rows[i].calls = UINT64_MAX;
    }

    run_round(&ctx, 0, false);
    for (unsigned int r = 0; r < n_rounds; r++) {
        run_round(&ctx, r, true);
    }
    for (int i = 0; i < N_ROWS; i++) {
        rows[i].median = median(rows[i].samples, rows[i].n_samples);
    }

    if (json) {
        print_json(&ctx, n_rounds);
    } else {
        print_table(&ctx, n_rounds);
    }

    for (int i = 0; i < N_ROWS; i++) {
        free(rows[i].samples);
    }
    bench_teardown(&ctx);
    return 0;
}
