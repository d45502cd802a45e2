#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# verify and the start-failure prediction against the real server (issue
# 33, items 1 and 2). A throwaway PostgreSQL 15 cluster in /tmp, named to
# the tool with pgdata= in a policy given with --config:
#  - huge_pages = try and 1200MB of shared_buffers on a host without free
#    hugetlb pages: the server falls back to base pages (no hugetlb
#    mapping in its smaps) and verify must call that a difference, with
#    the reason, exit 6; advise must say a change is required (exit 6);
#  - huge_pages = on, the same size: decide must predict the start
#    failure (exit 2, "will not start") and pg_ctl start must really fail;
#  - huge_pages = on with shared_memory_type = sysv: the same, whatever
#    the pool.
# Usage: verify_real.sh PREEMPT-POLICY [PG_BINDIR]
# Needs root (to read the postmaster's smaps; postgres runs as postgres)
# and Debian's postgresql-15. Nothing on the host changes but a directory
# in /tmp (no sysctl, no hugetlb pool); the server listens on a Unix
# socket there only.
BIN=${1:?usage: verify_real.sh BINARY [PG_BINDIR]}
PGBIN=${2:-/usr/lib/postgresql/15/bin}

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../tests/lib/tap.sh
. "$HERE/../../tests/lib/tap.sh"
# shellcheck source=policy/tests/pg_real_lib.sh
. "$HERE/pg_real_lib.sh"
pg_real_setup verify
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
stop() { as_pg "$PGBIN/pg_ctl" -D "$TMP/data" -m immediate stop >/dev/null 2>&1; }
trap 'stop; rm -rf "$TMP"' EXIT
pg_real_initdb
free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0)
echo "# free 2 MiB hugetlb pages on this host: $free"
if [ "$free" -gt 0 ]; then
	skip "verify against the real server" "$free free huge pages here: huge_pages=try would take them"
	exit 0
fi
printf 'pgdata = %s/data\n' "$TMP" >"$TMP/policy.conf"
conf=$TMP/data/postgresql.conf
cp "$conf" "$TMP/postgresql.conf.initdb"
# settings LINES...: the data directory's postgresql.conf as initdb wrote
# it plus LINES, which the server and the tool both read.
settings() {
	cp "$TMP/postgresql.conf.initdb" "$conf"
	printf '%s\n' "listen_addresses = ''" "unix_socket_directories = '$TMP'" "$@" >>"$conf"
	chown postgres "$conf"
}
tool() {
	"$BIN" --config "$TMP/policy.conf" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
}
start() {
	rm -f "$TMP/log"
	as_pg "$PGBIN/pg_ctl" -D "$TMP/data" -l "$TMP/log" -w start >/dev/null 2>&1
}
show() { sed 's/^/# /' "$@" | head -n 30; }

# --- item 1: the fallback of huge_pages = try --------------------------------
settings "shared_buffers = 1200MB" "huge_pages = try"
if ! start; then
	not_ok "huge_pages = try, 1200MB: server did not start"
	show "$TMP/log"
	exit 1
fi
pid=$(head -n 1 "$TMP/data/postmaster.pid")
# The server's own account, independent of the tool: no mapping of the
# postmaster has the hugetlb flag.
if grep -q '^VmFlags:.* ht' "/proc/$pid/smaps"; then
	not_ok "huge_pages = try fell back to base pages (smaps shows a hugetlb mapping)"
else
	ok "huge_pages = try, 1200MB: the real server fell back to base pages (no hugetlb mapping in /proc/$pid/smaps)"
fi
tool verify
row=$(grep "^cluster $TMP/data backing " "$TMP/out")
if [ "$RC" -eq 6 ] &&
	printf '%s\n' "$row" | grep -q "^cluster $TMP/data backing  *hugetlb  *none  *no  *postmaster $pid, huge_pages=try \[[0-9]\]$" &&
	grep -q "^\[[0-9]\] cluster $TMP/data backing: huge_pages = try ($TMP/data/postgresql.conf:[0-9]*) fell back to base pages: " "$TMP/out"; then
	ok "verify: the fallback is a difference with its reason, exit 6"
else
	not_ok "verify: the fallback is a difference with its reason, exit 6 (exit $RC)"
	show "$TMP/out" "$TMP/err"
fi
tool advise
if [ "$RC" -eq 6 ] && grep -q "^advise: changes required (exit 6)$" "$TMP/out" &&
	grep -q "^  reboot=no  huge_pages = on   # in $TMP/data/postgresql.conf:[0-9]*, which sets try now" "$TMP/out"; then
	ok "advise: changes required (exit 6), huge_pages = on at the line that sets try"
else
	not_ok "advise: changes required (exit 6), huge_pages = on at the line that sets try (exit $RC)"
	show "$TMP/out" "$TMP/err"
fi
stop

# --- item 2: huge_pages = on without the pages: the start failure ------------
# expect_no_start DESC PATTERN: decide predicts it (exit 2, PATTERN on
# stderr) and the real server refuses to start.
expect_no_start() {
	tool decide
	if [ "$RC" -eq 2 ] && grep -q "$2" "$TMP/err"; then
		ok "decide predicts: $1 will not start (exit 2)"
	else
		not_ok "decide predicts: $1 will not start (exit $RC)"
		show "$TMP/out" "$TMP/err"
	fi
	if start; then
		not_ok "the real server with $1 started"
		stop
	else
		ok "the real server with $1 did not start: $(grep -m 1 FATAL "$TMP/log" | sed 's/.*FATAL: *//')"
	fi
	tool verify
	if [ "$RC" -eq 7 ] && grep -q "^cluster $TMP/data backing  *hugetlb  *not-started  *no " "$TMP/out"; then
		ok "verify with $1: the start failure differs, exit 7 (bad input and a difference)"
	else
		not_ok "verify with $1: the start failure differs, exit 7 (exit $RC)"
		show "$TMP/out" "$TMP/err"
	fi
}
settings "shared_buffers = 1200MB" "huge_pages = on"
expect_no_start "huge_pages = on and an empty pool" \
	"cluster $TMP/data: huge_pages = on ($TMP/data/postgresql.conf:[0-9]*) needs [0-9]* huge pages of 2MiB, the pool .*holds [0-9]* .*: the server will not start"
settings "shared_buffers = 128MB" "huge_pages = on" "shared_memory_type = sysv"
expect_no_start "huge_pages = on and shared_memory_type = sysv" \
	"with shared_memory_type = sysv ($TMP/data/postgresql.conf:[0-9]*): the server will not start"
tap_done
