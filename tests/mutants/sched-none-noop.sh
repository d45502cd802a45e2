# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The sched series' none made a no-op: switching to none is accepted and
# reads back as none, but keeps full's preemption points
# (sched-none-noop.patch on top of the series). preempt_defer must see the
# busy task preempted under none.
# suites: 50-modes
# env: MODES_ARCHES=arm64 SWITCHES=10
# kernel: arm64
kernel_patch sched-none-noop.patch
