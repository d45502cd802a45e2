#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# shell-faults.sh TOOL [SHELL...]
# The real dracut hook (initrd/dracut/55preempt-policy/preempt-policy-hook.sh)
# and library, sourced by real shells the way dracut's init sources its
# hooks, with /run broken in the ways a boot can find it. The sourcing
# shell must reach its next line (a special built-in's redirection error,
# or a failed ".", would end it, and with it dracut's PID 1) and the hook
# must say what happened in the kernel log. One TAP line per shell and case.
#
# TOOL is a preempt-policy binary that runs on this machine (the suite's
# static x86_64 build). SHELLs (default dash, bash as sh, busybox sh).
#
# Nothing of this machine's is touched: every case runs in its own user
# and mount namespace (unshare -rm; the read-only and full /run are tmpfs
# mounted there, on a scratch directory), and the library works under
# PREEMPT_POLICY_PREFIX, a scratch tree with its own proc/cmdline,
# sys/kernel/preempt/mode, etc, run, tmp and dev/kmsg, which it also
# hands to the tool (--proc, --sys, --kmsg). The scratch mode file offers
# the tool nothing to switch to, and the policy says keep.
#
# Cases:
#   run-ro        /run and /tmp read-only
#   run-full      /run/preempt-policy exists on a tmpfs with no space and
#                 no inodes left
#   run-notdir    a regular file where /run/preempt-policy should be
#   lib-absent    the library is missing
#   lib-dir       a directory where the library should be
#   lib-broken    the library has a syntax error
#   tool-absent   the tool is missing (the status still written where
#                 it can be)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
hook=$top/initrd/dracut/55preempt-policy/preempt-policy-hook.sh
lib=$top/initrd/lib/preempt-policy-lib.sh
cases="run-ro run-full run-notdir lib-absent lib-dir lib-broken tool-absent"
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"

# setup CASE P: the scratch tree for CASE in P (runs inside the
# namespace, so its mounts vanish with it).
setup() {
	p=$2
	mkdir -p "$p/proc" "$p/sys/kernel/preempt" "$p/sys/kernel/debug" \
		"$p/etc/preempt-policy.d" "$p/run" "$p/tmp" "$p/dev" \
		"$p/newroot/etc" "$p/lib"
	echo "console=ttyS0 root=/dev/vda" >"$p/proc/cmdline"
	echo "full [lazy]" >"$p/sys/kernel/preempt/mode"
	: >"$p/dev/kmsg"
	# The initramfs copy with a drop-in: the hook joins them into one
	# file under /run, the write that a broken /run must not turn fatal.
	printf 'default = keep\n' >"$p/etc/preempt-policy.conf"
	printf '# drop-in\n' >"$p/etc/preempt-policy.d/10-site.conf"
	cp "$lib" "$p/lib/preempt-policy-lib.sh"
	case $1 in
	run-ro)
		mount -t tmpfs -o ro,size=64k tmpfs "$p/run" &&
			mount -t tmpfs -o ro,size=64k tmpfs "$p/tmp"
		;;
	run-full)
		mount -t tmpfs -o size=8k,nr_inodes=64 tmpfs "$p/run" || return 1
		mkdir "$p/run/preempt-policy"
		# First the blocks, then the inodes.
		dd if=/dev/zero of="$p/run/fill" bs=1k count=64 2>/dev/null
		i=0
		# printf, not ":": a special built-in's redirection error would
		# end this very script under dash.
		while printf '' 2>/dev/null >"$p/run/f$i"; do
			i=$((i + 1))
			[ $i -lt 1000 ] || break
		done
		# Really full: no new file can be made and no byte written.
		if printf '' 2>/dev/null >"$p/run/preempt-policy/probe" ||
			printf x 2>/dev/null >>"$p/run/f0"; then
			echo "run-full: the tmpfs is not full" >&2
			return 1
		fi
		;;
	run-notdir) echo "not a directory" >"$p/run/preempt-policy" ;;
	lib-absent) rm "$p/lib/preempt-policy-lib.sh" ;;
	lib-dir)
		rm "$p/lib/preempt-policy-lib.sh"
		mkdir "$p/lib/preempt-policy-lib.sh"
		;;
	lib-broken) printf 'pp_apply() {\n\tif then\n' >"$p/lib/preempt-policy-lib.sh" ;;
	esac
}

# expect CASE: a regex the scratch kernel log (or the shell's standard
# error, where the hook logs when /dev/kmsg is not writable) must match.
expect() {
	case $1 in
	lib-*) echo 'preempt-policy: initrd: .*preempt-policy-lib.sh is missing or broken; not run' ;;
	tool-absent) echo 'preempt-policy: initrd: .*/absent-tool is missing' ;;
	*) echo 'preempt-policy: initrd: done; running lazy' ;;
	esac
}

# --in-namespace CASE P TOOL SHELL (run by unshare): set the case up,
# source the hook in SHELL, report.
if [ "${1:-}" = --in-namespace ]; then
	c=$2 p=$3
	setup "$c" "$p" || { echo "SETUP-FAILED"; exit 0; }
	cd "$p" || exit 1
	# shellcheck disable=SC2086,SC2016 # "busybox sh" is two words;
	# the -c script is expanded by the shell under test
	NEWROOT=$p/newroot PREEMPT_POLICY_PREFIX=$p \
		PREEMPT_POLICY_LIB=$p/lib/preempt-policy-lib.sh \
		PREEMPT_POLICY_BIN=$4 \
		$5 -c '. "$0"; echo "NEXT-LINE hook-returned=$?"' "$hook"
	echo "shell-exit: $?"
	# Where the status landed, for the record.
	for s in run/preempt-policy/status tmp/preempt-policy/status; do
		[ ! -f "$s" ] || echo "status: $s: $(cat "$s")"
	done
	cat dev/kmsg
	exit 0
fi

[ $# -ge 1 ] || { echo "usage: shell-faults.sh TOOL [SHELL...]" >&2; exit 2; }
tool=$1
shift
[ -x "$tool" ] || { echo "shell-faults.sh: no tool $tool" >&2; exit 2; }
case "$tool" in /*) ;; *) tool=$(pwd)/$tool ;; esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# bash as sh: bash started under the name sh (POSIX mode), as /bin/sh is
# on systems where it is bash.
mkdir -p "$work/bin"
ln -s "$(command -v bash)" "$work/bin/sh"
if [ $# -eq 0 ]; then
	set -- dash "$work/bin/sh" "busybox sh"
fi

for sh in "$@"; do
	for c in $cases; do
		d=$work/$c
		rm -rf "$d"
		mkdir -p "$d"
		bin=$tool
		[ "$c" != tool-absent ] || bin=$d/p/absent-tool
		# The case runs in a namespace of its own: setup, then the
		# shell that sources the hook, then a line after it.
		unshare -rm "$top/tests/initrd/shell-faults.sh" --in-namespace "$c" "$d/p" "$bin" "$sh" \
			>"$d/out" 2>"$d/err"
		why=
		if grep -q '^SETUP-FAILED' "$d/out"; then
			why="could not set the case up: $(head -n 3 "$d/err")"
		elif ! grep -q '^NEXT-LINE hook-returned=0$' "$d/out"; then
			why="the sourcing shell did not reach its next line"
		elif ! grep -q '^shell-exit: 0$' "$d/out"; then
			why="the sourcing shell exited non-zero"
		elif ! cat "$d/out" "$d/err" | grep -q "$(expect "$c")"; then
			why="no log line matching '$(expect "$c")'"
		fi
		if [ -z "$why" ]; then
			ok "hook sourced by ${sh##*/}, $c: the shell reaches its next line; $(cat "$d/out" "$d/err" | grep -o "$(expect "$c")" | head -n 1)"
		else
			not_ok "hook sourced by ${sh##*/}, $c: $why"
			sed 's/^/#   /' "$d/out" "$d/err" | tail -n 20
		fi
	done
done
