/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

/* The sink of 'ovs-xdp-bench forward', attached to the far end of the
 * switch under test: it counts and drops every frame.  Frames of the
 * benchmark's stream (IPv4 UDP to 'udp_dport') and all other frames (IPv6
 * neighbour discovery, learning frames, ...) are counted apart, in a
 * per-CPU array so that no two CPUs share a counter, and summed by
 * userspace.  Its being attached also gives the veth end NAPI, without
 * which frames that the switch redirects into the pair would be lost.
 * bench_sink_tc counts the same way at the TC hook (--sink=stack). */

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

/* Indexes into bench_sink_counts; utilities/bench-common.h repeats them. */
enum bench_sink_counter {
    BENCH_SINK_STREAM,          /* Frames of the benchmark's stream. */
    BENCH_SINK_OTHER,           /* Any other frame. */
    BENCH_SINK_N_COUNTERS
};

/* Frames received, per CPU, by enum bench_sink_counter. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, BENCH_SINK_N_COUNTERS);
    __type(key, __u32);
    __type(value, __u64);
} bench_sink_counts SEC(".maps");

/* The stream's UDP destination port. */
const volatile __u16 udp_dport = 9;

/* Returns true if the frame between 'data' and 'data_end' is an IPv4 UDP
 * datagram to 'udp_dport', without IP options. */
static __always_inline int
is_stream(void *data, void *data_end)
{
    struct ethhdr *eth = data;
    struct iphdr *ip = (struct iphdr *) (eth + 1);
    struct udphdr *udp = (struct udphdr *) (ip + 1);

    return ((void *) (udp + 1) <= data_end
            && eth->h_proto == bpf_htons(ETH_P_IP)
            && ip->ihl == 5
            && ip->protocol == IPPROTO_UDP
            && udp->dest == bpf_htons(udp_dport));
}

SEC("xdp")
int
bench_sink(struct xdp_md *ctx)
{
    void *data = (void *) (long) ctx->data;
    void *data_end = (void *) (long) ctx->data_end;
    __u32 idx = is_stream(data, data_end) ? BENCH_SINK_STREAM
                                          : BENCH_SINK_OTHER;
    __u64 *count = bpf_map_lookup_elem(&bench_sink_counts, &idx);

    if (count) {
        *count += 1;
    }
    return XDP_DROP;
}

/* The same count at the TC ingress hook of a veth end with no XDP program:
 * the sink of --sink=stack, where frames reach the namespace as a
 * container's do, as skbs through the backlog, and are counted at the
 * door of its stack. */
SEC("tc")
int
bench_sink_tc(struct __sk_buff *skb)
{
    void *data = (void *) (long) skb->data;
    void *data_end = (void *) (long) skb->data_end;
    __u32 idx = is_stream(data, data_end) ? BENCH_SINK_STREAM
                                          : BENCH_SINK_OTHER;
    __u64 *count = bpf_map_lookup_elem(&bench_sink_counts, &idx);

    if (count) {
        *count += 1;
    }
    return 2;                   /* TC_ACT_SHOT. */
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
