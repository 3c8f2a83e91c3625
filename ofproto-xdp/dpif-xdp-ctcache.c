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

/* The connection cache: established connections handed to XDP.
 *
 * lib/conntrack.c (dpif-xdp-ct.c) is the one authority on connection
 * state.  This module copies into XDP's connection cache (see "Connection
 * cache" in datapath/xdp-dp.h, and datapath/xdp-dp-ct.h for its use) what
 * ct() gives the packets of an established connection, one entry per
 * direction, so that ct() runs in XDP for them; and keeps the copy true:
 *
 *   - Nomination.  dp_xdp_ctcache_nominate() sees every packet that leaves
 *     a ct() in ovs-vswitchd.  A packet that conntrack found established
 *     (and not related or invalid) nominates its connection.  For UDP and
 *     ICMP that is all "established" means to lib/conntrack.c (a reply
 *     was seen); TCP must also be ESTABLISHED in both directions.  If the
 *     connection is cached already and its mark or label is no longer
 *     what the cache holds (a ct(commit) changed it), the entries are
 *     rewritten at once, before the packet goes on.
 *
 *   - The sync thread looks the cached and the nominated connections up
 *     in lib/conntrack.c's table every DP_XDP_CTC_SYNC_MS, and
 *     DP_XDP_CTC_MIN_MS after a nomination (through conntrack-private.h
 *     and a copy of its hash, ctc_conn_key_hash(): lib/conntrack.c has no
 *     public way to find a connection by its tuple).  It caches
 *     the nominated ones that qualify, removes the entries of connections
 *     that are gone, expired or no longer established, and folds XDP's
 *     use back: a connection whose entries counted packets since the last
 *     sync gets its expiration renewed as a packet would renew it in
 *     lib/conntrack.c, so that a connection used only in XDP never
 *     expires there.
 *
 *   - dpctl/flush-conntrack, zone limits and timeout policies remove
 *     entries at once (dp_xdp_ctcache_flush()).
 *
 *   - TCP windows.  lib/conntrack.c checks that each TCP packet's sequence
 *     and acknowledgement numbers fall within the windows it has seen;
 *     the packets that cross in XDP move those numbers without it, so the
 *     next packet it sees (a FIN, an RST) would look out of window and be
 *     found invalid.  The kernel's flowtable meets the same problem and
 *     makes conntrack pick the windows up again from the next packet it
 *     sees; dp_xdp_ctcache_pickup() does that for lib/conntrack.c.  A
 *     SYN, FIN or RST, which changes the connection's state, also takes it
 *     out of the cache at once.  Plain segments reach ct() in ovs-vswitchd
 *     too, and must not: those that XDP sent up just before their
 *     connection was cached, and those whose first ct() in another zone
 *     missed, which recirculate in ovs-vswitchd through the cached zone's
 *     ct().
 *
 * Only connections of TCP, UDP and ICMP echo are cached, IPv4 ones and
 * IPv6 ones without NAT, and not those of a helper (FTP, TFTP) or created
 * by one.  The cache holds at most other_config:xdp-ct-cache-size
 * connections, two directions each (XDP_DP_MAX_CT directions at most);
 * when it is full, new connections stay in the slow path and coverage
 * counter xdp_ctcache_full says so.
 *
 * Locking: 'mutex' guards everything here.  A sync runs inside an RCU
 * read side (the sync thread does not quiesce during it), so the
 * connections it reads are not freed under it. */

#include <config.h>

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/bpf.h>

#include "conntrack.h"
#include "conntrack-private.h"
#include "conntrack-tp.h"
#include "coverage.h"
#include "ct-dpif.h"
#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/xdp-dp.skel.h"
#include "dp-packet.h"
#include "dpif-xdp-private.h"
#include "hash.h"
#include "latch.h"
#include "maps/flow-stats.h"
#include "ofproto-xdp/slot-pool.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/vlog.h"
#include "ovs-rcu.h"
#include "ovs-thread.h"
#include "openvswitch/poll-loop.h"
#include "packets.h"
#include "seq.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_ctcache);

COVERAGE_DEFINE(xdp_ctcache_install);
COVERAGE_DEFINE(xdp_ctcache_remove);
COVERAGE_DEFINE(xdp_ctcache_full);
COVERAGE_DEFINE(xdp_ctcache_error);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

/* How often the sync thread looks the connections up: at least every
 * DP_XDP_CTC_SYNC_MS, and sooner when a connection is nominated, but not
 * within DP_XDP_CTC_MIN_MS of the last sync (a sync looks up every cached
 * connection). */
#define DP_XDP_CTC_SYNC_MS 100
#define DP_XDP_CTC_MIN_MS 10

/* One cached connection: its two entries. */
struct ctc_conn {
    struct hmap_node node;          /* In 'conns', by ctc_key_hash(ck[0]). */
    struct hmap_node rnode;         /* In 'by_reply', by
                                     * ctc_key_hash(ck[1]). */
    struct xdp_dp_ct_key ck[2];     /* Original and reply direction. */
    uint32_t slot[2];               /* Their slots. */
    uint64_t n_packets[2];          /* Their packets at the last sync. */
    enum ct_timeout tm;             /* How a packet renews the connection. */
    const void *conn_id;            /* lib/conntrack.c's 'struct conn', only
                                     * compared, never followed: a new
                                     * connection with the same tuple is
                                     * another one. */
};

/* A connection nominated since the last sync. */
struct ctc_nominee {
    struct hmap_node node;          /* In 'nominees'. */
    struct xdp_dp_ct_key ck;        /* Original direction. */
};

struct dp_xdp_ctcache {
    struct ovs_mutex mutex;
    struct hmap conns OVS_GUARDED;      /* 'struct ctc_conn's. */
    struct hmap by_reply OVS_GUARDED;   /* The same, by reply key. */
    bool tcp_ok OVS_GUARDED;            /* TCP windows can be picked up. */
    struct hmap nominees OVS_GUARDED;   /* 'struct ctc_nominee's. */
    struct slot_pool slots OVS_GUARDED; /* Free slots. */
    struct ctc_conn **by_slot OVS_GUARDED;  /* Slot to connection. */
    struct xdp_dp_ct_entry *entries OVS_GUARDED;    /* Copy of the BPF
                                                     * array, by slot. */
    struct in6_addr (*orig6)[2] OVS_GUARDED;    /* By slot: the original
                                                 * direction's IPv6
                                                 * addresses, which
                                                 * 'entries' lacks... */
    bool *slot_ipv6 OVS_GUARDED;                /* ...for the slots of IPv6
                                                 * connections. */
    uint32_t size OVS_GUARDED;          /* Directions at most. */
    uint32_t n_used OVS_GUARDED;        /* Directions cached. */
    uint64_t n_installed OVS_GUARDED;   /* Connections ever cached... */
    uint64_t n_removed OVS_GUARDED;     /* ...and removed. */
    uint64_t n_refused OVS_GUARDED;     /* Nominees refused: cache full. */
    int key_fd, entries_fd;             /* The BPF maps. */
    struct xdp_flow_stats_map stats;    /* Their counters, mmapped. */
    struct xdp_dp_ct_next *next;        /* 'xdp_dp_ct_next', mmapped. */
    size_t next_size;                   /* Bytes mapped. */
    uint32_t *gens OVS_GUARDED;         /* By slot: the entry's last 'gen'. */

    struct conntrack *ct;               /* The tracker. */
    struct seq *nominated;              /* Changes with each new nominee. */
    pthread_t thread;
    struct latch exit;
};

static uint32_t
ctc_key_hash(const struct xdp_dp_ct_key *ck)
{
    return hash_bytes(ck, sizeof *ck, 0);
}

static struct ctc_conn *
ctc_find(const struct dp_xdp_ctcache *c, const struct xdp_dp_ct_key *ck)
    OVS_REQUIRES(c->mutex)
{
    struct ctc_conn *cc;

    HMAP_FOR_EACH_WITH_HASH (cc, node, ctc_key_hash(ck), &c->conns) {
        if (!memcmp(&cc->ck[0], ck, sizeof *ck)) {
            return cc;
        }
    }
    return NULL;
}

/* Finds the cached connection that has 'ck' for key in either direction. */
static struct ctc_conn *
ctc_find_any(const struct dp_xdp_ctcache *c, const struct xdp_dp_ct_key *ck)
    OVS_REQUIRES(c->mutex)
{
    struct ctc_conn *cc = ctc_find(c, ck);

    if (!cc) {
        HMAP_FOR_EACH_WITH_HASH (cc, rnode, ctc_key_hash(ck), &c->by_reply) {
            if (!memcmp(&cc->ck[1], ck, sizeof *ck)) {
                return cc;
            }
        }
    }
    return cc;
}

/* Finds the nominee 'ck', whose hash is 'hash'. */
static struct ctc_nominee *
ctc_find_nominee(const struct dp_xdp_ctcache *c,
                 const struct xdp_dp_ct_key *ck, uint32_t hash)
    OVS_REQUIRES(c->mutex)
{
    struct ctc_nominee *nom;

    HMAP_FOR_EACH_WITH_HASH (nom, node, hash, &c->nominees) {
        if (!memcmp(&nom->ck, ck, sizeof *ck)) {
            return nom;
        }
    }
    return NULL;
}

#define CTC_ICMP6_ECHO_REQUEST 128

static bool
ctc_is_icmp(uint8_t nw_proto)
{
    return nw_proto == IPPROTO_ICMP || nw_proto == IPPROTO_ICMPV6;
}

/* Starts cache key '*ck': zone, protocol, and addresses 'src' and 'dst',
 * 16 bytes each if 'ipv6', else 4. */
static void
ctc_key_init(struct xdp_dp_ct_key *ck, uint16_t zone, uint8_t nw_proto,
             bool ipv6, const void *src, const void *dst)
{
    memset(ck, 0, sizeof *ck);
    ck->zone = zone;
    ck->nw_proto = nw_proto;
    ck->ipv6 = ipv6;
    memcpy(ck->src, src, ipv6 ? 16 : 4);
    memcpy(ck->dst, dst, ipv6 ? 16 : 4);
}

/* The cache key of a packet that conntrack would key as 'k'.  For ICMP,
 * 'k''s endpoints hold the echo identifier and the type of the packet's
 * own direction in 'src'. */
static void
ctc_key_from_conn_key(const struct conn_key *k, struct xdp_dp_ct_key *ck)
{
    bool ipv6 = k->dl_type == htons(ETH_TYPE_IPV6);

    ctc_key_init(ck, k->zone, k->nw_proto, ipv6,
                 ipv6 ? (const void *) &k->src.addr.ipv6
                      : (const void *) &k->src.addr.ipv4,
                 ipv6 ? (const void *) &k->dst.addr.ipv6
                      : (const void *) &k->dst.addr.ipv4);
    if (ctc_is_icmp(k->nw_proto)) {
        ck->sport = k->src.icmp_id;
        ck->dport = htons(k->src.icmp_type << 8);
    } else {
        ck->sport = k->src.port;
        ck->dport = k->dst.port;
    }
}

/* Whether lib/conntrack.c's 'conn' may be cached: IPv4, or IPv6 without
 * both source and destination NAT (an entry's rewrite holds one IPv6
 * address), TCP, UDP or ICMP echo, no helper. */
static bool
ctc_conn_cacheable(const struct conn *conn)
{
    bool ipv6 = conn->key.dl_type == htons(ETH_TYPE_IPV6);
    uint8_t proto = conn->key.nw_proto;

    return (conn->conn_type == CT_CONN_TYPE_DEFAULT
            && (conn->key.dl_type == htons(ETH_TYPE_IP)
                || (ipv6
                    && (~conn->nat_action & (NAT_ACTION_SRC
                                             | NAT_ACTION_DST))))
            && !conn->alg && !conn->alg_related
            && (proto == IPPROTO_TCP || proto == IPPROTO_UDP
                || (proto == (ipv6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP)
                    && conn->key.src.icmp_type == (ipv6
                                                   ? CTC_ICMP6_ECHO_REQUEST
                                                   : ICMP4_ECHO_REQUEST))));
}

/* Whether 'conn' is established as the cache needs it: for TCP, both
 * directions ESTABLISHED (a nominee's reply was seen otherwise). */
static bool
ctc_conn_established(struct conn *conn)
{
    struct ct_dpif_protoinfo pi;
    bool est;

    if (conn->key.nw_proto != IPPROTO_TCP) {
        return true;
    }
    memset(&pi, 0, sizeof pi);
    ovs_mutex_lock(&conn->lock);
    ct_proto_tcp.conn_get_protoinfo(conn, &pi);
    ovs_mutex_unlock(&conn->lock);
    est = (pi.tcp.state_orig == CT_DPIF_TCPS_ESTABLISHED
           && pi.tcp.state_reply == CT_DPIF_TCPS_ESTABLISHED);
    return est;
}

static bool
ctc_conn_expired(struct conn *conn, long long now)
{
    long long expiration;

    atomic_read_relaxed(&conn->expiration, &expiration);
    return now >= expiration;
}

/* Fills 'e' (the entry of direction 'reply' of 'conn') with what ct()
 * gives a packet of that direction: lib/conntrack.c's write_ct_md() and,
 * for ct(nat), nat_packet(). */
static void
ctc_entry_from_conn(struct conn *conn, bool reply, struct xdp_dp_ct_entry *e)
{
    /* After NAT a packet of the original direction has the reverse of
     * 'rev_key' for tuple, one of the reply direction the reverse of
     * 'key'. */
    const struct conn_key *from = reply ? &conn->rev_key : &conn->key;
    const struct conn_key *to = reply ? &conn->key : &conn->rev_key;
    uint16_t nat = conn->nat_action;

    memset(e, 0, sizeof *e);
    e->state = CS_TRACKED | CS_ESTABLISHED | (reply ? CS_REPLY_DIR : 0);
    if (reply) {
        nat = ((nat & NAT_ACTION_SRC ? NAT_ACTION_DST : 0)
               | (nat & NAT_ACTION_DST ? NAT_ACTION_SRC : 0));
    }
    e->nat_state = (nat & NAT_ACTION_SRC ? CS_SRC_NAT
                    : nat & NAT_ACTION_DST ? CS_DST_NAT : 0);
    e->zone = conn->key.zone;
    ovs_mutex_lock(&conn->lock);
    e->mark = conn->mark;
    memcpy(e->label, &conn->label, sizeof e->label);
    ovs_mutex_unlock(&conn->lock);
    if (conn->key.dl_type == htons(ETH_TYPE_IP)) {
        e->orig_src = conn->key.src.addr.ipv4;
        e->orig_dst = conn->key.dst.addr.ipv4;
    }
    e->orig_proto = conn->key.nw_proto;
    if (ctc_is_icmp(conn->key.nw_proto)) {
        e->orig_sport = htons(conn->key.src.icmp_type);
        e->orig_dport = htons(conn->key.src.icmp_code);
    } else {
        e->orig_sport = conn->key.src.port;
        e->orig_dport = conn->key.dst.port;
    }

    if (!e->nat_state) {
        return;
    }
    if (conn->key.dl_type == htons(ETH_TYPE_IPV6)) {
        /* One address changes (ctc_conn_cacheable()): the source after
         * source NAT, the destination after destination NAT. */
        bool dst = nat & NAT_ACTION_DST;

        e->nat_ip.type = XDP_DP_ACTION_SET_IPV6_ADDR;
        e->nat_ip.ipv6_addr.dst = dst;
        memcpy(e->nat_ip.ipv6_addr.addr,
               dst ? &to->src.addr.ipv6 : &to->dst.addr.ipv6,
               sizeof e->nat_ip.ipv6_addr.addr);
    } else {
        ovs_be32 new_src = to->dst.addr.ipv4, new_dst = to->src.addr.ipv4;

        e->nat_ip.type = XDP_DP_ACTION_SET_IPV4;
        if (new_src != from->src.addr.ipv4) {
            e->nat_ip.ipv4.src = new_src;
            e->nat_ip.ipv4.src_mask = OVS_BE32_MAX;
        }
        if (new_dst != from->dst.addr.ipv4) {
            e->nat_ip.ipv4.dst = new_dst;
            e->nat_ip.ipv4.dst_mask = OVS_BE32_MAX;
        }
    }
    if (!ctc_is_icmp(conn->key.nw_proto)) {
        ovs_be16 new_sport = to->dst.port, new_dport = to->src.port;

        if (new_sport != from->src.port || new_dport != from->dst.port) {
            e->nat_l4.type = XDP_DP_ACTION_SET_L4_PORTS;
            e->nat_l4.l4.proto = conn->key.nw_proto;
            if (new_sport != from->src.port) {
                e->nat_l4.l4.src = new_sport;
                e->nat_l4.l4.src_mask = OVS_BE16_MAX;
            }
            if (new_dport != from->dst.port) {
                e->nat_l4.l4.dst = new_dport;
                e->nat_l4.l4.dst_mask = OVS_BE16_MAX;
            }
        }
    }
}

static enum ct_timeout
ctc_timeout(const struct conn *conn)
{
    switch (conn->key.nw_proto) {
    case IPPROTO_TCP:
        return CT_TM_TCP_ESTABLISHED;
    case IPPROTO_ICMP:
        return CT_TM_ICMP_REPLY;
    default:
        return CT_TM_OTHER_BIDIR;
    }
}

/* Writes both entries of 'cc' to the BPF maps: the entries first, then
 * the keys that lead to them.  Each entry gets a new 'gen', and what the
 * program recorded of the pass after it is forgotten (see "The pass after
 * a cached ct()" in datapath/xdp-dp.h): it may be of a connection that had
 * the slot before, or of what the entry said before (another mark).
 * Returns 0 or a positive errno. */
static int
ctc_write(struct dp_xdp_ctcache *c, struct ctc_conn *cc, bool keys)
    OVS_REQUIRES(c->mutex)
{
    for (int d = 0; d < 2; d++) {
        uint32_t slot = cc->slot[d];

        c->gens[slot] = (c->gens[slot] + 1) & XDP_DP_CT_GEN_MASK;
        c->entries[slot].gen = c->gens[slot];
        if (c->next) {
            struct xdp_dp_ct_next *nx = &c->next[slot];

            __atomic_store_n(&nx->owner, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&nx->flow, 0, __ATOMIC_RELEASE);
        }
        if (bpf_map_update_elem(c->entries_fd, &cc->slot[d],
                                &c->entries[cc->slot[d]], BPF_ANY)) {
            return errno;
        }
    }
    for (int d = 0; keys && d < 2; d++) {
        if (bpf_map_update_elem(c->key_fd, &cc->ck[d], &cc->slot[d],
                                BPF_ANY)) {
            return errno;
        }
    }
    return 0;
}

static void
ctc_remove(struct dp_xdp_ctcache *c, struct ctc_conn *cc)
    OVS_REQUIRES(c->mutex)
{
    for (int d = 0; d < 2; d++) {
        if (bpf_map_delete_elem(c->key_fd, &cc->ck[d]) && errno != ENOENT) {
            COVERAGE_INC(xdp_ctcache_error);
            VLOG_WARN_RL(&rl, "cannot remove a connection cache entry (%s)",
                         ovs_strerror(errno));
        }
    }
    for (int d = 0; d < 2; d++) {
        c->by_slot[cc->slot[d]] = NULL;
        slot_pool_free(&c->slots, cc->slot[d]);
    }
    c->n_used -= 2;
    c->n_removed++;
    COVERAGE_INC(xdp_ctcache_remove);
    hmap_remove(&c->conns, &cc->node);
    hmap_remove(&c->by_reply, &cc->rnode);
    free(cc);
}

/* Caches 'conn', whose original direction's key is 'ck0'. */
static void
ctc_install(struct dp_xdp_ctcache *c, struct conn *conn,
            const struct xdp_dp_ct_key *ck0)
    OVS_REQUIRES(c->mutex)
{
    struct ctc_conn *cc;
    uint32_t slot[2];

    if (c->n_used + 2 > c->size
        || !slot_pool_alloc(&c->slots, &slot[0])) {
        c->n_refused++;
        COVERAGE_INC(xdp_ctcache_full);
        return;
    }
    if (!slot_pool_alloc(&c->slots, &slot[1])) {
        slot_pool_free(&c->slots, slot[0]);
        c->n_refused++;
        COVERAGE_INC(xdp_ctcache_full);
        return;
    }

    cc = xzalloc(sizeof *cc);
    cc->ck[0] = *ck0;
    ctc_key_from_conn_key(&conn->rev_key, &cc->ck[1]);
    cc->tm = ctc_timeout(conn);
    cc->conn_id = conn;
    for (int d = 0; d < 2; d++) {
        struct xdp_flow_stats st;

        cc->slot[d] = slot[d];
        c->by_slot[slot[d]] = cc;
        ctc_entry_from_conn(conn, d, &c->entries[slot[d]]);
        c->orig6[slot[d]][0] = conn->key.src.addr.ipv6;
        c->orig6[slot[d]][1] = conn->key.dst.addr.ipv6;
        c->slot_ipv6[slot[d]] = cc->ck[0].ipv6;
        xdp_flow_stats_clear(&c->stats, slot[d]);
        xdp_flow_stats_read(&c->stats, slot[d], &st);
        cc->n_packets[d] = st.n_packets;
    }
    hmap_insert(&c->conns, &cc->node, ctc_key_hash(ck0));
    hmap_insert(&c->by_reply, &cc->rnode, ctc_key_hash(&cc->ck[1]));
    c->n_used += 2;
    c->n_installed++;
    COVERAGE_INC(xdp_ctcache_install);

    int error = ctc_write(c, cc, true);
    if (error) {
        COVERAGE_INC(xdp_ctcache_error);
        VLOG_WARN_RL(&rl, "cannot cache a connection in XDP (%s)",
                     ovs_strerror(error));
        ctc_remove(c, cc);
    }
}

/* lib/conntrack.c's conn_key_hash() (with ct_endpoint_hash_add()), which
 * is static there: the hash by which its cmap 'conns' holds a connection,
 * that of its original direction's key.  With it a cached connection is
 * found with one lookup (ctc_conn_find()); a walk of every connection,
 * which this module did before, cost the sync thread, and each SYN, FIN or
 * RST of a cached connection, time in proportion to all the tracker's
 * connections.  Should Open vSwitch hash otherwise, lookups find nothing
 * and connections leave the cache (the conntrack cache tests fail). */
static uint32_t
ctc_conn_key_hash(const struct conn_key *key, uint32_t basis)
{
    BUILD_ASSERT_DECL(sizeof key->src % 4 == 0);
    uint32_t hsrc = hash_add_bytes32(basis, (const uint32_t *) &key->src,
                                     sizeof key->src);
    uint32_t hdst = hash_add_bytes32(basis, (const uint32_t *) &key->dst,
                                     sizeof key->dst);

    return hash_words((const uint32_t *) (&key->dst + 1),
                      (const uint32_t *) (key + 1)
                      - (const uint32_t *) (&key->dst + 1),
                      hsrc ^ hdst);
}

/* The key that lib/conntrack.c's conn_key_extract() gives a packet whose
 * cache key is 'ck', of a connection that may be cached (for ICMP, an echo
 * request: see ctc_conn_cacheable()). */
static void
ctc_conn_key_from_key(const struct xdp_dp_ct_key *ck, struct conn_key *k)
{
    memset(k, 0, sizeof *k);
    k->dl_type = htons(ck->ipv6 ? ETH_TYPE_IPV6 : ETH_TYPE_IP);
    k->zone = ck->zone;
    k->nw_proto = ck->nw_proto;
    memcpy(&k->src.addr, ck->src, ck->ipv6 ? 16 : 4);
    memcpy(&k->dst.addr, ck->dst, ck->ipv6 ? 16 : 4);
    if (ctc_is_icmp(ck->nw_proto)) {
        k->src.icmp_id = k->dst.icmp_id = ck->sport;
        k->src.icmp_type = ntohs(ck->dport) >> 8;
        k->dst.icmp_type = (ck->ipv6 ? CTC_ICMP6_ECHO_REQUEST + 1
                                     : ICMP4_ECHO_REPLY);
    } else {
        k->src.port = ck->sport;
        k->dst.port = ck->dport;
    }
}

/* Finds lib/conntrack.c's connection (not a NAT connection's reverse
 * entry) whose original direction has cache key 'ck'. */
static struct conn *
ctc_conn_find(struct conntrack *ct, const struct xdp_dp_ct_key *ck)
{
    struct conn_key k;
    struct conn *conn;

    ctc_conn_key_from_key(ck, &k);
    CMAP_FOR_EACH_WITH_HASH (conn, cm_node,
                             ctc_conn_key_hash(&k, ct->hash_basis),
                             &ct->conns) {
        struct xdp_dp_ct_key kk;

        if (conn->conn_type == CT_CONN_TYPE_DEFAULT
            && conn->key.zone == ck->zone
            && conn->key.nw_proto == ck->nw_proto) {
            ctc_key_from_conn_key(&conn->key, &kk);
            if (!memcmp(&kk, ck, sizeof kk)) {
                return conn;
            }
        }
    }
    return NULL;
}

/* One sync of the cache with lib/conntrack.c; see the top of the file. */
static void
ctc_sync(struct dp_xdp_ctcache *c)
    OVS_REQUIRES(c->mutex)
{
    long long now = time_msec();
    struct ctc_nominee *nom;
    struct ctc_conn *cc;
    struct conn *conn;

    if (hmap_is_empty(&c->conns) && hmap_is_empty(&c->nominees)) {
        return;
    }
    HMAP_FOR_EACH_SAFE (cc, node, &c->conns) {
        conn = ctc_conn_find(c->ct, &cc->ck[0]);
        if (!conn || cc->conn_id != conn || ctc_conn_expired(conn, now)
            || !ctc_conn_established(conn)
            || (conn->key.nw_proto == IPPROTO_TCP && !c->tcp_ok)) {
            ctc_remove(c, cc);
            continue;
        }

        /* Fold XDP's use back into the tracker. */
        bool used = false;
        for (int d = 0; d < 2; d++) {
            struct xdp_flow_stats st;

            xdp_flow_stats_read(&c->stats, cc->slot[d], &st);
            if (st.n_packets != cc->n_packets[d]) {
                cc->n_packets[d] = st.n_packets;
                used = true;
            }
        }
        if (used) {
            ovs_mutex_lock(&conn->lock);
            conn_update_expiration(c->ct, conn, cc->tm, now);
            ovs_mutex_unlock(&conn->lock);
        }
    }

    HMAP_FOR_EACH (nom, node, &c->nominees) {
        if (ctc_find(c, &nom->ck)) {
            continue;
        }
        conn = ctc_conn_find(c->ct, &nom->ck);
        if (conn && ctc_conn_cacheable(conn)
            && (conn->key.nw_proto != IPPROTO_TCP || c->tcp_ok)
            && !ctc_conn_expired(conn, now) && ctc_conn_established(conn)) {
            ctc_install(c, conn, &nom->ck);
        }
    }
    HMAP_FOR_EACH_POP (nom, node, &c->nominees) {
        free(nom);
    }
}

static void *
ctc_thread_main(void *c_)
{
    struct dp_xdp_ctcache *c = c_;

    while (!latch_is_set(&c->exit)) {
        uint64_t seqno;

        ovs_mutex_lock(&c->mutex);
        ctc_sync(c);
        seqno = seq_read(c->nominated);
        ovs_mutex_unlock(&c->mutex);

        latch_wait(&c->exit);
        poll_timer_wait(DP_XDP_CTC_MIN_MS);
        poll_block();

        latch_wait(&c->exit);
        seq_wait(c->nominated, seqno);
        poll_timer_wait(DP_XDP_CTC_SYNC_MS - DP_XDP_CTC_MIN_MS);
        poll_block();
    }
    return NULL;
}

struct dp_xdp_ctcache *
dp_xdp_ctcache_create(struct conntrack *ct, struct xdp_dp *skel,
                      const char *dp_name)
{
    struct dp_xdp_ctcache *c = xzalloc(sizeof *c);
    struct xdp_dp_ct_key key;
    int error;

    ovs_mutex_init(&c->mutex);
    hmap_init(&c->conns);
    hmap_init(&c->by_reply);
    c->tcp_ok = true;
    hmap_init(&c->nominees);
    slot_pool_init(&c->slots, XDP_DP_MAX_CT);
    c->by_slot = xcalloc(XDP_DP_MAX_CT, sizeof *c->by_slot);
    c->entries = xcalloc(XDP_DP_MAX_CT, sizeof *c->entries);
    c->orig6 = xcalloc(XDP_DP_MAX_CT, sizeof *c->orig6);
    c->slot_ipv6 = xcalloc(XDP_DP_MAX_CT, sizeof *c->slot_ipv6);
    c->gens = xcalloc(XDP_DP_MAX_CT, sizeof *c->gens);
    c->size = XDP_DP_MAX_CT;
    c->ct = ct;
    c->nominated = seq_create();
    c->key_fd = bpf_map__fd(skel->maps.xdp_dp_ct);
    c->entries_fd = bpf_map__fd(skel->maps.xdp_dp_ct_entries);
    error = xdp_flow_stats_map_open(&c->stats,
                                    bpf_map__fd(skel->maps.xdp_dp_ct_stats),
                                    XDP_DP_MAX_CT);
    if (error) {
        VLOG_ERR("%s: cannot mmap the connection cache's counters (%s): "
                 "ct() runs in ovs-vswitchd only", dp_name,
                 ovs_strerror(error));
        c->size = 0;
    }
    uint32_t n_next;
    c->next = xdp_array_mmap(bpf_map__fd(skel->maps.xdp_dp_ct_next),
                             sizeof *c->next, &c->next_size, &n_next);
    if (!c->next) {
        /* The program then finds nothing recorded, or what it recorded
         * itself for a connection that had the slot before: without the
         * zeroing in ctc_write(), the cache cannot be used. */
        VLOG_ERR("%s: cannot mmap the connection cache's next passes (%s): "
                 "ct() runs in ovs-vswitchd only", dp_name,
                 ovs_strerror(errno));
        c->size = 0;
    } else {
        /* Pinned, it may hold what an earlier run recorded. */
        memset(c->next, 0, c->next_size);
    }

    /* Connections do not survive a restart of ovs-vswitchd (nor does
     * lib/conntrack.c's state): entries that a pinned cache kept from an
     * earlier run would answer for connections the tracker no longer
     * knows. */
    while (!bpf_map_get_next_key(c->key_fd, NULL, &key)) {
        if (bpf_map_delete_elem(c->key_fd, &key)) {
            break;
        }
    }

    latch_init(&c->exit);
    c->thread = ovs_thread_create("xdp_ctcache", ctc_thread_main, c);
    return c;
}

void
dp_xdp_ctcache_destroy(struct dp_xdp_ctcache *c)
{
    struct ctc_conn *cc;

    if (!c) {
        return;
    }
    latch_set(&c->exit);
    xpthread_join(c->thread, NULL);
    latch_destroy(&c->exit);

    ovs_mutex_lock(&c->mutex);
    HMAP_FOR_EACH_SAFE (cc, node, &c->conns) {
        ctc_remove(c, cc);
    }
    struct ctc_nominee *nom;
    HMAP_FOR_EACH_POP (nom, node, &c->nominees) {
        free(nom);
    }
    ovs_mutex_unlock(&c->mutex);

    xdp_flow_stats_map_close(&c->stats);
    if (c->next) {
        munmap(c->next, c->next_size);
    }
    hmap_destroy(&c->conns);
    hmap_destroy(&c->by_reply);
    hmap_destroy(&c->nominees);
    seq_destroy(c->nominated);
    slot_pool_destroy(&c->slots);
    free(c->by_slot);
    free(c->entries);
    free(c->orig6);
    free(c->slot_ipv6);
    free(c->gens);
    ovs_mutex_destroy(&c->mutex);
    free(c);
}

void
dp_xdp_ctcache_set_size(struct dp_xdp_ctcache *c, uint32_t n_conns)
{
    uint32_t size = MIN(n_conns, XDP_DP_MAX_CT / 2) * 2;

    ovs_mutex_lock(&c->mutex);
    /* Not without its counters or its next passes (see
     * dp_xdp_ctcache_create()). */
    if (c->size != size && c->stats.slots && c->next) {
        c->size = size;
        /* Shrinking: make room by starting afresh; established
         * connections come back as their packets nominate them. */
        if (c->n_used > size) {
            struct ctc_conn *cc;

            HMAP_FOR_EACH_SAFE (cc, node, &c->conns) {
                ctc_remove(c, cc);
            }
        }
    }
    ovs_mutex_unlock(&c->mutex);
}

/* The cache key of the original direction of the connection that ct()
 * gave 'packet' (an IP packet with ct_state set), or false if it cannot
 * be cached. */
static bool
ctc_key_from_packet(const struct dp_packet *packet, struct xdp_dp_ct_key *ck)
{
    const struct pkt_metadata *md = &packet->md;
    ovs_be16 src_port, dst_port;
    uint16_t echo_request;
    uint8_t proto;

    if (md->ct_orig_tuple_ipv6) {
        const struct ovs_key_ct_tuple_ipv6 *t = &md->ct_orig_tuple.ipv6;

        ctc_key_init(ck, md->ct_zone, t->ipv6_proto, true,
                     &t->ipv6_src, &t->ipv6_dst);
        proto = t->ipv6_proto;
        src_port = t->src_port;
        dst_port = t->dst_port;
        echo_request = CTC_ICMP6_ECHO_REQUEST;
    } else {
        const struct ovs_key_ct_tuple_ipv4 *t = &md->ct_orig_tuple.ipv4;

        ctc_key_init(ck, md->ct_zone, t->ipv4_proto, false,
                     &t->ipv4_src, &t->ipv4_dst);
        proto = t->ipv4_proto;
        src_port = t->src_port;
        dst_port = t->dst_port;
        echo_request = ICMP4_ECHO_REQUEST;
    }
    switch (proto) {
    case IPPROTO_TCP:
    case IPPROTO_UDP:
        ck->sport = src_port;
        ck->dport = dst_port;
        return true;
    case IPPROTO_ICMP:
    case IPPROTO_ICMPV6: {
        /* The tuple has the original direction's type and code but not the
         * echo identifier, which is the packet's own (at the same place in
         * ICMP and ICMPv6 echoes). */
        const struct icmp_header *icmp = dp_packet_l4(packet);

        if (!icmp || dp_packet_l4_size(packet) < ICMP_HEADER_LEN
            || ntohs(src_port) != echo_request) {
            return false;
        }
        ck->sport = icmp->icmp_fields.echo.id;
        ck->dport = htons(echo_request << 8);
        return true;
    }
    default:
        return false;
    }
}

void
dp_xdp_ctcache_nominate(struct dp_xdp_ctcache *c,
                        const struct dp_packet *packet)
{
    uint8_t state = packet->md.ct_state;
    struct xdp_dp_ct_key ck;
    struct ctc_conn *cc;

    if (!c || !c->size
        || (state & (CS_ESTABLISHED | CS_RELATED | CS_INVALID | CS_NEW))
           != CS_ESTABLISHED
        || !ctc_key_from_packet(packet, &ck)) {
        return;
    }

    ovs_mutex_lock(&c->mutex);
    cc = ctc_find(c, &ck);
    if (cc) {
        /* A ct(commit) in ovs-vswitchd may have changed the mark or the
         * label: XDP must give the next packet the new ones. */
        struct xdp_dp_ct_entry *e = &c->entries[cc->slot[0]];

        if (e->mark != packet->md.ct_mark
            || memcmp(e->label, &packet->md.ct_label, sizeof e->label)) {
            for (int d = 0; d < 2; d++) {
                e = &c->entries[cc->slot[d]];
                e->mark = packet->md.ct_mark;
                memcpy(e->label, &packet->md.ct_label, sizeof e->label);
            }
            if (ctc_write(c, cc, false)) {
                COVERAGE_INC(xdp_ctcache_error);
                ctc_remove(c, cc);
            }
        }
    } else {
        uint32_t hash = ctc_key_hash(&ck);
        struct ctc_nominee *nom;

        if (!ctc_find_nominee(c, &ck, hash)
            && hmap_count(&c->nominees) < XDP_DP_MAX_CT) {
            nom = xmalloc(sizeof *nom);
            nom->ck = ck;
            hmap_insert(&c->nominees, &nom->node, hash);
            seq_change(c->nominated);
        }
    }
    ovs_mutex_unlock(&c->mutex);
}

/* TCP window pick-up
 * ===================
 *
 * lib/conntrack-tcp.c keeps each TCP connection's windows in a structure
 * of its own ('struct conn_tcp', private to that file), which it gives no
 * way to reset.  These mirror it (Open vSwitch 3.1); ctc_tcp_layout_ok()
 * checks the mirror against what conn_get_protoinfo() reports before it is
 * written, and a mismatch turns the caching of TCP connections off. */
struct ctc_tcp_peer {
    uint32_t seqlo;                 /* Max sequence number sent. */
    uint32_t seqhi;                 /* Max the other end ACKd + win. */
    uint16_t max_win;               /* Largest window (pre scaling). */
    uint8_t wscale;                 /* Window scaling factor. */
    enum ct_dpif_tcp_state state;
};

struct ctc_conn_tcp {
    struct conn up;
    struct ctc_tcp_peer peer[2];
};

#define CTC_WSCALE_MASK 0xf         /* lib/conntrack-tcp.c's CT_WSCALE_MASK. */

static bool
ctc_tcp_layout_ok(struct ctc_conn_tcp *t)
    OVS_REQUIRES(t->up.lock)
{
    struct ct_dpif_protoinfo pi;

    memset(&pi, 0, sizeof pi);
    ct_proto_tcp.conn_get_protoinfo(&t->up, &pi);
    return (pi.tcp.state_orig == t->peer[0].state
            && pi.tcp.state_reply == t->peer[1].state
            && pi.tcp.wscale_orig == (t->peer[0].wscale & CTC_WSCALE_MASK)
            && pi.tcp.wscale_reply == (t->peer[1].wscale & CTC_WSCALE_MASK));
}

void
dp_xdp_ctcache_pickup(struct dp_xdp_ctcache *c, const struct dp_packet *pkt,
                      const struct flow *flow, uint16_t zone)
{
    const struct tcp_header *tcp;
    struct xdp_dp_ct_key ck;
    struct ctc_conn *cc = NULL;
    struct ctc_conn *x;
    struct conn *conn;
    bool reply;

    bool ipv6 = flow->dl_type == htons(ETH_TYPE_IPV6);
    if (!c || (flow->dl_type != htons(ETH_TYPE_IP) && !ipv6)
        || flow->nw_proto != IPPROTO_TCP || flow->nw_frag) {
        return;
    }
    tcp = dp_packet_l4(pkt);
    if (!tcp || dp_packet_l4_size(pkt) < TCP_HEADER_LEN) {
        return;
    }
    uint16_t flags = TCP_FLAGS(tcp->tcp_ctl);
    ctc_key_init(&ck, zone, IPPROTO_TCP, ipv6,
                 ipv6 ? (const void *) &flow->ipv6_src
                      : (const void *) &flow->nw_src,
                 ipv6 ? (const void *) &flow->ipv6_dst
                      : (const void *) &flow->nw_dst);
    ck.sport = flow->tp_src;
    ck.dport = flow->tp_dst;

    ovs_mutex_lock(&c->mutex);
    if (hmap_is_empty(&c->conns)) {
        ovs_mutex_unlock(&c->mutex);
        return;
    }
    cc = ctc_find_any(c, &ck);
    if (!cc) {
        ovs_mutex_unlock(&c->mutex);
        return;
    }

    /* 'pkt' goes the way of the cached direction that it matches. */
    reply = memcmp(&ck, &cc->ck[0], sizeof ck) != 0;
    conn = ctc_conn_find(c->ct, &cc->ck[0]);
    if (conn && conn != cc->conn_id) {
        conn = NULL;            /* Another connection with that tuple. */
    }
    if (conn) {
        struct ctc_conn_tcp *t = CONTAINER_OF(conn, struct ctc_conn_tcp, up);
        /* The peer that sent 'pkt', and the one it goes to. */
        struct ctc_tcp_peer *src = &t->peer[reply];
        struct ctc_tcp_peer *dst = &t->peer[!reply];
        uint32_t seq = ntohl(get_16aligned_be32(&tcp->tcp_seq));
        uint32_t ack = ntohl(get_16aligned_be32(&tcp->tcp_ack));
        uint16_t win = ntohs(tcp->tcp_winsz);

        ovs_mutex_lock(&conn->lock);
        if (!ctc_tcp_layout_ok(t)) {
            c->tcp_ok = false;
            VLOG_ERR("lib/conntrack-tcp.c's connection layout is not the one "
                     "this build knows: TCP connections are no longer cached "
                     "in XDP");
            flags |= TCP_RST;   /* Take it out of the cache, below. */
        } else {
            uint8_t sws = src->wscale & CTC_WSCALE_MASK;
            uint8_t dws = dst->wscale & CTC_WSCALE_MASK;
            uint32_t end = seq + dp_packet_get_tcp_payload_length(pkt)
                           + !!(flags & TCP_FIN);

            /* As if this were the first packet lib/conntrack.c saw of the
             * connection in its state: the sender has sent up to 'end', the
             * receiver up to what the sender acknowledges, and each may
             * send a window ahead of what the other acknowledged. */
            src->seqlo = seq;
            src->seqhi = end + MAX(1, (uint32_t) dst->max_win << dws);
            if (flags & TCP_ACK) {
                dst->seqlo = ack;
                dst->seqhi = ack + MAX(1, (uint32_t) win << sws);
            }
        }
        ovs_mutex_unlock(&conn->lock);
    }
    if (!conn || !c->tcp_ok || flags & (TCP_SYN | TCP_FIN | TCP_RST)) {
        ctc_remove(c, cc);
    }
    if (!c->tcp_ok) {
        HMAP_FOR_EACH_SAFE (x, node, &c->conns) {
            if (x->ck[0].nw_proto == IPPROTO_TCP) {
                ctc_remove(c, x);
            }
        }
    }
    ovs_mutex_unlock(&c->mutex);
}

void
dp_xdp_ctcache_restore_md(struct dp_xdp_ctcache *c, uint32_t ct,
                          struct pkt_metadata *md)
{
    uint32_t slot = (ct & XDP_DP_PKT_CT_SLOT_MASK) - 1;
    const struct xdp_dp_ct_entry *e;

    if (!c || !ct || slot >= XDP_DP_MAX_CT) {
        return;
    }
    /* The entry may have been removed since XDP used it: its copy here
     * is then what XDP used. */
    ovs_mutex_lock(&c->mutex);
    e = &c->entries[slot];
    md->ct_state = e->state | (ct & XDP_DP_PKT_CT_F_NAT ? e->nat_state : 0);
    md->ct_zone = e->zone;
    md->ct_mark = e->mark;
    memcpy(&md->ct_label, e->label, sizeof md->ct_label);
    if (c->slot_ipv6[slot]) {
        md->ct_orig_tuple_ipv6 = true;
        md->ct_orig_tuple.ipv6.ipv6_src = c->orig6[slot][0];
        md->ct_orig_tuple.ipv6.ipv6_dst = c->orig6[slot][1];
        md->ct_orig_tuple.ipv6.src_port = e->orig_sport;
        md->ct_orig_tuple.ipv6.dst_port = e->orig_dport;
        md->ct_orig_tuple.ipv6.ipv6_proto = e->orig_proto;
    } else {
        md->ct_orig_tuple_ipv6 = false;
        md->ct_orig_tuple.ipv4.ipv4_src = e->orig_src;
        md->ct_orig_tuple.ipv4.ipv4_dst = e->orig_dst;
        md->ct_orig_tuple.ipv4.src_port = e->orig_sport;
        md->ct_orig_tuple.ipv4.dst_port = e->orig_dport;
        md->ct_orig_tuple.ipv4.ipv4_proto = e->orig_proto;
    }
    ovs_mutex_unlock(&c->mutex);
}

/* The cache key of the original direction of the connection of 'zone'
 * whose original direction is 'tuple', or false if it cannot be cached. */
static bool
ctc_key_from_tuple(uint16_t zone, const struct ct_dpif_tuple *tuple,
                   struct xdp_dp_ct_key *ck)
{
    if (tuple->l3_type != AF_INET && tuple->l3_type != AF_INET6) {
        return false;
    }
    ctc_key_init(ck, zone, tuple->ip_proto, tuple->l3_type == AF_INET6,
                 &tuple->src, &tuple->dst);
    if (ctc_is_icmp(tuple->ip_proto)) {
        ck->sport = tuple->icmp_id;
        ck->dport = htons(tuple->icmp_type << 8);
    } else {
        ck->sport = tuple->src_port;
        ck->dport = tuple->dst_port;
    }
    return true;
}

void
dp_xdp_ctcache_flush(struct dp_xdp_ctcache *c, const uint16_t *zone,
                     const struct ct_dpif_tuple *tuple)
{
    struct ctc_conn *cc;

    if (!c) {
        return;
    }
    ovs_mutex_lock(&c->mutex);
    if (tuple) {
        struct xdp_dp_ct_key ck;

        if (ctc_key_from_tuple(zone ? *zone : 0, tuple, &ck)) {
            cc = ctc_find(c, &ck);
            if (cc) {
                ctc_remove(c, cc);
            }
        }
    } else {
        HMAP_FOR_EACH_SAFE (cc, node, &c->conns) {
            if (!zone || cc->ck[0].zone == *zone) {
                ctc_remove(c, cc);
            }
        }
    }
    ovs_mutex_unlock(&c->mutex);
}

bool
dp_xdp_ctcache_counters(struct dp_xdp_ctcache *c, uint16_t zone,
                        const struct ct_dpif_tuple *orig,
                        struct ct_dpif_counters *orig_counters,
                        struct ct_dpif_counters *reply_counters)
{
    struct xdp_dp_ct_key ck;
    struct ctc_conn *cc;

    if (!c || !ctc_key_from_tuple(zone, orig, &ck)) {
        return false;
    }

    ovs_mutex_lock(&c->mutex);
    cc = ctc_find(c, &ck);
    if (cc) {
        struct ct_dpif_counters *out[2] = { orig_counters, reply_counters };

        for (int d = 0; d < 2; d++) {
            struct xdp_flow_stats st;

            xdp_flow_stats_read(&c->stats, cc->slot[d], &st);
            out[d]->packets += st.n_packets;
            out[d]->bytes += st.n_bytes;
        }
    }
    ovs_mutex_unlock(&c->mutex);
    return cc != NULL;
}

void
dp_xdp_ctcache_format(struct dp_xdp_ctcache *c, struct ds *s, bool verbose)
{
    struct ctc_conn *cc;

    if (!c) {
        return;
    }
    ovs_mutex_lock(&c->mutex);
    ds_put_format(s, "  connection cache: %"PRIu32" of %"PRIu32" directions "
                  "used (%"PRIuSIZE" connections); %"PRIu64" cached, "
                  "%"PRIu64" removed, %"PRIu64" refused (full)\n",
                  c->n_used, c->size, hmap_count(&c->conns),
                  c->n_installed, c->n_removed, c->n_refused);
    if (verbose) {
        HMAP_FOR_EACH (cc, node, &c->conns) {
            const struct xdp_dp_ct_key *ck = &cc->ck[0];
            struct xdp_flow_stats st[2];

            xdp_flow_stats_read(&c->stats, cc->slot[0], &st[0]);
            xdp_flow_stats_read(&c->stats, cc->slot[1], &st[1]);
            ds_put_format(s, "    zone=%"PRIu16",proto=%"PRIu8",src=",
                          ck->zone, ck->nw_proto);
            if (ck->ipv6) {
                ipv6_format_addr((const struct in6_addr *) ck->src, s);
                ds_put_cstr(s, ",dst=");
                ipv6_format_addr((const struct in6_addr *) ck->dst, s);
            } else {
                ovs_be32 src, dst;

                memcpy(&src, ck->src, 4);
                memcpy(&dst, ck->dst, 4);
                ds_put_format(s, IP_FMT",dst="IP_FMT, IP_ARGS(src),
                              IP_ARGS(dst));
            }
            if (ctc_is_icmp(ck->nw_proto)) {
                ds_put_format(s, ",id=%"PRIu16",type=%d", ntohs(ck->sport),
                              ntohs(ck->dport) >> 8);
            } else {
                ds_put_format(s, ",sport=%"PRIu16",dport=%"PRIu16,
                              ntohs(ck->sport), ntohs(ck->dport));
            }
            ds_put_format(s, ": orig %"PRIu64" packets, reply %"PRIu64
                          " packets\n", (uint64_t) st[0].n_packets,
                          (uint64_t) st[1].n_packets);
        }
    }
    ovs_mutex_unlock(&c->mutex);
}
