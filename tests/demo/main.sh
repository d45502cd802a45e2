#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# main.sh [ARCH]  ("make run")
# Boot the patched kernel in QEMU the way a distribution boots it, through
# a real dracut initramfs whose 55preempt-policy pre-pivot hook chooses the
# preemption mode from the real root (PostgreSQL 15 with a large
# shared_buffers and huge_pages=off) before the root's init starts. Then
# show, for a DBA: the boot-time decision (the built-in policy keeps the
# kernel's mode), the kernel's warning about shared_buffers in 4 KiB pages
# once PostgreSQL runs, preempt-policy's decision and its reasons, then
# the opt-in PostgreSQL rules in a drop-in and their decision, pgbench
# simple-update TPS with more clients than vCPUs, and the same with
# hugetlb pages and huge_pages=on.
#
# Builds what is missing: the kernel (make -s kernel-ARCH-patched), the
# preempt-policy Debian package (make deb's), the PostgreSQL root
# (tests/pg/mkrootfs.sh, made an ext4 image with the package installed by
# tests/pg/mkimage.sh), the initramfs (tests/initrd/mkdracut.sh: the
# host's dracut with the package's module and tool; for arm64 with
# --sysroot, an arm64 Debian sysroot with the package installed, and a
# cross ldd). Each is cached and rebuilt when its inputs change.
#
# Environment:
#   RUN_BOOT       dracut (default): the dracut initramfs, root=/dev/vda on
#                  virtio-blk (a fresh copy of the root image per run);
#                  rig: the rig's busybox initramfs with the root fs
#                  appended, no boot-time policy (the earlier make run)
#   RUN_VARIANT    kernel variant (patched); RUN_KERNEL an image path instead
#   RUN_SB RUN_SCALE RUN_C RUN_J RUN_T RUN_BASELINE
#                  passed to the guest (see tests/demo/guest-demo.sh); RUN_SB
#                  also goes into the root's postgresql.conf
#   RUN_MEM        guest RAM in MB (2048), RUN_SMP vCPUs (2)
#   RUN_WARN       sysctl.vm.shmem_hugepage_warn_bytes= on the kernel
#                  command line (N, NK, NM or NG, in bytes there) and the
#                  threshold of the guest's opt-in PostgreSQL rule
#                  (RUN_PGSHM; 256M: the guest's shared_buffers is far
#                  below the shipped 1 GiB)
#   RUN_TIMEOUT    hard limit for the guest in seconds (1200)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. tests/lib/common.sh
. tests/pg/host-lib.sh

arch=${1:-${ARCH:-arm64}}
variant=${RUN_VARIANT:-patched}
boot=${RUN_BOOT:-dracut}
mem=${RUN_MEM:-2048}
smp=${RUN_SMP:-2}
sb=${RUN_SB:-512}
warn=${RUN_WARN:-256M}
case $warn in
*[0-9]) warn_bytes=$warn ;;
*[kK]) warn_bytes=$((${warn%?} * 1024)) ;;
*[mM]) warn_bytes=$((${warn%?} * 1048576)) ;;
*[gG]) warn_bytes=$((${warn%?} * 1073741824)) ;;
*) die "RUN_WARN: N, NK, NM or NG, not '$warn'" ;;
esac
work=$BUILD/demo/$arch

step() {
	printf '==> %s\n' "$*"
}

fail() {
	printf 'make run: %s\n' "$*" >&2
	exit 1
}

check_arch "$arch"
case "$boot" in
dracut | rig) ;;
*) fail "unknown RUN_BOOT '$boot' (dracut, rig)" ;;
esac
kernel=${RUN_KERNEL:-$(kernel_image "$arch" "$variant")}
mkdir -p "$work"

# --- what the guest needs ---------------------------------------------------------
if [ ! -f "$kernel" ]; then
	[ -z "${RUN_KERNEL:-}" ] || fail "no kernel image $kernel"
	step "building the $arch $variant kernel (make kernel-$arch-$variant; a cold build takes minutes)"
	make -s "kernel-$arch-$variant" || fail "kernel build failed"
fi
tdir=$work/t
disk=
if [ "$boot" = dracut ]; then
	step "the preempt-policy Debian package for $arch (make deb's build)"
	deb=$(pkg_deb "$arch") || fail "building the $arch package failed"
	step "the real root: ext4 image with PostgreSQL, shared_buffers=${sb}MB, huge_pages=off, $(basename "$deb") installed"
	img=$(tests/pg/mkimage.sh "$arch" "$deb" "$sb") ||
		fail "tests/pg/mkimage.sh $arch failed"
	disk=$work/root.img
	# The guest writes to its root (initdb, pgbench): boot a fresh copy.
	{ cp --sparse=always "$img" "$disk.tmp" && mv "$disk.tmp" "$disk"; } ||
		fail "copying $img to $disk failed"

	initrd=$work/dracut.img
	step "dracut initramfs for $arch: base rootfs-block preempt-policy from $(basename "$deb") (host dracut; arm64: --sysroot, Debian 12 packages; cached)"
	run_dracut_image "$arch" "$deb" "$initrd" "$work/dracut.log" ||
		fail "the dracut initramfs build failed (log: $work/dracut.log)"
	append="root=/dev/vda rw rootfstype=ext4 rd.skipfsck"
else
	step "PostgreSQL root fs for $arch (first build downloads ~50 Debian packages)"
	rootfs=$(tests/pg/mkrootfs.sh "$arch") || fail "tests/pg/mkrootfs.sh $arch failed"
	# The busybox initramfs has no C library for the package's tool: a
	# static build of it.
	policy=$(tests/initrd/build-policy.sh "$arch" "$BUILD/pg/preempt-policy-$arch") ||
		fail "static preempt-policy build failed"
	rm -rf "$tdir"
	mkdir -p "$tdir"
	cp tests/demo/guest-demo.sh "$tdir/guest.sh"
	cp tests/pg/guest-lib.sh "$tdir/"
	chmod 0755 "$tdir/guest.sh"
	cp "$policy" "$tdir/preempt-policy"
	# The rig's busybox /init with the test directory, plus the
	# PostgreSQL root fs appended.
	step "initramfs (the rig's busybox one, RUN_BOOT=rig)"
	initrd=$work/initramfs.cpio
	{ tests/rig/mkinitramfs.sh "$arch" "$initrd" "$tdir" &&
		cat "$rootfs" >>"$initrd"; } || fail "initramfs build failed"
	append=
fi

# --- the boot, with live progress from the console ----------------------------------
append="${append:+$append }sysctl.vm.shmem_hugepage_warn_bytes=$warn_bytes RUN_PGSHM=$warn"
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
	--mem "$mem" --timeout "${RUN_TIMEOUT:-1200}" --append "$append" \
	--initrd "$initrd" ${disk:+--disk "$disk"} || rc=$?
took=$(($(date +%s) - start))
if [ "$rc" -ne 0 ]; then
	cat "$out"
	tail -n 20 "$out.err" >&2
	fail "the guest failed ($(vm_says "$rc") after ${took} s); console log: $log"
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
if grep -q '^mode-at-init: ' "$out"; then
	# The mode as the root's init saw it, before anything of the root ran
	# (the report of tests/rig/guest-init).
	bmode=$(val mode-at-init: | sed -n 's/^[^(]*(\([a-z]*\)).*/\1/p')
	klog=$(sed -n 's/^dmesg: \[[^]]*\] //p' "$out")
	echo "Boot: dracut initramfs (\"$(printf '%s\n' "$klog" | sed -n 's/^dracut: //p' | head -n 1)\"), root=/dev/vda (ext4 on virtio-blk)"
	echo
	echo "0. At boot: the initramfs's pre-pivot hook, before the root's init"
	echo "   $(val pgconf)"
	echo "   preempt-policy in the kernel log:"
	printf '%s\n' "$klog" | sed -n 's/^\(preempt-policy: .*\)/     \1/p'
	# Every preempt-policy line must come before the root's init started.
	late=$(printf '%s\n' "$klog" |
		awk '/^rootinit: started/ { seen = 1 }
		     /^preempt-policy: / { if (seen) late++; else early++ }
		     END { print (seen ? 0 + early " " 0 + late : "noinit") }')
	case "$late" in
	noinit) echo "   (the root's init did not mark its start in the kernel log)" ;;
	*" 0") echo "   all ${late% *} lines were logged before the root's init started" ;;
	*) echo "   WARNING: ${late#* } preempt-policy lines came after the root's init started" ;;
	esac
	echo "   /run/preempt-policy/status as the root sees it: $(val status:)"
	bsrc=$(val mode-source:)
	echo "   mode when the root's init started: ${bmode:-unknown} ($bsrc: \"$(val mode-at-init:)\")"
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
	echo "   preempt-policy decide, built-in policy (no rule):"
	sed -n 's/^decide-nohuge /     /p' "$out"
	echo "   preempt-policy apply: $(val apply-nohuge)"
	echo "   Opting in: /etc/preempt-policy.d/50-postgresql.conf with the shipped"
	echo "   PostgreSQL rules (threshold scaled to the guest):"
	sed -n 's/^optin_rule /     /p' "$out"
	echo "   preempt-policy decide with them:"
	sed -n 's/^decide-optin /     /p' "$out"
	echo "   preempt-policy apply: $(val apply-optin)"
	if grep -q '^afterstart-optin ' "$out"; then
		echo "   The loop: after the cluster started, the postgresql@.service drop-in ran"
		echo "   preempt-policy after-start: $(val afterstart-optin)"
		echo "   /var/lib/preempt-policy/state for the next boot's initramfs: $(val state-optin | grep . || echo absent)"
	fi
else
	echo "   preempt-policy: not available for this architecture"
fi
b0=$(bench_line default-mode)
b1=$(bench_line optin-mode)
b2=$(bench_line hugepages)
echo
echo "2. pgbench simple-update ($(val params | sed 's/.*clients=\([0-9]*\).*/\1/') clients on $(val cpus) vCPUs)"
printf '   %-34s %-10s %10s %12s %7s\n' "run" "mode" "tps" "latency ms" "failed"
[ -z "$(val baseline_switch)" ] ||
	echo "   (for the first run the guest switched back to the kernel's default, $(val baseline_switch))"
[ -z "$b0" ] || printf '   %-34s %-10s %10s %12s %7s\n' "huge_pages=off, kernel default" \
	"$(field "$b0" 1)" "$(field "$b0" 2)" "$(field "$b0" 3)" "$(field "$b0" 4)"
[ -z "$b1" ] || printf '   %-34s %-10s %10s %12s %7s\n' "huge_pages=off, opt-in rules" \
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
	echo "   No huge-page warning (reported-object count $(field "$wc2" 1) -> $(field "$wc2" 2))."
fi
if grep -q '^decide-huge ' "$out"; then
	echo "   preempt-policy decide now:"
	sed -n 's/^decide-huge /     /p' "$out"
fi
if grep -q '^afterstart-huge ' "$out"; then
	echo "   The drop-in's after-start now: $(val afterstart-huge)"
	echo "   /var/lib/preempt-policy/state: $(val state-huge | grep . || echo "absent (the next boot keeps the kernel's mode)")"
fi
grep '^error ' "$out" | sed 's/^error /   ERROR: /' || true
echo
echo "What this means for a DBA:"
echo " - Without huge pages every first touch of a shared_buffers page is a page"
echo "   fault. A backend that faults while it holds a spinlock can be scheduled"
echo "   out in every preemption model: inside the fault under full, when the"
echo "   fault returns to user space under lazy and none (make bench's mechanism"
echo "   part counts it). On a 96-vCPU arm64 server Linux 7.0's lazy default"
echo "   halved pgbench throughput in the report that started this project."
echo " - The fix that removes the faults: reserve huge pages (vm.nr_hugepages,"
echo "   as many as 'postgres -C shared_memory_size_in_huge_pages' says) and set"
echo "   huge_pages=on; then the kernel does not warn."
echo " - preempt-policy's built-in policy keeps the kernel's mode (0. and 1.):"
echo "   this project's counts (make bench, BENCH_PARTS=mechanism) show a"
echo "   faulting lock holder scheduled out about as often under none as under"
echo "   lazy, with no more lock acquisitions."
echo " - preempt=none (or the opt-in rules above, or 'echo none >"
echo "   /sys/kernel/preempt/mode' on the patched kernel) is what the report"
echo "   measured as its fix on real hardware. Opt in only if none measures"
echo "   better on your own machine."
echo " - The TPS above come from a 2-vCPU emulated guest: they show the procedure,"
echo "   not the size of the effect; measure on the real machine (tests/bench)."
echo "Guest session: ${took} s; full output: $out, console: $log"
