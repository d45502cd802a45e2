#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make bench" part (b) (/t/guest.sh, busybox sh, with the
# PostgreSQL root fs): pgbench simple-update at a scale whose data exceeds
# shared_buffers, by preemption mode (switched at runtime) x huge pages
# (off: 4 KiB pages; thp: shmem_enabled=always, huge_pages=off; hugetlb:
# huge_pages=on with vm.nr_hugepages). Each huge-page setting restarts the
# server, runs one warm-up, then B_REPS rounds over the modes. With
# B_RESTART=1 (the default) the server is restarted before every run, so
# each run starts with untouched shared_buffers, as a large buffer pool is
# for hours after a start: the first touches are the page faults at issue.
# Output:
#   pg HUGEPAGES CLIENTS MODE REP TPS FAILED
#   policy pg hugepages=HUGEPAGES MODE warn_count=N
# the second after each setting's warm-up: the mode preempt-policy decide
# picks then, with PostgreSQL running (vm.shmem_hugepage_warn_bytes is
# lowered to SB/2 so that huge_pages=off draws the kernel's warning; the
# count is cumulative, so the settings after "off" still see it).
# Environment ("_" in a list value stands for a space): B_MODES, B_HP, B_SB (MB), B_SCALE, B_C, B_J, B_T, B_REPS.
cd "$(dirname "$0")" || exit 1
# shellcheck source=../pg/guest-lib.sh
. ./guest-lib.sh

MODES=$(blist "${B_MODES:-none voluntary full lazy}")
HPS=$(blist "${B_HP:-off thp hugetlb}")
SB=${B_SB:-128}
SCALE=${B_SCALE:-20}
C=${B_C:-8}
J=${B_J:-2}
T=${B_T:-15}
REPS=${B_REPS:-5}
RESTART=${B_RESTART:-1}

bench_header
warn_at $((SB / 2))
pg_bench_db "$SB" "$SCALE" || exit 1
pg_stop fast

for hp in $HPS; do
	case "$hp" in
	off)
		echo never >/sys/kernel/mm/transparent_hugepage/shmem_enabled
		hugepages_reserve 0 >/dev/null
		pg_set huge_pages off
		;;
	thp)
		if ! echo always >/sys/kernel/mm/transparent_hugepage/shmem_enabled; then
			echo "unavailable thp"
			continue
		fi
		hugepages_reserve 0 >/dev/null
		pg_set huge_pages off
		;;
	hugetlb)
		echo never >/sys/kernel/mm/transparent_hugepage/shmem_enabled
		echo "hugepages $(hugepages_reserve $((SB / 2 + 40)))"
		pg_set huge_pages on
		;;
	esac
	say "huge pages $hp: start"
	if ! pg_start; then
		echo "error start with huge pages $hp: $(tail -n 2 "$PGLOG" | tr '\n' ' ')"
		continue
	fi
	pid=$(pg_postmaster_pid)
	as_pg "pgbench -n -b simple-update -c $C -j $J -T $T postgres" >/dev/null 2>&1
	echo "policy pg hugepages=$hp $(policy_mode) warn_count=$(warn_count)"
	rep=1
	while [ "$rep" -le "$REPS" ]; do
		say "huge pages $hp: round $rep of $REPS"
		for m in $MODES; do
			if ! mode_set "$m" "$mf"; then
				[ "$rep" != 1 ] || echo "unavailable $m"
				continue
			fi
			if [ "$RESTART" = 1 ]; then
				pg_stop fast
				pg_start || echo "error restart with huge pages $hp"
				pid=$(pg_postmaster_pid)
			fi
			out=$(as_pg "pgbench -n -b simple-update -c $C -j $J -T $T postgres" 2>&1)
			echo "pg $hp $C $m $rep $(pg_tps "$out") $(pg_failed "$out")"
		done
		rep=$((rep + 1))
	done
	echo "hugemem $hp hugetlb_kb=$(smaps_kb "$pid" Shared_Hugetlb) shmem_pmd_kb=$(awk '/ShmemPmdMapped/ {print $2}' /proc/meminfo)"
	pg_stop fast
done
mode_set lazy "$mf" || true
