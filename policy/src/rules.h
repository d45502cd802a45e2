/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy: ordered rules over named facts, first match wins, plus a
 * default, and where to find PostgreSQL clusters outside Debian's layout.
 * Format documented in preempt-policy.conf(5).
 */
#ifndef PREEMPT_POLICY_RULES_H
#define PREEMPT_POLICY_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "env.h"
#include "fact_keys.h"
#include "bounds.h"

enum cmp_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

struct condition {
	bool always;
	enum fact_key key;
	enum cmp_op op;
	uint64_t number;
	char word[NAME_LEN];
};

struct rule {
	char name[NAME_LEN];
	struct condition conds[MAX_CONDITIONS];
	unsigned int nconds;
	int mode;			/* enum preempt_mode, MODE_KEEP allowed */
	char origin[PATH_LEN + 16];	/* "file:line" */
};

/* What the run after a workload starts (after-start) may do. */
enum after_start { AFTER_RECORD, AFTER_OFF, AFTER_APPLY };

struct policy {
	struct rule rules[MAX_RULES];
	unsigned int nrules;
	int default_mode;
	char default_origin[PATH_LEN + 16];
	char pg_confs[MAX_PG_PATHS][PATH_LEN];	/* postgres-conf = */
	unsigned int npg_confs;
	char pgdatas[MAX_PG_PATHS][PATH_LEN];	/* pgdata = */
	unsigned int npgdatas;
	enum after_start after_start;	/* after-start = off | record | apply */
	bool builtin;			/* no file found, built-in text used */
	unsigned int nfiles;
	char files[MAX_POLICY_FILES][PATH_LEN];
	unsigned int errors;		/* any: the policy is not trusted */
};

/*
 * The built-in policy: the same rules (none) and default as the shipped
 * preempt-policy.conf, whose comments say why; test_rules.c checks it.
 */
extern const char builtin_policy_text[];

void policy_init(struct policy *p);

/* Parse one file's text into @p (appending).  Returns errors added. */
unsigned int policy_parse_text(struct policy *p, const char *text, size_t len,
			       const char *filename, struct diag_list *d);

/*
 * Load the policy as the command line asks: --config FILE alone, else
 * ROOT/etc/preempt-policy.conf then ROOT/etc/preempt-policy.d/NAME.conf in
 * name order, else the built-in text.
 */
void policy_load(struct policy *p, const struct env *env, struct diag_list *d);

const char *cmp_op_name(enum cmp_op op);
/* "pg_shm_without_hugepages >= 1GiB" */
void condition_format(const struct condition *c, char *buf, size_t size);

#endif
