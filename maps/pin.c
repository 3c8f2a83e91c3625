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

/* Pinning a datapath's maps and links in bpffs.
 *
 * Protocol
 * ========
 *
 * Datapath D keeps, under <root>/D/ (root: XDP_DP_PIN_ROOT, or
 * $OVS_XDP_PIN_ROOT, so that tests and sandboxes never meet the system's
 * datapath):
 *
 *     xdp_dp_layout       one 'struct xdp_dp_layout' entry (xdp-dp.h)
 *     xdp_dp_<name>       every map of datapath/xdp-dp-maps.h that holds
 *                         state: ports, masks, subtables (through the
 *                         array of maps), statistics, flow metadata
 *     links/<ifindex>     the BPF link that attaches the program to a port
 *     subtables/<slot>    the hash map of each subtable, which the array
 *                         of maps also holds: reopening it from there
 *                         would take its id, and BPF_MAP_GET_FD_BY_ID
 *                         needs CAP_SYS_ADMIN
 *
 * The per-CPU upcall rings (with their quiet events and their readers'
 * flags) and the scratch map are not pinned: they belong to one process;
 * nor is the devmap (see 'unpinned_maps').
 *
 * At start, an existing directory is used only if its layout entry matches
 * this build's exactly (magic, ABI version, sizes and limits); anything
 * else (no layout entry, another version) is removed whole and rebuilt,
 * never misread.  libbpf then reuses each pinned map (it checks type, key,
 * value and size again) or creates and pins it.  The layout entry is
 * written last, after a successful load, so a directory from a start that
 * failed half-way has none and is rebuilt.
 *
 * 'exit --cleanup' (dpif_delete()) removes the directory; a plain exit
 * leaves it, and the program keeps forwarding through the pinned links
 * until the next ovs-vswitchd takes them over.
 *
 * Another user
 * ============
 *
 * An ovs-vswitchd started with --user USER:GROUP drops root before it
 * opens any datapath (daemonize_start()).  Just before, still root, it
 * calls xdp_pin_hand_over(): the root and everything in it become USER's
 * (pins of an earlier run as root included), and the root is opened and
 * held open.  From then on every pin path goes through /proc/self/fd/N,
 * the held directory, because the directories above the root need not be
 * searchable by USER: systemd mounts /sys/fs/bpf with mode 0700, and a
 * process may always follow its own file descriptors. */

#include <config.h>

#include "maps/pin.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "datapath/xdp-dp.h"
#include "openvswitch/vlog.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(xdp_pin);

/* The maps that are not pinned: per-process state, and the devmap, which
 * the kernel marks BPF_F_RDONLY_PROG while refusing that flag at creation,
 * so that libbpf never finds a pinned devmap compatible.  Each port writes
 * its devmap entry again when it is added back, before its link takes the
 * new program. */
static const char *const unpinned_maps[] = {
    "xdp_dp_upcalls", "xdp_dp_samples", "xdp_dp_scratch", "xdp_dp_tx_ports",
    "xdp_dp_upcalls_quiet", "xdp_dp_upcall_awake",
    /* Compact-key subtables belong to the compiled program of one run;
     * a restarted ovs-vswitchd compiles its own. */
    "xdp_dp_ckeys_2", "xdp_dp_ckeys_4", "xdp_dp_ckeys_6", "xdp_dp_ckeys_8",
    "xdp_dp_ckeys_12", "xdp_dp_ckeys_16",
};

static const struct xdp_dp_layout expected_layout = {
    .magic = XDP_DP_LAYOUT_MAGIC,
    .abi_version = XDP_DP_ABI_VERSION,
    .key_size = sizeof(struct xdp_flow_key),
    .flow_size = sizeof(struct xdp_flow),
    .stats_size = sizeof(struct xdp_flow_stats),
    .max_flows = XDP_DP_MAX_FLOWS,
    .max_masks = XDP_DP_MAX_MASKS,
    .max_ports = XDP_DP_MAX_PORTS,
};

/* The pin root as the user configured it (see xdp_pin_root()). */
static const char *
configured_root(void)
{
    const char *root = getenv("OVS_XDP_PIN_ROOT");

    return root && root[0] ? root : XDP_DP_PIN_ROOT;
}

/* After xdp_pin_hand_over(): "/proc/self/fd/N", N the held root. */
static char *held_root;

const char *
xdp_pin_root(void)
{
    return held_root ? held_root : configured_root();
}

/* Gives 'path' (relative to directory fd 'at') and, if it is a directory,
 * everything below it (at most 'depth' levels) to 'uid':'gid'.  Returns 0
 * or the first positive errno. */
static int
chown_tree(int at, const char *path, int depth, uid_t uid, gid_t gid)
{
    struct stat st;
    int error = 0;

    if (fstatat(at, path, &st, AT_SYMLINK_NOFOLLOW)
        || fchownat(at, path, uid, gid, AT_SYMLINK_NOFOLLOW)) {
        return errno;
    }
    if (S_ISDIR(st.st_mode) && depth > 0) {
        int fd = openat(at, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
        struct dirent *de;

        if (!dir) {
            if (fd >= 0) {
                close(fd);
            }
            return errno;
        }
        while ((de = readdir(dir))) {
            if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
                int e = chown_tree(dirfd(dir), de->d_name, depth - 1, uid,
                                   gid);
                error = error ? error : e;
            }
        }
        closedir(dir);
    }
    return error;
}

/* Prepares the pin root for an ovs-vswitchd that is about to become
 * 'uid':'gid' (see "Another user" above).  Call it as root, before any
 * datapath is opened.  Returns 0 or a positive errno, with the reason
 * logged; on failure the datapath will run without pins, as it does
 * without bpffs. */
int
xdp_pin_hand_over(uid_t uid, gid_t gid)
{
    const char *root = configured_root();
    struct stat st, parent;
    char *up = xasprintf("%s/..", root);
    int error = 0;
    int fd;

    if (mkdir(root, 0700) && errno != EEXIST) {
        error = errno;
    } else if (stat(root, &st) || stat(up, &parent)) {
        error = errno;
    } else if (st.st_dev != parent.st_dev) {
        /* The root is a file system's top, /sys/fs/bpf itself say: never
         * give a whole bpffs, other programs' pins included, away. */
        error = EINVAL;
    } else {
        /* <root>/<datapath>/links/<ifindex> is the deepest pin. */
        error = chown_tree(AT_FDCWD, root, 3, uid, gid);
    }
    free(up);
    if (error) {
        VLOG_WARN("%s: cannot give the BPF pin root to user %d (%s)", root,
                  (int) uid, error == EINVAL ? "it is the top of a file "
                  "system; set OVS_XDP_PIN_ROOT to a directory below it"
                  : ovs_strerror(error));
        return error;
    }

    fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        error = errno;
        VLOG_WARN("%s: cannot open the BPF pin root (%s)", root,
                  ovs_strerror(error));
        return error;
    }
    free(held_root);
    held_root = xasprintf("/proc/self/fd/%d", fd);
    VLOG_INFO("%s: BPF pin root given to user %d, reached as %s", root,
              (int) uid, held_root);
    return 0;
}

char *
xdp_pin_dir(const char *dp_name)
{
    return xasprintf("%s/%s", xdp_pin_root(), dp_name);
}

char *
xdp_pin_link_path(const char *dp_name, int ifindex)
{
    return xasprintf("%s/%s/links/%d", xdp_pin_root(), dp_name, ifindex);
}

char *
xdp_pin_subtable_path(const char *dp_name, uint32_t slot)
{
    return xasprintf("%s/%s/subtables/%"PRIu32, xdp_pin_root(), dp_name,
                     slot);
}

/* Removes directory 'path' and the pins in it, one level of
 * subdirectories deep (links/). */
static void
remove_dir(const char *path)
{
    DIR *dir = opendir(path);
    struct dirent *de;

    if (!dir) {
        return;
    }
    while ((de = readdir(dir))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) {
            continue;
        }
        char *sub = xasprintf("%s/%s", path, de->d_name);
        struct stat st;

        if (!stat(sub, &st) && S_ISDIR(st.st_mode)) {
            remove_dir(sub);
        } else if (unlink(sub)) {
            VLOG_WARN("%s: cannot unpin (%s)", sub, ovs_strerror(errno));
        }
        free(sub);
    }
    closedir(dir);
    rmdir(path);
}

void
xdp_pin_remove(const char *dp_name)
{
    char *dir = xdp_pin_dir(dp_name);

    remove_dir(dir);
    free(dir);
}

static bool
is_bpffs(const char *path)
{
    struct statfs st;

    return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

/* Does the pinned layout entry in 'dir' match ours? */
static bool
layout_matches(const char *dir)
{
    char *path = xasprintf("%s/xdp_dp_layout", dir);
    struct xdp_dp_layout layout;
    uint32_t zero = 0;
    bool match = false;
    int fd = bpf_obj_get(path);

    if (fd >= 0) {
        match = (!bpf_map_lookup_elem(fd, &zero, &layout)
                 && !memcmp(&layout, &expected_layout, sizeof layout));
        close(fd);
    }
    free(path);
    return match;
}

/* Prepares 'obj' (opened, not loaded) to pin its maps for datapath
 * 'dp_name', or to reuse those an earlier ovs-vswitchd pinned.  Stores in
 * '*reused' whether maps will be reused.  Returns false, with nothing
 * pinned, if pinning is impossible (no bpffs at the root). */
bool
xdp_pin_prepare(const char *dp_name, struct bpf_object *obj, bool *reused)
{
    const char *root = xdp_pin_root();
    char *dir = xdp_pin_dir(dp_name);
    char *links = xasprintf("%s/links", dir);
    char *subtables = xasprintf("%s/subtables", dir);
    struct bpf_map *map;
    bool ok = false;

    *reused = false;
    if (mkdir(root, 0700) && errno != EEXIST) {
        VLOG_WARN("%s: cannot create %s (%s): flows will not survive a "
                  "restart", dp_name, root, ovs_strerror(errno));
        goto out;
    }
    if (!is_bpffs(root)) {
        VLOG_WARN("%s: %s is not on a BPF file system (mount -t bpf bpf "
                  "/sys/fs/bpf): flows will not survive a restart",
                  dp_name, root);
        goto out;
    }

    struct stat st;
    if (!stat(dir, &st)) {
        if (layout_matches(dir)) {
            *reused = true;
        } else {
            VLOG_WARN("%s: pinned maps in %s have another layout: "
                      "removing them", dp_name, dir);
            remove_dir(dir);
        }
    }
    if ((mkdir(dir, 0700) && errno != EEXIST)
        || (mkdir(links, 0700) && errno != EEXIST)
        || (mkdir(subtables, 0700) && errno != EEXIST)) {
        VLOG_WARN("%s: cannot create %s (%s): flows will not survive a "
                  "restart", dp_name, dir, ovs_strerror(errno));
        goto out;
    }

    bpf_object__for_each_map (map, obj) {
        const char *name = bpf_map__name(map);
        /* Not the global data maps ("xdp_dp.data" and such), which each
         * process sets up for itself. */
        bool pin = !strchr(name, '.');

        for (size_t i = 0; i < ARRAY_SIZE(unpinned_maps); i++) {
            pin = pin && strcmp(name, unpinned_maps[i]);
        }
        if (pin) {
            char *path = xasprintf("%s/%s", dir, name);

            bpf_map__set_pin_path(map, path);
            free(path);
        }
    }
    ok = true;

out:
    free(subtables);
    free(links);
    free(dir);
    return ok;
}

/* Records our layout in the layout map 'layout_fd' (after a load). */
int
xdp_pin_write_layout(int layout_fd)
{
    uint32_t zero = 0;

    return (bpf_map_update_elem(layout_fd, &zero, &expected_layout, BPF_ANY)
            ? errno : 0);
}

/* Stores in '*ifindexes' the ifindexes of the links pinned for 'dp_name'
 * and returns their number. */
int
xdp_pin_list_links(const char *dp_name, int **ifindexes)
{
    char *dir = xasprintf("%s/%s/links", xdp_pin_root(), dp_name);
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t allocated = 0;
    int n = 0;

    *ifindexes = NULL;
    while (d && (de = readdir(d))) {
        int ifindex = atoi(de->d_name);

        if (ifindex > 0) {
            if (n >= allocated) {
                *ifindexes = x2nrealloc(*ifindexes, &allocated,
                                        sizeof **ifindexes);
            }
            (*ifindexes)[n++] = ifindex;
        }
    }
    if (d) {
        closedir(d);
    }
    free(dir);
    return n;
}
