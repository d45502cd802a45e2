/* SPDX-License-Identifier: GPL-2.0 */
/* verify: expected against actual for the mode, the pools, each cluster. */
#ifndef PREEMPT_POLICY_VERIFY_H
#define PREEMPT_POLICY_VERIFY_H

#include <stdbool.h>
#include <stdio.h>

#include "env.h"
#include "report.h"

/*
 * Print the comparison (text, or JSON with env->json): a table, then a
 * footnote for each row that differs.  Returns verify_code(): items that
 * cannot be compared (not running, unknown) never make it fail.
 */
int verify_output(const struct run *run, const struct env *env, FILE *out);

/*
 * The status of verify and advise: 0 compliant (nothing to change), 6 a
 * difference (a change is required), 2 bad input, 7 both (bad input and
 * a difference: a script sees neither hidden behind the other).
 */
int verify_code(bool bad_input, bool differ);

#endif
