#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build-policy.sh ARCH OUT
# The static preempt-policy for guests of ARCH (arm64, x86_64), the one
# builder of it (the busybox initramfs has no C library; the dracut and
# initramfs-tools images of tests/initrd, make run and make bench pack it):
# policy/Makefile's own "make static" with ARCH's compiler (guest_cc of
# tests/rig/lib.sh), written to OUT; the host build policy/preempt-policy
# is left alone. Reused while its inputs (policy/Makefile, policy/src, the
# compiler, this script) are the same: the key is in OUT.key. Prints OUT;
# make's output reaches stderr only when the build fails, which leaves OUT
# as it was.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/rig/lib.sh"

[ $# -eq 2 ] || die "usage: build-policy.sh ARCH OUT"
arch=$1 out=$2
cc=$(guest_cc "$arch") || exit 1
command -v "$cc" >/dev/null || die "no C compiler '$cc' for $arch guests (make deps)"
case "$out" in /*) ;; *) out=$(pwd)/$out ;; esac
mkdir -p "$(dirname "$out")"

key=$( {
	(cd "$top/policy" && find Makefile src -type f | LC_ALL=C sort | xargs cat)
	cat "$0"
	echo "$cc"
	"$cc" --version 2>&1 | head -n 1
} | cache_key)
if [ -x "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
	printf '%s\n' "$out"
	exit 0
fi
log=$(mktemp)
trap 'rm -f "$log" "$out.tmp"' EXIT
if ! make -s -C "$top/policy" static CC="$cc" OUT="$out.tmp" >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	die "make -C policy static CC=$cc failed"
fi
mv "$out.tmp" "$out"
echo "$key" >"$out.key"
printf '%s\n' "$out"
