#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/suites/82-bench-metal.sh (/t/guest.sh, busybox sh, TAP,
# the PostgreSQL root on the patched kernel): a small-scale run of
# make bench-metal's kit (./bench-metal.sh) as it would run on a server, and
# its refusals. The kit must
#   - refuse, changing nothing, as a user other than root, on a kernel
#     without /sys/kernel/preempt/mode (the test variable METAL_SYSFS_MODE
#     names a missing file) and on an unknown mode;
#   - run 2 modes x 2 page kinds x 1 run (a few seconds each) on a
#     throwaway cluster and write raw.txt, results.md and results.json with
#     one run per cell;
#   - put back the mode and vm.nr_hugepages it found (set here to
#     voluntary and 3, neither of which the kit would leave by chance) and
#     stop its server, after that run (which keeps its cluster, METAL_KEEP)
#     and after a SIGTERM in the middle of a hugetlb run on that cluster
#     given as an existing one (METAL_PGDATA, METAL_INIT=no: no second
#     initdb and pgbench -i), whose configuration files it must not edit,
#     and whose own directory it removes.
# The results then go to the host (lines "@@file NAME", "|" + content,
# "@@end"), which makes results.png (no gnuplot here) and checks the JSON.
# Environment (kernel command line): M_SECS (seconds per run, 3).
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/tap.sh
. ./tap.sh
PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

SYSFS=/sys/kernel/preempt/mode
NR=/proc/sys/vm/nr_hugepages
OUT=/tmp/metal-out
LOG=/tmp/metal.log

# the smoke's parameters: small, everything else the kit's defaults
METAL_MODES="none lazy" METAL_PAGES="4k hugetlb" METAL_REPS=1 METAL_BLOCKS=1
METAL_SCALE=1 METAL_SB=32MB METAL_CLIENTS=4 METAL_THREADS=2
METAL_SECS=${M_SECS:-3} METAL_WARMUP=1 METAL_DIR=/tmp METAL_OUT=$OUT
METAL_BOOTSTRAP=500 METAL_PG_SETTINGS="max_wal_size=256MB"
export METAL_MODES METAL_PAGES METAL_REPS METAL_BLOCKS METAL_SCALE METAL_SB \
	METAL_CLIENTS METAL_THREADS METAL_SECS METAL_WARMUP METAL_DIR METAL_OUT \
	METAL_BOOTSTRAP METAL_PG_SETTINGS

mode_now() {
	sed -n 's/.*\[\([a-z]*\)\].*/\1/p' "$SYSFS"
}

# state: what the kit must leave as it found it
state() {
	echo "mode=$(mode_now) nr_hugepages=$(cat "$NR")" \
		"postgres=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^postgres$')" \
		"kit_dirs=$(find /tmp -maxdepth 1 -name 'bench-metal.*' | wc -l)"
}

# refusal DESC PATTERN COMMAND...: COMMAND exits 2 with PATTERN in its
# message and the state unchanged, no results written
refusal() {
	rf_desc=$1 rf_pat=$2
	shift 2
	rf_before=$(state)
	rm -rf "$OUT"
	rf_rc=0
	"$@" >"$LOG" 2>&1 || rf_rc=$?
	rf_after=$(state)
	if [ "$rf_rc" = 2 ] && grep -q "refusing: .*$rf_pat" "$LOG" &&
		[ "$rf_after" = "$rf_before" ] && [ ! -e "$OUT" ]; then
		ok "$rf_desc: $(grep refusing "$LOG")"
	else
		not_ok "$rf_desc"
		diag "exit $rf_rc (2 expected), message with '$rf_pat' expected" \
			"before: $rf_before" "after:  $rf_after" \
			"results directory: $(ls "$OUT" 2>&1)"
		tap_indent 20 "$(cat "$LOG")"
	fi
}

echo "TAP version 13"
diag "kernel $(uname -r) $(uname -m), $(grep -c ^processor /proc/cpuinfo) CPUs," \
	"$SYSFS: $(cat "$SYSFS" 2>&1)"

echo voluntary >"$SYSFS"
echo 3 >"$NR"
want="mode=voluntary nr_hugepages=3 postgres=0 kit_dirs=0"
check "set up: mode voluntary, 3 huge pages, no server ($want)" test "$(state)" = "$want"

# --- refusals ------------------------------------------------------------------------
refusal "refuses as a user other than root" "run as root" \
	su postgres -s /bin/sh -c "sh $(pwd)/bench-metal.sh"
refusal "refuses on a kernel without $SYSFS" \
	"/sys/kernel/preempt/absent is missing: this kernel cannot switch preemption modes" \
	env METAL_SYSFS_MODE=/sys/kernel/preempt/absent sh ./bench-metal.sh
refusal "refuses a mode it does not know" "unknown mode 'fast'" \
	env METAL_MODES="none fast lazy" sh ./bench-metal.sh

# --- a small run ----------------------------------------------------------------------
rm -rf "$OUT"
t0=$(cut -d. -f1 /proc/uptime)
rc=0
METAL_KEEP=yes sh ./bench-metal.sh >"$LOG" 2>&1 || rc=$?
took=$(($(cut -d. -f1 /proc/uptime) - t0))
result "$rc" "the kit ran 2 modes x 2 page kinds x 1 run (${took} s, exit $rc)" "$(cat "$LOG")"
diag "kit run took ${took} s; its steps (guest clock):" "$(grep '^bench-metal: \[' "$LOG")"
d=$OUT/latest
runs=$(grep -c '^run ' "$d/raw.txt" 2>/dev/null)
cells=$(sed -n 's/^run pages=\([^ ]*\) mode=\([^ ]*\) .*/\1-\2/p' "$d/raw.txt" 2>/dev/null | sort -u | tr '\n' ' ')
check "raw.txt has 4 runs, one per cell ($cells)" \
	test "$runs:$cells" = "4:4k-lazy 4k-none hugetlb-lazy hugetlb-none "
rows=$(grep -Ec '^\| (4k|hugetlb) \| (none|lazy) \| ' "$d/results.md" 2>/dev/null)
check "results.md has a row for each of the 4 cells ($rows)" test "$rows" = 4
jruns=$(grep -c '"server_start":' "$d/results.json" 2>/dev/null)
check "results.json lists the 4 runs ($jruns)" test "$jruns" = 4
hp=$(sed -n 's/^bench.hugepages_needed: //p' "$d/machine.txt" 2>/dev/null)
check "the machine record has the huge pages postgres -C asked for ($hp)" \
	sh -c "echo '$hp' | grep -q '^[1-9][0-9]* (postgres -C shared_memory_size_in_huge_pages)'"
kept="mode=voluntary nr_hugepages=3 postgres=0 kit_dirs=1"
check "after the run: mode, vm.nr_hugepages back, server stopped, the cluster kept ($kept)" \
	test "$(state)" = "$kept"
[ "$(state)" = "$kept" ] || diag "now: $(state)" "$(tail -n 5 "$LOG")"
pgdata=$(find /tmp -maxdepth 1 -name 'bench-metal.*')/data

# --- SIGTERM in the middle of a run ---------------------------------------------------
rm -rf /tmp/metal-term
# busybox here has md5sum, not cksum
confsum() {
	cat "$pgdata"/*.conf | md5sum | cut -d' ' -f1
}
conf0=$(confsum)
METAL_OUT=/tmp/metal-term METAL_PAGES=hugetlb METAL_SECS=60 METAL_WARMUP=0 \
	METAL_PGDATA=$pgdata METAL_INIT=no sh ./bench-metal.sh >/tmp/metal-term.log 2>&1 &
kit=$!
i=0
while ! grep -q 'run 1 of' /tmp/metal-term.log && [ "$i" -lt 240 ] && kill -0 "$kit" 2>/dev/null; do
	sleep 0.5
	i=$((i + 1))
done
sleep 2
during=$(state)
kill -TERM "$kit"
rc=0
wait "$kit" || rc=$?
after=$(state)
conf1=$(confsum)
if [ "$rc" = 143 ] && [ "$after" = "$kept" ] && [ -n "$conf0" ] && [ "$conf1" = "$conf0" ] &&
	grep -q 'restored: mode=voluntary vm.nr_hugepages=3' /tmp/metal-term.log; then
	ok "SIGTERM during a hugetlb run on an existing cluster: exit 143, mode, vm.nr_hugepages and server as before, its files unedited ($during -> $after)"
else
	not_ok "SIGTERM during a hugetlb run on an existing cluster: exit 143, everything restored, its files unedited"
	diag "exit $rc (143 expected)" "during: $during" "after:  $after (want $kept)" \
		"*.conf md5 before: $conf0" "*.conf md5 after:  $conf1"
	tap_indent 15 "$(cat /tmp/metal-term.log)"
fi
rm -rf "${pgdata%/data}"

# --- the results, for the host ---------------------------------------------------------
for f in raw.txt machine.txt results.md results.json; do
	[ -f "$d/$f" ] || continue
	echo "@@file $f"
	sed 's/^/|/' "$d/$f"
	echo "@@end"
done
tap_done
