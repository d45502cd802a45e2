#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-config.sh [-k TREE] DOTCONFIG FRAGMENT...
# merge_config.sh silently drops options whose dependencies are unmet; prove
# that every option of every fragment is set in the final .config as asked.
# An option asked off ("# CONFIG_X is not set") holds in any .config
# without it, also when the name is misspelt or the tree lacks the option
# (a pristine tree given the option-off kernel's fragments): with -k, each
# such option must also be defined by one of TREE's Kconfig files.
set -eu
. "$(dirname "$0")/lib.sh"

usage="usage: check-config.sh [-k TREE] DOTCONFIG FRAGMENT..."
tree=
if [ "${1:-}" = -k ]; then
	[ $# -ge 2 ] || die "$usage"
	tree=$2
	shift 2
	[ -f "$tree/Kconfig" ] || die "no kernel tree at $tree (no Kconfig)"
fi
[ $# -ge 2 ] || die "$usage"
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
known=$(mktemp)
trap 'rm -f "$wanted" "$known"' EXIT
if [ -n "$tree" ]; then
	# Hidden directories hold object trees (build-kernel.sh), not Kconfig.
	find "$tree" -name '.?*' -prune -o -name 'Kconfig*' -type f \
		-exec grep -hE '^[[:space:]]*(menu)?config[[:space:]]+[A-Za-z0-9_]+' {} + |
		awk '{ print "CONFIG_" $2 }' | sort -u >"$known"
fi
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
		if [ -n "$tree" ] && ! grep -qx "$name" "$known"; then
			printf '%s: wanted %s off, but no Kconfig file of %s defines it\n' \
				"$frag" "$name" "$tree" >&2
			bad=$((bad + 1))
			continue
		fi
		[ -z "$got" ] && continue
	elif [ "$got" = "$want" ]; then
		continue
	fi
	printf '%s: wanted %s, got %s\n' "$frag" "$want" \
		"${got:-not set}" >&2
	bad=$((bad + 1))
done <"$wanted"
[ "$bad" -eq 0 ] || die "$bad option(s) of the fragments lost in $config"
