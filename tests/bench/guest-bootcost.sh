#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make bench" part (d) (/t/guest.sh, busybox sh, booted with QEMU
# -icount): what the boot-time policy adds to a boot. Guest time under
# -icount counts instructions, so both figures are deterministic costs.
#   BOOT_NS    CLOCK_BOOTTIME when this script starts: kernel start to the
#              rig's /init having mounted proc, sysfs, devtmpfs, debugfs and
#              the tmpfs (plus /init finding its port, a few shell lines).
#              A distribution's initramfs reaches pre-pivot much later:
#              this is the share on the smallest possible boot, the upper
#              bound row of (d). It is no bound on the hook's own cost: in
#              a real dracut boot (bash, dynamically linked commands, the
#              root on a disk) the hook costs several times more, which is
#              why (d) judges its goal on tests/bench/dracut-bootcost.sh.
#   POLICY_NS  the dracut hook's work, done as the hook does it: source
#              initrd/lib/preempt-policy-lib.sh and run pp_apply on a real
#              root (./root: tests/initrd/roots/pg-big, a Debian
#              cluster with shared_buffers = 8GB, plus bench.sh's opt-in
#              drop-in with the shipped PostgreSQL rules), so the tool
#              reads the cluster's configuration, decides "none", writes
#              the mode and logs to /dev/kmsg, and the hook runs its
#              watchdog, checks and log lines. Once per boot: the first, cold run is what a boot
#              pays. The cost of reading the clock (two runs of ovh-bench
#              now back to back, measured just before) is subtracted.
#   TOOL_NS    for the split between the hook's shell work and the tool:
#              preempt-policy --dry-run apply alone, right after (warm).
# Output:
#   boot POLICY_NS BOOT_NS MODE_AFTER TOOL_EXIT TOOL_NS
# Run from the launch-vm.sh command line as one boot per sample.
t_boot=$(./ovh-bench now)
cd "$(dirname "$0")" || exit 1
# shellcheck source=../pg/guest-lib.sh
. ./guest-lib.sh

t_boot=${t_boot#now }
t_boot=${t_boot% *}
bench_header
a=$(now_ns)
b=$(now_ns)
clock=$((b - a))

PREEMPT_POLICY_BIN=$PWD/preempt-policy
PREEMPT_POLICY_RUNDIR=/run/preempt-policy
export PREEMPT_POLICY_BIN PREEMPT_POLICY_RUNDIR
t0=$(now_ns)
# shellcheck source=../../initrd/lib/preempt-policy-lib.sh
. ./preempt-policy-lib.sh
pp_apply "$PWD/root"
t1=$(now_ns)
./preempt-policy --root "$PWD/root" --dry-run apply >/dev/null 2>&1
t2=$(now_ns)
echo "boot $((t1 - t0 - clock)) $t_boot $(mode_now "$mf") $(cat /run/preempt-policy/status) $((t2 - t1 - clock))"
dmesg | grep 'preempt-policy: ' | sed 's/^/log /'
