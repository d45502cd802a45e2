// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: the policy file parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct policy p;
	static struct diag_list d;
	static struct facts f;
	struct decision out;
	unsigned int i;

	policy_init(&p);
	memset(&d, 0, sizeof(d));
	policy_parse_text(&p, (const char *)data, size, "fuzz.conf", &d);
	if (p.nrules > MAX_RULES || d.count > MAX_DIAGS)
		abort();
	for (i = 0; i < p.nrules; i++)
		if (p.rules[i].nconds == 0 ||
		    p.rules[i].nconds > MAX_CONDITIONS)
			abort();
	/* Whatever parsed must also evaluate without trouble. */
	f.modes.current = MODE_LAZY;
	f.boot.admin_mode = MODE_UNKNOWN;
	f.boot.forced_mode = MODE_UNKNOWN;
	decide(&f, &p, false, &out);
	return 0;
}
