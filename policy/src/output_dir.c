// SPDX-License-Identifier: GPL-2.0
#include "output_dir.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static int open_output(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	err = path_join(path, sizeof(path), dir, name);
	if (err)
		return err;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY |
		  O_NOFOLLOW, 0644);
	return fd < 0 ? -errno : fd;
}

int output_dir_redirect(const char *dir)
{
	int out, err_fd, err = 0;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	out = open_output(dir, "out");
	if (out < 0)
		return out;
	err_fd = open_output(dir, "err");
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
