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

/* Connection tracking for the xdp datapath.
 *
 * The ct() action runs in ovs-vswitchd, with Open vSwitch's own userspace
 * connection tracker (lib/conntrack.c, the one dpif-netdev uses): one
 * tracker per datapath.  A flow whose actions hold ct() is a slow-path
 * flow in XDP (xdp-actions.c), so its packets come up with their flow's
 * slot; odp_execute_actions() hands the ct() action to dp_xdp_ct_execute(),
 * which sets the packet's conntrack metadata (state, zone, mark, labels,
 * original tuple) and applies NAT.  The recirc() that follows classifies
 * the packet in ovs-vswitchd against the flows that match that metadata,
 * which XDP cannot (dpif-xdp-uflow.c), and their actions run there too.
 *
 * The dpif's conntrack hooks (ovs-appctl dpctl/dump-conntrack,
 * flush-conntrack, ct-set-maxconns, ct-set-limits, ipf-*, and the timeout
 * policies of OVSDB's CT_Zone table, which ofproto hands down) are those
 * of that tracker too: everything here lives in this process, so nothing
 * has to be recovered from an earlier run; connections do not survive a
 * restart, as flows in XDP do.
 *
 * Why not the kernel's conntrack from XDP (bpf_xdp_ct_lookup())?  It looks
 * connections up but does not run OVS's ct() semantics: zones as OVS uses
 * them, commit with mark and labels, NAT, helpers, per-zone limits; and
 * the same connection would have two trackers whenever a packet of it
 * still went through ovs-vswitchd. */

#include <config.h>

#include <errno.h>

#include "conntrack.h"
#include "conntrack-tp.h"
#include "coverage.h"
#include "ct-dpif.h"
#include "dp-packet.h"
#include "dpif-provider.h"
#include "dpif-xdp-private.h"
#include "flow.h"
#include "ipf.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "openvswitch/vlog.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_ct);

COVERAGE_DEFINE(xdp_ct_batch_overflow);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

void
dp_xdp_ct_init(struct dp_xdp *dp)
{
    dp->conntrack = conntrack_init();
}

void
dp_xdp_ct_destroy(struct dp_xdp *dp)
{
    if (dp->conntrack) {
        conntrack_destroy(dp->conntrack);
        dp->conntrack = NULL;
    }
}

/* Parses the OVS_CT_ATTR_NAT attribute 'nat' into '*info'.  Returns true
 * if it asks for a translation (not only for NAT of established
 * connections). */
static bool
parse_nat(const struct nlattr *nat, struct nat_action_info_t *info)
{
    bool min_addr = false, max_addr = false;
    bool min_port = false, max_port = false;
    bool translate = false;
    const struct nlattr *a;
    size_t left;

    memset(info, 0, sizeof *info);
    NL_NESTED_FOR_EACH_UNSAFE (a, left, nat) {
        switch ((enum ovs_nat_attr) nl_attr_type(a)) {
        case OVS_NAT_ATTR_SRC:
            info->nat_action |= NAT_ACTION_SRC;
            translate = true;
            break;
        case OVS_NAT_ATTR_DST:
            info->nat_action |= NAT_ACTION_DST;
            translate = true;
            break;
        case OVS_NAT_ATTR_IP_MIN:
            memcpy(&info->min_addr, nl_attr_get(a),
                   MIN(nl_attr_get_size(a), sizeof info->min_addr));
            min_addr = true;
            break;
        case OVS_NAT_ATTR_IP_MAX:
            memcpy(&info->max_addr, nl_attr_get(a),
                   MIN(nl_attr_get_size(a), sizeof info->max_addr));
            max_addr = true;
            break;
        case OVS_NAT_ATTR_PROTO_MIN:
            info->min_port = nl_attr_get_u16(a);
            min_port = true;
            break;
        case OVS_NAT_ATTR_PROTO_MAX:
            info->max_port = nl_attr_get_u16(a);
            max_port = true;
            break;
        case OVS_NAT_ATTR_PERSISTENT:
        case OVS_NAT_ATTR_PROTO_HASH:
        case OVS_NAT_ATTR_PROTO_RANDOM:
            /* The userspace tracker picks ports its own way. */
            break;
        case OVS_NAT_ATTR_UNSPEC:
        case __OVS_NAT_ATTR_MAX:
        default:
            break;
        }
    }

    /* A range given by its low end only is that one value. */
    if (min_addr && !max_addr) {
        info->max_addr = info->min_addr;
    }
    if (min_port && !max_port) {
        info->max_port = info->min_port;
    }
    if (min_port || max_port) {
        info->nat_action |= (info->nat_action & NAT_ACTION_SRC
                             ? NAT_ACTION_SRC_PORT
                             : info->nat_action & NAT_ACTION_DST
                             ? NAT_ACTION_DST_PORT : 0);
    }
    return translate;
}

/* Runs the OVS_ACTION_ATTR_CT action 'ct_action' on every packet of
 * 'batch'.  Fragment reassembly may change what 'batch' holds: a fragment
 * that the tracker keeps leaves it (and is freed), a whole packet or the
 * fragments it was made of may come in.  The caller owns 'batch' and
 * whatever it holds afterwards. */
void
dp_xdp_ct_execute(struct dp_xdp *dp, struct dp_packet_batch *batch,
                  const struct nlattr *ct_action)
{
    const struct ovs_key_ct_labels *setlabel = NULL;
    struct nat_action_info_t nat, *natp = NULL;
    const uint32_t *setmark = NULL;
    const char *helper = NULL;
    bool force = false, commit = false;
    bool translate = false;
    uint32_t tp_id = 0;
    uint16_t zone = 0;
    const struct nlattr *a;
    struct dp_packet *packet;
    size_t left;

    NL_NESTED_FOR_EACH_UNSAFE (a, left, ct_action) {
        switch ((enum ovs_ct_attr) nl_attr_type(a)) {
        case OVS_CT_ATTR_FORCE_COMMIT:
            force = true;
            commit = true;
            break;
        case OVS_CT_ATTR_COMMIT:
            commit = true;
            break;
        case OVS_CT_ATTR_ZONE:
            zone = nl_attr_get_u16(a);
            break;
        case OVS_CT_ATTR_HELPER:
            helper = nl_attr_get_string(a);
            break;
        case OVS_CT_ATTR_MARK:
            setmark = nl_attr_get(a);
            break;
        case OVS_CT_ATTR_LABELS:
            setlabel = nl_attr_get(a);
            break;
        case OVS_CT_ATTR_EVENTMASK:
            /* No Netlink events from a userspace tracker. */
            break;
        case OVS_CT_ATTR_TIMEOUT:
            if (!str_to_uint(nl_attr_get_string(a), 10, &tp_id)) {
                VLOG_WARN_RL(&rl, "%s: invalid conntrack timeout policy "
                             "\"%s\"; using the default", dp->name,
                             nl_attr_get_string(a));
                tp_id = 0;
            }
            break;
        case OVS_CT_ATTR_NAT:
            translate = parse_nat(a, &nat);
            natp = &nat;
            break;
        case OVS_CT_ATTR_UNSPEC:
        case __OVS_CT_ATTR_MAX:
        default:
            break;
        }
    }
    if (translate && !commit) {
        VLOG_WARN_RL(&rl, "%s: NAT in a ct() action without commit: "
                     "new connections will not be translated", dp->name);
    }

    /* conntrack_execute() takes the Ethertype and the transport ports (for
     * helpers) of the whole batch, which dpif-netdev takes from the flow
     * the batch came from.  Ours come from one flow, but parsing each
     * packet costs little next to its way up from XDP, and also sets the
     * layer offsets that the tracker reads.
     *
     * The tracker's fragment reassembly (ipf) may take a packet out of the
     * batch it is given and free it, and put reassembled packets or held
     * fragments in: so each packet runs in a batch of its own, and
     * 'batch' is rebuilt from what comes out.  The packets that 'batch'
     * holds, whatever they are, belong to whoever owns 'batch', as in
     * dpif-netdev. */
    struct dp_packet_batch in = *batch;

    dp_packet_batch_init(batch);
    batch->trunc = in.trunc;
    DP_PACKET_BATCH_FOR_EACH (i, packet, &in) {
        struct dp_packet_batch one;
        struct dp_packet *out;
        struct flow flow;

        flow_extract(packet, &flow);
        dp_xdp_ctcache_pickup(dp->ctcache, packet, &flow, zone);
        dp_packet_batch_init_packet(&one, packet);
        conntrack_execute(dp->conntrack, &one, flow.dl_type, force, commit,
                          zone, setmark, setlabel, flow.tp_src, flow.tp_dst,
                          helper, natp, time_msec(), tp_id);
        DP_PACKET_BATCH_FOR_EACH (j, out, &one) {
            dp_xdp_ctcache_nominate(dp->ctcache, out);
            if (dp_packet_batch_is_full(batch)) {
                /* Only fragments released at once can get here. */
                COVERAGE_INC(xdp_ct_batch_overflow);
                VLOG_WARN_RL(&rl, "%s: more packets out of conntrack than "
                             "a batch holds; dropped", dp->name);
                dp_packet_delete(out);
            } else {
                dp_packet_batch_add(batch, out);
            }
        }
    }
}

/* The dpif class's conntrack hooks (lib/dpif-provider.h has their
 * contracts).  They run in ovs-vswitchd's main thread (dpctl commands,
 * ofproto's configuration) while handler threads run ct() actions: the
 * tracker's own locks make that safe. */

static struct conntrack *
dpif_xdp_ct(const struct dpif *dpif)
{
    return dp_xdp_from_dpif(dpif)->conntrack;
}

/* A zone limit or a timeout policy is about to change: every connection
 * leaves the connection cache, so that lib/conntrack.c applies the change
 * to each from its next packet on (established ones come back). */
static void
ct_policy_changed(struct dpif *dpif)
{
    dp_xdp_ctcache_flush(dp_xdp_from_dpif(dpif)->ctcache, NULL, NULL);
}

/* A dump of the connection table. */
struct dp_xdp_ct_dump {
    struct ct_dpif_dump_state up;   /* What ct-dpif.c sees. */
    struct conntrack_dump dump;     /* The tracker's cursor. */
    struct dpif *dpif;              /* The dpif dumped. */
};

int
dpif_xdp_ct_dump_start(struct dpif *dpif, struct ct_dpif_dump_state **statep,
                       const uint16_t *zone, int *n_buckets)
{
    struct dp_xdp_ct_dump *d = xzalloc(sizeof *d);
    int error;

    d->dpif = dpif;
    error = conntrack_dump_start(dpif_xdp_ct(dpif), &d->dump, zone,
                                 n_buckets);
    if (error) {
        free(d);
        return error;
    }
    *statep = &d->up;
    return 0;
}

int
dpif_xdp_ct_dump_next(struct dpif *dpif OVS_UNUSED,
                      struct ct_dpif_dump_state *state,
                      struct ct_dpif_entry *entry)
{
    struct dp_xdp_ct_dump *d = CONTAINER_OF(state, struct dp_xdp_ct_dump, up);
    int error = conntrack_dump_next(&d->dump, entry);

    if (!error) {
        /* lib/conntrack.c counts no packets; XDP counts those of the
         * connections it caches. */
        dp_xdp_ctcache_counters(dp_xdp_from_dpif(d->dpif)->ctcache,
                                entry->zone, &entry->tuple_orig,
                                &entry->counters_orig,
                                &entry->counters_reply);
    }
    return error;
}

int
dpif_xdp_ct_dump_done(struct dpif *dpif OVS_UNUSED,
                      struct ct_dpif_dump_state *state)
{
    struct dp_xdp_ct_dump *d = CONTAINER_OF(state, struct dp_xdp_ct_dump, up);
    int error = conntrack_dump_done(&d->dump);

    free(d);
    return error;
}

/* Flushes every connection, those of '*zone', or the one whose original
 * direction is 'tuple' in '*zone' (zone 0 if 'zone' is NULL).  ct-dpif.c
 * turns partial tuples (dpctl/flush-conntrack with some fields, or
 * OpenFlow's NXT_CT_FLUSH) into dumps and single flushes. */
int
dpif_xdp_ct_flush(struct dpif *dpif, const uint16_t *zone,
                  const struct ct_dpif_tuple *tuple)
{
    struct conntrack *ct = dpif_xdp_ct(dpif);
    int error;

    error = (tuple
             ? conntrack_flush_tuple(ct, tuple, zone ? *zone : 0)
             : conntrack_flush(ct, zone));
    dp_xdp_ctcache_flush(dp_xdp_from_dpif(dpif)->ctcache, zone, tuple);
    return error;
}

int
dpif_xdp_ct_set_maxconns(struct dpif *dpif, uint32_t maxconns)
{
    return conntrack_set_maxconns(dpif_xdp_ct(dpif), maxconns);
}

int
dpif_xdp_ct_get_maxconns(struct dpif *dpif, uint32_t *maxconns)
{
    return conntrack_get_maxconns(dpif_xdp_ct(dpif), maxconns);
}

int
dpif_xdp_ct_get_nconns(struct dpif *dpif, uint32_t *nconns)
{
    return conntrack_get_nconns(dpif_xdp_ct(dpif), nconns);
}

int
dpif_xdp_ct_set_tcp_seq_chk(struct dpif *dpif, bool enabled)
{
    return conntrack_set_tcp_seq_chk(dpif_xdp_ct(dpif), enabled);
}

int
dpif_xdp_ct_get_tcp_seq_chk(struct dpif *dpif, bool *enabled)
{
    *enabled = conntrack_get_tcp_seq_chk(dpif_xdp_ct(dpif));
    return 0;
}

/* Per-zone connection limits.  The tracker keeps a limit per zone that has
 * one and a default limit (DEFAULT_ZONE) for the others, 0 meaning
 * unlimited. */

int
dpif_xdp_ct_set_limits(struct dpif *dpif, const uint32_t *default_limit,
                       const struct ovs_list *zone_limits)
{
    struct conntrack *ct = dpif_xdp_ct(dpif);
    const struct ct_dpif_zone_limit *zl;
    int error;

    ct_policy_changed(dpif);
    if (default_limit) {
        error = zone_limit_update(ct, DEFAULT_ZONE, *default_limit);
        if (error) {
            return error;
        }
    }
    LIST_FOR_EACH (zl, node, zone_limits) {
        error = zone_limit_update(ct, zl->zone, zl->limit);
        if (error) {
            return error;
        }
    }
    return 0;
}

/* Stores in 'counts' (MAX_ZONE + 1 of them, zeroed by the caller) how
 * many live connections each zone has.  The tracker counts connections
 * only against the limit they were committed under (a zone's own, or the
 * default one shared by all zones that have none), so its counters do not
 * say how many a zone holds: the kernel's do, and ct-get-limits shows
 * that. */
static void
count_zone_conns(struct conntrack *ct, uint32_t *counts)
{
    struct conntrack_dump dump;
    struct ct_dpif_entry entry;
    int n_buckets;

    conntrack_dump_start(ct, &dump, NULL, &n_buckets);
    while (!conntrack_dump_next(&dump, &entry)) {
        counts[entry.zone]++;
        ct_dpif_entry_uninit(&entry);
    }
    conntrack_dump_done(&dump);
}

/* Stores the default limit in '*default_limit' and, for each zone of
 * 'zone_limits_in' or, if it is empty, for each zone that has a limit of
 * its own, the zone's limit (its own or the default) and its number of
 * connections in 'zone_limits_out'. */
int
dpif_xdp_ct_get_limits(struct dpif *dpif, uint32_t *default_limit,
                       const struct ovs_list *zone_limits_in,
                       struct ovs_list *zone_limits_out)
{
    struct conntrack *ct = dpif_xdp_ct(dpif);
    const struct ct_dpif_zone_limit *zl;
    struct conntrack_zone_limit czl;
    uint32_t *counts;

    czl = zone_limit_get(ct, DEFAULT_ZONE);
    *default_limit = czl.limit;

    counts = xcalloc(MAX_ZONE + 1, sizeof *counts);
    count_zone_conns(ct, counts);
    if (!ovs_list_is_empty(zone_limits_in)) {
        LIST_FOR_EACH (zl, node, zone_limits_in) {
            czl = zone_limit_get(ct, zl->zone);
            ct_dpif_push_zone_limit(zone_limits_out, zl->zone, czl.limit,
                                    counts[zl->zone]);
        }
    } else {
        for (int zone = MIN_ZONE; zone <= MAX_ZONE; zone++) {
            czl = zone_limit_get(ct, zone);
            if (czl.zone == zone) {
                ct_dpif_push_zone_limit(zone_limits_out, zone, czl.limit,
                                        counts[zone]);
            }
        }
    }
    free(counts);
    return 0;
}

/* Deletes the own limits of the zones in 'zone_limits', which fall back to
 * the default limit.  A zone without a limit of its own is no error. */
int
dpif_xdp_ct_del_limits(struct dpif *dpif, const struct ovs_list *zone_limits)
{
    struct conntrack *ct = dpif_xdp_ct(dpif);
    const struct ct_dpif_zone_limit *zl;

    ct_policy_changed(dpif);
    LIST_FOR_EACH (zl, node, zone_limits) {
        int error = zone_limit_delete(ct, zl->zone);

        if (error) {
            return error;
        }
    }
    return 0;
}

/* Timeout policies.  ofproto gives each distinct policy of OVSDB's
 * CT_Timeout_Policy table an id, sets it here and names it in the ct()
 * actions of the zones that use it (OVS_CT_ATTR_TIMEOUT, the id in
 * decimal: see dpif_xdp_ct_get_timeout_policy_name()), which
 * dp_xdp_ct_execute() hands to the tracker.  The tracker's policies cover
 * every protocol it tracks. */

int
dpif_xdp_ct_set_timeout_policy(struct dpif *dpif,
                               const struct ct_dpif_timeout_policy *policy)
{
    struct timeout_policy tp;

    memset(&tp, 0, sizeof tp);
    tp.policy = *policy;
    ct_policy_changed(dpif);
    return timeout_policy_update(dpif_xdp_ct(dpif), &tp);
}

int
dpif_xdp_ct_get_timeout_policy(struct dpif *dpif, uint32_t tp_id,
                               struct ct_dpif_timeout_policy *policy)
{
    const struct timeout_policy *tp;

    tp = timeout_policy_get(dpif_xdp_ct(dpif), tp_id);
    if (!tp) {
        return ENOENT;
    }
    *policy = tp->policy;
    return 0;
}

int
dpif_xdp_ct_del_timeout_policy(struct dpif *dpif, uint32_t tp_id)
{
    ct_policy_changed(dpif);
    return timeout_policy_delete(dpif_xdp_ct(dpif), tp_id);
}

int
dpif_xdp_ct_get_timeout_policy_name(struct dpif *dpif OVS_UNUSED,
                                    uint32_t tp_id,
                                    uint16_t dl_type OVS_UNUSED,
                                    uint8_t nw_proto OVS_UNUSED,
                                    char **tp_name, bool *is_generic)
{
    *tp_name = xasprintf("%"PRIu32, tp_id);
    *is_generic = true;
    return 0;
}

/* The userspace tracker can SNAT to an all-zero address (keeping the
 * source, changing the port only on a clash), which OVN's
 * ct_commit_nat / ct_snat_to_vip rely on. */
int
dpif_xdp_ct_get_features(struct dpif *dpif OVS_UNUSED,
                         enum ct_features *features)
{
    *features = CONNTRACK_F_ZERO_SNAT;
    return 0;
}

/* Fragment reassembly (ipf), which the tracker runs before ct(): enabled
 * by default for IPv4 and IPv6, as in dpif-netdev. */

int
dpif_xdp_ipf_set_enabled(struct dpif *dpif, bool v6, bool enabled)
{
    return ipf_set_enabled(conntrack_ipf_ctx(dpif_xdp_ct(dpif)), v6,
                           enabled);
}

int
dpif_xdp_ipf_set_min_frag(struct dpif *dpif, bool v6, uint32_t min_frag)
{
    return ipf_set_min_frag(conntrack_ipf_ctx(dpif_xdp_ct(dpif)), v6,
                            min_frag);
}

int
dpif_xdp_ipf_set_max_nfrags(struct dpif *dpif, uint32_t max_nfrags)
{
    return ipf_set_max_nfrags(conntrack_ipf_ctx(dpif_xdp_ct(dpif)),
                              max_nfrags);
}

int
dpif_xdp_ipf_get_status(struct dpif *dpif, struct dpif_ipf_status *status)
{
    struct ipf_status s;
    int error;

    error = ipf_get_status(conntrack_ipf_ctx(dpif_xdp_ct(dpif)), &s);
    if (error) {
        return error;
    }

    /* The same fields, one by one, in case the two structs part. */
    status->nfrag = s.nfrag;
    status->nfrag_max = s.nfrag_max;
    for (int i = 0; i < 2; i++) {
        const struct ipf_proto_status *from = i ? &s.v6 : &s.v4;
        struct dpif_ipf_proto_status *to = i ? &status->v6 : &status->v4;

        to->nfrag_accepted = from->nfrag_accepted;
        to->nfrag_completed_sent = from->nfrag_completed_sent;
        to->nfrag_expired_sent = from->nfrag_expired_sent;
        to->nfrag_too_small = from->nfrag_too_small;
        to->nfrag_overlap = from->nfrag_overlap;
        to->nfrag_purged = from->nfrag_purged;
        to->min_frag_size = from->min_frag_size;
        to->enabled = from->enabled;
    }
    return 0;
}

int
dpif_xdp_ipf_dump_start(struct dpif *dpif OVS_UNUSED,
                        struct ipf_dump_ctx **ctxp)
{
    return ipf_dump_start(ctxp);
}

int
dpif_xdp_ipf_dump_next(struct dpif *dpif, void *ctx, char **dump)
{
    return ipf_dump_next(conntrack_ipf_ctx(dpif_xdp_ct(dpif)), ctx, dump);
}

int
dpif_xdp_ipf_dump_done(struct dpif *dpif OVS_UNUSED, void *ctx)
{
    return ipf_dump_done(ctx);
}
