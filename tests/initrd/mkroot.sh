#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkroot.sh ARCH OUT.img FIXTURE [EXTRA]
# An ext4 root file system image (mke2fs -d, no root privileges needed):
# Debian's static busybox for ARCH, the rig's init (tests/rig/guest-init)
# as /sbin/init, an /etc/os-release, and the files of
# tests/initrd/roots/FIXTURE (its /etc); then the tree of the directory
# EXTRA if given ("make bench" part (d) adds a static
# usr/local/bin/ovh-bench, the clock the init reads first). No guest
# script: the init's report is the root's whole output.
set -eu
case $# in
3 | 4) ;;
*) echo "usage: mkroot.sh ARCH OUT.img FIXTURE [EXTRA]" >&2; exit 2 ;;
esac
arch=$1 out=$2 fixture=$3 extra=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
rig=$here/../rig
# shellcheck source=tests/rig/lib.sh
. "$rig/lib.sh"
[ -d "$here/roots/$fixture" ] || { echo "mkroot.sh: no fixture $fixture" >&2; exit 2; }
[ -z "$extra" ] || [ -d "$extra" ] || { echo "mkroot.sh: no directory $extra" >&2; exit 2; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/root
mkdir -p "$root/sbin" "$root/etc" "$root/proc" "$root/sys" \
	"$root/dev" "$root/run" "$root/tmp" "$root/var/lib" "$root/sysroot"
"$rig/guest-base.sh" "$arch" "$root" /sbin/init
# An os-release: systemd's switch-root (initrd-switch-root.service of
# the systemd-based dracut image) refuses a root without one ("does not
# seem to be an OS tree"), as every distribution's root has it.
printf '%s\n' 'ID=preempt-rig' 'NAME="preempt-policy test root"' \
	'PRETTY_NAME="preempt-policy test root (busybox)"' >"$root/etc/os-release"
cp -a "$here/roots/$fixture/." "$root/"
[ -z "$extra" ] || cp -a "$extra/." "$root/"
rm -f "$out.tmp"
mke2fs -q -t ext4 -d "$root" -F "$out.tmp" 32M
mv "$out.tmp" "$out"
