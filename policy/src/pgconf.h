/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subset of postgresql.conf the policy needs: shared_buffers,
 * huge_pages, huge_page_size and data_directory, following include,
 * include_if_exists and include_dir like the server does.
 */
#ifndef PREEMPT_POLICY_PGCONF_H
#define PREEMPT_POLICY_PGCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "facts.h"
#include "bounds.h"

#define PG_BLOCK_SIZE		8192ULL	/* shared_buffers unit without a suffix */
#define PG_DEFAULT_SHARED_BUFFERS (128ULL << 20)

struct pg_settings {
	bool shared_buffers_set;
	uint64_t shared_buffers;
	bool huge_pages_set;
	enum huge_pages_setting huge_pages;
	uint64_t huge_page_size;
	bool data_directory_set;
	char data_directory[PATH_LEN];	/* resolved, absolute in the root */
	unsigned int files_read;	/* bounded by MAX_PG_FILES */
	unsigned int errors;
};

/*
 * Where the files live: @root is prepended to every absolute path taken
 * from a file, so a cluster under a mounted root reads that root's files.
 */
struct pg_reader {
	const char *root;
	struct diag_list *diags;
};

void pg_settings_init(struct pg_settings *s);

/*
 * Parse one file's text.  @path is the file's absolute path inside the
 * root (used to resolve relative includes and in messages), @depth its
 * include depth (0 for the top file).  Returns the number of errors added.
 */
unsigned int pgconf_parse_text(const struct pg_reader *r, struct pg_settings *s,
			       const char *text, size_t len, const char *path,
			       unsigned int depth);

/*
 * Read and parse @path (absolute inside the root).  Returns 0, -ENOENT
 * when the file is missing (the caller decides whether that is an error:
 * include_if_exists and postgresql.auto.conf may be missing), or -EIO
 * after adding a diagnostic.
 */
int pgconf_read_file(const struct pg_reader *r, struct pg_settings *s,
		     const char *path, unsigned int depth);

/*
 * Shared memory a cluster asks for: shared_buffers plus PostgreSQL's own
 * structures.  shared_memory_size is ~2% over shared_buffers for buffer
 * descriptors, the buffer mapping table and checkpoint sorting, plus a
 * fixed part (locks, procs, WAL buffers: 16MiB by default at this size).
 * We estimate shared_buffers * 1.03 + 16MiB: a slight overestimate, which
 * errs toward "not enough huge pages".
 */
uint64_t pg_estimate_shm(uint64_t shared_buffers);

#endif
