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

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

echo "TAP version 13"
offered=$("$rig/fetch-tree.sh" --list) || {
	not_ok "list the linux-source-7.* versions offered"
	tap_done
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' "$offered" >"$tmp/offered"
while read -r package version; do
	if ! tree=$("$rig/fetch-tree.sh" --version "$version" 2>"$tmp/err"); then
		not_ok "$package $version: download failed"
		tap_indent 40 "$(cat "$tmp/err")"
		continue
	fi
	if "$rig/prepare-tree.sh" "$tree" "$tmp/linux" patches >"$tmp/log" 2>&1; then
		if [ -s "$tmp/log" ]; then
			ok "$package $version applies (with offsets)"
		else
			ok "$package $version applies cleanly"
		fi
	else
		not_ok "$package $version does not apply"
	fi
	tap_indent 1000 "$(cat "$tmp/log")"
	rm -rf "$tmp/linux"
	if [ "$version" != "$pinned" ] && [ "${KEEP_TREES:-0}" != 1 ]; then
		rm -rf "$(dirname "$tree")"
	fi
done <"$tmp/offered"
tap_done
