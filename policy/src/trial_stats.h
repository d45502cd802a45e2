/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arithmetic of a trial, kept pure (no clock, no kernel, no I/O) so
 * that the tests can feed it known windows: a seedable generator for the
 * block order and the bootstrap, and the comparison of the modes.
 */
#ifndef PREEMPT_POLICY_TRIAL_STATS_H
#define PREEMPT_POLICY_TRIAL_STATS_H

#include <stdbool.h>
#include <stdint.h>

/* The kernel lists at most four modes. */
#define TRIAL_MAX_MODES		4
#define TRIAL_MAX_ROUNDS	200
/* Two-sided 95 % interval, and 80 % power on top of it for the MDE. */
#define TRIAL_Z_INTERVAL	1.959964
#define TRIAL_Z_POWER		0.841621

/* splitmix64: small, well mixed, and the same sequence on every machine. */
struct trial_rng {
	uint64_t state;
};

void trial_rng_seed(struct trial_rng *r, uint64_t seed);
uint64_t trial_rng_next(struct trial_rng *r);
/* Uniform in [0, @n); @n > 0. */
unsigned int trial_rng_below(struct trial_rng *r, unsigned int n);
/* Fisher-Yates over @n items. */
void trial_shuffle(struct trial_rng *r, int *items, unsigned int n);

/*
 * One value per mode and round: the metric's rate (or latency) in the
 * window that mode had in that round.  Index 0 of a round is the
 * baseline mode, whatever order the windows ran in.
 */
struct trial_samples {
	unsigned int nmodes;
	unsigned int nrounds;	/* complete rounds */
	bool lower_is_better;
	double value[TRIAL_MAX_ROUNDS][TRIAL_MAX_MODES];
};

/* Mode @a against mode @b: > 1 when @a is better, whichever way is better. */
struct trial_effect {
	double ratio;		/* point estimate from the means of all rounds */
	double lo, hi;		/* bootstrap percentile interval of the ratio */
	double se;		/* bootstrap standard deviation of the ratio */
	/*
	 * The smallest effect (fraction, 0.05 = 5 %) that these rounds
	 * would resolve with 80 % power at the noise seen.
	 */
	double mde;
	/*
	 * Rounds in all that would resolve the effect seen (its interval
	 * clearing the minimum effect): 0 when it already does, -1 when the
	 * effect seen is not larger than the minimum effect (no number of
	 * rounds makes it one).
	 */
	long rounds_needed;
	bool better;		/* interval wholly above 1 + minimum effect */
	bool worse;		/* interval wholly below 1 - minimum effect */
};

struct trial_analysis {
	/* effect[a][b]: mode a against mode b (a != b) */
	struct trial_effect effect[TRIAL_MAX_MODES][TRIAL_MAX_MODES];
	/*
	 * The mode (index) better than every other one by more than the
	 * minimum effect, or -1: no difference detectable at this noise.
	 */
	int winner;
};

/*
 * Compare every pair of modes by a bootstrap over rounds (a round's
 * windows are resampled together, so drift of the load between rounds
 * does not count as a difference between the modes; the percentile
 * interval widened for few rounds by Student's t).  @min_effect is a
 * fraction (0.03 = 3 %), @resamples at least 100.  Returns 0, or -EINVAL
 * for fewer than two modes or rounds, a value that is not a positive
 * finite number, or a bad parameter.
 */
int trial_analyse(const struct trial_samples *s, double min_effect,
		  unsigned int resamples, uint64_t seed,
		  struct trial_analysis *out);

#endif
