#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build.sh ARCH OUTDIR [test|bench] [KSRC]
# Cross-compile the static guest programs for ARCH (arm64, x86_64) into
# OUTDIR and install the guest script as OUTDIR/run: the mm kselftest
# shmem_hugepage_warn from the patched tree KSRC (default
# $PREEMPT_CACHE/trees/patched) (test, the default), or the fault-path
# benchmark (bench). Then boot it with
#   tests/rig/guest-run.sh --arch ARCH --kernel IMAGE OUTDIR
set -eu
[ $# -ge 2 ] || { echo "usage: build.sh ARCH OUTDIR [test|bench] [KSRC]" >&2; exit 2; }
arch=$1 out=$2 what=${3:-test}
ksrc=${4:-${PREEMPT_CACHE:-$HOME/.cache/preempt-modes}/trees/patched}
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
case "$what" in
test)
	st=$ksrc/tools/testing/selftests
	[ -f "$st/mm/shmem_hugepage_warn.c" ] ||
		{ echo "build.sh: no mm/shmem_hugepage_warn.c under $st" >&2; exit 1; }
	# shellcheck disable=SC2086
	$cc $cflags -I "$st/mm" -o "$out/shmem_hugepage_warn" \
		"$st/mm/shmem_hugepage_warn.c"
	cp "$here/run" "$out/run"
	;;
bench)
	# shellcheck disable=SC2086
	$cc $cflags -o "$out/bench-shmem-fault" "$here/bench-shmem-fault.c"
	cp "$here/run-bench" "$out/run"
	;;
*) echo "build.sh: unknown target $what" >&2; exit 2 ;;
esac
chmod 0755 "$out/run"
