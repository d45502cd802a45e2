#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# deb-install.sh ARCH ROOT DEBDIR PACKAGE.deb
# Install PACKAGE.deb into the Debian root ROOT for kernel ARCH the way dpkg
# installs it on a machine, so that a guest booting ROOT runs what the
# package ships, laid out by its file list and maintainer scripts:
# - ROOT gets its own dpkg database (ROOT/var/lib/dpkg) unless it has one:
#   every package of the package=version list its builder unpacked
#   (ROOT/etc/pg-rootfs.packages: tests/pg/mkrootfs.sh's PostgreSQL root;
#   ROOT/etc/sysroot.packages: tests/initrd/mksysroot.sh's dracut
#   sysroot), "install ok installed", with its
#   control fields and file list from its .deb in DEBDIR; ARCH's Debian
#   architecture is a foreign one there when it is not this machine's;
# - dpkg --root ROOT --force-script-chrootless runs the maintainer scripts
#   here with DPKG_ROOT=ROOT (no chroot: the root may be another
#   architecture); deb-systemd-helper enables the units inside ROOT;
#   systemctl, deb-systemd-invoke, update-initramfs and dracut are
#   stand-ins that only log (they must not act on this machine), into
#   ROOT/var/log/deb-install.calls;
# - dpkg's output goes to standard error; its log stays in
#   ROOT/var/log/dpkg.log.
# Only the package's own dependencies must be satisfied: dpkg refuses it
# otherwise, as it would on a machine.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 4 ] || die "usage: deb-install.sh ARCH ROOT DEBDIR PACKAGE.deb"
arch=$1 root=$2 debs=$3 deb=$4
debarch=$(debarch_of "$arch")
[ -d "$root" ] || die "no root directory '$root'"
[ -f "$deb" ] || die "no package '$deb'"
got=$(dpkg-deb -f "$deb" Architecture) || die "'$deb' is not a Debian package"
[ "$got" = "$debarch" ] || die "'$deb' is for $got, the root is $debarch ($arch)"

db=$root/var/lib/dpkg
if [ ! -f "$db/status" ]; then
	list=
	for l in pg-rootfs.packages sysroot.packages; do
		[ ! -f "$root/etc/$l" ] || list=$root/etc/$l
	done
	[ -n "$list" ] || die "no dpkg database and no package list (etc/pg-rootfs.packages, etc/sysroot.packages) in $root"
	mkdir -p "$db/info" "$db/updates" "$db/triggers"
	[ "$debarch" = "$(dpkg --print-architecture)" ] || echo "$debarch" >"$db/arch"
	: >"$db/status.new"
	while IFS="=" read -r pkg ver; do
		f=$(deb_file "$debs" "$pkg" "$ver")
		[ -n "$f" ] || die "no .deb for $pkg=$ver in $debs"
		# The control file as dpkg keeps it: Status after Package.
		dpkg-deb -f "$f" | awk '{ print } NR == 1 { print "Status: install ok installed" }' \
			>>"$db/status.new"
		echo >>"$db/status.new"
		name=$pkg
		[ "$(dpkg-deb -f "$f" Multi-Arch)" != same ] || name=$pkg:$debarch
		dpkg-deb --fsys-tarfile "$f" | tar -t |
			sed 's|^\./|/|; s|/$||; s|^$|/.|' >"$db/info/$name.list"
	done <"$list"
	mv "$db/status.new" "$db/status"
fi

stub=$(mktemp -d)
trap 'rm -rf "$stub"' EXIT
mkdir -p "$root/var/log"
calls=$root/var/log/deb-install.calls
for c in systemctl deb-systemd-invoke update-initramfs dracut; do
	printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$c" "$calls" >"$stub/$c"
	chmod 0755 "$stub/$c"
done
PATH=$stub:$PATH dpkg --root="$root" --force-script-chrootless --force-not-root \
	--log="$root/var/log/dpkg.log" -i "$deb" >&2 ||
	die "dpkg -i $deb into $root failed"
st=$(dpkg-query --admindir="$db" -W -f='${Status}' "$(dpkg-deb -f "$deb" Package)")
[ "$st" = "install ok installed" ] || die "dpkg left $(dpkg-deb -f "$deb" Package) '$st'"
