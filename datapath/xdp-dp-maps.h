/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_MAPS_H
#define XDP_DP_MAPS_H 1

/* The maps of the datapath program. */

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xdp-dp.h"

/* Largest ifindex with per-port state. */
#define XDP_DP_MAX_IFINDEX 4096

/* Per-port counters, per CPU, indexed by ingress ifindex. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, XDP_DP_MAX_IFINDEX);
    __type(key, __u32);
    __type(value, struct xdp_dp_port_stats);
} xdp_dp_port_stats SEC(".maps");

#endif /* xdp-dp-maps.h */
