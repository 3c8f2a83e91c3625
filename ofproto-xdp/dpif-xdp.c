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

/* The "xdp" dpif provider.
 *
 * ofproto-dpif sees a datapath through struct dpif_class: it adds and
 * removes ports, installs and dumps megaflows, receives upcalls and asks for
 * packets to be executed.  This module keeps the datapath's userspace state:
 * one 'struct dp_xdp' per datapath name (ofproto-dpif opens a single backer,
 * "ovs-xdp", for every bridge with datapath_type=xdp) and its ports, each a
 * netdev opened by ofproto with the type that port_open_type() chose.
 *
 * Status: this is the foundation.  Ports are accepted and tracked, but no
 * XDP program switches their packets yet: the flow table is always empty,
 * flow installs are refused with EOPNOTSUPP (which makes ofproto-dpif's
 * feature probes report every optional feature as absent) and no upcall is
 * ever received.  port_add() says so in the log for every port. */

#include <config.h>

#include "dpif-xdp.h"

#include <errno.h>
#include <string.h>

#include "dpif-provider.h"
#include "hash.h"
#include "netdev.h"
#include "odp-util.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "ovs-thread.h"
#include "seq.h"
#include "sset.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp);

/* The datapath.
 *
 * Thread safety
 * =============
 *
 * 'dp_xdp_mutex' protects 'dp_xdps' and the lifetime of each datapath
 * ('ref_cnt' counts the dpifs open on it).  'port_mutex' protects 'ports';
 * it nests inside 'dp_xdp_mutex'.  'port_seq' changes whenever a port is
 * added or removed, which port_poll() reports. */
struct dp_xdp {
    char *name;                 /* Datapath name, e.g. "ovs-xdp". */
    int ref_cnt;                /* Open dpifs; protected by dp_xdp_mutex. */
    bool destroyed;             /* dpif_delete() called: gone at last close. */

    struct ovs_mutex port_mutex;
    struct hmap ports OVS_GUARDED;  /* 'struct dp_xdp_port's by port_no. */
    struct seq *port_seq;       /* Incremented on each port add or delete. */
};

/* A port of a datapath. */
struct dp_xdp_port {
    struct hmap_node node;      /* In 'struct dp_xdp''s 'ports'. */
    odp_port_t port_no;         /* Datapath port number. */
    struct netdev *netdev;      /* The network device, opened by ofproto. */
    char *type;                 /* Port type, as reported to ofproto. */
    int ifindex;                /* Kernel ifindex of 'netdev'. */
};

/* One open handle on a datapath. */
struct dpif_xdp {
    struct dpif dpif;           /* Base class: must be first. */
    struct dp_xdp *dp;          /* The datapath. */
    uint64_t last_port_seq;     /* 'dp->port_seq' value last reported. */
};

static struct ovs_mutex dp_xdp_mutex = OVS_MUTEX_INITIALIZER;
static struct shash dp_xdps OVS_GUARDED_BY(dp_xdp_mutex)
    = SHASH_INITIALIZER(&dp_xdps);

/* Largest port number handed out; the XDP program keeps per-port state in
 * arrays of this size. */
#define DP_XDP_MAX_PORTS 1024

static struct dpif_xdp *
dpif_xdp_cast(const struct dpif *dpif)
{
    dpif_assert_class(dpif, &dpif_xdp_class);
    return CONTAINER_OF(dpif, struct dpif_xdp, dpif);
}

static struct dp_xdp *
get_dp_xdp(const struct dpif *dpif)
{
    return dpif_xdp_cast(dpif)->dp;
}

static uint32_t
dp_xdp_hash_port_no(odp_port_t port_no)
{
    return hash_int(odp_to_u32(port_no), 0);
}

/* Datapath lifecycle. */

static int
dpif_xdp_enumerate(struct sset *all_dps,
                   const struct dpif_class *dpif_class OVS_UNUSED)
{
    struct shash_node *node;

    ovs_mutex_lock(&dp_xdp_mutex);
    SHASH_FOR_EACH (node, &dp_xdps) {
        sset_add(all_dps, node->name);
    }
    ovs_mutex_unlock(&dp_xdp_mutex);

    return 0;
}

/* Internal ports are tap devices, as in the userspace datapath: the kernel
 * stack sees them as ordinary interfaces and the XDP program can attach to
 * them like to any other. */
static const char *
dpif_xdp_port_open_type(const struct dpif_class *dpif_class OVS_UNUSED,
                        const char *type)
{
    return strcmp(type, "internal") ? type : "tap";
}

static struct dp_xdp *
dp_xdp_create(const char *name)
    OVS_REQUIRES(dp_xdp_mutex)
{
    struct dp_xdp *dp = xzalloc(sizeof *dp);

    dp->name = xstrdup(name);
    ovs_mutex_init(&dp->port_mutex);
    hmap_init(&dp->ports);
    dp->port_seq = seq_create();
    shash_add(&dp_xdps, name, dp);

    VLOG_INFO("%s: created xdp datapath", name);
    return dp;
}

static void
dp_xdp_port_destroy(struct dp_xdp_port *port)
{
    netdev_close(port->netdev);
    free(port->type);
    free(port);
}

static void
dp_xdp_free(struct dp_xdp *dp)
    OVS_REQUIRES(dp_xdp_mutex)
{
    struct dp_xdp_port *port;

    shash_find_and_delete(&dp_xdps, dp->name);

    ovs_mutex_lock(&dp->port_mutex);
    HMAP_FOR_EACH_POP (port, node, &dp->ports) {
        dp_xdp_port_destroy(port);
    }
    ovs_mutex_unlock(&dp->port_mutex);
    hmap_destroy(&dp->ports);
    ovs_mutex_destroy(&dp->port_mutex);
    seq_destroy(dp->port_seq);

    VLOG_INFO("%s: destroyed xdp datapath", dp->name);
    free(dp->name);
    free(dp);
}

static int
dpif_xdp_open(const struct dpif_class *dpif_class, const char *name,
              bool create, struct dpif **dpifp)
{
    struct dpif_xdp *dpif;
    struct dp_xdp *dp;

    ovs_mutex_lock(&dp_xdp_mutex);
    dp = shash_find_data(&dp_xdps, name);
    if (!dp) {
        if (!create) {
            ovs_mutex_unlock(&dp_xdp_mutex);
            return ENODEV;
        }
        dp = dp_xdp_create(name);
    } else if (dpif_class != &dpif_xdp_class) {
        ovs_mutex_unlock(&dp_xdp_mutex);
        return EINVAL;
    }
    dp->ref_cnt++;

    dpif = xzalloc(sizeof *dpif);
    dpif_init(&dpif->dpif, dpif_class, name, 0, 0);
    dpif->dp = dp;
    dpif->last_port_seq = seq_read(dp->port_seq);
    ovs_mutex_unlock(&dp_xdp_mutex);

    *dpifp = &dpif->dpif;
    return 0;
}

static void
dpif_xdp_close(struct dpif *dpif_)
{
    struct dpif_xdp *dpif = dpif_xdp_cast(dpif_);
    struct dp_xdp *dp = dpif->dp;

    ovs_mutex_lock(&dp_xdp_mutex);
    ovs_assert(dp->ref_cnt > 0);
    if (!--dp->ref_cnt && dp->destroyed) {
        dp_xdp_free(dp);
    }
    ovs_mutex_unlock(&dp_xdp_mutex);
    free(dpif);
}

static int
dpif_xdp_destroy(struct dpif *dpif)
{
    struct dp_xdp *dp = get_dp_xdp(dpif);

    ovs_mutex_lock(&dp_xdp_mutex);
    dp->destroyed = true;
    ovs_mutex_unlock(&dp_xdp_mutex);
    return 0;
}

static int
dpif_xdp_get_stats(const struct dpif *dpif, struct dpif_dp_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    stats->n_masks = UINT32_MAX;
    stats->n_cache_hit = UINT64_MAX;
    stats->n_mask_hit = UINT64_MAX;
    return 0;
}

/* No user features (the kernel module's OVS_DP_F_* flags) apply here. */
static int
dpif_xdp_set_features(struct dpif *dpif OVS_UNUSED,
                      uint32_t user_features OVS_UNUSED)
{
    return 0;
}

/* Ports. */

static struct dp_xdp_port *
dp_xdp_lookup_port(const struct dp_xdp *dp, odp_port_t port_no)
    OVS_REQUIRES(dp->port_mutex)
{
    struct dp_xdp_port *port;

    HMAP_FOR_EACH_IN_BUCKET (port, node, dp_xdp_hash_port_no(port_no), &dp->ports) {
        if (port->port_no == port_no) {
            return port;
        }
    }
    return NULL;
}

static struct dp_xdp_port *
dp_xdp_lookup_port_by_name(const struct dp_xdp *dp, const char *devname)
    OVS_REQUIRES(dp->port_mutex)
{
    struct dp_xdp_port *port;

    HMAP_FOR_EACH (port, node, &dp->ports) {
        if (!strcmp(netdev_get_name(port->netdev), devname)) {
            return port;
        }
    }
    return NULL;
}

/* Returns the lowest free port number, or ODPP_NONE if all are taken.
 * Port 0 (ODPP_LOCAL) is not handed out: the datapath has no local port of
 * its own, each bridge's local port is an ordinary internal port. */
static odp_port_t
dp_xdp_choose_port(const struct dp_xdp *dp)
    OVS_REQUIRES(dp->port_mutex)
{
    for (uint32_t i = 1; i < DP_XDP_MAX_PORTS; i++) {
        if (!dp_xdp_lookup_port(dp, u32_to_odp(i))) {
            return u32_to_odp(i);
        }
    }
    return ODPP_NONE;
}

static int
dpif_xdp_port_add(struct dpif *dpif, struct netdev *netdev,
                  odp_port_t *port_nop)
{
    struct dp_xdp *dp = get_dp_xdp(dpif);
    const char *name = netdev_get_name(netdev);
    struct dp_xdp_port *port;
    odp_port_t port_no;
    int ifindex;
    int error = 0;

    ifindex = netdev_get_ifindex(netdev);
    if (ifindex < 0) {
        VLOG_WARN("%s: cannot add port %s: it has no kernel ifindex (%s)",
                  dp->name, name, ovs_strerror(-ifindex));
        return -ifindex;
    }

    ovs_mutex_lock(&dp->port_mutex);
    if (dp_xdp_lookup_port_by_name(dp, name)) {
        error = EEXIST;
        goto out;
    }
    if (*port_nop != ODPP_NONE) {
        port_no = *port_nop;
        if (odp_to_u32(port_no) == 0
            || odp_to_u32(port_no) >= DP_XDP_MAX_PORTS) {
            error = EINVAL;
            goto out;
        }
        if (dp_xdp_lookup_port(dp, port_no)) {
            error = EBUSY;
            goto out;
        }
    } else {
        port_no = dp_xdp_choose_port(dp);
        if (port_no == ODPP_NONE) {
            error = EFBIG;
            goto out;
        }
    }

    port = xzalloc(sizeof *port);
    port->port_no = port_no;
    port->netdev = netdev_ref(netdev);
    port->type = xstrdup(netdev_get_type(netdev));
    port->ifindex = ifindex;
    hmap_insert(&dp->ports, &port->node, dp_xdp_hash_port_no(port_no));
    seq_change(dp->port_seq);
    *port_nop = port_no;

    VLOG_WARN("%s: port %s (ifindex %d) added as port %"PRIu32", but this "
              "build of the xdp datapath does not switch packets yet: "
              "nothing arriving on it is forwarded",
              dp->name, name, ifindex, odp_to_u32(port_no));
out:
    ovs_mutex_unlock(&dp->port_mutex);
    return error;
}

static int
dpif_xdp_port_del(struct dpif *dpif, odp_port_t port_no)
{
    struct dp_xdp *dp = get_dp_xdp(dpif);
    struct dp_xdp_port *port;
    int error = 0;

    ovs_mutex_lock(&dp->port_mutex);
    port = dp_xdp_lookup_port(dp, port_no);
    if (port) {
        hmap_remove(&dp->ports, &port->node);
        seq_change(dp->port_seq);
        VLOG_INFO("%s: removed port %s", dp->name,
                  netdev_get_name(port->netdev));
        dp_xdp_port_destroy(port);
    } else {
        error = ENOENT;
    }
    ovs_mutex_unlock(&dp->port_mutex);
    return error;
}

static void
answer_port_query(const struct dp_xdp_port *port, struct dpif_port *dpif_port)
{
    dpif_port->name = xstrdup(netdev_get_name(port->netdev));
    dpif_port->type = xstrdup(port->type);
    dpif_port->port_no = port->port_no;
}

static int
dpif_xdp_port_query_by_number(const struct dpif *dpif, odp_port_t port_no,
                              struct dpif_port *dpif_port)
{
    struct dp_xdp *dp = get_dp_xdp(dpif);
    struct dp_xdp_port *port;

    ovs_mutex_lock(&dp->port_mutex);
    port = dp_xdp_lookup_port(dp, port_no);
    if (port && dpif_port) {
        answer_port_query(port, dpif_port);
    }
    ovs_mutex_unlock(&dp->port_mutex);
    return port ? 0 : ENODEV;
}

static int
dpif_xdp_port_query_by_name(const struct dpif *dpif, const char *devname,
                            struct dpif_port *dpif_port)
{
    struct dp_xdp *dp = get_dp_xdp(dpif);
    struct dp_xdp_port *port;

    ovs_mutex_lock(&dp->port_mutex);
    port = dp_xdp_lookup_port_by_name(dp, devname);
    if (port && dpif_port) {
        answer_port_query(port, dpif_port);
    }
    ovs_mutex_unlock(&dp->port_mutex);
    return port ? 0 : ENODEV;
}

/* A port dump walks the port numbers in order, so that ports added or
 * removed during the dump do not make it skip or repeat others. */
struct dpif_xdp_port_state {
    uint32_t next;              /* Next port number to look at. */
    char *name;                 /* Name of the port last returned. */
    char *type;                 /* Type of the port last returned. */
};

static int
dpif_xdp_port_dump_start(const struct dpif *dpif OVS_UNUSED, void **statep)
{
    *statep = xzalloc(sizeof(struct dpif_xdp_port_state));
    return 0;
}

static int
dpif_xdp_port_dump_next(const struct dpif *dpif, void *state_,
                        struct dpif_port *dpif_port)
{
    struct dpif_xdp_port_state *state = state_;
    struct dp_xdp *dp = get_dp_xdp(dpif);
    int error = EOF;

    ovs_mutex_lock(&dp->port_mutex);
    for (; state->next < DP_XDP_MAX_PORTS; state->next++) {
        struct dp_xdp_port *port;

        port = dp_xdp_lookup_port(dp, u32_to_odp(state->next));
        if (port) {
            free(state->name);
            free(state->type);
            state->name = xstrdup(netdev_get_name(port->netdev));
            state->type = xstrdup(port->type);
            dpif_port->name = state->name;
            dpif_port->type = state->type;
            dpif_port->port_no = port->port_no;
            state->next++;
            error = 0;
            break;
        }
    }
    ovs_mutex_unlock(&dp->port_mutex);
    return error;
}

static int
dpif_xdp_port_dump_done(const struct dpif *dpif OVS_UNUSED, void *state_)
{
    struct dpif_xdp_port_state *state = state_;

    free(state->name);
    free(state->type);
    free(state);
    return 0;
}

static int
dpif_xdp_port_poll(const struct dpif *dpif_, char **devnamep OVS_UNUSED)
{
    struct dpif_xdp *dpif = dpif_xdp_cast(dpif_);
    uint64_t new_port_seq = seq_read(dpif->dp->port_seq);

    if (dpif->last_port_seq != new_port_seq) {
        dpif->last_port_seq = new_port_seq;
        return ENOBUFS;
    }
    return EAGAIN;
}

static void
dpif_xdp_port_poll_wait(const struct dpif *dpif_)
{
    struct dpif_xdp *dpif = dpif_xdp_cast(dpif_);

    seq_wait(dpif->dp->port_seq, dpif->last_port_seq);
}

/* Flows.  The table is always empty in this build (see the top of file). */

static int
dpif_xdp_flow_flush(struct dpif *dpif OVS_UNUSED)
{
    return 0;
}

static struct dpif_flow_dump *
dpif_xdp_flow_dump_create(const struct dpif *dpif, bool terse,
                          struct dpif_flow_dump_types *types OVS_UNUSED)
{
    struct dpif_flow_dump *dump = xzalloc(sizeof *dump);

    dpif_flow_dump_init(dump, dpif);
    dump->terse = terse;
    return dump;
}

static int
dpif_xdp_flow_dump_destroy(struct dpif_flow_dump *dump)
{
    free(dump);
    return 0;
}

static struct dpif_flow_dump_thread *
dpif_xdp_flow_dump_thread_create(struct dpif_flow_dump *dump)
{
    struct dpif_flow_dump_thread *thread = xzalloc(sizeof *thread);

    dpif_flow_dump_thread_init(thread, dump);
    return thread;
}

static void
dpif_xdp_flow_dump_thread_destroy(struct dpif_flow_dump_thread *thread)
{
    free(thread);
}

static int
dpif_xdp_flow_dump_next(struct dpif_flow_dump_thread *thread OVS_UNUSED,
                        struct dpif_flow *flows OVS_UNUSED,
                        int max_flows OVS_UNUSED)
{
    return 0;
}

static void
dpif_xdp_operate(struct dpif *dpif OVS_UNUSED, struct dpif_op **ops,
                 size_t n_ops,
                 enum dpif_offload_type offload_type OVS_UNUSED)
{
    for (size_t i = 0; i < n_ops; i++) {
        struct dpif_op *op = ops[i];

        switch (op->type) {
        case DPIF_OP_FLOW_PUT:
            /* EINVAL is how a datapath declines a feature probe quietly
             * (see dpif_probe_feature()). */
            op->error = (op->flow_put.flags & DPIF_FP_PROBE
                         ? EINVAL : EOPNOTSUPP);
            break;
        case DPIF_OP_EXECUTE:
            op->error = EOPNOTSUPP;
            break;
        case DPIF_OP_FLOW_DEL:
        case DPIF_OP_FLOW_GET:
            op->error = ENOENT;
            break;
        default:
            op->error = EINVAL;
            break;
        }
    }
}

/* Meters are not offered (meter_get_features leaves max_meters at 0), so
 * ofproto only reaches these while probing. */
static int
dpif_xdp_meter_set(struct dpif *dpif OVS_UNUSED,
                   ofproto_meter_id meter_id OVS_UNUSED,
                   struct ofputil_meter_config *config OVS_UNUSED)
{
    return EOPNOTSUPP;
}

static int
dpif_xdp_meter_get(const struct dpif *dpif OVS_UNUSED,
                   ofproto_meter_id meter_id OVS_UNUSED,
                   struct ofputil_meter_stats *stats OVS_UNUSED,
                   uint16_t n_bands OVS_UNUSED)
{
    return EOPNOTSUPP;
}

static int
dpif_xdp_meter_del(struct dpif *dpif OVS_UNUSED,
                   ofproto_meter_id meter_id OVS_UNUSED,
                   struct ofputil_meter_stats *stats OVS_UNUSED,
                   uint16_t n_bands OVS_UNUSED)
{
    return EOPNOTSUPP;
}

const struct dpif_class dpif_xdp_class = {
    .type = "xdp",
    /* Ports opened by this datapath (tap devices for internal ports) exist
     * only while ovs-vswitchd runs, as in the userspace datapath. */
    .cleanup_required = true,
    .enumerate = dpif_xdp_enumerate,
    .port_open_type = dpif_xdp_port_open_type,
    .open = dpif_xdp_open,
    .close = dpif_xdp_close,
    .destroy = dpif_xdp_destroy,
    .get_stats = dpif_xdp_get_stats,
    .set_features = dpif_xdp_set_features,
    .port_add = dpif_xdp_port_add,
    .port_del = dpif_xdp_port_del,
    .port_query_by_number = dpif_xdp_port_query_by_number,
    .port_query_by_name = dpif_xdp_port_query_by_name,
    .port_dump_start = dpif_xdp_port_dump_start,
    .port_dump_next = dpif_xdp_port_dump_next,
    .port_dump_done = dpif_xdp_port_dump_done,
    .port_poll = dpif_xdp_port_poll,
    .port_poll_wait = dpif_xdp_port_poll_wait,
    .flow_flush = dpif_xdp_flow_flush,
    .flow_dump_create = dpif_xdp_flow_dump_create,
    .flow_dump_destroy = dpif_xdp_flow_dump_destroy,
    .flow_dump_thread_create = dpif_xdp_flow_dump_thread_create,
    .flow_dump_thread_destroy = dpif_xdp_flow_dump_thread_destroy,
    .flow_dump_next = dpif_xdp_flow_dump_next,
    .operate = dpif_xdp_operate,
    /* No upcalls are produced yet, so there is nothing to receive: with
     * 'recv' NULL, dpif_recv() reports EAGAIN to the handler threads. */
    .meter_set = dpif_xdp_meter_set,
    .meter_get = dpif_xdp_meter_get,
    .meter_del = dpif_xdp_meter_del,
};
