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
 * every frame, the same for every switch.
 *
 * With 'new_conns' set ('ovs-xdp-bench forward --pipeline=conntrack-setup'),
 * every frame opens a new connection: the frame counter goes into the UDP
 * source port (its low 15 bits, from 1024) and the low 16 bits of the IPv4
 * source address (the rest), from 'ip_saddr', and the program computes the
 * header checksum itself. */

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

/* Nonzero: a new connection per frame, from source addresses in the /16 of
 * 'ip_saddr' (see above), which is otherwise the frames' source, if not 0
 * (set by userspace before a run). */
__u32 new_conns = 0;
__be32 ip_saddr = 0;

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
    if (ip_saddr) {
        ip->saddr = ip_saddr;   /* Back, after a run with 'new_conns'. */
    }
    if (new_conns) {
        const __u16 *word = (const __u16 *) ip;
        __u32 sum = 0;

        udp->source = bpf_htons(1024 + (seq & 0x7fff));
        ip->saddr = ((ip_saddr & bpf_htonl(0xffff0000))
                     | bpf_htonl((seq >> 15) & 0xffff));
        ip->check = 0;
#pragma unroll
        for (int i = 0; i < 10; i++) {
            sum += word[i];
        }
        sum = (sum & 0xffff) + (sum >> 16);
        sum = (sum & 0xffff) + (sum >> 16);
        ip->check = ~sum;
    } else if (n_flows > 1) {
        udp->source = bpf_htons(sport_base + (__u32) seq % n_flows);
    }
    if (vary_eth_src) {
        __be32 low = bpf_htonl((__u32) seq);

        __builtin_memcpy(&eth->h_source[2], &low, sizeof low);
    }
    return XDP_TX;
}

/* The kernel knows no "Apache/GPL" pair: GPL is the licence of the two
 * that it understands (see the SPDX line). */
char LICENSE[] SEC("license") = "GPL";
