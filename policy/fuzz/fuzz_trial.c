// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: what a trial reads from others: a metric command's
 * output, a postmaster.pid, and the trial result file the next boot reads.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "modes.h"
#include "trial_metric.h"
#include "trial_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct trial_record rec;
	char dir[256];
	unsigned int port;
	double v;

	if (trial_parse_number(text, size, &v) == 0 && !(v >= 0))
		abort();
	if (trial_parse_postmaster_pid(text, size, &port, dir, sizeof(dir)) == 0 &&
	    (port < 1 || port > 65535 || dir[0] != '/' ||
	     strlen(dir) >= sizeof(dir)))
		abort();
	if (trial_record_parse(&rec, text, size)) {
		if (rec.mode == MODE_UNKNOWN || rec.baseline == MODE_UNKNOWN ||
		    rec.expires <= rec.date || rec.lo > rec.hi ||
		    !rec.kernel[0] || strlen(rec.kernel) >= sizeof(rec.kernel))
			abort();
	}
	return 0;
}
