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

/* ovs-xdp-bench tcp: TCP bulk throughput between two containers.
 *
 * What containers send is TCP, which the kernel moves between local
 * interfaces as GSO segments of up to 64 kB, one forwarding decision each;
 * the 'forward' mode's 64-byte frames say nothing about it.  This mode
 * runs iperf3 (Debian's) between two network namespaces, a client's and a
 * server's, each joined to the root namespace by a veth pair whose root
 * ends the switch under test takes as ports, and measures the server's
 * received throughput:
 *
 *     [client ns] veth0 ==== oxbcPID  (switch)  oxbvPID ==== veth0 [server ns]
 *
 * The floor is a veth pair joining the two namespaces directly, the best
 * the kernel can do with no switch at all.  Each run measures every
 * selected switch, for every MTU and number of streams, in turn (so that
 * the slow drifts of a shared machine spread over all of them); the
 * result is the median of the runs, with the spread, and its ratio to the
 * floor and to the Linux bridge.  All MTUs are set on all four veth ends
 * (and the floor's pair) before each measurement.  iperf3's first second
 * is left out (-O 1): flow setup and slow start.
 *
 * The VXLAN pipeline puts the server behind a tunnel, as a container on
 * another host: the server's namespace has a VXLAN device (VNI 0, port
 * 4789, no UDP checksum, 10.79.0.2) whose underlay is its veth (10.77.0.2),
 * and the client (10.79.0.1 on the same veth as before, its MTU 50 bytes
 * less for the outer headers) reaches it through an overlay switch that
 * encapsulates towards 10.77.0.100 in the root namespace:
 *
 *   - linux-vxlan: the kernel's own path, a Linux bridge with the client's
 *     veth and a VXLAN device, 10.77.0.100 on the server's veth, routed
 *     by the host;
 *   - ovs-xdp-vxlan: an xdp bridge with the client's veth and a VXLAN
 *     port, and an xdp underlay bridge with the server's veth whose own
 *     port has 10.77.0.100 (native tunneling).
 *
 * The conntrack rows ("-ct", "-nft") put a stateful firewall in the
 * switch: connections that the client opens pass both ways, nothing else
 * does.  The OVS switches get it as OpenFlow flows (tcp_ct_flows(), the
 * firewall of tests/system-ctcache.at with actions=normal), so every
 * packet goes through ct() (for ovs-xdp, in XDP once the connection is
 * established and cached: the row's note gives its ct() counters); the
 * Linux bridge gets it from nftables (bench_nft_firewall()). */

#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench-common.h"
#include "command-line.h"
#include "fatal-signal.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "openvswitch/shash.h"
#include "openvswitch/util.h"
#include "ovs-xdp-bench.h"
#include "packets.h"
#include "svec.h"
#include "util.h"

#include "datapath/bench-tc-parse.skel.h"

/* iperf3's port. */
#define TCP_PORT 5201

enum tcp_kind {
    TCP_FLOOR,                  /* A veth pair between the namespaces. */
    TCP_OVS_XDP,                /* ovs-vswitchd-xdp, datapath_type=xdp. */
    TCP_OVS_STOCK,              /* Debian's ovs-vswitchd, netdev. */
    TCP_LINUX_BRIDGE,           /* The kernel's bridge. */
    TCP_LINUX_VXLAN,            /* The kernel's bridge and VXLAN device. */
    TCP_OVS_XDP_VXLAN,          /* ovs-vswitchd-xdp, native tunneling. */
    TCP_TC_PARSE,               /* Parse and redirect in TC: no switch. */
};

/* Whether switches of 'kind' reach the server through the VXLAN tunnel. */
static bool
tcp_kind_is_vxlan(enum tcp_kind kind)
{
    return kind == TCP_LINUX_VXLAN || kind == TCP_OVS_XDP_VXLAN;
}

/* A switch under test. */
struct tcp_switch {
    const char *name;           /* For --switches and the table. */
    const char *description;    /* One line for the table's legend. */
    enum tcp_kind kind;
    const char *port_type;      /* TCP_OVS_STOCK: Interface type, NULL for
                                 * system ports. */
    const char *other_config;   /* TCP_OVS_XDP: "key=value" for the
                                 * other_config of both ports, NULL for
                                 * the defaults. */
    bool conntrack;             /* With the stateful firewall. */
};

static const struct tcp_switch tcp_switches[] = {
    { "floor", "a veth pair joining the two namespaces directly",
      TCP_FLOOR, NULL, NULL, false },
    { "linux-bridge", "Linux bridge (ip link add type bridge)",
      TCP_LINUX_BRIDGE, NULL, NULL, false },
    { "ovs-xdp", "ovs-vswitchd-xdp, datapath_type=xdp, actions=normal, "
      "default xdp-mode (auto: tc on these veths)", TCP_OVS_XDP, NULL,
      NULL, false },
    { "ovs-xdp-drv", "the same with xdp-mode=best-effort (native where "
      "the kernel allows it; takes TSO from the namespaces)",
      TCP_OVS_XDP, NULL, "xdp-mode=best-effort", false },
    { "ovs-xdp-gen", "the same with xdp-mode=generic (the XDP program in "
      "generic mode; the kernel copies each GSO segment for it)",
      TCP_OVS_XDP, NULL, "xdp-mode=generic", false },
    { "ovs-xdp-skb", "the same as ovs-xdp with xdp-tx=skb (bpf_redirect() "
      "to the host's end, not straight into the namespace)",
      TCP_OVS_XDP, NULL, "xdp-tx=skb", false },
    { "ovs-system", "Debian ovs-vswitchd, datapath_type=netdev, system "
      "ports, actions=normal, userspace-tso-enable=true", TCP_OVS_STOCK,
      NULL, NULL, false },
    { "ovs-afxdp", "Debian ovs-vswitchd, datapath_type=netdev, type=afxdp "
      "ports, actions=normal, userspace-tso-enable=true", TCP_OVS_STOCK,
      "afxdp", NULL, false },
    { "linux-vxlan", "VXLAN: Linux bridge and VXLAN device (noudpcsum), "
      "underlay routed by the host", TCP_LINUX_VXLAN, NULL, NULL, false },
    { "ovs-xdp-vxlan", "VXLAN: ovs-vswitchd-xdp, overlay and underlay xdp "
      "bridges, actions=normal, native tunneling", TCP_OVS_XDP_VXLAN, NULL,
      NULL, false },
    { "tc-parse", "not a switch: the datapath's parser, one hash lookup "
      "and bpf_redirect() in TC ingress (datapath/bench-tc-parse.bpf.c)",
      TCP_TC_PARSE, NULL, NULL, false },
    { "linux-bridge-nft", "conntrack: Linux bridge with an nftables "
      "stateful firewall (ct state)", TCP_LINUX_BRIDGE, NULL, NULL, true },
    { "ovs-xdp-ct", "conntrack: ovs-xdp with the firewall in OpenFlow, "
      "ct() and actions=normal", TCP_OVS_XDP, NULL, NULL, true },
    { "ovs-system-ct", "conntrack: ovs-system with the same firewall",
      TCP_OVS_STOCK, NULL, NULL, true },
    { "ovs-afxdp-ct", "conntrack: ovs-afxdp with the same firewall",
      TCP_OVS_STOCK, "afxdp", NULL, true },
};
#define TCP_N_SWITCHES ARRAY_SIZE(tcp_switches)
#define TCP_FLOOR_IDX 0
#define TCP_BRIDGE_IDX 1
#define TCP_LINUX_VXLAN_IDX 8   /* "/bridge" of the VXLAN rows. */
#define TCP_LINUX_NFT_IDX 11    /* "/bridge" of the conntrack rows. */

#define TCP_MAX_CASES 8         /* MTUs and stream counts, each. */
#define TCP_MAX_RUNS 100

/* The results of one switch in one case (MTU, streams). */
struct tcp_result {
    char *skipped;              /* Why it was not measured, or NULL. */
    char *note;                 /* What the last run's switch said of it,
                                 * or NULL. */
    size_t n;                   /* Runs measured. */
    double gbps[TCP_MAX_RUNS];  /* Received Gbit/s, per run. */
};

struct tcp_options {
    double duration;            /* Seconds measured per run. */
    int runs;                   /* Runs per case. */
    int mtus[TCP_MAX_CASES];    /* --mtus. */
    size_t n_mtus;
    int streams[TCP_MAX_CASES]; /* --streams. */
    size_t n_streams;
    bool selected[TCP_N_SWITCHES];  /* --switches. */
    struct bench_ovs_options ovs;  /* --vswitchd-xdp, --vswitchd, --json. */
};

/* The whole benchmark, reachable from the cleanup hook. */
struct tcp_bench {
    struct tcp_options opts;
    struct tcp_result results[TCP_MAX_CASES][TCP_MAX_CASES][TCP_N_SWITCHES];

    struct bench_pair client;   /* Client's veth pair, 10.77.0.1. */
    struct bench_pair server;   /* Server's veth pair, 10.77.0.2. */
    char *floor_client;         /* The floor's veth ends: 10.78.0.1 in */
    char *floor_server;         /* the client's namespace, 10.78.0.2 in
                                 * the server's. */
    bool floor_created;
    char *ovs_bridge;
    char *ovs_underlay;         /* ovs-xdp-vxlan's underlay bridge. */
    char *linux_bridge;
    char *nft_table;            /* linux-bridge-nft's nftables tables. */
    unsigned int n_nft_setups;  /* bench_nft_firewall() calls so far. */
    char *nft_note;             /* How it set the firewall up, the last
                                 * time. */
    char *vxlan_dev;            /* linux-vxlan's VXLAN device. */
    struct bench_ovs ovs_xdp;
    struct bench_ovs ovs_stock;
    struct bench_tc_parse *tc_parse;    /* tc-parse's program, if set up. */
    const struct tcp_switch *active;    /* Set up now, or NULL. */
};

static const struct eth_addr tcp_client_mac = ETH_ADDR_C(02,6f,78,62,01,01);
static const struct eth_addr tcp_server_mac = ETH_ADDR_C(02,6f,78,62,01,02);

static void
tcp_usage(void)
{
    printf("\
%s tcp: TCP bulk throughput through ovs-xdp and the alternatives\n\
usage: %s tcp [OPTION]...\n\
\n\
Runs iperf3 between two network namespaces through each switch in turn\n\
and reports the received throughput.  Needs root and iperf3.\n\
\n\
Options:\n\
  --duration=SECONDS     measure each run this long (default 3)\n\
  --runs=N               runs per case, alternating (default 3)\n\
  --mtus=LIST            comma-separated MTUs (default 1500,9000)\n\
  --streams=LIST         comma-separated parallel streams (default 1,4)\n\
  --switches=LIST        comma-separated, from: floor, linux-bridge,\n\
                         ovs-xdp, ovs-xdp-drv, ovs-xdp-gen, ovs-xdp-skb,\n\
                         ovs-system, ovs-afxdp, linux-vxlan,\n\
                         ovs-xdp-vxlan, tc-parse, linux-bridge-nft,\n\
                         ovs-xdp-ct, ovs-system-ct, ovs-afxdp-ct\n\
                         (default: all)\n\
  --vswitchd-xdp=PATH    ovs-vswitchd-xdp (default: the build tree's,\n\
                         or from $PATH)\n\
  --vswitchd=PATH        stock ovs-vswitchd (default:\n\
                         %s)\n\
  --json=FILE            also write the results to FILE\n\
  -h, --help             display this help message\n",
           program_name, program_name, BENCH_STOCK_VSWITCHD);
}

static const char *
tcp_switch_name(size_t i)
{
    return tcp_switches[i].name;
}

/* Parses a comma-separated list of integers from 'min' to 'max' into
 * 'values'. */
static size_t
tcp_parse_list(const char *option, const char *arg, int min, int max,
               int values[TCP_MAX_CASES])
{
    char *copy = xstrdup(arg), *save = NULL;
    size_t n = 0;

    for (char *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int value;

        if (n >= TCP_MAX_CASES || !str_to_int(tok, 10, &value)
            || value < min || value > max) {
            ovs_fatal(0, "%s: \"%s\" is not a list of at most %d numbers "
                      "from %d to %d", option, arg, TCP_MAX_CASES, min, max);
        }
        values[n++] = value;
    }
    free(copy);
    if (!n) {
        ovs_fatal(0, "%s: empty list", option);
    }
    return n;
}

static void
tcp_parse_options(struct tcp_bench *tb, int argc, char *argv[])
{
    enum {
        OPT_DURATION = UCHAR_MAX + 1,
        OPT_RUNS,
        OPT_MTUS,
        OPT_STREAMS,
        OPT_SWITCHES,
    };
    static const struct option long_options[] = {
        {"duration", required_argument, NULL, OPT_DURATION},
        {"runs", required_argument, NULL, OPT_RUNS},
        {"mtus", required_argument, NULL, OPT_MTUS},
        {"streams", required_argument, NULL, OPT_STREAMS},
        {"switches", required_argument, NULL, OPT_SWITCHES},
        BENCH_OVS_LONG_OPTIONS,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char *short_options = ovs_cmdl_long_options_to_short_options(long_options);
    struct tcp_options *opts = &tb->opts;
    int runs[TCP_MAX_CASES];

    opts->duration = 3;
    opts->runs = 3;
    opts->mtus[0] = 1500;
    opts->mtus[1] = 9000;
    opts->n_mtus = 2;
    opts->streams[0] = 1;
    opts->streams[1] = 4;
    opts->n_streams = 2;
    for (size_t i = 0; i < TCP_N_SWITCHES; i++) {
        opts->selected[i] = true;
    }

    for (;;) {
        int c = getopt_long(argc, argv, short_options, long_options, NULL);

        if (c == -1) {
            break;
        } else if (bench_ovs_parse_option(&opts->ovs, c, optarg)) {
            continue;
        }
        switch (c) {
        case OPT_DURATION:
            opts->duration = bench_parse_seconds("--duration", optarg, 1,
                                                 600);
            break;
        case OPT_RUNS:
            tcp_parse_list("--runs", optarg, 1, TCP_MAX_RUNS, runs);
            opts->runs = runs[0];
            break;
        case OPT_MTUS:
            opts->n_mtus = tcp_parse_list("--mtus", optarg, 1280, 65000,
                                          opts->mtus);
            break;
        case OPT_STREAMS:
            opts->n_streams = tcp_parse_list("--streams", optarg, 1, 128,
                                             opts->streams);
            break;
        case OPT_SWITCHES:
            bench_select(optarg, tcp_switch_name, TCP_N_SWITCHES,
                         opts->selected);
            break;
        case 'h':
            tcp_usage();
            exit(EXIT_SUCCESS);
        case '?':
            exit(EXIT_FAILURE);
        default:
            OVS_NOT_REACHED();
        }
    }
    free(short_options);
    bench_no_arguments("tcp", argc, argv);
    bench_ovs_options_finish(&opts->ovs);
}

/* Setting a switch up and down. */

static struct bench_ovs *
tcp_switch_ovs(struct tcp_bench *tb, const struct tcp_switch *sw)
{
    return sw->kind == TCP_OVS_STOCK ? &tb->ovs_stock : &tb->ovs_xdp;
}

/* ovs-xdp-vxlan: the overlay bridge with the client's veth and a VXLAN
 * port to the server, and the underlay bridge with the server's veth. */
static int
tcp_ovs_vxlan_setup(struct tcp_bench *tb, struct ds *why)
{
    const char *overlay[] = { tb->client.root_name };
    const char *underlay[] = { tb->server.root_name };
    const char *flows[] = { "actions=normal" };
    struct ds output = DS_EMPTY_INITIALIZER;
    int error;

    error = bench_ovs_add_bridge(&tb->ovs_xdp, tb->ovs_underlay, "xdp", NULL,
                                 underlay, 1, flows, 1, why);
    if (!error) {
        error = bench_ovs_add_bridge(&tb->ovs_xdp, tb->ovs_bridge, "xdp",
                                     NULL, overlay, 1, flows, 1, why);
    }
    if (!error
        && bench_ovs_run(&tb->ovs_xdp, &output, "ovs-vsctl add-port %s %svx"
                         " -- set interface %svx type=vxlan"
                         " options:remote_ip=10.77.0.2", tb->ovs_bridge,
                         tb->ovs_bridge, tb->ovs_bridge)) {
        bench_explain(why, "ovs-vsctl add-port (vxlan)", 1, &output);
        error = EIO;
    }
    if (!error) {
        int status = bench_run(&output, "ip addr add 10.77.0.100/24 dev %s"
                               " && ip link set %s up", tb->ovs_underlay,
                               tb->ovs_underlay);
        if (status) {
            bench_explain(why, "addressing the underlay bridge", status,
                          &output);
            error = EIO;
        }
    }
    ds_destroy(&output);
    return error;
}

/* linux-vxlan: a Linux bridge with the client's veth and a VXLAN device
 * that the host routes to the server's veth. */
static int
tcp_linux_vxlan_setup(struct tcp_bench *tb, int mtu, struct ds *why)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    int status;

    status = bench_run(&output, "ip addr add 10.77.0.100/24 dev %s"
                       " && ip link add %s type vxlan id 0 dstport 4789"
                       " remote 10.77.0.2 local 10.77.0.100 noudpcsum"
                       " && ip link set %s mtu %d up",
                       tb->server.root_name, tb->vxlan_dev, tb->vxlan_dev,
                       mtu - 50);
    if (status) {
        bench_explain(why, "creating the VXLAN device", status, &output);
        ds_destroy(&output);
        return EIO;
    }
    ds_destroy(&output);
    return bench_linux_bridge_create(tb->linux_bridge, tb->client.root_name,
                                     tb->vxlan_dev, why);
}

/* The OVS switches' stateful firewall, in zone TCP_CT_ZONE: every IPv4
 * packet through ct(), connections from 'client' committed, established
 * ones passed both ways, new ones from elsewhere dropped; ARP and the
 * rest by actions=normal. */
#define TCP_CT_ZONE 5
static void
tcp_ct_flows(const char *client, struct svec *flows)
{
    svec_add_nocopy(flows, xasprintf("table=0,priority=100,ip,"
                                     "ct_state=-trk,actions=ct(zone=%d,"
                                     "table=1)", TCP_CT_ZONE));
    svec_add(flows, "table=0,priority=10,actions=normal");
    svec_add_nocopy(flows, xasprintf("table=1,priority=100,in_port=%s,ip,"
                                     "ct_state=+trk+new,actions=ct(zone=%d,"
                                     "commit),normal", client, TCP_CT_ZONE));
    svec_add(flows, "table=1,priority=100,ip,ct_state=+trk+est,"
             "actions=normal");
    svec_add(flows, "table=1,priority=0,actions=drop");
}

static int
tcp_ovs_setup(struct tcp_bench *tb, const struct tcp_switch *sw,
              struct ds *why)
{
    const char *ports[] = { tb->client.root_name, tb->server.root_name };
    struct bench_ovs *ovs = tcp_switch_ovs(tb, sw);
    struct svec flows = SVEC_EMPTY_INITIALIZER;
    int error;

    if (sw->conntrack) {
        tcp_ct_flows(tb->client.root_name, &flows);
    } else {
        svec_add(&flows, "actions=normal");
    }
    error = bench_ovs_add_bridge(ovs, tb->ovs_bridge,
                                 sw->kind == TCP_OVS_XDP ? "xdp" : "netdev",
                                 sw->port_type, ports, ARRAY_SIZE(ports),
                                 (const char *const *) flows.names,
                                 flows.n, why);
    svec_destroy(&flows);
    if (!error && sw->other_config) {
        struct ds output = DS_EMPTY_INITIALIZER;

        if (bench_ovs_run(ovs, &output, "ovs-vsctl set interface %s "
                          "other_config:%s -- set interface %s "
                          "other_config:%s", ports[0], sw->other_config,
                          ports[1], sw->other_config)) {
            bench_explain(why, "ovs-vsctl set interface", 1, &output);
            error = EIO;
        }
        ds_destroy(&output);
    }
    return error;
}

/* Removes tc-parse's program and the clsact qdiscs it made. */
static void
tcp_tc_parse_teardown(struct tcp_bench *tb)
{
    const char *ends[] = { tb->client.root_name, tb->server.root_name };

    for (size_t i = 0; i < ARRAY_SIZE(ends); i++) {
        LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = if_nametoindex(ends[i]),
                    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);

        if (hook.ifindex) {
            bpf_tc_hook_destroy(&hook);
        }
    }
    bench_tc_parse__destroy(tb->tc_parse);
    tb->tc_parse = NULL;
}

/* Loads tc-parse's program, points each switch-side veth end at the
 * other and attaches the program at both ends' TC ingress.  Returns 0, or
 * a positive errno after explaining in 'why'. */
static int
tcp_tc_parse_setup(struct tcp_bench *tb, struct ds *why)
{
    uint32_t client = if_nametoindex(tb->client.root_name);
    uint32_t server = if_nametoindex(tb->server.root_name);
    int error;

    tb->tc_parse = bench_tc_parse__open_and_load();
    if (!tb->tc_parse) {
        error = errno;
        ds_put_format(why, "cannot load bench-tc-parse (%s)",
                      ovs_strerror(error));
        return error;
    }
    int fd = bpf_map__fd(tb->tc_parse->maps.bench_tc_peer);
    if (bpf_map_update_elem(fd, &client, &server, BPF_ANY)
        || bpf_map_update_elem(fd, &server, &client, BPF_ANY)) {
        error = errno;
        ds_put_format(why, "cannot fill bench_tc_peer (%s)",
                      ovs_strerror(error));
        return error;
    }
    error = bench_tc_attach(tb->tc_parse->progs.bench_tc_parse, NULL,
                            tb->client.root_name, why);
    if (!error) {
        error = bench_tc_attach(tb->tc_parse->progs.bench_tc_parse, NULL,
                                tb->server.root_name, why);
    }
    return error;
}

static void
tcp_switch_teardown(struct tcp_bench *tb)
{
    const struct tcp_switch *sw = tb->active;

    if (!sw) {
        return;
    }
    switch (sw->kind) {
    case TCP_FLOOR:
        break;
    case TCP_OVS_XDP:
    case TCP_OVS_STOCK:
        bench_ovs_del_bridge(tcp_switch_ovs(tb, sw), tb->ovs_bridge);
        break;
    case TCP_LINUX_BRIDGE:
        if (sw->conntrack) {
            bench_nft_teardown(tb->nft_table);
        }
        bench_run(NULL, "ip link del %s", tb->linux_bridge);
        break;
    case TCP_LINUX_VXLAN:
        bench_run(NULL, "ip link del %s; ip link del %s;"
                  " ip addr del 10.77.0.100/24 dev %s", tb->linux_bridge,
                  tb->vxlan_dev, tb->server.root_name);
        break;
    case TCP_OVS_XDP_VXLAN:
        bench_ovs_del_bridge(&tb->ovs_xdp, tb->ovs_bridge);
        bench_ovs_del_bridge(&tb->ovs_xdp, tb->ovs_underlay);
        break;
    case TCP_TC_PARSE:
        tcp_tc_parse_teardown(tb);
        break;
    }
    bench_xdp_clear(tb->client.root_name, sw->name);
    bench_xdp_clear(tb->server.root_name, sw->name);
    tb->active = NULL;
}

/* Sets every veth end's MTU to 'mtu', then sets switch 'sw' up.  Returns
 * 0, or a positive errno after explaining in 'why'. */
static int
tcp_switch_setup(struct tcp_bench *tb, const struct tcp_switch *sw, int mtu,
                 struct ds *why)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    int status, error = 0;

    status = bench_run(&output,
                       "ip link set %s mtu %d && ip link set %s mtu %d"
                       " && nsenter --net=/run/netns/%s ip link set %s mtu %d"
                       " && nsenter --net=/run/netns/%s ip link set %s mtu %d"
                       " && nsenter --net=/run/netns/%s ip link set %s mtu %d"
                       " && nsenter --net=/run/netns/%s ip link set %s mtu %d",
                       tb->client.root_name, mtu, tb->server.root_name, mtu,
                       tb->client.ns, tb->client.ns_name, mtu,
                       tb->server.ns, tb->server.ns_name, mtu,
                       tb->client.ns, tb->floor_client, mtu,
                       tb->server.ns, tb->floor_server, mtu);
    if (status) {
        bench_explain(why, "setting the MTU", status, &output);
        ds_destroy(&output);
        return EIO;
    }

    if (tcp_kind_is_vxlan(sw->kind)) {
        /* Room for the outer headers on the client's side. */
        ds_clear(&output);
        status = bench_run(&output,
                           "ip link set %s mtu %d"
                           " && nsenter --net=/run/netns/%s ip link set %s"
                           " mtu %d"
                           " && nsenter --net=/run/netns/%s ip link set vx"
                           " mtu %d",
                           tb->client.root_name, mtu - 50,
                           tb->client.ns, tb->client.ns_name, mtu - 50,
                           tb->server.ns, mtu - 50);
        if (status) {
            bench_explain(why, "setting the tunnel's MTU", status, &output);
            ds_destroy(&output);
            return EIO;
        }
    }

    tb->active = sw;
    switch (sw->kind) {
    case TCP_FLOOR:
        break;
    case TCP_LINUX_VXLAN:
        error = tcp_linux_vxlan_setup(tb, mtu, why);
        break;
    case TCP_OVS_XDP_VXLAN:
        error = tcp_ovs_vxlan_setup(tb, why);
        break;
    case TCP_OVS_XDP:
    case TCP_OVS_STOCK:
        error = tcp_ovs_setup(tb, sw, why);
        break;
    case TCP_LINUX_BRIDGE:
        error = bench_linux_bridge_create(tb->linux_bridge,
                                          tb->client.root_name,
                                          tb->server.root_name, why);
        if (!error && sw->conntrack) {
            free(tb->nft_note);
            error = bench_nft_firewall(tb->nft_table, tb->linux_bridge,
                                       tb->client.root_name,
                                       tb->server.root_name,
                                       &tb->n_nft_setups, &tb->nft_note,
                                       why);
        }
        break;
    case TCP_TC_PARSE:
        error = tcp_tc_parse_setup(tb, why);
        break;
    }
    if (!error && tcp_kind_is_vxlan(sw->kind)) {
        /* The first packets into a tunnel wait for its next hop to be
         * resolved (for ovs-xdp, for ofproto to revalidate the flow
         * after that): not in the measurement. */
        ds_clear(&output);
        status = bench_run(&output, "for i in $(seq 20); do"
                           " nsenter --net=/run/netns/%s ping -q -c 1 -W 1"
                           " 10.79.0.2 > /dev/null && exit 0; done; exit 1",
                           tb->client.ns);
        if (status) {
            bench_explain(why, "pinging through the tunnel", status,
                          &output);
            error = EIO;
        }
    }
    ds_destroy(&output);
    if (error) {
        tcp_switch_teardown(tb);
    }
    return error;
}

/* Measuring. */

/* Returns the received throughput, in bits per second, that iperf3's JSON
 * report 'report' gives, or a negative number if it has none, then with
 * iperf3's error message, if any, appended to 'why'. */
static double
tcp_parse_report(const char *report, struct ds *why)
{
    struct json *json = json_from_string(report);
    double bps = -1;

    if (json->type == JSON_OBJECT) {
        const struct json *error = shash_find_data(json_object(json),
                                                   "error");

        if (error && error->type == JSON_STRING) {
            ds_put_format(why, "iperf3: %s", json_string(error));
        }
    }
    if (json->type == JSON_OBJECT) {
        const struct json *end = shash_find_data(json_object(json), "end");
        const struct json *sum = (end && end->type == JSON_OBJECT
                                  ? shash_find_data(json_object(end),
                                                    "sum_received")
                                  : NULL);
        const struct json *value = (sum && sum->type == JSON_OBJECT
                                    ? shash_find_data(json_object(sum),
                                                      "bits_per_second")
                                    : NULL);

        if (value && value->type == JSON_REAL) {
            bps = json_real(value);
        } else if (value && value->type == JSON_INTEGER) {
            bps = json_integer(value);
        }
    }
    json_destroy(json);
    return bps;
}

/* Runs iperf3 with 'streams' streams through the switch that is set up.
 * Returns 0 and stores the received Gbit/s in '*gbps', or a positive
 * errno after explaining in 'why'. */
static int
tcp_measure(struct tcp_bench *tb, int streams, double *gbps, struct ds *why)
{
    enum tcp_kind kind = tb->active->kind;
    const char *server_addr = (kind == TCP_FLOOR ? "10.78.0.2"
                               : tcp_kind_is_vxlan(kind) ? "10.79.0.2"
                               : "10.77.0.2");
    char *pidfile = xasprintf("/tmp/%s-iperf3-%ld.pid", BENCH_PREFIX,
                              (long) getpid());
    struct ds output = DS_EMPTY_INITIALIZER;
    int status, error = 0;
    double bps;

    unlink(pidfile);
    status = bench_run(&output, "nsenter --net=/run/netns/%s iperf3 -s -1 "
                       "-D -B %s -p %d -I %s", tb->server.ns, server_addr,
                       TCP_PORT, pidfile);
    if (status) {
        bench_explain(why, "starting the iperf3 server", status, &output);
        error = EIO;
        goto out;
    }
    for (int i = 0; i < 50 && access(pidfile, F_OK); i++) {
        bench_sleep(0.1);
    }
    bench_sleep(0.2);

    ds_clear(&output);
    status = bench_run(&output, "nsenter --net=/run/netns/%s iperf3 -c %s "
                       "-p %d -t %.0f -O 1 -P %d -J --connect-timeout 3000",
                       tb->client.ns,
                       server_addr, TCP_PORT, tb->opts.duration + 1,
                       streams);
    bps = tcp_parse_report(ds_cstr(&output), why);
    if (bps <= 0 || status) {
        if (!why->length) {
            bench_explain(why, "iperf3 client", status ? status : 1,
                          &output);
        }
        error = EIO;
    } else {
        *gbps = bps / 1e9;
    }

out:
    /* The one-off server exits after its client; make sure. */
    bench_run(NULL, "test -e %s && kill $(cat %s) 2>/dev/null; rm -f %s",
              pidfile, pidfile, pidfile);
    free(pidfile);
    ds_destroy(&output);
    return error;
}

/* Measures, as tcp_measure() does, and for ovs-xdp's conntrack row puts
 * into 'r''s note how many of its packets' ct() XDP ran. */
static int
tcp_measure_noted(struct tcp_bench *tb, struct tcp_result *r, int streams,
                  double *gbps, struct ds *why)
{
    static const char *const names[] = {
        "xdp-ct-hit", "xdp-ct-miss", "xdp-ct-next"
    };
    const struct tcp_switch *sw = tb->active;
    bool xdp_ct = sw->conntrack && sw->kind == TCP_OVS_XDP;
    long long before[3], after[3];
    long long *const before_p[] = { &before[0], &before[1], &before[2] };
    long long *const after_p[] = { &after[0], &after[1], &after[2] };
    int error;

    if (xdp_ct) {
        bench_ovs_counters(&tb->ovs_xdp, "dpif-xdp/stats-show", names,
                           before_p, ARRAY_SIZE(names));
    }
    error = tcp_measure(tb, streams, gbps, why);
    if (!error && xdp_ct) {
        bench_ovs_counters(&tb->ovs_xdp, "dpif-xdp/stats-show", names,
                           after_p, ARRAY_SIZE(names));
        free(r->note);
        if (before[0] < 0 || after[0] < 0) {
            r->note = xstrdup("ct() counters of XDP not readable");
        } else {
            long long hit = after[0] - before[0];
            long long miss = after[1] - before[1];
            long long next = after[2] - before[2];

            r->note = xasprintf("ct() in XDP: %lld hits, %lld misses "
                                "(%.1f%% in XDP), %lld passes after ct() "
                                "skipped", hit, miss,
                                hit + miss ? 100.0 * hit / (hit + miss) : 0,
                                next);
        }
    } else if (!error && sw->conntrack && sw->kind == TCP_LINUX_BRIDGE
               && tb->nft_note && !r->note) {
        r->note = xstrdup(tb->nft_note);
    }
    return error;
}

/* Setup and cleanup. */

static void
tcp_cleanup(void *tb_)
{
    struct tcp_bench *tb = tb_;

    tcp_switch_teardown(tb);
    bench_ovs_destroy(&tb->ovs_xdp);
    bench_ovs_destroy(&tb->ovs_stock);
    bench_pair_destroy(&tb->client);
    bench_pair_destroy(&tb->server);
}

static void
tcp_setup(struct tcp_bench *tb)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    struct ds why = DS_EMPTY_INITIALIZER;
    long pid = getpid();
    int status;

    tb->ovs_bridge = xasprintf("%sbr%ld", BENCH_PREFIX, pid);
    tb->ovs_underlay = xasprintf("%sub%ld", BENCH_PREFIX, pid);
    tb->linux_bridge = xasprintf("%slb%ld", BENCH_PREFIX, pid);
    tb->nft_table = xasprintf("%s%ld", BENCH_PREFIX, pid);
    tb->vxlan_dev = xasprintf("%svx%ld", BENCH_PREFIX, pid);
    tb->floor_client = xasprintf("%sfc%ld", BENCH_PREFIX, pid);
    tb->floor_server = xasprintf("%sfs%ld", BENCH_PREFIX, pid);
    if (bench_pair_create(&tb->client, "c", tcp_client_mac, "10.77.0.1/24",
                          &why)
        || bench_pair_create(&tb->server, "v", tcp_server_mac,
                             "10.77.0.2/24", &why)) {
        ovs_fatal(0, "cannot build the topology: %s", ds_cstr(&why));
    }
    /* The floor's pair lives in the namespaces, which take it with them
     * when they go. */
    status = bench_run(&output,
                       "nsenter --net=/run/netns/%s ip link add %s type veth"
                       " peer name %s netns %s"
                       " && nsenter --net=/run/netns/%s ip addr add "
                       "10.78.0.1/24 dev %s"
                       " && nsenter --net=/run/netns/%s ip link set %s up"
                       " && nsenter --net=/run/netns/%s ip addr add "
                       "10.78.0.2/24 dev %s"
                       " && nsenter --net=/run/netns/%s ip link set %s up",
                       tb->client.ns, tb->floor_client, tb->floor_server,
                       tb->server.ns,
                       tb->client.ns, tb->floor_client,
                       tb->client.ns, tb->floor_client,
                       tb->server.ns, tb->floor_server,
                       tb->server.ns, tb->floor_server);
    if (status) {
        bench_explain(&why, "creating the floor's veth pair", status,
                      &output);
        ovs_fatal(0, "%s", ds_cstr(&why));
    }
    /* The VXLAN pipeline's ends (see the top of the file); they stay
     * unused by the other switches. */
    ds_clear(&output);
    status = bench_run(&output,
                       "nsenter --net=/run/netns/%s ip addr add 10.79.0.1/24"
                       " dev %s"
                       " && nsenter --net=/run/netns/%s ip link add vx type"
                       " vxlan id 0 dstport 4789 remote 10.77.0.100"
                       " local 10.77.0.2 noudpcsum"
                       " && nsenter --net=/run/netns/%s ip addr add"
                       " 10.79.0.2/24 dev vx"
                       " && nsenter --net=/run/netns/%s ip link set vx up",
                       tb->client.ns, tb->client.ns_name,
                       tb->server.ns, tb->server.ns, tb->server.ns);
    if (status) {
        bench_explain(&why, "creating the server's VXLAN device", status,
                      &output);
        ovs_fatal(0, "%s", ds_cstr(&why));
    }
    fprintf(stderr, "topology: namespaces %s, %s; veths %s, %s\n",
            tb->client.ns, tb->server.ns, tb->client.root_name,
            tb->server.root_name);
    ds_destroy(&output);
    ds_destroy(&why);

    bench_ovs_init(&tb->ovs_xdp, "ovs-vswitchd-xdp", tb->opts.ovs.vswitchd_xdp,
                   NULL);
    /* Without userspace TSO, Debian's ovs-vswitchd sends a veth's TCP
     * packets on with the partial checksums their sender left to
     * offload, and the receiver drops them all: with it, the packet
     * sockets carry virtio-net headers and the kernel finishes them. */
    bench_ovs_init(&tb->ovs_stock, "Debian's ovs-vswitchd",
                   tb->opts.ovs.vswitchd_stock, "userspace-tso-enable=true");
}

/* Reporting. */

static void
tcp_print_table(const struct tcp_bench *tb)
{
    const struct tcp_options *o = &tb->opts;

    printf("\nTCP throughput, iperf3, %.0f s x %d runs, received Gbit/s "
           "(median, min-max)\n", o->duration, o->runs);
    for (size_t m = 0; m < o->n_mtus; m++) {
        for (size_t s = 0; s < o->n_streams; s++) {
            const struct tcp_result *rs = tb->results[m][s];
            double floor = (rs[TCP_FLOOR_IDX].n
                            ? bench_median(rs[TCP_FLOOR_IDX].gbps,
                                           rs[TCP_FLOOR_IDX].n) : 0);
            double bridge = (rs[TCP_BRIDGE_IDX].n
                             ? bench_median(rs[TCP_BRIDGE_IDX].gbps,
                                            rs[TCP_BRIDGE_IDX].n) : 0);
            double kernel_vxlan = (rs[TCP_LINUX_VXLAN_IDX].n
                                   ? bench_median(
                                       rs[TCP_LINUX_VXLAN_IDX].gbps,
                                       rs[TCP_LINUX_VXLAN_IDX].n)
                                   : 0);
            double kernel_nft = (rs[TCP_LINUX_NFT_IDX].n
                                 ? bench_median(rs[TCP_LINUX_NFT_IDX].gbps,
                                                rs[TCP_LINUX_NFT_IDX].n)
                                 : 0);

            printf("\nMTU %d, %d stream%s:\n", o->mtus[m], o->streams[s],
                   o->streams[s] > 1 ? "s" : "");
            printf("  %-16s %8s %15s %9s %10s\n", "switch", "Gbit/s",
                   "min-max", "/floor", "/bridge");
            for (size_t i = 0; i < TCP_N_SWITCHES; i++) {
                const struct tcp_result *r = &rs[i];

                if (!o->selected[i]) {
                    continue;
                }
                if (!r->n) {
                    printf("  %-16s skipped: %s\n", tcp_switches[i].name,
                           r->skipped ? r->skipped : "not measured");
                    continue;
                }
                double med = bench_median(r->gbps, r->n);
                printf("  %-16s %8.2f %7.2f-%-7.2f", tcp_switches[i].name,
                       med, bench_min(r->gbps, r->n),
                       bench_max(r->gbps, r->n));
                if (floor) {
                    printf(" %9.2f", med / floor);
                } else {
                    printf(" %9s", "-");
                }
                /* A tunnel's is the kernel's own tunnel's ratio, a
                 * firewall's the kernel's own firewall's. */
                double ref = (tcp_kind_is_vxlan(tcp_switches[i].kind)
                              ? kernel_vxlan
                              : tcp_switches[i].conntrack ? kernel_nft
                              : bridge);
                if (ref) {
                    printf(" %10.2f\n", med / ref);
                } else {
                    printf(" %10s\n", "-");
                }
                for (const char *line = r->note; line && *line; ) {
                    size_t len = strcspn(line, "\n");

                    printf("%20s%.*s\n", "", (int) len, line);
                    line += len + (line[len] == '\n');
                }
            }
        }
    }
    printf("\n/bridge: for the VXLAN rows, the ratio to linux-vxlan; for "
           "the conntrack rows,\nto linux-bridge-nft.\n");
    printf("\nswitches:\n");
    for (size_t i = 0; i < TCP_N_SWITCHES; i++) {
        if (o->selected[i]) {
            printf("  %-14s %s\n", tcp_switches[i].name,
                   tcp_switches[i].description);
        }
    }
}

static void
tcp_write_json(const struct tcp_bench *tb)
{
    const struct tcp_options *o = &tb->opts;
    struct json *cases = json_array_create_empty();

    for (size_t m = 0; m < o->n_mtus; m++) {
        for (size_t s = 0; s < o->n_streams; s++) {
            struct json *c = json_object_create();
            struct json *sws = json_object_create();

            json_object_put(c, "mtu", json_integer_create(o->mtus[m]));
            json_object_put(c, "streams",
                            json_integer_create(o->streams[s]));
            for (size_t i = 0; i < TCP_N_SWITCHES; i++) {
                const struct tcp_result *r = &tb->results[m][s][i];
                struct json *runs;

                if (!o->selected[i]) {
                    continue;
                }
                runs = json_array_create_empty();
                for (size_t k = 0; k < r->n; k++) {
                    json_array_add(runs, json_real_create(r->gbps[k]));
                }
                struct json *sw = json_object_create();
                json_object_put(sw, "gbps", runs);
                if (r->skipped) {
                    json_object_put_string(sw, "skipped", r->skipped);
                }
                if (r->note) {
                    json_object_put_string(sw, "note", r->note);
                }
                json_object_put(sws, tcp_switches[i].name, sw);
            }
            json_object_put(c, "switches", sws);
            json_array_add(cases, c);
        }
    }
    struct json *top = json_object_create();
    json_object_put_string(top, "mode", "tcp");
    json_object_put(top, "duration", json_real_create(o->duration));
    json_object_put(top, "cases", cases);

    bench_write_json(top, o->ovs.json_file);
}

int
bench_tcp_main(int argc, char *argv[])
{
    static struct tcp_bench tb;
    const struct tcp_options *o = &tb.opts;
    size_t n_measured = 0;
    char *iperf3;

    ovs_assert(tcp_switches[TCP_BRIDGE_IDX].kind == TCP_LINUX_BRIDGE);
    ovs_assert(tcp_switches[TCP_LINUX_VXLAN_IDX].kind == TCP_LINUX_VXLAN);
    ovs_assert(tcp_switches[TCP_LINUX_NFT_IDX].kind == TCP_LINUX_BRIDGE
               && tcp_switches[TCP_LINUX_NFT_IDX].conntrack);
    tcp_parse_options(&tb, argc, argv);
    if (geteuid()) {
        ovs_fatal(0, "tcp: must run as root (network namespaces need it)");
    }
    iperf3 = bench_find_program("iperf3");
    if (!iperf3) {
        ovs_fatal(0, "tcp: iperf3 is not installed (apt-get install "
                  "iperf3)");
    }
    free(iperf3);

    fatal_signal_add_hook(tcp_cleanup, NULL, &tb, true);
    tcp_setup(&tb);

    for (int run = 0; run < o->runs; run++) {
        for (size_t m = 0; m < o->n_mtus; m++) {
            for (size_t s = 0; s < o->n_streams; s++) {
                for (size_t i = 0; i < TCP_N_SWITCHES; i++) {
                    struct tcp_result *r = &tb.results[m][s][i];
                    struct ds why = DS_EMPTY_INITIALIZER;
                    double gbps;

                    if (!o->selected[i] || r->skipped) {
                        continue;
                    }
                    fprintf(stderr, "run %d/%d: MTU %d, %d stream(s): "
                            "%-13s ", run + 1, o->runs, o->mtus[m],
                            o->streams[s], tcp_switches[i].name);
                    fflush(stderr);
                    if (tcp_switch_setup(&tb, &tcp_switches[i], o->mtus[m],
                                         &why)
                        || tcp_measure_noted(&tb, r, o->streams[s], &gbps,
                                             &why)) {
                        fatal_signal_run();
                        r->skipped = ds_steal_cstr(&why);
                        fprintf(stderr, "skipped: %s\n", r->skipped);
                    } else {
                        r->gbps[r->n++] = gbps;
                        n_measured++;
                        fprintf(stderr, "%.2f Gbit/s\n", gbps);
                    }
                    tcp_switch_teardown(&tb);
                    ds_destroy(&why);
                }
            }
        }
    }
    tcp_cleanup(&tb);

    tcp_print_table(&tb);
    if (o->ovs.json_file) {
        tcp_write_json(&tb);
    }
    return n_measured ? 0 : 1;
}
