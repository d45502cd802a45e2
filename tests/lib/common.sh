# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Helpers for tests/suites/*.sh: TAP output and access to the built kernels,
# plus the rig's (tests/rig/lib.sh: the cache directory and key, the arch
# table). Sourced with the repository's top directory as the working
# directory.

TOP=$(pwd)
# shellcheck disable=SC2034 # used by the suites that source this
RIG=$TOP/tests/rig
# shellcheck source=tests/rig/lib.sh
. "$RIG/lib.sh"
CACHE=$(cache_dir)
BUILD=${BUILD:-$TOP/build}
PREEMPT_CACHE=$CACHE
export PREEMPT_CACHE BUILD

# ok, not_ok, skip, diag, result, check, tap_done
. tests/lib/tap.sh
# vm_verdict, vm_says, vm_expect_fail: the verdicts of launch-vm.sh
. tests/lib/vm.sh
# suite_main, bail, need: a suite's setup, run and cleanup
. tests/lib/suite.sh

pristine_tree() {
	cat "$BUILD/pristine.path"
}

# kernel_image ARCH VARIANT: path of a kernel built by make kernel-ARCH-VARIANT,
# below $PREEMPT_KERNEL_OBJ (default $CACHE/obj): the object trees
# ARCH-VARIANT/, each with its .config. Setting it boots kernels built
# elsewhere (another cache, read-only) without building any here.
kernel_image() {
	ki_img=$(kernel_image_for "$1") || return 1
	printf '%s/%s-%s/%s' "${PREEMPT_KERNEL_OBJ:-$CACHE/obj}" "$1" "$2" "$ki_img"
}

# check_variant ARCH: the patched kernel make check boots on ARCH: the
# plain build on both. Every guest still fails on a splat (launch-vm.sh).
# CHECK_VARIANT_ARM64 and CHECK_VARIANT_X86_64 override.
check_variant() {
	case "$1" in
	arm64) echo "${CHECK_VARIANT_ARM64:-patched}" ;;
	x86_64) echo "${CHECK_VARIANT_X86_64:-patched}" ;;
	esac
}

# unpatched_kernel ARCH WHAT: set UNPATCHED_IMAGE to the image of ARCH's
# unpatched (base) kernel, the negative control of the checks that must fail without the
# series. make check builds it for the arches in UNPATCHED_ARCHES (default
# arm64: the x86_64 one cost the cold make check 13 min for the same
# verdicts; UNPATCHED_ARCHES="arm64 x86_64" make check brings it back).
# For another arch, WHAT is reported as a skip with that reason; for a
# listed arch without a built image, WHAT fails. Either way it returns 1.
unpatched_kernel() {
	UNPATCHED_IMAGE=
	if ! unpatched_listed "$1"; then
		skip "$2" "$1 unpatched kernel not in UNPATCHED_ARCHES='${UNPATCHED_ARCHES-arm64}'"
		return 1
	fi
	UNPATCHED_IMAGE=$(kernel_image "$1" base)
	if [ ! -f "$UNPATCHED_IMAGE" ]; then
		not_ok "$2 (no kernel $UNPATCHED_IMAGE; see the build suite)"
		return 1
	fi
}

# unpatched_listed ARCH: make check builds ARCH's unpatched kernel.
unpatched_listed() {
	case " ${UNPATCHED_ARCHES-arm64} " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# stress_variant ARCH: the kernel of the mode-switch stress run in make
# check: the plain patched build on both arches. The debug build (the
# series plus lockdep, atomic-sleep checks and KASAN) is make check-debug's:
# cold, it cost make check a sixth kernel build (the longest, KASAN) and
# its guests boot four times slower under TCG, for one suite's stress.
# STRESS_VARIANT_ARM64 and STRESS_VARIANT_X86_64 override (debug: the
# suite then needs make kernel-ARCH-debug first).
stress_variant() {
	case "$1" in
	arm64) echo "${STRESS_VARIANT_ARM64:-patched}" ;;
	x86_64) echo "${STRESS_VARIANT_X86_64:-patched}" ;;
	esac
}
