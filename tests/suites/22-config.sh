#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The distribution fragments: in Debian's layout (## file: headings that
# name the defining Kconfig file, whole choices, a reason per line, no
# PREEMPT_RT), and surviving merge_config.sh + olddefconfig option by
# option on top of each architecture's defconfig and of Debian's own
# configurations of the pinned version (linux-config-7.3, amd64 and
# arm64: the generic flavour, and the rt flavour, which must stay
# real-time) in the patched tree; the none and voluntary defaults are
# dropped by the unpatched tree (the regression), and by the patched tree
# without the opt-in PREEMPT_DYNAMIC_ALL_MODES, whose .config must then be
# the unpatched tree's byte for byte (that option's line apart). The QEMU
# fragments are checked the same way by every kernel build.
. tests/lib/common.sh

# merged TREE ARCH DIR BASE FRAGMENT...: BASE (defconfig, or a .config
# file) + fragments, the result in DIR/.config. The merges share one
# kconfig directory per tree and arch: each fresh O= directory compiled
# scripts/kconfig anew, which cost more than the merges themselves.
merged() {
	tree=$1 arch=$2 dir=$3 base=$4
	shift 4
	rm -rf "$dir"
	mkdir -p "$dir"
	kc=$work/kconfig-$(basename "$tree")-$arch
	mkdir -p "$kc"
	cross=$(cross_compile_for "$arch")
	if [ "$base" = defconfig ]; then
		if [ ! -f "$kc.defconfig" ]; then
			make -s -C "$tree" O="$kc" ARCH="$arch" CROSS_COMPILE="$cross" defconfig >/dev/null &&
				cp "$kc/.config" "$kc.defconfig" || return 1
		fi
		base=$kc.defconfig
	fi
	cp "$base" "$kc/.config"
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$kc" "$kc/.config" "$@" >/dev/null &&
	make -s -C "$tree" O="$kc" ARCH="$arch" CROSS_COMPILE="$cross" olddefconfig >/dev/null &&
	cp "$kc/.config" "$dir/.config"
}

lazy="configs/distro-preempt.config"
# check_base ARCH BASE NAME [patched-only]: the three fragments on BASE,
# in the patched tree and (unless patched-only) the unpatched one.
check_base() {
	cb_arch=$1 cb_base=$2 cb_name=$3 cb_only=${4:-}
	d=$work/$cb_arch-$cb_name
	# shellcheck disable=SC2086
	if merged "$patched" "$cb_arch" "$d-lazy" "$cb_base" $lazy; then
		check "$cb_arch $cb_name + distro-preempt.config keeps every option" \
			"$RIG/check-config.sh" "$d-lazy/.config" $lazy
	else
		not_ok "$cb_arch $cb_name + distro-preempt.config configures"
	fi
	for m in none voluntary; do
		f=configs/distro-preempt-$m.config
		# The default's fragment overrides the lazy choice of the first
		# one, so it is the one whose every line must hold; the huge
		# page lines of the first must hold too.
		# shellcheck disable=SC2086
		if merged "$patched" "$cb_arch" "$d-$m" "$cb_base" $lazy "$f"; then
			check "$cb_arch $cb_name + distro-preempt-$m.config keeps every option (patched)" \
				"$RIG/check-config.sh" "$d-$m/.config" $lazy "$f"
		else
			not_ok "$cb_arch $cb_name + distro-preempt-$m.config configures"
		fi
		[ -z "$cb_only" ] || continue
		# The regression is the default's model line gone from a
		# .config that olddefconfig did write, with PREEMPT_DYNAMIC on;
		# a merge that failed shows nothing, and the opt-in's
		# comparison below has no unpatched .config to compare with.
		model=CONFIG_PREEMPT_$(echo "$m" | tr '[:lower:]' '[:upper:]')
		# shellcheck disable=SC2086
		if ! merged "$pristine" "$cb_arch" "$d-$m-base" "$cb_base" $lazy "$f"; then
			not_ok "$cb_arch $cb_name + distro-preempt-$m.config configures in the unpatched tree"
			continue
		fi
		if grep -qx "$model=y" "$d-$m-base/.config"; then
			not_ok "$cb_arch $cb_name: the unpatched tree kept the $m default (it should drop it)"
		elif ! grep -qx 'CONFIG_PREEMPT_DYNAMIC=y' "$d-$m-base/.config"; then
			not_ok "$cb_arch $cb_name: the unpatched tree's .config has no PREEMPT_DYNAMIC=y"
		else
			ok "$cb_arch $cb_name: unpatched tree drops the $m default under PREEMPT_DYNAMIC (the regression)"
		fi
		# The opt-in: without PREEMPT_DYNAMIC_ALL_MODES the patched tree
		# must land exactly where the unpatched one does, the option's
		# own "is not set" line apart. The lazy fragment turns the
		# option on too, so it is turned off by a last fragment rather
		# than by leaving it out of the default's.
		# shellcheck disable=SC2086
		if ! merged "$patched" "$cb_arch" "$d-$m-off" "$cb_base" $lazy "$f" "$off"; then
			not_ok "$cb_arch $cb_name + distro-preempt-$m.config without the opt-in configures"
			continue
		fi
		if grep -v 'PREEMPT_DYNAMIC_ALL_MODES' "$d-$m-off/.config" |
			cmp -s - "$d-$m-base/.config"; then
			ok "$cb_arch $cb_name: patched tree without PREEMPT_DYNAMIC_ALL_MODES drops the $m default, .config identical to the unpatched tree's"
		else
			not_ok "$cb_arch $cb_name: patched tree without PREEMPT_DYNAMIC_ALL_MODES lands where the unpatched tree does"
			diag "$(grep -v 'PREEMPT_DYNAMIC_ALL_MODES' "$d-$m-off/.config" |
				diff "$d-$m-base/.config" - | head -n 20)"
		fi
	done
}

# arch_checks ARCH: the fragments on ARCH's defconfig, then on Debian's
# own configurations of the pinned version.
arch_checks() {
	arch=$1
	check_base "$arch" defconfig defconfig
	debarch=$(debarch_of "$arch")
	if ! dir=$("$RIG/fetch-distro-config.sh" "$debarch" 2>"$work/$arch.err"); then
		not_ok "Debian's $debarch kernel configurations: $(cat "$work/$arch.err")"
		return
	fi
	generic=$dir/config.${debarch}_none_$debarch
	rt=$dir/config.${debarch}_none_rt-$debarch
	if [ ! -f "$generic" ] || [ ! -f "$rt" ]; then
		not_ok "Debian's $debarch configurations lack ${generic##*/} or ${rt##*/}"
		return
	fi
	# The regression on the unpatched tree is shown on defconfig above;
	# each olddefconfig of a whole distribution config costs 10-30 s here.
	check_base "$arch" "$generic" "debian-$debarch" patched-only
	# The rt flavour is built from the same tree: merged into it, the
	# fragments must leave it real-time (none gives way to PREEMPT_RT).
	d=$work/$arch-debian-rt
	# shellcheck disable=SC2086
	if merged "$patched" "$arch" "$d" "$rt" $lazy configs/distro-preempt-none.config &&
		grep -qx 'CONFIG_PREEMPT_RT=y' "$d/.config"; then
		ok "$arch debian-$debarch rt flavour + the fragments stays PREEMPT_RT"
	else
		not_ok "$arch debian-$debarch rt flavour + the fragments lost PREEMPT_RT=y"
	fi
}

suite_setup() {
	need "prepare the patched tree" make -s patched-tree
	pristine=$(pristine_tree)
	patched=$CACHE/trees/patched
	work=$BUILD/config-check
	rm -rf "$work"
	mkdir -p "$work"
	off=$work/all-modes-off.config
	echo '# CONFIG_PREEMPT_DYNAMIC_ALL_MODES is not set' >"$off"
}

suite_run() {
	check "distribution fragments follow Debian's layout (file headings, whole choices, reasons, no PREEMPT_RT)" \
		"$RIG/check-fragment-layout.sh" "$patched" configs/distro-*.config
	# The two architectures share nothing (their own kconfig
	# directories, configurations and apt states): one on each core,
	# their TAP in order afterwards (check.sh numbers it and counts the
	# failures).
	for arch in arm64 x86_64; do
		arch_checks "$arch" >"$work/$arch.tap" 2>"$work/$arch.stderr" &
	done
	wait
	for arch in arm64 x86_64; do
		cat "$work/$arch.tap"
		cat "$work/$arch.stderr" >&2
		[ -s "$work/$arch.tap" ] || not_ok "$arch configuration checks printed nothing"
	done
}

suite_main
