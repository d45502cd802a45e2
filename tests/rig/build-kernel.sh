#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Configure and build one QEMU test kernel out of tree:
#   build-kernel.sh ARCH SRC OBJ FRAGMENT...
# The configuration is tinyconfig plus the fragments, in order. It is
# regenerated only when a fragment changed, so warm rebuilds stay short.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -ge 4 ] || die "usage: build-kernel.sh ARCH SRC OBJ FRAGMENT..."
arch=$1 src=$2 obj=$3
shift 3
[ -f "$src/Makefile" ] || die "no kernel tree at $src"
for f in "$@"; do
	[ -f "$f" ] || die "no config fragment $f"
done

cross=$(cross_compile_for "$arch")
jobs=${JOBS:-$(nproc)}
ccache=
command -v ccache >/dev/null 2>&1 && ccache=ccache
kmake() {
	make -s -C "$src" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross" \
		CC="${ccache:+$ccache }${cross}gcc" HOSTCC="${ccache:+$ccache }gcc" \
		KBUILD_BUILD_TIMESTAMP=2026-01-01 KBUILD_BUILD_USER=rig \
		KBUILD_BUILD_HOST=qemu "$@"
}

mkdir -p "$obj"
stamp="$obj/.fragments.sha256"
want=$(cat "$@" | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	note "configuring $arch in $obj"
	kmake tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$@" >/dev/null
	kmake olddefconfig >/dev/null
	"$(dirname "$0")/check-config.sh" "$obj/.config" "$@"
	printf '%s\n' "$want" >"$stamp"
fi

image=$(kernel_image_for "$arch")
note "building $arch $(basename "$obj") with $jobs jobs"
kmake -j"$jobs" "$(basename "$image")"
[ -f "$obj/$image" ] || die "build produced no $image"
note "built $obj/$image"
