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

/* Flows that outlive ovs-vswitchd.
 *
 * The program keeps forwarding after ovs-vswitchd exits or dies: its maps
 * and links are pinned (maps/pin.c).  For the next ovs-vswitchd to give
 * ofproto those flows back, with their UFIDs, ODP keys, masks and actions
 * as ofproto installed them, every flow in XDP also has an entry in
 * xdp_dp_flow_meta, by statistics slot, written and deleted in the same
 * bursts as the flows (BPF_MAP_UPDATE_BATCH and BPF_MAP_DELETE_BATCH).  At
 * start, dp_xdp_flow_restore() reads them back in batches, takes back the
 * subtables first (dp_xdp_subtable_restore()) and rebuilds ovs-vswitchd's
 * copy of each flow, so that ofproto finds its flows in its first dump
 * (with flow-restore-wait set, as ovs-ctl restart does). */

#include <config.h>

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dpif-xdp-private.h"
#include "openvswitch/match.h"
#include "openvswitch/vlog.h"
#include "ofproto-xdp/xdp-flow.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_flow_restore);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

/* Fills 'm' for 'flow'.  Returns false if the flow does not fit. */
static bool
flow_meta_fill(const struct dp_xdp_flow *flow, struct xdp_dp_flow_meta *m)
{
    size_t total = flow->key->size + flow->mask->size + flow->actions->size;

    if (total > sizeof m->data) {
        return false;
    }
    memset(m, 0, offsetof(struct xdp_dp_flow_meta, data));
    memcpy(m->ufid, &flow->ufid, sizeof m->ufid);
    m->key_len = flow->key->size;
    m->mask_len = flow->mask->size;
    m->actions_len = flow->actions->size;
    memcpy(m->data, flow->key->data, m->key_len);
    memcpy(m->data + m->key_len, flow->mask->data, m->mask_len);
    memcpy(m->data + m->key_len + m->mask_len, flow->actions->data,
           m->actions_len);
    return true;
}

/* How the flow metadata map is written (see maps/map-batch.c). */
static struct xdp_map_batch
meta_batch(struct dp_xdp *dp)
    OVS_REQUIRES(dp->flow_mutex)
{
    return (struct xdp_map_batch) {
        .fd = bpf_map__fd(dp->skel->maps.xdp_dp_flow_meta),
        .key_size = sizeof(uint32_t),
        .value_size = sizeof(struct xdp_dp_flow_meta),
        .flags = BPF_ANY,
        .calls = &dp->calls,
    };
}

/* Writes the metadata of the 'n' 'flows'. */
void
dp_xdp_flow_meta_write(struct dp_xdp *dp, struct dp_xdp_flow **flows,
                       size_t n)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct xdp_dp_flow_meta *metas;
    uint32_t *slots, count = 0;

    if (!dp->pinned || !n) {
        return;
    }
    metas = xmalloc(n * sizeof *metas);
    slots = xmalloc(n * sizeof *slots);
    for (size_t i = 0; i < n; i++) {
        if (flow_meta_fill(flows[i], &metas[count])) {
            slots[count++] = flows[i]->xflow.slot;
        } else {
            VLOG_WARN_RL(&rl, "%s: flow too large to survive a restart",
                         dp->name);
        }
    }
    struct xdp_map_batch mb = meta_batch(dp);

    xdp_map_batch_update(&mb, slots, metas, count, NULL);
    free(metas);
    free(slots);
}

/* Deletes the metadata of the 'n' flows in 'slots'. */
void
dp_xdp_flow_meta_delete(struct dp_xdp *dp, uint32_t *slots, size_t n)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct xdp_map_batch mb = meta_batch(dp);

    if (dp->pinned && n) {
        xdp_map_batch_delete(&mb, slots, n, NULL);
    }
}

/* Flows read per BPF_MAP_LOOKUP_BATCH call when taking them back. */
#define DP_XDP_RESTORE_BATCH 1024

/* Takes back the flow of statistics slot 'slot' from its metadata 'm'.
 * Returns false if it cannot be used. */
static bool
flow_restore_one(struct dp_xdp *dp, uint32_t slot,
                 const struct xdp_dp_flow_meta *m)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct xdp_flow_key xkey, xmask;
    struct dp_xdp_flow *flow;
    struct match match;
    int mask_slot;

    if (slot >= dp->max_flows || dp->slot_flows[slot]
        || (size_t) m->key_len + m->mask_len + m->actions_len
           > sizeof m->data
        || xdp_flow_from_odp((const struct nlattr *) m->data, m->key_len,
                             (const struct nlattr *) (m->data + m->key_len),
                             m->mask_len, &xkey, &xmask, &match, NULL)) {
        return false;
    }
    mask_slot = dp_xdp_mask_find(dp, &xmask);
    if (mask_slot < 0) {
        return false;
    }

    flow = xzalloc(sizeof *flow);
    memcpy(&flow->ufid, m->ufid, sizeof flow->ufid);
    flow->key = ofpbuf_clone_data(m->data, m->key_len);
    flow->mask = ofpbuf_clone_data(m->data + m->key_len, m->mask_len);
    flow->xkey = xkey;
    flow->mask_slot = mask_slot;
    flow->xflow.slot = slot;
    dp_xdp_flow_set_actions(flow, (const struct nlattr *) (m->data
                                                            + m->key_len
                                                            + m->mask_len),
                            m->actions_len);

    slot_pool_claim(&dp->slots, slot);
    hmap_insert(&dp->flows, &flow->node, flow->ufid.u32[0]);
    hmap_insert(&dp->flows_by_key, &flow->key_node,
                dp_xdp_flow_key_hash(mask_slot, &xkey));
    dp->slot_flows[slot] = flow;
    if (dp_xdp_uflow_wanted(flow, &match)) {
        dp_xdp_uflow_insert(dp, flow, &match);
    }
    dp->masks[mask_slot].n_flows++;
    dp->n_flows++;
    dp_xdp_flow_ids_set(dp, flow);
    return true;
}

/* After a restart that reused pinned maps: rebuilds the userspace flow
 * table from the subtables and the flow metadata that the earlier
 * ovs-vswitchd left, so that ofproto finds its flows in the first dump.
 * Flows and subtables that cannot be taken back are removed. */
void
dp_xdp_flow_restore(struct dp_xdp *dp)
{
    int meta_fd = bpf_map__fd(dp->skel->maps.xdp_dp_flow_meta);
    struct xdp_dp_flow_meta *meta = xmalloc(sizeof *meta);
    uint32_t *bad = NULL;
    size_t n_bad = 0, allocated = 0;

    ovs_mutex_lock(&dp->flow_mutex);
    dp_xdp_subtable_restore(dp);

    /* The flow metadata, read with BPF_MAP_LOOKUP_BATCH, a chunk of
     * DP_XDP_RESTORE_BATCH flows per call (one call per flow where the
     * kernel refuses batches). */
    uint32_t *keys = xmalloc(DP_XDP_RESTORE_BATCH * sizeof *keys);
    struct xdp_dp_flow_meta *metas = xmalloc(DP_XDP_RESTORE_BATCH
                                             * sizeof *metas);
    uint32_t batch_pos, *in = NULL;
    bool done = false;

    while (!done) {
        uint32_t count = DP_XDP_RESTORE_BATCH;
        int error = bpf_map_lookup_batch(meta_fd, in, &batch_pos, keys, metas,
                                         &count, NULL) ? errno : 0;

        if (error && error != ENOENT) {
            VLOG_INFO("%s: cannot read flows in batches (%s): reading them "
                      "one by one", dp->name, ovs_strerror(error));
            break;
        }
        done = error == ENOENT;
        for (uint32_t i = 0; i < count; i++) {
            if (!flow_restore_one(dp, keys[i], &metas[i])) {
                if (n_bad >= allocated) {
                    bad = x2nrealloc(bad, &allocated, sizeof *bad);
                }
                bad[n_bad++] = keys[i];
            }
        }
        in = &batch_pos;
    }
    if (!done) {
        uint32_t key, *prev = NULL;

        while (!bpf_map_get_next_key(meta_fd, prev, &key)) {
            if (!dp->slot_flows[key % XDP_DP_MAX_FLOWS]
                && (bpf_map_lookup_elem(meta_fd, &key, meta)
                    || !flow_restore_one(dp, key, meta))) {
                if (n_bad >= allocated) {
                    bad = x2nrealloc(bad, &allocated, sizeof *bad);
                }
                bad[n_bad++] = key;
            }
            prev = &key;
        }
    }
    free(keys);
    free(metas);
    for (size_t i = 0; i < n_bad; i++) {
        bpf_map_delete_elem(meta_fd, &bad[i]);
    }

    dp_xdp_subtable_prune(dp);
    VLOG_INFO("%s: took back %"PRIuSIZE" flows in %"PRIu32" subtables from "
              "the pinned maps%s", dp->name, dp->n_flows, dp->n_masks,
              n_bad ? " (some could not be taken back)" : "");
    ovs_mutex_unlock(&dp->flow_mutex);
    free(bad);
    free(meta);
}
