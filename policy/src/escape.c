// SPDX-License-Identifier: GPL-2.0
/* Escaping for terminals and the kernel log; see escape.h. */
#include "escape.h"

#include <stdbool.h>
#include <string.h>

size_t utf8_sequence(const unsigned char *s, size_t len)
{
	unsigned int cp, min;
	size_t n, i;

	if (len == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
		min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Append @piece (@n bytes) if it fits whole; returns false when full. */
static bool put(char *out, size_t size, size_t *used, const char *piece,
		size_t n)
{
	if (*used + n >= size)
		return false;
	memcpy(out + *used, piece, n);
	*used += n;
	return true;
}

void text_escape(char *out, size_t size, const char *in)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t len = strlen(in), i = 0, used = 0;
	static const char hex[] = "0123456789abcdef";

	if (size == 0)
		return;
	while (i < len) {
		size_t n = utf8_sequence(s + i, len - i);
		char esc[4] = { '\\', 'x', 0, 0 };
		bool ok;

		/* C1 controls U+0080..U+009F are UTF-8 C2 80..C2 9F. */
		if (n == 1 && s[i] >= 0x20 && s[i] != 0x7f && s[i] != '\\') {
			ok = put(out, size, &used, in + i, 1);
		} else if (n == 1 && s[i] == '\\') {
			ok = put(out, size, &used, "\\\\", 2);
		} else if (n > 1 && !(n == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)) {
			ok = put(out, size, &used, in + i, n);
		} else {
			n = 1;
			esc[2] = hex[s[i] >> 4];
			esc[3] = hex[s[i] & 0xf];
			ok = put(out, size, &used, esc, 4);
		}
		if (!ok)
			break;
		i += n;
	}
	out[used] = '\0';
}

void text_escape_to(FILE *out, const char *in)
{
	char buf[4 * 1024 + 1];

	text_escape(buf, sizeof(buf), in);
	fputs(buf, out);
}
