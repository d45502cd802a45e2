/* SPDX-License-Identifier: GPL-2.0 */
/* cmdline: the preempt= argument for the next boot, for GRUB or U-Boot. */
#ifndef PREEMPT_POLICY_CMDLINE_OUT_H
#define PREEMPT_POLICY_CMDLINE_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "env.h"
#include "report.h"

enum cmdline_format {
	CMDLINE_PLAIN, CMDLINE_GRUB, CMDLINE_UBOOT,
	CMDLINE_KERNEL_INSTALL,	/* the whole /etc/kernel/cmdline line */
};

/*
 * Print the argument in @format; with @mkimage_out also build a U-Boot
 * script image there with mkimage(1).  @remove: the same without any
 * preempt= argument, to take back what an earlier run put there.
 * Returns an enum exit_code.
 */
int cmdline_output(const struct run *run, const struct env *env,
		   enum cmdline_format format, const char *mkimage_out,
		   bool remove, FILE *out);

/*
 * One line that adds @args to the kernel command line: GRUB's
 * GRUB_CMDLINE_LINUX (every entry, recovery too) or U-Boot's bootargs.
 */
void cmdline_snippet_line(FILE *out, enum cmdline_format format,
			  const char *args);

/* mkimage -A name for a uname machine ("aarch64" -> "arm64"). */
const char *uboot_arch_name(const char *machine);

#endif
