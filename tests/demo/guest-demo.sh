#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make run" (/t/guest.sh, busybox sh): PostgreSQL 15 with a large
# shared_buffers, first without huge pages (the kernel's warning; the
# built-in policy's decision, which keeps the mode; then the opt-in
# PostgreSQL rules in a drop-in, applied), then with hugetlb pages
# reserved and huge_pages=on. Progress goes to the console (stderr) with an @@run@@
# marker, which the host follows live; results go to stdout as
# "KEY VALUE..." lines, which the host turns into the report.
#
# Two ways in:
# - the real root of tests/pg/mkimage.sh, booted through the dracut
#   initramfs (its init, tests/rig/guest-init, starts /t/guest.sh, this script,
#   after it printed its report of the boot): the root carries a
#   Debian cluster, /etc/postgresql/15/main/postgresql.conf, with its
#   shared_buffers and huge_pages = off, and no policy file; the
#   initramfs already ran preempt-policy on it (the built-in policy). The server is started from that
#   configuration directory, so the tool and the server read the same file.
# - the rig's busybox initramfs with the PostgreSQL root fs appended
#   (RUN_BOOT=rig): no cluster configuration yet; it is made here, in the
#   data directory, and /etc/preempt-policy.conf names it (pgdata only:
#   no rule, as the built-in policy).
#
# Environment (kernel command line NAME=value): RUN_SB shared_buffers MB
# (512; on the real root its postgresql.conf decides), RUN_SCALE pgbench
# scale (10), RUN_C clients (8), RUN_J threads (2), RUN_T seconds per
# pgbench run (20), RUN_BASELINE=1 also measures the kernel's default mode
# before the opt-in rules are applied (1), RUN_PGSHM the opt-in PostgreSQL
# rule's threshold (1GiB, the shipped one; make run scales it to the
# guest's RAM as it does sysctl.vm.shmem_hugepage_warn_bytes=).
# RUN_LOOP=PHASE runs the loop test's script instead (tests/suites/85-loop.sh,
# /t/loop on the same root).
cd "$(dirname "$0")" || exit 1
[ -z "${RUN_LOOP:-}" ] || exec ./loop
# shellcheck source=../pg/guest-lib.sh
. ./guest-lib.sh

SB=${RUN_SB:-512}
PGCONF=/etc/postgresql/$PGVER/main/postgresql.conf
if [ -f "$PGCONF" ]; then
	PGCONFDIR=${PGCONF%/*}
	export PGCONFDIR
	sb_conf=$(sed -n 's/^shared_buffers *= *\([0-9]*\)MB.*/\1/p' "$PGCONF" | tail -n 1)
	SB=${sb_conf:-$SB}
fi
PP=./preempt-policy
[ -x "$PP" ] || PP=$(command -v preempt-policy || echo ./preempt-policy)
S=${RUN_SCALE:-10}
C=${RUN_C:-8}
J=${RUN_J:-2}
T=${RUN_T:-20}
BASELINE=${RUN_BASELINE:-1}
PGSHM=${RUN_PGSHM:-1GiB}
HP=$((SB / 2 + 40))

# bench NAME: pgbench simple-update, result line "bench NAME MODE TPS LAT FAILED"
bench() {
	mode=$(mode_now)
	say "pgbench simple-update -c $C -j $J -T $T (mode ${mode:-?}, $1)"
	out=$(as_pg "pgbench -n -b simple-update -c $C -j $J -T $T postgres" 2>&1)
	lat=$(printf '%s\n' "$out" | sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p')
	echo "bench $1 ${mode:-?} $(pg_tps "$out") ${lat:-?} $(pg_failed "$out")"
	say "  $(pg_tps "$out") tps"
}

# policy STAGE: decide (text and JSON), then apply
policy() {
	if [ ! -x "$PP" ]; then
		echo "policy $1 none"
		return
	fi
	"$PP" decide 2>&1 | sed "s/^/decide-$1 /"
	echo "decide-$1-json $("$PP" --json decide 2>&1 | tr -d '\n')"
	"$PP" apply >/tmp/apply.out 2>&1
	echo "apply-$1 rc=$? $(tr '\n' ' ' </tmp/apply.out)"
}

echo "kernel $(uname -r) $(uname -m)"
echo "cpus $(grep -c ^processor /proc/cpuinfo)"
echo "mem_mib $(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo)"
echo "preempt_sysfs $(cat "$SYSFS_MODE" 2>&1)"
echo "preempt_debugfs $(cat "$DEBUGFS_MODE" 2>&1)"
echo "warn_bytes $(cat "$WARN_BYTES" 2>/dev/null || echo none)"
echo "postgres $(postgres -V)"
echo "params sb=$SB scale=$S clients=$C threads=$J seconds=$T"

say "initdb"
if ! pg_init; then
	echo "error initdb failed: $(tail -n 5 /tmp/initdb.log | tr '\n' ' ')"
	exit 1
fi
if [ -n "${PGCONFDIR:-}" ]; then
	echo "pgconf $PGCONF: $(grep -E '^(shared_buffers|huge_pages) ' "$PGCONF" | tr '\n' ' ')"
else
	# The cluster is not under /etc/postgresql here: name it. No rule,
	# as in the built-in policy.
	echo "pgdata = $PGDATA" >/etc/preempt-policy.conf
	pg_set shared_buffers "${SB}MB"
	pg_set huge_pages off
fi

# --- phase 1: huge_pages=off ---------------------------------------------------------
w0=$(warn_lines | wc -l)
say "starting PostgreSQL (shared_buffers=${SB}MB, huge_pages=off)"
if ! pg_start; then
	echo "error start failed: $(tail -n 5 "$PGLOG" | tr '\n' ' ')"
	exit 1
fi
say "pgbench -i -s $S"
as_pg "pgbench -i -q -s $S postgres" >/tmp/init.out 2>&1 ||
	echo "error pgbench -i failed: $(tail -n 3 /tmp/init.out | tr '\n' ' ')"
warn_lines | tail -n +$((w0 + 1)) | sed 's/^/warn1 /'
echo "warn_count1 $(warn_count)"
if [ "$BASELINE" = 1 ]; then
	# The initramfs may have switched already: measure the kernel's own
	# default first (the mode it switched from), then the policy's.
	default=$(dmesg | sed -n 's/.*preempt-policy: switched from \([a-z]*\) to .*/\1/p' | head -n 1)
	if [ -n "$default" ] && [ "$default" != "$(mode_now)" ]; then
		if mode_set "$default"; then
			echo "baseline_switch $default"
		else
			echo "error could not switch back to the kernel's default $default"
		fi
	fi
	bench "default-mode"
fi
# The built-in policy: it keeps the mode.
policy nohuge
# Opt in as the shipped preempt-policy.conf says: its two PostgreSQL rules
# in a drop-in, the first one's threshold scaled to the guest.
mkdir -p /etc/preempt-policy.d
cat >/etc/preempt-policy.d/50-postgresql.conf <<EOF
rule pg-shm-without-hugepages: pg_shm_without_hugepages >= $PGSHM -> none
rule shm-hugepage-warnings: shm_warn_count > 0 and shm_live_without_hugepages > 0 -> none
EOF
sed 's/^/optin_rule /' /etc/preempt-policy.d/50-postgresql.conf
policy optin
# The loop: what the postgresql@.service drop-in runs once the cluster is
# up (after-start; the policy's default, record, keeps the decision for
# the next boot).
echo "afterstart-optin $(after_start | tr '\n' ' ')"
echo "state-optin $(grep -v '^#' /var/lib/preempt-policy/state 2>/dev/null | tr '\n' ' ' || true)"
bench "optin-mode"
pg_stop fast

# --- phase 2: hugetlb ------------------------------------------------------------------
got=$(hugepages_reserve $HP)
echo "hugepages $HP $got"
pg_set huge_pages on
w1=$(warn_lines | wc -l)
c1=$(warn_count)
say "starting PostgreSQL (huge_pages=on, vm.nr_hugepages=$got)"
if pg_start; then
	pid=$(pg_postmaster_pid)
	policy huge
	echo "afterstart-huge $(after_start | tr '\n' ' ')"
	echo "state-huge $(grep -v '^#' /var/lib/preempt-policy/state 2>/dev/null | tr '\n' ' ' || true)"
	bench "hugepages"
	echo "hugetlb_kb $(smaps_kb "$pid" Shared_Hugetlb)"
	warn_lines | tail -n +$((w1 + 1)) | sed 's/^/warn2 /'
	echo "warn_count2 $c1 $(warn_count)"
	pg_stop fast
else
	echo "error start with huge_pages=on failed: $(tail -n 3 "$PGLOG" | tr '\n' ' ')"
fi
echo "final_mode $(mode_now)"
say "done"
