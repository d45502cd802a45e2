/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Diagnostics about bad input ("file:line: problem").  Collected rather than
 * printed at once so decide/explain/--json can all show them, and so a
 * malicious file cannot flood the console: only MAX_DIAGS are kept.
 */
#ifndef PREEMPT_POLICY_DIAG_H
#define PREEMPT_POLICY_DIAG_H

#include "bounds.h"

struct diag_list {
	unsigned int count;	/* kept in msgs[] */
	unsigned int dropped;	/* over MAX_DIAGS, only counted */
	char msgs[MAX_DIAGS][DIAG_LEN];
};

void diag_add(struct diag_list *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline unsigned int diag_total(const struct diag_list *d)
{
	return d->count + d->dropped;
}

#endif
