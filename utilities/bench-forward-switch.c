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

/* ovs-xdp-bench forward: setting a switch up and taking it down.
 *
 * fwd_switch_setup() makes one switch of fwd_switches[] forward between
 * the two switch-side veth ends, oxbgPID and oxbsPID, in one pipeline,
 * and fwd_switch_teardown() removes it again, leaving the ends as it found
 * them: up, GRO on, no XDP program.  Each kind of switch has its own way:
 * the floor attaches datapath/bench-redirect.bpf.c (XDP bpf_redirect() to
 * the sink's end, or with --sink=stack a TC program that calls
 * bpf_redirect_peer()); the OVS switches get a bridge with the two ports
 * and the pipeline's OpenFlow rules in their private ovs-vswitchd
 * (bench-common.c runs it), plus what the pipeline needs there (sFlow or a
 * meter from bench-forward-monitor.c, conntrack limits, ovs-xdp's
 * transmit and attach modes); the Linux bridge is an "ip link" bridge,
 * with the nftables firewall of bench-forward-ct.c for the stateful
 * pipelines.  The tunnel pipelines replace all of this with
 * bench-forward-tnl.c's topology.  A setup that fails explains why in
 * 'why' and takes down whatever it set up, so that the switch is reported
 * as skipped and the next one starts from a clean state. */

#include <config.h>

#include "utilities/bench-forward.h"

#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "openvswitch/dynamic-string.h"
#include "svec.h"
#include "util.h"
#include "utilities/bench-common.h"

#include "datapath/bench-redirect.skel.h"

/* Returns the private Open vSwitch that runs OVS switch 'sw'. */
struct bench_ovs *
fwd_switch_ovs(struct fwd *fwd, const struct fwd_switch *sw)
{
    return sw->kind == FWD_OVS_XDP ? &fwd->ovs_xdp : &fwd->ovs_stock;
}

static int
fwd_floor_setup(struct fwd *fwd, struct ds *why)
{
    if (!fwd->redirect_skel) {
        unsigned int target = if_nametoindex(fwd->sink.root_name);
        struct bench_redirect *skel = bench_redirect__open();

        if (!skel) {
            ds_put_format(why, "cannot open the floor program (%s)",
                          ovs_strerror(errno));
            return EIO;
        }
        skel->rodata->target_ifindex = target;
        if (bench_redirect__load(skel)) {
            ds_put_format(why, "cannot load the floor program (%s)",
                          ovs_strerror(errno));
            bench_redirect__destroy(skel);
            return EIO;
        }
        fwd->redirect_skel = skel;
    }
    if (fwd->opts.stack_sink) {
        /* No XDP program: the kernel builds the skb, as for any switch on
         * this path, and the floor hands it into the sink's namespace. */
        int error = bench_tc_attach(
            fwd->redirect_skel->progs.bench_redirect_peer, NULL,
            fwd->gen.root_name, why);

        fwd->floor_tc = !error;
        return error;
    }
    fwd->floor_link = bench_xdp_attach(
        fwd->redirect_skel->progs.bench_redirect, NULL, fwd->gen.root_name,
        why);
    return fwd->floor_link ? 0 : EIO;
}

/* Removes the --sink=stack floor's TC program and the clsact qdisc it
 * made from the generator's switch-side end. */
void
fwd_floor_tc_teardown(struct fwd *fwd)
{
    if (fwd->floor_tc) {
        LIBBPF_OPTS(bpf_tc_hook, hook,
                    .ifindex = if_nametoindex(fwd->gen.root_name),
                    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);

        if (hook.ifindex) {
            bpf_tc_hook_destroy(&hook);
        }
        fwd->floor_tc = false;
    }
}

static int
fwd_ovs_setup(struct fwd *fwd, const struct fwd_switch *sw,
              enum fwd_pipeline p, struct ds *why)
{
    const char *ports[] = { fwd->gen.root_name, fwd->sink.root_name };
    struct svec flows = SVEC_EMPTY_INITIALIZER;
    int error;

    if (sw->normal) {
        svec_add(&flows, "actions=normal");
    } else if (fwd->opts.mflow.n_megaflows) {
        fwd_megaflow_flows(&fwd->opts, fwd->gen.root_name,
                           fwd->sink.root_name, &flows);
    } else {
        fwd_ovs_flows(p, fwd->gen.root_name, fwd->sink.root_name, &flows);
    }
    error = bench_ovs_add_bridge(
        fwd_switch_ovs(fwd, sw), fwd->ovs_bridge,
        sw->kind == FWD_OVS_XDP ? "xdp" : "netdev", sw->port_type,
        ports, ARRAY_SIZE(ports),
        (const char *const *) flows.names, flows.n, why);
    svec_destroy(&flows);
    if (!error) {
        error = fwd_monitor_setup(fwd, sw, p, why);
    }
    if (!error && p == FWD_CONNTRACK_SETUP) {
        struct ds output = DS_EMPTY_INITIALIZER;

        if (bench_ovs_run(fwd_switch_ovs(fwd, sw), &output,
                          "ovs-appctl dpctl/ct-set-maxconns %d",
                          FWD_SETUP_MAXCONNS)) {
            bench_explain(why, "ovs-appctl dpctl/ct-set-maxconns", 1,
                          &output);
            error = EIO;
        }
        ds_destroy(&output);
    }

    /* The sink's end of its veth runs an XDP program, so it has NAPI and
     * XDP redirect delivers into it: ask ovs-xdp for the XDP redirect
     * path, which it does not choose for veths by itself.  The generator
     * stands for a NIC's receive path: its frames are XDP frames, but it
     * runs through BPF_PROG_TEST_RUN, not as an attached program, so
     * xdp-mode=auto would take its veth for a container's (generic mode,
     * to keep TSO) and must be told to attach natively. */
    if (!error && sw->kind == FWD_OVS_XDP) {
        struct ds output = DS_EMPTY_INITIALIZER;

        /* conntrack-slow turns the cache of established connections off;
         * every other pipeline has the default. */
        const char *cache = (p == FWD_CONNTRACK_SLOW
                             ? "set Open_vSwitch . "
                               "other_config:xdp-ct-cache-size=0"
                             : "remove Open_vSwitch . other_config "
                               "xdp-ct-cache-size");

        if (bench_ovs_run(fwd_switch_ovs(fwd, sw), &output,
                          "ovs-vsctl set interface %s "
                          "other_config:xdp-tx=%s -- set interface %s "
                          "other_config:xdp-mode=native -- %s",
                          fwd->sink.root_name,
                          fwd->opts.stack_sink ? "auto" : "redirect",
                          fwd->gen.root_name, cache)) {
            bench_explain(why, "ovs-vsctl set interface", 1, &output);
            error = EIO;
        }
        ds_destroy(&output);
    }
    return error;
}

static int
fwd_linux_bridge_setup(struct fwd *fwd, enum fwd_pipeline p,
                       struct fwd_result *r, struct ds *why)
{
    int error = bench_linux_bridge_create(fwd->linux_bridge,
                                          fwd->gen.root_name,
                                          fwd->sink.root_name, why);

    if (!error && fwd_pipeline_is_stateful(p)) {
        char *note;

        error = bench_nft_firewall(fwd->nft_table, fwd->linux_bridge,
                                   fwd->gen.root_name, fwd->sink.root_name,
                                   &fwd->n_nft_setups, &note, why);
        if (!error && !r->note) {
            r->note = note;
        } else {
            free(note);
        }
    }
    return error;
}

/* Takes switch 'sw' down and makes sure that the ports are as before: up,
 * GRO on, no XDP program attached. */
void
fwd_switch_teardown(struct fwd *fwd, const struct fwd_switch *sw)
{
    if (sw->kind != FWD_FLOOR && fwd_pipeline_is_tunnel(fwd->pipeline)) {
        fwd_tnl_teardown(fwd, sw);
        bench_xdp_clear(fwd->gen.root_name, sw->name);
        bench_xdp_clear(fwd->sink.root_name, sw->name);
        fwd->active = NULL;
        return;
    }
    switch (sw->kind) {
    case FWD_FLOOR:
        bpf_link__destroy(fwd->floor_link);
        fwd->floor_link = NULL;
        fwd_floor_tc_teardown(fwd);
        break;
    case FWD_OVS_XDP:
    case FWD_OVS_STOCK:
        bench_ovs_del_bridge(fwd_switch_ovs(fwd, sw), fwd->ovs_bridge);
        break;
    case FWD_LINUX_BRIDGE:
        if (fwd_pipeline_is_stateful(fwd->pipeline)) {
            bench_nft_teardown(fwd->nft_table);
        }
        bench_run(NULL, "ip link del %s", fwd->linux_bridge);
        break;
    }
    bench_xdp_clear(fwd->gen.root_name, sw->name);
    bench_xdp_clear(fwd->sink.root_name, sw->name);
    fwd->active = NULL;
}

/* Sets up switch 'sw' with pipeline 'p' between the two pairs; may add a
 * note to its results 'r'.  Returns 0 if successful, otherwise a positive
 * errno value after explaining in 'why' and taking down whatever was set
 * up. */
int
fwd_switch_setup(struct fwd *fwd, const struct fwd_switch *sw,
                 enum fwd_pipeline p, struct fwd_result *r, struct ds *why)
{
    const char *ports[] = { fwd->gen.root_name, fwd->sink.root_name };
    int error = 0;

    for (size_t i = 0; i < ARRAY_SIZE(ports); i++) {
        bench_run(NULL, "ip link set %s up", ports[i]);
        error = bench_set_gro(ports[i], true);
        if (error) {
            ds_put_format(why, "%s: cannot turn GRO on (%s)", ports[i],
                          ovs_strerror(error));
            return error;
        }
    }

    fwd->active = sw;
    fwd->pipeline = p;
    if (fwd_pipeline_is_tunnel(p) && sw->kind != FWD_FLOOR) {
        error = fwd_tnl_setup(fwd, sw, p, why);
        if (error) {
            fwd_switch_teardown(fwd, sw);
        }
        return error;
    }
    switch (sw->kind) {
    case FWD_FLOOR:
        error = fwd_floor_setup(fwd, why);
        break;
    case FWD_OVS_XDP:
    case FWD_OVS_STOCK:
        error = fwd_ovs_setup(fwd, sw, p, why);
        break;
    case FWD_LINUX_BRIDGE:
        error = fwd_linux_bridge_setup(fwd, p, r, why);
        break;
    }
    if (error) {
        fwd_switch_teardown(fwd, sw);
    }
    return error;
}

/* Returns how ovs-vswitchd-xdp transmits on the sink's port, as
 * "dispatcher/show" tells ("transmit by skb"), or NULL if it does not say.
 * The caller frees the result. */
char *
fwd_ovs_xdp_tx_mode(struct fwd *fwd)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    char *port = xasprintf(" %s:", fwd->sink.root_name);
    char *line, *save_ptr = NULL;
    char *mode = NULL;

    bench_ovs_run(&fwd->ovs_xdp, &output, "ovs-appctl dispatcher/show");
    for (line = strtok_r(ds_cstr(&output), "\n", &save_ptr); line && !mode;
         line = strtok_r(NULL, "\n", &save_ptr)) {
        const char *tx = strstr(line, "transmit by ");

        if (strstr(line, port) && tx) {
            mode = xasprintf("%s on the sink's port (dispatcher/show)", tx);
        }
    }
    free(port);
    ds_destroy(&output);
    return mode;
}
