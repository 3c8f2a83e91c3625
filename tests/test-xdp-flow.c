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

/* test-xdp-flow: drives ofproto-xdp/xdp-flow.c and xdp-actions.c from the
 * command line, for tests/xdp-flow.at.
 *
 * Flows and actions are given in ODP syntax, the one of
 * "ovs-appctl dpctl/dump-flows", and parsed with odp-util's own parsers,
 * so a test reads like the flows that ofproto-dpif installs:
 *
 *   key FLOW          FLOW is a key with masks ("eth(src=X/Y),...");
 *                     prints the XDP key and mask (xdp_flow_key_format()),
 *                     or the error from xdp_flow_from_odp() and its reason.
 *   exact KEY         The same without a mask: exact match.
 *   round-trip FLOW   FLOW's key -> struct flow -> XDP key -> struct flow,
 *                     and FLOW -> XDP key and mask -> struct flow and
 *                     wildcards -> ODP key and mask -> XDP key and mask:
 *                     prints the rebuilt ODP forms and whether each trip
 *                     came back to where it started (or why FLOW has no
 *                     XDP form).
 *   random-tunnels N  "round-trip" of N flows with random tunnel metadata,
 *                     IPv4 or IPv6, exact or masked, with or without a
 *                     Geneve option: prints the first that does not come
 *                     back whole (and exits with status 1), or that all
 *                     did.
 *   compile TABLE     TABLE is "HITS:FLOW;HITS:FLOW;...", one subtable per
 *                     FLOW (its mask; mask slots numbered from 0 in
 *                     order) with the hits it had lately: prints what
 *                     xdp_compile_build() makes of them, the compiler's
 *                     choices: the subtables in visiting order with the
 *                     key each compiles to, and whether the program must
 *                     parse the transport layer before its lookups.
 *   stats-layout -    Checks that dpif-xdp/stats-show's table of the
 *                     programs' counters names every 64-bit word of
 *                     struct xdp_dp_stats once (but 'n_mask_hit' and
 *                     'mask_hits', shown by dpctl/show and
 *                     dpif-xdp/compile-show), and no name twice.
 *   actions ACTIONS   Prints xdp_actions_format() of the compiled actions,
 *                     followed by " no-gso" for a flow whose GSO segments
 *                     go to ovs-vswitchd (XDP_FLOW_F_NO_GSO), by
 *                     ": REASON" for a slow-path flow, and for
 *                     each sample action the nested actions that
 *                     xdp_actions_get_sample() finds for it.
 *
 * Each subcommand exits with status 0 once it has printed its result, and
 * 1 if its argument does not parse.  Console logging is off unless the
 * first argument is "-v". */

#include <config.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/xdp-dp.h"
#include "flow.h"
#include "odp-util.h"
#include "ofproto-xdp/dpif-xdp-private.h"
#include "ofproto-xdp/xdp-actions.h"
#include "ofproto-xdp/xdp-compile.h"
#include "ofproto-xdp/xdp-flow.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "random.h"
#include "util.h"

/* Returns the name of errno value 'error', for the errors that
 * xdp_flow_from_odp() returns. */
static const char *
error_name(int error)
{
    return (error == EINVAL ? "EINVAL"
            : error == EOPNOTSUPP ? "EOPNOTSUPP"
            : ovs_strerror(error));
}

/* Parses 's', a datapath flow in ODP syntax, into 'key' and 'mask', which
 * the caller must initialize.  Exits with status 1 if it does not parse. */
static void
parse_odp_flow(const char *s, struct ofpbuf *key, struct ofpbuf *mask)
{
    char *error;

    if (odp_flow_from_string(s, NULL, key, mask, &error)) {
        ovs_fatal(0, "%s: %s", s, error);
    }
}

/* "stats-layout -". */
static void
do_stats_layout(void)
{
    enum { N_WORDS = sizeof(struct xdp_dp_stats) / sizeof(uint64_t) };
    int named[N_WORDS];
    int n_bad = 0;

    BUILD_ASSERT_DECL(sizeof(struct xdp_dp_stats) % sizeof(uint64_t) == 0);
    memset(named, 0, sizeof named);
    /* Shown elsewhere: dpctl/show's mask hits, and the hits per subtable
     * that the compiler ranks by (dpif-xdp/compile-show). */
    named[offsetof(struct xdp_dp_stats, n_mask_hit) / sizeof(uint64_t)]++;
    for (size_t i = 0; i < XDP_DP_MAX_MASKS; i++) {
        named[offsetof(struct xdp_dp_stats, mask_hits[i])
              / sizeof(uint64_t)]++;
    }
    for (size_t i = 0; i < dp_xdp_n_prog_counters; i++) {
        const struct dp_xdp_counter *c = &dp_xdp_prog_counters[i];

        if (c->ofs % sizeof(uint64_t)
            || c->ofs >= sizeof(struct xdp_dp_stats)) {
            printf("%s: not a counter of struct xdp_dp_stats\n", c->name);
            n_bad++;
            continue;
        }
        named[c->ofs / sizeof(uint64_t)]++;
        for (size_t j = 0; j < i; j++) {
            if (!strcmp(c->name, dp_xdp_prog_counters[j].name)) {
                printf("%s: named twice\n", c->name);
                n_bad++;
            }
        }
    }
    for (size_t w = 0; w < N_WORDS; w++) {
        if (named[w] != 1) {
            printf("word %"PRIuSIZE" of struct xdp_dp_stats: %s\n", w,
                   named[w] ? "shown twice" : "never shown");
            n_bad++;
        }
    }
    printf("%"PRIuSIZE" counters of %d words: %s\n",
           dp_xdp_n_prog_counters, (int) N_WORDS,
           n_bad ? "BAD" : "every word shown once");
}

/* "compile TABLE". */
static void
do_compile(const char *arg)
{
    struct xdp_compile_mask masks[XDP_DP_MAX_CSUBS + 1];
    char *copy = xstrdup(arg), *save = NULL;
    struct ds s = DS_EMPTY_INITIALIZER;
    struct xdp_dp_cfg cfg;
    size_t n = 0;

    for (char *entry = strtok_r(copy, ";", &save); entry;
         entry = strtok_r(NULL, ";", &save)) {
        struct xdp_compile_mask *m = &masks[n];
        struct xdp_flow_key xkey;
        struct ofpbuf key, mask;
        char *colon = strchr(entry, ':');
        int error;

        if (!colon || n >= ARRAY_SIZE(masks)) {
            ovs_fatal(0, "%s: not HITS:FLOW, or too many", entry);
        }
        *colon = '\0';
        memset(m, 0, sizeof *m);
        m->slot = n;
        m->hits = strtoull(entry, NULL, 10);
        m->n_flows = 1;
        ofpbuf_init(&key, 0);
        ofpbuf_init(&mask, 0);
        parse_odp_flow(colon + 1, &key, &mask);
        error = xdp_flow_from_odp(key.data, key.size, mask.data, mask.size,
                                  &xkey, &m->mask, NULL, NULL);
        if (error) {
            ovs_fatal(0, "%s: %s", colon + 1, error_name(error));
        }
        ofpbuf_uninit(&key);
        ofpbuf_uninit(&mask);
        n++;
    }
    free(copy);

    xdp_compile_build(masks, n, 0, &cfg);
    printf("parse transport layer first: %s\n", cfg.parse_l4 ? "yes" : "no");
    for (uint32_t i = 0; i < cfg.n_csubs; i++) {
        const struct xdp_dp_csub *cs = &cfg.csubs[i];

        ds_clear(&s);
        xdp_compile_format_csub(&s, cs);
        printf("%"PRIu32": slot %"PRIu32" (%"PRIu64" hits), %s\n", i,
               cs->slot, masks[cs->slot].hits, ds_cstr(&s));
    }
    ds_destroy(&s);
}

/* Prints the XDP key and mask of 'key' and 'mask', or the reason why it
 * has none.  Also checks what xdp_flow_from_odp() promises about them. */
static void
print_xdp_flow(const struct ofpbuf *key, const struct ofpbuf *mask)
{
    struct xdp_flow_key xkey, xmask;
    struct ds s = DS_EMPTY_INITIALIZER;
    int error;

    error = xdp_flow_from_odp(key->data, key->size,
                              mask ? mask->data : NULL, mask ? mask->size : 0,
                              &xkey, &xmask, NULL, &s);
    if (error) {
        printf("%s: %s\n", error_name(error), ds_cstr(&s));
    } else {
        const uint64_t *k = (const uint64_t *) &xkey;
        const uint64_t *m = (const uint64_t *) &xmask;

        for (size_t i = 0; i < XDP_FLOW_KEY_WORDS; i++) {
            if (k[i] & ~m[i]) {
                printf("BUG: key bits outside the mask in word %"PRIuSIZE
                       "\n", i);
            }
        }
        if (xkey.pad1 || xkey.pad2 || xmask.pad1 || xmask.pad2) {
            printf("BUG: nonzero padding\n");
        }
        xdp_flow_key_format(&s, &xkey, &xmask);
        printf("%s\n", ds_cstr(&s));
    }
    ds_destroy(&s);
}

/* "key FLOW" ('exact' false) and "exact KEY" ('exact' true). */
static void
do_key(const char *arg, bool exact)
{
    struct ofpbuf key, mask;

    ofpbuf_init(&key, 0);
    ofpbuf_init(&mask, 0);
    parse_odp_flow(arg, &key, &mask);
    print_xdp_flow(&key, exact ? NULL : &mask);
    ofpbuf_uninit(&key);
    ofpbuf_uninit(&mask);
}

/* Initializes 'parms' for serializing a flow of the XDP datapath. */
static void
init_key_parms(struct odp_flow_key_parms *parms, const struct flow *flow,
               const struct flow *mask, const struct ofpbuf *key_buf)
{
    memset(parms, 0, sizeof *parms);
    parms->flow = flow;
    parms->mask = mask;
    parms->support.recirc = true;
    parms->support.max_vlan_headers = 2;
    parms->key_buf = key_buf;
}

/* The conversions of "round-trip FLOW": appends to 'out' what the
 * command prints, and returns true if both trips came back to where they
 * started. */
static bool
round_trip(const char *arg, struct ds *out)
{
    struct xdp_flow_key xkey, xmask, xkey2, xmask2;
    struct ofpbuf key, mask, key2, mask2;
    struct odp_flow_key_parms parms;
    struct ds s = DS_EMPTY_INITIALIZER;
    struct flow flow, flow2;
    struct flow_wildcards wc;
    bool same;
    int error;

    ofpbuf_init(&key, 0);
    ofpbuf_init(&mask, 0);
    ofpbuf_init(&key2, 0);
    ofpbuf_init(&mask2, 0);
    parse_odp_flow(arg, &key, &mask);

    /* struct flow -> XDP key -> struct flow. */
    if (odp_flow_key_to_flow(key.data, key.size, &flow, NULL)
        != ODP_FIT_PERFECT) {
        ovs_fatal(0, "%s: not a perfect flow key", arg);
    }
    xdp_flow_key_from_flow(&xkey, &flow);
    xdp_flow_key_to_flow(&xkey, &flow2);
    init_key_parms(&parms, &flow2, NULL, NULL);
    odp_flow_key_from_flow(&parms, &key2);
    odp_flow_key_format(key2.data, key2.size, &s);
    same = flow_equal(&flow, &flow2);
    ds_put_format(out, "flow: %s\n", ds_cstr(&s));
    ds_put_format(out, "flow round trip: %s\n", same ? "same" : "differs");

    /* Megaflow -> XDP key and mask -> ODP key and mask -> XDP. */
    ds_clear(&s);
    error = xdp_flow_from_odp(key.data, key.size, mask.data, mask.size,
                              &xkey, &xmask, NULL, &s);
    if (error) {
        ds_put_format(out, "megaflow: %s: %s\n", error_name(error),
                      ds_cstr(&s));
        same = false;
        goto out;
    }
    xdp_flow_key_to_flow(&xkey, &flow2);
    xdp_flow_mask_to_wc(&xmask, &wc);
    ofpbuf_clear(&key2);
    init_key_parms(&parms, &flow2, NULL, NULL);
    odp_flow_key_from_flow(&parms, &key2);
    init_key_parms(&parms, &flow2, &wc.masks, &key2);
    odp_flow_key_from_mask(&parms, &mask2);
    ds_clear(&s);
    odp_flow_format(key2.data, key2.size, mask2.data, mask2.size, NULL, &s,
                    false);
    ds_put_format(out, "megaflow: %s\n", ds_cstr(&s));
    error = xdp_flow_from_odp(key2.data, key2.size, mask2.data, mask2.size,
                              &xkey2, &xmask2, NULL, NULL);
    if (!error && (memcmp(&xkey, &xkey2, sizeof xkey)
                   || memcmp(&xmask, &xmask2, sizeof xmask))) {
        same = false;
    }
    ds_put_format(out, "megaflow round trip: %s\n",
                  (error ? error_name(error)
                   : (!memcmp(&xkey, &xkey2, sizeof xkey)
                      && !memcmp(&xmask, &xmask2, sizeof xmask)) ? "same"
                   : "differs"));
    same = same && !error;

out:
    ds_destroy(&s);
    ofpbuf_uninit(&key);
    ofpbuf_uninit(&mask);
    ofpbuf_uninit(&key2);
    ofpbuf_uninit(&mask2);
    return same;
}

/* "round-trip FLOW". */
static void
do_round_trip(const char *arg)
{
    struct ds out = DS_EMPTY_INITIALIZER;

    round_trip(arg, &out);
    fputs(ds_cstr(&out), stdout);
    ds_destroy(&out);
}

/* Appends to 's' a random IPv4 address, with a random prefix as its mask
 * if 'masked'. */
static void
put_random_ip4(struct ds *s, bool masked)
{
    ds_put_format(s, IP_FMT, IP_ARGS(htonl(random_uint32())));
    if (masked) {
        ds_put_format(s, "/"IP_FMT, IP_ARGS(be32_prefix_mask(
                                               random_range(33))));
    }
}

/* Appends to 's' a random IPv6 address, with a random prefix as its mask
 * if 'masked'. */
static void
put_random_ip6(struct ds *s, bool masked)
{
    struct in6_addr a;

    for (int i = 0; i < 16; i++) {
        a.s6_addr[i] = random_uint8();
    }
    ipv6_format_addr(&a, s);
    if (masked) {
        struct in6_addr m = ipv6_create_mask(random_range(129));

        ds_put_char(s, '/');
        ipv6_format_addr(&m, s);
    }
}

/* "random-tunnels N": N flows with random tunnel metadata, over IPv4 or
 * IPv6, exact or under random masks, with up to three Geneve options,
 * each through "round-trip".  Prints the first that does not come back
 * whole with what the round trip printed, or "N flows: all same". */
static void
do_random_tunnels(const char *arg)
{
    static const char *const flag_sets[] = {
        "", ",flags(df)", ",flags(csum|key)", ",flags(df|csum|key)",
        ",flags(key)", ",flags(oam|key)",
    };
    int n = atoi(arg);

    random_set_seed(0x17);
    for (int i = 0; i < n; i++) {
        struct ds flow = DS_EMPTY_INITIALIZER;
        struct ds out = DS_EMPTY_INITIALIZER;
        bool ip6 = random_range(2);
        bool masked = random_range(2);

        ds_put_format(&flow, "tunnel(tun_id=%#"PRIx32, random_uint32());
        ds_put_cstr(&flow, ip6 ? ",ipv6_src=" : ",src=");
        ip6 ? put_random_ip6(&flow, masked) : put_random_ip4(&flow, masked);
        ds_put_cstr(&flow, ip6 ? ",ipv6_dst=" : ",dst=");
        ip6 ? put_random_ip6(&flow, false) : put_random_ip4(&flow, false);
        ds_put_format(&flow, ",tos=%#"PRIx8",ttl=%"PRIu8,
                      random_uint8(), random_uint8());
        if (masked) {
            ds_put_cstr(&flow, "/0");
        }
        ds_put_format(&flow, ",tp_src=%"PRIu16",tp_dst=%"PRIu16,
                      random_uint16(), random_uint16());
        /* Up to 3 options of 4 or 8 bytes of data, at most
         * XDP_TNL_OPTS_LEN bytes in all, headers included. */
        int n_opts = random_range(4);
        int opts_len = 0;

        for (int j = 0; j < n_opts; j++) {
            int len = 4 * (1 + random_range(2));

            if (opts_len + 4 + len > XDP_TNL_OPTS_LEN) {
                break;
            }
            ds_put_format(&flow, "%s{class=%#"PRIx16",type=%#"PRIx8","
                          "len=%d,0x%08"PRIx32,
                          j ? "" : ",geneve(", random_uint16(),
                          random_uint8() & 0x7f, len, random_uint32());
            if (len == 8) {
                ds_put_format(&flow, "%08"PRIx32, random_uint32());
            }
            ds_put_char(&flow, '}');
            opts_len += 4 + len;
        }
        if (opts_len) {
            ds_put_char(&flow, ')');
        }
        ds_put_cstr(&flow, flag_sets[random_range(ARRAY_SIZE(flag_sets))]);
        ds_put_cstr(&flow, "),in_port(1),eth(src=00:00:00:00:00:01,"
                    "dst=00:00:00:00:00:02),eth_type(0x0800),"
                    "ipv4(src=10.0.0.1,dst=10.0.0.2,proto=1,tos=0,ttl=64,"
                    "frag=no),icmp(type=8,code=0)");
        if (!round_trip(ds_cstr(&flow), &out)) {
            printf("%s\n%s", ds_cstr(&flow), ds_cstr(&out));
            exit(1);
        }
        ds_destroy(&flow);
        ds_destroy(&out);
    }
    printf("%d flows: all same\n", n);
}

/* "actions ACTIONS".  Also checks that xdp_actions_compile() keeps its
 * promises about 'slot', the unused actions and the reason. */
static void
do_actions(const char *arg)
{
    struct ds why = DS_EMPTY_INITIALIZER;
    struct ds s = DS_EMPTY_INITIALIZER;
    struct xdp_flow xflow;
    struct ofpbuf actions;
    int error;

    ofpbuf_init(&actions, 0);
    error = odp_actions_from_string(arg, NULL, &actions);
    if (error) {
        ovs_fatal(0, "%s: %s", arg, ovs_strerror(error));
    }

    /* xdp_actions_compile() must leave 'slot' alone. */
    memset(&xflow, 0xa5, sizeof xflow);
    xdp_actions_compile(actions.data, actions.size, &xflow, &why);
    if (xflow.slot != 0xa5a5a5a5) {
        printf("BUG: slot changed\n");
    }
    for (size_t i = xflow.n_actions; i < XDP_FLOW_MAX_ACTIONS; i++) {
        if (!is_all_zeros(&xflow.actions[i], sizeof xflow.actions[i])) {
            printf("BUG: unused action %"PRIuSIZE" is not zeroed\n", i);
        }
    }

    xdp_actions_format(&s, &xflow);
    if (xflow.flags & XDP_FLOW_F_NO_GSO) {
        ds_put_cstr(&s, " no-gso");
    }
    if (xflow.flags & XDP_FLOW_F_SLOW_PATH) {
        ds_put_format(&s, ": %s", ds_cstr(&why));
    } else if (why.length) {
        printf("BUG: reason for an XDP flow: %s\n", ds_cstr(&why));
    }
    printf("%s\n", ds_cstr(&s));

    /* What ovs-vswitchd runs on the copies each sample action draws. */
    for (size_t i = 0; i < xflow.n_actions && i < XDP_FLOW_MAX_ACTIONS;
         i++) {
        const struct xdp_dp_action *xa = &xflow.actions[i];
        struct ofpbuf nested;

        if (xa->type != XDP_DP_ACTION_SAMPLE) {
            continue;
        }
        ofpbuf_init(&nested, 0);
        ds_clear(&s);
        if (xdp_actions_get_sample(actions.data, actions.size,
                                   xa->sample.index, &nested)) {
            format_odp_actions(&s, nested.data, nested.size, NULL);
        } else {
            ds_put_cstr(&s, "BUG: not found");
        }
        printf("  sample #%"PRIu32": %s\n", xa->sample.index, ds_cstr(&s));
        ofpbuf_uninit(&nested);
    }

    ds_destroy(&s);
    ds_destroy(&why);
    ofpbuf_uninit(&actions);
}

/* Prints how to run this program. */
static void
usage(void)
{
    printf("usage: %s [-v] COMMAND ARG\n"
           "  key FLOW         XDP key and mask of an ODP key with masks\n"
           "  exact KEY        XDP key and mask of an exact-match ODP key\n"
           "  round-trip FLOW  ODP -> XDP -> ODP conversions\n"
           "  random-tunnels N round-trip of N random tunnel flows\n"
           "  actions ACTIONS  XDP actions of ODP actions\n"
           "  compile TABLE    the compiler's choices for HITS:FLOW;...\n"
           "  stats-layout -   stats-show names every counter once\n",
           program_name);
}

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    if (argc > 1 && !strcmp(argv[1], "-v")) {
        argc--;
        argv++;
    } else {
        vlog_set_levels(NULL, VLF_CONSOLE, VLL_OFF);
    }

    if (argc != 3) {
        usage();
        return 1;
    }
    if (!strcmp(argv[1], "key")) {
        do_key(argv[2], false);
    } else if (!strcmp(argv[1], "exact")) {
        do_key(argv[2], true);
    } else if (!strcmp(argv[1], "round-trip")) {
        do_round_trip(argv[2]);
    } else if (!strcmp(argv[1], "random-tunnels")) {
        do_random_tunnels(argv[2]);
    } else if (!strcmp(argv[1], "actions")) {
        do_actions(argv[2]);
    } else if (!strcmp(argv[1], "compile")) {
        do_compile(argv[2]);
    } else if (!strcmp(argv[1], "stats-layout")) {
        do_stats_layout();
    } else {
        usage();
        return 1;
    }
    return 0;
}
