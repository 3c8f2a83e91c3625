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

/* "test-xdp-packet [--compiled] recirc": recirculation and the hash action.
 *
 * Each phase installs a flow table whose first stage, recirc_id(0), ends
 * in "recirc(XR_RECIRC_ID)" (after "hash(l4(XR_BASIS))" or rewrites) and
 * whose second stage matches recirc_id(XR_RECIRC_ID), runs frames through
 * the datapath program, and checks what comes out against what Open
 * vSwitch's own code does with the same frames and flows, pass by pass
 * (xr_ovs_run(): flow_extract() and the flows' masks classify,
 * odp_execute_actions() executes, and a recirc action starts another pass
 * with the packet's metadata; packets have no RSS hash, so that the hash
 * action takes flow_hash_5tuple() of the packet as it is, which is what
 * the datapath program computes): the output port and frame, the upcalls
 * (their recirculation id, their datapath hash, all 32 bits of it, and
 * their frame), and each flow's and the datapath's counters, which count a
 * hit or a miss for every pass.  The phases, after a check of how
 * xdp_actions_compile() takes hash and recirc actions ("actions"):
 *
 *   hash      "hash(l4),recirc" to four flows that match dp_hash & 3 and
 *             output to ports 2 to 5 (through the TC half, so that the
 *             metadata names the port), for frames of many kinds: IPv4
 *             TCP, UDP, SCTP, ICMP, first and later fragments, IPv6 TCP,
 *             UDP and ICMPv6, ARP requests and replies, LLDP.  The four
 *             ports must all be used.
 *   hash-miss The first stage alone: the second pass of every frame
 *             misses, and its upcall must carry OVS's hash.
 *   hash-sym  "hash(sym_l4),recirc", which XDP leaves to ovs-vswitchd: a
 *             slow-path upcall of the frame as it arrived.
 *   pipeline-redirect, pipeline-skb
 *             pop_vlan and set(ipv4) before the recirc, another set(ipv4)
 *             after it, out through a redirect port (XDP fixes the TCP or
 *             UDP checksum for the rewrites of both passes) or through the
 *             TC half (which fixes it as xp_tc_fix_csum() does here).
 *   pipeline-miss, pipeline-slow
 *             The same first stage, then a miss, or a slow-path flow: the
 *             upcall must carry OVS's frame at that point, checksums
 *             included, and the recirculation id.
 *   loop      A flow that recirculates to itself: dropped and counted
 *             after XDP_DP_MAX_RECIRC recirculations.
 *
 * With --compiled, each phase's table runs in a program compiled for it;
 * none of the tables has a transport-layer mask, so the compiled hash
 * action parses the ports itself.  Prints "ok PHASE: CHECK" or "FAIL
 * PHASE: CHECK:" followed by reasons, then "N checks, M failed", and
 * exits with status 1 if M is not 0. */

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


#define XR_RECIRC_ID 7          /* Recirculation id of the second stage. */
#define XR_BASIS 5              /* Basis of the hash actions. */
#define XR_MAX_PASSES (1 + XDP_DP_MAX_RECIRC)   /* Passes of a packet. */
#define XR_MAX_FLOWS 5          /* Flows of a phase. */
#define XR_N_KINDS 12           /* Kinds of frames of the hash phases... */
#define XR_N_FRAMES (8 * XR_N_KINDS)    /* ...and how many in all. */
#define XR_MAX_UPCALLS 4        /* Upcalls kept per frame. */
#define XR_MAX_REASONS 8        /* Failed frames listed per check. */

/* What Open vSwitch does with a frame, pass by pass. */
struct xr_ovs {
    int n_passes;               /* Passes made. */
    int hits[XR_MAX_PASSES];    /* The flow of each pass, or -1 (a miss). */
    bool limited;               /* Still recirculating after the last. */
    struct dp_packet *last;     /* The packet at the start of the last
                                 * pass, with its metadata. */
    int n_out;                  /* Outputs... */
    int out_ports[XDP_DP_MAX_OUTPUTS];  /* ...their ports... */
    struct dp_packet *out[XDP_DP_MAX_OUTPUTS];  /* ...and packets. */
    struct dp_packet *next;     /* What the current pass recirculates. */
};

static void
xr_ovs_execute_cb(void *r_, struct dp_packet_batch *batch,
                  const struct nlattr *a, bool should_steal)
{
    struct xr_ovs *r = r_;
    struct dp_packet *packet;

    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        if (nl_attr_type(a) == OVS_ACTION_ATTR_OUTPUT
            && r->n_out < XDP_DP_MAX_OUTPUTS) {
            r->out_ports[r->n_out] = nl_attr_get_u32(a);
            r->out[r->n_out++] = dp_packet_clone(packet);
        } else if (nl_attr_type(a) == OVS_ACTION_ATTR_RECIRC && !r->next) {
            r->next = dp_packet_clone(packet);
            r->next->md.recirc_id = nl_attr_get_u32(a);
        }
    }
    dp_packet_delete_batch(batch, should_steal);
}

/* Runs the frame 'frame' arriving on XP_IN_PORT through the 'n' 'flows'
 * as OVS would, for at most XR_MAX_PASSES passes, into '*r'.  Stops at a
 * pass that hits one of the flows past the first 'n_xdp', which run in
 * ovs-vswitchd: XDP hands the packet over there. */
static void
xr_ovs_run(const uint8_t *frame, size_t len,
           const struct xp_parsed_flow *flows, int n, int n_xdp,
           struct xr_ovs *r)
{
    struct dp_packet *packet = dp_packet_clone_data_with_headroom(frame, len,
                                                                   64);

    memset(r, 0, sizeof *r);
    pkt_metadata_init(&packet->md, u32_to_odp(XP_IN_PORT));
    while (packet && r->n_passes < XR_MAX_PASSES) {
        struct dp_packet_batch batch;
        struct flow flow;
        int hit = -1;

        /* flow_extract() sets the header offsets, and gives TCP and UDP
         * packets an RSS hash, which the hash action would take instead
         * of flow_hash_5tuple(): take it away again. */
        flow_extract(packet, &flow);
        dp_packet_reset_offload(packet);
        dp_packet_delete(r->last);
        r->last = dp_packet_clone(packet);
        for (int i = 0; i < n; i++) {
            struct match match;

            if (!parse_key_and_mask_to_match(flows[i].key.data,
                                             flows[i].key.size,
                                             flows[i].mask.data,
                                             flows[i].mask.size, &match)
                && flow_equal_except(&flow, &match.flow, &match.wc)) {
                hit = i;
            }
        }
        r->hits[r->n_passes++] = hit;
        if (hit < 0 || hit >= n_xdp) {
            dp_packet_delete(packet);
            return;
        }
        r->next = NULL;
        dp_packet_batch_init_packet(&batch, packet);
        odp_execute_actions(r, &batch, true, flows[hit].actions.data,
                            flows[hit].actions.size, xr_ovs_execute_cb);
        packet = r->next;
    }
    r->limited = packet != NULL;
    dp_packet_delete(packet);
}

static void
xr_ovs_destroy(struct xr_ovs *r)
{
    dp_packet_delete(r->last);
    for (int i = 0; i < r->n_out; i++) {
        dp_packet_delete(r->out[i]);
    }
}

/* An upcall read from the rings. */
struct xr_upcall {
    struct xdp_dp_upcall up;    /* Its header. */
    uint8_t frame[XP_MAX_FRAME];    /* Its frame. */
    uint32_t len;               /* Bytes in 'frame'. */
};

/* The upcalls of the last frame run. */
static struct xr_upcall xr_upcalls[XR_MAX_UPCALLS];
static int xr_n_upcalls;

static void
xr_on_sample(void *aux OVS_UNUSED, int cpu OVS_UNUSED, void *data,
             __u32 size)
{
    const struct xdp_dp_upcall *up = data;

    if (xr_n_upcalls < XR_MAX_UPCALLS && size >= sizeof *up) {
        struct xr_upcall *u = &xr_upcalls[xr_n_upcalls];

        u->up = *up;
        u->len = MIN(MIN(size - sizeof *up, up->pkt_len), sizeof u->frame);
        memcpy(u->frame, up + 1, u->len);
    }
    xr_n_upcalls++;
}

/* A phase: the datapath, the flows and what the counters must come to. */
struct xr_phase {
    const char *name;           /* In the report. */
    struct dpif *dpif;          /* The datapath, the same for all phases. */
    struct dp_xdp *dp;          /* Its provider's state. */
    struct perf_buffer *pb;     /* Our reader of the upcall rings. */
    struct xp_parsed_flow flows[XR_MAX_FLOWS];  /* The phase's flows... */
    int n_flows;
    int n_xdp;                  /* ...of which the first so many run in
                                 * XDP, the others in ovs-vswitchd. */
    uint64_t expect_hits[XR_MAX_FLOWS];     /* What OVS's passes hit... */
    uint64_t expect_hit;                    /* ...and, in all, hits, */
    uint64_t expect_missed;                 /* misses, */
    uint64_t expect_slow;                   /* hits on flows that run in
                                             * ovs-vswitchd */
    uint64_t expect_limited;                /* and packets dropped at the
                                             * recirculation limit. */
    struct xdp_dp_stats before;             /* Datapath counters at the
                                             * start. */
    int n_checks, n_failed;                 /* Over all phases. */
};

static void
xr_report(struct xr_phase *ph, const char *check, const struct ds *why)
{
    ph->n_checks++;
    if (!why->length) {
        printf("ok %s: %s\n", ph->name, check);
    } else {
        ph->n_failed++;
        printf("FAIL %s: %s:%s\n", ph->name, check, ds_cstr_ro(why));
    }
}

/* Starts phase 'name' with the flows 'xflows' (up to one with a NULL
 * match), of which the first 'n_xdp' must run in XDP, and output ports
 * that transmit as 'mode' says, port 'redirect' (if nonzero) with a devmap
 * entry.  Reports check "flows". */
static void
xr_phase_start(struct xr_phase *ph, const char *name,
               const struct xp_flow *xflows, int n_xdp, enum xp_mode mode,
               int redirect)
{
    static int next_id = 1;
    struct ds why = DS_EMPTY_INITIALIZER;
    struct xp_row row = { .mode = mode };
    uint32_t action_bits = 0;
    struct xdp_dp_cfg cfg;

    ph->name = name;
    ph->n_xdp = n_xdp;
    memset(ph->expect_hits, 0, sizeof ph->expect_hits);
    ph->expect_hit = ph->expect_missed = ph->expect_limited = 0;
    ph->expect_slow = 0;
    if (redirect) {
        row.expect = XP_REDIRECT;
        row.ports[0] = redirect;
    }
    xp_setup_ports(ph->dp, &row);

    for (ph->n_flows = 0; xflows[ph->n_flows].match; ph->n_flows++) {
        struct xp_parsed_flow *pf = &ph->flows[ph->n_flows];
        struct xdp_flow xflow;

        ovs_assert(ph->n_flows < XR_MAX_FLOWS);
        xp_parse_flow(&xflows[ph->n_flows], pf, next_id++);
        xp_operate(ph->dpif, pf, 1, true, &why);
        xdp_actions_compile(pf->actions.data, pf->actions.size, &xflow,
                            NULL);
        if (ph->n_flows < n_xdp) {
            action_bits |= xflow.action_bits;
        }
    }
    xp_maybe_compile(ph->dp, &why);
    xp_check_in_xdp(ph->dpif, ph->flows, n_xdp, &why);

    /* A compiled program must have code for the flows' actions. */
    dp_xdp_compile_get_cfg(ph->dp, &cfg);
    if (cfg.enabled && action_bits & ~cfg.action_bits) {
        ds_put_format(&why, "\n    compiled for actions %#"PRIx32
                      ", the flows have %#"PRIx32, cfg.action_bits,
                      action_bits);
    }
    xr_report(ph, "flows", &why);
    ds_destroy(&why);
    ph->before = xp_read_stats(ph->dp);
}

/* Runs 'frame' through OVS into '*ovs' and through the datapath program
 * into '*r' and 'xr_upcalls', and adds what OVS's passes hit to the
 * counters 'ph' expects. */
static void
xr_run(struct xr_phase *ph, const uint8_t *frame, size_t len,
       struct xr_ovs *ovs, struct xp_result *r)
{
    xr_ovs_run(frame, len, ph->flows, ph->n_flows, ph->n_xdp, ovs);
    for (int i = 0; i < ovs->n_passes; i++) {
        if (ovs->hits[i] >= ph->n_xdp) {
            /* XDP sends the packet up without counting it as switched:
             * ovs-vswitchd counts it in the flow when it executes it,
             * which the test's own ring reader does not. */
            ph->expect_slow++;
        } else if (ovs->hits[i] >= 0) {
            ph->expect_hits[ovs->hits[i]]++;
            ph->expect_hit++;
        } else {
            ph->expect_missed++;
        }
    }
    ph->expect_limited += ovs->limited;

    xr_n_upcalls = 0;
    xp_run(ph->dp, frame, len, r);
    perf_buffer__consume(ph->pb);
}

/* Ends the phase: reports check "counters" (each flow's and the
 * datapath's) and removes the flows. */
static void
xr_phase_end(struct xr_phase *ph)
{
    struct xdp_dp_stats after = xp_read_stats(ph->dp);
    struct ds why = DS_EMPTY_INITIALIZER;

    for (int i = 0; i < ph->n_flows; i++) {
        uint64_t n = 0;
        char layer[8];
        int error = xp_flow_stats(ph->dpif, &ph->flows[i], &n, layer,
                                  sizeof layer);

        if (error || n != ph->expect_hits[i]) {
            ds_put_format(&why, "\n    flow %d counted %"PRIu64" packets, "
                          "OVS's passes hit it %"PRIu64" times%s", i, n,
                          ph->expect_hits[i], error ? " (no flow)" : "");
        }
    }
#define XR_CHECK_COUNTER(FIELD, EXPECTED)                               \
    if (after.FIELD - ph->before.FIELD != (EXPECTED)) {                 \
        ds_put_format(&why, "\n    %s +%"PRIu64", expected +%"PRIu64,   \
                      #FIELD,                                           \
                      (uint64_t) (after.FIELD - ph->before.FIELD),      \
                      (uint64_t) (EXPECTED));                           \
    }
    XR_CHECK_COUNTER(n_hit, ph->expect_hit);
    XR_CHECK_COUNTER(n_missed, ph->expect_missed);
    XR_CHECK_COUNTER(n_slow_path, ph->expect_slow);
    XR_CHECK_COUNTER(n_recirc_limited, ph->expect_limited);
    XR_CHECK_COUNTER(n_lost, 0);
    XR_CHECK_COUNTER(n_tx_error, 0);
#undef XR_CHECK_COUNTER
    xr_report(ph, "counters", &why);
    ds_destroy(&why);

    why = (struct ds) DS_EMPTY_INITIALIZER;
    for (int i = 0; i < ph->n_flows; i++) {
        xp_operate(ph->dpif, &ph->flows[i], 1, false, &why);
        xp_free_flow(&ph->flows[i]);
    }
    if (why.length) {
        printf("%s: cannot remove the flows:%s\n", ph->name, ds_cstr(&why));
    }
    ds_destroy(&why);
    /* Past DP_XDP_SLOT_QUARANTINE_MS, so that the next phase's masks find
     * free subtable slots. */
    xnanosleep(XP_QUARANTINE_MS * 1000 * 1000);
}

/* Appends to 'why', unless it already lists XR_MAX_REASONS frames, a line
 * on frame 'name' made from 'format'; counts it in '*n_reasons'. */
static void OVS_PRINTF_FORMAT(4, 5)
xr_why(struct ds *why, int *n_reasons, const char *name,
       const char *format, ...)
{
    if ((*n_reasons)++ < XR_MAX_REASONS) {
        va_list args;

        ds_put_format(why, "\n    %s: ", name);
        va_start(args, format);
        ds_put_format_valist(why, format, args);
        va_end(args);
    } else if (*n_reasons == XR_MAX_REASONS + 1) {
        ds_put_cstr(why, "\n    ...");
    }
}

/* Builds frame 'i' of the hash phases into 'buf' (XP_MAX_FRAME bytes):
 * kind 'i % XR_N_KINDS', with addresses and ports from 'i'.  Returns its
 * length and stores in 'name' ('name_size' bytes) what it is. */
static size_t
xr_hash_frame(int i, uint8_t *buf, char *name, size_t name_size)
{
    static const char *const kinds[XR_N_KINDS] = {
        "ipv4 tcp", "ipv4 udp", "ipv4 sctp", "ipv4 icmp",
        "ipv4 later fragment", "ipv4 first fragment", "ipv6 tcp",
        "ipv6 udp", "ipv6 icmpv6", "arp request", "arp reply", "lldp",
    };
    uint32_t r = hash_int(i, 0);
    struct dp_packet *p = dp_packet_new(0);
    struct flow flow;
    size_t len;

    memset(&flow, 0, sizeof flow);
    flow.dl_src = (struct eth_addr) ETH_ADDR_C(02, 00, 00, 00, 00, 01);
    flow.dl_dst = (struct eth_addr) ETH_ADDR_C(02, 00, 00, 00, 00, 02);
    flow.dl_type = htons(ETH_TYPE_IP);
    flow.nw_src = htonl(0x0a000000 | (r & 0xffff00) | 1);
    flow.nw_dst = htonl(0xc0a80000 | (hash_int(r, 1) & 0xffff));
    flow.nw_ttl = 64;
    flow.tp_src = htons(1024 + (r >> 16) % 50000);
    flow.tp_dst = htons((r >> 8) % 2 ? 80 : 53 + r % 1000);
    for (int j = 0; j < 16; j++) {
        flow.ipv6_src.s6_addr[j] = hash_int(r, 100 + j);
        flow.ipv6_dst.s6_addr[j] = hash_int(r, 200 + j);
    }

    switch (i % XR_N_KINDS) {
    case 0:
        flow.nw_proto = IPPROTO_TCP;
        flow.tcp_flags = htons(TCP_SYN);
        break;
    case 1:
        flow.nw_proto = IPPROTO_UDP;
        break;
    case 2:
        flow.nw_proto = IPPROTO_SCTP;
        break;
    case 3:
        flow.nw_proto = IPPROTO_ICMP;
        flow.tp_src = htons(r % 2 ? ICMP4_ECHO_REQUEST : ICMP4_ECHO_REPLY);
        flow.tp_dst = htons(0);
        break;
    case 4:
        flow.nw_proto = IPPROTO_UDP;
        flow.nw_frag = FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER;
        break;
    case 5:
        flow.nw_proto = IPPROTO_TCP;
        flow.nw_frag = FLOW_NW_FRAG_ANY;
        break;
    case 6:
        flow.dl_type = htons(ETH_TYPE_IPV6);
        flow.nw_proto = IPPROTO_TCP;
        break;
    case 7:
        flow.dl_type = htons(ETH_TYPE_IPV6);
        flow.nw_proto = IPPROTO_UDP;
        break;
    case 8:
        flow.dl_type = htons(ETH_TYPE_IPV6);
        flow.nw_proto = IPPROTO_ICMPV6;
        flow.tp_src = htons(ICMP6_ECHO_REQUEST);
        flow.tp_dst = htons(0);
        break;
    case 9:
    case 10:
        flow.dl_type = htons(ETH_TYPE_ARP);
        flow.nw_proto = i % XR_N_KINDS == 9 ? ARP_OP_REQUEST : ARP_OP_REPLY;
        flow.arp_sha = flow.dl_src;
        flow.tp_src = flow.tp_dst = htons(0);
        break;
    default:
        flow.dl_type = htons(0x88cc);   /* LLDP. */
        break;
    }
    flow_compose(p, &flow, NULL, 0);
    len = MIN(dp_packet_size(p), XP_MAX_FRAME);
    memcpy(buf, dp_packet_data(p), len);
    dp_packet_delete(p);
    snprintf(name, name_size, "frame %d (%s)", i, kinds[i % XR_N_KINDS]);
    return len;
}

/* Compares the frame that the datapath program sent out, 'r', with OVS's
 * only output in 'ovs'.  'skb' says whether the program passes it to the
 * TC half, whose checksum fix is applied here.  Appends to 'why'. */
static void
xr_check_output(const struct xr_ovs *ovs, const struct xp_result *r,
                bool skb, const char *name, struct ds *why, int *n_reasons)
{
    const struct xdp_dp_skb_meta *meta = (const void *) r->data;
    uint8_t frame[XP_MAX_FRAME];
    size_t len = r->size - r->meta_len;
    int port = -1;

    if (ovs->n_out != 1) {
        xr_why(why, n_reasons, name, "OVS outputs %d times", ovs->n_out);
        return;
    }
    if (r->verdict != (skb ? XDP_PASS : XDP_REDIRECT)) {
        xr_why(why, n_reasons, name, "verdict %s",
               xp_verdict_name(r->verdict));
        return;
    }
    memcpy(frame, r->data + r->meta_len, MIN(len, sizeof frame));
    if (skb) {
        if (r->meta_len != sizeof *meta || meta->n_outputs != 1) {
            xr_why(why, n_reasons, name, "no metadata for one output");
            return;
        }
        port = (int) meta->ifindex[0] - XP_IFINDEX_BASE;
        xp_tc_fix_csum(meta, frame, len);
    } else {
        port = ovs->out_ports[0];   /* The only port with a devmap entry. */
    }
    if (port != ovs->out_ports[0]) {
        xr_why(why, n_reasons, name, "to port %d, OVS to port %d", port,
               ovs->out_ports[0]);
    } else if (len != dp_packet_size(ovs->out[0])
               || memcmp(frame, dp_packet_data(ovs->out[0]), len)) {
        struct ds a = DS_EMPTY_INITIALIZER, b = DS_EMPTY_INITIALIZER;

        xp_put_hex(&a, frame, len);
        xp_put_hex(&b, dp_packet_data(ovs->out[0]),
                   dp_packet_size(ovs->out[0]));
        xr_why(why, n_reasons, name, "output %s, OVS outputs %s", ds_cstr(&a),
               ds_cstr(&b));
        ds_destroy(&a);
        ds_destroy(&b);
    }
}

/* Checks that the datapath program made exactly one upcall for the frame,
 * of 'type', with 'arg' in its 'slot', and that it carries what OVS's last
 * pass in 'ovs' started with: the frame, the recirculation id and the
 * datapath hash.  Appends to 'why'. */
static void
xr_check_upcall(const struct xr_ovs *ovs, const struct xp_result *r,
                uint32_t type, uint32_t arg, const char *name, struct ds *why,
                int *n_reasons)
{
    const struct xr_upcall *u = &xr_upcalls[0];
    const struct dp_packet *p = ovs->last;

    if (r->verdict != XDP_DROP || xr_n_upcalls != 1) {
        xr_why(why, n_reasons, name, "verdict %s, %d upcalls",
               xp_verdict_name(r->verdict), xr_n_upcalls);
    } else if (u->up.type != type || u->up.in_port != XP_IN_PORT
               || u->up.slot != arg) {
        xr_why(why, n_reasons, name, "upcall of type %"PRIu32", port %"PRIu32
               ", slot %"PRIu32, u->up.type, u->up.in_port, u->up.slot);
    } else if (u->up.recirc_id != p->md.recirc_id
               || u->up.dp_hash != p->md.dp_hash) {
        xr_why(why, n_reasons, name, "upcall with recirc_id %#"PRIx32
               ", dp_hash %#"PRIx32"; OVS has recirc_id %#"PRIx32
               ", dp_hash %#"PRIx32, u->up.recirc_id, u->up.dp_hash,
               p->md.recirc_id, p->md.dp_hash);
    } else if (u->len != dp_packet_size(p)
               || memcmp(u->frame, dp_packet_data(p), u->len)) {
        struct ds a = DS_EMPTY_INITIALIZER, b = DS_EMPTY_INITIALIZER;

        xp_put_hex(&a, u->frame, u->len);
        xp_put_hex(&b, dp_packet_data(p), dp_packet_size(p));
        xr_why(why, n_reasons, name, "upcall frame %s, OVS has %s",
               ds_cstr(&a), ds_cstr(&b));
        ds_destroy(&a);
        ds_destroy(&b);
    }
}

/* The statistics slot of 'ph''s flow 'i'. */
static uint32_t
xr_flow_slot(struct xr_phase *ph, int i)
{
    const struct dp_xdp_flow *f;
    uint32_t slot = UINT32_MAX;

    ovs_mutex_lock(&ph->dp->flow_mutex);
    HMAP_FOR_EACH (f, node, &ph->dp->flows) {
        if (ovs_u128_equals(f->ufid, ph->flows[i].ufid)) {
            slot = f->xflow.slot;
        }
    }
    ovs_mutex_unlock(&ph->dp->flow_mutex);
    return slot;
}

/* Check "actions": how xdp_actions_compile() takes hash and recirc
 * actions. */
static void
xr_actions_check(struct xr_phase *ph)
{
    static const struct {
        const char *actions;
        const char *expected;   /* xdp_actions_format(), or "slow-path: "
                                 * and why. */
    } cases[] = {
        { "recirc(7)", "xdp(recirc(0x7))" },
        { "hash(l4(5)),recirc(7)", "xdp(hash(l4(5)),recirc(0x7))" },
        { "pop_vlan,set(ipv4(src=10.0.0.5)),hash(l4(5)),recirc(7)",
          "xdp(pop_vlan,set_ipv4(src=10.0.0.5),hash(l4(5)),recirc(0x7))" },
        { "hash(sym_l4(5)),recirc(7)",
          "slow-path: hash algorithm sym_l4 (only l4 in XDP)" },
        { "recirc(7),2", "slow-path: actions after recirc: 2" },
        { "hash(l4(5)),2", "slow-path: hash not followed by recirc: 2" },
        { "hash(l4(5))", "slow-path: hash not followed by recirc" },
        { "2,recirc(7)", "slow-path: action after output: recirc(0x7)" },
    };
    struct ds why = DS_EMPTY_INITIALIZER;

    ph->name = "actions";
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        const struct xp_flow xf = { "in_port(1)", cases[i].actions };
        struct ds why_slow = DS_EMPTY_INITIALIZER;
        struct ds s = DS_EMPTY_INITIALIZER;
        struct xp_parsed_flow pf;
        struct xdp_flow xflow;

        xp_parse_flow(&xf, &pf, 0);
        xdp_actions_compile(pf.actions.data, pf.actions.size, &xflow,
                            &why_slow);
        if (xflow.flags & XDP_FLOW_F_SLOW_PATH) {
            ds_put_format(&s, "slow-path: %s", ds_cstr(&why_slow));
        } else {
            xdp_actions_format(&s, &xflow);
        }
        if (strcmp(ds_cstr(&s), cases[i].expected)) {
            ds_put_format(&why, "\n    %s: %s", cases[i].actions,
                          ds_cstr(&s));
        }
        ds_destroy(&why_slow);
        ds_destroy(&s);
        xp_free_flow(&pf);
    }
    xr_report(ph, "hash and recirc compile as expected", &why);
    ds_destroy(&why);
}

/* The phases "hash", "hash-miss" and "hash-sym". */
static void
xr_hash_phases(struct xr_phase *ph)
{
    char hash_action[64];
    char outputs[4][16];
    char matches[4][128];

    snprintf(hash_action, sizeof hash_action, "hash(l4(%d)),recirc(%d)",
             XR_BASIS, XR_RECIRC_ID);
    for (int k = 0; k < 4; k++) {
        snprintf(matches[k], sizeof matches[k],
                 "recirc_id(%d),dp_hash(%d/0x3),in_port(1),eth(),"
                 "eth_type(0x1234/0)", XR_RECIRC_ID, k);
        snprintf(outputs[k], sizeof outputs[k], "%d", XP_FIRST_PORT + k);
    }
    const struct xp_flow first = {
        "recirc_id(0),in_port(1),eth(),eth_type(0x1234/0)", hash_action
    };
    const struct xp_flow hash_flows[] = {
        first,
        { matches[0], outputs[0] }, { matches[1], outputs[1] },
        { matches[2], outputs[2] }, { matches[3], outputs[3] },
        { NULL, NULL },
    };
    const struct xp_flow miss_flows[] = { first, { NULL, NULL } };
    int used[XP_LAST_PORT + 1] = { 0 };
    struct ds why = DS_EMPTY_INITIALIZER;
    int n_reasons = 0;

    xr_phase_start(ph, "hash", hash_flows, 5, XP_SKB_PORTS, 0);
    for (int i = 0; i < XR_N_FRAMES; i++) {
        uint8_t frame[XP_MAX_FRAME];
        struct xp_result r;
        struct xr_ovs ovs;
        char name[64];
        size_t len = xr_hash_frame(i, frame, name, sizeof name);

        xr_run(ph, frame, len, &ovs, &r);
        xr_check_output(&ovs, &r, true, name, &why, &n_reasons);
        if (r.verdict == XDP_PASS && r.meta_len) {
            const struct xdp_dp_skb_meta *meta = (const void *) r.data;
            int port = (int) meta->ifindex[0] - XP_IFINDEX_BASE;

            if (port >= XP_FIRST_PORT && port <= XP_LAST_PORT) {
                used[port]++;
            }
        }
        xr_ovs_destroy(&ovs);
    }
    xr_report(ph, "each frame to the port that OVS's dp_hash & 3 selects",
              &why);
    ds_clear(&why);
    for (int p = XP_FIRST_PORT; p <= XP_LAST_PORT; p++) {
        if (!used[p]) {
            ds_put_format(&why, "\n    no frame to port %d", p);
        }
    }
    xr_report(ph, "all four ports used", &why);
    xr_phase_end(ph);

    ds_clear(&why);
    n_reasons = 0;
    xr_phase_start(ph, "hash-miss", miss_flows, 1, XP_SKB_PORTS, 0);
    for (int i = 0; i < XR_N_FRAMES; i++) {
        uint8_t frame[XP_MAX_FRAME];
        struct xp_result r;
        struct xr_ovs ovs;
        char name[64];
        size_t len = xr_hash_frame(i, frame, name, sizeof name);

        xr_run(ph, frame, len, &ovs, &r);
        xr_check_upcall(&ovs, &r, XDP_DP_UPCALL_MISS, 0, name, &why,
                        &n_reasons);
        xr_ovs_destroy(&ovs);
    }
    xr_report(ph, "misses upcall with the recirc_id and OVS's dp_hash",
              &why);
    xr_phase_end(ph);

    /* The symmetric hash: a slow-path flow, whose packets ovs-vswitchd
     * gets as they arrived. */
    snprintf(hash_action, sizeof hash_action, "hash(sym_l4(%d)),recirc(%d)",
             XR_BASIS, XR_RECIRC_ID);
    ds_clear(&why);
    n_reasons = 0;
    xr_phase_start(ph, "hash-sym", miss_flows, 0, XP_SKB_PORTS, 0);
    uint32_t slot = xr_flow_slot(ph, 0);
    for (int i = 0; i < XR_N_KINDS; i++) {
        uint8_t frame[XP_MAX_FRAME];
        struct xp_result r;
        struct xr_ovs ovs;
        char name[64];
        size_t len = xr_hash_frame(i, frame, name, sizeof name);

        xr_run(ph, frame, len, &ovs, &r);
        xr_check_upcall(&ovs, &r, XDP_DP_UPCALL_SLOW_PATH, slot, name, &why,
                        &n_reasons);
        xr_ovs_destroy(&ovs);
    }
    xr_report(ph, "sym_l4 runs in ovs-vswitchd", &why);
    xr_phase_end(ph);
    ds_destroy(&why);
}

/* Builds frame 'i' of the pipeline phases into 'buf' (XP_MAX_FRAME bytes):
 * a UDP (even 'i') or TCP (odd) packet from 10.0.0.1 to 10.0.0.2 in VLAN
 * 100, with a payload.  Returns its length and stores in 'name'
 * ('name_size' bytes) what it is. */
static size_t
xr_pipeline_frame(int i, uint8_t *buf, char *name, size_t name_size)
{
    static const char payload[] = "recirculate me";
    struct dp_packet *p = dp_packet_new(0);
    struct flow flow;
    size_t len;

    memset(&flow, 0, sizeof flow);
    flow.dl_src = (struct eth_addr) ETH_ADDR_C(02, 00, 00, 00, 00, 01);
    flow.dl_dst = (struct eth_addr) ETH_ADDR_C(02, 00, 00, 00, 00, 02);
    flow.vlans[0].tpid = htons(ETH_TYPE_VLAN_8021Q);
    flow.vlans[0].tci = htons(100 | VLAN_CFI);
    flow.dl_type = htons(ETH_TYPE_IP);
    flow.nw_src = htonl(0x0a000001);
    flow.nw_dst = htonl(0x0a000002);
    flow.nw_ttl = 64;
    flow.nw_proto = i % 2 ? IPPROTO_TCP : IPPROTO_UDP;
    flow.tp_src = htons(40000 + i);
    flow.tp_dst = htons(i % 2 ? 80 : 53);
    flow.tcp_flags = i % 2 ? htons(TCP_ACK) : 0;
    flow_compose(p, &flow, payload, sizeof payload);
    len = MIN(dp_packet_size(p), XP_MAX_FRAME);
    memcpy(buf, dp_packet_data(p), len);
    dp_packet_delete(p);
    snprintf(name, name_size, "frame %d (vlan %s)", i, i % 2 ? "tcp" : "udp");
    return len;
}

/* The pipeline phases: the first stage pops the VLAN tag and rewrites the
 * IPv4 source, the second the destination. */
static void
xr_pipeline_phases(struct xr_phase *ph)
{
    char recirc_action[64];
    char second_match[256];

    snprintf(recirc_action, sizeof recirc_action,
             "pop_vlan,set(ipv4(src=10.0.0.5)),recirc(%d)", XR_RECIRC_ID);
    snprintf(second_match, sizeof second_match,
             "recirc_id(%d),in_port(1),eth(src=02:00:00:00:00:01,"
             "dst=02:00:00:00:00:02),eth_type(0x0800),ipv4(frag=no)",
             XR_RECIRC_ID);
    const struct xp_flow first = {
        "recirc_id(0),in_port(1),eth(src=02:00:00:00:00:01,"
        "dst=02:00:00:00:00:02),eth_type(0x8100),vlan(vid=100,pcp=0),"
        "encap(eth_type(0x0800),ipv4(frag=no))", recirc_action
    };
    const struct xp_flow out_flows[] = {
        first, { second_match, "set(ipv4(dst=10.0.0.9)),3" }, { NULL, NULL },
    };
    const struct xp_flow miss_flows[] = { first, { NULL, NULL } };
    const struct xp_flow slow_flows[] = {
        first, { second_match, "set(ipv4(dst=10.0.0.9)),set(skb_mark(1)),3" },
        { NULL, NULL },
    };
    const struct {
        const char *name;
        const struct xp_flow *flows;
        int n_xdp;              /* Flows that run in XDP. */
        enum xp_mode mode;
        int redirect;           /* Port with a devmap entry. */
        uint32_t upcall;        /* Expected upcall type, or 0. */
        const char *check;
    } phases[] = {
        { "pipeline-redirect", out_flows, 2, XP_REDIRECT_PORTS, 3, 0,
          "output is OVS's, checksums fixed in XDP" },
        { "pipeline-skb", out_flows, 2, XP_SKB_PORTS, 0, 0,
          "output is OVS's, checksums fixed by the TC half" },
        { "pipeline-miss", miss_flows, 1, XP_SKB_PORTS, 0,
          XDP_DP_UPCALL_MISS,
          "the miss upcalls OVS's frame with the recirc_id" },
        { "pipeline-slow", slow_flows, 1, XP_SKB_PORTS, 0,
          XDP_DP_UPCALL_SLOW_PATH,
          "the slow-path flow upcalls OVS's frame with the recirc_id" },
    };

    for (size_t k = 0; k < ARRAY_SIZE(phases); k++) {
        struct ds why = DS_EMPTY_INITIALIZER;
        int n_reasons = 0;

        xr_phase_start(ph, phases[k].name, phases[k].flows, phases[k].n_xdp,
                       phases[k].mode, phases[k].redirect);
        uint32_t slot = xr_flow_slot(ph, 1);
        for (int i = 0; i < 4; i++) {
            uint8_t frame[XP_MAX_FRAME];
            struct xp_result r;
            struct xr_ovs ovs;
            char name[64];
            size_t len = xr_pipeline_frame(i, frame, name, sizeof name);

            xr_run(ph, frame, len, &ovs, &r);
            if (!phases[k].upcall) {
                xr_check_output(&ovs, &r, phases[k].mode == XP_SKB_PORTS,
                                name, &why, &n_reasons);
            } else {
                xr_check_upcall(&ovs, &r, phases[k].upcall,
                                (phases[k].upcall == XDP_DP_UPCALL_SLOW_PATH
                                 ? slot : 0),
                                name, &why, &n_reasons);
            }
            xr_ovs_destroy(&ovs);
        }
        xr_report(ph, phases[k].check, &why);
        xr_phase_end(ph);
        ds_destroy(&why);
    }
}

/* The phase "loop": a flow that recirculates to itself. */
static void
xr_loop_phase(struct xr_phase *ph)
{
    const struct xp_flow flows[] = {
        { "recirc_id(0),in_port(1),eth(),eth_type(0x1234/0)", "recirc(0)" },
        { NULL, NULL },
    };
    struct ds why = DS_EMPTY_INITIALIZER;
    uint8_t frame[XP_MAX_FRAME];
    struct xp_result r;
    struct xr_ovs ovs;
    char name[64];
    size_t len = xr_hash_frame(1, frame, name, sizeof name);

    xr_phase_start(ph, "loop", flows, 1, XP_SKB_PORTS, 0);
    xr_run(ph, frame, len, &ovs, &r);
    if (!ovs.limited) {
        ds_put_cstr(&why, "\n    OVS's passes do not reach the limit");
    }
    if (r.verdict != XDP_DROP || xr_n_upcalls) {
        ds_put_format(&why, "\n    verdict %s, %d upcalls",
                      xp_verdict_name(r.verdict), xr_n_upcalls);
    }
    xr_ovs_destroy(&ovs);
    xr_report(ph, "dropped after the last recirculation", &why);
    xr_phase_end(ph);
    ds_destroy(&why);
}

int
do_recirc(void)
{
    struct xr_phase ph;

    memset(&ph, 0, sizeof ph);
    ph.dpif = xp_open_datapath();
    ph.dp = dp_xdp_from_dpif(ph.dpif);

    /* Our own reader of the upcall rings: perf_buffer__new() puts its
     * rings in the map's slots, in place of the datapath's, so that the
     * samples come to us. */
    int map_fd = dup(bpf_map__fd(ph.dp->skel->maps.xdp_dp_upcalls));
    if (map_fd < 0) {
        ovs_fatal(errno, "dup");
    }
    ph.pb = perf_buffer__new(map_fd, 16, xr_on_sample, NULL, NULL, NULL);
    if (!ph.pb) {
        ovs_fatal(errno, "cannot read the upcall rings");
    }

    xr_actions_check(&ph);
    xr_hash_phases(&ph);
    xr_pipeline_phases(&ph);
    xr_loop_phase(&ph);

    printf("%d checks, %d failed\n", ph.n_checks, ph.n_failed);
    perf_buffer__free(ph.pb);
    close(map_fd);
    xp_close_datapath(ph.dpif);
    return ph.n_failed ? 1 : 0;
}
