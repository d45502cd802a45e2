// SPDX-License-Identifier: GPL-2.0
/* trial: the statistics, the parsers, the guards and the metric runner. */
#include "trial_guard.h"
#include "trial_metric.h"
#include "trial_record.h"
#include "trial_stats.h"
#include "modes.h"
#include "test_util.h"

#include <errno.h>
#include <signal.h>

/* A deterministic noise in [-1, 1) from its own generator. */
static double noise(struct trial_rng *r)
{
	return (double)(trial_rng_next(r) >> 11) / (double)(1ULL << 52) - 1.0;
}

/*
 * @rounds rounds of two modes: the baseline at 100, the other at
 * 100 * (1 + @effect), each window off by up to @spread (fraction).
 */
static void fill(struct trial_samples *s, unsigned int rounds, double effect,
		 double spread, uint64_t seed)
{
	struct trial_rng r;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	trial_rng_seed(&r, seed);
	s->nmodes = 2;
	s->nrounds = rounds;
	for (i = 0; i < rounds; i++) {
		s->value[i][0] = 100 * (1 + spread * noise(&r));
		s->value[i][1] = 100 * (1 + effect) * (1 + spread * noise(&r));
	}
}

static void test_rng_deterministic(void **state)
{
	struct trial_rng a, b;
	int items[4] = { 0, 1, 2, 3 }, seen = 0;
	unsigned int i;

	trial_rng_seed(&a, 42);
	trial_rng_seed(&b, 42);
	for (i = 0; i < 100; i++)
		assert_true(trial_rng_next(&a) == trial_rng_next(&b));
	/* splitmix64's first output for seed 0, as published. */
	trial_rng_seed(&a, 0);
	assert_true(trial_rng_next(&a) == 0xe220a8397b1dcdafULL);
	for (i = 0; i < 1000; i++)
		assert_true(trial_rng_below(&a, 3) < 3);
	trial_shuffle(&a, items, 4);
	for (i = 0; i < 4; i++)
		seen |= 1 << items[i];
	assert_int_equal(seen, 0xf);
}

static void test_shuffle_varies(void **state)
{
	struct trial_rng r;
	unsigned int i, first_is_zero = 0;

	/* Randomized blocks: each mode goes first about half the time. */
	trial_rng_seed(&r, 7);
	for (i = 0; i < 1000; i++) {
		int items[2] = { 0, 1 };

		trial_shuffle(&r, items, 2);
		first_is_zero += items[0] == 0;
	}
	assert_true(first_is_zero > 400 && first_is_zero < 600);
}

static void test_known_effect_wins(void **state)
{
	struct trial_samples s;
	struct trial_analysis an;

	fill(&s, 6, 0.10, 0.01, 1);
	assert_int_equal(trial_analyse(&s, 0.03, 2000, 9, &an), 0);
	assert_int_equal(an.winner, 1);
	assert_true(an.effect[1][0].ratio > 1.08 && an.effect[1][0].ratio < 1.12);
	assert_true(an.effect[1][0].lo > 1.03);
	assert_true(an.effect[1][0].better);
	assert_true(an.effect[0][1].worse);
	assert_int_equal(an.effect[1][0].rounds_needed, 0);
	/* The same seed gives the same interval. */
	{
		struct trial_analysis again;

		assert_int_equal(trial_analyse(&s, 0.03, 2000, 9, &again), 0);
		assert_true(again.effect[1][0].lo == an.effect[1][0].lo);
		assert_true(again.effect[1][0].hi == an.effect[1][0].hi);
	}
}

static void test_flat_keeps(void **state)
{
	struct trial_samples s;
	struct trial_analysis an;

	fill(&s, 8, 0.0, 0.01, 2);
	assert_int_equal(trial_analyse(&s, 0.03, 2000, 9, &an), 0);
	assert_int_equal(an.winner, -1);
	assert_false(an.effect[1][0].better);
	assert_false(an.effect[1][0].worse);
	/* Seen within the minimum effect: more rounds cannot make it one. */
	assert_int_equal(an.effect[1][0].rounds_needed, -1);
	assert_true(an.effect[1][0].mde < 0.06);
}

static void test_interval_stays_positive(void **state)
{
	struct trial_samples s;
	struct trial_analysis an;
	unsigned int i;

	/* Values spread over two orders of magnitude in two rounds. */
	fill(&s, 2, 0, 0, 1);
	s.value[0][0] = 1;
	s.value[1][0] = 100;
	s.value[0][1] = 50;
	s.value[1][1] = 2;
	assert_int_equal(trial_analyse(&s, 0.03, 1000, 1, &an), 0);
	for (i = 0; i < 2; i++) {
		const struct trial_effect *e = &an.effect[i][1 - i];

		assert_true(e->lo > 0 && e->lo <= e->ratio && e->ratio <= e->hi);
	}
	assert_int_equal(an.winner, -1);
}

static void test_noisy_few_rounds(void **state)
{
	struct trial_samples s;
	struct trial_analysis an;
	const struct trial_effect *e;

	/* An 8 % effect under 20 % noise and three rounds: not resolved. */
	fill(&s, 3, 0.08, 0.20, 3);
	assert_int_equal(trial_analyse(&s, 0.03, 2000, 9, &an), 0);
	assert_int_equal(an.winner, -1);
	e = &an.effect[1][0];
	assert_true(e->mde > 0.08);
	/* Widened for three rounds, on the log scale: still a ratio. */
	assert_true(e->lo > 0 && e->lo < e->ratio && e->ratio < e->hi);
	if (e->ratio - 1 > 0.03)
		assert_true(e->rounds_needed > 3);
	else
		assert_int_equal(e->rounds_needed, -1);
	/* The same effect over many rounds with less noise is resolved. */
	fill(&s, 40, 0.08, 0.05, 3);
	assert_int_equal(trial_analyse(&s, 0.03, 2000, 9, &an), 0);
	assert_int_equal(an.winner, 1);
}

static void test_rounds_needed_scale(void **state)
{
	struct trial_samples s;
	struct trial_analysis an;
	const struct trial_effect *e;
	double z;
	long need;

	/* 10 % under 30 % noise in 4 rounds: seen, not resolved. */
	fill(&s, 4, 0.10, 0.30, 11);
	assert_int_equal(trial_analyse(&s, 0.03, 2000, 5, &an), 0);
	assert_int_equal(an.winner, -1);
	e = &an.effect[1][0];
	assert_true(e->ratio - 1 > 0.03);
	need = e->rounds_needed;
	/* The interval's half-width shrinks with the square root of rounds. */
	z = TRIAL_Z_INTERVAL * e->se / (e->ratio - 1 - 0.03);
	assert_int_equal(need, (long)(4 * z * z) + 1);
	assert_true(need > 4);
	/* A quarter of them is not enough; twice that many resolve it. */
	fill(&s, (unsigned int)(need / 4 > 4 ? need / 4 : 4), 0.10, 0.30, 11);
	assert_int_equal(trial_analyse(&s, 0.03, 2000, 5, &an), 0);
	assert_int_equal(an.winner, -1);
	fill(&s, (unsigned int)(need * 2 > 200 ? 200 : need * 2), 0.10, 0.30, 11);
	assert_int_equal(trial_analyse(&s, 0.03, 2000, 5, &an), 0);
	assert_int_equal(an.winner, 1);
}

static void test_lower_is_better(void **state)
{
	struct trial_samples s;
	struct trial_analysis an;

	fill(&s, 5, 1.0, 0.02, 4);	/* mode 1 twice the latency */
	s.lower_is_better = true;
	assert_int_equal(trial_analyse(&s, 0.03, 1000, 1, &an), 0);
	assert_int_equal(an.winner, 0);
	assert_true(an.effect[0][1].ratio > 1.9);
}

static void test_three_modes(void **state)
{
	struct trial_samples s;
	struct trial_analysis an;
	unsigned int i;

	fill(&s, 6, 0.10, 0.01, 5);
	s.nmodes = 3;
	/* The third as good as the second: neither beats the other. */
	for (i = 0; i < 6; i++)
		s.value[i][2] = s.value[i][1] * 1.001;
	assert_int_equal(trial_analyse(&s, 0.03, 1000, 1, &an), 0);
	assert_int_equal(an.winner, -1);
	assert_true(an.effect[1][0].better);
	assert_true(an.effect[2][0].better);
	for (i = 0; i < 6; i++)
		s.value[i][2] = s.value[i][1] * 1.2;
	assert_int_equal(trial_analyse(&s, 0.03, 1000, 1, &an), 0);
	assert_int_equal(an.winner, 2);
}

static void test_analyse_rejects(void **state)
{
	struct trial_samples s;
	struct trial_analysis an;

	fill(&s, 1, 0.1, 0.01, 6);
	assert_int_equal(trial_analyse(&s, 0.03, 1000, 1, &an), -EINVAL);
	fill(&s, 4, 0.1, 0.01, 6);
	s.value[2][1] = 0;	/* an idle window */
	assert_int_equal(trial_analyse(&s, 0.03, 1000, 1, &an), -EINVAL);
	fill(&s, 4, 0.1, 0.01, 6);
	assert_int_equal(trial_analyse(&s, 1.5, 1000, 1, &an), -EINVAL);
	assert_int_equal(trial_analyse(&s, 0.03, 10, 1, &an), -EINVAL);
	s.nmodes = 1;
	assert_int_equal(trial_analyse(&s, 0.03, 1000, 1, &an), -EINVAL);
}

static int num(const char *s, double *v)
{
	return trial_parse_number(s, strlen(s), v);
}

static void test_parse_number(void **state)
{
	double v;

	assert_int_equal(num("123\n", &v), 0);
	assert_true(v == 123);
	assert_int_equal(num("  4.25 ", &v), 0);
	assert_true(v == 4.25);
	assert_int_equal(num("18446744073709551615", &v), 0);
	assert_int_equal(num("", &v), -EINVAL);
	assert_int_equal(num("\n", &v), -EINVAL);
	assert_int_equal(num("-5", &v), -EINVAL);
	assert_int_equal(num("1e5", &v), -EINVAL);
	assert_int_equal(num("nan", &v), -EINVAL);
	assert_int_equal(num("0x10", &v), -EINVAL);
	assert_int_equal(num("1.", &v), -EINVAL);
	assert_int_equal(num("1 2", &v), -EINVAL);
	assert_int_equal(num("12\n13\n", &v), -EINVAL);
}

static void test_parse_postmaster_pid(void **state)
{
	const char *ok = "1234\n/var/lib/postgresql/16/main\n1700000000\n5433\n/var/run/postgresql\n*\n  5433001 0\nready\n";
	char dir[64];
	unsigned int port;

	assert_int_equal(trial_parse_postmaster_pid(ok, strlen(ok), &port, dir,
						    sizeof(dir)), 0);
	assert_int_equal(port, 5433);
	assert_string_equal(dir, "/var/run/postgresql");
	assert_int_equal(trial_parse_postmaster_pid("1\n/d\n1\n5432\n\n", 14,
						    &port, dir, sizeof(dir)),
			 -EINVAL);
	assert_int_equal(trial_parse_postmaster_pid("1\n/d\n1\n70000\n/s\n", 17,
						    &port, dir, sizeof(dir)),
			 -EINVAL);
	assert_int_equal(trial_parse_postmaster_pid("1\n/d\n1\n5432\nrel\n", 17,
						    &port, dir, sizeof(dir)),
			 -EINVAL);
	assert_int_equal(trial_parse_postmaster_pid("1\n/d\n", 5, &port, dir,
						    sizeof(dir)), -EINVAL);
}

static const char good_record[] =
	"# comment\nmode=none\nbaseline=lazy\nmetric=pg-commits\neffect=+5.10\n"
	"interval=+3.20,+7.00\nrounds=6\ndate=1000\nexpires=2000\nkernel=7.0.0-x\n";

static void test_record_parse(void **state)
{
	struct trial_record rec;
	char text[512];

	assert_true(trial_record_parse(&rec, good_record, strlen(good_record)));
	assert_int_equal(rec.mode, MODE_NONE);
	assert_int_equal(rec.baseline, MODE_LAZY);
	assert_true(rec.effect > 5.09 && rec.effect < 5.11);
	assert_true(rec.lo > 3.19 && rec.hi < 7.01);
	assert_int_equal(rec.rounds, 6);
	assert_string_equal(rec.kernel, "7.0.0-x");
	snprintf(text, sizeof(text), "%s", good_record);
	memcpy(strstr(text, "mode=none"), "mode=keep", 9);
	assert_true(trial_record_parse(&rec, text, strlen(text)));
	assert_int_equal(rec.mode, MODE_KEEP);
	/* Each key that must be there, gone; each value made bad. */
	assert_false(trial_record_parse(&rec, "mode=none\n", 10));
	snprintf(text, sizeof(text), "%sextra=1\n", good_record);
	assert_false(trial_record_parse(&rec, text, strlen(text)));
	snprintf(text, sizeof(text), "%s", good_record);
	memcpy(strstr(text, "expires=2000"), "expires=0999", 12);
	assert_false(trial_record_parse(&rec, text, strlen(text)));
	snprintf(text, sizeof(text), "%s", good_record);
	memcpy(strstr(text, "interval=+3"), "interval=+9", 11);
	assert_false(trial_record_parse(&rec, text, strlen(text)));
	snprintf(text, sizeof(text), "%s", good_record);
	memcpy(strstr(text, "kernel=7"), "kernel=/", 8);
	assert_false(trial_record_parse(&rec, text, strlen(text)));
	snprintf(text, sizeof(text), "%s", good_record);
	memcpy(strstr(text, "mode=none"), "mode=nope", 9);
	assert_false(trial_record_parse(&rec, text, strlen(text)));
	snprintf(text, sizeof(text), "%s", good_record);
	*strstr(text, "effect=+5") = 'E';
	assert_false(trial_record_parse(&rec, text, strlen(text)));
}

static void test_p99(void **state)
{
	unsigned int ns[200];
	unsigned int i;

	for (i = 0; i < 200; i++)
		ns[i] = (200 - i) * 1000;	/* 1..200 us, reversed */
	assert_true(trial_latency_p99(ns, 200) == 198.0);
	ns[0] = 5000;
	assert_true(trial_latency_p99(ns, 1) == 5.0);
}

static void test_probe_runs(void **state)
{
	volatile sig_atomic_t stop = 0;
	double p99 = -1;

	/* The probe on this machine: a number, not a verdict on it. */
	assert_int_equal(trial_wakeup_probe(50, &stop, &p99), 0);
	assert_true(p99 >= 0);
	stop = 1;
	assert_int_equal(trial_wakeup_probe(50, &stop, &p99), -EINTR);
}

static void test_container_hints(void **state)
{
	char dir[64], root[128], proc[128], why[1200];
	struct env env = { 0 };

	make_temp_dir(dir, sizeof(dir));
	snprintf(root, sizeof(root), "%s/root", dir);
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	write_file_at(dir, "root/etc/.keep", "");
	write_file_at(dir, "proc/1/cgroup", "0::/init.scope\n");
	env.root = root;
	env.proc = proc;
	assert_null(trial_container_hint(&env, why, sizeof(why)));
	write_file_at(dir, "proc/1/environ", "HOME=/\0container=podman\0");
	/* write_file_at stops at the NUL: the variable is written by hand. */
	{
		char path[256];
		FILE *f;

		snprintf(path, sizeof(path), "%s/1/environ", proc);
		f = fopen(path, "w");
		assert_non_null(f);
		fwrite("HOME=/\0container=podman\0", 1, 24, f);
		fclose(f);
	}
	assert_non_null(trial_container_hint(&env, why, sizeof(why)));
	assert_non_null(strstr(why, "container=podman"));
	write_file_at(dir, "proc/1/environ", "HOME=/");
	assert_null(trial_container_hint(&env, why, sizeof(why)));
	write_file_at(dir, "proc/1/cgroup", "0::/system.slice/docker-abc.scope\n");
	assert_non_null(trial_container_hint(&env, why, sizeof(why)));
	write_file_at(dir, "proc/1/cgroup", "0::/init.scope\n");
	write_file_at(dir, "root/.dockerenv", "");
	assert_non_null(trial_container_hint(&env, why, sizeof(why)));
	assert_non_null(strstr(why, ".dockerenv"));
	remove_tree(dir);
}

static void test_lock(void **state)
{
	char dir[64];
	struct env env = { 0 };
	long holder;
	int a, b;

	make_temp_dir(dir, sizeof(dir));
	env.root = dir;
	a = trial_lock(&env, &holder);
	assert_true(a >= 0);
	/* flock is per open file: a second open in this process conflicts. */
	b = trial_lock(&env, &holder);
	assert_int_equal(b, -EWOULDBLOCK);
	assert_int_equal(holder, (long)getpid());
	close(a);
	b = trial_lock(&env, &holder);
	assert_true(b >= 0);
	close(b);
	remove_tree(dir);
}

static int sh(const char *cmd, unsigned int timeout_ms, char *out, size_t size,
	      int *status)
{
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	const struct trial_exec x = { .argv = argv, .mode = "none",
				      .window_ms = 1500,
				      .timeout_ms = timeout_ms };
	volatile sig_atomic_t stop = 0;

	return trial_exec_capture(&x, out, size, &stop, status);
}

static void test_exec_capture(void **state)
{
	char out[64];
	int status;

	assert_int_equal(sh("echo \"$PREEMPT_POLICY_MODE $PREEMPT_POLICY_WINDOW\"",
			    5000, out, sizeof(out), &status), 0);
	assert_string_equal(out, "none 1.500\n");
	assert_int_equal(sh("exit 3", 5000, out, sizeof(out), &status), -ECHILD);
	assert_int_equal(WEXITSTATUS(status), 3);
	assert_int_equal(sh("sleep 5", 200, out, sizeof(out), &status),
			 -ETIMEDOUT);
	/* A child that closes its output and lingers is still timed out. */
	assert_int_equal(sh("exec >&-; sleep 5", 200, out, sizeof(out), &status),
			 -ETIMEDOUT);
	assert_int_equal(sh("yes", 5000, out, sizeof(out), &status), -EFBIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_deterministic),
		cmocka_unit_test(test_shuffle_varies),
		cmocka_unit_test(test_known_effect_wins),
		cmocka_unit_test(test_flat_keeps),
		cmocka_unit_test(test_noisy_few_rounds),
		cmocka_unit_test(test_interval_stays_positive),
		cmocka_unit_test(test_rounds_needed_scale),
		cmocka_unit_test(test_lower_is_better),
		cmocka_unit_test(test_three_modes),
		cmocka_unit_test(test_analyse_rejects),
		cmocka_unit_test(test_parse_number),
		cmocka_unit_test(test_parse_postmaster_pid),
		cmocka_unit_test(test_record_parse),
		cmocka_unit_test(test_p99),
		cmocka_unit_test(test_probe_runs),
		cmocka_unit_test(test_container_hints),
		cmocka_unit_test(test_lock),
		cmocka_unit_test(test_exec_capture),
	};

	return cmocka_run_group_tests_name("trial", tests, NULL, NULL);
}
