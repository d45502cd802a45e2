#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs-tools.sh OUT.img BINARY KCONFIG [CONFDIR]
# Build a real initramfs-tools image (x86_64, the host's binaries) with
# Debian 12's mkinitramfs, holding the preempt-policy hook and
# init-bottom script as `make -C initrd install` lays them out, the
# static preempt-policy BINARY and the policy from CONFDIR. KCONFIG is
# the test kernel's .config (mkinitramfs reads /boot/config-VERSION for
# the compressors the kernel can unpack).
#
# initramfs-tools conflicts with the dracut package installed here, so it
# is not installed: initramfs-tools-core, klibc-utils and libklibc
# (bookworm) are unpacked from a private apt state (on the mirror of the
# machine's apt sources, debian_mirror), and mkinitramfs runs
# in a private mount namespace (unshare -m) where scratch directories are
# bind-mounted over /usr/share/initramfs-tools (with the host's busybox
# and kmod hooks), /usr/local, /boot and /etc/preempt-policy* (an overlay
# for /usr/lib adds klibc and an empty /lib/modules/VERSION: the test
# kernels have everything built in). Nothing of the host's changes: the
# mounts vanish with the namespace, the image goes to OUT.img.
set -eu
usage="usage: mkinitramfs-tools.sh OUT.img BINARY KCONFIG [CONFDIR]"
case $# in
3 | 4) ;;
*) echo "$usage" >&2; exit 2 ;;
esac
out=$1 bin=$2 kconfig=$3 confdir=${4:-}
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/rig/lib.sh"
[ "$(uname -m)" = x86_64 ] || die "mkinitramfs-tools.sh packs the host's binaries: x86_64 hosts only"
[ -x "$bin" ] || die "no binary $bin"
[ -f "$kconfig" ] || die "no kernel config $kconfig"
[ -z "$confdir" ] || [ -d "$confdir" ] || die "no policy directory $confdir"
[ -d /usr/share/initramfs-tools ] || die "no /usr/share/initramfs-tools to mount over (busybox-static and kmod ship hooks there)"
case "$out" in /*) ;; *) out=$(pwd)/$out ;; esac
case "$bin" in /*) ;; *) bin=$(pwd)/$bin ;; esac
case "$kconfig" in /*) ;; *) kconfig=$(pwd)/$kconfig ;; esac
case "$confdir" in /* | '') ;; *) confdir=$(pwd)/$confdir ;; esac
cache=$(cache_dir)
debs=$cache/debs/initramfs-tools
version=7.3.0-rig

state=$debs/.apt
set -- initramfs-tools-core klibc-utils libklibc
missing=
for p in "$@"; do
	ls "$debs/${p}"_*.deb >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	aptopts=$(private_apt_opts "$state" amd64)
	mirror=$(debian_mirror) || exit 1
	private_sources "$state" <<EOS
deb [arch=amd64] $mirror bookworm main
deb [arch=amd64] $mirror bookworm-updates main
EOS
	# shellcheck disable=SC2086
	apt-get $aptopts update >/dev/null 2>&1 ||
		die "apt-get update of the private sources in $state ($mirror) failed"
	# shellcheck disable=SC2086
	(cd "$debs" && apt-get $aptopts download $missing >/dev/null 2>&1) ||
		die "could not download$missing from bookworm"
fi

w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
for f in "$debs"/*.deb; do
	dpkg -x "$f" "$w/x"
done
# /usr/share/initramfs-tools: initramfs-tools-core's, the host's hooks
# (busybox, kmod, udev), and ours.
mkdir -p "$w/share" "$w/usrlib/modules/$version" "$w/boot" "$w/etc"
cp -a /usr/share/initramfs-tools/. "$w/share/"
cp -a "$w/x/usr/share/initramfs-tools/." "$w/share/"
make -s -C "$top/initrd" install DESTDIR="$w/inst" PREFIX=/usr/local >/dev/null
cp -a "$w/inst/usr/share/initramfs-tools/." "$w/share/"
mkdir -p "$w/inst/usr/local/sbin"
cp "$bin" "$w/inst/usr/local/sbin/preempt-policy"
# klibc (run-init, the library) and an empty module tree.
cp -a "$w/x/usr/lib/." "$w/usrlib/"
[ ! -d "$w/x/lib" ] || cp -a "$w/x/lib/." "$w/usrlib/"
: >"$w/usrlib/modules/$version/modules.builtin"
: >"$w/usrlib/modules/$version/modules.order"
cp "$kconfig" "$w/boot/config-$version"
# The policy the hook copies from /etc; /etc itself is overlaid.
[ -z "$confdir" ] || cp -R "$confdir/." "$w/etc/"
cp -a "$w/x/etc/initramfs-tools" "$w/conf"
sed -i 's/^MODULES=.*/MODULES=list/' "$w/conf/initramfs.conf"

rm -f "$out.tmp"
# shellcheck disable=SC2016 # expanded by the namespace's shell
unshare -m --propagation private sh -c '
	w=$1 out=$2 version=$3
	mount --bind "$w/share" /usr/share/initramfs-tools &&
	mount --bind "$w/inst/usr/local" /usr/local &&
	mount --bind "$w/boot" /boot &&
	mount -t overlay overlay -o "lowerdir=$w/usrlib:/usr/lib" /usr/lib &&
	mount -t overlay overlay -o "lowerdir=$w/etc:/etc" /etc ||
		{ echo "mkinitramfs-tools.sh: the namespace mounts failed" >&2; exit 1; }
	# linux-version (linux-base) is not needed for a module-less image.
	"$w/x/usr/sbin/mkinitramfs" -d "$w/conf" -o "$out" "$version" 2>&1 |
		grep -v "linux-version: not found\|^depmod: \|missing /lib/modules\|Ensure all necessary drivers" >&2
	[ -s "$out" ]
' mkinitramfs "$w" "$out.tmp" "$version" || {
	rm -f "$out.tmp"
	die "mkinitramfs failed"
}
mv "$out.tmp" "$out"
