// SPDX-License-Identifier: GPL-2.0
/*
 * --output-dir: the run's stdout and stderr in DIR/out and DIR/err.  DIR
 * may sit in a directory others can write to (/run of an initramfs, a
 * test's /tmp), so nothing here follows a symlink: DIR itself is opened
 * with O_NOFOLLOW, and out and err are unlinked and made anew with
 * O_CREAT|O_EXCL|O_NOFOLLOW under that descriptor, never truncated
 * through a link or opened as a FIFO (which would block the boot).
 */
#include "output_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static int create_fresh(int dirfd, const char *name)
{
	int fd;

	/* Whatever is there (an old file, a symlink, a FIFO) goes. */
	if (unlinkat(dirfd, name, 0) && errno != ENOENT)
		return -errno;
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC | O_NOCTTY, 0644);
	return fd < 0 ? -errno : fd;
}

int output_dir_redirect(const char *dir)
{
	int dirfd, out, err_fd, err = 0;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	/* ELOOP for a symlink, ENOTDIR for anything but a directory. */
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0)
		return errno == ELOOP ? -ENOTDIR : -errno;
	out = create_fresh(dirfd, "out");
	if (out < 0) {
		close(dirfd);
		return out;
	}
	err_fd = create_fresh(dirfd, "err");
	close(dirfd);
	if (err_fd < 0) {
		close(out);
		return err_fd;
	}
	/* Nothing buffered may land in the wrong file. */
	fflush(stdout);
	fflush(stderr);
	if (dup2(out, STDOUT_FILENO) < 0 || dup2(err_fd, STDERR_FILENO) < 0)
		err = -errno;
	close(out);
	close(err_fd);
	return err;
}
