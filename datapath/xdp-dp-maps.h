/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_MAPS_H
#define XDP_DP_MAPS_H 1

/* The maps of the datapath program.  ovs-vswitchd creates them through the
 * skeleton; the layout of each value is in xdp-dp.h. */

#include <linux/bpf.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xdp-dp.h"

/* Ingress ifindex -> datapath port number, with XDP_DP_IN_PORT_F_* flags
 * in the high bits, for the ports of this datapath.  A packet from any
 * other device is passed to the stack. */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, XDP_DP_MAX_PORTS);
    __type(key, __u32);
    __type(value, __u32);
} xdp_dp_in_ports SEC(".maps");

/* Datapath port number -> how to transmit on it. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, XDP_DP_MAX_PORTS);
    __type(key, __u32);
    __type(value, struct xdp_dp_port);
} xdp_dp_ports SEC(".maps");

/* Ifindex of a port in XDP_DP_TX_PEER mode -> its veth peer. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
    __uint(max_entries, XDP_DP_MAX_PORTS);
    __type(key, __u32);
    __type(value, struct xdp_dp_peer);
} xdp_dp_peers SEC(".maps");

/* The mask cache of compiled programs (see classify_compiled()). */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, XDP_DP_MASK_CACHE_SETS);
    __type(key, __u32);
    __type(value, struct xdp_dp_mask_cache_entry);
} xdp_dp_mask_cache SEC(".maps");

/* Datapath port number -> device, for bpf_redirect_map(). */
struct {
    __uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
    __uint(max_entries, XDP_DP_MAX_PORTS);
    __type(key, __u32);
    __type(value, __u32);
} xdp_dp_tx_ports SEC(".maps");

/* Subtable masks, indexed by mask slot. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, XDP_DP_MAX_MASKS);
    __type(key, __u32);
    __type(value, struct xdp_dp_mask);
} xdp_dp_masks SEC(".maps");

/* The order of subtables: two copies, see struct xdp_dp_mask_list. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 2);
    __type(key, __u32);
    __type(value, struct xdp_dp_mask_list);
} xdp_dp_mask_lists SEC(".maps");

/* Which copy of xdp_dp_mask_lists is current (0 or 1). */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, __u32);
} xdp_dp_mask_active SEC(".maps");

/* The template of a subtable: masked key -> flow.  Entries are allocated
 * as flows are installed. */
struct xdp_dp_subtable {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(map_flags, BPF_F_NO_PREALLOC);
    __uint(max_entries, XDP_DP_MAX_FLOWS);
    __uint(key_size, sizeof(struct xdp_flow_key));
    __uint(value_size, sizeof(struct xdp_flow));
};

/* Subtables, indexed by mask slot.  ovs-vswitchd creates a subtable map
 * when a mask first appears and removes it with the mask's last flow. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
    __uint(max_entries, XDP_DP_MAX_MASKS);
    __type(key, __u32);
    __array(values, struct xdp_dp_subtable);
} xdp_dp_subtables SEC(".maps");

/* Compact-key subtables of compiled programs (see "Compiled programs" in
 * xdp-dp.h): for each N of XDP_DP_CKEY_CLASSES, xdp_dp_ckeys_N holds, at
 * a mask slot, the hash map of that subtable's flows by compact key of N
 * 32-bit words.  ovs-vswitchd sizes each inner map to its subtable, so the
 * template's max_entries is only a placeholder (hash maps in an array of
 * maps may differ in size). */
#define XDP_DP_CKEYS_MAP(N)                                             \
    struct xdp_dp_ckey_template_##N {                                   \
        __uint(type, BPF_MAP_TYPE_HASH);                                \
        __uint(map_flags, BPF_F_NO_PREALLOC);                           \
        __uint(max_entries, 1);                                         \
        __uint(key_size, (N) * 4);                                      \
        __uint(value_size, sizeof(struct xdp_flow));                    \
    };                                                                  \
    struct {                                                            \
        __uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);                       \
        __uint(max_entries, XDP_DP_MAX_MASKS);                          \
        __type(key, __u32);                                             \
        __array(values, struct xdp_dp_ckey_template_##N);               \
    } xdp_dp_ckeys_##N SEC(".maps")

XDP_DP_CKEYS_MAP(2);
XDP_DP_CKEYS_MAP(4);
XDP_DP_CKEYS_MAP(6);
XDP_DP_CKEYS_MAP(8);
XDP_DP_CKEYS_MAP(12);
XDP_DP_CKEYS_MAP(16);

/* Per-flow statistics, indexed by flow slot, read by ovs-vswitchd through
 * mmap(). */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(map_flags, BPF_F_MMAPABLE);
    __uint(max_entries, XDP_DP_MAX_FLOWS);
    __type(key, __u32);
    __type(value, struct xdp_flow_stats);
} xdp_dp_flow_stats SEC(".maps");

/* The lanes of xdp_dp_flow_stats that the programs add to (see "struct
 * xdp_flow_stats" in xdp-dp.h), set by ovs-vswitchd before it loads a
 * program: CPU lanes, and whether each CPU has a lane of its own. */
const volatile __u32 xdp_dp_stats_cpu_lanes = 1;
const volatile __u32 xdp_dp_stats_own_lane = 0;

/* This CPU's lane of the statistics arrays. */
static __always_inline __u32
xdp_dp_stats_lane(void)
{
    __u32 lane = 0;

    if (xdp_dp_stats_cpu_lanes > 1) {
        lane = bpf_get_smp_processor_id();
        if (lane >= xdp_dp_stats_cpu_lanes) {
            lane %= xdp_dp_stats_cpu_lanes;
        }
    }
    return lane;
}

/* Adds a packet of 'len' bytes with TCP flags 'tcp_flags' (network order;
 * zero for a packet that is not TCP) to 'st', a slot of this CPU's lane:
 * plain adds where the lane is this CPU's alone, atomic ones where CPUs
 * share it. */
static __always_inline void
xdp_dp_stats_add(struct xdp_flow_stats *st, __u64 len, __be16 tcp_flags)
{
    /* Millisecond precision is all 'used' needs: the coarse clock costs
     * less than bpf_ktime_get_ns(). */
    if (xdp_dp_stats_own_lane) {
        st->n_packets++;
        st->n_bytes += len;
        st->used = bpf_ktime_get_coarse_ns();
        if (tcp_flags) {
            st->tcp_flags |= bpf_ntohs(tcp_flags);
        }
    } else {
        __sync_fetch_and_add(&st->n_packets, 1);
        __sync_fetch_and_add(&st->n_bytes, len);
        st->used = bpf_ktime_get_coarse_ns();
        if (tcp_flags) {
            __sync_fetch_and_or(&st->tcp_flags, bpf_ntohs(tcp_flags));
        }
    }
}

/* Adds a packet of 'len' bytes with TCP flags 'tcp_flags' (network order;
 * zero for a packet that is not TCP) to flow slot 'slot', in this CPU's
 * lane of the statistics array. */
static __always_inline void
xdp_dp_flow_count(__u32 slot, __u64 len, __be16 tcp_flags)
{
    struct xdp_flow_stats *st;
    __u32 i;

    if (slot >= XDP_DP_MAX_FLOWS) {
        return;
    }
    i = xdp_dp_stats_lane() * XDP_DP_MAX_FLOWS + slot;
    st = bpf_map_lookup_elem(&xdp_dp_flow_stats, &i);
    if (st) {
        xdp_dp_stats_add(st, len, tcp_flags);
    }
}

/* Datapath counters. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct xdp_dp_stats);
} xdp_dp_stats SEC(".maps");

/* OpenFlow meters, indexed by datapath meter id (see "Meters"). */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, XDP_DP_MAX_METERS);
    __type(key, __u32);
    __type(value, struct xdp_dp_meter);
} xdp_dp_meters SEC(".maps");

/* Their counters, per CPU, under the same index. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, XDP_DP_MAX_METERS);
    __type(key, __u32);
    __type(value, struct xdp_dp_meter_stats);
} xdp_dp_meter_stats SEC(".maps");

/* Upcall budgets, per CPU, indexed by datapath port number. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 3 * XDP_DP_MAX_PORTS);  /* Misses by port number,
                                                 * then sample() copies
                                                 * (see "Sampling"), then
                                                 * the other upcalls. */
    __type(key, __u32);
    __type(value, struct xdp_dp_upcall_budget);
} xdp_dp_upcall_budget SEC(".maps");

/* Ingress policers, indexed by datapath port number; only ports flagged
 * XDP_DP_IN_PORT_F_POLICED in xdp_dp_in_ports look theirs up. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, XDP_DP_MAX_PORTS);
    __type(key, __u32);
    __type(value, struct xdp_dp_policer);
} xdp_dp_policers SEC(".maps");

/* Upcalls to ovs-vswitchd: one perf ring per CPU. */
struct {
    __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
    __uint(key_size, sizeof(__u32));
    __uint(value_size, sizeof(__u32));
} xdp_dp_upcalls SEC(".maps");

/* Sampled copies (see "Sampling" in xdp-dp.h): per-CPU perf rings of their
 * own, which ovs-vswitchd opens to wake it every
 * XDP_DP_SAMPLE_WAKEUP records rather than at each, as the upcall rings
 * must for misses. */
struct {
    __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
    __uint(key_size, sizeof(__u32));
    __uint(value_size, sizeof(__u32));
} xdp_dp_samples SEC(".maps");

/* The quiet events of the upcall rings, and whether each CPU's reader is
 * awake (see "Upcall wakeups" in xdp-dp.h). */
struct {
    __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
    __uint(key_size, sizeof(__u32));
    __uint(value_size, sizeof(__u32));
} xdp_dp_upcalls_quiet SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(map_flags, BPF_F_MMAPABLE);
    __uint(max_entries, XDP_DP_MAX_CPUS);
    __type(key, __u32);
    __type(value, __u64);       /* 64 bits for the atomic read. */
} xdp_dp_upcall_awake SEC(".maps");

/* The layout of the pinned maps (see xdp-dp.h).  Userspace only. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct xdp_dp_layout);
} xdp_dp_layout SEC(".maps");

/* Statistics slot -> what ofproto needs of the flow after a restart.
 * Userspace only. */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(map_flags, BPF_F_NO_PREALLOC);
    __uint(max_entries, XDP_DP_MAX_FLOWS);
    __type(key, __u32);
    __type(value, struct xdp_dp_flow_meta);
} xdp_dp_flow_meta SEC(".maps");

/* Scratch space for the masked key, per CPU, to spare the stack. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct xdp_flow_key);
} xdp_dp_scratch SEC(".maps");

/* A tunnel header from XDP to its TC half, per CPU (see "Tunnels" in
 * xdp-dp.h): TC runs right after generic XDP on the same CPU, for the
 * same skb. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct xdp_dp_tnl_hdr);
} xdp_dp_tnl_hdrs SEC(".maps");

/* Per tunnel port, the GRE sequence numbers given so far (see "Tunnels"
 * in xdp-dp.h): taken by XDP, the TC pipeline and ovs-vswitchd alike, which
 * maps it. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(map_flags, BPF_F_MMAPABLE);
    __uint(max_entries, XDP_DP_MAX_PORTS);
    __type(key, __u32);
    __type(value, __u64);
} xdp_dp_gre_seq SEC(".maps");

/* The tunnel metadata too wide for the stack that a tnl_pop in XDP gave
 * the packet that this CPU is switching (see 'struct tnl_md' in
 * xdp-dp-pass.h): a program runs a packet to its end, through every pass,
 * on one CPU. */
struct xdp_dp_tnl_wide {
    __u8 opts[XDP_TNL_OPTS_LEN];        /* Geneve options, zero-padded. */
    __u8 src[16];               /* Outer IPv6 source... */
    __u8 dst[16];               /* ...and destination. */
};
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct xdp_dp_tnl_wide);
} xdp_dp_tnl_wide SEC(".maps");

/* The connection cache (see "Connection cache" in xdp-dp.h): tuple to
 * slot, and by slot what ct() gives the packet and its counters. */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, XDP_DP_MAX_CT);
    __type(key, struct xdp_dp_ct_key);
    __type(value, __u32);
} xdp_dp_ct SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, XDP_DP_MAX_CT);
    __type(key, __u32);
    __type(value, struct xdp_dp_ct_entry);
} xdp_dp_ct_entries SEC(".maps");

/* The cache's counters are in CPU lanes as the flows' are (see "struct
 * xdp_flow_stats" in xdp-dp.h), without ovs-vswitchd's lane: it only
 * reads them. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(map_flags, BPF_F_MMAPABLE);
    __uint(max_entries, XDP_DP_MAX_CT);
    __type(key, __u32);
    __type(value, struct xdp_flow_stats);
} xdp_dp_ct_stats SEC(".maps");

/* Adds a packet of 'len' bytes to cache slot 'slot', in this CPU's lane.
 * The same shape as xdp_dp_flow_count() but not one helper with the map
 * as an argument: written that way, xdp_dp_main took the verifier past
 * its limit of a million instructions (tried on 2026-12-07). */
static __always_inline void
xdp_dp_ct_count(__u32 slot, __u64 len)
{
    struct xdp_flow_stats *st;
    __u32 i;

    if (slot >= XDP_DP_MAX_CT) {
        return;
    }
    i = xdp_dp_stats_lane() * XDP_DP_MAX_CT + slot;
    st = bpf_map_lookup_elem(&xdp_dp_ct_stats, &i);
    if (st) {
        xdp_dp_stats_add(st, len, 0);
    }
}

/* The pass after a cached ct() (see xdp-dp.h): per cache slot, what that
 * pass found; per statistics slot, the installed flow's id and output. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(map_flags, BPF_F_MMAPABLE);
    __uint(max_entries, XDP_DP_MAX_CT);
    __type(key, __u32);
    __type(value, struct xdp_dp_ct_next);
} xdp_dp_ct_next SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(map_flags, BPF_F_MMAPABLE);
    __uint(max_entries, XDP_DP_MAX_FLOWS);
    __type(key, __u32);
    __type(value, struct xdp_dp_flow_ids);
} xdp_dp_flow_ids SEC(".maps");

/* What both objects of the datapath (the XDP program's, xdp-dp.bpf.c, and
 * the TC pipeline's, tc-dp.bpf.c) do with these maps. */

#define ETH_P_8021Q_BE bpf_htons(0x8100)
#define ETH_P_8021AD_BE bpf_htons(0x88a8)

/* Adds 'n' to the datapath counter at 'field_offset' in struct
 * xdp_dp_stats, this CPU's. */
static __always_inline void
count(__u32 field_offset, __u64 n)
{
    __u32 zero = 0;
    struct xdp_dp_stats *stats = bpf_map_lookup_elem(&xdp_dp_stats, &zero);

    if (stats) {
        *(__u64 *) ((char *) stats + field_offset) += n;
    }
}
#define COUNT(FIELD, N) count(__builtin_offsetof(struct xdp_dp_stats, FIELD), N)

/* Misses, and other upcalls, that a port may make per CPU in each
 * XDP_DP_UPCALL_WINDOW_NS (see struct xdp_dp_upcall_budget); 0 means no
 * limit.  Userspace may change them (in each object: globals are not
 * shared between them). */
__u32 xdp_dp_upcall_burst = XDP_DP_UPCALL_BURST;
__u32 xdp_dp_slow_path_burst = XDP_DP_SLOW_PATH_BURST(XDP_DP_UPCALL_BURST);

/* Whether the budget in xdp_dp_upcall_budget at 'index' allows one more
 * upcall now, if at most 'burst' (0: any number) may go up per window of
 * 'window_ns'. */
static __always_inline int
budget_allows(__u32 index, __u32 burst, __u64 window_ns)
{
    struct xdp_dp_upcall_budget *b;
    __u64 now;

    if (!burst) {
        return 1;
    }
    b = bpf_map_lookup_elem(&xdp_dp_upcall_budget, &index);
    if (!b) {
        return 1;
    }
    now = bpf_ktime_get_ns();
    if (now - b->window_start >= window_ns) {
        b->window_start = now;
        b->n_upcalls = 0;
    }
    if (b->n_upcalls >= burst) {
        return 0;
    }
    b->n_upcalls++;
    return 1;
}

/* Writes the 'size' bytes at 'data', followed by what 'flags' asks of the
 * packet in 'ctx' (an XDP buffer or an skb), to this CPU's upcall ring,
 * waking its reader only if it sleeps (see "Upcall wakeups" in xdp-dp.h).
 * Returns what bpf_perf_event_output() returned for the record. */
static __always_inline long
upcall_output(void *ctx, __u64 flags, void *data, __u64 size)
{
    __u32 cpu = bpf_get_smp_processor_id();
    __u64 *awake = bpf_map_lookup_elem(&xdp_dp_upcall_awake, &cpu);
    __u32 nudge = XDP_DP_UPCALL_NUDGE;
    long error;

    if (!awake || !*(volatile __u64 *) awake) {
        return bpf_perf_event_output(ctx, &xdp_dp_upcalls, flags, data,
                                     size);
    }
    error = bpf_perf_event_output(ctx, &xdp_dp_upcalls_quiet, flags, data,
                                  size);
    if (error == -2) {
        /* -ENOENT: no quiet event for this CPU. */
        return bpf_perf_event_output(ctx, &xdp_dp_upcalls, flags, data,
                                     size);
    }
    if (!error) {
        COUNT(n_upcall_quiet, 1);
    }
    if (!__sync_fetch_and_add(awake, 0)) {
        COUNT(n_upcall_nudge, 1);
        bpf_perf_event_output(ctx, &xdp_dp_upcalls, BPF_F_CURRENT_CPU,
                              &nudge, sizeof nudge);
    }
    return error;
}

/* Whether port 'in_port' may make one more upcall of 'type' now, by its
 * budget. */
static __always_inline int
upcall_allowed(__u32 in_port, __u32 type)
{
    return (type == XDP_DP_UPCALL_MISS
            ? budget_allows(in_port, xdp_dp_upcall_burst,
                            XDP_DP_UPCALL_WINDOW_NS)
            : budget_allows(2 * XDP_DP_MAX_PORTS + in_port,
                            xdp_dp_slow_path_burst,
                            XDP_DP_SLOW_PATH_WINDOW_NS));
}

/* The ifindex by which the TC programs send to 'port': with
 * XDP_DP_IFINDEX_F_PEER if the port is in XDP_DP_TX_PEER mode. */
static __always_inline __u32
port_tx_ifindex(const struct xdp_dp_port *port)
{
    return port->ifindex | (port->tx_mode == XDP_DP_TX_PEER
                            ? XDP_DP_IFINDEX_F_PEER : 0);
}

/* Fills 'ifindex' with the devices that actions 'first' to 'n' of 'flow'
 * (all outputs) send to, as port_tx_ifindex() gives them, leaving out a
 * port that is gone or takes nothing, and returns how many.  A device that
 * XDP cannot send to (XDP_DP_TX_SLOW) is in the list: the TC programs give
 * it an skb. */
static __always_inline __u32
outputs_ifindex(const struct xdp_flow *flow, __u32 first, __u32 n,
                __u32 *ifindex)
{
    __u32 k = 0;

    for (__u32 i = first; i < n && i < XDP_FLOW_MAX_ACTIONS; i++) {
        __u32 port_no = flow->actions[i].output.port;
        struct xdp_dp_port *port = bpf_map_lookup_elem(&xdp_dp_ports,
                                                       &port_no);

        if (port && port->tx_mode != XDP_DP_TX_NONE && port->ifindex
            && k < XDP_DP_MAX_OUTPUTS) {
            ifindex[k++] = port_tx_ifindex(port);
        }
    }
    return k;
}

#endif /* xdp-dp-maps.h */
