#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dep3.sh add ORIGIN DATE PATCH...   add DEP-3 lines to git format-patch files
# dep3.sh strip PATCH... >OUT        print a patch without them (one file)
#
# Debian's patch files carry DEP-3 header lines (Origin, Forwarded,
# Last-Update) among the mail headers, where git am and quilt ignore
# them. A mail to a kernel list has no use for them: "strip" gives the
# patch as it would be posted (make upstream-series). Only the header
# block, up to the first empty line, is touched.
set -eu
. "$(dirname "$0")/lib.sh"

dep3_fields='Origin|Forwarded|Last-Update|Bug|Bug-Debian|Applied-Upstream|Author|Description|Reviewed-by-Debian'

[ $# -ge 2 ] || die "usage: dep3.sh add ORIGIN DATE PATCH... | dep3.sh strip PATCH"
mode=$1
shift
case $mode in
add)
	[ $# -ge 3 ] || die "usage: dep3.sh add ORIGIN DATE PATCH..."
	origin=$1 date=$2
	shift 2
	printf '%s\n' "$date" | grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' ||
		die "DATE must be YYYY-MM-DD, not '$date'"
	for p in "$@"; do
		grep -q '^Subject: ' "$p" || die "$p: not a git format-patch file (no Subject:)"
		grep -Eq "^($dep3_fields): " "$p" && die "$p: has DEP-3 lines already"
		awk -v origin="$origin" -v date="$date" '
			!done && $0 == "" {
				print "Origin: other, " origin
				print "Forwarded: no"
				print "Last-Update: " date
				done = 1
			}
			{ print }' "$p" >"$p.tmp"
		mv "$p.tmp" "$p"
	done
	;;
strip)
	[ $# -eq 1 ] || die "usage: dep3.sh strip PATCH >OUT"
	[ -f "$1" ] || die "no patch $1"
	awk -v re="^($dep3_fields): " '
		!body && $0 == "" { body = 1 }
		body || $0 !~ re { print }' "$1"
	;;
*)
	die "unknown mode '$mode' (add or strip)"
	;;
esac
