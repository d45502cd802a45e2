// SPDX-License-Identifier: GPL-2.0
/*
 * apply: the only code that changes the system.  It refuses anything the
 * kernel did not list, reads the mode back after writing, and logs what
 * it did and why, so a changed mode is never a mystery in dmesg.
 */
#include "apply.h"
#include "escape.h"
#include "exit_codes.h"
#include "paths.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

/* Under the kernel's LOG_LINE_MAX with room for the prefix. */
#define LOG_MSG_MAX 900

static int live_read_modes(void *ctx, const char *path, struct mode_list *out)
{
	char buf[MAX_KERNEL_FILE];
	int err;

	(void)ctx;
	err = read_small_file(path, buf, sizeof(buf));
	if (err)
		return err;
	return parse_mode_list(buf, strlen(buf), out);
}

static int live_write_mode(void *ctx, const char *path, const char *mode)
{
	size_t len = strlen(mode);
	ssize_t n;
	int fd, err = 0;

	(void)ctx;
	/* No O_CREAT: a missing mode file must never become a new file. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	n = write(fd, mode, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

static int live_log(void *ctx, int level, const char *msg)
{
	const struct env *env = ctx;
	const char *path = env->kmsg ? env->kmsg : DEV_KMSG;
	char record[LOG_MSG_MAX + 32];
	int fd, len, err = 0;

	/* /dev/kmsg takes one record per write(); "<N>" sets its level. */
	len = snprintf(record, sizeof(record), "<%d>" KMSG_PREFIX "%s\n",
		       level, msg);
	if (len < 0)
		return -EINVAL;
	if ((size_t)len >= sizeof(record))
		len = (int)sizeof(record) - 1;
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY |
		  (env->kmsg ? O_CREAT : 0), 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, record, (size_t)len) != len)
		err = -errno;
	close(fd);
	return err;
}

const struct kernel_ops live_kernel_ops = {
	.read_modes = live_read_modes,
	.write_mode = live_write_mode,
	.log = live_log,
};

struct apply_ctx {
	const struct env *env;
	const struct kernel_ops *ops;
	void *ops_ctx;
	FILE *out;
};

static void say(const struct apply_ctx *a, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* To the kernel log and to the console; dry-run only prints. */
static void say(const struct apply_ctx *a, int level, const char *fmt, ...)
{
	char raw[LOG_MSG_MAX], msg[LOG_MSG_MAX];
	va_list ap;
	int err;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* Reasons quote names from files others own: no control characters. */
	text_escape(msg, sizeof(msg), raw);
	if (a->env->dry_run) {
		fprintf(a->out, "dry-run: would log: " KMSG_PREFIX "%s\n", msg);
		return;
	}
	fprintf(a->out, KMSG_PREFIX "%s\n", msg);
	err = a->ops->log(a->ops_ctx, level, msg);
	if (err)
		fprintf(stderr, KMSG_PREFIX "cannot write the kernel log: %s\n",
			strerror(-err));
}

static int done(const struct run *run)
{
	return run->decision.bad_input ? EXIT_BAD_INPUT : EXIT_OK;
}

static int apply_admin_choice(const struct apply_ctx *a, const struct run *run)
{
	const struct facts *f = run->facts;
	int want = run->decision.mode;

	if (f->modes.current == want)
		say(a, 5, "preempt=%s on the command line and running %s: nothing to do",
		    mode_name(want), mode_name(want));
	else
		say(a, 4, "preempt=%s on the command line but running %s; leaving it (admin's choice)",
		    mode_name(want), mode_name(f->modes.current));
	return done(run);
}

static int apply_switch(const struct apply_ctx *a, const struct run *run)
{
	const struct decision *d = &run->decision;
	const struct facts *f = run->facts;
	const char *want = mode_name(d->mode);
	struct mode_list after;
	int err;

	if (a->env->dry_run) {
		fprintf(a->out, "dry-run: would write %s to %s (now %s)\n",
			want, f->mode_path, mode_name(f->modes.current));
		say(a, 5, "switched from %s to %s: %s",
		    mode_name(f->modes.current), want, d->reason);
		return done(run);
	}
	err = a->ops->write_mode(a->ops_ctx, f->mode_path, want);
	if (err) {
		say(a, 3, "writing %s to %s failed: %s; mode stays %s", want,
		    f->mode_path, strerror(-err), mode_name(f->modes.current));
		return EXIT_WRITE_FAILED;
	}
	err = a->ops->read_modes(a->ops_ctx, f->mode_path, &after);
	if (err || after.current != d->mode) {
		say(a, 3, "wrote %s to %s but the kernel reports %s",
		    want, f->mode_path,
		    err ? "an unreadable mode" : mode_name(after.current));
		return EXIT_WRITE_FAILED;
	}
	say(a, 5, "switched from %s to %s: %s", mode_name(f->modes.current),
	    want, d->reason);
	return done(run);
}

int apply_decision(const struct run *run, const struct env *env,
		   const struct kernel_ops *ops, void *ctx, FILE *out)
{
	const struct apply_ctx a = { env, ops, ctx, out };
	const struct decision *d = &run->decision;
	const struct facts *f = run->facts;
	char avail[64];

	if (d->source == SRC_DISABLED) {
		say(&a, 5, "%s; nothing done", d->reason);
		return EXIT_DISABLED;
	}
	if (d->mode == MODE_KEEP &&
	    (d->keep_mode == MODE_UNKNOWN || d->keep_mode == f->modes.current ||
	     !mode_available(&f->modes, d->keep_mode))) {
		say(&a, d->bad_input ? 4 : 5, "keeping %s: %s",
		    mode_name(f->modes.current), d->reason);
		return done(run);
	}
	if (d->mode == MODE_KEEP) {
		/* An earlier run changed the mode and its reason is gone. */
		struct run back = *run;

		back.decision.mode = d->keep_mode;
		return apply_switch(&a, &back);
	}
	if (d->source == SRC_ADMIN)
		return apply_admin_choice(&a, run);
	switch (decision_support(f, d)) {
	case MODE_LIST_UNKNOWN:
		say(&a, 4, "cannot apply %s: the kernel shows no preemption mode file (%s/%s or %s/%s); nothing written",
		    mode_name(d->mode), env->sys, SYS_PREEMPT_MODE, env->sys,
		    SYS_DEBUGFS_PREEMPT);
		return EXIT_CANNOT;
	case MODE_NOT_LISTED:
		format_mode_list(&f->modes, avail, sizeof(avail));
		say(&a, 4, "cannot apply %s: the kernel lists only \"%s\"%s; nothing written",
		    mode_name(d->mode), avail,
		    f->support == KERNEL_UNPATCHED ?
		    " (kernel lacks none/voluntary (unpatched 7.x))" : "");
		return EXIT_CANNOT;
	case MODE_SUPPORTED:
		break;
	}
	if (f->modes.current == d->mode) {
		say(&a, 5, "already %s: %s", mode_name(d->mode), d->reason);
		return done(run);
	}
	return apply_switch(&a, run);
}
