// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: the sysfs/debugfs mode list parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "modes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mode_list ml, again;
	char buf[128], text[256];

	if (parse_mode_list((const char *)data, size, &ml) == 0) {
		if (!ml.available)
			abort();
		if (ml.current != MODE_UNKNOWN &&
		    !mode_available(&ml, ml.current))
			abort();
		/* What we print must parse back to the same set. */
		format_mode_list(&ml, buf, sizeof(buf));
		if (parse_mode_list(buf, strlen(buf), &again) ||
		    again.available != ml.available)
			abort();
	}
	/* The same bytes as a THP file or a CPU list. */
	if (size < sizeof(text)) {
		memcpy(text, data, size);
		text[size] = '\0';
		parse_bracketed_choice(text, buf, sizeof(buf));
		if (parse_cpu_list(text) > (1L << 20))
			abort();
	}
	return 0;
}
