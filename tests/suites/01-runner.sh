#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Self-tests of the runner, tests/check.sh: a verdict that cannot fail
# proves nothing. Fake suites in a scratch directory, each a few printf
# lines, run through check.sh with their own BUILD and list of expected
# skips (CHECK_EXPECTED_SKIPS; check.sh given suites starts no kernel
# build): a plan that disagrees with its results, a SKIP the list does not
# allow in the run's configuration and a "not ok # TODO" each fail the run
# with a line that says why; a clean suite, the TAP of guests passed on,
# and the skips the list allows pass. The checks are on check.sh's exit
# status, its closing line and the line of the verdict.
. tests/lib/common.sh

# fake NAME LINES...: the suite $tmp/suites/NAME.sh printing LINES.
fake() {
	f_name=$1
	shift
	printf '%s\n' "$@" >"$tmp/suites/$f_name.tap"
	printf 'cat "%s"\n' "$tmp/suites/$f_name.tap" >"$tmp/suites/$f_name.sh"
}

suite_setup() {
	tmp=$(mktemp -d)
	mkdir -p "$tmp/suites"

	# The suite's own units (several plans first, cmocka's way), its
	# own result, then two guests' TAP passed on: one plans first
	# (kselftest_harness.h, stress-switch), one last (tap_done), each
	# followed by the suite's own result; a skip the list allows.
	fake 10-clean '1..2' 'ok 1 - unit a' 'ok 2 - unit b' '# ok - group' \
		'1..1' 'ok 1 - unit c' 'ok 1 - host check' '### guest one' \
		'TAP version 13' '1..2' 'ok 1 - guest one a' '# a comment' \
		'ok 2 - guest one b' '# Totals: pass:2' 'ok 2 - host after guest one' \
		'TAP version 13' 'ok 1 - guest two a' 'ok 2 - guest two b # SKIP no tool here' \
		'1..2' 'ok 3 - host after guest two'
	fake 11-plan-short '1..5' 'ok 1 - a' 'ok 2 - b' 'ok 3 - c' 'ok 4 - d'
	fake 12-plan-last 'ok 1 - a' 'ok 2 - b' 'ok 3 - c' '1..2'
	fake 13-guest-cut 'ok 1 - host' 'TAP version 13' '1..3' 'ok 1 - guest a' \
		'ok 2 - guest b' 'TAP version 13' 'ok 1 - next guest' '1..1'
	fake 14-skip-unexpected 'ok 1 - a' 'ok 2 - needs a tool # SKIP no tool'
	fake 15-skip-when 'ok 1 - arm64 thing # SKIP no arm64 control' \
		'ok 2 - narrowed case # SKIP not selected'
	fake 16-todo 'ok 1 - a' 'not ok 2 - b # TODO later'
	# The last line without its newline, and an exit status that no
	# failed test explains.
	printf "printf 'ok 1 - a\\\\nok 2 - b'\\nexit 3\\n" >"$tmp/suites/17-no-newline.sh"
	printf 'touch "%s/ran"\necho "ok 1 - ran"\n' "$tmp" >"$tmp/suites/18-marker.sh"

	printf '%s\t%s\t%s\t%s\n' \
		clean always '^guest two b # SKIP no tool here$' 'the fake guest lacks a tool' \
		skip-when control:arm64=none '^arm64 thing # SKIP no arm64 control$' 'arm64 has no control' \
		skip-when 'RUNNER_NARROW~^yes$' '^narrowed case # SKIP not selected$' 'a narrowed run' \
		>"$tmp/expected-skips"
	printf '%s\t%s\t%s\t%s\n' clean always '^x$' 'a good line' >"$tmp/bad-skips"
	printf '%s\t%s\t%s\n' clean always '^x$' >>"$tmp/bad-skips"
}

suite_cleanup() {
	rm -rf "${tmp:-}"
}

# runner FAKE [VAR=VALUE...]: the exit status of tests/check.sh on the
# fake suite FAKE (its output in $tmp/FAKE.tap, its stderr in
# $tmp/FAKE.err), with the environment VAR=VALUE.
runner() {
	r_fake=$1
	shift
	r_rc=0
	env BUILD="$tmp/build" CHECK_PREBUILD=no CHECK_EXPECTED_SKIPS="$tmp/expected-skips" \
		"$@" sh tests/check.sh "$tmp"/suites/[0-9][0-9]-"$r_fake".sh \
		>"$tmp/$r_fake.tap" 2>"$tmp/$r_fake.err" || r_rc=$?
	echo "$r_rc"
}

# expect DESC FAKE RC CLOSING LINE [VAR=VALUE...]: check.sh on FAKE exits
# RC, its last line is CLOSING, and one of its lines is LINE.
expect() {
	e_desc=$1 e_fake=$2 e_rc=$3 e_closing=$4 e_line=$5
	shift 5
	e_got=$(runner "$e_fake" "$@")
	why=
	[ "$e_got" = "$e_rc" ] || why="exit $e_got, want $e_rc"
	e_last=$(tail -n 1 "$tmp/$e_fake.tap")
	[ "$e_last" = "$e_closing" ] ||
		why="${why:+$why; }closing line '$e_last', want '$e_closing'"
	grep -qxF "$e_line" "$tmp/$e_fake.tap" || why="${why:+$why; }no line '$e_line'"
	if [ -z "$why" ]; then
		ok "$e_desc: exit $e_rc, '$e_closing'"
	else
		not_ok "$e_desc: $why"
		diag "$(cat "$tmp/$e_fake.tap" "$tmp/$e_fake.err")"
	fi
}

# list_entries_named: the entries of tests/expected-skips whose SUITE is
# no suite, or whose TEST does not name a description and its reason
# ("^DESC # SKIP REASON").
list_entries_named() {
	awk -F '\t+' '/^[ \t]*(#|$)/ { next }
		{ print FNR ": " $1 "\t" $3 }' tests/expected-skips |
		while IFS='	' read -r l_where l_test; do
			l_suite=${l_where#*: }
			set -- tests/suites/[0-9][0-9]-"$l_suite".sh
			[ -f "$1" ] || echo "line ${l_where%%:*}: no suite $l_suite"
			case "$l_test" in
			"^"*" # SKIP "?*) ;;
			*) echo "line ${l_where%%:*}: TEST '$l_test' is not '^DESC # SKIP REASON'" ;;
			esac
		done
}

suite_run() {
	expect "a clean suite with guests' TAP passed on (plans first and last) and an allowed SKIP passes" \
		clean 0 "9 passed, 0 failed, 1 skipped" "ok 9 - clean: guest two b # SKIP no tool here"
	expect "a plan 1..5 with 4 results after it fails the run" \
		plan-short 1 "4 passed, 1 failed, 0 skipped" "not ok 5 - plan-short: plan 1..5 but 4 results"
	expect "a plan 1..2 after 3 results fails the run" \
		plan-last 1 "3 passed, 1 failed, 0 skipped" "not ok 4 - plan-last: plan 1..2 but 3 results"
	expect "a guest's plan 1..3 cut short by the next guest's TAP fails the run" \
		guest-cut 1 "4 passed, 1 failed, 0 skipped" \
		"not ok 4 - guest-cut: plan 1..3 but 2 results before the next TAP version line"
	expect "a SKIP not on the list fails the run" \
		skip-unexpected 1 "1 passed, 1 failed, 0 skipped" \
		"not ok 2 - skip-unexpected: needs a tool: SKIP (no tool) not allowed by $tmp/expected-skips"
	expect "SKIPs allowed in the run's configuration (control:arm64=none, RUNNER_NARROW~^yes\$) pass" \
		skip-when 0 "0 passed, 0 failed, 2 skipped" "ok 2 - skip-when: narrowed case # SKIP not selected" \
		UNPATCHED_ARCHES= OFF_CONTROL_ARCHES= DEBIAN_CONTROL_ARCHES=x86_64 RUNNER_NARROW=yes
	expect "a SKIP for a missing arm64 control fails a run that has one (UNPATCHED_ARCHES=arm64)" \
		skip-when 1 "0 passed, 1 failed, 1 skipped" \
		"not ok 1 - skip-when: arm64 thing: SKIP (no arm64 control) not allowed by $tmp/expected-skips" \
		UNPATCHED_ARCHES=arm64 DEBIAN_CONTROL_ARCHES=x86_64 RUNNER_NARROW=yes
	expect "a SKIP allowed only in a narrowed run fails a run without RUNNER_NARROW" \
		skip-when 1 "0 passed, 1 failed, 1 skipped" \
		"not ok 2 - skip-when: narrowed case: SKIP (not selected) not allowed by $tmp/expected-skips" \
		UNPATCHED_ARCHES= OFF_CONTROL_ARCHES= DEBIAN_CONTROL_ARCHES=x86_64 RUNNER_NARROW=
	expect "a failed test marked TODO fails the run" \
		todo 1 "1 passed, 1 failed, 0 skipped" \
		"not ok 2 - todo: b: failed, marked TODO (later): a TODO counts as a failure"
	expect "a suite that exits 3 after a last line without newline fails the run" \
		no-newline 1 "2 passed, 1 failed, 0 skipped" \
		"not ok 3 - no-newline: exited 3 without reporting a failure"

	# A wrong list stops check.sh before any suite runs.
	rc=$(runner marker CHECK_EXPECTED_SKIPS="$tmp/bad-skips")
	want="check.sh: $tmp/bad-skips:2: want 4 fields separated by tabs (SUITE WHEN TEST WHY), found 3"
	if [ "$rc" = 2 ] && grep -qxF "$want" "$tmp/marker.err" && [ ! -e "$tmp/ran" ] &&
		[ ! -s "$tmp/marker.tap" ]; then
		ok "a malformed list of expected skips stops check.sh (exit 2) before any suite runs: $want"
	else
		not_ok "a malformed list of expected skips stops check.sh before any suite runs (exit $rc, want 2 and '$want')"
		diag "$(cat "$tmp/marker.tap" "$tmp/marker.err")"
	fi

	bad=$(list_entries_named)
	if [ -z "$bad" ]; then
		ok "every entry of tests/expected-skips names a suite and anchors its TEST on a description and a reason"
	else
		not_ok "every entry of tests/expected-skips names a suite and anchors its TEST on a description and a reason"
		diag "$bad"
	fi
}

suite_main
