#!/usr/bin/env python3
# Copyright (c) 2026 The ovs-xdp authors.
#
# Licensed under the Apache License, Version 2.0.

"""Builds tests/upstream-results.md: Open vSwitch's own system tests, test
by test, on the xdp datapath (make check-system-upstream) next to OVS's
userspace datapath (make check-system-userspace in the OVS tree), on the
same machine.

It can run the suites itself (--run-xdp, --run-userspace, with test numbers
or keywords after '--'), or only read what earlier runs left.  Each run's
results, with each failure's first failing check, are kept in a state file
per datapath (--state-dir), so that a long suite may be run in chunks, at
different times: a later result for a test replaces an earlier one.

For a test that passes on userspace and not on xdp the table gives the
first failing check and what it showed (from the failing test's log), and
the capability that would fix it, from tests/upstream/capabilities.txt
(kept by hand: a test title, a tab, the capability, a tab, a note); a
failure not listed there is marked "unclassified", with what the test's
ovs-vswitchd.log suggests (ODP actions the datapath dropped, a crash).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# The lines at which a test is skipped name the macro that skipped it.
SKIP_REASONS = [
    (r"XDP_UPSTREAM_SKIP\(\[conntrack\]\)|CHECK_CONNTRACK|CHECK_CT_DPIF"
     r"|CHECK_L3L4_CONNTRACK|DPCTL_", "conntrack"),
    (r"OVS_CHECK_TUNNEL_TSO|OVS_CHECK_(VXLAN|GRE|ERSPAN|GENEVE)"
     r"|ADD_OVS_TUNNEL", "tunnels"),
    (r"OVS_CHECK_MIN_KERNEL|OVS_CHECK_KERNEL_EXCL",
     "openvswitch kernel module (kernel-version-gated)"),
    (r"ADD_[SC]?VLAN", "no 802.1Q/802.1ad VLAN devices in this kernel"),
    (r"ADD_VETH_BOND", "no bonding devices in this kernel"),
    (r"OVS_CHECK_8021AD",
     "VLAN header stack probed as 1 (vlan-limit default), needs 2"),
    (r"OVS_CHECK_CT_CLEAR", "no ct_clear"),
    (r"HAVE_TCPDUMP", "no tcpdump"),
    (r"HAVE_NC\b", "no nc"),
    (r"HAVE_(L?FTP|TFTP)|CHECK_FTP_",
     "no FTP/TFTP test tools (python pyftpdlib, lftp, tftpy)"),
    (r"HAVE_TC\b", "no tc"),
    (r"XDP_SKIP_UNLESS_ROOT|id -u", "not root"),
]

RESULT_RE = re.compile(
    r"^(\d+)\. (.*) \((\S+\.at:\d+)\): "
    r"(ok|skipped \((\S+)\)|expected failure|FAILED \((\S+)\))")
FAILED_RE = re.compile(
    r"^(\d+)\. \S+\.at:\d+: \1\. (.*) \((\S+\.at:\d+)\): "
    r"(FAILED|UNEXPECTED PASS) \((\S+)\)")
LOC_RE = re.compile(r"^(?:\S*/)?(\S+\.at:\d+):(?: (.*))?$")


def read_action_names(ovs_srcdir):
    """ODP action numbers to names, from the OVS tree's header."""
    names = []
    try:
        with open(os.path.join(ovs_srcdir, "include/linux/openvswitch.h")) \
                as f:
            text = f.read()
    except OSError:
        return names
    m = re.search(r"enum ovs_action_attr \{(.*?)__OVS_ACTION_ATTR_MAX",
                  text, re.S)
    if m:
        names = re.findall(r"^\s*OVS_ACTION_ATTR_(\w+)", m.group(1), re.M)
    return [n.lower() for n in names]


def at_line(path_dirs, loc):
    """The text of .at location 'file:line', looked up in 'path_dirs'."""
    name, _, line = loc.rpartition(":")
    for d in path_dirs:
        p = os.path.join(d, name)
        if os.path.exists(p):
            with open(p, errors="replace") as f:
                lines = f.readlines()
            n = int(line)
            if 0 < n <= len(lines):
                return lines[n - 1].strip()
    return ""


def skip_reason(at_dirs, loc):
    text = at_line(at_dirs, loc)
    for pattern, reason in SKIP_REASONS:
        if re.search(pattern, text):
            return reason
    return text or loc


def first_failure(log_lines, fail_loc):
    """From a failed test's log, the failing check and what it showed."""
    # An OVS_WAIT that timed out fails inside ovs-macros.at; the check is
    # the last "waiting until/while" before "wait failed".
    for i in range(len(log_lines) - 1, -1, -1):
        m = re.match(r"^(\S+\.at:\d+): wait failed after (\d+) seconds",
                     log_lines[i])
        if m:
            for j in range(i - 1, -1, -1):
                w = re.match(r"^(\S+\.at:\d+): (waiting (?:until|while) .*)",
                             log_lines[j])
                if w:
                    what = w.group(2).rstrip(".")
                    return w.group(1), "%s: timed out after %ss" % (
                        shorten(what, 200), m.group(2))
            return m.group(1), "wait failed"

    name = os.path.basename(fail_loc)
    start = None
    for i, line in enumerate(log_lines):
        m = LOC_RE.match(line)
        if m and m.group(1) == name \
                and not (m.group(2) or "").startswith("exit code was"):
            start = i
    if start is None:
        return fail_loc, ""
    command = LOC_RE.match(log_lines[start]).group(2) or ""
    shown = []
    for line in log_lines[start + 1:]:
        m = LOC_RE.match(line)
        if m and (m.group(2) or "").startswith("exit code was"):
            shown.append(m.group(2))
            continue
        if m or re.match(r"^\d+\. \S+\.at:\d+: ", line):
            break
        if re.match(r"^(---|\+\+\+|@@) ", line):
            continue
        if line.startswith(("-", "+")) and not line.startswith(("+> ", "-> ")):
            shown.append(line.rstrip())
    # Tests' commands can be long here-documents, or start on the next
    # line: their first line.
    if not command.strip():
        for line in log_lines[start + 1:]:
            if line.strip():
                command = line.strip()
                break
    if command.endswith("<< NS_EXEC_HEREDOC"):
        k = start + 1
        command = command.replace(" sh << NS_EXEC_HEREDOC", "")
        if k < len(log_lines):
            command += ": " + log_lines[k].strip()
    return name, "`%s` → %s" % (shorten(command, 160),
                                shorten(" / ".join(shown[:6]), 300)
                                or "failed")


def shorten(s, n):
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n - 1] + "…"


def vswitchd_hints(test_dir, action_names):
    """What the failed test's ovs-vswitchd.log suggests."""
    hints = []
    log = os.path.join(test_dir, "ovs-vswitchd.log")
    try:
        with open(log, errors="replace") as f:
            text = f.read()
    except OSError:
        return hints
    types = sorted(set(int(t) for t in re.findall(
        r"ODP action type (\d+) is not supported yet", text)))
    if types:
        hints.append("dropped ODP actions: " + ", ".join(
            action_names[t] if t < len(action_names) else str(t)
            for t in types))
    if re.search(r"\|EMER\||assertion .* failed", text):
        hints.append("ovs-vswitchd aborted")
    # The first warning, but for those that check_logs ignores too and
    # those of the test's teardown (its devices removed under ovs-vswitchd).
    m = [w for w in re.findall(r"\|(?:WARN|ERR)\|(.*)", text)
         if not re.search(r"Unreasonably long|faults:|Dropped \d+ log"
                          r"|ETHTOOL_GSET.*No such device|Broken pipe"
                          r"|reset by peer", w)]
    if m:
        hints.append("first warning: " + shorten(m[0], 160))
    # Left by xdp_upstream_check_alive (system-xdp-upstream-macros.at).
    if os.path.exists(os.path.join(test_dir, "vswitchd-died")):
        hints.append("ovs-vswitchd crashed")
    return hints


def parse_log(log_path, at_dirs, action_names):
    """Results of the run that wrote 'log_path': {num: {...}}."""
    results = {}
    try:
        with open(log_path, errors="replace") as f:
            lines = f.read().split("\n")
    except OSError:
        return results
    suite_dir = re.sub(r"\.log$", ".dir", log_path)

    for line in lines:
        m = RESULT_RE.match(line)
        if m:
            num = int(m.group(1))
            r = {"title": m.group(2), "loc": m.group(3)}
            if m.group(4) == "ok":
                r["result"] = "pass"
            elif m.group(4).startswith("skipped"):
                r["result"] = "skip"
                r["why"] = skip_reason(at_dirs, m.group(5))
            elif m.group(4) == "expected failure":
                r["result"] = "xfail"
            else:
                r["result"] = "FAIL"
            results[num] = r

    # Failed tests: their logs are in "Detailed failed tests", each ending
    # with its "N. file:line: N. title (file:line): FAILED (loc)" line.
    begin = None
    for i, line in enumerate(lines):
        if re.match(r"^\d+\. \S+\.at:\d+: testing ", line):
            begin = i
        m = FAILED_RE.match(line)
        if m:
            num = int(m.group(1))
            body = lines[begin:i] if begin is not None else []
            check, shown = first_failure(body, m.group(5))
            r = {"title": m.group(2), "loc": m.group(3),
                 "result": "FAIL" if m.group(4) == "FAILED" else "XPASS",
                 "check": check, "shown": shown}
            r["hints"] = vswitchd_hints(
                os.path.join(suite_dir, "%03d" % num), action_names)
            results[num] = r
            begin = None
    return results


def load_state(path):
    try:
        with open(path) as f:
            return {int(k): v for k, v in json.load(f).items()}
    except (OSError, ValueError):
        return {}


def save_state(path, state):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump({str(k): v for k, v in sorted(state.items())}, f,
                  indent=1, ensure_ascii=False)
    os.replace(path + ".tmp", path)


def load_capabilities(path):
    caps = {}
    try:
        with open(path) as f:
            for line in f:
                if not line.strip() or line.startswith("#"):
                    continue
                parts = line.rstrip("\n").split("\t")
                caps[parts[0]] = (parts[1] if len(parts) > 1 else "",
                                  parts[2] if len(parts) > 2 else "")
    except OSError:
        pass
    return caps


def md(s):
    return s.replace("|", "\\|").replace("\n", " ")


def write_table(out, xdp, us, caps, args):
    nums = sorted(set(xdp) | set(us))

    def count(state, res):
        return sum(1 for n in nums if n in state
                   and state[n]["result"] == res)

    gap = [n for n in nums if us.get(n, {}).get("result") == "pass"
           and xdp.get(n, {}).get("result") != "pass"]
    lines = []
    w = lines.append
    w("# Open vSwitch's system tests: xdp next to userspace")
    w("")
    w("Generated by `tests/upstream/results.py` (`make upstream-results`); "
      "do not edit by hand.  Capabilities come from "
      "`tests/upstream/capabilities.txt`.")
    w("")
    w("Each test of the OVS tree's `make check-system-userspace` suite "
      "(Open vSwitch %s, unmodified), run on this machine:" % args.ovs_version)
    w("")
    w("- **xdp**: `make check-system-upstream`, `datapath_type=xdp` with "
      "`ovs-vswitchd-xdp` (macros: "
      "`tests/upstream/system-xdp-upstream-macros.at`);")
    w("- **userspace**: `make -C <OVS tree> check-system-userspace`, "
      "OVS's own userspace datapath (`datapath_type=netdev`).")
    w("")
    w("Machine: %s.  Written on %s from ovs-xdp %s (the results of "
      "each test are those of its last run, kept in the state files)."
      % (args.machine, args.date, args.build))
    w("")
    w("| | pass | fail | skip | not run |")
    w("| --- | --- | --- | --- | --- |")
    for name, st in (("xdp", xdp), ("userspace", us)):
        w("| %s | %d | %d | %d | %d |" % (
            name, count(st, "pass"), count(st, "FAIL"), count(st, "skip"),
            sum(1 for n in nums if n not in st)))
    w("")
    w("**%d tests pass on userspace and not on xdp** (%d of them skipped on "
      "xdp, for a feature xdp lacks).  For each, the first failing check "
      "on xdp and the capability that would fix it:" % (
          len(gap), sum(1 for n in gap
                        if xdp.get(n, {}).get("result") == "skip")))
    w("")
    by_cap = {}
    for n in gap:
        x = xdp.get(n, {})
        if x.get("result") == "skip":
            cap = x.get("why", "")
        else:
            cap = caps.get(x.get("title", us[n]["title"]), ("", ""))[0] \
                or "unclassified"
        by_cap.setdefault(cap, []).append(n)
    w("| capability | tests |")
    w("| --- | --- |")
    for cap, ns in sorted(by_cap.items(), key=lambda kv: -len(kv[1])):
        w("| %s | %d: %s |" % (md(cap), len(ns),
                              ", ".join(str(n) for n in ns)))
    w("")
    w("## Tests that pass on userspace and not on xdp")
    w("")
    w("| # | test | xdp | first failing check on xdp, and what it shows "
      "| capability that would fix it |")
    w("| --- | --- | --- | --- | --- |")
    for n in gap:
        x = xdp.get(n, {})
        title = x.get("title") or us[n]["title"]
        if x.get("result") == "skip":
            w("| %d | %s | skip | skipped: %s | %s |" % (
                n, md(title), md(x.get("why", "")), md(x.get("why", ""))))
            continue
        cap, note = caps.get(title, ("", ""))
        detail = "%s: %s" % (x.get("check", ""), x.get("shown", ""))
        hints = x.get("hints") or []
        if hints:
            detail += " (vswitchd: %s)" % "; ".join(hints)
        w("| %d | %s | %s | %s | %s |" % (
            n, md(title), x.get("result", "not run"), md(detail),
            md(cap + (": " + note if note else "")) or "unclassified"))
    w("")
    w("## All tests")
    w("")
    w("| # | test | xdp | userspace | note |")
    w("| --- | --- | --- | --- | --- |")
    for n in nums:
        x, u = xdp.get(n, {}), us.get(n, {})
        title = x.get("title") or u.get("title")
        notes = []
        if x.get("result") == "skip":
            notes.append("xdp skip: " + x.get("why", ""))
        elif x.get("result") == "FAIL":
            cap = caps.get(title, ("", ""))[0]
            notes.append("xdp: " + (cap or "unclassified"))
        if u.get("result") == "skip":
            notes.append("userspace skip: " + u.get("why", ""))
        elif u.get("result") == "FAIL":
            notes.append("userspace fails: %s" % shorten(
                "%s: %s" % (u.get("check", ""), u.get("shown", "")), 140))
        w("| %d | %s | %s | %s | %s |" % (
            n, md(title), x.get("result", "not run"),
            u.get("result", "not run"), md("; ".join(notes))))
    w("")
    with open(out, "w") as f:
        f.write("\n".join(lines))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--xdp-builddir", default=os.getcwd(),
                   help="our build tree (default: the current directory)")
    p.add_argument("--ovs-builddir", default=None,
                   help="the OVS tree (default: OVS_BUILDDIR of atlocal)")
    p.add_argument("--state-dir", default=None,
                   help="where results are kept between runs "
                   "(default: XDP-BUILDDIR/tests/upstream-results.d)")
    p.add_argument("--output", default=os.path.join(
        HERE, "..", "upstream-results.md"))
    p.add_argument("--run-xdp", action="store_true",
                   help="run 'make check-system-upstream' first")
    p.add_argument("--run-userspace", action="store_true",
                   help="run the OVS tree's check-system-userspace first")
    p.add_argument("--forget", action="store_true",
                   help="drop the kept results first")
    p.add_argument("--machine", default=None)
    p.add_argument("flags", nargs="*",
                   help="TESTSUITEFLAGS for the runs (after --)")
    args = p.parse_args()

    bld = os.path.abspath(args.xdp_builddir)
    if not args.ovs_builddir:
        # Where configure puts it (m4/ovs-xdp.m4), unless atlocal says.
        args.ovs_builddir = os.path.join(bld, "ovs")
        try:
            with open(os.path.join(bld, "tests/atlocal")) as f:
                m = re.search(r"^OVS_BUILDDIR='(.*)'", f.read(), re.M)
                if m:
                    args.ovs_builddir = m.group(1)
        except OSError:
            pass
    ovs = args.ovs_builddir
    state_dir = args.state_dir or os.path.join(
        bld, "tests/upstream-results.d")
    args.ovs_version = "3.1.0"
    try:
        with open(os.path.join(ovs, "config.h")) as f:
            m = re.search(r'#define PACKAGE_VERSION "(.*)"', f.read())
            if m:
                args.ovs_version = m.group(1)
    except OSError:
        pass
    if not args.machine:
        args.machine = "%s, kernel %s, %d CPUs" % (
            "Debian " + open("/etc/debian_version").read().strip()
            if os.path.exists("/etc/debian_version") else "Linux",
            os.uname().release, os.cpu_count())

    args.date = time.strftime("%Y-%m-%d")
    try:
        src = os.path.join(HERE, "..", "..")
        args.build = subprocess.check_output(
            ["git", "-C", src, "describe", "--always", "--dirty"],
            stderr=subprocess.DEVNULL, text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        args.build = "(not a git checkout)"

    flags = " ".join(args.flags)
    if args.run_xdp:
        subprocess.call(["make", "-C", bld, "check-system-upstream",
                         "TESTSUITEFLAGS=" + flags])
    if args.run_userspace:
        subprocess.call(["make", "-C", ovs, "check-system-userspace",
                         "TESTSUITEFLAGS=" + flags])

    action_names = read_action_names(ovs)
    xdp_at = [os.path.join(HERE, ".."), os.path.join(ovs, "tests"), HERE,
              os.path.join(HERE, "..", "..")]
    us_at = [os.path.join(ovs, "tests"), ovs]
    xdp_path = os.path.join(state_dir, "xdp.json")
    us_path = os.path.join(state_dir, "userspace.json")
    xdp = {} if args.forget else load_state(xdp_path)
    us = {} if args.forget else load_state(us_path)
    xdp.update(parse_log(os.path.join(
        bld, "tests/system-xdp-upstream-testsuite.log"), xdp_at,
        action_names))
    us.update(parse_log(os.path.join(
        ovs, "tests/system-userspace-testsuite.log"), us_at, action_names))
    save_state(xdp_path, xdp)
    save_state(us_path, us)

    caps = load_capabilities(os.path.join(HERE, "capabilities.txt"))
    write_table(args.output, xdp, us, caps, args)
    gap = [n for n in us if us[n]["result"] == "pass"
           and xdp.get(n, {}).get("result") != "pass"]
    print("%s: xdp %d pass, %d fail, %d skip; userspace %d pass, %d fail, "
          "%d skip; %d pass on userspace and not on xdp" % (
              args.output,
              *(sum(1 for r in st.values() if r["result"] == res)
                for st in (xdp,) for res in ("pass", "FAIL", "skip")),
              *(sum(1 for r in st.values() if r["result"] == res)
                for st in (us,) for res in ("pass", "FAIL", "skip")),
              len(gap)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
