// SPDX-License-Identifier: GPL-2.0
/*
 * stress-switch: switch preemption modes thousands of times through
 * /sys/kernel/preempt/mode and debugfs sched/preempt while a load runs
 * (fork/exec, pipe ping-pong, long pipe copies, page faults on private and
 * shared anonymous memory), and watch the kernel log for splats.
 *
 *   stress-switch [-d] [-m MODE,MODE...] [-n SWITCHES_PER_INTERFACE] [-t MAX_SECONDS]
 *
 * -d: debugfs only, for a kernel without the sysfs file (the unpatched
 * kernel switching full<->lazy, the control of a hang under the stress).
 *
 * Prints TAP. Run as root in a guest, never on a host you care about.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SYSFS_MODE	"/sys/kernel/preempt/mode"
#define DEBUGFS_MODE	"/sys/kernel/debug/sched/preempt"
#define NR_MODES	4
#define MAX_PROCS	16

static const char * const mode_names[NR_MODES] = {
	"none", "voluntary", "full", "lazy",
};

static const char * const splat_patterns[] = {
	"WARNING:", "BUG:", "Oops", "Unable to handle", "Call trace:",
	"Call Trace:", "possible circular locking", "inconsistent lock state",
	"possible recursive locking", "suspicious RCU usage",
	"sleeping function called from invalid context", "scheduling while atomic",
	"KASAN", "UBSAN", "detected stalls", "soft lockup", "hung_task",
	"blocked for more than", "Kernel panic", "list_add corruption",
	"list_del corruption", "refcount_t:",
};

struct shared {
	volatile int stop;
	volatile uint64_t forks, pings, copies, faults, shm_faults;
	volatile uint64_t switches[2], switch_errors[2], bad_ok[2];
	volatile uint64_t reads, read_errors;
	volatile uint64_t kmsg_records, kmsg_dyn, kmsg_splats, kmsg_lost;
	volatile int monitor_ready;
	char first_error[256];
	char first_splat[4][256];
};

static struct shared *sh;
static bool supported[NR_MODES];
static int nr_supported;
static bool debugfs_only;

static void note_error(const char *fmt, const char *a, long b)
{
	if (!sh->first_error[0])
		snprintf(sh->first_error, sizeof(sh->first_error), fmt, a, b);
}

static ssize_t read_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

static ssize_t write_str(const char *path, const char *val)
{
	ssize_t n;
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

/* Well formed: "a b (c) d\n" with known names and one current mode. */
static int parse_current(const char *buf, bool *listed)
{
	char copy[256], *tok, *save;
	int cur = -1, i, nr = 0;

	snprintf(copy, sizeof(copy), "%s", buf);
	if (!strchr(copy, '\n') || strchr(copy, '\n')[1])
		return -1;
	for (tok = strtok_r(copy, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		size_t len = strlen(tok);
		/* debugfs marks the current mode (so), sysfs [so]. */
		bool paren = (tok[0] == '(' && tok[len - 1] == ')') ||
			     (tok[0] == '[' && tok[len - 1] == ']');

		if (paren) {
			tok[len - 1] = '\0';
			tok++;
		}
		for (i = 0; i < NR_MODES; i++)
			if (!strcmp(tok, mode_names[i]))
				break;
		if (i == NR_MODES)
			return -1;
		if (listed)
			listed[i] = true;
		nr++;
		if (paren) {
			if (cur >= 0)
				return -1;
			cur = i;
		}
	}
	return nr ? cur : -1;
}

static void load_forkexec(void)
{
	while (!sh->stop) {
		pid_t pid = fork();

		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (pid > 0 && waitpid(pid, NULL, 0) == pid)
			sh->forks++;
	}
}

static void load_pingpong(void)
{
	int a[2], b[2];
	char c = 0;
	pid_t pid;

	if (pipe(a) || pipe(b))
		_exit(1);
	pid = fork();
	if (pid == 0) {
		close(a[1]);
		close(b[0]);
		while (read(a[0], &c, 1) == 1 && write(b[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	while (!sh->stop) {
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			break;
		sh->pings++;
	}
	close(a[1]);
	waitpid(pid, NULL, 0);
}

/* Long in-kernel copies: pipe_write()/pipe_read() of 4 MiB each. */
static void load_pipecopy(void)
{
	size_t size = 4 << 20;
	char *buf = malloc(size);
	int p[2];

	if (!buf || pipe(p) || fcntl(p[1], F_SETPIPE_SZ, (int)size) < (int)size)
		size = 64 << 10;	/* pipe-max-size not raised: smaller */
	if (!buf)
		_exit(1);
	memset(buf, 1, size);
	while (!sh->stop) {
		if (write(p[1], buf, size) != (ssize_t)size ||
		    read(p[0], buf, size) != (ssize_t)size)
			break;
		sh->copies++;
	}
}

static void load_faults(bool shared_mem)
{
	size_t size = 8 << 20, i;
	long page = sysconf(_SC_PAGESIZE);

	while (!sh->stop) {
		char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			       (shared_mem ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED)
			_exit(1);
		for (i = 0; i < size; i += page)
			p[i] = 1;
		munmap(p, size);
		if (shared_mem)
			sh->shm_faults += size / page;
		else
			sh->faults += size / page;
	}
}

static void switcher(int which, const char *path, long n)
{
	unsigned int seed = 12345 + which;
	char buf[256];
	long i;

	for (i = 0; i < n && !sh->stop; i++) {
		int m = rand_r(&seed) % NR_MODES;
		char val[16];
		ssize_t ret;

		if (!supported[m])
			continue;
		/* Half bare names, half with echo's newline. */
		snprintf(val, sizeof(val), "%s%s", mode_names[m], i & 1 ? "\n" : "");
		ret = write_str(path, val);
		if (ret != (ssize_t)strlen(val)) {
			sh->switch_errors[which]++;
			note_error("write %s: %ld", path, ret);
			continue;
		}
		sh->switches[which]++;
		if (which == debugfs_only && n >= 10 && (i + 1) % (n / 10) == 0)
			printf("# %s switcher: %ld of %ld\n",
			       which ? "debugfs" : "sysfs", i + 1, n);
		if (i % 16 == 0) {
			/*
			 * A padded name is refused by sysfs (which 0 is) only:
			 * debugfs strips blanks, as upstream's always has.
			 */
			ret = write_str(path, i % 32 || which ? "bogus\n" : "full ");
			if (ret != -EINVAL) {
				sh->bad_ok[which]++;
				note_error("bad value on %s: %ld", path, ret);
			}
		}
		if (read_file(path, buf, sizeof(buf)) <= 0 ||
		    parse_current(buf, NULL) < 0) {
			sh->switch_errors[which]++;
			note_error("malformed read of %s: %ld", path, 0);
		}
	}
}

static void reader(void)
{
	char buf[256];

	while (!sh->stop) {
		const char *path = sh->reads & 1 ? DEBUGFS_MODE : SYSFS_MODE;

		if (debugfs_only)
			path = DEBUGFS_MODE;
		else if (access(path, F_OK))
			path = SYSFS_MODE;
		if (read_file(path, buf, sizeof(buf)) <= 0 ||
		    parse_current(buf, NULL) < 0) {
			sh->read_errors++;
			note_error("reader: malformed %s %ld", path, 0);
		}
		sh->reads++;
	}
}

/* Scan every kernel log record from the start of the buffer. */
static void monitor(void)
{
	char rec[2048];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	unsigned int i, n_splat = 0;

	if (fd < 0)
		_exit(1);
	sh->monitor_ready = 1;
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);

		if (n < 0 && errno == EPIPE) {
			sh->kmsg_lost++;
			continue;
		}
		if (n < 0 && errno == EAGAIN) {
			if (sh->stop == 2)
				break;
			usleep(20000);
			continue;
		}
		if (n <= 0)
			break;
		rec[n] = '\0';
		sh->kmsg_records++;
		if (strstr(rec, "Dynamic Preempt: "))
			sh->kmsg_dyn++;
		for (i = 0; i < sizeof(splat_patterns) / sizeof(splat_patterns[0]); i++) {
			if (strstr(rec, splat_patterns[i])) {
				if (n_splat < 4) {
					char *nl = strchr(rec, '\n');

					if (nl)
						*nl = '\0';
					snprintf(sh->first_splat[n_splat],
						 sizeof(sh->first_splat[0]), "%.200s", rec);
				}
				n_splat++;
				sh->kmsg_splats++;
				break;
			}
		}
	}
	close(fd);
}

static pid_t spawn(void (*fn)(void))
{
	pid_t pid = fork();

	if (pid == 0) {
		fn();
		_exit(0);
	}
	return pid;
}

static void load_faults_private(void) { load_faults(false); }
static void load_faults_shared(void) { load_faults(true); }

static long switches_n = 3000;

static void switcher_sysfs(void) { switcher(0, SYSFS_MODE, switches_n); }
static void switcher_debugfs(void) { switcher(1, DEBUGFS_MODE, switches_n); }

static int tap_n;

static void tap(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* The TAP line of switcher WHICH: enough switches, no error. */
static bool tap_switcher(int which, const char *name)
{
	bool ok = sh->switches[which] >= (uint64_t)switches_n * nr_supported / NR_MODES / 2 &&
		  !sh->switch_errors[which] && !sh->bad_ok[which];

	tap(ok, "%s: %llu switches, %llu errors, %llu bad values accepted", name,
	    (unsigned long long)sh->switches[which],
	    (unsigned long long)sh->switch_errors[which],
	    (unsigned long long)sh->bad_ok[which]);
	return ok;
}

int main(int argc, char **argv)
{
	pid_t loads[MAX_PROCS], sw[2] = { 0, 0 }, rd, mon;
	int nloads = 0, opt, i, orig, fails = 0;
	bool have_debugfs, restored;
	const char *only_modes = NULL;
	long max_seconds = 600;
	char buf[256], val[16];
	const char *mode_file;
	time_t start;

	while ((opt = getopt(argc, argv, "dm:n:t:")) != -1) {
		if (opt == 'd')
			debugfs_only = true;
		else if (opt == 'm')
			only_modes = optarg;
		else if (opt == 'n')
			switches_n = atol(optarg);
		else if (opt == 't')
			max_seconds = atol(optarg);
		else
			return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..7\n");

	mode_file = debugfs_only ? DEBUGFS_MODE : SYSFS_MODE;
	if (read_file(mode_file, buf, sizeof(buf)) <= 0 ||
	    (orig = parse_current(buf, supported)) < 0) {
		printf("Bail out! cannot read %s\n", mode_file);
		return 1;
	}
	for (i = 0; i < NR_MODES; i++) {
		/* -m full,lazy: switch among these modes only */
		if (only_modes && !strstr(only_modes, mode_names[i]))
			supported[i] = false;
		nr_supported += supported[i];
	}
	have_debugfs = !access(DEBUGFS_MODE, F_OK);
	printf("# modes: %s# original mode %s, %ld switches per interface, debugfs %s\n",
	       buf, mode_names[orig], switches_n, have_debugfs ? "yes" : "no");

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	/* Allow the 4 MiB pipes of load_pipecopy() (guest only). */
	write_str("/proc/sys/fs/pipe-max-size", "4194304");

	mon = spawn(monitor);
	while (!sh->monitor_ready)
		usleep(10000);
	loads[nloads++] = spawn(load_forkexec);
	loads[nloads++] = spawn(load_forkexec);
	loads[nloads++] = spawn(load_pingpong);
	loads[nloads++] = spawn(load_pipecopy);
	loads[nloads++] = spawn(load_faults_private);
	loads[nloads++] = spawn(load_faults_shared);
	rd = spawn(reader);

	start = time(NULL);
	if (!debugfs_only)
		sw[0] = spawn(switcher_sysfs);
	if (have_debugfs)
		sw[1] = spawn(switcher_debugfs);
	for (i = 0; i < 2; i++) {
		while (sw[i] > 0) {
			pid_t r = waitpid(sw[i], NULL, WNOHANG);

			if (r == sw[i])
				break;
			if (!sh->stop && time(NULL) - start > max_seconds) {
				sh->stop = 1;
				printf("# time limit of %ld s hit\n", max_seconds);
			}
			usleep(50000);
		}
	}
	printf("# switching took %ld s\n", (long)(time(NULL) - start));
	sh->stop = 1;
	for (i = 0; i < nloads; i++)
		waitpid(loads[i], NULL, 0);
	waitpid(rd, NULL, 0);
	printf("# load stopped\n");

	snprintf(val, sizeof(val), "%s\n", mode_names[orig]);
	restored = write_str(mode_file, val) == (ssize_t)strlen(val) &&
		   read_file(mode_file, buf, sizeof(buf)) > 0 &&
		   parse_current(buf, NULL) == orig;

	printf("# mode restored: %s\n", restored ? "yes" : "no");
	sleep(1);	/* let late messages reach the log */
	sh->stop = 2;
	waitpid(mon, NULL, 0);
	printf("# log monitor done\n");

	if (sh->first_error[0])
		printf("# first error: %s\n", sh->first_error);
#define T(cond, ...) do { bool c_ = (cond); fails += !c_; tap(c_, __VA_ARGS__); } while (0)
	if (debugfs_only)
		tap(true, "# SKIP sysfs not used (-d)");
	else
		fails += !tap_switcher(0, "sysfs");
	if (have_debugfs)
		fails += !tap_switcher(1, "debugfs");
	else
		tap(true, "# SKIP debugfs not mounted");
	T(sh->reads > 0 && !sh->read_errors,
	  "concurrent reads: %llu, %llu malformed",
	  (unsigned long long)sh->reads, (unsigned long long)sh->read_errors);
	T(sh->forks && sh->pings && sh->copies && sh->faults && sh->shm_faults,
	  "load ran: %llu fork/exec, %llu pipe round trips, %llu 4 MiB pipe copies, %llu private + %llu shared page faults",
	  (unsigned long long)sh->forks, (unsigned long long)sh->pings,
	  (unsigned long long)sh->copies, (unsigned long long)sh->faults,
	  (unsigned long long)sh->shm_faults);
	T(sh->kmsg_dyn > 0,
	  "mode changes logged: %llu \"Dynamic Preempt:\" records",
	  (unsigned long long)sh->kmsg_dyn);
	for (i = 0; i < 4 && sh->first_splat[i][0]; i++)
		printf("# splat: %s\n", sh->first_splat[i]);
	T(!sh->kmsg_splats,
	  "kernel log clean: %llu records scanned, %llu splat lines, %llu records lost to overruns",
	  (unsigned long long)sh->kmsg_records,
	  (unsigned long long)sh->kmsg_splats,
	  (unsigned long long)sh->kmsg_lost);
	T(restored, "original mode %s restored", mode_names[orig]);
	return fails ? 1 : 0;
}
