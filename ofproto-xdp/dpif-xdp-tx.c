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

/* Sending what ovs-vswitchd executes.
 *
 * A packet that ovs-vswitchd runs actions on (a slow-path flow, a ct()
 * that XDP did not run, ofproto's execute of a miss) leaves through its
 * output port's netdev: a packet socket, or an internal port's hidden
 * peer.  A handler thread holds what it sends while it runs the packets
 * of one recv() call (dp_xdp_tx_hold() and dp_xdp_tx_release() around
 * it), so that each port gets them in batches, one sendmmsg() each, as
 * dpif-netdev sends what it received in one batch: per packet, the system
 * call, the port lookup and its MTU were a fifth of what executing a
 * slow-path packet cost a handler (ovs-xdp-bench forward
 * --pipeline=conntrack-slow: 0.27 Mpps before, 0.40 after).  A GSO
 * segment goes at once, after what its port holds, to be cut to the MTU
 * (dpif-xdp-gso.c); any other thread sends at once. */

#include <config.h>

#include "dp-packet.h"
#include "dpif-xdp-private.h"
#include "netdev.h"
#include "ovs-thread.h"
#include "packets.h"
#include "util.h"

/* Ports, and packets for each (NETDEV_MAX_BURST), held at most. */
#define DP_XDP_TXQ_PORTS 8

/* What one thread holds back. */
struct dp_xdp_txq {
    bool active;                /* Between hold and release. */
    size_t n;                   /* Ports in use in 'ports'. */
    struct {
        odp_port_t port_no;
        struct netdev *netdev;  /* A reference of our own. */
        struct dp_packet_batch batch;
    } ports[DP_XDP_TXQ_PORTS];
};

DEFINE_STATIC_PER_THREAD_DATA(struct dp_xdp_txq, held, { .active = false });

/* Sends the packets that 'txq' holds for its port number 'i', and forgets
 * the port. */
static void
txq_flush_port(struct dp_xdp_txq *txq, size_t i)
{
    dp_xdp_send_segmented(txq->ports[i].netdev, &txq->ports[i].batch, 0);
    netdev_close(txq->ports[i].netdev);
    txq->ports[i] = txq->ports[--txq->n];
}

/* Sends everything 'txq' holds. */
static void
txq_flush(struct dp_xdp_txq *txq)
{
    while (txq->n) {
        txq_flush_port(txq, txq->n - 1);
    }
}

/* Holds the packets of 'batch', which it takes, for port 'port_no', whose
 * device 'netdev' it takes a reference to, in 'txq'. */
static void
txq_add(struct dp_xdp_txq *txq, odp_port_t port_no, struct netdev *netdev,
        struct dp_packet_batch *batch)
{
    struct dp_packet *p;
    size_t i;

    for (i = 0; i < txq->n; i++) {
        if (txq->ports[i].port_no == port_no) {
            netdev_close(netdev);
            break;
        }
    }
    if (i == txq->n) {
        if (txq->n == DP_XDP_TXQ_PORTS) {
            txq_flush_port(txq, 0);
            i = txq->n;
        }
        txq->ports[i].port_no = port_no;
        txq->ports[i].netdev = netdev;
        dp_packet_batch_init(&txq->ports[i].batch);
        txq->n++;
    }
    DP_PACKET_BATCH_FOR_EACH (j, p, batch) {
        struct dp_packet_batch *held = &txq->ports[i].batch;
        bool runt = dp_packet_size(p) < ETH_HEADER_LEN;

        if (dp_packet_batch_is_full(held) || (runt && held->count)) {
            dp_xdp_send_segmented(txq->ports[i].netdev, held, 0);
            dp_packet_batch_init(held);
        }
        dp_packet_batch_add(held, p);
        if (runt) {
            /* The packet socket refuses a frame shorter than an Ethernet
             * header (a trunc() can cut one), and netdev-linux then drops
             * the rest of the batch: it goes alone, so that only it is
             * lost (dpif-netdev loses the frames behind it too: see
             * "runt-after-trunc" in ovs-xdp-bench(8)). */
            dp_xdp_send_segmented(txq->ports[i].netdev, held, 0);
            dp_packet_batch_init(held);
        }
    }
    dp_packet_batch_init(batch);
}

/* From now on, until dp_xdp_tx_release(), this thread holds back what it
 * sends with dp_xdp_output(). */
void
dp_xdp_tx_hold(void)
{
    held_get()->active = true;
}

/* Sends what this thread held back, and holds nothing from now on. */
void
dp_xdp_tx_release(void)
{
    struct dp_xdp_txq *txq = held_get();

    txq_flush(txq);
    txq->active = false;
}

/* Sends the packets of 'batch' on port 'port_no' of 'dp', taking them if
 * 'should_steal' (else copies), cut to their cutlen; 'gso_size' is that of
 * struct xdp_dp_upcall. */
void
dp_xdp_output(struct dp_xdp *dp, odp_port_t port_no,
              struct dp_packet_batch *batch, bool should_steal,
              uint32_t gso_size)
{
    struct netdev *netdev = dp_xdp_port_netdev_ref(dp, port_no);
    struct dp_xdp_txq *txq = held_get()->active ? held_get() : NULL;
    struct dp_packet_batch copy;

    if (!netdev) {
        dp_packet_delete_batch(batch, should_steal);
        return;
    }
    if (!should_steal) {
        dp_packet_batch_clone(&copy, batch);
        dp_packet_batch_reset_cutlen(batch);
        batch = &copy;
    }
    /* An output(max_len=N) truncates the copy it sends (odp-execute only
     * records the length), and not the packet later actions see, as
     * dpif-netdev does. */
    dp_packet_batch_apply_cutlen(batch);
    if (txq && !gso_size) {
        txq_add(txq, port_no, netdev, batch);
        return;
    }
    for (size_t i = 0; txq && i < txq->n; i++) {
        if (txq->ports[i].port_no == port_no) {
            txq_flush_port(txq, i);     /* What came first goes first. */
            break;
        }
    }
    /* Sent or not, the packets are taken; GSO segments longer than the
     * MTU are cut to it first (dpif-xdp-gso.c). */
    dp_xdp_send_segmented(netdev, batch, gso_size);
    netdev_close(netdev);
}
