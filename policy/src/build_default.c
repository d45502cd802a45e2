// SPDX-License-Identifier: GPL-2.0
/*
 * The preemption mode the running kernel was built to boot in, from the
 * root's /boot/config-RELEASE (Debian installs it with every kernel).
 * `keep` returns to it: when the initramfs chose none on a pool that was
 * not there yet, a later run that finds nothing to act on must be able to
 * undo that, not keep it forever.  The same file says whether the kernel
 * was built with the opt-in none/voluntary (PREEMPT_DYNAMIC_ALL_MODES) and
 * the rseq time-slice extension (RSEQ_SLICE_EXTENSION).
 */
#include "facts.h"
#include "paths.h"
#include "root_fs.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kconfig's preemption model choice; one of them is =y. */
static const struct {
	const char *symbol;
	int mode;
} models[] = {
	{ "CONFIG_PREEMPT_LAZY", MODE_LAZY },
	{ "CONFIG_PREEMPT", MODE_FULL },
	{ "CONFIG_PREEMPT_VOLUNTARY", MODE_VOLUNTARY },
	{ "CONFIG_PREEMPT_NONE", MODE_NONE },
};

static int model_of_line(const char *line, size_t len)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(models); i++) {
		size_t n = strlen(models[i].symbol);

		if (len == n + 2 && memcmp(line, models[i].symbol, n) == 0 &&
		    line[n] == '=' && line[n + 1] == 'y')
			return models[i].mode;
	}
	return MODE_UNKNOWN;
}

void facts_gather_build_default(struct facts *f, const struct env *env)
{
	char path[PATH_LEN], release[128], rel[PATH_LEN];
	struct line_reader lr;
	const char *line, *r = release;
	size_t len;
	char *buf;

	f->build_mode = MODE_UNKNOWN;
	f->build_mode_origin[0] = '\0';
	f->cfg_all_modes = -1;
	f->cfg_rseq_slice = -1;
	if (path_join(path, sizeof(path), env->proc, PROC_OSRELEASE) ||
	    read_small_file(path, release, sizeof(release)))
		return;
	len = strlen(release);
	trim_span(&r, &len);
	/* A release is one word; anything else is not a file name to build. */
	if (!len || memchr(r, '/', len) || memchr(r, ' ', len))
		return;
	snprintf(rel, sizeof(rel), "%s%.*s", BOOT_CONFIG_PREFIX, (int)len, r);
	if (root_read_file(env->root, rel, MAX_BOOT_CONFIG_FILE, &buf, &len))
		return;
	f->cfg_all_modes = 0;
	f->cfg_rseq_slice = 0;
	line_reader_init(&lr, buf, len);
	while (line_reader_next(&lr, &line, &len)) {
		int mode = model_of_line(line, len);

		if (span_equals(line, len, "CONFIG_PREEMPT_DYNAMIC_ALL_MODES=y"))
			f->cfg_all_modes = 1;
		else if (span_equals(line, len, "CONFIG_RSEQ_SLICE_EXTENSION=y"))
			f->cfg_rseq_slice = 1;
		if (mode == MODE_UNKNOWN || f->build_mode != MODE_UNKNOWN)
			continue;
		f->build_mode = mode;
		snprintf(f->build_mode_origin, sizeof(f->build_mode_origin),
			 "/%s:%u", rel, lr.lineno);
	}
	free(buf);
}
