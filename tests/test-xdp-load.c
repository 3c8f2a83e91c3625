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

/* test-xdp-load N: opens and loads the datapath program through its
 * skeleton, runs it N times with BPF_PROG_TEST_RUN on a 64-byte frame that
 * arrives on the loopback device, and prints the program's verdict and the
 * counters it kept for that port, summed over CPUs.  Needs CAP_BPF. */

#include <config.h>

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "datapath/xdp-dp.h"
#include "datapath/xdp-dp.skel.h"

static const char *
xdp_verdict_name(unsigned int verdict)
{
    static const char *const names[] = {
        "XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT",
    };
    return verdict < 5 ? names[verdict] : "unknown";
}

int
main(int argc, char *argv[])
{
    unsigned char frame[64];
    struct xdp_dp *skel;
    int repeat = argc > 1 ? atoi(argv[1]) : 1;
    unsigned int ifindex = if_nametoindex("lo");
    int n_cpus = libbpf_num_possible_cpus();
    int error;

    memset(frame, 0, sizeof frame);
    memset(frame, 0xff, 6);             /* Broadcast destination. */
    frame[6] = 0x02;                    /* Locally administered source. */
    frame[12] = 0x08;                   /* IPv4 EtherType... */
    frame[13] = 0x00;

    skel = xdp_dp__open_and_load();
    if (!skel) {
        fprintf(stderr, "xdp_dp__open_and_load: %s\n", strerror(errno));
        return 1;
    }

    struct xdp_md ctx_in = { .data_end = sizeof frame,
                             .ingress_ifindex = ifindex };
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = frame, .data_size_in = sizeof frame,
                .ctx_in = &ctx_in, .ctx_size_in = sizeof ctx_in,
                .repeat = repeat);
    error = bpf_prog_test_run_opts(
        bpf_program__fd(skel->progs.xdp_dp_main), &opts);
    if (error) {
        fprintf(stderr, "bpf_prog_test_run_opts: %s\n", strerror(-error));
        xdp_dp__destroy(skel);
        return 1;
    }

    struct xdp_dp_port_stats *per_cpu = calloc(n_cpus, sizeof *per_cpu);
    unsigned long long packets = 0, bytes = 0;
    if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.xdp_dp_port_stats),
                            &ifindex, per_cpu)) {
        fprintf(stderr, "bpf_map_lookup_elem: %s\n", strerror(errno));
        return 1;
    }
    for (int i = 0; i < n_cpus; i++) {
        packets += per_cpu[i].rx_packets;
        bytes += per_cpu[i].rx_bytes;
    }
    printf("verdict %s, rx_packets %llu, rx_bytes %llu\n",
           xdp_verdict_name(opts.retval), packets, bytes);

    free(per_cpu);
    xdp_dp__destroy(skel);
    return 0;
}
