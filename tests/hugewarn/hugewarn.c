// SPDX-License-Identifier: GPL-2.0
/*
 * hugewarn - map and populate shared memory segments in a fresh child
 * process, for the large-shared-mapping-without-huge-pages warning tests.
 *
 *   hugewarn SPEC...
 *   SPEC = KIND:MIB[:OPT]
 *   KIND = anon | sysv | posix | memfd | private | hugetlb | shm-hugetlb |
 *          memfd-hugetlb
 *   OPT  = madv (MADV_HUGEPAGE after mapping, before touching) |
 *          nohuge (MADV_NOHUGEPAGE)
 *
 * The parent forks one child, which maps every segment, writes one byte
 * into each 4 KiB page, reads ShmemHugePages from /proc/meminfo, and exits;
 * all the segments of one invocation live in the same process. The parent
 * prints "pid=<child pid> rc=<child exit code> shmem_huge_kb=<kB>" and exits
 * with the child's exit code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif
#ifndef SHM_HUGETLB
#define SHM_HUGETLB 04000
#endif
#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif

static int memfd(const char *name, unsigned int flags)
{
	return syscall(SYS_memfd_create, name, flags);
}

static long meminfo_kb(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

static void *map_fd(int fd, size_t len, int flags)
{
	void *p;

	if (ftruncate(fd, len)) {
		perror("ftruncate");
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static void *map_one(const char *kind, size_t len, int n)
{
	char name[64];
	void *p = NULL;
	int fd, id;

	if (!strcmp(kind, "anon") || !strcmp(kind, "hugetlb")) {
		int fl = MAP_SHARED | MAP_ANONYMOUS;

		if (!strcmp(kind, "hugetlb"))
			fl |= MAP_HUGETLB;
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, fl, -1, 0);
		if (p == MAP_FAILED)
			p = NULL;
	} else if (!strcmp(kind, "sysv") || !strcmp(kind, "shm-hugetlb")) {
		int fl = IPC_CREAT | 0600;

		if (!strcmp(kind, "shm-hugetlb"))
			fl |= SHM_HUGETLB;
		id = shmget(IPC_PRIVATE, len, fl);
		if (id < 0) {
			perror("shmget");
			return NULL;
		}
		p = shmat(id, NULL, 0);
		shmctl(id, IPC_RMID, NULL);
		if (p == (void *)-1)
			p = NULL;
	} else if (!strcmp(kind, "posix") || !strcmp(kind, "private")) {
		/* shm_open() is an open() in /dev/shm */
		snprintf(name, sizeof(name), "/dev/shm/hugewarn.%d.%d",
			 getpid(), n);
		fd = open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
		if (fd < 0) {
			perror(name);
			return NULL;
		}
		unlink(name);
		p = map_fd(fd, len, !strcmp(kind, "private") ?
			   MAP_PRIVATE : MAP_SHARED);
	} else if (!strcmp(kind, "memfd") || !strcmp(kind, "memfd-hugetlb")) {
		fd = memfd("hugewarn", !strcmp(kind, "memfd") ? 0 : MFD_HUGETLB);
		if (fd < 0) {
			perror("memfd_create");
			return NULL;
		}
		p = map_fd(fd, len, MAP_SHARED);
	} else {
		fprintf(stderr, "unknown kind %s\n", kind);
		return NULL;
	}
	if (!p)
		fprintf(stderr, "mapping %s of %zu bytes: %s\n", kind, len,
			strerror(errno));
	return p;
}

static int child(int argc, char **argv)
{
	long kb;
	int i;

	for (i = 0; i < argc; i++) {
		char spec[128], *kind, *mib, *opt;
		size_t len, off;
		char *p;

		snprintf(spec, sizeof(spec), "%s", argv[i]);
		kind = strtok(spec, ":");
		mib = strtok(NULL, ":");
		opt = strtok(NULL, ":");
		if (!kind || !mib) {
			fprintf(stderr, "bad spec %s\n", argv[i]);
			return 2;
		}
		len = strtoul(mib, NULL, 0) << 20;
		p = map_one(kind, len, i);
		if (!p)
			return 1;
		if (opt && madvise(p, len, !strcmp(opt, "madv") ?
				   MADV_HUGEPAGE : MADV_NOHUGEPAGE)) {
			perror("madvise");
			return 1;
		}
		for (off = 0; off < len; off += 4096)
			p[off] = 1;
	}
	kb = meminfo_kb("ShmemHugePages");
	printf("shmem_huge_kb=%ld\n", kb);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	int fds[2], status;
	char buf[64] = "shmem_huge_kb=-1\n";
	ssize_t n;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: %s KIND:MIB[:madv|:nohuge]...\n",
			argv[0]);
		return 2;
	}
	if (pipe(fds))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		_exit(child(argc - 1, argv + 1));
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	if (n > 0)
		buf[n] = 0;
	waitpid(pid, &status, 0);
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	printf("pid=%d rc=%d %s", pid, status, buf);
	return status;
}
