/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

/* The packet parser (xdp-dp-parse.h) run on skbs, as a TC program runs
 * it: the same harness as xdp-parse-test.bpf.c, with the parser's context
 * a 'struct __sk_buff', run only through BPF_PROG_TEST_RUN by
 * tests/test-xdp-parse, which checks that it finds the keys and header
 * offsets that flow_extract() and the XDP parser find.  Its own object:
 * the parser's global functions exist once per context type. */

#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#define XDP_PARSE_CTX struct __sk_buff
#include "xdp-dp.h"
#include "xdp-dp-parse.h"

/* The flow key that the last run extracted. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct xdp_flow_key);
} tc_parse_test_key SEC(".maps");

/* The header offsets and flags of the last run. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct xdp_parse_info);
} tc_parse_test_info SEC(".maps");

SEC("tc")
int
tc_parse_test(struct __sk_buff *skb)
{
    struct xdp_parse_info info;
    struct xdp_flow_key key;
    __u32 zero = 0;

    xdp_parse_frame(skb, &key, &info);
    bpf_map_update_elem(&tc_parse_test_key, &zero, &key, BPF_ANY);
    bpf_map_update_elem(&tc_parse_test_info, &zero, &info, BPF_ANY);
    return TC_ACT_SHOT;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
