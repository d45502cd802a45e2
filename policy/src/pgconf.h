/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subset of postgresql.conf the policy needs: the settings that size
 * the shared memory segment (see pg_shmem.h), huge_pages, huge_page_size,
 * shared_memory_type and data_directory, following include,
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
#include "pg_shmem.h"

#define PG_BLOCK_SIZE		8192ULL	/* shared_buffers unit without a suffix */
#define PG_DEFAULT_SHARED_BUFFERS (128ULL << 20)

struct pg_settings {
	bool shared_buffers_set;
	uint64_t shared_buffers;
	bool huge_pages_set;
	enum huge_pages_setting huge_pages;
	char huge_pages_origin[PG_ORIGIN_LEN];	/* FILE:LINE of the last one */
	uint64_t huge_page_size;
	bool shm_sysv;			/* shared_memory_type = sysv */
	char shm_type_origin[PG_ORIGIN_LEN];	/* FILE:LINE of the last one */
	struct pg_shm_settings shm;	/* what sizes the segment */
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

#endif
