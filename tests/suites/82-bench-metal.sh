#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench-metal's kit (tests/bench/bench-metal.sh), which repeats the
# report's experiment on a real machine, at a small scale in an arm64 guest
# with the PostgreSQL root on the patched kernel, as root there: its
# refusals (not root, no /sys/kernel/preempt/mode, an unknown mode), a run
# of 2 modes x 2 page kinds x 1 run, and the mode, vm.nr_hugepages, server
# and cluster as it found them after that run and after a SIGTERM in the
# middle of one (tests/bench/guest-metal.sh prints that TAP). This side
# then makes results.png from the guest's results with the kit's --report
# (the guest has no gnuplot) and checks the JSON.
#
# M_SECS (3): seconds per pgbench run in the guest.
. tests/lib/common.sh
. tests/pg/host-lib.sh

arch=arm64
variant=$(check_variant "$arch")
kernel=$(kernel_image "$arch" "$variant")
work=$BUILD/bench-metal-smoke
tdir=$work/t

suite_setup() {
	[ -f "$kernel" ] ||
		bail "no kernel image $kernel for the bench-metal guest (make kernel-$arch-$variant)"
	mkdir -p "$work"
	rootfs=$(tests/pg/mkrootfs.sh "$arch" 2>"$work/mkrootfs.err") ||
		bail "PostgreSQL root fs for $arch (tests/pg/mkrootfs.sh)" "$work/mkrootfs.err"
	rm -rf "$tdir" "$work/out"
	mkdir -p "$tdir" "$work/out"
	cp tests/bench/guest-metal.sh "$tdir/guest.sh"
	cp tests/bench/bench-metal.sh tests/bench/stats-lib.awk tests/bench/metal-stats.awk \
		tests/lib/tap.sh "$tdir/"
	chmod 0755 "$tdir/guest.sh"
}

# json_check FILE: the guest's results.json holds 4 runs and the 4 cells of
# 4k/hugetlb x none/lazy with one run each, none compared with lazy
json_check() {
	python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
cells = sorted((c["pages"], c["mode"], c["runs"]) for c in d["cells"])
want = [("4k", "lazy", 1), ("4k", "none", 1), ("hugetlb", "lazy", 1), ("hugetlb", "none", 1)]
assert cells == want, cells
assert len(d["runs"]) == 4, d["runs"]
for c in d["cells"]:
    if c["mode"] == "none":
        r = c["vs_ref"]
        assert r["ratio"] > 0 and r["ci95"][0] <= r["ratio"] <= r["ci95"][1], r
    assert c["metrics"]["tps"]["median"] > 0, c
for k in ("nproc", "cpu_model", "uname", "kernel", "postgresql", "preempt_modes"):
    assert d["machine"].get(k), k
assert d["parameters"]["modes"] == "none lazy", d["parameters"]
print("ok")
EOF
}

suite_run() {
	start=$(date +%s)
	rc=0
	tests/rig/launch-vm.sh --arch "$arch" --kernel "$kernel" --smp 2 --mem 1536 \
		--timeout 480 --extra-initrd "$rootfs" --log "$work/console.log" \
		--append "M_SECS=${M_SECS:-3}" "$tdir" >"$work/guest.out" 2>"$work/guest.err" || rc=$?
	took=$(($(date +%s) - start))
	# the TAP; the files between "@@file NAME" and "@@end" go to out/
	awk -v dir="$work/out" '
		/^@@file / { f = dir "/" $2; printf "" >f; next }
		/^@@end$/ { close(f); f = ""; next }
		f != "" { print substr($0, 2) >f; next }
		{ print }' "$work/guest.out"
	if vm_expect_pass "bench-metal guest session on $arch $variant" "$rc" \
		"$work/guest.out" "$work/guest.err" "$work/console.log"; then
		diag "bench-metal guest session on $arch $variant: ${took} s"
	else
		diag "bench-metal guest session on $arch $variant: ${took} s, $(vm_says "$rc")"
	fi

	check "the kit's results.json from the guest: 4 runs, 4 cells, ratios inside their intervals, the machine record" \
		json_check "$work/out/results.json"
	rm -f "$work/out/results.png"
	if command -v gnuplot >/dev/null 2>&1; then
		check "bench-metal.sh --report makes results.png from the guest's results" \
			sh -c "tests/bench/bench-metal.sh --report '$work/out' &&
				od -An -c -N4 '$work/out/results.png' | grep -q 'P   N   G'"
	else
		not_ok "bench-metal.sh --report makes results.png (no gnuplot: make deps)"
	fi
}

suite_main
