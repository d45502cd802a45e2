#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [SUITE...]
# Run the test suites (tests/suites/NN-*.sh, in order, or the ones named),
# merge their TAP into one stream numbered from 1, and end with the line
# "N passed, N failed, N skipped". A suite that exits non-zero without
# reporting a failure, or that reports no test at all, counts as a failure:
# a broken suite must not look green. So does a suite's "Bail out!" (its
# setup failed: tests/lib/suite.sh).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
logdir=${BUILD:-$top/build}/check-logs
mkdir -p "$logdir"

if [ $# -gt 0 ]; then
	suites=$*
else
	suites=$(ls tests/suites/[0-9][0-9]-*.sh)
fi

# Counters live in a private directory: the per-suite loop runs in a
# subshell, and several check.sh may run at once.
state=$(mktemp -d)
prebuild_pid=
trap 'rm -rf "$state"' EXIT
trap '[ -z "$prebuild_pid" ] || kill "$prebuild_pid" 2>/dev/null; exit 130' INT TERM

# prebuild: on a run of every suite, the kernels the build suite makes
# (check_kernels) start building at once, at nice 19, beside the suites
# before it: those are mostly single-threaded (cppcheck, clang-tidy,
# lintian, olddefconfig) and leave a core idle, which the builds take.
# 30-build waits for them (flock on CHECK_PREBUILD_LOCK), then runs make
# itself: an up-to-date check, or the rest of a build that failed here,
# so its TAP lines say what happened. CHECK_PREBUILD=no turns it off.
prebuild() {
	lock=$logdir/prebuild.lock
	log=$logdir/prebuild.log
	# The tree first, in the foreground: the early suites prepare it too.
	if ! make -s patched-tree >"$log" 2>&1; then
		echo "# prebuild: make patched-tree failed (see $log); the build suite builds alone"
		return
	fi
	targets=$(sh -c '. tests/lib/common.sh && check_kernels' |
		sed 's/^\(.*\) \(.*\)$/kernel-\1-\2/' | tr '\n' ' ')
	exec 9>"$lock"
	flock 9
	# In check.sh's own session: with autogroup scheduling a new session
	# is a new group, which nice does not reach (the early suites ran
	# up to three times slower beside a setsid build). make and its
	# children inherit fd 9 and so hold the lock until the last of them
	# is done.
	# shellcheck disable=SC2086 # one word per target
	nice -n 19 make -s $targets >>"$log" 2>&1 &
	prebuild_pid=$!
	exec 9>&-
	CHECK_PREBUILD_LOCK=$lock CHECK_PREBUILD_LOG=$log
	export CHECK_PREBUILD_LOCK CHECK_PREBUILD_LOG
	echo "# prebuild: ${targets% } started (see $log)"
}
counts=$state/counts
echo "0 0 0" >"$counts"

# bump FILE: add one to the count kept in FILE (missing: 0)
bump() {
	echo $(($(cat "$1" 2>/dev/null || echo 0) + 1)) >"$1"
}
echo "TAP version 13"
start_all=$(date +%s)
[ $# -gt 0 ] || [ "${CHECK_PREBUILD:-yes}" = no ] || prebuild
for suite in $suites; do
	name=$(basename "$suite" .sh)
	name=${name#[0-9][0-9]-}
	echo "# suite $name"
	start=$(date +%s)
	{ sh "$suite" 2>"$logdir/$name.err"; echo "suite-exit: $?"; } |
	while IFS= read -r line; do
		read -r n_pass n_fail n_skip <"$counts"
		case "$line" in
		"suite-exit: "*)
			rc=${line#suite-exit: }
			total=$(cat "$state/suite" 2>/dev/null || echo 0)
			fails=$(cat "$state/suitefail" 2>/dev/null || echo 0)
			rm -f "$state/suite" "$state/suitefail"
			if [ "$total" -eq 0 ]; then
				n_fail=$((n_fail + 1))
				echo "not ok $((n_pass + n_fail + n_skip)) - $name: ran no test (exit $rc, see $logdir/$name.err)"
				tail -n 20 "$logdir/$name.err" | sed 's/^/#   /'
			elif [ "$rc" -ne 0 ] && [ "$fails" -eq 0 ]; then
				n_fail=$((n_fail + 1))
				echo "not ok $((n_pass + n_fail + n_skip)) - $name: exited $rc without reporting a failure"
				tail -n 20 "$logdir/$name.err" | sed 's/^/#   /'
			fi
			;;
		"ok "* | "not ok "* | ok | "not ok")
			# Drop the suite's own number, keep the description.
			desc=$(printf '%s\n' "$line" |
				sed -e 's/^\(not \)\{0,1\}ok[[:space:]]*[0-9]*[[:space:]]*-\{0,1\}[[:space:]]*//')
			bump "$state/suite"
			case "$line" in
			"not ok"*)
				if printf '%s' "$line" | grep -q '# *TODO'; then
					n_pass=$((n_pass + 1))
				else
					n_fail=$((n_fail + 1))
					bump "$state/suitefail"
				fi
				echo "not ok $((n_pass + n_fail + n_skip)) - $name: $desc"
				;;
			*)
				if printf '%s' "$line" | grep -qi '# *SKIP'; then
					n_skip=$((n_skip + 1))
				else
					n_pass=$((n_pass + 1))
				fi
				echo "ok $((n_pass + n_fail + n_skip)) - $name: $desc"
				;;
			esac
			;;
		"Bail out!"*)
			# A suite's setup failed (tests/lib/suite.sh, bail): one
			# failure, with the reason; the suite stops there.
			n_fail=$((n_fail + 1))
			bump "$state/suite"
			bump "$state/suitefail"
			reason=${line#Bail out!}
			echo "not ok $((n_pass + n_fail + n_skip)) - $name: setup failed: ${reason# }"
			;;
		"TAP version"* | [0-9]*..[0-9]*)
			;;
		*)
			# Diagnostics and anything else, as TAP comments.
			case "$line" in
			"#"*) echo "$line" ;;
			*) echo "# $line" ;;
			esac
			;;
		esac
		echo "$n_pass $n_fail $n_skip" >"$counts"
	done
	echo "# suite $name took $(($(date +%s) - start)) s"
done
read -r n_pass n_fail n_skip <"$counts"
echo "1..$((n_pass + n_fail + n_skip))"
echo "# all suites took $(($(date +%s) - start_all)) s"
echo "$n_pass passed, $n_fail failed, $n_skip skipped"
[ "$n_fail" -eq 0 ]
