#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dracut pre-pivot hook: choose the preemption mode from the real root
# (mounted at $NEWROOT) and switch the kernel before its init runs.
# Sourced by dracut's init, so: functions and pp_* names only, no exit.
#
# Kernel command line:
#   preempt=MODE          the admin's choice; the tool leaves it alone
#   preempt.policy=off    this hook does nothing
#   preempt.policy=MODE   forces MODE (handled by the tool)
#   preempt.policy=debug  verbose, as is rd.debug
# shellcheck source=../../lib/preempt-policy-lib.sh
. "${PREEMPT_POLICY_LIB:-/lib/preempt-policy/preempt-policy-lib.sh}"

pp_dracut_hook() {
	pp_read_cmdline
	case "$_pp_policy" in
	off | 0 | no)
		pp_log 5 "disabled by preempt.policy=off; not run"
		return 0
		;;
	esac
	_pp_dbg=
	if [ "$_pp_policy" = debug ] || [ -n "$_pp_rd_debug" ]; then
		_pp_dbg=1
	fi
	pp_apply "${NEWROOT:-/sysroot}" "$_pp_dbg"
	unset _pp_dbg _pp_policy _pp_rd_debug
	return 0
}

pp_dracut_hook
