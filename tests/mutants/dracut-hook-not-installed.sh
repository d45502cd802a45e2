# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The dracut module installs everything but its pre-pivot hook: the image
# builds, boots, and never chooses a mode.
# suites: 70-initrd
# env: INITRD_CASES=^x86_64.dracut.picks-none$
# shellcheck disable=SC2016 # the line as it is written, $moddir and all
mutate initrd/dracut/55preempt-policy/module-setup.sh \
	'	inst_hook pre-pivot 60 "$moddir/preempt-policy-hook.sh"' \
	'	: # inst_hook pre-pivot 60 "$moddir/preempt-policy-hook.sh"'
