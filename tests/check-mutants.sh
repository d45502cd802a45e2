#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-mutants.sh [NAME...]   (make check-mutants)
# Proof that make check catches breakage: each mutant in tests/mutants/
# (NAME.sh) breaks one thing the project promises, in a scratch copy of the
# work tree, and names the suites that must catch it. The suites run there
# through tests/check.sh; a mutant is killed when they fail (exit status
# non-zero with at least one "not ok" line). Prints TAP, one line per
# mutant, with the first failure that killed it, and ends with
# "N passed, N failed": a surviving mutant, or one that did not apply, is a
# failure. Not part of make check (kernel mutants rebuild a kernel each).
#
# A mutant file is sourced by sh in the scratch copy's top directory, with
# `mutate FILE OLD NEW` (replace the one line equal to OLD; fails unless
# exactly one line matches) and `kernel_patch FILE` (append a kernel patch
# from tests/mutants/ to patches/series). Its header names:
#   # suites: NN-name ...          the suites that must kill it
#   # env: VAR=value ...           the environment they run with
#   # kernel: ARCH ...             kernels to rebuild (kernel mutants)
# A kernel mutant gets a cache of its own (its patched tree and kernels),
# whose other entries (pristine tree, QEMU, guest roots, the control
# kernels) are links to the real cache, and builds its kernel there with
# ccache, so the real cache's patched tree is never touched.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. tests/rig/lib.sh
. tests/lib/tap.sh

work=${MUTANTS_WORK:-${BUILD:-$top/build}/mutants}
cache=$(cache_dir)
if [ $# -gt 0 ]; then
	names=$*
else
	names=
	for m in tests/mutants/*.sh; do
		m=${m##*/}
		names="$names ${m%.sh}"
	done
fi
mkdir -p "$work"
killed=0 survived=0

# header FILE KEY: the words after "# KEY:" in FILE's header
header() {
	sed -n "s/^# $2: *//p" "$1" | head -n 1
}

# scratch DIR: a copy of the tracked and untracked (not ignored) files
scratch() {
	rm -rf "$1"
	mkdir -p "$1"
	git ls-files -co --exclude-standard -z |
		rsync -a --from0 --files-from=- ./ "$1/"
}

# mutant_cache DIR: a cache for a kernel mutant: links to the real cache's
# entries, but trees/ and obj/ of its own; obj/ links the kernels it does
# not rebuild.
mutant_cache() {
	rm -rf "$1"
	mkdir -p "$1/trees" "$1/obj"
	for e in "$cache"/*; do
		case ${e##*/} in
		trees | obj) ;;
		*) ln -s "$e" "$1/${e##*/}" ;;
		esac
	done
	for o in "$cache"/obj/*; do
		[ -e "$o" ] || continue
		case ${o##*/} in
		*-patched) ;;
		*) ln -s "$(readlink -f "$o")" "$1/obj/${o##*/}" ;;
		esac
	done
}

echo "TAP version 13"
start_all=$(date +%s)
for name in $names; do
	m=$top/tests/mutants/$name.sh
	if [ ! -f "$m" ]; then
		not_ok "mutant $name: no tests/mutants/$name.sh"
		survived=$((survived + 1))
		continue
	fi
	suites=$(header "$m" suites)
	envs=$(header "$m" env)
	kernels=$(header "$m" kernel)
	dir=$work/$name
	log=$work/$name.log
	start=$(date +%s)
	scratch "$dir/src"
	# shellcheck disable=SC2016 # expanded by the inner sh
	if ! (cd "$dir/src" && MUTANTS=$top/tests/mutants sh -eu -c '
		mutate() {
			n=$(grep -cxF -- "$2" "$1" || true)
			[ "$n" = 1 ] || { echo "mutate: $1 has $n lines equal to: $2" >&2; exit 1; }
			awk -v old="$2" -v new="$3" "\$0 == old { print new; next } { print }" "$1" >"$1.mut"
			cat "$1.mut" >"$1" && rm -f "$1.mut"
		}
		kernel_patch() {
			cp "$MUTANTS/$1" patches/mutant.patch
			printf "%s\n" mutant.patch >>patches/series
		}
		. "$0"' "$m") >"$log" 2>&1; then
		not_ok "mutant $name: did not apply (see $log)"
		diag "$(tail -n 5 "$log")"
		survived=$((survived + 1))
		continue
	fi
	mcache=$cache
	if [ -n "$kernels" ]; then
		mcache=$dir/cache
		mutant_cache "$mcache"
		ok=yes
		for arch in $kernels; do
			(cd "$dir/src" && PREEMPT_CACHE=$mcache BUILD=$dir/build \
				make -s "kernel-$arch-patched") >>"$log" 2>&1 || ok=
		done
		if [ -z "$ok" ]; then
			not_ok "mutant $name: its kernel did not build (see $log)"
			diag "$(tail -n 5 "$log")"
			survived=$((survived + 1))
			continue
		fi
	fi
	paths=
	for s in $suites; do
		paths="$paths tests/suites/$s.sh"
	done
	rc=0
	# shellcheck disable=SC2086 # word lists
	(cd "$dir/src" && env PREEMPT_CACHE="$mcache" BUILD="$dir/build" CHECK_PREBUILD=no \
		$envs sh tests/check.sh $paths) >"$dir/check.out" 2>&1 || rc=$?
	took=$(($(date +%s) - start))
	first=$(grep -m 1 '^not ok' "$dir/check.out")
	if [ "$rc" -ne 0 ] && [ -n "$first" ]; then
		ok "mutant $name killed by ${first#not ok [0-9]* - } (${took} s)"
		killed=$((killed + 1))
	else
		not_ok "mutant $name survived $suites (exit $rc, ${took} s; see $dir/check.out)"
		diag "$(tail -n 3 "$dir/check.out")"
		survived=$((survived + 1))
	fi
done
tap_plan
echo "# all mutants took $(($(date +%s) - start_all)) s"
echo "$killed passed, $survived failed"
[ "$survived" -eq 0 ]
