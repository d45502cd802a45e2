# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Host-side helpers for the PostgreSQL and benchmark guests (sourced from
# the repository's top directory after tests/lib/common.sh).

# guest_live OUT LOG LAUNCH-VM-ARGS...: run tests/rig/launch-vm.sh with
# --log LOG, its output into OUT, and meanwhile print the guest's progress
# lines (console lines with the @@run@@ marker) as they arrive. Returns
# launch-vm.sh's exit status.
guest_live() {
	gl_out=$1 gl_log=$2
	shift 2
	: >"$gl_log"
	"$RIG/launch-vm.sh" --log "$gl_log" "$@" >"$gl_out" 2>"$gl_out.err" &
	gl_pid=$!
	gl_seen=0
	while kill -0 "$gl_pid" 2>/dev/null; do
		sleep 2
		gl_n=$(wc -l <"$gl_log")
		if [ "$gl_n" -gt "$gl_seen" ]; then
			sed -n "$((gl_seen + 1)),${gl_n}p" "$gl_log" |
				sed -n 's/^.*@@run@@ /    /p'
			gl_seen=$gl_n
		fi
	done
	gl_rc=0
	wait "$gl_pid" || gl_rc=$?
	sed -n "$((gl_seen + 1)),\$p" "$gl_log" | sed -n 's/^.*@@run@@ /    /p'
	return "$gl_rc"
}

# pkg_deb ARCH: the preempt-policy Debian package for ARCH (what make deb
# builds, through tests/rig/build-deb.sh: native for amd64, cross for
# arm64) in $BUILD/deb-guest, for the guests' roots to install
# (tests/rig/deb-install.sh). Rebuilt when a file it is built from changed
# (key in $BUILD/deb-guest/DEBARCH.key). Prints the .deb's path; the
# build's output goes to $BUILD/deb-guest/DEBARCH.log.
pkg_deb() {
	pd_dir=$BUILD/deb-guest
	pd_arch=$(debarch_of "$1") || return 1
	mkdir -p "$pd_dir"
	pd_key=$( {
		find debian policy initrd Makefile tests/rig/build-deb.sh -type f \
			! -path 'policy/build/*' ! -path policy/preempt-policy ! -name '*.o' |
			LC_ALL=C sort | xargs sha256sum
	} | cache_key)
	pd_ver=$(dpkg-parsechangelog -l debian/changelog -S Version)
	pd_deb=$pd_dir/preempt-policy_${pd_ver}_$pd_arch.deb
	if [ ! -f "$pd_deb" ] || [ "$(cat "$pd_dir/$pd_arch.key" 2>/dev/null)" != "$pd_key" ]; then
		rm -f "$pd_deb"
		if ! "$RIG/build-deb.sh" "$pd_dir" "$pd_arch" >"$pd_dir/$pd_arch.log" 2>&1 ||
			[ ! -f "$pd_deb" ]; then
			tail -n 20 "$pd_dir/$pd_arch.log" >&2
			echo "pkg_deb: no $pd_deb (log $pd_dir/$pd_arch.log)" >&2
			return 1
		fi
		echo "$pd_key" >"$pd_dir/$pd_arch.key"
	fi
	printf '%s\n' "$pd_deb"
}

# run_dracut_image ARCH DEB OUT LOG: the dracut initramfs that boots the
# PostgreSQL root image of tests/pg/mkimage.sh (modules base,
# rootfs-block and 55preempt-policy, module and tool from the package DEB,
# pkg_deb's; for a foreign ARCH dracut --sysroot on an ARCH Debian sysroot
# into which DEB is installed). dracut takes a while (about 20 s, 45 s for
# arm64): OUT is reused while the package, the build scripts, dracut and
# the sysroot are the same (key in OUT.key). No policy is packed: the root
# has its own. dracut's output goes to LOG, whose tail reaches stderr when
# the build fails.
run_dracut_image() {
	rd_arch=$1 rd_deb=$2 rd_out=$3 rd_log=$4
	rd_sysroot='' rd_sysroot_key=''
	if [ "$rd_arch" != "$(host_arch)" ]; then
		rd_sysroot=$(tests/initrd/mksysroot.sh "$rd_arch") || return 1
		rd_sysroot_key=$(cat "${rd_sysroot%/*}/key")
	fi
	rd_key=$( {
		find tests/initrd/mkdracut.sh tests/initrd/mksysroot.sh \
			tests/initrd/cross-ldd.sh tests/rig/deb-install.sh -type f |
			LC_ALL=C sort | xargs cat
		cat "$rd_deb"
		dracut --version 2>/dev/null
		echo "$rd_sysroot_key"
	} | cache_key)
	if [ -f "$rd_out" ] && [ "$(cat "$rd_out.key" 2>/dev/null)" = "$rd_key" ]; then
		return 0
	fi
	if ! tests/initrd/mkdracut.sh --arch "$rd_arch" ${rd_sysroot:+--sysroot "$rd_sysroot"} \
		"$rd_out" "$rd_deb" \
		>"$rd_log" 2>&1; then
		tail -n 30 "$rd_log" >&2
		return 1
	fi
	echo "$rd_key" >"$rd_out.key"
}
