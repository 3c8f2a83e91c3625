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

/* Attaching the datapath program to ports.
 *
 * Every port of a datapath runs the same XDP program, attached through a
 * BPF link (bpf_link_create() with BPF_XDP), so the kernel's XDP dispatcher
 * holds one entry for the whole datapath, however many ports it has: the
 * dispatcher's entries are keyed by program, and all of them call it by a
 * direct jump.  A link, unlike a netlink attachment, cannot be replaced by
 * anybody else's program and goes away with its owner unless pinned.
 *
 * Before attaching, the port is checked for an XDP program that is already
 * there: ours never replaces one it did not attach.
 *
 * Links are pinned (maps/pin.c), so that the program keeps running on the
 * port when ovs-vswitchd exits without --cleanup.  The next ovs-vswitchd
 * finds the pinned link and swaps its own program in with
 * bpf_link_update(): the port is never without a program.
 *
 * The same port also gets the datapath's TC ingress program, which
 * completes outputs that XDP hands to the stack (XDP_DP_TX_SKB in
 * datapath/xdp-dp.h).  Its filter has a fixed handle and priority and
 * replaces an earlier one of ours, so restarts do not pile filters up.
 * The clsact qdisc it needs is created if absent and removed on detach
 * only if we created it. */

#include <config.h>

#include "dispatcher/xdp-attach.h"

#include <errno.h>
#include <linux/if_link.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "openvswitch/vlog.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(xdp_attach);

const char *
xdp_attach_mode_to_string(enum xdp_attach_mode mode)
{
    switch (mode) {
    case XDP_ATTACH_AUTO: return "auto";
    case XDP_ATTACH_BEST_EFFORT: return "best-effort";
    case XDP_ATTACH_NATIVE: return "native";
    case XDP_ATTACH_GENERIC: return "generic";
    case XDP_ATTACH_TC: return "tc";
    }
    return "unknown";
}

/* The mode that '*att' is attached in: "native", "generic" or "tc". */
const char *
xdp_attachment_mode(const struct xdp_attachment *att)
{
    return att->tc_only ? "tc" : att->native ? "native" : "generic";
}

static int
attach_link(int ifindex, int prog_fd, uint32_t flags)
{
    LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = flags);
    int fd = bpf_link_create(prog_fd, ifindex, BPF_XDP, &opts);

    return fd < 0 ? -errno : fd;
}

/* The TC filter's handle and priority: ours, whatever the run. */
#define XDP_ATTACH_TC_HANDLE 0x0f5d
#define XDP_ATTACH_TC_PRIORITY 0x0f5d

static int
attach_tc(const char *name, struct xdp_attachment *att, int tc_prog_fd)
{
    LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = att->ifindex,
                .attach_point = BPF_TC_INGRESS);
    LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = tc_prog_fd,
                .handle = XDP_ATTACH_TC_HANDLE,
                .priority = XDP_ATTACH_TC_PRIORITY,
                .flags = BPF_TC_F_REPLACE);
    int error;

    error = bpf_tc_hook_create(&hook);
    if (!error) {
        att->tc_hook_created = true;
    } else if (error != -EEXIST) {
        VLOG_WARN("%s: cannot create clsact qdisc (%s)",
                  name, ovs_strerror(-error));
        return -error;
    }
    error = bpf_tc_attach(&hook, &opts);
    if (error) {
        VLOG_WARN("%s: cannot attach TC ingress program (%s)",
                  name, ovs_strerror(-error));
        return -error;
    }
    att->tc_attached = true;
    att->tc_handle = opts.handle;
    att->tc_priority = opts.priority;
    return 0;
}

/* Opens the link pinned at 'pin_path' by an earlier ovs-vswitchd, if it
 * attaches an XDP program to 'ifindex'.  A link of a device that went away
 * (its ifindex reused) is unpinned.  Returns the link's fd, or -1. */
static int
open_pinned_link(const char *pin_path, int ifindex)
{
    struct bpf_link_info info;
    uint32_t len = sizeof info;
    int fd = bpf_obj_get(pin_path);

    if (fd < 0) {
        return -1;
    }
    memset(&info, 0, sizeof info);
    if (bpf_obj_get_info_by_fd(fd, &info, &len)
        || info.type != BPF_LINK_TYPE_XDP || info.xdp.ifindex != ifindex) {
        close(fd);
        unlink(pin_path);
        return -1;
    }
    return fd;
}

/* Takes over the link pinned at 'pin_path' by an earlier ovs-vswitchd, if
 * it attaches an XDP program to 'ifindex': swaps 'xdp_prog_fd' in.
 * Returns true if '*att' now holds that link. */
static bool
take_over_pinned_link(const char *name, const char *pin_path, int ifindex,
                      int xdp_prog_fd, struct xdp_attachment *att)
{
    int fd = open_pinned_link(pin_path, ifindex);

    if (fd < 0) {
        return false;
    }
    if (bpf_link_update(fd, xdp_prog_fd, NULL)) {
        VLOG_WARN("%s: cannot take over the XDP link of an earlier run (%s)",
                  name, ovs_strerror(errno));
        close(fd);
        unlink(pin_path);
        return false;
    }

    LIBBPF_OPTS(bpf_xdp_query_opts, query);
    att->link_fd = fd;
    att->native = (!bpf_xdp_query(ifindex, 0, &query)
                   && query.drv_prog_id != 0);
    att->taken_over = true;
    return true;
}

/* Detaches and unpins the XDP link pinned at 'pin_path' by an earlier
 * ovs-vswitchd, if it attaches a program to 'ifindex'.  Unpinning alone
 * would leave the detach to the kernel's deferred release of the link. */
static void
detach_pinned_link(const char *pin_path, int ifindex)
{
    int fd = open_pinned_link(pin_path, ifindex);

    if (fd >= 0) {
        bpf_link_detach(fd);
        close(fd);
        unlink(pin_path);
    }
}

/* Attaches 'xdp_prog_fd' as the XDP program of device 'name' (whose ifindex
 * is 'ifindex') in 'mode', and 'tc_prog_fd' to its TC ingress hook.  If
 * 'pin_path' is nonnull, pins the link there, or takes over the link an
 * earlier ovs-vswitchd pinned there.  On success, fills in '*att' and
 * returns 0.  In mode XDP_ATTACH_TC, attaches no XDP program, and
 * 'tc_prog_fd' is the TC pipeline.  On failure, logs why, leaves nothing
 * attached and returns a positive errno: EBUSY if the device already has
 * an XDP program. */
int
xdp_attach_port(const char *name, int ifindex, int xdp_prog_fd,
                int tc_prog_fd, enum xdp_attach_mode mode,
                const char *pin_path, struct xdp_attachment *att)
{
    LIBBPF_OPTS(bpf_xdp_query_opts, query);
    int error;

    *att = (struct xdp_attachment) { .ifindex = ifindex, .link_fd = -1 };

    if (mode == XDP_ATTACH_TC) {
        /* The TC pipeline alone.  A link that an earlier run pinned for
         * the device goes first, detached at once: its XDP program would
         * switch the frames before the pipeline sees them. */
        if (pin_path) {
            detach_pinned_link(pin_path, ifindex);
        }
    } else if (pin_path && take_over_pinned_link(name, pin_path, ifindex,
                                                 xdp_prog_fd, att)) {
        goto tc;
    }

    error = bpf_xdp_query(ifindex, 0, &query);
    if (error) {
        VLOG_WARN("%s: cannot query XDP state (%s)",
                  name, ovs_strerror(-error));
        return -error;
    }
    if (query.prog_id || query.drv_prog_id || query.skb_prog_id) {
        uint32_t id = (query.prog_id ? query.prog_id
                       : query.drv_prog_id ? query.drv_prog_id
                       : query.skb_prog_id);
        VLOG_WARN("%s: device already has an XDP program (id %"PRIu32") "
                  "that ovs-xdp did not attach; not replacing it", name, id);
        return EBUSY;
    }
    if (mode == XDP_ATTACH_TC) {
        att->tc_only = true;
        goto tc;
    }

    if (mode != XDP_ATTACH_GENERIC) {
        att->link_fd = attach_link(ifindex, xdp_prog_fd, XDP_FLAGS_DRV_MODE);
        att->native = att->link_fd >= 0;
        att->native_error = att->native ? 0 : -att->link_fd;
        if (att->link_fd < 0 && mode == XDP_ATTACH_NATIVE) {
            error = -att->link_fd;
            VLOG_WARN("%s: cannot attach XDP program in native mode (%s)",
                      name, ovs_strerror(error));
            att->link_fd = -1;
            return error;
        }
    }
    if (att->link_fd < 0) {
        att->link_fd = attach_link(ifindex, xdp_prog_fd, XDP_FLAGS_SKB_MODE);
        if (att->link_fd < 0) {
            error = -att->link_fd;
            VLOG_WARN("%s: cannot attach XDP program (%s)",
                      name, ovs_strerror(error));
            att->link_fd = -1;
            return error;
        }
    }

    if (pin_path && bpf_obj_pin(att->link_fd, pin_path)) {
        VLOG_WARN("%s: cannot pin XDP link at %s (%s): the port will stop "
                  "forwarding when ovs-vswitchd exits", name, pin_path,
                  ovs_strerror(errno));
    }

tc:
    error = attach_tc(name, att, tc_prog_fd);
    if (error) {
        xdp_detach_port(name, pin_path, att);
        return error;
    }
    if (att->tc_only) {
        VLOG_INFO("%s: attached the TC pipeline (tc mode, no XDP program)",
                  name);
    } else {
        VLOG_INFO("%s: %s XDP program in %s mode", name,
                  att->taken_over ? "took over the link of the" : "attached",
                  att->native ? "native" : "generic");
    }
    return 0;
}

/* Swaps 'xdp_prog_fd' and 'tc_prog_fd' in for the programs that '*att'
 * runs on device 'name': bpf_link_update() replaces the XDP program
 * atomically (no packet meets no program), and the TC filter is replaced in
 * place.  A port in tc mode keeps its TC pipeline, which is not compiled
 * per flow table.  Returns 0 or a positive errno; on failure the port
 * keeps its old XDP program. */
int
xdp_attach_swap(const char *name, struct xdp_attachment *att,
                int xdp_prog_fd, int tc_prog_fd)
{
    int error;

    if (att->tc_only) {
        return 0;
    }
    if (bpf_link_update(att->link_fd, xdp_prog_fd, NULL)) {
        error = errno;
        /* ENOLINK: the device went away and took the link's attachment
         * with it; the caller drops the port. */
        VLOG(error == ENOLINK ? VLL_DBG : VLL_WARN,
             "%s: cannot swap the XDP program (%s)",
             name, ovs_strerror(error));
        return error;
    }
    return attach_tc(name, att, tc_prog_fd);
}

/* Detaches what xdp_attach_port() attached to device 'name', and removes
 * the link's pin at 'pin_path' (if nonnull). */
void
xdp_detach_port(const char *name, const char *pin_path,
                struct xdp_attachment *att)
{
    if (pin_path && unlink(pin_path) && errno != ENOENT) {
        VLOG_WARN("%s: cannot unpin %s (%s)", name, pin_path,
                  ovs_strerror(errno));
    }
    if (att->tc_attached) {
        LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = att->ifindex,
                    .attach_point = BPF_TC_INGRESS);
        LIBBPF_OPTS(bpf_tc_opts, opts, .handle = att->tc_handle,
                    .priority = att->tc_priority);
        int error = bpf_tc_detach(&hook, &opts);

        if (error && error != -ENODEV && error != -ENOENT) {
            VLOG_WARN("%s: cannot detach TC program (%s)",
                      name, ovs_strerror(-error));
        }
        if (att->tc_hook_created) {
            hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
            bpf_tc_hook_destroy(&hook);
        }
        att->tc_attached = false;
    }
    if (att->link_fd >= 0) {
        /* With the pin gone, closing the last fd detaches the program. */
        close(att->link_fd);
        att->link_fd = -1;
    }
}
