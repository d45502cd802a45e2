#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host driver for the preemption-mode guest tests:
#   tests/kernel/mode-guests.sh [-k KSRC] [-d DEFAULT] ARCH IMAGE SUITE...
# SUITE: boot     every preempt= value (none voluntary full lazy, none, and
#                 rejected ones); the preempt_modes kselftest once from
#                 each mode (the boot without preempt= and none,
#                 voluntary, full, lazy but the default)
#        boot-short  the default boot and preempt=none only (enough to show
#                 that an unpatched kernel fails the kselftest)
#        kselftest  one boot running the installed kselftests of
#                 tools/testing/selftests/sched (run_kselftest.sh):
#                 preempt_modes and the preempt_defer behaviour test
#        kselftest-control  the same with the test module's busy loop
#                 calling cond_resched() (busy_resched=1): preempt_defer
#                 must fail there, which shows that it can
#        stress   stress-switch (SWITCHES=N, default 3000 per interface,
#                 all of which must happen; STRESS_SECONDS, default 600:
#                 the guest's time limit;
#                 STRESS_APPEND: more of its command line, such as
#                 "modes=full,lazy debugfs_only=1" for an unpatched kernel)
# KSRC is the patched kernel tree holding the kselftests (default: make
# patched-tree's, $PREEMPT_CACHE/trees/patched); DEFAULT the build-time default mode of IMAGE (default lazy). The
# kselftests are built and installed with the selftests' own Makefile
# (static binaries; the test module against IMAGE's object directory,
# which must be the directory above arch/) into a temporary directory.
# Exit status: number of failed boots.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rig=$here/../rig
# shellcheck source=../rig/lib.sh
. "$rig/lib.sh"

ksrc=$(cache_dir)/trees/patched default=lazy
while getopts k:d: opt; do
	case $opt in
	k) ksrc=$OPTARG ;;
	d) default=$OPTARG ;;
	*) die "usage: run.sh [-k KSRC] [-d DEFAULT] ARCH IMAGE SUITE..." ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || die "usage: run.sh [-k KSRC] [-d DEFAULT] ARCH IMAGE SUITE..."
arch=$1 image=$2
shift 2
cc=$(guest_cc "$arch") || exit 1
guest=$(arch_info "$arch" uname)
kobj=${image%/arch/*}
st=$ksrc/tools/testing/selftests
[ -f "$st/sched/preempt_modes.c" ] || die "no preempt_modes.c under $st/sched"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build() { # build DIR NAME SOURCE
	mkdir -p "$work/$1"
	cp "$here/$1/guest.sh" "$here/../lib/tap.sh" "$work/$1/"
	$cc -static -O2 -Wall -D_GNU_SOURCE= -I "$st" -o "$work/$1/$2.$guest" "$3"
}
# ks_install: make -C tools/testing/selftests TARGETS=sched install, static
# programs, the test module built against IMAGE's objects; into $work/ks.
ks_install() {
	[ -d "$work/ks" ] && return 0
	[ -f "$kobj/.config" ] || die "no kernel objects at $kobj (for the test module)"
	if ! sched_kselftests_install "$arch" "$ksrc" "$kobj" "$work/ks-build" \
		"$work/ks" >"$work/ks.log" 2>&1; then
		cat "$work/ks.log" >&2
		die "make -C tools/testing/selftests TARGETS=sched install failed"
	fi
	[ -f "$work/ks/sched/test_modules/test_preempt_busy.ko" ] ||
		die "the kselftest install has no test_preempt_busy.ko"
}
# ks_dir DIR [trial]: a guest directory with DIR/guest.sh and the installed
# kselftests; with "trial" also preempt-policy, static, for its latency
# trial beside the test module's busy loop (arm64).
ks_dir() {
	ks_install
	mkdir -p "$work/$1"
	cp "$here/kselftest/guest.sh" "$here/../lib/tap.sh" "$work/$1/"
	cp -R "$work/ks" "$work/$1/ks"
	# Not on x86_64: under TCG its static-call patching waits for the busy
	# writers, and each switch of the trial took 40-70 s of guest time
	# (one run, 2026-12-08: past the boot's 900 s).
	[ "${2:-}" = trial ] && [ "$arch" != x86_64 ] || return 0
	make -s -C "$here/../../policy" static CC="$cc" OUT="$work/$1/preempt-policy" \
		>"$work/policy-static.log" 2>&1 ||
		{ cat "$work/policy-static.log" >&2; die "make -C policy static CC=$cc failed"; }
}

# modes_dir: the boot suites' guest directory with the preempt_modes
# kselftest, compiled on its own: the boot suites also run on the
# unpatched kernel, which has no module support for the full install.
modes_dir() {
	build modes preempt_modes "$st/sched/preempt_modes.c"
}

stress_seconds=${STRESS_SECONDS:-600}
case $stress_seconds in
'' | *[!0-9]*) die "STRESS_SECONDS must be a number of seconds, not '$stress_seconds'" ;;
esac
failed=0
boot() { # boot SUITE APPEND [TIMEOUT]
	printf '### %s %s: %s\n' "$arch" "$1" "$2"
	if "$rig/launch-vm.sh" --arch "$arch" --kernel "$image" \
		--append "$2" --timeout "${3:-300}" "$work/$1"; then
		printf '### PASS %s %s: %s\n' "$arch" "$1" "$2"
	else
		printf '### FAIL(%s) %s %s: %s\n' "$?" "$arch" "$1" "$2"
		failed=$((failed + 1))
	fi
}

for suite in "$@"; do
	case $suite in
	boot)
		modes_dir
		boot modes "expect_mode=$default"
		# The kselftest switches from the mode the kernel booted in:
		# once from each. preempt=DEFAULT starts where the boot
		# without preempt= did, so it only checks the mode.
		for m in none voluntary full lazy; do
			ks=
			[ "$m" != "$default" ] || ks=" kselftest=skip"
			boot modes "preempt=$m expect_mode=$m$ks"
		done
		# The parsing boots check the mode and the warning; the
		# kselftest ran in the boots above.
		for bad in bogus NONE Lazy 'none,'; do
			boot modes "preempt=$bad expect_mode=$default expect_warn=$bad kselftest=skip"
		done
		# A later valid value wins over an earlier one.
		boot modes "preempt=full preempt=none expect_mode=none kselftest=skip"
		;;
	boot-short)
		modes_dir
		boot modes "expect_mode=$default"
		boot modes "preempt=none expect_mode=none"
		;;
	kselftest)
		ks_dir kselftest trial
		boot kselftest "" 900
		;;
	kselftest-control)
		ks_dir kselftest-control
		boot kselftest-control "busy_resched=1" 900
		;;
	stress)
		build stress stress-switch "$here/stress/stress-switch.c"
		# The guest stops switching after STRESS_SECONDS; the host
		# timeout leaves room for the boot and the checks after it, so
		# that a hung guest fails in minutes, not in an hour.
		boot stress "loglevel=4 switches=${SWITCHES:-3000} max_seconds=$stress_seconds${STRESS_APPEND:+ $STRESS_APPEND}" \
			$((stress_seconds + 240))
		;;
	*) die "unknown suite $suite" ;;
	esac
done
exit "$failed"
