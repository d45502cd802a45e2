#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkimage.sh ARCH DEB SB_MB
# Build (or reuse) the real root file system "make run" boots into: an ext4
# image (mke2fs -d, no root privileges needed) for virtio-blk with
# - PostgreSQL 15 and pgbench for ARCH (tests/pg/mkrootfs.sh's root fs),
# - Debian's static busybox and the rig's init (tests/rig/guest-init) as
#   /sbin/init,
# - a Debian-layout cluster, /etc/postgresql/15/main/postgresql.conf, with
#   shared_buffers = SB_MB MB and huge_pages = off (the data directory is
#   created by initdb in the guest),
# - preempt-policy from its Debian package DEB (make deb's, for ARCH),
#   installed with dpkg into the root's own dpkg database
#   (tests/pg/mkrootfs.sh ARCH DEB): the tool in /usr/sbin, the package's
#   default /etc/preempt-policy.conf, which keeps the kernel's mode like
#   the built-in policy (the guest script opts in later, to show both),
#   the units and the drop-in for Debian's postgresql@.service in
#   /lib/systemd/system, where the guest scripts read the command it runs
#   after a cluster starts (no systemd here: the guest runs it),
# - the guest scripts in /t, where the init looks for /t/guest.sh:
#   tests/demo/guest-demo.sh as guest.sh (with RUN_LOOP=PHASE on the command
#   line it runs the loop test's instead), tests/demo/guest-loop.sh as loop,
#   tests/pg/guest-lib.sh.
# Prints the image's path. The guest writes to its root, so boot a copy.
#
# Cached in $PREEMPT_CACHE/pgroot/ARCH, keyed by every input (the root
# fs's own key, which covers the package; busybox, the scripts, SB_MB and
# this script): rebuilt only when one of them changes.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/rig/lib.sh"

[ $# -eq 3 ] || die "usage: mkimage.sh ARCH DEB SB_MB"
arch=$1 deb=$2 sb=$3
check_arch "$arch"
[ -f "$deb" ] || die "no preempt-policy package '$deb'"
case "$sb" in
'' | *[!0-9]*) die "shared_buffers '$sb' is not a number of MB" ;;
esac

cache=$(cache_dir)
out=$cache/pgroot/$arch
mkdir -p "$out"
here=$top/tests/demo
pgrootfs=$("$top/tests/pg/mkrootfs.sh" "$arch" "$deb") || die "tests/pg/mkrootfs.sh $arch $deb failed"
bb=$("$top/tests/rig/guest-base.sh" --busybox "$arch") || die "no static busybox for $arch"

key=$( {
	cat "${pgrootfs%/*}/key" "$0" "$top/tests/rig/guest-init" "$top/tests/rig/guest-base.sh" "$here/guest-demo.sh" \
		"$here/guest-loop.sh" "$top/tests/pg/guest-lib.sh" "$top/tests/lib/tap.sh"
	echo "$bb $sb"
} | cache_key)
if [ -f "$out/root.img" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
	printf '%s\n' "$out/root.img"
	exit 0
fi
note "building the $arch PostgreSQL root image (shared_buffers ${sb}MB)"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/root
mkdir -p "$root"
(cd "$root" && cpio --quiet -idm --no-absolute-filenames) <"$pgrootfs" ||
	die "unpacking $pgrootfs failed"
mkdir -p "$root/bin" "$root/sbin" "$root/usr/sbin" "$root/proc" "$root/sys" \
	"$root/dev" "$root/run" "$root/tmp" "$root/root" \
	"$root/t" "$root/etc/postgresql/15/main"
chmod 1777 "$root/tmp"
"$top/tests/rig/guest-base.sh" "$arch" "$root" /sbin/init ||
	die "the busybox base of the root failed"
t=$root/t
cp "$here/guest-demo.sh" "$t/guest.sh"
cp "$here/guest-loop.sh" "$t/loop"
cp "$top/tests/pg/guest-lib.sh" "$top/tests/lib/tap.sh" "$t/"
chmod 0755 "$t/guest.sh" "$t/loop"

# The cluster as Debian's pg_createcluster lays it out: configuration in
# /etc, data in /var/lib. initdb's pg_hba.conf (-A trust) stays in the data
# directory, hence hba_file and ident_file.
cat >"$root/etc/postgresql/15/main/postgresql.conf" <<EOF
# The "make run" cluster: a buffer pool that is large for the guest, in
# 4 KiB pages (huge_pages = off).
data_directory = '/var/lib/postgresql/15/main'
hba_file = '/var/lib/postgresql/15/main/pg_hba.conf'
ident_file = '/var/lib/postgresql/15/main/pg_ident.conf'
shared_buffers = ${sb}MB
huge_pages = off
EOF
echo guest >"$root/etc/hostname"

# Room for the data directory: initdb, pgbench -i and the WAL of the runs
# take a few hundred MB. The image is sparse.
rm -f "$out/root.img.tmp"
mke2fs -q -t ext4 -L pgroot -d "$root" -F "$out/root.img.tmp" 2G >/dev/null ||
	die "mke2fs -d failed"
mv "$out/root.img.tmp" "$out/root.img"
echo "$key" >"$out/key"
note "$(du -m "$out/root.img" | cut -f1) MB used of 2 GB"
printf '%s\n' "$out/root.img"
