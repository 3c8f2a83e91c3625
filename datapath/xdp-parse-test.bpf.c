/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

/* A test harness for the packet parser (xdp-dp-parse.h), run only through
 * BPF_PROG_TEST_RUN by tests/test-xdp-parse: it parses the frame into a
 * key on the stack, as the datapath program will, stores the key and the
 * header offsets in single-entry arrays for the test to read back, and
 * drops the frame.  tc-parse-test.bpf.c builds the same harness as a TC
 * program, whose parser reads an skb. */

#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#include "xdp-dp.h"
#include "xdp-dp-parse.h"

#ifdef PARSE_TEST_TC
#define PARSE_TEST_SEC "tc"
#define PARSE_TEST_PROG tc_parse_test
#define PARSE_TEST_DROP TC_ACT_SHOT
#else
#define PARSE_TEST_SEC "xdp"
#define PARSE_TEST_PROG xdp_parse_test
#define PARSE_TEST_DROP XDP_DROP
#endif

/* The flow key that the last run extracted. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct xdp_flow_key);
} parse_test_key SEC(".maps");

/* The header offsets and flags of the last run. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct xdp_parse_info);
} parse_test_info SEC(".maps");

SEC(PARSE_TEST_SEC)
int
PARSE_TEST_PROG(XDP_PARSE_CTX *ctx)
{
    struct xdp_parse_info info;
    struct xdp_flow_key key;
    __u32 zero = 0;

    xdp_parse_frame(ctx, &key, &info);
    bpf_map_update_elem(&parse_test_key, &zero, &key, BPF_ANY);
    bpf_map_update_elem(&parse_test_info, &zero, &info, BPF_ANY);
    return PARSE_TEST_DROP;
}

/* The kernel knows no "Apache/GPL" pair: GPL is the licence of the two
 * that it understands (see the SPDX line). */
char LICENSE[] SEC("license") = "GPL";
