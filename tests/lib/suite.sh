# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The shape of a suite, after dracut's tests (test/TEST-*/test.sh define
# test_setup, test_run and test_cleanup, and the shared test-functions
# calls them). A file in tests/suites/ sources tests/lib/common.sh, then
# defines:
#
#   suite_setup    builds, fetches and lays out what its checks need, and
#                  prints no TAP: a step that fails calls `bail DESC [LOG]`
#                  (or goes through `need`), which ends the suite with
#                  "Bail out! DESC". tests/check.sh counts a bail-out as
#                  one failure, so a broken setup is never a passing test
#                  and never a silent skip.
#   suite_run      boots the guests and prints the TAP of its checks.
#   suite_cleanup  (optional) removes what setup made; runs on every exit.
#
# and ends with `suite_main`. A suite with nothing to set up defines only
# suite_run.

# bail DESC [LOG]: end the suite: "Bail out! DESC" and LOG's last 20 lines
# as diagnostics.
bail() {
	printf 'Bail out! %s\n' "$1"
	[ -z "${2:-}" ] || [ ! -s "$2" ] || tail -n 20 "$2" | sed 's/^/#   /'
	exit 1
}

# need DESC COMMAND...: a setup step. COMMAND's output goes to
# $BUILD/check-logs/SUITE-setup.log (the last step's); a failure bails out.
need() {
	need_desc=$1
	shift
	need_log=$BUILD/check-logs/$(basename "$0" .sh)-setup.log
	mkdir -p "$(dirname "$need_log")"
	"$@" >"$need_log" 2>&1 || bail "$need_desc" "$need_log"
}

# suite_main: suite_cleanup on exit (when the suite defines it), then
# suite_setup (when defined) and suite_run.
suite_main() {
	if command -v suite_cleanup >/dev/null 2>&1; then
		trap 'suite_cleanup' EXIT
	fi
	if command -v suite_setup >/dev/null 2>&1; then
		suite_setup
	fi
	suite_run
}
