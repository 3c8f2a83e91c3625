/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_PARSE_H
#define XDP_DP_PARSE_H 1

/* The packet parser of the XDP datapath: fills 'struct xdp_flow_key' from
 * a frame so that the key equals, field for field, what Open vSwitch's
 * flow_extract() (lib/flow.c) puts into 'struct flow' for the same bytes.
 * flow_extract() is the specification; this file follows its structure
 * step by step and names the OVS function each step mirrors.
 *
 * How it works.  A cursor ('struct xdp_parse_cursor') holds two views of
 * the position in the frame.  'ofs' and 'size' are OVS's 'data' and
 * 'size': the offset of the next header and the number of bytes that
 * flow_extract() would still consider.  'size' starts as the frame length
 * and shrinks to the IPv4 total length or the IPv6 payload length once an
 * IP header is accepted, so that L2 padding is never parsed, exactly as in
 * OVS.  Every header is read through xdp_parse_peek__(), which first makes
 * the same length check OVS makes against 'size' and then, for the
 * verifier, checks the same bytes against 'data_end'.  The second check
 * never fails when the first passes, but only it proves the access safe.
 * Offsets are kept below XDP_PARSE_MAX_OFS so that the verifier can bound
 * every variable packet pointer.
 *
 * The parser is split into layers for the verifier.  Ethernet and VLAN
 * parsing is inline in the caller.  The network layer, each IPv6
 * extension header and the transport layer are global BPF functions
 * (xdp_parse_l3__(), xdp_parse_ipv6_ext_hdr__(), xdp_parse_l4__()), which
 * the verifier checks once each, on their own, instead of once for every
 * path that leads to them: there are six Ethernet header lengths, and each
 * IPv4 header length and IPv6 extension header chain would multiply them
 * again.  These functions take the key and a 'struct xdp_parse_info' by
 * pointer and keep the cursor, the protocol and the fragment flags there,
 * in memory whose contents the verifier does not track, so that paths that
 * differ only in those values look alike to it and it can prune them.  With
 * the limits below the verifier processes about 5,500 instructions for the
 * whole parser.
 *
 * Whenever flow_extract() gives up on a layer (a truncated or malformed
 * header) the parser returns at the same point with the same fields
 * filled, so that later fields stay zero.  Some of these cases are not
 * obvious; they are noted where they happen.
 *
 * Two parts of flow_extract() are loops that only the packet's length
 * bounds: IPv6 extension headers and Neighbor Discovery options.  The
 * parser follows at most XDP_PARSE_MAX_IPV6_EXT and XDP_PARSE_MAX_ND_OPTS
 * of them.  A packet with more is reported with XDP_PARSE_F_INCOMPLETE in
 * 'struct xdp_parse_info': its key is then not what flow_extract() gives
 * and must not be matched against megaflows; the caller should hand the
 * packet to ovs-vswitchd instead.
 *
 * Header fields are read through the plain structures below (no
 * bit-fields) at whatever alignment the frame has; the targets of the
 * datapath (x86-64 and arm64) allow unaligned packet access, so the
 * verifier accepts it.  The frame length is 'data_end - data', a pointer
 * subtraction that the verifier allows only to CAP_PERFMON (root).  The
 * global functions are global symbols of each object that includes this
 * header: link at most one such object into a program.
 *
 * Usage: xdp_parse(ctx, &key), or xdp_parse_frame(ctx, &key, &info) to
 * also learn where the L3 and L4 headers start.  Both zero the whole key
 * first; 'in_port', 'recirc_id' and 'dp_hash' are left for the caller.
 *
 * The parser reads nothing of its context but 'data' and 'data_end', which
 * an XDP program's 'struct xdp_md' and a TC program's 'struct __sk_buff'
 * both have: an object that parses skbs defines XDP_PARSE_CTX as 'struct
 * __sk_buff' before it includes this header (tests/test-xdp-parse runs
 * both kinds).  In an skb these cover its linear part, where the stack
 * keeps the headers of the packets it builds, GSO segments too.
 *
 * An skb is more than its linear part, and the parser of a datapath in TC
 * (XDP_PARSE_SKB defined as well) reads it whole: the frame is 'len'
 * bytes long, not 'data_end - data', so that a GSO segment's IP length
 * agrees with the frame's as OVS sees it; a header that lies past the
 * linear part, which the caller has pulled as far as it could, makes the
 * key incomplete (XDP_PARSE_F_INCOMPLETE) rather than cut; and the
 * outermost VLAN tag, which the stack keeps in the skb rather than in the
 * frame (skb_vlan_untag()), is the frame's first tag, as it was on the
 * wire. */

#include <linux/types.h>

#include "xdp-dp.h"

#ifndef XDP_PARSE_CTX
#define XDP_PARSE_CTX struct xdp_md
#endif

/* Limits of the bounded loops; see above.  A legitimate IPv6 header chain
 * has at most 7 extension headers (RFC 8200 4.1) and a Neighbor
 * Solicitation or Advertisement a handful of options. */
#define XDP_PARSE_MAX_IPV6_EXT 16   /* IPv6 extension headers followed. */
#define XDP_PARSE_MAX_ND_OPTS 16    /* ND options followed. */

/* Largest offset at which the parser reads a header; the verifier needs a
 * bound on every variable packet offset, and this one plus the longest
 * header read at once (40 bytes) stays within its 64 kB limit.  It never
 * binds: with the loop limits above, no header that the parser reaches
 * starts past 30 + 40 + 16 * 2048 + 8 + 16 + 15 * 2040 = 63462 bytes (the
 * longest Ethernet header with VLAN tags and SNAP, the IPv6 header, the
 * extension headers, the ICMPv6 header, the ND target and options). */
#define XDP_PARSE_MAX_OFS 0xff00

/* 'struct xdp_parse_info' offset of a header that is not there, as OVS's
 * UINT16_MAX in 'struct dp_packet'. */
#define XDP_PARSE_OFS_NONE 0xffff

/* 'flags' of 'struct xdp_parse_info'. */
#define XDP_PARSE_F_INCOMPLETE (1 << 0) /* More IPv6 extension headers or ND
                                         * options than the parser follows:
                                         * the key is not flow_extract()'s,
                                         * send the packet to userspace. */

/* Where xdp_parse_frame() found the headers of a frame, for actions that
 * rewrite them.  Offsets are in bytes from 'ctx->data'. */
struct xdp_parse_info {
    __u16 l3_ofs;       /* Ethernet payload, past VLAN and LLC/SNAP headers,
                         * as OVS's dp_packet 'l3_ofs' (but for MPLS, where
                         * it is the first label, not past the labels);
                         * XDP_PARSE_OFS_NONE if the frame is shorter than
                         * an Ethernet header. */
    __u16 l4_ofs;       /* IPv4 or IPv6 payload, past IPv4 options and
                         * IPv6 extension headers, as OVS's 'l4_ofs':
                         * XDP_PARSE_OFS_NONE unless an IP header was
                         * accepted. */
    __u16 l4_size;      /* Bytes from 'l4_ofs' to the end of the IP packet
                         * by its own length field, L2 padding excluded;
                         * 0 if 'l4_ofs' is XDP_PARSE_OFS_NONE. */
    __u16 flags;        /* XDP_PARSE_F_*. */
};

/* The rest is the parser itself, for BPF programs only: userspace (the
 * tests) includes this header for 'struct xdp_parse_info' alone. */
#ifdef __bpf__

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

/* Protocol numbers that the UAPI headers do not define. */
#define XDP_PARSE_ETH_TYPE_MIN 0x600    /* Smallest Ethertype; below it, the
                                         * field is an 802.3 length. */
#define XDP_PARSE_LLC_SNAP 0xaa         /* LLC DSAP and SSAP of SNAP. */
#define XDP_PARSE_LLC_CNTL_SNAP 0x03    /* LLC control field of SNAP. */
#define XDP_PARSE_ARP_HRD_ETHERNET 1    /* ARP hardware type Ethernet. */
#define XDP_PARSE_ND_NEIGHBOR_SOLICIT 135   /* ICMPv6 type of ND NS. */
#define XDP_PARSE_ND_NEIGHBOR_ADVERT 136    /* ICMPv6 type of ND NA. */
#define XDP_PARSE_ND_OPT_SOURCE_LINKADDR 1  /* ND SLL option type. */
#define XDP_PARSE_ND_OPT_TARGET_LINKADDR 2  /* ND TLL option type. */
#define XDP_PARSE_IP_FRAG_MASK 0x3fff   /* IPv4 MF flag and offset. */
#define XDP_PARSE_IP_FRAG_OFF_MASK 0x1fff   /* IPv4 fragment offset. */
#define XDP_PARSE_IP6F_OFF_MASK 0xfff8  /* IPv6 fragment offset. */
#define XDP_PARSE_IPV6_LABEL_MASK 0x000fffff    /* IPv6 flow label. */
#define XDP_PARSE_TCP_FLAGS_MASK 0x0fff /* TCP flags, as OVS TCP_FLAGS(). */

/* Header layouts, without bit-fields, in network byte order. */

/* The 4 bytes of a VLAN tag plus the Ethertype that follows it, which OVS
 * requires to be present before it accepts the tag. */
struct xdp_parse_vlan {
    __be16 tpid;                /* ETH_P_8021Q or ETH_P_8021AD. */
    __be16 tci;                 /* PCP, DEI, VID. */
    __be16 next_type;           /* Ethertype or next TPID. */
};

/* 802.2 LLC header followed by a SNAP header. */
struct xdp_parse_llc_snap {
    __u8 dsap;                  /* XDP_PARSE_LLC_SNAP. */
    __u8 ssap;                  /* XDP_PARSE_LLC_SNAP. */
    __u8 cntl;                  /* XDP_PARSE_LLC_CNTL_SNAP. */
    __u8 org[3];                /* OUI, 0 for Ethertypes. */
    __be16 type;                /* Ethertype. */
};

/* ARP for Ethernet and IPv4. */
struct xdp_parse_arp {
    __be16 hrd;                 /* Hardware type. */
    __be16 pro;                 /* Protocol type. */
    __u8 hln;                   /* Hardware address length. */
    __u8 pln;                   /* Protocol address length. */
    __be16 op;                  /* Opcode. */
    __u8 sha[6];                /* Sender hardware address. */
    __u8 spa[4];                /* Sender protocol address. */
    __u8 tha[6];                /* Target hardware address. */
    __u8 tpa[4];                /* Target protocol address. */
};

struct xdp_parse_ipv4 {
    __u8 ihl_ver;               /* Version (high nibble), IHL (low). */
    __u8 tos;                   /* DSCP and ECN. */
    __be16 tot_len;             /* Total length. */
    __be16 id;                  /* Identification. */
    __be16 frag_off;            /* Flags and fragment offset. */
    __u8 ttl;                   /* Time to live. */
    __u8 proto;                 /* Protocol. */
    __be16 csum;                /* Header checksum. */
    __be32 src;                 /* Source address. */
    __be32 dst;                 /* Destination address. */
};

struct xdp_parse_ipv6 {
    __be32 vtc_flow;            /* Version, traffic class, flow label. */
    __be16 plen;                /* Payload length. */
    __u8 nxt;                   /* Next header. */
    __u8 hlim;                  /* Hop limit. */
    __u8 src[16];               /* Source address. */
    __u8 dst[16];               /* Destination address. */
};

/* The first 8 bytes of an IPv6 extension header: hop-by-hop, routing and
 * destination options count 'len' in 8-byte units past the first 8, AH in
 * 4-byte units past the first 8; a fragment header is exactly 8 bytes. */
struct xdp_parse_ipv6_ext {
    __u8 nxt;                   /* Next header. */
    __u8 len;                   /* Length, see above; reserved in a
                                 * fragment header. */
    __be16 offlg;               /* Fragment header: offset, flags. */
    __be32 word;                /* Options, SPI or identification. */
};

struct xdp_parse_tcp {
    __be16 src;                 /* Source port. */
    __be16 dst;                 /* Destination port. */
    __be32 seq;                 /* Sequence number. */
    __be32 ack;                 /* Acknowledgment number. */
    __be16 ctl;                 /* Data offset (high 4 bits), flags. */
    __be16 win;                 /* Window. */
    __be16 csum;                /* Checksum. */
    __be16 urg;                 /* Urgent pointer. */
};

/* The first 8 bytes of ICMP, IGMP and ICMPv6 headers. */
struct xdp_parse_icmp {
    __u8 type;                  /* Type. */
    __u8 code;                  /* Code. */
    __be16 csum;                /* Checksum. */
    __be32 word;                /* IGMP group, ND flags and reserved. */
};

/* An ND option, in the 8-byte form of the link-layer address options. */
struct xdp_parse_nd_opt {
    __u8 type;                  /* XDP_PARSE_ND_OPT_*. */
    __u8 len;                   /* Length in units of 8 bytes. */
    __u8 mac[6];                /* Link-layer address. */
};

/* Position in the frame: OVS's 'data' and 'size', see above. */
struct xdp_parse_cursor {
    void *data;                 /* ctx->data. */
    void *data_end;             /* ctx->data_end. */
    __u64 ofs;                  /* Offset of the next header. */
    __u64 size;                 /* Bytes from 'ofs' that OVS considers. */
#ifdef XDP_PARSE_SKB
    __u16 *flags;               /* The info's flags: a header past the
                                 * linear part makes them incomplete. */
#endif
};

/* The length of the frame in 'CTX' as OVS counts it: in an skb, with the
 * VLAN tag that the skb holds out of the frame. */
#ifdef XDP_PARSE_SKB
#define XDP_DP_FRAME_LEN(CTX) ((CTX)->len + ((CTX)->vlan_present ? 4 : 0))
#else
#define XDP_DP_FRAME_LEN(CTX) ((CTX)->data_end - (CTX)->data)
#endif

/* The whole packet's length, as a meter or a policer counts it: in XDP
 * with the fragments of a multi-buffer frame, which XDP_DP_FRAME_LEN()
 * leaves out (a helper call). */
#ifdef XDP_PARSE_SKB
#define XDP_DP_PKT_LEN(CTX) XDP_DP_FRAME_LEN(CTX)
#else
#define XDP_DP_PKT_LEN(CTX) bpf_xdp_get_buff_len(CTX)
#endif

/* Sets up cursor 'C' on the frame of 'CTX' for a parse that reports to
 * the 'struct xdp_parse_info' at 'INFO'. */
#ifdef XDP_PARSE_SKB
#define XDP_PARSE_CURSOR_INIT(C, CTX, INFO)             \
    ((C).data = (void *) (long) (CTX)->data,            \
     (C).data_end = (void *) (long) (CTX)->data_end,    \
     (C).flags = &(INFO)->flags)
#else
#define XDP_PARSE_CURSOR_INIT(C, CTX, INFO)             \
    ((C).data = (void *) (long) (CTX)->data,            \
     (C).data_end = (void *) (long) (CTX)->data_end)
#endif

/* Returns a pointer to the 'len' bytes at the cursor if 'c->size' covers
 * them (as OVS's data_try_pull() without the pull), otherwise NULL. */
static __always_inline void *
xdp_parse_peek__(const struct xdp_parse_cursor *c, __u32 len)
{
    __u64 ofs = c->ofs;
    void *p;

    /* An empty asm hides what the compiler knows of 'ofs', so that it
     * compares and adds the very register that the verifier must see
     * bounded, instead of an equivalent test on a copy. */
    asm volatile("" : "+r"(ofs));
    if (c->size < len || ofs > XDP_PARSE_MAX_OFS) {
        return NULL;
    }
    p = c->data + ofs;
    if (p + len > c->data_end) {
#ifdef XDP_PARSE_SKB
        /* In the frame, but not in the skb's linear part. */
        *c->flags |= XDP_PARSE_F_INCOMPLETE;
#endif
        return NULL;
    }
    return p;
}

/* Advances the cursor by 'len' bytes, which the caller has checked
 * against 'c->size'. */
static __always_inline void
xdp_parse_pull__(struct xdp_parse_cursor *c, __u32 len)
{
    c->ofs += len;
    c->size -= len;
}

static __always_inline int
xdp_parse_mac_is_zero__(const __u8 mac[6])
{
    return !(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]);
}

static __always_inline int
xdp_parse_eth_type_vlan__(__be16 type)
{
    return type == bpf_htons(ETH_P_8021Q) || type == bpf_htons(ETH_P_8021AD);
}

static __always_inline int
xdp_parse_is_ipv6_ext__(__u8 nw_proto)
{
    return (nw_proto == IPPROTO_HOPOPTS || nw_proto == IPPROTO_ROUTING
            || nw_proto == IPPROTO_DSTOPTS || nw_proto == IPPROTO_AH
            || nw_proto == IPPROTO_FRAGMENT);
}

/* How many VLAN tags to pull, as OVS's 'flow_vlan_limit' (the
 * other_config:vlan-limit of the Open_vSwitch table, 1 by default):
 * ovs-vswitchd keeps it equal to its own, through the skeleton's global
 * data, so that keys agree with flow_extract()'s. */
__u32 xdp_parse_vlan_limit = 2;

/* OVS's parse_vlan() and parse_ethertype(): pulls up to two VLAN tags and
 * the Ethertype, and an LLC/SNAP header if there is one, and returns the
 * Ethertype.  The caller has checked for a whole Ethernet header and
 * pulled the addresses.  A nonzero 'hw_tpid' is a tag that the skb holds
 * out of the frame, with TCI 'hw_tci' (see XDP_PARSE_SKB): the first. */
static __always_inline __be16
xdp_parse_l2__(struct xdp_parse_cursor *c, struct xdp_flow_key *key,
               __be16 hw_tpid, __be16 hw_tci)
{
    const struct xdp_parse_llc_snap *llc;
    const __be16 *type;
    __be16 eth_type;

    /* A tag is taken only if the Ethertype after it is there too.  (Not
     * unrolled: the bound depends on xdp_parse_vlan_limit.) */
    for (int i = 0; i < 2; i++) {
        const struct xdp_parse_vlan *vlan;

        if (i >= xdp_parse_vlan_limit) {
            break;
        }
        if (!i && hw_tpid) {
            key->vlans[0].tpid = hw_tpid;
            key->vlans[0].tci = hw_tci | bpf_htons(XDP_VLAN_CFI);
            continue;
        }
        vlan = xdp_parse_peek__(c, sizeof *vlan);
        if (!vlan || !xdp_parse_eth_type_vlan__(vlan->tpid)) {
            break;
        }
        key->vlans[i].tpid = vlan->tpid;
        key->vlans[i].tci = vlan->tci | bpf_htons(XDP_VLAN_CFI);
        xdp_parse_pull__(c, 4);
    }

    /* Always present: the caller checked for 14 bytes and each tag above
     * for 2 more. */
    type = xdp_parse_peek__(c, sizeof *type);
    if (!type) {
        return 0;
    }
    eth_type = *type;
    xdp_parse_pull__(c, sizeof *type);
    if (bpf_ntohs(eth_type) >= XDP_PARSE_ETH_TYPE_MIN) {
        return eth_type;
    }

    /* An 802.3 length: only LLC with SNAP and OUI 0 carries an Ethertype,
     * and only if that is not a length again. */
    llc = xdp_parse_peek__(c, sizeof *llc);
    if (!llc
        || llc->dsap != XDP_PARSE_LLC_SNAP
        || llc->ssap != XDP_PARSE_LLC_SNAP
        || llc->cntl != XDP_PARSE_LLC_CNTL_SNAP
        || llc->org[0] || llc->org[1] || llc->org[2]) {
        return bpf_htons(XDP_ETH_TYPE_NONE);
    }
    xdp_parse_pull__(c, sizeof *llc);
    if (bpf_ntohs(llc->type) >= XDP_PARSE_ETH_TYPE_MIN) {
        return llc->type;
    }
    return bpf_htons(XDP_ETH_TYPE_NONE);
}

/* The ARP and RARP branch of miniflow_extract(): fills the ARP fields if
 * the frame has a whole Ethernet/IPv4 ARP header. */
static __always_inline void
xdp_parse_arp__(struct xdp_parse_cursor *c, struct xdp_flow_key *key)
{
    const struct xdp_parse_arp *arp;

    arp = xdp_parse_peek__(c, sizeof *arp);
    if (!arp
        || arp->hrd != bpf_htons(XDP_PARSE_ARP_HRD_ETHERNET)
        || arp->pro != bpf_htons(ETH_P_IP)
        || arp->hln != ETH_ALEN || arp->pln != 4) {
        return;
    }
    __builtin_memcpy(&key->nw_src, arp->spa, 4);
    __builtin_memcpy(&key->nw_dst, arp->tpa, 4);
    /* OVS keeps the opcode only when it fits in 8 bits: opcode 0x0101
     * gives nw_proto 0, not 1. */
    if (bpf_ntohs(arp->op) <= 0xff) {
        key->nw_proto = bpf_ntohs(arp->op);
    }
    __builtin_memcpy(key->arp_sha, arp->sha, ETH_ALEN);
    __builtin_memcpy(key->arp_tha, arp->tha, ETH_ALEN);
}

/* OVS's ipv4_sanity_check() and the IPv4 branch of miniflow_extract():
 * if the header is sane, fills the IPv4 fields of '*key' and the L4
 * offset and size in '*info'. */
static __always_inline void
xdp_parse_ipv4__(struct xdp_parse_cursor *c, struct xdp_flow_key *key,
                 struct xdp_parse_info *info)
{
    const struct xdp_parse_ipv4 *ip;
    __u32 ip_len, tot_len;

    ip = xdp_parse_peek__(c, sizeof *ip);
    if (!ip) {
        return;
    }
    /* OVS does not look at the version nibble. */
    ip_len = (ip->ihl_ver & 0x0f) * 4;
    if (ip_len < sizeof *ip || c->size < ip_len) {
        return;
    }
    tot_len = bpf_ntohs(ip->tot_len);
    if (tot_len > c->size || ip_len > tot_len
        || c->size - tot_len > 0xffff) {
        return;
    }

    key->nw_src = ip->src;
    key->nw_dst = ip->dst;
    key->nw_tos = ip->tos;
    key->nw_ttl = ip->ttl;
    key->nw_proto = ip->proto;
    if (ip->frag_off & bpf_htons(XDP_PARSE_IP_FRAG_MASK)) {
        key->nw_frag = XDP_NW_FRAG_ANY;
        if (ip->frag_off & bpf_htons(XDP_PARSE_IP_FRAG_OFF_MASK)) {
            key->nw_frag |= XDP_NW_FRAG_LATER;
        }
    }
    /* The L4 size ends at the total length: L2 padding is never parsed. */
    info->l4_ofs = c->ofs + ip_len;
    info->l4_size = tot_len - ip_len;
}

/* One step of OVS's parse_ipv6_ext_hdrs__(): parses the IPv6 extension
 * header of type 'key->nw_proto' at 'info->l4_ofs', which has
 * 'info->l4_size' bytes after it in the IPv6 payload.  Returns -1 if the
 * header is truncated.  Otherwise advances 'info->l4_ofs' and 'l4_size'
 * past it, sets 'key->nw_proto' to the next header and, for a fragment
 * header, 'key->nw_frag', and returns 1 for a later fragment (whose
 * 'nw_proto' OVS sets to IPPROTO_FRAGMENT, and whose payload it does not
 * parse), 0 for anything else.
 *
 * A global BPF function, called once per extension header: the verifier
 * checks it once and sees the loop around it only as calls that return
 * values it knows nothing about, so the loop does not multiply the paths
 * through the header types. */
__attribute__((noinline)) int
xdp_parse_ipv6_ext_hdr__(XDP_PARSE_CTX *ctx, struct xdp_flow_key *key,
                         struct xdp_parse_info *info)
{
    const struct xdp_parse_ipv6_ext *ext;
    struct xdp_parse_cursor c;
    __u8 proto;
    __u32 len;

    if (!key || !info) {
        return -1;
    }
    XDP_PARSE_CURSOR_INIT(c, ctx, info);
    c.ofs = info->l4_ofs;
    c.size = info->l4_size;
    proto = key->nw_proto;

    /* Every extension header has at least 8 bytes; only those are read. */
    ext = xdp_parse_peek__(&c, sizeof *ext);
    if (!ext) {
        return -1;
    }
    key->nw_proto = ext->nxt;

    if (proto == IPPROTO_FRAGMENT) {
        len = sizeof *ext;
    } else if (proto == IPPROTO_AH) {
        len = (ext->len + 2) * 4;
    } else {
        len = (ext->len + 1) * 8;
    }
    if (c.size < len) {
        return -1;
    }
    info->l4_ofs = c.ofs + len;
    info->l4_size = c.size - len;

    /* Only a nonzero 'offlg' makes a fragment: an atomic fragment (offset
     * 0, M clear) is not one for OVS, while one with only the reserved
     * bits set is. */
    if (proto == IPPROTO_FRAGMENT && ext->offlg) {
        key->nw_frag = XDP_NW_FRAG_ANY;
        if (ext->offlg & bpf_htons(XDP_PARSE_IP6F_OFF_MASK)) {
            key->nw_frag |= XDP_NW_FRAG_LATER;
            key->nw_proto = IPPROTO_FRAGMENT;
            return 1;
        }
    }
    return 0;
}

/* OVS's ipv6_sanity_check(), parse_ipv6_ext_hdrs__() and the IPv6 branch
 * of miniflow_extract(): if the header is sane, fills the IPv6 fields of
 * '*key' and the L4 offset and size in '*info'.  Returns -1 if there are
 * more extension headers than XDP_PARSE_MAX_IPV6_EXT, otherwise 0. */
static __always_inline int
xdp_parse_ipv6__(struct xdp_parse_cursor *c, XDP_PARSE_CTX *ctx,
                 struct xdp_flow_key *key, struct xdp_parse_info *info)
{
    const struct xdp_parse_ipv6 *ip6;
    __u32 plen, tc_flow;
    int retval;
    int i;

    ip6 = xdp_parse_peek__(c, sizeof *ip6);
    if (!ip6) {
        return 0;
    }
    plen = bpf_ntohs(ip6->plen);
    if (plen + sizeof *ip6 > c->size
        || c->size - (plen + sizeof *ip6) > 0xffff) {
        return 0;
    }
    __builtin_memcpy(key->ipv6_src, ip6->src, 16);
    __builtin_memcpy(key->ipv6_dst, ip6->dst, 16);
    tc_flow = bpf_ntohl(ip6->vtc_flow);

    /* The L4 size ends at the payload length: L2 padding is never
     * parsed.  The extension headers move the L4 offset. */
    info->l4_ofs = c->ofs + sizeof *ip6;
    info->l4_size = plen;
    key->nw_proto = ip6->nxt;
    for (i = 0; i < XDP_PARSE_MAX_IPV6_EXT; i++) {
        if (!xdp_parse_is_ipv6_ext__(key->nw_proto)) {
            break;
        }
        retval = xdp_parse_ipv6_ext_hdr__(ctx, key, info);
        if (retval < 0) {
            /* OVS has stored the addresses but not yet the label, ToS,
             * TTL, protocol and fragment flags, so they stay zero. */
            key->nw_proto = 0;
            key->nw_frag = 0;
            info->l4_ofs = XDP_PARSE_OFS_NONE;
            info->l4_size = 0;
            return 0;
        } else if (retval > 0) {
            break;
        }
    }
    if (i == XDP_PARSE_MAX_IPV6_EXT
        && xdp_parse_is_ipv6_ext__(key->nw_proto)) {
        key->nw_proto = 0;
        key->nw_frag = 0;
        info->l4_ofs = XDP_PARSE_OFS_NONE;
        info->l4_size = 0;
        return -1;
    }

    key->ipv6_label = bpf_htonl(tc_flow & XDP_PARSE_IPV6_LABEL_MASK);
    key->nw_tos = tc_flow >> 20;
    key->nw_ttl = ip6->hlim;
    return 0;
}

/* OVS's parse_icmpv6() and the ICMPv6 branch of miniflow_extract() for a
 * Neighbor Solicitation or Advertisement whose 8-byte ICMPv6 header 'icmp'
 * the caller has pulled.  Returns -1 if there are more options than
 * XDP_PARSE_MAX_ND_OPTS, otherwise 0.
 *
 * The option type that OVS stores in 'tcp_flags' is kept in the key while
 * the options are parsed, not in a local variable: the verifier knows
 * nothing of values read back from memory, so paths that differ only in
 * that type look the same to it and it checks the loop body once. */
static __always_inline int
xdp_parse_nd__(struct xdp_parse_cursor *c, struct xdp_flow_key *key,
               const struct xdp_parse_icmp *icmp)
{
    const __u8 *target;
    int i;

    /* OVS stores the ND flags and reserved bits as 'igmp_group_ip4'. */
    key->igmp_group_ip4 = icmp->word;
    key->tp_src = bpf_htons(icmp->type);
    key->tp_dst = bpf_htons(icmp->code);

    /* Without a whole target, no target and no options. */
    target = xdp_parse_peek__(c, 16);
    if (!target) {
        return 0;
    }
    __builtin_memcpy(key->nd_target, target, 16);
    xdp_parse_pull__(c, 16);

#pragma nounroll
    for (i = 0; i < XDP_PARSE_MAX_ND_OPTS; i++) {
        const struct xdp_parse_nd_opt *opt;
        __u32 opt_len;
        __u8 *mac;

        /* Any option has at least 8 bytes; stop at a shorter tail. */
        opt = xdp_parse_peek__(c, sizeof *opt);
        if (!opt) {
            return 0;
        }
        opt_len = opt->len * 8;
        if (!opt_len || opt_len > c->size) {
            return 0;
        }

        if (opt->type == XDP_PARSE_ND_OPT_SOURCE_LINKADDR && opt_len == 8) {
            mac = key->arp_sha;
        } else if (opt->type == XDP_PARSE_ND_OPT_TARGET_LINKADDR
                   && opt_len == 8) {
            mac = key->arp_tha;
        } else {
            mac = NULL;
        }
        if (mac) {
            /* A second SLL (or TLL) option after one with a nonzero
             * address invalidates the target and both addresses, but OVS
             * keeps the option type it has already seen. */
            if (!xdp_parse_mac_is_zero__(mac)) {
                __builtin_memset(key->nd_target, 0, 16);
                __builtin_memset(key->arp_sha, 0, ETH_ALEN);
                __builtin_memset(key->arp_tha, 0, ETH_ALEN);
                return 0;
            }
            __builtin_memcpy(mac, opt->mac, ETH_ALEN);
            if (!key->tcp_flags) {
                key->tcp_flags = bpf_htons(opt->type);
            }
        }
        xdp_parse_pull__(c, opt_len);
    }
    return c->size >= sizeof(struct xdp_parse_nd_opt) ? -1 : 0;
}

/* The transport layer of miniflow_extract(), for the IPv4 or IPv6 payload
 * of 'info->l4_size' bytes at 'info->l4_ofs' in the frame in 'ctx', with
 * protocol 'key->nw_proto'.  Fills the L4 fields of '*key' and sets
 * XDP_PARSE_F_INCOMPLETE in 'info->flags' if there are more ND options
 * than the parser follows.
 *
 * As in OVS, the header is chosen by 'nw_proto' alone, whatever the IP
 * version: ICMP over IPv6 and ICMPv6 (Neighbor Discovery included) over
 * IPv4 are parsed too.
 *
 * A global BPF function, for the reasons given at xdp_parse_l3__(). */
__attribute__((noinline)) int
xdp_parse_l4__(XDP_PARSE_CTX *ctx, struct xdp_flow_key *key,
               struct xdp_parse_info *info)
{
    struct xdp_parse_cursor c;
    __u8 nw_proto;

    if (!key || !info) {
        return 0;
    }
    XDP_PARSE_CURSOR_INIT(c, ctx, info);
    c.ofs = info->l4_ofs;
    c.size = info->l4_size;
    nw_proto = key->nw_proto;

    if (nw_proto == IPPROTO_TCP) {
        const struct xdp_parse_tcp *tcp = xdp_parse_peek__(&c, sizeof *tcp);
        __u32 tcp_len;

        if (!tcp) {
            return 0;
        }
        tcp_len = (bpf_ntohs(tcp->ctl) >> 12) * 4;
        if (tcp_len >= sizeof *tcp && c.size >= tcp_len) {
            key->tcp_flags = tcp->ctl & bpf_htons(XDP_PARSE_TCP_FLAGS_MASK);
            key->tp_src = tcp->src;
            key->tp_dst = tcp->dst;
        }
    } else if (nw_proto == IPPROTO_UDP || nw_proto == IPPROTO_SCTP) {
        /* 8 bytes of UDP header, 12 of SCTP; both start with the ports. */
        const __be16 *ports;

        ports = xdp_parse_peek__(&c, nw_proto == IPPROTO_UDP ? 8 : 12);
        if (ports) {
            key->tp_src = ports[0];
            key->tp_dst = ports[1];
        }
    } else if (nw_proto == IPPROTO_ICMP || nw_proto == IPPROTO_IGMP) {
        const struct xdp_parse_icmp *icmp = xdp_parse_peek__(&c, 8);

        if (icmp) {
            key->tp_src = bpf_htons(icmp->type);
            key->tp_dst = bpf_htons(icmp->code);
            if (nw_proto == IPPROTO_IGMP) {
                key->igmp_group_ip4 = icmp->word;
            }
        }
    } else if (nw_proto == IPPROTO_ICMPV6) {
        const struct xdp_parse_icmp *icmp = xdp_parse_peek__(&c, 8);

        if (!icmp) {
            return 0;
        }
        xdp_parse_pull__(&c, 8);
        if (icmp->code == 0
            && (icmp->type == XDP_PARSE_ND_NEIGHBOR_SOLICIT
                || icmp->type == XDP_PARSE_ND_NEIGHBOR_ADVERT)) {
            if (xdp_parse_nd__(&c, key, icmp)) {
                info->flags |= XDP_PARSE_F_INCOMPLETE;
            }
        } else {
            key->tp_src = bpf_htons(icmp->type);
            key->tp_dst = bpf_htons(icmp->code);
        }
    }
    return 0;
}

/* The network layer of miniflow_extract(), for the Ethernet payload at
 * 'info->l3_ofs' in the frame in 'ctx', with Ethertype 'key->eth_type'.
 * Fills the L3 fields of '*key'; if it accepts an IPv4 or IPv6 header,
 * also 'info->l4_ofs' and 'info->l4_size'.  Sets XDP_PARSE_F_INCOMPLETE in
 * 'info->flags' if there are more IPv6 extension headers than the parser
 * follows.
 *
 * This is a global BPF function, not an inline one, so that the verifier
 * checks it once instead of once for each of the six Ethernet header
 * lengths (0, 1 or 2 VLAN tags, with or without LLC/SNAP); the same goes
 * for xdp_parse_l4__() and the IPv4 header lengths and IPv6 extension
 * header chains.  The offset comes in through memory, not as an argument,
 * so that the verifier knows nothing of it and does not need to follow
 * where it came from. */
__attribute__((noinline)) int
xdp_parse_l3__(XDP_PARSE_CTX *ctx, struct xdp_flow_key *key,
               struct xdp_parse_info *info)
{
    struct xdp_parse_cursor c;
    __u64 frame_len;

    if (!key || !info) {
        return 0;
    }
    XDP_PARSE_CURSOR_INIT(c, ctx, info);
    c.ofs = info->l3_ofs;
#ifdef XDP_PARSE_SKB
    frame_len = ctx->len;
#else
    frame_len = c.data_end - c.data;
#endif
    if (c.ofs > frame_len) {
        return 0;
    }
    c.size = frame_len - c.ofs;

    if (key->eth_type == bpf_htons(ETH_P_IP)) {
        xdp_parse_ipv4__(&c, key, info);
    } else if (key->eth_type == bpf_htons(ETH_P_IPV6)) {
        if (xdp_parse_ipv6__(&c, ctx, key, info)) {
            info->flags |= XDP_PARSE_F_INCOMPLETE;
        }
    } else if (key->eth_type == bpf_htons(ETH_P_ARP)
               || key->eth_type == bpf_htons(ETH_P_RARP)) {
        xdp_parse_arp__(&c, key);
    }
    return 0;
}

/* Whether xdp_parse_frame_l4() left out a transport header that
 * xdp_parse_frame() would have parsed: then xdp_parse_l4__() completes the
 * key. */
static __always_inline int
xdp_parse_l4_pending(const struct xdp_flow_key *key,
                     const struct xdp_parse_info *info)
{
    return (info->l4_ofs != XDP_PARSE_OFS_NONE
            && !(key->nw_frag & XDP_NW_FRAG_LATER)
            && key->nw_proto != IPPROTO_TCP
            && key->nw_proto != IPPROTO_ICMPV6);
}

/* Zeroes '*key' and fills it from the frame in 'ctx' as flow_extract()
 * fills 'struct flow', and fills '*info' with the header offsets; see the
 * comment at the top of this file.  Leaves 'key->in_port', 'recirc_id'
 * and 'dp_hash' zero.
 *
 * If 'all_l4' is 0 (a constant, for a compiled program whose masks need no
 * transport fields) only TCP and ICMPv6 headers are parsed at the
 * transport layer: TCP's flags go into the flow's counters, and ICMPv6
 * Neighbor Discovery may make the key incomplete (more options than the
 * parser follows), which must send the packet to ovs-vswitchd as the
 * generic program does.  The key is then complete only if
 * xdp_parse_l4_pending() says so. */
static __always_inline void
xdp_parse_frame_l4(XDP_PARSE_CTX *ctx, struct xdp_flow_key *key,
                   struct xdp_parse_info *info, int all_l4)
{
    struct xdp_parse_cursor c;
    const __u8 *eth;

    __builtin_memset(key, 0, sizeof *key);
    info->l3_ofs = XDP_PARSE_OFS_NONE;
    info->l4_ofs = XDP_PARSE_OFS_NONE;
    info->l4_size = 0;
    info->flags = 0;

    XDP_PARSE_CURSOR_INIT(c, ctx, info);
    c.ofs = 0;
#ifdef XDP_PARSE_SKB
    c.size = ctx->len;
#else
    c.size = c.data_end - c.data;
#endif

    /* Ethernet: nothing at all without a whole header. */
    eth = xdp_parse_peek__(&c, ETH_HLEN);
    if (!eth) {
        return;
    }
    __builtin_memcpy(key->eth_dst, eth, ETH_ALEN);
    __builtin_memcpy(key->eth_src, eth + ETH_ALEN, ETH_ALEN);
    xdp_parse_pull__(&c, 2 * ETH_ALEN);
#ifdef XDP_PARSE_SKB
    key->eth_type = xdp_parse_l2__(&c, key,
                                   ctx->vlan_present ? ctx->vlan_proto : 0,
                                   bpf_htons(ctx->vlan_tci));
#else
    key->eth_type = xdp_parse_l2__(&c, key, 0, 0);
#endif
    info->l3_ofs = c.ofs;

    xdp_parse_l3__(ctx, key, info);

    /* Transport layer: not in later fragments. */
    if (info->l4_ofs != XDP_PARSE_OFS_NONE
        && !(key->nw_frag & XDP_NW_FRAG_LATER)
        && (all_l4 || key->nw_proto == IPPROTO_TCP
            || key->nw_proto == IPPROTO_ICMPV6)) {
        xdp_parse_l4__(ctx, key, info);
    }
}

/* xdp_parse_frame_l4() with every transport header. */
static __always_inline void
xdp_parse_frame(XDP_PARSE_CTX *ctx, struct xdp_flow_key *key,
                struct xdp_parse_info *info)
{
    xdp_parse_frame_l4(ctx, key, info, 1);
}

/* Zeroes '*key' and fills it from the frame in 'ctx' as flow_extract()
 * fills 'struct flow'.  Callers that need to know whether the key is
 * complete, or where the headers are, use xdp_parse_frame(). */
static __always_inline void
xdp_parse(XDP_PARSE_CTX *ctx, struct xdp_flow_key *key)
{
    struct xdp_parse_info info;

    xdp_parse_frame(ctx, key, &info);
}

#endif /* __bpf__ */

#endif /* xdp-dp-parse.h */
