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

/* ovs-xdp-bench forward: the stateful pipelines, 'conntrack' and
 * 'conntrack-dnat' (see bench-forward.c for the benchmark as a whole).
 *
 * Each switch gets the same stateful firewall.  The OVS switches get the
 * firewall of tests/system-ctcache.at as OpenFlow flows (fwd_ovs_flows()):
 * table 0 sends every untracked IPv4 frame through ct() in zone
 * FWD_CT_ZONE and on to table 1, which commits the connections that the
 * generator's port opens, forwards established connections both ways and
 * drops new ones from the sink's port.  conntrack-dnat commits only
 * connections to FWD_VIP, translating it to the sink's address with
 * ct(commit,nat(dst=...)), so that the datapath rewrites every frame.
 * actions=normal is measured stateless only, and the Linux bridge has no
 * conntrack-dnat: destination NAT of bridged frames needs br_netfilter to
 * route them through the bridge's own addresses.
 *
 * The Linux bridge gets the firewall from nftables ("ct state",
 * bench_nft_firewall() in bench-nft.c).  The bridge family's own connection tracking
 * (nf_conntrack_bridge) is tried first.  Where the kernel has none, nft
 * cannot add a "ct state" rule to a bridge-family table, and the rules go
 * into the ip family's forward hook instead: bridged IPv4 frames reach it
 * through br_netfilter when net.bridge.bridge-nf-call-iptables is 1 (the
 * benchmark never changes it), with the bridge as their device, so a
 * bridge-family chain marks the frames from the generator's port first
 * (FWD_NFT_MARK), for the ip family cannot tell the ports apart.  There,
 * the bridge's connections are tracked in a conntrack zone of their own,
 * a new one each time, so that each measurement starts afresh, as OVS's
 * does with a new bridge.  Where nft can create a flowtable on the two
 * ports, established connections are offloaded to it.
 *
 * Before a stateful pipeline is measured, every flow is established
 * (fwd_establish()): one frame per flow from the generator's side, which
 * commits the connection, then one reply per flow from the sink's side,
 * counted as it arrives in the generator's namespace.  The frames go out
 * of packet sockets in bursts, FWD_ESTABLISH_GAP seconds apart, so that
 * the first frames of many connections, which all go to the switch's slow
 * path, stay within ovs-xdp's upcall budget; frames of a direction that
 * did not all cross are sent again.  Then a pause lets a datapath that
 * caches established connections (ovs-xdp) cache them before the stream
 * starts.
 *
 * conntrack-setup establishes nothing: its generator opens a new
 * connection with every frame (see datapath/bench-gen.bpf.c), so the
 * frames at the sink per second are the connections the switch sets up
 * per second.  The OVS switches' trackers may then hold millions of
 * connections: their limit is raised to FWD_SETUP_MAXCONNS (the default,
 * 3 million, would let frames through uncommitted once reached), and the
 * note says how many they held at the end.
 *
 * After a measurement, the result's note says how the connections fared,
 * as the switches tell: ovs-xdp's ct() counters and the connections it
 * cached in XDP, the OpenFlow statistics of table 1's +trk+new and
 * +trk+est flows, or the named counters of the nftables ruleset. */

#include <config.h>

#include "utilities/bench-forward.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bitmap.h"
#include "openvswitch/dynamic-string.h"
#include "packets.h"
#include "svec.h"
#include "util.h"
#include "utilities/bench-common.h"

/* Establishing the connections of a stateful pipeline: the frames go in
 * bursts of FWD_ESTABLISH_BURST, FWD_ESTABLISH_GAP seconds apart, so that
 * the first frames of many connections, which all go to the switch's slow
 * path, stay within ovs-xdp's upcall budget (256 per port and CPU in 10
 * ms); frames of a direction that did not all cross within
 * FWD_ESTABLISH_WAIT seconds are sent again, up to FWD_ESTABLISH_TRIES
 * times; then FWD_ESTABLISH_SETTLE seconds pass before the stream starts,
 * for ovs-xdp to cache the connections (it does within 0.1 s). */
#define FWD_ESTABLISH_BURST 64
#define FWD_ESTABLISH_GAP 0.005
#define FWD_ESTABLISH_WAIT 0.5
#define FWD_ESTABLISH_TRIES 3
#define FWD_ESTABLISH_SETTLE 0.3

/* Which switches run the stateful pipelines. */

/* Whether pipeline 'p' tracks connections. */
bool
fwd_pipeline_is_stateful(enum fwd_pipeline p)
{
    return (p == FWD_CONNTRACK || p == FWD_CONNTRACK_DNAT
            || p == FWD_CONNTRACK_SLOW || p == FWD_CONNTRACK_SETUP);
}

/* Whether pipeline 'p' establishes its connections before the stream
 * (fwd_establish()): every stateful one but conntrack-setup, whose stream
 * opens a new connection with each frame. */
bool
fwd_pipeline_establishes(enum fwd_pipeline p)
{
    return fwd_pipeline_is_stateful(p) && p != FWD_CONNTRACK_SETUP;
}

/* Returns why switch 'sw' is not measured in pipeline 'p', or NULL if it
 * is.  (The floor is a special case: see enum fwd_pipeline.) */
const char *
fwd_pipeline_unsupported(const struct fwd_switch *sw, enum fwd_pipeline p)
{
    if (p == FWD_STATELESS) {
        return NULL;
    }
    if (sw->normal) {
        return "the other pipelines forward by port, as ovs-xdp does; "
               "actions=normal is measured stateless only";
    }
    if (sw->kind == FWD_LINUX_BRIDGE && (p == FWD_SFLOW || p == FWD_METER)) {
        /* Checked: "tc ... action sample" and "action police" both fail
         * with "Failed to load TC action module". */
        return "the bridge samples and polices through tc's sample and "
               "police actions, which this kernel lacks: not measured";
    }
    if (sw->kind == FWD_LINUX_BRIDGE && p == FWD_CONNTRACK_SETUP) {
        return "the bridge's connections would fill the host's own "
               "conntrack table (nf_conntrack_max): not measured";
    }
    if (sw->kind == FWD_LINUX_BRIDGE && p == FWD_CONNTRACK_SLOW) {
        return "the bridge has no slow path to force: its conntrack figure "
               "is the one to compare";
    }
    if (sw->kind == FWD_LINUX_BRIDGE && p == FWD_CONNTRACK_DNAT) {
        return "destination NAT of bridged frames needs br_netfilter to "
               "route them through the bridge's own addresses: not measured";
    }
    return NULL;
}

/* The OVS switches' flows. */

/* Adds to 'flows' the OpenFlow flows of pipeline 'p' between port 'a',
 * the generator's, and port 'b', the sink's.
 *
 * The stateful pipelines are the firewall of tests/system-ctcache.at:
 * table 0 sends every untracked IPv4 frame through ct() in zone
 * FWD_CT_ZONE and on to table 1, and forwards anything else (the learning
 * frames) by port; table 1 commits the connections that 'a' opens and
 * forwards established connections both ways.  conntrack-dnat commits
 * only connections to FWD_VIP, translating it to the sink's address, and
 * its ct() in table 0 applies the translation of the connection (the
 * reverse one to the replies). */
void
fwd_ovs_flows(enum fwd_pipeline p, const char *a, const char *b,
              struct svec *flows)
{
    const char *nat = p == FWD_CONNTRACK_DNAT ? ",nat" : "";

    if (p == FWD_STATELESS || p == FWD_SFLOW) {
        /* sFlow is the bridge's (fwd_monitor_setup()). */
        svec_add_nocopy(flows, xasprintf("in_port=%s,actions=output:%s",
                                         a, b));
        svec_add_nocopy(flows, xasprintf("in_port=%s,actions=output:%s",
                                         b, a));
        return;
    } else if (p == FWD_METER) {
        /* fwd_monitor_setup() adds the meter, then these. */
        return;
    }

    svec_add_nocopy(flows, xasprintf("table=0,priority=100,ip,"
                                     "ct_state=-trk,actions=ct(zone=%d%s,"
                                     "table=1)", FWD_CT_ZONE, nat));
    svec_add_nocopy(flows, xasprintf("table=0,priority=10,in_port=%s,"
                                     "actions=output:%s", a, b));
    svec_add_nocopy(flows, xasprintf("table=0,priority=10,in_port=%s,"
                                     "actions=output:%s", b, a));
    if (p == FWD_CONNTRACK_DNAT) {
        svec_add_nocopy(flows, xasprintf(
                            "table=1,priority=100,in_port=%s,ip,"
                            "nw_dst=%s,ct_state=+trk+new,actions=ct(zone=%d,"
                            "commit,nat(dst=%s)),output:%s",
                            a, FWD_VIP, FWD_CT_ZONE, FWD_SINK_IP, b));
    } else {
        svec_add_nocopy(flows, xasprintf(
                            "table=1,priority=100,in_port=%s,ip,"
                            "ct_state=+trk+new,actions=ct(zone=%d,commit),"
                            "output:%s", a, FWD_CT_ZONE, b));
    }
    svec_add_nocopy(flows, xasprintf("table=1,priority=100,in_port=%s,ip,"
                                     "ct_state=+trk+est,actions=output:%s",
                                     a, b));
    svec_add_nocopy(flows, xasprintf("table=1,priority=100,in_port=%s,ip,"
                                     "ct_state=+trk+est,actions=output:%s",
                                     b, a));
    svec_add_nocopy(flows, xasprintf("table=1,priority=100,in_port=%s,ip,"
                                     "ct_state=+trk+new,actions=drop", b));
    svec_add(flows, "table=1,priority=0,actions=drop");
}

/* Establishing connections. */

/* Returns a packet socket on 'ifname' in namespace 'ns', nonblocking, that
 * receives the frames of EtherType 'protocol' (0 for none: a socket only
 * to send on), or -1 with errno set on failure. */
static int
fwd_packet_socket(const char *ns, const char *ifname, uint16_t protocol)
{
    struct sockaddr_ll sll;
    int saved_fd, fd, error;

    error = bench_netns_enter(ns, &saved_fd);
    if (error) {
        errno = error;
        return -1;
    }
    fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
                htons(protocol));
    if (fd < 0) {
        error = errno;
    } else {
        /* Room for a burst of replies of every flow in the worst case. */
        int size = 32 << 20;

        setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size);
        memset(&sll, 0, sizeof sll);
        sll.sll_family = AF_PACKET;
        sll.sll_protocol = htons(protocol);
        sll.sll_ifindex = if_nametoindex(ifname);
        if (!sll.sll_ifindex) {
            error = errno;
        } else if (bind(fd, (struct sockaddr *) &sll, sizeof sll)) {
            error = errno;
        }
        if (error) {
            close(fd);
            fd = -1;
        }
    }
    bench_netns_leave(saved_fd);
    errno = error;
    return fd;
}

/* Reads every frame waiting on packet socket 'fd' and marks in 'seen', a
 * bitmap of 'n' flows, the flows whose reply it is: UDP from 'src', port
 * FWD_UDP_DPORT, to FWD_GEN_IP and port FWD_UDP_SPORT_BASE + flow.
 * Returns the number of flows it marked. */
static unsigned int
fwd_take_replies(int fd, ovs_be32 src, unsigned long *seen, unsigned int n)
{
    ovs_be32 dst = fwd_ip(FWD_GEN_IP);
    unsigned int n_marked = 0;
    uint8_t buf[2048];

    for (;;) {
        struct sockaddr_ll sll;
        socklen_t len = sizeof sll;
        ssize_t size = recvfrom(fd, buf, sizeof buf, 0,
                                (struct sockaddr *) &sll, &len);
        const struct eth_header *eth = (const void *) buf;
        const struct ip_header *ip = (const void *) (eth + 1);
        const struct udp_header *udp = (const void *) (ip + 1);
        unsigned int flow;

        if (size < 0) {
            break;
        }
        if (sll.sll_pkttype == PACKET_OUTGOING
            || size < (ssize_t) ((const uint8_t *) (udp + 1) - buf)
            || eth->eth_type != htons(ETH_TYPE_IP)
            || ip->ip_ihl_ver != IP_IHL_VER(5, IP_VERSION)
            || ip->ip_proto != IPPROTO_UDP
            || get_16aligned_be32(&ip->ip_src) != src
            || get_16aligned_be32(&ip->ip_dst) != dst
            || udp->udp_src != htons(FWD_UDP_DPORT)) {
            continue;
        }
        flow = (unsigned int) ntohs(udp->udp_dst) - FWD_UDP_SPORT_BASE;
        if (flow < n && !bitmap_is_set(seen, flow)) {
            bitmap_set1(seen, flow);
            n_marked++;
        }
    }
    return n_marked;
}

/* Sends the 'n' FWD_FRAME_SIZE-byte frames in 'frames' on packet socket
 * 'fd', in bursts of FWD_ESTABLISH_BURST, FWD_ESTABLISH_GAP seconds apart.
 * Between bursts, if 'rx_fd' is not -1, takes the replies that arrived on
 * it into '*n_seen' and 'seen' (see fwd_take_replies()). */
static void
fwd_send_paced(int fd, const uint8_t *frames, unsigned int n,
               int rx_fd, ovs_be32 reply_src, unsigned long *seen,
               unsigned int *n_seen)
{
    for (unsigned int i = 0; i < n; i++) {
        if (send(fd, &frames[i * FWD_FRAME_SIZE], FWD_FRAME_SIZE, 0) < 0
            && errno != ENOBUFS && errno != EAGAIN) {
            ovs_fatal(errno, "cannot send the frames that establish the "
                      "connections");
        }
        if ((i + 1) % FWD_ESTABLISH_BURST == 0 || i + 1 == n) {
            bench_sleep(FWD_ESTABLISH_GAP);
            if (rx_fd >= 0) {
                *n_seen += fwd_take_replies(rx_fd, reply_src, seen, n);
            }
        }
    }
}

/* Establishes the stream's connections, one per flow, through the switch
 * set up now with stateful pipeline 'p': sends one frame per flow from the
 * generator's side, as the stream would, and waits until the sink counted
 * them all; then one reply per flow from the sink's side, from the sink's
 * address (the switch translates it back to FWD_VIP in conntrack-dnat),
 * and waits until all arrived in the generator's namespace; sends again
 * what did not all cross, up to FWD_ESTABLISH_TRIES times; then waits
 * FWD_ESTABLISH_SETTLE seconds.  Says in 'note' how many crossed. */
void
fwd_establish(struct fwd *fwd, enum fwd_pipeline p, struct ds *note)
{
    unsigned int n = fwd->opts.n_flows;
    uint8_t *frames = xmalloc(n * FWD_FRAME_SIZE);
    uint8_t *replies = xmalloc(n * FWD_FRAME_SIZE);
    unsigned long *seen = bitmap_allocate(n);
    ovs_be32 reply_src = fwd_ip(fwd_stream_dst(p));
    unsigned long long forwarded = 0;
    unsigned int n_seen = 0;
    int gen_tx, sink_tx, gen_rx;
    int try;

    for (unsigned int i = 0; i < n; i++) {
        fwd_put_frame(&frames[i * FWD_FRAME_SIZE], fwd_gen_mac,
                      fwd_sink_mac, FWD_GEN_IP, fwd_stream_dst(p),
                      FWD_UDP_SPORT_BASE + i, FWD_UDP_DPORT);
        fwd_put_frame(&replies[i * FWD_FRAME_SIZE], fwd_sink_mac,
                      fwd_gen_mac, FWD_SINK_IP, FWD_GEN_IP, FWD_UDP_DPORT,
                      FWD_UDP_SPORT_BASE + i);
    }
    gen_tx = fwd_packet_socket(fwd->gen.ns, fwd->gen.ns_name, 0);
    sink_tx = fwd_packet_socket(fwd->sink.ns, fwd->sink.ns_name, 0);
    gen_rx = fwd_packet_socket(fwd->gen.ns, fwd->gen.ns_name, ETH_TYPE_IP);
    if (gen_tx < 0 || sink_tx < 0 || gen_rx < 0) {
        ovs_fatal(errno, "cannot open the packet sockets that establish "
                  "the connections");
    }

    for (try = 0; try < FWD_ESTABLISH_TRIES && (forwarded < n
                                                || n_seen < n); try++) {
        unsigned long long base = fwd_read_sink(fwd, BENCH_SINK_STREAM);
        double deadline;

        fwd_send_paced(gen_tx, frames, n, -1, 0, NULL, NULL);
        deadline = bench_now() + FWD_ESTABLISH_WAIT;
        for (;;) {
            forwarded = MAX(forwarded,
                            fwd_read_sink(fwd, BENCH_SINK_STREAM) - base);
            if (forwarded >= n || bench_now() > deadline) {
                break;
            }
            bench_sleep(0.01);
        }

        fwd_send_paced(sink_tx, replies, n, gen_rx, reply_src, seen,
                       &n_seen);
        deadline = bench_now() + FWD_ESTABLISH_WAIT;
        while (n_seen < n && bench_now() < deadline) {
            bench_sleep(0.01);
            n_seen += fwd_take_replies(gen_rx, reply_src, seen, n);
        }
    }
    bench_sleep(FWD_ESTABLISH_SETTLE);

    ds_put_format(note, "connections: of %u flow%s, %llu crossed to the "
                  "sink, %u replies crossed back", n, n > 1 ? "s" : "",
                  MIN(forwarded, n), n_seen);
    if (try > 1) {
        ds_put_format(note, " (sent %d times)", try);
    }
    if (forwarded < n || n_seen < n) {
        ovs_error(0, "%s", ds_cstr(note));
    }

    close(gen_tx);
    close(sink_tx);
    close(gen_rx);
    bitmap_free(seen);
    free(frames);
    free(replies);
}

/* What the switches tell about the connections. */

/* Stores ovs-vswitchd-xdp's counters of ct() in '*c' (see struct
 * fwd_ct_counts). */
void
fwd_ovs_xdp_ct_counts(struct fwd *fwd, struct fwd_ct_counts *c)
{
    static const char *const names[] = { "xdp-ct-hit", "xdp-ct-miss",
                                         "xdp-ct-next" };
    long long *const values[] = { &c->hit, &c->miss, &c->next };

    bench_ovs_counters(&fwd->ovs_xdp, "dpif-xdp/stats-show", names, values,
                       ARRAY_SIZE(names));
}

/* Returns the number of connections of zone FWD_CT_ZONE that
 * ovs-vswitchd-xdp has cached in XDP (dpif-xdp/ct-cache-show), or -1 if it
 * does not tell. */
int
fwd_ovs_xdp_cached(struct fwd *fwd)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    char *prefix = xasprintf("    zone=%d,", FWD_CT_ZONE);
    char *line, *save_ptr = NULL;
    int n = -1;

    if (!bench_ovs_run(&fwd->ovs_xdp, &output,
                       "ovs-appctl dpif-xdp/ct-cache-show")) {
        n = 0;
        for (line = strtok_r(ds_cstr(&output), "\n", &save_ptr); line;
             line = strtok_r(NULL, "\n", &save_ptr)) {
            n += !strncmp(line, prefix, strlen(prefix));
        }
    }
    free(prefix);
    ds_destroy(&output);
    return n;
}

/* Appends to 'note' how many frames from the generator's port went
 * through the +trk+new and the +trk+est flows of table 1 of the OVS
 * bridge of 'sw' (OpenFlow statistics, which lag the datapath's a
 * little). */
void
fwd_ovs_put_ct_flows(struct fwd *fwd, const struct fwd_switch *sw,
                     struct ds *note)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    char *in_port = xasprintf("in_port=%s", fwd->gen.root_name);
    long long n_new = -1, n_est = -1;
    char *line, *save_ptr = NULL;

    if (!bench_ovs_run(fwd_switch_ovs(fwd, sw), &output,
                       "ovs-ofctl --names dump-flows %s table=1",
                       fwd->ovs_bridge)) {
        for (line = strtok_r(ds_cstr(&output), "\n", &save_ptr); line;
             line = strtok_r(NULL, "\n", &save_ptr)) {
            const char *p = strstr(line, "n_packets=");
            long long value;

            if (!p || !strstr(line, in_port)
                || sscanf(p, "n_packets=%lld", &value) != 1) {
                continue;
            }
            if (strstr(line, "+new")) {
                n_new = value;
            } else if (strstr(line, "+est")) {
                n_est = value;
            }
        }
    }
    ds_put_format(note, "\nOpenFlow table 1, from the generator's port: "
                  "%lld +trk+new, %lld +trk+est", n_new, n_est);
    free(in_port);
    ds_destroy(&output);
}
