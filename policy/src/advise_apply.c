// SPDX-License-Identifier: GPL-2.0
/*
 * advise --apply and revert: the part of the advice an admin would paste
 * that concerns the kernel, done and recorded, so that revert undoes
 * exactly that and nothing else.  Done: the sysctl.d file that reserves
 * the default-size pool at boot (only where the root does not reserve
 * enough already), and the live pool grown where /proc/buddyinfo says it
 * can be.  Never done: a PostgreSQL file (huge_pages = on is the DBA's
 * edit), a restart, a boot loader change.
 *
 * The record, ROOT/var/lib/preempt-policy/applied, one key=value a line:
 *   created=/etc/sysctl.d/90-preempt-policy-hugepages.conf
 *   pool=SYSFS-PATH OLD NEW
 * revert removes the file only while it still holds what apply wrote,
 * and writes OLD back only while the pool still is NEW.
 */
#include "advise.h"
#include "exit_codes.h"
#include "paths.h"
#include "root_fs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYSCTL_FILE	"etc/sysctl.d/90-preempt-policy-hugepages.conf"
#define APPLIED_FILE	VAR_STATE_DIR "/applied"
#define SYSCTL_HEADER	"# Written by preempt-policy advise --apply; preempt-policy revert removes it.\n"

struct applied {
	bool created;
	char pool_path[PATH_LEN];
	long long pool_old, pool_new;
};

/* Write @text to @path as a new file: temporary, fsync, rename. */
static int write_new_file(const char *path, const char *text)
{
	char tmp[PATH_LEN + 16];
	size_t len = strlen(text);
	ssize_t n;
	int fd;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0 || (size_t)n != len || fsync(fd)) {
		close(fd);
		unlink(tmp);
		return -EIO;
	}
	if (close(fd) || rename(tmp, path)) {
		int err = -errno;

		unlink(tmp);
		return err;
	}
	return 0;
}

static long long read_count(const char *path)
{
	char buf[64], *end;
	long long v;

	if (read_small_file(path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || end == buf || v < 0)
		return -1;
	return v;
}

/* Write @n to the pool file @path, then read back what the kernel gave. */
static long long write_count(const char *path, long long n)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%lld\n", n);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
	ssize_t w;

	if (fd < 0)
		return -1;
	w = write(fd, buf, (size_t)len);
	if (close(fd) || w != len)
		return -1;
	return read_count(path);
}

static int pool_path(const struct env *env, uint64_t page_size, char *out,
		     size_t size)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "%s/hugepages-%llukB/nr_hugepages",
		 SYS_HUGEPAGES_DIR, (unsigned long long)(page_size >> 10));
	return path_join(out, size, env->sys, rel);
}

/*
 * The default pool at boot with @file in place: the facts predicted
 * again from the live pools, so a later sysctl.d file or
 * /etc/sysctl.conf that sets less shows.
 */
static long long predicted_default(const struct run *run,
				   const struct env *env, char *origin,
				   size_t size)
{
	struct facts *f = malloc(sizeof(*f));
	long long nr = -1;
	unsigned int i;

	if (!f)
		return -1;
	memcpy(f, run->facts, sizeof(*f));
	f->diags.count = 0;
	f->diags.dropped = 0;
	for (i = 0; i < f->npools; i++) {
		f->pools[i].nr = f->pools[i].live > 0 ? f->pools[i].live : 0;
		f->pools[i].origin[0] = '\0';
	}
	facts_predict_hugetlb(f, env);
	for (i = 0; i < f->npools; i++)
		if (f->pools[i].page_size == f->default_hugepage_size) {
			nr = f->pools[i].boot;
			copy_bounded(origin, size, f->pools[i].boot_origin,
				     strlen(f->pools[i].boot_origin));
		}
	free(f);
	return nr;
}

static int write_record(const struct env *env, const struct applied *ap)
{
	char dir[PATH_LEN], path[PATH_LEN], text[PATH_LEN * 2 + 256];
	size_t used;

	if (path_join(dir, sizeof(dir), env->root, VAR_STATE_DIR) ||
	    path_join(path, sizeof(path), env->root, APPLIED_FILE))
		return -ENAMETOOLONG;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	used = (size_t)snprintf(text, sizeof(text),
				"# preempt-policy advise --apply: what it changed; preempt-policy revert undoes it\n");
	if (ap->created)
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 "created=/%s\n", SYSCTL_FILE);
	if (ap->pool_path[0])
		snprintf(text + used, sizeof(text) - used, "pool=%s %lld %lld\n",
			 ap->pool_path, ap->pool_old, ap->pool_new);
	return write_new_file(path, text);
}

int advise_apply(const struct run *run, const struct env *env, FILE *out)
{
	struct advice *a = malloc(sizeof(*a));
	char file[PATH_LEN], record[PATH_LEN], dir[PATH_LEN], text[256];
	char origin[POOL_ORIGIN_LEN];
	struct applied done = { .created = false };
	struct stat st;
	unsigned int i;
	int code = EXIT_OK, err;

	if (!a)
		return EXIT_WRITE_FAILED;
	if (run->decision.bad_input) {
		fprintf(stderr, "preempt-policy: advise --apply: bad input (see diagnostics): nothing changed\n");
		free(a);
		return EXIT_BAD_INPUT;
	}
	if (path_join(file, sizeof(file), env->root, SYSCTL_FILE) ||
	    path_join(record, sizeof(record), env->root, APPLIED_FILE)) {
		free(a);
		return EXIT_USAGE;
	}
	if (!lstat(record, &st)) {
		fprintf(stderr, "preempt-policy: advise --apply: %s records an earlier apply: run preempt-policy revert first; nothing changed\n",
			record);
		free(a);
		return EXIT_USAGE;
	}
	advise_plan(a, run, env);
	for (i = 0; i < a->npools; i++) {
		const struct advice_pool *ap = &a->pools[i];
		long long n = (long long)ap->pages, got;

		if (!ap->is_default) {
			fprintf(out, "pool %lld kB: not applied: another page size is reserved on the kernel command line (see advise)\n",
				(long long)(ap->page_size >> 10));
			continue;
		}
		if (ap->predicted < n) {
			if (!lstat(file, &st)) {
				fprintf(stderr, "preempt-policy: advise --apply: %s exists: nothing changed\n",
					file);
				free(a);
				return EXIT_WRITE_FAILED;
			}
			snprintf(text, sizeof(text), SYSCTL_HEADER "vm.nr_hugepages = %lld\n", n);
			/* Debian's procps makes it; a root without procps has none. */
			if (!env->dry_run && !path_join(dir, sizeof(dir), env->root,
							"etc/sysctl.d") &&
			    mkdir(dir, 0755) && errno != EEXIST) {
				fprintf(stderr, "preempt-policy: %s: %s\n", dir,
					strerror(errno));
				free(a);
				return EXIT_WRITE_FAILED;
			}
			if (env->dry_run) {
				fprintf(out, "dry-run: would write %s: vm.nr_hugepages = %lld\n",
					file, n);
			} else if ((err = write_new_file(file, text))) {
				fprintf(stderr, "preempt-policy: %s: %s\n", file,
					strerror(-err));
				free(a);
				return EXIT_WRITE_FAILED;
			} else {
				done.created = true;
				got = predicted_default(run, env, origin,
							sizeof(origin));
				if (got < n) {
					/* A later file sets less: ours would be overridden. */
					unlink(file);
					fprintf(stderr, "preempt-policy: advise --apply: %s sets vm.nr_hugepages = %lld after /%s: removed it again; edit that line\n",
						origin, got, SYSCTL_FILE);
					free(a);
					return EXIT_WRITE_FAILED;
				}
				fprintf(out, "wrote /%s: vm.nr_hugepages = %lld at every boot\n",
					SYSCTL_FILE, n);
			}
		}
		if (ap->growth != GROW_NOW)
			continue;
		if (pool_path(env, ap->page_size, done.pool_path,
			      sizeof(done.pool_path)))
			continue;
		done.pool_old = ap->live;
		done.pool_new = n;
		if (env->dry_run) {
			fprintf(out, "dry-run: would write %lld to %s (now %lld)\n",
				n, done.pool_path, ap->live);
			done.pool_path[0] = '\0';
			continue;
		}
		got = write_count(done.pool_path, n);
		if (got < 0) {
			fprintf(stderr, "preempt-policy: %s: cannot write %lld\n",
				done.pool_path, n);
			done.pool_path[0] = '\0';
			code = EXIT_WRITE_FAILED;
			continue;
		}
		done.pool_new = got;
		fprintf(out, "grew the live pool: %s %lld -> %lld%s\n",
			done.pool_path, ap->live, got,
			got < n ? " (fewer than asked: the kernel found no more free blocks)" : "");
		if (got < n)
			code = EXIT_WRITE_FAILED;
	}
	free(a);
	if (env->dry_run)
		return code;
	if (done.created || done.pool_path[0]) {
		err = write_record(env, &done);
		if (err) {
			fprintf(stderr, "preempt-policy: %s: %s: revert cannot undo this apply\n",
				record, strerror(-err));
			return EXIT_WRITE_FAILED;
		}
		fprintf(out, "recorded in %s (preempt-policy revert undoes it)\n",
			record);
	} else {
		fprintf(out, "nothing to apply: the pools are as the clusters need\n");
	}
	fprintf(out, "not done: huge_pages = on (no PostgreSQL file is edited) and the restart of each cluster (see advise)\n");
	return code;
}

/* One line of the record into @ap; false when it is not one apply writes. */
static bool record_line(struct applied *ap, const char *line, size_t len)
{
	char buf[PATH_LEN + 64], *sp, *end, *num;

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, line, len);
	buf[len] = '\0';
	if (strcmp(buf, "created=/" SYSCTL_FILE) == 0) {
		ap->created = true;
		return true;
	}
	if (strncmp(buf, "pool=", 5) != 0)
		return false;
	sp = strchr(buf + 5, ' ');
	if (!sp)
		return false;
	*sp = '\0';
	copy_bounded(ap->pool_path, sizeof(ap->pool_path), buf + 5,
		     strlen(buf + 5));
	errno = 0;
	ap->pool_old = strtoll(sp + 1, &end, 10);
	if (errno || end == sp + 1 || *end != ' ' || ap->pool_old < 0)
		return false;
	num = end + 1;
	ap->pool_new = strtoll(num, &end, 10);
	return !errno && end != num && !*end && ap->pool_new >= 0;
}

int advise_revert(const struct env *env, FILE *out)
{
	char record[PATH_LEN], file[PATH_LEN], *buf, *content;
	struct applied ap = { .created = false };
	struct line_reader lr;
	const char *line;
	size_t len, clen;
	int err, code = EXIT_OK;

	if (path_join(record, sizeof(record), env->root, APPLIED_FILE) ||
	    path_join(file, sizeof(file), env->root, SYSCTL_FILE))
		return EXIT_USAGE;
	err = root_read_file(env->root, "/" APPLIED_FILE, MAX_KERNEL_FILE, &buf,
			     &len);
	if (err == -ENOENT) {
		fprintf(out, "nothing to revert: no %s\n", record);
		return EXIT_OK;
	}
	if (err) {
		fprintf(stderr, "preempt-policy: %s: cannot read: %s\n", record,
			read_error_name(err));
		return EXIT_BAD_INPUT;
	}
	line_reader_init(&lr, buf, len);
	while (line_reader_next(&lr, &line, &len)) {
		if (!len || line[0] == '#')
			continue;
		if (!record_line(&ap, line, len)) {
			fprintf(stderr, "preempt-policy: %s:%u: not a line advise --apply writes: nothing reverted\n",
				record, lr.lineno);
			free(buf);
			return EXIT_BAD_INPUT;
		}
	}
	free(buf);
	if (ap.created) {
		err = root_read_file(env->root, "/" SYSCTL_FILE, MAX_KERNEL_FILE,
				     &content, &clen);
		if (err == -ENOENT) {
			fprintf(out, "/%s: already gone\n", SYSCTL_FILE);
		} else if (err || clen < strlen(SYSCTL_HEADER) ||
			   memcmp(content, SYSCTL_HEADER, strlen(SYSCTL_HEADER)) != 0) {
			fprintf(stderr, "preempt-policy: %s: changed since advise --apply wrote it: left alone\n",
				file);
			code = EXIT_WRITE_FAILED;
		} else if (env->dry_run) {
			fprintf(out, "dry-run: would remove %s\n", file);
		} else if (unlink(file)) {
			fprintf(stderr, "preempt-policy: %s: %s\n", file,
				strerror(errno));
			code = EXIT_WRITE_FAILED;
		} else {
			fprintf(out, "removed %s (the pool at the next boot is as before)\n",
				file);
		}
		if (!err)
			free(content);
	}
	if (ap.pool_path[0]) {
		long long now = read_count(ap.pool_path);

		if (now == ap.pool_old && now != ap.pool_new) {
			fprintf(out, "%s: already back at %lld\n", ap.pool_path,
				now);
		} else if (now != ap.pool_new) {
			fprintf(stderr, "preempt-policy: %s is %lld, not the %lld advise --apply left: left alone\n",
				ap.pool_path, now, ap.pool_new);
			code = EXIT_WRITE_FAILED;
		} else if (env->dry_run) {
			fprintf(out, "dry-run: would write %lld to %s\n",
				ap.pool_old, ap.pool_path);
		} else if (write_count(ap.pool_path, ap.pool_old) != ap.pool_old) {
			fprintf(stderr, "preempt-policy: %s: cannot write %lld back\n",
				ap.pool_path, ap.pool_old);
			code = EXIT_WRITE_FAILED;
		} else {
			fprintf(out, "shrank the live pool back: %s %lld -> %lld\n",
				ap.pool_path, ap.pool_new, ap.pool_old);
		}
	}
	if (env->dry_run || code != EXIT_OK)
		return code;
	if (unlink(record)) {
		fprintf(stderr, "preempt-policy: %s: %s\n", record, strerror(errno));
		return EXIT_WRITE_FAILED;
	}
	fprintf(out, "reverted: %s removed\n", record);
	return EXIT_OK;
}
