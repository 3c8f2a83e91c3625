# Open vSwitch's own system tests on the xdp datapath.
#
#   make check-system-upstream      the OVS tree's system-traffic.at and the
#                                   rest of its 'make check-system-userspace'
#                                   suite, unmodified, on datapath_type=xdp
#                                   with ovs-vswitchd-xdp (root; about 20
#                                   minutes, most of them conntrack tests;
#                                   tunnel tests skip).
#   make check-system-upstream-ci   a fixed subset of quick tests that pass
#                                   on xdp (a few minutes), for CI.
#   make upstream-results           tests/upstream-results.md: each test's
#                                   result on xdp next to OVS's userspace
#                                   datapath (runs both suites; see
#                                   tests/upstream/results.py).
#
# TESTSUITEFLAGS passes through (test numbers, -k keyword, -v, -d, ...).
# The tests use fixed names (br0, at_ns0, p0, ovs-p0, ...), as upstream
# does, so they run one at a time: -j1 comes first, and a -jN in
# TESTSUITEFLAGS overrides it at your own risk.  RECHECK=yes reruns the
# failed tests once, as in the OVS tree.
#
# The suite is built from tests/upstream/system-xdp-upstream-testsuite.at,
# which includes the OVS tree's files by path: autotest looks in our tree
# first, then in $(OVS_SRCDIR).  tests/upstream/system-xdp-upstream-macros.at
# adapts them to datapath_type=xdp.

UPSTREAM_TESTSUITE_AT = \
	tests/upstream/system-xdp-upstream-testsuite.at \
	tests/upstream/system-xdp-upstream-macros.at \
	tests/xdp-macros.at
EXTRA_DIST += $(UPSTREAM_TESTSUITE_AT) tests/upstream/results.py \
	tests/upstream/capabilities.txt tests/upstream-results.md

# The OVS tree's files that the suite includes (for rebuilds only).
UPSTREAM_OVS_AT = \
	$(OVS_SRCDIR)/tests/ovs-macros.at \
	$(OVS_SRCDIR)/tests/ovsdb-macros.at \
	$(OVS_SRCDIR)/tests/ofproto-macros.at \
	$(OVS_SRCDIR)/tests/system-common-macros.at \
	$(OVS_SRCDIR)/tests/system-traffic.at \
	$(OVS_SRCDIR)/tests/system-layer3-tunnels.at \
	$(OVS_SRCDIR)/tests/system-interface.at \
	$(OVS_SRCDIR)/tests/system-userspace-packet-type-aware.at \
	$(OVS_SRCDIR)/tests/system-route.at

UPSTREAM_TESTSUITE = tests/upstream/system-xdp-upstream-testsuite
CLEANFILES += $(UPSTREAM_TESTSUITE)

$(UPSTREAM_TESTSUITE): tests/package.m4 $(addprefix $(srcdir)/,$(UPSTREAM_TESTSUITE_AT)) $(UPSTREAM_OVS_AT)
	@$(MKDIR_P) tests/upstream
	$(AM_V_GEN)$(AUTOTEST) -I tests -I '$(srcdir)' -I '$(OVS_SRCDIR)' \
		-o $@.tmp $(srcdir)/tests/upstream/system-xdp-upstream-testsuite.at \
		&& mv $@.tmp $@

UPSTREAM_TESTS_DEPS = $(UPSTREAM_TESTSUITE) tests/bin/ovs-vswitchd \
	tests/atconfig tests/atlocal

# The CI subset (check-system-upstream-ci): tests that pass on xdp, take a
# few seconds each and need no tool beyond the build's (no tcpdump, nc or
# kernel module that a machine may lack), from tests/upstream-results.md:
#     1  datapath - ping between two ports
#     2  datapath - http between two ports
#     5  datapath - ping6 between two ports
#     8  datapath - ping6 between two ports IPv6 later fragments
#    11  datapath - ping over vxlan tunnel
#    13  datapath - ping over vxlan6 tunnel
#    30  datapath - clone action (slow path, packet-ins)
#    50  QoS - basic configuration
#    51  conntrack - controller
#    53  conntrack - ct flush
#    54  conntrack - IPv4 ping
#    55  conntrack - get_nconns and get/set_maxconns
#    57  conntrack - preserve registers
#    59  conntrack - zones
#    73  conntrack - generic IP protocol
#    75  conntrack - ICMP related to original direction
#   108  conntrack - limit by zone
#   115  conntrack - simple SNAT
#   122  conntrack - simple DNAT
#   162  layer3 - ping over VXLAN-GPE
#   164  layer3 - use non-local port as tunnel endpoint
#   167  interface - add delete add same interface
#   168  interface - add route to br and verify clean-up
#   170  ovs-route - add/remove system route
# Left out: 9, "datapath - ping6 between two ports with header modify",
# races in OVS itself: its first ping leaves right after ovs-ofctl
# add-flows, while the megaflow that the earlier pings installed (NORMAL,
# IPv6 addresses wildcarded) still matches and sends it on unrewritten,
# until the revalidators replace it.  OVS's own userspace datapath fails it
# the same way here (4 pings sent, 3 answered): 2 runs in 30, against 5
# in 30 on xdp (2026-12-05).
# By number: the numbers are those of the OVS tree's own
# system-userspace-testsuite (same files, same order), stable for a given
# OVS release (3.1.0 here); check them again when the OVS tree changes.
# (One line: utilities/quickstart.sh counts its words.)
UPSTREAM_CI_TESTS = 1 2 5 8 11 13 30 50 51 53 54 55 57 59 73 75 108 115 122 162 164 167 168 170

UPSTREAM_RUN = $(SHELL) '$(UPSTREAM_TESTSUITE)' -C tests \
	AUTOTEST_PATH='$(AUTOTEST_PATH)' -j1

.PHONY: check-system-upstream check-system-upstream-ci upstream-results
check-system-upstream: all $(UPSTREAM_TESTS_DEPS)
	set $(UPSTREAM_RUN) $(TESTSUITEFLAGS); \
	"$$@" || (test X'$(RECHECK)' = Xyes && "$$@" --recheck)

check-system-upstream-ci: all $(UPSTREAM_TESTS_DEPS)
	$(UPSTREAM_RUN) $(UPSTREAM_CI_TESTS) $(TESTSUITEFLAGS)

# Runs both suites (xdp here, userspace in the OVS tree; TESTSUITEFLAGS
# for both) and writes tests/upstream-results.md in the source tree.
# Results are kept in tests/upstream-results.d/ between runs, so chunks of
# the suites may be run at different times; UPSTREAM_RESULTS_FLAGS passes
# the script's options (see 'tests/upstream/results.py --help'): by default
# --run-xdp --run-userspace; set it to empty to only read the suites' last
# logs, add --forget to drop the kept results first.
UPSTREAM_RESULTS_FLAGS = --run-xdp --run-userspace
upstream-results: all $(UPSTREAM_TESTS_DEPS)
	$(PYTHON3) $(srcdir)/tests/upstream/results.py \
		--xdp-builddir . --ovs-builddir '$(OVS_BUILDDIR)' \
		--output $(srcdir)/tests/upstream-results.md \
		$(UPSTREAM_RESULTS_FLAGS) \
		-- $(TESTSUITEFLAGS)

# 'make clean' in tests/automake.mk runs --clean of its own suites only.
clean-local: clean-upstream
.PHONY: clean-upstream
clean-upstream:
	test ! -f '$(UPSTREAM_TESTSUITE)' || \
		$(SHELL) '$(UPSTREAM_TESTSUITE)' -C tests --clean
	rm -rf tests/upstream-results.d
