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

/* test-xdp-meter N: one meter's buckets, shared by every CPU without a
 * lock (datapath/xdp-dp-meter.h), never pass more than the meter allows.
 *
 * Loads the datapath program through its skeleton, writes meter 1 with
 * one drop band of 1 packet/s and a burst of 100,000 packets, full, and
 * runs the program xdp_dp_meter_run N times (BPF_PROG_TEST_RUN with a
 * repeat count) from one thread pinned to each CPU, all at once.  The
 * per-CPU counters say how many packets met the meter and how many its
 * band dropped; the rest passed.  Prints one line per check, "ok" or what
 * was wrong, and exits 1 if a check failed:
 *
 *   - every run met the meter, on its own CPU's counters;
 *   - no more passed than the burst and what the rate added while the
 *     threads ran (one packet per second), whatever the interleaving: a
 *     bucket changed without atomicity by two CPUs at once lets through
 *     more (a plain subtraction let 105,355 to 105,784 through here);
 *   - the burst did pass: at least half of it (a packet refused near an
 *     empty bucket while another CPU gives tokens back is allowed).
 *
 * Needs CAP_BPF. */

#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"

#define METER_ID 1
#define BURST 100000                /* Packets. */
#define RATE 1                      /* Packets per second. */

struct runner {
    pthread_t thread;
    int cpu;
    int prog_fd;
    int repeat;
    int error;
};

static uint64_t
monotonic_msec(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static void *
run(void *r_)
{
    struct runner *r = r_;
    uint8_t frame[14 + sizeof(struct xdp_dp_meter_run)];
    struct xdp_dp_meter_run *m = (struct xdp_dp_meter_run *) frame;
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = frame, .data_size_in = sizeof frame,
                .repeat = r->repeat);
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(r->cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set)) {
        r->error = EINVAL;
        return NULL;
    }
    memset(frame, 0, sizeof frame);
    m->id = METER_ID;
    m->len = 64;
    if (bpf_prog_test_run_opts(r->prog_fd, &opts)) {
        r->error = errno;
    }
    return NULL;
}

int
main(int argc, char *argv[])
{
    int repeat = argc > 1 ? atoi(argv[1]) : 100000;
    int n_cpus = libbpf_num_possible_cpus();
    struct xdp_dp_meter_stats *per_cpu;
    struct runner runners[CPU_SETSIZE];
    uint64_t start_ms, elapsed_ms, n_packets = 0, n_dropped = 0, passed;
    uint32_t id = METER_ID;
    struct xdp_dp_meter meter;
    struct xdp_dp *skel;
    int n_runners = 0, failed = 0;
    cpu_set_t online;

    skel = xdp_dp__open_and_load();
    if (!skel || n_cpus <= 0) {
        fprintf(stderr, "xdp_dp__open_and_load: %s\n", strerror(errno));
        return 1;
    }

    memset(&meter, 0, sizeof meter);
    meter.flags = XDP_DP_METER_F_SET | XDP_DP_METER_F_PKTPS;
    meter.n_bands = 1;
    meter.max_delta_ms = BURST * 1000 / RATE;
    meter.bands[0].rate = RATE;
    meter.bands[0].bucket_max = BURST * 1000ULL;
    meter.bands[0].bucket = meter.bands[0].bucket_max;
    start_ms = monotonic_msec();
    meter.used_ms = start_ms;
    if (bpf_map_update_elem(bpf_map__fd(skel->maps.xdp_dp_meters), &id,
                            &meter, 0)) {
        fprintf(stderr, "meter: %s\n", strerror(errno));
        return 1;
    }

    if (sched_getaffinity(0, sizeof online, &online)) {
        fprintf(stderr, "sched_getaffinity: %s\n", strerror(errno));
        return 1;
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &online)) {
            struct runner *r = &runners[n_runners++];

            r->cpu = cpu;
            r->prog_fd = bpf_program__fd(skel->progs.xdp_dp_meter_run);
            r->repeat = repeat;
            r->error = 0;
        }
    }
    for (int i = 0; i < n_runners; i++) {
        pthread_create(&runners[i].thread, NULL, run, &runners[i]);
    }
    for (int i = 0; i < n_runners; i++) {
        pthread_join(runners[i].thread, NULL);
        if (runners[i].error) {
            fprintf(stderr, "cpu %d: %s\n", runners[i].cpu,
                    strerror(runners[i].error));
            return 1;
        }
    }
    elapsed_ms = monotonic_msec() - start_ms + 1;

    per_cpu = calloc(n_cpus, sizeof *per_cpu);
    if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.xdp_dp_meter_stats), &id,
                            per_cpu)) {
        fprintf(stderr, "meter stats: %s\n", strerror(errno));
        return 1;
    }
    for (int i = 0; i < n_cpus; i++) {
        n_packets += per_cpu[i].n_packets;
        n_dropped += per_cpu[i].bands[0].n_packets;
    }
    passed = n_packets - n_dropped;

    if (n_packets == (uint64_t) repeat * n_runners) {
        printf("counted: ok\n");
    } else {
        printf("counted: %llu of %llu\n", (unsigned long long) n_packets,
               (unsigned long long) repeat * n_runners);
        failed = 1;
    }
    if (passed <= BURST + elapsed_ms * RATE / 1000 + 1) {
        printf("at most the burst and the rate: ok\n");
    } else {
        printf("at most the burst and the rate: %llu passed in %llu ms\n",
               (unsigned long long) passed, (unsigned long long) elapsed_ms);
        failed = 1;
    }
    if (passed >= BURST / 2) {
        printf("the burst passed: ok\n");
    } else {
        printf("the burst passed: only %llu\n", (unsigned long long) passed);
        failed = 1;
    }
    fprintf(stderr, "%d CPUs, %llu packets, %llu passed, %llu ms\n",
            n_runners, (unsigned long long) n_packets,
            (unsigned long long) passed, (unsigned long long) elapsed_ms);
    free(per_cpu);
    xdp_dp__destroy(skel);
    return failed;
}
