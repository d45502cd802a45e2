/* SPDX-License-Identifier: GPL-2.0 */
/* Exit codes, documented in preempt-policy(8) EXIT STATUS. */
#ifndef PREEMPT_POLICY_EXIT_CODES_H
#define PREEMPT_POLICY_EXIT_CODES_H

enum exit_code {
	EXIT_OK = 0,		/* decided / applied / nothing to do */
	EXIT_USAGE = 1,		/* bad command line */
	EXIT_BAD_INPUT = 2,	/* malformed config or postgresql.conf */
	EXIT_CANNOT = 3,	/* kernel cannot do the mode; nothing written */
	EXIT_WRITE_FAILED = 4,	/* write, read-back or mkimage failed */
	EXIT_DISABLED = 5,	/* preempt.policy=off (apply only) */
	EXIT_DIFFER = 6,	/* verify: differ; advise: changes required */
	EXIT_BAD_INPUT_DIFFER = 7,	/* 2 and 6 together (verify, advise) */
	EXIT_TRIAL_REFUSED = 8,	/* trial: container, lock, idle; nothing switched */
	EXIT_TRIAL_ABORTED = 9,	/* trial: stopped midway, the mode found put back */
};

#endif
