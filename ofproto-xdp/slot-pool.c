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

/* Slot pools: see slot-pool.h for the mechanism and why OVS's id_pool is
 * not used. */

#include <config.h>

#include "ofproto-xdp/slot-pool.h"

#include <stdlib.h>

#include "bitmap.h"
#include "util.h"

void
slot_pool_init(struct slot_pool *pool, uint32_t n)
{
    pool->used = bitmap_allocate(n);
    pool->allocated = n;
    pool->stack = xmalloc(MAX(n, 1) * sizeof *pool->stack);
    for (uint32_t i = 0; i < n; i++) {
        pool->stack[i] = n - 1 - i;
    }
    pool->n_stack = n;
    pool->n = n;
    pool->n_used = 0;
}

void
slot_pool_destroy(struct slot_pool *pool)
{
    bitmap_free(pool->used);
    free(pool->stack);
}

/* Takes a free slot into '*slot'.  Returns false if every slot is in
 * use. */
bool
slot_pool_alloc(struct slot_pool *pool, uint32_t *slot)
{
    while (pool->n_stack) {
        uint32_t s = pool->stack[--pool->n_stack];

        if (!bitmap_is_set(pool->used, s)) {
            bitmap_set1(pool->used, s);
            pool->n_used++;
            *slot = s;
            return true;
        }
        /* Stale: claimed while it waited here. */
    }
    return false;
}

/* Gives back 'slot', which is in use. */
void
slot_pool_free(struct slot_pool *pool, uint32_t slot)
{
    ovs_assert(slot < pool->n && bitmap_is_set(pool->used, slot));
    bitmap_set0(pool->used, slot);
    pool->n_used--;
    if (pool->n_stack >= pool->allocated) {
        pool->stack = x2nrealloc(pool->stack, &pool->allocated,
                                 sizeof *pool->stack);
    }
    pool->stack[pool->n_stack++] = slot;
}

/* Takes 'slot' itself.  Returns false if it is out of range or in use. */
bool
slot_pool_claim(struct slot_pool *pool, uint32_t slot)
{
    if (slot >= pool->n || bitmap_is_set(pool->used, slot)) {
        return false;
    }
    bitmap_set1(pool->used, slot);
    pool->n_used++;
    return true;
}
