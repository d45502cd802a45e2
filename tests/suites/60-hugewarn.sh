#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The shared memory huge-page warning in QEMU on arm64 and x86_64
# (tests/hugewarn/): each kind of shared memory above and below the
# threshold, hugetlb and THP that must not warn, once per process, runtime
# threshold, 0 disables, the counter. The unpatched kernel must fail it.
. tests/lib/common.sh
. tests/lib/vm.sh

# HUGEWARN_ARCHES: the VM layer's self-test (05-vm) runs arm64 only.
for arch in ${HUGEWARN_ARCHES:-arm64 x86_64}; do
	dir=$BUILD/hugewarn-$arch
	rm -rf "$dir"
	if ! tests/hugewarn/build.sh "$arch" "$dir" >"$BUILD/hugewarn-build-$arch.log" 2>&1; then
		not_ok "$arch build the hugewarn guest programs"
		diag "$(tail -n 20 "$BUILD/hugewarn-build-$arch.log")"
		continue
	fi
	patched=$(kernel_image "$arch" "$(check_variant "$arch")")
	base=$(kernel_image "$arch" base)
	if [ ! -f "$patched" ]; then
		not_ok "$arch hugewarn tests (no patched kernel; see the build suite)"
		continue
	fi
	"$RIG/guest-run.sh" --arch "$arch" --kernel "$patched" --timeout 300 \
		"$dir" >"$BUILD/hugewarn-$arch.out" 2>"$BUILD/hugewarn-$arch.err"
	rc=$?
	sed "s/^\(\(not \)\{0,1\}ok [0-9]* - \)/\1$arch: /" "$BUILD/hugewarn-$arch.out"
	if [ "$rc" -ne 0 ]; then
		not_ok "$arch hugewarn guest: verdict $(vm_verdict "$rc") (exit $rc, see $BUILD/hugewarn-$arch.err)"
		diag "$(tail -n 40 "$BUILD/hugewarn-$arch.err")"
	fi
	if [ -f "$base" ]; then
		rc=0
		"$RIG/guest-run.sh" --arch "$arch" --kernel "$base" --timeout 300 "$dir" \
			>"$BUILD/hugewarn-$arch-base.out" 2>"$BUILD/hugewarn-$arch-base.err" || rc=$?
		vm_expect_fail "$arch unpatched kernel fails the hugewarn tests" "$rc" \
			"$BUILD/hugewarn-$arch-base.out"
	fi
done
