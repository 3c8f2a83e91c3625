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

#ifndef DPIF_XDP_H
#define DPIF_XDP_H 1

/* The "xdp" datapath provider: a struct dpif_class whose datapaths switch
 * packets inside one XDP program shared by all of their ports.
 *
 * ovs-vswitchd-xdp registers it with dp_register_provider() before main()
 * runs (see ovs-vswitchd-xdp.c), after which ofproto-dpif accepts
 * datapath_type=xdp on a bridge and opens one backer datapath, "ovs-xdp",
 * for all such bridges. */

#include <stdbool.h>
#include <stdint.h>

struct netdev;
struct netdev_stats;

extern const struct dpif_class dpif_xdp_class;

bool dpif_xdp_set_policing(struct netdev *, uint32_t kbits_rate,
                           uint32_t kbits_burst, uint32_t kpkts_rate,
                           uint32_t kpkts_burst, int *errorp);
char *dpif_xdp_port_get_error(const struct netdev *);
char *dpif_xdp_port_take_refusal(const char *name);
void dpif_xdp_add_peer_stats(const struct netdev *, struct netdev_stats *);

#endif /* dpif-xdp.h */
