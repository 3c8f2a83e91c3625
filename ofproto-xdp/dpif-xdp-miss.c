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

/* Upcalls of packets that ofproto executes, handled in the executing
 * thread.
 *
 * A packet that ofproto hands the datapath with DPIF_OP_EXECUTE (a
 * packet-out, the first packet of a new flow) may recirculate in
 * ovs-vswitchd and miss ("packet-out ... ct(table=0)" does, every time),
 * or reach a userspace action ("controller").  Both used to become
 * upcalls queued to a handler thread, so the rest of the packet's pipeline
 * ran after the execute had returned: a packet-in reached the controller
 * after the packet-out's reply, and OVS's "conntrack - controller" test,
 * which stops listening right after its last packet-out, lost one when
 * the machine was busy.  dpif-netdev runs such upcalls in the executing
 * thread, through the callback that ofproto-dpif-upcall registers with
 * every datapath (upcall_cb(): translation, a ukey for a new flow, the
 * packet-in or sample), and so does this module: dp_xdp_miss_upcall()
 * calls it, installs the megaflow a miss makes with the datapath's own
 * flow_put (in XDP when it can go there), and gives the caller the
 * actions to run on the packet.
 *
 * ofproto enables the callback while its handler and revalidator threads
 * run and disables it before it destroys what the callback uses; 'lock'
 * keeps a disable from returning while a call is under way.  Until it is
 * enabled, and for packets that the XDP program or a slow-path flow sent
 * up (executed by a handler reading the rings), upcalls go to the
 * handlers' queues as before. */

#include <config.h>

#include <errno.h>

#include "coverage.h"
#include "dp-packet.h"
#include "dpif-xdp-private.h"
#include "flow.h"
#include "odp-util.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_miss);

COVERAGE_DEFINE(xdp_upcall_here);
COVERAGE_DEFINE(xdp_upcall_here_error);

void
dp_xdp_miss_init(struct dp_xdp *dp)
{
    ovs_rwlock_init(&dp->miss.lock);
    dp->miss.cb = NULL;
    dp->miss.aux = NULL;
    dp->miss.enabled = false;
}

void
dp_xdp_miss_destroy(struct dp_xdp *dp)
{
    ovs_rwlock_destroy(&dp->miss.lock);
}

void
dpif_xdp_register_upcall_cb(struct dpif *dpif, upcall_callback *cb,
                            void *aux)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);

    ovs_rwlock_wrlock(&dp->miss.lock);
    dp->miss.cb = cb;
    dp->miss.aux = aux;
    ovs_rwlock_unlock(&dp->miss.lock);
}

static void
miss_set_enabled(struct dpif *dpif, bool enabled)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);

    ovs_rwlock_wrlock(&dp->miss.lock);
    dp->miss.enabled = enabled;
    ovs_rwlock_unlock(&dp->miss.lock);
}

void
dpif_xdp_enable_upcall(struct dpif *dpif)
{
    miss_set_enabled(dpif, true);
}

void
dpif_xdp_disable_upcall(struct dpif *dpif)
{
    miss_set_enabled(dpif, false);
}

/* Installs the megaflow that ofproto's callback made of the miss of
 * 'flow' (its wildcards 'wc'), with 'actions', as flow 'ufid'. */
static void
miss_install(struct dp_xdp *dp, const struct flow *flow,
             const struct flow_wildcards *wc, const struct ofpbuf *actions,
             const ovs_u128 *ufid)
{
    struct odp_flow_key_parms parms = {
        .flow = flow,
        .mask = &wc->masks,
        .support = *dp_xdp_upcall_odp_support(),
    };
    struct ofpbuf key, mask;
    uint64_t key_stub[128], mask_stub[128];

    ofpbuf_use_stub(&key, key_stub, sizeof key_stub);
    ofpbuf_use_stub(&mask, mask_stub, sizeof mask_stub);
    odp_flow_key_from_flow(&parms, &key);
    parms.key_buf = &key;
    odp_flow_key_from_mask(&parms, &mask);

    struct dpif_flow_put put = {
        .flags = DPIF_FP_CREATE,
        .key = key.data,
        .key_len = key.size,
        .mask = mask.data,
        .mask_len = mask.size,
        .actions = actions->data,
        .actions_len = actions->size,
        .ufid = ufid,
        .pmd_id = PMD_ID_NULL,
    };
    int error = dp_xdp_flow_put(dp, &put);
    if (error && error != EEXIST) {
        /* The packet is still executed; the next one misses again. */
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

        VLOG_WARN_RL(&rl, "%s: cannot install the flow of an executed "
                     "packet's miss (%s)", dp->name, ovs_strerror(error));
    }
    ofpbuf_uninit(&key);
    ofpbuf_uninit(&mask);
}

/* Has ofproto handle an upcall of 'type' (DPIF_UC_MISS, or DPIF_UC_ACTION
 * with the userspace action's 'userdata') for 'packet', whose
 * flow_extract() is 'flow', in this thread, and installs the megaflow that
 * a miss makes.  Returns false if ofproto's callback is not enabled: the
 * caller queues the upcall to a handler instead.  Otherwise returns true
 * with 'actions' (which the caller must uninit) holding what to run on the
 * packet: empty if nothing (a miss whose packet is to be dropped, most
 * action upcalls). */
bool
dp_xdp_miss_upcall(struct dp_xdp *dp, const struct dp_packet *packet,
                   const struct flow *flow, enum dpif_upcall_type type,
                   const struct nlattr *userdata, struct ofpbuf *actions)
{
    bool miss = type == DPIF_UC_MISS;
    struct ofpbuf put_actions;
    struct flow_wildcards wc;
    ovs_u128 ufid;
    int error;

    /* As dpif-netdev does, never wait here: while ofproto enables or
     * disables the callback, the upcall goes to a handler. */
    if (ovs_rwlock_tryrdlock(&dp->miss.lock)) {
        return false;
    }
    if (!dp->miss.enabled || !dp->miss.cb) {
        ovs_rwlock_unlock(&dp->miss.lock);
        return false;
    }
    COVERAGE_INC(xdp_upcall_here);
    ofpbuf_init(actions, 0);
    ofpbuf_init(&put_actions, 0);
    flow_wildcards_init_catchall(&wc);
    /* The UFID that dpif-netdev gives such a flow: a hash of 'flow'. */
    odp_flow_key_hash(flow, sizeof *flow, &ufid);
    error = dp->miss.cb(packet, flow, &ufid, PMD_ID_NULL, type, userdata,
                        actions, miss ? &wc : NULL,
                        miss ? &put_actions : NULL, dp->miss.aux);
    ovs_rwlock_unlock(&dp->miss.lock);
    VLOG_DBG("%s: %s upcall of an executed packet: %s", dp->name,
             miss ? "miss" : "action", error ? ovs_strerror(error) : "done");

    if (!error && miss) {
        miss_install(dp, flow, &wc,
                     put_actions.size ? &put_actions : actions, &ufid);
    } else if (error && error != ENOSPC && (miss || error != EAGAIN)) {
        /* ENOSPC: ofproto wants the packet executed, not a flow installed.
         * EAGAIN, for an action upcall: done, with nothing to execute (all
         * but a slow-path flow's translation end so).  Anything else drops
         * the packet, as in dpif-netdev. */
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

        COVERAGE_INC(xdp_upcall_here_error);
        VLOG_WARN_RL(&rl, "%s: %s upcall of an executed packet failed (%s); "
                     "packet dropped", dp->name, miss ? "miss" : "action",
                     ovs_strerror(error));
        ofpbuf_clear(actions);
    } else if (error == EAGAIN) {
        ofpbuf_clear(actions);
    }
    ofpbuf_uninit(&put_actions);
    return true;
}
