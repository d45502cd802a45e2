# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# preempt-policy-lib.sh: run "preempt-policy apply" from an initramfs, after
# the real root is mounted and before it gets control. Shared by the dracut
# hook (pre-pivot), the initramfs-tools script (init-bottom) and the tests.
# POSIX sh; sourced, so it defines pp_* functions only and never exits.
#
# The one rule: never block or fail the boot. A missing binary, a missing
# mode file, an unpatched kernel, a broken policy, a crash or a hang of the
# tool all end in a line in the kernel log and a return status of 0.
#
# Tunables (environment, for tests and unusual layouts):
#   PREEMPT_POLICY_BIN      the tool (default /usr/sbin/preempt-policy)
#   PREEMPT_POLICY_TIMEOUT  seconds after which the tool ends itself
#                           (its --timeout, SIGALRM; default 20)
#   PREEMPT_POLICY_RUNDIR   state and captured output (default
#                           /run/preempt-policy; /run survives switch_root)
#   PREEMPT_POLICY_STAGE    word after the prefix in our own log lines
#                           (default initrd)
#   PREEMPT_POLICY_KMSG     kernel log device (default /dev/kmsg)

# pp_log LEVEL MESSAGE...: one kernel log record, prefix "preempt-policy: ",
# the same prefix the tool uses, so `dmesg | grep preempt-policy:` shows the
# whole story. Falls back to standard error (the console) without /dev/kmsg.
pp_log() {
	_pp_level=$1
	shift
	_pp_kmsg=${PREEMPT_POLICY_KMSG:-/dev/kmsg}
	if [ -w "$_pp_kmsg" ] && printf '<%s>preempt-policy: %s: %s\n' \
		"$_pp_level" "${PREEMPT_POLICY_STAGE:-initrd}" "$*" \
		>>"$_pp_kmsg" 2>/dev/null; then
		return 0
	fi
	printf 'preempt-policy: %s: %s\n' "${PREEMPT_POLICY_STAGE:-initrd}" \
		"$*" >&2
	return 0
}

# pp_forward LEVEL FILE: copy the tool's diagnostics (its standard error)
# to the kernel log, at most 100 lines, keeping its own prefix.
pp_forward() {
	[ -s "$2" ] || return 0
	_pp_kmsg=${PREEMPT_POLICY_KMSG:-/dev/kmsg}
	_pp_n=0
	while IFS= read -r _pp_line || [ -n "$_pp_line" ]; do
		_pp_n=$((_pp_n + 1))
		[ "$_pp_n" -le 100 ] || break
		case "$_pp_line" in
		"preempt-policy: "*) ;;
		*) _pp_line="preempt-policy: $_pp_line" ;;
		esac
		if ! { [ -w "$_pp_kmsg" ] &&
			printf '<%s>%s\n' "$1" "$_pp_line" >>"$_pp_kmsg"; } 2>/dev/null; then
			printf '%s\n' "$_pp_line" >&2
		fi
	done <"$2"
	return 0
}

# pp_read_mode: set _pp_mode to the running mode (the word in
# parentheses), or "unknown". Shell built-ins only: each fork costs about
# a millisecond in a small guest, and this runs on every boot.
pp_read_mode() {
	_pp_mode=unknown
	for _pp_f in /sys/kernel/preempt/mode /sys/kernel/debug/sched/preempt; do
		[ -r "$_pp_f" ] || continue
		_pp_line=
		IFS= read -r _pp_line <"$_pp_f" 2>/dev/null
		case "$_pp_line" in
		*"("[a-z]*")"*)
			_pp_line=${_pp_line#*"("}
			_pp_mode=${_pp_line%%")"*}
			return 0
			;;
		esac
	done
	return 0
}

# pp_current_mode: pp_read_mode's answer on standard output.
pp_current_mode() {
	pp_read_mode
	echo "$_pp_mode"
}

# pp_read_cmdline: from the kernel command line, set _pp_policy to the
# value of the last preempt.policy= word and _pp_rd_debug to 1 when rd.debug
# is on. Shell built-ins only: dracut-lib's getarg executes dracut-getarg
# on every call, several milliseconds each in a small guest.
pp_read_cmdline() {
	_pp_policy='' _pp_rd_debug='' _pp_cmdline=''
	IFS= read -r _pp_cmdline </proc/cmdline 2>/dev/null
	# Words, not file names: no globbing, and leave the option as found
	# (dracut sources this into its own shell).
	case $- in
	*f*) _pp_noglob= ;;
	*) _pp_noglob=1 && set -f ;;
	esac
	for _pp_w in $_pp_cmdline; do
		case "$_pp_w" in
		preempt.policy=*) _pp_policy=${_pp_w#preempt.policy=} ;;
		rd.debug | rd.debug=1 | rd.debug=yes | rd.debug=on) _pp_rd_debug=1 ;;
		rd.debug=*) _pp_rd_debug= ;;
		esac
	done
	[ -z "$_pp_noglob" ] || set +f
	unset _pp_w _pp_noglob _pp_cmdline
	return 0
}

# pp_has_policy DIR: DIR/preempt-policy.conf or DIR/preempt-policy.d/*.conf
pp_has_policy() {
	[ -f "$1/preempt-policy.conf" ] && return 0
	for _pp_f in "$1"/preempt-policy.d/*.conf; do
		[ -f "$_pp_f" ] && return 0
	done
	return 1
}

# pp_make_rundir: make sure $PP_RUNDIR exists, or fall back to
# /tmp/preempt-policy where it cannot be made. Only on the paths where
# the tool has not made it (its --output-dir): mkdir(1) is a fork and an
# exec, a measurable share of a small boot.
pp_make_rundir() {
	[ ! -d "$PP_RUNDIR" ] || return 0
	mkdir -p "$PP_RUNDIR" 2>/dev/null && return 0
	PP_RUNDIR=/tmp/preempt-policy
	mkdir -p "$PP_RUNDIR" 2>/dev/null
	return 0
}

# pp_apply ROOT [VERBOSE]: decide from ROOT (the mounted real root: its
# /etc/preempt-policy.conf and .d, /etc/postgresql, PGDATA) and switch the
# running kernel. VERBOSE non-empty adds --verbose (the tool also turns it
# on by itself for preempt.policy=debug). Returns 0 whatever happens; the
# tool's exit code is kept in $PP_RUNDIR/status.
pp_apply() {
	_pp_root=$1
	_pp_verbose=${2:-}
	_pp_bin=${PREEMPT_POLICY_BIN:-/usr/sbin/preempt-policy}
	PP_RUNDIR=${PREEMPT_POLICY_RUNDIR:-/run/preempt-policy}
	# A rerun (not a boot: /run starts empty) must not report an earlier
	# run's output should the tool fail to start.
	[ ! -e "$PP_RUNDIR/status" ] ||
		rm -f "$PP_RUNDIR/status" "$PP_RUNDIR/out" "$PP_RUNDIR/err" 2>/dev/null

	if [ ! -x "$_pp_bin" ]; then
		pp_log 4 "$_pp_bin is missing; the kernel keeps its mode ($(pp_current_mode))"
		pp_make_rundir
		echo missing >"$PP_RUNDIR/status" 2>/dev/null
		return 0
	fi
	if [ -z "$_pp_root" ] || [ ! -d "$_pp_root/etc" ]; then
		pp_log 4 "no root file system at '$_pp_root'; not run, the kernel keeps its mode ($(pp_current_mode))"
		pp_make_rundir
		echo noroot >"$PP_RUNDIR/status" 2>/dev/null
		return 0
	fi

	set -- --root "$_pp_root"
	# The real root's policy wins; the copy in the initramfs is only for
	# a root that has none (the tool reads no policy outside --root, so
	# hand it the initramfs copy, drop-ins included, as one file).
	if ! pp_has_policy "$_pp_root/etc" && pp_has_policy /etc; then
		pp_make_rundir
		: >"$PP_RUNDIR/initrd.conf"
		for _pp_f in /etc/preempt-policy.conf /etc/preempt-policy.d/*.conf; do
			[ -f "$_pp_f" ] || continue
			{
				echo "# from the initramfs: $_pp_f"
				# read, not cat: no fork on the boot path
				while IFS= read -r _pp_line || [ -n "$_pp_line" ]; do
					printf '%s\n' "$_pp_line"
				done <"$_pp_f"
				echo
			} >>"$PP_RUNDIR/initrd.conf"
		done
		set -- "$@" --config "$PP_RUNDIR/initrd.conf"
		pp_log 6 "$_pp_root has no preempt-policy.conf; using the initramfs copy"
	fi
	[ -z "$_pp_verbose" ] || set -- "$@" --verbose

	# Unpatched kernels have only debugfs; mount it for the run and
	# leave the system as it was afterwards.
	_pp_umount=
	if [ ! -e /sys/kernel/preempt/mode ] && [ -d /sys/kernel/debug ] &&
		[ ! -e /sys/kernel/debug/sched ]; then
		if mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null; then
			_pp_umount=1
		fi
	fi

	# One process on the common path: the tool's own alarm bounds the run
	# (a watchdog here would cost two more forks and an exec on every
	# boot) and the tool makes $PP_RUNDIR with its out and err files.
	_pp_timeout=${PREEMPT_POLICY_TIMEOUT:-20}
	case $_pp_timeout in
	'' | 0 | *[!0-9]*)
		pp_log 4 "PREEMPT_POLICY_TIMEOUT='$_pp_timeout' is not a number of seconds; using 20"
		_pp_timeout=20
		;;
	esac
	"$_pp_bin" --output-dir "$PP_RUNDIR" --timeout "$_pp_timeout" "$@" apply \
		</dev/null
	_pp_rc=$?
	pp_make_rundir
	echo "$_pp_rc" >"$PP_RUNDIR/status" 2>/dev/null
	pp_read_mode
	[ -z "$_pp_umount" ] || umount /sys/kernel/debug 2>/dev/null

	# The tool logs its decision itself; its diagnostics (bad input,
	# --verbose explanations) are on standard error.
	pp_forward 4 "$PP_RUNDIR/err"
	if [ ! -w "${PREEMPT_POLICY_KMSG:-/dev/kmsg}" ] && [ -f "$PP_RUNDIR/out" ]; then
		cat "$PP_RUNDIR/out" >&2
	fi

	case $_pp_rc in
	0) pp_log 6 "done; running $_pp_mode" ;;
	1) pp_log 3 "usage error (exit 1): hook and tool disagree; nothing changed, running $_pp_mode" ;;
	2) pp_log 4 "bad input (exit 2), see above; kept the kernel's default, running $_pp_mode" ;;
	3) pp_log 4 "the kernel cannot switch to the chosen mode (exit 3: unpatched kernel or no mode file); nothing written, boot continues in $_pp_mode" ;;
	4) pp_log 3 "writing the mode failed (exit 4); boot continues in $_pp_mode" ;;
	5) pp_log 5 "disabled on the kernel command line (exit 5); running $_pp_mode" ;;
	126 | 127) pp_log 3 "cannot execute $_pp_bin (exit $_pp_rc); boot continues in $_pp_mode" ;;
	142) pp_log 3 "timed out after $_pp_timeout s and was killed; boot continues in $_pp_mode" ;;
	*)
		if [ "$_pp_rc" -gt 128 ]; then
			pp_log 3 "crashed (signal $((_pp_rc - 128))); boot continues in $_pp_mode"
		else
			pp_log 3 "unexpected exit $_pp_rc; boot continues in $_pp_mode"
		fi
		;;
	esac
	unset _pp_root _pp_verbose _pp_bin _pp_umount _pp_rc _pp_mode _pp_f _pp_line \
		_pp_timeout
	return 0
}
