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

#ifndef XDP_ATTACH_H
#define XDP_ATTACH_H 1

/* Attaching the datapath program to a port (see xdp-attach.c). */

#include <stdbool.h>
#include <stdint.h>

#include "openvswitch/types.h"

struct ds;

enum xdp_attach_mode {
    XDP_ATTACH_AUTO,            /* Chosen per device by xdp_auto_mode()
                                 * (xdp-auto-mode.c): never handed to
                                 * xdp_attach_port() itself. */
    XDP_ATTACH_BEST_EFFORT,     /* Native if the driver has it, else
                                 * generic. */
    XDP_ATTACH_NATIVE,          /* Native (driver) mode only. */
    XDP_ATTACH_GENERIC,         /* Generic (skb) mode only. */
    XDP_ATTACH_TC,              /* No XDP program: the TC pipeline
                                 * (datapath/tc-dp.bpf.c) at TC ingress. */
};

/* One port's attachment. */
struct xdp_attachment {
    int ifindex;                /* Device. */
    int link_fd;                /* BPF link of the XDP program, or -1. */
    bool native;                /* Attached in native (driver) mode? */
    bool tc_only;               /* XDP_ATTACH_TC: no XDP program, the TC
                                 * pipeline in its place. */
    int native_error;           /* Best-effort: why native mode was refused
                                 * (positive errno), or 0. */
    bool taken_over;            /* Link pinned by an earlier run, reused? */
    bool tc_attached;           /* TC ingress program attached? */
    bool tc_hook_created;       /* Did we create the clsact qdisc? */
    uint32_t tc_handle;         /* TC filter handle. */
    uint32_t tc_priority;       /* TC filter priority. */
};

const char *xdp_attach_mode_to_string(enum xdp_attach_mode);
const char *xdp_attachment_mode(const struct xdp_attachment *);
int xdp_attach_port(const char *name, int ifindex, int xdp_prog_fd,
                    int tc_prog_fd, enum xdp_attach_mode,
                    const char *pin_path, struct xdp_attachment *);
int xdp_attach_swap(const char *name, struct xdp_attachment *,
                    int xdp_prog_fd, int tc_prog_fd);
void xdp_detach_port(const char *name, const char *pin_path,
                     struct xdp_attachment *);

/* xdp-auto-mode.c */
enum xdp_attach_mode xdp_auto_mode(const char *name, int ifindex,
                                   struct ds *why);

/* A veth's peer in another network namespace (dispatcher/xdp-auto-mode.c). */
struct xdp_veth_peer {
    int netnsid;                /* Its namespace's id, as seen from ours. */
    int ifindex;                /* Its ifindex there. */
    struct eth_addr mac;        /* Its Ethernet address. */
    int mtu;                    /* Its MTU. */
};
int xdp_veth_peer_get(int ifindex, struct xdp_veth_peer *, struct ds *why);

#endif /* xdp-attach.h */
