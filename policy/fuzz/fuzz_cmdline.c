// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: the kernel command line parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "modes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct diag_list d;
	struct boot_args b;

	memset(&d, 0, sizeof(d));
	parse_boot_args((const char *)data, size, "fuzz", &b, &d);
	if (b.admin_mode < MODE_UNKNOWN || b.admin_mode >= MODE_COUNT)
		abort();
	if (b.forced_mode < MODE_UNKNOWN || b.forced_mode >= MODE_COUNT)
		abort();
	if (b.admin_set && b.admin_mode != MODE_UNKNOWN &&
	    strcmp(b.admin_value, mode_name(b.admin_mode)) != 0)
		abort();
	if (strlen(b.admin_value) >= sizeof(b.admin_value))
		abort();
	return 0;
}
