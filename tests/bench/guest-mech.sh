#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make bench" part "mechanism" (/t/guest.sh, busybox sh, booted
# with QEMU -icount: guest time counts instructions, so runs repeat). Where
# is a lock holder scheduled out, by preemption mode x memory backing?
# slock-bench --trace counts it from the kernel's sched_switch events (see
# its header). Cells are MODE:MEMORY:RSEQ: one warm-up run per memory
# backing, then B_REPS rounds, each running every cell once. Output, one line per
# measured run:
#   mech MODE MEMORY RSEQ REP {slock-bench's JSON, plus
#        "ftrace_worker_switches": the workers' sched_switch events in
#        the trace, counted by this script}
#   mechpg MODE REP NS_PER_TRANSACTION     (MEMORY "pgbench")
#   mechfault MODE REP NS_PER_FAULT        (MEMORY "faultcost")
# Environment ("_" in a list value stands for a space):
#   B_CELLS  the cells (default lazy:anon:off). MODE: none voluntary full
#            lazy, switched to at runtime, or "boot": the mode the kernel
#            booted in, for kernels that cannot switch (a PREEMPT_NONE
#            build). MEMORY: anon (4 KiB shmem), thp (shmem THP), hugetlb,
#            or pgbench: simple-update for B_PG_T transactions per client
#            (the PostgreSQL root fs appended), guest ns per transaction;
#            or faultcost: the first-touch fault alone (ovh-bench fault),
#            guest ns per 4 KiB page.
#            RSEQ: off, or slice: the holder asks for an rseq time-slice
#            extension around its critical section.
#   B_PROCS workers (default 4 per vCPU), B_REPS (5), B_SECS guest seconds
#   per run (1), B_SIZE MiB (64), B_PG_T (150), B_PG_C clients (4)
cd "$(dirname "$0")" || exit 1
# shellcheck source=../pg/guest-lib.sh
. ./guest-lib.sh

CELLS=$(blist "${B_CELLS:-lazy:anon:off}")
cpus=$(grep -c ^processor /proc/cpuinfo)
PROCS=${B_PROCS:-$((4 * cpus))}
REPS=${B_REPS:-5}
SECS=${B_SECS:-1}
SIZE=${B_SIZE:-64}
PG_T=${B_PG_T:-150}
PG_C=${B_PG_C:-4}
TR=/sys/kernel/tracing

bench_header
# uname -v names the build's model: "PREEMPT_DYNAMIC", "PREEMPT_LAZY", or
# nothing for a PREEMPT_NONE build
echo "build $(uname -v)"
echo "boot_mode $(dmesg | sed -n 's/.*Dynamic Preempt: //p' | head -n 1)"

# tracefs: worker switches only, each with its kernel stack (how the task
# entered the kernel) and the user PC it left user space at
mountpoint -q "$TR" 2>/dev/null || mount -t tracefs nodev "$TR" ||
	{ echo "error no tracefs (CONFIG_FTRACE)"; exit 1; }
echo 0 >"$TR/tracing_on"
echo 16384 >"$TR/buffer_size_kb"
echo 'prev_comm == "slock-bench"' >"$TR/events/sched/sched_switch/filter" ||
	{ echo "error sched_switch filter"; exit 1; }
echo 1 >"$TR/events/sched/sched_switch/enable" ||
	{ echo "error sched_switch event"; exit 1; }
echo 1 >"$TR/options/userstacktrace" ||
	{ echo "error userstacktrace option"; exit 1; }
echo 1 >"$TR/options/stacktrace" ||
	{ echo "error stacktrace option"; exit 1; }

echo advise >/sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null
echo "hugepages $(hugepages_reserve $((SIZE / 2 + 4)))"

# set_mode MODE: switch unless MODE is "boot"; prints the mode running
set_mode() {
	[ "$1" = boot ] || mode_set "$1" "$mf" || return 1
	if [ -e "$mf" ]; then mode_now "$mf"; else echo boot; fi
}

slock_cells=
pg_modes=
fault_modes=
for c in $CELLS; do
	case "$c" in
	*:pgbench:*) pg_modes="$pg_modes ${c%%:*}" ;;
	*:faultcost:*) fault_modes="$fault_modes ${c%%:*}" ;;
	*) slock_cells="$slock_cells $c" ;;
	esac
done

# worker_switches PARENT: the sched_switch events the trace holds of
# slock-bench's processes but PARENT, its workers, counted here rather
# than by slock-bench: the host compares its classified total with this
# number, which its own parser can therefore not vouch for.
worker_switches() {
	awk -v parent=" prev_pid=$1 " '/ sched_switch: prev_comm=slock-bench prev_pid=/ &&
		!index($0, parent) { n++ } END { print n + 0 }' "$TR/trace"
}

run() { # MODE MAP RSEQ REP
	rs=
	[ "$3" = off ] || rs=--rseq-slice
	./slock-bench --mapping "$2" --size "$SIZE" --procs "$PROCS" \
		--seconds "$SECS" --json --trace "$TR" $rs --label "$1" >/tmp/slock.out 2>&1 &
	pid=$!
	wait "$pid"
	rc=$?
	j=$(cat /tmp/slock.out)
	case "$j" in
	"{"*) [ "$rc" = 0 ] || j="exit $rc: $j" ;;
	esac
	case "$j" in
	"{"*) echo "mech $1 $2 $3 $4 ${j%\}},\"ftrace_worker_switches\":$(worker_switches "$pid")}" ;;
	*) echo "error $1 $2 $3: $j" | head -n 3 ;;
	esac
}

cell_run() { # MODE:MEMORY:RSEQ REP
	m=${1%%:*}
	rest=${1#*:}
	now=$(set_mode "$m") || { echo "error switch to $m failed"; return; }
	[ "$m" = boot ] || [ "$now" = "$m" ] || { echo "error mode $now, not $m"; return; }
	run "$m" "${rest%%:*}" "${rest#*:}" "$2"
}

# One warm-up run per memory backing, not per cell: guest time under
# -icount does not see the host faulting in guest RAM, so the warm-up only
# has to bring the guest's own state (page tables of the binary, the
# hugetlb pool, tracefs buffers) to where the measured runs find it.
say "warm-up"
warmed=
for c in $slock_cells; do
	mem=${c#*:}
	case " $warmed " in *" $mem "*) continue ;; esac
	warmed="$warmed $mem"
	cell_run "$c" warmup >/dev/null
done
rep=1
while [ "$rep" -le "$REPS" ]; do
	say "round $rep of $REPS"
	for c in $slock_cells; do
		cell_run "$c" "$rep"
	done
	rep=$((rep + 1))
done

# The first-touch fault's own cost, outside any lock: guest ns per 4 KiB
# page of a 32 MiB shared anonymous mapping (ovh-bench fault), which under
# -icount counts the instructions of the fault path in this kernel and mode.
if [ -n "$fault_modes" ]; then
	for m in $fault_modes; do
		set_mode "$m" >/dev/null && ./ovh-bench fault 32 >/dev/null
	done
	rep=1
	while [ "$rep" -le "$REPS" ]; do
		for m in $fault_modes; do
			if set_mode "$m" >/dev/null; then
				r=$(./ovh-bench fault 32) &&
					echo "mechfault $m $rep ${r#fault }" ||
					echo "error ovh-bench fault in $m: $r"
			else
				echo "error switch to $m failed"
			fi
		done
		rep=$((rep + 1))
	done
fi

if [ -n "$pg_modes" ]; then
	command -v pgbench >/dev/null || { echo "error no pgbench (root fs)"; exit 1; }
	pg_bench_db "${B_PG_SB:-64}" "${B_PG_SCALE:-4}" || exit 1
	pgrun() { # MODE REP
		r=$(as_pg "pgbench -n -b simple-update -c $PG_C -j 1 -t $PG_T postgres" 2>&1)
		f=$(pg_failed "$r")
		t=$(pg_tps "$r")
		if [ -z "$t" ] || [ "${f:-0}" != 0 ]; then
			echo "error pgbench $1: tps '$t', failed '$f'"
			return
		fi
		echo "mechpg $1 $2 $(awk -v t="$t" 'BEGIN { printf "%.1f", 1e9 / t }')"
	}
	for m in $pg_modes; do
		set_mode "$m" >/dev/null && pgrun "$m" warmup >/dev/null
	done
	rep=1
	while [ "$rep" -le "$REPS" ]; do
		say "pgbench round $rep of $REPS"
		for m in $pg_modes; do
			if set_mode "$m" >/dev/null; then
				pgrun "$m" "$rep"
			else
				echo "error switch to $m failed"
			fi
		done
		rep=$((rep + 1))
	done
	pg_stop fast
fi
echo "done"
