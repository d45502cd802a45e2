// SPDX-License-Identifier: GPL-2.0
/*
 * Trial metrics: run a metric program with a deadline and read its one
 * number, read PostgreSQL's commit counter through psql, and the wake-up
 * latency probe.
 */
#include "trial_metric.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Poll at least this often so a stop request is seen without a signal. */
#define STOP_POLL_MS	100
#define PROBE_PERIOD_NS	1000000LL
/* A window of an hour at one wake-up per millisecond. */
#define PROBE_MAX_SAMPLES 3600000u
/* What the built-in metric asks: the cluster's commits since its start. */
#define PG_COMMITS_SQL	"SELECT sum(xact_commit) FROM pg_stat_database"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int trial_parse_number(const char *text, size_t len, double *out)
{
	size_t i = 0, end = len, digits = 0;
	double v = 0, scale = 1;

	while (i < end && is_blank(text[i]))
		i++;
	while (end > i && is_blank(text[end - 1]))
		end--;
	for (; i < end && text[i] >= '0' && text[i] <= '9'; i++, digits++)
		v = v * 10 + (text[i] - '0');
	if (!digits)
		return -EINVAL;
	if (i < end && text[i] == '.') {
		size_t frac = 0;

		for (i++; i < end && text[i] >= '0' && text[i] <= '9';
		     i++, frac++) {
			scale /= 10;
			v += (text[i] - '0') * scale;
		}
		if (!frac)
			return -EINVAL;
	}
	if (i != end)
		return -EINVAL;
	*out = v;
	return 0;
}

int trial_parse_postmaster_pid(const char *text, size_t len,
			       unsigned int *port, char *sockdir, size_t size)
{
	unsigned long long p = 0;
	struct line_reader lr;
	bool have_port = false, have_dir = false;
	const char *line;
	size_t n, i;

	line_reader_init(&lr, text, len);
	while (line_reader_next(&lr, &line, &n) && lr.lineno <= 5) {
		if (lr.lineno == 4) {
			trim_span(&line, &n);
			if (parse_u64_span(line, n, &p) || p < 1 || p > 65535)
				return -EINVAL;
			have_port = true;
		} else if (lr.lineno == 5) {
			trim_span(&line, &n);
			if (n == 0 || line[0] != '/' || n >= size)
				return -EINVAL;
			for (i = 0; i < n; i++)
				if ((unsigned char)line[i] < 0x20 ||
				    line[i] == 0x7f)
					return -EINVAL;
			copy_bounded(sockdir, size, line, n);
			have_dir = true;
		}
	}
	if (!have_port || !have_dir)
		return -EINVAL;
	*port = (unsigned int)p;
	return 0;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void child_exec(const struct trial_exec *x, int out_fd)
{
	char window[32];
	sigset_t none;
	int fd;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (dup2(out_fd, STDOUT_FILENO) < 0)
		_exit(127);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		dup2(fd, STDIN_FILENO);
	snprintf(window, sizeof(window), "%u.%03u", x->window_ms / 1000,
		 x->window_ms % 1000);
	if (setenv("PREEMPT_POLICY_WINDOW", window, 1) ||
	    (x->mode && setenv("PREEMPT_POLICY_MODE", x->mode, 1)))
		_exit(127);
	if (x->as_user) {
		/* Peer authentication knows the cluster's owner, not root. */
		if (chdir("/") || setgroups(1, &x->gid) || setgid(x->gid) ||
		    setuid(x->uid))
			_exit(127);
	}
	execvp(x->argv[0], (char *const *)x->argv);
	fprintf(stderr, "preempt-policy: trial: cannot run %s: %s\n",
		x->argv[0], strerror(errno));
	_exit(127);
}

/* Read until end of file, the deadline or a stop; 0 or -errno. */
static int collect(int fd, char *out, size_t size, long long deadline,
		   volatile sig_atomic_t *stop)
{
	size_t used = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = (deadline - now_ns()) / 1000000;
		ssize_t r;
		int n;

		out[used] = '\0';
		if (*stop)
			return -EINTR;
		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, left > STOP_POLL_MS ? STOP_POLL_MS : (int)left);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n <= 0)
			continue;
		r = read(fd, out + used, size - 1 - used);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r == 0 && used == size - 1) {
			char extra;

			/* Full buffer: end of file, or more than we take. */
			r = read(fd, &extra, 1);
			if (r > 0)
				return -EFBIG;
		}
		if (r == 0)
			return 0;
		if (r > 0)
			used += (size_t)r;
	}
}

/* Wait for @pid until @deadline; kill its group on a stop or timeout. */
static int reap(pid_t pid, long long deadline, volatile sig_atomic_t *stop,
		int *status, int err)
{
	struct timespec tick = { 0, 10000000L };	/* 10 ms */
	pid_t r;

	while (!err) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return WIFEXITED(*status) && WEXITSTATUS(*status) == 0 ?
			       0 : -ECHILD;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (*stop)
			err = -EINTR;
		else if (now_ns() >= deadline)
			err = -ETIMEDOUT;
		else
			nanosleep(&tick, NULL);
	}
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return err;
}

int trial_exec_capture(const struct trial_exec *x, char *out, size_t size,
		       volatile sig_atomic_t *stop, int *status)
{
	long long deadline = now_ns() + (long long)x->timeout_ms * 1000000LL;
	int pfd[2], err;
	pid_t pid;

	*status = 0;
	if (size < 2)
		return -EINVAL;
	out[0] = '\0';
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	if (pid == 0)
		child_exec(x, pfd[1]);
	/* Either side may run first; both make it a group of its own. */
	setpgid(pid, pid);
	close(pfd[1]);
	err = collect(pfd[0], out, size, deadline, stop);
	close(pfd[0]);
	return reap(pid, deadline, stop, status, err);
}

static int pg_cluster_commits(const char *data_dir, unsigned int timeout_ms,
			      volatile sig_atomic_t *stop, double *out,
			      char *why, size_t why_size)
{
	char path[PATH_LEN], sockdir[PATH_LEN], port[8], text[TRIAL_METRIC_OUTPUT_MAX];
	const char *argv[] = { "psql", "-X", "-A", "-t", "-q", "-w", "-h",
			       sockdir, "-p", port, "-d", "postgres", "-c",
			       PG_COMMITS_SQL, NULL };
	struct trial_exec x = { .argv = argv, .timeout_ms = timeout_ms,
				.window_ms = 0 };
	unsigned int p;
	struct stat st;
	size_t len;
	char *buf;
	int err, status;

	if (path_join(path, sizeof(path), data_dir, "postmaster.pid"))
		return -ENAMETOOLONG;
	err = read_file_capped(path, MAX_KERNEL_FILE, &buf, &len);
	if (err) {
		snprintf(why, why_size, "%s: %s", path, read_error_name(err));
		return err;
	}
	err = trial_parse_postmaster_pid(buf, len, &p, sockdir,
					 sizeof(sockdir));
	free(buf);
	if (err) {
		snprintf(why, why_size, "%s: no port and Unix socket directory on lines 4 and 5",
			 path);
		return err;
	}
	if (stat(path, &st)) {
		err = -errno;
		snprintf(why, why_size, "%s: %s", path, strerror(errno));
		return err;
	}
	snprintf(port, sizeof(port), "%u", p);
	x.uid = st.st_uid;
	x.gid = st.st_gid;
	x.as_user = geteuid() == 0 && st.st_uid != 0;
	err = trial_exec_capture(&x, text, sizeof(text), stop, &status);
	if (!err)
		err = trial_parse_number(text, strlen(text), out);
	if (err)
		snprintf(why, why_size, "psql -h %s -p %u as uid %u: %s", sockdir,
			 p, (unsigned int)st.st_uid,
			 err == -EINVAL ? "not one number" :
			 err == -ECHILD ? "failed" : strerror(-err));
	return err;
}

int trial_pg_commits(const struct facts *f, unsigned int timeout_ms,
		     volatile sig_atomic_t *stop,
		     double *out, char *why, size_t why_size)
{
	double sum = 0, one = 0;
	unsigned int i;

	if (!f->nlive_pgs) {
		snprintf(why, why_size, "no running PostgreSQL cluster");
		return -ENOENT;
	}
	for (i = 0; i < f->nlive_pgs; i++) {
		int err = pg_cluster_commits(f->live_pgs[i].data_dir,
					     timeout_ms, stop, &one, why,
					     why_size);

		if (err)
			return err;
		sum += one;
	}
	*out = sum;
	return 0;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}

double trial_latency_p99(unsigned int *ns, size_t n)
{
	size_t k;

	if (!n)
		return 0;
	qsort(ns, n, sizeof(*ns), cmp_uint);
	/* The smallest value at least 99 % of the samples do not exceed. */
	k = (n * 99 + 99) / 100;
	return ns[k ? k - 1 : 0] / 1000.0;
}

int trial_wakeup_probe(unsigned int window_ms, volatile sig_atomic_t *stop,
		       double *out)
{
	long long start = now_ns(), end, next, now, late;
	struct timespec ts;
	unsigned int *ns;
	size_t n = 0, max;

	if (window_ms == 0)
		return -EINVAL;
	/* One wake-up per millisecond of the window. */
	max = window_ms;
	if (max > PROBE_MAX_SAMPLES)
		max = PROBE_MAX_SAMPLES;
	ns = calloc(max, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	end = start + (long long)window_ms * 1000000LL;
	next = start;
	while (n < max) {
		if (*stop) {
			free(ns);
			return -EINTR;
		}
		next += PROBE_PERIOD_NS;
		if (next > end)
			break;
		ts.tv_sec = next / 1000000000LL;
		ts.tv_nsec = next % 1000000000LL;
		/* A signal cuts a sleep short: that wake-up says nothing. */
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			continue;
		now = now_ns();
		late = now - next;
		ns[n++] = late > (long long)UINT32_MAX ? UINT32_MAX :
			  (unsigned int)late;
		/* One long delay is one sample, not a burst of late ones. */
		if (late > PROBE_PERIOD_NS)
			next = now;
	}
	if (!n) {
		free(ns);
		return -EIO;
	}
	*out = trial_latency_p99(ns, n);
	free(ns);
	return 0;
}
