#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the boot/runtime checks (busybox sh, run as /t/guest.sh by the
# rig). The host passes on the kernel command line, next to preempt=:
#   expect_mode=MODE   the mode the kernel must have booted into
#   expect_warn=VALUE  a rejected preempt= value whose warning must be logged
#   kselftest=skip     no kselftest in this boot
# Then the preempt_modes kselftest runs (listing, switching in every
# direction through sysfs and debugfs, bad values, non-root write), and the
# kernel log must hold no splat. Prints TAP.
set -u
sysfs=/sys/kernel/preempt/mode
debugfs=/sys/kernel/debug/sched/preempt
# shellcheck source=../../lib/tap.sh
. ./tap.sh
# The current mode: [mode] in sysfs, (mode) in debugfs.
current() { sed -n 's/.*[[(]\([a-z]*\)[])].*/\1/p' "$1"; }

echo "TAP version 13"
echo "# kernel: $(uname -r) $(uname -m); cmdline: $(cat /proc/cmdline)"
echo "# sysfs: $(cat $sysfs 2>&1)"
echo "# debugfs: $(cat $debugfs 2>&1)"
dmesg | grep 'Dynamic Preempt' | sed 's/^/# log: /'

check "sysfs file exists, mode 0644, owned by root" \
	test "$(stat -c '%a %u' $sysfs 2>/dev/null)" = "644 0"
check "all four modes listed, the current one in brackets" \
	test "$(tr -d '[]' <$sysfs)" = "none voluntary full lazy"
check "sysfs and debugfs agree on the list and the current mode" \
	test "$(tr -d '[]' <$sysfs)" = "$(tr -d '()' <$debugfs | sed 's/ $//')" -a \
	"$(current $sysfs)" = "$(current $debugfs)"
if [ -n "${expect_mode:-}" ]; then
	check "booted into $expect_mode (sysfs: $(current $sysfs))" \
		test "$(current $sysfs)" = "$expect_mode"
	check "boot mode logged once" \
		test "$(dmesg | grep -c "Dynamic Preempt: $expect_mode\$")" = 1
fi
if [ -n "${expect_warn:-}" ]; then
	want="Dynamic Preempt: unsupported mode: $expect_warn"
	check "preempt=$expect_warn rejected with upstream's warning" \
		sh -c "dmesg | grep -qxF '$want' || dmesg | grep -q '] $want\$'"
	# Upstream hands a rejected value on to init as an unknown parameter;
	# the series leaves that alone (the fix is patches/fixes/0001, which
	# the test kernels do not carry).
	check "preempt=$expect_warn passed on to init's environment, as upstream does" \
		test "${preempt-unset}" = "$expect_warn"
	check "preempt=$expect_warn reported as an unknown parameter, as upstream does" \
		sh -c "dmesg | grep -q 'Unknown kernel command line parameters.*preempt=$expect_warn'"
fi

# The kselftest, its TAP shown as diagnostics. It switches through every
# mode from whichever one the kernel booted in, so the boots that check
# how a rejected or repeated preempt= value is parsed (kselftest=skip)
# leave it to the boots with one valid value: under TCG an x86_64 switch
# takes about a second, and the kselftest makes dozens.
if [ "${kselftest:-run}" != skip ]; then
	bin=./preempt_modes."$RIG_ARCH"
	$bin >/tmp/ks.out 2>&1
	rc=$?
	sed 's/^/# /' /tmp/ks.out
	check "kselftest preempt_modes (exit $rc)" test $rc = 0
	if [ -n "${expect_mode:-}" ]; then
		check "mode back to $expect_mode after the kselftest" \
			test "$(current $sysfs)" = "$expect_mode"
	fi
fi

splat='WARNING:|BUG:|Oops|Unable to handle|Call [Tt]race:|possible circular|inconsistent lock|suspicious RCU|sleeping function called|scheduling while atomic|KASAN|UBSAN|detected stalls|soft lockup|blocked for more than'
dmesg | grep -E "$splat" | head -20 | sed 's/^/# splat: /'
check "kernel log clean" sh -c "! dmesg | grep -qE '$splat'"
tap_done
