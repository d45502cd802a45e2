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

# unpatched_kernel ARCH WHAT: set UNPATCHED_IMAGE and UNPATCHED_VARIANT to
# ARCH's kernel without the series' option, the negative control of the
# checks that must fail without it (control_variant): the unpatched build
# (base), Debian's own kernel (debian) or the patched tree with the option
# off (off). For an arch with none, WHAT is reported as a skip with that
# reason; when the image is missing, WHAT fails. Either way it returns 1.
unpatched_kernel() {
	UNPATCHED_IMAGE=
	UNPATCHED_VARIANT=$(control_variant "$1")
	if [ -z "$UNPATCHED_VARIANT" ]; then
		skip "$2" "no $1 kernel without the series: $1 not in UNPATCHED_ARCHES='${UNPATCHED_ARCHES-}', DEBIAN_CONTROL_ARCHES='${DEBIAN_CONTROL_ARCHES-x86_64}' or OFF_CONTROL_ARCHES='${OFF_CONTROL_ARCHES-arm64}'"
		return 1
	fi
	UNPATCHED_IMAGE=$(kernel_image "$1" "$UNPATCHED_VARIANT")
	if [ ! -f "$UNPATCHED_IMAGE" ]; then
		not_ok "$2 (no kernel $UNPATCHED_IMAGE; see the build suite)"
		return 1
	fi
}

# control_variant ARCH: the variant of ARCH's negative control, empty if it
# has none. base, the pristine tree built with the patched kernel's
# fragments, for the arches in UNPATCHED_ARCHES (default none: each cost
# a cold make check 11 min); else debian, Debian's own kernel of the pinned
# version (make kernel-x86_64-debian, downloaded, not built), for those in
# DEBIAN_CONTROL_ARCHES (default x86_64, the only arch whose Debian kernel
# is PREEMPT_DYNAMIC); else off, the patched tree built with the patched
# kernel's fragments but PREEMPT_DYNAMIC_ALL_MODES off (a distribution
# kernel that carries the series without enabling it, which must behave as
# upstream; mostly ccache hits after the patched build), for those in
# OFF_CONTROL_ARCHES (default arm64). off carries the mm series, which is
# not behind the option: it is no control for the huge page report
# (60-hugewarn). UNPATCHED_ARCHES=arm64 make check boots arm64's unpatched
# build instead.
control_variant() {
	case " ${UNPATCHED_ARCHES-} " in
	*" $1 "*)
		echo base
		return
		;;
	esac
	case " ${DEBIAN_CONTROL_ARCHES-x86_64} " in
	*" $1 "*)
		echo debian
		return
		;;
	esac
	case " ${OFF_CONTROL_ARCHES-arm64} " in
	*" $1 "*) echo off ;;
	esac
}

# parity_arches: the arches whose option-off build (off) make check boots
# to compare it with upstream (40-boot): PARITY_ARCHES, default both.
parity_arches() {
	echo "${PARITY_ARCHES-arm64 x86_64}"
}

# check_kernels: the kernels make check boots, a line "ARCH VARIANT" each:
# per arch the negative control (control_variant), the patched kernel
# (check_variant), the stress kernel when it is another one
# (stress_variant) and the option-off build for the parity checks
# (parity_arches) when it is not the control already. 30-build makes them;
# check.sh starts their builds early (tests/check.sh, prebuild).
check_kernels() {
	for ck_arch in arm64 x86_64; do
		ck_variants="$(control_variant "$ck_arch") $(check_variant "$ck_arch")"
		ck_more=$(stress_variant "$ck_arch")
		case " $(parity_arches) " in
		*" $ck_arch "*) ck_more="$ck_more off" ;;
		esac
		for ck_v in $ck_more; do
			case " $ck_variants " in
			*" $ck_v "*) ;;
			*) ck_variants="$ck_variants $ck_v" ;;
			esac
		done
		for ck_v in $ck_variants; do
			echo "$ck_arch $ck_v"
		done
	done
}

# control_name VARIANT: the negative control's name in TAP lines.
control_name() {
	case "$1" in
	debian) echo "unpatched kernel (Debian's own)" ;;
	off) echo "option-off kernel (patched tree, PREEMPT_DYNAMIC_ALL_MODES off)" ;;
	*) echo "unpatched kernel ($1 build)" ;;
	esac
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
