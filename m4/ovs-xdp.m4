# -*- autoconf -*-
# Checks for ovs-xdp: the libraries and tools it needs, and the Open vSwitch
# source tree it is built against.  Each missing piece is reported with the
# Debian package that provides it.

dnl OVS_XDP_MISSING(WHAT, DEBIAN-PACKAGE)
AC_DEFUN([OVS_XDP_MISSING],
  [AC_MSG_ERROR([$1 not found; on Debian, install it with: apt-get install $2])])

dnl OVS_XDP_CHECK_LIBS
dnl
dnl libbpf (skeletons, links, batched map operations), libxdp (AF_XDP
dnl sockets) and libcap-ng (OVS drops privileges with it).
AC_DEFUN([OVS_XDP_CHECK_LIBS], [
  AC_CHECK_HEADER([bpf/libbpf.h], [], [OVS_XDP_MISSING([libbpf headers], [libbpf-dev])])
  AC_CHECK_LIB([bpf], [bpf_object__open_skeleton], [], [OVS_XDP_MISSING([libbpf], [libbpf-dev])])
  dnl Every libbpf call the datapath relies on; libbpf 1.1 has them all.
  AC_CHECK_FUNCS([bpf_link_create bpf_link_update bpf_link_detach \
                  bpf_map_update_batch bpf_map_lookup_batch \
                  bpf_map_delete_batch bpf_prog_test_run_opts \
                  bpf_xdp_query bpf_obj_get_info_by_fd libbpf_set_print],
    [], [AC_MSG_ERROR([libbpf lacks $ac_func; install libbpf-dev 1.1 or later])])
  AC_CHECK_HEADER([xdp/libxdp.h], [], [OVS_XDP_MISSING([libxdp headers], [libxdp-dev])])
  AC_CHECK_LIB([xdp], [xdp_program__open_file], [], [OVS_XDP_MISSING([libxdp], [libxdp-dev])])
  AC_CHECK_HEADER([cap-ng.h], [], [OVS_XDP_MISSING([libcap-ng headers], [libcap-ng-dev])])
  AC_CHECK_LIB([cap-ng], [capng_clear], [], [OVS_XDP_MISSING([libcap-ng], [libcap-ng-dev])])
])

dnl OVS_XDP_CHECK_BPF_TOOLCHAIN
dnl
dnl clang with the BPF target compiles datapath/*.bpf.c; bpftool turns the
dnl objects into skeleton headers.
AC_DEFUN([OVS_XDP_CHECK_BPF_TOOLCHAIN], [
  AC_ARG_VAR([CLANG], [clang used to compile the XDP programs])
  AC_ARG_VAR([BPFTOOL], [bpftool used to generate BPF skeletons])
  AC_PATH_PROGS([CLANG], [clang clang-14], [], [$PATH:/usr/lib/llvm-14/bin])
  test -n "$CLANG" || OVS_XDP_MISSING([clang], [clang llvm])
  AC_PATH_PROG([BPFTOOL], [bpftool], [], [$PATH:/usr/sbin:/sbin])
  test -n "$BPFTOOL" || OVS_XDP_MISSING([bpftool], [bpftool])

  multiarch=`$CC -print-multiarch 2>/dev/null`
  BPF_CPPFLAGS=
  if test -n "$multiarch" && test -d "/usr/include/$multiarch"; then
    BPF_CPPFLAGS="-I/usr/include/$multiarch"
  fi
  AC_SUBST([BPF_CPPFLAGS])

  AC_CACHE_CHECK([whether $CLANG compiles for the BPF target],
    [ovs_xdp_cv_clang_bpf], [
    cat > conftest.bpf.c <<_ACEOF
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp") int conftest(struct xdp_md *ctx) { return XDP_PASS; }
char LICENSE[[]] SEC("license") = "GPL";
_ACEOF
    if $CLANG -O2 -g -target bpf $BPF_CPPFLAGS -c conftest.bpf.c \
         -o conftest.bpf.o >&AS_MESSAGE_LOG_FD 2>&1; then
      ovs_xdp_cv_clang_bpf=yes
    else
      ovs_xdp_cv_clang_bpf=no
    fi])
  if test "$ovs_xdp_cv_clang_bpf" != yes; then
    AC_MSG_ERROR([$CLANG cannot compile for the BPF target (see config.log); on Debian: apt-get install clang llvm libbpf-dev])
  fi

  AC_CACHE_CHECK([whether $BPFTOOL generates skeletons],
    [ovs_xdp_cv_bpftool_skel], [
    if $BPFTOOL gen skeleton conftest.bpf.o name conftest > conftest.skel.h \
         2>&AS_MESSAGE_LOG_FD; then
      ovs_xdp_cv_bpftool_skel=yes
    else
      ovs_xdp_cv_bpftool_skel=no
    fi])
  rm -f conftest.bpf.c conftest.bpf.o conftest.skel.h
  if test "$ovs_xdp_cv_bpftool_skel" != yes; then
    AC_MSG_ERROR([$BPFTOOL cannot generate BPF skeletons; on Debian: apt-get install bpftool])
  fi
])

dnl OVS_XDP_CHECK_OVS_SOURCE
dnl
dnl Finds the Open vSwitch tree to build against and prepares it:
dnl
dnl   - --with-ovs-source=DIR: DIR is an OVS source tree.  If it is already
dnl     configured in place, it is built (and used) in place; otherwise it is
dnl     configured in ovs-build/ inside our build tree.
dnl   - otherwise the tarball of Debian's openvswitch-source package
dnl     (--with-ovs-tarball=FILE to name another) is unpacked into ovs/ in
dnl     our build tree and configured there.
dnl
dnl OVS is configured with Debian's paths (/etc, /var/run/openvswitch,
dnl /usr/share/openvswitch) so that ovs-vswitchd-xdp finds the same database
dnl and sockets as Debian's stock daemons, and with DPDK if
dnl OVS_XDP_CHECK_DPDK asked for it.  OVS_CONFIGURE_FLAGS adds to that.
AC_DEFUN([OVS_XDP_CHECK_OVS_SOURCE], [
  AC_ARG_WITH([ovs-source],
    [AS_HELP_STRING([--with-ovs-source=DIR],
                    [build against the Open vSwitch source tree in DIR])],
    [], [with_ovs_source=no])
  AC_ARG_WITH([ovs-tarball],
    [AS_HELP_STRING([--with-ovs-tarball=FILE],
                    [Open vSwitch tarball to unpack when --with-ovs-source is not given
                     @<:@/usr/src/openvswitch/openvswitch.tar.gz@:>@])],
    [], [with_ovs_tarball=/usr/src/openvswitch/openvswitch.tar.gz])
  AC_ARG_VAR([OVS_CONFIGURE_FLAGS], [extra flags for Open vSwitch's configure])

  case $with_ovs_source in
  no|'')
    AC_MSG_CHECKING([for the Open vSwitch tarball])
    if test ! -f "$with_ovs_tarball"; then
      AC_MSG_RESULT([no])
      OVS_XDP_MISSING([$with_ovs_tarball], [openvswitch-source])
    fi
    AC_MSG_RESULT([$with_ovs_tarball])
    OVS_SRCDIR=$ac_pwd/ovs
    OVS_BUILDDIR=$OVS_SRCDIR
    stamp=`ls -l --time-style=+%s "$with_ovs_tarball" | awk '{print $5 "-" $6}'`
    if test ! -f "$OVS_SRCDIR/.ovs-xdp-unpacked" || \
       test "`cat $OVS_SRCDIR/.ovs-xdp-unpacked`" != "$with_ovs_tarball $stamp"; then
      AC_MSG_NOTICE([unpacking $with_ovs_tarball into $OVS_SRCDIR])
      rm -rf "$OVS_SRCDIR" && $MKDIR_P "$OVS_SRCDIR" && \
        tar -xzf "$with_ovs_tarball" -C "$OVS_SRCDIR" --strip-components=1 || \
        AC_MSG_ERROR([cannot unpack $with_ovs_tarball])
      echo "$with_ovs_tarball $stamp" > "$OVS_SRCDIR/.ovs-xdp-unpacked"
    fi
    ;;
  *)
    OVS_SRCDIR=`cd "$with_ovs_source" 2>/dev/null && pwd` || \
      AC_MSG_ERROR([--with-ovs-source=$with_ovs_source: no such directory])
    if test -f "$OVS_SRCDIR/config.h" && test -f "$OVS_SRCDIR/Makefile"; then
      OVS_BUILDDIR=$OVS_SRCDIR
    else
      OVS_BUILDDIR=$ac_pwd/ovs-build
    fi
    ;;
  esac

  AC_MSG_CHECKING([Open vSwitch version in $OVS_SRCDIR])
  test -f "$OVS_SRCDIR/configure.ac" || \
    AC_MSG_ERROR([$OVS_SRCDIR is not an Open vSwitch source tree (no configure.ac)])
  OVS_VERSION=`sed -n 's/^A@<:@C@:>@_INIT(openvswitch, *\(@<:@^,@:>@*\),.*/\1/p' "$OVS_SRCDIR/configure.ac"`
  AC_MSG_RESULT([$OVS_VERSION])
  dnl The datapath provider interface (lib/dpif-provider.h) and the
  dnl vswitchd objects change between releases: build only against the
  dnl release series this code was written for.
  case $OVS_VERSION in
  3.1.*) ;;
  *) AC_MSG_ERROR([Open vSwitch $OVS_VERSION is not supported; ovs-xdp needs 3.1.x (Debian 12's openvswitch-source)]) ;;
  esac

  if test ! -f "$OVS_BUILDDIR/config.h" || test ! -f "$OVS_BUILDDIR/Makefile"; then
    if test ! -x "$OVS_SRCDIR/configure"; then
      AC_MSG_NOTICE([running boot.sh in $OVS_SRCDIR])
      (cd "$OVS_SRCDIR" && ./boot.sh) >ovs-boot.log 2>&1 || \
        AC_MSG_ERROR([boot.sh failed in $OVS_SRCDIR; see ovs-boot.log])
    fi
    AC_MSG_NOTICE([configuring Open vSwitch in $OVS_BUILDDIR (log: ovs-configure.log)])
    $MKDIR_P "$OVS_BUILDDIR"
    (cd "$OVS_BUILDDIR" && \
     "$OVS_SRCDIR/configure" --prefix=/usr --localstatedir=/var \
         --sysconfdir=/etc CC="$CC" \
         ${ovs_xdp_asan_cflags:+"CFLAGS=$ovs_xdp_asan_cflags"} \
         ${ovs_xdp_asan_ldflags:+"LDFLAGS=$ovs_xdp_asan_ldflags"} \
         $ovs_xdp_dpdk_flag $OVS_CONFIGURE_FLAGS) \
        >ovs-configure.log 2>&1 || {
      tail -n 20 ovs-configure.log
      AC_MSG_ERROR([Open vSwitch's configure failed; see ovs-configure.log])
    }
  fi
  dnl An OVS tree built without AddressSanitizer cannot be linked into an
  dnl instrumented ovs-vswitchd-xdp usefully (its leaks and overflows would
  dnl go unseen), and an instrumented one cannot be linked without it.
  if grep -q '^CFLAGS = .*-fsanitize=address' "$OVS_BUILDDIR/Makefile"; then
    ovs_xdp_ovs_asan=yes
  else
    ovs_xdp_ovs_asan=no
  fi
  if test "$ovs_xdp_ovs_asan" != "$enable_asan"; then
    AC_MSG_ERROR([the Open vSwitch tree in $OVS_BUILDDIR was configured with AddressSanitizer=$ovs_xdp_ovs_asan but this build has --enable-asan=$enable_asan; use a fresh build directory])
  fi
  dnl The same for DPDK: the layout of struct dp_packet depends on it.
  if grep -q '^#define DPDK_NETDEV 1' "$OVS_BUILDDIR/config.h"; then
    ovs_xdp_ovs_dpdk=yes
  else
    ovs_xdp_ovs_dpdk=no
  fi
  if test "$ovs_xdp_ovs_dpdk" != "`test $with_dpdk = no && echo no || echo yes`"; then
    AC_MSG_ERROR([the Open vSwitch tree in $OVS_BUILDDIR was configured with DPDK=$ovs_xdp_ovs_dpdk but this build has --with-dpdk=$with_dpdk; use a fresh build directory])
  fi

  dnl The objects of OVS's own ovs-vswitchd, less nothing: ovs-vswitchd-xdp
  dnl is that program with our provider linked in.
  AC_MSG_CHECKING([for the ovs-vswitchd sources in $OVS_SRCDIR])
  OVS_VSWITCHD_OBJS=`sed -n '/^vswitchd_ovs_vswitchd_SOURCES *=/,/^[[^\\]]*$/p' \
      "$OVS_SRCDIR/vswitchd/automake.mk" | grep -o 'vswitchd/[[^ ]]*\.c' | \
      sed 's|^\(.*\)\.c$|$(OVS_BUILDDIR)/\1.$(OBJEXT)|' | tr '\n' ' '`
  test -n "$OVS_VSWITCHD_OBJS" || \
    AC_MSG_ERROR([cannot find vswitchd_ovs_vswitchd_SOURCES in $OVS_SRCDIR/vswitchd/automake.mk])
  AC_MSG_RESULT([$OVS_VSWITCHD_OBJS])

  AC_SUBST([OVS_SRCDIR])
  AC_SUBST([OVS_BUILDDIR])
  AC_SUBST([OVS_VERSION])
  AC_SUBST([OVS_VSWITCHD_OBJS])
  AC_DEFINE_UNQUOTED([OVS_XDP_OVS_VERSION], ["$OVS_VERSION"],
                     [Version of the Open vSwitch tree we are built against.])
])

dnl OVS_XDP_CHECK_DPDK
dnl
dnl --with-dpdk[=shared] configures the Open vSwitch tree with
dnl --with-dpdk=shared, so that ovs-vswitchd-xdp, like Debian's
dnl ovs-vswitchd-dpdk, runs DPDK ports on netdev bridges next to the xdp
dnl bridges.  DPDK is Debian's libdpdk-dev, found through pkg-config, and
dnl linked as Debian links openvswitch-switch-dpdk: shared, its drivers
dnl loaded as plugins.  (In OVS's own configure "yes" means "static".)
dnl "static" is refused: Open vSwitch 3.1 puts DPDK's static libraries
dnl inside --whole-archive twice on the link line of its own ovs-vswitchd
dnl (in LIBS and in DPDK_vswitchd_LDFLAGS), and with Debian 12's
dnl libdpdk-dev that link fails with thousands of multiple definitions
dnl (and needs libsystemd-dev as well).  The default build has no DPDK.
dnl
dnl In a DPDK build OVS's headers include DPDK's (struct dp_packet holds
dnl a struct rte_mbuf), so our objects are compiled with DPDK's flags as
dnl OVS's are (DPDK_CFLAGS): without DPDK's -march, which OVS strips too,
dnl and with -mssse3.  It must come before OVS_XDP_CHECK_OVS_SOURCE,
dnl which passes the option on.
AC_DEFUN([OVS_XDP_CHECK_DPDK], [
  AC_ARG_WITH([dpdk],
    [AS_HELP_STRING([--with-dpdk@<:@=shared@:>@],
                    [run DPDK ports on netdev bridges, with Debian's libdpdk-dev @<:@no@:>@])],
    [], [with_dpdk=no])
  case $with_dpdk in
  no) ;;
  yes|shared) with_dpdk=shared ;;
  static) AC_MSG_ERROR([--with-dpdk=static: Open vSwitch 3.1's ovs-vswitchd does not link with Debian's static DPDK libraries (multiple definitions); use --with-dpdk (shared, as Debian's openvswitch-switch-dpdk)]) ;;
  *) AC_MSG_ERROR([--with-dpdk=$with_dpdk: give shared or nothing]) ;;
  esac
  DPDK_CFLAGS=
  ovs_xdp_dpdk_flag=
  if test "$with_dpdk" != no; then
    AC_PATH_PROG([PKG_CONFIG], [pkg-config])
    test -n "$PKG_CONFIG" || OVS_XDP_MISSING([pkg-config], [pkg-config])
    AC_MSG_CHECKING([for DPDK (libdpdk.pc)])
    if ! $PKG_CONFIG --exists libdpdk; then
      AC_MSG_RESULT([no])
      OVS_XDP_MISSING([DPDK (libdpdk.pc)], [libdpdk-dev])
    fi
    ovs_xdp_dpdk_version=`$PKG_CONFIG --modversion libdpdk`
    AC_MSG_RESULT([$ovs_xdp_dpdk_version, $with_dpdk])
    DPDK_CFLAGS="`$PKG_CONFIG --cflags libdpdk | \
        sed -e 's/-march=[[^ ]]*//g' -e 's/-mno-avx512f//g'` -mssse3"
    ovs_xdp_dpdk_flag=--with-dpdk=$with_dpdk
  fi
  AC_SUBST([DPDK_CFLAGS])
  AC_SUBST([WITH_DPDK], [$with_dpdk])
])

dnl OVS_XDP_ENABLE_WERROR
AC_DEFUN([OVS_XDP_ENABLE_WERROR], [
  AC_ARG_ENABLE([Werror],
    [AS_HELP_STRING([--enable-Werror], [treat compiler warnings as errors])],
    [], [enable_Werror=no])
  WERROR=
  test "$enable_Werror" = yes && WERROR=-Werror
  AC_SUBST([WERROR])
])

dnl OVS_XDP_ENABLE_ASAN
dnl
dnl --enable-asan builds our programs and the Open vSwitch tree with
dnl AddressSanitizer (which includes LeakSanitizer), so that the test suites
dnl catch invalid accesses and leaks: see tests/atlocal.in for how a report
dnl fails the test that caused it.  It must come before
dnl OVS_XDP_CHECK_OVS_SOURCE, which passes the flags to OVS's configure.
AC_DEFUN([OVS_XDP_ENABLE_ASAN], [
  AC_ARG_ENABLE([asan],
    [AS_HELP_STRING([--enable-asan],
                    [build with AddressSanitizer (and LeakSanitizer), Open vSwitch included])],
    [], [enable_asan=no])
  ovs_xdp_asan_cflags=
  ovs_xdp_asan_ldflags=
  if test "$enable_asan" = yes; then
    CFLAGS="$CFLAGS -fsanitize=address -fno-omit-frame-pointer -g"
    LDFLAGS="$LDFLAGS -fsanitize=address"
    AC_MSG_CHECKING([whether $CC supports -fsanitize=address])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       OVS_XDP_MISSING([AddressSanitizer (libasan)], [gcc (libasan8)])])
    dnl OVS's configure gets the same flags (and its own CFLAGS default,
    dnl -g -O2, is the same as ours).
    ovs_xdp_asan_cflags=$CFLAGS
    ovs_xdp_asan_ldflags=$LDFLAGS
  fi
  AC_SUBST([ENABLE_ASAN], [$enable_asan])
  AM_CONDITIONAL([ENABLE_ASAN], [test "$enable_asan" = yes])
])
