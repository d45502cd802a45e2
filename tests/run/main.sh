#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# main.sh [ARCH]  ("make run")
# Boot the patched kernel in QEMU with PostgreSQL 15 and show, for a DBA:
# the kernel's warning about shared_buffers in 4 KiB pages, preempt-policy's
# decision and its reasons (applied), pgbench simple-update TPS with more
# clients than vCPUs, and the same with hugetlb pages and huge_pages=on.
#
# Builds what is missing: the kernel (make -s kernel-ARCH-patched), the
# PostgreSQL root fs (tests/pg/mkrootfs.sh), a static preempt-policy.
#
# Environment:
#   RUN_VARIANT    kernel variant (patched); RUN_KERNEL an image path instead
#   RUN_SB RUN_SCALE RUN_C RUN_J RUN_T RUN_BASELINE
#                  passed to the guest (see tests/run/guest-main.sh)
#   RUN_MEM        guest RAM in MB (2048), RUN_SMP vCPUs (2)
#   RUN_WARN       shmem_hugepage_warn= on the kernel command line (256M:
#                  the guest's shared_buffers is far below the 1 GiB default)
#   RUN_INITRAMFS  a command that builds the initramfs instead of the rig's
#                  busybox one: it is run as CMD ARCH OUT.cpio TESTDIR ROOTFS
#                  and must run TESTDIR/run as the rig's /init does (the
#                  virtio-serial port "rig", "rig-exit-status: N")
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. tests/lib/common.sh
. tests/pg/host-lib.sh

arch=${1:-${ARCH:-arm64}}
variant=${RUN_VARIANT:-patched}
kernel=${RUN_KERNEL:-$(kernel_image "$arch" "$variant")}
mem=${RUN_MEM:-2048}
smp=${RUN_SMP:-2}
work=$BUILD/run/$arch
mkdir -p "$work"

step() {
	printf '==> %s\n' "$*"
}

fail() {
	printf 'make run: %s\n' "$*" >&2
	exit 1
}

# --- what the guest needs ---------------------------------------------------------
if [ ! -f "$kernel" ]; then
	[ -z "${RUN_KERNEL:-}" ] || fail "no kernel image $kernel"
	step "building the $arch $variant kernel (make kernel-$arch-$variant; a cold build takes minutes)"
	make -s "kernel-$arch-$variant" || fail "kernel build failed"
fi
step "PostgreSQL root fs for $arch (first build downloads ~50 Debian packages)"
rootfs=$(tests/pg/mkrootfs.sh "$arch") || fail "tests/pg/mkrootfs.sh $arch failed"

tdir=$work/t
rm -rf "$tdir"
mkdir -p "$tdir"
cp tests/run/guest-main.sh "$tdir/run"
cp tests/pg/guest-lib.sh "$tdir/"
chmod 0755 "$tdir/run"
rc=0
policy=$(tests/pg/build-policy.sh "$arch" "$BUILD/pg") || rc=$?
case $rc in
0) cp "$policy" "$tdir/preempt-policy" ;;
3) step "policy/Makefile has no static target: running without preempt-policy" ;;
*) fail "static preempt-policy build failed" ;;
esac

# The initramfs: the rig's busybox /init with the test directory, plus the
# PostgreSQL root fs appended. Swappable through RUN_INITRAMFS.
build_initramfs() {
	if [ -n "${RUN_INITRAMFS:-}" ]; then
		$RUN_INITRAMFS "$arch" "$1" "$tdir" "$rootfs"
	else
		tests/rig/mkinitramfs.sh "$arch" "$1" "$tdir" &&
			cat "$rootfs" >>"$1"
	fi
}
step "initramfs"
initrd=$work/initramfs.cpio
build_initramfs "$initrd" || fail "initramfs build failed"

# --- the boot, with live progress from the console ----------------------------------
append="shmem_hugepage_warn=${RUN_WARN:-256M}"
for v in RUN_SB RUN_SCALE RUN_C RUN_J RUN_T RUN_BASELINE; do
	eval "val=\${$v:-}"
	# shellcheck disable=SC2154 # set by eval
	[ -z "$val" ] || append="$append $v=$val"
done
log=$work/console.log
out=$work/guest.out
step "booting $(basename "$kernel") ($arch $variant, $smp vCPUs, $mem MiB, QEMU TCG): the guest takes a few minutes"
start=$(date +%s)
rc=0
guest_live "$out" "$log" --arch "$arch" --kernel "$kernel" --smp "$smp" \
	--mem "$mem" --timeout 1200 --append "$append" --initrd "$initrd" \
	"$tdir" || rc=$?
took=$(($(date +%s) - start))
if [ "$rc" -ne 0 ]; then
	cat "$out"
	tail -n 20 "$out.err" >&2
	fail "the guest failed (exit $rc after ${took} s); console log: $log"
fi

# --- the report ----------------------------------------------------------------------
val() {
	sed -n "s/^$1 //p" "$out" | head -n 1
}
bench_line() { # NAME -> "MODE TPS LAT FAILED"
	sed -n "s/^bench $1 //p" "$out" | head -n 1
}
field() {
	printf '%s\n' "$1" | cut -d' ' -f"$2"
}

echo
echo "==================== PostgreSQL on Linux $(val kernel) ===================="
echo "Guest: $(val cpus) vCPUs, $(val mem_mib) MiB RAM (QEMU TCG, not real hardware speed)"
echo "PostgreSQL: $(val postgres | sed 's/^postgres //'), $(val params)"
modes=$(val preempt_sysfs | grep -v "can't open" || true)
if [ -n "$modes" ]; then
	echo "Preemption modes (/sys/kernel/preempt/mode): $modes"
else
	echo "Preemption modes: no /sys/kernel/preempt/mode (unpatched kernel); debugfs: $(val preempt_debugfs)"
fi
echo
echo "1. shared_buffers in 4 KiB pages (huge_pages=off)"
if grep -q '^warn1 ' "$out"; then
	echo "   The kernel warned (dmesg):"
	sed -n 's/^warn1 /     /p' "$out" | head -n 4
else
	echo "   The kernel logged no huge-page warning (vm.shmem_hugepage_warn_bytes: $(val warn_bytes))."
fi
if grep -q '^decide-nohuge ' "$out"; then
	echo "   preempt-policy decide:"
	sed -n 's/^decide-nohuge /     /p' "$out"
	echo "   preempt-policy apply: $(val apply-nohuge)"
else
	echo "   preempt-policy: not available for this architecture"
fi
b0=$(bench_line default-mode)
b1=$(bench_line policy-mode)
b2=$(bench_line hugepages)
echo
echo "2. pgbench simple-update ($(val params | sed 's/.*clients=\([0-9]*\).*/\1/') clients on $(val cpus) vCPUs)"
printf '   %-34s %-10s %10s %12s %7s\n' "run" "mode" "tps" "latency ms" "failed"
[ -z "$b0" ] || printf '   %-34s %-10s %10s %12s %7s\n' "huge_pages=off, kernel default" \
	"$(field "$b0" 1)" "$(field "$b0" 2)" "$(field "$b0" 3)" "$(field "$b0" 4)"
[ -z "$b1" ] || printf '   %-34s %-10s %10s %12s %7s\n' "huge_pages=off, policy applied" \
	"$(field "$b1" 1)" "$(field "$b1" 2)" "$(field "$b1" 3)" "$(field "$b1" 4)"
[ -z "$b2" ] || printf '   %-34s %-10s %10s %12s %7s\n' "huge_pages=on ($(field "$(val hugepages)" 2) x 2 MiB)" \
	"$(field "$b2" 1)" "$(field "$b2" 2)" "$(field "$b2" 3)" "$(field "$b2" 4)"
echo
echo "3. shared_buffers in hugetlb pages (huge_pages=on)"
echo "   postmaster Shared_Hugetlb: $(val hugetlb_kb) kB"
wc2=$(val warn_count2)
if grep -q '^warn2 ' "$out"; then
	echo "   The kernel still warned:"
	sed -n 's/^warn2 /     /p' "$out" | head -n 4
elif [ -n "$wc2" ] && [ "$(field "$wc2" 1)" != NA ]; then
	echo "   No huge-page warning (warned-process count $(field "$wc2" 1) -> $(field "$wc2" 2))."
fi
if grep -q '^decide-huge ' "$out"; then
	echo "   preempt-policy decide now:"
	sed -n 's/^decide-huge /     /p' "$out"
fi
grep '^error ' "$out" | sed 's/^error /   ERROR: /' || true
echo
echo "What this means for a DBA:"
echo " - Without huge pages every first touch of a shared_buffers page is a page"
echo "   fault; under the lazy/full preemption models a backend can be preempted"
echo "   inside that fault while it holds a spinlock, and the other backends spin."
echo "   On a 96-vCPU arm64 server this halved pgbench throughput on Linux 7.0."
echo " - Best fix: reserve huge pages (vm.nr_hugepages >= shared_buffers / 2 MiB"
echo "   plus ~10%) and set huge_pages=on; then the kernel does not warn."
echo " - Otherwise: preempt=none (or 'echo none > /sys/kernel/preempt/mode' on the"
echo "   patched kernel), which preempt-policy chooses and applies at boot."
echo " - The TPS above come from a 2-vCPU emulated guest: they show the procedure,"
echo "   not the size of the effect; measure on the real machine (tests/bench)."
echo "Guest session: ${took} s; full output: $out, console: $log"
