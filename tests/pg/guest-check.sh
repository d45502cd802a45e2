#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/suites/80-postgres.sh (/t/guest.sh, busybox sh, TAP 13).
# PostgreSQL 15 on the kernel under test:
#   - the preemption mode interfaces (sysfs /sys/kernel/preempt/mode, debugfs)
#   - huge_pages=off with a large shared_buffers: the kernel's huge-page
#     warning names postgres and its pid, the counter moves
#   - preempt-policy as its Debian package installed it on the root
#     (dpkg -s, /usr/sbin/preempt-policy, the conffile
#     /etc/preempt-policy.conf): the shipped policy keeps lazy; with its
#     opt-in rules in a drop-in it switches to none
#   - pgbench simple-update and tpcb-like while the mode is switched at
#     runtime: no failed transaction, balances consistent
#   - clean shutdown, restart, balances unchanged
#   - preempt-policy trial lazy,none under pgbench (small windows): it
#     switches, puts the mode back and reports coherently
#   - huge_pages=on with vm.nr_hugepages reserved: no new warning
# Environment (kernel command line NAME=value): PG_SB (shared_buffers, MB,
# default 256), PG_T (seconds of simple-update, default 10).
cd "$(dirname "$0")" || exit 1
. ./guest-lib.sh
# shellcheck source=../lib/tap.sh
. ./tap.sh

SB=${PG_SB:-256}
T=${PG_T:-10}
# hugetlb pages for shared_buffers plus PostgreSQL's other shared memory
HP=$((SB / 2 + 40))

echo "TAP version 13"
diag "kernel $(uname -r) $(uname -m), $(grep -c ^processor /proc/cpuinfo) CPUs, $(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo) MiB, $(wc -l </etc/pg-rootfs.packages) packages, postgres $(postgres -V | sed 's/.* //')"
diag "debugfs sched/preempt: $(cat "$DEBUGFS_MODE" 2>&1)" \
	"sysfs kernel/preempt/mode: $(cat "$SYSFS_MODE" 2>&1)"

# --- the mode interfaces ---------------------------------------------------------
r=0
grep -Eq '^(\[?[a-z]+\]? ?)+$' "$SYSFS_MODE" 2>/dev/null &&
	for m in none voluntary full lazy; do
		grep -Eqw "\\[?$m\\]?" "$SYSFS_MODE" || r=1
	done || r=1
result $r "sysfs /sys/kernel/preempt/mode lists none voluntary full lazy" \
	"$(cat "$SYSFS_MODE" 2>&1)"
r=0
for m in none voluntary; do
	grep -Eqw "\\(?$m\\)?" "$DEBUGFS_MODE" 2>/dev/null || r=1
done
result $r "debugfs sched/preempt offers none and voluntary" \
	"$(cat "$DEBUGFS_MODE" 2>&1)"

# --- cluster ----------------------------------------------------------------------
progress "initdb"
r=0
pg_init || r=1
result $r "initdb --locale=C -E UTF8" "$(cat /tmp/initdb.log)"
if [ $r != 0 ]; then
	tap_plan
	exit 1
fi

# --- huge_pages=off: the warning ------------------------------------------------------
r=0
[ -f "$WARN_BYTES" ] && [ "$(warn_count)" != NA ] &&
	echo $((64 * 1024 * 1024)) >"$WARN_BYTES" 2>/dev/null &&
	[ "$(cat "$WARN_BYTES")" = $((64 * 1024 * 1024)) ] || r=1
result $r "vm.shmem_hugepage_warn_bytes set to 64 MiB" \
	"$(cd /proc/sys/vm && echo *; grep "^$WARN_EVENT" /proc/vmstat)"
c0=$(warn_count)
w0=$(warn_lines | wc -l)

pg_set shared_buffers "${SB}MB"
pg_set huge_pages off
progress "start (shared_buffers=${SB}MB, huge_pages=off)"
r=0
pg_start || r=1
result $r "server starts, shared_buffers=${SB}MB huge_pages=off" \
	"$(cat /tmp/pg_ctl.out "$PGLOG")"
if [ $r != 0 ]; then
	tap_plan
	exit 1
fi
pmpid=$(pg_postmaster_pid)
q "SELECT count(*) FROM pg_class" >/dev/null

warn_wait $((w0 + 1))
new=$(warn_lines | tail -n +$((w0 + 1)))
r=0
# One report, from the postmaster that populated the segment first
[ "$(printf '%s\n' "$new" | grep -c 'populated with')" = 1 ] || r=1
printf '%s\n' "$new" |
	grep -Eq "^shmem: postgres \\($pmpid\\): [0-9]+ MiB shared anonymous mapping populated with 4 KiB pages \\(shmem_enabled=never\\); huge pages: hugetlb \\(vm.nr_hugepages\\), THP \\(transparent_hugepage/shmem_enabled\\)$" ||
	r=1
result $r "kernel reports once: postgres ($pmpid) shared anonymous mapping in 4 KiB pages, shmem_enabled=never, remedies" \
	"postmaster pid $pmpid; new kernel lines:
$new"
[ -z "$new" ] || diag "$(printf '%s\n' "$new" | head -n 2)"
c1=$(warn_count)
r=0
[ "$c0" != NA ] && [ "$c1" != NA ] && [ "$c1" = $((c0 + 1)) ] || r=1
result $r "$WARN_EVENT in /proc/vmstat moved by 1 for the cluster's segment ($c0 -> $c1)"

# --- the policy ------------------------------------------------------------------
# The root has the package installed by dpkg (tests/pg/mkrootfs.sh ARCH
# DEB): what its file list and maintainer scripts left is what runs here.
PP=/usr/sbin/preempt-policy
# dpkg's database as the package's status and version (the root has no
# dpkg-query).
# shellcheck disable=SC2016 # awk's fields
out=$(awk '/^Package: / { p = ($2 == "preempt-policy") }
	p && /^(Status|Version): / { sub(/^[A-Za-z]*: /, ""); printf "%s ", $0 }' \
	/var/lib/dpkg/status 2>&1)
r=0
printf '%s' "$out" | grep -q '^install ok installed' && [ -x "$PP" ] &&
	[ -f /etc/preempt-policy.conf ] &&
	grep -qx '/etc/preempt-policy.conf' /var/lib/dpkg/info/preempt-policy.conffiles 2>/dev/null ||
	r=1
result $r "preempt-policy package installed on the root: $PP, conffile /etc/preempt-policy.conf ($out)" \
	"$(ls -l "$PP" /etc/preempt-policy.conf /var/lib/dpkg/info/preempt-policy.* 2>&1)"
mkdir -p /etc/preempt-policy.d
# The package's policy plus where this cluster lives (not under
# /etc/postgresql here), as an admin edits the conffile.
cp /etc/preempt-policy.conf /tmp/preempt-policy.conf.dpkg
echo "pgdata = $PGDATA" >>/etc/preempt-policy.conf
# decide_expects PATTERN DESC: preempt-policy decide exits 0 and prints a
# line matching PATTERN (grep BRE).
decide_expects() {
	out=$($PP decide 2>&1)
	rc=$?
	r=0
	[ $rc = 0 ] && printf '%s\n' "$out" | grep -q "$1" || r=1
	result $r "$2 (exit $rc)" "$out"
	diag "$out"
}
before=$(cat "$SYSFS_MODE" 2>&1)
# The kernel warned and shared_buffers is in 4 KiB pages, but the
# shipped policy has no rule: the mode stays.
decide_expects '^mode=keep (lazy) reason="no rule matched; default (/etc/preempt-policy.conf:[0-9]*)' \
	"preempt-policy decide keeps lazy with the shipped policy after the kernel's warning"
# apply_expects MODE DESC: preempt-policy apply exits 0 and MODE runs.
apply_expects() {
	out=$($PP apply 2>&1)
	rc=$?
	r=0
	[ $rc = 0 ] && grep -qF "[$1]" "$SYSFS_MODE" || r=1
	result $r "$2 (exit $rc, before: $before, now: $(cat "$SYSFS_MODE" 2>&1))" "$out"
}
apply_expects lazy "preempt-policy apply without the opt-in keeps lazy"
# Opt in as the shipped file says: its commented rules, uncommented,
# in a drop-in.
sed -n 's/^#\(rule \)/\1/p' /tmp/preempt-policy.conf.dpkg >/etc/preempt-policy.d/50-postgresql.conf
# shared_buffers is below the 1GiB rule; the kernel warned (counter
# > 0), so the warning rule picks none.
decide_expects '^mode=none reason="rule shm-hugepage-warnings (/etc/preempt-policy.d/50-postgresql.conf:2)' \
	"preempt-policy decide with the opt-in drop-in picks none after the kernel's warning"
apply_expects none "preempt-policy apply switches to none through the opt-in drop-in"
diag "$out"
out=$($PP --json decide 2>&1)
rc=$?
r=0
[ $rc = 0 ] && printf '%s' "$out" | grep -q '"mode"' || r=1
result $r "preempt-policy --json decide names a mode" "$out"

# --- pgbench under runtime mode switches ---------------------------------------------
progress "pgbench -i -s 5"
out=$(as_pg "pgbench -i -q -s 5 postgres" 2>&1)
r=$?
result $r "pgbench -i -s 5" "$out"

mf=$(mode_file)
mode0=$(mode_now "$mf")
progress "pgbench simple-update -c 4 -j 2 -T $T, switching modes through $mf"
switcher_start "$mf" /tmp/switch.log 1
out=$(as_pg "pgbench -n -b simple-update -c 4 -j 2 -T $T postgres" 2>&1)
rc=$?
switcher_stop
h1=$(pg_sums | cut -d' ' -f4)
progress "pgbench tpcb-like -c 4 -j 2 -T 5, switching modes"
switcher_start "$mf" /tmp/switch2.log 1
out2=$(as_pg "pgbench -n -b tpcb-like -c 4 -j 2 -T 5 postgres" 2>&1)
rc2=$?
switcher_stop
cat /tmp/switch2.log >>/tmp/switch.log
mode_set "$mode0" "$mf" || true

f1=$(pg_failed "$out")
f2=$(pg_failed "$out2")
r=0
[ $rc = 0 ] && [ "$f1" = 0 ] && [ -n "$(pg_tps "$out")" ] || r=1
result $r "simple-update -c 4 -j 2 -T $T: no failed transactions ($(pg_tps "$out") tps)" "$out"
r=0
[ $rc2 = 0 ] && [ "$f2" = 0 ] && [ -n "$(pg_tps "$out2")" ] || r=1
result $r "tpcb-like -c 4 -j 2 -T 5: no failed transactions ($(pg_tps "$out2") tps)" "$out2"

nsw=$(grep -c ' ok$' /tmp/switch.log)
nfail=$(grep -c ' fail$' /tmp/switch.log)
seen=$(sed -n 's/ ok$//p' /tmp/switch.log | sort -u | tr '\n' ' ')
r=0
[ "$nfail" = 0 ] && [ "$nsw" -ge 4 ] || r=1
for m in none voluntary full lazy; do
	case " $seen" in *" $m "*) ;; *) r=1 ;; esac
done
result $r "modes switched at runtime during pgbench through $mf: $nsw accepted, $nfail refused" \
	"$(sort /tmp/switch.log | uniq -c)"

# --- consistency -------------------------------------------------------------------
sums=$(pg_sums)
# shellcheck disable=SC2086
set -- $sums
r=0
[ $# = 4 ] && [ "$1" = "$4" ] && [ "$2" = "$3" ] &&
	[ "$2" = $(($4 - h1)) ] || r=1
result $r "balances consistent: accounts = history = $4, tellers = branches = $2 (tpcb-like share)" \
	"accounts tellers branches history: $sums; history after simple-update: $h1"
n=$(q "SELECT count(*) FROM pgbench_accounts")
r=0
[ "$n" = 500000 ] || r=1
result $r "pgbench_accounts has 500000 rows" "$n"

# --- once per segment: every backend populated it, one report -----------------------
c4=$(warn_count)
new=$(warn_lines | tail -n +$((w0 + 1)))
r=0
[ "$c4" = "$c1" ] && [ "$(printf '%s\n' "$new" | grep -c 'populated with')" = 1 ] || r=1
result $r "after pgbench's backends: still one report and $WARN_EVENT $c0 -> $c4 (once per segment)" \
	"new kernel lines:
$new"

# --- clean shutdown, restart ---------------------------------------------------------
progress "stop -m fast, restart"
r=0
pg_stop fast || r=1
state=$(pg_controldata "$PGDATA" 2>&1 | sed -n 's/^Database cluster state: *//p')
[ "$state" = "shut down" ] || r=1
result $r "pg_ctl stop -m fast, cluster state '$state'" "$(cat /tmp/pg_ctl.out; tail -n 5 "$PGLOG")"
r=0
pg_start || r=1
result $r "server restarts" "$(cat /tmp/pg_ctl.out; tail -n 10 "$PGLOG")"
sums2=$(pg_sums)
r=0
[ "$sums2" = "$sums" ] || r=1
result $r "balances unchanged after restart" "before: $sums, after: $sums2"

# --- preempt-policy trial under pgbench --------------------------------------------
# The trial's own PostgreSQL metric (commits through psql as postgres) on
# the real sysfs switch, small windows. On 2 emulated vCPUs the answer is
# expected to be "no difference detectable": checked is that it ran,
# switched, put the mode back and reported coherently.
mf=$(mode_file)
found=$(mode_now "$mf")
progress "preempt-policy trial lazy,none under pgbench tpcb-like (3 rounds of 2 s windows)"
as_pg "pgbench -n -b tpcb-like -c 4 -j 2 -T 150 postgres" >/tmp/trial-pgbench.out 2>&1 &
load=$!
: >/tmp/trial-modes.log
(while kill -0 $load 2>/dev/null; do mode_now "$mf" >>/tmp/trial-modes.log; sleep 0.2; done) &
seen_pid=$!
sleep 1
t0=$(cut -d' ' -f1 /proc/uptime)
$PP trial --modes lazy,none --window 2 --settle 0.5 --rounds 3 --seed 36 --json \
	>/tmp/trial.json 2>/tmp/trial.err
trc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
kill $load 2>/dev/null
wait $load 2>/dev/null
wait $seen_pid 2>/dev/null
json=$(cat /tmp/trial.json)
nwin=$(printf '%s' "$json" | grep -o '"round":' | wc -l)
res=$(printf '%s' "$json" | sed -n 's/.*"result":"\([a-z]*\)".*/\1/p')
seen=$(sort -u /tmp/trial-modes.log | tr '\n' ' ')
diag "trial: exit $trc in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, result ${res:-none}, modes seen: $seen" \
	"$(grep -E '^(round|none against|result)' /tmp/trial.err)"
r=0
[ $trc = 0 ] && [ "$nwin" = 6 ] &&
	printf '%s' "$json" | grep -q '"metric":"pg-commits"' &&
	printf '%s' "$json" | grep -q '"emulated":false' &&
	printf '%s' "$json" | grep -q '"restored":true' || r=1
result $r "trial under pgbench: exit 0, pg-commits in 6 windows on the real switch, mode put back" \
	"$json
$(cat /tmp/trial.err)"
r=0
case " $seen" in *" lazy "*) ;; *) r=1 ;; esac
case " $seen" in *" none "*) ;; *) r=1 ;; esac
[ "$(mode_now "$mf")" = "$found" ] || r=1
result $r "trial switched lazy and none during the windows and put $found back (seen: $seen)" \
	"$(uniq -c /tmp/trial-modes.log)"
r=0
case $res in
keep) grep -q '^result: no difference detectable at this noise; keeping ' /tmp/trial.err || r=1 ;;
lazy | none) grep -q "^result: $res wins: " /tmp/trial.err || r=1 ;;
*) r=1 ;;
esac
dmesg | grep -q "preempt-policy: trial: start: modes lazy,none, 3 rounds" &&
	[ "$(dmesg | grep -c 'preempt-policy: trial: round [1-3]: ')" = 6 ] || r=1
result $r "trial reported coherently: the text says what the JSON says ($res), the kernel log has the start and 6 switches" \
	"$(dmesg | grep 'preempt-policy: trial')"
pg_stop fast

# --- huge_pages=on: no warning ---------------------------------------------------------
got=$(hugepages_reserve $HP)
pg_set huge_pages on
c2=$(warn_count)
w2=$(warn_lines | wc -l)
progress "start with huge_pages=on, vm.nr_hugepages=$got"
r=0
pg_start || r=1
result $r "server starts with huge_pages=on (vm.nr_hugepages=$got)" \
	"$(cat /tmp/pg_ctl.out; tail -n 10 "$PGLOG")"
if [ $r = 0 ]; then
	pmpid=$(pg_postmaster_pid)
	q "SELECT sum(abalance) FROM pgbench_accounts" >/dev/null
	hkb=$(smaps_kb "$pmpid" Shared_Hugetlb)
	# faulted in (Total - Free) plus reserved for later faults (Rsvd)
	held=$(awk '/HugePages_(Total|Rsvd)/ {s += $2} /HugePages_Free/ {s -= $2}
		END {print s + 0}' /proc/meminfo)
	r=0
	[ "$held" -ge $((SB / 2)) ] && [ "$hkb" -gt 0 ] || r=1
	result $r "shared memory in hugetlb pages ($held of $got in use or reserved, postmaster Shared_Hugetlb ${hkb} kB)" \
		"$(grep -i huge /proc/meminfo)"
	c3=$(warn_count)
	new=$(warn_lines | tail -n +$((w2 + 1)))
	r=0
	[ "$c2" != NA ] && [ "$c3" = "$c2" ] && [ -z "$new" ] || r=1
	result $r "no huge-page warning with huge_pages=on (count $c2 -> $c3)" "$new"
	r=0
	pg_stop fast || r=1
	result $r "pg_ctl stop -m fast" "$(cat /tmp/pg_ctl.out)"
fi
hugepages_reserve 0 >/dev/null

tap_done
