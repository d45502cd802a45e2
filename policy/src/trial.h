/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trial: measure the preemption modes under the machine's own load,
 * switching at run time in randomized blocks, and keep the one that wins
 * by more than a minimum effect (see preempt-policy(8), TRIAL).
 */
#ifndef PREEMPT_POLICY_TRIAL_H
#define PREEMPT_POLICY_TRIAL_H

#include <stdio.h>

#include "env.h"

struct run;

/*
 * The trial command with its own options in @argv (@argv[0] is "trial").
 * Restores the mode it found on every way out it can see (signals
 * included).  Returns an enum exit_code.
 */
int trial_command(const struct run *run, const struct env *env, int argc,
		  char **argv);

#endif
