#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dracut-bootcost.sh ARCH KERNEL BINDIR OUTDIR ROUNDS [SMP]
# "make bench" part (d), the real boot: what the boot-time policy adds to a
# boot the way a distribution boots, kernel -> dracut initramfs -> real root.
#
# Why this measures what a boot pays: the only difference between the two
# boots of a round is the 55preempt-policy dracut module.
#   A  a real dracut initramfs (tests/initrd/mkdracut.sh: base,
#      rootfs-block, preempt-policy) whose pre-pivot hook runs
#      preempt-policy against the real root and switches the mode;
#   B  the same initramfs built the same way without the module
#      (mkdracut.sh --without-policy).
# Both boot the same kernel, command line and real root: an ext4 image on
# virtio-blk (tests/initrd/mkroot.sh, fixture pg-optin: a Debian-layout
# PostgreSQL cluster with shared_buffers = 8GB, huge_pages = off, and the
# opt-in PostgreSQL rules in /etc/preempt-policy.d, so the hook switches
# to none; the built-in policy would keep lazy and leave A and B alike),
# a fresh copy per boot so that no boot
# replays another's journal, with QEMU's cache=unsafe: an idle -icount
# guest's clock runs on while the host completes its I/O, so a host fsync
# behind a guest flush (ext4's remount rw) put 12 to 100 ms of the host's
# disk into single boots; without flushes reaching the host, boots of one
# kind agree within a few ms. The root's /sbin/init (tests/rig/guest-init)
# first reads CLOCK_BOOTTIME in ns (a static ovh-bench the image carries),
# then the preemption mode: A must find none, B the kernel's lazy, which
# proves that the hook ran in A and not in B. Under QEMU -icount
# (shift=0, sleep=off) guest time counts executed instructions, and an
# idle guest's clock jumps to its next timer, so the figure is the boot's
# cost up to the real root's first instruction: the kernel, dracut's udev, the
# root mount, the hook (process starts, the tool reading the root's
# PostgreSQL configuration, the mode write, its kernel log lines on the
# console), switch_root. Whatever the hook adds anywhere in that boot is
# in A - B; what the two boots share cancels. The boots of a round
# alternate their order from round to round.
#
# Output, one line per boot on stdout (progress on stderr):
#   dboot ROUND with|without BOOTTIME_NS MODE STATUS PIVOT_NS
# MODE: the mode the root's init found; STATUS: /run/preempt-policy/status
# as the root sees it ("absent" without the hook); PIVOT_NS: dracut's
# "Mounted root filesystem" to "Switching root" in the kernel log (us
# resolution; the hook runs in between): where A - B should come from,
# without the rest of the boot's I/O waits, to tell the hook's cost from
# their noise.
set -eu
[ $# -ge 5 ] || {
	echo "usage: dracut-bootcost.sh ARCH KERNEL BINDIR OUTDIR ROUNDS [SMP]" >&2
	exit 2
}
arch=$1 kernel=$2 bindir=$3 dir=$4 rounds=$5 smp=${6:-2}
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/vm.sh
. "$top/tests/lib/vm.sh"

note() {
	printf '==> [%s] (d) %s\n' "$(date +%H:%M:%S)" "$*" >&2
}

die() {
	printf 'dracut-bootcost.sh: %s\n' "$*" >&2
	exit 1
}

[ -f "$kernel" ] || die "no kernel image $kernel"
for f in preempt-policy ovh-bench; do
	[ -x "$bindir/$f" ] || die "no static $f in $bindir"
done
mkdir -p "$dir"

# The two initramfs images, as make run builds its own (no policy packed:
# the tool uses the root's policy, here its opt-in drop-in).
for which in with without; do
	note "dracut initramfs $which 55preempt-policy ($arch)"
	flag=
	[ "$which" = with ] || flag=--without-policy
	# shellcheck disable=SC2086 # $flag is one word or none
	"$top/tests/initrd/mkdracut.sh" --arch "$arch" $flag "$dir/dracut-$which.img" \
		"$bindir/preempt-policy" >"$dir/dracut-$which.log" 2>&1 || {
		tail -n 20 "$dir/dracut-$which.log" >&2
		die "mkdracut.sh $flag failed (log: $dir/dracut-$which.log)"
	}
done

# The real root, with the clock its init reads first.
rm -rf "$dir/extra"
mkdir -p "$dir/extra/usr/local/bin"
cp "$bindir/ovh-bench" "$dir/extra/usr/local/bin/"
note "ext4 root image (tests/initrd/mkroot.sh $arch, fixture pg-optin)"
"$top/tests/initrd/mkroot.sh" "$arch" "$dir/root.img" pg-optin "$dir/extra" \
	>"$dir/mkroot.log" 2>&1 || {
	cat "$dir/mkroot.log" >&2
	die "mkroot.sh failed"
}

i=1
while [ "$i" -le "$rounds" ]; do
	order="with without"
	[ $((i % 2)) = 1 ] || order="without with"
	for which in $order; do
		note "round $i of $rounds: dracut boot $which the hook, -icount"
		o=$dir/$which-$i.out
		cp --sparse=always "$dir/root.img" "$dir/disk.img"
		rc=0
		"$top/tests/rig/launch-vm.sh" --arch "$arch" --kernel "$kernel" \
			--smp "$smp" --mem 512 --icount --timeout 600 \
			--initrd "$dir/dracut-$which.img" --disk "$dir/disk.img" \
			--disk-cache unsafe \
			--log "$dir/$which-$i.console" \
			--append "root=/dev/vda rw rootfstype=ext4 rd.skipfsck" \
			>"$o" 2>"$o.err" || rc=$?
		[ "$rc" = 0 ] || die "guest failed ($(vm_says "$rc")), see $dir/$which-$i.console"
		t=$(sed -n 's/^boottime-at-init: //p' "$o")
		case "$t" in
		'' | *[!0-9]*) die "no boot time from the root's init in $o" ;;
		esac
		m=$(sed -n 's/^mode-at-init: .*(\([a-z]*\)).*/\1/p' "$o")
		s=$(sed -n 's/^status: //p' "$o")
		s=${s%% *}
		# The pre-pivot stretch from dracut's own kernel log lines: in A
		# it holds the hook, and none of the boot's earlier I/O waits.
		p=$(sed -n 's/^dmesg: \[ *\([0-9.]*\)\] dracut: \(Mounted root filesystem\|Switching root\).*/\1/p' "$o" |
			awk 'NR == 1 { a = $1 } NR == 2 { printf "%d", ($1 - a) * 1e9 + 0.5 }')
		echo "dboot $i $which $t ${m:-unknown} ${s:-unknown} ${p:--}"
	done
	i=$((i + 1))
done
rm -f "$dir/disk.img"
