#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build.sh ARCH OUTDIR [KSRC]
# Compile the mm kselftest shmem_hugepage_warn of the patched tree KSRC
# (default $PREEMPT_CACHE/trees/patched) as a static program for ARCH
# (arm64, x86_64) into OUTDIR and install the guest script as OUTDIR/guest.sh.
# Then boot it with
#   tests/rig/launch-vm.sh --arch ARCH --kernel IMAGE OUTDIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../rig/lib.sh"
case $# in
2 | 3) ;;
*) die "usage: build.sh ARCH OUTDIR [KSRC]" ;;
esac
arch=$1 out=$2
ksrc=${3:-$(cache_dir)/trees/patched}
cc=$(guest_cc "$arch") || exit 1
st=$ksrc/tools/testing/selftests
[ -f "$st/mm/shmem_hugepage_warn.c" ] || die "no mm/shmem_hugepage_warn.c under $st"
mkdir -p "$out"
$cc -static -O2 -Wall -Wextra -I "$st/mm" -o "$out/shmem_hugepage_warn" \
	"$st/mm/shmem_hugepage_warn.c"
cp "$here/guest.sh" "$out/guest.sh"
chmod 0755 "$out/guest.sh"
