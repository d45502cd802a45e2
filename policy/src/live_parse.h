/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parsers of facts_live.c for /proc/PID/maps lines and
 * /proc/PID/smaps blocks, exposed for the unit tests and fuzz harnesses:
 * any process can put any bytes in the path of a mapping.
 */
#ifndef PREEMPT_POLICY_LIVE_PARSE_H
#define PREEMPT_POLICY_LIVE_PARSE_H

#include <stdbool.h>
#include <stdio.h>

#include "facts.h"

struct maps_entry {
	unsigned long long start, end, inode;
	unsigned int major, minor;
	bool shared;
	const char *name;	/* inside the line parsed, blanks skipped */
};

/*
 * One NUL-terminated maps line ("7f..-7f.. rw-s 00000000 00:01 1234
 * /dev/zero (deleted)") into @e.  False when malformed or end <= start.
 */
bool parse_maps_line(const char *line, struct maps_entry *e);

/*
 * Find the block of the mapping at s->start in smaps text read from @in
 * and set s->rss, s->page_size, s->backing and s->smaps_read from it.
 * Returns 0, or -ENOENT (@s untouched) when no block starts there.
 */
int smaps_scan(FILE *in, struct live_shm *s);

#endif
