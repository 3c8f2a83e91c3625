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

/* test-xdp-packet's modes other than the table (test-xdp-packet.c
 * explains the test and runs the table): "budget" (do_budget()), "rank"
 * (do_rank()), "grow" (do_grow()), "flush" (do_flush()) and "key"
 * (do_key()); "recirc" (do_recirc()) has a file of its own,
 * test-xdp-packet-recirc.c.  All but "key" open a datapath of
 * their own with the helpers of test-xdp-packet.c; each prints what it
 * sees and returns the program's exit status. */

#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dp-packet.h"
#include "dpif.h"
#include "flow.h"
#include "hash.h"
#include "netlink.h"
#include "odp-execute.h"
#include "odp-netlink.h"
#include "odp-util.h"
#include "ofproto-xdp/dpif-xdp-private.h"
#include "ofproto-xdp/xdp-actions.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/match.h"
#include "openvswitch/ofpbuf.h"
#include "packets.h"
#include "tests/test-xdp-packet.h"
#include "timeval.h"
#include "util.h"

/* Runs 'n' misses of the frame in 'in' through the program, arriving on
 * datapath port 'port_no' (by mapping 'lo' to it), all in one
 * BPF_PROG_TEST_RUN, and prints how many upcalls were made and how many
 * the port's budget dropped. */
static void
xp_budget_round(struct dp_xdp *dp, const char *name, uint32_t port_no,
                const uint8_t *in, size_t in_len, uint32_t n)
{
    struct xdp_md ctx_in = { .data_end = in_len,
                             .ingress_ifindex = lo_ifindex };
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = in, .data_size_in = in_len,
                .ctx_in = &ctx_in, .ctx_size_in = sizeof ctx_in,
                .repeat = n);

    xp_map_update(dp->skel->maps.xdp_dp_in_ports, &lo_ifindex, &port_no);
    struct xdp_dp_stats before = xp_read_stats(dp);
    int error = bpf_prog_test_run_opts(dp->xdp_prog_fd, &opts);
    if (error) {
        ovs_fatal(-error, "BPF_PROG_TEST_RUN");
    }
    struct xdp_dp_stats after = xp_read_stats(dp);
    uint64_t missed = after.n_missed - before.n_missed;
    uint64_t limited = after.n_upcall_limited - before.n_upcall_limited;
    uint64_t lost = after.n_lost - before.n_lost;

    printf("%s: port %"PRIu32", %"PRIu64" misses, %"PRIu64" upcalls, "
           "%"PRIu64" over budget, %"PRIu64" lost otherwise\n", name,
           port_no, missed, missed - lost, limited, lost - limited);
}

/* "test-xdp-packet budget": a port that floods the datapath with misses
 * uses up its upcall budget, and another port's upcalls still go through
 * (see struct xdp_dp_upcall_budget).  The flood is 600 misses in one
 * BPF_PROG_TEST_RUN, which takes well under one budget window (10 ms). */
int
do_budget(void)
{
    static const char *frame =
        "020000000002 020000000001 0800 "
        "4500001c000100004011 66cd 0a000001 0a000002 "
        "9c400035 0008 ed4b";
    struct dpif *dpif = xp_open_datapath();
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    uint8_t in[XP_MAX_FRAME];
    size_t in_len = xp_parse_hex(frame, in, sizeof in);

    printf("budget: %"PRIu32" upcalls per port per CPU in 10 ms\n",
           dp->skel->data->xdp_dp_upcall_burst);
    xp_budget_round(dp, "flood", 1, in, in_len, 600);
    xp_budget_round(dp, "other port", 2, in, in_len, 1);
    dp->skel->data->xdp_dp_upcall_burst = 0;
    xp_budget_round(dp, "no budget", 3, in, in_len, 600);
    xp_close_datapath(dpif);
    return 0;
}

/* "test-xdp-packet rank": the compiler ranks subtables by their hits.
 * Two flows of two masks are compiled (the first installed is visited
 * first, neither having hits), then 5,000 frames hit the second: within a
 * ranking period or two the compiler thread swaps in a program that
 * visits it first.  Prints the compiled order (by flow) before and after,
 * and whether the new order came within 20 s. */
int
do_rank(void)
{
    const struct xp_row *row = NULL;

    for (size_t i = 0; i < xp_n_rows; i++) {
        if (!strcmp(xp_rows[i].name, "udp: second of two subtables")) {
            row = &xp_rows[i];
        }
    }
    ovs_assert(row);

    struct dpif *dpif = xp_open_datapath();
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    struct xp_parsed_flow flows[2];
    struct ds why = DS_EMPTY_INITIALIZER;
    uint8_t in[XP_MAX_FRAME];
    size_t in_len = xp_parse_hex(row->in, in, sizeof in);
    struct xdp_dp_cfg cfg;
    int mask_slot[2];

    xp_setup_ports(dp, row);
    for (int i = 0; i < 2; i++) {
        xp_parse_flow(&row->flows[i], &flows[i], i + 1);
        xp_operate(dpif, &flows[i], 1, true, &why);
    }
    ovs_mutex_lock(&dp->flow_mutex);
    for (int i = 0; i < 2; i++) {
        ovs_u128 ufid = flows[i].ufid;
        const struct dp_xdp_flow *f;

        mask_slot[i] = -1;
        HMAP_FOR_EACH (f, node, &dp->flows) {
            if (ovs_u128_equals(f->ufid, ufid)) {
                mask_slot[i] = f->mask_slot;
            }
        }
    }
    ovs_mutex_unlock(&dp->flow_mutex);

    struct ds reply = DS_EMPTY_INITIALIZER;
    dp_xdp_compile_now(dp, &reply);
    ds_destroy(&reply);
    dp_xdp_compile_get_cfg(dp, &cfg);
    printf("compiled order: flow %d, flow %d\n",
           cfg.csubs[0].slot == mask_slot[0] ? 1 : 2,
           cfg.csubs[1].slot == mask_slot[0] ? 1 : 2);

    /* 5,000 hits on the second flow's subtable. */
    struct xdp_md ctx_in = { .data_end = in_len,
                             .ingress_ifindex = lo_ifindex };
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = in, .data_size_in = in_len,
                .ctx_in = &ctx_in, .ctx_size_in = sizeof ctx_in,
                .repeat = 5000);
    if (bpf_prog_test_run_opts(dp->xdp_prog_fd, &opts)) {
        ovs_fatal(errno, "BPF_PROG_TEST_RUN");
    }

    dp_xdp_compile_set_auto(dp, true);
    long long int deadline = time_msec() + 20000;
    bool reranked = false;
    while (!reranked && time_msec() < deadline) {
        xsleep(1);
        dp_xdp_compile_get_cfg(dp, &cfg);
        reranked = cfg.n_csubs == 2 && cfg.csubs[0].slot == mask_slot[1];
    }
    printf("after 5000 hits on flow 2: %s\n",
           reranked ? "flow 2 is visited first" : "order unchanged");
    for (int i = 0; i < 2; i++) {
        xp_free_flow(&flows[i]);
    }
    ds_destroy(&why);
    xp_close_datapath(dpif);
    return 0;
}

/* Prints the state of the compact map of the datapath's first subtable. */
static void
xp_print_cmap(struct dp_xdp *dp, const char *when)
{
    ovs_mutex_lock(&dp->flow_mutex);
    const struct dp_xdp_mask *m = &dp->masks[dp->mask_order[0]];
    const struct dp_xdp_cslot *cslot = dp_xdp_compile_slot(
        dp, dp->mask_order[0]);
    if (cslot->cmap_fd < 0) {
        printf("%s: %"PRIu32" flows, no compact map\n", when, m->n_flows);
    } else {
        printf("%s: %"PRIu32" flows, compact map of %"PRIu32" entries%s\n",
               when, m->n_flows, cslot->cmap_size,
               cslot->cmap_full ? ", full" : "");
    }
    ovs_mutex_unlock(&dp->flow_mutex);
}

/* "test-xdp-packet grow": a compiled subtable gets more flows than its
 * compact map holds; the compiler thread makes a bigger one. */
int
do_grow(void)
{
    struct dpif *dpif = xp_open_datapath();
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    struct ds why = DS_EMPTY_INITIALIZER;

    for (int i = 0; i < 1101; i++) {
        struct xp_parsed_flow pf;
        char match[256];

        snprintf(match, sizeof match,
                 "in_port(1),eth(src=02:00:00:00:00:01,"
                 "dst=02:00:00:00:00:02),eth_type(0x0800),"
                 "ipv4(src=10.%d.%d.1,dst=10.0.0.2,proto=17,tos=0/0,"
                 "ttl=64/0,frag=no),udp(src=40000/0,dst=53/0)",
                 i / 256, i % 256);
        xp_parse_flow(&(struct xp_flow) { match, "2" }, &pf, i + 1);
        xp_operate(dpif, &pf, 1, true, &why);
        xp_free_flow(&pf);
        if (!i) {
            struct ds reply = DS_EMPTY_INITIALIZER;

            dp_xdp_compile_now(dp, &reply);
            ds_destroy(&reply);
            xp_print_cmap(dp, "compiled");
        }
    }
    if (why.length) {
        printf("installs:%s\n", ds_cstr(&why));
    }
    xp_print_cmap(dp, "installed");

    dp_xdp_compile_set_auto(dp, true);
    long long int deadline = time_msec() + 20000;
    bool done = false;
    while (!done && time_msec() < deadline) {
        xsleep(1);
        ovs_mutex_lock(&dp->flow_mutex);
        const struct dp_xdp_mask *m = &dp->masks[dp->mask_order[0]];
        const struct dp_xdp_cslot *cslot = dp_xdp_compile_slot(
            dp, dp->mask_order[0]);
        done = cslot->cmap_fd >= 0 && !cslot->cmap_full
               && cslot->cmap_size >= 2 * m->n_flows;
        ovs_mutex_unlock(&dp->flow_mutex);
    }
    xp_print_cmap(dp, "recompiled");
    ds_destroy(&why);
    xp_close_datapath(dpif);
    return 0;
}

/* "test-xdp-packet flush": installs a flow, runs a frame through it,
 * flushes the flow table as "ovs-appctl dpctl/del-flows" and ofproto's
 * start-up do, and installs the same flow again once its subtable slot
 * may be reused.  Prints the result of each step. */
int
do_flush(void)
{
    static const struct xp_row row = {
        .name = "flush",
        .in = "020000000002 020000000001 0800 "
              "4500001c000100004011 66cd 0a000001 0a000002 "
              "9c400035 0008 ed4b",
        .flows = {{ "in_port(1),eth(src=02:00:00:00:00:01,"
                    "dst=02:00:00:00:00:02),eth_type(0x0800),"
                    "ipv4(src=10.0.0.1/0.0.0.0,dst=10.0.0.2/0.0.0.0,"
                    "proto=17/0,tos=0/0,ttl=64/0,frag=no),"
                    "udp(src=40000/0,dst=53/0)", "2" }},
        .hit = 0,
        .expect = XP_REDIRECT,
        .ports = { 2 },
    };
    struct dpif *dpif = xp_open_datapath();
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    struct xp_parsed_flow flow;
    uint8_t in[XP_MAX_FRAME];
    size_t in_len = xp_parse_hex(row.in, in, sizeof in);
    struct xp_result r;

    xp_setup_ports(dp, &row);
    xp_parse_flow(&row.flows[0], &flow, 1);
    for (int round = 1; round <= 2; round++) {
        struct ds why = DS_EMPTY_INITIALIZER;

        xp_operate(dpif, &flow, 1, true, &why);
        printf("install %d:%s\n", round,
               why.length ? ds_cstr(&why) : " ok");
        xp_run(dp, in, in_len, &r);
        printf("frame: %s\n", xp_verdict_name(r.verdict));
        dpif_flow_flush(dpif);
        xp_run(dp, in, in_len, &r);
        printf("after flush: %s (%s)\n", xp_verdict_name(r.verdict),
               r.verdict == XDP_DROP ? "missed" : "still forwarded");
        ds_destroy(&why);
        /* Past DP_XDP_SLOT_QUARANTINE_MS, so that the subtable slot and
         * the statistics slot may be handed out again. */
        xnanosleep(2 * XP_QUARANTINE_MS * 1000 * 1000);
    }
    xp_free_flow(&flow);
    xp_close_datapath(dpif);
    return 0;
}

/* "test-xdp-packet key HEX". */
int
do_key(const char *hex)
{
    uint8_t frame[XP_MAX_FRAME];
    size_t len = xp_parse_hex(hex, frame, sizeof frame);
    struct dp_packet *packet = dp_packet_clone_data(frame, len);
    struct ds s = DS_EMPTY_INITIALIZER;
    struct ofpbuf key;
    struct flow flow;

    pkt_metadata_init(&packet->md, u32_to_odp(XP_IN_PORT));
    flow_extract(packet, &flow);
    struct odp_flow_key_parms parms = {
        .flow = &flow,
        .support = { .max_vlan_headers = 2 },
    };
    ofpbuf_init(&key, 0);
    odp_flow_key_from_flow(&parms, &key);
    odp_flow_key_format(key.data, key.size, &s);
    printf("%s\n", ds_cstr(&s));
    ds_destroy(&s);
    ofpbuf_uninit(&key);
    dp_packet_delete(packet);
    return 0;
}
