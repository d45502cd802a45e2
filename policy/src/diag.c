// SPDX-License-Identifier: GPL-2.0
/* Bounded collection of bad-input diagnostics. */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>

void diag_add(struct diag_list *d, const char *fmt, ...)
{
	va_list ap;

	if (d->count >= MAX_DIAGS) {
		d->dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(d->msgs[d->count], DIAG_LEN, fmt, ap);
	va_end(ap);
	d->count++;
}
