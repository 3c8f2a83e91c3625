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

/* Set actions, ODP to XDP.
 *
 * OVS_ACTION_ATTR_SET carries a key attribute and writes all of it,
 * OVS_ACTION_ATTR_SET_MASKED carries a key and a mask of the same size and
 * writes only the masked bits.  Both become an XDP masked write (the plain
 * form with all-ones masks), with the value pre-masked so that the program
 * may either AND or not: Ethernet addresses, IPv4 addresses, TOS and TTL,
 * L4 ports, and IPv6 addresses (whole ones only: the checksum difference
 * of a whole address is what the program computes) with traffic class,
 * flow label and hop limit.  Anything else is refused with the reason,
 * and the flow stays in ovs-vswitchd. */

#include <config.h>

#include "ofproto-xdp/xdp-actions-private.h"

#include <string.h>

#include "datapath/xdp-dp.h"
#include "netlink.h"
#include "odp-util.h"
#include "openvswitch/dynamic-string.h"
#include "packets.h"
#include "util.h"

/* Parses the set action 'a' (OVS_ACTION_ATTR_SET if 'masked' is false,
 * OVS_ACTION_ATTR_SET_MASKED if true) into '*set'.  Returns true if
 * successful, false if 'a' does not hold exactly one key attribute (of even
 * size, for a masked set). */
bool
xdp_set_attr_parse(const struct nlattr *a, bool masked,
                   struct xdp_set_attr *set)
{
    const struct nlattr *k = nl_attr_get(a);
    size_t left = nl_attr_get_size(a);
    size_t size;

    if (!nl_attr_is_valid(k, left) || nl_attr_len_pad(k, left) != left) {
        return false;
    }
    size = nl_attr_get_size(k);
    if (masked && size % 2) {
        return false;
    }

    set->type = nl_attr_type(k);
    set->key = nl_attr_get(k);
    set->size = masked ? size / 2 : size;
    set->mask = masked ? (const uint8_t *) set->key + set->size : NULL;
    return true;
}

/* Stores in 'dst' the first 'n' bytes of 'set''s key ANDed with its mask,
 * starting 'ofs' bytes into the key, and in 'dst_mask' the mask (all-ones
 * for a plain set). */
static void
xdp_set_field(const struct xdp_set_attr *set, size_t ofs, size_t n,
              void *dst, void *dst_mask)
{
    const uint8_t *key = (const uint8_t *) set->key + ofs;
    const uint8_t *mask = set->mask ? (const uint8_t *) set->mask + ofs : NULL;
    uint8_t *d = dst;
    uint8_t *m = dst_mask;

    for (size_t i = 0; i < n; i++) {
        m[i] = mask ? mask[i] : 0xff;
        d[i] = key[i] & m[i];
    }
}

/* Compiles the set action 'set' into 'xa'.  Returns true if successful.
 * Otherwise returns false, after appending the reason to 'why' (if
 * nonnull) if it is more specific than "unsupported action". */
static bool
xdp_set_check_size__(const struct xdp_set_attr *set, size_t expected_size,
                     struct ds *why)
{
    if (set->size != expected_size) {
        if (why) {
            ds_put_format(why, "malformed set action: key attribute %d "
                          "has length %"PRIuSIZE" instead of %"PRIuSIZE,
                          set->type, set->size, expected_size);
        }
        return false;
    }
    return true;
}

bool
xdp_set_compile(const struct xdp_set_attr *set, struct xdp_dp_action *xa,
                struct ds *why)
{
    switch (set->type) {
    case OVS_KEY_ATTR_ETHERNET:
        if (!xdp_set_check_size__(set, sizeof(struct ovs_key_ethernet),
                                  why)) {
            return false;
        }
        xa->type = XDP_DP_ACTION_SET_ETH;
        xdp_set_field(set, offsetof(struct ovs_key_ethernet, eth_dst), 6,
                      xa->eth.dst, xa->eth.dst_mask);
        xdp_set_field(set, offsetof(struct ovs_key_ethernet, eth_src), 6,
                      xa->eth.src, xa->eth.src_mask);
        return true;

    case OVS_KEY_ATTR_IPV4: {
        const struct ovs_key_ipv4 *mask = set->mask;

        if (!xdp_set_check_size__(set, sizeof(struct ovs_key_ipv4), why)) {
            return false;
        }
        /* A plain set's protocol and fragment fields are not written (see
         * odp_set_ipv4() and the kernel's validate_set()), but a masked
         * set that covers them asks for a write that XDP does not do. */
        if (mask && (mask->ipv4_proto || mask->ipv4_frag)) {
            if (why) {
                ds_put_cstr(why, "set of ipv4 proto or frag");
            }
            return false;
        }
        xa->type = XDP_DP_ACTION_SET_IPV4;
        xdp_set_field(set, offsetof(struct ovs_key_ipv4, ipv4_src), 4,
                      &xa->ipv4.src, &xa->ipv4.src_mask);
        xdp_set_field(set, offsetof(struct ovs_key_ipv4, ipv4_dst), 4,
                      &xa->ipv4.dst, &xa->ipv4.dst_mask);
        xdp_set_field(set, offsetof(struct ovs_key_ipv4, ipv4_tos), 1,
                      &xa->ipv4.tos, &xa->ipv4.tos_mask);
        xdp_set_field(set, offsetof(struct ovs_key_ipv4, ipv4_ttl), 1,
                      &xa->ipv4.ttl, &xa->ipv4.ttl_mask);
        return true;
    }

    case OVS_KEY_ATTR_TCP:
    case OVS_KEY_ATTR_UDP:
        /* 'struct ovs_key_tcp' and 'struct ovs_key_udp' have the same
         * layout: source port, then destination port. */
        if (!xdp_set_check_size__(set, sizeof(struct ovs_key_tcp), why)) {
            return false;
        }
        xa->type = XDP_DP_ACTION_SET_L4_PORTS;
        xa->l4.proto = (set->type == OVS_KEY_ATTR_TCP
                        ? IPPROTO_TCP : IPPROTO_UDP);
        xdp_set_field(set, offsetof(struct ovs_key_tcp, tcp_src), 2,
                      &xa->l4.src, &xa->l4.src_mask);
        xdp_set_field(set, offsetof(struct ovs_key_tcp, tcp_dst), 2,
                      &xa->l4.dst, &xa->l4.dst_mask);
        return true;

    case OVS_KEY_ATTR_UNSPEC:
    case OVS_KEY_ATTR_ENCAP:
    case OVS_KEY_ATTR_PRIORITY:
    case OVS_KEY_ATTR_IN_PORT:
    case OVS_KEY_ATTR_VLAN:
    case OVS_KEY_ATTR_ETHERTYPE:
    case OVS_KEY_ATTR_IPV6:
    case OVS_KEY_ATTR_ICMP:
    case OVS_KEY_ATTR_ICMPV6:
    case OVS_KEY_ATTR_ARP:
    case OVS_KEY_ATTR_ND:
    case OVS_KEY_ATTR_SKB_MARK:
    case OVS_KEY_ATTR_TUNNEL:
    case OVS_KEY_ATTR_SCTP:
    case OVS_KEY_ATTR_TCP_FLAGS:
    case OVS_KEY_ATTR_DP_HASH:
    case OVS_KEY_ATTR_RECIRC_ID:
    case OVS_KEY_ATTR_MPLS:
    case OVS_KEY_ATTR_CT_STATE:
    case OVS_KEY_ATTR_CT_ZONE:
    case OVS_KEY_ATTR_CT_MARK:
    case OVS_KEY_ATTR_CT_LABELS:
    case OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4:
    case OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6:
    case OVS_KEY_ATTR_NSH:
    case OVS_KEY_ATTR_PACKET_TYPE:
    case OVS_KEY_ATTR_ND_EXTENSIONS:
    case OVS_KEY_ATTR_TUNNEL_INFO:
    case __OVS_KEY_ATTR_MAX:
    default:
        /* The caller's "unsupported action" says it all. */
        return false;
    }
}

/* Whether 'mask' ('n' bytes) is all zeros (0), all ones (1), or neither
 * (-1). */
static int
xdp_mask_kind(const uint8_t *mask, size_t n)
{
    bool zeros = true, ones = true;

    for (size_t i = 0; i < n; i++) {
        zeros = zeros && !mask[i];
        ones = ones && mask[i] == 0xff;
    }
    return zeros ? 0 : ones ? 1 : -1;
}

/* Compiles 'set', a set or masked set of OVS_KEY_ATTR_IPV6, into up to
 * three XDP actions at 'xa', which has room for 'room': one per address
 * written, and one for the traffic class, flow label and hop limit.  XDP
 * writes whole addresses only (the checksum difference of a whole address
 * is what its code computes).  Returns the number of actions, or 0 after
 * appending the reason to 'why' (if nonnull). */
size_t
xdp_set_ipv6_compile(const struct xdp_set_attr *set, struct xdp_dp_action *xa,
                     size_t room, struct ds *why)
{
    const struct ovs_key_ipv6 *key = set->key;
    const struct ovs_key_ipv6 *mask = set->mask;
    static const struct ovs_key_ipv6 all_ones = {
        .ipv6_src = IN6ADDR_EXACT_INIT, .ipv6_dst = IN6ADDR_EXACT_INIT,
        .ipv6_label = OVS_BE32_MAX, .ipv6_tclass = UINT8_MAX,
        .ipv6_hlimit = UINT8_MAX,
    };
    size_t n = 0;

    if (!xdp_set_check_size__(set, sizeof *key, why)) {
        return 0;
    }
    if (!mask) {
        mask = &all_ones;       /* A plain set writes all but proto, frag. */
    } else if (mask->ipv6_proto || mask->ipv6_frag) {
        if (why) {
            ds_put_cstr(why, "set of ipv6 proto or frag");
        }
        return 0;
    }

    const struct in6_addr *addrs[2] = { &key->ipv6_src, &key->ipv6_dst };
    const struct in6_addr *masks[2] = { &mask->ipv6_src, &mask->ipv6_dst };
    for (int i = 0; i < 2; i++) {
        int kind = xdp_mask_kind(masks[i]->s6_addr, 16);

        if (kind < 0) {
            if (why) {
                ds_put_cstr(why, "set of part of an ipv6 address");
            }
            return 0;
        } else if (kind) {
            if (n >= room) {
                goto full;
            }
            memset(&xa[n], 0, sizeof xa[n]);
            xa[n].type = XDP_DP_ACTION_SET_IPV6_ADDR;
            xa[n].ipv6_addr.dst = i;
            memcpy(xa[n].ipv6_addr.addr, addrs[i]->s6_addr, 16);
            n++;
        }
    }
    if (mask->ipv6_label || mask->ipv6_tclass || mask->ipv6_hlimit) {
        if (n >= room) {
            goto full;
        }
        memset(&xa[n], 0, sizeof xa[n]);
        xa[n].type = XDP_DP_ACTION_SET_IPV6;
        xa[n].ipv6.label_mask = mask->ipv6_label & htonl(0xfffff);
        xa[n].ipv6.label = key->ipv6_label & xa[n].ipv6.label_mask;
        xa[n].ipv6.tclass_mask = mask->ipv6_tclass;
        xa[n].ipv6.tclass = key->ipv6_tclass & mask->ipv6_tclass;
        xa[n].ipv6.hlimit_mask = mask->ipv6_hlimit;
        xa[n].ipv6.hlimit = key->ipv6_hlimit & mask->ipv6_hlimit;
        n++;
    }
    if (!n) {
        if (why) {
            ds_put_cstr(why, "set of ipv6 that writes nothing");
        }
    }
    return n;

full:
    if (why) {
        ds_put_format(why, "more than %d actions", XDP_FLOW_MAX_ACTIONS);
    }
    return 0;
}
