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

# Kernel ARCH -> Debian architecture (dpkg, apt).
debarch_of() {
	case "$1" in
	arm64) echo arm64 ;;
	x86_64) echo amd64 ;;
	*) die "unsupported ARCH '$1' (arm64, x86_64)" ;;
	esac
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

# Kernel ARCH -> boot image path inside the build directory.
kernel_image_for() {
	case "$1" in
	arm64) printf 'arch/arm64/boot/Image' ;;
	x86_64) printf 'arch/x86/boot/bzImage' ;;
	*) die "unsupported ARCH '$1' (arm64, x86_64)" ;;
	esac
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
