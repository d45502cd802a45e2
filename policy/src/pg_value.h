/* SPDX-License-Identifier: GPL-2.0 */
/* Integer settings read the way PostgreSQL's parse_int() reads them. */
#ifndef PREEMPT_POLICY_PG_VALUE_H
#define PREEMPT_POLICY_PG_VALUE_H

#include <stdint.h>

/*
 * Parse @text as the server does: strtol() with base 0 (so "010000" is
 * octal, "0x8000" hex, a leading "+" or "-" allowed), a fractional part
 * ("1.5GB") read as a floating-point number, then an optional memory unit
 * (B, kB, MB, GB, TB, case sensitive) converted into the setting's unit of
 * @unit_bytes bytes and rounded to the nearest.  @unit_bytes 0 means a
 * unitless setting: a unit is an error.  The result must lie in
 * [@min, @max] (both within int32, as PostgreSQL's int settings are).
 * Returns 0 or -EINVAL.
 */
int pg_parse_int(const char *text, uint64_t unit_bytes, int64_t min,
		 int64_t max, int64_t *out);

#endif
