/*
 * Copyright (c) 2026 The ovs-xdp authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

/* test-xdp-packet: table-driven packet tests of the datapath program.
 *
 *   test-xdp-packet [-v] [--compiled]
 *                             Runs every row of the table below, through
 *                             the generic program or, with --compiled,
 *                             through a program compiled for each row's
 *                             flow table (ofproto-xdp/xdp-compile.c).
 *   test-xdp-packet flush     Flushes the flow table and installs a flow
 *                             again (see do_flush()).
 *   test-xdp-packet budget    A flood of misses from one port against
 *                             another port's upcalls (see do_budget()).
 *   test-xdp-packet rank      Subtables are reordered by their hits (see
 *                             do_rank()).
 *   test-xdp-packet grow      A full compact map is made bigger (see
 *                             do_grow()).
 *   test-xdp-packet key HEX   Prints the ODP flow key that OVS's
 *                             flow_extract() gives the frame HEX arriving
 *                             on port 1: how to write a row's flows.
 *
 * Each row of the table is a frame, a flow table of up to XP_MAX_FLOWS
 * datapath flows in ODP syntax (key with masks, and actions, as
 * "ovs-appctl dpctl/dump-flows" shows them), and what must happen to the
 * frame: which flow it hits (or that it misses), the XDP verdict, the frame
 * that comes out and the ports it goes to.  For each row the program
 *
 *   1. installs the row's flows in an xdp datapath through dpif_operate(),
 *      as ofproto-dpif does, and checks that each runs in XDP;
 *   2. runs the frame through the datapath program with BPF_PROG_TEST_RUN,
 *      arriving on port 1 (the ifindex of 'lo' mapped to port 1);
 *   3. checks the verdict, the datapath's hit, miss and transmit-error
 *      counters, which flow's counter went up, the frame that came out and
 *      its output ports; and that every IPv4, TCP and UDP checksum that
 *      was valid in the input frame is valid in the output, recomputed
 *      here from scratch;
 *   4. checks the row against Open vSwitch itself, which is the
 *      specification: the flow that OVS's flow_extract() and the flows'
 *      masks select must be the row's flow (so a truncated header matches
 *      only the flows flow_extract() would match it to), and running that
 *      flow's actions with odp_execute_actions() must give the same frame
 *      and ports, unless the row says why OVS's userspace datapath differs;
 *   5. deletes the flows again, with flow deletes (a flush would leave
 *      them in the BPF subtables: see do_flush()).
 *
 * Output ports are configured for each row: in "redirect" rows every port
 * transmits by XDP_DP_TX_REDIRECT, but only the expected port has an entry
 * in the devmap, so that XDP_REDIRECT proves the output went to that port
 * (another one's bpf_redirect_map() would fail and drop).  In "skb" rows
 * every port transmits by XDP_DP_TX_SKB with a made-up ifindex
 * (XP_IFINDEX_BASE plus the port number): the program passes the frame up
 * with a 'struct xdp_dp_skb_meta' in front, which BPF_PROG_TEST_RUN hands
 * back with the frame and which names the ports.  BPF_PROG_TEST_RUN
 * without live frames only returns verdicts; nothing is sent.
 *
 * Prints "ok NAME", or "FAIL NAME:" followed by one indented line per
 * reason, for each row, then "N rows, M failed", and exits with status 1
 * if M is not 0.  Needs root (the datapath loads its program and maps). */

#include <config.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dp-packet.h"
#include "dpif.h"
#include "dpif-provider.h"
#include "flow.h"
#include "netlink.h"
#include "odp-execute.h"
#include "odp-netlink.h"
#include "odp-util.h"
#include "ofproto-xdp/dpif-xdp.h"
#include "ofproto-xdp/dpif-xdp-private.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/match.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "timeval.h"
#include "util.h"

#define XP_MAX_FLOWS 3          /* Flows in one row's table. */
#define XP_MAX_FRAME 512        /* Largest frame of the table. */
#define XP_IN_PORT 1            /* Datapath port the frames arrive on. */
#define XP_FIRST_PORT 2         /* Output ports: 2 ... */
#define XP_LAST_PORT 5          /* ... to 5. */
#define XP_IFINDEX_BASE 1000    /* Made-up ifindex of "skb" port N: + N. */
#define XP_QUARANTINE_MS 150    /* Longer than the datapath keeps a freed
                                 * subtable slot from new masks. */

/* What a row's frame must come to. */
enum xp_expect {
    XP_MISS,                    /* No flow: upcall, XDP_DROP, n_missed. */
    XP_DROP,                    /* A flow without actions: XDP_DROP. */
    XP_TX_ERROR,                /* An action failed: XDP_DROP, n_tx_error. */
    XP_SLOW,                    /* Handed to ovs-vswitchd to execute the
                                 * flow's actions: XDP_DROP, n_slow_path. */
    XP_REDIRECT,                /* XDP_REDIRECT to 'ports[0]'. */
    XP_TO_TC,                   /* XDP_PASS with metadata for the TC half,
                                 * naming 'ports'. */
};

/* How the output ports transmit in a row. */
enum xp_mode {
    XP_REDIRECT_PORTS,          /* XDP_DP_TX_REDIRECT (the default). */
    XP_SKB_PORTS,               /* XDP_DP_TX_SKB. */
};

/* One datapath flow, in the syntax of "ovs-appctl dpctl/dump-flows". */
struct xp_flow {
    const char *match;          /* ODP key with masks. */
    const char *actions;        /* ODP actions ("drop" for none). */
};

/* One row of the table. */
struct xp_row {
    const char *name;           /* Printed in the report. */
    const char *in;             /* The frame, in hex (spaces ignored). */
    struct xp_flow flows[XP_MAX_FLOWS]; /* The flow table. */
    int hit;                    /* Index into 'flows' of the flow the frame
                                 * hits, or -1 if it must miss. */
    enum xp_expect expect;      /* What happens to the frame. */
    enum xp_mode mode;          /* How the output ports transmit. */
    const char *out;            /* Expected output frame, in hex, or NULL
                                 * for the input frame unchanged. */
    int ports[XDP_DP_MAX_OUTPUTS];  /* Expected output ports, in order,
                                     * ending at the first 0. */
    const char *ovs_differs;    /* Why OVS's own flow_extract() and
                                 * odp_execute_actions() are not the
                                 * reference for this row, or NULL. */
};

/* The table.  Frames are in hex, a space between headers.  Unless a row
 * says otherwise, 02:00:00:00:00:01 (10.0.0.1, UDP or TCP port 40000)
 * sends to 02:00:00:00:00:02 (10.0.0.2, port 53 or 80), and every checksum
 * of an input frame is valid (those of malformed headers aside).  The
 * output frames were built from the input and the actions, with every
 * checksum computed from scratch, not updated. */
static const struct xp_row xp_rows[] = {

    /* Matching: each frame must hit the flow that flow_extract() and the
     * flows' masks select, and only that one.  Malformed frames get the
     * key that flow_extract() gives them, with zeros where it gives up. */
    {
        .name = "udp: exact 5-tuple flow",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
    },
    {
        .name = "udp: no flow for its port",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=54)",
              "2" },
        },
        .hit = -1,
        .expect = XP_MISS,
    },
    {
        .name = "udp: second of two subtables",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1/0.0.0.0,dst=10.0.0.3,"
              "proto=17,tos=0/0,ttl=64/0,frag=no),udp(src=40000/0,dst=53/0)",
              "3" },
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1/0.0.0.0,"
              "dst=10.0.0.2/0.0.0.0,proto=17,tos=0/0,ttl=64/0,frag=no),"
              "udp(src=40000/0,dst=53)",
              "2" },
        },
        .hit = 1,
        .expect = XP_REDIRECT,
        .ports = { 2 },
    },
    {
        .name = "ipv4: header truncated to 10 bytes",
        .in =
            "0200000000020200000000010800 45000020000100004011",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=0.0.0.0/0.0.0.0,"
              "proto=0/0,tos=0/0,ttl=0/0,frag=no)",
              "2" },
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=0.0.0.0,dst=0.0.0.0,proto=0,tos=0,"
              "ttl=0,frag=no)",
              "3" },
        },
        .hit = 1,
        .expect = XP_REDIRECT,
        .ports = { 3 },
    },
    {
        .name = "ipv4: header length 16 (IHL 4)",
        .in =
            "0200000000020200000000010800 "
            "4400002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=0.0.0.0/0.0.0.0,"
              "proto=0/0,tos=0/0,ttl=0/0,frag=no)",
              "2" },
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=0.0.0.0,dst=0.0.0.0,proto=0,tos=0,"
              "ttl=0,frag=no)",
              "3" },
        },
        .hit = 1,
        .expect = XP_REDIRECT,
        .ports = { 3 },
    },
    {
        .name = "ipv4: total length past the frame",
        .in =
            "0200000000020200000000010800 "
            "450000c800010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=0.0.0.0/0.0.0.0,"
              "proto=0/0,tos=0/0,ttl=0/0,frag=no)",
              "2" },
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=0.0.0.0,dst=0.0.0.0,proto=0,tos=0,"
              "ttl=0,frag=no)",
              "3" },
        },
        .hit = 1,
        .expect = XP_REDIRECT,
        .ports = { 3 },
    },
    {
        .name = "ipv4: L2 padding is not parsed and stays",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021 0000000000000000000000000000",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
    },
    {
        .name = "tcp: header truncated to 12 bytes",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000400666d50a0000010a000002 "
            "9c4000500000000100000001",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=6,"
              "tos=0/0,ttl=64/0,frag=no),tcp(src=0/0,dst=80)",
              "2" },
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=6,"
              "tos=0/0,ttl=64/0,frag=no),tcp(src=0,dst=0)",
              "3" },
        },
        .hit = 1,
        .expect = XP_REDIRECT,
        .ports = { 3 },
    },
    {
        .name = "tcp: data offset 4",
        .in =
            "0200000000020200000000010800 "
            "4500002800010000400666cd0a0000010a000002 "
            "9c400050000000010000000140022000df4d0000",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=6,"
              "tos=0/0,ttl=64/0,frag=no),tcp(src=0/0,dst=80)",
              "2" },
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=6,"
              "tos=0/0,ttl=64/0,frag=no),tcp(src=0,dst=0)",
              "3" },
        },
        .hit = 1,
        .expect = XP_REDIRECT,
        .ports = { 3 },
    },
    {
        .name = "udp: header truncated to 4 bytes",
        .in =
            "0200000000020200000000010800 "
            "4500001800010000401166d20a0000010a000002 9c400035",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=0/0,dst=53)",
              "2" },
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=0,dst=0)",
              "3" },
        },
        .hit = 1,
        .expect = XP_REDIRECT,
        .ports = { 3 },
    },
    {
        .name = "ipv4: later fragment has no L4 fields",
        .in =
            "0200000000020200000000010800 "
            "45000020000100b9401166110a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=0/0,dst=53)",
              "2" },
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=later)",
              "3" },
        },
        .hit = 1,
        .expect = XP_REDIRECT,
        .ports = { 3 },
    },
    {
        .name = "ipv4: first fragment has its L4 fields",
        .in =
            "0200000000020200000000010800 "
            "4500002000012000401146ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=0/0,dst=53)",
              "2" },
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=first),udp(src=0/0,dst=53)",
              "3" },
        },
        .hit = 1,
        .expect = XP_REDIRECT,
        .ports = { 3 },
    },
    {
        .name = "vlan: tag without the Ethertype after it is no tag",
        .in =
            "0200000000020200000000018100 0064",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x8100),vlan(vid=100,pcp=0),encap(eth_type(0x0800),"
              "ipv4(src=0.0.0.0/0.0.0.0,dst=0.0.0.0/0.0.0.0,proto=0/0,tos=0/0,"
              "ttl=0/0,frag=no))",
              "2" },
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x8100),vlan(vid=0,pcp=0),encap(eth_type(0x0800),"
              "ipv4(src=0.0.0.0/0.0.0.0,dst=0.0.0.0/0.0.0.0,proto=0/0,tos=0/0,"
              "ttl=0/0,frag=no))",
              "3" },
        },
        .hit = -1,
        .expect = XP_MISS,
    },
    {
        .name = "vlan: tagged frame",
        .in =
            "020000000002020000000001810060640800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1/0.0.0.0,"
              "dst=10.0.0.2/0.0.0.0,proto=17/0,tos=0/0,ttl=64/0,frag=no),"
              "udp(src=40000/0,dst=53/0)",
              "2" },
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x8100),vlan(vid=100,pcp=3),encap(eth_type(0x0800),"
              "ipv4(src=10.0.0.1/0.0.0.0,dst=10.0.0.2/0.0.0.0,proto=17/0,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000/0,dst=53/0))",
              "3" },
        },
        .hit = 1,
        .expect = XP_REDIRECT,
        .ports = { 3 },
    },
    {
        .name = "vlan: two tags",
        .in =
            "02000000000202000000000188a8000a810000640800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x88a8),vlan(vid=11,pcp=0),encap(eth_type(0x8100),"
              "vlan(vid=100,pcp=0),encap(eth_type(0x0800),"
              "ipv4(src=10.0.0.1/0.0.0.0,dst=10.0.0.2/0.0.0.0,proto=17/0,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000/0,dst=53/0)))",
              "2" },
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x88a8),vlan(vid=10,pcp=0),encap(eth_type(0x8100),"
              "vlan(vid=100,pcp=0),encap(eth_type(0x0800),"
              "ipv4(src=10.0.0.1/0.0.0.0,dst=10.0.0.2/0.0.0.0,proto=17/0,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000/0,dst=53/0)))",
              "3" },
        },
        .hit = 1,
        .expect = XP_REDIRECT,
        .ports = { 3 },
    },
    {
        .name = "llc/snap: IPv4 in SNAP has the same key as in Ethernet II",
        .in =
            "0200000000020200000000010028 aaaa030000000800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
    },
    {
        .name = "llc: 802.2 without SNAP has no Ethertype",
        .in =
            "0200000000020200000000010014 "
            "4242030000000000000000000000000000000000",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1/0.0.0.0,"
              "dst=10.0.0.2/0.0.0.0,proto=17/0,tos=0/0,ttl=64/0,frag=no),"
              "udp(src=40000/0,dst=53/0)",
              "2" },
        },
        .hit = -1,
        .expect = XP_MISS,
    },
    {
        .name = "arp: request",
        .in =
            "ffffffffffff0200000000010806 "
            "00010800060400010200000000010a0000010000000000000a000002",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=ff:ff:ff:ff:ff:ff),"
              "eth_type(0x0806),arp(sip=10.0.0.1,tip=10.0.0.2,op=1,"
              "sha=02:00:00:00:00:01,tha=00:00:00:00:00:00)",
              "2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
    },
    {
        .name = "arp: truncated after the sender address",
        .in =
            "ffffffffffff0200000000010806 0001080006040001020000000001",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=ff:ff:ff:ff:ff:ff),"
              "eth_type(0x0806),arp(sip=0.0.0.0/0.0.0.0,tip=0.0.0.0/0.0.0.0,"
              "op=1,sha=00:00:00:00:00:00/00:00:00:00:00:00,"
              "tha=00:00:00:00:00:00/00:00:00:00:00:00)",
              "2" },
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=ff:ff:ff:ff:ff:ff),"
              "eth_type(0x0806),arp(sip=0.0.0.0,tip=0.0.0.0,op=0,"
              "sha=00:00:00:00:00:00,tha=00:00:00:00:00:00)",
              "3" },
        },
        .hit = 1,
        .expect = XP_REDIRECT,
        .ports = { 3 },
    },
    {
        .name = "ipv6: udp",
        .in =
            "02000000000202000000000186dd 60000000000c1140fc0000000000000000 "
            "00000000000001fc000000000000000000000000000002 9c400035000c82d6 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x86dd),ipv6(src=fc00::1,dst=fc00::2,label=0/0,"
              "proto=17,tclass=0/0,hlimit=64/0,frag=no),udp(src=40000/0,"
              "dst=53)",
              "2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
    },
    {
        .name = "set ipv6: destination, udp checksum fixed",
        .in =
            "02000000000202000000000186dd 60000000000c1140fc0000000000000000 "
            "00000000000001fc000000000000000000000000000002 9c400035000c82d6 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x86dd),ipv6(src=fc00::1,dst=fc00::2,label=0/0,"
              "proto=17,tclass=0/0,hlimit=64/0,frag=no),udp(src=40000/0,"
              "dst=53)",
              "set(ipv6(dst=fc00::99)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "02000000000202000000000186dd 60000000000c1140fc0000000000000000 "
            "00000000000001fc000000000000000000000000000099 9c400035000c823f "
            "78647021",
            },
    {
        .name = "set ipv6 and tcp, label and hop limit too",
        .in =
            "02000000000202000000000186dd 6000000000140640fc0000000000000000 "
            "00000000000001fc000000000000000000000000000002 "
            "9c400050000000010000000150022000" "fb4b0000",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x86dd),ipv6(src=fc00::1,dst=fc00::2,label=0/0,"
              "proto=6,tclass=0/0,hlimit=64/0,frag=no),tcp(src=40000/0,"
              "dst=80)",
              "set(ipv6(src=fc00::77,label=0x12345,hlimit=63)),"
              "set(tcp(dst=8080)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "02000000000202000000000186dd 600123450014063ffc0000000000000000 "
            "00000000000077fc000000000000000000000000000002 "
            "9c401f90000000010000000150022000db950000",
            },
    {
        .name = "set ipv6: icmp6 to the TC half, which fixes the checksum",
        .in =
            "02000000000202000000000186dd 6000000000083a40fc0000000000000000 "
            "00000000000001fc000000000000000000000000000002 "
            "800087b600010001",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x86dd),ipv6(src=fc00::1,dst=fc00::2,label=0/0,"
              "proto=58,tclass=0/0,hlimit=64/0,frag=no),"
              "icmpv6(type=128/0,code=0/0)",
              "set(ipv6(src=fc00::5)),3" },
        },
        .hit = 0,
        .expect = XP_TO_TC,
        .mode = XP_SKB_PORTS,
        .ports = { 3 },
        .out =
            "02000000000202000000000186dd 6000000000083a40fc0000000000000000 "
            "00000000000005fc000000000000000000000000000002 "
            "800087b600010001",
        /* The ICMPv6 checksum is left for the TC half (the test checks it
         * after doing what TC does). */
        .ovs_differs = "OVS fixes the ICMPv6 checksum where XDP leaves it "
                       "to its TC half",
    },
    {
        .name = "set ipv6 with an extension header goes to ovs-vswitchd",
        .in =
            "02000000000202000000000186dd 6000000000140040fc0000000000000000 "
            "00000000000001fc000000000000000000000000000002 "
            "1100000000000000 9c400035000c82d6 78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x86dd),ipv6(src=fc00::1,dst=fc00::2,label=0/0,"
              "proto=17,tclass=0/0,hlimit=64/0,frag=no),udp(src=40000/0,"
              "dst=53)",
              "set(ipv6(dst=fc00::99)),2" },
        },
        .hit = 0,
        .expect = XP_SLOW,
        /* XDP finds the L4 header only right after the IPv6 header. */
        .ovs_differs = "ovs-vswitchd runs the actions of this packet",
    },
    {
        .name = "ipv6: header truncated to 30 bytes",
        .in =
            "02000000000202000000000186dd "
            "60000000000c1140fc000000000000000000000000000001fc0000000000",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x86dd),ipv6(src=fc00::1,dst=::/::,label=0/0,"
              "proto=0/0,tclass=0/0,hlimit=0/0,frag=no)",
              "2" },
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x86dd),ipv6(src=::,dst=::,label=0,proto=0,tclass=0,"
              "hlimit=0,frag=no)",
              "3" },
        },
        .hit = 1,
        .expect = XP_REDIRECT,
        .ports = { 3 },
    },
    {
        .name = "ipv6: 17 extension headers go to ovs-vswitchd",
        .in =
            "02000000000202000000000186dd 6000000000943c40fc0000000000000000 "
            "00000000000001fc000000000000000000000000000002 3c00010400000000 "
            "3c000104000000003c000104000000003c000104000000003c00010400000000 "
            "3c000104000000003c000104000000003c000104000000003c00010400000000 "
            "3c000104000000003c000104000000003c000104000000003c00010400000000 "
            "3c000104000000003c000104000000003c000104000000001100010400000000 "
            "9c400035000c82d678647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x86dd),ipv6(src=::/::,dst=::/::,label=0/0,proto=0/0,"
              "tclass=0/0,hlimit=0/0)",
              "2" },
        },
        .hit = -1,
        .expect = XP_MISS,
        .ovs_differs =
            "More IPv6 extension headers than the XDP parser follows: it "
            "cannot make the key that flow_extract() makes, which would "
            "match, so it hands the frame to ovs-vswitchd.",
    },
    {
        .name = "ipv6: neighbor solicitation with source address option",
        .in =
            "3333ff00000202000000000186dd 6000000000203afffc0000000000000000 "
            "00000000000001ff0200000000000000000001ff000002 "
            "87007f9700000000fc0000000000000000000000000000020101020000000001",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=33:33:ff:00:00:02),"
              "eth_type(0x86dd),ipv6(src=fc00::1/::,dst=ff02::1:ff00:2/::,"
              "label=0/0,proto=58,tclass=0/0,hlimit=255/0,frag=no),"
              "icmpv6(type=135,code=0),nd(target=fc00::2,"
              "sll=02:00:00:00:00:01,tll=00:00:00:00:00:00/00:00:00:00:00:00)",
              "2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
    },

    /* Actions: each XDP action, and the checksums it fixes up. */
    {
        .name = "output: to an skb port, through the TC half",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "3" },
        },
        .hit = 0,
        .expect = XP_TO_TC,
        .mode = XP_SKB_PORTS,
        .ports = { 3 },
    },
    {
        .name = "output: to two ports, through the TC half",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "2,3" },
        },
        .hit = 0,
        .expect = XP_TO_TC,
        .mode = XP_SKB_PORTS,
        .ports = { 2, 3 },
    },
    {
        .name = "drop: a flow without actions",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "drop" },
        },
        .hit = 0,
        .expect = XP_DROP,
    },
    {
        .name = "push_vlan: 802.1Q",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "push_vlan(vid=100,pcp=3),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "020000000002020000000001810060640800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
    },
    {
        .name = "push_vlan: 802.1ad",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "push_vlan(tpid=0x88a8,vid=10,pcp=0),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "02000000000202000000000188a8000a0800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
    },
    {
        .name = "push_vlan: onto a tagged frame",
        .in =
            "020000000002020000000001810060640800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x8100),vlan(vid=100,pcp=3),encap(eth_type(0x0800),"
              "ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,tos=0/0,ttl=64/0,"
              "frag=no),udp(src=40000,dst=53))",
              "push_vlan(tpid=0x88a8,vid=10,pcp=0),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "02000000000202000000000188a8000a810060640800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
    },
    {
        .name = "pop_vlan: one tag",
        .in =
            "020000000002020000000001810060640800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x8100),vlan(vid=100,pcp=3),encap(eth_type(0x0800),"
              "ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,tos=0/0,ttl=64/0,"
              "frag=no),udp(src=40000,dst=53))",
              "pop_vlan,2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
    },
    {
        .name = "pop_vlan: the outer of two tags",
        .in =
            "02000000000202000000000188a8000a810000640800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x88a8),vlan(vid=10,pcp=0),encap(eth_type(0x8100),"
              "vlan(vid=100,pcp=0),encap(eth_type(0x0800),"
              "ipv4(src=10.0.0.1/0.0.0.0,dst=10.0.0.2/0.0.0.0,proto=17/0,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000/0,dst=53/0)))",
              "pop_vlan,2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "020000000002020000000001810000640800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
    },
    {
        .name = "set eth: both addresses",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "set(eth(src=02:00:00:00:00:aa,dst=02:00:00:00:00:bb)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000bb0200000000aa0800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
    },
    {
        .name = "set eth: masked destination",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "set(eth(dst=0a:0b:0c:00:00:00/ff:ff:ff:00:00:00)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0a0b0c0000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
    },
    {
        .name = "set ipv4: source, udp checksum",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "set(ipv4(src=192.168.1.1)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000020200000000010800 "
            "45000020000100004011af21c0a801010a000002 9c400035000caf2f "
            "78647021",
    },
    {
        .name = "set ipv4: destination, udp without checksum",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c0000 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "set(ipv4(dst=10.0.0.99)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000020200000000010800 "
            "4500002000010000401166690a0000010a000063 9c400035000c0000 "
            "78647021",
    },
    {
        .name = "set ipv4: destination, tcp checksum",
        .in =
            "0200000000020200000000010800 "
            "4500002800010000400666cd0a0000010a000002 "
            "9c400050000000010000000150022000df4d0000",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=6,"
              "tos=0/0,ttl=64/0,frag=no),tcp(src=40000,dst=80)",
              "set(ipv4(dst=10.0.0.99)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000020200000000010800 "
            "45000028000100004006666c0a0000010a000063 "
            "9c400050000000010000000150022000deec0000",
    },
    {
        .name = "set ipv4 and tcp, to the TC half: TC fixes the tcp checksum",
        .in =
            "0200000000020200000000010800 "
            "4500002800010000400666cd0a0000010a000002 "
            "9c400050000000010000000150022000df4d0000",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=6,"
              "tos=0/0,ttl=64/0,frag=no),tcp(src=40000,dst=80)",
              "set(ipv4(dst=10.0.0.99)),set(tcp(dst=8080)),3" },
        },
        .hit = 0,
        .expect = XP_TO_TC,
        .mode = XP_SKB_PORTS,
        .ports = { 3 },
        /* The IPv4 header checksum is fixed in XDP; the TCP checksum is
         * left for the TC half, which alone can tell a partial one (the
         * test checks it after doing what TC does). */
        .ovs_differs = "OVS fixes the TCP checksum where XDP leaves it "
                       "to its TC half",
        .out =
            "0200000000020200000000010800 "
            "45000028000100004006666c0a0000010a000063 "
            "9c401f90000000010000000150022000df4d0000",
    },
    {
        .name = "set ipv4: tos and ttl",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "set(ipv4(tos=0xb8,ttl=63)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000020200000000010800 "
            "45b80020000100003f1167120a0000010a000002 9c400035000c66d8 "
            "78647021",
    },
    {
        .name = "set tcp: both ports",
        .in =
            "0200000000020200000000010800 "
            "4500002800010000400666cd0a0000010a000002 "
            "9c400050000000010000000150022000df4d0000",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=6,"
              "tos=0/0,ttl=64/0,frag=no),tcp(src=40000,dst=80)",
              "set(tcp(src=1234,dst=8080)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000020200000000010800 "
            "4500002800010000400666cd0a0000010a000002 "
            "04d21f90000000010000000150022000577c0000",
    },
    {
        .name = "set udp: destination port",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "set(udp(dst=5353)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c4014e9000c5224 "
            "78647021",
    },
    {
        .name = "set ipv4: icmp, IP checksum only",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000400166da0a0000010a000002 "
            "0800192d0001000170696e67",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=1,"
              "tos=0/0,ttl=64/0,frag=no),icmp(type=8,code=0)",
              "set(ipv4(dst=10.0.0.99)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000020200000000010800 "
            "4500002000010000400166790a0000010a000063 "
            "0800192d0001000170696e67",
    },
    {
        .name = "set ipv4 and udp: header with options",
        .in =
            "0200000000020200000000010800 "
            "4600002400010000401163c50a0000010a00000201010100 "
            "9c400035000c66d8 78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "set(ipv4(dst=10.0.0.99)),set(udp(dst=5353)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000020200000000010800 "
            "4600002400010000401163640a0000010a00006301010100 "
            "9c4014e9000c51c3 78647021",
    },
    {
        .name = "push_vlan, then set ipv4 and udp",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "push_vlan(vid=100,pcp=0),set(ipv4(dst=10.0.0.99)),"
              "set(udp(dst=5353)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "020000000002020000000001810000640800 "
            "4500002000010000401166690a0000010a000063 9c4014e9000c51c3 "
            "78647021",
    },
    {
        .name = "pop_vlan, then set ipv4 and udp",
        .in =
            "020000000002020000000001810060640800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x8100),vlan(vid=100,pcp=3),encap(eth_type(0x0800),"
              "ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,tos=0/0,ttl=64/0,"
              "frag=no),udp(src=40000,dst=53))",
              "pop_vlan,set(ipv4(src=10.0.0.5)),set(udp(src=1000)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000020200000000010800 "
            "4500002000010000401166c60a0000050a000002 03e80035000cff2c "
            "78647021",
    },
    {
        .name = "set eth, then two outputs",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "set(eth(dst=02:00:00:00:00:bb)),2,3" },
        },
        .hit = 0,
        .expect = XP_TO_TC,
        .mode = XP_SKB_PORTS,
        .ports = { 2, 3 },
        .out =
            "0200000000bb0200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
    },
    {
        .name = "set ipv4: udp checksum that comes to 0 is sent as 0xffff",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "set(ipv4(dst=10.0.102.218)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000020200000000010800 "
            "45000020000100004011fff10a0000010a0066da 9c400035000cffff "
            "78647021",
    },
    {
        .name = "set ipv4: later fragment, no L4 checksum to fix",
        .in =
            "0200000000020200000000010800 "
            "45000020000100b9401166110a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=later)",
              "set(ipv4(dst=10.0.0.99)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000020200000000010800 "
            "45000020000100b9401165b00a0000010a000063 9c400035000c66d8 "
            "78647021",
        .ovs_differs =
            "OVS's userspace datapath fixes up the L4 checksum of a later "
            "fragment too, that is bytes of its payload "
            "(packet_set_ipv4_addr() does not look at the fragment offset); "
            "the kernel datapath leaves it, as XDP does.",
    },
    {
        .name = "set ipv4: IPv4 in LLC/SNAP",
        .in =
            "0200000000020200000000010028 aaaa030000000800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "set(ipv4(dst=10.0.0.99)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000020200000000010028 aaaa030000000800 "
            "4500002000010000401166690a0000010a000063 9c400035000c6677 "
            "78647021",
    },
    {
        .name = "set udp: IPv4 in LLC/SNAP",
        .in =
            "0200000000020200000000010028 aaaa030000000800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "set(udp(dst=5353)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000020200000000010028 aaaa030000000800 "
            "4500002000010000401166ca0a0000010a000002 9c4014e9000c5224 "
            "78647021",
    },
    {
        .name = "set tcp: header truncated, the packet is dropped",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000400666d50a0000010a000002 "
            "9c4000500000000100000001",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=6,"
              "tos=0/0,ttl=64/0,frag=no),tcp(src=0,dst=0)",
              "set(tcp(dst=8080)),2" },
        },
        .hit = 0,
        .expect = XP_TX_ERROR,
        .ovs_differs =
            "OVS's userspace datapath skips a set of a TCP header that is "
            "not there and sends the packet on; the kernel datapath drops "
            "it, as XDP does.",
    },
};

static int lo_ifindex;
static bool verbose;
static bool compiled;            /* --compiled: rows run compiled programs. */

/* Hex. */

/* Parses 'hex' into 'buf', which has room for 'size' bytes, and returns
 * the number of bytes.  Spaces are ignored. */
static size_t
xp_parse_hex(const char *hex, uint8_t *buf, size_t size)
{
    const char *p = hex;
    size_t n = 0;

    while (*p) {
        if (*p == ' ') {
            p++;
            continue;
        }
        if (!isxdigit((unsigned char) p[0]) || !isxdigit((unsigned char) p[1])
            || n >= size) {
            ovs_fatal(0, "bad hex at \"%s\"", p);
        }
        buf[n++] = hexit_value(p[0]) * 16 + hexit_value(p[1]);
        p += 2;
    }
    return n;
}

static void
xp_put_hex(struct ds *s, const uint8_t *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ds_put_format(s, "%02x", data[i]);
    }
}

/* Checksums, recomputed from scratch. */

static uint32_t
xp_sum(const uint8_t *p, size_t n, uint32_t sum)
{
    for (size_t i = 0; i + 1 < n; i += 2) {
        sum += (p[i] << 8) | p[i + 1];
    }
    if (n % 2) {
        sum += p[n - 1] << 8;
    }
    return sum;
}

static uint16_t
xp_fold(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return sum;
}

/* Checks the IPv4 header checksum and, for a TCP or UDP packet that is not
 * a fragment, its checksum, of the IPv4 packet in 'frame' (past Ethernet,
 * VLAN and LLC/SNAP headers).  Appends the name of each invalid one to
 * 'bad' and returns the number of checksums it could check. */
/* xp_check_csums() for the IPv6 packet of 'len' bytes at 'ip6': its TCP,
 * UDP or ICMPv6 checksum, if the header follows the IPv6 header. */
static int
xp_check_csums_ipv6(const uint8_t *ip6, size_t len, struct ds *bad)
{
    if (len < 40) {
        return 0;
    }
    size_t pay_len = (ip6[4] << 8) | ip6[5];
    uint8_t proto = ip6[6];
    const uint8_t *l4 = ip6 + 40;

    if (40 + pay_len > len) {
        return 0;
    }
    uint32_t pseudo = xp_sum(ip6 + 8, 32, 0) + proto + pay_len;
    if ((proto == IPPROTO_TCP && pay_len >= 20)
        || (proto == IPPROTO_UDP && pay_len >= 8)
        || (proto == IPPROTO_ICMPV6 && pay_len >= 4)) {
        if (xp_fold(xp_sum(l4, pay_len, pseudo)) != 0xffff) {
            ds_put_format(bad, " %s", (proto == IPPROTO_TCP ? "tcp"
                                       : proto == IPPROTO_UDP ? "udp"
                                       : "icmp6"));
        }
        return 1;
    }
    return 0;
}

static int
xp_check_csums(const uint8_t *frame, size_t len, struct ds *bad)
{
    size_t ofs = 12;
    uint16_t type;

    if (len < 14) {
        return 0;
    }
    type = (frame[ofs] << 8) | frame[ofs + 1];
    while ((type == 0x8100 || type == 0x88a8) && ofs + 6 <= len) {
        ofs += 4;
        type = (frame[ofs] << 8) | frame[ofs + 1];
    }
    ofs += 2;
    if (type < 0x600 && ofs + 8 <= len && frame[ofs] == 0xaa
        && frame[ofs + 1] == 0xaa && frame[ofs + 2] == 3) {
        type = (frame[ofs + 6] << 8) | frame[ofs + 7];
        ofs += 8;
    }
    if (type == 0x86dd) {
        return xp_check_csums_ipv6(frame + ofs, len - ofs, bad);
    }
    if (type != 0x0800 || ofs + 20 > len) {
        return 0;
    }

    const uint8_t *ip = frame + ofs;
    size_t ihl = (ip[0] & 15) * 4;
    size_t tot_len = (ip[2] << 8) | ip[3];
    int n = 0;

    if (ihl < 20 || ofs + ihl > len) {
        return 0;
    }
    n++;
    if (xp_fold(xp_sum(ip, ihl, 0)) != 0xffff) {
        ds_put_cstr(bad, " ip");
    }
    if (tot_len < ihl || ofs + tot_len > len
        || ((ip[6] << 8 | ip[7]) & 0x3fff)) {
        return n;
    }

    const uint8_t *l4 = ip + ihl;
    size_t l4_len = tot_len - ihl;
    uint32_t pseudo = xp_sum(ip + 12, 8, 0) + ip[9] + l4_len;

    if (ip[9] == IPPROTO_TCP && l4_len >= 20) {
        n++;
        if (xp_fold(xp_sum(l4, l4_len, pseudo)) != 0xffff) {
            ds_put_cstr(bad, " tcp");
        }
    } else if (ip[9] == IPPROTO_UDP && l4_len >= 8 && (l4[6] | l4[7])) {
        n++;
        if (xp_fold(xp_sum(l4, l4_len, pseudo)) != 0xffff) {
            ds_put_cstr(bad, " udp");
        }
    }
    return n;
}

/* The datapath. */

/* Applies the checksum differences in 'meta' to the TCP, UDP or ICMPv6
 * checksum of the untagged IP frame 'frame', as the TC half's
 * bpf_l4_csum_replace() does to a full checksum. */
static void
xp_tc_fix_csum(const struct xdp_dp_skb_meta *meta, uint8_t *frame,
               size_t len)
{
    bool ipv6 = len >= 54 && frame[12] == 0x86 && frame[13] == 0xdd;

    if (!(meta->flags & XDP_DP_SKB_META_F_L4_CSUM) || len < 34
        || (!ipv6 && (frame[12] != 0x08 || frame[13] != 0x00))) {
        return;
    }
    size_t l4 = ipv6 ? 54 : 14 + (frame[14] & 0xf) * 4;
    uint8_t proto = ipv6 ? frame[20] : frame[23];
    size_t ofs = (proto == 6 ? l4 + 16 : proto == 17 ? l4 + 6
                  : proto == 58 && ipv6 ? l4 + 2 : 0);
    if (!ofs || ofs + 2 > len) {
        return;
    }
    uint16_t check = (frame[ofs] << 8) | frame[ofs + 1];
    if (proto == 17 && !check) {
        return;                 /* No UDP checksum. */
    }
    uint32_t sum = (uint16_t) ~check + ntohs(meta->csum_pseudo)
                   + ntohs(meta->csum_other);
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    check = ~sum;
    frame[ofs] = check >> 8;
    frame[ofs + 1] = check;
}

static struct xdp_dp_stats
xp_read_stats(struct dp_xdp *dp)
{
    int n_cpus = libbpf_num_possible_cpus();
    struct xdp_dp_stats *per_cpu = xcalloc(n_cpus, sizeof *per_cpu);
    struct xdp_dp_stats sum;
    uint32_t zero = 0;

    memset(&sum, 0, sizeof sum);
    if (bpf_map_lookup_elem(bpf_map__fd(dp->skel->maps.xdp_dp_stats), &zero,
                            per_cpu)) {
        ovs_fatal(errno, "cannot read xdp_dp_stats");
    }
    for (int i = 0; i < n_cpus; i++) {
        sum.n_hit += per_cpu[i].n_hit;
        sum.n_missed += per_cpu[i].n_missed;
        sum.n_tx_error += per_cpu[i].n_tx_error;
        sum.n_slow_path += per_cpu[i].n_slow_path;
        sum.n_lost += per_cpu[i].n_lost;
        sum.n_upcall_limited += per_cpu[i].n_upcall_limited;
    }
    free(per_cpu);
    return sum;
}

static void
xp_map_update(struct bpf_map *map, const void *key, const void *value)
{
    if (bpf_map_update_elem(bpf_map__fd(map), key, value, BPF_ANY)) {
        ovs_fatal(errno, "cannot update %s", bpf_map__name(map));
    }
}

/* Sets up the output ports for 'row' (see the comment at the top). */
static void
xp_setup_ports(struct dp_xdp *dp, const struct xp_row *row)
{
    for (uint32_t p = XP_FIRST_PORT; p <= XP_LAST_PORT; p++) {
        struct xdp_dp_port port;

        if (row->mode == XP_SKB_PORTS) {
            port.ifindex = XP_IFINDEX_BASE + p;
            port.tx_mode = XDP_DP_TX_SKB;
        } else {
            port.ifindex = lo_ifindex;
            port.tx_mode = XDP_DP_TX_REDIRECT;
        }
        xp_map_update(dp->skel->maps.xdp_dp_ports, &p, &port);
        bpf_map_delete_elem(bpf_map__fd(dp->skel->maps.xdp_dp_tx_ports), &p);
    }
    if (row->mode == XP_REDIRECT_PORTS && row->expect == XP_REDIRECT) {
        uint32_t p = row->ports[0];
        uint32_t ifindex = lo_ifindex;

        xp_map_update(dp->skel->maps.xdp_dp_tx_ports, &p, &ifindex);
    }
}

/* A flow of a row, parsed. */
struct xp_parsed_flow {
    struct ofpbuf key, mask, actions;
    ovs_u128 ufid;
};

static void
xp_parse_flow(const struct xp_flow *f, struct xp_parsed_flow *pf, int id)
{
    char *error = NULL;

    ofpbuf_init(&pf->key, 0);
    ofpbuf_init(&pf->mask, 0);
    ofpbuf_init(&pf->actions, 0);
    if (odp_flow_from_string(f->match, NULL, &pf->key, &pf->mask, &error)) {
        ovs_fatal(0, "%s: %s", f->match, error);
    }
    if (strcmp(f->actions, "drop")
        && odp_actions_from_string(f->actions, NULL, &pf->actions)) {
        ovs_fatal(0, "%s: bad actions", f->actions);
    }
    memset(&pf->ufid, 0, sizeof pf->ufid);
    pf->ufid.u32[0] = id;
    pf->ufid.u32[3] = 0xfeed;
}

static void
xp_free_flow(struct xp_parsed_flow *pf)
{
    ofpbuf_uninit(&pf->key);
    ofpbuf_uninit(&pf->mask);
    ofpbuf_uninit(&pf->actions);
}

/* Installs or deletes ('put' false) the 'n' flows in 'flows' in one
 * dpif_operate() call.  Appends each failure to 'why'. */
static void
xp_operate(struct dpif *dpif, struct xp_parsed_flow *flows, int n, bool put,
           struct ds *why)
{
    struct dpif_op ops[XP_MAX_FLOWS], *opp[XP_MAX_FLOWS];

    for (int i = 0; i < n; i++) {
        struct xp_parsed_flow *f = &flows[i];

        memset(&ops[i], 0, sizeof ops[i]);
        if (put) {
            ops[i].type = DPIF_OP_FLOW_PUT;
            ops[i].flow_put = (struct dpif_flow_put) {
                .flags = DPIF_FP_CREATE,
                .key = f->key.data, .key_len = f->key.size,
                .mask = f->mask.data, .mask_len = f->mask.size,
                .actions = f->actions.data, .actions_len = f->actions.size,
                .ufid = &f->ufid, .pmd_id = PMD_ID_NULL,
            };
        } else {
            ops[i].type = DPIF_OP_FLOW_DEL;
            ops[i].flow_del = (struct dpif_flow_del) {
                .key = f->key.data, .key_len = f->key.size,
                .ufid = &f->ufid, .pmd_id = PMD_ID_NULL,
            };
        }
        opp[i] = &ops[i];
    }
    dpif_operate(dpif, opp, n, DPIF_OFFLOAD_NEVER);
    for (int i = 0; i < n; i++) {
        if (ops[i].error) {
            ds_put_format(why, "\n    %s of flow %d failed (%s)",
                          put ? "put" : "delete", i,
                          ovs_strerror(ops[i].error));
        }
    }
}

/* Stores in '*n_packets' the packet counter of flow 'f' and in '*layer'
 * where it runs ("xdp" or "ovs").  Returns 0 or a positive errno. */
static int
xp_flow_stats(struct dpif *dpif, const struct xp_parsed_flow *f,
              uint64_t *n_packets, char *layer, size_t layer_size)
{
    uint64_t stub[DPIF_FLOW_BUFSIZE / 8];
    struct ofpbuf buf = OFPBUF_STUB_INITIALIZER(stub);
    struct dpif_flow flow;
    int error;

    error = dpif_flow_get(dpif, f->key.data, f->key.size, &f->ufid,
                          PMD_ID_NULL, &buf, &flow);
    if (!error) {
        *n_packets = flow.stats.n_packets;
        ovs_strlcpy(layer, flow.attrs.dp_layer ? flow.attrs.dp_layer : "?",
                    layer_size);
    }
    ofpbuf_uninit(&buf);
    return error;
}

/* The result of running a frame through the datapath program. */
struct xp_result {
    uint32_t verdict;           /* XDP_*. */
    uint8_t data[XP_MAX_FRAME + 64];    /* Metadata, then the frame. */
    uint32_t size;              /* Bytes in 'data'. */
    uint32_t meta_len;          /* Bytes of metadata at the start. */
};

static void
xp_run(struct dp_xdp *dp, const uint8_t *frame, size_t len,
       struct xp_result *r)
{
    struct xdp_md ctx_in = { .data_end = len,
                             .ingress_ifindex = lo_ifindex };
    struct xdp_md ctx_out;
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = frame, .data_size_in = len,
                .data_out = r->data, .data_size_out = sizeof r->data,
                .ctx_in = &ctx_in, .ctx_size_in = sizeof ctx_in,
                .ctx_out = &ctx_out, .ctx_size_out = sizeof ctx_out,
                .repeat = 1);
    int error;

    memset(&ctx_out, 0, sizeof ctx_out);
    error = bpf_prog_test_run_opts(
        dp->xdp_prog_fd, &opts);
    if (error) {
        ovs_fatal(-error, "BPF_PROG_TEST_RUN");
    }
    r->verdict = opts.retval;
    r->size = opts.data_size_out;
    r->meta_len = ctx_out.data;
}

static const char *
xp_verdict_name(uint32_t verdict)
{
    static const char *const names[] = {
        "XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT",
    };
    return verdict < ARRAY_SIZE(names) ? names[verdict] : "unknown";
}

/* The reference: Open vSwitch's own flow_extract() and
 * odp_execute_actions(). */

struct xp_ovs_out {
    int n;                              /* Outputs so far. */
    int ports[XDP_DP_MAX_OUTPUTS + 1];  /* Their ports. */
    struct dp_packet *packets[XDP_DP_MAX_OUTPUTS + 1];  /* Their frames. */
};

static void
xp_ovs_execute_cb(void *aux, struct dp_packet_batch *batch,
                  const struct nlattr *a, bool should_steal)
{
    struct xp_ovs_out *out = aux;
    struct dp_packet *packet;

    if (nl_attr_type(a) == OVS_ACTION_ATTR_OUTPUT) {
        DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
            if (out->n < ARRAY_SIZE(out->ports)) {
                out->ports[out->n] = nl_attr_get_u32(a);
                out->packets[out->n++] = dp_packet_clone(packet);
            }
        }
    }
    dp_packet_delete_batch(batch, should_steal);
}

/* Returns the index of the flow of 'flows' that OVS matches the frame
 * 'frame' arriving on XP_IN_PORT to, or -1 if none.  Appends to 'why'
 * if more than one matches. */
static int
xp_ovs_classify(const uint8_t *frame, size_t len,
                const struct xp_parsed_flow *flows, int n, struct ds *why)
{
    struct dp_packet *packet = dp_packet_clone_data(frame, len);
    struct flow flow;
    int hit = -1;

    pkt_metadata_init(&packet->md, u32_to_odp(XP_IN_PORT));
    flow_extract(packet, &flow);
    for (int i = 0; i < n; i++) {
        struct match match;

        if (parse_key_and_mask_to_match(flows[i].key.data, flows[i].key.size,
                                        flows[i].mask.data,
                                        flows[i].mask.size, &match)) {
            ds_put_format(why, "\n    OVS cannot parse flow %d", i);
            continue;
        }
        if (flow_equal_except(&flow, &match.flow, &match.wc)) {
            if (hit >= 0) {
                ds_put_format(why, "\n    OVS matches flows %d and %d",
                              hit, i);
            }
            hit = i;
        }
    }
    dp_packet_delete(packet);
    return hit;
}

/* Runs 'actions' with odp_execute_actions() on the frame 'frame' arriving
 * on XP_IN_PORT and stores what comes out in '*out'. */
static void
xp_ovs_execute(const uint8_t *frame, size_t len, const struct ofpbuf *actions,
               struct xp_ovs_out *out)
{
    struct dp_packet *packet = dp_packet_clone_data_with_headroom(frame, len,
                                                                   64);
    struct dp_packet_batch batch;
    struct flow flow;

    memset(out, 0, sizeof *out);
    pkt_metadata_init(&packet->md, u32_to_odp(XP_IN_PORT));
    flow_extract(packet, &flow);    /* Sets the header offsets. */
    dp_packet_batch_init_packet(&batch, packet);
    odp_execute_actions(out, &batch, true, actions->data, actions->size,
                        xp_ovs_execute_cb);
}

static void
xp_ovs_out_destroy(struct xp_ovs_out *out)
{
    for (int i = 0; i < out->n; i++) {
        dp_packet_delete(out->packets[i]);
    }
}

/* Running a row. */

/* Runs 'row' on 'dpif'.  Returns true if it passed. */
static bool
xp_run_row(struct dpif *dpif, const struct xp_row *row, int row_id)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    struct xp_parsed_flow flows[XP_MAX_FLOWS];
    struct ds why = DS_EMPTY_INITIALIZER;
    uint8_t in[XP_MAX_FRAME], out[XP_MAX_FRAME];
    size_t in_len, out_len;
    int n_flows = 0;
    int n_ports = 0;

    in_len = xp_parse_hex(row->in, in, sizeof in);
    out_len = (row->out ? xp_parse_hex(row->out, out, sizeof out)
               : (memcpy(out, in, in_len), in_len));
    while (n_ports < XDP_DP_MAX_OUTPUTS && row->ports[n_ports]) {
        n_ports++;
    }
    for (int i = 0; i < XP_MAX_FLOWS && row->flows[i].match; i++) {
        xp_parse_flow(&row->flows[i], &flows[i], row_id * 16 + i + 1);
        n_flows++;
    }

    /* 1. The flow table. */
    xp_setup_ports(dp, row);
    xp_operate(dpif, flows, n_flows, true, &why);
    if (compiled) {
        struct ds reply = DS_EMPTY_INITIALIZER;
        struct xdp_dp_cfg cfg;
        int error = dp_xdp_compile_now(dp, &reply);

        dp_xdp_compile_get_cfg(dp, &cfg);
        if (error || !cfg.enabled) {
            ds_put_format(&why, "\n    cannot compile: %s",
                          error ? ovs_strerror(error) : "not compiled");
        }
        ds_destroy(&reply);
    }
    for (int i = 0; i < n_flows; i++) {
        char layer[8];
        uint64_t n;

        if (!xp_flow_stats(dpif, &flows[i], &n, layer, sizeof layer)
            && strcmp(layer, "xdp")) {
            ds_put_format(&why, "\n    flow %d runs in %s, not in XDP", i,
                          layer);
        }
    }

    /* 2. The frame. */
    struct xdp_dp_stats before = xp_read_stats(dp);
    struct xp_result r;
    xp_run(dp, in, in_len, &r);
    struct xdp_dp_stats after = xp_read_stats(dp);

    /* 3. What happened to it. */
    uint64_t d_hit = after.n_hit - before.n_hit;
    uint64_t d_missed = after.n_missed - before.n_missed;
    uint64_t d_tx_error = after.n_tx_error - before.n_tx_error;
    uint64_t d_slow = after.n_slow_path - before.n_slow_path;
    uint32_t verdict = (row->expect == XP_REDIRECT ? XDP_REDIRECT
                        : row->expect == XP_TO_TC ? XDP_PASS : XDP_DROP);

    if (r.verdict != verdict) {
        ds_put_format(&why, "\n    verdict %s, expected %s",
                      xp_verdict_name(r.verdict), xp_verdict_name(verdict));
    }
    if (d_hit != (row->expect != XP_MISS)
        || d_missed != (row->expect == XP_MISS)
        || d_tx_error != (row->expect == XP_TX_ERROR)
        || d_slow != (row->expect == XP_SLOW)) {
        ds_put_format(&why, "\n    counted hit %"PRIu64", missed %"PRIu64
                      ", tx_error %"PRIu64", slow path %"PRIu64,
                      d_hit, d_missed, d_tx_error, d_slow);
    }
    for (int i = 0; i < n_flows; i++) {
        char layer[8];
        uint64_t n = 0;
        int error = xp_flow_stats(dpif, &flows[i], &n, layer, sizeof layer);

        if (error) {
            ds_put_format(&why, "\n    cannot get flow %d (%s)", i,
                          ovs_strerror(error));
        } else if (n != (i == row->hit)) {
            ds_put_format(&why, "\n    flow %d counted %"PRIu64" packets", i,
                          n);
        }
    }

    const uint8_t *frame = r.data + r.meta_len;
    size_t frame_len = r.size - r.meta_len;

    if (row->expect == XP_TO_TC) {
        const struct xdp_dp_skb_meta *meta = (const void *) r.data;

        if (r.meta_len != sizeof *meta
            || meta->magic != XDP_DP_SKB_META_MAGIC) {
            ds_put_format(&why, "\n    no metadata for the TC half (%"PRIu32
                          " bytes)", r.meta_len);
        } else {
            bool same = meta->n_outputs == n_ports;

            for (int i = 0; same && i < n_ports; i++) {
                same = meta->ifindex[i] == XP_IFINDEX_BASE + row->ports[i];
            }
            if (!same) {
                ds_put_format(&why, "\n    to %"PRIu32" ports:",
                              meta->n_outputs);
                for (int i = 0; i < meta->n_outputs
                                && i < XDP_DP_MAX_OUTPUTS; i++) {
                    ds_put_format(&why, " %d", (int) meta->ifindex[i]
                                               - XP_IFINDEX_BASE);
                }
            }
        }
    }
    if ((row->expect == XP_REDIRECT || row->expect == XP_TO_TC)
        && (frame_len != out_len || memcmp(frame, out, out_len))) {
        ds_put_cstr(&why, "\n    output   ");
        xp_put_hex(&why, frame, frame_len);
        ds_put_cstr(&why, "\n    expected ");
        xp_put_hex(&why, out, out_len);
    }
    if (row->expect == XP_REDIRECT || row->expect == XP_TO_TC) {
        struct ds bad_in = DS_EMPTY_INITIALIZER;
        struct ds bad_out = DS_EMPTY_INITIALIZER;
        uint8_t fixed[XP_MAX_FRAME];

        /* What the TC half does to a full checksum. */
        memcpy(fixed, frame, MIN(frame_len, sizeof fixed));
        if (row->expect == XP_TO_TC && r.meta_len) {
            xp_tc_fix_csum((const void *) r.data, fixed, frame_len);
        }
        if (xp_check_csums(in, in_len, &bad_in) && !bad_in.length) {
            xp_check_csums(fixed, frame_len, &bad_out);
            if (bad_out.length) {
                ds_put_format(&why, "\n    bad checksums in the output:%s",
                              ds_cstr(&bad_out));
            }
        }
        ds_destroy(&bad_in);
        ds_destroy(&bad_out);
    }

    /* 4. Open vSwitch. */
    if (!row->ovs_differs) {
        int ovs_hit = xp_ovs_classify(in, in_len, flows, n_flows, &why);

        if (ovs_hit != row->hit) {
            ds_put_format(&why, "\n    OVS matches flow %d, the row says %d",
                          ovs_hit, row->hit);
        } else if (ovs_hit >= 0) {
            struct xp_ovs_out ovs;

            xp_ovs_execute(in, in_len, &flows[ovs_hit].actions, &ovs);
            if (ovs.n != n_ports) {
                ds_put_format(&why, "\n    OVS outputs to %d ports", ovs.n);
            }
            for (int i = 0; i < ovs.n && i < n_ports; i++) {
                const struct dp_packet *p = ovs.packets[i];

                if (ovs.ports[i] != row->ports[i]) {
                    ds_put_format(&why, "\n    OVS outputs to port %d",
                                  ovs.ports[i]);
                }
                if (dp_packet_size(p) != out_len
                    || memcmp(dp_packet_data(p), out, out_len)) {
                    ds_put_cstr(&why, "\n    OVS outputs ");
                    xp_put_hex(&why, dp_packet_data(p), dp_packet_size(p));
                }
            }
            xp_ovs_out_destroy(&ovs);
        }
    }

    /* 5. Clean up.  The datapath gives a freed subtable slot to a new
     * mask only after XP_QUARANTINE_MS (DP_XDP_SLOT_QUARANTINE_MS in
     * dpif-xdp-flow.c): wait, so that the rows do not run out of the
     * XDP_DP_MAX_MASKS slots. */
    xp_operate(dpif, flows, n_flows, false, &why);
    for (int i = 0; i < n_flows; i++) {
        xp_free_flow(&flows[i]);
    }
    xnanosleep(XP_QUARANTINE_MS * 1000 * 1000);

    bool ok = !why.length;
    if (ok) {
        printf("ok %s\n", row->name);
    } else {
        printf("FAIL %s:%s\n", row->name, ds_cstr(&why));
    }
    if (verbose) {
        printf("    verdict %s, %"PRIu32" bytes of metadata, frame ",
               xp_verdict_name(r.verdict), r.meta_len);
        struct ds s = DS_EMPTY_INITIALIZER;
        xp_put_hex(&s, frame, frame_len);
        printf("%s\n", ds_cstr(&s));
        ds_destroy(&s);
    }
    ds_destroy(&why);
    return ok;
}

static struct dpif *
xp_open_datapath(void)
{
    struct dpif *dpif;
    char name[32];
    int error;

    dp_register_provider(&dpif_xdp_class);
    snprintf(name, sizeof name, "xdppkt%ld", (long) getpid());
    error = dpif_create_and_open(name, "xdp", &dpif);
    if (error) {
        ovs_fatal(error, "cannot create datapath %s", name);
    }

    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    uint32_t port_no = XP_IN_PORT;
    /* Programs change only where the rows say so. */
    dp_xdp_compile_set_auto(dp, false);
    xp_map_update(dp->skel->maps.xdp_dp_in_ports, &lo_ifindex, &port_no);
    return dpif;
}

static void
xp_close_datapath(struct dpif *dpif)
{
    dpif_delete(dpif);
    dpif_close(dpif);
}

/* "test-xdp-packet": every row. */
static int
do_table(void)
{
    struct dpif *dpif = xp_open_datapath();
    int n_failed = 0;

    for (size_t i = 0; i < ARRAY_SIZE(xp_rows); i++) {
        n_failed += !xp_run_row(dpif, &xp_rows[i], i);
    }
    printf("%"PRIuSIZE" rows, %d failed\n", ARRAY_SIZE(xp_rows), n_failed);
    xp_close_datapath(dpif);
    return n_failed ? 1 : 0;
}

/* Runs 'n' misses of the frame in 'in' through the program, arriving on
 * datapath port 'port_no' (by mapping 'lo' to it), all in one
 * BPF_PROG_TEST_RUN, and prints how many upcalls were made and how many
 * the port's budget dropped. */
static void
xp_budget_round(struct dp_xdp *dp, const char *name, uint32_t port_no,
                const uint8_t *in, size_t in_len, uint32_t n)
{
    struct xdp_md ctx_in = { .data_end = in_len,
                             .ingress_ifindex = lo_ifindex };
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = in, .data_size_in = in_len,
                .ctx_in = &ctx_in, .ctx_size_in = sizeof ctx_in,
                .repeat = n);

    xp_map_update(dp->skel->maps.xdp_dp_in_ports, &lo_ifindex, &port_no);
    struct xdp_dp_stats before = xp_read_stats(dp);
    int error = bpf_prog_test_run_opts(dp->xdp_prog_fd, &opts);
    if (error) {
        ovs_fatal(-error, "BPF_PROG_TEST_RUN");
    }
    struct xdp_dp_stats after = xp_read_stats(dp);
    uint64_t missed = after.n_missed - before.n_missed;
    uint64_t limited = after.n_upcall_limited - before.n_upcall_limited;
    uint64_t lost = after.n_lost - before.n_lost;

    printf("%s: port %"PRIu32", %"PRIu64" misses, %"PRIu64" upcalls, "
           "%"PRIu64" over budget, %"PRIu64" lost otherwise\n", name,
           port_no, missed, missed - lost, limited, lost - limited);
}

/* "test-xdp-packet budget": a port that floods the datapath with misses
 * uses up its upcall budget, and another port's upcalls still go through
 * (see struct xdp_dp_upcall_budget).  The flood is 600 misses in one
 * BPF_PROG_TEST_RUN, which takes well under one budget window (10 ms). */
static int
do_budget(void)
{
    static const char *frame =
        "020000000002 020000000001 0800 "
        "4500001c000100004011 66cd 0a000001 0a000002 "
        "9c400035 0008 ed4b";
    struct dpif *dpif = xp_open_datapath();
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    uint8_t in[XP_MAX_FRAME];
    size_t in_len = xp_parse_hex(frame, in, sizeof in);

    printf("budget: %"PRIu32" upcalls per port per CPU in 10 ms\n",
           dp->skel->data->xdp_dp_upcall_burst);
    xp_budget_round(dp, "flood", 1, in, in_len, 600);
    xp_budget_round(dp, "other port", 2, in, in_len, 1);
    dp->skel->data->xdp_dp_upcall_burst = 0;
    xp_budget_round(dp, "no budget", 3, in, in_len, 600);
    xp_close_datapath(dpif);
    return 0;
}

/* "test-xdp-packet rank": the compiler ranks subtables by their hits.
 * Two flows of two masks are compiled (the first installed is visited
 * first, neither having hits), then 5,000 frames hit the second: within a
 * ranking period or two the compiler thread swaps in a program that
 * visits it first.  Prints the compiled order (by flow) before and after,
 * and whether the new order came within 20 s. */
static int
do_rank(void)
{
    const struct xp_row *row = NULL;

    for (size_t i = 0; i < ARRAY_SIZE(xp_rows); i++) {
        if (!strcmp(xp_rows[i].name, "udp: second of two subtables")) {
            row = &xp_rows[i];
        }
    }
    ovs_assert(row);

    struct dpif *dpif = xp_open_datapath();
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    struct xp_parsed_flow flows[2];
    struct ds why = DS_EMPTY_INITIALIZER;
    uint8_t in[XP_MAX_FRAME];
    size_t in_len = xp_parse_hex(row->in, in, sizeof in);
    struct xdp_dp_cfg cfg;
    int mask_slot[2];

    xp_setup_ports(dp, row);
    for (int i = 0; i < 2; i++) {
        xp_parse_flow(&row->flows[i], &flows[i], i + 1);
        xp_operate(dpif, &flows[i], 1, true, &why);
    }
    ovs_mutex_lock(&dp->flow_mutex);
    for (int i = 0; i < 2; i++) {
        ovs_u128 ufid = flows[i].ufid;
        const struct dp_xdp_flow *f;

        mask_slot[i] = -1;
        HMAP_FOR_EACH (f, node, &dp->flows) {
            if (ovs_u128_equals(f->ufid, ufid)) {
                mask_slot[i] = f->mask_slot;
            }
        }
    }
    ovs_mutex_unlock(&dp->flow_mutex);

    struct ds reply = DS_EMPTY_INITIALIZER;
    dp_xdp_compile_now(dp, &reply);
    ds_destroy(&reply);
    dp_xdp_compile_get_cfg(dp, &cfg);
    printf("compiled order: flow %d, flow %d\n",
           cfg.csubs[0].slot == mask_slot[0] ? 1 : 2,
           cfg.csubs[1].slot == mask_slot[0] ? 1 : 2);

    /* 5,000 hits on the second flow's subtable. */
    struct xdp_md ctx_in = { .data_end = in_len,
                             .ingress_ifindex = lo_ifindex };
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = in, .data_size_in = in_len,
                .ctx_in = &ctx_in, .ctx_size_in = sizeof ctx_in,
                .repeat = 5000);
    if (bpf_prog_test_run_opts(dp->xdp_prog_fd, &opts)) {
        ovs_fatal(errno, "BPF_PROG_TEST_RUN");
    }

    dp_xdp_compile_set_auto(dp, true);
    long long int deadline = time_msec() + 20000;
    bool reranked = false;
    while (!reranked && time_msec() < deadline) {
        xsleep(1);
        dp_xdp_compile_get_cfg(dp, &cfg);
        reranked = cfg.n_csubs == 2 && cfg.csubs[0].slot == mask_slot[1];
    }
    printf("after 5000 hits on flow 2: %s\n",
           reranked ? "flow 2 is visited first" : "order unchanged");
    ds_destroy(&why);
    xp_close_datapath(dpif);
    return 0;
}

/* Prints the state of the compact map of the datapath's first subtable. */
static void
xp_print_cmap(struct dp_xdp *dp, const char *when)
{
    ovs_mutex_lock(&dp->flow_mutex);
    const struct dp_xdp_mask *m = &dp->masks[dp->mask_order[0]];
    if (m->cmap_fd < 0) {
        printf("%s: %"PRIu32" flows, no compact map\n", when, m->n_flows);
    } else {
        printf("%s: %"PRIu32" flows, compact map of %"PRIu32" entries%s\n",
               when, m->n_flows, m->cmap_size, m->cmap_full ? ", full" : "");
    }
    ovs_mutex_unlock(&dp->flow_mutex);
}

/* "test-xdp-packet grow": a compiled subtable gets more flows than its
 * compact map holds; the compiler thread makes a bigger one. */
static int
do_grow(void)
{
    struct dpif *dpif = xp_open_datapath();
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    struct ds why = DS_EMPTY_INITIALIZER;

    for (int i = 0; i < 1101; i++) {
        struct xp_parsed_flow pf;
        char match[256];

        snprintf(match, sizeof match,
                 "in_port(1),eth(src=02:00:00:00:00:01,"
                 "dst=02:00:00:00:00:02),eth_type(0x0800),"
                 "ipv4(src=10.%d.%d.1,dst=10.0.0.2,proto=17,tos=0/0,"
                 "ttl=64/0,frag=no),udp(src=40000/0,dst=53/0)",
                 i / 256, i % 256);
        xp_parse_flow(&(struct xp_flow) { match, "2" }, &pf, i + 1);
        xp_operate(dpif, &pf, 1, true, &why);
        xp_free_flow(&pf);
        if (!i) {
            struct ds reply = DS_EMPTY_INITIALIZER;

            dp_xdp_compile_now(dp, &reply);
            ds_destroy(&reply);
            xp_print_cmap(dp, "compiled");
        }
    }
    if (why.length) {
        printf("installs:%s\n", ds_cstr(&why));
    }
    xp_print_cmap(dp, "installed");

    dp_xdp_compile_set_auto(dp, true);
    long long int deadline = time_msec() + 20000;
    bool done = false;
    while (!done && time_msec() < deadline) {
        xsleep(1);
        ovs_mutex_lock(&dp->flow_mutex);
        const struct dp_xdp_mask *m = &dp->masks[dp->mask_order[0]];
        done = m->cmap_fd >= 0 && !m->cmap_full
               && m->cmap_size >= 2 * m->n_flows;
        ovs_mutex_unlock(&dp->flow_mutex);
    }
    xp_print_cmap(dp, "recompiled");
    ds_destroy(&why);
    xp_close_datapath(dpif);
    return 0;
}

/* "test-xdp-packet flush": installs a flow, runs a frame through it,
 * flushes the flow table as "ovs-appctl dpctl/del-flows" and ofproto's
 * start-up do, and installs the same flow again once its subtable slot
 * may be reused.  Prints the result of each step. */
static int
do_flush(void)
{
    static const struct xp_row row = {
        .name = "flush",
        .in = "020000000002 020000000001 0800 "
              "4500001c000100004011 66cd 0a000001 0a000002 "
              "9c400035 0008 ed4b",
        .flows = {{ "in_port(1),eth(src=02:00:00:00:00:01,"
                    "dst=02:00:00:00:00:02),eth_type(0x0800),"
                    "ipv4(src=10.0.0.1/0.0.0.0,dst=10.0.0.2/0.0.0.0,"
                    "proto=17/0,tos=0/0,ttl=64/0,frag=no),"
                    "udp(src=40000/0,dst=53/0)", "2" }},
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
    };
    struct dpif *dpif = xp_open_datapath();
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    struct xp_parsed_flow flow;
    uint8_t in[XP_MAX_FRAME];
    size_t in_len = xp_parse_hex(row.in, in, sizeof in);
    struct xp_result r;

    xp_setup_ports(dp, &row);
    xp_parse_flow(&row.flows[0], &flow, 1);
    for (int round = 1; round <= 2; round++) {
        struct ds why = DS_EMPTY_INITIALIZER;

        xp_operate(dpif, &flow, 1, true, &why);
        printf("install %d:%s\n", round,
               why.length ? ds_cstr(&why) : " ok");
        xp_run(dp, in, in_len, &r);
        printf("frame: %s\n", xp_verdict_name(r.verdict));
        dpif_flow_flush(dpif);
        xp_run(dp, in, in_len, &r);
        printf("after flush: %s (%s)\n", xp_verdict_name(r.verdict),
               r.verdict == XDP_DROP ? "missed" : "still forwarded");
        ds_destroy(&why);
        /* Past DP_XDP_SLOT_QUARANTINE_MS, so that the subtable slot and
         * the statistics slot may be handed out again. */
        xnanosleep(2 * XP_QUARANTINE_MS * 1000 * 1000);
    }
    xp_free_flow(&flow);
    xp_close_datapath(dpif);
    return 0;
}

/* "test-xdp-packet key HEX". */
static int
do_key(const char *hex)
{
    uint8_t frame[XP_MAX_FRAME];
    size_t len = xp_parse_hex(hex, frame, sizeof frame);
    struct dp_packet *packet = dp_packet_clone_data(frame, len);
    struct ds s = DS_EMPTY_INITIALIZER;
    struct ofpbuf key;
    struct flow flow;

    pkt_metadata_init(&packet->md, u32_to_odp(XP_IN_PORT));
    flow_extract(packet, &flow);
    struct odp_flow_key_parms parms = {
        .flow = &flow,
        .support = { .max_vlan_headers = 2 },
    };
    ofpbuf_init(&key, 0);
    odp_flow_key_from_flow(&parms, &key);
    odp_flow_key_format(key.data, key.size, &s);
    printf("%s\n", ds_cstr(&s));
    ds_destroy(&s);
    ofpbuf_uninit(&key);
    dp_packet_delete(packet);
    return 0;
}

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_WARN);
    odp_execute_init();
    lo_ifindex = if_nametoindex("lo");

    if (argc > 1 && !strcmp(argv[1], "-v")) {
        verbose = true;
        argc--;
        argv++;
    }
    if (argc > 1 && !strcmp(argv[1], "--compiled")) {
        compiled = true;
        argc--;
        argv++;
    }
    if (argc == 1) {
        return do_table();
    } else if (argc == 2 && !strcmp(argv[1], "flush")) {
        return do_flush();
    } else if (argc == 2 && !strcmp(argv[1], "budget")) {
        return do_budget();
    } else if (argc == 2 && !strcmp(argv[1], "rank")) {
        return do_rank();
    } else if (argc == 2 && !strcmp(argv[1], "grow")) {
        return do_grow();
    } else if (argc == 3 && !strcmp(argv[1], "key")) {
        return do_key(argv[2]);
    }
    ovs_fatal(0, "usage: %s [-v] [--compiled] [flush | budget | rank | "
              "grow | key HEX]",
              program_name);
}
