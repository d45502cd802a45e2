#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script (busybox sh) for the report of a large shared memory object
# populated without huge pages (mm/shmem.c): runs the mm kselftest
# shmem_hugepage_warn (tools/testing/selftests/mm), which prints TAP 13,
# and exits with its status. Runs as /t/guest.sh under tests/rig/launch-vm.sh
# with ./shmem_hugepage_warn next to it (tests/hugewarn/build.sh).
cd "$(dirname "$0")" || exit 1
PATH=/bin:/sbin:/usr/bin:/usr/sbin
echo "# kernel $(uname -r), threshold at boot $(cat /proc/sys/vm/shmem_hugepage_warn_bytes 2>&1)"
echo "# shmem_enabled: $(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>&1)"
./shmem_hugepage_warn
