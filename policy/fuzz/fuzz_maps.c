// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the /proc/PID/maps line parser.  Any process can put
 * any bytes in the path of a mapping (a file name, a memfd name).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_line(const char *line, size_t len)
{
	struct maps_entry e, again;
	size_t out_len;
	char *out;

	if (!parse_maps_line(line, &e))
		return;
	if (e.end <= e.start)
		abort();
	/* The name is the rest of the line, blanks skipped. */
	if (e.name < line || e.name > line + len ||
	    e.name + strlen(e.name) != line + len ||
	    *e.name == ' ' || *e.name == '\t')
		abort();
	/* Printed the way the kernel does, it parses back the same. */
	out_len = len + 128;
	out = malloc(out_len);
	if (!out)
		return;
	snprintf(out, out_len, "%llx-%llx %s 00000000 %02x:%02x %llu %s",
		 e.start, e.end, e.shared ? "rw-s" : "rw-p", e.major, e.minor,
		 e.inode, e.name);
	if (!parse_maps_line(out, &again) || again.start != e.start ||
	    again.end != e.end || again.shared != e.shared ||
	    again.major != e.major || again.minor != e.minor ||
	    again.inode != e.inode || strcmp(again.name, e.name) != 0)
		abort();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	/* Line by line, each in a buffer of its own size: ASan sees overreads. */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		char *line = malloc(len + 1);

		if (!line)
			return 0;
		memcpy(line, p, len);
		line[len] = '\0';
		check_line(line, strlen(line));
		free(line);
		p += len + 1;
	}
	return 0;
}
