/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_REWRITE_H
#define XDP_DP_REWRITE_H 1

/* The part of an ICMPv6 header that the L4 checksum fixes need. */
#define XDP_ICMP6_HLEN 4

/* Header rewrites: VLAN push and pop, and the set actions on Ethernet,
 * IPv4, IPv6 and L4 ports, in XDP and in the TC pipeline (tc-dp.bpf.c,
 * which defines XDP_PARSE_CTX as 'struct __sk_buff' and XDP_DP_SKB_PIPELINE):
 * but for the VLAN tags, the same direct writes of the frame's linear part.
 *
 * IPv4 header checksums are updated incrementally (RFC 1624) as each
 * field changes.  The TCP or UDP checksum, which covers the addresses
 * through the pseudo-header, is not touched here: each rewrite adds its
 * change to the packet's 'struct l4_csum_diff' (see xdp-dp.bpf.c), and the
 * output applies the sum once, in XDP, or in the TC half when the
 * checksum is partial (an offloaded checksum of a local sender, whose
 * field holds the pseudo-header sum). */

/* How the TCP or UDP checksum of the packet must change for the rewrites
 * made so far (see struct xdp_dp_skb_meta): one's-complement sums of
 * ~old + new over the 16-bit words that changed, not yet folded. */
struct l4_csum_diff {
    __u32 pseudo;               /* Pseudo-header words (IPv4 addresses). */
    __u32 other;                /* Other words (ports). */
};

/* Incremental checksum update (RFC 1624) of '*sum' for a 32-bit field
 * changing from 'from' to 'to'. */
static __always_inline void
csum_replace4(__sum16 *sum, __be32 from, __be32 to)
{
    __u32 s = (__u16) ~*sum;

    s += (__u16) ~from + (__u16) ~(from >> 16);
    s += (__u16) to + (__u16) (to >> 16);
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    *sum = ~s;
}

static __always_inline void
csum_replace2(__sum16 *sum, __be16 from, __be16 to)
{
    __u32 s = (__u16) ~*sum;

    s += (__u16) ~from + (__u16) to;
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    *sum = ~s;
}

/* Offset of the L3 header, past the Ethernet header, up to two VLAN
 * headers and an 802.2 LLC/SNAP header (as xdp_parse_l2__() finds them),
 * or -1 if the frame is too short. */
static __always_inline int
l3_offset(void *data, void *data_end)
{
    struct ethhdr *eth = data;
    int off = sizeof *eth;
    __be16 type;

    if ((void *) (eth + 1) > data_end) {
        return -1;
    }
    type = eth->h_proto;
#pragma unroll
    for (int i = 0; i < 2; i++) {
        if (type != ETH_P_8021Q_BE && type != ETH_P_8021AD_BE) {
            break;
        }
        __be16 *inner = data + off + 2;
        if ((void *) (inner + 1) > data_end) {
            return -1;
        }
        type = *inner;
        off += 4;
    }
    if (bpf_ntohs(type) < ETH_P_802_3_MIN) {
        /* A length, then LLC (AA AA 03), SNAP OUI 0, and the Ethertype:
         * 8 bytes before the L3 header. */
        __u8 *llc = data + off;
        if ((void *) (llc + 8) > data_end) {
            return -1;
        }
        if (llc[0] == 0xaa && llc[1] == 0xaa && llc[2] == 0x03
            && !llc[3] && !llc[4] && !llc[5]) {
            off += 8;
        }
    }
    return off;
}

/* The L3 header of the frame in 'ctx' (see l3_offset()), if the frame
 * holds 'size' bytes of it, otherwise NULL. */
static __always_inline void *
l3_header(XDP_PARSE_CTX *ctx, __u32 size)
{
    void *data = (void *) (long) ctx->data;
    void *data_end = (void *) (long) ctx->data_end;
    int off = l3_offset(data, data_end);

    if (off < 0 || off > 64 || data + off + size > data_end) {
        return NULL;
    }
    return data + off;
}

#ifdef XDP_DP_SKB_PIPELINE
/* In an skb the outermost tag is kept out of the frame, in the skb
 * (skb_vlan_untag() took it out before TC): the kernel's own helpers push
 * and pop it as OVS's kernel datapath does (skb_vlan_push() and
 * skb_vlan_pop()), moving the next tag in or out of the frame, which
 * keeps the skb's MAC header length and GSO state right.  The parser
 * reads the skb's tag as the frame's first (XDP_PARSE_HW_VLAN). */
static __always_inline int
do_push_vlan(XDP_PARSE_CTX *ctx, const struct xdp_vlan_hdr *vlan)
{
    return bpf_skb_vlan_push(ctx, vlan->tpid,
                             bpf_ntohs(vlan->tci & ~bpf_htons(XDP_VLAN_CFI)))
           ? -1 : 0;
}

static __always_inline int
do_pop_vlan(XDP_PARSE_CTX *ctx)
{
    /* With the skb's tag gone, skb_vlan_pop() moves the frame's next tag
     * into the skb, and fails if that tag is cut short: the frame then
     * keeps it, as OVS's pop leaves it, and the pop is done all the same
     * (found by ovs-xdp-bench fuzz, class vlan-cut-by-pop). */
    return bpf_skb_vlan_pop(ctx) && ctx->vlan_present ? -1 : 0;
}
#else
static __always_inline int
do_push_vlan(XDP_PARSE_CTX *ctx, const struct xdp_vlan_hdr *vlan)
{
    if (bpf_xdp_adjust_head(ctx, -4)) {
        return -1;
    }
    void *data = (void *) (long) ctx->data;
    void *data_end = (void *) (long) ctx->data_end;
    if (data + 16 > data_end) {
        return -1;
    }
    __builtin_memmove(data, data + 4, 12);
    __be16 *hdr = data + 12;
    hdr[0] = vlan->tpid;
    hdr[1] = vlan->tci & ~bpf_htons(XDP_VLAN_CFI);
    return 0;
}

static __always_inline int
do_pop_vlan(XDP_PARSE_CTX *ctx)
{
    void *data = (void *) (long) ctx->data;
    void *data_end = (void *) (long) ctx->data_end;

    if (data + 18 > data_end) {
        return -1;
    }
    __be16 type = *(__be16 *) (data + 12);
    if (type != ETH_P_8021Q_BE && type != ETH_P_8021AD_BE) {
        return 0;
    }
    __builtin_memmove(data + 4, data, 12);
    return bpf_xdp_adjust_head(ctx, 4) ? -1 : 0;
}
#endif

static __always_inline int
do_set_eth(XDP_PARSE_CTX *ctx, const struct xdp_dp_action *a)
{
    __u8 *data = (void *) (long) ctx->data;
    void *data_end = (void *) (long) ctx->data_end;

    if ((void *) (data + 12) > data_end) {
        return -1;
    }
#pragma unroll
    for (int i = 0; i < 6; i++) {
        data[i] = (data[i] & ~a->eth.dst_mask[i])
                  | (a->eth.dst[i] & a->eth.dst_mask[i]);
        data[6 + i] = (data[6 + i] & ~a->eth.src_mask[i])
                      | (a->eth.src[i] & a->eth.src_mask[i]);
    }
    return 0;
}

static __always_inline __u16
csum_fold16(__u32 s)
{
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    return s;
}

static __always_inline __u32
csum_diff4(__be32 from, __be32 to)
{
    return ((__u16) ~from + (__u16) ~(from >> 16)
            + (__u16) to + (__u16) (to >> 16));
}

static __always_inline int
do_set_ipv4(XDP_PARSE_CTX *ctx, const struct xdp_dp_action *a,
            const struct xdp_flow_key *key, struct l4_csum_diff *diff)
{
    struct iphdr *ip = l3_header(ctx, sizeof *ip);

    if (!ip) {
        return -1;
    }
    /* The addresses are in the TCP and UDP pseudo-header; later
     * fragments have no L4 header. */
    int l4 = ((ip->protocol == IPPROTO_TCP || ip->protocol == IPPROTO_UDP)
               && !(key->nw_frag & XDP_NW_FRAG_LATER));

    if (a->ipv4.src_mask) {
        __be32 old = ip->saddr;
        __be32 new = (old & ~a->ipv4.src_mask) | (a->ipv4.src & a->ipv4.src_mask);
        csum_replace4(&ip->check, old, new);
        if (l4) {
            diff->pseudo += csum_diff4(old, new);
        }
        ip->saddr = new;
    }
    if (a->ipv4.dst_mask) {
        __be32 old = ip->daddr;
        __be32 new = (old & ~a->ipv4.dst_mask) | (a->ipv4.dst & a->ipv4.dst_mask);
        csum_replace4(&ip->check, old, new);
        if (l4) {
            diff->pseudo += csum_diff4(old, new);
        }
        ip->daddr = new;
    }
    if (a->ipv4.tos_mask || a->ipv4.ttl_mask) {
        __be16 *word0 = (__be16 *) ip;          /* version, ihl, tos */
        __be16 *word4 = (__be16 *) ip + 4;      /* ttl, protocol */
        __be16 old0 = *word0, old4 = *word4;

        ip->tos = (ip->tos & ~a->ipv4.tos_mask)
                  | (a->ipv4.tos & a->ipv4.tos_mask);
        ip->ttl = (ip->ttl & ~a->ipv4.ttl_mask)
                  | (a->ipv4.ttl & a->ipv4.ttl_mask);
        csum_replace2(&ip->check, old0, *word0);
        csum_replace2(&ip->check, old4, *word4);
    }
    return 0;
}

/* The offset of the L4 header of the IPv6 packet in 'ctx' if it follows
 * the IPv6 header directly (no extension headers) and is 'key''s
 * transport protocol, otherwise -1. */
static __always_inline int
ipv6_l4_offset(XDP_PARSE_CTX *ctx, const struct xdp_flow_key *key)
{
    void *data = (void *) (long) ctx->data;
    void *data_end = (void *) (long) ctx->data_end;
    int off = l3_offset(data, data_end);

    if (off < 0 || off > 64 || key->eth_type != bpf_htons(ETH_P_IPV6)) {
        return -1;
    }
    struct ipv6hdr *ip6 = data + off;
    if ((void *) (ip6 + 1) > data_end || ip6->nexthdr != key->nw_proto) {
        return -1;
    }
    return off + sizeof *ip6;
}

/* Whether the L4 checksum of a packet of 'key''s protocol covers the IP
 * pseudo-header. */
static __always_inline int
l4_has_pseudo_hdr(const struct xdp_flow_key *key)
{
    return (key->nw_proto == IPPROTO_TCP || key->nw_proto == IPPROTO_UDP
            || (key->nw_proto == IPPROTO_ICMPV6
                && key->eth_type == bpf_htons(ETH_P_IPV6)));
}

/* Finds the L4 header of the IP packet in 'ctx' and how many bytes of it
 * the IP header's length (IPv4's total length, IPv6's payload length)
 * covers.  Returns the offset in the low 8 bits and the size above them,
 * or -1 if there is no L4 header to look at (a later fragment, IPv6
 * extension headers, a malformed header).  odp_execute_actions() bounds
 * its L4 edits so (dp_packet_l4_size(), which flow_extract() takes from
 * the IP header), not by the end of the frame: an L4 header that the IP
 * length leaves out is left alone.  A global function: inline, it cost
 * the verifier 140,000 instructions of the generic program. */
__attribute__((noinline)) int
xdp_dp_l4_bounds__(XDP_PARSE_CTX *ctx, const struct xdp_flow_key *key)
{
    void *data = (void *) (long) ctx->data;
    void *data_end = (void *) (long) ctx->data_end;
    int off, end;

    if (!key) {
        return -1;
    }
    off = l3_offset(data, data_end);
    if (off < 0 || off > 64 || key->nw_frag & XDP_NW_FRAG_LATER) {
        return -1;
    }
    if (key->eth_type == bpf_htons(ETH_P_IP)) {
        struct iphdr *ip = data + off;
        if ((void *) (ip + 1) > data_end) {
            return -1;
        }
        end = off + bpf_ntohs(ip->tot_len);
        off += ip->ihl * 4;
    } else {
        struct ipv6hdr *ip6 = data + off;
        if ((void *) (ip6 + 1) > data_end) {
            return -1;
        }
        end = off + sizeof *ip6 + bpf_ntohs(ip6->payload_len);
        off = ipv6_l4_offset(ctx, key);
    }
    if (off < 0 || off > 128 || end < off) {
        return -1;
    }
    return (end - off) << 8 | off;
}

/* xdp_dp_l4_bounds__() into '*l4_ofs' and the size, or -1. */
static __always_inline int
l4_bounds(XDP_PARSE_CTX *ctx, const struct xdp_flow_key *key, int *l4_ofs)
{
    int b = xdp_dp_l4_bounds__(ctx, key);

    if (b < 0) {
        return -1;
    }
    *l4_ofs = b & 0xff;
    return b >> 8;
}

/* The TCP, UDP or ICMPv6 checksum of the IP packet in 'ctx', or NULL if it
 * has none (another protocol, a later fragment, a UDP checksum of zero, an
 * IPv6 packet with extension headers, an L4 header that the IP length
 * leaves out: see l4_bounds()). */
static __always_inline __sum16 *
l4_csum(XDP_PARSE_CTX *ctx, const struct xdp_flow_key *key)
{
    void *data = (void *) (long) ctx->data;
    void *data_end = (void *) (long) ctx->data_end;
    int off = 0;
    __u8 proto;

    int l4_size = l4_bounds(ctx, key, &off);

    if (l4_size < 0) {
        return NULL;
    }
    proto = key->nw_proto;
    if (proto == IPPROTO_ICMPV6 && key->eth_type == bpf_htons(ETH_P_IPV6)) {
        /* Type, code and checksum: OVS's ICMP6_HEADER_LEN. */
        struct icmp6hdr *icmp6 = data + off;
        return ((void *) icmp6 + XDP_ICMP6_HLEN <= data_end
                && l4_size >= XDP_ICMP6_HLEN ? &icmp6->icmp6_cksum : NULL);
    } else if (proto == IPPROTO_TCP) {
        struct tcphdr *tcp = data + off;
        return ((void *) (tcp + 1) <= data_end && l4_size >= sizeof *tcp
                ? &tcp->check : NULL);
    } else if (proto == IPPROTO_UDP) {
        struct udphdr *udp = data + off;
        return ((void *) (udp + 1) <= data_end && l4_size >= sizeof *udp
                && udp->check ? &udp->check : NULL);
    }
    return NULL;
}

/* Applies 'diff' to the packet's TCP or UDP checksum, taken to be a full
 * one: for outputs that stay XDP frames (see struct xdp_dp_skb_meta for
 * the others). */
static __always_inline void
apply_l4_csum_diff(XDP_PARSE_CTX *ctx, const struct xdp_flow_key *key,
                   const struct l4_csum_diff *diff)
{
    __sum16 *check;

    if (!diff->pseudo && !diff->other) {
        return;
    }
    check = l4_csum(ctx, key);
    if (check) {
        __u16 sum = ~csum_fold16((__u16) ~*check + csum_fold16(diff->pseudo)
                                 + csum_fold16(diff->other));

        *check = sum ? sum : (key->nw_proto == IPPROTO_UDP ? 0xffff : 0);
    }
}

/* Rewrites the TCP or UDP ports of the packet in 'ctx' as 'a' says, with
 * the checksum change in 'diff'.  Returns 1 if it rewrote them, 0 if there
 * was nothing OVS would rewrite (no or a malformed transport header), -1
 * if the packet is not of the action's protocol. */
static __always_inline int
do_set_l4_ports(XDP_PARSE_CTX *ctx, const struct xdp_dp_action *a,
                const struct xdp_flow_key *key, struct l4_csum_diff *diff)
{
    void *data = (void *) (long) ctx->data;
    void *data_end = (void *) (long) ctx->data_end;
    int off = 0;
    /* (execute() made sure an IPv6 packet has no extension headers.) */
    int l4_size = l4_bounds(ctx, key, &off);
    __be16 *ports;

    if (key->nw_proto != a->l4.proto) {
        return -1;
    }
    if (l4_size < 0) {
        return 0;               /* Nothing to rewrite, as for OVS. */
    }
    if (a->l4.proto == IPPROTO_TCP) {
        struct tcphdr *tcp = data + off;
        if ((void *) (tcp + 1) > data_end || l4_size < sizeof *tcp
            || tcp->doff * 4 < sizeof *tcp || tcp->doff * 4 > l4_size) {
            /* What dp_packet_get_tcp_payload() refuses: OVS leaves the
             * ports alone. */
            return 0;
        }
        ports = (__be16 *) tcp;
    } else {
        struct udphdr *udp = data + off;
        if ((void *) (udp + 1) > data_end || l4_size < sizeof *udp) {
            return 0;
        }
        ports = (__be16 *) udp;
    }

    __be16 src = (ports[0] & ~a->l4.src_mask) | (a->l4.src & a->l4.src_mask);
    __be16 dst = (ports[1] & ~a->l4.dst_mask) | (a->l4.dst & a->l4.dst_mask);
    diff->other += ((__u16) ~ports[0] + (__u16) src
                    + (__u16) ~ports[1] + (__u16) dst);
    ports[0] = src;
    ports[1] = dst;
    return 1;
}

static __always_inline int
do_set_ipv6_addr(XDP_PARSE_CTX *ctx, const struct xdp_dp_action *a,
                 const struct xdp_flow_key *key, struct l4_csum_diff *diff)
{
    struct ipv6hdr *ip6 = l3_header(ctx, sizeof *ip6);

    if (!ip6) {
        return -1;
    }
    __be32 *addr = (__be32 *) (a->ipv6_addr.dst ? &ip6->daddr : &ip6->saddr);
    const __be32 *new = (const __be32 *) a->ipv6_addr.addr;
    int pseudo = (l4_has_pseudo_hdr(key)
                  && !(key->nw_frag & XDP_NW_FRAG_LATER));
#pragma unroll
    for (int i = 0; i < 4; i++) {
        if (pseudo) {
            diff->pseudo += csum_diff4(addr[i], new[i]);
        }
        addr[i] = new[i];
    }
    return 0;
}

static __always_inline int
do_set_ipv6(XDP_PARSE_CTX *ctx, const struct xdp_dp_action *a)
{
    struct ipv6hdr *ip6 = l3_header(ctx, sizeof *ip6);

    if (!ip6) {
        return -1;
    }
    /* Version (4 bits), traffic class (8), flow label (20). */
    __be32 *word0 = (__be32 *) ip6;
    __u32 w = bpf_ntohl(*word0);
    __u32 tclass = (w >> 20) & 0xff;

    tclass = (tclass & ~a->ipv6.tclass_mask)
             | (a->ipv6.tclass & a->ipv6.tclass_mask);
    w = (w & 0xf00fffff) | (tclass << 20);
    w = (w & ~bpf_ntohl(a->ipv6.label_mask))
        | (bpf_ntohl(a->ipv6.label) & bpf_ntohl(a->ipv6.label_mask));
    *word0 = bpf_htonl(w);
    ip6->hop_limit = (ip6->hop_limit & ~a->ipv6.hlimit_mask)
                     | (a->ipv6.hlimit & a->ipv6.hlimit_mask);
    return 0;
}

#endif /* xdp-dp-rewrite.h */
