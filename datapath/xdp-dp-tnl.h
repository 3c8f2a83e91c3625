/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_TNL_H
#define XDP_DP_TNL_H 1

/* tnl_push() in XDP: encapsulation into UDP tunnels and GRE, over IPv4 or
 * IPv6.
 *
 * XDP_DP_ACTION_TNL_PUSH (see "Tunnels" in xdp-dp.h) first assembles the
 * header from the action's XDP_DP_ACTION_DATA and, for a UDP tunnel,
 * writes in the UDP source port, which OVS picks from the packet's hash (as
 * netdev_tnl_get_src_port() does, from flow_hash_5tuple(), the hash of
 * the key as the flow matched it).  A GRE header (xdp-actions.c lets
 * through only those without checksum) has nothing that depends on the
 * packet but its sequence number, if it has one: the next of the tunnel
 * port's count, which ovs-vswitchd shares (xdp_dp_gre_seq).  The outer
 * header is IPv4 without options or IPv6 without extension headers
 * (tnl_hdr_is_ipv6() tells which), as OVS builds them
 * (netdev_tnl_ip_build_header()).  Then:
 *
 *   - A frame of a native-mode port is an XDP frame that is never a GSO
 *     segment: xdp_dp_tnl_push__() grows it at its head and copies the
 *     header in, with the outer lengths (and IPv4 checksum) for its size.
 *
 *   - A frame of a generic-mode port may be a GSO segment (a container's
 *     TCP with TSO kept), whose encapsulation the skb must know about, or
 *     the kernel would cut it into TCP segments at the wrong offsets.  XDP
 *     leaves the header in xdp_dp_tnl_hdrs (per CPU: the TC half runs
 *     right after generic XDP, on the same CPU, for the same skb) and the
 *     TC half pushes it with bpf_skb_adjust_room() and the IPv4 or IPv6 and
 *     UDP (or GRE) tunnel flags, which mark the skb as encapsulated so that
 *     the kernel's tunnel GSO cuts the inner segments and makes the outer
 *     lengths of each (tc_tnl_push()).  The TC pipeline of ports in tc
 *     mode pushes the same way.
 *
 * The outer IPv4 checksum that OVS prebuilt is that of a total length of
 * 0 (netdev_tnl_push_ip_header() adds the length in), so both add the
 * length they write in; IPv6 has none.
 *
 * A UDP tunnel with checksums (options:csum=true, OVN's default for
 * Geneve; over IPv6 always, udp_build_header()) has a nonzero UDP
 * checksum in its prebuilt header (OVS's 0xffff), which the push replaces
 * with the datagram's, as netdev_tnl_push_udp_header() does: XDP sums the
 * whole frame (xdp_dp_csum_frame__()), the TC half sums only the headers,
 * as the kernel's local checksum offload does (tc_tnl_udp_csum()), or,
 * over IPv6, the whole skb where the inner packet has no checksum that
 * could be partial (tc_tnl_udp_csum_whole()).  A GSO segment in the TC
 * half cannot get one: the kernel cuts it with the outer UDP header
 * copied into every piece, and computes the pieces' checksums only for an
 * skb marked SKB_GSO_UDP_TUNNEL_CSUM, which bpf_skb_adjust_room() cannot
 * ask for (Linux 6.18 has no such flag).  Over IPv4 it goes out with a
 * UDP checksum of 0, which RFC 7348 and RFC 8926 allow; 'tc-tnl-no-csum'
 * counts them.  Over IPv6 a zero checksum is refused by receivers not
 * told otherwise (RFC 6935 and 6936; Linux's udp6zerocsumrx), so there
 * the flow is XDP_FLOW_F_NO_GSO: the TC pipeline, which sees the skb's GSO
 * size, and XDP, which takes a generic-mode frame longer than an Ethernet
 * MTU for a GSO segment (XDP_DP_TNL_MAY_BE_GSO()), hand such a packet to
 * ovs-vswitchd, which cuts it and pushes the header onto each piece
 * (dp_xdp_tnl_push()).  (A GSO segment of a generic-mode port no longer
 * than an Ethernet frame, from a sender whose MSS is below its MTU's,
 * escapes that test: it goes out with 0, counted in 'tc-tnl-no-csum'.)
 * GRE has no checksum here, and its GSO segments stay in the TC half. */

/* Adds 'v' to the one's-complement sum 's'. */
static __always_inline __u32
csum_add32(__u32 s, __u32 v)
{
    s += v;
    return s + (s < v);
}

/* The one's-complement sum of the IPv4 pseudo-header of a UDP datagram of
 * 'len' bytes from 'src' to 'dst'. */
static __always_inline __u32
csum_pseudo4(__be32 src, __be32 dst, __u8 proto, __u32 len)
{
    __u32 s = csum_add32(src, dst);

    s = csum_add32(s, bpf_htons(proto));
    return csum_add32(s, bpf_htons(len));
}

/* The one's-complement sum of the 'n' 16-bit words at 'p'. */
static __always_inline __u32
csum_words(const __u16 *p, int n)
{
    __u32 s = 0;

#pragma unroll
    for (int i = 0; i < n; i++) {
        s += p[i];
    }
    return s;
}

/* The one's-complement sum of the IPv6 pseudo-header of a datagram of
 * 'len' bytes (less than 64 kB) of protocol 'proto', whose source and
 * destination addresses are the 32 bytes at 'addrs'. */
static __always_inline __u32
csum_pseudo6(const __u8 *addrs, __u8 proto, __u32 len)
{
    __u32 s = csum_words((const __u16 *) addrs, 16);

    s = csum_add32(s, bpf_htons(proto));
    return csum_add32(s, bpf_htons(len));
}

/* Whether the prebuilt tunnel header 'hdr' is over IPv6.  xdp-actions.c
 * lets through Ethernet followed by IPv4 without options (20 bytes, the
 * protocol at 9) or IPv6 without extension headers (40 bytes, the next
 * header at 6), then UDP or GRE. */
static __always_inline int
tnl_hdr_is_ipv6(const __u8 *hdr)
{
    return *(const __be16 *) (hdr + 12) == bpf_htons(ETH_P_IPV6);
}

/* The L4 protocol of the prebuilt tunnel header 'hdr'. */
static __always_inline __u8
tnl_hdr_proto(const __u8 *hdr)
{
    return tnl_hdr_is_ipv6(hdr) ? hdr[ETH_HLEN + 6] : hdr[ETH_HLEN + 9];
}

/* The sum of the pseudo-header of the outer UDP datagram of 'len' bytes
 * under the prebuilt tunnel header 'hdr'. */
static __always_inline __u32
tnl_hdr_pseudo(const __u8 *hdr, __u32 len)
{
    if (tnl_hdr_is_ipv6(hdr)) {
        return csum_pseudo6(hdr + ETH_HLEN + 8, IPPROTO_UDP, len);
    }
    return csum_pseudo4(*(__be32 *) (hdr + ETH_HLEN + 12),
                        *(__be32 *) (hdr + ETH_HLEN + 16), IPPROTO_UDP, len);
}

/* The longest range xdp_dp_csum_frame__() sums: a native frame with a
 * pushed header, or a generic one of an Ethernet MTU. */
#define XDP_DP_CSUM_MAX 4096

/* Adds to '*sum' the one's-complement sum (as csum_partial() makes it, in
 * the frame's byte order) of the 'len' bytes of the frame between 'data'
 * and 'data_end' from offset 'off' on, which must be even.  Returns 0, or
 * -1 if they are not all in the frame (its linear part) or 'len' is over
 * XDP_DP_CSUM_MAX.  bpf_csum_diff() sums at most 512 bytes, a multiple of
 * 4, per call.  Inline in the global functions below, one per kind of
 * context: the verifier checks its loop once for each. */
static __always_inline int
csum_range(void *data, void *data_end, __u32 off, __u32 len, __u32 *sum)
{
    void *p;
    __u32 acc, pos, done = 0;
    __s64 r;

    if (off > 256 || len > XDP_DP_CSUM_MAX) {
        return -1;
    }
    acc = *sum;
    /* Points 'p' at 'off + done', a bound the verifier sees (both are
     * bounded, but clang may lose that on the way). */
#define XDP_DP_CSUM_AT()                                        \
    pos = off + done;                                           \
    asm volatile("%[pos] &= 0x1fff" : [pos] "+r"(pos));         \
    p = data + pos
    for (int i = 0; i < XDP_DP_CSUM_MAX / 512; i++) {
        if (len - done < 512) {
            break;
        }
        XDP_DP_CSUM_AT();
        if (p + 512 > data_end) {
            return -1;
        }
        r = bpf_csum_diff(NULL, 0, p, 512, acc);
        if (r < 0) {
            return -1;
        }
        acc = r;
        done += 512;
    }
    if (done > XDP_DP_CSUM_MAX) {
        return -1;
    }
#define XDP_DP_CSUM_STEP(N)                                     \
    if (len - done >= (N)) {                                    \
        XDP_DP_CSUM_AT();                                       \
        if (p + (N) > data_end) {                               \
            return -1;                                          \
        }                                                       \
        r = bpf_csum_diff(NULL, 0, p, (N), acc);                \
        if (r < 0) {                                            \
            return -1;                                          \
        }                                                       \
        acc = r;                                                \
        done += (N);                                            \
    }
    XDP_DP_CSUM_STEP(256)
    XDP_DP_CSUM_STEP(128)
    XDP_DP_CSUM_STEP(64)
    XDP_DP_CSUM_STEP(32)
    XDP_DP_CSUM_STEP(16)
    XDP_DP_CSUM_STEP(8)
    XDP_DP_CSUM_STEP(4)
#undef XDP_DP_CSUM_STEP
    /* The last 0 to 3 bytes; a lone byte is the high half of its 16-bit
     * word in network order, the low one in this machine's. */
    XDP_DP_CSUM_AT();
#undef XDP_DP_CSUM_AT
    if (len - done >= 2) {
        if (p + 2 > data_end) {
            return -1;
        }
        acc = csum_add32(acc, *(__u16 *) p);
        p += 2;
        done += 2;
    }
    if (len - done == 1) {
        if (p + 1 > data_end) {
            return -1;
        }
        acc = csum_add32(acc, *(__u8 *) p);
    }
    *sum = acc;
    return 0;
}

/* csum_range() over the frame in 'ctx'.  A global function: the verifier
 * checks its loop once. */
__attribute__((noinline)) int
xdp_dp_csum_frame__(XDP_PARSE_CTX *ctx, __u32 off, __u32 len, __u32 *sum)
{
    if (!ctx || !sum) {
        return -1;
    }
    return csum_range((void *) (long) ctx->data, (void *) (long) ctx->data_end,
                      off, len, sum);
}

#ifdef XDP_DP_SKB_PIPELINE
#define tc_csum_skb__ xdp_dp_csum_frame__
#else
/* csum_range() over the linear part of 'skb', for the TC half of the XDP
 * program.  A global function. */
__attribute__((noinline)) int
tc_csum_skb__(struct __sk_buff *skb, __u32 off, __u32 len, __u32 *sum)
{
    if (!skb || !sum) {
        return -1;
    }
    return csum_range((void *) (long) skb->data, (void *) (long) skb->data_end,
                      off, len, sum);
}
#endif

/* Assembles the header of the XDP_DP_ACTION_TNL_PUSH at 'flow->actions[i]'
 * into 'h', with UDP source port 'src_port'.  Returns its length, or 0 if
 * the action is malformed.  The action is one of the flow's first four
 * (xdp-actions.c), so that its data, up to three actions, and the output
 * after them fit. */
static __always_inline __u32
tnl_assemble(const struct xdp_flow *flow, __u32 i, struct xdp_dp_tnl_hdr *h,
             __be16 src_port)
{
    const struct xdp_dp_action *a;
    __u32 len;

    if (i > 3) {
        return 0;
    }
    /* Where clang cannot drop it as redundant, for the verifier. */
    asm volatile("%[i] &= 3" : [i] "+r"(i));
    a = &flow->actions[i];
    len = a->tnl_push.len;
    if (len < XDP_DP_TNL_MIN_HDR || len > XDP_DP_TNL_MAX_HDR) {
        return 0;
    }
    __u32 last = len - 32;      /* 10 to 64: where the last 32 go. */
    __builtin_memcpy(h->hdr, a[1].data, 32);
    if (len > 64) {
        __builtin_memcpy(h->hdr + 32, a[2].data, 32);
        __builtin_memcpy(h->hdr + last, a[3].data, 32);
    } else {
        __builtin_memcpy(h->hdr + last, a[2].data, 32);
    }
    h->len = len;
    if (a->tnl_push.seq_port) {
        /* GRE's sequence number: the header's last 4 bytes (xdp-actions.c
         * lets no GRE checksum through, which would follow), from the
         * count the port shares with ovs-vswitchd. */
        __u32 port = a->tnl_push.seq_port;
        __u64 *count = bpf_map_lookup_elem(&xdp_dp_gre_seq, &port);
        __be32 seq;

        if (!count) {
            return 0;
        }
        seq = bpf_htonl((__u32) __sync_fetch_and_add(count, 1));
        __builtin_memcpy(h->hdr + len - 4, &seq, 4);
    }
    /* Ethernet, then IPv4 without options or IPv6 without extension
     * headers (xdp-actions.c checks). */
    if (tnl_hdr_is_ipv6(h->hdr)) {
        if (h->hdr[ETH_HLEN + 6] == IPPROTO_UDP) {
            *(__be16 *) (h->hdr + ETH_HLEN + 40) = src_port;
        }
    } else if (h->hdr[ETH_HLEN + 9] == IPPROTO_UDP) {
        *(__be16 *) (h->hdr + ETH_HLEN + 20) = src_port;
    }
    return len;
}

/* Writes into the header at 'hdr' the lengths for a packet of 'pkt_len'
 * bytes in all, the header included. */
static __always_inline void
tnl_set_lengths(__u8 *hdr, __u32 pkt_len)
{
    struct iphdr *ip = (void *) (hdr + 14);
    struct udphdr *udp = (void *) (hdr + 14 + 20);
    __be16 tot_len = bpf_htons(pkt_len - 14);

    if (tnl_hdr_is_ipv6(hdr)) {
        /* No header checksum; the payload length leaves the header out
         * (netdev_tnl_push_ip_header()). */
        struct ipv6hdr *ip6 = (void *) (hdr + 14);
        __be16 plen = bpf_htons(pkt_len - 14 - 40);

        ip6->payload_len = plen;
        if (ip6->nexthdr == IPPROTO_UDP) {
            ((struct udphdr *) (ip6 + 1))->len = plen;
        }
        return;
    }
    ip->tot_len = tot_len;
    csum_replace2(&ip->check, 0, tot_len);
    if (ip->protocol == IPPROTO_UDP) {
        udp->len = bpf_htons(pkt_len - 14 - 20);
    }
}

#ifndef XDP_DP_SKB_PIPELINE
/* Assembles the header of the XDP_DP_ACTION_TNL_PUSH at 'flow->actions[i]'
 * for the packet in 'ctx', whose key is 'key', into xdp_dp_tnl_hdrs; then
 * pushes it onto the frame, unless 'skb_only' (a frame that arrived in
 * generic mode), which the TC half encapsulates.  Returns 0, or -1 if the
 * action is malformed or the frame has no room.  A global function: the
 * verifier checks it once, not at every step of the action loop. */
__attribute__((noinline)) int
xdp_dp_tnl_push__(XDP_PARSE_CTX *ctx, const struct xdp_flow *flow, __u32 i,
                  const struct xdp_flow_key *key, __u32 skb_only)
{
    __u32 zero = 0;
    struct xdp_dp_tnl_hdr *h = bpf_map_lookup_elem(&xdp_dp_tnl_hdrs, &zero);
    const struct xdp_dp_action *a;
    void *data, *data_end;
    __u32 len, range, port;

    if (!h || !flow || !key || i > 3) {
        return -1;
    }
    /* The verifier of a global function knows nothing of 'i': bound it
     * where clang cannot drop the bound as redundant. */
    asm volatile("%[i] &= 3" : [i] "+r"(i));
    a = &flow->actions[i];
    range = a->tnl_push.port_max - a->tnl_push.port_min;
    port = ((__u64) hash_5tuple(key, 0) * range >> 32) + a->tnl_push.port_min;
    len = tnl_assemble(flow, i, h, bpf_htons(port));
    if (!len) {
        return -1;
    }
    if (skb_only) {
        return 0;
    }

    if (bpf_xdp_adjust_head(ctx, -(int) len)) {
        return -1;
    }
    data = (void *) (long) ctx->data;
    data_end = (void *) (long) ctx->data_end;
    tnl_set_lengths(h->hdr, data_end - data);

    /* Fixed-size moves: 0-31, 32-63 if the header is longer than 64, and
     * its last 32 bytes. */
    if (data + 32 > data_end) {
        return -1;
    }
    __builtin_memcpy(data, h->hdr, 32);
    if (len > 64) {
        if (data + 64 > data_end) {
            return -1;
        }
        __builtin_memcpy(data + 32, h->hdr + 32, 32);
    }
    __u32 last = len - 32;
    if (last > XDP_DP_TNL_MAX_HDR - 32 || data + last + 32 > data_end) {
        return -1;
    }
    __builtin_memcpy(data + last, h->hdr + last, 32);

    /* Where the UDP header is: after IPv4 or IPv6. */
    __u32 l4 = tnl_hdr_is_ipv6(h->hdr) ? ETH_HLEN + 40 : ETH_HLEN + 20;
    struct udphdr *udp = data + l4;
    __u32 udp_len = data_end - (void *) udp;

    if (tnl_hdr_proto(h->hdr) == IPPROTO_UDP
        && *(__u16 *) (h->hdr + l4 + 6)) {
        /* The datagram's checksum (always over IPv6, where OVS builds
         * every UDP tunnel header with one), over the whole frame: its
         * inner checksums are whole (a native frame, see "Checksum
         * offload" in ofproto-xdp/dpif-xdp-upcall.c for where they are
         * not). */
        __u32 sum = tnl_hdr_pseudo(h->hdr, udp_len);

        if ((void *) (udp + 1) > data_end) {
            return -1;
        }
        udp->check = 0;
        if (xdp_dp_csum_frame__(ctx, l4, udp_len, &sum)) {
            return -1;
        }
        data = (void *) (long) ctx->data;
        data_end = (void *) (long) ctx->data_end;
        udp = data + l4;
        if ((void *) (udp + 1) > data_end) {
            return -1;
        }
        udp->check = (__u16) ~csum_fold16(sum) ?: 0xffff;
    }
    return 0;
}
#endif

/* The UDP checksum of the datagram of the UDP tunnel header 'h' just
 * pushed onto 'skb' (not a GSO segment), or 0 if it cannot tell.
 *
 * The inner packet's own TCP, UDP or ICMPv6 checksum may be partial, for
 * the device (or the receiver's stack) to finish: a container's stack
 * sends with checksum offload, and the TC half cannot tell.  So this sums,
 * as the kernel's local checksum offload does (lco_csum()), only the bytes
 * from the UDP header to the inner L4 header, and adds for the inner L4
 * part what it sums to once its checksum is whole: the complement of its
 * pseudo-header's sum (0 for ICMP, which has none).  That holds for a
 * whole checksum as well as a partial one.  An inner packet without such a
 * checksum (UDP without one, a fragment, other protocols, IPv4 options,
 * IPv6 extension headers, a VLAN tag) gets 0. */
static __always_inline __u16
tc_tnl_udp_csum(struct __sk_buff *skb, const struct xdp_dp_tnl_hdr *h,
                __u32 len)
{
    __u8 in[ETH_HLEN + 40 + 2] __attribute__((aligned(4)));
    __u32 l4, sum, inner;
    __be16 type;
    __u8 proto;

    if (bpf_skb_load_bytes(skb, len + 12, &type, 2)) {
        return 0;
    }
    if (type == bpf_htons(ETH_P_IP)) {
        struct iphdr *ip = (void *) (in + 2 + ETH_HLEN);

        if (bpf_skb_load_bytes(skb, len, in + 2, ETH_HLEN + 20)
            || ip->ihl != 5 || ip->frag_off & bpf_htons(0x3fff)) {
            return 0;
        }
        proto = ip->protocol;
        inner = csum_pseudo4(ip->saddr, ip->daddr, proto,
                             bpf_ntohs(ip->tot_len) - 20);
        sum = csum_words((__u16 *) (in + 2), (ETH_HLEN + 20) / 2);
        l4 = len + ETH_HLEN + 20;
    } else if (type == bpf_htons(ETH_P_IPV6)) {
        struct ipv6hdr *ip6 = (void *) (in + 2 + ETH_HLEN);

        if (bpf_skb_load_bytes(skb, len, in + 2, ETH_HLEN + 40)) {
            return 0;
        }
        proto = ip6->nexthdr;
        inner = csum_words((__u16 *) &ip6->saddr, 16);
        inner = csum_add32(inner, ip6->payload_len);
        inner = csum_add32(inner, bpf_htons(proto));
        sum = csum_words((__u16 *) (in + 2), (ETH_HLEN + 40) / 2);
        l4 = len + ETH_HLEN + 40;
    } else {
        return 0;
    }

    __u16 field;
    if (proto == IPPROTO_TCP || proto == IPPROTO_UDP
        || (proto == IPPROTO_ICMPV6 && type == bpf_htons(ETH_P_IPV6))) {
        int ofs = (proto == IPPROTO_TCP ? 16 : proto == IPPROTO_UDP ? 6 : 2);

        if (bpf_skb_load_bytes(skb, l4 + ofs, &field, 2)
            || (proto == IPPROTO_UDP && !field)) {
            return 0;
        }
        inner = (__u16) ~csum_fold16(inner);
    } else if (proto == IPPROTO_ICMP && type == bpf_htons(ETH_P_IP)) {
        inner = 0;
    } else {
        return 0;
    }

    /* The UDP header, its checksum 0, and the tunnel header: a multiple
     * of 4 bytes (8 for UDP, 8 for VXLAN and Geneve, 4 per option).  (Two
     * branches with constant offsets, so that the verifier sees both
     * ranges inside 'h'.) */
    __u32 outer;
    __u64 n;                    /* 64 bits: no copy to zero-extend. */
    __s64 r;

    if (tnl_hdr_is_ipv6(h->hdr)) {
        outer = ETH_HLEN + 40;
        n = len - outer;
        /* One register for the bound and the call, which clang might
         * otherwise give an unchecked copy of 'n'. */
        asm volatile("%[n] &= 0x7f" : [n] "+r"(n));
        if (n > XDP_DP_TNL_MAX_HDR - (ETH_HLEN + 40)) {
            return 0;
        }
        r = bpf_csum_diff(NULL, 0, (void *) h->hdr + ETH_HLEN + 40, n, 0);
    } else {
        outer = ETH_HLEN + 20;
        n = len - outer;
        /* One register for the bound and the call, which clang might
         * otherwise give an unchecked copy of 'n'. */
        asm volatile("%[n] &= 0x7f" : [n] "+r"(n));
        if (n > XDP_DP_TNL_MAX_HDR - (ETH_HLEN + 20)) {
            return 0;
        }
        r = bpf_csum_diff(NULL, 0, (void *) h->hdr + ETH_HLEN + 20, n, 0);
    }
    if (r < 0) {
        return 0;
    }
    sum = csum_add32(sum, r);
    sum = csum_add32(sum, inner);
    sum = csum_add32(sum, tnl_hdr_pseudo(h->hdr, skb->len - outer));
    return (__u16) ~csum_fold16(sum) ?: 0xffff;
}

/* The UDP checksum of the datagram at 'l4' in 'skb', just encapsulated
 * under the UDP tunnel header 'h' with a checksum of 0, over the whole
 * datagram as it is; 0 if it cannot be summed (longer than
 * XDP_DP_CSUM_MAX). */
static __always_inline __u16
tc_tnl_udp_csum_whole(struct __sk_buff *skb, const struct xdp_dp_tnl_hdr *h,
                      __u32 l4)
{
    __u32 udp_len = skb->len - l4;
    __u32 sum = tnl_hdr_pseudo(h->hdr, udp_len);

    if (bpf_skb_pull_data(skb, skb->len)
        || tc_csum_skb__(skb, l4, udp_len, &sum)) {
        return 0;
    }
    return (__u16) ~csum_fold16(sum) ?: 0xffff;
}

/* The TC half's part of XDP_DP_SKB_META_F_TNL_PUSH: pushes the header
 * that XDP left in xdp_dp_tnl_hdrs onto 'skb'.  Returns 0 or -1. */
static __always_inline int
tc_tnl_push(struct __sk_buff *skb)
{
    __u64 flags = (BPF_F_ADJ_ROOM_FIXED_GSO | BPF_F_ADJ_ROOM_ENCAP_L2_ETH
                   | BPF_F_ADJ_ROOM_ENCAP_L2(ETH_HLEN));
    __u32 zero = 0;
    struct xdp_dp_tnl_hdr *h = bpf_map_lookup_elem(&xdp_dp_tnl_hdrs, &zero);
    __u8 inner_eth[ETH_HLEN];
    __u32 len, l4;
    __u8 proto;

    if (!h) {
        return -1;
    }
    len = h->len;
    if (len < XDP_DP_TNL_MIN_HDR || len > XDP_DP_TNL_MAX_HDR) {
        return -1;
    }
    if (tnl_hdr_is_ipv6(h->hdr)) {
        flags |= BPF_F_ADJ_ROOM_ENCAP_L3_IPV6;
        l4 = ETH_HLEN + 40;
    } else {
        flags |= BPF_F_ADJ_ROOM_ENCAP_L3_IPV4;
        l4 = ETH_HLEN + 20;
    }
    proto = tnl_hdr_proto(h->hdr);
    flags |= (proto == IPPROTO_UDP
              ? BPF_F_ADJ_ROOM_ENCAP_L4_UDP : BPF_F_ADJ_ROOM_ENCAP_L4_GRE);
    /* The room goes between the Ethernet header and the IP header: the
     * first 'len' bytes then take the outer header, Ethernet included,
     * and the inner Ethernet header follows it. */
    if (bpf_skb_load_bytes(skb, 0, inner_eth, sizeof inner_eth)
        || bpf_skb_adjust_room(skb, len, BPF_ADJ_ROOM_MAC, flags)) {
        return -1;
    }
    tnl_set_lengths(h->hdr, skb->len);

    /* The UDP checksum, if the tunnel has them (see above). */
    int csum = proto == IPPROTO_UDP && *(__u16 *) (h->hdr + l4 + 6);
    if (csum) {
        *(__u16 *) (h->hdr + l4 + 6) = 0;
    }
    if (bpf_skb_store_bytes(skb, 0, h->hdr, len, 0)
        || bpf_skb_store_bytes(skb, len, inner_eth, sizeof inner_eth, 0)) {
        return -1;
    }
    if (csum) {
        __u16 check = skb->gso_size ? 0 : tc_tnl_udp_csum(skb, h, len);

        if (!check && !skb->gso_size && l4 == ETH_HLEN + 40) {
            /* Over IPv6, where a zero checksum is none, which receivers
             * refuse unless told to (Linux's udp6zerocsumrx): an inner
             * packet that tc_tnl_udp_csum() could not tell is one whose
             * own checksum, if any, is not partial (a fragment, ICMP
             * inside IPv6 extension headers, another protocol), summed
             * whole.  GSO segments never come here (XDP_FLOW_F_NO_GSO). */
            check = tc_tnl_udp_csum_whole(skb, h, l4);
        }
        if (!check) {
            COUNT(n_tc_tnl_no_csum, 1);
        } else if (bpf_skb_store_bytes(skb, l4 + 6, &check, 2, 0)) {
            return -1;
        }
    }
    return 0;
}

/* tnl_pop() in XDP (see "Tunnels" in xdp-dp.h).
 *
 * dp_pass() asks tnl_pop_ok() before it counts the hit, so that a packet
 * XDP cannot pop goes to ovs-vswitchd as the flow found it (as a ct()
 * miss does).  The checks are those of OVS's pop for the tunnel's type
 * (netdev_vxlan_pop_header(), netdev_geneve_pop_header() and
 * netdev_gre_pop_header(), and the IP and UDP parts before them,
 * netdev_tnl_ip_extract_tnl_md() and udp_extract_tnl_md()), less what the
 * underlay flow already matched (IPv4 or IPv6, the protocol, the
 * destination address and port), plus what XDP leaves to OVS: IPv4
 * options, IPv6 extension headers, GRE checksums, GRE sequence numbers,
 * Geneve options longer than the key's XDP_TNL_OPTS_LEN bytes,
 * anything but Ethernet inside.  A UDP checksum, over IPv4 or IPv6, is
 * verified here, over the whole frame, as OVS's udp_extract_tnl_md()
 * does (and as there, 0 is no checksum, over IPv6 too); a partial one
 * (the sending stack left it for the device to finish, the value of the
 * pseudo-header's sum) is taken as good, as the kernel does; a bad one
 * goes to OVS, which drops it.
 * do_tnl_pop() then takes the tunnel metadata from the outer headers, as
 * OVS's pop would give it (over IPv6: the addresses, the traffic class
 * as TOS and the hop limit as TTL), strips them, and sets the packet up
 * to be classified again from the tunnel port: OVS's
 * pkt_metadata_init_tnl() clears the rest of the metadata (recirculation
 * id, hash, conntrack state), and so does this. */

#define XDP_VXLAN_HLEN (ETH_HLEN + 20 + 8 + 8)
#define XDP_VXLAN_FLAGS 0x08000000      /* The I (valid VNI) flag. */
#define XDP_GENEVE_HLEN (ETH_HLEN + 20 + 8 + 8)     /* No options. */
#define XDP_GENEVE_OAM 0x80             /* The O flag, in byte 1. */
#define XDP_GRE_HLEN (ETH_HLEN + 20 + 4)            /* Without a key. */
#define XDP_GRE_KEY 0x2000              /* The K flag. */
#define XDP_GRE_SEQ 0x1000              /* The S flag. */
#define XDP_ETH_P_TEB 0x6558            /* Ethernet inside. */

/* The length of a GRE header whose flags and version are 'flags' (no
 * checksum, no routing): 4, and 4 each for the key and sequence number. */
static __always_inline __u32
tnl_gre_hlen(__be16 flags)
{
    return (4 + (flags & bpf_htons(XDP_GRE_KEY) ? 4 : 0)
            + (flags & bpf_htons(XDP_GRE_SEQ) ? 4 : 0));
}

/* Gives 'key' the tunnel metadata 'tun' of its packet. */
static __always_inline void
tnl_fill_key(struct xdp_flow_key *key, const struct tnl_md *tun)
{
    key->tun_id = tun->id;
    key->tun_src = tun->src;
    key->tun_dst = tun->dst;
    key->tun_tp_src = tun->tp_src;
    key->tun_tp_dst = tun->tp_dst;
    key->tun_tos = tun->tos;
    key->tun_ttl = tun->ttl;
    key->tun_flags = tun->flags;
    key->tun_opts_len = tun->opts_len;
    tnl_md_get_wide(tun, key->tun_opts, key->tun_ipv6_src);
}

/* Whether the UDP checksum of the tunnel packet in 'ctx', whose inner
 * Ethernet frame starts 'inner' bytes in, is right for that frame once its
 * own TCP or UDP checksum is finished: the sender left that one partial
 * (its field holds the sum of its pseudo-header, for the device or the
 * receiver to finish) and filled the outer one in for the finished packet,
 * as the kernel's local checksum offload and our TC half
 * (tc_tnl_udp_csum()) do.  On a veth nothing finishes it: such a frame
 * arrives as it was sent, which the receiving stack trusts (the skb says
 * so); XDP checks what can be checked, the headers.  'l4_outer' is the
 * offset of the outer UDP header, after IPv4 or IPv6.  A global
 * function. */
__attribute__((noinline)) int
xdp_dp_tnl_lco_ok__(XDP_PARSE_CTX *ctx, __u32 inner, __u32 l4_outer)
{
    void *data, *data_end;
    __u32 pseudo, l4, ofs, sum;
    __u8 proto, *p;

    if (!ctx) {
        return 0;
    }
    asm volatile("%[inner] &= 0x7f" : [inner] "+r"(inner));
    data = (void *) (long) ctx->data;
    data_end = (void *) (long) ctx->data_end;
    /* The outer pseudo-header's sum. */
    if (data + ETH_HLEN + 40 > data_end) {
        return 0;
    }
    if (l4_outer == ETH_HLEN + 40) {
        const struct ipv6hdr *ip6 = data + ETH_HLEN;

        sum = csum_pseudo6((const __u8 *) &ip6->saddr, IPPROTO_UDP,
                           bpf_ntohs(ip6->payload_len));
    } else if (l4_outer == ETH_HLEN + 20) {
        const struct iphdr *ip = data + ETH_HLEN;

        sum = csum_pseudo4(ip->saddr, ip->daddr, IPPROTO_UDP,
                           bpf_ntohs(ip->tot_len) - 20);
    } else {
        return 0;
    }
    p = data + inner;
    if ((void *) (p + ETH_HLEN + 20) > data_end) {
        return 0;
    }
    if (*(__be16 *) (p + 12) == bpf_htons(ETH_P_IP)) {
        struct iphdr *ip = (void *) (p + ETH_HLEN);

        if (ip->ihl != 5 || ip->frag_off & bpf_htons(0x3fff)) {
            return 0;
        }
        proto = ip->protocol;
        pseudo = csum_pseudo4(ip->saddr, ip->daddr, proto,
                              bpf_ntohs(ip->tot_len) - 20);
        l4 = inner + ETH_HLEN + 20;
    } else if (*(__be16 *) (p + 12) == bpf_htons(ETH_P_IPV6)) {
        struct ipv6hdr *ip6 = (void *) (p + ETH_HLEN);
        __s64 r;

        if ((void *) (ip6 + 1) > data_end) {
            return 0;
        }
        r = bpf_csum_diff(NULL, 0, (void *) &ip6->saddr, 32, 0);
        if (r < 0) {
            return 0;
        }
        proto = ip6->nexthdr;
        pseudo = csum_add32(r, ip6->payload_len);
        pseudo = csum_add32(pseudo, bpf_htons(proto));
        l4 = inner + ETH_HLEN + 40;
    } else {
        return 0;
    }
    if (proto == IPPROTO_TCP) {
        ofs = l4 + 16;
    } else if (proto == IPPROTO_UDP) {
        ofs = l4 + 6;
    } else {
        return 0;
    }
    asm volatile("%[ofs] &= 0xff" : [ofs] "+r"(ofs));
    if (data + ofs + 2 > data_end
        || *(__u16 *) (data + ofs) != csum_fold16(pseudo)) {
        return 0;
    }
    if (l4_outer > l4 || xdp_dp_csum_frame__(ctx, l4_outer, l4 - l4_outer,
                                              &sum)) {
        return 0;
    }
    sum = csum_add32(sum, (__u16) ~csum_fold16(pseudo));
    return csum_fold16(sum) == 0xffff;
}

/* Whether the packet in 'ctx' may be a GSO segment, whose skb would keep
 * describing the outer headers after a pop ('skb_only': it arrived in
 * generic mode, where only its length tells).  The TC pipeline sees the
 * skb's GSO size: this kernel has no way for it to take the tunnel's GSO
 * state off the skb (bpf_skb_adjust_room()'s BPF_F_ADJ_ROOM_DECAP_L4_UDP
 * came later). */
#ifdef XDP_DP_SKB_PIPELINE
#define XDP_DP_TNL_MAY_BE_GSO(CTX, SKB_ONLY) ((SKB_ONLY) && (CTX)->gso_size)
#else
#define XDP_DP_TNL_MAY_BE_GSO(CTX, SKB_ONLY) \
    ((SKB_ONLY) && (CTX)->data_end - (CTX)->data > 1514)
#endif

/* Whether the frame inside the tunnel packet in 'ctx', whose outer L4
 * header is at 'l4' and inner frame at 'inner', can be popped by this
 * program.  The TC pipeline pops with bpf_skb_adjust_room(), which keeps
 * at least an IPv6 header's worth after the outer Ethernet header of an
 * skb whose outer protocol is IPv6 unless it is told that the inner one
 * is IPv4 or IPv6 (BPF_F_ADJ_ROOM_DECAP_L3_*): there, a frame over IPv6
 * with anything else inside (ARP, mostly) goes to ovs-vswitchd. */
static __always_inline int
tnl_pop_inner_ok(XDP_PARSE_CTX *ctx, __u32 l4, __u32 inner)
{
#ifdef XDP_DP_SKB_PIPELINE
    if (l4 == ETH_HLEN + 40) {
        void *data = (void *) (long) ctx->data;
        void *data_end = (void *) (long) ctx->data_end;
        const __be16 *type;

        asm volatile("%[inner] &= 0x7f" : [inner] "+r"(inner));
        type = data + inner + 12;
        if ((void *) (type + 1) > data_end) {
            return 0;
        }
        return (*type == bpf_htons(ETH_P_IP)
                || *type == bpf_htons(ETH_P_IPV6));
    }
#endif
    return 1;
}

/* What xdp_dp_tnl_pop_ok__() returns for a packet whose UDP checksum is
 * wrong for the frame as it is, but may be right once the inner checksum
 * is finished: ORed with the offsets of the inner frame (bits 8 to 15)
 * and of the outer UDP header (from bit 16), for xdp_dp_tnl_lco_ok__(). */
#define XDP_DP_TNL_POP_LCO 2

/* Whether XDP can pop the tunnel header of the packet in 'ctx', whose key
 * is 'key', for tunnel port 'port': 1 or 0, or XDP_DP_TNL_POP_LCO (see
 * above).  'skb_only': the packet arrived in generic mode, where a frame
 * longer than an Ethernet MTU is a GSO segment, whose skb would keep
 * describing the outer headers.  The outer header is IPv4 without options
 * or IPv6 without extension headers (OVS's pop also takes those, from
 * where flow_extract() found the L4 header; XDP leaves them to it).
 * Callers use tnl_pop_ok(), which calls xdp_dp_tnl_lco_ok__() after this
 * one rather than from it: the stack of such a chain of global functions
 * is counted whole against the verifier's 512 bytes. */
__attribute__((noinline)) int
xdp_dp_tnl_pop_ok__(XDP_PARSE_CTX *ctx, const struct xdp_flow_key *key,
                    __u32 port, __u32 skb_only)
{
    void *data = (void *) (long) ctx->data;
    void *data_end = (void *) (long) ctx->data_end;
    struct xdp_dp_port *p = bpf_map_lookup_elem(&xdp_dp_ports, &port);
    const __u8 *b = data;
    __u32 l4, len, sum, inner;

    if (!key || !p || !p->tnl_type || key->nw_frag
        || key->vlans[0].tci || XDP_DP_TNL_MAY_BE_GSO(ctx, skb_only)) {
        return 0;
    }
    /* The longest header checked but Geneve's options (checked below),
     * and an inner Ethernet header. */
    if (data + XDP_GENEVE_HLEN + 20 + ETH_HLEN > data_end) {
        return 0;
    }
    const struct iphdr *ip = data + ETH_HLEN;
    const struct ipv6hdr *ip6 = data + ETH_HLEN;

    if (key->eth_type == bpf_htons(ETH_P_IP)) {
        if (b[ETH_HLEN] != 0x45) {             /* IPv4, no options. */
            return 0;
        }
        l4 = ETH_HLEN + 20;
    } else if (key->eth_type == bpf_htons(ETH_P_IPV6)) {
        /* No extension header: the next header is the tunnel's. */
        if (b[ETH_HLEN] >> 4 != 6 || ip6->nexthdr != key->nw_proto) {
            return 0;
        }
        l4 = ETH_HLEN + 40;
    } else {
        return 0;
    }
    if (p->tnl_type == XDP_DP_TNL_GRE) {
        const __be16 *greh = data + l4;

        /* Version 0, no checksum, no routing: a key, a sequence number
         * or both at most, which OVS's pop takes too. */
        return (key->nw_proto == IPPROTO_GRE
                && !(greh[0] & ~bpf_htons(XDP_GRE_KEY | XDP_GRE_SEQ))
                && greh[1] == bpf_htons(XDP_ETH_P_TEB)
                && tnl_pop_inner_ok(ctx, l4, l4 + tnl_gre_hlen(greh[0])));
    }

    const struct udphdr *udp = data + l4;
    const __be32 *th = (const void *) (udp + 1);
    const __u8 *gnh = (const void *) (udp + 1);

    if (key->nw_proto != IPPROTO_UDP) {
        return 0;
    }
    /* The tunnel's header, and where the inner frame starts: after
     * VXLAN's header, or Geneve's and its options.  As OVS's pop, XDP
     * takes Geneve's options raw, without looking into them: ofproto
     * parses them (tun_metadata_from_geneve_udpif()) for the flow that
     * matches them. */
    inner = l4 + 8 + 8;
    if (p->tnl_type == XDP_DP_TNL_GENEVE) {
        /* Version 0 (byte 0's top 2 bits), options that the key holds
         * (their length in 4-byte words, its 6 others), Ethernet
         * inside. */
        if (gnh[0] > XDP_TNL_OPTS_LEN / 4
            || *(const __be16 *) (gnh + 2) != bpf_htons(XDP_ETH_P_TEB)) {
            return 0;
        }
        inner += gnh[0] * 4;
        asm volatile("%[inner] &= 0x7f" : [inner] "+r"(inner));
        if (data + inner + ETH_HLEN > data_end) {
            return 0;
        }
    } else if (!(p->tnl_type == XDP_DP_TNL_VXLAN
                 && th[0] == bpf_htonl(XDP_VXLAN_FLAGS)
                 && !(th[1] & bpf_htonl(0xff)))) {
        return 0;
    }
    if (!tnl_pop_inner_ok(ctx, l4, inner)) {
        return 0;
    }

    /* The UDP checksum, verified over the whole frame as OVS's pop
     * (udp_extract_tnl_md()) does, if there is one: over IPv6 too, a zero
     * checksum is none, which OVS's pop takes, and so does this.  One
     * that holds the pseudo-header's sum is partial, left for the device
     * to finish: taken as good, as the kernel does. */
    if (!udp->check) {
        return 1;
    }
    if (l4 == ETH_HLEN + 40) {
        len = bpf_ntohs(ip6->payload_len);
        sum = csum_pseudo6((const __u8 *) &ip6->saddr, IPPROTO_UDP, len);
    } else {
        len = bpf_ntohs(ip->tot_len) - 20;
        sum = csum_pseudo4(ip->saddr, ip->daddr, IPPROTO_UDP, len);
    }
    if (udp->check == csum_fold16(sum)) {
        return 1;
    }
    if (!xdp_dp_csum_frame__(ctx, l4, len, &sum)
        && csum_fold16(sum) == 0xffff) {
        return 1;
    }
    return XDP_DP_TNL_POP_LCO | inner << 8 | l4 << 16;
}

/* Whether XDP can pop the tunnel header of the packet in 'ctx' (see
 * xdp_dp_tnl_pop_ok__()). */
static __always_inline int
tnl_pop_ok(XDP_PARSE_CTX *ctx, const struct xdp_flow_key *key, __u32 port,
           __u32 skb_only)
{
    int ok = xdp_dp_tnl_pop_ok__(ctx, key, port, skb_only);

    if (ok & XDP_DP_TNL_POP_LCO) {
        ok = xdp_dp_tnl_lco_ok__(ctx, (ok >> 8) & 0xff, ok >> 16);
    }
    return ok;
}

/* Copies bytes of the packet to the stack or a map, for lengths known
 * only at run time. */
#ifdef XDP_DP_SKB_PIPELINE
#define TNL_LOAD_BYTES bpf_skb_load_bytes
#else
#define TNL_LOAD_BYTES bpf_xdp_load_bytes
#endif

/* Takes the tunnel metadata of the packet in 'ctx', with key 'key'
 * (checked by xdp_dp_tnl_pop_ok__()), into 'md', as OVS's pop would give
 * it (netdev_tnl_ip_extract_tnl_md(): over IPv6, the traffic class as the
 * TOS, the hop limit as the TTL, and no don't-fragment flag).  Returns the
 * length of the headers to strip, or -1. */
static __always_inline int
tnl_pop_md(XDP_PARSE_CTX *ctx, struct pkt_md *md,
           const struct xdp_flow_key *key)
{
    void *data = (void *) (long) ctx->data;
    void *data_end = (void *) (long) ctx->data_end;
    int ip6 = key->eth_type == bpf_htons(ETH_P_IPV6);
    __u32 l4 = ip6 ? ETH_HLEN + 40 : ETH_HLEN + 20;
    struct iphdr *ip = data + ETH_HLEN;
    __be32 *th = data + l4 + 8;
    __be16 *greh = data + l4;
    __u32 zero = 0;
    struct xdp_dp_tnl_wide *w = bpf_map_lookup_elem(&xdp_dp_tnl_wide,
                                                    &zero);
    __u32 hlen;

    if ((void *) (th + 2) > data_end || (void *) (ip + 1) > data_end
        || !w) {
        return -1;
    }
    md->tun.tos = key->nw_tos;
    md->tun.ttl = key->nw_ttl;
    if (ip6) {
        __builtin_memcpy(w->src, key->ipv6_src, 16);
        __builtin_memcpy(w->dst, key->ipv6_dst, 16);
        md->tun.src = 0;
        md->tun.dst = 0;
        md->tun.ipv6 = 1;
        md->tun.flags = 0;
    } else {
        md->tun.src = key->nw_src;
        md->tun.dst = key->nw_dst;
        md->tun.ipv6 = 0;
        md->tun.flags = (ip->frag_off & bpf_htons(0x4000)
                         ? XDP_TNL_F_DONT_FRAGMENT : 0);
    }
    md->tun.opts_len = 0;
    /* The headers before the tunnel's own, less those of IPv4, which the
     * lengths below count. */
    hlen = l4 - (ETH_HLEN + 20);
    if (key->nw_proto == IPPROTO_GRE) {
        /* OVS's GRE pop: the key, if any, is the tunnel id; no ports; the
         * sequence number, which follows the key, is skipped. */
        hlen += XDP_GRE_HLEN - 4 + tnl_gre_hlen(greh[0]);
        md->tun.id = 0;
        if (greh[0] & bpf_htons(XDP_GRE_KEY)) {
            md->tun.id = bpf_cpu_to_be64((__u64) bpf_ntohl(
                             *(__be32 *) (greh + 2)));
            md->tun.flags |= XDP_TNL_F_KEY;
        }
        md->tun.tp_src = 0;
        md->tun.tp_dst = 0;
    } else {
        /* VXLAN and Geneve put the VNI in the same place. */
        hlen += XDP_VXLAN_HLEN;
        md->tun.id = bpf_cpu_to_be64(bpf_ntohl(th[1]) >> 8);
        md->tun.flags |= XDP_TNL_F_KEY;
        /* Geneve's O flag; in VXLAN that byte is 0 (checked). */
        if (((__u8 *) th)[1] & XDP_GENEVE_OAM) {
            md->tun.flags |= XDP_TNL_F_OAM;
        }
        /* Geneve's options, as OVS's pop gives them: raw ("udpif"),
         * present or not.  The first word tells the two apart, as
         * xdp_dp_tnl_pop_ok__() checked it: VXLAN's is its I flag and
         * zeros; Geneve's has Ethernet's protocol number in its last two
         * bytes, and in its first the options' length in 4-byte words,
         * at most XDP_TNL_OPTS_LEN / 4. */
        if (th[0] != bpf_htonl(XDP_VXLAN_FLAGS)) {
            __u32 words = ((__u8 *) th)[0];

            md->tun.flags |= XDP_TNL_F_UDPIF;
            if (words) {
                __u32 len = words - 1;

                if (words > XDP_TNL_OPTS_LEN / 4) {
                    return -1;
                }
                /* 4 to 32, in a way that the verifier can follow. */
                asm volatile("%[len] &= 7" : [len] "+r"(len));
                len = (len + 1) * 4;
                __builtin_memset(w->opts, 0, XDP_TNL_OPTS_LEN);
                if (TNL_LOAD_BYTES(ctx, l4 + 16, w->opts, len)) {
                    return -1;
                }
                md->tun.opts_len = len;
                hlen += len;
            }
        }
        md->tun.tp_src = key->tp_src;
        md->tun.tp_dst = key->tp_dst;
        if (((struct udphdr *) greh)->check) {
            md->tun.flags |= XDP_TNL_F_CSUM;    /* As OVS's pop sets it. */
        }
    }
    return hlen;
}

/* Sets 'md' up for the pass of a packet that a tnl_pop took out of its
 * tunnel, from tunnel port 'port'. */
static __always_inline void
tnl_pop_reset(struct pkt_md *md, __u32 port)
{
    md->in_port = port;
    md->recirc_id = 0;
    md->dp_hash = 0;
    md->hash_pending = 0;
    md->ct = 0;
    md->diff.pseudo = md->diff.other = 0;
}

#ifndef XDP_DP_SKB_PIPELINE
/* Pops the tunnel header of the packet in 'ctx', with metadata 'md' and
 * key 'key' (checked by xdp_dp_tnl_pop_ok__()), and sets the packet up to
 * be classified again from tunnel port 'port'.  Returns 0 or -1. */
static __always_inline int
do_tnl_pop(XDP_PARSE_CTX *ctx, struct pkt_md *md,
           const struct xdp_flow_key *key, __u32 port)
{
    int hlen = tnl_pop_md(ctx, md, key);

    if (hlen < 0 || bpf_xdp_adjust_head(ctx, hlen)) {
        return -1;
    }
    tnl_pop_reset(md, port);
    return 0;
}
#else
/* Not in this kernel's UAPI headers of Debian 12 (Linux 6.3 added them):
 * after a decapsulation, the protocol of the inner IP header. */
#ifndef BPF_F_ADJ_ROOM_DECAP_L3_IPV4
#define BPF_F_ADJ_ROOM_DECAP_L3_IPV4 (1ULL << 7)
#define BPF_F_ADJ_ROOM_DECAP_L3_IPV6 (1ULL << 8)
#endif

/* do_tnl_pop() on an skb: bpf_skb_adjust_room() takes out the bytes after
 * the outer Ethernet header, up to and with the inner Ethernet header,
 * which then takes the outer one's place.  xdp_dp_tnl_pop_ok__() refused
 * GSO segments. */
static __always_inline int
do_tnl_pop(XDP_PARSE_CTX *skb, struct pkt_md *md,
           const struct xdp_flow_key *key, __u32 port)
{
    int hlen = tnl_pop_md(skb, md, key);
    __u8 inner_eth[ETH_HLEN];
    __u64 flags = 0;

    if (hlen < 0 || hlen > XDP_GENEVE_HLEN + 20 + XDP_TNL_OPTS_LEN
        || bpf_skb_load_bytes(skb, hlen, inner_eth, sizeof inner_eth)) {
        return -1;
    }
    if (*(__be16 *) (inner_eth + 12) == bpf_htons(ETH_P_IPV6)) {
        flags = BPF_F_ADJ_ROOM_DECAP_L3_IPV6;
    } else if (*(__be16 *) (inner_eth + 12) == bpf_htons(ETH_P_IP)) {
        flags = BPF_F_ADJ_ROOM_DECAP_L3_IPV4;
    }
    if (bpf_skb_adjust_room(skb, -hlen, BPF_ADJ_ROOM_MAC, flags)
        || bpf_skb_store_bytes(skb, 0, inner_eth, sizeof inner_eth,
                               BPF_F_RECOMPUTE_CSUM)) {
        return -1;
    }
    tnl_pop_reset(md, port);
    return 0;
}
#endif

#endif /* xdp-dp-tnl.h */
