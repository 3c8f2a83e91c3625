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

/* ovs-xdp-bench forward: the stream and one measurement.
 *
 * The stream is one frame, built here for the pipeline
 * (fwd_put_frame(): Ethernet, IPv4 and UDP, FWD_FRAME_SIZE bytes; the
 * tunnel pipelines wrap it in bench-forward-tnl.c), which each generator
 * thread (bench-generator.c) sends with BPF_PROG_TEST_RUN live frames
 * through its own instance of datapath/bench-gen.bpf.c: the program
 * rewrites the UDP source port per frame within the generator's share of
 * the flows and counts what it sent.  The sink program counts the
 * stream's frames per CPU in a BPF array that fwd_read_sink_cpus() reads.
 *
 * fwd_measure() is one run of one switch in one pipeline: it sets the
 * switch up (bench-forward-switch.c), sends learning frames, establishes
 * the connections of a stateful pipeline (bench-forward-ct.c), starts the
 * generators, warms up, then takes a snapshot of the counters (sink,
 * generators, /proc/stat, and each pipeline's own datapath counters),
 * sleeps --duration seconds, takes another, has the sink check the
 * headers for FWD_CHECK_TIME seconds, stops the generators and takes the
 * switch down.  The differences between the two snapshots become one
 * entry of the result's per-run arrays, and what the switch told about
 * its datapath its 'state_note'. */

#include <config.h>

#include "utilities/bench-forward.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "csum.h"
#include "openvswitch/dynamic-string.h"
#include "packets.h"
#include "util.h"
#include "utilities/bench-common.h"
#include "utilities/bench-generator.h"

#include "datapath/bench-gen.skel.h"
#include "datapath/bench-sink.skel.h"

/* Returns the IPv4 address 's', a dotted quad that is known to parse. */
ovs_be32
fwd_ip(const char *s)
{
    ovs_be32 ip;

    ovs_assert(ip_parse(s, &ip));
    return ip;
}

/* Writes into 'frame' a FWD_FRAME_SIZE-byte IPv4 UDP frame from 'eth_src',
 * 'ip_src' and port 'sport' to 'eth_dst', 'ip_dst' and port 'dport', with
 * TTL 64, no UDP checksum and zero padding. */
void
fwd_put_frame(uint8_t *frame, struct eth_addr eth_src,
              struct eth_addr eth_dst, const char *ip_src,
              const char *ip_dst, uint16_t sport, uint16_t dport)
{
    fwd_put_frame_sized(frame, FWD_FRAME_SIZE, eth_src, eth_dst, ip_src,
                        ip_dst, sport, dport);
}

/* The same for a frame of 'size' bytes (a tunnel's outer headers, with
 * the payload left zero for the caller). */
void
fwd_put_frame_sized(uint8_t *frame, size_t size, struct eth_addr eth_src,
                    struct eth_addr eth_dst, const char *ip_src,
                    const char *ip_dst, uint16_t sport, uint16_t dport)
{
    struct eth_header *eth = (struct eth_header *) frame;
    struct ip_header *ip = (struct ip_header *) (eth + 1);
    struct udp_header *udp = (struct udp_header *) (ip + 1);
    size_t ip_len = size - sizeof *eth;

    memset(frame, 0, size);
    eth->eth_dst = eth_dst;
    eth->eth_src = eth_src;
    eth->eth_type = htons(ETH_TYPE_IP);

    ip->ip_ihl_ver = IP_IHL_VER(5, IP_VERSION);
    ip->ip_tot_len = htons(ip_len);
    ip->ip_frag_off = htons(IP_DONT_FRAGMENT);
    ip->ip_ttl = 64;
    ip->ip_proto = IPPROTO_UDP;
    put_16aligned_be32(&ip->ip_src, fwd_ip(ip_src));
    put_16aligned_be32(&ip->ip_dst, fwd_ip(ip_dst));
    ip->ip_csum = csum(ip, sizeof *ip);

    udp->udp_src = htons(sport);
    udp->udp_dst = htons(dport);
    udp->udp_len = htons(ip_len - sizeof *ip);
}

/* Returns the address that the generator sends the stream to in pipeline
 * 'p'. */
const char *
fwd_stream_dst(enum fwd_pipeline p)
{
    return p == FWD_CONNTRACK_DNAT ? FWD_VIP : FWD_SINK_IP;
}

/* Builds the stream's frame of pipeline 'p' in 'fwd->frame': from the
 * generator's veth end to the sink's, IPv4 from FWD_GEN_IP to the sink's
 * address or FWD_VIP, UDP from FWD_UDP_SPORT_BASE (which the generator
 * changes per flow) to FWD_UDP_DPORT. */
static void
fwd_build_frame(struct fwd *fwd, enum fwd_pipeline p)
{
    fwd_put_frame(fwd->frame, fwd_gen_mac, fwd_sink_mac, FWD_GEN_IP,
                  fwd_stream_dst(p), FWD_UDP_SPORT_BASE, FWD_UDP_DPORT);
    fwd->frame_size = FWD_FRAME_SIZE;
}

/* Sends a frame from the sink's veth end to the generator's, so that a
 * switch that learns MAC addresses knows which port leads to the sink. */
static void
fwd_send_learning_frame(struct fwd *fwd)
{
    uint8_t frame[60];
    struct eth_header *eth = (struct eth_header *) frame;

    memset(frame, 0, sizeof frame);
    eth->eth_dst = fwd_gen_mac;
    eth->eth_src = fwd_sink_mac;
    eth->eth_type = htons(0x88b5);      /* Local experimental EtherType. */
    bench_send_frame(fwd->sink.ns, fwd->sink.ns_name, frame, sizeof frame);
}

/* The generator threads (bench-generator.c). */

/* Loads a generator program for the frames of pipeline 'p', whose frame
 * is in 'fwd->frame', sending 'n_flows' flows from UDP source port
 * FWD_UDP_SPORT_BASE + 'first'.  Exits on failure. */
static struct bench_gen *
fwd_generator_load(struct fwd *fwd, enum fwd_pipeline p, unsigned int first,
                   unsigned int n_flows)
{
    const struct ip_header *ip = (const struct ip_header *)
        (fwd->frame + sizeof(struct eth_header));
    struct bench_gen *skel = bench_gen__open();

    if (!skel) {
        ovs_fatal(errno, "cannot open the generator program");
    }
    skel->rodata->n_flows = n_flows;
    skel->rodata->sport_base = FWD_UDP_SPORT_BASE + first;
    if (bench_gen__load(skel)) {
        ovs_fatal(errno, "cannot load the generator program");
    }

    /* The program writes these into every frame (see bench-gen.bpf.c). */
    skel->bss->ip_daddr = get_16aligned_be32(&ip->ip_dst);
    skel->bss->ip_csum = ip->ip_csum;
    skel->bss->ip_saddr = get_16aligned_be32(&ip->ip_src);
    skel->bss->new_conns = p == FWD_CONNTRACK_SETUP;
    return skel;
}

/* Starts 'n' generators of pipeline 'p', each on its CPU with its share of
 * the flows (bench-forward-cpus.c). */
static void
fwd_generators_start(struct fwd *fwd, enum fwd_pipeline p, size_t n)
{
    ovs_assert(!fwd->n_generators && n <= fwd->opts.n_gen_cpus);
    for (size_t k = 0; k < n; k++) {
        struct bench_generator *gen = &fwd->generators[k];
        unsigned int first, n_flows;
        char *name;

        fwd_cpus_flow_share(fwd->opts.n_flows, n, k, &first, &n_flows);
        fwd->gen_skels[k] = fwd_generator_load(fwd, p, first, n_flows);
        fwd->n_generators = k + 1;

        gen->prog_fd = bpf_program__fd(fwd->gen_skels[k]->progs.bench_gen);
        gen->ns = fwd->gen.ns;
        gen->ifname = fwd->gen.ns_name;
        gen->cpu = fwd->opts.gen_cpus[k];
        gen->nice = 0;
        gen->batch_size = fwd->opts.batch_size;
        gen->frame = fwd->frame;
        gen->frame_size = fwd->frame_size;
        name = xasprintf("generator%zu", k);
        bench_generator_start(gen, name);
        free(name);
    }
}

/* Stops the generators that run, if any, and destroys their programs.
 * Returns 0 if they ran without error, otherwise the first one's positive
 * errno value after explaining in 'why', if 'why' is nonnull. */
int
fwd_generators_stop(struct fwd *fwd, struct ds *why)
{
    int error = 0;

    for (size_t k = 0; k < fwd->n_generators; k++) {
        int gen_error = bench_generator_stop(&fwd->generators[k],
                                             error ? NULL : why);

        error = error ? error : gen_error;
        bench_gen__destroy(fwd->gen_skels[k]);
        fwd->gen_skels[k] = NULL;
    }
    fwd->n_generators = 0;
    return error;
}

/* Returns the frames that the running generators offered so far. */
static unsigned long long
fwd_generators_sent(const struct fwd *fwd)
{
    unsigned long long sent = 0;

    for (size_t k = 0; k < fwd->n_generators; k++) {
        sent += *(volatile __u64 *) &fwd->gen_skels[k]->bss->n_sent;
    }
    return sent;
}


/* Measuring. */

/* The CPUs whose sink counts a snapshot keeps. */
#define FWD_SNAPSHOT_CPUS FWD_MAX_GENERATORS

/* Counters at one moment. */
struct fwd_snapshot {
    double time;                /* bench_now(). */
    unsigned long long sink;    /* Stream frames counted by the sink... */
    unsigned long long sink_cpus[FWD_SNAPSHOT_CPUS];  /* ...on each CPU. */
    unsigned long long sent;    /* Frames offered by the generators. */
    struct bench_cpu cpu;       /* CPU time of the machine. */
};

/* Returns the sink's counter 'idx', summed over the CPUs. */
unsigned long long
fwd_read_sink(const struct fwd *fwd, enum bench_sink_counter idx)
{
    return fwd_read_sink_cpus(fwd, idx, NULL, 0);
}

/* Returns the sink's counter 'idx', summed over the CPUs, and stores the
 * counts of the first 'n' CPUs in 'per_cpu' (zero for CPUs that are not
 * possible). */
unsigned long long
fwd_read_sink_cpus(const struct fwd *fwd, enum bench_sink_counter idx,
                   unsigned long long *per_cpu, size_t n)
{
    int n_cpus = libbpf_num_possible_cpus();
    uint64_t *values = xcalloc(MAX(n_cpus, 1), sizeof *values);
    int map_fd = bpf_map__fd(fwd->sink_skel->maps.bench_sink_counts);
    uint32_t key = idx;
    unsigned long long sum = 0;

    if (bpf_map_lookup_elem(map_fd, &key, values)) {
        ovs_fatal(errno, "cannot read the sink's counters");
    }
    for (int i = 0; i < n_cpus; i++) {
        sum += values[i];
    }
    for (size_t i = 0; i < n; i++) {
        per_cpu[i] = (int) i < n_cpus ? values[i] : 0;
    }
    free(values);
    return sum;
}

static void
fwd_snapshot(const struct fwd *fwd, struct fwd_snapshot *s)
{
    s->time = bench_now();
    s->sink = fwd_read_sink_cpus(fwd, BENCH_SINK_STREAM, s->sink_cpus,
                                 FWD_SNAPSHOT_CPUS);
    s->sent = fwd_generators_sent(fwd);
    bench_cpu_sample(&s->cpu);
}

/* Has the sink check the headers of the stream's frames (see
 * datapath/bench-sink.bpf.c) for FWD_CHECK_TIME seconds, while the
 * generator runs, adds what it found to 'r' and complains, naming 'what',
 * about frames that failed. */
static void
fwd_check_headers(struct fwd *fwd, const char *what, struct fwd_result *r)
{
    volatile __u32 *check = &fwd->sink_skel->bss->check_headers;
    unsigned long long checked, bad;

    checked = fwd_read_sink(fwd, BENCH_SINK_CHECKED);
    bad = fwd_read_sink(fwd, BENCH_SINK_BAD);
    *check = 1;
    bench_sleep(FWD_CHECK_TIME);
    *check = 0;
    checked = fwd_read_sink(fwd, BENCH_SINK_CHECKED) - checked;
    bad = fwd_read_sink(fwd, BENCH_SINK_BAD) - bad;

    r->n_checked += checked;
    r->n_bad += bad;
    if (bad) {
        ovs_error(0, "%s: %llu of %llu frames checked at the sink had a "
                  "wrong destination address, IPv4 checksum or UDP "
                  "checksum", what, bad, checked);
    }
}

/* One run of switch number 'idx' in pipeline 'p' with the generators of
 * count number 'c': sets it up, measures, takes it down and adds the run
 * to its results.  Returns 0 if successful, otherwise a positive errno
 * value after explaining in 'why'. */
int
fwd_measure(struct fwd *fwd, size_t c, size_t idx, enum fwd_pipeline p,
            struct ds *why)
{
    const struct fwd_switch *sw = &fwd_switches[idx];
    struct fwd_result *r = &fwd->results[c][idx][p];
    size_t n_gens = fwd->opts.cpu_counts[c];
    bool stateful = fwd_pipeline_is_stateful(p);
    bool xdp_ct = stateful && sw->kind == FWD_OVS_XDP;
    bool xdp_monitor = ((p == FWD_SFLOW || p == FWD_METER)
                        && sw->kind == FWD_OVS_XDP);
    bool tunnel = fwd_pipeline_is_tunnel(p) && sw->kind != FWD_FLOOR;
    bool xdp_tnl = tunnel && sw->kind == FWD_OVS_XDP;
    bool mflow = (fwd->opts.mflow.n_megaflows && !sw->normal
                  && (sw->kind == FWD_OVS_XDP || sw->kind == FWD_OVS_STOCK));
    struct fwd_megaflow_counts mflow_before;
    struct fwd_monitor_counts mon_before, mon_after;
    struct fwd_tnl_counts tnl_before, tnl_after;
    struct fwd_ct_counts ct_before, ct_after;
    struct fwd_snapshot before, after;
    struct ds note = DS_EMPTY_INITIALIZER;
    char *what;
    int cached = -1;
    int error;

    fwd_build_frame(fwd, p);
    error = fwd_switch_setup(fwd, sw, p, r, why);
    if (error) {
        return error;
    }
    if (sw->kind == FWD_OVS_XDP && !r->note) {
        r->note = fwd_ovs_xdp_tx_mode(fwd);
    }
    if (tunnel) {
        /* Encapsulated frames go to the switch's own address. */
        fwd_tnl_build_frame(fwd, p);
    }
    fwd_tnl_set_sink(fwd, tunnel ? p : FWD_STATELESS);

    /* Learning frames before and while the generator starts: the first
     * may come before the switch listens on its ports. */
    fwd_send_learning_frame(fwd);
    if (fwd_pipeline_establishes(p)) {
        fwd_establish(fwd, p, &note);
        if (xdp_ct) {
            cached = fwd_ovs_xdp_cached(fwd);
        }
    }
    fwd_generators_start(fwd, p, n_gens);
    if (xdp_tnl) {
        double waited = fwd_tnl_wait_compiled(fwd, p);

        if (waited < 0) {
            ovs_error(0, "ovs-xdp %s: no code for the tunnel action in "
                      "XDP after 10 s", fwd_pipeline_names[p]);
        } else {
            ds_put_format(&note, "program with the tunnel action's code "
                          "running %.1f s after the stream started",
                          waited);
        }
    }
    for (int i = 0; i < 5; i++) {
        bench_sleep(fwd->opts.warmup / 5);
        fwd_send_learning_frame(fwd);
    }

    if (xdp_ct) {
        fwd_ovs_xdp_ct_counts(fwd, &ct_before);
    }
    if (xdp_monitor) {
        fwd_monitor_counts(fwd, &mon_before);
    }
    if (xdp_tnl) {
        fwd_tnl_counts(fwd, &tnl_before);
    }
    if (mflow) {
        fwd_megaflow_counts(fwd, sw, &mflow_before);
    }
    fwd_snapshot(fwd, &before);
    bench_sleep(fwd->opts.duration);
    fwd_snapshot(fwd, &after);
    if (xdp_tnl) {
        fwd_tnl_counts(fwd, &tnl_after);
        fwd_tnl_put_slow_flows(fwd, &tnl_before, &tnl_after);
    }
    if (xdp_ct) {
        fwd_ovs_xdp_ct_counts(fwd, &ct_after);
    }
    if (xdp_monitor) {
        fwd_monitor_counts(fwd, &mon_after);
    }

    what = xasprintf("%s %s", sw->name, fwd_pipeline_names[p]);
    fwd_check_headers(fwd, what, r);
    free(what);
    if (stateful && sw->kind == FWD_LINUX_BRIDGE) {
        ds_put_format(&note, "\nnftables counters: %lld frames "
                      "established, %lld new, %lld dropped",
                      bench_nft_counter(fwd->nft_table, "est"),
                      bench_nft_counter(fwd->nft_table, "opened"),
                      bench_nft_counter(fwd->nft_table, "dropped"));
    } else if (stateful) {
        fwd_ovs_put_ct_flows(fwd, sw, &note);
    }
    if (p == FWD_CONNTRACK_SETUP && sw->kind != FWD_LINUX_BRIDGE) {
        struct ds output = DS_EMPTY_INITIALIZER;

        if (!bench_ovs_run(fwd_switch_ovs(fwd, sw), &output,
                           "ovs-appctl dpctl/ct-get-nconns")) {
            ds_chomp(&output, '\n');
            ds_put_format(&note, "\nconnections in the tracker at the end: "
                          "%s", ds_cstr(&output));
        }
        ds_destroy(&output);
    }
    if (mflow) {
        struct fwd_megaflow_counts mflow_after;

        fwd_megaflow_counts(fwd, sw, &mflow_after);
        fwd_megaflow_note(fwd, sw, &mflow_before, &mflow_after, &note);
    }

    error = fwd_generators_stop(fwd, why);
    fwd_switch_teardown(fwd, sw);
    if (error) {
        ds_destroy(&note);
        return error;
    }

    double seconds = after.time - before.time;
    unsigned long long frames = after.sink - before.sink;
    double busy = bench_cpu_busy_seconds(&before.cpu, &after.cpu);

    if (xdp_ct) {
        long long hit = ct_after.hit - ct_before.hit;
        long long miss = ct_after.miss - ct_before.miss;

        if (cached >= 0) {
            ds_put_format(&note, "\nct() in XDP: %d of %u connections "
                          "cached (dpif-xdp/ct-cache-show); while\n"
                          "measuring,", cached, fwd->opts.n_flows);
        } else {
            ds_put_cstr(&note, "\nct() in XDP while measuring:");
        }
        ds_put_format(&note, " xdp-ct-hit +%lld, xdp-ct-miss +%lld (%.2f "
                      "and %.2f per frame at the sink)", hit, miss,
                      frames ? (double) hit / frames : 0.0,
                      frames ? (double) miss / frames : 0.0);
        if (ct_after.next >= 0 && ct_before.next >= 0) {
            long long next = ct_after.next - ct_before.next;

            ds_put_format(&note, ";\nthe pass after the ct() skipped: "
                          "xdp-ct-next +%lld, %.2f per ct() hit", next,
                          hit > 0 ? (double) next / hit : 0.0);
        }
        if (p == FWD_CONNTRACK_SETUP) {
            /* Nothing to check: no connection lives long enough. */
        } else if (p == FWD_CONNTRACK_SLOW) {
            if (cached || hit) {
                ovs_error(0, "%s %s: connections cached in XDP (%d) or ct() "
                          "ran there (xdp-ct-hit +%lld) with the cache off",
                          sw->name, fwd_pipeline_names[p], cached, hit);
            }
        } else if (cached < (int) fwd->opts.n_flows || hit <= 0) {
            ovs_error(0, "%s %s: connections not cached in XDP (%d of %u) "
                      "or no ct() ran in XDP (xdp-ct-hit +%lld)", sw->name,
                      fwd_pipeline_names[p], cached, fwd->opts.n_flows,
                      hit);
        }
    }
    if (xdp_monitor) {
        fwd_monitor_note(fwd, p, &mon_before, &mon_after, frames, &note);
    }
    if (xdp_tnl) {
        fwd_tnl_note(p, &tnl_before, &tnl_after, frames, &note);
    }
    if (n_gens > 1) {
        fwd_cpus_note(fwd, n_gens, before.sink_cpus, after.sink_cpus,
                      FWD_SNAPSHOT_CPUS, &note);
    }
    if (stateful || xdp_monitor || xdp_tnl || mflow || n_gens > 1) {
        /* Every part but the first starts a new line. */
        const char *text = ds_cstr(&note);

        free(r->state_note);
        r->state_note = xstrdup(text + (text[0] == '\n'));
    }
    ds_destroy(&note);

    r->pps = xrealloc(r->pps, (r->n + 1) * sizeof *r->pps);
    r->offered = xrealloc(r->offered, (r->n + 1) * sizeof *r->offered);
    r->cpu = xrealloc(r->cpu, (r->n + 1) * sizeof *r->cpu);
    r->frames = xrealloc(r->frames, (r->n + 1) * sizeof *r->frames);
    r->pps[r->n] = frames / seconds;
    r->offered[r->n] = (after.sent - before.sent) / seconds;
    r->cpu[r->n] = frames ? busy / (frames / 1e6) : NAN;
    r->frames[r->n] = frames;
    r->n++;
    return 0;
}

