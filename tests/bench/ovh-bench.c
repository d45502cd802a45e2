// SPDX-License-Identifier: GPL-2.0
/*
 * ovh-bench - small kernel-path loops for patched-vs-unpatched overhead
 * ratios (run under QEMU -icount, where guest time counts instructions).
 *
 *   ovh-bench fault MIB     mmap MAP_SHARED|MAP_ANONYMOUS, first-touch every
 *                           4 KiB page, munmap; prints the ns per page
 *   ovh-bench forkexec N    fork + exec PROG (default /bin/true) + wait, N
 *                           times; prints the ns per round
 *   ovh-bench pipe N        one-byte ping-pong between two processes over
 *                           two pipes, N round trips; prints the ns per trip
 *   ovh-bench now           prints "now BOOTTIME_NS REALTIME_NS": the guest
 *                           scripts' clock (busybox date has no %N)
 *
 * Output: "<test> <ns-per-op>". Exit 0 ok, 1 usage, 2 failure.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static int do_fault(long mib)
{
	size_t size = (size_t)mib << 20, off;
	uint64_t t0, t1;
	char *p;

	t0 = now_ns();
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return 2;
	for (off = 0; off < size; off += 4096)
		p[off] = 1;
	munmap(p, size);
	t1 = now_ns();
	printf("fault %.1f\n", (double)(t1 - t0) / (double)(size / 4096));
	return 0;
}

static int do_forkexec(long n, const char *prog)
{
	uint64_t t0, t1;
	int status;
	long i;
	pid_t pid;

	t0 = now_ns();
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			return 2;
		if (pid == 0) {
			execl(prog, prog, (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			return 2;
	}
	t1 = now_ns();
	printf("forkexec %.1f\n", (double)(t1 - t0) / (double)n);
	return 0;
}

static int do_pipe(long n)
{
	int ab[2], ba[2], status;
	uint64_t t0, t1;
	char c = 0;
	pid_t pid;
	long i;

	if (pipe(ab) || pipe(ba))
		return 2;
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		for (i = 0; i < n; i++) {
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(2);
		}
		_exit(0);
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 2;
	}
	t1 = now_ns();
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 2;
	printf("pipe %.1f\n", (double)(t1 - t0) / (double)n);
	return 0;
}

int main(int argc, char **argv)
{
	long n;

	if (argc == 2 && !strcmp(argv[1], "now")) {
		printf("now %llu %llu\n",
		       (unsigned long long)clock_ns(CLOCK_BOOTTIME),
		       (unsigned long long)clock_ns(CLOCK_REALTIME));
		return 0;
	}
	if (argc < 3 || (n = strtol(argv[2], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: ovh-bench fault MIB | forkexec N [PROG] | pipe N | now\n");
		return 1;
	}
	if (!strcmp(argv[1], "fault"))
		return do_fault(n);
	if (!strcmp(argv[1], "forkexec"))
		return do_forkexec(n, argc > 3 ? argv[3] : "/bin/true");
	if (!strcmp(argv[1], "pipe"))
		return do_pipe(n);
	fprintf(stderr, "ovh-bench: unknown test '%s'\n", argv[1]);
	return 1;
}
