/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text from files other users own (a postgres-owned postgresql.conf, a
 * cluster directory's name) reaches a terminal and the kernel log; a
 * control character there could move the cursor, clear the screen or
 * forge a log line.
 */
#ifndef PREEMPT_POLICY_ESCAPE_H
#define PREEMPT_POLICY_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Length of the valid UTF-8 sequence at @s (at most @len bytes), 0 when
 * the bytes there are not one (overlong, surrogate, past U+10FFFF, cut).
 */
size_t utf8_sequence(const unsigned char *s, size_t len);

/*
 * @in for a terminal or the kernel log, into @out (always terminated,
 * cut at @size): control characters (C0, DEL, and C1 as UTF-8 or as a
 * stray byte) and bytes that are not UTF-8 become \xNN, a backslash
 * becomes \\; valid printable UTF-8 stays as it is.
 */
void text_escape(char *out, size_t size, const char *in);

/* The same straight to @out. */
void text_escape_to(FILE *out, const char *in);

#endif
