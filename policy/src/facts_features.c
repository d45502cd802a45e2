// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel really runs and why: preempt= values it ignored (its own
 * log line), and the rseq time-slice extension's debugfs knob.  The build
 * options come from /boot/config-R (build_default.c), rseq_slice_ext=
 * from the command line (cmdline.c).
 */
#include "facts.h"
#include "paths.h"
#include "root_fs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Records read from /dev/kmsg: its buffer holds far fewer. */
#define MAX_KLOG_RECORDS	(1 << 20)
#define KLOG_RECORD		8192

/* Look for the kernel's line in one record or line of text. */
static void klog_scan(struct facts *f, const char *text, size_t len)
{
	const char *hit = memmem(text, len, KLOG_UNSUPPORTED_MODE,
				 strlen(KLOG_UNSUPPORTED_MODE));
	const char *v, *end = text + len;
	size_t n = 0;

	if (!hit)
		return;
	v = hit + strlen(KLOG_UNSUPPORTED_MODE);
	while (v + n < end && v[n] != '\n' && v[n] != ' ')
		n++;
	f->klog_state = 1;
	copy_bounded(f->klog_ignored, sizeof(f->klog_ignored), v, n);
}

/*
 * /dev/kmsg gives one record per read() from the oldest one kept, EAGAIN
 * at the end with O_NONBLOCK, EPIPE when a record was overwritten
 * meanwhile.  A regular file (--kernel-log, dmesg output) is read by
 * lines.
 */
static void read_klog(struct facts *f, const char *path)
{
	char *rec = malloc(KLOG_RECORD);
	struct stat st;
	int fd;

	f->klog_state = -1;
	if (!rec)
		return;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) || !(S_ISCHR(st.st_mode) ||
					   S_ISREG(st.st_mode))) {
		if (fd >= 0)
			close(fd);
		free(rec);
		return;
	}
	f->klog_state = 0;
	if (S_ISCHR(st.st_mode)) {
		unsigned int records = 0;

		while (records++ < MAX_KLOG_RECORDS) {
			ssize_t n = read(fd, rec, KLOG_RECORD);

			if (n < 0 && errno == EPIPE)
				continue;
			if (n <= 0)
				break;
			klog_scan(f, rec, (size_t)n);
		}
		/* Not allowed to read (dmesg_restrict): unknown, not "none". */
		if (records == 1 && errno == EPERM)
			f->klog_state = -1;
		close(fd);
	} else {
		FILE *in = fdopen(fd, "re");

		if (!in) {
			close(fd);
		} else {
			while (fgets(rec, KLOG_RECORD, in))
				klog_scan(f, rec, strlen(rec));
			fclose(in);
		}
	}
	free(rec);
}

/*
 * The tool's GRUB snippet: its header line, then a
 * GRUB_CMDLINE_LINUX="${GRUB_CMDLINE_LINUX} preempt=MODE" line.  A file
 * of that name without the header is the admin's, and is not read.
 */
static void read_grub_snippet(struct facts *f, const struct env *env)
{
	static const char prefix[] = "GRUB_CMDLINE_LINUX=\"${GRUB_CMDLINE_LINUX} preempt=";
	struct line_reader lr;
	const char *line;
	size_t len, n;
	char *buf;

	f->tool_cmdline_mode = MODE_UNKNOWN;
	f->tool_cmdline_origin[0] = '\0';
	if (root_read_file(env->root, "/" ETC_GRUB_SNIPPET, MAX_CONFIG_FILE,
			   &buf, &len))
		return;
	if (len < strlen(GRUB_SNIPPET_HEADER) ||
	    memcmp(buf, GRUB_SNIPPET_HEADER, strlen(GRUB_SNIPPET_HEADER)) != 0) {
		free(buf);
		return;
	}
	line_reader_init(&lr, buf, len);
	while (line_reader_next(&lr, &line, &n)) {
		if (n <= strlen(prefix) + 1 ||
		    memcmp(line, prefix, strlen(prefix)) != 0 ||
		    line[n - 1] != '"')
			continue;
		f->tool_cmdline_mode = mode_from_span(line + strlen(prefix),
						      n - strlen(prefix) - 1);
		snprintf(f->tool_cmdline_origin, sizeof(f->tool_cmdline_origin),
			 "/%s:%u", ETC_GRUB_SNIPPET, lr.lineno);
	}
	free(buf);
}

void facts_gather_features(struct facts *f, const struct env *env)
{
	read_grub_snippet(f, env);
	f->klog_ignored[0] = '\0';
	f->rseq_slice_nsec = read_count_file(env->sys, SYS_RSEQ_SLICE_NSEC);
	/* The live log only goes with the live /proc: fixtures never see it. */
	if (env->klog)
		read_klog(f, env->klog);
	else if (strcmp(env->proc, "/proc") == 0)
		read_klog(f, DEV_KMSG);
	else
		f->klog_state = -1;
}

const char *rseq_slice_state(const struct facts *f)
{
	if (f->cfg_rseq_slice == 0)
		return "not-built";
	if (f->cfg_rseq_slice < 0 && f->rseq_slice_nsec < 0)
		return "";	/* unknown */
	return f->boot.rseq_slice_ext == 0 ? "disabled" : "enabled";
}

const char *preempt_ignored_reason(const struct facts *f)
{
	if (!f->boot.admin_set)
		return NULL;
	if (f->klog_state == 1 &&
	    strcmp(f->klog_ignored, f->boot.admin_value) == 0)
		return "the kernel log says \"" KLOG_UNSUPPORTED_MODE "\"";
	if (f->boot.admin_mode != MODE_UNKNOWN && f->modes.available &&
	    !mode_available(&f->modes, f->boot.admin_mode))
		return "the kernel does not list that mode";
	if (f->boot.admin_mode == MODE_UNKNOWN)
		return "not a preemption mode";
	return NULL;
}
