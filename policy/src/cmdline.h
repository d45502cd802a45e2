/* SPDX-License-Identifier: GPL-2.0 */
/* The parts of /proc/cmdline that steer the tool. */
#ifndef PREEMPT_POLICY_CMDLINE_H
#define PREEMPT_POLICY_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "bounds.h"

struct boot_args {
	bool admin_set;			/* preempt= present */
	int admin_mode;			/* MODE_UNKNOWN if its value is bad */
	char admin_value[NAME_LEN];	/* as written, for messages */
	bool policy_set;		/* preempt.policy= present */
	bool policy_off;		/* preempt.policy=off */
	bool policy_debug;		/* preempt.policy=debug */
	int forced_mode;		/* preempt.policy=<mode>, else MODE_UNKNOWN */
};

/*
 * Parse a kernel command line.  Words are split on blanks; double quotes
 * group blanks into a word ('a="b c"'), as the kernel's next_arg() does.
 * The last preempt= and preempt.policy= win, as they do in the kernel.
 * preempt.policy takes a comma list of off, debug, auto and one mode.
 * Problems go to @d with @source as the location; returns their count.
 */
int parse_boot_args(const char *text, size_t len, const char *source,
		    struct boot_args *out, struct diag_list *d);

#endif
