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

/* test-xdp-compile: differential tests of compiled datapath programs.
 *
 *   test-xdp-compile [-v] [--seed=N] [--rounds=N] [--no-table]
 *                    [--sabotage]
 *
 * A program compiled for a flow table (ofproto-xdp/dpif-xdp-compile.c) must
 * do exactly what the generic program does with the same table, while the
 * table changes under it too.  This program creates an xdp datapath with
 * automatic compiles off, loads a second, generic instance of the datapath
 * program that shares all of the datapath's maps (dp_xdp_load_program()
 * with no configuration), and then, phase after phase, changes the flow
 * table through dpif_operate() as ofproto-dpif would, compiles it with
 * dp_xdp_compile_now() at some points and not at others, and runs every
 * frame of its frame list through both programs with BPF_PROG_TEST_RUN,
 * arriving on port 1 (the ifindex of 'lo').  For each frame it compares:
 *
 *   - the verdicts;
 *   - the bytes that come out ('data_out': metadata for the TC half, then
 *     the frame) and the metadata's length;
 *   - the upcalls, read from the upcall rings: type, port, flow slot and
 *     frame;
 *   - the changes of the datapath's counters n_hit, n_missed, n_lost,
 *     n_slow_path, n_tx_error and of every subtable's mask_hits[] (not
 *     n_mask_hit and n_fallback, which count subtables visited: they differ
 *     by design);
 *   - the changes of every flow's counters (packets and bytes) and the TCP
 *     flags each flow collected.
 *
 * A compiled program has code only for the action types of the table it
 * was compiled for: a flow with another action type, installed since,
 * must be handed to ovs-vswitchd (a SLOW_PATH upcall naming the flow, with
 * the frame untouched, verdict XDP_DROP, n_slow_path counted) where the
 * generic program runs its actions.  The flow's counters, n_hit and
 * n_missed must still agree.  That is the only difference allowed.
 *
 * Besides the comparisons, each frame is checked against Open vSwitch
 * itself: the flow that flow_extract() and the installed megaflows select
 * (at most one: megaflows never overlap, and the test refuses a table in
 * which two do) must be the flow whose counter moved.  And for a compiled
 * program, every hit on a flow of a compiled subtable must have been
 * found by the compiled lookup, not by the fallback to the generic
 * classifier (n_fallback unchanged, n_mask_hit the subtable's position),
 * and every other packet must have gone through the fallback; otherwise a
 * compiled program that always fell back would pass every comparison.
 *
 * Frames go through the programs twice per phase, with two port layouts:
 * "skb", where every output port transmits through the TC half (so that
 * the metadata names every port a frame goes to), and "mixed", where port 2
 * redirects through the devmap (XDP_REDIRECT), port 3 redirects but has no
 * devmap entry (XDP_DROP), port 4 transmits through the TC half, port 5 is
 * a slow port (an OUTPUT upcall) and port 6 is not a port.
 *
 * The phases of the table part (see do_table()) are written to reach the
 * corners of the compiler: a first table without transport-layer masks
 * (the compiled program then parses only TCP before its lookups), with
 * masks of up to and more than XDP_DP_CKEY_MAX_WORDS key words (compact
 * keys and the full-size key); then flows added without a recompile: new
 * masks (transport-layer ones among them), new flows of compiled masks
 * (written to the compact maps), more flows than a compact map holds, new
 * action types, actions modified in place; then deletes, of single flows
 * and of every flow of compiled masks, and masks that come back; then a
 * recompile, and the same again until the table is empty, and flows added
 * to the program compiled for the empty table.  The random
 * part (--rounds, default 4) builds tables from the same frames and
 * masks with a pseudo-random generator seeded with --seed (default 1,
 * printed), through the same steps: each round's table runs first in the
 * program compiled for the last round's, then is compiled, grown without
 * a recompile, thinned, and recompiled.
 *
 * After each compile the live configuration is checked against the table
 * (one compiled subtable per mask in use, with that mask's words; the
 * transport layer parsed if and only if a mask needs it; code for the
 * action types the flows use), and in every compiled phase the compact
 * maps must hold exactly the flows of their subtables.  At the end of
 * each phase, the counters that dpif_flow_get() reports must be the sums
 * of what the runs counted.
 *
 * Prints "ok PHASE/CHECK" or "FAIL PHASE/CHECK:" followed by one indented
 * line per reason for each check, then "N checks, M failed", and exits
 * with status 1 if M is not 0.  With --sabotage, the generic run of some
 * frames gets a changed frame or runs twice, and in every compiled phase
 * the flow that the first frame hits goes missing from its compact map,
 * to show that the checks notice.  Needs root. */

#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
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
#include "maps/flow-stats.h"
#include "netlink.h"
#include "odp-util.h"
#include "ofproto-xdp/dpif-xdp.h"
#include "ofproto-xdp/dpif-xdp-private.h"
#include "ofproto-xdp/xdp-compile.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/match.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "random.h"
#include "timeval.h"
#include "util.h"

#define XC_IN_PORT 1            /* Datapath port the frames arrive on. */
#define XC_MAX_FRAME 512        /* Largest frame. */
#define XC_IFINDEX_BASE 1000    /* Made-up ifindex of "skb" port N: + N. */
#define XC_FIRST_PORT 2         /* Ports configured in the layouts: 2 ... */
#define XC_LAST_PORT 6          /* ... to 6. */
#define XC_MAX_UPCALLS 4        /* Upcalls kept from one run. */
#define XC_QUARANTINE_MS 200    /* Longer than the datapath keeps a freed
                                 * subtable or statistics slot. */
#define XC_BULK_PREFIX 0x0ac80000   /* 10.200.0.0: keys of bulk flows. */

/* The frames.  Frames are written as ODP flow keys, composed into packets
 * by OVS's flow_compose() (checksums included) with 'payload' bytes of
 * payload, or in hex for what flow_compose() cannot make (truncated and
 * malformed headers).  Unless said otherwise, 02:00:00:00:00:01 sends to
 * 02:00:00:00:00:02. */
struct xc_frame_spec {
    const char *name;           /* In the report. */
    const char *odp;            /* The frame as an ODP key, or NULL. */
    size_t payload;             /* Payload bytes for 'odp'. */
    const char *hex;            /* The frame in hex, if 'odp' is NULL. */
    const char *xdp_upcalls;    /* Why XDP may hand the frame to ovs-vswitchd
                                 * whatever the table (then OVS's
                                 * flow_extract() is not the reference), or
                                 * NULL. */
};

#define XC_ETH "eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
#define XC_IP4(SRC, DST, PROTO, TOS, TTL, FRAG)                         \
    "eth_type(0x0800),ipv4(src=" SRC ",dst=" DST ",proto=" PROTO        \
    ",tos=" TOS ",ttl=" TTL ",frag=" FRAG ")"
#define XC_IP6(SRC, DST, LABEL, PROTO, HLIMIT)                          \
    "eth_type(0x86dd),ipv6(src=" SRC ",dst=" DST ",label=" LABEL        \
    ",proto=" PROTO ",tclass=0,hlimit=" HLIMIT ",frag=no)"

static const struct xc_frame_spec xc_frame_specs[] = {
    /* IPv4. */
    { "udp4", XC_ETH XC_IP4("10.0.0.1", "10.0.0.2", "17", "0", "64", "no")
      ",udp(src=40000,dst=53)", 20, NULL, NULL },
    { "udp4-b", XC_ETH XC_IP4("10.0.0.1", "10.0.0.3", "17", "0", "64", "no")
      ",udp(src=40001,dst=5353)", 32, NULL, NULL },
    { "udp4-c", "eth(src=02:00:00:00:00:03,dst=02:00:00:00:00:02),"
      XC_IP4("10.1.2.3", "10.0.0.2", "17", "0", "64", "no")
      ",udp(src=1000,dst=53)", 0, NULL, NULL },
    { "udp4-d", XC_ETH XC_IP4("10.0.0.1", "10.0.0.77", "17", "0", "64", "no")
      ",udp(src=5000,dst=7000)", 8, NULL, NULL },
    { "udp4-e", XC_ETH XC_IP4("10.0.0.1", "10.0.3.3", "17", "0", "64", "no")
      ",udp(src=3333,dst=69)", 12, NULL, NULL },
    { "udp4-ttl1", XC_ETH XC_IP4("10.0.0.1", "10.0.0.2", "17", "0", "1",
                                 "no")
      ",udp(src=40000,dst=33434)", 12, NULL, NULL },
    { "udp4-tos", XC_ETH XC_IP4("10.0.0.1", "192.168.1.1", "17", "0xb8",
                                "64", "no")
      ",udp(src=123,dst=123)", 48, NULL, NULL },
    { "udp4-nocsum", NULL, 0,
      "0200000000020200000000010800 "
      "4500002000010000401166ca0a0000010a000002 9c400035000c0000 78647021",
      NULL },
    { "udp4-ipopts", NULL, 0,
      "0200000000020200000000010800 "
      "4600002400010000401163c50a0000010a00000201010100 "
      "9c400035000c66d8 78647021", NULL },
    { "tcp4-syn", XC_ETH XC_IP4("10.0.0.1", "10.0.0.2", "6", "0", "64", "no")
      ",tcp(src=40000,dst=80),tcp_flags(syn)", 0, NULL, NULL },
    { "tcp4-ack", XC_ETH XC_IP4("10.0.1.7", "10.0.0.2", "6", "0", "64", "no")
      ",tcp(src=1234,dst=80),tcp_flags(psh|ack)", 40, NULL, NULL },
    { "tcp4-b", XC_ETH XC_IP4("10.0.2.9", "10.0.5.4", "6", "0", "64", "no")
      ",tcp(src=5555,dst=443),tcp_flags(fin|ack)", 0, NULL, NULL },
    { "tcp4-c", XC_ETH XC_IP4("10.0.0.1", "10.0.0.5", "6", "0", "64", "no")
      ",tcp(src=2222,dst=22),tcp_flags(syn|ack)", 0, NULL, NULL },
    { "icmp4", XC_ETH XC_IP4("10.0.0.1", "10.0.0.9", "1", "0", "64", "no")
      ",icmp(type=8,code=0)", 16, NULL, NULL },
    { "icmp4-unreach", XC_ETH XC_IP4("10.0.0.1", "172.16.0.1", "1", "0",
                                     "64", "no")
      ",icmp(type=3,code=1)", 0, NULL, NULL },
    { "frag4-first", XC_ETH XC_IP4("10.0.0.1", "10.0.0.2", "17", "0", "64",
                                   "first")
      ",udp(src=40000,dst=53)", 24, NULL, NULL },
    { "frag4-later", XC_ETH XC_IP4("10.0.0.1", "10.0.0.2", "17", "0", "64",
                                   "later"), 0, NULL, NULL },
    { "ipv4-trunc10", NULL, 0,
      "0200000000020200000000010800 45000020000100004011", NULL },
    { "tcp4-trunc12", NULL, 0,
      "0200000000020200000000010800 "
      "4500002000010000400666d50a0000010a000002 9c4000500000000100000001",
      NULL },
    { "udp4-trunc4", NULL, 0,
      "0200000000020200000000010800 "
      "4500001800010000401166d20a0000010a000002 9c400035", NULL },
    { "llc-snap-udp4", NULL, 0,
      "0200000000020200000000010028 aaaa030000000800 "
      "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 78647021",
      NULL },

    /* VLANs. */
    { "vlan-udp4", XC_ETH "eth_type(0x8100),vlan(vid=100,pcp=3),encap("
      XC_IP4("10.0.0.1", "10.0.0.2", "17", "0", "64", "no")
      ",udp(src=40000,dst=53))", 20, NULL, NULL },
    { "vlan-tcp4", XC_ETH "eth_type(0x8100),vlan(vid=200,pcp=0),encap("
      XC_IP4("10.0.0.1", "10.0.0.2", "6", "0", "64", "no")
      ",tcp(src=40000,dst=80),tcp_flags(syn))", 0, NULL, NULL },
    { "vlan-udp6", XC_ETH "eth_type(0x8100),vlan(vid=300,pcp=0),encap("
      XC_IP6("fc00::1", "fc00::2", "0", "17", "64")
      ",udp(src=40000,dst=53))", 20, NULL, NULL },
    { "vlan-arp", "eth(src=02:00:00:00:00:01,dst=ff:ff:ff:ff:ff:ff),"
      "eth_type(0x8100),vlan(vid=100,pcp=0),encap(eth_type(0x0806),"
      "arp(sip=10.0.0.1,tip=10.0.0.2,op=1,sha=02:00:00:00:00:01,"
      "tha=00:00:00:00:00:00))", 0, NULL, NULL },
    { "qinq-udp4", XC_ETH "eth_type(0x88a8),vlan(vid=10,pcp=0),encap("
      "eth_type(0x8100),vlan(vid=100,pcp=0),encap("
      XC_IP4("10.0.0.1", "10.0.0.2", "17", "0", "64", "no")
      ",udp(src=40000,dst=53)))", 20, NULL, NULL },

    /* ARP and others. */
    { "arp-req", "eth(src=02:00:00:00:00:01,dst=ff:ff:ff:ff:ff:ff),"
      "eth_type(0x0806),arp(sip=10.0.0.1,tip=10.0.0.2,op=1,"
      "sha=02:00:00:00:00:01,tha=00:00:00:00:00:00)", 0, NULL, NULL },
    { "arp-req-b", "eth(src=02:00:00:00:00:07,dst=ff:ff:ff:ff:ff:ff),"
      "eth_type(0x0806),arp(sip=10.0.0.7,tip=10.0.0.99,op=1,"
      "sha=02:00:00:00:00:07,tha=00:00:00:00:00:00)", 0, NULL, NULL },
    { "arp-reply", "eth(src=02:00:00:00:00:02,dst=02:00:00:00:00:01),"
      "eth_type(0x0806),arp(sip=10.0.0.2,tip=10.0.0.1,op=2,"
      "sha=02:00:00:00:00:02,tha=02:00:00:00:00:01)", 0, NULL, NULL },
    { "eth-other", XC_ETH "eth_type(0x88b5)", 0, NULL, NULL },
    { "llc-802.2", NULL, 0,
      "0200000000020200000000010014 "
      "4242030000000000000000000000000000000000", NULL },

    /* IPv6. */
    { "udp6", XC_ETH XC_IP6("fc00::1", "fc00::2", "0", "17", "64")
      ",udp(src=40000,dst=53)", 20, NULL, NULL },
    { "udp6-b", XC_ETH XC_IP6("fc00:5::5", "fc00::2", "0x12345", "17", "64")
      ",udp(src=1111,dst=53)", 10, NULL, NULL },
    { "udp6-c", XC_ETH XC_IP6("fc00:9::9", "fc00::2", "0", "17", "64")
      ",udp(src=2222,dst=53)", 4, NULL, NULL },
    { "tcp6", XC_ETH XC_IP6("fc00::1", "fc00::3", "0", "6", "64")
      ",tcp(src=40000,dst=80),tcp_flags(syn)", 0, NULL, NULL },
    { "tcp6-b", XC_ETH XC_IP6("fc00:1::7", "fc00::3", "0", "6", "64")
      ",tcp(src=2000,dst=443),tcp_flags(ack)", 30, NULL, NULL },
    { "tcp6-c", XC_ETH XC_IP6("fc00:7::1", "fc00::8", "0x777", "6", "64")
      ",tcp(src=3000,dst=22),tcp_flags(rst)", 0, NULL, NULL },
    { "icmp6-echo", XC_ETH XC_IP6("fc00::1", "fc00::2", "0", "58", "64")
      ",icmpv6(type=128,code=0)", 16, NULL, NULL },
    { "nd-ns", "eth(src=02:00:00:00:00:01,dst=33:33:ff:00:00:02),"
      XC_IP6("fc00::1", "ff02::1:ff00:2", "0", "58", "255")
      ",icmpv6(type=135,code=0),nd(target=fc00::2,sll=02:00:00:00:00:01)",
      0, NULL, NULL },
    { "nd-na", "eth(src=02:00:00:00:00:02,dst=02:00:00:00:00:01),"
      XC_IP6("fc00::2", "fc00::1", "0", "58", "255")
      ",icmpv6(type=136,code=0),nd(target=fc00::2,tll=02:00:00:00:00:02)",
      0, NULL, NULL },
    { "nd-ns-17opts", NULL, 0,
      "3333ff00000202000000000186dd "
      "6000000000a03afffc000000000000000000000000000001"
      "ff0200000000000000000001ff000002 "
      "8700c96b00000000fc000000000000000000000000000002 "
      "05010000000005dc05010000000005dc05010000000005dc05010000000005dc"
      "05010000000005dc05010000000005dc05010000000005dc05010000000005dc"
      "05010000000005dc05010000000005dc05010000000005dc05010000000005dc"
      "05010000000005dc05010000000005dc05010000000005dc05010000000005dc"
      "05010000000005dc",
      "more Neighbor Discovery options than the XDP parser follows" },
    { "ipv6-17ext", NULL, 0,
      "02000000000202000000000186dd 6000000000943c40fc0000000000000000 "
      "00000000000001fc000000000000000000000000000002 3c00010400000000 "
      "3c000104000000003c000104000000003c000104000000003c00010400000000 "
      "3c000104000000003c000104000000003c000104000000003c00010400000000 "
      "3c000104000000003c000104000000003c000104000000003c00010400000000 "
      "3c000104000000003c000104000000003c000104000000001100010400000000 "
      "9c400035000c82d678647021",
      "more IPv6 extension headers than the XDP parser follows" },
    { "ipv6-trunc30", NULL, 0,
      "02000000000202000000000186dd "
      "60000000000c1140fc000000000000000000000000000001fc0000000000",
      NULL },
};

/* Masks.  A template names the fields a flow matches; a flow's key comes
 * from a frame, through OVS's flow_extract(), masked. */
enum {
    XC_M_IN_PORT = 1 << 0,
    XC_M_ETH_SRC = 1 << 1,
    XC_M_ETH_DST = 1 << 2,
    XC_M_ETH_DST_OUI = 1 << 3,  /* The first 3 bytes of eth_dst. */
    XC_M_VLAN_VID = 1 << 4,     /* VID of every tag present. */
    XC_M_VLAN_PCP = 1 << 5,     /* PCP of every tag present. */
    XC_M_NW_SRC = 1 << 6,       /* 'src_plen' bits of IPv4/IPv6/ARP source. */
    XC_M_NW_DST = 1 << 7,       /* 'dst_plen' bits of the destination. */
    XC_M_NW_PROTO = 1 << 8,     /* IP protocol or ARP opcode. */
    XC_M_NW_TTL = 1 << 9,
    XC_M_NW_TOS = 1 << 10,
    XC_M_IPV6_LABEL = 1 << 11,
    XC_M_TP_SRC = 1 << 12,      /* L4 source port, ICMP type. */
    XC_M_TP_DST = 1 << 13,      /* L4 destination port, ICMP code. */
    XC_M_TCP_FLAGS = 1 << 14,
    XC_M_ARP_SHA = 1 << 15,     /* ARP SHA or ND SLL. */
    XC_M_ND_TARGET = 1 << 16,
};

struct xc_template {
    const char *name;
    uint16_t eth_type;          /* Frames it applies to: this Ethertype (or
                                 * any tagged frame for 0x8100, any at all
                                 * for 0). */
    uint8_t nw_proto;           /* ...and this IP protocol (0: any). */
    uint32_t fields;            /* XC_M_*. */
    int src_plen, dst_plen;     /* Prefix lengths for XC_M_NW_SRC/DST. */
};

static const struct xc_template xc_templates[] = {
    { "in_port", 0, 0, XC_M_IN_PORT, 0, 0 },
    { "l2", 0, 0, XC_M_IN_PORT | XC_M_ETH_SRC | XC_M_ETH_DST, 0, 0 },
    { "l2-oui", 0, 0, XC_M_IN_PORT | XC_M_ETH_DST_OUI, 0, 0 },
    { "vlan", 0x8100, 0, XC_M_IN_PORT | XC_M_VLAN_VID, 0, 0 },
    { "vlan-pcp-l2", 0x8100, 0,
      XC_M_IN_PORT | XC_M_ETH_DST | XC_M_VLAN_VID | XC_M_VLAN_PCP, 0, 0 },
    { "ip4-dst32-proto", ETH_TYPE_IP, 0,
      XC_M_IN_PORT | XC_M_NW_DST | XC_M_NW_PROTO, 0, 32 },
    { "ip4-ttl", ETH_TYPE_IP, 0,
      XC_M_IN_PORT | XC_M_NW_TTL | XC_M_NW_PROTO | XC_M_NW_DST, 0, 8 },
    { "ip4-tos", ETH_TYPE_IP, 0, XC_M_IN_PORT | XC_M_NW_TOS | XC_M_NW_DST,
      0, 16 },
    { "ip4-src16-dst24", ETH_TYPE_IP, 0,
      XC_M_IN_PORT | XC_M_NW_SRC | XC_M_NW_DST | XC_M_NW_PROTO, 16, 24 },
    { "ip4-l2-5tuple", ETH_TYPE_IP, 0,
      XC_M_IN_PORT | XC_M_ETH_SRC | XC_M_ETH_DST | XC_M_NW_SRC | XC_M_NW_DST
      | XC_M_NW_PROTO | XC_M_TP_SRC | XC_M_TP_DST, 32, 32 },
    { "ip4-tpdst", ETH_TYPE_IP, 0,
      XC_M_IN_PORT | XC_M_NW_DST | XC_M_NW_PROTO | XC_M_TP_DST, 0, 24 },
    { "ip4-tcpflags", ETH_TYPE_IP, IPPROTO_TCP,
      XC_M_IN_PORT | XC_M_NW_DST | XC_M_NW_PROTO | XC_M_TP_DST
      | XC_M_TCP_FLAGS, 0, 32 },
    { "icmp4", ETH_TYPE_IP, IPPROTO_ICMP,
      XC_M_IN_PORT | XC_M_NW_DST | XC_M_NW_PROTO | XC_M_TP_SRC | XC_M_TP_DST,
      0, 8 },
    { "arp", ETH_TYPE_ARP, 0,
      XC_M_IN_PORT | XC_M_NW_PROTO | XC_M_NW_SRC | XC_M_NW_DST, 32, 32 },
    { "arp-sha", ETH_TYPE_ARP, 0,
      XC_M_IN_PORT | XC_M_NW_PROTO | XC_M_NW_DST | XC_M_ARP_SHA, 0, 32 },
    { "ip6-dst", ETH_TYPE_IPV6, 0, XC_M_IN_PORT | XC_M_NW_DST | XC_M_NW_PROTO,
      0, 128 },
    { "ip6-src64", ETH_TYPE_IPV6, 0,
      XC_M_IN_PORT | XC_M_NW_SRC | XC_M_NW_PROTO, 64, 0 },
    { "ip6-pair", ETH_TYPE_IPV6, 0, XC_M_NW_SRC | XC_M_NW_DST | XC_M_NW_PROTO,
      128, 128 },
    { "ip6-full", ETH_TYPE_IPV6, 0,
      XC_M_IN_PORT | XC_M_ETH_SRC | XC_M_ETH_DST | XC_M_NW_SRC | XC_M_NW_DST
      | XC_M_NW_PROTO, 128, 128 },
    { "ip6-full-label", ETH_TYPE_IPV6, 0,
      XC_M_IN_PORT | XC_M_ETH_SRC | XC_M_ETH_DST | XC_M_NW_SRC | XC_M_NW_DST
      | XC_M_NW_PROTO | XC_M_IPV6_LABEL | XC_M_NW_TOS, 128, 128 },
    { "ip6-full-tp", ETH_TYPE_IPV6, 0,
      XC_M_IN_PORT | XC_M_ETH_SRC | XC_M_ETH_DST | XC_M_NW_SRC | XC_M_NW_DST
      | XC_M_NW_PROTO | XC_M_TP_DST, 128, 128 },
    { "ip6-src64-tp", ETH_TYPE_IPV6, 0,
      XC_M_IN_PORT | XC_M_NW_SRC | XC_M_NW_PROTO | XC_M_TP_DST, 64, 0 },
    { "ip6-label", ETH_TYPE_IPV6, 0,
      XC_M_IN_PORT | XC_M_NW_SRC | XC_M_NW_PROTO | XC_M_IPV6_LABEL
      | XC_M_NW_TOS, 64, 0 },
    { "nd", ETH_TYPE_IPV6, IPPROTO_ICMPV6,
      XC_M_IN_PORT | XC_M_NW_DST | XC_M_NW_PROTO | XC_M_TP_SRC | XC_M_TP_DST
      | XC_M_ND_TARGET, 0, 128 },
    { "nd-sll", ETH_TYPE_IPV6, IPPROTO_ICMPV6,
      XC_M_IN_PORT | XC_M_NW_SRC | XC_M_NW_PROTO | XC_M_TP_SRC | XC_M_TP_DST
      | XC_M_ND_TARGET | XC_M_ARP_SHA, 128, 0 },
};

/* Actions for random tables: 'xc_base_actions' for the tables that get
 * compiled, 'xc_more_actions' too for flows added later, with action types
 * the compiled program may have no code for. */
static const char *const xc_base_actions[] = {
    "drop", "2", "3", "4", "5", "6",
    "set(eth(dst=02:00:00:00:00:bb)),2",
    "set(eth(src=02:00:00:00:00:cc,dst=02:00:00:00:00:dd)),4",
    "push_vlan(vid=42,pcp=5),3",
    "set(ipv4(ttl=7)),2",
    "set(ipv4(src=10.9.9.9,dst=10.8.8.8)),5",
};
static const char *const xc_more_actions[] = {
    "pop_vlan,2",
    "pop_vlan,pop_vlan,3",
    "set(udp(dst=5353)),2",
    "set(tcp(src=1234,dst=8080)),4",
    "2,3",
    "set(eth(dst=02:00:00:00:00:ee)),2,4,5",
    "set(ipv4(src=192.168.0.1/255.255.0.0)),3",
    "push_vlan(vid=5,pcp=0),set(ipv4(tos=0x20)),2",
    "set(udp(src=1)),set(eth(src=02:00:00:00:00:ee)),6",
    "userspace(pid=4321)",
    "set(ipv6(hlimit=9)),2",
};

/* How the ports transmit. */
enum xc_port_mode {
    XC_PORT_NONE,               /* Not a port. */
    XC_PORT_REDIRECT,           /* Devmap redirect, with a devmap entry. */
    XC_PORT_REDIRECT_MISSING,   /* Devmap redirect, no devmap entry. */
    XC_PORT_SKB,                /* Through the TC half. */
    XC_PORT_SLOW,               /* To ovs-vswitchd. */
};

struct xc_layout {
    const char *name;
    enum xc_port_mode modes[XC_LAST_PORT + 1];  /* Indexed by port. */
};

static const struct xc_layout xc_layouts[] = {
    { "skb", { [2] = XC_PORT_SKB, [3] = XC_PORT_SKB, [4] = XC_PORT_SKB,
               [5] = XC_PORT_SKB, [6] = XC_PORT_NONE } },
    { "mixed", { [2] = XC_PORT_REDIRECT, [3] = XC_PORT_REDIRECT_MISSING,
                 [4] = XC_PORT_SKB, [5] = XC_PORT_SLOW,
                 [6] = XC_PORT_NONE } },
};

/* A frame, ready to run. */
struct xc_frame {
    const struct xc_frame_spec *spec;
    uint8_t data[XC_MAX_FRAME];
    size_t len;
    struct flow flow;           /* What flow_extract() makes of it. */
};

/* A flow of the table. */
struct xc_flow {
    char *name;                 /* In the report. */
    struct ofpbuf key, mask;    /* ODP key and mask. */
    struct ofpbuf actions;      /* ODP actions. */
    char *actions_s;            /* The same, as text. */
    ovs_u128 ufid;
    struct match match;         /* 'key' and 'mask', parsed back. */

    /* From the datapath, refreshed at each phase (xc_refresh_flows()). */
    uint32_t slot;              /* Statistics slot. */
    int mask_slot;              /* Subtable, or -1 if not in XDP. */
    uint32_t action_bits;       /* 'struct xdp_flow''s. */
    uint16_t flags;             /* XDP_FLOW_F_*. */
    struct xdp_flow_key xkey;   /* Masked XDP key. */

    /* What the runs counted since the flow was installed. */
    uint64_t n_packets, n_bytes;
};

/* An upcall read from the rings. */
struct xc_upcall {
    struct xdp_dp_upcall up;
    uint8_t data[XC_MAX_FRAME];
    uint32_t len;               /* Bytes in 'data'. */
};

/* The datapath's counters (struct xdp_dp_stats, summed over the CPUs),
 * in userspace's types. */
struct xc_counters {
    uint64_t n_hit, n_missed, n_lost, n_mask_hit, n_slow_path, n_tx_error;
    uint64_t n_fallback;
    uint64_t mask_hits[XDP_DP_MAX_MASKS];
};

/* What one run of a frame through a program did. */
struct xc_run {
    uint32_t verdict;
    uint8_t data[XC_MAX_FRAME + 64];    /* Metadata, then the frame. */
    uint32_t size;              /* Bytes in 'data'. */
    uint32_t meta_len;          /* Bytes of metadata at its start. */
    struct xc_upcall upcalls[XC_MAX_UPCALLS];
    int n_upcalls;              /* Upcalls (may exceed XC_MAX_UPCALLS). */
    struct xc_counters d;       /* Changes of the datapath's counters. */
    uint64_t *d_packets;        /* Changes of each flow's counters, */
    uint64_t *d_bytes;          /* indexed as the test's flows, */
    uint64_t *tcp_flags;        /* and the TCP flags each collected. */
    int hit;                    /* The flow whose counter moved, or -1, or
                                 * -2 if more than one did. */
};

/* What a phase saw, for its "coverage" check. */
struct xc_coverage {
    int csub_hits;              /* Hits found by the compiled lookups. */
    int fallback_hits;          /* Hits found by the fallback. */
    int slow_paths;             /* Compiled runs handed to ovs-vswitchd for
                                 * want of action code. */
};

/* Coverage a phase must have. */
enum {
    XC_WANT_CSUB = 1 << 0,
    XC_WANT_FALLBACK = 1 << 1,
    XC_WANT_SLOW = 1 << 2,
};

/* The test. */
struct xc_ctx {
    struct dpif *dpif;
    struct dp_xdp *dp;
    struct xdp_dp *generic;     /* The generic program's instance. */
    struct perf_buffer *pb;     /* Our reader of the upcall rings. */
    int pb_map_fd;              /* Its descriptor of the rings' map. */
    struct xc_upcall *sink;     /* Where samples go during a run. */
    int *n_sink;                /* Their number. */
    uint64_t n_ring_lost;       /* Samples the rings lost. */
    int lo_ifindex;

    struct xc_frame *frames;
    size_t n_frames;

    struct xc_flow **flows;     /* Installed flows. */
    size_t n_flows, allocated;
    uint32_t next_ufid;

    int n_checks, n_failed;
    bool verbose, sabotage;
};

/* Checks. */

/* Reports check 'phase'/'what': passed if 'why' is empty, otherwise failed
 * for the reasons in 'why' (each on its own line, starting with "\n"). */
static void
xc_report(struct xc_ctx *ctx, const char *phase, const char *what,
          const struct ds *why)
{
    ctx->n_checks++;
    if (!why->length) {
        printf("ok %s/%s\n", phase, what);
    } else {
        ctx->n_failed++;
        printf("FAIL %s/%s:%s\n", phase, what, ds_cstr_ro(why));
    }
    fflush(stdout);
}

static void
xc_put_hex(struct ds *s, const uint8_t *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ds_put_format(s, "%02x", data[i]);
    }
}

/* Appends at most 48 bytes of 'data' ('n' bytes), from 16-byte aligned
 * offset 'ofs'. */
static void
xc_put_hex_at(struct ds *s, const uint8_t *data, size_t n, size_t ofs)
{
    size_t end = MIN(n, ofs + 48);

    ds_put_format(s, "%s", ofs ? "..." : "");
    if (ofs < end) {
        xc_put_hex(s, data + ofs, end - ofs);
    }
    ds_put_format(s, "%s", end < n ? "..." : "");
}

/* The 16-byte aligned offset of the first byte where 'a' ('na' bytes)
 * and 'b' ('nb' bytes) differ. */
static size_t
xc_diff_ofs(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    size_t i = 0;

    while (i < na && i < nb && a[i] == b[i]) {
        i++;
    }
    return i & ~(size_t) 15;
}

static const char *
xc_verdict_name(uint32_t verdict)
{
    static const char *const names[] = {
        "XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT",
    };
    return verdict < ARRAY_SIZE(names) ? names[verdict] : "unknown";
}

/* Frames. */

static size_t
xc_parse_hex(const char *hex, uint8_t *buf, size_t size)
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
xc_frame_init(struct xc_frame *f, const struct xc_frame_spec *spec)
{
    struct dp_packet *packet;

    f->spec = spec;
    if (spec->odp) {
        struct ofpbuf key;
        struct flow flow;
        char *error = NULL;

        ofpbuf_init(&key, 0);
        if (odp_flow_from_string(spec->odp, NULL, &key, NULL, &error)) {
            ovs_fatal(0, "frame %s: %s", spec->name, error);
        }
        if (odp_flow_key_to_flow(key.data, key.size, &flow, &error)
            == ODP_FIT_ERROR) {
            ovs_fatal(0, "frame %s: %s", spec->name, error);
        }
        packet = dp_packet_new(0);
        flow_compose(packet, &flow, NULL, spec->payload);
        if (dp_packet_size(packet) > sizeof f->data) {
            ovs_fatal(0, "frame %s: too long", spec->name);
        }
        f->len = dp_packet_size(packet);
        memcpy(f->data, dp_packet_data(packet), f->len);
        dp_packet_delete(packet);
        ofpbuf_uninit(&key);
    } else {
        f->len = xc_parse_hex(spec->hex, f->data, sizeof f->data);
    }

    packet = dp_packet_clone_data(f->data, f->len);
    pkt_metadata_init(&packet->md, u32_to_odp(XC_IN_PORT));
    flow_extract(packet, &f->flow);
    dp_packet_delete(packet);
}

static struct xc_frame *
xc_find_frame(struct xc_ctx *ctx, const char *name)
{
    for (size_t i = 0; i < ctx->n_frames; i++) {
        if (!strcmp(ctx->frames[i].spec->name, name)) {
            return &ctx->frames[i];
        }
    }
    ovs_fatal(0, "no frame %s", name);
}

static const struct xc_template *
xc_find_template(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(xc_templates); i++) {
        if (!strcmp(xc_templates[i].name, name)) {
            return &xc_templates[i];
        }
    }
    ovs_fatal(0, "no template %s", name);
}

/* Flows from templates. */

static bool
xc_template_applies(const struct xc_template *t, const struct flow *flow)
{
    bool tagged = (flow->vlans[0].tci & htons(VLAN_CFI)) != 0;

    if (t->eth_type == 0x8100) {
        if (!tagged) {
            return false;
        }
    } else if (t->eth_type && flow->dl_type != htons(t->eth_type)) {
        return false;
    }
    if (t->nw_proto && flow->nw_proto != t->nw_proto) {
        return false;
    }
    if (t->fields & XC_M_ND_TARGET
        && flow->tp_src != htons(ND_NEIGHBOR_SOLICIT)
        && flow->tp_src != htons(ND_NEIGHBOR_ADVERT)) {
        return false;
    }
    return true;
}

/* Fills 'wc' with the mask that template 't' gives a flow of 'flow', as
 * ofproto's translation would: the Ethertype and packet type always, the
 * fragment bits of IP packets always, the IP protocol with any transport
 * field, no transport field in later fragments. */
static void
xc_template_mask(const struct xc_template *t, const struct flow *flow,
                 struct flow_wildcards *wc)
{
    bool is_ip = dl_type_is_ip_any(flow->dl_type);
    bool is_ip6 = flow->dl_type == htons(ETH_TYPE_IPV6);
    bool is_arp = (flow->dl_type == htons(ETH_TYPE_ARP)
                   || flow->dl_type == htons(ETH_TYPE_RARP));
    bool l4 = is_ip && !(flow->nw_frag & FLOW_NW_FRAG_LATER);
    bool icmp = (is_ip && (flow->nw_proto == IPPROTO_ICMP
                           || flow->nw_proto == IPPROTO_ICMPV6));
    ovs_be16 tp_mask = icmp ? htons(0xff) : OVS_BE16_MAX;   /* As in ODP. */
    uint32_t f = t->fields;

    flow_wildcards_init_catchall(wc);
    wc->masks.packet_type = OVS_BE32_MAX;
    wc->masks.dl_type = OVS_BE16_MAX;
    if (f & XC_M_IN_PORT) {
        wc->masks.in_port.odp_port = u32_to_odp(UINT32_MAX);
    }
    if (f & XC_M_ETH_SRC) {
        memset(&wc->masks.dl_src, 0xff, sizeof wc->masks.dl_src);
    }
    if (f & XC_M_ETH_DST) {
        memset(&wc->masks.dl_dst, 0xff, sizeof wc->masks.dl_dst);
    } else if (f & XC_M_ETH_DST_OUI) {
        memset(&wc->masks.dl_dst, 0xff, 3);
    }
    for (int i = 0; i < FLOW_MAX_VLAN_HEADERS; i++) {
        if (flow->vlans[i].tci & htons(VLAN_CFI)) {
            wc->masks.vlans[i].tpid = OVS_BE16_MAX;
            wc->masks.vlans[i].tci |= htons(VLAN_CFI);
            if (f & XC_M_VLAN_VID) {
                wc->masks.vlans[i].tci |= htons(VLAN_VID_MASK);
            }
            if (f & XC_M_VLAN_PCP) {
                wc->masks.vlans[i].tci |= htons(VLAN_PCP_MASK);
            }
        }
    }
    if (is_ip) {
        wc->masks.nw_frag = FLOW_NW_FRAG_MASK;
    }
    if (is_ip || is_arp) {
        if (f & XC_M_NW_SRC) {
            if (is_ip6) {
                wc->masks.ipv6_src = ipv6_create_mask(t->src_plen);
            } else {
                wc->masks.nw_src = be32_prefix_mask(t->src_plen);
            }
        }
        if (f & XC_M_NW_DST) {
            if (is_ip6) {
                wc->masks.ipv6_dst = ipv6_create_mask(t->dst_plen);
            } else {
                wc->masks.nw_dst = be32_prefix_mask(t->dst_plen);
            }
        }
        if (f & XC_M_NW_PROTO) {
            wc->masks.nw_proto = 0xff;
        }
    }
    if (is_ip) {
        if (f & XC_M_NW_TTL) {
            wc->masks.nw_ttl = 0xff;
        }
        if (f & XC_M_NW_TOS) {
            wc->masks.nw_tos = 0xff;
        }
        if (f & XC_M_IPV6_LABEL && is_ip6) {
            wc->masks.ipv6_label = htonl(IPV6_LABEL_MASK);
        }
        if (l4 && f & (XC_M_TP_SRC | XC_M_TP_DST | XC_M_TCP_FLAGS
                       | XC_M_ND_TARGET)) {
            wc->masks.nw_proto = 0xff;
            if (f & XC_M_TP_SRC) {
                wc->masks.tp_src = tp_mask;
            }
            if (f & XC_M_TP_DST) {
                wc->masks.tp_dst = tp_mask;
            }
            if (f & XC_M_TCP_FLAGS && flow->nw_proto == IPPROTO_TCP) {
                wc->masks.tcp_flags = htons(0x0fff);
            }
            if (f & XC_M_ND_TARGET) {
                wc->masks.tp_src = tp_mask;
                wc->masks.tp_dst = tp_mask;
                memset(&wc->masks.nd_target, 0xff,
                       sizeof wc->masks.nd_target);
            }
        }
    }
    if (f & XC_M_ARP_SHA && (is_arp || (f & XC_M_ND_TARGET && l4))) {
        memset(&wc->masks.arp_sha, 0xff, sizeof wc->masks.arp_sha);
    }
}

/* Changes 'key', masked by 'wc', so that the frame it came from no longer
 * matches it.  Returns false if the mask has nothing to change. */
static bool
xc_make_decoy(struct flow *key, const struct flow_wildcards *wc)
{
    const struct flow *m = &wc->masks;

    if (m->nw_dst) {
        key->nw_dst ^= m->nw_dst & -m->nw_dst;
    } else if (!ipv6_mask_is_any(&m->ipv6_dst)) {
        for (int i = 15; i >= 0; i--) {
            if (m->ipv6_dst.s6_addr[i]) {
                key->ipv6_dst.s6_addr[i] ^= (m->ipv6_dst.s6_addr[i]
                                             & -m->ipv6_dst.s6_addr[i]);
                break;
            }
        }
    } else if (m->tp_dst) {
        key->tp_dst ^= htons(1);
    } else if (m->vlans[0].tci & htons(VLAN_VID_MASK)) {
        key->vlans[0].tci ^= htons(1);
    } else if (m->dl_dst.ea[2]) {
        key->dl_dst.ea[2] ^= 1;
    } else if (m->in_port.odp_port) {
        key->in_port.odp_port = u32_to_odp(XC_IN_PORT + 1);
    } else {
        return false;
    }
    return true;
}

/* Returns true if the megaflows of 'a' and 'b' overlap: some packet would
 * match both. */
static bool
xc_overlap(const struct match *a, const struct match *b)
{
    const uint64_t *af = (const uint64_t *) &a->flow;
    const uint64_t *am = (const uint64_t *) &a->wc.masks;
    const uint64_t *bf = (const uint64_t *) &b->flow;
    const uint64_t *bm = (const uint64_t *) &b->wc.masks;

    for (size_t i = 0; i < sizeof a->flow / sizeof *af; i++) {
        if ((af[i] ^ bf[i]) & am[i] & bm[i]) {
            return false;
        }
    }
    return true;
}

static void
xc_flow_free(struct xc_flow *f)
{
    if (f) {
        free(f->name);
        ofpbuf_uninit(&f->key);
        ofpbuf_uninit(&f->mask);
        ofpbuf_uninit(&f->actions);
        free(f->actions_s);
        free(f);
    }
}

/* Sets 'f''s actions to 'actions'.  Returns false if they do not parse. */
static bool
xc_flow_set_actions(struct xc_flow *f, const char *actions)
{
    ofpbuf_clear(&f->actions);
    free(f->actions_s);
    f->actions_s = xstrdup(actions);
    return (!strcmp(actions, "drop")
            || !odp_actions_from_string(actions, NULL, &f->actions));
}

/* Makes a flow named 'name' matching what template 't' takes of 'frame'
 * (changed, if 'decoy', so that 'frame' misses it; or with IPv4
 * destination XC_BULK_PREFIX + 'bulk', if 'bulk' is not negative), with
 * 'actions'.  Returns NULL and appends the reason to 'why' if it cannot
 * be made. */
static struct xc_flow *
xc_flow_make(struct xc_ctx *ctx, const char *name,
             const struct xc_frame *frame, const struct xc_template *t,
             const char *actions, bool decoy, int bulk, struct ds *why)
{
    struct flow_wildcards wc;
    struct flow key = frame->flow;
    struct xc_flow *f;

    if (!xc_template_applies(t, &frame->flow)) {
        ds_put_format(why, "\n    %s: template %s does not apply to frame "
                      "%s", name, t->name, frame->spec->name);
        return NULL;
    }
    xc_template_mask(t, &frame->flow, &wc);
    flow_zero_wildcards(&key, &wc);
    if (decoy && !xc_make_decoy(&key, &wc)) {
        ds_put_format(why, "\n    %s: nothing to change for a decoy", name);
        return NULL;
    }
    if (bulk >= 0) {
        key.nw_dst = htonl(XC_BULK_PREFIX + bulk);
    }

    f = xzalloc(sizeof *f);
    f->name = xstrdup(name);
    ofpbuf_init(&f->key, 0);
    ofpbuf_init(&f->mask, 0);
    ofpbuf_init(&f->actions, 0);

    struct odp_flow_key_parms parms = {
        .flow = &key,
        .mask = &wc.masks,
        .support = { .max_vlan_headers = 2, .nd_ext = true },
    };
    odp_flow_key_from_flow(&parms, &f->key);
    parms.key_buf = &f->key;
    odp_flow_key_from_mask(&parms, &f->mask);
    if (parse_key_and_mask_to_match(f->key.data, f->key.size, f->mask.data,
                                    f->mask.size, &f->match)) {
        ds_put_format(why, "\n    %s: OVS cannot parse its key and mask",
                      name);
        xc_flow_free(f);
        return NULL;
    }

    /* Every bit the template asked for must have made it through ODP. */
    const uint64_t *want = (const uint64_t *) &wc.masks;
    const uint64_t *got = (const uint64_t *) &f->match.wc.masks;
    for (size_t i = 0; i < sizeof wc.masks / sizeof *want; i++) {
        if (want[i] & ~got[i]) {
            struct match want_m;

            match_init(&want_m, &key, &wc);
            ds_put_format(why, "\n    %s: template %s loses mask bits "
                          "in ODP (word %"PRIuSIZE"): wanted ", name, t->name,
                          i);
            match_format(&want_m, NULL, why, OFP_DEFAULT_PRIORITY);
            ds_put_cstr(why, ", got ");
            match_format(&f->match, NULL, why, OFP_DEFAULT_PRIORITY);
            xc_flow_free(f);
            return NULL;
        }
    }
    if (!xc_flow_set_actions(f, actions)) {
        ds_put_format(why, "\n    %s: bad actions %s", name, actions);
        xc_flow_free(f);
        return NULL;
    }
    f->ufid.u32[0] = ++ctx->next_ufid;
    f->ufid.u32[3] = 0xc0de;
    f->mask_slot = -1;
    return f;
}

static struct xc_flow *
xc_find_flow(struct xc_ctx *ctx, const char *name, size_t *idx)
{
    for (size_t i = 0; i < ctx->n_flows; i++) {
        if (!strcmp(ctx->flows[i]->name, name)) {
            if (idx) {
                *idx = i;
            }
            return ctx->flows[i];
        }
    }
    return NULL;
}

/* Returns the installed flow that 'f' overlaps, or NULL. */
static const struct xc_flow *
xc_find_overlap(const struct xc_ctx *ctx, const struct xc_flow *f)
{
    for (size_t i = 0; i < ctx->n_flows; i++) {
        if (xc_overlap(&f->match, &ctx->flows[i]->match)) {
            return ctx->flows[i];
        }
    }
    return NULL;
}

/* Flow operations through dpif_operate(), as ofproto-dpif makes them. */

/* Installs the 'n' flows in 'flows' (DPIF_FP_CREATE), or with 'modify'
 * changes the actions of installed flows (DPIF_FP_MODIFY), in bursts.
 * New flows that install join the table; the others are freed.  Appends
 * each failure to 'why'. */
static void
xc_put_flows(struct xc_ctx *ctx, struct xc_flow **flows, size_t n,
             bool modify, struct ds *why)
{
    for (size_t ofs = 0; ofs < n; ofs += 256) {
        size_t burst = MIN(n - ofs, 256);
        struct dpif_op *ops = xcalloc(burst, sizeof *ops);
        struct dpif_op **opp = xcalloc(burst, sizeof *opp);

        for (size_t i = 0; i < burst; i++) {
            struct xc_flow *f = flows[ofs + i];

            ops[i].type = DPIF_OP_FLOW_PUT;
            ops[i].flow_put = (struct dpif_flow_put) {
                .flags = modify ? DPIF_FP_MODIFY : DPIF_FP_CREATE,
                .key = f->key.data, .key_len = f->key.size,
                .mask = f->mask.data, .mask_len = f->mask.size,
                .actions = f->actions.data, .actions_len = f->actions.size,
                .ufid = &f->ufid, .pmd_id = PMD_ID_NULL,
            };
            opp[i] = &ops[i];
        }
        dpif_operate(ctx->dpif, opp, burst, DPIF_OFFLOAD_NEVER);
        for (size_t i = 0; i < burst; i++) {
            struct xc_flow *f = flows[ofs + i];

            if (ops[i].error) {
                ds_put_format(why, "\n    %s of %s failed (%s)",
                              modify ? "modify" : "put", f->name,
                              ovs_strerror(ops[i].error));
                if (!modify) {
                    xc_flow_free(f);
                }
            } else if (!modify) {
                if (ctx->n_flows >= ctx->allocated) {
                    ctx->flows = x2nrealloc(ctx->flows, &ctx->allocated,
                                            sizeof *ctx->flows);
                }
                ctx->flows[ctx->n_flows++] = f;
            }
        }
        free(ops);
        free(opp);
    }
}

/* Deletes the installed flows whose indexes are in 'idx' ('n' of them)
 * and frees them.  Appends each failure to 'why'. */
static void
xc_del_flows(struct xc_ctx *ctx, size_t *idx, size_t n, struct ds *why)
{
    bool *gone = xcalloc(MAX(ctx->n_flows, 1), sizeof *gone);

    for (size_t ofs = 0; ofs < n; ofs += 256) {
        size_t burst = MIN(n - ofs, 256);
        struct dpif_op *ops = xcalloc(burst, sizeof *ops);
        struct dpif_op **opp = xcalloc(burst, sizeof *opp);

        for (size_t i = 0; i < burst; i++) {
            struct xc_flow *f = ctx->flows[idx[ofs + i]];

            ops[i].type = DPIF_OP_FLOW_DEL;
            ops[i].flow_del = (struct dpif_flow_del) {
                .key = f->key.data, .key_len = f->key.size,
                .ufid = &f->ufid, .pmd_id = PMD_ID_NULL,
            };
            opp[i] = &ops[i];
        }
        dpif_operate(ctx->dpif, opp, burst, DPIF_OFFLOAD_NEVER);
        for (size_t i = 0; i < burst; i++) {
            if (ops[i].error) {
                ds_put_format(why, "\n    delete of %s failed (%s)",
                              ctx->flows[idx[ofs + i]]->name,
                              ovs_strerror(ops[i].error));
            }
            gone[idx[ofs + i]] = true;
        }
        free(ops);
        free(opp);
    }

    size_t k = 0;
    for (size_t i = 0; i < ctx->n_flows; i++) {
        if (gone[i]) {
            xc_flow_free(ctx->flows[i]);
        } else {
            ctx->flows[k++] = ctx->flows[i];
        }
    }
    ctx->n_flows = k;
    free(gone);
}

/* Deletes the installed flows named in 'names' (a NULL-terminated list;
 * a name ending in "*" names every flow that starts with the rest). */
static void
xc_del_named(struct xc_ctx *ctx, const char *const *names, struct ds *why)
{
    size_t *idx = xmalloc(MAX(ctx->n_flows, 1) * sizeof *idx);
    size_t n = 0;

    for (size_t i = 0; i < ctx->n_flows; i++) {
        const char *name = ctx->flows[i]->name;

        for (const char *const *p = names; *p; p++) {
            size_t len = strlen(*p);

            if (len && (*p)[len - 1] == '*'
                ? !strncmp(name, *p, len - 1) : !strcmp(name, *p)) {
                idx[n++] = i;
                break;
            }
        }
    }
    for (const char *const *p = names; *p; p++) {
        if ((*p)[strlen(*p) - 1] != '*' && !xc_find_flow(ctx, *p, NULL)) {
            ds_put_format(why, "\n    no flow %s to delete", *p);
        }
    }
    xc_del_flows(ctx, idx, n, why);
    free(idx);
}

static void
xc_del_all(struct xc_ctx *ctx, struct ds *why)
{
    size_t *idx = xmalloc(MAX(ctx->n_flows, 1) * sizeof *idx);

    for (size_t i = 0; i < ctx->n_flows; i++) {
        idx[i] = i;
    }
    xc_del_flows(ctx, idx, ctx->n_flows, why);
    free(idx);
}

/* Reads each installed flow's slot, subtable, XDP key and action bits from
 * the datapath. */
static void
xc_refresh_flows(struct xc_ctx *ctx, struct ds *why)
{
    struct dp_xdp *dp = ctx->dp;

    ovs_mutex_lock(&dp->flow_mutex);
    for (size_t i = 0; i < ctx->n_flows; i++) {
        struct xc_flow *f = ctx->flows[i];
        struct dp_xdp_flow *df;
        bool found = false;

        HMAP_FOR_EACH_WITH_HASH (df, node, f->ufid.u32[0], &dp->flows) {
            if (ovs_u128_equals(df->ufid, f->ufid)) {
                f->slot = df->xflow.slot;
                f->mask_slot = df->mask_slot;
                f->action_bits = df->xflow.action_bits;
                f->flags = df->xflow.flags;
                f->xkey = df->xkey;
                found = true;
                break;
            }
        }
        if (!found) {
            ds_put_format(why, "\n    flow %s is not in the datapath",
                          f->name);
            f->mask_slot = -1;
        } else if (f->mask_slot < 0) {
            ds_put_format(why, "\n    flow %s is not in XDP", f->name);
        }
    }
    ovs_mutex_unlock(&dp->flow_mutex);
}

/* Programs and runs. */

static void
xc_map_update(struct bpf_map *map, const void *key, const void *value)
{
    if (bpf_map_update_elem(bpf_map__fd(map), key, value, BPF_ANY)) {
        ovs_fatal(errno, "cannot update %s", bpf_map__name(map));
    }
}

static void
xc_setup_layout(struct xc_ctx *ctx, const struct xc_layout *layout)
{
    struct xdp_dp *skel = ctx->dp->skel;

    for (uint32_t p = XC_FIRST_PORT; p <= XC_LAST_PORT; p++) {
        struct xdp_dp_port port = { .ifindex = 0, .tx_mode = XDP_DP_TX_NONE };
        uint32_t ifindex = ctx->lo_ifindex;

        switch (layout->modes[p]) {
        case XC_PORT_NONE:
            break;
        case XC_PORT_REDIRECT:
        case XC_PORT_REDIRECT_MISSING:
            port.ifindex = ctx->lo_ifindex;
            port.tx_mode = XDP_DP_TX_REDIRECT;
            break;
        case XC_PORT_SKB:
            port.ifindex = XC_IFINDEX_BASE + p;
            port.tx_mode = XDP_DP_TX_SKB;
            break;
        case XC_PORT_SLOW:
            port.ifindex = XC_IFINDEX_BASE + p;
            port.tx_mode = XDP_DP_TX_SLOW;
            break;
        }
        xc_map_update(skel->maps.xdp_dp_ports, &p, &port);
        if (layout->modes[p] == XC_PORT_REDIRECT) {
            xc_map_update(skel->maps.xdp_dp_tx_ports, &p, &ifindex);
        } else {
            bpf_map_delete_elem(bpf_map__fd(skel->maps.xdp_dp_tx_ports), &p);
        }
    }
}

static void
xc_on_sample(void *ctx_, int cpu OVS_UNUSED, void *data, __u32 size)
{
    struct xc_ctx *ctx = ctx_;
    const struct xdp_dp_upcall *up = data;
    int n = (*ctx->n_sink)++;

    if (n < XC_MAX_UPCALLS && size >= sizeof *up) {
        struct xc_upcall *u = &ctx->sink[n];
        uint32_t len = MIN(size - sizeof *up, up->pkt_len);

        u->up = *up;
        u->len = MIN(len, sizeof u->data);
        memcpy(u->data, up + 1, u->len);
    }
}

static void
xc_on_lost(void *ctx_, int cpu OVS_UNUSED, __u64 cnt)
{
    struct xc_ctx *ctx = ctx_;

    ctx->n_ring_lost += cnt;
}

static struct xc_counters
xc_read_dp_stats(struct xc_ctx *ctx)
{
    int n_cpus = libbpf_num_possible_cpus();
    struct xdp_dp_stats *per_cpu = xcalloc(n_cpus, sizeof *per_cpu);
    struct xc_counters sum;
    uint32_t zero = 0;

    memset(&sum, 0, sizeof sum);
    if (bpf_map_lookup_elem(bpf_map__fd(ctx->dp->skel->maps.xdp_dp_stats),
                            &zero, per_cpu)) {
        ovs_fatal(errno, "cannot read xdp_dp_stats");
    }
    for (int i = 0; i < n_cpus; i++) {
        const struct xdp_dp_stats *s = &per_cpu[i];

        sum.n_hit += s->n_hit;
        sum.n_missed += s->n_missed;
        sum.n_lost += s->n_lost;
        sum.n_mask_hit += s->n_mask_hit;
        sum.n_slow_path += s->n_slow_path;
        sum.n_tx_error += s->n_tx_error;
        sum.n_fallback += s->n_fallback;
        for (int j = 0; j < XDP_DP_MAX_MASKS; j++) {
            sum.mask_hits[j] += s->mask_hits[j];
        }
    }
    free(per_cpu);
    return sum;
}

static struct xc_counters
xc_stats_delta(const struct xc_counters *a, const struct xc_counters *b)
{
    struct xc_counters d;

    d.n_hit = b->n_hit - a->n_hit;
    d.n_missed = b->n_missed - a->n_missed;
    d.n_lost = b->n_lost - a->n_lost;
    d.n_mask_hit = b->n_mask_hit - a->n_mask_hit;
    d.n_slow_path = b->n_slow_path - a->n_slow_path;
    d.n_tx_error = b->n_tx_error - a->n_tx_error;
    d.n_fallback = b->n_fallback - a->n_fallback;
    for (int j = 0; j < XDP_DP_MAX_MASKS; j++) {
        d.mask_hits[j] = b->mask_hits[j] - a->mask_hits[j];
    }
    return d;
}

static void
xc_run_init(struct xc_run *r, size_t n_flows)
{
    memset(r, 0, sizeof *r);
    r->d_packets = xcalloc(MAX(n_flows, 1), sizeof *r->d_packets);
    r->d_bytes = xcalloc(MAX(n_flows, 1), sizeof *r->d_bytes);
    r->tcp_flags = xcalloc(MAX(n_flows, 1), sizeof *r->tcp_flags);
}

static void
xc_run_destroy(struct xc_run *r)
{
    free(r->d_packets);
    free(r->d_bytes);
    free(r->tcp_flags);
}

/* Runs 'frame' ('len' bytes) 'repeat' times through program 'prog_fd' and
 * stores what happened in 'r' (initialized with xc_run_init()). */
static void
xc_run(struct xc_ctx *ctx, int prog_fd, const uint8_t *frame, size_t len,
       int repeat, struct xc_run *r)
{
    struct xdp_flow_stats_map *sm = &ctx->dp->stats_map;
    struct xdp_md ctx_in = { .data_end = len,
                             .ingress_ifindex = ctx->lo_ifindex };
    struct xdp_md ctx_out;
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = frame, .data_size_in = len,
                .data_out = r->data, .data_size_out = sizeof r->data,
                .ctx_in = &ctx_in, .ctx_size_in = sizeof ctx_in,
                .ctx_out = &ctx_out, .ctx_size_out = sizeof ctx_out,
                .repeat = repeat);
    int error;

    /* The TCP flags of a flow are an OR over its packets: start each run
     * from none, through the mapping (it is writable), so that the run's
     * own flags show. */
    uint64_t *packets = xmalloc(MAX(ctx->n_flows, 1) * sizeof *packets);
    uint64_t *bytes = xmalloc(MAX(ctx->n_flows, 1) * sizeof *bytes);
    for (size_t i = 0; i < ctx->n_flows; i++) {
        struct xdp_flow_stats s;

        sm->slots[ctx->flows[i]->slot].tcp_flags = 0;
        xdp_flow_stats_read(sm, ctx->flows[i]->slot, &s);
        packets[i] = s.n_packets;
        bytes[i] = s.n_bytes;
    }
    perf_buffer__consume(ctx->pb);      /* Nothing should be there. */

    struct xc_counters before = xc_read_dp_stats(ctx);
    memset(&ctx_out, 0, sizeof ctx_out);
    error = bpf_prog_test_run_opts(prog_fd, &opts);
    if (error) {
        ovs_fatal(-error, "BPF_PROG_TEST_RUN");
    }
    struct xc_counters after = xc_read_dp_stats(ctx);

    r->verdict = opts.retval;
    r->size = opts.data_size_out;
    r->meta_len = ctx_out.data;
    r->d = xc_stats_delta(&before, &after);

    ctx->sink = r->upcalls;
    ctx->n_sink = &r->n_upcalls;
    perf_buffer__consume(ctx->pb);
    ctx->sink = NULL;
    ctx->n_sink = NULL;

    r->hit = -1;
    for (size_t i = 0; i < ctx->n_flows; i++) {
        struct xdp_flow_stats s;

        xdp_flow_stats_read(sm, ctx->flows[i]->slot, &s);
        r->d_packets[i] = s.n_packets - packets[i];
        r->d_bytes[i] = s.n_bytes - bytes[i];
        r->tcp_flags[i] = s.tcp_flags;
        if (r->d_packets[i]) {
            r->hit = r->hit == -1 ? (int) i : -2;
        }
    }
    free(packets);
    free(bytes);
}

/* The reference: the installed flow that OVS's flow_extract() and the
 * flows' masks select for 'frame', or -1; -2 if several match, with the
 * overlapping flows appended to 'why'. */
static int
xc_reference(const struct xc_ctx *ctx, const struct xc_frame *frame,
             struct ds *why)
{
    int hit = -1;

    for (size_t i = 0; i < ctx->n_flows; i++) {
        const struct match *m = &ctx->flows[i]->match;

        if (flow_equal_except(&frame->flow, &m->flow, &m->wc)) {
            if (hit != -1) {
                ds_put_format(why, "\n    table error: flows %s and %s "
                              "both match", ctx->flows[hit >= 0 ? hit : 0]
                              ->name, ctx->flows[i]->name);
                hit = -2;
            } else {
                hit = i;
            }
        }
    }
    return hit;
}

/* The compiled program's state, for the expectations of a phase. */
struct xc_state {
    struct xdp_dp_cfg cfg;      /* The live program's configuration. */
    bool compiled;              /* Is the datapath's program compiled? */
    int csub_pos[XDP_DP_MAX_MASKS];     /* Position in 'cfg' of each mask
                                         * slot's compiled subtable (with
                                         * the slot's current mask), or -1. */
    bool direct[XDP_DP_MAX_MASKS];      /* Are the slot's flows all found by
                                         * its compiled lookup (full key, or
                                         * a complete compact map)? */
};

/* Whether the compiled subtable 'cs' was compiled for 'mask'. */
static bool
xc_csub_is_mask(const struct xdp_dp_csub *cs, const struct xdp_flow_key *mask)
{
    const uint32_t *m = (const uint32_t *) mask;
    uint32_t j = 0;

    for (uint32_t w = 0; w < XDP_FLOW_KEY_WORDS32; w++) {
        if (m[w]) {
            if (j >= cs->n_words || cs->word[j] != w || cs->mask[j] != m[w]) {
                return false;
            }
            j++;
        }
    }
    return j == cs->n_words || (!j && cs->n_words == 1 && !cs->mask[0]);
}

static void
xc_read_state(struct xc_ctx *ctx, struct xc_state *st)
{
    struct dp_xdp *dp = ctx->dp;

    dp_xdp_compile_get_cfg(dp, &st->cfg);
    ovs_mutex_lock(&dp->flow_mutex);
    st->compiled = dp->live_compiled;
    ovs_mutex_unlock(&dp->flow_mutex);
    for (int i = 0; i < XDP_DP_MAX_MASKS; i++) {
        st->csub_pos[i] = -1;
        st->direct[i] = false;
    }
    if (!st->compiled) {
        return;
    }
    ovs_mutex_lock(&dp->flow_mutex);
    for (uint32_t i = 0; i < st->cfg.n_csubs; i++) {
        const struct xdp_dp_csub *cs = &st->cfg.csubs[i];
        const struct dp_xdp_mask *m;

        if (cs->slot >= XDP_DP_MAX_MASKS) {
            continue;
        }
        m = &dp->masks[cs->slot];
        if (m->in_use && xc_csub_is_mask(cs, &m->mask)) {
            st->csub_pos[cs->slot] = i;
            st->direct[cs->slot] = (!cs->ckey_words
                                    || (m->cmap_fd >= 0 && !m->cmap_full));
        }
    }
    ovs_mutex_unlock(&dp->flow_mutex);
}

/* Compares the runs of 'frame' through the compiled program ('c') and the
 * generic one ('g'); appends the differences to 'why' and counts in 'cov'
 * what the compiled run exercised. */
static void
xc_compare(struct xc_ctx *ctx, const struct xc_state *st,
           const struct xc_frame *frame, const struct xc_run *c,
           const struct xc_run *g, struct xc_coverage *cov, struct ds *why)
{
    const struct xc_flow *hf = g->hit >= 0 ? ctx->flows[g->hit] : NULL;
    bool slow = (st->compiled && hf && !(hf->flags & XDP_FLOW_F_SLOW_PATH)
                 && hf->action_bits & ~st->cfg.action_bits);

    /* The programs' own behaviour. */
    if (g->hit == -2 || c->hit == -2) {
        ds_put_format(why, "\n    more than one flow counted the packet "
                      "(compiled %s, generic %s)", c->hit == -2 ? "yes" : "no",
                      g->hit == -2 ? "yes" : "no");
    }
    if (c->hit != g->hit) {
        ds_put_format(why, "\n    hit: compiled %s, generic %s",
                      c->hit >= 0 ? ctx->flows[c->hit]->name : "none",
                      hf ? hf->name : "none");
    }
    for (size_t i = 0; i < ctx->n_flows; i++) {
        if (c->d_packets[i] != g->d_packets[i]
            || c->d_bytes[i] != g->d_bytes[i]
            || c->tcp_flags[i] != g->tcp_flags[i]) {
            ds_put_format(why, "\n    flow %s: compiled %"PRIu64" packets "
                          "%"PRIu64" bytes tcp_flags %#"PRIx64", generic "
                          "%"PRIu64" packets %"PRIu64" bytes tcp_flags "
                          "%#"PRIx64, ctx->flows[i]->name, c->d_packets[i],
                          c->d_bytes[i], c->tcp_flags[i], g->d_packets[i],
                          g->d_bytes[i], g->tcp_flags[i]);
        }
    }

#define XC_CMP_COUNTER(FIELD)                                            \
    if (c->d.FIELD != g->d.FIELD) {                                      \
        ds_put_format(why, "\n    " #FIELD ": compiled +%"PRIu64          \
                      ", generic +%"PRIu64, c->d.FIELD, g->d.FIELD);     \
    }
    XC_CMP_COUNTER(n_hit);
    XC_CMP_COUNTER(n_missed);
    for (int j = 0; j < XDP_DP_MAX_MASKS; j++) {
        if (c->d.mask_hits[j] != g->d.mask_hits[j]) {
            ds_put_format(why, "\n    mask_hits[%d]: compiled +%"PRIu64
                          ", generic +%"PRIu64, j, c->d.mask_hits[j],
                          g->d.mask_hits[j]);
        }
    }
    if (!st->compiled) {
        /* Two generic programs: everything alike. */
        XC_CMP_COUNTER(n_mask_hit);
        XC_CMP_COUNTER(n_fallback);
    }

    if (slow) {
        /* The compiled program has no code for this flow's actions: it
         * hands the untouched frame to ovs-vswitchd. */
        const struct xc_upcall *u = &c->upcalls[0];

        cov->slow_paths++;
        if (c->verdict != XDP_DROP) {
            ds_put_format(why, "\n    compiled: verdict %s for a flow "
                          "whose actions it has no code for (%#"PRIx32" "
                          "not in %#"PRIx32"), expected XDP_DROP",
                          xc_verdict_name(c->verdict), hf->action_bits,
                          st->cfg.action_bits);
        }
        if (c->d.n_slow_path != 1 || g->d.n_slow_path != 0) {
            ds_put_format(why, "\n    n_slow_path: compiled +%"PRIu64
                          ", generic +%"PRIu64", expected +1 and +0",
                          c->d.n_slow_path, g->d.n_slow_path);
        }
        if (c->d.n_tx_error || c->d.n_lost) {
            ds_put_format(why, "\n    compiled: n_tx_error +%"PRIu64
                          ", n_lost +%"PRIu64" on a slow-path packet",
                          c->d.n_tx_error, c->d.n_lost);
        }
        if (c->n_upcalls != 1 || u->up.type != XDP_DP_UPCALL_SLOW_PATH
            || u->up.in_port != XC_IN_PORT || u->up.slot != hf->slot
            || u->len != frame->len || memcmp(u->data, frame->data,
                                              frame->len)) {
            ds_put_format(why, "\n    compiled: %d upcalls, expected one "
                          "SLOW_PATH upcall for slot %"PRIu32" with the "
                          "frame as it came", c->n_upcalls, hf->slot);
            if (c->n_upcalls) {
                ds_put_format(why, " (type %"PRIu32", port %"PRIu32
                              ", slot %"PRIu32", %"PRIu32" bytes)",
                              u->up.type, u->up.in_port, u->up.slot,
                              u->len);
            }
        }
        if (c->meta_len || c->size != frame->len
            || memcmp(c->data, frame->data, frame->len)) {
            ds_put_format(why, "\n    compiled: slow-path frame changed "
                          "(%"PRIu32" bytes of metadata, %"PRIu32" in all): ",
                          c->meta_len, c->size);
            xc_put_hex_at(why, c->data, c->size,
                          xc_diff_ofs(c->data, c->size, frame->data,
                                      frame->len));
        }
    } else {
        XC_CMP_COUNTER(n_lost);
        XC_CMP_COUNTER(n_slow_path);
        XC_CMP_COUNTER(n_tx_error);
        if (c->verdict != g->verdict) {
            ds_put_format(why, "\n    verdict: compiled %s, generic %s",
                          xc_verdict_name(c->verdict),
                          xc_verdict_name(g->verdict));
        }
        if (c->meta_len != g->meta_len || c->size != g->size
            || memcmp(c->data, g->data, c->size)) {
            size_t ofs = xc_diff_ofs(c->data, c->size, g->data, g->size);

            ds_put_format(why, "\n    output: compiled %"PRIu32" bytes (%"
                          PRIu32" of metadata), generic %"PRIu32" (%"PRIu32
                          "), from byte %"PRIuSIZE":", c->size, c->meta_len,
                          g->size, g->meta_len, ofs);
            ds_put_cstr(why, "\n      compiled ");
            xc_put_hex_at(why, c->data, c->size, ofs);
            ds_put_cstr(why, "\n      generic  ");
            xc_put_hex_at(why, g->data, g->size, ofs);
        }
        bool same = c->n_upcalls == g->n_upcalls;
        for (int i = 0; same && i < MIN(c->n_upcalls, XC_MAX_UPCALLS); i++) {
            const struct xc_upcall *a = &c->upcalls[i];
            const struct xc_upcall *b = &g->upcalls[i];

            same = (a->up.type == b->up.type && a->up.in_port == b->up.in_port
                    && a->up.slot == b->up.slot
                    && a->up.pkt_len == b->up.pkt_len && a->len == b->len
                    && !memcmp(a->data, b->data, a->len));
        }
        if (!same) {
            ds_put_format(why, "\n    upcalls: compiled %d, generic %d "
                          "(or different)", c->n_upcalls, g->n_upcalls);
            for (int k = 0; k < 2; k++) {
                const struct xc_run *r = k ? g : c;

                for (int i = 0; i < MIN(r->n_upcalls, XC_MAX_UPCALLS); i++) {
                    const struct xc_upcall *u = &r->upcalls[i];

                    ds_put_format(why, "\n      %s: type %"PRIu32" port "
                                  "%"PRIu32" slot %"PRIu32", %"PRIu32
                                  " bytes: ", k ? "generic " : "compiled",
                                  u->up.type, u->up.in_port, u->up.slot,
                                  u->len);
                    xc_put_hex_at(why, u->data, u->len, 0);
                }
            }
        }
    }
#undef XC_CMP_COUNTER

    /* The compiled program must have found the flows of its compiled
     * subtables by itself, and only those. */
    if (st->compiled && !frame->spec->xdp_upcalls && g->hit != -2) {
        int pos = hf && hf->mask_slot >= 0 ? st->csub_pos[hf->mask_slot] : -1;

        if (g->d.n_fallback) {
            ds_put_format(why, "\n    generic: n_fallback +%"PRIu64,
                          g->d.n_fallback);
        }
        if (!hf) {
            if (c->d.n_fallback != 1) {
                ds_put_format(why, "\n    compiled: a packet that matches "
                              "no flow counted n_fallback +%"PRIu64,
                              c->d.n_fallback);
            }
        } else if (pos >= 0 && st->direct[hf->mask_slot]) {
            cov->csub_hits++;
            if (c->d.n_fallback || c->d.n_mask_hit != pos + 1) {
                ds_put_format(why, "\n    compiled: flow %s of compiled "
                              "subtable %d (slot %d) found with n_fallback "
                              "+%"PRIu64" and n_mask_hit +%"PRIu64
                              ", expected +0 and +%d", hf->name, pos + 1,
                              hf->mask_slot, c->d.n_fallback,
                              c->d.n_mask_hit, pos + 1);
            }
        } else if (pos < 0) {
            cov->fallback_hits++;
            if (c->d.n_fallback != 1) {
                ds_put_format(why, "\n    compiled: flow %s of subtable "
                              "slot %d, which is not compiled, found with "
                              "n_fallback +%"PRIu64, hf->name,
                              hf->mask_slot, c->d.n_fallback);
            }
        }
    }

    /* Open vSwitch's own classification. */
    struct ds overlap = DS_EMPTY_INITIALIZER;
    int ref = xc_reference(ctx, frame, &overlap);
    ds_put_cstr(why, ds_cstr(&overlap));
    ds_destroy(&overlap);
    if (ref != -2 && !frame->spec->xdp_upcalls && ref != g->hit) {
        ds_put_format(why, "\n    OVS matches %s, the generic program "
                      "hits %s", ref >= 0 ? ctx->flows[ref]->name : "none",
                      g->hit >= 0 ? ctx->flows[g->hit]->name
                      : g->hit == -1 ? "none" : "several");
    }
}

/* Phases. */

/* Checks that every compiled subtable's compact map holds exactly the
 * flows of its subtable, under their compact keys, with their values. */
static void
xc_check_cmaps(struct xc_ctx *ctx, const char *phase,
               const struct xc_state *st)
{
    struct ds why = DS_EMPTY_INITIALIZER;
    struct dp_xdp *dp = ctx->dp;

    if (!st->compiled) {
        return;
    }
    ovs_mutex_lock(&dp->flow_mutex);
    for (uint32_t i = 0; i < st->cfg.n_csubs; i++) {
        const struct xdp_dp_csub *cs = &st->cfg.csubs[i];
        const struct dp_xdp_mask *m = &dp->masks[cs->slot];
        uint32_t n_flows = 0;

        if (!cs->ckey_words) {
            continue;
        }
        if (m->cmap_fd < 0) {
            ds_put_format(&why, "\n    subtable slot %"PRIu32" has no "
                          "compact map", cs->slot);
            continue;
        }
        if (!xc_csub_is_mask(cs, &m->mask)) {
            if (m->in_use) {
                ds_put_format(&why, "\n    subtable slot %"PRIu32" was "
                              "compiled for another mask", cs->slot);
            }
            continue;
        }
        for (size_t k = 0; k < ctx->n_flows; k++) {
            const struct xc_flow *f = ctx->flows[k];
            const uint32_t *kw = (const uint32_t *) &f->xkey;
            uint32_t ckey[XDP_DP_CKEY_MAX_WORDS];
            struct xdp_flow value;

            if (f->mask_slot != (int) cs->slot) {
                continue;
            }
            n_flows++;
            memset(ckey, 0, sizeof ckey);
            for (uint32_t j = 0; j < cs->ckey_words; j++) {
                ckey[j] = kw[cs->word[j]] & cs->mask[j];
            }
            if (bpf_map_lookup_elem(m->cmap_fd, ckey, &value)) {
                if (!m->cmap_full) {
                    ds_put_format(&why, "\n    flow %s is not in the "
                                  "compact map of slot %"PRIu32, f->name,
                                  cs->slot);
                }
            } else if (value.slot != f->slot
                       || value.action_bits != f->action_bits
                       || value.flags != f->flags) {
                ds_put_format(&why, "\n    flow %s: compact map of slot "
                              "%"PRIu32" has slot %"PRIu32", action bits "
                              "%#"PRIx32", flags %#"PRIx16"; the flow has "
                              "%"PRIu32", %#"PRIx32", %#"PRIx16, f->name,
                              cs->slot, value.slot, value.action_bits,
                              value.flags, f->slot, f->action_bits,
                              f->flags);
            }
        }

        /* And nothing else: no deleted flow stays behind. */
        uint32_t key[XDP_DP_CKEY_MAX_WORDS], next[XDP_DP_CKEY_MAX_WORDS];
        uint32_t n_entries = 0;
        void *prev = NULL;
        while (!bpf_map_get_next_key(m->cmap_fd, prev, next)) {
            n_entries++;
            memcpy(key, next, sizeof key);
            prev = key;
        }
        if (n_entries > n_flows || (n_entries < n_flows && !m->cmap_full)) {
            ds_put_format(&why, "\n    compact map of slot %"PRIu32" holds "
                          "%"PRIu32" entries for %"PRIu32" flows", cs->slot,
                          n_entries, n_flows);
        }
    }
    ovs_mutex_unlock(&dp->flow_mutex);
    xc_report(ctx, phase, "compact-maps", &why);
    ds_destroy(&why);
}

/* Checks that the counters dpif_flow_get() reports are what the runs
 * counted. */
static void
xc_check_flow_stats(struct xc_ctx *ctx, const char *phase)
{
    struct ds why = DS_EMPTY_INITIALIZER;

    for (size_t i = 0; i < ctx->n_flows; i++) {
        struct xc_flow *f = ctx->flows[i];
        uint64_t stub[DPIF_FLOW_BUFSIZE / 8];
        struct ofpbuf buf = OFPBUF_STUB_INITIALIZER(stub);
        struct dpif_flow flow;
        int error;

        error = dpif_flow_get(ctx->dpif, f->key.data, f->key.size, &f->ufid,
                              PMD_ID_NULL, &buf, &flow);
        if (error) {
            ds_put_format(&why, "\n    cannot get flow %s (%s)", f->name,
                          ovs_strerror(error));
        } else if (flow.stats.n_packets != f->n_packets
                   || flow.stats.n_bytes != f->n_bytes) {
            ds_put_format(&why, "\n    flow %s: dpif says %"PRIu64" packets "
                          "%"PRIu64" bytes, the runs counted %"PRIu64
                          " and %"PRIu64, f->name, flow.stats.n_packets,
                          flow.stats.n_bytes, f->n_packets, f->n_bytes);
        }
        ofpbuf_uninit(&buf);
    }
    xc_report(ctx, phase, "flow-stats", &why);
    ds_destroy(&why);
}

/* --sabotage: removes the flow that the first frame hits from the compact
 * map of its compiled subtable behind the datapath's back, as a compiler
 * that forgot to write it there would. */
static void
xc_sabotage_cmap(struct xc_ctx *ctx, const struct xc_state *st)
{
    struct ds ignored = DS_EMPTY_INITIALIZER;
    int ref = xc_reference(ctx, &ctx->frames[0], &ignored);
    struct dp_xdp *dp = ctx->dp;

    ds_destroy(&ignored);
    if (!st->compiled || ref < 0 || ctx->flows[ref]->mask_slot < 0) {
        return;
    }

    const struct xc_flow *f = ctx->flows[ref];
    int pos = st->csub_pos[f->mask_slot];
    if (pos < 0 || !st->cfg.csubs[pos].ckey_words) {
        return;
    }
    const struct xdp_dp_csub *cs = &st->cfg.csubs[pos];
    const uint32_t *kw = (const uint32_t *) &f->xkey;
    uint32_t ckey[XDP_DP_CKEY_MAX_WORDS];

    memset(ckey, 0, sizeof ckey);
    for (uint32_t j = 0; j < cs->ckey_words; j++) {
        ckey[j] = kw[cs->word[j]] & cs->mask[j];
    }
    ovs_mutex_lock(&dp->flow_mutex);
    if (dp->masks[f->mask_slot].cmap_fd >= 0) {
        bpf_map_delete_elem(dp->masks[f->mask_slot].cmap_fd, ckey);
    }
    ovs_mutex_unlock(&dp->flow_mutex);
}

/* Runs every frame through both programs with every port layout and
 * compares, then checks the compact maps, the flow counters and that the
 * phase exercised what 'want' (XC_WANT_*) says. */
static void
xc_phase(struct xc_ctx *ctx, const char *phase, int want)
{
    struct ds why = DS_EMPTY_INITIALIZER;
    struct xc_coverage cov;
    struct xc_state st;

    memset(&cov, 0, sizeof cov);
    xc_refresh_flows(ctx, &why);
    if (why.length) {
        xc_report(ctx, phase, "table", &why);
        ds_clear(&why);
    }
    xc_read_state(ctx, &st);
    if (ctx->sabotage) {
        xc_sabotage_cmap(ctx, &st);
    }
    if (ctx->verbose) {
        struct ds s = DS_EMPTY_INITIALIZER;

        dp_xdp_compile_format(ctx->dp, &s);
        printf("-- %s: %"PRIuSIZE" flows\n%s", phase, ctx->n_flows,
               ds_cstr(&s));
        ds_destroy(&s);
    }

    int prog_fd = ctx->dp->xdp_prog_fd;
    int generic_fd = bpf_program__fd(ctx->generic->progs.xdp_dp_main);
    for (size_t l = 0; l < ARRAY_SIZE(xc_layouts); l++) {
        xc_setup_layout(ctx, &xc_layouts[l]);
        for (size_t i = 0; i < ctx->n_frames; i++) {
            const struct xc_frame *frame = &ctx->frames[i];
            uint8_t sabotaged[XC_MAX_FRAME];
            const uint8_t *g_in = frame->data;
            int g_repeat = 1;
            struct xc_run c, g;
            char what[128];

            if (ctx->sabotage && i % 5 == 1) {
                memcpy(sabotaged, frame->data, frame->len);
                sabotaged[frame->len - 1] ^= 0x5a;
                g_in = sabotaged;
            } else if (ctx->sabotage && i % 5 == 3) {
                g_repeat = 2;
            }

            xc_run_init(&c, ctx->n_flows);
            xc_run_init(&g, ctx->n_flows);
            xc_run(ctx, prog_fd, frame->data, frame->len, 1, &c);
            xc_run(ctx, generic_fd, g_in, frame->len, g_repeat, &g);
            for (size_t k = 0; k < ctx->n_flows; k++) {
                ctx->flows[k]->n_packets += c.d_packets[k] + g.d_packets[k];
                ctx->flows[k]->n_bytes += c.d_bytes[k] + g.d_bytes[k];
            }
            xc_compare(ctx, &st, frame, &c, &g, &cov, &why);

            snprintf(what, sizeof what, "%s@%s", frame->spec->name,
                     xc_layouts[l].name);
            xc_report(ctx, phase, what, &why);
            if (ctx->verbose) {
                printf("    compiled %s, %"PRIu32" bytes, hit %s; generic "
                       "%s\n", xc_verdict_name(c.verdict), c.size,
                       c.hit >= 0 ? ctx->flows[c.hit]->name : "none",
                       xc_verdict_name(g.verdict));
            }
            ds_clear(&why);
            xc_run_destroy(&c);
            xc_run_destroy(&g);
        }
    }
    if (ctx->n_ring_lost) {
        ds_put_format(&why, "\n    the upcall rings lost %"PRIu64" samples",
                      ctx->n_ring_lost);
        xc_report(ctx, phase, "rings", &why);
        ds_clear(&why);
        ctx->n_ring_lost = 0;
    }

    xc_check_cmaps(ctx, phase, &st);
    xc_check_flow_stats(ctx, phase);
    if (want) {
        if (want & XC_WANT_CSUB && !cov.csub_hits) {
            ds_put_cstr(&why, "\n    no hit found by a compiled lookup");
        }
        if (want & XC_WANT_FALLBACK && !cov.fallback_hits) {
            ds_put_cstr(&why, "\n    no hit found by the fallback");
        }
        if (want & XC_WANT_SLOW && !cov.slow_paths) {
            ds_put_cstr(&why, "\n    no packet handed to ovs-vswitchd for "
                        "want of action code");
        }
        xc_report(ctx, phase, "coverage", &why);
    }
    ds_destroy(&why);
}

/* What a compile must have produced. */
struct xc_cfg_expect {
    int parse_l4;               /* 0 or 1, or -1 for whatever the table
                                 * needs (always checked against it). */
    bool full_key;              /* A subtable looked up by the full key? */
    bool compact_max;           /* A compact key of the most words? */
    uint32_t absent_bits;       /* Action bits the program must lack. */
};

/* Compiles the table and checks the configuration against it. */
static void
xc_compile(struct xc_ctx *ctx, const char *phase,
           const struct xc_cfg_expect *exp)
{
    struct ds why = DS_EMPTY_INITIALIZER;
    struct ds reply = DS_EMPTY_INITIALIZER;
    struct dp_xdp *dp = ctx->dp;
    struct xdp_dp_cfg cfg;
    int error;

    error = dp_xdp_compile_now(dp, &reply);
    if (error) {
        ds_put_format(&why, "\n    compile failed (%s): %s",
                      ovs_strerror(error), ds_cstr(&reply));
    }
    ds_destroy(&reply);

    xc_refresh_flows(ctx, &why);
    dp_xdp_compile_get_cfg(dp, &cfg);
    ovs_mutex_lock(&dp->flow_mutex);
    bool live_compiled = dp->live_compiled;
    uint32_t live_action_bits = dp->live_action_bits;
    ovs_mutex_unlock(&dp->flow_mutex);
    if (!cfg.enabled || !live_compiled) {
        ds_put_format(&why, "\n    the running program is not compiled "
                      "(configuration %s, datapath says %s)",
                      cfg.enabled ? "enabled" : "generic",
                      live_compiled ? "compiled" : "generic");
    } else if (live_action_bits != cfg.action_bits) {
        ds_put_format(&why, "\n    the running program has code for "
                      "actions %#"PRIx32", its configuration says %#"PRIx32,
                      live_action_bits, cfg.action_bits);
    }

    /* One compiled subtable per mask in use, each with its mask. */
    bool seen[XDP_DP_MAX_MASKS] = { false };
    uint32_t action_bits = 0;
    bool needs_l4 = false, full_key = false, compact_max = false;
    size_t n_masks = 0;

    for (size_t i = 0; i < ctx->n_flows; i++) {
        const struct xc_flow *f = ctx->flows[i];

        if (f->mask_slot >= 0 && !seen[f->mask_slot]) {
            seen[f->mask_slot] = true;
            n_masks++;
        }
        if (f->mask_slot >= 0) {
            action_bits |= f->action_bits;
        }
    }
    ovs_mutex_lock(&dp->flow_mutex);
    if (dp->n_masks != n_masks) {
        ds_put_format(&why, "\n    the datapath has %"PRIu32" masks, the "
                      "table %"PRIuSIZE, dp->n_masks, n_masks);
    }
    if (cfg.n_csubs != n_masks) {
        ds_put_format(&why, "\n    %"PRIu32" compiled subtables for %"PRIuSIZE
                      " masks in use", cfg.n_csubs, n_masks);
    }
    for (uint32_t i = 0; i < cfg.n_csubs && i < XDP_DP_MAX_CSUBS; i++) {
        const struct xdp_dp_csub *cs = &cfg.csubs[i];
        const struct dp_xdp_mask *m;

        if (cs->slot >= XDP_DP_MAX_MASKS || !seen[cs->slot]) {
            ds_put_format(&why, "\n    compiled subtable %"PRIu32" is slot "
                          "%"PRIu32", which no flow uses (or twice)", i + 1,
                          cs->slot);
            continue;
        }
        seen[cs->slot] = false;
        m = &dp->masks[cs->slot];
        if (!xc_csub_is_mask(cs, &m->mask)) {
            ds_put_format(&why, "\n    compiled subtable %"PRIu32" (slot "
                          "%"PRIu32") does not have its mask's words",
                          i + 1, cs->slot);
        }
        uint32_t want_ckey = xdp_compile_ckey_words(cs->n_words);
        if (cs->ckey_words != want_ckey) {
            ds_put_format(&why, "\n    compiled subtable %"PRIu32" has "
                          "%"PRIu32" key words but a compact key of %"PRIu32,
                          i + 1, cs->n_words, cs->ckey_words);
        }
        full_key |= !cs->ckey_words;
        compact_max |= cs->ckey_words == XDP_DP_CKEY_MAX_WORDS;

        const uint8_t *mb = (const uint8_t *) &m->mask;
        for (size_t b = offsetof(struct xdp_flow_key, nd_target);
             b < sizeof m->mask; b++) {
            needs_l4 |= mb[b] != 0;
        }
    }
    ovs_mutex_unlock(&dp->flow_mutex);
    for (int slot = 0; slot < XDP_DP_MAX_MASKS; slot++) {
        if (seen[slot]) {
            ds_put_format(&why, "\n    subtable slot %d is in use but not "
                          "compiled", slot);
        }
    }

    if (cfg.parse_l4 != needs_l4) {
        ds_put_format(&why, "\n    parse_l4 %"PRIu32", but %s mask needs "
                      "the transport layer", cfg.parse_l4,
                      needs_l4 ? "a" : "no");
    }
    if (exp->parse_l4 >= 0 && needs_l4 != exp->parse_l4) {
        ds_put_format(&why, "\n    table error: the table should%s need "
                      "the transport layer", exp->parse_l4 ? "" : " not");
    }
    if (cfg.action_bits != action_bits) {
        ds_put_format(&why, "\n    code for actions %#"PRIx32", the flows "
                      "use %#"PRIx32, cfg.action_bits, action_bits);
    }
    if (cfg.action_bits & exp->absent_bits) {
        ds_put_format(&why, "\n    table error: the program has code for "
                      "%#"PRIx32", which later flows must lack",
                      cfg.action_bits & exp->absent_bits);
    }
    if (exp->full_key && !full_key) {
        ds_put_cstr(&why, "\n    table error: no subtable looked up by the "
                    "full key");
    }
    if (exp->compact_max && !compact_max) {
        ds_put_format(&why, "\n    table error: no compact key of %d words",
                      XDP_DP_CKEY_MAX_WORDS);
    }
    xc_report(ctx, phase, "compile", &why);
    ds_destroy(&why);
}

/* Handcrafted phases. */

/* A flow of a handcrafted phase. */
struct xc_flow_spec {
    const char *name;
    const char *frame;          /* Whose fields make the key. */
    const char *tmpl;           /* Which of them (xc_templates). */
    const char *actions;        /* ODP actions. */
    bool decoy;                 /* Key changed so that 'frame' misses. */
    int bulk;                   /* So many flows NAME-N, with IPv4
                                 * destinations XC_BULK_PREFIX + N. */
};

/* Installs the flows of 'specs' ('n' of them); reports failures (a table
 * error, or a refused flow) as check 'phase'/"table". */
static void
xc_put_specs(struct xc_ctx *ctx, const char *phase,
             const struct xc_flow_spec *specs, size_t n)
{
    struct ds why = DS_EMPTY_INITIALIZER;
    struct xc_flow **flows = NULL;
    size_t n_flows = 0, allocated = 0;

    for (size_t i = 0; i < n; i++) {
        const struct xc_flow_spec *s = &specs[i];
        const struct xc_frame *frame = xc_find_frame(ctx, s->frame);
        const struct xc_template *t = xc_find_template(s->tmpl);
        int n_bulk = s->bulk ? s->bulk : 1;

        for (int k = 0; k < n_bulk; k++) {
            char *name = (s->bulk ? xasprintf("%s-%d", s->name, k)
                          : xstrdup(s->name));
            struct xc_flow *f = xc_flow_make(ctx, name, frame, t, s->actions,
                                             s->decoy, s->bulk ? k : -1,
                                             &why);
            const struct xc_flow *o = f ? xc_find_overlap(ctx, f) : NULL;

            for (size_t j = 0; f && !o && j < n_flows; j++) {
                if (xc_overlap(&f->match, &flows[j]->match)) {
                    o = flows[j];
                }
            }
            if (o) {
                ds_put_format(&why, "\n    table error: %s overlaps %s",
                              name, o->name);
                xc_flow_free(f);
            } else if (f) {
                if (n_flows >= allocated) {
                    flows = x2nrealloc(flows, &allocated, sizeof *flows);
                }
                flows[n_flows++] = f;
            }
            free(name);
        }
    }
    xc_put_flows(ctx, flows, n_flows, false, &why);
    free(flows);
    if (why.length) {
        xc_report(ctx, phase, "table", &why);
    }
    ds_destroy(&why);
}

/* Changes the actions of the installed flow 'name' in place. */
static void
xc_modify(struct xc_ctx *ctx, const char *phase, const char *name,
          const char *actions)
{
    struct ds why = DS_EMPTY_INITIALIZER;
    struct xc_flow *f = xc_find_flow(ctx, name, NULL);

    if (!f) {
        ds_put_format(&why, "\n    no flow %s to modify", name);
    } else if (!xc_flow_set_actions(f, actions)) {
        ds_put_format(&why, "\n    %s: bad actions %s", name, actions);
    } else {
        xc_put_flows(ctx, &f, 1, true, &why);
    }
    if (why.length) {
        xc_report(ctx, phase, "table", &why);
    }
    ds_destroy(&why);
}

static void
xc_delete(struct xc_ctx *ctx, const char *phase, const char *const *names)
{
    struct ds why = DS_EMPTY_INITIALIZER;

    xc_del_named(ctx, names, &why);
    if (why.length) {
        xc_report(ctx, phase, "table", &why);
    }
    ds_destroy(&why);
}

/* Deletes every flow whose mask needs the transport layer. */
static void
xc_delete_l4(struct xc_ctx *ctx, const char *phase)
{
    struct ds why = DS_EMPTY_INITIALIZER;
    size_t *idx = xmalloc(MAX(ctx->n_flows, 1) * sizeof *idx);
    size_t n = 0;

    xc_refresh_flows(ctx, &why);
    ovs_mutex_lock(&ctx->dp->flow_mutex);
    for (size_t i = 0; i < ctx->n_flows; i++) {
        int slot = ctx->flows[i]->mask_slot;
        const uint8_t *mb;

        if (slot < 0) {
            continue;
        }
        mb = (const uint8_t *) &ctx->dp->masks[slot].mask;
        for (size_t b = offsetof(struct xdp_flow_key, nd_target);
             b < sizeof(struct xdp_flow_key); b++) {
            if (mb[b]) {
                idx[n++] = i;
                break;
            }
        }
    }
    ovs_mutex_unlock(&ctx->dp->flow_mutex);
    xc_del_flows(ctx, idx, n, &why);
    free(idx);
    if (why.length) {
        xc_report(ctx, phase, "table", &why);
    }
    ds_destroy(&why);
}

static void
xc_quarantine(void)
{
    xnanosleep(XC_QUARANTINE_MS * 1000 * 1000);
}

#define XC_BIT(TYPE) (1u << (TYPE))

/* The table part: see the comment at the top of the file. */
static void
do_table(struct xc_ctx *ctx)
{
    /* 1. No transport-layer mask; actions: output, set eth, push_vlan,
     *    set ipv4.  Masks of 5 to 17 32-bit key words: compact keys up to
     *    the largest (XDP_DP_CKEY_MAX_WORDS) and full keys. */
    static const struct xc_flow_spec table1[] = {
        { "p1-udp4", "udp4", "ip4-dst32-proto", "2", false, 0 },
        { "p1-tcp4", "tcp4-syn", "ip4-dst32-proto",
          "set(eth(dst=02:00:00:00:00:bb)),3", false, 0 },
        { "p1-udp4b", "udp4-b", "ip4-dst32-proto",
          "push_vlan(vid=7,pcp=1),4", false, 0 },
        { "p1-frag-first", "frag4-first", "ip4-dst32-proto",
          "set(ipv4(ttl=9)),2", false, 0 },
        { "p1-frag-later", "frag4-later", "ip4-dst32-proto", "drop",
          false, 0 },
        { "p1-decoy-dst", "udp4", "ip4-dst32-proto", "5", true, 0 },
        { "p1-icmp-ttl", "icmp4", "ip4-ttl", "set(ipv4(src=10.9.9.9)),2",
          false, 0 },
        { "p1-tos", "udp4-tos", "ip4-tos", "5", false, 0 },
        { "p1-src16", "tcp4-b", "ip4-src16-dst24",
          "set(ipv4(dst=10.7.7.7)),4", false, 0 },
        { "p1-l2", "eth-other", "l2", "3", false, 0 },
        { "p1-oui", "llc-802.2", "l2-oui",
          "set(eth(src=02:00:00:00:00:ab)),3", false, 0 },
        { "p1-vlan100", "vlan-udp4", "vlan", "2", false, 0 },
        { "p1-vlan200", "vlan-tcp4", "vlan",
          "set(eth(src=02:00:00:00:00:cc)),4", false, 0 },
        { "p1-qinq", "qinq-udp4", "vlan", "drop", false, 0 },
        { "p1-arp-req", "arp-req", "arp", "2", false, 0 },
        { "p1-arp-reply", "arp-reply", "arp", "5", false, 0 },
        { "p1-ip6-full", "udp6", "ip6-full", "3", false, 0 },
        { "p1-ip6-full-b", "tcp6", "ip6-full-label",
          "set(eth(dst=02:00:00:00:00:dd)),2", false, 0 },
        { "p1-ip6-pair", "udp6-b", "ip6-pair", "4", false, 0 },
        { "p1-ip6-src64", "udp6-c", "ip6-src64", "2", false, 0 },
        { "p1-ip6-dst", "nd-ns", "ip6-dst", "4", false, 0 },
        { "p1-port2", "udp4", "in_port", "drop", true, 0 },
    };
    /* 2. Without a recompile: new flows of compiled masks (more than a
     *    compact map holds, among them), new masks (transport-layer ones),
     *    new action types (pop_vlan, set L4 ports, several outputs), and
     *    actions changed in place. */
    static const struct xc_flow_spec table2[] = {
        { "p2-bulk", "udp4", "ip4-dst32-proto", "2", false, 1100 },
        { "p2-udp4d", "udp4-d", "ip4-dst32-proto", "set(udp(src=7777)),3",
          false, 0 },
        { "p2-trunc", "ipv4-trunc10", "ip4-dst32-proto", "2", false, 0 },
        { "p2-vlan-arp", "vlan-arp", "vlan", "3", false, 0 },
        { "p2-vlan300", "vlan-udp6", "vlan", "pop_vlan,2", false, 0 },
        { "p2-ip6-full-c", "icmp6-echo", "ip6-full", "2,4", false, 0 },
        { "p2-icmp-unreach", "icmp4-unreach", "icmp4", "pop_vlan,2",
          false, 0 },
        { "p2-tcpflags", "tcp4-c", "ip4-tcpflags", "set(tcp(dst=2022)),2",
          false, 0 },
        { "p2-tpdst", "udp4-e", "ip4-tpdst", "4", false, 0 },
        { "p2-arp-sha", "arp-req-b", "arp-sha", "2,3", false, 0 },
        { "p2-nd-na", "nd-na", "nd", "3", false, 0 },
        { "p2-ip6-tp", "tcp6-b", "ip6-src64-tp", "4", false, 0 },
    };
    static const char *const del3[] = {
        "p1-tcp4", "p1-vlan200", "p1-arp-req", "p1-arp-reply",
        "p1-ip6-full", "p1-ip6-full-b", "p2-ip6-full-c", "p2-icmp-unreach",
        "p2-bulk-*", NULL,
    };
    /* 3. After deletes: a mask that had gone comes back (while the
     *    program still compiles it), new masks, a deleted flow's key back
     *    with other actions. */
    static const struct xc_flow_spec table3[] = {
        { "p3-arp-req", "arp-req", "arp", "3", false, 0 },
        { "p3-tcp4", "tcp4-ack", "ip4-dst32-proto", "6", false, 0 },
        { "p3-ip6-label", "tcp6-c", "ip6-label",
          "set(eth(dst=02:00:00:00:00:01)),5", false, 0 },
        { "p3-ip6-full-tp", "udp6", "ip6-full-tp", "2", false, 0 },
    };
    /* 6. A wide mask: the input port and the Ethertype only (with what
     *    every megaflow matches: no VLAN, not a fragment). */
    static const struct xc_flow_spec table6[] = {
        { "p6-any-ip4", "udp4", "in_port", "set(eth(src=02:00:00:00:00:99)),4",
          false, 0 },
    };
    /* 8. Into the program compiled for the empty table: flows whose every
     *    action, output included, it has no code for, and a drop flow. */
    static const struct xc_flow_spec table8[] = {
        { "p8-udp4", "udp4", "ip4-dst32-proto", "2", false, 0 },
        { "p8-arp", "arp-req", "arp", "drop", false, 0 },
        { "p8-nd", "nd-ns", "ip6-dst", "set(eth(src=02:00:00:00:00:99)),3",
          false, 0 },
    };
    const uint32_t new_bits = (XC_BIT(XDP_DP_ACTION_POP_VLAN)
                               | XC_BIT(XDP_DP_ACTION_SET_L4_PORTS)
                               | XDP_DP_ACTION_F_OUTPUTS);
    struct ds why = DS_EMPTY_INITIALIZER;

    xc_put_specs(ctx, "1.compiled", table1, ARRAY_SIZE(table1));

    /* 0. Before any compile, both programs are generic: everything must be
     *    alike, n_mask_hit and n_fallback too. */
    xc_phase(ctx, "0.generic", 0);

    xc_compile(ctx, "1.compiled", &(struct xc_cfg_expect) {
                   .parse_l4 = 0, .full_key = true, .compact_max = true,
                   .absent_bits = new_bits });
    xc_phase(ctx, "1.compiled", XC_WANT_CSUB);

    xc_put_specs(ctx, "2.added", table2, ARRAY_SIZE(table2));
    xc_modify(ctx, "2.added", "p1-arp-reply", "2,5");
    xc_modify(ctx, "2.added", "p1-udp4b", "push_vlan(vid=8,pcp=0),2");
    xc_modify(ctx, "2.added", "p1-vlan100", "userspace(pid=99)");
    xc_phase(ctx, "2.added", XC_WANT_CSUB | XC_WANT_FALLBACK | XC_WANT_SLOW);

    xc_delete(ctx, "3.deleted", del3);
    xc_phase(ctx, "3.deleted", XC_WANT_CSUB | XC_WANT_FALLBACK
                               | XC_WANT_SLOW);

    xc_quarantine();
    xc_put_specs(ctx, "3.readded", table3, ARRAY_SIZE(table3));
    xc_phase(ctx, "3.readded", XC_WANT_CSUB | XC_WANT_FALLBACK);

    xc_compile(ctx, "4.recompiled", &(struct xc_cfg_expect) {
                   .parse_l4 = 1, .full_key = true });
    xc_phase(ctx, "4.recompiled", XC_WANT_CSUB);

    xc_delete_l4(ctx, "5.l4-gone");
    xc_quarantine();
    xc_compile(ctx, "5.l4-gone", &(struct xc_cfg_expect) { .parse_l4 = 0 });
    xc_phase(ctx, "5.l4-gone", XC_WANT_CSUB);

    xc_del_all(ctx, &why);
    xc_quarantine();
    xc_put_specs(ctx, "6.wide", table6, ARRAY_SIZE(table6));
    xc_compile(ctx, "6.wide", &(struct xc_cfg_expect) { .parse_l4 = 0 });
    xc_phase(ctx, "6.wide", XC_WANT_CSUB);

    xc_del_all(ctx, &why);
    xc_quarantine();
    xc_compile(ctx, "7.empty", &(struct xc_cfg_expect) { .parse_l4 = 0 });
    xc_phase(ctx, "7.empty", 0);

    xc_put_specs(ctx, "8.after-empty", table8, ARRAY_SIZE(table8));
    xc_phase(ctx, "8.after-empty", XC_WANT_FALLBACK | XC_WANT_SLOW);
    xc_del_all(ctx, &why);
    xc_quarantine();

    if (why.length) {
        xc_report(ctx, "8.after-empty", "table", &why);
    }
    ds_destroy(&why);
}

/* Random tables. */

/* Tries 'attempts' times to add a flow made of a random frame, a random
 * template among those allowed ('l4': transport-layer ones too) and random
 * actions from 'actions' ('n_actions' of them); keeps those that overlap
 * no flow and that the datapath takes. */
static void
xc_random_add(struct xc_ctx *ctx, const char *phase, int round, int attempts,
              bool l4, const char *const *actions, size_t n_actions,
              bool existing_masks)
{
    struct ds why = DS_EMPTY_INITIALIZER;
    struct ds ignored = DS_EMPTY_INITIALIZER;
    struct xc_flow **flows = xmalloc(attempts * sizeof *flows);
    size_t n = 0;

    for (int a = 0; a < attempts; a++) {
        const struct xc_frame *frame
            = &ctx->frames[random_range(ctx->n_frames)];
        const struct xc_template *t
            = &xc_templates[random_range(ARRAY_SIZE(xc_templates))];
        const char *act = actions[random_range(n_actions)];
        bool decoy = random_range(3) == 0;
        char *name;

        if (existing_masks && ctx->n_flows) {
            /* Another key for a mask in use, likely: the template of a
             * flow that is there, with another frame. */
            const struct xc_flow *f = ctx->flows[random_range(ctx->n_flows)];
            char tname[64];

            if (sscanf(f->name, "r%*d-%*[^-]-%*d-%63[^@]", tname) != 1) {
                continue;
            }
            t = xc_find_template(tname);
        }
        if (!xc_template_applies(t, &frame->flow)
            || (!l4 && (t->fields & (XC_M_TP_SRC | XC_M_TP_DST
                                     | XC_M_TCP_FLAGS | XC_M_ND_TARGET
                                     | XC_M_ARP_SHA)))) {
            continue;
        }
        name = xasprintf("r%d-%s-%d-%s@%s", round, phase, a, t->name,
                         frame->spec->name);
        struct xc_flow *f = xc_flow_make(ctx, name, frame, t, act, decoy, -1,
                                         &ignored);
        bool overlaps = f && xc_find_overlap(ctx, f);
        for (size_t j = 0; f && !overlaps && j < n; j++) {
            overlaps = xc_overlap(&f->match, &flows[j]->match);
        }
        if (f && !overlaps) {
            flows[n++] = f;
        } else {
            xc_flow_free(f);
        }
        free(name);
    }
    xc_put_flows(ctx, flows, n, false, &why);
    free(flows);
    ds_destroy(&ignored);
    if (why.length) {
        xc_report(ctx, phase, "table", &why);
    }
    ds_destroy(&why);
}

static void
do_random(struct xc_ctx *ctx, uint32_t seed, int rounds)
{
    struct ds why = DS_EMPTY_INITIALIZER;

    printf("seed %"PRIu32"\n", seed);
    random_set_seed(seed);
    for (int r = 1; r <= rounds; r++) {
        char phase[32];

        /* Odd rounds start without transport-layer masks.  The new table
         * runs first in the program compiled for the last one, whose flows
         * are gone (after the first round). */
        snprintf(phase, sizeof phase, "r%d.new", r);
        xc_random_add(ctx, "a", r, 200, !(r % 2), xc_base_actions,
                      ARRAY_SIZE(xc_base_actions), false);
        xc_phase(ctx, phase, 0);

        snprintf(phase, sizeof phase, "r%d.compiled", r);
        xc_compile(ctx, phase, &(struct xc_cfg_expect) {
                       .parse_l4 = r % 2 ? 0 : -1 });
        xc_phase(ctx, phase, XC_WANT_CSUB);

        snprintf(phase, sizeof phase, "r%d.added", r);
        const char **all = xmalloc((ARRAY_SIZE(xc_base_actions)
                                    + ARRAY_SIZE(xc_more_actions))
                                   * sizeof *all);
        size_t n_all = 0;
        for (size_t i = 0; i < ARRAY_SIZE(xc_base_actions); i++) {
            all[n_all++] = xc_base_actions[i];
        }
        for (size_t i = 0; i < ARRAY_SIZE(xc_more_actions); i++) {
            all[n_all++] = xc_more_actions[i];
        }
        xc_random_add(ctx, "b", r, 100, true, all, n_all, false);
        xc_random_add(ctx, "c", r, 50, true, all, n_all, true);
        free(all);
        xc_phase(ctx, phase, 0);

        snprintf(phase, sizeof phase, "r%d.deleted", r);
        size_t *idx = xmalloc(MAX(ctx->n_flows, 1) * sizeof *idx);
        size_t n = 0;
        for (size_t i = 0; i < ctx->n_flows; i++) {
            if (random_range(2)) {
                idx[n++] = i;
            }
        }
        xc_del_flows(ctx, idx, n, &why);
        free(idx);
        xc_phase(ctx, phase, 0);

        snprintf(phase, sizeof phase, "r%d.recompiled", r);
        xc_compile(ctx, phase, &(struct xc_cfg_expect) { .parse_l4 = -1 });
        xc_phase(ctx, phase, 0);

        xc_del_all(ctx, &why);
        xc_quarantine();
    }
    if (why.length) {
        xc_report(ctx, "random", "table", &why);
    }
    ds_destroy(&why);
}

/* Setting up. */

static void
xc_open(struct xc_ctx *ctx)
{
    char name[32];
    int error;

    dp_register_provider(&dpif_xdp_class);
    snprintf(name, sizeof name, "xdpcmp%ld", (long) getpid());
    error = dpif_create_and_open(name, "xdp", &ctx->dpif);
    if (error) {
        ovs_fatal(error, "cannot create datapath %s", name);
    }
    ctx->dp = dp_xdp_from_dpif(ctx->dpif);
    dp_xdp_compile_set_auto(ctx->dp, false);

    uint32_t port_no = XC_IN_PORT;
    xc_map_update(ctx->dp->skel->maps.xdp_dp_in_ports, &ctx->lo_ifindex,
                  &port_no);

    error = dp_xdp_load_program(ctx->dp, NULL, &ctx->generic);
    if (error) {
        ovs_fatal(error, "cannot load a generic program");
    }

    /* Our own reader of the upcall rings: perf_buffer__new() puts its
     * rings in the map's slots, in place of the datapath's, so that the
     * samples come to us (no handler thread reads the datapath's). */
    ctx->pb_map_fd = dup(bpf_map__fd(ctx->dp->skel->maps.xdp_dp_upcalls));
    if (ctx->pb_map_fd < 0) {
        ovs_fatal(errno, "dup");
    }
    ctx->pb = perf_buffer__new(ctx->pb_map_fd, 16, xc_on_sample, xc_on_lost,
                               ctx, NULL);
    if (!ctx->pb) {
        ovs_fatal(errno, "cannot read the upcall rings");
    }
}

static void
xc_close(struct xc_ctx *ctx)
{
    struct ds why = DS_EMPTY_INITIALIZER;

    xc_del_all(ctx, &why);
    ds_destroy(&why);
    perf_buffer__free(ctx->pb);
    close(ctx->pb_map_fd);
    xdp_dp__destroy(ctx->generic);
    dpif_delete(ctx->dpif);
    dpif_close(ctx->dpif);
    free(ctx->flows);
    free(ctx->frames);
}

int
main(int argc, char *argv[])
{
    enum { OPT_SEED = UCHAR_MAX + 1, OPT_ROUNDS, OPT_NO_TABLE, OPT_SABOTAGE };
    static const struct option long_options[] = {
        { "seed", required_argument, NULL, OPT_SEED },
        { "rounds", required_argument, NULL, OPT_ROUNDS },
        { "no-table", no_argument, NULL, OPT_NO_TABLE },
        { "sabotage", no_argument, NULL, OPT_SABOTAGE },
        { "verbose", no_argument, NULL, 'v' },
        { NULL, 0, NULL, 0 },
    };
    struct xc_ctx ctx;
    uint32_t seed = 1;
    int rounds = 4;
    bool table = true;

    set_program_name(argv[0]);
    vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_WARN);
    memset(&ctx, 0, sizeof ctx);
    for (;;) {
        int c = getopt_long(argc, argv, "v", long_options, NULL);

        if (c == -1) {
            break;
        }
        switch (c) {
        case OPT_SEED:
            seed = strtoul(optarg, NULL, 10);
            break;
        case OPT_ROUNDS:
            rounds = atoi(optarg);
            break;
        case OPT_NO_TABLE:
            table = false;
            break;
        case OPT_SABOTAGE:
            ctx.sabotage = true;
            break;
        case 'v':
            ctx.verbose = true;
            break;
        default:
            ovs_fatal(0, "usage: %s [-v] [--seed=N] [--rounds=N] "
                      "[--no-table] [--sabotage]", program_name);
        }
    }
    if (optind != argc) {
        ovs_fatal(0, "no arguments expected");
    }

    ctx.lo_ifindex = if_nametoindex("lo");
    ctx.n_frames = ARRAY_SIZE(xc_frame_specs);
    ctx.frames = xcalloc(ctx.n_frames, sizeof *ctx.frames);
    for (size_t i = 0; i < ctx.n_frames; i++) {
        xc_frame_init(&ctx.frames[i], &xc_frame_specs[i]);
    }

    xc_open(&ctx);
    if (table) {
        do_table(&ctx);
    }
    if (rounds > 0) {
        do_random(&ctx, seed, rounds);
    }
    xc_close(&ctx);

    printf("%d checks, %d failed\n", ctx.n_checks, ctx.n_failed);
    return ctx.n_failed ? 1 : 0;
}
