// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel facts: which preemption modes it offers (sysfs, else debugfs),
 * the command line, the architecture and the shmem huge page warnings.
 */
#include "facts.h"
#include "paths.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/utsname.h>

const char *kernel_support_name(enum kernel_support s)
{
	switch (s) {
	case KERNEL_PATCHED:
		return "patched";
	case KERNEL_UNPATCHED:
		return "unpatched";
	case KERNEL_UNKNOWN:
		break;
	}
	return "unknown";
}

static bool read_mode_file(struct facts *f, const char *sys, const char *rel,
			   enum mode_source src)
{
	char path[PATH_LEN], buf[MAX_KERNEL_FILE];
	struct mode_list ml;
	int err;

	if (path_join(path, sizeof(path), sys, rel))
		return false;
	err = read_small_file(path, buf, sizeof(buf));
	if (err == -ENOENT || err == -EACCES || err == -EPERM)
		return false;
	if (err) {
		diag_add(&f->diags, "%s: cannot read: %s", path, strerror(-err));
		return false;
	}
	if (parse_mode_list(buf, strlen(buf), &ml)) {
		diag_add(&f->diags, "%s: not a preemption mode list", path);
		return false;
	}
	f->modes = ml;
	f->mode_source = src;
	copy_bounded(f->mode_path, sizeof(f->mode_path), path, strlen(path));
	return true;
}

/* Only on request: mounting changes the system, which decide must not do. */
static void try_mount_debugfs(const char *sys)
{
	char path[PATH_LEN];

	if (path_join(path, sizeof(path), sys, SYS_DEBUGFS_DIR))
		return;
	if (mount("debugfs", path, "debugfs", 0, NULL) && errno != EBUSY)
		fprintf(stderr, "preempt-policy: mount debugfs on %s: %s\n",
			path, strerror(errno));
}

static void gather_modes(struct facts *f, const struct env *env)
{
	f->modes.available = 0;
	f->modes.current = MODE_UNKNOWN;
	f->mode_source = MODE_SRC_NONE;
	f->mode_path[0] = '\0';
	f->support = KERNEL_UNKNOWN;

	if (read_mode_file(f, env->sys, SYS_PREEMPT_MODE, MODE_SRC_SYSFS)) {
		f->support = KERNEL_PATCHED;
		return;
	}
	if (!read_mode_file(f, env->sys, SYS_DEBUGFS_PREEMPT,
			    MODE_SRC_DEBUGFS) && env->mount_debugfs) {
		try_mount_debugfs(env->sys);
		read_mode_file(f, env->sys, SYS_DEBUGFS_PREEMPT,
			       MODE_SRC_DEBUGFS);
	}
	if (f->mode_source == MODE_SRC_DEBUGFS)
		f->support = mode_available(&f->modes, MODE_NONE) ?
			     KERNEL_PATCHED : KERNEL_UNPATCHED;
}

static void gather_cmdline(struct facts *f, const struct env *env)
{
	char path[PATH_LEN];
	char *buf;
	size_t len;
	int err;

	parse_boot_args("", 0, "", &f->boot, &f->diags);
	f->cmdline_read = false;
	if (path_join(path, sizeof(path), env->proc, PROC_CMDLINE))
		return;
	err = read_file_capped(path, MAX_CMDLINE_FILE, &buf, &len);
	if (err) {
		if (err != -ENOENT)
			diag_add(&f->diags, "%s: cannot read: %s", path,
				 strerror(-err));
		return;
	}
	parse_boot_args(buf, len, path, &f->boot, &f->diags);
	f->cmdline_read = true;
	free(buf);
}

static void gather_arch(struct facts *f, const struct env *env)
{
	struct utsname u;

	if (env->arch) {
		copy_bounded(f->arch, sizeof(f->arch), env->arch,
			     strlen(env->arch));
		return;
	}
	if (uname(&u) == 0)
		copy_bounded(f->arch, sizeof(f->arch), u.machine,
			     strlen(u.machine));
	else
		copy_bounded(f->arch, sizeof(f->arch), "unknown", 7);
}

/* A decimal counter; -1 when absent, so rules can tell 0 from unknown. */
static long long read_counter(struct facts *f, const char *proc,
			      const char *rel)
{
	char path[PATH_LEN], buf[64];
	unsigned long long v;
	const char *s = buf;
	size_t len;
	int err;

	if (path_join(path, sizeof(path), proc, rel))
		return -1;
	err = read_small_file(path, buf, sizeof(buf));
	if (err == -ENOENT)
		return -1;
	if (err) {
		diag_add(&f->diags, "%s: cannot read: %s", path, strerror(-err));
		return -1;
	}
	len = strlen(buf);
	trim_span(&s, &len);
	if (parse_u64_span(s, len, &v) || v > (unsigned long long)INT64_MAX) {
		diag_add(&f->diags, "%s: not a counter", path);
		return -1;
	}
	return (long long)v;
}

/*
 * The value of event @key in @proc/vmstat ("key value" lines), -1 when
 * the file or the event is absent or the value is not a counter.
 */
static long long read_vmstat(struct facts *f, const char *proc,
			     const char *key)
{
	char path[PATH_LEN], line[256];
	size_t klen = strlen(key);
	long long ret = -1;
	FILE *in;

	if (path_join(path, sizeof(path), proc, PROC_VMSTAT))
		return -1;
	in = fopen(path, "re");
	if (!in) {
		if (errno != ENOENT)
			diag_add(&f->diags, "%s: cannot read: %s", path,
				 strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), in)) {
		unsigned long long v;
		const char *s = line + klen + 1;
		size_t len;

		if (strncmp(line, key, klen) != 0 || line[klen] != ' ')
			continue;
		len = strlen(s);
		trim_span(&s, &len);
		if (parse_u64_span(s, len, &v) || v > (unsigned long long)INT64_MAX)
			diag_add(&f->diags, "%s: %s: not a counter", path, key);
		else
			ret = (long long)v;
		break;
	}
	fclose(in);
	return ret;
}

void facts_gather_kernel(struct facts *f, const struct env *env)
{
	gather_modes(f, env);
	gather_cmdline(f, env);
	gather_arch(f, env);
	f->shm_warn_count = read_vmstat(f, env->proc, VMSTAT_SHM_WARN);
	f->shm_warn_bytes = read_counter(f, env->proc, PROC_SHM_WARN_BYTES);
}
