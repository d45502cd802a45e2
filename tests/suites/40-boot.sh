#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot the patched kernel on both architectures, and the kernel without the
# series' option where make check has one (control_variant: Debian's own
# x86_64 kernel, the patched tree with the option off on arm64, or the
# unpatched build), and report the preemption mode each runs in. The
# kernel without the option must reject preempt=none: that is the
# regression this project exists for.
#
# Parity: the patched tree built with PREEMPT_DYNAMIC_ALL_MODES off must
# behave as upstream (parity_arches): preempt=none refused with upstream's
# warning, full and lazy listed, no /sys/kernel/preempt/mode, and debugfs
# writes taken or refused as upstream's sched_dynamic_write() takes or
# refuses them (tests/parity/guest.sh). Where make check boots an
# upstream kernel (Debian's own on x86_64, or the unpatched build), the
# same guest on it shows that the expectation is upstream's behaviour.
. tests/lib/common.sh
. tests/lib/boot.sh

# upstream_parity: upstream's answers to tests/parity/guest.sh, booted
# with preempt=none on a lazy-capable architecture whose build default is
# lazy, as read in the pinned tree: kernel/sched/core.c
# (setup_preempt_mode() warns about a mode sched_dynamic_mode() does not
# know, none and voluntary compiled out with ARCH_HAS_PREEMPT_LAZY;
# preempt_dynamic_init() then logs the default) and kernel/sched/debug.c
# (sched_dynamic_show() lists full and lazy, each followed by a blank;
# sched_dynamic_write() cuts a write to 15 bytes, strstrip()s it and
# returns the count it used). <LF> is a newline the probe wrote.
upstream_parity='kernel log: Dynamic Preempt: unsupported mode: none|Dynamic Preempt: lazy
debugfs sched/preempt: "full (lazy) "
/sys/kernel/preempt/mode: absent
write "none" in lazy: -EINVAL, mode lazy
write "voluntary" in lazy: -EINVAL, mode lazy
write " full" in lazy: 5, mode full
write "full " in lazy: 5, mode full
write "lazy<LF>" in full: 5, mode lazy
write "full            " in lazy: 15, mode full'

suite_setup() {
	parity=$(mktemp -d)
	for arch in arm64 x86_64; do
		mkdir -p "$parity/$arch"
		cp tests/parity/guest.sh "$parity/$arch/"
		need "$arch build tests/parity/write-mode.c" "$(guest_cc "$arch")" -static -O2 \
			-Wall -Wextra -Werror -o "$parity/$arch/write-mode" tests/parity/write-mode.c
	done
}

suite_cleanup() {
	rm -rf "${parity:-}"
}

# parity ARCH VARIANT WHO: boot ARCH's VARIANT with preempt=none and the
# parity guest; one TAP line per answer of upstream_parity, "ARCH WHO:".
parity() {
	p_kernel=$(kernel_image "$1" "$2")
	if [ ! -f "$p_kernel" ]; then
		not_ok "$1 $3 answers as upstream (no kernel $p_kernel; see the build suite)"
		return
	fi
	p_rc=0
	p_report=$("$RIG/launch-vm.sh" --arch "$1" --kernel "$p_kernel" --append preempt=none \
		--timeout 120 "$parity/$1" 2>"$parity/$1-$2.err") || p_rc=$?
	if [ "$p_rc" -ne 0 ]; then
		not_ok "$1 $3 answers as upstream ($(vm_says "$p_rc"))"
		diag "$p_report" "$(tail -n 20 "$parity/$1-$2.err")"
		return
	fi
	while IFS= read -r p_want; do
		p_what=${p_want%%: *}
		# Through the environment: awk -v would turn the \n of a
		# probe into a newline.
		p_got=$(printf '%s\n' "$p_report" | PARITY_KEY="$p_what: " \
			awk 'index($0, ENVIRON["PARITY_KEY"]) == 1 { print; exit }')
		if [ "$p_got" = "$p_want" ]; then
			ok "$1 $3 as upstream: $p_want"
		else
			not_ok "$1 $3 as upstream: $p_what: got '${p_got#"$p_what: "}', want '${p_want#"$p_what: "}'"
		fi
	done <<EOF
$upstream_parity
EOF
}

suite_run() {
	for arch in arm64 x86_64; do
		variants=$(check_variant "$arch")
		if unpatched_kernel "$arch" "$arch unpatched kernel rejects preempt=none"; then
			variants="$UNPATCHED_VARIANT $variants"
		fi
		for variant in $variants; do
			if [ ! -f "$(kernel_image "$arch" "$variant")" ]; then
				not_ok "$arch $variant boots (no kernel image; see the build suite)"
				continue
			fi
			if report=$(boot_report "$arch" "$variant" ""); then
				mode=$(current_mode "$report")
				if [ "$mode" = lazy ]; then
					ok "$arch $variant boots, default mode lazy ($(printf '%s\n' "$report" | sed -n 's/^debugfs: //p'))"
				else
					not_ok "$arch $variant boots, default mode lazy (got '$mode')"
					diag "$report"
				fi
			else
				rc=$?
				not_ok "$arch $variant boots (verdict $(vm_verdict "$rc"), exit $rc)"
				diag "$report"
				continue
			fi
			rc=0
			report=$(boot_report "$arch" "$variant" "preempt=none") || rc=$?
			if [ "$rc" -ne 0 ]; then
				not_ok "$arch $variant boots with preempt=none (verdict $(vm_verdict "$rc"), exit $rc)"
				diag "$report"
				continue
			fi
			mode=$(current_mode "$report")
			case "$variant" in
			base | debian | off)
				if [ "$mode" = lazy ] && printf '%s\n' "$report" |
					grep -q 'unsupported mode: none'; then
					ok "$arch $(control_name "$variant") rejects preempt=none and stays lazy (the regression)"
				else
					not_ok "$arch $(control_name "$variant") rejects preempt=none (mode '$mode')"
					diag "$report"
				fi
				;;
			*)
				if [ "$mode" = none ]; then
					ok "$arch patched ($variant) kernel runs preempt=none"
				else
					not_ok "$arch patched ($variant) kernel runs preempt=none (mode '$mode')"
					diag "$report"
				fi
				;;
			esac
		done
	done

	# Parity of the option-off build with upstream, and the upstream
	# kernel make check boots, where there is one, on the same guest.
	for arch in arm64 x86_64; do
		reference=$(control_variant "$arch")
		case "$reference" in
		base | debian)
			parity "$arch" "$reference" "$(control_name "$reference")"
			;;
		esac
		case " $(parity_arches) " in
		*" $arch "*) parity "$arch" off "$(control_name off)" ;;
		esac
	done

	# The rig must not let a kernel splat pass: a guest script that succeeds
	# after a WARNING-shaped record in the kernel log must come back as 126.
	arch=arm64
	kernel=$(kernel_image $arch "$(check_variant $arch)")
	if [ -f "$kernel" ]; then
		splat=$(mktemp -d)
		printf '#!/bin/sh\necho "<4>WARNING: CPU: 0 PID: 1 at rig-selftest" >/dev/kmsg\nexit 0\n' \
			>"$splat/guest.sh"
		chmod 0755 "$splat/guest.sh"
		rc=0
		"$RIG/launch-vm.sh" --arch $arch --kernel "$kernel" --timeout 120 "$splat" \
			>/dev/null 2>&1 || rc=$?
		if [ "$rc" -eq 126 ]; then
			ok "rig fails a passing guest whose kernel log has a splat (exit 126)"
		else
			not_ok "rig fails a passing guest whose kernel log has a splat (exit $rc, want 126)"
		fi
		rm -rf "$splat"
	fi
}

suite_main
