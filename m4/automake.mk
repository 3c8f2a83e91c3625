EXTRA_DIST += m4/ovs-xdp.m4
