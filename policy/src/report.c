// SPDX-License-Identifier: GPL-2.0
/*
 * Human and machine output.  The first line of decide is a contract with
 * scripts (grep ^mode=); everything else is for people.
 */
#include "report.h"
#include "escape.h"
#include "json.h"
#include "size.h"

#include <string.h>

void quote_text(FILE *out, const char *s)
{
	char buf[4 * 1024 + 1];
	const char *p;

	/* \ and control characters as \xNN (escape.h), then the quote. */
	text_escape(buf, sizeof(buf), s);
	fputc('"', out);
	for (p = buf; *p; p++) {
		if (*p == '"')
			fputc('\\', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

void format_decision_mode(const struct run *run, char *buf, size_t size)
{
	const struct decision *d = &run->decision;
	const struct facts *f = run->facts;

	if (d->source == SRC_DISABLED)
		snprintf(buf, size, "disabled");
	else if (d->mode == MODE_KEEP && d->keep_mode != MODE_UNKNOWN)
		snprintf(buf, size, "keep (%s)", mode_name(d->keep_mode));
	else if (d->mode == MODE_KEEP)
		snprintf(buf, size, "keep (%s)",
			 f->modes.current_unrecognized ? "other" :
			 mode_name(f->modes.current));
	else
		snprintf(buf, size, "%s", mode_name(d->mode));
}

static const char *support_word(const struct run *run)
{
	switch (decision_support(run->facts, &run->decision)) {
	case MODE_SUPPORTED:
		return "yes";
	case MODE_NOT_LISTED:
		return "no";
	case MODE_LIST_UNKNOWN:
		break;
	}
	return "unknown";
}

void report_diags(FILE *out, const struct run *run)
{
	const struct diag_list *lists[] = { run->policy_diags,
					    &run->facts->diags };
	unsigned int i, j;

	for (i = 0; i < 2; i++) {
		for (j = 0; j < lists[i]->count; j++)
		{
			fputs("preempt-policy: ", out);
			text_escape_to(out, lists[i]->msgs[j]);
			fputc('\n', out);
		}
		if (lists[i]->dropped)
			fprintf(out, "preempt-policy: (%u more problems not shown)\n",
				lists[i]->dropped);
	}
}

void report_decide_text(FILE *out, const struct run *run)
{
	const struct decision *d = &run->decision;
	const struct facts *f = run->facts;
	char mode[64], avail[64];

	format_decision_mode(run, mode, sizeof(mode));
	format_mode_list(&f->modes, avail, sizeof(avail));
	fprintf(out, "mode=%s reason=", mode);
	quote_text(out, d->reason);
	fprintf(out, "\nsource=%s rule=%s current=%s available=\"%s\" kernel=%s applicable=%s bad_input=%s\n",
		decision_source_name(d->source),
		d->rule >= 0 ? run->policy->rules[d->rule].name : "-",
		mode_name(f->modes.current), avail,
		kernel_support_name(f->support), support_word(run),
		d->bad_input ? "yes" : "no");
}

static void explain_kernel(FILE *out, const struct facts *f)
{
	static const char *const src[] = { "none", "sysfs", "debugfs" };
	char avail[64];

	format_mode_list(&f->modes, avail, sizeof(avail));
	fprintf(out, "kernel:\n");
	fprintf(out, "  mode file:       %s (%s)\n",
		f->mode_path[0] ? f->mode_path : "-", src[f->mode_source]);
	fprintf(out, "  available modes: %s\n", avail);
	fprintf(out, "  current mode:    %s\n", mode_name(f->modes.current));
	fprintf(out, "  support:         %s%s\n", kernel_support_name(f->support),
		f->support == KERNEL_UNPATCHED ?
		" (kernel lacks none/voluntary (unpatched 7.x))" :
		f->support == KERNEL_UNKNOWN ?
		" (no mode file: modes unknown, cannot apply)" : "");
	fprintf(out, "  architecture:    %s\n", f->arch);
	fprintf(out, "command line:\n");
	if (!f->cmdline_read)
		fprintf(out, "  (not readable)\n");
	fprintf(out, "  preempt=         %s\n",
		f->boot.admin_set ? f->boot.admin_value : "(not set)");
	if (!f->boot.policy_set)
		fprintf(out, "  preempt.policy=  (not set)\n");
	else
		fprintf(out, "  preempt.policy=  off=%s debug=%s mode=%s\n",
			f->boot.policy_off ? "yes" : "no",
			f->boot.policy_debug ? "yes" : "no",
			f->boot.forced_mode == MODE_UNKNOWN ? "auto" :
			mode_name(f->boot.forced_mode));
}

static void explain_memory(FILE *out, const struct facts *f)
{
	char a[32], b[32];
	unsigned int i;

	format_size(f->mem_total, a, sizeof(a));
	format_size(f->default_hugepage_size, b, sizeof(b));
	fprintf(out, "machine:\n  cpus: %ld  mem_total: %s  hugepagesize: %s\n",
		f->cpus, f->mem_total ? a : "unknown",
		f->default_hugepage_size ? b : "unknown");
	for (i = 0; i < f->npools; i++) {
		format_size(f->pools[i].page_size, a, sizeof(a));
		fprintf(out, "  hugetlb %s: nr_hugepages=%lld free_hugepages=%lld",
			a, f->pools[i].live, f->pools[i].free);
		if (f->pools[i].origin[0])
			fprintf(out, " predicted=%lld from %s",
				f->pools[i].nr, f->pools[i].origin);
		fputc('\n', out);
	}
	if (!f->npools)
		fprintf(out, "  hugetlb: no pools\n");
	fprintf(out, "  thp enabled=%s shmem_enabled=%s\n",
		f->thp_enabled[0] ? f->thp_enabled : "unknown",
		f->thp_shmem_enabled[0] ? f->thp_shmem_enabled : "unknown");
	if (f->shm_warn_count < 0)
		fprintf(out, "  shmem huge page warnings: counter absent\n");
	else
		fprintf(out, "  shmem huge page warnings: %lld (threshold %lld bytes)\n",
			f->shm_warn_count, f->shm_warn_bytes);
}

static void explain_postgres(FILE *out, const struct facts *f)
{
	unsigned int i;

	fprintf(out, "postgresql: %u cluster(s)\n", f->nclusters);
	for (i = 0; i < f->nclusters; i++) {
		const struct pg_cluster *c = &f->clusters[i];
		char sb[32], est[32];

		format_size(c->shared_buffers, sb, sizeof(sb));
		format_size(c->shm_estimate, est, sizeof(est));
		/* Names and paths come from directories postgres owns. */
		fputs("  ", out);
		text_escape_to(out, c->name);
		fputs(": conf=", out);
		text_escape_to(out, c->conf_path);
		fputs(" data=", out);
		text_escape_to(out, c->data_dir);
		fprintf(out, "%s\n", c->bad ? " (malformed)" : "");
		fprintf(out, "    shared_buffers=%s huge_pages=%s estimate=%s hugepages_needed=%llu backing=%s\n",
			sb, huge_pages_name(c->huge_pages), est,
			(unsigned long long)c->hugepages_needed,
			pg_backing_name(c->backing));
		if (c->start_fails) {
			char why[DIAG_LEN];

			pg_start_failure(f, c, why, sizeof(why));
			fputs("    will not start: ", out);
			text_escape_to(out, why);
			fputc('\n', out);
		}
		if (c->live >= 0) {
			const struct live_pg *pg = &f->live_pgs[c->live];

			format_size(pg->seg.size, est, sizeof(est));
			fprintf(out, "    running: postmaster %d segment=%s backing=%s (live)\n",
				pg->pid, pg->seg_found ? est : "none",
				pg->seg.smaps_read ?
				pg_backing_name(pg->seg.backing) : "unknown");
		}
	}
}

static void explain_rules(FILE *out, const struct run *run)
{
	const struct policy *p = run->policy;
	const struct decision *d = &run->decision;
	unsigned int i, j;

	fprintf(out, "policy: %s\n", p->builtin ? "built-in" : "files");
	for (i = 0; i < p->nfiles; i++)
	{
		fputs("  file ", out);
		text_escape_to(out, p->files[i]);
		fputc('\n', out);
	}
	for (i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		bool match = rule_matches(r, run->facts);

		fprintf(out, "  %s rule %s -> %s (%s)\n",
			d->rule == (int)i ? "=>" : match ? " +" : "  ",
			r->name, mode_name(r->mode), r->origin);
		for (j = 0; j < r->nconds; j++) {
			char cond[128], value[64];
			struct fact_value v;

			condition_format(&r->conds[j], cond, sizeof(cond));
			if (r->conds[j].always) {
				fprintf(out, "       always: yes\n");
				continue;
			}
			fact_get(run->facts, r->conds[j].key, &v);
			fact_format(r->conds[j].key, &v, value, sizeof(value));
			fprintf(out, "       %s: %s (is %s)\n", cond,
				condition_matches(&r->conds[j], run->facts) ?
				"yes" : "no", value);
		}
	}
	fprintf(out, "  default -> %s (%s)\n", mode_name(p->default_mode),
		p->default_origin);
}

void report_explain_text(FILE *out, const struct run *run)
{
	int k;

	explain_kernel(out, run->facts);
	explain_features(out, run->facts);
	explain_memory(out, run->facts);
	explain_postgres(out, run->facts);
	explain_live(out, run->facts);
	fprintf(out, "facts:\n");
	for (k = 0; k < FACT_KEY_COUNT; k++) {
		struct fact_value v;
		char value[64];

		fact_get(run->facts, (enum fact_key)k, &v);
		fact_format((enum fact_key)k, &v, value, sizeof(value));
		fprintf(out, "  %-30s %-12s %s\n", fact_key_name((enum fact_key)k),
			value, fact_key_help((enum fact_key)k));
	}
	explain_rules(out, run);
	if (diag_total(run->policy_diags) || diag_total(&run->facts->diags)) {
		fprintf(out, "diagnostics:\n");
		report_diags(out, run);
	}
	fprintf(out, "decision:\n");
	report_decide_text(out, run);
}

static void json_diags(FILE *out, const struct run *run)
{
	const struct diag_list *lists[] = { run->policy_diags,
					    &run->facts->diags };
	unsigned int i, j;
	bool first = true;

	fputs("\"diagnostics\":[", out);
	for (i = 0; i < 2; i++) {
		for (j = 0; j < lists[i]->count; j++) {
			if (!first)
				fputc(',', out);
			first = false;
			json_string(out, lists[i]->msgs[j]);
		}
	}
	fputc(']', out);
}

static void json_facts(FILE *out, const struct run *run)
{
	const struct facts *f = run->facts;
	unsigned int i;
	int k;

	fputs(",\"facts\":{", out);
	for (k = 0; k < FACT_KEY_COUNT; k++) {
		struct fact_value v;

		fact_get(f, (enum fact_key)k, &v);
		fprintf(out, "%s\"%s\":", k ? "," : "",
			fact_key_name((enum fact_key)k));
		if (!v.known)
			fputs("null", out);
		else if (fact_key_type((enum fact_key)k) == FACT_WORD)
			json_string(out, v.word);
		else
			fprintf(out, "%llu", (unsigned long long)v.number);
	}
	fputs("},\"clusters\":[", out);
	for (i = 0; i < f->nclusters; i++) {
		const struct pg_cluster *c = &f->clusters[i];

		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		json_string(out, c->name);
		fputs(",\"conf\":", out);
		json_string(out, c->conf_path);
		fputs(",\"data_directory\":", out);
		json_string(out, c->data_dir);
		fprintf(out, ",\"shared_buffers\":%llu,\"huge_pages\":\"%s\",\"shm_estimate\":%llu,\"hugepages_needed\":%llu,\"backing\":\"%s\",\"malformed\":%s",
			(unsigned long long)c->shared_buffers,
			huge_pages_name(c->huge_pages),
			(unsigned long long)c->shm_estimate,
			(unsigned long long)c->hugepages_needed,
			pg_backing_name(c->backing), c->bad ? "true" : "false");
		if (c->live >= 0 && f->live_pgs[c->live].seg.smaps_read)
			fprintf(out, ",\"live\":{\"pid\":%d,\"segment\":%llu,\"backing\":\"%s\"}",
				f->live_pgs[c->live].pid,
				(unsigned long long)f->live_pgs[c->live].seg.size,
				pg_backing_name(f->live_pgs[c->live].seg.backing));
		else
			fputs(",\"live\":null", out);
		fprintf(out, ",\"version\":%u,\"huge_pages_origin\":", c->version);
		json_string(out, c->huge_pages_origin);
		fputs(",\"start_failure\":", out);
		if (c->start_fails) {
			char why[DIAG_LEN];

			pg_start_failure(f, c, why, sizeof(why));
			json_string(out, why);
		} else {
			fputs("null", out);
		}
		fputc('}', out);
	}
	fputs("],\"rules\":[", out);
	for (i = 0; i < run->policy->nrules; i++) {
		const struct rule *r = &run->policy->rules[i];
		char cond[128];
		unsigned int j;

		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		json_string(out, r->name);
		fputs(",\"origin\":", out);
		json_string(out, r->origin);
		fprintf(out, ",\"mode\":\"%s\",\"matched\":%s,\"conditions\":[",
			mode_name(r->mode),
			rule_matches(r, f) ? "true" : "false");
		for (j = 0; j < r->nconds; j++) {
			condition_format(&r->conds[j], cond, sizeof(cond));
			fputs(j ? ",{\"text\":" : "{\"text\":", out);
			json_string(out, cond);
			fprintf(out, ",\"matched\":%s}",
				condition_matches(&r->conds[j], f) ?
				"true" : "false");
		}
		fputs("]}", out);
	}
	fputc(']', out);
	json_live(out, f);
	json_features(out, f);
	fprintf(out, ",\"default\":\"%s\",\"policy_builtin\":%s",
		mode_name(run->policy->default_mode),
		run->policy->builtin ? "true" : "false");
}

void report_json(FILE *out, const struct run *run, int exit_code, int explain)
{
	const struct decision *d = &run->decision;
	const struct facts *f = run->facts;
	bool first = true;
	int m;

	fprintf(out, "{\"mode\":\"%s\",\"current\":\"%s\",\"available\":[",
		d->source == SRC_DISABLED ? "disabled" : mode_name(d->mode),
		mode_name(f->modes.current));
	for (m = 0; m < MODE_COUNT; m++) {
		if (!mode_available(&f->modes, m))
			continue;
		fprintf(out, "%s\"%s\"", first ? "" : ",", mode_name(m));
		first = false;
	}
	fprintf(out, "],\"kernel\":\"%s\",\"mode_file\":",
		kernel_support_name(f->support));
	json_string(out, f->mode_path);
	fprintf(out, ",\"source\":\"%s\",\"rule\":",
		decision_source_name(d->source));
	if (d->rule >= 0)
		json_string(out, run->policy->rules[d->rule].name);
	else
		fputs("null", out);
	fputs(",\"reason\":", out);
	json_string(out, d->reason);
	fprintf(out, ",\"applicable\":\"%s\",\"bad_input\":%s,",
		support_word(run), d->bad_input ? "true" : "false");
	json_diags(out, run);
	if (explain)
		json_facts(out, run);
	fprintf(out, ",\"exit_code\":%d}\n", exit_code);
}
