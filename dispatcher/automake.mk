# Attaching, replacing and detaching the datapath program on ports.
ofproto_xdp_libovsxdp_la_SOURCES += \
	dispatcher/xdp-attach.c \
	dispatcher/xdp-attach.h \
	dispatcher/xdp-auto-mode.c
ofproto_xdp_libovsxdp_la_SOURCES += \
	dispatcher/xdp-dispatcher.c \
	dispatcher/xdp-dispatcher.h
