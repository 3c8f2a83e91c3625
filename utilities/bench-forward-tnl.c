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

/* ovs-xdp-bench forward: the tunnel pipelines, 'vxlan-encap',
 * 'vxlan-decap', 'geneve-encap' and 'geneve-decap' (--tunnel; see
 * bench-forward.c for the benchmark as a whole).
 *
 * The switch stands between a VM's port and an underlay port and is one
 * tunnel endpoint, FWD_TNL_LOCAL_IP; the other one, FWD_TNL_REMOTE_IP, is
 * the namespace behind the underlay port.  For encapsulation, the
 * generator is the VM: its 64-byte frames enter the VM port and leave the
 * underlay port in a VXLAN or Geneve header (50 bytes more, without UDP
 * checksum, OVS's default over IPv4; the kernel's devices are told
 * 'noudpcsum'), which the sink counts by the tunnel's UDP port and the
 * remote address.  For decapsulation, the
 * generator is the remote endpoint: it sends those 114-byte encapsulated
 * frames (its UDP source port spreads the flows, as a sender's hash
 * would) to the switch's underlay address, and the sink counts the inner
 * frames that leave the VM port.
 *
 * The OVS switches use Open vSwitch's native tunneling, as an operator
 * sets it up (Documentation/howto/userspace-tunneling.rst in the OVS
 * tree): the VM port and a tunnel port (options:remote_ip) on the bridge,
 * the underlay port on a second bridge whose local port has the local
 * address, a route (ovs/route/add) and the remote endpoint's MAC address
 * (tnl/neigh/set), since nothing answers ARP behind the underlay port.
 * Each bridge forwards by port: into the tunnel or out of it, and between
 * the underlay port and the local port, where ofproto pops the frames
 * addressed to the tunnel.  For ovs-xdp, the result's note says what the
 * program counted while the stream ran (xdp-tnl-push, xdp-tnl-pop,
 * xdp-slow-path).  The Linux bridge gets the kernel's own VXLAN device as
 * its second port, the local address on the underlay port and a permanent
 * neighbour entry; this kernel has no Geneve device, which the geneve
 * pipelines report as the reason they were not measured. */

#include <config.h>

#include "utilities/bench-forward.h"

#include <errno.h>
#include <string.h>

#include "openvswitch/dynamic-string.h"
#include "packets.h"
#include "svec.h"
#include "util.h"
#include "utilities/bench-common.h"

#include "datapath/bench-sink.skel.h"

/* The tunnels' well-known UDP ports. */
#define FWD_VXLAN_PORT 4789
#define FWD_GENEVE_PORT 6081

/* Bytes of outer headers: Ethernet, IPv4, UDP and the 8-byte VXLAN or
 * Geneve (no option) header. */
#define FWD_TNL_HLEN (14 + 20 + 8 + 8)
BUILD_ASSERT_DECL(FWD_FRAME_SIZE + FWD_TNL_HLEN <= FWD_FRAME_MAX);

bool
fwd_pipeline_is_tunnel(enum fwd_pipeline p)
{
    return (p == FWD_VXLAN_ENCAP || p == FWD_VXLAN_DECAP
            || p == FWD_GENEVE_ENCAP || p == FWD_GENEVE_DECAP);
}

static bool
fwd_tnl_is_encap(enum fwd_pipeline p)
{
    return p == FWD_VXLAN_ENCAP || p == FWD_GENEVE_ENCAP;
}

static bool
fwd_tnl_is_geneve(enum fwd_pipeline p)
{
    return p == FWD_GENEVE_ENCAP || p == FWD_GENEVE_DECAP;
}

static uint16_t
fwd_tnl_udp_port(enum fwd_pipeline p)
{
    return fwd_tnl_is_geneve(p) ? FWD_GENEVE_PORT : FWD_VXLAN_PORT;
}

/* The switch's ports for tunnel pipeline 'p': the VM's, where the
 * generator is for encapsulation and the sink for decapsulation, and the
 * underlay's, on the other side. */
static void
fwd_tnl_ports(const struct fwd *fwd, enum fwd_pipeline p,
              const char **vm, const char **underlay)
{
    bool encap = fwd_tnl_is_encap(p);

    *vm = encap ? fwd->gen.root_name : fwd->sink.root_name;
    *underlay = encap ? fwd->sink.root_name : fwd->gen.root_name;
}

/* Reads the Ethernet address of device 'name' into '*mac'.  Returns 0, or
 * EIO after explaining in 'why'. */
static int
fwd_tnl_read_mac(const char *name, struct eth_addr *mac, struct ds *why)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    int status = bench_run(&output, "cat /sys/class/net/%s/address", name);

    ds_chomp(&output, '\n');
    if (status || !eth_addr_from_string(ds_cstr(&output), mac)) {
        ds_put_format(why, "cannot read the Ethernet address of %s (%s)",
                      name, ds_cstr(&output));
        ds_destroy(&output);
        return EIO;
    }
    ds_destroy(&output);
    return 0;
}

/* Runs the 'n' commands 'cmds' on OVS 'ovs' in turn, up to the first that
 * fails.  Returns 0, or EIO after explaining in 'why'.  (One command each:
 * bench_ovs_run() points only the first command of a shell list at the
 * switch's run directory.) */
static int
fwd_tnl_ovs_run(struct bench_ovs *ovs, char *cmds[], size_t n,
                struct ds *why)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    int error = 0;

    for (size_t i = 0; i < n; i++) {
        int status = error ? 0 : bench_ovs_run(ovs, &output, "%s", cmds[i]);

        if (status) {
            bench_explain(why, cmds[i], status, &output);
            error = EIO;
        }
        free(cmds[i]);
        ds_clear(&output);
    }
    ds_destroy(&output);
    return error;
}

static int
fwd_tnl_ovs_setup(struct fwd *fwd, const struct fwd_switch *sw,
                  enum fwd_pipeline p, struct ds *why)
{
    struct bench_ovs *ovs = fwd_switch_ovs(fwd, sw);
    const char *dp_type = sw->kind == FWD_OVS_XDP ? "xdp" : "netdev";
    const char *br = fwd->ovs_bridge;
    const char *ubr = fwd->tnl_bridge;
    const char *tnl = fwd->tnl_port;
    bool encap = fwd_tnl_is_encap(p);
    const char *vm, *underlay;
    char *flows[2];
    int error;

    fwd_tnl_ports(fwd, p, &vm, &underlay);
    flows[0] = (encap
                ? xasprintf("in_port=%s,actions=output:%s", vm, tnl)
                : xasprintf("in_port=%s,actions=output:%s", tnl, vm));
    flows[1] = (encap
                ? xasprintf("in_port=LOCAL,actions=output:%s", underlay)
                : xasprintf("in_port=%s,actions=LOCAL", underlay));

    error = bench_ovs_add_bridge(ovs, br, dp_type, sw->port_type, &vm, 1,
                                 NULL, 0, why);
    if (!error) {
        error = bench_ovs_add_bridge(ovs, ubr, dp_type, sw->port_type,
                                     &underlay, 1, NULL, 0, why);
    }
    if (!error) {
        char *cmds[] = {
            xasprintf("ovs-vsctl add-port %s %s -- set interface %s type=%s "
                      "options:remote_ip=%s", br, tnl, tnl,
                      fwd_tnl_is_geneve(p) ? "geneve" : "vxlan",
                      FWD_TNL_REMOTE_IP),
            xasprintf("ovs-ofctl add-flow %s '%s'", br, flows[0]),
            xasprintf("ovs-ofctl add-flow %s '%s'", ubr, flows[1]),
        };

        error = fwd_tnl_ovs_run(ovs, cmds, ARRAY_SIZE(cmds), why);
    }
    if (!error) {
        struct ds output = DS_EMPTY_INITIALIZER;
        int status = bench_run(&output, "ip addr add %s/24 dev %s "
                               "&& ip link set %s up", FWD_TNL_LOCAL_IP,
                               ubr, ubr);

        if (status) {
            bench_explain(why, "giving the underlay bridge its address",
                          status, &output);
            error = EIO;
        }
        ds_destroy(&output);
    }
    if (!error) {
        /* ovs-router learns the route of the address from the kernel;
         * this one does not wait for it, and may find it there. */
        bench_ovs_run(ovs, NULL, "ovs-appctl ovs/route/add %s/32 %s",
                      FWD_TNL_REMOTE_IP, ubr);

        char *cmds[] = {
            xasprintf("ovs-appctl tnl/neigh/set %s %s "ETH_ADDR_FMT, ubr,
                      FWD_TNL_REMOTE_IP,
                      ETH_ADDR_ARGS(encap ? fwd_sink_mac : fwd_gen_mac)),
        };

        error = fwd_tnl_ovs_run(ovs, cmds, ARRAY_SIZE(cmds), why);
    }
    if (!error) {
        error = fwd_tnl_read_mac(ubr, &fwd->tnl_mac, why);
    }

    /* As for the stateless pipeline (fwd_ovs_setup()): the generator's
     * end attaches natively, the sink's end takes XDP redirect. */
    if (!error && sw->kind == FWD_OVS_XDP) {
        char *cmds[] = {
            xasprintf("ovs-vsctl set interface %s other_config:xdp-tx=%s "
                      "-- set interface %s other_config:xdp-mode=native",
                      fwd->sink.root_name,
                      fwd->opts.stack_sink ? "auto" : "redirect",
                      fwd->gen.root_name),
        };

        error = fwd_tnl_ovs_run(ovs, cmds, ARRAY_SIZE(cmds), why);
    }
    free(flows[0]);
    free(flows[1]);
    return error;
}

static int
fwd_tnl_linux_setup(struct fwd *fwd, enum fwd_pipeline p, struct ds *why)
{
    struct ds output = DS_EMPTY_INITIALIZER;
    const char *vm, *underlay;
    int status;

    fwd_tnl_ports(fwd, p, &vm, &underlay);
    if (fwd_tnl_is_geneve(p)) {
        status = bench_run(&output, "ip link add %s type geneve id 0 "
                           "remote %s", fwd->tnl_port, FWD_TNL_REMOTE_IP);
        bench_run(NULL, "ip link del %s", fwd->tnl_port);
        if (status) {
            ds_chomp(&output, '\n');
            ds_put_format(why, "this kernel has no Geneve device (ip link "
                          "add type geneve: %s): not measured",
                          ds_cstr(&output));
            ds_destroy(&output);
            return EOPNOTSUPP;
        }
        ds_clear(&output);
    }
    status = bench_run(
        &output,
        "ip link add %s type bridge"
        " && ip link set %s master %s"
        " && ip link add %s type %s id 0 local %s remote %s dstport %d%s"
        " && ip link set %s master %s"
        " && ip addr add %s/24 dev %s"
        " && ip neigh replace %s lladdr "ETH_ADDR_FMT" dev %s nud permanent"
        " && ip link set %s up && ip link set %s up",
        fwd->linux_bridge,
        vm, fwd->linux_bridge,
        fwd->tnl_port, fwd_tnl_is_geneve(p) ? "geneve" : "vxlan",
        FWD_TNL_LOCAL_IP, FWD_TNL_REMOTE_IP, fwd_tnl_udp_port(p),
        fwd_tnl_is_geneve(p) ? " noudpcsum" : " nolearning noudpcsum",
        fwd->tnl_port, fwd->linux_bridge,
        FWD_TNL_LOCAL_IP, underlay,
        FWD_TNL_REMOTE_IP,
        ETH_ADDR_ARGS(fwd_tnl_is_encap(p) ? fwd_sink_mac : fwd_gen_mac),
        underlay,
        fwd->tnl_port, fwd->linux_bridge);
    if (status) {
        bench_explain(why, "setting up the Linux bridge with a VXLAN device",
                      status, &output);
        ds_destroy(&output);
        return EIO;
    }
    ds_destroy(&output);
    return fwd_tnl_read_mac(underlay, &fwd->tnl_mac, why);
}

/* Sets up switch 'sw' for tunnel pipeline 'p' (see above).  Returns 0 if
 * successful, otherwise a positive errno value after explaining in 'why';
 * either way, fwd_tnl_teardown() takes down what was set up. */
int
fwd_tnl_setup(struct fwd *fwd, const struct fwd_switch *sw,
              enum fwd_pipeline p, struct ds *why)
{
    switch (sw->kind) {
    case FWD_OVS_XDP:
    case FWD_OVS_STOCK:
        return fwd_tnl_ovs_setup(fwd, sw, p, why);
    case FWD_LINUX_BRIDGE:
        return fwd_tnl_linux_setup(fwd, p, why);
    case FWD_FLOOR:
    default:
        OVS_NOT_REACHED();
    }
}

/* Takes down what fwd_tnl_setup() set up for switch 'sw'. */
void
fwd_tnl_teardown(struct fwd *fwd, const struct fwd_switch *sw)
{
    const char *ports[] = { fwd->gen.root_name, fwd->sink.root_name };

    if (sw->kind == FWD_LINUX_BRIDGE) {
        bench_run(NULL, "ip link del %s", fwd->tnl_port);
        bench_run(NULL, "ip link del %s", fwd->linux_bridge);
    } else {
        bench_ovs_del_bridge(fwd_switch_ovs(fwd, sw), fwd->ovs_bridge);
        bench_ovs_del_bridge(fwd_switch_ovs(fwd, sw), fwd->tnl_bridge);
    }
    for (size_t i = 0; i < ARRAY_SIZE(ports); i++) {
        bench_run(NULL, "ip neigh flush dev %s; ip addr flush dev %s",
                  ports[i], ports[i]);
    }
}

/* Builds the generator's frame of tunnel pipeline 'p' in 'fwd->frame',
 * once the switch is set up: the stream's own frame for encapsulation,
 * and for decapsulation that frame encapsulated by the remote endpoint,
 * to the switch's underlay address and device ('fwd->tnl_mac'). */
void
fwd_tnl_build_frame(struct fwd *fwd, enum fwd_pipeline p)
{
    size_t hlen = fwd_tnl_is_encap(p) ? 0 : FWD_TNL_HLEN;
    uint8_t *f = fwd->frame;

    fwd->frame_size = hlen + FWD_FRAME_SIZE;
    if (hlen) {
        ovs_be32 *tnl = (ovs_be32 *) (f + FWD_TNL_HLEN - 8);

        fwd_put_frame_sized(f, fwd->frame_size, fwd_gen_mac, fwd->tnl_mac,
                            FWD_TNL_REMOTE_IP, FWD_TNL_LOCAL_IP,
                            FWD_UDP_SPORT_BASE, fwd_tnl_udp_port(p));
        /* VXLAN: the I flag, then VNI 0.  Geneve: version 0, no option,
         * Transparent Ethernet Bridging inside, then VNI 0. */
        tnl[0] = (fwd_tnl_is_geneve(p) ? htonl(ETH_TYPE_TEB)
                  : htonl(0x08000000));
        tnl[1] = htonl(0);
    }
    fwd_put_frame(f + hlen, fwd_gen_mac, fwd_sink_mac, FWD_GEN_IP,
                  FWD_SINK_IP, FWD_UDP_SPORT_BASE, FWD_UDP_DPORT);
}

/* Tells the sink what the stream of pipeline 'p' looks like as it
 * arrives: encapsulated, to the tunnel's UDP port and the remote
 * endpoint, or as the generator sent it. */
void
fwd_tnl_set_sink(struct fwd *fwd, enum fwd_pipeline p)
{
    bool outer = fwd_pipeline_is_tunnel(p) && fwd_tnl_is_encap(p);

    fwd->sink_skel->data->udp_dport = (outer ? fwd_tnl_udp_port(p)
                                       : FWD_UDP_DPORT);
    fwd->sink_skel->bss->stream_daddr = fwd_ip(outer ? FWD_TNL_REMOTE_IP
                                                : FWD_SINK_IP);
}

/* Stores ovs-vswitchd-xdp's counters of tunnels in '*c'. */
void
fwd_tnl_counts(struct fwd *fwd, struct fwd_tnl_counts *c)
{
    static const char *const names[] = {
        "xdp-tnl-push", "xdp-tnl-pop", "xdp-slow-path", "xdp-fallback",
    };
    long long *const values[] = {
        &c->push, &c->pop, &c->slow_path, &c->fallback,
    };

    bench_ovs_counters(&fwd->ovs_xdp, "dpif-xdp/stats-show", names, values,
                       ARRAY_SIZE(names));
}

/* Waits, up to 10 s, until ovs-xdp's running program has code for the
 * tunnel action of pipeline 'p' (dpif-xdp/compile-show), with the stream
 * running.  Until then, the flows that need it go to ovs-vswitchd (see
 * ofproto-xdp/dpif-xdp-compile.c): with both CPUs busy, a compile was
 * seen to take 1.3 s, longer than a short warm-up, and the measurement
 * then counted frames that ovs-vswitchd forwarded.  Returns the seconds
 * waited, or -1 if the program never had the code. */
double
fwd_tnl_wait_compiled(struct fwd *fwd, enum fwd_pipeline p)
{
    const char *action = fwd_tnl_is_encap(p) ? "tnl_push" : "tnl_pop";
    double start = bench_now();

    do {
        struct ds output = DS_EMPTY_INITIALIZER;
        const char *code;
        bool found;

        bench_ovs_run(&fwd->ovs_xdp, &output,
                      "ovs-appctl dpif-xdp/compile-show");
        code = strstr(ds_cstr(&output), "actions with code:");
        found = code && strstr(code, action);
        ds_destroy(&output);
        if (found) {
            return bench_now() - start;
        }
        bench_sleep(0.1);
    } while (bench_now() - start < 10);
    return -1;
}

/* Prints on stderr the datapath flows of ovs-xdp that ran in
 * ovs-vswitchd, if any packet went there between 'before' and 'after'
 * (call it with the switch still set up). */
void
fwd_tnl_put_slow_flows(struct fwd *fwd, const struct fwd_tnl_counts *before,
                       const struct fwd_tnl_counts *after)
{
    if (after->slow_path > before->slow_path) {
        struct ds flows = DS_EMPTY_INITIALIZER;

        bench_ovs_run(&fwd->ovs_xdp, &flows, "ovs-appctl dpctl/dump-flows "
                      "-m | grep -v 'dp:xdp'");
        fprintf(stderr, "ovs-xdp: datapath flows that ran in ovs-vswitchd:"
                "\n%s", ds_cstr(&flows));
        ds_destroy(&flows);
    }
}

/* Appends to 'note' what ovs-xdp's program counted in tunnel pipeline 'p'
 * between 'before' and 'after', while 'frames' reached the sink, and
 * complains on stderr if it did not do the work itself. */
void
fwd_tnl_note(enum fwd_pipeline p, const struct fwd_tnl_counts *before,
             const struct fwd_tnl_counts *after, unsigned long long frames,
             struct ds *note)
{
    long long push = after->push - before->push;
    long long pop = after->pop - before->pop;
    long long slow = after->slow_path - before->slow_path;
    long long fallback = after->fallback - before->fallback;
    long long done = fwd_tnl_is_encap(p) ? push : pop;

    ds_put_format(note, "%sin XDP: xdp-tnl-push +%lld, xdp-tnl-pop +%lld "
                  "(%.2f per frame at the sink), xdp-slow-path +%lld\n"
                  "xdp-fallback +%lld (lookups past the compiled "
                  "subtables)", note->length ? "\n" : "", push, pop,
                  frames ? (double) done / frames : 0.0, slow, fallback);
    if (done < (long long) frames || slow) {
        ovs_error(0, "ovs-xdp %s: %lld frames at the sink, but XDP %s "
                  "%lld and sent %lld to ovs-vswitchd", fwd_tnl_is_encap(p)
                  ? "encapsulation" : "decapsulation", (long long) frames,
                  fwd_tnl_is_encap(p) ? "encapsulated" : "decapsulated",
                  done, slow);
    }
}
