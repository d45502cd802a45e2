#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The series applies to a pristine copy of the pinned tree with zero fuzz;
# on failure quilt names the patch and the hunk. The fixes kept apart from
# it (patches/fixes/series) apply on their own, to the pristine tree and
# on top of the series. The bench's seed kernels'
# edits (tests/rig/prepare-seed-tree.sh) find their lines in the pinned
# tree, and refuse a tree where they do not.
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
	fixes_apply "the pristine tree" "$(pristine_tree)" "$tmp/fixes"
	[ ! -d "$tmp/linux" ] || fixes_apply "the series" "$tmp/linux" "$tmp/fixes-on-series"
	# Every patch file in patches/ is listed, so none is silently left out:
	# those of fixes/ in fixes/series, the others in series.
	unlisted=
	for p in patches/[0-9]*.patch patches/*/[0-9]*.patch; do
		[ -e "$p" ] || continue
		case "$(basename "$p")" in
		0000-*) continue ;;
		esac
		case $p in
		patches/fixes/*) list=patches/fixes/series name=${p#patches/fixes/} ;;
		*) list=patches/series name=${p#patches/} ;;
		esac
		grep -q "^$name\([[:space:]]\|$\)" "$list" ||
			unlisted="$unlisted ${p#patches/}"
	done
	if [ -z "$unlisted" ]; then
		ok "every patch file is listed in patches/series or patches/fixes/series"
	else
		not_ok "every patch file is listed in patches/series or patches/fixes/series (not listed:$unlisted)"
	fi
	seed_checks
}

# fixes_apply WHAT TREE DEST: patches/fixes/series applies to TREE with zero
# fuzz and without offsets.
fixes_apply() {
	if out=$("$RIG/prepare-tree.sh" "$2" "$3" patches/fixes 2>&1); then
		if [ -n "$out" ]; then
			not_ok "patches/fixes/series applies to $1 without offsets"
			diag "$out"
		else
			ok "patches/fixes/series applies to $1 with zero fuzz, without offsets"
		fi
	else
		not_ok "patches/fixes/series applies to $1 with zero fuzz"
		diag "$out"
	fi
}

seed_plain() {
	"$RIG/prepare-seed-tree.sh" "$mini" "$tmp/seed" && cmp "$mini/$preempt_h" "$tmp/seed/$preempt_h"
}

seed_x86_fix() {
	"$RIG/prepare-seed-tree.sh" --x86-resched-fix "$mini" "$tmp/seedfix" &&
		grep -qx '#define PREEMPT_NEED_RESCHED	0x80000000UL' "$tmp/seedfix/$preempt_h"
}

# seed_checks: prepare-seed-tree.sh on the two files it edits, copied from
# the pinned tree
seed_checks() {
	mini=$tmp/seed-pristine
	preempt_h=arch/x86/include/asm/preempt.h
	mkdir -p "$mini/kernel" "$mini/${preempt_h%/*}"
	cp "$(pristine_tree)/kernel/Kconfig.preempt" "$mini/kernel/"
	cp "$(pristine_tree)/$preempt_h" "$mini/$preempt_h"
	check "the seed edit applies to the pinned tree, preempt.h left alone" seed_plain
	check "the seed edit with --x86-resched-fix: PREEMPT_NEED_RESCHED is bit 31 for 32-bit __pc_op" \
		seed_x86_fix
	sed -i 's/(~(((unsigned long)-1L) >> 1))/(~((unsigned long)-1L >> 1))/' "$mini/$preempt_h"
	if out=$("$RIG/prepare-seed-tree.sh" --x86-resched-fix "$mini" "$tmp/moved" 2>&1); then
		not_ok "the x86 fix refuses a preempt.h without its line"
	else
		case $out in
		*"is in $preempt_h 0 times, not once"*)
			ok "the x86 fix refuses a preempt.h without its line" ;;
		*) not_ok "the x86 fix refuses a preempt.h without its line (said: $out)" ;;
		esac
	fi
}

suite_main
