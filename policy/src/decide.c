// SPDX-License-Identifier: GPL-2.0
/* The decision: command line overrides, then first matching rule. */
#include "decide.h"
#include "paths.h"
#include "state.h"
#include "size.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

const char *decision_source_name(enum decision_source s)
{
	static const char *const names[] = {
		[SRC_DISABLED] = "disabled", [SRC_ADMIN] = "cmdline",
		[SRC_FORCED] = "forced", [SRC_FALLBACK] = "fallback",
		[SRC_RULE] = "rule", [SRC_DEFAULT] = "default",
		[SRC_STATE] = "state",
	};

	return s <= SRC_STATE ? names[s] : "?";
}

static bool compare_numbers(uint64_t a, enum cmp_op op, uint64_t b)
{
	switch (op) {
	case OP_EQ:
		return a == b;
	case OP_NE:
		return a != b;
	case OP_LT:
		return a < b;
	case OP_LE:
		return a <= b;
	case OP_GT:
		return a > b;
	case OP_GE:
		return a >= b;
	}
	return false;
}

bool condition_matches(const struct condition *c, const struct facts *f)
{
	struct fact_value v;
	bool equal;

	if (c->always)
		return true;
	fact_get(f, c->key, &v);
	/* An unknown fact matches nothing, not even "!=": no guessing. */
	if (!v.known)
		return false;
	if (fact_key_type(c->key) != FACT_WORD)
		return compare_numbers(v.number, c->op, c->number);
	equal = strcmp(fact_word_canonical(v.word),
		       fact_word_canonical(c->word)) == 0;
	return c->op == OP_EQ ? equal : !equal;
}

bool rule_matches(const struct rule *r, const struct facts *f)
{
	unsigned int i;

	for (i = 0; i < r->nconds; i++)
		if (!condition_matches(&r->conds[i], f))
			return false;
	return r->nconds > 0;
}

/* "rule NAME (file:line): fact=value >= limit and ..." */
static void rule_reason(const struct rule *r, const struct facts *f,
			char *buf, size_t size)
{
	unsigned int i;

	snprintf(buf, size, "rule %s (%.300s):", r->name, r->origin);
	for (i = 0; i < r->nconds; i++) {
		const struct condition *c = &r->conds[i];
		char value[64], cond[128];
		struct fact_value v;
		size_t used = strlen(buf);

		condition_format(c, cond, sizeof(cond));
		if (c->always) {
			snprintf(buf + used, size - used, " always");
			continue;
		}
		fact_get(f, c->key, &v);
		fact_format(c->key, &v, value, sizeof(value));
		snprintf(buf + used, size - used, "%s %s (is %s)",
			 i ? " and" : "", cond, value);
	}
}

/*
 * "; hugetlb pool predicted from FILE:LINE (2MiB: 4300 pages, live 0)":
 * a decision made on a pool that is not there yet says where it comes from.
 */
static void add_pool_provenance(const struct facts *f, struct decision *d)
{
	char size[32];
	unsigned int i;

	for (i = 0; i < f->npools; i++) {
		const struct hugetlb_pool *p = &f->pools[i];
		size_t used = strlen(d->reason);

		if (!p->origin[0] || p->nr == p->live)
			continue;
		format_size(p->page_size, size, sizeof(size));
		snprintf(d->reason + used, sizeof(d->reason) - used,
			 "; hugetlb pool predicted from %s (%s: %lld pages, live %lld)",
			 p->origin, size, p->nr, p->live < 0 ? 0 : p->live);
	}
}

static void decide_on_facts(const struct facts *f, const struct policy *p,
			    bool bad_input, struct decision *d);

void decide(const struct facts *f, const struct policy *p, bool bad_input,
	    struct decision *d)
{
	decide_on_facts(f, p, bad_input, d);
	d->keep_mode = MODE_UNKNOWN;
	/* Not for preempt.policy=off: that run does nothing at all. */
	if (d->mode == MODE_KEEP && d->source != SRC_DISABLED &&
	    f->build_mode != MODE_UNKNOWN) {
		size_t used = strlen(d->reason);

		d->keep_mode = f->build_mode;
		snprintf(d->reason + used, sizeof(d->reason) - used,
			 "; keep is the kernel's build default %s (%.200s)",
			 mode_name(f->build_mode), f->build_mode_origin);
	}
	if (d->source == SRC_RULE || d->source == SRC_DEFAULT ||
	    d->source == SRC_STATE)
		add_pool_provenance(f, d);
	if (d->tool_arg) {
		size_t used = strlen(d->reason);

		snprintf(d->reason + used, sizeof(d->reason) - used,
			 "; preempt=%s on the command line is the tool's (%.200s), not the admin's",
			 mode_name(f->boot.admin_mode), f->tool_cmdline_origin);
	}
}

static void decide_on_facts(const struct facts *f, const struct policy *p,
			    bool bad_input, struct decision *d)
{
	const struct boot_args *b = &f->boot;
	const char *held;
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->rule = -1;
	d->bad_input = bad_input;
	if (b->policy_off) {
		d->mode = MODE_KEEP;
		d->source = SRC_DISABLED;
		snprintf(d->reason, sizeof(d->reason),
			 "disabled by preempt.policy=off on the kernel command line");
		return;
	}
	/*
	 * A preempt= that cmdline --format grub wrote is the tool's earlier
	 * choice, not the admin's: taken as the admin's, it would outlive
	 * its reason for ever (issue 33, item 8).
	 */
	d->tool_arg = b->admin_set && b->admin_mode != MODE_UNKNOWN &&
		      f->tool_cmdline_origin[0] &&
		      b->admin_mode == f->tool_cmdline_mode;
	if (b->admin_set && b->admin_mode != MODE_UNKNOWN && !d->tool_arg) {
		d->mode = b->admin_mode;
		d->source = SRC_ADMIN;
		snprintf(d->reason, sizeof(d->reason),
			 "admin's choice: preempt=%s on the kernel command line",
			 b->admin_value);
		return;
	}
	if (b->forced_mode != MODE_UNKNOWN) {
		d->mode = b->forced_mode;
		d->source = SRC_FORCED;
		snprintf(d->reason, sizeof(d->reason),
			 "forced by preempt.policy=%s on the kernel command line",
			 mode_name(b->forced_mode));
		return;
	}
	if (bad_input) {
		d->mode = MODE_KEEP;
		d->source = SRC_FALLBACK;
		snprintf(d->reason, sizeof(d->reason),
			 "bad input (see diagnostics): keeping the kernel's default");
		return;
	}
	for (i = 0; i < p->nrules; i++) {
		if (rule_matches(&p->rules[i], f)) {
			d->mode = p->rules[i].mode;
			d->source = SRC_RULE;
			d->rule = (int)i;
			rule_reason(&p->rules[i], f, d->reason,
				    sizeof(d->reason));
			return;
		}
	}
	/* The decision after the last boot, while its reason holds. */
	held = state_holds(f);
	if (held && f->state.mode != MODE_UNKNOWN) {
		d->mode = f->state.mode;
		d->source = SRC_STATE;
		snprintf(d->reason, sizeof(d->reason),
			 "state /%s: %s while cluster %.96s gets no huge pages (recorded: %.240s)",
			 VAR_STATE_FILE, mode_name(f->state.mode), held,
			 f->state.reason);
		return;
	}
	/* A trial measured on this kernel, until it expires. */
	if (f->trial.holds && f->trial.mode != MODE_KEEP) {
		d->mode = f->trial.mode;
		d->source = SRC_STATE;
		snprintf(d->reason, sizeof(d->reason),
			 "trial /%s: %s beat %s by %+.1f%% [%+.1f%%, %+.1f%%] (%.100s, %u rounds)",
			 VAR_TRIAL_FILE, mode_name(f->trial.mode),
			 mode_name(f->trial.baseline), f->trial.effect,
			 f->trial.lo, f->trial.hi, f->trial.metric,
			 f->trial.rounds);
		return;
	}
	d->mode = p->default_mode;
	d->source = SRC_DEFAULT;
	snprintf(d->reason, sizeof(d->reason), "no rule matched; default (%.400s)",
		 p->default_origin);
}

enum mode_support decision_support(const struct facts *f,
				   const struct decision *d)
{
	if (d->mode == MODE_KEEP)
		return MODE_SUPPORTED;
	if (!f->modes.available)
		return MODE_LIST_UNKNOWN;
	return mode_available(&f->modes, d->mode) ? MODE_SUPPORTED :
						     MODE_NOT_LISTED;
}
