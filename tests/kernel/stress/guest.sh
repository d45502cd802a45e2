#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the stress test: stress-switch switches modes through sysfs
# and debugfs while fork/exec, pipe and page-fault load runs, and scans the
# whole kernel log for splats. SWITCHES (kernel command line
# "switches=N") sets the number of switches per interface, "modes=full,lazy"
# restricts the modes switched among, "debugfs_only=1" switches through
# debugfs alone (a kernel without the sysfs file). Prints TAP.
set -u
echo "# kernel: $(uname -r) $(uname -m); cmdline: $(cat /proc/cmdline)"
./stress-switch."$RIG_ARCH" ${debugfs_only:+-d} ${modes:+-m "$modes"} -n "${switches:-3000}" -t "${max_seconds:-900}"
