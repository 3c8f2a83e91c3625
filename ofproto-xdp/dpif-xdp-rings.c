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

/* The upcall rings, and waking their readers only when they sleep.
 *
 * Each online CPU has a perf ring for upcalls (xdp_dp_upcalls), opened
 * with libbpf's perf_buffer__new_raw() on an explicit list of CPUs, so
 * that we know which CPU each ring belongs to.  Its event wakes the
 * reader at every record.  A second event on the same CPU, which never
 * wakes anybody, writes into the same ring (PERF_EVENT_IOC_SET_OUTPUT):
 * the programs use it while the ring's handler thread is awake, which it
 * says in xdp_dp_upcall_awake, mapped here with mmap() so that setting
 * and clearing the flag costs no system call.  "Upcall wakeups" in
 * datapath/xdp-dp.h explains why (a wakeup is a self-IPI, about 6 us of
 * the sending CPU in a virtual machine) and why no record is left behind
 * in a ring whose reader sleeps: the handler clears its flags with a full
 * barrier before it reads its rings one last time, and the program reads
 * the flag with one after writing a record through the quiet event,
 * nudging the reader awake if it went to sleep.
 *
 * libbpf has no interface for a second event per ring, and a BPF ring
 * buffer, whose notifications work this way by themselves, cannot copy a
 * frame of any length out of an XDP buffer or an skb as perf output does;
 * hence this module.  Without the quiet events or the mapped flags (an
 * error is logged), the rings work as before, waking at every record. */

#include <config.h>

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dpif-xdp-private.h"
#include "openvswitch/vlog.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_rings);

/* Pages per CPU ring (a power of 2): 1 MB with 4 kB pages. */
#define DP_XDP_RING_PAGES 256

/* Stores the online CPUs, in ascending order, into a new array '*cpus'
 * (the caller frees it) and returns how many there are, or a negative
 * errno value.  The kernel lists them in /sys as ranges ("0-3,6").
 * (libbpf parses this file for perf_buffer__new() but does not export its
 * parser, and OVS's ovs-numa counts cores, not online CPU numbers.) */
static int
online_cpus(int **cpus)
{
    FILE *stream = fopen("/sys/devices/system/cpu/online", "re");
    size_t n = 0, allocated = 0;
    char line[4096];
    char *p;

    *cpus = NULL;
    if (!stream) {
        return -errno;
    }
    p = fgets(line, sizeof line, stream);
    fclose(stream);
    while (p && *p >= '0' && *p <= '9') {
        unsigned long first = strtoul(p, &p, 10);
        unsigned long last = *p == '-' ? strtoul(p + 1, &p, 10) : first;

        for (unsigned long cpu = first; cpu <= last; cpu++) {
            if (cpu >= XDP_DP_MAX_CPUS) {
                break;
            }
            if (n >= allocated) {
                *cpus = x2nrealloc(*cpus, &allocated, sizeof **cpus);
            }
            (*cpus)[n++] = cpu;
        }
        p = *p == ',' ? p + 1 : NULL;
    }
    if (!n) {
        free(*cpus);
        *cpus = NULL;
        return -EINVAL;
    }
    return n;
}

/* Gives ring 'idx' of 'dp' a quiet event writing into it and enters it in
 * xdp_dp_upcalls_quiet.  Returns 0 or a positive errno value. */
static int
quiet_event_open(struct dp_xdp *dp, int idx)
{
    struct perf_event_attr attr = {
        .size = sizeof attr,
        .type = PERF_TYPE_SOFTWARE,
        .config = PERF_COUNT_SW_BPF_OUTPUT,
        .sample_type = PERF_SAMPLE_RAW,
        .sample_period = 1,
        /* No wakeup_events: a record through this event wakes nobody,
         * but for the ring's own watermark (half the ring). */
    };
    int cpu = dp->ring_cpus[idx];
    int fd;

    fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
                 PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        return errno;
    }
    if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT,
              perf_buffer__buffer_fd(dp->pb, idx))
        || bpf_map_update_elem(dp->quiet_map_fd, &cpu, &fd, BPF_ANY)) {
        int error = errno;

        close(fd);
        return error;
    }
    dp->quiet_fds[idx] = fd;
    return 0;
}

/* Sets up what lets the programs skip wakeups (see above): the quiet
 * events and the mapped flags.  On failure, logs why; the rings then wake
 * at every record. */
static void
quiet_events_open(struct dp_xdp *dp)
{
    size_t size = XDP_DP_MAX_CPUS * sizeof(uint64_t);
    int error = 0;

    dp->quiet_fds = xmalloc(dp->n_buffers * sizeof *dp->quiet_fds);
    for (int i = 0; i < dp->n_buffers; i++) {
        dp->quiet_fds[i] = -1;
    }
    dp->quiet_map_fd = dup(bpf_map__fd(dp->skel->maps.xdp_dp_upcalls_quiet));
    if (dp->quiet_map_fd < 0) {
        error = errno;
        goto error;
    }
    for (int i = 0; i < dp->n_buffers && !error; i++) {
        error = quiet_event_open(dp, i);
    }
    if (error) {
        goto error;
    }

    void *awake = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
                       bpf_map__fd(dp->skel->maps.xdp_dp_upcall_awake), 0);
    if (awake == MAP_FAILED) {
        error = errno;
        goto error;
    }
    dp->upcall_awake = awake;
    return;

error:
    VLOG_WARN("%s: upcall rings wake ovs-vswitchd at every upcall: cannot "
              "set up their quiet events (%s)", dp->name,
              ovs_strerror(error));
}

/* Opens 'dp''s upcall rings, one per online CPU, with 'event_cb' for
 * their records.  Returns 0 or a positive errno value. */
int
dp_xdp_rings_open(struct dp_xdp *dp, perf_buffer_event_fn event_cb)
{
    struct perf_event_attr attr = {
        .type = PERF_TYPE_SOFTWARE,
        .config = PERF_COUNT_SW_BPF_OUTPUT,
        .sample_type = PERF_SAMPLE_RAW,
        .sample_period = 1,
        .wakeup_events = 1,
    };
    int n = online_cpus(&dp->ring_cpus);

    if (n < 0) {
        return -n;
    }
    LIBBPF_OPTS(perf_buffer_raw_opts, opts, .cpu_cnt = n,
                .cpus = dp->ring_cpus, .map_keys = dp->ring_cpus);

    /* The rings keep a descriptor of their own for the map: the skeleton
     * that created it may be replaced (dpif-xdp/reload) while they live,
     * and perf_buffer__free() uses it. */
    dp->upcall_map_fd = dup(bpf_map__fd(dp->skel->maps.xdp_dp_upcalls));
    if (dp->upcall_map_fd < 0) {
        return errno;
    }
    dp->pb = perf_buffer__new_raw(dp->upcall_map_fd, DP_XDP_RING_PAGES,
                                  &attr, event_cb, dp, &opts);
    if (!dp->pb) {
        return errno;
    }
    dp->n_buffers = perf_buffer__buffer_cnt(dp->pb);
    quiet_events_open(dp);
    return 0;
}

/* Closes what dp_xdp_rings_open() opened. */
void
dp_xdp_rings_close(struct dp_xdp *dp)
{
    if (dp->upcall_awake) {
        munmap(dp->upcall_awake, XDP_DP_MAX_CPUS * sizeof(uint64_t));
        dp->upcall_awake = NULL;
    }
    for (int i = 0; dp->quiet_fds && i < dp->n_buffers; i++) {
        if (dp->quiet_fds[i] >= 0) {
            close(dp->quiet_fds[i]);
        }
    }
    free(dp->quiet_fds);
    dp->quiet_fds = NULL;
    if (dp->quiet_map_fd >= 0) {
        close(dp->quiet_map_fd);
        dp->quiet_map_fd = -1;
    }
    perf_buffer__free(dp->pb);
    dp->pb = NULL;
    dp->n_buffers = 0;
    if (dp->upcall_map_fd >= 0) {
        close(dp->upcall_map_fd);
        dp->upcall_map_fd = -1;
    }
    free(dp->ring_cpus);
    dp->ring_cpus = NULL;
}

/* Says to the programs that the handler that reads rings 'first',
 * 'first' + 'step', ... is awake (they need not wake it) or about to
 * sleep.  Both stores are sequentially consistent: a full barrier before
 * the handler's last read of its rings (see above). */
void
dp_xdp_rings_set_awake(struct dp_xdp *dp, int first, int step, bool awake)
{
    if (!dp->upcall_awake) {
        return;
    }
    for (int b = first; b < dp->n_buffers; b += step) {
        atomic_store(&dp->upcall_awake[dp->ring_cpus[b]], awake);
    }
}
