#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build-policy.sh ARCH OUTDIR
# Build a static preempt-policy for a guest of ARCH through the policy's own
# "make static" target and print the binary's path. The build runs in a copy
# of policy/ under OUTDIR so that the native ./policy/preempt-policy is left
# alone. Exits 3 when policy/Makefile has no static target yet.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/rig/lib.sh"

[ $# -eq 2 ] || die "usage: build-policy.sh ARCH OUTDIR"
arch=$1 outdir=$2
case "$arch" in
arm64) cc=aarch64-linux-gnu-gcc ;;
x86_64) cc=gcc ;;
*) die "unsupported ARCH '$arch' (arm64, x86_64)" ;;
esac
grep -q '^static:' "$top/policy/Makefile" 2>/dev/null || exit 3

src=$outdir/policy-src-$arch
bin=$outdir/preempt-policy-$arch
mkdir -p "$src"
# Rebuild only when a source changed.
if [ -x "$bin" ] && [ -z "$(find "$top/policy/Makefile" "$top/policy/src" \
	-newer "$bin" -type f 2>/dev/null | head -n 1)" ]; then
	printf '%s\n' "$bin"
	exit 0
fi
rm -rf "$src"
mkdir -p "$src"
cp -R "$top/policy/Makefile" "$top/policy/src" "$src/"
make -s -C "$src" static CC="$cc" >"$outdir/policy-build-$arch.log" 2>&1 ||
	die "make -C policy static CC=$cc failed, see $outdir/policy-build-$arch.log"
cp "$src/preempt-policy" "$bin"
printf '%s\n' "$bin"
