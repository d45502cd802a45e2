#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build-prefixes.sh [--only SECTION] PRISTINE WORK ARCH...
# Show that the series is bisectable: push the patches of patches/series
# onto WORK (a hard-linked copy of PRISTINE) one at a time with zero fuzz
# and, after each one, build what it changed for every ARCH:
#   - a patch outside tools/ and Documentation/: the QEMU test kernel with
#     CONFIG_PREEMPT_DYNAMIC_ALL_MODES off (the base fragments) and, once
#     the tree defines the option, on (the patched fragments);
#   - a patch under tools/testing/selftests/sched: the sched kselftests,
#     static, with the test module built against the "on" kernel;
#   - a patch under tools/testing/selftests/mm: the shmem_hugepage_warn
#     kselftest, static.
# After the last patch the kernel is also built without THP, shmem, SysV
# IPC and hugetlbfs (configs/qemu-nohuge.config), the options the mm
# series has #ifdefs for.
# --only SECTION pushes only the patches under patches/SECTION/ (the mm
# series must also build alone on the pristine tree).
# Prints TAP; a failed build's log is shown as diagnostics.
# Objects go to WORK/.obj-prefix-ARCH-{off,on,nohuge}: the configurations
# are those of the base and patched test kernels, so ccache serves every
# object a patch leaves alone.
set -eu
rig=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$rig/../.." && pwd)
. "$rig/lib.sh"

only=
if [ "${1:-}" = --only ]; then
	only=${2:?--only needs a section}
	shift 2
fi
[ $# -ge 3 ] || die "usage: build-prefixes.sh [--only SECTION] PRISTINE WORK ARCH..."
pristine=$1 work=$2
shift 2
[ -f "$pristine/Makefile" ] || die "no kernel tree at $pristine"
for arch in "$@"; do
	cross_compile_for "$arch" >/dev/null
done
patches=$top/patches
configs=$top/configs

series=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$patches/series" |
	awk -v only="$only" 'only == "" || index($1, only "/") == 1 { print $1 }')
[ -n "$series" ] || die "no patch in patches/series${only:+ under $only/}"

mkdir -p "$work"
rsync -a --delete --link-dest="$(cd "$pristine" && pwd)" --exclude='/.obj-*' \
	"$pristine/" "$work/"
rm -rf "$work/.pc"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

pushed=yes
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
tap() { # tap STATUS DESCRIPTION LOG
	tap_log=
	[ ! -f "$3" ] || tap_log=$(tail -n 40 "$3")
	result "$1" "$2" "$tap_log"
}

frags_off() { # frags_off ARCH
	printf '%s ' "$configs/qemu-common.config" "$configs/qemu-$1.config"
}

build_kernel() { # build_kernel ARCH FLAVOUR LOG FRAGMENT...
	arch=$1 flavour=$2 log=$3
	shift 3
	"$rig/build-kernel.sh" "$arch" "$work" "$work/.prefix-$arch-$flavour" \
		"$@" >"$log" 2>&1
}

# The option exists once patch 2 of the sched series is in.
has_option() {
	grep -q '^config PREEMPT_DYNAMIC_ALL_MODES' "$work/kernel/Kconfig.preempt"
}

build_sched_selftests() { # build_sched_selftests ARCH LOG
	rm -rf "$logs/ks-$1"
	sched_kselftests_install "$1" "$work" "$work/.prefix-$1-on" \
		"$logs/ks-$1/build" "$logs/ks-$1/install" >"$2" 2>&1
}

for p in $series; do
	printf '# %s\n' "$p"
	if ! (cd "$work" && QUILT_PATCHES=$patches QUILT_PC=.pc \
		quilt push --fuzz=0 -q "$p") >"$logs/push" 2>&1; then
		tap 1 "$p applies with zero fuzz" "$logs/push"
		pushed=no
		break
	fi
	files=$(sed -n 's|^+++ b/||p' "$patches/$p")
	kernel=no sched=no mm=no
	for f in $files; do
		case "$f" in
		tools/testing/selftests/sched/*) sched=yes ;;
		tools/testing/selftests/mm/*) mm=yes ;;
		tools/* | Documentation/* | MAINTAINERS) ;;
		*) kernel=yes ;;
		esac
	done
	for arch in "$@"; do
		if [ $kernel = yes ]; then
			# shellcheck disable=SC2046
			build_kernel "$arch" off "$logs/k" $(frags_off "$arch")
			tap $? "$arch kernel builds after $p (option off)" "$logs/k"
			if has_option; then
				# shellcheck disable=SC2046
				build_kernel "$arch" on "$logs/k" $(frags_off "$arch") \
					"$configs/qemu-patched.config"
				tap $? "$arch kernel builds after $p (option on)" "$logs/k"
			fi
		fi
		if [ $sched = yes ]; then
			if [ ! -f "$work/.prefix-$arch-on/.config" ]; then
				# shellcheck disable=SC2046
				build_kernel "$arch" on "$logs/k" $(frags_off "$arch") \
					"$configs/qemu-patched.config"
			fi
			build_sched_selftests "$arch" "$logs/ks"
			tap $? "$arch sched kselftests build after $p" "$logs/ks"
		fi
		if [ $mm = yes ]; then
			"$top/tests/hugewarn/build.sh" "$arch" "$logs/mm-$arch" "$work" \
				>"$logs/mm" 2>&1
			tap $? "$arch mm kselftest builds after $p" "$logs/mm"
		fi
	done
done

[ $pushed = yes ] && for arch in "$@"; do
	# shellcheck disable=SC2046
	build_kernel "$arch" nohuge "$logs/k" $(frags_off "$arch") \
		"$configs/qemu-nohuge.config"
	tap $? "$arch kernel builds with the whole series, without THP, shmem, SysV IPC, hugetlbfs" "$logs/k"
done

tap_done
