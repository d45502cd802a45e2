/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The decision reached after boot, kept for the next one in
 * ROOT/var/lib/preempt-policy/state: the mode, why, and the clusters that
 * ran without huge pages.  It holds while one of them is still configured
 * and still predicted to get no huge pages.
 */
#ifndef PREEMPT_POLICY_STATE_H
#define PREEMPT_POLICY_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "env.h"
#include "facts.h"

struct run;

/*
 * Parse the text of a state file (@len bytes, need not be NUL-terminated)
 * into @st, which it fills whole (present stays false).  True when it is
 * well-formed: only mode=, reason=, cluster= lines, comments and blank
 * lines, a known mode and one to STATE_MAX_CLUSTERS clusters; else
 * st->bad is set (the first STATE_MAX_CLUSTERS clusters are kept).  A
 * value holding a NUL byte is not taken; the first such line sets
 * st->bad_line and st->bad_key ("cluster=").
 */
bool state_parse(struct saved_state *st, const char *buf, size_t len);
/* Read the state file under env->root into f->state; never fails. */
void facts_gather_state(struct facts *f, const struct env *env);
/* The first recorded cluster that still lacks huge pages, or NULL. */
const char *state_holds(const struct facts *f);
/*
 * record: write the state when the decision is a mode chosen by a rule
 * and clusters run in base pages; remove it otherwise.  Atomic (temporary
 * file, fsync, rename).  Returns an enum exit_code.
 */
int state_record(const struct run *run, const struct env *env, FILE *out);
/* clear-state: remove the file; absent is fine. */
int state_clear(const struct env *env, FILE *out);

#endif
