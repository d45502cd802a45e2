#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every patch of the series and of patches/fixes, as it would be posted
# (make upstream-series: without the DEP-3 lines of Debian's patch files),
# passes the tree's checkpatch.pl --strict, has a "subsystem: Summary"
# subject and a Signed-off-by; the Debian patch files have their DEP-3
# lines, and the mails none.
. tests/lib/common.sh

# dep3_only_in_file PATCH MAIL: PATCH's header has Origin, Forwarded and
# Last-Update; MAIL (its make upstream-series copy) has none of them.
dep3_only_in_file() {
	for field in Origin Forwarded Last-Update; do
		sed '/^$/q' "$1" | grep -q "^$field: " || {
			echo "no $field: line in the header of $1"
			return 1
		}
		! grep -q "^$field: " "$2" || {
			echo "$2 still has a $field: line"
			return 1
		}
	done
}

in_tree() {
	(cd "$tree" && "$@")
}

suite_setup() {
	need "fetch the pinned kernel tree" make -s "$BUILD/pristine.path"
	tree=$(pristine_tree)
	# Debian's source tree carries no git history, so checkpatch cannot
	# look up the upstream commits that Fixes: tags and "commit <id>
	# (...)" references name, and warns UNKNOWN_COMMIT_ID for every one
	# of them. Without git the lookup is skipped, not failed: ignore only
	# that type, and only then.
	ignore=
	[ -e "$tree/.git" ] || ignore="--ignore UNKNOWN_COMMIT_ID"
	list=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' patches/series
		sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e 's|^|fixes/|' patches/fixes/series)
	need "make upstream-series" make -s upstream-series
}

suite_run() {
	n=0
	for p in $list; do
		n=$((n + 1))
		f=$BUILD/upstream/$p
		check "$p has its DEP-3 lines, its mail none" dep3_only_in_file "$TOP/patches/$p" "$f"
		# From inside the tree, as kernel developers run it: checkpatch
		# reads the tree's own git and configuration, not ours.
		# shellcheck disable=SC2086 # $ignore is empty or two words
		check "checkpatch --strict $p" in_tree \
			perl scripts/checkpatch.pl --strict --quiet --show-types --terse $ignore "$f"
		subject=$(sed -n 's/^Subject: \(\[PATCH[^]]*\] \)\{0,1\}//p' "$f" | head -n 1)
		# "subsystem: Summary"; mm/ uses a lower-case summary by convention.
		if printf '%s' "$subject" | grep -Eq '^[a-z0-9_/.-]+: [A-Za-z]'; then
			ok "$p subject is 'subsystem: Summary' ($subject)"
		else
			not_ok "$p subject is 'subsystem: Summary' ($subject)"
		fi
		if grep -q '^Signed-off-by: .* <.*@.*>' "$f"; then
			ok "$p has a Signed-off-by"
		else
			not_ok "$p has a Signed-off-by"
		fi
	done
	[ "$n" -gt 0 ] || skip "checkpatch" "the series is empty"
}

suite_main
