#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build-deb.sh [--version VERSION] OUTDIR DEBARCH...
# Build the Debian package (debian/) for each Debian architecture named
# (amd64, arm64, ...; the host's natively, the others cross-built with
# dpkg-buildpackage -a) from a copy of the source tree, and leave the
# .deb, .buildinfo and .changes files in OUTDIR. dpkg-buildpackage writes
# them next to the tree it builds, so it builds a copy in
# OUTDIR/src/DEBARCH/preempt-policy: nothing lands beside the source.
# The source package (.dsc, .tar.xz; dpkg-source -b) comes from the first
# architecture's copy, before its build.
# --version VERSION: the copy's debian/changelog gets an entry of that
# version on top (the upgrade test's older package).
set -eu
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)

version=
if [ "${1:-}" = --version ]; then
	[ $# -ge 2 ] || die "--version needs a VERSION"
	version=$2
	shift 2
fi
[ $# -ge 2 ] || die "usage: build-deb.sh [--version VERSION] OUTDIR DEBARCH..."
out=$1
shift
for t in dpkg-buildpackage dh rsync; do
	command -v "$t" >/dev/null || die "$t is missing (run 'make deps' as root)"
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
case "$out/" in
"$top/debian/"* | "$top/policy/"* | "$top/initrd/"*)
	die "OUTDIR $out is inside the source the package is built from"
	;;
esac
host=$(dpkg --print-architecture)

for arch in "$@"; do
	case "$arch" in
	*[!a-z0-9]* | '') die "not a Debian architecture: '$arch'" ;;
	esac
	src=$out/src/$arch/preempt-policy
	rm -rf "$src"
	mkdir -p "$src"
	# The source, without build products, the cache link or git.
	rsync -a --exclude=/.git --exclude=/build --exclude=/policy/build \
		--exclude=/policy/preempt-policy --exclude='*.o' --exclude='*.deb' \
		"$top/" "$src/"
	if [ -n "$version" ]; then
		cl=$src/debian/changelog
		{
			printf 'preempt-policy (%s) unstable; urgency=medium\n\n' "$version"
			printf '  * Test build of version %s.\n\n' "$version"
			printf ' -- %s  %s\n\n' "$(dpkg-parsechangelog -l "$cl" -S Maintainer)" \
				"$(date -R)"
			cat "$cl"
		} >"$cl.new" && mv "$cl.new" "$cl"
		[ "$(dpkg-parsechangelog -l "$cl" -S Version)" = "$version" ] ||
			die "could not set version $version in $cl"
	fi
	if [ ! -f "$out/src/dsc-done" ]; then
		(cd "$out/src/$arch" && dpkg-source -b preempt-policy) \
			>"$out/source.log" 2>&1 ||
			die "dpkg-source -b failed (log: $out/source.log)"
		mv "$out/src/$arch"/*.dsc "$out/src/$arch"/*.tar.* "$out/"
		: >"$out/src/dsc-done"
	fi
	aflag=
	[ "$arch" = "$host" ] || aflag="-a$arch"
	note "building the $arch package${version:+ version $version} in $src"
	# make's exported variables (BUILD, MAKEFLAGS, the install
	# directories) must not reach the copy's make.
	# shellcheck disable=SC2086 # aflag is one word or none
	if ! (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD \
		-u PREEMPT_CACHE -u DESTDIR -u PREFIX \
		dpkg-buildpackage -us -uc -b $aflag) >"$out/build-$arch.log" 2>&1; then
		tail -n 30 "$out/build-$arch.log" >&2
		die "dpkg-buildpackage for $arch failed (log: $out/build-$arch.log)"
	fi
	mv "$out/src/$arch"/*.deb "$out/src/$arch"/*.buildinfo \
		"$out/src/$arch"/*.changes "$out/"
	rm -rf "$out/src/$arch"
done
rm -f "$out/src/dsc-done"
rmdir "$out/src" 2>/dev/null || true
