#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make bench" part (e) (/t/guest.sh, busybox sh, PostgreSQL root
# fs, multi-threaded TCG): what a runtime mode switch costs a running
# pgbench. simple-update runs B_SECS seconds with -P 1 --progress-timestamp
# (per-second tps, stamped with the guest's CLOCK_REALTIME) while a
# background loop switches none -> voluntary -> full -> lazy -> ... through
# the mode file every B_EVERY seconds, stamping each write with the same
# clock. A progress interval (previous stamp, this stamp] that holds a
# switch is a "switch" second; the first interval (connections, cold
# caches) is "start"; the rest are "steady". Output:
#   sw SECOND TPS FAILED ROLE          one per progress interval
#   swtotal FAILED PGBENCH_EXIT SWITCHES_OK SWITCHES_REFUSED TPS
# Environment: B_SB (MB), B_SCALE, B_C, B_J, B_SECS, B_EVERY.
cd "$(dirname "$0")" || exit 1
# shellcheck source=../pg/guest-lib.sh
. ./guest-lib.sh

SB=${B_SB:-128}
SCALE=${B_SCALE:-20}
C=${B_C:-8}
J=${B_J:-2}
SECS=${B_SECS:-40}
EVERY=${B_EVERY:-5}

bench_header
pg_bench_db "$SB" "$SCALE" || exit 1
mode_set lazy "$mf" || echo "error cannot start in lazy"
say "warm-up"
as_pg "pgbench -n -b simple-update -c $C -j $J -T 5 postgres" >/dev/null 2>&1

say "pgbench -T $SECS -P 1, a mode switch every $EVERY s"
switcher_start "$mf" /tmp/switch.log "$EVERY" stamp
as_pg "pgbench -n -b simple-update -c $C -j $J -T $SECS -P 1 --progress-timestamp postgres" \
	>/tmp/pgbench.out 2>/tmp/pgbench.err
rc=$?
switcher_stop
mode_set lazy "$mf" || true

# progress: 1733225000.123 s, 95.0 tps, lat 61.883 ms stddev 20.390, 0 failed
awk 'FNR == NR { if ($2 == "ok") sw[++n] = $3 / 1e9; next }
$1 == "progress:" {
	t = $2 + 0
	tps = $4 + 0
	f = 0
	for (i = 5; i < NF; i++)
		if ($(i + 1) ~ /^failed/)
			f = $i + 0
	from = k ? prev : t - 1
	role = k ? "steady" : "start"
	for (i = 1; i <= n; i++)
		if (sw[i] > from && sw[i] <= t)
			role = "switch"
	print "sw", ++k, tps, f, role
	prev = t
}' /tmp/switch.log /tmp/pgbench.err
out=$(cat /tmp/pgbench.out)
f=$(pg_failed "$out")
t=$(pg_tps "$out")
echo "swtotal ${f:-NA} $rc $(grep -c ' ok ' /tmp/switch.log) $(grep -c ' fail ' /tmp/switch.log) ${t:-NA}"
grep -v '^progress: ' /tmp/pgbench.err | head -n 5 | sed 's/^/error pgbench: /'
