/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts by name, as rules refer to them and explain prints them.  Each key
 * has a type that fixes which values and comparisons a rule may use.
 */
#ifndef PREEMPT_POLICY_FACT_KEYS_H
#define PREEMPT_POLICY_FACT_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "facts.h"

enum fact_type {
	FACT_SIZE,	/* bytes; rule values take units */
	FACT_COUNT,	/* plain integer */
	FACT_WORD,	/* == and != only */
};

enum fact_key {
	FACT_ARCH,
	FACT_CPUS,
	FACT_MEM_TOTAL,
	FACT_KERNEL,
	FACT_CURRENT_MODE,
	FACT_HUGETLB_TOTAL,
	FACT_HUGETLB_FREE,
	FACT_HUGETLB_PAGES,
	FACT_THP_ENABLED,
	FACT_THP_SHMEM_ENABLED,
	FACT_SHM_WARN_COUNT,
	FACT_WORKLOAD,
	FACT_PG_CLUSTERS,
	FACT_PG_SHARED_MEMORY,
	FACT_PG_SHM_WITHOUT_HUGEPAGES,
	FACT_PG_HUGEPAGES_NEEDED,
	FACT_PG_RUNNING,
	FACT_PG_LIVE_SHM_WITHOUT_HUGEPAGES,
	FACT_PG_LIVE_FALLBACKS,
	FACT_SHM_LIVE_LARGE,
	FACT_SHM_LIVE_WITHOUT_HUGEPAGES,
	FACT_PREEMPT_ALL_MODES,
	FACT_RSEQ_SLICE_EXT,
	FACT_PREEMPT_IGNORED,
	FACT_TRIAL_MODE,
	FACT_KEY_COUNT,
};

struct fact_value {
	bool known;
	uint64_t number;	/* FACT_SIZE, FACT_COUNT */
	char word[NAME_LEN];	/* FACT_WORD */
};

const char *fact_key_name(enum fact_key k);
enum fact_type fact_key_type(enum fact_key k);
const char *fact_key_help(enum fact_key k);
/* Returns FACT_KEY_COUNT when @s names no fact. */
enum fact_key fact_key_from_span(const char *s, size_t len);

void fact_get(const struct facts *f, enum fact_key k, struct fact_value *out);
/* Printable value, "unknown" when not known. */
void fact_format(enum fact_key k, const struct fact_value *v, char *buf,
		 size_t size);

/* Words compare after mapping aliases (arm64 = aarch64, amd64 = x86_64). */
const char *fact_word_canonical(const char *word);

#endif
