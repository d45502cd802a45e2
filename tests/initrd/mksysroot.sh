#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mksysroot.sh ARCH
# Build (or reuse) a Debian 12 (bookworm) sysroot for ARCH from which the
# host's dracut can pack an initramfs with `dracut --sysroot` (see
# mkdracut.sh), and print its path.
#
# dracut's generic modules want a shell, coreutils, util-linux (mount,
# switch_root, setsid, blkid, flock, dmesg), sed, kmod and udev
# (systemd-udevd, udevadm, the rules), and the systemd-based image
# (mkdracut.sh --systemd) systemd itself: ROOTS is that list, the sysroot is
# its Depends/Pre-Depends closure, resolved with apt-cache from the private
# apt state of tests/rig/fetch-debs.sh and unpacked with dpkg -x (no
# maintainer scripts run; nothing of ARCH is executed on the host). SKIP
# prunes what only a package manager or a login needs; binaries that would
# need a pruned library are not packed (tests/initrd/cross-ldd.sh reports
# any library it cannot find, and mkdracut.sh fails on them).
#
# dracut itself comes from the host (its scripts, so that they match the
# host's /usr/bin/dracut, and its dracut-install, which must run here),
# copied into the sysroot's /usr/lib/dracut because dracut resolves every
# file it packs below the sysroot. Only dracut-util, which runs inside the
# initramfs (dracut-getarg), is taken from ARCH's dracut-core package.
#
# Cached in $PREEMPT_CACHE/sysroot/ARCH, keyed by the package=version list,
# the host's dracut version and this script.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/rig/lib.sh"

[ $# -eq 1 ] || die "usage: mksysroot.sh ARCH"
arch=$1
debarch=$(debarch_of "$arch") || exit 1
hostdracut=/usr/lib/dracut
[ -x "$hostdracut/dracut-install" ] ||
	die "the host's dracut is not installed ($hostdracut/dracut-install missing)"

ROOTS="libc6 bash coreutils util-linux mount sed grep kmod udev systemd"
# Package names (shell patterns) left out, with everything only they need.
# PAM's modules are, its library is not: libsystemd-shared, which systemd
# and its tools link, needs libpam.so.0.
SKIP="adduser passwd debconf debconf-2.0 cdebconf dpkg install-info
	base-files debianutils libpam-* libdebian-installer* libnewt*
	libslang* libtextwrap* gawk mawk original-awk perl* tar"

cache=$(cache_dir)
debs=$(debs_dir "$arch")
out=$cache/sysroot/$arch
mkdir -p "$cache/sysroot"

# The index (refreshed daily) and dracut-core, for its dracut-util.
"$top/tests/rig/fetch-debs.sh" "$arch" "$debs" dracut-core

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

{
	"$top/tests/rig/deb-closure.sh" list "$arch" "$debs" "$ROOTS" "$SKIP"
	"$top/tests/rig/deb-closure.sh" list "$arch" "$debs" dracut-core "*"
} | LC_ALL=C sort -u >"$work/pkgs"

key=$( {
	cat "$work/pkgs" "$0" "$top/tests/rig/deb-closure.sh"
	cat "$hostdracut/dracut-version.sh" 2>/dev/null
} | cache_key)
if [ -d "$out/root" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
	printf '%s\n' "$out/root"
	exit 0
fi
note "building the $arch dracut sysroot ($(wc -l <"$work/pkgs") packages)"

# --- download and unpack ----------------------------------------------------------
root=$work/root
grep -v '^dracut-core=' "$work/pkgs" >"$work/sysroot.pkgs"
"$top/tests/rig/deb-closure.sh" unpack "$arch" "$debs" "$work/sysroot.pkgs" "$root"
grep '^dracut-core=' "$work/pkgs" >"$work/dracut.pkgs"
"$top/tests/rig/deb-closure.sh" unpack "$arch" "$debs" "$work/dracut.pkgs" "$work/dracut-core"

# Absolute symbolic links (/lib/systemd/systemd-udevd -> /bin/udevadm)
# would be followed on the host by dracut's own tests ([[ -x ]]) and lead
# to the host's files, or nowhere: make them relative, as symlinks -c does.
find "$root" -type l | while IFS= read -r l; do
	t=$(readlink "$l")
	case "$t" in /*) ;; *) continue ;; esac
	up=$(dirname "${l#"$root"/}" | sed -e 's|[^/][^/]*|..|g' -e 's|^\.$||')
	ln -sfn "${up:+$up/}${t#/}" "$l"
done

# dracut-install packs a script's interpreter from the sysroot, and every
# dracut script starts with #!/bin/sh, which on Debian dash's maintainer
# scripts create. Point it at bash, as dracut's base module does in the
# initramfs when no /bin/sh was packed.
[ -e "$root/bin/sh" ] || ln -s bash "$root/bin/sh"

# dracut: the host's scripts and dracut-install, ARCH's dracut-util.
ver=$(sed -n 's/^dracut-core=//p' "$work/pkgs")
[ -f "$work/dracut-core/usr/lib/dracut/dracut-util" ] ||
	die "dracut-core $ver for $debarch has no /usr/lib/dracut/dracut-util"
rm -rf "$root/usr/lib/dracut"
mkdir -p "$root/usr/lib/dracut"
cp -a "$hostdracut/." "$root/usr/lib/dracut/"
cp "$work/dracut-core/usr/lib/dracut/dracut-util" "$root/usr/lib/dracut/dracut-util"

# What dracut reads from a real system's /etc.
mkdir -p "$root/etc"
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
# What was unpacked, for a dpkg database (tests/rig/deb-install.sh): not
# dracut-core, of which only dracut-util is here.
cp "$work/sysroot.pkgs" "$root/etc/sysroot.packages"

rm -rf "$out.new"
mkdir -p "$out.new"
mv "$root" "$out.new/root"
echo "$key" >"$out.new/key"
rm -rf "$out"
mv "$out.new" "$out"
note "$(du -sm "$out/root" | cut -f1) MB in $out/root"
printf '%s\n' "$out/root"
