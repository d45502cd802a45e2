// SPDX-License-Identifier: GPL-2.0
/* The live facts (running postmasters, large shared memory) in explain. */
#include "report.h"
#include "escape.h"
#include "json.h"
#include "paths.h"
#include "size.h"

static const char *live_backing(const struct live_shm *s)
{
	return s->smaps_read ? pg_backing_name(s->backing) : "unknown";
}

static void text_object(FILE *out, const struct live_shm *s)
{
	char size[32], rss[32], page[32];

	format_size(s->size, size, sizeof(size));
	format_size(s->rss, rss, sizeof(rss));
	format_size(s->page_size, page, sizeof(page));
	/* The path and comm come from the process: escape them. */
	fputs(" object=", out);
	text_escape_to(out, s->object[0] ? s->object : "(anonymous)");
	fprintf(out, " size=%s backing=%s page=%s rss=%s", size,
		live_backing(s), s->smaps_read ? page : "unknown",
		s->smaps_read ? rss : "unknown");
}

void explain_live(FILE *out, const struct facts *f)
{
	char thr[32];
	unsigned int i;

	format_size(f->live_threshold, thr, sizeof(thr));
	if (!f->live_scanned) {
		fprintf(out, "live: no processes in /proc\n");
		return;
	}
	fprintf(out, "live: %u processes, %u running postmaster(s), threshold %s%s\n",
		f->live_scanned, f->nlive_pgs, thr,
		f->shm_warn_bytes > 0 ? "" : " (default; kernel threshold absent or 0)");
	for (i = 0; i < f->nlive_pgs; i++) {
		const struct live_pg *pg = &f->live_pgs[i];

		fprintf(out, "  postmaster %d data=", pg->pid);
		text_escape_to(out, pg->data_dir[0] ? pg->data_dir : "unknown");
		fputs(" cluster=", out);
		text_escape_to(out, pg->cluster >= 0 ?
			       f->clusters[pg->cluster].name : "(not configured)");
		fputc('\n', out);
		fputs("    segment", out);
		if (pg->seg_found)
			text_object(out, &pg->seg);
		else
			fputs(" (no shared mapping)", out);
		fputc('\n', out);
		if (pg->cluster >= 0 && pg->seg.smaps_read &&
		    f->clusters[pg->cluster].huge_pages == PG_HUGE_TRY &&
		    pg->seg.backing != PG_BACKING_HUGETLB)
			fprintf(out, "    huge_pages=try: running without hugetlb pages\n");
	}
	for (i = 0; i < f->nlive_shms; i++) {
		const struct live_shm *s = &f->live_shms[i];

		fprintf(out, "  shared memory >= %s: pid %d (", thr, s->pid);
		text_escape_to(out, s->comm);
		fputc(')', out);
		text_object(out, s);
		fputc('\n', out);
	}
	if (f->live_unreadable)
		fprintf(out, "  %u process(es) or mappings not readable (run as root)\n",
			f->live_unreadable);
}

static void json_object(FILE *out, const struct live_shm *s)
{
	fprintf(out, "{\"pid\":%d,\"comm\":", s->pid);
	json_string(out, s->comm);
	fputs(",\"object\":", out);
	json_string(out, s->object);
	fprintf(out, ",\"size\":%llu,\"backing\":\"%s\"",
		(unsigned long long)s->size, live_backing(s));
	if (s->smaps_read)
		fprintf(out, ",\"page_size\":%llu,\"rss\":%llu}",
			(unsigned long long)s->page_size,
			(unsigned long long)s->rss);
	else
		fputs(",\"page_size\":null,\"rss\":null}", out);
}

void json_live(FILE *out, const struct facts *f)
{
	unsigned int i;

	fprintf(out, ",\"live\":{\"processes\":%u,\"threshold\":%llu,\"unreadable\":%u,\"postmasters\":[",
		f->live_scanned, (unsigned long long)f->live_threshold,
		f->live_unreadable);
	for (i = 0; i < f->nlive_pgs; i++) {
		const struct live_pg *pg = &f->live_pgs[i];

		fprintf(out, "%s{\"pid\":%d,\"data_directory\":", i ? "," : "",
			pg->pid);
		json_string(out, pg->data_dir);
		fputs(",\"cluster\":", out);
		if (pg->cluster >= 0)
			json_string(out, f->clusters[pg->cluster].name);
		else
			fputs("null", out);
		fputs(",\"segment\":", out);
		if (pg->seg_found)
			json_object(out, &pg->seg);
		else
			fputs("null", out);
		fputc('}', out);
	}
	fputs("],\"large_shared_memory\":[", out);
	for (i = 0; i < f->nlive_shms; i++) {
		if (i)
			fputc(',', out);
		json_object(out, &f->live_shms[i]);
	}
	fputs("]}", out);
}

static const char *cfg_word(int v)
{
	return v < 0 ? "unknown (no /boot/config)" : v ? "built" : "not built";
}

void explain_features(FILE *out, const struct facts *f)
{
	const char *why = preempt_ignored_reason(f);
	const char *rseq = rseq_slice_state(f);

	fprintf(out, "kernel features:\n");
	fprintf(out, "  none/voluntary opt-in (PREEMPT_DYNAMIC_ALL_MODES): %s%s\n",
		cfg_word(f->cfg_all_modes),
		mode_available(&f->modes, MODE_NONE) ? "; the kernel lists none" :
		f->modes.available ? "; the kernel does not list none" : "");
	fprintf(out, "  rseq time-slice extension (RSEQ_SLICE_EXTENSION): %s",
		rseq[0] ? rseq : "unknown");
	if (f->boot.rseq_slice_ext >= 0)
		fprintf(out, " (rseq_slice_ext=%s)", f->boot.rseq_slice_ext ?
			"on" : "off");
	if (f->rseq_slice_nsec >= 0)
		fprintf(out, ", debugfs rseq/slice_ext_nsec=%lld",
			f->rseq_slice_nsec);
	fputc('\n', out);
	if (!f->boot.admin_set) {
		fprintf(out, "  preempt=: not on the command line\n");
	} else {
		fputs("  preempt=", out);
		text_escape_to(out, f->boot.admin_value);
		if (why) {
			fprintf(out, ": ignored by the kernel (%s); it runs %s\n",
				why, mode_name(f->modes.current));
		} else {
			fprintf(out, ": taken; the kernel runs %s\n",
				mode_name(f->modes.current));
		}
	}
	fprintf(out, "  kernel log: %s", f->klog_state < 0 ? "not read" :
		f->klog_state ? "" : "no \"" KLOG_UNSUPPORTED_MODE "\" line");
	if (f->klog_state > 0) {
		fputs("\"" KLOG_UNSUPPORTED_MODE, out);
		text_escape_to(out, f->klog_ignored);
		fputc('"', out);
	}
	fputc('\n', out);
}

static void json_tristate(FILE *out, int v)
{
	fputs(v < 0 ? "null" : v ? "true" : "false", out);
}

void json_features(FILE *out, const struct facts *f)
{
	const char *why = preempt_ignored_reason(f);
	const char *rseq = rseq_slice_state(f);

	fputs(",\"kernel_features\":{\"all_modes_built\":", out);
	json_tristate(out, f->cfg_all_modes);
	fputs(",\"rseq_slice_ext\":", out);
	if (rseq[0])
		json_string(out, rseq);
	else
		fputs("null", out);
	fputs(",\"rseq_slice_ext_cmdline\":", out);
	json_tristate(out, f->boot.rseq_slice_ext);
	fputs(",\"rseq_slice_ext_nsec\":", out);
	if (f->rseq_slice_nsec >= 0)
		fprintf(out, "%lld", f->rseq_slice_nsec);
	else
		fputs("null", out);
	fputs(",\"preempt_arg\":", out);
	if (f->boot.admin_set)
		json_string(out, f->boot.admin_value);
	else
		fputs("null", out);
	fputs(",\"preempt_ignored\":", out);
	if (why)
		json_string(out, why);
	else
		fputs("null", out);
	fputs(",\"kernel_log_unsupported_mode\":", out);
	if (f->klog_state > 0)
		json_string(out, f->klog_ignored);
	else
		fputs(f->klog_state < 0 ? "null" : "\"\"", out);
	fputc('}', out);
}
