#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The report of a large shared memory object populated without huge pages
# (patches/mm) in QEMU on arm64 and x86_64: the series' own mm kselftest,
# tools/testing/selftests/mm/shmem_hugepage_warn.c, built from the patched
# tree (tests/hugewarn/). Each kind of shared memory above and below the
# threshold, once per object (a forking server is one report), hugetlb and
# THP that must not be reported, MADV_HUGEPAGE/MADV_NOHUGEPAGE, a runtime
# threshold and 0, the /proc/vmstat counter, the line's level and text.
# arm64 boots with the threshold set by its sysctl.vm. boot spelling,
# x86_64 with the default (the test checks either). The unpatched kernel
# must fail it, every test of it and nothing else: the fixture's setup
# finds no vm.shmem_hugepage_warn_bytes there. The option-off kernel
# (arm64's default control) carries the mm series, which is not behind
# the option, so it is no control here: arm64 has one only with
# UNPATCHED_ARCHES=arm64.
# HUGEWARN_KSRC: the tree to take the kselftest from (default: the patched
# tree, prepared here); 05-vm points it at a stand-in.
. tests/lib/common.sh

# HUGEWARN_ARCHES: the VM layer's self-test (05-vm) runs arm64 only.
arches=${HUGEWARN_ARCHES:-arm64 x86_64}

suite_setup() {
	ksrc=${HUGEWARN_KSRC:-}
	if [ -z "$ksrc" ]; then
		need "prepare the patched tree" make -s patched-tree
		ksrc=$CACHE/trees/patched
	fi
	for arch in $arches; do
		dir=$BUILD/hugewarn-$arch
		rm -rf "$dir"
		tests/hugewarn/build.sh "$arch" "$dir" "$ksrc" \
			>"$BUILD/hugewarn-build-$arch.log" 2>&1 ||
			bail "$arch build the shmem_hugepage_warn kselftest" \
				"$BUILD/hugewarn-build-$arch.log"
	done
	# The kselftest's tests, each of which must fail on the control.
	kselftest=$ksrc/tools/testing/selftests/mm/shmem_hugepage_warn.c
	hugewarn_tests=$(sed -n 's/^TEST_F\(_TIMEOUT\)\{0,1\}(hugewarn, \([A-Za-z0-9_]*\)[,)].*/\2/p' \
		"$kselftest" 2>/dev/null)
	[ -n "$hugewarn_tests" ] ||
		bail "find the TEST_F(hugewarn, ...) or TEST_F_TIMEOUT(hugewarn, ...) tests in $kselftest"
}

suite_run() {
	for arch in $arches; do
		dir=$BUILD/hugewarn-$arch
		patched=$(kernel_image "$arch" "$(check_variant "$arch")")
		if [ ! -f "$patched" ]; then
			not_ok "$arch hugewarn tests (no patched kernel; see the build suite)"
			continue
		fi
		append=
		[ "$arch" = arm64 ] && append=sysctl.vm.shmem_hugepage_warn_bytes=16777216
		"$RIG/launch-vm.sh" --arch "$arch" --kernel "$patched" --timeout 300 \
			${append:+--append "$append"} \
			"$dir" >"$BUILD/hugewarn-$arch.out" 2>"$BUILD/hugewarn-$arch.err"
		rc=$?
		sed "s/^\(\(not \)\{0,1\}ok [0-9]* \)\(- \)\{0,1\}/\1- $arch: /" "$BUILD/hugewarn-$arch.out"
		if [ "$rc" -ne 0 ]; then
			not_ok "$arch hugewarn guest: verdict $(vm_verdict "$rc") (exit $rc, see $BUILD/hugewarn-$arch.err)"
			diag "$(tail -n 40 "$BUILD/hugewarn-$arch.err")"
		fi
		control="$arch unpatched kernel fails the shmem_hugepage_warn kselftest"
		if [ "$(control_variant "$arch")" = off ]; then
			skip "$control" "the option-off kernel carries the mm series; the mm control is x86_64's Debian kernel"
		elif unpatched_kernel "$arch" "$control"; then
			rc=0
			"$RIG/launch-vm.sh" --arch "$arch" --kernel "$UNPATCHED_IMAGE" --timeout 300 "$dir" \
				>"$BUILD/hugewarn-$arch-base.out" 2>"$BUILD/hugewarn-$arch-base.err" || rc=$?
			set --
			for t in $hugewarn_tests; do
				set -- "$@" "^hugewarn[.]$t\$"
			done
			vm_expect_fail "$control" "$rc" "$BUILD/hugewarn-$arch-base.out" "$@"
		fi
	done
}

suite_main
