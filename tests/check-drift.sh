#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-drift.sh: apply the series to every linux-source-7.* version that
# Debian's registry offers right now and report, as TAP, which apply with
# zero fuzz. Trees other than the pinned one are removed afterwards unless
# KEEP_TREES=1.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
rig=$top/tests/rig
pinned=$(sed -n 's/^VERSION=//p' configs/linux-source.lock)

offered=$("$rig/fetch-tree.sh" --list) || {
	echo "not ok 1 - list the linux-source-7.* versions offered"
	exit 1
}
echo "TAP version 13"
echo "1..$(printf '%s\n' "$offered" | wc -l)"
n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' "$offered" | while read -r package version; do
	n=$((n + 1))
	tree=$("$rig/fetch-tree.sh" --version "$version" 2>"$tmp/err") || {
		echo "not ok $n - $package $version: download failed"
		sed 's/^/#   /' "$tmp/err"
		continue
	}
	if "$rig/prepare-tree.sh" "$tree" "$tmp/linux" patches >"$tmp/log" 2>&1; then
		if [ -s "$tmp/log" ]; then
			echo "ok $n - $package $version applies (with offsets)"
		else
			echo "ok $n - $package $version applies cleanly"
		fi
	else
		echo "not ok $n - $package $version does not apply"
	fi
	sed 's/^/#   /' "$tmp/log"
	rm -rf "$tmp/linux"
	if [ "$version" != "$pinned" ] && [ "${KEEP_TREES:-0}" != 1 ]; then
		rm -rf "$(dirname "$tree")"
	fi
done | tee "$tmp/tap"
! grep -q '^not ok' "$tmp/tap"
