/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_PASS_H
#define XDP_DP_PASS_H 1

/* What a packet carries from one pass through the flow table to the next,
 * and what a pass computes from its key alone, for both programs: the XDP
 * program (xdp-dp.bpf.c) and the TC pipeline (tc-dp.bpf.c).  A pass
 * parses the frame, classifies its key, and runs its flow's actions,
 * which may end in a recirculation: the next pass starts from the frame
 * as they left it and from the 'struct pkt_md' they set up. */

/* Whether this program has code for actions of 'type' (see
 * XDP_DP_ACTION_F_OUTPUTS): a compiled program (see xdp-dp-classify.h)
 * may not.  A constant for the verifier. */
#define HAS_ACTION(BIT) (!xdp_dp_cfg.enabled || xdp_dp_cfg.action_bits & (BIT))
#define ACTION_BIT(TYPE) (1u << (TYPE))

/* What the program knows of a packet besides its bytes, as OVS's 'struct
 * pkt_metadata', carried from one pass through the flow table to the next
 * (see dp_pass()). */
struct pkt_md {
    __u32 in_port;              /* Datapath port number of the ingress. */
    __u32 recirc_id;            /* Recirculation id of the current pass. */
    __u32 dp_hash;              /* Datapath hash, 0 before any. */
    __u32 hash_pending;         /* Nonzero: the last pass ended with a hash
                                 * action that left 'dp_hash' to the next
                                 * pass (see "Datapath hash"). */
    __u32 hash_basis;           /* That hash action's basis. */
    __u32 skb_only;             /* Nonzero: the packet arrived in generic
                                 * mode and may be a GSO segment: outputs
                                 * go through the TC half (see
                                 * XDP_DP_IN_PORT_F_GENERIC).  Always, in
                                 * the TC pipeline. */
    struct l4_csum_diff diff;   /* Changes to the TCP or UDP checksum made
                                 * by rewrites so far, not yet in the
                                 * frame: the output makes them. */
    __u32 ct;                   /* What the last ct() in XDP gave the
                                 * packet (XDP_DP_PKT_CT_*), or 0. */
    __u32 key_ok;               /* Nonzero: the last pass's actions were
                                 * a ct() and the recirc, which changed
                                 * nothing in the frame but the ct()'s
                                 * NAT, which execute() also made in the
                                 * key (ct_nat_fill_key()): the next pass
                                 * may keep the key (see dp_pass() in
                                 * xdp-dp.bpf.c).  Not used by the TC
                                 * pipeline, which parses every pass. */
    struct tnl_md {             /* What a tnl_pop in XDP gave the packet
                                 * (see xdp-dp-tnl.h), if 'dst' or 'ipv6'
                                 * is set (tnl_md_is_set()): */
        __be64 id;              /* The key's tun_* fields... */
        __be32 src;
        __be32 dst;
        __be16 tp_src;
        __be16 tp_dst;
        __u8 tos;
        __u8 ttl;
        __u16 flags;
        __u8 opts_len;          /* ...but the Geneve options, of this
                                 * length, and the outer IPv6 addresses,
                                 * if 'ipv6' is set: those are in
                                 * xdp_dp_tnl_wide, as the verifier's 512
                                 * bytes of stack have no room for them
                                 * here. */
        __u8 ipv6;
    } tun;
    __u64 ct_next;              /* Nonzero: the last pass was a ct() hit
                                 * and its recirc, whose next pass this
                                 * 'owner' may record (see "The pass after
                                 * a cached ct()" in xdp-dp.h). */
};

/* Whether a tnl_pop in XDP gave the packet the metadata 'tun', as OVS's
 * flow_tnl_dst_is_set() tells: an IPv4 or an IPv6 destination. */
static __always_inline int
tnl_md_is_set(const struct tnl_md *tun)
{
    return tun->dst || tun->ipv6;
}

/* Copies what of the tunnel metadata 'tun' xdp_dp_tnl_wide holds, or
 * zeros where it has none: the Geneve options to the XDP_TNL_OPTS_LEN
 * bytes at 'opts', the outer IPv6 addresses to the 32 bytes at 'ipv6',
 * source first. */
static __always_inline void
tnl_md_get_wide(const struct tnl_md *tun, __u8 *opts, __u8 *ipv6)
{
    __u32 zero = 0;
    const struct xdp_dp_tnl_wide *w = (tun->ipv6 || tun->opts_len
                                       ? bpf_map_lookup_elem(
                                             &xdp_dp_tnl_wide, &zero)
                                       : NULL);

    if (w && tun->opts_len) {
        __builtin_memcpy(opts, w->opts, XDP_TNL_OPTS_LEN);
    } else {
        __builtin_memset(opts, 0, XDP_TNL_OPTS_LEN);
    }
    if (w && tun->ipv6) {
        __builtin_memcpy(ipv6, w->src, 16);
        __builtin_memcpy(ipv6 + 16, w->dst, 16);
    } else {
        __builtin_memset(ipv6, 0, 32);
    }
}

/* Fills in the members of 'up' that carry the packet's metadata 'md'. */
static __always_inline void
upcall_fill_md(struct xdp_dp_upcall *up, const struct pkt_md *md)
{
    up->in_port = md->in_port;
    up->recirc_id = md->recirc_id;
    up->dp_hash = md->dp_hash;
    up->gso_size = 0;
    up->vlan_tpid = 0;
    up->vlan_tci = 0;
    up->ct = md->ct;
    up->sample = 0;
    up->orig_len = 0;
    up->ifindex = 0;
    up->tun_id = md->tun.id;
    up->tun_src = md->tun.src;
    up->tun_dst = md->tun.dst;
    up->tun_tp_src = md->tun.tp_src;
    up->tun_tp_dst = md->tun.tp_dst;
    up->tun_tos = md->tun.tos;
    up->tun_ttl = md->tun.ttl;
    up->tun_flags = md->tun.flags;
    up->tun_opts_len = md->tun.opts_len;
    __builtin_memset(up->pad2, 0, sizeof up->pad2);
    tnl_md_get_wide(&md->tun, up->tun_opts, up->tun_ipv6_src);
}

/* See ip_end(). */
#define XDP_DP_IP_END_IPV6 0x80000000u

/* The end of the IP packet that 'key' and 'info' describe, for
 * xdp_dp_check_len__(): its L4 payload's end, or 0 if it has none.  An
 * IPv6 packet whose extension headers the parser gave up on has no L4
 * offset, but OVS counts its L2 padding from the payload length all the
 * same (miniflow_extract() sets it before it parses them, found by
 * ovs-xdp-bench fuzz): XDP_DP_IP_END_IPV6 and the IPv6 header's offset
 * then tell xdp_dp_check_len__() to read the length from the frame. */
static __always_inline __u32
ip_end(const struct xdp_flow_key *key, const struct xdp_parse_info *info)
{
    if (info->l4_ofs != XDP_PARSE_OFS_NONE) {
        return (__u32) info->l4_ofs + info->l4_size;
    }
    if (key->eth_type == bpf_htons(ETH_P_IPV6)
        && info->l3_ofs != XDP_PARSE_OFS_NONE && info->l3_ofs < 0x100) {
        return XDP_DP_IP_END_IPV6 | info->l3_ofs;
    }
    return 0;
}

/* Datapath hash
 * =============
 *
 * A hash action (XDP_DP_ACTION_HASH, OVS_HASH_ALG_L4) gives the packet the
 * datapath hash that odp_execute_actions() gives a packet without an RSS
 * hash: flow_hash_5tuple() (lib/flow.c) of the packet as the action sees
 * it, which hash_5tuple() computes from its key.  The next pass computes
 * it, from the key it parses: in XDP the recirc that ends a flow's actions
 * always comes right after its hash action (see xdp-actions.c), so the
 * frame that the next pass parses is the frame the action saw, after the
 * rewrites before it (as in ofproto's "set(...),hash(...),recirc(N)").  A
 * compiled program that has not parsed the transport header for its
 * lookups parses it then.  The one packet whose hash can differ from OVS's
 * is one whose key is incomplete in the next pass (more than
 * XDP_PARSE_MAX_IPV6_EXT IPv6 extension headers, brought into view by a
 * rewrite, since the key of the hash action's own pass was complete): its
 * hash lacks the transport fields.
 *
 * OVS's hash_add() and hash_finish() (lib/hash.h) are Murmur3 steps unless
 * OVS is built for SSE 4.2 or ARMv8 CRC32, where they are CRC32C: these are
 * the Murmur3 ones, those of Debian's build and of ours, and
 * tests/test-xdp-packet.c ("recirc") compares the hashes with OVS's. */

static __always_inline __u32
hash_rot(__u32 x, int k)
{
    return (x << k) | (x >> (32 - k));
}

/* OVS's hash_add() in its Murmur3 form, mhash_add(). */
static __always_inline __u32
mhash_add(__u32 hash, __u32 data)
{
    /* A zero 'data' leaves 'hash' alone but for the rotation. */
    if (data) {
        data *= 0xcc9e2d51;
        data = hash_rot(data, 15);
        data *= 0x1b873593;
        hash ^= data;
    }
    hash = hash_rot(hash, 13);
    return hash * 5 + 0xe6546b64;
}

/* OVS's hash_finish() in its Murmur3 form. */
static __always_inline __u32
mhash_finish(__u32 hash, __u32 final)
{
    hash ^= final;
    hash ^= hash >> 16;
    hash *= 0x85ebca6b;
    hash ^= hash >> 13;
    hash *= 0xc2b2ae35;
    hash ^= hash >> 16;
    return hash;
}

/* hash_5tuple() reads the key's addresses, and its ports, as runs of
 * memory, as OVS reads them in 'struct flow'. */
_Static_assert(__builtin_offsetof(struct xdp_flow_key, ipv6_dst)
               == __builtin_offsetof(struct xdp_flow_key, ipv6_src) + 16,
               "IPv6 addresses must be adjacent");
_Static_assert(__builtin_offsetof(struct xdp_flow_key, tp_dst)
               == __builtin_offsetof(struct xdp_flow_key, tp_src) + 2,
               "transport ports must be adjacent");

/* OVS's flow_hash_5tuple() of the packet whose key is 'key', with
 * 'basis'. */
static __always_inline __u32
hash_5tuple(const struct xdp_flow_key *key, __u32 basis)
{
    __u32 hash = basis;
    __u8 proto = key->nw_proto;

    if (key->eth_type == bpf_htons(ETH_P_IPV6)) {
        /* The two addresses as OVS's hash_add64() takes them: 32-bit
         * words in memory order. */
        const __u32 *addrs = (const __u32 *) key->ipv6_src;

#pragma unroll
        for (int i = 0; i < 8; i++) {
            hash = mhash_add(hash, addrs[i]);
        }
    } else if (key->eth_type == bpf_htons(ETH_P_IP)
               || key->eth_type == bpf_htons(ETH_P_ARP)) {
        hash = mhash_add(hash, key->nw_src);
        hash = mhash_add(hash, key->nw_dst);
    } else {
        return mhash_finish(hash, 42);
    }

    /* For ARP, 'nw_proto' is the opcode: a request (1) is taken for ICMP
     * and adds its ports, which are zero, as for a later fragment. */
    hash = mhash_add(hash, proto);
    if (proto == IPPROTO_TCP || proto == IPPROTO_UDP
        || proto == IPPROTO_SCTP || proto == IPPROTO_ICMP
        || proto == IPPROTO_ICMPV6) {
        /* Both ports at once, as the 32-bit word they make in memory. */
        __u32 ports;

        __builtin_memcpy(&ports, &key->tp_src, sizeof ports);
        hash = mhash_add(hash, ports);
    }
    return mhash_finish(hash, 42);
}

/* What execute() and a pass return for a packet that recirculates: neither
 * an XDP verdict nor a TC one (TC_ACT_UNSPEC is -1). */
#define RECIRCULATE (-100)

/* Whether 'flow''s actions are a ct() and its recirc, nothing else: then
 * the pass after it may keep the key (see 'key_ok' in struct pkt_md). */
static __always_inline int
flow_is_ct_recirc(const struct xdp_flow *flow)
{
    return !(flow->action_bits & ~(ACTION_BIT(XDP_DP_ACTION_CT)
                                   | ACTION_BIT(XDP_DP_ACTION_RECIRC)));
}

/* The recirculation that ends 'flow''s actions, from action 'i' on: a
 * RECIRC action, or a HASH action and the RECIRC action that must follow
 * it (see xdp-actions.c).  Sets up 'md' for the next pass, with the
 * checksum changes 'diff' made so far.  Returns 0 if successful, -1 if
 * the actions are not of that shape. */
static __always_inline int
do_recirc(const struct xdp_flow *flow, __u32 i, struct pkt_md *md,
          const struct l4_csum_diff *diff, __u32 ct)
{
    const struct xdp_dp_action *a = &flow->actions[i];

    if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_HASH))
        && a->type == XDP_DP_ACTION_HASH && i + 1 < XDP_FLOW_MAX_ACTIONS) {
        md->hash_pending = 1;
        md->hash_basis = a->hash.basis;
        a = &flow->actions[i + 1];
    }
    if (a->type != XDP_DP_ACTION_RECIRC) {
        return -1;
    }
    md->recirc_id = a->recirc.id;
    md->diff = *diff;
    if (ct) {
        md->ct = ct;
    }
    md->key_ok = flow_is_ct_recirc(flow);
    return 0;
}

#endif /* xdp-dp-pass.h */
