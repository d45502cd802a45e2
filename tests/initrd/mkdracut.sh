#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkdracut.sh [--arch ARCH] [--sysroot DIR] [--without-policy] [--systemd]
#             [--cmdline WORDS] OUT.img BINARY|PACKAGE.deb [CONFDIR]
# Build a real dracut initramfs with the host's dracut, holding the
# 55preempt-policy module and the tool, and the policy from CONFDIR
# (preempt-policy.conf, preempt-policy.d/) if given. Modules: base,
# rootfs-block, preempt-policy (and what they pull in: udev-rules, fs-lib).
# The module and the tool come from
# - BINARY: the module as `make -C initrd install` lays it out, the
#   static preempt-policy BINARY;
# - PACKAGE.deb (make deb's, for ARCH): what the package installs. For
#   another ARCH it is installed with dpkg into the scratch sysroot
#   (tests/rig/deb-install.sh: the sysroot's own dpkg database, the
#   package's maintainer scripts), as on a machine that installs it; for
#   the host's ARCH, whose dracut packs the host's own files, its
#   contents are unpacked into the scratch directory (dpkg-deb -x;
#   nothing is installed on the host).
#
# --systemd: the systemd-based initramfs Fedora, RHEL and SUSE boot
# (dracut's systemd, systemd-initrd and dracut-systemd modules; the hook
# runs in dracut-pre-pivot.service): the host's systemd on x86_64, the
# sysroot's (mksysroot.sh packs systemd) for another ARCH.
#
# --cmdline WORDS: dracut --kernel-cmdline, which the image keeps in
# /etc/cmdline.d/01-default.conf (read by dracut-lib's getarg).
#
# --sysroot DIR: the ARCH sysroot mksysroot.sh printed, for a caller that
# has asked for it already (its key is part of the caller's cache key);
# without it mkdracut.sh asks mksysroot.sh itself.
#
# --without-policy: the same image without 55preempt-policy (modules base
# and rootfs-block only, same dracut, sysroot and options): the baseline
# of "make bench" part (d), which boots both and times the difference.
#
# ARCH (default: the host's) is the guest's architecture:
# - the host's (x86_64): dracut packs the host's own binaries.
# - another one (arm64): dracut --sysroot with a Debian 12 sysroot of ARCH
#   (mksysroot.sh). Nothing of ARCH can run here, so dracut gets
#   cross-ldd.sh as DRACUT_LDD (library dependencies from the ELF headers)
#   and no ldconfig (DRACUT_LDCONFIG=true: the host's ldconfig does not
#   know ARCH's libraries; Debian's loader searches its multiarch
#   directories without a cache). dracut resolves every file it packs below
#   the sysroot, so the module and BINARY are put into a scratch copy of it
#   (hard links; the cached sysroot is never modified). Libraries
#   cross-ldd.sh could not find fail the build.
#
# Nothing of the host's is touched: the module is installed into a scratch
# DESTDIR, dracut gets a scratch dracutbasedir (the host's dracut plus our
# module), an empty --confdir, its own --tmpdir and --no-kernel (the test
# kernels have virtio-blk, ext4 and devtmpfs built in).
set -eu
usage="usage: mkdracut.sh [--arch arm64|x86_64] [--sysroot DIR] [--without-policy] [--systemd] [--cmdline WORDS] OUT.img BINARY|PACKAGE.deb [CONFDIR]"
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/initrd
hostdracut=/usr/lib/dracut
. "$top/tests/rig/lib.sh"

hostarch=$(host_arch)
arch=$hostarch
modules="base rootfs-block preempt-policy"
omit="systemd dracut-systemd plymouth i18n"
cmdline=
cached=
while [ $# -gt 0 ]; do
	case "$1" in
	--arch)
		[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		arch=$2
		shift 2
		;;
	--sysroot)
		[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		cached=$2
		[ -d "$cached/usr/lib/dracut" ] ||
			{ echo "mkdracut.sh: --sysroot $cached is not a sysroot with dracut" >&2; exit 2; }
		shift 2
		;;
	--without-policy)
		modules="base rootfs-block"
		shift
		;;
	--cmdline)
		[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		cmdline=$2
		shift 2
		;;
	--systemd)
		modules="systemd systemd-initrd systemd-udevd dracut-systemd $modules"
		omit="plymouth i18n"
		shift
		;;
	*) break ;;
	esac
done
check_arch "$arch"
case $# in
2 | 3) ;;
*) echo "$usage" >&2; exit 2 ;;
esac
out=$1 bin=$2 confdir=${3:-}
command -v dracut >/dev/null || { echo "mkdracut.sh: dracut is not installed" >&2; exit 1; }
pkg=
case "$bin" in
*.deb)
	pkg=$bin
	[ -f "$pkg" ] || { echo "mkdracut.sh: no package $pkg" >&2; exit 1; }
	;;
*) [ -x "$bin" ] || { echo "mkdracut.sh: no binary $bin" >&2; exit 1; } ;;
esac
if [ -n "$confdir" ] && [ ! -d "$confdir" ]; then
	echo "mkdracut.sh: no policy directory $confdir" >&2
	exit 1
fi
case "$out" in /*) ;; *) out=$(pwd)/$out ;; esac
case "$bin" in /*) ;; *) bin=$(pwd)/$bin ;; esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$pkg" ]; then
	make -s -C "$top/initrd" install DESTDIR="$work/inst" PREFIX=/usr >/dev/null
elif [ "$arch" = "$hostarch" ]; then
	dpkg-deb -x "$pkg" "$work/inst" ||
		{ echo "mkdracut.sh: cannot unpack $pkg" >&2; exit 1; }
	bin=$work/inst/usr/sbin/preempt-policy
	[ -x "$bin" ] || { echo "mkdracut.sh: $pkg has no /usr/sbin/preempt-policy" >&2; exit 1; }
fi
module=$work/inst/usr/lib/dracut/modules.d/55preempt-policy
mkdir -p "$work/conf.d" "$work/tmp"

if [ "$arch" = "$hostarch" ]; then
	sysroot=
	base=$work/dracut
	mkdir -p "$base/modules.d" "$work/empty"
	for f in "$hostdracut"/*; do
		[ "${f##*/}" = modules.d ] || ln -s "$f" "$base/${f##*/}"
	done
	for m in "$hostdracut"/modules.d/*; do
		ln -s "$m" "$base/modules.d/${m##*/}"
	done
	cp -a "$module" "$base/modules.d/"
	ppbin=$bin
	ppconf=${confdir:-$work/empty}
else
	[ -n "$cached" ] || cached=$("$here/mksysroot.sh" "$arch") || {
		echo "mkdracut.sh: the $arch sysroot could not be built (mksysroot.sh $arch)" >&2
		exit 1
	}
	sysroot=$work/sysroot
	# Hard links where the cache and the scratch directory share a file
	# system, a copy otherwise.
	cp -al "$cached" "$sysroot" 2>/dev/null || {
		rm -rf "$sysroot"
		cp -a "$cached" "$sysroot"
	}
	base=$sysroot/usr/lib/dracut
	# Paths on the target system: the module reads them below the
	# sysroot, like every path it reads.
	ppbin=/usr/sbin/preempt-policy
	if [ -n "$pkg" ]; then
		# dpkg replaces files by renaming new ones over them: the
		# cache's hard-linked files stay as they are.
		"$top/tests/rig/deb-install.sh" "$arch" "$sysroot" \
			"$(debs_dir "$arch")" "$pkg" >&2 || {
			echo "mkdracut.sh: installing $pkg into the $arch sysroot failed" >&2
			exit 1
		}
		if [ ! -x "$sysroot$ppbin" ] || [ ! -d "$base/modules.d/55preempt-policy" ]; then
			echo "mkdracut.sh: $pkg installed no $ppbin or dracut module" >&2
			exit 1
		fi
	else
		cp -a "$module" "$base/modules.d/"
		mkdir -p "$sysroot/usr/sbin"
		cp "$bin" "$sysroot$ppbin"
	fi
	mkdir -p "$sysroot/etc/preempt-policy-initrd"
	ppconf=/etc/preempt-policy-initrd
	[ -z "$confdir" ] || cp -R "$confdir/." "$sysroot$ppconf/"
	DRACUT_LDD=$here/cross-ldd.sh
	DRACUT_LDCONFIG=true
	DRACUT_INSTALL=$base/dracut-install
	DRACUT_TESTBIN=/bin/bash
	CROSS_LDD_SYSROOT=$sysroot
	CROSS_LDD_MISSING=$work/missing
	export DRACUT_LDD DRACUT_LDCONFIG DRACUT_INSTALL DRACUT_TESTBIN \
		CROSS_LDD_SYSROOT CROSS_LDD_MISSING
fi

# dracut.conf is sourced by dracut; module-setup.sh reads these.
{
	echo "preempt_policy_bin=\"$ppbin\""
	echo "preempt_policy_confdir=\"$ppconf\""
} >"$work/dracut.conf"
# dracut 059 finds udev's and systemd's directories with [[ -d
# $dracutsysrootdir$dir ]] || ask pkg-config: with a sysroot the test
# passes for an empty $dir, so they stay empty ("Cannot find
# [systemd-]udevd binary!"). Name them, as the sysroot lays them out.
if [ -n "$sysroot" ]; then
	udevdir=''
	sdutil=''
	for d in /usr/lib /lib; do
		[ -d "$sysroot$d/udev/rules.d" ] && udevdir=$d/udev
		[ -e "$sysroot$d/systemd/systemd-udevd" ] && sdutil=$d/systemd
	done
	if [ -z "$udevdir" ] || [ -z "$sdutil" ]; then
		echo "mkdracut.sh: no udev (rules.d, systemd-udevd) in the $arch sysroot" >&2
		exit 1
	fi
	cat >>"$work/dracut.conf" <<EOF
udevdir="$udevdir"
udevrulesdir="$udevdir/rules.d"
udevconfdir="/etc/udev"
udevrulesconfdir="/etc/udev/rules.d"
systemdutildir="$sdutil"
systemdsystemunitdir="$sdutil/system"
systemdutilconfdir="/etc/systemd"
EOF
fi

mkdir -p "$(dirname "$out")"
# Hostonly (sloppy): the host's policy goes into the image only then, as
# a distribution's default host-only image has it; nothing of the build
# machine's own configuration is asked for (no kernel, no cmdline, empty
# confdir).
dracutbasedir=$base dracut --quiet --force --no-kernel \
	--hostonly --hostonly-mode sloppy --no-hostonly-cmdline --conf "$work/dracut.conf" \
	--confdir "$work/conf.d" --tmpdir "$work/tmp" \
	${sysroot:+--sysroot "$sysroot"} \
	--modules "$modules" \
	--omit "$omit" ${cmdline:+--kernel-cmdline "$cmdline"} \
	--add-drivers "" --no-compress --no-early-microcode \
	"$out.tmp" "7.3.0-rig" >&2
if [ -s "$work/missing" ]; then
	echo "mkdracut.sh: libraries not in the $arch sysroot:" >&2
	sort -u "$work/missing" | sed 's/^/  /' >&2
	rm -f "$out.tmp"
	exit 1
fi
mv "$out.tmp" "$out"
