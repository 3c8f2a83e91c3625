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
 * packets to be executed.  This module keeps a datapath's lifecycle: one
 * 'struct dp_xdp' per datapath name (ofproto-dpif opens a single backer,
 * "ovs-xdp", for every bridge with datapath_type=xdp).  Creating a datapath
 * loads its XDP program (datapath/xdp-dp.bpf.c, through the skeleton) and
 * maps, and swapping in a newly compiled program happens here too.  Adding
 * a port attaches that one program to the port (dpif-xdp-port.c).  The
 * flow table is in dpif-xdp-flow.c, upcalls and userspace execution in
 * dpif-xdp-upcall.c. */

#include <config.h>

#include "dpif-xdp.h"

#include <errno.h>
#include <linux/pkt_sched.h>
#include <net/if.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/tc-dp.skel.h"
#include "datapath/xdp-dp.skel.h"
#include "dpif-provider.h"
#include "flow.h"
#include "dpif-xdp-private.h"
#include "hash.h"
#include "netdev.h"
#include "odp-util.h"
#include "dispatcher/xdp-dispatcher.h"
#include "maps/map-info.h"
#include "maps/pin.h"
#include "ofproto-xdp/internal-port.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "ovs-thread.h"
#include "seq.h"
#include "smap.h"
#include "sset.h"
#include "timeval.h"
#include "tnl-neigh-cache.h"
#include "tnl-ports.h"
#include "unixctl.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp);

/* One open handle on a datapath. */
struct dpif_xdp {
    struct dpif dpif;           /* Base class: must be first. */
    struct dp_xdp *dp;          /* The datapath. */
    uint64_t last_port_seq;     /* 'dp->port_seq' value last reported. */
};

static struct ovs_mutex dp_xdp_mutex = OVS_MUTEX_INITIALIZER;
static struct shash dp_xdps OVS_GUARDED_BY(dp_xdp_mutex)
    = SHASH_INITIALIZER(&dp_xdps);

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

struct dp_xdp *
dp_xdp_from_dpif(const struct dpif *dpif)
{
    return get_dp_xdp(dpif);
}

/* libbpf's messages (verifier logs included) go to this module's log. */
static int
libbpf_print(enum libbpf_print_level level, const char *format, va_list args)
{
    enum vlog_level vlevel = (level == LIBBPF_WARN ? VLL_WARN
                              : level == LIBBPF_INFO ? VLL_INFO : VLL_DBG);

    /* bpf_tc_hook_create() on a device that already has a clsact qdisc (as
     * after a restart) fails with EEXIST, which xdp-attach.c expects, but
     * libbpf still passes on the kernel's complaint. */
    if (level == LIBBPF_WARN && strstr(format, "Kernel error message")) {
        vlevel = VLL_DBG;
    }

    if (vlog_is_enabled(&this_module, vlevel)) {
        char *s = xvasprintf(format, args);
        size_t len = strlen(s);

        if (len && s[len - 1] == '\n') {
            s[len - 1] = '\0';
        }
        vlog(&this_module, vlevel, "%s", s);
        free(s);
    }
    return 0;
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

/* Internal ports keep type "internal": ofproto opens them with netdev-linux's
 * internal class, which lets the device appear later, and port_add()
 * creates them as veth pairs (see internal-port.c). */
static const char *
dpif_xdp_port_open_type(const struct dpif_class *dpif_class OVS_UNUSED,
                        const char *type)
{
    return type;
}


/* Returns the kernel's id of program 'fd', or 0. */
static uint32_t
prog_id(int fd)
{
    struct bpf_prog_info info;
    uint32_t len = sizeof info;

    memset(&info, 0, sizeof info);
    return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/* ovs-appctl dispatcher/show [DP]: the kernel's XDP dispatcher, and how
 * each datapath's program is attached. */
static void
dpif_xdp_unixctl_dispatcher_show(struct unixctl_conn *conn, int argc,
                                 const char *argv[], void *aux OVS_UNUSED)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    struct shash_node *node;

    xdp_dispatcher_format_kernel(&s);

    ovs_mutex_lock(&dp_xdp_mutex);
    if (argc > 1 && !shash_find(&dp_xdps, argv[1])) {
        ovs_mutex_unlock(&dp_xdp_mutex);
        unixctl_command_reply_error(conn, "no such xdp datapath");
        ds_destroy(&s);
        return;
    }
    SHASH_FOR_EACH (node, &dp_xdps) {
        struct dp_xdp *dp = node->data;
        struct dp_xdp_port *port;

        if (argc > 1 && strcmp(argv[1], dp->name)) {
            continue;
        }
        ds_put_format(&s, "%s:\n", dp->name);
        xdp_dispatcher_format_prog(&s, "program", dp->xdp_prog_fd);
        if (dp->tc_pipeline_fd >= 0) {
            /* Not in the dispatcher: the TC pipeline of ports in tc
             * mode. */
            xdp_dispatcher_format_prog(&s, "tc pipeline", dp->tc_pipeline_fd);
        }

        ovs_mutex_lock(&dp->port_mutex);
        for (uint32_t i = 0; i < DP_XDP_MAX_PORTS; i++) {
            port = dp_xdp_lookup_port(dp, u32_to_odp(i));
            if (!port) {
                continue;
            }
            ds_put_format(&s, "  port %"PRIu32": %s", i,
                          netdev_get_name(port->netdev));
            if (!port->attached) {
                ds_put_cstr(&s, ": no XDP (not a kernel device)\n");
                continue;
            }
            ds_put_cstr(&s, ": ");
            if (port->peer_name) {
                ds_put_format(&s, "via %s, ", port->peer_name);
            }
            xdp_dispatcher_format_attachment(&s, &port->att);
            ds_put_format(&s, ", transmit by %s\n",
                          dp_xdp_tx_mode_to_string(port->tx_mode));
            if (port->mode == XDP_ATTACH_AUTO) {
                ds_put_format(&s, "    xdp-mode auto: %s\n",
                              ds_cstr(&port->mode_why));
            }
            ds_put_format(&s, "    xdp-tx %s: %s\n",
                          port->tx_request == XDP_DP_TX_NONE ? "auto"
                          : dp_xdp_tx_mode_to_string(port->tx_request),
                          ds_cstr(&port->tx_why));
            if (port->tx_error) {
                ds_put_format(&s, "    error: %s\n", port->tx_error);
            }
        }
        ovs_mutex_unlock(&dp->port_mutex);
    }
    ovs_mutex_unlock(&dp_xdp_mutex);

    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

/* A map of a datapath's object for dpif-xdp/maps-show: how many of its
 * entries are in use (negative: not counted), and how ovs-vswitchd uses
 * it. */
struct map_use {
    const struct bpf_map *map;
    int64_t n_used;
    const char *access;
};

static void
maps_format(struct ds *s, const struct map_use *maps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        xdp_map_format(s, bpf_map__name(maps[i].map),
                       bpf_map__fd(maps[i].map), maps[i].n_used,
                       maps[i].access);
    }
}

/* ovs-appctl dpif-xdp/maps-show [DP]: each map of each datapath. */
static void
dpif_xdp_unixctl_maps_show(struct unixctl_conn *conn, int argc,
                           const char *argv[], void *aux OVS_UNUSED)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    struct shash_node *node;

    ovs_mutex_lock(&dp_xdp_mutex);
    if (argc > 1 && !shash_find(&dp_xdps, argv[1])) {
        ovs_mutex_unlock(&dp_xdp_mutex);
        unixctl_command_reply_error(conn, "no such xdp datapath");
        ds_destroy(&s);
        return;
    }
    SHASH_FOR_EACH (node, &dp_xdps) {
        struct dp_xdp *dp = node->data;
        struct xdp_dp *skel = dp->skel;
        int64_t n_attached = 0;
        struct dp_xdp_port *port;

        if (argc > 1 && strcmp(argv[1], dp->name)) {
            continue;
        }
        ovs_mutex_lock(&dp->port_mutex);
        HMAP_FOR_EACH (port, node, &dp->ports) {
            n_attached += port->attached;
        }
        ovs_mutex_unlock(&dp->port_mutex);

        const struct map_use port_maps[] = {
            { skel->maps.xdp_dp_in_ports, n_attached,
              "written per element on port changes" },
            { skel->maps.xdp_dp_ports, -1,
              "written per element on port changes" },
            { skel->maps.xdp_dp_tx_ports, n_attached,
              "written per element on port changes" },
            { skel->maps.xdp_dp_peers, -1,
              "veth peers and their counters, per port change" },
            { skel->maps.xdp_dp_policers, -1,
              "written per port on policing changes" },
        };
        const struct map_use other_maps[] = {
            { skel->maps.xdp_dp_flow_ids, -1,
              "flow ids and outputs for the pass after ct(), "
              "written through mmap" },
            { skel->maps.xdp_dp_flow_meta, -1,
              "what a restart needs of each flow, written per flow" },
            { skel->maps.xdp_dp_mask_active, -1,
              "which copy of xdp_dp_mask_lists is current" },
            { skel->maps.xdp_dp_mask_cache, -1,
              "the compiled programs' mask cache, the program's own" },
            { skel->maps.xdp_dp_stats, -1, "one lookup per dpif/show" },
            { skel->maps.xdp_dp_meters, -1, "written per meter change" },
            { skel->maps.xdp_dp_meter_stats, -1,
              "one lookup per meter dump" },
            { skel->maps.xdp_dp_upcalls, -1,
              "upcall rings, read through mmap" },
            { skel->maps.xdp_dp_upcalls_quiet, -1,
              "their quiet events, written when a ring opens" },
            { skel->maps.xdp_dp_upcall_awake, -1,
              "whether each ring's handler is awake, shared through mmap" },
            { skel->maps.xdp_dp_upcall_budget, -1,
              "upcall budgets per CPU and port, the program's own" },
            { skel->maps.xdp_dp_samples, -1,
              "sample rings, read through mmap in batches" },
            { skel->maps.xdp_dp_gre_seq, -1,
              "GRE sequence numbers, shared through mmap" },
            { skel->maps.xdp_dp_tnl_hdrs, -1,
              "tunnel headers from XDP to TC, the program's own" },
            { skel->maps.xdp_dp_tnl_wide, -1,
              "wide tunnel metadata, the program's own" },
            { skel->maps.xdp_dp_scratch, -1, "the program's scratch space" },
            { skel->maps.xdp_dp_pass_buf, -1,
              "the program's per-pass buffer" },
            { skel->maps.xdp_dp_ct, -1,
              "connection cache, written per connection" },
            { skel->maps.xdp_dp_ct_entries, -1,
              "what ct() gives each cached direction" },
            { skel->maps.xdp_dp_ct_stats, -1,
              "their counters, read through mmap" },
            { skel->maps.xdp_dp_ct_next, -1,
              "the flow after each cached ct(), zeroed through mmap" },
            { skel->maps.xdp_dp_layout, -1,
              "the layout of the pinned maps, written once" },
        };

        ds_put_format(&s, "%s:\n", dp->name);
        maps_format(&s, port_maps, ARRAY_SIZE(port_maps));
        dp_xdp_flow_format_maps(dp, &s);
        dp_xdp_compile_format_maps(dp, &s);
        maps_format(&s, other_maps, ARRAY_SIZE(other_maps));
        dp_xdp_ctcache_format(dp->ctcache, &s, false);
    }
    ovs_mutex_unlock(&dp_xdp_mutex);

    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

/* How long after a restart ports have to claim the links an earlier
 * ovs-vswitchd pinned, before the rest are removed. */
#define DP_XDP_TAKE_OVER_MS 10000

/* Sizes the statistics arrays of 'skel' (flows' and connections'), not
 * yet loaded, in lanes (a lane per CPU, and ovs-vswitchd's for the flows,
 * see maps/flow-stats.c), and gives its programs the constants that say
 * so.  Returns 0 or a positive errno. */
static int
dp_xdp_stats_lanes_set(struct xdp_dp *skel)
{
    return xdp_flow_stats_size(
        skel->maps.xdp_dp_flow_stats, skel->maps.xdp_dp_ct_stats,
        CONST_CAST(uint32_t *, &skel->rodata->xdp_dp_stats_cpu_lanes),
        CONST_CAST(uint32_t *, &skel->rodata->xdp_dp_stats_own_lane));
}

/* Gives the not yet loaded instance whose lane constants are at
 * 'cpu_lanes' and 'own_lane' (an XDP or a TC skeleton's read-only data)
 * those of 'dp''s own skeleton, which sized the shared statistics array
 * (dp_xdp_stats_lanes_set()). */
static void
dp_xdp_stats_lanes_copy(const struct dp_xdp *dp,
                        const volatile uint32_t *cpu_lanes,
                        const volatile uint32_t *own_lane)
{
    *CONST_CAST(uint32_t *, cpu_lanes)
        = dp->skel->rodata->xdp_dp_stats_cpu_lanes;
    *CONST_CAST(uint32_t *, own_lane)
        = dp->skel->rodata->xdp_dp_stats_own_lane;
}

/* Opens and loads 'dp''s skeleton, with its maps pinned (reusing those of
 * an earlier run when their layout matches).  Returns 0 or a positive
 * errno. */
static int
dp_xdp_load(struct dp_xdp *dp)
{
    int error;

    for (int attempt = 0; attempt < 2; attempt++) {
        dp->skel = xdp_dp__open();
        if (!dp->skel) {
            error = errno;
            break;
        }
        error = dp_xdp_stats_lanes_set(dp->skel);
        if (error) {
            xdp_dp__destroy(dp->skel);
            dp->skel = NULL;
            break;
        }
        dp->pinned = xdp_pin_prepare(dp->name, dp->skel->obj, &dp->reused);
        error = xdp_dp__load(dp->skel);
        if (!error) {
            return 0;
        }
        error = -error;
        xdp_dp__destroy(dp->skel);
        dp->skel = NULL;
        if (!dp->reused) {
            break;
        }
        /* libbpf found a pinned map that differs from ours: start afresh. */
        VLOG_WARN("%s: cannot reuse the pinned maps (%s): removing them",
                  dp->name, ovs_strerror(error));
        xdp_pin_remove(dp->name);
    }
    VLOG_ERR("%s: cannot load the XDP datapath program (%s)%s", dp->name,
             ovs_strerror(error),
             error == EPERM ? "; ovs-vswitchd needs CAP_BPF, "
             "CAP_PERFMON and CAP_NET_ADMIN" : "");
    return error;
}

/* Loads the TC pipeline (datapath/tc-dp.bpf.c) for 'dp', sharing every map
 * of 'dp->skel' but the pipeline's own scratch space and globals, which
 * it gets the values of.  Without it, ports cannot be in tc mode: a
 * warning says why, and the datapath goes on. */
static void
dp_xdp_load_tc_pipeline(struct dp_xdp *dp)
{
    struct tc_dp *skel = tc_dp__open();
    struct bpf_map *map;
    int error;

    dp->tc_skel = NULL;
    dp->tc_pipeline_fd = -1;
    if (!skel) {
        error = errno;
        goto error;
    }
    bpf_object__for_each_map (map, skel->obj) {
        const char *name = bpf_map__name(map);
        struct bpf_map *old;

        old = bpf_object__find_map_by_name(dp->skel->obj, name);
        if (!old) {
            /* Its globals (.data, .rodata, .bss) and tc_dp_buf. */
            continue;
        }
        if (bpf_map__reuse_fd(map, bpf_map__fd(old))) {
            error = errno;
            goto error;
        }
    }
    skel->data->xdp_parse_vlan_limit = flow_vlan_limit;
    dp_xdp_stats_lanes_copy(dp, &skel->rodata->xdp_dp_stats_cpu_lanes,
                            &skel->rodata->xdp_dp_stats_own_lane);
    skel->data->xdp_dp_upcall_burst = dp->skel->data->xdp_dp_upcall_burst;
    skel->data->xdp_dp_slow_path_burst
        = dp->skel->data->xdp_dp_slow_path_burst;
    error = tc_dp__load(skel);
    if (error) {
        error = -error;
        goto error;
    }
    dp->tc_skel = skel;
    dp->tc_pipeline_fd = bpf_program__fd(skel->progs.tc_dp_main);
    return;

error:
    VLOG_WARN("%s: cannot load the TC pipeline (%s): no port can be in tc "
              "mode", dp->name, ovs_strerror(error));
    tc_dp__destroy(skel);
}

/* Keeps the program's VLAN limit equal to ovs-vswitchd's, removes ports
 * whose devices went away, and removes the links that an earlier
 * ovs-vswitchd pinned for ports that nobody has added back since the
 * restart.  Runs native tunneling's neighbour cache and port map, as
 * dpif-netdev does, and returns true when their configuration changed, so
 * that ofproto revalidates the flows that could not reach a tunnel's
 * next hop before it was learnt. */
static bool
dpif_xdp_run(struct dpif *dpif)
{
    struct dp_xdp *dp = get_dp_xdp(dpif);
    uint64_t tnl_seq;

    /* The programs pull as many VLAN tags as flow_extract() does. */
    if (dp->skel->data->xdp_parse_vlan_limit != flow_vlan_limit) {
        dp->skel->data->xdp_parse_vlan_limit = flow_vlan_limit;
    }
    if (dp->tc_skel
        && dp->tc_skel->data->xdp_parse_vlan_limit != flow_vlan_limit) {
        dp->tc_skel->data->xdp_parse_vlan_limit = flow_vlan_limit;
    }

    ovs_mutex_lock(&dp->port_mutex);
    dp_xdp_check_devices(dp);
    dp_xdp_peer_run(dp);
    if (dp->n_stale_links && time_msec() >= dp->stale_deadline) {
        for (int i = 0; i < dp->n_stale_links; i++) {
            char *path = xdp_pin_link_path(dp->name, dp->stale_links[i]);

            if (!unlink(path)) {
                VLOG_INFO("%s: detached the program from ifindex %d, a port "
                          "of an earlier run that is no longer configured",
                          dp->name, dp->stale_links[i]);
            }
            free(path);
        }
        free(dp->stale_links);
        dp->stale_links = NULL;
        dp->n_stale_links = 0;
    }
    ovs_mutex_unlock(&dp->port_mutex);

    dp_xdp_flow_run(dp);
    tnl_neigh_cache_run();
    tnl_port_map_run();
    tnl_seq = seq_read(tnl_conf_seq);
    if (dp->last_tnl_conf_seq != tnl_seq) {
        dp->last_tnl_conf_seq = tnl_seq;
        return true;
    }
    return false;
}

static void
dpif_xdp_wait(struct dpif *dpif)
{
    struct dp_xdp *dp = get_dp_xdp(dpif);

    seq_wait(tnl_conf_seq, dp->last_tnl_conf_seq);
    dp_xdp_flow_wait(dp);

    /* The deadlines that dpif_xdp_run() keeps: the next poll of the veth
     * peers, and the removal of links that no configured port claimed. */
    ovs_mutex_lock(&dp->port_mutex);
    if (!hmap_is_empty(&dp->ports)) {
        poll_timer_wait_until(dp->peer_check_deadline);
    }
    if (dp->n_stale_links) {
        poll_timer_wait_until(dp->stale_deadline);
    }
    ovs_mutex_unlock(&dp->port_mutex);
}

void
dp_xdp_claim_stale_link(struct dp_xdp *dp, int ifindex)
    OVS_REQUIRES(dp->port_mutex)
{
    for (int i = 0; i < dp->n_stale_links; i++) {
        if (dp->stale_links[i] == ifindex) {
            dp->stale_links[i] = dp->stale_links[--dp->n_stale_links];
            return;
        }
    }
}

/* Loads a new instance of 'dp''s program that shares all of its maps (so
 * the flow table, statistics, ports and upcall rings carry on), compiled
 * for 'cfg' (see datapath/xdp-dp.h), or the generic program if 'cfg' is
 * NULL.  The instance is not attached anywhere.  Returns 0 and stores it
 * in '*skelp', or a positive errno; libbpf logs the verifier's reasons
 * through libbpf_print(). */
int
dp_xdp_load_program(struct dp_xdp *dp, const struct xdp_dp_cfg *cfg,
                    struct xdp_dp **skelp)
{
    struct xdp_dp *skel = xdp_dp__open();
    struct bpf_map *map;
    int error;

    *skelp = NULL;
    if (!skel) {
        return errno;
    }
    bpf_object__for_each_map (map, skel->obj) {
        const char *name = bpf_map__name(map);
        struct bpf_map *old;

        if (strstr(name, ".rodata")) {
            continue;           /* Constants: this instance's own. */
        }
        /* Global variables (.data) are shared too: every instance sees
         * the VLAN limit that dpif_xdp_run() sets. */
        old = bpf_object__find_map_by_name(dp->skel->obj, name);
        if (!old || bpf_map__reuse_fd(map, bpf_map__fd(old))) {
            error = old ? errno : ENOENT;
            VLOG_WARN("%s: cannot share map %s with the new program (%s)",
                      dp->name, name, ovs_strerror(error));
            xdp_dp__destroy(skel);
            return error;
        }
    }
    if (cfg) {
        memcpy(CONST_CAST(struct xdp_dp_cfg *, &skel->rodata->xdp_dp_cfg),
               cfg, sizeof *cfg);
    }
    dp_xdp_stats_lanes_copy(dp, &skel->rodata->xdp_dp_stats_cpu_lanes,
                            &skel->rodata->xdp_dp_stats_own_lane);
    error = xdp_dp__load(skel);
    if (error) {
        error = -error;
        VLOG_WARN("%s: cannot load the new program (%s)",
                  dp->name, ovs_strerror(error));
        xdp_dp__destroy(skel);
        return error;
    }
    *skelp = skel;
    return 0;
}

/* Replaces 'dp''s program by 'skel', loaded by dp_xdp_load_program() (or
 * 'dp->skel', the generic program that 'dp' keeps), and swaps it in on
 * every port at once with bpf_link_update(): an upgrade, and how a
 * recompiled program comes in.  The kernel's dispatcher changes twice (the
 * new program joins, the old one leaves), however many ports there are.
 * Takes ownership of 'skel', unless it is 'dp->skel'.  Returns 0 or a
 * positive errno; on failure the old program keeps running on every port
 * it ran on.
 *
 * The caller holds the compiler's mutex, which serializes swaps.  The
 * links are updated under 'port_mutex' alone, so that flow puts and
 * deletes (under 'flow_mutex') go on meanwhile.  While the swap is under
 * way, 'live_action_bits' holds only the actions both programs have code
 * for: a flow put then that needs another asks the compiler for a program
 * that has it (flow_check_actions() in dpif-xdp-flow.c) instead of
 * counting on either. */
int
dp_xdp_swap_program(struct dp_xdp *dp, struct xdp_dp *skel, struct ds *reply)
    OVS_EXCLUDED(dp->flow_mutex, dp->port_mutex)
{
    uint32_t new_bits = (skel->rodata->xdp_dp_cfg.enabled
                         ? skel->rodata->xdp_dp_cfg.action_bits
                         : UINT32_MAX);
    struct xdp_dp *old = NULL;
    struct dp_xdp_port *port;
    uint32_t old_id, new_id, old_bits;
    int error = 0, n_ports = 0;

    ovs_mutex_lock(&dp->flow_mutex);
    old_bits = dp->live_action_bits;
    dp->live_action_bits = old_bits & new_bits;
    ovs_mutex_unlock(&dp->flow_mutex);

    ovs_mutex_lock(&dp->port_mutex);
    int new_xdp = bpf_program__fd(skel->progs.xdp_dp_main);
    int new_tc = bpf_program__fd(skel->progs.xdp_dp_tc);
    HMAP_FOR_EACH (port, node, &dp->ports) {
        if (port->attached) {
            int e = xdp_attach_swap(netdev_get_name(port->tx_netdev),
                                    &port->att, new_xdp, new_tc);
            if (e == ENOLINK) {
                /* The device went away: dp_xdp_check_devices() drops the
                 * port.  The others take the new program. */
                continue;
            }
            error = error ? error : e;
            n_ports++;
        }
    }
    old_id = prog_id(dp->xdp_prog_fd);
    new_id = prog_id(new_xdp);
    if (!error) {
        /* 'dp->skel', which owns the maps every instance shares, stays;
         * only the instance that has become idle goes. */
        old = dp->live_skel != dp->skel ? dp->live_skel : NULL;
        dp->live_skel = skel;
        dp->xdp_prog_fd = new_xdp;
        dp->tc_prog_fd = new_tc;
        skel = NULL;
    }
    ovs_mutex_unlock(&dp->port_mutex);

    ovs_mutex_lock(&dp->flow_mutex);
    dp->live_action_bits = error ? old_bits : new_bits;
    ovs_mutex_unlock(&dp->flow_mutex);
    xdp_dp__destroy(old);

    if (error) {
        /* Some ports may run the new program already: it shares the maps,
         * so that is harmless, and it stays loaded through their links. */
        if (skel != dp->skel) {
            xdp_dp__destroy(skel);
        }
        return error;
    }
    if (reply) {
        ds_put_format(reply, "%s: program id %"PRIu32" replaced by id "
                      "%"PRIu32" on %d ports\n", dp->name, old_id, new_id,
                      n_ports);
    }
    VLOG_INFO("%s: program id %"PRIu32" replaced by id %"PRIu32" on %d "
              "ports", dp->name, old_id, new_id, n_ports);
    return 0;
}

/* Calls 'cb' with 'aux' for datapath 'name', or for every datapath if
 * 'name' is NULL, with the global datapath mutex held (so a datapath
 * cannot go away meanwhile).  Returns false if 'name' names none. */
bool
dp_xdp_foreach(const char *name, void (*cb)(struct dp_xdp *, void *aux),
               void *aux)
{
    struct shash_node *node;
    bool found = false;

    ovs_mutex_lock(&dp_xdp_mutex);
    SHASH_FOR_EACH (node, &dp_xdps) {
        struct dp_xdp *dp = node->data;

        if (!name || !strcmp(name, dp->name)) {
            cb(dp, aux);
            found = true;
        }
    }
    ovs_mutex_unlock(&dp_xdp_mutex);
    return found || !name;
}

/* Creates datapath 'name': loads its program and maps.  Returns 0 and
 * stores the datapath in '*dpp', or a positive errno. */
static int
dp_xdp_create(const char *name, struct dp_xdp **dpp)
    OVS_REQUIRES(dp_xdp_mutex)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;
    bool upcalls_ready = false;
    struct dp_xdp *dp;
    int error;

    if (ovsthread_once_start(&once)) {
        libbpf_set_print(libbpf_print);
        unixctl_command_register("dispatcher/show", "[dp]", 0, 1,
                                 dpif_xdp_unixctl_dispatcher_show, NULL);
        unixctl_command_register("dpif-xdp/maps-show", "[dp]", 0, 1,
                                 dpif_xdp_unixctl_maps_show, NULL);
        dp_xdp_compile_register_commands();
        dp_xdp_stats_register_commands();
        ovsthread_once_done(&once);
    }

    dp = xzalloc(sizeof *dp);
    dp->name = xstrdup(name);
    dp->upcall_map_fd = -1;
    dp->quiet_map_fd = -1;
    dp->sample_map_fd = -1;
    dp->tc_pipeline_fd = -1;
    ovs_mutex_init(&dp->port_mutex);
    hmap_init(&dp->ports);
    /* As for flows (dp_xdp_flow_init()), tests may lower the limit. */
    dp->max_ports = dp_xdp_env_limit("OVS_XDP_MAX_PORTS", DP_XDP_MAX_PORTS);
    dp->port_seq = seq_create();
    dp_xdp_flow_init(dp);
    dp_xdp_ct_init(dp);

    error = dp_xdp_load(dp);
    if (error) {
        goto error;
    }
    dp->live_skel = dp->skel;
    dp->xdp_prog_fd = bpf_program__fd(dp->skel->progs.xdp_dp_main);
    dp->skel->data->xdp_parse_vlan_limit = flow_vlan_limit;
    dp->tc_prog_fd = bpf_program__fd(dp->skel->progs.xdp_dp_tc);
    dp_xdp_load_tc_pipeline(dp);

    error = xdp_flow_stats_map_open(
        &dp->stats_map, bpf_map__fd(dp->skel->maps.xdp_dp_flow_stats),
        XDP_DP_MAX_FLOWS);
    if (error) {
        VLOG_ERR("%s: cannot mmap flow statistics (%s)",
                 name, ovs_strerror(error));
        goto error;
    }
    uint32_t n_ids;
    dp->flow_ids = xdp_array_mmap(bpf_map__fd(dp->skel->maps.xdp_dp_flow_ids),
                                  sizeof *dp->flow_ids, &dp->flow_ids_size,
                                  &n_ids);
    if (dp->flow_ids) {
        /* Pinned, it holds an earlier run's ids, which this run may give
         * again; its flows get new ones as they are restored. */
        memset(dp->flow_ids, 0, dp->flow_ids_size);
    } else {
        /* Then no packet skips the pass after a cached ct(). */
        VLOG_WARN("%s: cannot mmap the flow ids (%s)", name,
                  ovs_strerror(errno));
    }
    uint32_t n_seq;
    dp->gre_seq = xdp_array_mmap(bpf_map__fd(dp->skel->maps.xdp_dp_gre_seq),
                                 sizeof *dp->gre_seq, &dp->gre_seq_size,
                                 &n_seq);
    if (!dp->gre_seq || n_seq < XDP_DP_MAX_PORTS) {
        /* XDP would number GRE packets that ovs-vswitchd could not. */
        error = dp->gre_seq ? EINVAL : errno;
        VLOG_ERR("%s: cannot mmap the GRE sequence numbers (%s)",
                 name, ovs_strerror(error));
        goto error;
    }
    error = dp_xdp_upcall_init(dp);
    if (error) {
        goto error;
    }
    upcalls_ready = true;
    dp->ctcache = dp_xdp_ctcache_create(dp->conntrack, dp->skel, name);

    if (dp->reused) {
        dp_xdp_flow_restore(dp);
    }
    error = dp_xdp_flow_fill_subtables(dp);
    if (error) {
        goto error;
    }
    if (dp->reused) {
        dp->n_stale_links = xdp_pin_list_links(name, &dp->stale_links);
        dp->stale_deadline = time_msec() + DP_XDP_TAKE_OVER_MS;
    }
    if (dp->pinned) {
        error = xdp_pin_write_layout(
            bpf_map__fd(dp->skel->maps.xdp_dp_layout));
        if (error) {
            VLOG_WARN("%s: cannot record the pinned layout (%s)",
                      name, ovs_strerror(error));
        }
    }

    dp->live_action_bits = UINT32_MAX;
    dp_xdp_compile_init(dp);
    shash_add(&dp_xdps, name, dp);
    VLOG_INFO("%s: %s xdp datapath", name,
              dp->reused ? "took over the pinned" : "created");
    *dpp = dp;
    return 0;

error:
    dp_xdp_ctcache_destroy(dp->ctcache);
    if (upcalls_ready) {
        dp_xdp_upcall_destroy(dp);
    }
    xdp_flow_stats_map_close(&dp->stats_map);
    if (dp->flow_ids) {
        munmap(dp->flow_ids, dp->flow_ids_size);
        dp->flow_ids = NULL;
    }
    if (dp->gre_seq) {
        munmap(dp->gre_seq, dp->gre_seq_size);
        dp->gre_seq = NULL;
    }
    tc_dp__destroy(dp->tc_skel);
    xdp_dp__destroy(dp->skel);
    dp_xdp_flow_destroy(dp);
    dp_xdp_ct_destroy(dp);
    seq_destroy(dp->port_seq);
    hmap_destroy(&dp->ports);
    ovs_mutex_destroy(&dp->port_mutex);
    free(dp->name);
    free(dp);
    return error;
}

static void
dp_xdp_free(struct dp_xdp *dp)
    OVS_REQUIRES(dp_xdp_mutex)
{
    struct dp_xdp_port *port;

    shash_find_and_delete(&dp_xdps, dp->name);
    dp_xdp_compile_destroy(dp);

    ovs_mutex_lock(&dp->port_mutex);
    HMAP_FOR_EACH_POP (port, node, &dp->ports) {
        dp_xdp_port_destroy(dp, port);
    }
    ovs_mutex_unlock(&dp->port_mutex);

    dp_xdp_upcall_destroy(dp);
    dp_xdp_flow_destroy(dp);
    dp_xdp_ctcache_destroy(dp->ctcache);
    dp_xdp_ct_destroy(dp);
    xdp_flow_stats_map_close(&dp->stats_map);
    if (dp->flow_ids) {
        munmap(dp->flow_ids, dp->flow_ids_size);
        dp->flow_ids = NULL;
    }
    if (dp->gre_seq) {
        munmap(dp->gre_seq, dp->gre_seq_size);
        dp->gre_seq = NULL;
    }
    if (dp->live_skel != dp->skel) {
        xdp_dp__destroy(dp->live_skel);
    }
    tc_dp__destroy(dp->tc_skel);
    xdp_dp__destroy(dp->skel);
    if (dp->pinned) {
        /* dpif_delete(): nothing of this datapath is to survive. */
        xdp_pin_remove(dp->name);
    }
    free(dp->stale_links);
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
        int error = create ? dp_xdp_create(name, &dp) : ENODEV;

        if (error) {
            ovs_mutex_unlock(&dp_xdp_mutex);
            return error;
        }
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
    struct dp_xdp *dp = get_dp_xdp(dpif);
    struct xdp_dp_stats sum;

    memset(stats, 0, sizeof *stats);
    dp_xdp_read_stats(dp, &sum);
    /* OVS's "hit" is a packet that matched a flow in the datapath, a
     * slow-path flow too. */
    stats->n_hit = sum.n_hit + sum.n_slow_path;
    stats->n_missed = sum.n_missed;
    stats->n_lost = sum.n_lost + dp_xdp_upcall_lost(dp);
    stats->n_mask_hit = sum.n_mask_hit;
    dp_xdp_flow_get_counts(dp, &stats->n_flows, &stats->n_masks);
    stats->n_cache_hit = UINT64_MAX;
    return 0;
}

/* OpenFlow's set_queue: the skb priority that the device's qdisc
 * classifies into queue 'queue_id', as the kernel datapath maps it (for
 * linux-htb and linux-hfsc, whose classes OVS numbers 1:1 up); XDP hands
 * it to the skb path (see "Queues and truncation" in datapath/xdp-dp.h). */
static int
dpif_xdp_queue_to_priority(const struct dpif *dpif OVS_UNUSED,
                           uint32_t queue_id, uint32_t *priority)
{
    if (queue_id >= 0xf000) {
        return EINVAL;
    }
    *priority = TC_H_MAKE(1 << 16, queue_id + 1);
    return 0;
}

/* No user features (the kernel module's OVS_DP_F_* flags) apply here. */
static int
dpif_xdp_set_features(struct dpif *dpif OVS_UNUSED,
                      uint32_t user_features OVS_UNUSED)
{
    return 0;
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

/* Flow operations. */

static void
dpif_xdp_operate(struct dpif *dpif, struct dpif_op **ops, size_t n_ops,
                 enum dpif_offload_type offload_type OVS_UNUSED)
{
    struct dp_xdp *dp = get_dp_xdp(dpif);

    size_t i = 0;
    while (i < n_ops) {
        struct dpif_op *op = ops[i];
        size_t n = 1;

        /* Runs of puts and of deletes go to the kernel in batches. */
        while (i + n < n_ops && ops[i + n]->type == op->type) {
            n++;
        }
        switch (op->type) {
        case DPIF_OP_FLOW_PUT:
            dp_xdp_flow_put_batch(dp, &ops[i], n);
            i += n;
            continue;
        case DPIF_OP_FLOW_DEL:
            dp_xdp_flow_del_batch(dp, &ops[i], n);
            i += n;
            continue;
        case DPIF_OP_FLOW_GET:
            op->error = dp_xdp_flow_get(dp, &op->flow_get);
            break;
        case DPIF_OP_EXECUTE:
            op->error = dp_xdp_execute(dp, &op->execute);
            break;
        default:
            op->error = EINVAL;
            break;
        }
        i++;
    }
}

/* Upcalls are always on: the program sends misses whether or not anybody
 * reads them. */
static int
dpif_xdp_recv_set(struct dpif *dpif OVS_UNUSED, bool enable OVS_UNUSED)
{
    return 0;
}

/* other_config of the Open_vSwitch table. */
static int
dpif_xdp_set_config(struct dpif *dpif, const struct smap *other_config)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    const char *s = smap_get(other_config, "xdp-ct-cache-size");
    unsigned int n_conns = XDP_DP_MAX_CT / 2;
    int error = 0;

    if (s && (!str_to_uint(s, 10, &n_conns) || n_conns > XDP_DP_MAX_CT / 2)) {
        VLOG_WARN("%s: other_config:xdp-ct-cache-size=%s is not a number of "
                  "connections from 0 to %d; using %d", dp->name, s,
                  XDP_DP_MAX_CT / 2, XDP_DP_MAX_CT / 2);
        n_conns = XDP_DP_MAX_CT / 2;
        error = EINVAL;
    }
    dp_xdp_ctcache_set_size(dp->ctcache, n_conns);

    int error2 = dp_xdp_upcall_set_config(dp, other_config);
    return error ? error : error2;
}

/* The datapath is this build's own BPF programs, as dpif-netdev's is
 * built in; the ABI version names the layout of their maps. */
static char *
dpif_xdp_get_datapath_version(void)
{
    return xasprintf("<built-in> (xdp program ABI %d)", XDP_DP_ABI_VERSION);
}

/* The hooks, in the order of 'struct dpif_class', each implemented or
 * NULL with the reason.  Naming: everything ofproto or ovs-vswitchd-xdp
 * calls is dpif_xdp_* (the hooks below, wherever they live, and
 * dpif-xdp.h); what the provider's modules share among themselves is
 * dp_xdp_* (dpif-xdp-private.h). */
const struct dpif_class dpif_xdp_class = {
    .type = "xdp",
    /* Like the kernel datapath's, our internal ports outlive ovs-vswitchd
     * (they are veth pairs); 'exit --cleanup' still removes them. */
    .cleanup_required = false,
    /* Nothing to set up before the first datapath: dp_xdp_create() does
     * the once-only work (its appctl commands, libbpf's log). */
    .init = NULL,
    .enumerate = dpif_xdp_enumerate,
    .port_open_type = dpif_xdp_port_open_type,
    .open = dpif_xdp_open,
    .close = dpif_xdp_close,
    .destroy = dpif_xdp_destroy,
    .run = dpif_xdp_run,
    .wait = dpif_xdp_wait,
    .get_stats = dpif_xdp_get_stats,
    .set_features = dpif_xdp_set_features,
    .port_add = dpif_xdp_port_add,
    .port_del = dpif_xdp_port_del,
    .port_set_config = dpif_xdp_port_set_config,
    .port_query_by_number = dpif_xdp_port_query_by_number,
    .port_query_by_name = dpif_xdp_port_query_by_name,
    /* Upcalls come up per-CPU perf rings that ovs-vswitchd reads itself,
     * not per-port Netlink sockets: there is no pid to hand out (see
     * handler_for_pid() in dpif-xdp-upcall.c). */
    .port_get_pid = NULL,
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
    /* No hardware offload. */
    .offload_stats_get = NULL,
    .recv_set = dpif_xdp_recv_set,
    .handlers_set = dpif_xdp_handlers_set,
    /* ofproto's default number of handlers serves: ring i goes to handler
     * i % n (dpif-xdp-rings.c), whatever n is. */
    .number_handlers_required = NULL,
    .set_config = dpif_xdp_set_config,
    .queue_to_priority = dpif_xdp_queue_to_priority,
    .recv = dpif_xdp_recv,
    .recv_wait = dpif_xdp_recv_wait,
    .recv_purge = dpif_xdp_recv_purge,
    /* No thread of ours has caches for ofproto to purge. */
    .register_dp_purge_cb = NULL,
    /* Our upcalls reach ofproto through recv(), as the kernel datapath's
     * do, but for the misses of packets that ofproto itself executes,
     * which run its callback in the executing thread, as dpif-netdev's
     * do (dpif-xdp-miss.c). */
    .register_upcall_cb = dpif_xdp_register_upcall_cb,
    .enable_upcall = dpif_xdp_enable_upcall,
    .disable_upcall = dpif_xdp_disable_upcall,
    .get_datapath_version = dpif_xdp_get_datapath_version,
    /* Connection tracking: OVS's userspace tracker, one per datapath, run
     * by ovs-vswitchd for ct() actions (dpif-xdp-ct.c). */
    .ct_dump_start = dpif_xdp_ct_dump_start,
    .ct_dump_next = dpif_xdp_ct_dump_next,
    .ct_dump_done = dpif_xdp_ct_dump_done,
    .ct_flush = dpif_xdp_ct_flush,
    .ct_set_maxconns = dpif_xdp_ct_set_maxconns,
    .ct_get_maxconns = dpif_xdp_ct_get_maxconns,
    .ct_get_nconns = dpif_xdp_ct_get_nconns,
    .ct_set_tcp_seq_chk = dpif_xdp_ct_set_tcp_seq_chk,
    .ct_get_tcp_seq_chk = dpif_xdp_ct_get_tcp_seq_chk,
    .ct_set_limits = dpif_xdp_ct_set_limits,
    .ct_get_limits = dpif_xdp_ct_get_limits,
    .ct_del_limits = dpif_xdp_ct_del_limits,
    .ct_set_timeout_policy = dpif_xdp_ct_set_timeout_policy,
    .ct_get_timeout_policy = dpif_xdp_ct_get_timeout_policy,
    .ct_del_timeout_policy = dpif_xdp_ct_del_timeout_policy,
    /* No dump of timeout policies: ofproto dumps them only to learn which
     * ids a kernel datapath kept from an earlier run, and the tracker
     * lives and dies with this process. */
    .ct_timeout_policy_dump_start = NULL,
    .ct_timeout_policy_dump_next = NULL,
    .ct_timeout_policy_dump_done = NULL,
    .ct_get_timeout_policy_name = dpif_xdp_ct_get_timeout_policy_name,
    .ct_get_features = dpif_xdp_ct_get_features,
    .ipf_set_enabled = dpif_xdp_ipf_set_enabled,
    .ipf_set_min_frag = dpif_xdp_ipf_set_min_frag,
    .ipf_set_max_nfrags = dpif_xdp_ipf_set_max_nfrags,
    .ipf_get_status = dpif_xdp_ipf_get_status,
    .ipf_dump_start = dpif_xdp_ipf_dump_start,
    .ipf_dump_next = dpif_xdp_ipf_dump_next,
    .ipf_dump_done = dpif_xdp_ipf_dump_done,
    /* OpenFlow meters, run in XDP (dpif-xdp-meter.c). */
    .meter_get_features = dpif_xdp_meter_get_features,
    .meter_set = dpif_xdp_meter_set,
    .meter_get = dpif_xdp_meter_get,
    .meter_del = dpif_xdp_meter_del,
    /* Bonds are ofproto's: balance-tcp hashes and recirculates, which XDP
     * runs; there is no datapath bond to hand them to (dpif-netdev's
     * lb-output). */
    .bond_add = NULL,
    .bond_del = NULL,
    .bond_stats_get = NULL,
    /* No datapath caches that ofproto sizes (dpif-netdev's EMC and SMC);
     * the compiled programs' mask cache has a fixed size (see
     * xdp-dp-classify.h). */
    .cache_get_supported_levels = NULL,
    .cache_get_name = NULL,
    .cache_get_size = NULL,
    .cache_set_size = NULL,
};
