# Command-line tools: the quick start and the benchmarks.
EXTRA_DIST += utilities/quickstart.sh

dist_man_MANS += utilities/ovs-xdp-bench.8

bin_PROGRAMS += utilities/ovs-xdp-bench
utilities_ovs_xdp_bench_SOURCES = \
	utilities/ovs-xdp-bench.c \
	utilities/ovs-xdp-bench.h \
	utilities/bench-common.c \
	utilities/bench-common.h \
	utilities/bench-dispatch.c \
	utilities/bench-fastpath.c \
	utilities/bench-tcp.c \
	utilities/bench-forward.c \
	utilities/bench-forward.h \
	utilities/bench-forward-ct.c \
	utilities/bench-forward-cpus.c \
	utilities/bench-forward-monitor.c \
	utilities/bench-forward-measure.c \
	utilities/bench-forward-mflow.c \
	utilities/bench-forward-options.c \
	utilities/bench-forward-report.c \
	utilities/bench-forward-switch.c \
	utilities/bench-forward-tnl.c \
	utilities/bench-fuzz.c \
	utilities/bench-generator.c \
	utilities/bench-generator.h \
	utilities/bench-latency.c \
	utilities/bench-nft.c \
	utilities/bench-stats.c \
	utilities/bench-storm.c \
	utilities/bench-storm.h \
	utilities/bench-storm-report.c \
	utilities/bench-storm-traffic.c
utilities_ovs_xdp_bench_LDADD = ofproto-xdp/libovsxdp.la $(OVS_LIBS) $(LIBS)

# The fuzzer that 'ovs-xdp-bench fuzz' runs in its sandbox.
bin_SCRIPTS += utilities/ovs-xdp-fuzz
EXTRA_DIST += utilities/ovs-xdp-fuzz.in
CLEANFILES += utilities/ovs-xdp-fuzz
utilities/ovs-xdp-fuzz: utilities/ovs-xdp-fuzz.in
	$(AM_V_GEN)$(MKDIR_P) utilities && cp $(srcdir)/utilities/ovs-xdp-fuzz.in $@.tmp \
		&& chmod +x $@.tmp && mv $@.tmp $@
