/* Placeholder while the 'forward' mode is written. */
#include <config.h>
#include "utilities/ovs-xdp-bench.h"
#include "util.h"

int
bench_forward_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    ovs_fatal(0, "the forward mode is not written yet");
}
