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

/* The Linux bridge's stateful firewall, for the benchmarks that compare
 * OVS's ct() with the kernel's connection tracking ('forward
 * --pipeline=conntrack', 'tcp --pipeline=conntrack').  nftables is driven
 * through its command ("nft -f", Debian's nftables package): its library
 * would take the same ruleset text, and the command's messages are what
 * an operator would see.  What the kernel lacks (bridge-family conntrack,
 * flowtables here) is found by trying, and said in the note. */

#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-common.h"
#include "openvswitch/dynamic-string.h"
#include "util.h"

/* The mark that the ruleset puts on frames from the opening port, when it
 * has to sit in the ip family (see bench_nft_firewall()). */
#define NFT_MARK "0x6f786267"

/* Loads the nftables ruleset 'ruleset' ("nft -f"), all or nothing.
 * Returns nft's exit status; puts what it printed, first line only, into
 * 'error' on failure. */
static int
nft_load(const char *ruleset, struct ds *error)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    int status;

    status = bench_run(&output, "nft -f - <<'EOF'\n%sEOF", ruleset);
    if (status) {
        /* nft shows the file's line, then "Error: ..." and the rule. */
        static const char prefix[] = "Could not process rule: ";
        const char *e = strstr(ds_cstr(&output), "Error: ");

        e = e ? e + 7 : ds_cstr(&output);
        if (!strncmp(e, prefix, strlen(prefix))) {
            e += strlen(prefix);
        }
        ds_clear(error);
        ds_put_cstr(error, e);
        ds_chomp(error, '\n');
        char *nl = strchr(ds_cstr(error), '\n');
        if (nl) {
            ds_truncate(error, nl - ds_cstr(error));
        }
        if (!error->length) {
            ds_put_format(error, "nft exited with status %d", status);
        }
    }
    ds_destroy(&output);
    return status;
}

/* Returns the value of net.bridge.bridge-nf-call-iptables, 0 if it cannot
 * be read. */
int
bench_bridge_nf_call_iptables(void)
{
    FILE *stream = fopen("/proc/sys/net/bridge/bridge-nf-call-iptables",
                         "re");
    int value = 0;

    if (stream) {
        if (fscanf(stream, "%d", &value) != 1) {
            value = 0;
        }
        fclose(stream);
    }
    return value;
}

/* Gives Linux bridge 'bridge', with ports 'opener' and 'other', a
 * stateful firewall in nftables tables named 'table': connections opened
 * from 'opener' pass both ways, the ports' other frames are dropped.  Says
 * in '*note' how it did (the caller frees it).  '*n_setups' counts the
 * calls for one 'table', to vary the conntrack zone.
 *
 * The bridge family's own connection tracking (nf_conntrack_bridge) is
 * tried first: a bridge-family table whose forward chain accepts the
 * established connections and the new ones from 'opener', and drops its
 * ports' other frames.  Where the kernel has no connection tracking for
 * the bridge family, nft cannot add a "ct state" rule there ("Protocol
 * error").  Then, if br_netfilter hands bridged IPv4 frames to the ip
 * family's hooks (net.bridge.bridge-nf-call-iptables=1, which the
 * benchmarks never change) and tracks their connections, the same rules
 * go into the ip family's forward hook, where those frames arrive with the
 * bridge as their device; a bridge-family chain marks the frames from
 * 'opener' first (NFT_MARK), for the ip family cannot tell the ports
 * apart.  There, the bridge's connections are tracked in a conntrack zone
 * of their own, a new one each time, so that each measurement starts
 * afresh, as OVS's does with a new bridge, although the kernel keeps
 * connections after the tables are gone, and apart from the root
 * namespace's other connections.  Named counters count the frames of each
 * verdict (bench_nft_counter()).
 *
 * Last, a flowtable on the two ports is tried: where nft can create one,
 * established connections are offloaded to it ("flow add").
 *
 * Returns 0 if successful, otherwise a positive errno value after
 * explaining in 'why'. */
int
bench_nft_firewall(const char *table, const char *bridge, const char *opener,
                   const char *other, unsigned int *n_setups, char **note,
                   struct ds *why)
{
    const char *t = table;
    const char *g = opener;
    const char *s = other;
    struct ds ruleset = DS_EMPTY_INITIALIZER;
    struct ds bridge_error = DS_EMPTY_INITIALIZER;
    struct ds error = DS_EMPTY_INITIALIZER;
    struct ds how = DS_EMPTY_INITIALIZER;
    char *nft = bench_find_program("nft");
    int retval = 0;

    *note = NULL;
    if (!nft) {
        ds_put_cstr(why, "nft is not installed (Debian package nftables)");
        return EOPNOTSUPP;
    }
    free(nft);

    ds_put_format(&ruleset,
                  "table bridge %s {\n"
                  "  counter est { }\n"
                  "  counter opened { }\n"
                  "  counter dropped { }\n"
                  "  chain forward {\n"
                  "    type filter hook forward priority 0; policy accept;\n"
                  "    iifname != { \"%s\", \"%s\" } accept\n"
                  "    ct state established counter name \"est\" accept\n"
                  "    iifname \"%s\" ct state new counter name \"opened\" "
                  "accept\n"
                  "    counter name \"dropped\" drop\n"
                  "  }\n"
                  "}\n", t, g, s, g);
    if (!nft_load(ds_cstr(&ruleset), &bridge_error)) {
        ds_put_format(&how, "nftables, bridge family, forward hook: ct "
                      "state established, or new from\n%s, accepted; the "
                      "ports' other frames dropped\n", g);
        /* nftables has no flowtable for the bridge family. */
        ds_put_cstr(&how, "no flowtable: nftables has none for the bridge "
                    "family");
        goto out;
    }
    if (bench_bridge_nf_call_iptables() != 1) {
        ds_put_format(why, "no connection tracking for bridged frames: the "
                      "bridge family has none here (nft: %s) and "
                      "net.bridge.bridge-nf-call-iptables is not 1",
                      ds_cstr(&bridge_error));
        retval = EOPNOTSUPP;
        goto out;
    }

    /* A zone of 1 to 65535, a different one each time. */
    int zone = 1 + ((unsigned int) getpid() * 64 + (*n_setups)++) % 65535;

    ds_clear(&ruleset);
    ds_put_format(&ruleset,
                  "table bridge %s {\n"
                  "  chain forward {\n"
                  "    type filter hook forward priority -200; "
                  "policy accept;\n"
                  "    iifname \"%s\" meta mark set "NFT_MARK"\n"
                  "  }\n"
                  "}\n"
                  "table ip %s {\n"
                  "  counter est { }\n"
                  "  counter opened { }\n"
                  "  counter dropped { }\n"
                  "  chain prerouting {\n"
                  "    type filter hook prerouting priority raw; "
                  "policy accept;\n"
                  "    iifname \"%s\" ct zone set %d\n"
                  "  }\n"
                  "  chain forward {\n"
                  "    type filter hook forward priority 0; policy accept;\n"
                  "    iifname != \"%s\" accept\n"
                  "    ct state established counter name \"est\" accept\n"
                  "    meta mark "NFT_MARK" ct state new "
                  "counter name \"opened\" accept\n"
                  "    counter name \"dropped\" drop\n"
                  "  }\n"
                  "}\n", t, g, t, bridge, zone, bridge);
    if (nft_load(ds_cstr(&ruleset), &error)) {
        ds_put_format(why, "nftables ruleset: %s (and in the bridge family: "
                      "%s)", ds_cstr(&error), ds_cstr(&bridge_error));
        retval = EIO;
        goto out;
    }
    ds_put_format(&how, "nftables, ip family, forward hook, which bridged "
                  "IPv4 frames reach through\nbr_netfilter "
                  "(bridge-nf-call-iptables=1), for the bridge family has "
                  "no\nconntrack here (nft: %s): ct state established, or "
                  "new from %s,\naccepted; the bridge's other frames "
                  "dropped; its connections in a\nconntrack zone of their "
                  "own, new for each run\n",
                  ds_cstr(&bridge_error), g);

    ds_clear(&ruleset);
    ds_put_format(&ruleset,
                  "table ip %s {\n"
                  "  flowtable ft {\n"
                  "    hook ingress priority 0;\n"
                  "    devices = { \"%s\", \"%s\" };\n"
                  "  }\n"
                  "}\n"
                  "insert rule ip %s forward ct state established "
                  "flow add @ft\n", t, g, s, t);
    if (nft_load(ds_cstr(&ruleset), &error)) {
        ds_put_format(&how, "no flowtable: nft cannot create one here "
                      "(%s)", ds_cstr(&error));
    } else {
        ds_put_cstr(&how, "flowtable on both ports: established "
                    "connections offloaded to it (flow add)");
    }

out:
    if (!retval) {
        *note = ds_steal_cstr(&how);
    }
    ds_destroy(&how);
    ds_destroy(&error);
    ds_destroy(&bridge_error);
    ds_destroy(&ruleset);
    return retval;
}

/* Removes the nftables tables 'table' of bench_nft_firewall(), if there
 * are any. */
void
bench_nft_teardown(const char *table)
{
    bench_run(NULL, "nft delete table bridge %s 2>/dev/null; "
              "nft delete table ip %s 2>/dev/null; true", table, table);
}

/* Returns the packets of named counter 'name' ("est", "opened" or
 * "dropped") of bench_nft_firewall()'s tables 'table', -1 if it cannot be
 * read. */
long long
bench_nft_counter(const char *table, const char *name)
{
    static const char *const families[] = { "bridge", "ip" };
    long long packets = -1;

    for (size_t i = 0; i < ARRAY_SIZE(families) && packets < 0; i++) {
        struct ds output = DS_EMPTY_INITIALIZER;

        if (!bench_run(&output, "nft list counter %s %s %s 2>/dev/null",
                       families[i], table, name)) {
            const char *p = strstr(ds_cstr(&output), "packets ");

            if (!p || sscanf(p, "packets %lld", &packets) != 1) {
                packets = -1;
            }
        }
        ds_destroy(&output);
    }
    return packets;
}
