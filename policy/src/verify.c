// SPDX-License-Identifier: GPL-2.0
/*
 * verify: a compliance view.  Expected is what the policy and the root
 * require: the decision, the hugetlb pool the root reserves (and, at
 * boot, at least the pages its clusters need), and each cluster's
 * backing as it needs it (pg_cluster_need(): huge pages when on, when a
 * pool is meant for it, or when it is over the size the site cares
 * about), not merely as its configuration predicts; a huge_pages = try
 * fallback is a difference.  Actual is what the running kernel and
 * processes show (the mode file, nr_hugepages, the postmaster's segment
 * in /proc/PID/smaps), or for the pool at boot what the root reserves.
 * Every row that differs gets a footnote saying why.
 */
#include "verify.h"
#include "advise.h"
#include "escape.h"
#include "exit_codes.h"
#include "json.h"
#include "size.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

enum verdict { V_YES, V_NO, V_NA };

struct item {
	char name[NAME_LEN * 3];
	char expected[NAME_LEN];
	char actual[NAME_LEN];
	char note[POOL_ORIGIN_LEN + 32];
	char why[DIAG_LEN * 2];	/* the footnote of a row that differs */
	enum verdict verdict;
};

#define MAX_ITEMS (1 + 2 * MAX_HUGEPAGE_POOLS + MAX_CLUSTERS)

struct check {
	struct item items[MAX_ITEMS];
	unsigned int n;
};

static struct item *add(struct check *c, const char *name)
{
	struct item *it = &c->items[c->n++];

	memset(it, 0, sizeof(*it));
	copy_bounded(it->name, sizeof(it->name), name, strlen(name));
	return it;
}

static void set_text(char *dst, size_t size, const char *s)
{
	copy_bounded(dst, size, s, strlen(s));
}

static void compare(struct item *it)
{
	if (strcmp(it->actual, "unknown") == 0 || strcmp(it->actual, "-") == 0 ||
	    strcmp(it->expected, "unknown") == 0)
		it->verdict = V_NA;
	else
		it->verdict = strcmp(it->expected, it->actual) == 0 ? V_YES :
			      V_NO;
}

static void check_mode(struct check *c, const struct run *run)
{
	const struct decision *d = &run->decision;
	const struct facts *f = run->facts;
	struct item *it = add(c, "mode");
	int want = d->mode;

	if (d->source == SRC_DISABLED) {
		set_text(it->expected, sizeof(it->expected), "-");
		set_text(it->actual, sizeof(it->actual),
			 mode_name(f->modes.current));
		set_text(it->note, sizeof(it->note), "preempt.policy=off");
		it->verdict = V_NA;
		return;
	}
	if (want == MODE_KEEP)
		want = d->keep_mode != MODE_UNKNOWN ? d->keep_mode :
		       f->modes.current;
	set_text(it->expected, sizeof(it->expected),
		 want == MODE_UNKNOWN ? "unknown" : mode_name(want));
	set_text(it->actual, sizeof(it->actual),
		 f->modes.current == MODE_UNKNOWN ? "unknown" :
		 mode_name(f->modes.current));
	snprintf(it->note, sizeof(it->note), "%s",
		 decision_source_name(d->source));
	compare(it);
	if (it->verdict == V_NO) {
		char why[sizeof(it->why)];

		snprintf(why, sizeof(why),
			 "the policy decides %s (%.300s); the kernel runs %s: preempt-policy apply",
			 mode_name(want), d->reason, mode_name(f->modes.current));
		set_text(it->why, sizeof(it->why), why);
	}
}

/* Pages of @page_size the clusters need in hugetlb pages, and whose. */
static uint64_t required_pages(const struct facts *f, uint64_t page_size,
			       char *who, size_t size)
{
	uint64_t total = 0;
	unsigned int i;
	size_t used = 0;

	who[0] = '\0';
	for (i = 0; i < f->nclusters; i++) {
		struct pg_need n;

		pg_cluster_need(f, &f->clusters[i], &n);
		if (!n.required || n.page_size != page_size)
			continue;
		total += n.pages;
		if (used < size)
			used += (size_t)snprintf(who + used, size - used, "%s%s %llu",
						 used ? ", " : "", f->clusters[i].name,
						 (unsigned long long)n.pages);
	}
	return total;
}

static void check_pools(struct check *c, const struct facts *f)
{
	unsigned int i;

	for (i = 0; i < f->npools; i++) {
		const struct hugetlb_pool *p = &f->pools[i];
		char name[64], size[32], who[DIAG_LEN / 2], boot[40];
		uint64_t need = required_pages(f, p->page_size, who, sizeof(who));
		struct item *it;

		/* An unused size nobody reserves or needs is not worth a line. */
		if (p->boot <= 0 && p->live <= 0 && !need &&
		    p->page_size != f->default_hugepage_size)
			continue;
		format_size(p->page_size, size, sizeof(size));
		snprintf(name, sizeof(name), "hugetlb pool %s", size);
		it = add(c, name);
		/* What the root reserves at boot, against the live pool. */
		snprintf(it->expected, sizeof(it->expected), "%lld", p->boot);
		if (p->live < 0)
			set_text(it->actual, sizeof(it->actual), "unknown");
		else
			snprintf(it->actual, sizeof(it->actual), "%lld",
				 p->live);
		set_text(it->note, sizeof(it->note),
			 p->boot_origin[0] ? p->boot_origin : "nothing at boot");
		compare(it);
		if (it->verdict == V_NO && p->boot_origin[0])
			snprintf(it->why, sizeof(it->why),
				 "%.300s reserves %lld pages of %s at boot, the kernel has %lld now: sysctl -w vm.nr_hugepages, or reboot",
				 p->boot_origin, p->boot, size, p->live);
		else if (it->verdict == V_NO)
			snprintf(it->why, sizeof(it->why),
				 "the kernel has %lld pages of %s now, which nothing reserves at boot (grown at run time?): persist them (see preempt-policy advise) or give them back",
				 p->live, size);
		if (!need)
			continue;
		/* The requirement: the boot reserves what the clusters need. */
		snprintf(name, sizeof(name), "hugetlb pool %s at boot", size);
		it = add(c, name);
		snprintf(it->expected, sizeof(it->expected), ">=%llu",
			 (unsigned long long)need);
		snprintf(it->actual, sizeof(it->actual), "%lld", p->boot);
		snprintf(boot, sizeof(boot), " reserves %lld", p->boot);
		set_text(it->note, sizeof(it->note), "clusters' need");
		it->verdict = p->boot >= (long long)need ? V_YES : V_NO;
		if (it->verdict == V_NO)
			snprintf(it->why, sizeof(it->why),
				 "the clusters need %llu pages of %s (%.200s); %.200s%s at boot: see preempt-policy advise",
				 (unsigned long long)need, size, who,
				 p->boot_origin[0] ? p->boot_origin :
				 "nothing reserves them",
				 p->boot_origin[0] ? boot : "");
	}
}

/* "huge_pages = try (FILE:LINE)", or "huge_pages = try (default)". */
static void setting_text(char *buf, size_t size, const struct pg_cluster *cl)
{
	snprintf(buf, size, "huge_pages = %s (%s)", huge_pages_name(cl->huge_pages),
		 cl->huge_pages_origin[0] ? cl->huge_pages_origin : "default");
}

static void cluster_why(struct item *it, const struct facts *f,
			const struct pg_cluster *cl, const struct pg_need *n)
{
	char setting[PG_ORIGIN_LEN + 32], size[32], thr[32], page[32];
	char actual[sizeof(it->actual)], expected[sizeof(it->expected)];

	/* Copies: the footnote is written into the same item. */
	set_text(actual, sizeof(actual),
		 strcmp(it->actual, "none") == 0 ? "base" : it->actual);
	set_text(expected, sizeof(expected), it->expected);
	if (cl->start_fails) {
		pg_start_failure(f, cl, it->why, sizeof(it->why));
		return;
	}
	setting_text(setting, sizeof(setting), cl);
	format_size(n->size, size, sizeof(size));
	format_size(f->live_threshold, thr, sizeof(thr));
	format_size(n->page_size, page, sizeof(page));
	if (n->want != PG_BACKING_HUGETLB) {
		snprintf(it->why, sizeof(it->why),
			 "runs in %s pages, the configuration predicts %s (%.300s)",
			 actual, expected, setting);
		return;
	}
	if (cl->shm_sysv) {
		snprintf(it->why, sizeof(it->why),
			 "shared_memory_type = sysv (%.300s) never gets huge pages; %s needs %llu pages of %s",
			 cl->shm_type_origin[0] ? cl->shm_type_origin : "?",
			 size, (unsigned long long)n->pages, page);
		return;
	}
	if (cl->huge_pages == PG_HUGE_OFF) {
		snprintf(it->why, sizeof(it->why),
			 "%.300s: %s of shared memory is over the %s the site cares about; it needs %llu pages of %s",
			 setting, size, thr, (unsigned long long)n->pages, page);
		return;
	}
	snprintf(it->why, sizeof(it->why),
		 "%.300s fell back to %s pages: %s needs %llu pages of %s%s",
		 setting, actual, size, (unsigned long long)n->pages, page,
		 cl->backing == PG_BACKING_HUGETLB ?
		 "; the pool holds them now: restart the cluster" :
		 "; the pool does not hold them: see preempt-policy advise");
}

static void check_clusters(struct check *c, const struct facts *f)
{
	unsigned int i;

	for (i = 0; i < f->nclusters; i++) {
		const struct pg_cluster *cl = &f->clusters[i];
		const struct live_pg *pg = cl->live >= 0 ?
					   &f->live_pgs[cl->live] : NULL;
		char name[NAME_LEN * 3];
		struct pg_need n;
		struct item *it;

		pg_cluster_need(f, cl, &n);
		snprintf(name, sizeof(name), "cluster %s backing", cl->name);
		it = add(c, name);
		set_text(it->expected, sizeof(it->expected),
			 pg_backing_name(n.want));
		if (!pg && cl->start_fails) {
			/* Not running is what the prediction says: a difference. */
			set_text(it->actual, sizeof(it->actual), "not-started");
			set_text(it->note, sizeof(it->note), "not running");
		} else if (!pg) {
			set_text(it->actual, sizeof(it->actual), "-");
			set_text(it->note, sizeof(it->note), "not running");
		} else if (!pg->seg.smaps_read) {
			set_text(it->actual, sizeof(it->actual), "unknown");
			set_text(it->note, sizeof(it->note), "smaps not readable");
		} else {
			set_text(it->actual, sizeof(it->actual),
				 pg_backing_name(pg->seg.backing));
			snprintf(it->note, sizeof(it->note), "postmaster %d, huge_pages=%s",
				 pg->pid, huge_pages_name(cl->huge_pages));
		}
		compare(it);
		if (it->verdict == V_NO)
			cluster_why(it, f, cl, &n);
	}
}

static const char *verdict_name(enum verdict v)
{
	return v == V_YES ? "yes" : v == V_NO ? "no" : "n/a";
}

int verify_code(bool bad_input, bool differ)
{
	if (bad_input)
		return differ ? EXIT_BAD_INPUT_DIFFER : EXIT_BAD_INPUT;
	return differ ? EXIT_DIFFER : EXIT_OK;
}

int verify_output(const struct run *run, const struct env *env, FILE *out)
{
	struct check *c = calloc(1, sizeof(*c));
	unsigned int i, differ = 0, compared = 0, note = 0;
	int code;

	if (!c)
		return EXIT_WRITE_FAILED;
	check_mode(c, run);
	check_pools(c, run->facts);
	check_clusters(c, run->facts);
	for (i = 0; i < c->n; i++) {
		differ += c->items[i].verdict == V_NO;
		compared += c->items[i].verdict != V_NA;
	}
	code = verify_code(run->decision.bad_input, differ > 0);
	if (env->json) {
		fputs("{\"items\":[", out);
		for (i = 0; i < c->n; i++) {
			const struct item *it = &c->items[i];

			fputs(i ? ",{\"item\":" : "{\"item\":", out);
			json_string(out, it->name);
			fputs(",\"expected\":", out);
			json_string(out, it->expected);
			fputs(",\"actual\":", out);
			json_string(out, it->actual);
			fprintf(out, ",\"compliant\":%s,\"note\":",
				it->verdict == V_NA ? "null" :
				it->verdict == V_YES ? "true" : "false");
			json_string(out, it->note);
			fputs(",\"reason\":", out);
			if (it->verdict == V_NO)
				json_string(out, it->why);
			else
				fputs("null", out);
			fputc('}', out);
		}
		fprintf(out, "],\"compared\":%u,\"differ\":%u,\"bad_input\":%s,\"exit_code\":%d}\n",
			compared, differ,
			run->decision.bad_input ? "true" : "false", code);
		free(c);
		return code;
	}
	fprintf(out, "%-36s %-10s %-11s %-9s %s\n", "item", "expected", "actual",
		"compliant", "note");
	for (i = 0; i < c->n; i++) {
		const struct item *it = &c->items[i];
		char name[sizeof(it->name) * 4 + 1];

		/* Cluster names come from directories postgres owns. */
		text_escape(name, sizeof(name), it->name);
		fprintf(out, "%-36s %-10s %-11s %-9s ", name, it->expected,
			it->actual, verdict_name(it->verdict));
		text_escape_to(out, it->note);
		if (it->verdict == V_NO)
			fprintf(out, " [%u]", ++note);
		fputc('\n', out);
	}
	for (i = 0, note = 0; i < c->n; i++) {
		const struct item *it = &c->items[i];

		if (it->verdict != V_NO)
			continue;
		fprintf(out, "[%u] ", ++note);
		text_escape_to(out, it->name);
		fputs(": ", out);
		text_escape_to(out, it->why);
		fputc('\n', out);
	}
	fprintf(out, "verify: %u of %u compared differ%s (exit %d)\n", differ,
		compared, run->decision.bad_input ?
		"; bad input: see the diagnostics above" : "", code);
	free(c);
	return code;
}
