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

/* The flows that ovs-vswitchd classifies packets against itself.
 *
 * Most packets are classified in XDP only.  Two kinds are classified here:
 *
 *   - Packets recirculated by actions that ran in ovs-vswitchd: the first
 *     packet of a flow, which ofproto executes (DPIF_OP_EXECUTE), and every
 *     packet of a slow-path flow, e.g. one that runs ct() before recirc().
 *     The kernel datapath looks such packets up in its own table; ours is
 *     in BPF maps keyed by XDP keys, which cannot hold what userspace
 *     actions may have set (conntrack state, packet marks).
 *
 *   - Packets whose flow matches something the XDP key does not carry
 *     (conntrack state after ct(), marks, MPLS labels): such a flow is
 *     installed here only ("userspace-only"), XDP misses its packets, and
 *     the handler that receives the miss finds it here before bothering
 *     ofproto.
 *
 *   - Packets that a tnl_pop() run in ovs-vswitchd decapsulated
 *     (dpif-xdp-tnl.c), which are looked up again with their tunnel
 *     metadata.
 *
 * So this table holds the userspace-only flows, every flow that matches
 * a nonzero recirc_id (ofproto always matches recirc_id exactly, so those
 * are the only flows a recirculated packet can hit) and every flow that
 * matches a tunnel's metadata.  It is a tuple space
 * search over OVS's own minimatches, as dpif-netdev's dpcls and the kernel
 * datapath's flow table are: a subtable per distinct mask, each a hash
 * table of masked flows (flow_hash_in_minimask()).  Megaflows do not
 * overlap, so the first match is the match.  OVS's 'struct classifier'
 * would do too, but it keeps priorities, versions and RCU deferrals that a
 * megaflow table does not need.  Everything here is under 'flow_mutex'. */

#include <config.h>

#include "classifier.h"
#include "classifier-private.h"
#include "dpif-xdp-private.h"
#include "flow.h"
#include "openvswitch/match.h"
#include "util.h"

/* One mask's flows. */
struct dp_xdp_usubtable {
    struct hmap_node node;      /* In 'struct dp_xdp''s 'usubtables'. */
    struct minimask *mask;      /* The mask. */
    struct hmap flows;          /* 'struct dp_xdp_flow's by masked flow. */
};

void
dp_xdp_uflow_init(struct dp_xdp *dp)
{
    hmap_init(&dp->usubtables);
}

void
dp_xdp_uflow_destroy(struct dp_xdp *dp)
{
    struct dp_xdp_usubtable *sub;

    HMAP_FOR_EACH_POP (sub, node, &dp->usubtables) {
        /* The flows themselves belong to 'flows'. */
        hmap_destroy(&sub->flows);
        free(sub->mask);
        free(sub);
    }
    hmap_destroy(&dp->usubtables);
}

/* Whether 'match' must be in this table: see the comment at the top. */
bool
dp_xdp_uflow_wanted(const struct dp_xdp_flow *flow, const struct match *match)
{
    return (flow->uspace_only
            || match->flow.recirc_id & match->wc.masks.recirc_id
            || flow_tnl_dst_is_set(&match->flow.tunnel));
}

static struct dp_xdp_usubtable *
usubtable_find(struct dp_xdp *dp, const struct minimask *mask, uint32_t hash)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct dp_xdp_usubtable *sub;

    HMAP_FOR_EACH_WITH_HASH (sub, node, hash, &dp->usubtables) {
        if (minimask_equal(sub->mask, mask)) {
            return sub;
        }
    }
    return NULL;
}

/* Adds 'flow', whose key and mask are 'match', to the table. */
void
dp_xdp_uflow_insert(struct dp_xdp *dp, struct dp_xdp_flow *flow,
                    const struct match *match)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct dp_xdp_usubtable *sub;
    uint32_t mask_hash;

    ovs_assert(!flow->umatch);
    flow->umatch = xmalloc(sizeof *flow->umatch);
    minimatch_init(flow->umatch, match);

    mask_hash = minimask_hash(flow->umatch->mask, 0);
    sub = usubtable_find(dp, flow->umatch->mask, mask_hash);
    if (!sub) {
        sub = xmalloc(sizeof *sub);
        sub->mask = minimask_create(&match->wc);
        hmap_init(&sub->flows);
        hmap_insert(&dp->usubtables, &sub->node, mask_hash);
    }
    flow->usub = sub;
    hmap_insert(&sub->flows, &flow->unode,
                miniflow_hash_in_minimask(flow->umatch->flow, sub->mask, 0));
}

/* Removes 'flow' from the table, if it is there. */
void
dp_xdp_uflow_remove(struct dp_xdp *dp, struct dp_xdp_flow *flow)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct dp_xdp_usubtable *sub = flow->usub;

    if (!flow->umatch) {
        return;
    }
    hmap_remove(&sub->flows, &flow->unode);
    if (hmap_is_empty(&sub->flows)) {
        hmap_remove(&dp->usubtables, &sub->node);
        hmap_destroy(&sub->flows);
        free(sub->mask);
        free(sub);
    }
    minimatch_destroy(flow->umatch);
    free(flow->umatch);
    flow->umatch = NULL;
    flow->usub = NULL;
}

/* Returns the flow in the table that 'flow' (a packet's, as flow_extract()
 * makes it, metadata included) matches, or NULL. */
struct dp_xdp_flow *
dp_xdp_uflow_lookup(struct dp_xdp *dp, const struct flow *flow)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct dp_xdp_usubtable *sub;

    HMAP_FOR_EACH (sub, node, &dp->usubtables) {
        struct dp_xdp_flow *f;
        uint32_t hash = flow_hash_in_minimask(flow, sub->mask, 0);

        HMAP_FOR_EACH_WITH_HASH (f, unode, hash, &sub->flows) {
            if (minimatch_matches_flow(f->umatch, flow)) {
                return f;
            }
        }
    }
    return NULL;
}
