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
# shellcheck source=/dev/null
command -v getarg >/dev/null 2>&1 || . /lib/dracut-lib.sh
# shellcheck source=../../lib/preempt-policy-lib.sh
. "${PREEMPT_POLICY_LIB:-/lib/preempt-policy/preempt-policy-lib.sh}"

pp_dracut_hook() {
	if ! getargbool 1 preempt.policy; then
		pp_log 5 "disabled by preempt.policy=off; not run"
		return 0
	fi
	_pp_dbg=
	[ "$(getarg preempt.policy=)" = debug ] && _pp_dbg=1
	getargbool 0 rd.debug && _pp_dbg=1
	pp_apply "${NEWROOT:-/sysroot}" "$_pp_dbg"
	unset _pp_dbg
	return 0
}

pp_dracut_hook
