// SPDX-License-Identifier: GPL-2.0
/*
 * parse_int() and convert_to_base_unit() of PostgreSQL's guc.c, for the
 * memory and count settings the shared memory model needs.
 */
#include "pg_value.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct pg_unit {
	const char *name;
	double bytes;
};

static const struct pg_unit memory_units[] = {
	{ "B", 1.0 },
	{ "kB", 1024.0 },
	{ "MB", 1024.0 * 1024 },
	{ "GB", 1024.0 * 1024 * 1024 },
	{ "TB", 1024.0 * 1024 * 1024 * 1024 },
};

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' ||
	       *p == '\f' || *p == '\v')
		p++;
	return p;
}

/* Unit at @p (already past blanks) into bytes; the rest must be blank. */
static int read_unit(const char *p, double *bytes)
{
	size_t i, n = 0;

	while (p[n] && ((p[n] >= 'a' && p[n] <= 'z') ||
			(p[n] >= 'A' && p[n] <= 'Z')))
		n++;
	if (*skip_space(p + n))
		return -EINVAL;
	for (i = 0; i < sizeof(memory_units) / sizeof(memory_units[0]); i++) {
		if (strlen(memory_units[i].name) == n &&
		    strncmp(memory_units[i].name, p, n) == 0) {
			*bytes = memory_units[i].bytes;
			return 0;
		}
	}
	return -EINVAL;
}

int pg_parse_int(const char *text, uint64_t unit_bytes, int64_t min,
		 int64_t max, int64_t *out)
{
	char *end;
	const char *rest;
	double value, unit;
	long long whole;

	errno = 0;
	whole = strtoll(text, &end, 0);
	if (end == text || errno == ERANGE)
		return -EINVAL;
	value = (double)whole;
	if (*end == '.' || *end == 'e' || *end == 'E') {
		/* The server rereads the number as a double: "1.5GB". */
		errno = 0;
		value = strtod(text, &end);
		/* NaN fails both comparisons below as well. */
		if (end == text || errno == ERANGE || value != value)
			return -EINVAL;
	}
	rest = skip_space(end);
	if (*rest) {
		if (!unit_bytes || read_unit(rest, &unit))
			return -EINVAL;
		value = value * unit / (double)unit_bytes;
	}
	/* Rounded to the nearest, as rint() does (ties aside). */
	if (!(value >= (double)min - 0.5 && value < (double)max + 0.5))
		return -EINVAL;
	whole = (long long)(value >= 0 ? value + 0.5 : value - 0.5);
	if (whole < min || whole > max)
		return -EINVAL;
	*out = whole;
	return 0;
}
