/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a trial measures in each window: a command's counter or value,
 * PostgreSQL's committed transactions, or the built-in wake-up latency
 * probe.  The parsers here read output of programs the tool does not own.
 */
#ifndef PREEMPT_POLICY_TRIAL_METRIC_H
#define PREEMPT_POLICY_TRIAL_METRIC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "facts.h"

/* Output a metric command may print: one number and blanks. */
#define TRIAL_METRIC_OUTPUT_MAX	256

/*
 * One non-negative decimal number (digits, optional fraction) with
 * optional blanks and newline around it, in @len bytes of @text.
 * Returns 0 and sets @out, or -EINVAL.
 */
int trial_parse_number(const char *text, size_t len, double *out);

/*
 * The port (line 4) and socket directory (line 5) of a postmaster.pid.
 * Returns 0, or -EINVAL when either is missing or malformed (a port
 * outside 1-65535, a directory that is not absolute).
 */
int trial_parse_postmaster_pid(const char *text, size_t len,
			       unsigned int *port, char *sockdir,
			       size_t size);

/* How to run a metric program; everything the child needs. */
struct trial_exec {
	const char *const *argv;	/* execv()ed; argv[0] a path */
	const char *mode;		/* PREEMPT_POLICY_MODE for the child */
	unsigned int window_ms;		/* PREEMPT_POLICY_WINDOW (seconds) */
	unsigned int timeout_ms;	/* killed after this */
	bool as_user;			/* drop to @uid/@gid first */
	uid_t uid;
	gid_t gid;
};

/*
 * Run @x, collect its standard output into @out (NUL-terminated, at
 * most @size - 1 bytes) and wait for it.  The child is its own process
 * group, killed whole on timeout or when *@stop becomes non-zero.
 * Returns 0, or -ETIMEDOUT, -EINTR (stopped), -EFBIG (more output),
 * -ECHILD (non-zero exit; *@status holds the wait status), -errno.
 */
int trial_exec_capture(const struct trial_exec *x, char *out, size_t size,
		       volatile sig_atomic_t *stop, int *status);

/*
 * Committed transactions of every running cluster in @f, summed: each
 * read with psql over the cluster's own socket as the user owning its
 * data directory (peer authentication).  Returns 0, or -errno with a
 * message in @why.
 */
int trial_pg_commits(const struct facts *f, unsigned int timeout_ms,
		     volatile sig_atomic_t *stop,
		     double *out, char *why, size_t why_size);

/*
 * The wake-up latency probe: sleep 1 ms at a time for @window_ms and
 * measure how late each wake-up came; the 99th percentile in
 * microseconds into *@out.  Returns 0, -EINTR when *@stop became
 * non-zero, or -errno.
 */
int trial_wakeup_probe(unsigned int window_ms, volatile sig_atomic_t *stop,
		       double *out);

/* The 99th percentile of @n latencies (sorted in place), microseconds. */
double trial_latency_p99(unsigned int *ns, size_t n);

#endif
