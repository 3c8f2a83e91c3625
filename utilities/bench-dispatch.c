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

/* ovs-xdp-bench dispatch: what the kernel's XDP dispatcher is worth to the
 * datapath program, in nanoseconds per packet.
 *
 * The dispatcher.  Since Linux 5.6 the kernel calls XDP programs through
 * bpf_dispatcher_xdp (kernel/bpf/dispatcher.c): JIT-generated code that
 * compares the program against up to BPF_DISPATCHER_MAX (48) programs and
 * calls a match directly; any other program is called indirectly, through
 * a retpoline where Spectre v2 is mitigated with them.  Attaching a
 * program in native or generic mode (dev_xdp_install() ->
 * bpf_prog_change_xdp()) gives it an entry if one is free.  Entries belong
 * to programs and are counted: a program attached to several devices
 * holds one entry until its last attachment goes, and a program that
 * found the dispatcher full does not get an entry later when one frees
 * up.  BPF_PROG_TEST_RUN with repeat > 1 calls the program through the
 * dispatcher as well, and adds it for the length of the call if it has no
 * entry and there is room.
 *
 * The method: the kernel's xdp_perf selftest, with the datapath program.
 * The program (xdp_dp_main of datapath/xdp-dp.bpf.c) is loaded fresh with
 * its maps and given a real job: the test frame's ingress device is port 1
 * in xdp_dp_in_ports and one subtable holds one catch-all drop flow, as in
 * tests/test-xdp-load.c, so each run parses a 64-byte UDP frame,
 * classifies it and counts it (the flow's counter is checked after every
 * call).  BPF_PROG_TEST_RUN runs it --repeat times, and the kernel's own
 * figure, opts.duration, is the time per run in whole nanoseconds, with
 * the time the task spent rescheduled left out.  Two states:
 *
 *   A  dispatcher in use: the program is attached to a scratch veth, so it
 *      has an entry.
 *
 *   B  dispatcher full: 48 distinct copies of a trivial program
 *      (datapath/bench-trivial.bpf.c, each loaded separately) are attached
 *      to 48 other scratch veths, and then the datapath program, the 49th,
 *      which gets no entry.
 *
 * A further copy of the trivial program, the probe, attached next to the
 * datapath program, is timed in both states as well: the kernel's own
 * comparison, whose patch series measured 15 ns without and 5 ns with the
 * dispatcher under retpolines.
 *
 * How B is made sure of.  Every change of state first detaches every
 * program of this run with BPF_LINK_DETACH, which is synchronous, so that
 * none keeps an entry from the state before; B then attaches the 48
 * fillers first.  Each filler takes a free entry if there is one, so once
 * 48 distinct fillers are attached the dispatcher is full, whatever other
 * programs on the machine held; the datapath program and the probe,
 * attached after them, find no room, and nor does BPF_PROG_TEST_RUN.  That
 * holds until a program outside this run leaves the dispatcher, which on
 * a machine where other tests attach XDP programs happens: the XDP
 * programs attached elsewhere (behind XDP links in any namespace, or
 * through netlink in the root namespace or one named under /run/netns)
 * are listed before each B and again after its measurements, and a B
 * during which any of them went away is measured again, up to
 * DISP_MAX_RETRIES times.  A needs a free entry for each of the two
 * programs; the run warns if other programs might hold them all.
 *
 * The scratch devices are 25 veth pairs, down, both ends used, named
 * oxbdPID-0 to oxbdPID-49, in a namespace of their own, oxb-d-PID, which
 * the process enters for the run: BPF_PROG_TEST_RUN looks the frame's
 * ingress device up in the caller's namespace.  Everything is removed at
 * the end, also on failure or Ctrl-C (a fatal_signal hook).
 *
 * The states alternate, A B A B, over --rounds rounds.  The result per
 * program and state is the median of the rounds, with min-max, and the
 * difference and ratio of B to A.  Whether retpolines are on is reported,
 * and so is kernel.bpf_stats_enabled, which adds about 90 ns to every
 * run: it is never changed. */

#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "dispatcher/xdp-dispatcher.h"
#include "fatal-signal.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "packets.h"
#include "sset.h"
#include "util.h"
#include "utilities/bench-common.h"
#include "utilities/bench-forward.h"
#include "utilities/ovs-xdp-bench.h"

#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "datapath/bench-trivial.skel.h"

#define DISP_DEFAULT_ROUNDS 5
#define DISP_DEFAULT_REPEAT 1000000
#define DISP_MAX_REPEAT 1000000000

/* The frame: 64 bytes of Ethernet, IPv4 and UDP. */
#define DISP_FRAME_SIZE 64

/* Datapath port number of the frame's ingress device, and the statistics
 * slot of the catch-all flow. */
#define DISP_PORT_NO 1
#define DISP_FLOW_SLOT 0

/* The scratch devices, each with the program that runs on it: the
 * datapath program, the probe, then the fillers. */
#define DISP_N_FILLERS XDP_DISPATCHER_ENTRIES
#define DISP_DEV_DP 0
#define DISP_DEV_PROBE 1
#define DISP_DEV_FILLER0 2
#define DISP_N_DEVS (DISP_DEV_FILLER0 + DISP_N_FILLERS)

/* How often a disturbed B is measured again before it is kept anyway. */
#define DISP_MAX_RETRIES 3

/* The states. */
enum disp_state {
    DISP_A,                     /* Programs attached, with entries. */
    DISP_B,                     /* Dispatcher full first, then programs. */
    DISP_N_STATES
};

/* The programs timed: one row each. */
enum disp_prog {
    DISP_PROG_DP,               /* xdp_dp_main, on device DISP_DEV_DP. */
    DISP_PROG_TRIVIAL,          /* The probe, on device DISP_DEV_PROBE. */
    DISP_N_PROGS
};

static const struct {
    const char *name;           /* Row name. */
    int dev;                    /* Device it is attached to. */
    uint32_t verdict;           /* What every run must return. */
} disp_progs[DISP_N_PROGS] = {
    [DISP_PROG_DP] = { "xdp_dp_main", DISP_DEV_DP, XDP_DROP },
    [DISP_PROG_TRIVIAL] = { "trivial", DISP_DEV_PROBE, XDP_PASS },
};

/* A scratch device. */
struct disp_dev {
    char *name;                 /* Interface name, in the namespace. */
    unsigned int ifindex;       /* Its ifindex there. */
    int prog_fd;                /* The program attached to it. */
    int link_fd;                /* XDP link while attached, otherwise -1. */
};

/* The whole benchmark, reachable from the cleanup hook.  The process has
 * one thread, which also runs the hook, from fatal_signal_run() or at
 * exit, so nothing here is locked. */
struct disp {
    /* Options. */
    unsigned int n_rounds;      /* --rounds. */
    unsigned int repeat;        /* --repeat. */
    bool json;                  /* --json. */

    /* The machine. */
    char spectre_v2[256];       /* First line of .../spectre_v2. */
    bool retpolines;            /* 'spectre_v2' mentions retpolines. */
    int bpf_stats;              /* kernel.bpf_stats_enabled, -1 unknown. */
    bool has_dispatcher;        /* bpf_dispatcher_xdp_func in kallsyms. */
    size_t n_others;            /* XDP programs attached elsewhere at the
                                 * start. */
    char *attach_mode;          /* "native" or "generic", once known. */

    /* The scratch namespace and devices. */
    char *ns;                   /* Namespace name. */
    bool ns_created;            /* 'ns' was created, to be removed. */
    int root_fd;                /* The namespace we came from, or -1. */
    int ns_fd;                  /* 'ns', or -1. */
    struct disp_dev devs[DISP_N_DEVS];

    /* Programs. */
    struct xdp_dp *dp;          /* Datapath program and maps. */
    int subtable_fd;            /* The subtable with the catch-all flow. */
    struct bench_trivial *trivials[DISP_N_DEVS]; /* By device; NULL for
                                                  * DISP_DEV_DP. */
    struct sset our_ids;        /* Ids of our programs, as strings. */
    uint64_t flow_packets;      /* What the flow's n_packets must be. */
    uint8_t frame[DISP_FRAME_SIZE];

    /* Results. */
    uint32_t *samples[DISP_N_PROGS][DISP_N_STATES]; /* ns per run, per
                                                     * round. */
    unsigned int n_remeasured;  /* B measured again after a disturbance. */
    unsigned int n_disturbed;   /* B kept although disturbed. */
    bool warned;                /* Warned that A may find no room. */
};

/* Addresses of the frame ("oxb" in the middle). */
static const struct eth_addr disp_src_mac = ETH_ADDR_C(02,6f,78,62,00,01);
static const struct eth_addr disp_dst_mac = ETH_ADDR_C(02,6f,78,62,00,02);

/* The machine. */

/* Reads the first line of 'file' into 'buf', without its new-line.
 * Returns true if successful. */
static bool
disp_read_line(const char *file, char *buf, size_t size)
{
    FILE *stream = fopen(file, "re");
    bool ok = stream && fgets(buf, size, stream);

    if (stream) {
        fclose(stream);
    }
    if (ok) {
        buf[strcspn(buf, "\n")] = '\0';
    }
    return ok;
}

static bool
disp_kernel_has_dispatcher(void)
{
    FILE *stream = fopen("/proc/kallsyms", "re");
    char line[256];
    bool found = false;

    while (stream && !found && fgets(line, sizeof line, stream)) {
        found = strstr(line, " bpf_dispatcher_xdp_func") != NULL;
    }
    if (stream) {
        fclose(stream);
    }
    return found;
}

static void
disp_probe_machine(struct disp *d)
{
    char line[64];

    if (!disp_read_line("/sys/devices/system/cpu/vulnerabilities/spectre_v2",
                        d->spectre_v2, sizeof d->spectre_v2)) {
        ovs_strlcpy(d->spectre_v2, "unknown", sizeof d->spectre_v2);
    }
    d->retpolines = strstr(d->spectre_v2, "Retpoline") != NULL;
    d->bpf_stats = -1;
    if (disp_read_line("/proc/sys/kernel/bpf_stats_enabled", line,
                       sizeof line)) {
        d->bpf_stats = atoi(line);
    }
    d->has_dispatcher = disp_kernel_has_dispatcher();
}

/* Namespaces. */

/* Makes the process (one thread) enter the namespace open as 'fd'. */
static void
disp_setns(int fd)
{
    if (setns(fd, CLONE_NEWNET)) {
        ovs_fatal(errno, "setns");
    }
}

/* Adds to 'ids' the XDP programs attached in the namespace named 'name'
 * under /run/netns, unless it is this run's namespace. */
static void
disp_collect_named_ns(const struct disp *d, const char *name,
                      struct sset *ids)
{
    char *file;
    int fd;

    if (d->ns && !strcmp(name, d->ns)) {
        return;
    }
    file = xasprintf("/run/netns/%s", name);
    fd = open(file, O_RDONLY | O_CLOEXEC);
    free(file);
    /* A namespace that went away in the meantime has no programs left. */
    if (fd >= 0) {
        if (!setns(fd, CLONE_NEWNET)) {
            xdp_dispatcher_collect_netdev_progs(ids);
        }
        close(fd);
    }
}

/* Stores in 'ids' the ids of the XDP programs attached outside this run
 * that can be seen from here: those behind XDP links, in any namespace,
 * and those attached through netlink to devices of the root namespace or
 * of a namespace named under /run/netns (netlink attachments in other,
 * unnamed namespaces cannot be found). */
static void
disp_collect_others(const struct disp *d, struct sset *ids)
{
    int here = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    DIR *dir;

    if (here < 0) {
        ovs_fatal(errno, "/proc/thread-self/ns/net");
    }

    sset_clear(ids);
    xdp_dispatcher_collect_link_progs(ids);

    /* The root namespace: where we are until the scratch namespace is
     * entered. */
    if (d->root_fd >= 0) {
        disp_setns(d->root_fd);
    }
    xdp_dispatcher_collect_netdev_progs(ids);

    dir = opendir("/run/netns");
    if (dir) {
        struct dirent *de;

        while ((de = readdir(dir)) != NULL) {
            if (de->d_name[0] != '.') {
                disp_collect_named_ns(d, de->d_name, ids);
            }
        }
        closedir(dir);
    }

    disp_setns(here);
    close(here);

    const char *name;
    SSET_FOR_EACH (name, &d->our_ids) {
        sset_find_and_delete(ids, name);
    }
}

/* Returns true if a program in 'before' is not in 'after'. */
static bool
disp_any_left(const struct sset *before, const struct sset *after)
{
    const char *name;

    SSET_FOR_EACH (name, before) {
        if (!sset_contains(after, name)) {
            return true;
        }
    }
    return false;
}

/* Attaching. */

static void
disp_attach(struct disp *d, int dev)
{
    struct disp_dev *dd = &d->devs[dev];

    if (dd->link_fd >= 0) {
        return;
    }
    dd->link_fd = bpf_link_create(dd->prog_fd, dd->ifindex, BPF_XDP, NULL);
    if (dd->link_fd < 0) {
        ovs_fatal(errno, "%s: cannot attach XDP program", dd->name);
    }
}

/* Detaches the program from device 'dev', if it is attached (see
 * bench_link_detach()). */
static int
disp_detach(struct disp *d, int dev)
{
    return bench_link_detach(&d->devs[dev].link_fd);
}

/* Puts the dispatcher in 'state' (see the comment at the top): detaches
 * every program of the run, then, for B, attaches the 48 fillers, and then
 * the two timed programs. */
static void
disp_set_state(struct disp *d, enum disp_state state)
{
    for (int i = 0; i < DISP_N_DEVS; i++) {
        int error = disp_detach(d, i);

        if (error) {
            /* The program might keep its dispatcher entry. */
            ovs_fatal(error, "%s: cannot detach XDP program",
                      d->devs[i].name);
        }
        fatal_signal_run();
    }
    if (state == DISP_B) {
        for (int i = DISP_DEV_FILLER0; i < DISP_N_DEVS; i++) {
            disp_attach(d, i);
            fatal_signal_run();
        }
    }
    disp_attach(d, DISP_DEV_DP);
    disp_attach(d, DISP_DEV_PROBE);

    if (!d->attach_mode) {
        LIBBPF_OPTS(bpf_xdp_query_opts, q);

        if (!bpf_xdp_query(d->devs[DISP_DEV_DP].ifindex, 0, &q)) {
            d->attach_mode = xstrdup(
                q.attach_mode == XDP_ATTACHED_DRV ? "native"
                : q.attach_mode == XDP_ATTACHED_SKB ? "generic"
                : q.attach_mode == XDP_ATTACHED_MULTI ? "multi"
                : "unknown");
        }
    }
}

/* Running. */

/* Runs program 'p' 'repeat' times on the frame with BPF_PROG_TEST_RUN,
 * checks what it did, and returns the kernel's time per run in ns. */
static uint32_t
disp_run(struct disp *d, enum disp_prog p, unsigned int repeat)
{
    const struct disp_dev *dd = &d->devs[disp_progs[p].dev];
    struct xdp_md ctx_in = {
        .data_end = sizeof d->frame,
        .ingress_ifindex = dd->ifindex,
    };
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = d->frame, .data_size_in = sizeof d->frame,
                .ctx_in = &ctx_in, .ctx_size_in = sizeof ctx_in,
                .repeat = repeat);
    int error;

    for (;;) {
        error = -bpf_prog_test_run_opts(dd->prog_fd, &opts);
        if (error != EINTR) {
            break;
        }
        /* A signal ended the runs: if it was Ctrl-C, this cleans up and
         * exits. */
        fatal_signal_run();
    }
    if (error) {
        ovs_fatal(error, "%s: BPF_PROG_TEST_RUN failed",
                  disp_progs[p].name);
    }
    if (opts.retval != disp_progs[p].verdict) {
        ovs_fatal(0, "%s: verdict %"PRIu32" instead of %"PRIu32,
                  disp_progs[p].name, opts.retval, disp_progs[p].verdict);
    }

    if (p == DISP_PROG_DP) {
        uint32_t slot = DISP_FLOW_SLOT;
        struct xdp_flow_stats stats;

        if (bpf_map_lookup_elem(bpf_map__fd(d->dp->maps.xdp_dp_flow_stats),
                                &slot, &stats)) {
            ovs_fatal(errno, "cannot read the flow's statistics");
        }
        d->flow_packets += repeat;
        if (stats.n_packets != d->flow_packets) {
            ovs_fatal(0, "the catch-all flow counted %"PRIu64" packets, "
                      "not %"PRIu64": the program did not classify every "
                      "frame to it", (uint64_t) stats.n_packets,
                      d->flow_packets);
        }
    }
    return opts.duration;
}

/* Setup and cleanup. */

static void
disp_build_frame(struct disp *d)
{
    fwd_put_frame_sized(d->frame, sizeof d->frame, disp_src_mac,
                        disp_dst_mac, "198.18.0.1", "198.18.0.2", 1024, 9);
}

/* Creates the namespace and the veth pairs in it, and enters it. */
static void
disp_create_devices(struct disp *d)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    struct ds batch = DS_EMPTY_INITIALIZER;
    long pid = getpid();
    char *file;
    int status;

    for (int i = 0; i < DISP_N_DEVS; i++) {
        d->devs[i].name = xasprintf("%sd%ld-%d", BENCH_PREFIX, pid, i);
        ovs_assert(strlen(d->devs[i].name) < IFNAMSIZ);
    }
    for (int i = 0; i < DISP_N_DEVS; i += 2) {
        ds_put_format(&batch, "link add %s type veth peer name %s\n",
                      d->devs[i].name, d->devs[i + 1].name);
    }

    d->ns = xasprintf("%s-d-%ld", BENCH_PREFIX, pid);
    status = bench_run(&output, "ip netns add %s", d->ns);
    if (status) {
        struct ds why = DS_EMPTY_INITIALIZER;

        bench_explain(&why, "ip netns add", status, &output);
        ovs_fatal(0, "%s", ds_cstr(&why));
    }
    d->ns_created = true;

    /* nsenter, not 'ip -n', which remounts /sys and fails in a chroot. */
    status = bench_run(&output, "nsenter --net=/run/netns/%s ip -batch - "
                       "<<'EOF'\n%sEOF\n", d->ns, ds_cstr(&batch));
    if (status) {
        struct ds why = DS_EMPTY_INITIALIZER;

        bench_explain(&why, "creating veth pairs", status, &output);
        ovs_fatal(0, "%s", ds_cstr(&why));
    }
    ds_destroy(&batch);
    ds_destroy(&output);

    d->root_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    file = xasprintf("/run/netns/%s", d->ns);
    d->ns_fd = open(file, O_RDONLY | O_CLOEXEC);
    if (d->root_fd < 0 || d->ns_fd < 0) {
        ovs_fatal(errno, "cannot open namespace %s", file);
    }
    free(file);
    disp_setns(d->ns_fd);

    for (int i = 0; i < DISP_N_DEVS; i++) {
        d->devs[i].ifindex = if_nametoindex(d->devs[i].name);
        if (!d->devs[i].ifindex) {
            ovs_fatal(errno, "%s", d->devs[i].name);
        }
    }
    fprintf(stderr, "topology: namespace %s, veths %s to %s (%d pairs, "
            "down)\n", d->ns, d->devs[0].name, d->devs[DISP_N_DEVS - 1].name,
            DISP_N_DEVS / 2);
}

static void
disp_map_update(struct bpf_map *map, const void *key, const void *value)
{
    if (bpf_map_update_elem(bpf_map__fd(map), key, value, BPF_ANY)) {
        ovs_fatal(errno, "cannot update map %s", bpf_map__name(map));
    }
}

/* Adds the id of program 'fd' to our own. */
static void
disp_add_our_id(struct disp *d, int fd)
{
    struct bpf_prog_info info;
    uint32_t len = sizeof info;

    memset(&info, 0, sizeof info);
    if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
        ovs_fatal(errno, "cannot get program information");
    }
    sset_add_and_free(&d->our_ids, xasprintf("%"PRIu32, info.id));
}

/* Loads the datapath program and gives it its port and flow. */
static void
disp_load_datapath(struct disp *d)
{
    LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
    uint32_t ifindex = d->devs[DISP_DEV_DP].ifindex;
    uint32_t port_no = DISP_PORT_NO;
    uint32_t zero = 0;
    struct xdp_dp_mask_list list;
    struct xdp_flow_key key;
    struct xdp_dp_mask mask;
    struct xdp_flow flow;

    d->dp = xdp_dp__open_and_load();
    if (!d->dp) {
        ovs_fatal(errno, "cannot load the datapath program");
    }
    d->devs[DISP_DEV_DP].prog_fd = bpf_program__fd(d->dp->progs.xdp_dp_main);
    disp_add_our_id(d, d->devs[DISP_DEV_DP].prog_fd);
    disp_map_update(d->dp->maps.xdp_dp_in_ports, &ifindex, &port_no);

    /* One subtable, made as the datapath makes them, whose all-zero mask
     * matches every frame, with one drop flow (no actions). */
    d->subtable_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "disp_subtbl",
                                    sizeof(struct xdp_flow_key),
                                    sizeof(struct xdp_flow),
                                    XDP_DP_MAX_FLOWS, &opts);
    if (d->subtable_fd < 0) {
        ovs_fatal(errno, "cannot create a subtable");
    }
    memset(&key, 0, sizeof key);
    memset(&mask, 0, sizeof mask);
    memset(&flow, 0, sizeof flow);
    memset(&list, 0, sizeof list);
    flow.slot = DISP_FLOW_SLOT;
    list.n_masks = 1;
    list.slots[0] = 0;
    if (bpf_map_update_elem(d->subtable_fd, &key, &flow, BPF_ANY)) {
        ovs_fatal(errno, "cannot install the flow");
    }
    disp_map_update(d->dp->maps.xdp_dp_masks, &zero, &mask);
    disp_map_update(d->dp->maps.xdp_dp_subtables, &zero, &d->subtable_fd);
    disp_map_update(d->dp->maps.xdp_dp_mask_lists, &zero, &list);
}

/* Loads the probe and the fillers, each a program of its own. */
static void
disp_load_trivials(struct disp *d)
{
    for (int i = DISP_DEV_PROBE; i < DISP_N_DEVS; i++) {
        d->trivials[i] = bench_trivial__open_and_load();
        if (!d->trivials[i]) {
            ovs_fatal(errno, "cannot load trivial program %d", i);
        }
        d->devs[i].prog_fd = bpf_program__fd(
            d->trivials[i]->progs.bench_trivial);
        disp_add_our_id(d, d->devs[i].prog_fd);
    }
}

/* Removes everything the benchmark built.  Runs at exit and on fatal
 * signals (fatal_signal_add_hook()), and is safe to run more than once. */
static void
disp_cleanup(void *d_)
{
    struct disp *d = d_;

    for (int i = 0; i < DISP_N_DEVS; i++) {
        int error = disp_detach(d, i);

        if (error) {
            ovs_error(error, "%s: cannot detach XDP program",
                      d->devs[i].name);
        }
    }
    for (int i = 0; i < DISP_N_DEVS; i++) {
        bench_trivial__destroy(d->trivials[i]);
        d->trivials[i] = NULL;
    }
    if (d->subtable_fd >= 0) {
        close(d->subtable_fd);
        d->subtable_fd = -1;
    }
    xdp_dp__destroy(d->dp);
    d->dp = NULL;

    if (d->root_fd >= 0) {
        if (setns(d->root_fd, CLONE_NEWNET)) {
            ovs_error(errno, "cannot return to the original namespace");
        }
        close(d->root_fd);
        d->root_fd = -1;
    }
    if (d->ns_fd >= 0) {
        close(d->ns_fd);
        d->ns_fd = -1;
    }
    bench_netns_remove(d->ns, &d->ns_created);
}

/* Results. */

static double
disp_median(const struct disp *d, enum disp_prog p, enum disp_state s)
{
    double *values = xmalloc(d->n_rounds * sizeof *values);
    double median;

    for (unsigned int r = 0; r < d->n_rounds; r++) {
        values[r] = d->samples[p][s][r];
    }
    median = bench_median(values, d->n_rounds);
    free(values);
    return median;
}

static void
disp_min_max(const struct disp *d, enum disp_prog p, enum disp_state s,
             uint32_t *min, uint32_t *max)
{
    *min = UINT32_MAX;
    *max = 0;
    for (unsigned int r = 0; r < d->n_rounds; r++) {
        *min = MIN(*min, d->samples[p][s][r]);
        *max = MAX(*max, d->samples[p][s][r]);
    }
}

static const char *
disp_bpf_stats_string(const struct disp *d)
{
    return (d->bpf_stats < 0 ? "unknown"
            : d->bpf_stats ? "on" : "off");
}

static void
disp_print_table(const struct disp *d)
{
    struct ds out = DS_EMPTY_INITIALIZER;
    struct utsname uts;

    uname(&uts);
    ds_put_format(&out, "ovs-xdp-bench dispatch: ns per packet through "
                  "BPF_PROG_TEST_RUN, %d-byte UDP\nframe, repeat %u, "
                  "median of %u round%s, states alternating A B\n",
                  DISP_FRAME_SIZE, d->repeat, d->n_rounds,
                  d->n_rounds > 1 ? "s" : "");
    ds_put_format(&out, "kernel: Linux %s, %ld CPUs, XDP dispatcher %s\n",
                  uts.release, sysconf(_SC_NPROCESSORS_ONLN),
                  d->has_dispatcher ? "present" : "ABSENT");
    ds_put_format(&out, "retpolines: %s (spectre_v2: %s)\n",
                  d->retpolines ? "on" : "off", d->spectre_v2);
    ds_put_format(&out, "kernel.bpf_stats_enabled: %s%s\n",
                  disp_bpf_stats_string(d),
                  d->bpf_stats > 0 ? " (adds about 90 ns to every run; "
                  "left as it is)" : "");
    ds_put_format(&out, "attached: %s XDP, through links, to veths of "
                  "namespace %s\n", d->attach_mode ? d->attach_mode : "-",
                  d->ns);
    ds_put_format(&out, "other XDP programs seen attached at the start: "
                  "%"PRIuSIZE"\n", d->n_others);
    ds_put_format(&out, "  A  dispatcher in use: the program attached, "
                  "with a dispatcher entry\n"
                  "  B  dispatcher full: %d distinct trivial programs "
                  "attached first, then the\n"
                  "     program, which gets no entry\n\n", DISP_N_FILLERS);

    ds_put_format(&out, "%-12s %8s %9s %8s %9s %7s %7s\n", "program",
                  "A ns/pkt", "A min-max", "B ns/pkt", "B min-max",
                  "B - A", "B / A");
    for (int p = 0; p < DISP_N_PROGS; p++) {
        double a = disp_median(d, p, DISP_A);
        double b = disp_median(d, p, DISP_B);
        uint32_t a_min, a_max, b_min, b_max;
        char *a_range, *b_range;

        disp_min_max(d, p, DISP_A, &a_min, &a_max);
        disp_min_max(d, p, DISP_B, &b_min, &b_max);
        a_range = xasprintf("%"PRIu32"-%"PRIu32, a_min, a_max);
        b_range = xasprintf("%"PRIu32"-%"PRIu32, b_min, b_max);
        ds_put_format(&out, "%-12s %8.1f %9s %8.1f %9s %7.1f",
                      disp_progs[p].name, a, a_range, b, b_range, b - a);
        if (a > 0) {
            ds_put_format(&out, " %6.2fx\n", b / a);
        } else {
            ds_put_format(&out, " %7s\n", "-");
        }
        free(a_range);
        free(b_range);
    }

    ds_put_format(&out, "\nns/pkt: the kernel's time per run "
                  "(opts.duration, whole ns), median of the\nrounds "
                  "(min-max); B - A, B / A: of the medians.\n"
                  "  xdp_dp_main  the datapath program, loaded fresh: "
                  "ingress veth as port %d,\n"
                  "               one catch-all drop flow; each run "
                  "parses, classifies, counts\n"
                  "  trivial      datapath/bench-trivial.bpf.c "
                  "(XDP_PASS): the kernel's own\n"
                  "               comparison, 15 ns without and 5 ns "
                  "with the dispatcher when\n"
                  "               it was merged (retpolines)\n",
                  DISP_PORT_NO);
    if (d->n_remeasured) {
        ds_put_format(&out, "B measured again %u time%s: another XDP "
                      "program left the dispatcher during it.\n",
                      d->n_remeasured, d->n_remeasured > 1 ? "s" : "");
    }
    if (d->n_disturbed) {
        ds_put_format(&out, "warning: %u B measurement%s kept although "
                      "another XDP program left the\ndispatcher during "
                      "it: the program may have had an entry there.\n",
                      d->n_disturbed, d->n_disturbed > 1 ? "s" : "");
    }
    if (!d->has_dispatcher) {
        ds_put_cstr(&out, "warning: this kernel has no XDP dispatcher: "
                    "A and B are the same.\n");
    }
    fputs(ds_cstr(&out), stdout);
    fflush(stdout);
    ds_destroy(&out);
}

static struct json *
disp_json_samples(const struct disp *d, enum disp_prog p, enum disp_state s)
{
    struct json *array = json_array_create_empty();

    for (unsigned int r = 0; r < d->n_rounds; r++) {
        json_array_add(array, json_integer_create(d->samples[p][s][r]));
    }
    return array;
}

static void
disp_print_json(const struct disp *d)
{
    struct json *top = json_object_create();
    struct json *progs = json_array_create_empty();
    struct utsname uts;

    uname(&uts);
    json_object_put_string(top, "mode", "dispatch");
    json_object_put_string(top, "kernel", uts.release);
    json_object_put(top, "cpus",
                    json_integer_create(sysconf(_SC_NPROCESSORS_ONLN)));
    json_object_put(top, "kernel_dispatcher",
                    json_boolean_create(d->has_dispatcher));
    json_object_put(top, "retpolines", json_boolean_create(d->retpolines));
    json_object_put_string(top, "spectre_v2", d->spectre_v2);
    json_object_put(top, "bpf_stats_enabled", d->bpf_stats < 0
                    ? json_null_create()
                    : json_boolean_create(d->bpf_stats > 0));
    json_object_put_string(top, "attach_mode",
                           d->attach_mode ? d->attach_mode : "unknown");
    json_object_put(top, "other_xdp_programs",
                    json_integer_create(d->n_others));
    json_object_put(top, "fillers", json_integer_create(DISP_N_FILLERS));
    json_object_put(top, "frame_size", json_integer_create(DISP_FRAME_SIZE));
    json_object_put(top, "repeat", json_integer_create(d->repeat));
    json_object_put(top, "rounds", json_integer_create(d->n_rounds));
    json_object_put(top, "b_remeasured", json_integer_create(d->n_remeasured));
    json_object_put(top, "b_disturbed", json_integer_create(d->n_disturbed));

    for (int p = 0; p < DISP_N_PROGS; p++) {
        struct json *prog = json_object_create();
        double a = disp_median(d, p, DISP_A);
        double b = disp_median(d, p, DISP_B);

        json_object_put_string(prog, "name", disp_progs[p].name);
        json_object_put(prog, "a_ns", disp_json_samples(d, p, DISP_A));
        json_object_put(prog, "b_ns", disp_json_samples(d, p, DISP_B));
        json_object_put(prog, "a_median_ns", json_real_create(a));
        json_object_put(prog, "b_median_ns", json_real_create(b));
        json_object_put(prog, "b_minus_a_ns", json_real_create(b - a));
        json_object_put(prog, "b_over_a", a > 0 ? json_real_create(b / a)
                                                : json_null_create());
        json_array_add(progs, prog);
    }
    json_object_put(top, "programs", progs);

    bench_write_json(top, NULL);
}

/* Command line. */

static void
disp_usage(void)
{
    printf("\
%s dispatch: ns per packet with and without an XDP dispatcher entry\n\
usage: %s dispatch [OPTION]...\n\
\n\
Times the datapath program (one catch-all drop flow: each run parses,\n\
classifies and counts a 64-byte UDP frame) and a trivial program with\n\
BPF_PROG_TEST_RUN, alternating two states:\n\
  A  the program attached to a scratch veth, so it has a dispatcher entry\n\
  B  %d distinct trivial programs attached first, filling the dispatcher,\n\
     then the program, which gets no entry\n\
Reports the medians and the ratio B / A, whether retpolines are on and\n\
whether kernel.bpf_stats_enabled is (never changed).  Creates and removes\n\
a network namespace with %d veths.  Needs root.\n\
\n\
Options:\n\
  --rounds=N     A B rounds (default %d)\n\
  --repeat=N     runs per BPF_PROG_TEST_RUN call (default %d)\n\
  --json         print the results as JSON\n\
  -h, --help     display this help message\n",
           program_name, program_name, DISP_N_FILLERS, DISP_N_DEVS,
           DISP_DEFAULT_ROUNDS, DISP_DEFAULT_REPEAT);
}


static void
disp_parse_options(struct disp *d, int argc, char *argv[])
{
    enum {
        OPT_ROUNDS = UCHAR_MAX + 1,
        OPT_REPEAT,
        OPT_JSON,
    };
    static const struct option long_options[] = {
        {"rounds", required_argument, NULL, OPT_ROUNDS},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"json", no_argument, NULL, OPT_JSON},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };

    d->n_rounds = DISP_DEFAULT_ROUNDS;
    d->repeat = DISP_DEFAULT_REPEAT;
    for (;;) {
        int c = getopt_long(argc, argv, "h", long_options, NULL);

        if (c == -1) {
            break;
        }
        switch (c) {
        case OPT_ROUNDS:
            d->n_rounds = bench_parse_count("--rounds", optarg, 1, 1000);
            break;
        case OPT_REPEAT:
            d->repeat = bench_parse_count("--repeat",
                                          optarg, 1, DISP_MAX_REPEAT);
            break;
        case OPT_JSON:
            d->json = true;
            break;
        case 'h':
            disp_usage();
            exit(EXIT_SUCCESS);
        default:
            ovs_fatal(0, "use --help for usage");
        }
    }
    if (optind < argc) {
        ovs_fatal(0, "dispatch takes no arguments (use --help for usage)");
    }
}

/* Measures both programs in 'state', round 'r'.  For B, lists the other
 * XDP programs around it and measures again if one of them left. */
static void
disp_measure(struct disp *d, enum disp_state state, unsigned int r)
{
    struct sset before = SSET_INITIALIZER(&before);
    struct sset after = SSET_INITIALIZER(&after);

    for (int attempt = 0; ; attempt++) {
        disp_collect_others(d, &before);
        if (state == DISP_A && !d->warned
            && sset_count(&before) + 2 > XDP_DISPATCHER_ENTRIES) {
            ovs_error(0, "warning: %"PRIuSIZE" other XDP programs are "
                      "attached: in A, ours may find the dispatcher full",
                      sset_count(&before));
            d->warned = true;
        }
        disp_set_state(d, state);
        for (int p = 0; p < DISP_N_PROGS; p++) {
            d->samples[p][state][r] = disp_run(d, p, d->repeat);
        }
        if (state == DISP_A) {
            break;
        }
        disp_collect_others(d, &after);
        if (!disp_any_left(&before, &after)) {
            break;
        } else if (attempt >= DISP_MAX_RETRIES) {
            d->n_disturbed++;
            break;
        }
        d->n_remeasured++;
        fprintf(stderr, "(another XDP program left the dispatcher during "
                "B: measuring B again) ");
    }
    fprintf(stderr, "%s %s %"PRIu32" ns, %s %"PRIu32" ns",
            state == DISP_A ? "A" : "B",
            disp_progs[DISP_PROG_DP].name,
            d->samples[DISP_PROG_DP][state][r],
            disp_progs[DISP_PROG_TRIVIAL].name,
            d->samples[DISP_PROG_TRIVIAL][state][r]);
    sset_destroy(&before);
    sset_destroy(&after);
}

int
bench_dispatch_main(int argc, char *argv[])
{
    static struct disp disp;
    struct disp *d = &disp;
    struct sset others = SSET_INITIALIZER(&others);

    d->root_fd = d->ns_fd = d->subtable_fd = -1;
    sset_init(&d->our_ids);
    for (int i = 0; i < DISP_N_DEVS; i++) {
        d->devs[i].prog_fd = d->devs[i].link_fd = -1;
    }
    disp_parse_options(d, argc, argv);
    if (geteuid()) {
        ovs_fatal(0, "dispatch: must run as root (network namespaces, XDP "
                  "and BPF_PROG_TEST_RUN need it)");
    }

    disp_probe_machine(d);
    disp_collect_others(d, &others);
    d->n_others = sset_count(&others);
    sset_destroy(&others);

    fatal_signal_add_hook(disp_cleanup, NULL, d, true);
    disp_build_frame(d);
    disp_create_devices(d);
    disp_load_datapath(d);
    disp_load_trivials(d);
    for (int p = 0; p < DISP_N_PROGS; p++) {
        for (int s = 0; s < DISP_N_STATES; s++) {
            d->samples[p][s] = xcalloc(d->n_rounds, sizeof **d->samples);
        }
        /* One short untimed call each, to fail early and warm up. */
        disp_run(d, p, 1000);
    }

    for (unsigned int r = 0; r < d->n_rounds; r++) {
        fprintf(stderr, "round %u/%u: ", r + 1, d->n_rounds);
        disp_measure(d, DISP_A, r);
        fprintf(stderr, "; ");
        disp_measure(d, DISP_B, r);
        fprintf(stderr, "\n");
    }
    disp_cleanup(d);

    if (d->json) {
        disp_print_json(d);
    } else {
        disp_print_table(d);
    }

    for (int p = 0; p < DISP_N_PROGS; p++) {
        for (int s = 0; s < DISP_N_STATES; s++) {
            free(d->samples[p][s]);
        }
    }
    for (int i = 0; i < DISP_N_DEVS; i++) {
        free(d->devs[i].name);
    }
    sset_destroy(&d->our_ids);
    free(d->attach_mode);
    free(d->ns);
    return 0;
}
