# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# preempt-policy-lib.sh: run "preempt-policy apply" from an initramfs, after
# the real root is mounted and before it gets control. Shared by the dracut
# hook (pre-pivot), the initramfs-tools script (init-bottom) and the tests.
# POSIX sh; sourced, so it defines pp_* functions only and never exits.
#
# The one rule: never end, block or fail the boot. A missing binary, a
# missing mode file, an unpatched kernel, a broken policy, a crash or a
# hang of the tool, a full, read-only or missing /run all end in a line in
# the kernel log and a return status of 0. dracut sources its hooks into
# its init shell, where a special built-in's failed redirection (": >file",
# ". file", "exec 3>file") ends the shell and so the boot. Hence:
# - every write is a printf or echo (regular built-ins, whose redirection
#   errors only fail the command), with 2>/dev/null placed before the
#   redirection it silences;
# - no special built-in carries a redirection; files are sourced with
#   "command .", which turns a failure into a status;
# - a loop reads a file only after [ -r ] said it can.
#
# Tunables (environment, for tests and unusual layouts):
#   PREEMPT_POLICY_BIN      the tool (default /usr/sbin/preempt-policy)
#   PREEMPT_POLICY_TIMEOUT  seconds after which the tool ends itself
#                           (its --timeout, SIGALRM; default 5: it takes
#                           milliseconds, and the boot waits for it)
#   PREEMPT_POLICY_RUNDIR   state and captured output (default
#                           /run/preempt-policy; /run survives switch_root)
#   PREEMPT_POLICY_STAGE    word after the prefix in our own log lines
#                           (default initrd)
#   PREEMPT_POLICY_KMSG     kernel log device (default /dev/kmsg)
#   PREEMPT_POLICY_PREFIX   put in front of every absolute path this file
#                           reads or writes (/proc/cmdline, /sys, /etc,
#                           /run, /tmp, /dev/kmsg) and handed to the tool
#                           as --proc, --sys and --kmsg: the tests run the
#                           real hooks in a scratch tree. Empty at boot.

# pp_log LEVEL MESSAGE...: one kernel log record, prefix "preempt-policy: ",
# the same prefix the tool uses, so `dmesg | grep preempt-policy:` shows the
# whole story. Falls back to standard error (the console) without /dev/kmsg.
pp_log() {
	_pp_level=$1
	shift
	_pp_kmsg=${PREEMPT_POLICY_KMSG:-${PREEMPT_POLICY_PREFIX:-}/dev/kmsg}
	if [ -w "$_pp_kmsg" ] && printf '<%s>preempt-policy: %s: %s\n' \
		"$_pp_level" "${PREEMPT_POLICY_STAGE:-initrd}" "$*" \
		2>/dev/null >>"$_pp_kmsg"; then
		return 0
	fi
	printf 'preempt-policy: %s: %s\n' "${PREEMPT_POLICY_STAGE:-initrd}" \
		"$*" >&2
	return 0
}

# pp_forward LEVEL FILE: copy the tool's diagnostics (its standard error)
# to the kernel log, at most 100 lines, keeping its own prefix.
pp_forward() {
	[ -r "$2" ] && [ -s "$2" ] || return 0
	_pp_kmsg=${PREEMPT_POLICY_KMSG:-${PREEMPT_POLICY_PREFIX:-}/dev/kmsg}
	_pp_n=0
	while IFS= read -r _pp_line || [ -n "$_pp_line" ]; do
		_pp_n=$((_pp_n + 1))
		[ "$_pp_n" -le 100 ] || break
		case "$_pp_line" in
		"preempt-policy: "*) ;;
		*) _pp_line="preempt-policy: $_pp_line" ;;
		esac
		if ! { [ -w "$_pp_kmsg" ] &&
			printf '<%s>%s\n' "$1" "$_pp_line" 2>/dev/null >>"$_pp_kmsg"; }; then
			printf '%s\n' "$_pp_line" >&2
		fi
	done <"$2"
	return 0
}

# pp_read_mode: set _pp_mode to the running mode (the word in brackets
# in sysfs, in parentheses in debugfs), or "unknown". Shell built-ins only: each fork costs about
# a millisecond in a small guest, and this runs on every boot.
pp_read_mode() {
	_pp_mode=unknown
	for _pp_f in "${PREEMPT_POLICY_PREFIX:-}/sys/kernel/preempt/mode" \
		"${PREEMPT_POLICY_PREFIX:-}/sys/kernel/debug/sched/preempt"; do
		[ -r "$_pp_f" ] || continue
		_pp_line=
		IFS= read -r _pp_line 2>/dev/null <"$_pp_f"
		case "$_pp_line" in
		*"["[a-z]*"]"*)
			_pp_line=${_pp_line#*"["}
			_pp_mode=${_pp_line%%"]"*}
			return 0
			;;
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

# pp_read_cmdline: from the kernel command line (/proc/cmdline: what the
# kernel itself saw), set
#   _pp_policy    the value of the last preempt.policy= word (the tool's
#                 rule: the last one wins as a whole), quotes removed
#   _pp_admin     the value of the last preempt= word, _pp_admin_set=1 when
#                 there is one (the admin chose the mode; the kernel
#                 applied it, the hooks leave it alone)
#   _pp_rd_debug  1 for rd.debug (dracut), _pp_debug 1 for debug
#                 (initramfs-tools)
# Shell built-ins only. The dracut hook then asks dracut-lib's getarg for
# preempt.policy= and rd.debug, which also read /etc/cmdline.d.
pp_read_cmdline() {
	_pp_policy='' _pp_admin='' _pp_admin_set='' _pp_rd_debug='' _pp_debug=''
	_pp_cmdline=''
	[ ! -r "${PREEMPT_POLICY_PREFIX:-}/proc/cmdline" ] ||
		IFS= read -r _pp_cmdline 2>/dev/null <"${PREEMPT_POLICY_PREFIX:-}/proc/cmdline"
	# Words, not file names: no globbing, and leave the option as found
	# (dracut sources this into its own shell).
	case $- in
	*f*) _pp_noglob= ;;
	*) _pp_noglob=1 && set -f ;;
	esac
	for _pp_w in $_pp_cmdline; do
		case "$_pp_w" in
		# Everything after "--" belongs to init.
		--) break ;;
		preempt.policy=*) _pp_policy=${_pp_w#preempt.policy=} ;;
		preempt=*) _pp_admin=${_pp_w#preempt=} _pp_admin_set=1 ;;
		rd.debug | rd.debug=1 | rd.debug=yes | rd.debug=on) _pp_rd_debug=1 ;;
		rd.debug=*) _pp_rd_debug= ;;
		debug) _pp_debug=1 ;;
		esac
	done
	[ -z "$_pp_noglob" ] || set +f
	case $_pp_policy in
	\"*\") _pp_policy=${_pp_policy#\"} _pp_policy=${_pp_policy%\"} ;;
	esac
	unset _pp_w _pp_noglob _pp_cmdline
	return 0
}

# pp_policy_items VALUE: the items of a preempt.policy= value, read as the
# tool reads them (preempt-policy(8)): a comma-separated list of off,
# debug, auto, none, voluntary, full, lazy. Sets _pp_off=1 when an item is
# off and _pp_dbg=1 when one is debug. Anything else is the tool's to
# judge (it reports unknown items as bad input and keeps the default).
pp_policy_items() {
	_pp_off='' _pp_dbg=''
	_pp_rest=$1
	case $_pp_rest in
	\"*\") _pp_rest=${_pp_rest#\"} _pp_rest=${_pp_rest%\"} ;;
	esac
	while [ -n "$_pp_rest" ]; do
		_pp_item=${_pp_rest%%,*}
		case $_pp_rest in
		*,*) _pp_rest=${_pp_rest#*,} ;;
		*) _pp_rest= ;;
		esac
		case $_pp_item in
		off) _pp_off=1 ;;
		debug) _pp_dbg=1 ;;
		esac
	done
	unset _pp_rest _pp_item
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

# pp_make_rundir: make sure $PP_RUNDIR is a directory, or fall back to
# /tmp/preempt-policy where it cannot be made. Only on the paths where
# the tool has not made it (its --output-dir): mkdir(1) is a fork and an
# exec, a measurable share of a small boot.
pp_make_rundir() {
	[ ! -d "$PP_RUNDIR" ] || return 0
	mkdir -p "$PP_RUNDIR" 2>/dev/null && [ -d "$PP_RUNDIR" ] && return 0
	PP_RUNDIR=${PREEMPT_POLICY_PREFIX:-}/tmp/preempt-policy
	mkdir -p "$PP_RUNDIR" 2>/dev/null
	return 0
}

# pp_status WORD: leave WORD (the tool's exit code, or why it did not run)
# in $PP_RUNDIR/status, where it can be written.
pp_status() {
	pp_make_rundir
	echo "$1" 2>/dev/null >"$PP_RUNDIR/status"
	return 0
}

# pp_initrd_policy DIR: set _pp_conf to a file holding the initramfs's
# policy (DIR/preempt-policy.conf and DIR/preempt-policy.d/*.conf), or to
# nothing when it cannot be written anywhere. A lone preempt-policy.conf is
# passed as it is (no copy, no write); with drop-ins they are joined into
# $PP_RUNDIR/initrd.conf, else /tmp/preempt-policy/initrd.conf.
pp_initrd_policy() {
	_pp_conf=
	_pp_text=
	_pp_files=0
	for _pp_f in "$1/preempt-policy.conf" "$1"/preempt-policy.d/*.conf; do
		[ -f "$_pp_f" ] || continue
		[ -r "$_pp_f" ] || continue
		_pp_files=$((_pp_files + 1))
		_pp_conf=$_pp_f
		_pp_text="$_pp_text# from the initramfs: $_pp_f
"
		# read, not cat: no fork on the boot path
		while IFS= read -r _pp_line || [ -n "$_pp_line" ]; do
			_pp_text="$_pp_text$_pp_line
"
		done <"$_pp_f"
		_pp_text="$_pp_text
"
	done
	if [ "$_pp_files" -gt 1 ]; then
		pp_make_rundir
		_pp_conf=$PP_RUNDIR/initrd.conf
		if ! printf '%s' "$_pp_text" 2>/dev/null >"$_pp_conf"; then
			_pp_conf=${PREEMPT_POLICY_PREFIX:-}/tmp/preempt-policy/initrd.conf
			mkdir -p "${_pp_conf%/*}" 2>/dev/null
			printf '%s' "$_pp_text" 2>/dev/null >"$_pp_conf" || _pp_conf=
		fi
	fi
	unset _pp_text _pp_files
	return 0
}

# pp_begin: set PP_RUNDIR and drop what an earlier run left there. A
# rerun (not a boot: /run starts empty) must not report an earlier run's
# output should the tool fail to start.
pp_begin() {
	PP_RUNDIR=${PREEMPT_POLICY_RUNDIR:-${PREEMPT_POLICY_PREFIX:-}/run/preempt-policy}
	[ ! -e "$PP_RUNDIR/status" ] ||
		rm -f "$PP_RUNDIR/status" "$PP_RUNDIR/out" "$PP_RUNDIR/err" \
			"$PP_RUNDIR/initrd.conf" 2>/dev/null
	return 0
}

# pp_should_run: after pp_read_cmdline (and, in dracut, getarg), decide
# whether the command line leaves the tool anything to do. Returns 1 and
# logs why when it does not: preempt.policy=off, or a preempt= the kernel
# already applied (the admin's choice; no debugfs mount, no run).
pp_should_run() {
	pp_begin
	pp_policy_items "$_pp_policy"
	if [ -n "$_pp_off" ]; then
		pp_log 5 "disabled by preempt.policy=$_pp_policy; not run"
		pp_status off
		return 1
	fi
	if [ -n "$_pp_admin_set" ]; then
		pp_log 5 "preempt=$_pp_admin on the command line is the admin's choice; not run, running $(pp_current_mode)"
		pp_status admin
		return 1
	fi
	return 0
}

# pp_apply ROOT [VERBOSE]: decide from ROOT (the mounted real root: its
# /etc/preempt-policy.conf and .d, /etc/postgresql, PGDATA) and switch the
# running kernel. VERBOSE non-empty adds --verbose (the tool also turns it
# on by itself for preempt.policy=debug). Returns 0 whatever happens; the
# tool's exit code is kept in $PP_RUNDIR/status and in PP_RC (127 when the
# tool is missing, 1 without a root), for the systemd unit's exit status.
pp_apply() {
	_pp_root=$1
	_pp_verbose=${2:-}
	_pp_pfx=${PREEMPT_POLICY_PREFIX:-}
	_pp_bin=${PREEMPT_POLICY_BIN:-/usr/sbin/preempt-policy}
	pp_begin

	if [ ! -x "$_pp_bin" ]; then
		pp_log 4 "$_pp_bin is missing; the kernel keeps its mode ($(pp_current_mode))"
		pp_status missing
		# shellcheck disable=SC2034 # read by the unit's ExecStart
		PP_RC=127
		return 0
	fi
	if [ -z "$_pp_root" ] || [ ! -d "$_pp_root/etc" ]; then
		pp_log 4 "no root file system at '$_pp_root'; not run, the kernel keeps its mode ($(pp_current_mode))"
		pp_status noroot
		# shellcheck disable=SC2034 # read by the unit's ExecStart
		PP_RC=1
		return 0
	fi

	set -- --root "$_pp_root"
	[ -z "$_pp_pfx" ] ||
		set -- "$@" --proc "$_pp_pfx/proc" --sys "$_pp_pfx/sys" \
			--kmsg "${PREEMPT_POLICY_KMSG:-$_pp_pfx/dev/kmsg}"
	# The real root's policy wins; the copy in the initramfs is only for
	# a root that has none (the tool reads no policy outside --root, so
	# hand it the initramfs copy, drop-ins included, as one file).
	if ! pp_has_policy "$_pp_root/etc" && pp_has_policy "$_pp_pfx/etc"; then
		pp_initrd_policy "$_pp_pfx/etc"
		if [ -n "$_pp_conf" ]; then
			set -- "$@" --config "$_pp_conf"
			pp_log 6 "$_pp_root has no preempt-policy.conf; using the initramfs copy"
		else
			pp_log 4 "$_pp_root has no preempt-policy.conf and the initramfs copy could not be joined into $PP_RUNDIR or /tmp; the built-in policy applies"
		fi
	fi
	[ -z "$_pp_verbose" ] || set -- "$@" --verbose

	# Unpatched kernels have only debugfs; mount it for the run and
	# leave the system as it was afterwards.
	_pp_umount=
	_pp_dbgfs=$_pp_pfx/sys/kernel/debug
	if [ ! -e "$_pp_pfx/sys/kernel/preempt/mode" ] && [ -d "$_pp_dbgfs" ] &&
		[ ! -e "$_pp_dbgfs/sched" ]; then
		if mount -t debugfs debugfs "$_pp_dbgfs" 2>/dev/null; then
			_pp_umount=1
		fi
	fi

	# One process on the common path: the tool's own alarm bounds the run
	# (a watchdog here would cost two more forks and an exec on every
	# boot) and the tool makes $PP_RUNDIR with its out and err files.
	_pp_timeout=${PREEMPT_POLICY_TIMEOUT:-5}
	case $_pp_timeout in
	'' | 0 | *[!0-9]*)
		pp_log 4 "PREEMPT_POLICY_TIMEOUT='$_pp_timeout' is not a number of seconds; using 5"
		_pp_timeout=5
		;;
	esac
	"$_pp_bin" --output-dir "$PP_RUNDIR" --timeout "$_pp_timeout" "$@" apply \
		</dev/null
	_pp_rc=$?
	# shellcheck disable=SC2034 # read by the unit's ExecStart
	PP_RC=$_pp_rc
	pp_status "$_pp_rc"
	pp_read_mode
	[ -z "$_pp_umount" ] || umount "$_pp_dbgfs" 2>/dev/null

	# The tool logs its decision itself; its diagnostics (bad input,
	# --verbose explanations) are on standard error.
	pp_forward 4 "$PP_RUNDIR/err"
	if [ ! -w "${PREEMPT_POLICY_KMSG:-$_pp_pfx/dev/kmsg}" ] && [ -r "$PP_RUNDIR/out" ]; then
		cat "$PP_RUNDIR/out" >&2 2>/dev/null
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
		_pp_timeout _pp_pfx _pp_dbgfs _pp_conf
	return 0
}
