# The in-kernel half: XDP programs in restricted C.  One pattern rule
# compiles each datapath/NAME.bpf.c into NAME.bpf.o and one more turns that
# into NAME.skel.h, the skeleton through which userspace embeds, loads and
# reaches the program's maps.

BPF_CFLAGS = -O2 -g -target bpf -Wall -Wno-unused-function \
	-I$(srcdir)/datapath $(BPF_CPPFLAGS)

datapath_bpf_headers = \
	datapath/xdp-dp.h \
	datapath/xdp-dp-classify.h \
	datapath/xdp-dp-execute.h \
	datapath/xdp-dp-ct.h \
	datapath/xdp-dp-maps.h \
	datapath/xdp-dp-parse.h \
	datapath/xdp-dp-pass.h \
	datapath/xdp-dp-police.h \
	datapath/xdp-dp-meter.h \
	datapath/xdp-dp-rewrite.h \
	datapath/xdp-dp-skb.h \
	datapath/xdp-dp-tc.h \
	datapath/xdp-dp-tnl.h

datapath_bpf_sources = \
	datapath/xdp-dp.bpf.c \
	datapath/tc-dp.bpf.c \
	datapath/xdp-parse-test.bpf.c \
	datapath/tc-parse-test.bpf.c \
	datapath/bench-gen.bpf.c \
	datapath/bench-redirect.bpf.c \
	datapath/bench-sink.bpf.c \
	datapath/bench-tc-parse.bpf.c \
	datapath/bench-trivial.bpf.c

EXTRA_DIST += $(datapath_bpf_sources) $(datapath_bpf_headers)

datapath_skeletons = $(datapath_bpf_sources:.bpf.c=.skel.h)
BUILT_SOURCES += $(datapath_skeletons)
CLEANFILES += $(datapath_skeletons) $(datapath_bpf_sources:.bpf.c=.bpf.o)

%.bpf.o: %.bpf.c $(datapath_bpf_headers)
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# The TC build of the parser's test harness includes the XDP one.
datapath/tc-parse-test.bpf.o: datapath/xdp-parse-test.bpf.c

%.skel.h: %.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton $< name $(subst -,_,$(notdir $*)) \
		> $@.tmp && mv $@.tmp $@

# The objects are kept: tests load them directly (bpftool, test programs).
datapath_bpf_objects = $(datapath_bpf_sources:.bpf.c=.bpf.o)
.SECONDARY: $(datapath_bpf_objects)
noinst_DATA = $(datapath_bpf_objects)
