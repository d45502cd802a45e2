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
# (systemd-udevd, udevadm, the rules): ROOTS is that list, the sysroot is
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
case "$arch" in
arm64) debarch=arm64 ;;
x86_64) debarch=amd64 ;;
*) die "unsupported ARCH '$arch' (arm64, x86_64)" ;;
esac
hostdracut=/usr/lib/dracut
[ -x "$hostdracut/dracut-install" ] ||
	die "the host's dracut is not installed ($hostdracut/dracut-install missing)"

ROOTS="libc6 bash coreutils util-linux mount sed grep kmod udev"
# Package names (shell patterns) left out, with everything only they need.
SKIP="adduser passwd debconf debconf-2.0 cdebconf dpkg install-info
	base-files debianutils libpam* libdebian-installer* libnewt*
	libslang* libtextwrap* gawk mawk original-awk perl* tar"

cache=${PREEMPT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/preempt-modes}
debs=$cache/debs/$arch
out=$cache/sysroot/$arch
mkdir -p "$debs" "$cache/sysroot"
debs=$(cd "$debs" && pwd)

# The index (refreshed daily) and dracut-core, for its dracut-util.
"$top/tests/rig/fetch-debs.sh" "$arch" "$debs" dracut-core

state=$debs/.apt
aptc() {
	apt-cache -o APT::Architecture="$debarch" -o APT::Architectures="$debarch" \
		-o Dir::Etc::SourceList="$state/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$state/lists" \
		-o Dir::Cache="$state/cache" -o Dir::State::Status=/dev/null \
		-o Debug::NoLocking=1 -q "$@"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# skipped NAME: 0 when NAME matches SKIP
skipped() {
	for pat in $SKIP; do
		# shellcheck disable=SC2254
		case "$1" in $pat) return 0 ;; esac
	done
	return 1
}

# --- the dependency closure (first installable alternative of each) ------------
aptc pkgnames | LC_ALL=C sort -u >"$work/names"
: >"$work/seen"
todo=$ROOTS
while [ -n "$todo" ]; do
	for p in $todo; do echo "$p"; done >>"$work/seen"
	# shellcheck disable=SC2086
	aptc show --no-all-versions $todo >"$work/show" ||
		die "apt-cache show failed for: $todo"
	sed -n 's/^\(Pre-\)\{0,1\}Depends: //p' "$work/show" | tr ',' '\n' |
		sed -e 's/([^)]*)//g' -e 's/:any//g' -e 's/[[:space:]]//g' \
			-e '/^$/d' | LC_ALL=C sort -u >"$work/deps"
	todo=
	while IFS= read -r alts; do
		pick=
		for alt in $(printf '%s\n' "$alts" | tr '|' ' '); do
			skipped "$alt" && continue
			if grep -qx -e "$alt" "$work/names"; then
				pick=$alt
				break
			fi
		done
		[ -n "$pick" ] || continue
		grep -qx -e "$pick" "$work/seen" && continue
		case " $todo " in *" $pick "*) continue ;; esac
		todo="$todo $pick"
	done <"$work/deps"
	todo=${todo# }
done
# shellcheck disable=SC2046
aptc show --no-all-versions $(LC_ALL=C sort -u "$work/seen") dracut-core |
	awk '/^Package: /{p=$2} /^Version: /{print p "=" $2}' |
	LC_ALL=C sort -u >"$work/pkgs"

key=$( {
	cat "$work/pkgs" "$0"
	cat "$hostdracut/dracut-version.sh" 2>/dev/null
} | sha256sum | cut -c1-16)
if [ -d "$out/root" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
	printf '%s\n' "$out/root"
	exit 0
fi
note "building the $arch dracut sysroot ($(wc -l <"$work/pkgs") packages)"

# --- download and unpack ----------------------------------------------------------
# shellcheck disable=SC2046
"$top/tests/rig/fetch-debs.sh" "$arch" "$debs" $(sed 's/=.*//' "$work/pkgs")
# debfile PKG VER: the downloaded .deb
debfile() {
	df_file=$debs/$(printf '%s_%s_' "$1" "$2" | sed 's/:/%3a/')
	df_deb=
	for f in "$df_file"*.deb; do
		[ -f "$f" ] && df_deb=$f
	done
	[ -n "$df_deb" ] || die "no .deb for $1=$2 in $debs"
	printf '%s\n' "$df_deb"
}
root=$work/root
mkdir -p "$root"
while IFS="=" read -r pkg ver; do
	[ "$pkg" = dracut-core ] && continue
	dpkg -x "$(debfile "$pkg" "$ver")" "$root"
done <"$work/pkgs"

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
dpkg -x "$(debfile dracut-core "$ver")" "$work/dracut-core"
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
cp "$work/pkgs" "$root/etc/sysroot.packages"

rm -rf "$out.new"
mkdir -p "$out.new"
mv "$root" "$out.new/root"
echo "$key" >"$out.new/key"
rm -rf "$out"
mv "$out.new" "$out"
note "$(du -sm "$out/root" | cut -f1) MB in $out/root"
printf '%s\n' "$out/root"
