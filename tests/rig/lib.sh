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

# cache_dir: the cache of trees, kernels, Debian packages and guest roots:
# $PREEMPT_CACHE, else $XDG_CACHE_HOME/preempt-modes, else
# ~/.cache/preempt-modes.
cache_dir() {
	printf '%s\n' "${PREEMPT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/preempt-modes}"
}

# debs_dir ARCH: the cache's directory of ARCH's Debian packages
# (fetch-debs.sh's DEBDIR for every builder), made if missing, as an
# absolute path.
debs_dir() {
	mkdir -p "$(cache_dir)/debs/$1" && (cd "$(cache_dir)/debs/$1" && pwd)
}

# cache_key: the cache key of standard input, 16 hex digits of its
# sha256 (a cached artefact is rebuilt when its inputs' key changes).
cache_key() {
	sha256sum | cut -c1-16
}

# The arch table, the one place that knows each kernel ARCH (arm64,
# x86_64): arch_info ARCH FIELD prints
#   uname     the machine name uname -m prints
#   debarch   the Debian architecture (dpkg, apt)
#   triplet   the GNU triplet: Debian's multiarch directory, the cross
#             toolchain's prefix
#   image     the boot image below a kernel build directory
#   qemu      the QEMU system emulator
#   qemupkg   the Debian package that ships it
#   machine   QEMU's machine and CPU options (launch-vm.sh)
#   console   the kernel's serial console device
#   virtio    the transport suffix of QEMU's virtio devices (virtio-serial-
#             SUFFIX, virtio-blk-SUFFIX): device (MMIO) or pci
arch_info() {
	case "$1" in
	arm64) set -- "$2" aarch64 arm64 aarch64-linux-gnu \
		arch/arm64/boot/Image qemu-system-aarch64 qemu-system-arm \
		"-M virt -cpu cortex-a72" ttyAMA0 device ;;
	x86_64) set -- "$2" x86_64 amd64 x86_64-linux-gnu \
		arch/x86/boot/bzImage qemu-system-x86_64 qemu-system-x86 \
		"-M pc -cpu qemu64" ttyS0 pci ;;
	*) die "unsupported ARCH '$1' (arm64, x86_64)" ;;
	esac
	case "$1" in
	uname) echo "$2" ;;
	debarch) echo "$3" ;;
	triplet) echo "$4" ;;
	image) echo "$5" ;;
	qemu) echo "$6" ;;
	qemupkg) echo "$7" ;;
	machine) echo "$8" ;;
	console) echo "$9" ;;
	virtio) echo "${10}" ;;
	*) die "arch_info: unknown field '$1'" ;;
	esac
}

# check_arch ARCH: exit with an error unless the table knows ARCH.
check_arch() {
	arch_info "$1" uname >/dev/null
}

# host_arch: the kernel ARCH of this machine (uname -m when the table does
# not know it).
host_arch() {
	_ha=$(uname -m)
	for _ha_a in arm64 x86_64; do
		if [ "$(arch_info "$_ha_a" uname)" = "$_ha" ]; then
			echo "$_ha_a"
			return 0
		fi
	done
	echo "$_ha"
}

# cross_compile_for ARCH: the prefix of ARCH's toolchain: empty on an ARCH
# host (native), else the cross toolchain's (TRIPLET-).
cross_compile_for() {
	_cc_t=$(arch_info "$1" triplet) || exit 1
	[ "$(uname -m)" = "$(arch_info "$1" uname)" ] || printf '%s-' "$_cc_t"
}

# guest_cc ARCH: the C compiler for ARCH's (static) guest programs: gcc on
# an ARCH host, TRIPLET-gcc on any other.
guest_cc() {
	_gc=$(cross_compile_for "$1") || exit 1
	echo "${_gc}gcc"
}

# debarch_of ARCH: ARCH's Debian architecture.
debarch_of() {
	arch_info "$1" debarch
}

# kernel_image_for ARCH: ARCH's boot image path inside a build directory.
kernel_image_for() {
	arch_info "$1" image
}

# deb_file DEBDIR PKG VERSION: the .deb of PKG at VERSION in DEBDIR (apt's
# file name, an epoch's ':' as %3a), or nothing when there is none.
# Globbing is on for the lookup whatever the caller's set -f.
deb_file() {
	_df_file=$1/$(printf '%s_%s_' "$2" "$3" | sed 's/:/%3a/')
	_df=
	case $- in
	*f*) _df_noglob=1 ;;
	*) _df_noglob= ;;
	esac
	set +f
	for _df_f in "$_df_file"*.deb; do
		[ -f "$_df_f" ] && _df=$_df_f
	done
	[ -z "$_df_noglob" ] || set -f
	printf '%s' "$_df"
}

# private_apt_opts STATE DEBARCH: the apt-get/apt-cache options of a private
# apt state in STATE (STATE/sources.list, written by the caller, its own
# lists and cache) for Debian architecture DEBARCH. The machine's own apt
# sources, status and locks are never read or touched. Creates STATE's
# directories; prints the options on one line, for unquoted expansion
# (paths without blanks).
private_apt_opts() {
	mkdir -p "$1/lists/partial" "$1/cache/archives/partial"
	printf '%s ' \
		"-o Dir::Etc::SourceList=$1/sources.list" \
		"-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$1/lists" \
		"-o Dir::Cache=$1/cache -o Dir::State::Status=/dev/null" \
		"-o APT::Architecture=$2 -o APT::Architectures=$2" \
		"-o Debug::NoLocking=1 -o APT::Sandbox::User=root -q"
	echo
}

# kernel_apt_opts STATE DEBARCH: private_apt_opts (above) for the suites
# that carry Debian's 7.x kernels, sid and trixie-backports, with STATE's
# sources.list written and its index refreshed when older than 6 hours.
# Prints the options; fails (the reason on stderr) when the update does.
kernel_apt_opts() {
	ka_opts=$(private_apt_opts "$1" "$2")
	cat >"$1/sources.list" <<EOS
deb [arch=$2] http://deb.debian.org/debian sid main
deb [arch=$2] http://deb.debian.org/debian trixie-backports main
EOS
	if [ -z "$(find "$1/lists" -maxdepth 1 -name '*Packages*' -mmin -360 2>/dev/null)" ]; then
		# shellcheck disable=SC2086
		apt-get $ka_opts update >/dev/null 2>&1 ||
			die "apt-get update of the private sources in $1 failed"
	fi
	echo "$ka_opts"
}

# sched_kselftests_install ARCH KSRC KOBJ OUTPUT INSTALL_PATH:
#   make -C KSRC/tools/testing/selftests TARGETS=sched install
# for ARCH: static programs built into OUTPUT, the test module built against
# the kernel objects in KOBJ, installed into INSTALL_PATH. Make's output goes
# to standard output and error; the status is make's.
sched_kselftests_install() {
	_st=$2/tools/testing/selftests
	_cross=$(cross_compile_for "$1")
	# Module objects of another architecture may be left in the tree.
	make -s -C "$_st/sched/test_modules" KDIR="$3" ARCH="$1" \
		CROSS_COMPILE="$_cross" clean >/dev/null 2>&1 || true
	# O= as well as KDIR=: the kselftest Makefile hands its O (the source
	# tree when none is given) down to the module's kbuild, which would
	# then look for the configuration in the source tree.
	make -s -C "$_st" TARGETS=sched ARCH="$1" CROSS_COMPILE="$_cross" \
		USERLDFLAGS=-static KDIR="$3" O="$3" OUTPUT="$4" \
		INSTALL_PATH="$5" install
}
