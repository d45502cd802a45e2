#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# trial's built-in PostgreSQL metric against the real server: a throwaway
# PostgreSQL 15 cluster under pgbench; the tool sees its postmaster in a
# fake /proc (only that process: the host's own PID 1 is not the tool's
# business here) and reads the committed transactions through psql over
# the socket in its postmaster.pid, as the data directory's owner. The
# mode file is emulated: nothing on the host is switched. Checks that the
# trial measures a rate in every window, reports coherently and puts the
# mode back; with no load it must refuse (idle).
# Usage: trial_pg_real.sh PREEMPT-POLICY [PG_BINDIR]
# Needs root and Debian's postgresql-15 (make deps).
BIN=${1:?usage: trial_pg_real.sh BINARY [PG_BINDIR]}
PGBIN=${2:-/usr/lib/postgresql/15/bin}

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../tests/lib/tap.sh
. "$HERE/../../tests/lib/tap.sh"
# shellcheck source=policy/tests/pg_real_lib.sh
. "$HERE/pg_real_lib.sh"
pg_real_setup trial
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
stop() { as_pg "$PGBIN/pg_ctl" -D "$TMP/data" -m immediate stop >/dev/null 2>&1; }
trap 'stop; rm -rf "$TMP"' EXIT
pg_real_initdb
if ! as_pg "$PGBIN/pg_ctl" -D "$TMP/data" -o "-c listen_addresses= -k $TMP -p 5432" \
	-l "$TMP/log" -w start >/dev/null 2>&1; then
	not_ok "the throwaway server did not start"
	sed 's/^/# /' "$TMP/log" | tail -5
	exit 1
fi
pid=$(head -n 1 "$TMP/data/postmaster.pid")

# The fake kernel: the patched fixture's sys (lazy running), and a proc
# with the one postmaster.
K=$TMP/k
mkdir -p "$K/proc/$pid" "$K/proc/sys/kernel" "$TMP/root"
cp -R "$HERE/fixtures/patched/sys" "$K/sys"
cp "$HERE/fixtures/patched/proc/cmdline" "$HERE/fixtures/patched/proc/meminfo" "$K/proc/"
echo "7.0.0-pg" >"$K/proc/sys/kernel/osrelease"
echo postgres >"$K/proc/$pid/comm"
printf 'Name:\tpostgres\nPid:\t%s\nPPid:\t1\n' "$pid" >"$K/proc/$pid/status"
printf '%s\000-D\000%s\000' "$PGBIN/postgres" "$TMP/data" >"$K/proc/$pid/cmdline"
ln -s "$TMP/data" "$K/proc/$pid/cwd"
: >"$K/proc/$pid/maps"
mode_now() { sed -n 's/.*[[(]\([a-z]*\)[])].*/\1/p' "$K/sys/kernel/preempt/mode"; }
run() {
	"$BIN" --proc "$K/proc" --sys "$K/sys" --root "$TMP/root" --kmsg "$TMP/kmsg" \
		"$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
}

run trial --window 1 --settle 0.3 --rounds 2 --min-rate 20
result "$([ $RC -eq 8 ] && grep -q "refused: the workload is idle: pg-commits at [0-9.e+-]* per second, under the floor of 20" "$TMP/err"; echo $?)" \
	"trial on the idle cluster: refused (exit 8), the commit rate named" "$(cat "$TMP/out" "$TMP/err")"

as_pg "$PGBIN/pgbench" -h "$TMP" -p 5432 -i -s 1 postgres >"$TMP/pgbench-init.log" 2>&1 ||
	{ not_ok "pgbench -i"; tail -5 "$TMP/pgbench-init.log" | sed 's/^/# /'; exit 1; }
as_pg "$PGBIN/pgbench" -h "$TMP" -p 5432 -c 2 -T 30 postgres >"$TMP/pgbench.log" 2>&1 &
load=$!
sleep 1
run trial --window 1 --settle 0.3 --rounds 3 --seed 36 --json
kill "$load" 2>/dev/null
wait "$load" 2>/dev/null
python3 - "$TMP/out" >"$TMP/check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["metric"] == "pg-commits", d["metric"]
assert d["modes"] == ["lazy", "none"] and d["found"] == "lazy", d["modes"]
assert len(d["windows"]) == 6, d["windows"]
assert all(w["value"] > 20 for w in d["windows"]), d["windows"]
assert d["result"] in ("keep", "none", "lazy"), d["result"]
assert d["restored"] and d["exit"] == 0 and d["aborted"] is None, d
print("# windows (commits/s):", " ".join("%s=%.0f" % (w["mode"], w["value"]) for w in d["windows"]))
print("# result:", d["result"], "none against lazy: %+.1f%%" % (100 * d["effects"][1]["effect"]))
PY
rc=$?
cat "$TMP/check"
result "$([ $rc -eq 0 ] && [ $RC -eq 0 ] && [ "$(mode_now)" = lazy ] &&
	grep -q "^<5>preempt-policy: trial: start: modes lazy,none, 3 rounds of 1000 ms after 300 ms settle, metric pg-commits" "$TMP/kmsg"; echo $?)" \
	"trial under pgbench: commits per second through psql in all 6 windows, a result, lazy put back" \
	"$(cat "$TMP/err" "$TMP/kmsg")"
tap_done
