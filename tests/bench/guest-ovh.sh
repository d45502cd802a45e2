#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make bench" part (c) (/t/run, busybox sh, booted with
# QEMU -icount): kernel-path loops in each of B_MODES, for the
# patched-vs-unpatched overhead ratio. One warm-up pass, then B_REPS rounds
# with every (test, mode) once per round. Output, one line per run:
#   ovh TEST MODE REP NS_PER_OP
# Environment ("_" in a list value stands for a space): B_MODES (full lazy: the modes both kernels offer), B_REPS,
# B_FAULT_MIB, B_FORKS, B_PIPES.
cd "$(dirname "$0")" || exit 1
# shellcheck source=../pg/guest-lib.sh
. ./guest-lib.sh

MODES=$(echo "${B_MODES:-full lazy}" | tr _ " ")
REPS=${B_REPS:-7}
FAULT=${B_FAULT_MIB:-32}
FORKS=${B_FORKS:-50}
PIPES=${B_PIPES:-5000}

mf=$(mode_file)
echo "kernel $(uname -r) $(uname -m) cpus=$(grep -c ^processor /proc/cpuinfo)"
echo "modes $(cat "$mf" 2>&1)"

one() { # TEST MODE REP
	case "$1" in
	fault) r=$(./ovh-bench fault "$FAULT") ;;
	forkexec) r=$(./ovh-bench forkexec "$FORKS" /bin/true) ;;
	pipe) r=$(./ovh-bench pipe "$PIPES") ;;
	esac
	echo "ovh $1 $2 $3 ${r#* }"
}

for t in fault forkexec pipe; do
	one "$t" warmup 0 >/dev/null
done
rep=1
while [ "$rep" -le "$REPS" ]; do
	echo "@@run@@ [$(cut -d' ' -f1 /proc/uptime)s] round $rep of $REPS" >&2
	for m in $MODES; do
		if ! mode_set "$m" "$mf"; then
			echo "unavailable $m"
			continue
		fi
		for t in fault forkexec pipe; do
			one "$t" "$m" "$rep"
		done
	done
	rep=$((rep + 1))
done
