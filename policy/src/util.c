// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded file reading and small string helpers.  Every read goes through
 * here so the size caps in limits.h are enforced in one place.
 */
#include "bounds.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static int open_regular(const char *path)
{
	struct stat st;
	int fd;

	/* O_NONBLOCK: a FIFO where a config file belongs must not hang boot. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* Read up to @size bytes; returns bytes read or -errno. */
static ssize_t read_all(int fd, char *buf, size_t size)
{
	size_t done = 0;

	while (done < size) {
		ssize_t n = read(fd, buf + done, size - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int read_file_capped(const char *path, size_t cap, char **buf, size_t *len)
{
	int fd;

	*buf = NULL;
	*len = 0;
	fd = open_regular(path);
	if (fd < 0)
		return fd;
	return read_fd_capped(fd, cap, buf, len);
}

int read_fd_capped(int fd, size_t cap, char **buf, size_t *len)
{
	ssize_t n;
	char *data;

	*buf = NULL;
	*len = 0;
	/* One spare byte tells "exactly cap" from "more than cap". */
	data = malloc(cap + 2);
	if (!data) {
		close(fd);
		return -ENOMEM;
	}
	n = read_all(fd, data, cap + 1);
	close(fd);
	if (n < 0) {
		free(data);
		return (int)n;
	}
	if ((size_t)n > cap) {
		free(data);
		return -EFBIG;
	}
	data[n] = '\0';
	*buf = data;
	*len = (size_t)n;
	return 0;
}

const char *read_error_name(int err)
{
	switch (err) {
	case -EINVAL:
		return "not a regular file (FIFOs, devices and sockets are never opened)";
	case -EFBIG:
		return "file too large";
	default:
		return strerror(-err);
	}
}

int read_small_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	if (size == 0)
		return -EINVAL;
	buf[0] = '\0';
	fd = open_regular(path);
	if (fd < 0)
		return fd;
	n = read_all(fd, buf, size);
	close(fd);
	if (n < 0)
		return (int)n;
	if ((size_t)n >= size) {
		buf[size - 1] = '\0';
		return -EFBIG;
	}
	buf[n] = '\0';
	return 0;
}

int path_join(char *out, size_t size, const char *dir, const char *rel)
{
	size_t dlen = strlen(dir);
	size_t rlen;

	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;
	while (*rel == '/')
		rel++;
	rlen = strlen(rel);
	if (rlen == 0) {
		if (dlen + 1 > size)
			return -ENAMETOOLONG;
		memcpy(out, dir, dlen);
		out[dlen] = '\0';
		return 0;
	}
	if (dlen == 1 && dir[0] == '/')
		dlen = 0;
	if (dlen + 1 + rlen + 1 > size)
		return -ENAMETOOLONG;
	memcpy(out, dir, dlen);
	out[dlen] = '/';
	memcpy(out + dlen + 1, rel, rlen + 1);
	return 0;
}

void copy_bounded(char *dst, size_t size, const char *src, size_t len)
{
	if (size == 0)
		return;
	if (len > size - 1)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

void line_reader_init(struct line_reader *lr, const char *text, size_t len)
{
	lr->pos = text;
	lr->end = text + len;
	lr->lineno = 0;
}

bool line_reader_next(struct line_reader *lr, const char **line, size_t *len)
{
	const char *nl;

	if (lr->pos >= lr->end)
		return false;
	nl = memchr(lr->pos, '\n', (size_t)(lr->end - lr->pos));
	*line = lr->pos;
	if (nl) {
		*len = (size_t)(nl - lr->pos);
		lr->pos = nl + 1;
	} else {
		*len = (size_t)(lr->end - lr->pos);
		lr->pos = lr->end;
	}
	lr->lineno++;
	return true;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' ||
	       c == '\f' || c == '\v';
}

void trim_span(const char **s, size_t *len)
{
	while (*len > 0 && is_blank(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len > 0 && is_blank((*s)[*len - 1]))
		(*len)--;
}

bool span_equals(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && memcmp(s, word, len) == 0;
}

bool span_equals_nocase(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && strncasecmp(s, word, len) == 0;
}

int parse_u64_span(const char *s, size_t len, unsigned long long *out)
{
	unsigned long long v = 0;
	size_t i;

	if (len == 0)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned int d;

		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		d = (unsigned int)(s[i] - '0');
		if (v > (ULLONG_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

long long read_count_file(const char *dir, const char *name)
{
	char path[PATH_LEN], buf[64];
	unsigned long long v;
	const char *s = buf;
	size_t len;

	if (path_join(path, sizeof(path), dir, name) ||
	    read_small_file(path, buf, sizeof(buf)))
		return -1;
	len = strlen(buf);
	trim_span(&s, &len);
	if (parse_u64_span(s, len, &v) || v > (1ULL << 40))
		return -1;
	return (long long)v;
}
