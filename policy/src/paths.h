/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every path the tool reads or writes, in one place, so a rename on the
 * kernel side is a one-line change here.  Paths are relative to the proc,
 * sys or root directory they live under (see struct env).
 */
#ifndef PREEMPT_POLICY_PATHS_H
#define PREEMPT_POLICY_PATHS_H

/* Under the sys root (default /sys). */
#define SYS_PREEMPT_MODE	"kernel/preempt/mode"
#define SYS_DEBUGFS_DIR		"kernel/debug"
#define SYS_DEBUGFS_PREEMPT	"kernel/debug/sched/preempt"
#define SYS_HUGEPAGES_DIR	"kernel/mm/hugepages"
#define SYS_THP_ENABLED		"kernel/mm/transparent_hugepage/enabled"
#define SYS_THP_SHMEM_ENABLED	"kernel/mm/transparent_hugepage/shmem_enabled"
#define SYS_CPU_ONLINE		"devices/system/cpu/online"
#define SYS_RSEQ_SLICE_NSEC	"kernel/debug/rseq/slice_ext_nsec"

/* Under the proc root (default /proc). */
#define PROC_CMDLINE		"cmdline"
#define PROC_OSRELEASE		"sys/kernel/osrelease"
#define PROC_MEMINFO		"meminfo"
/* /proc/vmstat event of patches/mm: shmem objects populated without huge pages */
#define PROC_VMSTAT		"vmstat"
#define VMSTAT_SHM_WARN		"shmem_large_nohuge_object"
#define PROC_SHM_WARN_BYTES	"sys/vm/shmem_hugepage_warn_bytes"
/* Per process, under PROC/PID/; mounts of the tool's own namespace. */
#define PROC_PID_COMM		"comm"
#define PROC_PID_STATUS		"status"
#define PROC_PID_CMDLINE	"cmdline"
#define PROC_PID_CWD		"cwd"
#define PROC_PID_MAPS		"maps"
#define PROC_PID_SMAPS		"smaps"
#define PROC_MOUNTINFO		"self/mountinfo"
#define PROC_BUDDYINFO		"buddyinfo"

/* Under the root (default /, or --root DIR). */
#define ETC_POLICY_CONF		"etc/preempt-policy.conf"
#define ETC_POLICY_DIR		"etc/preempt-policy.d"
#define ETC_POSTGRESQL_DIR	"etc/postgresql"
#define DEBIAN_PG_DATA_FMT	"var/lib/postgresql/%s/%s"
/* sysctl.d directories in systemd-sysctl's precedence, then procps' file. */
#define SYSCTL_DIRS		"etc/sysctl.d", "run/sysctl.d", \
				"usr/local/lib/sysctl.d", "usr/lib/sysctl.d", \
				"lib/sysctl.d"
#define ETC_SYSCTL_CONF		"etc/sysctl.conf"

/* Where cmdline's output is installed (preempt-policy(8), cmdline). */
#define ETC_GRUB_SNIPPET	"etc/default/grub.d/preempt-policy.cfg"
/* kernel-install's command line, in the order it looks for one. */
#define ETC_KERNEL_CMDLINE	"etc/kernel/cmdline"
#define USR_KERNEL_CMDLINE	"usr/lib/kernel/cmdline"
/* The first line cmdline --format grub writes: the file is the tool's. */
#define GRUB_SNIPPET_HEADER	"# Written by preempt-policy cmdline"
/* The decision kept for the next boot (state.c). */
#define VAR_STATE_DIR		"var/lib/preempt-policy"
#define VAR_STATE_FILE		"var/lib/preempt-policy/state"
/* A trial's result (trial --record), beside it; and the trial's lock. */
#define VAR_TRIAL_FILE		"var/lib/preempt-policy/trial"
#define RUN_TRIAL_DIR		"run/preempt-policy"
#define RUN_TRIAL_LOCK		"run/preempt-policy/trial.lock"
/* The kernel's build configuration, Debian's place: boot/config-RELEASE. */
#define BOOT_CONFIG_PREFIX	"boot/config-"

/* Absolute, never under a root: the log always goes to the live kernel. */
#define DEV_KMSG		"/dev/kmsg"
/* The kernel's complaint about a preempt= value it does not know. */
#define KLOG_UNSUPPORTED_MODE	"Dynamic Preempt: unsupported mode: "

#endif
