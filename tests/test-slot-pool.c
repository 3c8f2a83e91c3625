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

/* test-slot-pool: random allocations, frees and claims on a slot pool
 * (ofproto-xdp/slot-pool.c), each checked against a plain array of which
 * slots are in use.  Prints one line of counts; exits 1 at the first
 * disagreement. */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "ofproto-xdp/slot-pool.h"
#include "random.h"
#include "util.h"

#define N 1000

static void
fail(const char *what, uint32_t slot)
{
    fprintf(stderr, "test-slot-pool: %s (slot %"PRIu32")\n", what, slot);
    exit(1);
}

int
main(void)
{
    static bool in_use[N];
    struct slot_pool pool;
    unsigned long n_alloc = 0, n_free = 0, n_claim = 0, n_full = 0;
    uint32_t n_used = 0, slot;

    random_init();
    random_set_seed(20261205);
    slot_pool_init(&pool, N);

    /* A new pool hands out its lowest slots first. */
    for (uint32_t i = 0; i < 3; i++) {
        if (!slot_pool_alloc(&pool, &slot) || slot != i) {
            fail("a new pool did not hand out its lowest slot", slot);
        }
        in_use[slot] = true;
        n_used++;
    }

    for (int step = 0; step < 200000; step++) {
        uint32_t r = random_uint32() % 8;

        if (r < 3) {
            if (slot_pool_alloc(&pool, &slot)) {
                if (slot >= N || in_use[slot]) {
                    fail("allocated a slot in use or out of range", slot);
                }
                in_use[slot] = true;
                n_used++;
                n_alloc++;
            } else if (n_used != N) {
                fail("allocation failed with slots free", n_used);
            } else {
                n_full++;
            }
        } else if (r < 6) {
            slot = random_uint32() % N;
            if (in_use[slot]) {
                slot_pool_free(&pool, slot);
                in_use[slot] = false;
                n_used--;
                n_free++;
            }
        } else {
            /* Claims, of slots in use or not, and out of range. */
            slot = random_uint32() % (N + 10);
            bool ok = slot_pool_claim(&pool, slot);

            if (ok != (slot < N && !in_use[slot])) {
                fail("claim disagreed", slot);
            }
            if (ok) {
                in_use[slot] = true;
                n_used++;
                n_claim++;
            }
        }
        if (pool.n_used != n_used) {
            fail("count of slots in use disagreed", pool.n_used);
        }
        if (pool.n_stack > N + n_claim) {
            fail("stack longer than slots plus claims",
                 (uint32_t) pool.n_stack);
        }
    }

    /* Every free slot can be had, then none. */
    while (slot_pool_alloc(&pool, &slot)) {
        if (in_use[slot]) {
            fail("allocated a slot in use", slot);
        }
        in_use[slot] = true;
        n_used++;
    }
    if (n_used != N) {
        fail("pool ran dry with slots free", n_used);
    }
    slot_pool_destroy(&pool);
    printf("%lu allocations, %lu frees, %lu claims, %lu times full: "
           "consistent\n", n_alloc, n_free, n_claim, n_full);
    return 0;
}
