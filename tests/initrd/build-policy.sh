#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build-policy.sh ARCH OUT
# Build a static preempt-policy for the guest with policy/Makefile's own
# "static" recipe, in a scratch copy of policy/ so the tree's
# policy/preempt-policy (the host build) is left alone.
set -eu
[ $# -eq 2 ] || { echo "usage: build-policy.sh ARCH OUT" >&2; exit 2; }
arch=$1 out=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
case "$arch" in
x86_64) cc=gcc ;;
arm64) cc=aarch64-linux-gnu-gcc ;;
*) echo "build-policy.sh: unknown arch $arch" >&2; exit 2 ;;
esac
[ -f "$top/policy/Makefile" ] || { echo "build-policy.sh: no policy/Makefile" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -a "$top/policy/Makefile" "$top/policy/src" "$work/"
make -s -C "$work" static CC="$cc" >&2
mkdir -p "$(dirname "$out")"
cp "$work/preempt-policy" "$out.tmp"
mv "$out.tmp" "$out"
