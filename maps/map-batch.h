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

#ifndef MAP_BATCH_H
#define MAP_BATCH_H 1

/* Batched map updates and deletes with a fallback per call (see
 * map-batch.c). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* BPF map system calls made through the functions below. */
struct xdp_map_calls {
    uint64_t batch_update;      /* BPF_MAP_UPDATE_BATCH. */
    uint64_t elem_update;       /* BPF_MAP_UPDATE_ELEM. */
    uint64_t batch_delete;      /* BPF_MAP_DELETE_BATCH. */
    uint64_t elem_delete;       /* BPF_MAP_DELETE_ELEM. */
    uint64_t batch_refused;     /* Batches the kernel refused as a whole,
                                 * whose elements then went one by one. */
};

/* A map, and how to write to it. */
struct xdp_map_batch {
    int fd;
    size_t key_size;
    size_t value_size;          /* Updates only. */
    uint64_t flags;             /* BPF_ANY, BPF_NOEXIST, ... (updates). */
    bool stop_at_error;         /* Stop at the first element that fails,
                                 * rather than try every one. */
    struct xdp_map_calls *calls;    /* Counted here. */
};

size_t xdp_map_batch_update(const struct xdp_map_batch *, const void *keys,
                            const void *values, size_t n, int *errors);
size_t xdp_map_batch_delete(const struct xdp_map_batch *, const void *keys,
                            size_t n, int *errors);

#endif /* map-batch.h */
