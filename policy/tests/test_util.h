/* SPDX-License-Identifier: GPL-2.0 */
/* Shared helpers for the cmocka unit tests. */
#ifndef PREEMPT_POLICY_TEST_UTIL_H
#define PREEMPT_POLICY_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "diag.h"

/* tests/fixtures, from $FIXTURES (set by make check) or the cwd. */
static inline const char *fixtures_dir(void)
{
	const char *d = getenv("FIXTURES");

	return d ? d : "tests/fixtures";
}

static inline void fixture_path(char *out, size_t size, const char *rel)
{
	snprintf(out, size, "%s/%s", fixtures_dir(), rel);
}

/*
 * The opt-in rules as a site enables them: every "#rule " line of the
 * shipped preempt-policy.conf without its '#', so the tests use what the
 * file documents, not a copy that could drift from it.
 */
static inline void shipped_optin_text(char *out, size_t size)
{
	char path[1024], line[1100];
	size_t used = 0;
	FILE *f;

	fixture_path(path, sizeof(path), "../../preempt-policy.conf");
	f = fopen(path, "r");
	assert_non_null(f);
	out[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "#rule ", 6) != 0)
			continue;
		assert_true(used + strlen(line + 1) < size);
		strcpy(out + used, line + 1);
		used += strlen(line + 1);
	}
	fclose(f);
}

/* Write @text to DIR/REL, creating parent directories. */
static inline void write_file_at(const char *dir, const char *rel,
				 const char *text)
{
	char path[1024], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static inline void make_temp_dir(char *buf, size_t size)
{
	snprintf(buf, size, "/tmp/preempt-policy-test.XXXXXX");
	assert_non_null(mkdtemp(buf));
}

static inline void remove_tree(const char *dir)
{
	char cmd[1100];

	/* Only our own mkdtemp directories. */
	if (strncmp(dir, "/tmp/preempt-policy-test.", 25) != 0)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", dir);
}

/* True when any diagnostic contains @needle. */
static inline int diag_contains(const struct diag_list *d, const char *needle)
{
	unsigned int i;

	for (i = 0; i < d->count; i++)
		if (strstr(d->msgs[i], needle))
			return 1;
	return 0;
}

#endif
