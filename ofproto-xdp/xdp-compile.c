/*
 * Copyright (c) 2026 The ovs-xdp authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

/* The flow-table compiler: from the shape of a megaflow table to the
 * configuration of a specialised datapath program.
 *
 * How code is produced.  The datapath program (datapath/xdp-dp.bpf.c) is
 * written once, with every loop over subtables and key words unrolled to
 * its maximum and every optional part behind a test of 'struct xdp_dp_cfg',
 * a 'const volatile' global in the program's read-only data.  This module
 * fills that structure in for one table; dpif-xdp-compile.c loads a new
 * instance of the program with it.  libbpf freezes the read-only data
 * before the kernel verifies the program, and the verifier then treats
 * every read of it as a constant: it follows only the branches those
 * constants allow and removes the rest as dead code, so the program that
 * the JIT translates holds exactly the lookups of this table's subtables,
 * in this order, with only their masked words, and only the action code
 * its flows use.  No compiler runs on the host (clang need not be
 * installed), and every compiled program is one the verifier has checked.
 *
 * What is specialised:
 *   - Subtable order: by the hits each subtable had since the previous
 *     compile, most first, as OVS's dpcls ranks its subtables; subtables
 *     without hits by their number of flows.
 *   - Keys: for each subtable, the 32-bit key words its mask touches (with
 *     their masks), packed into a compact key of that many words
 *     ('struct xdp_dp_csub'); masks with more than XDP_DP_CKEY_MAX_WORDS
 *     words use the full key.
 *   - Parsing: whether any mask needs a transport-layer field.
 *   - Actions: which action types (and whether several outputs) the
 *     table's flows use.
 * This module only decides; it touches no kernel object, so its output
 * can be tested without privileges. */

#include <config.h>

#include "ofproto-xdp/xdp-compile.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "openvswitch/dynamic-string.h"
#include "util.h"

/* The first key byte of the transport layer's words: the Neighbor
 * Discovery fields and everything after them (see struct xdp_flow_key). */
#define L4_FIRST_BYTE offsetof(struct xdp_flow_key, nd_target)

/* The words of the compact key for a mask that touches 'n_words' 32-bit
 * words of the key: the smallest of XDP_DP_CKEY_CLASSES that holds them,
 * or 0 if none does (the full key). */
uint32_t
xdp_compile_ckey_words(uint32_t n_words)
{
    static const uint32_t classes[] = { XDP_DP_CKEY_CLASSES };

    for (size_t i = 0; i < ARRAY_SIZE(classes); i++) {
        if (n_words <= classes[i]) {
            return classes[i];
        }
    }
    return 0;
}

void
xdp_compile_csub(uint32_t slot, const struct xdp_flow_key *mask,
                 struct xdp_dp_csub *cs)
{
    const uint32_t *m = (const uint32_t *) mask;

    memset(cs, 0, sizeof *cs);
    cs->slot = slot;
    for (int w = 0; w < XDP_FLOW_KEY_WORDS32; w++) {
        if (m[w]) {
            cs->word[cs->n_words] = w;
            cs->mask[cs->n_words] = m[w];
            cs->n_words++;
        }
    }
    cs->ckey_words = xdp_compile_ckey_words(cs->n_words);
    if (!cs->n_words) {
        /* A mask of all zeros (a flow that matches everything): one word
         * of zeros as its compact key. */
        cs->n_words = 1;
        cs->ckey_words = xdp_compile_ckey_words(1);
        cs->word[0] = 0;
        cs->mask[0] = 0;
    }
}

bool
xdp_compile_csub_equal(const struct xdp_dp_csub *a,
                       const struct xdp_dp_csub *b)
{
    return (a->slot == b->slot
            && a->ckey_words == b->ckey_words
            && a->n_words == b->n_words
            && !memcmp(a->word, b->word, sizeof a->word)
            && !memcmp(a->mask, b->mask, sizeof a->mask));
}

/* Packs 'masked_key' (a key already masked with the mask of 'cs') into
 * the compact key the program builds for it: the words of 'cs', in order.
 * Only 'cs->ckey_words' words of 'ckey' are meaningful. */
void
xdp_compile_ckey(const struct xdp_dp_csub *cs,
                 const struct xdp_flow_key *masked_key,
                 uint32_t ckey[XDP_DP_CKEY_MAX_WORDS])
{
    const uint32_t *k = (const uint32_t *) masked_key;

    memset(ckey, 0, XDP_DP_CKEY_MAX_WORDS * sizeof *ckey);
    for (uint32_t j = 0; j < cs->n_words && j < cs->ckey_words; j++) {
        ckey[j] = k[cs->word[j]] & cs->mask[j];
    }
}

bool
xdp_compile_mask_needs_l4(const struct xdp_flow_key *mask)
{
    const uint8_t *m = (const uint8_t *) mask;

    for (size_t i = L4_FIRST_BYTE; i < sizeof *mask; i++) {
        if (m[i]) {
            return true;
        }
    }
    return false;
}

static int
compare_by_rank(const void *a_, const void *b_)
{
    const struct xdp_compile_mask *a = *(const struct xdp_compile_mask **) a_;
    const struct xdp_compile_mask *b = *(const struct xdp_compile_mask **) b_;

    if (a->hits != b->hits) {
        return a->hits > b->hits ? -1 : 1;
    } else if (a->n_flows != b->n_flows) {
        return a->n_flows > b->n_flows ? -1 : 1;
    }
    return a->slot < b->slot ? -1 : a->slot > b->slot;
}

/* Fills 'cfg' for the table whose subtables are the 'n_masks' in 'masks'
 * (at most XDP_DP_MAX_CSUBS) and whose flows use the actions in
 * 'action_bits'. */
void
xdp_compile_build(const struct xdp_compile_mask *masks, size_t n_masks,
                  uint32_t action_bits, struct xdp_dp_cfg *cfg)
{
    const struct xdp_compile_mask **order = xmalloc(MAX(n_masks, 1)
                                                    * sizeof *order);

    memset(cfg, 0, sizeof *cfg);
    cfg->enabled = 1;
    cfg->action_bits = action_bits;
    n_masks = MIN(n_masks, XDP_DP_MAX_CSUBS);
    for (size_t i = 0; i < n_masks; i++) {
        order[i] = &masks[i];
    }
    qsort(order, n_masks, sizeof *order, compare_by_rank);
    for (size_t i = 0; i < n_masks; i++) {
        xdp_compile_csub(order[i]->slot, &order[i]->mask,
                         &cfg->csubs[cfg->n_csubs++]);
        if (xdp_compile_mask_needs_l4(&order[i]->mask)) {
            cfg->parse_l4 = 1;
        }
    }
    free(order);
}

/* The fields of the flow key, to name the words of a mask. */
static const struct {
    const char *name;
    size_t ofs, len;
} key_fields[] = {
#define F(MEMBER) { #MEMBER, offsetof(struct xdp_flow_key, MEMBER),     \
                    sizeof ((struct xdp_flow_key *) 0)->MEMBER }
    F(recirc_id), F(dp_hash), F(in_port), F(eth_dst), F(eth_src),
    F(eth_type), F(vlans), F(nw_src), F(nw_dst), F(ipv6_src), F(ipv6_dst),
    F(ipv6_label), F(nw_frag), F(nw_tos), F(nw_ttl), F(nw_proto),
    F(nd_target), F(arp_sha), F(arp_tha), F(tcp_flags), F(tp_src),
    F(tp_dst), F(igmp_group_ip4),
#undef F
};

/* Appends the names of the key fields that 'cs''s mask touches, and how
 * its key is looked up. */
void
xdp_compile_format_csub(struct ds *s, const struct xdp_dp_csub *cs)
{
    uint8_t bytes[sizeof(struct xdp_flow_key)];

    memset(bytes, 0, sizeof bytes);
    for (uint32_t j = 0; j < cs->n_words && j < XDP_FLOW_KEY_WORDS32; j++) {
        memcpy(&bytes[cs->word[j] * 4], &cs->mask[j], 4);
    }
    if (cs->ckey_words) {
        ds_put_format(s, "compact key of %"PRIu32" bytes:",
                      cs->ckey_words * 4);
    } else {
        ds_put_format(s, "full key (%"PRIu32" bytes masked):",
                      cs->n_words * 4);
    }
    bool any = false;
    for (size_t i = 0; i < ARRAY_SIZE(key_fields); i++) {
        for (size_t b = 0; b < key_fields[i].len; b++) {
            if (bytes[key_fields[i].ofs + b]) {
                ds_put_format(s, " %s", key_fields[i].name);
                any = true;
                break;
            }
        }
    }
    if (!any) {
        ds_put_cstr(s, " (matches every packet)");
    }
}

void
xdp_compile_format_actions(struct ds *s, uint32_t action_bits)
{
    static const char *const names[] = {
        [XDP_DP_ACTION_OUTPUT] = "output",
        [XDP_DP_ACTION_PUSH_VLAN] = "push_vlan",
        [XDP_DP_ACTION_POP_VLAN] = "pop_vlan",
        [XDP_DP_ACTION_SET_ETH] = "set_eth",
        [XDP_DP_ACTION_SET_IPV4] = "set_ipv4",
        [XDP_DP_ACTION_SET_L4_PORTS] = "set_l4_ports",
        [XDP_DP_ACTION_SET_IPV6_ADDR] = "set_ipv6_addr",
        [XDP_DP_ACTION_SET_IPV6] = "set_ipv6",
        [XDP_DP_ACTION_HASH] = "hash",
        [XDP_DP_ACTION_RECIRC] = "recirc",
        [XDP_DP_ACTION_CT] = "ct",
        [XDP_DP_ACTION_TNL_PUSH] = "tnl_push",
        [XDP_DP_ACTION_TNL_POP] = "tnl_pop",
        [XDP_DP_ACTION_METER] = "meter",
        [XDP_DP_ACTION_SAMPLE] = "sample",
        [XDP_DP_ACTION_SET_PRIORITY] = "set_priority",
        [XDP_DP_ACTION_CHECK_PKT_LEN] = "check_pkt_len",
        [XDP_DP_ACTION_TRUNC] = "trunc",
        [XDP_DP_ACTION_CT_CLEAR] = "ct_clear",
    };
    bool any = false;

    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        if (names[i] && action_bits & (1u << i)) {
            ds_put_format(s, "%s%s", any ? " " : "", names[i]);
            any = true;
        }
    }
    if (action_bits & XDP_DP_ACTION_F_OUTPUTS) {
        ds_put_format(s, "%smulti-output", any ? " " : "");
        any = true;
    }
    if (!any) {
        ds_put_cstr(s, "drop only");
    }
}
