/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

/* The packet parser's test harness (xdp-parse-test.bpf.c) as a TC
 * program, with the parser's context a 'struct __sk_buff', as a TC
 * program runs it: tests/test-xdp-parse checks that it finds the keys and
 * header offsets that flow_extract() and the XDP parser find, reading
 * the skb as the TC pipeline does (XDP_PARSE_SKB: its length, not its
 * linear part's).  Its own object: the parser's global functions exist
 * once per context type. */

#define XDP_PARSE_CTX struct __sk_buff
#define XDP_PARSE_SKB 1
#define PARSE_TEST_TC
#include "xdp-parse-test.bpf.c"
