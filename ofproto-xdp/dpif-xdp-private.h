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

#ifndef DPIF_XDP_PRIVATE_H
#define DPIF_XDP_PRIVATE_H 1

/* The xdp datapath's state, shared by the modules of the provider
 * (dpif-xdp*.c: lifecycle, ports, the flow table, the compiler, upcalls
 * and execution in userspace, conntrack, counters...) and by no one
 * else: ofproto sees only the dpif class (dpif-xdp.h). */

#include <stdbool.h>
#include <stdint.h>

#include <bpf/libbpf.h>

#include "datapath/xdp-dp.h"
#include "dispatcher/xdp-attach.h"
#include "dpif-provider.h"
#include "fat-rwlock.h"
#include "maps/flow-stats.h"
#include "maps/map-batch.h"
#include "ofproto-xdp/slot-pool.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/list.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/thread.h"
#include "ovs-atomic.h"

struct ds;
struct conntrack;
struct dp_packet_batch;
struct flow;
struct match;
struct minimatch;
struct smap;
struct tc_dp;
struct xdp_dp;
struct dp_xdp_compiler;

/* A port of a datapath. */
/* A port's ingress policing, as the Interface's ingress_policing_* columns
 * give it (bursts with netdev-linux's defaults filled in); all zero for
 * none.  See dpif-xdp-police.c. */
struct dp_xdp_police_cfg {
    uint32_t kbits_rate;        /* kbit/s, or 0 for no byte limit. */
    uint32_t kbits_burst;       /* kbit (of 1024 bits). */
    uint32_t kpkts_rate;        /* kpkt/s, or 0 for no packet limit. */
    uint32_t kpkts_burst;       /* kpkt. */
};

struct dp_xdp_port {
    struct hmap_node node;      /* In 'struct dp_xdp''s 'ports'. */
    odp_port_t port_no;         /* Datapath port number. */
    struct netdev *netdev;      /* The network device, opened by ofproto. */
    char *type;                 /* Port type, as reported to ofproto. */
    int ifindex;                /* Kernel ifindex of 'netdev'. */
    int xdp_ifindex;            /* Device the program runs on: 'ifindex',
                                 * or the hidden peer of an internal port. */
    char *peer_name;            /* Internal ports: the hidden veth peer. */
    struct netdev *tx_netdev;   /* Where userspace sends the port's output:
                                 * 'netdev', or the peer's netdev. */
    bool attached;              /* Program attached and maps filled in? */
    enum xdp_dp_tx_mode tx_mode;    /* How XDP sends on this port. */
    enum xdp_dp_tx_mode tx_request; /* other_config:xdp-tx, or
                                     * XDP_DP_TX_NONE for "auto". */
    struct ds tx_why;           /* Why 'tx_mode'. */
    char *qos_type;             /* The device's QoS type (netdev_get_qos()),
                                 * NULL if it has none. */
    char *cfg_error;            /* What is wrong with the Interface's
                                 * other_config, or NULL. */
    char *tx_error;             /* Why 'tx_request' was refused, or NULL. */
    struct xdp_attachment att;  /* The program's attachment. */
    enum xdp_attach_mode mode;  /* Attach mode asked for, from the
                                 * Interface's other_config:xdp-mode. */
    enum xdp_attach_mode att_mode;  /* Mode of the last attach: 'mode', or
                                     * what "auto" chose then. */
    struct ds mode_why;         /* Why "auto" chose 'att_mode'. */
    uint64_t netdev_seq;        /* netdev_get_change_seq() of 'netdev' when
                                 * its device was last checked. */
    struct netdev_saved_flags *sf;  /* Flags to restore (promiscuous mode)
                                     * when the port goes. */
    struct dp_xdp_police_cfg police;    /* Ingress policing. */

    /* XDP_DP_TX_PEER (dpif-xdp-peer.c). */
    bool not_veth;              /* Known to be no veth with a peer. */
    bool has_peer;              /* 'peer' is valid: a veth whose peer is in
                                 * another namespace. */
    struct xdp_veth_peer peer;  /* What rtnetlink last said of the peer. */
    uint64_t peer_tx_packets;   /* Sent into the peer while earlier entries */
    uint64_t peer_tx_bytes;     /* of xdp_dp_peers were in place. */
};

/* A subtable: a distinct megaflow mask in use. */
struct dp_xdp_mask {
    bool in_use;                /* Is this slot taken? */
    unsigned int n_flows;       /* Flows that use this mask. */
    struct xdp_flow_key mask;   /* The mask. */
    int map_fd;                 /* The subtable's hash map. */
    long long int freed;        /* time_msec() when last freed. */
    /* What the compiler keeps of the slot (whether it is compiled in, its
     * compact map) is the compiler's own (struct dp_xdp_cslot):
     * dp_xdp_compile_slot_live() and dp_xdp_compile_slot_reset() are all
     * the flow table asks of it. */
};

/* A flow, as ovs-vswitchd knows it.  The BPF subtable holds its XDP form,
 * the statistics array its counters. */
struct dp_xdp_flow {
    struct hmap_node node;      /* In 'struct dp_xdp''s 'flows', by UFID. */
    struct hmap_node key_node;  /* In 'flows_by_key' (not for probes). */
    ovs_u128 ufid;              /* Unique flow id. */
    struct ofpbuf *key;         /* ODP key, as installed. */
    struct ofpbuf *mask;        /* ODP mask, as installed. */
    struct ofpbuf *actions;     /* ODP actions. */
    struct xdp_flow_key xkey;   /* Masked XDP key. */
    struct xdp_flow xflow;      /* The BPF value: slot, flags, actions. */
    int mask_slot;              /* Index into 'masks', or -1 for a probe
                                 * or a userspace-only flow. */
    bool uspace_only;           /* Matches what the XDP key cannot carry:
                                 * only ovs-vswitchd classifies against it
                                 * (dpif-xdp-uflow.c).  Has a slot. */
    bool spilled;               /* 'uspace_only' only because all XDP
                                 * subtables were in use: moved to XDP
                                 * once one is free (dp_xdp_flow_run()). */
    char *why_slow;             /* Why actions run in userspace, or NULL. */
    char *why_uspace;           /* Why only userspace classifies, or NULL. */
    struct minimatch *umatch;   /* In the userspace table, or NULL. */
    struct dp_xdp_usubtable *usub;  /* Its subtable there. */
    struct hmap_node unode;     /* In 'usub''s 'flows'. */
    struct xdp_flow_stats base; /* Counters at install or last zeroing. */
};

/* Upcalls queued for one handler thread.
 *
 * Only the handler thread itself touches 'queue'.  Any thread that executes
 * an OVS_ACTION_ATTR_USERSPACE action may add to 'actions', holding
 * 'upcall_lock' for reading and then 'mutex', the innermost lock. */
struct dp_xdp_handler {
    struct ovs_list queue;      /* 'struct dp_xdp_upcall_buf's. */
    size_t n_queued;            /* Length of 'queue'... */
    size_t n_slow_queued;       /* ...and its entries that are not
                                 * misses. */
    uint16_t *port_queued;      /* Entries of 'queue' by ingress port
                                 * number, DP_XDP_MAX_PORTS of them. */
    struct ovs_mutex mutex;     /* Protects 'actions' and 'n_actions'. */
    struct ovs_list actions OVS_GUARDED;    /* 'dp_xdp_action_upcall's. */
    size_t n_actions OVS_GUARDED;           /* Length of 'actions'. */
    struct seq *actions_seq;    /* Changes when 'actions' gets an entry. */
    bool awake;                 /* Whether its flags in 'upcall_awake'
                                 * say so (dpif-xdp-rings.c). */
};

/* The datapath.
 *
 * Thread safety
 * =============
 *
 * Acquisition order is, from outermost to innermost:
 *
 *    dp_xdp_mutex (global)
 *    the compiler's mutex (dpif-xdp-compile.c), which serializes compiles
 *        and program swaps; no one holding 'upcall_lock' takes it
 *    upcall_lock (fat rwlock: handlers take it to read)
 *    flow_mutex
 *    port_mutex
 *
 * 'skel', the map file descriptors and 'stats_map' are set up at creation
 * and constant until destruction.  The running program ('live_skel',
 * 'xdp_prog_fd', 'tc_prog_fd') changes only under both the compiler's
 * mutex, which serializes swaps (dpif-xdp-compile.c), and 'port_mutex'
 * (dp_xdp_swap_program()): either one keeps it still.  No swap holds
 * 'flow_mutex' while it updates the ports' links; 'live_action_bits',
 * under 'flow_mutex', holds only the actions of both programs while a
 * swap is under way. */
/* What ovs-vswitchd did with the packets that the programs sent up,
 * counted by ovs-vswitchd itself, next to the programs' own counters
 * (struct xdp_dp_stats) in dpif-xdp/stats-show: a packet switched in XDP
 * moves none of these (see dpif-xdp-stats.c). */
struct dp_xdp_uspace_stats {
    atomic_uint64_t n_miss;         /* Misses handed to ofproto (upcalls). */
    atomic_uint64_t n_slow_path;    /* Packets of slow-path flows that
                                     * ovs-vswitchd executed. */
    atomic_uint64_t n_output;       /* Outputs to ports that XDP cannot
                                     * transmit on, done by ovs-vswitchd. */
    atomic_uint64_t n_uspace_hit;   /* Hits on flows that ovs-vswitchd
                                     * classifies itself. */
    atomic_uint64_t n_execute;      /* Packets ofproto had executed
                                     * (DPIF_OP_EXECUTE: first packets of
                                     * flows, packet-outs). */
    atomic_uint64_t n_sample;       /* Copies drawn by sample() in XDP
                                     * whose nested actions ovs-vswitchd
                                     * ran (the packets stayed in XDP). */
};

struct dp_xdp {
    char *name;                 /* Datapath name, e.g. "ovs-xdp". */
    int ref_cnt;                /* Open dpifs; protected by dp_xdp_mutex. */
    bool destroyed;             /* dpif_delete() called: gone at last close. */

    /* The program and its maps. */
    struct xdp_dp *skel;        /* Loaded skeleton (datapath/xdp-dp.bpf.c):
                                 * owns the maps, for the datapath's life. */
    struct xdp_dp *live_skel;   /* The instance whose program runs: 'skel'
                                 * or a later one, which shares its maps
                                 * (changed under 'flow_mutex' and
                                 * 'port_mutex'). */
    int xdp_prog_fd;            /* The XDP program. */
    int tc_prog_fd;             /* Its TC ingress companion. */
    struct tc_dp *tc_skel;      /* The TC pipeline (datapath/tc-dp.bpf.c),
                                 * sharing 'skel''s maps, or NULL if it did
                                 * not load... */
    int tc_pipeline_fd;         /* ...and its program, or -1. */
    struct xdp_flow_stats_map stats_map;    /* mmapped flow statistics. */
    struct xdp_dp_flow_ids *flow_ids;   /* 'xdp_dp_flow_ids', mmapped
                                         * (see "The
                                 * pass after a cached ct()" in
                                 * datapath/xdp-dp.h), or NULL. */
    size_t flow_ids_size;       /* Bytes mapped. */
    uint64_t *gre_seq;          /* 'xdp_dp_gre_seq', mmapped: per tunnel
                                 * port, the GRE sequence numbers given
                                 * (see dpif-xdp-tnl.c)... */
    size_t gre_seq_size;        /* ...and the bytes mapped. */
    uint32_t next_flow_id OVS_GUARDED_BY(flow_mutex);   /* The next id. */
    bool pinned;                /* Maps pinned in bpffs (maps/pin.c)? */
    bool reused;                /* Pinned maps of an earlier run reused? */

    /* Ports. */
    struct ovs_mutex port_mutex;
    struct hmap ports OVS_GUARDED;  /* 'struct dp_xdp_port's by port_no. */
    uint32_t max_ports;         /* Port numbers are below this, at most
                                 * DP_XDP_MAX_PORTS. */
    struct seq *port_seq;       /* Incremented on each port add or delete. */
    int *stale_links OVS_GUARDED;   /* Ifindexes whose links an earlier run
                                     * pinned and no port has claimed. */
    int n_stale_links OVS_GUARDED;  /* Number of 'stale_links'. */
    long long int stale_deadline;   /* When to remove unclaimed links. */
    long long int peer_check_deadline;  /* When to read the peers of veth
                                         * ports again (dpif-xdp-peer.c). */

    /* Flows. */
    struct ovs_mutex flow_mutex;
    struct hmap flows OVS_GUARDED;  /* 'struct dp_xdp_flow's by UFID. */
    struct hmap flows_by_key OVS_GUARDED;   /* The same, by subtable and
                                             * masked key. */
    size_t n_flows OVS_GUARDED;     /* Flows with a slot (no probes). */
    size_t n_spilled OVS_GUARDED;   /* Flows with 'spilled' set. */
    long long int next_unspill OVS_GUARDED; /* When to try to move them. */
    uint32_t max_flows;         /* Flows the datapath takes, at most
                                 * XDP_DP_MAX_FLOWS (see
                                 * dp_xdp_flow_init()). */
    struct hmap usubtables OVS_GUARDED; /* Userspace classifier
                                         * (dpif-xdp-uflow.c). */
    struct dp_xdp_mask masks[XDP_DP_MAX_MASKS] OVS_GUARDED;
    uint32_t mask_order[XDP_DP_MAX_MASKS] OVS_GUARDED; /* Visit order. */
    uint32_t n_masks OVS_GUARDED;   /* Valid entries in 'mask_order'. */
    uint32_t active_list OVS_GUARDED;   /* Copy of the order list in use. */
    struct slot_pool slots OVS_GUARDED; /* Free statistics slots. */
    struct ovs_list quarantine OVS_GUARDED; /* Slots freed recently. */
    struct dp_xdp_flow **slot_flows OVS_GUARDED;    /* By slot. */
    struct xdp_map_calls calls OVS_GUARDED;     /* Flow table system calls
                                                 * made. */

    /* Upcalls. */
    struct fat_rwlock upcall_lock;
    struct perf_buffer *pb;     /* The per-CPU upcall rings... */
    int *ring_cpus;             /* ...the CPU of each... */
    int upcall_map_fd;          /* ...their own fd for xdp_dp_upcalls... */
    int quiet_map_fd;           /* ...and for xdp_dp_upcalls_quiet... */
    int *quiet_fds;             /* ...and their quiet events, or -1. */
    atomic_uint64_t *upcall_awake;  /* xdp_dp_upcall_awake, mapped, or
                                     * NULL (see dpif-xdp-rings.c). */
    struct perf_buffer *sample_pb;  /* The per-CPU sample rings. */
    int sample_map_fd;          /* Their own fd for xdp_dp_samples. */
    int n_sample_buffers;       /* Rings in 'sample_pb'. */
    int n_buffers;              /* Rings in 'pb'. */
    uint32_t n_handlers;        /* Handler threads; protected by
                                 * 'upcall_lock' (held for writing). */
    struct dp_xdp_handler *handlers;    /* 'n_handlers' of them. */
    atomic_uint64_t n_ring_lost;    /* Samples the rings lost. */
    atomic_uint64_t n_queue_lost;   /* Upcalls our queues dropped. */
    struct dp_xdp_uspace_stats uspace;  /* Packets handled in userspace. */

    /* ofproto's upcall callback, for the upcalls of packets that it
     * executes itself (dpif-xdp-miss.c). */
    struct {
        struct ovs_rwlock lock;
        upcall_callback *cb OVS_GUARDED;
        void *aux OVS_GUARDED;
        bool enabled OVS_GUARDED;
    } miss;

    /* Connection tracking (dpif-xdp-ct.c), for ct() actions, which run in
     * ovs-vswitchd, and the cache of its established connections in XDP
     * (dpif-xdp-ctcache.c). */
    struct conntrack *conntrack;
    struct dp_xdp_ctcache *ctcache;

    /* Native tunneling (dpif_xdp_run()), main thread only. */
    uint64_t last_tnl_conf_seq; /* tnl_conf_seq when last seen. */

    /* The flow-table compiler (dpif-xdp-compile.c). */
    struct dp_xdp_compiler *compiler;
    uint32_t live_action_bits OVS_GUARDED;  /* Actions the running program
                                             * has code for ('flow_mutex'). */
};

/* Largest port number handed out, plus one. */
#define DP_XDP_MAX_PORTS XDP_DP_MAX_PORTS

/* dpif-xdp.c */
struct dp_xdp *dp_xdp_from_dpif(const struct dpif *);
void dp_xdp_claim_stale_link(struct dp_xdp *, int ifindex);

/* dpif-xdp-port.c */
uint32_t dp_xdp_hash_port_no(odp_port_t);
struct dp_xdp_port *dp_xdp_lookup_port(const struct dp_xdp *, odp_port_t);
struct dp_xdp_port *dp_xdp_lookup_port_by_name(const struct dp_xdp *,
                                               const char *devname);
odp_port_t dp_xdp_port_no_by_tx_ifindex(struct dp_xdp *, int ifindex);
const char *dp_xdp_tx_mode_to_string(enum xdp_dp_tx_mode);
void dp_xdp_port_error_changed(void);
void dp_xdp_port_destroy(struct dp_xdp *, struct dp_xdp_port *);
void dp_xdp_check_devices(struct dp_xdp *);
int dpif_xdp_port_add(struct dpif *, struct netdev *, odp_port_t *port_nop);
int dpif_xdp_port_del(struct dpif *, odp_port_t);
int dpif_xdp_port_set_config(struct dpif *, odp_port_t, const struct smap *);
/* The netdev through which userspace sends on port 'port_no', or NULL.
 * The caller closes it. */
struct netdev *dp_xdp_port_netdev_ref(struct dp_xdp *, odp_port_t);
int dp_xdp_port_write_in_value(struct dp_xdp *dp, const struct dp_xdp_port *)
    OVS_REQUIRES(dp->port_mutex);
int dp_xdp_port_update_tx_mode(struct dp_xdp *dp, struct dp_xdp_port *)
    OVS_REQUIRES(dp->port_mutex);
int dp_xdp_port_retx(struct dp_xdp *dp, struct dp_xdp_port *)
    OVS_REQUIRES(dp->port_mutex);

/* dpif-xdp-peer.c */
bool dp_xdp_peer_eligible(struct dp_xdp_port *, struct ds *why);
int dp_xdp_peer_write(struct dp_xdp *, struct dp_xdp_port *);
void dp_xdp_peer_destroy(struct dp_xdp *, struct dp_xdp_port *);
void dp_xdp_peer_run(struct dp_xdp *dp) OVS_REQUIRES(dp->port_mutex);

/* dpif-xdp-tx.c. */
void dp_xdp_tx_hold(void);
void dp_xdp_tx_release(void);
void dp_xdp_output(struct dp_xdp *, odp_port_t, struct dp_packet_batch *,
                   bool should_steal, uint32_t gso_size);

/* dpif-xdp-rings.c. */
int dp_xdp_rings_open(struct dp_xdp *, perf_buffer_event_fn);
void dp_xdp_rings_close(struct dp_xdp *);
void dp_xdp_rings_set_awake(struct dp_xdp *, int first, int step,
                            bool awake);
/* The netdev of tunnel port 'port_no', whose class pushes and pops its
 * headers, or NULL if it is not a tunnel port.  The caller closes it. */
struct netdev *dp_xdp_port_tnl_netdev_ref(struct dp_xdp *, odp_port_t);

/* dpif-xdp-upcall.c */
void dp_xdp_complete_partial_csum(struct dp_packet *, const struct flow *);

/* dpif-xdp-tnl.c */
void dp_xdp_tnl_push(struct dp_xdp *, struct dp_packet_batch *,
                     const struct nlattr *, uint32_t gso_size,
                     const struct nlattr *actions, size_t actions_len);
bool dp_xdp_tnl_pop(struct dp_xdp *, struct dp_packet_batch *,
                    const struct nlattr *, bool should_steal,
                    struct dp_packet_batch *out);

/* dpif-xdp-meter.c */
struct ofputil_meter_config;
struct ofputil_meter_features;
struct ofputil_meter_stats;
void dpif_xdp_meter_get_features(const struct dpif *,
                                 struct ofputil_meter_features *);
int dpif_xdp_meter_set(struct dpif *, ofproto_meter_id,
                       struct ofputil_meter_config *);
int dpif_xdp_meter_get(const struct dpif *, ofproto_meter_id,
                       struct ofputil_meter_stats *, uint16_t n_bands);
int dpif_xdp_meter_del(struct dpif *, ofproto_meter_id,
                       struct ofputil_meter_stats *, uint16_t n_bands);
void dp_xdp_meter_execute(struct dp_xdp *, struct dp_packet_batch *,
                          uint32_t meter_id);

/* dpif-xdp-police.c */
bool dp_xdp_police_is_set(const struct dp_xdp_police_cfg *);
int dp_xdp_police_write(struct dp_xdp *dp, const struct dp_xdp_port *)
    OVS_REQUIRES(dp->port_mutex);
void dp_xdp_police_format(struct dp_xdp *, struct ds *);

/* dpif-xdp-flow.c */
int dp_xdp_flow_init(struct dp_xdp *);
void dp_xdp_flow_restore(struct dp_xdp *);
void dp_xdp_flow_set_actions(struct dp_xdp_flow *, const struct nlattr *,
                             size_t actions_len);
uint32_t dp_xdp_flow_key_hash(int mask_slot, const struct xdp_flow_key *);

/* A statistics slot or subtable slot freed less than this long ago is not
 * handed out again (see "Statistics slots" in dpif-xdp-flow.c). */
#define DP_XDP_SLOT_QUARANTINE_MS 100

/* dpif-xdp-subtable.c. */
int dp_xdp_mask_ref(struct dp_xdp *, const struct xdp_flow_key *mask)
    OVS_REQUIRES(dp->flow_mutex);
void dp_xdp_mask_unref(struct dp_xdp *, int slot)
    OVS_REQUIRES(dp->flow_mutex);
int dp_xdp_mask_find(const struct dp_xdp *, const struct xdp_flow_key *)
    OVS_REQUIRES(dp->flow_mutex);
void dp_xdp_subtable_restore(struct dp_xdp *) OVS_REQUIRES(dp->flow_mutex);
void dp_xdp_subtable_prune(struct dp_xdp *) OVS_REQUIRES(dp->flow_mutex);

/* dpif-xdp-flow-restore.c. */
void dp_xdp_flow_ids_set(struct dp_xdp *, const struct dp_xdp_flow *);
void dp_xdp_flow_meta_write(struct dp_xdp *, struct dp_xdp_flow **,
                            size_t n) OVS_REQUIRES(dp->flow_mutex);
void dp_xdp_flow_meta_delete(struct dp_xdp *, uint32_t *slots, size_t n)
    OVS_REQUIRES(dp->flow_mutex);
void dp_xdp_flow_run(struct dp_xdp *);
void dp_xdp_flow_wait(struct dp_xdp *);
uint32_t dp_xdp_env_limit(const char *name, uint32_t max);
int dp_xdp_flow_fill_subtables(struct dp_xdp *);
void dp_xdp_flow_destroy(struct dp_xdp *);
int dpif_xdp_flow_flush(struct dpif *);
struct dpif_flow_dump *dpif_xdp_flow_dump_create(
    const struct dpif *, bool terse, struct dpif_flow_dump_types *);
int dpif_xdp_flow_dump_destroy(struct dpif_flow_dump *);
struct dpif_flow_dump_thread *dpif_xdp_flow_dump_thread_create(
    struct dpif_flow_dump *);
void dpif_xdp_flow_dump_thread_destroy(struct dpif_flow_dump_thread *);
int dpif_xdp_flow_dump_next(struct dpif_flow_dump_thread *, struct dpif_flow *,
                            int max_flows);
int dp_xdp_flow_put(struct dp_xdp *, struct dpif_flow_put *);
int dp_xdp_flow_del(struct dp_xdp *, struct dpif_flow_del *);
void dp_xdp_flow_put_batch(struct dp_xdp *, struct dpif_op **, size_t n);
void dp_xdp_flow_del_batch(struct dp_xdp *, struct dpif_op **, size_t n);
int dp_xdp_flow_get(struct dp_xdp *, struct dpif_flow_get *);
struct ofpbuf *dp_xdp_flow_actions(struct dp_xdp *, uint32_t slot);
struct ofpbuf *dp_xdp_flow_slow_path_hit(struct dp_xdp *, uint32_t slot,
                                         size_t n_bytes, uint16_t tcp_flags);
void dp_xdp_flow_format_maps(struct dp_xdp *, struct ds *);
void dp_xdp_flow_get_calls(struct dp_xdp *, struct xdp_map_calls *);
void dp_xdp_flow_get_counts(struct dp_xdp *, uint64_t *n_flows,
                            uint32_t *n_masks);

bool dp_xdp_foreach(const char *name, void (*cb)(struct dp_xdp *, void *aux),
                    void *aux);

/* dpif-xdp.c: programs. */
int dp_xdp_load_program(struct dp_xdp *, const struct xdp_dp_cfg *,
                        struct xdp_dp **skelp);
int dp_xdp_swap_program(struct dp_xdp *, struct xdp_dp *new_skel,
                        struct ds *reply);

/* dpif-xdp-compile.c */
/* What the compiler keeps of a mask slot, next to the flow table's
 * 'struct dp_xdp_mask' of the same index: the compiler's own, which
 * the rest of the provider reads only through the functions below. */
struct dp_xdp_cslot {
    bool live;                  /* Compiled into the running program, with
                                 * the slot's mask as it is: the slot may
                                 * not take another mask until it is not
                                 * (dp_xdp_compile_slot_live()). */
    int cmap_fd;                /* Compact-key map, or -1: then flows of
                                 * this mask are written here too
                                 * (dp_xdp_compile_write_flows()). */
    uint32_t cmap_size;         /* Its max_entries. */
    bool cmap_full;             /* A flow did not fit in it. */
    struct xdp_dp_csub csub;    /* How keys are packed for 'cmap_fd'. */
};

void dp_xdp_compile_init(struct dp_xdp *);
void dp_xdp_compile_destroy(struct dp_xdp *);
int dp_xdp_compile_now(struct dp_xdp *, struct ds *reply);
void dp_xdp_compile_set_auto(struct dp_xdp *, bool enable);
void dp_xdp_compile_get_cfg(struct dp_xdp *, struct xdp_dp_cfg *);
void dp_xdp_compile_format(struct dp_xdp *, struct ds *);
void dp_xdp_compile_format_maps(struct dp_xdp *, struct ds *);
void dp_xdp_compile_table_changed(struct dp_xdp *dp, bool urgent)
    OVS_REQUIRES(dp->flow_mutex);
void dp_xdp_compile_table_shrunk(struct dp_xdp *dp, uint32_t slot)
    OVS_REQUIRES(dp->flow_mutex);
void dp_xdp_compile_slots_wanted(struct dp_xdp *dp)
    OVS_REQUIRES(dp->flow_mutex);
void dp_xdp_compile_write_flows(struct dp_xdp *dp, int mask_slot,
                                struct dp_xdp_flow **, size_t n, bool add)
    OVS_REQUIRES(dp->flow_mutex);
const struct dp_xdp_cslot *dp_xdp_compile_slot(const struct dp_xdp *dp,
                                               uint32_t slot)
    OVS_REQUIRES(dp->flow_mutex);
bool dp_xdp_compile_slot_live(const struct dp_xdp *dp, uint32_t slot)
    OVS_REQUIRES(dp->flow_mutex);
void dp_xdp_compile_slot_reset(struct dp_xdp *dp, uint32_t slot)
    OVS_REQUIRES(dp->flow_mutex);
void dp_xdp_compile_register_commands(void);

/* dpif-xdp-flow.c: userspace classification. */
bool dp_xdp_flow_lookup_uspace(struct dp_xdp *, const struct flow *,
                               size_t n_bytes, struct ofpbuf **actions);

/* dpif-xdp-uflow.c */
void dp_xdp_uflow_init(struct dp_xdp *);
void dp_xdp_uflow_destroy(struct dp_xdp *);
bool dp_xdp_uflow_wanted(const struct dp_xdp_flow *, const struct match *);
void dp_xdp_uflow_insert(struct dp_xdp *dp, struct dp_xdp_flow *,
                         const struct match *)
    OVS_REQUIRES(dp->flow_mutex);
void dp_xdp_uflow_remove(struct dp_xdp *dp, struct dp_xdp_flow *)
    OVS_REQUIRES(dp->flow_mutex);
struct dp_xdp_flow *dp_xdp_uflow_lookup(struct dp_xdp *dp,
                                        const struct flow *)
    OVS_REQUIRES(dp->flow_mutex);

/* dpif-xdp-ct.c */
void dp_xdp_ct_init(struct dp_xdp *);
void dp_xdp_ct_destroy(struct dp_xdp *);
void dp_xdp_ct_execute(struct dp_xdp *, struct dp_packet_batch *,
                       const struct nlattr *ct_action);

/* dpif-xdp-ct.c: the dpif class's conntrack hooks. */
struct ct_dpif_dump_state;
struct ct_dpif_entry;
struct ct_dpif_timeout_policy;
struct ct_dpif_tuple;
struct dpif_ipf_status;
struct ipf_dump_ctx;
enum ct_features;
int dpif_xdp_ct_dump_start(struct dpif *, struct ct_dpif_dump_state **,
                           const uint16_t *zone, int *n_buckets);
int dpif_xdp_ct_dump_next(struct dpif *, struct ct_dpif_dump_state *,
                          struct ct_dpif_entry *);
int dpif_xdp_ct_dump_done(struct dpif *, struct ct_dpif_dump_state *);
int dpif_xdp_ct_flush(struct dpif *, const uint16_t *zone,
                      const struct ct_dpif_tuple *);
int dpif_xdp_ct_set_maxconns(struct dpif *, uint32_t maxconns);
int dpif_xdp_ct_get_maxconns(struct dpif *, uint32_t *maxconns);
int dpif_xdp_ct_get_nconns(struct dpif *, uint32_t *nconns);
int dpif_xdp_ct_set_tcp_seq_chk(struct dpif *, bool enabled);
int dpif_xdp_ct_get_tcp_seq_chk(struct dpif *, bool *enabled);
int dpif_xdp_ct_set_limits(struct dpif *, const uint32_t *default_limit,
                           const struct ovs_list *zone_limits);
int dpif_xdp_ct_get_limits(struct dpif *, uint32_t *default_limit,
                           const struct ovs_list *zone_limits_in,
                           struct ovs_list *zone_limits_out);
int dpif_xdp_ct_del_limits(struct dpif *, const struct ovs_list *zone_limits);
int dpif_xdp_ct_set_timeout_policy(struct dpif *,
                                   const struct ct_dpif_timeout_policy *);
int dpif_xdp_ct_get_timeout_policy(struct dpif *, uint32_t tp_id,
                                   struct ct_dpif_timeout_policy *);
int dpif_xdp_ct_del_timeout_policy(struct dpif *, uint32_t tp_id);
int dpif_xdp_ct_get_timeout_policy_name(struct dpif *, uint32_t tp_id,
                                        uint16_t dl_type, uint8_t nw_proto,
                                        char **tp_name, bool *is_generic);
int dpif_xdp_ct_get_features(struct dpif *, enum ct_features *);
int dpif_xdp_ipf_set_enabled(struct dpif *, bool v6, bool enabled);
int dpif_xdp_ipf_set_min_frag(struct dpif *, bool v6, uint32_t min_frag);
int dpif_xdp_ipf_set_max_nfrags(struct dpif *, uint32_t max_nfrags);
int dpif_xdp_ipf_get_status(struct dpif *, struct dpif_ipf_status *);
int dpif_xdp_ipf_dump_start(struct dpif *, struct ipf_dump_ctx **);
int dpif_xdp_ipf_dump_next(struct dpif *, void *ctx, char **dump);
int dpif_xdp_ipf_dump_done(struct dpif *, void *ctx);

/* dpif-xdp-ctcache.c */
struct ct_dpif_counters;
struct pkt_metadata;
struct dp_xdp_ctcache *dp_xdp_ctcache_create(struct conntrack *,
                                             struct xdp_dp *skel,
                                             const char *dp_name);
void dp_xdp_ctcache_destroy(struct dp_xdp_ctcache *);
void dp_xdp_ctcache_set_size(struct dp_xdp_ctcache *, uint32_t n_conns);
void dp_xdp_ctcache_nominate(struct dp_xdp_ctcache *,
                             const struct dp_packet *);
void dp_xdp_ctcache_pickup(struct dp_xdp_ctcache *, const struct dp_packet *,
                           const struct flow *, uint16_t zone);
void dp_xdp_ctcache_restore_md(struct dp_xdp_ctcache *, uint32_t ct,
                               struct pkt_metadata *);
void dp_xdp_ctcache_flush(struct dp_xdp_ctcache *, const uint16_t *zone,
                          const struct ct_dpif_tuple *);
bool dp_xdp_ctcache_counters(struct dp_xdp_ctcache *, uint16_t zone,
                             const struct ct_dpif_tuple *orig,
                             struct ct_dpif_counters *orig_counters,
                             struct ct_dpif_counters *reply_counters);
void dp_xdp_ctcache_format(struct dp_xdp_ctcache *, struct ds *,
                           bool verbose);

/* dpif-xdp-gso.c */
void dp_xdp_send_segmented(struct netdev *, struct dp_packet_batch *,
                           uint32_t gso_size);
/* Cuts 'p', a TCP packet whose IP packet is longer than 'mtu' bytes (or a
 * UDP GSO segment of 'gso_size'), into pieces that fit, TCP at 'gso_size'
 * bytes of payload if nonzero, and gives each to 'emit'.  Returns true,
 * having taken 'p', or false, leaving 'p' alone, if it cannot. */
bool dp_xdp_gso_cut(struct dp_packet *p, int mtu, uint32_t gso_size,
                    void (*emit)(void *aux, struct dp_packet *), void *aux);

/* dpif-xdp-stats.c */
int dp_xdp_read_stats(struct dp_xdp *, struct xdp_dp_stats *sum);
int dp_xdp_sum_percpu(int map_fd, uint32_t key, void *sum, size_t size);
struct dp_xdp_counter {
    const char *name;           /* As dpif-xdp/stats-show prints it. */
    size_t ofs;                 /* Its place in struct xdp_dp_stats. */
};
extern const struct dp_xdp_counter dp_xdp_prog_counters[];
extern const size_t dp_xdp_n_prog_counters;
void dp_xdp_stats_register_commands(void);

/* Adds one to 'counter', a member of a 'struct dp_xdp_uspace_stats'. */
static inline void
dp_xdp_uspace_count(atomic_uint64_t *counter)
{
    uint64_t orig;

    atomic_add_relaxed(counter, 1, &orig);
}

/* dpif-xdp-upcall.c */
int dp_xdp_upcall_init(struct dp_xdp *);
void dp_xdp_upcall_destroy(struct dp_xdp *);
int dpif_xdp_handlers_set(struct dpif *, uint32_t n_handlers);
int dpif_xdp_recv(struct dpif *, uint32_t handler_id, struct dpif_upcall *,
                  struct ofpbuf *);
void dpif_xdp_recv_wait(struct dpif *, uint32_t handler_id);
void dpif_xdp_recv_purge(struct dpif *);
int dp_xdp_execute(struct dp_xdp *, struct dpif_execute *);
uint64_t dp_xdp_upcall_lost(struct dp_xdp *);
int dp_xdp_upcall_set_config(struct dp_xdp *, const struct smap *);
const struct odp_support *dp_xdp_upcall_odp_support(void);

/* dpif-xdp-miss.c */
void dp_xdp_miss_init(struct dp_xdp *);
void dp_xdp_miss_destroy(struct dp_xdp *);
void dpif_xdp_register_upcall_cb(struct dpif *, upcall_callback *,
                                 void *aux);
void dpif_xdp_enable_upcall(struct dpif *);
void dpif_xdp_disable_upcall(struct dpif *);
bool dp_xdp_miss_upcall(struct dp_xdp *, const struct dp_packet *,
                        const struct flow *, enum dpif_upcall_type,
                        const struct nlattr *userdata,
                        struct ofpbuf *actions);

#endif /* dpif-xdp-private.h */
