// SPDX-License-Identifier: GPL-2.0
/*
 * bench-shmem-fault - cost of first-touch faults on shared anonymous memory.
 *
 *   bench-shmem-fault [MIB [ITERATIONS [WARMUP]]]   (defaults: 64 20 2)
 *
 * Each iteration maps MIB MiB MAP_SHARED|MAP_ANONYMOUS, writes one byte
 * into every 4 KiB page (one shmem fault per page with base pages),
 * unmaps, and prints the elapsed time of the iteration in nanoseconds on
 * a line of its own. WARMUP iterations run first and are not printed (the
 * first run after boot also pays for the host faulting in guest RAM).
 *
 * Used to compare kernels with and without the shmem huge page warning:
 * the warning's check sits on this fault path. With the default threshold
 * (1 GiB) a 64 MiB mapping exercises the fast path; pass a MIB above the
 * threshold to exercise the once-per-process slow path as well.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/mman.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 64;
	int iters = argc > 2 ? atoi(argv[2]) : 20;
	int warmup = argc > 3 ? atoi(argv[3]) : 2;
	size_t len = mib << 20, off;
	int i;

	for (i = 0; i < warmup + iters; i++) {
		long long t0 = now_ns(), t1;
		volatile char *p;

		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		for (off = 0; off < len; off += 4096)
			p[off] = 1;
		munmap((void *)p, len);
		t1 = now_ns();
		if (i >= warmup)
			printf("%lld\n", t1 - t0);
	}
	return 0;
}
