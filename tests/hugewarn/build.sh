#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build.sh ARCH OUTDIR [test|bench]
# Cross-compile the static guest programs for ARCH (arm64, x86_64) into
# OUTDIR and install the guest script as OUTDIR/run: the warning test
# (default) or the fault-path benchmark. Then boot it with
#   tests/rig/guest-run.sh --arch ARCH --kernel IMAGE OUTDIR
set -eu
[ $# -ge 2 ] || { echo "usage: build.sh ARCH OUTDIR [test|bench]" >&2; exit 2; }
arch=$1 out=$2 what=${3:-test}
here=$(cd "$(dirname "$0")" && pwd)
case "$arch" in
arm64)
	[ "$(uname -m)" = aarch64 ] && cc=gcc || cc=aarch64-linux-gnu-gcc ;;
x86_64)
	[ "$(uname -m)" = x86_64 ] && cc=gcc || cc=x86_64-linux-gnu-gcc ;;
*) echo "build.sh: unsupported ARCH $arch" >&2; exit 2 ;;
esac
cflags="-static -O2 -Wall -Wextra"
mkdir -p "$out"
# shellcheck disable=SC2086
$cc $cflags -o "$out/hugewarn" "$here/hugewarn.c"
# shellcheck disable=SC2086
$cc $cflags -o "$out/bench-shmem-fault" "$here/bench-shmem-fault.c"
case "$what" in
test) cp "$here/run" "$out/run" ;;
bench) cp "$here/run-bench" "$out/run" ;;
*) echo "build.sh: unknown target $what" >&2; exit 2 ;;
esac
chmod 0755 "$out/run"
