#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# preempt-policy builds with -Wall -Wextra -Werror and has no clang-tidy or
# cppcheck findings; it also builds as a static binary for each guest.
. tests/lib/common.sh

suite_run() {
	check "preempt-policy builds with -Wall -Wextra -Werror" make -s -C policy
	check "preempt-policy is clean under clang-tidy and cppcheck" make -s -j2 -C policy lint
	for arch in arm64 x86_64; do
		out=$BUILD/policy-$arch
		mkdir -p "$out"
		check "preempt-policy builds static for $arch" \
			make -s -C policy static CC="$(guest_cc "$arch")" OUT="$out/preempt-policy"
	done
}

suite_main
