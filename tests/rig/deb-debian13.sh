#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# deb-debian13.sh OUTDIR  ("make deb-debian13", as root)
# The package on Debian 13 (trixie), in a chroot of it, printing TAP:
# - the source package make deb writes (OUTDIR/preempt-policy_*.dsc)
#   unpacked and built there with dpkg-buildpackage -us -uc -b, its
#   build dependencies installed with apt-get build-dep;
# - trixie's lintian on the .deb built there: no error, no warning;
# - `apt-get install ./preempt-policy_*.deb` of the Debian 12 build (make
#   deb's, OUTDIR) and then of the trixie build, as an admin installs
#   it on a machine that has initramfs-tools (Debian's default, installed
#   in the chroot beforehand, so its Recommends are met): the maintainer
#   scripts run for real in the chroot, the units are enabled, the
#   conffile registered;
# - remove keeps an edited conffile; purge leaves no file of the package
#   and no state directory: the root's file list after purge is the one
#   before the install.
# The chroot (debootstrap --variant=buildd) is cached in
# $PREEMPT_CACHE/debian13/root and refreshed when older than a week; it
# runs in its own mount namespace (unshare -m) with its own /proc, so
# nothing of this machine's mounts, services or initramfs is touched.
# The mirror is the one of the machine's apt sources (debian_mirror,
# PREEMPT_DEBIAN_MIRROR overrides), reached through apt.conf's proxy, if
# any, by debootstrap and by apt in the chroot.
# Not part of make check: a cold chroot takes minutes to download.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: deb-debian13.sh OUTDIR (make deb's output)"
out=$(cd "$1" && pwd) || die "no directory '$1'"
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot)"
for t in debootstrap unshare chroot; do
	command -v "$t" >/dev/null || die "$t is missing (run 'make deps' as root)"
done
arch=$(dpkg --print-architecture)
dsc=
for f in "$out"/preempt-policy_*.dsc; do
	[ -f "$f" ] && dsc=$f
done
[ -n "$dsc" ] || die "no source package in $out (run make deb)"
ver=$(sed -n 's/^Version: //p' "$dsc")
deb12=$out/preempt-policy_${ver}_$arch.deb
[ -f "$deb12" ] || die "no $deb12 (run make deb)"

# in_root ROOT SCRIPT: run SCRIPT with sh in the chroot ROOT, in its own
# mount namespace with its own /proc, /sys and /run.
in_root() {
	# shellcheck disable=SC2016 # expanded by the inner sh
	unshare -m --propagation private sh -c '
		mount -t proc proc "$1/proc" && mount -t sysfs sysfs "$1/sys" &&
		mount -t tmpfs tmpfs "$1/run" &&
		chroot "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
			${http_proxy:+"http_proxy=$http_proxy"} \
			${https_proxy:+"https_proxy=$https_proxy"} sh -c "$2"' \
		sh "$1" "$2"
}

root=$(cache_dir)/debian13/root
mirror=$(debian_mirror) || exit 1
# debootstrap fetches with wget, and the chroot's apt has its own apt.conf:
# neither sees the machine's, so its proxy goes to both in the environment.
apt_proxy_env
stamp=${root%/*}/bootstrapped
if [ ! -f "$stamp" ] || [ ! -d "$root" ] || [ -n "$(find "$stamp" -mtime +7)" ]; then
	case $mirror in
	http://* | https://* | file:///*) ;;
	*) die "debootstrap cannot fetch from $mirror (http, https or file only): set PREEMPT_DEBIAN_MIRROR" ;;
	esac
	note "debootstrap trixie from $mirror into $root (a few minutes)"
	rm -rf "$root.new"
	mkdir -p "${root%/*}"
	# lintian with apt, not debootstrap --include: debootstrap does not
	# resolve virtual packages (perl-openssl-abi-3 for lintian's Perl
	# modules) and leaves them unconfigured.
	debootstrap --variant=buildd trixie "$root.new" "$mirror" \
		>"${root%/*}/debootstrap.log" 2>&1 ||
		die "debootstrap trixie failed (log ${root%/*}/debootstrap.log)"
	# Source lines for build-dep, the mirror's binary ones as debootstrap
	# wrote them.
	sl=$root.new/etc/apt/sources.list
	sed 's/^deb /deb-src /' "$sl" >"$sl.src" && cat "$sl.src" >>"$sl" && rm "$sl.src"
	in_root "$root.new" 'apt-get update -q &&
		apt-get install -y -q lintian initramfs-tools' \
		>>"${root%/*}/debootstrap.log" 2>&1 ||
		die "installing lintian and initramfs-tools in the trixie chroot failed (log ${root%/*}/debootstrap.log)"
	rm -rf "$root"
	mv "$root.new" "$root"
	date >"$stamp"
fi

# The work area inside the chroot.
w=$root/work
rm -rf "$w"
mkdir -p "$w/d12"
cp "$dsc" "$out"/preempt-policy_"$ver".tar.* "$w/"
cp "$deb12" "$w/d12/"

printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"

# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

echo "TAP version 13"
echo "# Debian $(cat "$root/etc/debian_version") chroot, $arch"
r=0
o=$(in_root "$root" 'apt-get update -q && apt-get build-dep -y -q /work/*.dsc' 2>&1) || r=1
result $r "apt-get build-dep of the source package on Debian 13" "$o"

r=0
o=$(in_root "$root" 'cd /work && dpkg-source -x *.dsc src && cd src &&
	dpkg-buildpackage -us -uc -b' 2>&1) || r=1
[ -f "$w/preempt-policy_${ver}_$arch.deb" ] || r=1
result $r "dpkg-buildpackage -us -uc -b on Debian 13: preempt-policy_${ver}_$arch.deb" "$o"

r=0
o=$(in_root "$root" "lintian --version && lintian --fail-on error,warning /work/preempt-policy_${ver}_$arch.deb /work/*.dsc" 2>&1) || r=1
printf '%s\n' "$o" | grep -q '^[EW]: ' && r=1
result $r "lintian on Debian 13 ($(printf '%s\n' "$o" | head -n 1)): no error, no warning" "$o"

# snapshot NAME: the chroot's files (not /work, /proc, /sys, /run, /tmp,
# /var/cache, /var/log, apt's and dpkg's own records), sorted.
snapshot() {
	(cd "$root" && find . -xdev \( -path ./work -o -path ./proc -o -path ./sys \
		-o -path ./run -o -path ./tmp -o -path ./var/cache -o -path ./var/log \
		-o -path ./var/lib/apt -o -path ./var/lib/dpkg \) -prune -o -print) |
		LC_ALL=C sort >"$w/$1.files"
}

for build in d12 d13; do
	case $build in
	d12) deb=/work/d12/${deb12##*/} what="the Debian 12 build (make deb)" ;;
	d13) deb=/work/preempt-policy_${ver}_$arch.deb what="the Debian 13 build" ;;
	esac
	[ -f "$root$deb" ] || { result 1 "$what: no package"; continue; }
	snapshot "before-$build"
	r=0
	o=$(in_root "$root" "apt-get install -y -q $deb && dpkg-query -W -f='\${Status} \${Version}\n' preempt-policy" 2>&1) || r=1
	printf '%s\n' "$o" | grep -q "^install ok installed $ver\$" || r=1
	# Nothing but the package: its Depends and Recommends are met.
	printf '%s\n' "$o" | grep -q '^0 upgraded, 1 newly installed, 0 to remove' || r=1
	result $r "apt-get install ./$(basename "$deb"), $what, on Debian 13: installed alone" "$o"
	r=0
	# shellcheck disable=SC2016 # expanded in the chroot
	o=$(in_root "$root" 'preempt-policy --version; preempt-policy decide 2>&1; echo "decide exit $?"
		grep -x /etc/preempt-policy.conf /var/lib/dpkg/info/preempt-policy.conffiles
		ls /etc/systemd/system/sysinit.target.wants/preempt-policy.service \
			/etc/systemd/system/timers.target.wants/preempt-policy-check.timer
		dpkg-query -W -f="\${Status}\n" initramfs-tools dracut 2>/dev/null' 2>&1) || r=1
	printf '%s\n' "$o" | grep -q '^mode=' || r=1
	printf '%s\n' "$o" | grep -q '^decide exit 0$' || r=1
	result $r "$what: the tool runs (decide), conffile registered, units enabled" "$o"
	echo "# edited" >>"$root/etc/preempt-policy.conf"
	r=0
	o=$(in_root "$root" 'apt-get remove -y -q preempt-policy' 2>&1) || r=1
	grep -qx '# edited' "$root/etc/preempt-policy.conf" 2>/dev/null || r=1
	[ ! -e "$root/usr/sbin/preempt-policy" ] || r=1
	result $r "$what: apt-get remove keeps the edited conffile, removes the tool" "$o"
	r=0
	o=$(in_root "$root" 'apt-get purge -y -q preempt-policy' 2>&1) || r=1
	snapshot "after-$build"
	left=$(LC_ALL=C comm -13 "$w/before-$build.files" "$w/after-$build.files")
	gone=$(LC_ALL=C comm -23 "$w/before-$build.files" "$w/after-$build.files")
	[ -z "$left$gone" ] || r=1
	[ ! -e "$root/var/lib/preempt-policy" ] && [ ! -e "$root/etc/preempt-policy.conf" ] || r=1
	result $r "$what: purge leaves the root as before the install" \
		"$o
left behind:
$left
gone:
$gone"
done
rm -f "$root/usr/sbin/policy-rc.d"
tap_done
