#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# preempt-policy's loop after boot and into the next boot, on the patched
# kernel, per architecture: three boots of one PostgreSQL root image
# (tests/pg/mkimage.sh, the root of make run) through the dracut
# initramfs whose pre-pivot hook runs preempt-policy on that root before
# its init (tests/demo/guest-loop.sh is the guest side). The root's tool,
# policy and drop-in come from the package (make deb's, installed with dpkg
# into the root's own database); the initramfs carries the static tool:
# 1. record: the root's first boot keeps the kernel's build default (the
#    preemption model of its .config, which must not be none); a site
#    policy with a rule on a live fact (pg_live_fallbacks > 0 -> none),
#    huge_pages = try and too few hugetlb pages; the postgresql@.service
#    drop-in's command records none for the next boot (default policy) and
#    switches the running kernel when the policy says after-start = apply.
# 2. state: the initramfs starts this boot in none from the state file
#    (read here from the image between the boots, with debugfs); advise's
#    page count equals the server's shared_memory_size_in_huge_pages and
#    its sysctl.d line is pasted.
# 3. expire: the initramfs keeps the kernel's default (the cluster is
#    predicted to get its pages), the cluster gets hugetlb pages and the
#    drop-in's command removes the state (debugfs finds no such file in
#    the image; an image debugfs cannot read fails).
# LOOP_ARCHES (arm64 x86_64) picks the architectures; LOOP_VARIANT a
# kernel variant (check_variant's), e.g. base to see the unpatched kernel
# fail.
. tests/lib/common.sh
. tests/pg/host-lib.sh

STATE=/var/lib/preempt-policy/state
SB=512

# val FILE KEY: the first "KEY VALUE" line's value
val() {
	sed -n "s/^$2 //p" "$1" | head -n 1
}

# on_disk IMG: the state file in the root image (status 0); status 1 when
# debugfs read the image and found no such file; status 2, debugfs's
# complaint on standard output, when it could not read the image. debugfs
# exits 0 on every error: its standard error tells which.
on_disk() {
	od_out=$(debugfs -R "cat $STATE" "$1" 2>"$work/debugfs.err")
	od_err=$(grep -v '^debugfs [0-9.]* (' "$work/debugfs.err")
	case "$od_err" in
	'') printf '%s\n' "$od_out" ;;
	"$STATE: File not found by ext2_lookup"*) return 1 ;;
	*)
		printf '%s\n' "$od_err"
		return 2
		;;
	esac
}

# build_default: the mode $kernel was built to boot in, from the choice
# in its object directory's .config (as preempt-policy reads
# /boot/config-RELEASE)
build_default() {
	for bd in PREEMPT_LAZY:lazy PREEMPT:full PREEMPT_VOLUNTARY:voluntary PREEMPT_NONE:none; do
		if grep -qx "CONFIG_${bd%%:*}=y" "${kernel%/arch/*}/.config"; then
			echo "${bd#*:}"
			return
		fi
	done
}

# boot ARCH PHASE: one boot of $disk; passes the guest's TAP through,
# prefixed with ARCH and PHASE; 0 when the verdict is pass
boot() {
	b_out=$work/$2.out
	b_start=$(date +%s)
	b_rc=0
	"$RIG/launch-vm.sh" --arch "$1" --kernel "$kernel" --smp 2 --mem 2048 \
		--timeout 600 --initrd "$initrd" --disk "$disk" \
		--append "root=/dev/vda rw rootfstype=ext4 rd.skipfsck RUN_LOOP=$2" \
		--log "$work/$2-console.log" "$tdir" >"$b_out" 2>"$b_out.err" || b_rc=$?
	grep -E '^(not )?ok |^#' "$b_out" |
		sed -E "s/^((not )?ok)( [0-9]+)? - /\\1 - $1 $2: /"
	diag "$1 $2 boot: $(vm_says "$b_rc"), $(($(date +%s) - b_start)) s"
	vm_expect_pass "$1 $2 boot" "$b_rc" "$b_out" "$b_out.err" "$work/$2-console.log"
}

# boot_mode PHASE: the mode the root's init saw first (the report of
# tests/rig/guest-init)
boot_mode() {
	val "$work/$1.out" mode-at-init: | sed -n 's/^[^(]*(\([a-z]*\)).*/\1/p'
}

# hook_lines PHASE: the initramfs's preempt-policy lines, all of which must
# come before the root's init marked its start
hook_lines() {
	sed -n 's/^dmesg: \[[^]]*\] //p' "$work/$1.out" |
		awk '/^rootinit: started/ { exit } /^preempt-policy: / { print }'
}

# loop_paths ARCH: the kernel, work directory, test directory (launch-vm.sh
# wants one; with --initrd it packs none: the guest scripts are on the
# root), dracut image and root disk of ARCH's loop.
loop_paths() {
	arch=$1
	variant=${LOOP_VARIANT:-$(check_variant "$arch")}
	kernel=$(kernel_image "$arch" "$variant")
	work=$BUILD/loop/$arch
	tdir=$work/t
	initrd=$BUILD/demo/$arch/dracut.img
	disk=$work/root.img
}

# loop_setup ARCH: the package, the PostgreSQL root image with it
# installed and the dracut initramfs; the three boots share one copy of
# the root: what a boot writes (the cluster, the state, the sysctl.d file)
# is there for the next.
loop_setup() {
	loop_paths "$1"
	rm -rf "$work"
	mkdir -p "$tdir" "${initrd%/*}"
	{ deb=$(pkg_deb "$arch" 2>"$work/setup.err") &&
		img=$(tests/pg/mkimage.sh "$arch" "$deb" "$SB" 2>>"$work/setup.err"); } ||
		bail "$arch loop: the preempt-policy package and the PostgreSQL root image with it installed" \
			"$work/setup.err"
	run_dracut_image "$arch" "$deb" "$initrd" "$work/dracut.log" 2>>"$work/setup.err" ||
		bail "$arch loop: the dracut initramfs (log $work/dracut.log)" "$work/setup.err"
	cp --sparse=always "$img" "$disk"
	diag "$arch $variant: root image $(du -m "$img" | cut -f1) MB, dracut image $(du -m "$initrd" | cut -f1) MB"
}

# loop_run ARCH: the three boots and their checks.
loop_run() {
	loop_paths "$1"
	if [ ! -f "$kernel" ]; then
		not_ok "$arch loop: no kernel image $kernel (make kernel-$arch-$variant)"
		return
	fi

	# The loop needs a default other than none to leave and come back
	# to; the first boot must be in exactly that one.
	default=$(build_default)
	case "$default" in
	'' | none)
		not_ok "$arch loop: the kernel's build default is '${default:-unknown}' (${kernel%/arch/*}/.config), not a mode to leave for none"
		return
		;;
	esac
	boot "$arch" record || return
	m=$(boot_mode record)
	if [ "$m" = "$default" ] && ! hook_lines record | grep -q 'switched from'; then
		ok "$arch record: the first boot keeps the kernel's build default mode ($default)"
	else
		not_ok "$arch record: the first boot's mode is '${m:-?}', the build default $default; the hook: $(hook_lines record)"
	fi
	st=$(on_disk "$disk")
	if printf '%s\n' "$st" | grep -qx 'mode=none' &&
		printf '%s\n' "$st" | grep -q '^cluster='; then
		ok "$arch record: $STATE on the root image after the boot says none, with the cluster"
	else
		not_ok "$arch record: $STATE on the root image: ${st:-absent}"
	fi

	boot "$arch" state || return
	m=$(boot_mode state)
	h=$(hook_lines state)
	if [ "$m" = none ] && printf '%s\n' "$h" | grep -q "switched from $default to none: state $STATE: "; then
		ok "$arch state: the initramfs started the root's init in none, from the state file"
	else
		not_ok "$arch state: mode at the root's init '${m:-?}'; the hook: $h"
	fi

	boot "$arch" expire || return
	m=$(boot_mode expire)
	h=$(hook_lines expire)
	if [ "$m" = "$default" ] && ! printf '%s\n' "$h" | grep -q 'switched from'; then
		ok "$arch expire: with the pages reserved, the boot keeps the kernel's default ($default)"
	else
		not_ok "$arch expire: mode at the root's init '${m:-?}', want $default; the hook: $h"
	fi
	st=$(on_disk "$disk")
	case $? in
	1) ok "$arch expire: no $STATE on the root image after the boot" ;;
	0) not_ok "$arch expire: $STATE still on the root image: $st" ;;
	*) not_ok "$arch expire: the root image after the boot could not be read: $st" ;;
	esac
}

arches=${LOOP_ARCHES:-arm64 x86_64}

suite_setup() {
	for a in $arches; do
		loop_setup "$a"
	done
}

suite_run() {
	for a in $arches; do
		loop_run "$a"
	done
	return 0
}

suite_main
