#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host driver for the preemption-mode guest tests:
#   tests/kernel/run.sh [-k KSRC] [-d DEFAULT] ARCH IMAGE SUITE...
# SUITE: boot     every preempt= value (none voluntary full lazy, none, and
#                 rejected ones) + the preempt_modes kselftest in each boot
#        boot-short  the default boot and preempt=none only (enough to show
#                 that an unpatched kernel fails the kselftest)
#        latency  preempt_none_latency (none vs full vs lazy)
#        stress   stress-switch (SWITCHES=N, default 3000 per interface;
#                 STRESS_SECONDS, default 600: the guest's time limit)
# KSRC is the patched kernel tree holding the kselftests (default: the dev
# tree); DEFAULT the build-time default mode of IMAGE (default lazy).
# Static test binaries are compiled into a temporary test directory.
# Exit status: number of failed boots.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rig=$here/../rig
# shellcheck source=../rig/lib.sh
. "$rig/lib.sh"

ksrc=$HOME/.cache/preempt-modes/dev/linux default=lazy
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
case $arch in
arm64) cc=aarch64-linux-gnu-gcc guest=aarch64 ;;
x86_64) cc=gcc guest=x86_64 ;;
*) die "unsupported ARCH $arch" ;;
esac
st=$ksrc/tools/testing/selftests
[ -f "$st/sched/preempt_modes.c" ] || die "no preempt_modes.c under $st/sched"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build() { # build DIR NAME SOURCE
	mkdir -p "$work/$1"
	cp "$here/$1/run" "$work/$1/"
	$cc -static -O2 -Wall -D_GNU_SOURCE= -I "$st" -o "$work/$1/$2.$guest" "$3"
}

stress_seconds=${STRESS_SECONDS:-600}
case $stress_seconds in
'' | *[!0-9]*) die "STRESS_SECONDS must be a number of seconds, not '$stress_seconds'" ;;
esac
failed=0
boot() { # boot SUITE APPEND [TIMEOUT]
	printf '### %s %s: %s\n' "$arch" "$1" "$2"
	if "$rig/guest-run.sh" --arch "$arch" --kernel "$image" \
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
		build modes preempt_modes "$st/sched/preempt_modes.c"
		boot modes "expect_mode=$default"
		for m in none voluntary full lazy; do
			boot modes "preempt=$m expect_mode=$m"
		done
		for bad in bogus NONE Lazy 'none,'; do
			boot modes "preempt=$bad expect_mode=$default expect_warn=$bad"
		done
		# A later valid value wins over an earlier one.
		boot modes "preempt=full preempt=none expect_mode=none"
		;;
	boot-short)
		build modes preempt_modes "$st/sched/preempt_modes.c"
		boot modes "expect_mode=$default"
		boot modes "preempt=none expect_mode=none"
		;;
	latency)
		build latency preempt_none_latency "$st/sched/preempt_none_latency.c"
		boot latency "" 900
		;;
	stress)
		build stress stress-switch "$here/stress/stress-switch.c"
		# The guest stops switching after STRESS_SECONDS; the host
		# timeout leaves room for the boot and the checks after it, so
		# that a hung guest fails in minutes, not in an hour.
		boot stress "loglevel=4 switches=${SWITCHES:-3000} max_seconds=$stress_seconds" \
			$((stress_seconds + 240))
		;;
	*) die "unknown suite $suite" ;;
	esac
done
exit "$failed"
