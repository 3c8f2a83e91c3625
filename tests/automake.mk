# Test suites.
#
#   make check          tests/testsuite: needs no root.
#   make check-system   tests/system-testsuite: network namespaces, veth,
#                       bpffs and XDP; skips (77) without root.  Its DPDK
#                       test runs only in a build configured --with-dpdk.
#
# In a build configured with --enable-asan both run under AddressSanitizer,
# and a report of any kind, leaks included, fails the test that caused it
# (tests/atlocal.in).
#
# Both are autotest suites on Open vSwitch's own harness: the macros files
# of the OVS tree are on the include path after ours.

EXTRA_DIST += \
	tests/testsuite.at \
	tests/system-testsuite.at \
	tests/lsan.supp \
	$(TESTSUITE_AT) \
	$(SYSTEM_TESTSUITE_AT)
DISTCLEANFILES += tests/atconfig tests/atlocal

TESTSUITE_AT = \
	tests/xdp-macros.at \
	tests/dpif-xdp.at \
	tests/xdp-flow.at

SYSTEM_TESTSUITE_AT = \
	tests/xdp-macros.at \
	tests/system-xdp-macros.at \
	tests/system-bpf.at \
	tests/system-bench.at \
	tests/system-bench-forward.at \
	tests/system-bench-dispatch.at \
	tests/system-bench-fastpath.at \
	tests/system-bench-tcp.at \
	tests/system-bench-storm.at \
	tests/system-parse.at \
	tests/system-dpif-xdp.at \
	tests/system-traffic-macros.at \
	tests/system-traffic-xdp.at \
	tests/system-traffic-tcp.at \
	tests/system-compile.at \
	tests/system-recirc.at \
	tests/system-conntrack.at \
	tests/system-ctcache.at \
	tests/system-police.at \
	tests/system-actions.at \
	tests/system-faults.at \
	tests/system-user.at \
	tests/system-meter.at \
	tests/system-sample.at \
	tests/system-tunnel.at \
	tests/system-ovn.at \
	tests/system-fuzz.at \
	tests/system-dpdk.at

TESTSUITE = tests/testsuite
SYSTEM_TESTSUITE = tests/system-testsuite
CLEANFILES += $(TESTSUITE) $(SYSTEM_TESTSUITE) tests/package.m4

AUTOM4TE = autom4te
AUTOTEST = $(AUTOM4TE) -l autotest

# Our programs first ('ovs-vswitchd' in tests/bin is ovs-vswitchd-xdp, so
# that OVS's macros start ours), then the OVS tree's own tools.
AUTOTEST_PATH = $(abs_top_builddir)/tests/bin:$(abs_top_builddir)/tests:$(abs_top_builddir)/ofproto-xdp:$(abs_top_builddir)/utilities:$(OVS_BUILDDIR)/utilities:$(OVS_BUILDDIR)/ovsdb:$(OVS_BUILDDIR)/tests

tests/package.m4: $(top_srcdir)/configure.ac
	$(AM_V_GEN):;{ \
	  echo '# Signature of the current package.' && \
	  echo 'm4_define([AT_PACKAGE_NAME],      [$(PACKAGE_NAME)])' && \
	  echo 'm4_define([AT_PACKAGE_TARNAME],   [$(PACKAGE_TARNAME)])' && \
	  echo 'm4_define([AT_PACKAGE_VERSION],   [$(PACKAGE_VERSION)])' && \
	  echo 'm4_define([AT_PACKAGE_STRING],    [$(PACKAGE_STRING)])' && \
	  echo 'm4_define([AT_PACKAGE_BUGREPORT], [$(PACKAGE_BUGREPORT)])'; \
	} >'$@'

$(TESTSUITE): tests/package.m4 $(srcdir)/tests/testsuite.at $(TESTSUITE_AT)
	$(AM_V_GEN)$(AUTOTEST) -I tests -I '$(srcdir)' -I '$(OVS_SRCDIR)' \
		-o $@.tmp $(srcdir)/tests/testsuite.at && mv $@.tmp $@

$(SYSTEM_TESTSUITE): tests/package.m4 $(srcdir)/tests/system-testsuite.at $(SYSTEM_TESTSUITE_AT)
	$(AM_V_GEN)$(AUTOTEST) -I tests -I '$(srcdir)' -I '$(OVS_SRCDIR)' \
		-o $@.tmp $(srcdir)/tests/system-testsuite.at && mv $@.tmp $@

tests/bin/ovs-vswitchd: ofproto-xdp/ovs-vswitchd-xdp$(EXEEXT)
	@$(MKDIR_P) tests/bin
	$(AM_V_GEN)ln -sf ../../ofproto-xdp/ovs-vswitchd-xdp$(EXEEXT) $@
CLEANFILES += tests/bin/ovs-vswitchd

TESTS_DEPS = $(TESTSUITE) $(SYSTEM_TESTSUITE) tests/bin/ovs-vswitchd \
	tests/atconfig tests/atlocal $(check_PROGRAMS)
all-local: tests/bin/ovs-vswitchd

check-local: $(TESTS_DEPS)
	$(SHELL) '$(TESTSUITE)' -C tests AUTOTEST_PATH='$(AUTOTEST_PATH)' \
		$(TESTSUITEFLAGS)

.PHONY: check-system
check-system: all $(TESTS_DEPS)
	$(SHELL) '$(SYSTEM_TESTSUITE)' -C tests AUTOTEST_PATH='$(AUTOTEST_PATH)' \
		$(TESTSUITEFLAGS) -j1

clean-local:
	test ! -f '$(TESTSUITE)' || $(SHELL) '$(TESTSUITE)' -C tests --clean
	test ! -f '$(SYSTEM_TESTSUITE)' || $(SHELL) '$(SYSTEM_TESTSUITE)' -C tests --clean

# C test programs, run from the .at files.
check_PROGRAMS = tests/test-xdp-load tests/test-xdp-parse tests/test-xdp-flow \
	tests/test-xdp-batch tests/test-xdp-dump tests/test-xdp-packet \
	tests/test-xdp-compile tests/test-slot-pool tests/test-map-batch \
	tests/test-xdp-meter
tests_test_map_batch_SOURCES = tests/test-map-batch.c
tests_test_map_batch_LDADD = ofproto-xdp/libovsxdp.la $(OVS_LIBS) $(LIBS)
tests_test_slot_pool_SOURCES = tests/test-slot-pool.c
tests_test_slot_pool_LDADD = ofproto-xdp/libovsxdp.la $(OVS_LIBS) $(LIBS)
tests_test_xdp_load_SOURCES = tests/test-xdp-load.c
tests_test_xdp_meter_SOURCES = tests/test-xdp-meter.c
tests_test_xdp_meter_LDADD = ofproto-xdp/libovsxdp.la $(OVS_LIBS) $(LIBS)
tests_test_xdp_load_LDADD = ofproto-xdp/libovsxdp.la $(OVS_LIBS) $(LIBS)
tests_test_xdp_parse_SOURCES = tests/test-xdp-parse.c
tests_test_xdp_parse_LDADD = ofproto-xdp/libovsxdp.la $(OVS_LIBS) $(LIBS)
tests_test_xdp_batch_SOURCES = tests/test-xdp-batch.c
tests_test_xdp_batch_LDADD = ofproto-xdp/libovsxdp.la $(OVS_LIBS) $(LIBS)
tests_test_xdp_dump_SOURCES = tests/test-xdp-dump.c
tests_test_xdp_dump_LDADD = ofproto-xdp/libovsxdp.la $(OVS_LIBS) $(LIBS)
tests_test_xdp_packet_SOURCES = tests/test-xdp-packet.c \
	tests/test-xdp-packet-rows.c tests/test-xdp-packet-modes.c \
	tests/test-xdp-packet-recirc.c \
	tests/test-xdp-packet.h
tests_test_xdp_packet_LDADD = ofproto-xdp/libovsxdp.la $(OVS_LIBS) $(LIBS)
tests_test_xdp_compile_SOURCES = tests/test-xdp-compile.c \
	tests/test-xdp-compile-frames.c tests/test-xdp-compile.h
tests_test_xdp_compile_LDADD = ofproto-xdp/libovsxdp.la $(OVS_LIBS) $(LIBS)
tests_test_xdp_flow_SOURCES = tests/test-xdp-flow.c
tests_test_xdp_flow_LDADD = ofproto-xdp/libovsxdp.la $(OVS_LIBS) $(LIBS)
