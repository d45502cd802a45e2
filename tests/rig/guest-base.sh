#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest-base.sh ARCH ROOT INIT
# guest-base.sh --busybox ARCH
# The base every guest image shares, the busybox initramfs
# (mkinitramfs.sh), the dracut test root (tests/initrd/mkroot.sh) and the
# PostgreSQL root image (tests/pg/mkimage.sh): Debian's static busybox for
# ARCH at ROOT/bin/busybox and the rig's init (guest-init) at ROOT/INIT
# (/init of an initramfs, /sbin/init of a root). --busybox only prints the
# path of the static busybox, for a builder's cache key.
# The busybox-static package is downloaded once and unpacked once per
# version, into the cache (cache_dir).
set -eu
rig=$(cd "$(dirname "$0")" && pwd)
. "$rig/lib.sh"

# busybox ARCH: the path of ARCH's static busybox, unpacked on first use.
busybox() {
	debs=$(debs_dir "$1")
	"$rig/fetch-debs.sh" "$1" "$debs" busybox-static
	deb=
	for f in "$debs"/busybox-static_*.deb; do
		[ -f "$f" ] && deb=$f
	done
	[ -n "$deb" ] || die "no busybox-static .deb in $debs"
	dir=$(cache_dir)/busybox/$1/$(basename "$deb" .deb)
	if [ ! -x "$dir/busybox" ]; then
		tmp=$(mktemp -d)
		dpkg -x "$deb" "$tmp" || { rm -rf "$tmp"; die "unpacking $deb failed"; }
		mkdir -p "$dir"
		cp "$tmp/bin/busybox" "$dir/busybox.tmp" && mv "$dir/busybox.tmp" "$dir/busybox"
		rm -rf "$tmp"
	fi
	printf '%s\n' "$dir/busybox"
}

if [ "${1:-}" = --busybox ]; then
	[ $# -eq 2 ] || die "usage: guest-base.sh --busybox ARCH"
	check_arch "$2"
	busybox "$2"
	exit 0
fi
[ $# -eq 3 ] || die "usage: guest-base.sh ARCH ROOT INIT"
arch=$1 root=$2 init=$3
check_arch "$arch"
case $init in
/*) ;;
*) die "INIT must be an absolute path inside ROOT, not '$init'" ;;
esac
[ -d "$root" ] || die "no root directory $root"
bb=$(busybox "$arch")
mkdir -p "$root/bin" "$root${init%/*}"
cp "$bb" "$root/bin/busybox"
cp "$rig/guest-init" "$root$init"
chmod 0755 "$root$init"
