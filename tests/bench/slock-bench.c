// SPDX-License-Identifier: GPL-2.0
/*
 * slock-bench - a PostgreSQL-like s_lock microbenchmark.
 *
 * P worker processes (forked, like PostgreSQL backends) take one userspace
 * test-and-set spinlock that lives in a MAP_SHARED|MAP_ANONYMOUS mapping.
 * Waiters spin, then sleep with a growing randomised delay, as
 * PostgreSQL's s_lock()/perform_spin_delay() do (src/backend/storage/lmgr/
 * s_lock.c). Inside the critical section the holder first-touches the next
 * 4 KiB page of a large shared mapping, like StrategyGetBuffer handing out
 * never-used buffers of a fresh buffer pool: without huge pages every such
 * critical section takes a page fault, and a lock holder preempted inside the
 * fault keeps every other worker spinning.
 *
 *   slock-bench [--mapping anon|hugetlb|thp] [--size MIB] [--procs P]
 *               [--seconds S] [--outside N] [--json] [--label TEXT]
 *
 *   --mapping  anon: MAP_SHARED|MAP_ANONYMOUS (4 KiB pages unless shmem THP
 *              is "always"); hugetlb: plus MAP_HUGETLB (needs vm.nr_hugepages);
 *              thp: anon plus madvise(MADV_HUGEPAGE) (needs shmem_enabled
 *              advise or always)
 *   --size     the touched mapping in MiB (default 256); when every page has
 *              been touched the holder punches it out (MADV_REMOVE) and the
 *              walk starts again ("wraps")
 *   --procs    workers (default 4 x online CPUs)
 *   --seconds  measuring time (default 5)
 *   --outside  iterations of busy work between critical sections (default 200)
 *
 * It changes no system setting: huge pages must be provided by the caller.
 * Exit status: 0 ok, 1 usage, 2 setup failed (mapping, fork).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif
#ifndef MADV_HUGEPAGE
#define MADV_HUGEPAGE 14
#endif
#ifndef MADV_REMOVE
#define MADV_REMOVE 9
#endif

#define PAGE_4K		4096UL
#define HUGE_2M		(2UL << 20)
#define MAX_PROCS	4096
#define HIST_BUCKETS	48

/* PostgreSQL 15 s_lock.c constants */
#define DEFAULT_SPINS_PER_DELAY	100
#define MIN_SPINS_PER_DELAY	10
#define MAX_SPINS_PER_DELAY	1000
#define MIN_DELAY_USEC		1000L
#define MAX_DELAY_USEC		1000000L

enum mapping { MAP_KIND_ANON, MAP_KIND_HUGETLB, MAP_KIND_THP };

static const char *const mapping_names[] = { "anon", "hugetlb", "thp" };

struct worker_stats {
	uint64_t acquisitions;
	uint64_t contended;	/* acquisitions that had to wait */
	uint64_t spins;		/* failed test-and-set attempts */
	uint64_t delays;	/* sleeps in the backoff */
	uint64_t delay_us;	/* time asked to sleep */
	uint64_t wait_ns;	/* first failed attempt to acquisition */
	uint64_t wait_max_ns;
	uint64_t hist[HIST_BUCKETS];	/* log2 buckets of contended wait ns */
} __attribute__((aligned(128)));

struct shared {
	volatile int lock __attribute__((aligned(128)));
	uint64_t next_page;	/* under lock */
	uint64_t wraps;		/* under lock */
	uint64_t sink;		/* under lock */
	volatile int go __attribute__((aligned(128)));
	volatile int stop;
	struct worker_stats w[];
};

struct options {
	enum mapping mapping;
	unsigned long size_mib;
	long procs;
	double seconds;
	long outside;
	bool json;
	const char *label;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline void spin_delay(void)
{
#if defined(__aarch64__)
	__asm__ __volatile__("isb" ::: "memory");
#elif defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static inline int tas(volatile int *lock)
{
	return __atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE);
}

static inline void s_unlock(volatile int *lock)
{
	__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

static unsigned int log2_bucket(uint64_t v)
{
	unsigned int b = 0;

	while (v > 1 && b < HIST_BUCKETS - 1) {
		v >>= 1;
		b++;
	}
	return b;
}

/*
 * s_lock(): test-and-set, spin (TAS_SPIN) spins_per_delay times, then
 * sleep cur_delay, grown by a random fraction of itself, wrapping to the
 * minimum beyond the maximum; spins_per_delay adapts as in
 * finish_spin_delay().
 */
static void s_lock(struct shared *sh, struct worker_stats *st,
		   int *spins_per_delay, unsigned int *seed)
{
	uint64_t t0, waited;
	long cur_delay = 0;
	int spins = 0;

	if (!tas(&sh->lock)) {
		st->acquisitions++;
		if (*spins_per_delay < MAX_SPINS_PER_DELAY)
			*spins_per_delay = *spins_per_delay + 100 > MAX_SPINS_PER_DELAY ?
					   MAX_SPINS_PER_DELAY : *spins_per_delay + 100;
		return;
	}
	t0 = now_ns();
	for (;;) {
		/* TAS_SPIN: test before test-and-set */
		if (!sh->lock && !tas(&sh->lock))
			break;
		st->spins++;
		spin_delay();
		if (++spins >= *spins_per_delay) {
			if (cur_delay == 0)
				cur_delay = MIN_DELAY_USEC;
			st->delays++;
			st->delay_us += (uint64_t)cur_delay;
			usleep((useconds_t)cur_delay);
			cur_delay += (long)(cur_delay *
				((double)rand_r(seed) / RAND_MAX) + 0.5);
			if (cur_delay > MAX_DELAY_USEC)
				cur_delay = MIN_DELAY_USEC;
			spins = 0;
		}
	}
	waited = now_ns() - t0;
	st->acquisitions++;
	st->contended++;
	st->wait_ns += waited;
	if (waited > st->wait_max_ns)
		st->wait_max_ns = waited;
	st->hist[log2_bucket(waited)]++;
	if (cur_delay == 0) {
		if (*spins_per_delay < MAX_SPINS_PER_DELAY)
			*spins_per_delay = *spins_per_delay + 100 > MAX_SPINS_PER_DELAY ?
					   MAX_SPINS_PER_DELAY : *spins_per_delay + 100;
	} else if (*spins_per_delay > MIN_SPINS_PER_DELAY) {
		(*spins_per_delay)--;
	}
}

static void worker(struct shared *sh, int id, char *area, size_t size,
		   long outside)
{
	struct worker_stats *st = &sh->w[id];
	int spins_per_delay = DEFAULT_SPINS_PER_DELAY;
	unsigned int seed = (unsigned int)getpid();
	uint64_t npages = size / PAGE_4K;
	volatile uint64_t busy = 0;
	uint64_t page;
	long i;

	while (!sh->go)
		usleep(100);
	while (!sh->stop) {
		s_lock(sh, st, &spins_per_delay, &seed);
		/* the critical section: hand out the next never-used page */
		page = sh->next_page++;
		if (page >= npages) {
			madvise(area, size, MADV_REMOVE);
			sh->wraps++;
			sh->next_page = 1;
			page = 0;
		}
		area[page * PAGE_4K] = (char)id;
		sh->sink += (uint64_t)area[page * PAGE_4K];
		s_unlock(&sh->lock);
		for (i = 0; i < outside; i++)
			busy += (uint64_t)i;
	}
	_exit(0);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: slock-bench [--mapping anon|hugetlb|thp] [--size MIB] [--procs P]\n"
		"                   [--seconds S] [--outside N] [--json] [--label TEXT]\n");
}

static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	long v;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--json")) {
			o->json = true;
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		}
		if (!val)
			goto bad;
		i++;
		if (!strcmp(a, "--mapping")) {
			if (!strcmp(val, "anon"))
				o->mapping = MAP_KIND_ANON;
			else if (!strcmp(val, "hugetlb"))
				o->mapping = MAP_KIND_HUGETLB;
			else if (!strcmp(val, "thp"))
				o->mapping = MAP_KIND_THP;
			else
				goto bad;
		} else if (!strcmp(a, "--size")) {
			if (parse_long(val, 2, 1L << 24, &v))
				goto bad;
			o->size_mib = (unsigned long)v;
		} else if (!strcmp(a, "--procs")) {
			if (parse_long(val, 1, MAX_PROCS, &o->procs))
				goto bad;
		} else if (!strcmp(a, "--seconds")) {
			char *end;

			o->seconds = strtod(val, &end);
			if (end == val || *end || o->seconds <= 0 || o->seconds > 86400)
				goto bad;
		} else if (!strcmp(a, "--outside")) {
			if (parse_long(val, 0, 1L << 30, &o->outside))
				goto bad;
		} else if (!strcmp(a, "--label")) {
			o->label = val;
		} else {
			goto bad;
		}
	}
	return 0;
bad:
	fprintf(stderr, "slock-bench: bad argument '%s'\n", argv[i < argc ? i : argc - 1]);
	usage(stderr);
	return -1;
}

/* First line of @path without the newline, or "" */
static void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)size, f)) {
		n = strlen(buf);
		while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
			buf[--n] = '\0';
	}
	fclose(f);
}

/*
 * Sum of the smaps @field (kB) over the mapping that starts at @addr in
 * process @pid: a worker's, since only the workers map the pages (the
 * largest over the first 16 workers is reported).
 */
static long smaps_field_kb(pid_t pid, void *addr, const char *field)
{
	char line[512], start[32], path[64];
	bool in = false;
	long kb = -1, v;
	size_t flen = strlen(field);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "r");

	if (!f)
		return -1;
	snprintf(start, sizeof(start), "%lx-", (unsigned long)(uintptr_t)addr);
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '-') && strchr(line, ' ') &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = !strncmp(line, start, strlen(start));
			continue;
		}
		if (in && !strncmp(line, field, flen) && line[flen] == ':' &&
		    sscanf(line + flen + 1, "%ld", &v) == 1)
			kb = (kb < 0 ? 0 : kb) + v;
	}
	fclose(f);
	return kb;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static uint64_t hist_percentile(const uint64_t *hist, uint64_t n, double p)
{
	uint64_t want = (uint64_t)(p * (double)n), seen = 0;
	unsigned int b;

	if (!n)
		return 0;
	for (b = 0; b < HIST_BUCKETS; b++) {
		seen += hist[b];
		if (seen > want)
			return 1ULL << (b + 1);	/* upper bound of the bucket */
	}
	return 1ULL << HIST_BUCKETS;
}

int main(int argc, char **argv)
{
	struct options o = {
		.mapping = MAP_KIND_ANON, .size_mib = 256, .procs = 0,
		.seconds = 5, .outside = 200, .json = false, .label = "",
	};
	struct worker_stats tot = { 0 };
	char preempt[256], thp[256], kernel[300];
	struct shared *sh;
	struct rusage ru;
	struct utsname un;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), huge_kb = -1, rss_kb = -1;
	size_t shsize, size;
	uint64_t t0 = 0, t1 = 1, mean_wait;
	double elapsed, rate;
	pid_t *pids;
	char *area;
	int flags, status, failed = 0;
	long i;
	unsigned int b;

	if (parse_args(argc, argv, &o))
		return 1;
	if (cpus < 1)
		cpus = 1;
	if (!o.procs)
		o.procs = 4 * cpus > MAX_PROCS ? MAX_PROCS : 4 * cpus;
	size = (size_t)o.size_mib << 20;
	size = (size + HUGE_2M - 1) & ~(HUGE_2M - 1);

	shsize = sizeof(*sh) + (size_t)o.procs * sizeof(struct worker_stats);
	sh = mmap(NULL, shsize, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("slock-bench: mmap control");
		return 2;
	}
	flags = MAP_SHARED | MAP_ANONYMOUS;
	if (o.mapping == MAP_KIND_HUGETLB)
		flags |= MAP_HUGETLB;
	area = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (area == MAP_FAILED) {
		fprintf(stderr, "slock-bench: mmap %zu MiB %s: %s%s\n", size >> 20,
			mapping_names[o.mapping], strerror(errno),
			o.mapping == MAP_KIND_HUGETLB ?
			" (reserve hugetlb pages: vm.nr_hugepages)" : "");
		return 2;
	}
	if (o.mapping == MAP_KIND_THP && madvise(area, size, MADV_HUGEPAGE)) {
		fprintf(stderr, "slock-bench: madvise(MADV_HUGEPAGE): %s\n",
			strerror(errno));
		return 2;
	}

	pids = calloc((size_t)o.procs, sizeof(*pids));
	if (!pids)
		return 2;
	for (i = 0; i < o.procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("slock-bench: fork");
			sh->stop = 1;
			sh->go = 1;
			o.procs = i;
			failed = 1;
			break;
		}
		if (pids[i] == 0)
			worker(sh, (int)i, area, size, o.outside);
	}
	if (!failed) {
		t0 = now_ns();
		sh->go = 1;
		usleep((useconds_t)(o.seconds * 1e6));
		/* huge pages actually used, read while the mapping is populated */
		for (i = 0; i < o.procs && i < 16; i++) {
			long h = smaps_field_kb(pids[i], area,
						o.mapping == MAP_KIND_HUGETLB ?
						"Shared_Hugetlb" : "ShmemPmdMapped");
			long r = smaps_field_kb(pids[i], area, "Rss");

			if (h > huge_kb)
				huge_kb = h;
			if (r > rss_kb)
				rss_kb = r;
		}
		sh->stop = 1;
		t1 = now_ns();
	}
	for (i = 0; i < o.procs; i++) {
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed = 1;
	}
	if (failed)
		return 2;
	getrusage(RUSAGE_CHILDREN, &ru);

	for (i = 0; i < o.procs; i++) {
		struct worker_stats *w = &sh->w[i];

		tot.acquisitions += w->acquisitions;
		tot.contended += w->contended;
		tot.spins += w->spins;
		tot.delays += w->delays;
		tot.delay_us += w->delay_us;
		tot.wait_ns += w->wait_ns;
		if (w->wait_max_ns > tot.wait_max_ns)
			tot.wait_max_ns = w->wait_max_ns;
		for (b = 0; b < HIST_BUCKETS; b++)
			tot.hist[b] += w->hist[b];
	}
	elapsed = (double)(t1 - t0) / 1e9;
	rate = (double)tot.acquisitions / elapsed;
	mean_wait = tot.contended ? tot.wait_ns / tot.contended : 0;
	read_line("/sys/kernel/preempt/mode", preempt, sizeof(preempt));
	if (!preempt[0])
		read_line("/sys/kernel/debug/sched/preempt", preempt, sizeof(preempt));
	read_line("/sys/kernel/mm/transparent_hugepage/shmem_enabled", thp, sizeof(thp));
	uname(&un);
	snprintf(kernel, sizeof(kernel), "%s %s", un.release, un.machine);

	if (o.json) {
		printf("{\"label\":");
		json_str(o.label);
		printf(",\"mapping\":\"%s\",\"size_mib\":%zu,\"procs\":%ld,\"cpus\":%ld,"
		       "\"outside\":%ld,\"seconds\":%.3f,\"acquisitions\":%" PRIu64
		       ",\"acq_per_sec\":%.1f,\"contended\":%" PRIu64
		       ",\"contended_pct\":%.2f,\"spins_per_acq\":%.3f,\"delays\":%" PRIu64
		       ",\"delay_ms\":%.1f,\"wait_mean_ns\":%" PRIu64
		       ",\"wait_p50_ns\":%" PRIu64 ",\"wait_p99_ns\":%" PRIu64
		       ",\"wait_max_ns\":%" PRIu64 ",\"wraps\":%" PRIu64
		       ",\"minflt\":%ld,\"nivcsw\":%ld,\"nvcsw\":%ld,\"rss_kb\":%ld,\"huge_kb\":%ld,\"preempt\":",
		       mapping_names[o.mapping], size >> 20, o.procs, cpus, o.outside,
		       elapsed, tot.acquisitions, rate, tot.contended,
		       tot.acquisitions ? 100.0 * (double)tot.contended / (double)tot.acquisitions : 0.0,
		       tot.acquisitions ? (double)tot.spins / (double)tot.acquisitions : 0.0,
		       tot.delays, (double)tot.delay_us / 1000.0, mean_wait,
		       hist_percentile(tot.hist, tot.contended, 0.50),
		       hist_percentile(tot.hist, tot.contended, 0.99),
		       tot.wait_max_ns, sh->wraps, ru.ru_minflt, ru.ru_nivcsw,
		       ru.ru_nvcsw, rss_kb, huge_kb);
		json_str(preempt);
		printf(",\"shmem_enabled\":");
		json_str(thp);
		printf(",\"kernel\":");
		json_str(kernel);
		printf("}\n");
	} else {
		printf("slock-bench %s: %s mapping %zu MiB, %ld procs on %ld CPUs, %.2f s\n",
		       o.label, mapping_names[o.mapping], size >> 20, o.procs, cpus,
		       elapsed);
		printf("  kernel %s, preemption '%s', shmem_enabled '%s'\n",
		       kernel, preempt[0] ? preempt : "?", thp[0] ? thp : "?");
		printf("  acquisitions/s     %.0f (%" PRIu64 " in all)\n",
		       rate, tot.acquisitions);
		printf("  contended          %.2f %% of acquisitions, %.2f spins per acquisition\n",
		       tot.acquisitions ? 100.0 * (double)tot.contended / (double)tot.acquisitions : 0.0,
		       tot.acquisitions ? (double)tot.spins / (double)tot.acquisitions : 0.0);
		printf("  backoff sleeps     %" PRIu64 " (%.1f ms asked)\n", tot.delays,
		       (double)tot.delay_us / 1000.0);
		printf("  wait when contended: mean %" PRIu64 " ns, p50 < %" PRIu64
		       " ns, p99 < %" PRIu64 " ns, max %" PRIu64 " ns\n",
		       mean_wait, hist_percentile(tot.hist, tot.contended, 0.50),
		       hist_percentile(tot.hist, tot.contended, 0.99), tot.wait_max_ns);
		printf("  page faults        %ld minor; %" PRIu64 " wraps of the mapping\n",
		       ru.ru_minflt, sh->wraps);
		printf("  context switches   %ld involuntary, %ld voluntary\n",
		       ru.ru_nivcsw, ru.ru_nvcsw);
		printf("  mapping            rss %ld kB, in huge pages %ld kB (largest worker view)\n",
		       rss_kb, huge_kb);
		if (o.mapping != MAP_KIND_ANON && huge_kb <= 0)
			printf("  note: no huge pages were used; %s\n",
			       o.mapping == MAP_KIND_THP ?
			       "shmem THP needs shmem_enabled advise or always" :
			       "check vm.nr_hugepages");
	}
	return 0;
}
