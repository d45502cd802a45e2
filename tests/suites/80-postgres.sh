#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# PostgreSQL 15 in an arm64 guest on the patched kernel: the huge-page
# warning for its shared_buffers, preempt-policy from its Debian package
# installed with dpkg into the guest's root (the shipped policy keeps
# lazy; apply switches to none once a drop-in opts in), pgbench while the
# preemption mode is switched at runtime, consistent balances across a clean
# restart, and huge_pages=on without a warning. The guest prints the TAP
# (tests/pg/guest-check.sh); this side builds what the guest needs and
# passes its lines through.
#
# PG_ARCH (arm64) and PG_VARIANT (check_variant's) pick another kernel, e.g.
# PG_VARIANT=base to see what the unpatched kernel fails; PG_KERNEL names an
# image directly.
. tests/lib/common.sh
. tests/pg/host-lib.sh

arch=${PG_ARCH:-arm64}
variant=${PG_VARIANT:-$(check_variant "$arch")}
kernel=${PG_KERNEL:-$(kernel_image "$arch" "$variant")}
[ -z "${PG_KERNEL:-}" ] || variant=$(basename "$(dirname "$(dirname "$(dirname "$(dirname "$kernel")")")")")
work=$BUILD/pg
tdir=$work/check-$arch

suite_setup() {
	[ -f "$kernel" ] ||
		bail "no kernel image $kernel for the postgres guest (make kernel-$arch-$variant)"
	mkdir -p "$work"
	{ deb=$(pkg_deb "$arch" 2>"$work/mkrootfs.err") &&
		rootfs=$(tests/pg/mkrootfs.sh "$arch" "$deb" 2>>"$work/mkrootfs.err"); } ||
		bail "PostgreSQL root fs for $arch with the preempt-policy package installed (pkg_deb, tests/pg/mkrootfs.sh)" \
			"$work/mkrootfs.err"
	diag "PostgreSQL root fs for $arch with $(basename "$deb") installed ($(du -m "$rootfs" | cut -f1) MB)"
	rm -rf "$tdir"
	mkdir -p "$tdir"
	cp tests/pg/guest-check.sh "$tdir/guest.sh"
	cp tests/pg/guest-lib.sh tests/lib/tap.sh "$tdir/"
	chmod 0755 "$tdir/guest.sh"
}

suite_run() {
	start=$(date +%s)
	rc=0
	tests/rig/launch-vm.sh --arch "$arch" --kernel "$kernel" --smp 2 --mem 1792 \
		--timeout 420 --extra-initrd "$rootfs" --log "$work/check-$arch-console.log" \
		"$tdir" >"$work/check-$arch.out" 2>"$work/check-$arch.err" || rc=$?
	took=$(($(date +%s) - start))
	cat "$work/check-$arch.out"
	# The guest's TAP carries its own failures; a guest that failed
	# without one, and every other verdict, is a failure of the session.
	if vm_expect_pass "postgres guest session on $arch $variant" "$rc" \
		"$work/check-$arch.out" "$work/check-$arch.err" "$work/check-$arch-console.log"; then
		diag "postgres guest session on $arch $variant: ${took} s"
	else
		diag "postgres guest session on $arch $variant: ${took} s, $(vm_says "$rc")"
	fi
}

suite_main
