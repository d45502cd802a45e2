# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Shared helpers for the rig scripts (sourced, POSIX sh).

die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

note() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}

# Kernel ARCH -> prefix of the cross toolchain (empty: native).
cross_compile_for() {
	case "$1" in
	arm64)
		[ "$(uname -m)" = aarch64 ] || printf 'aarch64-linux-gnu-'
		;;
	x86_64)
		[ "$(uname -m)" = x86_64 ] || printf 'x86_64-linux-gnu-'
		;;
	*)
		die "unsupported ARCH '$1' (arm64, x86_64)"
		;;
	esac
}

# Kernel ARCH -> boot image path inside the build directory.
kernel_image_for() {
	case "$1" in
	arm64) printf 'arch/arm64/boot/Image' ;;
	x86_64) printf 'arch/x86/boot/bzImage' ;;
	*) die "unsupported ARCH '$1' (arm64, x86_64)" ;;
	esac
}
