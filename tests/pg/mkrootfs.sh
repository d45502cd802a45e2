#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkrootfs.sh [--list] ARCH [PACKAGE.deb]
# Build (or reuse) a guest root file system with PostgreSQL 15 and pgbench
# from Debian 12 (bookworm) packages for ARCH (arm64, x86_64), as an
# uncompressed newc cpio to append to the rig's initramfs
# (tests/rig/launch-vm.sh --extra-initrd), and print its path.
#
# PACKAGE.deb (make deb's preempt-policy package for ARCH): the same root
# with the package installed by dpkg into the root's own dpkg database
# (tests/rig/deb-install.sh: its file list and maintainer scripts), in
# its own cache directory ($PREEMPT_CACHE/rootfs/ARCH-pkg, keyed by the
# root's key, the package and deb-install.sh).
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
[ $# -eq 1 ] || [ $# -eq 2 ] || die "usage: mkrootfs.sh [--list] ARCH [PACKAGE.deb]"
arch=$1 pkg=${2:-}
[ -z "$pkg" ] || [ -f "$pkg" ] || die "no package '$pkg'"
triplet=$(arch_info "$arch" triplet) || exit 1

PGVER=15
ROOTS="postgresql-$PGVER postgresql-client-$PGVER"
# Package names (shell patterns) left out, with everything only they need.
SKIP="perl perl-base perl-modules-* libperl* postgresql-common
	postgresql-client-common locales locales-all libllvm* debconf
	debconf-2.0 cdebconf ssl-cert adduser passwd ucf sensible-utils
	lsb-base init-system-helpers dpkg libc-bin"
# The programs the guests run; their NEEDED closure must be complete.
PROGS="postgres initdb pg_ctl psql pgbench pg_controldata"

cache=$(cache_dir)
debs=$(debs_dir "$arch")
out=$cache/rootfs/$arch
mkdir -p "$out"

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

# pack DIR CPIO: DIR as a newc cpio, owned by root.
pack() {
	(cd "$1" && find . | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0) >"$2.tmp"
	mv "$2.tmp" "$2"
}

# with_package: print the root's cpio, or with PACKAGE.deb the root with
# the package installed (built when missing or stale).
with_package() {
	if [ -z "$pkg" ]; then
		printf '%s\n' "$out/rootfs.cpio"
		return 0
	fi
	pout=$cache/rootfs/$arch-pkg
	pkey=$( { cat "$out/key" "$pkg" "$top/tests/rig/deb-install.sh"; } |
		cache_key)
	if [ ! -f "$pout/rootfs.cpio" ] || [ "$(cat "$pout/key" 2>/dev/null)" != "$pkey" ]; then
		note "installing $(basename "$pkg") into the $arch PostgreSQL root fs"
		mkdir -p "$pout" "$work/proot"
		(cd "$work/proot" && cpio --quiet -idm --no-absolute-filenames) \
			<"$out/rootfs.cpio" || die "unpacking $out/rootfs.cpio failed"
		"$top/tests/rig/deb-install.sh" "$arch" "$work/proot" "$debs" "$pkg" \
			2>"$work/dpkg.out" || {
			cat "$work/dpkg.out" >&2
			die "installing $pkg into the root failed"
		}
		[ -x "$work/proot/usr/sbin/preempt-policy" ] ||
			die "$pkg did not install /usr/sbin/preempt-policy"
		pack "$work/proot" "$pout/rootfs.cpio"
		echo "$pkey" >"$pout/key"
	fi
	printf '%s\n' "$pout/rootfs.cpio"
}

key=$( { cat "$work/pkgs" "$0" "$top/tests/rig/deb-closure.sh"; } | cache_key)
if [ -f "$out/rootfs.cpio" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
	with_package
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
# The static busybox comes from tests/rig/guest-base.sh (the image, the
# initramfs).
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

pack "$root" "$out/rootfs.cpio"
cp "$work/pkgs" "$out/packages"
echo "$key" >"$out/key"
note "$(du -m "$out/rootfs.cpio" | cut -f1) MB, $(wc -l <"$work/pkgs") packages"
with_package
