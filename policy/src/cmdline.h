/* SPDX-License-Identifier: GPL-2.0 */
/* The parts of /proc/cmdline that steer the tool. */
#ifndef PREEMPT_POLICY_CMDLINE_H
#define PREEMPT_POLICY_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "bounds.h"

/* hugepages=N, for the size of the hugepagesz= before it (0: default). */
struct boot_hugepages {
	uint64_t page_size;		/* bytes, 0 = the default size */
	long long count;
};

struct boot_args {
	bool admin_set;			/* preempt= present */
	int admin_mode;			/* MODE_UNKNOWN if its value is bad */
	char admin_value[NAME_LEN];	/* as written, for messages */
	bool policy_set;		/* preempt.policy= present */
	bool policy_off;		/* preempt.policy=off */
	bool policy_debug;		/* preempt.policy=debug */
	int forced_mode;		/* preempt.policy=<mode>, else MODE_UNKNOWN */
	/* hugetlb pools the kernel reserves at boot, in command line order */
	struct boot_hugepages hugepages[MAX_HUGEPAGE_POOLS];
	unsigned int nhugepages;
	uint64_t default_hugepagesz;	/* default_hugepagesz=, 0 if absent */
	long long sysctl_nr_hugepages;	/* sysctl.vm.nr_hugepages=, -1 if absent */
	int rseq_slice_ext;		/* rseq_slice_ext=: 1 on, 0 off, -1 absent */
};

/*
 * Parse a kernel command line.  Words are split on blanks; double quotes
 * group blanks into a word ('a="b c"'), as the kernel's next_arg() does.
 * The last preempt= and preempt.policy= win, as they do in the kernel.
 * preempt.policy takes a comma list of off, debug, auto and one mode.
 * hugepagesz=, hugepages=, default_hugepagesz= and sysctl.vm.nr_hugepages=
 * (or sysctl.vm/nr_hugepages=) are kept to predict the hugetlb pools;
 * rseq_slice_ext= as the kernel's kstrtobool() reads it.
 * Problems go to @d with @source as the location; returns their count.
 */
int parse_boot_args(const char *text, size_t len, const char *source,
		    struct boot_args *out, struct diag_list *d);

#endif
