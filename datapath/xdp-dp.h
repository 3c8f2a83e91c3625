/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_H
#define XDP_DP_H 1

/* Structures shared by the XDP datapath program and ovs-vswitchd.  Both
 * sides compile this header, so it holds fixed-width types only and no
 * pointers; every layout change bumps XDP_DP_ABI_VERSION. */

#include <linux/types.h>

#define XDP_DP_ABI_VERSION 1

/* Counters of one port, indexed by ingress ifindex (see xdp-dp-maps.h). */
struct xdp_dp_port_stats {
    __u64 rx_packets;           /* Frames the program saw on this port. */
    __u64 rx_bytes;             /* Bytes of those frames. */
};

#endif /* xdp-dp.h */
