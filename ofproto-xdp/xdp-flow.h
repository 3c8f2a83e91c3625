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

#ifndef XDP_FLOW_H
#define XDP_FLOW_H 1

/* Conversions between Open vSwitch's flows (struct flow, struct
 * flow_wildcards, and their ODP netlink form) and the XDP datapath's
 * 'struct xdp_flow_key' (datapath/xdp-dp.h). */

#include <stddef.h>

struct ds;
struct flow;
struct flow_wildcards;
struct match;
struct nlattr;
struct xdp_flow_key;

/* Fills 'key' with the fields of 'flow' that the XDP program extracts,
 * taking the ingress port from 'flow->in_port.odp_port'.  For any packet P
 * that arrives on that port, xdp_flow_key_from_flow() of flow_extract(P)
 * equals what the XDP program's parser extracts from P. */
void xdp_flow_key_from_flow(struct xdp_flow_key *key, const struct flow *flow);

/* Fills 'mask' with the masks in 'wc' of the fields that the XDP key
 * carries, with the same field mapping as xdp_flow_key_from_flow() (the
 * ingress port's mask is 'wc->masks.in_port.odp_port').  Masks of fields
 * the XDP key does not carry are ignored: xdp_flow_from_odp() is the
 * function that checks them. */
void xdp_flow_mask_from_wc(struct xdp_flow_key *mask,
                           const struct flow_wildcards *wc);

/* Converts the datapath flow given as ODP netlink attributes, key 'key' of
 * 'key_len' bytes and mask 'mask' of 'mask_len' bytes, into an XDP key and
 * mask in '*xkey' and '*xmask', with '*xkey' already ANDed with '*xmask'.
 * A 'mask_len' of 0 means an exact match of every field that the key's
 * packet type has, as for the kernel datapath and dpif-netdev.
 *
 * Returns 0 if successful.  Otherwise zeroes '*xkey' and '*xmask', appends
 * the reason to 'why' (if nonnull) and returns:
 *
 *   - EINVAL if the key or mask does not parse (odp-util finds it invalid,
 *     or it lacks or has attributes that its own fields call for or rule
 *     out, which odp_flow_key_from_flow() never produces).
 *
 *   - EOPNOTSUPP if the mask matches a field of 'struct flow' that the XDP
 *     key does not carry: any bit of a packet header that the XDP parser
 *     does not look into (MPLS label stack, NSH), or metadata (tunnel,
 *     OpenFlow metadata, registers, skb_priority, pkt_mark, conntrack
 *     fields, packet_type, ...) on a value other than the one every
 *     packet entering the XDP datapath has (zero, and Ethernet for
 *     packet_type).  Matches of such metadata on its arrival value are
 *     accepted and dropped from the XDP key.  (recirc_id and dp_hash are
 *     in the XDP key: the program recirculates and hashes.)
 *
 * If 'match' is nonnull, stores in it the flow and wildcards that the key
 * and mask describe when they parse (that is, on success and with
 * EOPNOTSUPP): ovs-vswitchd can classify packets against any of them (see
 * dpif-xdp-uflow.c), XDP only against those that return 0.
 *
 * As dpif-netdev does, a mask that does not match any bit of the outer
 * VLAN TCI is turned into an exact match of its VID and CFI: the netlink
 * form cannot wildcard whether a VLAN header is present. */
int xdp_flow_from_odp(const struct nlattr *key, size_t key_len,
                      const struct nlattr *mask, size_t mask_len,
                      struct xdp_flow_key *xkey, struct xdp_flow_key *xmask,
                      struct match *match, struct ds *why);

/* Stores in 'flow' the flow that 'key' describes: the inverse of
 * xdp_flow_key_from_flow().  The fields the XDP key does not carry get the
 * value every packet entering the XDP datapath has: zero, and Ethernet for
 * 'packet_type'.  The ingress port is 'flow->in_port.odp_port'. */
void xdp_flow_key_to_flow(const struct xdp_flow_key *key, struct flow *flow);

/* Stores in 'wc' the wildcards that 'mask' describes: the inverse of
 * xdp_flow_mask_from_wc().  Since every packet in the XDP datapath is an
 * Ethernet frame, 'packet_type' is exact-matched too; every other field
 * that the XDP key does not carry is wildcarded.  With
 * xdp_flow_key_to_flow() this rebuilds the ODP form of a flow read back
 * from the datapath's maps. */
void xdp_flow_mask_to_wc(const struct xdp_flow_key *mask,
                         struct flow_wildcards *wc);

/* Appends to 's' the fields of 'key' that 'mask' matches, in Open vSwitch's
 * match syntax (match_format()), for logs and debugging.  The ingress port
 * comes first as the datapath port number "in_port=N" and a VLAN TPID other
 * than 802.1Q, which the match syntax cannot express, is appended as
 * "vlan_tpid=0xNNNN" ("vlan_tpid1=" for the inner header).  Appends "any"
 * if 'mask' matches nothing. */
void xdp_flow_key_format(struct ds *s, const struct xdp_flow_key *key,
                         const struct xdp_flow_key *mask);

#endif /* xdp-flow.h */
