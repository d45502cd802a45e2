#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [SUITE...]
# Run the test suites (tests/suites/NN-*.sh, in order, or the ones named),
# merge their TAP into one stream numbered from 1, and end with the line
# "N passed, N failed, N skipped". A broken suite must not look green, so
# these count as failures too (tests/README.md, TAP):
# - a suite that exits non-zero without reporting a failure, or that
#   reports no test at all; its "Bail out!" (its setup failed:
#   tests/lib/suite.sh);
# - a plan (1..N) that disagrees with the results it counts;
# - "not ok ... # TODO": the project keeps no known failure;
# - a SKIP that the list of expected skips (tests/expected-skips, or
#   CHECK_EXPECTED_SKIPS) does not allow in this configuration.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
logdir=${BUILD:-$top/build}/check-logs
mkdir -p "$logdir"
skiplist=${CHECK_EXPECTED_SKIPS:-tests/expected-skips}

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

# load_expected_skips: the entries of $skiplist (format: its header) that
# this run allows, as "SUITE<tab>ERE<tab>WHY" lines in $state/skips.
# Returns 1, naming the file and line, on an entry it cannot read: a list
# that is wrong must not let a skip through.
load_expected_skips() {
	if [ ! -r "$skiplist" ]; then
		echo "check.sh: cannot read the list of expected skips '$skiplist'" >&2
		return 1
	fi
	# Each arch's negative control, as the suites choose it.
	controls=$(sh -c '. tests/lib/common.sh &&
		for a in arm64 x86_64; do printf "%s=%s " "$a" "$(control_variant "$a")"; done') ||
		return 1
	CHECK_CONTROLS=$controls awk -F '\t+' -v list="$skiplist" '
	function bad(why) {
		printf "check.sh: %s:%d: %s\n", list, NR, why >"/dev/stderr"
		errors++
	}
	BEGIN {
		n = split(ENVIRON["CHECK_CONTROLS"], c, " ")
		for (i = 1; i <= n; i++) {
			split(c[i], kv, "=")
			control[kv[1]] = kv[2] == "" ? "none" : kv[2]
		}
	}
	/^[ \t]*(#|$)/ { next }
	NF != 4 {
		bad("want 4 fields separated by tabs (SUITE WHEN TEST WHY), found " NF)
		next
	}
	$1 !~ /^[a-z0-9][a-z0-9-]*$/ {
		bad("SUITE \"" $1 "\" is not a suite name (tests/suites/NN-NAME.sh: NAME)")
		next
	}
	{
		# Compiles the regex here, before any suite runs.
		if ("" ~ $3) {
			bad("TEST \"" $3 "\" matches any text")
			next
		}
		when = $2
		if (when == "always") {
			allowed = 1
		} else if (when ~ /^control:[a-z0-9_]+=[a-z]+$/) {
			arch = substr(when, 9)
			sub(/=.*/, "", arch)
			variant = when
			sub(/^[^=]*=/, "", variant)
			if (!(arch in control)) {
				bad("WHEN \"" when "\": no arch " arch)
				next
			}
			if (variant !~ /^(base|debian|off|none)$/) {
				bad("WHEN \"" when "\": a control is base, debian, off or none")
				next
			}
			allowed = control[arch] == variant
		} else if (when ~ /^[A-Za-z_][A-Za-z0-9_]*~./) {
			var = when
			sub(/~.*/, "", var)
			ere = substr(when, length(var) + 2)
			allowed = ENVIRON[var] ~ ere
		} else {
			bad("WHEN \"" when "\" is not always, control:ARCH=VARIANT or VAR~ERE")
			next
		}
		if (allowed)
			print $1 "\t" $3 "\t" $4
	}
	END { exit errors > 0 }' "$skiplist" >"$state/skips"
}

# skip_allowed TEXT: an entry of $state/skips allows the SKIP of suite
# $name whose TAP text (after "ok N - ") is TEXT; prints the entry's WHY.
skip_allowed() {
	SKIP_TEXT=$1 awk -F '\t' -v suite="$name" '
		$1 == suite && ENVIRON["SKIP_TEXT"] ~ $2 { print $3; found = 1; exit }
		END { exit !found }' "$state/skips"
}

# strip_blanks: drop the leading blanks of $rest.
strip_blanks() {
	rest=${rest#"${rest%%[![:space:]]*}"}
}

# parse_result LINE: a result line's parts: status (pass or fail), text
# (the line after "ok N - "), and its directive (SKIP, TODO or none), the
# description before it (desc) and the directive's reason. No fork: the
# stream has hundreds of lines.
parse_result() {
	case "$1" in
	"not ok"*)
		status=fail
		rest=${1#not ok}
		;;
	*)
		status=pass
		rest=${1#ok}
		;;
	esac
	strip_blanks
	rest=${rest#"${rest%%[!0-9]*}"}
	strip_blanks
	rest=${rest#-}
	strip_blanks
	text=$rest
	# The directive: the first "#" followed by SKIP or TODO, in any case.
	directive='' desc='' reason=''
	before=
	while :; do
		case "$rest" in
		*"#"*) ;;
		*) break ;;
		esac
		before=$before${rest%%#*}
		rest=${rest#*#}
		strip_blanks
		case "$rest" in
		[Ss][Kk][Ii][Pp]*) directive=SKIP ;;
		[Tt][Oo][Dd][Oo]*) directive=TODO ;;
		*)
			before=$before#
			continue
			;;
		esac
		desc=${before%"${before##*[![:space:]]}"}
		rest=${rest#"${rest%%[![:alpha:]]*}"}
		strip_blanks
		reason=$rest
		break
	done
}

# emit KIND TAPLINE: one result in the merged stream, numbered; KIND is
# pass, fail or skip.
emit() {
	case "$1" in
	pass) n_pass=$((n_pass + 1)) ;;
	fail) n_fail=$((n_fail + 1)) ;;
	skip) n_skip=$((n_skip + 1)) ;;
	esac
	case "$1" in
	fail) echo "not ok $((n_pass + n_fail + n_skip)) - $name: $2" ;;
	*) echo "ok $((n_pass + n_fail + n_skip)) - $name: $2" ;;
	esac
}

# Plans. A suite's stream holds its own results and the TAP of the
# programs and guests it passes on (cmocka's groups, guest scripts,
# kselftests), one after another, several with a plan: a plan before any
# result since the last boundary (the suite's start, a "TAP version" line,
# the end of another plan) counts the results after it, one after them
# counts the results before it. Either way the count must match; a plan
# that comes first cannot see results beyond its count (the suite's own,
# after a guest's), which belong to no plan.

# results N: "N result" or "N results".
results() {
	if [ "$1" -eq 1 ]; then
		echo "1 result"
	else
		echo "$1 results"
	fi
}

# plan_short WHERE: the plan before the results $plan_lead still waits for
# did not get them all.
plan_short() {
	emit fail "plan 1..$plan_lead but $(results "$plan_got")$1"
	plan_lead=''
}

# plan_line N: a plan line "1..N".
plan_line() {
	[ -z "$plan_lead" ] || plan_short " before the next plan"
	if [ "$since" -eq 0 ]; then
		plan_lead=$1 plan_got=0
		[ "$1" -gt 0 ] || plan_lead=''
	else
		[ "$since" -eq "$1" ] || emit fail "plan 1..$1 but $(results "$since")"
		since=0
	fi
}

# planned: one result counted against the plans.
planned() {
	if [ -n "$plan_lead" ]; then
		plan_got=$((plan_got + 1))
		[ "$plan_got" -lt "$plan_lead" ] || plan_lead=''
	else
		since=$((since + 1))
	fi
}

if ! load_expected_skips; then
	echo "check.sh: no suite run: the list of expected skips '$skiplist' is wrong" >&2
	exit 2
fi
counts=$state/counts
echo "0 0 0" >"$counts"
echo "TAP version 13"
start_all=$(date +%s)
[ $# -gt 0 ] || [ "${CHECK_PREBUILD:-yes}" = no ] || prebuild
for suite in $suites; do
	name=$(basename "$suite" .sh)
	name=${name#[0-9][0-9]-}
	echo "# suite $name"
	start=$(date +%s)
	# The blank line ends a last line that has no newline.
	{
		sh "$suite" 2>"$logdir/$name.err"
		printf '\nsuite-exit: %s\n' "$?"
	} | {
		read -r n_pass n_fail n_skip <"$counts"
		# The suite's results, its own failures (not ok, Bail out!),
		# and the plans' state: the results since the last boundary,
		# and those a plan before them waits for.
		total=0 fails=0 since=0 plan_lead='' plan_got=0
		while IFS= read -r line; do
			case "$line" in
			"suite-exit: "*)
				rc=${line#suite-exit: }
				[ -z "$plan_lead" ] || plan_short ""
				if [ "$total" -eq 0 ]; then
					emit fail "ran no test (exit $rc, see $logdir/$name.err)"
					tail -n 20 "$logdir/$name.err" | sed 's/^/#   /'
				elif [ "$rc" -ne 0 ] && [ "$fails" -eq 0 ]; then
					emit fail "exited $rc without reporting a failure"
					tail -n 20 "$logdir/$name.err" | sed 's/^/#   /'
				fi
				;;
			"ok "* | "not ok "* | ok | "not ok")
				parse_result "$line"
				total=$((total + 1))
				planned
				case "$status:$directive" in
				fail:TODO)
					fails=$((fails + 1))
					emit fail "${desc:+$desc: }failed, marked TODO${reason:+ ($reason)}: a TODO counts as a failure"
					;;
				fail:*)
					fails=$((fails + 1))
					emit fail "$text"
					;;
				pass:SKIP)
					if why=$(skip_allowed "$text"); then
						emit skip "$text"
						echo "#   expected ($skiplist): $why"
					else
						emit fail "${desc:+$desc: }SKIP${reason:+ ($reason)} not allowed by $skiplist"
					fi
					;;
				*) emit pass "$text" ;;
				esac
				;;
			"Bail out!"*)
				# A suite's setup failed (tests/lib/suite.sh, bail): one
				# failure, with the reason; the suite stops there.
				total=$((total + 1))
				fails=$((fails + 1))
				reason=${line#Bail out!}
				emit fail "setup failed: ${reason# }"
				;;
			"TAP version"*)
				[ -z "$plan_lead" ] || plan_short " before the next TAP version line"
				since=0
				;;
			1..[0-9]*)
				n=${line#1..}
				rest=${n#"${n%%[!0-9]*}"}
				strip_blanks
				case "$rest" in
				"" | "#"*) plan_line "${n%%[!0-9]*}" ;;
				*) echo "# $line" ;;
				esac
				;;
			"") ;;
			"#"*) echo "$line" ;;
			*) echo "# $line" ;;
			esac
		done
		echo "$n_pass $n_fail $n_skip" >"$counts"
	}
	echo "# suite $name took $(($(date +%s) - start)) s"
done
read -r n_pass n_fail n_skip <"$counts"
echo "1..$((n_pass + n_fail + n_skip))"
echo "# all suites took $(($(date +%s) - start_all)) s"
echo "$n_pass passed, $n_fail failed, $n_skip skipped"
[ "$n_fail" -eq 0 ]
