// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: size parsing in both styles, and formatting. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "size.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	char buf[64];
	uint64_t v, again;

	if (parse_size(s, size, SIZE_POLICY, 1, &v) == 0) {
		if (v > (1ULL << 63))
			abort();
		format_size(v, buf, sizeof(buf));
		/* Exact renderings (no '.') must read back to the same bytes. */
		if (!strchr(buf, '.') &&
		    (parse_size(buf, strlen(buf), SIZE_POLICY, 1, &again) ||
		     again != v))
			abort();
	}
	if (parse_size(s, size, SIZE_POSTGRES, 8192, &v) == 0 &&
	    v > (1ULL << 63))
		abort();
	return 0;
}
