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

#ifndef XDP_COMPILE_H
#define XDP_COMPILE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "datapath/xdp-dp.h"

struct ds;

/* A subtable of the table to compile. */
struct xdp_compile_mask {
    uint32_t slot;              /* Mask slot. */
    struct xdp_flow_key mask;   /* The mask. */
    uint64_t hits;              /* Packets it matched lately (ranking). */
    uint32_t n_flows;           /* Flows that use it (ranking ties). */
};

void xdp_compile_build(const struct xdp_compile_mask *, size_t n_masks,
                       uint32_t action_bits, struct xdp_dp_cfg *);
uint32_t xdp_compile_ckey_words(uint32_t n_words);
void xdp_compile_csub(uint32_t slot, const struct xdp_flow_key *mask,
                      struct xdp_dp_csub *);
bool xdp_compile_csub_equal(const struct xdp_dp_csub *,
                            const struct xdp_dp_csub *);
void xdp_compile_ckey(const struct xdp_dp_csub *,
                      const struct xdp_flow_key *masked_key,
                      uint32_t ckey[XDP_DP_CKEY_MAX_WORDS]);
bool xdp_compile_mask_needs_l4(const struct xdp_flow_key *mask);
void xdp_compile_format_csub(struct ds *, const struct xdp_dp_csub *);
void xdp_compile_format_actions(struct ds *, uint32_t action_bits);

#endif /* xdp-compile.h */
