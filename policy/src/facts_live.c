// SPDX-License-Identifier: GPL-2.0
/*
 * Live facts: what the running processes really got.  A postmaster's main
 * shared memory segment (huge_pages=try falls back to base pages with only
 * a DEBUG1 line in the server log), and any process's shared memory object
 * of at least the kernel's warning threshold.  /proc/PID/maps is read for
 * every process (no page table walk); /proc/PID/smaps only for the few
 * mappings that qualify, and only its block for that mapping is parsed
 * (KernelPageSize, Rss, ShmemPmdMapped, THPeligible, VmFlags).
 */
#include "facts.h"
#include "live_parse.h"
#include "paths.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The patched kernel's default vm.shmem_hugepage_warn_bytes. */
#define DEFAULT_LIVE_THRESHOLD	(1ULL << 30)
#define LIVE_LINE		512

/* Devices of tmpfs and hugetlbfs mounts: their files are shared memory. */
struct shm_mounts {
	unsigned int n;
	unsigned int major[MAX_SHM_MOUNTS], minor[MAX_SHM_MOUNTS];
	unsigned int over;
};

/*
 * An unsigned number in @base at *@p, skipping blanks before it, then
 * the character @stop (0: anything); *@p moves past both.
 */
static bool take_number(const char **p, int base, char stop,
			unsigned long long *out)
{
	const char *s = *p;
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!((*s >= '0' && *s <= '9') || (base == 16 && ((*s >= 'a' && *s <= 'f') ||
							  (*s >= 'A' && *s <= 'F')))))
		return false;
	errno = 0;
	*out = strtoull(s, &end, base);
	if (errno || (stop && *end != stop))
		return false;
	*p = stop ? end + 1 : end;
	return true;
}

/* Skip one blank-separated word at *@p. */
static bool skip_word(const char **p)
{
	const char *s = *p;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return false;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	*p = s;
	return true;
}

static FILE *pid_open(const char *proc, int pid, const char *name)
{
	char path[PATH_LEN];

	if ((size_t)snprintf(path, sizeof(path), "%s/%d/%s", proc, pid, name) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return fopen(path, "re");
}

/*
 * One line into @buf; a line longer than @size is cut and the rest
 * skipped, so a long path cannot split a maps line in two.  Read byte by
 * byte, not with fgets(): a NUL byte (any process can put one in the
 * name of a mapping) would hide the newline after it from strlen() and
 * the next line would be skipped as the rest of this one.  The NUL stays
 * in @buf and ends the line early for the parsers.
 */
static bool read_line(FILE *in, char *buf, size_t size)
{
	size_t len = 0;
	bool any = false;
	int c;

	while ((c = getc(in)) != EOF) {
		any = true;
		if (c == '\n')
			break;
		if (len + 1 < size)
			buf[len++] = (char)c;
	}
	buf[len] = '\0';
	return any;
}

static bool read_comm(const char *proc, int pid, char *out)
{
	char path[PATH_LEN];
	size_t len;

	if ((size_t)snprintf(path, sizeof(path), "%s/%d/%s", proc, pid,
			     PROC_PID_COMM) >= sizeof(path) ||
	    read_small_file(path, out, LIVE_COMM_LEN + 1))
		return false;
	len = strlen(out);
	if (len && out[len - 1] == '\n')
		out[--len] = '\0';
	out[LIVE_COMM_LEN - 1] = '\0';
	return true;
}

static bool is_pg_comm(const char *comm)
{
	return strcmp(comm, "postgres") == 0 ||
	       strcmp(comm, "postmaster") == 0;
}

static int read_ppid(const char *proc, int pid)
{
	char line[LIVE_LINE];
	int ppid = -1;
	FILE *in = pid_open(proc, pid, PROC_PID_STATUS);

	if (!in)
		return -1;
	while (read_line(in, line, sizeof(line))) {
		char *end;
		long v;

		if (strncmp(line, "PPid:", 5) != 0)
			continue;
		errno = 0;
		v = strtol(line + 5, &end, 10);
		if (!errno && end != line + 5 && v >= 0 && v <= INT_MAX)
			ppid = (int)v;
		break;
	}
	fclose(in);
	return ppid;
}

/*
 * A postmaster is a postgres process whose parent is not one: backends,
 * the checkpointer and the other children are forked from it.
 */
static bool is_postmaster(const char *proc, int pid)
{
	char comm[LIVE_COMM_LEN + 1];
	int ppid = read_ppid(proc, pid);

	if (ppid <= 0)
		return ppid == 0;
	return !read_comm(proc, ppid, comm) || !is_pg_comm(comm);
}

/* -D DIR or -DDIR from the NUL-separated command line, into @out. */
static void read_arg_data_dir(const char *proc, int pid, char *out,
			      size_t size)
{
	char path[PATH_LEN], *buf;
	size_t len, i;

	out[0] = '\0';
	if ((size_t)snprintf(path, sizeof(path), "%s/%d/%s", proc, pid,
			     PROC_PID_CMDLINE) >= sizeof(path) ||
	    read_file_capped(path, MAX_CMDLINE_FILE, &buf, &len))
		return;
	for (i = 0; i < len; i += strlen(buf + i) + 1) {
		const char *arg = buf + i;

		if (strncmp(arg, "-D", 2) != 0)
			continue;
		if (arg[2])
			copy_bounded(out, size, arg + 2, strlen(arg + 2));
		else if (i + 3 < len)
			copy_bounded(out, size, arg + 3, strlen(arg + 3));
		break;
	}
	free(buf);
}

static void read_cwd(const char *proc, int pid, char *out, size_t size)
{
	char path[PATH_LEN];
	ssize_t n;

	out[0] = '\0';
	if ((size_t)snprintf(path, sizeof(path), "%s/%d/%s", proc, pid,
			     PROC_PID_CWD) >= sizeof(path))
		return;
	n = readlink(path, out, size - 1);
	out[n > 0 ? n : 0] = '\0';
}

/* "36 35 0:30 / /dev/shm rw,nosuid - tmpfs tmpfs rw": major:minor, type. */
static void load_shm_mounts(const char *proc, struct shm_mounts *m)
{
	char path[PATH_LEN], line[LIVE_LINE * 2];
	FILE *in;

	m->n = 0;
	m->over = 0;
	if (path_join(path, sizeof(path), proc, PROC_MOUNTINFO))
		return;
	in = fopen(path, "re");
	if (!in)
		return;
	while (read_line(in, line, sizeof(line))) {
		unsigned long long major, minor;
		const char *sep = strstr(line, " - ");
		const char *p = line;

		if (!sep || !skip_word(&p) || !skip_word(&p) ||
		    !take_number(&p, 10, ':', &major) ||
		    !take_number(&p, 10, ' ', &minor) ||
		    major > UINT_MAX || minor > UINT_MAX)
			continue;
		sep += 3;
		if (strncmp(sep, "tmpfs ", 6) != 0 &&
		    strncmp(sep, "hugetlbfs ", 10) != 0)
			continue;
		if (m->n == MAX_SHM_MOUNTS) {
			m->over++;
			continue;
		}
		m->major[m->n] = (unsigned int)major;
		m->minor[m->n] = (unsigned int)minor;
		m->n++;
	}
	fclose(in);
}

/*
 * Shared memory as the kernel's warning counts it: shared anonymous
 * memory ("/dev/zero (deleted)"), SysV segments, memfds, hugetlb
 * mappings, and files of tmpfs or hugetlbfs.  All live on a device with
 * major 0; a file of btrfs or another disk file system does not count.
 */
static bool is_shmem(const struct shm_mounts *m, unsigned int major,
		     unsigned int minor, const char *name)
{
	static const char *const internal[] = {
		"/dev/zero", "/SYSV", "/memfd:", "/anon_hugepage",
	};
	unsigned int i;

	if (major != 0)
		return false;
	for (i = 0; i < ARRAY_SIZE(internal); i++)
		if (strncmp(name, internal[i], strlen(internal[i])) == 0)
			return true;
	for (i = 0; i < m->n; i++)
		if (m->major[i] == major && m->minor[i] == minor)
			return true;
	return false;
}

/* "7f..-7f.. rw-s 00000000 00:01 1234   /dev/zero (deleted)" */
bool parse_maps_line(const char *line, struct maps_entry *e)
{
	unsigned long long major, minor;
	const char *p = line, *perms;

	if (!take_number(&p, 16, '-', &e->start) ||
	    !take_number(&p, 16, ' ', &e->end) || e->end <= e->start)
		return false;
	perms = p;
	if (strlen(perms) < 5 || perms[4] != ' ')
		return false;
	e->shared = perms[3] == 's';
	p = perms + 4;
	if (!skip_word(&p) || !take_number(&p, 16, ':', &major) ||
	    !take_number(&p, 16, ' ', &minor) ||
	    !take_number(&p, 10, 0, &e->inode) ||
	    major > UINT_MAX || minor > UINT_MAX)
		return false;
	e->major = (unsigned int)major;
	e->minor = (unsigned int)minor;
	while (*p == ' ' || *p == '\t')
		p++;
	e->name = p;
	return true;
}

static void set_object(struct live_shm *s, const struct maps_entry *e,
		       int pid, const char *comm)
{
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	copy_bounded(s->comm, sizeof(s->comm), comm, strlen(comm));
	copy_bounded(s->object, sizeof(s->object), e->name, strlen(e->name));
	s->dev_major = e->major;
	s->dev_minor = e->minor;
	s->inode = e->inode;
	s->start = e->start;
	s->size = e->end - e->start;
	s->backing = PG_BACKING_4K;
}

/* "THPeligible:    1" -> 1; false if @line is not @key. */
static bool smaps_number(const char *line, const char *key,
			 unsigned long long *out)
{
	size_t klen = strlen(key);
	const char *p = line + klen + 1;

	return strncmp(line, key, klen) == 0 && line[klen] == ':' &&
	       take_number(&p, 10, 0, out);
}

/* "Rss:     1234 kB" -> bytes; false if @line is not @key. */
static bool smaps_kb(const char *line, const char *key, uint64_t *out)
{
	unsigned long long kb;

	if (!smaps_number(line, key, &kb) || kb > UINT64_MAX / 1024)
		return false;
	*out = (uint64_t)kb * 1024;
	return true;
}

/* A block header starts with the address; key lines with a capital. */
static bool smaps_header(const char *line)
{
	return (line[0] >= '0' && line[0] <= '9') ||
	       (line[0] >= 'a' && line[0] <= 'f');
}

/*
 * Fill @s's backing from its block in smaps text.  hugetlb: the VmFlags
 * "ht" flag; THP: PMD-mapped shmem or THPeligible (the next faults will
 * take huge pages); else base pages.
 */
int smaps_scan(FILE *in, struct live_shm *s)
{
	char line[LIVE_LINE];
	bool in_block = false, found = false, thp = false, ht = false;
	unsigned long long start, eligible;
	uint64_t pmd = 0;
	const char *p;

	while (read_line(in, line, sizeof(line))) {
		if (smaps_header(line)) {
			if (in_block)
				break;
			p = line;
			in_block = take_number(&p, 16, '-', &start) &&
				   start == s->start;
			found |= in_block;
			continue;
		}
		if (!in_block)
			continue;
		if (smaps_kb(line, "Rss", &s->rss) ||
		    smaps_kb(line, "KernelPageSize", &s->page_size))
			continue;
		if ((smaps_kb(line, "ShmemPmdMapped", &pmd) ||
		     smaps_kb(line, "FilePmdMapped", &pmd)) && pmd)
			thp = true;
		else if (strncmp(line, "THPeligible:", 12) == 0)
			thp |= smaps_number(line, "THPeligible", &eligible) &&
			       eligible == 1;
		else if (strncmp(line, "VmFlags:", 8) == 0)
			ht = strstr(line + 8, " ht") != NULL;
	}
	if (!found)
		return -ENOENT;
	s->smaps_read = true;
	s->backing = ht ? PG_BACKING_HUGETLB :
		     thp ? PG_BACKING_THP : PG_BACKING_4K;
	return 0;
}

/* @s's backing from its block in /proc/PID/smaps. */
static int smaps_backing(const char *proc, struct live_shm *s)
{
	FILE *in = pid_open(proc, s->pid, PROC_PID_SMAPS);
	int err;

	if (!in)
		return -errno;
	err = smaps_scan(in, s);
	fclose(in);
	return err;
}

static bool object_listed(const struct facts *f, const struct maps_entry *e)
{
	unsigned int i;

	for (i = 0; i < f->nlive_shms; i++) {
		const struct live_shm *s = &f->live_shms[i];

		if (s->dev_major == e->major && s->dev_minor == e->minor &&
		    s->inode == e->inode)
			return true;
	}
	return false;
}

struct scan_state {
	const struct shm_mounts *mounts;
	uint64_t threshold;
	unsigned int shms_over;
	unsigned int pgs_over;
};

static void add_large(struct facts *f, const struct env *env,
		      struct scan_state *st, const struct maps_entry *e,
		      int pid, const char *comm)
{
	struct live_shm *s;

	if (object_listed(f, e))
		return;
	if (f->nlive_shms == MAX_LIVE_SHMS) {
		st->shms_over++;
		return;
	}
	s = &f->live_shms[f->nlive_shms];
	set_object(s, e, pid, comm);
	if (smaps_backing(env->proc, s) == -ENOENT)
		return;		/* unmapped since maps was read */
	if (!s->smaps_read)
		f->live_unreadable++;
	f->nlive_shms++;
}

static void scan_process(struct facts *f, const struct env *env,
			 struct scan_state *st, int pid)
{
	char comm[LIVE_COMM_LEN + 1], line[LIVE_LINE];
	struct live_pg *pg = NULL;
	struct maps_entry e;
	FILE *maps;

	if (!read_comm(env->proc, pid, comm))
		return;		/* gone */
	if (is_pg_comm(comm) && is_postmaster(env->proc, pid)) {
		if (f->nlive_pgs < MAX_LIVE_PGS) {
			pg = &f->live_pgs[f->nlive_pgs];
			memset(pg, 0, sizeof(*pg));
			pg->pid = pid;
			pg->cluster = -1;
		} else {
			st->pgs_over++;
		}
	}
	maps = pid_open(env->proc, pid, PROC_PID_MAPS);
	if (!maps) {
		if (errno == EACCES || errno == EPERM)
			f->live_unreadable++;
		return;
	}
	while (read_line(maps, line, sizeof(line))) {
		if (!parse_maps_line(line, &e) || !e.shared ||
		    !is_shmem(st->mounts, e.major, e.minor, e.name))
			continue;
		if (pg && e.end - e.start > pg->seg.size) {
			set_object(&pg->seg, &e, pid, comm);
			pg->seg_found = true;
		}
		if (e.end - e.start >= st->threshold)
			add_large(f, env, st, &e, pid, comm);
	}
	fclose(maps);
	if (!pg)
		return;
	if (pg->seg_found && smaps_backing(env->proc, &pg->seg) == -EACCES)
		f->live_unreadable++;
	read_cwd(env->proc, pid, pg->data_dir, sizeof(pg->data_dir));
	read_arg_data_dir(env->proc, pid, pg->arg_data_dir,
			  sizeof(pg->arg_data_dir));
	f->nlive_pgs++;
}

static int parse_pid(const char *name)
{
	long v = 0;
	const char *p;

	for (p = name; *p; p++) {
		if (*p < '0' || *p > '9' || v > INT_MAX / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	return p == name || v <= 0 || v > INT_MAX ? -1 : (int)v;
}

/* Running postmasters to the configured clusters, by data directory. */
static void match_clusters(struct facts *f)
{
	unsigned int i, j;

	for (j = 0; j < f->nclusters; j++)
		f->clusters[j].live = -1;
	for (i = 0; i < f->nlive_pgs; i++) {
		struct live_pg *pg = &f->live_pgs[i];

		for (j = 0; j < f->nclusters; j++) {
			struct pg_cluster *c = &f->clusters[j];

			if (c->live >= 0 ||
			    (strcmp(c->data_dir, pg->data_dir) != 0 &&
			     strcmp(c->data_dir, pg->arg_data_dir) != 0))
				continue;
			c->live = (int)i;
			pg->cluster = (int)j;
			break;
		}
	}
}

void facts_gather_live(struct facts *f, const struct env *env)
{
	struct shm_mounts *mounts = calloc(1, sizeof(*mounts));
	struct scan_state st = { 0 };
	unsigned int over = 0;
	struct dirent *de;
	DIR *d;

	f->nlive_pgs = 0;
	f->nlive_shms = 0;
	f->live_scanned = 0;
	f->live_unreadable = 0;
	f->live_threshold = f->shm_warn_bytes > 0 ?
			    (uint64_t)f->shm_warn_bytes : DEFAULT_LIVE_THRESHOLD;
	match_clusters(f);
	d = mounts ? opendir(env->proc) : NULL;
	if (!d) {
		free(mounts);
		return;
	}
	load_shm_mounts(env->proc, mounts);
	st.mounts = mounts;
	st.threshold = f->live_threshold;
	while ((de = readdir(d))) {
		int pid = parse_pid(de->d_name);

		if (pid < 0)
			continue;
		if (f->live_scanned == MAX_LIVE_PIDS) {
			over++;
			continue;
		}
		f->live_scanned++;
		scan_process(f, env, &st, pid);
	}
	closedir(d);
	if (over)
		diag_add(&f->diags, "%s: more than %d processes, %u not looked at",
			 env->proc, MAX_LIVE_PIDS, over);
	if (st.pgs_over)
		diag_add(&f->diags, "more than %d running postmasters, %u not listed",
			 MAX_LIVE_PGS, st.pgs_over);
	if (st.shms_over)
		diag_add(&f->diags, "more than %d large shared memory objects, %u not listed",
			 MAX_LIVE_SHMS, st.shms_over);
	if (mounts->over)
		diag_add(&f->diags, "%s/%s: more than %d tmpfs/hugetlbfs mounts, %u not told apart",
			 env->proc, PROC_MOUNTINFO, MAX_SHM_MOUNTS, mounts->over);
	free(mounts);
	match_clusters(f);
}
