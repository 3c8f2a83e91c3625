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
 * distinct mask has a subtable slot, a hash map created when the mask first
 * appears and deleted with its last flow, and a place in the order in which
 * the program visits subtables (published as in struct xdp_dp_mask_list).
 *
 * Statistics slots
 * ================
 *
 * Every installed flow owns one slot of the mmapped statistics array.  A
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

#include "datapath/xdp-dp.skel.h"
#include "dpif-xdp-private.h"
#include "flow.h"
#include "odp-util.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "ofproto-xdp/xdp-actions.h"
#include "ofproto-xdp/xdp-flow.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_flow);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

#define DP_XDP_SLOT_QUARANTINE_MS 100

struct quarantined_slot {
    struct ovs_list node;       /* In 'struct dp_xdp''s 'quarantine'. */
    uint32_t slot;              /* The slot. */
    long long int freed;        /* time_msec() when freed. */
};

int
dp_xdp_flow_init(struct dp_xdp *dp)
{
    ovs_mutex_init(&dp->flow_mutex);
    hmap_init(&dp->flows);
    dp->slots = id_pool_create(0, XDP_DP_MAX_FLOWS);
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
    id_pool_destroy(dp->slots);
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
        id_pool_free_id(dp->slots, q->slot);
        free(q);
    }
    if (!id_pool_alloc_id(dp->slots, slot)) {
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

/* Subtables. */

/* Publishes the subtable order to the program: writes the copy that is not
 * in use, then switches to it. */
static int
publish_mask_order(struct dp_xdp *dp)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct xdp_dp_mask_list list;
    uint32_t next = !dp->active_list;
    uint32_t zero = 0;

    memset(&list, 0, sizeof list);
    list.n_masks = dp->n_masks;
    memcpy(list.slots, dp->mask_order, dp->n_masks * sizeof list.slots[0]);
    if (bpf_map_update_elem(bpf_map__fd(dp->skel->maps.xdp_dp_mask_lists),
                            &next, &list, BPF_ANY)
        || bpf_map_update_elem(
            bpf_map__fd(dp->skel->maps.xdp_dp_mask_active),
            &zero, &next, BPF_ANY)) {
        return errno;
    }
    dp->active_list = next;
    return 0;
}

/* Finds or creates the subtable for 'mask'.  Returns its slot or a
 * negative errno. */
static int
mask_ref(struct dp_xdp *dp, const struct xdp_flow_key *mask)
    OVS_REQUIRES(dp->flow_mutex)
{
    int free_slot = -1;

    for (int i = 0; i < XDP_DP_MAX_MASKS; i++) {
        struct dp_xdp_mask *m = &dp->masks[i];

        if (m->in_use && !memcmp(&m->mask, mask, sizeof *mask)) {
            m->n_flows++;
            return i;
        } else if (!m->in_use && free_slot < 0) {
            free_slot = i;
        }
    }
    if (free_slot < 0) {
        return -EFBIG;
    }

    LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
    struct dp_xdp_mask *m = &dp->masks[free_slot];
    uint32_t slot = free_slot;
    struct xdp_dp_mask value;
    int fd, error;

    fd = bpf_map_create(BPF_MAP_TYPE_HASH, "xdp_dp_subtbl",
                        sizeof(struct xdp_flow_key), sizeof(struct xdp_flow),
                        XDP_DP_MAX_FLOWS, &opts);
    if (fd < 0) {
        error = errno;
        VLOG_WARN_RL(&rl, "%s: cannot create subtable map (%s)",
                     dp->name, ovs_strerror(error));
        return -error;
    }
    memset(&value, 0, sizeof value);
    value.mask = *mask;
    if (bpf_map_update_elem(bpf_map__fd(dp->skel->maps.xdp_dp_masks),
                            &slot, &value, BPF_ANY)
        || bpf_map_update_elem(bpf_map__fd(dp->skel->maps.xdp_dp_subtables),
                               &slot, &fd, BPF_ANY)) {
        error = errno;
        VLOG_WARN_RL(&rl, "%s: cannot install subtable (%s)",
                     dp->name, ovs_strerror(error));
        close(fd);
        return -error;
    }

    m->in_use = true;
    m->n_flows = 1;
    m->mask = *mask;
    m->map_fd = fd;
    dp->mask_order[dp->n_masks++] = slot;
    error = publish_mask_order(dp);
    if (error) {
        VLOG_WARN_RL(&rl, "%s: cannot publish subtable order (%s)",
                     dp->name, ovs_strerror(error));
    }
    return free_slot;
}

static void
mask_unref(struct dp_xdp *dp, int slot_)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct dp_xdp_mask *m = &dp->masks[slot_];
    uint32_t slot = slot_;

    ovs_assert(m->in_use && m->n_flows > 0);
    if (--m->n_flows) {
        return;
    }

    for (uint32_t i = 0; i < dp->n_masks; i++) {
        if (dp->mask_order[i] == slot) {
            memmove(&dp->mask_order[i], &dp->mask_order[i + 1],
                    (dp->n_masks - i - 1) * sizeof dp->mask_order[0]);
            dp->n_masks--;
            break;
        }
    }
    publish_mask_order(dp);
    bpf_map_delete_elem(bpf_map__fd(dp->skel->maps.xdp_dp_subtables), &slot);
    close(m->map_fd);
    m->map_fd = -1;
    m->in_use = false;
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

/* Stores 'flow''s statistics since install or last zeroing in '*stats'. */
static void
flow_get_stats(struct dp_xdp *dp, const struct dp_xdp_flow *flow,
               struct dpif_flow_stats *stats)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct xdp_flow_stats s;

    memset(stats, 0, sizeof *stats);
    if (!flow_in_xdp(flow)) {
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
    if (flow_in_xdp(flow)) {
        /* The program keeps adding: remember where zero is. */
        xdp_flow_stats_read(&dp->stats_map, flow->xflow.slot, &flow->base);
    }
}

static int
flow_map_fd(const struct dp_xdp *dp, const struct dp_xdp_flow *flow)
{
    return dp->masks[flow->mask_slot].map_fd;
}

static void
flow_set_actions(struct dp_xdp_flow *flow, const struct nlattr *actions,
                 size_t actions_len)
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

int
dp_xdp_flow_put(struct dp_xdp *dp, struct dpif_flow_put *put)
{
    bool probe = put->flags & DPIF_FP_PROBE;
    struct xdp_flow_key xkey, xmask;
    struct ds why = DS_EMPTY_INITIALIZER;
    struct dp_xdp_flow *flow;
    ovs_u128 ufid;
    int error;

    error = xdp_flow_from_odp(put->key, put->key_len, put->mask,
                              put->mask_len, &xkey, &xmask, &why);
    if (error) {
        if (!probe) {
            VLOG_WARN_RL(&rl, "%s: cannot install flow in XDP: %s",
                         dp->name, ds_cstr(&why));
        }
        ds_destroy(&why);
        /* EINVAL tells ofproto's feature probes "not supported" without a
         * warning of its own. */
        return probe ? EINVAL : error;
    }
    ds_destroy(&why);

    ufid = flow_ufid(put->ufid, put->key, put->key_len);
    if (put->stats) {
        memset(put->stats, 0, sizeof *put->stats);
    }

    ovs_mutex_lock(&dp->flow_mutex);
    flow = flow_find(dp, &ufid);
    if (flow) {
        if (!(put->flags & DPIF_FP_MODIFY)) {
            error = EEXIST;
            goto out;
        }
        if (put->stats) {
            flow_get_stats(dp, flow, put->stats);
        }
        flow_set_actions(flow, put->actions, put->actions_len);
        if (flow_in_xdp(flow)
            && bpf_map_update_elem(flow_map_fd(dp, flow), &flow->xkey,
                                   &flow->xflow, BPF_EXIST)) {
            error = errno;
            VLOG_WARN_RL(&rl, "%s: cannot modify flow in XDP (%s)",
                         dp->name, ovs_strerror(error));
            goto out;
        }
        if (put->flags & DPIF_FP_ZERO_STATS) {
            flow_zero_stats(dp, flow);
        }
        goto out;
    }

    if (!(put->flags & DPIF_FP_CREATE)) {
        error = ENOENT;
        goto out;
    }

    flow = xzalloc(sizeof *flow);
    flow->ufid = ufid;
    flow->key = ofpbuf_clone_data(put->key, put->key_len);
    flow->mask = ofpbuf_clone_data(put->mask, put->mask_len);
    flow->xkey = xkey;
    flow->mask_slot = -1;
    flow_set_actions(flow, put->actions, put->actions_len);

    if (!probe) {
        uint32_t slot;
        int mask_slot;

        if (!slot_alloc(dp, &slot)) {
            error = EFBIG;
            dp_xdp_flow_free(flow);
            goto out;
        }
        mask_slot = mask_ref(dp, &xmask);
        if (mask_slot < 0) {
            error = -mask_slot;
            slot_free(dp, slot);
            dp_xdp_flow_free(flow);
            goto out;
        }
        flow->xflow.slot = slot;
        flow->mask_slot = mask_slot;
        if (bpf_map_update_elem(flow_map_fd(dp, flow), &flow->xkey,
                                &flow->xflow, BPF_NOEXIST)) {
            error = errno;
            if (error != EEXIST) {
                VLOG_WARN_RL(&rl, "%s: cannot install flow in XDP (%s)",
                             dp->name, ovs_strerror(error));
            }
            mask_unref(dp, mask_slot);
            slot_free(dp, slot);
            dp_xdp_flow_free(flow);
            goto out;
        }
        dp->slot_flows[slot] = flow;
        dp->n_flows++;
    }
    hmap_insert(&dp->flows, &flow->node, ufid.u32[0]);

out:
    ovs_mutex_unlock(&dp->flow_mutex);
    return error;
}

static void
flow_remove(struct dp_xdp *dp, struct dp_xdp_flow *flow)
    OVS_REQUIRES(dp->flow_mutex)
{
    hmap_remove(&dp->flows, &flow->node);
    if (flow_in_xdp(flow)) {
        if (bpf_map_delete_elem(flow_map_fd(dp, flow), &flow->xkey)) {
            VLOG_WARN_RL(&rl, "%s: cannot delete flow from XDP (%s)",
                         dp->name, ovs_strerror(errno));
        }
        dp->slot_flows[flow->xflow.slot] = NULL;
        slot_free(dp, flow->xflow.slot);
        mask_unref(dp, flow->mask_slot);
        dp->n_flows--;
    }
    dp_xdp_flow_free(flow);
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

int
dp_xdp_flow_flush(struct dpif *dpif)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    struct dp_xdp_flow *flow;

    ovs_mutex_lock(&dp->flow_mutex);
    HMAP_FOR_EACH_SAFE (flow, node, &dp->flows) {
        flow_remove(dp, flow);
    }
    ovs_mutex_unlock(&dp->flow_mutex);
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
    if (flow->why_slow) {
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

struct ofpbuf *
dp_xdp_flow_actions_by_slot(struct dp_xdp *dp, uint32_t slot)
{
    struct ofpbuf *actions = NULL;

    ovs_mutex_lock(&dp->flow_mutex);
    if (slot < XDP_DP_MAX_FLOWS && dp->slot_flows[slot]) {
        actions = ofpbuf_clone(dp->slot_flows[slot]->actions);
    }
    ovs_mutex_unlock(&dp->flow_mutex);
    return actions;
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
dp_xdp_flow_dump_create(const struct dpif *dpif, bool terse,
                        struct dpif_flow_dump_types *types OVS_UNUSED)
{
    struct dp_xdp_flow_dump *dump = xzalloc(sizeof *dump);

    dpif_flow_dump_init(&dump->up, dpif);
    dump->up.terse = terse;
    ovs_mutex_init(&dump->mutex);
    return &dump->up;
}

int
dp_xdp_flow_dump_destroy(struct dpif_flow_dump *dump_)
{
    struct dp_xdp_flow_dump *dump = dump_cast(dump_);

    ovs_mutex_destroy(&dump->mutex);
    free(dump);
    return 0;
}

struct dpif_flow_dump_thread *
dp_xdp_flow_dump_thread_create(struct dpif_flow_dump *dump)
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
dp_xdp_flow_dump_thread_destroy(struct dpif_flow_dump_thread *thread_)
{
    struct dp_xdp_flow_dump_thread *thread = dump_thread_cast(thread_);

    dump_thread_clear(thread);
    for (int i = 0; i < DP_XDP_DUMP_BATCH; i++) {
        ofpbuf_uninit(&thread->bufs[i]);
    }
    free(thread);
}

int
dp_xdp_flow_dump_next(struct dpif_flow_dump_thread *thread_,
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
            if (flow->mask_slot < 0) {
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
