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

#ifndef INTERNAL_PORT_H
#define INTERNAL_PORT_H 1

/* Internal ports as veth pairs (see internal-port.c). */

#define INTERNAL_PORT_PEER_NAME_LEN 16

void internal_port_peer_name(const char *name,
                             char peer[INTERNAL_PORT_PEER_NAME_LEN]);
int internal_port_create(const char *name, const char *peer);
int internal_port_delete(const char *name);

#endif /* internal-port.h */
