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

/* test-xdp-parse [-v | --stdin]: proves that the XDP packet parser
 * (datapath/xdp-dp-parse.h) extracts the same flow key as Open vSwitch's
 * flow_extract().
 *
 * The program builds a table of frames: every protocol the parser knows,
 * VLAN and QinQ, LLC and SNAP, IPv4 options and fragments, IPv6 extension
 * headers and fragments, Neighbor Discovery with options, and truncated and
 * malformed variants at every layer.  It runs each frame with
 * BPF_PROG_TEST_RUN through the xdp_parse_test program and through
 * tc_parse_test, the same parser on an skb, as a TC program runs it, and
 * through flow_extract(); converts OVS's 'struct flow' with
 * xdp_flow_key_from_flow() and compares the keys byte for byte, and the
 * header offsets that they report (a difference names the parser).  It
 * prints "ok NAME" or "MISMATCH NAME: ..." naming each differing field, one
 * line per frame, then "N cases, M mismatches", and exits with status 1 if
 * M is not 0.  Frames shorter than an Ethernet header, which the kernel
 * does not pass to XDP, are reported as "skip NAME" and not counted.  With
 * -v it also prints OVS's flow for each frame.  With --stdin it runs the
 * frames read from stdin instead of its table, one a line in hex (as
 * "ovs-xdp-fuzz --dump-frames" writes them), and prints only the
 * mismatches, each named by its frame.  Needs CAP_BPF. */

#include <config.h>

#include <errno.h>
#include <netinet/icmp6.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/pkt_cls.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dp-packet.h"
#include "flow.h"
#include "openvswitch/dynamic-string.h"
#include "packets.h"
#include "util.h"

#include "datapath/xdp-dp.h"
#include "datapath/xdp-dp-parse.h"
#include "datapath/tc-parse-test.skel.h"
#include "datapath/xdp-parse-test.skel.h"
#include "ofproto-xdp/xdp-flow.h"

/* One frame of the table. */
struct parse_case {
    const char *name;           /* Printed in the report. */
    uint8_t data[2048];         /* The frame. */
    size_t size;                /* Bytes in 'data'. */
    bool incomplete;            /* Beyond the parser's loop limits: expect
                                 * XDP_PARSE_F_INCOMPLETE, not a match. */
    bool unknown;               /* Not known whether it is beyond them (a
                                 * frame from stdin): take the parser's
                                 * word for it. */
};

#define MAX_CASES 160
static struct parse_case cases[MAX_CASES];
static size_t n_cases;

/* Frame building.  Each put_*() appends to the case and returns the offset
 * at which it started, so that a caller can patch or measure it later. */

static struct parse_case *
case_new(const char *name)
{
    struct parse_case *c;

    ovs_assert(n_cases < MAX_CASES);
    c = &cases[n_cases++];
    c->name = name;
    c->size = 0;
    c->incomplete = false;
    return c;
}

static size_t
put(struct parse_case *c, const void *p, size_t n)
{
    size_t ofs = c->size;

    ovs_assert(c->size + n <= sizeof c->data);
    memcpy(&c->data[c->size], p, n);
    c->size += n;
    return ofs;
}

static size_t
put_u8(struct parse_case *c, uint8_t x)
{
    return put(c, &x, 1);
}

static size_t
put_be16(struct parse_case *c, uint16_t x)
{
    ovs_be16 be = htons(x);

    return put(c, &be, 2);
}

static size_t
put_be32(struct parse_case *c, uint32_t x)
{
    ovs_be32 be = htonl(x);

    return put(c, &be, 4);
}

/* Appends 'n' bytes of 0xab, or zeros if 'zero'. */
static size_t
put_fill(struct parse_case *c, size_t n, bool zero)
{
    size_t ofs = c->size;

    ovs_assert(c->size + n <= sizeof c->data);
    memset(&c->data[c->size], zero ? 0 : 0xab, n);
    c->size += n;
    return ofs;
}

static void
set_be16(struct parse_case *c, size_t ofs, uint16_t x)
{
    c->data[ofs] = x >> 8;
    c->data[ofs + 1] = x;
}

static const uint8_t mac_dst[6] = { 0x50, 0x54, 0x00, 0x00, 0x00, 0x0a };
static const uint8_t mac_src[6] = { 0x50, 0x54, 0x00, 0x00, 0x00, 0x0b };
static const uint8_t mac_a[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const uint8_t mac_b[6] = { 0x02, 0x66, 0x77, 0x88, 0x99, 0xaa };
static const uint8_t mac_zero[6];

/* Ethernet addresses; the Ethertype and any tags follow separately. */
static size_t
put_macs(struct parse_case *c)
{
    size_t ofs = put(c, mac_dst, 6);

    put(c, mac_src, 6);
    return ofs;
}

/* Ethernet header with Ethertype 'type'. */
static size_t
put_eth(struct parse_case *c, uint16_t type)
{
    size_t ofs = put_macs(c);

    put_be16(c, type);
    return ofs;
}

/* A VLAN tag: TPID and TCI; the next Ethertype follows separately. */
static size_t
put_vlan(struct parse_case *c, uint16_t tpid, uint16_t tci)
{
    size_t ofs = put_be16(c, tpid);

    put_be16(c, tci);
    return ofs;
}

/* 802.2 LLC with SNAP: DSAP, SSAP, control, OUI and type. */
static size_t
put_snap(struct parse_case *c, uint32_t oui, uint16_t type)
{
    size_t ofs = put_u8(c, 0xaa);

    put_u8(c, 0xaa);
    put_u8(c, 0x03);
    put_u8(c, oui >> 16);
    put_u8(c, oui >> 8);
    put_u8(c, oui);
    put_be16(c, type);
    return ofs;
}

/* An IPv4 header of 'ihl' 32-bit words (NOP options past the first 5).
 * The total length is set by ipv4_end(). */
static size_t
put_ipv4(struct parse_case *c, uint8_t proto, uint16_t frag_off, int ihl)
{
    size_t ofs = put_u8(c, 0x40 | ihl);

    put_u8(c, 0xb9);                /* DSCP 46, ECN 1. */
    put_be16(c, 0);                 /* Total length, see ipv4_end(). */
    put_be16(c, 0x1234);            /* Identification. */
    put_be16(c, frag_off);
    put_u8(c, 64);                  /* TTL. */
    put_u8(c, proto);
    put_be16(c, 0);                 /* Checksum: OVS does not check it. */
    put_be32(c, 0xc0000201);        /* 192.0.2.1. */
    put_be32(c, 0xc6336402);        /* 198.51.100.2. */
    for (int i = 5; i < ihl; i++) {
        put_be32(c, 0x01010101);    /* NOP options. */
    }
    return ofs;
}

/* Sets the total length of the IPv4 header at 'ip' to the end of the
 * frame. */
static void
ipv4_end(struct parse_case *c, size_t ip)
{
    set_be16(c, ip + 2, c->size - ip);
}

/* An IPv6 header with traffic class 0xa5 and flow label 0x12345.  The
 * payload length is set by ipv6_end(). */
static size_t
put_ipv6(struct parse_case *c, uint8_t nxt)
{
    static const uint8_t src[16] = {
        0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11,
    };
    static const uint8_t dst[16] = {
        0x20, 0x01, 0x0d, 0xb8, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x22,
    };
    size_t ofs = put_be32(c, 0x6a512345);

    put_be16(c, 0);                 /* Payload length, see ipv6_end(). */
    put_u8(c, nxt);
    put_u8(c, 63);                  /* Hop limit. */
    put(c, src, 16);
    put(c, dst, 16);
    return ofs;
}

/* Sets the payload length of the IPv6 header at 'ip' to the end of the
 * frame. */
static void
ipv6_end(struct parse_case *c, size_t ip)
{
    set_be16(c, ip + 4, c->size - ip - 40);
}

/* A hop-by-hop, routing or destination options header of (len + 1) * 8
 * bytes, its options Pad1. */
static size_t
put_ipv6_opts(struct parse_case *c, uint8_t nxt, uint8_t len)
{
    size_t ofs = put_u8(c, nxt);

    put_u8(c, len);
    put_fill(c, (len + 1) * 8 - 2, true);
    return ofs;
}

/* An AH header of (len + 2) * 4 bytes. */
static size_t
put_ah(struct parse_case *c, uint8_t nxt, uint8_t len)
{
    size_t ofs = put_u8(c, nxt);

    put_u8(c, len);
    put_be16(c, 0);                 /* Reserved. */
    put_be32(c, 0x100);             /* SPI. */
    put_be32(c, 1);                 /* Sequence number. */
    put_fill(c, (len + 2) * 4 - 12, false); /* ICV. */
    return ofs;
}

/* An IPv6 fragment header; 'offlg' is offset, reserved bits and M. */
static size_t
put_frag6(struct parse_case *c, uint8_t nxt, uint16_t offlg)
{
    size_t ofs = put_u8(c, nxt);

    put_u8(c, 0);
    put_be16(c, offlg);
    put_be32(c, 0xdeadbeef);
    return ofs;
}

/* A TCP header of 'doff' 32-bit words with 'flags' in the low 12 bits of
 * the data offset word. */
static size_t
put_tcp(struct parse_case *c, uint16_t src, uint16_t dst, uint16_t flags,
        int doff)
{
    size_t ofs = put_be16(c, src);

    put_be16(c, dst);
    put_be32(c, 0x01020304);        /* Sequence number. */
    put_be32(c, 0x05060708);        /* Acknowledgment number. */
    put_be16(c, (doff << 12) | flags);
    put_be16(c, 0xffff);            /* Window. */
    put_be16(c, 0);                 /* Checksum. */
    put_be16(c, 0);                 /* Urgent pointer. */
    put_fill(c, doff > 5 ? (doff - 5) * 4 : 0, true);
    return ofs;
}

static size_t
put_udp(struct parse_case *c, uint16_t src, uint16_t dst)
{
    size_t ofs = put_be16(c, src);

    put_be16(c, dst);
    put_be16(c, 8);                 /* Length: OVS does not check it. */
    put_be16(c, 0);                 /* Checksum. */
    return ofs;
}

static size_t
put_sctp(struct parse_case *c, uint16_t src, uint16_t dst)
{
    size_t ofs = put_be16(c, src);

    put_be16(c, dst);
    put_be32(c, 0x11223344);        /* Verification tag. */
    put_be32(c, 0);                 /* Checksum. */
    return ofs;
}

/* The first 8 bytes of an ICMP, IGMP or ICMPv6 header: 'word' is the
 * rest of the header (echo id and sequence, IGMP group, ND flags). */
static size_t
put_icmp(struct parse_case *c, uint8_t type, uint8_t code, uint32_t word)
{
    size_t ofs = put_u8(c, type);

    put_u8(c, code);
    put_be16(c, 0);                 /* Checksum. */
    put_be32(c, word);
    return ofs;
}

/* An ND target address. */
static size_t
put_nd_target(struct parse_case *c)
{
    static const uint8_t target[16] = {
        0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xff, 0xfe, 0, 0, 0x77,
    };

    return put(c, target, 16);
}

/* An ND option of 'len' units of 8 bytes, starting with 'mac'. */
static size_t
put_nd_opt(struct parse_case *c, uint8_t type, uint8_t len,
           const uint8_t mac[6])
{
    size_t ofs = put_u8(c, type);

    put_u8(c, len);
    put(c, mac, 6);
    if (len > 1) {
        put_fill(c, (len - 1) * 8, true);
    }
    return ofs;
}

/* An ARP header for Ethernet and IPv4, with the given hardware type,
 * protocol type and address lengths (the addresses are always 6 and 4
 * bytes long). */
static size_t
put_arp(struct parse_case *c, uint16_t hrd, uint16_t pro, uint8_t hln,
        uint8_t pln, uint16_t op)
{
    size_t ofs = put_be16(c, hrd);

    put_be16(c, pro);
    put_u8(c, hln);
    put_u8(c, pln);
    put_be16(c, op);
    put(c, mac_a, 6);
    put_be32(c, 0xc0000201);
    put(c, mac_b, 6);
    put_be32(c, 0xc0000202);
    return ofs;
}

/* The cases. */

/* Ethernet, VLAN, LLC/SNAP and MPLS. */
static void
add_l2_cases(void)
{
    struct parse_case *c;
    size_t ip;

    c = case_new("eth-unknown-type");
    put_eth(c, 0x88b5);
    put_fill(c, 46, false);

    c = case_new("eth-short-13");
    put_eth(c, 0x0800);
    c->size = 13;

    c = case_new("eth-header-only-ipv4");
    put_eth(c, 0x0800);

    c = case_new("vlan-ipv4-udp");
    put_macs(c);
    put_vlan(c, 0x8100, 0x0123);
    put_be16(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_UDP, 0, 5);
    put_udp(c, 5353, 53);
    ipv4_end(c, ip);

    c = case_new("vlan-pcp-dei");
    put_macs(c);
    put_vlan(c, 0x8100, 0xf00a);
    put_be16(c, 0x88b5);
    put_fill(c, 42, false);

    c = case_new("qinq-88a8-8100-ipv4-tcp");
    put_macs(c);
    put_vlan(c, 0x88a8, 0x0064);
    put_vlan(c, 0x8100, 0x20c8);
    put_be16(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_TCP, 0, 5);
    put_tcp(c, 40000, 443, TCP_SYN, 5);
    ipv4_end(c, ip);

    c = case_new("vlan-three-tags");
    put_macs(c);
    put_vlan(c, 0x8100, 0x0001);
    put_vlan(c, 0x8100, 0x0002);
    put_vlan(c, 0x8100, 0x0003);
    put_be16(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_UDP, 0, 5);
    put_udp(c, 1, 2);
    ipv4_end(c, ip);

    c = case_new("vlan-truncated-tci");
    put_macs(c);
    put_vlan(c, 0x8100, 0x0123);

    c = case_new("vlan-no-inner-type");
    put_macs(c);
    put_vlan(c, 0x88a8, 0x0064);
    put_vlan(c, 0x8100, 0x00c8);

    c = case_new("llc-no-snap");
    put_eth(c, 0x0026);
    put_u8(c, 0x42);
    put_u8(c, 0x42);
    put_u8(c, 0x03);
    put_fill(c, 35, false);

    c = case_new("llc-short");
    put_eth(c, 0x0007);
    put_u8(c, 0xaa);
    put_u8(c, 0xaa);
    put_u8(c, 0x03);
    put_fill(c, 4, true);

    c = case_new("snap-ipv4-udp");
    put_eth(c, 0x0030);
    put_snap(c, 0, 0x0800);
    ip = put_ipv4(c, IPPROTO_UDP, 0, 5);
    put_udp(c, 67, 68);
    ipv4_end(c, ip);

    c = case_new("snap-nonzero-oui");
    put_eth(c, 0x0030);
    put_snap(c, 0x00000c, 0x2000);
    put_fill(c, 32, false);

    c = case_new("snap-type-is-length");
    put_eth(c, 0x0030);
    put_snap(c, 0, 0x0100);
    put_fill(c, 32, false);

    c = case_new("vlan-snap-arp");
    put_macs(c);
    put_vlan(c, 0x8100, 0x0005);
    put_be16(c, 0x0024);
    put_snap(c, 0, 0x0806);
    put_arp(c, 1, 0x0800, 6, 4, ARP_OP_REQUEST);

    c = case_new("mpls-ipv4");
    put_eth(c, 0x8847);
    put_be32(c, 0x00064140);        /* Label 100, TTL 64, not BoS. */
    put_be32(c, 0x000c8140);        /* Label 200, BoS. */
    ip = put_ipv4(c, IPPROTO_UDP, 0, 5);
    put_udp(c, 1, 2);
    ipv4_end(c, ip);
}

/* ARP and RARP. */
static void
add_arp_cases(void)
{
    struct parse_case *c;

    c = case_new("arp-request");
    put_eth(c, 0x0806);
    put_arp(c, 1, 0x0800, 6, 4, ARP_OP_REQUEST);
    put_fill(c, 18, true);

    c = case_new("arp-reply");
    put_eth(c, 0x0806);
    put_arp(c, 1, 0x0800, 6, 4, ARP_OP_REPLY);

    c = case_new("rarp-reply");
    put_eth(c, 0x8035);
    put_arp(c, 1, 0x0800, 6, 4, ARP_OP_RARP);

    c = case_new("arp-op-0x0101");
    put_eth(c, 0x0806);
    put_arp(c, 1, 0x0800, 6, 4, 0x0101);

    c = case_new("arp-hln-8");
    put_eth(c, 0x0806);
    put_arp(c, 1, 0x0800, 8, 4, ARP_OP_REQUEST);

    c = case_new("arp-hrd-ieee802");
    put_eth(c, 0x0806);
    put_arp(c, 6, 0x0800, 6, 4, ARP_OP_REQUEST);

    c = case_new("arp-pro-ipv6");
    put_eth(c, 0x0806);
    put_arp(c, 1, 0x86dd, 6, 4, ARP_OP_REQUEST);

    c = case_new("arp-truncated");
    put_eth(c, 0x0806);
    put_arp(c, 1, 0x0800, 6, 4, ARP_OP_REQUEST);
    c->size--;
}

/* IPv4 and what it carries. */
static void
add_ipv4_cases(void)
{
    struct parse_case *c;
    size_t ip, l4;

    c = case_new("ipv4-tcp-syn");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_TCP, 0, 5);
    put_tcp(c, 40000, 80, TCP_SYN, 5);
    ipv4_end(c, ip);

    c = case_new("ipv4-tcp-all-flag-bits");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_TCP, 0, 5);
    put_tcp(c, 40000, 80, 0x0fff, 5);
    ipv4_end(c, ip);

    c = case_new("ipv4-tcp-options-payload");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_TCP, 0, 5);
    put_tcp(c, 22, 51000, TCP_ACK | TCP_PSH, 8);
    put_fill(c, 100, false);
    ipv4_end(c, ip);

    c = case_new("ipv4-options-udp");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_UDP, 0, 7);
    put_udp(c, 520, 520);
    ipv4_end(c, ip);

    c = case_new("ipv4-max-ihl-udp");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_UDP, 0, 15);
    put_udp(c, 123, 123);
    ipv4_end(c, ip);

    c = case_new("ipv4-udp-l2-padding");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_UDP, 0, 5);
    put_udp(c, 1000, 2000);
    ipv4_end(c, ip);
    put_fill(c, 18, false);

    c = case_new("ipv4-sctp");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_SCTP, 0, 5);
    put_sctp(c, 2905, 2906);
    ipv4_end(c, ip);

    c = case_new("ipv4-icmp-echo");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_ICMP, 0, 5);
    put_icmp(c, ICMP4_ECHO_REQUEST, 0, 0x00010002);
    put_fill(c, 56, false);
    ipv4_end(c, ip);

    c = case_new("ipv4-icmp-unreachable");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_ICMP, 0, 5);
    put_icmp(c, ICMP4_DST_UNREACH, 3, 0);
    put_fill(c, 28, false);
    ipv4_end(c, ip);

    c = case_new("ipv4-igmp-v2-report");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_IGMP, 0, 6);
    put_icmp(c, 0x16, 0, 0xe0010203);
    ipv4_end(c, ip);

    c = case_new("ipv4-igmp-v3-query");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_IGMP, 0, 6);
    put_icmp(c, 0x11, 100, 0);
    put_be32(c, 0x02140000);        /* S, QRV, QQIC, no sources. */
    ipv4_end(c, ip);

    c = case_new("ipv4-frag-first");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_UDP, IP_MORE_FRAGMENTS, 5);
    put_udp(c, 4789, 4789);
    put_fill(c, 32, false);
    ipv4_end(c, ip);

    c = case_new("ipv4-frag-later");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_UDP, IP_MORE_FRAGMENTS | 185, 5);
    put_udp(c, 4789, 4789);
    ipv4_end(c, ip);

    c = case_new("ipv4-frag-last");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_TCP, 370, 5);
    put_tcp(c, 1, 2, TCP_FIN, 5);
    ipv4_end(c, ip);

    c = case_new("ipv4-dont-fragment");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_TCP, 0x4000, 5);
    put_tcp(c, 1, 2, TCP_RST, 5);
    ipv4_end(c, ip);

    c = case_new("ipv4-version-6-nibble");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_UDP, 0, 5);
    put_udp(c, 7, 9);
    ipv4_end(c, ip);
    c->data[ip] = 0x65;

    c = case_new("ipv4-unknown-proto");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, 253, 0, 5);
    put_fill(c, 20, false);
    ipv4_end(c, ip);

    c = case_new("ipv4-icmpv6-nd-ns");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_ICMPV6, 0, 5);
    put_icmp(c, ND_NEIGHBOR_SOLICIT, 0, 0);
    put_nd_target(c);
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    ipv4_end(c, ip);

    /* Malformed IPv4 headers. */
    c = case_new("ipv4-truncated-header");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_UDP, 0, 5);
    set_be16(c, ip + 2, 20);
    c->size--;

    c = case_new("ipv4-ihl-4");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_UDP, 0, 5);
    put_udp(c, 1, 2);
    ipv4_end(c, ip);
    c->data[ip] = 0x44;

    c = case_new("ipv4-ihl-beyond-frame");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_UDP, 0, 5);
    put_udp(c, 1, 2);
    ipv4_end(c, ip);
    c->data[ip] = 0x4f;

    c = case_new("ipv4-totlen-below-ihl");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_UDP, 0, 6);
    put_udp(c, 1, 2);
    set_be16(c, ip + 2, 20);

    c = case_new("ipv4-totlen-beyond-frame");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_UDP, 0, 5);
    put_udp(c, 1, 2);
    ipv4_end(c, ip);
    c->size--;

    c = case_new("ipv4-totlen-header-only");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_TCP, 0, 5);
    put_tcp(c, 1, 2, TCP_SYN, 5);
    set_be16(c, ip + 2, 20);

    /* Truncated transport headers. */
    c = case_new("ipv4-tcp-truncated");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_TCP, 0, 5);
    put_tcp(c, 1, 2, TCP_SYN, 5);
    c->size--;
    ipv4_end(c, ip);

    c = case_new("ipv4-tcp-doff-4");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_TCP, 0, 5);
    put_tcp(c, 1, 2, TCP_SYN, 4);
    ipv4_end(c, ip);

    c = case_new("ipv4-tcp-doff-beyond-totlen");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_TCP, 0, 5);
    l4 = put_tcp(c, 1, 2, TCP_SYN, 8);
    ipv4_end(c, ip);
    c->data[l4 + 12] = 0xf0;

    c = case_new("ipv4-tcp-cut-by-totlen");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_TCP, 0, 5);
    put_tcp(c, 1, 2, TCP_SYN, 5);
    set_be16(c, ip + 2, 30);

    c = case_new("ipv4-udp-truncated");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_UDP, 0, 5);
    put_udp(c, 1, 2);
    c->size--;
    ipv4_end(c, ip);

    c = case_new("ipv4-sctp-truncated");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_SCTP, 0, 5);
    put_sctp(c, 1, 2);
    c->size--;
    ipv4_end(c, ip);

    c = case_new("ipv4-icmp-truncated");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_ICMP, 0, 5);
    put_icmp(c, ICMP4_ECHO_REQUEST, 0, 0);
    c->size--;
    ipv4_end(c, ip);

    c = case_new("ipv4-igmp-truncated");
    put_eth(c, 0x0800);
    ip = put_ipv4(c, IPPROTO_IGMP, 0, 5);
    put_icmp(c, 0x16, 0, 0xe0010203);
    c->size--;
    ipv4_end(c, ip);
}

/* IPv6, its extension headers and what it carries. */
static void
add_ipv6_cases(void)
{
    struct parse_case *c;
    size_t ip;

    c = case_new("ipv6-tcp");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_TCP);
    put_tcp(c, 50000, 22, TCP_SYN | TCP_ECE | TCP_CWR, 10);
    ipv6_end(c, ip);

    c = case_new("ipv6-udp");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_UDP);
    put_udp(c, 546, 547);
    put_fill(c, 30, false);
    ipv6_end(c, ip);

    c = case_new("ipv6-sctp");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_SCTP);
    put_sctp(c, 36412, 36412);
    ipv6_end(c, ip);

    c = case_new("ipv6-icmpv6-echo");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ICMP6_ECHO_REQUEST, 0, 0x00070001);
    put_fill(c, 56, false);
    ipv6_end(c, ip);

    c = case_new("ipv6-icmpv4-header");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMP);
    put_icmp(c, ICMP4_ECHO_REPLY, 0, 0);
    ipv6_end(c, ip);

    c = case_new("ipv6-udp-l2-padding");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_UDP);
    put_udp(c, 1, 2);
    ipv6_end(c, ip);
    put_fill(c, 12, false);

    c = case_new("ipv6-no-next-header");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_NONE);
    ipv6_end(c, ip);

    c = case_new("ipv6-hopopts-udp");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_HOPOPTS);
    put_ipv6_opts(c, IPPROTO_UDP, 0);
    put_udp(c, 5000, 6000);
    ipv6_end(c, ip);

    c = case_new("ipv6-routing-tcp");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ROUTING);
    put_ipv6_opts(c, IPPROTO_TCP, 2);
    put_tcp(c, 179, 40000, TCP_ACK, 5);
    ipv6_end(c, ip);

    c = case_new("ipv6-dstopts-sctp");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_DSTOPTS);
    put_ipv6_opts(c, IPPROTO_SCTP, 1);
    put_sctp(c, 9, 10);
    ipv6_end(c, ip);

    c = case_new("ipv6-ah-tcp");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_AH);
    put_ah(c, IPPROTO_TCP, 4);
    put_tcp(c, 500, 500, TCP_SYN | TCP_ACK, 5);
    ipv6_end(c, ip);

    c = case_new("ipv6-ext-chain-udp");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_HOPOPTS);
    put_ipv6_opts(c, IPPROTO_DSTOPTS, 0);
    put_ipv6_opts(c, IPPROTO_ROUTING, 1);
    put_ipv6_opts(c, IPPROTO_FRAGMENT, 0);
    put_frag6(c, IPPROTO_AH, 0x0001);
    put_ah(c, IPPROTO_DSTOPTS, 1);
    put_ipv6_opts(c, IPPROTO_UDP, 0);
    put_udp(c, 4500, 4500);
    ipv6_end(c, ip);

    c = case_new("ipv6-frag-first-udp");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_FRAGMENT);
    put_frag6(c, IPPROTO_UDP, 0x0001);
    put_udp(c, 53, 33000);
    put_fill(c, 40, false);
    ipv6_end(c, ip);

    c = case_new("ipv6-frag-later");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_FRAGMENT);
    put_frag6(c, IPPROTO_UDP, (100 << 3) | 1);
    put_udp(c, 53, 33000);
    ipv6_end(c, ip);

    c = case_new("ipv6-frag-last-after-hopopts");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_HOPOPTS);
    put_ipv6_opts(c, IPPROTO_FRAGMENT, 0);
    put_frag6(c, IPPROTO_TCP, 200 << 3);
    put_tcp(c, 1, 2, TCP_SYN, 5);
    ipv6_end(c, ip);

    c = case_new("ipv6-frag-atomic");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_FRAGMENT);
    put_frag6(c, IPPROTO_TCP, 0);
    put_tcp(c, 1, 2, TCP_SYN, 5);
    ipv6_end(c, ip);

    c = case_new("ipv6-frag-reserved-bits");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_FRAGMENT);
    put_frag6(c, IPPROTO_UDP, 0x0006);
    put_udp(c, 1, 2);
    ipv6_end(c, ip);

    c = case_new("ipv6-16-ext-headers");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_DSTOPTS);
    for (int i = 0; i < 15; i++) {
        put_ipv6_opts(c, IPPROTO_DSTOPTS, 0);
    }
    put_ipv6_opts(c, IPPROTO_UDP, 0);
    put_udp(c, 1, 2);
    ipv6_end(c, ip);

    c = case_new("ipv6-17-ext-headers");
    c->incomplete = true;
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_DSTOPTS);
    for (int i = 0; i < 16; i++) {
        put_ipv6_opts(c, IPPROTO_DSTOPTS, 0);
    }
    put_ipv6_opts(c, IPPROTO_UDP, 0);
    put_udp(c, 1, 2);
    ipv6_end(c, ip);

    /* Malformed IPv6 headers. */
    c = case_new("ipv6-truncated-header");
    put_eth(c, 0x86dd);
    put_ipv6(c, IPPROTO_UDP);
    c->size--;

    c = case_new("ipv6-plen-beyond-frame");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_UDP);
    put_udp(c, 1, 2);
    ipv6_end(c, ip);
    c->size--;

    c = case_new("ipv6-ext-short");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_HOPOPTS);
    put_fill(c, 6, true);
    ipv6_end(c, ip);

    c = case_new("ipv6-ext-len-beyond-plen");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_HOPOPTS);
    put_ipv6_opts(c, IPPROTO_UDP, 2);
    ipv6_end(c, ip);
    set_be16(c, ip + 4, 16);

    c = case_new("ipv6-ah-len-beyond-plen");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_AH);
    put_ah(c, IPPROTO_UDP, 4);
    put_udp(c, 1, 2);
    ipv6_end(c, ip);
    set_be16(c, ip + 4, 20);

    c = case_new("ipv6-frag-truncated");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_FRAGMENT);
    put_frag6(c, IPPROTO_UDP, 0x0001);
    c->size -= 4;
    ipv6_end(c, ip);

    c = case_new("ipv6-tcp-truncated");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_TCP);
    put_tcp(c, 1, 2, TCP_SYN, 5);
    c->size -= 2;
    ipv6_end(c, ip);

    c = case_new("ipv6-icmpv6-truncated");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ICMP6_ECHO_REQUEST, 0, 0);
    c->size--;
    ipv6_end(c, ip);
}

/* Neighbor Discovery. */
static void
add_nd_cases(void)
{
    struct parse_case *c;
    size_t ip;

    c = case_new("nd-ns-sll");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_SOLICIT, 0, 0);
    put_nd_target(c);
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    ipv6_end(c, ip);

    c = case_new("nd-na-tll-flags");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_ADVERT, 0, 0xe0000000);
    put_nd_target(c);
    put_nd_opt(c, ND_OPT_TARGET_LINKADDR, 1, mac_b);
    ipv6_end(c, ip);

    c = case_new("nd-ns-no-options");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_SOLICIT, 0, 0);
    put_nd_target(c);
    ipv6_end(c, ip);

    c = case_new("nd-ns-truncated-target");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_SOLICIT, 0, 0x12345678);
    put_nd_target(c);
    c->size -= 6;
    ipv6_end(c, ip);

    c = case_new("nd-na-tll-then-sll");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_ADVERT, 0, 0x40000000);
    put_nd_target(c);
    put_nd_opt(c, ND_OPT_TARGET_LINKADDR, 1, mac_b);
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    ipv6_end(c, ip);

    c = case_new("nd-ns-duplicate-sll");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_SOLICIT, 0, 0);
    put_nd_target(c);
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_b);
    ipv6_end(c, ip);

    c = case_new("nd-na-duplicate-tll-after-sll");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_ADVERT, 0, 0x20000000);
    put_nd_target(c);
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    put_nd_opt(c, ND_OPT_TARGET_LINKADDR, 1, mac_b);
    put_nd_opt(c, ND_OPT_TARGET_LINKADDR, 1, mac_a);
    ipv6_end(c, ip);

    c = case_new("nd-ns-zero-sll-then-sll");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_SOLICIT, 0, 0);
    put_nd_target(c);
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_zero);
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_b);
    ipv6_end(c, ip);

    c = case_new("nd-ns-nonce-then-sll");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_SOLICIT, 0, 0);
    put_nd_target(c);
    put_nd_opt(c, 14, 1, mac_b);    /* Nonce. */
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    ipv6_end(c, ip);

    c = case_new("nd-ns-long-sll");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_SOLICIT, 0, 0);
    put_nd_target(c);
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 2, mac_a);
    put_nd_opt(c, ND_OPT_TARGET_LINKADDR, 1, mac_b);
    ipv6_end(c, ip);

    c = case_new("nd-ns-option-len-0");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_SOLICIT, 0, 0);
    put_nd_target(c);
    put_nd_opt(c, 14, 0, mac_b);
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    ipv6_end(c, ip);

    c = case_new("nd-ns-option-len-beyond");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_SOLICIT, 0, 0);
    put_nd_target(c);
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    put_nd_opt(c, ND_OPT_TARGET_LINKADDR, 3, mac_b);
    c->size -= 8;
    ipv6_end(c, ip);

    c = case_new("nd-ns-short-tail");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_SOLICIT, 0, 0);
    put_nd_target(c);
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    put_fill(c, 7, false);
    ipv6_end(c, ip);

    c = case_new("nd-ns-code-1");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_SOLICIT, 1, 0);
    put_nd_target(c);
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    ipv6_end(c, ip);

    c = case_new("nd-router-solicit");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_ROUTER_SOLICIT, 0, 0);
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    ipv6_end(c, ip);

    c = case_new("nd-ns-after-hopopts");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_HOPOPTS);
    put_ipv6_opts(c, IPPROTO_ICMPV6, 0);
    put_icmp(c, ND_NEIGHBOR_SOLICIT, 0, 0);
    put_nd_target(c);
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    ipv6_end(c, ip);

    c = case_new("nd-ns-16-options");
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_SOLICIT, 0, 0);
    put_nd_target(c);
    for (int i = 0; i < 15; i++) {
        put_nd_opt(c, 14, 1, mac_b);
    }
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    ipv6_end(c, ip);

    c = case_new("nd-ns-17-options");
    c->incomplete = true;
    put_eth(c, 0x86dd);
    ip = put_ipv6(c, IPPROTO_ICMPV6);
    put_icmp(c, ND_NEIGHBOR_SOLICIT, 0, 0);
    put_nd_target(c);
    for (int i = 0; i < 16; i++) {
        put_nd_opt(c, 14, 1, mac_b);
    }
    put_nd_opt(c, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    ipv6_end(c, ip);
}

/* Comparison. */

#define KEY_FIELD(NAME)                                         \
    { #NAME, offsetof(struct xdp_flow_key, NAME),               \
      sizeof ((struct xdp_flow_key *) NULL)->NAME }

/* Every byte of 'struct xdp_flow_key', by field, padding included. */
static const struct key_field {
    const char *name;
    size_t ofs;
    size_t len;
} key_fields[] = {
    KEY_FIELD(recirc_id), KEY_FIELD(dp_hash), KEY_FIELD(in_port),
    KEY_FIELD(ct_mark), KEY_FIELD(ct_state), KEY_FIELD(ct_nw_proto),
    KEY_FIELD(ct_zone), KEY_FIELD(ct_nw_src), KEY_FIELD(ct_nw_dst),
    KEY_FIELD(ct_tp_src), KEY_FIELD(ct_tp_dst), KEY_FIELD(ct_label),
    KEY_FIELD(eth_dst), KEY_FIELD(eth_src), KEY_FIELD(eth_type),
    KEY_FIELD(pad1),
    KEY_FIELD(vlans[0].tpid), KEY_FIELD(vlans[0].tci),
    KEY_FIELD(vlans[1].tpid), KEY_FIELD(vlans[1].tci),
    KEY_FIELD(nw_src), KEY_FIELD(nw_dst), KEY_FIELD(ipv6_src),
    KEY_FIELD(ipv6_dst), KEY_FIELD(ipv6_label), KEY_FIELD(nw_frag),
    KEY_FIELD(nw_tos), KEY_FIELD(nw_ttl), KEY_FIELD(nw_proto),
    KEY_FIELD(nd_target), KEY_FIELD(arp_sha), KEY_FIELD(arp_tha),
    KEY_FIELD(tcp_flags), KEY_FIELD(tp_src), KEY_FIELD(tp_dst),
    KEY_FIELD(pad2), KEY_FIELD(igmp_group_ip4),
    KEY_FIELD(tun_id), KEY_FIELD(tun_src), KEY_FIELD(tun_dst),
    KEY_FIELD(tun_tp_src), KEY_FIELD(tun_tp_dst), KEY_FIELD(tun_tos),
    KEY_FIELD(tun_ttl), KEY_FIELD(tun_flags), KEY_FIELD(tun_opts),
    KEY_FIELD(tun_opts_len), KEY_FIELD(pad3), KEY_FIELD(tun_ipv6_src),
    KEY_FIELD(tun_ipv6_dst),
};

static void
put_hex(struct ds *s, const void *p_, size_t n)
{
    const uint8_t *p = p_;

    for (size_t i = 0; i < n; i++) {
        ds_put_format(s, "%02x", p[i]);
    }
}

/* Appends ", " to 's' unless it is the first difference. */
static void
put_sep(struct ds *s, int *n_diffs)
{
    ds_put_cstr(s, (*n_diffs)++ ? ", " : " ");
}

/* Appends to 's' the fields in which 'xdp' and 'ovs' differ and returns
 * how many there are. */
static int
compare_keys(const struct xdp_flow_key *xdp, const struct xdp_flow_key *ovs,
             struct ds *s, int n_diffs)
{
    for (size_t i = 0; i < ARRAY_SIZE(key_fields); i++) {
        const struct key_field *f = &key_fields[i];
        const uint8_t *a = (const uint8_t *) xdp + f->ofs;
        const uint8_t *b = (const uint8_t *) ovs + f->ofs;

        if (memcmp(a, b, f->len)) {
            put_sep(s, &n_diffs);
            ds_put_format(s, "field %s (xdp ", f->name);
            put_hex(s, a, f->len);
            ds_put_cstr(s, ", ovs ");
            put_hex(s, b, f->len);
            ds_put_char(s, ')');
        }
    }
    return n_diffs;
}

/* Compares a header offset or size from the parser with OVS's. */
static int
compare_u16(const char *name, unsigned int xdp, unsigned int ovs,
            struct ds *s, int n_diffs)
{
    if (xdp != ovs) {
        put_sep(s, &n_diffs);
        ds_put_format(s, "%s (xdp %u, ovs %u)", name, xdp, ovs);
    }
    return n_diffs;
}

/* One program that runs the parser, and the maps it leaves its results
 * in. */
struct parser {
    const char *name;           /* "xdp" or "tc". */
    int prog_fd;
    int key_fd;
    int info_fd;
    uint32_t verdict;           /* What the program returns. */
};

/* Whether BPF_PROG_TEST_RUN refuses to build an skb of case 'c' for a TC
 * program: it does for an IPv4 or IPv6 Ethertype followed by less than a
 * whole IP header (bpf_prog_test_run_skb() in net/bpf/test_run.c), which
 * a real device's TC hook still gets. */
static bool
tc_test_run_refuses(const struct parse_case *c)
{
    uint16_t type = c->data[12] << 8 | c->data[13];

    return ((type == ETH_TYPE_IP && c->size < ETH_HEADER_LEN + 20)
            || (type == ETH_TYPE_IPV6 && c->size < ETH_HEADER_LEN + 40));
}

/* Runs case 'c' through 'p' and compares what it found with what
 * flow_extract() found in 'packet' ('flow', as a key 'ovs_key'), appending
 * each difference to 's'.  Returns the number of differences so far, from
 * 'n_diffs'; sets '*incomplete' if the parser flagged the key incomplete. */
static int
check_parser(const struct parser *p, const struct parse_case *c,
             const struct flow *flow, const struct xdp_flow_key *ovs_key,
             const struct dp_packet *packet, bool *incomplete,
             struct ds *s, int n_diffs)
{
    struct xdp_parse_info info;
    struct xdp_flow_key key;
    uint32_t zero = 0;
    int n0 = n_diffs;
    int error;

    if (p->verdict == TC_ACT_SHOT && tc_test_run_refuses(c)) {
        /* The XDP run covers the same code, and alone decides whether a
         * case of unknown length counts. */
        *incomplete = c->unknown;
        return n_diffs;
    }
    /* Clear the results first, so that a run that stores nothing cannot
     * pass with the previous case's. */
    memset(&key, 0xa5, sizeof key);
    memset(&info, 0xa5, sizeof info);
    if (bpf_map_update_elem(p->key_fd, &zero, &key, BPF_ANY)
        || bpf_map_update_elem(p->info_fd, &zero, &info, BPF_ANY)) {
        ovs_fatal(errno, "bpf_map_update_elem");
    }
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = c->data, .data_size_in = c->size);
    error = bpf_prog_test_run_opts(p->prog_fd, &opts);
    if (error) {
        ovs_fatal(-error, "%s: %s: bpf_prog_test_run_opts", c->name,
                  p->name);
    }
    if (bpf_map_lookup_elem(p->key_fd, &zero, &key)
        || bpf_map_lookup_elem(p->info_fd, &zero, &info)) {
        ovs_fatal(errno, "bpf_map_lookup_elem");
    }

    *incomplete = info.flags & XDP_PARSE_F_INCOMPLETE;
    if (opts.retval != p->verdict) {
        put_sep(s, &n_diffs);
        ds_put_format(s, "verdict %u", opts.retval);
    }
    if (c->incomplete) {
        /* Beyond the parser's limits the key is not flow_extract()'s and
         * must not be used: the parser must say so. */
        if (!*incomplete) {
            put_sep(s, &n_diffs);
            ds_put_cstr(s, "XDP_PARSE_F_INCOMPLETE not set");
        }
    } else if (!c->unknown || !*incomplete) {
        n_diffs = compare_u16("flags", info.flags, 0, s, n_diffs);
        n_diffs = compare_keys(&key, ovs_key, s, n_diffs);
        /* OVS's l3_ofs is past the MPLS labels, ours at the first. */
        if (!eth_type_mpls(flow->dl_type)) {
            n_diffs = compare_u16("l3_ofs", info.l3_ofs, packet->l3_ofs,
                                  s, n_diffs);
        }
        n_diffs = compare_u16("l4_ofs", info.l4_ofs, packet->l4_ofs,
                              s, n_diffs);
        n_diffs = compare_u16("l4_size", info.l4_size,
                              dp_packet_l4_size(packet), s, n_diffs);
    }
    if (n_diffs > n0) {
        ds_put_format(s, " (%s)", p->name);
    }
    return n_diffs;
}

/* Runs case 'c' through the 'n' parsers in 'parsers' and through
 * flow_extract() and prints the verdict (with 'quiet', only a mismatch).
 * Returns 1 for a mismatch, 0 for a match, -1 if the case was not run, -2
 * if every parser flagged a case of unknown length incomplete. */
static int
run_case(const struct parser *parsers, size_t n, const struct parse_case *c,
         bool verbose, bool quiet)
{
    struct xdp_flow_key ovs_key;
    struct dp_packet packet;
    struct ds s = DS_EMPTY_INITIALIZER;
    bool all_incomplete = true;
    struct flow flow;
    int n_diffs = 0;

    /* OVS. */
    dp_packet_use_const(&packet, c->data, c->size);
    flow_extract(&packet, &flow);
    flow.in_port.odp_port = 0;
    xdp_flow_key_from_flow(&ovs_key, &flow);
    if (verbose) {
        char *str = flow_to_string(&flow, NULL);

        printf("# %s: %s\n", c->name, str);
        free(str);
    }

    if (c->size < ETH_HEADER_LEN) {
        if (!quiet) {
            printf("skip %s: XDP never sees frames shorter than %d bytes\n",
                   c->name, ETH_HEADER_LEN);
        }
        return -1;
    }

    for (size_t i = 0; i < n; i++) {
        bool incomplete;

        n_diffs = check_parser(&parsers[i], c, &flow, &ovs_key, &packet,
                               &incomplete, &s, n_diffs);
        all_incomplete &= incomplete;
    }
    if (c->unknown && all_incomplete && !n_diffs) {
        ds_destroy(&s);
        return -2;
    }

    if (n_diffs) {
        printf("MISMATCH %s:%s\n", c->name, ds_cstr(&s));
    } else if (quiet) {
        /* Nothing to say. */
    } else if (c->incomplete) {
        printf("ok %s (beyond the parser's limits, flagged incomplete)\n",
               c->name);
    } else {
        printf("ok %s\n", c->name);
    }
    ds_destroy(&s);
    return n_diffs != 0;
}

/* Reads frames from stdin, one a line in hex (as ovs-xdp-fuzz
 * --dump-frames writes them), and runs each through both parsers, printing
 * only the mismatches, each with its frame.  A frame that the parser flags
 * incomplete (beyond its loop limits) is counted apart, not compared.
 * Returns the number of mismatches. */
static int
run_stdin(const struct parser *parsers, size_t n, int *n_run)
{
    static struct parse_case c;
    int n_mismatches = 0, n_incomplete = 0, n_long = 0;
    char line[2 * sizeof c.data + 16];

    while (fgets(line, sizeof line, stdin)) {
        size_t len = strcspn(line, "\r\n");
        struct ds name = DS_EMPTY_INITIALIZER;

        if (len % 2 || len / 2 > sizeof c.data) {
            n_long++;
            continue;
        }
        for (size_t i = 0; i < len / 2; i++) {
            unsigned int byte;

            if (sscanf(&line[2 * i], "%2x", &byte) != 1) {
                ovs_fatal(0, "stdin: not a frame in hex: %.*s", (int) len,
                          line);
            }
            c.data[i] = byte;
        }
        c.size = len / 2;
        ds_put_format(&name, "%.*s", (int) len, line);
        c.name = ds_cstr(&name);
        c.incomplete = false;
        c.unknown = true;
        int retval = run_case(parsers, n, &c, false, true);
        if (retval == -2) {
            n_incomplete++;
        } else if (retval >= 0) {
            (*n_run)++;
            n_mismatches += retval;
        }
        ds_destroy(&name);
    }
    if (n_incomplete || n_long) {
        printf("%d frames beyond the parser's limits, %d too long\n",
               n_incomplete, n_long);
    }
    return n_mismatches;
}

int
main(int argc, char *argv[])
{
    bool verbose = argc > 1 && !strcmp(argv[1], "-v");
    bool from_stdin = argc > 1 && !strcmp(argv[1], "--stdin");
    struct xdp_parse_test *skel;
    struct tc_parse_test *tc_skel;
    int n_run = 0, n_mismatches = 0;
    size_t total = 0;

    set_program_name(argv[0]);

    /* The field table must cover the whole key. */
    for (size_t i = 0; i < ARRAY_SIZE(key_fields); i++) {
        total += key_fields[i].len;
    }
    ovs_assert(total == sizeof(struct xdp_flow_key));

    skel = xdp_parse_test__open_and_load();
    if (!skel) {
        ovs_fatal(errno, "xdp_parse_test__open_and_load");
    }
    tc_skel = tc_parse_test__open_and_load();
    if (!tc_skel) {
        ovs_fatal(errno, "tc_parse_test__open_and_load");
    }
    struct parser parsers[] = {
        { "xdp", bpf_program__fd(skel->progs.xdp_parse_test),
          bpf_map__fd(skel->maps.parse_test_key),
          bpf_map__fd(skel->maps.parse_test_info), XDP_DROP },
        { "tc", bpf_program__fd(tc_skel->progs.tc_parse_test),
          bpf_map__fd(tc_skel->maps.parse_test_key),
          bpf_map__fd(tc_skel->maps.parse_test_info), TC_ACT_SHOT },
    };
    if (from_stdin) {
        n_mismatches = run_stdin(parsers, ARRAY_SIZE(parsers), &n_run);
        xdp_parse_test__destroy(skel);
        tc_parse_test__destroy(tc_skel);
        printf("%d frames, %d mismatches\n", n_run, n_mismatches);
        return n_mismatches ? 1 : 0;
    }

    add_l2_cases();
    add_arp_cases();
    add_ipv4_cases();
    add_ipv6_cases();
    add_nd_cases();

    for (size_t i = 0; i < n_cases; i++) {
        int retval = run_case(parsers, ARRAY_SIZE(parsers), &cases[i],
                              verbose, false);

        if (retval >= 0) {
            n_run++;
            n_mismatches += retval;
        }
    }
    xdp_parse_test__destroy(skel);
    tc_parse_test__destroy(tc_skel);

    printf("%d cases, %d mismatches\n", n_run, n_mismatches);
    return n_mismatches ? 1 : 0;
}
