#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# prepare-seed-tree.sh PRISTINE DEST
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
# DEST shares the pristine files through hard links (kernel/Kconfig.preempt
# gets an inode of its own); it is redone only when missing or stale.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || die "usage: prepare-seed-tree.sh PRISTINE DEST"
pristine=$1 dest=$2
kconfig=kernel/Kconfig.preempt
[ -f "$pristine/$kconfig" ] || die "no kernel tree at $pristine"

lines='	default PREEMPT_LAZY if ARCH_HAS_PREEMPT_LAZY
	depends on ARCH_NO_PREEMPT
	depends on !ARCH_HAS_PREEMPT_LAZY'
want=$( (cat "$pristine/$kconfig"; printf '%s\n' "$lines") | sha256sum | cut -d' ' -f1)
if [ "$(cat "$dest/.seed.sha256" 2>/dev/null)" = "$want" ]; then
	exit 0
fi

mkdir -p "$dest"
rm -f "$dest/.seed.sha256"
# Kernel objects built below a tree (build-kernel.sh) are not the tree.
rsync -a --delete --link-dest="$(cd "$pristine" && pwd)" --exclude='/.obj-*' \
	--exclude=/.seed.sha256 "$pristine/" "$dest/"
tmp=$dest/$kconfig.seed
cp "$pristine/$kconfig" "$tmp"
printf '%s\n' "$lines" | while IFS= read -r l; do
	n=$(grep -cxF "$l" "$tmp" || true)
	[ "$n" = 1 ] || die "'$l' is in $kconfig $n times, not once"
	grep -vxF "$l" "$tmp" >"$tmp.new"
	mv "$tmp.new" "$tmp"
done
# mv replaces the hard link: the pristine tree keeps its own file
mv "$tmp" "$dest/$kconfig"
[ "$(diff "$pristine/$kconfig" "$dest/$kconfig" | grep -c '^<')" = 3 ] ||
	die "the seed edit did not remove exactly three lines"
printf '%s\n' "$want" >"$dest/.seed.sha256"
