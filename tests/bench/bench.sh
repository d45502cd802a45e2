#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh  ("make bench"; slow, not part of make check)
#   (a) the s_lock microbenchmark (slock-bench) in one guest boot by
#       preemption mode (none voluntary full lazy, switched at runtime) x
#       huge pages (anon 4 KiB, shmem THP, hugetlb) x workers; a warm-up,
#       then >= 5 runs per cell
#   (b) pgbench simple-update at a scale whose data exceeds shared_buffers,
#       by mode x huge pages (off, shmem THP, hugetlb)
#   (a) and (b) also run "preempt-policy decide" in the guest (after the
#       kernel's huge-page warning) and judge its choice: wherever the best
#       and worst modes differ significantly, the chosen mode must get
#       >= 98 % of the best mode's median
#   (c) the patched vs the unpatched kernel in the same modes under QEMU
#       -icount (guest time counts instructions): mmap + first touch,
#       fork + exec, pipe ping-pong, and pgbench simple-update for a fixed
#       number of transactions (ns per transaction); boots alternate
#       between the kernels
#   (d) the boot-time policy's cost under -icount, judged on a real boot:
#       the patched kernel through a real dracut initramfs into an ext4
#       root on virtio-blk (a PostgreSQL cluster whose opt-in drop-in picks
#       none), twice per round: A with the 55preempt-policy module, B the
#       same initramfs without it; guest CLOCK_BOOTTIME when the root's
#       init starts, which also reports the mode it found (A none, B lazy:
#       the hook ran in A only). Cost = median(A) - median(B), as % of
#       median(B), with the per-round ratios (dracut-bootcost.sh says why
#       that is what a boot pays). Second row, an upper bound: the hook's
#       pp_apply timed inside the rig's tiny busybox boot, one sample per
#       boot (guest-bootcost.sh). Goal: under 1 % on the dracut boot
#   mechanism (only when named in BENCH_PARTS): where a PostgreSQL-like
#       lock holder is scheduled out, by kernel (this series in every mode,
#       the report's own PREEMPT_NONE fix built both ways) x memory backing
#       x vCPUs, counted from the kernel's sched_switch events in -icount
#       guests; arm64 and x86_64 whatever BENCH_ARCH says; resumable cell
#       by cell. See tests/bench/mechanism.sh (MECH_* knobs); results in
#       $BUILD/bench/mechanism/
#   (e) runtime mode switches (one every few seconds) under a running
#       pgbench with per-second progress, multi-threaded TCG: tps in the
#       seconds with a switch vs the steady seconds, and failed
#       transactions (goal: none)
# Results: $BUILD/bench/results.md, results.json, results.png (gnuplot),
# raw.txt; medians, quartiles, ratios and Mann-Whitney U tests (stats.awk).
#
# Environment:
#   BENCH_QUICK=1     small parameters (a few minutes) to prove the harness
#   BENCH_PARTS       which parts (default "a b c d e")
#   BENCH_ARCH        guest architecture (arm64)
#   BENCH_VARIANT     kernel for (a), (b), (d) and (e) (patched)
#   BENCH_PATCHED, BENCH_UNPATCHED   kernel images for (c) (default: the
#                     patched and base builds)
#   BENCH_C_APPEND    more kernel parameters for both kernels in (c), e.g.
#                     sysctl.vm.shmem_hugepage_warn_bytes=8388608 to put
#                     the fault loop's mapping above the report threshold
#   BENCH_SMP (2), BENCH_OVH_BOOTS (boots per kernel in (c)),
#   BENCH_BOOTS (tiny boots in (d)), BENCH_DRACUT_ROUNDS (A/B rounds of
#   dracut boots in (d))
#   B_* overrides passed to the guest scripts (guest-slock.sh,
#   guest-pgbench.sh, guest-ovh.sh, guest-switch.sh), e.g.
#   B_PROCS="4 8 16 32"; they apply to every part that knows the name.
# Missing kernels are built with make -s kernel-ARCH-VARIANT.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. tests/lib/common.sh
. tests/pg/host-lib.sh

arch=${BENCH_ARCH:-arm64}
variant=${BENCH_VARIANT:-patched}
parts=${BENCH_PARTS:-a b c d e}

case " $parts " in *" mechanism "*)
	tests/bench/mechanism.sh
	parts=$(echo "$parts" | tr ' ' '\n' | grep -vx mechanism | tr '\n' ' ')
	[ -n "${parts% }" ] || exit 0
	;;
esac
smp=${BENCH_SMP:-2}
out=$BUILD/bench
raw=$out/raw.txt
mkdir -p "$out"

step() {
	printf '==> [%s] %s\n' "$(date +%H:%M:%S)" "$*"
}

fail() {
	printf 'make bench: %s\n' "$*" >&2
	exit 1
}

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	quick=1
	A_ENV="B_PROCS=4 B_REPS=5 B_SECS=1 B_SIZE=32"
	B_ENV="B_SB=64 B_SCALE=8 B_C=6 B_J=2 B_T=4 B_REPS=2"
	C_ENV="B_REPS=5 B_FAULT_MIB=16 B_FORKS=20 B_PIPES=2000 B_PG_T=100"
	E_ENV="B_SB=64 B_SCALE=8 B_C=6 B_J=2 B_SECS=20 B_EVERY=4"
	ovh_boots=${BENCH_OVH_BOOTS:-1}
	boots=${BENCH_BOOTS:-3}
	drounds=${BENCH_DRACUT_ROUNDS:-3}
else
	quick=0
	A_ENV="B_PROCS=4_8_16 B_REPS=7 B_SECS=2 B_SIZE=64"
	B_ENV="B_SB=128 B_SCALE=20 B_C=8 B_J=2 B_T=15 B_REPS=5"
	C_ENV="B_REPS=7 B_FAULT_MIB=32 B_FORKS=50 B_PIPES=5000 B_PG_T=500"
	E_ENV="B_SB=128 B_SCALE=20 B_C=8 B_J=2 B_SECS=40 B_EVERY=5"
	ovh_boots=${BENCH_OVH_BOOTS:-3}
	boots=${BENCH_BOOTS:-7}
	drounds=${BENCH_DRACUT_ROUNDS:-7}
fi

# append_env DEFAULTS: kernel command line NAME=value words; "_" stands for
# a space inside a value (the guest script turns it back), B_* from the
# caller's environment win.
append_env() {
	ae=
	for kv in $1; do
		k=${kv%%=*}
		eval "override=\${$k:-}"
		# shellcheck disable=SC2154 # set by eval
		if [ -n "$override" ]; then
			kv="$k=$(printf '%s' "$override" | tr ' ' '_')"
		fi
		ae="$ae $kv"
	done
	for k in B_MODES B_MAPS B_HP B_RESTART; do
		eval "v=\${$k:-}"
		# shellcheck disable=SC2154 # set by eval
		[ -z "$v" ] || ae="$ae $k=$(printf '%s' "$v" | tr ' ' '_')"
	done
	printf '%s' "$ae"
}

kernel_for() { # VARIANT -> image, built if missing
	k=$(kernel_image "$arch" "$1")
	if [ ! -f "$k" ]; then
		step "building the $arch $1 kernel (make kernel-$arch-$1)" >&2
		make -s "kernel-$arch-$1" >&2 || fail "kernel build failed"
	fi
	printf '%s' "$k"
}

# tdir NAME GUEST-SCRIPT: a test directory with the script as guest.sh
tdir() {
	d=$out/t-$1
	rm -rf "$d"
	mkdir -p "$d"
	# The command line cannot carry spaces: the guest scripts read "_"
	# in list values (B_PROCS=4_8_16) as one.
	cp "tests/bench/$2" "$d/guest.sh"
	cp "tests/bench/$2" tests/pg/guest-lib.sh "$d/"
	cp "$bin"/* "$d/"
	chmod 0755 "$d/guest.sh"
	printf '%s' "$d"
}

# static guest binaries, and preempt-policy with its shipped policy and the
# boot hook's library (every test directory gets them all)
bin=$out/bin-$arch
mkdir -p "$bin"
step "static slock-bench, ovh-bench and preempt-policy for $arch"
make -s -C tests/bench O="$bin" CC="$(guest_cc "$arch")" LDFLAGS=-static ||
	fail "static build failed"
pp=$(tests/initrd/build-policy.sh "$arch" "$out/preempt-policy-$arch") || fail "static preempt-policy build failed"
cp "$pp" "$bin/preempt-policy"
cp policy/preempt-policy.conf initrd/lib/preempt-policy-lib.sh "$bin/"

case " $parts " in *" b "* | *" c "* | *" e "*)
	rootfs=$(tests/pg/mkrootfs.sh "$arch") || fail "mkrootfs.sh failed"
	;;
esac

: >"$raw"
meta=
started=$(date +%s)

# one_boot_part X TITLE TEST SCRIPT MEM TIMEOUT ENV EXTRA RAW SUMMARY:
# part X in one guest boot of the $variant kernel: tests/bench/SCRIPT
# with the environment ENV on the command line, EXTRA (a cpio, or empty)
# appended to the initramfs. Output lines matching the extended regex RAW
# go to the raw data (warm-up runs never), those matching SUMMARY to the
# screen. Leaves the guest's output in $out/X.out.
one_boot_part() {
	px=$1 ptitle=$2 ptest=$3 pscript=$4 pmem=$5 ptimeout=$6 penv=$7 pextra=$8
	praw=$9
	shift 9
	kernel=$(kernel_for "$variant")
	step "($px) $ptitle, $arch $variant kernel ($(append_env "$penv"))"
	d=$(tdir "$ptest" "$pscript")
	rc=0
	guest_live "$out/$px.out" "$out/$px-console.log" --arch "$arch" \
		--kernel "$kernel" --smp "$smp" --mem "$pmem" --timeout "$ptimeout" \
		${pextra:+--extra-initrd "$pextra"} \
		--append "$(append_env "$penv")" "$d" || rc=$?
	[ "$rc" = 0 ] || fail "($px) guest failed ($(vm_says "$rc")), see $out/$px-console.log"
	grep -E "$praw" "$out/$px.out" | grep -v ' warmup ' >>"$raw" || true
	grep -E "$1" "$out/$px.out" | sed "s/^/    ($px) /"
	meta="$meta\"${px}_params\": \"$(append_env "$penv")\",
"
}

case " $parts " in *" a "*)
	one_boot_part a "s_lock microbenchmark" slock guest-slock.sh 1024 7200 \
		"$A_ENV" "" '^(micro|policy) ' \
		'^(kernel|modes|available|unavailable|error|hugepages|policy) '
	meta="$meta\"a_kernel\": \"$(sed -n 's/^kernel //p' "$out/a.out")\",
"
	;;
esac

case " $parts " in *" b "*)
	one_boot_part b "pgbench by mode x huge pages" pgbench guest-pgbench.sh \
		1536 14400 "$B_ENV" "$rootfs" '^(pg|policy) ' \
		'^(kernel|modes|unavailable|error|data_mb|hugemem|hugepages|policy) '
	meta="$meta\"b_data\": \"$(sed -n 's/^data_mb //p' "$out/b.out")\",
"
	;;
esac

case " $parts " in *" c "*)
	kp=${BENCH_PATCHED:-$(kernel_for patched)}
	ku=${BENCH_UNPATCHED:-$(kernel_for base)}
	if [ ! -f "$kp" ] || [ ! -f "$ku" ]; then
		fail "no kernel image $kp or $ku"
	fi
	if cmp -s "$kp" "$ku"; then
		step "(c) note: the patched and unpatched images are identical: an A/A run (ratio should be ~1)"
	fi
	d=$(tdir ovh guest-ovh.sh)
	i=1
	while [ "$i" -le "$ovh_boots" ]; do
		for which in unpatched patched; do
			if [ "$which" = patched ]; then k=$kp; else k=$ku; fi
			step "(c) boot $i of $ovh_boots, $which kernel, -icount ($(append_env "$C_ENV"))"
			rc=0
			guest_live "$out/c-$which-$i.out" "$out/c-console.log" --arch "$arch" \
				--kernel "$k" --smp "$smp" --mem 768 --icount --timeout 7200 \
				--extra-initrd "$rootfs" \
				--append "$(append_env "$C_ENV")${BENCH_C_APPEND:+ $BENCH_C_APPEND}" \
				"$d" || rc=$?
			[ "$rc" = 0 ] || fail "(c) guest failed (exit $rc), see $out/c-console.log"
			awk -v w="$which" -v b="$i" '$1 == "ovh" && $3 != "warmup" {
				print "ovh", w, $2, $3, "b" b "r" $4, $5 }' \
				"$out/c-$which-$i.out" >>"$raw"
			grep -E '^(kernel|modes|unavailable|error|data_mb) ' "$out/c-$which-$i.out" |
				sed "s/^/    (c) $which: /"
		done
		i=$((i + 1))
	done
	meta="$meta\"c_patched\": \"$kp\",
\"c_unpatched\": \"$ku\",
\"c_identical_images\": $(cmp -s "$kp" "$ku" && echo true || echo false),
\"c_params\": \"$(append_env "$C_ENV") boots=$ovh_boots\",
"
	;;
esac

case " $parts " in *" d "*)
	kernel=$(kernel_for "$variant")
	d=$(tdir bootcost guest-bootcost.sh)
	cp -R tests/initrd/roots/pg-big "$d/root"
	# The built-in policy keeps the mode: opt in, as the shipped file
	# says, so that the hook has a mode to write, as in the dracut boots.
	mkdir -p "$d/root/etc/preempt-policy.d"
	sed -n 's/^#\(rule \)/\1/p' policy/preempt-policy.conf \
		>"$d/root/etc/preempt-policy.d/50-postgresql.conf"
	command -v dracut >/dev/null || fail "(d) needs dracut (make deps)"
	step "(d) boot-time policy cost on a real boot: dracut initramfs with and without 55preempt-policy, $drounds rounds, -icount"
	tests/bench/dracut-bootcost.sh "$arch" "$kernel" "$bin" "$out/d-dracut" \
		"$drounds" "$smp" >"$out/d-dracut.raw" || fail "(d) dracut boots failed"
	cat "$out/d-dracut.raw" >>"$raw"
	awk '{ print "    (d) round " $2 ", " $3 " the hook: root init at " $4 / 1e6 " ms, mode " $5 }' \
		"$out/d-dracut.raw"
	i=1
	while [ "$i" -le "$boots" ]; do
		step "(d) upper bound, the hook inside the rig's tiny boot, boot $i of $boots, -icount"
		rc=0
		guest_live "$out/d-$i.out" "$out/d-console.log" --arch "$arch" \
			--kernel "$kernel" --smp "$smp" --mem 512 --icount --timeout 600 \
			"$d" || rc=$?
		[ "$rc" = 0 ] || fail "(d) guest failed (exit $rc), see $out/d-console.log"
		grep '^boot ' "$out/d-$i.out" >>"$raw" ||
			fail "(d) no measurement in $out/d-$i.out"
		i=$((i + 1))
	done
	meta="$meta\"d_boots\": $boots, \"d_dracut_rounds\": $drounds,
"
	;;
esac

case " $parts " in *" e "*)
	one_boot_part e "runtime mode switches under pgbench" switch guest-switch.sh \
		1536 3600 "$E_ENV" "$rootfs" '^(sw|swtotal) ' \
		'^(kernel|modes|error|data_mb|swtotal) '
	;;
esac

# --- results ----------------------------------------------------------------------------
took=$(($(date +%s) - started))
meta="\"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\",
\"arch\": \"$arch\", \"variant\": \"$variant\", \"quick\": $quick, \"smp\": $smp,
\"seconds\": $took,
$meta"
{
	echo "# make bench results"
	echo
	echo "$(date -u +%Y-%m-%d) on $(uname -n), $arch guests with $smp vCPUs under QEMU TCG;"
	echo "kernel for (a), (b), (d) and (e): $variant; parts $parts; quick=$quick; ${took} s in all."
	echo "Emulated 2-vCPU guests prove the harness; they cannot show a 96-vCPU"
	echo "regression. Run tests/bench/slock-bench on the real machine for that."
	echo "Runs inside one boot are not independent samples: p values from a single"
	echo "boot per kernel in (c) overstate significance (an A/A run with one image"
	echo "gave p < 0.05 at ratios 0.998 and 1.005); judge (c) by the per-round"
	echo "ratios over several alternating boots (BENCH_OVH_BOOTS, default 3)."
	echo
	awk -v json="$out/results.json" -v dat="$out/" -v meta="$meta" \
		-f tests/bench/stats-lib.awk -f tests/bench/stats.awk "$raw"
} >"$out/results.md"

if command -v gnuplot >/dev/null 2>&1 && [ -s "$out/micro.dat" ] || [ -s "$out/pg.dat" ]; then
	plots=
	n=0
	if [ -s "$out/micro.dat" ]; then
		nb=$(grep -c '^"' "$out/micro.dat")
		plots="$plots set title 'slock-bench acquisitions/s (median, quartiles)';
		set ylabel 'acquisitions/s'; set logscale y;
		plot for [i=0:$((nb - 1))] '$out/micro.dat' index i using 1:3:4:5:xtic(2) with yerrorlines title columnheader(1);
		unset logscale y;"
		n=$((n + 1))
	fi
	if [ -s "$out/pg.dat" ]; then
		nb=$(grep -c '^"' "$out/pg.dat")
		plots="$plots set title 'pgbench simple-update tps (median, quartiles)';
		set ylabel 'tps';
		plot for [i=0:$((nb - 1))] '$out/pg.dat' index i using 1:3:4:5:xtic(2) with yerrorlines title columnheader(1);"
		n=$((n + 1))
	fi
	gnuplot <<EOF || step "gnuplot failed"
set terminal png size $((640 * n)),480
set output '$out/results.png'
set multiplot layout 1,$n
set key top left font ',8'
set xlabel 'preemption mode'
set offsets 0.3, 0.3, 0, 0
$plots
unset multiplot
EOF
fi
step "done in ${took} s"
cat "$out/results.md"
ls -l "$out/results.md" "$out/results.json" "$out/results.png" 2>/dev/null || true
