/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

/* The sink of 'ovs-xdp-bench forward', attached to the far end of the
 * switch under test: it counts and drops every frame.  Frames of the
 * benchmark's stream (IPv4 UDP to 'udp_dport' and, if it is set, to
 * 'stream_daddr') and all other frames (IPv6 neighbour discovery, learning
 * frames, a stream frame whose destination a NAT failed to rewrite, ...)
 * are counted apart, in a per-CPU array so that no two CPUs share a
 * counter, and summed by userspace.  Its being attached also gives the
 * veth end NAPI, without which frames that the switch redirects into the
 * pair would be lost.  bench_sink_tc counts the same way at the TC hook
 * (--sink=stack).
 *
 * While userspace sets 'check_headers', the sink also checks the headers
 * of every IPv4 UDP frame to 'udp_dport': the destination address must be
 * 'stream_daddr', the IPv4 header checksum right and the UDP checksum zero
 * as the generator sent it (a switch that rewrites addresses must leave a
 * zero UDP checksum alone).  Userspace turns it on for a moment after a
 * measurement, so that the check costs the measured frames nothing. */

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
    BENCH_SINK_CHECKED,         /* UDP frames to 'udp_dport' checked. */
    BENCH_SINK_BAD,             /* Of those, frames that failed the check. */
    BENCH_SINK_N_COUNTERS
};

/* Frames received, per CPU, by enum bench_sink_counter. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, BENCH_SINK_N_COUNTERS);
    __type(key, __u32);
    __type(value, __u64);
} bench_sink_counts SEC(".maps");

/* The stream's UDP destination port, and its IPv4 destination address
 * (network byte order; 0 for any), as the stream arrives here: set by
 * userspace through the mmapped .data and .bss before a measurement, for
 * what arrives differs between pipelines (a tunnel's encapsulated frames
 * go to its UDP port and the remote endpoint). */
volatile __u16 udp_dport = 9;
volatile __be32 stream_daddr = 0;

/* Nonzero while userspace wants the headers checked (read through the
 * mmapped .bss). */
__u32 check_headers = 0;

/* Adds 1 to counter 'idx'. */
static __always_inline void
count(__u32 idx)
{
    __u64 *n = bpf_map_lookup_elem(&bench_sink_counts, &idx);

    if (n) {
        *n += 1;
    }
}

/* Returns true if the 20-byte IPv4 header 'ip' has a right checksum. */
static __always_inline int
ip_csum_ok(const struct iphdr *ip)
{
    const __u16 *p = (const __u16 *) ip;
    __u32 sum = 0;

#pragma unroll
    for (int i = 0; i < 10; i++) {
        sum += p[i];
    }
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return sum == 0xffff;
}

/* Counts the frame between 'data' and 'data_end': as a stream frame if it
 * is an IPv4 UDP datagram to 'udp_dport' (and 'stream_daddr', if set),
 * without IP options, otherwise as another frame; and checks its headers
 * while 'check_headers' is set. */
static __always_inline void
count_frame(void *data, void *data_end)
{
    struct ethhdr *eth = data;
    struct iphdr *ip = (struct iphdr *) (eth + 1);
    struct udphdr *udp = (struct udphdr *) (ip + 1);

    if ((void *) (udp + 1) > data_end
        || eth->h_proto != bpf_htons(ETH_P_IP)
        || ip->ihl != 5
        || ip->protocol != IPPROTO_UDP
        || udp->dest != bpf_htons(udp_dport)) {
        count(BENCH_SINK_OTHER);
        return;
    }
    count(stream_daddr && ip->daddr != stream_daddr ? BENCH_SINK_OTHER
                                                    : BENCH_SINK_STREAM);
    if (*(volatile __u32 *) &check_headers) {
        count(BENCH_SINK_CHECKED);
        if ((stream_daddr && ip->daddr != stream_daddr)
            || !ip_csum_ok(ip) || udp->check) {
            count(BENCH_SINK_BAD);
        }
    }
}

SEC("xdp")
int
bench_sink(struct xdp_md *ctx)
{
    count_frame((void *) (long) ctx->data, (void *) (long) ctx->data_end);
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
    count_frame((void *) (long) skb->data, (void *) (long) skb->data_end);
    return 2;                   /* TC_ACT_SHOT. */
}

/* The kernel knows no "Apache/GPL" pair: GPL is the licence of the two
 * that it understands (see the SPDX line). */
char LICENSE[] SEC("license") = "GPL";
