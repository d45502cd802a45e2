# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The dracut hook ends the shell that sources it: dracut's init (PID 1 in
# a shell-based image) exits after the hook, and the boot dies.
# suites: 70-initrd
# env: INITRD_CASES=^x86_64.dracut.keeps-default$
mutate initrd/dracut/55preempt-policy/preempt-policy-hook.sh \
	'unset _pp_lib _pp_kmsg' \
	'unset _pp_lib _pp_kmsg; exit 0'
