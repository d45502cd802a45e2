/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trial's result kept for the next boot (trial --record), in
 * ROOT/var/lib/preempt-policy/trial beside the state file.  It holds
 * until it expires, on the kernel release it was measured on, while the
 * kernel lists its mode.  One key=value per line:
 *
 *   mode=none		(the winner, or keep: no difference detectable)
 *   baseline=lazy
 *   metric=pg-commits
 *   effect=+5.10		(percent, the winner against the baseline)
 *   interval=+3.20,+7.00	(its 95 % bootstrap interval, percent)
 *   rounds=6
 *   date=1765150000		(seconds since the epoch)
 *   expires=1767742000
 *   kernel=7.0.0-preempt
 */
#ifndef PREEMPT_POLICY_TRIAL_RECORD_H
#define PREEMPT_POLICY_TRIAL_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "env.h"

#define TRIAL_METRIC_NAME_LEN	128
#define TRIAL_KERNEL_LEN	65

struct trial_record {
	bool present;		/* the file exists */
	bool bad;		/* malformed: ignored, diagnosed */
	bool holds;		/* not expired, same kernel, mode listed */
	int mode;		/* a kernel mode, or MODE_KEEP */
	int baseline;
	char metric[TRIAL_METRIC_NAME_LEN];
	double effect, lo, hi;	/* percent */
	unsigned int rounds;
	long long date, expires;
	char kernel[TRIAL_KERNEL_LEN];
	const char *why_not;	/* why a well-formed record does not hold */
};

/*
 * Parse the text of a trial file (@len bytes) into @rec (present and
 * holds stay false).  True when well-formed: known keys only, each value
 * valid, mode, baseline, date, expires and kernel present.
 */
bool trial_record_parse(struct trial_record *rec, const char *buf,
			size_t len);

/* Write @rec atomically to ROOT/VAR_TRIAL_FILE; 0 or -errno. */
int trial_record_write(const struct trial_record *rec, const struct env *env);

struct facts;
/*
 * Read ROOT/VAR_TRIAL_FILE into f->trial and decide whether it holds now
 * for the running kernel (@f's kernel facts gathered first).  A malformed
 * file is a diagnostic; a missing one is nothing.
 */
void facts_gather_trial(struct facts *f, const struct env *env);

#endif
