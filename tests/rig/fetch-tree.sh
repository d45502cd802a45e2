#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fetch-tree.sh [--list | --version VERSION]
# Make sure the pristine kernel tree of Debian's linux-source package is
# unpacked in the cache and print its path. The version comes from
# configs/linux-source.lock; if the registry no longer offers it, the newest
# linux-source-7.* offered is used instead, with a loud warning.
#   --list            print "PACKAGE VERSION" for every linux-source-7.*
#                     the registry offers now (for make check-drift)
#   --version V       use linux-source-7.x version V instead of the lock
# The private apt state lives in $BUILD/apt (default build/apt), on the
# mirror of the machine's apt sources (debian_mirror); those sources are
# never changed.
set -eu
rig=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$rig/../.." && pwd)
. "$rig/lib.sh"

cache=$(cache_dir)
build=${BUILD:-$top/build}
state=$build/apt
lock=$top/configs/linux-source.lock

lock_value() {
	sed -n "s/^$1=//p" "$lock"
}

mode=tree want_version=
case "${1:-}" in
--list) mode=list ;;
--version) want_version=${2:?--version needs a value} ;;
"") ;;
*) die "unknown argument '$1'" ;;
esac

aptopts=$(kernel_apt_opts "$state" amd64) || exit 1

# "PACKAGE VERSION" lines for every linux-source-7.* offered, oldest first.
offered() {
	# shellcheck disable=SC2086
	for pkg in $(apt-cache $aptopts pkgnames linux-source-7. | sort -V); do
		apt-cache $aptopts madison "$pkg" |
			awk -v p="$pkg" -F'|' '{gsub(/ /, "", $2); print p, $2}'
	done | sort -u | sort -k1,1V -k2,2V
}

if [ "$mode" = list ]; then
	offered
	exit 0
fi

package=$(lock_value PACKAGE)
version=${want_version:-$(lock_value VERSION)}
sha256=$(lock_value SHA256)
[ -n "$want_version" ] && sha256=
if [ -n "$want_version" ]; then
	package=linux-source-$(printf '%s' "$want_version" | cut -d. -f1-2)
fi
if ! offered | grep -qxF "$package $version"; then
	newest=$(offered | tail -n 1)
	[ -n "$newest" ] || die "the registry offers no linux-source-7.* at all"
	cat >&2 <<EOW
************************************************************************
WARNING: $package $version (pinned in configs/linux-source.lock) is no
longer offered by Debian's registry. Falling back to the newest offered:
    $newest
The patches may not apply; run 'make check-drift' and update the lock.
************************************************************************
EOW
	package=${newest% *} version=${newest#* } sha256=
fi

dir=$cache/src/${package}_$version
tree=$dir/$package
if [ ! -f "$dir/.unpacked" ]; then
	mkdir -p "$dir"
	(
		cd "$dir"
		# shellcheck disable=SC2086
		apt-get $aptopts download "$package=$version" >/dev/null 2>&1 ||
			die "download of $package=$version failed"
	)
	deb=
	for f in "$dir/${package}_"*.deb; do
		deb=$f
	done
	if [ -n "$sha256" ]; then
		got=$(sha256sum "$deb" | cut -d' ' -f1)
		[ "$got" = "$sha256" ] ||
			die "$deb: sha256 $got does not match the lock's $sha256"
	fi
	rm -rf "$dir/pkg" "$tree"
	dpkg -x "$deb" "$dir/pkg"
	tar -C "$dir" -xf "$dir/pkg/usr/src/$package.tar.xz"
	rm -rf "$dir/pkg" "$deb"
	[ -f "$tree/Makefile" ] || die "$deb held no kernel tree $package/"
	touch "$dir/.unpacked"
fi
printf '%s\n' "$tree"
