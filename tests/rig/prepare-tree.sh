#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# prepare-tree.sh PRISTINE DEST PATCHDIR
# Make DEST a copy of the pristine tree with every patch of PATCHDIR/series
# applied by quilt with zero fuzz. On failure, quilt's output names the
# patch and the hunk, and DEST is left as the failed state for inspection.
# DEST is rebuilt only when the series or a patch changed; rsync keeps the
# timestamps of untouched files so the kernel build stays incremental.
# The pristine tree must stay read-only: DEST shares its files.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || die "usage: prepare-tree.sh PRISTINE DEST PATCHDIR"
pristine=$1 dest=$2 patchdir=$(cd "$3" && pwd)
[ -f "$pristine/Makefile" ] || die "no kernel tree at $pristine"
[ -f "$patchdir/series" ] || die "no series file in $patchdir"

want=$( (cd "$patchdir" && cat series &&
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' series | while read -r p _; do
		cat "$p"
	done) | sha256sum | cut -d' ' -f1) || die "a patch listed in series is missing"
if [ "$(cat "$dest/.series.sha256" 2>/dev/null)" = "$want" ]; then
	exit 0
fi

mkdir -p "$dest"
rm -f "$dest/.series.sha256"
# Hard links to the pristine files: seconds instead of copying 1.5 GB.
# patch(1) writes a new file and renames it over the old name, so a patched
# file gets an inode of its own and the pristine tree is never modified.
# Kernel objects built below a tree (build-kernel.sh) are not the tree.
rsync -a --delete --link-dest="$(cd "$pristine" && pwd)" --exclude='/.obj-*' \
	--exclude=/.pc --exclude=/.series.sha256 "$pristine/" "$dest/"
rm -rf "$dest/.pc"
count=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$patchdir/series" | wc -l)
if [ "$count" -gt 0 ]; then
	(cd "$dest" && QUILT_PATCHES=$patchdir QUILT_PC=.pc \
		quilt push -a --fuzz=0 -q) >"$dest/.quilt.log" 2>&1 || {
		cat "$dest/.quilt.log" >&2
		die "the series does not apply to $pristine with zero fuzz"
	}
	# A hunk applied at an offset still applies with zero fuzz, but it
	# means the series has drifted from the tree; say so.
	grep -i 'offset' "$dest/.quilt.log" >&2 || true
fi
printf '%s\n' "$want" >"$dest/.series.sha256"
