#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot the patched kernel on both architectures, and the kernel without the
# series where make check has one (control_variant: Debian's own x86_64
# kernel, or the unpatched build), and report the preemption mode each
# runs in. The kernel without the series must reject preempt=none: that is
# the regression this project exists for.
. tests/lib/common.sh
. tests/lib/boot.sh

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
			base | debian)
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
