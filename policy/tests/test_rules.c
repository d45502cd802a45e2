// SPDX-License-Identifier: GPL-2.0
/* Policy file parsing and loading. */
#include "modes.h"
#include "rules.h"
#include "test_util.h"

struct rules_test {
	struct policy p;
	struct diag_list d;
};

static int setup(void **state)
{
	struct rules_test *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	policy_init(&t->p);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static unsigned int parse(struct rules_test *t, const char *text)
{
	return policy_parse_text(&t->p, text, strlen(text), "test.conf", &t->d);
}

/*
 * The built-in policy has no rule: the mechanism benchmark found none no
 * better than lazy for a faulting lock holder, so nothing switches to none
 * unless a site opts in.
 */
static void test_builtin(void **state)
{
	struct rules_test *t = *state;

	assert_int_equal(parse(t, builtin_policy_text), 0);
	assert_int_equal(t->p.nrules, 0);
	assert_int_equal(t->p.default_mode, MODE_KEEP);
	assert_string_equal(t->p.default_origin, "test.conf:5");
}

/*
 * The opt-in examples of the shipped file, uncommented as its comment
 * says, are the two PostgreSQL rules, valid and in this order.
 */
static void test_shipped_optin_examples(void **state)
{
	struct rules_test *t = *state;
	char text[1024], buf[128];

	shipped_optin_text(text, sizeof(text));
	assert_int_equal(parse(t, text), 0);
	assert_int_equal(t->p.nrules, 2);
	assert_string_equal(t->p.rules[0].name, "pg-shm-without-hugepages");
	assert_int_equal(t->p.rules[0].mode, MODE_NONE);
	assert_int_equal(t->p.rules[0].nconds, 1);
	assert_int_equal(t->p.rules[0].conds[0].key,
			 FACT_PG_SHM_WITHOUT_HUGEPAGES);
	assert_int_equal(t->p.rules[0].conds[0].op, OP_GE);
	assert_int_equal(t->p.rules[0].conds[0].number, 1ULL << 30);
	assert_string_equal(t->p.rules[1].name, "shm-hugepage-warnings");
	assert_int_equal(t->p.rules[1].mode, MODE_NONE);
	/* The counter only grows: a live object must still be in base pages. */
	assert_int_equal(t->p.rules[1].nconds, 2);
	condition_format(&t->p.rules[1].conds[0], buf, sizeof(buf));
	assert_string_equal(buf, "shm_warn_count > 0");
	condition_format(&t->p.rules[1].conds[1], buf, sizeof(buf));
	assert_string_equal(buf, "shm_live_without_hugepages > 0B");
}

/* The shipped preempt-policy.conf must say what the built-in says. */
static void test_shipped_matches_builtin(void **state)
{
	struct rules_test *t = *state;
	struct policy *shipped = calloc(1, sizeof(*shipped));
	char path[1024], a[128], b[128];
	unsigned int i, j;
	struct env env = { 0 };

	assert_non_null(shipped);
	fixture_path(path, sizeof(path), "../../preempt-policy.conf");
	env.root = "/";
	env.config = path;
	policy_load(shipped, &env, &t->d);
	assert_int_equal(shipped->errors, 0);
	assert_int_equal(parse(t, builtin_policy_text), 0);
	assert_int_equal(shipped->nrules, t->p.nrules);
	assert_int_equal(shipped->default_mode, t->p.default_mode);
	for (i = 0; i < t->p.nrules; i++) {
		assert_string_equal(shipped->rules[i].name, t->p.rules[i].name);
		assert_int_equal(shipped->rules[i].mode, t->p.rules[i].mode);
		assert_int_equal(shipped->rules[i].nconds, t->p.rules[i].nconds);
		for (j = 0; j < t->p.rules[i].nconds; j++) {
			condition_format(&shipped->rules[i].conds[j], a, sizeof(a));
			condition_format(&t->p.rules[i].conds[j], b, sizeof(b));
			assert_string_equal(a, b);
		}
	}
	free(shipped);
}

static void test_full_syntax(void **state)
{
	struct rules_test *t = *state;

	assert_int_equal(parse(t,
		"  # comment\n"
		"\n"
		"postgres-conf = /opt/pg/postgresql.conf\n"
		"pgdata = /srv/pgdata\n"
		"rule a: arch == arm64 and cpus>=64 and mem_total < 1.5TiB -> voluntary\n"
		"rule b.2:thp_shmem_enabled != always->none\n"
		"rule c: always -> full\n"
		"default = lazy\n"), 0);
	assert_int_equal(t->p.nrules, 3);
	assert_int_equal(t->p.rules[0].nconds, 3);
	assert_int_equal(t->p.rules[0].conds[1].op, OP_GE);
	assert_int_equal(t->p.rules[0].conds[1].number, 64);
	assert_int_equal(t->p.rules[0].conds[2].number, 3ULL << 39);
	assert_string_equal(t->p.rules[1].conds[0].word, "always");
	assert_int_equal(t->p.rules[1].mode, MODE_NONE);
	assert_true(t->p.rules[2].conds[0].always);
	assert_int_equal(t->p.default_mode, MODE_LAZY);
	assert_string_equal(t->p.pg_confs[0], "/opt/pg/postgresql.conf");
	assert_string_equal(t->p.pgdatas[0], "/srv/pgdata");
	assert_string_equal(t->p.rules[2].origin, "test.conf:7");
}

static void expect_error(struct rules_test *t, const char *line,
			 const char *message)
{
	memset(&t->d, 0, sizeof(t->d));
	policy_init(&t->p);
	assert_int_equal(parse(t, line), 1);
	assert_int_equal(t->p.nrules, 0);
	if (!diag_contains(&t->d, message)) {
		fprintf(stderr, "# got: %s\n", t->d.count ? t->d.msgs[0] : "-");
		fail_msg("no '%s' for '%s'", message, line);
	}
}

static void test_errors(void **state)
{
	struct rules_test *t = *state;

	expect_error(t, "rule x: cpu >= 4 -> none", "test.conf:1: unknown fact");
	expect_error(t, "rule x: cpus => 4 -> none", "expected ==");
	expect_error(t, "rule x: cpus >= 4GiB -> none", "bad number");
	expect_error(t, "rule x: mem_total >= 4 GiB -> none", "expected 'and'");
	expect_error(t, "rule x: mem_total >= 4XB -> none", "bad size");
	expect_error(t, "rule x: arch < arm64 -> none", "only == and !=");
	expect_error(t, "rule x: thp_shmem_enabled == alwayz -> none",
		     "never takes");
	expect_error(t, "rule x: cpus > 1 -> fast", "expected none");
	expect_error(t, "rule x: cpus > 1 -> none please", "junk after");
	expect_error(t, "rule x: cpus > 1", "expected 'and' or '->'");
	expect_error(t, "rule x cpus > 1 -> none", "expected ':'");
	expect_error(t, "rule x: always and cpus > 1 -> none",
		     "'always' must be the only");
	expect_error(t, "default = sometimes", "default must be");
	expect_error(t, "pgdata = relative/path", "must be absolute");
	expect_error(t, "colour = blue", "unknown setting");
	expect_error(t, "just words", "expected 'rule NAME");
	expect_error(t, "rule x: a > 1 and b > 2 and c > 3 and d > 4 -> none",
		     "unknown fact");
}

static void test_duplicates_and_lines(void **state)
{
	struct rules_test *t = *state;

	assert_int_equal(parse(t, "rule a: cpus > 1 -> none\n"
				  "\n"
				  "rule a: cpus > 2 -> none\n"), 1);
	assert_true(diag_contains(&t->d, "test.conf:3: duplicate rule name"));
}

static void test_bounds(void **state)
{
	struct rules_test *t = *state;
	char *text = malloc(MAX_RULES * 64 + 4096);
	size_t used = 0;
	unsigned int i;

	assert_non_null(text);
	for (i = 0; i < MAX_RULES + 5; i++)
		used += (size_t)sprintf(text + used, "rule r%u: cpus > %u -> none\n",
					i, i);
	assert_int_equal(parse(t, text), 5);
	assert_int_equal(t->p.nrules, MAX_RULES);
	assert_true(diag_contains(&t->d, "too many rules"));
	/* A line over MAX_LINE is refused, not truncated into a rule. */
	memset(text, ' ', MAX_LINE + 10);
	memcpy(text + MAX_LINE, "rule", 4);
	text[MAX_LINE + 10] = '\0';
	assert_int_equal(parse(t, text), 1);
	assert_true(diag_contains(&t->d, "line too long"));
	free(text);
}

static void test_load_dir_order(void **state)
{
	struct rules_test *t = *state;
	struct env env = { 0 };
	char dir[256];

	make_temp_dir(dir, sizeof(dir));
	write_file_at(dir, "etc/preempt-policy.conf", "rule main: cpus > 1 -> none\n");
	write_file_at(dir, "etc/preempt-policy.d/20-b.conf", "rule b: cpus > 2 -> full\n");
	write_file_at(dir, "etc/preempt-policy.d/10-a.conf", "rule a: cpus > 3 -> lazy\n");
	write_file_at(dir, "etc/preempt-policy.d/30-c.disabled", "garbage\n");
	env.root = dir;
	policy_load(&t->p, &env, &t->d);
	assert_int_equal(t->p.errors, 0);
	assert_false(t->p.builtin);
	assert_int_equal(t->p.nrules, 3);
	assert_string_equal(t->p.rules[0].name, "main");
	assert_string_equal(t->p.rules[1].name, "a");
	assert_string_equal(t->p.rules[2].name, "b");
	remove_tree(dir);
}

static void test_load_builtin_when_absent(void **state)
{
	struct rules_test *t = *state;
	struct env env = { 0 };
	char root[1024];

	fixture_path(root, sizeof(root), "root-empty");
	env.root = root;
	policy_load(&t->p, &env, &t->d);
	assert_true(t->p.builtin);
	assert_int_equal(t->p.nrules, 0);
	assert_int_equal(t->p.default_mode, MODE_KEEP);
	assert_string_equal(t->p.default_origin, "built-in:5");
	/* --config naming a missing file is an error, not the built-in. */
	env.config = "/nonexistent/preempt-policy.conf";
	policy_load(&t->p, &env, &t->d);
	assert_false(t->p.builtin);
	assert_int_equal(t->p.errors, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_builtin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shipped_matches_builtin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shipped_optin_examples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_syntax, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicates_and_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_dir_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_builtin_when_absent, setup, teardown),
	};

	return cmocka_run_group_tests_name("rules", tests, NULL, NULL);
}
