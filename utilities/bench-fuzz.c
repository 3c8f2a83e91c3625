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

/* ovs-xdp-bench fuzz: a differential fuzzer of the xdp datapath against
 * Open vSwitch's own userspace datapath (dpif-netdev).
 *
 * This mode builds the sandbox: one private ovsdb-server and
 * ovs-vswitchd-xdp (bench_ovs_start()), which serves both datapath types;
 * the daemon runs in a network namespace of its own, "oxb-fzs-<pid>",
 * because dpif-netdev makes a tap device named "ovs-netdev" for its
 * datapath, a name that any other userspace datapath on the machine (a
 * test's, a benchmark's) needs too.  Only the network namespace changes
 * (nsenter --net), so that the daemon still sees the machine's bpffs.  The daemon has two bridges,
 * "oxbfzn<pid>" of datapath_type=netdev (the reference) and "oxbfzx<pid>"
 * of datapath_type=xdp (under test), each with the same number of ports.
 * Every port is a veth pair whose far end sits in a namespace of its own
 * (bench_pair_create()), quietened so that nothing but the fuzzer's frames
 * crosses it: IPv6 off, no address, no ARP, no GRO.  The fuzzing itself
 * (random tables, random frames, the comparison of what leaves every
 * port) is the script ovs-xdp-fuzz, installed next to this program, which
 * this mode runs with the sandbox's OVS_RUNDIR and whose exit status it
 * returns.  Everything is removed at the end, on ovs_fatal() and on
 * SIGINT or SIGTERM (the fatal_signal hook). */

#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "command-line.h"
#include "fatal-signal.h"
#include "openvswitch/dynamic-string.h"
#include "packets.h"
#include "util.h"
#include "utilities/bench-common.h"
#include "utilities/ovs-xdp-bench.h"

/* Ports of each bridge, at most. */
#define FUZZ_MAX_PORTS 8

/* Options, with the script's own passed through as they are. */
struct fuzz_options {
    unsigned int n_ports;       /* Ports of each bridge. */
    char *vswitchd_xdp;         /* ovs-vswitchd-xdp binary. */
    char *script;               /* ovs-xdp-fuzz script. */
    char *xdp_mode;             /* other_config:xdp-mode of the xdp
                                 * bridge's ports, or NULL for the
                                 * default. */
    struct ds script_args;      /* Options for the script. */
};

/* What the mode built, for its cleanup. */
struct fuzz {
    struct fuzz_options opts;
    struct bench_ovs ovs;       /* The private Open vSwitch. */
    struct bench_pair netdev_ports[FUZZ_MAX_PORTS]; /* Reference bridge's. */
    struct bench_pair xdp_ports[FUZZ_MAX_PORTS];    /* xdp bridge's. */
    char *switch_ns;            /* Namespace of ovs-vswitchd-xdp and of
                                 * the switch side of every veth pair. */
    bool switch_ns_created;     /* 'switch_ns' made, to be removed. */
    char *wrapper;              /* Script that starts ovs-vswitchd-xdp in
                                 * 'switch_ns'. */
    char *netdev_bridge;        /* Name of the reference bridge. */
    char *xdp_bridge;           /* Name of the bridge under test. */
    pid_t child;                /* The script while it runs, else 0. */
};

static void
fuzz_usage(void)
{
    printf("\
%s fuzz: the xdp datapath against dpif-netdev, frame for frame\n\
usage: %s fuzz [OPTION]...\n\
\n\
Puts the same random OpenFlow table on a netdev bridge and an xdp bridge\n\
of one ovs-vswitchd-xdp, sends the same random frames (valid and\n\
mutated) into both, and compares, per port and byte for byte, the frames\n\
that leave them.  Prints every mismatch and a summary line; exits with 1\n\
if anything differed.  Needs root.\n\
\n\
Options:\n\
  --frames=N             frames to send into each bridge (default 100000)\n\
  --seed=S               seed of the random tables and frames (default:\n\
                         random, printed)\n\
  --ports=N              ports of each bridge, 2 to %d (default 4)\n\
  --batch=N              frames sent between comparisons (default 32)\n\
  --flows=N              rules in table 0 of each table (default 24)\n\
  --table-frames=N       frames through each random table (default 2000)\n\
  --progress=SECONDS     print progress this often (default: never)\n\
  --xdp-mode=MODE        other_config:xdp-mode of the xdp ports (auto,\n\
                         native, generic, best-effort; default: auto)\n\
  --vswitchd-xdp=PATH    ovs-vswitchd-xdp (default: the build tree's, or\n\
                         from $PATH)\n\
  --script=PATH          ovs-xdp-fuzz (default: next to this program, or\n\
                         from $PATH)\n\
  -h, --help             display this help message\n\
Options after \"--\" are passed to the script (see ovs-xdp-fuzz --help),\n\
for example \"-- --replay=FILE\" to replay the mismatches in FILE.\n",
           program_name, program_name, FUZZ_MAX_PORTS);
}

/* Returns where the ovs-xdp-fuzz script most likely is: next to this
 * program (in the build tree's utilities/ or, from libtool's .libs, one
 * level up; installed, in the same bin/), or else on $PATH. */
static char *
fuzz_default_script(void)
{
    static const char *const candidates[] = {
        "ovs-xdp-fuzz",
        "../ovs-xdp-fuzz",
    };

    return bench_find_sibling(candidates, ARRAY_SIZE(candidates),
                              "ovs-xdp-fuzz");
}


static void
fuzz_parse_options(struct fuzz_options *opts, int argc, char *argv[])
{
    enum {
        OPT_FRAMES = UCHAR_MAX + 1,
        OPT_SEED,
        OPT_PORTS,
        OPT_BATCH,
        OPT_FLOWS,
        OPT_TABLE_FRAMES,
        OPT_PROGRESS,
        OPT_XDP_MODE,
        OPT_VSWITCHD_XDP,
        OPT_SCRIPT,
    };
    static const struct option long_options[] = {
        {"frames", required_argument, NULL, OPT_FRAMES},
        {"seed", required_argument, NULL, OPT_SEED},
        {"ports", required_argument, NULL, OPT_PORTS},
        {"batch", required_argument, NULL, OPT_BATCH},
        {"flows", required_argument, NULL, OPT_FLOWS},
        {"table-frames", required_argument, NULL, OPT_TABLE_FRAMES},
        {"progress", required_argument, NULL, OPT_PROGRESS},
        {"xdp-mode", required_argument, NULL, OPT_XDP_MODE},
        {"vswitchd-xdp", required_argument, NULL, OPT_VSWITCHD_XDP},
        {"script", required_argument, NULL, OPT_SCRIPT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char *short_options = ovs_cmdl_long_options_to_short_options(long_options);
    unsigned long long frames = 100000;

    opts->n_ports = 4;
    ds_init(&opts->script_args);
    for (;;) {
        int c = getopt_long(argc, argv, short_options, long_options, NULL);

        if (c == -1) {
            break;
        }
        switch (c) {
        case OPT_FRAMES:
            frames = bench_parse_count("--frames", optarg, 1, 1000000000);
            break;
        case OPT_SEED:
            ds_put_format(&opts->script_args, " --seed=%llu",
                          bench_parse_count("--seed", optarg, 0,
                                            UINT32_MAX));
            break;
        case OPT_PORTS:
            opts->n_ports = bench_parse_count("--ports", optarg, 2,
                                              FUZZ_MAX_PORTS);
            break;
        case OPT_BATCH:
            ds_put_format(&opts->script_args, " --batch=%llu",
                          bench_parse_count("--batch", optarg, 1, 256));
            break;
        case OPT_FLOWS:
            ds_put_format(&opts->script_args, " --flows=%llu",
                          bench_parse_count("--flows", optarg, 1, 1000));
            break;
        case OPT_TABLE_FRAMES:
            ds_put_format(&opts->script_args, " --table-frames=%llu",
                          bench_parse_count("--table-frames", optarg, 1,
                                            1000000000));
            break;
        case OPT_PROGRESS:
            ds_put_format(&opts->script_args, " --progress=%llu",
                          bench_parse_count("--progress", optarg, 1,
                                            86400));
            break;
        case OPT_XDP_MODE:
            if (strcmp(optarg, "auto") && strcmp(optarg, "native")
                && strcmp(optarg, "generic")
                && strcmp(optarg, "best-effort")) {
                ovs_fatal(0, "--xdp-mode: \"%s\" is not auto, native, "
                          "generic or best-effort", optarg);
            }
            free(opts->xdp_mode);
            opts->xdp_mode = xstrdup(optarg);
            break;
        case OPT_VSWITCHD_XDP:
            free(opts->vswitchd_xdp);
            opts->vswitchd_xdp = xstrdup(optarg);
            break;
        case OPT_SCRIPT:
            free(opts->script);
            opts->script = xstrdup(optarg);
            break;
        case 'h':
            fuzz_usage();
            exit(EXIT_SUCCESS);
        case '?':
            exit(EXIT_FAILURE);
        default:
            OVS_NOT_REACHED();
        }
    }
    free(short_options);
    for (; optind < argc; optind++) {
        /* After "--": the script's own options. */
        char *arg = xasprintf("'%s'", argv[optind]);

        if (strchr(argv[optind], '\'')) {
            ovs_fatal(0, "fuzz: \"%s\": quotes are not allowed",
                      argv[optind]);
        }
        ds_put_format(&opts->script_args, " %s", arg);
        free(arg);
    }
    ds_put_format(&opts->script_args, " --frames=%llu", frames);
    if (!opts->vswitchd_xdp) {
        opts->vswitchd_xdp = bench_default_vswitchd_xdp();
    }
    if (!opts->script) {
        opts->script = fuzz_default_script();
        if (!opts->script) {
            ovs_fatal(0, "fuzz: the ovs-xdp-fuzz script was found neither "
                      "next to this program nor on $PATH (use --script)");
        }
    }
}

/* Removes everything the mode built.  Runs at exit and on fatal signals,
 * and is safe to run more than once. */
static void
fuzz_cleanup(void *fuzz_)
{
    struct fuzz *fuzz = fuzz_;

    if (fuzz->child > 0) {
        kill(fuzz->child, SIGTERM);
        waitpid(fuzz->child, NULL, 0);
        fuzz->child = 0;
    }
    if (fuzz->netdev_bridge) {
        bench_ovs_del_bridge(&fuzz->ovs, fuzz->netdev_bridge);
    }
    if (fuzz->xdp_bridge) {
        bench_ovs_del_bridge(&fuzz->ovs, fuzz->xdp_bridge);
    }
    bench_ovs_destroy(&fuzz->ovs);
    for (size_t i = 0; i < FUZZ_MAX_PORTS; i++) {
        /* Deleting the far end's namespace deletes the pair, whose switch
         * side is in 'switch_ns'. */
        bench_pair_destroy(&fuzz->netdev_ports[i]);
        bench_pair_destroy(&fuzz->xdp_ports[i]);
    }
    if (fuzz->switch_ns) {
        bench_netns_remove(fuzz->switch_ns, &fuzz->switch_ns_created);
    }
    if (fuzz->wrapper) {
        unlink(fuzz->wrapper);
        free(fuzz->wrapper);
        fuzz->wrapper = NULL;
    }
}

/* Makes the switch's namespace, with IPv6 off for every device that will
 * be in it, and the script that starts ovs-vswitchd-xdp there, which
 * becomes the daemon that bench_ovs_start() runs. */
static void
fuzz_switch_ns_create(struct fuzz *fuzz)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    struct ds why = DS_EMPTY_INITIALIZER;
    long pid = getpid();
    FILE *stream;
    int status;

    fuzz->switch_ns = xasprintf("%s-fzs-%ld", BENCH_PREFIX, pid);
    status = bench_run(&output, "ip netns add %s", fuzz->switch_ns);
    if (status) {
        bench_explain(&why, "ip netns add", status, &output);
        ovs_fatal(0, "cannot build the topology: %s", ds_cstr(&why));
    }
    fuzz->switch_ns_created = true;
    status = bench_run(&output, "nsenter --net=/run/netns/%s sh -c '"
                       "ip link set lo up"
                       " && sysctl -qw net.ipv6.conf.all.disable_ipv6=1"
                       " && sysctl -qw net.ipv6.conf.default.disable_ipv6=1'",
                       fuzz->switch_ns);
    if (status) {
        bench_explain(&why, "setting up the switch's namespace", status,
                      &output);
        ovs_fatal(0, "cannot build the topology: %s", ds_cstr(&why));
    }

    fuzz->wrapper = xasprintf("/tmp/%s-fzs-%ld.sh", BENCH_PREFIX, pid);
    stream = fopen(fuzz->wrapper, "we");
    if (!stream) {
        ovs_fatal(errno, "%s", fuzz->wrapper);
    }
    /* Named "ovs-vswitchd" (exec -a), so that its pid file and control
     * socket are where bench_ovs_start() and ovs-appctl look. */
    fprintf(stream, "#! /bin/bash\n"
            "# ovs-vswitchd-xdp in the namespace of ovs-xdp-bench fuzz.\n"
            "exec nsenter --net=/run/netns/%s /bin/bash -c "
            "'exec -a ovs-vswitchd \"$0\" \"$@\"' %s \"$@\"\n",
            fuzz->switch_ns, fuzz->opts.vswitchd_xdp);
    if (fclose(stream) || chmod(fuzz->wrapper, 0755)) {
        ovs_fatal(errno, "%s", fuzz->wrapper);
    }
    ds_destroy(&output);
    ds_destroy(&why);
}

/* Makes veth pair 'pair' with its far end in a namespace of its own and
 * the switch side in the switch's namespace, and quietens both ends:
 * whatever crosses the pair must be the fuzzer's. */
static void
fuzz_pair_create(const struct fuzz *fuzz, struct bench_pair *pair,
                 const char *role, struct eth_addr mac)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    struct ds why = DS_EMPTY_INITIALIZER;
    int status;

    if (bench_pair_create(pair, role, mac, NULL, &why)) {
        ovs_fatal(0, "cannot build the topology: %s", ds_cstr(&why));
    }
    status = bench_run(&output,
                       "ip link set %s netns %s"
                       " && nsenter --net=/run/netns/%s sh -c '"
                       "sysctl -qw net.ipv6.conf.%s.disable_ipv6=1"
                       " && ip link set %s arp off"
                       " && ip link set %s up'"
                       " && nsenter --net=/run/netns/%s sh -c '"
                       "sysctl -qw net.ipv6.conf.all.disable_ipv6=1"
                       " && sysctl -qw net.ipv6.conf.%s.disable_ipv6=1"
                       " && ip link set %s arp off"
                       " && { ethtool -K %s gro off 2>/dev/null || :; }'",
                       pair->root_name, fuzz->switch_ns, fuzz->switch_ns,
                       pair->root_name, pair->root_name, pair->root_name,
                       pair->ns, pair->ns_name, pair->ns_name, pair->ns_name);
    if (status) {
        bench_explain(&why, "quietening the veth pair", status, &output);
        ovs_fatal(0, "cannot build the topology: %s", ds_cstr(&why));
    }
    ds_destroy(&output);
    ds_destroy(&why);
}

/* Adds bridge 'name' of 'datapath_type' with 'pairs' as its ports. */
static void
fuzz_add_bridge(struct fuzz *fuzz, const char *name,
                const char *datapath_type, struct bench_pair pairs[])
{
    const char *ports[FUZZ_MAX_PORTS];
    struct ds output = DS_EMPTY_INITIALIZER;
    struct ds why = DS_EMPTY_INITIALIZER;
    int status;

    for (size_t i = 0; i < fuzz->opts.n_ports; i++) {
        ports[i] = pairs[i].root_name;
    }
    if (bench_ovs_add_bridge(&fuzz->ovs, name, datapath_type, NULL, ports,
                             fuzz->opts.n_ports, NULL, 0, &why)) {
        if (fuzz->ovs.dir) {
            bench_run(&output, "grep -E '\\|(WARN|ERR|EMER)\\|' "
                      "%s/ovs-vswitchd.log | tail -n 5", fuzz->ovs.dir);
        }
        ovs_fatal(0, "cannot add bridge %s: %s\n%s", name, ds_cstr(&why),
                  ds_cstr(&output));
    }
    /* OpenFlow 1.5 for the groups' selection_method. */
    status = bench_ovs_run(&fuzz->ovs, &output,
                           "ovs-vsctl set bridge %s protocols=OpenFlow10,"
                           "OpenFlow13,OpenFlow15", name);
    for (size_t i = 0; !status && i < fuzz->opts.n_ports; i++) {
        if (!strcmp(datapath_type, "xdp") && fuzz->opts.xdp_mode) {
            status = bench_ovs_run(&fuzz->ovs, &output,
                                   "ovs-vsctl set interface %s "
                                   "other_config:xdp-mode=%s",
                                   ports[i], fuzz->opts.xdp_mode);
        }
    }
    if (status) {
        bench_explain(&why, "ovs-vsctl set", status, &output);
        ovs_fatal(0, "cannot configure bridge %s: %s", name, ds_cstr(&why));
    }
    ds_destroy(&output);
    ds_destroy(&why);
}

/* Appends to 'args' the script's --bridge option for 'bridge'. */
static void
fuzz_put_bridge_arg(const struct fuzz *fuzz, struct ds *args,
                    const char *bridge, const struct bench_pair pairs[])
{
    ds_put_format(args, " --bridge=%s=", bridge);
    for (size_t i = 0; i < fuzz->opts.n_ports; i++) {
        ds_put_format(args, "%s%s@%s", i ? "," : "", pairs[i].root_name,
                      pairs[i].ns);
    }
}

/* Runs the script in the sandbox and returns its exit status. */
static int
fuzz_run_script(struct fuzz *fuzz)
{
    struct ds command = DS_EMPTY_INITIALIZER;
    int status;

    ds_put_format(&command, "exec %s --dir=%s --peer=%s%s", fuzz->opts.script,
                  fuzz->ovs.dir, fuzz->netdev_ports[0].ns_name,
                  ds_cstr(&fuzz->opts.script_args));
    fuzz_put_bridge_arg(fuzz, &command, fuzz->netdev_bridge,
                        fuzz->netdev_ports);
    fuzz_put_bridge_arg(fuzz, &command, fuzz->xdp_bridge, fuzz->xdp_ports);

    fflush(stdout);
    fflush(stderr);
    fuzz->child = fork();
    if (fuzz->child < 0) {
        ovs_fatal(errno, "fork");
    }
    if (!fuzz->child) {
        setenv("OVS_RUNDIR", fuzz->ovs.dir, 1);
        setenv("OVS_LOGDIR", fuzz->ovs.dir, 1);
        setenv("OVS_DBDIR", fuzz->ovs.dir, 1);
        setenv("OVS_SYSCONFDIR", fuzz->ovs.dir, 1);
        setenv("OVS_XDP_PIN_ROOT", fuzz->ovs.pin_root, 1);
        execl("/bin/sh", "sh", "-c", ds_cstr(&command), (char *) NULL);
        _exit(127);
    }
    ds_destroy(&command);

    for (;;) {
        pid_t pid = waitpid(fuzz->child, &status, WNOHANG);

        if (pid == fuzz->child) {
            break;
        } else if (pid < 0 && errno != EINTR) {
            ovs_fatal(errno, "waitpid");
        }
        /* Notices SIGINT and SIGTERM, whose hook ends the script. */
        bench_sleep(0.1);
    }
    fuzz->child = 0;
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    fprintf(stderr, "fuzz: %s ended by signal %d\n", fuzz->opts.script,
            WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return 2;
}

int
bench_fuzz_main(int argc, char *argv[])
{
    static struct fuzz fuzz;
    long pid = getpid();
    int status;

    fuzz_parse_options(&fuzz.opts, argc, argv);
    if (geteuid()) {
        ovs_fatal(0, "fuzz: must run as root (network namespaces and XDP "
                  "need it)");
    }
    if (!fuzz.opts.vswitchd_xdp) {
        ovs_fatal(0, "fuzz: no ovs-vswitchd-xdp binary was found (use "
                  "--vswitchd-xdp)");
    }
    fatal_signal_add_hook(fuzz_cleanup, NULL, &fuzz, true);
    fuzz_switch_ns_create(&fuzz);
    bench_ovs_init(&fuzz.ovs, "ovs-vswitchd-xdp", fuzz.wrapper, NULL);

    for (size_t i = 0; i < fuzz.opts.n_ports; i++) {
        struct eth_addr mac = ETH_ADDR_C(02,6f,78,62,00,00);
        char role[8];

        mac.ea[5] = i + 1;
        snprintf(role, sizeof role, "fn%c", (char) ('a' + i));
        fuzz_pair_create(&fuzz, &fuzz.netdev_ports[i], role, mac);
        mac.ea[4] = 1;
        snprintf(role, sizeof role, "fx%c", (char) ('a' + i));
        fuzz_pair_create(&fuzz, &fuzz.xdp_ports[i], role, mac);
    }
    fprintf(stderr, "topology: namespaces %s, %s, %s and the like; "
            "bridges oxbfzn%ld (netdev), oxbfzx%ld (xdp), %u ports each\n",
            fuzz.switch_ns, fuzz.netdev_ports[0].ns, fuzz.xdp_ports[0].ns,
            pid, pid, fuzz.opts.n_ports);

    fuzz.netdev_bridge = xasprintf("%sfzn%ld", BENCH_PREFIX, pid);
    fuzz_add_bridge(&fuzz, fuzz.netdev_bridge, "netdev", fuzz.netdev_ports);
    fuzz.xdp_bridge = xasprintf("%sfzx%ld", BENCH_PREFIX, pid);
    fuzz_add_bridge(&fuzz, fuzz.xdp_bridge, "xdp", fuzz.xdp_ports);

    status = fuzz_run_script(&fuzz);
    fuzz_cleanup(&fuzz);
    return status;
}
