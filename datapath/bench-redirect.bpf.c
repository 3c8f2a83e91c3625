/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

/* The floor of 'ovs-xdp-bench forward': the least a switch built on XDP
 * can do.  Attached to the switch-side end of the generator's veth pair,
 * it sends every frame on to 'target_ifindex', the switch-side end of the
 * sink's pair, with bpf_redirect(), looking at nothing.
 *
 * With --sink=stack (a container's end, without NAPI) an XDP redirect
 * would be lost, and the least a switch can do is what bench_redirect_peer
 * does on the TC ingress hook: take the skb that the kernel built and
 * hand it to the ingress of the sink's far end, as ovs-xdp's xdp-tx=peer
 * does. */

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

SEC("tc")
int
bench_redirect_peer(struct __sk_buff *skb)
{
    return bpf_redirect_peer(target_ifindex, 0);
}

/* The kernel knows no "Apache/GPL" pair: GPL is the licence of the two
 * that it understands (see the SPDX line). */
char LICENSE[] SEC("license") = "GPL";
