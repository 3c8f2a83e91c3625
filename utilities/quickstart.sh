#!/bin/bash
# Copyright (c) 2026 The ovs-xdp authors.
# Licensed under the Apache License, Version 2.0.
#
# quickstart.sh: from a fresh Debian 12 machine (as root) to a running demo
# or a full test run, with no other step.
#
#   utilities/quickstart.sh demo [--keep]
#       Installs the Debian packages the build needs, builds ovs-xdp in
#       _build/, and runs a private sandbox: its own ovsdb-server and
#       ovs-vswitchd-xdp with a run directory of their own (never the
#       system's Open vSwitch), two network namespaces joined by veth pairs
#       to a bridge with datapath_type=xdp, traffic between them, and what an
#       operator would look at.  Everything is removed at the end, also on
#       Ctrl-C or failure, unless --keep is given.
#
#   utilities/quickstart.sh test
#       Installs, builds, and runs every test suite of the project ('make
#       check' and, as root, 'make check-system' and the CI subset of Open
#       vSwitch's own system tests, 'make check-system-upstream-ci'); then,
#       as root, builds the DPDK variant (configure --with-dpdk, in
#       $BUILDDIR-dpdk) and runs its DPDK test, which the default build
#       skips; then prints one line 'N passed, N failed, N skipped'.
#
# Environment: BUILDDIR (default: _build in the source tree), JOBS
# (default: the number of CPUs), DPDK=no to leave the DPDK variant out
# of 'test' (about 5 minutes on a 2-CPU machine).

set -u -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${BUILDDIR:-$top/_build}
dpdk_builddir=$builddir-dpdk
jobs=${JOBS:-$(nproc)}

# Debian packages: the build (compilers, autotools, libraries, OVS's own
# source), the stock Open vSwitch daemons and tools the sandbox talks to, and
# what the demo and the system tests run (ip, ping, ethtool, OVN for
# tests/system-ovn.at, pmacct's sFlow and IPFIX collectors for
# tests/system-sample.at, capsh for tests/system-user.at), and the
# benchmarks' TCP load, charts and the Linux bridge's stateful firewall
# (iperf3, gnuplot, nftables).
PACKAGES="build-essential autoconf automake libtool pkg-config python3
  libssl-dev libcap-ng-dev libnuma-dev libunbound-dev libbpf-dev libxdp-dev
  clang llvm bpftool openvswitch-source openvswitch-common
  openvswitch-switch ovn-central ovn-host iproute2 iputils-ping ethtool
  procps strace wget tcpdump netcat-openbsd iperf3 gnuplot-nox nftables
  pmacct libcap2-bin"

# The DPDK variant of 'test' (configure --with-dpdk) also needs Debian's
# DPDK, whose drivers for the test's virtual devices (net_af_packet) come
# with it.
DPDK_PACKAGES="libdpdk-dev"

log() { printf 'quickstart: %s %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

need_root() {
    [ "$(id -u)" = 0 ] || die "run me as root (XDP, BPF maps and network namespaces need it)"
}

# install_packages [PACKAGE...]: installs those missing of the packages
# given, by default $PACKAGES.
install_packages() {
    local missing=
    for p in ${*:-$PACKAGES}; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' \
            || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    log "installing:$missing"
    # Installing openvswitch-switch, ovn-central and ovn-host must not
    # start the system's own Open vSwitch or OVN (ovsdb-servers, ovn-northd,
    # ovn-controller): the sandbox and the tests never use them, and run
    # their own.  A policy-rc.d that denies service starts does that, for
    # the duration of this install only: the packages' maintainer scripts
    # start their units through deb-systemd-invoke or invoke-rc.d, which
    # both ask it first.
    local policy=
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\n# Temporary, from ovs-xdp quickstart.sh.\nexit 101\n' > $policy
        chmod +x $policy
    fi
    local rc=0
    apt-get update -q >/dev/null \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
               --no-install-recommends $missing >/dev/null || rc=$?
    [ -n "$policy" ] && rm -f "$policy"
    [ $rc = 0 ] || die "apt-get install failed (status $rc)"
}

mount_bpffs() {
    mount | grep -q ' /sys/fs/bpf type bpf' || mount -t bpf bpf /sys/fs/bpf \
        || die "cannot mount bpffs on /sys/fs/bpf"
}

# build__ [DIR [CONFIGURE-OPTION...]]: configures DIR (once, with those
# options) and builds there, by default in $builddir; returns nonzero on
# failure, after the log's tail.
build__() {
    local dir=${1:-$builddir}
    shift
    log "building in $dir${*:+ (configure $*)}"
    if [ ! -x "$top/configure" ]; then
        (cd "$top" && ./boot.sh) >"$top/boot.log" 2>&1 \
            || { tail -n 20 "$top/boot.log"; log "boot.sh failed"; return 1; }
    fi
    mkdir -p "$dir"
    if [ ! -f "$dir/Makefile" ]; then
        (cd "$dir" && "$top/configure" "$@") >"$dir/configure.out" 2>&1 \
            || { tail -n 20 "$dir/configure.out"; log "configure failed"; return 1; }
    fi
    make -C "$dir" -j"$jobs" >"$dir/make.out" 2>&1 \
        || { tail -n 30 "$dir/make.out"; log "make failed (log: $dir/make.out)"; return 1; }
}

build() {
    build__ "$builddir" || die "build failed"
}

# ---------------------------------------------------------------------------
# demo

sandbox=
u=$$
OVS_XDP_PIN_ROOT=
ns_a=ovsxdp-a-$u
ns_b=ovsxdp-b-$u
veth_a=xda$u
veth_b=xdb$u
bridge=xdbr$u

demo_cleanup() {
    [ -n "$sandbox" ] || return 0
    log "cleaning up the sandbox"
    for d in ovs-vswitchd ovsdb-server; do
        if [ -f "$sandbox/$d.pid" ]; then
            pid=$(cat "$sandbox/$d.pid")
            kill "$pid" 2>/dev/null
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        fi
    done
    ip link del "$veth_a" 2>/dev/null
    ip link del "$veth_b" 2>/dev/null
    ip link del "$bridge" 2>/dev/null
    ip netns del "$ns_a" 2>/dev/null
    ip netns del "$ns_b" 2>/dev/null
    rm -rf "$OVS_XDP_PIN_ROOT"
    rm -rf "$sandbox"
    sandbox=
}

show() {
    printf '\n$ %s\n' "$*"
    "$@"
}

demo() {
    local keep=false
    for arg; do
        case $arg in
        --keep) keep=true ;;
        *) die "demo: unknown option $arg" ;;
        esac
    done
    need_root
    install_packages
    mount_bpffs
    build

    sandbox=$(mktemp -d /tmp/ovs-xdp-demo.XXXXXX)
    $keep || trap demo_cleanup EXIT
    trap 'exit 130' INT TERM

    # Everything OVS reads and writes lives in the sandbox, and the
    # datapath pins its maps in a bpffs directory of its own.
    export OVS_RUNDIR=$sandbox OVS_LOGDIR=$sandbox OVS_DBDIR=$sandbox \
           OVS_SYSCONFDIR=$sandbox
    export OVS_XDP_PIN_ROOT=/sys/fs/bpf/ovs-xdp-demo-$u
    mkdir "$sandbox/bin"
    # Run under the name 'ovs-vswitchd' (as update-alternatives would) so
    # that ovs-appctl and ovs-vsctl find it the usual way.
    ln -s "$builddir/ofproto-xdp/ovs-vswitchd-xdp" "$sandbox/bin/ovs-vswitchd"

    log "starting ovsdb-server and ovs-vswitchd-xdp in $sandbox"
    ovsdb-tool create "$sandbox/conf.db" /usr/share/openvswitch/vswitch.ovsschema \
        || die "ovsdb-tool create failed"
    ovsdb-server --detach --no-chdir --pidfile --log-file -vconsole:err \
        --remote=punix:"$sandbox/db.sock" || die "ovsdb-server failed to start"
    ovs-vsctl --no-wait init
    "$sandbox/bin/ovs-vswitchd" --detach --no-chdir --pidfile --log-file \
        -vconsole:err \
        || die "ovs-vswitchd-xdp failed to start (log: $sandbox/ovs-vswitchd.log)"

    log "creating namespaces $ns_a, $ns_b and bridge $bridge (datapath_type=xdp)"
    ovs-vsctl add-br "$bridge" -- set bridge "$bridge" datapath_type=xdp \
        || die "add-br failed"
    local ns veth addr
    for x in a b; do
        eval ns=\$ns_$x veth=\$veth_$x
        [ $x = a ] && addr=10.99.0.1/24 || addr=10.99.0.2/24
        ip netns add "$ns" || die "ip netns add $ns failed"
        ip link add "$veth" type veth peer name eth0 netns "$ns" || die "veth failed"
        ip link set "$veth" up
        nsenter --net=/run/netns/"$ns" ip link set lo up
        nsenter --net=/run/netns/"$ns" ip addr add $addr dev eth0
        nsenter --net=/run/netns/"$ns" ip link set eth0 up
        ovs-vsctl add-port "$bridge" "$veth" || die "add-port $veth failed"
    done

    show ovs-vsctl show
    show ovs-appctl dpif/show
    show ovs-appctl dispatcher/show

    # nsenter, not "ip netns exec" or "ip -n", which also remount /sys and fail
    # where / is not a mount point (a chroot).
    printf '\n$ nsenter --net=/run/netns/%s ping -c 3 -i 0.2 -W 1 10.99.0.2\n' "$ns_a"
    if nsenter --net=/run/netns/"$ns_a" ping -c 3 -i 0.2 -W 1 10.99.0.2; then
        ping_ok=true
    else
        ping_ok=false
    fi

    printf '\n$ grep dpif_xdp ovs-vswitchd.log\n'
    grep 'dpif_xdp' "$sandbox/ovs-vswitchd.log" | cut -d'|' -f3-

    show ovs-appctl dpctl/dump-flows -m
    echo
    if $ping_ok; then
        log "traffic crossed the xdp bridge: flows marked dp:xdp ran in the XDP program, which alone moves their packet counters"
    else
        log "error: no traffic crossed the bridge (log: $sandbox/ovs-vswitchd.log)"
    fi

    if $keep; then
        cat <<EOF

The sandbox keeps running.  To use it:
    export OVS_RUNDIR=$sandbox OVS_LOGDIR=$sandbox OVS_DBDIR=$sandbox
    export OVS_XDP_PIN_ROOT=$OVS_XDP_PIN_ROOT
    ovs-vsctl show; ovs-appctl dpif/show
    ip netns exec $ns_a ping 10.99.0.2
To remove it:
    kill \$(cat $sandbox/ovs-vswitchd.pid) \$(cat $sandbox/ovsdb-server.pid)
    ip netns del $ns_a; ip netns del $ns_b; ip link del $veth_a; ip link del $veth_b
    ip link del $bridge; rm -rf $sandbox $OVS_XDP_PIN_ROOT
EOF
        sandbox=
    fi
    $ping_ok
}

# ---------------------------------------------------------------------------
# test

# count_results LOG: prints "PASSED FAILED SKIPPED" from an autotest run's
# per-test lines ("  3: name   ok", "... skipped (f.at:12)", "... FAILED
# (f.at:30)", "... expected failure").  An expected failure (a known bug,
# AT_XFAIL_IF) counts as skipped: it did not pass.
count_results() {
    awk '/^ *[0-9]+: / {
             if ($0 ~ / ok$/) p++;
             else if ($0 ~ / skipped \(/) s++;
             else if ($0 ~ / FAILED \(/ || $0 ~ /UNEXPECTED PASS/) f++;
             else if ($0 ~ /expected failure/) s++;
         }
         END { printf "%d %d %d\n", p, f, s }' "$1"
}

# run_dpdk_test: builds the DPDK variant (ovs-vswitchd-xdp configured
# --with-dpdk, in $dpdk_builddir) and runs its one test,
# tests/system-dpdk.at (DPDK ports on virtual devices, no hugepages, next
# to an xdp bridge), which the default build skips.  Prints "PASSED FAILED
# SKIPPED"; a failed install or build counts as one failure.
run_dpdk_test() {
    log "the DPDK variant (configure --with-dpdk, in $dpdk_builddir)"
    if ! (install_packages $DPDK_PACKAGES) >&2 \
       || ! build__ "$dpdk_builddir" --with-dpdk >&2; then
        echo 0 1 0
        return
    fi
    make -C "$dpdk_builddir" check-system TESTSUITEFLAGS="-k dpdk" 2>&1 \
        | tee "$dpdk_builddir/check-dpdk.out" | grep -E '^ *[0-9]+: ' >&2
    local p f s
    read -r p f s < <(count_results "$dpdk_builddir/check-dpdk.out")
    if [ $((p + f + s)) = 0 ]; then
        log "the DPDK test did not run"
        f=1
    fi
    echo "$p $f $s"
}

run_tests() {
    install_packages
    [ "$(id -u)" = 0 ] && mount_bpffs
    build

    local passed=0 failed=0 skipped=0 p f s rc=0
    log "make check"
    make -C "$builddir" check TESTSUITEFLAGS="-j$jobs" 2>&1 \
        | tee "$builddir/check.out" | grep -E '^ *[0-9]+: '
    read -r p f s < <(count_results "$builddir/check.out")
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    [ $((p + f + s)) -gt 0 ] || { log "make check ran no test"; failed=$((failed + 1)); }

    log "make check-system"
    make -C "$builddir" check-system 2>&1 \
        | tee "$builddir/check-system.out" | grep -E '^ *[0-9]+: '
    read -r p f s < <(count_results "$builddir/check-system.out")
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    [ $((p + f + s)) -gt 0 ] || { log "make check-system ran no test"; failed=$((failed + 1)); }

    # A fixed subset of Open vSwitch's own system tests, on xdp (the whole
    # suite is 'make check-system-upstream', about 25 minutes).
    # They enter namespaces with 'ip netns exec', which remounts /sys and
    # fails where / is not a mount point (a chroot): there they are counted
    # as skipped, not run.
    local probe=ovsxdp-probe-$$ netns_exec=false
    if [ "$(id -u)" = 0 ] && ip netns add "$probe" 2>/dev/null; then
        ip netns exec "$probe" true 2>/dev/null && netns_exec=true
        ip netns del "$probe"
    fi
    if [ "$(id -u)" = 0 ] && ! $netns_exec; then
        s=$(($(sed -n 's/^UPSTREAM_CI_TESTS *=//p' "$top/tests/upstream.mk" | wc -w)))
        log "make check-system-upstream-ci: $s tests skipped: 'ip netns exec' does not work here"
        skipped=$((skipped + s))
    elif [ "$(id -u)" = 0 ]; then
        log "make check-system-upstream-ci"
        make -C "$builddir" check-system-upstream-ci 2>&1 \
            | tee "$builddir/check-upstream.out" | grep -E '^ *[0-9]+: '
        read -r p f s < <(count_results "$builddir/check-upstream.out")
        passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
        [ $((p + f + s)) -gt 0 ] || { log "make check-system-upstream-ci ran no test"; failed=$((failed + 1)); }
    fi

    if [ "$(id -u)" = 0 ] && [ "${DPDK:-yes}" != no ]; then
        read -r p f s < <(run_dpdk_test)
        passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    fi

    echo "$passed passed, $failed failed, $skipped skipped"
    [ $failed = 0 ]
}

case ${1:-} in
demo) shift; demo "$@" ;;
test) shift; run_tests "$@" ;;
*) echo "usage: $0 demo [--keep] | test" >&2; exit 2 ;;
esac
