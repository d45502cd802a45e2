/* SPDX-License-Identifier: GPL-2.0 */
/* What a trial checks before it switches anything: container, lock. */
#ifndef PREEMPT_POLICY_TRIAL_GUARD_H
#define PREEMPT_POLICY_TRIAL_GUARD_H

#include <stddef.h>

#include "env.h"

/*
 * Why this looks like a container (the hint found, into @why), or NULL:
 * the signs systemd-detect-virt --container reads (/run/systemd/container,
 * PID 1's container= variable, OpenVZ's /proc/vz), the files container
 * engines leave (/.dockerenv, /run/.containerenv,
 * /run/host/container-manager), and PID 1's cgroup naming an engine.
 * Conservative: a PID 1 environment it may not read is a reason too.
 * The files are read under env->root and env->proc, so the tests point
 * them at fixture trees.
 */
const char *trial_container_hint(const struct env *env, char *why,
				 size_t size);

/*
 * Take ROOT/run/preempt-policy/trial.lock (flock, released when the
 * process ends however it ends).  Returns the descriptor, -EWOULDBLOCK
 * when another trial holds it (its pid into *@holder, 0 if unknown), or
 * -errno.
 */
int trial_lock(const struct env *env, long *holder);

#endif
