#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# prepare-seed-tree.sh [--x86-resched-fix] PRISTINE DEST
# Make DEST the kernel the PostgreSQL report measured as its fix: the
# pristine tree with the Kconfig change of the patch "sched: Restore
# PREEMPT_NONE as default" (Salvatore Dipietro, 2026-04-03, the report's
# cover letter; kept outside this project). Three lines go from
# kernel/Kconfig.preempt: the PREEMPT_LAZY default on lazy-capable
# architectures, PREEMPT_NONE's "depends on ARCH_NO_PREEMPT" and
# PREEMPT_VOLUNTARY's "depends on !ARCH_HAS_PREEMPT_LAZY". The edit is made
# here rather than by applying that patch, so the project does not carry it;
# each line must be found exactly once, or the tree has moved and the seed
# kernel is not what it claims to be.
#
# --x86-resched-fix also mends the seed kernel's x86_64 PREEMPT_NONE build,
# whose cond_resched() never schedules: without PREEMPT_COUNT, x86_64 does
# not select HAS_SEPARATE_PREEMPT_RESCHED_BITS and works its 64-bit
# __preempt_count with 32-bit per-CPU operations, while
# PREEMPT_NEED_RESCHED stays bit 63 (arch/x86/include/asm/preempt.h), so
# setting and clearing the bit are no-ops. The fix puts the bit at 31 for
# the 32-bit operations. It is not part of the seed patch: a kernel built
# from this tree is "the seed + an x86 fix" (make kernel-x86_64-seedfix),
# and it is the same kernel as the seed's on arm64.
# DEST shares the pristine files through hard links (the edited files get
# inodes of their own); it is redone only when missing or stale.
set -eu
. "$(dirname "$0")/lib.sh"

x86_fix=0
if [ "${1:-}" = --x86-resched-fix ]; then
	x86_fix=1
	shift
fi
[ $# -eq 2 ] || die "usage: prepare-seed-tree.sh [--x86-resched-fix] PRISTINE DEST"
pristine=$1 dest=$2
kconfig=kernel/Kconfig.preempt
preempt_h=arch/x86/include/asm/preempt.h
[ -f "$pristine/$kconfig" ] || die "no kernel tree at $pristine"

lines='	default PREEMPT_LAZY if ARCH_HAS_PREEMPT_LAZY
	depends on ARCH_NO_PREEMPT
	depends on !ARCH_HAS_PREEMPT_LAZY'
resched_old='#define PREEMPT_NEED_RESCHED	(~(((unsigned long)-1L) >> 1))'
resched_new='#ifdef CONFIG_HAS_SEPARATE_PREEMPT_RESCHED_BITS
#define PREEMPT_NEED_RESCHED	(~(((unsigned long)-1L) >> 1))
#else
/* x86 fix for the seed tree (tests/rig/prepare-seed-tree.sh): __pc_op is 32-bit */
#define PREEMPT_NEED_RESCHED	0x80000000UL
#endif'
fix=
[ "$x86_fix" = 0 ] || fix=$(cat "$pristine/$preempt_h"; printf '%s\n' "$resched_new")
want=$( (cat "$pristine/$kconfig"; printf '%s\n' "$lines"; printf '%s' "$fix") |
	sha256sum | cut -d' ' -f1)
if [ "$(cat "$dest/.seed.sha256" 2>/dev/null)" = "$want" ]; then
	exit 0
fi

# once LINE FILE NAME: LINE is in FILE exactly once, or the tree has moved
once() {
	n=$(grep -cxF "$1" "$2" || true)
	[ "$n" = 1 ] || die "'$1' is in $3 $n times, not once"
}

mkdir -p "$dest"
rm -f "$dest/.seed.sha256"
# Kernel objects built below a tree (build-kernel.sh) are not the tree.
rsync -a --delete --link-dest="$(cd "$pristine" && pwd)" --exclude='/.obj-*' \
	--exclude=/.seed.sha256 "$pristine/" "$dest/"
tmp=$dest/$kconfig.seed
cp "$pristine/$kconfig" "$tmp"
printf '%s\n' "$lines" | while IFS= read -r l; do
	once "$l" "$tmp" "$kconfig"
	grep -vxF "$l" "$tmp" >"$tmp.new"
	mv "$tmp.new" "$tmp"
done
# mv replaces the hard link: the pristine tree keeps its own file
mv "$tmp" "$dest/$kconfig"
[ "$(diff "$pristine/$kconfig" "$dest/$kconfig" | grep -c '^<')" = 3 ] ||
	die "the seed edit did not remove exactly three lines"
if [ "$x86_fix" = 1 ]; then
	once "$resched_old" "$pristine/$preempt_h" "$preempt_h"
	tmp=$dest/$preempt_h.seed
	awk -v old="$resched_old" -v new="$resched_new" \
		'$0 == old { print new; next } { print }' "$pristine/$preempt_h" >"$tmp"
	mv "$tmp" "$dest/$preempt_h"
fi
printf '%s\n' "$want" >"$dest/.seed.sha256"
