// SPDX-License-Identifier: GPL-2.0
/*
 * trial: alternate the preemption modes under the live load in
 * randomized blocks, one window each after a settle time, sample the
 * workload's own metric in every window, and keep a mode only when its
 * bootstrap interval clears the minimum effect.  The mode found is put
 * back on every way out the process can see.
 */
#include "trial.h"
#include "apply.h"
#include "escape.h"
#include "exit_codes.h"
#include "json.h"
#include "paths.h"
#include "report.h"
#include "trial_guard.h"
#include "trial_metric.h"
#include "trial_record.h"
#include "trial_stats.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SYSFS_MAGIC_NR		0x62656572
#define DEBUGFS_MAGIC_NR	0x64626720
#define WINDOW_DEFAULT_MS	30000u
#define SETTLE_DEFAULT_MS	5000u
#define ROUNDS_DEFAULT		5u
#define MIN_EFFECT_DEFAULT	0.03
#define MIN_RATE_DEFAULT	1.0
#define EXPIRE_DAYS_DEFAULT	30u
#define RESAMPLES		2000u
/* A counter read (psql) or a command past the window gets this long. */
#define METRIC_GRACE_MS		10000u
#define SLEEP_SLICE_MS		100
#define LOG_LEN			900

enum metric_kind { METRIC_PG, METRIC_COUNTER, METRIC_VALUE, METRIC_PROBE };

struct trial_opts {
	int modes[TRIAL_MAX_MODES];
	unsigned int nmodes;
	unsigned int window_ms, settle_ms, rounds, expire_days;
	double min_effect, min_rate;
	const char *metric_cmd;
	enum metric_kind kind;
	bool lower_is_better, record, apply, seed_given, json, dry_run;
	uint64_t seed;
};

struct trial {
	struct env env_copy;	/* with trial's own --json, --dry-run */
	const struct env *env;
	const struct facts *f;
	struct trial_opts o;
	FILE *out;		/* the human lines: stderr with --json */
	char mode_path[PATH_LEN];
	bool emulated;		/* a mode file that is not sysfs/debugfs */
	int found;		/* the mode to put back */
	int order[TRIAL_MAX_ROUNDS][TRIAL_MAX_MODES];
	unsigned int windows;	/* windows measured, all rounds */
	struct trial_samples s;
	struct trial_analysis an;
	bool analysed, restored, recorded, applied;
	char metric_name[TRIAL_METRIC_NAME_LEN];
	char aborted[512];
	int code;
};

static volatile sig_atomic_t trial_stop;

static void on_signal(int sig)
{
	trial_stop = sig;
}

static void tlog(const struct trial *t, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The kernel log, with the prefix apply uses; dry-run logs nothing. */
static void tlog(const struct trial *t, int level, const char *fmt, ...)
{
	char raw[LOG_LEN], msg[LOG_LEN];
	va_list ap;
	int err;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	text_escape(msg, sizeof(msg), raw);
	/* Each switch (info) is for the log: the console has the windows. */
	if (level < 6)
		fprintf(t->out, KMSG_PREFIX "%s\n", msg);
	if (t->env->dry_run)
		return;
	err = live_kernel_ops.log((void *)t->env, level, msg);
	if (err)
		fprintf(stderr, KMSG_PREFIX "cannot write the kernel log: %s\n",
			strerror(-err));
}

/* --- options ------------------------------------------------------------ */

enum trial_opt {
	TO_MODES = 300, TO_WINDOW, TO_SETTLE, TO_ROUNDS, TO_MIN_EFFECT,
	TO_METRIC, TO_METRIC_KIND, TO_LOWER, TO_PROBE, TO_MIN_RATE, TO_SEED,
	TO_RECORD, TO_APPLY, TO_EXPIRE, TO_HELP, TO_JSON, TO_DRY_RUN,
};

static const struct option trial_long_opts[] = {
	{ "modes", required_argument, NULL, TO_MODES },
	{ "window", required_argument, NULL, TO_WINDOW },
	{ "settle", required_argument, NULL, TO_SETTLE },
	{ "rounds", required_argument, NULL, TO_ROUNDS },
	{ "min-effect", required_argument, NULL, TO_MIN_EFFECT },
	{ "metric", required_argument, NULL, TO_METRIC },
	{ "metric-kind", required_argument, NULL, TO_METRIC_KIND },
	{ "lower-is-better", no_argument, NULL, TO_LOWER },
	{ "probe", required_argument, NULL, TO_PROBE },
	{ "min-rate", required_argument, NULL, TO_MIN_RATE },
	{ "seed", required_argument, NULL, TO_SEED },
	{ "record", no_argument, NULL, TO_RECORD },
	{ "apply", no_argument, NULL, TO_APPLY },
	{ "expire-days", required_argument, NULL, TO_EXPIRE },
	{ "help", no_argument, NULL, TO_HELP },
	/* The global ones that read naturally after the word trial too. */
	{ "json", no_argument, NULL, TO_JSON },
	{ "dry-run", no_argument, NULL, TO_DRY_RUN },
	{ NULL, 0, NULL, 0 },
};

static void trial_usage(FILE *out)
{
	fprintf(out,
		"usage: preempt-policy [global options] trial [--modes M1,M2[,..]]\n"
		"         [--window SECONDS] [--settle SECONDS] [--rounds N]\n"
		"         [--min-effect PERCENT] [--metric CMD [--metric-kind counter|value]\n"
		"         [--lower-is-better] | --probe wakeup] [--min-rate RATE]\n"
		"         [--seed N] [--record [--expire-days N]] [--apply]\n"
		"defaults: the kernel's default mode (baseline) and none, 30 s windows,\n"
		"5 s settle, 5 rounds, 3 %% minimum effect, PostgreSQL's commits per second\n");
}

/* Seconds with up to three decimals into milliseconds, within bounds. */
static int parse_ms(const char *arg, double min_s, double max_s,
		    unsigned int *out)
{
	double v;

	if (trial_parse_number(arg, strlen(arg), &v) || v < min_s || v > max_s)
		return -EINVAL;
	*out = (unsigned int)(v * 1000.0 + 0.5);
	return 0;
}

static int parse_count(const char *arg, unsigned long long min,
		       unsigned long long max, unsigned long long *out)
{
	if (parse_u64_span(arg, strlen(arg), out) || *out < min || *out > max)
		return -EINVAL;
	return 0;
}

static int parse_modes(const char *arg, struct trial_opts *o)
{
	const char *p = arg;

	o->nmodes = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int m = mode_from_span(p, len);
		unsigned int i;

		if (m == MODE_UNKNOWN || o->nmodes == TRIAL_MAX_MODES)
			return -EINVAL;
		for (i = 0; i < o->nmodes; i++)
			if (o->modes[i] == m)
				return -EINVAL;
		o->modes[o->nmodes++] = m;
		if (!comma)
			break;
		p = comma + 1;
	}
	return o->nmodes >= 2 ? 0 : -EINVAL;
}

static int bad_option(const char *name, const char *arg, const char *want)
{
	fprintf(stderr, "preempt-policy: trial: %s takes %s, not '%s'\n", name,
		want, arg);
	return EXIT_USAGE;
}

static int parse_one(int c, const char *arg, struct trial_opts *o,
		     bool *kind_given)
{
	unsigned long long n;
	unsigned int pct_ms;

	switch (c) {
	case TO_MODES:
		if (parse_modes(arg, o))
			return bad_option("--modes", arg,
					  "two to four different modes of none, voluntary, full, lazy, comma-separated");
		return -1;
	case TO_WINDOW:
		if (parse_ms(arg, 0.05, 3600, &o->window_ms))
			return bad_option("--window", arg, "seconds from 0.05 to 3600");
		return -1;
	case TO_SETTLE:
		if (parse_ms(arg, 0, 600, &o->settle_ms))
			return bad_option("--settle", arg, "seconds from 0 to 600");
		return -1;
	case TO_ROUNDS:
		if (parse_count(arg, 2, TRIAL_MAX_ROUNDS, &n))
			return bad_option("--rounds", arg, "a whole number from 2 to 200");
		o->rounds = (unsigned int)n;
		return -1;
	case TO_MIN_EFFECT:
		/* Percent with up to three decimals, as milli-percent. */
		if (parse_ms(arg, 0, 50, &pct_ms))
			return bad_option("--min-effect", arg, "a percentage from 0 to 50");
		o->min_effect = pct_ms / 100000.0;
		return -1;
	case TO_METRIC:
		if (!arg[0])
			return bad_option("--metric", arg, "a command");
		o->metric_cmd = arg;
		return -1;
	case TO_METRIC_KIND:
		if (strcmp(arg, "counter") != 0 && strcmp(arg, "value") != 0)
			return bad_option("--metric-kind", arg, "counter or value");
		o->kind = strcmp(arg, "counter") != 0 ? METRIC_VALUE :
							 METRIC_COUNTER;
		*kind_given = true;
		return -1;
	case TO_LOWER:
		o->lower_is_better = true;
		return -1;
	case TO_PROBE:
		if (strcmp(arg, "wakeup") != 0)
			return bad_option("--probe", arg, "wakeup");
		o->kind = METRIC_PROBE;
		return -1;
	case TO_MIN_RATE:
		if (trial_parse_number(arg, strlen(arg), &o->min_rate))
			return bad_option("--min-rate", arg, "a non-negative number");
		return -1;
	case TO_SEED:
		if (parse_u64_span(arg, strlen(arg), &n))
			return bad_option("--seed", arg, "a whole number");
		o->seed = n;
		o->seed_given = true;
		return -1;
	case TO_RECORD:
		o->record = true;
		return -1;
	case TO_APPLY:
		o->apply = true;
		return -1;
	case TO_EXPIRE:
		if (parse_count(arg, 1, 3650, &n))
			return bad_option("--expire-days", arg, "a whole number from 1 to 3650");
		o->expire_days = (unsigned int)n;
		return -1;
	case TO_JSON:
		o->json = true;
		return -1;
	case TO_DRY_RUN:
		o->dry_run = true;
		return -1;
	case TO_HELP:
		trial_usage(stdout);
		return EXIT_OK;
	default:
		trial_usage(stderr);
		return EXIT_USAGE;
	}
}

/* Returns -1 to go on, else an exit code. */
static int parse_trial_opts(int argc, char **argv, struct trial_opts *o)
{
	bool kind_given = false, probe;
	int c;

	memset(o, 0, sizeof(*o));
	o->window_ms = WINDOW_DEFAULT_MS;
	o->settle_ms = SETTLE_DEFAULT_MS;
	o->rounds = ROUNDS_DEFAULT;
	o->min_effect = MIN_EFFECT_DEFAULT;
	o->min_rate = MIN_RATE_DEFAULT;
	o->expire_days = EXPIRE_DAYS_DEFAULT;
	o->kind = METRIC_PG;
	/* main's getopt ran over the global options: start it afresh. */
	optind = 0;
	while ((c = getopt_long(argc, argv, "+", trial_long_opts, NULL)) != -1) {
		int code = parse_one(c, optarg, o, &kind_given);

		if (code >= 0)
			return code;
	}
	if (optind != argc) {
		fprintf(stderr, "preempt-policy: trial: unexpected '%s'\n",
			argv[optind]);
		trial_usage(stderr);
		return EXIT_USAGE;
	}
	probe = o->kind == METRIC_PROBE;
	if (probe && o->metric_cmd) {
		fprintf(stderr, "preempt-policy: trial: --probe and --metric are one metric each; give one\n");
		return EXIT_USAGE;
	}
	if (kind_given && !o->metric_cmd) {
		fprintf(stderr, "preempt-policy: trial: --metric-kind goes with --metric\n");
		return EXIT_USAGE;
	}
	if (o->metric_cmd && !kind_given)
		o->kind = METRIC_COUNTER;
	/* A wake-up latency is better low, whatever was said. */
	if (probe)
		o->lower_is_better = true;
	if (o->lower_is_better && (o->kind == METRIC_PG || o->kind == METRIC_COUNTER)) {
		fprintf(stderr, "preempt-policy: trial: --lower-is-better needs --metric-kind value: a counter's rate is better high\n");
		return EXIT_USAGE;
	}
	return -1;
}

/* --- the mode file -------------------------------------------------------- */

static int read_modes(const struct trial *t, struct mode_list *ml)
{
	return live_kernel_ops.read_modes(NULL, t->mode_path, ml);
}

/*
 * A mode file on neither sysfs nor debugfs is a test's emulation: write
 * it back the way the kernel shows it, the new mode marked, and refuse a
 * mode it does not list as the kernel does (-EINVAL).
 */
static int emulated_write(const struct trial *t, int mode)
{
	char text[MAX_KERNEL_FILE], list[64], out[96];
	struct mode_list ml;
	size_t used = 0;
	bool brackets;
	int i, fd, n, err = 0;

	if (read_small_file(t->mode_path, text, sizeof(text)) ||
	    parse_mode_list(text, strlen(text), &ml))
		return -EIO;
	if (!mode_available(&ml, mode))
		return -EINVAL;
	brackets = strchr(text, '[') != NULL;
	format_mode_list(&ml, list, sizeof(list));
	for (i = 0; i < MODE_COUNT; i++) {
		if (!mode_available(&ml, i))
			continue;
		n = snprintf(out + used, sizeof(out) - used,
			     i == mode ? (brackets ? "%s[%s]" : "%s(%s)") : "%s%s",
			     used ? " " : "", mode_name(i));
		if (n < 0 || (size_t)n >= sizeof(out) - used)
			return -EIO;
		used += (size_t)n;
	}
	out[used++] = '\n';
	fd = open(t->mode_path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (write(fd, out, used) != (ssize_t)used)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* Write @mode and read it back; 0 or -errno (-EIO: it did not take). */
static int switch_to(const struct trial *t, int mode)
{
	struct mode_list after;
	int err;

	if (t->emulated)
		err = emulated_write(t, mode);
	else
		err = live_kernel_ops.write_mode(NULL, t->mode_path,
						 mode_name(mode));
	if (err)
		return err;
	err = read_modes(t, &after);
	if (err)
		return err;
	return after.current == mode ? 0 : -EIO;
}

/* Put the mode found back; a few tries, since this one must not fail. */
static int restore(struct trial *t)
{
	struct mode_list now;
	int err = 0, i;

	if (!read_modes(t, &now) && now.current == t->found) {
		t->restored = true;
		tlog(t, 5, "trial: end: %s runs, as found", mode_name(t->found));
		return 0;
	}
	for (i = 0; i < 3; i++) {
		err = switch_to(t, t->found);
		if (!err)
			break;
	}
	if (err) {
		tlog(t, 2, "trial: could not put back %s in %s: %s; the mode is not what the trial found",
		     mode_name(t->found), t->mode_path, strerror(-err));
		return err;
	}
	t->restored = true;
	tlog(t, 5, "trial: put back %s", mode_name(t->found));
	return 0;
}

/* --- metric ----------------------------------------------------------------- */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleep @ms unless a signal asks to stop; false when it did. */
static bool nap(unsigned int ms)
{
	long long end = now_ms() + ms, left;

	while (!trial_stop && (left = end - now_ms()) > 0) {
		struct timespec ts = { 0, (left > SLEEP_SLICE_MS ? SLEEP_SLICE_MS :
					   left) * 1000000L };

		nanosleep(&ts, NULL);
	}
	return !trial_stop;
}

static int run_metric_cmd(struct trial *t, int mode, unsigned int window_ms,
			  double *out, char *why, size_t why_size)
{
	const char *argv[] = { "/bin/sh", "-c", t->o.metric_cmd, NULL };
	const struct trial_exec x = {
		.argv = argv, .mode = mode_name(mode), .window_ms = window_ms,
		.timeout_ms = window_ms + METRIC_GRACE_MS,
	};
	char text[TRIAL_METRIC_OUTPUT_MAX];
	int err, status;

	err = trial_exec_capture(&x, text, sizeof(text), &trial_stop, &status);
	if (!err)
		err = trial_parse_number(text, strlen(text), out);
	if (err == -EINVAL) {
		char shown[64];
		size_t len = strlen(text);

		/* The newline a command ends with is no part of what it said. */
		while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
			text[--len] = '\0';
		text_escape(shown, sizeof(shown), text);
		snprintf(why, why_size, "the metric printed '%s', not one number",
			 shown);
	} else if (err == -ECHILD) {
		snprintf(why, why_size, "the metric command failed (%s %d)",
			 WIFEXITED(status) ? "exit status" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	} else if (err == -EFBIG) {
		snprintf(why, why_size, "the metric printed more than one number");
	} else if (err) {
		snprintf(why, why_size, "the metric command: %s", strerror(-err));
	}
	return err;
}

/* A counter's reading now (PostgreSQL's or a command's). */
static int read_counter(struct trial *t, int mode, double *out, char *why,
			size_t why_size)
{
	if (t->o.kind == METRIC_PG)
		return trial_pg_commits(t->f, METRIC_GRACE_MS, &trial_stop,
					out, why, why_size);
	return run_metric_cmd(t, mode, 0, out, why, why_size);
}

/* The metric over @window_ms: a counter's rate, or the value measured. */
static int measure(struct trial *t, int mode, unsigned int window_ms,
		   double *value, char *why, size_t why_size)
{
	double c0, c1;
	long long t0, t1;
	int err;

	if (t->o.kind == METRIC_PROBE) {
		err = trial_wakeup_probe(window_ms, &trial_stop, value);
		if (err)
			snprintf(why, why_size, "the wake-up probe: %s",
				 strerror(-err));
		return err;
	}
	if (t->o.kind == METRIC_VALUE)
		return run_metric_cmd(t, mode, window_ms, value, why, why_size);
	/*
	 * A reading is taken somewhere while its command runs (psql: tens
	 * of milliseconds): the middle of that is the best guess of when.
	 */
	t0 = now_ms();
	err = read_counter(t, mode, &c0, why, why_size);
	if (err)
		return err;
	t0 = (t0 + now_ms()) / 2;
	if (!nap(window_ms))
		return -EINTR;
	t1 = now_ms();
	err = read_counter(t, mode, &c1, why, why_size);
	if (err)
		return err;
	t1 = (t1 + now_ms()) / 2;
	if (c1 < c0) {
		snprintf(why, why_size, "the counter went down from %.0f to %.0f: not a cumulative counter",
			 c0, c1);
		return -ERANGE;
	}
	*value = (c1 - c0) * 1000.0 / (double)(t1 > t0 ? t1 - t0 : 1);
	return 0;
}

static void name_metric(struct trial *t)
{
	char shown[TRIAL_METRIC_NAME_LEN];

	switch (t->o.kind) {
	case METRIC_PG:
		snprintf(t->metric_name, sizeof(t->metric_name), "pg-commits");
		break;
	case METRIC_PROBE:
		snprintf(t->metric_name, sizeof(t->metric_name), "wakeup-p99-us");
		break;
	case METRIC_COUNTER:
	case METRIC_VALUE:
		/* The record takes one word: the command's first. */
		copy_bounded(shown, sizeof(shown), t->o.metric_cmd,
			     strcspn(t->o.metric_cmd, " \t\n"));
		snprintf(t->metric_name, sizeof(t->metric_name), "%s:%.100s",
			 t->o.kind == METRIC_COUNTER ? "counter" : "value",
			 shown);
		break;
	}
}

/* --- before anything is switched --------------------------------------------- */

static int default_modes(struct trial *t)
{
	const struct facts *f = t->f;
	int base = f->build_mode;

	/* The kernel's default: its build's model, else what runs now. */
	if (base == MODE_UNKNOWN || !mode_available(&f->modes, base))
		base = f->modes.current;
	t->o.modes[0] = base;
	t->o.modes[1] = base == MODE_NONE ? MODE_FULL : MODE_NONE;
	t->o.nmodes = 2;
	return 0;
}

static int check_kernel(struct trial *t)
{
	const struct facts *f = t->f;
	struct statfs sfs;
	char avail[64];
	unsigned int i;

	if (!f->mode_path[0] || !f->modes.available ||
	    f->modes.current == MODE_UNKNOWN) {
		fprintf(stderr, "preempt-policy: trial: no runtime switch: neither %s/%s nor %s/%s shows the modes and the running one\n",
			t->env->sys, SYS_PREEMPT_MODE, t->env->sys,
			SYS_DEBUGFS_PREEMPT);
		return EXIT_CANNOT;
	}
	copy_bounded(t->mode_path, sizeof(t->mode_path), f->mode_path,
		     strlen(f->mode_path));
	t->found = f->modes.current;
	if (!t->o.nmodes)
		default_modes(t);
	format_mode_list(&f->modes, avail, sizeof(avail));
	for (i = 0; i < t->o.nmodes; i++) {
		if (!mode_available(&f->modes, t->o.modes[i])) {
			fprintf(stderr, "preempt-policy: trial: the kernel lists only \"%s\", not %s\n",
				avail, mode_name(t->o.modes[i]));
			return EXIT_CANNOT;
		}
	}
	if (statfs(t->mode_path, &sfs)) {
		fprintf(stderr, "preempt-policy: trial: %s: %s\n", t->mode_path,
			strerror(errno));
		return EXIT_CANNOT;
	}
	t->emulated = sfs.f_type != SYSFS_MAGIC_NR &&
		      sfs.f_type != DEBUGFS_MAGIC_NR;
	return -1;
}

/* A workload that runs and a counter that counts, before any switch. */
static int check_metric(struct trial *t)
{
	unsigned int span = t->o.settle_ms > 200 ? t->o.settle_ms : 200;
	double c0, c1, rate;
	char why[512] = "";
	int err;

	if (t->o.kind == METRIC_PROBE || t->o.lower_is_better)
		return -1;	/* no idle floor for a latency */
	if (t->o.kind == METRIC_VALUE) {
		err = measure(t, t->found, span, &rate, why, sizeof(why));
	} else {
		long long t0;

		err = read_counter(t, t->found, &c0, why, sizeof(why));
		t0 = now_ms();
		if (!err && !nap(span))
			err = -EINTR;
		if (!err)
			err = read_counter(t, t->found, &c1, why, sizeof(why));
		if (!err && c1 < c0) {
			fprintf(stderr, "preempt-policy: trial: refused: the metric went down from %.0f to %.0f: not monotonic, not a counter (a rate wants --metric-kind value)\n",
				c0, c1);
			return EXIT_TRIAL_REFUSED;
		}
		if (!err)
			rate = (c1 - c0) * 1000.0 / (double)(now_ms() - t0);
	}
	if (err) {
		fprintf(stderr, "preempt-policy: trial: refused: %s\n",
			err == -EINTR ? "interrupted" : why);
		return EXIT_TRIAL_REFUSED;
	}
	if (rate < t->o.min_rate) {
		fprintf(stderr, "preempt-policy: trial: refused: the workload is idle: %s at %.3g per second, under the floor of %.3g (--min-rate)\n",
			t->metric_name, rate, t->o.min_rate);
		return EXIT_TRIAL_REFUSED;
	}
	return -1;
}

/* --- the trial ------------------------------------------------------------------ */

static void plan(struct trial *t)
{
	struct trial_rng rng;
	unsigned int r, i;

	trial_rng_seed(&rng, t->o.seed);
	for (r = 0; r < t->o.rounds; r++) {
		for (i = 0; i < t->o.nmodes; i++)
			t->order[r][i] = (int)i;
		trial_shuffle(&rng, t->order[r], t->o.nmodes);
	}
}

static void print_plan(const struct trial *t)
{
	unsigned int i;

	fprintf(t->out, "trial: modes");
	for (i = 0; i < t->o.nmodes; i++)
		fprintf(t->out, "%s %s%s", i ? "," : "", mode_name(t->o.modes[i]),
			i ? "" : " (baseline)");
	fprintf(t->out, "; %u rounds of %u.%03u s windows after %u.%03u s to settle; metric %s (%s is better); minimum effect %.1f%%; seed %llu; found %s%s\n",
		t->o.rounds, t->o.window_ms / 1000, t->o.window_ms % 1000,
		t->o.settle_ms / 1000, t->o.settle_ms % 1000, t->metric_name,
		t->o.lower_is_better ? "lower" : "higher",
		t->o.min_effect * 100, (unsigned long long)t->o.seed,
		mode_name(t->found),
		t->emulated ? " (emulated mode file: not sysfs or debugfs)" : "");
}

static int run_rounds(struct trial *t)
{
	char why[512];
	unsigned int r, i;
	int err;

	t->s.nmodes = t->o.nmodes;
	t->s.lower_is_better = t->o.lower_is_better;
	for (r = 0; r < t->o.rounds; r++) {
		for (i = 0; i < t->o.nmodes; i++) {
			int idx = t->order[r][i], mode = t->o.modes[idx];
			double v;

			err = switch_to(t, mode);
			if (err) {
				snprintf(t->aborted, sizeof(t->aborted),
					 "the kernel refused %s in %.200s: %s",
					 mode_name(mode), t->mode_path,
					 strerror(-err));
				return err;
			}
			tlog(t, 6, "trial: round %u: %s", r + 1, mode_name(mode));
			why[0] = '\0';
			if (!nap(t->o.settle_ms))
				return -EINTR;
			err = measure(t, mode, t->o.window_ms, &v, why,
				      sizeof(why));
			if (err == -EINTR || trial_stop)
				return -EINTR;
			if (err) {
				snprintf(t->aborted, sizeof(t->aborted), "%s",
					 why);
				return err;
			}
			t->s.value[r][idx] = v;
			t->windows++;
			fprintf(t->out, "round %u: %s %.6g\n", r + 1,
				mode_name(mode), v);
		}
		t->s.nrounds = r + 1;
	}
	return 0;
}

static void format_pct(char *buf, size_t size, double ratio)
{
	snprintf(buf, size, "%+.1f%%", (ratio - 1.0) * 100.0);
}

static void print_effects(const struct trial *t)
{
	char e[32], lo[32], hi[32];
	unsigned int i;

	for (i = 1; i < t->o.nmodes; i++) {
		const struct trial_effect *x = &t->an.effect[i][0];

		format_pct(e, sizeof(e), x->ratio);
		format_pct(lo, sizeof(lo), x->lo);
		format_pct(hi, sizeof(hi), x->hi);
		fprintf(t->out, "%s against %s: %s, 95%% interval [%s, %s] over %u rounds; minimum detectable effect %.1f%%",
			mode_name(t->o.modes[i]), mode_name(t->o.modes[0]), e,
			lo, hi, t->s.nrounds, x->mde * 100);
		if (x->rounds_needed > 0)
			fprintf(t->out, "; about %ld rounds would resolve %s\n",
				x->rounds_needed, e);
		else if (x->rounds_needed < 0)
			fprintf(t->out, "; %s is within the minimum effect: no number of rounds resolves it\n",
				e);
		else
			fputs("; resolved\n", t->out);
	}
}

/* The mode the winner beat by the least: the effect worth quoting. */
static int runner_up(const struct trial *t, int w)
{
	unsigned int b;
	int best = -1;

	for (b = 0; b < t->o.nmodes; b++)
		if ((int)b != w && (best < 0 ||
		    t->an.effect[w][b].ratio < t->an.effect[w][best].ratio))
			best = (int)b;
	return best;
}

static void conclude(struct trial *t)
{
	const struct trial_effect *x;
	char e[32], lo[32], hi[32];
	int w = t->an.winner;

	if (w < 0) {
		fprintf(t->out, "result: no difference detectable at this noise; keeping %s\n",
			mode_name(t->found));
		tlog(t, 5, "trial: no difference detectable at this noise between %s and the others (%u rounds, %s); keeping %s",
		     mode_name(t->o.modes[0]), t->s.nrounds, t->metric_name,
		     mode_name(t->found));
		return;
	}
	x = &t->an.effect[w][runner_up(t, w)];
	format_pct(e, sizeof(e), x->ratio);
	format_pct(lo, sizeof(lo), x->lo);
	format_pct(hi, sizeof(hi), x->hi);
	fprintf(t->out, "result: %s wins: %s [%s, %s] against %s\n",
		mode_name(t->o.modes[w]), e, lo, hi,
		mode_name(t->o.modes[runner_up(t, w)]));
	tlog(t, 5, "trial: %s beat %s by %s [%s, %s] (%u rounds, %s, seed %llu)",
	     mode_name(t->o.modes[w]), mode_name(t->o.modes[runner_up(t, w)]), e, lo,
	     hi, t->s.nrounds, t->metric_name, (unsigned long long)t->o.seed);
}

static int record(struct trial *t)
{
	struct trial_record rec;
	struct utsname u;
	int w = t->an.winner, other = w >= 0 ? runner_up(t, w) : 0, err;
	const struct trial_effect *x;
	char rel[PATH_LEN];

	memset(&rec, 0, sizeof(rec));
	rec.mode = w >= 0 ? t->o.modes[w] : MODE_KEEP;
	rec.baseline = t->o.modes[w >= 0 ? other : 0];
	copy_bounded(rec.metric, sizeof(rec.metric), t->metric_name,
		     strlen(t->metric_name));
	/* No winner: the first challenger against the baseline. */
	x = w >= 0 ? &t->an.effect[w][other] : &t->an.effect[1][0];
	rec.effect = (x->ratio - 1) * 100;
	rec.lo = (x->lo - 1) * 100;
	rec.hi = (x->hi - 1) * 100;
	rec.rounds = t->s.nrounds;
	rec.date = (long long)time(NULL);
	rec.expires = rec.date + (long long)t->o.expire_days * 86400;
	/* The release the next boot compares: the proc tree's, as facts read it. */
	if (path_join(rel, sizeof(rel), t->env->proc, PROC_OSRELEASE) ||
	    read_small_file(rel, rec.kernel, sizeof(rec.kernel))) {
		if (uname(&u))
			return -errno;
		copy_bounded(rec.kernel, sizeof(rec.kernel), u.release,
			     strlen(u.release));
	}
	rec.kernel[strcspn(rec.kernel, "\n ")] = '\0';
	if (t->env->dry_run) {
		fprintf(t->out, "dry-run: would record %s/%s: mode=%s\n",
			t->env->root, VAR_TRIAL_FILE, mode_name(rec.mode));
		return 0;
	}
	err = trial_record_write(&rec, t->env);
	if (err) {
		fprintf(stderr, "preempt-policy: trial: %s/%s: %s\n",
			t->env->root, VAR_TRIAL_FILE, strerror(-err));
		return err;
	}
	t->recorded = true;
	tlog(t, 5, "trial: recorded mode=%s for the next boot until %u days from now (%s)",
	     mode_name(rec.mode), t->o.expire_days, VAR_TRIAL_FILE);
	return 0;
}

static int apply_winner(struct trial *t)
{
	int w = t->an.winner, mode, err;

	if (w < 0 || t->o.modes[w] == t->found) {
		fprintf(t->out, "apply: nothing to switch: %s stays\n",
			mode_name(t->found));
		return 0;
	}
	mode = t->o.modes[w];
	err = switch_to(t, mode);
	if (err) {
		tlog(t, 3, "trial: writing %s to %s failed: %s; %s stays",
		     mode_name(mode), t->mode_path, strerror(-err),
		     mode_name(t->found));
		return err;
	}
	t->applied = true;
	tlog(t, 5, "trial: switched from %s to %s, the trial's winner",
	     mode_name(t->found), mode_name(mode));
	return 0;
}

static void json_effect(FILE *o, const struct trial *t, unsigned int a,
			unsigned int b, bool first)
{
	const struct trial_effect *x = &t->an.effect[a][b];

	fprintf(o, "%s{\"mode\":\"%s\",\"against\":\"%s\",\"effect\":%.6g,\"lo\":%.6g,\"hi\":%.6g,\"se\":%.6g,\"mde\":%.6g,\"rounds_needed\":%ld,\"better\":%s,\"worse\":%s}",
		first ? "" : ",", mode_name(t->o.modes[a]),
		mode_name(t->o.modes[b]), x->ratio - 1, x->lo - 1, x->hi - 1,
		x->se, x->mde, x->rounds_needed, x->better ? "true" : "false",
		x->worse ? "true" : "false");
}

static void json_trial(const struct trial *t)
{
	FILE *o = stdout;
	unsigned int r, i, a, b;
	bool first = true;

	fprintf(o, "{\"command\":\"trial\",\"modes\":[");
	for (i = 0; i < t->o.nmodes; i++)
		fprintf(o, "%s\"%s\"", i ? "," : "", mode_name(t->o.modes[i]));
	fprintf(o, "],\"baseline\":\"%s\",\"found\":\"%s\",\"metric\":",
		mode_name(t->o.modes[0]), mode_name(t->found));
	json_string(o, t->metric_name);
	fprintf(o, ",\"lower_is_better\":%s,\"window_ms\":%u,\"settle_ms\":%u,\"rounds_planned\":%u,\"rounds\":%u,\"seed\":\"%llu\",\"min_effect\":%.6g,\"emulated\":%s,\"windows\":[",
		t->o.lower_is_better ? "true" : "false", t->o.window_ms,
		t->o.settle_ms, t->o.rounds, t->s.nrounds,
		(unsigned long long)t->o.seed, t->o.min_effect,
		t->emulated ? "true" : "false");
	for (r = 0; r < t->o.rounds; r++) {
		for (i = 0; i < t->o.nmodes; i++) {
			unsigned int n = r * t->o.nmodes + i;
			int idx = t->order[r][i];

			if (n >= t->windows)
				break;
			fprintf(o, "%s{\"round\":%u,\"mode\":\"%s\",\"value\":%.9g}",
				n ? "," : "", r + 1,
				mode_name(t->o.modes[idx]), t->s.value[r][idx]);
		}
	}
	fputs("],\"effects\":[", o);
	for (a = 0; t->analysed && a < t->o.nmodes; a++)
		for (b = 0; b < t->o.nmodes; b++)
			if (a != b) {
				json_effect(o, t, a, b, first);
				first = false;
			}
	fputs("],\"result\":", o);
	if (!t->analysed)
		fputs("null", o);
	else if (t->an.winner < 0)
		fputs("\"keep\"", o);
	else
		fprintf(o, "\"%s\"", mode_name(t->o.modes[t->an.winner]));
	fputs(",\"aborted\":", o);
	if (t->aborted[0])
		json_string(o, t->aborted);
	else
		fputs("null", o);
	fprintf(o, ",\"restored\":%s,\"recorded\":%s,\"applied\":%s,\"exit\":%d}\n",
		t->restored ? "true" : "false", t->recorded ? "true" : "false",
		t->applied ? "true" : "false", t->code);
}

static void catch_signals(bool on)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGALRM };
	struct sigaction sa;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a signal must cut a wait short. */
	sa.sa_handler = on ? on_signal : SIG_DFL;
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, on ? SIG_IGN : SIG_DFL);
}

static const char *signal_word(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	case SIGALRM:
		return "SIGALRM (--timeout)";
	default:
		return "a signal";
	}
}

/* The switching part, between the checks and the report. */
static void run_trial(struct trial *t)
{
	int err;

	catch_signals(true);
	tlog(t, 5, "trial: start: modes %s%s%s%s%s%s%s, %u rounds of %u ms after %u ms settle, metric %s, seed %llu; found %s",
	     mode_name(t->o.modes[0]), t->o.nmodes > 1 ? "," : "",
	     t->o.nmodes > 1 ? mode_name(t->o.modes[1]) : "",
	     t->o.nmodes > 2 ? "," : "",
	     t->o.nmodes > 2 ? mode_name(t->o.modes[2]) : "",
	     t->o.nmodes > 3 ? "," : "",
	     t->o.nmodes > 3 ? mode_name(t->o.modes[3]) : "",
	     t->o.rounds, t->o.window_ms, t->o.settle_ms, t->metric_name,
	     (unsigned long long)t->o.seed, mode_name(t->found));
	err = run_rounds(t);
	if (err == -EINTR || trial_stop)
		snprintf(t->aborted, sizeof(t->aborted), "interrupted by %s",
			 signal_word(trial_stop));
	if (t->aborted[0]) {
		t->code = EXIT_TRIAL_ABORTED;
		tlog(t, 4, "trial: stopped after %u windows: %s", t->windows,
		     t->aborted);
	}
	if (restore(t))
		t->code = EXIT_WRITE_FAILED;
	catch_signals(false);
}

static void analyse(struct trial *t)
{
	int err;

	err = trial_analyse(&t->s, t->o.min_effect, RESAMPLES, t->o.seed,
			    &t->an);
	if (err) {
		snprintf(t->aborted, sizeof(t->aborted),
			 "a window measured nothing (rate 0): the workload stopped during the trial");
		t->code = EXIT_TRIAL_ABORTED;
		tlog(t, 4, "trial: %s", t->aborted);
		return;
	}
	t->analysed = true;
	print_effects(t);
	conclude(t);
}

int trial_command(const struct run *run, const struct env *env, int argc,
		  char **argv)
{
	struct trial *t;
	char why[PATH_LEN + 128];
	long holder;
	int code, lock_fd;

	t = calloc(1, sizeof(*t));
	if (!t) {
		fprintf(stderr, "preempt-policy: out of memory\n");
		return EXIT_WRITE_FAILED;
	}
	t->f = run->facts;
	code = parse_trial_opts(argc, argv, &t->o);
	if (code >= 0)
		goto out;
	t->env_copy = *env;
	t->env_copy.json |= t->o.json;
	t->env_copy.dry_run |= t->o.dry_run;
	env = t->env = &t->env_copy;
	t->out = env->json ? stderr : stdout;
	if (!t->o.seed_given)
		t->o.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	name_metric(t);
	if (trial_container_hint(env, why, sizeof(why))) {
		fprintf(stderr, "preempt-policy: trial: refused: this looks like a container (%s): the mode is the host's\n",
			why);
		code = EXIT_TRIAL_REFUSED;
		goto out;
	}
	code = check_kernel(t);
	if (code >= 0)
		goto out;
	lock_fd = trial_lock(env, &holder);
	if (lock_fd < 0) {
		if (lock_fd == -EWOULDBLOCK)
			fprintf(stderr, "preempt-policy: trial: refused: another trial runs (pid %ld holds %s/%s)\n",
				holder, env->root, RUN_TRIAL_LOCK);
		else
			fprintf(stderr, "preempt-policy: trial: %s/%s: %s\n",
				env->root, RUN_TRIAL_LOCK, strerror(-lock_fd));
		code = lock_fd == -EWOULDBLOCK ? EXIT_TRIAL_REFUSED :
						  EXIT_WRITE_FAILED;
		goto out;
	}
	code = check_metric(t);
	if (code >= 0)
		goto unlock;
	plan(t);
	print_plan(t);
	code = EXIT_OK;
	if (env->dry_run) {
		fprintf(t->out, "dry-run: nothing switched\n");
		if (env->json)
			json_trial(t);
		goto unlock;
	}
	run_trial(t);
	if (!t->code && t->s.nrounds >= 2)
		analyse(t);
	if (!t->code && t->o.record && record(t))
		t->code = EXIT_WRITE_FAILED;
	if (!t->code && t->o.apply && apply_winner(t))
		t->code = EXIT_WRITE_FAILED;
	code = t->code;
	if (env->json)
		json_trial(t);
unlock:
	close(lock_fd);
out:
	free(t);
	return code;
}
