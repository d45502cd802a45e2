// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: the postgresql.conf parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Includes resolve under a root that does not exist: parse only. */
	static const struct pg_reader r_template = {
		.root = "/nonexistent-preempt-policy-fuzz-root",
	};
	static struct diag_list d;
	struct pg_reader r = r_template;
	struct pg_settings s;

	memset(&d, 0, sizeof(d));
	r.diags = &d;
	pg_settings_init(&s);
	pgconf_parse_text(&r, &s, (const char *)data, size, "/fuzz.conf", 0);
	if (s.shared_buffers < 16 * PG_BLOCK_SIZE)
		abort();
	if (s.huge_pages != PG_HUGE_ON && s.huge_pages != PG_HUGE_OFF &&
	    s.huge_pages != PG_HUGE_TRY)
		abort();
	if (strlen(s.data_directory) >= sizeof(s.data_directory))
		abort();
	(void)pg_estimate_shm(&s.shm, 15);
	return 0;
}
