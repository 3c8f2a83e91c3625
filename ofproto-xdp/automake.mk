# The userspace half inside ovs-vswitchd: the dpif provider and, linked
# with Open vSwitch's own vswitchd objects, ovs-vswitchd-xdp.

noinst_LTLIBRARIES += ofproto-xdp/libovsxdp.la
ofproto_xdp_libovsxdp_la_SOURCES = \
	ofproto-xdp/dpif-xdp.c \
	ofproto-xdp/dpif-xdp.h \
	ofproto-xdp/dpif-xdp-compile.c \
	ofproto-xdp/dpif-xdp-ct.c \
	ofproto-xdp/dpif-xdp-ctcache.c \
	ofproto-xdp/dpif-xdp-flow.c \
	ofproto-xdp/dpif-xdp-flow-restore.c \
	ofproto-xdp/dpif-xdp-gso.c \
	ofproto-xdp/dpif-xdp-meter.c \
	ofproto-xdp/dpif-xdp-miss.c \
	ofproto-xdp/dpif-xdp-peer.c \
	ofproto-xdp/dpif-xdp-rings.c \
	ofproto-xdp/dpif-xdp-tx.c \
	ofproto-xdp/dpif-xdp-police.c \
	ofproto-xdp/dpif-xdp-port.c \
	ofproto-xdp/dpif-xdp-private.h \
	ofproto-xdp/dpif-xdp-stats.c \
	ofproto-xdp/dpif-xdp-subtable.c \
	ofproto-xdp/dpif-xdp-tnl.c \
	ofproto-xdp/dpif-xdp-uflow.c \
	ofproto-xdp/dpif-xdp-upcall.c \
	ofproto-xdp/internal-port.c \
	ofproto-xdp/internal-port.h \
	ofproto-xdp/slot-pool.c \
	ofproto-xdp/slot-pool.h \
	ofproto-xdp/xdp-actions.c \
	ofproto-xdp/xdp-actions-format.c \
	ofproto-xdp/xdp-actions-private.h \
	ofproto-xdp/xdp-actions-set.c \
	ofproto-xdp/xdp-actions.h \
	ofproto-xdp/xdp-compile.c \
	ofproto-xdp/xdp-compile.h \
	ofproto-xdp/xdp-flow.c \
	ofproto-xdp/xdp-flow.h

dist_man_MANS += ofproto-xdp/ovs-vswitchd-xdp.8

sbin_PROGRAMS += ofproto-xdp/ovs-vswitchd-xdp
ofproto_xdp_ovs_vswitchd_xdp_SOURCES = ofproto-xdp/ovs-vswitchd-xdp.c
# Ingress policing, native tunneling, the Interface's error column on xdp
# bridges (for ports added and ports refused), the transmit counters of
# ports in peer mode and the capabilities kept by --user: see
# ovs-vswitchd-xdp.c.
ofproto_xdp_ovs_vswitchd_xdp_LDFLAGS = \
	-Wl,--wrap=netdev_set_policing \
	-Wl,--wrap=dpif_supports_tnl_push_pop \
	-Wl,--wrap=ofproto_vport_get_status \
	-Wl,--wrap=ovsrec_interface_set_error \
	-Wl,--wrap=netdev_get_stats \
	-Wl,--wrap=capng_change_id
ofproto_xdp_ovs_vswitchd_xdp_LDADD = \
	ofproto-xdp/libovsxdp.la \
	$(OVS_VSWITCHD_OBJS) \
	$(OVS_LIBS) \
	$(LIBS)
