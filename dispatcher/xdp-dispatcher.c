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

/* Looking at the kernel's XDP dispatcher.
 *
 * Since Linux 5.6, every XDP program attached in native or generic mode is
 * added to bpf_dispatcher_xdp, a JIT-generated binary search that calls up
 * to BPF_DISPATCHER_MAX (48) distinct programs by direct jump; any further
 * program is called indirectly, which costs a retpoline where Spectre v2 is
 * mitigated with them.  The kernel does not export the dispatcher's
 * contents, so this module counts what feeds it: the distinct programs
 * behind every XDP BPF link on the system, plus those attached through
 * netlink to devices of this network namespace (bpf_xdp_query()).  It also
 * reports whether the kernel has the dispatcher at all (its symbol in
 * /proc/kallsyms) and whether retpolines are in use. */

#include <config.h>

#include "dispatcher/xdp-dispatcher.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dispatcher/xdp-attach.h"
#include "openvswitch/dynamic-string.h"
#include "sset.h"
#include "util.h"

static bool
kernel_has_dispatcher(void)
{
    FILE *f = fopen("/proc/kallsyms", "r");
    char line[256];
    bool found = false;

    if (!f) {
        return false;
    }
    while (!found && fgets(line, sizeof line, f)) {
        found = strstr(line, " bpf_dispatcher_xdp_func") != NULL;
    }
    fclose(f);
    return found;
}

/* Returns the first line of /sys/.../spectre_v2, or "unknown". */
static void
spectre_v2(char *buf, size_t size)
{
    FILE *f = fopen("/sys/devices/system/cpu/vulnerabilities/spectre_v2",
                    "r");

    if (!f || !fgets(buf, size, f)) {
        snprintf(buf, size, "unknown");
    }
    buf[strcspn(buf, "\n")] = '\0';
    if (f) {
        fclose(f);
    }
}

/* Adds to 'ids' the ids of the programs behind all XDP links, in any
 * namespace. */
void
xdp_dispatcher_collect_link_progs(struct sset *ids)
{
    uint32_t id = 0;

    while (!bpf_link_get_next_id(id, &id)) {
        struct bpf_link_info info;
        uint32_t len = sizeof info;
        int fd = bpf_link_get_fd_by_id(id);

        if (fd < 0) {
            continue;
        }
        memset(&info, 0, sizeof info);
        if (!bpf_obj_get_info_by_fd(fd, &info, &len)
            && info.type == BPF_LINK_TYPE_XDP && info.prog_id) {
            char s[16];

            snprintf(s, sizeof s, "%"PRIu32, info.prog_id);
            sset_add(ids, s);
        }
        close(fd);
    }
}

/* Adds to 'ids' the ids of the XDP programs on the devices of the calling
 * thread's namespace, through netlink or links. */
void
xdp_dispatcher_collect_netdev_progs(struct sset *ids)
{
    struct if_nameindex *ifs = if_nameindex();

    for (struct if_nameindex *i = ifs; i && i->if_index; i++) {
        LIBBPF_OPTS(bpf_xdp_query_opts, q);

        if (!bpf_xdp_query(i->if_index, 0, &q)) {
            uint32_t progs[] = { q.drv_prog_id, q.skb_prog_id };

            for (int j = 0; j < ARRAY_SIZE(progs); j++) {
                if (progs[j]) {
                    char s[16];

                    snprintf(s, sizeof s, "%"PRIu32, progs[j]);
                    sset_add(ids, s);
                }
            }
        }
    }
    if (ifs) {
        if_freenameindex(ifs);
    }
}

/* Describes the kernel's dispatcher and its use. */
void
xdp_dispatcher_format_kernel(struct ds *s)
{
    struct sset ids = SSET_INITIALIZER(&ids);
    char spectre[256];
    size_t n;

    spectre_v2(spectre, sizeof spectre);
    ds_put_format(s, "kernel XDP dispatcher: %s\n",
                  kernel_has_dispatcher() ? "yes" : "no");
    ds_put_format(s, "retpolines: %s (spectre_v2: %s)\n",
                  strstr(spectre, "Retpoline") ? "yes" : "no", spectre);

    xdp_dispatcher_collect_link_progs(&ids);
    xdp_dispatcher_collect_netdev_progs(&ids);
    n = sset_count(&ids);
    ds_put_format(s, "XDP programs attached: %"PRIuSIZE" distinct, ", n);
    if (n <= XDP_DISPATCHER_ENTRIES) {
        ds_put_format(s, "%"PRIuSIZE" of %d dispatcher entries free\n",
                      XDP_DISPATCHER_ENTRIES - n, XDP_DISPATCHER_ENTRIES);
    } else {
        ds_put_format(s, "dispatcher full (%d entries)\n"
                      "warning: %"PRIuSIZE" XDP programs are called "
                      "indirectly (through a retpoline where they are on)\n",
                      XDP_DISPATCHER_ENTRIES, n - XDP_DISPATCHER_ENTRIES);
    }
    sset_destroy(&ids);
}

/* Describes program 'prog_fd' on lines that start with 'label'. */
void
xdp_dispatcher_format_prog(struct ds *s, const char *label, int prog_fd)
{
    struct bpf_prog_info info;
    uint32_t len = sizeof info;
    FILE *f;
    int stats_enabled = 0;

    memset(&info, 0, sizeof info);
    if (bpf_obj_get_info_by_fd(prog_fd, &info, &len)) {
        ds_put_format(s, "  %s: unknown (%s)\n", label, ovs_strerror(errno));
        return;
    }
    ds_put_format(s, "  %s: %s, id %"PRIu32", tag ", label, info.name,
                  info.id);
    for (int i = 0; i < BPF_TAG_SIZE; i++) {
        ds_put_format(s, "%02x", info.tag[i]);
    }
    ds_put_format(s, ", jited %"PRIu32" bytes, xlated %"PRIu32" bytes\n",
                  info.jited_prog_len, info.xlated_prog_len);

    /* load_time counts from boot; turn it into wall-clock time. */
    struct timespec boot, real;
    clock_gettime(CLOCK_BOOTTIME, &boot);
    clock_gettime(CLOCK_REALTIME, &real);
    long long int boot_ns = boot.tv_sec * 1000000000LL + boot.tv_nsec;
    time_t loaded = real.tv_sec - (boot_ns - (long long) info.load_time)
                                  / 1000000000LL;
    struct tm tm;
    char when[64];
    gmtime_r(&loaded, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    ds_put_format(s, "  loaded: %s\n", when);

    f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
    if (f) {
        if (fscanf(f, "%d", &stats_enabled) != 1) {
            stats_enabled = 0;
        }
        fclose(f);
    }
    if (stats_enabled) {
        ds_put_format(s, "  runs: %llu, %.1f ns per run\n",
                      (unsigned long long) info.run_cnt,
                      info.run_cnt ? (double) info.run_time_ns / info.run_cnt
                      : 0.0);
    } else {
        ds_put_cstr(s, "  runs: not counted (kernel.bpf_stats_enabled=0)\n");
    }
}

/* Describes one port's attachment. */
void
xdp_dispatcher_format_attachment(struct ds *s,
                                 const struct xdp_attachment *att)
{
    struct bpf_link_info info;
    uint32_t len = sizeof info;

    memset(&info, 0, sizeof info);
    ds_put_format(s, "ifindex %d, %s", att->ifindex,
                  xdp_attachment_mode(att));
    if (att->native_error) {
        /* A veth refuses native XDP while its peer's MTU is larger than
         * one page holds (ERANGE), a driver without XDP with EOPNOTSUPP. */
        ds_put_format(s, " (native refused: %s)",
                      ovs_strerror(att->native_error));
    }
    if (att->link_fd >= 0 && !bpf_obj_get_info_by_fd(att->link_fd, &info,
                                                     &len)) {
        ds_put_format(s, ", link %"PRIu32, info.id);
    }
}
