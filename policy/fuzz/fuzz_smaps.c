// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the /proc/PID/smaps block scanner, fed through
 * fmemopen() as it reads the file; the mapping looked for is each one
 * whose header line is in the input, and one that is not.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live_parse.h"

#define MAX_STARTS	4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A size smaps_scan() reported is one the input states, in kB. */
static void check_kb(const uint8_t *data, size_t size, uint64_t bytes)
{
	char kb[32];

	if (bytes % 1024)
		abort();
	if (!bytes)
		return;
	snprintf(kb, sizeof(kb), "%llu", (unsigned long long)(bytes / 1024));
	if (!memmem(data, size, kb, strlen(kb)))
		abort();
}

static void scan(char *text, size_t size, unsigned long long start)
{
	struct live_shm s, before;
	FILE *in;
	int err;

	memset(&s, 0, sizeof(s));
	s.pid = 1;
	s.start = start;
	s.size = 4096;
	before = s;
	in = fmemopen(text, size, "r");
	if (!in)
		return;
	err = smaps_scan(in, &s);
	fclose(in);
	if (err == -ENOENT) {
		if (memcmp(&s, &before, sizeof(s)) != 0)
			abort();
		return;
	}
	if (err != 0 || !s.smaps_read || s.pid != 1 || s.start != start ||
	    s.size != 4096)
		abort();
	if (s.backing != PG_BACKING_4K && s.backing != PG_BACKING_HUGETLB &&
	    s.backing != PG_BACKING_THP)
		abort();
	check_kb((const uint8_t *)text, size, s.rss);
	check_kb((const uint8_t *)text, size, s.page_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long long starts[MAX_STARTS + 1];
	unsigned int n = 0, i;
	char *text, *line, *save = NULL;

	if (!size)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	/* The mappings the input has headers for, from a scratch copy. */
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save); line && n < MAX_STARTS;
	     line = strtok_r(NULL, "\n", &save)) {
		struct maps_entry e;

		if (parse_maps_line(line, &e))
			starts[n++] = e.start;
	}
	starts[n++] = 0x7ffff0000000ULL;
	memcpy(text, data, size);
	for (i = 0; i < n; i++)
		scan(text, size, starts[i]);
	free(text);
	return 0;
}
