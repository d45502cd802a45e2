// SPDX-License-Identifier: GPL-2.0
/*
 * The hugetlb pools the root will have once its services start.  In an
 * initramfs systemd-sysctl has not run yet, so the live pool is usually
 * 0 even on a machine whose /etc/sysctl.d reserves pages for PostgreSQL;
 * deciding on the live pool would then pick a mode for a machine that
 * does not exist a second later.
 *
 * Order, as the kernel and systemd apply them: the pools the kernel
 * reserved from hugepagesz=/hugepages= (the live pools show what it got;
 * the command line is taken when it asks for more), then
 * sysctl.vm.nr_hugepages= (applied by the kernel before init), then the
 * root's sysctl configuration: *.conf of /etc/sysctl.d, /run/sysctl.d,
 * /usr/local/lib/sysctl.d, /usr/lib/sysctl.d and /lib/sysctl.d, a name
 * in an earlier directory masking the same name in a later one, all
 * read in name order, then /etc/sysctl.conf (procps reads it last); the
 * last vm.nr_hugepages wins.
 */
#include "facts.h"
#include "paths.h"
#include "root_fs.h"
#include "size.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sysctl_file {
	char name[NAME_LEN * 4];
	const char *dir;
};

static struct hugetlb_pool *pool_of_size(struct facts *f, uint64_t size)
{
	struct hugetlb_pool *p;
	unsigned int i;

	for (i = 0; i < f->npools; i++)
		if (f->pools[i].page_size == size)
			return &f->pools[i];
	if (f->npools == MAX_HUGEPAGE_POOLS)
		return NULL;
	/* A size the kernel does not show: a pool only on paper. */
	p = &f->pools[f->npools++];
	memset(p, 0, sizeof(*p));
	p->page_size = size;
	p->live = -1;
	p->free = -1;
	return p;
}

static void set_pool(struct facts *f, uint64_t size, long long nr,
		     const char *origin)
{
	struct hugetlb_pool *p;

	/* A kernel without hugetlb: the setting will not take, no pool. */
	if (!size)
		return;
	p = pool_of_size(f, size);
	if (!p) {
		diag_add(&f->diags, "%s: more than %d hugetlb page sizes",
			 origin, MAX_HUGEPAGE_POOLS);
		return;
	}
	p->nr = nr;
	copy_bounded(p->origin, sizeof(p->origin), origin, strlen(origin));
	p->boot = nr;
	copy_bounded(p->boot_origin, sizeof(p->boot_origin), origin,
		     strlen(origin));
}

static uint64_t default_size(const struct facts *f)
{
	if (f->default_hugepage_size)
		return f->default_hugepage_size;
	return f->boot.default_hugepagesz;
}

static void from_cmdline(struct facts *f)
{
	const struct boot_args *b = &f->boot;
	char origin[POOL_ORIGIN_LEN];
	unsigned int i;

	for (i = 0; i < b->nhugepages; i++) {
		uint64_t size = b->hugepages[i].page_size ?
				b->hugepages[i].page_size : default_size(f);
		struct hugetlb_pool *p = size ? pool_of_size(f, size) : NULL;

		snprintf(origin, sizeof(origin),
			 "kernel command line hugepages=%lld",
			 b->hugepages[i].count);
		/* The live pool is what the kernel got; it may have got less. */
		if (p && p->live >= b->hugepages[i].count) {
			p->boot = b->hugepages[i].count;
			copy_bounded(p->boot_origin, sizeof(p->boot_origin),
				     origin, strlen(origin));
			continue;
		}
		set_pool(f, size, b->hugepages[i].count, origin);
	}
	if (b->sysctl_nr_hugepages >= 0) {
		snprintf(origin, sizeof(origin),
			 "kernel command line sysctl.vm.nr_hugepages=%lld",
			 b->sysctl_nr_hugepages);
		set_pool(f, default_size(f), b->sysctl_nr_hugepages, origin);
	}
}

/* "vm.nr_hugepages" or "vm/nr_hugepages", with sysctl.d's optional "-". */
static bool is_nr_hugepages(const char *key, size_t len)
{
	char norm[32];
	size_t i;

	if (len && key[0] == '-') {
		key++;
		len--;
	}
	if (len >= sizeof(norm))
		return false;
	for (i = 0; i < len; i++)
		norm[i] = key[i] == '/' ? '.' : key[i];
	return span_equals(norm, len, "vm.nr_hugepages");
}

/* One sysctl file: "key = value" lines, '#' and ';' comments. */
static void read_sysctl_file(struct facts *f, const char *root,
			     const char *rel)
{
	char origin[POOL_ORIGIN_LEN];
	struct line_reader lr;
	const char *line;
	size_t len;
	char *buf;
	int err;

	err = root_read_file(root, rel, MAX_CONFIG_FILE, &buf, &len);
	if (err == -ENOENT)
		return;
	if (err) {
		diag_add(&f->diags, "/%s: cannot read: %s", rel,
			 read_error_name(err));
		return;
	}
	line_reader_init(&lr, buf, len);
	while (line_reader_next(&lr, &line, &len)) {
		const char *eq, *val;
		size_t klen, vlen;
		unsigned long long v;
		char num[32], *end;

		trim_span(&line, &len);
		if (!len || line[0] == '#' || line[0] == ';')
			continue;
		eq = memchr(line, '=', len);
		if (!eq)
			continue;
		klen = (size_t)(eq - line);
		trim_span(&line, &klen);
		if (!is_nr_hugepages(line, klen))
			continue;
		val = eq + 1;
		vlen = (size_t)(line + len - val);
		trim_span(&val, &vlen);
		copy_bounded(num, sizeof(num), val, vlen);
		errno = 0;
		/* The kernel reads sysctl numbers with base 0. */
		v = strtoull(num, &end, 0);
		if (!vlen || vlen >= sizeof(num) || *end || errno ||
		    num[0] == '-' || v > (1ULL << 40)) {
			diag_add(&f->diags, "/%s:%u: vm.nr_hugepages: not a page count: \"%.32s\"",
				 rel, lr.lineno, num);
			continue;
		}
		snprintf(origin, sizeof(origin), "/%s:%u", rel, lr.lineno);
		set_pool(f, default_size(f), (long long)v, origin);
	}
	free(buf);
}

static int file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sysctl_file *)a)->name,
		      ((const struct sysctl_file *)b)->name);
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	return n > s && strcmp(name + n - s, suffix) == 0;
}

static bool listed(const struct sysctl_file *files, unsigned int n,
		   const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (strcmp(files[i].name, name) == 0)
			return true;
	return false;
}

/* Every *.conf of one directory not masked by an earlier directory. */
static unsigned int list_dir(const char *root,
			     const char *dir, struct sysctl_file *files,
			     unsigned int n, bool *capped)
{
	struct dirent *de;
	DIR *d = root_opendir(root, dir);

	if (!d)
		return n;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !has_suffix(de->d_name, ".conf") ||
		    strlen(de->d_name) >= sizeof(files[0].name) ||
		    listed(files, n, de->d_name))
			continue;
		if (n == MAX_SYSCTL_FILES) {
			*capped = true;
			break;
		}
		copy_bounded(files[n].name, sizeof(files[n].name), de->d_name,
			     strlen(de->d_name));
		files[n++].dir = dir;
	}
	closedir(d);
	return n;
}

static void from_sysctl_config(struct facts *f, const char *root)
{
	static const char *const dirs[] = { SYSCTL_DIRS };
	struct sysctl_file *files;
	char rel[PATH_LEN];
	unsigned int n = 0, i;
	bool capped = false;

	files = calloc(MAX_SYSCTL_FILES, sizeof(*files));
	if (!files) {
		diag_add(&f->diags, "out of memory reading the sysctl configuration");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		n = list_dir(root, dirs[i], files, n, &capped);
	if (capped)
		diag_add(&f->diags, "more than %d sysctl.d files under %s; the hugetlb pool is not predicted from the rest",
			 MAX_SYSCTL_FILES, root);
	qsort(files, n, sizeof(files[0]), file_cmp);
	for (i = 0; i < n; i++) {
		if (snprintf(rel, sizeof(rel), "%s/%s", files[i].dir,
			     files[i].name) < (int)sizeof(rel))
			read_sysctl_file(f, root, rel);
	}
	read_sysctl_file(f, root, ETC_SYSCTL_CONF);
	free(files);
}

void facts_predict_hugetlb(struct facts *f, const struct env *env)
{
	unsigned int i;

	for (i = 0; i < f->npools; i++) {
		f->pools[i].boot = 0;
		f->pools[i].boot_origin[0] = '\0';
	}
	from_cmdline(f);
	from_sysctl_config(f, env->root);
}
