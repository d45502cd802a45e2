#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# launch-vm.sh --arch ARCH --kernel IMAGE [options] TESTDIR
# Boot IMAGE under QEMU TCG with a busybox initramfs that holds TESTDIR at
# /t, run /t/guest.sh in the guest, print what it wrote to standard output, and
# exit with its exit status. The guest's output and status come back over a
# virtio-serial port; the console (kernel log) goes to a file.
#
# Options:
#   --append ARGS    more kernel command line
#   --timeout SEC    hard limit for the whole boot (default 300): exit 124
#   --smp N          vCPUs (default 2)
#   --mem MB         guest RAM (default 1024)
#   --icount         single-threaded TCG with -icount shift=0,sleep=off:
#                    guest time counts instructions, for overhead ratios
#   --initrd FILE    boot this initramfs instead of building one (TESTDIR
#                    is then not packed; the initramfs must use the port)
#   --extra-initrd F append cpio archive F to the built initramfs
#   --disk IMG       attach IMG as a virtio block device (raw)
#   --disk-cache M   QEMU's cache= mode for it (default QEMU's, writeback);
#                    unsafe ignores the guest's flushes, so that under
#                    --icount no guest time hangs on the host's fsync
#   --log FILE       keep the console log here (default: a temp file,
#                    printed on failure)
# The emulator is the QEMU pinned in configs/qemu.lock (fetch-qemu.sh
# unpacks it into the cache on first use): Debian 12's QEMU 7.2 runs stale
# guest code after the kernel patches its text under multi-threaded TCG.
# Environment: RIG_QEMU_AARCH64, RIG_QEMU_X86_64 another emulator to run
# (for example the host's qemu-system-aarch64).
# Exit status (the verdicts of tests/lib/vm.sh): 0 pass; 1-119 the guest
# script's own failure (a status above 119 is reported as 119); 120 the rig
# could not start the guest; 124 timeout; 125 no status came back (crash,
# panic, lost port); 126 the guest passed but the kernel log has a splat
# (WARNING, BUG, KASAN, lockdep, ...).
set -eu
rig=$(cd "$(dirname "$0")" && pwd)
. "$rig/lib.sh"

# A rig error must not look like a guest that failed its checks.
die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 120
}

arch='' kernel='' append='' timeout=300 smp=2 mem=1024 icount='' initrd=''
extra='' disk='' diskcache='' log=''

while [ $# -gt 0 ]; do
	case "$1" in
	--icount | --) ;;
	-*) [ $# -ge 2 ] || die "option $1 needs a value" ;;
	esac
	case "$1" in
	--arch) arch=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--icount) icount=1; shift ;;
	--initrd) initrd=$2; shift 2 ;;
	--extra-initrd) extra=$2; shift 2 ;;
	--disk) disk=$2; shift 2 ;;
	--disk-cache) diskcache=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
testdir=${1:-}
[ -n "$arch" ] || die "--arch is required"
[ -f "$kernel" ] || die "no kernel image '$kernel'"
[ -n "$initrd" ] || [ -d "$testdir" ] || die "no test directory '$testdir'"

[ -f "$initrd" ] || [ -z "$initrd" ] || die "no initramfs '$initrd'"
work=$(mktemp -d) || die "mktemp failed"
trap 'rm -rf "$work"' EXIT
[ -n "$log" ] || log=$work/console.log
out=$work/port.out
: >"$out"

if [ -z "$initrd" ]; then
	"$rig/mkinitramfs.sh" "$arch" "$work/initrd.cpio" "$testdir" ||
		die "could not build the initramfs (mkinitramfs.sh $arch)"
	initrd=$work/initrd.cpio
	if [ -n "$extra" ]; then
		cat "$extra" >>"$initrd" || die "could not append '$extra' to the initramfs"
	fi
fi

check_arch "$arch"
machine=$(arch_info "$arch" machine)
console=$(arch_info "$arch" console)
serialdev=virtio-serial-$(arch_info "$arch" virtio)
blkdev=virtio-blk-$(arch_info "$arch" virtio)
smparg=$smp
case "$arch" in
arm64) qemu=${RIG_QEMU_AARCH64:-} ;;
x86_64)
	qemu=${RIG_QEMU_X86_64:-}
	# Without ACPI the kernel finds CPUs in SeaBIOS's MP table, which
	# lists one per socket.
	smparg=$smp,sockets=$smp,cores=1
	;;
esac
if [ -z "$qemu" ]; then
	qemu=$("$rig/fetch-qemu.sh" "$arch") ||
		die "no QEMU for $arch guests (tests/rig/fetch-qemu.sh $arch failed)"
fi
if [ -n "$icount" ]; then
	accel="-accel tcg -icount shift=0,sleep=off"
else
	accel="-accel tcg,thread=multi"
fi
diskargs=
if [ -n "$disk" ]; then
	diskargs="-drive file=$disk,if=none,format=raw,id=d0${diskcache:+,cache=$diskcache} -device $blkdev,drive=d0"
fi

# shellcheck disable=SC2086
timeout --foreground -k 5 "$timeout" "$qemu" $machine $accel \
	-smp "$smparg" -m "$mem" -display none -monitor none -no-reboot \
	-serial "file:$log" -kernel "$kernel" -initrd "$initrd" \
	-append "console=$console panic=-1 oops=panic $append" \
	-device "$serialdev" -chardev "file,id=rig,path=$out" \
	-device virtserialport,chardev=rig,name=rig $diskargs \
	</dev/null || qemu_rc=$?
qemu_rc=${qemu_rc:-0}

status=$(sed -n 's/^rig-exit-status: \([0-9]*\)$/\1/p' "$out" | tail -n 1)
grep -v '^rig-exit-status: ' "$out" || true
# timeout(1) exits 124 after TERM, 137 when QEMU needed the KILL (-k 5).
if [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
	note "timeout after ${timeout}s; console log tail:"
	tail -n 30 "$log" >&2 2>/dev/null || true
	exit 124
fi
if [ -z "$status" ]; then
	note "no exit status came back (qemu exit $qemu_rc); console log tail:"
	tail -n 30 "$log" >&2 2>/dev/null || true
	exit 125
fi
# A guest that passed its own checks still fails on a kernel splat: the
# debug kernels (lockdep, atomic-sleep checks, KASAN) report problems in
# the log and carry on. Stalls and hung tasks are left out: under TCG on a
# busy host they are emulation speed, not bugs.
splat='WARNING: CPU:|BUG:|KASAN:|UBSAN:|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|sleeping function called from invalid context|scheduling while atomic|list_(add|del) corruption|refcount_t:'
if [ "$status" -eq 0 ] && grep -Eq "$splat" "$log"; then
	note "the guest passed but the kernel log has a splat:"
	grep -E -m 5 -A 8 "$splat" "$log" >&2
	exit 126
fi
if [ "$status" -gt 119 ]; then
	note "the guest script exited $status; reported as 119 (120-126 are the rig's)"
	exit 119
fi
exit "$status"
