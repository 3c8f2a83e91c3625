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

/* test-xdp-packet: table-driven packet tests of the datapath program.
 *
 *   test-xdp-packet [-v] [--compiled]
 *                             Runs every row of the table
 *                             (test-xdp-packet-rows.c), through the
 *                             generic program or, with --compiled,
 *                             through a program compiled for each row's
 *                             flow table (ofproto-xdp/xdp-compile.c).
 *
 * The other modes live in test-xdp-packet-modes.c:
 *
 *   test-xdp-packet flush     Flushes the flow table and installs a flow
 *                             again (see do_flush()).
 *   test-xdp-packet budget    A flood of misses from one port against
 *                             another port's upcalls (see do_budget()).
 *   test-xdp-packet rank      Subtables are reordered by their hits (see
 *                             do_rank()).
 *   test-xdp-packet grow      A full compact map is made bigger (see
 *                             do_grow()).
 *   test-xdp-packet [--compiled] recirc
 *                             Recirculation and the hash action, against
 *                             OVS's odp_execute_actions() pass by pass
 *                             (see do_recirc()).
 *   test-xdp-packet key HEX   Prints the ODP flow key that OVS's
 *                             flow_extract() gives the frame HEX arriving
 *                             on port 1: how to write a row's flows.
 *
 * Each row of the table is a frame, a flow table of up to XP_MAX_FLOWS
 * datapath flows in ODP syntax (key with masks, and actions, as
 * "ovs-appctl dpctl/dump-flows" shows them), and what must happen to the
 * frame: which flow it hits (or that it misses), the XDP verdict, the frame
 * that comes out and the ports it goes to.  Actions are in the syntax of
 * odp_actions_from_string(), which has no hash action in OVS 3.1: the
 * test reads "hash(l4(BASIS))" and "hash(sym_l4(BASIS))" itself.  For each
 * row the program
 *
 *   1. installs the row's flows in an xdp datapath through dpif_operate(),
 *      as ofproto-dpif does, and checks that each runs in XDP;
 *   2. runs the frame through the datapath program with BPF_PROG_TEST_RUN,
 *      arriving on port 1 (the ifindex of 'lo' mapped to port 1);
 *   3. checks the verdict, the datapath's hit, miss and transmit-error
 *      counters, which flow's counter went up, the frame that came out and
 *      its output ports; and that every IPv4, TCP and UDP checksum that
 *      was valid in the input frame is valid in the output, recomputed
 *      here from scratch;
 *   4. checks the row against Open vSwitch itself, which is the
 *      specification: the flow that OVS's flow_extract() and the flows'
 *      masks select must be the row's flow (so a truncated header matches
 *      only the flows flow_extract() would match it to), and running that
 *      flow's actions with odp_execute_actions() must give the same frame
 *      and ports, unless the row says why OVS's userspace datapath differs;
 *   5. deletes the flows again, with flow deletes (a flush would leave
 *      them in the BPF subtables: see do_flush()).
 *
 * Output ports are configured for each row: in "redirect" rows every port
 * transmits by XDP_DP_TX_REDIRECT, but only the expected port has an entry
 * in the devmap, so that XDP_REDIRECT proves the output went to that port
 * (another one's bpf_redirect_map() would fail and drop).  In "skb" rows
 * every port transmits by XDP_DP_TX_SKB with a made-up ifindex
 * (XP_IFINDEX_BASE plus the port number): the program passes the frame up
 * with a 'struct xdp_dp_skb_meta' in front, which BPF_PROG_TEST_RUN hands
 * back with the frame and which names the ports.  BPF_PROG_TEST_RUN
 * without live frames only returns verdicts; nothing is sent.
 *
 * Prints "ok NAME", or "FAIL NAME:" followed by one indented line per
 * reason, for each row, then "N rows, M failed", and exits with status 1
 * if M is not 0.  Needs root (the datapath loads its program and maps).
 *
 * This file runs the table and holds the helpers that the modes share
 * (frames, flows, the datapath); test-xdp-packet.h declares what the
 * files share. */

#include <config.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dp-packet.h"
#include "dpif.h"
#include "dpif-provider.h"
#include "flow.h"
#include "netdev-native-tnl.h"
#include "netlink.h"
#include "odp-execute.h"
#include "odp-netlink.h"
#include "odp-util.h"
#include "ofproto-xdp/dpif-xdp.h"
#include "ofproto-xdp/dpif-xdp-private.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/match.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "tests/test-xdp-packet.h"
#include "util.h"

int lo_ifindex;
static bool verbose;
static bool compiled;            /* --compiled: rows run compiled programs. */

/* Hex. */

/* Parses 'hex' into 'buf', which has room for 'size' bytes, and returns
 * the number of bytes.  Spaces are ignored. */
size_t
xp_parse_hex(const char *hex, uint8_t *buf, size_t size)
{
    const char *p = hex;
    size_t n = 0;

    while (*p) {
        if (*p == ' ') {
            p++;
            continue;
        }
        if (!isxdigit((unsigned char) p[0]) || !isxdigit((unsigned char) p[1])
            || n >= size) {
            ovs_fatal(0, "bad hex at \"%s\"", p);
        }
        buf[n++] = hexit_value(p[0]) * 16 + hexit_value(p[1]);
        p += 2;
    }
    return n;
}

void
xp_put_hex(struct ds *s, const uint8_t *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ds_put_format(s, "%02x", data[i]);
    }
}

/* Checksums, recomputed from scratch. */

static uint32_t
xp_sum(const uint8_t *p, size_t n, uint32_t sum)
{
    for (size_t i = 0; i + 1 < n; i += 2) {
        sum += (p[i] << 8) | p[i + 1];
    }
    if (n % 2) {
        sum += p[n - 1] << 8;
    }
    return sum;
}

static uint16_t
xp_fold(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return sum;
}

/* Checks the IPv4 header checksum and, for a TCP or UDP packet that is not
 * a fragment, its checksum, of the IPv4 packet in 'frame' (past Ethernet,
 * VLAN and LLC/SNAP headers).  Appends the name of each invalid one to
 * 'bad' and returns the number of checksums it could check. */
/* xp_check_csums() for the IPv6 packet of 'len' bytes at 'ip6': its TCP,
 * UDP or ICMPv6 checksum, if the header follows the IPv6 header. */
static int
xp_check_csums_ipv6(const uint8_t *ip6, size_t len, struct ds *bad)
{
    if (len < 40) {
        return 0;
    }
    size_t pay_len = (ip6[4] << 8) | ip6[5];
    uint8_t proto = ip6[6];
    const uint8_t *l4 = ip6 + 40;

    if (40 + pay_len > len) {
        return 0;
    }
    uint32_t pseudo = xp_sum(ip6 + 8, 32, 0) + proto + pay_len;
    if ((proto == IPPROTO_TCP && pay_len >= 20)
        || (proto == IPPROTO_UDP && pay_len >= 8)
        || (proto == IPPROTO_ICMPV6 && pay_len >= 4)) {
        if (xp_fold(xp_sum(l4, pay_len, pseudo)) != 0xffff) {
            ds_put_format(bad, " %s", (proto == IPPROTO_TCP ? "tcp"
                                       : proto == IPPROTO_UDP ? "udp"
                                       : "icmp6"));
        }
        return 1;
    }
    return 0;
}

static int
xp_check_csums(const uint8_t *frame, size_t len, struct ds *bad)
{
    size_t ofs = 12;
    uint16_t type;

    if (len < 14) {
        return 0;
    }
    type = (frame[ofs] << 8) | frame[ofs + 1];
    while ((type == 0x8100 || type == 0x88a8) && ofs + 6 <= len) {
        ofs += 4;
        type = (frame[ofs] << 8) | frame[ofs + 1];
    }
    ofs += 2;
    if (type < 0x600 && ofs + 8 <= len && frame[ofs] == 0xaa
        && frame[ofs + 1] == 0xaa && frame[ofs + 2] == 3) {
        type = (frame[ofs + 6] << 8) | frame[ofs + 7];
        ofs += 8;
    }
    if (type == 0x86dd) {
        return xp_check_csums_ipv6(frame + ofs, len - ofs, bad);
    }
    if (type != 0x0800 || ofs + 20 > len) {
        return 0;
    }

    const uint8_t *ip = frame + ofs;
    size_t ihl = (ip[0] & 15) * 4;
    size_t tot_len = (ip[2] << 8) | ip[3];
    int n = 0;

    if (ihl < 20 || ofs + ihl > len) {
        return 0;
    }
    n++;
    if (xp_fold(xp_sum(ip, ihl, 0)) != 0xffff) {
        ds_put_cstr(bad, " ip");
    }
    if (tot_len < ihl || ofs + tot_len > len
        || ((ip[6] << 8 | ip[7]) & 0x3fff)) {
        return n;
    }

    const uint8_t *l4 = ip + ihl;
    size_t l4_len = tot_len - ihl;
    uint32_t pseudo = xp_sum(ip + 12, 8, 0) + ip[9] + l4_len;

    if (ip[9] == IPPROTO_TCP && l4_len >= 20) {
        n++;
        if (xp_fold(xp_sum(l4, l4_len, pseudo)) != 0xffff) {
            ds_put_cstr(bad, " tcp");
        }
    } else if (ip[9] == IPPROTO_UDP && l4_len >= 8 && (l4[6] | l4[7])) {
        n++;
        if (xp_fold(xp_sum(l4, l4_len, pseudo)) != 0xffff) {
            ds_put_cstr(bad, " udp");
        }
    }
    return n;
}

/* The datapath. */

/* Applies the checksum differences in 'meta' to the TCP, UDP or ICMPv6
 * checksum of the untagged IP frame 'frame', as the TC half's
 * bpf_l4_csum_replace() does to a full checksum. */
void
xp_tc_fix_csum(const struct xdp_dp_skb_meta *meta, uint8_t *frame,
               size_t len)
{
    bool ipv6 = len >= 54 && frame[12] == 0x86 && frame[13] == 0xdd;

    if (!(meta->flags & XDP_DP_SKB_META_F_L4_CSUM) || len < 34
        || (!ipv6 && (frame[12] != 0x08 || frame[13] != 0x00))) {
        return;
    }
    size_t l4 = ipv6 ? 54 : 14 + (frame[14] & 0xf) * 4;
    uint8_t proto = ipv6 ? frame[20] : frame[23];
    size_t ofs = (proto == 6 ? l4 + 16 : proto == 17 ? l4 + 6
                  : proto == 58 && ipv6 ? l4 + 2 : 0);
    if (!ofs || ofs + 2 > len) {
        return;
    }
    uint16_t check = (frame[ofs] << 8) | frame[ofs + 1];
    if (proto == 17 && !check) {
        return;                 /* No UDP checksum. */
    }
    uint32_t sum = (uint16_t) ~check + ntohs(meta->csum_pseudo)
                   + ntohs(meta->csum_other);
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    check = ~sum;
    frame[ofs] = check >> 8;
    frame[ofs + 1] = check;
}

struct xdp_dp_stats
xp_read_stats(struct dp_xdp *dp)
{
    struct xdp_dp_stats sum;
    int error = dp_xdp_read_stats(dp, &sum);

    if (error) {
        ovs_fatal(error, "cannot read xdp_dp_stats");
    }
    return sum;
}

void
xp_map_update(struct bpf_map *map, const void *key, const void *value)
{
    if (bpf_map_update_elem(bpf_map__fd(map), key, value, BPF_ANY)) {
        ovs_fatal(errno, "cannot update %s", bpf_map__name(map));
    }
}

/* Sets up the output ports for 'row' (see the comment at the top). */
void
xp_setup_ports(struct dp_xdp *dp, const struct xp_row *row)
{
    for (uint32_t p = XP_FIRST_PORT; p <= XP_LAST_PORT; p++) {
        struct xdp_dp_port port;

        if (row->mode == XP_SKB_PORTS) {
            port.ifindex = XP_IFINDEX_BASE + p;
            port.tx_mode = XDP_DP_TX_SKB;
        } else {
            port.ifindex = lo_ifindex;
            port.tx_mode = XDP_DP_TX_REDIRECT;
        }
        xp_map_update(dp->skel->maps.xdp_dp_ports, &p, &port);
        bpf_map_delete_elem(bpf_map__fd(dp->skel->maps.xdp_dp_tx_ports), &p);
    }
    if (row->mode == XP_REDIRECT_PORTS && row->expect == XP_REDIRECT) {
        uint32_t p = row->ports[0];
        uint32_t ifindex = lo_ifindex;

        xp_map_update(dp->skel->maps.xdp_dp_tx_ports, &p, &ifindex);
    }
}

/* Appends to 'actions' the ODP actions in 's', which are in the syntax of
 * odp_actions_from_string() but for the hash action, "hash(l4(BASIS))" or
 * "hash(sym_l4(BASIS))", that OVS 3.1 cannot read. */
static void
xp_actions_from_string(const char *s, struct ofpbuf *actions)
{
    while (*s) {
        struct ovs_action_hash hash;
        const char *end = s;
        int depth = 0;
        int n = 0;

        /* The action ends at the first comma outside parentheses. */
        while (*end && (depth || *end != ',')) {
            depth += (*end == '(') - (*end == ')');
            end++;
        }
        char *action = xmemdup0(s, end - s);

        if (ovs_scan(action, "hash(l4(%"SCNu32"))%n", &hash.hash_basis, &n)
            && !action[n]) {
            hash.hash_alg = OVS_HASH_ALG_L4;
            nl_msg_put_unspec(actions, OVS_ACTION_ATTR_HASH, &hash,
                              sizeof hash);
        } else if (ovs_scan(action, "hash(sym_l4(%"SCNu32"))%n",
                            &hash.hash_basis, &n) && !action[n]) {
            hash.hash_alg = OVS_HASH_ALG_SYM_L4;
            nl_msg_put_unspec(actions, OVS_ACTION_ATTR_HASH, &hash,
                              sizeof hash);
        } else if (odp_actions_from_string(action, NULL, actions)) {
            ovs_fatal(0, "%s: bad action", action);
        }
        free(action);
        s = *end ? end + 1 : end;
    }
}

void
xp_parse_flow(const struct xp_flow *f, struct xp_parsed_flow *pf, int id)
{
    char *error = NULL;

    ofpbuf_init(&pf->key, 0);
    ofpbuf_init(&pf->mask, 0);
    ofpbuf_init(&pf->actions, 0);
    if (odp_flow_from_string(f->match, NULL, &pf->key, &pf->mask, &error)) {
        ovs_fatal(0, "%s: %s", f->match, error);
    }
    if (strcmp(f->actions, "drop")) {
        xp_actions_from_string(f->actions, &pf->actions);
    }
    memset(&pf->ufid, 0, sizeof pf->ufid);
    pf->ufid.u32[0] = id;
    pf->ufid.u32[3] = 0xfeed;
}

void
xp_free_flow(struct xp_parsed_flow *pf)
{
    ofpbuf_uninit(&pf->key);
    ofpbuf_uninit(&pf->mask);
    ofpbuf_uninit(&pf->actions);
}

/* Installs or deletes ('put' false) the 'n' flows in 'flows' in one
 * dpif_operate() call.  Appends each failure to 'why'. */
void
xp_operate(struct dpif *dpif, struct xp_parsed_flow *flows, int n, bool put,
           struct ds *why)
{
    struct dpif_op ops[XP_MAX_FLOWS], *opp[XP_MAX_FLOWS];

    for (int i = 0; i < n; i++) {
        struct xp_parsed_flow *f = &flows[i];

        memset(&ops[i], 0, sizeof ops[i]);
        if (put) {
            ops[i].type = DPIF_OP_FLOW_PUT;
            ops[i].flow_put = (struct dpif_flow_put) {
                .flags = DPIF_FP_CREATE,
                .key = f->key.data, .key_len = f->key.size,
                .mask = f->mask.data, .mask_len = f->mask.size,
                .actions = f->actions.data, .actions_len = f->actions.size,
                .ufid = &f->ufid, .pmd_id = PMD_ID_NULL,
            };
        } else {
            ops[i].type = DPIF_OP_FLOW_DEL;
            ops[i].flow_del = (struct dpif_flow_del) {
                .key = f->key.data, .key_len = f->key.size,
                .ufid = &f->ufid, .pmd_id = PMD_ID_NULL,
            };
        }
        opp[i] = &ops[i];
    }
    dpif_operate(dpif, opp, n, DPIF_OFFLOAD_NEVER);
    for (int i = 0; i < n; i++) {
        if (ops[i].error) {
            ds_put_format(why, "\n    %s of flow %d failed (%s)",
                          put ? "put" : "delete", i,
                          ovs_strerror(ops[i].error));
        }
    }
}

/* Stores in '*n_packets' the packet counter of flow 'f' and in '*layer'
 * where it runs ("xdp" or "ovs").  Returns 0 or a positive errno. */
int
xp_flow_stats(struct dpif *dpif, const struct xp_parsed_flow *f,
              uint64_t *n_packets, char *layer, size_t layer_size)
{
    uint64_t stub[DPIF_FLOW_BUFSIZE / 8];
    struct ofpbuf buf = OFPBUF_STUB_INITIALIZER(stub);
    struct dpif_flow flow;
    int error;

    error = dpif_flow_get(dpif, f->key.data, f->key.size, &f->ufid,
                          PMD_ID_NULL, &buf, &flow);
    if (!error) {
        *n_packets = flow.stats.n_packets;
        ovs_strlcpy(layer, flow.attrs.dp_layer ? flow.attrs.dp_layer : "?",
                    layer_size);
    }
    ofpbuf_uninit(&buf);
    return error;
}

void
xp_run(struct dp_xdp *dp, const uint8_t *frame, size_t len,
       struct xp_result *r)
{
    struct xdp_md ctx_in = { .data_end = len,
                             .ingress_ifindex = lo_ifindex };
    struct xdp_md ctx_out;
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = frame, .data_size_in = len,
                .data_out = r->data, .data_size_out = sizeof r->data,
                .ctx_in = &ctx_in, .ctx_size_in = sizeof ctx_in,
                .ctx_out = &ctx_out, .ctx_size_out = sizeof ctx_out,
                .repeat = 1);
    int error;

    memset(&ctx_out, 0, sizeof ctx_out);
    error = bpf_prog_test_run_opts(
        dp->xdp_prog_fd, &opts);
    if (error) {
        ovs_fatal(-error, "BPF_PROG_TEST_RUN");
    }
    r->verdict = opts.retval;
    r->size = opts.data_size_out;
    r->meta_len = ctx_out.data;
}

/* With --compiled, compiles 'dp''s flow table and swaps the program in;
 * appends to 'why' if that fails. */
void
xp_maybe_compile(struct dp_xdp *dp, struct ds *why)
{
    if (compiled) {
        struct ds reply = DS_EMPTY_INITIALIZER;
        struct xdp_dp_cfg cfg;
        int error = dp_xdp_compile_now(dp, &reply);

        dp_xdp_compile_get_cfg(dp, &cfg);
        if (error || !cfg.enabled) {
            ds_put_format(why, "\n    cannot compile: %s",
                          error ? ovs_strerror(error) : "not compiled");
        }
        ds_destroy(&reply);
    }
}

/* Appends to 'why' each of the 'n' 'flows' that does not run in XDP. */
void
xp_check_in_xdp(struct dpif *dpif, const struct xp_parsed_flow *flows, int n,
                struct ds *why)
{
    for (int i = 0; i < n; i++) {
        char layer[8];
        uint64_t n_packets;

        if (!xp_flow_stats(dpif, &flows[i], &n_packets, layer, sizeof layer)
            && strcmp(layer, "xdp")) {
            ds_put_format(why, "\n    flow %d runs in %s, not in XDP", i,
                          layer);
        }
    }
}

const char *
xp_verdict_name(uint32_t verdict)
{
    static const char *const names[] = {
        "XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT",
    };
    return verdict < ARRAY_SIZE(names) ? names[verdict] : "unknown";
}

/* The reference: Open vSwitch's own flow_extract() and
 * odp_execute_actions(). */

struct xp_ovs_out {
    int n;                              /* Outputs so far. */
    int ports[XDP_DP_MAX_OUTPUTS + 1];  /* Their ports. */
    struct dp_packet *packets[XDP_DP_MAX_OUTPUTS + 1];  /* Their frames. */
};

static void
xp_ovs_execute_cb(void *aux, struct dp_packet_batch *batch,
                  const struct nlattr *a, bool should_steal)
{
    struct xp_ovs_out *out = aux;
    struct dp_packet *packet;

    if (nl_attr_type(a) == OVS_ACTION_ATTR_OUTPUT) {
        DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
            if (out->n < ARRAY_SIZE(out->ports)) {
                out->ports[out->n] = nl_attr_get_u32(a);
                out->packets[out->n++] = dp_packet_clone(packet);
            }
        }
    } else if (nl_attr_type(a) == OVS_ACTION_ATTR_TUNNEL_PUSH
               && !should_steal) {
        /* OVS's own UDP tunnel push (what netdev-vport's VXLAN and
         * Geneve classes do), with the hash that dpif-netdev gives a
         * packet without one. */
        DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
            struct flow flow;

            flow_extract(packet, &flow);
            dp_packet_set_rss_hash(packet, flow_hash_5tuple(&flow, 0));
            netdev_tnl_push_udp_header(NULL, packet, nl_attr_get(a));
        }
        return;
    }
    dp_packet_delete_batch(batch, should_steal);
}

/* Returns the index of the flow of 'flows' that OVS matches the frame
 * 'frame' arriving on XP_IN_PORT to, or -1 if none.  Appends to 'why'
 * if more than one matches. */
static int
xp_ovs_classify(const uint8_t *frame, size_t len,
                const struct xp_parsed_flow *flows, int n, struct ds *why)
{
    struct dp_packet *packet = dp_packet_clone_data(frame, len);
    struct flow flow;
    int hit = -1;

    pkt_metadata_init(&packet->md, u32_to_odp(XP_IN_PORT));
    flow_extract(packet, &flow);
    for (int i = 0; i < n; i++) {
        struct match match;

        if (parse_key_and_mask_to_match(flows[i].key.data, flows[i].key.size,
                                        flows[i].mask.data,
                                        flows[i].mask.size, &match)) {
            ds_put_format(why, "\n    OVS cannot parse flow %d", i);
            continue;
        }
        if (flow_equal_except(&flow, &match.flow, &match.wc)) {
            if (hit >= 0) {
                ds_put_format(why, "\n    OVS matches flows %d and %d",
                              hit, i);
            }
            hit = i;
        }
    }
    dp_packet_delete(packet);
    return hit;
}

/* Runs 'actions' with odp_execute_actions() on the frame 'frame' arriving
 * on XP_IN_PORT and stores what comes out in '*out'. */
static void
xp_ovs_execute(const uint8_t *frame, size_t len, const struct ofpbuf *actions,
               struct xp_ovs_out *out)
{
    struct dp_packet *packet = dp_packet_clone_data_with_headroom(frame, len,
                                                                   64);
    struct dp_packet_batch batch;
    struct flow flow;

    memset(out, 0, sizeof *out);
    pkt_metadata_init(&packet->md, u32_to_odp(XP_IN_PORT));
    flow_extract(packet, &flow);    /* Sets the header offsets. */
    dp_packet_batch_init_packet(&batch, packet);
    odp_execute_actions(out, &batch, true, actions->data, actions->size,
                        xp_ovs_execute_cb);
}

static void
xp_ovs_out_destroy(struct xp_ovs_out *out)
{
    for (int i = 0; i < out->n; i++) {
        dp_packet_delete(out->packets[i]);
    }
}

/* Running a row. */

/* Runs 'row' on 'dpif'.  Returns true if it passed. */
static bool
xp_run_row(struct dpif *dpif, const struct xp_row *row, int row_id)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    struct xp_parsed_flow flows[XP_MAX_FLOWS];
    struct ds why = DS_EMPTY_INITIALIZER;
    uint8_t in[XP_MAX_FRAME], out[XP_MAX_FRAME];
    size_t in_len, out_len;
    int n_flows = 0;
    int n_ports = 0;

    in_len = xp_parse_hex(row->in, in, sizeof in);
    out_len = (row->out ? xp_parse_hex(row->out, out, sizeof out)
               : (memcpy(out, in, in_len), in_len));
    while (n_ports < XDP_DP_MAX_OUTPUTS && row->ports[n_ports]) {
        n_ports++;
    }
    for (int i = 0; i < XP_MAX_FLOWS && row->flows[i].match; i++) {
        xp_parse_flow(&row->flows[i], &flows[i], row_id * 16 + i + 1);
        n_flows++;
    }

    /* 1. The flow table. */
    xp_setup_ports(dp, row);
    xp_operate(dpif, flows, n_flows, true, &why);
    xp_maybe_compile(dp, &why);
    xp_check_in_xdp(dpif, flows, n_flows, &why);

    /* 2. The frame. */
    struct xdp_dp_stats before = xp_read_stats(dp);
    struct xp_result r;
    xp_run(dp, in, in_len, &r);
    struct xdp_dp_stats after = xp_read_stats(dp);

    /* 3. What happened to it. */
    uint64_t d_hit = after.n_hit - before.n_hit;
    uint64_t d_missed = after.n_missed - before.n_missed;
    uint64_t d_tx_error = after.n_tx_error - before.n_tx_error;
    uint64_t d_slow = after.n_slow_path - before.n_slow_path;
    uint64_t d_forwarded = after.n_forwarded - before.n_forwarded;
    uint64_t d_dropped = after.n_dropped - before.n_dropped;
    bool switched = row->expect != XP_MISS && row->expect != XP_SLOW;
    uint32_t verdict = (row->expect == XP_REDIRECT ? XDP_REDIRECT
                        : row->expect == XP_TO_TC ? XDP_PASS : XDP_DROP);

    if (r.verdict != verdict) {
        ds_put_format(&why, "\n    verdict %s, expected %s",
                      xp_verdict_name(r.verdict), xp_verdict_name(verdict));
    }
    /* A packet counts as switched in XDP (n_hit, its flow's slot) only if
     * XDP ran its flow's actions, and as forwarded only if XDP sent it on
     * itself. */
    if (d_hit != switched
        || d_missed != (row->expect == XP_MISS)
        || d_tx_error != (row->expect == XP_TX_ERROR)
        || d_slow != (row->expect == XP_SLOW)
        || d_forwarded != (row->expect == XP_REDIRECT
                           || row->expect == XP_TO_TC)
        || d_dropped != (row->expect == XP_DROP)) {
        ds_put_format(&why, "\n    counted hit %"PRIu64", missed %"PRIu64
                      ", tx_error %"PRIu64", slow path %"PRIu64", forwarded "
                      "%"PRIu64", dropped %"PRIu64, d_hit, d_missed,
                      d_tx_error, d_slow, d_forwarded, d_dropped);
    }
    for (int i = 0; i < n_flows; i++) {
        char layer[8];
        uint64_t n = 0;
        int error = xp_flow_stats(dpif, &flows[i], &n, layer, sizeof layer);

        if (error) {
            ds_put_format(&why, "\n    cannot get flow %d (%s)", i,
                          ovs_strerror(error));
        } else if (n != (switched && i == row->hit)) {
            ds_put_format(&why, "\n    flow %d counted %"PRIu64" packets", i,
                          n);
        }
    }

    const uint8_t *frame = r.data + r.meta_len;
    size_t frame_len = r.size - r.meta_len;

    if (row->expect == XP_TO_TC) {
        const struct xdp_dp_skb_meta *meta = (const void *) r.data;

        if (r.meta_len != sizeof *meta
            || meta->magic != XDP_DP_SKB_META_MAGIC) {
            ds_put_format(&why, "\n    no metadata for the TC half (%"PRIu32
                          " bytes)", r.meta_len);
        } else {
            bool same = meta->n_outputs == n_ports;

            for (int i = 0; same && i < n_ports; i++) {
                same = meta->ifindex[i] == XP_IFINDEX_BASE + row->ports[i];
            }
            if (!same) {
                ds_put_format(&why, "\n    to %"PRIu32" ports:",
                              meta->n_outputs);
                for (int i = 0; i < meta->n_outputs
                                && i < XDP_DP_MAX_OUTPUTS; i++) {
                    ds_put_format(&why, " %d", (int) meta->ifindex[i]
                                               - XP_IFINDEX_BASE);
                }
            }
        }
    }
    if ((row->expect == XP_REDIRECT || row->expect == XP_TO_TC)
        && (frame_len != out_len || memcmp(frame, out, out_len))) {
        ds_put_cstr(&why, "\n    output   ");
        xp_put_hex(&why, frame, frame_len);
        ds_put_cstr(&why, "\n    expected ");
        xp_put_hex(&why, out, out_len);
    }
    if (row->expect == XP_REDIRECT || row->expect == XP_TO_TC) {
        struct ds bad_in = DS_EMPTY_INITIALIZER;
        struct ds bad_out = DS_EMPTY_INITIALIZER;
        uint8_t fixed[XP_MAX_FRAME];

        /* What the TC half does to a full checksum. */
        memcpy(fixed, frame, MIN(frame_len, sizeof fixed));
        if (row->expect == XP_TO_TC && r.meta_len) {
            xp_tc_fix_csum((const void *) r.data, fixed, frame_len);
        }
        if (xp_check_csums(in, in_len, &bad_in) && !bad_in.length) {
            xp_check_csums(fixed, frame_len, &bad_out);
            if (bad_out.length) {
                ds_put_format(&why, "\n    bad checksums in the output:%s",
                              ds_cstr(&bad_out));
            }
        }
        ds_destroy(&bad_in);
        ds_destroy(&bad_out);
    }

    /* 4. Open vSwitch. */
    if (!row->ovs_differs) {
        int ovs_hit = xp_ovs_classify(in, in_len, flows, n_flows, &why);

        if (ovs_hit != row->hit) {
            ds_put_format(&why, "\n    OVS matches flow %d, the row says %d",
                          ovs_hit, row->hit);
        } else if (ovs_hit >= 0) {
            struct xp_ovs_out ovs;

            xp_ovs_execute(in, in_len, &flows[ovs_hit].actions, &ovs);
            if (ovs.n != n_ports) {
                ds_put_format(&why, "\n    OVS outputs to %d ports", ovs.n);
            }
            for (int i = 0; i < ovs.n && i < n_ports; i++) {
                const struct dp_packet *p = ovs.packets[i];

                if (ovs.ports[i] != row->ports[i]) {
                    ds_put_format(&why, "\n    OVS outputs to port %d",
                                  ovs.ports[i]);
                }
                if (dp_packet_size(p) != out_len
                    || memcmp(dp_packet_data(p), out, out_len)) {
                    ds_put_cstr(&why, "\n    OVS outputs ");
                    xp_put_hex(&why, dp_packet_data(p), dp_packet_size(p));
                }
            }
            xp_ovs_out_destroy(&ovs);
        }
    }

    /* 5. Clean up.  The datapath gives a freed subtable slot to a new
     * mask only after XP_QUARANTINE_MS (DP_XDP_SLOT_QUARANTINE_MS in
     * dpif-xdp-flow.c): wait, so that the rows do not run out of the
     * XDP_DP_MAX_MASKS slots. */
    xp_operate(dpif, flows, n_flows, false, &why);
    for (int i = 0; i < n_flows; i++) {
        xp_free_flow(&flows[i]);
    }
    xnanosleep(XP_QUARANTINE_MS * 1000 * 1000);

    bool ok = !why.length;
    if (ok) {
        printf("ok %s\n", row->name);
    } else {
        printf("FAIL %s:%s\n", row->name, ds_cstr(&why));
    }
    if (verbose) {
        printf("    verdict %s, %"PRIu32" bytes of metadata, frame ",
               xp_verdict_name(r.verdict), r.meta_len);
        struct ds s = DS_EMPTY_INITIALIZER;
        xp_put_hex(&s, frame, frame_len);
        printf("%s\n", ds_cstr(&s));
        ds_destroy(&s);
    }
    ds_destroy(&why);
    return ok;
}

struct dpif *
xp_open_datapath(void)
{
    struct dpif *dpif;
    char name[32];
    int error;

    dp_register_provider(&dpif_xdp_class);
    snprintf(name, sizeof name, "xdppkt%ld", (long) getpid());
    error = dpif_create_and_open(name, "xdp", &dpif);
    if (error) {
        ovs_fatal(error, "cannot create datapath %s", name);
    }

    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    uint32_t port_no = XP_IN_PORT;
    /* Programs change only where the rows say so. */
    dp_xdp_compile_set_auto(dp, false);
    xp_map_update(dp->skel->maps.xdp_dp_in_ports, &lo_ifindex, &port_no);
    return dpif;
}

void
xp_close_datapath(struct dpif *dpif)
{
    dpif_delete(dpif);
    dpif_close(dpif);
}

/* "test-xdp-packet": every row. */
static int
do_table(void)
{
    struct dpif *dpif = xp_open_datapath();
    int n_failed = 0;

    for (size_t i = 0; i < xp_n_rows; i++) {
        n_failed += !xp_run_row(dpif, &xp_rows[i], i);
    }
    printf("%"PRIuSIZE" rows, %d failed\n", xp_n_rows, n_failed);
    xp_close_datapath(dpif);
    return n_failed ? 1 : 0;
}

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_WARN);
    odp_execute_init();
    lo_ifindex = if_nametoindex("lo");

    if (argc > 1 && !strcmp(argv[1], "-v")) {
        verbose = true;
        argc--;
        argv++;
    }
    if (argc > 1 && !strcmp(argv[1], "--compiled")) {
        compiled = true;
        argc--;
        argv++;
    }
    if (argc == 1) {
        return do_table();
    } else if (argc == 2 && !strcmp(argv[1], "flush")) {
        return do_flush();
    } else if (argc == 2 && !strcmp(argv[1], "budget")) {
        return do_budget();
    } else if (argc == 2 && !strcmp(argv[1], "rank")) {
        return do_rank();
    } else if (argc == 2 && !strcmp(argv[1], "grow")) {
        return do_grow();
    } else if (argc == 2 && !strcmp(argv[1], "recirc")) {
        return do_recirc();
    } else if (argc == 3 && !strcmp(argv[1], "key")) {
        return do_key(argv[2]);
    }
    ovs_fatal(0, "usage: %s [-v] [--compiled] [flush | budget | rank | "
              "grow | recirc | key HEX]",
              program_name);
}
