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
"

missing=
for p in $packages; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing="$missing $p"
done
if [ -z "$missing" ]; then
	exit 0
fi
if [ "${1:-}" = --check ]; then
	note "missing packages:$missing"
	exit 1
fi
[ "$(id -u)" -eq 0 ] || die "missing packages:$missing (run 'make deps' as root)"
note "installing:$missing"
apt-get update -q >/dev/null
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	$missing >/dev/null
