/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

/* The traffic generator of 'ovs-xdp-bench forward', run only through
 * BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES.  In that mode the
 * kernel builds real frames from the test run's input (a 64-byte UDP
 * frame made by userspace), runs this program on each and sends every
 * frame for which it returns XDP_TX out of the device named by the
 * context's ingress ifindex, the generator's end of a veth pair.
 *
 * The program spreads the stream over 'n_flows' 5-tuples by writing the
 * UDP source port from a frame counter: 'sport_base' + n % 'n_flows'.
 * The UDP checksum is zero (none, as IPv4 allows), so the rewrite needs
 * no fixup.  The counter also tells userspace how many frames were
 * offered: one thread runs the program, on one CPU, so a plain increment
 * of a global is exact.
 *
 * With 'vary_eth_src' set ('ovs-xdp-bench storm'), the program also writes
 * the frame counter into the low four bytes of the Ethernet source
 * address, so that every frame comes from a new address: a switch that
 * learns MAC addresses (OpenFlow's NORMAL action) matches on it, and every
 * frame misses its flow table.  The first two bytes stay the input frame's
 * (a locally administered unicast address).
 *
 * The kernel recycles a live frame's page as whatever was last written
 * into it, without copying the input frame again, and a switch whose XDP
 * program receives the frame works on that same page: one that translates
 * the destination address (conntrack-dnat) would have the generator send
 * already translated frames from then on.  So the program also writes the
 * IPv4 destination and header checksum, 'ip_daddr' and 'ip_csum', into
 * every frame, the same for every switch. */

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

/* The number of distinct UDP source ports, at least 1, and the first. */
const volatile __u32 n_flows = 1;
const volatile __u16 sport_base = 1024;

/* Nonzero: a new Ethernet source address per frame (see above). */
const volatile __u32 vary_eth_src = 0;

/* Frames offered so far (read by userspace through the mmapped .bss). */
__u64 n_sent = 0;

/* The input frame's IPv4 destination and header checksum, as they are in
 * the frame (set by userspace through the mmapped .bss before a run). */
__be32 ip_daddr = 0;
__u16 ip_csum = 0;

SEC("xdp")
int
bench_gen(struct xdp_md *ctx)
{
    void *data = (void *) (long) ctx->data;
    void *data_end = (void *) (long) ctx->data_end;
    struct ethhdr *eth = data;
    struct iphdr *ip = (struct iphdr *) (eth + 1);
    struct udphdr *udp = (struct udphdr *) (ip + 1);
    __u64 seq = n_sent++;

    if ((void *) (udp + 1) > data_end) {
        return XDP_ABORTED;
    }
    ip->daddr = ip_daddr;
    ip->check = ip_csum;
    if (n_flows > 1) {
        udp->source = bpf_htons(sport_base + (__u32) seq % n_flows);
    }
    if (vary_eth_src) {
        __be32 low = bpf_htonl((__u32) seq);

        __builtin_memcpy(&eth->h_source[2], &low, sizeof low);
    }
    return XDP_TX;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
