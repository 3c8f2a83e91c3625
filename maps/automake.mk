# Map lifecycle and pinning, mmapped statistics, batched map operations.
ofproto_xdp_libovsxdp_la_SOURCES += \
	maps/flow-stats.c \
	maps/flow-stats.h
ofproto_xdp_libovsxdp_la_SOURCES += \
	maps/map-batch.c \
	maps/map-batch.h
ofproto_xdp_libovsxdp_la_SOURCES += \
	maps/map-info.c \
	maps/map-info.h
ofproto_xdp_libovsxdp_la_SOURCES += \
	maps/pin.c \
	maps/pin.h
