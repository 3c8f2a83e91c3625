/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_H
#define XDP_DP_H 1

/* Structures shared by the XDP datapath program and ovs-vswitchd.  Both
 * sides compile this header, so it holds fixed-width types only and no
 * pointers; every layout change bumps XDP_DP_ABI_VERSION.
 *
 * Flow key
 * ========
 *
 * 'struct xdp_flow_key' is what the program extracts from a packet and what
 * a megaflow matches on.  Its fields mean what the fields of the same name
 * in Open vSwitch's 'struct flow' mean (lib/flow.c, flow_extract()), byte
 * order included: network order for packet fields, host order for
 * metadata.  A megaflow is a (key, mask) pair of this structure; a packet
 * matches it when (packet key & mask) == key.  The layout is 32 64-bit
 * words, without holes, so that masking is word by word.  (A subtable
 * whose mask leaves a word out costs nothing for it: a compiled subtable
 * hashes only the words its mask touches, see "Compiled programs".)
 *
 * The conntrack fields (ct_*) are those that OVS's ct() action gives a
 * packet; they are zero on arrival and set by an XDP_DP_ACTION_CT that
 * hits the connection cache (see "Connection cache" below), for the passes
 * after its recirculation.  The original direction's tuple is carried for
 * IPv4 connections only: a megaflow that matches ct_ipv6_src or
 * ct_ipv6_dst is not offered to XDP (ofproto-xdp/xdp-flow.c).
 *
 * Actions
 * =======
 *
 * A flow's actions run in XDP when each is one of 'enum xdp_dp_action_type'
 * and there are at most XDP_FLOW_MAX_ACTIONS of them, with the outputs
 * last, at most XDP_DP_MAX_OUTPUTS of them.  Any other flow is a slow-path flow
 * (XDP_FLOW_F_SLOW_PATH): its packets are counted and handed to
 * ovs-vswitchd, which executes its actions with odp_execute_actions(). */

#include <linux/bpf.h>
#include <linux/types.h>

#define XDP_DP_ABI_VERSION 25

/* One VLAN header, as in OVS's 'union flow_vlan_hdr': 'tci' has
 * XDP_VLAN_CFI set when the header is present. */
struct xdp_vlan_hdr {
    __be16 tpid;                /* ETH_TYPE_VLAN_8021Q or _8021AD. */
    __be16 tci;                 /* PCP, CFI (always set if present), VID. */
};
#define XDP_VLAN_CFI 0x1000     /* In host order; htons() it to compare. */

/* nw_frag values, as OVS's FLOW_NW_FRAG_*. */
#define XDP_NW_FRAG_ANY   (1 << 0) /* Set for any IP fragment. */
#define XDP_NW_FRAG_LATER (1 << 1) /* Set for IP fragment with nonzero offset. */

/* Bytes of Geneve options that the flow key carries: OVS's raw ("udpif")
 * options, up to 32 bytes (the option length field's 8 words): four
 * options of 4 bytes of data with their 4-byte headers, or fewer, longer
 * ones.  OVN sends one of 4 bytes (8 in all).  Longer options are rare
 * and stay in ovs-vswitchd (OVS takes up to 252). */
#define XDP_TNL_OPTS_LEN 32

/* eth_type of frames with no Ethertype (802.2 without SNAP), as OVS's
 * FLOW_DL_TYPE_NONE. */
#define XDP_ETH_TYPE_NONE 0x5ff

struct xdp_flow_key {
    /* Metadata (host byte order). */
    __u32 recirc_id;            /* Recirculation id; 0 on arrival. */
    __u32 dp_hash;              /* Datapath hash; 0 until a hash action. */
    __u32 in_port;              /* Datapath port number of the ingress. */
    __u32 ct_mark;              /* Connection mark. */

    /* Connection tracking (host byte order but for the tuple). */
    __u8 ct_state;              /* OVS's CS_* bits. */
    __u8 ct_nw_proto;           /* Original direction: IP protocol... */
    __u16 ct_zone;              /* Connection tracking zone. */
    __be32 ct_nw_src;           /* ...IPv4 source... */
    __be32 ct_nw_dst;           /* ...and destination... */
    __be16 ct_tp_src;           /* ...L4 source port (ICMP type)... */
    __be16 ct_tp_dst;           /* ...and destination port (ICMP code). */
    __u8 ct_label[16];          /* Connection label, as OVS's ovs_u128. */

    /* L2. */
    __u8 eth_dst[6];            /* Ethernet destination. */
    __u8 eth_src[6];            /* Ethernet source. */
    __be16 eth_type;            /* Ethertype after the VLAN headers. */
    __u16 pad1;                 /* Must be zero. */
    struct xdp_vlan_hdr vlans[2];   /* Outer first; tci 0 if absent. */

    /* L3. */
    __be32 nw_src;              /* IPv4 source or ARP SPA. */
    __be32 nw_dst;              /* IPv4 destination or ARP TPA. */
    __u8 ipv6_src[16];          /* IPv6 source. */
    __u8 ipv6_dst[16];          /* IPv6 destination. */
    __be32 ipv6_label;          /* IPv6 flow label (20 bits). */
    __u8 nw_frag;               /* XDP_NW_FRAG_*. */
    __u8 nw_tos;                /* IP ToS / traffic class (DSCP and ECN). */
    __u8 nw_ttl;                /* IP TTL / hop limit. */
    __u8 nw_proto;              /* IP protocol, or low 8 bits of ARP op. */

    /* L4. */
    __u8 nd_target[16];         /* IPv6 neighbor discovery target. */
    __u8 arp_sha[6];            /* ARP SHA, or ND source link-layer addr. */
    __u8 arp_tha[6];            /* ARP THA, or ND target link-layer addr. */
    __be16 tcp_flags;           /* TCP flags, or ND options type. */
    __be16 tp_src;              /* L4 source port, or ICMP type. */
    __be16 tp_dst;              /* L4 destination port, or ICMP code. */
    __u16 pad2;                 /* Must be zero. */
    __be32 igmp_group_ip4;      /* IGMP group, or ND reserved field. */

    /* Tunnel metadata, as in OVS's 'struct flow_tnl': what a tnl_pop in
     * XDP gave the packet (see "Tunnels"), zero otherwise.  Outer IPv4 or
     * IPv6 addresses (the others zero, as in OVS), and Geneve options of
     * up to XDP_TNL_OPTS_LEN bytes in all: a megaflow matching more is not
     * offered to XDP. */
    __be64 tun_id;              /* Tunnel id (VXLAN VNI). */
    __be32 tun_src;             /* Outer IPv4 source... */
    __be32 tun_dst;             /* ...and destination. */
    __be16 tun_tp_src;          /* Outer UDP source port... */
    __be16 tun_tp_dst;          /* ...and destination port. */
    __u8 tun_tos;               /* Outer IP ToS. */
    __u8 tun_ttl;               /* Outer IP TTL. */
    __u16 tun_flags;            /* XDP_TNL_F_*, OVS's FLOW_TNL_F_*. */
    __u8 tun_opts[XDP_TNL_OPTS_LEN];    /* The Geneve options as on the
                                         * wire (OVS's "udpif" form of
                                         * tun_metadata), zero-padded... */
    __u8 tun_opts_len;          /* ...and their length: 0 to 32, in
                                 * steps of 4. */
    __u8 pad3[7];               /* Must be zero. */
    __u8 tun_ipv6_src[16];      /* Outer IPv6 source... */
    __u8 tun_ipv6_dst[16];      /* ...and destination. */
};

/* Tunnel flags, with the values of OVS's FLOW_TNL_F_*. */
#define XDP_TNL_F_OAM (1 << 0)
#define XDP_TNL_F_UDPIF (1 << 4)    /* 'tun_opts' holds raw options. */
#define XDP_TNL_F_DONT_FRAGMENT (1 << 1)
#define XDP_TNL_F_CSUM (1 << 2)
#define XDP_TNL_F_KEY (1 << 3)

#define XDP_FLOW_KEY_WORDS (sizeof(struct xdp_flow_key) / 8)
/* The layout the comment above promises, checked where this header is
 * compiled: by clang for the programs and by the C compiler for
 * ovs-vswitchd, so that the two never disagree on the key. */
_Static_assert(sizeof(struct xdp_flow_key) == 32 * 8,
               "struct xdp_flow_key is 32 64-bit words");
#define XDP_FLOW_KEY_WORDS32 (sizeof(struct xdp_flow_key) / 4)

/* XDP actions. */
enum xdp_dp_action_type {
    XDP_DP_ACTION_OUTPUT = 1,      /* Send to port 'output.port'. */
    XDP_DP_ACTION_PUSH_VLAN,       /* Push 'vlan' (tci with XDP_VLAN_CFI). */
    XDP_DP_ACTION_POP_VLAN,        /* Pop the outermost VLAN header. */
    XDP_DP_ACTION_SET_ETH,         /* Masked write of Ethernet addresses. */
    XDP_DP_ACTION_SET_IPV4,        /* Masked write of IPv4 fields, with the IP
                                 * and L4 checksums fixed up. */
    XDP_DP_ACTION_SET_L4_PORTS,    /* Masked write of TCP or UDP ports, with the
                                 * L4 checksum fixed up. */
    XDP_DP_ACTION_SET_IPV6_ADDR,   /* Write of an IPv6 address, with the L4
                                 * checksum fixed up. */
    XDP_DP_ACTION_SET_IPV6,        /* Masked write of the IPv6 traffic class,
                                 * flow label and hop limit. */
    XDP_DP_ACTION_HASH,            /* dp_hash = OVS's flow_hash_5tuple() of
                                 * the packet with basis 'hash.basis'
                                 * (OVS_HASH_ALG_L4). */
    XDP_DP_ACTION_RECIRC,          /* Classify the packet again with
                                 * recirc_id 'recirc.id' (last action). */
    XDP_DP_ACTION_CT,              /* OVS's ct() for a connection in the
                                 * connection cache (one per flow; see
                                 * "Connection cache"). */
    XDP_DP_ACTION_TNL_PUSH,        /* Encapsulate in the tunnel header of
                                 * 'tnl_push.len' bytes that the next
                                 * actions hold (see "Tunnels" below);
                                 * only one output may follow. */
    XDP_DP_ACTION_DATA,            /* 'data' for the action before it; does
                                 * nothing itself. */
    XDP_DP_ACTION_TNL_POP,         /* Decapsulate, and classify the inner
                                 * packet again as from tunnel port
                                 * 'tnl_pop.port' (the only action; see
                                 * "Tunnels"). */
    XDP_DP_ACTION_METER,           /* Pass the packet through meter
                                 * 'meter.id', which may drop it (see
                                 * "Meters"). */
    XDP_DP_ACTION_SAMPLE,          /* With probability 'sample.probability'
                                 * (of UINT32_MAX), hand ovs-vswitchd a copy
                                 * of the packet as it is here, to run the
                                 * nested actions of the flow's
                                 * 'sample.index'th sample() on (see
                                 * "Sampling"); the packet goes on. */
    XDP_DP_ACTION_SET_PRIORITY,    /* The skb priority 'priority.value' for
                                 * the outputs that follow it, all of them
                                 * (see "Queues and truncation"). */
    XDP_DP_ACTION_CHECK_PKT_LEN,   /* OVS's check_pkt_len(), as the first
                                 * action, with its le() branch after it
                                 * (see "Packet length checks"). */
    XDP_DP_ACTION_TRUNC,           /* Cut the last of the outputs that
                                 * follow it to 'trunc.max_len' bytes (see
                                 * "Queues and truncation"). */
    XDP_DP_ACTION_CT_CLEAR,        /* OVS's ct_clear: the packet forgets
                                 * what a ct() gave it (OVN's router
                                 * pipeline clears it between switches);
                                 * never in a flow with a ct(). */
};

/* Bits of 'struct xdp_flow''s 'action_bits': (1 << type) for each action
 * type the flow uses, and XDP_DP_ACTION_F_OUTPUTS if it has more than one
 * output.  A compiled program carries code only for the bits some flow
 * had when it was compiled (see 'struct xdp_dp_cfg'). */
#define XDP_DP_ACTION_F_OUTPUTS (1u << 31)

struct xdp_dp_action {
    __u32 type;                 /* enum xdp_dp_action_type. */
    __u32 pad;                  /* Must be zero. */
    union {
        struct {
            __u32 port;         /* Datapath port number. */
        } output;
        struct xdp_vlan_hdr vlan;
        struct {
            __u8 dst[6], dst_mask[6];
            __u8 src[6], src_mask[6];
        } eth;
        struct {
            __be32 src, src_mask;
            __be32 dst, dst_mask;
            __u8 tos, tos_mask;
            __u8 ttl, ttl_mask;
        } ipv4;
        struct {
            __u8 dst;           /* 0: the source address, 1: the
                                 * destination. */
            __u8 pad[3];
            __u8 addr[16];
        } ipv6_addr;
        struct {
            __be32 label, label_mask;   /* In the header's first word. */
            __u8 tclass, tclass_mask;
            __u8 hlimit, hlimit_mask;
        } ipv6;
        struct {
            __u32 basis;        /* Hash basis. */
        } hash;
        struct {
            __u32 id;           /* Recirculation id. */
        } recirc;
        struct {
            __u8 proto;         /* IPPROTO_TCP or IPPROTO_UDP. */
            __u8 pad[3];
            __be16 src, src_mask;
            __be16 dst, dst_mask;
        } l4;
        struct {
            __u16 len;          /* Header length. */
            __u16 port_min;     /* Range of the outer UDP source port, */
            __u16 port_max;     /* picked by the packet's hash. */
            __u16 seq_port;     /* GRE with a sequence number: the tunnel
                                 * port whose count (xdp_dp_gre_seq) it
                                 * takes; 0 otherwise. */
        } tnl_push;
        __u8 data[32];          /* XDP_DP_ACTION_DATA. */
        struct {
            __u32 port;         /* The tunnel port. */
        } tnl_pop;
        struct {
            __u32 id;           /* Meter id (index in xdp_dp_meters). */
        } meter;
        struct {
            __u32 value;        /* skb->priority, as OVS's skb_priority. */
        } priority;
        struct {
            __u32 max_len;      /* OVS_ACTION_ATTR_TRUNC's. */
        } trunc;
        struct {
            __u16 len;          /* OVS_CHECK_PKT_LEN_ATTR_PKT_LEN. */
            __u8 flags;         /* XDP_DP_CPL_F_*. */
            __s8 grow;          /* Bytes that the actions before it add
                                 * to the frame (see "Packet length
                                 * checks"). */
        } check_len;
        struct {
            __u32 probability;  /* OVS_SAMPLE_ATTR_PROBABILITY. */
            __u32 index;        /* Which of the flow's sample()s, in the
                                 * order xdp_actions_compile() met them. */
        } sample;
        struct {
            __u16 zone;         /* Conntrack zone. */
            __u16 flags;        /* XDP_DP_CT_F_*. */
            __u32 mark;         /* ct(commit,exec(set_field:V/M->ct_mark)):
                                 * V... */
            __u32 mark_mask;    /* ...and M, 0 if none. */
        } ct;
    };
};

/* Tunnels
 * =======
 *
 * OVS's native tunneling gives a flow that sends into a tunnel the action
 * tnl_push(header, ...), with the whole outer header prebuilt: Ethernet,
 * IP, UDP and the tunnel's own header.  XDP_DP_ACTION_TNL_PUSH runs it for
 * UDP tunnels (VXLAN, VXLAN-GPE, Geneve), with or without a UDP checksum,
 * and for GRE without a GRE checksum (a key and a sequence number are
 * fine), over IPv4 without options or IPv6 without extension headers
 * (which is how OVS builds them); others stay in ovs-vswitchd.  The header is held
 * by the XDP_DP_ACTION_DATA actions that follow, 32 bytes each: all but
 * the last hold bytes 0-31, 32-63, ..., and the last the header's last 32
 * bytes (overlapping the one before), so that the program copies it with
 * fixed-size moves.  The program fills in what depends on the packet: the
 * outer IPv4 total length and checksum (the prebuilt one is for a total
 * length of 0, as OVS leaves it) or IPv6 payload length, and for UDP
 * tunnels the UDP length, the UDP source port from the packet's hash and
 * the UDP checksum if the header has one (OVS gives every UDP tunnel over
 * IPv6 one), and for GRE the sequence number, the next of the tunnel
 * port's count in xdp_dp_gre_seq, which ovs-vswitchd, mapping the array,
 * counts on for the packets it pushes itself (dpif-xdp-tnl.c): one
 * sequence for the port, whoever pushes.  A packet that arrived in generic mode may be a GSO segment,
 * which only the skb can encapsulate as such: XDP leaves the finished
 * header in xdp_dp_tnl_hdrs and its TC half pushes it with
 * bpf_skb_adjust_room() and the UDP or GRE tunnel GSO flags
 * (XDP_DP_SKB_META_F_TNL_PUSH).  The kernel makes the UDP checksums of the
 * pieces of such a segment only if asked, which bpf_skb_adjust_room()
 * cannot do: over IPv4 they go without one; over IPv6, where receivers
 * refuse that, the flow is XDP_FLOW_F_NO_GSO and such a packet goes to
 * ovs-vswitchd (see xdp-dp-tnl.h), as does one for GRE with a sequence
 * number, which every piece would share. */
/*
 * XDP_DP_ACTION_TNL_POP, on the underlay bridge's flow for the packets
 * addressed to a tunnel endpoint, runs in XDP over IPv4 without options
 * and IPv6 without extension headers, for VXLAN (not VXLAN-GPE), Geneve
 * with up to XDP_TNL_OPTS_LEN bytes of options, and GRE with Ethernet
 * inside and no checksum (a sequence number is skipped, as OVS's pop
 * does), with the UDP checksum, if any, verified; for others, and for a
 * frame of a generic-mode port too long to be anything but a GSO segment,
 * the flow goes to ovs-vswitchd.
 * The program checks the outer headers as OVS's pop does, strips them,
 * gives the packet the tunnel metadata that OVS's pop would (the key's
 * tun_* fields, carried in the packet's metadata), makes the tunnel port
 * its input port and classifies it again, as dpif-netdev does. */
#define XDP_DP_TNL_MIN_HDR 38   /* Ethernet, IPv4, GRE. */
#define XDP_DP_TNL_MAX_HDR 96   /* Three XDP_DP_ACTION_DATA. */

/* A finished tunnel header, per CPU, from XDP to its TC half. */
struct xdp_dp_tnl_hdr {
    __u32 len;                  /* Bytes of 'hdr'. */
    __u32 pad;
    __u8 hdr[XDP_DP_TNL_MAX_HDR];
};

/* Flags of an XDP_DP_ACTION_CT. */
#define XDP_DP_CT_F_NAT    (1 << 0)     /* ct(nat...). */
#define XDP_DP_CT_F_COMMIT (1 << 1)     /* ct(commit...). */

#define XDP_FLOW_MAX_ACTIONS 8

/* Outputs of one flow: with more than one, XDP passes the packet to its TC
 * half with every output's ifindex in the metadata area, which holds 32
 * bytes (struct xdp_dp_skb_meta). */
#define XDP_DP_MAX_OUTPUTS 6

/* Flow flags. */
#define XDP_FLOW_F_SLOW_PATH (1 << 0)   /* Execute in ovs-vswitchd. */
#define XDP_FLOW_F_NO_GSO (1 << 1)      /* Execute in ovs-vswitchd a packet
                                         * that may be a GSO segment: its
                                         * tnl_push is of a UDP tunnel over
                                         * IPv6, or of GRE with a sequence
                                         * number, which the kernel would
                                         * copy into every piece (see
                                         * "Tunnels"). */

/* The value of a flow table entry. */
struct xdp_flow {
    __u32 slot;                 /* Index into the statistics arrays. */
    __u16 flags;                /* XDP_FLOW_F_*. */
    __u16 n_actions;            /* Number of 'actions'; 0 means drop. */
    __u32 action_bits;          /* XDP_DP_ACTION_F_* and 1 << type of each
                                 * action. */
    __u32 pad;                  /* Must be zero. */
    struct xdp_dp_action actions[XDP_FLOW_MAX_ACTIONS];
};

/* Statistics of one flow: one slot of the mmapped statistics array.
 *
 * The array holds a lane of XDP_DP_MAX_FLOWS slots per CPU, and one more
 * for ovs-vswitchd: flow slot S of lane L is element L * XDP_DP_MAX_FLOWS +
 * S.  A program adds a packet to its CPU's lane, so that CPUs forwarding
 * the same megaflow never write one cache line (the kernel datapath's
 * per-CPU flow statistics do the same); ovs-vswitchd adds the packets it
 * classifies itself to the last lane, and a flow's statistics are the sum
 * of its slot in every lane, its 'used' the latest (maps/flow-stats.c).
 * ovs-vswitchd chooses the number of lanes when it creates the array
 * (bpf_map__set_max_entries()), and tells the programs through the
 * constants xdp_dp_stats_cpu_lanes and xdp_dp_stats_own_lane
 * (datapath/xdp-dp-maps.h): with a lane per possible CPU, a lane has one
 * writer, which runs with bottom halves off and cannot be interrupted by
 * another program of its CPU, so plain adds do; with more CPUs than
 * XDP_DP_STATS_MAX_CPU_LANES, CPUs share lanes (CPU modulo the lanes) and
 * add atomically.  A program loaded with the defaults (one lane, as the
 * tests' and the benchmark's own skeletons are) adds atomically to lane 0,
 * which ovs-vswitchd then shares.  The connection cache's counters
 * (xdp_dp_ct_stats, a slot per cached direction) are in the same CPU
 * lanes, without ovs-vswitchd's: it only reads them. */
struct xdp_flow_stats {
    __u64 n_packets;            /* Packets that hit the flow. */
    __u64 n_bytes;              /* Bytes of those packets. */
    __u64 used;                 /* bpf_ktime_get_ns() of the last hit. */
    __u64 tcp_flags;            /* OR of the TCP flags seen (host order);
                                 * 64 bits for a 64-bit atomic OR. */
};

/* Limits. */
#define XDP_DP_MAX_MASKS 64         /* Distinct megaflow masks. */
#define XDP_DP_MAX_FLOWS 262144     /* Flows, and statistics slots. */
#define XDP_DP_STATS_MAX_CPU_LANES 16   /* CPU lanes of the statistics
                                         * array: 8 MB each. */
#define XDP_DP_MAX_PORTS 1024       /* Datapath port numbers. */
#define XDP_DP_MAX_IFINDEX 65536    /* Ingress ifindexes looked up. */
#define XDP_DP_MAX_RECIRC 4         /* Passes through the flow table after
                                     * the first (recirculations) that a
                                     * packet may make; past them it is
                                     * dropped, as OVS's other datapaths
                                     * drop packets that recirculate too
                                     * deep. */

/* The order in which the program visits subtables.  Userspace writes the
 * inactive one of two copies and then flips 'active' in a separate update,
 * so that the program never reads a list that is half written. */
struct xdp_dp_mask_list {
    __u32 n_masks;              /* Number of valid entries in 'slots'. */
    __u32 slots[XDP_DP_MAX_MASKS];  /* Subtable (mask) slots, in order. */
};

/* The mask cache: which compiled subtable a microflow hit last, per CPU,
 * in sets of two, the set indexed by a hash of its key (see
 * classify_compiled()).  As the kernel datapath's mask cache, it only says
 * where to look first. */
#define XDP_DP_MASK_CACHE_SETS 2048     /* Sets per CPU, a power of 2. */
#define XDP_DP_MASK_CACHE_MIN 4         /* Compiled subtables from which a
                                         * program uses it. */
struct xdp_dp_mask_cache_entry {
    __u32 hash[2];              /* Microflows' hashes, the latest first... */
    __u32 csub[2];              /* ...and the indexes of their compiled
                                 * subtables, plus 1 (0: empty). */
};

/* A subtable: its mask.  Indexed by mask slot. */
struct xdp_dp_mask {
    struct xdp_flow_key mask;   /* The megaflow mask. */
};

/* How packets leave through a port. */
enum xdp_dp_tx_mode {
    XDP_DP_TX_NONE = 0,         /* Not a port of ours: drop. */
    XDP_DP_TX_REDIRECT,         /* bpf_redirect_map() on the devmap. */
    XDP_DP_TX_SKB,              /* XDP_PASS with metadata; the TC program on
                                 * the ingress device redirects the skb.
                                 * For devices whose XDP transmit loses
                                 * frames (a veth whose peer has no NAPI). */
    XDP_DP_TX_SLOW,             /* Hand to ovs-vswitchd (e.g. tap). */
    XDP_DP_TX_PEER,             /* As XDP_DP_TX_SKB, but the skb goes
                                 * straight into the ingress of the veth's
                                 * peer, in another namespace, when it is
                                 * addressed to the peer (see struct
                                 * xdp_dp_peer). */
};

/* A port, indexed by datapath port number. */
struct xdp_dp_port {
    __u32 ifindex;              /* Kernel ifindex. */
    __u16 tx_mode;              /* enum xdp_dp_tx_mode. */
    __u16 tnl_type;             /* A tunnel port: XDP_DP_TNL_*, else 0. */
};

/* Outputs through the stack name their devices by ifindex; this bit on
 * one says that the device is a port in XDP_DP_TX_PEER mode, so that the
 * TC program looks its peer up in xdp_dp_peers before it sends. */
#define XDP_DP_IFINDEX_F_PEER (1u << 31)

/* The peer of a veth port in XDP_DP_TX_PEER mode, in xdp_dp_peers by the
 * port's ifindex (one copy per CPU, the counters each CPU's own).
 *
 * A veth hands what it transmits to its peer, which receives it in its
 * namespace after a trip through the per-CPU backlog (netif_rx()) and
 * eth_type_trans(), which marks a frame for another Ethernet address
 * PACKET_OTHERHOST, for the stack to drop.  bpf_redirect_peer() puts the
 * skb straight into the peer's ingress in the same softirq, without that
 * trip, but marks every skb PACKET_HOST (skb_scrub_packet()), and the
 * peer's MTU is not checked.  So the TC programs use it only for a frame
 * addressed to the peer's own Ethernet address and no longer than its MTU
 * allows, as eth_type_trans() and is_skb_forwardable() would have let it
 * through, and send everything else the usual way.  The kernel drops it if
 * the peer is in our own namespace, and it would bypass an XDP program on
 * the peer (which runs in the veth's driver): ovs-vswitchd chooses this
 * mode only for a peer elsewhere without one.
 *
 * It also passes by the port device's transmit path: its qdisc (ports
 * with QoS never get this mode) and its transmit counters, which the
 * programs keep here instead, for ovs-vswitchd to add to the device's. */
struct xdp_dp_peer {
    __u8 mac[6];                /* The peer's Ethernet address. */
    __u16 pad;
    __u32 max_len;              /* Longest non-GSO frame it takes: its MTU
                                 * plus Ethernet and VLAN headers. */
    __u64 tx_packets;           /* Sent to the peer by this CPU. */
    __u64 tx_bytes;
};

/* Tunnel ports whose tnl_pop runs in XDP. */
#define XDP_DP_TNL_VXLAN 1
#define XDP_DP_TNL_GENEVE 2     /* Without options. */
#define XDP_DP_TNL_GRE 3        /* GRE and ip6gre: Ethernet inside, no
                                 * checksum or sequence number. */

/* Values of xdp_dp_in_ports: the datapath port number of the ingress
 * device, and flags about it.
 *
 * XDP_DP_IN_PORT_F_GENERIC: the program runs on the device in generic
 * (skb) mode, where a frame may be a whole GSO segment of up to 64 kB
 * (see dispatcher/xdp-auto-mode.c).  The kernel refuses to XDP-redirect
 * an skb longer than the target's MTU (xdp_ok_fwd_dev()), and generic
 * XDP's redirect is an skb transmit anyway, so the program sends every
 * output of such a packet through its TC half, which redirects the skb,
 * GSO state and all. */
#define XDP_DP_IN_PORT_MASK 0x00ffffffu
#define XDP_DP_IN_PORT_F_GENERIC (1u << 31)

/* XDP_DP_IN_PORT_F_POLICED: the port has an ingress policer (its
 * Interface's ingress_policing_rate or _kpkts_rate), in xdp_dp_policers at
 * its port number; see struct xdp_dp_policer. */
#define XDP_DP_IN_PORT_F_POLICED (1u << 30)

/* An ingress policer: a token bucket that every frame arriving on its port
 * must pass before the flow table sees it, as the kernel's tc policer that
 * OVS installs for ingress_policing_rate passes or drops the frame before
 * the kernel datapath sees it.  Credit is kept, as the kernel's act_police
 * keeps it, in nanoseconds of transmission time at the configured rate:
 * it grows with the time elapsed, up to the burst, and a frame of L bytes
 * costs L * 8e6 / kbits_rate ns.  A packet rate (kpkts_rate) is a second
 * bucket in the same units, a packet costing 'pkt_cost_ns'; a frame passes
 * only if every configured bucket has its cost, and only then is it taken
 * from them.  One policer serves all CPUs, under its spin lock, so the
 * limit holds however the device spreads flows over CPUs.  Userspace
 * writes the configuration (the credit fields zero: the first frame finds
 * a full bucket); the program moves the rest. */
struct xdp_dp_policer {
    struct bpf_spin_lock lock;  /* Taken by the program for the fields
                                 * below that it changes. */
    __u32 kbits_rate;           /* Rate in kbit/s, or 0: no byte limit. */
    __u64 byte_burst_ns;        /* Burst, as time at 'kbits_rate'. */
    __u64 pkt_cost_ns;          /* Time one packet costs, or 0: no packet
                                 * limit. */
    __u64 pkt_burst_ns;         /* Burst of the packet bucket. */
    __u64 byte_credit_ns;       /* Credit of the byte bucket. */
    __u64 pkt_credit_ns;        /* Credit of the packet bucket. */
    __u64 last_ns;              /* bpf_ktime_get_ns() of the last frame. */
    __u64 n_passed;             /* Frames that passed. */
    __u64 n_dropped;            /* Frames dropped. */
    __u64 n_dropped_bytes;      /* Bytes of the frames dropped. */
};

/* Meters
 * ======
 *
 * OpenFlow meters, as dpif-netdev runs them: ofproto gives each meter a
 * datapath id below XDP_DP_MAX_METERS and a flow that uses it the action
 * meter(id), which passes every packet through the meter's bands.  Each
 * band is a token bucket that fills at its rate, in bits (kbit/s) or in
 * thousandths of a packet (packet/s) per millisecond, up to its burst; a
 * packet takes its bits (or 1000) from every band that has them, and the
 * band with the highest rate among those that had not drops it.  The
 * buckets of a meter are shared by the CPUs, changed with atomic
 * operations (xdp-dp-meter.h says how and why not under a lock), so that
 * the rate is the meter's whatever the number of CPUs its packets arrive
 * on; XDP and ovs-vswitchd (for the packets it executes, through the
 * program xdp_dp_meter_run) take from the same buckets.  ovs-vswitchd
 * writes a meter whole, with full buckets; the counters that meter-stats
 * shows are per CPU, in xdp_dp_meter_stats under the same index, and
 * ovs-vswitchd zeroes them when it sets or deletes the meter. */
#define XDP_DP_MAX_METERS 4096
#define XDP_DP_METER_MAX_BANDS 4

struct xdp_dp_meter_band {
    __u32 rate;                 /* kbit/s, or packet/s (XDP_DP_METER_F_PKTPS). */
    __u32 pad;
    __u64 bucket_max;           /* Burst, in bucket units (x 1000). */
    __u64 bucket;               /* Bits, or thousandths of a packet; signed
                                 * (a moment below zero while a packet
                                 * gives back what it took). */
};

struct xdp_dp_meter {
    __u32 flags;                /* XDP_DP_METER_F_*. */
    __u32 n_bands;              /* At most XDP_DP_METER_MAX_BANDS. */
    __u32 max_delta_ms;         /* Time that fills every bucket. */
    __u32 pad;
    __u64 used_ms;              /* bpf_ktime_get_ns() / 1000000 of the
                                 * last refill. */
    struct xdp_dp_meter_band bands[XDP_DP_METER_MAX_BANDS];
};

/* A meter's counters, on one CPU. */
struct xdp_dp_meter_stats {
    __u64 n_packets;            /* Packets that met the meter... */
    __u64 n_bytes;              /* ...and their bytes. */
    struct {
        __u64 n_packets;        /* Packets that this band dropped... */
        __u64 n_bytes;          /* ...and their bytes. */
    } bands[XDP_DP_METER_MAX_BANDS];
};
#define XDP_DP_METER_F_SET   (1 << 0)   /* The meter exists. */
#define XDP_DP_METER_F_PKTPS (1 << 1)   /* Rates in packet/s, not kbit/s. */

/* What ovs-vswitchd hands xdp_dp_meter_run (through BPF_PROG_TEST_RUN) as
 * the frame, for a packet it executes: the meter and the packet's
 * length.  The program returns XDP_PASS or XDP_DROP. */
struct xdp_dp_meter_run {
    __u32 id;
    __u32 len;
};

/* Datapath counters, per CPU.  Only the programs move them (the XDP
 * program and its TC half, and the TC pipeline of ports in tc mode),
 * never ovs-vswitchd: they are the proof of what was switched where.  A
 * packet is counted as switched in the datapath ('n_hit', and its flow's
 * statistics slot) only once a program runs its flow's actions; a hit on
 * a slow-path flow is 'n_slow_path' alone, and ovs-vswitchd counts it in
 * the flow's slot when it executes the flow.  The TC pipeline counts its
 * packets as the XDP program counts its own, and its share again in the
 * 'n_tc_*' members that only it moves. */
struct xdp_dp_stats {
    __u64 n_hit;                /* Packets whose flow's actions XDP ran. */
    __u64 n_missed;             /* Packets that matched none: sent up. */
    __u64 n_lost;               /* Upcalls that could not be queued. */
    __u64 n_mask_hit;           /* Subtables visited for matched packets. */
    __u64 n_slow_path;          /* Hits on slow-path flows: sent up. */
    __u64 n_tx_error;           /* Outputs that failed in XDP. */
    __u64 n_upcall_limited;     /* Upcalls dropped because their port had
                                 * used its budget (also in 'n_lost'). */
    __u64 n_fallback;           /* Compiled program: packets that missed
                                 * every compiled subtable and went through
                                 * the generic classifier. */
    __u64 n_recirc_limited;     /* Packets dropped for recirculating more
                                 * than XDP_DP_MAX_RECIRC times. */
    __u64 n_forwarded;          /* Packets the XDP program sent on to their
                                 * output ports itself: redirected, or
                                 * passed to its TC half with the ports. */
    __u64 n_dropped;            /* Packets dropped by their flow's actions
                                 * (no output). */
    __u64 n_output_upcall;      /* Outputs to ports that only ovs-vswitchd
                                 * can transmit on (XDP_DP_TX_SLOW): sent
                                 * up after XDP ran the flow's actions. */
    __u64 n_tc_redirected;      /* Packets the TC half redirected to their
                                 * output ports. */
    __u64 n_tc_error;           /* Packets the TC half dropped (bad metadata
                                 * or a checksum it could not fix). */
    __u64 n_tc_tnl_no_csum;     /* Packets the TC half encapsulated with a
                                 * UDP checksum of 0 although their tunnel
                                 * has checksums (see xdp-dp-tnl.h). */
    __u64 n_ct_hit;             /* ct() actions run in XDP: the packet's
                                 * connection was in the cache. */
    __u64 n_ct_miss;            /* ct() actions XDP could not run (not in
                                 * the cache, or a packet that lib/conntrack
                                 * must see): the packet went up as a
                                 * slow-path hit. */
    __u64 n_policed;            /* Frames dropped by their ingress port's
                                 * policer (struct xdp_dp_policer). */
    __u64 n_metered;            /* Packets dropped by a meter's band. */
    __u64 n_sampled;            /* Copies that sample() actions sent up. */
    __u64 n_sample_limited;     /* Copies that sample() actions drew but
                                 * did not send: their port had used its
                                 * sampling budget, or the ring was full. */
    __u64 n_tnl_push;           /* Packets encapsulated by tnl_push: by XDP
                                 * (native mode) or by the TC half. */
    __u64 n_tnl_pop;            /* Packets decapsulated by tnl_pop in XDP. */
    __u64 n_tc_hit;             /* The TC pipeline's share (tc-dp.bpf.c,
                                 * which counts its packets in the members
                                 * above as the XDP program counts its
                                 * own) of 'n_hit', */
    __u64 n_tc_forwarded;       /* 'n_forwarded', */
    __u64 n_tc_missed;          /* 'n_missed' */
    __u64 n_tc_slow_path;       /* and 'n_slow_path'. */
    __u64 n_tc_peer;            /* Packets the TC programs sent straight
                                 * into a veth peer's ingress (see struct
                                 * xdp_dp_peer). */
    __u64 n_upcall_quiet;       /* Upcalls written while their reader was
                                 * awake, without a wakeup (see "Upcall
                                 * wakeups"), */
    __u64 n_upcall_nudge;       /* and of those, the ones after which it
                                 * had to be woken all the same. */
    __u64 n_ct_next;            /* Packets that skipped the pass after a
                                 * cached ct() (see "The pass after a
                                 * cached ct()"). */
    __u64 mask_hits[XDP_DP_MAX_MASKS];  /* Hits per subtable (mask slot),
                                         * to rank subtables. */
};

/* Compiled programs
 * =================
 *
 * The program reads 'struct xdp_dp_cfg' from its read-only data section
 * (a 'const volatile' global that userspace fills in before loading).  The
 * verifier knows those values as constants and removes the branches they
 * rule out, so one object file gives both the generic program ('enabled'
 * 0: every feature, subtables in the order of xdp_dp_mask_lists) and
 * programs specialised to one flow table (see ofproto-xdp/xdp-compile.c).
 *
 * A compiled subtable looks its packets up by a compact key: only the
 * key's 32-bit words that the mask touches, masked, packed one after the
 * other and padded with zero words to the next of the key sizes
 * XDP_DP_CKEY_CLASSES, in a hash map of that key size (xdp_dp_ckeys_<N>
 * for N words, an array of maps indexed by mask slot), so that the kernel
 * hashes and compares 8 to 64 bytes instead of the full key.  (A few key
 * sizes, not all 16: each is a case in every compiled subtable's code,
 * and the compiler unrolls the subtables only while the code is small.)  (32-bit
 * words, because megaflow masks touch many fields of 4 bytes or less: the
 * recirculation id, the port, the Ethertype, the VLAN, IPv4 addresses.)
 * A mask that touches more than XDP_DP_CKEY_MAX_WORDS words is looked up
 * in its full-size subtable (ckey_words 0), with the mask still a
 * constant. */
#define XDP_DP_MAX_CSUBS XDP_DP_MAX_MASKS   /* Compiled subtables. */
#define XDP_DP_CKEY_MAX_WORDS 16            /* Largest compact key, in
                                             * 32-bit words. */
#define XDP_DP_CKEY_CLASSES 2, 4, 6, 8, 12, 16  /* Compact key sizes, in
                                                 * 32-bit words. */

/* One compiled subtable. */
struct xdp_dp_csub {
    __u32 slot;                 /* Mask slot. */
    __u32 ckey_words;           /* 32-bit words of the compact key (one of
                                 * XDP_DP_CKEY_CLASSES), or 0: the full
                                 * key, in xdp_dp_subtables. */
    __u32 n_words;              /* 32-bit words of the key the mask
                                 * touches. */
    __u8 word[XDP_FLOW_KEY_WORDS32];    /* Their indexes, ascending. */
    __u32 mask[XDP_FLOW_KEY_WORDS32];   /* Their masks. */
};

/* What a program was compiled for. */
struct xdp_dp_cfg {
    __u32 enabled;              /* 0: the generic program. */
    __u32 n_csubs;              /* Compiled subtables, in visiting order. */
    __u32 parse_l4;             /* 0: no compiled mask needs the transport
                                 * layer; only TCP's (for the counters' TCP
                                 * flags) and ICMPv6's (Neighbor Discovery)
                                 * are parsed before the compiled lookups. */
    __u32 action_bits;          /* Actions with code in the program (see
                                 * XDP_DP_ACTION_F_OUTPUTS). */
    __u32 execute_call;         /* 1: a flow's actions run in a global
                                 * function, xdp_dp_execute__(), which the
                                 * verifier checks once, not once for each
                                 * kind of subtable a flow came from (see
                                 * "Passes" in xdp-dp.bpf.c). */
    __u32 pad;
    struct xdp_dp_csub csubs[XDP_DP_MAX_CSUBS];
};

/* Upcall budget of one port on one CPU: at most 'xdp_dp_upcall_burst'
 * misses (a global of the program) in each XDP_DP_UPCALL_WINDOW_NS, so
 * that a port that floods ovs-vswitchd with misses cannot fill the upcall
 * rings and starve the other ports' upcalls.  The rest are dropped and
 * counted as lost.  The other upcalls (slow-path flows, a ct() whose
 * connection XDP has not cached, outputs that only ovs-vswitchd makes)
 * have a budget of their own, 'xdp_dp_slow_path_burst' in each
 * XDP_DP_SLOW_PATH_WINDOW_NS, which XDP_DP_SLOW_PATH_BURST() derives from
 * the misses' budget: 16 times the rate, so 4096 per 10 ms by default: a
 * handler executes such a packet with no translation and no flow to
 * install (about 4 us each, 0.25 Mpps for one handler on ovs-xdp-bench
 * forward's conntrack-slow), and these are the packets of connections
 * being set up and of flows that must run in ovs-vswitchd, which a budget
 * made for storms of misses held to a tenth of what a handler can do.
 * Its window is a tenth as long, so that a flood comes in bursts that a
 * handler's queue holds whole (dpif-xdp-upcall.c): with 10 ms, a budget's
 * worth came in the first 2 ms, most of it was dropped for want of room
 * and the handler then idled (0.18 instead of 0.25 Mpps). */
struct xdp_dp_upcall_budget {
    __u64 window_start;         /* bpf_ktime_get_ns() of the window. */
    __u64 n_upcalls;            /* Upcalls in the window so far. */
};
#define XDP_DP_UPCALL_WINDOW_NS 10000000ULL     /* 10 ms. */
#define XDP_DP_UPCALL_BURST 256                 /* Default budget. */
#define XDP_DP_SLOW_PATH_WINDOW_NS (XDP_DP_UPCALL_WINDOW_NS / 10)
#define XDP_DP_SLOW_PATH_BURST(UPCALL_BURST) \
    (((UPCALL_BURST) * 16 + 9) / 10)

/* Sampling
 * ========
 *
 * ofproto gives a flow that sFlow, bridge IPFIX or an OpenFlow sample
 * action watches the action sample(probability, actions(userspace(...))).
 * XDP_DP_ACTION_SAMPLE draws bpf_get_prandom_u32() against the
 * probability and, for a hit, sends up a copy of the packet as it is at
 * that point (an XDP_DP_UPCALL_SAMPLE with the flow's slot and which of
 * its sample()s drew it); ovs-vswitchd runs that sample()'s nested actions
 * on the copy with odp_execute_actions(), so that its userspace action
 * becomes the DPIF_UC_ACTION upcall, cookie and all, that ofproto's sFlow
 * and IPFIX exporters expect.  The packet itself goes on in XDP.
 *
 * A copy holds at most XDP_DP_SAMPLE_MAX_COPY bytes, and ovs-vswitchd
 * fills the rest of a longer packet (a jumbo frame, a GSO segment) with
 * zeros: what sFlow and IPFIX export of a packet is its length and its
 * headers.  Copies have a budget of their own, XDP_DP_SAMPLE_BURST per
 * port per CPU per XDP_DP_UPCALL_WINDOW_NS, in the second half of
 * xdp_dp_upcall_budget, so that sampling every packet cannot starve the
 * port's misses; a copy over it is counted (n_sample_limited) and not
 * sent, and the packet is not touched.
 *
 * Copies go up rings of their own, xdp_dp_samples, which ovs-vswitchd
 * opens to be woken every XDP_DP_SAMPLE_WAKEUP records, and reads at
 * least every DP_XDP_SAMPLE_POLL_MS besides: a wakeup for each copy, as
 * the upcall rings give each miss, cost ovs-xdp-bench forward's sflow
 * pipeline 30% of its throughput (0.69 of stateless; 0.93 with no copy
 * sent at all). */
#define XDP_DP_SAMPLE_MAX_COPY 1536
#define XDP_DP_SAMPLE_BURST 256
#define XDP_DP_SAMPLE_WAKEUP 32

/* Upcall wakeups
 * ==============
 *
 * A perf event that wakes its reader at every record (wakeup_events 1,
 * what perf_buffer__new() asks for) makes the kernel raise an irq_work for
 * each one: a self-IPI, which in a virtual machine costs the CPU that
 * sends the upcall about 6 us.  With every packet of a connection that
 * XDP does not cache going up, that was 43% of all CPU time on
 * ovs-xdp-bench forward's conntrack-slow pipeline.  A wakeup is needed
 * only when the reader sleeps, which is what a BPF ring buffer's
 * "adaptive" notification does; perf rings copy a frame of any length
 * from an XDP buffer or an skb, which a ring buffer cannot, so the same is
 * done by hand:
 *
 * - Each CPU's upcall ring has a second, quiet perf event writing into it
 *   (PERF_EVENT_IOC_SET_OUTPUT), which never wakes anybody: entries of
 *   xdp_dp_upcalls_quiet.
 * - xdp_dp_upcall_awake (mmapped by ovs-vswitchd) holds, per CPU, whether
 *   the handler that reads that CPU's ring is awake.  While it is,
 *   upcall_output() writes through the quiet event; then it reads the flag
 *   again with an atomic operation (a full barrier) and, if the handler
 *   went to sleep meanwhile, sends a 4-byte XDP_DP_UPCALL_NUDGE record
 *   through the waking event.
 * - The handler clears its flags with a full barrier too, before it reads
 *   its rings one last time and sleeps.  So either it sees the record, or
 *   the program sees the cleared flag and wakes it: nothing is left in a
 *   ring while its reader sleeps.
 *
 * Without the quiet events (a reader that never set them up), the output
 * falls back to the waking event. */
#define XDP_DP_MAX_CPUS 1024

/* Upcalls: what precedes the packet in each perf event sample. */
enum xdp_dp_upcall_type {
    XDP_DP_UPCALL_MISS = 1,     /* No flow matched: for ofproto. */
    XDP_DP_UPCALL_SLOW_PATH,    /* A slow-path flow matched: execute its
                                 * actions in ovs-vswitchd. */
    XDP_DP_UPCALL_OUTPUT,       /* Output to a XDP_DP_TX_SLOW port, after
                                 * the flow's other actions ran. */
    XDP_DP_UPCALL_SAMPLE,       /* A copy drawn by a sample() action: run
                                 * its nested actions in ovs-vswitchd (see
                                 * "Sampling"). */
    XDP_DP_UPCALL_NUDGE,        /* Only this __u32: wakes the reader (see
                                 * "Upcall wakeups"). */
};

struct xdp_dp_upcall {
    __u32 type;                 /* enum xdp_dp_upcall_type. */
    __u32 in_port;              /* Datapath port number of the ingress. */
    __u32 slot;                 /* Flow slot (SLOW_PATH), or output port
                                 * number (OUTPUT). */
    __u32 pkt_len;              /* Length of the packet that follows. */
    __u32 recirc_id;            /* The packet's recirculation id and... */
    __u32 dp_hash;              /* ...datapath hash (0 before any). */
    __u32 gso_size;             /* The packet is a GSO segment of datagrams
                                 * (or TCP segments) of this many bytes of
                                 * payload, or 0 (see
                                 * XDP_DP_SKB_META_F_UPCALL). */
    __be16 vlan_tpid;           /* Upcalls by the TC half: the outer VLAN
                                 * tag that the kernel took out of the
                                 * frame into the skb, which ovs-vswitchd
                                 * puts back, or 0 if none... */
    __be16 vlan_tci;            /* ...and its TCI. */
    __u32 ct;                   /* The conntrack metadata that a ct() in
                                 * XDP gave the packet (see
                                 * XDP_DP_PKT_CT_*), 0 if none. */
    __u32 sample;               /* SAMPLE: which of the flow's sample()s
                                 * (its 'sample.index'). */
    __u32 orig_len;             /* SAMPLE: the packet's length, of which
                                 * the first 'pkt_len' bytes follow.
                                 * OUTPUT by the TC half: the length to
                                 * cut the packet to (see tc_trunc()). */
    __u32 ifindex;              /* OUTPUT by the TC half: the device to
                                 * send to, instead of 'slot'; else 0. */
    __be64 tun_id;              /* The tunnel metadata that a tnl_pop in */
    __be32 tun_src;             /* XDP gave the packet, if 'tun_dst' or */
    __be32 tun_dst;             /* 'tun_ipv6_dst' is not zero: the key's
                                 * tun_* fields. */
    __be16 tun_tp_src;
    __be16 tun_tp_dst;
    __u8 tun_tos;
    __u8 tun_ttl;
    __u16 tun_flags;            /* XDP_TNL_F_*. */
    __u8 tun_opts[XDP_TNL_OPTS_LEN];    /* The Geneve options, zero-
                                         * padded... */
    __u8 tun_opts_len;          /* ...and their length. */
    __u8 pad2[7];               /* Zero. */
    __u8 tun_ipv6_src[16];      /* The outer IPv6 addresses, if the */
    __u8 tun_ipv6_dst[16];      /* tunnel's underlay is IPv6. */
};

/* Connection cache
 * ================
 *
 * Open vSwitch's userspace connection tracker (lib/conntrack.c, in
 * ovs-vswitchd) holds every connection's state.  IPv4 and IPv6
 * connections of TCP, UDP and ICMP echo are cached; IPv6 ones without
 * NAT.  The connection cache is
 * a copy of what ct() gives the packets of established connections, one
 * entry per direction, which ovs-vswitchd installs and removes
 * (ofproto-xdp/dpif-xdp-ctcache.c), so that ct() runs in XDP for them as
 * netfilter's flowtable runs it for the kernel: only established
 * connections, everything else in the slow path.
 *
 * 'xdp_dp_ct' maps a packet's tuple, as the ct() action sees it, to a
 * slot; the slot indexes 'xdp_dp_ct_entries' (what ct() gives the packet)
 * and the mmapped 'xdp_dp_ct_stats' (packets, bytes and the time of the
 * last use, which ovs-vswitchd folds back into lib/conntrack.c so that a
 * connection used only in XDP does not expire there). */
#define XDP_DP_MAX_CT 65536         /* Cache entries (directions). */

struct xdp_dp_ct_key {
    __u16 zone;                 /* Conntrack zone. */
    __u8 nw_proto;              /* IPPROTO_TCP, _UDP, _ICMP or _ICMPV6. */
    __u8 ipv6;                  /* 1 for IPv6, 0 for IPv4. */
    __u8 src[16];               /* Source address (IPv4: the first 4 bytes,
                                 * the rest zero)... */
    __u8 dst[16];               /* ...and destination. */
    __be16 sport;               /* TCP or UDP ports; for ICMP, the echo
                                 * identifier... */
    __be16 dport;               /* ...and the ICMP type in the high byte. */
};

struct xdp_dp_ct_entry {
    __u8 state;                 /* CS_* bits for this direction: tracked,
                                 * established, reply. */
    __u8 nat_state;             /* CS_SRC_NAT or CS_DST_NAT, added when
                                 * the ct() has nat. */
    __u16 zone;                 /* Conntrack zone. */
    __u32 mark;                 /* Connection mark. */
    __u8 label[16];             /* Connection label. */
    __be32 orig_src;            /* The original direction's tuple (IPv4
                                 * addresses only: zero for IPv6, as in
                                 * OVS's 'struct flow'). */
    __be32 orig_dst;
    __be16 orig_sport;          /* ICMP: the type. */
    __be16 orig_dport;          /* ICMP: the code. */
    __u8 orig_proto;
    __u8 pad[3];                /* Must be zero. */
    __u32 gen;                  /* Changes whenever ovs-vswitchd writes
                                 * the entry (see "The pass after a cached
                                 * ct()"). */
    struct xdp_dp_action nat_ip;    /* ct(nat): XDP_DP_ACTION_SET_IPV4 and */
    struct xdp_dp_action nat_l4;    /* XDP_DP_ACTION_SET_L4_PORTS, all masks
                                     * zero if NAT changes nothing. */
};

/* The pass after a cached ct()
 * ----------------------------
 *
 * A flow that is only a ct() and its recirc (what ofproto makes of every
 * ct(table=N)) sends each packet of an established connection through
 * the flow table again, and for one connection direction, ingress port and
 * recirculation id that pass finds the same flow, so long as that flow
 * matches only fields that the cache entry fixes: the metadata of the
 * pass, the ct_* fields, and the tuple (Ethertype, IP protocol, addresses,
 * ports; a cached packet is never a fragment).  The program remembers, per
 * cache slot, the flow that the pass after the ct() found
 * ('xdp_dp_ct_next'), and a later packet skips that pass while the
 * remembered flow is installed and has a single output: it counts the
 * packet in that flow's statistics and sends it to the output (counted
 * in 'n_ct_next').  The tuple of a fast pass and a slow one is the same;
 * only the classification is saved (a hash lookup or more, and the
 * second call of the pass).
 *
 * 'xdp_dp_flow_ids' holds, per statistics slot, the installed flow's id
 * (XDP_DP_FLOW_ID_BITS of a number that ovs-vswitchd never gives twice to
 * one slot in that many installs, never 0) and, if the flow may be
 * remembered, its output port plus one (ofproto-xdp/dpif-xdp-flow.c
 * decides: one output action, a mask within the fields above).
 *
 * The Ethernet addresses are not in a cache entry, yet the flows after
 * ct() that an "actions=NORMAL" stage makes match them exactly: such a
 * flow may be remembered too, with the addresses it matches beside its id
 * (XDP_DP_FLOW_IDS_F_ETH_DST, _SRC), and a packet skips to it only if its
 * own addresses are those, as the classifier would have checked.  Packets
 * of one direction with other addresses make the pass and record the flow
 * they find, as after a flow change.  ovs-vswitchd zeroes 'ids' before it
 * writes the addresses and the new id after them, and the program reads
 * 'ids' again after the addresses: the same id twice means addresses and
 * id belong to one flow.
 *
 * An entry of 'xdp_dp_ct_next' says for which pass it holds ('owner':
 * the recirculation id, the ingress port and the cache entry's 'gen') and
 * what that pass found ('flow': the flow's slot, its id and 'gen' again).
 * The first packet that reaches the second pass finds 'owner' zero (or
 * from an older 'gen') and claims it with a compare-and-exchange; from
 * then on only packets of the same pass (same 'owner') write 'flow', and
 * whatever one of them writes is right for all of them.  A flow deleted
 * or changed changes its id, and the next packet records the flow that
 * replaced it.
 * ovs-vswitchd zeroes the entry (through mmap()) and changes 'gen'
 * whenever it writes the cache entry, so a claim made from what the entry
 * said before is never taken for one made after; 'gen' in 'flow' keeps a
 * 'flow' written before the zeroing from being read with an 'owner'
 * written after it, whatever the order in which a CPU sees the two. */
struct xdp_dp_ct_next {
    __u64 owner;                /* XDP_DP_CT_NEXT_OWNER(), 0: unclaimed. */
    __u64 flow;                 /* XDP_DP_CT_NEXT_FLOW(). */
};
#define XDP_DP_CT_GEN_MASK 0x3fffffu    /* The bits of 'gen' used. */
#define XDP_DP_FLOW_ID_BITS 24
#define XDP_DP_FLOW_ID_MASK ((1u << XDP_DP_FLOW_ID_BITS) - 1)
#define XDP_DP_CT_NEXT_OWNER(RECIRC_ID, IN_PORT, GEN)       \
    (((__u64) (RECIRC_ID) << 32)                            \
     | ((__u64) ((IN_PORT) & 0x3ff) << 22)                  \
     | ((GEN) & XDP_DP_CT_GEN_MASK))
#define XDP_DP_CT_NEXT_FLOW(SLOT, ID, GEN)                  \
    (((__u64) ((GEN) & XDP_DP_CT_GEN_MASK) << 42)           \
     | ((__u64) ((ID) & XDP_DP_FLOW_ID_MASK) << 18)         \
     | ((SLOT) & (XDP_DP_MAX_FLOWS - 1)))
#define XDP_DP_CT_NEXT_SLOT(FLOW) ((__u32) (FLOW) & (XDP_DP_MAX_FLOWS - 1))
#define XDP_DP_CT_NEXT_ID(FLOW) ((__u32) ((FLOW) >> 18) & XDP_DP_FLOW_ID_MASK)
#define XDP_DP_CT_NEXT_GEN(FLOW) ((__u32) ((FLOW) >> 42))
/* An 'xdp_dp_flow_ids' element: 'ids' is the flow's id, its output port
 * plus one (0: none) and XDP_DP_FLOW_IDS_F_* flags; the addresses are
 * those the flow matches exactly, where a flag says so. */
struct xdp_dp_flow_ids {
    __u64 ids;                  /* XDP_DP_FLOW_IDS(). */
    __u8 eth_dst[6];            /* With XDP_DP_FLOW_IDS_F_ETH_DST. */
    __u8 eth_src[6];            /* With XDP_DP_FLOW_IDS_F_ETH_SRC. */
    __u32 pad;
};
#define XDP_DP_FLOW_IDS_F_ETH_DST (1ull << 40)
#define XDP_DP_FLOW_IDS_F_ETH_SRC (1ull << 41)
#define XDP_DP_FLOW_IDS(ID, PORT_PLUS_1)                    \
    (((__u64) ((ID) & XDP_DP_FLOW_ID_MASK) << 16) | ((PORT_PLUS_1) & 0xffff))
#define XDP_DP_FLOW_IDS_ID(V) ((__u32) ((V) >> 16) & XDP_DP_FLOW_ID_MASK)
#define XDP_DP_FLOW_IDS_PORT1(V) ((__u32) (V) & 0xffff)
_Static_assert(XDP_DP_MAX_FLOWS == 1 << 18, "XDP_DP_CT_NEXT_FLOW's slot");
_Static_assert(XDP_DP_MAX_PORTS <= 1024, "XDP_DP_CT_NEXT_OWNER's port");

/* What a packet carries from a ct() in XDP to later passes and upcalls:
 * the cache slot plus one, and whether NAT was applied. */
#define XDP_DP_PKT_CT_SLOT_MASK 0x00ffffffu
#define XDP_DP_PKT_CT_F_NAT (1u << 31)

/* Pinned layout
 * =============
 *
 * A datapath's maps are pinned under XDP_DP_PIN_ROOT/<datapath name>/ so
 * that a restarted ovs-vswitchd finds its flow table, statistics and port
 * attachments (links/<ifindex>) where it left them, while the program keeps
 * forwarding.  The single entry of map "xdp_dp_layout" says what layout
 * the other maps have; ovs-vswitchd reuses pinned maps only when it
 * matches its own exactly, and otherwise removes them all and starts
 * afresh (see maps/pin.c). */
#define XDP_DP_PIN_ROOT "/sys/fs/bpf/ovs-xdp"
#define XDP_DP_LAYOUT_MAGIC 0x4f565358  /* "OVSX" */

struct xdp_dp_layout {
    __u32 magic;                /* XDP_DP_LAYOUT_MAGIC. */
    __u32 abi_version;          /* XDP_DP_ABI_VERSION. */
    __u32 key_size;             /* sizeof(struct xdp_flow_key). */
    __u32 flow_size;            /* sizeof(struct xdp_flow). */
    __u32 stats_size;           /* sizeof(struct xdp_flow_stats). */
    __u32 max_flows;            /* XDP_DP_MAX_FLOWS. */
    __u32 max_masks;            /* XDP_DP_MAX_MASKS. */
    __u32 max_ports;            /* XDP_DP_MAX_PORTS. */
};

/* What ovs-vswitchd needs to give ofproto back a flow after a restart:
 * the flow's UFID and the ODP key, mask and actions it was installed with,
 * in 'data' one after the other.  Keyed by statistics slot; only
 * userspace reads or writes it. */
#define XDP_DP_FLOW_META_DATA 1024
struct xdp_dp_flow_meta {
    __u32 ufid[4];              /* The flow's UFID. */
    __u16 key_len;              /* Bytes of ODP key at 'data'. */
    __u16 mask_len;             /* Bytes of ODP mask after the key. */
    __u16 actions_len;          /* Bytes of ODP actions after the mask. */
    __u16 pad;                  /* Must be zero. */
    __u8 data[XDP_DP_FLOW_META_DATA];
};

/* Packet length checks
 * ====================
 *
 * ofproto puts OVS's check_pkt_len(size=N,gt(...),le(...)) last in a
 * flow's actions (OVN's gateway MTU check, check_pkt_larger), with the
 * rest of the pipeline translated twice, once in each branch.  XDP runs
 * the le() branch, for frames of at most 'check_len.len' bytes (Ethernet
 * header included, as OVS counts): the compiler makes the flow's actions
 * XDP_DP_ACTION_CHECK_PKT_LEN, then those before the check_pkt_len, then
 * those of le().  A longer frame is dropped in XDP if gt() drops it
 * (XDP_DP_CPL_F_GT_DROP) and otherwise goes to ovs-vswitchd
 * (XDP_DP_CPL_F_GT_SLOW), before any action touches it, which is where
 * OVN's gt() goes anyway: its userspace() asks ovn-controller for an ICMP
 * "fragmentation needed".  (Running a second list of actions in XDP
 * took the verifier past its limit of a million instructions: the action
 * loop then starts anywhere.)  An le() that XDP cannot run sends the
 * short frames up too (XDP_DP_CPL_F_LE_SLOW).
 *
 * A frame that arrived in generic mode may be a whole GSO segment, which
 * the wire carries as frames no longer than the ingress device's MTU: as
 * the kernel datapath checks each segment's length, such a frame counts
 * as short when its device's MTU plus an Ethernet header fits in
 * 'check_len.len', and as long otherwise.
 *
 * The length is dpif-netdev's (odp_execute_check_pkt_len()): the frame
 * as the actions before the check_pkt_len() left it, without the L2
 * padding behind an IP packet.  XDP checks before any action, so the
 * compiler sums what those actions add, 4 bytes per push_vlan, less 4 per
 * pop_vlan, into 'check_len.grow' (a trunc() before the check leaves the
 * flow to ovs-vswitchd), and the program leaves out the bytes past the IP
 * packet's own length.  (The kernel datapath counts neither: a tag it
 * pushes is out of band, in the skb, and it keeps the padding.  Where the
 * two disagree, XDP follows dpif-netdev, which ovs-vswitchd's own
 * execution of a miss is.)  One difference is left: an IPv6 packet whose
 * extension headers do not parse is counted here with its padding, which
 * OVS leaves out (it finds the padding before the extension headers). */
#define XDP_DP_CPL_F_GT_SLOW 0x01
#define XDP_DP_CPL_F_LE_SLOW 0x02
#define XDP_DP_CPL_F_GT_DROP 0x04

/* Queues and truncation
 * =====================
 *
 * OpenFlow's set_queue becomes set(skb_priority(0x1000N)) in front of the
 * outputs (dpif_xdp's queue_to_priority is the kernel datapath's), for
 * the device's qdisc, which classifies by skb->priority (linux-htb's class
 * 1:N, for queue N - 1).  Only the skb path passes a qdisc, and a port
 * with QoS transmits by skb (dpif-xdp-port.c), so XDP hands the priority
 * to its TC half, which sets skb->priority before the redirect.  The
 * compiler puts XDP_DP_ACTION_SET_PRIORITY just before the flow's outputs,
 * which it then applies to, with at most XDP_DP_MAX_OUTPUTS - 1 of them:
 * the priority travels in the last ifindex of 'struct xdp_dp_skb_meta'.
 *
 * OVS's trunc(N), which ofproto puts before a mirror's output when the
 * mirror has a snaplen, cuts the packet for the next output only.  The
 * compiler makes that output the last of the flow's outputs (their order
 * matters nowhere else) and puts XDP_DP_ACTION_TRUNC before them, in the
 * place of a priority, which a flow cannot have with it.  A single output
 * is cut in XDP (bpf_xdp_adjust_tail()); with several, the TC half cuts
 * the skb (bpf_skb_change_tail(), GSO too) after cloning it to the
 * others, with N in the same last ifindex. */

/* Metadata that XDP leaves in front of the packet for its TC half, which
 * redirects the skb to 'ifindex[n_outputs - 1]' after cloning it to each
 * of the others: for outputs to XDP_DP_TX_SKB ports, and for flows with
 * several outputs.
 *
 * TCP and UDP checksums of packets that become skbs are fixed up by the TC
 * half, not in XDP: a packet sent by a local socket may carry a partial
 * checksum (checksum offload), which XDP cannot tell from a full one but
 * the kernel's bpf_l4_csum_replace() can.  XDP rewrites the fields and the
 * IPv4 header checksum, and passes how the TCP or UDP checksum must change:
 * 'csum_pseudo' for fields of the pseudo-header (addresses), 'csum_other'
 * for the rest (ports), each a 16-bit one's-complement difference. */
struct xdp_dp_skb_meta {
    __u16 magic;                /* XDP_DP_SKB_META_MAGIC. */
    __u8 n_outputs;             /* 1 to XDP_DP_MAX_OUTPUTS. */
    __u8 flags;                 /* XDP_DP_SKB_META_F_*. */
    __u16 csum_pseudo;          /* See above. */
    __u16 csum_other;           /* See above. */
    union {
        __u32 ifindex[XDP_DP_MAX_OUTPUTS];  /* Where to send the skb;
                                             * the last one is the
                                             * priority with
                                             * XDP_DP_SKB_META_F_PRIORITY
                                             * (see "Queues and truncation"). */
        struct {                /* XDP_DP_SKB_META_F_UPCALL: */
            __u32 type;         /* struct xdp_dp_upcall's members. */
            __u32 in_port;
            __u32 slot;
            __u32 recirc_id;
            __u32 dp_hash;
            __u32 ct;
        } up;
    };
};
#define XDP_DP_SKB_META_MAGIC 0x0f5e
#define XDP_DP_SKB_META_F_L4_CSUM 0x01  /* Apply 'csum_pseudo' and
                                         * 'csum_other' to the IPv4
                                         * packet's TCP or UDP checksum. */
/* XDP_DP_SKB_META_F_UPCALL: an upcall, made by the TC half instead of XDP
 * for a packet that arrived in generic mode (XDP_DP_IN_PORT_F_GENERIC):
 * the skb knows whether it is a GSO segment and of what size, which the
 * XDP program cannot see, and ovs-vswitchd needs that size to cut a UDP
 * GSO segment into its datagrams (dpif-xdp-gso.c). */
#define XDP_DP_SKB_META_F_UPCALL 0x02
/* XDP_DP_SKB_META_F_TNL_PUSH: push the tunnel header that XDP left in
 * xdp_dp_tnl_hdrs before sending (see "Tunnels"). */
#define XDP_DP_SKB_META_F_TNL_PUSH 0x04
/* XDP_DP_SKB_META_F_PRIORITY: set skb->priority to
 * 'ifindex[XDP_DP_MAX_OUTPUTS - 1]' (see "Queues and truncation"). */
#define XDP_DP_SKB_META_F_PRIORITY 0x08
/* XDP_DP_SKB_META_F_TRUNC: cut the skb for the last output to
 * 'ifindex[XDP_DP_MAX_OUTPUTS - 1]' bytes (see "Queues and truncation"). */
#define XDP_DP_SKB_META_F_TRUNC 0x10

#endif /* xdp-dp.h */
