#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench-metal.sh ("make bench-metal"): the report's experiment on real
# hardware. As root, on a machine that booted the patched kernel
# (/sys/kernel/preempt/mode) and has PostgreSQL installed, it runs pgbench
# under each preemption mode, switched at runtime, with the buffer pool in
# 4 KiB pages (huge_pages=off) and in hugetlb pages (huge_pages=on,
# vm.nr_hugepages sized by "postgres -C shared_memory_size_in_huge_pages"),
# in alternating blocks: each block is one server start and one warm-up,
# then every mode METAL_REPS times, the order reversed from one pass to the
# next (ABBA), and the page kinds alternate between blocks. It records the
# machine and the settings and writes results.md, results.json and
# results.png (gnuplot) like make bench (tests/bench/README.md).
#
#   bench-metal.sh               run (root)
#   bench-metal.sh --plan        check the parameters, print the run order
#                                and the time it takes; changes nothing
#   bench-metal.sh --report DIR  results.md/json/png again from DIR's
#                                raw.txt and machine.txt (any user; e.g.
#                                where gnuplot is installed)
#
# It refuses (exit 2, nothing changed) without root, on a kernel without
# the runtime modes, and on bad parameters. It works on a throwaway cluster
# it creates (initdb in a new directory under METAL_DIR, as METAL_USER,
# removed at the end), or on an existing one only when METAL_PGDATA names
# it. On exit, on an error and on SIGINT, SIGTERM or SIGHUP it stops the
# server it started and puts back the preemption mode, vm.nr_hugepages and
# the shmem THP setting it changed (exit 3 if one of them could not be).
#
# Environment (defaults: a scaled-down version of the report's run, which
# was METAL_CLIENTS=1024 METAL_THREADS=96 METAL_SCALE=8470 METAL_SECS=1200
# on 96 vCPUs):
#   METAL_MODES (none voluntary full lazy)   METAL_REF (lazy): the mode the
#       others are compared with; it must be one of METAL_MODES
#   METAL_PAGES (4k hugetlb)
#   METAL_CLIENTS (10 per CPU), METAL_THREADS (one per CPU)
#   METAL_SCALE (100: about 1.6 GB), METAL_FILLFACTOR (90)
#   METAL_SB (1GB): shared_buffers, a PostgreSQL size (8GB, 512MB)
#   METAL_SECS (60) per run, METAL_WARMUP (30) after each server start
#   METAL_REPS (2) runs of each mode per block, METAL_BLOCKS (2) blocks
#       (server starts) per page kind
#   METAL_ORDER (counterbalanced | random), METAL_SEED (1): the random
#       order's and the bootstrap's seed
#   METAL_RESTART (block | run): run restarts the server, with a warm-up,
#       before every run
#   METAL_PROTOCOL (prepared), METAL_SCRIPT (simple-update): pgbench -M, -b
#   METAL_CHECKPOINT (yes): a CHECKPOINT before each run
#   METAL_PG_SETTINGS ("max_wal_size=16GB checkpoint_timeout=30min"): more
#       server settings, NAME=VALUE words, passed with -c (no file edited)
#   METAL_USER (postgres), METAL_PGBIN (the newest /usr/lib/postgresql/*/bin,
#       else the directory of postgres on PATH)
#   METAL_DIR (/var/tmp): where the throwaway cluster goes; it needs about
#       18 MB per scale unit
#   METAL_PGDATA: an existing, stopped cluster to use instead (run as its
#       owner; its files are not edited); METAL_DB (bench_metal) is the
#       database pgbench uses there, created if missing, and filled by
#       pgbench -i unless METAL_INIT=no (then the tables must be there)
#   METAL_INIT_STEPS (dtGvp): pgbench -i -I
#   METAL_PORT (5432): the server listens on a socket in its own directory
#       only, so another server on the same port is no conflict
#   METAL_KEEP (no): yes keeps the throwaway cluster (reuse it with
#       METAL_PGDATA=... METAL_INIT=no)
#   METAL_OUT (${BUILD:-.}/bench-metal): results go to a new directory
#       METAL_OUT/YYYYmmddTHHMMSSZ, linked as METAL_OUT/latest
#   METAL_BOOTSTRAP (2000): bootstrap resamples
# For tests only (tests/suites/82-bench-metal.sh): METAL_SYSFS_MODE, the
# file that lists and switches the modes (/sys/kernel/preempt/mode), and
# METAL_LOCK, the lock directory (/run/bench-metal.lock).
set -u
me=bench-metal
here=$(cd "$(dirname "$0")" && pwd)

say() {
	printf '%s: [%s] %s\n' "$me" "$(date -u +%H:%M:%S)" "$*"
}

# refuse WHY: bad input or an unfit machine, before anything was changed
refuse() {
	printf '%s: refusing: %s\n' "$me" "$*" >&2
	exit 2
}

# die WHY: a failure after changes began; the EXIT trap undoes them
die() {
	printf '%s: error: %s\n' "$me" "$*" >&2
	exit 1
}

is_uint() {
	case "$1" in '' | *[!0-9]*) return 1 ;; esac
}

# safe WORD: a path or value that needs no quoting in a command line
safe() {
	case "$1" in '' | *[!A-Za-z0-9_./:+-]*) return 1 ;; esac
}

in_list() { # WORD LIST
	case " $2 " in *" $1 "*) return 0 ;; esac
	return 1
}

# --- parameters ---------------------------------------------------------------------
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || grep -c ^processor /proc/cpuinfo)
modes=${METAL_MODES:-none voluntary full lazy}
ref=${METAL_REF:-lazy}
pages=${METAL_PAGES:-4k hugetlb}
clients=${METAL_CLIENTS:-$((10 * ncpu))}
threads=${METAL_THREADS:-$ncpu}
scale=${METAL_SCALE:-100}
fillfactor=${METAL_FILLFACTOR:-90}
sb=${METAL_SB:-1GB}
secs=${METAL_SECS:-60}
warmup=${METAL_WARMUP:-30}
reps=${METAL_REPS:-2}
blocks=${METAL_BLOCKS:-2}
order=${METAL_ORDER:-counterbalanced}
seed=${METAL_SEED:-1}
restart=${METAL_RESTART:-block}
protocol=${METAL_PROTOCOL:-prepared}
script=${METAL_SCRIPT:-simple-update}
checkpoint=${METAL_CHECKPOINT:-yes}
pg_settings=${METAL_PG_SETTINGS-max_wal_size=16GB checkpoint_timeout=30min}
user=${METAL_USER:-postgres}
pgbin=${METAL_PGBIN:-}
dir=${METAL_DIR:-/var/tmp}
pgdata_existing=${METAL_PGDATA:-}
db=${METAL_DB:-bench_metal}
init=${METAL_INIT:-yes}
init_steps=${METAL_INIT_STEPS:-dtGvp}
port=${METAL_PORT:-5432}
keep=${METAL_KEEP:-no}
outroot=${METAL_OUT:-${BUILD:-.}/bench-metal}
nboot=${METAL_BOOTSTRAP:-2000}
sysfs=${METAL_SYSFS_MODE:-/sys/kernel/preempt/mode}
lock=${METAL_LOCK:-/run/bench-metal.lock}
nr_file=/proc/sys/vm/nr_hugepages
thp_file=/sys/kernel/mm/transparent_hugepage/shmem_enabled

check_params() {
	for n in clients threads scale fillfactor secs warmup reps blocks seed port nboot; do
		eval "v=\$$n"
		# shellcheck disable=SC2154 # set by eval
		is_uint "$v" || refuse "$n must be a whole number, not '$v'"
	done
	for n in clients threads scale secs reps blocks nboot; do
		eval "v=\$$n"
		[ "$v" -gt 0 ] || refuse "$n must be at least 1"
	done
	[ "$threads" -le "$clients" ] || refuse "more threads ($threads) than clients ($clients)"
	if [ "$fillfactor" -lt 10 ] || [ "$fillfactor" -gt 100 ]; then
		refuse "fillfactor must be 10 to 100, not $fillfactor"
	fi
	[ -n "$modes" ] || refuse "METAL_MODES is empty"
	for m in $modes; do
		in_list "$m" "none voluntary full lazy" ||
			refuse "unknown mode '$m' in METAL_MODES (none voluntary full lazy)"
	done
	in_list "$ref" "$modes" || refuse "the reference mode METAL_REF=$ref is not in METAL_MODES ($modes)"
	[ "$(echo "$modes" | wc -w)" -ge 2 ] ||
		refuse "METAL_MODES needs $ref and at least one other mode to compare"
	[ -n "$pages" ] || refuse "METAL_PAGES is empty"
	for p in $pages; do
		in_list "$p" "4k hugetlb" || refuse "unknown page kind '$p' in METAL_PAGES (4k hugetlb)"
	done
	for l in "$modes" "$pages"; do
		[ "$(echo "$l" | tr ' ' '\n' | grep . | sort | uniq -d)" = "" ] ||
			refuse "a word repeats in '$l'"
	done
	in_list "$order" "counterbalanced random" || refuse "METAL_ORDER is counterbalanced or random, not '$order'"
	in_list "$restart" "block run" || refuse "METAL_RESTART is block or run, not '$restart'"
	in_list "$protocol" "simple extended prepared" ||
		refuse "METAL_PROTOCOL is simple, extended or prepared, not '$protocol'"
	in_list "$script" "simple-update tpcb-like select-only" ||
		refuse "METAL_SCRIPT is simple-update, tpcb-like or select-only, not '$script'"
	in_list "$checkpoint" "yes no" || refuse "METAL_CHECKPOINT is yes or no, not '$checkpoint'"
	in_list "$keep" "yes no" || refuse "METAL_KEEP is yes or no, not '$keep'"
	in_list "$init" "yes no" || refuse "METAL_INIT is yes or no, not '$init'"
	case "$sb" in
	[0-9]*kB | [0-9]*MB | [0-9]*GB | [0-9]*TB)
		is_uint "${sb%??}" || refuse "METAL_SB '$sb' is not a size like 512MB or 8GB"
		;;
	*) refuse "METAL_SB '$sb' is not a size like 512MB or 8GB" ;;
	esac
	case "$init_steps" in *[!dtgGvpf]* | '') refuse "METAL_INIT_STEPS '$init_steps' has a step pgbench -I does not know" ;; esac
	case "$db" in *[!a-z0-9_]* | '' | [0-9]*) refuse "METAL_DB '$db' is not a plain lower-case name" ;; esac
	case "$user" in *[!A-Za-z0-9_.-]* | '') refuse "METAL_USER '$user' is not a user name" ;; esac
	for s in $pg_settings; do
		case "${s%%=*}" in
		'' | "$s" | *[!a-z0-9_.]*) refuse "METAL_PG_SETTINGS: '$s' is not NAME=VALUE" ;;
		esac
		safe "${s#*=}" || refuse "METAL_PG_SETTINGS: the value in '$s' needs quoting"
		case "${s%%=*}" in
		shared_buffers | huge_pages | port | listen_addresses | unix_socket_directories | max_connections)
			refuse "METAL_PG_SETTINGS sets ${s%%=*}, which the kit sets itself (METAL_SB, METAL_PAGES, METAL_PORT, METAL_CLIENTS)" ;;
		esac
	done
	for v in "$dir" "$outroot" ${pgdata_existing:+"$pgdata_existing"} ${pgbin:+"$pgbin"}; do
		safe "$v" || refuse "the path '$v' has characters other than letters, digits and _./:+- (quote-free paths only)"
	done
}

# --- the run order --------------------------------------------------------------------
reverse() {
	echo "$1" | tr ' ' '\n' | awk 'NF { a[++n] = $0 } END { for (i = n; i >= 1; i--) printf "%s%s", a[i], (i > 1 ? " " : "\n") }'
}

# shuffle WORDS SEED
shuffle() {
	echo "$1" | awk -v s="$2" '{
		srand(s)
		n = split($0, a, " ")
		for (i = n; i > 1; i--) { j = int(rand() * i) + 1; t = a[i]; a[i] = a[j]; a[j] = t }
		for (i = 1; i <= n; i++) printf "%s%s", a[i], (i < n ? " " : "\n")
	}'
}

# plan: one line per run, "BLOCK PAGES REP MODE", in the order they run
plan() {
	b=0 k=0 j=1
	while [ "$j" -le "$blocks" ]; do
		if [ "$order" = random ]; then
			plist=$(shuffle "$pages" $((seed * 1000 + j)))
		elif [ $((j % 2)) = 1 ]; then
			plist=$pages
		else
			plist=$(reverse "$pages")
		fi
		for p in $plist; do
			b=$((b + 1))
			r=1
			while [ "$r" -le "$reps" ]; do
				k=$((k + 1))
				if [ "$order" = random ]; then
					mlist=$(shuffle "$modes" $((seed * 100000 + k)))
				elif [ $((k % 2)) = 1 ]; then
					mlist=$modes
				else
					mlist=$(reverse "$modes")
				fi
				for m in $mlist; do
					echo "$b $p $r $m"
				done
				r=$((r + 1))
			done
		done
		j=$((j + 1))
	done
}

# --- the machine ------------------------------------------------------------------------
mode_now() {
	sed -n 's/.*\[\([a-z]*\)\].*/\1/p' "$sysfs" 2>/dev/null
}

mode_set() {
	mode_changed=1
	printf '%s\n' "$1" >"$sysfs" 2>/dev/null && [ "$(mode_now)" = "$1" ]
}

meminfo() { # FIELD: its number
	awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo
}

bracketed() { # FILE: the [selected] word
	sed -n 's/.*\[\([a-z_]*\)\].*/\1/p' "$1" 2>/dev/null
}

find_pgbin() {
	if [ -n "$pgbin" ]; then
		[ -x "$pgbin/postgres" ] || refuse "no postgres in METAL_PGBIN=$pgbin"
		return
	fi
	best=
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/postgres" ] || continue
		v=${d%/bin}
		v=${v##*/}
		is_uint "$v" || continue
		if [ -z "$best" ] || [ "$v" -gt "$best" ]; then
			best=$v
			pgbin=$d
		fi
	done
	if [ -z "$pgbin" ] && command -v postgres >/dev/null 2>&1; then
		pgbin=$(dirname "$(command -v postgres)")
	fi
	[ -n "$pgbin" ] || refuse "no PostgreSQL found (no /usr/lib/postgresql/*/bin/postgres, no postgres on PATH): install it or set METAL_PGBIN"
	safe "$pgbin" || refuse "the PostgreSQL directory '$pgbin' needs quoting; set METAL_PGBIN"
}

# as_user CMD: CMD through the user's /bin/sh, with the server's socket;
# pgbench needs a descriptor per client
as_user() {
	su "$user" -s /bin/sh -c "PATH=$pgbin:/usr/bin:/bin PGHOST=$sock PGPORT=$port LC_ALL=C
		export PATH PGHOST PGPORT LC_ALL
		ulimit -n $((clients * 2 + 256)) 2>/dev/null
		$1" </dev/null
}

machine_record() {
	model=
	if command -v lscpu >/dev/null 2>&1; then
		model=$(LC_ALL=C lscpu | sed -n 's/^Model name: *//p' | head -n 1)
		numa=$(LC_ALL=C lscpu | sed -n 's/^NUMA node(s): *//p')
	fi
	[ -n "$model" ] || model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	[ -n "$model" ] || model=$(awk -F': ' '/^CPU implementer/ { i = $2 } /^CPU part/ { p = $2 }
		END { if (i != "") print "implementer " i " part " p }' /proc/cpuinfo)
	cfg=
	if [ -r /proc/config.gz ]; then
		cfg=$(gzip -dc /proc/config.gz 2>/dev/null)
	elif [ -r "/boot/config-$(uname -r)" ]; then
		cfg=$(cat "/boot/config-$(uname -r)")
	fi
	preempt_cfg=$(printf '%s\n' "$cfg" | grep -E '^CONFIG_(PREEMPT[A-Z_]*|HZ)=|^# CONFIG_PREEMPT[A-Z_]* is not set' | tr '\n' ' ')
	gov=$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null)
	cat <<EOF
date: $(date -u +%Y-%m-%dT%H:%M:%SZ)
hostname: $(uname -n)
uname: $(uname -a)
kernel: $(uname -r)
nproc: $ncpu
cpu_model: ${model:-unknown}
numa_nodes: ${numa:-$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' 2>/dev/null | wc -l | sed 's/^0$/-/')}
mem_total_kb: $(meminfo MemTotal)
hugepagesize_kb: $(meminfo Hugepagesize)
cpufreq_governor: ${gov:--}
cmdline: $(cat /proc/cmdline 2>/dev/null)
preempt_modes: $(cat "$sysfs" 2>/dev/null)
kernel_config: ${preempt_cfg:-no /proc/config.gz or /boot/config-$(uname -r)}
shmem_enabled: $(cat "$thp_file" 2>/dev/null || echo -)
nr_hugepages: $(cat "$nr_file" 2>/dev/null)
postgresql: $("$pgbin/postgres" -V)
pgbench: $("$pgbin/pgbench" -V)
bench.modes: $modes
bench.ref: $ref
bench.pages: $pages
bench.clients: $clients
bench.threads: $threads
bench.scale: $scale
bench.fillfactor: $fillfactor
bench.shared_buffers: $sb
bench.secs: $secs
bench.warmup: $warmup
bench.reps: $reps
bench.blocks: $blocks
bench.order: $order
bench.seed: $seed
bench.restart: $restart
bench.protocol: $protocol
bench.script: $script
bench.checkpoint: $checkpoint
bench.pg_settings: $pg_settings
bench.cluster: $cluster_desc
bench.pgbench: pgbench -b $script -M $protocol -c $clients -j $threads -T $secs $db
EOF
}

# --- the server -----------------------------------------------------------------------
# server_opts PAGES: the -c settings of a start
server_opts() {
	hp=off
	[ "$1" != hugetlb ] || hp=on
	o="-c port=$port -c listen_addresses= -c unix_socket_directories=$sock"
	o="$o -c max_connections=$((clients + 10)) -c shared_buffers=$sb -c huge_pages=$hp"
	for s in $pg_settings; do
		o="$o -c $s"
	done
	printf '%s' "$o"
}

pg_start() { # PAGES
	starts=$((starts + 1))
	say "server start $starts ($1 pages)"
	server_up=1
	as_user "pg_ctl -D $data -l $work/server.log -w -t 600 -o '$(server_opts "$1")' start" \
		>"$work/pg_ctl.out" 2>&1 ||
		die "the server did not start with $1 pages: $(tail -n 5 "$work/server.log" 2>/dev/null | tr '\n' ' ')"
}

pg_stop() {
	as_user "pg_ctl -D $data -w -t 1800 -m fast stop" >"$work/pg_ctl.out" 2>&1 || return 1
	server_up=0
}

sql_in() { # DB SQL: one query's rows, unaligned
	as_user "psql -X -q -At -v ON_ERROR_STOP=1 -d $1 -c \"$2\""
}

sql() { # SQL: sql_in the benchmark's database
	sql_in "$db" "$1"
}

# hugepages_needed: sets hp_need, what the server's shared memory takes in
# huge pages, and hp_how, where that figure came from
hugepages_needed() {
	n=$(as_user "postgres -D $data -C shared_memory_size_in_huge_pages $(server_opts hugetlb)" 2>/dev/null)
	if is_uint "$n" && [ "$n" -gt 0 ]; then
		hp_how="postgres -C shared_memory_size_in_huge_pages"
	else
		# before PostgreSQL 15: shared_buffers, a tenth more and 64 MB
		# for the rest, 100 kB per connection
		case "$sb" in
		*kB) kb=${sb%kB} ;; *MB) kb=$((${sb%MB} * 1024)) ;;
		*GB) kb=$((${sb%GB} * 1048576)) ;; *TB) kb=$((${sb%TB} * 1073741824)) ;;
		esac
		n=$(((kb * 11 / 10 + 65536 + clients * 100) / $(meminfo Hugepagesize) + 1))
		hp_how="estimated (no shared_memory_size_in_huge_pages before PostgreSQL 15)"
	fi
	hp_need=$n
}

# hugepages_for PAGES: reserve the server's huge pages for hugetlb (only
# what the free pool lacks), give them back for 4k
hugepages_for() {
	if [ "$1" = 4k ]; then
		if [ "$hp_changed" = 1 ] && [ "$(cat "$nr_file")" != "$orig_nr" ]; then
			echo "$orig_nr" >"$nr_file" || die "could not set vm.nr_hugepages back to $orig_nr"
		fi
		return
	fi
	free=$(meminfo HugePages_Free)
	if [ "$free" -lt "$hp_need" ]; then
		hp_changed=1
		want=$(($(cat "$nr_file") + hp_need - free))
		echo "$want" >"$nr_file" 2>/dev/null
		free=$(meminfo HugePages_Free)
		[ "$free" -ge "$hp_need" ] ||
			die "vm.nr_hugepages=$want gave $free free huge pages, the server needs $hp_need (memory too fragmented? reserve them at boot: hugepages=N)"
	fi
}

# run_pgbench SECONDS OUTFILE: pgbench in the background, so that a signal
# reaches the trap at once instead of after the run
run_pgbench() {
	as_user "exec pgbench -b $script -M $protocol -c $clients -j $threads -T $1 $db" >"$2" 2>&1 &
	bg=$!
	wait "$bg"
	pb_rc=$?
	bg=
	return "$pb_rc"
}

warm_up() { # PAGES MODE
	[ "$warmup" -gt 0 ] || return 0
	mode_set "$2" || die "could not switch to $2 through $sysfs"
	say "warm-up, $warmup s ($1 pages, $2)"
	run_pgbench "$warmup" "$out/runs/warmup-$starts.txt" ||
		die "the warm-up failed: $(tail -n 3 "$out/runs/warmup-$starts.txt" | tr '\n' ' ')"
}

# --- undoing ----------------------------------------------------------------------------
bg='' server_up=0 mode_changed=0 hp_changed=0 thp_changed=0 lock_held=0 work='' sock='' out=''
t_start=$(date +%s)
cleanup() {
	rc=$?
	trap '' INT TERM HUP
	restored=
	[ -z "$bg" ] || kill "$bg" 2>/dev/null
	if [ "$mode_changed" = 1 ]; then
		if mode_set "$orig_mode"; then
			restored="$restored mode=$orig_mode"
		else
			printf '%s: could not put the preemption mode back to %s (%s says: %s)\n' \
				"$me" "$orig_mode" "$sysfs" "$(cat "$sysfs" 2>&1)" >&2
			rc=3
		fi
	fi
	# a server that failed to start has no postmaster.pid to stop
	if [ "$server_up" = 1 ]; then
		if pg_stop || [ ! -e "$data/postmaster.pid" ]; then
			server_up=0
		else
			printf '%s: could not stop the server of %s: %s\n' "$me" "$data" "$(cat "$work/pg_ctl.out")" >&2
			rc=3
		fi
	fi
	[ -z "$bg" ] || wait "$bg" 2>/dev/null
	if [ "$hp_changed" = 1 ]; then
		echo "$orig_nr" >"$nr_file" 2>/dev/null
		if [ "$(cat "$nr_file")" = "$orig_nr" ]; then
			restored="$restored vm.nr_hugepages=$orig_nr"
		else
			printf '%s: could not put vm.nr_hugepages back to %s (now %s)\n' \
				"$me" "$orig_nr" "$(cat "$nr_file")" >&2
			rc=3
		fi
	fi
	if [ "$thp_changed" = 1 ]; then
		if echo "$orig_thp" >"$thp_file" 2>/dev/null && [ "$(bracketed "$thp_file")" = "$orig_thp" ]; then
			restored="$restored shmem_enabled=$orig_thp"
		else
			printf '%s: could not put %s back to %s\n' "$me" "$thp_file" "$orig_thp" >&2
			rc=3
		fi
	fi
	if [ -n "$work" ] && [ "$server_up" = 0 ]; then
		if [ -z "$pgdata_existing" ] && [ "$keep" = yes ]; then
			say "kept the cluster in $data (METAL_PGDATA=$data METAL_INIT=no reuses it)"
			rm -rf "$sock"
		else
			rm -rf "$work"
		fi
	fi
	[ "$lock_held" = 0 ] || rm -rf "$lock"
	[ -z "$restored" ] || say "restored:$restored"
	# an interrupted run still reports the runs it finished
	if [ -n "$out" ] && [ -s "$out/raw.txt" ] && [ ! -e "$out/results.md" ]; then
		echo "bench.took_s: $(($(date +%s) - t_start)) (interrupted after $(grep -c '^run ' "$out/raw.txt") of $(wc -l <"$out/plan.txt") runs)" \
			>>"$out/machine.txt"
		report "$out" && say "partial results: $out/results.md"
	fi
	[ "$rc" = 0 ] || say "exit $rc"
	exit "$rc"
}

# --- the report -------------------------------------------------------------------------
report() { # DIR
	rd=$1
	if [ ! -s "$rd/raw.txt" ] || [ ! -s "$rd/machine.txt" ]; then
		echo "$me: no raw.txt or machine.txt in $rd" >&2
		return 1
	fi
	rseed=$(sed -n 's/^bench\.seed: //p' "$rd/machine.txt")
	awk -v json="$rd/results.json" -v tpsdat="$rd/tps.dat" -v ratiodat="$rd/ratio.dat" \
		-v seed="${rseed:-1}" -v boots="$nboot" \
		-f "$here/stats-lib.awk" -f "$here/metal-stats.awk" \
		"$rd/machine.txt" "$rd/raw.txt" >"$rd/results.md" || return 1
	if ! command -v gnuplot >/dev/null 2>&1; then
		echo "$me: no gnuplot here: results.png not made (run $0 --report $rd where gnuplot is)" >&2
		return 0
	fi
	rref=$(sed -n 's/^bench\.ref: //p' "$rd/machine.txt")
	title=$(sed -n '3p' "$rd/results.md" | cut -c1-150)
	nb=$(grep -c '^"' "$rd/tps.dat")
	gnuplot -e "tpsdat='$rd/tps.dat'; ratiodat='$rd/ratio.dat'; png='$rd/results.png'; ref='${rref:-lazy}'; nb=$nb; title='$(printf '%s' "$title" | tr -d "'")'" \
		"$here/metal.gp" 2>"$rd/gnuplot.err" ||
		{ echo "$me: gnuplot failed: $(cat "$rd/gnuplot.err")" >&2; return 1; }
}

# --- main -------------------------------------------------------------------------------
case "${1:-}" in
--report)
	[ $# = 2 ] || refuse "--report needs a results directory"
	[ -d "$2" ] || refuse "--report: no directory $2"
	report "$2" || exit 1
	ls "$2"/results.*
	exit 0
	;;
--plan)
	check_params
	runs=$(plan | wc -l)
	nstarts=$((blocks * $(echo "$pages" | wc -w)))
	[ "$restart" = block ] || nstarts=$runs
	echo "# block pages rep mode ($runs runs, $nstarts server starts, about $(((runs * secs + nstarts * warmup) / 60)) min plus the initialisation)"
	plan
	exit 0
	;;
'') ;;
-h | --help)
	sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 0
	;;
*) refuse "unknown argument '$1' (--plan, --report DIR, --help)" ;;
esac

check_params
[ "$(id -u)" = 0 ] ||
	refuse "run as root: the kit switches $sysfs and vm.nr_hugepages (sudo make bench-metal)"
[ -e "$sysfs" ] ||
	refuse "$sysfs is missing: this kernel cannot switch preemption modes at runtime (boot the patched kernel built with CONFIG_PREEMPT_DYNAMIC_ALL_MODES=y)"
offered=$(tr -d '[]' <"$sysfs")
for m in $modes; do
	in_list "$m" "$offered" || refuse "this kernel does not offer the mode $m ($sysfs: $(cat "$sysfs"))"
done
orig_mode=$(mode_now)
[ -n "$orig_mode" ] || refuse "cannot tell the current mode from $sysfs ($(cat "$sysfs"))"
find_pgbin
for p in postgres pg_ctl psql pgbench; do
	[ -x "$pgbin/$p" ] || refuse "no $p in $pgbin"
done
orig_nr=$(cat "$nr_file" 2>/dev/null)
if in_list hugetlb "$pages"; then
	if ! is_uint "$orig_nr" || [ -z "$(meminfo Hugepagesize)" ]; then
		refuse "this kernel has no hugetlb pages ($nr_file); run with METAL_PAGES=4k"
	fi
fi
if [ -n "$pgdata_existing" ]; then
	[ -f "$pgdata_existing/PG_VERSION" ] || refuse "METAL_PGDATA=$pgdata_existing is not a cluster (no PG_VERSION)"
	[ ! -e "$pgdata_existing/postmaster.pid" ] ||
		refuse "the cluster in $pgdata_existing is running (or was not shut down cleanly): stop it first"
	user=$(stat -c %U "$pgdata_existing")
	cluster_desc="existing cluster $pgdata_existing, database $db (METAL_INIT=$init)"
else
	[ -x "$pgbin/initdb" ] || refuse "no initdb in $pgbin"
	id "$user" >/dev/null 2>&1 || refuse "no user '$user' (METAL_USER) to run PostgreSQL"
	[ -d "$dir" ] || refuse "METAL_DIR=$dir is not a directory"
	avail=$(df -Pk "$dir" 2>/dev/null | awk 'NR == 2 { print $4 }')
	need=$((scale * 18 + 256))
	if is_uint "$avail" && [ "$avail" -gt 0 ] && [ $((avail / 1024)) -lt "$need" ]; then
		refuse "METAL_DIR=$dir has $((avail / 1024)) MB free, scale $scale needs about $need MB"
	fi
	cluster_desc="throwaway cluster under $dir ($([ "$keep" = yes ] && echo kept || echo removed) at the end)"
fi
id "$user" >/dev/null 2>&1 || refuse "no user '$user' owns the cluster"
[ -d "$(dirname "$lock")" ] || lock=/tmp/bench-metal.lock

# From here on every change is undone on exit.
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
if ! mkdir "$lock" 2>/dev/null; then
	other=$(cat "$lock/pid" 2>/dev/null)
	if [ -n "$other" ] && kill -0 "$other" 2>/dev/null; then
		refuse "another bench-metal (pid $other) is running ($lock)"
	fi
	rm -rf "$lock"
	mkdir "$lock" || refuse "cannot take the lock $lock"
fi
lock_held=1
echo $$ >"$lock/pid"

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=$outroot/$stamp
mkdir -p "$out/runs" || die "cannot create $out"
ln -sfn "$stamp" "$outroot/latest" 2>/dev/null || true
if [ -n "$pgdata_existing" ]; then
	work=$(mktemp -d /tmp/bench-metal.XXXXXX) || die "mktemp failed"
	data=$pgdata_existing
else
	work=$(mktemp -d "$dir/bench-metal.XXXXXX") || die "mktemp in $dir failed"
	data=$work/data
fi
sock=$work/sock
mkdir -p "$sock"
chown "$user" "$work" "$sock" || die "cannot give $work to $user"
chmod 0700 "$sock"
starts=0
machine_record >"$out/machine.txt"
plan >"$out/plan.txt"
say "results in $out; $(wc -l <"$out/plan.txt") runs (tests/bench/bench-metal.sh --plan shows the order)"

if [ -n "$thp_file" ] && [ -w "$thp_file" ] && in_list 4k "$pages"; then
	orig_thp=$(bracketed "$thp_file")
	case "$orig_thp" in
	never | deny | '') ;;
	*)
		# shmem THP would back the "4 KiB" buffer pool with 2 MB pages
		thp_changed=1
		echo never >"$thp_file" || die "cannot set $thp_file to never"
		say "shmem_enabled $orig_thp -> never for the 4 KiB runs"
		;;
	esac
fi

if [ -z "$pgdata_existing" ]; then
	say "initdb in $data"
	as_user "initdb -D $data --locale=C -E UTF8 -A trust" >"$out/initdb.log" 2>&1 ||
		die "initdb failed: $(tail -n 3 "$out/initdb.log" | tr '\n' ' ')"
fi
pg_start 4k
if [ "$(sql_in postgres "SELECT count(*) FROM pg_database WHERE datname = '$db'")" != 1 ]; then
	[ "$init" = yes ] || die "no database $db in the cluster, and METAL_INIT=no"
	sql_in postgres "CREATE DATABASE $db" >/dev/null || die "CREATE DATABASE $db failed"
fi
if [ "$init" = yes ]; then
	say "pgbench -i -s $scale -F $fillfactor (steps $init_steps)"
	t0=$(date +%s)
	as_user "pgbench -i -q -I $init_steps -s $scale -F $fillfactor $db" >"$out/init.log" 2>&1 ||
		die "pgbench -i failed: $(tail -n 3 "$out/init.log" | tr '\n' ' ')"
	echo "bench.init_s: $(($(date +%s) - t0))" >>"$out/machine.txt"
else
	s=$(sql "SELECT count(*) FROM pgbench_branches") || die "no pgbench tables in $db (METAL_INIT=no)"
	[ "$s" = "$scale" ] || die "the pgbench tables in $db are at scale $s, not METAL_SCALE=$scale"
fi
echo "data_mb: $(sql "SELECT pg_database_size('$db') / 1048576")" >>"$out/machine.txt"
sql "SELECT 'pg.' || name || ': ' || current_setting(name) FROM pg_settings
	WHERE (source NOT IN ('default', 'override') OR name IN ('server_version',
	'shared_memory_size', 'huge_page_size', 'fsync', 'synchronous_commit', 'wal_level'))
	AND name NOT IN ('huge_pages', 'port', 'unix_socket_directories') ORDER BY name" \
	>>"$out/machine.txt" || die "could not read the server's settings"
pg_stop || die "could not stop the server: $(cat "$work/pg_ctl.out")"

if in_list hugetlb "$pages"; then
	say "sizing the huge pages"
	hugepages_needed
	echo "bench.hugepages_needed: $hp_need ($hp_how)" >>"$out/machine.txt"
fi

# --- the runs -----------------------------------------------------------------------------
t_start=$(date +%s)
prev_block=0
n=0
nruns=$(wc -l <"$out/plan.txt")
while read -r b p r m; do
	n=$((n + 1))
	if [ "$b" != "$prev_block" ] || [ "$restart" = run ]; then
		[ "$server_up" = 0 ] || pg_stop || die "could not stop the server: $(cat "$work/pg_ctl.out")"
		hugepages_for "$p"
		pg_start "$p"
		pos=0
		warm_up "$p" "$m"
		prev_block=$b
	fi
	pos=$((pos + 1))
	mode_set "$m" || die "could not switch to $m through $sysfs ($(cat "$sysfs"))"
	if [ "$checkpoint" = yes ]; then
		sql "CHECKPOINT" >/dev/null || die "CHECKPOINT failed"
	fi
	f=$out/runs/$(printf '%03d' "$n")-$p-$m.txt
	say "run $n of $nruns: block $b, $p pages, $m, rep $r"
	t0=$(date +%s)
	run_pgbench "$secs" "$f"
	rc=$?
	t1=$(date +%s)
	now=$(mode_now)
	[ "$now" = "$m" ] ||
		die "the mode changed from $m to $now during run $n: something else switches modes (preempt-policy-check.timer with after-start = apply? systemctl stop preempt-policy-check.timer)"
	read -r tps lat failed txns <<EOF
$(awk '/^tps = / { t = $3 } /^latency average = / { l = $4 }
	/^number of failed transactions: / { f = $5 }
	/^number of transactions actually processed: / { split($6, a, "/"); x = a[1] }
	END { print (t == "" ? "-" : t), (l == "" ? "-" : l), (f == "" ? "-" : f), (x == "" ? "-" : x) }' "$f")
EOF
	[ "$tps" != - ] || die "pgbench (exit $rc) gave no tps in run $n: $(tail -n 3 "$f" | tr '\n' ' ')"
	echo "run pages=$p mode=$m block=$b rep=$r pos=$pos start=$starts tps=$tps lat_ms=$lat failed=$failed secs=$((t1 - t0)) txns=$txns" >>"$out/raw.txt"
	say "  $tps tps, latency $lat ms, $failed failed"
done <"$out/plan.txt"
pg_stop || die "could not stop the server: $(cat "$work/pg_ctl.out")"
echo "bench.took_s: $(($(date +%s) - t_start))" >>"$out/machine.txt"
report "$out" || die "the report failed"
cat "$out/results.md"
ls -l "$out"/results.*
