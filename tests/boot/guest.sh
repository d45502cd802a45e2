#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the boot tests: report the preemption mode as the kernel
# shows it, and what the kernel logged about it. The host side asserts.
echo "debugfs: $(cat /sys/kernel/debug/sched/preempt 2>&1)"
echo "sysfs: $(cat /sys/kernel/preempt/mode 2>&1)"
dmesg | sed -n 's/^\[[^]]*\] //; s/^\(.*Dynamic Preempt.*\)$/dmesg: \1/p'
echo "version: $(cat /proc/version)"
