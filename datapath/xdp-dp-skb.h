/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_SKB_H
#define XDP_DP_SKB_H 1

/* What the datapath does to an skb at a port's TC ingress hook: in the TC
 * half of the XDP program (xdp-dp-tc.h), for the frames XDP passed up with
 * their outputs, and in the TC pipeline (tc-dp.bpf.c), for every frame of
 * a port switched in TC.
 *
 * The output of an skb fixes its TCP or UDP checksum by the difference the
 * rewrites left (tc_fix_l4_csum(): bpf_l4_csum_replace() knows a partial
 * checksum, which holds only the pseudo-header's sum, from a full one),
 * puts its outer VLAN tag back into the frame (tc_vlan_inband()), clones
 * it to every output but the last and redirects it to the last, cut if
 * the flow asks (tc_send()).  An upcall copies the skb, GSO segment and
 * all, onto the upcall ring with the header the caller filled in
 * (tc_upcall()).  Both keep the skb's GSO state: the kernel segments it
 * where a device needs it. */

/* The offset of the TCP or UDP checksum of the IPv4 packet in 'skb', or
 * -1 if it has none; sets '*udp' for UDP.  Outer VLAN tags may be in the
 * packet or already taken out into the skb's metadata: both work. */
static __always_inline int
tc_l4_csum_offset(struct __sk_buff *skb, int *udp)
{
    __be16 type;
    int off = 12;
    __u8 b[8];

    if (bpf_skb_load_bytes(skb, off, &type, 2)) {
        return -1;
    }
    off += 2;
#pragma unroll
    for (int i = 0; i < 2; i++) {
        if (type != ETH_P_8021Q_BE && type != ETH_P_8021AD_BE) {
            break;
        }
        if (bpf_skb_load_bytes(skb, off + 2, &type, 2)) {
            return -1;
        }
        off += 4;
    }
    if (bpf_ntohs(type) < ETH_P_802_3_MIN) {
        /* LLC/SNAP, as l3_offset() takes it. */
        if (bpf_skb_load_bytes(skb, off, b, 8)) {
            return -1;
        }
        if (b[0] != 0xaa || b[1] != 0xaa || b[2] != 0x03 || b[3] || b[4]
            || b[5]) {
            return -1;
        }
        type = *(__be16 *) &b[6];
        off += 8;
    }
    /* The L4 header must lie within the IP length, as for XDP's own fixes
     * (l4_bounds()); a GSO segment's IP length is not its own. */
    int gso = skb->gso_size != 0;

    if (type == bpf_htons(ETH_P_IPV6)) {
        /* As XDP did it: no extension headers (see execute()). */
        __be16 plen;
        __u8 nexthdr;

        if (bpf_skb_load_bytes(skb, off + 4, &plen, 2)
            || bpf_skb_load_bytes(skb, off + 6, &nexthdr, 1)) {
            return -1;
        }
        off += 40;
        if (nexthdr == IPPROTO_TCP
            && (gso || bpf_ntohs(plen) >= sizeof(struct tcphdr))) {
            *udp = 0;
            return off + __builtin_offsetof(struct tcphdr, check);
        } else if (nexthdr == IPPROTO_UDP
                   && (gso || bpf_ntohs(plen) >= sizeof(struct udphdr))) {
            *udp = 1;
            return off + __builtin_offsetof(struct udphdr, check);
        } else if (nexthdr == IPPROTO_ICMPV6
                   && bpf_ntohs(plen) >= XDP_ICMP6_HLEN) {
            *udp = 0;
            return off + __builtin_offsetof(struct icmp6hdr, icmp6_cksum);
        }
        return -1;
    } else if (type != bpf_htons(ETH_P_IP)) {
        return -1;
    }

    struct iphdr ip;
    if (bpf_skb_load_bytes(skb, off, &ip, sizeof ip)
        || ip.frag_off & bpf_htons(0x1fff)) {
        return -1;
    }
    int l4_size = bpf_ntohs(ip.tot_len) - ip.ihl * 4;

    off += ip.ihl * 4;
    if (ip.protocol == IPPROTO_TCP
        && (gso || l4_size >= (int) sizeof(struct tcphdr))) {
        *udp = 0;
        return off + __builtin_offsetof(struct tcphdr, check);
    } else if (ip.protocol == IPPROTO_UDP
               && (gso || l4_size >= (int) sizeof(struct udphdr))) {
        *udp = 1;
        return off + __builtin_offsetof(struct udphdr, check);
    }
    return -1;
}

/* Cuts the skb for its last output, to the 'ifindex' device, to 'len'
 * bytes as OVS's trunc counts them: with the outer VLAN tag that the
 * kernel took out of the frame into the skb, which the device puts back.
 * bpf_skb_change_tail() will not cut below the transport header that the
 * sender's stack recorded (nor into a partial checksum's field, nor into
 * a tag that is not in the frame): such a cut is ovs-vswitchd's, which
 * gets the first 'len' bytes as an OUTPUT upcall, puts the tag back, cuts
 * the packet and sends it.  Found by ovs-xdp-bench fuzz.  Returns -1 if
 * the skb is cut (or short enough), otherwise the TC verdict. */
static __always_inline int
tc_trunc(struct __sk_buff *skb, __u32 len, __u32 ifindex)
{
    __u32 tag = skb->vlan_present ? 4 : 0;

    if (skb->len + tag <= len
        || (len >= ETH_HLEN + tag
            && !bpf_skb_change_tail(skb, len - tag, 0))) {
        return -1;
    }

    struct xdp_dp_upcall up = {
        .type = XDP_DP_UPCALL_OUTPUT,
        .pkt_len = skb->len < len ? skb->len : len,
        .orig_len = len,
        .ifindex = ifindex,
    };
    if (tag) {
        up.vlan_tpid = skb->vlan_proto;
        up.vlan_tci = bpf_htons(skb->vlan_tci);
    }
    __u64 copy = up.pkt_len;

    if (upcall_output(skb, BPF_F_CURRENT_CPU | (copy << 32), &up,
                      sizeof up)) {
        COUNT(n_lost, 1);
    } else {
        COUNT(n_output_upcall, 1);
    }
    return TC_ACT_SHOT;
}

/* Puts the outer VLAN tag that the stack took out of the frame into the
 * skb (skb_vlan_untag(), after generic XDP and before TC) back into the
 * frame, before the skb is sent on.  A device that hands an skb to an XDP
 * program shows it the frame without a tag kept in the skb (a veth, in
 * native and in generic mode): a veth pair between two ports of xdp
 * bridges would see the frame untagged at its other end.
 *
 * bpf_skb_change_head() grows the frame at its front and leaves the
 * network header where it was, so the new MAC header is 18 bytes long, as
 * the kernel's GSO needs for a tagged segment; the Ethernet addresses move
 * to the front and the tag goes between them and the Ethertype.  A frame
 * with a second tag (802.1ad), which the stack leaves in the frame, keeps
 * the outer one in the skb.  Returns 0, or -1 if the skb is broken. */
static __always_inline int
tc_vlan_inband(struct __sk_buff *skb)
{
    __be16 tag[2] = { skb->vlan_proto, bpf_htons(skb->vlan_tci) };
    __u8 macs[2 * ETH_ALEN];

    if (!skb->vlan_present
        || skb->protocol == bpf_htons(ETH_P_8021Q)
        || skb->protocol == bpf_htons(ETH_P_8021AD)
        || bpf_skb_vlan_pop(skb)) {
        return 0;
    }
    if (bpf_skb_change_head(skb, sizeof tag, 0)) {
        /* Out of memory: the tag stays in the skb. */
        return bpf_skb_vlan_push(skb, tag[0], bpf_ntohs(tag[1])) ? -1 : 0;
    }
    if (bpf_skb_load_bytes(skb, sizeof tag, macs, sizeof macs)
        || bpf_skb_store_bytes(skb, 0, macs, sizeof macs, 0)
        || bpf_skb_store_bytes(skb, sizeof macs, tag, sizeof tag, 0)) {
        return -1;
    }

    /* A CHECKSUM_COMPLETE sum covers what follows the first 14 bytes, as
     * the receiver's skb_vlan_untag() takes it: the tag's TCI and the
     * Ethertype, which skb_vlan_untag() here took out, come back in. */
    __be16 after[2] = { tag[1], skb->protocol };
    __s64 sum = bpf_csum_diff(NULL, 0, (void *) after, sizeof after, 0);

    if (sum >= 0) {
        bpf_csum_update(skb, sum);  /* Fails but for CHECKSUM_COMPLETE. */
    }
    return 0;
}

/* Adds the one's-complement sums 'pseudo' (of pseudo-header words) and
 * 'other' (of other words) of the rewrites made to the packet in 'skb' to
 * its TCP or UDP checksum, partial or full.  Returns 0, or -1 if the
 * checksum could not be fixed. */
static __always_inline int
tc_fix_l4_csum(struct __sk_buff *skb, __u32 pseudo, __u32 other)
{
    int udp = 0;
    int off;

    if (!pseudo && !other) {
        return 0;
    }
    off = tc_l4_csum_offset(skb, &udp);
    if (off >= 0) {
        __u64 mm0 = udp ? BPF_F_MARK_MANGLED_0 : 0;

        if ((pseudo && bpf_l4_csum_replace(skb, off, 0, pseudo,
                                           BPF_F_PSEUDO_HDR | mm0))
            || (other && bpf_l4_csum_replace(skb, off, 0, other, mm0))) {
            return -1;
        }
    }
    return 0;
}

/* Returns nonzero if 'skb', about to leave by port device 'ifindex' (in
 * XDP_DP_TX_PEER mode), may go straight into the ingress of the device's
 * veth peer, and counts it as the device's transmit then: see struct
 * xdp_dp_peer for when. */
static __always_inline int
tc_peer_takes(struct __sk_buff *skb, __u32 ifindex)
{
    struct xdp_dp_peer *peer = bpf_map_lookup_elem(&xdp_dp_peers, &ifindex);
    void *data_end = (void *) (long) skb->data_end;
    __u8 *dst = (void *) (long) skb->data;

    if (!peer || (void *) (dst + ETH_ALEN) > data_end
        || (!skb->gso_size && skb->len > peer->max_len)
        || *(__u32 *) dst != *(__u32 *) peer->mac
        || *(__u16 *) (dst + 4) != *(__u16 *) (peer->mac + 4)) {
        return 0;
    }
    peer->tx_packets++;
    peer->tx_bytes += skb->len;
    return 1;
}

/* Sends 'skb' to the 'n' devices in 'ifindex' (1 to XDP_DP_MAX_OUTPUTS,
 * each maybe with XDP_DP_IFINDEX_F_PEER): a clone to each but the last,
 * the skb itself to the last, cut to 'trunc_len' bytes if it is nonzero
 * (see tc_trunc()), and into its veth peer's ingress if it may.  Returns
 * the TC verdict. */
static __always_inline int
tc_send(struct __sk_buff *skb, const __u32 *ifindex, __u32 n, __u32 trunc_len)
{
#pragma unroll
    for (int i = 0; i < XDP_DP_MAX_OUTPUTS - 1; i++) {
        if (i + 1 < n) {
            bpf_clone_redirect(skb, ifindex[i] & ~XDP_DP_IFINDEX_F_PEER, 0);
        }
    }
    __u32 last = n - 1;
    if (last >= XDP_DP_MAX_OUTPUTS) {
        COUNT(n_tc_error, 1);
        return TC_ACT_SHOT;
    }
    __u32 dev = ifindex[last] & ~XDP_DP_IFINDEX_F_PEER;
    if (trunc_len) {
        int verdict = tc_trunc(skb, trunc_len, dev);

        if (verdict >= 0) {
            return verdict;
        }
    }
    COUNT(n_tc_redirected, 1);
    if (ifindex[last] & XDP_DP_IFINDEX_F_PEER && tc_peer_takes(skb, dev)) {
        COUNT(n_tc_peer, 1);
        return bpf_redirect_peer(dev, 0);
    }
    return bpf_redirect(dev, 0);
}

/* Copies 'skb' onto the upcall ring behind header 'up', in which the
 * caller filled in the type, the port and the packet's metadata; the
 * length, the GSO size and the outer VLAN tag are the skb's.  The stack
 * takes a frame's outer VLAN tag out into the skb (skb_vlan_untag())
 * before TC, and the perf output copies the frame without it: the upcall
 * carries it.  Returns the TC verdict. */
static __always_inline int
tc_upcall(struct __sk_buff *skb, struct xdp_dp_upcall *up)
{
    __u64 len = skb->len;

    up->pkt_len = len;
    up->gso_size = skb->gso_size;
    if (skb->vlan_present) {
        up->vlan_tpid = skb->vlan_proto;
        up->vlan_tci = bpf_htons(skb->vlan_tci);
    }
    if (upcall_output(skb, BPF_F_CURRENT_CPU | (len << 32), up,
                      sizeof *up)) {
        COUNT(n_lost, 1);
    }
    return TC_ACT_SHOT;
}

#endif /* xdp-dp-skb.h */
