/* SPDX-License-Identifier: GPL-2.0 */
/* Everything the tool knows about the machine and its workload. */
#ifndef PREEMPT_POLICY_FACTS_H
#define PREEMPT_POLICY_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmdline.h"
#include "diag.h"
#include "env.h"
#include "bounds.h"
#include "modes.h"
#include "trial_record.h"

enum kernel_support {
	KERNEL_UNKNOWN,		/* neither interface readable */
	KERNEL_PATCHED,		/* sysfs file, or debugfs listing none */
	KERNEL_UNPATCHED,	/* debugfs only, and it lacks none */
};

enum mode_source { MODE_SRC_NONE, MODE_SRC_SYSFS, MODE_SRC_DEBUGFS };

#define POOL_ORIGIN_LEN 160

struct hugetlb_pool {
	uint64_t page_size;	/* bytes */
	long long nr;		/* the pool the root will have (predicted) */
	long long live;		/* nr_hugepages now, -1 if the kernel has no such pool */
	long long free;		/* free_hugepages, -1 if unreadable */
	/* where nr comes from: "" (live), "kernel command line hugepages=N", "FILE:LINE" */
	char origin[POOL_ORIGIN_LEN];
	/*
	 * What the next boot reserves, from the command line and the sysctl
	 * configuration only: a pool grown at run time (sysctl -w) is not
	 * in it.  nr starts from the live pool, which in an initramfs is
	 * what the kernel reserved; after boot only boot tells whether the
	 * pool is persisted.  boot_origin: "" when nothing reserves it.
	 */
	long long boot;
	char boot_origin[POOL_ORIGIN_LEN];
};

enum huge_pages_setting { PG_HUGE_OFF, PG_HUGE_ON, PG_HUGE_TRY };

/* How a cluster's shared memory is backed, as far as we can predict. */
enum pg_backing {
	PG_BACKING_4K,		/* small pages: the fault-heavy case */
	PG_BACKING_HUGETLB,
	PG_BACKING_THP,		/* shmem_enabled always/within_size/force */
};

/* "FILE:LINE" of a setting, as pg_settings' sourcefile:sourceline shows it */
#define PG_ORIGIN_LEN	(PATH_LEN + 16)

struct pg_cluster {
	char name[NAME_LEN * 2];	/* "15/main", or the configured path */
	char conf_path[PATH_LEN];	/* as seen under the root */
	char data_dir[PATH_LEN];	/* as seen under the root */
	char auto_conf[PATH_LEN];	/* its postgresql.auto.conf (ALTER SYSTEM) */
	uint64_t shared_buffers;	/* bytes */
	enum huge_pages_setting huge_pages;
	char huge_pages_origin[PG_ORIGIN_LEN];	/* "" when the default */
	uint64_t huge_page_size;	/* 0 = the kernel's default */
	unsigned int version;		/* major version, 0 if unknown */
	bool version_from_data;		/* from DATA_DIR/PG_VERSION */
	bool shm_sysv;			/* shared_memory_type = sysv */
	char shm_type_origin[PG_ORIGIN_LEN];	/* "" when the default */
	uint64_t shm_estimate;		/* bytes, see pg_estimate_shm() */
	uint64_t hugepages_needed;	/* of huge_page_size (or default) */
	enum pg_backing backing;
	/*
	 * The server will refuse to start (huge_pages = on without the pages
	 * or with SysV memory); pool_left is what the predicted pool has left
	 * for it, -1 when the kernel has no pool of its page size.
	 */
	bool start_fails;
	long long pool_left;
	bool bad;			/* a file of this cluster was malformed */
	int live;			/* index into facts.live_pgs, -1 if not running */
};

#define LIVE_COMM_LEN	17	/* TASK_COMM_LEN + 1 */
#define LIVE_OBJ_LEN	96

/*
 * A shared memory object seen live in /proc: a mapping of a running
 * process, as /proc/PID/maps and /proc/PID/smaps describe it.
 */
struct live_shm {
	int pid;			/* the first process found mapping it */
	char comm[LIVE_COMM_LEN];
	char object[LIVE_OBJ_LEN];	/* maps path, "/dev/zero (deleted)" */
	unsigned int dev_major, dev_minor;
	unsigned long long inode;
	unsigned long long start;	/* address in that process */
	uint64_t size;			/* bytes mapped */
	uint64_t rss;			/* bytes resident in that process */
	uint64_t page_size;		/* KernelPageSize */
	enum pg_backing backing;	/* hugetlb, thp or base pages */
	bool smaps_read;		/* false: backing unknown (unreadable) */
};

/* A running PostgreSQL postmaster and its main shared memory segment. */
struct live_pg {
	int pid;
	char data_dir[PATH_LEN];	/* its cwd: the postmaster chdirs there */
	char arg_data_dir[PATH_LEN];	/* -D from its command line, "" if none */
	struct live_shm seg;		/* the largest shared mapping */
	bool seg_found;
	int cluster;			/* index into facts.clusters, -1 */
};

#define STATE_MAX_CLUSTERS	8

/* ROOT/var/lib/preempt-policy/state, see state.h */
struct saved_state {
	bool present;
	bool bad;			/* malformed: ignored, diagnosed */
	unsigned int bad_line;		/* 0, or the line that made it bad */
	const char *bad_key;		/* its key ("cluster="), or NULL */
	int mode;
	char reason[256];
	char clusters[STATE_MAX_CLUSTERS][NAME_LEN * 2];
	unsigned int nclusters;
};

struct facts {
	/* kernel */
	struct mode_list modes;
	enum mode_source mode_source;
	char mode_path[PATH_LEN];	/* file to write, empty if none */
	enum kernel_support support;
	char arch[65];
	struct boot_args boot;
	bool cmdline_read;
	int build_mode;			/* Kconfig's model, MODE_UNKNOWN if unknown */
	/* from /boot/config-R: 1 =y, 0 not set, -1 no config file */
	int cfg_all_modes;		/* CONFIG_PREEMPT_DYNAMIC_ALL_MODES */
	int cfg_rseq_slice;		/* CONFIG_RSEQ_SLICE_EXTENSION */
	long long rseq_slice_nsec;	/* debugfs rseq/slice_ext_nsec, -1 */
	/* kernel log: "Dynamic Preempt: unsupported mode: X" */
	int klog_state;			/* -1 not read, 0 no such line, 1 found */
	char klog_ignored[NAME_LEN];	/* X, the last one */
	char build_mode_origin[PATH_LEN + 16];	/* "/boot/config-R:LINE" */
	/*
	 * The preempt= mode the tool's own GRUB snippet (cmdline --format
	 * grub, installed as /etc/default/grub.d/preempt-policy.cfg) puts on
	 * the command line, MODE_UNKNOWN if none; where, as FILE:LINE.
	 */
	int tool_cmdline_mode;
	char tool_cmdline_origin[PATH_LEN + 16];
	/* machine */
	long cpus;			/* 0 if unknown */
	uint64_t mem_total;		/* bytes, 0 if unknown */
	uint64_t mem_available;		/* MemAvailable, bytes, 0 if unknown */
	uint64_t default_hugepage_size;	/* bytes, 0 if unknown */
	struct hugetlb_pool pools[MAX_HUGEPAGE_POOLS];
	unsigned int npools;
	char thp_enabled[NAME_LEN];	/* selected word, "" if unknown */
	char thp_shmem_enabled[NAME_LEN];
	long long shm_warn_count;	/* -1 if the counter is absent */
	long long shm_warn_bytes;	/* -1 if absent */
	/* workload */
	struct pg_cluster clusters[MAX_CLUSTERS];
	unsigned int nclusters;
	unsigned int clusters_skipped;	/* over MAX_CLUSTERS */
	/* live, from the process directories of /proc (facts_live.c) */
	struct live_pg live_pgs[MAX_LIVE_PGS];
	unsigned int nlive_pgs;
	struct live_shm live_shms[MAX_LIVE_SHMS];	/* >= live_threshold */
	unsigned int nlive_shms;
	uint64_t live_threshold;	/* bytes: the kernel's, else 1 GiB */
	unsigned int live_scanned;	/* processes looked at */
	unsigned int live_unreadable;	/* maps or smaps not readable */
	/* derived, see facts_derive() */
	uint64_t pg_shared_memory;
	uint64_t pg_shm_without_hugepages;
	uint64_t pg_hugepages_needed;
	struct saved_state state;
	struct trial_record trial;	/* trial --record, see trial_record.h */
	/* anything malformed seen while gathering */
	struct diag_list diags;
};

struct policy;

/* Gather everything; never fails, what is missing stays unknown. */
void facts_gather(struct facts *f, const struct env *env,
		  const struct policy *pol);

void facts_gather_kernel(struct facts *f, const struct env *env);
/* The running kernel's build-time mode from the root's /boot/config-R. */
void facts_gather_build_default(struct facts *f, const struct env *env);
/* Kernel log (preempt= ignored), rseq slice extension knob; after kernel. */
void facts_gather_features(struct facts *f, const struct env *env);
/* "enabled", "disabled", "not-built", or "" when unknown. */
const char *rseq_slice_state(const struct facts *f);
/* Why the kernel ignored preempt=, or NULL when it did not (or no preempt=). */
const char *preempt_ignored_reason(const struct facts *f);
void facts_gather_memory(struct facts *f, const struct env *env);
/*
 * The hugetlb pools the root will run with: the live pools, changed by
 * the command line's hugepages=/sysctl.vm.nr_hugepages= and then by the
 * root's sysctl configuration, which systemd-sysctl applies before any
 * service starts (see hugetlb_predict.c).  Needs kernel and memory facts.
 */
void facts_predict_hugetlb(struct facts *f, const struct env *env);
void facts_gather_postgres(struct facts *f, const struct env *env,
			   const struct policy *pol);
/*
 * Running postmasters and large shared mappings of any process, from
 * /proc/PID/{comm,status,cmdline,cwd,maps,smaps}; matches postmasters to
 * clusters.  Needs kernel (threshold) and postgres facts.
 */
void facts_gather_live(struct facts *f, const struct env *env);
/* Huge page assignment and totals; needs memory and postgres facts. */
void facts_derive(struct facts *f);
/*
 * A diagnostic for each cluster facts_derive() predicts will not start:
 * the server refuses such a configuration, so it is bad input.
 */
void facts_check_start(struct facts *f);
/* Why @c will not start, one line, into @buf ("" when it will). */
void pg_start_failure(const struct facts *f, const struct pg_cluster *c,
		      char *buf, size_t size);

/* Bracketed word of "always [madvise] never" into @out; 0 or -EINVAL. */
int parse_bracketed_choice(const char *text, char *out, size_t size);
/* "0-3,5,7-8" -> 7; -EINVAL on junk. */
long parse_cpu_list(const char *text);

const char *kernel_support_name(enum kernel_support s);
const char *pg_backing_name(enum pg_backing b);
const char *huge_pages_name(enum huge_pages_setting h);

#endif
