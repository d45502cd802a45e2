/* SPDX-License-Identifier: GPL-2.0 */
/* From facts and policy to one mode and the reason for it. */
#ifndef PREEMPT_POLICY_DECIDE_H
#define PREEMPT_POLICY_DECIDE_H

#include <stdbool.h>

#include "facts.h"
#include "rules.h"

enum decision_source {
	SRC_DISABLED,	/* preempt.policy=off */
	SRC_ADMIN,	/* preempt= on the command line */
	SRC_FORCED,	/* preempt.policy=<mode> */
	SRC_FALLBACK,	/* bad input: keep the kernel's default */
	SRC_RULE,	/* a policy rule matched */
	SRC_DEFAULT,	/* no rule matched */
	SRC_STATE,	/* no rule matched; the state file still holds */
};

struct decision {
	int mode;			/* enum preempt_mode or MODE_KEEP */
	enum decision_source source;
	int rule;			/* index into policy->rules, or -1 */
	bool bad_input;			/* diagnostics were raised */
	/*
	 * preempt= on the command line is the one the tool's own GRUB
	 * snippet put there (facts.tool_cmdline_origin): the policy decides,
	 * not the admin, and advise tells how to take it back.
	 */
	bool tool_arg;
	/*
	 * What keep means here: the kernel's build default when it is known
	 * (so a change made earlier in this boot can be undone), else
	 * MODE_UNKNOWN: leave the current mode.
	 */
	int keep_mode;
	char reason[512];
};

/* Can the running kernel switch to @mode?  (Mode listed by the kernel.) */
enum mode_support { MODE_SUPPORTED, MODE_NOT_LISTED, MODE_LIST_UNKNOWN };

bool condition_matches(const struct condition *c, const struct facts *f);
bool rule_matches(const struct rule *r, const struct facts *f);

/*
 * Precedence: preempt.policy=off, then preempt= (the admin's choice), then
 * preempt.policy=<mode>, then bad input (fall back to keep), then the
 * rules in order, then the default.  @bad_input counts diagnostics from
 * the policy and the facts.
 */
void decide(const struct facts *f, const struct policy *p, bool bad_input,
	    struct decision *d);

enum mode_support decision_support(const struct facts *f,
				   const struct decision *d);

const char *decision_source_name(enum decision_source s);

#endif
