#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The preemption-mode series in QEMU, arm64 and x86_64 (tests/kernel/):
# every preempt= boot value with the preempt_modes kselftest in each boot
# (listing, switching in every direction through sysfs and debugfs, bad
# values, non-root writes), and the latency proof that none defers
# preemption of a task busy in a system call. The unpatched kernel must fail
# the same boot tests, so they can fail. A short mode-switch stress run
# under load on arm64 (the debug-kernel run is make check-debug).
. tests/lib/common.sh

make -s patched-tree >/dev/null 2>&1 || { not_ok "prepare the patched tree"; exit 1; }
ksrc=$CACHE/trees/patched
for arch in arm64 x86_64; do
	patched=$(kernel_image "$arch" patched)
	base=$(kernel_image "$arch" base)
	if [ ! -f "$patched" ]; then
		not_ok "$arch mode tests (no patched kernel; see the build suite)"
		continue
	fi
	# Each boot prints its own TAP; check.sh numbers it into the stream.
	tests/kernel/run.sh -k "$ksrc" "$arch" "$patched" boot latency 2>"$BUILD/modes-$arch.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		if [ "$arch" = x86_64 ] &&
			grep -q 'Oops: int3\|Fatal exception' "$BUILD/modes-$arch.err"; then
			# Known: x86_64 guests under multi-threaded TCG oops after
			# runtime code patching, full<->lazy too (CHANGELOG).
			echo "not ok - $arch mode tests: $rc boot(s) oopsed during runtime switching # TODO x86_64 TCG oops after text_poke, see CHANGELOG Known issues"
			diag "$(grep -m 3 'RIP\|Oops\|Fatal' "$BUILD/modes-$arch.err")"
		else
			not_ok "$arch mode tests: $rc boot(s) failed (see $BUILD/modes-$arch.err)"
		fi
	fi
	if [ -f "$base" ]; then
		if tests/kernel/run.sh -k "$ksrc" "$arch" "$base" boot >"$BUILD/modes-$arch-base.out" 2>&1; then
			not_ok "$arch unpatched kernel fails the mode boot tests"
		else
			ok "$arch unpatched kernel fails the mode boot tests ($(grep -c '^not ok' "$BUILD/modes-$arch-base.out") failures)"
		fi
	fi
done

arch=arm64
if [ -f "$(kernel_image $arch patched)" ]; then
	SWITCHES=${SWITCHES:-1000} tests/kernel/run.sh -k "$ksrc" "$arch" \
		"$(kernel_image $arch patched)" stress 2>"$BUILD/stress-$arch.err" ||
		not_ok "$arch mode-switch stress under load"
fi
skip "x86_64 mode-switch stress under load" \
	"guest oopses with int3 in TCG after static-call/key switches, also full<->lazy only (upstream-possible); under investigation"
