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

/* Upcalls, and packets executed in ovs-vswitchd.
 *
 * Transport.  The XDP program hands whole packets to ovs-vswitchd with
 * bpf_perf_event_output() on a BPF_MAP_TYPE_PERF_EVENT_ARRAY: one ring per
 * CPU, each sample a 'struct xdp_dp_upcall' followed by the frame, copied
 * from the XDP buffer by the kernel (the helper's flags carry the length).
 * We chose perf rings over the alternatives because (1) a BPF ring buffer
 * record must be reserved with a size known to the verifier and the frame
 * copied in with bounded loads, capping the frame length, while perf output
 * copies any length; (2) an AF_XDP socket needs a UMEM and rings per port
 * and queue and cannot carry our metadata; (3) per-CPU rings never contend
 * and a full ring fails the one sample, which the program counts as lost
 * (dpif/show "lost") and drops: the fast path never blocks.  Sampled
 * copies (sFlow, IPFIX) have per-CPU rings of their own, which wake a
 * handler every XDP_DP_SAMPLE_WAKEUP records rather than at each
 * (sample_rings_open()): a wakeup per copy cost ovs-xdp-bench forward's
 * sflow pipeline a quarter of its throughput.
 *
 * Handlers.  Ring i belongs to handler thread i % n_handlers, which reads
 * it in recv() and sleeps on its fd in recv_wait().  A burst on one CPU
 * therefore cannot delay the rings of other handlers, and each handler's
 * queue is bounded (DP_XDP_HANDLER_QUEUE).  Within a handler's queue an
 * ingress port may hold only DP_XDP_HANDLER_PORT_QUEUE entries: a handler
 * drains a ring whole when its queue runs empty, so with a single bound a
 * port that floods misses (within its XDP budget, which can exceed what
 * one handler takes) filled the queue at every drain, and the first
 * packets of other ports' new flows were dropped as often as not
 * (ovs-xdp-bench storm: 17 of 31).
 *
 * A MISS becomes a DPIF_UC_MISS upcall: the key is built by OVS's own
 * flow_extract() and odp_flow_key_from_flow(), so ofproto sees exactly what
 * it would from any other datapath.  A SLOW_PATH sample (a hit on a flow
 * whose actions XDP cannot run) and an OUTPUT sample are executed right
 * there, with OVS's odp_execute_actions(), and never reach ofproto.
 *
 * Execution.  dp_xdp_execute() runs ODP actions on a packet in userspace
 * (for ofproto's DPIF_OP_EXECUTE and for slow-path flows); output goes
 * through the port's netdev (an internal port's hidden peer, so that the
 * packet reaches the host stack).
 *
 * Userspace actions.  As in the kernel datapath, an OVS_ACTION_ATTR_USERSPACE
 * action makes a DPIF_UC_ACTION upcall: a copy of the packet as it is at
 * that point of the action list, its flow key, the action's userdata and,
 * if the action asks for them, the actions being run.  ofproto turns these
 * into packet-ins, sFlow and IPFIX samples, and slow-path translations.
 * The executing thread (the main thread, or any handler thread) builds the
 * upcall and queues it on a handler's 'actions' list, which has its own
 * mutex and a seq that wakes the handler from recv_wait(); recv() hands
 * these out before the ring samples.  But for packets that ofproto
 * executes (DPIF_OP_EXECUTE), these upcalls, and misses after a
 * recirculation, run ofproto's callback in the executing thread, as in
 * dpif-netdev (dpif-xdp-miss.c). */

#include <config.h>

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "coverage.h"
#include "csum.h"
#include "datapath/xdp-dp.h"      /* Before the skeleton: its types. */
#include "datapath/tc-dp.skel.h"
#include "datapath/xdp-dp.skel.h"
#include "dp-packet.h"
#include "dpif-xdp-private.h"
#include "ofproto-xdp/xdp-actions.h"
#include "flow.h"
#include "netdev.h"
#include "netlink.h"
#include "odp-execute.h"
#include "odp-util.h"
#include "packets.h"
#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "openvswitch/poll-loop.h"
#include "seq.h"
#include "smap.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_xdp_upcall);

COVERAGE_DEFINE(xdp_upcall_miss);
COVERAGE_DEFINE(xdp_upcall_slow_path);
COVERAGE_DEFINE(xdp_upcall_action);
COVERAGE_DEFINE(xdp_upcall_queue_full);
COVERAGE_DEFINE(xdp_execute_unsupported);
COVERAGE_DEFINE(xdp_uspace_hit);
COVERAGE_DEFINE(xdp_upcall_recirc_miss);
COVERAGE_DEFINE(xdp_recirc_too_deep);
COVERAGE_DEFINE(xdp_upcall_sample);
COVERAGE_DEFINE(xdp_sample_stale);
COVERAGE_DEFINE(xdp_upcall_mpls_truncated);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

/* Bytes of headroom in front of an upcalled frame, for headers that
 * actions push. */
#define DP_XDP_HEADROOM 128

/* Bytes of zeroed tailroom behind a frame that ovs-vswitchd runs actions
 * on (packet_tailroom()).  OVS 3.1's odp_set_ipv4() and odp_set_ipv6()
 * read and write a whole IP header from the packet's L3 offset even where
 * the frame ends inside it (an IP header cut short, which flow_extract()
 * does not accept but still takes for L3).  dpif-netdev's receive buffers
 * have room behind the frame; an exact copy has none, and the write
 * corrupted the heap (found by ovs-xdp-bench fuzz, then AddressSanitizer).
 * What is written there stays outside the frame, as in dpif-netdev. */
#define DP_XDP_TAILROOM 64

static void
packet_tailroom(struct dp_packet *p)
{
    dp_packet_prealloc_tailroom(p, DP_XDP_TAILROOM);
    memset(dp_packet_tail(p), 0, DP_XDP_TAILROOM);
}

/* Pages per CPU sample ring (a power of 2): 1 MB with 4 kB pages. */
#define DP_XDP_SAMPLE_RING_PAGES 256

/* How often a handler reads its sample rings, which wake it only every
 * XDP_DP_SAMPLE_WAKEUP records (see "Sampling" in datapath/xdp-dp.h). */
#define DP_XDP_SAMPLE_POLL_MS 50

/* Most upcalls queued for one handler, and for one ingress port there.
 * Other upcalls than misses (slow-path packets, outputs, samples) are
 * held to DP_XDP_HANDLER_SLOW_QUEUE in all instead, which leaves room for
 * other ports' misses: they cost no translation, and a port's upcall
 * budget lets them come in bursts several times DP_XDP_HANDLER_PORT_QUEUE
 * (which, as their only bound, kept a handler executing a tenth of what
 * it could: ovs-xdp-bench forward --pipeline=conntrack-slow). */
#define DP_XDP_HANDLER_QUEUE 1024
#define DP_XDP_HANDLER_PORT_QUEUE (DP_XDP_HANDLER_QUEUE / 8)
#define DP_XDP_HANDLER_SLOW_QUEUE (DP_XDP_HANDLER_QUEUE * 3 / 4)

/* Most slow-path packets executed in one recv() call. */
#define DP_XDP_RECV_BATCH 64

/* A sample copied out of a ring. */
struct dp_xdp_upcall_buf {
    struct ovs_list node;       /* In 'struct dp_xdp_handler''s 'queue'. */
    struct xdp_dp_upcall up;    /* What the program said. */
    uint8_t packet[];           /* 'up.pkt_len' bytes of frame. */
};

/* An upcall built in ovs-vswitchd by the thread that executed actions:
 * for an OVS_ACTION_ATTR_USERSPACE action (DPIF_UC_ACTION), or for a
 * packet that recirculated in userspace and missed (DPIF_UC_MISS).  'buf'
 * holds, in this order and each at a 4-byte aligned offset: the frame, the
 * flow key, and the optional userdata and actions attributes. */
struct dp_xdp_action_upcall {
    struct ovs_list node;       /* In 'struct dp_xdp_handler''s 'actions'. */
    enum dpif_upcall_type type; /* DPIF_UC_ACTION or DPIF_UC_MISS. */
    odp_port_t in_port;         /* The packet's input port. */
    ovs_be32 packet_type;       /* Not Ethernet after decap(), say. */
    uint32_t pkt_len;           /* Frame bytes at the start of 'buf'. */
    uint32_t key_ofs;           /* Offset of the flow key in 'buf'. */
    uint32_t key_len;           /* Length of the flow key. */
    uint32_t userdata_ofs;      /* Offset of the userdata attribute, or 0. */
    uint32_t actions_ofs;       /* Offset of the actions attribute, or 0. */
    uint32_t gso_size;          /* The packet's GSO size, or 0. */
    struct ofpbuf buf;          /* The data. */
};

static void
action_upcall_free(struct dp_xdp_action_upcall *au)
{
    if (au) {
        ofpbuf_uninit(&au->buf);
        free(au);
    }
}

/* What upcall keys carry: what the XDP parser extracts, plus the MPLS
 * labels that flow_extract() finds (with a depth of 0, an MPLS packet's
 * key would carry an empty, invalid MPLS attribute), and the metadata of
 * packets recirculated in ovs-vswitchd (recirc_id, dp_hash, conntrack). */
static const struct odp_support dp_xdp_odp_support = {
    .max_vlan_headers = 2,
    .max_mpls_depth = FLOW_MAX_MPLS_LABELS,
    .recirc = true,
    .ct_state = true,
    .ct_zone = true,
    .ct_mark = true,
    .ct_label = true,
    .ct_state_nat = true,
    .ct_orig_tuple = true,
    .ct_orig_tuple6 = true,
    .nd_ext = true,
};

/* What flow keys of this datapath carry, for whoever builds one. */
const struct odp_support *
dp_xdp_upcall_odp_support(void)
{
    return &dp_xdp_odp_support;
}

/* The handler whose rings are being consumed by this thread. */
DEFINE_STATIC_PER_THREAD_DATA(struct dp_xdp_handler *, cur_handler, NULL);

static void
ring_sample(void *dp_, int cpu OVS_UNUSED, void *data, __u32 size)
{
    struct dp_xdp_handler *h = *cur_handler_get();
    struct dp_xdp *dp = dp_;
    const struct xdp_dp_upcall *up = data;
    struct dp_xdp_upcall_buf *buf;

    if (size >= sizeof up->type && size < sizeof *up
        && up->type == XDP_DP_UPCALL_NUDGE) {
        return;                 /* Only woke us (see dpif-xdp-rings.c). */
    }
    if (size < sizeof *up || up->pkt_len > size - sizeof *up || !h) {
        VLOG_WARN_RL(&rl, "%s: malformed upcall sample (%"PRIu32" bytes)",
                     dp->name, size);
        return;
    }
    uint32_t port = up->in_port < DP_XDP_MAX_PORTS ? up->in_port : 0;
    bool miss = up->type == XDP_DP_UPCALL_MISS;
    if (h->n_queued >= DP_XDP_HANDLER_QUEUE
        || (miss ? h->port_queued[port] >= DP_XDP_HANDLER_PORT_QUEUE
                 : h->n_slow_queued >= DP_XDP_HANDLER_SLOW_QUEUE)) {
        COVERAGE_INC(xdp_upcall_queue_full);
        atomic_add_relaxed(&dp->n_queue_lost, 1, &(uint64_t) { 0 });
        return;
    }
    if (up->vlan_tpid && up->pkt_len < 2 * ETH_ADDR_LEN) {
        VLOG_WARN_RL(&rl, "%s: malformed upcall sample (%"PRIu32"-byte "
                     "frame with a VLAN tag)", dp->name, up->pkt_len);
        return;
    }
    buf = xmalloc(sizeof *buf + up->pkt_len + VLAN_HEADER_LEN);
    buf->up = *up;
    if (!up->vlan_tpid) {
        memcpy(buf->packet, up + 1, up->pkt_len);
    } else {
        /* The TC half's upcall: the kernel had taken the outer VLAN tag
         * out of the frame; it goes back after the addresses. */
        const uint8_t *frame = (const uint8_t *) (up + 1);
        ovs_be16 tag[2] = { up->vlan_tpid, up->vlan_tci };

        memcpy(buf->packet, frame, 2 * ETH_ADDR_LEN);
        memcpy(buf->packet + 2 * ETH_ADDR_LEN, tag, sizeof tag);
        memcpy(buf->packet + 2 * ETH_ADDR_LEN + VLAN_HEADER_LEN,
               frame + 2 * ETH_ADDR_LEN, up->pkt_len - 2 * ETH_ADDR_LEN);
        buf->up.pkt_len += VLAN_HEADER_LEN;
    }
    ovs_list_push_back(&h->queue, &buf->node);
    h->n_queued++;
    h->n_slow_queued += !miss;
    h->port_queued[port]++;
}

static void
ring_lost(void *dp_, int cpu OVS_UNUSED, __u64 cnt)
{
    struct dp_xdp *dp = dp_;

    atomic_add_relaxed(&dp->n_ring_lost, cnt, &(uint64_t) { 0 });
}

/* A record of the upcall or sample rings, which libbpf's raw interface
 * hands over as the kernel wrote it. */
static enum bpf_perf_event_ret
ring_event(void *dp_, int cpu, struct perf_event_header *event)
{
    if (event->type == PERF_RECORD_SAMPLE) {
        struct {
            struct perf_event_header header;
            uint32_t size;
            uint8_t data[];
        } *s = (void *) event;

        ring_sample(dp_, cpu, s->data, s->size);
    } else if (event->type == PERF_RECORD_LOST) {
        struct {
            struct perf_event_header header;
            uint64_t id;
            uint64_t lost;
        } *l = (void *) event;

        ring_lost(dp_, cpu, l->lost);
    }
    return LIBBPF_PERF_EVENT_CONT;
}

/* Opens the sample rings (see "Sampling" in datapath/xdp-dp.h): libbpf's
 * perf_buffer__new() asks the kernel to wake the reader at every record,
 * so they are opened raw, with a wakeup every XDP_DP_SAMPLE_WAKEUP. */
static int
sample_rings_open(struct dp_xdp *dp)
{
    struct perf_event_attr attr = {
        .type = PERF_TYPE_SOFTWARE,
        .config = PERF_COUNT_SW_BPF_OUTPUT,
        .sample_type = PERF_SAMPLE_RAW,
        .sample_period = 1,
        .wakeup_events = XDP_DP_SAMPLE_WAKEUP,
    };

    dp->sample_map_fd = dup(bpf_map__fd(dp->skel->maps.xdp_dp_samples));
    if (dp->sample_map_fd < 0) {
        return errno;
    }
    dp->sample_pb = perf_buffer__new_raw(dp->sample_map_fd,
                                         DP_XDP_SAMPLE_RING_PAGES, &attr,
                                         ring_event, dp, NULL);
    return dp->sample_pb ? 0 : errno;
}

int
dp_xdp_upcall_init(struct dp_xdp *dp)
{
    int error;

    fat_rwlock_init(&dp->upcall_lock);
    dp_xdp_miss_init(dp);
    atomic_init(&dp->n_ring_lost, 0);
    atomic_init(&dp->n_queue_lost, 0);
    error = dp_xdp_rings_open(dp, ring_event);
    if (error) {
        VLOG_ERR("%s: cannot create upcall rings (%s)",
                 dp->name, ovs_strerror(error));
        goto error;
    }

    error = sample_rings_open(dp);
    if (error) {
        VLOG_ERR("%s: cannot create sample rings (%s)",
                 dp->name, ovs_strerror(error));
        goto error;
    }
    dp->n_sample_buffers = perf_buffer__buffer_cnt(dp->sample_pb);
    return 0;

error:
    /* Closes what was opened (dp_xdp_rings_close() and the sample rings'
     * cleanup take what is not). */
    dp_xdp_upcall_destroy(dp);
    return error;
}

/* Applies other_config:xdp-upcall-burst from the Open_vSwitch table: how
 * many upcalls each port may make per CPU in each 10 ms (0: no limit).
 * Without the key, the default, XDP_DP_UPCALL_BURST.  The value lives in
 * the program's .data, which every program of the datapath shares, so a
 * compiled program swapped in later keeps it.  Returns EINVAL, keeping the
 * budget as it is, for a value that is not a number in range. */
int
dp_xdp_upcall_set_config(struct dp_xdp *dp, const struct smap *cfg)
{
    const char *s = smap_get(cfg, "xdp-upcall-burst");
    unsigned int burst = XDP_DP_UPCALL_BURST;

    if (s && (!str_to_uint(s, 10, &burst) || burst > 1000000)) {
        VLOG_WARN_RL(&rl, "%s: other_config:xdp-upcall-burst=%s is not a "
                     "number of upcalls from 0 to 1000000; keeping %"PRIu32,
                     dp->name, s, dp->skel->data->xdp_dp_upcall_burst);
        return EINVAL;
    }
    if (burst != dp->skel->data->xdp_dp_upcall_burst) {
        VLOG_INFO("%s: upcall budget per port per CPU: %u misses per 10 "
                  "ms, %u other upcalls per ms%s", dp->name, burst,
                  XDP_DP_SLOW_PATH_BURST(burst),
                  burst ? "" : " (no limit)");
        dp->skel->data->xdp_dp_upcall_burst = burst;
        dp->skel->data->xdp_dp_slow_path_burst = XDP_DP_SLOW_PATH_BURST(burst);
    }
    if (dp->tc_skel) {
        dp->tc_skel->data->xdp_dp_upcall_burst = burst;
        dp->tc_skel->data->xdp_dp_slow_path_burst
            = XDP_DP_SLOW_PATH_BURST(burst);
    }
    return 0;
}

/* Drops every upcall queued for 'h'.  The caller holds 'upcall_lock' for
 * writing. */
static void
handler_purge(struct dp_xdp_handler *h)
{
    struct dp_xdp_action_upcall *au;
    struct dp_xdp_upcall_buf *buf;

    LIST_FOR_EACH_POP (buf, node, &h->queue) {
        free(buf);
    }
    h->n_queued = h->n_slow_queued = 0;
    memset(h->port_queued, 0, DP_XDP_MAX_PORTS * sizeof *h->port_queued);

    ovs_mutex_lock(&h->mutex);
    LIST_FOR_EACH_POP (au, node, &h->actions) {
        action_upcall_free(au);
    }
    h->n_actions = 0;
    ovs_mutex_unlock(&h->mutex);
}

static void
handlers_destroy(struct dp_xdp *dp)
{
    for (uint32_t i = 0; i < dp->n_handlers; i++) {
        struct dp_xdp_handler *h = &dp->handlers[i];

        handler_purge(h);
        free(h->port_queued);
        ovs_mutex_destroy(&h->mutex);
        seq_destroy(h->actions_seq);
    }
    free(dp->handlers);
    dp->handlers = NULL;
    dp->n_handlers = 0;
}

void
dp_xdp_upcall_destroy(struct dp_xdp *dp)
{
    fat_rwlock_wrlock(&dp->upcall_lock);
    handlers_destroy(dp);
    dp_xdp_rings_close(dp);
    perf_buffer__free(dp->sample_pb);
    dp->sample_pb = NULL;
    if (dp->sample_map_fd >= 0) {
        close(dp->sample_map_fd);
        dp->sample_map_fd = -1;
    }
    fat_rwlock_unlock(&dp->upcall_lock);
    fat_rwlock_destroy(&dp->upcall_lock);
    dp_xdp_miss_destroy(dp);
}

uint64_t
dp_xdp_upcall_lost(struct dp_xdp *dp)
{
    uint64_t ring, queue;

    atomic_read_relaxed(&dp->n_ring_lost, &ring);
    atomic_read_relaxed(&dp->n_queue_lost, &queue);
    return ring + queue;
}

int
dpif_xdp_handlers_set(struct dpif *dpif, uint32_t n_handlers)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);

    fat_rwlock_wrlock(&dp->upcall_lock);
    handlers_destroy(dp);
    /* No handler is awake yet: the programs wake the new ones. */
    dp_xdp_rings_set_awake(dp, 0, 1, false);
    dp->n_handlers = n_handlers;
    dp->handlers = xcalloc(n_handlers, sizeof *dp->handlers);
    for (uint32_t i = 0; i < n_handlers; i++) {
        struct dp_xdp_handler *h = &dp->handlers[i];

        ovs_list_init(&h->queue);
        h->port_queued = xcalloc(DP_XDP_MAX_PORTS, sizeof *h->port_queued);
        ovs_mutex_init(&h->mutex);
        ovs_list_init(&h->actions);
        h->actions_seq = seq_create();
    }
    fat_rwlock_unlock(&dp->upcall_lock);
    return 0;
}

void
dpif_xdp_recv_purge(struct dpif *dpif)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);

    fat_rwlock_wrlock(&dp->upcall_lock);
    for (uint32_t i = 0; i < dp->n_handlers; i++) {
        handler_purge(&dp->handlers[i]);
    }
    fat_rwlock_unlock(&dp->upcall_lock);
}

/* Checksum offload.
 *
 * A frame that a veth peer or the host stack sent with checksum offload
 * reaches XDP with a partial TCP or UDP checksum: the field holds only the
 * pseudo-header sum, for the hardware (or the kernel, later) to finish.
 * Frames that XDP switches keep the kernel's note that the sum is
 * unfinished, but a frame copied to ovs-vswitchd loses it, and sent as it
 * is, the receiver drops it.  So before executing such a frame, ovs-vswitchd
 * recognises the partial sum (the field equals the folded pseudo-header
 * sum) and finishes it, as the kernel datapath does with skb_checksum_help()
 * before an upcall.  A full checksum that happened to equal that value
 * would be recomputed to the same value, so the test is safe. */
void
dp_xdp_complete_partial_csum(struct dp_packet *p, const struct flow *flow)
{
    ovs_be16 *field;
    uint32_t pseudo;
    size_t l4_size;
    void *l4;

    if ((flow->nw_proto != IPPROTO_TCP && flow->nw_proto != IPPROTO_UDP)
        || flow->nw_frag & FLOW_NW_FRAG_ANY || !dp_packet_l3(p)
        || !(l4 = dp_packet_l4(p))) {
        return;
    }
    if (flow->dl_type == htons(ETH_TYPE_IP)) {
        const struct ip_header *ip = dp_packet_l3(p);

        pseudo = packet_csum_pseudoheader(ip);
        l4_size = ntohs(ip->ip_tot_len) - IP_IHL(ip->ip_ihl_ver) * 4;
    } else if (flow->dl_type == htons(ETH_TYPE_IPV6)) {
        const struct ovs_16aligned_ip6_hdr *ip6 = dp_packet_l3(p);

        pseudo = packet_csum_pseudoheader6(ip6);
        l4_size = ntohs(ip6->ip6_plen);
        if ((char *) l4 != (char *) (ip6 + 1)) {
            return;             /* Extension headers: leave it. */
        }
    } else {
        return;
    }
    if (l4_size > dp_packet_l4_size(p)) {
        return;
    }
    if (flow->nw_proto == IPPROTO_TCP) {
        if (l4_size < TCP_HEADER_LEN) {
            return;
        }
        field = &((struct tcp_header *) l4)->tcp_csum;
    } else {
        if (l4_size < UDP_HEADER_LEN) {
            return;
        }
        field = &((struct udp_header *) l4)->udp_csum;
    }
    if (*field != (ovs_be16) ~csum_finish(pseudo)) {
        return;
    }
    *field = 0;
    *field = csum_finish(csum_continue(pseudo, l4, l4_size));
    if (!*field && flow->nw_proto == IPPROTO_UDP) {
        *field = htons(0xffff);
    }
}

/* Execution in userspace. */

struct dp_xdp_execute_ctx {
    struct dp_xdp *dp;
    const struct nlattr *actions;   /* The action list being run... */
    size_t actions_len;             /* ...and its length in bytes. */
    int depth;                      /* Recirculations so far. */
    uint32_t gso_size;              /* The packet's GSO size, or 0 (see
                                     * dpif-xdp-gso.c). */
    bool upcalls_here;              /* ofproto's DPIF_OP_EXECUTE: misses
                                     * after a recirculation and userspace
                                     * actions are handled in this thread
                                     * (dpif-xdp-miss.c). */
};

/* Most times ovs-vswitchd recirculates one packet, as dpif-netdev's
 * MAX_RECIRC_DEPTH: a flow table that loops drops the packet instead. */
#define DP_XDP_MAX_RECIRC_DEPTH 6

static void dp_xdp_execute_cb(void *ctx_, struct dp_packet_batch *,
                              const struct nlattr *, bool should_steal);

/* Returns the index of the handler that gets the upcalls of userspace
 * actions whose OVS_USERSPACE_ATTR_PID is 'pid'.
 *
 * In the kernel the pid names the Netlink socket of a handler (or, with
 * per-CPU dispatch, is replaced by the socket of the current CPU's handler).
 * dpif-xdp hands out no pids: its port_get_pid is NULL, so
 * dpif_port_get_pid() gives ofproto 0 for every userspace action it
 * composes, and 0 says nothing about a handler.  So every such upcall goes
 * to handler 0.  One queue also keeps the packet-ins and samples of a flow
 * in the order their packets were executed, as the kernel does for one
 * pid, and these upcalls are rare next to misses, which the rings spread
 * over all handlers. */
static uint32_t
handler_for_pid(struct dp_xdp *dp OVS_UNUSED, uint32_t pid OVS_UNUSED)
{
    return 0;
}

/* MPLS misses.
 *
 * flow_extract() puts into 'mpls_lse' the label stack entries of an MPLS
 * frame up to the bottom of the stack, at most FLOW_MAX_MPLS_LABELS of
 * them, and as many as the frame holds whole.  odp_flow_key_from_flow()
 * writes as many as flow_count_mpls_labels() counts, which skips all-zero
 * entries, so the key of an MPLS frame with no whole entry, or with an
 * all-zero one, does not read back as the flow: an empty MPLS attribute,
 * which odp_flow_key_to_flow() refuses (the miss was lost), or a stack
 * short of its last entries.  dpif-netdev hands ofproto its struct flow
 * without that round trip.  So the key of an MPLS miss carries exactly
 * the entries flow_extract() found, or one all-zero entry if none, which
 * both read back as the same struct flow: ofproto then sees what it sees
 * from dpif-netdev (found by ovs-xdp-bench fuzz).
 *
 * A frame that arrives with its stack cut off after an entry without the
 * bottom-of-stack bit does not go up at all: ofproto's translation of an
 * MPLS push aborts ovs-vswitchd on such a flow in commit_mpls_action(), as
 * it does on dpif-netdev's own misses (Open vSwitch 3.1's bug), so anyone
 * who can send one frame could stop the switch.  Those are dropped and
 * counted, on their first pass and after any recirculation in XDP (which
 * pushes no MPLS label: its stack is still the one that came in, from the
 * wire or out of a tunnel pop).  A stack that the flow table's own pushes
 * cut off (pushes onto a frame too short for the entries it had), in
 * actions that ovs-vswitchd executes, goes up when recirculated, as on
 * dpif-netdev: which translation follows is the flow table's, and
 * dropping it would differ from dpif-netdev (found by ovs-xdp-bench
 * fuzz). */

/* The number of whole label stack entries that flow_extract() found in
 * MPLS 'packet', up to the bottom of the stack, at most
 * FLOW_MAX_MPLS_LABELS; sets '*bottom' if the last one has the
 * bottom-of-stack bit. */
static int
mpls_count_entries(const struct dp_packet *packet, bool *bottom)
{
    const uint8_t *p = dp_packet_l2_5(packet);
    size_t size = p ? (const uint8_t *) dp_packet_tail(packet) - p : 0;
    int n = 0;

    *bottom = false;
    while (n < FLOW_MAX_MPLS_LABELS && size >= (n + 1) * MPLS_HLEN) {
        const struct mpls_hdr *mh = ALIGNED_CAST(const struct mpls_hdr *,
                                                 p + n * MPLS_HLEN);
        n++;
        if (mh->mpls_lse.lo & htons(1 << MPLS_BOS_SHIFT)) {
            *bottom = true;
            break;
        }
    }
    return n;
}

/* Copies the 'key_len' bytes of flow key 'key' to 'out', with the first
 * 'n' of 'mpls_lse' (at least one) in its OVS_KEY_ATTR_MPLS. */
static void
mpls_key_put(const struct nlattr *key, size_t key_len,
             const ovs_be32 *mpls_lse, int n, struct ofpbuf *out)
{
    const struct nlattr *a;
    size_t left;

    NL_ATTR_FOR_EACH (a, left, key, key_len) {
        enum ovs_key_attr type = nl_attr_type(a);

        if (type == OVS_KEY_ATTR_ENCAP) {
            size_t ofs = nl_msg_start_nested(out, type);

            mpls_key_put(nl_attr_get(a), nl_attr_get_size(a), mpls_lse, n,
                         out);
            nl_msg_end_nested(out, ofs);
        } else if (type == OVS_KEY_ATTR_MPLS) {
            nl_msg_put_unspec(out, type, mpls_lse,
                              MAX(n, 1) * sizeof *mpls_lse);
        } else {
            nl_msg_put_unspec(out, type, nl_attr_get(a), nl_attr_get_size(a));
        }
    }
}

/* Whether MPLS 'packet', whose flow is 'flow', has its label stack cut
 * off after an entry without the bottom-of-stack bit: no miss may take it
 * up, unless the flow table's own pushes made it so (see "MPLS misses"). */
static bool
mpls_cut_off(const struct dp_packet *packet, const struct flow *flow)
{
    bool bottom;
    int n = (eth_type_mpls(flow->dl_type)
             ? mpls_count_entries(packet, &bottom) : 0);

    return n && !bottom && n < FLOW_MAX_MPLS_LABELS;
}

/* Whether attribute type 't', nested in an action of 'type' (sample() or
 * check_pkt_len()), holds an action list. */
static bool
nested_actions(enum ovs_action_attr type, uint16_t t)
{
    return (type == OVS_ACTION_ATTR_SAMPLE
            ? t == OVS_SAMPLE_ATTR_ACTIONS
            : (t == OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER
               || t == OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL));
}

/* Whether the 'len' bytes of 'actions' push an MPLS label, also inside
 * clone(), sample() and check_pkt_len(), to 'depth' levels of them: then a
 * cut-off stack after them is the flow table's (see "MPLS misses"). */
static bool
actions_push_mpls(const struct nlattr *actions, size_t len, int depth)
{
    const struct nlattr *a;
    size_t left;

    NL_ATTR_FOR_EACH (a, left, actions, len) {
        enum ovs_action_attr type = nl_attr_type(a);
        const struct nlattr *b;
        size_t left_b;

        if (type == OVS_ACTION_ATTR_PUSH_MPLS
            || type == OVS_ACTION_ATTR_ADD_MPLS) {
            return true;
        }
        if (depth <= 0) {
            continue;
        }
        if (type == OVS_ACTION_ATTR_CLONE) {
            if (actions_push_mpls(nl_attr_get(a), nl_attr_get_size(a),
                                  depth - 1)) {
                return true;
            }
        } else if (type == OVS_ACTION_ATTR_SAMPLE
                   || type == OVS_ACTION_ATTR_CHECK_PKT_LEN) {
            NL_NESTED_FOR_EACH (b, left_b, a) {
                if (nested_actions(type, nl_attr_type(b))
                    && actions_push_mpls(nl_attr_get(b), nl_attr_get_size(b),
                                         depth - 1)) {
                    return true;
                }
            }
        }
    }
    return false;
}

/* Appends to 'buf' the flow key of 'packet', whose flow is 'flow', as
 * flow_extract() saw it: for MPLS, with the label stack entries it found
 * (see "MPLS misses"). */
static void
upcall_put_key(const struct dp_packet *packet, const struct flow *flow,
               struct ofpbuf *buf)
{
    struct odp_flow_key_parms parms = {
        .flow = flow,
        .support = dp_xdp_odp_support,
    };
    bool bottom;
    int n = (eth_type_mpls(flow->dl_type)
             ? mpls_count_entries(packet, &bottom) : 0);

    if (eth_type_mpls(flow->dl_type)
        && (!n || n != flow_count_mpls_labels(flow, NULL))) {
        struct odputil_keybuf stub;
        struct ofpbuf key;

        ofpbuf_use_stub(&key, &stub, sizeof stub);
        odp_flow_key_from_flow(&parms, &key);
        mpls_key_put(key.data, key.size, flow->mpls_lse, n, buf);
        ofpbuf_uninit(&key);
    } else {
        odp_flow_key_from_flow(&parms, buf);
    }
}

/* The GSO size of a miss.
 *
 * ofproto executes the packet of a miss with dpif_execute(), handing back
 * the very 'struct dp_packet' that the upcall held, but struct dpif_upcall
 * has no place for the GSO size the frame arrived with (from the TC half,
 * for a frame of a generic-mode port).  Without it a UDP GSO segment, the
 * first of a new flow, could not be cut into its datagrams and was lost
 * (see dpif-xdp-gso.c).  So the upcall leaves a note in the first bytes of
 * the frame's headroom, which belongs to the upcall's buffer, and
 * dp_xdp_execute() takes the size from it when the packet it is given is
 * that frame: in the same place, of the same size.  Nothing else writes
 * there before the execute: ofproto reuses the buffer only for its next
 * batch of upcalls. */
struct miss_note {
    uint64_t magic;             /* MISS_NOTE_MAGIC. */
    const void *data;           /* Where the frame is. */
    uint32_t size;              /* Its length. */
    uint32_t gso_size;          /* Its GSO size, or 0. */
};
#define MISS_NOTE_MAGIC 0x6f76732d78647067ULL
BUILD_ASSERT_DECL(sizeof(struct miss_note) <= DP_XDP_HEADROOM);

/* Notes 'gso_size' in the headroom of 'p', the packet of a new upcall. */
static void
miss_note_put(struct dp_packet *p, uint32_t gso_size)
{
    struct miss_note note = {
        .magic = MISS_NOTE_MAGIC,
        .data = dp_packet_data(p),
        .size = dp_packet_size(p),
        .gso_size = gso_size,
    };

    memcpy(dp_packet_base(p), &note, sizeof note);
}

/* The GSO size noted for 'p' if it is the packet of an upcall, else 0. */
static uint32_t
miss_note_get(const struct dp_packet *p)
{
    struct miss_note note;

    if (dp_packet_headroom(p) < sizeof note) {
        return 0;
    }
    memcpy(&note, dp_packet_base(p), sizeof note);
    return (note.magic == MISS_NOTE_MAGIC
            && note.data == dp_packet_data(p)
            && note.size == dp_packet_size(p)) ? note.gso_size : 0;
}

/* Returns a new upcall of 'type' for the first 'len' bytes of 'packet',
 * of GSO size 'gso_size' (or 0), with its flow key: that of the frame and
 * the packet's metadata, as make_miss_upcall() builds it.  'packet''s own
 * offsets stay untouched. */
static struct dp_xdp_action_upcall *
upcall_build(enum dpif_upcall_type type, const struct dp_packet *packet,
             uint32_t len, uint32_t gso_size)
{
    struct dp_xdp_action_upcall *au;
    struct dp_packet view;
    struct flow flow;

    au = xzalloc(sizeof *au);
    au->type = type;
    au->in_port = packet->md.in_port.odp_port;
    au->packet_type = packet->packet_type;
    au->pkt_len = len;
    au->gso_size = gso_size;
    ofpbuf_init(&au->buf, ROUND_UP(len, NLA_ALIGNTO) + ODPUTIL_FLOW_KEY_BYTES);
    ofpbuf_put(&au->buf, dp_packet_data(packet), len);
    ofpbuf_put_zeros(&au->buf, ROUND_UP(len, NLA_ALIGNTO) - len);

    dp_packet_use_const(&view, dp_packet_data(packet), len);
    view.md = packet->md;
    view.packet_type = packet->packet_type;
    flow_extract(&view, &flow);
    au->key_ofs = au->buf.size;
    upcall_put_key(&view, &flow, &au->buf);
    au->key_len = au->buf.size - au->key_ofs;
    dp_packet_uninit(&view);
    return au;
}

/* Queues 'au' for handler 'handler_id' modulo the number of handlers, or
 * drops and counts it if that handler's queue is full. */
static void
upcall_queue(struct dp_xdp *dp, struct dp_xdp_action_upcall *au,
             uint32_t handler_id)
{
    bool queued = false;

    fat_rwlock_rdlock(&dp->upcall_lock);
    if (dp->n_handlers) {
        struct dp_xdp_handler *h = &dp->handlers[handler_id % dp->n_handlers];

        ovs_mutex_lock(&h->mutex);
        if (h->n_actions < DP_XDP_HANDLER_QUEUE) {
            ovs_list_push_back(&h->actions, &au->node);
            h->n_actions++;
            queued = true;
        }
        ovs_mutex_unlock(&h->mutex);
        if (queued) {
            seq_change(h->actions_seq);
        }
    }
    fat_rwlock_unlock(&dp->upcall_lock);

    if (!queued) {
        COVERAGE_INC(xdp_upcall_queue_full);
        atomic_add_relaxed(&dp->n_queue_lost, 1, &(uint64_t) { 0 });
        action_upcall_free(au);
    }
}

/* Builds the DPIF_UC_ACTION upcall for running the userspace action
 * 'userspace' on 'packet' and queues it for a handler.  'packet' is left
 * as it is: the upcall has its own copy of the frame, because
 * odp_execute_actions() may go on modifying 'packet' after this. */
static void
queue_action_upcall(struct dp_xdp_execute_ctx *ctx,
                    const struct dp_packet *packet,
                    const struct nlattr *userspace)
{
    const struct nlattr *userdata = NULL;
    bool include_actions = false;
    struct dp_xdp_action_upcall *au;
    const struct nlattr *a;
    uint32_t pid = 0;
    size_t left;

    NL_NESTED_FOR_EACH_UNSAFE (a, left, userspace) {
        switch (nl_attr_type(a)) {
        case OVS_USERSPACE_ATTR_PID:
            pid = nl_attr_get_u32(a);
            break;
        case OVS_USERSPACE_ATTR_USERDATA:
            userdata = a;
            break;
        case OVS_USERSPACE_ATTR_ACTIONS:
            include_actions = true;
            break;
        default:
            /* OVS_USERSPACE_ATTR_EGRESS_TUN_PORT: no tunnels here. */
            break;
        }
    }

    /* A truncate action before this one shortens what goes up, as it would
     * shorten an output. */
    au = upcall_build(DPIF_UC_ACTION, packet,
                      dp_packet_size(packet) - dp_packet_get_cutlen(packet),
                      ctx->gso_size);

    /* ofproto reads only the payloads of these two attributes, so they keep
     * the types they have here.  With OVS_USERSPACE_ATTR_ACTIONS the kernel
     * sends the action list that holds the userspace action; we send the
     * whole list being executed, which is the same unless the action is
     * nested in sample() or clone(). */
    if (userdata) {
        au->userdata_ofs = au->buf.size;
        nl_msg_put_unspec(&au->buf, nl_attr_type(userdata),
                          nl_attr_get(userdata), nl_attr_get_size(userdata));
    }
    if (include_actions && ctx->actions
        && !nl_attr_oversized(ctx->actions_len)) {
        au->actions_ofs = au->buf.size;
        nl_msg_put_unspec(&au->buf, OVS_PACKET_ATTR_ACTIONS,
                          ctx->actions, ctx->actions_len);
    }
    upcall_queue(ctx->dp, au, handler_for_pid(ctx->dp, pid));
}

/* Runs 'actions' on 'packet', which they take, 'depth' recirculations
 * deep, with its upcalls in this thread if 'upcalls_here' (see 'struct
 * dp_xdp_execute_ctx'). */
static void
execute_actions(struct dp_xdp *dp, struct dp_packet *packet,
                const struct ofpbuf *actions, int depth, uint32_t gso_size,
                bool upcalls_here)
{
    struct dp_xdp_execute_ctx ctx = {
        .dp = dp,
        .actions = actions->data,
        .actions_len = actions->size,
        .depth = depth,
        .gso_size = gso_size,
        .upcalls_here = upcalls_here,
    };
    struct dp_packet_batch batch;

    /* flow_extract() gives TCP and UDP packets an RSS hash, which
     * odp_execute_actions() would hash instead of the 5-tuple: without
     * it, a hash action computes what the XDP program computes. */
    dp_packet_reset_offload(packet);
    dp_packet_batch_init_packet(&batch, packet);
    odp_execute_actions(&ctx, &batch, true, actions->data, actions->size,
                        dp_xdp_execute_cb);
}

/* Classifies 'packet', which it takes, against the flows ovs-vswitchd
 * looks up itself (dpif-xdp-uflow.c) and runs the actions of the flow it
 * matches, 'depth' recirculations deep (as execute_actions()).  Returns
 * false, without taking 'packet', if no flow matches.  'flow' is
 * flow_extract() of 'packet'. */
static bool
execute_uspace_hit(struct dp_xdp *dp, struct dp_packet *packet,
                   const struct flow *flow, int depth, uint32_t gso_size,
                   bool upcalls_here)
{
    struct ofpbuf *actions;

    if (!dp_xdp_flow_lookup_uspace(dp, flow, dp_packet_size(packet),
                                   &actions)) {
        return false;
    }
    COVERAGE_INC(xdp_uspace_hit);
    dp_xdp_uspace_count(&dp->uspace.n_uspace_hit);
    execute_actions(dp, packet, actions, depth, gso_size, upcalls_here);
    ofpbuf_delete(actions);
    return true;
}

/* Runs the miss of 'packet', which it takes unless it returns false,
 * in this thread (see dpif-xdp-miss.c). */
static bool
execute_miss_here(struct dp_xdp_execute_ctx *ctx, struct dp_packet *packet,
                  const struct flow *flow)
{
    struct ofpbuf actions;

    if (!dp_xdp_miss_upcall(ctx->dp, packet, flow, DPIF_UC_MISS, NULL,
                            &actions)) {
        return false;
    }
    dp_xdp_uspace_count(&ctx->dp->uspace.n_miss);
    execute_actions(ctx->dp, packet, &actions, ctx->depth + 1,
                    ctx->gso_size, true);
    ofpbuf_uninit(&actions);
    return true;
}

/* Runs the userspace action 'userspace' on 'packet' in this thread (see
 * dpif-xdp-miss.c), leaving 'packet' as it is.  Returns false if it must
 * be queued to a handler instead. */
static bool
action_upcall_here(struct dp_xdp_execute_ctx *ctx,
                   const struct dp_packet *packet,
                   const struct nlattr *userspace)
{
    const struct nlattr *userdata;
    struct dp_packet *copy;
    struct ofpbuf actions;
    struct flow flow;

    if (nl_attr_find_nested(userspace, OVS_USERSPACE_ATTR_ACTIONS)) {
        /* sFlow's: the upcall must carry the actions being run (its
         * sample reports their output), which ofproto's callback has no
         * room for; it would look them up by a UFID that no flow of ours
         * has.  The handler's queue takes it. */
        return false;
    }

    /* The copy goes up, cut as a truncate action before says, and takes
     * the actions ofproto may return. */
    copy = dp_packet_clone(packet);
    dp_packet_set_size(copy, dp_packet_size(packet)
                             - dp_packet_get_cutlen(packet));
    dp_packet_reset_cutlen(copy);
    packet_tailroom(copy);
    flow_extract(copy, &flow);
    userdata = nl_attr_find_nested(userspace, OVS_USERSPACE_ATTR_USERDATA);
    if (!dp_xdp_miss_upcall(ctx->dp, copy, &flow, DPIF_UC_ACTION, userdata,
                            &actions)) {
        dp_packet_delete(copy);
        return false;
    }
    COVERAGE_INC(xdp_upcall_action);
    if (actions.size) {
        /* A slow-path flow's translation, say. */
        execute_actions(ctx->dp, copy, &actions, ctx->depth + 1,
                        ctx->gso_size, true);
    } else {
        dp_packet_delete(copy);
    }
    ofpbuf_uninit(&actions);
    return true;
}

/* Whether a packet that ran 'ctx''s actions may be looked up again;
 * if not, drops 'batch' (taking its packets if 'should_steal'). */
static bool
may_recirculate(struct dp_xdp_execute_ctx *ctx, struct dp_packet_batch *batch,
                bool should_steal)
{
    if (ctx->depth >= DP_XDP_MAX_RECIRC_DEPTH) {
        COVERAGE_INC(xdp_recirc_too_deep);
        VLOG_WARN_RL(&rl, "%s: packet recirculated %d times, dropped",
                     ctx->dp->name, ctx->depth);
        dp_packet_delete_batch(batch, should_steal);
        return false;
    }
    return true;
}

/* The recirc action, for packets whose actions run in ovs-vswitchd (the
 * XDP program recirculates its own): looks each packet up again with its
 * new recirculation id ('recirc_id', or the one in its metadata if
 * UINT32_MAX), as the kernel datapath does with the packets that userspace
 * executes, and runs the flow it hits; a packet that misses becomes a
 * DPIF_UC_MISS upcall with its metadata in the key, so that ofproto
 * translates the next stage of its pipeline. */
static void
execute_recirc(struct dp_xdp_execute_ctx *ctx, struct dp_packet_batch *batch,
               uint32_t recirc_id, bool should_steal)
{
    struct dp_packet *packet;

    if (!may_recirculate(ctx, batch, should_steal)) {
        return;
    }
    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        struct dp_packet *p = packet;
        struct flow flow;

        if (!should_steal) {
            p = dp_packet_clone(packet);
            packet_tailroom(p);
        }

        if (recirc_id != UINT32_MAX) {
            p->md.recirc_id = recirc_id;
        }
        flow_extract(p, &flow);
        if (mpls_cut_off(p, &flow)
            && !actions_push_mpls(ctx->actions, ctx->actions_len, 4)) {
            COVERAGE_INC(xdp_upcall_mpls_truncated);
            VLOG_WARN_RL(&rl, "%s: dropped an MPLS packet whose label stack "
                         "is cut off (%"PRIu32" bytes)", ctx->dp->name,
                         dp_packet_size(p));
            dp_packet_delete(p);
        } else if (!execute_uspace_hit(ctx->dp, p, &flow, ctx->depth + 1,
                                       ctx->gso_size, ctx->upcalls_here)
                   && !(ctx->upcalls_here
                        && execute_miss_here(ctx, p, &flow))) {
            struct dp_xdp_action_upcall *au;

            COVERAGE_INC(xdp_upcall_recirc_miss);
            dp_xdp_uspace_count(&ctx->dp->uspace.n_miss);
            au = upcall_build(DPIF_UC_MISS, p, dp_packet_size(p),
                              ctx->gso_size);
            upcall_queue(ctx->dp, au, flow_hash_5tuple(&flow, 0));
            dp_packet_delete(p);
        }
    }
    if (should_steal) {
        dp_packet_batch_init(batch);
    }
}

static void
dp_xdp_execute_cb(void *ctx_, struct dp_packet_batch *batch,
                  const struct nlattr *a, bool should_steal)
{
    struct dp_xdp_execute_ctx *ctx = ctx_;
    enum ovs_action_attr type = nl_attr_type(a);
    struct dp_packet *packet;

    if (type == OVS_ACTION_ATTR_OUTPUT) {
        dp_xdp_output(ctx->dp, nl_attr_get_odp_port(a), batch, should_steal,
                      ctx->gso_size);
        return;
    }
    if (type == OVS_ACTION_ATTR_USERSPACE) {
        DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
            if (!ctx->upcalls_here || !action_upcall_here(ctx, packet, a)) {
                queue_action_upcall(ctx, packet, a);
            }
        }
        if (should_steal) {
            dp_packet_delete_batch(batch, true);
        } else {
            /* The truncation applied to this action only. */
            dp_packet_batch_reset_cutlen(batch);
        }
        return;
    }

    if (type == OVS_ACTION_ATTR_RECIRC) {
        execute_recirc(ctx, batch, nl_attr_get_u32(a), should_steal);
        return;
    }
    if (type == OVS_ACTION_ATTR_CT) {
        dp_xdp_ct_execute(ctx->dp, batch, a);
        if (should_steal) {
            dp_packet_delete_batch(batch, true);
        }
        return;
    }
    if (type == OVS_ACTION_ATTR_TUNNEL_PUSH) {
        if (should_steal) {
            /* The last action: nothing would see the result. */
            dp_packet_delete_batch(batch, true);
        } else {
            dp_xdp_tnl_push(ctx->dp, batch, a, ctx->gso_size, ctx->actions,
                            ctx->actions_len);
        }
        return;
    }
    if (type == OVS_ACTION_ATTR_METER) {
        /* odp_execute_actions() goes on with what the meter passed. */
        dp_xdp_meter_execute(ctx->dp, batch, nl_attr_get_u32(a));
        return;
    }
    if (type == OVS_ACTION_ATTR_TUNNEL_POP) {
        struct dp_packet_batch popped;

        if (may_recirculate(ctx, batch, should_steal)
            && dp_xdp_tnl_pop(ctx->dp, batch, a, should_steal, &popped)) {
            /* Looked up again, with the recirculation id that the pop
             * reset (0) and the tunnel port as input port. */
            execute_recirc(ctx, &popped, UINT32_MAX, true);
        }
        return;
    }

    /* odp_execute_actions() runs every action it can by itself and calls
     * here only for those that need a datapath: those above and
     * lb_output. */
    COVERAGE_INC(xdp_execute_unsupported);
    VLOG_WARN_RL(&rl, "%s: ODP action type %d is not supported yet; "
                 "packet dropped", ctx->dp->name, (int) type);
    dp_packet_delete_batch(batch, should_steal);
}

/* Runs 'execute''s actions on its packet.  Returns 0 (errors are logged
 * and counted, as a datapath would drop the packet). */
int
dp_xdp_execute(struct dp_xdp *dp, struct dpif_execute *execute)
{
    struct dp_xdp_execute_ctx ctx = {
        .dp = dp,
        .actions = execute->actions,
        .actions_len = execute->actions_len,
        .gso_size = miss_note_get(execute->packet),
        .upcalls_here = true,
    };
    struct dp_packet_batch batch;

    if (dp_packet_size(execute->packet) < ETH_HEADER_LEN) {
        return EINVAL;
    }
    if (execute->probe) {
        /* ofproto's feature probes: every action odp_execute_actions()
         * knows is supported here, and running one on a probe packet
         * could send it into the network. */
        return 0;
    }
    /* The actions may take the packet out of the batch and free it, or
     * put others in (conntrack's fragment reassembly does both), but
     * 'execute->packet' stays the caller's: they run on a copy, and what
     * becomes of it goes back into 'execute->packet'. */
    struct dp_packet *packet = dp_packet_clone(execute->packet);

    packet_tailroom(packet);
    dp_xdp_uspace_count(&dp->uspace.n_execute);
    /* No RSS hash, as in execute_actions(). */
    dp_packet_reset_offload(packet);
    dp_packet_batch_init_packet(&batch, packet);
    odp_execute_actions(&ctx, &batch, false, execute->actions,
                        execute->actions_len, dp_xdp_execute_cb);
    if (dp_packet_batch_size(&batch) == 1) {
        dp_packet_swap(execute->packet, batch.packets[0]);
    }
    dp_packet_delete_batch(&batch, true);
    return 0;
}

/* Initializes 'md' to the metadata that the program gave the packet of
 * 'up'. */
static void
upcall_restore_md(struct dp_xdp *dp, const struct xdp_dp_upcall *up,
                  struct pkt_metadata *md)
{
    pkt_metadata_init(md, u32_to_odp(up->in_port));
    md->recirc_id = up->recirc_id;
    md->dp_hash = up->dp_hash;
    dp_xdp_ctcache_restore_md(dp->ctcache, up->ct, md);
    if (up->tun_dst || !is_all_zeros(up->tun_ipv6_dst,
                                     sizeof up->tun_ipv6_dst)) {
        /* What netdev_vxlan_pop_header(), netdev_geneve_pop_header() or
         * netdev_gre_pop_header() would have given it; XDP's tunnel flags
         * are OVS's (datapath/xdp-dp.h).  Over IPv6, 'tun_src' and
         * 'tun_dst' are zero, as netdev_tnl_ip_extract_tnl_md() leaves
         * them.  pkt_metadata_init() zeroes only the destinations, which
         * OVS's pop follows with pkt_metadata_init_tnl(): the rest (GBP,
         * the options' length and map) is zeroed here as there, or
         * flow_extract() would copy whatever the packet's buffer held. */
        memset(&md->tunnel, 0, offsetof(struct flow_tnl, metadata.opts));
        md->tunnel.tun_id = up->tun_id;
        md->tunnel.ip_src = up->tun_src;
        md->tunnel.ip_dst = up->tun_dst;
        memcpy(&md->tunnel.ipv6_src, up->tun_ipv6_src,
               sizeof md->tunnel.ipv6_src);
        memcpy(&md->tunnel.ipv6_dst, up->tun_ipv6_dst,
               sizeof md->tunnel.ipv6_dst);
        md->tunnel.tp_src = up->tun_tp_src;
        md->tunnel.tp_dst = up->tun_tp_dst;
        md->tunnel.ip_tos = up->tun_tos;
        md->tunnel.ip_ttl = up->tun_ttl;
        md->tunnel.flags = up->tun_flags;
        if (up->tun_opts_len && up->tun_opts_len <= XDP_TNL_OPTS_LEN) {
            /* Geneve's options, raw, as netdev_geneve_pop_header() leaves
             * them (FLOW_TNL_F_UDPIF is in the flags). */
            memcpy(md->tunnel.metadata.opts.gnv, up->tun_opts,
                   up->tun_opts_len);
            md->tunnel.metadata.present.len = up->tun_opts_len;
        }
    }
}

/* Returns a copy of the packet in 'buf' with the metadata the program
 * gave it. */
static struct dp_packet *
upcall_packet(struct dp_xdp *dp, const struct dp_xdp_upcall_buf *buf)
{
    /* One allocation with the tailroom (packet_tailroom()) in it: a copy
     * of the exact size and then packet_tailroom() allocated twice, which
     * every slow-path packet paid (malloc and realloc were about 2% of a
     * handler's CPU under ovs-xdp-bench forward's conntrack-slow). */
    uint32_t len = buf->up.pkt_len;
    struct dp_packet *packet = dp_packet_new(len + DP_XDP_TAILROOM);

    dp_packet_put(packet, buf->packet, len);
    memset(dp_packet_tail(packet), 0, DP_XDP_TAILROOM);
    upcall_restore_md(dp, &buf->up, &packet->md);
    return packet;
}

/* A packet that missed in XDP may match a flow that only ovs-vswitchd
 * classifies against (one that matches what the XDP key cannot carry):
 * if so, runs its actions and returns true. */
static bool
execute_miss_uspace(struct dp_xdp *dp, const struct dp_xdp_upcall_buf *buf)
{
    struct dp_packet *packet = upcall_packet(dp, buf);
    struct flow flow;

    flow_extract(packet, &flow);
    dp_xdp_complete_partial_csum(packet, &flow);
    if (execute_uspace_hit(dp, packet, &flow, 0, buf->up.gso_size, false)) {
        return true;
    }
    dp_packet_delete(packet);
    return false;
}

/* Executes the actions of the flow in slot 'buf->up.slot' on the packet. */
static void
execute_slow_path(struct dp_xdp *dp, const struct dp_xdp_upcall_buf *buf)
{
    struct dp_packet *packet = upcall_packet(dp, buf);
    struct ofpbuf *actions;
    struct flow flow;

    /* odp_execute_actions() finds the headers through the packet's layer
     * offsets, which only parsing sets. */
    flow_extract(packet, &flow);
    actions = dp_xdp_flow_slow_path_hit(dp, buf->up.slot, buf->up.pkt_len,
                                        (flow.nw_proto == IPPROTO_TCP
                                         ? ntohs(flow.tcp_flags) : 0));
    if (!actions) {
        dp_packet_delete(packet);
        return;                 /* The flow went away meanwhile. */
    }
    dp_xdp_complete_partial_csum(packet, &flow);
    execute_actions(dp, packet, actions, 0, buf->up.gso_size, false);
    ofpbuf_delete(actions);
}

/* Runs, on the copy in 'buf' that an XDP_DP_ACTION_SAMPLE drew, the
 * nested actions of the sample() it stands for (see "Sampling" in
 * datapath/xdp-dp.h): usually one userspace action, which queues the
 * DPIF_UC_ACTION upcall that ofproto's sFlow or IPFIX exporter reads.  A
 * copy shorter than the packet was gets the rest as zeros. */
static void
execute_sample(struct dp_xdp *dp, const struct dp_xdp_upcall_buf *buf)
{
    uint32_t len = MAX(buf->up.orig_len, buf->up.pkt_len);
    struct ofpbuf *actions, nested;
    struct dp_packet *packet;

    actions = dp_xdp_flow_actions(dp, buf->up.slot);
    if (!actions) {
        return;                 /* The flow went away meanwhile. */
    }
    ofpbuf_init(&nested, 64);
    if (!xdp_actions_get_sample(actions->data, actions->size,
                                buf->up.sample, &nested)) {
        /* The slot holds another flow by now. */
        COVERAGE_INC(xdp_sample_stale);
        goto out;
    }

    packet = dp_packet_new_with_headroom(len, DP_XDP_HEADROOM);
    dp_packet_put(packet, buf->packet, buf->up.pkt_len);
    dp_packet_put_zeros(packet, len - buf->up.pkt_len);
    packet_tailroom(packet);
    upcall_restore_md(dp, &buf->up, &packet->md);

    struct dp_xdp_execute_ctx ctx = {
        .dp = dp,
        /* A userspace action with OVS_USERSPACE_ATTR_ACTIONS sends the
         * flow's actions: sFlow reads its outputs there. */
        .actions = actions->data,
        .actions_len = actions->size,
    };
    struct dp_packet_batch batch;
    struct flow flow;

    flow_extract(packet, &flow);    /* The layer offsets, as above. */
    dp_packet_reset_offload(packet);
    dp_packet_batch_init_packet(&batch, packet);
    odp_execute_actions(&ctx, &batch, true, nested.data, nested.size,
                        dp_xdp_execute_cb);
out:
    ofpbuf_uninit(&nested);
    ofpbuf_delete(actions);
}

/* Sends the packet in 'buf' to its port: the one it names, or, for an
 * output whose truncation the TC half left to us (tc_trunc() in
 * datapath/xdp-dp-tc.h), the one that sends to its device, cut. */
static void
execute_output(struct dp_xdp *dp, const struct dp_xdp_upcall_buf *buf)
{
    odp_port_t port_no = u32_to_odp(buf->up.slot);
    uint32_t len = buf->up.pkt_len;
    struct dp_packet_batch batch;

    if (buf->up.ifindex) {
        port_no = dp_xdp_port_no_by_tx_ifindex(dp, buf->up.ifindex);
        if (port_no == ODPP_NONE) {
            return;             /* The port went away meanwhile. */
        }
        len = MIN(len, buf->up.orig_len);
    }
    dp_packet_batch_init_packet(&batch, dp_packet_clone_data(buf->packet,
                                                             len));
    dp_xdp_output(dp, port_no, &batch, true, buf->up.gso_size);
}

/* Receiving. */

/* Makes the DPIF_UC_MISS upcall of 'buf' in 'upcall', with its frame and
 * key in 'ofpbuf'.  Returns false, with the packet dropped and counted, if
 * the packet cannot go up (see "MPLS misses"). */
static bool
make_miss_upcall(struct dp_xdp *dp, const struct dp_xdp_upcall_buf *buf,
                 struct dpif_upcall *upcall, struct ofpbuf *ofpbuf)
{
    uint32_t len = buf->up.pkt_len;
    struct flow flow;
    void *data;

    memset(upcall, 0, sizeof *upcall);
    upcall->type = DPIF_UC_MISS;

    /* One allocation for the frame (with headroom for pushed headers) and
     * the key, so that neither moves. */
    ofpbuf_clear(ofpbuf);
    ofpbuf_prealloc_tailroom(ofpbuf, DP_XDP_HEADROOM + len
                                     + ODPUTIL_FLOW_KEY_BYTES);
    ofpbuf_put_uninit(ofpbuf, DP_XDP_HEADROOM);
    data = ofpbuf_put(ofpbuf, buf->packet, len);
    dp_packet_use_stub(&upcall->packet,
                       (char *) data - DP_XDP_HEADROOM,
                       DP_XDP_HEADROOM + len);
    dp_packet_set_data(&upcall->packet, data);
    dp_packet_set_size(&upcall->packet, len);
    miss_note_put(&upcall->packet, buf->up.gso_size);
    upcall_restore_md(dp, &buf->up, &upcall->packet.md);

    flow_extract(&upcall->packet, &flow);
    if (mpls_cut_off(&upcall->packet, &flow)) {
        COVERAGE_INC(xdp_upcall_mpls_truncated);
        VLOG_WARN_RL(&rl, "%s: dropped an MPLS packet whose label stack is "
                     "cut off (%"PRIu32" bytes)", dp->name, len);
        dp_packet_uninit(&upcall->packet);
        return false;
    }
    dp_xdp_complete_partial_csum(&upcall->packet, &flow);

    size_t key_ofs = ofpbuf->size;
    upcall_put_key(&upcall->packet, &flow, ofpbuf);
    upcall->key = ofpbuf_at_assert(ofpbuf, key_ofs, 0);
    upcall->key_len = ofpbuf->size - key_ofs;

    odp_flow_key_hash(upcall->key, upcall->key_len, &upcall->ufid);
    return true;
}

/* Takes the oldest entry off 'h''s 'actions', or returns NULL. */
static struct dp_xdp_action_upcall *
handler_pop_action(struct dp_xdp_handler *h)
{
    struct dp_xdp_action_upcall *au = NULL;

    ovs_mutex_lock(&h->mutex);
    if (!ovs_list_is_empty(&h->actions)) {
        au = CONTAINER_OF(ovs_list_pop_front(&h->actions),
                          struct dp_xdp_action_upcall, node);
        h->n_actions--;
    }
    ovs_mutex_unlock(&h->mutex);
    return au;
}

/* Turns 'au' into a DPIF_UC_ACTION '*upcall', with its data in 'ofpbuf'
 * (laid out as make_miss_upcall() does). */
static void
make_action_upcall(const struct dp_xdp_action_upcall *au,
                   struct dpif_upcall *upcall, struct ofpbuf *ofpbuf)
{
    char *base;

    memset(upcall, 0, sizeof *upcall);
    upcall->type = au->type;

    ofpbuf_clear(ofpbuf);
    ofpbuf_prealloc_tailroom(ofpbuf, DP_XDP_HEADROOM + au->buf.size);
    ofpbuf_put_uninit(ofpbuf, DP_XDP_HEADROOM);
    base = ofpbuf_put(ofpbuf, au->buf.data, au->buf.size);

    dp_packet_use_stub(&upcall->packet, base - DP_XDP_HEADROOM,
                       DP_XDP_HEADROOM + au->pkt_len);
    dp_packet_set_data(&upcall->packet, base);
    dp_packet_set_size(&upcall->packet, au->pkt_len);
    miss_note_put(&upcall->packet, au->gso_size);
    pkt_metadata_init(&upcall->packet.md, au->in_port);
    /* ofproto parses the packet by its type, which the key also carries,
     * as dpif-netlink sets it from the key. */
    upcall->packet.packet_type = au->packet_type;
    if (au->packet_type != htonl(PT_ETH)) {
        dp_packet_set_l3(&upcall->packet, base);
    }

    upcall->key = ALIGNED_CAST(struct nlattr *, base + au->key_ofs);
    upcall->key_len = au->key_len;
    odp_flow_key_hash(upcall->key, upcall->key_len, &upcall->ufid);
    if (au->userdata_ofs) {
        upcall->userdata = ALIGNED_CAST(struct nlattr *,
                                        base + au->userdata_ofs);
    }
    if (au->actions_ofs) {
        upcall->actions = ALIGNED_CAST(struct nlattr *,
                                       base + au->actions_ofs);
    }
    upcall->out_tun_key = NULL;     /* No tunnels (yet). */
}

/* Moves what the rings of handler 'h', number 'handler_id', hold into its
 * queue. */
static void
handler_drain(struct dp_xdp *dp, struct dp_xdp_handler *h,
              uint32_t handler_id)
{
    *cur_handler_get() = h;
    for (int b = handler_id; b < dp->n_buffers; b += dp->n_handlers) {
        perf_buffer__consume_buffer(dp->pb, b);
    }
    for (int b = handler_id; b < dp->n_sample_buffers; b += dp->n_handlers) {
        perf_buffer__consume_buffer(dp->sample_pb, b);
    }
    *cur_handler_get() = NULL;
}

/* Says whether handler 'h', number 'handler_id', is 'awake' to the
 * programs, which then need not wake it (see dpif-xdp-rings.c). */
static void
handler_set_awake(struct dp_xdp *dp, struct dp_xdp_handler *h,
                  uint32_t handler_id, bool awake)
{
    if (h->awake != awake) {
        dp_xdp_rings_set_awake(dp, handler_id, dp->n_handlers, awake);
        h->awake = awake;
    }
}

int
dpif_xdp_recv(struct dpif *dpif, uint32_t handler_id,
              struct dpif_upcall *upcall, struct ofpbuf *ofpbuf)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);
    struct dp_xdp_handler *h;
    bool holding = false;
    int error = EAGAIN;

    fat_rwlock_rdlock(&dp->upcall_lock);
    if (handler_id >= dp->n_handlers || !dp->pb) {
        goto out;
    }
    h = &dp->handlers[handler_id];
    handler_set_awake(dp, h, handler_id, true);
    dp_xdp_tx_hold();
    holding = true;

    for (int i = 0; i < DP_XDP_RECV_BATCH; i++) {
        struct dp_xdp_action_upcall *au;
        struct dp_xdp_upcall_buf *buf;

        /* Userspace actions' upcalls first: there are at most
         * DP_XDP_HANDLER_QUEUE of them, and those that the slow-path
         * packets executed below queue here go out on the next pass. */
        au = handler_pop_action(h);
        if (au) {
            COVERAGE_INC(xdp_upcall_action);
            make_action_upcall(au, upcall, ofpbuf);
            action_upcall_free(au);
            error = 0;
            goto out;
        }

        if (ovs_list_is_empty(&h->queue)) {
            handler_drain(dp, h, handler_id);
            if (ovs_list_is_empty(&h->queue)) {
                break;
            }
        }

        buf = CONTAINER_OF(ovs_list_pop_front(&h->queue),
                           struct dp_xdp_upcall_buf, node);
        h->n_queued--;
        h->n_slow_queued -= buf->up.type != XDP_DP_UPCALL_MISS;
        h->port_queued[buf->up.in_port < DP_XDP_MAX_PORTS
                       ? buf->up.in_port : 0]--;
        switch (buf->up.type) {
        case XDP_DP_UPCALL_MISS:
            if (execute_miss_uspace(dp, buf)) {
                break;
            }
            COVERAGE_INC(xdp_upcall_miss);
            dp_xdp_uspace_count(&dp->uspace.n_miss);
            if (!make_miss_upcall(dp, buf, upcall, ofpbuf)) {
                break;
            }
            free(buf);
            error = 0;
            goto out;
        case XDP_DP_UPCALL_SLOW_PATH:
            COVERAGE_INC(xdp_upcall_slow_path);
            dp_xdp_uspace_count(&dp->uspace.n_slow_path);
            execute_slow_path(dp, buf);
            break;
        case XDP_DP_UPCALL_OUTPUT:
            dp_xdp_uspace_count(&dp->uspace.n_output);
            execute_output(dp, buf);
            break;
        case XDP_DP_UPCALL_SAMPLE:
            COVERAGE_INC(xdp_upcall_sample);
            dp_xdp_uspace_count(&dp->uspace.n_sample);
            execute_sample(dp, buf);
            break;
        default:
            VLOG_WARN_RL(&rl, "%s: unknown upcall type %"PRIu32,
                         dp->name, buf->up.type);
            break;
        }
        free(buf);
    }
out:
    if (holding) {
        dp_xdp_tx_release();
    }
    fat_rwlock_unlock(&dp->upcall_lock);
    return error;
}

void
dpif_xdp_recv_wait(struct dpif *dpif, uint32_t handler_id)
{
    struct dp_xdp *dp = dp_xdp_from_dpif(dpif);

    fat_rwlock_rdlock(&dp->upcall_lock);
    if (handler_id < dp->n_handlers && dp->pb) {
        struct dp_xdp_handler *h = &dp->handlers[handler_id];
        /* Read before looking at 'actions': an entry queued after the look
         * changes the seq and so ends the wait at once. */
        uint64_t seqno = seq_read(h->actions_seq);
        bool have_actions;

        ovs_mutex_lock(&h->mutex);
        have_actions = !ovs_list_is_empty(&h->actions);
        ovs_mutex_unlock(&h->mutex);

        if (!have_actions && ovs_list_is_empty(&h->queue) && h->awake) {
            /* Going to sleep: from here on the programs wake us.  A record
             * they wrote before they saw it may be in a ring, unannounced:
             * one more look. */
            handler_set_awake(dp, h, handler_id, false);
            handler_drain(dp, h, handler_id);
        }
        if (have_actions || !ovs_list_is_empty(&h->queue)) {
            handler_set_awake(dp, h, handler_id, true);
            poll_immediate_wake();
        } else {
            seq_wait(h->actions_seq, seqno);
            for (int b = handler_id; b < dp->n_buffers;
                 b += dp->n_handlers) {
                poll_fd_wait(perf_buffer__buffer_fd(dp->pb, b), POLLIN);
            }
            /* The sample rings wake us every XDP_DP_SAMPLE_WAKEUP records:
             * the last few wait for the timer. */
            for (int b = handler_id; b < dp->n_sample_buffers;
                 b += dp->n_handlers) {
                poll_fd_wait(perf_buffer__buffer_fd(dp->sample_pb, b),
                             POLLIN);
            }
            if (handler_id < dp->n_sample_buffers) {
                poll_timer_wait(DP_XDP_SAMPLE_POLL_MS);
            }
        }
    }
    fat_rwlock_unlock(&dp->upcall_lock);
}
