# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the PostgreSQL guest scripts (busybox sh inside a rig guest
# booted with the root fs of tests/pg/mkrootfs.sh). Sourced from /t.
# PostgreSQL runs as the postgres user through busybox su; the socket is in
# /tmp, TCP is off.

PGVER=15
PGBIN=/usr/lib/postgresql/$PGVER/bin
PGDATA=/var/lib/postgresql/$PGVER/main
PGLOG=/tmp/postgresql.log
# PGCONFDIR: a configuration directory apart from the data directory, as
# Debian's /etc/postgresql/VERSION/CLUSTER (its postgresql.conf names
# data_directory); pg_ctl -D takes it and asks postgres for the data
# directory. Unset: the configuration is in $PGDATA.
PGCONFDIR=${PGCONFDIR:-}
PATH=$PGBIN:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
PGHOST=/tmp
PAGER='cat'
export PATH PGHOST PGDATA PAGER

SYSFS_MODE=/sys/kernel/preempt/mode
DEBUGFS_MODE=/sys/kernel/debug/sched/preempt
# shellcheck disable=SC2034 # used by the scripts that source this
WARN_BYTES=/proc/sys/vm/shmem_hugepage_warn_bytes
# The report's counter: an event in /proc/vmstat (patches/mm)
WARN_EVENT=shmem_large_nohuge_object

# TAP: tests/lib/tap.sh, sourced by the scripts that print it.

# progress MSG: a line for the host while a slow step runs
progress() {
	echo "# [$(cut -d' ' -f1 /proc/uptime)s] $*"
}

# --- PostgreSQL --------------------------------------------------------------------
as_pg() {
	su postgres -s /bin/sh -c "PATH=$PATH PGHOST=$PGHOST PGDATA=$PGDATA PAGER=cat $*"
}

# pg_init: initdb (C locale, UTF8) and the settings every guest run uses
pg_init() {
	mkdir -p "$PGDATA" /var/run/postgresql
	chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
	chmod 0700 "$PGDATA"
	as_pg "initdb --locale=C -E UTF8 -A trust -D $PGDATA" >/tmp/initdb.log 2>&1 ||
		return 1
	cat >>"${PGCONFDIR:-$PGDATA}/postgresql.conf" <<'EOF'
listen_addresses = ''
unix_socket_directories = '/tmp'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 40
max_wal_size = 1GB
checkpoint_timeout = 30min
dynamic_shared_memory_type = posix
logging_collector = off
EOF
}

# after_start: what systemd runs once postgresql@.service has started a
# cluster, taken from preempt-policy's drop-in on the root (the guests have
# no systemd; the '-' prefix only tells systemd to ignore a failure).
PG_DROPIN=/lib/systemd/system/postgresql@.service.d/preempt-policy.conf
after_start() {
	as_cmd=$(sed -n 's/^ExecStartPost=[-@:+!]*//p' "$PG_DROPIN" 2>/dev/null)
	if [ -z "$as_cmd" ]; then
		echo "no ExecStartPost= in $PG_DROPIN"
		return 127
	fi
	# shellcheck disable=SC2086 # a command line, split as systemd splits it
	$as_cmd 2>&1
}

# pg_set NAME VALUE: set a parameter for the next start
pg_set() {
	echo "$1 = $2" >>"${PGCONFDIR:-$PGDATA}/postgresql.conf"
}

pg_start() {
	as_pg "pg_ctl -D ${PGCONFDIR:-$PGDATA} -l $PGLOG -w -t 180 start" >/tmp/pg_ctl.out 2>&1
}

# pg_stop [MODE]: pg_ctl stop -m MODE (fast)
pg_stop() {
	as_pg "pg_ctl -D ${PGCONFDIR:-$PGDATA} -w -t 180 -m ${1:-fast} stop" >/tmp/pg_ctl.out 2>&1
}

pg_postmaster_pid() {
	head -n 1 "$PGDATA/postmaster.pid" 2>/dev/null
}

# q SQL: one query, unaligned, tuples only
q() {
	as_pg "psql -X -q -At -v ON_ERROR_STOP=1 -d postgres -c \"$1\""
}

# pg_sums: "accounts tellers branches history" balance sums
pg_sums() {
	q "SELECT (SELECT coalesce(sum(abalance),0) FROM pgbench_accounts) || ' ' ||
		(SELECT coalesce(sum(tbalance),0) FROM pgbench_tellers) || ' ' ||
		(SELECT coalesce(sum(bbalance),0) FROM pgbench_branches) || ' ' ||
		(SELECT coalesce(sum(delta),0) FROM pgbench_history)"
}

# pg_tps PGBENCH-OUTPUT: the tps figure (without initial connection time)
pg_tps() {
	printf '%s\n' "$1" | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | tail -n 1
}

# pg_failed PGBENCH-OUTPUT: number of failed transactions (PostgreSQL >= 15)
pg_failed() {
	printf '%s\n' "$1" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p'
}

# --- preemption modes ----------------------------------------------------------------
# mode_file: the interface that switches modes (sysfs, else debugfs)
# Progress line for the host (tests/pg/host-lib.sh shows @@run@@ lines
# from the console as they come).
say() {
	echo "@@run@@ [$(cut -d' ' -f1 /proc/uptime)s] $*" >&2
}

mode_file() {
	if [ -e "$SYSFS_MODE" ]; then
		echo "$SYSFS_MODE"
	else
		echo "$DEBUGFS_MODE"
	fi
}

# mode_now [FILE]: the current mode, in brackets (sysfs) or parentheses
# (debugfs)
mode_now() {
	sed -n 's/.*[[(]\([a-z]*\)[])].*/\1/p' "${1:-$(mode_file)}" 2>/dev/null
}

# mode_set MODE [FILE]: write and read back
mode_set() {
	f=${2:-$(mode_file)}
	echo "$1" >"$f" 2>/dev/null && [ "$(mode_now "$f")" = "$1" ]
}

# switcher_start FILE LOG INTERVAL [stamp]: cycle none voluntary full lazy
# through FILE in the background, one "mode ok|fail" line per write into
# LOG, until switcher_stop. With "stamp" (for timed runs): the first switch
# waits INTERVAL, so the run starts steady, and each line ends with the
# switch's CLOCK_REALTIME in ns (needs ./ovh-bench).
switcher_start() {
	rm -f /tmp/switcher.stop
	: >"$2"
	(
		[ -z "${4:-}" ] || sleep "$3"
		while [ ! -e /tmp/switcher.stop ]; do
			for m in none voluntary full lazy; do
				[ -e /tmp/switcher.stop ] && break
				if mode_set "$m" "$1"; then
					r=ok
				else
					r=fail
				fi
				echo "$m $r${4:+ $(now_ns real)}" >>"$2"
				sleep "$3"
			done
		done
	) &
	switcher_pid=$!
}

switcher_stop() {
	touch /tmp/switcher.stop
	wait "$switcher_pid" 2>/dev/null
}

# --- huge pages and the warning ------------------------------------------------------
warn_count() {
	c=$(sed -n "s/^$WARN_EVENT //p" /proc/vmstat 2>/dev/null)
	case "$c" in
	'' | *[!0-9]*) echo NA ;;
	*) echo "$c" ;;
	esac
}

# warn_lines: the kernel's shared-memory-without-huge-pages reports
warn_lines() {
	dmesg | sed -n 's/^\[[^]]*\] //; /^shmem: .* populated with /p'
}

# warn_wait N: wait up to 5 s for N report lines in all (a work item
# prints them after the fault that decided)
warn_wait() {
	i=0
	while [ "$(warn_lines | wc -l)" -lt "$1" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# warn_at MIB: vm.shmem_hugepage_warn_bytes (default 1 GiB), so that the
# small mappings of an emulated guest draw the kernel's warning as a big
# buffer pool would (no-op on an unpatched kernel)
warn_at() {
	echo $(($1 * 1048576)) >"$WARN_BYTES" 2>/dev/null || true
}

# hugepages_reserve N: vm.nr_hugepages=N, prints what the kernel gave
hugepages_reserve() {
	echo "$1" >/proc/sys/vm/nr_hugepages 2>/dev/null
	cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0
}

# smaps_kb PID FIELD: sum of FIELD (kB) over PID's mappings
smaps_kb() {
	awk -v f="$2:" '$1 == f { s += $2 } END { print s + 0 }' "/proc/$1/smaps" 2>/dev/null
}

# --- benchmarks (tests/bench/guest-*.sh) ---------------------------------------------
# blist VALUE: a list from the kernel command line, which cannot carry
# spaces: "_" stands for one (B_PROCS=4_8_16)
blist() {
	echo "$1" | tr _ " "
}

# bench_header: the first lines of every benchmark guest's output; sets mf,
# the file that switches modes
bench_header() {
	mf=$(mode_file)
	echo "kernel $(uname -r) $(uname -m) cpus=$(grep -c ^processor /proc/cpuinfo)"
	echo "modes $(cat "$mf" 2>&1)"
}

# now_ns [real]: CLOCK_BOOTTIME (or CLOCK_REALTIME) in ns from ./ovh-bench,
# as busybox date has no %N
now_ns() {
	_t=$(./ovh-bench now)
	_t=${_t#now }
	if [ "${1:-}" = real ]; then echo "${_t#* }"; else echo "${_t% *}"; fi
}

# pg_bench_db SB_MB SCALE: a started cluster with shared_buffers=SB_MB and
# huge_pages=off, pgbench tables at SCALE; prints "data_mb N sb_mb SB_MB",
# or an "error ..." line and returns 1
pg_bench_db() {
	say "initdb"
	pg_init || { echo "error initdb"; return 1; }
	pg_set shared_buffers "${1}MB"
	pg_set huge_pages off
	# The cluster lives in guest RAM: without these, pgbench -i at scale
	# 20 writes its 300 MB of tables to the WAL as well and fills a
	# 1.5 GiB guest. wal_level=minimal skips WAL for COPY into a table
	# created in the same transaction; the benchmark needs no archive.
	pg_set wal_level minimal
	pg_set max_wal_senders 0
	pg_set max_wal_size 256MB
	pg_start || { echo "error start: $(tail -n 2 "$PGLOG" | tr '\n' ' ')"; return 1; }
	say "pgbench -i -s $2"
	as_pg "pgbench -i -q -s $2 postgres" >/tmp/init.out 2>&1 ||
		{ echo "error pgbench -i: $(tail -n 3 /tmp/init.out | tr '\n' ' ')"; return 1; }
	echo "data_mb $(q "SELECT pg_database_size('postgres') / 1048576") sb_mb $1"
}

# policy_mode: the mode "./preempt-policy decide" picks now (for "keep",
# the mode kept), with the shipped policy (no rule: the PostgreSQL ones are
# opt-in, so this judges keeping the mode) plus the cluster's PGDATA if
# there is one; "-" without a packed tool or on failure
policy_mode() {
	[ -x ./preempt-policy ] || { echo -; return 0; }
	mkdir -p /etc
	{
		cat ./preempt-policy.conf
		[ ! -d "$PGDATA" ] || echo "pgdata = $PGDATA"
	} >/etc/preempt-policy.conf
	_m=$(./preempt-policy decide 2>/dev/null |
		sed -n 's/^mode=keep (\([a-z]*\)).*/\1/p; s/^mode=\([a-z]*\).*/\1/p')
	echo "${_m:--}"
}
