/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_CT_H
#define XDP_DP_CT_H 1

/* ct() in XDP: the connection cache's BPF half.
 *
 * A flow whose actions hold one "ct(zone=Z[,nat][,commit])", usually
 * followed by "recirc(N)" (the shape ofproto gives ct(table=N)), runs in
 * XDP when its packet's connection is in the connection cache (see
 * "Connection cache" in xdp-dp.h).  dp_pass() looks the packet's tuple up
 * before it runs any of the flow's actions, with xdp_dp_ct_lookup__(): a
 * miss hands the packet, untouched, to ovs-vswitchd as a slow-path hit,
 * where lib/conntrack.c runs the ct() as it always did.
 * A hit gives the packet what lib/conntrack.c would have given it: the
 * CT action applies the entry's NAT rewrite (with the existing rewrite
 * actions, so checksums are fixed up as for any rewrite) and the recirc
 * carries the slot to the next pass, whose key gets the entry's ct_*
 * fields (ct_fill_key()).
 *
 * Which packets lib/conntrack.c must see, even of a cached connection, is
 * decided in ct_tuple(); each case says why.  Everything that changes a
 * connection's state is among them, so the cache never needs to change
 * state itself: it only counts packets and bytes and records the time of
 * the last use, which ovs-vswitchd folds back into lib/conntrack.c.  TCP
 * sequence-window checks are what cached connections give up, as in the
 * kernel's flowtable.
 *
 * This header uses the rewrite actions of xdp-dp-rewrite.h (do_set_ipv4(),
 * do_set_l4_ports()) and is included after them, by both programs. */

#define XDP_TCP_FIN 0x01
#define XDP_TCP_SYN 0x02
#define XDP_TCP_RST 0x04

#define XDP_ICMP_ECHO_REPLY 0
#define XDP_ICMP_ECHO_REQUEST 8
#define XDP_ICMP6_ECHO_REQUEST 128
#define XDP_ICMP6_ECHO_REPLY 129

/* In xdp_dp_ct_lookup__()'s result: the ct() applies NAT. */
#define XDP_DP_CT_LOOKUP_NAT (1 << 30)

/* Fills '*ck' with the cache key of the packet in 'ctx' (key 'key', headers
 * at 'info') in conntrack zone 'zone'.  Returns 0, or -1 for a packet that
 * lib/conntrack.c must see itself. */
static __always_inline int
ct_tuple(XDP_PARSE_CTX *ctx, const struct xdp_flow_key *key,
         const struct xdp_parse_info *info, __u16 zone,
         struct xdp_dp_ct_key *ck)
{
    __u16 echo_request = XDP_ICMP_ECHO_REQUEST;
    __u16 echo_reply = XDP_ICMP_ECHO_REPLY;
    __u8 icmp = IPPROTO_ICMP;

    /* lib/conntrack.c reassembles fragments before it tracks them (ipf),
     * and only a reassembled packet has the ports. */
    if (key->nw_frag) {
        return -1;
    }
    ck->zone = zone;
    ck->nw_proto = key->nw_proto;
    if (key->eth_type == bpf_htons(ETH_P_IP)) {
        ck->ipv6 = 0;
        __builtin_memset(ck->src, 0, sizeof ck->src);
        __builtin_memset(ck->dst, 0, sizeof ck->dst);
        __builtin_memcpy(ck->src, &key->nw_src, 4);
        __builtin_memcpy(ck->dst, &key->nw_dst, 4);
    } else if (key->eth_type == bpf_htons(ETH_P_IPV6)) {
        ck->ipv6 = 1;
        __builtin_memcpy(ck->src, key->ipv6_src, 16);
        __builtin_memcpy(ck->dst, key->ipv6_dst, 16);
        echo_request = XDP_ICMP6_ECHO_REQUEST;
        echo_reply = XDP_ICMP6_ECHO_REPLY;
        icmp = IPPROTO_ICMPV6;
    } else {
        return -1;
    }

    switch (key->nw_proto) {
    case IPPROTO_TCP:
        /* SYN, FIN and RST move the connection's TCP state (and a SYN may
         * open a new connection over an old tuple): lib/conntrack.c sees
         * them, and removes the cache entries when the state leaves
         * ESTABLISHED. */
        if (key->tcp_flags
            & bpf_htons(XDP_TCP_SYN | XDP_TCP_FIN | XDP_TCP_RST)) {
            return -1;
        }
        /* Fall through. */
    case IPPROTO_UDP:
        ck->sport = key->tp_src;
        ck->dport = key->tp_dst;
        return 0;

    case IPPROTO_ICMP:
    case IPPROTO_ICMPV6: {
        /* Echo requests and replies only: other ICMP messages are errors
         * related to another connection, which lib/conntrack.c looks up
         * from the packet they quote (and ICMPv6 also carries Neighbor
         * Discovery, which it does not track). */
        __u16 type = bpf_ntohs(key->tp_src);
        void *data = (void *) (long) ctx->data;
        void *data_end = (void *) (long) ctx->data_end;
        __u32 off = info->l4_ofs;
        __be16 *id;

        if (key->nw_proto != icmp
            || (type != echo_request && type != echo_reply) || off > 256) {
            return -1;
        }
        id = data + off + 4;
        if ((void *) (id + 1) > data_end) {
            return -1;
        }
        ck->sport = *id;
        ck->dport = bpf_htons(type << 8);
        return 0;
    }
    default:
        /* Other protocols are rare enough to leave to lib/conntrack.c. */
        return -1;
    }
}

/* Looks up the connection of the packet in 'ctx' for the ct() of 'flow',
 * its one XDP_DP_ACTION_CT, which no address or port rewrite precedes
 * (xdp-actions.c sees to both).  'key' has the ct_* fields of earlier
 * passes; 'ck' is room for the cache key.  Returns the cache entry's slot,
 * with its counters bumped, plus XDP_DP_CT_LOOKUP_NAT if the ct() applies
 * the entry's NAT, or -1 if lib/conntrack.c must run this ct().
 *
 * A global function, so that the verifier checks it once on its own,
 * not on each path that reaches it.  (Measured on Linux 6.18, the
 * generic program's verification processes about 432,000 instructions
 * with the connection cache, 198,000 without it; most of the growth is
 * in the passes' state space, not here.) */
__attribute__((noinline)) int
xdp_dp_ct_lookup__(XDP_PARSE_CTX *ctx, const struct xdp_flow *flow,
                   const struct xdp_flow_key *key,
                   const struct xdp_parse_info *info,
                   struct xdp_dp_ct_key *ck)
{
    const struct xdp_dp_action *a = NULL;
    struct xdp_dp_ct_entry *e;
    __u32 slot;
    __u32 *s;

    if (!ctx || !flow || !key || !info || !ck) {
        return -1;
    }
    __u32 n = flow->n_actions;

    for (__u32 i = 0; i < XDP_FLOW_MAX_ACTIONS && i < n; i++) {
        if (flow->actions[i].type == XDP_DP_ACTION_CT) {
            a = &flow->actions[i];
            break;
        }
    }
    if (!a) {
        return -1;
    }
    /* A second ct() in the zone of the first: whether NAT applies again
     * depends on what the first did; lib/conntrack.c decides. */
    if (key->ct_state && key->ct_zone == a->ct.zone) {
        return -1;
    }
    if (ct_tuple(ctx, key, info, a->ct.zone, ck)) {
        return -1;
    }
    s = bpf_map_lookup_elem(&xdp_dp_ct, ck);
    if (!s) {
        return -1;
    }
    slot = *s;
    e = bpf_map_lookup_elem(&xdp_dp_ct_entries, &slot);
    if (!e || e->zone != a->ct.zone) {
        return -1;
    }
    /* A commit that would change the mark changes the connection:
     * lib/conntrack.c makes it (and ovs-vswitchd then updates the
     * entries).  One that would not is a no-op for an established
     * connection. */
    if (a->ct.flags & XDP_DP_CT_F_COMMIT
        && (e->mark & a->ct.mark_mask) != a->ct.mark) {
        return -1;
    }
    xdp_dp_ct_count(slot, XDP_DP_FRAME_LEN(ctx));
    return ((slot & XDP_DP_PKT_CT_SLOT_MASK)
            | (a->ct.flags & XDP_DP_CT_F_NAT && e->nat_state
               ? XDP_DP_CT_LOOKUP_NAT : 0));
}

/* Gives the key of a pass after a ct() in XDP the conntrack fields of
 * 'ct' (struct pkt_md's 'ct', nonzero). */
static __always_inline void
ct_fill_key(struct xdp_flow_key *key, __u32 ct)
{
    __u32 slot = (ct & XDP_DP_PKT_CT_SLOT_MASK) - 1;
    const struct xdp_dp_ct_entry *e;

    e = bpf_map_lookup_elem(&xdp_dp_ct_entries, &slot);
    if (!e) {
        return;
    }
    key->ct_state = e->state | (ct & XDP_DP_PKT_CT_F_NAT ? e->nat_state : 0);
    key->ct_zone = e->zone;
    key->ct_mark = e->mark;
    __builtin_memcpy(key->ct_label, e->label, sizeof key->ct_label);
    key->ct_nw_src = e->orig_src;
    key->ct_nw_dst = e->orig_dst;
    key->ct_tp_src = e->orig_sport;
    key->ct_tp_dst = e->orig_dport;
    key->ct_nw_proto = e->orig_proto;
}

/* Applies the NAT of cache entry 'e' to the frame in 'ctx' with key 'key':
 * its address (IPv4: either or both, IPv6: the one that changes;
 * dpif-xdp-ctcache.c caches no IPv6 connection whose NAT changes both) and
 * ports, the checksums' differences added to 'diff'.  Returns 1 if the
 * ports were rewritten, 0 if not, -1 if the frame is too short. */
static __always_inline int
ct_nat_rewrite(XDP_PARSE_CTX *ctx, const struct xdp_dp_ct_entry *e,
               const struct xdp_flow_key *key, struct l4_csum_diff *diff)
{
    int error = (e->nat_ip.type == XDP_DP_ACTION_SET_IPV6_ADDR
                 ? do_set_ipv6_addr(ctx, &e->nat_ip, key, diff)
                 : do_set_ipv4(ctx, &e->nat_ip, key, diff));

    if (error) {
        return -1;
    }
    return e->nat_l4.type ? do_set_l4_ports(ctx, &e->nat_l4, key, diff) : 0;
}

/* Brings 'key', the key of a frame that the NAT of cache entry 'e' has
 * just rewritten, up to date with the frame, as a new parse would make
 * it: the addresses, and the ports if 'ports' (the L4 rewrite took
 * place; when it did not, the frame's ports are those the key has).  The
 * NAT of an entry rewrites nothing else (dpif-xdp-ctcache.c fills in only
 * the addresses and ports of 'nat_ip' and 'nat_l4'). */
static __always_inline void
ct_nat_fill_key(struct xdp_flow_key *key, const struct xdp_dp_ct_entry *e,
                int ports)
{
    const struct xdp_dp_action *ip = &e->nat_ip;
    const struct xdp_dp_action *l4 = &e->nat_l4;

    if (ip->type == XDP_DP_ACTION_SET_IPV6_ADDR) {
        __builtin_memcpy(ip->ipv6_addr.dst ? key->ipv6_dst : key->ipv6_src,
                         ip->ipv6_addr.addr, 16);
    } else {
        key->nw_src = (key->nw_src & ~ip->ipv4.src_mask)
                      | (ip->ipv4.src & ip->ipv4.src_mask);
        key->nw_dst = (key->nw_dst & ~ip->ipv4.dst_mask)
                      | (ip->ipv4.dst & ip->ipv4.dst_mask);
    }
    if (ports) {
        key->tp_src = (key->tp_src & ~l4->l4.src_mask)
                      | (l4->l4.src & l4->l4.src_mask);
        key->tp_dst = (key->tp_dst & ~l4->l4.dst_mask)
                      | (l4->l4.dst & l4->l4.dst_mask);
    }
}

/* Whether Ethernet addresses 'a' and 'b' (both 2-byte aligned) are
 * equal. */
static __always_inline int
eth_eq(const __u8 *a, const __u8 *b)
{
    const __u16 *x = (const void *) a;
    const __u16 *y = (const void *) b;

    return !((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]));
}

/* Whether the packet with key 'key' has the Ethernet addresses that the
 * flow in 'fi' matches, if it matches any ('ids' is what was read of
 * 'fi->ids'): and whether 'fi->ids' still says 'ids' after they were read
 * (see "The pass after a cached ct()" in xdp-dp.h). */
static __always_inline int
ct_next_eth_match(const struct xdp_dp_flow_ids *fi, __u64 ids,
                  const struct xdp_flow_key *key)
{
    if (!(ids & (XDP_DP_FLOW_IDS_F_ETH_DST | XDP_DP_FLOW_IDS_F_ETH_SRC))) {
        return 1;
    }
    if (ids & XDP_DP_FLOW_IDS_F_ETH_DST
        && !eth_eq(fi->eth_dst, key->eth_dst)) {
        return 0;
    }
    if (ids & XDP_DP_FLOW_IDS_F_ETH_SRC
        && !eth_eq(fi->eth_src, key->eth_src)) {
        return 0;
    }
    barrier();
    return *(volatile __u64 *) &fi->ids == ids;
}

/* The pass after a cached ct() (see xdp-dp.h), for a packet whose flow
 * was only a ct() that hit cache entry 'cte' (struct pkt_md's 'ct' is
 * 'ct') and a recirc to 'recirc_id', with key 'key' (untagged frames
 * only): if the entry remembers the flow that
 * pass finds, and that flow is still installed with a single output,
 * returns that output's port plus one and stores the flow's statistics
 * slot in '*slotp'.  Otherwise returns 0, and sets up 'md' for the next
 * pass to record its flow if nothing valid is recorded. */
static __always_inline __u32
ct_next_lookup(struct pkt_md *md, const struct xdp_flow_key *key,
               const struct xdp_dp_ct_entry *cte, __u32 ct, __u32 recirc_id,
               __u32 *slotp)
{
    __u32 ct_slot = (ct & XDP_DP_PKT_CT_SLOT_MASK) - 1;
    __u64 owner = XDP_DP_CT_NEXT_OWNER(recirc_id, md->in_port, cte->gen);
    struct xdp_dp_ct_next *nx;

    if (key->vlans[0].tci) {
        /* A tagged frame may share its cache entry and recirculation id
         * with untagged ones, whose flows match "no VLAN". */
        return 0;
    }
    nx = bpf_map_lookup_elem(&xdp_dp_ct_next, &ct_slot);
    if (!nx) {
        return 0;
    }
    if (nx->owner == owner) {
        __u64 f = nx->flow;
        __u32 slot = XDP_DP_CT_NEXT_SLOT(f);
        struct xdp_dp_flow_ids *fi;

        fi = bpf_map_lookup_elem(&xdp_dp_flow_ids, &slot);
        if (fi && XDP_DP_CT_NEXT_GEN(f) == (cte->gen & XDP_DP_CT_GEN_MASK)) {
            __u64 ids = *(volatile __u64 *) &fi->ids;

            if (XDP_DP_FLOW_IDS_ID(ids) == XDP_DP_CT_NEXT_ID(f)
                && ct_next_eth_match(fi, ids, key)) {
                /* Recorded: the output, or 0 for a flow not to skip to. */
                *slotp = slot;
                return XDP_DP_FLOW_IDS_PORT1(ids);
            }
        }
    }
    md->ct_next = owner;
    return 0;
}

/* Records in the cache slot of struct pkt_md's 'ct' that the pass after
 * the ct() found the flow in statistics slot 'slot', for 'owner' (see
 * ct_next_lookup()). */
static __always_inline void
ct_next_record(__u32 ct, __u64 owner, __u32 slot)
{
    __u32 ct_slot = (ct & XDP_DP_PKT_CT_SLOT_MASK) - 1;
    struct xdp_dp_flow_ids *fi;
    struct xdp_dp_ct_next *nx;
    __u64 ids;

    nx = bpf_map_lookup_elem(&xdp_dp_ct_next, &ct_slot);
    fi = bpf_map_lookup_elem(&xdp_dp_flow_ids, &slot);
    if (!nx || !fi) {
        return;
    }
    ids = *(volatile __u64 *) &fi->ids;
    if (!XDP_DP_FLOW_IDS_ID(ids)) {
        return;
    }
    __u64 cur = nx->owner;
    if (cur != owner) {
        if (cur
            && (cur & XDP_DP_CT_GEN_MASK) == (owner & XDP_DP_CT_GEN_MASK)) {
            return;             /* Another pass's. */
        }
        /* Unclaimed, or claimed from what the entry said before
         * ovs-vswitchd last wrote it. */
        if (__sync_val_compare_and_swap(&nx->owner, cur, owner) != cur) {
            return;
        }
    }
    nx->flow = XDP_DP_CT_NEXT_FLOW(slot, XDP_DP_FLOW_IDS_ID(ids), owner);
}

#endif /* xdp-dp-ct.h */
