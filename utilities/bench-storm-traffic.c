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

/* ovs-xdp-bench storm: the traffic besides the storm (see bench-storm.c
 * for the benchmark as a whole).
 *
 * The established stream is two threads, a sender in the send namespace
 * that paces numbered UDP datagrams at --rate (what is due by now, then
 * 200 us of sleep, so that it catches up after it could not run) and a
 * receiver in the recv namespace that marks each number in a bitmap and
 * reads its socket's drop count (SO_RXQ_OVFL) from every datagram's
 * control data.  Each datagram carries the phase it was sent in, so that
 * losses count against the phase that sent them, whenever the receiver
 * notices.
 *
 * The new-flow frames are sent by the main thread, pinned for the moment
 * to the storm's CPU, through a packet socket in the recv namespace, each
 * from a new source address; a packet socket in the send namespace with
 * kernel receive timestamps (SO_TIMESTAMPNS) takes them, and the frame's
 * CLOCK_REALTIME send time gives the one-way latency.
 *
 * The host's drops are the RX and TX drops of the stream's four veth ends
 * ("ip -s -o link") and the backlog drops of /proc/net/softnet_stat. */

#include <config.h>

#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bitmap.h"
#include "openvswitch/dynamic-string.h"
#include "ovs-thread.h"
#include "packets.h"
#include "util.h"
#include "utilities/bench-storm.h"

/* A datagram of the established stream. */
struct storm_datagram {
    ovs_be32 magic;             /* STORM_MAGIC. */
    ovs_be32 phase;             /* enum storm_phase it was sent in. */
    ovs_be64 seq;               /* 0, 1, 2, ... */
};

/* The established stream. */

/* Returns the time of CLOCK_REALTIME, in seconds. */
static double
storm_realtime(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *
storm_sender_main(void *s_)
{
    struct storm_stream *s = s_;
    struct sockaddr_in sin;
    unsigned long long seq = 0;
    double start;
    int fd;

    storm_block_signals();
    storm_avoid_cpu(s->cpu);
    s->error = storm_thread_enter(s->send_ns);
    if (s->error) {
        s->what = "sender: cannot enter its namespace";
        return NULL;
    }
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        s->error = errno;
        s->what = "sender: socket";
        return NULL;
    }
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons(STORM_UDP_PORT);
    sin.sin_addr.s_addr = fwd_ip(STORM_RECV_IP);
    /* No UDP checksum: a datagram with a checksum left to the device
     * (CHECKSUM_PARTIAL, as veths take them) reaches the receiver with a
     * wrong one through a switch that reads frames from packet sockets,
     * such as OVS's userspace datapath with system ports. */
    if (setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &(int) { 1 }, sizeof(int))
        || connect(fd, (struct sockaddr *) &sin, sizeof sin)) {
        s->error = errno;
        s->what = "sender: connect";
        close(fd);
        return NULL;
    }

    /* Sends what the rate asks for by now, then sleeps 200 us: a steady
     * stream, that catches up after the thread could not run. */
    start = bench_now();
    s->start_realtime = storm_realtime();
    for (;;) {
        struct timespec ts = { .tv_nsec = 200 * 1000 };
        unsigned long long due;
        bool stop;
        int phase;

        atomic_read_relaxed(&s->stop_sender, &stop);
        if (stop) {
            break;
        }
        atomic_read_relaxed(&s->phase, &phase);
        due = (bench_now() - start) * s->rate;
        while (seq < due) {
            struct storm_datagram d = {
                .magic = htonl(STORM_MAGIC),
                .phase = htonl(phase),
                .seq = htonll(seq),
            };

            if (send(fd, &d, sizeof d, 0) != sizeof d) {
                s->send_errors[phase]++;
            }
            s->sent[phase]++;
            seq++;
        }
        atomic_store_relaxed(&s->n_sent, seq);
        nanosleep(&ts, NULL);
    }
    close(fd);
    return NULL;
}

/* Marks 'seq', of phase 'phase', as received. */
static void
storm_receive(struct storm_stream *s, unsigned long long seq, int phase)
{
    if (seq >= s->n_seen_bits) {
        size_t n = MAX(seq + 1, 2 * s->n_seen_bits);

        s->seen = xrealloc(s->seen, bitmap_n_bytes(n));
        memset((char *) s->seen + bitmap_n_bytes(s->n_seen_bits), 0,
               bitmap_n_bytes(n) - bitmap_n_bytes(s->n_seen_bits));
        s->n_seen_bits = bitmap_n_bytes(n) * CHAR_BIT;
    }
    if (bitmap_is_set(s->seen, seq)) {
        s->dups[phase]++;
    } else {
        bitmap_set1(s->seen, seq);
        s->received[phase]++;
    }
}

static void *
storm_receiver_main(void *s_)
{
    struct storm_stream *s = s_;
    struct timeval tv = { .tv_usec = 50 * 1000 };
    int one = 1, bufsize = 16 << 20;
    uint32_t last_drops = 0;
    unsigned long long n = 0;
    struct sockaddr_in sin;
    int fd;

    storm_block_signals();
    storm_avoid_cpu(s->cpu);
    s->error = storm_thread_enter(s->recv_ns);
    if (s->error) {
        s->what = "receiver: cannot enter its namespace";
        goto out;
    }
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        s->error = errno;
        s->what = "receiver: socket";
        goto out;
    }
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons(STORM_UDP_PORT);
    sin.sin_addr.s_addr = fwd_ip(STORM_RECV_IP);
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsize, sizeof bufsize)
        || setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one)
        || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv)
        || bind(fd, (struct sockaddr *) &sin, sizeof sin)) {
        s->error = errno;
        s->what = "receiver: socket options or bind";
        close(fd);
        goto out;
    }
    atomic_store_relaxed(&s->receiver_ready, true);

    for (;;) {
        char control[CMSG_SPACE(sizeof(uint32_t))];
        struct storm_datagram d;
        struct iovec iov = { .iov_base = &d, .iov_len = sizeof d };
        struct msghdr msg = {
            .msg_iov = &iov,
            .msg_iovlen = 1,
            .msg_control = control,
            .msg_controllen = sizeof control,
        };
        ssize_t retval;
        bool stop;
        int phase;

        atomic_read_relaxed(&s->stop_receiver, &stop);
        if (stop) {
            break;
        }
        retval = recvmsg(fd, &msg, 0);
        if (retval != sizeof d || ntohl(d.magic) != STORM_MAGIC) {
            continue;
        }
        phase = ntohl(d.phase);
        if (phase < 0 || phase >= STORM_N_PHASES) {
            continue;
        }
        storm_receive(s, ntohll(d.seq), phase);
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c;
             c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
                uint32_t drops;

                memcpy(&drops, CMSG_DATA(c), sizeof drops);
                s->sock_drops[phase] += drops - last_drops;
                last_drops = drops;
            }
        }
        atomic_store_relaxed(&s->n_received, ++n);
    }
    close(fd);
out:
    /* Lets the main thread stop waiting, even after an error. */
    atomic_store_relaxed(&s->receiver_ready, true);
    return NULL;
}

/* Starts the stream's two threads, the receiver first. */
void
storm_stream_start(struct storm *st)
{
    struct storm_stream *s = &st->stream;
    bool ready;

    free(s->seen);
    memset(s, 0, sizeof *s);
    s->rate = st->opts.rate;
    s->cpu = st->opts.cpu;
    s->send_ns = st->send.ns;
    s->recv_ns = st->recv.ns;
    atomic_init(&s->phase, STORM_WARMUP);
    atomic_init(&s->stop_sender, false);
    atomic_init(&s->stop_receiver, false);
    atomic_init(&s->receiver_ready, false);
    atomic_init(&s->n_sent, 0);
    atomic_init(&s->n_received, 0);

    s->receiver = ovs_thread_create("storm-recv", storm_receiver_main, s);
    do {
        bench_sleep(0.01);
        atomic_read_relaxed(&s->receiver_ready, &ready);
    } while (!ready);
    s->sender = ovs_thread_create("storm-send", storm_sender_main, s);
    s->running = true;
}

/* Stops the sender, waits until the receiver has had what is still on its
 * way (nothing more for 0.3 s), stops the receiver.  Returns 0, or a
 * positive errno value after explaining in 'why' if a thread failed. */
int
storm_stream_stop(struct storm *st, struct ds *why)
{
    struct storm_stream *s = &st->stream;
    unsigned long long last = 0, n;
    double quiet_since;

    if (!s->running) {
        return 0;
    }
    atomic_store_relaxed(&s->stop_sender, true);
    xpthread_join(s->sender, NULL);

    /* The receiver looks at its flag between datagrams, and its receive
     * times out every 50 ms. */
    quiet_since = bench_now();
    for (int i = 0; i < 100; i++) {
        bench_sleep(0.05);
        atomic_read_relaxed(&s->n_received, &n);
        if (n != last) {
            last = n;
            quiet_since = bench_now();
        } else if (bench_now() - quiet_since >= 0.3) {
            break;
        }
    }
    atomic_store_relaxed(&s->stop_receiver, true);
    xpthread_join(s->receiver, NULL);
    s->running = false;
    if (s->error && why) {
        ds_put_format(why, "%s (%s)", s->what, ovs_strerror(s->error));
    }
    return s->error;
}

/* Returns, after the stream stopped, when the datagrams that never
 * arrived were due: at most STORM_MAX_RANGES runs of consecutive numbers,
 * "N at HH:MM:SS.mmm" (UTC, as ovs-vswitchd's log has it) each, so that a
 * loss can be matched with what ovs-vswitchd was doing.  Returns NULL if
 * none was lost.  The caller frees the result. */
#define STORM_MAX_RANGES 8
char *
storm_stream_lost_ranges(const struct storm *st)
{
    const struct storm_stream *s = &st->stream;
    struct ds out = DS_EMPTY_INITIALIZER;
    unsigned long long n_sent, seq = 0;
    size_t n_ranges = 0;

    atomic_read_relaxed(&CONST_CAST(struct storm_stream *, s)->n_sent,
                        &n_sent);
    while (seq < n_sent) {
        unsigned long long first;
        double when;
        time_t secs;
        struct tm tm;

        if (seq < s->n_seen_bits && bitmap_is_set(s->seen, seq)) {
            seq++;
            continue;
        }
        first = seq;
        while (seq < n_sent
               && !(seq < s->n_seen_bits && bitmap_is_set(s->seen, seq))) {
            seq++;
        }
        if (++n_ranges > STORM_MAX_RANGES) {
            ds_put_cstr(&out, ", ...");
            break;
        }
        when = s->start_realtime + (double) first / s->rate;
        secs = when;
        gmtime_r(&secs, &tm);
        ds_put_format(&out, "%s%llu at %02d:%02d:%02d.%03d",
                      n_ranges > 1 ? ", " : "", seq - first, tm.tm_hour,
                      tm.tm_min, tm.tm_sec, (int) ((when - secs) * 1000));
    }
    return out.length ? ds_steal_cstr(&out) : (ds_destroy(&out), NULL);
}

/* New flows on the other ports. */

/* The payload of a new-flow frame, after its Ethernet header. */
struct storm_nf_payload {
    ovs_be32 magic;             /* STORM_NF_MAGIC. */
    ovs_be32 phase;             /* enum storm_phase it was sent in. */
    ovs_be64 sent_ns;           /* CLOCK_REALTIME when sent, in ns. */
};

/* Opens 'st->nf_fd', the packet socket in the send namespace that
 * receives the new-flow frames, with kernel receive timestamps. */
void
storm_nf_open(struct storm *st)
{
    int saved_fd, fd, error;
    struct sockaddr_ll sll;

    error = bench_netns_enter(st->send.ns, &saved_fd);
    if (error) {
        ovs_fatal(error, "cannot enter namespace %s", st->send.ns);
    }
    memset(&sll, 0, sizeof sll);
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(STORM_NF_ETH_TYPE);
    sll.sll_ifindex = if_nametoindex(st->send.ns_name);
    fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
                htons(STORM_NF_ETH_TYPE));
    if (fd < 0 || !sll.sll_ifindex
        || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &(int) { 1 },
                      sizeof(int))
        || bind(fd, (struct sockaddr *) &sll, sizeof sll)) {
        ovs_fatal(errno, "cannot open the new-flow frames' socket");
    }
    bench_netns_leave(saved_fd);
    st->nf_fd = fd;
}

/* Sends a new-flow frame from the receiver's veth end to the sender's
 * address, from a new source address, tagged with 'phase'.  Sends it from
 * the storm's CPU, whose upcall ring the storm's misses use too: the
 * kernel then switches the frame on that CPU (the backlog of the CPU that
 * transmits into a veth). */
void
storm_nf_send(struct storm *st, enum storm_phase phase)
{
    uint8_t frame[ETH_HEADER_LEN + sizeof(struct storm_nf_payload) + 32];
    struct eth_header *eth = (struct eth_header *) frame;
    struct storm_nf_payload *pl = (struct storm_nf_payload *) (eth + 1);
    unsigned long long seq = st->nf_seq++;
    struct timespec now;
    cpu_set_t saved, cpus;
    bool pinned;

    memset(frame, 0, sizeof frame);
    eth->eth_dst = storm_send_mac;
    eth->eth_src = storm_nf_mac;
    eth->eth_src.ea[3] = seq >> 16;
    eth->eth_src.ea[4] = seq >> 8;
    eth->eth_src.ea[5] = seq;
    eth->eth_type = htons(STORM_NF_ETH_TYPE);
    pl->magic = htonl(STORM_NF_MAGIC);
    pl->phase = htonl(phase);

    CPU_ZERO(&cpus);
    CPU_SET(st->opts.cpu, &cpus);
    pinned = (!sched_getaffinity(0, sizeof saved, &saved)
              && !sched_setaffinity(0, sizeof cpus, &cpus));
    clock_gettime(CLOCK_REALTIME, &now);
    pl->sent_ns = htonll(now.tv_sec * 1000000000ULL + now.tv_nsec);
    bench_send_frame(st->recv.ns, st->recv.ns_name, frame, sizeof frame);
    if (pinned) {
        sched_setaffinity(0, sizeof saved, &saved);
    }
    st->nf_result->phases[phase].nf_sent++;
}

/* Receives the new-flow frames that arrived so far. */
void
storm_nf_receive(struct storm *st)
{
    for (;;) {
        uint8_t frame[256];
        char control[CMSG_SPACE(sizeof(struct timespec))];
        struct iovec iov = { .iov_base = frame, .iov_len = sizeof frame };
        struct msghdr msg = {
            .msg_iov = &iov,
            .msg_iovlen = 1,
            .msg_control = control,
            .msg_controllen = sizeof control,
        };
        const struct storm_nf_payload *pl;
        struct storm_phase_result *p;
        struct timespec ts = { 0, 0 };
        ssize_t n;
        int phase;

        n = recvmsg(st->nf_fd, &msg, 0);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            break;
        }
        if (n < ETH_HEADER_LEN + sizeof *pl) {
            continue;
        }
        pl = (const struct storm_nf_payload *) (frame + ETH_HEADER_LEN);
        phase = ntohl(pl->phase);
        if (ntohl(pl->magic) != STORM_NF_MAGIC || phase < 0
            || phase >= STORM_N_PHASES) {
            continue;
        }
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c;
             c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET
                && c->cmsg_type == SO_TIMESTAMPNS) {
                memcpy(&ts, CMSG_DATA(c), sizeof ts);
            }
        }
        p = &st->nf_result->phases[phase];
        p->nf_latency = xrealloc(p->nf_latency, (p->nf_received + 1)
                                 * sizeof *p->nf_latency);
        p->nf_latency[p->nf_received++]
            = (ts.tv_sec * 1e9 + ts.tv_nsec
               - (double) ntohll(pl->sent_ns)) / 1e9;
    }
}

/* Drops the host counted. */

/* Adds to '*sum' the RX and TX drops of 'ifname' in namespace 'ns' (NULL:
 * the root namespace), as "ip -s -o link show" tells them.  Returns false
 * if it does not tell. */
static bool
storm_add_link_drops(const char *ns, const char *ifname, long long *sum)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    const char *dirs[] = { "RX:", "TX:" };
    bool ok = true;

    if (bench_run(&output, "ip %s%s -s -o link show %s", ns ? "-n " : "",
                  ns ? ns : "", ifname)) {
        ds_destroy(&output);
        return false;
    }
    for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
        /* "RX:  bytes packets errors dropped ... \    1234 5 0 0 ..." */
        const char *p = strstr(ds_cstr(&output), dirs[i]);
        unsigned long long bytes, packets, errors, dropped;

        p = p ? strchr(p, '\\') : NULL;
        if (!p || sscanf(p + 1, "%llu %llu %llu %llu", &bytes, &packets,
                         &errors, &dropped) != 4) {
            ok = false;
            break;
        }
        *sum += dropped;
    }
    ds_destroy(&output);
    return ok;
}

/* Returns the drops that the kernel counted so far on the established
 * stream's four veth ends and in every CPU's backlog (/proc/net/
 * softnet_stat, whose drops are machine-wide), or -1 if it does not
 * tell. */
long long
storm_host_drops(const struct storm *st)
{
    const struct bench_pair *pairs[] = { &st->send, &st->recv };
    long long sum = 0;
    char line[512];
    FILE *stream;

    for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
        if (!storm_add_link_drops(NULL, pairs[i]->root_name, &sum)
            || !storm_add_link_drops(pairs[i]->ns, pairs[i]->ns_name,
                                     &sum)) {
            return -1;
        }
    }
    stream = fopen("/proc/net/softnet_stat", "re");
    if (!stream) {
        return -1;
    }
    while (fgets(line, sizeof line, stream)) {
        unsigned int processed, dropped;

        if (sscanf(line, "%x %x", &processed, &dropped) == 2) {
            sum += dropped;
        }
    }
    fclose(stream);
    return sum;
}
