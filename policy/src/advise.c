// SPDX-License-Identifier: GPL-2.0
/*
 * advise: what a DBA can paste so that each PostgreSQL cluster gets huge
 * pages, how many (the number the server's shared_memory_size_in_huge_pages
 * gives), whether the pool can grow now or needs the boot parameter, and
 * the mode the policy then picks.  It changes nothing.
 *
 * The page count comes from the running postmaster's segment when there is
 * one: the server maps exactly CalculateShmemSize() bytes (a multiple of
 * 8 kB) when it falls back to base pages, and the count PostgreSQL 15 reports
 * is that size / huge page size + 1 (ipci.c, InitializeShmemGUCs()).
 * Running `postgres -C shared_memory_size_in_huge_pages` instead would need
 * the binary, a switch to the postgres user (it refuses root), and a stopped
 * server (on a running one it fails on postmaster.pid); the segment needs
 * none of these.  A cluster that is not running gets the model's estimate.
 */
#include "advise.h"
#include "cmdline_out.h"
#include "escape.h"
#include "exit_codes.h"
#include "json.h"
#include "paths.h"
#include "size.h"
#include "util.h"
#include "verify.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *advise_growth_name(enum advise_growth g)
{
	switch (g) {
	case GROW_NOT_NEEDED:
		return "not-needed";
	case GROW_NOW:
		return "now";
	case GROW_LIKELY:
		return "likely";
	case GROW_BOOT:
		break;
	}
	return "boot";
}

static uint64_t page_size_of(const struct facts *f, const struct pg_cluster *c)
{
	return c && c->huge_page_size ? c->huge_page_size :
	       f->default_hugepage_size;
}

/*
 * Pages for a segment: a segment already in hugetlb pages holds exactly
 * size / page; one in base pages is the server's own size, and PostgreSQL
 * asks for size / page + 1.
 */
static uint64_t pages_for_segment(const struct live_shm *seg, uint64_t page)
{
	if (seg->backing == PG_BACKING_HUGETLB)
		return seg->size / page;
	return seg->size / page + 1;
}

void pg_cluster_need(const struct facts *f, const struct pg_cluster *c,
		     struct pg_need *n)
{
	const struct live_pg *pg = c->live >= 0 ? &f->live_pgs[c->live] : NULL;

	memset(n, 0, sizeof(*n));
	n->page_size = page_size_of(f, c);
	if (pg && pg->seg_found && pg->seg.smaps_read) {
		n->from_segment = true;
		n->size = pg->seg.size;
		n->pages = n->page_size ?
			   pages_for_segment(&pg->seg, n->page_size) : 0;
	} else {
		n->size = c->shm_estimate;
		n->pages = c->hugepages_needed;
	}
	n->want = c->backing;
	/* Shared memory THP is huge pages too, where the kernel gives it. */
	if (c->backing == PG_BACKING_THP || !n->page_size)
		return;
	n->required = c->start_fails || c->huge_pages == PG_HUGE_ON ||
		      c->backing == PG_BACKING_HUGETLB ||
		      (f->live_threshold && n->size >= f->live_threshold);
	if (n->required)
		n->want = PG_BACKING_HUGETLB;
}

static void add_cluster(struct advice *a, const struct facts *f,
			const struct pg_cluster *c, const struct live_pg *pg)
{
	struct advice_cluster *ac;
	uint64_t page;

	if (a->nclusters == ARRAY_SIZE(a->clusters))
		return;
	ac = &a->clusters[a->nclusters++];
	memset(ac, 0, sizeof(*ac));
	ac->cluster = c;
	ac->live = pg;
	page = page_size_of(f, c);
	ac->page_size = page;
	if (pg && pg->seg_found && pg->seg.smaps_read) {
		ac->from_segment = true;
		ac->size = pg->seg.size;
		ac->backing = pg->seg.backing;
		ac->pages = page ? pages_for_segment(&pg->seg, page) : 0;
	} else if (c) {
		ac->size = c->shm_estimate;
		ac->backing = c->backing;
		ac->pages = c->hugepages_needed;
	}
	if (c) {
		struct pg_need n;

		pg_cluster_need(f, c, &n);
		ac->required = n.required;
		ac->done = !c->start_fails && ac->backing == PG_BACKING_HUGETLB;
	} else {
		ac->required = page && f->live_threshold &&
			       ac->size >= f->live_threshold;
		ac->done = ac->backing == PG_BACKING_HUGETLB;
	}
	/* Shared memory THP where the kernel gives it to this segment. */
	if (ac->backing == PG_BACKING_THP && (!c || !ac->required))
		ac->done = true;
	a->changes_required |= c && c->start_fails;
	a->changes_required |= ac->required && !ac->done;
}

/*
 * A decimal count at *@p (before @end) into @n; false when it does not
 * fit in 64 bits, which never wraps around to a small number.
 */
static bool take_count(const char **p, const char *end,
		       unsigned long long *n)
{
	const char *s = *p;

	*n = 0;
	while (s < end && *s >= '0' && *s <= '9') {
		unsigned int d = (unsigned int)(*s++ - '0');

		if (*n > (ULLONG_MAX - d) / 10)
			return false;
		*n = *n * 10 + d;
	}
	*p = s;
	return true;
}

long long buddyinfo_free_blocks(const char *buf, size_t len,
				unsigned int order, unsigned int *bad_line)
{
	struct line_reader lr;
	const char *line;
	long long total = 0;

	if (bad_line)
		*bad_line = 0;
	if (order >= BUDDY_ORDERS)
		return 0;	/* gigantic: never in the buddy lists */
	line_reader_init(&lr, buf, len);
	while (line_reader_next(&lr, &line, &len)) {
		const char *zone = memmem(line, len, "zone", 4);
		const char *p, *end = line + len;
		unsigned int o = 0;
		bool dma;

		if (!zone)
			continue;
		p = zone + 4;
		while (p < end && *p == ' ')
			p++;
		/* ZONE_DMA is not used for hugetlb pages (but is checked). */
		dma = memmem(p, (size_t)(end - p), "DMA ", 4) == p;
		while (p < end && *p != ' ')
			p++;
		while (p < end && o < BUDDY_ORDERS) {
			unsigned long long n;

			while (p < end && *p == ' ')
				p++;
			if (p == end || *p < '0' || *p > '9')
				break;
			if (!take_count(&p, end, &n)) {
				if (bad_line)
					*bad_line = lr.lineno;
				return -1;
			}
			if (!dma && o >= order && n < (1ULL << 40))
				total += (long long)(n << (o - order));
			o++;
		}
	}
	return total;
}

/*
 * Free blocks of at least @page bytes, from /proc/buddyinfo; -1 unknown
 * (and *@bad_line set when a line of it is malformed).
 */
static long long free_blocks(const struct env *env, uint64_t page,
			     unsigned int *bad_line)
{
	long base = sysconf(_SC_PAGESIZE);
	char path[PATH_LEN], *buf;
	long long total;
	unsigned int order = 0;
	size_t len;

	*bad_line = 0;
	if (base <= 0)
		return -1;
	while (((uint64_t)base << order) < page && order < 63)
		order++;
	if (((uint64_t)base << order) != page)
		return -1;
	if (order >= BUDDY_ORDERS)
		return 0;	/* gigantic: never in the buddy lists */
	if (path_join(path, sizeof(path), env->proc, PROC_BUDDYINFO) ||
	    read_file_capped(path, MAX_MEMINFO_FILE, &buf, &len))
		return -1;
	total = buddyinfo_free_blocks(buf, len, order, bad_line);
	free(buf);
	return total;
}

static bool same_object(const struct live_shm *a, const struct live_shm *b)
{
	return a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	       a->inode == b->inode;
}

static struct hugetlb_pool *pool_of(struct facts *f, uint64_t page)
{
	unsigned int i;

	for (i = 0; i < f->npools; i++)
		if (f->pools[i].page_size == page)
			return &f->pools[i];
	return NULL;
}

static void plan_pools(struct advice *a, struct facts *f,
		       const struct env *env)
{
	unsigned int i, j;

	for (i = 0; i < a->nclusters; i++) {
		struct advice_cluster *ac = &a->clusters[i];
		struct advice_pool *ap = NULL;

		/* SysV clusters too: advise moves them to mmap. */
		if (!ac->page_size || !ac->pages)
			continue;
		for (j = 0; j < a->npools; j++)
			if (a->pools[j].page_size == ac->page_size)
				ap = &a->pools[j];
		if (!ap) {
			if (a->npools == ARRAY_SIZE(a->pools))
				continue;
			ap = &a->pools[a->npools++];
			memset(ap, 0, sizeof(*ap));
			ap->page_size = ac->page_size;
		}
		ap->pages += ac->pages;
		if (ac->required)
			ap->required_pages += ac->pages;
	}
	for (j = 0; j < a->npools; j++) {
		struct advice_pool *ap = &a->pools[j];
		struct hugetlb_pool *p = pool_of(f, ap->page_size);
		unsigned int bad_line;
		long long add;

		ap->live = p ? (p->live > 0 ? p->live : 0) : 0;
		/* At the next boot: a pool grown with sysctl -w is not kept. */
		ap->predicted = p ? p->boot : 0;
		if (p)
			copy_bounded(ap->origin, sizeof(ap->origin),
				     p->boot_origin, strlen(p->boot_origin));
		ap->is_default = ap->page_size == f->default_hugepage_size;
		ap->free_blocks = free_blocks(env, ap->page_size, &bad_line);
		if (bad_line && !a->buddyinfo_bad_line)
			a->buddyinfo_bad_line = bad_line;
		ap->mem_available = f->mem_available;
		ap->change = (long long)ap->required_pages > ap->live ||
			     (long long)ap->required_pages > ap->predicted;
		a->changes_required |= ap->change;
		add = (long long)ap->pages - ap->live;
		if (add <= 0)
			ap->growth = GROW_NOT_NEEDED;
		else if (ap->free_blocks >= add)
			ap->growth = GROW_NOW;
		else if (ap->free_blocks != 0 && f->mem_available &&
			 f->mem_available / ap->page_size >= (uint64_t)add)
			/* the kernel compacts when the pool grows */
			ap->growth = GROW_LIKELY;
		else
			ap->growth = GROW_BOOT;
	}
}

/*
 * The facts as they will be once the advice is followed: every pool at
 * its target, every cluster (and its running segment) in hugetlb pages.
 * The warning counter is cumulative and stays until the next boot; the
 * shipped rules read it only together with the live objects, which the
 * remedy moves out of base pages.
 */
static void decide_after(struct advice *a, const struct run *run)
{
	struct facts *f = malloc(sizeof(*f));
	unsigned int i, j;

	a->after_known = false;
	if (!f)
		return;
	memcpy(f, run->facts, sizeof(*f));
	for (j = 0; j < a->npools; j++) {
		struct hugetlb_pool *p = pool_of(f, a->pools[j].page_size);

		if (p && p->nr < (long long)a->pools[j].pages) {
			p->nr = (long long)a->pools[j].pages;
			p->live = p->nr;
			p->origin[0] = '\0';
		}
	}
	/* huge_pages = on and mmap, as advised, for every cluster. */
	for (i = 0; i < f->nclusters; i++) {
		f->clusters[i].shm_sysv = false;
		f->clusters[i].huge_pages = PG_HUGE_ON;
	}
	facts_derive(f);
	for (i = 0; i < f->nlive_pgs; i++) {
		struct live_pg *pg = &f->live_pgs[i];

		if (!pg->seg_found)
			continue;
		for (j = 0; j < f->nlive_shms; j++)
			if (same_object(&f->live_shms[j], &pg->seg))
				f->live_shms[j].backing = PG_BACKING_HUGETLB;
		pg->seg.backing = PG_BACKING_HUGETLB;
	}
	decide(f, run->policy, run->decision.bad_input, &a->after);
	a->after_keep_mode = a->after.keep_mode;
	/*
	 * The tool's own preempt= (cmdline --format grub) on the command
	 * line: take it back when the policy no longer picks that mode.
	 */
	a->cmdline_remove = run->decision.tool_arg &&
			    a->after.mode != f->boot.admin_mode;
	a->changes_required |= a->cmdline_remove;
	if (a->after.mode == MODE_KEEP && a->after.keep_mode == MODE_UNKNOWN)
		a->after_keep_mode = f->modes.current;
	a->after_known = true;
	free(f);
}

void advise_plan(struct advice *a, const struct run *run,
		 const struct env *env)
{
	struct facts *f = run->facts;
	unsigned int i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < f->nclusters; i++)
		add_cluster(a, f, &f->clusters[i], f->clusters[i].live >= 0 ?
			    &f->live_pgs[f->clusters[i].live] : NULL);
	for (i = 0; i < f->nlive_pgs; i++)
		if (f->live_pgs[i].cluster < 0)
			add_cluster(a, f, NULL, &f->live_pgs[i]);
	plan_pools(a, f, env);
	decide_after(a, run);
}

static void cluster_label(char *buf, size_t size, const struct advice_cluster *ac)
{
	if (ac->cluster || !ac->live)
		snprintf(buf, size, "%s", ac->cluster ? ac->cluster->name : "?");
	else
		snprintf(buf, size, "postmaster %d (%s)", ac->live->pid,
			 ac->live->data_dir[0] ? ac->live->data_dir : "?");
}

/* Debian's unit for "15/main" is postgresql@15-main. */
static void restart_hint(char *buf, size_t size, const struct pg_cluster *c)
{
	const char *slash = c ? strchr(c->name, '/') : NULL;

	if (c && c->version && slash && !strchr(slash + 1, '/'))
		snprintf(buf, size, "systemctl restart postgresql@%.*s-%s",
			 (int)(slash - c->name), c->name, slash + 1);
	else
		snprintf(buf, size, "restart the server");
}

static void mode_text(const struct facts *f, const struct decision *d,
		      int keep_mode, char *buf, size_t size)
{
	if (d->source == SRC_DISABLED)
		snprintf(buf, size, "disabled");
	else if (d->mode == MODE_KEEP)
		snprintf(buf, size, "keep (%s)", keep_mode == MODE_UNKNOWN ?
			 mode_name(f->modes.current) : mode_name(keep_mode));
	else
		snprintf(buf, size, "%s", mode_name(d->mode));
}

/* Is @origin ("FILE:LINE") a line of @file? */
static bool origin_in(const char *origin, const char *file)
{
	size_t n = strlen(file);

	return n && strncmp(origin, file, n) == 0 && origin[n] == ':';
}

/*
 * One setting to change, where the server really takes it from: the
 * FILE:LINE that sets it now (as pg_settings' sourcefile and sourceline
 * show it), ALTER SYSTEM when that is postgresql.auto.conf (read last:
 * no edit of postgresql.conf overrides it), else postgresql.conf.
 */
static void text_setting(FILE *out, const struct pg_cluster *c,
			 const char *name, const char *value,
			 const char *origin, const char *now, const char *tail)
{
	if (c && origin[0] && origin_in(origin, c->auto_conf)) {
		fprintf(out, "  reboot=no  ALTER SYSTEM SET %s = %s;   # ", name, value);
		text_escape_to(out, origin);
		fprintf(out, " sets %s = %s (ALTER SYSTEM, read after postgresql.conf: an edit there changes nothing)%s",
			name, now, tail);
		return;
	}
	fprintf(out, "  reboot=no  %s = %s   # in ", name, value);
	if (c && origin[0]) {
		text_escape_to(out, origin);
		fprintf(out, ", which sets %s now%s", now, tail);
		return;
	}
	text_escape_to(out, c ? c->conf_path : "its postgresql.conf");
	fprintf(out, " (or ALTER SYSTEM)%s", tail);
}

static void text_cluster(FILE *out, const struct facts *f,
			 const struct advice_cluster *ac)
{
	const struct pg_cluster *c = ac->cluster;
	char label[PATH_LEN + 32], size[32], page[32], hint[PATH_LEN];
	char tail[PATH_LEN + 64], thr[32];

	cluster_label(label, sizeof(label), ac);
	format_size(ac->size, size, sizeof(size));
	format_size(ac->page_size, page, sizeof(page));
	fputs("cluster ", out);
	text_escape_to(out, label);
	if (ac->from_segment && ac->live)
		fprintf(out, ": running (postmaster %d), segment %s in %s\n",
			ac->live->pid, size,
			ac->backing == PG_BACKING_HUGETLB ? "hugetlb pages" :
			ac->backing == PG_BACKING_THP ? "shmem THP" :
			"base pages");
	else
		fprintf(out, ": not running, shared memory modelled from its settings: %s\n",
			size);
	if (!ac->page_size) {
		fprintf(out, "  the kernel shows no huge page size (no hugetlb): nothing to advise\n");
		return;
	}
	fprintf(out, "  huge pages needed: %llu of %s (%s)\n",
		(unsigned long long)ac->pages, page,
		!ac->from_segment ? "model, as shared_memory_size_in_huge_pages" :
		ac->backing == PG_BACKING_HUGETLB ? "segment / page size" :
		"segment / page size + 1, as shared_memory_size_in_huge_pages");
	if (c && c->version_from_data)
		fprintf(out, "  model of PostgreSQL %u (PG_VERSION in its data directory)\n",
			c->version);
	if (ac->done && (!c || c->huge_pages == PG_HUGE_ON)) {
		fprintf(out, ac->backing == PG_BACKING_THP ?
			"  already in shmem THP\n" : "  already in hugetlb pages\n");
		return;
	}
	if (ac->done)
		fprintf(out, "  in hugetlb pages%s; huge_pages = on makes a shortfall a start failure, not a silent fallback:\n",
			ac->from_segment ? "" : " at its start (predicted)");
	else if (!ac->required) {
		format_size(f->live_threshold, thr, sizeof(thr));
		fprintf(out, "  not required (below %s, the size the site cares about); for huge pages anyway:\n",
			thr);
	}
	restart_hint(hint, sizeof(hint), c);
	snprintf(tail, sizeof(tail), ", after the pool; then: %s\n", hint);
	if (c && c->shm_sysv)
		text_setting(out, c, "shared_memory_type", "mmap",
			     c->shm_type_origin, "sysv",
			     "; sysv never gets huge pages\n");
	if (!c || c->huge_pages != PG_HUGE_ON)
		text_setting(out, c, "huge_pages", "on",
			     c ? c->huge_pages_origin : "",
			     c ? huge_pages_name(c->huge_pages) : "?", tail);
	else
		fprintf(out, "  reboot=no  %s   # huge_pages = on already, after the pool\n",
			hint);
}

static void text_pool(FILE *out, const struct advice_pool *ap)
{
	char page[32], avail[32], arg[96];
	unsigned long long n = (unsigned long long)ap->pages;
	bool now_ok, persisted;

	format_size(ap->page_size, page, sizeof(page));
	if (ap->mem_available)
		format_size(ap->mem_available, avail, sizeof(avail));
	else
		snprintf(avail, sizeof(avail), "unknown");
	fprintf(out, "pool %s: %llu pages for the clusters above (live %lld, at next boot %lld%s%s)\n",
		page, n, ap->live, ap->predicted, ap->origin[0] ? " from " : "",
		ap->origin);
	if (ap->growth == GROW_NOT_NEEDED && ap->predicted >= (long long)n) {
		fprintf(out, "  reboot=no  nothing: the pool already holds them\n");
		return;
	}
	/* The boot already reserves them: no second, contradicting remedy. */
	persisted = ap->predicted >= (long long)n;
	/*
	 * Grown now where it can be; the persistent line only where the next
	 * boot would reserve fewer (never lower what the root reserves).
	 */
	now_ok = ap->growth == GROW_NOW || ap->growth == GROW_LIKELY;
	if (ap->is_default) {
		if (now_ok)
			fprintf(out, "  reboot=no  sysctl -w vm.nr_hugepages=%llu\n",
				ap->predicted > (long long)n ?
				(unsigned long long)ap->predicted : n);
		if (ap->predicted >= (long long)n)
			fprintf(out, "  reboot=no  nothing to persist: %s reserves %lld at boot\n",
				ap->origin, ap->predicted);
		else if (ap->origin[0] == '/')
			fprintf(out, "  reboot=%s vm.nr_hugepages = %llu   # edit %s, which sets it at boot\n",
				ap->growth == GROW_BOOT ? "yes" : "no ", n,
				ap->origin);
		else
			fprintf(out, "  reboot=%s printf 'vm.nr_hugepages = %llu\\n' > /etc/sysctl.d/60-hugepages.conf   # every boot\n",
				ap->growth == GROW_BOOT ? "yes" : "no ", n);
	} else {
		if (now_ok)
			fprintf(out, "  reboot=no  echo %llu > /sys/kernel/mm/hugepages/hugepages-%llukB/nr_hugepages\n",
				n, (unsigned long long)(ap->page_size >> 10));
		if (persisted)
			fprintf(out, "  reboot=no  nothing to persist: %s reserves %lld at boot\n",
				ap->origin, ap->predicted);
	}
	switch (ap->growth) {
	case GROW_NOT_NEEDED:
		break;
	case GROW_NOW:
		fprintf(out, "  growth now: yes, %lld free blocks of %s (/proc/buddyinfo)\n",
			ap->free_blocks, page);
		break;
	case GROW_LIKELY:
		if (ap->free_blocks < 0)
			fprintf(out, "  growth now: likely after compaction (free blocks of %s unknown, MemAvailable %s); check /proc/sys/vm/nr_hugepages, else the boot parameter\n",
				page, avail);
		else
			fprintf(out, "  growth now: likely after compaction (%lld free blocks of %s, MemAvailable %s); check /proc/sys/vm/nr_hugepages, else the boot parameter\n",
				ap->free_blocks, page, avail);
		break;
	case GROW_BOOT:
		if (ap->free_blocks < 0)
			fprintf(out, "  growth now: unknown (no usable /proc/buddyinfo, MemAvailable %s): %s\n",
				avail, persisted ? "reserved at the next boot" :
				"reserve at boot");
		else
			fprintf(out, "  growth now: unlikely (%lld free blocks of %s, MemAvailable %s): %s\n",
				ap->free_blocks, page, avail,
				persisted ? "reserved at the next boot" :
				"reserve at boot");
		break;
	}
	if (ap->growth == GROW_NOW || ap->growth == GROW_NOT_NEEDED ||
	    persisted)
		return;
	if (ap->is_default)
		snprintf(arg, sizeof(arg), "hugepages=%llu", n);
	else
		snprintf(arg, sizeof(arg), "hugepagesz=%llu%s hugepages=%llu",
			 (unsigned long long)(ap->page_size >= (1ULL << 30) ?
					      ap->page_size >> 30 : ap->page_size >> 20),
			 ap->page_size >= (1ULL << 30) ? "G" : "M", n);
	fprintf(out, "  reboot=yes %s   # kernel command line\n", arg);
	fputs("  reboot=yes ", out);
	cmdline_snippet_line(out, CMDLINE_GRUB, arg);
	fputs("  reboot=yes ", out);
	cmdline_snippet_line(out, CMDLINE_UBOOT, arg);
}

static void json_advice(FILE *out, const struct advice *a,
			const struct run *run, int code)
{
	const struct facts *f = run->facts;
	char now[64], label[PATH_LEN + 32];
	unsigned int i;

	fputs("{\"clusters\":[", out);
	for (i = 0; i < a->nclusters; i++) {
		const struct advice_cluster *ac = &a->clusters[i];

		cluster_label(label, sizeof(label), ac);
		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		json_string(out, label);
		fprintf(out, ",\"running\":%s,\"source\":\"%s\",\"size\":%llu,\"backing\":\"%s\",\"huge_page_size\":%llu,\"hugepages_needed\":%llu,\"huge_pages\":",
			ac->live ? "true" : "false",
			ac->from_segment ? "segment" : "model",
			(unsigned long long)ac->size,
			pg_backing_name(ac->backing),
			(unsigned long long)ac->page_size,
			(unsigned long long)ac->pages);
		if (ac->cluster) {
			fprintf(out, "\"%s\",\"huge_pages_origin\":",
				huge_pages_name(ac->cluster->huge_pages));
			json_string(out, ac->cluster->huge_pages_origin);
		} else {
			fputs("null,\"huge_pages_origin\":\"\"", out);
		}
		fprintf(out, ",\"required\":%s,\"done\":%s,\"start_fails\":%s}",
			ac->required ? "true" : "false",
			ac->done ? "true" : "false",
			ac->cluster && ac->cluster->start_fails ? "true" : "false");
	}
	fputs("],\"pools\":[", out);
	for (i = 0; i < a->npools; i++) {
		const struct advice_pool *ap = &a->pools[i];

		fprintf(out, "%s{\"page_size\":%llu,\"pages\":%llu,\"live\":%lld,\"next_boot\":%lld,\"origin\":",
			i ? "," : "", (unsigned long long)ap->page_size,
			(unsigned long long)ap->pages, ap->live, ap->predicted);
		json_string(out, ap->origin);
		fprintf(out, ",\"growth\":\"%s\",\"free_blocks\":%lld,\"reboot\":%s,\"required_pages\":%llu,\"change\":%s}",
			advise_growth_name(ap->growth), ap->free_blocks,
			ap->growth == GROW_BOOT || ap->growth == GROW_LIKELY ?
			"true" : "false",
			(unsigned long long)ap->required_pages,
			ap->change ? "true" : "false");
	}
	mode_text(f, &run->decision, run->decision.keep_mode, now, sizeof(now));
	fputs("],\"mode_now\":", out);
	json_string(out, now);
	fputs(",\"mode_after\":", out);
	if (a->after_known) {
		char after[64];

		mode_text(f, &a->after, a->after_keep_mode, after, sizeof(after));
		json_string(out, after);
		fputs(",\"reason_after\":", out);
		json_string(out, a->after.reason);
	} else {
		fputs("null,\"reason_after\":null", out);
	}
	fprintf(out, ",\"cmdline_remove\":%s,\"changes_required\":%s,\"exit_code\":%d}\n",
		a->cmdline_remove ? "true" : "false",
		a->changes_required ? "true" : "false", code);
}

int advise_output(const struct run *run, const struct env *env, FILE *out)
{
	const struct facts *f = run->facts;
	bool bad = run->decision.bad_input;
	struct advice *a = malloc(sizeof(*a));
	char now[64];
	unsigned int i;
	int code;

	if (!a)
		return EXIT_WRITE_FAILED;
	advise_plan(a, run, env);
	if (a->buddyinfo_bad_line) {
		/* Taken as unknown: no growth now is claimed from it. */
		fprintf(stderr, "preempt-policy: %s/%s:%u: free block count does not fit in 64 bits: free blocks unknown\n",
			env->proc, PROC_BUDDYINFO, a->buddyinfo_bad_line);
		bad = true;
	}
	code = verify_code(bad, a->changes_required);
	if (env->json) {
		json_advice(out, a, run, code);
		free(a);
		return code;
	}
	if (!a->nclusters)
		fprintf(out, "no PostgreSQL cluster found, none running: nothing to advise\n");
	/* First what will fail: a server that will not start. */
	for (i = 0; i < f->nclusters; i++) {
		char why[DIAG_LEN];

		pg_start_failure(f, &f->clusters[i], why, sizeof(why));
		if (!why[0])
			continue;
		fputs("will not start: cluster ", out);
		text_escape_to(out, f->clusters[i].name);
		fputs(": ", out);
		text_escape_to(out, why);
		fputc('\n', out);
	}
	for (i = 0; i < a->nclusters; i++)
		text_cluster(out, f, &a->clusters[i]);
	for (i = 0; i < a->npools; i++)
		text_pool(out, &a->pools[i]);
	for (i = 0; i < f->nlive_shms; i++) {
		const struct live_shm *s = &f->live_shms[i];
		char size[32];
		bool pg = false;
		unsigned int j;

		for (j = 0; j < f->nlive_pgs; j++)
			pg |= same_object(&f->live_pgs[j].seg, s);
		if (pg || !s->smaps_read || s->backing != PG_BACKING_4K)
			continue;
		format_size(s->size, size, sizeof(size));
		fprintf(out, "other: pid %d (", s->pid);
		text_escape_to(out, s->comm);
		fputs(") ", out);
		text_escape_to(out, s->object);
		fprintf(out, " %s in base pages: the application's choice (MAP_HUGETLB, hugetlbfs, memfd MFD_HUGETLB)\n",
			size);
	}
	mode_text(f, &run->decision, run->decision.keep_mode, now, sizeof(now));
	fprintf(out, "mode now: %s\n", now);
	if (a->after_known) {
		char after[64];

		mode_text(f, &a->after, a->after_keep_mode, after, sizeof(after));
		fprintf(out, "mode after: %s reason=", after);
		quote_text(out, a->after.reason);
		fputc('\n', out);
		if (f->shm_warn_count > 0)
			fprintf(out, "note: shm_warn_count stays %lld until the next boot; the shipped rules read it only with a live object in base pages\n",
				f->shm_warn_count);
		if (a->cmdline_remove) {
			fprintf(out, "  reboot=yes preempt-policy cmdline --format grub --remove > /%s && update-grub   # preempt=%s on the command line is the tool's (",
				ETC_GRUB_SNIPPET, mode_name(f->boot.admin_mode));
			text_escape_to(out, f->tool_cmdline_origin);
			fputs("), which the policy no longer picks\n", out);
		}
	}
	fprintf(out, "advise: %s (exit %d)\n", a->changes_required ?
		"changes required" : "nothing required", code);
	free(a);
	return code;
}
