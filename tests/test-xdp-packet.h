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

#ifndef TEST_XDP_PACKET_H
#define TEST_XDP_PACKET_H 1

/* What the three files of test-xdp-packet share: test-xdp-packet.c, which
 * runs the table and holds the helpers below, test-xdp-packet-rows.c, the
 * table's rows, and test-xdp-packet-modes.c, the modes other than the
 * table.  test-xdp-packet.c explains the test. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "datapath/xdp-dp.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/types.h"

struct bpf_map;
struct dp_xdp;
struct dpif;
struct ds;

#define XP_MAX_FLOWS 3          /* Flows in one row's table. */
#define XP_MAX_FRAME 512        /* Largest frame of the table. */
#define XP_IN_PORT 1            /* Datapath port the frames arrive on. */
#define XP_FIRST_PORT 2         /* Output ports: 2 ... */
#define XP_LAST_PORT 5          /* ... to 5. */
#define XP_IFINDEX_BASE 1000    /* Made-up ifindex of "skb" port N: + N. */
#define XP_QUARANTINE_MS 150    /* Longer than the datapath keeps a freed
                                 * subtable slot from new masks. */

/* What a row's frame must come to. */
enum xp_expect {
    XP_MISS,                    /* No flow: upcall, XDP_DROP, n_missed. */
    XP_DROP,                    /* A flow without actions: XDP_DROP. */
    XP_TX_ERROR,                /* An action failed: XDP_DROP, n_tx_error. */
    XP_SLOW,                    /* Handed to ovs-vswitchd to execute the
                                 * flow's actions: XDP_DROP, n_slow_path. */
    XP_REDIRECT,                /* XDP_REDIRECT to 'ports[0]'. */
    XP_TO_TC,                   /* XDP_PASS with metadata for the TC half,
                                 * naming 'ports'. */
};

/* How the output ports transmit in a row. */
enum xp_mode {
    XP_REDIRECT_PORTS,          /* XDP_DP_TX_REDIRECT (the default). */
    XP_SKB_PORTS,               /* XDP_DP_TX_SKB. */
};

/* One datapath flow, in the syntax of "ovs-appctl dpctl/dump-flows". */
struct xp_flow {
    const char *match;          /* ODP key with masks. */
    const char *actions;        /* ODP actions ("drop" for none). */
};

/* One row of the table. */
struct xp_row {
    const char *name;           /* Printed in the report. */
    const char *in;             /* The frame, in hex (spaces ignored). */
    struct xp_flow flows[XP_MAX_FLOWS]; /* The flow table. */
    int hit;                    /* Index into 'flows' of the flow the frame
                                 * hits, or -1 if it must miss. */
    enum xp_expect expect;      /* What happens to the frame. */
    enum xp_mode mode;          /* How the output ports transmit. */
    const char *out;            /* Expected output frame, in hex, or NULL
                                 * for the input frame unchanged. */
    int ports[XDP_DP_MAX_OUTPUTS];  /* Expected output ports, in order,
                                     * ending at the first 0. */
    const char *ovs_differs;    /* Why OVS's own flow_extract() and
                                 * odp_execute_actions() are not the
                                 * reference for this row, or NULL. */
};

/* A flow of a row, parsed. */
struct xp_parsed_flow {
    struct ofpbuf key, mask, actions;   /* ODP key, mask and actions. */
    ovs_u128 ufid;              /* Made up by xp_parse_flow() from 'id'. */
};

/* The result of running a frame through the datapath program. */
struct xp_result {
    uint32_t verdict;           /* XDP_*. */
    uint8_t data[XP_MAX_FRAME + 64];    /* Metadata, then the frame. */
    uint32_t size;              /* Bytes in 'data'. */
    uint32_t meta_len;          /* Bytes of metadata at the start. */
};

/* test-xdp-packet-rows.c: the table, of 'xp_n_rows' rows. */
extern const struct xp_row xp_rows[];
extern const size_t xp_n_rows;

/* test-xdp-packet.c: the ifindex of 'lo', where the frames arrive. */
extern int lo_ifindex;

/* test-xdp-packet.c: frames, flows and the datapath. */
size_t xp_parse_hex(const char *hex, uint8_t *buf, size_t size);
void xp_put_hex(struct ds *, const uint8_t *data, size_t n);
struct xdp_dp_stats xp_read_stats(struct dp_xdp *);
void xp_map_update(struct bpf_map *, const void *key, const void *value);
void xp_setup_ports(struct dp_xdp *, const struct xp_row *);
void xp_parse_flow(const struct xp_flow *, struct xp_parsed_flow *, int id);
void xp_free_flow(struct xp_parsed_flow *);
void xp_operate(struct dpif *, struct xp_parsed_flow *flows, int n, bool put,
                struct ds *why);
int xp_flow_stats(struct dpif *, const struct xp_parsed_flow *,
                  uint64_t *n_packets, char *layer, size_t layer_size);
void xp_maybe_compile(struct dp_xdp *, struct ds *why);
void xp_check_in_xdp(struct dpif *, const struct xp_parsed_flow *flows, int n,
                     struct ds *why);
void xp_run(struct dp_xdp *, const uint8_t *frame, size_t len,
            struct xp_result *);
void xp_tc_fix_csum(const struct xdp_dp_skb_meta *, uint8_t *frame,
                    size_t len);
const char *xp_verdict_name(uint32_t verdict);
struct dpif *xp_open_datapath(void);
void xp_close_datapath(struct dpif *);

/* test-xdp-packet-modes.c: the modes other than the table. */
int do_budget(void);
int do_rank(void);
int do_grow(void);
int do_recirc(void);
int do_flush(void);
int do_key(const char *hex);

#endif /* test-xdp-packet.h */
