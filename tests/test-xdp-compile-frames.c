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

/* test-xdp-compile's frames, flows and table changes (test-xdp-compile.c
 * explains the test).
 *
 * The frame list is what every phase runs through both programs.  The
 * mask templates name the fields a flow matches: a flow is what OVS's
 * flow_extract() makes of a frame, masked as ofproto's translation would
 * mask it for the template, turned into an ODP key and mask, with ODP
 * actions.  The flows are installed, modified and deleted through
 * dpif_operate() in bursts, as ofproto-dpif does, and xc_refresh_flows()
 * reads back where the datapath put each (statistics slot, subtable, XDP
 * key).  The phases change the table with xc_put_specs() (handcrafted
 * flows), xc_random_add() (random ones), xc_modify(), xc_delete() and
 * xc_delete_l4(), which report a refused change or a table that breaks the
 * test's rules (overlapping megaflows) as check PHASE/table. */

#include <config.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "datapath/xdp-dp.h"
#include "dp-packet.h"
#include "dpif.h"
#include "flow.h"
#include "odp-util.h"
#include "ofproto-xdp/dpif-xdp-private.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/match.h"
#include "openvswitch/ofpbuf.h"
#include "packets.h"
#include "random.h"
#include "tests/test-xdp-compile.h"
#include "util.h"

/* The frames (see struct xc_frame_spec).  Unless said otherwise,
 * 02:00:00:00:00:01 sends to 02:00:00:00:00:02. */
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

/* Makes 'ctx->frames' of the frame list. */
void
xc_make_frames(struct xc_ctx *ctx)
{
    ctx->n_frames = ARRAY_SIZE(xc_frame_specs);
    ctx->frames = xcalloc(ctx->n_frames, sizeof *ctx->frames);
    for (size_t i = 0; i < ctx->n_frames; i++) {
        xc_frame_init(&ctx->frames[i], &xc_frame_specs[i]);
    }
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
void
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

void
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
void
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

/* Changes of the table for the phases.  Each reports what failed as check
 * 'phase'/"table". */

/* Installs the flows of 'specs' ('n' of them); reports failures (a table
 * error, or a refused flow) as check 'phase'/"table". */
void
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
void
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

void
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
void
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

/* Tries 'attempts' times to add a flow made of a random frame, a random
 * template among those allowed ('l4': transport-layer ones too) and random
 * actions from 'actions' ('n_actions' of them); keeps those that overlap
 * no flow and that the datapath takes. */
void
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
