#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The distribution fragments survive merge_config.sh + olddefconfig on top of
# each architecture's defconfig in the patched tree, option by option; the
# none-by-default fragment is dropped by the unpatched tree (the regression).
# The QEMU fragments are checked the same way by every kernel build.
. tests/lib/common.sh
# shellcheck source=tests/rig/lib.sh
. "$RIG/lib.sh"

make -s patched-tree >/dev/null 2>&1 || { not_ok "prepare the patched tree"; exit 1; }
pristine=$(pristine_tree)
patched=$CACHE/trees/patched

# merged TREE ARCH DIR FRAGMENT...: defconfig + fragments in DIR.
merged() {
	tree=$1 arch=$2 dir=$3
	shift 3
	rm -rf "$dir"
	mkdir -p "$dir"
	cross=$(cross_compile_for "$arch")
	make -s -C "$tree" O="$dir" ARCH="$arch" CROSS_COMPILE="$cross" defconfig >/dev/null &&
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$dir" "$dir/.config" "$@" >/dev/null &&
	make -s -C "$tree" O="$dir" ARCH="$arch" CROSS_COMPILE="$cross" olddefconfig >/dev/null
}
work=$BUILD/config-check
for arch in arm64 x86_64; do
	lazy="configs/distro-preempt.config"
	none="configs/distro-preempt.config configs/distro-preempt-none.config"
	# shellcheck disable=SC2086
	if merged "$patched" "$arch" "$work/$arch-lazy" $lazy; then
		check "$arch defconfig + distro-preempt.config keeps every option" \
			"$RIG/check-config.sh" "$work/$arch-lazy/.config" $lazy
	else
		not_ok "$arch defconfig + distro-preempt.config configures"
	fi
	# shellcheck disable=SC2086
	if merged "$patched" "$arch" "$work/$arch-none" $none; then
		# The none fragment overrides the lazy choice of the first one,
		# so it is the one whose every line must hold.
		check "$arch defconfig + distro-preempt-none.config keeps every option (patched)" \
			"$RIG/check-config.sh" "$work/$arch-none/.config" configs/distro-preempt-none.config
	else
		not_ok "$arch defconfig + distro-preempt-none.config configures"
	fi
	# shellcheck disable=SC2086
	merged "$pristine" "$arch" "$work/$arch-none-base" $none
	if "$RIG/check-config.sh" "$work/$arch-none-base/.config" \
		configs/distro-preempt-none.config >/dev/null 2>&1; then
		not_ok "$arch unpatched tree drops CONFIG_PREEMPT_NONE under PREEMPT_DYNAMIC"
	else
		ok "$arch unpatched tree drops CONFIG_PREEMPT_NONE under PREEMPT_DYNAMIC (the regression)"
	fi
done
