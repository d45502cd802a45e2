/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hard bounds on everything read from disk.  The tool runs at every boot,
 * possibly from an initramfs, so no file content may make it slow or big.
 */
#ifndef PREEMPT_POLICY_BOUNDS_H
#define PREEMPT_POLICY_BOUNDS_H

#define MAX_KERNEL_FILE		4096		/* one sysfs/proc file */
#define MAX_CMDLINE_FILE	8192		/* COMMAND_LINE_SIZE is <= 4096 */
#define MAX_MEMINFO_FILE	16384
#define MAX_BOOT_CONFIG_FILE	((size_t)1024 * 1024)	/* /boot/config-R: ~300 kB */
#define MAX_CONFIG_FILE		((size_t)64 * 1024)	/* one policy or postgresql file */
#define MAX_LINE		1024		/* one line of a config file */
#define MAX_INCLUDE_DEPTH	10		/* same bound PostgreSQL uses */
#define MAX_PG_FILES		64		/* files read for one cluster */
#define MAX_INCLUDE_DIR_FILES	64		/* entries taken from one include_dir */
#define MAX_RULES		64
#define MAX_CONDITIONS		8		/* per rule */
#define MAX_POLICY_DROPINS	32		/* *.conf in preempt-policy.d */
#define MAX_POLICY_FILES	(MAX_POLICY_DROPINS + 1)	/* + the main file */
#define MAX_CLUSTERS		32
#define MAX_PG_PATHS		16		/* postgres-conf/pgdata entries */
#define MAX_HUGEPAGE_POOLS	8
#define MAX_LIVE_PIDS		65536		/* processes scanned in /proc */
#define MAX_LIVE_PGS		32		/* running postmasters */
#define MAX_LIVE_SHMS		32		/* large shared objects, live */
#define MAX_SHM_MOUNTS		256		/* tmpfs/hugetlbfs mounts told apart */
#define MAX_SYSCTL_FILES	256		/* sysctl.d files, all directories */
#define MAX_DIAGS		32		/* diagnostics kept; more are counted */
#define DIAG_LEN		512
#define NAME_LEN		48		/* rule names, mode words */
#define PATH_LEN		1024

#endif
