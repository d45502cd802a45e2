#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mechanism.sh  (make bench, BENCH_PARTS=mechanism)
# Where is a PostgreSQL-like lock holder scheduled out, and how often, by
# kernel x preemption mode x memory backing? Deterministic guests (QEMU
# -icount, single-threaded TCG: guest time counts instructions) boot
#   patched  the series' PREEMPT_DYNAMIC kernel, modes none voluntary full
#            lazy switched at runtime (x86_64 also lazy and none with the
#            holder asking for an rseq time-slice extension)
#   seed     the report's fix, PREEMPT_NONE built in, not dynamic
#   seeddyn  the report's fix with PREEMPT_DYNAMIC, booting in none
#   seedfix  (x86_64, instead of seed) seed with a fix for x86_64, whose
#            PREEMPT_NONE build of the seed tree never schedules in
#            cond_resched() (tests/rig/prepare-seed-tree.sh)
# and run tests/bench/guest-mech.sh: slock-bench --trace per memory backing
# (anon 4 KiB shmem, shmem THP, hugetlb), the cost of a first-touch fault
# alone (guest ns per 4 KiB page), then pgbench simple-update for a fixed
# number of transactions (guest ns per transaction) in each mode.
#
# A cell is (arch, vCPUs, kernel, mode, memory, rseq). Each cell's runs go
# to a file of its own under $BUILD/bench/mechanism/cells; a cell with
# MECH_REPS runs is done, so an interrupted matrix resumes where it
# stopped (MECH_FRESH=1 starts over). Results: mechanism.json (one object
# per cell: medians and quartiles of every counter, Mann-Whitney p against
# lazy on the patched kernel), mechanism.md (the table), mechanism.png.
#
# Environment: MECH_ARCHES (arm64 x86_64), MECH_VCPUS (2 4), MECH_KERNELS
# (patched seed seeddyn on arm64, patched seedfix seeddyn on x86_64; any
# make kernel-ARCH-VARIANT name: all but the seed ones switch modes),
# MECH_MAPS (anon thp hugetlb), MECH_CELLS (instead of the matrix, these
# MODE:MEMORY:RSEQ cells for every kernel, e.g. "lazy:anon:off"),
# MECH_OUT (output directory), MECH_REPS (5), MECH_SECS guest seconds per
# run (0.5), MECH_SIZE MiB (64), MECH_PG_T pgbench transactions per client,
# 0 for none (300), MECH_PG_C clients (4).
# The pgbench cells boot on their own (pg_clock below).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. tests/lib/common.sh
. tests/pg/host-lib.sh

arches=${MECH_ARCHES:-arm64 x86_64}
vcpus_list=${MECH_VCPUS:-2 4}
maps=${MECH_MAPS:-anon thp hugetlb}
reps=${MECH_REPS:-5}
secs=${MECH_SECS:-0.5}
size=${MECH_SIZE:-64}
pg_t=${MECH_PG_T:-300}
pg_c=${MECH_PG_C:-4}
out=${MECH_OUT:-$BUILD/bench/mechanism}
cells=$out/cells
[ "${MECH_FRESH:-0}" = 0 ] || rm -rf "$out"
mkdir -p "$cells"

step() {
	printf '==> [%s] %s\n' "$(date +%H:%M:%S)" "$*"
}

fail() {
	printf 'mechanism: %s\n' "$*" >&2
	exit 1
}

# cells_of ARCH KERNEL: the cells one boot of KERNEL measures, MODE:MEM:RSEQ
cells_of() {
	if [ -n "${MECH_CELLS:-}" ]; then
		echo "$MECH_CELLS" | tr ' ' '\n'
		return
	fi
	case "$2" in
	seed | seeddyn | seedfix) modes=boot ;;
	*) modes="none voluntary full lazy" ;;
	esac
	for m in $modes; do
		for map in $maps; do
			echo "$m:$map:off"
		done
		echo "$m:faultcost:off"
		[ "$pg_t" -eq 0 ] || echo "$m:pgbench:off"
	done
	# rseq slice extension: GENERIC_ENTRY only (x86_64 here, not arm64);
	# with lazy (the default it is meant for) and with none (which keeps
	# the holder in the fault, where the extension does not reach)
	if [ "$2" = patched ] && [ "$1" = x86_64 ]; then
		for m in lazy none; do
			for map in $maps; do
				echo "$m:$map:slice"
			done
		done
	fi
}

# kernels_of ARCH: the kernels measured on ARCH
kernels_of() {
	if [ -n "${MECH_KERNELS:-}" ]; then
		echo "$MECH_KERNELS"
	elif [ "$1" = x86_64 ]; then
		echo patched seedfix seeddyn
	else
		echo patched seed seeddyn
	fi
}

cell_file() { # ARCH VCPUS KERNEL CELL
	printf '%s/%s-%s-%s-%s.txt' "$cells" "$1" "$2" "$3" "$(echo "$4" | tr : -)"
}

guest_dir() { # ARCH: test directory with the guest script and static tools
	gd=$out/t-$1
	bin=$BUILD/bench/bin-$1
	mkdir -p "$gd" "$bin"
	make -s -C tests/bench O="$bin" CC="$(guest_cc "$1")" LDFLAGS=-static >&2 ||
		fail "static slock-bench build for $1 failed"
	cp tests/bench/guest-mech.sh "$gd/guest.sh"
	cp tests/pg/guest-lib.sh "$bin/slock-bench" "$bin/ovh-bench" "$gd/"
	chmod 0755 "$gd/guest.sh"
	printf '%s' "$gd"
}

# pg_clock ARCH: kernel arguments for the pgbench boots. pgbench times
# transactions with the guest's clock; an x86_64 guest under -icount drops
# the TSC and runs on refined-jiffies (4 ms steps, low-resolution timers),
# where lazy and none came out identical to the last digit in a trial run.
# tsc=reliable keeps the TSC (tsc-early/tsc, high-resolution timers). The
# slock-bench cells keep the plain boot their published numbers came from,
# so pgbench cells boot on their own.
pg_clock() {
	case "$1" in
	x86_64) echo tsc=reliable ;;
	esac
}

# run_boot ARCH VCPUS KERNEL GUEST-DIR APPEND CELL...: one deterministic
# boot measuring CELLs, each run into its cell file.
run_boot() {
	rb_arch=$1 rb_vcpus=$2 rb_kernel=$3 rb_gdir=$4 rb_append=$5
	shift 5
	rb_pg=0
	for c in "$@"; do
		case "$c" in *:pgbench:*) rb_pg=1 ;; esac
	done
	image=$(kernel_image "$rb_arch" "$rb_kernel")
	if [ ! -f "$image" ]; then
		step "building the $rb_arch $rb_kernel kernel (make kernel-$rb_arch-$rb_kernel)"
		make -s "kernel-$rb_arch-$rb_kernel" || fail "kernel build failed"
	fi
	extra=
	if [ "$rb_pg" = 1 ]; then
		# Once per arch (rootfs is reset there): the lookup alone takes
		# seconds even when the image is cached.
		if [ -z "$rootfs" ]; then
			rootfs=$(tests/pg/mkrootfs.sh "$rb_arch") || fail "mkrootfs.sh $rb_arch failed"
		fi
		extra=$rootfs
	fi
	cl=$(printf '%s' "$*" | tr ' ' _)
	step "$rb_arch $rb_vcpus vCPUs $rb_kernel: $# cells x $reps runs (-icount${rb_append:+, $rb_append})"
	log=$out/$rb_arch-$rb_vcpus-$rb_kernel
	[ "$rb_pg" = 0 ] || log=$log-pg
	rc=0
	guest_live "$log.out" "$log.console" --arch "$rb_arch" --kernel "$image" \
		--smp "$rb_vcpus" --mem 1536 --icount --timeout 10800 \
		${extra:+--extra-initrd "$extra"} \
		--append "${rb_append:+$rb_append }B_CELLS=$cl B_REPS=$reps B_SECS=$secs B_SIZE=$size B_PG_T=$pg_t B_PG_C=$pg_c" \
		"$rb_gdir" || rc=$?
	grep -E '^(kernel|build|boot_mode|modes|hugepages|error) ' "$log.out" |
		sed 's/^/    /'
	if grep -q '^error ' "$log.out"; then
		fail "$rb_arch $rb_vcpus $rb_kernel: the guest reported errors (above; $log.console)"
	fi
	[ "$rc" = 0 ] || fail "$rb_arch $rb_vcpus $rb_kernel: guest failed ($(vm_says "$rc")), see $log.console"
	# A kernel built for fewer CPUs boots on fewer than QEMU offers.
	cpus=$(sed -n 's/^kernel .* cpus=\([0-9]*\)$/\1/p' "$log.out")
	[ "$cpus" = "$rb_vcpus" ] ||
		fail "$rb_arch $rb_vcpus $rb_kernel: the guest ran on ${cpus:-an unknown number of} CPUs, not $rb_vcpus (CONFIG_NR_CPUS?)"
	# mech MODE MEM RSEQ REP JSON -> one normalised line per run,
	# KEY=VALUE for the numbers of slock-bench's JSON and the guest
	# script's ftrace_worker_switches (keys are unique in it), into the
	# cell's file
	awk -v a="$rb_arch" -v v="$rb_vcpus" -v k="$rb_kernel" -v d="$cells" '
	$1 == "mech" && $5 != "warmup" {
		f = d "/" a "-" v "-" k "-" $2 "-" $3 "-" $4 ".txt"
		line = "mech " a " " v " " k " " $2 " " $3 " " $4 " " $5
		n = split("acq_per_sec spins_per_acq contended_pct in_kernel_pm " \
			"at_return_pm at_return_fault_pm at_return_irq_pm blocked_pm " \
			"in_kernel at_return at_return_fault at_return_irq " \
			"at_return_other blocked not_holding events no_stack lost " \
			"minflt nivcsw huge_kb slice_granted slice_yielded " \
			"ftrace_worker_switches", K, " ")
		for (i = 1; i <= n; i++)
			if (match($0, "\"" K[i] "\":[-0-9.]+")) {
				kv = substr($0, RSTART + 1, RLENGTH - 1)
				sub(/":/, "=", kv)
				line = line " " kv
			}
		print line >>f
		close(f)
	}' "$log.out"
	awk -v a="$rb_arch" -v v="$rb_vcpus" -v k="$rb_kernel" -v d="$cells" '$1 == "mechfault" {
		f = d "/" a "-" v "-" k "-" $2 "-faultcost-off.txt"
		print "mech", a, v, k, $2, "faultcost off", $3, "ns_per_fault=" $4 >>f
		close(f) }' "$log.out"
	awk -v a="$rb_arch" -v v="$rb_vcpus" -v k="$rb_kernel" -v d="$cells" '$1 == "mechpg" && $3 != "warmup" {
		f = d "/" a "-" v "-" k "-" $2 "-pgbench-off.txt"
		print "mech", a, v, k, $2, "pgbench off", $3, "ns_per_txn=" $4 >>f
		close(f) }' "$log.out"
	for c in "$@"; do
		f=$(cell_file "$rb_arch" "$rb_vcpus" "$rb_kernel" "$c")
		n=0
		[ ! -f "$f" ] || n=$(wc -l <"$f")
		[ "$n" -ge "$reps" ] ||
			fail "$rb_arch $rb_vcpus $rb_kernel: cell $c has $n of $reps runs (see $log.out)"
	done
}

started=$(date +%s)
for arch in $arches; do
	gdir=$(guest_dir "$arch")
	rootfs=
	for kernel in $(kernels_of "$arch"); do
		for vcpus in $vcpus_list; do
			todo='' todo_pg=''
			for c in $(cells_of "$arch" "$kernel"); do
				f=$(cell_file "$arch" "$vcpus" "$kernel" "$c")
				n=0
				[ ! -f "$f" ] || n=$(wc -l <"$f")
				[ "$n" -ge "$reps" ] && continue
				rm -f "$f"
				case "$c" in
				*:pgbench:*) todo_pg="$todo_pg $c" ;;
				*) todo="$todo $c" ;;
				esac
			done
			if [ -z "$todo$todo_pg" ]; then
				step "$arch $vcpus vCPUs $kernel: done before, skipped"
				continue
			fi
			# shellcheck disable=SC2086 # cell lists: one word per cell
			[ -z "$todo" ] || run_boot "$arch" "$vcpus" "$kernel" "$gdir" "" $todo
			# shellcheck disable=SC2086
			[ -z "$todo_pg" ] ||
				run_boot "$arch" "$vcpus" "$kernel" "$gdir" "$(pg_clock "$arch")" $todo_pg
		done
	done
done
took=$(($(date +%s) - started))

cat "$cells"/*.txt >"$out/raw.txt"
awk -v json="$out/mechanism.json" -v dat="$out/mechanism.dat" \
	-v took="$took" -v reps="$reps" -v secs="$secs" -v size="$size" \
	-v pg_t="$pg_t" -v date="$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	-f tests/bench/stats-lib.awk -f tests/bench/mech-stats.awk \
	"$out/raw.txt" >"$out/mechanism.md" || fail "mech-stats.awk failed"
if command -v gnuplot >/dev/null 2>&1 && [ -s "$out/mechanism.dat" ]; then
	titles=$(awk '$2 == "in_kernel" { gsub(/"/, "", $1); printf "%s ", $1 }' \
		"$out/mechanism.dat")
	gnuplot -e "dat='$out/mechanism.dat'; png='$out/mechanism.png'; titles='$titles'" \
		tests/bench/mechanism.gp || step "gnuplot failed"
fi
step "mechanism done in ${took} s (this run's boots only)"
cat "$out/mechanism.md"
