#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every patch of the series passes the tree's checkpatch.pl --strict, has a
# "subsystem: Summary" subject and a Signed-off-by.
. tests/lib/common.sh

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
	list=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' patches/series)
}

suite_run() {
	n=0
	for p in $list; do
		n=$((n + 1))
		f=$TOP/patches/$p
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
