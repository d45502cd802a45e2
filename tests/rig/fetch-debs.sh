#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fetch-debs.sh ARCH DEBDIR PACKAGE...
# Download Debian 12 (bookworm) packages for a guest architecture into DEBDIR
# with a private apt state under DEBDIR/.apt, from the mirror of the
# machine's apt sources (debian_mirror); those sources and the dpkg
# database are never touched. Already downloaded packages are kept, so a
# warm run asks the registry nothing but the index.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -ge 3 ] || die "usage: fetch-debs.sh ARCH DEBDIR PACKAGE..."
arch=$1 debdir=$2
shift 2
debarch=$(debarch_of "$arch")

state=$debdir/.apt
aptopts=$(private_apt_opts "$state" "$debarch")
mirror=$(debian_mirror) || exit 1
security=$(debian_mirror security) || exit 1
private_sources "$state" <<EOS
deb [arch=$debarch] $mirror bookworm main
deb [arch=$debarch] $mirror bookworm-updates main
deb [arch=$debarch] $security bookworm-security main
EOS
# An index older than a day is refreshed; package versions move with it.
if [ -z "$(find "$state/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null)" ]; then
	# shellcheck disable=SC2086
	apt-get $aptopts update >/dev/null ||
		die "apt-get update for $debarch from $mirror and $security failed"
fi
cd "$debdir"
for pkg in "$@"; do
	# shellcheck disable=SC2086
	ver=$(apt-cache $aptopts policy "$pkg" 2>/dev/null |
		sed -n 's/^ *Candidate: //p')
	case "$ver" in
	"" | "(none)") die "package $pkg:$debarch not found" ;;
	esac
	file=$(printf '%s_%s_*.deb' "$pkg" "$ver" | sed 's/:/%3a/')
	# shellcheck disable=SC2086
	ls $file >/dev/null 2>&1 ||
		apt-get $aptopts download "$pkg:$debarch=$ver" >/dev/null 2>&1 ||
		die "download of $pkg:$debarch=$ver failed"
done
