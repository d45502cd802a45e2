// SPDX-License-Identifier: GPL-2.0
/* Kernel command line parsing: preempt= and preempt.policy=. */
#include "cmdline.h"
#include "modes.h"
#include "size.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static void boot_args_init(struct boot_args *b)
{
	memset(b, 0, sizeof(*b));
	b->admin_mode = MODE_UNKNOWN;
	b->forced_mode = MODE_UNKNOWN;
	b->sysctl_nr_hugepages = -1;
	b->rseq_slice_ext = -1;
}

/* kstrtobool(): y/Y/t/T/1, n/N/f/F/0, on/off; -1 when the kernel ignores it. */
static int parse_kernel_bool(const char *v, size_t n)
{
	if (n == 0)
		return -1;
	switch (v[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		return 1;
	case 'n': case 'N': case 'f': case 'F': case '0':
		return 0;
	case 'o': case 'O':
		if (n >= 2 && (v[1] == 'n' || v[1] == 'N'))
			return 1;
		if (n >= 2 && (v[1] == 'f' || v[1] == 'F'))
			return 0;
		break;
	default:
		break;
	}
	return -1;
}

/*
 * Value of a word "key=value", quotes removed as the kernel's next_arg()
 * does: a word that starts with '"' ('"preempt=full"') loses that quote
 * and a closing one at its end; a value that starts with '"'
 * ('preempt="full"') loses it and the closing one.
 */
static bool match_key(const char *w, size_t wlen, const char *key,
		      const char **val, size_t *vlen)
{
	size_t klen = strlen(key);
	const char *v;
	size_t n;

	if (wlen >= 2 && w[0] == '"' && w[wlen - 1] == '"') {
		w++;
		wlen -= 2;
	}
	if (wlen <= klen || memcmp(w, key, klen) != 0 || w[klen] != '=')
		return false;
	v = w + klen + 1;
	n = wlen - klen - 1;
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		v++;
		n -= 2;
	}
	*val = v;
	*vlen = n;
	return true;
}

/* A hugetlb page count as the kernel takes it (decimal). */
static int parse_page_count(const char *v, size_t n, long long *out)
{
	unsigned long long count;

	if (parse_u64_span(v, n, &count) || count > (1ULL << 40))
		return -1;
	*out = (long long)count;
	return 0;
}

/*
 * The hugetlb words (errors counted in *@errors); other words are left
 * alone.  @size_now is the page size of the last hugepagesz=, which the
 * next hugepages= counts in.
 */
static void parse_hugepage_word(const char *w, size_t wlen, const char *source,
			       struct boot_args *b, uint64_t *size_now,
			       struct diag_list *d, int *errors)
{
	const char *val;
	size_t vlen;
	uint64_t bytes;
	long long count;

	if (match_key(w, wlen, "hugepagesz", &val, &vlen) ||
	    match_key(w, wlen, "default_hugepagesz", &val, &vlen)) {
		if (parse_size(val, vlen, SIZE_POLICY, 1, &bytes) ||
		    bytes == 0) {
			diag_add(d, "%s: %.*s: not a page size", source,
				 (int)(wlen > 64 ? 64 : wlen), w);
			(*errors)++;
		} else if (w[0] == 'h') {
			*size_now = bytes;
		} else {
			b->default_hugepagesz = bytes;
		}
		return;
	}
	if (match_key(w, wlen, "hugepages", &val, &vlen) ||
	    match_key(w, wlen, "sysctl.vm.nr_hugepages", &val, &vlen) ||
	    match_key(w, wlen, "sysctl.vm/nr_hugepages", &val, &vlen)) {
		if (parse_page_count(val, vlen, &count)) {
			diag_add(d, "%s: %.*s: not a page count", source,
				 (int)(wlen > 64 ? 64 : wlen), w);
			(*errors)++;
		} else if (w[0] == 's') {
			b->sysctl_nr_hugepages = count;
		} else if (b->nhugepages < MAX_HUGEPAGE_POOLS) {
			b->hugepages[b->nhugepages].page_size = *size_now;
			b->hugepages[b->nhugepages++].count = count;
		} else {
			diag_add(d, "%s: more than %d hugepages= words",
				 source, MAX_HUGEPAGE_POOLS);
			(*errors)++;
		}
		return;
	}
}

static int parse_policy_value(const char *v, size_t n, const char *source,
			      struct boot_args *b, struct diag_list *d)
{
	int errors = 0;
	int forced = MODE_UNKNOWN;
	bool off = false, debug = false;

	while (n > 0) {
		const char *comma = memchr(v, ',', n);
		size_t item = comma ? (size_t)(comma - v) : n;
		int mode = mode_from_span(v, item);

		if (span_equals(v, item, "off")) {
			off = true;
		} else if (span_equals(v, item, "debug")) {
			debug = true;
		} else if (span_equals(v, item, "auto")) {
			forced = MODE_UNKNOWN;
		} else if (mode != MODE_UNKNOWN) {
			forced = mode;
		} else {
			diag_add(d, "%s: preempt.policy: unknown item '%.*s' ignored",
				 source, (int)(item > 32 ? 32 : item), v);
			errors++;
		}
		if (!comma)
			break;
		n -= item + 1;
		v = comma + 1;
	}
	/* Last preempt.policy= wins as a whole, like any kernel parameter. */
	b->policy_set = true;
	b->policy_off = off;
	b->policy_debug = debug;
	b->forced_mode = forced;
	return errors;
}

int parse_boot_args(const char *text, size_t len, const char *source,
		    struct boot_args *b, struct diag_list *d)
{
	size_t i = 0;
	int errors = 0;
	uint64_t size_now = 0;

	boot_args_init(b);
	while (i < len) {
		bool quoted = false;
		const char *val;
		size_t start, vlen;

		while (i < len && (text[i] == ' ' || text[i] == '\t' ||
				   text[i] == '\n' || text[i] == '\0'))
			i++;
		if (i >= len)
			break;
		start = i;
		while (i < len) {
			if (text[i] == '"')
				quoted = !quoted;
			else if (!quoted && (text[i] == ' ' || text[i] == '\t' ||
					     text[i] == '\n' || text[i] == '\0'))
				break;
			i++;
		}
		/* Everything after "--" belongs to init. */
		if (span_equals(text + start, i - start, "--"))
			break;
		if (match_key(text + start, i - start, "preempt", &val, &vlen)) {
			b->admin_set = true;
			b->admin_mode = mode_from_span(val, vlen);
			copy_bounded(b->admin_value, sizeof(b->admin_value),
				     val, vlen);
		} else if (match_key(text + start, i - start, "preempt.policy",
				     &val, &vlen)) {
			errors += parse_policy_value(val, vlen, source, b, d);
		} else if (match_key(text + start, i - start, "rseq_slice_ext",
				     &val, &vlen)) {
			b->rseq_slice_ext = parse_kernel_bool(val, vlen);
		} else {
			parse_hugepage_word(text + start, i - start, source, b,
					    &size_now, d, &errors);
		}
	}
	if (b->admin_set && b->admin_mode == MODE_UNKNOWN) {
		diag_add(d, "%s: preempt=%s is not a preemption mode the tool knows",
			 source, b->admin_value);
		errors++;
	}
	return errors;
}
