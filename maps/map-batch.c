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

/* Batched map updates and deletes, with a fallback per call.
 *
 * BPF_MAP_UPDATE_BATCH and BPF_MAP_DELETE_BATCH apply the elements in
 * order and stop at the first one that fails: the call returns that
 * element's error, and 'count' says how many went before it.  A kernel or
 * map type without batch operations refuses the whole call instead
 * (ENOTSUPP, with 'count' as it was), which looks like a failure of the
 * first element.  libbpf wraps the system calls and nothing more, so the
 * rest is here, once for every map the datapath writes in bursts:
 *
 *   - the elements before the stop are done; the one at the stop failed
 *     with the call's error, and the rest go on in the next batch;
 *   - when the stop is at the first element, that element is tried alone:
 *     if it fails, that was its own error; if it succeeds, the kernel
 *     refused the batch as a whole, and the rest of this call goes one
 *     element at a time (counted in 'batch_refused').  The next call tries
 *     a batch again: nothing is switched off for good.
 *
 * A caller that wants to know only how far the elements got (a map that
 * filled up) asks to stop at the first failure.
 *
 * The kernel's batch update takes no element flags but BPF_F_LOCK (it
 * refuses BPF_NOEXIST and BPF_EXIST with EINVAL), so updates with those go
 * one element at a time. */

#include <config.h>

#include "maps/map-batch.h"

#include <errno.h>

#include <bpf/bpf.h>

#include "coverage.h"
#include "util.h"

COVERAGE_DEFINE(xdp_map_batch_update);
COVERAGE_DEFINE(xdp_map_batch_delete);
COVERAGE_DEFINE(xdp_map_elem_update);
COVERAGE_DEFINE(xdp_map_elem_delete);
COVERAGE_DEFINE(xdp_map_batch_refused);

/* One batch system call on the 'n' elements of 'keys' and 'values' (NULL
 * for a delete).  Returns 0 or a positive errno, with the number of
 * elements done in '*done'. */
static int
batch_call(const struct xdp_map_batch *m, const uint8_t *keys,
           const uint8_t *values, size_t n, size_t *done)
{
    LIBBPF_OPTS(bpf_map_batch_opts, opts, .elem_flags = m->flags);
    uint32_t count = n;
    int error;

    if (values) {
        COVERAGE_INC(xdp_map_batch_update);
        m->calls->batch_update++;
        error = bpf_map_update_batch(m->fd, keys, values, &count, &opts);
    } else {
        COVERAGE_INC(xdp_map_batch_delete);
        m->calls->batch_delete++;
        opts.elem_flags = 0;
        error = bpf_map_delete_batch(m->fd, keys, &count, &opts);
    }
    if (!error) {
        *done = n;
        return 0;
    }
    error = errno;
    /* A refusal leaves 'count' as it was: nothing to go by. */
    *done = count < n ? count : 0;
    return error;
}

/* One element alone.  Returns 0 or a positive errno. */
static int
elem_call(const struct xdp_map_batch *m, const uint8_t *key,
          const uint8_t *value)
{
    int error;

    if (value) {
        COVERAGE_INC(xdp_map_elem_update);
        m->calls->elem_update++;
        error = bpf_map_update_elem(m->fd, key, value, m->flags);
    } else {
        COVERAGE_INC(xdp_map_elem_delete);
        m->calls->elem_delete++;
        error = bpf_map_delete_elem(m->fd, key);
    }
    return error ? errno : 0;
}

static size_t
map_batch__(const struct xdp_map_batch *m, const uint8_t *keys,
            const uint8_t *values, size_t n, int *errors)
{
    size_t i = 0, n_ok = 0;
    bool batch = !values || !(m->flags & ~(uint64_t) BPF_F_LOCK);

    while (i < n) {
        size_t left = n - i, done = 0;
        int error = 0;

        if (batch && left > 1) {
            error = batch_call(m, keys + i * m->key_size,
                               values ? values + i * m->value_size : NULL,
                               left, &done);
            for (size_t j = 0; errors && j < done; j++) {
                errors[i + j] = 0;
            }
            i += done;
            n_ok += done;
            if (!error) {
                break;
            }
        }
        if (!done) {
            /* The first element alone: its own error, or the batch (if
             * any) was refused as a whole. */
            bool refused = error != 0;

            error = elem_call(m, keys + i * m->key_size,
                              values ? values + i * m->value_size : NULL);
            if (refused && !error) {
                COVERAGE_INC(xdp_map_batch_refused);
                m->calls->batch_refused++;
                batch = false;
            }
        }
        if (errors) {
            errors[i] = error;
        }
        if (error && m->stop_at_error) {
            break;
        }
        n_ok += !error;
        i++;
    }
    return n_ok;
}

/* Updates the 'n' elements of 'keys' and 'values' in 'm', with 'm''s
 * flags, in as few system calls as the kernel allows.  Puts each
 * element's result (0 or a positive errno) in 'errors', if it is not
 * NULL; with 'm->stop_at_error', only those of the elements tried (up to
 * the first failure).  Returns the number of elements updated. */
size_t
xdp_map_batch_update(const struct xdp_map_batch *m, const void *keys,
                     const void *values, size_t n, int *errors)
{
    return map_batch__(m, keys, values, n, errors);
}

/* Deletes the 'n' elements of 'keys' from 'm', as
 * xdp_map_batch_update() updates them.  Returns the number deleted. */
size_t
xdp_map_batch_delete(const struct xdp_map_batch *m, const void *keys,
                     size_t n, int *errors)
{
    return map_batch__(m, keys, NULL, n, errors);
}
