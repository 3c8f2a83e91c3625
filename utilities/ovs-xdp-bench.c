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

/* ovs-xdp-bench: the project's benchmarks, one mode each (see
 * ovs-xdp-bench(8)).  Every mode measures its alternatives side by side in
 * one run on the same machine and reports ratios, never absolute limits. */

#include <config.h>

#include <stdio.h>
#include <string.h>

#include "utilities/ovs-xdp-bench.h"
#include "util.h"

static const struct bench_mode {
    const char *name;
    int (*main)(int argc, char *argv[]);
    const char *summary;
} modes[] = {
    { "stats", bench_stats_main,
      "flow installs, statistics dumps and deletes: batch vs per element "
      "vs mmap" },
    { "forward", bench_forward_main,
      "packets per second through ovs-xdp and the alternatives" },
    { "latency", bench_latency_main,
      "first packet of a new flow against later packets" },
    { "dispatch", bench_dispatch_main,
      "ns per packet with and without an XDP dispatcher entry" },
    { "fastpath", bench_fastpath_main,
      "ns per packet: compiled against generic program, 1 to 64 masks" },
    { "tcp", bench_tcp_main,
      "TCP bulk throughput (iperf3) between two namespaces" },
    { "storm", bench_storm_main,
      "an upcall storm against established traffic and ovs-appctl" },
    { "fuzz", bench_fuzz_main,
      "random tables and frames: xdp against dpif-netdev, byte for byte" },
};

static void
usage(void)
{
    printf("%s: ovs-xdp benchmarks\n"
           "usage: %s MODE [OPTION]...\n"
           "modes:\n", program_name, program_name);
    for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
        printf("  %-8s %s\n", modes[i].name, modes[i].summary);
    }
    printf("'%s MODE --help' describes a mode's options.\n", program_name);
}

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage();
        return argc < 2 ? 1 : 0;
    }
    for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
        if (!strcmp(argv[1], modes[i].name)) {
            return modes[i].main(argc - 1, argv + 1);
        }
    }
    ovs_fatal(0, "unknown mode \"%s\" (use --help)", argv[1]);
}
