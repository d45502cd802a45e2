#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2016,SC2034 # checks are single-quoted on purpose: eval runs them (and reads RC) after each call
#
# preempt-policy trial against an emulated mode file (a plain file: the
# tool writes it as the kernel would show it) and metric commands whose
# answer depends on the mode by a known effect. TAP output.
# Usage: trial_test.sh PATH/TO/preempt-policy
# Nothing here touches the live /proc, /sys or /dev/kmsg.

BIN=${1:?usage: trial_test.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
FX=$HERE/fixtures
TMP=$(mktemp -d /tmp/preempt-policy-trial.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=../../tests/lib/tap.sh
. "$HERE/../../tests/lib/tap.sh"

check_expr() {
	eval "$2"
	ce_rc=$?
	result "$ce_rc" "$1" "$(cat "$TMP/out" "$TMP/err" "$TMP/kmsg" 2>/dev/null | tail -n 30)"
}

# A kernel whose mode file is a plain file, lazy running; a root with
# nothing in it. fresh: both anew, kernel log and metric state emptied.
K=$TMP/k
R=$TMP/r
MODEFILE=$K/sys/kernel/preempt/mode
export MODEFILE
fresh() {
	rm -rf "$K" "$R" "$TMP/kmsg" "$TMP/calls" "$TMP/last"
	cp -R "$FX/patched" "$K"
	mkdir -p "$K/proc/sys/kernel" "$R/etc"
	echo "7.0.0-trial" >"$K/proc/sys/kernel/osrelease"
}

# The metric: FAVOUR gets 1 + EFFECT times the others' 100, each reading
# off by up to NOISE (fraction), the noise seeded by the call's number so
# that every run sees the same. "value" prints the window's value;
# "counter" a cumulative count growing at that rate per millisecond.
# FAIL_AT=N: the Nth call fails. DROP=MODE: from the DROP_AT-th call on,
# the kernel stops listing MODE (when it does not run it), so that the
# next switch to it is refused.
cat >"$TMP/metric.sh" <<'METRIC'
#!/bin/sh
d=$(dirname "$0")
n=$(cat "$d/calls" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" >"$d/calls"
if [ -n "${FAIL_AT:-}" ] && [ "$n" -ge "$FAIL_AT" ]; then
	echo "metric.sh: failing on purpose" >&2
	exit 3
fi
if [ -n "${DROP:-}" ] && [ "$n" -ge "${DROP_AT:-1}" ]; then
	sed -i "s/^$DROP \| $DROP\$\| $DROP / /; s/^ //" "$MODEFILE"
fi
m=$(sed -n 's/.*[[(]\([a-z]*\)[])].*/\1/p' "$MODEFILE")
[ "$m" = "$PREEMPT_POLICY_MODE" ] || { echo "metric.sh: file says $m, env $PREEMPT_POLICY_MODE" >&2; exit 4; }
case $1 in
value)
	awk -v m="$m" -v f="${FAVOUR:-}" -v e="${EFFECT:-0}" -v z="${NOISE:-0}" -v s="$n" \
		'BEGIN { srand(s); v = 100 * (m == f ? 1 + e : 1); printf "%.4f\n", v * (1 + z * (2 * rand() - 1)) }'
	;;
counter)
	now=$(date +%s%N)
	last=$(cat "$d/last" 2>/dev/null || echo "$now 1000")
	echo "$now $last" | awk -v m="$m" -v f="${FAVOUR:-}" -v e="${EFFECT:-0}" \
		'{ c = $3 + ($1 - $2) / 1e6 * 100 * (m == f ? 1 + e : 1); printf "%.0f %.0f\n", $1, c }' >"$d/last"
	cut -d" " -f2 "$d/last"
	;;
esac
METRIC
chmod +x "$TMP/metric.sh"
VALUE="$TMP/metric.sh value"
COUNTER="$TMP/metric.sh counter"

run() {
	"$BIN" --proc "$K/proc" --sys "$K/sys" --root "$R" --kmsg "$TMP/kmsg" \
		"$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
}

mode_now() { sed -n 's/.*[[(]\([a-z]*\)[])].*/\1/p' "$MODEFILE"; }

# --- the decision ---------------------------------------------------------
fresh
FAVOUR=none EFFECT=0.10 NOISE=0.01 run trial --metric "$VALUE" --metric-kind value \
	--window 0.05 --settle 0 --rounds 4 --seed 1
check_expr "trial: a metric 10% better under none -> none wins, lazy put back, all in the kernel log" \
	'[ $RC -eq 0 ] && grep -q "^result: none wins: +\(9\|10\|11\)\.[0-9]% \[+[0-9.]*%, +[0-9.]*%\] against lazy$" "$TMP/out" &&
	 [ "$(grep -c "^round [0-9]: " "$TMP/out")" -eq 8 ] && [ "$(mode_now)" = lazy ] &&
	 [ "$(grep -c "^<6>preempt-policy: trial: round [1-4]: \(lazy\|none\)$" "$TMP/kmsg")" -eq 8 ] &&
	 grep -q "^<5>preempt-policy: trial: start: modes lazy,none, 4 rounds" "$TMP/kmsg" &&
	 grep -q "^<5>preempt-policy: trial: none beat lazy by +\(9\|10\|11\)\." "$TMP/kmsg" &&
	 grep -q "^<5>preempt-policy: trial: \(put back lazy\|end: lazy runs, as found\)$" "$TMP/kmsg"'

fresh
FAVOUR=full EFFECT=0.30 run trial --modes lazy,full --metric "$COUNTER" \
	--window 0.6 --settle 0.05 --rounds 4 --seed 2
check_expr "trial: a cumulative counter 30% faster under full -> its rate per window, full wins" \
	'[ $RC -eq 0 ] && grep -q "^result: full wins: +" "$TMP/out" &&
	 grep -q "^round 1: full [0-9.]*$" "$TMP/out" && [ "$(mode_now)" = lazy ]'

fresh
FAVOUR=none EFFECT=0 NOISE=0.01 run trial --metric "$VALUE" --metric-kind value \
	--window 0.05 --settle 0 --rounds 6 --seed 3
check_expr "trial: a flat metric -> no difference detectable, keeps lazy, says why" \
	'[ $RC -eq 0 ] && grep -q "^result: no difference detectable at this noise; keeping lazy$" "$TMP/out" &&
	 grep -q "^none against lazy: [-+]0\.[0-9]%, 95% interval .* over 6 rounds; minimum detectable effect [0-9.]*%; [-+]0\.[0-9]% is within the minimum effect" "$TMP/out" &&
	 grep -q "^<5>preempt-policy: trial: no difference detectable at this noise" "$TMP/kmsg" && [ "$(mode_now)" = lazy ]'

fresh
FAVOUR=none EFFECT=0.12 NOISE=0.30 run trial --metric "$VALUE" --metric-kind value \
	--window 0.05 --settle 0 --rounds 3 --seed 4
check_expr "trial: 12% under 30% noise in 3 rounds -> not resolved, the MDE above it, rounds that would resolve it" \
	'[ $RC -eq 0 ] && grep -q "^result: no difference detectable at this noise; keeping lazy$" "$TMP/out" &&
	 mde=$(sed -n "s/^none against lazy: .*minimum detectable effect \([0-9.]*\)%.*/\1/p" "$TMP/out") &&
	 awk -v m="$mde" "BEGIN { exit !(m > 12) }" &&
	 grep -q "^none against lazy: +[0-9.]*%, .*; about [0-9]* rounds would resolve +[0-9.]*%$" "$TMP/out"'
need=$(sed -n 's/.*; about \([0-9]*\) rounds would resolve.*/\1/p' "$TMP/out")
fresh
FAVOUR=none EFFECT=0.12 NOISE=0.30 run trial --metric "$VALUE" --metric-kind value \
	--window 0.05 --settle 0 --rounds "$((need * 2 > 200 ? 200 : need * 2))" --seed 4
check_expr "trial: the same metric over twice the rounds it named -> none wins" \
	'[ $RC -eq 0 ] && grep -q "^result: none wins: " "$TMP/out"'

fresh
FAVOUR=lazy EFFECT=1.0 NOISE=0.02 run trial --metric "$VALUE" --metric-kind value \
	--lower-is-better --window 0.05 --settle 0 --rounds 3 --seed 5
check_expr "trial --lower-is-better: twice the latency under lazy -> none wins, lazy's latency about +100% of it" \
	'[ $RC -eq 0 ] && grep -q "^result: none wins: +\(9[0-9]\|10[0-9]\)\.[0-9]% .* against lazy$" "$TMP/out"'

fresh
FAVOUR=none EFFECT=0.10 NOISE=0.01 run trial --metric "$VALUE" --metric-kind value \
	--window 0.05 --settle 0 --rounds 3 --seed 6 --json
check_expr "trial --json: one valid object with every window, the result and the way out" \
	'[ $RC -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 1 ] &&
	 python3 -c "import json,sys; d=json.load(sys.stdin); assert d[\"result\"]==\"none\" and len(d[\"windows\"])==6 and d[\"restored\"] and d[\"exit\"]==0 and d[\"seed\"]==\"6\" and d[\"effects\"][1][\"mode\"]==\"none\" and d[\"effects\"][1][\"better\"]" <"$TMP/out" &&
	 grep -q "^result: none wins" "$TMP/err"'

# The same seed, the same block order and interval.
cp "$TMP/out" "$TMP/out.first"
fresh
FAVOUR=none EFFECT=0.10 NOISE=0.01 run trial --metric "$VALUE" --metric-kind value \
	--window 0.05 --settle 0 --rounds 3 --seed 6 --json
check_expr "trial --seed: the same seed gives the same windows and intervals" \
	'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); e=json.load(open(sys.argv[2])); assert d[\"windows\"]==e[\"windows\"] and d[\"effects\"]==e[\"effects\"]" "$TMP/out" "$TMP/out.first"'

# --- record and apply ------------------------------------------------------
TRIAL_FILE=$R/var/lib/preempt-policy/trial
fresh
FAVOUR=none EFFECT=0.10 NOISE=0.01 run trial --metric "$VALUE" --metric-kind value \
	--window 0.05 --settle 0 --rounds 3 --seed 7 --record --expire-days 10
check_expr "trial --record: mode, metric, effect, interval, date, expiry and kernel for the next boot; nothing switched" \
	'[ $RC -eq 0 ] && grep -qx "mode=none" "$TRIAL_FILE" && grep -qx "baseline=lazy" "$TRIAL_FILE" &&
	 grep -qx "metric=value:$TMP/metric.sh" "$TRIAL_FILE" && grep -q "^effect=+\(9\|10\|11\)\.[0-9][0-9]$" "$TRIAL_FILE" &&
	 grep -q "^interval=+[0-9.]*,+[0-9.]*$" "$TRIAL_FILE" && grep -qx "kernel=7.0.0-trial" "$TRIAL_FILE" &&
	 [ $(($(sed -n "s/^expires=//p" "$TRIAL_FILE") - $(sed -n "s/^date=//p" "$TRIAL_FILE"))) -eq 864000 ] &&
	 [ "$(mode_now)" = lazy ] && grep -q "^<5>preempt-policy: trial: recorded mode=none for the next boot" "$TMP/kmsg"'
run decide
check_expr "the next boot: no rule matches -> the recorded trial decides none" \
	'[ $RC -eq 0 ] && head -n 1 "$TMP/out" | grep -q "^mode=none reason=\"trial /var/lib/preempt-policy/trial: none beat lazy by +\(9\|10\|11\)\.[0-9]% \[+[0-9.]*%, +[0-9.]*%\] (value:$TMP/metric.sh, 3 rounds)\"$"'
run explain
check_expr "explain: the rule fact trial_mode is the recorded winner" \
	'[ $RC -eq 0 ] && grep -q "^  trial_mode  *none  " "$TMP/out"'
printf 'rule measured-full: trial_mode == none -> full\n' >"$R/etc/preempt-policy.conf"
run decide
check_expr "a site rule on trial_mode matches and wins over the record" \
	'[ $RC -eq 0 ] && head -n 1 "$TMP/out" | grep -q "^mode=full reason=\"rule measured-full ($R/etc/preempt-policy.conf:1): trial_mode == none (is none)\"$"'
printf 'rule typo: trial_mode == nonne -> full\n' >"$R/etc/preempt-policy.conf"
run decide
check_expr "a site rule with a word trial_mode never takes: error naming the line" \
	'[ $RC -eq 2 ] && grep -q "preempt-policy.conf:1" "$TMP/err"'
rm "$R/etc/preempt-policy.conf"
echo "7.0.1-other" >"$K/proc/sys/kernel/osrelease"
run decide
check_expr "another kernel: the record does not hold; trial_mode unknown; keep" \
	'[ $RC -eq 0 ] && head -n 1 "$TMP/out" | grep -q "^mode=keep (lazy) reason=\"no rule matched" &&
	 run explain && grep -q "^  trial_mode  *unknown  " "$TMP/out"'
echo "7.0.0-trial" >"$K/proc/sys/kernel/osrelease"
sed -i "s/^date=.*/date=1000/; s/^expires=.*/expires=2000/" "$TRIAL_FILE"
run decide
check_expr "an expired record: does not hold; keep" \
	'[ $RC -eq 0 ] && head -n 1 "$TMP/out" | grep -q "^mode=keep (lazy) reason=\"no rule matched"'
printf 'mode=none\nkernel=\n' >"$TRIAL_FILE"
run decide
check_expr "a trial file the tool did not write: diagnostic, bad input, keep" \
	'[ $RC -eq 2 ] && grep -q "var/lib/preempt-policy/trial: not a trial result preempt-policy wrote" "$TMP/err" &&
	 head -n 1 "$TMP/out" | grep -q "^mode=keep"'

fresh
FAVOUR=none EFFECT=0 NOISE=0.01 run trial --metric "$VALUE" --metric-kind value \
	--window 0.05 --settle 0 --rounds 3 --seed 8 --record
check_expr "trial --record with no difference: mode=keep recorded; the next boot keeps; trial_mode keep" \
	'[ $RC -eq 0 ] && grep -qx "mode=keep" "$TRIAL_FILE" && run decide &&
	 head -n 1 "$TMP/out" | grep -q "^mode=keep (lazy) reason=\"no rule matched" &&
	 run explain && grep -q "^  trial_mode  *keep  " "$TMP/out"'

fresh
touch "$TMP/stamp"
sleep 1
FAVOUR=none EFFECT=0.10 NOISE=0.01 run trial --metric "$VALUE" --metric-kind value \
	--window 0.05 --settle 0 --rounds 3 --seed 9 --apply
check_expr "trial --apply: switches to the winner now, logged; nothing else written (no command line, no record)" \
	'[ $RC -eq 0 ] && [ "$(mode_now)" = none ] &&
	 grep -q "^<5>preempt-policy: trial: switched from lazy to none, the trial.s winner$" "$TMP/kmsg" &&
	 [ "$(find "$R" "$K" -newer "$TMP/stamp" -type f | sort | tr "\n" " ")" = "$MODEFILE $R/run/preempt-policy/trial.lock " ]'

fresh
FAVOUR=none EFFECT=0 NOISE=0.01 run trial --metric "$VALUE" --metric-kind value \
	--window 0.05 --settle 0 --rounds 3 --seed 10 --apply
check_expr "trial --apply with no difference: lazy stays" \
	'[ $RC -eq 0 ] && [ "$(mode_now)" = lazy ] && grep -q "^apply: nothing to switch: lazy stays$" "$TMP/out"'

fresh
run trial --metric "$VALUE" --metric-kind value --window 0.05 --settle 0 --rounds 3 --dry-run --record --apply
check_expr "trial --dry-run: the idle check's reading and the plan; nothing switched, logged or recorded" \
	'[ $RC -eq 0 ] && grep -q "^dry-run: nothing switched$" "$TMP/out" && [ "$(cat "$TMP/calls")" -eq 1 ] &&
	 [ ! -e "$TMP/kmsg" ] && [ ! -e "$TRIAL_FILE" ] && [ "$(mode_now)" = lazy ]'

# --- every way out puts the mode found back -------------------------------
for sig in TERM INT HUP; do
	fresh
	FAVOUR=none EFFECT=0.1 "$BIN" --proc "$K/proc" --sys "$K/sys" --root "$R" --kmsg "$TMP/kmsg" \
		trial --modes none,full --metric "$VALUE" --metric-kind value \
		--window 0.2 --settle 0.2 --rounds 50 --seed 11 >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	n=0
	while [ "$(cat "$TMP/calls" 2>/dev/null || echo 0)" -lt 2 ] && [ $n -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	switched=$(mode_now)
	kill -"$sig" "$pid"
	wait "$pid"
	RC=$?
	check_expr "trial killed with SIG$sig mid-trial (running $switched): exit 9, lazy put back, logged" \
		'[ $RC -eq 9 ] && [ "$(mode_now)" = lazy ] && [ "$switched" != lazy ] &&
		 grep -q "^<4>preempt-policy: trial: stopped after [0-9]* windows: interrupted by SIG$sig$" "$TMP/kmsg" &&
		 grep -q "^<5>preempt-policy: trial: put back lazy$" "$TMP/kmsg"'
done

fresh
"$BIN" --proc "$K/proc" --sys "$K/sys" --root "$R" --kmsg "$TMP/kmsg" --timeout 1 \
	trial --modes none,full --metric "$VALUE" --metric-kind value \
	--window 0.2 --settle 0.2 --rounds 50 >"$TMP/out" 2>"$TMP/err"
RC=$?
check_expr "trial under --timeout (SIGALRM): exit 9, lazy put back" \
	'[ $RC -eq 9 ] && [ "$(mode_now)" = lazy ] && grep -q "interrupted by SIGALRM" "$TMP/kmsg"'

fresh
FAIL_AT=4 run trial --modes none,full --metric "$VALUE" --metric-kind value --window 0.05 --settle 0 --rounds 5
check_expr "the metric fails mid-trial: exit 9, lazy put back, the failure named" \
	'[ $RC -eq 9 ] && [ "$(mode_now)" = lazy ] &&
	 grep -q "^<4>preempt-policy: trial: stopped after [0-9]* windows: the metric command failed (exit status 3)$" "$TMP/kmsg"'

fresh
DROP=full DROP_AT=2 run trial --modes lazy,full --metric "$VALUE" --metric-kind value \
	--window 0.05 --settle 0 --rounds 5 --seed 12
check_expr "the kernel refuses a mode write mid-trial: exit 9, lazy put back, the refusal named" \
	'[ $RC -eq 9 ] && [ "$(mode_now)" = lazy ] &&
	 grep -q "^<4>preempt-policy: trial: stopped after [0-9]* windows: the kernel refused full in $MODEFILE: Invalid argument$" "$TMP/kmsg"'

fresh
echo 1000 >"$TMP/c"
run trial --metric "n=\$((\$(cat $TMP/c) - 1)); echo \$n >$TMP/c; echo \$n" --window 0.05 --settle 0 --rounds 3
check_expr "a counter that goes down before the first switch: refused, exit 8, nothing switched" \
	'[ $RC -eq 8 ] && [ "$(mode_now)" = lazy ] && grep -q "refused: the metric went down from 999 to 998: not monotonic" "$TMP/err"'

fresh
echo 1000 >"$TMP/c"
# Up 50 a reading for four readings (the idle check and the first
# window), then down 1.
run trial --metric "n=\$(cat $TMP/c); k=\$((\$(cat $TMP/calls 2>/dev/null || echo 0) + 1)); echo \$k >$TMP/calls; [ \$k -le 4 ] && n=\$((n + 50)) || n=\$((n - 1)); echo \$n >$TMP/c; echo \$n" \
	--window 0.05 --settle 0 --rounds 3
check_expr "a counter that goes down mid-trial: exit 9, lazy put back, named" \
	'[ $RC -eq 9 ] && [ "$(mode_now)" = lazy ] &&
	 grep -q "^<4>preempt-policy: trial: stopped after 1 windows: the counter went down from 1199 to 1198: not a cumulative counter$" "$TMP/kmsg"'

# --- refusals: nothing switched ------------------------------------------
fresh
run trial --metric "echo 5" --window 0.05 --settle 0 --rounds 3
check_expr "an idle workload (a counter that does not move): refused, exit 8, nothing switched or logged" \
	'[ $RC -eq 8 ] && grep -q "refused: the workload is idle: counter:echo at 0 per second, under the floor of 1 (--min-rate)" "$TMP/err" &&
	 [ ! -e "$TMP/kmsg" ] && [ "$(mode_now)" = lazy ]'
run trial --metric "echo 5" --metric-kind value --window 0.05 --settle 0 --rounds 3 --min-rate 10
check_expr "a value under --min-rate: refused, exit 8" \
	'[ $RC -eq 8 ] && grep -q "refused: the workload is idle: value:echo at 5 per second, under the floor of 10" "$TMP/err"'
run trial --window 0.05 --settle 0 --rounds 3
check_expr "no metric and no PostgreSQL running: refused, exit 8, says so" \
	'[ $RC -eq 8 ] && grep -q "refused: no running PostgreSQL cluster" "$TMP/err" && [ ! -e "$TMP/kmsg" ]'

mkdir -p "$R/run/systemd"
echo podman >"$R/run/systemd/container"
run trial --metric "$VALUE" --metric-kind value --window 0.05 --settle 0 --rounds 3
check_expr "in a container (/run/systemd/container): refused, exit 8, the hint named" \
	'[ $RC -eq 8 ] && grep -q "refused: this looks like a container ($R/run/systemd/container exists)" "$TMP/err" &&
	 [ ! -e "$TMP/calls" ] && [ "$(mode_now)" = lazy ]'
rm -r "$R/run/systemd"
mkdir -p "$K/proc/1"
printf 'PATH=/bin\000container=lxc\000' >"$K/proc/1/environ"
run trial --metric "$VALUE" --metric-kind value --window 0.05 --settle 0 --rounds 3
check_expr "in a container (PID 1 has container=): refused, exit 8" \
	'[ $RC -eq 8 ] && grep -q "refused: this looks like a container ($K/proc/1/environ holds container=lxc)" "$TMP/err"'
rm -r "$K/proc/1"

run trial --metric "$VALUE" --metric-kind value --modes none,voluntary,full,lazy --window 0.05 --settle 0 --rounds 2 --seed 13
check_expr "all four modes the kernel lists: each measured in every round" \
	'[ $RC -eq 0 ] && [ "$(grep -c "^round [12]: " "$TMP/out")" -eq 8 ] && [ "$(mode_now)" = lazy ]'

"$BIN" --proc "$FX/nomodes/proc" --sys "$FX/nomodes/sys" --root "$R" --kmsg "$TMP/kmsg" \
	trial --metric "$VALUE" --metric-kind value >"$TMP/out" 2>"$TMP/err"
RC=$?
check_expr "a kernel without the runtime switch: exit 3, says which files" \
	'[ $RC -eq 3 ] && grep -q "trial: no runtime switch: neither .*/kernel/preempt/mode nor .*/kernel/debug/sched/preempt" "$TMP/err"'
rm -rf "$TMP/u"
cp -R "$FX/unpatched" "$TMP/u"
"$BIN" --proc "$TMP/u/proc" --sys "$TMP/u/sys" --root "$R" --kmsg "$TMP/kmsg" \
	trial --metric "$VALUE" --metric-kind value >"$TMP/out" 2>"$TMP/err"
RC=$?
check_expr "an unpatched kernel (debugfs lists full and lazy): none is not there, exit 3" \
	'[ $RC -eq 3 ] && grep -q "trial: the kernel lists only \"full lazy\", not none" "$TMP/err"'

fresh
FAVOUR=none "$BIN" --proc "$K/proc" --sys "$K/sys" --root "$R" --kmsg "$TMP/kmsg" \
	trial --metric "$VALUE" --metric-kind value --window 0.2 --settle 0.2 --rounds 50 \
	>"$TMP/out.first" 2>&1 &
pid=$!
n=0
while ! grep -q "trial: start" "$TMP/kmsg" 2>/dev/null && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
run trial --metric "$VALUE" --metric-kind value --window 0.05 --settle 0 --rounds 2
kill -INT "$pid"
wait "$pid"
first=$?
check_expr "a second trial while one runs: refused, exit 8, the holder named; the first put back lazy" \
	'[ $RC -eq 8 ] && grep -q "refused: another trial runs (pid $pid holds $R/run/preempt-policy/trial.lock)" "$TMP/err" &&
	 [ $first -eq 9 ] && [ "$(mode_now)" = lazy ]'

# --- usage ------------------------------------------------------------------
rm -f "$TMP/kmsg"
for bad in "--modes none" "--modes none,none" "--modes none,fast" "--rounds 1" "--rounds 201" \
	"--window 0" "--window 1e3" "--settle -1" "--min-effect 60" "--seed x" "--probe other" \
	"--lower-is-better" "--metric-kind rate --metric x" "--metric-kind value" "--probe wakeup --metric x" \
	"--expire-days 0" "stray"; do
	# shellcheck disable=SC2086 # the options are words on purpose
	run trial $bad
	check_expr "trial $bad: usage error, exit 1, nothing done" \
		'[ $RC -eq 1 ] && grep -q "^preempt-policy: trial: " "$TMP/err" && [ ! -e "$TMP/kmsg" ]'
done
run trial --help
check_expr "trial --help: its options, exit 0" '[ $RC -eq 0 ] && grep -q "^usage: preempt-policy \[global options\] trial" "$TMP/out"'
run --help
check_expr "--help names trial and its exit statuses" \
	'[ $RC -eq 0 ] && grep -q "^  trial \[OPTIONS\] " "$TMP/out" && grep -q "8 trial refused" "$TMP/out"'

tap_done
