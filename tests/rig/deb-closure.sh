#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# deb-closure.sh list [--strict] ARCH DEBDIR "ROOTS" "SKIP"
#   Print PACKAGE=VERSION, sorted, for the Depends/Pre-Depends closure of
#   ROOTS in Debian 12 for ARCH, resolved with apt-cache from the private
#   apt state fetch-debs.sh keeps in DEBDIR/.apt (run fetch-debs.sh first).
#   Each dependency takes its first installable alternative. SKIP holds
#   shell patterns of package names left out with everything only they
#   need. Default: a skipped alternative is passed over and a dependency
#   with nothing installable is dropped (a sysroot from which dracut picks
#   what it finds). --strict: a dependency with any skipped alternative is
#   dropped whole, and one with nothing installable is an error (a root
#   file system whose programs must all run).
# deb-closure.sh unpack ARCH DEBDIR LIST ROOT
#   Download the packages of LIST (lines as printed by list) into DEBDIR
#   and unpack them into ROOT with dpkg -x: no maintainer script runs and
#   nothing of ARCH is executed on the host.
set -eu
# SKIP patterns must reach `case` unexpanded.
set -f
rig=$(cd "$(dirname "$0")" && pwd)
. "$rig/lib.sh"

usage() {
	die "usage: deb-closure.sh list [--strict] ARCH DEBDIR ROOTS SKIP | unpack ARCH DEBDIR LIST ROOT"
}

aptc() {
	# shellcheck disable=SC2046 # options, one word each
	apt-cache $(private_apt_opts "$debs/.apt" "$debarch") "$@"
}

# skipped NAME: 0 when NAME matches a SKIP pattern
skipped() {
	for pat in $skip; do
		# shellcheck disable=SC2254
		case "$1" in $pat) return 0 ;; esac
	done
	return 1
}

# pick ALTS: the first installable, not skipped alternative of "a|b|c"
pick() {
	for alt in $(printf '%s\n' "$1" | tr '|' ' '); do
		if [ -n "$strict" ] && skipped "$alt"; then
			return 0
		fi
	done
	for alt in $(printf '%s\n' "$1" | tr '|' ' '); do
		skipped "$alt" && continue
		if grep -qx -e "$alt" "$work/names"; then
			echo "$alt"
			return 0
		fi
	done
	[ -z "$strict" ] || die "no installable package for dependency '$1'"
}

list() {
	aptc pkgnames | LC_ALL=C sort -u >"$work/names"
	: >"$work/seen"
	todo=$roots
	while [ -n "$todo" ]; do
		for p in $todo; do echo "$p"; done >>"$work/seen"
		# shellcheck disable=SC2086
		aptc show --no-all-versions $todo >"$work/show" ||
			die "apt-cache show failed for: $todo"
		# One line per dependency: its alternatives, names only.
		sed -n 's/^\(Pre-\)\{0,1\}Depends: //p' "$work/show" | tr ',' '\n' |
			sed -e 's/([^)]*)//g' -e 's/:any//g' -e 's/[[:space:]]//g' \
				-e '/^$/d' | LC_ALL=C sort -u >"$work/deps"
		todo=
		while IFS= read -r alts; do
			p=$(pick "$alts") || exit 1
			[ -n "$p" ] || continue
			grep -qx -e "$p" "$work/seen" && continue
			case " $todo " in *" $p "*) continue ;; esac
			todo="$todo $p"
		done <"$work/deps"
		todo=${todo# }
	done
	# shellcheck disable=SC2046
	aptc show --no-all-versions $(LC_ALL=C sort -u "$work/seen") |
		awk '/^Package: /{p=$2} /^Version: /{print p "=" $2}' |
		LC_ALL=C sort -u
}

unpack() {
	# shellcheck disable=SC2046
	"$rig/fetch-debs.sh" "$arch" "$debs" $(sed 's/=.*//' "$1")
	mkdir -p "$2"
	while IFS="=" read -r pkg ver; do
		deb=$(deb_file "$debs" "$pkg" "$ver")
		[ -n "$deb" ] || die "no .deb for $pkg=$ver in $debs"
		dpkg -x "$deb" "$2"
	done <"$1"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
strict=
if [ "$cmd" = list ] && [ "${1:-}" = --strict ]; then
	strict=1
	shift
fi
[ $# -eq 4 ] || usage
arch=$1 debs=$2
debarch=$(debarch_of "$arch")
[ -f "$debs/.apt/sources.list" ] || die "no apt state in $debs/.apt (run fetch-debs.sh first)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case "$cmd" in
list)
	roots=$3 skip=$4
	list
	;;
unpack) unpack "$3" "$4" ;;
*) usage ;;
esac
