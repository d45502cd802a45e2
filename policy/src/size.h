/* SPDX-License-Identifier: GPL-2.0 */
/* Sizes with units, as written in the policy file and in postgresql.conf. */
#ifndef PREEMPT_POLICY_SIZE_H
#define PREEMPT_POLICY_SIZE_H

#include <stddef.h>
#include <stdint.h>

enum size_style {
	/*
	 * Policy file: B, K, KB, KiB, M, MB, MiB, G, GB, GiB, T, TB, TiB,
	 * P, PB, PiB, any case, all powers of 1024 (nobody sizes RAM in
	 * 10^9).  No unit means bytes.
	 */
	SIZE_POLICY,
	/*
	 * postgresql.conf memory settings: B, kB, MB, GB, TB exactly as
	 * PostgreSQL spells them (it is case sensitive), powers of 1024.  No
	 * unit means the setting's base unit, passed as @base_unit.
	 */
	SIZE_POSTGRES,
};

/*
 * Parse "<number>[ ]<unit>" filling the whole span.  The number may have
 * a fractional part ("1.5GB"); the result is rounded to the nearest byte.
 * Returns 0, -EINVAL (syntax, unknown unit) or -ERANGE (over 2^63).
 */
int parse_size(const char *s, size_t len, enum size_style style,
	       uint64_t base_unit, uint64_t *out);

/* "1GiB", "512MiB" when exact, else truncated "1.07GiB"; "100B" below 1KiB. */
void format_size(uint64_t bytes, char *buf, size_t size);

#endif
