#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-fragment-layout.sh TREE FRAGMENT...
# A distribution fragment in the layout of Debian's debian/config files,
# checked against the Kconfig files of TREE:
# - every option line sits under a "## file: F" heading, and F is the
#   Kconfig file that defines the symbol (config or menuconfig);
# - a "## choice: PROMPT" block ("## end choice" closes it) lists every
#   member of the choice with that prompt in F, and only those;
# - every option line has its reason: a comment line right above it
#   (comment lines themselves never look like "# CONFIG_X is not set");
# - no CONFIG_PREEMPT_RT line (merged into a distribution config it would
#   switch off a real-time flavour built from the same tree).
# Prints one line per problem; exits 1 if there is any.
set -eu
. "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] || die "usage: check-fragment-layout.sh TREE FRAGMENT..."
tree=$1
shift
[ -f "$tree/Kconfig" ] || die "$tree is not a kernel tree (no Kconfig)"
bad=0
for frag in "$@"; do
	[ -r "$frag" ] || die "cannot read $frag"
	out=$(awk -v tree="$tree" -v frag="$frag" '
	function defines(file, sym,    line, found) {
		found = 0
		while ((getline line < (tree "/" file)) > 0)
			if (line ~ ("^(menu)?config " sym "$"))
				found = 1
		close(tree "/" file)
		return found
	}
	# The members of the choice whose prompt is PROMPT in FILE, space
	# separated, or "?" when there is no such choice.
	function members(file, prompt,    line, in_choice, this, list, res) {
		res = "?"
		in_choice = 0
		while ((getline line < (tree "/" file)) > 0) {
			if (line ~ /^choice/) { in_choice = 1; this = 0; list = ""; continue }
			if (line ~ /^endchoice/) {
				if (this) res = list
				in_choice = 0
				continue
			}
			if (!in_choice) continue
			if (line ~ /^[ \t]*prompt "/ && index(line, "\"" prompt "\""))
				this = 1
			if (line ~ /^config /) { sub(/^config /, "", line); list = list " " line }
		}
		close(tree "/" file)
		return res
	}
	function problem(msg) { printf "%s:%d: %s\n", frag, NR, msg; bad++ }
	BEGIN { bad = 0; file = ""; choice = ""; prev_comment = 0 }
	/^## file: / { file = $0; sub(/^## file: /, "", file)
		if ((getline tmp < (tree "/" file)) <= 0) problem("no Kconfig file " file " in the tree")
		close(tree "/" file); prev_comment = 0; next }
	/^## choice: / { choice = $0; sub(/^## choice: /, "", choice); listed = ""
		want = members(file, choice)
		if (want == "?") problem("no choice \"" choice "\" in " file)
		prev_comment = 0; next }
	/^## end choice/ {
		n = split(want, w, " ")
		for (i = 1; i <= n; i++)
			if (index(listed " ", " " w[i] " ") == 0)
				problem("choice \"" choice "\" does not list " w[i])
		choice = ""; prev_comment = 0; next }
	/^##/ { prev_comment = 0; next }
	/^(# )?CONFIG_[A-Za-z0-9_]+( is not set|=)/ {
		sym = $0; sub(/^(# )?CONFIG_/, "", sym); sub(/( is not set|=).*$/, "", sym)
		if (sym == "PREEMPT_RT")
			problem("CONFIG_PREEMPT_RT: would switch a real-time flavour off")
		if (file == "")
			problem("CONFIG_" sym " under no \"## file:\" heading")
		else if (!defines(file, sym))
			problem("CONFIG_" sym " is not defined in " file)
		if (choice != "") {
			if (index(want " ", " " sym " ") == 0)
				problem("CONFIG_" sym " is not a member of choice \"" choice "\"")
			listed = listed " " sym
		}
		if (!prev_comment)
			problem("CONFIG_" sym " has no reason (a comment line above it)")
		prev_comment = 0
		next
	}
	/^#/ { prev_comment = 1; next }
	/^[ \t]*$/ { prev_comment = 0; next }
	{ problem("not an option, heading or comment: " $0) }
	END { if (choice != "") problem("choice \"" choice "\" not closed with ## end choice")
		exit bad > 0 }
	' "$frag") || bad=$((bad + 1))
	[ -z "$out" ] || printf '%s\n' "$out"
done
[ "$bad" -eq 0 ]
