#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the QEMU test kernels: unpatched (base) and patched (on arm64 the
# debug build of the patched tree, see check_variant), arm64 and x86_64,
# out of tree with ccache. build-kernel.sh checks that every option
# of the fragments survived merge_config + olddefconfig.
. tests/lib/common.sh

for arch in arm64 x86_64; do
	for variant in base $(check_variant "$arch"); do
		start=$(date +%s)
		check "build $arch $variant kernel" make -s "kernel-$arch-$variant"
		diag "$arch $variant: $(($(date +%s) - start)) s"
	done
done
