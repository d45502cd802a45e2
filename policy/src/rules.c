// SPDX-License-Identifier: GPL-2.0
/*
 * Policy file parser.  Line based so errors point at one line, strict so
 * a typo is reported instead of becoming a rule that never matches.
 */
#include "rules.h"
#include "root_fs.h"
#include "modes.h"
#include "paths.h"
#include "size.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char builtin_policy_text[] =
	"# SPDX-License-Identifier: GPL-2.0\n"
	"# Built-in policy of preempt-policy(8); see preempt-policy.conf(5).\n"
	"# No rule: the kernel's mode stays.  The PostgreSQL none rules are\n"
	"# opt-in; the shipped preempt-policy.conf says why and how.\n"
	"default = keep\n";

static const char *const op_names[] = {
	[OP_EQ] = "==", [OP_NE] = "!=", [OP_LT] = "<",
	[OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=",
};

const char *cmp_op_name(enum cmp_op op)
{
	return op <= OP_GE ? op_names[op] : "?";
}

void policy_init(struct policy *p)
{
	memset(p, 0, sizeof(*p));
	p->default_mode = MODE_KEEP;
	snprintf(p->default_origin, sizeof(p->default_origin), "built-in");
}

struct cursor {
	const char *p;
	const char *end;
	const char *err_at;	/* where the problem is, for the message */
};

static void skip_blanks(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static bool is_ident_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' ||
	       ch == '.';
}

/* An identifier ([A-Za-z0-9_.-]+), stopping before "->". */
static size_t take_ident(struct cursor *c, const char **start)
{
	*start = c->p;
	while (c->p < c->end && is_ident_char(*c->p)) {
		if (c->p[0] == '-' && c->p + 1 < c->end && c->p[1] == '>')
			break;
		c->p++;
	}
	return (size_t)(c->p - *start);
}

static bool take_literal(struct cursor *c, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0)
		return false;
	c->p += n;
	return true;
}

static int take_op(struct cursor *c, enum cmp_op *op)
{
	static const struct {
		const char *text;
		enum cmp_op op;
	} ops[] = {
		/* Two-character operators first so "<=" is not read as "<". */
		{ "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE },
		{ ">=", OP_GE }, { "<", OP_LT }, { ">", OP_GT },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		if (take_literal(c, ops[i].text)) {
			*op = ops[i].op;
			return 0;
		}
	}
	return -EINVAL;
}

/* Words a fact can take, so "thp_shmem_enabled == alwayz" is an error. */
static bool word_allowed(enum fact_key key, const char *w)
{
	static const char *const kernel_words[] = {
		"patched", "unpatched", "unknown", NULL };
	static const char *const mode_words[] = {
		"none", "voluntary", "full", "lazy", NULL };
	static const char *const trial_words[] = {
		"none", "voluntary", "full", "lazy", "keep", NULL };
	static const char *const thp_words[] = {
		"always", "madvise", "never", NULL };
	static const char *const shmem_words[] = {
		"always", "within_size", "advise", "never", "deny", "force",
		NULL };
	static const char *const workload_words[] = {
		"postgresql", "none", NULL };
	/*
	 * uname -m names Linux uses (and the aliases fact_word_canonical()
	 * maps): a typo such as "arm46" would be a rule that never matches.
	 */
	static const char *const arch_words[] = {
		"aarch64", "aarch64_be", "arm64", "x86_64", "amd64", "x86-64",
		"i386", "i486", "i586", "i686", "armv5tel", "armv6l", "armv7l",
		"armv8l", "riscv32", "riscv64", "s390", "s390x", "ppc", "ppc64",
		"ppc64le", "loongarch64", "mips", "mipsel", "mips64",
		"mips64el", "sparc64", "alpha", "parisc", "parisc64", "m68k",
		"sh4", "arc", "csky", "microblaze", "xtensa", NULL };
	const char *const *list;

	switch (key) {
	case FACT_KERNEL:
		list = kernel_words;
		break;
	case FACT_CURRENT_MODE:
		list = mode_words;
		break;
	case FACT_TRIAL_MODE:
		list = trial_words;
		break;
	case FACT_THP_ENABLED:
		list = thp_words;
		break;
	case FACT_THP_SHMEM_ENABLED:
		list = shmem_words;
		break;
	case FACT_WORKLOAD:
		list = workload_words;
		break;
	case FACT_ARCH:
		list = arch_words;
		break;
	default:
		return true;
	}
	for (; *list; list++)
		if (strcmp(*list, w) == 0)
			return true;
	return false;
}

static int parse_value(struct condition *cond, const char *v, size_t n,
		       const char **why)
{
	unsigned long long count;

	switch (fact_key_type(cond->key)) {
	case FACT_SIZE:
		if (parse_size(v, n, SIZE_POLICY, 1, &cond->number)) {
			*why = "bad size (want e.g. 512MiB, 1GiB, 1073741824)";
			return -EINVAL;
		}
		return 0;
	case FACT_COUNT:
		if (parse_u64_span(v, n, &count)) {
			*why = "bad number";
			return -EINVAL;
		}
		cond->number = count;
		return 0;
	case FACT_WORD:
		if (cond->op != OP_EQ && cond->op != OP_NE) {
			*why = "only == and != compare words";
			return -EINVAL;
		}
		if (n >= sizeof(cond->word)) {
			*why = "word too long";
			return -EINVAL;
		}
		copy_bounded(cond->word, sizeof(cond->word), v, n);
		if (!word_allowed(cond->key, cond->word)) {
			*why = "value this fact never takes";
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

static int parse_condition(struct cursor *c, struct condition *cond,
			   const char **why)
{
	const char *s;
	size_t n;

	memset(cond, 0, sizeof(*cond));
	skip_blanks(c);
	c->err_at = c->p;
	n = take_ident(c, &s);
	if (span_equals(s, n, "always")) {
		cond->always = true;
		return 0;
	}
	cond->key = fact_key_from_span(s, n);
	if (cond->key == FACT_KEY_COUNT) {
		*why = n ? "unknown fact" : "expected a fact name";
		return -EINVAL;
	}
	skip_blanks(c);
	c->err_at = c->p;
	if (take_op(c, &cond->op)) {
		*why = "expected ==, !=, <, <=, > or >=";
		return -EINVAL;
	}
	skip_blanks(c);
	c->err_at = c->p;
	n = take_ident(c, &s);
	if (n == 0) {
		*why = "expected a value";
		return -EINVAL;
	}
	return parse_value(cond, s, n, why);
}

static int parse_rule(struct policy *p, struct cursor *c, const char *origin,
		      const char **why)
{
	struct rule *r;
	const char *s;
	unsigned int i;
	size_t n;

	if (p->nrules >= MAX_RULES) {
		*why = "too many rules";
		return -EINVAL;
	}
	r = &p->rules[p->nrules];
	memset(r, 0, sizeof(*r));
	skip_blanks(c);
	n = take_ident(c, &s);
	if (n == 0 || n >= sizeof(r->name)) {
		*why = n ? "rule name too long" : "expected a rule name";
		return -EINVAL;
	}
	copy_bounded(r->name, sizeof(r->name), s, n);
	for (i = 0; i < p->nrules; i++) {
		if (strcmp(p->rules[i].name, r->name) == 0) {
			*why = "duplicate rule name";
			return -EINVAL;
		}
	}
	skip_blanks(c);
	if (!take_literal(c, ":")) {
		*why = "expected ':' after the rule name";
		return -EINVAL;
	}
	for (;;) {
		if (r->nconds >= MAX_CONDITIONS) {
			*why = "too many conditions";
			return -EINVAL;
		}
		if (parse_condition(c, &r->conds[r->nconds], why))
			return -EINVAL;
		r->nconds++;
		skip_blanks(c);
		c->err_at = c->p;
		if (take_literal(c, "->"))
			break;
		n = take_ident(c, &s);
		if (!span_equals(s, n, "and")) {
			*why = "expected 'and' or '->'";
			return -EINVAL;
		}
	}
	if (r->nconds > 1) {
		for (i = 0; i < r->nconds; i++) {
			if (r->conds[i].always) {
				*why = "'always' must be the only condition";
				return -EINVAL;
			}
		}
	}
	skip_blanks(c);
	c->err_at = c->p;
	n = take_ident(c, &s);
	r->mode = span_equals(s, n, "keep") ? MODE_KEEP : mode_from_span(s, n);
	if (r->mode == MODE_UNKNOWN) {
		*why = "expected none, voluntary, full, lazy or keep after '->'";
		return -EINVAL;
	}
	skip_blanks(c);
	c->err_at = c->p;
	if (c->p != c->end) {
		*why = "junk after the mode";
		return -EINVAL;
	}
	copy_bounded(r->origin, sizeof(r->origin), origin, strlen(origin));
	p->nrules++;
	return 0;
}

static int add_path(char list[][PATH_LEN], unsigned int *count,
		    const char *v, size_t n, const char **why)
{
	if (n == 0 || v[0] != '/') {
		*why = "path must be absolute (it is taken under --root)";
		return -EINVAL;
	}
	if (n >= PATH_LEN) {
		*why = "path too long";
		return -EINVAL;
	}
	if (*count >= MAX_PG_PATHS) {
		*why = "too many PostgreSQL paths";
		return -EINVAL;
	}
	copy_bounded(list[*count], PATH_LEN, v, n);
	(*count)++;
	return 0;
}

static int parse_setting(struct policy *p, const char *line, size_t len,
			 const char *origin, const char **why)
{
	const char *eq = memchr(line, '=', len);
	const char *key = line, *val;
	size_t klen, vlen;

	if (!eq) {
		*why = "expected 'rule NAME: ...' or 'setting = value'";
		return -EINVAL;
	}
	klen = (size_t)(eq - line);
	val = eq + 1;
	vlen = len - klen - 1;
	trim_span(&key, &klen);
	trim_span(&val, &vlen);
	if (span_equals(key, klen, "postgres-conf"))
		return add_path(p->pg_confs, &p->npg_confs, val, vlen, why);
	if (span_equals(key, klen, "pgdata"))
		return add_path(p->pgdatas, &p->npgdatas, val, vlen, why);
	if (span_equals(key, klen, "default")) {
		int mode = span_equals(val, vlen, "keep") ? MODE_KEEP :
			mode_from_span(val, vlen);
		if (mode == MODE_UNKNOWN) {
			*why = "default must be none, voluntary, full, lazy or keep";
			return -EINVAL;
		}
		p->default_mode = mode;
		copy_bounded(p->default_origin, sizeof(p->default_origin),
			     origin, strlen(origin));
		return 0;
	}
	if (span_equals(key, klen, "after-start")) {
		if (span_equals(val, vlen, "off"))
			p->after_start = AFTER_OFF;
		else if (span_equals(val, vlen, "record"))
			p->after_start = AFTER_RECORD;
		else if (span_equals(val, vlen, "apply"))
			p->after_start = AFTER_APPLY;
		else {
			*why = "after-start must be off, record or apply";
			return -EINVAL;
		}
		return 0;
	}
	*why = "unknown setting";
	return -EINVAL;
}

unsigned int policy_parse_text(struct policy *p, const char *text, size_t len,
			       const char *filename, struct diag_list *d)
{
	unsigned int before = p->errors;
	struct line_reader lr;
	const char *line;
	size_t llen;

	line_reader_init(&lr, text, len);
	while (line_reader_next(&lr, &line, &llen)) {
		char origin[PATH_LEN + 16];
		const char *why = "syntax error";
		struct cursor c;
		int err;

		snprintf(origin, sizeof(origin), "%s:%u", filename, lr.lineno);
		if (llen > MAX_LINE) {
			diag_add(d, "%s: line too long", origin);
			p->errors++;
			continue;
		}
		if (memchr(line, '\0', llen)) {
			diag_add(d, "%s: NUL byte in line", origin);
			p->errors++;
			continue;
		}
		trim_span(&line, &llen);
		if (llen == 0 || line[0] == '#')
			continue;
		c.p = line;
		c.end = line + llen;
		c.err_at = NULL;
		if (take_literal(&c, "rule") && c.p < c.end &&
		    (*c.p == ' ' || *c.p == '\t'))
			err = parse_rule(p, &c, origin, &why);
		else
			err = parse_setting(p, line, llen, origin, &why);
		if (err && c.err_at && c.err_at < c.end)
			diag_add(d, "%s: %s at '%.*s'", origin, why,
				 (int)(c.end - c.err_at > 32 ? 32 :
				       c.end - c.err_at), c.err_at);
		else if (err)
			diag_add(d, "%s: %s", origin, why);
		if (err)
			p->errors++;
	}
	return p->errors - before;
}

/*
 * @rel inside @root (kept inside it, see root_fs.h), or with a NULL @root
 * the --config FILE the admin named, as is.
 */
static bool load_file(struct policy *p, const char *root, const char *rel,
		      bool missing_ok, struct diag_list *d)
{
	char path[PATH_LEN];
	size_t len;
	char *buf;
	int err;

	if (!root)
		copy_bounded(path, sizeof(path), rel, strlen(rel));
	else if (path_join(path, sizeof(path), root, rel))
		return false;
	err = root ? root_read_file(root, rel, MAX_CONFIG_FILE, &buf, &len) :
		     read_file_capped(path, MAX_CONFIG_FILE, &buf, &len);
	if (err == -ENOENT && missing_ok)
		return false;
	if (p->nfiles < MAX_POLICY_FILES)
		copy_bounded(p->files[p->nfiles++], PATH_LEN, path,
			     strlen(path));
	if (err) {
		diag_add(d, "%s: cannot read: %s", path,
			 read_error_name(err));
		p->errors++;
		return true;
	}
	policy_parse_text(p, buf, len, path, d);
	free(buf);
	return true;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* preempt-policy.d: *.conf in name order, like sysctl.d and friends. */
static void load_dir(struct policy *p, const char *root, const char *dir,
		     struct diag_list *d)
{
	char *names[MAX_POLICY_DROPINS];
	char path[PATH_LEN];
	unsigned int n = 0, i;
	struct dirent *de;
	DIR *dh = root_opendir(root, dir);

	if (!dh)
		return;
	/* Every entry is looked at: a cap is reported, never silent. */
	while ((de = readdir(dh))) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' || len <= 5 ||
		    strcmp(de->d_name + len - 5, ".conf") != 0)
			continue;
		if (n == MAX_POLICY_DROPINS) {
			diag_add(d, "%s: more than %d *.conf files, the rest ignored",
				 dir, MAX_POLICY_DROPINS);
			p->errors++;
			break;
		}
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(dh);
	qsort(names, n, sizeof(names[0]), name_cmp);
	for (i = 0; i < n; i++) {
		if (!path_join(path, sizeof(path), dir, names[i]))
			load_file(p, root, path, true, d);
		free(names[i]);
	}
}

void policy_load(struct policy *p, const struct env *env, struct diag_list *d)
{
	unsigned int before;
	bool found;

	policy_init(p);
	if (env->config) {
		load_file(p, NULL, env->config, false, d);
		return;
	}
	found = load_file(p, env->root, "/" ETC_POLICY_CONF, true, d);
	before = p->nfiles;
	load_dir(p, env->root, "/" ETC_POLICY_DIR, d);
	found = found || p->nfiles > before;
	if (!found) {
		p->builtin = true;
		policy_parse_text(p, builtin_policy_text,
				  sizeof(builtin_policy_text) - 1, "built-in", d);
	}
}

void condition_format(const struct condition *c, char *buf, size_t size)
{
	struct fact_value v = { .known = true, .number = c->number };

	if (c->always) {
		snprintf(buf, size, "always");
		return;
	}
	copy_bounded(v.word, sizeof(v.word), c->word, strlen(c->word));
	{
		char value[64];

		fact_format(c->key, &v, value, sizeof(value));
		snprintf(buf, size, "%s %s %s", fact_key_name(c->key),
			 cmp_op_name(c->op), value);
	}
}
