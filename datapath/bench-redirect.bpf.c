/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

/* The floor of 'ovs-xdp-bench forward': the least a switch built on XDP
 * can do.  Attached to the switch-side end of the generator's veth pair,
 * it sends every frame on to 'target_ifindex', the switch-side end of the
 * sink's pair, with bpf_redirect(), looking at nothing. */

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* The device that every frame goes to. */
const volatile __u32 target_ifindex = 0;

SEC("xdp")
int
bench_redirect(struct xdp_md *ctx)
{
    return bpf_redirect(target_ifindex, 0);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
