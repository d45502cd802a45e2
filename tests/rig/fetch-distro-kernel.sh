#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fetch-distro-kernel.sh ARCH OBJDIR
# Debian's own kernel of the pinned version (configs/linux-source.lock), the
# cloud flavour, as the negative control the checks boot: the kernel a
# Debian user runs, without this series. Its image goes where a built
# kernel's would (OBJDIR/arch/x86/boot/bzImage) and its configuration, from
# the linux-config package (fetch-distro-config.sh), to OBJDIR/.config, so
# the suites find it as one more kernel variant. Only x86_64: Debian builds
# its arm64 kernels without PREEMPT_DYNAMIC, so they have no preempt= to
# refuse (the unpatched build, make kernel-arm64-base, is arm64's control).
# The package comes through fetch-distro-config.sh's private apt state,
# $BUILD/apt-config-DEBARCH.
set -eu
rig=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$rig/../.." && pwd)
. "$rig/lib.sh"
[ $# -eq 2 ] || die "usage: fetch-distro-kernel.sh ARCH OBJDIR"
arch=$1 obj=$2
[ "$arch" = x86_64 ] ||
	die "no Debian kernel control for '$arch': Debian's arm64 kernels are not PREEMPT_DYNAMIC (x86_64 only)"
debarch=$(debarch_of "$arch")
image=$obj/$(kernel_image_for "$arch")
build=${BUILD:-$top/build}
version=$(sed -n 's/^VERSION=//p' "$top/configs/linux-source.lock")
[ -n "$version" ] || die "no VERSION in configs/linux-source.lock"
if [ -f "$obj/.version" ] && [ "$(cat "$obj/.version")" = "$version" ] &&
	[ -f "$image" ] && [ -f "$obj/.config" ]; then
	exit 0
fi

# The flavour's configuration first: it says what the image must be.
confdir=$("$rig/fetch-distro-config.sh" "$debarch")
config=$confdir/config.${debarch}_none_cloud-$debarch
[ -f "$config" ] || die "linux-config $version has no $config"
for opt in CONFIG_PREEMPT_DYNAMIC=y CONFIG_PREEMPT_LAZY=y; do
	grep -qx "$opt" "$config" ||
		die "Debian's cloud-$debarch kernel $version lacks $opt: not the control these checks need"
done

# fetch-distro-config.sh's apt state: the same sources, so one index.
state=$build/apt-config-$debarch
aptopts=$(kernel_apt_opts "$state" "$debarch") || exit 1
# linux-binary-ABI-cloud-DEBARCH holds the image; several ABIs are offered,
# the one of the pinned version is the one to take.
pkg=
# shellcheck disable=SC2086
for p in $(apt-cache $aptopts search --names-only "^linux-binary-.*-cloud-$debarch\$" 2>/dev/null |
	cut -d' ' -f1); do
	# shellcheck disable=SC2086
	if apt-cache $aptopts madison "$p" 2>/dev/null | cut -d'|' -f2 | tr -d ' ' |
		grep -qxF "$version"; then
		pkg=$p
	fi
done
[ -n "$pkg" ] || die "Debian offers no linux-binary-*-cloud-$debarch of version $version"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086
(cd "$work" && apt-get $aptopts download "$pkg:$debarch=$version" >/dev/null 2>&1) ||
	die "download of $pkg:$debarch=$version failed"
dpkg -x "$work"/*.deb "$work/x"
abi=${pkg#linux-binary-}
vmlinuz=$work/x/usr/lib/modules/$abi/vmlinuz
[ -f "$vmlinuz" ] || die "$pkg $version holds no usr/lib/modules/$abi/vmlinuz"
# The bzImage header names the build: it must be this version's, dynamic.
banner=$(grep -a -o "$abi ([^)]*)[^ ]* #[0-9]* SMP PREEMPT_DYNAMIC Debian $version" "$vmlinuz" | head -n 1)
[ -n "$banner" ] || die "$vmlinuz is not a PREEMPT_DYNAMIC build of Debian $version"
mkdir -p "$(dirname "$image")"
cp "$vmlinuz" "$image"
cp "$config" "$obj/.config"
echo "$version" >"$obj/.version"
note "Debian's $abi kernel ($version) in $obj"
