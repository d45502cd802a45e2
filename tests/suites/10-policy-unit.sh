#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# preempt-policy: cmocka unit tests and fixture-tree tests, built with
# AddressSanitizer and UndefinedBehaviorSanitizer. cmocka prints TAP.
. tests/lib/common.sh

rc=0
make -s -j2 -C policy check 2>&1 || rc=1

# The PostgreSQL shared memory model against the real server (Debian's
# postgresql-15, installed by make deps), over a grid of settings.
sh policy/tests/pg_shmem_real.sh policy/build/san/preempt-policy 2>&1 || rc=1
exit $rc
