/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_TNL_H
#define XDP_DP_TNL_H 1

/* tnl_push() in XDP: encapsulation into UDP tunnels and GRE over IPv4.
 *
 * XDP_DP_ACTION_TNL_PUSH (see "Tunnels" in xdp-dp.h) first assembles the
 * header from the action's XDP_DP_ACTION_DATA and, for a UDP tunnel,
 * writes in the UDP source port, which OVS picks from the packet's hash (as
 * netdev_tnl_get_src_port() does, from flow_hash_5tuple(), the hash of
 * the key as the flow matched it).  A GRE header (xdp-actions.c lets
 * through only those without checksum or sequence number) has nothing
 * that depends on the packet.  Then:
 *
 *   - A frame of a native-mode port is an XDP frame that is never a GSO
 *     segment: xdp_dp_tnl_push__() grows it at its head and copies the
 *     header in, with the outer lengths and IP checksum for its size.
 *
 *   - A frame of a generic-mode port may be a GSO segment (a container's
 *     TCP with TSO kept), whose encapsulation the skb must know about, or
 *     the kernel would cut it into TCP segments at the wrong offsets.  XDP
 *     leaves the header in xdp_dp_tnl_hdrs (per CPU: the TC half runs
 *     right after generic XDP, on the same CPU, for the same skb) and the
 *     TC half pushes it with bpf_skb_adjust_room() and the UDP (or GRE)
 *     tunnel flags, which mark the skb as encapsulated so that the
 *     kernel's tunnel GSO cuts the inner segments and makes the outer
 *     lengths of each (tc_tnl_push()).
 *
 * The outer IP checksum that OVS prebuilt is that of a total length of 0
 * (netdev_tnl_push_ip_header() adds the length in), so both add the
 * length they write in.
 *
 * A UDP tunnel with checksums (options:csum=true, OVN's default for
 * Geneve) has a nonzero UDP checksum in its prebuilt header (OVS's
 * 0xffff), which the push replaces with the datagram's: XDP sums the whole
 * frame (xdp_dp_csum_frame__()), the TC half sums only the headers, as
 * the kernel's local checksum offload does (tc_tnl_udp_csum()).  A GSO
 * segment in the TC half goes out with a UDP checksum of 0: the kernel
 * cuts it with the outer UDP header copied into every piece, and computes
 * the pieces' checksums only for an skb marked SKB_GSO_UDP_TUNNEL_CSUM,
 * which bpf_skb_adjust_room() cannot ask for.  RFC 7348 and RFC 8926 allow
 * a zero checksum over IPv4; 'tc-tnl-no-csum' counts them. */

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

/* The longest range xdp_dp_csum_frame__() sums: a native frame with a
 * pushed header, or a generic one of an Ethernet MTU. */
#define XDP_DP_CSUM_MAX 4096

/* Adds to '*sum' the one's-complement sum (as csum_partial() makes it, in
 * the frame's byte order) of the 'len' bytes of the frame in 'ctx' from
 * offset 'off' on, which must be even.  Returns 0, or -1 if they are not
 * all in the frame (its linear part) or 'len' is over XDP_DP_CSUM_MAX.
 * bpf_csum_diff() sums at most 512 bytes, a multiple of 4, per call.  A
 * global function: the verifier checks its loop once. */
__attribute__((noinline)) int
xdp_dp_csum_frame__(XDP_PARSE_CTX *ctx, __u32 off, __u32 len, __u32 *sum)
{
    void *data, *data_end, *p;
    __u32 acc, pos, done = 0;
    __s64 r;

    if (!ctx || !sum || off > 256 || len > XDP_DP_CSUM_MAX) {
        return -1;
    }
    data = (void *) (long) ctx->data;
    data_end = (void *) (long) ctx->data_end;
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
    /* Ethernet, then IPv4 without options (xdp-actions.c checks). */
    if (h->hdr[14 + 9] == IPPROTO_UDP) {
        *(__be16 *) (h->hdr + 14 + 20) = src_port;
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

    struct udphdr *udp = data + ETH_HLEN + 20;
    __u32 udp_len = data_end - (void *) udp;

    if (h->hdr[14 + 9] == IPPROTO_UDP && *(__u16 *) (h->hdr + 40)) {
        /* The datagram's checksum, over the whole frame: its inner
         * checksums are whole (a native frame, see "Checksum offload" in
         * ofproto-xdp/dpif-xdp-upcall.c for where they are not). */
        __u32 sum = csum_pseudo4(*(__be32 *) (h->hdr + 26),
                                 *(__be32 *) (h->hdr + 30), IPPROTO_UDP,
                                 udp_len);

        if ((void *) (udp + 1) > data_end) {
            return -1;
        }
        udp->check = 0;
        if (xdp_dp_csum_frame__(ctx, ETH_HLEN + 20, udp_len, &sum)) {
            return -1;
        }
        data = (void *) (long) ctx->data;
        data_end = (void *) (long) ctx->data_end;
        udp = data + ETH_HLEN + 20;
        if ((void *) (udp + 1) > data_end) {
            return -1;
        }
        udp->check = (__u16) ~csum_fold16(sum) ?: 0xffff;
    }
    return 0;
}
#endif

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
     * of 4 bytes (8 for UDP, 8 for VXLAN and Geneve, 4 per option). */
    __u32 n = len - (ETH_HLEN + 20);
    __s64 r;

    if (n > XDP_DP_TNL_MAX_HDR - (ETH_HLEN + 20)) {
        return 0;
    }
    r = bpf_csum_diff(NULL, 0, (void *) h->hdr + ETH_HLEN + 20, n, 0);
    if (r < 0) {
        return 0;
    }
    sum = csum_add32(sum, r);
    sum = csum_add32(sum, inner);
    sum = csum_add32(sum, csum_pseudo4(*(__be32 *) (h->hdr + 26),
                                       *(__be32 *) (h->hdr + 30),
                                       IPPROTO_UDP,
                                       skb->len - (ETH_HLEN + 20)));
    return (__u16) ~csum_fold16(sum) ?: 0xffff;
}

/* The TC half's part of XDP_DP_SKB_META_F_TNL_PUSH: pushes the header
 * that XDP left in xdp_dp_tnl_hdrs onto 'skb'.  Returns 0 or -1. */
static __always_inline int
tc_tnl_push(struct __sk_buff *skb)
{
    __u64 flags = (BPF_F_ADJ_ROOM_FIXED_GSO | BPF_F_ADJ_ROOM_ENCAP_L3_IPV4
                   | BPF_F_ADJ_ROOM_ENCAP_L2_ETH
                   | BPF_F_ADJ_ROOM_ENCAP_L2(ETH_HLEN));
    __u32 zero = 0;
    struct xdp_dp_tnl_hdr *h = bpf_map_lookup_elem(&xdp_dp_tnl_hdrs, &zero);
    __u8 inner_eth[ETH_HLEN];
    __u32 len;

    if (!h) {
        return -1;
    }
    len = h->len;
    if (len < XDP_DP_TNL_MIN_HDR || len > XDP_DP_TNL_MAX_HDR) {
        return -1;
    }
    flags |= (h->hdr[14 + 9] == IPPROTO_UDP
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
    int csum = (h->hdr[14 + 9] == IPPROTO_UDP && *(__u16 *) (h->hdr + 40));
    if (csum) {
        *(__u16 *) (h->hdr + 40) = 0;
    }
    if (bpf_skb_store_bytes(skb, 0, h->hdr, len, 0)
        || bpf_skb_store_bytes(skb, len, inner_eth, sizeof inner_eth, 0)) {
        return -1;
    }
    if (csum) {
        __u16 check = skb->gso_size ? 0 : tc_tnl_udp_csum(skb, h, len);

        if (!check) {
            COUNT(n_tc_tnl_no_csum, 1);
        } else if (bpf_skb_store_bytes(skb, ETH_HLEN + 20 + 6, &check, 2,
                                       0)) {
            return -1;
        }
    }
    return 0;
}

/* tnl_pop() in XDP (see "Tunnels" in xdp-dp.h).
 *
 * dp_pass() asks xdp_dp_tnl_pop_ok__() before it counts the hit, so that a
 * packet XDP cannot pop goes to ovs-vswitchd as the flow found it (as a
 * ct() miss does).  The checks are those of OVS's pop for the tunnel's
 * type (netdev_vxlan_pop_header(), netdev_geneve_pop_header() and
 * netdev_gre_pop_header(), and the IP and UDP parts before them), less
 * what the underlay flow already matched (IPv4, the protocol, the
 * destination address and port), plus what XDP leaves to OVS: GRE
 * checksums, GRE sequence numbers, Geneve options, anything but Ethernet
 * inside.  A UDP checksum is verified here, over the whole frame, as OVS's
 * udp_extract_tnl_md() does; a partial one (the sending stack left it for
 * the device to finish, the value of the pseudo-header's sum) is taken as
 * good, as the kernel does; a bad one goes to OVS, which drops it.  do_tnl_pop() then takes the tunnel metadata from the
 * outer headers, as OVS's pop would give it, strips them, and sets the
 * packet up to be classified again from the tunnel port: OVS's
 * pkt_metadata_init_tnl() clears the rest of the metadata (recirculation
 * id, hash, conntrack state), and so does this. */

#define XDP_VXLAN_HLEN (ETH_HLEN + 20 + 8 + 8)
#define XDP_VXLAN_FLAGS 0x08000000      /* The I (valid VNI) flag. */
#define XDP_GENEVE_HLEN (ETH_HLEN + 20 + 8 + 8)     /* No options. */
#define XDP_GENEVE_OAM 0x80             /* The O flag, in byte 1. */
#define XDP_GENEVE_OPT_WORDS 2          /* One option of 4 bytes of data,
                                         * in 4-byte words. */
#define XDP_GRE_HLEN (ETH_HLEN + 20 + 4)            /* Without a key. */
#define XDP_GRE_KEY 0x2000              /* The K flag. */
#define XDP_ETH_P_TEB 0x6558            /* Ethernet inside. */

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
    __builtin_memcpy(key->tun_opts, tun->opts, XDP_TNL_OPTS_LEN);
    key->tun_opts_len = tun->opts_len;
}

/* Whether the UDP checksum of the tunnel packet in 'ctx', whose inner
 * Ethernet frame starts 'inner' bytes in, is right for that frame once its
 * own TCP or UDP checksum is finished: the sender left that one partial
 * (its field holds the sum of its pseudo-header, for the device or the
 * receiver to finish) and filled the outer one in for the finished packet,
 * as the kernel's local checksum offload and our TC half
 * (tc_tnl_udp_csum()) do.  On a veth nothing finishes it: such a frame
 * arrives as it was sent, which the receiving stack trusts (the skb says
 * so); XDP checks what can be checked, the headers.  'sum' is the sum of
 * the outer pseudo-header.  A global function. */
__attribute__((noinline)) int
xdp_dp_tnl_lco_ok__(XDP_PARSE_CTX *ctx, __u32 inner, __u32 sum)
{
    void *data, *data_end;
    __u32 pseudo, l4, ofs;
    __u8 proto, *p;

    if (!ctx) {
        return 0;
    }
    asm volatile("%[inner] &= 0x7f" : [inner] "+r"(inner));
    data = (void *) (long) ctx->data;
    data_end = (void *) (long) ctx->data_end;
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
    if (xdp_dp_csum_frame__(ctx, ETH_HLEN + 20, l4 - (ETH_HLEN + 20), &sum)) {
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

/* Whether XDP can pop the tunnel header of the packet in 'ctx', whose key
 * is 'key', for tunnel port 'port'.  'skb_only': the packet arrived in
 * generic mode, where a frame longer than an Ethernet MTU is a GSO
 * segment, whose skb would keep describing the outer headers. */
__attribute__((noinline)) int
xdp_dp_tnl_pop_ok__(XDP_PARSE_CTX *ctx, const struct xdp_flow_key *key,
                    __u32 port, __u32 skb_only)
{
    void *data = (void *) (long) ctx->data;
    void *data_end = (void *) (long) ctx->data_end;
    struct xdp_dp_port *p = bpf_map_lookup_elem(&xdp_dp_ports, &port);
    const __u8 *b = data;

    if (!key || !p || !p->tnl_type
        || key->eth_type != bpf_htons(ETH_P_IP) || key->nw_frag
        || key->vlans[0].tci || XDP_DP_TNL_MAY_BE_GSO(ctx, skb_only)) {
        return 0;
    }
    /* The longest header checked, and an inner Ethernet header. */
    if (data + XDP_GENEVE_HLEN + XDP_TNL_OPTS_LEN + ETH_HLEN > data_end
        || b[ETH_HLEN] != 0x45) {                  /* IPv4, no options. */
        return 0;
    }
    if (p->tnl_type == XDP_DP_TNL_GRE) {
        const __be16 *greh = data + ETH_HLEN + 20;

        return (key->nw_proto == IPPROTO_GRE
                && (greh[0] == 0 || greh[0] == bpf_htons(XDP_GRE_KEY))
                && greh[1] == bpf_htons(XDP_ETH_P_TEB));
    }

    const struct udphdr *udp = data + ETH_HLEN + 20;
    const __be32 *th = (const void *) (udp + 1);
    const __u8 *gnh = (const void *) (udp + 1);
    const struct iphdr *ip = data + ETH_HLEN;

    if (key->nw_proto != IPPROTO_UDP) {
        return 0;
    }
    if (udp->check) {
        __u32 len = bpf_ntohs(ip->tot_len) - 20;
        __u32 pseudo = csum_pseudo4(ip->saddr, ip->daddr, IPPROTO_UDP, len);
        __u32 sum = pseudo;
        /* Where the inner frame starts: after VXLAN's header, or Geneve's
         * and its options (at most one, checked below). */
        __u32 inner = ETH_HLEN + 20 + 8 + 8;

        if (p->tnl_type == XDP_DP_TNL_GENEVE) {
            inner += (gnh[0] & 0x3f) * 4;
        }

        if (udp->check != csum_fold16(pseudo)
            && (xdp_dp_csum_frame__(ctx, ETH_HLEN + 20, len, &sum)
                || csum_fold16(sum) != 0xffff)
            && !xdp_dp_tnl_lco_ok__(ctx, inner, pseudo)) {
            return 0;
        }
        data = (void *) (long) ctx->data;
        data_end = (void *) (long) ctx->data_end;
        udp = data + ETH_HLEN + 20;
        th = (const void *) (udp + 1);
        gnh = (const void *) (udp + 1);
        if ((void *) (gnh + 8 + XDP_TNL_OPTS_LEN) > data_end) {
            return 0;
        }
    }
    if (p->tnl_type == XDP_DP_TNL_GENEVE) {
        /* Version 0, Ethernet inside, and no option, or one with 4 bytes
         * of data (its length field, in 4-byte words, says 1). */
        return ((gnh[0] == 0
                 || (gnh[0] == XDP_GENEVE_OPT_WORDS
                     && (gnh[8 + 3] & 0x1f) == 1))
                && *(const __be16 *) (gnh + 2) == bpf_htons(XDP_ETH_P_TEB));
    }
    return (p->tnl_type == XDP_DP_TNL_VXLAN
            && th[0] == bpf_htonl(XDP_VXLAN_FLAGS)
            && !(th[1] & bpf_htonl(0xff)));
}

/* Takes the tunnel metadata of the packet in 'ctx', with key 'key'
 * (checked by xdp_dp_tnl_pop_ok__()), into 'md', as OVS's pop would give
 * it.  Returns the length of the headers to strip, or -1. */
static __always_inline int
tnl_pop_md(XDP_PARSE_CTX *ctx, struct pkt_md *md,
           const struct xdp_flow_key *key)
{
    void *data = (void *) (long) ctx->data;
    void *data_end = (void *) (long) ctx->data_end;
    struct iphdr *ip = data + ETH_HLEN;
    __be32 *th = data + ETH_HLEN + 20 + 8;
    __be16 *greh = data + ETH_HLEN + 20;
    __u8 *opt = (__u8 *) (th + 2);
    __u32 hlen;

    if ((void *) (opt + XDP_TNL_OPTS_LEN) > data_end) {
        return -1;
    }
    md->tun.src = key->nw_src;
    md->tun.dst = key->nw_dst;
    md->tun.tos = key->nw_tos;
    md->tun.ttl = key->nw_ttl;
    md->tun.flags = (ip->frag_off & bpf_htons(0x4000)
                     ? XDP_TNL_F_DONT_FRAGMENT : 0);
    __builtin_memset(md->tun.opts, 0, XDP_TNL_OPTS_LEN);
    md->tun.opts_len = 0;
    if (key->nw_proto == IPPROTO_GRE) {
        /* OVS's GRE pop: the key, if any, is the tunnel id; no ports. */
        hlen = XDP_GRE_HLEN;
        md->tun.id = 0;
        if (greh[0] == bpf_htons(XDP_GRE_KEY)) {
            md->tun.id = bpf_cpu_to_be64((__u64) bpf_ntohl(
                             *(__be32 *) (greh + 2)));
            md->tun.flags |= XDP_TNL_F_KEY;
            hlen += 4;
        }
        md->tun.tp_src = 0;
        md->tun.tp_dst = 0;
    } else {
        /* VXLAN and Geneve put the VNI in the same place. */
        hlen = XDP_VXLAN_HLEN;
        md->tun.id = bpf_cpu_to_be64(bpf_ntohl(th[1]) >> 8);
        md->tun.flags |= XDP_TNL_F_KEY;
        /* Geneve's O flag; in VXLAN that byte is 0 (checked). */
        if (((__u8 *) th)[1] & XDP_GENEVE_OAM) {
            md->tun.flags |= XDP_TNL_F_OAM;
        }
        /* Geneve's options, as OVS's pop gives them: raw ("udpif"),
         * present or not.  The first byte tells the two apart, as
         * xdp_dp_tnl_pop_ok__() checked it: VXLAN's I flag, 0x08; for
         * Geneve, version 0 and 0 or 2 words of options. */
        if (((__u8 *) th)[0] != 0x08) {
            md->tun.flags |= XDP_TNL_F_UDPIF;
        }
        if (((__u8 *) th)[0] == XDP_GENEVE_OPT_WORDS) {
            __builtin_memcpy(md->tun.opts, opt, XDP_TNL_OPTS_LEN);
            md->tun.opts_len = XDP_TNL_OPTS_LEN;
            hlen += XDP_TNL_OPTS_LEN;
        }
        md->tun.tp_src = key->tp_src;
        md->tun.tp_dst = key->tp_dst;
        if (((struct udphdr *) (ip + 1))->check) {
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

    if (hlen < 0 || hlen > XDP_GENEVE_HLEN + XDP_TNL_OPTS_LEN
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
