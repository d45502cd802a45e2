#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the kselftest run: the installed tree of
#   make -C tools/testing/selftests TARGETS=sched install
# (ks/, with run_kselftest.sh) runs as kselftest runs it, and its KTAP is
# shown as diagnostics. Each program must pass: cs_prctl_test may skip (no
# CONFIG_SCHED_CORE in the test kernels), preempt_modes and preempt_defer
# must not, and preempt_defer must have run all four modes. With
# ./preempt-policy (the kselftest boot, not the control): its trial with
# the wake-up latency probe beside the test module's busy loop, where full
# must beat none by a wide margin. Prints TAP.
# Kernel command line: busy_resched=1 loads the test module with
# resched=1 first (a cond_resched() in its loop), under which
# preempt_defer must fail: the host expects that run to fail.
set -u
# shellcheck source=../../lib/tap.sh
. ./tap.sh

echo "TAP version 13"
echo "# kernel: $(uname -r) $(uname -v) $(uname -m)"
echo "# modes: $(cat /sys/kernel/preempt/mode 2>&1)"
if [ "${busy_resched:-0}" = 1 ]; then
	insmod ks/sched/test_modules/test_preempt_busy.ko resched=1 ||
		not_ok "insmod test_preempt_busy.ko resched=1"
fi
# kselftest's runner runs each program under "timeout --foreground" when
# /usr/bin/timeout exists; busybox's timeout has no --foreground and fails
# every program at once. A wrapper that drops it keeps the settings
# file's timeout (the guest has no job control for --foreground to matter).
if [ -x /usr/bin/timeout ] && ! /usr/bin/timeout --foreground 5 true 2>/dev/null; then
	rm -f /usr/bin/timeout
	# shellcheck disable=SC2016
	printf '#!/bin/sh\n[ "$1" = --foreground ] && shift\nexec busybox timeout "$@"\n' \
		>/usr/bin/timeout
	chmod 0755 /usr/bin/timeout
fi
start=$(cut -d. -f1 /proc/uptime)
# The runner writes each program's output to /dev/stdout, which only
# udev creates; without it the output would land in a regular file there.
[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
# Appending: the runner reopens /dev/stdout with >> for each program's
# output, and a plain > here would let the shell's own writes overwrite it.
: >/tmp/ks.out
(cd ks && ./run_kselftest.sh) >>/tmp/ks.out 2>&1
rc=$?
sed 's/^/# /' /tmp/ks.out
echo "# run_kselftest.sh: exit $rc after $(($(cut -d. -f1 /proc/uptime) - start)) s"

for t in cs_prctl_test preempt_modes preempt_defer; do
	line=$(grep -E "^(not )?ok [0-9]+ selftests: sched: $t( |$)" /tmp/ks.out)
	case $line in
	"ok "*"# SKIP"*)
		if [ "$t" = cs_prctl_test ]; then
			ok "$t skipped (no core scheduling)"
		else
			not_ok "$t skipped: $line"
		fi
		;;
	"ok "*) ok "$t" ;;
	*) not_ok "$t: ${line:-no result}" ;;
	esac
done
for m in none voluntary full lazy; do
	if grep -Eq "^# +ok [0-9]+ defer\.$m\.busy_syscall$" /tmp/ks.out; then
		ok "preempt_defer $m: $(grep -o "$m: [0-9]* involuntary switches" /tmp/ks.out | cut -d' ' -f2 | tr '\n' ' ')"
	else
		not_ok "preempt_defer $m ran and passed"
	fi
done

# preempt-policy trial with its wake-up latency probe beside a
# kernel-bound load: one writer per CPU keeps /proc/test_preempt_busy
# spinning 200 ms at a time in the kernel, where none does not preempt it
# and full does; the probe's wake-ups wait for a CPU. Full must win by a
# wide margin (its interval clear of +50 %). Under TCG full's own p99 is
# tens of milliseconds (preempt_defer's full counts a switch every 20-40
# ms of its 400 ms spin), so the spin is long enough to stand out.
if [ -x ./preempt-policy ] && [ "${busy_resched:-0}" != 1 ]; then
	[ -e /proc/test_preempt_busy ] ||
		insmod ks/sched/test_modules/test_preempt_busy.ko 2>/tmp/insmod.err
	found=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' /sys/kernel/preempt/mode)
	writers=""
	i=0
	while [ $i -lt "$(grep -c ^processor /proc/cpuinfo)" ]; do
		(while :; do echo 200 >/proc/test_preempt_busy; done) 2>/dev/null &
		writers="$writers $!"
		i=$((i + 1))
	done
	t0=$(cut -d' ' -f1 /proc/uptime)
	./preempt-policy trial --modes none,full --probe wakeup --window 2 --settle 0.5 \
		--rounds 4 --min-effect 50 --seed 36 --json >/tmp/trial.json 2>/tmp/trial.err
	trc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	# shellcheck disable=SC2086 # one pid a word
	kill $writers
	wait 2>/dev/null
	sed 's/^/# /' /tmp/trial.err
	echo "# trial: exit $trc after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	json=$(cat /tmp/trial.json)
	# The entry of full against none: its effect and interval's low end.
	lo=$(printf '%s' "$json" | sed -n 's/.*{"mode":"full","against":"none","effect":[-0-9.e+]*,"lo":\([-0-9.e+]*\),.*/\1/p')
	r=0
	[ $trc = 0 ] && printf '%s' "$json" | grep -q '"result":"full"' &&
		printf '%s' "$json" | grep -q '"emulated":false' &&
		printf '%s' "$json" | grep -q '"restored":true' &&
		awk -v lo="${lo:-0}" 'BEGIN { exit !(lo > 0.5) }' &&
		[ "$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' /sys/kernel/preempt/mode)" = "$found" ] || r=1
	result $r "trial --probe wakeup beside a kernel-bound load: full beats none, interval from $(awk -v lo="${lo:-0}" 'BEGIN { printf "%+.0f%%", lo * 100 }'), $found put back" \
		"$json $(cat /tmp/insmod.err 2>/dev/null)"
fi
tap_done
