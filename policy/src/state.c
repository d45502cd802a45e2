// SPDX-License-Identifier: GPL-2.0
/*
 * The state file: the decision reached after boot (with the live facts),
 * kept so that the initramfs of the next boot, where PostgreSQL has not
 * started yet, starts in that mode.  Format, one key=value per line:
 *
 *   mode=none
 *   reason=rule pg-fell-back (...): pg_live_fallbacks > 0 (is 1)
 *   cluster=16/main
 *
 * It holds while a listed cluster is still configured and still predicted
 * to get no huge pages; once each one got its pages or is gone it is
 * ignored, and the next record removes it.
 */
#include "state.h"
#include "exit_codes.h"
#include "paths.h"
#include "report.h"
#include "root_fs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const state_keys[] = { "mode=", "reason=", "cluster=" };

/*
 * The key @line (of @len bytes) starts with, with a value after it; its
 * length in *@klen.
 */
static const char *state_key(const char *line, size_t len, size_t *klen)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(state_keys); i++) {
		*klen = strlen(state_keys[i]);
		if (len > *klen && memcmp(line, state_keys[i], *klen) == 0)
			return state_keys[i];
	}
	return NULL;
}

bool state_parse(struct saved_state *st, const char *buf, size_t len)
{
	struct line_reader lr;
	const char *line, *key;
	size_t klen;

	memset(st, 0, sizeof(*st));
	st->mode = MODE_UNKNOWN;
	line_reader_init(&lr, buf, len);
	while (line_reader_next(&lr, &line, &len)) {
		if (len == 0 || line[0] == '#')
			continue;
		/*
		 * state_record writes no NUL byte: in a value it would end
		 * it early, and "cluster=" then a NUL would name no cluster.
		 */
		key = state_key(line, len, &klen);
		if (key && memchr(line + klen, '\0', len - klen)) {
			if (!st->bad_line) {
				st->bad_line = lr.lineno;
				st->bad_key = key;
			}
			st->bad = true;
			continue;
		}
		if (len > 5 && memcmp(line, "mode=", 5) == 0) {
			st->mode = mode_from_span(line + 5, len - 5);
		} else if (len > 7 && memcmp(line, "reason=", 7) == 0) {
			copy_bounded(st->reason, sizeof(st->reason), line + 7,
				     len - 7);
		} else if (len > 8 && memcmp(line, "cluster=", 8) == 0 &&
			   st->nclusters < STATE_MAX_CLUSTERS) {
			copy_bounded(st->clusters[st->nclusters++],
				     sizeof(st->clusters[0]), line + 8, len - 8);
		} else {
			st->bad = true;
		}
	}
	if (st->mode == MODE_UNKNOWN || !st->nclusters)
		st->bad = true;
	return !st->bad;
}

void facts_gather_state(struct facts *f, const struct env *env)
{
	struct saved_state *st = &f->state;
	size_t len;
	char *buf;
	int err;

	memset(st, 0, sizeof(*st));
	st->mode = MODE_UNKNOWN;
	err = root_read_file(env->root, "/" VAR_STATE_FILE, MAX_KERNEL_FILE,
			     &buf, &len);
	if (err) {
		if (err != -ENOENT)
			diag_add(&f->diags, "/%s: cannot read: %s",
				 VAR_STATE_FILE, read_error_name(err));
		return;
	}
	(void)state_parse(st, buf, len);
	free(buf);
	st->present = true;
	if (st->bad_line)
		diag_add(&f->diags, "/%s:%u: %s value holds a NUL byte: not a state file preempt-policy wrote (remove it with clear-state)",
			 VAR_STATE_FILE, st->bad_line, st->bad_key);
	else if (st->bad)
		diag_add(&f->diags, "/%s: not a state file preempt-policy wrote (remove it with clear-state)",
			 VAR_STATE_FILE);
}

const char *state_holds(const struct facts *f)
{
	const struct saved_state *st = &f->state;
	unsigned int i, j;

	if (!st->present || st->bad)
		return NULL;
	for (i = 0; i < st->nclusters; i++)
		for (j = 0; j < f->nclusters; j++)
			if (strcmp(f->clusters[j].name, st->clusters[i]) == 0 &&
			    f->clusters[j].backing != PG_BACKING_HUGETLB)
				return st->clusters[i];
	return NULL;
}

static int state_path(const struct env *env, const char *rel, char *out,
		      size_t size)
{
	return path_join(out, size, env->root, rel);
}

int state_clear(const struct env *env, FILE *out)
{
	char path[PATH_LEN];

	if (state_path(env, VAR_STATE_FILE, path, sizeof(path)))
		return EXIT_USAGE;
	if (env->dry_run) {
		fprintf(out, "dry-run: would remove %s\n", path);
		return EXIT_OK;
	}
	if (unlink(path) && errno != ENOENT) {
		fprintf(stderr, "preempt-policy: %s: %s\n", path, strerror(errno));
		return EXIT_WRITE_FAILED;
	}
	fprintf(out, "state cleared: %s\n", path);
	return EXIT_OK;
}

/* Clusters running in base pages (or shmem THP): what the state is about. */
static unsigned int fallen_back(const struct facts *f,
				const char **names)
{
	unsigned int i, n = 0;

	for (i = 0; i < f->nclusters && n < STATE_MAX_CLUSTERS; i++) {
		const struct pg_cluster *c = &f->clusters[i];

		if (c->live >= 0 && f->live_pgs[c->live].seg.smaps_read &&
		    f->live_pgs[c->live].seg.backing != PG_BACKING_HUGETLB)
			names[n++] = c->name;
	}
	return n;
}

static int write_state(const struct run *run, const char *dir,
		       const char *path, const char **names, unsigned int n)
{
	char tmp[PATH_LEN + 16], reason[sizeof(run->decision.reason)];
	unsigned int i;
	FILE *f;
	int fd;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return -ENOMEM;
	}
	/* One line: a newline in a reason would end it early. */
	copy_bounded(reason, sizeof(reason), run->decision.reason,
		     strlen(run->decision.reason));
	for (i = 0; reason[i]; i++)
		if ((unsigned char)reason[i] < 0x20)
			reason[i] = ' ';
	fprintf(f, "# preempt-policy state: the mode for the next boot, see preempt-policy(8)\nmode=%s\nreason=%s\n",
		mode_name(run->decision.mode), reason);
	for (i = 0; i < n; i++)
		fprintf(f, "cluster=%s\n", names[i]);
	if (fflush(f) || fsync(fileno(f))) {
		fclose(f);
		unlink(tmp);
		return -EIO;
	}
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		return -errno;
	}
	return 0;
}

int state_record(const struct run *run, const struct env *env, FILE *out)
{
	const struct decision *d = &run->decision;
	const char *names[STATE_MAX_CLUSTERS];
	char dir[PATH_LEN], path[PATH_LEN];
	unsigned int n = fallen_back(run->facts, names);
	int err;

	if (d->bad_input)
		return EXIT_BAD_INPUT;	/* never record a fallback */
	if (state_path(env, VAR_STATE_DIR, dir, sizeof(dir)) ||
	    state_path(env, VAR_STATE_FILE, path, sizeof(path)))
		return EXIT_USAGE;
	if (d->source != SRC_RULE || d->mode == MODE_KEEP || !n) {
		fprintf(out, "nothing to record (%s): ",
			d->source != SRC_RULE || d->mode == MODE_KEEP ?
			"no rule picked a mode" :
			"no cluster runs without huge pages");
		return state_clear(env, out);
	}
	if (env->dry_run) {
		unsigned int i;

		fprintf(out, "dry-run: would write %s: mode=%s", path,
			mode_name(d->mode));
		for (i = 0; i < n; i++)
			fprintf(out, " cluster=%s", names[i]);
		fputc('\n', out);
		return EXIT_OK;
	}
	err = write_state(run, dir, path, names, n);
	if (err) {
		fprintf(stderr, "preempt-policy: %s: %s\n", path, strerror(-err));
		return EXIT_WRITE_FAILED;
	}
	fprintf(out, "recorded %s: mode=%s for the next boot\n", path,
		mode_name(d->mode));
	return EXIT_OK;
}
