// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the /proc/PID/smaps block scanner, fed through
 * fmemopen() as it reads the file; the mapping looked for is each one
 * whose header line is in the input, and one that is not.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live_parse.h"

#define MAX_STARTS	4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* smaps_scan() reads lines of at most this many bytes (LIVE_LINE - 1). */
#define LINE_MAX_READ	511

struct span {
	const char *start, *end;
};

/*
 * The block of the mapping at @start as smaps_scan() delimits it: from
 * the first header line whose address is @start to the next header line.
 * A NUL byte cuts a line short (strtoull() stops there too), but only a
 * newline ends it: the line after one is read as any other.
 */
static struct span find_block(const char *text, size_t size,
			      unsigned long long start)
{
	const char *p = text, *end = text + size;
	struct span b = { NULL, NULL };

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		size_t len = (size_t)((nl ? nl : end) - p);
		bool header = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f');

		if (len > LINE_MAX_READ)
			len = LINE_MAX_READ;
		if (header && b.start) {
			b.end = p;
			return b;
		}
		if (header && len) {
			char line[LINE_MAX_READ + 1], *after;
			unsigned long long v;

			memcpy(line, p, len);
			line[len] = '\0';
			errno = 0;
			v = strtoull(line, &after, 16);
			if (!errno && *after == '-' && v == start)
				b.start = next;
		}
		p = next;
	}
	b.end = end;
	return b;
}

/* A size smaps_scan() reported is one the mapping's block states, in kB. */
static void check_kb(const struct span *b, uint64_t bytes)
{
	char kb[32];

	if (bytes % 1024)
		abort();
	if (!bytes)
		return;
	snprintf(kb, sizeof(kb), "%llu", (unsigned long long)(bytes / 1024));
	if (!b->start || !memmem(b->start, (size_t)(b->end - b->start), kb,
				 strlen(kb)))
		abort();
}

static void scan(char *text, size_t size, unsigned long long start)
{
	struct live_shm s, before;
	struct span block;
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
	block = find_block(text, size, start);
	check_kb(&block, s.rss);
	check_kb(&block, s.page_size);
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
