// SPDX-License-Identifier: GPL-2.0
/*
 * JSON strings: valid UTF-8 stays UTF-8, only what JSON requires is
 * escaped (the quote, the backslash, C0 controls); a byte that is not
 * UTF-8 (file contents need not be) becomes U+FFFD, so the output is
 * always valid JSON.
 */
#include "json.h"
#include "escape.h"

#include <string.h>

void json_string(FILE *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;

	fputc('"', out);
	while (i < len) {
		size_t n = utf8_sequence(u + i, len - i);
		unsigned char c = u[i];

		if (n == 0) {
			fputs("\\ufffd", out);
			n = 1;
		} else if (c == '"' || c == '\\') {
			fprintf(out, "\\%c", c);
		} else if (c == '\n') {
			fputs("\\n", out);
		} else if (c == '\t') {
			fputs("\\t", out);
		} else if (c == '\r') {
			fputs("\\r", out);
		} else if (c < 0x20) {
			fprintf(out, "\\u%04x", c);
		} else {
			fwrite(s + i, 1, n, out);
		}
		i += n;
	}
	fputc('"', out);
}
