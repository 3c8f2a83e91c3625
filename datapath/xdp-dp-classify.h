/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Copyright (c) 2026 The ovs-xdp authors. */

#ifndef XDP_DP_CLASSIFY_H
#define XDP_DP_CLASSIFY_H 1

/* Megaflow classification, generic and compiled.
 *
 * The generic classifier reads everything at run time: the subtable order
 * from xdp_dp_mask_lists, each subtable's mask from xdp_dp_masks, and
 * looks the whole masked key (128 bytes) up in the subtable's hash map.
 *
 * The compiled classifier reads its subtables from 'xdp_dp_cfg', which
 * ovs-vswitchd fills in before it loads the program and which the verifier
 * then knows as constants.  For each compiled subtable in order, the few
 * masked words of the key are packed into a compact key and looked up in
 * that subtable's compact map (see "Compiled programs" in xdp-dp.h).  The
 * first XDP_DP_CSUB_UNROLLED subtables are unrolled, and the verifier
 * drops the copies past 'n_csubs' and every branch on the configuration
 * that cannot be taken, so that each is straight-line code; the rest share
 * one loop (see classify_compiled()).
 *
 * A compiled program keeps the generic classifier as its fallback: a
 * packet that misses every compiled subtable goes through it, over all
 * subtables of the moment.  That is what makes a compiled program correct
 * for a table that has changed since it was compiled: a new subtable is
 * found there until the next program compiles it, and a flow missing from
 * its compact map (one that did not fit, say) is found in its full-size
 * map. */

#include "xdp-dp.h"
#include "xdp-dp-maps.h"

/* The configuration a program was compiled for; all zero (the generic
 * program) unless ovs-vswitchd sets it before loading. */
const volatile struct xdp_dp_cfg xdp_dp_cfg = {};

/* Finds the flow for 'key' with the generic classifier, visiting subtables
 * in userspace's order.  Adds the number of subtables visited to
 * '*n_visited' and counts the hit in 'dp_stats', if not NULL. */
static __always_inline struct xdp_flow *
classify_generic(const struct xdp_flow_key *key, __u32 *n_visited,
                 struct xdp_dp_stats *dp_stats)
{
    __u32 zero = 0;
    __u32 *active = bpf_map_lookup_elem(&xdp_dp_mask_active, &zero);
    struct xdp_dp_mask_list *list;
    struct xdp_flow_key *masked;

    if (!active) {
        return NULL;
    }
    list = bpf_map_lookup_elem(&xdp_dp_mask_lists, active);
    masked = bpf_map_lookup_elem(&xdp_dp_scratch, &zero);
    if (!list || !masked) {
        return NULL;
    }

    __u32 n = list->n_masks;
    for (__u32 i = 0; i < XDP_DP_MAX_MASKS && i < n; i++) {
        __u32 slot = list->slots[i];
        struct xdp_dp_mask *mask = bpf_map_lookup_elem(&xdp_dp_masks, &slot);
        void *subtable = bpf_map_lookup_elem(&xdp_dp_subtables, &slot);

        if (!mask || !subtable) {
            continue;
        }
        const __u64 *k = (const __u64 *) key;
        const __u64 *m = (const __u64 *) &mask->mask;
        __u64 *out = (__u64 *) masked;
#pragma unroll
        for (int w = 0; w < XDP_FLOW_KEY_WORDS; w++) {
            out[w] = k[w] & m[w];
        }
        (*n_visited)++;

        struct xdp_flow *flow = bpf_map_lookup_elem(subtable, masked);
        if (flow) {
            if (dp_stats && slot < XDP_DP_MAX_MASKS) {
                dp_stats->mask_hits[slot]++;
            }
            return flow;
        }
    }
    return NULL;
}

/* Looks compact key 'ck' up in subtable 'slot' of the compact maps with
 * N-word keys, for the subtables of the loop in classify_compiled().  One
 * function per key size, not inline: the verifier turns a map lookup into
 * a direct call into the map's code only where the call instruction sees
 * maps of one kind, and otherwise leaves a call through the map's
 * operations (a retpoline).  Inline in a loop, clang merges the lookups of
 * all key sizes into one call instruction. */
#define XDP_DP_CKEYS_LOOKUP(N)                                          \
    static __attribute__((noinline)) struct xdp_flow *                  \
    ckeys_lookup_##N(__u32 slot, const __u32 *ck)                       \
    {                                                                   \
        void *subtable = bpf_map_lookup_elem(&xdp_dp_ckeys_##N, &slot); \
                                                                        \
        return subtable ? bpf_map_lookup_elem(subtable, ck) : NULL;     \
    }
XDP_DP_CKEYS_LOOKUP(2)
XDP_DP_CKEYS_LOOKUP(4)
XDP_DP_CKEYS_LOOKUP(6)
XDP_DP_CKEYS_LOOKUP(8)
XDP_DP_CKEYS_LOOKUP(12)
XDP_DP_CKEYS_LOOKUP(16)
#undef XDP_DP_CKEYS_LOOKUP

/* Compiled subtables whose lookups are straight-line code; see
 * classify_compiled(). */
#define XDP_DP_CSUB_UNROLLED 16

/* Looks 'key' up in compiled subtable 'i', building the compact key in
 * 'ck', through ckeys_lookup_N() if 'calls' (a constant). */
static __always_inline struct xdp_flow *
classify_csub(const __u32 *kw, __u32 *ck, __u32 i, int calls)
{
    const volatile struct xdp_dp_csub *cs = &xdp_dp_cfg.csubs[i];
    __u32 slot = cs->slot;
    __u32 n_words = cs->ckey_words;
    void *subtable;

    if (!n_words) {
        /* Too many words for a compact key: the full-size subtable, with
         * the mask read at run time as the generic classifier does (rare,
         * so kept short: the compiler unrolls the subtables only while
         * their code is small). */
        __u32 zero = 0;
        __u64 *out = bpf_map_lookup_elem(&xdp_dp_scratch, &zero);
        struct xdp_dp_mask *mask = bpf_map_lookup_elem(&xdp_dp_masks, &slot);

        if (!out || !mask) {
            return NULL;
        }
        const __u64 *k64 = (const __u64 *) kw;
        const __u64 *m64 = (const __u64 *) &mask->mask;
#pragma unroll
        for (int w = 0; w < XDP_FLOW_KEY_WORDS; w++) {
            out[w] = k64[w] & m64[w];
        }
        subtable = bpf_map_lookup_elem(&xdp_dp_subtables, &slot);
        return subtable ? bpf_map_lookup_elem(subtable, out) : NULL;
    }

#pragma unroll
    for (int j = 0; j < XDP_DP_CKEY_MAX_WORDS; j++) {
        if (j < cs->n_words && j < n_words) {
            __u32 w = cs->word[j];

            ck[j] = w < XDP_FLOW_KEY_WORDS32 ? kw[w] & cs->mask[j] : 0;
        } else if (j < n_words) {
            ck[j] = 0;          /* Padding to the key size. */
        }
    }
    if (calls) {
        switch (n_words) {
        case 2: return ckeys_lookup_2(slot, ck);
        case 4: return ckeys_lookup_4(slot, ck);
        case 6: return ckeys_lookup_6(slot, ck);
        case 8: return ckeys_lookup_8(slot, ck);
        case 12: return ckeys_lookup_12(slot, ck);
        case 16: return ckeys_lookup_16(slot, ck);
        default: return NULL;
        }
    }
    switch (n_words) {
#define XDP_DP_CKEYS_CASE(N)                                            \
    case N:                                                             \
        subtable = bpf_map_lookup_elem(&xdp_dp_ckeys_##N, &slot);       \
        break;
    XDP_DP_CKEYS_CASE(2)
    XDP_DP_CKEYS_CASE(4)
    XDP_DP_CKEYS_CASE(6)
    XDP_DP_CKEYS_CASE(8)
    XDP_DP_CKEYS_CASE(12)
    XDP_DP_CKEYS_CASE(16)
#undef XDP_DP_CKEYS_CASE
    default:
        return NULL;
    }
    return subtable ? bpf_map_lookup_elem(subtable, ck) : NULL;
}

/* Finds the flow for 'key' in the compiled subtables, in their compiled
 * order, building compact keys in 'ck', which has room for
 * XDP_DP_CKEY_MAX_WORDS words (the caller's, so that it may share it
 * between its stack frames).  Adds the number of subtables visited to
 * '*n_visited' and counts the hit in 'dp_stats', if not NULL.
 *
 * The first XDP_DP_CSUB_UNROLLED subtables, the ones with the most hits,
 * are unrolled, each its own straight-line code; the rest share the code
 * of one loop.  A straight-line subtable costs about 600 bytes of machine
 * code (the JIT still loads each constant of the configuration from
 * memory), and a packet runs through the code of every subtable before
 * the one it hits: past 16 or so the instruction cache no longer holds it
 * (and clang gives up unrolling), and the loop, whose lookups go through
 * ckeys_lookup_N(), costs less.  ovs-xdp-bench fastpath measured the
 * choices. */
static __always_inline struct xdp_flow *
classify_compiled__(const struct xdp_flow_key *key, __u32 *ck,
                    __u32 *n_visited, struct xdp_dp_stats *dp_stats,
                    __u32 *hit)
{
    const __u32 *kw = (const __u32 *) key;
    struct xdp_flow *flow;

#pragma unroll
    for (__u32 i = 0; i < XDP_DP_CSUB_UNROLLED; i++) {
        if (i >= xdp_dp_cfg.n_csubs) {
            break;
        }
        flow = classify_csub(kw, ck, i, 0);
        if (flow) {
            /* Counted here, where 'slot' is a constant, so that the paths
             * that leave with a flow look alike to the verifier. */
            __u32 slot = xdp_dp_cfg.csubs[i].slot;

            *n_visited += i + 1;
            if (dp_stats && slot < XDP_DP_MAX_MASKS) {
                dp_stats->mask_hits[slot]++;
            }
            *hit = i;
            return flow;
        }
    }
#pragma nounroll
    for (__u32 i = XDP_DP_CSUB_UNROLLED; i < XDP_DP_MAX_CSUBS; i++) {
        if (i >= xdp_dp_cfg.n_csubs) {
            break;
        }
        flow = classify_csub(kw, ck, i, 1);
        if (flow) {
            __u32 slot = xdp_dp_cfg.csubs[i].slot;

            *n_visited += i + 1;
            if (dp_stats && slot < XDP_DP_MAX_MASKS) {
                dp_stats->mask_hits[slot]++;
            }
            *hit = i;
            return flow;
        }
    }
    *n_visited += xdp_dp_cfg.n_csubs;
    return NULL;
}

/* The mask cache's hash of 'key': of the fields that tell microflows
 * apart in practice (ports, addresses, protocol).  Two microflows with the
 * same hash only share an entry, which costs a lookup, not a wrong
 * answer. */
static __always_inline __u32
mask_cache_hash(const struct xdp_flow_key *key)
{
    const __u32 *v6 = (const __u32 *) key->ipv6_src;
    __u32 h = key->in_port * 0x9e3779b1u;

    h ^= key->recirc_id * 0x85ebca77u;
    h = (h ^ key->nw_src) * 0xc2b2ae3du;
    h = (h ^ key->nw_dst) * 0x27d4eb2fu;
    h = (h ^ v6[3] ^ v6[7]) * 0x165667b1u;
    h = (h ^ ((__u32) key->tp_src << 16 | key->tp_dst)) * 0x9e3779b1u;
    h ^= (__u32) key->nw_proto << 16 | key->eth_type;

    /* Murmur3's finalizer: the multiplications above carry a bit only
     * upward, and the cache is indexed by the low bits. */
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ (h >> 16);
}

/* Finds the flow for 'key' with the compiled classifier (see
 * classify_compiled__()), through the mask cache when the program has
 * XDP_DP_MASK_CACHE_MIN compiled subtables or more.
 *
 * With many subtables a packet pays a lookup in each one before its own;
 * the kernel datapath's answer is a per-CPU mask cache, and so is ours:
 * an entry of the set of the packet's hash names the compiled subtable
 * that its microflow hit last, which is tried first, and a packet that
 * hits elsewhere (a new microflow, one pushed out of its set, a table
 * that changed) becomes the set's latest.  Two microflows per set: with
 * one, a thousand microflows over 4096 entries pushed each other out
 * often enough to cost a third of what the cache saved.  Any subtable
 * that holds a matching megaflow gives a right answer: the datapath's
 * megaflows do not overlap, and when they do any one of them is as good
 * as another, as in every OVS datapath. */
static __always_inline struct xdp_flow *
classify_compiled(const struct xdp_flow_key *key, __u32 *ck,
                  __u32 *n_visited, struct xdp_dp_stats *dp_stats)
{
    struct xdp_dp_mask_cache_entry *e = NULL;
    struct xdp_flow *flow;
    __u32 hash = 0, hit;

    if (xdp_dp_cfg.n_csubs >= XDP_DP_MASK_CACHE_MIN) {
        __u32 set, csub = 0;

        hash = mask_cache_hash(key);
        set = hash & (XDP_DP_MASK_CACHE_SETS - 1);
        e = bpf_map_lookup_elem(&xdp_dp_mask_cache, &set);
        if (e) {
            csub = (e->hash[0] == hash ? e->csub[0]
                    : e->hash[1] == hash ? e->csub[1] : 0);
        }
        if (csub && csub <= xdp_dp_cfg.n_csubs && csub <= XDP_DP_MAX_CSUBS) {
            __u32 i = csub - 1;

            flow = classify_csub((const __u32 *) key, ck, i, 1);
            if (flow) {
                __u32 slot = xdp_dp_cfg.csubs[i].slot;

                *n_visited += 1;
                if (dp_stats && slot < XDP_DP_MAX_MASKS) {
                    dp_stats->mask_hits[slot]++;
                }
                return flow;
            }
        }
    }
    flow = classify_compiled__(key, ck, n_visited, dp_stats, &hit);
    if (flow && e) {
        if (e->hash[0] != hash) {
            e->hash[1] = e->hash[0];
            e->csub[1] = e->csub[0];
            e->hash[0] = hash;
        }
        e->csub[0] = hit + 1;
    }
    return flow;
}

#endif /* xdp-dp-classify.h */
