#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fetch-distro-config.sh DEBARCH
# Debian's own kernel configurations for DEBARCH (amd64, arm64), from the
# linux-config package of the pinned linux-source version
# (configs/linux-source.lock: linux-config-7.3 7.3.4-1~bpo13+1 holds
# config.DEBARCH_FEATURESET_FLAVOUR.xz for every flavour Debian builds).
# Downloaded through a private apt state in $BUILD/apt-config-DEBARCH,
# unpacked once into the cache; prints the directory holding the
# uncompressed configs (config.amd64_none_amd64, ...).
set -eu
rig=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$rig/../.." && pwd)
. "$rig/lib.sh"
[ $# -eq 1 ] || die "usage: fetch-distro-config.sh amd64|arm64"
debarch=$1
case "$debarch" in
amd64 | arm64) ;;
*) die "unsupported Debian architecture '$debarch' (amd64, arm64)" ;;
esac
cache=$(cache_dir)
build=${BUILD:-$top/build}
lock=$top/configs/linux-source.lock
pkg=$(sed -n 's/^PACKAGE=linux-source-//p' "$lock")
version=$(sed -n 's/^VERSION=//p' "$lock")
if [ -z "$pkg" ] || [ -z "$version" ]; then
	die "no PACKAGE/VERSION in $lock"
fi
pkg=linux-config-$pkg
dest=$cache/distro-config/$pkg-$version/$debarch
if [ -f "$dest/.done" ]; then
	echo "$dest"
	exit 0
fi
state=$build/apt-config-$debarch
aptopts=$(kernel_apt_opts "$state" "$debarch") || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086
(cd "$work" && apt-get $aptopts download "$pkg:$debarch=$version" >/dev/null 2>&1) ||
	die "Debian no longer offers $pkg $version for $debarch (the version of configs/linux-source.lock)"
dpkg -x "$work"/*.deb "$work/x"
rm -rf "$dest"
mkdir -p "$dest"
n=0
for f in "$work/x/usr/src/$pkg"/config.*.xz; do
	[ -f "$f" ] || continue
	b=${f##*/}
	xz -dc "$f" >"$dest/${b%.xz}"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || die "$pkg $version for $debarch holds no config.*.xz"
: >"$dest/.done"
echo "$dest"
