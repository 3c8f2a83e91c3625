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

/* Subtables: the BPF hash maps that hold the xdp datapath's megaflows, one
 * per distinct mask, and the order in which the program visits them.
 *
 * The program reaches subtable slot N through xdp_dp_subtables, an array
 * of maps; xdp_dp_masks holds slot N's mask, and one of the two copies in
 * xdp_dp_mask_lists the visit order (xdp_dp_mask_active says which).  A
 * flow takes a reference on the subtable of its mask
 * (dp_xdp_mask_ref()); the last reference frees the slot.  A new order is
 * written into the copy not in use and then switched to, so that the
 * program never sees half a list.
 *
 * Each subtable's hash map is also pinned on its own (see maps/pin.c):
 * after a restart it is reopened from its pin, because the other way, from
 * the id the outer map gives, takes CAP_SYS_ADMIN. */

#include <config.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dpif-xdp-private.h"
#include "maps/pin.h"
#include "openvswitch/vlog.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_subtable);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

/* Publishes the subtable order to the program: writes the copy that is not
 * in use, then switches to it. */
static int
publish_mask_order(struct dp_xdp *dp)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct xdp_dp_mask_list list;
    uint32_t next = !dp->active_list;
    uint32_t zero = 0;

    memset(&list, 0, sizeof list);
    list.n_masks = dp->n_masks;
    memcpy(list.slots, dp->mask_order, dp->n_masks * sizeof list.slots[0]);
    if (bpf_map_update_elem(bpf_map__fd(dp->skel->maps.xdp_dp_mask_lists),
                            &next, &list, BPF_ANY)
        || bpf_map_update_elem(
            bpf_map__fd(dp->skel->maps.xdp_dp_mask_active),
            &zero, &next, BPF_ANY)) {
        return errno;
    }
    dp->active_list = next;
    return 0;
}

/* Every subtable slot holds its hash map from the start (see
 * dp_xdp_flow_fill_subtables()): updating an array of maps makes the
 * kernel wait for an RCU grace period, 10 to 20 ms here, which would
 * otherwise delay every new flow with a new mask.  A mask comes and goes by
 * writing xdp_dp_masks and the order list only.
 *
 * A freed slot is not given to another mask for DP_XDP_SLOT_QUARANTINE_MS,
 * so that a program that read the old mask from the slot cannot look the
 * old masked key up among the new mask's flows. */

/* Pins subtable 'fd' of 'slot', if 'dp''s maps are pinned. */
static void
subtable_pin(const struct dp_xdp *dp, uint32_t slot, int fd)
{
    if (dp->pinned) {
        char *path = xdp_pin_subtable_path(dp->name, slot);

        unlink(path);
        if (bpf_obj_pin(fd, path)) {
            VLOG_WARN("%s: cannot pin subtable %"PRIu32" (%s): its flows "
                      "will not survive a restart", dp->name, slot,
                      ovs_strerror(errno));
        }
        free(path);
    }
}

/* Returns a file descriptor for subtable 'slot', whose map has id 'map_id'
 * in the pinned outer map, or -1.  Each subtable is pinned on its own
 * (xdp_pin_subtable_path()) because the other way back to a map from its
 * id, BPF_MAP_GET_FD_BY_ID, needs CAP_SYS_ADMIN, which an ovs-vswitchd
 * running as another user (--user) does not keep. */
static int
subtable_open(const struct dp_xdp *dp, uint32_t slot, uint32_t map_id)
{
    struct bpf_map_info info;
    uint32_t len = sizeof info;
    int fd = -1;

    if (dp->pinned) {
        char *path = xdp_pin_subtable_path(dp->name, slot);

        fd = bpf_obj_get(path);
        memset(&info, 0, sizeof info);
        if (fd >= 0 && (bpf_obj_get_info_by_fd(fd, &info, &len)
                        || info.id != map_id)) {
            close(fd);
            fd = -1;
        }
        free(path);
    }
    if (fd < 0) {
        /* Pinned by a version that did not pin subtables. */
        fd = bpf_map_get_fd_by_id(map_id);
        if (fd >= 0) {
            subtable_pin(dp, slot, fd);
        }
    }
    return fd;
}

/* Gives every subtable slot a hash map, creating those that the pinned
 * outer map does not already hold.  Returns 0 or a positive errno. */
int
dp_xdp_flow_fill_subtables(struct dp_xdp *dp)
{
    int outer_fd = bpf_map__fd(dp->skel->maps.xdp_dp_subtables);
    int error = 0;

    ovs_mutex_lock(&dp->flow_mutex);
    for (uint32_t slot = 0; slot < XDP_DP_MAX_MASKS; slot++) {
        struct dp_xdp_mask *m = &dp->masks[slot];
        uint32_t map_id;
        int fd;

        if (m->map_fd >= 0) {
            continue;
        }
        fd = (bpf_map_lookup_elem(outer_fd, &slot, &map_id) ? -1
              : subtable_open(dp, slot, map_id));
        if (fd < 0) {
            /* A new map, also where the outer map holds one that cannot be
             * reopened: the flows in it are lost, and ofproto installs
             * them again at their next miss. */
            LIBBPF_OPTS(bpf_map_create_opts, opts,
                        .map_flags = BPF_F_NO_PREALLOC);

            fd = bpf_map_create(BPF_MAP_TYPE_HASH, "xdp_dp_subtbl",
                                sizeof(struct xdp_flow_key),
                                sizeof(struct xdp_flow), XDP_DP_MAX_FLOWS,
                                &opts);
            if (fd >= 0 && bpf_map_update_elem(outer_fd, &slot, &fd,
                                               BPF_ANY)) {
                close(fd);
                fd = -1;
            } else if (fd >= 0) {
                subtable_pin(dp, slot, fd);
            }
        }
        if (fd < 0) {
            error = errno;
            VLOG_ERR("%s: cannot set up subtable %"PRIu32" (%s)",
                     dp->name, slot, ovs_strerror(error));
            break;
        }
        m->map_fd = fd;
    }
    ovs_mutex_unlock(&dp->flow_mutex);
    return error;
}

/* Finds or sets up the subtable for 'mask'.  Returns its slot or a
 * negative errno. */
int
dp_xdp_mask_ref(struct dp_xdp *dp, const struct xdp_flow_key *mask)
    OVS_REQUIRES(dp->flow_mutex)
{
    long long int now = time_msec();
    int free_slot = -1, same_slot = -1;

    for (int i = 0; i < XDP_DP_MAX_MASKS; i++) {
        struct dp_xdp_mask *m = &dp->masks[i];
        bool same = !memcmp(&m->mask, mask, sizeof *mask);

        if (m->in_use && same) {
            m->n_flows++;
            return i;
        } else if (m->in_use || m->map_fd < 0) {
            continue;
        } else if (same && same_slot < 0) {
            same_slot = i;
        } else if (free_slot < 0 && !dp_xdp_compile_slot_live(dp, i)
                   && now - m->freed >= DP_XDP_SLOT_QUARANTINE_MS) {
            free_slot = i;
        }
    }
    if (same_slot >= 0) {
        /* The slot this mask had before: no program can confuse it with
         * another mask's, and the running program may have it compiled. */
        free_slot = same_slot;
    } else if (free_slot < 0) {
        dp_xdp_compile_slots_wanted(dp);
        return -EFBIG;
    }

    struct dp_xdp_mask *m = &dp->masks[free_slot];
    uint32_t slot = free_slot;
    struct xdp_dp_mask value;
    int error;

    if (free_slot != same_slot) {
        /* The old mask's compact map: no program reads it (the slot is
         * not live), and its key layout is not this mask's. */
        dp_xdp_compile_slot_reset(dp, slot);
    }

    memset(&value, 0, sizeof value);
    value.mask = *mask;
    if (bpf_map_update_elem(bpf_map__fd(dp->skel->maps.xdp_dp_masks),
                            &slot, &value, BPF_ANY)) {
        error = errno;
        VLOG_WARN_RL(&rl, "%s: cannot install subtable mask (%s)",
                     dp->name, ovs_strerror(error));
        return -error;
    }

    m->in_use = true;
    m->n_flows = 1;
    m->mask = *mask;
    dp->mask_order[dp->n_masks++] = slot;
    dp_xdp_compile_table_changed(dp, false);
    error = publish_mask_order(dp);
    if (error) {
        VLOG_WARN_RL(&rl, "%s: cannot publish subtable order (%s)",
                     dp->name, ovs_strerror(error));
    }
    return free_slot;
}

void
dp_xdp_mask_unref(struct dp_xdp *dp, int slot_)
    OVS_REQUIRES(dp->flow_mutex)
{
    struct dp_xdp_mask *m = &dp->masks[slot_];
    uint32_t slot = slot_;

    ovs_assert(m->in_use && m->n_flows > 0);
    if (--m->n_flows) {
        return;
    }

    for (uint32_t i = 0; i < dp->n_masks; i++) {
        if (dp->mask_order[i] == slot) {
            memmove(&dp->mask_order[i], &dp->mask_order[i + 1],
                    (dp->n_masks - i - 1) * sizeof dp->mask_order[0]);
            dp->n_masks--;
            break;
        }
    }
    publish_mask_order(dp);
    /* The slot keeps its (now empty) hash map for the next mask. */
    m->in_use = false;
    m->freed = time_msec();
    dp_xdp_compile_table_shrunk(dp, slot);
}

/* Finds the subtable whose mask is 'mask', or returns -1. */
int
dp_xdp_mask_find(const struct dp_xdp *dp, const struct xdp_flow_key *mask)
    OVS_REQUIRES(dp->flow_mutex)
{
    for (int i = 0; i < XDP_DP_MAX_MASKS; i++) {
        if (dp->masks[i].in_use
            && !memcmp(&dp->masks[i].mask, mask, sizeof *mask)) {
            return i;
        }
    }
    return -1;
}

/* After a restart that reused pinned maps: takes back the subtables in the
 * order list that the earlier ovs-vswitchd published, before their flows
 * are taken back (dp_xdp_flow_restore()). */
void
dp_xdp_subtable_restore(struct dp_xdp *dp)
    OVS_REQUIRES(dp->flow_mutex)
{
    int outer_fd = bpf_map__fd(dp->skel->maps.xdp_dp_subtables);
    struct xdp_dp_mask_list list;
    uint32_t zero = 0, active = 0;

    memset(&list, 0, sizeof list);
    bpf_map_lookup_elem(bpf_map__fd(dp->skel->maps.xdp_dp_mask_active),
                        &zero, &active);
    dp->active_list = active & 1;
    bpf_map_lookup_elem(bpf_map__fd(dp->skel->maps.xdp_dp_mask_lists),
                        &dp->active_list, &list);
    for (uint32_t i = 0; i < list.n_masks && i < XDP_DP_MAX_MASKS; i++) {
        uint32_t slot = list.slots[i], map_id;
        struct xdp_dp_mask value;
        int fd;

        if (slot >= XDP_DP_MAX_MASKS || dp->masks[slot].in_use
            || bpf_map_lookup_elem(bpf_map__fd(dp->skel->maps.xdp_dp_masks),
                                   &slot, &value)
            || bpf_map_lookup_elem(outer_fd, &slot, &map_id)) {
            continue;
        }
        fd = subtable_open(dp, slot, map_id);
        if (fd < 0) {
            continue;
        }
        dp->masks[slot] = (struct dp_xdp_mask) {
            .in_use = true, .mask = value.mask, .map_fd = fd,
        };
        dp->mask_order[dp->n_masks++] = slot;
    }
}

/* After the flows were taken back: a subtable without flows goes, and the
 * order list is published again. */
void
dp_xdp_subtable_prune(struct dp_xdp *dp)
    OVS_REQUIRES(dp->flow_mutex)
{
    for (uint32_t i = 0; i < XDP_DP_MAX_MASKS; i++) {
        if (dp->masks[i].in_use && !dp->masks[i].n_flows) {
            dp->masks[i].n_flows = 1;
            dp_xdp_mask_unref(dp, i);
        }
    }
    publish_mask_order(dp);
}
