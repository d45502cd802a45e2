/* SPDX-License-Identifier: GPL-2.0 */
/* advise: huge page remedies per PostgreSQL cluster, and the mode after. */
#ifndef PREEMPT_POLICY_ADVISE_H
#define PREEMPT_POLICY_ADVISE_H

#include <stddef.h>
#include <stdio.h>

#include "env.h"
#include "report.h"

/* The kernel's MAX_PAGE_ORDER is 10 on the test architectures. */
#define BUDDY_ORDERS	11

/* Can the hugetlb pool grow to its target on the running kernel? */
enum advise_growth {
	GROW_NOT_NEEDED,	/* the live pool already holds the pages */
	GROW_NOW,		/* enough free blocks of that size now */
	GROW_LIKELY,		/* enough MemAvailable: after compaction */
	GROW_BOOT,		/* reserve with hugepages= at boot */
};

struct advice_cluster {
	const struct pg_cluster *cluster;	/* NULL: a postmaster not configured */
	const struct live_pg *live;		/* NULL: not running */
	bool from_segment;	/* pages from the live segment, else the model */
	uint64_t size;		/* segment or modelled shared memory, bytes */
	enum pg_backing backing;	/* live, else predicted */
	uint64_t page_size;	/* huge page size it uses; 0: no hugetlb */
	uint64_t pages;		/* as shared_memory_size_in_huge_pages */
	bool required;		/* pg_cluster_need(), or a large unconfigured one */
	bool done;		/* in hugetlb pages now, or predicted at its start */
};

struct advice_pool {
	uint64_t page_size;
	uint64_t pages;		/* the clusters' total */
	uint64_t required_pages;	/* of the clusters that need them */
	bool change;		/* the required pages are not there, now or at boot */
	long long live;		/* nr_hugepages now */
	long long predicted;	/* at the next boot */
	char origin[POOL_ORIGIN_LEN];
	bool is_default;	/* vm.nr_hugepages sets it */
	long long free_blocks;	/* buddyinfo, -1 unknown */
	uint64_t mem_available;
	enum advise_growth growth;
};

struct advice {
	struct advice_cluster clusters[MAX_CLUSTERS + MAX_LIVE_PGS];
	unsigned int nclusters;
	struct advice_pool pools[MAX_HUGEPAGE_POOLS];
	unsigned int npools;
	struct decision after;	/* the policy's decision once followed */
	int after_keep_mode;
	bool after_known;
	unsigned int buddyinfo_bad_line;	/* 0, or its first malformed line */
	/* The tool's preempt= on the command line is no longer wanted. */
	bool cmdline_remove;
	/* Something must change: a cluster or a pool is not as it needs. */
	bool changes_required;
};

/*
 * What a cluster needs, the one answer verify and advise share: its
 * segment in huge pages when huge_pages = on, when the predicted pool is
 * meant for it (try and the pages are there), or when it is at least
 * the size the site cares about (facts.live_threshold: the kernel's
 * vm.shmem_hugepage_warn_bytes, else 1 GiB), whatever it is set to.
 */
struct pg_need {
	bool required;		/* hugetlb (or shmem THP where that applies) */
	enum pg_backing want;	/* hugetlb, thp, or the prediction when not required */
	bool from_segment;	/* size from the running segment, else the model */
	uint64_t size;		/* bytes */
	uint64_t page_size;	/* 0: the kernel has no hugetlb */
	uint64_t pages;		/* as shared_memory_size_in_huge_pages */
};

void pg_cluster_need(const struct facts *f, const struct pg_cluster *c,
		     struct pg_need *n);

void advise_plan(struct advice *a, const struct run *run,
		 const struct env *env);
/*
 * advise --apply: write the sysctl.d file that reserves the default pool
 * at boot where the root reserves too few, grow the live pool where
 * /proc/buddyinfo says it can, and record both for advise_revert().
 * Never a PostgreSQL file, never a restart.  An enum exit_code.
 */
int advise_apply(const struct run *run, const struct env *env, FILE *out);
/* revert: undo what the record says advise --apply changed, if unchanged. */
int advise_revert(const struct env *env, FILE *out);
/* Print the advice (text, or JSON with env->json); an enum exit_code. */
int advise_output(const struct run *run, const struct env *env, FILE *out);
const char *advise_growth_name(enum advise_growth g);
/*
 * Free blocks of 2^@order base pages or larger (each counted in blocks of
 * that order) in /proc/buddyinfo text of @len bytes, ZONE_DMA left out;
 * 0 when @order is past the buddy lists.  Counts of 2^40 or more are
 * taken for garbage and skipped.  A count that does not fit in 64 bits
 * (in any zone) makes the text malformed: -1, and *@bad_line (when not
 * NULL) is its line number, else 0.
 */
long long buddyinfo_free_blocks(const char *buf, size_t len,
				unsigned int order, unsigned int *bad_line);

#endif
