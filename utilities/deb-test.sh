#!/bin/bash
# Copyright (c) 2026 The ovs-xdp authors.
# Licensed under the Apache License, Version 2.0.
#
# deb-test.sh: builds the Debian package openvswitch-switch-xdp from a clean
# copy of the tree and tests it end to end on this machine, against the
# system's own Open vSwitch (as root, Debian 12, no systemd needed).
#
#   utilities/deb-test.sh [OPTIONS]
#       1. Build: 'git archive HEAD' into a scratch directory (mktemp -d),
#          dpkg-buildpackage -us -uc -b there, lintian on the .deb (errors
#          fail the test; warnings are shown).
#       2. Install the .deb with apt-get; the ovs-vswitchd alternative must
#          now be ovs-vswitchd-xdp and the database unchanged.
#       3. Start the system's Open vSwitch with Debian's own
#          /usr/share/openvswitch/scripts/ovs-ctl start, with the datapath's
#          BPF pins in a private root (OVS_XDP_PIN_ROOT), create a bridge
#          with datapath_type=xdp between two network namespaces joined by
#          veth pairs, ping across, check 'ovs-appctl dpif/show' (xdp@ovs-xdp)
#          and 'dpctl/dump-flows -m' (a dp:xdp flow with packets).
#       4. Delete the bridge, ovs-ctl stop, remove the package: the
#          alternative must be the stock ovs-vswitchd again and the database
#          unchanged by the removal (checksums).
#       Ends with one line: "deb-test: PASS" or "deb-test: FAIL: reason".
#
#   utilities/deb-test.sh --build-only [--outdir DIR]
#       Step 1 only; copies the .deb files to DIR (default: the current
#       directory).  'make deb' runs this.
#
# Options:
#   --deb FILE      test FILE instead of building (skips step 1)
#   --outdir DIR    where --build-only puts the packages
#   --keep-build    keep the scratch build directory (its path is printed)
#   --head-only     build exactly the committed HEAD; by default uncommitted
#                   changes under debian/ (only there) are laid over it, so
#                   that packaging work can be tested before it is committed
#   --nocheck       skip the package's 'make check' during the build
#                   (DEB_BUILD_OPTIONS=nocheck; it takes some 15 s)
#   --strict        refuse if any process called ovs-vswitchd or
#                   ovsdb-server runs (by default, instances that run with
#                   a private OVS_RUNDIR, such as test-suite sandboxes, are
#                   listed and ignored)
#   --ovs-user      run both daemons as an unprivileged system user that
#                   the test creates (as Fedora's package does), with
#                   'ovs-ctl --ovs-user=USER:USER'; the run, log and
#                   database directories become that user's for the run
#                   (their owners are put back afterwards), and the test
#                   checks the daemon's user and its capabilities
#
# Safety: the test starts the SYSTEM's Open vSwitch with the system database
# (/etc/openvswitch/conf.db), so it refuses to run while that one runs, and
# while openvswitch-switch-xdp is installed already.  Everything it creates
# has a name with this shell's pid in it and is removed at exit, on failure
# too: the bridge (ovs-vsctl --if-exists del-br), the daemons it started
# (ovs-ctl stop), the namespaces, the veths, the pin root, the package, and
# the database and system-id files if they did not exist before.
#
# Environment: JOBS (default: the number of CPUs) for the build.

set -u -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc)}
u=$$
start_time=$(date +%s)

PKG=openvswitch-switch-xdp
XDP_ALT=/usr/lib/openvswitch-switch-xdp/ovs-vswitchd-xdp
STOCK_ALT=/usr/lib/openvswitch-switch/ovs-vswitchd
OVS_CTL=/usr/share/openvswitch/scripts/ovs-ctl
RUNDIR=/var/run/openvswitch
CONF_DB=/etc/openvswitch/conf.db
SYSTEM_ID=/etc/openvswitch/system-id.conf

build_only=false
deb=
outdir=.
keep_build=false
head_only=false
nocheck=false
strict=false
ovs_user=false

log() { printf 'deb-test: %s\n' "$*" >&2; }
indent() { sed 's/^/deb-test:   /' >&2; }

# Result handling: fail REASON records the first failure and exits; the EXIT
# trap cleans up and prints the final line.
result=
fail() {
    [ -n "$result" ] || result="FAIL: $*"
    log "error: $*"
    exit 1
}

usage() {
    sed -n '/^#   utilities/,/^# Environment/p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
    --build-only) build_only=true ;;
    --deb) shift; deb=${1:-} ;;
    --deb=*) deb=${1#--deb=} ;;
    --outdir) shift; outdir=${1:-} ;;
    --outdir=*) outdir=${1#--outdir=} ;;
    --keep-build) keep_build=true ;;
    --head-only) head_only=true ;;
    --nocheck) nocheck=true ;;
    --strict) strict=true ;;
    --ovs-user) ovs_user=true ;;
    -h|--help) usage ;;
    *) log "unknown option $1"; usage ;;
    esac
    shift
done

# ---------------------------------------------------------------------------
# State, for the cleanup.

scratch=
installed=false
started=false
bridge_made=false
ns_a=debtest-a-$u
ns_b=debtest-b-$u
veth_a=dta$u
veth_b=dtb$u
bridge=dtbr$u
pin_root=/sys/fs/bpf/ovs-xdp-debtest-$u
db_target=
db_existed=true
lock_target=
lock_existed=true
sysid_existed=true
user=ovsdt$u
user_made=false
chowned=            # "owner:group path" lines to put back

# Follows a symlink chain to the file it names (which need not exist).
target_of() { readlink -m "$1"; }

cleanup() {
    local rc=$?
    trap '' INT TERM
    if $bridge_made || $started; then
        if [ -S "$RUNDIR/db.sock" ]; then
            ovs-vsctl --timeout=10 --if-exists del-br "$bridge" \
                || log "warning: could not delete bridge $bridge"
        fi
        bridge_made=false
    fi
    if $started; then
        if "$OVS_CTL" stop >/dev/null 2>&1; then
            started=false
        else
            log "warning: ovs-ctl stop failed"
        fi
    fi
    ip netns del "$ns_a" 2>/dev/null
    ip netns del "$ns_b" 2>/dev/null
    ip link del "$veth_a" 2>/dev/null
    ip link del "$veth_b" 2>/dev/null
    if [ -n "$chowned" ]; then
        printf '%s\n' "$chowned" | while read -r owner path; do
            [ -n "$path" ] && chown -R "$owner" "$path"
        done
        chowned=
    fi
    if $user_made; then
        userdel "$user" 2>/dev/null || log "warning: could not remove user $user"
        user_made=false
    fi
    case $pin_root in
    /sys/fs/bpf/ovs-xdp-debtest-[0-9]*) rm -rf "$pin_root" ;;
    esac
    if $installed; then
        DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$PKG" \
            >/dev/null 2>&1 || log "warning: could not remove $PKG"
        installed=false
    fi
    # Files this test made the system's Open vSwitch create, and only those.
    # (Never while a daemon this test started may still be running.)
    if ! $started; then
        local f
        for f in "$db_existed:$db_target" "$lock_existed:$lock_target" \
                 "$sysid_existed:$SYSTEM_ID"; do
            if [ "${f%%:*}" = false ] && [ -e "${f#*:}" ]; then
                log "removing ${f#*:}, which did not exist before this test"
                rm -f "${f#*:}"
            fi
        done
    fi
    if [ -n "$scratch" ]; then
        if $keep_build; then
            log "build directory kept: $scratch"
        else
            rm -rf "$scratch"
        fi
    fi
    log "run time: $(( $(date +%s) - start_time )) s"
    if [ -z "$result" ]; then
        if [ $rc = 0 ]; then result=PASS; else result="FAIL: exit status $rc"; fi
    fi
    echo "deb-test: $result"
    [ "$result" = PASS ]
}
trap cleanup EXIT
trap 'fail interrupted' INT TERM

# ---------------------------------------------------------------------------
# 1. Build.

# Installs the build dependencies that are missing (apt-get build-dep on the
# unpacked tree), when root; otherwise lets dpkg-buildpackage report them.
install_build_deps() {
    local dir=$1
    (cd "$dir" && dpkg-checkbuilddeps) >/dev/null 2>&1 && return 0
    if [ "$(id -u)" != 0 ]; then
        log "build dependencies missing:"
        (cd "$dir" && dpkg-checkbuilddeps) >&2
        return 1
    fi
    log "installing build dependencies"
    DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q \
        --no-install-recommends "$dir" >/dev/null \
        || DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q "$dir" \
        || return 1
}

build() {
    command -v git >/dev/null || fail "git is needed"
    command -v dpkg-buildpackage >/dev/null \
        || fail "dpkg-buildpackage is needed (apt-get install dpkg-dev)"
    git -C "$top" rev-parse --verify -q HEAD >/dev/null \
        || fail "$top is not a git work tree with a commit"

    scratch=$(mktemp -d /tmp/debtest.XXXXXX) || fail "mktemp failed"
    local src=$scratch/ovs-xdp
    log "copying HEAD ($(git -C "$top" rev-parse --short HEAD)) into $src"
    git -C "$top" archive --format=tar --prefix=ovs-xdp/ HEAD \
        | tar -x -C "$scratch" || fail "git archive HEAD failed"
    if ! $head_only \
       && [ -n "$(git -C "$top" status --porcelain --untracked-files=all -- debian)" ]; then
        log "laying the uncommitted debian/ of the work tree over HEAD"
        rm -rf "$src/debian"
        (cd "$top" && git ls-files -z --cached --others --exclude-standard -- debian \
             | while IFS= read -r -d '' f; do
                   [ -e "$f" ] && printf '%s\0' "$f"
               done | tar --null -T - -cf -) \
            | tar -x -C "$src" || fail "copying debian/ failed"
    fi
    [ -x "$src/debian/rules" ] || fail "no debian/rules in the tree"

    install_build_deps "$src" || fail "build dependencies are missing"

    local opts="parallel=$jobs"
    $nocheck && opts="$opts nocheck"
    log "dpkg-buildpackage -us -uc -b (DEB_BUILD_OPTIONS='$opts'; log: $scratch/build.log)"
    local t0=$(date +%s)
    if ! (cd "$src" && DEB_BUILD_OPTIONS="$opts" \
              dpkg-buildpackage -us -uc -b) >"$scratch/build.log" 2>&1; then
        tail -n 40 "$scratch/build.log" >&2
        keep_build=true
        fail "dpkg-buildpackage failed (log: $scratch/build.log)"
    fi
    log "built in $(( $(date +%s) - t0 )) s"
    grep 'debian/rules: note:' "$scratch/build.log" | sed 's/^/deb-test: /' >&2

    deb=$(ls "$scratch"/${PKG}_*.deb 2>/dev/null | head -n 1)
    [ -f "$deb" ] || fail "dpkg-buildpackage made no ${PKG}_*.deb"
    log "package: ${deb##*/}"
    dpkg-deb -f "$deb" Version Depends Built-Using | indent
    dpkg-deb -c "$deb" | awk '{print "deb-test:   " $NF}' | grep -v '/$' >&2

    run_lintian "$deb"
}

run_lintian() {
    if ! command -v lintian >/dev/null; then
        if [ "$(id -u)" = 0 ]; then
            log "installing lintian"
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
                --no-install-recommends lintian >/dev/null \
                || fail "cannot install lintian"
        else
            fail "lintian is not installed"
        fi
    fi
    log "lintian ${1##*/}"
    local out
    out=$(lintian --no-cfg "$1" 2>&1)
    [ -n "$out" ] && printf '%s\n' "$out" | indent
    if printf '%s\n' "$out" | grep -q '^E: '; then
        fail "lintian reports errors"
    fi
    log "lintian: $(printf '%s\n' "$out" | grep -c '^E: ') errors," \
        "$(printf '%s\n' "$out" | grep -c '^W: ') warnings"
}

if [ -z "$deb" ]; then
    build
    if $build_only; then
        mkdir -p "$outdir" || fail "cannot create $outdir"
        cp "$scratch"/*.deb "$outdir"/ || fail "cannot copy the packages to $outdir"
        for f in "$scratch"/*.deb; do log "wrote $outdir/${f##*/}"; done
        exit 0
    fi
else
    [ -f "$deb" ] || fail "$deb: no such file"
    deb=$(readlink -f "$deb")
    $build_only && fail "--build-only and --deb exclude each other"
fi

# ---------------------------------------------------------------------------
# 2-4. Install, run, remove.

[ "$(id -u)" = 0 ] || fail "the install test needs root"
for tool in apt-get dpkg update-alternatives ip nsenter ping pgrep sha256sum; do
    command -v $tool >/dev/null || fail "$tool is needed"
done
[ -x "$OVS_CTL" ] || fail "$OVS_CTL is missing (apt-get install openvswitch-switch)"

# No ovs-vswitchd or ovsdb-server may run: this test starts the system's.
# ('ovs-vswitchd-xd' is how the kernel names ovs-vswitchd-xdp: 15 chars.)
check_no_ovs() {
    local pids pid env rundir blockers= ignored=
    pids=$(pgrep -x 'ovs-vswitchd|ovs-vswitchd-xd|ovsdb-server')
    for pid in $pids; do
        env=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null)
        rundir=$(printf '%s\n' "$env" | sed -n 's/^OVS_RUNDIR=//p')
        if ! $strict && [ -n "$rundir" ] \
           && [ "$(readlink -m "$rundir")" != "$(readlink -m "$RUNDIR")" ] \
           && ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null \
                | grep -qE '(/var)?/run/openvswitch/|/etc/openvswitch/|/var/lib/openvswitch/'; then
            ignored="$ignored $pid"
        else
            blockers="$blockers $pid"
        fi
    done
    for f in "$RUNDIR"/ovs-vswitchd.pid "$RUNDIR"/ovsdb-server.pid; do
        pid=$(cat "$f" 2>/dev/null) || continue
        [ -n "$pid" ] && [ -d "/proc/$pid" ] && blockers="$blockers $pid"
    done
    for pid in $ignored; do
        log "ignoring a private Open vSwitch (OVS_RUNDIR=$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n 's/^OVS_RUNDIR=//p')): $(tr '\0' ' ' <"/proc/$pid/cmdline" | cut -c1-100)"
    done
    if [ -n "$blockers" ]; then
        for pid in $(printf '%s\n' $blockers | sort -u); do
            log "running: $pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-120)"
        done
        fail "Open vSwitch is running (ovs-vswitchd/ovsdb-server above); this test starts the system's Open vSwitch with /etc/openvswitch/conf.db, so stop it first ($OVS_CTL stop)"
    fi
}
check_no_ovs

if dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null | grep -q 'installed'; then
    fail "$PKG is installed already; remove it first (apt-get remove $PKG)"
fi
alt_query() { update-alternatives --query ovs-vswitchd 2>/dev/null; }
alt_value() { alt_query | sed -n 's/^Value: //p'; }
alt_query | grep -q '^Status: auto' \
    || fail "the ovs-vswitchd alternative is not in auto mode (update-alternatives --auto ovs-vswitchd)"
[ "$(alt_value)" = "$STOCK_ALT" ] \
    || fail "the ovs-vswitchd alternative is $(alt_value), not the stock $STOCK_ALT"

# The package depends on exactly the Open vSwitch it was built from.
ovs_version=$(dpkg-query -W -f='${Version}' openvswitch-source 2>/dev/null)
depends=$(dpkg-deb -f "$deb" Depends)
for p in openvswitch-switch openvswitch-common; do
    printf '%s\n' "$depends" | tr ',' '\n' | sed 's/^ *//' \
        | grep -qxF "$p (= $ovs_version)" \
        || fail "${deb##*/} does not depend on $p (= $ovs_version) (openvswitch-source): Depends: $depends"
done
log "Depends pins openvswitch-switch and openvswitch-common to $ovs_version"

db_target=$(target_of "$CONF_DB")
[ -e "$db_target" ] || db_existed=false
lock_target=$(target_of "$(dirname "$CONF_DB")/.conf.db.~lock~")
[ -e "$lock_target" ] || lock_existed=false
[ -e "$SYSTEM_ID" ] || sysid_existed=false
db_sum() { if [ -e "$CONF_DB" ]; then sha256sum <"$CONF_DB" | cut -d' ' -f1; else echo absent; fi; }

# 2. Install.
sum0=$(db_sum)
log "installing ${deb##*/} (conf.db: $sum0)"
installed=true
install_out=$(DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
                  --no-install-recommends "$deb" 2>&1) \
    || { printf '%s\n' "$install_out" >&2; fail "apt-get install failed"; }
printf '%s\n' "$install_out" | grep -iE 'ovs-vswitchd|update-alternatives|openvswitch-switch-xdp' \
    | indent
dpkg-query -W -f='${Status}' "$PKG" | grep -q 'install ok installed' \
    || fail "$PKG is not installed after apt-get install"
[ "$(alt_value)" = "$XDP_ALT" ] \
    || fail "after install the ovs-vswitchd alternative is $(alt_value), not $XDP_ALT"
log "ovs-vswitchd alternative: $(alt_value)"
[ "$(db_sum)" = "$sum0" ] || fail "installing the package changed $CONF_DB"

# The wrapper mounts bpffs where it is missing: in a private mount
# namespace (nothing there reaches the system's mounts) with /sys/fs/bpf
# unmounted, it must mount it before running the daemon (which an unknown
# option makes exit at once).
log "wrapper: mounts bpffs when /sys/fs/bpf has none (private mount namespace)"
wrapper_out=$(unshare --mount --propagation private bash -c '
    for i in 1 2 3 4; do
        [ "$(stat -f -c %T /sys/fs/bpf)" = bpf_fs ] || break
        umount /sys/fs/bpf || exit 1
    done
    echo "before: $(stat -f -c %T /sys/fs/bpf)"
    /usr/sbin/ovs-vswitchd --deb-test-no-such-option >/dev/null 2>&1
    echo "after: $(stat -f -c %T /sys/fs/bpf)"' 2>&1)
printf '%s\n' "$wrapper_out" | indent
printf '%s\n' "$wrapper_out" | grep -q '^before: bpf_fs' \
    && fail "could not unmount bpffs in a private mount namespace"
printf '%s\n' "$wrapper_out" | grep -q '^after: bpf_fs$' \
    || fail "the ovs-vswitchd wrapper did not mount bpffs on /sys/fs/bpf"

# 3. Run.  The environment goes through ovs-ctl to ovs-vswitchd (checked
# below), so the datapath pins into a private root.
export OVS_XDP_PIN_ROOT=$pin_root
bpffs_before=$(stat -f -c %T /sys/fs/bpf 2>/dev/null)
ctl_opts="--system-id=random --no-record-hostname"
if $ovs_user; then
    # What Fedora's package sets up: a system user, owner of the run, log
    # and database directories, which ovs-ctl --ovs-user expects.
    useradd --system --user-group --no-create-home --home-dir /nonexistent \
            --shell /usr/sbin/nologin "$user" || fail "useradd $user failed"
    user_made=true
    for d in "$RUNDIR" /var/log/openvswitch "$(dirname "$db_target")"; do
        mkdir -p "$d"
        chowned="$chowned
$(stat -c %U:%G "$d") $d"
        chown -R "$user:$user" "$d" || fail "chown $d failed"
    done
    ctl_opts="$ctl_opts --ovs-user=$user:$user"
fi
log "starting Open vSwitch: $OVS_CTL $ctl_opts start (OVS_XDP_PIN_ROOT=$pin_root)"
started=true
"$OVS_CTL" $ctl_opts start 2>&1 | indent \
    || fail "ovs-ctl start failed"

vswitchd_pid=$(cat "$RUNDIR/ovs-vswitchd.pid" 2>/dev/null)
[ -n "$vswitchd_pid" ] && [ -d "/proc/$vswitchd_pid" ] \
    || fail "ovs-vswitchd is not running after ovs-ctl start"
exe=$(readlink "/proc/$vswitchd_pid/exe")
[ "$exe" = /usr/sbin/ovs-vswitchd-xdp ] \
    || fail "the running ovs-vswitchd is $exe, not /usr/sbin/ovs-vswitchd-xdp"
tr '\0' '\n' <"/proc/$vswitchd_pid/environ" | grep -qx "OVS_XDP_PIN_ROOT=$pin_root" \
    || fail "OVS_XDP_PIN_ROOT did not reach ovs-vswitchd through ovs-ctl"
log "ovs-vswitchd: pid $vswitchd_pid, $exe, OVS_XDP_PIN_ROOT=$pin_root in its environment"
if $ovs_user; then
    uid=$(awk '/^Uid:/ { print $2 }' "/proc/$vswitchd_pid/status")
    [ "$uid" = "$(id -u "$user")" ] \
        || fail "ovs-vswitchd runs as uid $uid, not as $user ($(id -u "$user"))"
    capeff=$(awk '/^CapEff:/ { print $2 }' "/proc/$vswitchd_pid/status")
    log "ovs-vswitchd runs as $user, CapEff $capeff"
    # CAP_NET_BIND_SERVICE, CAP_NET_BROADCAST, CAP_NET_ADMIN, CAP_NET_RAW,
    # CAP_IPC_LOCK (OVS's own), CAP_PERFMON and CAP_BPF (ours): bits 10 to
    # 14, 38 and 39.
    [ "$capeff" = 000000c000007c00 ] \
        || fail "ovs-vswitchd's capabilities are $capeff, not 000000c000007c00"
fi
[ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" = bpf_fs ] \
    || fail "bpffs is not mounted on /sys/fs/bpf after ovs-ctl start"
if [ "$bpffs_before" = bpf_fs ]; then
    log "bpffs was already mounted on /sys/fs/bpf"
else
    log "bpffs was not mounted before: the wrapper mounted it"
fi
ovs-appctl version | head -n 1 | indent

log "bridge $bridge (datapath_type=xdp), namespaces $ns_a and $ns_b"
bridge_made=true
ovs-vsctl --timeout=30 add-br "$bridge" -- set bridge "$bridge" datapath_type=xdp \
    || fail "ovs-vsctl add-br $bridge failed"
for x in a b; do
    eval ns=\$ns_$x veth=\$veth_$x
    [ $x = a ] && addr=10.251.$((u % 250)).1/24 || addr=10.251.$((u % 250)).2/24
    ip netns add "$ns" || fail "ip netns add $ns failed"
    ip link add "$veth" type veth peer name eth0 netns "$ns" \
        || fail "ip link add $veth failed"
    ip link set "$veth" up
    # In the namespace through nsenter: 'ip -n' and 'ip netns exec' remount
    # /sys, which fails where / is not a mount point (a chroot).
    nsenter --net=/run/netns/"$ns" ip link set lo up
    nsenter --net=/run/netns/"$ns" ip addr add "$addr" dev eth0
    nsenter --net=/run/netns/"$ns" ip link set eth0 up \
        || fail "cannot configure eth0 in $ns"
    ovs-vsctl --timeout=30 add-port "$bridge" "$veth" \
        || fail "ovs-vsctl add-port $bridge $veth failed"
done

dst=10.251.$((u % 250)).2
log "ping $dst from $ns_a"
ping_out=$(nsenter --net=/run/netns/"$ns_a" ping -c 5 -i 0.2 -W 2 "$dst" 2>&1)
printf '%s\n' "$ping_out" | tail -n 2 | indent
printf '%s\n' "$ping_out" | grep -q ' 0% packet loss' \
    || printf '%s\n' "$ping_out" | grep -qE ' [1-5] received' \
    || fail "no ping crossed the xdp bridge"

dpif=$(ovs-appctl dpif/show 2>&1)
printf '%s\n' "$dpif" | indent
printf '%s\n' "$dpif" | grep -q '^xdp@ovs-xdp:' \
    || fail "ovs-appctl dpif/show does not list xdp@ovs-xdp"

flows=$(ovs-appctl dpctl/dump-flows -m xdp@ovs-xdp 2>&1)
printf '%s\n' "$flows" | indent
printf '%s\n' "$flows" | grep 'dp:xdp' | grep -q 'packets:[1-9]' \
    || fail "dpctl/dump-flows -m shows no dp:xdp flow with packets"

[ -d "$pin_root" ] || fail "nothing pinned under $pin_root"
log "pinned under $pin_root: $(ls "$pin_root" | tr '\n' ' ')"

# 4. Stop and remove.
ovs-vsctl --timeout=30 --if-exists del-br "$bridge" || fail "ovs-vsctl del-br failed"
bridge_made=false
"$OVS_CTL" stop 2>&1 | indent || fail "ovs-ctl stop failed"
started=false
if [ -d "/proc/$vswitchd_pid" ]; then
    fail "ovs-vswitchd (pid $vswitchd_pid) still runs after ovs-ctl stop"
fi

[ -e "$CONF_DB" ] || fail "$CONF_DB does not exist after ovs-ctl stop"
sum1=$(db_sum)
log "removing $PKG (conf.db: $sum1)"
remove_out=$(DEBIAN_FRONTEND=noninteractive apt-get remove -y -q "$PKG" 2>&1) \
    || { printf '%s\n' "$remove_out" >&2; fail "apt-get remove $PKG failed"; }
printf '%s\n' "$remove_out" | grep -E '^Removing|update-alternatives|openvswitch-switch-xdp:' \
    | indent
installed=false
dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null | grep -q 'install ok installed' \
    && fail "$PKG is still installed"
alt_query | indent
[ "$(alt_value)" = "$STOCK_ALT" ] \
    || fail "after removal the ovs-vswitchd alternative is $(alt_value), not $STOCK_ALT"
alt_query | grep -q "^Alternative: $XDP_ALT" \
    && fail "$XDP_ALT is still an alternative after removal"
[ "$(readlink -f /usr/sbin/ovs-vswitchd)" = "$STOCK_ALT" ] \
    || fail "/usr/sbin/ovs-vswitchd resolves to $(readlink -f /usr/sbin/ovs-vswitchd)"
[ -e "$CONF_DB" ] || fail "$CONF_DB is gone after removing the package"
[ "$(db_sum)" = "$sum1" ] || fail "removing the package changed $CONF_DB"
log "conf.db unchanged by the removal: $(db_sum)"

# And purging it (its postrm) leaves the database alone too.
dpkg --purge "$PKG" 2>&1 | indent || fail "dpkg --purge $PKG failed"
dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null | grep -q 'config-files' \
    && fail "$PKG is not purged"
[ "$(db_sum)" = "$sum1" ] || fail "purging the package changed $CONF_DB"
[ "$(alt_value)" = "$STOCK_ALT" ] || fail "purging the package changed the alternative"
log "purged; conf.db still unchanged"
exit 0
