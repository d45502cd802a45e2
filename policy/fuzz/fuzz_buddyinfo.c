// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: the /proc/buddyinfo parser of advise. */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	long long t[BUDDY_ORDERS + 1], u;
	unsigned int k;
	char *buf;

	if (size > MAX_MEMINFO_FILE)	/* read_file_capped()'s cap */
		return 0;
	for (k = 0; k <= BUDDY_ORDERS; k++) {
		t[k] = buddyinfo_free_blocks((const char *)data, size, k);
		if (t[k] < 0)
			abort();
	}
	if (t[BUDDY_ORDERS])
		abort();
	/* A block of order k+1 is two of order k. */
	for (k = 0; k + 1 < BUDDY_ORDERS; k++)
		if (t[k] / 2 < t[k + 1])
			abort();
	/* One more Normal zone with one free block of each order adds
	 * 2^(11-k) - 1 blocks of order k; a DMA zone adds none. */
	buf = malloc(size + sizeof(more));
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	memcpy(buf + size, more, sizeof(more));
	for (k = 0; k < BUDDY_ORDERS; k++) {
		u = buddyinfo_free_blocks(buf, size + sizeof(more) - 1, k);
		if (u != t[k] + ((1LL << (BUDDY_ORDERS - k)) - 1))
			abort();
	}
	free(buf);
	return 0;
}
