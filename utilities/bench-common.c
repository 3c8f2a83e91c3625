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

/* Helpers of the 'forward' and 'latency' benchmarks (see bench-common.h):
 * commands run through /bin/sh with their output captured, a clock and an
 * interruptible sleep, CPU time from /proc/stat, the median and spread of
 * a handful of runs, veth pairs into namespaces of their own, XDP programs
 * attached inside a namespace by entering it with setns() for the moment
 * of the call, private Open vSwitch instances, each an ovsdb-server and
 * an ovs-vswitchd in a temporary run directory, and OpenFlow tables that
 * give a datapath many megaflows over several masks. */

#include <config.h>

#include "utilities/bench-common.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fatal-signal.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "packets.h"
#include "svec.h"
#include "util.h"

/* Database schema of the stock Open vSwitch (openvswitch-common). */
#define BENCH_OVS_SCHEMA "/usr/share/openvswitch/vswitch.ovsschema"

/* Commands. */

/* Runs 'format' (a shell command) through /bin/sh with standard input from
 * /dev/null, and appends what it prints on standard output and standard
 * error to 'output', if 'output' is nonnull.  Returns the command's exit
 * status: 0 on success, 128 + N if signal N killed it, 127 if it could not
 * be run. */
int
bench_run(struct ds *output, const char *format, ...)
{
    char buf[4096];
    va_list args;
    char *command;
    int fds[2];
    int status;
    pid_t pid;

    va_start(args, format);
    command = xvasprintf(format, args);
    va_end(args);

    if (pipe2(fds, O_CLOEXEC)) {
        ovs_fatal(errno, "pipe");
    }
    pid = fork();
    if (pid < 0) {
        ovs_fatal(errno, "fork");
    }
    if (!pid) {
        int null = open("/dev/null", O_RDONLY);

        if (null >= 0) {
            dup2(null, STDIN_FILENO);
        }
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        execl("/bin/sh", "sh", "-c", command, (char *) NULL);
        _exit(127);
    }
    close(fds[1]);
    for (;;) {
        ssize_t n = read(fds[0], buf, sizeof buf);

        if (n > 0) {
            if (output) {
                ds_put_buffer(output, buf, n);
            }
        } else if (!n || errno != EINTR) {
            break;
        }
    }
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            ovs_fatal(errno, "waitpid");
        }
    }
    free(command);

    return (WIFEXITED(status) ? WEXITSTATUS(status)
            : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
            : 127);
}

/* Appends to 'why' that 'what' failed with exit 'status', followed by the
 * command's 'output' (if any) on one line. */
void
bench_explain(struct ds *why, const char *what, int status,
              const struct ds *output)
{
    if (!why) {
        return;
    }
    ds_put_format(why, "%s failed (exit status %d)", what, status);
    if (output && output->length) {
        struct ds line = DS_EMPTY_INITIALIZER;

        ds_put_cstr(&line, ds_cstr_ro(output));
        ds_chomp(&line, '\n');
        for (char *p = line.string; *p; p++) {
            if (*p == '\n') {
                *p = ' ';
            }
        }
        if (line.length > 300) {
            ds_truncate(&line, 300);
            ds_put_cstr(&line, "...");
        }
        ds_put_format(why, ": %s", ds_cstr(&line));
        ds_destroy(&line);
    }
}

/* Returns the absolute file name of the program 'name', which is taken as
 * is if it contains a slash and otherwise looked for on $PATH, or NULL if
 * there is no such executable.  The caller frees the result. */
char *
bench_find_program(const char *name)
{
    const char *path = getenv("PATH");
    char *copy, *dir, *save_ptr = NULL;
    char *found = NULL;

    if (strchr(name, '/')) {
        return !access(name, X_OK) ? abs_file_name(NULL, name) : NULL;
    }

    copy = xstrdup(path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (dir = strtok_r(copy, ":", &save_ptr); dir && !found;
         dir = strtok_r(NULL, ":", &save_ptr)) {
        char *file = xasprintf("%s/%s", *dir ? dir : ".", name);
        struct stat s;

        if (!stat(file, &s) && S_ISREG(s.st_mode) && !access(file, X_OK)) {
            found = abs_file_name(NULL, file);
        }
        free(file);
    }
    free(copy);
    return found;
}

/* Returns the first of 'candidates', paths relative to the directory of
 * this program, that is an executable, or else 'name' on $PATH, or NULL.
 * The caller frees the result. */
char *
bench_find_sibling(const char *const candidates[], size_t n,
                   const char *name)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);

    if (len > 0) {
        self[len] = '\0';
        char *dir = dir_name(self);

        for (size_t i = 0; i < n; i++) {
            char *file = xasprintf("%s/%s", dir, candidates[i]);

            if (!access(file, X_OK)) {
                free(dir);
                return file;
            }
            free(file);
        }
        free(dir);
    }
    return bench_find_program(name);
}

/* Returns where ovs-vswitchd-xdp most likely is: next to this program in
 * the build tree (utilities/ and ofproto-xdp/ are siblings there), next to
 * it once installed (bin/ and sbin/), or else on $PATH.  Returns NULL if
 * none is found.  The caller frees the result. */
char *
bench_default_vswitchd_xdp(void)
{
    static const char *const candidates[] = {
        "../ofproto-xdp/ovs-vswitchd-xdp",
        "../../ofproto-xdp/ovs-vswitchd-xdp",   /* From libtool's .libs. */
        "../sbin/ovs-vswitchd-xdp",
    };

    return bench_find_sibling(candidates, ARRAY_SIZE(candidates),
                              "ovs-vswitchd-xdp");
}

/* Time. */

/* Returns the time of a monotonic clock, in seconds. */
double
bench_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleeps for 'seconds', in steps short enough that a fatal signal (Ctrl-C)
 * is acted upon within 50 ms: fatal_signal_run() then runs the cleanup
 * hooks and ends the process. */
void
bench_sleep(double seconds)
{
    double deadline = bench_now() + seconds;

    for (;;) {
        double left;

        fatal_signal_run();
        left = deadline - bench_now();
        if (left <= 0) {
            break;
        }
        left = MIN(left, 0.05);

        struct timespec ts = {
            .tv_sec = (time_t) left,
            .tv_nsec = (long) ((left - (time_t) left) * 1e9),
        };
        nanosleep(&ts, NULL);
    }
    fatal_signal_run();
}

/* CPU time. */

/* Stores in '*cpu' the machine's CPU time so far, from the first line of
 * /proc/stat (all CPUs): time that is not idle or waiting for I/O counts
 * as busy, including interrupts and softirqs, where much of the work of a
 * software switch is done. */
void
bench_cpu_sample(struct bench_cpu *cpu)
{
    unsigned long long user = 0, nice = 0, system = 0, idle = 0;
    unsigned long long iowait = 0, irq = 0, softirq = 0, steal = 0;
    FILE *stream = fopen("/proc/stat", "re");

    if (!stream) {
        ovs_fatal(errno, "/proc/stat");
    }
    if (fscanf(stream, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
               &user, &nice, &system, &idle, &iowait, &irq, &softirq,
               &steal) < 4) {
        ovs_fatal(0, "/proc/stat: unexpected format");
    }
    fclose(stream);

    cpu->busy = user + nice + system + irq + softirq + steal;
    cpu->total = cpu->busy + idle + iowait;
}

/* Returns the CPU seconds, summed over all CPUs, that were busy between
 * samples 'before' and 'after'. */
double
bench_cpu_busy_seconds(const struct bench_cpu *before,
                       const struct bench_cpu *after)
{
    long ticks_per_second = sysconf(_SC_CLK_TCK);

    return (double) (after->busy - before->busy)
           / (ticks_per_second > 0 ? ticks_per_second : 100);
}

/* Statistics. */

static int
compare_doubles(const void *a_, const void *b_)
{
    const double *a = a_;
    const double *b = b_;

    return *a < *b ? -1 : *a > *b;
}

/* Returns the median of the 'n' 'values' (the mean of the middle two if
 * 'n' is even), 0 if 'n' is 0. */
/* Parses 'list', a comma-separated list of names, into 'selected': item i
 * of the 'n' that 'name' names is selected if it is in the list.  Exits
 * with a message on an unknown name. */
void
bench_select(const char *list, const char *(*name)(size_t i), size_t n,
             bool selected[])
{
    char *copy = xstrdup(list);
    char *token, *save_ptr = NULL;

    for (size_t i = 0; i < n; i++) {
        selected[i] = false;
    }
    for (token = strtok_r(copy, ",", &save_ptr); token;
         token = strtok_r(NULL, ",", &save_ptr)) {
        size_t i;

        for (i = 0; i < n && strcmp(token, name(i)); i++) {
            continue;
        }
        if (i >= n) {
            ovs_fatal(0, "--switches: unknown switch \"%s\" (use --help)",
                      token);
        }
        selected[i] = true;
    }
    free(copy);
}

void
bench_write_json(struct json *json, const char *file_name)
{
    char *s = json_to_string(json, JSSF_PRETTY | JSSF_SORT);

    if (!file_name) {
        puts(s);
        fflush(stdout);
    } else {
        FILE *stream = fopen(file_name, "w");

        if (!stream || fprintf(stream, "%s\n", s) < 0 || fclose(stream)) {
            ovs_error(errno, "%s: cannot write results", file_name);
        }
    }
    free(s);
    json_destroy(json);
}

unsigned long long
bench_parse_count(const char *option, const char *arg,
                  unsigned long long min, unsigned long long max)
{
    unsigned long long value;
    char *end;

    errno = 0;
    value = strtoull(arg, &end, 10);
    if (errno || end == arg || *end || *arg == '-'
        || value < min || value > max) {
        ovs_fatal(0, "%s: \"%s\" is not a number from %llu to %llu",
                  option, arg, min, max);
    }
    return value;
}

double
bench_parse_seconds(const char *option, const char *arg, double min,
                    double max)
{
    char *end;
    double value = strtod(arg, &end);

    if (end == arg || *end || !(value > 0) || value < min || value > max) {
        if (min > 0) {
            ovs_fatal(0, "%s: \"%s\" is not a number of seconds from %g "
                      "to %g", option, arg, min, max);
        }
        ovs_fatal(0, "%s: \"%s\" is not a number of seconds", option, arg);
    }
    return value;
}

/* If 'option' is one of BENCH_OVS_LONG_OPTIONS, stores its argument 'arg'
 * in 'opts' and returns true; otherwise returns false. */
bool
bench_ovs_parse_option(struct bench_ovs_options *opts, int option,
                       const char *arg)
{
    char **value;

    switch (option) {
    case BENCH_OPT_VSWITCHD_XDP:
        value = &opts->vswitchd_xdp;
        break;
    case BENCH_OPT_VSWITCHD:
        value = &opts->vswitchd_stock;
        break;
    case BENCH_OPT_JSON:
        value = &opts->json_file;
        break;
    default:
        return false;
    }
    free(*value);
    *value = xstrdup(arg);
    return true;
}

/* Fills in the defaults of the options in 'opts' that were not given:
 * ovs-vswitchd-xdp where bench_default_vswitchd_xdp() finds it, and
 * BENCH_STOCK_VSWITCHD. */
void
bench_ovs_options_finish(struct bench_ovs_options *opts)
{
    if (!opts->vswitchd_xdp) {
        opts->vswitchd_xdp = bench_default_vswitchd_xdp();
    }
    if (!opts->vswitchd_stock) {
        opts->vswitchd_stock = xstrdup(BENCH_STOCK_VSWITCHD);
    }
}

void
bench_no_arguments(const char *mode, int argc, char *argv[])
{
    if (optind < argc) {
        ovs_fatal(0, "%s: unexpected argument \"%s\" (use --help)", mode,
                  argv[optind]);
    }
}

/* Megaflows from OpenFlow rules: rule i matches UDP port 'base' + i
 * exactly in 'field', so ofproto's megaflow for each port matches it
 * exactly too and the datapath holds 'n' megaflows.  Their masks come from
 * the classifier's staged lookup, which un-wildcards the fields of every
 * subtable it looked into before the one that matched: the rules are
 * spread over 'm' groups, group j at priority BENCH_MFLOW_PRIORITY - j
 * also matching the IPv4 source on a prefix of 16 + j bits, so that a
 * packet whose rule is in group j was looked up in groups 0 to j and its
 * megaflow matches the source on 16 + j bits: one mask per group.  The
 * counts are ofproto's to make: callers read what the datapath holds
 * (dpctl/show). */
#define BENCH_MFLOW_PRIORITY 1000

void
bench_megaflow_rules(struct svec *flows, unsigned int n, unsigned int m,
                     const char *in_port, const char *src_ip,
                     const char *field, unsigned int base,
                     const char *out_port)
{
    for (unsigned int i = 0; i < n; i++) {
        unsigned int group = i % m;

        svec_add_nocopy(flows, xasprintf(
                            "priority=%u,udp,in_port=%s,nw_src=%s/%u,"
                            "%s=%u,actions=output:%s",
                            BENCH_MFLOW_PRIORITY - group, in_port, src_ip,
                            16 + group, field, base + i, out_port));
    }
}

/* Returns the number that follows 'label' in 's' (ovs-appctl's output),
 * or -1. */
long long int
bench_find_count(const char *s, const char *label)
{
    const char *p = strstr(s, label);
    long long int value;

    return (p && sscanf(p + strlen(label), "%lld", &value) == 1
            ? value : -1);
}

/* Takes 'option' with argument 'arg' into 'opts' if it is one of
 * BENCH_MEGAFLOW_LONG_OPTIONS; returns whether it was. */
bool
bench_megaflow_parse_option(struct bench_megaflow_options *opts, int option,
                            const char *arg)
{
    switch (option) {
    case BENCH_OPT_MEGAFLOWS:
        opts->n_megaflows = bench_parse_count("--megaflows", arg, 1,
                                              BENCH_MAX_MEGAFLOWS);
        return true;
    case BENCH_OPT_MASKS:
        opts->n_masks = bench_parse_count("--masks", arg, 1,
                                          BENCH_MAX_MASKS);
        return true;
    default:
        return false;
    }
}

/* Checks --megaflows and --masks together: --masks needs --megaflows, at
 * most one mask per megaflow; no --masks means one. */
void
bench_megaflow_options_finish(struct bench_megaflow_options *opts)
{
    if (opts->n_masks && !opts->n_megaflows) {
        ovs_fatal(0, "--masks goes with --megaflows");
    } else if (opts->n_megaflows) {
        opts->n_masks = MAX(opts->n_masks, 1);
        if (opts->n_masks > opts->n_megaflows) {
            ovs_fatal(0, "--masks: more masks (%u) than megaflows (%u)",
                      opts->n_masks, opts->n_megaflows);
        }
    }
}

double
bench_median(const double *values, size_t n)
{
    double *sorted, median;

    if (!n) {
        return 0;
    }
    sorted = xmemdup(values, n * sizeof *values);
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    free(sorted);
    return median;
}

/* Returns the least of the 'n' 'values', 0 if 'n' is 0. */
double
bench_min(const double *values, size_t n)
{
    double min = n ? values[0] : 0;

    for (size_t i = 1; i < n; i++) {
        min = MIN(min, values[i]);
    }
    return min;
}

/* Returns the greatest of the 'n' 'values', 0 if 'n' is 0. */
double
bench_max(const double *values, size_t n)
{
    double max = n ? values[0] : 0;

    for (size_t i = 1; i < n; i++) {
        max = MAX(max, values[i]);
    }
    return max;
}

/* Namespaces and veth pairs. */

/* Creates namespace BENCH_PREFIX-'role'-PID and a veth pair whose end
 * BENCH_PREFIX'role'PID stays in the root namespace and whose end "veth0",
 * with Ethernet address 'ns_mac' and, if 'ns_addr' is nonnull, IP address
 * 'ns_addr' ("10.0.0.1/24"), goes into the namespace.  Both ends are up.
 * 'role' is a short word, of at most 4 characters.
 *
 * Returns 0 if successful, otherwise a positive errno value after
 * explaining in 'why'.  Either way, bench_pair_destroy() removes what was
 * created. */
int
bench_pair_create(struct bench_pair *pair, const char *role,
                  struct eth_addr ns_mac, const char *ns_addr,
                  struct ds *why)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    long pid = getpid();
    int status;

    memset(pair, 0, sizeof *pair);
    pair->root_name = xasprintf("%s%s%ld", BENCH_PREFIX, role, pid);
    pair->ns = xasprintf("%s-%s-%ld", BENCH_PREFIX, role, pid);
    pair->ns_name = xstrdup("veth0");
    pair->ns_mac = ns_mac;

    status = bench_run(&output, "ip netns add %s", pair->ns);
    if (status) {
        bench_explain(why, "ip netns add", status, &output);
        goto error;
    }
    pair->created = true;

    status = bench_run(&output,
                       "ip link add %s type veth peer name %s address "
                       ETH_ADDR_FMT" netns %s"
                       " && ip link set %s up"
                       " && nsenter --net=/run/netns/%s ip link set lo up"
                       " && nsenter --net=/run/netns/%s ip link set %s up",
                       pair->root_name, pair->ns_name,
                       ETH_ADDR_ARGS(ns_mac), pair->ns,
                       pair->root_name, pair->ns, pair->ns, pair->ns_name);
    if (!status && ns_addr) {
        status = bench_run(&output,
                           "nsenter --net=/run/netns/%s ip addr add %s dev %s",
                           pair->ns, ns_addr, pair->ns_name);
    }
    if (status) {
        bench_explain(why, "creating veth pair", status, &output);
        goto error;
    }
    ds_destroy(&output);
    return 0;

error:
    ds_destroy(&output);
    return EIO;
}

/* Creates Linux bridge 'name' with the devices 'a' and 'b' as its ports,
 * and sets it up.  Returns 0, or EIO after explaining in 'why'. */
int
bench_linux_bridge_create(const char *name, const char *a, const char *b,
                          struct ds *why)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    int status;

    status = bench_run(&output, "ip link add %s type bridge"
                       " && ip link set %s master %s"
                       " && ip link set %s master %s"
                       " && ip link set %s up",
                       name, a, name, b, name, name);
    if (status) {
        bench_explain(why, "creating the Linux bridge", status, &output);
    }
    ds_destroy(&output);
    return status ? EIO : 0;
}

/* Removes the pair and its namespace, if they were created, and frees the
 * names.  Safe to call more than once. */
void
bench_pair_destroy(struct bench_pair *pair)
{
    if (pair->root_name) {
        bench_run(NULL, "ip link del %s", pair->root_name);
    }
    if (pair->created) {
        bench_run(NULL, "ip netns del %s", pair->ns);
        pair->created = false;
    }
    free(pair->root_name);
    free(pair->ns);
    free(pair->ns_name);
    pair->root_name = pair->ns = pair->ns_name = NULL;
}

/* Makes the calling thread enter network namespace 'ns' (a name under
 * /run/netns), and stores in '*saved_fd' a file descriptor for the
 * namespace it was in, to go back to with bench_netns_leave().  If 'ns' is
 * NULL, stays and stores -1.  Returns 0 if successful, otherwise a positive
 * errno value. */
int
bench_netns_enter(const char *ns, int *saved_fd)
{
    char *file;
    int fd, error;

    *saved_fd = -1;
    if (!ns) {
        return 0;
    }
    *saved_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (*saved_fd < 0) {
        return errno;
    }
    file = xasprintf("/run/netns/%s", ns);
    fd = open(file, O_RDONLY | O_CLOEXEC);
    free(file);
    error = fd < 0 || setns(fd, CLONE_NEWNET) ? errno : 0;
    if (fd >= 0) {
        close(fd);
    }
    if (error) {
        close(*saved_fd);
        *saved_fd = -1;
    }
    return error;
}

/* Takes the calling thread back to the namespace that bench_netns_enter()
 * saved in 'saved_fd'. */
void
bench_netns_leave(int saved_fd)
{
    if (saved_fd >= 0) {
        if (setns(saved_fd, CLONE_NEWNET)) {
            ovs_fatal(errno, "cannot return to the original namespace");
        }
        close(saved_fd);
    }
}

/* Removes the scratch namespace 'ns', with the devices in it, if
 * '*created', and clears '*created'. */
void
bench_netns_remove(const char *ns, bool *created)
{
    if (*created) {
        bench_run(NULL, "ip netns del %s", ns);
        *created = false;
    }
}

/* Detaches the XDP program of BPF link '*link_fd', if there is one, and
 * closes the link.  BPF_LINK_DETACH detaches the program before it
 * returns, and with it goes the program's dispatcher entry if this was its
 * last attachment; closing the link alone detaches only once the last
 * reference to the link goes, and anybody may hold one for a while
 * (bpftool link show does).  Returns 0 or a positive errno value; either
 * way, '*link_fd' is closed and set to -1. */
int
bench_link_detach(int *link_fd)
{
    int error;

    if (*link_fd < 0) {
        return 0;
    }
    error = bpf_link_detach(*link_fd) ? errno : 0;
    close(*link_fd);
    *link_fd = -1;
    return error;
}

/* Turns GRO on or off on 'ifname' in the calling thread's namespace.  On a
 * veth, GRO also gives the device NAPI, without which frames sent into
 * its pair by XDP (XDP_TX, bpf_redirect()) are dropped when no XDP program
 * is attached.  Returns 0 if successful, otherwise a positive errno
 * value. */
int
bench_set_gro(const char *ifname, bool on)
{
    struct ethtool_value value = { .cmd = ETHTOOL_SGRO, .data = on };
    struct ifreq ifr;
    int fd, error;

    fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return errno;
    }
    memset(&ifr, 0, sizeof ifr);
    ovs_strlcpy(ifr.ifr_name, ifname, sizeof ifr.ifr_name);
    ifr.ifr_data = (void *) &value;
    error = ioctl(fd, SIOCETHTOOL, &ifr) ? errno : 0;
    close(fd);
    return error;
}

/* Attaches 'prog' in native XDP mode to device 'ifname' of namespace 'ns'
 * (NULL: the caller's), through a BPF link: the program stays attached
 * until the link is destroyed, or the process ends.  Returns the link, or
 * NULL after explaining in 'why'. */
struct bpf_link *
bench_xdp_attach(const struct bpf_program *prog, const char *ns,
                 const char *ifname, struct ds *why)
{
    struct bpf_link *link = NULL;
    unsigned int ifindex;
    int saved_fd, error;

    error = bench_netns_enter(ns, &saved_fd);
    if (error) {
        ds_put_format(why, "cannot enter namespace %s (%s)",
                      ns, ovs_strerror(error));
        return NULL;
    }
    ifindex = if_nametoindex(ifname);
    if (!ifindex) {
        ds_put_format(why, "%s: no such device (%s)",
                      ifname, ovs_strerror(errno));
    } else {
        link = bpf_program__attach_xdp((struct bpf_program *) prog, ifindex);
        if (!link) {
            ds_put_format(why, "%s: cannot attach XDP program %s (%s)",
                          ifname, bpf_program__name(prog),
                          ovs_strerror(errno));
        }
    }
    bench_netns_leave(saved_fd);
    return link;
}

/* Attaches 'prog' at the TC ingress hook of 'ifname' in namespace 'ns',
 * creating the clsact qdisc; both go with the namespace.  Returns 0, or a
 * positive errno after explaining in 'why'. */
int
bench_tc_attach(const struct bpf_program *prog, const char *ns,
                const char *ifname, struct ds *why)
{
    int saved_fd, error;

    error = bench_netns_enter(ns, &saved_fd);
    if (error) {
        ds_put_format(why, "cannot enter namespace %s (%s)",
                      ns, ovs_strerror(error));
        return error;
    }
    LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = if_nametoindex(ifname),
                .attach_point = BPF_TC_INGRESS);
    LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = bpf_program__fd(prog));
    if (!hook.ifindex) {
        error = errno;
        ds_put_format(why, "%s: no such device (%s)", ifname,
                      ovs_strerror(error));
    } else {
        error = bpf_tc_hook_create(&hook);
        if (error == -EEXIST) {
            error = 0;
        }
        if (!error) {
            error = bpf_tc_attach(&hook, &opts);
        }
        error = -error;
        if (error) {
            ds_put_format(why, "%s: cannot attach TC program %s (%s)",
                          ifname, bpf_program__name(prog),
                          ovs_strerror(error));
        }
    }
    bench_netns_leave(saved_fd);
    return error;
}

/* Makes sure that no XDP program is left on 'ifname', in the root
 * namespace, after the switch named 'after' is gone: a switch that left
 * one would change what the next switch measures.  Warns about and
 * detaches any program found. */
void
bench_xdp_clear(const char *ifname, const char *after)
{
    unsigned int ifindex = if_nametoindex(ifname);
    __u32 prog_id = 0;

    if (!ifindex || bpf_xdp_query_id(ifindex, 0, &prog_id) || !prog_id) {
        return;
    }
    ovs_error(0, "%s: XDP program %"PRIu32" is still attached after %s, "
              "detaching it", ifname, prog_id, after);
    int error = bpf_xdp_detach(ifindex, 0, NULL);
    if (error) {
        ovs_error(-error, "%s: cannot detach XDP program %"PRIu32,
                  ifname, prog_id);
    }
}

/* Transmits the 'size'-byte Ethernet frame 'frame' on 'ifname' in
 * namespace 'ns' (NULL: the caller's), through a packet socket.  Returns 0
 * if successful, otherwise a positive errno value. */
int
bench_send_frame(const char *ns, const char *ifname,
                 const void *frame, size_t size)
{
    struct sockaddr_ll sll;
    int saved_fd, fd, error;

    error = bench_netns_enter(ns, &saved_fd);
    if (error) {
        return error;
    }
    memset(&sll, 0, sizeof sll);
    sll.sll_family = AF_PACKET;
    sll.sll_ifindex = if_nametoindex(ifname);
    sll.sll_halen = 6;
    memcpy(sll.sll_addr, frame, 6);

    fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        error = errno;
    } else {
        if (sendto(fd, frame, size, 0, (struct sockaddr *) &sll,
                   sizeof sll) < 0) {
            error = errno;
        }
        close(fd);
    }
    bench_netns_leave(saved_fd);
    return error;
}

/* Private Open vSwitch instances. */

/* Initialises 'ovs' to run 'vswitchd' (a file name, or NULL if none was
 * found), called 'label' in messages, with 'other_config' ("key=value") set
 * in the Open_vSwitch table before it starts, if nonnull.  Nothing runs
 * until bench_ovs_start(). */
void
bench_ovs_init(struct bench_ovs *ovs, const char *label,
               const char *vswitchd, const char *other_config)
{
    memset(ovs, 0, sizeof *ovs);
    ovs->label = label;
    ovs->vswitchd = nullable_xstrdup(vswitchd);
    ovs->other_config = nullable_xstrdup(other_config);
}

/* Runs 'format', a command of the Open vSwitch tools, with OVS_RUNDIR and
 * friends pointing into 'ovs''s run directory, as bench_run() does. */
int
bench_ovs_run(const struct bench_ovs *ovs, struct ds *output,
              const char *format, ...)
{
    va_list args;
    char *command;
    int status;

    va_start(args, format);
    command = xvasprintf(format, args);
    va_end(args);

    status = bench_run(output, "OVS_RUNDIR=%s OVS_LOGDIR=%s OVS_DBDIR=%s "
                       "OVS_SYSCONFDIR=%s OVS_XDP_PIN_ROOT=%s %s", ovs->dir,
                       ovs->dir, ovs->dir, ovs->dir, ovs->pin_root, command);
    free(command);
    return status;
}

/* Reads the 'n' counters 'names' of the ovs-appctl command 'command' (a
 * "name: value" per line, as dpif-xdp/stats-show and
 * dpif-netdev/pmd-stats-show print them) of 'ovs' into '*values[i]', each
 * summed over the lines that show it (one per datapath or thread), or -1
 * if none does. */
void
bench_ovs_counters(const struct bench_ovs *ovs, const char *command,
                   const char *const names[], long long *const values[],
                   size_t n)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    char *line, *save_ptr = NULL;

    for (size_t i = 0; i < n; i++) {
        *values[i] = -1;
    }
    if (bench_ovs_run(ovs, &output, "ovs-appctl --timeout=10 %s", command)) {
        ds_destroy(&output);
        return;
    }
    for (line = strtok_r(ds_cstr(&output), "\n", &save_ptr); line;
         line = strtok_r(NULL, "\n", &save_ptr)) {
        const char *s = line + strspn(line, " ");

        for (size_t i = 0; i < n; i++) {
            size_t len = strlen(names[i]);
            long long value;

            if (!strncmp(s, names[i], len) && s[len] == ':'
                && sscanf(s + len + 1, "%lld", &value) == 1) {
                *values[i] = MAX(*values[i], 0) + value;
            }
        }
    }
    ds_destroy(&output);
}

/* Appends the last few warnings and errors of 'ovs''s ovs-vswitchd log to
 * 'why'. */
static void
bench_ovs_put_log_tail(const struct bench_ovs *ovs, struct ds *why)
{
    struct ds output = DS_EMPTY_INITIALIZER;

    bench_run(&output, "grep -E '\\|(WARN|ERR|EMER)\\|' "
              "%s/ovs-vswitchd.log | tail -n 2 | cut -d'|' -f3-", ovs->dir);
    ds_chomp(&output, '\n');
    if (output.length) {
        for (char *p = output.string; *p; p++) {
            if (*p == '\n') {
                *p = ';';
            }
        }
        ds_put_format(why, " (log: %s)", ds_cstr(&output));
    }
    ds_destroy(&output);
}

/* Whether process 'pid' runs.  kill(pid, 0) also succeeds on a zombie, and
 * a daemon that detached is reaped by init, which on some machines does so
 * seconds after the daemon exits. */
static bool
bench_pid_alive(long pid)
{
    char name[64], buf[512];
    const char *state;
    ssize_t n;
    int fd;

    snprintf(name, sizeof name, "/proc/%ld/stat", pid);
    fd = open(name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) {
        return false;
    }
    buf[n] = '\0';
    /* "pid (comm) state ...": the command may hold spaces and ')'. */
    state = strrchr(buf, ')');
    return state && state[1] == ' ' && state[2] != 'Z' && state[2] != 'X';
}

/* Waits up to 5 seconds for the daemon whose pid file is 'pidfile' to end,
 * then kills it. */
static void
bench_ovs_wait_pidfile(const char *pidfile)
{
    FILE *stream = fopen(pidfile, "re");
    long pid = 0;

    if (!stream) {
        return;
    }
    if (fscanf(stream, "%ld", &pid) != 1 || pid <= 0) {
        fclose(stream);
        return;
    }
    fclose(stream);
    for (int i = 0; i < 50 && bench_pid_alive(pid); i++) {
        struct timespec ts = { .tv_nsec = 100 * 1000 * 1000 };

        nanosleep(&ts, NULL);
    }
    if (bench_pid_alive(pid)) {
        ovs_error(0, "%s: pid %ld did not exit, killing it", pidfile, pid);
        kill(pid, SIGKILL);
    }
}

/* Starts 'ovs': a run directory, a database, ovsdb-server and
 * ovs-vswitchd.  Only the first call tries; later calls report the first
 * one's outcome.  Returns 0 if 'ovs' runs, otherwise a positive errno value
 * after explaining in 'why'. */
int
bench_ovs_start(struct bench_ovs *ovs, struct ds *why)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    struct ds error = DS_EMPTY_INITIALIZER;
    char *template, *link;
    int status;

    if (ovs->tried) {
        if (ovs->error) {
            ds_put_cstr(why, ovs->error);
            return EIO;
        }
        return 0;
    }
    ovs->tried = true;
    ovs->libxdp_dir = !access(BENCH_LIBXDP_DIR, F_OK);

    if (!ovs->vswitchd) {
        ds_put_format(&error, "no %s binary was found", ovs->label);
        goto error;
    }
    if (access(ovs->vswitchd, X_OK)) {
        ds_put_format(&error, "%s: %s", ovs->vswitchd,
                      ovs_strerror(errno));
        goto error;
    }
    if (access(BENCH_OVS_SCHEMA, R_OK)) {
        ds_put_format(&error, "%s: %s (install openvswitch-common)",
                      BENCH_OVS_SCHEMA, ovs_strerror(errno));
        goto error;
    }

    template = xasprintf("/tmp/%s-ovs-%ld.XXXXXX", BENCH_PREFIX,
                         (long) getpid());
    if (!mkdtemp(template)) {
        ds_put_format(&error, "%s: %s", template, ovs_strerror(errno));
        free(template);
        goto error;
    }
    ovs->dir = template;
    /* bpffs refuses names with a dot, so not the run directory's. */
    static int n_pin_roots;
    ovs->pin_root = xasprintf("/sys/fs/bpf/%s-pin-%ld-%d", BENCH_PREFIX,
                              (long) getpid(), n_pin_roots++);

    /* Run it under the name 'ovs-vswitchd', as utilities/quickstart.sh
     * does, so that its pid file and control socket are where ovs-appctl
     * looks by default. */
    link = xasprintf("%s/bin", ovs->dir);
    mkdir(link, 0755);
    free(link);
    link = xasprintf("%s/bin/ovs-vswitchd", ovs->dir);
    if (symlink(ovs->vswitchd, link)) {
        ds_put_format(&error, "%s: %s", link, ovs_strerror(errno));
        free(link);
        goto error;
    }
    free(link);

    status = bench_ovs_run(ovs, &output, "ovsdb-tool create %s/conf.db %s",
                           ovs->dir, BENCH_OVS_SCHEMA);
    if (status) {
        bench_explain(&error, "ovsdb-tool create", status, &output);
        goto error;
    }
    status = bench_ovs_run(ovs, &output,
                           "ovsdb-server --detach --no-chdir --pidfile "
                           "--log-file -vconsole:off "
                           "--remote=punix:%s/db.sock", ovs->dir);
    if (status) {
        bench_explain(&error, "ovsdb-server", status, &output);
        goto error;
    }
    status = bench_ovs_run(ovs, &output, "ovs-vsctl --no-wait init");
    if (!status && ovs->other_config) {
        status = bench_ovs_run(ovs, &output, "ovs-vsctl --no-wait set "
                               "Open_vSwitch . other_config:%s",
                               ovs->other_config);
    }
    if (status) {
        bench_explain(&error, "ovs-vsctl", status, &output);
        goto error;
    }
    status = bench_ovs_run(ovs, &output,
                           "%s/bin/ovs-vswitchd --detach --no-chdir "
                           "--pidfile --log-file -vconsole:off "
                           "--disable-system", ovs->dir);
    if (status) {
        bench_explain(&error, ovs->label, status, &output);
        bench_ovs_put_log_tail(ovs, &error);
        goto error;
    }
    ds_destroy(&output);
    ds_destroy(&error);
    return 0;

error:
    ovs->error = ds_steal_cstr(&error);
    ds_put_cstr(why, ovs->error);
    ds_destroy(&output);
    bench_ovs_stop(ovs);
    return EIO;
}

/* Stops 'ovs''s daemons, if they run, and removes its run directory.  Safe
 * to call more than once. */
void
bench_ovs_stop(struct bench_ovs *ovs)
{
    static const char *const daemons[] = { "ovs-vswitchd", "ovsdb-server" };

    if (!ovs->dir) {
        return;
    }
    for (size_t i = 0; i < ARRAY_SIZE(daemons); i++) {
        char *pidfile = xasprintf("%s/%s.pid", ovs->dir, daemons[i]);

        if (!access(pidfile, F_OK)) {
            /* "exit --cleanup" makes ovs-vswitchd remove its datapaths and
             * with them whatever it attached to the ports. */
            bench_ovs_run(ovs, NULL, "ovs-appctl --timeout=10 -t %s exit%s",
                          daemons[i], i == 0 ? " --cleanup" : "");
            bench_ovs_wait_pidfile(pidfile);
        }
        free(pidfile);
    }
    bench_run(NULL, "rm -rf %s %s", ovs->dir, ovs->pin_root);
    if (!ovs->libxdp_dir) {
        rmdir(BENCH_LIBXDP_DIR);    /* Only if empty. */
    }
    free(ovs->dir);
    free(ovs->pin_root);
    ovs->dir = ovs->pin_root = NULL;
}

/* Stops 'ovs' and frees what it holds. */
void
bench_ovs_destroy(struct bench_ovs *ovs)
{
    bench_ovs_stop(ovs);
    free(ovs->vswitchd);
    free(ovs->other_config);
    free(ovs->error);
    ovs->vswitchd = ovs->other_config = ovs->error = NULL;
}

/* More flows than this go to ovs-ofctl in one file. */
#define BENCH_FLOWS_ONE_BY_ONE 16

/* Starts 'ovs' if needed and adds bridge 'bridge' with 'datapath_type',
 * fail-mode secure (no flow but 'flows'), the 'n_ports' 'ports' (of
 * Interface type 'port_type', NULL for system ports) and the 'n_flows'
 * OpenFlow 'flows'.  Checks that every port was opened.  Returns 0 if
 * successful, otherwise a positive errno value after explaining in 'why';
 * either way, bench_ovs_del_bridge() removes the bridge. */
int
bench_ovs_add_bridge(struct bench_ovs *ovs, const char *bridge,
                     const char *datapath_type, const char *port_type,
                     const char *const ports[], size_t n_ports,
                     const char *const flows[], size_t n_flows,
                     struct ds *why)
{
    struct ds command = DS_EMPTY_INITIALIZER;
    struct ds output = DS_EMPTY_INITIALIZER;
    int error = bench_ovs_start(ovs, why);
    int status;

    if (error) {
        return error;
    }

    ds_put_format(&command, "ovs-vsctl --timeout=30 -- add-br %s -- set "
                  "bridge %s datapath_type=%s fail-mode=secure "
                  "other-config:disable-in-band=true",
                  bridge, bridge, datapath_type);
    for (size_t i = 0; i < n_ports; i++) {
        ds_put_format(&command, " -- add-port %s %s", bridge, ports[i]);
        if (port_type) {
            ds_put_format(&command, " -- set interface %s type=%s",
                          ports[i], port_type);
        }
    }
    status = bench_ovs_run(ovs, &output, "%s", ds_cstr(&command));
    if (status) {
        bench_explain(why, "ovs-vsctl add-br", status, &output);
        error = EIO;
        goto out;
    }

    for (size_t i = 0; i < n_ports; i++) {
        int ofport;

        ds_clear(&output);
        status = bench_ovs_run(ovs, &output,
                               "ovs-vsctl get interface %s ofport", ports[i]);
        if (status || sscanf(ds_cstr(&output), "%d", &ofport) != 1
            || ofport <= 0) {
            ds_clear(&output);
            bench_ovs_run(ovs, &output, "ovs-vsctl get interface %s error",
                          ports[i]);
            ds_chomp(&output, '\n');
            ds_put_format(why, "%s could not add %s%s%s as a port: %s",
                          ovs->label, port_type ? port_type : "",
                          port_type ? " port " : "", ports[i],
                          ds_cstr(&output));
            error = EIO;
            goto out;
        }
    }

    if (n_flows > BENCH_FLOWS_ONE_BY_ONE) {
        /* One ovs-ofctl for all of them (ovs-xdp-bench forward
         * --megaflows), through a file in the run directory. */
        char *file = xasprintf("%s/flows.txt", ovs->dir);
        FILE *stream = fopen(file, "w");

        if (!stream) {
            ds_put_format(why, "%s: %s", file, ovs_strerror(errno));
            free(file);
            error = EIO;
            goto out;
        }
        for (size_t i = 0; i < n_flows; i++) {
            fprintf(stream, "%s\n", flows[i]);
        }
        fclose(stream);
        ds_clear(&output);
        status = bench_ovs_run(ovs, &output, "ovs-ofctl add-flows %s %s",
                               bridge, file);
        free(file);
        if (status) {
            bench_explain(why, "ovs-ofctl add-flows", status, &output);
            error = EIO;
            goto out;
        }
        n_flows = 0;
    }
    for (size_t i = 0; i < n_flows; i++) {
        ds_clear(&output);
        status = bench_ovs_run(ovs, &output, "ovs-ofctl add-flow %s '%s'",
                               bridge, flows[i]);
        if (status) {
            bench_explain(why, "ovs-ofctl add-flow", status, &output);
            error = EIO;
            goto out;
        }
    }

out:
    ds_destroy(&command);
    ds_destroy(&output);
    return error;
}

/* Removes bridge 'bridge' from 'ovs', if 'ovs' runs and has it, and the
 * device of its local port, if one is left. */
void
bench_ovs_del_bridge(struct bench_ovs *ovs, const char *bridge)
{
    if (ovs->dir) {
        bench_ovs_run(ovs, NULL, "ovs-vsctl --timeout=30 --if-exists del-br "
                      "%s", bridge);
    }
    bench_run(NULL, "ip link show %s >/dev/null 2>&1 && ip link del %s",
              bridge, bridge);
}
