#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every shell script of the project is shellcheck clean: the rig, the suites,
# the guest scripts and the initramfs hooks (POSIX sh where dracut sources
# them).
. tests/lib/common.sh

# shell_scripts: the tracked and new files that are shell, by name or by
# their #! line.
shell_scripts() {
	git ls-files -co --exclude-standard |
		while IFS= read -r f; do
			[ -f "$f" ] || continue
			case "$f" in
			*.sh) echo "$f" ;;
			*)
				head -n 1 "$f" 2>/dev/null |
					grep -Eq '^#!.*(/|env )(ba|da|busybox )?sh' && echo "$f"
				;;
			esac
		done
}

suite_setup() {
	files=$(shell_scripts)
	[ -n "$files" ] || bail "no shell script found (git ls-files)"
}

suite_run() {
	for f in $files; do
		check "shellcheck $f" shellcheck -x "$f"
	done
}

suite_main
