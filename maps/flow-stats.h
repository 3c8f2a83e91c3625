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

#ifndef FLOW_STATS_H
#define FLOW_STATS_H 1

/* Per-flow statistics read through mmap() (see flow-stats.c). */

#include <stddef.h>
#include <stdint.h>

#include "datapath/xdp-dp.h"

struct xdp_flow_stats_map {
    int fd;                         /* The BPF_F_MMAPABLE array. */
    struct xdp_flow_stats *slots;   /* Its memory, mapped: lane 0. */
    size_t size;                    /* Bytes mapped. */
    uint32_t n_slots;               /* Slots per lane. */
    uint32_t n_lanes;               /* Lanes (see flow-stats.c). */
};

void *xdp_array_mmap(int fd, uint32_t value_size, size_t *sizep,
                     uint32_t *n_entries);
int xdp_flow_stats_map_open(struct xdp_flow_stats_map *, int fd,
                            uint32_t n_slots);
void xdp_flow_stats_map_close(struct xdp_flow_stats_map *);
void xdp_flow_stats_read(const struct xdp_flow_stats_map *, uint32_t slot,
                         struct xdp_flow_stats *);
void xdp_flow_stats_clear(struct xdp_flow_stats_map *, uint32_t slot);
void xdp_flow_stats_add(struct xdp_flow_stats_map *, uint32_t slot,
                        uint64_t n_bytes, uint16_t tcp_flags,
                        uint64_t used_ns);

struct bpf_map;
int xdp_flow_stats_size(struct bpf_map *flows, struct bpf_map *conns,
                        uint32_t *cpu_lanes, uint32_t *own);

#endif /* flow-stats.h */
