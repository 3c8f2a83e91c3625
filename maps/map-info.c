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

/* Describing BPF maps.  bpf_obj_get_info_by_fd() gives a map's name, type
 * and sizes; the kernel reports the memory it charges for the map only in
 * /proc/self/fdinfo ("memlock:"), which is read from there.  How many
 * entries are in use is the caller's to say: for hash maps only counting
 * would tell, and the datapath knows its own counts. */

#include <config.h>

#include "maps/map-info.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "openvswitch/dynamic-string.h"
#include "util.h"

/* Returns the bytes the kernel charges for map 'fd', or 0 if unknown. */
uint64_t
xdp_map_memlock(int fd)
{
    char path[64], line[128];
    uint64_t memlock = 0;
    FILE *f;

    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
    f = fopen(path, "r");
    if (!f) {
        return 0;
    }
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "memlock: %"SCNu64, &memlock) == 1) {
            break;
        }
    }
    fclose(f);
    return memlock;
}

/* Appends one line about map 'fd', called 'name' (the kernel keeps only 15
 * characters of a map's name): type, entries in use ('n_used',
 * or unknown if negative) and maximum, memory, and 'access', how
 * ovs-vswitchd reads and writes it. */
void
xdp_map_format(struct ds *s, const char *name, int fd, int64_t n_used,
               const char *access)
{
    struct bpf_map_info info;
    uint32_t len = sizeof info;

    memset(&info, 0, sizeof info);
    if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
        ds_put_format(s, "  (map fd %d: %s)\n", fd, ovs_strerror(errno));
        return;
    }
    ds_put_format(s, "  %s: %s", name,
                  libbpf_bpf_map_type_str(info.type));
    if (n_used >= 0) {
        ds_put_format(s, ", %"PRId64"/%"PRIu32" entries", n_used,
                      info.max_entries);
    } else {
        ds_put_format(s, ", %"PRIu32" entries max", info.max_entries);
    }
    ds_put_format(s, ", key %"PRIu32" B, value %"PRIu32" B, %"PRIu64" kB, "
                  "%s\n", info.key_size, info.value_size,
                  xdp_map_memlock(fd) / 1024, access);
}
