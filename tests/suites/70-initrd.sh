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

spdx_missing() {
	find initrd tests/initrd tests/suites/70-initrd.sh -type f |
		while read -r f; do
			grep -q 'SPDX-License-Identifier: GPL-2.0' "$f" || echo "$f"
		done
}

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
		why="$(vm_says "$a_rc") (boot did not reach the root's init)"
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
		# The real images mount the root read-only, as distributions
		# do (the busybox guest has no root device).
		if [ "${rc_image:-busybox}" != busybox ] &&
			! grep -q '^root-at-init: ro$' "$a_file"; then
			why="${why:+$why; }the root was not read-only when its init started"
		fi
		# The systemd-based image runs the hook in
		# dracut-pre-pivot.service: the console shows it starting
		# before the first preempt-policy line and finishing after.
		if [ "${rc_image:-}" = dracut-systemd ] &&
			! sed 's/\x1b\[[0-9;]*m//g' "$a_file.console" | awk '
				/Starting .*dracut-pre-pivot/ && !s { s = NR }
				/preempt-policy: / && !p { p = NR }
				/Finished .*dracut-pre-pivot/ { f = NR }
				END { exit !(s && p && f && s < p && p < f) }'; then
			why="${why:+$why; }the preempt-policy lines are not inside dracut-pre-pivot.service"
		fi
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
# The built-in policy has no rule, so a switch to none needs the root to
# opt in (picks-none: a drop-in in its /etc/preempt-policy.d), or a policy
# copy in the initramfs that does (tests/initrd/initrd-conf, rule
# initrd-pg-shm; used where the root has no policy: sysctl-pool,
# unpatched-kernel). VARIANT base is the kernel without the series'
# option, the arch's negative control (control_variant: on arm64 by
# default the patched tree with the option off, which cannot switch to
# none either; Debian's own kernel on x86_64).
cases="picks-none	patched	pg-optin	-	none	0	switched from lazy to none: rule pg-shm-without-hugepages (/sysroot/etc/preempt-policy.d/50-postgresql.conf:4)
keeps-default	patched	empty	-	lazy	0	keeping lazy: no rule matched
sysctl-pool	patched	pg-sysctl	-	lazy	0	keeping lazy: no rule matched.*hugetlb pool predicted from /etc/sysctl.d/30-pg.conf:2 (2MiB: 4200 pages, live 0)|using the initramfs copy
admin-full-wins	patched	pg-big	preempt=full	full	admin	preempt=full on the command line is the admin's choice; not run
policy-off	patched	pg-big	preempt.policy=off	lazy	off	disabled by preempt.policy=off; not run
policy-list-off	patched	pg-big	preempt.policy=debug,off	lazy	off	disabled by preempt.policy=debug,off; not run
broken-config	patched	bad-policy	-	lazy	2	unknown fact|bad input (exit 2)
unpatched-kernel	base	pg-big	-	lazy	3	cannot apply none|kernel cannot switch to the chosen mode|using the initramfs copy
root-policy-wins-debug	base	force-full	preempt.policy=debug	full	0	switched from lazy to full: rule site-full|current mode:"
# The cases only the busybox guest can set up. The built-in policy itself:
# no copy in the initramfs and none on the root, an 8GB cluster in 4 KiB
# pages: the kernel keeps lazy.
busybox_only="builtin-keeps	patched	pg-big	pp_initrd_policy=no	lazy	0	keeping lazy: no rule matched; default (built-in:5)
tool-crash	base	pg-big	pp_fault=crash	lazy	139	crashed (signal 11)
tool-hang	base	pg-big	pp_fault=hang	lazy	142	timed out after 3 s and was killed
initramfs-tools-unpatched	base	pg-big	pp_flavour=initramfs-tools	lazy	3	cannot apply none|kernel cannot switch to the chosen mode
initramfs-tools-root-policy	base	force-full	pp_flavour=initramfs-tools	full	0	switched from lazy to full: rule site-full
initramfs-tools-off	base	force-full	pp_flavour=initramfs-tools preempt.policy=off	lazy	off	disabled by preempt.policy=off
initramfs-tools-admin	base	force-full	pp_flavour=initramfs-tools preempt=full	full	admin	preempt=full on the command line is the admin's choice"

# case_selected ARCH IMAGE NAME: INITRD_CASES (an ERE, for work on a few
# cases; make check boots all) matches "ARCH IMAGE NAME": IMAGE is the
# initramfs the case boots (busybox, dracut, dracut-systemd,
# dracut-cmdline, mkinitramfs), NAME the case's name in the tables above.
case_selected() {
	[ -z "${INITRD_CASES:-}" ] ||
		printf '%s %s %s\n' "$1" "$2" "$3" | grep -Eq "$INITRD_CASES"
}

# any_selected ARCH IMAGE CASES: INITRD_CASES selects one of CASES (an
# image no selected case boots is not built).
any_selected() {
	as_arch=$1 as_image=$2
	for as_name in $(printf '%s\n' "$3" | cut -f 1); do
		case_selected "$as_arch" "$as_image" "$as_name" && return 0
	done
	return 1
}

# run_cases ARCH IMAGE RUNNER CASES [PREFIX]: RUNNER ARCH VARIANT FIXTURE
# APPEND OUT boots each case; its TAP line is "ARCH PREFIXNAME".
run_cases() {
	rc_arch=$1 rc_image=$2 rc_runner=$3 rc_prefix=${5:-}
	printf '%s\n' "$4" | while IFS='	' read -r name variant fixture append mode status logs; do
		if ! case_selected "$rc_arch" "$rc_image" "$name"; then
			skip "$rc_arch $rc_prefix$name" \
				"'$rc_arch $rc_image $name' not selected by INITRD_CASES='$INITRD_CASES'"
			continue
		fi
		[ "$append" = - ] && append=
		if [ "$variant" = base ]; then
			unpatched_kernel "$rc_arch" "$rc_arch $rc_prefix$name" || continue
			variant=$UNPATCHED_VARIANT
			# Debian's kernel has virtio-blk as a module, which the
			# root-device images do not carry.
			if [ "$variant" = debian ] && [ "$rc_image" != busybox ]; then
				skip "$rc_arch $rc_prefix$name" \
					"the $rc_image image boots a root device: needs the unpatched build (UNPATCHED_ARCHES=$rc_arch)"
				continue
			fi
		else
			variant=$(check_variant "$rc_arch")
		fi
		kernel=$(kernel_image "$rc_arch" "$variant")
		if [ ! -f "$kernel" ]; then
			not_ok "$rc_arch $rc_prefix$name: no $variant kernel image (make kernel-$rc_arch-$variant)"
			continue
		fi
		out=$work/out/$rc_arch-$rc_prefix$name.txt
		t0=$(date +%s)
		"$rc_runner" "$rc_arch" "$kernel" "$fixture" "$append" "$out"
		rc=$?
		diag "$rc_arch $rc_prefix$name: booted in $(($(date +%s) - t0)) s"
		old_ifs=$IFS
		IFS='|'
		# shellcheck disable=SC2086 # split the regexes on '|'
		set -- $logs
		IFS=$old_ifs
		assert_case "$rc_arch" "$rc_prefix$name" "$out" "$rc" "$mode" "$status" "$@"
	done
}

# boot_root INITRD EXTRA ARCH KERNEL ROOT APPEND OUT: a real initramfs
# image, the real root on virtio-blk, mounted read-only (root=... ro) as
# distributions do; EXTRA goes on the command line before APPEND.
boot_root() {
	br_initrd=$1 br_extra=$2
	shift 2
	mkroot=$work/root-$1-$3.img
	if ! "$T/mkroot.sh" "$1" "$mkroot" "$3" >"$5.mkroot" 2>&1; then
		cat "$5.mkroot" >"$5"
		return 125
	fi
	"$RIG/launch-vm.sh" --arch "$1" --kernel "$2" --initrd "$br_initrd" \
		--disk "$mkroot" --timeout 180 --log "$5.console" \
		--append "root=/dev/vda ro rootfstype=ext4 $br_extra $4" >"$5" 2>"$5.err"
}

# A real dracut initramfs: dracut-ARCH.img, or dracut-ARCH-FLAVOUR.img
# for run_cases' IMAGE dracut-FLAVOUR.
boot_dracut() {
	boot_root "$work/dracut-$1${rc_image#dracut}.img" rd.skipfsck "$@"
}

# check_dracut_image ARCH [FLAVOUR]: the module's files are in the
# initramfs dracut-ARCH[FLAVOUR].img.
check_dracut_image() {
	list=$(lsinitrd "$work/dracut-$1${2:-}.img" 2>/dev/null)
	missing=
	for f in usr/sbin/preempt-policy etc/preempt-policy.conf \
		hooks/pre-pivot/60-preempt-policy-hook.sh \
		preempt-policy/preempt-policy-lib.sh; do
		printf '%s\n' "$list" | grep -q "$f\$" || missing="$missing $f"
	done
	if [ -z "$missing" ]; then
		ok "$1 dracut${2:-} builds an initramfs with 55preempt-policy (binary, policy, pre-pivot hook)"
	else
		not_ok "$1 dracut${2:-} initramfs lacks:$missing"
	fi
}

# A real initramfs-tools image (tests/initrd/mkinitramfs-tools.sh).
boot_mkinitramfs() {
	boot_root "$work/initramfs-tools-$1.img" "" "$@"
}

# The rig's busybox initramfs, the same hook and library sourced by
# tests/initrd/guest/guest.sh (guest_busybox_dir).
boot_busybox() {
	"$RIG/launch-vm.sh" --arch "$1" --kernel "$2" --timeout 120 \
		--log "$5.console" --append "pp_root=$3 $4" "$work/guest-$1" \
		>"$5" 2>"$5.err"
}

# The cases of the other images: three of the table on the arm64 dracut
# image (the busybox ones cover the rest on arm64), the root opting in
# to the PostgreSQL rule on the systemd-based dracut and mkinitramfs
# images, and the dracut command line from /etc/cmdline.d.
dracut_arm64_cases=$(printf '%s\n' "$cases" |
	grep -E '^(picks-none|sysctl-pool|unpatched-kernel)	')
systemd_cases="picks-none	patched	pg-optin	-	none	0	switched from lazy to none: rule pg-shm-without-hugepages (/sysroot/etc/preempt-policy.d/50-postgresql.conf:4)"
cmdline_cases="cmdline.d-off	patched	pg-big	-	lazy	off	disabled by preempt.policy=debug,off; not run"
mkinitramfs_cases="picks-none	patched	pg-optin	-	none	0	switched from lazy to none: rule pg-shm-without-hugepages (/root/etc/preempt-policy.d/50-postgresql.conf:4)"

# not_selected DESC: the TAP line of an image no selected case boots.
not_selected() {
	skip "$1" "no case of it selected by INITRD_CASES='$INITRD_CASES'"
}

suite_setup() {
	mkdir -p "$work/out"
	# The static tools the images carry (13-policy-lint checks their build).
	if [ "$(uname -m)" = x86_64 ]; then
		need "x86_64 static preempt-policy builds (make -C policy static)" \
			"$T/build-policy.sh" x86_64 "$work/x86_64/preempt-policy"
	fi
	need "arm64 static preempt-policy builds (make -C policy static CC=$(guest_cc arm64))" \
		"$T/build-policy.sh" arm64 "$work/arm64/preempt-policy"
}

# initrd_lint: shellcheck, SPDX lines, the opt-in drop-in of the guest roots.
initrd_lint() {
	check "initrd scripts are shellcheck clean (POSIX sh)" shellcheck -s sh \
		initrd/lib/preempt-policy-lib.sh \
		initrd/dracut/55preempt-policy/preempt-policy-hook.sh \
		initrd/initramfs-tools/hooks/preempt-policy \
		initrd/initramfs-tools/scripts/init-bottom/preempt-policy \
		$T/*.sh $T/guest/guest.sh tests/rig/guest-init $T/guest/fault-* \
		tests/suites/70-initrd.sh

	check "dracut's module-setup.sh is shellcheck clean (bash, as dracut runs it)" \
		shellcheck -s bash initrd/dracut/55preempt-policy/module-setup.sh

	missing=$(spdx_missing)
	if [ -z "$missing" ]; then
		ok "SPDX-License-Identifier in every initrd file"
	else
		not_ok "SPDX-License-Identifier in every initrd file"
		diag "missing: $missing"
	fi

	# The boot cases opt in to the PostgreSQL rules the way the shipped
	# policy's comment says: its commented "#rule" lines, uncommented, in a
	# drop-in of the guest root (fixture pg-optin).
	want=$(sed -n 's/^#\(rule \)/\1/p' policy/preempt-policy.conf)
	got=$(grep '^rule ' $T/roots/pg-optin/etc/preempt-policy.d/50-postgresql.conf)
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		ok "the guest root's opt-in drop-in holds the shipped policy's commented rules"
	else
		not_ok "the guest root's opt-in drop-in differs from the shipped policy's commented rules"
		diag "drop-in: $got" "shipped: $want"
	fi
}

# initrd_install: make install/uninstall layout, clean never touching the cache.
initrd_install() {
	# make install lays the files out where dracut, systemd and
	# initramfs-tools look (their directories from pkg-config, whatever
	# PREFIX says), with the paths filled in.
	dirs=$(make -s -C initrd print-dirs PREFIX=/usr/local)
	DRACUTDIR=$(printf '%s\n' "$dirs" | sed -n 's/.*DRACUTDIR=\([^ ]*\).*/\1/p')
	UNITDIR=$(printf '%s\n' "$dirs" | sed -n 's/.*UNITDIR=\([^ ]*\).*/\1/p')
	want_dracut=$(pkg-config --variable=dracutmodulesdir dracut 2>/dev/null)
	want_unit=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
	if [ "$DRACUTDIR" = "${want_dracut:-/usr/lib/dracut/modules.d}/55preempt-policy" ] &&
		[ "$UNITDIR" = "${want_unit:-/usr/lib/systemd/system}" ]; then
		ok "PREFIX=/usr/local leaves the dracut and systemd directories to pkg-config ($DRACUTDIR, $UNITDIR)"
	else
		not_ok "PREFIX=/usr/local moved the boot directories: $dirs"
	fi
	dest=$work/destdir
	rm -rf "$dest"
	if out=$(make -s install DESTDIR="$dest" PREFIX=/usr/local 2>&1); then
		bad=
		for f in "$DRACUTDIR/module-setup.sh" "$DRACUTDIR/preempt-policy-hook.sh" \
			"$DRACUTDIR/preempt-policy-lib.sh" "$UNITDIR/preempt-policy.service" \
			"$UNITDIR/preempt-policy-check.service" "$UNITDIR/preempt-policy-check.timer" \
			"$UNITDIR/postgresql@.service.d/preempt-policy.conf" \
			/usr/share/initramfs-tools/hooks/preempt-policy \
			/usr/share/initramfs-tools/scripts/init-bottom/preempt-policy \
			/usr/local/lib/preempt-policy/preempt-policy-lib.sh \
			/usr/local/sbin/preempt-policy /etc/preempt-policy.conf \
			/usr/local/share/man/man8/preempt-policy.8; do
			[ -f "$dest$f" ] || bad="$bad missing:$f"
		done
		for f in "$DRACUTDIR/module-setup.sh" \
			/usr/share/initramfs-tools/hooks/preempt-policy \
			/usr/share/initramfs-tools/scripts/init-bottom/preempt-policy; do
			[ -x "$dest$f" ] || bad="$bad not-executable:$f"
		done
		if grep -rl '@[A-Z]*DIR@' "$dest" >/dev/null; then
			bad="$bad unsubstituted:$(grep -rl '@[A-Z]*DIR@' "$dest" | tr '\n' ' ')"
		fi
		grep -q '/usr/local/sbin' "$dest$DRACUTDIR/module-setup.sh" ||
			bad="$bad module-setup.sh-without-/usr/local/sbin"
		if [ -z "$bad" ]; then
			ok "make install DESTDIR PREFIX=/usr/local: dracut, systemd and initramfs-tools layout"
		else
			not_ok "make install layout:$bad"
		fi
	else
		not_ok "make install DESTDIR PREFIX=/usr/local"
		diag "$out"
	fi

	# An edited /etc/preempt-policy.conf survives install and uninstall;
	# uninstall removes every other file.
	echo "rule site: cpus > 1 -> full" >>"$dest/etc/preempt-policy.conf"
	cp "$dest/etc/preempt-policy.conf" "$work/edited.conf"
	d2=$work/destdir2
	rm -rf "$d2"
	cp -a "$dest" "$d2"
	if make -s install DESTDIR="$d2" PREFIX=/usr/local >/dev/null 2>&1 &&
		cmp -s "$d2/etc/preempt-policy.conf" "$work/edited.conf" &&
		[ -f "$d2/etc/preempt-policy.conf.dist" ] &&
		make -s uninstall DESTDIR="$d2" PREFIX=/usr/local >/dev/null 2>&1 &&
		[ "$(find "$d2" -type f)" = "$d2/etc/preempt-policy.conf" ] &&
		cmp -s "$d2/etc/preempt-policy.conf" "$work/edited.conf"; then
		ok "make install keeps an edited /etc/preempt-policy.conf (default as .dist); uninstall removes the rest"
	else
		not_ok "make install/uninstall and an edited /etc/preempt-policy.conf: left $(find "$d2" -type f | tr '\n' ' ')"
	fi

	# make builds user space only; clean and distclean never touch the cache.
	if make -n all 2>&1 | grep -q 'build-kernel\|kernel-'; then
		not_ok "make (all) builds user space only"
	else
		ok "make (all) builds user space only: $(make -n all 2>&1 | head -n 1)"
	fi
	scratch=$work/clean-scratch
	rm -rf "$scratch"
	mkdir -p "$scratch/cache"
	: >"$scratch/cache/marker"
	if make -n distclean CACHE="$scratch/cache" BUILD="$scratch/build" 2>/dev/null |
		grep -E '(^|[ ;&|])rm ' | grep -qF "$scratch/cache"; then
		not_ok "make distclean would delete the cache"
	elif make -s clean CACHE="$scratch/cache" BUILD="$scratch/cache" >/dev/null 2>&1 ||
		[ ! -f "$scratch/cache/marker" ]; then
		not_ok "make clean with BUILD holding the cache removed it"
	else
		ok "make clean and distclean never delete the cache (a BUILD holding it is refused)"
	fi
}

initrd_dracut_check() {
	# check() of the installed module-setup.sh, as dracut calls it (bash,
	# dracut's variables): an optional module (255: only when asked for),
	# in hostonly images where the host has the tool (0), never in a kdump
	# image or without the tool (1). The tool is looked up below the sysroot.
	ms=$dest$DRACUTDIR/module-setup.sh
	sr=$work/check-sysroot
	rm -rf "$sr"
	mkdir -p "$sr/usr/sbin"
	cp /bin/true "$sr/usr/sbin/preempt-policy"
	got=
	for how in generic hostonly kdump no-tool user-bin user-bin-missing; do
		# shellcheck disable=SC2016 # expanded by bash
		r=$(dracutsysrootdir=$sr bash -c '
			. "$1" || exit 99
			case $2 in
			hostonly) hostonly=-h ;;
			kdump) hostonly=-h IN_KDUMP=1 ;;
			no-tool) dracutsysrootdir=$dracutsysrootdir/nothing ;;
			user-bin) preempt_policy_bin=/usr/sbin/preempt-policy ;;
			user-bin-missing) preempt_policy_bin=/usr/bin/preempt-policy ;;
			esac
			check
			echo $?' check "$ms" "$how" 2>&1)
		got="$got $how=$r"
	done
	want=" generic=255 hostonly=0 kdump=1 no-tool=1 user-bin=255 user-bin-missing=1"
	if [ "$got" = "$want" ]; then
		ok "dracut check(): optional (255), hostonly 0, never kdump, tool looked up below the sysroot"
	else
		not_ok "dracut check():$got; want$want"
	fi
}

# initrd_unit: the systemd units: verify, exposure, conditions, ExecStart.
initrd_unit() {
	unit=$dest$UNITDIR/preempt-policy.service
	if command -v systemd-analyze >/dev/null; then
		check "preempt-policy.service, preempt-policy-check.service and .timer pass systemd-analyze verify (no line ignored)" \
			make -s -C initrd check
		# The hardening: an exposure level below 4 (preempt-policy.service's
		# was 9.5 UNSAFE).
		for u in preempt-policy.service preempt-policy-check.service; do
			level=$(systemd-analyze security --offline=yes "$dest$UNITDIR/$u" 2>/dev/null |
				sed -n "s/.*Overall exposure level for $u: \([0-9.]*\).*/\1/p")
			if [ -n "$level" ] && awk -v l="$level" 'BEGIN { exit !(l < 4) }'; then
				ok "$u: systemd-analyze security exposure $level (below 4)"
			else
				not_ok "$u: systemd-analyze security exposure '${level:-none}', want below 4"
			fi
		done
	else
		skip "preempt-policy.service passes systemd-analyze verify" "no systemd-analyze"
		skip "preempt-policy.service exposure below 4" "no systemd-analyze"
		skip "preempt-policy-check.service exposure below 4" "no systemd-analyze"
	fi
	# Conditions and order the decision depends on.
	missing=
	for l in 'ConditionVirtualization=!container' \
		'After=systemd-sysctl.service systemd-tmpfiles-setup.service' \
		'RuntimeDirectory=preempt-policy' 'TimeoutStartSec=10s' \
		'DeviceAllow=/dev/kmsg w' 'DevicePolicy=closed'; do
		grep -qxF "$l" "$unit" || missing="$missing '$l'"
	done
	if [ -z "$missing" ]; then
		ok "preempt-policy.service: not in containers, after sysctl and tmpfiles, own output directory, 10 s"
	else
		not_ok "preempt-policy.service lacks:$missing"
	fi

	# The unit's ExecStart, as installed, run by /bin/sh on a scratch tree
	# (PREEMPT_POLICY_PREFIX; the library hands it to the tool): its exit
	# status is the tool's, and it leaves this run's status, not an older one.
	execstart=$(sed -n "s/^ExecStart=\/bin\/sh -c '\(.*\)'\$/\1/p" "$unit" | sed 's/\$\$/$/g')
	sc=$work/unit-run
	rm -rf "$sc"
	mkdir -p "$sc/proc" "$sc/sys/kernel/preempt" "$sc/etc" "$sc/run/preempt-policy" "$sc/dev" "$sc/lib"
	echo "console=ttyS0" >"$sc/proc/cmdline"
	echo "full (lazy)" >"$sc/sys/kernel/preempt/mode"
	: >"$sc/dev/kmsg"
	echo stale >"$sc/run/preempt-policy/status"
	got=
	for want in 0 3 4; do
		printf '#!/bin/sh\nexit %s\n' "$want" >"$sc/tool"
		chmod +x "$sc/tool"
		# The installed library's path is in the command; run it from there.
		PREEMPT_POLICY_PREFIX=$sc PREEMPT_POLICY_STAGE=unit PREEMPT_POLICY_BIN=$sc/tool \
			PREEMPT_POLICY_TIMEOUT=5 \
			/bin/sh -c "$(printf '%s' "$execstart" | sed "s|/usr/local/lib/preempt-policy/|$dest/usr/local/lib/preempt-policy/|")"
		got="$got $?:$(cat "$sc/run/preempt-policy/status" 2>/dev/null)"
	done
	if [ "$got" = " 0:0 3:3 4:4" ] && grep -q 'preempt-policy: unit: writing the mode failed (exit 4)' "$sc/dev/kmsg"; then
		ok "preempt-policy.service's ExecStart exits with the tool's status and leaves it in /run/preempt-policy/status"
	else
		not_ok "preempt-policy.service's ExecStart: exit:status$got, want 0:0 3:3 4:4 and a unit: log line"
		diag "$(cat "$sc/dev/kmsg")"
	fi
}

# --- the hook sourced by real shells, /run broken ---------------------
# dash, bash as sh and busybox sh source the real dracut hook with /run
# read-only, full, a file, and the library missing, a directory or
# broken: each must reach its next line (tests/initrd/shell-faults.sh;
# user and mount namespaces, a scratch tree, nothing of the host's).
initrd_shell_faults() {
	if [ "$(uname -m)" != x86_64 ]; then
		skip "the hook sourced by dash, bash and busybox sh with /run broken" \
			"needs an x86_64 host for the static x86_64 tool"
	else
		"$T/shell-faults.sh" "$work/x86_64/preempt-policy"
	fi
}

# guests_x86_64_dracut: the shell dracut image, every case of the table.
guests_x86_64_dracut() {
	bin=$work/x86_64/preempt-policy
	if ! any_selected x86_64 dracut "$cases"; then
		not_selected "x86_64 dracut initramfs"
	elif [ ! -x "$bin" ]; then
		not_ok "x86_64 dracut initramfs: no static x86_64 preempt-policy"
	elif ! command -v dracut >/dev/null; then
		skip "x86_64 dracut initramfs" "dracut is not installed"
	elif ! out=$("$T/mkdracut.sh" "$work/dracut-x86_64.img" "$bin" "$T/initrd-conf" 2>&1); then
		not_ok "x86_64 dracut builds an initramfs with 55preempt-policy"
		diag "$out"
	else
		check_dracut_image x86_64
		run_cases x86_64 dracut boot_dracut "$cases"
	fi
}

# guest_busybox_dir ARCH: the busybox guest's directory, with ARCH's
# static tool.
guest_busybox_dir() {
	g=$work/guest-$1
	rm -rf "$g"
	mkdir -p "$g"
	cp $T/guest/guest.sh $T/guest/fault-crash \
		$T/guest/fault-hang initrd/lib/preempt-policy-lib.sh \
		initrd/dracut/55preempt-policy/preempt-policy-hook.sh \
		"$work/$1/preempt-policy" "$g/"
	cp initrd/initramfs-tools/scripts/init-bottom/preempt-policy \
		"$g/init-bottom-preempt-policy"
	cp -a $T/roots $T/initrd-conf "$g/"
}

# guests_busybox: every case of the table and the busybox-only ones in
# the arm64 busybox guest, those on the kernel without the series' option
# on arm64's control (control_variant: the option-off build, by default;
# skipped, with the reason, where arm64 has none); the latter in the
# x86_64 busybox guest too, on x86_64's (Debian's own kernel, by default).
guests_busybox() {
	all="$cases
$busybox_only"
	base=$(printf '%s\n' "$all" | awk -F '\t' '$2 == "base"')
	guest_busybox_dir arm64
	run_cases arm64 busybox boot_busybox "$all"
	if [ -z "$(control_variant x86_64)" ]; then
		skip "x86_64 busybox guest: the cases on the kernel without the series" \
			"no x86_64 kernel without the series (control_variant)"
	elif [ ! -x "$work/x86_64/preempt-policy" ]; then
		not_ok "x86_64 busybox guest: no static x86_64 preempt-policy"
	else
		guest_busybox_dir x86_64
		run_cases x86_64 busybox boot_busybox "$base"
	fi
}

# guests_arm64: the dracut, systemd-based dracut and /etc/cmdline.d images.
guests_arm64() {
	bin=$work/arm64/preempt-policy

	# And a real arm64 dracut initramfs: dracut --sysroot with arm64
	# Debian packages, libraries found by cross-ldd.sh (mkdracut.sh).
	if ! any_selected arm64 dracut "$dracut_arm64_cases"; then
		not_selected "arm64 dracut initramfs"
	elif ! command -v dracut >/dev/null; then
		skip "arm64 dracut initramfs" "dracut is not installed"
	elif ! out=$("$T/mkdracut.sh" --arch arm64 "$work/dracut-arm64.img" "$bin" \
		"$T/initrd-conf" 2>&1); then
		not_ok "arm64 dracut --sysroot builds an initramfs with 55preempt-policy"
		diag "$(printf '%s\n' "$out" | tail -n 20)"
	else
		check_dracut_image arm64
		run_cases arm64 dracut boot_dracut "$dracut_arm64_cases" dracut-
	fi
	# The systemd-based image on arm64 too (systemd from the arm64
	# sysroot): systemd as PID 1, the hook in dracut-pre-pivot.service.
	if ! any_selected arm64 dracut-systemd "$systemd_cases"; then
		not_selected "arm64 systemd-based dracut initramfs"
	elif ! command -v dracut >/dev/null; then
		skip "arm64 systemd-based dracut initramfs" "dracut is not installed"
	elif ! out=$("$T/mkdracut.sh" --systemd --arch arm64 \
		"$work/dracut-arm64-systemd.img" "$bin" "$T/initrd-conf" 2>&1); then
		not_ok "arm64 systemd-based dracut --sysroot initramfs builds"
		diag "$(printf '%s\n' "$out" | tail -n 20)"
	else
		check_dracut_image arm64 -systemd
		run_cases arm64 dracut-systemd boot_dracut "$systemd_cases" dracut-systemd-
	fi
	# The dracut way of reading the command line: getarg also reads
	# /etc/cmdline.d, where dracut --kernel-cmdline puts its words.
	if ! any_selected arm64 dracut-cmdline "$cmdline_cases"; then
		not_selected "arm64 dracut initramfs with /etc/cmdline.d"
	elif command -v dracut >/dev/null &&
		out=$("$T/mkdracut.sh" --arch arm64 --cmdline "preempt.policy=debug,off" \
			"$work/dracut-arm64-cmdline.img" "$bin" "$T/initrd-conf" 2>&1); then
		run_cases arm64 dracut-cmdline boot_dracut "$cmdline_cases" dracut-
	else
		not_ok "arm64 dracut initramfs with /etc/cmdline.d builds"
		diag "$(printf '%s\n' "$out" | tail -n 20)"
	fi
}

# A real initramfs-tools image (Debian 12's mkinitramfs, the build hook
# hooks/preempt-policy and init-bottom/preempt-policy): the hook's files
# are in it, and it boots the x86_64 patched kernel to the real root
# (mounted read-only) with the mode chosen before its init.
guests_x86_64_mkinitramfs() {
	bin=$work/x86_64/preempt-policy
	kernel=$(kernel_image x86_64 "$(check_variant x86_64)")
	if ! any_selected x86_64 mkinitramfs "$mkinitramfs_cases"; then
		not_selected "x86_64 initramfs-tools image (mkinitramfs)"
	elif [ "$(uname -m)" != x86_64 ] || [ ! -x "$bin" ]; then
		skip "x86_64 initramfs-tools image (mkinitramfs)" "needs an x86_64 host and the x86_64 tool"
	elif [ ! -f "${kernel%/arch/*}/.config" ]; then
		not_ok "x86_64 initramfs-tools image: no kernel config ${kernel%/arch/*}/.config (make kernel-x86_64-$(check_variant x86_64))"
	elif ! out=$("$T/mkinitramfs-tools.sh" "$work/initramfs-tools-x86_64.img" "$bin" \
		"${kernel%/arch/*}/.config" "$T/initrd-conf" 2>&1); then
		not_ok "x86_64 mkinitramfs builds an image with the preempt-policy hook"
		diag "$(printf '%s\n' "$out" | tail -n 20)"
	else
		list=$(zstd -dc "$work/initramfs-tools-x86_64.img" 2>/dev/null | cpio -it 2>/dev/null)
		missing=
		for f in usr/sbin/preempt-policy usr/lib/preempt-policy/preempt-policy-lib.sh \
			scripts/init-bottom/preempt-policy etc/preempt-policy.conf usr/sbin/run-init; do
			printf '%s\n' "$list" | grep -qx "$f" || missing="$missing $f"
		done
		if [ -z "$missing" ]; then
			ok "x86_64 mkinitramfs builds an image with the preempt-policy hook (binary, library, init-bottom script, policy)"
			# And it boots: initramfs-tools' own init (udevd, the root
			# mounted read-only by its local script, run-init) with the
			# hook in init-bottom, the root opting in to the PostgreSQL rule.
			run_cases x86_64 mkinitramfs boot_mkinitramfs "$mkinitramfs_cases" mkinitramfs-
		else
			not_ok "x86_64 mkinitramfs image lacks:$missing"
		fi
	fi
}

# The systemd-based dracut initramfs (Fedora, RHEL, SUSE): systemd is
# PID 1, udevd finds the disk, the root is mounted read-only by
# sysroot.mount, and the hook runs in dracut-pre-pivot.service. Booted
# once, the root opting in to the PostgreSQL rule (the test kernels have
# CGROUPS, FHANDLE and INOTIFY_USER, which systemd and udevd need).
guests_x86_64_systemd() {
	bin=$work/x86_64/preempt-policy
	if ! any_selected x86_64 dracut-systemd "$systemd_cases"; then
		not_selected "x86_64 systemd-based dracut initramfs"
	elif ! command -v dracut >/dev/null || [ ! -x "$bin" ]; then
		skip "x86_64 systemd-based dracut initramfs" "no dracut or no x86_64 tool"
	elif ! out=$("$T/mkdracut.sh" --systemd "$work/dracut-x86_64-systemd.img" "$bin" \
		"$T/initrd-conf" 2>&1); then
		not_ok "x86_64 systemd-based dracut initramfs builds"
		diag "$(printf '%s\n' "$out" | tail -n 20)"
	else
		check_dracut_image x86_64 -systemd
		list=$(lsinitrd "$work/dracut-x86_64-systemd.img" 2>/dev/null)
		missing=
		for f in usr/lib/systemd/systemd dracut-pre-pivot.service \
			bin/dracut-pre-pivot etc/initrd-release; do
			printf '%s\n' "$list" | grep -q "$f\( \|$\)" || missing="$missing $f"
		done
		if [ -z "$missing" ]; then
			ok "x86_64 systemd-based dracut initramfs: systemd, dracut-pre-pivot.service, initrd-release"
			run_cases x86_64 dracut-systemd boot_dracut "$systemd_cases" dracut-systemd-
		else
			not_ok "x86_64 systemd-based dracut initramfs lacks:$missing"
		fi
	fi
}

suite_run() {
	initrd_lint
	initrd_install
	initrd_dracut_check
	initrd_unit
	initrd_shell_faults
	guests_x86_64_dracut
	guests_busybox
	guests_arm64
	guests_x86_64_mkinitramfs
	guests_x86_64_systemd
}

suite_main
