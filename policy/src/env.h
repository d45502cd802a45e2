/* SPDX-License-Identifier: GPL-2.0 */
/* Where facts come from and how the run behaves, from the command line. */
#ifndef PREEMPT_POLICY_ENV_H
#define PREEMPT_POLICY_ENV_H

#include <stdbool.h>

struct env {
	const char *root;	/* /etc and PostgreSQL paths; default "/" */
	const char *proc;	/* default "/proc" (live even with --root) */
	const char *sys;	/* default "/sys" (live even with --root) */
	const char *config;	/* --config FILE: only this file, no .d */
	const char *arch;	/* --arch override of uname -m */
	const char *kmsg;	/* --kmsg FILE, default /dev/kmsg */
	const char *klog;	/* --kernel-log FILE to read; NULL: /dev/kmsg when live */
	bool dry_run;
	bool json;
	bool verbose;
	bool mount_debugfs;	/* --mount-debugfs: allowed to mount it */
};

#endif
