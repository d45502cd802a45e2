#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the QEMU test kernels: unpatched (base, for the arches in
# UNPATCHED_ARCHES: unpatched_listed), patched (check_variant) and the
# mode-switch stress kernel when it is another one (stress_variant:
# the patched build unless STRESS_VARIANT_ARCH says debug), arm64 and
# x86_64, out of tree with ccache. build-kernel.sh checks that every option
# of the fragments survived merge_config + olddefconfig.
. tests/lib/common.sh

suite_run() {
	for arch in arm64 x86_64; do
		# The stress kernel only when it is not the one the others boot.
		variants=$(check_variant "$arch")
		unpatched_listed "$arch" && variants="base $variants"
		case " $variants " in
		*" $(stress_variant "$arch") "*) ;;
		*) variants="$variants $(stress_variant "$arch")" ;;
		esac
		for variant in $variants; do
			start=$(date +%s)
			check "build $arch $variant kernel" make -s "kernel-$arch-$variant"
			diag "$arch $variant: $(($(date +%s) - start)) s"
		done
	done
}

suite_main
