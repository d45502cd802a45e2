#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The preemption-mode series in QEMU, arm64 and x86_64 (tests/kernel/):
# every preempt= boot value with the preempt_modes kselftest in each boot
# (listing, switching in every direction through sysfs and debugfs, bad
# values, non-root writes), and the installed sched kselftests
# (run_kselftest.sh) with the preempt_defer proof that none and voluntary
# defer preemption of a task busy in the kernel, which must fail when the
# busy loop calls cond_resched(). The unpatched kernel must fail
# the same boot tests, so they can fail. A mode-switch stress run under
# load on both arches, on the patched kernel (stress_variant; the debug
# kernel's longer stress is make check-debug).
#
# Guests run on the QEMU pinned in configs/qemu.lock (launch-vm.sh):
# Debian 12's QEMU 7.2 runs stale guest code after runtime patching under
# multi-threaded TCG (CHANGELOG, Known issues). Every x86_64 switch
# patches each inline static-call site (about 1 s per switch under TCG),
# so the x86_64 stress run is short: SWITCHES_X86_64. STRESS_SECONDS
# bounds each stress run (the guest stops switching then).
. tests/lib/common.sh

# MODES_ARCHES: the arches whose guests run (make check-mutants' kernel
# mutants rebuild arm64 only).
arches=${MODES_ARCHES:-arm64 x86_64}

suite_setup() {
	need "prepare the patched tree" make -s patched-tree
	ksrc=$CACHE/trees/patched
	for arch in $arches; do
		qemu=$(tests/rig/fetch-qemu.sh "$arch" 2>"$BUILD/fetch-qemu.err") ||
			bail "fetch the $arch QEMU pinned in configs/qemu.lock" "$BUILD/fetch-qemu.err"
		diag "QEMU for $arch guests: $("$qemu" --version | head -n 1)"
	done
}

# stress ARCH SWITCHES: switch through sysfs and debugfs under load.
stress() {
	st_kernel=$(kernel_image "$1" "$(stress_variant "$1")")
	if [ ! -f "$st_kernel" ]; then
		not_ok "$1 mode-switch stress under load (no kernel $st_kernel)"
		return
	fi
	if ! SWITCHES=$2 STRESS_SECONDS=${STRESS_SECONDS:-300} \
		tests/kernel/mode-guests.sh -k "$ksrc" "$1" "$st_kernel" \
		stress 2>"$BUILD/stress-$1.err"; then
		not_ok "$1 mode-switch stress under load (see $BUILD/stress-$1.err)"
		# CI keeps only this stream: the console tail says why.
		diag "$(tail -n 40 "$BUILD/stress-$1.err")"
	fi
}

suite_run() {
	for arch in $arches; do
		patched=$(kernel_image "$arch" "$(check_variant "$arch")")
		if [ ! -f "$patched" ]; then
			not_ok "$arch mode tests (no patched kernel; see the build suite)"
			continue
		fi
		# Each boot prints its own TAP; check.sh numbers it into the stream.
		tests/kernel/mode-guests.sh -k "$ksrc" "$arch" "$patched" boot kselftest 2>"$BUILD/modes-$arch.err"
		rc=$?
		if [ "$rc" -ne 0 ]; then
			not_ok "$arch mode tests: $rc boot(s) failed (see $BUILD/modes-$arch.err)"
			diag "$(tail -n 40 "$BUILD/modes-$arch.err")"
		fi
		# The behaviour test must fail when the busy loop has a preemption
		# point (the test module's resched=1): none and voluntary preempt it.
		tests/kernel/mode-guests.sh -k "$ksrc" "$arch" "$patched" kselftest-control \
			>"$BUILD/modes-$arch-control.out" 2>&1
		rc=$?
		worst=$(sed -n 's/^### FAIL(\([0-9]*\)).*/\1/p' "$BUILD/modes-$arch-control.out")
		[ "$rc" -eq 0 ] || rc=${worst:-1}
		vm_expect_fail "$arch preempt_defer fails when the busy loop calls cond_resched()" \
			"$rc" "$BUILD/modes-$arch-control.out"
		if unpatched_kernel "$arch" "$arch unpatched kernel fails the mode boot tests"; then
			# Every boot that failed must have failed its own checks (run.sh
			# prints "### FAIL(STATUS)"), not crashed, hung or splatted.
			tests/kernel/mode-guests.sh -k "$ksrc" "$arch" "$UNPATCHED_IMAGE" boot-short \
				>"$BUILD/modes-$arch-base.out" 2>&1
			rc=$?
			worst=0
			statuses=$(sed -n 's/^### FAIL(\([0-9]*\)).*/\1/p' "$BUILD/modes-$arch-base.out")
			for st in $statuses; do
				[ "$(vm_verdict "$st")" = fail ] || worst=$st
			done
			if [ "$rc" -ne 0 ]; then
				rc=1
				[ "$worst" -eq 0 ] || rc=$worst
			fi
			vm_expect_fail "$arch unpatched kernel fails the mode boot tests" "$rc" \
				"$BUILD/modes-$arch-base.out"
		fi
	done

	for arch in $arches; do
		case $arch in
		arm64) stress arm64 "${SWITCHES:-1000}" ;;
		x86_64) stress x86_64 "${SWITCHES_X86_64:-10}" ;;
		esac
	done
}

suite_main
