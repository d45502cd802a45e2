// SPDX-License-Identifier: GPL-2.0
/*
 * verify: a compliance view.  Expected is what the policy and the root's
 * configuration say (the decision, the hugetlb pool the root reserves,
 * each cluster's backing as predicted from its settings and that pool);
 * actual is what the running kernel and processes show (the mode file,
 * nr_hugepages, the postmaster's segment in /proc/PID/smaps).
 */
#include "verify.h"
#include "escape.h"
#include "exit_codes.h"
#include "json.h"
#include "size.h"
#include "util.h"

#include <string.h>

enum verdict { V_YES, V_NO, V_NA };

struct item {
	char name[NAME_LEN * 3];
	char expected[NAME_LEN];
	char actual[NAME_LEN];
	char note[POOL_ORIGIN_LEN + 32];
	enum verdict verdict;
};

#define MAX_ITEMS (1 + MAX_HUGEPAGE_POOLS + MAX_CLUSTERS)

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
}

static void check_pools(struct check *c, const struct facts *f)
{
	unsigned int i;

	for (i = 0; i < f->npools; i++) {
		const struct hugetlb_pool *p = &f->pools[i];
		char name[64], size[32];
		struct item *it;

		/* An unused size nobody reserves is not worth a line. */
		if (p->nr <= 0 && p->live <= 0 &&
		    p->page_size != f->default_hugepage_size)
			continue;
		format_size(p->page_size, size, sizeof(size));
		snprintf(name, sizeof(name), "hugetlb pool %s", size);
		it = add(c, name);
		snprintf(it->expected, sizeof(it->expected), "%lld", p->nr);
		if (p->live < 0)
			set_text(it->actual, sizeof(it->actual), "unknown");
		else
			snprintf(it->actual, sizeof(it->actual), "%lld",
				 p->live);
		set_text(it->note, sizeof(it->note),
			 p->origin[0] ? p->origin : "live pool");
		compare(it);
	}
}

static void check_clusters(struct check *c, const struct facts *f)
{
	unsigned int i;

	for (i = 0; i < f->nclusters; i++) {
		const struct pg_cluster *cl = &f->clusters[i];
		const struct live_pg *pg = cl->live >= 0 ?
					   &f->live_pgs[cl->live] : NULL;
		char name[NAME_LEN * 3];
		struct item *it;

		snprintf(name, sizeof(name), "cluster %s backing", cl->name);
		it = add(c, name);
		set_text(it->expected, sizeof(it->expected),
			 pg_backing_name(cl->backing));
		if (!pg) {
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
	}
}

static const char *verdict_name(enum verdict v)
{
	return v == V_YES ? "yes" : v == V_NO ? "no" : "n/a";
}

int verify_output(const struct run *run, const struct env *env, FILE *out)
{
	struct check c = { .n = 0 };
	unsigned int i, differ = 0, compared = 0;
	int code;

	check_mode(&c, run);
	check_pools(&c, run->facts);
	check_clusters(&c, run->facts);
	for (i = 0; i < c.n; i++) {
		differ += c.items[i].verdict == V_NO;
		compared += c.items[i].verdict != V_NA;
	}
	code = run->decision.bad_input ? EXIT_BAD_INPUT :
	       differ ? EXIT_DIFFER : EXIT_OK;
	if (env->json) {
		fputs("{\"items\":[", out);
		for (i = 0; i < c.n; i++) {
			const struct item *it = &c.items[i];

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
			fputc('}', out);
		}
		fprintf(out, "],\"compared\":%u,\"differ\":%u,\"exit_code\":%d}\n",
			compared, differ, code);
		return code;
	}
	fprintf(out, "%-36s %-10s %-10s %-9s %s\n", "item", "expected", "actual",
		"compliant", "note");
	for (i = 0; i < c.n; i++) {
		const struct item *it = &c.items[i];
		char name[sizeof(it->name) * 4 + 1];

		/* Cluster names come from directories postgres owns. */
		text_escape(name, sizeof(name), it->name);
		fprintf(out, "%-36s %-10s %-10s %-9s ", name, it->expected,
			it->actual, verdict_name(it->verdict));
		text_escape_to(out, it->note);
		fputc('\n', out);
	}
	fprintf(out, "verify: %u of %u compared differ%s\n", differ, compared,
		run->decision.bad_input ? " (bad input: see diagnostics)" : "");
	return code;
}
