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

#ifndef SLOT_POOL_H
#define SLOT_POOL_H 1

/* A pool of the slots 0 to N - 1 of a BPF array (the statistics slots of
 * flows, the entries of the connection cache), with allocation, release
 * and claiming of a given slot in constant time.
 *
 * OVS's id_pool finds a free id by trying every id from its lowest up
 * whenever its one-id hint is taken, a hash lookup per id in use: under
 * the churn of many flows (an upcall storm, ovs-xdp-bench storm) that
 * scan took most of the time of a flow install.  Here the free slots are
 * a stack and a bitmap says which slots are in use.  Claiming a slot by
 * its number (a flow restored after a restart, which keeps its slot) only
 * marks it: its entry in the stack goes stale, and allocation skips stale
 * entries.  A slot freed after a claim is pushed again, so a slot may be
 * in the stack twice, once stale; the stack holds at most N entries plus
 * one per claim.  Lowest slots come first from a new pool.  Not thread
 * safe: the caller locks. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct slot_pool {
    unsigned long *used;        /* Bitmap of the slots in use. */
    uint32_t *stack;            /* Free slots, the next at the top. */
    size_t n_stack;             /* Entries in 'stack', stale ones too. */
    size_t allocated;           /* Room in 'stack'. */
    uint32_t n;                 /* Slots 0 to 'n' - 1. */
    uint32_t n_used;            /* Slots in use. */
};

void slot_pool_init(struct slot_pool *, uint32_t n);
void slot_pool_destroy(struct slot_pool *);
bool slot_pool_alloc(struct slot_pool *, uint32_t *slot);
void slot_pool_free(struct slot_pool *, uint32_t slot);
bool slot_pool_claim(struct slot_pool *, uint32_t slot);

#endif /* slot-pool.h */
