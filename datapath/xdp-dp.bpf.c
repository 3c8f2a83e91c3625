/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

/* The datapath program: one instance per datapath, attached to every port.
 *
 * Foundation stage: the program counts what arrives on each port and hands
 * every frame to the kernel stack unchanged (XDP_PASS).  Flow
 * classification, actions and upcalls are the datapath's next step. */

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xdp-dp.h"
#include "xdp-dp-maps.h"

SEC("xdp")
int
xdp_dp_main(struct xdp_md *ctx)
{
    __u32 ifindex = ctx->ingress_ifindex;
    struct xdp_dp_port_stats *stats;

    stats = bpf_map_lookup_elem(&xdp_dp_port_stats, &ifindex);
    if (stats) {
        stats->rx_packets++;
        stats->rx_bytes += ctx->data_end - ctx->data;
    }
    return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
