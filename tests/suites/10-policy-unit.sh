#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# preempt-policy: cmocka unit tests and fixture-tree tests, built with
# AddressSanitizer and UndefinedBehaviorSanitizer. cmocka prints TAP.
. tests/lib/common.sh

make -s -C policy check 2>&1
