# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# boot_report ARCH VARIANT APPEND: boot a kernel with tests/boot/guest.sh and
# print its report (debugfs:, sysfs:, dmesg: lines). Needs common.sh.

boot_report() {
	"$RIG/launch-vm.sh" --arch "$1" --kernel "$(kernel_image "$1" "$2")" \
		--append "$3" --timeout 120 "$TOP/tests/boot"
}

# current_mode REPORT: the mode in parentheses on the debugfs: line.
current_mode() {
	printf '%s\n' "$1" | sed -n 's/^debugfs: .*(\([a-z]*\)).*/\1/p'
}
