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

#ifndef PIN_H
#define PIN_H 1

/* Pinning a datapath's maps and links in bpffs (see pin.c). */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct bpf_object;

const char *xdp_pin_root(void);
char *xdp_pin_dir(const char *dp_name);
char *xdp_pin_link_path(const char *dp_name, int ifindex);
char *xdp_pin_subtable_path(const char *dp_name, uint32_t slot);
int xdp_pin_hand_over(uid_t, gid_t);
bool xdp_pin_prepare(const char *dp_name, struct bpf_object *, bool *reused);
int xdp_pin_write_layout(int layout_fd);
void xdp_pin_remove(const char *dp_name);
int xdp_pin_list_links(const char *dp_name, int **ifindexes);

#endif /* pin.h */
