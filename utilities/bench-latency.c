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

/* ovs-xdp-bench latency: what the first packet of a new flow costs.
 *
 * Topology, built for the run and removed at its end (also on failure or
 * Ctrl-C): namespaces oxb-a-PID and oxb-b-PID, each joined by a veth pair
 * to the root namespace, where the switch under test takes the root-side
 * ends as ports; each namespace knows the other's Ethernet address
 * statically, so that no ARP exchange precedes the measured packets.
 *
 * For each switch (a bridge with actions=normal in a private ovs-vswitchd:
 * ovs-vswitchd-xdp with datapath_type=xdp, and Debian's ovs-vswitchd with
 * OVS's userspace datapath, datapath_type=netdev, on system ports), the
 * mode repeats --repeat times: 'ovs-appctl revalidator/purge', which
 * removes the datapath flows and ofproto's ukeys with them (dpctl/del-flows
 * would leave the ukeys behind, and later packets would become failed
 * upcalls), then 'ping -c COUNT' from one namespace to the other.  The
 * first echo request and its reply each miss in the datapath: an upcall,
 * translation, a flow install and the packet's execution, in each
 * direction.  The later pings hit the installed flows.  Reported per
 * switch: the median over the repetitions of the first RTT, of the median
 * of the later RTTs, and their ratio.
 *
 * With --megaflows=N --masks=M, the first packet meets a datapath that
 * holds N megaflows over M masks besides: the OpenFlow table has N rules
 * on the UDP destination port from namespace a (bench_megaflow_rules()),
 * and before each repetition's pings, after the purge, namespace a sends
 * one datagram to each of those ports, paced so that no upcall budget
 * refuses them, and the mode waits until the datapath shows the flows
 * (dpctl/show) and a second more, for ovs-vswitchd-xdp's compiler.  The
 * datapath flows seen before the pings are reported, since their number
 * is ofproto's to make. */

#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "command-line.h"
#include "fatal-signal.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "packets.h"
#include "svec.h"
#include "util.h"
#include "utilities/bench-common.h"
#include "utilities/ovs-xdp-bench.h"

/* The kernel module's first-packet latency, from the literature (see
 * DESIGN.md section 5): printed as a reference, not measured. */
#define LAT_KERNEL_REFERENCE_MS 0.6

/* A switch under test. */
struct lat_switch {
    const char *name;           /* For --switches and the table. */
    const char *description;    /* One line for the table's legend. */
    bool xdp;                   /* ovs-vswitchd-xdp (else Debian's). */
};

static const struct lat_switch lat_switches[] = {
    { "ovs-xdp", "ovs-vswitchd-xdp, datapath_type=xdp, actions=normal",
      true },
    { "ovs-system", "Debian ovs-vswitchd, datapath_type=netdev, system "
      "ports, actions=normal", false },
};
#define LAT_N_SWITCHES ARRAY_SIZE(lat_switches)

/* The results of one switch. */
struct lat_result {
    bool selected;              /* Chosen by --switches. */
    char *skipped;              /* Why it was not (fully) measured, or
                                 * NULL. */
    size_t n;                   /* Repetitions with a first RTT. */
    double *first;              /* First RTT of each repetition, in ms. */
    double *later;              /* Median of the later RTTs, likewise. */
    unsigned int n_lost;        /* Echo requests without a reply. */
    long long int min_dp_flows; /* --megaflows: fewest datapath flows seen
                                 * before a repetition's pings, or -1. */
    long long int min_dp_masks; /* And fewest masks, likewise. */
};

/* Options. */
struct lat_options {
    unsigned int count;         /* Pings per repetition, at least 2. */
    unsigned int repeat;        /* Repetitions per switch. */
    double interval;            /* Seconds between pings. */
    struct bench_megaflow_options mflow;  /* --megaflows, --masks. */
    struct bench_ovs_options ovs;  /* --vswitchd-xdp, --vswitchd, --json. */
};

/* The whole benchmark, reachable from the cleanup hook. */
struct lat {
    struct lat_options opts;
    struct lat_result results[LAT_N_SWITCHES];

    struct bench_pair a, b;     /* The two namespaces' pairs. */
    char *bridge;               /* Name of the OVS bridges. */
    struct bench_ovs ovs_xdp;   /* Private ovs-vswitchd-xdp. */
    struct bench_ovs ovs_stock; /* Private Debian ovs-vswitchd. */
    struct bench_ovs *active;   /* Instance with the bridge, or NULL. */
};

static const struct eth_addr lat_a_mac = ETH_ADDR_C(02,6f,78,62,01,01);
static const struct eth_addr lat_b_mac = ETH_ADDR_C(02,6f,78,62,01,02);
#define LAT_A_IP "198.18.1.1"
#define LAT_B_IP "198.18.1.2"
#define LAT_MFLOW_PORT_BASE 1024    /* --megaflows: UDP ports from here
                                     * (BENCH_MAX_MEGAFLOWS fit). */
#define LAT_MFLOW_BURST 100         /* Datagrams between pauses... */
#define LAT_MFLOW_PAUSE 0.02        /* ...of this many seconds. */

static void
lat_usage(void)
{
    printf("\
%s latency: first packet of a new flow against later packets\n\
usage: %s latency [OPTION]...\n\
\n\
Pings from one network namespace to another through a bridge, each time\n\
after 'ovs-appctl revalidator/purge', and compares the first round trip\n\
(upcall, flow install, forwarding) with the later ones.  Needs root.\n\
\n\
Options:\n\
  --count=N              pings per repetition (default 10)\n\
  --repeat=K             repetitions per switch, each with fresh flows\n\
                         (default 10)\n\
  --interval=SECONDS     between pings (default 0.05)\n\
  --megaflows=N          N more megaflows in the datapath when the first\n\
                         packet comes: N OpenFlow rules on UDP ports, a\n\
                         datagram to each before every repetition\n\
  --masks=M              spread them over M masks (1 to 16, default 1)\n\
  --switches=LIST        comma-separated, from: ovs-xdp, ovs-system\n\
                         (default: both)\n\
  --vswitchd-xdp=PATH    ovs-vswitchd-xdp (default: the build tree's,\n\
                         or from $PATH)\n\
  --vswitchd=PATH        stock ovs-vswitchd (default %s)\n\
  --json=FILE            also write the results to FILE\n\
  -h, --help             display this help message\n",
           program_name, program_name, BENCH_STOCK_VSWITCHD);
}


static const char *
lat_switch_name(size_t i)
{
    return lat_switches[i].name;
}

static void
lat_parse_switches(struct lat *lat, const char *list)
{
    bool selected[LAT_N_SWITCHES];

    bench_select(list, lat_switch_name, LAT_N_SWITCHES, selected);
    for (size_t i = 0; i < LAT_N_SWITCHES; i++) {
        lat->results[i].selected = selected[i];
    }
}

static void
lat_parse_options(struct lat *lat, int argc, char *argv[])
{
    enum {
        OPT_COUNT = UCHAR_MAX + 1,
        OPT_REPEAT,
        OPT_INTERVAL,
        OPT_SWITCHES,
    };
    static const struct option long_options[] = {
        {"count", required_argument, NULL, OPT_COUNT},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"interval", required_argument, NULL, OPT_INTERVAL},
        {"switches", required_argument, NULL, OPT_SWITCHES},
        BENCH_MEGAFLOW_LONG_OPTIONS,
        BENCH_OVS_LONG_OPTIONS,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char *short_options = ovs_cmdl_long_options_to_short_options(long_options);
    struct lat_options *opts = &lat->opts;

    opts->count = 10;
    opts->repeat = 10;
    opts->interval = 0.05;
    for (size_t i = 0; i < LAT_N_SWITCHES; i++) {
        lat->results[i].selected = true;
    }

    for (;;) {
        int c = getopt_long(argc, argv, short_options, long_options, NULL);

        if (c == -1) {
            break;
        } else if (bench_ovs_parse_option(&opts->ovs, c, optarg)
                   || bench_megaflow_parse_option(&opts->mflow, c, optarg)) {
            continue;
        }
        switch (c) {
        case OPT_COUNT:
            opts->count = bench_parse_count("--count", optarg, 2, 10000);
            break;
        case OPT_REPEAT:
            opts->repeat = bench_parse_count("--repeat", optarg, 1, 10000);
            break;
        case OPT_INTERVAL:
            opts->interval = bench_parse_seconds("--interval", optarg,
                                                 0.002, 10);
            break;
        case OPT_SWITCHES:
            lat_parse_switches(lat, optarg);
            break;
        case 'h':
            lat_usage();
            exit(EXIT_SUCCESS);
        case '?':
            exit(EXIT_FAILURE);
        default:
            OVS_NOT_REACHED();
        }
    }
    free(short_options);
    bench_no_arguments("latency", argc, argv);
    bench_megaflow_options_finish(&opts->mflow);
    bench_ovs_options_finish(&opts->ovs);
}

/* Removes everything the benchmark built.  Runs at exit and on fatal
 * signals (fatal_signal_add_hook()), and is safe to run more than once. */
static void
lat_cleanup(void *lat_)
{
    struct lat *lat = lat_;

    if (lat->active) {
        bench_ovs_del_bridge(lat->active, lat->bridge);
        lat->active = NULL;
    }
    bench_ovs_destroy(&lat->ovs_xdp);
    bench_ovs_destroy(&lat->ovs_stock);
    bench_pair_destroy(&lat->a);
    bench_pair_destroy(&lat->b);
}

/* Builds the two namespaces, with static neighbour entries for each
 * other. */
static void
lat_setup(struct lat *lat)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    struct ds why = DS_EMPTY_INITIALIZER;
    int status;

    lat->bridge = xasprintf("%sbr%ld", BENCH_PREFIX, (long) getpid());
    if (bench_pair_create(&lat->a, "a", lat_a_mac, LAT_A_IP "/24", &why)
        || bench_pair_create(&lat->b, "b", lat_b_mac, LAT_B_IP "/24",
                             &why)) {
        ovs_fatal(0, "cannot build the topology: %s", ds_cstr(&why));
    }
    fprintf(stderr, "topology: namespaces %s, %s; veths %s, %s\n",
            lat->a.ns, lat->b.ns, lat->a.root_name, lat->b.root_name);
    status = bench_run(&output,
                       "nsenter --net=/run/netns/%s ip neigh replace %s "
                       "lladdr "ETH_ADDR_FMT" dev %s nud permanent"
                       " && nsenter --net=/run/netns/%s ip neigh replace %s "
                       "lladdr "ETH_ADDR_FMT" dev %s nud permanent",
                       lat->a.ns, LAT_B_IP, ETH_ADDR_ARGS(lat_b_mac),
                       lat->a.ns_name,
                       lat->b.ns, LAT_A_IP, ETH_ADDR_ARGS(lat_a_mac),
                       lat->b.ns_name);
    if (status) {
        bench_explain(&why, "ip neigh", status, &output);
        ovs_fatal(0, "cannot build the topology: %s", ds_cstr(&why));
    }
    ds_destroy(&output);
    ds_destroy(&why);

    bench_ovs_init(&lat->ovs_xdp, "ovs-vswitchd-xdp",
                   lat->opts.ovs.vswitchd_xdp, NULL);
    bench_ovs_init(&lat->ovs_stock, "Debian's ovs-vswitchd",
                   lat->opts.ovs.vswitchd_stock, NULL);
}

/* Pings 'count' times from namespace a to b and stores each echo's RTT in
 * milliseconds in 'rtts' (indexed by icmp_seq - 1), or -1 for an echo
 * without reply.  Returns the number of replies. */
static unsigned int
lat_ping(struct lat *lat, unsigned int count, double *rtts)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    unsigned int n_replies = 0;
    char *line, *save_ptr = NULL;

    for (unsigned int i = 0; i < count; i++) {
        rtts[i] = -1;
    }
    bench_run(&output, "nsenter --net=/run/netns/%s ping -n -c %u -i %g "
              "-W 1 %s", lat->a.ns, count, lat->opts.interval, LAT_B_IP);
    for (line = strtok_r(ds_cstr(&output), "\n", &save_ptr); line;
         line = strtok_r(NULL, "\n", &save_ptr)) {
        const char *seq_s = strstr(line, "icmp_seq=");
        const char *time_s = strstr(line, "time=");
        unsigned int seq;
        double ms;

        if (seq_s && time_s
            && sscanf(seq_s, "icmp_seq=%u", &seq) == 1
            && sscanf(time_s, "time=%lf", &ms) == 1
            && seq >= 1 && seq <= count && rtts[seq - 1] < 0) {
            rtts[seq - 1] = ms;
            n_replies++;
        }
    }
    ds_destroy(&output);
    return n_replies;
}

/* --megaflows: sends a datagram from namespace a to each rule's port, and
 * waits until the datapath of 'ovs' shows that many flows (at most 5 s),
 * then a second for the compiler.  Records in 'r' what it saw.  Returns 0
 * if successful, otherwise a positive errno value after explaining in
 * 'why'. */
static int
lat_fill_megaflows(struct lat *lat, struct bench_ovs *ovs,
                   struct lat_result *r, struct ds *why)
{
    unsigned int n = lat->opts.mflow.n_megaflows;
    struct sockaddr_in sin = { .sin_family = AF_INET };
    struct ds output = DS_EMPTY_INITIALIZER;
    long long int n_flows = -1, n_masks = -1;
    int saved_fd, error, fd;

    error = bench_netns_enter(lat->a.ns, &saved_fd);
    if (error) {
        ds_put_format(why, "cannot enter %s (%s)", lat->a.ns,
                      ovs_strerror(error));
        return error;
    }
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    error = fd < 0 ? errno : 0;
    bench_netns_leave(saved_fd);
    if (error) {
        ds_put_format(why, "UDP socket: %s", ovs_strerror(error));
        return error;
    }

    inet_pton(AF_INET, LAT_B_IP, &sin.sin_addr);
    for (unsigned int i = 0; i < n; i++) {
        sin.sin_port = htons(LAT_MFLOW_PORT_BASE + i);
        sendto(fd, "", 1, 0, (struct sockaddr *) &sin, sizeof sin);
        if (i % LAT_MFLOW_BURST == LAT_MFLOW_BURST - 1) {
            bench_sleep(LAT_MFLOW_PAUSE);
        }
    }
    close(fd);

    for (double deadline = bench_now() + 5; bench_now() < deadline; ) {
        ds_clear(&output);
        bench_ovs_run(ovs, &output, "ovs-appctl dpctl/show");
        n_flows = bench_find_count(ds_cstr(&output), "flows: ");
        n_masks = bench_find_count(ds_cstr(&output), "total:");
        if (n_flows >= n) {
            break;
        }
        bench_sleep(0.1);
    }
    ds_destroy(&output);
    bench_sleep(1);

    if (r->min_dp_flows < 0 || n_flows < r->min_dp_flows) {
        r->min_dp_flows = n_flows;
    }
    if (r->min_dp_masks < 0 || n_masks < r->min_dp_masks) {
        r->min_dp_masks = n_masks;
    }
    return 0;
}

/* Measures switch number 'idx'.  Returns 0 if successful, otherwise a
 * positive errno value after explaining in 'why'. */
static int
lat_measure(struct lat *lat, size_t idx, struct ds *why)
{
    const struct lat_switch *sw = &lat_switches[idx];
    struct lat_result *r = &lat->results[idx];
    struct bench_ovs *ovs = sw->xdp ? &lat->ovs_xdp : &lat->ovs_stock;
    const char *ports[] = { lat->a.root_name, lat->b.root_name };
    struct svec flows = SVEC_EMPTY_INITIALIZER;
    unsigned int count = lat->opts.count;
    double *rtts = xcalloc(count, sizeof *rtts);
    struct ds output = DS_EMPTY_INITIALIZER;
    int error;

    if (lat->opts.mflow.n_megaflows) {
        bench_megaflow_rules(&flows, lat->opts.mflow.n_megaflows,
                             lat->opts.mflow.n_masks, lat->a.root_name, LAT_A_IP,
                             "tp_dst", LAT_MFLOW_PORT_BASE,
                             lat->b.root_name);
        svec_add(&flows, "priority=0,actions=normal");
    } else {
        svec_add(&flows, "actions=normal");
    }
    r->min_dp_flows = r->min_dp_masks = -1;
    lat->active = ovs;
    error = bench_ovs_add_bridge(ovs, lat->bridge, sw->xdp ? "xdp" : "netdev",
                                 NULL, ports, ARRAY_SIZE(ports),
                                 (const char *const *) flows.names, flows.n,
                                 why);
    if (error) {
        goto out;
    }

    /* One ping first: the path must work, and the bridge learns where
     * both namespaces are, so that the measured first packets are not
     * flooded. */
    for (int i = 0; i < 10 && !lat_ping(lat, 1, rtts); i++) {
        bench_sleep(0.5);
    }
    if (rtts[0] < 0) {
        ds_put_format(why, "no ping crossed the bridge");
        error = EIO;
        goto out;
    }

    r->first = xcalloc(lat->opts.repeat, sizeof *r->first);
    r->later = xcalloc(lat->opts.repeat, sizeof *r->later);
    for (unsigned int k = 0; k < lat->opts.repeat; k++) {
        unsigned int n_replies;
        int status;

        ds_clear(&output);
        status = bench_ovs_run(ovs, &output, "ovs-appctl revalidator/purge");
        if (status) {
            bench_explain(why, "ovs-appctl revalidator/purge", status,
                          &output);
            error = EIO;
            goto out;
        }
        bench_sleep(0.1);
        if (lat->opts.mflow.n_megaflows) {
            error = lat_fill_megaflows(lat, ovs, r, why);
            if (error) {
                goto out;
            }
        }

        n_replies = lat_ping(lat, count, rtts);
        fatal_signal_run();
        r->n_lost += count - n_replies;
        if (rtts[0] < 0) {
            continue;
        }

        double *later = xmalloc((count - 1) * sizeof *later);
        size_t n_later = 0;
        for (unsigned int i = 1; i < count; i++) {
            if (rtts[i] >= 0) {
                later[n_later++] = rtts[i];
            }
        }
        if (n_later) {
            r->first[r->n] = rtts[0];
            r->later[r->n] = bench_median(later, n_later);
            r->n++;
        }
        free(later);
    }
    if (!r->n) {
        ds_put_format(why, "no repetition had both a first and a later "
                      "reply");
        error = EIO;
    }

out:
    bench_ovs_del_bridge(ovs, lat->bridge);
    lat->active = NULL;
    ds_destroy(&output);
    svec_destroy(&flows);
    free(rtts);
    return error;
}

static void
lat_print_table(const struct lat *lat)
{
    const struct lat_options *opts = &lat->opts;
    struct ds out = DS_EMPTY_INITIALIZER;

    ds_put_format(&out, "ovs-xdp-bench latency: ping -c %u -i %g from one "
                  "namespace to another through each switch,\n%u times, each "
                  "after ovs-appctl revalidator/purge (fresh flows); RTTs in "
                  "ms\n", opts->count, opts->interval, opts->repeat);
    if (opts->mflow.n_megaflows) {
        ds_put_format(&out, "with %u more megaflows over %u mask%s in the "
                      "datapath (--megaflows, --masks)\n", opts->mflow.n_megaflows,
                      opts->mflow.n_masks, opts->mflow.n_masks > 1 ? "s" : "");
    }
    ds_put_char(&out, '\n');
    ds_put_format(&out, "%-12s %9s %15s %9s %11s %11s %5s\n", "switch",
                  "first", "min-max", "later", "first-later", "first/later",
                  "lost");
    for (size_t i = 0; i < LAT_N_SWITCHES; i++) {
        const struct lat_result *r = &lat->results[i];

        if (!r->selected) {
            continue;
        }
        ds_put_format(&out, "%-12s", lat_switches[i].name);
        if (r->n) {
            double first = bench_median(r->first, r->n);
            double later = bench_median(r->later, r->n);
            char *range = xasprintf("%.3f-%.3f", bench_min(r->first, r->n),
                                    bench_max(r->first, r->n));

            ds_put_format(&out, " %9.3f %15s %9.3f %11.3f", first, range,
                          later, first - later);
            if (later > 0) {
                ds_put_format(&out, " %11.1f", first / later);
            } else {
                ds_put_format(&out, " %11s", "-");
            }
            ds_put_format(&out, " %5u", r->n_lost);
            free(range);
        }
        if (opts->mflow.n_megaflows && r->min_dp_flows >= 0) {
            ds_put_format(&out, "  (datapath before the pings: at least "
                          "%lld flows, ", r->min_dp_flows);
            if (r->min_dp_masks >= 0) {
                ds_put_format(&out, "%lld masks)", r->min_dp_masks);
            } else {
                ds_put_cstr(&out, "masks not shown)");
            }
        }
        if (r->skipped) {
            ds_put_format(&out, "%sskipped: %s", r->n ? "  " : " ",
                          r->skipped);
        }
        ds_put_char(&out, '\n');
    }
    ds_put_format(&out, "%-12s %9.3f  (reference from the literature, not "
                  "measured here)\n", "kernel-dp", LAT_KERNEL_REFERENCE_MS);

    ds_put_format(&out, "\nfirst: median over the repetitions of the first "
                  "RTT (echo request and reply\neach miss: upcall, flow "
                  "install, forwarding), min-max; later: median of each\n"
                  "repetition's median of the other RTTs; lost: echoes "
                  "without reply.\n");
    for (size_t i = 0; i < LAT_N_SWITCHES; i++) {
        if (lat->results[i].selected) {
            ds_put_format(&out, "  %-12s %s\n", lat_switches[i].name,
                          lat_switches[i].description);
        }
    }
    ds_put_format(&out, "  %-12s Open vSwitch's kernel module (not on this "
                  "machine): first packet about\n  %-12s %.1f ms as "
                  "published\n", "kernel-dp", "", LAT_KERNEL_REFERENCE_MS);
    fputs(ds_cstr(&out), stdout);
    fflush(stdout);
    ds_destroy(&out);
}

static struct json *
lat_json_array(const double *values, size_t n)
{
    struct json *array = json_array_create_empty();

    for (size_t i = 0; i < n; i++) {
        json_array_add(array, json_real_create(values[i]));
    }
    return array;
}

static void
lat_write_json(const struct lat *lat)
{
    const struct lat_options *opts = &lat->opts;
    struct json *top = json_object_create();
    struct json *switches = json_array_create_empty();

    json_object_put_string(top, "mode", "latency");
    json_object_put(top, "count", json_integer_create(opts->count));
    json_object_put(top, "repeat", json_integer_create(opts->repeat));
    json_object_put(top, "interval", json_real_create(opts->interval));
    json_object_put(top, "megaflows", json_integer_create(opts->mflow.n_megaflows));
    json_object_put(top, "masks", json_integer_create(opts->mflow.n_masks));
    json_object_put(top, "kernel_reference_first_ms",
                    json_real_create(LAT_KERNEL_REFERENCE_MS));
    for (size_t i = 0; i < LAT_N_SWITCHES; i++) {
        const struct lat_result *r = &lat->results[i];
        struct json *sw;

        if (!r->selected) {
            continue;
        }
        sw = json_object_create();
        json_object_put_string(sw, "name", lat_switches[i].name);
        json_object_put_string(sw, "description",
                               lat_switches[i].description);
        json_object_put(sw, "skipped", r->skipped
                        ? json_string_create(r->skipped)
                        : json_null_create());
        json_object_put(sw, "first_ms", lat_json_array(r->first, r->n));
        json_object_put(sw, "later_ms", lat_json_array(r->later, r->n));
        json_object_put(sw, "lost", json_integer_create(r->n_lost));
        if (opts->mflow.n_megaflows) {
            json_object_put(sw, "min_dp_flows",
                            json_integer_create(r->min_dp_flows));
            json_object_put(sw, "min_dp_masks",
                            json_integer_create(r->min_dp_masks));
        }
        if (r->n) {
            double first = bench_median(r->first, r->n);
            double later = bench_median(r->later, r->n);

            json_object_put(sw, "first_ms_median", json_real_create(first));
            json_object_put(sw, "later_ms_median", json_real_create(later));
            json_object_put(sw, "ratio", later > 0
                            ? json_real_create(first / later)
                            : json_null_create());
        }
        json_array_add(switches, sw);
    }
    json_object_put(top, "switches", switches);

    bench_write_json(top, opts->ovs.json_file);
}

int
bench_latency_main(int argc, char *argv[])
{
    static struct lat lat;
    size_t n_measured = 0;

    lat_parse_options(&lat, argc, argv);
    if (geteuid()) {
        ovs_fatal(0, "latency: must run as root (network namespaces and "
                  "XDP need it)");
    }
    fatal_signal_add_hook(lat_cleanup, NULL, &lat, true);
    lat_setup(&lat);

    for (size_t i = 0; i < LAT_N_SWITCHES; i++) {
        struct lat_result *r = &lat.results[i];
        struct ds why = DS_EMPTY_INITIALIZER;

        if (!r->selected) {
            continue;
        }
        fprintf(stderr, "%-12s ", lat_switches[i].name);
        fflush(stderr);
        if (lat_measure(&lat, i, &why)) {
            fatal_signal_run();
            r->skipped = ds_steal_cstr(&why);
            fprintf(stderr, "skipped: %s\n", r->skipped);
        } else {
            fprintf(stderr, "first %.3f ms, later %.3f ms\n",
                    bench_median(r->first, r->n),
                    bench_median(r->later, r->n));
            n_measured++;
        }
        ds_destroy(&why);
    }
    lat_cleanup(&lat);

    lat_print_table(&lat);
    if (lat.opts.ovs.json_file) {
        lat_write_json(&lat);
    }
    return n_measured ? 0 : 1;
}
