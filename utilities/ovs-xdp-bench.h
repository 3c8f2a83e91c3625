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

#ifndef OVS_XDP_BENCH_H
#define OVS_XDP_BENCH_H 1

/* The modes of ovs-xdp-bench.  Each takes the mode's own argv (argv[0] is
 * the mode name) and returns the program's exit status. */

int bench_stats_main(int argc, char *argv[]);
int bench_forward_main(int argc, char *argv[]);
int bench_latency_main(int argc, char *argv[]);
int bench_dispatch_main(int argc, char *argv[]);
int bench_fastpath_main(int argc, char *argv[]);
int bench_tcp_main(int argc, char *argv[]);
int bench_storm_main(int argc, char *argv[]);
int bench_fuzz_main(int argc, char *argv[]);

#endif /* ovs-xdp-bench.h */
