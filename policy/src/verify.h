/* SPDX-License-Identifier: GPL-2.0 */
/* verify: expected against actual for the mode, the pools, each cluster. */
#ifndef PREEMPT_POLICY_VERIFY_H
#define PREEMPT_POLICY_VERIFY_H

#include <stdio.h>

#include "env.h"
#include "report.h"

/*
 * Print the comparison (text, or JSON with env->json).  Returns
 * EXIT_BAD_INPUT on bad input, else EXIT_DIFFER when any compared item
 * differs, else EXIT_OK; items that cannot be compared (not running,
 * unknown) never make it fail.
 */
int verify_output(const struct run *run, const struct env *env, FILE *out);

#endif
