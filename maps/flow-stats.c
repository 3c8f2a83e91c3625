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

/* Per-flow statistics through mmap().
 *
 * The datapath program keeps each flow's counters in one slot of a
 * BPF_F_MMAPABLE array map (struct xdp_flow_stats), updated with atomic
 * adds.  ovs-vswitchd maps the whole array into its address space once, so
 * reading a flow's statistics, for a flow get or for every flow of a
 * revalidator dump, is a memory read and no bpf() system call.
 *
 * Each 64-bit counter is read with a single relaxed atomic load: it may be
 * a packet behind the program, never torn.  Slots are recycled by the flow
 * table (ofproto-xdp/dpif-xdp-flow.c), which explains when that is safe. */

#include <config.h>

#include "maps/flow-stats.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"

/* Maps the 'n_slots'-slot statistics array whose map fd is 'fd'.  Returns 0
 * or a positive errno. */
int
xdp_flow_stats_map_open(struct xdp_flow_stats_map *map, int fd,
                        uint32_t n_slots)
{
    size_t page = sysconf(_SC_PAGESIZE);
    size_t size = ROUND_UP(sizeof(struct xdp_flow_stats) * n_slots, page);
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

    if (p == MAP_FAILED) {
        return errno;
    }
    map->fd = fd;
    map->slots = p;
    map->size = size;
    map->n_slots = n_slots;
    return 0;
}

void
xdp_flow_stats_map_close(struct xdp_flow_stats_map *map)
{
    if (map->slots) {
        munmap(map->slots, map->size);
        map->slots = NULL;
    }
}

/* Copies the counters of 'slot' into '*stats'. */
void
xdp_flow_stats_read(const struct xdp_flow_stats_map *map, uint32_t slot,
                    struct xdp_flow_stats *stats)
{
    const struct xdp_flow_stats *s = &map->slots[slot];

    stats->n_packets = __atomic_load_n(&s->n_packets, __ATOMIC_RELAXED);
    stats->n_bytes = __atomic_load_n(&s->n_bytes, __ATOMIC_RELAXED);
    stats->used = __atomic_load_n(&s->used, __ATOMIC_RELAXED);
    stats->tcp_flags = __atomic_load_n(&s->tcp_flags, __ATOMIC_RELAXED);
}

/* Zeroes 'slot'.  Only for a slot that no installed flow refers to. */
void
xdp_flow_stats_clear(struct xdp_flow_stats_map *map, uint32_t slot)
{
    memset(&map->slots[slot], 0, sizeof map->slots[slot]);
}

/* Adds a packet of 'n_bytes' with TCP flags 'tcp_flags' (host order), seen
 * at 'used_ns' (CLOCK_MONOTONIC nanoseconds), to 'slot', as the XDP program
 * does for the packets it classifies: for packets that ovs-vswitchd
 * classified itself.  The same atomic operations as the program's, on the
 * same memory. */
void
xdp_flow_stats_add(struct xdp_flow_stats_map *map, uint32_t slot,
                   uint64_t n_bytes, uint16_t tcp_flags, uint64_t used_ns)
{
    struct xdp_flow_stats *s = &map->slots[slot];

    __atomic_fetch_add(&s->n_packets, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&s->n_bytes, n_bytes, __ATOMIC_RELAXED);
    __atomic_store_n(&s->used, used_ns, __ATOMIC_RELAXED);
    if (tcp_flags) {
        __atomic_fetch_or(&s->tcp_flags, tcp_flags, __ATOMIC_RELAXED);
    }
}
