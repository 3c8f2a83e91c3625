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

#ifndef TEST_XDP_COMPILE_H
#define TEST_XDP_COMPILE_H 1

/* What the two halves of test-xdp-compile share: test-xdp-compile.c, the
 * driver (phases, runs, comparisons, checks, report), and
 * test-xdp-compile-frames.c, the material (frames, mask templates, flows)
 * and the changes of the table.  test-xdp-compile.c explains the test. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "datapath/xdp-dp.h"
#include "openvswitch/flow.h"
#include "openvswitch/match.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/types.h"

struct dp_xdp;
struct dpif;
struct ds;
struct perf_buffer;
struct xc_upcall;
struct xdp_dp;

#define XC_IN_PORT 1            /* Datapath port the frames arrive on. */
#define XC_MAX_FRAME 512        /* Largest frame. */
#define XC_BULK_PREFIX 0x0ac80000   /* 10.200.0.0: keys of bulk flows. */

/* A frame of the frame list (test-xdp-compile-frames.c).  Frames are
 * written as ODP flow keys, composed into packets by OVS's flow_compose()
 * (checksums included) with 'payload' bytes of payload, or in hex for what
 * flow_compose() cannot make (truncated and malformed headers). */
struct xc_frame_spec {
    const char *name;           /* In the report. */
    const char *odp;            /* The frame as an ODP key, or NULL. */
    size_t payload;             /* Payload bytes for 'odp'. */
    const char *hex;            /* The frame in hex, if 'odp' is NULL. */
    const char *xdp_upcalls;    /* Why XDP may hand the frame to ovs-vswitchd
                                 * whatever the table (then OVS's
                                 * flow_extract() is not the reference), or
                                 * NULL. */
};

/* A frame, ready to run. */
struct xc_frame {
    const struct xc_frame_spec *spec;
    uint8_t data[XC_MAX_FRAME];
    size_t len;
    struct flow flow;           /* What flow_extract() makes of it. */
};

/* A flow of the table. */
struct xc_flow {
    char *name;                 /* In the report. */
    struct ofpbuf key, mask;    /* ODP key and mask. */
    struct ofpbuf actions;      /* ODP actions. */
    char *actions_s;            /* The same, as text. */
    ovs_u128 ufid;
    struct match match;         /* 'key' and 'mask', parsed back. */

    /* From the datapath, refreshed at each phase (xc_refresh_flows()). */
    uint32_t slot;              /* Statistics slot. */
    int mask_slot;              /* Subtable, or -1 if not in XDP. */
    uint32_t action_bits;       /* 'struct xdp_flow''s. */
    uint16_t flags;             /* XDP_FLOW_F_*. */
    struct xdp_flow_key xkey;   /* Masked XDP key. */

    /* What the runs counted since the flow was installed. */
    uint64_t n_packets, n_bytes;
};

/* A flow of a handcrafted phase. */
struct xc_flow_spec {
    const char *name;
    const char *frame;          /* Whose fields make the key. */
    const char *tmpl;           /* Which of them (xc_templates). */
    const char *actions;        /* ODP actions. */
    bool decoy;                 /* Key changed so that 'frame' misses. */
    int bulk;                   /* So many flows NAME-N, with IPv4
                                 * destinations XC_BULK_PREFIX + N. */
};

/* The test. */
struct xc_ctx {
    struct dpif *dpif;
    struct dp_xdp *dp;
    struct xdp_dp *generic;     /* The generic program's instance. */
    struct perf_buffer *pb;     /* Our reader of the upcall rings. */
    int pb_map_fd;              /* Its descriptor of the rings' map. */
    struct xc_upcall *sink;     /* Where samples go during a run. */
    int *n_sink;                /* Their number. */
    uint64_t n_ring_lost;       /* Samples the rings lost. */
    int lo_ifindex;

    struct xc_frame *frames;
    size_t n_frames;

    struct xc_flow **flows;     /* Installed flows. */
    size_t n_flows, allocated;
    uint32_t next_ufid;

    int n_checks, n_failed;
    bool verbose, sabotage;
};

/* test-xdp-compile.c. */
void xc_report(struct xc_ctx *, const char *phase, const char *what,
               const struct ds *why);

/* test-xdp-compile-frames.c: the frames. */
void xc_make_frames(struct xc_ctx *);

/* test-xdp-compile-frames.c: the table, through dpif_operate(). */
void xc_del_flows(struct xc_ctx *, size_t *idx, size_t n, struct ds *why);
void xc_del_all(struct xc_ctx *, struct ds *why);
void xc_refresh_flows(struct xc_ctx *, struct ds *why);

/* test-xdp-compile-frames.c: changes of the table for the phases. */
void xc_put_specs(struct xc_ctx *, const char *phase,
                  const struct xc_flow_spec *, size_t n);
void xc_modify(struct xc_ctx *, const char *phase, const char *name,
               const char *actions);
void xc_delete(struct xc_ctx *, const char *phase, const char *const *names);
void xc_delete_l4(struct xc_ctx *, const char *phase);
void xc_random_add(struct xc_ctx *, const char *phase, int round,
                   int attempts, bool l4, const char *const *actions,
                   size_t n_actions, bool existing_masks);

#endif /* test-xdp-compile.h */
