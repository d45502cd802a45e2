// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: the /proc/buddyinfo parser of advise. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "bounds.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 12 counts: the twelfth is past the buddy lists and must be ignored. */
static const char more[] =
	"\nNode 0, zone   Normal 1 1 1 1 1 1 1 1 1 1 1 1\n"
	"Node 0, zone      DMA 1 1 1 1 1 1 1 1 1 1 1 1\n";

/* 2^64 + 1: malformed, never taken as 1 (a wrap-around). */
static const char past[] = "\nNode 0, zone   Normal 18446744073709551617 1\n";

/* A run of at least 20 digits in @size bytes at @p, up to a newline. */
static bool long_digits(const char *p, size_t size)
{
	unsigned int run = 0;
	size_t i;

	for (i = 0; i < size && p[i] != '\n'; i++) {
		run = p[i] >= '0' && p[i] <= '9' ? run + 1 : 0;
		if (run >= 20)
			return true;
	}
	return false;
}

/* Line @n (from 1) of @buf; NULL when there is none. */
static const char *line_at(const char *buf, size_t size, unsigned int n)
{
	const char *p = buf, *end = buf + size;

	while (n > 1 && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			return NULL;
		p = nl + 1;
		n--;
	}
	return n == 1 && p < end ? p : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *bad_text;
	long long t[BUDDY_ORDERS + 1], u;
	unsigned int k, bad = 0, line, at;
	bool digits = false;
	char *buf;

	if (size > MAX_MEMINFO_FILE)	/* read_file_capped()'s cap */
		return 0;
	for (k = 0; k <= BUDDY_ORDERS; k++) {
		t[k] = buddyinfo_free_blocks(text, size, k, &line);
		if (k == BUDDY_ORDERS) {
			/* Past the buddy lists: 0, nothing read. */
			if (t[k] || line)
				abort();
			break;
		}
		if (k == 0)
			bad = line;
		/* Malformed is -1 with its line, for every order alike. */
		if (line != bad || (t[k] < 0) != (bad != 0) || t[k] < -1)
			abort();
	}
	/* Only a count past 64 bits makes it malformed: 20 digits or more. */
	for (k = 0; k < size && !digits; k++)
		digits = (k == 0 || text[k - 1] == '\n') &&
			 long_digits(text + k, size - k);
	if (bad) {
		bad_text = line_at(text, size, bad);
		if (!bad_text ||
		    !long_digits(bad_text, size - (size_t)(bad_text - text)))
			abort();
	} else {
		/* A block of order k+1 is two of order k. */
		for (k = 0; k + 1 < BUDDY_ORDERS; k++)
			if (t[k] / 2 < t[k + 1])
				abort();
	}
	if (bad && !digits)
		abort();
	buf = malloc(size + (sizeof(more) > sizeof(past) ? sizeof(more) :
			     sizeof(past)));
	if (!buf)
		return 0;
	/*
	 * One more Normal zone with one free block of each order adds
	 * 2^(11-k) - 1 blocks of order k; a DMA zone adds none.  A
	 * malformed text stays malformed, at the same line.
	 */
	memcpy(buf, data, size);
	memcpy(buf + size, more, sizeof(more));
	for (k = 0; k < BUDDY_ORDERS; k++) {
		u = buddyinfo_free_blocks(buf, size + sizeof(more) - 1, k, &at);
		if (bad ? u != -1 || at != bad :
		    u != t[k] + ((1LL << (BUDDY_ORDERS - k)) - 1) || at)
			abort();
	}
	/* A count past 64 bits after it: malformed at that line, if not before. */
	memcpy(buf + size, past, sizeof(past));
	line = 2;
	for (k = 0; k < size; k++)
		line += text[k] == '\n';
	if (bad)
		line = bad;
	for (k = 0; k < BUDDY_ORDERS; k++) {
		u = buddyinfo_free_blocks(buf, size + sizeof(past) - 1, k, &at);
		if (u != -1 || at != line)
			abort();
	}
	free(buf);
	return 0;
}
