// SPDX-License-Identifier: GPL-2.0
/*
 * PostgreSQL workload facts: find clusters (Debian's /etc/postgresql
 * layout plus paths named in the policy), read their memory settings and
 * predict whether their shared memory will be backed by huge pages.
 */
#include "facts.h"
#include "paths.h"
#include "pg_shmem.h"
#include "pgconf.h"
#include "root_fs.h"
#include "rules.h"
#include "size.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


const char *pg_backing_name(enum pg_backing b)
{
	switch (b) {
	case PG_BACKING_HUGETLB:
		return "hugetlb";
	case PG_BACKING_THP:
		return "thp";
	case PG_BACKING_4K:
		break;
	}
	return "none";
}

const char *huge_pages_name(enum huge_pages_setting h)
{
	switch (h) {
	case PG_HUGE_ON:
		return "on";
	case PG_HUGE_OFF:
		return "off";
	case PG_HUGE_TRY:
		break;
	}
	return "try";
}

static bool already_listed(const struct facts *f, const char *conf_path)
{
	unsigned int i;

	for (i = 0; i < f->nclusters; i++)
		if (strcmp(f->clusters[i].conf_path, conf_path) == 0)
			return true;
	return false;
}

/*
 * The major version in DATA_DIR/PG_VERSION ("15", or "9.6" before 10),
 * which initdb writes and the server checks: the cluster's own word for
 * the model to use.  0 when the file is missing; malformed is bad input.
 */
static unsigned int data_dir_version(struct facts *f, const char *root,
				     const char *data_dir)
{
	char path[PATH_LEN], *buf, *end = NULL;
	unsigned long v;
	size_t len;
	int err;

	if (path_join(path, sizeof(path), data_dir, "PG_VERSION"))
		return 0;
	err = root_read_file(root, path, MAX_KERNEL_FILE, &buf, &len);
	if (err) {
		if (err != -ENOENT)
			diag_add(&f->diags, "%s: cannot read: %s", path,
				 read_error_name(err));
		return 0;
	}
	v = len && buf[0] >= '1' && buf[0] <= '9' ? strtoul(buf, &end, 10) : 0;
	if (!v || v > 999 || (end < buf + len && *end != '\n' && *end != '.')) {
		diag_add(&f->diags, "%s: not a PostgreSQL major version", path);
		v = 0;
	}
	free(buf);
	return (unsigned int)v;
}

/*
 * Read one cluster: its postgresql.conf, then postgresql.auto.conf in the
 * data directory, which the server reads last (ALTER SYSTEM wins).
 * @default_data: data directory when the file sets none.
 */
static void read_cluster(struct facts *f, const struct env *env,
			 const char *name, const char *conf_path,
			 const char *default_data, unsigned int version)
{
	struct pg_reader reader = { .root = env->root, .diags = &f->diags };
	struct pg_cluster *c;
	struct pg_settings s;
	char auto_conf[PATH_LEN];

	if (already_listed(f, conf_path))
		return;
	if (f->nclusters >= MAX_CLUSTERS) {
		f->clusters_skipped++;
		return;
	}
	c = &f->clusters[f->nclusters];
	memset(c, 0, sizeof(*c));
	pg_settings_init(&s);
	if (pgconf_read_file(&reader, &s, conf_path, 0) == -ENOENT) {
		/* A configured cluster must exist; a Debian one was just listed. */
		diag_add(&f->diags, "%s: PostgreSQL configuration not found",
			 conf_path);
		s.errors++;
	}
	copy_bounded(c->data_dir, sizeof(c->data_dir),
		     s.data_directory_set ? s.data_directory : default_data,
		     strlen(s.data_directory_set ? s.data_directory :
			    default_data));
	if (!path_join(auto_conf, sizeof(auto_conf), c->data_dir,
		       "postgresql.auto.conf")) {
		pgconf_read_file(&reader, &s, auto_conf, 0);
		copy_bounded(c->auto_conf, sizeof(c->auto_conf), auto_conf,
			     strlen(auto_conf));
	}
	copy_bounded(c->name, sizeof(c->name), name, strlen(name));
	copy_bounded(c->conf_path, sizeof(c->conf_path), conf_path,
		     strlen(conf_path));
	c->shared_buffers = s.shared_buffers;
	c->huge_pages = s.huge_pages;
	copy_bounded(c->huge_pages_origin, sizeof(c->huge_pages_origin),
		     s.huge_pages_origin, strlen(s.huge_pages_origin));
	c->huge_page_size = s.huge_page_size;
	c->shm_sysv = s.shm_sysv;
	copy_bounded(c->shm_type_origin, sizeof(c->shm_type_origin),
		     s.shm_type_origin, strlen(s.shm_type_origin));
	/* Outside Debian's layout only the data directory knows. */
	if (!version) {
		version = data_dir_version(f, env->root, c->data_dir);
		c->version_from_data = version != 0;
	}
	c->version = version;
	c->shm_estimate = pg_estimate_shm(&s.shm, version);
	c->bad = s.errors > 0;
	f->nclusters++;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Sorted subdirectory names of @dir in @root into *@names (heap, caller
 * frees each and the array).  Every entry is looked at: the cap on
 * clusters is applied, and reported, by read_cluster().
 */
static unsigned int list_subdirs(const char *root, const char *dir,
				 char ***names)
{
	char path[PATH_LEN];
	unsigned int n = 0, cap = 0;
	struct dirent *de;
	struct stat st;
	DIR *d = root_opendir(root, dir);

	*names = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (path_join(path, sizeof(path), dir, de->d_name) ||
		    root_stat(root, path, &st) || !S_ISDIR(st.st_mode))
			continue;
		if (n == cap) {
			char **more = realloc(*names, (cap ? 2 * cap : 16) *
					      sizeof(**names));

			if (!more)
				break;
			*names = more;
			cap = cap ? 2 * cap : 16;
		}
		(*names)[n] = strdup(de->d_name);
		if ((*names)[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(*names, n, sizeof(**names), name_cmp);
	return n;
}

/*
 * Debian's start.conf: "auto" clusters start at boot; "manual" (what
 * pg_upgradecluster leaves the old cluster at) and "disabled" do not, so
 * they are not part of the running set.  A missing file means auto.
 */
static bool starts_at_boot(struct facts *f, const char *root,
			   const char *start_conf)
{
	struct line_reader lr;
	const char *line;
	size_t len;
	char *buf;
	bool automatic = true;
	int err = root_read_file(root, start_conf, MAX_KERNEL_FILE, &buf, &len);

	if (err) {
		if (err != -ENOENT)
			diag_add(&f->diags, "%s: cannot read: %s", start_conf,
				 read_error_name(err));
		return true;
	}
	line_reader_init(&lr, buf, len);
	while (line_reader_next(&lr, &line, &len)) {
		trim_span(&line, &len);
		if (len == 0 || line[0] == '#')
			continue;
		automatic = !span_equals_nocase(line, len, "manual") &&
			    !span_equals_nocase(line, len, "disabled");
		break;
	}
	free(buf);
	return automatic;
}

/* /etc/postgresql/<version>/<cluster>/postgresql.conf */
static void find_debian_clusters(struct facts *f, const struct env *env)
{
	char vdir[PATH_LEN], conf[PATH_LEN];
	char name[NAME_LEN * 2], data[PATH_LEN], start[PATH_LEN * 2];
	char **versions, **clusters;
	unsigned int nv, i, j;
	struct stat st;
	int err;

	nv = list_subdirs(env->root, "/" ETC_POSTGRESQL_DIR, &versions);
	for (i = 0; i < nv; i++) {
		unsigned int nc = 0;

		clusters = NULL;
		if (!path_join(vdir, sizeof(vdir), "/" ETC_POSTGRESQL_DIR,
			       versions[i]))
			nc = list_subdirs(env->root, vdir, &clusters);
		for (j = 0; j < nc; j++) {
			snprintf(conf, sizeof(conf),
				 "/%s/%s/%s/postgresql.conf",
				 ETC_POSTGRESQL_DIR, versions[i], clusters[j]);
			snprintf(name, sizeof(name), "%s/%s", versions[i],
				 clusters[j]);
			snprintf(data, sizeof(data), "/" DEBIAN_PG_DATA_FMT,
				 versions[i], clusters[j]);
			snprintf(start, sizeof(start), "/%s/%s/%s/start.conf",
				 ETC_POSTGRESQL_DIR, versions[i], clusters[j]);
			/*
			 * pg_createcluster leftovers without a conf are no
			 * cluster; a conf that is there but cannot be
			 * resolved (a symlink loop) is read, and fails as
			 * bad input, never left out unsaid.
			 */
			err = root_stat(env->root, conf, &st);
			if (err != -ENOENT && starts_at_boot(f, env->root, start))
				read_cluster(f, env, name, conf, data,
					     (unsigned int)strtoul(versions[i],
								   NULL, 10));
			free(clusters[j]);
		}
		free(clusters);
		free(versions[i]);
	}
	free(versions);
}

/* Directory part of @path into @out. */
static void parent_dir(const char *path, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		copy_bounded(out, size, "/", 1);
	else
		copy_bounded(out, size, path, (size_t)(slash - path));
}

void facts_gather_postgres(struct facts *f, const struct env *env,
			   const struct policy *pol)
{
	char conf[PATH_LEN], data[PATH_LEN];
	unsigned int i;

	f->nclusters = 0;
	f->clusters_skipped = 0;
	find_debian_clusters(f, env);
	if (!pol)
		return;
	for (i = 0; i < pol->npg_confs; i++) {
		/* Outside Debian the conf usually sits in the data directory. */
		parent_dir(pol->pg_confs[i], data, sizeof(data));
		read_cluster(f, env, pol->pg_confs[i], pol->pg_confs[i], data,
			     0);
	}
	for (i = 0; i < pol->npgdatas; i++) {
		if (path_join(conf, sizeof(conf), pol->pgdatas[i],
			      "postgresql.conf"))
			continue;
		read_cluster(f, env, pol->pgdatas[i], conf, pol->pgdatas[i],
			     0);
	}
	if (f->clusters_skipped)
		diag_add(&f->diags, "more than %d PostgreSQL clusters, %u ignored",
			 MAX_CLUSTERS, f->clusters_skipped);
}

static struct hugetlb_pool *pool_for(struct facts *f, uint64_t page_size)
{
	unsigned int i;

	for (i = 0; i < f->npools; i++)
		if (f->pools[i].page_size == page_size)
			return &f->pools[i];
	return NULL;
}

/*
 * shmem THP applies to PostgreSQL's MAP_SHARED|MAP_ANONYMOUS segment only
 * without madvise: PostgreSQL never calls madvise(MADV_HUGEPAGE), so
 * "advise" gives it nothing.  within_size does: the segment's shmem file
 * is exactly the mapping's size.
 */
static bool shmem_thp_applies(const struct facts *f)
{
	return strcmp(f->thp_shmem_enabled, "always") == 0 ||
	       strcmp(f->thp_shmem_enabled, "within_size") == 0 ||
	       strcmp(f->thp_shmem_enabled, "force") == 0;
}

/*
 * The pages below which @c surely does not start: the model errs high by
 * up to 2 % (pg_shmem.h), so a pool within that of its estimate is no
 * sure failure; a running cluster's segment is exact (as advise counts
 * it: a hugetlb segment's pages, or a base-page one's size / page + 1).
 */
static long long sure_need(const struct facts *f, const struct pg_cluster *c,
			   uint64_t page, long long need)
{
	const struct live_pg *pg = c->live >= 0 && (unsigned int)c->live <
				   f->nlive_pgs ? &f->live_pgs[c->live] : NULL;

	if (pg && pg->seg_found && pg->seg.smaps_read)
		return (long long)(pg->seg.size / page) +
		       (pg->seg.backing != PG_BACKING_HUGETLB);
	return need - need / 50;
}

void facts_derive(struct facts *f)
{
	long long remaining[MAX_HUGEPAGE_POOLS];
	unsigned int i, pass;

	for (i = 0; i < f->npools; i++)
		remaining[i] = f->pools[i].nr;
	f->pg_shared_memory = 0;
	f->pg_shm_without_hugepages = 0;
	f->pg_hugepages_needed = 0;
	for (i = 0; i < f->nclusters; i++) {
		struct pg_cluster *c = &f->clusters[i];
		uint64_t size = c->huge_page_size ? c->huge_page_size :
				f->default_hugepage_size;

		c->hugepages_needed = size ?
			(c->shm_estimate + size - 1) / size : 0;
		c->backing = PG_BACKING_4K;
		c->start_fails = false;
		c->pool_left = -1;
	}
	/*
	 * huge_pages=on clusters take their pages first (they would not start
	 * otherwise), then huge_pages=try ones in order while pages last.
	 */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < f->nclusters; i++) {
			struct pg_cluster *c = &f->clusters[i];
			uint64_t size = c->huge_page_size ? c->huge_page_size :
					f->default_hugepage_size;
			struct hugetlb_pool *p = pool_for(f, size);
			long long *left = p ? &remaining[p - f->pools] : NULL;
			long long need = (long long)c->hugepages_needed;

			/*
			 * PostgreSQL maps huge pages only with mmap; with
			 * SysV memory huge_pages = on is refused at start
			 * ("huge pages not supported with the current
			 * shared_memory_type setting").
			 */
			if (c->shm_sysv) {
				c->start_fails |= pass == 0 &&
						  c->huge_pages == PG_HUGE_ON;
				continue;
			}
			if (pass == 0 && c->huge_pages == PG_HUGE_ON) {
				/*
				 * Without the pages the server does not start
				 * ("could not map anonymous shared memory");
				 * unknown sizes (no meminfo) claim nothing.
				 */
				c->pool_left = left ? *left : -1;
				c->start_fails = size &&
						 (!left || *left < sure_need(f, c, size, need));
				c->backing = PG_BACKING_HUGETLB;
				if (left)
					*left = *left > need ? *left - need : 0;
			} else if (pass == 1 && c->huge_pages == PG_HUGE_TRY &&
				   left && need > 0 && *left >= need) {
				c->backing = PG_BACKING_HUGETLB;
				*left -= need;
			}
		}
	}
	for (i = 0; i < f->nclusters; i++) {
		struct pg_cluster *c = &f->clusters[i];

		/* A server that does not start maps nothing. */
		if (c->start_fails)
			c->backing = PG_BACKING_4K;
		if (c->backing == PG_BACKING_4K && shmem_thp_applies(f))
			c->backing = PG_BACKING_THP;
		f->pg_shared_memory += c->shm_estimate;
		f->pg_hugepages_needed += c->hugepages_needed;
		if (c->backing == PG_BACKING_4K)
			f->pg_shm_without_hugepages += c->shm_estimate;
	}
}

void pg_start_failure(const struct facts *f, const struct pg_cluster *c,
		      char *buf, size_t size)
{
	uint64_t page = c->huge_page_size ? c->huge_page_size :
			f->default_hugepage_size;
	const struct hugetlb_pool *p = NULL;
	char where[PG_ORIGIN_LEN + 8], psize[32];
	unsigned int i;

	buf[0] = '\0';
	if (!c->start_fails)
		return;
	snprintf(where, sizeof(where), " (%s)", c->huge_pages_origin);
	if (c->shm_sysv) {
		snprintf(buf, size, "huge_pages = on%s with shared_memory_type = sysv%s%s%s: the server will not start (huge pages not supported with the current shared_memory_type setting)",
			 c->huge_pages_origin[0] ? where : "",
			 c->shm_type_origin[0] ? " (" : "", c->shm_type_origin,
			 c->shm_type_origin[0] ? ")" : "");
		return;
	}
	for (i = 0; i < f->npools; i++)
		if (f->pools[i].page_size == page)
			p = &f->pools[i];
	format_size(page, psize, sizeof(psize));
	if (!p || c->pool_left < 0) {
		snprintf(buf, size, "huge_pages = on%s needs %llu huge pages of %s, the kernel has no pool of that size: the server will not start",
			 c->huge_pages_origin[0] ? where : "",
			 (unsigned long long)c->hugepages_needed, psize);
		return;
	}
	snprintf(buf, size, "huge_pages = on%s needs %llu huge pages of %s, the pool %sholds %lld%s%s%s: the server will not start",
		 c->huge_pages_origin[0] ? where : "",
		 (unsigned long long)c->hugepages_needed, psize,
		 p->origin[0] ? "at boot " : "", c->pool_left,
		 c->pool_left != p->nr ? " for it" : "",
		 p->origin[0] ? " from " : " (live, and no more at boot)",
		 p->origin);
}

void facts_check_start(struct facts *f)
{
	char why[DIAG_LEN / 2 + PG_ORIGIN_LEN];
	unsigned int i;

	for (i = 0; i < f->nclusters; i++) {
		const struct pg_cluster *c = &f->clusters[i];

		pg_start_failure(f, c, why, sizeof(why));
		if (why[0])
			diag_add(&f->diags, "cluster %s: %s", c->name, why);
	}
}
