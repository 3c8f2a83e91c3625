/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

/* The trivial program of 'ovs-xdp-bench dispatch': it passes every frame
 * and does nothing else, like the kernel's own xdp_dummy that its xdp_perf
 * test times.  The benchmark loads many copies of it, each separately so
 * that each is a distinct program to the kernel's XDP dispatcher: 48 of
 * them fill the dispatcher, and one more is timed next to the datapath
 * program, as the kernel's own comparison. */

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int
bench_trivial(struct xdp_md *ctx)
{
    return XDP_PASS;
}

/* The kernel knows no "Apache/GPL" pair: GPL is the licence of the two
 * that it understands (see the SPDX line). */
char LICENSE[] SEC("license") = "GPL";
