# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# /sys/kernel/preempt/mode accepts a mode the kernel does not offer: the
# mutant kernel stops offering voluntary, and the sysfs store no longer
# asks sched_dynamic_mode_supported() (sysfs-accepts-unoffered.patch).
# preempt_modes' refuse_unsupported must see the write succeed.
# suites: 50-modes
# env: MODES_ARCHES=arm64 SWITCHES=10
# kernel: arm64
kernel_patch sysfs-accepts-unoffered.patch
