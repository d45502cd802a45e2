#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Self-tests of the VM layer: a checker that cannot fail proves nothing.
# tests/rig/fake-qemu stands in for QEMU and plays each kind of guest
# (passing, failing, crashed, hung, splatting), so that every verdict of
# launch-vm.sh (tests/lib/vm.sh) is produced and then shown to fail a real
# suite: 60-hugewarn, run through check.sh on arm64 against a throwaway
# cache whose kernel images are empty files. So is a negative control that
# fails, but not exactly the tests it must fail (vm_expect_fail). No kernel
# is built or booted.
. tests/lib/common.sh

# launch FAKE_GUEST TIMEOUT [GUEST-RUN ARGS...]: launch-vm.sh's exit status
# with fake-qemu playing FAKE_GUEST; its stdout in $tmp/out.
launch() {
	l_guest=$1 l_timeout=$2
	shift 2
	l_rc=0
	FAKE_GUEST=$l_guest RIG_QEMU_AARCH64=$fake "$RIG/launch-vm.sh" --arch arm64 \
		--timeout "$l_timeout" "$@" >"$tmp/out" 2>"$tmp/err" || l_rc=$?
	echo "$l_rc"
}

# verdict DESC WANT FAKE_GUEST TIMEOUT [GUEST-RUN ARGS...]
verdict() {
	v_desc=$1 v_want=$2
	shift 2
	v_rc=$(launch "$@")
	v_got=$(vm_verdict "$v_rc")
	if [ "$v_got" = "$v_want" ]; then
		ok "launch-vm: $v_desc: verdict $v_want (exit $v_rc)"
	else
		not_ok "launch-vm: $v_desc: verdict $v_got (exit $v_rc), want $v_want"
		diag "$(tail -n 10 "$tmp/err")"
	fi
}

# hugewarn_suite FAKE_GUEST FAKE_BASE [KSRC]: 60-hugewarn through check.sh,
# its kselftest from KSRC (default the stand-in that builds), arm64's
# control the unpatched build unless hw_unpatched_arches says otherwise;
# the stream in $tmp/suite.tap.
hugewarn_suite() {
	FAKE_GUEST=$1 FAKE_BASE=$2 RIG_QEMU_AARCH64=$fake PREEMPT_CACHE=$cache \
		UNPATCHED_ARCHES=$hw_unpatched_arches \
		BUILD=$tmp/build HUGEWARN_ARCHES=arm64 HUGEWARN_KSRC=${3:-$tmp/ksrc} \
		sh tests/check.sh tests/suites/60-hugewarn.sh >"$tmp/suite.tap" 2>&1
}

# suite_result FAKE_GUEST FAKE_BASE [KSRC]: "P F S" of 60-hugewarn's
# summary line.
suite_result() {
	hugewarn_suite "$@"
	sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$tmp/suite.tap"
}

# expect_suite DESC WANT FAKE_GUEST FAKE_BASE: WANT green (no failure, some
# passes) or red (at least one failure).
expect_suite() {
	es_res=$(suite_result "$3" "$4")
	es_fail=$(echo "$es_res" | cut -d' ' -f2)
	es_pass=$(echo "$es_res" | cut -d' ' -f1)
	case "$2:${es_fail:-none}" in
	green:0) [ "$es_pass" -gt 0 ] && es_ok=1 || es_ok= ;;
	red:none | red:0 | green:*) es_ok= ;;
	red:*) es_ok=1 ;;
	esac
	if [ -n "$es_ok" ]; then
		ok "60-hugewarn is $2 when $1 (passed, failed, skipped: ${es_res})"
	else
		not_ok "60-hugewarn is $2 when $1 (got passed, failed, skipped: '${es_res}')"
	fi
}

suite_setup() {
	fake=$RIG/fake-qemu
	tmp=$(mktemp -d)
	: >"$tmp/kernel"
	: >"$tmp/initrd"

	# A suite under each verdict: 60-hugewarn with empty "kernels" in a
	# throwaway cache (busybox comes from the real one).
	cache=$tmp/cache
	for v in base patched; do
		mkdir -p "$cache/obj/arm64-$v/arch/arm64/boot"
		: >"$cache/obj/arm64-$v/arch/arm64/boot/Image"
	done
	mkdir -p "$CACHE/debs"
	ln -s "$CACHE/debs" "$cache/debs"

	# A stand-in for the patched tree's kselftest: fake-qemu never runs
	# it. Its two TEST_F lines are the tests the control must fail.
	st=$tmp/ksrc/tools/testing/selftests/mm
	mkdir -p "$st"
	printf '%s\n' '#define TEST_F(f, t) void f##_##t(void)' \
		'TEST_F(hugewarn, first) {}' 'TEST_F(hugewarn, second) {}' \
		'int main(void)' '{' '	return 0;' '}' >"$st/shmem_hugepage_warn.c"
	# And one that does not compile: the suite's setup fails.
	st=$tmp/ksrc-broken/tools/testing/selftests/mm
	mkdir -p "$st"
	printf 'int main(void)\n{\n\treturn\n}\n' >"$st/shmem_hugepage_warn.c"

	# What the unpatched guest prints (tap= of fake-qemu): both tests
	# failed, as the kselftest harness says it; one of them only; both
	# and another check; and another check only.
	printf 'TAP version 13\n1..2\nnot ok 1 hugewarn.first\nnot ok 2 hugewarn.second\n' \
		>"$tmp/unpatched-right"
	printf 'TAP version 13\n1..2\nnot ok 1 hugewarn.first\nok 2 hugewarn.second\n' \
		>"$tmp/unpatched-one-missing"
	printf 'not ok 1 hugewarn.first\nnot ok 2 hugewarn.second\nnot ok 3 - hugewarn.first setup\n' \
		>"$tmp/unpatched-extra"
	printf 'ok 1 hugewarn.first\nok 2 hugewarn.second\nnot ok 3 - insmod failed\n' \
		>"$tmp/unpatched-other"
	right=tap=$tmp/unpatched-right
	hw_unpatched_arches=arm64
}

suite_cleanup() {
	rm -rf "${tmp:-}"
}

suite_run() {
	img="--kernel $tmp/kernel --initrd $tmp/initrd"
	# shellcheck disable=SC2086 # $img is two options and their values
	{
		verdict "guest script exits 0" pass pass 20 $img
		verdict "guest script exits 1" fail fail 20 $img
		verdict "guest script exits 200 (reported as 119)" fail status=200 20 $img
		verdict "guest passes, WARNING in the kernel log" splat splat 20 $img
		verdict "guest panics before its status" nostatus nostatus 20 $img
		verdict "QEMU killed by timeout(1)" timeout killed 20 $img
		verdict "guest hangs past --timeout 2" timeout hang 2 $img
		verdict "guest hangs and ignores SIGTERM (SIGKILL after 5 s)" timeout hang-noterm 1 $img
		verdict "no kernel image" error pass 20 --kernel "$tmp/none" --initrd "$tmp/initrd"
		verdict "an option without its value" error pass 20 $img --smp
		verdict "no initramfs file" error pass 20 --kernel "$tmp/kernel" --initrd "$tmp/none"
	}
	# shellcheck disable=SC2086
	launch pass 20 $img >/dev/null
	if grep -qx 'ok 1 - fake check' "$tmp/out" && ! grep -q 'rig-exit-status' "$tmp/out"; then
		ok "launch-vm: the guest's output comes through, the status line does not"
	else
		not_ok "launch-vm: the guest's output comes through, the status line does not"
		diag "$(cat "$tmp/out")"
	fi
	for rc in 0 1 119 120 121 124 125 126 127 255 x ''; do
		printf '%s=%s ' "$rc" "$(vm_verdict "$rc")"
	done >"$tmp/table"
	check "vm_verdict: 0 pass, 1-119 fail, 124-126 timeout/nostatus/splat, the rest error" \
		test "$(cat "$tmp/table")" = \
		"0=pass 1=fail 119=fail 120=error 121=error 124=timeout 125=nostatus 126=splat 127=error 255=error x=error =error "

	# vm_expect_pass RC OUTPUT -> "STATUS/LINES": its return status and
	# how many TAP lines it added to what the guest printed.
	printf 'ok 1 - a\n' >"$tmp/g-ok"
	printf 'ok 1 - a\nnot ok 2 - b\n' >"$tmp/g-notok"
	for c in 0:g-ok 1:g-notok 1:g-ok 124:g-notok 125:g-ok 126:g-notok 120:g-ok; do
		printf '%s=%s ' "$c" "$( (vm_expect_pass d "${c%%:*}" "$tmp/${c#*:}" \
			>"$tmp/ep" && echo 0) || echo "1/$(grep -c '^not ok' "$tmp/ep")")"
	done >"$tmp/table"
	check "vm_expect_pass: pass passes; fail with the guest's not ok adds nothing; every other verdict adds one failure" \
		test "$(cat "$tmp/table")" = \
		"0:g-ok=0 1:g-notok=1/0 1:g-ok=1/1 124:g-notok=1/1 125:g-ok=1/1 126:g-notok=1/1 120:g-ok=1/1 "

	# vm_expect_fail RC OUTPUT EXPECTED... -> ok or not: verdict fail,
	# each expected failure seen, no other one.
	printf 'ok 1 - a\nnot ok 2 - b\nnot ok 3 c\n' >"$tmp/g-bc"
	got=
	for c in '1 ^b$ ^c$' '1 ^c$ ^b$' '1 ^[bc]$' '1 ^b$' '1 ^b$ ^c$ ^d$' \
		'1 ^a$ ^b$ ^c$' '124 ^b$ ^c$' '125 ^b$ ^c$' '126 ^b$ ^c$' '120 ^b$ ^c$' '1'; do
		# shellcheck disable=SC2086 # RC and the patterns, one word each
		got="$got$( (set -f && set -- $c && ef_rc=$1 && shift &&
			vm_expect_fail d "$ef_rc" "$tmp/g-bc" "$@") | grep -c '^ok')"
	done
	check "vm_expect_fail: only verdict fail with every named failure and no other one passes" \
		test "$got" = 11100000000
	(TAP_N=0 && vm_expect_fail d 1 "$tmp/g-bc" '^b$' '^d$') >"$tmp/ef"
	check "vm_expect_fail names the missing and the unexpected failures" \
		grep -qxF "not ok 1 - d (verdict fail, exit 1, 2 failures; missing: '^d$'; unexpected: 'c')" "$tmp/ef"

	expect_suite "the patched guest passes and the unpatched one fails its checks" green pass "$right"
	expect_suite "the patched guest passes but splats" red splat "$right"
	expect_suite "the patched guest loses its status" red nostatus "$right"
	expect_suite "the patched guest times out" red killed "$right"
	expect_suite "the patched guest prints only ok lines and exits 200" red status=200 "$right"
	expect_suite "the unpatched guest fails another check only" red pass fail
	expect_suite "the unpatched guest fails another check, the kselftest passes" red pass "tap=$tmp/unpatched-other"
	expect_suite "the unpatched guest fails one of the two tests" red pass "tap=$tmp/unpatched-one-missing"
	expect_suite "the unpatched guest fails both tests and another check" red pass "tap=$tmp/unpatched-extra"
	expect_suite "the unpatched guest passes" red pass pass
	expect_suite "the unpatched guest crashes (no status)" red pass nostatus
	expect_suite "the unpatched guest times out" red pass killed
	expect_suite "the unpatched guest splats" red pass splat
	expect_suite "the unpatched guest exits 3 without a failed test" red pass status=3

	# A setup step that fails (tests/lib/suite.sh: bail) is one failure
	# with its reason, and no guest boots after it.
	hugewarn_suite pass "$right" "$tmp/ksrc-broken"
	if grep -q '^not ok 1 - hugewarn: setup failed: arm64 build the shmem_hugepage_warn kselftest$' "$tmp/suite.tap" &&
		grep -qx '0 passed, 1 failed, 0 skipped' "$tmp/suite.tap"; then
		ok "60-hugewarn is red when its setup fails: one failure, the bail-out's reason, no test after it"
	else
		not_ok "60-hugewarn is red when its setup fails: one failure, the bail-out's reason, no test after it"
		diag "$(tail -n 15 "$tmp/suite.tap")"
	fi

	# arm64's default control, the option-off kernel, carries the mm
	# series: 60-hugewarn says so in a skip instead of booting it.
	hw_unpatched_arches=
	hugewarn_suite pass fail
	hw_unpatched_arches=arm64
	if grep -q "^ok [0-9]* - hugewarn: arm64 unpatched kernel fails the shmem_hugepage_warn kselftest # SKIP the option-off kernel carries the mm series" "$tmp/suite.tap" &&
		grep -qx '1 passed, 0 failed, 1 skipped' "$tmp/suite.tap"; then
		ok "60-hugewarn skips the mm control on the option-off kernel, with the reason"
	else
		not_ok "60-hugewarn skips the mm control on the option-off kernel, with the reason"
		diag "$(tail -n 15 "$tmp/suite.tap")"
	fi
}

suite_main
