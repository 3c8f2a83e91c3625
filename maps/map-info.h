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

#ifndef MAP_INFO_H
#define MAP_INFO_H 1

/* Describing a BPF map for 'ovs-appctl dpif-xdp/maps-show'. */

#include <stdint.h>

struct ds;

void xdp_map_format(struct ds *, const char *name, int fd, int64_t n_used,
                    const char *access);
uint64_t xdp_map_memlock(int fd);

#endif /* map-info.h */
