#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Boot integration of preempt-policy (initrd/): lint, install layout, a real
# dracut initramfs booted in QEMU on x86_64 (the host's binaries) and on
# arm64 (dracut --sysroot with arm64 Debian packages and a cross ldd:
# tests/initrd/mkdracut.sh), and the same hook sourced in the rig's
# busybox guest on arm64 for the cases a dracut image cannot set up
# (fault injection, initramfs-tools). Every case boots to the real root's
# init, which reads the preemption mode first thing and marks its start in
# the kernel log; the checks are on that mode, the tool's exit status left
# in /run, and the preempt-policy lines (all before the root's init).
. tests/lib/common.sh

T=tests/initrd
work=$BUILD/initrd
mkdir -p "$work/out"

check "initrd scripts are shellcheck clean (POSIX sh)" shellcheck -s sh \
	initrd/lib/preempt-policy-lib.sh initrd/dracut/55preempt-policy/*.sh \
	initrd/initramfs-tools/hooks/preempt-policy \
	initrd/initramfs-tools/scripts/init-bottom/preempt-policy \
	$T/*.sh $T/root-init $T/guest/run $T/guest/fault-* \
	tests/suites/70-initrd.sh

spdx_missing() {
	find initrd tests/initrd tests/suites/70-initrd.sh -type f |
		while read -r f; do
			grep -q 'SPDX-License-Identifier: GPL-2.0' "$f" || echo "$f"
		done
}
missing=$(spdx_missing)
if [ -z "$missing" ]; then
	ok "SPDX-License-Identifier in every initrd file"
else
	not_ok "SPDX-License-Identifier in every initrd file"
	diag "missing: $missing"
fi

# make install lays the files out where dracut, systemd and
# initramfs-tools look, with the paths filled in.
dest=$work/destdir
rm -rf "$dest"
if out=$(make -s -C initrd install DESTDIR="$dest" PREFIX=/usr 2>&1); then
	bad=
	for f in lib/dracut/modules.d/55preempt-policy/module-setup.sh \
		lib/dracut/modules.d/55preempt-policy/preempt-policy-hook.sh \
		lib/dracut/modules.d/55preempt-policy/preempt-policy-lib.sh \
		lib/systemd/system/preempt-policy.service \
		share/initramfs-tools/hooks/preempt-policy \
		share/initramfs-tools/scripts/init-bottom/preempt-policy \
		lib/preempt-policy/preempt-policy-lib.sh; do
		[ -f "$dest/usr/$f" ] || bad="$bad missing:$f"
	done
	for f in lib/dracut/modules.d/55preempt-policy/module-setup.sh \
		share/initramfs-tools/hooks/preempt-policy \
		share/initramfs-tools/scripts/init-bottom/preempt-policy; do
		[ -x "$dest/usr/$f" ] || bad="$bad not-executable:$f"
	done
	if grep -rl '@[A-Z]*DIR@' "$dest" >/dev/null; then
		bad="$bad unsubstituted:$(grep -rl '@[A-Z]*DIR@' "$dest" | tr '\n' ' ')"
	fi
	if [ -z "$bad" ]; then
		ok "make -C initrd install DESTDIR PREFIX=/usr: dracut, systemd and initramfs-tools layout"
	else
		not_ok "make -C initrd install layout:$bad"
	fi
else
	not_ok "make -C initrd install DESTDIR PREFIX=/usr"
	diag "$out"
fi

if command -v systemd-analyze >/dev/null; then
	check "preempt-policy.service passes systemd-analyze verify" \
		make -s -C initrd check
else
	skip "preempt-policy.service passes systemd-analyze verify" "no systemd-analyze"
fi

# --- guests ------------------------------------------------------------

# report_mode FILE: the running mode (in parentheses) the root's init saw.
report_mode() {
	sed -n 's/^mode-at-init: .*(\([a-z]*\)).*/\1/p' "$1"
}

# assert_case ARCH NAME FILE RC MODE STATUS REGEX...: one TAP line.
assert_case() {
	a_arch=$1 a_name=$2 a_file=$3 a_rc=$4 a_mode=$5 a_status=$6
	shift 6
	why=
	if [ "$a_rc" -ne 0 ]; then
		why="guest-run exit $a_rc (boot did not reach the root's init)"
		diag "$(tail -n 5 "$a_file.err" 2>/dev/null)" \
			"$(tail -n 25 "$a_file.console" 2>/dev/null)"
	else
		got=$(report_mode "$a_file")
		[ "$got" = "$a_mode" ] || why="mode at the root's init '$got', want '$a_mode'"
		st=$(sed -n 's/^status: //p' "$a_file")
		[ "$st" = "$a_status" ] || why="${why:+$why; }tool status '$st', want '$a_status'"
		for re in "$@"; do
			grep -q "^dmesg: .*preempt-policy: .*$re" "$a_file" ||
				why="${why:+$why; }no log line matching '$re'"
		done
		# Every preempt-policy line comes before the root's init started.
		order=$(sed -n 's/^dmesg: //p' "$a_file" |
			awk '/rootinit: started/ { seen = 1 }
			     /preempt-policy: / && seen { late++ }
			     END { print (seen ? 0 + late : "noinit") }')
		[ "$order" = 0 ] || why="${why:+$why; }preempt-policy lines after the root's init: $order"
		grep -q '^debugfs-left-mounted: no' "$a_file" ||
			why="${why:+$why; }debugfs left mounted by the hook"
	fi
	if [ -z "$why" ]; then
		ok "$a_arch $a_name: root's init runs in $a_mode, status $a_status"
	else
		not_ok "$a_arch $a_name: $why"
		diag "$(sed -n 's/^dmesg: \(.*\(preempt-policy\|rootinit\|dracut\).*\)/  \1/p;/^[a-z-]*: /{/^dmesg/!s/^/  /p}' \
			"$a_file" | tail -n 30)"
	fi
}

# The cases: NAME VARIANT ROOT-FIXTURE APPEND MODE STATUS LOG-REGEX...
# (a tab separates fields; the regexes are one field, '|' between them).
cases="picks-none	patched	pg-big	-	none	0	switched from lazy to none: rule initrd-pg-shm|using the initramfs copy
keeps-default	patched	empty	-	lazy	0	keeping lazy: no rule matched
sysctl-pool	patched	pg-sysctl	-	lazy	0	keeping lazy: no rule matched.*hugetlb pool predicted from /etc/sysctl.d/30-pg.conf:2 (2MiB: 4200 pages, live 0)
admin-full-wins	patched	pg-big	preempt=full	full	0	preempt=full on the command line
policy-off	patched	pg-big	preempt.policy=off	lazy	absent	disabled by preempt.policy=off
broken-config	patched	bad-policy	-	lazy	2	unknown fact|bad input (exit 2)
unpatched-kernel	base	pg-big	-	lazy	3	cannot apply none|kernel cannot switch to the chosen mode
root-policy-wins-debug	base	force-full	preempt.policy=debug	full	0	switched from lazy to full: rule site-full|current mode:"
arm64_faults="tool-crash	base	pg-big	pp_fault=crash	lazy	139	crashed (signal 11)
tool-hang	base	pg-big	pp_fault=hang	lazy	142	timed out after 3 s and was killed
initramfs-tools-unpatched	base	pg-big	pp_flavour=initramfs-tools	lazy	3	cannot apply none|kernel cannot switch to the chosen mode
initramfs-tools-root-policy	base	force-full	pp_flavour=initramfs-tools	full	0	switched from lazy to full: rule site-full
initramfs-tools-off	base	force-full	pp_flavour=initramfs-tools preempt.policy=off	lazy	absent	disabled by preempt.policy=off"

# run_cases ARCH RUNNER CASES: RUNNER ARCH VARIANT FIXTURE APPEND OUT
run_cases() {
	rc_arch=$1 rc_runner=$2
	printf '%s\n' "$3" | while IFS='	' read -r name variant fixture append mode status logs; do
		[ "$append" = - ] && append=
		[ "$variant" = base ] || variant=$(check_variant "$rc_arch")
		kernel=$(kernel_image "$rc_arch" "$variant")
		if [ ! -f "$kernel" ]; then
			not_ok "$rc_arch $name: no $variant kernel image (make kernel-$rc_arch-$variant)"
			continue
		fi
		out=$work/out/$rc_arch-$name.txt
		"$rc_runner" "$rc_arch" "$kernel" "$fixture" "$append" "$out"
		rc=$?
		old_ifs=$IFS
		IFS='|'
		# shellcheck disable=SC2086 # split the regexes on '|'
		set -- $logs
		IFS=$old_ifs
		assert_case "$rc_arch" "$name" "$out" "$rc" "$mode" "$status" "$@"
	done
}

# A real dracut initramfs, the real root on virtio-blk.
boot_dracut() {
	mkroot=$work/root-$1-$3.img
	if ! "$T/mkroot.sh" "$1" "$mkroot" "$3" >"$5.mkroot" 2>&1; then
		cat "$5.mkroot" >"$5"
		return 125
	fi
	"$RIG/guest-run.sh" --arch "$1" --kernel "$2" --initrd "$work/dracut-$1.img" \
		--disk "$mkroot" --timeout 180 --log "$5.console" \
		--append "root=/dev/vda rw rootfstype=ext4 rd.skipfsck $4" >"$5" 2>"$5.err"
}

# check_dracut_image ARCH: the module's files are in the initramfs.
check_dracut_image() {
	list=$(lsinitrd "$work/dracut-$1.img" 2>/dev/null)
	missing=
	for f in usr/sbin/preempt-policy etc/preempt-policy.conf \
		hooks/pre-pivot/60-preempt-policy-hook.sh \
		preempt-policy/preempt-policy-lib.sh; do
		printf '%s\n' "$list" | grep -q "$f\$" || missing="$missing $f"
	done
	if [ -z "$missing" ]; then
		ok "$1 dracut builds an initramfs with 55preempt-policy (binary, policy, pre-pivot hook)"
	else
		not_ok "$1 dracut initramfs lacks:$missing"
	fi
}

# arm64: the rig's busybox initramfs, the same hook and library sourced
# by tests/initrd/guest/run.
boot_busybox() {
	"$RIG/guest-run.sh" --arch arm64 --kernel "$2" --timeout 120 \
		--log "$5.console" --append "pp_root=$3 $4" "$work/guest-arm64" \
		>"$5" 2>"$5.err"
}

bin=$work/x86_64/preempt-policy
if ! out=$("$T/build-policy.sh" x86_64 "$bin" 2>&1); then
	not_ok "x86_64 static preempt-policy builds (make -C policy static)"
	diag "$out"
elif ! command -v dracut >/dev/null; then
	skip "x86_64 dracut initramfs" "dracut is not installed"
elif ! out=$("$T/mkdracut.sh" "$work/dracut-x86_64.img" "$bin" "$T/initrd-conf" 2>&1); then
	not_ok "x86_64 dracut builds an initramfs with 55preempt-policy"
	diag "$out"
else
	check_dracut_image x86_64
	run_cases x86_64 boot_dracut "$cases"
fi

bin=$work/arm64/preempt-policy
if ! out=$("$T/build-policy.sh" arm64 "$bin" 2>&1); then
	not_ok "arm64 static preempt-policy builds (make -C policy static CC=aarch64-linux-gnu-gcc)"
	diag "$out"
else
	g=$work/guest-arm64
	rm -rf "$g"
	mkdir -p "$g"
	cp $T/guest/run $T/guest/fault-crash \
		$T/guest/fault-hang initrd/lib/preempt-policy-lib.sh \
		initrd/dracut/55preempt-policy/preempt-policy-hook.sh "$bin" "$g/"
	cp initrd/initramfs-tools/scripts/init-bottom/preempt-policy \
		"$g/init-bottom-preempt-policy"
	cp -a $T/roots $T/initrd-conf "$g/"
	run_cases arm64 boot_busybox "$cases
$arm64_faults"

	# And a real arm64 dracut initramfs: dracut --sysroot with arm64
	# Debian packages, libraries found by cross-ldd.sh (mkdracut.sh).
	# Two cases; the busybox ones above cover the rest on arm64.
	if ! command -v dracut >/dev/null; then
		skip "arm64 dracut initramfs" "dracut is not installed"
	elif ! out=$("$T/mkdracut.sh" --arch arm64 "$work/dracut-arm64.img" "$bin" \
		"$T/initrd-conf" 2>&1); then
		not_ok "arm64 dracut --sysroot builds an initramfs with 55preempt-policy"
		diag "$(printf '%s\n' "$out" | tail -n 20)"
	else
		check_dracut_image arm64
		run_cases arm64 boot_dracut "$(printf '%s\n' "$cases" |
			grep -E '^(picks-none|sysctl-pool|unpatched-kernel)	' |
			sed 's/^/dracut-/')"
	fi
fi
