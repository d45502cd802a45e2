#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the loop test (tests/suites/85-loop.sh), one phase per boot
# of the same PostgreSQL root (tests/pg/mkimage.sh), booted through the
# dracut initramfs whose pre-pivot hook runs preempt-policy on it first.
# The root's /t/guest.sh (tests/demo/guest-demo.sh) runs this script, its /t/loop,
# when the kernel command line has RUN_LOOP=PHASE:
#
# record  first boot: a site policy with a rule on a live fact
#         (pg_live_fallbacks > 0 -> none), huge_pages = try in the cluster's
#         postgresql.conf and too few hugetlb pages reserved. PostgreSQL
#         starts in base pages; the command of the postgresql@.service
#         drop-in (read from the installed drop-in, run as systemd would
#         after the start) records none for the next boot and leaves the
#         running mode alone (after-start = record, the default); with
#         after-start = apply it switches the running kernel too.
# state   second boot: the initramfs started it in the recorded mode (the
#         host checks that); advise names the pages the cluster needs, the
#         same number as the server's shared_memory_size_in_huge_pages,
#         and its sysctl.d line is pasted as a DBA would.
# expire  third boot: vm.nr_hugepages from /etc/sysctl.d is set before the
#         server starts, as systemd-sysctl.service does on a real system;
#         the cluster gets hugetlb pages and the drop-in's command removes
#         the state, so the boot after this one has nothing to follow either.
#
# TAP on standard output (the host renumbers it); "loop_KEY VALUE" lines
# for the host; progress on the console.
cd "$(dirname "$0")" || exit 1
# shellcheck source=../pg/guest-lib.sh
. ./guest-lib.sh
# shellcheck source=../lib/tap.sh
. ./tap.sh

PGCONF=/etc/postgresql/$PGVER/main/postgresql.conf
PGCONFDIR=${PGCONF%/*}
export PGCONFDIR
STATE=/var/lib/preempt-policy/state
SITE=/etc/preempt-policy.d/50-live-fallback.conf
APPLY=/etc/preempt-policy.d/60-after-start-apply.conf
SYSCTL=/etc/sysctl.d/60-hugepages.conf
TOO_FEW=${RUN_TOO_FEW:-16}

# backing PID: hugetlb or base, from the postmaster's smaps
backing() {
	if [ "$(smaps_kb "$1" Shared_Hugetlb)" -gt 0 ]; then
		echo hugetlb
	else
		echo base
	fi
}

start_cluster() {
	say "starting PostgreSQL ($1)"
	if ! pg_start; then
		result 1 "PostgreSQL starts ($1)" "$(tail -n 10 "$PGLOG")"
		return 1
	fi
	pid=$(pg_postmaster_pid)
	echo "loop_backing $(backing "$pid")"
}

state_line() {
	sed -n "s/^$1=//p" "$STATE" 2>/dev/null | head -n 1
}

echo "loop_phase ${RUN_LOOP:-}"
echo "loop_mode_at_script $(mode_now)"
case "${RUN_LOOP:-}" in
record)
	say "initdb"
	if ! pg_init; then
		result 1 "initdb" "$(tail -n 5 /tmp/initdb.log)"
		exit 1
	fi
	pg_set huge_pages try
	mkdir -p "${SITE%/*}"
	echo "rule pg-live-fallback: pg_live_fallbacks > 0 -> none" >"$SITE"
	got=$(hugepages_reserve "$TOO_FEW")
	echo "loop_pool $got"
	default=$(mode_now)
	start_cluster "huge_pages=try, vm.nr_hugepages=$got" || exit 1
	result "$([ "$(backing "$pid")" = base ] && echo 0 || echo 1)" \
		"huge_pages=try with $got hugetlb pages: the server fell back to base pages (smaps)"
	out=$(preempt-policy explain 2>&1)
	result "$(printf '%s\n' "$out" | grep -Eq '^ *pg_live_fallbacks +1 ' && echo 0 || echo 1)" \
		"explain sees the fallback as a live fact (pg_live_fallbacks 1)" "$out"
	out=$(after_start)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/loop_record /'
	result "$([ "$rc" = 0 ] && [ "$(state_line mode)" = none ] &&
		grep -q '^cluster=' "$STATE" && echo 0 || echo 1)" \
		"after-start (record, the default) keeps none for the next boot in $STATE" \
		"exit $rc: $out$(cat "$STATE" 2>&1)"
	result "$([ "$(mode_now)" = "$default" ] && echo 0 || echo 1)" \
		"after-start = record leaves the running mode alone ($default)" "mode now $(mode_now)"
	echo "after-start = apply" >"$APPLY"
	out=$(after_start)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/loop_apply /'
	log=$(dmesg | grep 'preempt-policy: switched from' | tail -n 1)
	result "$([ "$rc" = 0 ] && [ "$(mode_now)" = none ] &&
		[ -n "$log" ] && echo 0 || echo 1)" \
		"after-start = apply switches the running kernel to none and logs why" \
		"exit $rc, mode $(mode_now): $out"
	echo "loop_switch_log ${log#*] }"
	rm -f "$APPLY"
	pg_stop fast
	;;
state)
	start_cluster "huge_pages=try, nothing reserved" || exit 1
	result "$([ "$(backing "$pid")" = base ] && echo 0 || echo 1)" \
		"the cluster still runs in base pages"
	adv=$(preempt-policy advise 2>&1)
	printf '%s\n' "$adv" | sed 's/^/loop_advise /'
	need=$(printf '%s\n' "$adv" | sed -n 's/^  huge pages needed: \([0-9]*\) .*/\1/p' | head -n 1)
	pg_stop fast
	real=$(as_pg "postgres -C shared_memory_size_in_huge_pages -D $PGCONFDIR" 2>&1)
	result "$([ -n "$need" ] && [ "$need" = "$real" ] && echo 0 || echo 1)" \
		"advise names ${need:-?} huge pages; the server's shared_memory_size_in_huge_pages is $real"
	line=$(printf '%s\n' "$adv" | grep "> $SYSCTL" | sed 's/^ *reboot=[a-z]* *//; s/ *#.*//')
	echo "loop_paste $line"
	# procps owns /etc/sysctl.d on Debian; this root has no procps
	mkdir -p "${SYSCTL%/*}"
	eval "$line"
	result "$([ -n "$line" ] && grep -q "^vm.nr_hugepages = ${need:-x}\$" "$SYSCTL" &&
		echo 0 || echo 1)" \
		"advise's sysctl.d line, pasted, reserves $need pages at the next boot" \
		"pasted: $line; $(cat "$SYSCTL" 2>&1)"
	;;
expire)
	sysctl -p "$SYSCTL" >/dev/null 2>&1
	got=$(cat /proc/sys/vm/nr_hugepages)
	want=$(sed -n 's/^vm.nr_hugepages = //p' "$SYSCTL")
	echo "loop_pool $got"
	result "$([ -n "$want" ] && [ "$got" = "$want" ] && echo 0 || echo 1)" \
		"the pasted $SYSCTL reserves its pages at boot ($got of ${want:-?})"
	start_cluster "huge_pages=try, vm.nr_hugepages=$got" || exit 1
	result "$([ "$(backing "$pid")" = hugetlb ] && echo 0 || echo 1)" \
		"the cluster runs in hugetlb pages (smaps Shared_Hugetlb $(smaps_kb "$pid" Shared_Hugetlb) kB)"
	out=$(after_start)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/loop_record /'
	result "$([ "$rc" = 0 ] && [ ! -e "$STATE" ] && echo 0 || echo 1)" \
		"after-start removes the state once the cluster has its pages" "exit $rc: $out"
	pg_stop fast
	;;
*)
	result 1 "RUN_LOOP is record, state or expire, not '${RUN_LOOP:-}'"
	;;
esac
sync
tap_done
