#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The tool's PostgreSQL shared memory estimate against the real server:
# for a grid of settings, `postgres -C shared_memory_size_in_huge_pages`
# on a throwaway cluster (server stopped) must be <= the huge pages the
# tool says the cluster needs, and the tool at most 2 % above it.
# Usage: pg_shmem_real.sh PREEMPT-POLICY [PG_BINDIR]
# Needs root (postgres runs as the postgres user) and Debian's
# postgresql-15 (make deps); TAP output, one test per grid point.
BIN=${1:?usage: pg_shmem_real.sh BINARY [PG_BINDIR]}
PGBIN=${2:-/usr/lib/postgresql/15/bin}
HERE=$(cd "$(dirname "$0")" && pwd)
KERNEL=$HERE/fixtures/patched

# shellcheck source=../../tests/lib/tap.sh
. "$HERE/../../tests/lib/tap.sh"
# shellcheck source=policy/tests/pg_real_lib.sh
. "$HERE/pg_real_lib.sh"
pg_real_setup pgshm
trap 'rm -rf "$TMP"' EXIT
pg_real_initdb

# point SETTINGS...: "name=value" words, compared over one root.
point() {
	root=$TMP/root
	rm -rf "$root"
	mkdir -p "$root/etc/postgresql/15/main"
	set -- "$@"
	args=
	for s in "$@"; do
		printf '%s\n' "$s" >>"$root/etc/postgresql/15/main/postgresql.conf"
		args="$args -c $s"
	done
	# shellcheck disable=SC2086 # args are name=value words without blanks
	real=$(as_pg "$PGBIN/postgres" -C shared_memory_size_in_huge_pages \
		-D "$TMP/data" $args 2>"$TMP/err")
	tool=$("$BIN" --proc "$KERNEL/proc" --sys "$KERNEL/sys" --root "$root" \
		--json explain 2>>"$TMP/err" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["clusters"][0]["hugepages_needed"])' 2>>"$TMP/err")
	if [ -n "$real" ] && [ -n "$tool" ] && [ "$tool" -ge "$real" ] &&
		[ $((tool * 100)) -le $((real * 102)) ]; then
		ok "$*: server $real, tool $tool huge pages"
	else
		not_ok "$*: server ${real:-?}, tool ${tool:-?} huge pages"
		sed 's/^/# /' "$TMP/err" | head -5
	fi
}

for sb in 16MB 128MB 512MB 1GB 1.2GB 1200MB 2GB 8GB 24GB; do
	point "shared_buffers=$sb"
	point "shared_buffers=$sb" max_connections=1000
done
point shared_buffers=1GB max_connections=300 max_worker_processes=32 \
	max_wal_senders=20 autovacuum_max_workers=10
point shared_buffers=1GB max_connections=5000
point shared_buffers=512MB max_locks_per_transaction=256
point shared_buffers=512MB max_pred_locks_per_transaction=512
point shared_buffers=2GB max_prepared_transactions=200
point shared_buffers=4GB wal_buffers=64MB
point shared_buffers=128MB wal_buffers=64kB
point shared_buffers=256MB track_activity_query_size=32kB
point shared_buffers=256MB max_replication_slots=500
point shared_buffers=256MB min_dynamic_shared_memory=64MB
point shared_buffers=0x8000 max_connections=010000
point shared_buffers=+131072 max_connections=0x200
tap_done
