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

/* test-xdp-dump: the xdp datapath's flow dumps and statistics, through the
 * dpif interface that ovs-vswitchd's revalidators use.
 *
 *   test-xdp-dump dump N [--no-dump]
 *       Installs N flows in bursts of 64 (as ofproto-dpif-upcall does),
 *       then, unless --no-dump, dumps them all twice, once with keys,
 *       masks and actions and once terse, and prints how many each dump
 *       saw.  Run under 'strace -c -e trace=bpf' with and without --no-dump
 *       to count the system calls the dumps make.
 *
 *   test-xdp-dump churn N
 *       Runs the datapath program N times on a frame that hits one flow,
 *       in rounds, while another thread installs and deletes other flows
 *       (of the same mask and of others) as fast as it can; then prints
 *       the hit flow's packet count, read through mmap by dpif_flow_get().
 *
 * Needs root (the datapath loads its BPF program). */

#include <config.h>

#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dpif.h"
#include "dpif-provider.h"
#include "odp-util.h"
#include "ofproto-xdp/dpif-xdp.h"
#include "ofproto-xdp/dpif-xdp-private.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "ovs-thread.h"
#include "util.h"

#define BURST 64

struct spec {
    struct ofpbuf key, mask, actions;
    ovs_u128 ufid;
};

/* Flow 'i' of mask family 'family': each family masks other fields. */
static void
make_spec(struct spec *f, uint32_t i, int family)
{
    char *s;
    char *error = NULL;

    if (family == 0) {
        s = xasprintf("in_port(1),eth(src=00:00:00:00:00:01,"
                      "dst=00:00:00:00:00:02),eth_type(0x0800),"
                      "ipv4(src=%"PRIu32".%"PRIu32".%"PRIu32".%"PRIu32
                      "/255.255.255.255,dst=10.9.9.9/0.0.0.0,proto=17/0,"
                      "tos=0/0,ttl=64/0,frag=no),udp(src=1/0,dst=2/0)",
                      10 + (i >> 24), (i >> 16) & 0xff, (i >> 8) & 0xff,
                      i & 0xff);
    } else {
        s = xasprintf("in_port(1),eth(src=00:00:00:00:00:01,"
                      "dst=00:00:00:00:00:02),eth_type(0x0800),"
                      "ipv4(src=10.0.0.1/0.0.0.0,dst=10.9.9.9/0.0.0.0,"
                      "proto=17,tos=0/0,ttl=64/0,frag=no),"
                      "udp(src=%"PRIu32"/0xffff,dst=%d/0xffff)",
                      i & 0xffff, family);
    }
    ofpbuf_init(&f->key, 0);
    ofpbuf_init(&f->mask, 0);
    ofpbuf_init(&f->actions, 0);
    if (odp_flow_from_string(s, NULL, &f->key, &f->mask, &error)) {
        ovs_fatal(0, "%s: %s", s, error);
    }
    odp_actions_from_string("2", NULL, &f->actions);
    memset(&f->ufid, 0, sizeof f->ufid);
    f->ufid.u32[0] = i;
    f->ufid.u32[1] = family;
    f->ufid.u32[3] = 0xd0d0;
    free(s);
}

static void
spec_uninit(struct spec *f)
{
    ofpbuf_uninit(&f->key);
    ofpbuf_uninit(&f->mask);
    ofpbuf_uninit(&f->actions);
}

/* Puts (or deletes) 'n' flows of 'family' from index 'first', in bursts.
 * Returns the number of ops that failed. */
static int
burst_ops(struct dpif *dpif, uint32_t first, uint32_t n, int family,
          bool del)
{
    int n_failed = 0;

    for (uint32_t base = first; base < first + n; base += BURST) {
        struct spec specs[BURST];
        struct dpif_op ops[BURST], *opp[BURST];
        uint32_t k = MIN(BURST, first + n - base);

        for (uint32_t j = 0; j < k; j++) {
            make_spec(&specs[j], base + j, family);
            memset(&ops[j], 0, sizeof ops[j]);
            if (del) {
                ops[j].type = DPIF_OP_FLOW_DEL;
                ops[j].flow_del = (struct dpif_flow_del) {
                    .key = specs[j].key.data, .key_len = specs[j].key.size,
                    .ufid = &specs[j].ufid, .pmd_id = PMD_ID_NULL,
                };
            } else {
                ops[j].type = DPIF_OP_FLOW_PUT;
                ops[j].flow_put = (struct dpif_flow_put) {
                    .flags = DPIF_FP_CREATE,
                    .key = specs[j].key.data, .key_len = specs[j].key.size,
                    .mask = specs[j].mask.data,
                    .mask_len = specs[j].mask.size,
                    .actions = specs[j].actions.data,
                    .actions_len = specs[j].actions.size,
                    .ufid = &specs[j].ufid, .pmd_id = PMD_ID_NULL,
                };
            }
            opp[j] = &ops[j];
        }
        dpif_operate(dpif, opp, k, DPIF_OFFLOAD_NEVER);
        for (uint32_t j = 0; j < k; j++) {
            n_failed += ops[j].error != 0;
            spec_uninit(&specs[j]);
        }
    }
    return n_failed;
}

/* Dumps every flow; returns how many, and sums their packets. */
static size_t
dump(struct dpif *dpif, bool terse, uint64_t *n_packets)
{
    struct dpif_flow_dump *d = dpif_flow_dump_create(dpif, terse, NULL);
    struct dpif_flow_dump_thread *t = dpif_flow_dump_thread_create(d);
    struct dpif_flow flows[50];
    size_t n = 0;
    int k;

    *n_packets = 0;
    while ((k = dpif_flow_dump_next(t, flows, ARRAY_SIZE(flows))) > 0) {
        for (int i = 0; i < k; i++) {
            *n_packets += flows[i].stats.n_packets;
        }
        n += k;
    }
    dpif_flow_dump_thread_destroy(t);
    dpif_flow_dump_destroy(d);
    return n;
}

static struct dpif *
open_dp(const char *what)
{
    struct dpif *dpif;
    char name[32];
    int error;

    snprintf(name, sizeof name, "xdp%s%ld", what, (long) getpid());
    error = dpif_create_and_open(name, "xdp", &dpif);
    if (error) {
        ovs_fatal(error, "cannot create datapath %s", name);
    }
    return dpif;
}

static int
do_dump(uint32_t n, bool dumps)
{
    struct dpif *dpif = open_dp("dump");
    uint64_t packets;

    /* Only the flow operations' system calls are counted: no compiles,
     * whose number would depend on timing. */
    dp_xdp_compile_set_auto(dp_xdp_from_dpif(dpif), false);

    if (burst_ops(dpif, 0, n, 0, false)) {
        ovs_fatal(0, "some flow installs failed");
    }
    if (dumps) {
        printf("full dump: %"PRIuSIZE" flows\n", dump(dpif, false, &packets));
        printf("terse dump: %"PRIuSIZE" flows\n", dump(dpif, true, &packets));
    }
    dpif_delete(dpif);
    dpif_close(dpif);
    return 0;
}

/* Churn. */

struct churn {
    struct dpif *dpif;
    atomic_bool stop;
    unsigned long long n_ops;
};

static void *
churn_main(void *c_)
{
    struct churn *c = c_;
    bool stop = false;

    while (!stop) {
        /* Flows of the hit flow's own mask, and of another mask, come and
         * go, taking and freeing statistics slots and subtables. */
        burst_ops(c->dpif, 1000, 256, 0, false);
        burst_ops(c->dpif, 0, 256, 7, false);
        burst_ops(c->dpif, 1000, 256, 0, true);
        burst_ops(c->dpif, 0, 256, 7, true);
        c->n_ops += 1024;
        atomic_read(&c->stop, &stop);
    }
    return NULL;
}

static int
do_churn(uint32_t n)
{
    struct dpif *dpif = open_dp("churn");
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    uint32_t lo = if_nametoindex("lo"), port_no = 1;
    unsigned char frame[64];
    struct churn c = { .dpif = dpif };
    uint64_t sent = 0;

    /* 'lo' is datapath port 1 for the program. */
    if (bpf_map_update_elem(bpf_map__fd(dp->skel->maps.xdp_dp_in_ports),
                            &lo, &port_no, BPF_ANY)) {
        ovs_fatal(errno, "cannot map lo to port 1");
    }
    /* The frame hits flow 5 of family 0 (source 10.0.0.5). */
    if (burst_ops(dpif, 5, 1, 0, false)) {
        ovs_fatal(0, "cannot install the hit flow");
    }
    memset(frame, 0, sizeof frame);
    memcpy(frame, "\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x01"
           "\x08\x00", 14);
    memcpy(frame + 14, "\x45\x00\x00\x32\x00\x00\x40\x00\x40\x11\x00\x00"
           "\x0a\x00\x00\x05\x0a\x09\x09\x09", 20);
    memcpy(frame + 34, "\x00\x01\x00\x02\x00\x1e\x00\x00", 8);

    atomic_init(&c.stop, false);
    pthread_t thread = ovs_thread_create("churn", churn_main, &c);

    struct xdp_md ctx_in = { .data_end = sizeof frame,
                             .ingress_ifindex = lo };
    while (sent < n) {
        uint32_t repeat = MIN(n - sent, 10000);
        LIBBPF_OPTS(bpf_test_run_opts, opts,
                    .data_in = frame, .data_size_in = sizeof frame,
                    .ctx_in = &ctx_in, .ctx_size_in = sizeof ctx_in,
                    .repeat = repeat);

        if (bpf_prog_test_run_opts(dp->xdp_prog_fd, &opts)) {
            ovs_fatal(errno, "BPF_PROG_TEST_RUN");
        }
        sent += repeat;
    }
    atomic_store(&c.stop, true);
    xpthread_join(thread, NULL);

    struct spec f;
    struct dpif_flow flow;
    uint64_t stub[DPIF_FLOW_BUFSIZE / 8];
    struct ofpbuf buf;
    int error;

    make_spec(&f, 5, 0);
    ofpbuf_use_stub(&buf, stub, sizeof stub);
    error = dpif_flow_get(dpif, f.key.data, f.key.size, &f.ufid, PMD_ID_NULL,
                          &buf, &flow);
    if (error) {
        ovs_fatal(error, "dpif_flow_get");
    }
    printf("sent %"PRIu64", flow counted %"PRIu64", churn ops %s\n", sent,
           flow.stats.n_packets, c.n_ops >= 1024 ? "> 0" : "none");
    ofpbuf_uninit(&buf);
    spec_uninit(&f);
    dpif_delete(dpif);
    dpif_close(dpif);
    return 0;
}

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_WARN);
    dp_register_provider(&dpif_xdp_class);

    if (argc >= 3 && !strcmp(argv[1], "dump")) {
        return do_dump(atoi(argv[2]),
                       !(argc > 3 && !strcmp(argv[3], "--no-dump")));
    } else if (argc == 3 && !strcmp(argv[1], "churn")) {
        return do_churn(atoi(argv[2]));
    }
    ovs_fatal(0, "usage: %s dump N [--no-dump] | churn N", argv[0]);
}
