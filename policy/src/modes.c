// SPDX-License-Identifier: GPL-2.0
/* Mode names and the parser for the kernel's mode list. */
#include "modes.h"
#include "util.h"

#include <errno.h>
#include <string.h>

static const char *const mode_names[MODE_COUNT] = {
	[MODE_NONE] = "none",
	[MODE_VOLUNTARY] = "voluntary",
	[MODE_FULL] = "full",
	[MODE_LAZY] = "lazy",
};

const char *mode_name(int mode)
{
	if (mode == MODE_KEEP)
		return "keep";
	if (mode < 0 || mode >= MODE_COUNT)
		return "unknown";
	return mode_names[mode];
}

int mode_from_span(const char *s, size_t len)
{
	int i;

	for (i = 0; i < MODE_COUNT; i++)
		if (span_equals(s, len, mode_names[i]))
			return i;
	return MODE_UNKNOWN;
}

static bool is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

int parse_mode_list(const char *text, size_t len, struct mode_list *out)
{
	size_t i = 0;

	out->available = 0;
	out->current = MODE_UNKNOWN;
	out->unknown_words = 0;
	out->current_unrecognized = false;
	if (len > 0 && text[len - 1] == '\n')
		len--;
	while (i < len) {
		bool current = false;
		char close = ')';
		size_t start;
		int mode;

		if (text[i] == ' ' || text[i] == '\t') {
			i++;
			continue;
		}
		/* sysfs marks the current mode [so], debugfs (so). */
		if (text[i] == '(' || text[i] == '[') {
			current = true;
			close = text[i] == '(' ? ')' : ']';
			i++;
		}
		start = i;
		while (i < len && is_word_char(text[i]))
			i++;
		if (i == start)
			return -EINVAL;
		mode = mode_from_span(text + start, i - start);
		if (current) {
			if (i >= len || text[i] != close)
				return -EINVAL;
			i++;
		}
		if (i < len && text[i] != ' ' && text[i] != '\t')
			return -EINVAL;
		if (mode == MODE_UNKNOWN) {
			/* A newer kernel may list more modes; not ours to pick. */
			out->unknown_words++;
			if (current) {
				if (out->current_unrecognized ||
				    out->current != MODE_UNKNOWN)
					return -EINVAL;
				out->current_unrecognized = true;
			}
			continue;
		}
		out->available |= 1u << mode;
		if (current) {
			if (out->current != MODE_UNKNOWN ||
			    out->current_unrecognized)
				return -EINVAL;
			out->current = mode;
		}
	}
	return out->available ? 0 : -EINVAL;
}

void format_mode_list(const struct mode_list *ml, char *buf, size_t size)
{
	size_t used = 0;
	int i;

	if (size == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < MODE_COUNT; i++) {
		size_t n;

		if (!mode_available(ml, i))
			continue;
		n = strlen(mode_names[i]);
		if (used + n + 2 > size)
			break;
		if (used)
			buf[used++] = ' ';
		memcpy(buf + used, mode_names[i], n + 1);
		used += n;
	}
	if (!used)
		copy_bounded(buf, size, "(unknown)", 9);
}
