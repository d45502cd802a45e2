#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2016,SC2034 # checks are single-quoted on purpose: eval runs them (and reads RC) after each call
#
# Command-line tests of preempt-policy against the fixture trees, TAP output.
# Usage: fixture_test.sh PATH/TO/preempt-policy
# Nothing here touches the live /proc, /sys or /dev/kmsg: every run gets
# --proc, --sys, --root and --kmsg (or --dry-run).

BIN=${1:?usage: fixture_test.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
FX=$HERE/fixtures
TMP=$(mktemp -d /tmp/preempt-policy-fixture.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=../../tests/lib/tap.sh
. "$HERE/../../tests/lib/tap.sh"

# check_expr DESC EXPR: one TAP line for the shell expression EXPR,
# evaluated here (it reads RC and the files of the last run); on failure
# the run's output as diagnostics.
check_expr() {
	eval "$2"
	ce_rc=$?
	result "$ce_rc" "$1" "$(cat "$TMP/out" "$TMP/err" 2>/dev/null | head -n 20)"
}

# run KERNEL ROOT ARGS...: the tool on a fixture kernel and root.
run() {
	k=$1; r=$2; shift 2
	"$BIN" --proc "$k/proc" --sys "$k/sys" --root "$r" \
		--kmsg "$TMP/kmsg" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
}

# A writable copy of a kernel tree with a given command line.
kernel_copy() {
	rm -rf "$TMP/k"
	cp -R "$FX/$1" "$TMP/k"
	printf '%s\n' "$2" >"$TMP/k/proc/cmdline"
}

first_line() { head -n 1 "$TMP/out"; }

# The PostgreSQL rules are opt-in: the shipped preempt-policy.conf carries
# them commented out. optin_root FIXTURE DEST: a copy of FIXTURE with them
# enabled as that file says, in a drop-in; the checks that want a switch
# to none use such a copy, the built-in policy keeps the mode.
SHIPPED=$HERE/../preempt-policy.conf
optin_rules() { sed -n 's/^#\(rule \)/\1/p' "$SHIPPED"; }
optin_root() {
	rm -rf "$2"
	cp -R "$FX/$1" "$2"
	mkdir -p "$2/etc/preempt-policy.d"
	optin_rules >"$2/etc/preempt-policy.d/50-postgresql.conf"
}
OPTIN=$TMP/root-pg-big-optin
optin_root root-pg-big "$OPTIN"

# --- decide -----------------------------------------------------------
check_expr "the shipped file's opt-in examples are the two PostgreSQL rules" \
	'[ "$(optin_rules | cut -d: -f1 | tr "\n" " ")" = "rule pg-shm-without-hugepages rule shm-hugepage-warnings " ]'

run "$FX/patched" "$FX/root-pg-big" decide
check_expr "decide: 8GB cluster without huge pages, built-in policy -> keep (lazy), the default named" \
	'[ $RC -eq 0 ] && [ "$(first_line)" = "mode=keep (lazy) reason=\"no rule matched; default (built-in:5)\"" ]'

run "$FX/patched" "$OPTIN" decide
check_expr "decide: the same cluster with the opt-in drop-in -> none, FILE:LINE named" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=none reason=\"rule pg-shm-without-hugepages ($OPTIN/etc/preempt-policy.d/50-postgresql.conf:1)"'

# The other way the shipped file names: uncomment the rules in it.
rm -rf "$TMP/r"
cp -R "$FX/root-pg-big" "$TMP/r"
sed 's/^#\(rule \)/\1/' "$SHIPPED" >"$TMP/r/etc/preempt-policy.conf"
run "$FX/patched" "$TMP/r" decide
check_expr "decide: the shipped file with its rules uncommented -> none" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=none reason=\"rule pg-shm-without-hugepages ($TMP/r/etc/preempt-policy.conf:[0-9]*)"'
cp "$SHIPPED" "$TMP/r/etc/preempt-policy.conf"
run "$FX/patched" "$TMP/r" decide
check_expr "decide: the shipped file as shipped -> keep (lazy), like the built-in" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=keep (lazy) reason=\"no rule matched; default ($TMP/r/etc/preempt-policy.conf:[0-9]*)\"$"'

run "$FX/patched" "$OPTIN" --json decide
check_expr "decide --json: one object, mode none" \
	'[ $RC -eq 0 ] && [ $(wc -l <"$TMP/out") -eq 1 ] && grep -q "^{\"mode\":\"none\"," "$TMP/out"'
if command -v python3 >/dev/null 2>&1; then
	run "$FX/patched" "$FX/root-pg-bad" --json explain
	check_expr "explain --json is valid JSON even with diagnostics" \
		'python3 -c "import json,sys; d=json.load(sys.stdin); assert d[\"bad_input\"] and d[\"diagnostics\"]" <"$TMP/out"'
else
	skip "explain --json is valid JSON" "no python3"
fi

run "$FX/patched" "$OPTIN" explain
check_expr "explain: every fact and the matching rule" \
	'[ $RC -eq 0 ] && grep -q "=> rule pg-shm-without-hugepages" "$TMP/out" &&
	 grep -q "pg_shm_without_hugepages *8.20GiB" "$TMP/out" &&
	 grep -q "thp_shmem_enabled *never" "$TMP/out" &&
	 grep -q "16/main: conf=/etc/postgresql/16/main/postgresql.conf" "$TMP/out"'

kernel_copy patched "ro"
echo 5000 >"$TMP/k/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
run "$TMP/k" "$OPTIN" decide
check_expr "decide: enough hugetlb pages reserved -> keep (lazy)" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=keep (lazy) "'

kernel_copy patched "ro"
echo "always [within_size] advise never deny force" \
	>"$TMP/k/sys/kernel/mm/transparent_hugepage/shmem_enabled"
run "$TMP/k" "$OPTIN" decide
check_expr "decide: shmem THP within_size -> keep" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=keep"'

optin_root root-pg-small "$TMP/small-optin"
run "$FX/patched" "$TMP/small-optin" decide
check_expr "decide: 256MB cluster, opt-in rules -> keep" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=keep (lazy)"'

kernel_copy patched "ro"
sed 's/^shmem_hugepage_warn .*/shmem_hugepage_warn 2/' "$FX/patched/proc/vmstat" \
	>"$TMP/k/proc/vmstat"
run "$TMP/k" "$FX/root-empty" decide
check_expr "decide: shmem huge page warnings, built-in policy -> keep (lazy)" \
	'[ $RC -eq 0 ] && [ "$(first_line)" = "mode=keep (lazy) reason=\"no rule matched; default (built-in:5)\"" ]'
optin_root root-empty "$TMP/empty-optin"
run "$TMP/k" "$TMP/empty-optin" decide
check_expr "decide: shmem huge page warnings but no process to look at (initramfs), opt-in rules -> keep" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=keep (lazy) reason=\"no rule matched"'
# Issue 33, item 6b: the counter only grows until reboot; the opt-in rule
# must describe now. The live fixture has objects in base pages: none.
kernel_copy live "ro"
sed 's/^shmem_hugepage_warn .*/shmem_hugepage_warn 2/' "$FX/patched/proc/vmstat" \
	>"$TMP/k/proc/vmstat"
run "$TMP/k" "$TMP/empty-optin" decide
check_expr "decide: shmem huge page warnings and objects in base pages now, opt-in rules -> none" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=none reason=\"rule shm-hugepage-warnings .*shm_warn_count > 0 (is 2) and shm_live_without_hugepages > 0B (is 9.70GiB)"'
# The remedy without a reboot: the postmaster's segment is in hugetlb
# pages now (VmFlags ht) and the other program is gone; the counter stays 2.
sed '/^7f0000000000-/,/^VmFlags/s/^VmFlags: rd wr sh/VmFlags: rd wr sh ht/' \
	"$FX/live/proc/1000/smaps" >"$TMP/k/proc/1000/smaps"
rm -r "$TMP/k/proc/3000"
run "$TMP/k" "$TMP/empty-optin" decide
check_expr "decide: after the remedy (segment in hugetlb pages, counter still 2), opt-in rules -> keep, no reboot" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=keep (lazy) reason=\"no rule matched" &&
	 run "$TMP/k" "$TMP/empty-optin" explain && grep -q "^  shm_warn_count  *2 " "$TMP/out"'

run "$FX/patched" "$FX/root-pg-custom" --arch aarch64 decide
check_expr "decide: policy file rules and pgdata outside Debian" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=none reason=\"rule big-arm"'

run "$FX/patched" "$FX/root-pg-custom" --arch x86_64 decide
check_expr "decide: first match wins, next rule for another arch" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=voluntary reason=\"rule many-cpus"'

# --- bad input ----------------------------------------------------------
run "$FX/patched" "$FX/root-pg-bad" decide
check_expr "malformed postgresql.conf: exit 2, file:line, keep" \
	'[ $RC -eq 2 ] && first_line | grep -q "^mode=keep (lazy)" &&
	 grep -q "root-pg-bad/etc/postgresql/16/main/tuning.conf:3: syntax error" "$TMP/err"'

run "$FX/patched" "$FX/root-bad-policy" decide
check_expr "malformed policy: exit 2, file:line, keep" \
	'[ $RC -eq 2 ] && first_line | grep -q "^mode=keep" &&
	 grep -q "preempt-policy.conf:3: unknown fact" "$TMP/err"'

mkfifo "$TMP/fifo.conf"
run "$FX/patched" "$FX/root-empty" --config "$TMP/fifo.conf" decide
check_expr "a FIFO as config is refused, not waited on" \
	'[ $RC -eq 2 ] && grep -q "fifo.conf: cannot read" "$TMP/err"'

awk 'BEGIN { for (i = 0; i < 5000; i++) print "# padding padding padding" }' \
	>"$TMP/big.conf"
run "$FX/patched" "$FX/root-empty" --config "$TMP/big.conf" decide
check_expr "an oversized config is refused" \
	'[ $RC -eq 2 ] && grep -q "file too large" "$TMP/err"'

kernel_copy patched "ro preempt=sometimes"
run "$TMP/k" "$FX/root-pg-big" decide
check_expr "bad preempt= value: exit 2, keep" \
	'[ $RC -eq 2 ] && first_line | grep -q "^mode=keep"'

# --- command line overrides --------------------------------------------
kernel_copy patched "ro preempt=full"
run "$TMP/k" "$FX/root-pg-big" decide
check_expr "preempt=full is the admin's choice" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=full reason=\"admin.s choice: preempt=full"'
cp "$TMP/k/sys/kernel/preempt/mode" "$TMP/mode.before"
run "$TMP/k" "$FX/root-pg-big" apply
check_expr "apply with preempt=: reports, writes nothing" \
	'[ $RC -eq 0 ] && cmp -s "$TMP/mode.before" "$TMP/k/sys/kernel/preempt/mode" &&
	 grep -q "^<4>preempt-policy: preempt=full on the command line but running lazy" "$TMP/kmsg"'

kernel_copy patched "ro preempt.policy=off"
run "$TMP/k" "$FX/root-pg-big" decide
check_expr "preempt.policy=off: decide says disabled, exit 0" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=disabled"'
run "$TMP/k" "$FX/root-pg-big" apply
check_expr "preempt.policy=off: apply exits 5" '[ $RC -eq 5 ]'

kernel_copy patched "preempt.policy=debug,voluntary"
run "$TMP/k" "$FX/root-empty" decide
check_expr "preempt.policy=debug,voluntary: forced and verbose" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=voluntary reason=\"forced" &&
	 grep -q "^facts:" "$TMP/err"'

# --- apply -----------------------------------------------------------
rm -f "$TMP/kmsg"
run "$FX/unpatched" "$OPTIN" apply
check_expr "apply on an unpatched kernel: exit 3, logged, nothing written" \
	'[ $RC -eq 3 ] && [ ! -e "$FX/unpatched/sys/kernel/preempt/mode" ] &&
	 grep -q "full (lazy)" "$FX/unpatched/sys/kernel/debug/sched/preempt" &&
	 grep -q "^<4>preempt-policy: cannot apply none: .*unpatched 7.x" "$TMP/kmsg"'

run "$FX/nomodes" "$OPTIN" apply
check_expr "apply without any mode file: exit 3" \
	'[ $RC -eq 3 ] && grep -q "no preemption mode file" "$TMP/out"'

kernel_copy patched "ro"
rm -f "$TMP/kmsg"
run "$TMP/k" "$OPTIN" --dry-run apply
check_expr "apply --dry-run: says what it would do, changes nothing" \
	'[ $RC -eq 0 ] && grep -q "would write none" "$TMP/out" &&
	 grep -q "(lazy)" "$TMP/k/sys/kernel/preempt/mode" && [ ! -e "$TMP/kmsg" ]'

# A plain file is not a kernel: the write lands, the read-back cannot show
# "(none)", and apply must say so rather than claim success.
rm -f "$TMP/kmsg"
run "$TMP/k" "$OPTIN" apply
check_expr "apply on a plain file: writes the name, read-back fails, exit 4" \
	'[ $RC -eq 4 ] && [ "$(cat "$TMP/k/sys/kernel/preempt/mode")" = none ] &&
	 grep -q "^<3>preempt-policy: wrote none to .* but the kernel reports" "$TMP/kmsg"'

kernel_copy patched "ro"
rm -f "$TMP/kmsg"
run "$TMP/k" "$FX/root-pg-big" apply
check_expr "apply keep, built-in policy, 8GB cluster without huge pages: exit 0, logged with the default, nothing written" \
	'[ $RC -eq 0 ] && cmp -s "$FX/patched/sys/kernel/preempt/mode" "$TMP/k/sys/kernel/preempt/mode" &&
	 [ "$(cat "$TMP/kmsg")" = "<5>preempt-policy: keeping lazy: no rule matched; default (built-in:5)" ]'

# --- the hugetlb pool the root will have (issue 15, class 1) -----------
# The initramfs sees no pool: systemd-sysctl has not run.  The root's
# /etc/sysctl.d reserves enough pages for its 8GB cluster: keep, and say so.
optin_root root-pg-big "$TMP/r"
mkdir -p "$TMP/r/etc/sysctl.d" "$TMP/r/usr/lib/sysctl.d" "$TMP/r/boot"
printf '# PostgreSQL\nvm.nr_hugepages = 4200\n' >"$TMP/r/etc/sysctl.d/30-pg.conf"
printf 'vm.nr_hugepages = 0\n' >"$TMP/r/usr/lib/sysctl.d/30-pg.conf"
run "$FX/patched" "$TMP/r" decide
check_expr "a pool reserved in /etc/sysctl.d: keep, predicted from FILE:LINE" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=keep (lazy) " &&
	 first_line | grep -q "hugetlb pool predicted from /etc/sysctl.d/30-pg.conf:2 (2MiB: 4200 pages, live 0)"'
printf 'vm.nr_hugepages = 4199\n' >"$TMP/r/etc/sysctl.conf"
run "$FX/patched" "$TMP/r" decide
check_expr "/etc/sysctl.conf is read last: one page short -> none" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=none " &&
	 first_line | grep -q "predicted from /etc/sysctl.conf:1"'
rm "$TMP/r/etc/sysctl.conf"
kernel_copy patched "ro hugepagesz=2M hugepages=4200"
run "$TMP/k" "$OPTIN" decide
check_expr "hugepages= on the command line counts as the pool" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=keep " &&
	 first_line | grep -q "predicted from kernel command line hugepages=4200"'
kernel_copy patched "ro sysctl.vm.nr_hugepages=100"
run "$TMP/k" "$OPTIN" decide
check_expr "sysctl.vm.nr_hugepages= too small: none" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=none "'

# keep returns to the kernel's build default: the initramfs chose none
# before the pool existed; now the pool is predicted, none's reason is gone.
kernel_copy patched "ro"
printf '(none) voluntary full lazy\n' >"$TMP/k/sys/kernel/preempt/mode"
mkdir -p "$TMP/k/proc/sys/kernel"
echo 7.3.4-arm64 >"$TMP/k/proc/sys/kernel/osrelease"
printf '# CONFIG_PREEMPT_NONE is not set\nCONFIG_PREEMPT_LAZY=y\n' \
	>"$TMP/r/boot/config-7.3.4-arm64"
run "$TMP/k" "$TMP/r" decide
check_expr "decide: keep means the build default lazy, named with its FILE:LINE" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=keep (lazy) " &&
	 first_line | grep -q "keep is the kernel.s build default lazy (/boot/config-7.3.4-arm64:2)"'
rm -f "$TMP/kmsg"
run "$TMP/k" "$TMP/r" apply
check_expr "apply: keep writes lazy over none (a plain file cannot read back: exit 4)" \
	'[ $RC -eq 4 ] && [ "$(cat "$TMP/k/sys/kernel/preempt/mode")" = lazy ] &&
	 grep -q "wrote lazy to" "$TMP/kmsg"'
printf '(none) voluntary full lazy\n' >"$TMP/k/sys/kernel/preempt/mode"
rm "$TMP/r/boot/config-7.3.4-arm64"
run "$TMP/k" "$TMP/r" apply
check_expr "keep without a build config: the current mode stays" \
	'[ $RC -eq 0 ] && grep -q "^(none)" "$TMP/k/sys/kernel/preempt/mode" &&
	 grep -q "keeping none" "$TMP/kmsg"'

# --- --root is a boundary (issue 15, classes 5 and 6) -------------------
# An absolute symlink means the root's own file, as its init will see it;
# a relative one that climbs out stops at the root; a FIFO is refused at
# once with FILE named.
rm -rf "$TMP/r" "$TMP/outside.conf"
mkdir -p "$TMP/r/etc/postgresql/15/main" "$TMP/r/srv/pg" "$TMP/r/etc/preempt-policy.d"
printf 'shared_buffers = 8GB\ninclude_if_exists = '"'"'evil.conf'"'"'\n' >"$TMP/r/srv/pg/main.conf"
ln -s /srv/pg/main.conf "$TMP/r/etc/postgresql/15/main/postgresql.conf"
printf 'shared_buffers = 16MB\n' >"$TMP/outside.conf"
ln -s ../../../../../../../../../../../../"$TMP/outside.conf" "$TMP/r/srv/pg/evil.conf"
optin_rules >"$TMP/r/etc/preempt-policy.d/50-postgresql.conf"
run "$FX/patched" "$TMP/r" decide
check_expr "absolute symlink resolved in the root, a climbing one stays inside: 8GB seen" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=none .*(is 8.20GiB)"'
mkfifo "$TMP/r/etc/preempt-policy.d/10-fifo.conf"
run "$FX/patched" "$TMP/r" --timeout 5 decide
check_expr "a FIFO in preempt-policy.d: refused at once, named, exit 2" \
	'[ $RC -eq 2 ] && grep -q "10-fifo.conf: cannot read: not a regular file" "$TMP/out" "$TMP/err"'

# Names from directories postgres owns reach terminals and the kernel
# log escaped; JSON keeps UTF-8 (issue 15, class 8).
rm -rf "$TMP/r"
esc=$(printf '\033')
utf=$(printf 'd\303\251j\303\240')
mkdir -p "$TMP/r/etc/postgresql/15/x${esc}[2J" "$TMP/r/etc/postgresql/15/$utf"
printf 'shared_buffers = 8GB\n' >"$TMP/r/etc/postgresql/15/x${esc}[2J/postgresql.conf"
printf 'shared_buffers = 1GB\n' >"$TMP/r/etc/postgresql/15/$utf/postgresql.conf"
run "$FX/patched" "$TMP/r" explain
check_expr "explain: an ESC in a cluster name is printed as \\x1b" \
	'[ $RC -eq 0 ] && ! grep -q "$esc" "$TMP/out" && grep -q "15/x\\\\x1b\[2J: conf=" "$TMP/out"'
run "$FX/patched" "$TMP/r" --json explain
check_expr "explain --json: UTF-8 names stay UTF-8, ESC is \\u001b" \
	'[ $RC -eq 0 ] && grep -q "\"15/$utf\"" "$TMP/out" &&
	 grep -q "15/x\\\\u001b\[2J" "$TMP/out" && ! grep -q "$esc" "$TMP/out"'

# No silent caps (issue 15, class 9): a directory is read to its end, and
# a cap is a diagnostic with exit 2, the same everywhere.
rm -rf "$TMP/r"
mkdir -p "$TMP/r/etc/preempt-policy.d"
i=0
while [ $i -lt 300 ]; do
	: >"$TMP/r/etc/preempt-policy.d/junk-$i.txt"
	i=$((i + 1))
done
printf 'rule site-full: always -> full\n' >"$TMP/r/etc/preempt-policy.d/50-site.conf"
run "$FX/patched" "$TMP/r" decide
check_expr "a site rule among 300 other entries of preempt-policy.d is read" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=full .*rule site-full"'
rm -f "$TMP/r/etc/preempt-policy.d/"*
i=0
while [ $i -lt 32 ]; do
	printf 'rule r%s: always -> full\n' $i >"$TMP/r/etc/preempt-policy.d/$((i + 10)).conf"
	i=$((i + 1))
done
run "$FX/patched" "$TMP/r" decide
check_expr "32 drop-ins are all read (the documented cap)" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=full .*rule r0 "'
printf 'rule r32: always -> full\n' >"$TMP/r/etc/preempt-policy.d/99.conf"
run "$FX/patched" "$TMP/r" decide
check_expr "33 drop-ins: exit 2, the cap named" \
	'[ $RC -eq 2 ] && grep -q "more than 32 \*.conf files" "$TMP/err"'
rm -rf "$TMP/r"
i=0
while [ $i -lt 40 ]; do
	mkdir -p "$TMP/r/etc/postgresql/15/c$i"
	printf 'shared_buffers = 16MB\n' >"$TMP/r/etc/postgresql/15/c$i/postgresql.conf"
	i=$((i + 1))
done
run "$FX/patched" "$TMP/r" decide
check_expr "40 clusters in one version: exit 2, 8 named as ignored" \
	'[ $RC -eq 2 ] && grep -q "more than 32 PostgreSQL clusters, 8 ignored" "$TMP/err"'

# Output contracts (issue 15, class 11).
if command -v python3 >/dev/null 2>&1; then
	run "$FX/patched" "$OPTIN" --json --dry-run apply
	check_expr "--json apply: stdout is one JSON object, the log lines on stderr" \
		'[ $RC -eq 0 ] && python3 -c "import json,sys; json.load(sys.stdin)" <"$TMP/out" &&
		 grep -q "would write none" "$TMP/err"'
fi
run "$FX/patched" "$OPTIN" --dry-run cmdline --mkimage -boot.scr
check_expr "--mkimage -boot.scr is a file name, not an option of mkimage" \
	'[ $RC -eq 0 ] && grep -q "mkimage .* -d SCRIPT \./-boot\.scr$" "$TMP/out"'
run "$FX/patched" "$TMP/no-such-root" decide
check_expr "--root that does not exist: exit 1, named" \
	'[ $RC -eq 1 ] && grep -q "^preempt-policy: --root $TMP/no-such-root: No such file or directory" "$TMP/err"'
printf 'rule typo: arch == arm46 -> none\n' >"$TMP/arch.conf"
run "$FX/patched" "$FX/root-pg-big" --config "$TMP/arch.conf" decide
check_expr "an unknown architecture in a rule: exit 2, FILE:LINE named" \
	'[ $RC -eq 2 ] && grep -q "arch.conf:1:.*value this fact never takes" "$TMP/err"'
kernel_copy patched 'ro "preempt=full" quiet'
run "$TMP/k" "$FX/root-pg-big" decide
check_expr "\"preempt=full\" quoted whole, as next_arg() allows: the admin choice" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=full .*preempt=full on the kernel command line"'

# --- cmdline ---------------------------------------------------------
run "$FX/patched" "$OPTIN" cmdline
check_expr "cmdline: plain preempt=none" '[ $RC -eq 0 ] && [ "$(cat "$TMP/out")" = preempt=none ]'

run "$FX/patched" "$OPTIN" cmdline --format grub
check_expr "cmdline --format grub" \
	'[ $RC -eq 0 ] && grep -q "^GRUB_CMDLINE_LINUX=\"\${GRUB_CMDLINE_LINUX} preempt=none\"$" "$TMP/out" &&
	 sh -n "$TMP/out"'

run "$FX/patched" "$OPTIN" cmdline --format uboot
check_expr "cmdline --format uboot" \
	'[ $RC -eq 0 ] && grep -q "^setenv bootargs \"\${bootargs} preempt=none\"$" "$TMP/out"'

run "$FX/patched" "$FX/root-pg-small" cmdline --format grub
check_expr "cmdline keep: no preempt= argument" \
	'[ $RC -eq 0 ] && ! grep -q "preempt=[a-z]" "$TMP/out" && grep -q "^# Note: keep" "$TMP/out"'

run "$FX/unpatched" "$OPTIN" cmdline
check_expr "cmdline on an unpatched kernel: exit 3, no argument" \
	'[ $RC -eq 3 ] && [ ! -s "$TMP/out" ]'

if command -v mkimage >/dev/null 2>&1; then
	run "$FX/patched" "$OPTIN" --arch aarch64 cmdline --format uboot --mkimage "$TMP/boot.scr"
	check_expr "cmdline --mkimage builds a U-Boot script image" \
		'[ $RC -eq 0 ] && [ "$(od -An -tx1 -N4 "$TMP/boot.scr" | tr -d " ")" = 27051956 ] &&
		 grep -q "preempt=none" "$TMP/boot.scr"'
else
	skip "cmdline --mkimage" "no mkimage"
fi

# --- usage -------------------------------------------------------------
run "$FX/patched" "$FX/root-empty"
check_expr "no command: exit 1" '[ $RC -eq 1 ]'
run "$FX/patched" "$FX/root-empty" frobnicate
check_expr "unknown command: exit 1" '[ $RC -eq 1 ]'
run "$FX/patched" "$FX/root-empty" cmdline --format xml
check_expr "bad --format: exit 1" '[ $RC -eq 1 ]'
run "$FX/patched" "$FX/root-empty" decide --format grub
check_expr "--format with decide: exit 1" '[ $RC -eq 1 ]'
# --- --timeout: the boot hooks' only guard against a stuck run -----------
# Opening a FIFO that nobody reads blocks for ever: a real hang of the
# real tool, ended by its own SIGALRM.
kernel_copy patched "root=/dev/vda"
mkfifo "$TMP/kmsg-fifo"
# timeout(1) only bounds the test if --timeout does not work (exit 137).
timeout -s KILL 20 "$BIN" --proc "$TMP/k/proc" --sys "$TMP/k/sys" \
	--root "$OPTIN" --kmsg "$TMP/kmsg-fifo" --timeout 1 apply \
	>"$TMP/out" 2>"$TMP/err"
RC=$?
check_expr "--timeout 1 ends a run stuck on its log: killed by SIGALRM (exit $RC)" \
	'[ $RC -eq 142 ]'
for bad in 0 -1 5s '' 86401 99999999999999999999; do
	run "$FX/patched" "$FX/root-empty" --timeout "$bad" decide
	check_expr "bad --timeout '$bad': exit 1, named" \
		'[ $RC -eq 1 ] && grep -q "^preempt-policy: --timeout takes whole seconds from 1 to 86400, not '"'$bad'"'" "$TMP/err"'
done
run "$FX/patched" "$OPTIN" --timeout 30 decide
check_expr "--timeout 30 decide: as without it" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=none "'

# --- --output-dir: what the boot hooks read back ------------------------
run "$FX/patched" "$OPTIN" --output-dir "$TMP/state" decide
check_expr "--output-dir: makes DIR, the decision in DIR/out, nothing on stdout" \
	'[ $RC -eq 0 ] && [ ! -s "$TMP/out" ] && [ -f "$TMP/state/err" ] &&
	 grep -q "^mode=none " "$TMP/state/out"'
run "$FX/patched" "$FX/root-pg-bad" --output-dir "$TMP/state" decide
check_expr "--output-dir: an existing DIR is reused, out and err truncated, diagnostics in err" \
	'[ $RC -eq 2 ] && [ $(grep -c "^mode=" "$TMP/state/out") -eq 1 ] &&
	 [ -s "$TMP/state/err" ] && [ ! -s "$TMP/err" ]'
run "$FX/patched" "$OPTIN" --output-dir "$TMP/no/such" decide
check_expr "--output-dir without its parent: named on stderr, the run goes on" \
	'[ $RC -eq 0 ] && [ ! -e "$TMP/no" ] && grep -q "^mode=none " "$TMP/out" &&
	 grep -q "^preempt-policy: --output-dir $TMP/no/such: No such file or directory; output stays here" "$TMP/err"'

# Nothing --output-dir makes follows a symlink or blocks on a FIFO (issue
# 15, classes 7 and 10); bounded by timeout(1) so the old tool's hang on
# the FIFO is a failure, not a stuck suite.
bounded() { timeout 20 "$@"; }
rm -rf "$TMP/od" "$TMP/victim" "$TMP/victim-dir"
mkdir -p "$TMP/od" "$TMP/victim-dir"
echo precious >"$TMP/victim"
ln -s "$TMP/victim" "$TMP/od/out"
mkfifo "$TMP/od/err"
bounded "$BIN" --proc "$FX/patched/proc" --sys "$FX/patched/sys" \
	--root "$OPTIN" --output-dir "$TMP/od" --timeout 5 decide \
	>"$TMP/out" 2>"$TMP/err"
RC=$?
check_expr "--output-dir: out a symlink, err a FIFO: both made anew, the link's target untouched" \
	'[ $RC -eq 0 ] && [ "$(cat "$TMP/victim")" = precious ] &&
	 [ -f "$TMP/od/out" ] && [ ! -L "$TMP/od/out" ] && [ -f "$TMP/od/err" ] &&
	 grep -q "^mode=none " "$TMP/od/out"'
ln -s "$TMP/victim-dir" "$TMP/od-link"
run "$FX/patched" "$OPTIN" --output-dir "$TMP/od-link" decide
check_expr "--output-dir that is a symlink: refused, named, nothing written through it" \
	'[ $RC -eq 0 ] && [ -z "$(ls "$TMP/victim-dir")" ] &&
	 grep -q "^mode=none " "$TMP/out" &&
	 grep -q "^preempt-policy: --output-dir $TMP/od-link: Not a directory; output stays here" "$TMP/err"'

# --- live facts (fake /proc with processes) ---------------------------
run "$FX/live" "$FX/root-pg-big" explain
check_expr "explain: the running postmaster's segment, the fallback, large objects of other processes" \
	'[ $RC -eq 0 ] && grep -q "^live: 7 processes, 2 running postmaster(s), threshold 1GiB$" "$TMP/out" &&
	 grep -q "^    running: postmaster 1000 segment=8.20GiB backing=none (live)$" "$TMP/out" &&
	 grep -q "^    huge_pages=try: running without hugetlb pages$" "$TMP/out" &&
	 grep -q "^  shared memory >= 1GiB: pid 2000 (java) object=/memfd:heap (deleted) size=2GiB backing=thp" "$TMP/out" &&
	 grep -q "^  pg_live_fallbacks  *1 " "$TMP/out" &&
	 grep -q "^  shm_live_without_hugepages  *9.70GiB " "$TMP/out" &&
	 ! grep -q "lmdb" "$TMP/out"'
if command -v python3 >/dev/null 2>&1; then
	run "$FX/live" "$FX/root-pg-big" --json explain
	check_expr "explain --json: live postmasters and objects, cluster's live backing" \
		'[ $RC -eq 0 ] && python3 -c "
import json, sys
d = json.load(sys.stdin)
l = d[\"live\"]
assert l[\"processes\"] == 7 and len(l[\"postmasters\"]) == 2, l
assert [o[\"pid\"] for o in l[\"large_shared_memory\"]] == [1000, 2000, 3000, 1100], l
assert d[\"clusters\"][0][\"live\"] == {\"pid\": 1000, \"segment\": 8808038400, \"backing\": \"none\"}
assert d[\"facts\"][\"pg_live_fallbacks\"] == 1 and d[\"facts\"][\"pg_running\"] == 2
" <"$TMP/out"'
	run "$FX/patched" "$FX/root-pg-big" --json explain
	check_expr "explain --json: no processes in /proc: live facts null, not 0" \
		'[ $RC -eq 0 ] && python3 -c "
import json, sys
d = json.load(sys.stdin)
assert d[\"facts\"][\"pg_running\"] is None and d[\"live\"][\"processes\"] == 0
" <"$TMP/out"'
else
	skip "explain --json live" "no python3"
	skip "explain --json live unknown" "no python3"
fi
printf 'rule live-fallback: pg_live_fallbacks > 0 -> none\n' >"$TMP/live.conf"
run "$FX/live" "$FX/root-pg-big" --config "$TMP/live.conf" decide
check_expr "decide: a rule on the live fallback picks none" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=none reason=\"rule live-fallback ($TMP/live.conf:1)"'
run "$FX/patched" "$FX/root-pg-big" --config "$TMP/live.conf" decide
check_expr "decide: the same rule without processes (initramfs-like /proc) does not match" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=keep (lazy) "'

# --- kernel features: preempt= ignored, opt-in modes, rseq slice extension --
kernel_copy unpatched "root=/dev/vda preempt=none rseq_slice_ext=off"
mkdir -p "$TMP/k/proc/sys/kernel" "$TMP/k/sys/kernel/debug/rseq"
echo 7.3.4-test >"$TMP/k/proc/sys/kernel/osrelease"
echo 5000 >"$TMP/k/sys/kernel/debug/rseq/slice_ext_nsec"
rm -rf "$TMP/r"
mkdir -p "$TMP/r/boot"
printf 'CONFIG_PREEMPT_LAZY=y\nCONFIG_PREEMPT_DYNAMIC=y\nCONFIG_RSEQ_SLICE_EXTENSION=y\n' >"$TMP/r/boot/config-7.3.4-test"
printf '[    0.000000] Kernel command line: root=/dev/vda preempt=none\n[    0.000000] Dynamic Preempt: unsupported mode: none\n' >"$TMP/klog"
run "$TMP/k" "$TMP/r" --kernel-log "$TMP/klog" explain
check_expr "explain: preempt=none the unpatched kernel ignored (its log line), opt-in not built, rseq extension built but off" \
	'[ $RC -eq 0 ] &&
	 grep -q "^  none/voluntary opt-in (PREEMPT_DYNAMIC_ALL_MODES): not built; the kernel does not list none$" "$TMP/out" &&
	 grep -q "^  rseq time-slice extension (RSEQ_SLICE_EXTENSION): disabled (rseq_slice_ext=off), debugfs rseq/slice_ext_nsec=5000$" "$TMP/out" &&
	 grep -q "^  preempt=none: ignored by the kernel (the kernel log says \"Dynamic Preempt: unsupported mode: \"); it runs lazy$" "$TMP/out" &&
	 grep -q "^  kernel log: \"Dynamic Preempt: unsupported mode: none\"$" "$TMP/out" &&
	 grep -q "^  preempt_ignored  *1 " "$TMP/out" && grep -q "^  rseq_slice_ext  *disabled " "$TMP/out"'
kernel_copy patched "root=/dev/vda preempt=full"
mkdir -p "$TMP/k/proc/sys/kernel"
echo 7.3.4-test >"$TMP/k/proc/sys/kernel/osrelease"
printf 'CONFIG_PREEMPT_LAZY=y\nCONFIG_PREEMPT_DYNAMIC_ALL_MODES=y\n# CONFIG_RSEQ_SLICE_EXTENSION is not set\n' >"$TMP/r/boot/config-7.3.4-test"
printf '[    0.000000] Dynamic Preempt: full\n' >"$TMP/klog"
run "$TMP/k" "$TMP/r" --kernel-log "$TMP/klog" --json explain
check_expr "explain --json: preempt=full taken, opt-in built, extension not built" \
	'[ $RC -eq 0 ] && python3 -c "
import json, sys
k = json.load(sys.stdin)[\"kernel_features\"]
assert k == {\"all_modes_built\": True, \"rseq_slice_ext\": \"not-built\", \"rseq_slice_ext_cmdline\": None, \"rseq_slice_ext_nsec\": None, \"preempt_arg\": \"full\", \"preempt_ignored\": None, \"kernel_log_unsupported_mode\": \"\"}, k
" <"$TMP/out"'

# --- verify -------------------------------------------------------------
# Issue 33, item 1: an 8GB huge_pages=try cluster that fell back to base
# pages is what the project exists for: a difference, with the reason.
run "$FX/live" "$FX/root-pg-big" verify
check_expr "verify: a huge_pages=try cluster fell back to base pages -> it differs (a footnote says why), exit 6" \
	'[ $RC -eq 6 ] && grep -q "^mode  *lazy  *lazy  *yes  *default$" "$TMP/out" &&
	 grep -q "^cluster 16/main backing  *hugetlb  *none  *no  *postmaster 1000, huge_pages=try \[3\]$" "$TMP/out" &&
	 grep -q "^\[3\] cluster 16/main backing: huge_pages = try (/var/lib/postgresql/16/main/postgresql.auto.conf:4) fell back to base pages: 8.20GiB needs 4201 pages of 2MiB; the pool does not hold them" "$TMP/out" &&
	 grep -q "^hugetlb pool 2MiB at boot  *>=4201  *0  *no  *clusters. need \[2\]$" "$TMP/out" &&
	 grep -q "^\[2\] hugetlb pool 2MiB at boot: the clusters need 4201 pages of 2MiB (16/main 4201); nothing reserves them at boot" "$TMP/out" &&
	 grep -q "^verify: 3 of 4 compared differ (exit 6)$" "$TMP/out"'
# Item 9: a footnote per row that differs, none for the others.
check_expr "verify: one footnote per row that differs, numbered in order" \
	'[ "$(grep -c "^\[[0-9]\] " "$TMP/out")" -eq 3 ] && [ "$(grep -c " \[[0-9]\]$" "$TMP/out")" -eq 3 ] &&
	 ! grep -q "^mode .*\[" "$TMP/out"'
# The live fixture's 512 pages are reserved by nothing at boot: a
# difference of their own (below); the patched kernel has no pool.
optin_root root-pg-small "$TMP/small-optin"
run "$FX/patched" "$TMP/small-optin" verify
check_expr "verify: a 256MB huge_pages=off cluster (not running) is below the size that needs huge pages -> compliant, exit 0" \
	'[ $RC -eq 0 ] && grep -q "^cluster 15/main backing  *none  *-  *n/a  *not running$" "$TMP/out" &&
	 grep -q "^verify: 0 of 2 compared differ (exit 0)$" "$TMP/out"'
run "$FX/live" "$OPTIN" verify
check_expr "verify: the policy wants none, the kernel runs lazy -> mode differs, exit 6" \
	'[ $RC -eq 6 ] && grep -q "^mode  *none  *lazy  *no  *rule \[1\]$" "$TMP/out" &&
	 grep -q "^\[1\] mode: the policy decides none (rule pg-shm-without-hugepages " "$TMP/out" &&
	 grep -q "^hugetlb pool 2MiB  *0  *512  *no  *nothing at boot \[2\]$" "$TMP/out" &&
	 grep -q "^\[2\] hugetlb pool 2MiB: the kernel has 512 pages of 2MiB now, which nothing reserves at boot" "$TMP/out" &&
	 grep -q "^verify: 4 of 4 compared differ (exit 6)$" "$TMP/out"'
kernel_copy live "ro"
echo 5000 >"$TMP/k/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
run "$TMP/k" "$FX/root-pg-big" --json verify
check_expr "verify --json: pages reserved but the running cluster is in base pages -> cluster differs, exit 6" \
	'[ $RC -eq 6 ] && python3 -c "
import json, sys
d = json.load(sys.stdin)
c = [i for i in d[\"items\"] if i[\"item\"] == \"cluster 16/main backing\"][0]
assert c[\"expected\"] == \"hugetlb\" and c[\"actual\"] == \"none\" and c[\"compliant\"] is False, c
assert c[\"reason\"].endswith(\"the pool holds them now: restart the cluster\"), c
assert d[\"differ\"] == 3 and d[\"compared\"] == 4 and d[\"exit_code\"] == 6, d
assert all(i[\"reason\"] is None for i in d[\"items\"] if i[\"compliant\"] is not False), d
" <"$TMP/out"'
rm -rf "$TMP/r"
cp -R "$FX/root-pg-sysctl" "$TMP/r"
rm "$TMP/r/usr/lib/sysctl.d/20-bad.conf"
run "$FX/patched" "$TMP/r" verify
check_expr "verify: sysctl.d reserves 4300, the live pool is 0 -> pool differs; a cluster not running is not compared" \
	'[ $RC -eq 6 ] && grep -q "^hugetlb pool 2MiB  *4300  *0  *no  */etc/sysctl.d/60-pg.conf:3 \[1\]$" "$TMP/out" &&
	 grep -q "^hugetlb pool 2MiB at boot  *>=4200  *4300  *yes  *clusters. need$" "$TMP/out" &&
	 grep -q "^cluster 15/main backing  *hugetlb  *-  *n/a  *not running$" "$TMP/out" &&
	 grep -q "^verify: 1 of 3 compared differ (exit 6)$" "$TMP/out"'
# Issue 33, item 3: bad input (a sysctl.d line that is no page count)
# must not hide the difference: both are said, and exit 7 is both.
run "$FX/patched" "$FX/root-pg-sysctl" verify
check_expr "verify: bad input and a difference -> both said, exit 7" \
	'[ $RC -eq 7 ] && grep -q "20-bad.conf:1: vm.nr_hugepages: not a page count" "$TMP/err" &&
	 grep -q "^hugetlb pool 2MiB  *4300  *0  *no " "$TMP/out" &&
	 grep -q "^verify: 1 of 3 compared differ; bad input: see the diagnostics above (exit 7)$" "$TMP/out"'
run "$FX/patched" "$FX/root-pg-sysctl" --json verify
check_expr "verify --json: bad input and a difference -> bad_input true, differ 1, exit_code 7" \
	'[ $RC -eq 7 ] && grep -q "\"differ\":1,\"bad_input\":true,\"exit_code\":7}$" "$TMP/out"'
rm -rf "$TMP/r"
cp -R "$FX/root-pg-small" "$TMP/r"
mkdir -p "$TMP/r/etc/sysctl.d"
printf 'vm.nr_hugepages = many\n' >"$TMP/r/etc/sysctl.d/20-bad.conf"
run "$FX/patched" "$TMP/r" verify
check_expr "verify: bad input and no difference -> exit 2" \
	'[ $RC -eq 2 ] && grep -q "^verify: 0 of 2 compared differ; bad input: see the diagnostics above (exit 2)$" "$TMP/out"'

# --- state file: record after start, the next boot, expiry, clear -------
rm -rf "$TMP/r"
cp -R "$FX/root-pg-big" "$TMP/r"
mkdir -p "$TMP/r/etc/preempt-policy.d"
echo 'rule pg-fell-back: pg_live_fallbacks > 0 -> none' >"$TMP/r/etc/preempt-policy.d/60-live.conf"
STATE=$TMP/r/var/lib/preempt-policy/state
run "$FX/live" "$TMP/r" after-start
check_expr "after-start (default record): the cluster fell back -> state written atomically, mode none, the cluster named" \
	'[ $RC -eq 0 ] && grep -q "^recorded $STATE: mode=none for the next boot$" "$TMP/out" &&
	 grep -qx "mode=none" "$STATE" && grep -qx "cluster=16/main" "$STATE" &&
	 grep -q "^reason=rule pg-fell-back " "$STATE" && [ ! -e "$STATE.tmp" ]'
run "$FX/patched" "$TMP/r" decide
check_expr "next boot (no processes, as in the initramfs): the state decides none" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=none reason=\"state /var/lib/preempt-policy/state: none while cluster 16/main gets no huge pages" &&
	 sed -n 2p "$TMP/out" | grep -q "^source=state "'
mkdir -p "$TMP/r/etc/sysctl.d"
echo "vm.nr_hugepages = 4300" >"$TMP/r/etc/sysctl.d/60-pg.conf"
run "$FX/patched" "$TMP/r" decide
check_expr "the pages advise named are reserved -> the state no longer holds, keep" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=keep (lazy) reason=\"no rule matched"'
rm "$TMP/r/etc/sysctl.d/60-pg.conf"
mv "$TMP/r/etc/postgresql/16" "$TMP/r/etc/postgresql-16-gone"
run "$FX/patched" "$TMP/r" decide
check_expr "the cluster is gone -> the state no longer holds, keep" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=keep (lazy) "'
mv "$TMP/r/etc/postgresql-16-gone" "$TMP/r/etc/postgresql/16"
run "$FX/patched" "$TMP/r" clear-state
check_expr "clear-state removes it; the next boot keeps the mode" \
	'[ $RC -eq 0 ] && [ ! -e "$STATE" ] && run "$FX/patched" "$TMP/r" decide && first_line | grep -q "^mode=keep (lazy) "'
run "$FX/live" "$TMP/r" record
printf 'after-start = off\n' >>"$TMP/r/etc/preempt-policy.d/60-live.conf"
rm -f "$STATE"
run "$FX/live" "$TMP/r" after-start
check_expr "after-start = off: nothing written" \
	'[ $RC -eq 0 ] && grep -q "^after-start = off in the policy: nothing done$" "$TMP/out" && [ ! -e "$STATE" ]'
sed -i "s/^after-start = off$/after-start = apply/" "$TMP/r/etc/preempt-policy.d/60-live.conf"
run "$FX/live" "$TMP/r" --dry-run after-start
check_expr "after-start = apply (--dry-run): would record and would write none" \
	'[ $RC -eq 0 ] && grep -q "^dry-run: would write $STATE: mode=none cluster=16/main$" "$TMP/out" &&
	 grep -q "none" "$TMP/out" && grep -qi "would" "$TMP/out" && [ ! -e "$STATE" ]'
mkdir -p "$(dirname "$STATE")"
printf 'mode=bogus\n' >"$STATE"
run "$FX/patched" "$TMP/r" decide
check_expr "a state file the tool did not write: diagnostic, bad input, keep" \
	'[ $RC -eq 2 ] && grep -q "var/lib/preempt-policy/state: not a state file preempt-policy wrote" "$TMP/err" &&
	 first_line | grep -q "^mode=keep"'
printf 'mode=none\ncluster=\000\n' >"$STATE"
run "$FX/patched" "$TMP/r" decide
check_expr "a state file with cluster= then a NUL byte: diagnostic naming line and key, bad input, keep" \
	'[ $RC -eq 2 ] && grep -q "var/lib/preempt-policy/state:2: cluster= value holds a NUL byte" "$TMP/err" &&
	 first_line | grep -q "^mode=keep"'
rm -rf "$TMP/r/etc/preempt-policy.d" "$STATE"
run "$FX/live" "$TMP/r" record
check_expr "record when no rule picks a mode: nothing recorded, no file" \
	'[ $RC -eq 0 ] && grep -q "^nothing to record (no rule picked a mode): state cleared" "$TMP/out" && [ ! -e "$STATE" ]'

# --- advise -------------------------------------------------------------
run "$FX/live" "$FX/root-pg-big" advise
check_expr "advise: pages from the running segment (+1 as the server counts), pool grows now, other workloads named; changes required: exit 6" \
	'[ $RC -eq 6 ] && grep -q "^cluster 16/main: running (postmaster 1000), segment 8.20GiB in base pages$" "$TMP/out" &&
	 grep -q "^  huge pages needed: 4201 of 2MiB (segment / page size + 1, as shared_memory_size_in_huge_pages)$" "$TMP/out" &&
	 grep -q "^  reboot=no  ALTER SYSTEM SET huge_pages = on;   # /var/lib/postgresql/16/main/postgresql.auto.conf:4 sets huge_pages = try (ALTER SYSTEM, read after postgresql.conf: an edit there changes nothing), after the pool; then: systemctl restart postgresql@16-main$" "$TMP/out" &&
	 grep -q "^cluster postmaster 1100 (/srv/pg15): running (postmaster 1100), segment 1GiB in hugetlb pages$" "$TMP/out" &&
	 grep -q "^  already in hugetlb pages$" "$TMP/out" &&
	 grep -q "^pool 2MiB: 4713 pages for the clusters above (live 512, at next boot 0)$" "$TMP/out" &&
	 grep -q "^  reboot=no  sysctl -w vm.nr_hugepages=4713$" "$TMP/out" &&
	 grep -q "^  growth now: yes, 5039 free blocks of 2MiB (/proc/buddyinfo)$" "$TMP/out" &&
	 ! grep -q "reboot=yes" "$TMP/out" &&
	 grep -q "^other: pid 3000 (cache-d) /dev/shm/cache 1.50GiB in base pages" "$TMP/out" &&
	 grep -q "^mode after: keep (lazy) " "$TMP/out" &&
	 grep -q "^advise: changes required (exit 6)$" "$TMP/out"'
if command -v python3 >/dev/null 2>&1; then
	run "$FX/live" "$FX/root-pg-big" --json advise
	check_expr "advise --json: one object, the segment as source, the pool's growth" \
		'[ $RC -eq 6 ] && python3 -c "
import json, sys
d = json.load(sys.stdin)
c = d[\"clusters\"][0]
assert c[\"name\"] == \"16/main\" and c[\"source\"] == \"segment\" and c[\"hugepages_needed\"] == 4201, c
assert d[\"pools\"][0][\"pages\"] == 4713 and d[\"pools\"][0][\"growth\"] == \"now\", d[\"pools\"]
assert c[\"huge_pages_origin\"] == \"/var/lib/postgresql/16/main/postgresql.auto.conf:4\" and c[\"required\"], c
assert d[\"pools\"][0][\"required_pages\"] == 4713 and d[\"pools\"][0][\"change\"], d[\"pools\"]
assert d[\"mode_after\"] == \"keep (lazy)\" and d[\"changes_required\"] and d[\"exit_code\"] == 6
" <"$TMP/out"'
else
	skip "advise --json" "no python3"
fi
kernel_copy live "ro"
printf 'Node 0, zone   Normal  24103  12811   5404   2116    903    455    229    124     63     34     10 \n' \
	>"$TMP/k/proc/buddyinfo"
run "$TMP/k" "$FX/root-pg-big" advise
check_expr "advise: few free 2MiB blocks but MemAvailable enough -> likely after compaction: sysctl now, boot parameter as the fallback" \
	'[ $RC -eq 6 ] && grep -q "^  growth now: likely after compaction (54 free blocks of 2MiB, MemAvailable 58.17GiB)" "$TMP/out" &&
	 grep -q "^  reboot=no  sysctl -w vm.nr_hugepages=4713$" "$TMP/out" &&
	 grep -q "^  reboot=no  printf .vm.nr_hugepages = 4713.n. > /etc/sysctl.d/60-hugepages.conf   # every boot$" "$TMP/out" &&
	 grep -q "^  reboot=yes hugepages=4713   # kernel command line$" "$TMP/out"'
sed -i "s/^MemAvailable:.*/MemAvailable:    4000000 kB/" "$TMP/k/proc/meminfo"
run "$TMP/k" "$FX/root-pg-big" advise
check_expr "advise: too little memory now -> hugepages= at boot, GRUB and U-Boot lines, each reboot=yes" \
	'[ $RC -eq 6 ] && grep -q "^  growth now: unlikely (54 free blocks of 2MiB, MemAvailable 3.81GiB): reserve at boot$" "$TMP/out" &&
	 ! grep -q "sysctl -w" "$TMP/out" &&
	 grep -q "^  reboot=yes printf .vm.nr_hugepages = 4713.n. > /etc/sysctl.d/60-hugepages.conf   # every boot$" "$TMP/out" &&
	 grep -q "^  reboot=yes hugepages=4713   # kernel command line$" "$TMP/out" &&
	 grep -q "^  reboot=yes GRUB_CMDLINE_LINUX=\"\${GRUB_CMDLINE_LINUX} hugepages=4713\"$" "$TMP/out" &&
	 grep -q "^  reboot=yes setenv bootargs \"\${bootargs} hugepages=4713\"$" "$TMP/out"'
printf 'Node 0, zone      DMA      1      1\nNode 0, zone   Normal  24103 18446744073709551670   5404\n' \
	>"$TMP/k/proc/buddyinfo"
run "$TMP/k" "$FX/root-pg-big" advise
check_expr "advise: a buddyinfo count past 64 bits -> error naming file and line, exit 7 (bad input and changes required), free blocks unknown (not wrapped to 54)" \
	'[ $RC -eq 7 ] && grep -q "^preempt-policy: $TMP/k/proc/buddyinfo:2: free block count does not fit in 64 bits" "$TMP/err" &&
	 grep -q "^  growth now: unknown (no usable /proc/buddyinfo, MemAvailable 3.81GiB): reserve at boot$" "$TMP/out" &&
	 grep -q "^  reboot=yes hugepages=4713   # kernel command line$" "$TMP/out"'
run "$FX/patched" "$FX/root-pg-sysctl" advise
check_expr "advise: the root's sysctl.d already reserves enough at boot -> nothing to persist, never lowered, and no hugepages= (issue 33, item 6)" \
	'[ $RC -eq 7 ] && grep -q "^  reboot=no  nothing to persist: /etc/sysctl.d/60-pg.conf:3 reserves 4300 at boot$" "$TMP/out" &&
	 grep -q "^  growth now: unknown (no usable /proc/buddyinfo, MemAvailable unknown): reserved at the next boot$" "$TMP/out" &&
	 ! grep -q "vm.nr_hugepages = 4200" "$TMP/out" && ! grep -q "hugepages=" "$TMP/out"'
run "$FX/live" "$OPTIN" advise
check_expr "advise: with the opt-in rules, none now and keep after the remedy" \
	'[ $RC -eq 6 ] && grep -q "^mode now: none$" "$TMP/out" &&
	 grep -q "^mode after: keep (lazy) reason=\"no rule matched" "$TMP/out"'
rm -rf "$TMP/r"
mkdir -p "$TMP/r/etc/postgresql/15/main"
printf "shared_buffers = 8GB\nhuge_page_size = 1GB\n" >"$TMP/r/etc/postgresql/15/main/postgresql.conf"
run "$FX/patched" "$TMP/r" advise
check_expr "advise: 1GiB pages are never grown at run time -> hugepagesz=1G hugepages=N at boot" \
	'[ $RC -eq 6 ] && grep -q "^  huge pages needed: 9 of 1GiB (model" "$TMP/out" &&
	 grep -q "^  reboot=yes hugepagesz=1G hugepages=9   # kernel command line$" "$TMP/out" &&
	 ! grep -q "vm.nr_hugepages" "$TMP/out"'
printf "shared_buffers = 2GB\nshared_memory_type = sysv\n" >"$TMP/r/etc/postgresql/15/main/postgresql.conf"
run "$FX/patched" "$TMP/r" advise
check_expr "advise: shared_memory_type = sysv -> mmap at its FILE:LINE, and its 1060 pages in the pool (issue 33, item 5)" \
	'[ $RC -eq 6 ] && grep -q "^  reboot=no  shared_memory_type = mmap   # in /etc/postgresql/15/main/postgresql.conf:2, which sets sysv now; sysv never gets huge pages$" "$TMP/out" &&
	 grep -q "^  reboot=no  huge_pages = on   # in /etc/postgresql/15/main/postgresql.conf (or ALTER SYSTEM), after the pool" "$TMP/out" &&
	 grep -q "^pool 2MiB: 1060 pages for the clusters above" "$TMP/out" &&
	 grep -q "vm.nr_hugepages = 1060" "$TMP/out"'
# The pool grown at run time as advise says (sysctl -w), not persisted:
# the next boot does not have it, so advise still names the sysctl.d
# line and verify's pool row differs; never "nothing: the pool already
# holds them".
kernel_copy live "ro"
echo 4713 >"$TMP/k/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
run "$TMP/k" "$FX/root-pg-big" advise
check_expr "advise after sysctl -w without sysctl.d: the pages are live, not at the next boot -> persist them, exit 6" \
	'[ $RC -eq 6 ] && grep -q "^pool 2MiB: 4713 pages for the clusters above (live 4713, at next boot 0)$" "$TMP/out" &&
	 grep -q "^  reboot=no  printf .vm.nr_hugepages = 4713.n. > /etc/sysctl.d/60-hugepages.conf   # every boot$" "$TMP/out" &&
	 ! grep -q "nothing: the pool already holds them" "$TMP/out"'
run "$TMP/k" "$FX/root-pg-big" verify
check_expr "verify after sysctl -w without sysctl.d: the live pool and the pool at boot differ, each with its footnote" \
	'[ $RC -eq 6 ] && grep -q "^hugetlb pool 2MiB  *0  *4713  *no  *nothing at boot \[1\]$" "$TMP/out" &&
	 grep -q "^hugetlb pool 2MiB at boot  *>=4201  *0  *no  *clusters. need \[2\]$" "$TMP/out"'
rm -rf "$TMP/r"
cp -R "$FX/root-pg-big" "$TMP/r"
kernel_copy live "ro hugepages=4713"
echo 4713 >"$TMP/k/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
run "$TMP/k" "$TMP/r" advise
check_expr "advise: hugepages=4713 on the command line reserves them at boot -> nothing to persist" \
	'grep -q "^pool 2MiB: 4713 pages for the clusters above (live 4713, at next boot 4713 from kernel command line hugepages=4713)$" "$TMP/out" &&
	 grep -q "^  reboot=no  nothing: the pool already holds them$" "$TMP/out"'
run "$FX/patched" "$FX/root-empty" advise
check_expr "advise: no cluster -> nothing to advise, exit 0" \
	'[ $RC -eq 0 ] && grep -q "^no PostgreSQL cluster found, none running: nothing to advise$" "$TMP/out"'

# --- issue 33: a remedy path a DBA can trust ------------------------------
# Item 2: huge_pages = on with 1000 of the 4200 pages it needs (fixture
# root-pg-on-short): the server will not start. Predicted and said:
# decide is bad input (exit 2), explain and advise name it first, verify
# differs (and with the bad input: exit 7).
run "$FX/patched" "$FX/root-pg-on-short" decide
check_expr "decide: huge_pages = on without its pages -> the start failure named with FILE:LINE and the pool's origin, exit 2" \
	'[ $RC -eq 2 ] && first_line | grep -q "^mode=keep (lazy) reason=\"bad input" &&
	 grep -q "^preempt-policy: cluster 15/main: huge_pages = on (/etc/postgresql/15/main/postgresql.conf:5) needs 4200 huge pages of 2MiB, the pool at boot holds 1000 from /etc/sysctl.d/60-pg.conf:3: the server will not start$" "$TMP/err"'
run "$FX/patched" "$FX/root-pg-on-short" explain
check_expr "explain: the cluster will not start (not predicted hugetlb)" \
	'[ $RC -eq 2 ] && grep -q "^    shared_buffers=8GiB huge_pages=on estimate=8.20GiB hugepages_needed=4200 backing=none$" "$TMP/out" &&
	 grep -q "^    will not start: huge_pages = on (/etc/postgresql/15/main/postgresql.conf:5) needs 4200 huge pages" "$TMP/out"'
run "$FX/patched" "$FX/root-pg-on-short" verify
check_expr "verify: the start failure differs, and the pool at boot is short of what the cluster needs (not 'expected 1000'), exit 7" \
	'[ $RC -eq 7 ] && grep -q "^cluster 15/main backing  *hugetlb  *not-started  *no  *not running \[3\]$" "$TMP/out" &&
	 grep -q "^hugetlb pool 2MiB at boot  *>=4200  *1000  *no  *clusters. need \[2\]$" "$TMP/out" &&
	 grep -q "^\[3\] cluster 15/main backing: huge_pages = on (/etc/postgresql/15/main/postgresql.conf:5) needs 4200 huge pages of 2MiB, the pool at boot holds 1000 .*: the server will not start$" "$TMP/out"'
run "$FX/patched" "$FX/root-pg-on-short" advise
check_expr "advise: the start failure first, the pool grown in the file that sets it, exit 7" \
	'[ $RC -eq 7 ] && head -n 1 "$TMP/out" | grep -q "^will not start: cluster 15/main: huge_pages = on (/etc/postgresql/15/main/postgresql.conf:5) needs 4200 huge pages" &&
	 grep -q "^  reboot=yes vm.nr_hugepages = 4200   # edit /etc/sysctl.d/60-pg.conf:3, which sets it at boot$" "$TMP/out"'
rm -rf "$TMP/r"
cp -R "$FX/root-pg-on-short" "$TMP/r"
sed -i "s/^vm.nr_hugepages = 1000/vm.nr_hugepages = 4200/" "$TMP/r/etc/sysctl.d/60-pg.conf"
run "$FX/patched" "$TMP/r" decide
check_expr "decide: huge_pages = on with the 4200 pages at boot -> no start failure, exit 0" \
	'[ $RC -eq 0 ] && [ ! -s "$TMP/err" ]'
printf 'shared_memory_type = sysv\n' >>"$TMP/r/etc/postgresql/15/main/postgresql.conf"
run "$FX/patched" "$TMP/r" decide
check_expr "decide: huge_pages = on with shared_memory_type = sysv -> the server refuses it, named, exit 2" \
	'[ $RC -eq 2 ] && grep -q "huge_pages = on (/etc/postgresql/15/main/postgresql.conf:5) with shared_memory_type = sysv (/etc/postgresql/15/main/postgresql.conf:6): the server will not start" "$TMP/err"'

# Item 4: huge_pages set in a conf.d file: advise names that FILE:LINE
# (pg_settings' sourcefile:sourceline), not postgresql.conf.
run "$FX/patched" "$FX/root-pg-confd" advise
check_expr "advise: huge_pages = off set in conf.d -> change it at conf.d/30-tuning.conf:2, exit 6" \
	'[ $RC -eq 6 ] && grep -q "^  reboot=no  huge_pages = on   # in /etc/postgresql/15/main/conf.d/30-tuning.conf:2, which sets off now, after the pool; then: systemctl restart postgresql@15-main$" "$TMP/out" &&
	 ! grep -q "in /etc/postgresql/15/main/postgresql.conf" "$TMP/out"'
run "$FX/patched" "$FX/root-pg-confd" verify
check_expr "verify: an 8GB huge_pages=off cluster (not running) -> the pool at boot differs, its footnote names the clusters' need" \
	'[ $RC -eq 6 ] && grep -q "^\[1\] hugetlb pool 2MiB at boot: the clusters need 4200 pages of 2MiB (15/main 4200)" "$TMP/out"'

# Item 9: advise says by its status whether changes are required.
run "$FX/patched" "$FX/root-pg-small" advise
check_expr "advise: a 256MB cluster below the size that needs huge pages -> advice marked not required, exit 0" \
	'[ $RC -eq 0 ] && grep -q "^  not required (below 1GiB, the size the site cares about); for huge pages anyway:$" "$TMP/out" &&
	 grep -q "^advise: nothing required (exit 0)$" "$TMP/out"'
kernel_copy patched "ro"
echo 4300 >"$TMP/k/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
rm -rf "$TMP/r"
cp -R "$FX/root-pg-on-short" "$TMP/r"
sed -i "s/^vm.nr_hugepages = 1000/vm.nr_hugepages = 4300/" "$TMP/r/etc/sysctl.d/60-pg.conf"
run "$TMP/k" "$TMP/r" advise
check_expr "advise: huge_pages = on, 4300 pages live and at boot -> nothing to change, exit 0" \
	'[ $RC -eq 0 ] && grep -q "^  reboot=no  nothing: the pool already holds them$" "$TMP/out" &&
	 grep -q "^advise: nothing required (exit 0)$" "$TMP/out"'

# Item 6: a configuration that cannot be resolved is bad input, never
# silently left out of the decision.
rm -rf "$TMP/r"
mkdir -p "$TMP/r/etc/postgresql/15/main"
ln -s postgresql.conf.b "$TMP/r/etc/postgresql/15/main/postgresql.conf"
ln -s postgresql.conf "$TMP/r/etc/postgresql/15/main/postgresql.conf.b"
run "$FX/patched" "$TMP/r" decide
check_expr "decide: a symlink loop at postgresql.conf -> named, exit 2" \
	'[ $RC -eq 2 ] && grep -q "/etc/postgresql/15/main/postgresql.conf:0: cannot read: " "$TMP/err"'
run "$FX/patched" "$TMP/r" --json explain
check_expr "explain --json: the unresolvable cluster is listed, malformed" \
	'[ $RC -eq 2 ] && grep -q "\"name\":\"15/main\",.*\"malformed\":true" "$TMP/out"'
# PG_VERSION in a pgdata= directory selects the model: the same settings
# give the count of a Debian 15 cluster, not the 17 model's.
rm -rf "$TMP/r"
mkdir -p "$TMP/r/etc/postgresql/15/main" "$TMP/r/srv/pg"
printf 'shared_buffers = 8GB\n' >"$TMP/r/etc/postgresql/15/main/postgresql.conf"
run "$FX/patched" "$TMP/r" --json explain
deb15=$(sed 's/.*"hugepages_needed":\([0-9]*\).*/\1/' "$TMP/out")
rm -r "$TMP/r/etc/postgresql"
printf 'shared_buffers = 8GB\n' >"$TMP/r/srv/pg/postgresql.conf"
printf 'pgdata = /srv/pg\n' >"$TMP/r/etc/preempt-policy.conf"
run "$FX/patched" "$TMP/r" --json explain
unknown=$(sed 's/.*"hugepages_needed":\([0-9]*\).*/\1/' "$TMP/out")
printf '15\n' >"$TMP/r/srv/pg/PG_VERSION"
run "$FX/patched" "$TMP/r" --json explain
check_expr "explain: PG_VERSION 15 in a pgdata= directory -> the 15 model ($deb15 pages, not $unknown)" \
	'[ $RC -eq 0 ] && [ "$deb15" -lt "$unknown" ] && grep -q "\"hugepages_needed\":$deb15,.*\"version\":15," "$TMP/out"'
run "$FX/patched" "$TMP/r" advise
check_expr "advise: the model's version named when it comes from PG_VERSION" \
	'grep -q "^  model of PostgreSQL 15 (PG_VERSION in its data directory)$" "$TMP/out"'
printf 'x15\n' >"$TMP/r/srv/pg/PG_VERSION"
run "$FX/patched" "$TMP/r" decide
check_expr "a PG_VERSION that is no version -> named, exit 2" \
	'[ $RC -eq 2 ] && grep -q "/srv/pg/PG_VERSION: not a PostgreSQL major version" "$TMP/err"'

# Item 8: what cmdline writes can be taken back. A preempt=none that the
# tool's GRUB snippet put on the command line is not the admin's choice:
# once the cluster has its huge pages the policy keeps the mode again.
optin_root root-pg-big "$TMP/r"
mkdir -p "$TMP/r/etc/default/grub.d"
run "$FX/live" "$TMP/r" cmdline --format grub
cp "$TMP/out" "$TMP/r/etc/default/grub.d/preempt-policy.cfg"
kernel_copy live "ro preempt=none"
run "$TMP/k" "$TMP/r" decide
check_expr "decide: the tool's own preempt=none (its GRUB snippet) on the command line -> the rules decide, the snippet named" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=none reason=\"rule pg-shm-without-hugepages .*; preempt=none on the command line is the tool.s (/etc/default/grub.d/preempt-policy.cfg:5), not the admin.s\"$"'
sed '/^7f0000000000-/,/^VmFlags/s/^VmFlags: rd wr sh/VmFlags: rd wr sh ht/' \
	"$FX/live/proc/1000/smaps" >"$TMP/k/proc/1000/smaps"
echo 5000 >"$TMP/k/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
printf 'vm.nr_hugepages = 5000\n' >"$TMP/r/etc/sysctl.d/60-pg.conf" 2>/dev/null ||
	{ mkdir -p "$TMP/r/etc/sysctl.d"; printf 'vm.nr_hugepages = 5000\n' >"$TMP/r/etc/sysctl.d/60-pg.conf"; }
printf 'huge_pages = on\n' >"$TMP/r/var/lib/postgresql/16/main/postgresql.auto.conf"
run "$TMP/k" "$TMP/r" decide
check_expr "decide: after the remedy, the tool's preempt=none no longer holds -> keep (lazy), not the admin's choice" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=keep (lazy) reason=\"no rule matched; default ([^)]*); preempt=none on the command line is the tool.s"'
run "$TMP/k" "$TMP/r" advise
check_expr "advise: take the tool's preempt=none back (cmdline --remove), changes required (exit 6)" \
	'[ $RC -eq 6 ] && grep -q "^  reboot=yes preempt-policy cmdline --format grub --remove > /etc/default/grub.d/preempt-policy.cfg && update-grub   # preempt=none on the command line is the tool.s (/etc/default/grub.d/preempt-policy.cfg:5), which the policy no longer picks$" "$TMP/out"'
run "$TMP/k" "$TMP/r" cmdline --format grub --remove
check_expr "cmdline --format grub --remove: the snippet without preempt=, valid shell" \
	'[ $RC -eq 0 ] && ! grep -q "^GRUB_CMDLINE_LINUX" "$TMP/out" && grep -q "^# Note: --remove: no preempt= argument$" "$TMP/out" &&
	 head -n 1 "$TMP/out" | grep -q "^# Written by preempt-policy cmdline" && sh -n "$TMP/out"'
# The admin's own preempt=none (a grub.d file the tool did not write)
# stays the admin's choice.
printf 'GRUB_CMDLINE_LINUX="${GRUB_CMDLINE_LINUX} preempt=none"\n' \
	>"$TMP/r/etc/default/grub.d/preempt-policy.cfg"
run "$TMP/k" "$TMP/r" decide
check_expr "decide: preempt=none from a file the tool did not write -> the admin's choice" \
	'[ $RC -eq 0 ] && first_line | grep -q "^mode=none reason=\"admin.s choice: preempt=none on the kernel command line\"$"'
# kernel-install (systemd-boot, BLS entries): the whole /etc/kernel/cmdline.
mkdir -p "$TMP/r/etc/kernel"
printf 'root=UUID=1234 ro "preempt=full" quiet  rootflags="a b"\n' >"$TMP/r/etc/kernel/cmdline"
kernel_copy live "ro"
optin_root root-pg-big "$TMP/r2"
mkdir -p "$TMP/r2/etc/kernel"
cp "$TMP/r/etc/kernel/cmdline" "$TMP/r2/etc/kernel/cmdline"
run "$TMP/k" "$TMP/r2" cmdline --format kernel-install
check_expr "cmdline --format kernel-install: /etc/kernel/cmdline with its preempt= replaced, quotes kept" \
	'[ $RC -eq 0 ] && [ "$(cat "$TMP/out")" = "root=UUID=1234 ro quiet rootflags=\"a b\" preempt=none" ] &&
	 grep -q "the whole line for /etc/kernel/cmdline (from /etc/kernel/cmdline)" "$TMP/err"'
run "$TMP/k" "$TMP/r2" cmdline --format kernel-install --remove
check_expr "cmdline --format kernel-install --remove: the line without preempt=" \
	'[ $RC -eq 0 ] && [ "$(cat "$TMP/out")" = "root=UUID=1234 ro quiet rootflags=\"a b\"" ]'
rm "$TMP/r2/etc/kernel/cmdline"
kernel_copy live "BOOT_IMAGE=/vmlinuz-7.3 root=/dev/vda initrd=/initrd.img ro"
run "$TMP/k" "$TMP/r2" cmdline --format kernel-install
check_expr "cmdline --format kernel-install without /etc/kernel/cmdline: from /proc/cmdline, BOOT_IMAGE= and initrd= dropped as kernel-install does" \
	'[ $RC -eq 0 ] && [ "$(cat "$TMP/out")" = "root=/dev/vda ro preempt=none" ]'
run "$FX/patched" "$FX/root-empty" decide --remove
check_expr "--remove with decide: exit 1" '[ $RC -eq 1 ]'

# Item 7: advise --apply writes the sysctl.d file, grows the live pool
# where buddyinfo says it can, and records both; revert undoes exactly
# that. Only on fixture trees: the live fixture's sysfs is plain files.
kernel_copy live "ro"
optin_root root-pg-big "$TMP/r"
NR=$TMP/k/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
APPLIED=$TMP/r/var/lib/preempt-policy/applied
run "$TMP/k" "$TMP/r" --dry-run advise --apply
check_expr "advise --apply --dry-run: says what it would write, changes nothing" \
	'[ $RC -eq 0 ] && grep -q "^dry-run: would write $TMP/r/etc/sysctl.d/90-preempt-policy-hugepages.conf: vm.nr_hugepages = 4713$" "$TMP/out" &&
	 [ "$(cat "$NR")" = 512 ] && [ ! -e "$TMP/r/etc/sysctl.d" ] && [ ! -e "$APPLIED" ]'
cp "$TMP/r/etc/postgresql/16/main/postgresql.conf" "$TMP/pgconf.before"
run "$TMP/k" "$TMP/r" advise --apply
check_expr "advise --apply: the sysctl.d file, the live pool grown, both recorded; no PostgreSQL file edited" \
	'[ $RC -eq 0 ] && [ "$(cat "$NR")" = 4713 ] &&
	 grep -qx "vm.nr_hugepages = 4713" "$TMP/r/etc/sysctl.d/90-preempt-policy-hugepages.conf" &&
	 grep -qx "created=/etc/sysctl.d/90-preempt-policy-hugepages.conf" "$APPLIED" &&
	 grep -qx "pool=$NR 512 4713" "$APPLIED" &&
	 cmp -s "$TMP/pgconf.before" "$TMP/r/etc/postgresql/16/main/postgresql.conf" &&
	 grep -q "^not done: huge_pages = on (no PostgreSQL file is edited)" "$TMP/out"'
run "$TMP/k" "$TMP/r" advise
check_expr "advise after --apply: the pool holds them now and at boot; huge_pages = on and the restart remain (exit 6)" \
	'[ $RC -eq 6 ] && grep -q "^  reboot=no  nothing: the pool already holds them$" "$TMP/out" &&
	 grep -q "at next boot 4713 from /etc/sysctl.d/90-preempt-policy-hugepages.conf:2" "$TMP/out"'
run "$TMP/k" "$TMP/r" advise --apply
check_expr "advise --apply twice: refused until revert, nothing changed" \
	'[ $RC -eq 1 ] && grep -q "records an earlier apply: run preempt-policy revert first" "$TMP/err"'
run "$TMP/k" "$TMP/r" revert
check_expr "revert: the file removed, the live pool back to 512, the record gone" \
	'[ $RC -eq 0 ] && [ "$(cat "$NR")" = 512 ] && [ ! -e "$TMP/r/etc/sysctl.d/90-preempt-policy-hugepages.conf" ] &&
	 [ ! -e "$APPLIED" ] && grep -q "^reverted: " "$TMP/out"'
run "$TMP/k" "$TMP/r" advise --apply
echo 600 >"$NR"
run "$TMP/k" "$TMP/r" revert
check_expr "revert: a pool changed since (600, not 4713) is left alone, the record kept, exit 4" \
	'[ $RC -eq 4 ] && [ "$(cat "$NR")" = 600 ] && [ -e "$APPLIED" ] &&
	 grep -q "is 600, not the 4713 advise --apply left: left alone" "$TMP/err"'
echo 4713 >"$NR"
run "$TMP/k" "$TMP/r" revert
check_expr "revert again once it is 4713: done, the file already gone is fine" \
	'[ $RC -eq 0 ] && [ "$(cat "$NR")" = 512 ] && [ ! -e "$APPLIED" ]'
# A later file that sets less would override the file: apply says which
# and takes its file back.
printf 'vm.nr_hugepages = 100\n' >"$TMP/r/etc/sysctl.conf"
run "$TMP/k" "$TMP/r" advise --apply
check_expr "advise --apply: /etc/sysctl.conf sets less after its file -> named, file removed again, nothing recorded, exit 4" \
	'[ $RC -eq 4 ] && grep -q "/etc/sysctl.conf:1 sets vm.nr_hugepages = 100 after /etc/sysctl.d/90-preempt-policy-hugepages.conf: removed it again" "$TMP/err" &&
	 [ ! -e "$TMP/r/etc/sysctl.d/90-preempt-policy-hugepages.conf" ] && [ ! -e "$APPLIED" ] && [ "$(cat "$NR")" = 512 ]'
mkdir -p "$(dirname "$APPLIED")"
printf 'pool=%s 512 4713x\n' "$NR" >"$APPLIED"
run "$TMP/k" "$TMP/r" revert
check_expr "revert: a record line advise --apply does not write -> named with its line, nothing reverted, exit 2" \
	'[ $RC -eq 2 ] && grep -q "applied:1: not a line advise --apply writes: nothing reverted" "$TMP/err" && [ -e "$APPLIED" ]'
rm -f "$APPLIED"
run "$FX/patched" "$FX/root-empty" --json advise --apply
check_expr "--apply with --json, or with another command: exit 1" \
	'[ $RC -eq 1 ] && run "$FX/patched" "$FX/root-empty" decide --apply && [ $RC -eq 1 ]'

run "$FX/patched" "$FX/root-empty" --version
check_expr "--version" '[ $RC -eq 0 ] && grep -q "^preempt-policy " "$TMP/out"'

tap_done
