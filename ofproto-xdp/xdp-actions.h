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

#ifndef XDP_ACTIONS_H
#define XDP_ACTIONS_H 1

/* Compiles a datapath flow's ODP actions (OVS_ACTION_ATTR_*) into the XDP
 * datapath's 'struct xdp_dp_action's (datapath/xdp-dp.h), or decides that
 * the flow must run in the slow path. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ds;
struct nlattr;
struct ofpbuf;
struct xdp_flow;

/* Compiles the 'actions_len' bytes of ODP actions in 'actions' into
 * 'flow->actions', 'flow->n_actions' and 'flow->flags', leaving
 * 'flow->slot' untouched.  The unused entries of 'flow->actions' are
 * zeroed.
 *
 * The actions run in XDP when there are at most XDP_FLOW_MAX_ACTIONS of
 * them, each one of:
 *
 *   - output, up to XDP_DP_MAX_OUTPUTS of them, only at the end;
 *   - push_vlan with TPID 802.1Q or 802.1ad and the CFI bit set in the TCI
 *     (as ofproto always sets it), and pop_vlan;
 *   - set or masked set of the Ethernet addresses, of the IPv4 source,
 *     destination, ToS and TTL (not the protocol or fragment bits), and of
 *     the TCP or UDP ports.  A plain set writes every field, except that,
 *     as in odp_execute_actions(), a plain IPv4 set ignores its protocol
 *     and fragment fields;
 *   - recirc, only as the last action (instead of outputs), and hash with
 *     algorithm OVS_HASH_ALG_L4, only right before a recirc;
 *   - meter(id), before the outputs;
 *   - sample(probability, actions(...)), whatever its nested actions, also
 *     among the outputs (it then moves before them): XDP draws the
 *     packets and ovs-vswitchd runs the nested actions on their copies
 *     (see xdp_actions_get_sample()); also a bare userspace() with an
 *     sFlow or IPFIX cookie, which ofproto emits for a probability of 1;
 *
 * No actions at all means drop: 'flow->n_actions' is 0 and the flags are
 * clear.  Any other flow is a slow-path flow: 'flow->flags' is
 * XDP_FLOW_F_SLOW_PATH, 'flow->n_actions' is 0, and the reason is
 * appended to 'why_slow' (if nonnull). */
void xdp_actions_compile(const struct nlattr *actions, size_t actions_len,
                         struct xdp_flow *flow, struct ds *why_slow);

/* Finds the sample() that XDP_DP_ACTION_SAMPLE number 'index' of the flow
 * whose ODP actions are the 'actions_len' bytes at 'actions' stands for,
 * as xdp_actions_compile() numbered them, and appends its nested actions
 * (for a bare sampling userspace(), that action itself) to 'nested'.  Returns false if there is no such sample(). */
bool xdp_actions_get_sample(const struct nlattr *actions, size_t actions_len,
                            uint32_t index, struct ofpbuf *nested);

/* Appends to 's' a description of 'flow''s actions: "slow-path" for a
 * slow-path flow, otherwise "xdp(ACTION,...)", e.g.
 * "xdp(push_vlan(vid=10,pcp=0),output:2)", or "xdp(drop)" if it has no
 * actions.  Masked writes show the fields that they write, with the mask
 * after a slash if it is not all-ones. */
void xdp_actions_format(struct ds *s, const struct xdp_flow *flow);

#endif /* xdp-actions.h */
