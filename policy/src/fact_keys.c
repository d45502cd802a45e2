// SPDX-License-Identifier: GPL-2.0
/* The named facts rules can test, and how each is computed. */
#include "fact_keys.h"
#include "size.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

struct fact_key_info {
	const char *name;
	enum fact_type type;
	const char *help;
};

static const struct fact_key_info key_info[FACT_KEY_COUNT] = {
	[FACT_ARCH] = { "arch", FACT_WORD, "machine architecture (uname -m)" },
	[FACT_CPUS] = { "cpus", FACT_COUNT, "online CPUs" },
	[FACT_MEM_TOTAL] = { "mem_total", FACT_SIZE, "MemTotal" },
	[FACT_KERNEL] = { "kernel", FACT_WORD,
			  "patched, unpatched or unknown" },
	[FACT_CURRENT_MODE] = { "current_mode", FACT_WORD,
				"preemption mode running now" },
	[FACT_HUGETLB_TOTAL] = { "hugetlb_total", FACT_SIZE,
				 "hugetlb pages reserved, all sizes" },
	[FACT_HUGETLB_FREE] = { "hugetlb_free", FACT_SIZE,
				"hugetlb pages free, all sizes" },
	[FACT_HUGETLB_PAGES] = { "hugetlb_pages", FACT_COUNT,
				 "reserved pages of the default size" },
	[FACT_THP_ENABLED] = { "thp_enabled", FACT_WORD,
			       "transparent_hugepage/enabled" },
	[FACT_THP_SHMEM_ENABLED] = { "thp_shmem_enabled", FACT_WORD,
				     "transparent_hugepage/shmem_enabled" },
	[FACT_SHM_WARN_COUNT] = { "shm_warn_count", FACT_COUNT,
				  "large shmem populated without huge pages" },
	[FACT_WORKLOAD] = { "workload", FACT_WORD, "postgresql or none" },
	[FACT_PG_CLUSTERS] = { "pg_clusters", FACT_COUNT,
			       "PostgreSQL clusters found" },
	[FACT_PG_SHARED_MEMORY] = { "pg_shared_memory", FACT_SIZE,
				    "estimated shared memory, all clusters" },
	[FACT_PG_SHM_WITHOUT_HUGEPAGES] = {
		"pg_shm_without_hugepages", FACT_SIZE,
		"shared memory of clusters that get no huge pages" },
	[FACT_PG_HUGEPAGES_NEEDED] = { "pg_hugepages_needed", FACT_COUNT,
				       "huge pages the clusters would use" },
	[FACT_PG_RUNNING] = { "pg_running", FACT_COUNT,
			      "running postmasters (live, /proc)" },
	[FACT_PG_LIVE_SHM_WITHOUT_HUGEPAGES] = {
		"pg_live_shm_without_hugepages", FACT_SIZE,
		"running postmasters' segments in base pages (live)" },
	[FACT_PG_LIVE_FALLBACKS] = {
		"pg_live_fallbacks", FACT_COUNT,
		"huge_pages=try clusters running without hugetlb (live)" },
	[FACT_SHM_LIVE_LARGE] = {
		"shm_live_large", FACT_COUNT,
		"shared memory objects >= threshold, any process (live)" },
	[FACT_SHM_LIVE_WITHOUT_HUGEPAGES] = {
		"shm_live_without_hugepages", FACT_SIZE,
		"the same, in base pages (live)" },
	[FACT_PREEMPT_ALL_MODES] = {
		"preempt_all_modes", FACT_WORD,
		"opt-in none/voluntary: built or not-built (/boot/config)" },
	[FACT_RSEQ_SLICE_EXT] = {
		"rseq_slice_ext", FACT_WORD,
		"rseq time-slice extension: enabled, disabled, not-built" },
	[FACT_PREEMPT_IGNORED] = {
		"preempt_ignored", FACT_COUNT,
		"1 when the kernel ignored preempt= on the command line" },
	[FACT_TRIAL_MODE] = {
		"trial_mode", FACT_WORD,
		"a recorded trial's winner, or keep (trial --record)" },
};

const char *fact_key_name(enum fact_key k)
{
	return k < FACT_KEY_COUNT ? key_info[k].name : "?";
}

enum fact_type fact_key_type(enum fact_key k)
{
	return k < FACT_KEY_COUNT ? key_info[k].type : FACT_WORD;
}

const char *fact_key_help(enum fact_key k)
{
	return k < FACT_KEY_COUNT ? key_info[k].help : "";
}

enum fact_key fact_key_from_span(const char *s, size_t len)
{
	int k;

	for (k = 0; k < FACT_KEY_COUNT; k++)
		if (span_equals(s, len, key_info[k].name))
			return (enum fact_key)k;
	return FACT_KEY_COUNT;
}

const char *fact_word_canonical(const char *word)
{
	if (strcmp(word, "arm64") == 0)
		return "aarch64";
	if (strcmp(word, "amd64") == 0 || strcmp(word, "x86-64") == 0)
		return "x86_64";
	return word;
}

static void set_number(struct fact_value *v, uint64_t n)
{
	v->known = true;
	v->number = n;
}

static void set_word(struct fact_value *v, const char *w)
{
	if (!w[0])
		return;
	v->known = true;
	copy_bounded(v->word, sizeof(v->word), w, strlen(w));
}

static void hugetlb_sum(const struct facts *f, bool free_only,
			struct fact_value *v)
{
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < f->npools; i++) {
		long long n = free_only ? f->pools[i].free : f->pools[i].nr;

		if (n > 0)
			total += (uint64_t)n * f->pools[i].page_size;
	}
	/* No hugepages directory at all means hugetlb is absent: 0, known. */
	set_number(v, total);
}

static void default_pool_pages(const struct facts *f, struct fact_value *v)
{
	unsigned int i;

	for (i = 0; i < f->npools; i++) {
		if (f->pools[i].page_size == f->default_hugepage_size) {
			set_number(v, (uint64_t)f->pools[i].nr);
			return;
		}
	}
	set_number(v, 0);
}

/*
 * Live facts are unknown where /proc shows no process at all (a fixture
 * tree without PID directories): 0 would claim that nothing runs.
 */
static void live_fact(const struct facts *f, enum fact_key k,
		      struct fact_value *v)
{
	uint64_t n = 0;
	unsigned int i;

	if (!f->live_scanned)
		return;
	switch (k) {
	case FACT_PG_RUNNING:
		n = f->nlive_pgs;
		break;
	case FACT_PG_LIVE_SHM_WITHOUT_HUGEPAGES:
		for (i = 0; i < f->nlive_pgs; i++)
			if (f->live_pgs[i].seg.smaps_read &&
			    f->live_pgs[i].seg.backing == PG_BACKING_4K)
				n += f->live_pgs[i].seg.size;
		break;
	case FACT_PG_LIVE_FALLBACKS:
		for (i = 0; i < f->nlive_pgs; i++) {
			const struct live_pg *pg = &f->live_pgs[i];

			if (pg->cluster >= 0 && pg->seg.smaps_read &&
			    f->clusters[pg->cluster].huge_pages == PG_HUGE_TRY &&
			    pg->seg.backing != PG_BACKING_HUGETLB)
				n++;
		}
		break;
	case FACT_SHM_LIVE_LARGE:
		n = f->nlive_shms;
		break;
	case FACT_SHM_LIVE_WITHOUT_HUGEPAGES:
		for (i = 0; i < f->nlive_shms; i++)
			if (f->live_shms[i].smaps_read &&
			    f->live_shms[i].backing == PG_BACKING_4K)
				n += f->live_shms[i].size;
		break;
	default:
		return;
	}
	set_number(v, n);
}

void fact_get(const struct facts *f, enum fact_key k, struct fact_value *v)
{
	memset(v, 0, sizeof(*v));
	switch (k) {
	case FACT_ARCH:
		set_word(v, f->arch);
		break;
	case FACT_CPUS:
		if (f->cpus > 0)
			set_number(v, (uint64_t)f->cpus);
		break;
	case FACT_MEM_TOTAL:
		if (f->mem_total)
			set_number(v, f->mem_total);
		break;
	case FACT_KERNEL:
		set_word(v, kernel_support_name(f->support));
		break;
	case FACT_CURRENT_MODE:
		if (f->modes.current != MODE_UNKNOWN)
			set_word(v, mode_name(f->modes.current));
		break;
	case FACT_HUGETLB_TOTAL:
		hugetlb_sum(f, false, v);
		break;
	case FACT_HUGETLB_FREE:
		hugetlb_sum(f, true, v);
		break;
	case FACT_HUGETLB_PAGES:
		default_pool_pages(f, v);
		break;
	case FACT_THP_ENABLED:
		set_word(v, f->thp_enabled);
		break;
	case FACT_THP_SHMEM_ENABLED:
		set_word(v, f->thp_shmem_enabled);
		break;
	case FACT_SHM_WARN_COUNT:
		if (f->shm_warn_count >= 0)
			set_number(v, (uint64_t)f->shm_warn_count);
		break;
	case FACT_WORKLOAD:
		set_word(v, f->nclusters ? "postgresql" : "none");
		break;
	case FACT_PG_CLUSTERS:
		set_number(v, f->nclusters);
		break;
	case FACT_PG_SHARED_MEMORY:
		set_number(v, f->pg_shared_memory);
		break;
	case FACT_PG_SHM_WITHOUT_HUGEPAGES:
		set_number(v, f->pg_shm_without_hugepages);
		break;
	case FACT_PG_HUGEPAGES_NEEDED:
		set_number(v, f->pg_hugepages_needed);
		break;
	case FACT_PG_RUNNING:
	case FACT_PG_LIVE_SHM_WITHOUT_HUGEPAGES:
	case FACT_PG_LIVE_FALLBACKS:
	case FACT_SHM_LIVE_LARGE:
	case FACT_SHM_LIVE_WITHOUT_HUGEPAGES:
		live_fact(f, k, v);
		break;
	case FACT_PREEMPT_ALL_MODES:
		if (f->cfg_all_modes >= 0)
			set_word(v, f->cfg_all_modes ? "built" : "not-built");
		break;
	case FACT_RSEQ_SLICE_EXT:
		set_word(v, rseq_slice_state(f));
		break;
	case FACT_PREEMPT_IGNORED:
		if (f->cmdline_read)
			set_number(v, preempt_ignored_reason(f) ? 1 : 0);
		break;
	case FACT_TRIAL_MODE:
		/* Only while it holds: expired or another kernel is unknown. */
		if (f->trial.holds)
			set_word(v, mode_name(f->trial.mode));
		break;
	case FACT_KEY_COUNT:
		break;
	}
}

void fact_format(enum fact_key k, const struct fact_value *v, char *buf,
		 size_t size)
{
	if (!v->known) {
		snprintf(buf, size, "unknown");
		return;
	}
	switch (fact_key_type(k)) {
	case FACT_SIZE:
		format_size(v->number, buf, size);
		break;
	case FACT_COUNT:
		snprintf(buf, size, "%llu", (unsigned long long)v->number);
		break;
	case FACT_WORD:
		snprintf(buf, size, "%s", v->word);
		break;
	}
}
