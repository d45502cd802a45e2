/* SPDX-License-Identifier: GPL-2.0 */
/* Preemption mode names and the kernel's "none voluntary full (lazy)" list. */
#ifndef PREEMPT_POLICY_MODES_H
#define PREEMPT_POLICY_MODES_H

#include <stdbool.h>
#include <stddef.h>

enum preempt_mode {
	MODE_UNKNOWN = -1,
	MODE_NONE = 0,
	MODE_VOLUNTARY,
	MODE_FULL,
	MODE_LAZY,
	MODE_COUNT,
	/* Not a kernel mode: "leave whatever the kernel booted with". */
	MODE_KEEP = MODE_COUNT,
};

const char *mode_name(int mode);
/* Kernel mode names only; returns MODE_UNKNOWN otherwise. */
int mode_from_span(const char *s, size_t len);

struct mode_list {
	unsigned int available;	/* bit per enum preempt_mode */
	int current;		/* MODE_UNKNOWN when no "(x)" was shown */
	unsigned int unknown_words; /* names a newer kernel may add; ignored */
	bool current_unrecognized; /* running in one of those */
};

static inline bool mode_available(const struct mode_list *ml, int mode)
{
	return mode >= 0 && mode < MODE_COUNT && (ml->available & (1u << mode));
}

/*
 * Parse the sysfs/debugfs read format: mode names separated by blanks, the
 * current one in parentheses, optional trailing newline.  Returns 0, or
 * -EINVAL for anything else (no known mode, two current modes, stray
 * parentheses, control characters).
 */
int parse_mode_list(const char *text, size_t len, struct mode_list *out);

/* "none voluntary full lazy" into @buf; "(unknown)" when empty. */
void format_mode_list(const struct mode_list *ml, char *buf, size_t size);

#endif
