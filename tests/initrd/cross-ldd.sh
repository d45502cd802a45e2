#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cross-ldd.sh FILE
# ldd for binaries of another architecture, for dracut (DRACUT_LDD). glibc's
# ldd runs the program's dynamic loader, which cannot execute an aarch64
# binary on an x86_64 host without binfmt_misc/qemu-user; dracut-install
# only needs ldd's output, so this computes it from the ELF headers:
# readelf -d NEEDED (and RPATH/RUNPATH) resolved recursively below the
# sysroot, plus the program interpreter, printed as glibc's ldd prints them
# ("libx.so.1 => /lib/aarch64-linux-gnu/libx.so.1 (0x0)"), with paths as
# seen from inside the sysroot (dracut-install prefixes the sysroot).
#
# Environment:
#   CROSS_LDD_SYSROOT  the sysroot (required); FILE lies below it
#   CROSS_LDD_MISSING  file to append "FILE: LIB" to for every library that
#                      is not found: dracut-install ignores ldd's
#                      "not found" lines, so mkdracut.sh checks this file
#
# Exit status as glibc's ldd: 0 for a dynamic ELF file, 1 for anything else
# ("not a dynamic executable"), which is also how dracut tells libraries
# from other files.
set -u
sysroot=${CROSS_LDD_SYSROOT:-}
if [ -z "$sysroot" ] || [ ! -d "$sysroot" ]; then
	echo "cross-ldd.sh: CROSS_LDD_SYSROOT is not set to a directory" >&2
	exit 2
fi
[ $# -eq 1 ] || { echo "usage: cross-ldd.sh FILE" >&2; exit 2; }
sysroot=${sysroot%/}

# inroot PATH: PATH with its symbolic links resolved inside the sysroot
# (Debian has absolute links such as /lib/systemd/systemd-udevd ->
# /bin/udevadm, which must not lead to the host's files).
inroot() {
	ir_p=$1
	ir_n=0
	while [ -L "$ir_p" ] && [ "$ir_n" -lt 40 ]; do
		ir_t=$(readlink "$ir_p")
		case "$ir_t" in
		/*) ir_p=$sysroot$ir_t ;;
		*) ir_p=${ir_p%/*}/$ir_t ;;
		esac
		ir_n=$((ir_n + 1))
	done
	printf '%s\n' "$ir_p"
}
file=$(inroot "$1")

if [ ! -f "$file" ] || ! readelf -h "$file" >/dev/null 2>&1; then
	printf '\tnot a dynamic executable\n'
	exit 1
fi
interp=$(readelf -l "$file" 2>/dev/null |
	sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p')
if ! readelf -d "$file" 2>/dev/null | grep -q '(NEEDED)'; then
	printf '\tnot a dynamic executable\n'
	exit 1
fi

# The machine's library directories, as Debian's loader searches them.
triplet=$(for d in "$sysroot"/lib/*-linux-gnu*; do
	[ -d "$d" ] && echo "${d##*/}"
done | head -n 1)
default_dirs="/lib/$triplet /usr/lib/$triplet /lib /usr/lib"

# search LIB DIRS: the first DIR/LIB below the sysroot, as a sysroot path
search() {
	for s_d in $2; do
		if [ -e "$sysroot$s_d/$1" ]; then
			printf '%s/%s\n' "$s_d" "$1"
			return 0
		fi
	done
	return 1
}

# runpath HOSTPATH: its RPATH/RUNPATH dirs, $ORIGIN expanded, sysroot paths
runpath() {
	rp_origin=${1%/*}
	rp_origin=${rp_origin#"$sysroot"}
	readelf -d "$1" 2>/dev/null |
		sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p' | tr ':' '\n' |
		sed -e "s|\\\$ORIGIN|$rp_origin|g" -e "s|\\\${ORIGIN}|$rp_origin|g"
}

# The queue holds host paths one per line, so a sysroot path may contain
# spaces; sonames and library directories never do.
nl='
'
seen=' '
queue=$file
while [ -n "$queue" ]; do
	next=
	old_ifs=$IFS
	IFS=$nl
	set -f
	# shellcheck disable=SC2086 # split on newlines, no globbing
	set -- $queue
	set +f
	IFS=$old_ifs
	for f in "$@"; do
		dirs="$(runpath "$f" | tr '\n' ' ')$default_dirs"
		for so in $(readelf -d "$f" 2>/dev/null |
			sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case "$seen" in *" $so "*) continue ;; esac
			seen="$seen$so "
			# The loader itself is printed once, below.
			case "$interp" in */"$so") continue ;; esac
			if p=$(search "$so" "$dirs"); then
				printf '\t%s => %s (0x0000000000000000)\n' "$so" "$p"
				next="$next$nl$(inroot "$sysroot$p")"
			else
				printf '\t%s => not found\n' "$so"
				[ -z "${CROSS_LDD_MISSING:-}" ] ||
					echo "${file#"$sysroot"}: $so" >>"$CROSS_LDD_MISSING"
			fi
		done
	done
	queue=${next#"$nl"}
done
[ -z "$interp" ] || printf '\t%s (0x0000000000000000)\n' "$interp"
exit 0
