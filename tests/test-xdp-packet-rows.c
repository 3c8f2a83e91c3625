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

/* test-xdp-packet's table: one row per frame, with its flow table and
 * what must happen to the frame (test-xdp-packet.c explains the test and
 * runs the rows; "struct xp_row" in test-xdp-packet.h describes a row). */

#include <config.h>

#include "tests/test-xdp-packet.h"
#include "util.h"

/* The table.  Frames are in hex, a space between headers.  Unless a row
 * says otherwise, 02:00:00:00:00:01 (10.0.0.1, UDP or TCP port 40000)
 * sends to 02:00:00:00:00:02 (10.0.0.2, port 53 or 80), and every checksum
 * of an input frame is valid (those of malformed headers aside).  The
 * output frames were built from the input and the actions, with every
 * checksum computed from scratch, not updated. */
const struct xp_row xp_rows[] = {

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
        .name = "tnl_push: VXLAN over IPv4",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "clone(tnl_push(tnl_port(4),header(size=50,type=4,"
              "eth(dst=02:00:00:00:00:0b,src=02:00:00:00:00:0a,"
              "dl_type=0x0800),ipv4(src=172.31.1.100,dst=172.31.1.1,"
              "proto=17,tos=0,ttl=64,frag=0x4000),udp(src=0,dst=4789,"
              "csum=0x0),vxlan(flags=0x8000000,vni=0x5)),out_port(2)),2)" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "02000000000b02000000000a0800 "
            "45000052000040004011dff7ac1f0164ac1f0101 b74312b5003e0000 "
            "0800000000000500 "
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
    },
    {
        .name = "tnl_push: Geneve with options, a 94-byte header",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "tnl_push(tnl_port(4),header(size=94,type=5,"
              "eth(dst=02:00:00:00:00:0b,src=02:00:00:00:00:0a,"
              "dl_type=0x0800),ipv4(src=172.31.1.100,dst=172.31.1.1,"
              "proto=17,tos=0,ttl=64,frag=0x4000),udp(src=0,dst=6081,"
              "csum=0x0),geneve(vni=0x5,options("
              "{class=0x102,type=0x80,len=20,"
              "0x0102030405060708090a0b0c0d0e0f1011121314}"
              "{class=0x102,type=0x81,len=16,"
              "0x1112131415161718191a1b1c1d1e1f20}))),"
              "out_port(2)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "02000000000b02000000000a0800 "
            "4500007e000040004011dfcbac1f0164ac1f0101 b74317c1006a0000 "
            "0b00655800000500 "
            "010280050102030405060708090a0b0c0d0e0f1011121314 "
            "010281041112131415161718191a1b1c1d1e1f20 "
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
    },
    {
        /* Over IPv6, OVS gives the UDP header a checksum (0xffff in the
         * prebuilt header), which XDP fills in as OVS's push does. */
        .name = "tnl_push: VXLAN over IPv6, with its UDP checksum",
        .in =
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
        .flows = {
            { "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),"
              "eth_type(0x0800),ipv4(src=10.0.0.1,dst=10.0.0.2,proto=17,"
              "tos=0/0,ttl=64/0,frag=no),udp(src=40000,dst=53)",
              "tnl_push(tnl_port(4),header(size=70,type=4,"
              "eth(dst=02:00:00:00:00:0b,src=02:00:00:00:00:0a,"
              "dl_type=0x86dd),ipv6(src=fc00:31::100,dst=fc00:31::1,"
              "label=0,proto=17,tclass=0x0,hlimit=64),udp(src=0,dst=4789,"
              "csum=0xffff),vxlan(flags=0x8000000,vni=0x5)),out_port(2)),2" },
        },
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "02000000000b02000000000a86dd "
            "60000000003e1140 fc000031000000000000000000000100 "
            "fc000031000000000000000000000001 "
            "b74312b5003e3732 "
            "0800000000000500 "
            "0200000000020200000000010800 "
            "4500002000010000401166ca0a0000010a000002 9c400035000c66d8 "
            "78647021",
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
        .name = "set tcp: header truncated, sent on unchanged",
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
        /* As OVS's userspace datapath, and ovs-vswitchd executing the
         * flow's first packet, do: a set of a TCP header that is not
         * there is skipped (the kernel datapath drops the packet). */
        .expect = XP_REDIRECT,
        .ports = { 2 },
        .out =
            "0200000000020200000000010800 "
            "4500002000010000400666d50a0000010a000002 "
            "9c4000500000000100000001",
    },
};

const size_t xp_n_rows = ARRAY_SIZE(xp_rows);
