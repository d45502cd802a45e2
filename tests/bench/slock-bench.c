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
 *               [--trace TRACEFS] [--rseq-slice]
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
 *   --trace    count, from the kernel's own sched_switch events, how often a
 *              worker was scheduled out while it held the lock, and where:
 *              preempted inside the kernel (prev_state "R+": the page
 *              fault), at the return to user space (prev_state "R": the
 *              task was runnable but not preempted in the kernel, so
 *              exit_to_user_mode's schedule()), or blocked ("S", "D").
 *              "Held the lock" is read from the user PC the kernel saved
 *              for the task (ftrace's userstacktrace): inside the critical
 *              section's code, between the slock_cs_begin and slock_cs_end
 *              labels. TRACEFS (/sys/kernel/tracing) must already have the
 *              sched_switch event enabled with the userstacktrace option
 *              and tracing off; the bench clears the buffer and turns
 *              tracing on for the measured window only.
 *   --rseq-slice  the holder asks for an rseq time-slice extension around
 *              its critical section (rseq slice_ctrl.request, and
 *              rseq_slice_yield() on release when the kernel granted one);
 *              needs CONFIG_RSEQ_SLICE_EXTENSION (7.x, GENERIC_ENTRY arches)
 *
 * It changes no system setting: huge pages must be provided by the caller.
 * Exit status: 0 ok, 1 usage, 2 setup failed (mapping, fork, tracefs,
 * rseq), 3 the trace lost events (its counts would be wrong).
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
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
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

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE	27
#define AT_RSEQ_ALIGN		28
#endif
/* 7.0 uapi, newer than Debian 12's headers */
#ifndef PR_RSEQ_SLICE_EXTENSION
#define PR_RSEQ_SLICE_EXTENSION		79
#define PR_RSEQ_SLICE_EXTENSION_SET	2
#define PR_RSEQ_SLICE_EXT_ENABLE	0x01
#endif
#ifndef __NR_rseq_slice_yield
#define __NR_rseq_slice_yield		471
#endif
#define RSEQ_FLAG_UNREGISTER		1	/* enum rseq_flags: 1 << 0 */

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
	uint64_t slice_granted;	/* critical sections the kernel extended */
	uint64_t slice_yielded;	/* rseq_slice_yield() returned 1 */
} __attribute__((aligned(128)));

/*
 * The registered rseq area in the 7.x layout (struct rseq up to
 * slice_ctrl), under its own name: glibc's <sys/rseq.h> has the 6.x one.
 */
struct rseq_area {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
	uint32_t node_id;
	uint32_t mm_cid;
	volatile uint8_t slice_request;
	volatile uint8_t slice_granted;
	uint16_t slice_reserved;
	uint8_t end[64];
} __attribute__((aligned(256)));

/* What the kernel saw of the workers while they held the lock. */
struct holder_counts {
	uint64_t in_kernel;	/* preempted in the kernel: "R+" */
	/* scheduled at the return to user ("R"), by how the task entered
	 * the kernel: enum entry_kind (other, page fault, interrupt) */
	uint64_t at_return[3];
	uint64_t blocked;	/* slept: any other state */
	uint64_t not_holding;	/* worker switches outside the section */
	uint64_t events;	/* worker sched_switch events read */
	uint64_t no_stack;	/* events without a user PC */
	uint64_t lost;		/* ring-buffer overruns and drops */
};

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
	const char *tracefs;
	bool rseq_slice;
};

static struct rseq_area rseq_self;

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

/* Labels around the critical section's code, for --trace. */
extern const char slock_cs_begin[], slock_cs_end[];

/*
 * The critical section, from the first instruction after the lock is
 * taken to the unlock store: hand out the next never-used page and touch
 * it. Kept out of line, and bracketed by global labels, so that a user PC
 * inside [slock_cs_begin, slock_cs_end) means "holds the lock". The
 * "memory" clobbers keep every access of the section between the labels.
 */
#if defined(__clang__)
#define NOINLINE_NOCLONE __attribute__((noinline))
#else
#define NOINLINE_NOCLONE __attribute__((noinline, noclone))
#endif

static NOINLINE_NOCLONE void
critical_section(struct shared *sh, int id, char *area, size_t size)
{
	uint64_t npages = size / PAGE_4K;
	uint64_t page;

	__asm__ __volatile__(".globl slock_cs_begin\nslock_cs_begin:" ::: "memory");
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
	__asm__ __volatile__(".globl slock_cs_end\nslock_cs_end:" ::: "memory");
}

static void worker(struct shared *sh, int id, char *area, size_t size,
		   long outside, bool rseq_slice)
{
	struct worker_stats *st = &sh->w[id];
	int spins_per_delay = DEFAULT_SPINS_PER_DELAY;
	unsigned int seed = (unsigned int)getpid();
	volatile uint64_t busy = 0;
	long i;

	if (rseq_slice &&
	    prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_SET,
		  PR_RSEQ_SLICE_EXT_ENABLE, 0, 0)) {
		fprintf(stderr, "slock-bench: prctl(PR_RSEQ_SLICE_EXTENSION): %s\n",
			strerror(errno));
		_exit(2);
	}
	while (!sh->go)
		usleep(100);
	while (!sh->stop) {
		s_lock(sh, st, &spins_per_delay, &seed);
		if (rseq_slice) {
			rseq_self.slice_request = 1;
			__asm__ __volatile__("" ::: "memory");
		}
		critical_section(sh, id, area, size);
		if (rseq_slice) {
			__asm__ __volatile__("" ::: "memory");
			rseq_self.slice_request = 0;
			if (rseq_self.slice_granted) {
				st->slice_granted++;
				if (syscall(__NR_rseq_slice_yield) == 1)
					st->slice_yielded++;
			}
		}
		for (i = 0; i < outside; i++)
			busy += (uint64_t)i;
	}
	(void)busy;
	_exit(0);
}

/*
 * Replace glibc's rseq registration of this thread by one in the 7.x
 * layout (the slice extension needs a v2 registration, longer than the
 * original 32 bytes). Forked workers inherit it.
 */
static int rseq_register_v2(void)
{
	unsigned long feature = getauxval(AT_RSEQ_FEATURE_SIZE);
	unsigned long align = getauxval(AT_RSEQ_ALIGN);
	void *glibc_area = (char *)__builtin_thread_pointer() + __rseq_offset;
	unsigned int len;

	if (feature <= 32 || feature > sizeof(rseq_self) ||
	    align > __alignof__(rseq_self)) {
		fprintf(stderr, "slock-bench: this kernel has no extended rseq "
			"(AT_RSEQ_FEATURE_SIZE %lu, AT_RSEQ_ALIGN %lu)\n",
			feature, align);
		return -1;
	}
	/* glibc registered 32 bytes, or its __rseq_size; try both */
	if (__rseq_size &&
	    syscall(__NR_rseq, glibc_area, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG) &&
	    syscall(__NR_rseq, glibc_area, __rseq_size, RSEQ_FLAG_UNREGISTER,
		    RSEQ_SIG)) {
		fprintf(stderr, "slock-bench: cannot unregister glibc's rseq: %s\n",
			strerror(errno));
		return -1;
	}
	len = (unsigned int)(feature + align - 1) / (unsigned int)align *
	      (unsigned int)align;
	if (len < 64)
		len = 64;
	if (syscall(__NR_rseq, &rseq_self, len, 0, RSEQ_SIG)) {
		fprintf(stderr, "slock-bench: rseq(%u bytes): %s\n", len,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Write @text to TRACEFS/@name; 0 or -1 with a message. */
static int tracefs_write(const char *tracefs, const char *name,
			 const char *text, int oflags)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tracefs, name);
	fd = open(path, O_WRONLY | oflags);
	if (fd < 0) {
		fprintf(stderr, "slock-bench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	n = write(fd, text, strlen(text));
	close(fd);
	if (n != (ssize_t)strlen(text)) {
		fprintf(stderr, "slock-bench: write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static long worker_index(const pid_t *pids, long procs, long pid)
{
	long i;

	for (i = 0; i < procs; i++)
		if (pids[i] == pid)
			return i;
	return -1;
}

/*
 * Sum the per-CPU "overrun" and "dropped events" of TRACEFS/per_cpu/cpuN/
 * stats: any loss means the counts below miss switches.
 */
static uint64_t trace_losses(const char *tracefs, long cpus)
{
	char path[512], line[256];
	uint64_t lost = 0;
	unsigned long long v;
	long c;

	for (c = 0; c < cpus; c++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%ld/stats", tracefs, c);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "overrun: %llu", &v) == 1 ||
			    sscanf(line, "dropped events: %llu", &v) == 1)
				lost += v;
		}
		fclose(f);
	}
	return lost;
}

/* What the kernel stack of a switch shows the task was entered by. */
enum entry_kind { ENTRY_OTHER, ENTRY_FAULT, ENTRY_IRQ };

/*
 * Kernel entry points on the stack of a schedule() call, arm64 and x86_64:
 * a user page fault, or an interrupt (the tick, an IPI).
 */
static enum entry_kind entry_of(const char *frame)
{
	static const char *const fault[] = {
		"el0_da", "do_page_fault", "do_mem_abort", "exc_page_fault",
		"do_user_addr_fault", "handle_mm_fault",
	};
	static const char *const irq[] = {
		"el0_interrupt", "el1_interrupt", "el0t_64_irq", "el1h_64_irq",
		"sysvec_", "common_interrupt", "irqentry_exit_to_kernel",
	};
	size_t i;

	for (i = 0; i < sizeof(fault) / sizeof(fault[0]); i++)
		if (strstr(frame, fault[i]))
			return ENTRY_FAULT;
	for (i = 0; i < sizeof(irq) / sizeof(irq[0]); i++)
		if (strstr(frame, irq[i]))
			return ENTRY_IRQ;
	return ENTRY_OTHER;
}

/* A worker's switch, gathered from its event and the two stack entries. */
struct pending_switch {
	char state[8];		/* prev_state; "" when nothing is pending */
	enum entry_kind entry;
	bool have_pc;
	unsigned long long pc;
};

static void classify(struct pending_switch *ps, struct holder_counts *hc)
{
	if (!ps->state[0])
		return;
	if (!ps->have_pc)
		hc->no_stack++;
	else if (ps->pc < (uintptr_t)slock_cs_begin || ps->pc >= (uintptr_t)slock_cs_end)
		hc->not_holding++;
	else if (!strcmp(ps->state, "R+"))
		hc->in_kernel++;
	else if (!strcmp(ps->state, "R"))
		hc->at_return[ps->entry]++;
	else
		hc->blocked++;
	memset(ps, 0, sizeof(*ps));
}

/*
 * Read TRACEFS/trace. With the stacktrace and userstacktrace options, each
 * worker sched_switch event is followed, on the same CPU, by a "<stack
 * trace>" entry (the kernel stack: how the task entered the kernel) and a
 * "<user stack trace>" entry whose first frame is the user PC it left user
 * space at; their frames are the " => " lines after each entry's header.
 * Classify every worker switch by that PC, prev_state and the entry.
 */
static int trace_classify(const char *tracefs, const pid_t *pids, long procs,
			  struct holder_counts *hc)
{
	enum { MAX_CPUS = 256 };
	enum { CUR_NONE, CUR_KSTACK, CUR_USTACK } cur = CUR_NONE;
	static struct pending_switch pending[MAX_CPUS];
	char path[512], line[1024];
	int cpu = -1, c;
	FILE *f;

	memset(pending, 0, sizeof(pending));
	snprintf(path, sizeof(path), "%s/trace", tracefs);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "slock-bench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *br, *p, *pp, *st;
		long pid;

		if (line[0] == '#')
			continue;
		if (strstr(line, " => ")) {	/* a frame of the last entry */
			struct pending_switch *ps;
			unsigned long long ip;
			const char *lt = strchr(line, '<');

			if (cpu < 0 || cur == CUR_NONE)
				continue;
			ps = &pending[cpu];
			if (cur == CUR_KSTACK && ps->entry == ENTRY_OTHER)
				ps->entry = entry_of(line);
			if (cur == CUR_USTACK && !ps->have_pc && lt &&
			    sscanf(lt + 1, "%llx", &ip) == 1) {
				ps->pc = ip;
				ps->have_pc = true;
			}
			continue;
		}
		cur = CUR_NONE;
		br = strchr(line, '[');
		cpu = br ? atoi(br + 1) : -1;
		if (cpu < 0 || cpu >= MAX_CPUS) {
			cpu = -1;
			continue;
		}
		if (strstr(line, "<user stack trace>")) {
			if (pending[cpu].state[0])
				cur = CUR_USTACK;
			continue;
		}
		if (strstr(line, "<stack trace>")) {
			if (pending[cpu].state[0])
				cur = CUR_KSTACK;
			continue;
		}
		p = strstr(line, " sched_switch: ");
		if (!p)
			continue;
		classify(&pending[cpu], hc);
		pp = strstr(p, " prev_pid=");
		st = strstr(p, " prev_state=");
		if (!pp || !st)
			continue;
		pid = strtol(pp + 10, NULL, 10);
		if (worker_index(pids, procs, pid) < 0)
			continue;
		hc->events++;
		sscanf(st + 12, "%7s", pending[cpu].state);
	}
	fclose(f);
	for (c = 0; c < MAX_CPUS; c++)
		classify(&pending[c], hc);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: slock-bench [--mapping anon|hugetlb|thp] [--size MIB] [--procs P]\n"
		"                   [--seconds S] [--outside N] [--json] [--label TEXT]\n"
		"                   [--trace TRACEFS] [--rseq-slice]\n");
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
		if (!strcmp(a, "--rseq-slice")) {
			o->rseq_slice = true;
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
		} else if (!strcmp(a, "--trace")) {
			o->tracefs = val;
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

static double per_million(uint64_t n, uint64_t of)
{
	return of ? 1e6 * (double)n / (double)of : 0.0;
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
	struct holder_counts hc = { 0 };
	uint64_t at_return = 0;
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

	if (o.rseq_slice && rseq_register_v2())
		return 2;
	/* tracing is off until the measured window; clear what it holds */
	if (o.tracefs && (tracefs_write(o.tracefs, "tracing_on", "0", 0) ||
			  tracefs_write(o.tracefs, "trace", "", O_TRUNC)))
		return 2;

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
			worker(sh, (int)i, area, size, o.outside, o.rseq_slice);
	}
	if (!failed && o.tracefs && tracefs_write(o.tracefs, "tracing_on", "1", 0)) {
		sh->stop = 1;
		sh->go = 1;
		failed = 1;
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
		if (o.tracefs)
			tracefs_write(o.tracefs, "tracing_on", "0", 0);
	}
	for (i = 0; i < o.procs; i++) {
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed = 1;
	}
	if (failed)
		return 2;
	getrusage(RUSAGE_CHILDREN, &ru);
	if (o.tracefs) {
		hc.lost = trace_losses(o.tracefs, cpus);
		if (trace_classify(o.tracefs, pids, o.procs, &hc))
			return 2;
		at_return = hc.at_return[ENTRY_OTHER] + hc.at_return[ENTRY_FAULT] +
			    hc.at_return[ENTRY_IRQ];
	}

	for (i = 0; i < o.procs; i++) {
		struct worker_stats *w = &sh->w[i];

		tot.acquisitions += w->acquisitions;
		tot.contended += w->contended;
		tot.spins += w->spins;
		tot.delays += w->delays;
		tot.delay_us += w->delay_us;
		tot.slice_granted += w->slice_granted;
		tot.slice_yielded += w->slice_yielded;
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
		printf(",\"rseq_slice\":%s", o.rseq_slice ? "true" : "false");
		if (o.rseq_slice)
			printf(",\"slice_granted\":%" PRIu64 ",\"slice_yielded\":%" PRIu64,
			       tot.slice_granted, tot.slice_yielded);
		if (o.tracefs)
			printf(",\"trace\":{\"in_kernel\":%" PRIu64 ",\"at_return\":%" PRIu64
			       ",\"at_return_fault\":%" PRIu64 ",\"at_return_irq\":%" PRIu64
			       ",\"at_return_other\":%" PRIu64
			       ",\"blocked\":%" PRIu64 ",\"not_holding\":%" PRIu64
			       ",\"events\":%" PRIu64 ",\"no_stack\":%" PRIu64
			       ",\"lost\":%" PRIu64 ",\"in_kernel_pm\":%.2f"
			       ",\"at_return_pm\":%.2f,\"at_return_fault_pm\":%.2f"
			       ",\"at_return_irq_pm\":%.2f,\"blocked_pm\":%.2f}",
			       hc.in_kernel, at_return, hc.at_return[ENTRY_FAULT],
			       hc.at_return[ENTRY_IRQ], hc.at_return[ENTRY_OTHER],
			       hc.blocked, hc.not_holding, hc.events, hc.no_stack, hc.lost,
			       per_million(hc.in_kernel, tot.acquisitions),
			       per_million(at_return, tot.acquisitions),
			       per_million(hc.at_return[ENTRY_FAULT], tot.acquisitions),
			       per_million(hc.at_return[ENTRY_IRQ], tot.acquisitions),
			       per_million(hc.blocked, tot.acquisitions));
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
		if (o.rseq_slice)
			printf("  rseq slice ext.    %" PRIu64 " sections extended, %" PRIu64
			       " yielded in time\n", tot.slice_granted, tot.slice_yielded);
		if (o.tracefs)
			printf("  holder scheduled out, per million sections: %.2f preempted in the\n"
			       "    kernel, %.2f at the return to user space (%.2f from a page\n"
			       "    fault, %.2f from an interrupt), %.2f blocked\n"
			       "    (%" PRIu64 " worker switches traced, %" PRIu64
			       " outside the section, %" PRIu64 " without a PC, %" PRIu64 " lost)\n",
			       per_million(hc.in_kernel, tot.acquisitions),
			       per_million(at_return, tot.acquisitions),
			       per_million(hc.at_return[ENTRY_FAULT], tot.acquisitions),
			       per_million(hc.at_return[ENTRY_IRQ], tot.acquisitions),
			       per_million(hc.blocked, tot.acquisitions), hc.events,
			       hc.not_holding, hc.no_stack, hc.lost);
		if (o.mapping != MAP_KIND_ANON && huge_kb <= 0)
			printf("  note: no huge pages were used; %s\n",
			       o.mapping == MAP_KIND_THP ?
			       "shmem THP needs shmem_enabled advise or always" :
			       "check vm.nr_hugepages");
	}
	/* counts that missed events are not counts */
	return o.tracefs && hc.lost ? 3 : 0;
}
