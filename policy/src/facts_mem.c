// SPDX-License-Identifier: GPL-2.0
/*
 * Memory facts: RAM, CPUs, hugetlb pools and transparent huge page modes.
 * These decide whether a shared memory workload gets huge pages.
 */
#include "facts.h"
#include "paths.h"
#include "size.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int parse_bracketed_choice(const char *text, char *out, size_t size)
{
	const char *open = strchr(text, '[');
	const char *close;

	if (!open)
		return -EINVAL;
	close = strchr(open + 1, ']');
	if (!close || close == open + 1 || strchr(close + 1, '['))
		return -EINVAL;
	copy_bounded(out, size, open + 1, (size_t)(close - open - 1));
	return 0;
}

long parse_cpu_list(const char *text)
{
	long count = 0;
	const char *p = text;

	while (*p && *p != '\n') {
		char *end;
		unsigned long a, b;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		a = strtoul(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			if (p[1] < '0' || p[1] > '9')
				return -EINVAL;
			b = strtoul(p + 1, &end, 10);
			p = end;
		}
		/* The kernel caps NR_CPUS far below this; junk otherwise. */
		if (b < a || b - a >= 1u << 20 || a >= 1u << 20)
			return -EINVAL;
		count += (long)(b - a + 1);
		if (count > 1L << 20)
			return -EINVAL;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return count > 0 ? count : -EINVAL;
}

static void gather_cpus(struct facts *f, const struct env *env)
{
	char path[PATH_LEN], buf[MAX_KERNEL_FILE];
	long n;

	f->cpus = 0;
	if (!path_join(path, sizeof(path), env->sys, SYS_CPU_ONLINE) &&
	    !read_small_file(path, buf, sizeof(buf))) {
		n = parse_cpu_list(buf);
		if (n > 0) {
			f->cpus = n;
			return;
		}
		diag_add(&f->diags, "%s: not a CPU list", path);
	}
	/* sysconf describes this machine, not a fixture: only for the live /sys. */
	if (strcmp(env->sys, "/sys") == 0) {
		n = sysconf(_SC_NPROCESSORS_ONLN);
		f->cpus = n > 0 ? n : 0;
	}
}

/* "MemTotal:  16303460 kB" -> bytes */
static bool meminfo_value(const char *line, size_t len, const char *key,
			  uint64_t *out)
{
	size_t klen = strlen(key);
	const char *v;
	size_t vlen;

	if (len <= klen || memcmp(line, key, klen) != 0 || line[klen] != ':')
		return false;
	v = line + klen + 1;
	vlen = len - klen - 1;
	/* meminfo says "kB" and means KiB; the policy parser agrees. */
	return parse_size(v, vlen, SIZE_POLICY, 1, out) == 0;
}

static void gather_meminfo(struct facts *f, const struct env *env)
{
	struct line_reader lr;
	char path[PATH_LEN];
	const char *line;
	size_t len, blen;
	char *buf;

	f->mem_total = 0;
	f->mem_available = 0;
	f->default_hugepage_size = 0;
	if (path_join(path, sizeof(path), env->proc, PROC_MEMINFO) ||
	    read_file_capped(path, MAX_MEMINFO_FILE, &buf, &blen))
		return;
	line_reader_init(&lr, buf, blen);
	while (line_reader_next(&lr, &line, &len)) {
		meminfo_value(line, len, "MemTotal", &f->mem_total);
		meminfo_value(line, len, "MemAvailable", &f->mem_available);
		meminfo_value(line, len, "Hugepagesize",
			      &f->default_hugepage_size);
	}
	free(buf);
}

static int pool_cmp(const void *a, const void *b)
{
	const struct hugetlb_pool *pa = a, *pb = b;

	return (pa->page_size > pb->page_size) - (pa->page_size < pb->page_size);
}

static void gather_hugetlb(struct facts *f, const struct env *env)
{
	char dir[PATH_LEN], pool_dir[PATH_LEN];
	struct dirent *de;
	unsigned int seen = 0;
	DIR *d;

	f->npools = 0;
	if (path_join(dir, sizeof(dir), env->sys, SYS_HUGEPAGES_DIR))
		return;
	d = opendir(dir);
	if (!d)
		return;
	/* Bounded: a real kernel has one to three page sizes. */
	while ((de = readdir(d)) && seen++ < 256 &&
	       f->npools < MAX_HUGEPAGE_POOLS) {
		struct hugetlb_pool *p = &f->pools[f->npools];
		const char *size;
		uint64_t bytes;

		if (strncmp(de->d_name, "hugepages-", 10) != 0)
			continue;
		size = de->d_name + 10;
		if (parse_size(size, strlen(size), SIZE_POLICY, 1, &bytes) ||
		    bytes == 0) {
			diag_add(&f->diags, "%s/%s: cannot read page size",
				 dir, de->d_name);
			continue;
		}
		if (path_join(pool_dir, sizeof(pool_dir), dir, de->d_name))
			continue;
		p->page_size = bytes;
		p->nr = read_count_file(pool_dir, "nr_hugepages");
		p->free = read_count_file(pool_dir, "free_hugepages");
		if (p->nr < 0)
			p->nr = 0;
		p->live = p->nr;
		p->origin[0] = '\0';
		f->npools++;
	}
	closedir(d);
	qsort(f->pools, f->npools, sizeof(f->pools[0]), pool_cmp);
}

static void gather_thp(struct facts *f, const struct env *env,
		       const char *rel, char *out, size_t size)
{
	char path[PATH_LEN], buf[MAX_KERNEL_FILE];

	out[0] = '\0';
	if (path_join(path, sizeof(path), env->sys, rel) ||
	    read_small_file(path, buf, sizeof(buf)))
		return;
	if (parse_bracketed_choice(buf, out, size)) {
		out[0] = '\0';
		diag_add(&f->diags, "%s: no [selected] value", path);
	}
}

void facts_gather_memory(struct facts *f, const struct env *env)
{
	gather_cpus(f, env);
	gather_meminfo(f, env);
	gather_hugetlb(f, env);
	gather_thp(f, env, SYS_THP_ENABLED, f->thp_enabled,
		   sizeof(f->thp_enabled));
	gather_thp(f, env, SYS_THP_SHMEM_ENABLED, f->thp_shmem_enabled,
		   sizeof(f->thp_shmem_enabled));
}
