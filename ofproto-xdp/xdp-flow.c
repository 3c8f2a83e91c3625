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

/* Flow keys for the XDP datapath.
 *
 * The XDP key is a subset of Open vSwitch's 'struct flow': the fields of
 * the same names, in the same byte order, so every conversion here is a
 * field-by-field copy and the parsing of the ODP netlink form is left to
 * odp-util (odp_flow_key_to_flow(), odp_flow_key_to_mask()).
 *
 * What needs thought is the part of 'struct flow' that the XDP key drops.
 * Most of it is metadata that has the same value in every packet entering
 * the XDP datapath: no tunnel beyond the metadata that a tnl_pop in XDP
 * gives (IPv4 or IPv6 outer addresses, no Geneve options beyond one with 4
 * bytes of data, no GBP), zero marks,
 * metadata and registers,
 * packet_type Ethernet, and no IPv6 original-direction conntrack tuple
 * (the XDP key carries the conntrack state, zone, mark, label and the
 * IPv4 tuple, which a ct() in XDP sets: see datapath/xdp-dp-ct.h).  A megaflow may keep a mask on such
 * a field as long as its key agrees with that value: the field then
 * matches every XDP packet and is dropped.  The rest are packet headers
 * that the XDP parser does not look into (MPLS label stack, NSH): there is
 * no common value, so any mask bit on them is refused.  Either way a flow
 * that cannot be matched faithfully is not offered to XDP at all.
 * xdp_flow_dropped_bits__() looks for such bits word by word over the
 * whole 'struct flow', so that a field added to 'struct flow' later cannot
 * slip through unnoticed; 'xdp_dropped_fields' only names them. */

#include <config.h>

#include "ofproto-xdp/xdp-flow.h"

#include <errno.h>
#include <string.h>

#include "datapath/xdp-dp.h"
#include "flow.h"
#include "odp-util.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/match.h"
#include "openvswitch/ofp-port.h"
#include "packets.h"
#include "util.h"

void
xdp_flow_key_from_flow(struct xdp_flow_key *key, const struct flow *flow)
{
    memset(key, 0, sizeof *key);

    key->recirc_id = flow->recirc_id;
    key->dp_hash = flow->dp_hash;
    key->in_port = odp_to_u32(flow->in_port.odp_port);

    key->ct_state = flow->ct_state;
    key->ct_zone = flow->ct_zone;
    key->ct_mark = flow->ct_mark;
    memcpy(key->ct_label, &flow->ct_label, sizeof key->ct_label);
    key->ct_nw_proto = flow->ct_nw_proto;
    key->ct_nw_src = flow->ct_nw_src;
    key->ct_nw_dst = flow->ct_nw_dst;
    key->ct_tp_src = flow->ct_tp_src;
    key->ct_tp_dst = flow->ct_tp_dst;

    memcpy(key->eth_dst, flow->dl_dst.ea, 6);
    memcpy(key->eth_src, flow->dl_src.ea, 6);
    key->eth_type = flow->dl_type;
    for (int i = 0; i < 2; i++) {
        key->vlans[i].tpid = flow->vlans[i].tpid;
        key->vlans[i].tci = flow->vlans[i].tci;
    }

    key->nw_src = flow->nw_src;
    key->nw_dst = flow->nw_dst;
    memcpy(key->ipv6_src, &flow->ipv6_src, 16);
    memcpy(key->ipv6_dst, &flow->ipv6_dst, 16);
    key->ipv6_label = flow->ipv6_label;
    key->nw_frag = flow->nw_frag;
    key->nw_tos = flow->nw_tos;
    key->nw_ttl = flow->nw_ttl;
    key->nw_proto = flow->nw_proto;

    memcpy(key->nd_target, &flow->nd_target, 16);
    memcpy(key->arp_sha, flow->arp_sha.ea, 6);
    memcpy(key->arp_tha, flow->arp_tha.ea, 6);
    key->tcp_flags = flow->tcp_flags;
    key->tp_src = flow->tp_src;
    key->tp_dst = flow->tp_dst;
    key->igmp_group_ip4 = flow->igmp_group_ip4;

    key->tun_id = flow->tunnel.tun_id;
    key->tun_src = flow->tunnel.ip_src;
    key->tun_dst = flow->tunnel.ip_dst;
    memcpy(key->tun_ipv6_src, &flow->tunnel.ipv6_src, 16);
    memcpy(key->tun_ipv6_dst, &flow->tunnel.ipv6_dst, 16);
    key->tun_tp_src = flow->tunnel.tp_src;
    key->tun_tp_dst = flow->tunnel.tp_dst;
    key->tun_tos = flow->tunnel.ip_tos;
    key->tun_ttl = flow->tunnel.ip_ttl;
    key->tun_flags = flow->tunnel.flags;
    /* A datapath flow's Geneve options are raw ("udpif", with
     * FLOW_TNL_F_UDPIF in the flags): the key carries the first
     * XDP_TNL_OPTS_LEN bytes and the length, and a flow that matches more
     * is refused by xdp_flow_dropped_bits__(). */
    key->tun_opts_len = flow->tunnel.metadata.present.len;
    memcpy(key->tun_opts, flow->tunnel.metadata.opts.u8, XDP_TNL_OPTS_LEN);
}

void
xdp_flow_mask_from_wc(struct xdp_flow_key *mask,
                      const struct flow_wildcards *wc)
{
    /* A mask is a 'struct flow' too, and the mapping is the same. */
    xdp_flow_key_from_flow(mask, &wc->masks);
}

/* Copies the fields that 'key' carries into 'flow', leaving every other
 * member of 'flow' as it is.  The exact inverse of the copies in
 * xdp_flow_key_from_flow(), for keys and masks alike. */
static void
xdp_flow_fields_to_flow__(const struct xdp_flow_key *key, struct flow *flow)
{
    flow->recirc_id = key->recirc_id;
    flow->dp_hash = key->dp_hash;
    flow->in_port.odp_port = u32_to_odp(key->in_port);

    flow->ct_state = key->ct_state;
    flow->ct_zone = key->ct_zone;
    flow->ct_mark = key->ct_mark;
    memcpy(&flow->ct_label, key->ct_label, sizeof flow->ct_label);
    flow->ct_nw_proto = key->ct_nw_proto;
    flow->ct_nw_src = key->ct_nw_src;
    flow->ct_nw_dst = key->ct_nw_dst;
    flow->ct_tp_src = key->ct_tp_src;
    flow->ct_tp_dst = key->ct_tp_dst;

    memcpy(flow->dl_dst.ea, key->eth_dst, 6);
    memcpy(flow->dl_src.ea, key->eth_src, 6);
    flow->dl_type = key->eth_type;
    for (int i = 0; i < 2; i++) {
        flow->vlans[i].tpid = key->vlans[i].tpid;
        flow->vlans[i].tci = key->vlans[i].tci;
    }

    flow->nw_src = key->nw_src;
    flow->nw_dst = key->nw_dst;
    memcpy(&flow->ipv6_src, key->ipv6_src, 16);
    memcpy(&flow->ipv6_dst, key->ipv6_dst, 16);
    flow->ipv6_label = key->ipv6_label;
    flow->nw_frag = key->nw_frag;
    flow->nw_tos = key->nw_tos;
    flow->nw_ttl = key->nw_ttl;
    flow->nw_proto = key->nw_proto;

    memcpy(&flow->nd_target, key->nd_target, 16);
    memcpy(flow->arp_sha.ea, key->arp_sha, 6);
    memcpy(flow->arp_tha.ea, key->arp_tha, 6);
    flow->tcp_flags = key->tcp_flags;
    flow->tp_src = key->tp_src;
    flow->tp_dst = key->tp_dst;
    flow->igmp_group_ip4 = key->igmp_group_ip4;

    flow->tunnel.tun_id = key->tun_id;
    flow->tunnel.ip_src = key->tun_src;
    flow->tunnel.ip_dst = key->tun_dst;
    memcpy(&flow->tunnel.ipv6_src, key->tun_ipv6_src, 16);
    memcpy(&flow->tunnel.ipv6_dst, key->tun_ipv6_dst, 16);
    flow->tunnel.tp_src = key->tun_tp_src;
    flow->tunnel.tp_dst = key->tun_tp_dst;
    flow->tunnel.ip_tos = key->tun_tos;
    flow->tunnel.ip_ttl = key->tun_ttl;
    flow->tunnel.flags = key->tun_flags;
    flow->tunnel.metadata.present.len = key->tun_opts_len;
    memcpy(flow->tunnel.metadata.opts.u8, key->tun_opts, XDP_TNL_OPTS_LEN);
}

void
xdp_flow_key_to_flow(const struct xdp_flow_key *key, struct flow *flow)
{
    memset(flow, 0, sizeof *flow);
    flow->packet_type = htonl(PT_ETH);
    xdp_flow_fields_to_flow__(key, flow);
}

void
xdp_flow_mask_to_wc(const struct xdp_flow_key *mask,
                    struct flow_wildcards *wc)
{
    memset(&wc->masks, 0, sizeof wc->masks);
    wc->masks.packet_type = OVS_BE32_MAX;
    xdp_flow_fields_to_flow__(mask, &wc->masks);
}

/* Fields of 'struct flow' that the XDP key does not carry, for naming them
 * in messages.  An entry with a nonzero 'elem_size' is an array whose
 * elements are named with their index appended ("reg3"). */
struct xdp_dropped_field {
    const char *name;           /* Name in Open vSwitch's match syntax. */
    size_t ofs;                 /* Offset in 'struct flow'. */
    size_t size;                /* Size in bytes. */
    size_t elem_size;           /* Size of one element, or 0. */
};

#define XDP_DROPPED_FIELD(NAME, MEMBER, ELEM_SIZE)                      \
    { NAME, offsetof(struct flow, MEMBER),                              \
      MEMBER_SIZEOF(struct flow, MEMBER), ELEM_SIZE }

static const struct xdp_dropped_field xdp_dropped_fields[] = {
    XDP_DROPPED_FIELD("tunnel", tunnel, 0),
    XDP_DROPPED_FIELD("metadata", metadata, 0),
    XDP_DROPPED_FIELD("reg", regs, sizeof(uint32_t)),
    XDP_DROPPED_FIELD("skb_priority", skb_priority, 0),
    XDP_DROPPED_FIELD("pkt_mark", pkt_mark, 0),
    XDP_DROPPED_FIELD("ct_state", ct_state, 0),
    XDP_DROPPED_FIELD("ct_nw_proto", ct_nw_proto, 0),
    XDP_DROPPED_FIELD("ct_zone", ct_zone, 0),
    XDP_DROPPED_FIELD("ct_mark", ct_mark, 0),
    XDP_DROPPED_FIELD("packet_type", packet_type, 0),
    XDP_DROPPED_FIELD("ct_label", ct_label, 0),
    XDP_DROPPED_FIELD("conj_id", conj_id, 0),
    XDP_DROPPED_FIELD("actset_output", actset_output, 0),
    XDP_DROPPED_FIELD("mpls_lse", mpls_lse, 0),
    XDP_DROPPED_FIELD("ct_nw_src", ct_nw_src, 0),
    XDP_DROPPED_FIELD("ct_nw_dst", ct_nw_dst, 0),
    XDP_DROPPED_FIELD("ct_ipv6_src", ct_ipv6_src, 0),
    XDP_DROPPED_FIELD("ct_ipv6_dst", ct_ipv6_dst, 0),
    XDP_DROPPED_FIELD("nsh", nsh, 0),
    XDP_DROPPED_FIELD("ct_tp_src", ct_tp_src, 0),
    XDP_DROPPED_FIELD("ct_tp_dst", ct_tp_dst, 0),
};

/* Looks for a bit that 'wc' matches outside the fields that the XDP key
 * carries and that is not the same in every packet entering the XDP
 * datapath with 'flow': either a header field that the XDP parser does
 * not look into, or metadata on which 'flow' differs from the value every
 * such packet has.  Returns the byte offset in 'struct flow' of the first
 * such bit, or SIZE_MAX if there is none. */
static size_t
xdp_flow_dropped_bits__(const struct flow *flow,
                        const struct flow_wildcards *wc)
{
    struct flow arrival, carried, unparsed;
    const uint64_t *key = (const uint64_t *) flow;
    const uint64_t *mask = (const uint64_t *) &wc->masks;
    const uint64_t *arrival_u64 = (const uint64_t *) &arrival;
    const uint64_t *carried_u64 = (const uint64_t *) &carried;
    const uint64_t *unparsed_u64 = (const uint64_t *) &unparsed;
    struct xdp_flow_key ones;

    /* The metadata that every packet entering the XDP datapath has. */
    memset(&arrival, 0, sizeof arrival);
    arrival.packet_type = htonl(PT_ETH);

    /* All-one bits in the fields that the XDP key carries. */
    memset(&ones, 0xff, sizeof ones);
    memset(&carried, 0, sizeof carried);
    xdp_flow_fields_to_flow__(&ones, &carried);

    /* All-one bits in the packet headers that the XDP parser skips. */
    memset(&unparsed, 0, sizeof unparsed);
    memset(&unparsed.mpls_lse, 0xff, sizeof unparsed.mpls_lse);
    memset(&unparsed.nsh, 0xff, sizeof unparsed.nsh);

    for (size_t i = 0; i < FLOW_U64S; i++) {
        uint64_t bad = (((key[i] ^ arrival_u64[i]) | unparsed_u64[i])
                        & mask[i] & ~carried_u64[i]);

        if (bad) {
            const uint8_t *bytes = (const uint8_t *) &bad;
            size_t j = 0;

            while (!bytes[j]) {
                j++;
            }
            return i * sizeof(uint64_t) + j;
        }
    }
    return SIZE_MAX;
}

/* Appends to 'why' the name of the field of 'struct flow' at byte offset
 * 'ofs', one that the XDP key does not carry. */
static void
xdp_dropped_field_format(struct ds *why, size_t ofs)
{
    for (size_t i = 0; i < ARRAY_SIZE(xdp_dropped_fields); i++) {
        const struct xdp_dropped_field *f = &xdp_dropped_fields[i];

        if (ofs >= f->ofs && ofs < f->ofs + f->size) {
            ds_put_cstr(why, f->name);
            if (f->elem_size) {
                ds_put_format(why, "%"PRIuSIZE, (ofs - f->ofs) / f->elem_size);
            }
            return;
        }
    }
    ds_put_format(why, "the field at offset %"PRIuSIZE" of struct flow", ofs);
}

/* Appends to 'why' (if nonnull) the reason why odp-util did not accept a
 * key or mask ('what'), with fitness 'fitness' and message 'error' (if
 * nonnull). */
static void
xdp_flow_fitness_format(struct ds *why, const char *what,
                        enum odp_key_fitness fitness, const char *error)
{
    if (!why) {
        return;
    }
    switch (fitness) {
    case ODP_FIT_TOO_MUCH:
        ds_put_format(why, "flow %s has attributes that its other fields "
                      "rule out (too_much)", what);
        break;
    case ODP_FIT_TOO_LITTLE:
        ds_put_format(why, "flow %s lacks attributes that its other fields "
                      "call for (too_little)", what);
        break;
    case ODP_FIT_ERROR:
    case ODP_FIT_PERFECT:
    default:
        ds_put_format(why, "cannot parse flow %s: %s", what,
                      error ? error : odp_key_fitness_to_string(fitness));
        break;
    }
}

/* A frame whose last VLAN tag is cut short (less than a tag and the
 * Ethertype after it) has that TPID as its Ethertype in flow_extract()'s
 * 'struct flow', and no tag there.  Its netlink key says so with an
 * ETHERTYPE of the TPID, a VLAN of 0 and an empty ENCAP, which
 * odp_flow_key_to_flow() reads back as a tag of TCI 0 with that TPID and
 * an Ethertype of 0; and odp_flow_key_to_mask(), seeing no tag there,
 * refuses the mask's VLAN and ENCAP as too much.  Returns the depth of
 * such a tag in 'flow' as the key read back, or -1 if there is none. */
static int
xdp_flow_cut_tag(const struct flow *flow)
{
    if (flow->dl_type) {
        return -1;
    }
    for (int i = 0; i < FLOW_MAX_VLAN_HEADERS; i++) {
        if (!(flow->vlans[i].tci & htons(VLAN_CFI))) {
            return eth_type_vlan(flow->vlans[i].tpid) ? i : -1;
        }
    }
    return -1;
}

/* Turns the cut tag at depth 'i' of 'flow', and its mask in 'wc', into
 * the Ethertype that flow_extract() gives such a frame. */
static void
xdp_flow_cut_tag_to_dl_type(struct flow *flow, struct flow_wildcards *wc,
                            int i)
{
    flow->dl_type = flow->vlans[i].tpid;
    wc->masks.dl_type = wc->masks.vlans[i].tpid;
    flow->vlans[i].tpid = flow->vlans[i].tci = htons(0);
    wc->masks.vlans[i].tpid = htons(0);
    /* The mask's VLAN, whatever it says of the TCI, matches the absence of
     * a tag there. */
    wc->masks.vlans[i].tci = htons(VLAN_VID_MASK | VLAN_CFI);
}

int
xdp_flow_from_odp(const struct nlattr *key, size_t key_len,
                  const struct nlattr *mask, size_t mask_len,
                  struct xdp_flow_key *xkey, struct xdp_flow_key *xmask,
                  struct match *match, struct ds *why)
{
    enum odp_key_fitness fitness;
    struct flow_wildcards wc;
    struct flow flow;
    uint64_t *k = (uint64_t *) xkey;
    const uint64_t *m = (const uint64_t *) xmask;
    char *error;
    size_t ofs;

    memset(xkey, 0, sizeof *xkey);
    memset(xmask, 0, sizeof *xmask);

    /* odp-util accepts some keys and masks that odp_flow_key_from_flow() and
     * odp_flow_key_from_mask() never produce as less than a perfect fit;
     * like dpif-netdev, refuse them: there is no telling what they mean. */
    fitness = odp_flow_key_to_flow(key, key_len, &flow, &error);
    if (fitness != ODP_FIT_PERFECT) {
        xdp_flow_fitness_format(why, "key", fitness, error);
        free(error);
        return EINVAL;
    }
    int cut = xdp_flow_cut_tag(&flow);
    struct flow mask_of = flow;
    if (cut >= 0) {
        /* So that the mask's VLAN and ENCAP are read, and an Ethertype
         * that asks for no L3 mask behind them. */
        mask_of.vlans[cut].tci |= htons(VLAN_CFI);
        mask_of.dl_type = mask_of.vlans[cut].tpid;
    }
    fitness = odp_flow_key_to_mask(mask, mask_len, &wc, &mask_of, &error);
    if (fitness != ODP_FIT_PERFECT) {
        xdp_flow_fitness_format(why, "mask", fitness, error);
        free(error);
        return EINVAL;
    }
    if (cut >= 0) {
        xdp_flow_cut_tag_to_dl_type(&flow, &wc, cut);
    }

    /* As in dpif_netdev_flow_put(): the netlink form cannot wildcard
     * whether there is a VLAN header. */
    if (!wc.masks.vlans[0].tci) {
        wc.masks.vlans[0].tci = htons(VLAN_VID_MASK | VLAN_CFI);
    }
    if (match) {
        match_init(match, &flow, &wc);
    }

    ofs = xdp_flow_dropped_bits__(&flow, &wc);
    if (ofs != SIZE_MAX) {
        if (why) {
            ds_put_cstr(why, "unsupported match on ");
            xdp_dropped_field_format(why, ofs);
        }
        return EOPNOTSUPP;
    }
    xdp_flow_key_from_flow(xkey, &flow);
    xdp_flow_mask_from_wc(xmask, &wc);

    for (size_t i = 0; i < XDP_FLOW_KEY_WORDS; i++) {
        k[i] &= m[i];
    }
    return 0;
}

void
xdp_flow_key_format(struct ds *s, const struct xdp_flow_key *key,
                    const struct xdp_flow_key *mask)
{
    size_t start_len = s->length;
    struct match match;

    /* The XDP key holds a datapath port number, which match_format() would
     * print as an OpenFlow port, so print it here and leave it out of
     * 'match'. */
    if (mask->in_port == UINT32_MAX) {
        ds_put_format(s, "in_port=%"PRIu32",", key->in_port);
    } else if (mask->in_port) {
        ds_put_format(s, "in_port=%#"PRIx32"/%#"PRIx32",",
                      key->in_port, mask->in_port);
    }

    memset(&match, 0, sizeof match);
    xdp_flow_fields_to_flow__(key, &match.flow);
    xdp_flow_fields_to_flow__(mask, &match.wc.masks);
    match.flow.packet_type = htonl(PT_ETH);
    match.flow.in_port.odp_port = ODPP_NONE;
    match.wc.masks.in_port.odp_port = 0;
    match_format(&match, NULL, s, OFP_DEFAULT_PRIORITY);
    if (s->length > start_len && s->string[s->length - 1] != ',') {
        ds_put_char(s, ',');
    }

    for (int i = 0; i < 2; i++) {
        ovs_be16 tpid = key->vlans[i].tpid & mask->vlans[i].tpid;

        if (tpid && tpid != htons(ETH_TYPE_VLAN_8021Q)) {
            ds_put_format(s, "vlan_tpid%s=%#06"PRIx16",", i ? "1" : "",
                          ntohs(tpid));
        }
    }

    if (s->length == start_len) {
        ds_put_cstr(s, "any");
    } else {
        ds_chomp(s, ',');
    }
}

BUILD_ASSERT_DECL(XDP_TNL_F_DONT_FRAGMENT == FLOW_TNL_F_DONT_FRAGMENT);
BUILD_ASSERT_DECL(XDP_TNL_F_CSUM == FLOW_TNL_F_CSUM);
BUILD_ASSERT_DECL(XDP_TNL_F_KEY == FLOW_TNL_F_KEY);
