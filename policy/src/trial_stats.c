// SPDX-License-Identifier: GPL-2.0
/*
 * Trial statistics: block order, bootstrap intervals, the minimum
 * detectable effect.  No I/O and no clock: a seed gives one answer.
 */
#include "trial_stats.h"

#include <errno.h>
#include <math.h>	/* isfinite() only: the tool links no libm */
#include <stdlib.h>
#include <string.h>

/* More rounds than this would be a trial of weeks: report it as such. */
#define ROUNDS_NEEDED_CAP 1000000L

void trial_rng_seed(struct trial_rng *r, uint64_t seed)
{
	r->state = seed;
}

uint64_t trial_rng_next(struct trial_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned int trial_rng_below(struct trial_rng *r, unsigned int n)
{
	/* Lemire's multiply-shift: no division, bias below 2^-32. */
	return (unsigned int)(((trial_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

void trial_shuffle(struct trial_rng *r, int *items, unsigned int n)
{
	unsigned int i;

	for (i = n; i > 1; i--) {
		unsigned int j = trial_rng_below(r, i);
		int t = items[i - 1];

		items[i - 1] = items[j];
		items[j] = t;
	}
}

static double abs_of(double x)
{
	return x < 0 ? -x : x;
}

/* Newton's iteration: the tool links no libm, and this runs a dozen times. */
static double sqrt_of(double x)
{
	double y = x > 1 ? x : 1;
	int i;

	if (!(x > 0))
		return 0;
	for (i = 0; i < 200; i++) {
		double next = 0.5 * (y + x / y);

		if (next >= y)
			break;
		y = next;
	}
	return y;
}

#define LN2 0.69314718055994530942

/* Natural logarithm of @x > 0: halve into [0.75, 1.5], then atanh's series. */
static double ln_of(double x)
{
	double y, y2, term, sum = 0;
	int k = 0, n;

	while (x > 1.5) {
		x /= 2;
		k++;
	}
	while (x < 0.75) {
		x *= 2;
		k--;
	}
	y = (x - 1) / (x + 1);
	y2 = y * y;
	term = y;
	/* |y| <= 0.2: 30 terms are far below a double's precision. */
	for (n = 1; n < 60; n += 2) {
		sum += term / n;
		term *= y2;
	}
	return 2 * sum + k * LN2;
}

/* e to the @x, |x| < 700: a power of two times Taylor's series. */
static double exp_of(double x)
{
	int k = (int)(x / LN2 + (x < 0 ? -0.5 : 0.5)), n;
	double r = x - k * LN2, term = 1, sum = 1;

	for (n = 1; n < 30; n++) {
		term *= r / n;
		sum += term;
	}
	for (; k > 0; k--)
		sum *= 2;
	for (; k < 0; k++)
		sum /= 2;
	return sum;
}

/*
 * Student's t, two-sided 95 %, for n - 1 degrees of freedom over the
 * normal's 1.96, times sqrt(n / (n - 1)): a bootstrap over a handful of
 * rounds sees less spread than there is (it leaves out that variance
 * factor and treats the rounds as the whole population), so its
 * percentile interval is too narrow by about this much.
 */
static double small_sample_widening(unsigned int n)
{
	static const double t975[] = {
		0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
		2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
		2.052, 2.048, 2.045, 2.042,
	};
	unsigned int df = n - 1;
	double t;

	if (df < sizeof(t975) / sizeof(t975[0]))
		t = t975[df];
	else	/* Cornish-Fisher's first term: within 0.1 % past 30 */
		t = TRIAL_Z_INTERVAL + (TRIAL_Z_INTERVAL * TRIAL_Z_INTERVAL *
			TRIAL_Z_INTERVAL + TRIAL_Z_INTERVAL) / (4.0 * df);
	return t / TRIAL_Z_INTERVAL * sqrt_of((double)n / (double)df);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Linear interpolation between the order statistics of sorted @v. */
static double quantile(const double *v, unsigned int n, double p)
{
	double pos = p * (double)(n - 1);
	unsigned int i = (unsigned int)pos;
	double frac = pos - (double)i;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + frac * (v[i + 1] - v[i]);
}

/* @a against @b from two means, oriented so that > 1 is better for @a. */
static double ratio_of(double mean_a, double mean_b, bool lower_is_better)
{
	return lower_is_better ? mean_b / mean_a : mean_a / mean_b;
}

static void pair_means(const struct trial_samples *s, const unsigned int *pick,
		       unsigned int a, unsigned int b, double *ma, double *mb)
{
	double sa = 0, sb = 0;
	unsigned int i;

	for (i = 0; i < s->nrounds; i++) {
		unsigned int r = pick ? pick[i] : i;

		sa += s->value[r][a];
		sb += s->value[r][b];
	}
	*ma = sa / s->nrounds;
	*mb = sb / s->nrounds;
}

static void rounds_needed(struct trial_effect *e, unsigned int nrounds,
			  double min_effect)
{
	double margin = abs_of(e->ratio - 1.0) - min_effect, need;

	if (e->better || e->worse) {
		e->rounds_needed = 0;
		return;
	}
	if (margin <= 0) {
		e->rounds_needed = -1;
		return;
	}
	/* The interval's half-width shrinks as 1/sqrt(rounds). */
	need = TRIAL_Z_INTERVAL * e->se / margin;
	need = (double)nrounds * need * need;
	if (need >= (double)ROUNDS_NEEDED_CAP) {
		e->rounds_needed = ROUNDS_NEEDED_CAP;
		return;
	}
	e->rounds_needed = (long)need + 1;
	if (e->rounds_needed <= (long)nrounds)
		e->rounds_needed = (long)nrounds + 1;
}

static void compare_pair(const struct trial_samples *s, unsigned int a,
			 unsigned int b, double min_effect,
			 unsigned int resamples, uint64_t seed,
			 unsigned int *pick, double *boot,
			 struct trial_effect *e)
{
	double ma, mb, sum = 0, sq = 0, var, widen, lr;
	struct trial_rng rng;
	unsigned int k, i;

	pair_means(s, NULL, a, b, &ma, &mb);
	e->ratio = ratio_of(ma, mb, s->lower_is_better);
	/* The same seed for every pair: all pairs see the same resamples. */
	trial_rng_seed(&rng, seed);
	for (k = 0; k < resamples; k++) {
		for (i = 0; i < s->nrounds; i++)
			pick[i] = trial_rng_below(&rng, s->nrounds);
		pair_means(s, pick, a, b, &ma, &mb);
		boot[k] = ratio_of(ma, mb, s->lower_is_better);
		sum += boot[k];
		sq += boot[k] * boot[k];
	}
	var = (sq - sum * sum / resamples) / (resamples - 1);
	widen = small_sample_widening(s->nrounds);
	e->se = sqrt_of(var) * sqrt_of((double)s->nrounds / (s->nrounds - 1));
	qsort(boot, resamples, sizeof(*boot), cmp_double);
	/* Widened on the log scale: a ratio's interval stays above 0. */
	lr = ln_of(e->ratio);
	e->lo = exp_of(lr - (lr - ln_of(quantile(boot, resamples, 0.025))) * widen);
	e->hi = exp_of(lr + (ln_of(quantile(boot, resamples, 0.975)) - lr) * widen);
	e->better = e->lo > 1.0 + min_effect;
	e->worse = e->hi < 1.0 - min_effect;
	e->mde = min_effect + (TRIAL_Z_INTERVAL + TRIAL_Z_POWER) * e->se;
	rounds_needed(e, s->nrounds, min_effect);
}

static int check_samples(const struct trial_samples *s, double min_effect,
			 unsigned int resamples)
{
	unsigned int r, m;

	if (s->nmodes < 2 || s->nmodes > TRIAL_MAX_MODES || s->nrounds < 2 ||
	    s->nrounds > TRIAL_MAX_ROUNDS || resamples < 100 ||
	    !(min_effect >= 0 && min_effect < 1))
		return -EINVAL;
	for (r = 0; r < s->nrounds; r++)
		for (m = 0; m < s->nmodes; m++)
			if (!isfinite(s->value[r][m]) || s->value[r][m] <= 0)
				return -EINVAL;
	return 0;
}

int trial_analyse(const struct trial_samples *s, double min_effect,
		  unsigned int resamples, uint64_t seed,
		  struct trial_analysis *out)
{
	unsigned int a, b, *pick;
	double *boot;
	int err;

	memset(out, 0, sizeof(*out));
	out->winner = -1;
	err = check_samples(s, min_effect, resamples);
	if (err)
		return err;
	pick = calloc(s->nrounds, sizeof(*pick));
	boot = calloc(resamples, sizeof(*boot));
	if (!pick || !boot) {
		free(pick);
		free(boot);
		return -ENOMEM;
	}
	for (a = 0; a < s->nmodes; a++)
		for (b = 0; b < s->nmodes; b++)
			if (a != b)
				compare_pair(s, a, b, min_effect, resamples,
					     seed, pick, boot,
					     &out->effect[a][b]);
	free(pick);
	free(boot);
	/* A winner beats every other mode; two cannot both do that. */
	for (a = 0; a < s->nmodes && out->winner < 0; a++) {
		bool beats_all = true;

		for (b = 0; b < s->nmodes; b++)
			if (a != b && !out->effect[a][b].better)
				beats_all = false;
		if (beats_all)
			out->winner = (int)a;
	}
	return 0;
}
