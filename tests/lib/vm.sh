# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The verdicts of a guest boot, for every host-side caller of
# tests/rig/launch-vm.sh. Its exit status is one of:
#   0        pass      the guest script exited 0, no splat in the kernel log
#   1-119    fail      the guest script's own non-zero status
#   120      error     the rig could not start the guest (bad arguments, no
#                      kernel image, no QEMU, initramfs not built)
#   124      timeout   QEMU was killed at --timeout
#   125      nostatus  no status came back (crash, panic, lost port)
#   126      splat     the guest passed but the kernel log has a WARNING,
#                      BUG, KASAN, lockdep or similar report
# Only "pass" passes. A check that expects a guest to fail expects the
# verdict "fail" with the failures it names (vm_expect_fail), never "any
# non-zero status": a crash, a timeout, a rig error or another test's
# failure is not the failure such a check is looking for.

# vm_verdict RC: the verdict word for launch-vm.sh exit status RC.
vm_verdict() {
	case "$1" in
	0) echo pass ;;
	120) echo error ;;
	124) echo timeout ;;
	125) echo nostatus ;;
	126) echo splat ;;
	*[!0-9]* | '') echo error ;;
	*)
		if [ "$1" -ge 1 ] && [ "$1" -le 119 ]; then
			echo fail
		else
			echo error
		fi
		;;
	esac
}

# vm_says RC: "verdict WORD, exit RC", for messages about a guest.
vm_says() {
	echo "verdict $(vm_verdict "$1"), exit $1"
}

# vm_expect_fail DESC RC OUTPUT EXPECTED...: one TAP line for a guest that
# must fail its own checks, and those only: verdict "fail", each EXPECTED
# (an extended regex, matched against the description of every "not ok"
# line of the file OUTPUT, the guest's standard output) matching at least
# one failure, and every failure matched by one EXPECTED. A control that
# fails for another reason (a test module that does not load, a crash of
# the test program) proves nothing about the checks it stands for.
vm_expect_fail() {
	ef_desc=$1 ef_rc=$2 ef_out=$3
	shift 3
	if [ $# -eq 0 ]; then
		not_ok "$ef_desc (vm_expect_fail: no expected failure named)"
		return
	fi
	ef_verdict=$(vm_verdict "$ef_rc")
	# The descriptions: "not ok N - DESC" or "not ok N DESC" (kselftest).
	ef_failed=$(sed -n 's/^not ok[[:space:]]*[0-9]*[[:space:]]*-\{0,1\}[[:space:]]*//p' \
		"$ef_out" 2>/dev/null)
	ef_missing=
	for ef_want in "$@"; do
		printf '%s\n' "$ef_failed" | grep -Eq -- "$ef_want" ||
			ef_missing="$ef_missing '$ef_want'"
	done
	ef_unexpected=$(printf '%s\n' "$ef_failed" | while IFS= read -r ef_line; do
		[ -n "$ef_line" ] || continue
		for ef_want in "$@"; do
			printf '%s\n' "$ef_line" | grep -Eq -- "$ef_want" && continue 2
		done
		printf " '%s'" "$ef_line"
	done)
	ef_count=$(printf '%s\n' "$ef_failed" | grep -c .)
	if [ "$ef_verdict" = fail ] && [ -z "$ef_missing" ] && [ -z "$ef_unexpected" ]; then
		ok "$ef_desc ($ef_count failures, each one expected)"
	else
		ef_why=
		[ "$ef_verdict" = fail ] || ef_why="; want verdict fail"
		not_ok "$ef_desc (verdict $ef_verdict, exit $ef_rc, $ef_count failures$ef_why${ef_missing:+; missing:$ef_missing}${ef_unexpected:+; unexpected:$ef_unexpected})"
		diag "$(tail -n 20 "$ef_out" 2>/dev/null)"
	fi
}

# vm_expect_pass DESC RC OUTPUT [LOG...]: for a guest that prints its own
# TAP into OUTPUT (its standard output), which the caller passes on.
# Returns 0 when the verdict is "pass". A "fail" with a "not ok" line in
# OUTPUT has reported its failure already; any other verdict (a "fail"
# without one, timeout, nostatus, splat, error) adds one failure, DESC's,
# with the tails of the LOGs. Returns 1 for all of those.
vm_expect_pass() {
	ep_desc=$1 ep_rc=$2 ep_out=$3
	shift 3
	ep_verdict=$(vm_verdict "$ep_rc")
	[ "$ep_verdict" = pass ] && return 0
	if [ "$ep_verdict" != fail ] || ! grep -q '^not ok' "$ep_out" 2>/dev/null; then
		not_ok "$ep_desc: verdict $ep_verdict (exit $ep_rc) without a failed test"
		for ep_log in "$@"; do
			diag "$(tail -n 20 "$ep_log" 2>/dev/null)"
		done
	fi
	return 1
}
