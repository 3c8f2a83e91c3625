/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_EXECUTE_H
#define XDP_DP_EXECUTE_H 1

/* The action executor of both programs: runs a flow's actions on a packet,
 * a frame in the XDP program (xdp-dp.bpf.c) or an skb in the TC pipeline
 * (tc-dp.bpf.c), one action at a time in the order ovs-vswitchd gave them,
 * after deciding, with the same rules in both, whether the program can
 * run them at all (needs_slow_path()) and looking up the connection of a
 * ct() among them (ct_pass_lookup()).
 *
 * Most of what the actions do is already written once over the context
 * type XDP_PARSE_CTX in the headers before this one: the rewrites
 * (xdp-dp-rewrite.h), VLAN push and pop, recirculation and the datapath
 * hash (xdp-dp-pass.h), ct()'s NAT (xdp-dp-ct.h), tunnel pop
 * (xdp-dp-tnl.h) and meters, and its length (XDP_DP_PKT_LEN(),
 * xdp-dp-parse.h).  What differs between a frame and an skb is how a
 * packet leaves and what a verdict is, so the program that includes this
 * file first defines these:
 *
 *   XDP_DP_PASS_BUF     its per-CPU pass buffer type, with the packet's
 *                       key in 'key' and its headers in 'info'.
 *   XDP_DP_DROP         its verdict for a packet it drops.
 *   XDP_DP_KEEPS_KEY    nonzero if its next pass may keep the key that a
 *                       ct() and its recirc leave (struct pkt_md's
 *                       'key_ok'), which the NAT then brings up to date.
 *
 * and these functions, each a verdict unless said otherwise:
 *
 *   exec_check_len(ctx, md, c, ip_end): whether the packet is longer than
 *       check_pkt_len() action 'c' allows (1) or not (0).
 *   exec_sample(ctx, md, buf, a, slot): sample() action 'a'; returns 0.
 *   exec_outputs(ctx, flow, i, n, md, buf, diff): the outputs that end
 *       the actions, 'flow->actions[i]' to the last.
 *   exec_ct_next(ctx, md, buf, diff, cte, ct, recirc_id): the pass after
 *       a cached ct(), output at once if it may be skipped; otherwise -1.
 *   exec_tnl_push(ctx, flow, i, n, md, buf, diff): tnl_push() and the
 *       output after it; -1 for malformed actions.
 *
 * A compiled XDP program may lack the code for some actions (HAS_ACTION()
 * is a constant for the verifier, see xdp-dp-pass.h); the TC pipeline's
 * 'xdp_dp_cfg' is never set, so it has all of them. */

/* Whether the packet in 'ctx', with metadata 'md', key 'key' and headers
 * 'info', must be handed to ovs-vswitchd although it hit 'flow': a
 * slow-path flow, a flow whose actions this compiled program has no code
 * for, a check_pkt_len() branch that the program cannot run, or an IPv6
 * rewrite that touches the L4 checksum or header of a packet with
 * extension headers (done here only for packets without them). */
static __always_inline int
needs_slow_path(XDP_PARSE_CTX *ctx, const struct xdp_flow *flow,
                const struct pkt_md *md, const struct xdp_flow_key *key,
                const struct xdp_parse_info *info)
{
    if (flow->flags & XDP_FLOW_F_SLOW_PATH
        || (xdp_dp_cfg.enabled
            && flow->action_bits & ~xdp_dp_cfg.action_bits)) {
        return 1;
    }
    /* A UDP tunnel over IPv6 needs a checksum, which the TC half cannot
     * make for a GSO segment (see xdp-dp-tnl.h); a packet that may be one
     * goes to ovs-vswitchd, which cuts it first. */
    if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_TNL_PUSH))
        && flow->flags & XDP_FLOW_F_NO_GSO
        && XDP_DP_TNL_MAY_BE_GSO(ctx, md->skb_only)) {
        return 1;
    }
    /* A rewrite of IP fields in a packet whose IP header the parser did
     * not accept (cut short, or shorter than its own header length): OVS's
     * odp_execute_actions() still writes the fields the frame holds, which
     * the program, bounded by the whole header, would not; ovs-vswitchd
     * does it (found by ovs-xdp-bench fuzz). */
    if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_SET_IPV4)
                   | ACTION_BIT(XDP_DP_ACTION_SET_IPV6_ADDR)
                   | ACTION_BIT(XDP_DP_ACTION_SET_IPV6))
        && flow->action_bits & (ACTION_BIT(XDP_DP_ACTION_SET_IPV4)
                                | ACTION_BIT(XDP_DP_ACTION_SET_IPV6_ADDR)
                                | ACTION_BIT(XDP_DP_ACTION_SET_IPV6))
        && info->l4_ofs == XDP_PARSE_OFS_NONE) {
        return 1;
    }
    if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_CHECK_PKT_LEN))
        && flow->action_bits & ACTION_BIT(XDP_DP_ACTION_CHECK_PKT_LEN)) {
        const struct xdp_dp_action *c = &flow->actions[0];

        if (c->check_len.flags
            & (exec_check_len(ctx, md, c, ip_end(key, info))
               ? XDP_DP_CPL_F_GT_SLOW : XDP_DP_CPL_F_LE_SLOW)) {
            return 1;
        }
    }
    return (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_SET_IPV6_ADDR)
                       | ACTION_BIT(XDP_DP_ACTION_SET_L4_PORTS))
            && flow->action_bits & (ACTION_BIT(XDP_DP_ACTION_SET_IPV6_ADDR)
                                    | ACTION_BIT(XDP_DP_ACTION_SET_L4_PORTS))
            && key->eth_type == bpf_htons(ETH_P_IPV6)
            && !(key->nw_frag & XDP_NW_FRAG_LATER)
            && l4_has_pseudo_hdr(key) && ipv6_l4_offset(ctx, key) < 0);
}

/* The connection of the packet in 'ctx', with key 'key' and headers
 * 'info', for the ct() of 'flow', looked up before any of the flow's
 * actions runs, so that a miss hands ovs-vswitchd the packet as the flow
 * found it: returns its connection cache entry, with the value of struct
 * pkt_md's 'ct' for it in '*ct_md', or NULL for a miss.  Counts the hit
 * or the miss in 'dp_stats'.  'ck' is room for the lookup's key. */
static __always_inline const struct xdp_dp_ct_entry *
ct_pass_lookup(XDP_PARSE_CTX *ctx, const struct xdp_flow *flow,
               const struct xdp_flow_key *key,
               const struct xdp_parse_info *info, struct xdp_dp_ct_key *ck,
               struct xdp_dp_stats *dp_stats, __u32 *ct_md)
{
    const struct xdp_dp_ct_entry *cte = NULL;
    int ct = xdp_dp_ct_lookup__(ctx, flow, key, info, ck);

    if (ct >= 0) {
        /* A global function returns no pointer: the slot, then the
         * entry. */
        __u32 ct_slot = ct & XDP_DP_PKT_CT_SLOT_MASK;

        *ct_md = (((ct_slot + 1) & XDP_DP_PKT_CT_SLOT_MASK)
                  | (ct & XDP_DP_CT_LOOKUP_NAT ? XDP_DP_PKT_CT_F_NAT : 0));
        cte = bpf_map_lookup_elem(&xdp_dp_ct_entries, &ct_slot);
    }
    if (cte) {
        dp_stats->n_ct_hit++;
    } else {
        dp_stats->n_ct_miss++;
    }
    return cte;
}

/* Runs 'flow''s actions on the packet in 'ctx', whose metadata is 'md' and
 * key 'buf->key'; a ct() among them gives the packet 'ct' (struct pkt_md's
 * 'ct', or 0 if the flow has none), whose NAT, if any, is the connection
 * cache entry 'cte''s.  'first_pass' says whether this is the packet's
 * first pass, a constant where it is called.  Returns the program's
 * verdict, or RECIRCULATE with 'md' set up for the next pass.
 *
 * The NAT of a ct() is applied before the actions, not at the ct()'s
 * place among them: no action before a ct() may touch the addresses or
 * ports (xdp-actions.c), so the packet comes out the same, and the
 * verifier sees the rewrite once, not at each step of the loop (where,
 * in some compiled programs, it took the verifier past its limit).
 *
 * The actions only read 'md' until they recirculate, which ends them:
 * the caller reads 'md' after a pass, so the verifier would otherwise tell
 * apart, at every action, the packets that differ in what earlier actions
 * wrote there. */
static __always_inline int
execute(XDP_PARSE_CTX *ctx, const struct xdp_flow *flow, struct pkt_md *md,
        XDP_DP_PASS_BUF *buf, const struct xdp_dp_ct_entry *cte, __u32 ct,
        int first_pass)
{
    const struct xdp_flow_key *key = &buf->key;
    struct l4_csum_diff diff = md->diff;
    __u32 n = flow->n_actions;
    __u32 first = 0;

    if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_CHECK_PKT_LEN))
        && flow->action_bits & ACTION_BIT(XDP_DP_ACTION_CHECK_PKT_LEN)
        && flow->actions[0].check_len.flags & XDP_DP_CPL_F_GT_DROP
        && exec_check_len(ctx, md, &flow->actions[0],
                          ip_end(key, &buf->info))) {
        /* A gt() that drops (see "Packet length checks" in xdp-dp.h); any
         * other goes to ovs-vswitchd (needs_slow_path()). */
        COUNT(n_dropped, 1);
        return XDP_DP_DROP;
    }
    if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_CT)) && cte
        && ct & XDP_DP_PKT_CT_F_NAT) {
        /* A sample() before the ct() sees the packet before its NAT; the
         * compiler allows one only as the first action (sFlow's place). */
        if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_SAMPLE))
            && flow->actions[0].type == XDP_DP_ACTION_SAMPLE) {
            exec_sample(ctx, md, buf, &flow->actions[0], flow->slot);
            first = 1;
        }
        int ports = ct_nat_rewrite(ctx, cte, key, &diff);

        if (ports < 0) {
            COUNT(n_tx_error, 1);
            return XDP_DP_DROP;
        }
        /* For a flow that is only the ct() and its recirc, the key now
         * says what a parse of the rewritten frame would, so that the
         * next pass may keep it (md->key_ok).  Other flows' actions see
         * the key as the flow matched it. */
        if (XDP_DP_KEEPS_KEY && flow_is_ct_recirc(flow)) {
            ct_nat_fill_key(&buf->key, cte, ports > 0);
        }
    }

    for (__u32 i = first; i < XDP_FLOW_MAX_ACTIONS && i < n; i++) {
        const struct xdp_dp_action *a = &flow->actions[i];
        int error = 0;

        switch (a->type) {
        case XDP_DP_ACTION_OUTPUT:
            /* The outputs end the actions (xdp-actions.c). */
            return exec_outputs(ctx, flow, i, n, md, buf, &diff);
        case XDP_DP_ACTION_PUSH_VLAN:
            error = (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_PUSH_VLAN))
                     ? do_push_vlan(ctx, &a->vlan) : -1);
            break;
        case XDP_DP_ACTION_POP_VLAN:
            error = (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_POP_VLAN))
                     ? do_pop_vlan(ctx) : -1);
            break;
        case XDP_DP_ACTION_SET_ETH:
            error = (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_SET_ETH))
                     ? do_set_eth(ctx, a) : -1);
            break;
        case XDP_DP_ACTION_SET_IPV4:
            error = (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_SET_IPV4))
                     ? do_set_ipv4(ctx, a, key, &diff) : -1);
            break;
        case XDP_DP_ACTION_SET_L4_PORTS:
            error = (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_SET_L4_PORTS))
                     && do_set_l4_ports(ctx, a, key, &diff) >= 0 ? 0 : -1);
            break;
        case XDP_DP_ACTION_SET_IPV6_ADDR:
            error = (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_SET_IPV6_ADDR))
                     ? do_set_ipv6_addr(ctx, a, key, &diff) : -1);
            break;
        case XDP_DP_ACTION_SET_IPV6:
            error = (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_SET_IPV6))
                     ? do_set_ipv6(ctx, a) : -1);
            break;
        case XDP_DP_ACTION_HASH:
        case XDP_DP_ACTION_RECIRC:
            /* Only for a ct() in the first pass ('first_pass' is a
             * constant: in the XDP program the code is not in
             * xdp_dp_recirc_pass__(), where it took the verifier's work
             * for the generic program from 573,000 to 791,000
             * instructions; 588,000 without). */
            if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_CT)) && first_pass && cte
                && a->type == XDP_DP_ACTION_RECIRC
                && flow_is_ct_recirc(flow)) {
                int verdict = exec_ct_next(ctx, md, buf, &diff, cte, ct,
                                           a->recirc.id);

                if (verdict >= 0) {
                    return verdict;
                }
            }
            if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_RECIRC))
                && !do_recirc(flow, i, md, &diff, ct)) {
                return RECIRCULATE;
            }
            error = -1;
            break;
        case XDP_DP_ACTION_CT:
            /* Its NAT is done, above. */
            error = HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_CT)) && cte ? 0 : -1;
            break;
        case XDP_DP_ACTION_TNL_PUSH:
            if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_TNL_PUSH))) {
                int verdict = exec_tnl_push(ctx, flow, i, n, md, buf, &diff);

                if (verdict >= 0) {
                    return verdict;
                }
            }
            error = -1;
            break;
        case XDP_DP_ACTION_DATA:
        case XDP_DP_ACTION_SET_PRIORITY:
        case XDP_DP_ACTION_TRUNC:
        case XDP_DP_ACTION_CHECK_PKT_LEN:
            /* Nothing to do here: data for the action before, a priority
             * or a length for the outputs after it, the length check done
             * before the loop and in needs_slow_path(). */
            break;
        case XDP_DP_ACTION_METER:
            if (!HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_METER))) {
                error = -1;
            } else if (!xdp_dp_meter__(a->meter.id, XDP_DP_PKT_LEN(ctx))) {
                COUNT(n_metered, 1);
                return XDP_DP_DROP;
            }
            break;
        case XDP_DP_ACTION_SAMPLE:
            if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_SAMPLE))) {
                exec_sample(ctx, md, buf, a, flow->slot);
            } else {
                error = -1;
            }
            break;
        case XDP_DP_ACTION_CT_CLEAR:
            /* The next pass parses the key afresh (md->key_ok is only
             * set after a flow of a ct() and its recirc) and fills in
             * the ct_* fields from md->ct alone. */
            if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_CT_CLEAR))) {
                md->ct = 0;
            } else {
                error = -1;
            }
            break;
        case XDP_DP_ACTION_TNL_POP:
            /* The pass checked it with tnl_pop_ok(). */
            if (HAS_ACTION(ACTION_BIT(XDP_DP_ACTION_TNL_POP))
                && !do_tnl_pop(ctx, md, key, a->tnl_pop.port)) {
                COUNT(n_tnl_pop, 1);
                return RECIRCULATE;
            }
            error = -1;
            break;
        default:
            error = -1;
            break;
        }
        if (error) {
            COUNT(n_tx_error, 1);
            return XDP_DP_DROP;
        }
    }
    COUNT(n_dropped, 1);
    return XDP_DP_DROP;
}

#endif /* xdp-dp-execute.h */
