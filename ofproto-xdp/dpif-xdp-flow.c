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

/* The xdp datapath's flow table.
 *
 * A megaflow lives in two places.  ovs-vswitchd keeps it in 'flows', by
 * UFID, with the ODP key, mask and actions ofproto gave us (so that gets
 * and dumps return exactly those).  The XDP program sees it in the BPF
 * subtable of its mask: a hash map from masked 'struct xdp_flow_key' to
 * 'struct xdp_flow' (statistics slot, flags, compiled actions).  Each
 * distinct mask has a subtable slot, with a place in the order in which
 * the program visits subtables (dpif-xdp-subtable.c).  Flows in XDP also
 * leave metadata behind for the next ovs-vswitchd (dpif-xdp-flow-restore.c).
 *
 * A flow that matches what the XDP key cannot carry (an MPLS label, a
 * conntrack state, a mark: see xdp_flow_from_odp()) is "userspace-only":
 * it has no BPF entry, XDP misses its packets and the handler threads
 * classify them against it in ovs-vswitchd (dpif-xdp-uflow.c), which also
 * holds every flow that matches a nonzero recirc_id, for packets that
 * recirculate in ovs-vswitchd.
 *
 * Statistics slots
 * ================
 *
 * Every installed flow owns one slot of the mmapped statistics array (in
 * each of its lanes: one per CPU and ovs-vswitchd's, maps/flow-stats.c),
 * which the program updates, and ovs-vswitchd too for the packets it
 * classifies itself (xdp_flow_stats_add(), into its own lane).  A
 * deleted flow's slot is not reused at once: an XDP program that looked the
 * flow up just before the delete may still add to it.  BPF programs run
 * under RCU and take microseconds, so a slot freed more than
 * DP_XDP_SLOT_QUARANTINE_MS ago can no longer be written on the old flow's
 * behalf; only then does it go back to the pool, and it is zeroed when it
 * is handed out again.  Readers never confuse two flows: a flow's counters
 * are read only through its own slot while the flow is installed.
 *
 * Feature probes (DPIF_FP_PROBE) are kept in 'flows' only, never in BPF
 * maps: ofproto puts, gets and deletes them right away. */

#include <config.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "coverage.h"
#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dpif-xdp-private.h"
#include "flow.h"
#include "hash.h"
#include "odp-util.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/match.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "ofproto-xdp/xdp-actions.h"
#include "ofproto-xdp/xdp-flow.h"
#include "maps/map-info.h"
#include "maps/pin.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_flow);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

COVERAGE_DEFINE(xdp_flow_subtables_full);
COVERAGE_DEFINE(xdp_flow_table_full);
COVERAGE_DEFINE(xdp_flow_unspilled);

/* How often flows that spilled into ovs-vswitchd (all subtables in use)
 * are tried in XDP again while some remain. */
#define DP_XDP_UNSPILL_INTERVAL_MS 1000


struct quarantined_slot {
    struct ovs_list node;       /* In 'struct dp_xdp''s 'quarantine'. */
    uint32_t slot;              /* The slot. */
    long long int freed;        /* time_msec() when freed. */
};

/* Returns the value of environment variable 'name' if it is a number from 1
 * to 'max', otherwise 'max'. */
uint32_t
dp_xdp_env_limit(const char *name, uint32_t max)
{
    const char *s = getenv(name);
    unsigned int n;

    return s && str_to_uint(s, 10, &n) && n >= 1 && n < max ? n : max;
}

int
dp_xdp_flow_init(struct dp_xdp *dp)
{
    ovs_mutex_init(&dp->flow_mutex);
    hmap_init(&dp->flows);
    hmap_init(&dp->flows_by_key);
    dp_xdp_uflow_init(dp);
    /* The flow map's size is fixed when the program is built; the
     * environment can only lower it, so that tests reach the limit with a
     * few hundred flows rather than 262,144. */
    dp->max_flows = dp_xdp_env_limit("OVS_XDP_MAX_FLOWS", XDP_DP_MAX_FLOWS);
    slot_pool_init(&dp->slots, dp->max_flows);
    ovs_list_init(&dp->quarantine);
    dp->slot_flows = xcalloc(XDP_DP_MAX_FLOWS, sizeof *dp->slot_flows);
    for (int i = 0; i < XDP_DP_MAX_MASKS; i++) {
        dp->masks[i].map_fd = -1;
    }
    return 0;
}

static void
dp_xdp_flow_free(struct dp_xdp_flow *flow)
{
    ofpbuf_delete(flow->key);
    ofpbuf_delete(flow->mask);
    ofpbuf_delete(flow->actions);
    free(flow->why_slow);
    free(flow->why_uspace);
    if (flow->umatch) {
        minimatch_destroy(flow->umatch);
        free(flow->umatch);
    }
    free(flow);
}

void
dp_xdp_flow_destroy(struct dp_xdp *dp)
{
    struct quarantined_slot *q;
    struct dp_xdp_flow *flow;

    ovs_mutex_lock(&dp->flow_mutex);
    HMAP_FOR_EACH_POP (flow, node, &dp->flows) {
        dp_xdp_flow_free(flow);
    }
    for (int i = 0; i < XDP_DP_MAX_MASKS; i++) {
        if (dp->masks[i].map_fd >= 0) {
            close(dp->masks[i].map_fd);
        }
    }
    LIST_FOR_EACH_POP (q, node, &dp->quarantine) {
        free(q);
    }
    ovs_mutex_unlock(&dp->flow_mutex);

    hmap_destroy(&dp->flows);
    hmap_destroy(&dp->flows_by_key);
    dp_xdp_uflow_destroy(dp);
    slot_pool_destroy(&dp->slots);
    free(dp->slot_flows);
    ovs_mutex_destroy(&dp->flow_mutex);
}

/* Statistics slots. */

static bool
slot_alloc(struct dp_xdp *dp, uint32_t *slot)
    OVS_REQUIRES(dp->flow_mutex)
{
    long long int now = time_msec();
    struct quarantined_slot *q;

    LIST_FOR_EACH_SAFE (q, node, &dp->quarantine) {
        if (now - q->freed < DP_XDP_SLOT_QUARANTINE_MS) {
            break;              /* The list is in order of freeing. */
        }
        ovs_list_remove(&q->node);
        slot_pool_free(&dp->slots, q->slot);
        free(q);
    }
    if (!slot_pool_alloc(&dp->slots, slot)) {
        return false;
    }
    xdp_flow_stats_clear(&dp->stats_map, *slot);
    return true;
}

static void
slot_free(struct dp_xdp *dp, uint32_t slot)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct quarantined_slot *q = xmalloc(sizeof *q);

    q->slot = slot;
    q->freed = time_msec();
    ovs_list_push_back(&dp->quarantine, &q->node);
}

/* Flows. */

static struct dp_xdp_flow *
flow_find(struct dp_xdp *dp, const ovs_u128 *ufid)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct dp_xdp_flow *flow;

    HMAP_FOR_EACH_WITH_HASH (flow, node, ufid->u32[0], &dp->flows) {
        if (ovs_u128_equals(flow->ufid, *ufid)) {
            return flow;
        }
    }
    return NULL;
}

uint32_t
dp_xdp_flow_key_hash(int mask_slot, const struct xdp_flow_key *xkey)
{
    return hash_bytes(xkey, sizeof *xkey, mask_slot);
}

/* Finds the flow in subtable 'mask_slot' whose masked key is 'xkey'.  The
 * kernel's batched updates cannot refuse an existing key (they take no
 * BPF_NOEXIST), so a second flow with the same key is caught here. */
static struct dp_xdp_flow *
flow_find_by_key(struct dp_xdp *dp, int mask_slot,
                 const struct xdp_flow_key *xkey)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct dp_xdp_flow *flow;

    HMAP_FOR_EACH_WITH_HASH (flow, key_node,
                             dp_xdp_flow_key_hash(mask_slot, xkey),
                             &dp->flows_by_key) {
        if (flow->mask_slot == mask_slot
            && !memcmp(&flow->xkey, xkey, sizeof *xkey)) {
            return flow;
        }
    }
    return NULL;
}

/* ofproto passes a UFID with every operation once the datapath supports
 * them; without one, the flow is named by the hash of its key, as
 * dpif-netdev does. */
static ovs_u128
flow_ufid(const ovs_u128 *ufid, const struct nlattr *key, size_t key_len)
{
    ovs_u128 hash;

    if (ufid) {
        return *ufid;
    }
    odp_flow_key_hash(key, key_len, &hash);
    return hash;
}

static bool
flow_in_xdp(const struct dp_xdp_flow *flow)
{
    return flow->mask_slot >= 0;
}

/* Whether 'flow' has a statistics slot: every flow but a probe. */
static bool
flow_has_slot(const struct dp_xdp_flow *flow)
{
    return flow_in_xdp(flow) || flow->uspace_only;
}

/* Stores 'flow''s statistics since install or last zeroing in '*stats'. */
static void
flow_get_stats(struct dp_xdp *dp, const struct dp_xdp_flow *flow,
               struct dpif_flow_stats *stats)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct xdp_flow_stats s;

    memset(stats, 0, sizeof *stats);
    if (!flow_has_slot(flow)) {
        return;
    }
    xdp_flow_stats_read(&dp->stats_map, flow->xflow.slot, &s);
    stats->n_packets = s.n_packets - flow->base.n_packets;
    stats->n_bytes = s.n_bytes - flow->base.n_bytes;
    /* Both bpf_ktime_get_ns() and time_msec() count CLOCK_MONOTONIC. */
    stats->used = s.used != flow->base.used ? s.used / 1000000 : 0;
    stats->tcp_flags = s.tcp_flags;
}

static void
flow_zero_stats(struct dp_xdp *dp, struct dp_xdp_flow *flow)
    OVS_REQUIRES(dp->flow_mutex)
{
    if (flow_has_slot(flow)) {
        /* The program keeps adding: remember where zero is. */
        xdp_flow_stats_read(&dp->stats_map, flow->xflow.slot, &flow->base);
    }
}

/* How flows are written to subtable 'mask_slot' (see maps/map-batch.c),
 * with 'flags' for updates. */
static struct xdp_map_batch
subtable_batch(struct dp_xdp *dp, int mask_slot, uint64_t flags)
    OVS_REQUIRES(dp->flow_mutex)
{
    return (struct xdp_map_batch) {
        .fd = dp->masks[mask_slot].map_fd,
        .key_size = sizeof(struct xdp_flow_key),
        .value_size = sizeof(struct xdp_flow),
        .flags = flags,
        .calls = &dp->calls,
    };
}

/* Writes 'flow' into its BPF subtable with 'flags' (BPF_ANY, BPF_EXIST or
 * BPF_NOEXIST).  Returns 0 or a positive errno. */
static int
flow_write_one(struct dp_xdp *dp, struct dp_xdp_flow *flow, uint64_t flags)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct xdp_map_batch mb = subtable_batch(dp, flow->mask_slot, flags);
    int error;

    xdp_map_batch_update(&mb, &flow->xkey, &flow->xflow, 1, &error);
    return error;
}

void
dp_xdp_flow_set_actions(struct dp_xdp_flow *flow,
                        const struct nlattr *actions, size_t actions_len)
{
    struct ds why = DS_EMPTY_INITIALIZER;
    uint32_t slot = flow->xflow.slot;

    ofpbuf_delete(flow->actions);
    flow->actions = ofpbuf_clone_data(actions, actions_len);

    memset(&flow->xflow, 0, sizeof flow->xflow);
    xdp_actions_compile(actions, actions_len, &flow->xflow, &why);
    flow->xflow.slot = slot;
    free(flow->why_slow);
    flow->why_slow = (flow->xflow.flags & XDP_FLOW_F_SLOW_PATH
                      ? ds_steal_cstr(&why) : NULL);
    ds_destroy(&why);
}

/* Tells the compiler if 'flow' has an action the running program has no
 * code for: the compiler swaps the generic program in at once, or with
 * automatic compiles off, the flow's packets go to ovs-vswitchd. */
static void
flow_check_actions(struct dp_xdp *dp, const struct dp_xdp_flow *flow)
    OVS_REQUIRES(dp->flow_mutex)
{
    if (flow->xflow.action_bits & ~dp->live_action_bits) {
        dp_xdp_compile_table_changed(dp, true);
    }
}

/* Whether ovs-vswitchd can classify packets against 'match', a flow that
 * XDP cannot take (see dpif-xdp-uflow.c).  Any field of 'struct flow' can
 * be matched in userspace, but a match on conntrack fields makes sense
 * only where ct() runs: without it, feature probes must learn that the
 * datapath has no conntrack.  If not, appends why to 'why'. */
static bool
uspace_can_match(const struct dp_xdp *dp, const struct match *match,
                 struct ds *why)
{
    const struct flow_wildcards *wc = &match->wc;

    if (dp->conntrack) {
        return true;
    }
    if (wc->masks.ct_state || wc->masks.ct_zone || wc->masks.ct_mark
        || !ovs_u128_is_zero(wc->masks.ct_label) || wc->masks.ct_nw_proto
        || wc->masks.ct_nw_src || wc->masks.ct_nw_dst
        || ipv6_addr_is_set(&wc->masks.ct_ipv6_src)
        || ipv6_addr_is_set(&wc->masks.ct_ipv6_dst)
        || wc->masks.ct_tp_src || wc->masks.ct_tp_dst) {
        ds_put_cstr(why, " (no connection tracking)");
        return false;
    }
    return true;
}

/* Whether a feature probe's 'actions' should be reported as supported.
 * ofproto probes the hash algorithms by installing a flow with a hash
 * action and uses the highest that works for select groups; XDP runs only
 * OVS_HASH_ALG_L4 (xdp-actions.c), so the others, which ovs-vswitchd could
 * run in a slow-path flow, are refused: then groups hash with l4, in XDP,
 * and every packet does not go through ovs-vswitchd. */
static bool
probe_actions_ok(const struct nlattr *actions, size_t actions_len)
{
    const struct nlattr *a;
    size_t left;

    NL_ATTR_FOR_EACH (a, left, actions, actions_len) {
        if (nl_attr_type(a) == OVS_ACTION_ATTR_HASH
            && nl_attr_get_size(a) == sizeof(struct ovs_action_hash)) {
            const struct ovs_action_hash *hash = nl_attr_get(a);

            if (hash->hash_alg != OVS_HASH_ALG_L4) {
                return false;
            }
        }
    }
    return true;
}

/* Looks up the packet whose flow (as flow_extract() makes it, metadata
 * included) is 'flow' and whose length is 'n_bytes' in the flows that
 * ovs-vswitchd classifies against.  On a hit, counts the packet in the
 * flow's statistics slot, as the XDP program counts the packets it
 * classifies (in ovs-vswitchd's lane of the same array), stores a copy of
 * the flow's actions in '*actions' and returns true.  Counting under
 * 'flow_mutex' keeps the flow and its slot together: the program may add
 * to a freed slot for as long as an RCU grace period, a handler thread
 * after a lookup for any time at all. */
bool
dp_xdp_flow_lookup_uspace(struct dp_xdp *dp, const struct flow *flow,
                          size_t n_bytes, struct ofpbuf **actions)
{
    uint16_t tcp_flags = (flow->nw_proto == IPPROTO_TCP
                          ? ntohs(flow->tcp_flags) : 0);
    struct dp_xdp_flow *f;

    ovs_mutex_lock(&dp->flow_mutex);
    f = dp_xdp_uflow_lookup(dp, flow);
    if (f) {
        xdp_flow_stats_add(&dp->stats_map, f->xflow.slot, n_bytes,
                           tcp_flags, time_msec() * 1000000ULL);
        *actions = ofpbuf_clone(f->actions);
    }
    ovs_mutex_unlock(&dp->flow_mutex);
    return f != NULL;
}

/* Flow installation comes in two steps, so that a burst of puts can reach
 * the kernel in one BPF_MAP_UPDATE_BATCH per subtable: flow_put_prepare()
 * does everything but the BPF update (the new flow is already in 'flows',
 * so a later put of the same UFID in the same burst sees it), then
 * flow_put_finish() or flow_put_abort() settles it. */

/* Prepares 'put'.  Returns 0 or a positive errno.  On success, if a new flow
 * must still be added to its BPF subtable, stores it in '*pendingp',
 * otherwise NULL. */
static int
flow_put_prepare(struct dp_xdp *dp, struct dpif_flow_put *put,
                 struct dp_xdp_flow **pendingp)
    OVS_REQUIRES(dp->flow_mutex)
{
    bool probe = put->flags & DPIF_FP_PROBE;
    struct xdp_flow_key xkey, xmask;
    struct ds why = DS_EMPTY_INITIALIZER;
    struct dp_xdp_flow *flow;
    bool uspace_only = false;
    char *why_uspace;
    struct match match;
    ovs_u128 ufid;
    int error;

    *pendingp = NULL;
    error = xdp_flow_from_odp(put->key, put->key_len, put->mask,
                              put->mask_len, &xkey, &xmask, &match, &why);
    if (error == EOPNOTSUPP && uspace_can_match(dp, &match, &why)) {
        /* ovs-vswitchd classifies packets against it instead. */
        uspace_only = true;
        error = 0;
    }
    if (!error && probe && !probe_actions_ok(put->actions,
                                             put->actions_len)) {
        error = EINVAL;
    }
    if (error) {
        if (!probe) {
            VLOG_WARN_RL(&rl, "%s: cannot install flow: %s",
                         dp->name, ds_cstr(&why));
        }
        ds_destroy(&why);
        /* EINVAL tells ofproto's feature probes "not supported" without a
         * warning of its own. */
        return probe ? EINVAL : error;
    }
    why_uspace = uspace_only ? ds_steal_cstr(&why) : NULL;
    ds_destroy(&why);

    ufid = flow_ufid(put->ufid, put->key, put->key_len);
    if (put->stats) {
        memset(put->stats, 0, sizeof *put->stats);
    }

    flow = flow_find(dp, &ufid);
    if (flow || !(put->flags & DPIF_FP_CREATE)) {
        free(why_uspace);
    }
    if (flow) {
        if (!(put->flags & DPIF_FP_MODIFY)) {
            return EEXIST;
        }
        if (put->stats) {
            flow_get_stats(dp, flow, put->stats);
        }
        dp_xdp_flow_set_actions(flow, put->actions, put->actions_len);
        if (flow_in_xdp(flow)) {
            error = flow_write_one(dp, flow, BPF_EXIST);
            if (error) {
                VLOG_WARN_RL(&rl, "%s: cannot modify flow in XDP (%s)",
                             dp->name, ovs_strerror(error));
                return error;
            }
            dp_xdp_compile_write_flows(dp, flow->mask_slot, &flow, 1, true);
            flow_check_actions(dp, flow);
        }
        if (flow_in_xdp(flow)) {
            dp_xdp_flow_ids_set(dp, flow);
            dp_xdp_flow_meta_write(dp, &flow, 1);
        }
        if (put->flags & DPIF_FP_ZERO_STATS) {
            flow_zero_stats(dp, flow);
        }
        return 0;
    }

    if (!(put->flags & DPIF_FP_CREATE)) {
        return ENOENT;
    }

    flow = xzalloc(sizeof *flow);
    flow->ufid = ufid;
    flow->key = ofpbuf_clone_data(put->key, put->key_len);
    flow->mask = ofpbuf_clone_data(put->mask, put->mask_len);
    flow->xkey = xkey;
    flow->mask_slot = -1;
    flow->uspace_only = uspace_only && !probe;
    flow->why_uspace = why_uspace;
    dp_xdp_flow_set_actions(flow, put->actions, put->actions_len);

    if (!probe) {
        uint32_t slot;
        int mask_slot;

        if (!slot_alloc(dp, &slot)) {
            /* Every statistics slot is taken: the flow map is full.
             * ofproto keeps the flow's packets in ovs-vswitchd (each one
             * an upcall) and installs it once flows have gone; its own
             * flow-limit (200,000 by default) normally stops short of
             * this. */
            static struct vlog_rate_limit full_rl = VLOG_RATE_LIMIT_INIT(1, 5);

            COVERAGE_INC(xdp_flow_table_full);
            VLOG_WARN_RL(&full_rl, "%s: the flow table is full (%"PRIu32" "
                         "flows): packets of new flows run in ovs-vswitchd",
                         dp->name, dp->max_flows);
            dp_xdp_flow_free(flow);
            return EFBIG;
        }
        bool in_uflows = dp_xdp_uflow_wanted(flow, &match);
        if (in_uflows) {
            dp_xdp_uflow_insert(dp, flow, &match);
        }
        mask_slot = uspace_only ? -1 : dp_xdp_mask_ref(dp, &xmask);
        if (mask_slot == -EFBIG) {
            /* Every subtable of XDP is in use (or freed too recently to
             * take another mask): rather than refuse the flow, and send
             * every packet of it up as a miss that ofproto cannot
             * install, ovs-vswitchd classifies its packets itself
             * (dpif-xdp-uflow.c).  New flows of a mask go to XDP again
             * once a subtable is free. */
            static struct vlog_rate_limit full_rl = VLOG_RATE_LIMIT_INIT(1, 5);

            COVERAGE_INC(xdp_flow_subtables_full);
            VLOG_WARN_RL(&full_rl, "%s: all %d XDP subtables are in use: "
                         "flows of other masks run in ovs-vswitchd",
                         dp->name, XDP_DP_MAX_MASKS);
            uspace_only = flow->uspace_only = true;
            flow->spilled = true;
            dp->n_spilled++;
            free(flow->why_uspace);
            flow->why_uspace = xasprintf("all %d XDP subtables in use",
                                         XDP_DP_MAX_MASKS);
            if (!in_uflows) {
                dp_xdp_uflow_insert(dp, flow, &match);
            }
        }
        if (uspace_only) {
            /* Nothing to add to BPF maps: settled here. */
            flow->xflow.slot = slot;
            hmap_insert(&dp->flows, &flow->node, ufid.u32[0]);
            dp->slot_flows[slot] = flow;
            dp->n_flows++;
            return 0;
        }
        if (mask_slot < 0) {
            dp_xdp_uflow_remove(dp, flow);
            slot_free(dp, slot);
            dp_xdp_flow_free(flow);
            return -mask_slot;
        }
        if (flow_find_by_key(dp, mask_slot, &xkey)) {
            dp_xdp_uflow_remove(dp, flow);
            dp_xdp_mask_unref(dp, mask_slot);
            slot_free(dp, slot);
            dp_xdp_flow_free(flow);
            return EEXIST;
        }
        flow->xflow.slot = slot;
        flow->mask_slot = mask_slot;
        hmap_insert(&dp->flows_by_key, &flow->key_node,
                    dp_xdp_flow_key_hash(mask_slot, &xkey));
        *pendingp = flow;
    }
    hmap_insert(&dp->flows, &flow->node, ufid.u32[0]);
    return 0;
}

/* The fields of the key that a cache entry of the connection cache fixes
 * for every packet of its direction in the pass after its ct(): a flow
 * that the pass after a cached ct() found may be remembered for the
 * direction only if its mask touches nothing else but whole Ethernet
 * addresses, which the program compares itself (see "The pass after a
 * cached ct()" in datapath/xdp-dp.h).  The ingress port and the
 * recirculation id are those the record is for; a packet that XDP's ct()
 * passes is never a fragment, so 'nw_frag' is 0 for all of them. */
static const struct xdp_flow_key *
ct_fixed_fields(void)
{
    static struct xdp_flow_key fixed;
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        memset(&fixed.recirc_id, 0xff, sizeof fixed.recirc_id);
        memset(&fixed.in_port, 0xff, sizeof fixed.in_port);
        memset(&fixed.ct_mark, 0xff, sizeof fixed.ct_mark);
        memset(&fixed.ct_state, 0xff, sizeof fixed.ct_state);
        memset(&fixed.ct_nw_proto, 0xff, sizeof fixed.ct_nw_proto);
        memset(&fixed.ct_zone, 0xff, sizeof fixed.ct_zone);
        memset(&fixed.ct_nw_src, 0xff, sizeof fixed.ct_nw_src);
        memset(&fixed.ct_nw_dst, 0xff, sizeof fixed.ct_nw_dst);
        memset(&fixed.ct_tp_src, 0xff, sizeof fixed.ct_tp_src);
        memset(&fixed.ct_tp_dst, 0xff, sizeof fixed.ct_tp_dst);
        memset(fixed.ct_label, 0xff, sizeof fixed.ct_label);
        memset(&fixed.eth_type, 0xff, sizeof fixed.eth_type);
        memset(&fixed.nw_src, 0xff, sizeof fixed.nw_src);
        memset(&fixed.nw_dst, 0xff, sizeof fixed.nw_dst);
        memset(fixed.ipv6_src, 0xff, sizeof fixed.ipv6_src);
        memset(fixed.ipv6_dst, 0xff, sizeof fixed.ipv6_dst);
        memset(&fixed.nw_frag, 0xff, sizeof fixed.nw_frag);
        memset(&fixed.nw_proto, 0xff, sizeof fixed.nw_proto);
        memset(&fixed.tp_src, 0xff, sizeof fixed.tp_src);
        memset(&fixed.tp_dst, 0xff, sizeof fixed.tp_dst);
        ovsthread_once_done(&once);
    }
    return &fixed;
}

/* Whether the Ethernet address 'a' of a mask is all ones ('*exact': the
 * flow matches that address exactly) or all zeros; false if the flow
 * matches some of its bits only. */
static bool
eth_mask_whole(const uint8_t a[6], bool *exact)
{
    *exact = eth_addr_is_broadcast(*(const struct eth_addr *) a);
    return *exact || eth_addr_is_zero(*(const struct eth_addr *) a);
}

/* The output port plus one of 'flow', with XDP_DP_FLOW_IDS_F_ETH_* for
 * the Ethernet addresses it matches, if the pass after a cached ct() may
 * skip straight to it: a flow in XDP whose only action is one output and
 * whose mask touches only what the cache entry fixes, and whole Ethernet
 * addresses (which the program compares).  Otherwise 0. */
static uint64_t
flow_ct_next_port1(const struct dp_xdp *dp, const struct dp_xdp_flow *flow)
    OVS_REQUIRES(dp->flow_mutex)
{
    const struct xdp_flow *xf = &flow->xflow;

    if (!flow_in_xdp(flow) || xf->flags & XDP_FLOW_F_SLOW_PATH
        || xf->n_actions != 1 || xf->actions[0].type != XDP_DP_ACTION_OUTPUT
        || xf->actions[0].output.port >= DP_XDP_MAX_PORTS) {
        return 0;
    }

    const struct xdp_flow_key *mask = &dp->masks[flow->mask_slot].mask;
    struct xdp_flow_key m = *mask;
    const uint8_t *fixed = (const uint8_t *) ct_fixed_fields();
    bool dst, src;

    /* Only untagged frames skip the pass (ct_next_lookup()), and a flow
     * that matches "no VLAN" matches them all. */
    if (!flow->xkey.vlans[0].tci
        && mask->vlans[0].tci & htons(XDP_VLAN_CFI)) {
        memset(m.vlans, 0, sizeof m.vlans);
    }
    if (!eth_mask_whole(mask->eth_dst, &dst)
        || !eth_mask_whole(mask->eth_src, &src)) {
        return 0;
    }
    memset(m.eth_dst, 0, sizeof m.eth_dst);
    memset(m.eth_src, 0, sizeof m.eth_src);
    for (size_t i = 0; i < sizeof m; i++) {
        if (((const uint8_t *) &m)[i] & ~fixed[i]) {
            return 0;
        }
    }
    /* ICMP's code is in the key's 'tp_dst' but not in a cache entry's
     * tuple (which has the echo identifier and the type). */
    if (mask->tp_dst && (flow->xkey.nw_proto == IPPROTO_ICMP
                         || flow->xkey.nw_proto == IPPROTO_ICMPV6
                         || mask->nw_proto != 0xff)) {
        return 0;
    }
    return ((xf->actions[0].output.port + 1)
            | (dst ? XDP_DP_FLOW_IDS_F_ETH_DST : 0)
            | (src ? XDP_DP_FLOW_IDS_F_ETH_SRC : 0));
}

/* Gives 'flow''s statistics slot a new id in 'xdp_dp_flow_ids', and its
 * output if the pass after a cached ct() may skip to it: whatever the
 * program remembered of the flow that had the slot, or of this flow before
 * its actions changed, no longer holds.  The id is zero while the
 * addresses are written (see "The pass after a cached ct()" in
 * datapath/xdp-dp.h). */
void
dp_xdp_flow_ids_set(struct dp_xdp *dp, const struct dp_xdp_flow *flow)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct xdp_dp_flow_ids *fi;
    uint32_t id;

    if (!dp->flow_ids) {
        return;
    }
    do {
        id = dp->next_flow_id++ & XDP_DP_FLOW_ID_MASK;
    } while (!id);
    fi = &dp->flow_ids[flow->xflow.slot];
    __atomic_store_n(&fi->ids, 0, __ATOMIC_SEQ_CST);
    memcpy(fi->eth_dst, flow->xkey.eth_dst, sizeof fi->eth_dst);
    memcpy(fi->eth_src, flow->xkey.eth_src, sizeof fi->eth_src);
    __atomic_store_n(&fi->ids,
                     XDP_DP_FLOW_IDS(id, 0) | flow_ct_next_port1(dp, flow),
                     __ATOMIC_RELEASE);
}

/* Forgets the flow in statistics 'slot' in 'xdp_dp_flow_ids'. */
static void
flow_ids_clear(struct dp_xdp *dp, uint32_t slot)
    OVS_REQUIRES(dp->flow_mutex)
{
    if (dp->flow_ids) {
        __atomic_store_n(&dp->flow_ids[slot].ids, 0, __ATOMIC_RELAXED);
    }
}

/* 'flow' made it into its BPF subtable. */
static void
flow_put_finish(struct dp_xdp *dp, struct dp_xdp_flow *flow)
    OVS_REQUIRES(dp->flow_mutex)
{
    dp->slot_flows[flow->xflow.slot] = flow;
    dp->n_flows++;
    dp_xdp_flow_ids_set(dp, flow);
    flow_check_actions(dp, flow);
}

/* 'flow' could not be added to its BPF subtable, for 'error'. */
static void
flow_put_abort(struct dp_xdp *dp, struct dp_xdp_flow *flow, int error)
    OVS_REQUIRES(dp->flow_mutex)
{
    if (error != EEXIST) {
        VLOG_WARN_RL(&rl, "%s: cannot install flow in XDP (%s)",
                     dp->name, ovs_strerror(error));
    }
    hmap_remove(&dp->flows, &flow->node);
    hmap_remove(&dp->flows_by_key, &flow->key_node);
    dp_xdp_uflow_remove(dp, flow);
    dp_xdp_mask_unref(dp, flow->mask_slot);
    slot_free(dp, flow->xflow.slot);
    dp_xdp_flow_free(flow);
}

/* Adds 'flow' to its subtable with one system call.  Returns 0 or a
 * positive errno. */
static int
flow_put_commit_one(struct dp_xdp *dp, struct dp_xdp_flow *flow)
    OVS_REQUIRES(dp->flow_mutex)
{
    int error = flow_write_one(dp, flow, BPF_NOEXIST);

    if (error) {
        flow_put_abort(dp, flow, error);
        return error;
    }
    flow_put_finish(dp, flow);
    dp_xdp_compile_write_flows(dp, flow->mask_slot, &flow, 1, true);
    dp_xdp_flow_meta_write(dp, &flow, 1);
    return 0;
}

int
dp_xdp_flow_put(struct dp_xdp *dp, struct dpif_flow_put *put)
{
    struct dp_xdp_flow *pending;
    int error;

    ovs_mutex_lock(&dp->flow_mutex);
    error = flow_put_prepare(dp, put, &pending);
    if (!error && pending) {
        error = flow_put_commit_one(dp, pending);
    }
    ovs_mutex_unlock(&dp->flow_mutex);
    return error;
}

/* Spilled flows.
 *
 * A flow that found all XDP subtables in use runs in ovs-vswitchd
 * ('spilled').  ofproto keeps a busy flow for as long as it is busy, so
 * waiting for it to be replaced could keep it there for good; instead, while
 * spilled flows remain, dp_xdp_flow_run() tries every
 * DP_XDP_UNSPILL_INTERVAL_MS to give each a subtable and moves those it
 * can into XDP in place: same UFID, same statistics slot, so ofproto sees
 * nothing but its 'dp:xdp'. */

/* Tries to move spilled 'flow' into XDP.  Returns false if no subtable is
 * free for it. */
static bool
flow_unspill(struct dp_xdp *dp, struct dp_xdp_flow *flow)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct xdp_flow_key xkey, xmask;
    struct match match;
    int mask_slot;

    if (xdp_flow_from_odp(flow->key->data, flow->key->size,
                          flow->mask->data, flow->mask->size,
                          &xkey, &xmask, &match, NULL)) {
        return true;            /* Cannot happen: it fitted at install. */
    }
    mask_slot = dp_xdp_mask_ref(dp, &xmask);
    if (mask_slot < 0) {
        return false;
    }
    if (flow_find_by_key(dp, mask_slot, &xkey)) {
        /* An XDP flow with the same key took over meanwhile. */
        dp_xdp_mask_unref(dp, mask_slot);
        return true;
    }
    flow->xkey = xkey;
    flow->mask_slot = mask_slot;
    int error = flow_write_one(dp, flow, BPF_NOEXIST);

    if (error) {
        VLOG_WARN_RL(&rl, "%s: cannot move flow into XDP (%s)", dp->name,
                     ovs_strerror(error));
        flow->mask_slot = -1;
        dp_xdp_mask_unref(dp, mask_slot);
        return true;
    }
    hmap_insert(&dp->flows_by_key, &flow->key_node,
                dp_xdp_flow_key_hash(mask_slot, &xkey));
    /* XDP has it now: ovs-vswitchd's copy can go, unless it is wanted
     * there for other reasons. */
    flow->uspace_only = false;
    flow->spilled = false;
    dp->n_spilled--;
    free(flow->why_uspace);
    flow->why_uspace = NULL;
    if (!dp_xdp_uflow_wanted(flow, &match)) {
        dp_xdp_uflow_remove(dp, flow);
    }
    dp_xdp_compile_write_flows(dp, flow->mask_slot, &flow, 1, true);
    dp_xdp_flow_meta_write(dp, &flow, 1);
    dp_xdp_flow_ids_set(dp, flow);
    flow_check_actions(dp, flow);
    COVERAGE_INC(xdp_flow_unspilled);
    return true;
}

/* Periodic flow work: moves spilled flows into XDP where subtables free
 * up. */
void
dp_xdp_flow_run(struct dp_xdp *dp)
{
    struct dp_xdp_flow *flow;
    size_t n_moved = 0;

    ovs_mutex_lock(&dp->flow_mutex);
    if (dp->n_spilled && time_msec() >= dp->next_unspill) {
        size_t before = dp->n_spilled;

        HMAP_FOR_EACH (flow, node, &dp->flows) {
            if (flow->spilled && !flow_unspill(dp, flow)) {
                break;
            }
        }
        n_moved = before - dp->n_spilled;
        dp->next_unspill = time_msec() + DP_XDP_UNSPILL_INTERVAL_MS;
    }
    ovs_mutex_unlock(&dp->flow_mutex);
    if (n_moved) {
        VLOG_INFO("%s: moved %"PRIuSIZE" flows from ovs-vswitchd into XDP "
                  "subtables that became free", dp->name, n_moved);
    }
}

void
dp_xdp_flow_wait(struct dp_xdp *dp)
{
    ovs_mutex_lock(&dp->flow_mutex);
    if (dp->n_spilled) {
        poll_timer_wait_until(dp->next_unspill);
    }
    ovs_mutex_unlock(&dp->flow_mutex);
}

/* A flow waiting for a batched BPF operation, and the op it came from. */
struct pending_op {
    struct dp_xdp_flow *flow;   /* The flow. */
    int *errorp;                /* Where the op's result goes. */
    size_t order;               /* Position in the burst (stable sort). */
};

static int
compare_pending(const void *a_, const void *b_)
{
    const struct pending_op *a = a_, *b = b_;

    if (a->flow->mask_slot != b->flow->mask_slot) {
        return a->flow->mask_slot < b->flow->mask_slot ? -1 : 1;
    }
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Runs the length-'n' run of 'ops' that are all DPIF_OP_FLOW_PUT.  New
 * flows reach each BPF subtable in one BPF_MAP_UPDATE_BATCH, or as few as
 * the kernel allows, and each op gets its own result (see
 * maps/map-batch.c).  BPF_ANY: 'flows_by_key' already refused keys that
 * are installed. */
void
dp_xdp_flow_put_batch(struct dp_xdp *dp, struct dpif_op **ops, size_t n)
{
    struct pending_op *pend = xmalloc(n * sizeof *pend);
    size_t n_pend = 0;

    ovs_mutex_lock(&dp->flow_mutex);
    for (size_t i = 0; i < n; i++) {
        struct dp_xdp_flow *flow;

        ops[i]->error = flow_put_prepare(dp, &ops[i]->flow_put, &flow);
        if (!ops[i]->error && flow) {
            pend[n_pend++] = (struct pending_op) {
                .flow = flow, .errorp = &ops[i]->error, .order = i,
            };
        }
    }
    qsort(pend, n_pend, sizeof *pend, compare_pending);

    struct xdp_flow_key *keys = xmalloc(n_pend * sizeof *keys);
    struct xdp_flow *values = xmalloc(n_pend * sizeof *values);
    int *errors = xmalloc(n_pend * sizeof *errors);
    struct dp_xdp_flow **batched = xmalloc(n_pend * sizeof *batched);
    size_t n_batched = 0;
    for (size_t start = 0, end; start < n_pend; start = end) {
        int mask_slot = pend[start].flow->mask_slot;

        for (end = start;
             end < n_pend && pend[end].flow->mask_slot == mask_slot; end++) {
            keys[end - start] = pend[end].flow->xkey;
            values[end - start] = pend[end].flow->xflow;
        }

        struct xdp_map_batch mb = subtable_batch(dp, mask_slot, BPF_ANY);
        size_t first = n_batched;

        xdp_map_batch_update(&mb, keys, values, end - start, errors);
        for (size_t j = start; j < end; j++) {
            int error = errors[j - start];

            *pend[j].errorp = error;
            if (error) {
                flow_put_abort(dp, pend[j].flow, error);
            } else {
                flow_put_finish(dp, pend[j].flow);
                batched[n_batched++] = pend[j].flow;
            }
        }
        dp_xdp_compile_write_flows(dp, mask_slot, &batched[first],
                                   n_batched - first, true);
    }
    dp_xdp_flow_meta_write(dp, batched, n_batched);
    ovs_mutex_unlock(&dp->flow_mutex);

    free(batched);
    free(errors);
    free(keys);
    free(values);
    free(pend);
}

/* Removes 'flow' from 'flows' and the statistics slots; its BPF entry is
 * deleted by the caller, after which flow_del_finish() releases the rest. */
static void
flow_del_prepare(struct dp_xdp *dp, struct dp_xdp_flow *flow)
    OVS_REQUIRES(dp->flow_mutex)
{
    hmap_remove(&dp->flows, &flow->node);
    dp_xdp_uflow_remove(dp, flow);
    if (flow_in_xdp(flow)) {
        hmap_remove(&dp->flows_by_key, &flow->key_node);
    }
    if (flow->spilled) {
        dp->n_spilled--;
    }
    if (flow_has_slot(flow)) {
        dp->slot_flows[flow->xflow.slot] = NULL;
        flow_ids_clear(dp, flow->xflow.slot);
    }
}

static void
flow_del_finish(struct dp_xdp *dp, struct dp_xdp_flow *flow)
    OVS_REQUIRES(dp->flow_mutex)
{
    if (flow_has_slot(flow)) {
        slot_free(dp, flow->xflow.slot);
        dp->n_flows--;
    }
    if (flow_in_xdp(flow)) {
        dp_xdp_mask_unref(dp, flow->mask_slot);
    }
    dp_xdp_flow_free(flow);
}

/* Deletes the 'n' flows in 'flows', all of subtable 'mask_slot', from it
 * and from its compact map, in as few system calls as the kernel allows
 * (see maps/map-batch.c). */
static void
flows_del_bpf__(struct dp_xdp *dp, int mask_slot, struct dp_xdp_flow **flows,
                size_t n)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct xdp_map_batch mb = subtable_batch(dp, mask_slot, 0);
    struct xdp_flow_key *keys = xmalloc(n * sizeof *keys);

    dp_xdp_compile_write_flows(dp, mask_slot, flows, n, false);
    for (size_t i = 0; i < n; i++) {
        keys[i] = flows[i]->xkey;
    }
    size_t n_done = xdp_map_batch_delete(&mb, keys, n, NULL);
    if (n_done < n) {
        VLOG_WARN_RL(&rl, "%s: cannot delete %"PRIuSIZE" of %"PRIuSIZE
                     " flows from XDP", dp->name, n - n_done, n);
    }
    free(keys);
}

static void
flow_del_bpf_one(struct dp_xdp *dp, struct dp_xdp_flow *flow)
    OVS_REQUIRES(dp->flow_mutex)
{
    flows_del_bpf__(dp, flow->mask_slot, &flow, 1);
}

static void
flow_remove(struct dp_xdp *dp, struct dp_xdp_flow *flow)
    OVS_REQUIRES(dp->flow_mutex)
{
    flow_del_prepare(dp, flow);
    if (flow_in_xdp(flow)) {
        uint32_t slot = flow->xflow.slot;

        flow_del_bpf_one(dp, flow);
        dp_xdp_flow_meta_delete(dp, &slot, 1);
    }
    flow_del_finish(dp, flow);
}

int
dp_xdp_flow_del(struct dp_xdp *dp, struct dpif_flow_del *del)
{
    ovs_u128 ufid = flow_ufid(del->ufid, del->key, del->key_len);
    struct dp_xdp_flow *flow;
    int error = 0;

    ovs_mutex_lock(&dp->flow_mutex);
    flow = flow_find(dp, &ufid);
    if (flow) {
        if (del->stats) {
            flow_get_stats(dp, flow, del->stats);
        }
        flow_remove(dp, flow);
    } else {
        error = ENOENT;
    }
    ovs_mutex_unlock(&dp->flow_mutex);
    return error;
}

/* Deletes the 'n_pend' flows in 'pend' (already out of 'flows', see
 * flow_del_prepare()) from their BPF subtables and the flow metadata, with
 * one BPF_MAP_DELETE_BATCH per subtable (one call per flow where the kernel
 * stops part-way, for the rest), then releases them. */
static void
flows_delete_bpf(struct dp_xdp *dp, struct pending_op *pend, size_t n_pend)
    OVS_REQUIRES(dp->flow_mutex)
{
    qsort(pend, n_pend, sizeof *pend, compare_pending);

    struct dp_xdp_flow **flows = xmalloc(n_pend * sizeof *flows);
    uint32_t *slots = xmalloc(n_pend * sizeof *slots);
    for (size_t i = 0; i < n_pend; i++) {
        flows[i] = pend[i].flow;
        slots[i] = pend[i].flow->xflow.slot;
    }
    dp_xdp_flow_meta_delete(dp, slots, n_pend);
    free(slots);
    for (size_t start = 0, end; start < n_pend; start = end) {
        int mask_slot = flows[start]->mask_slot;

        for (end = start; end < n_pend && flows[end]->mask_slot == mask_slot;
             end++) {
            continue;
        }
        flows_del_bpf__(dp, mask_slot, &flows[start], end - start);
        for (size_t j = start; j < end; j++) {
            flow_del_finish(dp, flows[j]);
        }
    }
    free(flows);
}

/* Runs the length-'n' run of 'ops' that are all DPIF_OP_FLOW_DEL, with one
 * BPF_MAP_DELETE_BATCH per subtable (one call per flow where the kernel
 * stops part-way, for the rest). */
void
dp_xdp_flow_del_batch(struct dp_xdp *dp, struct dpif_op **ops, size_t n)
{
    struct pending_op *pend = xmalloc(n * sizeof *pend);
    size_t n_pend = 0;

    ovs_mutex_lock(&dp->flow_mutex);
    for (size_t i = 0; i < n; i++) {
        struct dpif_flow_del *del = &ops[i]->flow_del;
        ovs_u128 ufid = flow_ufid(del->ufid, del->key, del->key_len);
        struct dp_xdp_flow *flow = flow_find(dp, &ufid);

        if (!flow) {
            ops[i]->error = ENOENT;
            continue;
        }
        ops[i]->error = 0;
        if (del->stats) {
            flow_get_stats(dp, flow, del->stats);
        }
        flow_del_prepare(dp, flow);
        if (!flow_in_xdp(flow)) {
            flow_del_finish(dp, flow);
            continue;
        }
        pend[n_pend++] = (struct pending_op) {
            .flow = flow, .errorp = &ops[i]->error, .order = i,
        };
    }
    flows_delete_bpf(dp, pend, n_pend);
    ovs_mutex_unlock(&dp->flow_mutex);
    free(pend);
}

/* Deletes every flow, in batches per subtable, as dp_xdp_flow_del_batch()
 * does: the subtable maps stay (see dp_xdp_mask_ref()), so their entries
 * must go one by one. */
int
dpif_xdp_flow_flush(struct dpif *dpif)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    struct dp_xdp_flow *flow;
    struct pending_op *pend;
    size_t n_pend = 0;
    int dummy;

    ovs_mutex_lock(&dp->flow_mutex);
    pend = xmalloc(hmap_count(&dp->flows) * sizeof *pend);
    HMAP_FOR_EACH_SAFE (flow, node, &dp->flows) {
        flow_del_prepare(dp, flow);
        if (flow_in_xdp(flow)) {
            pend[n_pend] = (struct pending_op) {
                .flow = flow, .errorp = &dummy, .order = n_pend,
            };
            n_pend++;
        } else {
            flow_del_finish(dp, flow);
        }
    }
    flows_delete_bpf(dp, pend, n_pend);
    ovs_mutex_unlock(&dp->flow_mutex);
    free(pend);
    return 0;
}

/* Fills 'out' from 'flow', with key, mask and actions copied into 'buf'
 * unless 'terse', and dp_extra_info into '*extra' (freed by the caller). */
static void
flow_to_dpif_flow(struct dp_xdp *dp, const struct dp_xdp_flow *flow,
                  bool terse, struct ofpbuf *buf, struct dpif_flow *out,
                  char **extra)
    OVS_REQUIRES(dp->flow_mutex)
{
    memset(out, 0, sizeof *out);
    if (!terse) {
        /* Room for all three first, so that the pointers stay valid. */
        ofpbuf_prealloc_tailroom(buf, flow->key->size + flow->mask->size
                                      + flow->actions->size);
        out->key = ofpbuf_put(buf, flow->key->data, flow->key->size);
        out->key_len = flow->key->size;
        out->mask = ofpbuf_put(buf, flow->mask->data, flow->mask->size);
        out->mask_len = flow->mask->size;
        out->actions = ofpbuf_put(buf, flow->actions->data,
                                  flow->actions->size);
        out->actions_len = flow->actions->size;
    }
    out->ufid = flow->ufid;
    out->ufid_present = true;
    out->pmd_id = PMD_ID_NULL;
    flow_get_stats(dp, flow, &out->stats);
    out->attrs.offloaded = false;
    out->attrs.dp_layer = (flow_in_xdp(flow)
                           && !(flow->xflow.flags & XDP_FLOW_F_SLOW_PATH)
                           ? "xdp" : "ovs");

    struct ds s = DS_EMPTY_INITIALIZER;
    if (flow->why_uspace) {
        ds_put_format(&s, "userspace(%s)", flow->why_uspace);
    } else if (flow->why_slow) {
        ds_put_format(&s, "slow-path(%s)", flow->why_slow);
    } else {
        xdp_actions_format(&s, &flow->xflow);
    }
    *extra = ds_steal_cstr(&s);
    out->attrs.dp_extra_info = *extra;
}

int
dp_xdp_flow_get(struct dp_xdp *dp, struct dpif_flow_get *get)
{
    ovs_u128 ufid = flow_ufid(get->ufid, get->key, get->key_len);
    struct dp_xdp_flow *flow;
    int error = 0;

    ovs_mutex_lock(&dp->flow_mutex);
    flow = flow_find(dp, &ufid);
    if (flow) {
        char *extra;

        flow_to_dpif_flow(dp, flow, false, get->buffer, get->flow, &extra);
        /* dpif_flow_get() callers do not look at dp_extra_info. */
        get->flow->attrs.dp_extra_info = NULL;
        free(extra);
    } else {
        error = ENOENT;
    }
    ovs_mutex_unlock(&dp->flow_mutex);
    return error;
}

/* For a packet of 'n_bytes' with TCP flags 'tcp_flags' (host order) that
 * hit the flow in statistics slot 'slot' in XDP and was sent up for
 * ovs-vswitchd to execute (a slow-path flow): counts it in the slot, which
 * the program leaves to us for such packets (see struct xdp_dp_stats), and
 * returns a copy of the flow's actions, or NULL if the flow is gone.
 * Counting under 'flow_mutex' keeps the flow and its slot together, as in
 * dp_xdp_flow_lookup_uspace(). */
struct ofpbuf *
dp_xdp_flow_slow_path_hit(struct dp_xdp *dp, uint32_t slot, size_t n_bytes,
                          uint16_t tcp_flags)
{
    struct ofpbuf *actions = NULL;

    ovs_mutex_lock(&dp->flow_mutex);
    if (slot < XDP_DP_MAX_FLOWS && dp->slot_flows[slot]) {
        xdp_flow_stats_add(&dp->stats_map, slot, n_bytes, tcp_flags,
                           time_msec() * 1000000ULL);
        actions = ofpbuf_clone(dp->slot_flows[slot]->actions);
    }
    ovs_mutex_unlock(&dp->flow_mutex);
    return actions;
}

/* Returns a copy of the ODP actions of the flow in 'slot', or NULL if the
 * slot is empty.  Counts nothing: for packets that XDP counted itself. */
struct ofpbuf *
dp_xdp_flow_actions(struct dp_xdp *dp, uint32_t slot)
{
    struct ofpbuf *actions = NULL;

    ovs_mutex_lock(&dp->flow_mutex);
    if (slot < XDP_DP_MAX_FLOWS && dp->slot_flows[slot]) {
        actions = ofpbuf_clone(dp->slot_flows[slot]->actions);
    }
    ovs_mutex_unlock(&dp->flow_mutex);
    return actions;
}

/* Describes the flow table's maps for dpif-xdp/maps-show. */
void
dp_xdp_flow_format_maps(struct dp_xdp *dp, struct ds *s)
{
    ovs_mutex_lock(&dp->flow_mutex);
    xdp_map_format(s, "xdp_dp_masks",
                   bpf_map__fd(dp->skel->maps.xdp_dp_masks), dp->n_masks,
                   "written per element when a mask comes or goes");
    xdp_map_format(s, "xdp_dp_mask_lists",
                   bpf_map__fd(dp->skel->maps.xdp_dp_mask_lists), -1,
                   "subtable order, two copies flipped by "
                   "xdp_dp_mask_active");
    xdp_map_format(s, "xdp_dp_subtables",
                   bpf_map__fd(dp->skel->maps.xdp_dp_subtables),
                   XDP_DP_MAX_MASKS, "a hash map in every slot, from the "
                   "start: no grace period when a mask appears");
    for (uint32_t i = 0; i < dp->n_masks; i++) {
        const struct dp_xdp_mask *m = &dp->masks[dp->mask_order[i]];

        char name[32];

        snprintf(name, sizeof name, "subtable %"PRIu32, dp->mask_order[i]);
        xdp_map_format(s, name, m->map_fd, m->n_flows,
                       "flows written and deleted in batches");
    }
    char *lanes = xasprintf(
        "%"PRIu32" lanes of %"PRIu32" slots (%"PRIu32" CPUs', "
        "ovs-vswitchd's), read through mmap: no system call per flow",
        dp->stats_map.n_lanes, dp->stats_map.n_slots,
        dp->stats_map.n_lanes - 1);
    xdp_map_format(s, "xdp_dp_flow_stats",
                   bpf_map__fd(dp->skel->maps.xdp_dp_flow_stats),
                   dp->n_flows, lanes);
    free(lanes);
    ds_put_format(s, "  flow table system calls: %"PRIu64" batch updates, "
                  "%"PRIu64" single updates, %"PRIu64" batch deletes, "
                  "%"PRIu64" single deletes, %"PRIu64" batches refused "
                  "whole\n",
                  dp->calls.batch_update, dp->calls.elem_update,
                  dp->calls.batch_delete, dp->calls.elem_delete,
                  dp->calls.batch_refused);
    ovs_mutex_unlock(&dp->flow_mutex);
}

/* Stores in '*calls' how many BPF map system calls flow operations made. */
void
dp_xdp_flow_get_calls(struct dp_xdp *dp, struct xdp_map_calls *calls)
{
    ovs_mutex_lock(&dp->flow_mutex);
    *calls = dp->calls;
    ovs_mutex_unlock(&dp->flow_mutex);
}

void
dp_xdp_flow_get_counts(struct dp_xdp *dp, uint64_t *n_flows,
                       uint32_t *n_masks)
{
    ovs_mutex_lock(&dp->flow_mutex);
    *n_flows = dp->n_flows;
    *n_masks = dp->n_masks;
    ovs_mutex_unlock(&dp->flow_mutex);
}

/* Flow dumps.  Dump threads share one position in 'flows', taken under
 * 'flow_mutex', so each flow is dumped once even with several threads. */

struct dp_xdp_flow_dump {
    struct dpif_flow_dump up;
    struct ovs_mutex mutex;
    struct hmap_position pos OVS_GUARDED;
    bool done OVS_GUARDED;
};

#define DP_XDP_DUMP_BATCH 50

struct dp_xdp_flow_dump_thread {
    struct dpif_flow_dump_thread up;
    struct dp_xdp_flow_dump *dump;
    struct ofpbuf bufs[DP_XDP_DUMP_BATCH];  /* Key, mask, actions of each
                                             * flow of the last batch. */
    char *extra[DP_XDP_DUMP_BATCH]; /* dp_extra_info of the last batch. */
};

static struct dp_xdp_flow_dump *
dump_cast(struct dpif_flow_dump *dump)
{
    return CONTAINER_OF(dump, struct dp_xdp_flow_dump, up);
}

static struct dp_xdp_flow_dump_thread *
dump_thread_cast(struct dpif_flow_dump_thread *thread)
{
    return CONTAINER_OF(thread, struct dp_xdp_flow_dump_thread, up);
}

struct dpif_flow_dump *
dpif_xdp_flow_dump_create(const struct dpif *dpif, bool terse,
                          struct dpif_flow_dump_types *types OVS_UNUSED)
{
    struct dp_xdp_flow_dump *dump = xzalloc(sizeof *dump);

    dpif_flow_dump_init(&dump->up, dpif);
    dump->up.terse = terse;
    ovs_mutex_init(&dump->mutex);
    return &dump->up;
}

int
dpif_xdp_flow_dump_destroy(struct dpif_flow_dump *dump_)
{
    struct dp_xdp_flow_dump *dump = dump_cast(dump_);

    ovs_mutex_destroy(&dump->mutex);
    free(dump);
    return 0;
}

struct dpif_flow_dump_thread *
dpif_xdp_flow_dump_thread_create(struct dpif_flow_dump *dump)
{
    struct dp_xdp_flow_dump_thread *thread = xzalloc(sizeof *thread);

    dpif_flow_dump_thread_init(&thread->up, dump);
    thread->dump = dump_cast(dump);
    for (int i = 0; i < DP_XDP_DUMP_BATCH; i++) {
        ofpbuf_init(&thread->bufs[i], 0);
    }
    return &thread->up;
}

static void
dump_thread_clear(struct dp_xdp_flow_dump_thread *thread)
{
    for (int i = 0; i < DP_XDP_DUMP_BATCH; i++) {
        free(thread->extra[i]);
        thread->extra[i] = NULL;
        ofpbuf_clear(&thread->bufs[i]);
    }
}

void
dpif_xdp_flow_dump_thread_destroy(struct dpif_flow_dump_thread *thread_)
{
    struct dp_xdp_flow_dump_thread *thread = dump_thread_cast(thread_);

    dump_thread_clear(thread);
    for (int i = 0; i < DP_XDP_DUMP_BATCH; i++) {
        ofpbuf_uninit(&thread->bufs[i]);
    }
    free(thread);
}

int
dpif_xdp_flow_dump_next(struct dpif_flow_dump_thread *thread_,
                        struct dpif_flow *flows, int max_flows)
{
    struct dp_xdp_flow_dump_thread *thread = dump_thread_cast(thread_);
    struct dp_xdp_flow_dump *dump = thread->dump;
    struct dp_xdp *dp = dp_xdp_from_dpif(dump->up.dpif);
    int n = 0;

    max_flows = MIN(max_flows, DP_XDP_DUMP_BATCH);
    dump_thread_clear(thread);

    ovs_mutex_lock(&dump->mutex);
    ovs_mutex_lock(&dp->flow_mutex);
    if (!dump->done) {
        while (n < max_flows) {
            struct hmap_node *node = hmap_at_position(&dp->flows, &dump->pos);
            struct dp_xdp_flow *flow;

            if (!node) {
                dump->done = true;
                break;
            }
            flow = CONTAINER_OF(node, struct dp_xdp_flow, node);
            if (!flow_has_slot(flow)) {
                continue;       /* Feature probes are not datapath flows. */
            }
            flow_to_dpif_flow(dp, flow, dump->up.terse, &thread->bufs[n],
                              &flows[n], &thread->extra[n]);
            n++;
        }
    }
    ovs_mutex_unlock(&dp->flow_mutex);
    ovs_mutex_unlock(&dump->mutex);
    return n;
}

