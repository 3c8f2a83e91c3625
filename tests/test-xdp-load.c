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
 * Prints the verdicts and counters.  Needs CAP_BPF.
 *
 * test-xdp-load N lanes: the same, with the statistics array sized as
 * ovs-vswitchd sizes it, a lane per CPU (maps/flow-stats.c), and the hits
 * run on each CPU in turn, N times the CPU's number plus one frames on
 * each: checks that every CPU's frames are counted in its own lane and
 * nowhere else, that ovs-vswitchd's adds go to the last lane, and that a
 * read sums the lanes. */

#include <config.h>

#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
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
#include "maps/flow-stats.h"

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

/* Runs 'repeat' times (CPU number + 1) frames through 'skel' on each CPU
 * that this process may run on, and checks the lanes of statistics slot
 * 'slot' against them (see the comment at the top).  Returns 0, or 1 after
 * printing what differs. */
static int
check_lanes(struct xdp_dp *skel, const void *frame, size_t size, int repeat,
            uint32_t slot)
{
    uint32_t cpu_lanes = skel->rodata->xdp_dp_stats_cpu_lanes;
    struct xdp_flow_stats_map map;
    struct xdp_flow_stats sum;
    uint64_t *expected;
    uint64_t total = 0;
    int n_cpus = libbpf_num_possible_cpus();
    int error, ran = 0;

    error = xdp_flow_stats_map_open(
        &map, bpf_map__fd(skel->maps.xdp_dp_flow_stats), XDP_DP_MAX_FLOWS);
    if (error) {
        fprintf(stderr, "xdp_flow_stats_map_open: %s\n", strerror(error));
        return 1;
    }
    if (map.n_lanes != cpu_lanes + 1) {
        printf("lanes: %u in the array, %u CPU lanes\n", map.n_lanes,
               cpu_lanes);
        return 1;
    }
    expected = calloc(map.n_lanes, sizeof *expected);
    for (int cpu = 0; cpu < n_cpus; cpu++) {
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set)) {
            continue;           /* Offline, or not ours to run on. */
        }
        run(skel, frame, size, repeat * (cpu + 1));
        expected[cpu % cpu_lanes] += repeat * (cpu + 1);
        total += repeat * (cpu + 1);
        ran++;
    }
    for (uint32_t lane = 0; lane < map.n_lanes; lane++) {
        uint64_t n = map.slots[(size_t) lane * map.n_slots + slot].n_packets;

        if (n != expected[lane]) {
            printf("lane %u: %llu packets, expected %llu\n", lane,
                   (unsigned long long) n,
                   (unsigned long long) expected[lane]);
            return 1;
        }
    }
    printf("lanes: each CPU's frames in its own lane, none elsewhere%s\n",
           ran > 1 ? "" : " (ran on one CPU only)");

    xdp_flow_stats_add(&map, slot, 100, 0x12, 1);
    if (map.slots[(size_t) cpu_lanes * map.n_slots + slot].n_packets != 1) {
        printf("lanes: ovs-vswitchd's packet is not in the last lane\n");
        return 1;
    }
    printf("lanes: ovs-vswitchd's packet in the last lane\n");

    xdp_flow_stats_read(&map, slot, &sum);
    if (sum.n_packets != total + 1
        || sum.n_bytes != total * size + 100 || sum.tcp_flags != 0x12) {
        printf("lanes: read %llu packets, %llu bytes, flags %#llx; "
               "expected %llu, %llu, 0x12\n",
               (unsigned long long) sum.n_packets,
               (unsigned long long) sum.n_bytes,
               (unsigned long long) sum.tcp_flags,
               (unsigned long long) total + 1,
               (unsigned long long) (total * size + 100));
        return 1;
    }
    printf("lanes: a read sums every lane\n");

    xdp_flow_stats_clear(&map, slot);
    xdp_flow_stats_read(&map, slot, &sum);
    if (sum.n_packets || sum.n_bytes || sum.used || sum.tcp_flags) {
        printf("lanes: a cleared slot still counts\n");
        return 1;
    }
    printf("lanes: a clear zeroes every lane\n");
    free(expected);
    xdp_flow_stats_map_close(&map);
    return 0;
}

int
main(int argc, char *argv[])
{
    unsigned char frame[64];
    int repeat = argc > 1 ? atoi(argv[1]) : 1;
    bool lanes = argc > 2 && !strcmp(argv[2], "lanes");
    __u32 lo = if_nametoindex("lo"), port_no = 1, zero = 0, slot = 7;
    struct xdp_dp_stats stats;
    struct xdp_dp *skel;
    unsigned int verdict;

    memset(frame, 0, sizeof frame);
    memset(frame, 0xff, 6);             /* Broadcast destination. */
    frame[6] = 0x02;                    /* Locally administered source. */
    frame[12] = 0x08;                   /* IPv4 EtherType. */

    skel = xdp_dp__open();
    if (!skel) {
        fprintf(stderr, "xdp_dp__open: %s\n", strerror(errno));
        return 1;
    }
    if (lanes) {
        int error = xdp_flow_stats_size(
            skel->maps.xdp_dp_flow_stats, skel->maps.xdp_dp_ct_stats,
            (uint32_t *) &skel->rodata->xdp_dp_stats_cpu_lanes,
            (uint32_t *) &skel->rodata->xdp_dp_stats_own_lane);

        if (error) {
            fprintf(stderr, "xdp_flow_stats_size: %s\n", strerror(error));
            return 1;
        }
    }
    if (xdp_dp__load(skel)) {
        fprintf(stderr, "xdp_dp__load: %s\n", strerror(errno));
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

    if (lanes) {
        int status = check_lanes(skel, frame, sizeof frame, repeat, slot);

        close(subtable);
        xdp_dp__destroy(skel);
        return status;
    }

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
