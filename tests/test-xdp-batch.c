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

/* test-xdp-batch: drives an xdp datapath through dpif_operate() the way
 * ofproto-dpif-upcall does, with bursts of flow puts and deletes, and
 * prints each burst's failed ops and the BPF map system calls it took:
 *
 *   burst 1: 64 new flows of one mask;
 *   burst 2: 32 new flows, the sixth of which repeats the fifth's key
 *            under another UFID (the datapath must refuse it alone);
 *   a dump, then one burst deleting every flow, then a dump again.
 *
 * Needs root (the datapath loads its BPF program). */

#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dpif.h"
#include "dpif-provider.h"
#include "ofproto-xdp/dpif-xdp.h"
#include "ofproto-xdp/dpif-xdp-private.h"
#include "odp-util.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "util.h"

#define MAX_OPS 128

struct flow_spec {
    struct ofpbuf key, mask, actions;
    ovs_u128 ufid;
};

static void
make_flow(struct flow_spec *f, int host, int ufid)
{
    char *s = xasprintf("in_port(1),eth(src=00:00:00:00:00:01,"
                        "dst=00:00:00:00:00:02),eth_type(0x0800),"
                        "ipv4(src=10.0.%d.%d/255.255.255.255,"
                        "dst=10.9.9.9/0.0.0.0,proto=17/0,tos=0/0,ttl=64/0,"
                        "frag=no),udp(src=1/0,dst=2/0)",
                        host / 256, host % 256);
    char *error = NULL;

    ofpbuf_init(&f->key, 0);
    ofpbuf_init(&f->mask, 0);
    ofpbuf_init(&f->actions, 0);
    if (odp_flow_from_string(s, NULL, &f->key, &f->mask, &error)) {
        ovs_fatal(0, "%s: %s", s, error);
    }
    if (odp_actions_from_string("2", NULL, &f->actions)) {
        ovs_fatal(0, "bad actions");
    }
    memset(&f->ufid, 0, sizeof f->ufid);
    f->ufid.u32[0] = ufid;
    f->ufid.u32[3] = 0x5eed;
    free(s);
}

static void
report(const char *what, struct dpif_op *ops, size_t n,
       struct dp_xdp *dp, const struct xdp_map_calls *before,
       bool deletes)
{
    struct xdp_map_calls after;
    size_t n_failed = 0;

    dp_xdp_flow_get_calls(dp, &after);
    printf("%s: %"PRIuSIZE" ops", what, n);
    for (size_t i = 0; i < n; i++) {
        if (ops[i].error) {
            printf(", op %"PRIuSIZE" failed (%s)", i,
                   ovs_strerror(ops[i].error));
            n_failed++;
        }
    }
    if (!n_failed) {
        printf(", 0 failed");
    }
    if (deletes) {
        printf(", batch deletes %"PRIu64", single deletes %"PRIu64"\n",
               after.batch_delete - before->batch_delete,
               after.elem_delete - before->elem_delete);
    } else {
        printf(", batch updates %"PRIu64", single updates %"PRIu64"\n",
               after.batch_update - before->batch_update,
               after.elem_update - before->elem_update);
    }
}

static void
put_burst(struct dpif *dpif, struct flow_spec *flows, size_t n,
          const char *what)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    struct dpif_op ops[MAX_OPS], *opp[MAX_OPS];
    struct xdp_map_calls before;

    dp_xdp_flow_get_calls(dp, &before);
    for (size_t i = 0; i < n; i++) {
        struct flow_spec *f = &flows[i];

        memset(&ops[i], 0, sizeof ops[i]);
        ops[i].type = DPIF_OP_FLOW_PUT;
        ops[i].flow_put = (struct dpif_flow_put) {
            .flags = DPIF_FP_CREATE,
            .key = f->key.data, .key_len = f->key.size,
            .mask = f->mask.data, .mask_len = f->mask.size,
            .actions = f->actions.data, .actions_len = f->actions.size,
            .ufid = &f->ufid,
            .pmd_id = PMD_ID_NULL,
        };
        opp[i] = &ops[i];
    }
    dpif_operate(dpif, opp, n, DPIF_OFFLOAD_NEVER);
    report(what, ops, n, dp, &before, false);
}

static size_t
count_flows(struct dpif *dpif)
{
    struct dpif_flow_dump *dump = dpif_flow_dump_create(dpif, true, NULL);
    struct dpif_flow_dump_thread *thread = dpif_flow_dump_thread_create(dump);
    struct dpif_flow flows[50];
    size_t n = 0;
    int k;

    while ((k = dpif_flow_dump_next(thread, flows, ARRAY_SIZE(flows))) > 0) {
        n += k;
    }
    dpif_flow_dump_thread_destroy(thread);
    dpif_flow_dump_destroy(dump);
    return n;
}

int
main(int argc OVS_UNUSED, char *argv[])
{
    static struct flow_spec flows[96];
    char name[32];
    struct dpif *dpif;
    int error;

    set_program_name(argv[0]);
    vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_WARN);
    dp_register_provider(&dpif_xdp_class);

    snprintf(name, sizeof name, "xdpbatch%ld", (long) getpid());
    error = dpif_create_and_open(name, "xdp", &dpif);
    if (error) {
        ovs_fatal(error, "cannot create datapath %s", name);
    }

    for (int i = 0; i < 96; i++) {
        make_flow(&flows[i], i, i + 1);
    }
    /* Burst 2's sixth flow has the fifth one's key, under its own UFID. */
    ofpbuf_uninit(&flows[64 + 5].key);
    ofpbuf_uninit(&flows[64 + 5].mask);
    ofpbuf_uninit(&flows[64 + 5].actions);
    make_flow(&flows[64 + 5], 64 + 4, 64 + 6);

    put_burst(dpif, flows, 64, "burst 1");
    put_burst(dpif, flows + 64, 32, "burst 2");
    printf("flows: %"PRIuSIZE"\n", count_flows(dpif));

    /* Delete every flow that was installed, and the refused one too. */
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    struct dpif_op ops[96], *opp[96];
    struct xdp_map_calls before;

    dp_xdp_flow_get_calls(dp, &before);
    for (int i = 0; i < 96; i++) {
        memset(&ops[i], 0, sizeof ops[i]);
        ops[i].type = DPIF_OP_FLOW_DEL;
        ops[i].flow_del = (struct dpif_flow_del) {
            .key = flows[i].key.data, .key_len = flows[i].key.size,
            .ufid = &flows[i].ufid, .pmd_id = PMD_ID_NULL,
        };
        opp[i] = &ops[i];
    }
    dpif_operate(dpif, opp, 96, DPIF_OFFLOAD_NEVER);
    report("delete", ops, 96, dp, &before, true);
    printf("flows: %"PRIuSIZE"\n", count_flows(dpif));

    dpif_delete(dpif);
    dpif_close(dpif);
    return 0;
}
