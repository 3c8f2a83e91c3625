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

/* Internal ports (a bridge's local port, type=internal interfaces) as veth
 * pairs.
 *
 * The host stack must see an internal port as an ordinary device, and the
 * XDP program must see what the host sends on it.  A tap device, which the
 * userspace datapath uses, gives the host's frames to a file descriptor,
 * where no XDP program runs.  So an internal port here is a veth pair: the
 * end the host sees carries the port's name; the other end, named by
 * internal_port_peer_name(), stays hidden in the root namespace, runs the
 * datapath program (frames the host sends arrive there) and is where
 * outputs to the port are transmitted (so they arrive at the host).
 *
 * No OVS or libbpf library creates veth pairs, so this file builds the
 * RTM_NEWLINK request with OVS's netlink helpers. */

#include <config.h>

#include "ofproto-xdp/internal-port.h"

#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <stdio.h>

#include "hash.h"
#include "netlink.h"
#include "netlink-socket.h"
#include "openvswitch/ofpbuf.h"
#include "util.h"

/* Stores in 'peer' the name of the hidden end of internal port 'name': a
 * hash of the name, so that the same port always gets the same peer and a
 * peer left behind by a crash is recognised as ours. */
void
internal_port_peer_name(const char *name,
                        char peer[INTERNAL_PORT_PEER_NAME_LEN])
{
    snprintf(peer, INTERNAL_PORT_PEER_NAME_LEN, "ovsxdp%08"PRIx32,
             hash_string(name, 0));
}

/* Creates veth pair 'name' / 'peer'.  Returns 0 or a positive errno
 * (EEXIST if either name is taken). */
int
internal_port_create(const char *name, const char *peer)
{
    struct ofpbuf request;
    size_t linkinfo, data, peer_ofs;
    int error;

    ofpbuf_init(&request, 0);
    nl_msg_put_nlmsghdr(&request, 0, RTM_NEWLINK,
                        NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE
                        | NLM_F_EXCL);
    ofpbuf_put_zeros(&request, sizeof(struct ifinfomsg));
    nl_msg_put_string(&request, IFLA_IFNAME, name);
    linkinfo = nl_msg_start_nested(&request, IFLA_LINKINFO);
    nl_msg_put_string(&request, IFLA_INFO_KIND, "veth");
    data = nl_msg_start_nested(&request, IFLA_INFO_DATA);
    peer_ofs = nl_msg_start_nested(&request, VETH_INFO_PEER);
    ofpbuf_put_zeros(&request, sizeof(struct ifinfomsg));
    nl_msg_put_string(&request, IFLA_IFNAME, peer);
    nl_msg_end_nested(&request, peer_ofs);
    nl_msg_end_nested(&request, data);
    nl_msg_end_nested(&request, linkinfo);

    error = nl_transact(NETLINK_ROUTE, &request, NULL);
    ofpbuf_uninit(&request);
    return error;
}

/* Deletes device 'name' (with a veth, both ends).  Returns 0 or a positive
 * errno. */
int
internal_port_delete(const char *name)
{
    struct ofpbuf request;
    int error;

    ofpbuf_init(&request, 0);
    nl_msg_put_nlmsghdr(&request, 0, RTM_DELLINK,
                        NLM_F_REQUEST | NLM_F_ACK);
    ofpbuf_put_zeros(&request, sizeof(struct ifinfomsg));
    nl_msg_put_string(&request, IFLA_IFNAME, name);
    error = nl_transact(NETLINK_ROUTE, &request, NULL);
    ofpbuf_uninit(&request);
    return error;
}
