#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dracut pre-pivot hook: choose the preemption mode from the real root
# (mounted at $NEWROOT) and switch the kernel before its init runs.
# Sourced by dracut's init (PID 1 without systemd; dracut-pre-pivot.sh
# with it), so: functions and pp_* names only, no exit, and nothing that
# can end the sourcing shell (see the library's header).
#
# Kernel command line (preempt-policy(8), one vocabulary with the tool):
#   preempt=MODE            the admin's choice, which the kernel applied:
#                           not run (no debugfs mount, no tool)
#   preempt.policy=ITEM,... items off (not run), debug (verbose, as is
#                           rd.debug), auto, none, voluntary, full, lazy
#                           (forced mode: the tool reads it); the last
#                           preempt.policy= wins as a whole
# dracut-lib's getarg/getargbool read preempt.policy= and rd.debug, so
# /etc/cmdline.d counts too; preempt= is read from /proc/cmdline only,
# since only there did the kernel see it.

pp_dracut_hook() {
	pp_read_cmdline
	# dracut-lib is sourced before every hook, in the shell and the
	# systemd initramfs alike; without it (the tests' busybox guest)
	# /proc/cmdline alone is read.
	if command -v getarg >/dev/null 2>&1; then
		_pp_policy=$(getarg preempt.policy=) || _pp_policy=
		_pp_rd_debug=
		! getargbool 0 rd.debug || _pp_rd_debug=1
	fi
	pp_should_run || return 0
	_pp_v=
	[ -z "$_pp_dbg" ] && [ -z "$_pp_rd_debug" ] || _pp_v=1
	pp_apply "${NEWROOT:-/sysroot}" "$_pp_v"
	unset _pp_v _pp_policy _pp_admin _pp_admin_set _pp_rd_debug _pp_debug \
		_pp_off _pp_dbg
	return 0
}

# "command ." turns a missing, unreadable or broken library into a status
# instead of the end of dracut's shell; a directory sources as nothing in
# some shells, hence the look for pp_apply.
_pp_lib=${PREEMPT_POLICY_LIB:-/lib/preempt-policy/preempt-policy-lib.sh}
# shellcheck source=../../lib/preempt-policy-lib.sh
if command . "$_pp_lib" 2>/dev/null && command -v pp_apply >/dev/null 2>&1; then
	pp_dracut_hook
elif _pp_kmsg=${PREEMPT_POLICY_KMSG:-${PREEMPT_POLICY_PREFIX:-}/dev/kmsg} &&
	[ -w "$_pp_kmsg" ] &&
	printf '<3>preempt-policy: initrd: %s is missing or broken; not run\n' \
		"$_pp_lib" 2>/dev/null >>"$_pp_kmsg"; then
	:
else
	printf 'preempt-policy: initrd: %s is missing or broken; not run\n' \
		"$_pp_lib" >&2
fi
unset _pp_lib _pp_kmsg
