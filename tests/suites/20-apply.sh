#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The series applies to a pristine copy of the pinned tree with zero fuzz;
# on failure quilt names the patch and the hunk.
. tests/lib/common.sh

suite_setup() {
	need "fetch the pinned kernel tree" make -s "$BUILD/pristine.path"
	diag "pinned kernel tree present: $(pristine_tree)"
	tmp=$(mktemp -d)
}

suite_cleanup() {
	rm -rf "${tmp:-}"
}

suite_run() {
	if out=$("$RIG/prepare-tree.sh" "$(pristine_tree)" "$tmp/linux" patches 2>&1); then
		ok "patches/series applies with zero fuzz ($(grep -cv '^[[:space:]]*\(#\|$\)' patches/series) patches)"
		if [ -n "$out" ]; then
			not_ok "series applies without offsets"
			diag "$out"
		else
			ok "series applies without offsets"
		fi
	else
		not_ok "patches/series applies with zero fuzz"
		diag "$out"
	fi
	# Every patch file in patches/ is listed, so none is silently left out.
	unlisted=
	for p in patches/[0-9]*.patch patches/*/[0-9]*.patch; do
		[ -e "$p" ] || continue
		case "$(basename "$p")" in
		0000-*) continue ;;
		esac
		grep -q "^${p#patches/}\([[:space:]]\|$\)" patches/series ||
			unlisted="$unlisted ${p#patches/}"
	done
	if [ -z "$unlisted" ]; then
		ok "every patch file is listed in patches/series"
	else
		not_ok "every patch file is listed in patches/series (not listed:$unlisted)"
	fi
}

suite_main
