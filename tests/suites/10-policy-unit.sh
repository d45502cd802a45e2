#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# preempt-policy: cmocka unit tests and fixture-tree tests, built with
# AddressSanitizer and UndefinedBehaviorSanitizer. cmocka prints TAP.
. tests/lib/common.sh

suite_run() {
	rc=0
	make -s -j2 -C policy check 2>&1 || rc=1

	# The PostgreSQL shared memory model against the real server
	# (Debian's postgresql-15, installed by make deps), over a grid of
	# settings.
	sh policy/tests/pg_shmem_real.sh policy/build/san/preempt-policy 2>&1 || rc=1

	# advise's page count from a running postmaster's segment against
	# the server's shared_memory_size_in_huge_pages (a throwaway server
	# in /tmp).
	sh policy/tests/advise_real.sh policy/build/san/preempt-policy 2>&1 || rc=1

	# verify and the start-failure prediction against the real server:
	# huge_pages = try falling back to base pages is a difference, and
	# huge_pages = on without its pages is predicted not to start, as
	# the server then shows (issue 33, items 1 and 2).
	sh policy/tests/verify_real.sh policy/build/san/preempt-policy 2>&1 || rc=1

	# trial's PostgreSQL metric (commits through psql as the cluster's
	# owner) on a throwaway server under pgbench; the mode file emulated.
	sh policy/tests/trial_pg_real.sh policy/build/san/preempt-policy 2>&1 || rc=1
	return $rc
}

suite_main
