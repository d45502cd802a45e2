/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files under --root, read as the root's own init will see them: every
 * path stays inside the root (.., absolute and relative symlinks are
 * resolved against it), and only regular files and directories are ever
 * opened: a FIFO, a device or a socket is refused on an O_PATH descriptor
 * before anything could block or arm it.
 */
#ifndef PREEMPT_POLICY_ROOT_FS_H
#define PREEMPT_POLICY_ROOT_FS_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Tests set this to exercise the walk used where openat2() is missing. */
extern bool root_fs_force_walk;

/*
 * Resolve @path (absolute or relative to @root's top) inside @root and
 * return an O_PATH descriptor, filling @st.  -errno on failure (-ELOOP
 * after 40 symlinks, -ENAMETOOLONG past 64 levels).
 */
int root_resolve(const char *root, const char *path, struct stat *st);

/*
 * Like read_file_capped() (util.h) for @path inside @root: -EINVAL for
 * anything but a regular file, which is never opened for reading.
 */
int root_read_file(const char *root, const char *path, size_t cap,
		   char **buf, size_t *len);

/* opendir() of @path inside @root; NULL with errno set. */
DIR *root_opendir(const char *root, const char *path);

/* stat() of @path inside @root, symlinks followed within it; 0 or -errno. */
int root_stat(const char *root, const char *path, struct stat *st);

#endif
