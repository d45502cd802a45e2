// SPDX-License-Identifier: GPL-2.0
/* Decision precedence and rule matching on hand-made facts. */
#include "decide.h"
#include "test_util.h"

struct decide_test {
	struct facts f;
	struct policy p;
	struct diag_list d;
	struct decision out;
};

/* A patched kernel running lazy, 96 CPUs, one 8GiB cluster on 4KiB pages. */
static int setup(void **state)
{
	struct decide_test *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	assert_int_equal(parse_mode_list("none voluntary full (lazy)", 26,
					 &t->f.modes), 0);
	t->f.support = KERNEL_PATCHED;
	strcpy(t->f.arch, "aarch64");
	t->f.cpus = 96;
	t->f.mem_total = 64ULL << 30;
	t->f.default_hugepage_size = 2ULL << 20;
	t->f.shm_warn_count = -1;
	t->f.shm_warn_bytes = -1;
	strcpy(t->f.thp_shmem_enabled, "never");
	t->f.boot.admin_mode = MODE_UNKNOWN;
	t->f.boot.forced_mode = MODE_UNKNOWN;
	/* No /boot/config-R: keep leaves the running mode alone. */
	t->f.build_mode = MODE_UNKNOWN;
	t->f.nclusters = 1;
	t->f.clusters[0].shm_estimate = 8ULL << 30;
	t->f.clusters[0].huge_pages = PG_HUGE_TRY;
	facts_derive(&t->f);
	policy_init(&t->p);
	assert_int_equal(policy_parse_text(&t->p, builtin_policy_text,
					   strlen(builtin_policy_text), "b",
					   &t->d), 0);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

/* The opt-in rules of the shipped file in place of the built-in policy. */
static void use_optin(struct decide_test *t)
{
	char text[1024];

	shipped_optin_text(text, sizeof(text));
	policy_init(&t->p);
	assert_int_equal(policy_parse_text(&t->p, text, strlen(text), "optin",
					   &t->d), 0);
	assert_int_equal(t->p.nrules, 2);
}

/*
 * An 8GiB cluster in 4KiB pages: the built-in policy keeps the kernel's
 * mode (none measured no better than lazy for a faulting lock holder).
 */
static void test_builtin_keeps_pg_without_hugepages(void **state)
{
	struct decide_test *t = *state;

	assert_int_equal(t->f.pg_shm_without_hugepages, 8ULL << 30);
	decide(&t->f, &t->p, false, &t->out);
	assert_int_equal(t->out.mode, MODE_KEEP);
	assert_int_equal(t->out.source, SRC_DEFAULT);
	assert_int_equal(t->out.rule, -1);
	assert_string_equal(t->out.reason, "no rule matched; default (b:5)");
	/* The kernel's warning does not change that. */
	t->f.shm_warn_count = 3;
	decide(&t->f, &t->p, false, &t->out);
	assert_int_equal(t->out.mode, MODE_KEEP);
	assert_int_equal(t->out.source, SRC_DEFAULT);
}

static void test_optin_picks_none(void **state)
{
	struct decide_test *t = *state;

	use_optin(t);
	decide(&t->f, &t->p, false, &t->out);
	assert_int_equal(t->out.mode, MODE_NONE);
	assert_int_equal(t->out.source, SRC_RULE);
	assert_int_equal(t->out.rule, 0);
	assert_non_null(strstr(t->out.reason, "pg-shm-without-hugepages (optin:1)"));
	assert_non_null(strstr(t->out.reason, "(is 8GiB)"));
	assert_int_equal(decision_support(&t->f, &t->out), MODE_SUPPORTED);
}

static void test_optin_threshold(void **state)
{
	struct decide_test *t = *state;

	use_optin(t);
	t->f.clusters[0].shm_estimate = (1ULL << 30) - 1;
	facts_derive(&t->f);
	decide(&t->f, &t->p, false, &t->out);
	assert_int_equal(t->out.mode, MODE_KEEP);
	assert_int_equal(t->out.source, SRC_DEFAULT);
	t->f.clusters[0].shm_estimate = 1ULL << 30;
	facts_derive(&t->f);
	decide(&t->f, &t->p, false, &t->out);
	assert_int_equal(t->out.mode, MODE_NONE);
}

static void test_huge_pages_keep_default(void **state)
{
	struct decide_test *t = *state;

	use_optin(t);
	t->f.npools = 1;
	t->f.pools[0].page_size = 2ULL << 20;
	t->f.pools[0].nr = 5000;
	facts_derive(&t->f);
	decide(&t->f, &t->p, false, &t->out);
	assert_int_equal(t->out.mode, MODE_KEEP);
}

static void test_warn_counter(void **state)
{
	struct decide_test *t = *state;

	use_optin(t);
	t->f.nclusters = 0;
	facts_derive(&t->f);
	decide(&t->f, &t->p, false, &t->out);
	assert_int_equal(t->out.mode, MODE_KEEP);
	t->f.shm_warn_count = 3;
	/* No process directories (an initramfs): the live fact is unknown. */
	decide(&t->f, &t->p, false, &t->out);
	assert_int_equal(t->out.mode, MODE_KEEP);
	/* A 2GiB object in base pages now: the warning still describes now. */
	t->f.live_scanned = 100;
	t->f.nlive_shms = 1;
	t->f.live_shms[0].size = 2ULL << 30;
	t->f.live_shms[0].smaps_read = true;
	t->f.live_shms[0].backing = PG_BACKING_4K;
	decide(&t->f, &t->p, false, &t->out);
	assert_int_equal(t->out.mode, MODE_NONE);
	assert_int_equal(t->out.rule, 1);
	/*
	 * The remedy: the object moved to hugetlb pages.  The counter never
	 * goes down until reboot; the opt-in rules keep the mode anyway.
	 */
	t->f.live_shms[0].backing = PG_BACKING_HUGETLB;
	decide(&t->f, &t->p, false, &t->out);
	assert_int_equal(t->out.mode, MODE_KEEP);
	assert_int_equal(t->out.source, SRC_DEFAULT);
}

static void test_precedence(void **state)
{
	struct decide_test *t = *state;

	/* bad input: fall back to keep even though a rule would match */
	use_optin(t);
	decide(&t->f, &t->p, false, &t->out);
	assert_int_equal(t->out.mode, MODE_NONE);
	decide(&t->f, &t->p, true, &t->out);
	assert_int_equal(t->out.mode, MODE_KEEP);
	assert_int_equal(t->out.source, SRC_FALLBACK);
	/* forced beats bad input and rules */
	t->f.boot.forced_mode = MODE_FULL;
	decide(&t->f, &t->p, true, &t->out);
	assert_int_equal(t->out.mode, MODE_FULL);
	assert_int_equal(t->out.source, SRC_FORCED);
	/* the admin's preempt= beats preempt.policy=<mode> */
	t->f.boot.admin_set = true;
	t->f.boot.admin_mode = MODE_VOLUNTARY;
	strcpy(t->f.boot.admin_value, "voluntary");
	decide(&t->f, &t->p, false, &t->out);
	assert_int_equal(t->out.mode, MODE_VOLUNTARY);
	assert_int_equal(t->out.source, SRC_ADMIN);
	assert_non_null(strstr(t->out.reason, "admin's choice"));
	/* off beats everything */
	t->f.boot.policy_off = true;
	decide(&t->f, &t->p, false, &t->out);
	assert_int_equal(t->out.source, SRC_DISABLED);
}

static void test_first_match_and_unknown(void **state)
{
	struct decide_test *t = *state;
	const char *text =
		"rule unknown-count: shm_warn_count == 0 -> full\n"
		"rule unknown-ne: shm_warn_count != 5 -> full\n"
		"rule arm: arch == arm64 and cpus >= 64 -> voluntary\n"
		"rule later: always -> lazy\n";

	policy_init(&t->p);
	assert_int_equal(policy_parse_text(&t->p, text, strlen(text), "t",
					   &t->d), 0);
	decide(&t->f, &t->p, false, &t->out);
	/* Unknown facts match nothing; arm64 is aarch64; first match wins. */
	assert_string_equal(t->p.rules[t->out.rule].name, "arm");
	assert_int_equal(t->out.mode, MODE_VOLUNTARY);
	t->f.cpus = 63;
	decide(&t->f, &t->p, false, &t->out);
	assert_string_equal(t->p.rules[t->out.rule].name, "later");
}

static void test_support(void **state)
{
	struct decide_test *t = *state;

	use_optin(t);
	decide(&t->f, &t->p, false, &t->out);
	assert_int_equal(parse_mode_list("full (lazy)", 11, &t->f.modes), 0);
	assert_int_equal(decision_support(&t->f, &t->out), MODE_NOT_LISTED);
	t->f.modes.available = 0;
	assert_int_equal(decision_support(&t->f, &t->out), MODE_LIST_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_builtin_keeps_pg_without_hugepages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_optin_picks_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_optin_threshold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_huge_pages_keep_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_warn_counter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_precedence, setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_match_and_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_support, setup, teardown),
	};

	return cmocka_run_group_tests_name("decide", tests, NULL, NULL);
}
