#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# install-deps.sh [--check]
# Install, by package name from the machine's configured Debian suites, what
# building and testing needs. With --check, only report what is missing
# (exit 1 if anything is).
set -eu
. "$(dirname "$0")/lib.sh"

packages="
	build-essential bc bison flex libelf-dev libssl-dev cpio rsync kmod
	xz-utils zstd ccache quilt
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	qemu-system-arm qemu-system-x86 qemu-utils
	u-boot-tools dracut-core e2fsprogs busybox-static
	postgresql postgresql-client
	libcmocka-dev clang clang-tidy cppcheck libclang-rt-14-dev
	shellcheck gnuplot-nox python3 file
	debhelper dpkg-dev lintian crossbuild-essential-arm64 libc6-dev:arm64
	debootstrap
"
# The arm64 build of the Debian package (make deb) links against
# libc6-dev:arm64: arm64 must be a foreign architecture of dpkg's. The
# machine's apt sources are not touched: Debian's mirrors carry arm64.
foreign_arch=arm64
[ "$(dpkg --print-architecture)" = "$foreign_arch" ] ||
	dpkg --print-foreign-architectures | grep -qx "$foreign_arch" ||
	foreign_missing=1

missing=
for p in $packages; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing="$missing $p"
done
if [ -z "$missing" ] && [ -z "${foreign_missing:-}" ]; then
	exit 0
fi
if [ "${1:-}" = --check ]; then
	[ -z "${foreign_missing:-}" ] || note "dpkg has no foreign architecture $foreign_arch"
	[ -z "$missing" ] || note "missing packages:$missing"
	exit 1
fi
[ "$(id -u)" -eq 0 ] || die "missing packages:$missing${foreign_missing:+ and foreign architecture $foreign_arch} (run 'make deps' as root)"
if [ -n "${foreign_missing:-}" ]; then
	note "adding the foreign architecture $foreign_arch"
	dpkg --add-architecture "$foreign_arch"
fi
note "installing:$missing"
apt-get -o DPkg::Lock::Timeout=900 update -q >/dev/null
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends \
	$missing >/dev/null
