/* SPDX-License-Identifier: GPL-2.0 */
/* decide and explain output, as text or JSON. */
#ifndef PREEMPT_POLICY_REPORT_H
#define PREEMPT_POLICY_REPORT_H

#include <stdio.h>

#include "decide.h"

struct run {
	struct facts *facts;
	struct policy *policy;
	struct diag_list *policy_diags;
	struct decision decision;
};

/*
 * decide: first line "mode=M reason=\"...\"", for keep
 * "mode=keep (CURRENT) reason=\"...\"", then one line of key=value details.
 */
void report_decide_text(FILE *out, const struct run *run);
void report_explain_text(FILE *out, const struct run *run);
/* One JSON object; @explain adds facts, clusters and every rule. */
void report_json(FILE *out, const struct run *run, int exit_code,
		 int explain);
/* The live facts: running postmasters and large shared memory. */
void explain_live(FILE *out, const struct facts *f);
void json_live(FILE *out, const struct facts *f);
/* Build options, preempt= ignored, the rseq time-slice extension. */
void explain_features(FILE *out, const struct facts *f);
void json_features(FILE *out, const struct facts *f);
/* Diagnostics to @out as "preempt-policy: <diag>" lines. */
void report_diags(FILE *out, const struct run *run);

/* "none" or "keep (lazy)": the mode as the first line shows it. */
void format_decision_mode(const struct run *run, char *buf, size_t size);
/* Write @s between double quotes, escaping " and \ and control bytes. */
void quote_text(FILE *out, const char *s);

#endif
