// SPDX-License-Identifier: GPL-2.0
/* The trial result file: parse, write (atomically), and whether it holds. */
#include "trial_record.h"
#include "facts.h"
#include "paths.h"
#include "root_fs.h"
#include "trial_metric.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Percent with an optional sign: "+5.10", "-0.4", "3". */
static int parse_percent(const char *s, size_t len, double *out)
{
	bool negative = false;
	int err;

	if (len && (s[0] == '+' || s[0] == '-')) {
		negative = s[0] == '-';
		s++;
		len--;
	}
	/* Blanks are the number parser's to allow, not inside a value. */
	if (!len || s[0] < '0' || s[0] > '9' || s[len - 1] < '0' ||
	    s[len - 1] > '9')
		return -EINVAL;
	err = trial_parse_number(s, len, out);
	if (!err && negative)
		*out = -*out;
	return err;
}

static int parse_seconds(const char *s, size_t len, long long *out)
{
	unsigned long long v;

	if (parse_u64_span(s, len, &v) || v > (1ULL << 62))
		return -EINVAL;
	*out = (long long)v;
	return 0;
}

/* A word of letters, digits and . _ - + : no blanks or controls. */
static bool plain_word(const char *s, size_t len, size_t max)
{
	size_t i;

	if (!len || len >= max)
		return false;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-' || c == '+'))
			return false;
	}
	return true;
}

static int record_mode(const char *s, size_t len)
{
	if (span_equals(s, len, "keep"))
		return MODE_KEEP;
	return mode_from_span(s, len);
}

/* One key=value line into @rec; false when it is not one we wrote. */
static bool parse_line(struct trial_record *rec, const char *line, size_t len,
		       unsigned int *seen)
{
	const char *eq = memchr(line, '=', len);
	const char *v;
	size_t klen, vlen, i;
	unsigned long long n;

	if (!eq)
		return false;
	klen = (size_t)(eq - line);
	v = eq + 1;
	vlen = len - klen - 1;
	for (i = 0; i < vlen; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return false;
	if (span_equals(line, klen, "mode")) {
		rec->mode = record_mode(v, vlen);
		*seen |= 1u;
		return rec->mode != MODE_UNKNOWN;
	}
	if (span_equals(line, klen, "baseline")) {
		rec->baseline = mode_from_span(v, vlen);
		*seen |= 2u;
		return rec->baseline != MODE_UNKNOWN;
	}
	if (span_equals(line, klen, "metric")) {
		if (!vlen || vlen >= sizeof(rec->metric))
			return false;
		copy_bounded(rec->metric, sizeof(rec->metric), v, vlen);
		return true;
	}
	if (span_equals(line, klen, "effect"))
		return parse_percent(v, vlen, &rec->effect) == 0;
	if (span_equals(line, klen, "interval")) {
		const char *comma = memchr(v, ',', vlen);

		return comma &&
		       parse_percent(v, (size_t)(comma - v), &rec->lo) == 0 &&
		       parse_percent(comma + 1, vlen - (size_t)(comma - v) - 1,
				     &rec->hi) == 0 && rec->lo <= rec->hi;
	}
	if (span_equals(line, klen, "rounds")) {
		if (parse_u64_span(v, vlen, &n) || n > 1000000)
			return false;
		rec->rounds = (unsigned int)n;
		return true;
	}
	if (span_equals(line, klen, "date")) {
		*seen |= 4u;
		return parse_seconds(v, vlen, &rec->date) == 0;
	}
	if (span_equals(line, klen, "expires")) {
		*seen |= 8u;
		return parse_seconds(v, vlen, &rec->expires) == 0;
	}
	if (span_equals(line, klen, "kernel")) {
		*seen |= 16u;
		if (!plain_word(v, vlen, sizeof(rec->kernel)))
			return false;
		copy_bounded(rec->kernel, sizeof(rec->kernel), v, vlen);
		return true;
	}
	return false;
}

bool trial_record_parse(struct trial_record *rec, const char *buf, size_t len)
{
	struct line_reader lr;
	const char *line;
	unsigned int seen = 0;

	memset(rec, 0, sizeof(*rec));
	rec->mode = MODE_UNKNOWN;
	rec->baseline = MODE_UNKNOWN;
	line_reader_init(&lr, buf, len);
	while (line_reader_next(&lr, &line, &len)) {
		if (len == 0 || line[0] == '#')
			continue;
		if (!parse_line(rec, line, len, &seen))
			rec->bad = true;
	}
	if (seen != 31u || rec->expires <= rec->date)
		rec->bad = true;
	return !rec->bad;
}

static void running_release(const struct env *env, char *out, size_t size)
{
	char path[PATH_LEN];
	size_t len;

	out[0] = '\0';
	if (path_join(path, sizeof(path), env->proc, PROC_OSRELEASE) ||
	    read_small_file(path, out, size)) {
		out[0] = '\0';
		return;
	}
	len = strlen(out);
	while (len && (out[len - 1] == '\n' || out[len - 1] == ' '))
		out[--len] = '\0';
}

void facts_gather_trial(struct facts *f, const struct env *env)
{
	struct trial_record *rec = &f->trial;
	char release[TRIAL_KERNEL_LEN * 2];
	size_t len;
	char *buf;
	int err;

	memset(rec, 0, sizeof(*rec));
	rec->mode = MODE_UNKNOWN;
	err = root_read_file(env->root, "/" VAR_TRIAL_FILE, MAX_KERNEL_FILE,
			     &buf, &len);
	if (err) {
		if (err != -ENOENT)
			diag_add(&f->diags, "/%s: cannot read: %s",
				 VAR_TRIAL_FILE, read_error_name(err));
		return;
	}
	(void)trial_record_parse(rec, buf, len);
	free(buf);
	rec->present = true;
	if (rec->bad) {
		diag_add(&f->diags, "/%s: not a trial result preempt-policy wrote (remove it, or run trial --record again)",
			 VAR_TRIAL_FILE);
		return;
	}
	running_release(env, release, sizeof(release));
	if (time(NULL) >= rec->expires)
		rec->why_not = "expired";
	else if (strcmp(release, rec->kernel) != 0)
		rec->why_not = "measured on another kernel";
	else if (rec->mode != MODE_KEEP && !mode_available(&f->modes, rec->mode))
		rec->why_not = "the kernel does not list its mode";
	else
		rec->holds = true;
}

static int format_record(const struct trial_record *rec, char *buf,
			 size_t size)
{
	int n;

	n = snprintf(buf, size,
		     "# preempt-policy trial result, see preempt-policy(8)\n"
		     "mode=%s\nbaseline=%s\nmetric=%s\neffect=%+.2f\n"
		     "interval=%+.2f,%+.2f\nrounds=%u\ndate=%lld\nexpires=%lld\n"
		     "kernel=%s\n",
		     mode_name(rec->mode), mode_name(rec->baseline),
		     rec->metric, rec->effect, rec->lo, rec->hi, rec->rounds,
		     rec->date, rec->expires, rec->kernel);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : n;
}

/* mkdir -p of @dir below its first @keep bytes (the root, which exists). */
static int make_dirs(char *dir, size_t keep)
{
	size_t i, len = strlen(dir);

	for (i = keep + 1; i <= len; i++) {
		if (dir[i] != '/' && dir[i] != '\0')
			continue;
		dir[i] = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST) {
			int err = -errno;

			dir[i] = i < len ? '/' : '\0';
			return err;
		}
		if (i < len)
			dir[i] = '/';
	}
	return 0;
}

int trial_record_write(const struct trial_record *rec, const struct env *env)
{
	char dir[PATH_LEN], path[PATH_LEN], tmp[PATH_LEN + 8], text[1024];
	int fd, n, err = 0;

	n = format_record(rec, text, sizeof(text));
	if (n < 0)
		return n;
	if (path_join(dir, sizeof(dir), env->root, VAR_STATE_DIR) ||
	    path_join(path, sizeof(path), env->root, VAR_TRIAL_FILE) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	err = make_dirs(dir, strlen(env->root));
	if (err)
		return err;
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0)
		return -errno;
	errno = 0;
	if (write(fd, text, (size_t)n) != n || fsync(fd))
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
