/* SPDX-License-Identifier: GPL-2.0 */
/* apply: switch the running kernel to the decided mode, and say so. */
#ifndef PREEMPT_POLICY_APPLY_H
#define PREEMPT_POLICY_APPLY_H

#include <stdio.h>

#include "env.h"
#include "report.h"

#define KMSG_PREFIX "preempt-policy: "

/*
 * What apply does to the kernel, behind function pointers so unit tests
 * can play a kernel that refuses writes or reads back something else.
 * All return 0 or a negative errno.
 */
struct kernel_ops {
	int (*read_modes)(void *ctx, const char *path, struct mode_list *out);
	int (*write_mode)(void *ctx, const char *path, const char *mode);
	/* One kernel log record; @level is a syslog level (5 = notice). */
	int (*log)(void *ctx, int level, const char *msg);
};

/* Files and /dev/kmsg (or --kmsg FILE); @ctx is the struct env. */
extern const struct kernel_ops live_kernel_ops;

/*
 * Carry out run->decision.  Never writes a mode the kernel did not list.
 * Messages go to the kernel log as "preempt-policy: ..." and to @out.
 * With env->dry_run nothing is written or logged, only printed.
 * Returns an enum exit_code.
 */
int apply_decision(const struct run *run, const struct env *env,
		   const struct kernel_ops *ops, void *ctx, FILE *out);

#endif
