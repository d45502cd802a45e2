#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the QEMU test kernels: unpatched (base) and patched, arm64 and
# x86_64, out of tree with ccache. build-kernel.sh checks that every option
# of the fragments survived merge_config + olddefconfig.
. tests/lib/common.sh

for arch in arm64 x86_64; do
	for variant in base patched; do
		start=$(date +%s)
		check "build $arch $variant kernel" make -s "kernel-$arch-$variant"
		diag "$arch $variant: $(($(date +%s) - start)) s"
	done
done
