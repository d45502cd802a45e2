// SPDX-License-Identifier: GPL-2.0
/* JSON string escaping: file contents end up in messages, so escape all. */
#include "json.h"

void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c < 0x20 || c >= 0x7f)
			/* Bytes from files need not be UTF-8: keep JSON valid. */
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}
