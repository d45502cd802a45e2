// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the state file (/var/lib/preempt-policy/state),
 * which the initramfs reads as root from the real root file system.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "modes.h"
#include "state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct saved_state *st, bool ok)
{
	unsigned int i;

	if (st->mode != MODE_UNKNOWN && (st->mode < 0 || st->mode >= MODE_COUNT))
		abort();
	if (st->nclusters > STATE_MAX_CLUSTERS)
		abort();
	if (strnlen(st->reason, sizeof(st->reason)) == sizeof(st->reason))
		abort();
	for (i = 0; i < STATE_MAX_CLUSTERS; i++) {
		if (strnlen(st->clusters[i], sizeof(st->clusters[i])) ==
		    sizeof(st->clusters[i]))
			abort();
		/* Slots past the listed clusters stay empty. */
		if (i >= st->nclusters && st->clusters[i][0])
			abort();
	}
	if ((st->mode == MODE_UNKNOWN || !st->nclusters) && !st->bad)
		abort();
	if (ok != !st->bad || st->present)
		abort();
	/* A cluster= value with a NUL byte ("cluster=\0") names no cluster. */
	for (i = 0; ok && i < st->nclusters; i++)
		if (!st->clusters[i][0])
			abort();
	/* A line and key named go with a bad file. */
	if (st->bad_line && (!st->bad || !st->bad_key))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Exactly the struct: a write past it is an ASan report. */
	struct saved_state *st = malloc(sizeof(*st));
	struct saved_state *again = malloc(sizeof(*again));
	char *text = NULL;
	size_t len = 0;
	unsigned int i;
	bool ok;
	FILE *out;

	if (!st || !again || size > MAX_KERNEL_FILE)
		goto done;
	/* Garbage in: state_parse must set every field itself. */
	memset(st, 0xa5, sizeof(*st));
	ok = state_parse(st, (const char *)data, size);
	check(st, ok);
	/* A NUL byte ends a name early: that text does not read back. */
	if (!ok || memchr(data, '\0', size))
		goto done;
	/* A well-formed state written out as state_record does reads back the same. */
	out = open_memstream(&text, &len);
	if (!out)
		goto done;
	fprintf(out, "# preempt-policy state\nmode=%s\n", mode_name(st->mode));
	if (st->reason[0])
		fprintf(out, "reason=%s\n", st->reason);
	for (i = 0; i < st->nclusters; i++)
		fprintf(out, "cluster=%s\n", st->clusters[i]);
	if (fclose(out))
		goto done;
	memset(again, 0x5a, sizeof(*again));
	if (!state_parse(again, text, len) || again->mode != st->mode ||
	    again->nclusters != st->nclusters ||
	    strcmp(again->reason, st->reason) != 0)
		abort();
	for (i = 0; i < st->nclusters; i++)
		if (strcmp(again->clusters[i], st->clusters[i]) != 0)
			abort();
done:
	free(text);
	free(again);
	free(st);
	return 0;
}
