#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# preempt-policy: a libFuzzer harness per parser (rules, postgresql.conf,
# sizes, the kernel's mode list, the command line, the state file,
# /proc/PID/maps lines, smaps blocks, /proc/buddyinfo), each run for a bounded
# time (FUZZ_SECONDS, default 6; longer runs: make -C policy fuzz) with
# ASan and UBSan.
. tests/lib/common.sh

suite_run() {
	make -s -j2 -C policy fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-6}" 2>&1
}

suite_main
