# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# verify prints its table but always exits 0, so a script cannot tell a
# machine that differs from one that complies.
# suites: 10-policy-unit
mutate policy/src/main.c \
	'		return verify_output(run, env, stdout);' \
	'		return verify_output(run, env, stdout) * 0;'
