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

/* Formatting XDP actions, for "dpctl/dump-flows -m" (dp-extra-info) and
 * the tests: one "name(arguments)" per compiled action, as close to the
 * ODP action it came from as the XDP form allows, with masks shown only
 * where they are not all ones. */

#include <config.h>

#include "ofproto-xdp/xdp-actions.h"

#include <inttypes.h>
#include <string.h>

#include "datapath/xdp-dp.h"
#include "openvswitch/dynamic-string.h"
#include "packets.h"
#include "util.h"

/* Appends to 's' ",NAME=" ("NAME=" if '*first') and 'value' with 'mask'
 * as an Ethernet address, if 'mask' is not all zeros. */
static void
xdp_format_eth(struct ds *s, bool *first, const char *name,
               const uint8_t value[6], const uint8_t mask[6])
{
    struct eth_addr v, m;

    memcpy(v.ea, value, 6);
    memcpy(m.ea, mask, 6);
    if (!eth_addr_is_zero(m)) {
        ds_put_format(s, "%s%s=", *first ? "" : ",", name);
        eth_format_masked(v, &m, s);
        *first = false;
    }
}

/* Appends to 's' ",NAME=" ("NAME=" if '*first') and the IPv4 address
 * 'value' with 'mask', if 'mask' is nonzero. */
static void
xdp_format_ip(struct ds *s, bool *first, const char *name,
              ovs_be32 value, ovs_be32 mask)
{
    if (mask) {
        ds_put_format(s, "%s%s=", *first ? "" : ",", name);
        ip_format_masked(value, mask, s);
        *first = false;
    }
}

/* Appends to 's' ",NAME=" ("NAME=" if '*first') and 'value' in 'base' (10
 * or 16), followed by "/MASK" if 'mask' is not 'all_ones', if 'mask' is
 * nonzero. */
static void
xdp_format_uint(struct ds *s, bool *first, const char *name,
                unsigned int value, unsigned int mask, unsigned int all_ones,
                int base)
{
    if (mask) {
        ds_put_format(s, base == 16 ? "%s%s=%#x" : "%s%s=%u",
                      *first ? "" : ",", name, value);
        if (mask != all_ones) {
            ds_put_format(s, "/%#x", mask);
        }
        *first = false;
    }
}

/* Appends XDP action 'xa' to 's'. */
static void
xdp_action_format(struct ds *s, const struct xdp_dp_action *xa)
{
    bool first = true;

    switch ((enum xdp_dp_action_type) xa->type) {
    case XDP_DP_ACTION_OUTPUT:
        ds_put_format(s, "output:%"PRIu32, xa->output.port);
        break;

    case XDP_DP_ACTION_PUSH_VLAN:
        ds_put_cstr(s, "push_vlan(");
        if (xa->vlan.tpid != htons(ETH_TYPE_VLAN_8021Q)) {
            ds_put_format(s, "tpid=%#06"PRIx16",", ntohs(xa->vlan.tpid));
        }
        ds_put_format(s, "vid=%"PRIu16",pcp=%d", vlan_tci_to_vid(xa->vlan.tci),
                      vlan_tci_to_pcp(xa->vlan.tci));
        if (!(xa->vlan.tci & htons(XDP_VLAN_CFI))) {
            ds_put_cstr(s, ",cfi=0");
        }
        ds_put_char(s, ')');
        break;

    case XDP_DP_ACTION_POP_VLAN:
        ds_put_cstr(s, "pop_vlan");
        break;

    case XDP_DP_ACTION_SET_ETH:
        ds_put_cstr(s, "set_eth(");
        xdp_format_eth(s, &first, "src", xa->eth.src, xa->eth.src_mask);
        xdp_format_eth(s, &first, "dst", xa->eth.dst, xa->eth.dst_mask);
        ds_put_char(s, ')');
        break;

    case XDP_DP_ACTION_SET_IPV4:
        ds_put_cstr(s, "set_ipv4(");
        xdp_format_ip(s, &first, "src", xa->ipv4.src, xa->ipv4.src_mask);
        xdp_format_ip(s, &first, "dst", xa->ipv4.dst, xa->ipv4.dst_mask);
        xdp_format_uint(s, &first, "tos", xa->ipv4.tos, xa->ipv4.tos_mask,
                        UINT8_MAX, 16);
        xdp_format_uint(s, &first, "ttl", xa->ipv4.ttl, xa->ipv4.ttl_mask,
                        UINT8_MAX, 10);
        ds_put_char(s, ')');
        break;

    case XDP_DP_ACTION_SET_L4_PORTS:
        ds_put_format(s, "set_%s(",
                      (xa->l4.proto == IPPROTO_TCP ? "tcp"
                       : xa->l4.proto == IPPROTO_UDP ? "udp" : "l4"));
        xdp_format_uint(s, &first, "src", ntohs(xa->l4.src),
                        ntohs(xa->l4.src_mask), UINT16_MAX, 10);
        xdp_format_uint(s, &first, "dst", ntohs(xa->l4.dst),
                        ntohs(xa->l4.dst_mask), UINT16_MAX, 10);
        ds_put_char(s, ')');
        break;

    case XDP_DP_ACTION_SET_IPV6_ADDR: {
        struct in6_addr addr;

        memcpy(&addr, xa->ipv6_addr.addr, sizeof addr);
        ds_put_format(s, "set_ipv6(%s=", xa->ipv6_addr.dst ? "dst" : "src");
        ipv6_format_addr(&addr, s);
        ds_put_char(s, ')');
        break;
    }

    case XDP_DP_ACTION_SET_IPV6:
        ds_put_cstr(s, "set_ipv6(");
        xdp_format_uint(s, &first, "label", ntohl(xa->ipv6.label),
                        ntohl(xa->ipv6.label_mask), 0xfffff, 16);
        xdp_format_uint(s, &first, "tclass", xa->ipv6.tclass,
                        xa->ipv6.tclass_mask, UINT8_MAX, 16);
        xdp_format_uint(s, &first, "hlimit", xa->ipv6.hlimit,
                        xa->ipv6.hlimit_mask, UINT8_MAX, 10);
        ds_put_char(s, ')');
        break;

    case XDP_DP_ACTION_HASH:
        ds_put_format(s, "hash(l4(%"PRIu32"))", xa->hash.basis);
        break;

    case XDP_DP_ACTION_RECIRC:
        ds_put_format(s, "recirc(%#"PRIx32")", xa->recirc.id);
        break;

    case XDP_DP_ACTION_CT:
        ds_put_format(s, "ct(zone=%"PRIu16, xa->ct.zone);
        if (xa->ct.flags & XDP_DP_CT_F_COMMIT) {
            ds_put_cstr(s, ",commit");
        }
        if (xa->ct.flags & XDP_DP_CT_F_NAT) {
            ds_put_cstr(s, ",nat");
        }
        if (xa->ct.mark_mask) {
            ds_put_format(s, ",mark=%#"PRIx32"/%#"PRIx32,
                          xa->ct.mark, xa->ct.mark_mask);
        }
        ds_put_char(s, ')');
        break;

    case XDP_DP_ACTION_TNL_PUSH:
        ds_put_format(s, "tnl_push(len=%"PRIu16"%s)", xa->tnl_push.len,
                      xa->tnl_push.seq_port ? ",seq" : "");
        break;

    case XDP_DP_ACTION_DATA:
        ds_put_cstr(s, "data");
        break;

    case XDP_DP_ACTION_TNL_POP:
        ds_put_format(s, "tnl_pop(%"PRIu32")", xa->tnl_pop.port);
        break;

    case XDP_DP_ACTION_METER:
        ds_put_format(s, "meter(%"PRIu32")", xa->meter.id);
        break;

    case XDP_DP_ACTION_SAMPLE:
        ds_put_format(s, "sample(%.1f%%,#%"PRIu32")",
                      xa->sample.probability / (double) UINT32_MAX * 100,
                      xa->sample.index);
        break;

    case XDP_DP_ACTION_SET_PRIORITY:
        ds_put_format(s, "set_priority(%#"PRIx32")", xa->priority.value);
        break;

    case XDP_DP_ACTION_TRUNC:
        ds_put_format(s, "trunc(%"PRIu32")", xa->trunc.max_len);
        break;

    case XDP_DP_ACTION_CT_CLEAR:
        ds_put_cstr(s, "ct_clear");
        break;

    case XDP_DP_ACTION_CHECK_PKT_LEN:
        ds_put_format(s, "check_pkt_len(%"PRIu16, xa->check_len.len);
        if (xa->check_len.grow) {
            ds_put_format(s, ",grow:%+d", xa->check_len.grow);
        }
        ds_put_format(s, ",gt:%s%s)",
                      (xa->check_len.flags & XDP_DP_CPL_F_GT_DROP
                       ? "drop" : "slow-path"),
                      (xa->check_len.flags & XDP_DP_CPL_F_LE_SLOW
                       ? ",le:slow-path" : ""));
        break;

    default:
        ds_put_format(s, "unknown(%"PRIu32")", xa->type);
        break;
    }
}

void
xdp_actions_format(struct ds *s, const struct xdp_flow *flow)
{
    if (flow->flags & XDP_FLOW_F_SLOW_PATH) {
        ds_put_cstr(s, "slow-path");
        return;
    }

    ds_put_cstr(s, "xdp(");
    if (!flow->n_actions) {
        ds_put_cstr(s, "drop");
    }
    for (size_t i = 0; i < flow->n_actions && i < XDP_FLOW_MAX_ACTIONS; i++) {
        if (flow->actions[i].type == XDP_DP_ACTION_DATA) {
            continue;           /* Part of the action before it. */
        }
        if (i) {
            ds_put_char(s, ',');
        }
        xdp_action_format(s, &flow->actions[i]);
    }
    ds_put_char(s, ')');
}
