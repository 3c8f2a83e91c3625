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

/* ODP actions to XDP actions.
 *
 * ofproto-dpif hands the datapath a flow's actions as a list of netlink
 * attributes (OVS_ACTION_ATTR_*) that odp_execute_actions() would run one
 * after another.  The XDP program runs a fixed-size array of simple
 * actions instead, and hands the packet to its ports at the end: one
 * output, or up to XDP_DP_MAX_OUTPUTS of them in a row (the program's TC
 * half clones the packet to each), or back to its flow table with a
 * recirculation id.  The compiler walks the netlink list
 * once, translating each attribute into one 'struct xdp_dp_action' with
 * xdp_action_compile__() (a set of IPv6 fields into up to three, with
 * xdp_set_ipv6_compile()); the first attribute that has no XDP equivalent,
 * or that would break the shape the program expects (anything but another
 * output after an output, anything after a recirc, a hash that a recirc
 * does not follow, too many outputs or actions), stops it and turns the
 * whole flow into a slow-path flow with a reason.  There is no partial
 * offload: a slow-path flow's packets go to ovs-vswitchd, which runs the
 * original ODP actions.
 *
 * A flow may hold one ct(), which XDP runs from its connection cache for
 * established connections and hands to ovs-vswitchd otherwise (see
 * datapath/xdp-dp-ct.h): not after an address or port rewrite, since XDP
 * looks the connection up by the tuple the flow matched, and not a ct()
 * that may change its connection (xdp_ct_compile()).
 *
 * A sample() runs in XDP whatever it nests: the program draws the packets
 * and sends their copies up, and ovs-vswitchd runs the nested actions on
 * them (see "Sampling" in datapath/xdp-dp.h).  So does a userspace() with
 * a sampling cookie, which ofproto emits without a sample() around it for
 * a probability of 1 (xdp_userspace_is_sampling()).  The XDP action names the
 * sample() by its number among the flow's sample()s, in the order met
 * here; xdp_actions_get_sample() finds it again by walking the same way.
 *
 * A check_pkt_len(), last as ofproto puts it, runs its le() branch in XDP
 * after the actions before it; a longer frame is dropped in XDP if gt()
 * drops it and otherwise goes to ovs-vswitchd (see "Packet length checks"
 * in datapath/xdp-dp.h and xdp_check_pkt_len_compile()).  A trunc() cuts
 * the output after it, which the compiler moves to the end of the
 * outputs, and a set(skb_priority) goes right before the outputs (see
 * "Queues and truncation").
 *
 * A hash action must come right before a recirc: the program computes the
 * hash when it parses the frame for the next pass (see "Datapath hash" in
 * datapath/xdp-dp.bpf.c), which is the hash of the frame as the action
 * sees it only if nothing changes the frame in between.  That is where
 * ofproto puts its hash actions.
 *
 * Set actions are compiled in xdp-actions-set.c, and XDP actions are
 * formatted for dumps in xdp-actions-format.c. */

#include <config.h>

#include "ofproto-xdp/xdp-actions.h"
#include "ofproto-xdp/xdp-actions-private.h"

#include <errno.h>
#include <string.h>

#include "datapath/xdp-dp.h"
#include "netdev-native-tnl.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "odp-util.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/ofpbuf.h"
#include "packets.h"
#include "unaligned.h"
#include "util.h"

/* Actions that change what ct() would look the packet up by. */
#define XDP_CT_TUPLE_REWRITES                   \
    ((1u << XDP_DP_ACTION_SET_IPV4)             \
     | (1u << XDP_DP_ACTION_SET_L4_PORTS)       \
     | (1u << XDP_DP_ACTION_SET_IPV6_ADDR))

/* Checks that the payload of action 'a' has 'size' bytes.  If not, appends
 * the reason to 'why' (if nonnull) and returns false. */
static bool
xdp_action_check_size(const struct nlattr *a, size_t size, const char *name,
                      struct ds *why)
{
    if (nl_attr_get_size(a) != size) {
        if (why) {
            ds_put_format(why, "%s action has length %"PRIuSIZE
                          " instead of %"PRIuSIZE,
                          name, nl_attr_get_size(a), size);
        }
        return false;
    }
    return true;
}

/* Compiles the ct() action 'a' into '*xa'.  Only what lib/conntrack.c
 * does for an established connection without changing it can run in XDP
 * (see datapath/xdp-dp-ct.h): a ct() that may change the connection is
 * refused here and makes its flow a slow-path flow, with a reason in 'why'
 * (if nonnull).  Returns true if successful. */
static bool
xdp_ct_compile(const struct nlattr *a, struct xdp_dp_action *xa,
               struct ds *why)
{
    const struct nlattr *b;
    size_t left;

    xa->type = XDP_DP_ACTION_CT;
    NL_NESTED_FOR_EACH (b, left, a) {
        switch ((enum ovs_ct_attr) nl_attr_type(b)) {
        case OVS_CT_ATTR_ZONE:
            xa->ct.zone = nl_attr_get_u16(b);
            break;
        case OVS_CT_ATTR_COMMIT:
            xa->ct.flags |= XDP_DP_CT_F_COMMIT;
            break;
        case OVS_CT_ATTR_NAT:
            /* For an established connection lib/conntrack.c applies the
             * NAT the connection was committed with, whatever the ranges
             * of this action: those matter only to a new one. */
            xa->ct.flags |= XDP_DP_CT_F_NAT;
            break;
        case OVS_CT_ATTR_MARK: {
            const struct {
                uint32_t value;
                uint32_t mask;
            } *mark = nl_attr_get_unspec(b, 2 * sizeof(uint32_t));
            xa->ct.mark = mark->value & mark->mask;
            xa->ct.mark_mask = mark->mask;
            break;
        }
        case OVS_CT_ATTR_LABELS: {
            const struct ovs_key_ct_labels *l = nl_attr_get_unspec(b,
                                                   2 * sizeof *l);
            if (!is_all_zeros(&l[1], sizeof l[1])) {
                /* XDP carries a label but does not compare one. */
                if (why) {
                    ds_put_cstr(why, "ct() sets a label");
                }
                return false;
            }
            break;
        }
        case OVS_CT_ATTR_FORCE_COMMIT:
            /* Ends a connection that is in the other direction. */
            if (why) {
                ds_put_cstr(why, "ct(force_commit)");
            }
            return false;
        case OVS_CT_ATTR_HELPER:
            /* A helper (FTP, TFTP) reads every packet's payload. */
            if (why) {
                ds_put_cstr(why, "ct() with a helper");
            }
            return false;
        case OVS_CT_ATTR_EVENTMASK:
        case OVS_CT_ATTR_TIMEOUT:
            /* Kernel events, and a timeout policy that only a new
             * connection takes. */
            break;
        case OVS_CT_ATTR_UNSPEC:
        case __OVS_CT_ATTR_MAX:
        default:
            if (why) {
                ds_put_format(why, "ct() attribute %"PRIu16,
                              nl_attr_type(b));
            }
            return false;
        }
    }
    if (xa->ct.mark_mask && !(xa->ct.flags & XDP_DP_CT_F_COMMIT)) {
        xa->ct.mark = xa->ct.mark_mask = 0;
    }
    return true;
}

/* Compiles the ODP action 'a' into 'xa', which the caller zeroed.  Returns
 * true if successful.  If 'a' has no XDP equivalent, returns false and, if
 * its reason is more specific than "unsupported action", appends it to
 * 'why' (if nonnull), otherwise leaves 'why' alone. */
static bool
xdp_action_compile__(const struct nlattr *a, struct xdp_dp_action *xa,
                     struct ds *why)
{
    enum ovs_action_attr type = nl_attr_type(a);
    struct xdp_set_attr set;

    switch (type) {
    case OVS_ACTION_ATTR_OUTPUT:
        if (!xdp_action_check_size(a, sizeof(uint32_t), "output", why)) {
            return false;
        }
        xa->type = XDP_DP_ACTION_OUTPUT;
        xa->output.port = nl_attr_get_u32(a);
        return true;

    case OVS_ACTION_ATTR_PUSH_VLAN: {
        const struct ovs_action_push_vlan *push;

        if (!xdp_action_check_size(a, sizeof *push, "push_vlan", why)) {
            return false;
        }
        push = nl_attr_get(a);
        if (!eth_type_vlan(push->vlan_tpid)) {
            if (why) {
                ds_put_format(why, "push_vlan with tpid %#06"PRIx16,
                              ntohs(push->vlan_tpid));
            }
            return false;
        }
        if (!(push->vlan_tci & htons(XDP_VLAN_CFI))) {
            if (why) {
                ds_put_cstr(why, "push_vlan without CFI");
            }
            return false;
        }
        xa->type = XDP_DP_ACTION_PUSH_VLAN;
        xa->vlan.tpid = push->vlan_tpid;
        xa->vlan.tci = push->vlan_tci;
        return true;
    }

    case OVS_ACTION_ATTR_POP_VLAN:
        if (!xdp_action_check_size(a, 0, "pop_vlan", why)) {
            return false;
        }
        xa->type = XDP_DP_ACTION_POP_VLAN;
        return true;

    case OVS_ACTION_ATTR_SET:
    case OVS_ACTION_ATTR_SET_MASKED:
        if (!xdp_set_attr_parse(a, type == OVS_ACTION_ATTR_SET_MASKED,
                                &set)) {
            if (why) {
                ds_put_cstr(why, "malformed set action");
            }
            return false;
        }
        return xdp_set_compile(&set, xa, why);

    case OVS_ACTION_ATTR_HASH: {
        const struct ovs_action_hash *hash;

        if (!xdp_action_check_size(a, sizeof *hash, "hash", why)) {
            return false;
        }
        hash = nl_attr_get(a);
        if (hash->hash_alg != OVS_HASH_ALG_L4) {
            if (why) {
                ds_put_format(why, "hash algorithm %s (only l4 in XDP)",
                              (hash->hash_alg == OVS_HASH_ALG_SYM_L4
                               ? "sym_l4" : "unknown"));
            }
            return false;
        }
        xa->type = XDP_DP_ACTION_HASH;
        xa->hash.basis = hash->hash_basis;
        return true;
    }

    case OVS_ACTION_ATTR_RECIRC:
        if (!xdp_action_check_size(a, sizeof(uint32_t), "recirc", why)) {
            return false;
        }
        xa->type = XDP_DP_ACTION_RECIRC;
        xa->recirc.id = nl_attr_get_u32(a);
        return true;

    case OVS_ACTION_ATTR_METER:
        if (!xdp_action_check_size(a, sizeof(uint32_t), "meter", why)) {
            return false;
        }
        xa->type = XDP_DP_ACTION_METER;
        xa->meter.id = nl_attr_get_u32(a);
        return true;

    case OVS_ACTION_ATTR_CT:
        return xdp_ct_compile(a, xa, why);

    case OVS_ACTION_ATTR_CT_CLEAR:
        xa->type = XDP_DP_ACTION_CT_CLEAR;
        return true;

    case OVS_ACTION_ATTR_TUNNEL_POP:
        if (!xdp_action_check_size(a, sizeof(uint32_t), "tnl_pop", why)) {
            return false;
        }
        xa->type = XDP_DP_ACTION_TNL_POP;
        xa->tnl_pop.port = nl_attr_get_u32(a);
        return true;

    case OVS_ACTION_ATTR_UNSPEC:
    case OVS_ACTION_ATTR_USERSPACE:
    case OVS_ACTION_ATTR_SAMPLE:
    case OVS_ACTION_ATTR_PUSH_MPLS:
    case OVS_ACTION_ATTR_POP_MPLS:
    case OVS_ACTION_ATTR_TRUNC:
    case OVS_ACTION_ATTR_PUSH_ETH:
    case OVS_ACTION_ATTR_POP_ETH:
    case OVS_ACTION_ATTR_PUSH_NSH:
    case OVS_ACTION_ATTR_POP_NSH:
    case OVS_ACTION_ATTR_CLONE:
    case OVS_ACTION_ATTR_CHECK_PKT_LEN:
    case OVS_ACTION_ATTR_ADD_MPLS:
    case OVS_ACTION_ATTR_TUNNEL_PUSH:
    case OVS_ACTION_ATTR_DROP:
    case OVS_ACTION_ATTR_LB_OUTPUT:
    case __OVS_ACTION_ATTR_MAX:
    default:
        return false;
    }
}

/* Compiles the tnl_push() action 'a' into 'xa[0]', an
 * XDP_DP_ACTION_TNL_PUSH, and the XDP_DP_ACTION_DATA after it that hold
 * its header (see "Tunnels" in datapath/xdp-dp.h), with at most 'room'
 * actions.  XDP runs the push of UDP tunnels (VXLAN, VXLAN-GPE, Geneve)
 * over IPv4 or IPv6, with or without UDP checksums (datapath/xdp-dp-tnl.h),
 * and of GRE over IPv4 or IPv6 with Ethernet inside, a key or not, a
 * sequence number or not, but no checksum; other tunnels, and a header that
 * does not fit, stay in ovs-vswitchd, with the reason in 'why' (if
 * nonnull).  Sets '*no_gso' if the push cannot run in XDP on a GSO segment
 * (a UDP tunnel over IPv6, GRE with a sequence number: see
 * XDP_FLOW_F_NO_GSO).  Returns the number of actions used, or 0. */
static size_t
xdp_tnl_push_compile(const struct nlattr *a, struct xdp_dp_action *xa,
                     size_t room, bool *no_gso, struct ds *why)
{
    size_t base = offsetof(struct ovs_action_push_tnl, header);
    const struct ovs_action_push_tnl *data = nl_attr_get(a);
    const uint8_t *hdr = (const uint8_t *) data->header;
    const char *bad = NULL;
    size_t n_data;

    /* OVS builds GRE over IPv6 for port types "ip6gre" and "gre" alike,
     * and says which in 'tnl_type' (netdev_gre_build_header()). */
    bool ip6 = hdr[12] == 0x86 && hdr[13] == 0xdd;
    bool gre = (data->tnl_type == (ip6 ? OVS_VPORT_TYPE_IP6GRE
                                   : OVS_VPORT_TYPE_GRE));
    size_t l4 = ETH_HEADER_LEN + (ip6 ? IPV6_HEADER_LEN : IP_HEADER_LEN);

    if (nl_attr_get_size(a) < base
        || nl_attr_get_size(a) != base + data->header_len) {
        bad = "is malformed";
    } else if (data->tnl_type != OVS_VPORT_TYPE_VXLAN
               && data->tnl_type != OVS_VPORT_TYPE_GENEVE && !gre) {
        bad = "to a tunnel other than VXLAN, Geneve or GRE";
    } else if (data->header_len < XDP_DP_TNL_MIN_HDR
               || data->header_len > XDP_DP_TNL_MAX_HDR
               || data->header_len < l4 + (gre ? 4 : UDP_HEADER_LEN)) {
        bad = "with a header too short or too long";
    } else if (ip6
               ? (hdr[14] >> 4 != 6
                  || hdr[20] != (gre ? IPPROTO_GRE : IPPROTO_UDP))
               : (hdr[12] != 0x08 || hdr[13] != 0x00 || hdr[14] != 0x45
                  || hdr[23] != (gre ? IPPROTO_GRE : IPPROTO_UDP))) {
        /* Ethernet, then IPv4 without options or IPv6 without extension
         * headers, then UDP or GRE: where xdp-dp-tnl.h looks for the
         * lengths and the source port. */
        bad = "over a network other than IPv4 or IPv6";
    } else if (gre && (hdr[l4] & ~0x30 || hdr[l4 + 1]
                       || hdr[l4 + 2] != 0x65 || hdr[l4 + 3] != 0x58)) {
        /* Flags but K and S (the C flag: a checksum over the packet, which
         * the TC half cannot make for a GSO segment), a version, or
         * anything but Ethernet inside, which the TC half's GSO flags
         * would misdescribe. */
        bad = "of GRE with a checksum or no Ethernet";
    } else if (gre && data->header_len != (l4 + 4 + (hdr[l4] & 0x20 ? 4 : 0)
                                           + (hdr[l4] & 0x10 ? 4 : 0))) {
        /* The sequence number is then the header's last 4 bytes, where
         * tnl_assemble() writes it. */
        bad = "of GRE with a header of the wrong length";
    } else if (gre && hdr[l4] & 0x10
               && (!odp_to_u32(data->tnl_port)
                   || odp_to_u32(data->tnl_port) >= XDP_DP_MAX_PORTS)) {
        bad = "of GRE with a sequence number, from a port out of range";
    }
    n_data = DIV_ROUND_UP(data->header_len, 32);
    if (!bad && room < 1 + n_data) {
        bad = "with too many actions around it";
    }
    if (bad) {
        if (why) {
            ds_put_format(why, "tnl_push %s", bad);
        }
        return 0;
    }

    xa[0].type = XDP_DP_ACTION_TNL_PUSH;
    xa[0].tnl_push.len = data->header_len;
    xa[0].tnl_push.port_min = tnl_udp_port_min;
    xa[0].tnl_push.port_max = tnl_udp_port_max;
    /* GRE's S flag: a sequence number from the port's count, which
     * dp_xdp_tnl_push() shares. */
    xa[0].tnl_push.seq_port = (gre && hdr[l4] & 0x10
                               ? odp_to_u32(data->tnl_port) : 0);
    for (size_t k = 0; k < n_data; k++) {
        size_t ofs = k + 1 < n_data ? 32 * k : data->header_len - 32;

        xa[1 + k].type = XDP_DP_ACTION_DATA;
        memcpy(xa[1 + k].data, hdr + ofs, 32);
    }
    /* OVS gives every UDP tunnel over IPv6 a checksum (udp_build_header()),
     * which the TC half cannot make for a GSO segment; and the kernel would
     * copy one sequence number into every piece of one, as Linux's own GRE
     * devices with sequence numbers avoid by offering no GSO at all. */
    *no_gso = (ip6 && !gre) || xa[0].tnl_push.seq_port;
    return 1 + n_data;
}

/* Compiles the sample() action 'a' (or a bare sampling userspace(), see
 * xdp_userspace_is_sampling()), the flow's sample() number 'index', into
 * '*xa'.  Returns true if successful, false (with a reason in 'why',
 * if nonnull) if 'a' is malformed. */
static bool
xdp_sample_compile(const struct nlattr *a, uint32_t index,
                   struct xdp_dp_action *xa, struct ds *why)
{
    static const struct nl_policy policy[] = {
        [OVS_SAMPLE_ATTR_PROBABILITY] = { .type = NL_A_U32 },
        [OVS_SAMPLE_ATTR_ACTIONS] = { .type = NL_A_NESTED },
    };
    struct nlattr *attrs[ARRAY_SIZE(policy)];

    if (nl_attr_type(a) == OVS_ACTION_ATTR_USERSPACE) {
        /* A bare sampling userspace(): a sample() that always draws. */
        xa->type = XDP_DP_ACTION_SAMPLE;
        xa->sample.probability = UINT32_MAX;
        xa->sample.index = index;
        return true;
    }
    if (!nl_parse_nested(a, policy, attrs, ARRAY_SIZE(policy))) {
        if (why) {
            ds_put_cstr(why, "malformed sample");
        }
        return false;
    }
    xa->type = XDP_DP_ACTION_SAMPLE;
    xa->sample.probability = nl_attr_get_u32(
        attrs[OVS_SAMPLE_ATTR_PROBABILITY]);
    xa->sample.index = index;
    return true;
}

/* Whether 'a' is a userspace() action with one of ofproto's sampling
 * cookies (sFlow, bridge IPFIX, flow-based IPFIX).  ofproto emits those
 * bare, without a sample() around them, when the probability is 1
 * (sampling=1 on the bridge, probability=65535 in an OpenFlow sample
 * action): XDP runs such an action as a sample() that always draws.  A
 * userspace() with any other cookie stays in ovs-vswitchd: a controller's
 * packet-in needs the whole packet, which a sample copy
 * (XDP_DP_SAMPLE_MAX_COPY) may not hold, and a slow-path cookie is there
 * to send every packet up. */
static bool
xdp_userspace_is_sampling(const struct nlattr *a)
{
    const struct nlattr *userdata;
    struct user_action_cookie cookie;

    if (nl_attr_type(a) != OVS_ACTION_ATTR_USERSPACE) {
        return false;
    }
    userdata = nl_attr_find_nested(a, OVS_USERSPACE_ATTR_USERDATA);
    if (!userdata || nl_attr_get_size(userdata) != sizeof cookie) {
        return false;
    }
    memcpy(&cookie, nl_attr_get(userdata), sizeof cookie);
    return (cookie.type == USER_ACTION_COOKIE_SFLOW
            || cookie.type == USER_ACTION_COOKIE_IPFIX
            || cookie.type == USER_ACTION_COOKIE_FLOW_SAMPLE);
}

/* Whether 'a' is an action that XDP runs as a sample(): a sample(), or a
 * bare sampling userspace() (xdp_userspace_is_sampling()). */
static bool
xdp_action_is_sample(const struct nlattr *a)
{
    return (nl_attr_type(a) == OVS_ACTION_ATTR_SAMPLE
            || xdp_userspace_is_sampling(a));
}

/* Appends to 'why' (if nonnull) 'prefix' followed by ODP action 'a' in
 * ODP syntax.  'left' is the number of bytes from 'a' to the end of the
 * actions. */
static void
xdp_why_action(struct ds *why, const char *prefix, const struct nlattr *a,
               size_t left)
{
    if (why) {
        ds_put_cstr(why, prefix);
        format_odp_actions(why, a, nl_attr_len_pad(a, left), NULL);
    }
}

static void xdp_actions_compile__(const struct nlattr *, size_t,
                                  struct xdp_flow *, struct ds *);
static bool xdp_check_pkt_len_compile(const struct nlattr *,
                                      struct xdp_flow *, size_t n_prefix,
                                      struct ds *why);

/* If the last of the 'actions_len' bytes of actions at 'actions' is a
 * clone(), returns in '*buf' the actions with the clone's own in its
 * place, and true; otherwise false.  A clone that nothing follows changes
 * a copy of the packet that nothing else sees afterwards, so its actions
 * can as well change the packet itself: ofproto wraps every output into a
 * tunnel in one ("clone(tnl_push(...),output:N)"). */
static bool
xdp_unwrap_last_clone(const struct nlattr *actions, size_t actions_len,
                      struct ofpbuf *buf)
{
    const struct nlattr *a, *last = NULL;
    size_t left;

    NL_ATTR_FOR_EACH (a, left, actions, actions_len) {
        last = a;
    }
    if (!last || left || nl_attr_type(last) != OVS_ACTION_ATTR_CLONE) {
        return false;
    }
    ofpbuf_init(buf, actions_len);
    ofpbuf_put(buf, actions,
               (const uint8_t *) last - (const uint8_t *) actions);
    ofpbuf_put(buf, nl_attr_get(last), nl_attr_get_size(last));
    return true;
}

void
xdp_actions_compile(const struct nlattr *actions, size_t actions_len,
                    struct xdp_flow *flow, struct ds *why_slow)
{
    struct ofpbuf unwrapped;

    if (xdp_unwrap_last_clone(actions, actions_len, &unwrapped)) {
        xdp_actions_compile(unwrapped.data, unwrapped.size, flow, why_slow);
        ofpbuf_uninit(&unwrapped);
        return;
    }
    xdp_actions_compile__(actions, actions_len, flow, why_slow);
}

bool
xdp_actions_get_sample(const struct nlattr *actions, size_t actions_len,
                       uint32_t index, struct ofpbuf *nested)
{
    const struct nlattr *a;
    struct ofpbuf unwrapped;
    uint32_t n = 0;
    size_t left;

    if (xdp_unwrap_last_clone(actions, actions_len, &unwrapped)) {
        bool found = xdp_actions_get_sample(unwrapped.data, unwrapped.size,
                                            index, nested);
        ofpbuf_uninit(&unwrapped);
        return found;
    }
    NL_ATTR_FOR_EACH (a, left, actions, actions_len) {
        if (xdp_action_is_sample(a) && n++ == index) {
            const struct nlattr *b;
            size_t left2;

            if (nl_attr_type(a) == OVS_ACTION_ATTR_USERSPACE) {
                ofpbuf_put(nested, a, NLA_ALIGN(a->nla_len));
                return true;
            }

            NL_NESTED_FOR_EACH (b, left2, a) {
                if (nl_attr_type(b) == OVS_SAMPLE_ATTR_ACTIONS) {
                    ofpbuf_put(nested, nl_attr_get(b), nl_attr_get_size(b));
                    return true;
                }
            }
            return false;
        }
    }
    return false;
}

/* Compiles check_pkt_len() 'a', the last of a flow's actions, into 'flow',
 * which holds the 'n_prefix' XDP actions compiled from those before it:
 * XDP_DP_ACTION_CHECK_PKT_LEN, then those, then the le() branch (see
 * "Packet length checks" in datapath/xdp-dp.h).  A gt() without actions
 * drops in XDP; any other, and an le() that XDP cannot run (or that nests
 * a sample() or another check_pkt_len(), which ovs-vswitchd could not find
 * again), sends the packets that take it to ovs-vswitchd.  Returns true if
 * successful, otherwise false with the reason in 'why' (if nonnull). */
static bool
xdp_check_pkt_len_compile(const struct nlattr *a, struct xdp_flow *flow,
                          size_t n_prefix, struct ds *why)
{
    static const struct nl_policy policy[] = {
        [OVS_CHECK_PKT_LEN_ATTR_PKT_LEN] = { .type = NL_A_U16 },
        [OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER] = { .type = NL_A_NESTED },
        [OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL]
            = { .type = NL_A_NESTED },
    };
    struct nlattr *attrs[ARRAY_SIZE(policy)];
    const struct nlattr *gt, *le;
    struct xdp_dp_action marker;
    struct xdp_flow branch;
    uint8_t flags = 0;

    if (!nl_parse_nested(a, policy, attrs, ARRAY_SIZE(attrs))) {
        if (why) {
            ds_put_cstr(why, "malformed check_pkt_len");
        }
        return false;
    }
    if (flow->action_bits & (1u << XDP_DP_ACTION_CT
                             | 1u << XDP_DP_ACTION_TNL_PUSH)) {
        /* The ct() and tnl_push code of the program expect their actions
         * where the compiler put them, not one place later. */
        if (why) {
            ds_put_cstr(why, "check_pkt_len after ct() or tnl_push");
        }
        return false;
    }

    gt = attrs[OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER];
    le = attrs[OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL];
    flags |= (nl_attr_get_size(gt) ? XDP_DP_CPL_F_GT_SLOW
              : XDP_DP_CPL_F_GT_DROP);
    xdp_actions_compile(nl_attr_get(le), nl_attr_get_size(le), &branch, NULL);
    if (branch.flags & XDP_FLOW_F_SLOW_PATH
        || branch.action_bits & (1u << XDP_DP_ACTION_CHECK_PKT_LEN
                                 | 1u << XDP_DP_ACTION_SAMPLE)) {
        flags |= XDP_DP_CPL_F_LE_SLOW;
        branch.n_actions = 0;
        branch.action_bits = 0;
    }
    if (flags == (XDP_DP_CPL_F_LE_SLOW | XDP_DP_CPL_F_GT_SLOW)) {
        if (why) {
            ds_put_cstr(why, "neither branch of check_pkt_len runs in XDP");
        }
        return false;
    }
    if (1 + n_prefix + branch.n_actions > XDP_FLOW_MAX_ACTIONS) {
        if (why) {
            ds_put_format(why, "check_pkt_len: more than %d actions",
                          XDP_FLOW_MAX_ACTIONS);
        }
        return false;
    }

    /* What the actions before the check add to the frame, which dpif-netdev
     * counts and XDP, checking first, must add in (see "Packet length
     * checks" in datapath/xdp-dp.h). */
    int grow = 0;
    for (size_t i = 0; i < n_prefix; i++) {
        uint32_t type = flow->actions[i].type;

        if (type == XDP_DP_ACTION_PUSH_VLAN) {
            grow += VLAN_HEADER_LEN;
        } else if (type == XDP_DP_ACTION_POP_VLAN) {
            grow -= VLAN_HEADER_LEN;
        } else if (type == XDP_DP_ACTION_TRUNC) {
            if (why) {
                ds_put_cstr(why, "check_pkt_len after trunc");
            }
            return false;
        }
    }

    memset(&marker, 0, sizeof marker);
    marker.type = XDP_DP_ACTION_CHECK_PKT_LEN;
    marker.check_len.grow = grow;
    marker.check_len.len = nl_attr_get_u16(
        attrs[OVS_CHECK_PKT_LEN_ATTR_PKT_LEN]);
    marker.check_len.flags = flags;
    memmove(&flow->actions[1], flow->actions, n_prefix * sizeof marker);
    flow->actions[0] = marker;
    memcpy(&flow->actions[1 + n_prefix], branch.actions,
           branch.n_actions * sizeof marker);
    flow->n_actions = 1 + n_prefix + branch.n_actions;
    flow->action_bits |= (branch.action_bits
                          | 1u << XDP_DP_ACTION_CHECK_PKT_LEN);
    flow->flags |= branch.flags & XDP_FLOW_F_NO_GSO;
    return true;
}

static void
xdp_actions_compile__(const struct nlattr *actions, size_t actions_len,
                      struct xdp_flow *flow, struct ds *why_slow)
{
    const struct nlattr *a;
    size_t n_actions = 0;
    size_t n_outputs = 0;
    size_t n_samples = 0;
    size_t first_output = 0;
    bool pushed = false;
    uint32_t priority = 0;      /* The last set(skb_priority(...)). */
    uint32_t trunc = 0;         /* A trunc()'s length, if nonzero... */
    bool trunc_next = false;    /* ...that the next output takes... */
    struct xdp_dp_action trunc_output;  /* ...which is this, last. */
    size_t left;

    memset(flow->actions, 0, sizeof flow->actions);
    flow->flags = 0;
    flow->n_actions = 0;
    flow->action_bits = 0;
    flow->pad = 0;

    NL_ATTR_FOR_EACH (a, left, actions, actions_len) {
        struct xdp_dp_action *xa = &flow->actions[n_actions];
        size_t why_len = why_slow ? why_slow->length : 0;
        uint32_t prev_type = (n_actions ? flow->actions[n_actions - 1].type
                              : 0);

        if (prev_type == XDP_DP_ACTION_RECIRC) {
            xdp_why_action(why_slow, "actions after recirc: ", a, left);
            goto slow;
        }
        if (prev_type == XDP_DP_ACTION_TNL_POP
            || (n_actions && nl_attr_type(a) == OVS_ACTION_ATTR_TUNNEL_POP)) {
            /* XDP pops only for a flow that does nothing else, as ofproto
             * makes them. */
            xdp_why_action(why_slow, "tnl_pop with other actions: ", a,
                           left);
            goto slow;
        }
        if (nl_attr_type(a) == OVS_ACTION_ATTR_CT
            && flow->action_bits & (1u << XDP_DP_ACTION_CT)) {
            /* XDP looks one connection up per pass
             * (datapath/xdp-dp-ct.h). */
            xdp_why_action(why_slow, "second ct: ", a, left);
            goto slow;
        }
        if (nl_attr_type(a) == OVS_ACTION_ATTR_CT
            && flow->action_bits & XDP_CT_TUPLE_REWRITES) {
            /* XDP looks the connection up by the tuple the packet had
             * when its flow matched (datapath/xdp-dp-ct.h). */
            xdp_why_action(why_slow, "ct after an address or port "
                           "rewrite: ", a, left);
            goto slow;
        }
        if (prev_type == XDP_DP_ACTION_HASH
            && nl_attr_type(a) != OVS_ACTION_ATTR_RECIRC) {
            xdp_why_action(why_slow, "hash not followed by recirc: ", a,
                           left);
            goto slow;
        }
        if (trunc_next && nl_attr_type(a) != OVS_ACTION_ATTR_OUTPUT) {
            xdp_why_action(why_slow, "trunc not followed by an output: ", a,
                           left);
            goto slow;
        }
        if (n_outputs && nl_attr_type(a) != OVS_ACTION_ATTR_OUTPUT
            && !xdp_action_is_sample(a)
            && nl_attr_type(a) != OVS_ACTION_ATTR_TRUNC) {
            xdp_why_action(why_slow, "action after output: ", a, left);
            goto slow;
        }
        if (pushed
            && (n_outputs || nl_attr_type(a) != OVS_ACTION_ATTR_OUTPUT)) {
            /* XDP ends a push with the flow's one output
             * (datapath/xdp-dp-tnl.h). */
            xdp_why_action(why_slow, "action after tnl_push and its "
                           "output: ", a, left);
            goto slow;
        }
        if (n_outputs >= XDP_DP_MAX_OUTPUTS) {
            if (why_slow) {
                ds_put_format(why_slow, "more than %d outputs",
                              XDP_DP_MAX_OUTPUTS);
            }
            goto slow;
        }
        if (n_actions >= XDP_FLOW_MAX_ACTIONS) {
            if (why_slow) {
                ds_put_format(why_slow, "more than %d actions",
                              XDP_FLOW_MAX_ACTIONS);
            }
            goto slow;
        }
        enum ovs_action_attr atype = nl_attr_type(a);
        struct xdp_set_attr set;
        if (atype == OVS_ACTION_ATTR_CHECK_PKT_LEN) {
            if (nl_attr_len_pad(a, left) != left) {
                xdp_why_action(why_slow, "actions after check_pkt_len: ",
                               a, left);
                goto slow;
            }
            if (priority) {
                xdp_why_action(why_slow, "skb_priority before ", a, left);
                goto slow;
            }
            if (!xdp_check_pkt_len_compile(a, flow, n_actions, why_slow)) {
                goto slow;
            }
            return;
        }
        if ((atype == OVS_ACTION_ATTR_SET
             || atype == OVS_ACTION_ATTR_SET_MASKED)
            && xdp_set_attr_parse(a, atype == OVS_ACTION_ATTR_SET_MASKED,
                                  &set)
            && set.type == OVS_KEY_ATTR_PRIORITY) {
            /* set_queue: for the outputs' qdiscs (see "Queues and
             * truncation" in datapath/xdp-dp.h).  It changes nothing in
             * the frame, so it waits for the first output. */
            if (set.size != sizeof priority
                || (set.mask && get_unaligned_u32(set.mask) != UINT32_MAX)) {
                xdp_why_action(why_slow, "partial skb_priority: ", a, left);
                goto slow;
            }
            if (trunc) {
                /* Both would take the same place (see "Queues and
                 * truncation" in datapath/xdp-dp.h). */
                xdp_why_action(why_slow, "skb_priority with a trunc: ", a,
                               left);
                goto slow;
            }
            priority = get_unaligned_u32(set.key);
            continue;
        }
        if (atype == OVS_ACTION_ATTR_TRUNC) {
            /* For the next output only, which goes last (see "Queues and
             * truncation" in datapath/xdp-dp.h). */
            const struct ovs_action_trunc *t = nl_attr_get(a);

            if (nl_attr_get_size(a) != sizeof *t || trunc || priority) {
                xdp_why_action(why_slow, (trunc || priority
                                          ? "trunc with another trunc or an "
                                            "skb_priority: "
                                          : "malformed "), a, left);
                goto slow;
            }
            trunc = MAX(t->max_len, 1);
            trunc_next = true;
            continue;
        }
        if (trunc_next) {
            /* The output that trunc() applies to: at the end. */
            memset(&trunc_output, 0, sizeof trunc_output);
            if (!xdp_action_compile__(a, &trunc_output, why_slow)) {
                goto slow;
            }
            if (!n_outputs++) {
                first_output = n_actions;
            }
            trunc_next = false;
            continue;
        }
        if (priority
            && (atype == OVS_ACTION_ATTR_TUNNEL_PUSH
                || atype == OVS_ACTION_ATTR_RECIRC
                || atype == OVS_ACTION_ATTR_CT)) {
            /* The priority would have to outlive the flow's own
             * outputs. */
            xdp_why_action(why_slow, "skb_priority before ", a, left);
            goto slow;
        }
        if (priority && atype == OVS_ACTION_ATTR_OUTPUT && !n_outputs) {
            /* Just before the outputs, where XDP reads it. */
            if (n_actions + 1 >= XDP_FLOW_MAX_ACTIONS) {
                if (why_slow) {
                    ds_put_format(why_slow, "more than %d actions",
                                  XDP_FLOW_MAX_ACTIONS);
                }
                goto slow;
            }
            xa->type = XDP_DP_ACTION_SET_PRIORITY;
            xa->priority.value = priority;
            flow->action_bits |= 1u << XDP_DP_ACTION_SET_PRIORITY;
            first_output = n_actions++;
            xa++;
        }
        if (atype == OVS_ACTION_ATTR_TUNNEL_PUSH) {
            /* One of the first four actions: see tnl_assemble(). */
            bool no_gso = false;
            size_t k = (n_actions < 4
                        ? xdp_tnl_push_compile(a, xa,
                                               XDP_FLOW_MAX_ACTIONS - 1
                                               - n_actions, &no_gso,
                                               why_slow)
                        : 0);
            if (!k) {
                if (why_slow && why_slow->length == why_len) {
                    xdp_why_action(why_slow, "tnl_push after too many "
                                   "actions: ", a, left);
                }
                goto slow;
            }
            flow->action_bits |= 1u << XDP_DP_ACTION_TNL_PUSH;
            if (no_gso) {
                flow->flags |= XDP_FLOW_F_NO_GSO;
            }
            n_actions += k;
            pushed = true;
            continue;
        }
        if (xdp_action_is_sample(a)) {
            if (n_outputs) {
                /* Between outputs, as ofproto puts IPFIX's output
                 * sampling: XDP makes every output at the end, from the
                 * frame that sample() would see here too, so the
                 * sample() goes before the first output, where XDP runs
                 * actions. */
                xa = &flow->actions[first_output];
                memmove(xa + 1, xa, (n_actions - first_output) * sizeof *xa);
                memset(xa, 0, sizeof *xa);
                first_output++;
            }
            if (!xdp_sample_compile(a, n_samples++, xa, why_slow)) {
                goto slow;
            }
            flow->action_bits |= 1u << XDP_DP_ACTION_SAMPLE;
            n_actions++;
            continue;
        }
        if ((atype == OVS_ACTION_ATTR_SET
             || atype == OVS_ACTION_ATTR_SET_MASKED)
            && xdp_set_attr_parse(a, atype == OVS_ACTION_ATTR_SET_MASKED,
                                  &set)
            && set.type == OVS_KEY_ATTR_IPV6) {
            size_t k = xdp_set_ipv6_compile(&set, xa,
                                            XDP_FLOW_MAX_ACTIONS - n_actions,
                                            why_slow);
            if (!k) {
                if (why_slow && why_slow->length == why_len) {
                    xdp_why_action(why_slow, "unsupported action ", a, left);
                }
                goto slow;
            }
            for (size_t j = 0; j < k; j++) {
                flow->action_bits |= 1u << xa[j].type;
            }
            n_actions += k;
            continue;
        }
        if (!xdp_action_compile__(a, xa, why_slow)) {
            if (why_slow && why_slow->length == why_len) {
                xdp_why_action(why_slow, "unsupported action ", a, left);
            }
            goto slow;
        }
        if (xa->type == XDP_DP_ACTION_CT && xa->ct.flags & XDP_DP_CT_F_NAT
            && (n_samples > 1
                || (n_samples && flow->actions[0].type
                                 != XDP_DP_ACTION_SAMPLE))) {
            /* XDP makes a ct()'s NAT before the actions run, and a sample()
             * before it must see the packet without it: XDP draws one there
             * only as the first action (see execute() in xdp-dp-execute.h). */
            xdp_why_action(why_slow, "ct(nat) after a sample() that is "
                           "not the first action: ", a, left);
            goto slow;
        }
        if (xa->type == XDP_DP_ACTION_OUTPUT && !n_outputs++
            && !(flow->action_bits & (1u << XDP_DP_ACTION_SET_PRIORITY))) {
            /* (Or the priority before it: the first of the block that
             * a sample() among the outputs must go before.) */
            first_output = n_actions;
        }
        flow->action_bits |= 1u << xa->type;
        n_actions++;
    }
    if (left) {
        if (why_slow) {
            ds_put_format(why_slow, "%"PRIuSIZE" bytes of malformed actions",
                          left);
        }
        goto slow;
    }
    if (trunc_next) {
        if (why_slow) {
            ds_put_cstr(why_slow, "trunc not followed by an output");
        }
        goto slow;
    }
    if (trunc) {
        /* The marker before the outputs, the cut output after them. */
        if (n_actions + 2 > XDP_FLOW_MAX_ACTIONS
            || n_outputs >= XDP_DP_MAX_OUTPUTS) {
            if (why_slow) {
                ds_put_format(why_slow, "trunc with more than %d actions or "
                              "%d outputs", XDP_FLOW_MAX_ACTIONS - 2,
                              XDP_DP_MAX_OUTPUTS - 1);
            }
            goto slow;
        }
        struct xdp_dp_action *xa = &flow->actions[first_output];

        memmove(xa + 1, xa, (n_actions - first_output) * sizeof *xa);
        memset(xa, 0, sizeof *xa);
        xa->type = XDP_DP_ACTION_TRUNC;
        xa->trunc.max_len = trunc;
        flow->actions[n_actions + 1] = trunc_output;
        n_actions += 2;
        flow->action_bits |= (1u << XDP_DP_ACTION_TRUNC
                              | 1u << XDP_DP_ACTION_OUTPUT);
    }
    if (flow->action_bits & (1u << XDP_DP_ACTION_SET_PRIORITY)
        && n_outputs >= XDP_DP_MAX_OUTPUTS) {
        /* The priority takes the last output's place in the TC half's
         * metadata. */
        if (why_slow) {
            ds_put_format(why_slow, "skb_priority with %d outputs",
                          XDP_DP_MAX_OUTPUTS);
        }
        goto slow;
    }
    if (pushed && !n_outputs) {
        if (why_slow) {
            ds_put_cstr(why_slow, "tnl_push without an output");
        }
        goto slow;
    }
    if (flow->action_bits & (1u << XDP_DP_ACTION_CT)
        && flow->action_bits & (1u << XDP_DP_ACTION_CT_CLEAR)) {
        /* XDP hands a ct()'s results to the next pass whatever comes
         * between (do_recirc()); ofproto never puts the two in one
         * list, since a ct() ends it with its recirc. */
        if (why_slow) {
            ds_put_cstr(why_slow, "ct_clear in a flow with a ct()");
        }
        goto slow;
    }
    if (n_actions && flow->actions[n_actions - 1].type == XDP_DP_ACTION_HASH) {
        if (why_slow) {
            ds_put_cstr(why_slow, "hash not followed by recirc");
        }
        goto slow;
    }

    flow->n_actions = n_actions;
    if (n_outputs > 1) {
        flow->action_bits |= XDP_DP_ACTION_F_OUTPUTS;
    }
    return;

slow:
    memset(flow->actions, 0, sizeof flow->actions);
    flow->flags = XDP_FLOW_F_SLOW_PATH;
    flow->n_actions = 0;
    flow->action_bits = 0;
}
