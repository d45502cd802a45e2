# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Sourced by the tests against the real PostgreSQL 15 server: checks that
# the server, the postgres user and root are there, makes TMP (owned by
# postgres) and a throwaway cluster in TMP/data, and defines as_pg. Exits
# with a "not ok" line when any of that fails (tests/lib/tap.sh sourced
# first). Callers set PGBIN and trap
# the removal of TMP.
# pg_real_setup NAME: TMP is /tmp/preempt-policy-NAME.XXXXXX.
pg_real_setup() {
	if [ ! -x "$PGBIN/postgres" ] || ! id postgres >/dev/null 2>&1 ||
		[ "$(id -u)" -ne 0 ]; then
		not_ok "real PostgreSQL: no $PGBIN/postgres, postgres user or root (make deps)"
		exit 1
	fi
	TMP=$(mktemp -d "/tmp/preempt-policy-$1.XXXXXX") || exit 1
	chown postgres "$TMP"
}

as_pg() { runuser -u postgres -- "$@"; }

pg_real_initdb() {
	if ! as_pg "$PGBIN/initdb" -D "$TMP/data" --locale=C -E UTF8 -A trust \
		>"$TMP/initdb.log" 2>&1; then
		sed 's/^/# /' "$TMP/initdb.log"
		not_ok "initdb of a throwaway cluster"
		exit 1
	fi
}
