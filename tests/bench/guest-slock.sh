#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make bench" part (a) (/t/guest.sh, busybox sh): the s_lock
# microbenchmark by preemption mode x huge pages x workers, modes switched
# at runtime, all in this one boot. One warm-up run per mapping, then B_REPS
# rounds; inside a round every (mapping, procs, mode) runs once, so slow
# drift spreads over all cells. Output, one line per measured run:
#   micro MAPPING PROCS MODE REP ACQ_PER_SEC CONTENDED_PCT WAIT_MEAN_NS MINFLT
# plus "json {...}" lines with slock-bench's full record, and
#   policy micro anon MODE warn_count=N
# the mode preempt-policy decide picks, with the shipped policy, after the
# anon warm-up run has drawn the kernel's warning (the case the opt-in
# shm-hugepage-warnings rule is for; the shipped policy has it commented
# out, so it keeps the mode; the thp and hugetlb mappings get no verdict:
# the warning count is cumulative over the boot, so a decision there would
# say nothing about them).
# Environment ("_" in a list value stands for a space): B_MODES, B_MAPS, B_PROCS, B_REPS, B_SECS, B_SIZE (MiB).
cd "$(dirname "$0")" || exit 1
# shellcheck source=../pg/guest-lib.sh
. ./guest-lib.sh

MODES=$(blist "${B_MODES:-none voluntary full lazy}")
MAPS=$(blist "${B_MAPS:-anon thp hugetlb}")
PROCS=$(blist "${B_PROCS:-4 8 16}")
REPS=${B_REPS:-5}
SECS=${B_SECS:-2}
SIZE=${B_SIZE:-64}

bench_header
avail=
for m in $MODES; do
	if mode_set "$m" "$mf"; then
		avail="$avail $m"
	else
		echo "unavailable $m"
	fi
done
echo "available$avail"
# shmem THP only where asked for (the thp mapping madvises), hugetlb pages
# for the largest mapping.
echo advise >/sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null
echo "hugepages $(hugepages_reserve $((SIZE / 2 + 4)))"
warn_at $((SIZE / 2))

run() { # MAPPING PROCS MODE REP
	j=$(./slock-bench --mapping "$1" --size "$SIZE" --procs "$2" \
		--seconds "$SECS" --json --label "$3" 2>&1)
	case "$j" in
	"{"*) ;;
	*)
		echo "error $1 $2 $3: $j"
		return
		;;
	esac
	get() { printf '%s' "$j" | sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
	echo "micro $1 $2 $3 $4 $(get acq_per_sec) $(get contended_pct) $(get wait_mean_ns) $(get minflt) $(get huge_kb)"
	echo "json $j"
}

say "warm-up"
for map in $MAPS; do
	run "$map" "${PROCS%% *}" warmup 0 >/dev/null
	[ "$map" != anon ] || echo "policy micro anon $(policy_mode) warn_count=$(warn_count)"
done
rep=1
while [ "$rep" -le "$REPS" ]; do
	say "round $rep of $REPS"
	for map in $MAPS; do
		for p in $PROCS; do
			for m in $avail; do
				mode_set "$m" "$mf" || echo "error switch to $m failed"
				run "$map" "$p" "$m" "$rep"
			done
		done
	done
	rep=$((rep + 1))
done
mode_set lazy "$mf" || true
