#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# preempt-policy: a libFuzzer harness per parser (rules, postgresql.conf,
# sizes, the kernel's mode list, the command line), each run for a bounded
# time (FUZZ_SECONDS, default 15) with ASan and UBSan.
. tests/lib/common.sh

make -s -C policy fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-15}" 2>&1
