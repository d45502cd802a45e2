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
# The objects go to a directory right below the source tree and OBJ
# becomes a symlink to it: kbuild then names every source relative to it
# (srctree is ".."), so the base and the patched tree compile with the
# same command lines, and their configurations being the same, ccache
# serves the patched build every object the series leaves alone. An OBJ
# that is a directory from before stays in use.
if [ -d "$obj" ] && [ ! -L "$obj" ]; then
	build=$obj
else
	build=$(cd "$src" && pwd)/.obj-$(basename "$obj")
	mkdir -p "$build" "$(dirname "$obj")"
	ln -sfn "$build" "$obj"
fi

kmake() {
	make -s -C "$src" O="$build" ARCH="$arch" CROSS_COMPILE="$cross" \
		CC="${ccache:+$ccache }${cross}gcc" HOSTCC="${ccache:+$ccache }gcc" \
		KBUILD_BUILD_TIMESTAMP=2026-01-01 KBUILD_BUILD_USER=rig \
		KBUILD_BUILD_HOST=qemu "$@"
}

stamp="$build/.fragments.sha256"
want=$(cat "$@" | sha256sum | cut -d' ' -f1)
if [ ! -f "$build/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	note "configuring $arch in $build"
	kmake tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "$@" >/dev/null
	kmake olddefconfig >/dev/null
	"$(dirname "$0")/check-config.sh" -k "$src" "$build/.config" "$@"
	printf '%s\n' "$want" >"$stamp"
fi

image=$(kernel_image_for "$arch")
note "building $arch $(basename "$obj") with $jobs jobs"
# With modules (the patched kernels, for the kselftests' test module) also
# "modules": it writes Module.symvers, which an external module build needs.
modules=
grep -q '^CONFIG_MODULES=y' "$build/.config" && modules=modules
kmake -j"$jobs" "$(basename "$image")" $modules
[ -f "$obj/$image" ] || die "build produced no $image"
note "built $obj/$image"
