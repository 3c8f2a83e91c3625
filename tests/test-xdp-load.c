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

/* test-xdp-load N: loads the datapath program through its skeleton, makes
 * 'lo' a datapath port, and runs the program N times with
 * BPF_PROG_TEST_RUN on a 64-byte frame arriving on 'lo':
 *
 *   - with an empty flow table: every frame misses, and since nobody reads
 *     the upcall rings, every upcall is lost;
 *   - with one catch-all drop flow in a subtable: every frame hits it, and
 *     the flow's counters, read through mmap(), account for each frame.
 *
 * Prints the verdicts and counters.  Needs CAP_BPF. */

#include <config.h>

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"

static const char *
xdp_verdict_name(unsigned int verdict)
{
    static const char *const names[] = {
        "XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT",
    };
    return verdict < 5 ? names[verdict] : "unknown";
}

static struct xdp_dp_stats
read_dp_stats(struct xdp_dp *skel)
{
    int n_cpus = libbpf_num_possible_cpus();
    struct xdp_dp_stats *per_cpu = calloc(n_cpus, sizeof *per_cpu);
    struct xdp_dp_stats sum;
    __u32 zero = 0;

    memset(&sum, 0, sizeof sum);
    if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.xdp_dp_stats), &zero,
                            per_cpu)) {
        fprintf(stderr, "bpf_map_lookup_elem: %s\n", strerror(errno));
        exit(1);
    }
    for (int i = 0; i < n_cpus; i++) {
        sum.n_hit += per_cpu[i].n_hit;
        sum.n_missed += per_cpu[i].n_missed;
        sum.n_lost += per_cpu[i].n_lost;
    }
    free(per_cpu);
    return sum;
}

static unsigned int
run(struct xdp_dp *skel, const void *frame, size_t size, int repeat)
{
    struct xdp_md ctx_in = { .data_end = size,
                             .ingress_ifindex = if_nametoindex("lo") };
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = frame, .data_size_in = size,
                .ctx_in = &ctx_in, .ctx_size_in = sizeof ctx_in,
                .repeat = repeat);
    int error = bpf_prog_test_run_opts(
        bpf_program__fd(skel->progs.xdp_dp_main), &opts);

    if (error) {
        fprintf(stderr, "bpf_prog_test_run_opts: %s\n", strerror(-error));
        exit(1);
    }
    return opts.retval;
}

static void
update(struct bpf_map *map, const void *key, const void *value)
{
    if (bpf_map_update_elem(bpf_map__fd(map), key, value, BPF_ANY)) {
        fprintf(stderr, "update %s: %s\n", bpf_map__name(map),
                strerror(errno));
        exit(1);
    }
}

int
main(int argc, char *argv[])
{
    unsigned char frame[64];
    int repeat = argc > 1 ? atoi(argv[1]) : 1;
    __u32 lo = if_nametoindex("lo"), port_no = 1, zero = 0, slot = 7;
    struct xdp_dp_stats stats;
    struct xdp_dp *skel;
    unsigned int verdict;

    memset(frame, 0, sizeof frame);
    memset(frame, 0xff, 6);             /* Broadcast destination. */
    frame[6] = 0x02;                    /* Locally administered source. */
    frame[12] = 0x08;                   /* IPv4 EtherType. */

    skel = xdp_dp__open_and_load();
    if (!skel) {
        fprintf(stderr, "xdp_dp__open_and_load: %s\n", strerror(errno));
        return 1;
    }
    update(skel->maps.xdp_dp_in_ports, &lo, &port_no);

    /* Empty flow table. */
    verdict = run(skel, frame, sizeof frame, repeat);
    stats = read_dp_stats(skel);
    printf("miss: verdict %s, missed %llu, lost %llu, hit %llu\n",
           xdp_verdict_name(verdict), (unsigned long long) stats.n_missed,
           (unsigned long long) stats.n_lost,
           (unsigned long long) stats.n_hit);

    /* One subtable whose all-zero mask matches everything, holding one
     * drop flow in statistics slot 'slot'. */
    LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
    int subtable = bpf_map_create(BPF_MAP_TYPE_HASH, "test_subtbl",
                                  sizeof(struct xdp_flow_key),
                                  sizeof(struct xdp_flow), 16, &opts);
    struct xdp_dp_mask mask;
    struct xdp_flow_key key;
    struct xdp_flow flow;
    struct xdp_dp_mask_list list;

    memset(&mask, 0, sizeof mask);
    memset(&key, 0, sizeof key);
    memset(&flow, 0, sizeof flow);
    memset(&list, 0, sizeof list);
    flow.slot = slot;
    list.n_masks = 1;
    list.slots[0] = 0;
    if (subtable < 0 || bpf_map_update_elem(subtable, &key, &flow, BPF_ANY)) {
        fprintf(stderr, "subtable: %s\n", strerror(errno));
        return 1;
    }
    update(skel->maps.xdp_dp_masks, &zero, &mask);
    update(skel->maps.xdp_dp_subtables, &zero, &subtable);
    update(skel->maps.xdp_dp_mask_lists, &zero, &list);

    size_t size = XDP_DP_MAX_FLOWS * sizeof(struct xdp_flow_stats);
    struct xdp_flow_stats *slots = mmap(
        NULL, size, PROT_READ, MAP_SHARED,
        bpf_map__fd(skel->maps.xdp_dp_flow_stats), 0);
    if (slots == MAP_FAILED) {
        fprintf(stderr, "mmap: %s\n", strerror(errno));
        return 1;
    }

    verdict = run(skel, frame, sizeof frame, repeat);
    stats = read_dp_stats(skel);
    printf("hit: verdict %s, hit %llu, flow packets %llu, bytes %llu\n",
           xdp_verdict_name(verdict), (unsigned long long) stats.n_hit,
           (unsigned long long) slots[slot].n_packets,
           (unsigned long long) slots[slot].n_bytes);

    munmap(slots, size);
    close(subtable);
    xdp_dp__destroy(skel);
    return 0;
}
