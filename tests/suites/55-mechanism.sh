#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A smoke run of make bench's mechanism part (tests/bench/mechanism.sh), so
# that its harness cannot rot: one cell, one run per arch, on the kernel
# make check boots (check_variant), in a deterministic -icount guest. The
# whole path runs: slock-bench --trace in the guest, the kernel's
# sched_switch events with the user PC, the host's cell files, the
# statistics and mechanism.json. The numbers themselves are make bench's
# business; here each run must have traced worker switches, lost none,
# judged every one by a user PC, and classified them all: in kernel + at
# return + blocked + outside the section = the workers' sched_switch
# events in the trace as the guest script counts them (not slock-bench's
# own count, which its classifier sums to by construction). On x86_64 a
# second cell has the holder ask for an rseq time-slice extension, which
# needs the kernel's RSEQ_SLICE_EXTENSION (arm64 has no GENERIC_ENTRY:
# not there), and the kernel must grant it at least once.
. tests/lib/common.sh

suite_run() {
	for arch in arm64 x86_64; do
		variant=$(check_variant "$arch")
		if [ ! -f "$(kernel_image "$arch" "$variant")" ]; then
			not_ok "$arch mechanism smoke (no $variant kernel; see the build suite)"
			continue
		fi
		cells="lazy:anon:off"
		[ "$arch" = arm64 ] || cells="$cells lazy:anon:slice"
		mdir=$BUILD/mech-smoke-$arch
		if MECH_FRESH=1 MECH_OUT=$mdir MECH_ARCHES=$arch MECH_VCPUS=2 \
			MECH_KERNELS=$variant MECH_CELLS=$cells MECH_REPS=1 MECH_SECS=0.3 \
			MECH_SIZE=16 MECH_PG_T=0 tests/bench/mechanism.sh \
			>"$mdir.log" 2>&1; then
			ok "$arch mechanism harness ran ($cells)"
		else
			not_ok "$arch mechanism harness ran ($cells)"
			diag "$(tail -n 15 "$mdir.log")"
			continue
		fi
		for c in $cells; do
			f=$mdir/cells/$arch-2-$variant-$(echo "$c" | tr : -).txt
			line=$(cat "$f" 2>/dev/null)
			get() { printf '%s' "$line" | sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }
			# The classified total against the guest script's own count
			# of the workers' switches in the trace: slock-bench's
			# events are its classifier's input, so their sum is equal
			# to them whatever the parser missed.
			ft=$(get ftrace_worker_switches) lost=$(get lost) ns=$(get no_stack)
			ik=$(get in_kernel) ar=$(get at_return) bl=$(get blocked) nh=$(get not_holding)
			sum=$((${ik:-0} + ${ar:-0} + ${bl:-0} + ${nh:-0}))
			if [ -n "$ft" ] && [ "$ft" -gt 0 ] && [ "$lost" = 0 ] && [ "$ns" = 0 ] &&
				[ "$sum" -eq "$ft" ]; then
				ok "$arch $c: $ft worker switches in the trace (the guest script's count), all classified by a user PC, none lost"
			else
				not_ok "$arch $c: worker switches in the trace (${ft:-none counted}), all classified by a user PC ($sum), none lost"
				diag "ftrace_worker_switches=$ft classified=$sum lost=$lost no_stack=$ns events=$(get events)" "$line"
			fi
		done
		if [ "$arch" = x86_64 ]; then
			g=$(sed -n 's/.* slice_granted=\([0-9]*\).*/\1/p' \
				"$mdir/cells/$arch-2-$variant-lazy-anon-slice.txt" 2>/dev/null)
			check "$arch rseq slice extension granted to the holder (${g:-no count} sections)" \
				test "${g:-0}" -gt 0
		fi
		check "$arch mechanism.json has every cell" sh -c \
			"python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(len(d[\"cells\"]) != int(sys.argv[2]))' \
			'$mdir/mechanism.json' $(echo "$cells" | wc -w)"
	done
}

suite_main
