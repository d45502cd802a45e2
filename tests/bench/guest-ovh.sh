#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make bench" part (c) (/t/guest.sh, busybox sh, booted with
# QEMU -icount): kernel-path loops in each of B_MODES, for the
# patched-vs-unpatched overhead ratio. One warm-up pass, then B_REPS rounds
# with every (test, mode) once per round. Output, one line per run:
#   ovh TEST MODE REP NS_PER_OP
# With the PostgreSQL root fs and B_PG_T > 0 the tests include "pgbench":
# simple-update, a fixed B_PG_T transactions per client (-t, not -T: the
# work is fixed, so guest time is its cost), NS_PER_OP = guest ns per
# transaction (1e9 / pgbench's tps, connection set-up excluded).
# Environment ("_" in a list value stands for a space): B_MODES (full lazy:
# the modes both kernels offer), B_REPS, B_FAULT_MIB, B_FORKS, B_PIPES,
# B_PG_T, B_PG_C (clients), B_PG_SB (shared_buffers MB), B_PG_SCALE.
cd "$(dirname "$0")" || exit 1
# shellcheck source=../pg/guest-lib.sh
. ./guest-lib.sh

MODES=$(blist "${B_MODES:-full lazy}")
REPS=${B_REPS:-7}
FAULT=${B_FAULT_MIB:-32}
FORKS=${B_FORKS:-50}
PIPES=${B_PIPES:-5000}
PG_T=${B_PG_T:-0}
PG_C=${B_PG_C:-2}

bench_header
tests="fault forkexec pipe"
if [ "$PG_T" -gt 0 ] && command -v pgbench >/dev/null; then
	pg_bench_db "${B_PG_SB:-32}" "${B_PG_SCALE:-1}" || exit 1
	tests="$tests pgbench"
fi

one() { # TEST MODE REP
	case "$1" in
	fault) r=$(./ovh-bench fault "$FAULT") ;;
	forkexec) r=$(./ovh-bench forkexec "$FORKS" /bin/true) ;;
	pipe) r=$(./ovh-bench pipe "$PIPES") ;;
	pgbench)
		r=$(as_pg "pgbench -n -b simple-update -c $PG_C -j 1 -t $PG_T postgres" 2>&1)
		f=$(pg_failed "$r")
		r=$(pg_tps "$r")
		if [ -z "$r" ] || [ "${f:-0}" != 0 ]; then
			echo "error pgbench $2: tps '$r', failed '$f'"
			return
		fi
		r="pgbench $(awk -v t="$r" 'BEGIN { printf "%.1f", 1e9 / t }')"
		;;
	esac
	echo "ovh $1 $2 $3 ${r#* }"
}

for t in $tests; do
	one "$t" warmup 0 >/dev/null
done
rep=1
while [ "$rep" -le "$REPS" ]; do
	say "round $rep of $REPS"
	for m in $MODES; do
		if ! mode_set "$m" "$mf"; then
			echo "unavailable $m"
			continue
		fi
		for t in $tests; do
			one "$t" "$m" "$rep"
		done
	done
	rep=$((rep + 1))
done
