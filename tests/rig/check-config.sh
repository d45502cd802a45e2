#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-config.sh DOTCONFIG FRAGMENT...
# merge_config.sh silently drops options whose dependencies are unmet; prove
# that every option of every fragment is set in the final .config as asked.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: check-config.sh DOTCONFIG FRAGMENT..."
config=$1
shift
# An unreadable .config or fragment is not a lost option: say which.
for f in "$config" "$@"; do
	if [ ! -f "$f" ] || [ ! -r "$f" ]; then
		die "cannot read $f"
	fi
done
bad=0
wanted=$(mktemp)
trap 'rm -f "$wanted"' EXIT
# Assignments "CONFIG_X=v" and "# CONFIG_X is not set", each with the
# fragment that asked for it. A later fragment overrides an earlier one, as
# merge_config.sh does, so only the last request for an option counts.
for frag in "$@"; do
	sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)$/\1/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1=n/p' \
		"$frag" | sed "s|^|$frag |"
done | awk '{ name = $2; sub(/=.*/, "", name); last[name] = $0; order[name] = NR }
	END { for (n in last) print order[n], last[n] }' |
	sort -n | cut -d' ' -f2- >"$wanted"
while read -r frag want; do
	name=${want%%=*}
	# grep's 1 is "not set"; anything above is a read error
	got=$(grep -E "^$name=" "$config") || [ $? -eq 1 ] ||
		die "reading $config failed"
	if [ "${want#*=}" = n ]; then
		[ -z "$got" ] && continue
	elif [ "$got" = "$want" ]; then
		continue
	fi
	printf '%s: wanted %s, got %s\n' "$frag" "$want" \
		"${got:-not set}" >&2
	bad=$((bad + 1))
done <"$wanted"
[ "$bad" -eq 0 ] || die "$bad option(s) of the fragments lost in $config"
