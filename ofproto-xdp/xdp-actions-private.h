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

#ifndef XDP_ACTIONS_PRIVATE_H
#define XDP_ACTIONS_PRIVATE_H 1

/* What the parts of the ODP-to-XDP action compiler share (xdp-actions.c,
 * the compiler; xdp-actions-set.c, set actions). */

#include <stdbool.h>
#include <stddef.h>

#include "odp-netlink.h"

struct ds;
struct nlattr;
struct xdp_dp_action;

/* The part of an OVS_ACTION_ATTR_SET or _SET_MASKED action that matters
 * here. */
struct xdp_set_attr {
    enum ovs_key_attr type;     /* OVS_KEY_ATTR_*. */
    const void *key;            /* The values to write. */
    const void *mask;           /* Their masks, or NULL for a plain set. */
    size_t size;                /* Size of '*key' (and '*mask'). */
};

bool xdp_set_attr_parse(const struct nlattr *, bool masked,
                        struct xdp_set_attr *);
bool xdp_set_compile(const struct xdp_set_attr *, struct xdp_dp_action *,
                     struct ds *why);
size_t xdp_set_ipv6_compile(const struct xdp_set_attr *,
                            struct xdp_dp_action *, size_t room,
                            struct ds *why);

#endif /* xdp-actions-private.h */
