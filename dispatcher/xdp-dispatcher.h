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

#ifndef XDP_DISPATCHER_H
#define XDP_DISPATCHER_H 1

/* What the kernel's XDP dispatcher holds (see xdp-dispatcher.c). */

struct ds;
struct sset;
struct xdp_attachment;

/* BPF_DISPATCHER_MAX in the kernel. */
#define XDP_DISPATCHER_ENTRIES 48

void xdp_dispatcher_format_kernel(struct ds *);
void xdp_dispatcher_collect_link_progs(struct sset *ids);
void xdp_dispatcher_collect_netdev_progs(struct sset *ids);
void xdp_dispatcher_format_prog(struct ds *, const char *label, int prog_fd);
void xdp_dispatcher_format_attachment(struct ds *,
                                      const struct xdp_attachment *);

#endif /* xdp-dispatcher.h */
