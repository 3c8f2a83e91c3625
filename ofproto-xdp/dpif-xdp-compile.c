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

/* Compiling a datapath's flow table into its program, off the packet and
 * flow-setup paths.
 *
 * Each datapath has a compiler thread.  Flow setup only tells it that the
 * table's shape changed (a mask came, or a flow uses an action the running
 * program has no code for: dp_xdp_compile_table_changed()), which costs a
 * flag and a latch; a flow whose mask is compiled already is installed by
 * map updates alone.  The thread waits until the table has been quiet for
 * XDP_COMPILE_COALESCE_MS and the last compile is at least
 * XDP_COMPILE_INTERVAL_MS old, so that a burst of new masks costs one
 * compile; a flow with an action the running program has no code for
 * waits only for the quiet time.  A mask that went away is compiled away
 * only with the next compile, or after XDP_COMPILE_SHRUNK_MS
 * (dp_xdp_compile_table_shrunk()).  Every XDP_COMPILE_RANK_MS it also reads
 * the subtables' hit counters and recompiles if the order has gone stale
 * (a subtable has more than twice the hits of one visited before it).
 *
 * The generic program stays loaded all along (it is the instance that owns
 * the maps, 'skel' in struct dp_xdp).  When a flow comes with an action
 * the running compiled program has no code for, the thread swaps the
 * generic program in at once, a link update per port, and compiles the
 * next program after the quiet time: the flow's packets stay in XDP,
 * classified generically for a few hundred milliseconds, instead of going
 * to ovs-vswitchd until the compile is done (the verifier alone takes
 * 0.2 to 1.3 s here).
 *
 * A compile:
 *   1. takes a snapshot of the subtables, their hits and the actions in use
 *      (under the flow mutex) and marks the slots it compiles 'live', so
 *      that none is given to another mask meanwhile;
 *   2. has xdp-compile.c build the configuration;
 *   3. gives each compiled subtable with a compact key a compact map of
 *      the right key size and capacity, filled with the subtable's flows
 *      (from then on dpif-xdp-flow.c writes every put and delete of that
 *      mask to it as well: dp_xdp_compile_write_flows()), and puts it in
 *      the array of maps of its key size;
 *   4. loads the program with the configuration (the verifier's time is
 *      the compile time that matters) and swaps it in on every port
 *      through the dispatcher's links (dp_xdp_swap_program()).
 * If loading fails, the running program stays, the failure is logged and
 * counted, and the same configuration is not tried again.
 *
 * Between compiles the running program stays correct: it falls back to the
 * generic classifier for anything its compiled subtables miss, hands flows
 * with actions it has no code for to ovs-vswitchd, and parses in full
 * before the fallback (see datapath/xdp-dp-classify.h). */

#include <config.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "coverage.h"
#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dpif-xdp-private.h"
#include "hash.h"
#include "latch.h"
#include "maps/map-info.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "ofproto-xdp/xdp-compile.h"
#include "ovs-rcu.h"
#include "ovs-thread.h"
#include "timeval.h"
#include "unixctl.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_compile);

COVERAGE_DEFINE(xdp_compile);
COVERAGE_DEFINE(xdp_compile_failed);
COVERAGE_DEFINE(xdp_compile_halved);

#define XDP_COMPILE_COALESCE_MS 100     /* Quiet time before a compile. */
#define XDP_COMPILE_INTERVAL_MS 1000    /* Least time between compiles. */
#define XDP_COMPILE_RANK_MS 5000        /* How often to check the order. */
#define XDP_COMPILE_SHRUNK_MS 30000     /* How long a compiled subtable that
                                         * went away may stay compiled. */
#define XDP_COMPILE_RANK_MIN_HITS 1000  /* Hits that make a reorder worth
                                         * a compile. */
#define XDP_COMPILE_CMAP_MIN 1024       /* Smallest compact map. */

struct dp_xdp_compiler {
    pthread_t thread;
    struct latch exit_latch;    /* Tells the thread to stop. */
    struct latch work_latch;    /* Tells the thread there is work. */
    atomic_bool auto_compile;   /* Compile on table changes? */

    /* Protected by the datapath's 'flow_mutex'. */
    struct dp_xdp_cslot slots[XDP_DP_MAX_MASKS];    /* By mask slot. */
    long long int dirty_since;  /* First change since the last compile
                                 * began, or LLONG_MAX. */
    bool urgent;                /* A flow has an action the running program
                                 * has no code for: the generic program
                                 * comes in at once, and the next compile
                                 * does not wait out
                                 * XDP_COMPILE_INTERVAL_MS. */
    long long int shrunk_since; /* First subtable gone since the last
                                 * compile began, or LLONG_MAX. */

    /* Protected by 'mutex', held through a whole compile. */
    struct ovs_mutex mutex;
    struct xdp_dp_cfg cfg;      /* The running program's configuration. */
    uint64_t hits_base[XDP_DP_MAX_MASKS];   /* Hit counters at the start of
                                             * the ranking window. */
    long long int last_compile; /* time_msec() of the last compile. */
    long long int last_rank;    /* ...and of the last ranking. */
    uint64_t n_compiles;        /* Programs compiled and swapped in. */
    uint64_t n_failures;        /* Compiles that failed. */
    uint64_t n_unchanged;       /* Compiles skipped: nothing to change. */
    uint64_t n_standby;         /* Generic program swapped in for a flow
                                 * with actions the compiled one lacked. */
    bool out_of_line;           /* Actions out of line in every compiled
                                 * program ('execute_call'), for tests. */
    bool refuse_inline;         /* E2BIG for every compiled program with its
                                 * actions inline, for tests. */
    long long int quiet_ms;     /* XDP_COMPILE_COALESCE_MS, or what the
                                 * environment says (tests). */
    long long int shrunk_ms;    /* XDP_COMPILE_SHRUNK_MS, or the same. */
    uint32_t failed_hash;       /* Configuration that failed last, or 0. */
    /* What the verifier took after it refused the whole table (E2BIG), for
     * the actions in use then, 'big_bits' (0 if it never did): actions
     * out of line ('execute_call'), and at most 'csub_limit' compiled
     * subtables. */
    uint32_t big_bits;
    uint32_t big_execute_call;
    uint32_t csub_limit;
    uint32_t big_n_refused;     /* Compiled subtables refused inline. */
    char *last_error;           /* Why the last failure failed, or NULL. */
    double compile_ms;          /* The last compile: all of it, */
    double load_ms;             /* loading and verification, */
    uint32_t xlated_insns;      /* instructions after the verifier, */
    uint32_t verified_insns;    /* instructions the verifier processed, */
    uint32_t jited_bytes;       /* and bytes of machine code. */
};

/* Hit counters of every subtable, summed over the CPUs, into 'hits', and
 * if 'n_fallback' is not NULL, the packets that missed every compiled
 * subtable into '*n_fallback'. */
static void
read_mask_hits__(struct dp_xdp *dp, uint64_t hits[XDP_DP_MAX_MASKS],
                 uint64_t *n_fallback)
{
    struct xdp_dp_stats sum;

    dp_xdp_read_stats(dp, &sum);
    memcpy(hits, sum.mask_hits, sizeof sum.mask_hits);
    if (n_fallback) {
        *n_fallback = sum.n_fallback;
    }
}

static void
read_mask_hits(struct dp_xdp *dp, uint64_t hits[XDP_DP_MAX_MASKS])
{
    read_mask_hits__(dp, hits, NULL);
}

/* Compact maps. */

static int
cmap_outer_fd(struct dp_xdp *dp, uint32_t n_words)
{
    switch (n_words) {
    case 2: return bpf_map__fd(dp->skel->maps.xdp_dp_ckeys_2);
    case 4: return bpf_map__fd(dp->skel->maps.xdp_dp_ckeys_4);
    case 6: return bpf_map__fd(dp->skel->maps.xdp_dp_ckeys_6);
    case 8: return bpf_map__fd(dp->skel->maps.xdp_dp_ckeys_8);
    case 12: return bpf_map__fd(dp->skel->maps.xdp_dp_ckeys_12);
    case 16: return bpf_map__fd(dp->skel->maps.xdp_dp_ckeys_16);
    default: OVS_NOT_REACHED();
    }
}

/* Describes the compact maps' outer maps for dpif-xdp/maps-show, each
 * with the mask slots that have an inner map of its key size. */
void
dp_xdp_compile_format_maps(struct dp_xdp *dp, struct ds *s)
{
    static const uint32_t classes[] = { XDP_DP_CKEY_CLASSES };

    ovs_mutex_lock(&dp->flow_mutex);
    for (size_t i = 0; i < ARRAY_SIZE(classes); i++) {
        int64_t n_used = 0;
        char *name;

        for (uint32_t slot = 0; dp->compiler && slot < XDP_DP_MAX_MASKS;
             slot++) {
            const struct dp_xdp_cslot *cslot = &dp->compiler->slots[slot];

            n_used += (cslot->cmap_fd >= 0
                       && cslot->csub.ckey_words == classes[i]);
        }
        name = xasprintf("xdp_dp_ckeys_%"PRIu32, classes[i]);
        xdp_map_format(s, name, cmap_outer_fd(dp, classes[i]), n_used,
                       "compiled subtables' compact maps, one per mask "
                       "slot, made by the compiler");
        free(name);
    }
    ovs_mutex_unlock(&dp->flow_mutex);
}

/* Writes (if 'add') or deletes the 'n' flows in 'flows', all of subtable
 * 'mask_slot', in that subtable's compact map, if it has one.  A flow that
 * does not fit stays in the full-size subtable only, where the compiled
 * program's fallback finds it, and the next compile makes the map bigger.
 * Called by dpif-xdp-flow.c after the full-size subtable is written. */
void
dp_xdp_compile_write_flows(struct dp_xdp *dp, int mask_slot,
                           struct dp_xdp_flow **flows, size_t n, bool add)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct dp_xdp_cslot *cslot;

    if (mask_slot < 0 || !n || !dp->compiler) {
        return;                 /* (No compiler yet: restoring flows.) */
    }
    cslot = &dp->compiler->slots[mask_slot];
    if (cslot->cmap_fd < 0) {
        return;
    }

    size_t key_size = cslot->csub.ckey_words * sizeof(uint32_t);
    uint8_t *keys = xmalloc(n * key_size);
    struct xdp_flow *values = add ? xmalloc(n * sizeof *values) : NULL;
    for (size_t i = 0; i < n; i++) {
        uint32_t ckey[XDP_DP_CKEY_MAX_WORDS];

        xdp_compile_ckey(&cslot->csub, &flows[i]->xkey, ckey);
        memcpy(keys + i * key_size, ckey, key_size);
        if (add) {
            values[i] = flows[i]->xflow;
        }
    }

    struct xdp_map_calls calls = { 0 };     /* Not the flow table's. */
    struct xdp_map_batch mb = {
        .fd = cslot->cmap_fd,
        .key_size = key_size,
        .value_size = sizeof *values,
        .flags = BPF_ANY,
        .stop_at_error = add,
        .calls = &calls,
    };
    if (add) {
        int *errors = xmalloc(n * sizeof *errors);
        size_t done = xdp_map_batch_update(&mb, keys, values, n, errors);

        if (done < n) {
            /* Full, most likely (E2BIG): the rest is found by the
             * fallback until the next compile gives a bigger map. */
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);

            VLOG_INFO_RL(&rl, "%s: subtable %d: compact map of %"PRIu32
                         " entries refused a flow (%s): recompiling",
                         dp->name, mask_slot, cslot->cmap_size,
                         ovs_strerror(errors[done]));
            cslot->cmap_full = true;
            dp_xdp_compile_table_changed(dp, false);
        }
        free(errors);
    } else {
        /* A flow that never fit is not there: every one is tried. */
        xdp_map_batch_delete(&mb, keys, n, NULL);
    }
    free(keys);
    free(values);
}

static uint32_t
cmap_capacity(uint32_t n_flows)
{
    uint64_t want = MAX((uint64_t) n_flows * 4, XDP_COMPILE_CMAP_MIN);

    return MIN(want, XDP_DP_MAX_FLOWS);
}

/* Makes sure that compiled subtable 'cs' has a compact map that holds all
 * of its flows, in the array of maps the program looks it up in.  Returns
 * 0 or a positive errno (then the program finds the subtable's flows
 * through its fallback). */
static int
cmap_prepare(struct dp_xdp *dp, const struct xdp_dp_csub *cs)
    OVS_EXCLUDED(dp->flow_mutex)
{
    struct dp_xdp_cslot *cslot = &dp->compiler->slots[cs->slot];
    struct dp_xdp_mask *m = &dp->masks[cs->slot];
    int fd = -1, error = 0;

    ovs_mutex_lock(&dp->flow_mutex);
    uint32_t capacity = cmap_capacity(m->n_flows);
    if (!m->in_use) {
        /* Gone since the snapshot. */
    } else if (cslot->cmap_fd >= 0
               && xdp_compile_csub_equal(&cslot->csub, cs)
               && !cslot->cmap_full && cslot->cmap_size >= 2 * m->n_flows) {
        /* Still good. */
    } else {
        LIBBPF_OPTS(bpf_map_create_opts, opts,
                    .map_flags = BPF_F_NO_PREALLOC);

        fd = bpf_map_create(BPF_MAP_TYPE_HASH, "xdp_dp_ckeys",
                            cs->ckey_words * sizeof(uint32_t),
                            sizeof(struct xdp_flow), capacity, &opts);
        if (fd < 0) {
            error = errno;
            goto out;
        }
        if (cslot->cmap_fd >= 0) {
            close(cslot->cmap_fd);
        }
        cslot->cmap_fd = fd;
        cslot->cmap_size = capacity;
        cslot->cmap_full = false;
        cslot->csub = *cs;

        /* Fill it with the subtable's flows, in batches. */
        struct dp_xdp_flow *batch[256];
        struct dp_xdp_flow *flow;
        size_t n = 0;
        HMAP_FOR_EACH (flow, node, &dp->flows) {
            if (flow->mask_slot == cs->slot) {
                batch[n++] = flow;
                if (n == ARRAY_SIZE(batch)) {
                    dp_xdp_compile_write_flows(dp, cs->slot, batch, n, true);
                    n = 0;
                }
            }
        }
        dp_xdp_compile_write_flows(dp, cs->slot, batch, n, true);

        /* Hold our own fd across the array update, which waits for an RCU
         * grace period: not under the flow mutex. */
        fd = dup(fd);
        if (fd < 0) {
            error = errno;
        }
    }
out:
    ovs_mutex_unlock(&dp->flow_mutex);

    if (fd >= 0) {
        uint32_t slot = cs->slot;

        if (bpf_map_update_elem(cmap_outer_fd(dp, cs->ckey_words), &slot,
                                &fd, BPF_ANY)) {
            error = errno;
        }
        close(fd);
    }
    if (error) {
        VLOG_WARN("%s: subtable %"PRIu32": cannot set up its compact map "
                  "(%s); the program will find its flows by the full key",
                  dp->name, cs->slot, ovs_strerror(error));
    }
    return error;
}

/* Whether a subtable compiled in 'cfg' needs its compact map made or
 * remade (see cmap_prepare()): then a compile must run even for the
 * configuration already running. */
static bool
cmaps_need_work(const struct dp_xdp *dp, const struct xdp_dp_cfg *cfg)
    OVS_REQUIRES(dp->flow_mutex)
{
    for (uint32_t i = 0; i < cfg->n_csubs; i++) {
        const struct xdp_dp_csub *cs = &cfg->csubs[i];
        const struct dp_xdp_cslot *cslot = &dp->compiler->slots[cs->slot];
        const struct dp_xdp_mask *m = &dp->masks[cs->slot];

        if (cs->ckey_words && m->in_use
            && (cslot->cmap_fd < 0 || cslot->cmap_full
                || cslot->cmap_size < 2 * m->n_flows)) {
            return true;
        }
    }
    return false;
}

/* Drops the compact maps of subtables that no program compiles any more.
 * Each array update waits for an RCU grace period, so this runs after the
 * swap, outside the flow mutex. */
static void
cmaps_release_unused(struct dp_xdp *dp)
{
    struct { uint32_t slot, n_words; int fd; } gone[XDP_DP_MAX_MASKS];
    size_t n_gone = 0;

    ovs_mutex_lock(&dp->flow_mutex);
    for (uint32_t slot = 0; slot < XDP_DP_MAX_MASKS; slot++) {
        struct dp_xdp_cslot *cslot = &dp->compiler->slots[slot];

        if (!cslot->live && cslot->cmap_fd >= 0) {
            gone[n_gone].slot = slot;
            gone[n_gone].n_words = cslot->csub.ckey_words;
            gone[n_gone].fd = cslot->cmap_fd;
            n_gone++;
            cslot->cmap_fd = -1;
        }
    }
    ovs_mutex_unlock(&dp->flow_mutex);

    for (size_t i = 0; i < n_gone; i++) {
        bpf_map_delete_elem(cmap_outer_fd(dp, gone[i].n_words),
                            &gone[i].slot);
        close(gone[i].fd);
    }
}

/* Marks live the slots compiled in 'cfg' and, unless 'also' is NULL, those
 * compiled in 'also'; no others. */
static void
mark_live(struct dp_xdp *dp, const struct xdp_dp_cfg *cfg,
          const struct xdp_dp_cfg *also)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct dp_xdp_cslot *slots = dp->compiler->slots;

    for (uint32_t slot = 0; slot < XDP_DP_MAX_MASKS; slot++) {
        slots[slot].live = false;
    }
    for (uint32_t i = 0; i < cfg->n_csubs; i++) {
        slots[cfg->csubs[i].slot].live = true;
    }
    for (uint32_t i = 0; also && i < also->n_csubs; i++) {
        slots[also->csubs[i].slot].live = true;
    }
}

static uint32_t
cfg_hash(const struct xdp_dp_cfg *cfg)
{
    return hash_bytes(cfg, sizeof *cfg, 0) | 1;
}

/* Keeps only the first 'n' of 'cfg''s compiled subtables, the busiest
 * (they are in ranking order); the generic classifier finds the packets of
 * the rest.  'parse_l4' stays as it was: parsing a transport header that
 * no compiled mask needs any more costs a little, and is correct. */
static void
cfg_truncate(struct xdp_dp_cfg *cfg, uint32_t n)
{
    if (n < cfg->n_csubs) {
        memset(&cfg->csubs[n], 0,
               (cfg->n_csubs - n) * sizeof cfg->csubs[0]);
        cfg->n_csubs = n;
    }
}

/* Reads the running program's instruction counts into 'c'. */
static void
read_prog_info(struct dp_xdp_compiler *c, int prog_fd)
{
    struct bpf_prog_info info;
    uint32_t len = sizeof info;

    memset(&info, 0, sizeof info);
    if (!bpf_obj_get_info_by_fd(prog_fd, &info, &len)) {
        c->xlated_insns = info.xlated_prog_len / sizeof(struct bpf_insn);
        c->verified_insns = info.verified_insns;
        c->jited_bytes = info.jited_prog_len;
    }
}

/* The actions of 'dp''s flows in XDP (see XDP_DP_ACTION_F_OUTPUTS). */
static uint32_t
flows_action_bits(struct dp_xdp *dp)
    OVS_REQUIRES(dp->flow_mutex)
{
    const struct dp_xdp_flow *flow;
    uint32_t bits = 0;

    HMAP_FOR_EACH (flow, node, &dp->flows) {
        if (flow->mask_slot >= 0) {
            bits |= flow->xflow.action_bits;
        }
    }
    return bits;
}

/* Compiles 'dp''s flow table and swaps the program in.  With 'force',
 * even if the configuration is the one running, or one that failed.
 * Returns 0 or a positive errno; appends what happened to 'reply', if
 * not NULL. */
static int
compile(struct dp_xdp *dp, bool force, struct ds *reply)
    OVS_REQUIRES(dp->compiler->mutex)
{
    struct dp_xdp_compiler *c = dp->compiler;
    struct xdp_compile_mask masks[XDP_DP_MAX_MASKS];
    uint64_t hits_now[XDP_DP_MAX_MASKS];
    long long int start = time_msec();
    struct xdp_dp_cfg cfg;
    size_t n_masks = 0;
    uint32_t action_bits = 0;
    int error;

    /* 1. The table's shape. */
    read_mask_hits(dp, hits_now);
    ovs_mutex_lock(&dp->flow_mutex);
    c->dirty_since = LLONG_MAX;
    c->shrunk_since = LLONG_MAX;
    c->urgent = false;
    for (uint32_t i = 0; i < dp->n_masks; i++) {
        uint32_t slot = dp->mask_order[i];
        struct xdp_compile_mask *cm = &masks[n_masks++];

        cm->slot = slot;
        cm->mask = dp->masks[slot].mask;
        cm->n_flows = dp->masks[slot].n_flows;
        cm->hits = hits_now[slot] - c->hits_base[slot];
    }
    action_bits = flows_action_bits(dp);

    /* 2. The configuration: as the verifier took it, the last time it
     * refused more with the same actions. */
    xdp_compile_build(masks, n_masks, action_bits, &cfg);
    cfg.execute_call = c->out_of_line;
    if (c->big_bits && action_bits == c->big_bits) {
        cfg.execute_call = c->big_execute_call;
        cfg_truncate(&cfg, c->csub_limit);
    } else if (c->big_bits && c->big_execute_call
               && (action_bits & c->big_bits) == c->big_bits
               && cfg.n_csubs >= c->big_n_refused) {
        /* More kinds of action over as many subtables as the verifier
         * refused inline: it would refuse this too, after as long (15 s
         * and more for OVN's tables).  A wrong guess would cost only some
         * speed per packet. */
        cfg.execute_call = 1;
    }
    if (!force && !cmaps_need_work(dp, &cfg)
        && (!memcmp(&cfg, &c->cfg, sizeof cfg)
            || cfg_hash(&cfg) == c->failed_hash)) {
        ovs_mutex_unlock(&dp->flow_mutex);
        c->n_unchanged++;
        if (reply) {
            ds_put_format(reply, "%s: nothing to compile\n", dp->name);
        }
        return 0;
    }
    mark_live(dp, &c->cfg, &cfg);
    ovs_mutex_unlock(&dp->flow_mutex);

    /* 3. Compact maps. */
    for (uint32_t i = 0; i < cfg.n_csubs; i++) {
        if (cfg.csubs[i].ckey_words) {
            cmap_prepare(dp, &cfg.csubs[i]);
        }
    }

    /* 4. Load, verify and swap in.  The verifier may take seconds (and
     * twice that when it refuses: libbpf loads again for the log).  The
     * compiler's thread holds no RCU-protected pointer through the load:
     * it quiesces, so that ovsrcu_synchronize() in the main thread (and
     * with it every ovs-appctl command) does not wait for the kernel.
     * (Found with OVN: ovs-appctl to a chassis took 10 s during a refused
     * compile.)  In the main thread (dpif-xdp/compile) it must not. */
    struct xdp_dp *skel;
    long long int load_start = time_usec();
    bool quiesce = pthread_equal(pthread_self(), c->thread);
    uint32_t full_hash = cfg_hash(&cfg);
    struct xdp_dp_cfg full = cfg;

    for (int tries = 0; ; tries++) {
        if (quiesce) {
            ovsrcu_quiesce_start();
        }
        error = (c->refuse_inline && !cfg.execute_call
                 ? E2BIG : dp_xdp_load_program(dp, &cfg, &skel));
        if (quiesce) {
            ovsrcu_quiesce_end();
        }
        /* E2BIG: the verifier walked more than its million instructions.
         * It walks the actions once for each kind of subtable a flow can
         * come from (see "Passes" in datapath/xdp-dp.bpf.c): found with
         * OVN, whose ct(), ct_clear, tunnels and rewrites in one table
         * took seven compiled subtables past it.  First the actions go
         * out of line, into a function checked once; then the busier
         * half of the subtables (they are in ranking order) is compiled,
         * the rest classified generically, at most twice over.  What it
         * took is kept for the next compiles with the same actions. */
        if (error != E2BIG || tries >= 3) {
            break;
        }
        if (!cfg.execute_call) {
            cfg.execute_call = 1;
            VLOG_INFO("%s: the verifier refused %"PRIu32" compiled "
                      "subtables (%s): trying with the actions out of line",
                      dp->name, cfg.n_csubs, ovs_strerror(error));
        } else if (cfg.n_csubs >= 2) {
            uint32_t n_before = cfg.n_csubs;

            cfg_truncate(&cfg, cfg.n_csubs / 2);
            COVERAGE_INC(xdp_compile_halved);
            VLOG_INFO("%s: the verifier refused %"PRIu32" compiled "
                      "subtables with the actions out of line (%s): "
                      "trying %"PRIu32, dp->name, n_before,
                      ovs_strerror(error), cfg.n_csubs);
        } else {
            break;
        }
    }
    double load_ms = (time_usec() - load_start) / 1000.0;
    if (!error) {
        int prog_fd = bpf_program__fd(skel->progs.xdp_dp_main);

        read_prog_info(c, prog_fd);
        error = dp_xdp_swap_program(dp, skel, reply);
    }

    ovs_mutex_lock(&dp->flow_mutex);
    if (!error) {
        c->cfg = cfg;
        /* A flow put after the snapshot, while the program before this one
         * ran (the generic one has code for every action), asked for
         * nothing: if it needs an action that this program lacks, ask now,
         * or its packets would go to ovs-vswitchd until the table changed
         * again (found by CI: a ct() flow whose mask existed already). */
        if (flows_action_bits(dp) & ~cfg.action_bits) {
            dp_xdp_compile_table_changed(dp, true);
        }
    }
    mark_live(dp, &c->cfg, NULL);
    ovs_mutex_unlock(&dp->flow_mutex);
    cmaps_release_unused(dp);

    c->last_compile = time_msec();
    if (error) {
        COVERAGE_INC(xdp_compile_failed);
        c->n_failures++;
        c->failed_hash = cfg_hash(&cfg);
        free(c->last_error);
        c->last_error = xasprintf("%s (%"PRIu32" subtables)",
                                  ovs_strerror(error), cfg.n_csubs);
        if (reply) {
            ds_put_format(reply, "%s: compile failed: %s\n", dp->name,
                          ovs_strerror(error));
        }
        /* A compiled program that lacks code for an action that a flow
         * now needs (the reason for this compile, often) would send that
         * flow's packets to ovs-vswitchd until the table changes again:
         * the generic program, which has code for every action, runs
         * instead.  (Found with OVN: ct(), ct_clear and tunnels in one
         * table made a compiled program too big for the verifier.) */
        ovs_mutex_lock(&dp->flow_mutex);
        bool lacking = (c->cfg.enabled
                        && flows_action_bits(dp) & ~c->cfg.action_bits);
        ovs_mutex_unlock(&dp->flow_mutex);
        if (lacking && !dp_xdp_swap_program(dp, dp->skel, reply)) {
            ovs_mutex_lock(&dp->flow_mutex);
            memset(&c->cfg, 0, sizeof c->cfg);
            mark_live(dp, &c->cfg, NULL);
            ovs_mutex_unlock(&dp->flow_mutex);
            VLOG_WARN("%s: compiling the flow table failed (%s): the "
                      "generic program runs", dp->name, ovs_strerror(error));
        } else {
            VLOG_WARN("%s: compiling the flow table failed (%s): the "
                      "running program stays", dp->name, ovs_strerror(error));
        }
        return error;
    }

    COVERAGE_INC(xdp_compile);
    c->n_compiles++;
    if (memcmp(&cfg, &full, sizeof cfg)) {
        /* Cut down for the verifier: the whole table's configuration is
         * not tried again. */
        c->failed_hash = full_hash;
        c->big_bits = cfg.action_bits;
        c->big_execute_call = cfg.execute_call;
        c->big_n_refused = full.execute_call ? 0 : full.n_csubs;
        c->csub_limit = (cfg.n_csubs < full.n_csubs
                         ? cfg.n_csubs : XDP_DP_MAX_CSUBS);
    } else {
        c->failed_hash = 0;
    }
    c->load_ms = load_ms;
    c->compile_ms = c->last_compile - start;
    /* A new ranking window. */
    memcpy(c->hits_base, hits_now, sizeof hits_now);
    c->last_rank = c->last_compile;
    VLOG_INFO("%s: compiled %"PRIu32" subtables in %.1f ms (%.1f ms to load "
              "and verify, %"PRIu32" instructions)", dp->name, cfg.n_csubs,
              c->compile_ms, c->load_ms, c->xlated_insns);
    return 0;
}

/* Whether the subtables' hits in the window since the last ranking say
 * that the compiled order is stale: a subtable has more than twice the
 * hits (and XDP_COMPILE_RANK_MIN_HITS more) than one visited before it. */
static bool
rank_is_stale(struct dp_xdp *dp)
    OVS_REQUIRES(dp->compiler->mutex)
{
    struct dp_xdp_compiler *c = dp->compiler;
    uint64_t hits_now[XDP_DP_MAX_MASKS], delta[XDP_DP_MAX_MASKS];
    const struct xdp_dp_cfg *cfg = &c->cfg;

    read_mask_hits(dp, hits_now);
    for (int i = 0; i < XDP_DP_MAX_MASKS; i++) {
        delta[i] = hits_now[i] - c->hits_base[i];
    }
    for (uint32_t i = 0; i < cfg->n_csubs; i++) {
        for (uint32_t j = i + 1; j < cfg->n_csubs; j++) {
            uint64_t a = delta[cfg->csubs[i].slot];
            uint64_t b = delta[cfg->csubs[j].slot];

            if (b > 2 * a + XDP_COMPILE_RANK_MIN_HITS) {
                return true;
            }
        }
    }
    /* Keep the window current: the order fits the recent traffic. */
    memcpy(c->hits_base, hits_now, sizeof hits_now);
    return false;
}

/* Swaps in the generic program that 'dp' keeps loaded (the instance that
 * owns the maps), so that no compiled configuration runs any more; appends
 * what happened to 'reply', if not NULL.  Returns 0 or a positive errno. */
static int
swap_in_generic(struct dp_xdp *dp, struct ds *reply)
    OVS_REQUIRES(dp->compiler->mutex)
{
    struct dp_xdp_compiler *c = dp->compiler;
    int error = dp_xdp_swap_program(dp, dp->skel, reply);

    if (!error) {
        read_prog_info(c, dp->xdp_prog_fd);
        memset(&c->cfg, 0, sizeof c->cfg);
        ovs_mutex_lock(&dp->flow_mutex);
        mark_live(dp, &c->cfg, NULL);
        ovs_mutex_unlock(&dp->flow_mutex);
    }
    return error;
}

/* Swaps in the generic program in place of a compiled one that has no
 * code for a new flow's actions (see the top of this file).  The compile
 * that follows starts from the generic program, so its configuration is
 * compiled whatever it is. */
static void
swap_in_standby(struct dp_xdp *dp)
    OVS_REQUIRES(dp->compiler->mutex)
{
    int error = swap_in_generic(dp, NULL);

    if (error) {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);

        /* The flow's packets go to ovs-vswitchd until the compile. */
        VLOG_WARN_RL(&rl, "%s: cannot swap in the generic program (%s)",
                     dp->name, ovs_strerror(error));
    } else {
        dp->compiler->n_standby++;
    }
}

static void *
compiler_main(void *dp_)
{
    struct dp_xdp *dp = dp_;
    struct dp_xdp_compiler *c = dp->compiler;

    while (!latch_is_set(&c->exit_latch)) {
        long long int now = time_msec();
        long long int wake = now + XDP_COMPILE_RANK_MS;
        bool enabled;

        atomic_read_relaxed(&c->auto_compile, &enabled);
        if (enabled) {
            ovs_mutex_lock(&c->mutex);
            ovs_mutex_lock(&dp->flow_mutex);
            long long int dirty = c->dirty_since;
            long long int shrunk = c->shrunk_since;
            bool urgent = c->urgent;
            bool compiled = dp->live_skel != dp->skel;
            ovs_mutex_unlock(&dp->flow_mutex);

            if (urgent && compiled) {
                swap_in_standby(dp);
            }
            if (dirty != LLONG_MAX) {
                long long int when = dirty + c->quiet_ms;

                if (!urgent) {
                    when = MAX(when,
                               c->last_compile + XDP_COMPILE_INTERVAL_MS);
                }
                if (now >= when) {
                    compile(dp, false, NULL);
                } else {
                    wake = when;
                }
            } else if (shrunk != LLONG_MAX
                       && now >= shrunk + c->shrunk_ms) {
                compile(dp, false, NULL);
            } else if (now >= c->last_rank + XDP_COMPILE_RANK_MS) {
                c->last_rank = now;
                if (c->cfg.enabled && rank_is_stale(dp)) {
                    compile(dp, false, NULL);
                }
            } else {
                wake = c->last_rank + XDP_COMPILE_RANK_MS;
            }
            if (shrunk != LLONG_MAX) {
                wake = MIN(wake, shrunk + c->shrunk_ms);
            }
            ovs_mutex_unlock(&c->mutex);
        }

        /* A plain poll(), not OVS's poll loop: poll_block() runs the
         * fatal-signal hooks' machinery, and a hook that closes the
         * datapath would wait for this thread to end while this thread
         * waits for the hooks' lock. */
        struct pollfd fds[2] = {
            { .fd = c->exit_latch.fds[0], .events = POLLIN },
            { .fd = c->work_latch.fds[0], .events = POLLIN },
        };
        long long int timeout = MAX(wake - time_msec(), 0);
        ovsrcu_quiesce_start();     /* As poll_block() does. */
        poll(fds, 2, MIN(timeout, INT_MAX));
        ovsrcu_quiesce_end();
        latch_poll(&c->work_latch);
    }
    return NULL;
}

/* Starts 'dp''s compiler.  Compiles happen automatically unless the
 * environment variable OVS_XDP_COMPILE is "0". */
void
dp_xdp_compile_init(struct dp_xdp *dp)
{
    struct dp_xdp_compiler *c = xzalloc(sizeof *c);
    const char *env = getenv("OVS_XDP_COMPILE");

    ovs_mutex_init(&c->mutex);
    latch_init(&c->exit_latch);
    latch_init(&c->work_latch);
    atomic_init(&c->auto_compile, !env || strcmp(env, "0"));
    /* Tests stretch the quiet time to watch the generic program run. */
    env = getenv("OVS_XDP_COMPILE_QUIET_MS");
    unsigned int quiet;
    c->quiet_ms = (env && str_to_uint(env, 10, &quiet)
                   ? quiet : XDP_COMPILE_COALESCE_MS);
    /* And shorten how long a subtable that went away stays compiled. */
    env = getenv("OVS_XDP_COMPILE_SHRUNK_MS");
    c->shrunk_ms = (env && str_to_uint(env, 10, &quiet)
                    ? quiet : XDP_COMPILE_SHRUNK_MS);
    /* Tests run every compiled program with its actions out of line, as
     * the verifier may make a big table need (see compile()). */
    env = getenv("OVS_XDP_COMPILE_OUT_OF_LINE");
    c->out_of_line = env && !strcmp(env, "1");
    /* And stand in for a verifier that refuses every compiled program
     * with its actions inline, as it does big tables (compile()). */
    env = getenv("OVS_XDP_COMPILE_REFUSE_INLINE");
    c->refuse_inline = env && !strcmp(env, "1");
    c->dirty_since = LLONG_MAX;
    c->shrunk_since = LLONG_MAX;
    for (int i = 0; i < XDP_DP_MAX_MASKS; i++) {
        c->slots[i].cmap_fd = -1;
    }
    c->last_rank = time_msec();
    read_mask_hits(dp, c->hits_base);
    dp->compiler = c;
    c->thread = ovs_thread_create("xdp_compile", compiler_main, dp);

    /* Flows restored after a restart make a table to compile. */
    ovs_mutex_lock(&dp->flow_mutex);
    if (dp->n_masks) {
        dp_xdp_compile_table_changed(dp, false);
    }
    ovs_mutex_unlock(&dp->flow_mutex);
}

void
dp_xdp_compile_destroy(struct dp_xdp *dp)
{
    struct dp_xdp_compiler *c = dp->compiler;

    if (!c) {
        return;
    }
    latch_set(&c->exit_latch);
    xpthread_join(c->thread, NULL);
    for (int i = 0; i < XDP_DP_MAX_MASKS; i++) {
        if (c->slots[i].cmap_fd >= 0) {
            close(c->slots[i].cmap_fd);
        }
    }
    latch_destroy(&c->exit_latch);
    latch_destroy(&c->work_latch);
    ovs_mutex_destroy(&c->mutex);
    free(c->last_error);
    free(c);
    dp->compiler = NULL;
}

/* What the compiler keeps of mask slot 'slot', for reading (tests).  The
 * caller holds 'flow_mutex'. */
const struct dp_xdp_cslot *
dp_xdp_compile_slot(const struct dp_xdp *dp, uint32_t slot)
    OVS_REQUIRES(dp->flow_mutex)
{
    return &dp->compiler->slots[slot];
}

/* Whether mask slot 'slot' is compiled into the running program: then it
 * may not take another mask (dpif-xdp-subtable.c). */
bool
dp_xdp_compile_slot_live(const struct dp_xdp *dp, uint32_t slot)
    OVS_REQUIRES(dp->flow_mutex)
{
    return dp->compiler && dp->compiler->slots[slot].live;
}

/* Mask slot 'slot', not live, takes another mask: its compact map, made
 * for the old mask's key layout, goes. */
void
dp_xdp_compile_slot_reset(struct dp_xdp *dp, uint32_t slot)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct dp_xdp_cslot *cslot;

    if (!dp->compiler) {
        return;
    }
    cslot = &dp->compiler->slots[slot];
    if (cslot->cmap_fd >= 0) {
        close(cslot->cmap_fd);
        cslot->cmap_fd = -1;
    }
}

/* The table's shape changed: wake the compiler.  'urgent' if a flow has
 * an action the running program has no code for (see 'urgent' in struct
 * dp_xdp_compiler). */
void
dp_xdp_compile_table_changed(struct dp_xdp *dp, bool urgent)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct dp_xdp_compiler *c = dp->compiler;

    if (!c) {
        return;                 /* Restoring flows before the compiler. */
    }
    if (urgent && !c->urgent) {
        c->urgent = true;
        latch_set(&c->work_latch);
    }
    if (c->dirty_since == LLONG_MAX) {
        c->dirty_since = time_msec();
        latch_set(&c->work_latch);
    }
}

/* A subtable went away.  If the running program has it compiled, it stays
 * there, correct (its map is empty, and its slot takes no other mask while
 * the program is live) at the cost of a lookup that misses, for packets
 * that reach it: the removal alone is not worth a compile, which takes a
 * CPU for a second or more (the verifier), and a mask that went away with
 * its last flow's idle timeout often comes back with the next connection.
 * It is folded into the next compile that something else calls for, or
 * compiled after XDP_COMPILE_SHRUNK_MS; sooner if every free slot is
 * taken (dp_xdp_compile_slots_wanted()).  An empty subtable visited before
 * busy ones costs each of their packets a lookup that misses; the ranking
 * sees that within XDP_COMPILE_RANK_MS (rank_is_stale(): no hits in front
 * of many) and compiles it away with the new order. */
void
dp_xdp_compile_table_shrunk(struct dp_xdp *dp, uint32_t slot)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct dp_xdp_compiler *c = dp->compiler;

    if (!c) {
        return;
    }
    if (!c->slots[slot].live) {
        /* Not in the running program: nothing to compile away. */
        return;
    }
    if (c->shrunk_since == LLONG_MAX) {
        c->shrunk_since = time_msec();
        latch_set(&c->work_latch);  /* For the wake time. */
    }
}

/* A new mask found no free slot: subtables that went away but are still
 * compiled hold theirs, and a compile now gives them back. */
void
dp_xdp_compile_slots_wanted(struct dp_xdp *dp)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct dp_xdp_compiler *c = dp->compiler;

    if (c && c->shrunk_since != LLONG_MAX) {
        dp_xdp_compile_table_changed(dp, false);
    }
}

/* Compiles 'dp''s flow table now and swaps the program in, whether or not
 * automatic compiles are on.  Returns 0 or a positive errno. */
int
dp_xdp_compile_now(struct dp_xdp *dp, struct ds *reply)
{
    int error;

    ovs_mutex_lock(&dp->compiler->mutex);
    error = compile(dp, true, reply);
    ovs_mutex_unlock(&dp->compiler->mutex);
    return error;
}

/* Swaps in a new instance of the running program, for the same
 * configuration (ovs-appctl dpif-xdp/reload): an upgrade.  Returns 0 or a
 * positive errno. */
static int
dp_xdp_compile_reload(struct dp_xdp *dp, struct ds *reply)
{
    struct dp_xdp_compiler *c = dp->compiler;
    struct xdp_dp *skel;
    int error;

    ovs_mutex_lock(&c->mutex);
    error = dp_xdp_load_program(dp, c->cfg.enabled ? &c->cfg : NULL, &skel);
    if (!error) {
        read_prog_info(c, bpf_program__fd(skel->progs.xdp_dp_main));
        error = dp_xdp_swap_program(dp, skel, reply);
    }
    ovs_mutex_unlock(&c->mutex);
    return error;
}

void
dp_xdp_compile_set_auto(struct dp_xdp *dp, bool enable)
{
    atomic_store_relaxed(&dp->compiler->auto_compile, enable);
    latch_set(&dp->compiler->work_latch);
}

/* Stores the running program's configuration in '*cfg'. */
void
dp_xdp_compile_get_cfg(struct dp_xdp *dp, struct xdp_dp_cfg *cfg)
{
    ovs_mutex_lock(&dp->compiler->mutex);
    *cfg = dp->compiler->cfg;
    ovs_mutex_unlock(&dp->compiler->mutex);
}

/* Swaps the generic program in and turns automatic compiles off. */
static int
uncompile(struct dp_xdp *dp, struct ds *reply)
{
    struct dp_xdp_compiler *c = dp->compiler;
    int error;

    dp_xdp_compile_set_auto(dp, false);
    ovs_mutex_lock(&c->mutex);
    error = swap_in_generic(dp, reply);
    if (!error) {
        cmaps_release_unused(dp);
    }
    ovs_mutex_unlock(&c->mutex);
    return error;
}

/* Appends what 'dp''s running program was compiled from. */
void
dp_xdp_compile_format(struct dp_xdp *dp, struct ds *s)
{
    struct dp_xdp_compiler *c = dp->compiler;
    uint64_t hits_now[XDP_DP_MAX_MASKS];
    bool enabled, compiled_slot[XDP_DP_MAX_MASKS];
    const struct xdp_dp_cfg *cfg = &c->cfg;
    struct bpf_prog_info info;
    uint32_t len = sizeof info;

    ovs_mutex_lock(&c->mutex);
    atomic_read_relaxed(&c->auto_compile, &enabled);
    memset(&info, 0, sizeof info);
    bpf_obj_get_info_by_fd(dp->xdp_prog_fd, &info, &len);
    ds_put_format(s, "%s: %s program, id %"PRIu32"; automatic compiles %s\n",
                  dp->name, cfg->enabled ? "compiled" : "generic", info.id,
                  enabled ? "on" : "off");
    ds_put_format(s, "  compiles: %"PRIu64", failed: %"PRIu64", skipped "
                  "(table unchanged): %"PRIu64"\n",
                  c->n_compiles, c->n_failures, c->n_unchanged);
    ds_put_format(s, "  generic standby swapped in for new actions: "
                  "%"PRIu64"\n", c->n_standby);
    if (c->n_compiles) {
        ds_put_format(s, "  last compile: %.1f ms in all, %.1f ms to load "
                      "and verify\n", c->compile_ms, c->load_ms);
    }
    ds_put_format(s, "  program: %"PRIu32" instructions, %"PRIu32" bytes "
                  "JITed, verifier processed %"PRIu32"\n",
                  c->xlated_insns, c->jited_bytes, c->verified_insns);
    if (c->last_error) {
        ds_put_format(s, "  last failure: %s\n", c->last_error);
    }
    if (c->big_bits) {
        ds_put_format(s, "  too big for the verifier with these actions, "
                      "so %s", c->big_execute_call ? "out of line" : "inline");
        if (c->csub_limit < XDP_DP_MAX_CSUBS) {
            ds_put_format(s, ", at most %"PRIu32" compiled subtables",
                          c->csub_limit);
        }
        ds_put_cstr(s, ": ");
        xdp_compile_format_actions(s, c->big_bits);
        ds_put_char(s, '\n');
    }
    if (cfg->enabled) {
        ds_put_format(s, "  actions run %s\n", (cfg->execute_call
                                               ? "out of line (a call)"
                                               : "inline"));
    }
    if (!cfg->enabled) {
        ovs_mutex_unlock(&c->mutex);
        return;
    }
    ds_put_cstr(s, "  actions with code: ");
    xdp_compile_format_actions(s, cfg->action_bits);
    ds_put_format(s, "\n  transport layer: %s\n",
                  (cfg->parse_l4 ? "parsed"
                   : "TCP and ICMPv6 only (no mask needs it)"));

    uint64_t n_fallback = 0;
    read_mask_hits__(dp, hits_now, &n_fallback);
    ds_put_format(s, "  fallback lookups: %"PRIu64" (packets that missed "
                  "every compiled subtable)\n", n_fallback);
    memset(compiled_slot, 0, sizeof compiled_slot);
    ovs_mutex_lock(&dp->flow_mutex);
    ds_put_cstr(s, "  compiled subtables, in visiting order (hits since "
                "the ranking):\n");
    for (uint32_t i = 0; i < cfg->n_csubs; i++) {
        const struct xdp_dp_csub *cs = &cfg->csubs[i];
        const struct dp_xdp_cslot *cslot = &c->slots[cs->slot];
        const struct dp_xdp_mask *m = &dp->masks[cs->slot];

        compiled_slot[cs->slot] = true;
        ds_put_format(s, "    %2"PRIu32". slot %2"PRIu32": %"PRIu32" flows, "
                      "%"PRIu64" hits, ", i + 1, cs->slot,
                      m->in_use ? m->n_flows : 0,
                      hits_now[cs->slot] - c->hits_base[cs->slot]);
        xdp_compile_format_csub(s, cs);
        if (!m->in_use) {
            /* See dp_xdp_compile_table_shrunk().  No deadline when the
             * last compile, which took it in, failed. */
            ds_put_cstr(s, " (no flows left: compiled away with the next "
                        "compile");
            if (c->shrunk_since != LLONG_MAX) {
                long long int left = (c->shrunk_since + c->shrunk_ms
                                      - time_msec());

                ds_put_format(s, ", at the latest in %lld s",
                              MAX(left, 0) / 1000);
            }
            ds_put_char(s, ')');
        } else if (cs->ckey_words && cslot->cmap_fd < 0) {
            ds_put_cstr(s, " (no compact map: found by the fallback)");
        } else if (cslot->cmap_full) {
            ds_put_cstr(s, " (compact map full: some flows found by the "
                        "fallback)");
        }
        ds_put_char(s, '\n');
    }
    bool any = false;
    for (uint32_t i = 0; i < dp->n_masks; i++) {
        uint32_t slot = dp->mask_order[i];

        if (!compiled_slot[slot]) {
            if (!any) {
                ds_put_cstr(s, "  generic subtables (not compiled yet):\n");
                any = true;
            }
            ds_put_format(s, "    slot %2"PRIu32": %"PRIu32" flows, "
                          "%"PRIu64" hits\n", slot, dp->masks[slot].n_flows,
                          hits_now[slot] - c->hits_base[slot]);
        }
    }
    ovs_mutex_unlock(&dp->flow_mutex);
    ovs_mutex_unlock(&c->mutex);
}

/* unixctl commands. */

struct compile_cmd {
    struct ds reply;
    int error;
    const char *what;           /* "show", "compile", "reload", "on",
                                 * "off". */
};

static void
compile_cmd_run(struct dp_xdp *dp, void *cmd_)
{
    struct compile_cmd *cmd = cmd_;
    int error = 0;

    if (!strcmp(cmd->what, "show")) {
        dp_xdp_compile_format(dp, &cmd->reply);
    } else if (!strcmp(cmd->what, "compile")) {
        error = dp_xdp_compile_now(dp, &cmd->reply);
    } else if (!strcmp(cmd->what, "reload")) {
        error = dp_xdp_compile_reload(dp, &cmd->reply);
    } else if (!strcmp(cmd->what, "on")) {
        dp_xdp_compile_set_auto(dp, true);
        error = dp_xdp_compile_now(dp, &cmd->reply);
    } else {
        error = uncompile(dp, &cmd->reply);
    }
    if (error) {
        ds_put_format(&cmd->reply, "%s: %s\n", dp->name,
                      ovs_strerror(error));
        cmd->error = error;
    }
}

static void
compile_cmd_reply(struct unixctl_conn *conn, const char *dp_name,
                  const char *what)
{
    struct compile_cmd cmd = { .reply = DS_EMPTY_INITIALIZER, .what = what };

    if (!dp_xdp_foreach(dp_name, compile_cmd_run, &cmd)) {
        unixctl_command_reply_error(conn, "no such xdp datapath");
    } else if (cmd.error) {
        unixctl_command_reply_error(conn, ds_cstr(&cmd.reply));
    } else {
        unixctl_command_reply(conn, ds_cstr(&cmd.reply));
    }
    ds_destroy(&cmd.reply);
}

/* ovs-appctl dpif-xdp/compile-show [DP] */
static void
unixctl_compile_show(struct unixctl_conn *conn, int argc, const char *argv[],
                     void *aux OVS_UNUSED)
{
    compile_cmd_reply(conn, argc > 1 ? argv[1] : NULL, "show");
}

/* ovs-appctl dpif-xdp/compile [DP] */
static void
unixctl_compile(struct unixctl_conn *conn, int argc, const char *argv[],
                void *aux OVS_UNUSED)
{
    compile_cmd_reply(conn, argc > 1 ? argv[1] : NULL, "compile");
}

/* ovs-appctl dpif-xdp/reload [DP] */
static void
unixctl_reload(struct unixctl_conn *conn, int argc, const char *argv[],
               void *aux OVS_UNUSED)
{
    compile_cmd_reply(conn, argc > 1 ? argv[1] : NULL, "reload");
}

/* ovs-appctl dpif-xdp/compile-set on|off [DP] */
static void
unixctl_compile_set(struct unixctl_conn *conn, int argc, const char *argv[],
                    void *aux OVS_UNUSED)
{
    if (strcmp(argv[1], "on") && strcmp(argv[1], "off")) {
        unixctl_command_reply_error(conn, "expected \"on\" or \"off\"");
        return;
    }
    compile_cmd_reply(conn, argc > 2 ? argv[2] : NULL, argv[1]);
}

void
dp_xdp_compile_register_commands(void)
{
    unixctl_command_register("dpif-xdp/compile-show", "[dp]", 0, 1,
                             unixctl_compile_show, NULL);
    unixctl_command_register("dpif-xdp/compile", "[dp]", 0, 1,
                             unixctl_compile, NULL);
    unixctl_command_register("dpif-xdp/reload", "[dp]", 0, 1,
                             unixctl_reload, NULL);
    unixctl_command_register("dpif-xdp/compile-set", "on|off [dp]", 1, 2,
                             unixctl_compile_set, NULL);
}
