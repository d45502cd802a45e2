#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# advise against the real server: a throwaway PostgreSQL 15 postmaster is
# started with huge_pages=try (with no free hugetlb pages it falls back to
# base pages, as on a machine that reserved too few); the live facts must
# see its segment in base pages, and advise's page count for it must equal
# `postgres -C shared_memory_size_in_huge_pages` of the same settings, run
# once the server is stopped (on a running one the server refuses).
# Usage: advise_real.sh PREEMPT-POLICY [PG_BINDIR]
# Needs root (to read the postmaster's smaps; postgres runs as postgres)
# and Debian's postgresql-15 (make deps). Nothing on the host changes but
# a directory in /tmp; the server listens on a Unix socket there only.
BIN=${1:?usage: advise_real.sh BINARY [PG_BINDIR]}
PGBIN=${2:-/usr/lib/postgresql/15/bin}

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../tests/lib/tap.sh
. "$HERE/../../tests/lib/tap.sh"
# shellcheck source=policy/tests/pg_real_lib.sh
. "$HERE/pg_real_lib.sh"
pg_real_setup advise
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
stop() { as_pg "$PGBIN/pg_ctl" -D "$TMP/data" -m immediate stop >/dev/null 2>&1; }
trap 'stop; rm -rf "$TMP"' EXIT
pg_real_initdb
free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0)
echo "# free 2 MiB hugetlb pages on this host: $free (huge_pages=try falls back when too few)"

# point SETTINGS...: start, advise, stop, postgres -C; "name=value" words.
point() {
	args="-c huge_pages=try -c listen_addresses= -k $TMP -p 5432"  # the socket is in $TMP: no clash
	for s in "$@"; do args="$args -c $s"; done
	rm -f "$TMP/log"
	if ! as_pg "$PGBIN/pg_ctl" -D "$TMP/data" -o "$args" -l "$TMP/log" -w \
		start >/dev/null 2>&1; then
		not_ok "$*: server did not start"
		sed 's/^/# /' "$TMP/log" | tail -5
		return
	fi
	pid=$(head -n 1 "$TMP/data/postmaster.pid")
	"$BIN" --root "$TMP" --json advise 2>"$TMP/err" >"$TMP/advise.json"
	tool=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d["clusters"] if c["name"].startswith("postmaster %s " % sys.argv[2])][0]
assert c["source"] == "segment", c
print(c["hugepages_needed"], c["backing"])' "$TMP/advise.json" "$pid" 2>>"$TMP/err")
	stop
	# shellcheck disable=SC2086 # args are name=value words without blanks
	real=$(as_pg "$PGBIN/postgres" -C shared_memory_size_in_huge_pages \
		-D "$TMP/data" $args 2>>"$TMP/err")
	backing=${tool#* }
	tool=${tool% *}
	if [ -n "$real" ] && [ "$tool" = "$real" ] && [ "$backing" = none ]; then
		ok "$*: server $real, advise $tool huge pages (segment in base pages)"
	else
		not_ok "$*: server ${real:-?}, advise ${tool:-?} huge pages, backing ${backing:-?}"
		sed 's/^/# /' "$TMP/err" | head -5
	fi
}

if [ "$free" -gt 0 ]; then
	skip "advise against the real server" "$free free huge pages here: huge_pages=try would take them"
	exit 0
fi
point shared_buffers=128MB
point shared_buffers=512MB
point shared_buffers=1GB max_connections=1000
point shared_buffers=1200MB
point shared_buffers=256MB min_dynamic_shared_memory=64MB
tap_done
