#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the QEMU test kernels of check_kernels: the negative control
# (control_variant: the unpatched build, base, for the arches in
# UNPATCHED_ARCHES; Debian's own kernel, debian, downloaded, for those in
# DEBIAN_CONTROL_ARCHES; the patched tree with PREEMPT_DYNAMIC_ALL_MODES
# off, off, for those in OFF_CONTROL_ARCHES), patched (check_variant), the
# mode-switch stress kernel when it is another one (stress_variant: the
# patched build unless STRESS_VARIANT_ARCH says debug) and the option-off
# build of the parity checks (parity_arches), arm64 and x86_64, out of
# tree with ccache. build-kernel.sh checks that every option of the
# fragments survived merge_config + olddefconfig, and that an option asked
# off exists in the tree.
. tests/lib/common.sh

suite_run() {
	# check.sh may have started these builds while the suites before
	# this one ran (prebuild): wait for it, then make is an up-to-date
	# check, or finishes what the early build left, and reports here.
	if [ -n "${CHECK_PREBUILD_LOCK:-}" ] && [ -f "$CHECK_PREBUILD_LOCK" ]; then
		start=$(date +%s)
		flock "$CHECK_PREBUILD_LOCK" true
		diag "waited $(($(date +%s) - start)) s for the early kernel builds (see ${CHECK_PREBUILD_LOG:-its log})"
	fi
	kernels=$(check_kernels)
	while read -r arch variant; do
		start=$(date +%s)
		if [ "$variant" = debian ]; then
			check "fetch Debian's own $arch kernel (the negative control)" \
				make -s "kernel-$arch-$variant"
		else
			check "build $arch $variant kernel" make -s "kernel-$arch-$variant"
		fi
		diag "$arch $variant: $(($(date +%s) - start)) s"
	done <<EOF
$kernels
EOF
}

suite_main
