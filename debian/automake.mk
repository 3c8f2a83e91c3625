# Debian packaging: debian/ builds the binary package openvswitch-switch-xdp
# (dpkg-buildpackage -us -uc -b on Debian 12), and with the build profile
# pkg.ovs-xdp.dpdk also openvswitch-switch-xdp-dpdk, its DPDK variant
# (DEB_BUILD_PROFILES=pkg.ovs-xdp.dpdk make deb).
#
#   make deb        builds it from a clean copy of the committed HEAD (plus
#                   any uncommitted change under debian/) in a scratch
#                   directory, runs lintian, and leaves the .deb files in
#                   the build directory.  DEB_TEST_FLAGS adds options of
#                   utilities/deb-test.sh (e.g. --head-only, --nocheck).
#   make deb-test   the same build, then installs the package and tests it
#                   against the system's Open vSwitch (root; see
#                   utilities/deb-test.sh: it refuses to run while Open
#                   vSwitch runs).

EXTRA_DIST += \
	debian/automake.mk \
	debian/changelog \
	debian/control \
	debian/copyright \
	debian/openvswitch-switch-xdp.README.Debian \
	debian/openvswitch-switch-xdp.docs \
	debian/openvswitch-switch-xdp.install \
	debian/openvswitch-switch-xdp.postinst \
	debian/openvswitch-switch-xdp.postrm \
	debian/openvswitch-switch-xdp.prerm \
	debian/openvswitch-switch-xdp-dpdk.README.Debian \
	debian/openvswitch-switch-xdp-dpdk.links \
	debian/openvswitch-switch-xdp-dpdk.postinst \
	debian/openvswitch-switch-xdp-dpdk.prerm \
	debian/ovs-vswitchd-bpffs.conf \
	debian/ovs-vswitchd-xdp.wrapper \
	debian/rules \
	debian/source/format \
	utilities/deb-test.sh

DEB_TEST = bash $(top_srcdir)/utilities/deb-test.sh

.PHONY: deb deb-test
deb:
	$(DEB_TEST) --build-only --outdir '$(abs_builddir)' $(DEB_TEST_FLAGS)

deb-test:
	$(DEB_TEST) $(DEB_TEST_FLAGS)
