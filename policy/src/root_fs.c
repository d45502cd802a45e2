// SPDX-License-Identifier: GPL-2.0
/*
 * The --root boundary.  openat2(RESOLVE_IN_ROOT) where the kernel has it
 * (5.6+), else a walk one component at a time with O_PATH|O_NOFOLLOW
 * that follows symlinks itself, restarting absolute ones at the root and
 * stopping ".." there.  Either way the result is an O_PATH descriptor,
 * checked with fstat() before the file is opened for reading through
 * /proc/self/fd (the same inode, no second path lookup).
 */
#include "root_fs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_SYMLINKS	40	/* as the kernel's MAXSYMLINKS */
#define PATH_MAX_LINK	4096	/* PATH_MAX: a symlink target */
#define NAME_MAX_COMPONENT 256	/* NAME_MAX + 1 */
#define MAX_DEPTH	64

bool root_fs_force_walk;

static int open_root(const char *root)
{
	int fd = open(root[0] ? root : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int resolve_openat2(int rootfd, const char *path)
{
#ifdef SYS_openat2
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	do {
		fd = syscall(SYS_openat2, rootfd, path[0] ? path : ".", &how,
			     sizeof(how));
	} while (fd < 0 && errno == EAGAIN);
	return fd < 0 ? -errno : (int)fd;
#else
	(void)rootfd;
	(void)path;
	return -ENOSYS;
#endif
}

struct walk {
	int fds[MAX_DEPTH];	/* fds[0] is the root */
	unsigned int depth;
	char rest[2 * PATH_MAX_LINK];	/* what is left to resolve */
	unsigned int links;
};

static void walk_free(struct walk *w)
{
	unsigned int i;

	for (i = 1; i <= w->depth; i++)
		close(w->fds[i]);
}

/* Replace w->rest by @target "/" @tail; absolute targets restart at the root. */
static int splice_link(struct walk *w, const char *target, const char *tail)
{
	char next[sizeof(w->rest)];
	int n = snprintf(next, sizeof(next), "%s/%s", target, tail);

	if (n < 0 || (size_t)n >= sizeof(next))
		return -ENAMETOOLONG;
	memcpy(w->rest, next, (size_t)n + 1);
	if (target[0] == '/') {
		while (w->depth > 0)
			close(w->fds[w->depth--]);
	}
	return 0;
}

/* One component @name (NUL-terminated) from the current directory. */
static int walk_step(struct walk *w, const char *name, const char *tail)
{
	struct stat st;
	int fd;

	if (!strcmp(name, ".") || !name[0])
		return 0;
	if (!strcmp(name, "..")) {
		/* ".." of the root is the root, as for the root's own init. */
		if (w->depth > 0)
			close(w->fds[w->depth--]);
		return 0;
	}
	fd = openat(w->fds[w->depth], name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX_LINK];
		ssize_t n;

		close(fd);
		if (++w->links > MAX_SYMLINKS)
			return -ELOOP;
		n = readlinkat(w->fds[w->depth], name, target,
			       sizeof(target) - 1);
		if (n < 0)
			return -errno;
		target[n] = '\0';
		n = splice_link(w, target, tail);
		return n < 0 ? (int)n : 1;
	}
	if (w->depth + 1 >= MAX_DEPTH) {
		close(fd);
		return -ENAMETOOLONG;
	}
	w->fds[++w->depth] = fd;
	return 0;
}

static int resolve_walk(int rootfd, const char *path)
{
	struct walk *w = calloc(1, sizeof(*w));
	int err = 0, fd;

	if (!w)
		return -ENOMEM;
	w->fds[0] = rootfd;
	if (strlen(path) >= sizeof(w->rest)) {
		free(w);
		return -ENAMETOOLONG;
	}
	memcpy(w->rest, path, strlen(path) + 1);
	for (;;) {
		char *p = w->rest, *slash, name[NAME_MAX_COMPONENT];
		size_t len;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		slash = strchr(p, '/');
		len = slash ? (size_t)(slash - p) : strlen(p);
		if (len >= sizeof(name)) {
			err = -ENAMETOOLONG;
			break;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		err = walk_step(w, name, p);
		if (err < 0)
			break;
		if (err == 0)
			memmove(w->rest, p, strlen(p) + 1);
		err = 0;
	}
	if (err) {
		walk_free(w);
		free(w);
		return err;
	}
	/* The result: the last directory or file reached, as its own fd. */
	fd = w->depth ? w->fds[w->depth] : fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
	if (w->depth)
		w->depth--;
	walk_free(w);
	free(w);
	return fd < 0 ? -errno : fd;
}

int root_resolve(const char *root, const char *path, struct stat *st)
{
	int rootfd = open_root(root), fd = -ENOSYS;

	if (rootfd < 0)
		return rootfd;
	if (!root_fs_force_walk)
		fd = resolve_openat2(rootfd, path);
	if (fd == -ENOSYS || fd == -EPERM)
		fd = resolve_walk(rootfd, path);
	close(rootfd);
	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Open the inode behind an O_PATH descriptor for reading. */
static int reopen(int pathfd, int flags)
{
	char proc[64];
	int fd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pathfd);
	fd = open(proc, flags | O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

/* A regular file (or directory with @want_dir) inside @root, open to read. */
static int root_open(const char *root, const char *path, bool want_dir)
{
	struct stat st, st2;
	int pathfd, fd;

	pathfd = root_resolve(root, path, &st);
	if (pathfd < 0)
		return pathfd;
	if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
		close(pathfd);
		return want_dir ? -ENOTDIR : -EINVAL;
	}
	fd = reopen(pathfd, want_dir ? O_DIRECTORY : 0);
	close(pathfd);
	if (fd < 0)
		return fd;
	/* /proc was another mount than expected: still the same inode? */
	if (fstat(fd, &st2) < 0 || st2.st_dev != st.st_dev ||
	    st2.st_ino != st.st_ino) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int root_read_file(const char *root, const char *path, size_t cap,
		   char **buf, size_t *len)
{
	int fd = root_open(root, path, false);

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return fd;
	return read_fd_capped(fd, cap, buf, len);
}

DIR *root_opendir(const char *root, const char *path)
{
	int fd = root_open(root, path, true);
	DIR *d;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	d = fdopendir(fd);
	if (!d) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return d;
}

int root_stat(const char *root, const char *path, struct stat *st)
{
	int fd = root_resolve(root, path, st);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}
