#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /t/guest.sh in the rig's busybox guest (arm64, x86_64): do what dracut's pre-pivot
# does for the preempt-policy hook, with the same hook and library files,
# without dracut. From the kernel command line (the rig turns NAME=value
# into environment variables):
#   pp_root=FIXTURE   which tests/initrd/roots/FIXTURE becomes $NEWROOT
#   pp_fault=crash|hang  swap the tool for one that crashes or hangs
#   pp_flavour=initramfs-tools  run initramfs-tools' init-bottom script
#                     (executed with ${rootmnt}) instead of the dracut hook
#   pp_initrd_policy=no  pack no policy copy: with none on the root either,
#                     the tool uses its built-in policy
# Then prints the report of a root's init (guest-init report): mode-at-init,
# status, dmesg.
set -u
NEWROOT=/sysroot
mkdir -p "$NEWROOT"
mount -t tmpfs tmpfs "$NEWROOT"
cp -a "/t/roots/${pp_root:-empty}/." "$NEWROOT/"
# The initramfs copy of the policy, as module-setup.sh installs it.
mkdir -p /etc
[ "${pp_initrd_policy:-yes}" = no ] ||
	cp /t/initrd-conf/preempt-policy.conf /etc/preempt-policy.conf
# dracut's initramfs has no debugfs mounted; the rig's /init mounts it.
umount /sys/kernel/debug 2>/dev/null

PREEMPT_POLICY_LIB=/t/preempt-policy-lib.sh
PREEMPT_POLICY_BIN=/t/preempt-policy
case "${pp_fault:-}" in
crash) PREEMPT_POLICY_BIN=/t/fault-crash ;;
hang)
	PREEMPT_POLICY_BIN=/t/fault-hang
	PREEMPT_POLICY_TIMEOUT=3
	export PREEMPT_POLICY_TIMEOUT
	;;
esac
export NEWROOT PREEMPT_POLICY_LIB PREEMPT_POLICY_BIN
start=$(cut -d. -f1 /proc/uptime)
if [ "${pp_flavour:-dracut}" = initramfs-tools ]; then
	# Where the initramfs-tools hook copies the library.
	mkdir -p /lib/preempt-policy
	cp /t/preempt-policy-lib.sh /lib/preempt-policy/
	rootmnt=$NEWROOT /t/init-bottom-preempt-policy
	rc=$?
else
	# shellcheck source=../../../initrd/dracut/55preempt-policy/preempt-policy-hook.sh
	. /t/preempt-policy-hook.sh
	rc=$?
fi
echo "hook-returned: $rc after $(($(cut -d. -f1 /proc/uptime) - start)) s"

# What the real root's init would see first: the rig's init reports it
# as it does on a real root (tests/rig/guest-init).
exec /init report
