// SPDX-License-Identifier: GPL-2.0
/*
 * postgresql.conf parser.  Follows the server's lexer (guc-file.l) closely
 * enough that a file the server accepts parses the same here, and reports
 * what it rejects with file and line, since the server would not start.
 */
#include "pgconf.h"
#include "pg_value.h"
#include "root_fs.h"
#include "size.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_INT_MAX		2147483647LL
#define PG_MAX_BACKENDS		262143LL	/* 2^18 - 1 */

/* An integer setting of the shared memory model, with the server's bounds. */
struct pg_int_setting {
	const char *name;
	size_t offset;		/* into struct pg_shm_settings */
	uint64_t unit_bytes;	/* 0: unitless */
	int64_t min, max;
};

#define SHM_FIELD(f) offsetof(struct pg_shm_settings, f)

static const struct pg_int_setting int_settings[] = {
	{ "shared_buffers", SHM_FIELD(shared_buffers), PG_BLOCK_SIZE,
	  16, PG_INT_MAX / 2 },
	{ "wal_buffers", SHM_FIELD(wal_buffers), PG_BLOCK_SIZE,
	  -1, PG_INT_MAX / (int64_t)PG_BLOCK_SIZE },
	{ "max_connections", SHM_FIELD(max_connections), 0,
	  1, PG_MAX_BACKENDS },
	{ "autovacuum_max_workers", SHM_FIELD(autovacuum_max_workers),
	  0, 1, PG_MAX_BACKENDS },
	{ "max_worker_processes", SHM_FIELD(max_worker_processes), 0,
	  0, PG_MAX_BACKENDS },
	{ "max_wal_senders", SHM_FIELD(max_wal_senders), 0,
	  0, PG_MAX_BACKENDS },
	{ "max_prepared_transactions", SHM_FIELD(max_prepared_transactions),
	  0, 0, PG_MAX_BACKENDS },
	{ "max_locks_per_transaction", SHM_FIELD(max_locks_per_transaction),
	  0, 10, PG_INT_MAX },
	{ "max_pred_locks_per_transaction",
	  SHM_FIELD(max_pred_locks_per_transaction), 0, 10, PG_INT_MAX },
	{ "track_activity_query_size", SHM_FIELD(track_activity_query_size),
	  1, 100, 1048576 },
	{ "max_replication_slots", SHM_FIELD(max_replication_slots), 0,
	  0, PG_MAX_BACKENDS },
	{ "min_dynamic_shared_memory", SHM_FIELD(min_dynamic_shared_memory),
	  1ULL << 20, 0, PG_INT_MAX },
};

/* The int64_t of @shm that @offset (from int_settings) names. */
static int64_t *shm_field(struct pg_shm_settings *shm, size_t offset)
{
	return (int64_t *)(void *)((char *)shm + offset);
}

void pg_settings_init(struct pg_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->shared_buffers = PG_DEFAULT_SHARED_BUFFERS;
	s->huge_pages = PG_HUGE_TRY;
	pg_shm_settings_init(&s->shm);
}

static bool is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9') || c == '$' ||
	       c == '.';
}

/*
 * One backslash escape of a quoted value, as the server's GUC_scanstr()
 * reads it: \b \f \n \r \t, up to three octal digits, else the character
 * itself (\\ and \' included).  Returns the characters consumed.
 */
static size_t unescape(const char *p, size_t len, char *out)
{
	size_t n = 0;
	unsigned int octal = 0;

	switch (p[0]) {
	case 'b':
		*out = '\b';
		return 1;
	case 'f':
		*out = '\f';
		return 1;
	case 'n':
		*out = '\n';
		return 1;
	case 'r':
		*out = '\r';
		return 1;
	case 't':
		*out = '\t';
		return 1;
	default:
		break;
	}
	while (n < 3 && n < len && p[n] >= '0' && p[n] <= '7')
		octal = octal * 8 + (unsigned int)(p[n++] - '0');
	if (n == 0) {
		*out = p[0];
		return 1;
	}
	*out = (char)(octal & 0xff);
	return n;
}

struct pg_line {
	const char *name;
	size_t name_len;
	char value[MAX_LINE];
	size_t value_len;
};

/*
 * Split "name [=] value [# comment]".  Returns 1 for a setting, 0 for a
 * blank or comment line, -1 for a syntax error (message in *why).
 */
static int split_line(const char *line, size_t len, struct pg_line *out,
		      const char **why)
{
	size_t i = 0, o = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	if (i == len || line[i] == '#')
		return 0;
	if (!is_name_start(line[i])) {
		*why = "syntax error: expected a parameter name";
		return -1;
	}
	out->name = line + i;
	while (i < len && is_name_char(line[i]))
		i++;
	out->name_len = (size_t)(line + i - out->name);
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i < len && line[i] == '=')
		i++;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i < len && line[i] == '\'') {
		/* Quoted: '' is a quote, backslash escapes as GUC_scanstr(). */
		i++;
		for (;;) {
			if (i >= len) {
				*why = "syntax error: unterminated quoted string";
				return -1;
			}
			if (line[i] == '\'' && i + 1 < len && line[i + 1] == '\'') {
				out->value[o++] = '\'';
				i += 2;
			} else if (line[i] == '\'') {
				i++;
				break;
			} else if (line[i] == '\\' && i + 1 < len) {
				i += 1 + unescape(line + i + 1, len - i - 1,
						  &out->value[o++]);
			} else {
				out->value[o++] = line[i++];
			}
			if (o >= sizeof(out->value) - 1) {
				*why = "value too long";
				return -1;
			}
		}
	} else {
		while (i < len && line[i] != ' ' && line[i] != '\t' &&
		       line[i] != '#' && line[i] != '\r' && line[i] != '\'') {
			if (o >= sizeof(out->value) - 1) {
				*why = "value too long";
				return -1;
			}
			out->value[o++] = line[i++];
		}
		if (o == 0) {
			*why = "syntax error: missing value";
			return -1;
		}
	}
	out->value[o] = '\0';
	out->value_len = o;
	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	if (i < len && line[i] != '#') {
		*why = "syntax error: junk after the value";
		return -1;
	}
	return 1;
}

/* Directory part of an absolute path, "/" for a top-level file. */
static void dir_of(const char *path, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		copy_bounded(out, size, "/", 1);
	else
		copy_bounded(out, size, path, (size_t)(slash - path));
}

/* Resolve an include target: absolute stays, relative is from @from's dir. */
static int resolve_path(const char *from, const char *target, char *out,
			size_t size)
{
	char dir[PATH_LEN];

	if (target[0] == '/')
		return path_join(out, size, "/", target);
	dir_of(from, dir, sizeof(dir));
	return path_join(out, size, dir, target);
}

static void pg_error(const struct pg_reader *r, struct pg_settings *s,
		     const char *path, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* "ROOT/path:line: message": the host path, so the admin can open it. */
static void pg_error(const struct pg_reader *r, struct pg_settings *s,
		     const char *path, unsigned int line, const char *fmt, ...)
{
	bool rooted = r->root[0] && strcmp(r->root, "/") != 0;
	char msg[DIAG_LEN / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_add(r->diags, "%s%s:%u: %s", rooted ? r->root : "", path, line,
		 msg);
	s->errors++;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_conf_suffix(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

/* include_dir: every *.conf not starting with '.', in strcmp order. */
static void read_include_dir(const struct pg_reader *r, struct pg_settings *s,
			     const char *dir, const char *from,
			     unsigned int line, unsigned int depth)
{
	char *names[MAX_INCLUDE_DIR_FILES];
	char file[PATH_LEN];
	unsigned int n = 0, i;
	struct dirent *de;
	DIR *d = root_opendir(r->root, dir);

	if (!d) {
		pg_error(r, s, from, line,
			 "could not open configuration directory \"%s\"", dir);
		return;
	}
	/* Every entry is looked at: a cap is reported, never silent. */
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !has_conf_suffix(de->d_name))
			continue;
		if (n == MAX_INCLUDE_DIR_FILES) {
			pg_error(r, s, from, line,
				 "more than %d *.conf files in \"%s\", the rest ignored",
				 MAX_INCLUDE_DIR_FILES, dir);
			break;
		}
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), name_cmp);
	for (i = 0; i < n; i++) {
		if (!path_join(file, sizeof(file), dir, names[i]))
			pgconf_read_file(r, s, file, depth + 1);
		free(names[i]);
	}
}

static void handle_include(const struct pg_reader *r, struct pg_settings *s,
			   const struct pg_line *pl, const char *path,
			   unsigned int line, unsigned int depth)
{
	char target[PATH_LEN];
	bool is_dir = span_equals_nocase(pl->name, pl->name_len, "include_dir");
	bool if_exists = span_equals_nocase(pl->name, pl->name_len,
					    "include_if_exists");

	/* The server reads a file at depth 10 and refuses one at 11. */
	if (depth + 1 > MAX_INCLUDE_DEPTH) {
		pg_error(r, s, path, line,
			 "could not open \"%s\": nesting too deep", pl->value);
		return;
	}
	if (resolve_path(path, pl->value, target, sizeof(target))) {
		pg_error(r, s, path, line, "include path too long: %.64s",
			 pl->value);
		return;
	}
	if (is_dir) {
		read_include_dir(r, s, target, path, line, depth);
		return;
	}
	if (pgconf_read_file(r, s, target, depth + 1) == -ENOENT && !if_exists)
		pg_error(r, s, path, line,
			 "could not open included file \"%s\"", pl->value);
}

static int parse_huge_pages(const char *v, enum huge_pages_setting *out)
{
	static const char *const on[] = { "on", "true", "yes", "1" };
	static const char *const off[] = { "off", "false", "no", "0" };
	size_t i, n = strlen(v);

	for (i = 0; i < ARRAY_SIZE(on); i++) {
		if (span_equals_nocase(v, n, on[i])) {
			*out = PG_HUGE_ON;
			return 0;
		}
		if (span_equals_nocase(v, n, off[i])) {
			*out = PG_HUGE_OFF;
			return 0;
		}
	}
	if (span_equals_nocase(v, n, "try")) {
		*out = PG_HUGE_TRY;
		return 0;
	}
	return -EINVAL;
}

static void apply_setting(const struct pg_reader *r, struct pg_settings *s,
			  const struct pg_line *pl, const char *path,
			  unsigned int line)
{
	int64_t number;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(int_settings); i++) {
		const struct pg_int_setting *is = &int_settings[i];

		if (!span_equals_nocase(pl->name, pl->name_len, is->name))
			continue;
		if (pg_parse_int(pl->value, is->unit_bytes, is->min, is->max,
				 &number)) {
			pg_error(r, s, path, line,
				 "invalid value for %s: \"%.64s\"", is->name,
				 pl->value);
			return;
		}
		*shm_field(&s->shm, is->offset) = number;
		if (is->offset == SHM_FIELD(shared_buffers)) {
			s->shared_buffers = (uint64_t)number * PG_BLOCK_SIZE;
			s->shared_buffers_set = true;
		}
		return;
	}
	if (span_equals_nocase(pl->name, pl->name_len, "shared_memory_type")) {
		if (span_equals_nocase(pl->value, pl->value_len, "sysv")) {
			s->shm_sysv = true;
		} else if (span_equals_nocase(pl->value, pl->value_len,
					      "mmap")) {
			s->shm_sysv = false;
		} else {
			pg_error(r, s, path, line,
				 "invalid value for shared_memory_type: \"%.64s\"",
				 pl->value);
			return;
		}
		snprintf(s->shm_type_origin, sizeof(s->shm_type_origin),
			 "%s:%u", path, line);
	} else if (span_equals_nocase(pl->name, pl->name_len, "huge_pages")) {
		if (parse_huge_pages(pl->value, &s->huge_pages)) {
			pg_error(r, s, path, line,
				 "invalid value for huge_pages: \"%.64s\"",
				 pl->value);
			return;
		}
		s->huge_pages_set = true;
		/* Where a DBA must change it: the last assignment wins. */
		snprintf(s->huge_pages_origin, sizeof(s->huge_pages_origin),
			 "%s:%u", path, line);
	} else if (span_equals_nocase(pl->name, pl->name_len,
				      "huge_page_size")) {
		if (pg_parse_int(pl->value, 1024, 0, PG_INT_MAX, &number)) {
			pg_error(r, s, path, line,
				 "invalid value for huge_page_size: \"%.64s\"",
				 pl->value);
			return;
		}
		s->huge_page_size = (uint64_t)number * 1024;
	} else if (span_equals_nocase(pl->name, pl->name_len,
				      "data_directory")) {
		if (resolve_path(path, pl->value, s->data_directory,
				 sizeof(s->data_directory))) {
			pg_error(r, s, path, line, "data_directory too long");
			return;
		}
		s->data_directory_set = true;
	}
}

unsigned int pgconf_parse_text(const struct pg_reader *r, struct pg_settings *s,
			       const char *text, size_t len, const char *path,
			       unsigned int depth)
{
	unsigned int before = s->errors;
	struct line_reader lr;
	const char *line;
	size_t llen;

	line_reader_init(&lr, text, len);
	while (line_reader_next(&lr, &line, &llen)) {
		struct pg_line pl;
		const char *why = NULL;
		int kind;

		if (llen >= MAX_LINE) {
			pg_error(r, s, path, lr.lineno, "line too long");
			continue;
		}
		if (memchr(line, '\0', llen)) {
			pg_error(r, s, path, lr.lineno, "NUL byte in line");
			continue;
		}
		kind = split_line(line, llen, &pl, &why);
		if (kind < 0) {
			pg_error(r, s, path, lr.lineno, "%s", why);
			continue;
		}
		if (kind == 0)
			continue;
		if (span_equals_nocase(pl.name, pl.name_len, "include") ||
		    span_equals_nocase(pl.name, pl.name_len, "include_dir") ||
		    span_equals_nocase(pl.name, pl.name_len,
				       "include_if_exists"))
			handle_include(r, s, &pl, path, lr.lineno, depth);
		else
			apply_setting(r, s, &pl, path, lr.lineno);
	}
	return s->errors - before;
}

int pgconf_read_file(const struct pg_reader *r, struct pg_settings *s,
		     const char *path, unsigned int depth)
{
	size_t len;
	char *buf;
	int err;

	if (s->files_read >= MAX_PG_FILES) {
		pg_error(r, s, path, 0, "too many configuration files");
		return -EIO;
	}
	err = root_read_file(r->root, path, MAX_CONFIG_FILE, &buf, &len);
	if (err == -ENOENT)
		return -ENOENT;
	if (err) {
		pg_error(r, s, path, 0, "cannot read: %s", read_error_name(err));
		return -EIO;
	}
	s->files_read++;
	pgconf_parse_text(r, s, buf, len, path, depth);
	free(buf);
	return 0;
}
