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
# verdict "fail" (vm_expect_fail), never "any non-zero status": a crash, a
# timeout or a rig error is not the failure such a check is looking for.

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

# vm_expect_fail DESC RC OUTPUT: one TAP line for a guest that must fail
# its own checks: verdict "fail" and at least one "not ok" line in the
# file OUTPUT (its standard output).
vm_expect_fail() {
	ef_verdict=$(vm_verdict "$2")
	ef_fails=$(grep -c '^not ok' "$3" 2>/dev/null || true)
	if [ "$ef_verdict" = fail ] && [ "${ef_fails:-0}" -gt 0 ]; then
		ok "$1 ($ef_fails failures)"
	else
		not_ok "$1 (verdict $ef_verdict, exit $2, ${ef_fails:-0} failures; want verdict fail with failures)"
		diag "$(tail -n 20 "$3" 2>/dev/null)"
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
