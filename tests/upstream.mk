# Tests of the OVS tree run against datapath_type=xdp (being written).
