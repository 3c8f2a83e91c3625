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

/* test-map-batch: drives maps/map-batch.c against real BPF maps and
 * prints, for each case, how many elements were done, each element's
 * result and the system calls made:
 *
 *   case: done N, errors 0 0 EEXIST ..., batch B, elem E, refused R
 *
 * A hash map takes batches and stops at a failing element; a device map
 * has no batch operations, so the kernel refuses its batches whole.
 * Needs root (BPF maps). */

#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>

#include "maps/map-batch.h"
#include "util.h"

#define N 8

static const char *
error_name(int error)
{
    switch (error) {
    case 0: return "0";
    case EEXIST: return "EEXIST";
    case ENOENT: return "ENOENT";
    case ENODEV: return "ENODEV";
    case E2BIG: return "E2BIG";
    case EINVAL: return "EINVAL";
    default: return "other";
    }
}

static void
report(const char *what, size_t done, const int *errors, size_t n,
       const struct xdp_map_calls *c)
{
    printf("%s: done %"PRIuSIZE", errors", what, done);
    for (size_t i = 0; i < n; i++) {
        printf(" %s", error_name(errors[i]));
    }
    printf(", batch %"PRIu64", elem %"PRIu64", refused %"PRIu64"\n",
           c->batch_update + c->batch_delete, c->elem_update + c->elem_delete,
           c->batch_refused);
}

static int
map_create(enum bpf_map_type type, uint32_t max_entries)
{
    int fd = bpf_map_create(type, "test_batch", sizeof(uint32_t),
                            sizeof(uint32_t), max_entries, NULL);

    if (fd < 0) {
        ovs_fatal(errno, "cannot create a map of type %d", type);
    }
    return fd;
}

/* Runs an update ('values' nonnull) or delete of 'keys' on 'fd' and
 * reports it as 'what'. */
static void
run(const char *what, int fd, uint64_t flags, bool stop,
    const uint32_t *keys, const uint32_t *values, size_t n)
{
    struct xdp_map_calls calls = { 0 };
    struct xdp_map_batch mb = {
        .fd = fd,
        .key_size = sizeof *keys,
        .value_size = sizeof *values,
        .flags = flags,
        .stop_at_error = stop,
        .calls = &calls,
    };
    int errors[N];
    size_t done;

    for (size_t i = 0; i < N; i++) {
        errors[i] = -1;         /* Shows as "other" if left unwritten. */
    }
    done = (values
            ? xdp_map_batch_update(&mb, keys, values, n, errors)
            : xdp_map_batch_delete(&mb, keys, n, errors));
    report(what, done, errors, n, &calls);
}

int
main(void)
{
    uint32_t keys[N], values[N], bad[N];
    int small = map_create(BPF_MAP_TYPE_HASH, N / 2);
    int hash = map_create(BPF_MAP_TYPE_HASH, 64);
    int devmap = map_create(BPF_MAP_TYPE_DEVMAP, 64);

    for (uint32_t i = 0; i < N; i++) {
        keys[i] = i;
        values[i] = 1;          /* For the device map: 'lo'. */
        bad[i] = i ? 1 : INT32_MAX;     /* No such device. */
    }

    /* A map of 4 fills up at element 4: every later one fails too. */
    run("update 8 into 4", small, BPF_ANY, false, keys, values, N);
    run("delete them", small, 0, false, keys, NULL, N);
    /* Stopping at the first failure. */
    run("update 8 into 4, stop", small, BPF_ANY, true, keys, values, N);

    /* BPF_NOEXIST: the kernel's batch update takes no such flag. */
    bpf_map_update_elem(hash, &keys[3], &values[3], BPF_ANY);
    run("update, element 3 exists", hash, BPF_NOEXIST, false,
        keys, values, N);

    /* A delete stops at a missing element and goes on after it. */
    bpf_map_delete_elem(hash, &keys[5]);
    run("delete, element 5 missing", hash, 0, false, keys, NULL, N);

    /* Element 0 fails: the batch stops before doing anything, and only
     * element 0 alone tells why. */
    run("update", hash, BPF_ANY, false, keys, values, N);
    bpf_map_delete_elem(hash, &keys[0]);
    run("delete, element 0 missing", hash, 0, false, keys, NULL, N);

    /* One element: no batch. */
    run("update one", hash, BPF_ANY, false, keys, values, 1);

    /* Device map: every batch is refused as a whole. */
    run("devmap update", devmap, BPF_ANY, false, keys, values, N);
    run("devmap delete", devmap, 0, false, keys, NULL, N);
    /* The first element fails alone too: that is its own error, and the
     * rest try a batch again. */
    run("devmap update, element 0 bad", devmap, BPF_ANY, false,
        keys, bad, N);
    return 0;
}
