# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# A rule that matches keeps the kernel's mode instead of choosing its own:
# the policy always keeps.
# suites: 10-policy-unit
mutate policy/src/decide.c \
	'			d->mode = p->rules[i].mode;' \
	'			d->mode = MODE_KEEP;'
