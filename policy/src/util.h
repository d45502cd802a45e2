/* SPDX-License-Identifier: GPL-2.0 */
/* Bounded file reading, path joining and line splitting shared by parsers. */
#ifndef PREEMPT_POLICY_UTIL_H
#define PREEMPT_POLICY_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Read a regular file into a NUL-terminated heap buffer of at most @cap
 * bytes.  Returns 0 and sets @buf and @len, or a negative errno: -EFBIG when
 * the file holds more than @cap bytes, -EINVAL when it is not a regular
 * file (a FIFO or device could block or never end).  Caller frees *@buf.
 */
int read_file_capped(const char *path, size_t cap, char **buf, size_t *len);

/* Why a read_file_capped()/root_read_file() failed, for a message. */
const char *read_error_name(int err);

/* The same from an open descriptor, which it closes. */
int read_fd_capped(int fd, size_t cap, char **buf, size_t *len);

/*
 * Same, into a caller buffer of @size bytes (content truncated to size-1 is
 * reported as -EFBIG).  Used for small kernel files.
 */
int read_small_file(const char *path, char *buf, size_t size);
/* DIR/NAME holding one count (sysfs, debugfs): the value, or -1. */
long long read_count_file(const char *dir, const char *name);

/* Join @dir and @rel into @out; returns 0 or -ENAMETOOLONG. */
int path_join(char *out, size_t size, const char *dir, const char *rel);

/* Copy at most @len bytes of @src into @dst (size @size), NUL-terminated. */
void copy_bounded(char *dst, size_t size, const char *src, size_t len);

/* Split text into lines.  Lines may end in \n, \r\n or the end of text. */
struct line_reader {
	const char *pos;
	const char *end;
	unsigned int lineno;
};

void line_reader_init(struct line_reader *lr, const char *text, size_t len);
/* Returns false at the end; otherwise sets @line and @len (no newline). */
bool line_reader_next(struct line_reader *lr, const char **line, size_t *len);

/* Strip leading and trailing blanks (space, tab, CR, LF) from a span. */
void trim_span(const char **s, size_t *len);

bool span_equals(const char *s, size_t len, const char *word);
bool span_equals_nocase(const char *s, size_t len, const char *word);

/* Parse an unsigned decimal integer that fills the whole span. */
int parse_u64_span(const char *s, size_t len, unsigned long long *out);

#endif
