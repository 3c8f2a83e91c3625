/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

/* What a datapath in TC can reach on TCP bulk, for 'ovs-xdp-bench tcp'
 * (switch "tc-parse"): attached at the TC ingress hook of both switch-side
 * veth ends, it parses each skb into a flow key with the datapath's own
 * parser (xdp-dp-parse.h on an skb), makes the one hash lookup of that key
 * that an exact-match classifier would make, and redirects the skb to the
 * other end with bpf_redirect().  GSO segments stay whole, with no copy:
 * generic XDP copies every nonlinear skb before its program runs.  Not a
 * switch (no flow table, no actions): the measure of the TC pipeline that
 * would switch GSO segments the way the kernel datapath does. */

#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#define XDP_PARSE_CTX struct __sk_buff
#include "xdp-dp.h"
#include "xdp-dp-parse.h"

/* Ingress ifindex to the ifindex to redirect to. */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 4);
    __type(key, __u32);
    __type(value, __u32);
} bench_tc_peer SEC(".maps");

/* Empty: looked up once per packet, as a classifier's exact match. */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 1);
    __type(key, struct xdp_flow_key);
    __type(value, __u32);
} bench_tc_flows SEC(".maps");

/* The key, which does not fit the stack next to the parser's frames. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct xdp_flow_key);
} bench_tc_key SEC(".maps");

SEC("tc")
int
bench_tc_parse(struct __sk_buff *skb)
{
    __u32 ifindex = skb->ifindex, zero = 0;
    struct xdp_parse_info info;
    struct xdp_flow_key *key;
    __u32 *peer;

    key = bpf_map_lookup_elem(&bench_tc_key, &zero);
    peer = bpf_map_lookup_elem(&bench_tc_peer, &ifindex);
    if (!key || !peer) {
        return TC_ACT_OK;
    }
    xdp_parse_frame(skb, key, &info);
    key->in_port = ifindex;
    if (bpf_map_lookup_elem(&bench_tc_flows, key)) {
        return TC_ACT_SHOT;     /* Never: the map stays empty. */
    }
    return bpf_redirect(*peer, 0);
}

/* The kernel knows no "Apache/GPL" pair: GPL is the licence of the two
 * that it understands (see the SPDX line). */
char LICENSE[] SEC("license") = "GPL";
