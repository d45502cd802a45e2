# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The PostgreSQL size model asks for one huge page fewer than the server
# needs: a pool sized from it would make huge_pages=on fail to start.
# suites: 10-policy-unit
mutate policy/src/facts_pg.c \
	'			(c->shm_estimate + size - 1) / size : 0;' \
	'			(c->shm_estimate + size - 1) / size - 1 : 0;'
