// SPDX-License-Identifier: GPL-2.0
/*
 * Size parsing.  Integer arithmetic only: the fractional part is kept as
 * a decimal fraction so "0.1GB" does not pick up binary float error.
 */
#include "size.h"
#include "util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define SIZE_LIMIT	(1ULL << 63)
#define MAX_FRACTION_DIGITS 9

struct unit_name {
	const char *name;
	unsigned int shift;
};

static const struct unit_name policy_units[] = {
	{ "b", 0 },
	{ "k", 10 }, { "kb", 10 }, { "kib", 10 },
	{ "m", 20 }, { "mb", 20 }, { "mib", 20 },
	{ "g", 30 }, { "gb", 30 }, { "gib", 30 },
	{ "t", 40 }, { "tb", 40 }, { "tib", 40 },
	{ "p", 50 }, { "pb", 50 }, { "pib", 50 },
};

static const struct unit_name postgres_units[] = {
	{ "B", 0 }, { "kB", 10 }, { "MB", 20 }, { "GB", 30 }, { "TB", 40 },
};

static int unit_multiplier(const char *u, size_t len, enum size_style style,
			   uint64_t base_unit, uint64_t *mult)
{
	size_t i;

	if (len == 0) {
		*mult = style == SIZE_POSTGRES ? base_unit : 1;
		return 0;
	}
	if (style == SIZE_POLICY) {
		for (i = 0; i < ARRAY_SIZE(policy_units); i++) {
			if (span_equals_nocase(u, len, policy_units[i].name)) {
				*mult = 1ULL << policy_units[i].shift;
				return 0;
			}
		}
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(postgres_units); i++) {
		if (span_equals(u, len, postgres_units[i].name)) {
			*mult = 1ULL << postgres_units[i].shift;
			return 0;
		}
	}
	return -EINVAL;
}

int parse_size(const char *s, size_t len, enum size_style style,
	       uint64_t base_unit, uint64_t *out)
{
	uint64_t whole = 0, frac = 0, frac_scale = 1, mult, value;
	size_t i = 0, digits = 0;
	int err;

	trim_span(&s, &len);
	while (i < len && s[i] >= '0' && s[i] <= '9') {
		unsigned int d = (unsigned int)(s[i] - '0');

		if (whole > (SIZE_LIMIT - d) / 10)
			return -ERANGE;
		whole = whole * 10 + d;
		i++;
		digits++;
	}
	if (i < len && s[i] == '.') {
		i++;
		while (i < len && s[i] >= '0' && s[i] <= '9') {
			/* Digits past nine cannot change a byte count we care about. */
			if (frac_scale < 1000000000ULL) {
				frac = frac * 10 + (uint64_t)(s[i] - '0');
				frac_scale *= 10;
			}
			i++;
			digits++;
		}
	}
	if (digits == 0)
		return -EINVAL;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	err = unit_multiplier(s + i, len - i, style, base_unit, &mult);
	if (err)
		return err;
	if (mult == 0)
		return -EINVAL;
	if (whole > SIZE_LIMIT / mult)
		return -ERANGE;
	value = whole * mult;
	if (frac) {
		/* frac/frac_scale * mult, rounded; mult <= 2^40, frac < 10^9 */
		uint64_t hi = mult / frac_scale, lo = mult % frac_scale;
		uint64_t part = frac * hi + (frac * lo + frac_scale / 2) / frac_scale;

		if (value > SIZE_LIMIT - part)
			return -ERANGE;
		value += part;
	}
	*out = value;
	return 0;
}

void format_size(uint64_t bytes, char *buf, size_t size)
{
	static const char *const names[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	unsigned int i;

	if (bytes < 1024) {
		snprintf(buf, size, "%lluB", (unsigned long long)bytes);
		return;
	}
	/* Exact in the largest unit that fits gives a round, re-parsable string. */
	for (i = ARRAY_SIZE(names); i-- > 0;) {
		uint64_t unit = 1ULL << (10 * (i + 1));
		uint64_t hundredths;

		if (bytes < unit)
			continue;
		if (bytes % unit == 0) {
			snprintf(buf, size, "%llu%s",
				 (unsigned long long)(bytes / unit), names[i]);
			return;
		}
		hundredths = (bytes % unit) * 100 / unit;
		snprintf(buf, size, "%llu.%02llu%s",
			 (unsigned long long)(bytes / unit),
			 (unsigned long long)hundredths, names[i]);
		return;
	}
}
