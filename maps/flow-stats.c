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

/* Per-flow statistics, and other arrays, through mmap().
 *
 * The datapath program keeps each flow's counters in one slot of a
 * BPF_F_MMAPABLE array map (struct xdp_flow_stats).  ovs-vswitchd maps the
 * whole array into its address space once, so reading a flow's
 * statistics, for a flow get or for every flow of a revalidator dump, is a
 * memory read and no bpf() system call.
 *
 * The array is in lanes ("struct xdp_flow_stats" in datapath/xdp-dp.h): a
 * lane of slots per CPU, which only programs on that CPU write, and a last
 * one for the packets ovs-vswitchd classifies itself.  A flow's statistics
 * are the sum of its slot over the lanes; the number of lanes follows from
 * the map's size.  (BPF_MAP_TYPE_PERCPU_ARRAY would do the same per CPU,
 * but cannot be mmapped: reading it costs a system call per flow.)
 *
 * Each 64-bit counter is read with a single relaxed atomic load: it may be
 * a packet behind the program, never torn.  Slots are recycled by the flow
 * table (ofproto-xdp/dpif-xdp-flow.c), which explains when that is safe.
 *
 * xdp_array_mmap() maps any other BPF_F_MMAPABLE array the same way, for
 * the arrays that ovs-vswitchd writes often with no system call. */

#include <config.h>

#include "maps/flow-stats.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "util.h"

/* Maps the whole of BPF_F_MMAPABLE array map 'fd', whose values must be
 * 'value_size' bytes, read-write.  Returns the mapping and stores its
 * size in '*sizep' and the number of entries in '*n_entries', or returns
 * NULL and sets errno. */
void *
xdp_array_mmap(int fd, uint32_t value_size, size_t *sizep,
               uint32_t *n_entries)
{
    struct bpf_map_info info;
    uint32_t len = sizeof info;
    size_t page = sysconf(_SC_PAGESIZE);
    void *p;

    memset(&info, 0, sizeof info);
    if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
        return NULL;
    }
    if (info.value_size != value_size || !info.max_entries) {
        errno = EINVAL;
        return NULL;
    }
    *sizep = ROUND_UP((size_t) info.max_entries * info.value_size, page);
    p = mmap(NULL, *sizep, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        return NULL;
    }
    *n_entries = info.max_entries;
    return p;
}

/* Maps the statistics array whose map fd is 'fd', made of lanes of
 * 'n_slots' slots each.  Returns 0 or a positive errno. */
int
xdp_flow_stats_map_open(struct xdp_flow_stats_map *map, int fd,
                        uint32_t n_slots)
{
    uint32_t n_entries;
    size_t size;
    void *p;

    p = xdp_array_mmap(fd, sizeof(struct xdp_flow_stats), &size, &n_entries);
    if (!p) {
        return errno;
    }
    if (!n_slots || n_entries < n_slots || n_entries % n_slots) {
        munmap(p, size);
        return EINVAL;
    }
    map->fd = fd;
    map->slots = p;
    map->size = size;
    map->n_slots = n_slots;
    map->n_lanes = n_entries / n_slots;
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

/* Copies the counters of 'slot', summed over the lanes, into '*stats'. */
void
xdp_flow_stats_read(const struct xdp_flow_stats_map *map, uint32_t slot,
                    struct xdp_flow_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    for (uint32_t lane = 0; lane < map->n_lanes; lane++) {
        const struct xdp_flow_stats *s
            = &map->slots[(size_t) lane * map->n_slots + slot];
        uint64_t used = __atomic_load_n(&s->used, __ATOMIC_RELAXED);

        stats->n_packets += __atomic_load_n(&s->n_packets, __ATOMIC_RELAXED);
        stats->n_bytes += __atomic_load_n(&s->n_bytes, __ATOMIC_RELAXED);
        stats->used = MAX(stats->used, used);
        stats->tcp_flags |= __atomic_load_n(&s->tcp_flags, __ATOMIC_RELAXED);
    }
}

/* Zeroes 'slot' in every lane.  Only for a slot that no installed flow
 * refers to. */
void
xdp_flow_stats_clear(struct xdp_flow_stats_map *map, uint32_t slot)
{
    for (uint32_t lane = 0; lane < map->n_lanes; lane++) {
        memset(&map->slots[(size_t) lane * map->n_slots + slot], 0,
               sizeof *map->slots);
    }
}

/* Adds a packet of 'n_bytes' with TCP flags 'tcp_flags' (host order), seen
 * at 'used_ns' (CLOCK_MONOTONIC nanoseconds), to 'slot', as the XDP program
 * does for the packets it classifies: for packets that ovs-vswitchd
 * classified itself.  They go to the last lane, which is ovs-vswitchd's
 * own (or, with a single lane, shared with the programs, which then add
 * atomically too); its handler threads share it, hence the atomics. */
void
xdp_flow_stats_add(struct xdp_flow_stats_map *map, uint32_t slot,
                   uint64_t n_bytes, uint16_t tcp_flags, uint64_t used_ns)
{
    struct xdp_flow_stats *s
        = &map->slots[(size_t) (map->n_lanes - 1) * map->n_slots + slot];

    __atomic_fetch_add(&s->n_packets, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&s->n_bytes, n_bytes, __ATOMIC_RELAXED);
    __atomic_store_n(&s->used, used_ns, __ATOMIC_RELAXED);
    if (tcp_flags) {
        __atomic_fetch_or(&s->tcp_flags, tcp_flags, __ATOMIC_RELAXED);
    }
}

/* Sizes the statistics arrays of a BPF object not yet loaded for this
 * machine: 'flows' in a lane per possible CPU (at most
 * XDP_DP_STATS_MAX_CPU_LANES) and ovs-vswitchd's, 'conns' (the connection
 * cache's counters, which ovs-vswitchd only reads; may be NULL) in the CPU
 * lanes alone.  Stores in '*cpu_lanes' the CPU lanes and in '*own' whether
 * each CPU has a lane of its own: the values for the object's constants
 * xdp_dp_stats_cpu_lanes and xdp_dp_stats_own_lane
 * (datapath/xdp-dp-maps.h).  Returns 0 or a positive errno. */
int
xdp_flow_stats_size(struct bpf_map *flows, struct bpf_map *conns,
                    uint32_t *cpu_lanes, uint32_t *own)
{
    int n_cpus = libbpf_num_possible_cpus();
    int error;

    if (n_cpus <= 0) {
        n_cpus = 1;
    }
    *cpu_lanes = MIN(n_cpus, XDP_DP_STATS_MAX_CPU_LANES);
    *own = *cpu_lanes == n_cpus;
    error = -bpf_map__set_max_entries(flows,
                                      (*cpu_lanes + 1) * XDP_DP_MAX_FLOWS);
    if (!error && conns) {
        error = -bpf_map__set_max_entries(conns,
                                          *cpu_lanes * XDP_DP_MAX_CT);
    }
    return error;
}
