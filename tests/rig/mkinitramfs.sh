#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh ARCH OUT.cpio [TESTDIR]
# Writes an uncompressed newc initramfs: a static busybox from Debian's
# busybox-static package for ARCH, the rig's /init, and TESTDIR at /t.
# Uncompressed because the guest unpacks it under TCG: gzip costs more there
# than the extra bytes do.
set -eu
. "$(dirname "$0")/lib.sh"

case $# in
2 | 3) ;;
*) die "usage: mkinitramfs.sh ARCH OUT.cpio [TESTDIR]" ;;
esac
arch=$1 out=$2 testdir=${3:-}
rig=$(cd "$(dirname "$0")" && pwd)
[ -z "$testdir" ] || [ -d "$testdir" ] || die "no test directory $testdir"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/root/t"
"$rig/guest-base.sh" "$arch" "$stage/root" /init
[ -z "$testdir" ] || cp -a "$testdir/." "$stage/root/t/"
(cd "$stage/root" && find . | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0) >"$out.tmp"
mv "$out.tmp" "$out"
