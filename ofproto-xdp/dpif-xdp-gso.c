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

/* GSO segments that ovs-vswitchd sends: cutting them to the MTU.
 *
 * A port attached in generic mode (dispatcher/xdp-auto-mode.c) hands the
 * program whole GSO segments of up to 64 kB, one packet for what the wire
 * carries as dozens.  The program switches them whole, through its TC half,
 * and the kernel segments them where a device needs it.  But the packets
 * that go up to ovs-vswitchd (misses, slow-path flows such as ct()) arrive
 * as plain frames, with nothing left of the skb's GSO state, and a frame
 * longer than the device's MTU cannot be sent through a packet socket
 * (EMSGSIZE).  So before ovs-vswitchd sends a packet on a port, it cuts a
 * TCP packet that is too long into segments that fit, as the kernel's
 * tcp_gso_segment() would: the same headers, the payload in pieces of the
 * MTU less the headers, the sequence number advanced, FIN and PSH only on
 * the last piece and CWR only on the first, IPv4 identifiers counting up
 * and every checksum computed anew.
 *
 * Open vSwitch 3.1 has no software segmentation of its own (its
 * userspace TSO hands segments to the kernel only through tap devices'
 * virtio-net headers), so this is written here.  A packet that arrived in
 * generic mode is sent up by the program's TC half, which gives its GSO
 * size ('gso_size' of struct xdp_dp_upcall): TCP is cut at that size, as
 * the sender asked, and UDP GSO segments (QUIC) into their datagrams, as
 * udp4_ufo_fragment()'s GSO would, each with its own UDP header; ofproto's
 * execute of a miss gets the size back from the upcall (see "The GSO size
 * of a miss" in dpif-xdp-upcall.c).  Without the size, TCP is cut at the
 * MTU, and a UDP GSO segment cannot be cut right: it is dropped, logged
 * and counted (xdp_gso_unsupported). */

#include <config.h>

#include "dpif-xdp-private.h"

#include <netinet/ip6.h>
#include <string.h>

#include "coverage.h"
#include "csum.h"
#include "dp-packet.h"
#include "flow.h"
#include "netdev.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_gso);

COVERAGE_DEFINE(xdp_gso_segmented);
COVERAGE_DEFINE(xdp_gso_unsupported);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

/* Where the pieces of a cut packet go: sent on a netdev in batches
 * ('emit' NULL), or handed one by one to 'emit'. */
struct sink {
    struct netdev *netdev;      /* Sent on it, in 'batch'... */
    struct dp_packet_batch batch;
    void (*emit)(void *aux, struct dp_packet *);    /* ...or given here, */
    void *aux;                  /* with this. */
};

/* Sends the batch of 'sink' (taking its packets) if it holds any, and
 * empties it. */
static void
flush(struct sink *sink)
{
    if (dp_packet_batch_size(&sink->batch)) {
        netdev_send(sink->netdev, 0, &sink->batch, true);
        dp_packet_batch_init(&sink->batch);
    }
}

/* Gives 'p' to 'sink'. */
static void
add(struct sink *sink, struct dp_packet *p)
{
    if (sink->emit) {
        sink->emit(sink->aux, p);
        return;
    }
    if (dp_packet_batch_is_full(&sink->batch)) {
        flush(sink);
    }
    dp_packet_batch_add(&sink->batch, p);
}

/* Cuts packet 'p', of GSO size 'gso_size' (0 if unknown), into packets
 * that fit in 'mtu' bytes of IP: TCP segments of at most 'gso_size' bytes
 * of payload, or the datagrams of a UDP GSO segment.  Appends them to
 * 'batch' (sent on 'netdev' whenever it fills).  Returns false, without
 * touching 'p', if 'p' cannot be cut so. */
/* What every piece cut from one packet shares. */
struct cut {
    const struct dp_packet *p;  /* The packet being cut. */
    size_t l3_ofs;              /* Offset of its IP header... */
    size_t l3_len;              /* ...and that header's length. */
    size_t hdr_len;             /* Bytes of headers, L4 included. */
    bool ipv4;                  /* IPv4 (else IPv6)? */
    uint16_t ip_id;             /* IPv4: the packet's identifier. */
};

/* Returns piece 'i' of 'c->p': its headers, then the 'n' bytes of its
 * payload from 'ofs' on, with the IP header's lengths (IPv4: identifier,
 * checksum) made right for it.  Stores in '*pseudo' the sum of its L4
 * checksum's pseudo-header. */
static struct dp_packet *
cut_piece(const struct cut *c, size_t i, size_t ofs, size_t n,
          uint32_t *pseudo)
{
    const char *data = dp_packet_data(c->p);
    size_t l4_len = c->hdr_len - c->l3_ofs - c->l3_len + n;
    struct dp_packet *s = dp_packet_new(c->hdr_len + n);

    dp_packet_put(s, data, c->hdr_len);
    dp_packet_put(s, data + c->hdr_len + ofs, n);
    s->packet_type = c->p->packet_type;
    s->md = c->p->md;
    dp_packet_set_l3(s, (char *) dp_packet_data(s) + c->l3_ofs);
    dp_packet_set_l4(s, (char *) dp_packet_l3(s) + c->l3_len);
    if (c->ipv4) {
        struct ip_header *ip = dp_packet_l3(s);

        ip->ip_tot_len = htons(c->l3_len + l4_len);
        ip->ip_id = htons(c->ip_id + i);
        ip->ip_csum = 0;
        ip->ip_csum = csum(ip, c->l3_len);
        *pseudo = packet_csum_pseudoheader(ip);
    } else {
        struct ovs_16aligned_ip6_hdr *ip6 = dp_packet_l3(s);

        ip6->ip6_plen = htons(l4_len);
        *pseudo = packet_csum_pseudoheader6(ip6);
    }
    return s;
}

static bool segment_udp(struct sink *, struct dp_packet *,
                        const struct flow *, int mtu, uint32_t gso_size);

static bool
segment(struct sink *sink, struct dp_packet *p, int mtu, uint32_t gso_size)
{
    struct flow flow;

    flow_extract(p, &flow);
    if (flow.nw_proto == IPPROTO_UDP && gso_size) {
        return segment_udp(sink, p, &flow, mtu, gso_size);
    }
    if (flow.nw_proto != IPPROTO_TCP || flow.nw_frag & FLOW_NW_FRAG_ANY
        || !dp_packet_l3(p) || !dp_packet_l4(p)
        || dp_packet_l4_size(p) < TCP_HEADER_LEN) {
        return false;
    }

    const char *data = dp_packet_data(p);
    const char *l3 = dp_packet_l3(p);
    const struct tcp_header *tcp = dp_packet_l4(p);
    bool ipv4 = flow.dl_type == htons(ETH_TYPE_IP);
    size_t l3_len = (const char *) tcp - l3;
    size_t tcp_len = TCP_OFFSET(tcp->tcp_ctl) * 4;
    size_t ip_len;

    if (ipv4) {
        const struct ip_header *ip = (const void *) l3;

        ip_len = ntohs(ip->ip_tot_len);
    } else if (flow.dl_type == htons(ETH_TYPE_IPV6)) {
        const struct ovs_16aligned_ip6_hdr *ip6 = (const void *) l3;

        if (l3_len != IPV6_HEADER_LEN) {
            return false;       /* Extension headers: not here. */
        }
        ip_len = IPV6_HEADER_LEN + ntohs(ip6->ip6_plen);
    } else {
        return false;
    }

    size_t hdr_len = (const char *) tcp - data + tcp_len;
    if (tcp_len < TCP_HEADER_LEN || ip_len < l3_len + tcp_len
        || (l3 - data) + ip_len > dp_packet_size(p)
        || mtu <= (int) (l3_len + tcp_len) + 64) {
        return false;
    }

    if (ip_len <= (size_t) mtu) {
        return false;           /* Fits already. */
    }

    size_t payload = ip_len - l3_len - tcp_len;
    size_t mss = mtu - l3_len - tcp_len;
    if (gso_size && gso_size < mss) {
        mss = gso_size;         /* What the sender's stack asked for. */
    }
    uint32_t seq = ntohl(get_16aligned_be32(&tcp->tcp_seq));
    uint16_t flags = TCP_FLAGS(tcp->tcp_ctl);
    const struct cut c = {
        .p = p, .l3_ofs = l3 - data, .l3_len = l3_len, .hdr_len = hdr_len,
        .ipv4 = ipv4,
        .ip_id = ipv4 ? ntohs(((const struct ip_header *) l3)->ip_id) : 0,
    };

    COVERAGE_INC(xdp_gso_segmented);
    for (size_t ofs = 0, i = 0; ofs < payload; ofs += mss, i++) {
        size_t n = MIN(mss, payload - ofs);
        bool last = ofs + n >= payload;
        uint16_t seg_flags = flags;
        uint32_t pseudo;
        struct dp_packet *s = cut_piece(&c, i, ofs, n, &pseudo);
        struct tcp_header *th = dp_packet_l4(s);

        if (!last) {
            seg_flags &= ~(TCP_FIN | TCP_PSH);
        }
        if (i) {
            seg_flags &= ~TCP_CWR;
        }
        th->tcp_ctl = TCP_CTL(seg_flags, tcp_len / 4);
        put_16aligned_be32(&th->tcp_seq, htonl(seq + ofs));
        th->tcp_csum = 0;
        th->tcp_csum = csum_finish(csum_continue(pseudo, th, tcp_len + n));
        add(sink, s);
    }
    dp_packet_delete(p);
    return true;
}

/* Cuts the UDP GSO segment 'p', whose flow is 'flow', into its datagrams
 * of 'gso_size' bytes of payload (the last one shorter), each with its own
 * UDP header, length and checksum and, for IPv4, IP header.  See
 * segment(). */
static bool
segment_udp(struct sink *sink, struct dp_packet *p,
            const struct flow *flow, int mtu, uint32_t gso_size)
{
    if (flow->nw_frag & FLOW_NW_FRAG_ANY || !dp_packet_l3(p)
        || !dp_packet_l4(p) || dp_packet_l4_size(p) < UDP_HEADER_LEN) {
        return false;
    }

    const char *data = dp_packet_data(p);
    const char *l3 = dp_packet_l3(p);
    const struct udp_header *udp = dp_packet_l4(p);
    bool ipv4 = flow->dl_type == htons(ETH_TYPE_IP);
    size_t l3_len = (const char *) udp - l3;
    size_t hdr_len = (const char *) udp - data + UDP_HEADER_LEN;
    size_t ip_len;

    if (ipv4) {
        ip_len = ntohs(((const struct ip_header *) l3)->ip_tot_len);
    } else if (flow->dl_type == htons(ETH_TYPE_IPV6)
               && l3_len == IPV6_HEADER_LEN) {
        const struct ovs_16aligned_ip6_hdr *ip6 = (const void *) l3;

        ip_len = IPV6_HEADER_LEN + ntohs(ip6->ip6_plen);
    } else {
        return false;
    }
    if (ip_len < l3_len + UDP_HEADER_LEN
        || (l3 - data) + ip_len > dp_packet_size(p)
        || l3_len + UDP_HEADER_LEN + gso_size > (size_t) mtu) {
        return false;
    }

    size_t payload = ip_len - l3_len - UDP_HEADER_LEN;
    if (payload <= gso_size) {
        return false;           /* One datagram already. */
    }
    const struct cut c = {
        .p = p, .l3_ofs = l3 - data, .l3_len = l3_len, .hdr_len = hdr_len,
        .ipv4 = ipv4,
        .ip_id = ipv4 ? ntohs(((const struct ip_header *) l3)->ip_id) : 0,
    };

    COVERAGE_INC(xdp_gso_segmented);
    for (size_t ofs = 0, i = 0; ofs < payload; ofs += gso_size, i++) {
        size_t n = MIN(gso_size, payload - ofs);
        uint32_t pseudo;
        struct dp_packet *s = cut_piece(&c, i, ofs, n, &pseudo);
        struct udp_header *uh = dp_packet_l4(s);

        uh->udp_len = htons(UDP_HEADER_LEN + n);
        uh->udp_csum = 0;
        uh->udp_csum = csum_finish(csum_continue(pseudo, uh,
                                                 UDP_HEADER_LEN + n));
        if (!uh->udp_csum) {
            uh->udp_csum = htons(0xffff);
        }
        add(sink, s);
    }
    dp_packet_delete(p);
    return true;
}

void
dp_xdp_send_segmented(struct netdev *netdev, struct dp_packet_batch *batch,
                      uint32_t gso_size)
{
    struct sink sink = { .netdev = netdev };
    struct dp_packet *p;
    bool oversized = false;
    int mtu;

    if (netdev_get_mtu(netdev, &mtu)) {
        netdev_send(netdev, 0, batch, true);
        return;
    }
    /* Room for the Ethernet header and two VLAN headers, as the kernel's
     * packet sockets allow. */
    size_t max = mtu + ETH_HEADER_LEN + 2 * VLAN_HEADER_LEN;
    DP_PACKET_BATCH_FOR_EACH (i, p, batch) {
        oversized |= dp_packet_size(p) > max;
    }
    if (!oversized && !gso_size) {
        netdev_send(netdev, 0, batch, true);
        return;
    }

    /* A UDP GSO segment must be cut into its datagrams even if it would
     * fit the MTU whole. */
    dp_packet_batch_init(&sink.batch);
    DP_PACKET_BATCH_FOR_EACH (i, p, batch) {
        if (dp_packet_size(p) <= max && !gso_size) {
            add(&sink, p);
        } else if (segment(&sink, p, mtu, gso_size)) {
            /* Cut, and taken. */
        } else if (dp_packet_size(p) <= max) {
            add(&sink, p);
        } else {
            COVERAGE_INC(xdp_gso_unsupported);
            VLOG_WARN_RL(&rl, "%s: dropped a %"PRIu32"-byte packet that is "
                         "longer than the MTU (%d) that cannot be cut to it "
                         "(not TCP, or UDP GSO of unknown segment size)",
                         netdev_get_name(netdev),
                         dp_packet_size(p), mtu);
            dp_packet_delete(p);
        }
    }
    dp_packet_batch_init(batch);
    flush(&sink);
}

bool
dp_xdp_gso_cut(struct dp_packet *p, int mtu, uint32_t gso_size,
               void (*emit)(void *aux, struct dp_packet *), void *aux)
{
    struct sink sink = { .emit = emit, .aux = aux };

    return segment(&sink, p, mtu, gso_size);
}
