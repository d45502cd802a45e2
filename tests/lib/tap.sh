# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# TAP for every test script: the host suites (through tests/lib/common.sh),
# the policy tool's fixture tests and the guest scripts (busybox sh; the
# file is packed next to them: /t/tap.sh in the rig's initramfs, and in
# the PostgreSQL root's /t). POSIX sh.
#
#   ok DESC                  ok N - DESC
#   not_ok DESC              not ok N - DESC (counted in TAP_FAILED)
#   skip DESC REASON...      ok N - DESC # SKIP REASON
#   diag LINE...             each line (of each argument) as "# LINE"
#   result RC DESC [DIAG]    ok if RC is 0, else not ok with DIAG's last
#                            30 lines as diagnostics
#   check DESC COMMAND...    ok if COMMAND exits 0, else not ok with its
#                            output's last 40 lines as diagnostics
#   tap_plan                 the plan line 1..N, for the tests so far
#   tap_done                 the plan line; returns 1 if a test failed
#                            (a guest script ends with it: its exit
#                            status is the verdict)
# tests/check.sh renumbers the lines of each suite into one stream.

TAP_N=0
TAP_FAILED=0

ok() {
	TAP_N=$((TAP_N + 1))
	printf 'ok %d - %s\n' "$TAP_N" "$*"
}

not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	printf 'not ok %d - %s\n' "$TAP_N" "$*"
}

skip() {
	tap_desc=$1
	shift
	TAP_N=$((TAP_N + 1))
	printf 'ok %d - %s # SKIP %s\n' "$TAP_N" "$tap_desc" "$*"
}

diag() {
	printf '%s\n' "$@" | sed 's/^/# /'
}

# tap_indent MAX TEXT: TEXT's last MAX lines as indented diagnostics
tap_indent() {
	[ -z "$2" ] || printf '%s\n' "$2" | tail -n "$1" | sed 's/^/#   /'
}

result() {
	if [ "$1" = 0 ]; then
		ok "$2"
	else
		not_ok "$2"
		tap_indent 30 "${3:-}"
	fi
}

check() {
	tap_desc=$1
	shift
	if tap_out=$("$@" 2>&1); then
		ok "$tap_desc"
	else
		not_ok "$tap_desc"
		tap_indent 40 "$tap_out"
	fi
}

tap_plan() {
	echo "1..$TAP_N"
}

tap_done() {
	tap_plan
	[ "$TAP_FAILED" -eq 0 ]
}
