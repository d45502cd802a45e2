#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkrootfs.sh [--list] ARCH
# Build (or reuse) a guest root file system with PostgreSQL 15 and pgbench
# from Debian 12 (bookworm) packages for ARCH (arm64, x86_64), as an
# uncompressed newc cpio to append to the rig's initramfs
# (tests/rig/guest-run.sh --extra-initrd), and print its path.
#
# The package set is the Depends/Pre-Depends closure of ROOTS, resolved with
# apt-cache from the private apt state of tests/rig/fetch-debs.sh (so both
# architectures are built the same way), minus SKIP: Perl, the
# postgresql-common wrappers, locales, LLVM (JIT), debconf and other
# maintainer-script machinery that a guest never runs. A readelf pass then
# proves that every shared library the programs we run need is present.
# Docs, man pages, message catalogues and the JIT bitcode are dropped.
#
# Cached in $PREEMPT_CACHE/rootfs/ARCH (default ~/.cache/preempt-modes),
# keyed by the resolved package=version list and this script: rebuilt only
# when one of them changes.
#
# --list  print the resolved package=version list instead of building.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/rig/lib.sh"

list_only=
if [ "${1:-}" = --list ]; then
	list_only=1
	shift
fi
[ $# -eq 1 ] || die "usage: mkrootfs.sh [--list] ARCH"
arch=$1
case "$arch" in
arm64) triplet=aarch64-linux-gnu ;;
x86_64) triplet=x86_64-linux-gnu ;;
*) die "unsupported ARCH '$arch' (arm64, x86_64)" ;;
esac

PGVER=15
ROOTS="postgresql-$PGVER postgresql-client-$PGVER"
# Package names (shell patterns) left out, with everything only they need.
SKIP="perl perl-base perl-modules-* libperl* postgresql-common
	postgresql-client-common locales locales-all libllvm* debconf
	debconf-2.0 cdebconf ssl-cert adduser passwd ucf sensible-utils
	lsb-base init-system-helpers dpkg libc-bin"
# The programs the guests run; their NEEDED closure must be complete.
PROGS="postgres initdb pg_ctl psql pgbench pg_controldata"

cache=${PREEMPT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/preempt-modes}
debs=$cache/debs/$arch
out=$cache/rootfs/$arch
mkdir -p "$debs" "$out"
debs=$(cd "$debs" && pwd)

# The index (refreshed daily by fetch-debs.sh) and busybox, which the rig
# needs anyway.
"$top/tests/rig/fetch-debs.sh" "$arch" "$debs" busybox-static

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The programs must all run: --strict.
"$top/tests/rig/deb-closure.sh" list --strict "$arch" "$debs" "$ROOTS" "$SKIP" \
	>"$work/pkgs"
if [ -n "$list_only" ]; then
	cat "$work/pkgs"
	exit 0
fi

key=$( { cat "$work/pkgs" "$0" "$top/tests/rig/deb-closure.sh"; } | sha256sum | cut -c1-16)
if [ -f "$out/rootfs.cpio" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
	printf '%s\n' "$out/rootfs.cpio"
	exit 0
fi
note "building the $arch PostgreSQL root fs ($(wc -l <"$work/pkgs") packages)"

# --- download and unpack ----------------------------------------------------------
root=$work/root
"$top/tests/rig/deb-closure.sh" unpack "$arch" "$debs" "$work/pkgs" "$root"

# --- trim -------------------------------------------------------------------------
rm -rf "$root/usr/share/doc" "$root/usr/share/man" "$root/usr/share/info" \
	"$root/usr/share/locale" "$root/usr/share/lintian" "$root/usr/share/bug" \
	"$root/usr/share/doc-base" "$root/usr/share/bash-completion" \
	"$root/usr/lib/postgresql/$PGVER/lib/bitcode" \
	"$root/usr/lib/postgresql/$PGVER/lib/llvmjit.so" \
	"$root/usr/lib/postgresql/$PGVER/lib/llvmjit_types.bc" \
	"$root/usr/share/postgresql/$PGVER/man" "$root/etc/init.d" \
	"$root/lib/systemd" "$root/usr/lib/systemd" "$root/etc/logrotate.d"
# busybox comes from the rig's own initramfs.
rm -rf "$root/bin/busybox"

# --- check the NEEDED closure of the programs ---------------------------------------
bindir=$root/usr/lib/postgresql/$PGVER/bin
libdirs="$root/lib/$triplet $root/usr/lib/$triplet $root/lib $root/usr/lib"
: >"$work/needed.done"
queue=
for p in $PROGS; do
	[ -x "$bindir/$p" ] || die "$p missing from $bindir"
	queue="$queue $bindir/$p"
done
missing=
while [ -n "${queue# }" ]; do
	next=
	for f in $queue; do
		for so in $(readelf -d "$f" 2>/dev/null |
			sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			grep -qx -e "$so" "$work/needed.done" && continue
			echo "$so" >>"$work/needed.done"
			found=
			for d in $libdirs; do
				if [ -e "$d/$so" ]; then
					found=$d/$so
					break
				fi
			done
			if [ -n "$found" ]; then
				next="$next $found"
			else
				missing="$missing $so"
			fi
		done
	done
	queue=$next
done
[ -z "$missing" ] || die "shared libraries not in the package closure:$missing"

# --- the guest's view ---------------------------------------------------------------
mkdir -p "$root/etc" "$root/usr/local/bin" "$root/var/lib/postgresql" \
	"$root/var/run/postgresql"
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
postgres:x:102:104:PostgreSQL administrator:/var/lib/postgresql:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
postgres:x:104:
nogroup:x:65534:
EOF
echo 'passwd: files' >"$root/etc/nsswitch.conf"
echo 'group: files' >>"$root/etc/nsswitch.conf"
for p in $PROGS pg_isready; do
	[ -e "$bindir/$p" ] &&
		ln -sf "../../lib/postgresql/$PGVER/bin/$p" "$root/usr/local/bin/$p"
done
cp "$work/pkgs" "$root/etc/pg-rootfs.packages"

(cd "$root" && find . | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0) >"$out/rootfs.cpio.tmp"
mv "$out/rootfs.cpio.tmp" "$out/rootfs.cpio"
cp "$work/pkgs" "$out/packages"
echo "$key" >"$out/key"
note "$(du -m "$out/rootfs.cpio" | cut -f1) MB, $(wc -l <"$work/pkgs") packages"
printf '%s\n' "$out/rootfs.cpio"
