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

/* Choosing a port's attach mode by itself: other_config:xdp-mode=auto, the
 * default.
 *
 * Native XDP switches frames before the kernel builds an skb for them,
 * which makes it the fastest mode for small frames.  On a veth it has a
 * price that no other device makes us pay: attaching a native program to
 * one end makes the kernel take software GSO away from the other end
 * (veth_xdp_set() clears NETIF_F_GSO_SOFTWARE from the peer) and cap the
 * peer's MTU.  A container behind that veth loses TSO: its TCP sends
 * 1,448-byte segments, each one a trip through XDP, and a TCP stream moves
 * a third of what it moves across a Linux bridge.  Generic XDP leaves the
 * peer alone and sees a GSO segment as one packet, but the kernel copies
 * every nonlinear skb into one buffer first, which every GSO segment of a
 * local sender is: 0.70 of the bridge's TCP throughput at 4 streams.  The
 * TC pipeline (tc mode, datapath/tc-dp.bpf.c) switches the skb at TC
 * ingress as it arrives, with the same flow table and actions, and no
 * XDP program on the device at all: 1.04 of the bridge in the same run
 * (ovs-xdp-bench tcp).
 *
 * So 'auto' chooses tc mode for a veth whose peer runs no XDP program: a
 * network stack (a container's, or the host's side of an internal port)
 * that sends skbs, where native mode would cost it TSO and would save
 * nothing, since its frames are skbs before they reach us either way.  Everywhere else it asks for native mode and falls back to
 * generic where the driver has none (best-effort): on NICs, and on veths
 * whose peer runs XDP itself (an XDP program at the other end gets frames
 * that stay XDP frames both ways, and its stack has lost GSO to that
 * program already).
 *
 * The peer may live in another network namespace.  The veth's own link
 * message names the peer's ifindex (IFLA_LINK) and, if it is elsewhere,
 * the namespace's id as seen from ours (IFLA_LINK_NETNSID, which the
 * kernel assigns on demand); rtnetlink then answers for the peer when
 * asked with IFLA_TARGET_NETNSID.  Nothing enters the other namespace,
 * and nothing there is changed.  xdp_veth_peer_get() asks the same way for
 * what transmitting into the peer's ingress needs (its address and MTU;
 * see ofproto-xdp/dpif-xdp-peer.c).  We use raw rtnetlink through OVS's
 * netlink library because neither libbpf's bpf_xdp_query() nor OVS's
 * netdev-linux can ask about a device in another namespace. */

#include <config.h>

#include "dispatcher/xdp-attach.h"

#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>

#include "netlink.h"
#include "netlink-socket.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(xdp_auto_mode);

/* What a link message says about a device, as far as we need it. */
struct link_facts {
    char kind[16];              /* IFLA_INFO_KIND, e.g. "veth", or "". */
    int link;                   /* IFLA_LINK (a veth's peer), or 0. */
    int link_netnsid;           /* IFLA_LINK_NETNSID, or -1: same netns. */
    uint8_t xdp_attached;       /* IFLA_XDP_ATTACHED (XDP_ATTACHED_*). */
    struct eth_addr mac;        /* IFLA_ADDRESS, or all-zero. */
    int mtu;                    /* IFLA_MTU, or 0. */
};

/* Asks rtnetlink about device 'ifindex' in the namespace whose id (as seen
 * from ours) is 'netnsid', or in ours if 'netnsid' is -1.  Returns 0 and
 * fills in '*facts', or a positive errno. */
static int
get_link_facts(int ifindex, int netnsid, struct link_facts *facts)
{
    static const struct nl_policy link_policy[] = {
        [IFLA_LINK] = { .type = NL_A_U32, .optional = true },
        [IFLA_LINKINFO] = { .type = NL_A_NESTED, .optional = true },
        [IFLA_LINK_NETNSID] = { .type = NL_A_U32, .optional = true },
        [IFLA_XDP] = { .type = NL_A_NESTED, .optional = true },
        [IFLA_ADDRESS] = { .type = NL_A_UNSPEC, .optional = true },
        [IFLA_MTU] = { .type = NL_A_U32, .optional = true },
    };
    static const struct nl_policy info_policy[] = {
        [IFLA_INFO_KIND] = { .type = NL_A_STRING, .optional = true },
    };
    static const struct nl_policy xdp_policy[] = {
        [IFLA_XDP_ATTACHED] = { .type = NL_A_U8, .optional = true },
    };
    struct nlattr *attrs[ARRAY_SIZE(link_policy)];
    struct ofpbuf request, *reply;
    struct ifinfomsg *ifi;
    int error;

    memset(facts, 0, sizeof *facts);
    facts->link_netnsid = -1;

    ofpbuf_init(&request, 0);
    nl_msg_put_nlmsghdr(&request, 0, RTM_GETLINK, NLM_F_REQUEST);
    ifi = ofpbuf_put_zeros(&request, sizeof *ifi);
    ifi->ifi_family = AF_UNSPEC;
    ifi->ifi_index = ifindex;
    if (netnsid >= 0) {
        nl_msg_put_u32(&request, IFLA_TARGET_NETNSID, netnsid);
    }
    nl_msg_put_u32(&request, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
    error = nl_transact(NETLINK_ROUTE, &request, &reply);
    ofpbuf_uninit(&request);
    if (error) {
        return error;
    }

    if (!nl_policy_parse(reply, NLMSG_HDRLEN + sizeof *ifi, link_policy,
                         attrs, ARRAY_SIZE(link_policy))) {
        ofpbuf_delete(reply);
        return EPROTO;
    }
    if (attrs[IFLA_LINK]) {
        facts->link = nl_attr_get_u32(attrs[IFLA_LINK]);
    }
    if (attrs[IFLA_ADDRESS]
        && nl_attr_get_size(attrs[IFLA_ADDRESS]) == ETH_ADDR_LEN) {
        memcpy(&facts->mac, nl_attr_get(attrs[IFLA_ADDRESS]), ETH_ADDR_LEN);
    }
    if (attrs[IFLA_MTU]) {
        facts->mtu = nl_attr_get_u32(attrs[IFLA_MTU]);
    }
    if (attrs[IFLA_LINK_NETNSID]) {
        facts->link_netnsid = (int32_t) nl_attr_get_u32(
            attrs[IFLA_LINK_NETNSID]);
    }
    if (attrs[IFLA_LINKINFO]) {
        struct nlattr *info[ARRAY_SIZE(info_policy)];

        if (nl_parse_nested(attrs[IFLA_LINKINFO], info_policy, info,
                            ARRAY_SIZE(info_policy))
            && info[IFLA_INFO_KIND]) {
            ovs_strzcpy(facts->kind, nl_attr_get_string(info[IFLA_INFO_KIND]),
                        sizeof facts->kind);
        }
    }
    if (attrs[IFLA_XDP]) {
        struct nlattr *xdp[ARRAY_SIZE(xdp_policy)];

        if (nl_parse_nested(attrs[IFLA_XDP], xdp_policy, xdp,
                            ARRAY_SIZE(xdp_policy))
            && xdp[IFLA_XDP_ATTACHED]) {
            facts->xdp_attached = nl_attr_get_u8(xdp[IFLA_XDP_ATTACHED]);
        }
    }
    ofpbuf_delete(reply);
    return 0;
}

/* Resolves xdp-mode=auto for device 'name' with index 'ifindex' (see the
 * comment at the top of this file): returns XDP_ATTACH_TC or
 * XDP_ATTACH_BEST_EFFORT and replaces the contents of 'why' with the
 * reason, for dispatcher/show.  Returns XDP_ATTACH_AUTO, leaving 'why'
 * alone, if rtnetlink cannot show the device (it went away, say): the
 * caller keeps what it has, or attaches best-effort. */
enum xdp_attach_mode
xdp_auto_mode(const char *name, int ifindex, struct ds *why)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);
    struct link_facts dev, peer;
    int error;

    error = get_link_facts(ifindex, -1, &dev);
    if (error) {
        VLOG_RL(&rl, error == ENODEV ? VLL_DBG : VLL_WARN,
                "%s: cannot ask rtnetlink about the device (%s)", name,
                ovs_strerror(error));
        return XDP_ATTACH_AUTO;
    }
    ds_clear(why);
    if (strcmp(dev.kind, "veth")) {
        ds_put_cstr(why, "not a veth: native if the driver has it");
        return XDP_ATTACH_BEST_EFFORT;
    }
    if (!dev.link) {
        ds_put_cstr(why, "veth without a peer: native");
        return XDP_ATTACH_BEST_EFFORT;
    }
    error = get_link_facts(dev.link, dev.link_netnsid, &peer);
    if (error) {
        /* tc is the mode that loses nothing whatever the peer is. */
        ds_put_format(why, "veth whose peer rtnetlink cannot show (%s): "
                      "tc, so that the peer keeps TSO",
                      ovs_strerror(error));
        VLOG_WARN_RL(&rl, "%s: cannot ask rtnetlink about the veth's peer, "
                     "ifindex %d in netns id %d (%s)", name, dev.link,
                     dev.link_netnsid, ovs_strerror(error));
        return XDP_ATTACH_TC;
    }
    if (peer.xdp_attached != XDP_ATTACHED_NONE) {
        ds_put_cstr(why, "veth whose peer runs XDP: native");
        return XDP_ATTACH_BEST_EFFORT;
    }
    ds_put_cstr(why, "veth whose peer runs no XDP (a network stack): tc, "
                "so that the peer keeps TSO and GSO and its segments are "
                "not copied");
    return XDP_ATTACH_TC;
}

/* Finds out where the peer of veth 'ifindex' lives and what it is, for
 * bpf_redirect_peer() (see struct xdp_dp_peer in datapath/xdp-dp.h), with
 * the same rtnetlink requests as xdp_auto_mode().  Returns 0 and fills
 * in '*peer' if the device is a veth whose peer is in another namespace,
 * has an Ethernet address and runs no XDP program; otherwise returns a
 * positive errno and puts the reason in 'why': EOPNOTSUPP for a device
 * that is no veth with a peer (which it will never be), ENOENT for a veth
 * whose peer is not such a one now. */
int
xdp_veth_peer_get(int ifindex, struct xdp_veth_peer *peer, struct ds *why)
{
    struct link_facts dev, facts;
    int error;

    memset(peer, 0, sizeof *peer);  /* Callers compare them whole. */
    error = get_link_facts(ifindex, -1, &dev);
    if (error) {
        ds_put_format(why, "rtnetlink cannot show the device (%s)",
                      ovs_strerror(error));
        return error;
    }
    if (strcmp(dev.kind, "veth") || !dev.link) {
        ds_put_cstr(why, "not a veth with a peer");
        return EOPNOTSUPP;
    }
    if (dev.link_netnsid < 0) {
        ds_put_cstr(why, "a veth whose peer is in our own namespace");
        return ENOENT;
    }
    error = get_link_facts(dev.link, dev.link_netnsid, &facts);
    if (error) {
        ds_put_format(why, "rtnetlink cannot show the veth's peer (%s)",
                      ovs_strerror(error));
        return error;
    }
    if (eth_addr_is_zero(facts.mac) || facts.mtu <= 0) {
        ds_put_cstr(why, "a veth whose peer has no Ethernet address");
        return ENOENT;
    } else if (facts.xdp_attached != XDP_ATTACHED_NONE) {
        /* bpf_redirect_peer() hands the skb to the peer past its driver,
         * where a native XDP program runs. */
        ds_put_cstr(why, "a veth whose peer runs XDP, which going straight "
                    "into its ingress would bypass");
        return ENOENT;
    }
    peer->netnsid = dev.link_netnsid;
    peer->ifindex = dev.link;
    peer->mac = facts.mac;
    peer->mtu = facts.mtu;
    return 0;
}
