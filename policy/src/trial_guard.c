// SPDX-License-Identifier: GPL-2.0
/*
 * Trial guards.  A container sees the host's preemption mode: a trial
 * there would switch the mode under every other container's load and
 * measure only its own.  Two trials at once would each measure the
 * other's switches.
 */
#include "trial_guard.h"
#include "bounds.h"
#include "paths.h"
#include "root_fs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define ENVIRON_MAX	((size_t)64 * 1024)

static const char *const container_files[] = {
	"run/systemd/container",	/* systemd-nspawn, podman, lxc */
	"run/host/container-manager",
	".dockerenv",
	"run/.containerenv",		/* podman */
};

/* Names of container engines in PID 1's cgroup path. */
static const char *const cgroup_engines[] = {
	"/docker", "/lxc", "kubepods", "libpod", "containerd", "/machine.slice/",
};

static const char *pid1_environ(const struct env *env, char *why, size_t size)
{
	char path[PATH_LEN];
	size_t len, i = 0;
	char *buf;
	int err;

	if (path_join(path, sizeof(path), env->proc, "1/environ"))
		return NULL;
	err = read_file_capped(path, ENVIRON_MAX, &buf, &len);
	if (err == -ENOENT)
		return NULL;
	if (err) {
		snprintf(why, size, "%s: %s (cannot tell whether PID 1 runs in a container)",
			 path, read_error_name(err));
		return why;
	}
	while (i < len) {
		size_t n = strnlen(buf + i, len - i);

		if (n > 10 && memcmp(buf + i, "container=", 10) == 0) {
			snprintf(why, size, "%s holds container=%.*s", path,
				 (int)(n - 10 > 40 ? 40 : n - 10),
				 buf + i + 10);
			free(buf);
			return why;
		}
		i += n + 1;
	}
	free(buf);
	return NULL;
}

static const char *pid1_cgroup(const struct env *env, char *why, size_t size)
{
	char path[PATH_LEN];
	const char *hint = NULL;
	unsigned int i;
	size_t len;
	char *buf;

	if (path_join(path, sizeof(path), env->proc, "1/cgroup") ||
	    read_file_capped(path, ENVIRON_MAX, &buf, &len))
		return NULL;
	for (i = 0; i < ARRAY_SIZE(cgroup_engines) && !hint; i++)
		if (strstr(buf, cgroup_engines[i]))
			hint = cgroup_engines[i];
	free(buf);
	if (!hint)
		return NULL;
	snprintf(why, size, "%s names %s", path, hint);
	return why;
}

const char *trial_container_hint(const struct env *env, char *why,
				 size_t size)
{
	char vz[PATH_LEN], bc[PATH_LEN];
	struct stat st;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(container_files); i++) {
		if (root_stat(env->root, container_files[i], &st) == 0) {
			snprintf(why, size, "%s%s%s exists",
				 env->root, strcmp(env->root, "/") ? "/" : "",
				 container_files[i]);
			return why;
		}
	}
	/* OpenVZ: /proc/vz in a container, /proc/bc on its host as well. */
	if (!path_join(vz, sizeof(vz), env->proc, "vz") &&
	    !path_join(bc, sizeof(bc), env->proc, "bc") &&
	    stat(vz, &st) == 0 && stat(bc, &st) != 0) {
		snprintf(why, size, "%s exists without %s (OpenVZ)", vz, bc);
		return why;
	}
	if (pid1_environ(env, why, size))
		return why;
	return pid1_cgroup(env, why, size);
}

int trial_lock(const struct env *env, long *holder)
{
	char run[PATH_LEN], dir[PATH_LEN], path[PATH_LEN], pid[32];
	ssize_t n;
	int fd, err;

	*holder = 0;
	if (path_join(run, sizeof(run), env->root, "run") ||
	    path_join(dir, sizeof(dir), env->root, RUN_TRIAL_DIR) ||
	    path_join(path, sizeof(path), env->root, RUN_TRIAL_LOCK))
		return -ENAMETOOLONG;
	if ((mkdir(run, 0755) && errno != EEXIST) ||
	    (mkdir(dir, 0755) && errno != EEXIST))
		return -errno;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		n = read(fd, pid, sizeof(pid) - 1);
		if (n > 0) {
			pid[n] = '\0';
			*holder = strtol(pid, NULL, 10);
		}
		close(fd);
		return err == -EAGAIN ? -EWOULDBLOCK : err;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}
