// SPDX-License-Identifier: GPL-2.0
/* preempt= and preempt.policy= on the kernel command line. */
#include "cmdline.h"
#include "modes.h"
#include "test_util.h"

static int parse(const char *s, struct boot_args *b, struct diag_list *d)
{
	memset(d, 0, sizeof(*d));
	return parse_boot_args(s, strlen(s), "cmdline", b, d);
}

static void test_nothing_set(void **state)
{
	struct diag_list d;
	struct boot_args b;

	assert_int_equal(parse("root=/dev/vda ro quiet\n", &b, &d), 0);
	assert_false(b.admin_set);
	assert_false(b.policy_set);
	assert_int_equal(b.forced_mode, MODE_UNKNOWN);
}

static void test_admin_choice(void **state)
{
	struct diag_list d;
	struct boot_args b;

	assert_int_equal(parse("ro preempt=full quiet", &b, &d), 0);
	assert_true(b.admin_set);
	assert_int_equal(b.admin_mode, MODE_FULL);
	/* The kernel takes the last one. */
	assert_int_equal(parse("preempt=full preempt=none", &b, &d), 0);
	assert_int_equal(b.admin_mode, MODE_NONE);
	/* Not a prefix match. */
	assert_int_equal(parse("xpreempt=full preemptx=none", &b, &d), 0);
	assert_false(b.admin_set);
}

static void test_admin_bad_value(void **state)
{
	struct diag_list d;
	struct boot_args b;

	assert_int_equal(parse("preempt=nonee", &b, &d), 1);
	assert_true(b.admin_set);
	assert_int_equal(b.admin_mode, MODE_UNKNOWN);
	assert_true(diag_contains(&d, "preempt=nonee"));
}

static void test_policy(void **state)
{
	struct diag_list d;
	struct boot_args b;

	parse("preempt.policy=off", &b, &d);
	assert_true(b.policy_off);
	parse("preempt.policy=debug,voluntary", &b, &d);
	assert_false(b.policy_off);
	assert_true(b.policy_debug);
	assert_int_equal(b.forced_mode, MODE_VOLUNTARY);
	parse("preempt.policy=lazy preempt.policy=auto", &b, &d);
	assert_int_equal(b.forced_mode, MODE_UNKNOWN);
	assert_int_equal(parse("preempt.policy=sometimes,none", &b, &d), 1);
	assert_int_equal(b.forced_mode, MODE_NONE);
	assert_true(diag_contains(&d, "sometimes"));
}

static void test_quotes_and_init_args(void **state)
{
	struct diag_list d;
	struct boot_args b;

	parse("a=\"x preempt=none y\" preempt=\"full\"", &b, &d);
	assert_int_equal(b.admin_mode, MODE_FULL);
	/* After "--" the words are init's, not the kernel's. */
	parse("ro -- preempt=none", &b, &d);
	assert_false(b.admin_set);
	/* NUL separated (like /proc/PID/cmdline) still splits. */
	assert_int_equal(parse_boot_args("a\0preempt=lazy", 14, "x", &b, &d), 0);
	assert_int_equal(b.admin_mode, MODE_LAZY);
}

/* The hugetlb words, in order: hugepages= counts in the last hugepagesz=. */
static void test_hugepage_words(void **state)
{
	struct boot_args b;
	struct diag_list d = { 0 };

	(void)state;
	assert_int_equal(parse("ro hugepages=100 hugepagesz=1G hugepages=4 "
			       "default_hugepagesz=2M sysctl.vm.nr_hugepages=\"300\"",
			       &b, &d), 0);
	assert_int_equal(b.nhugepages, 2);
	assert_int_equal(b.hugepages[0].page_size, 0);
	assert_int_equal(b.hugepages[0].count, 100);
	assert_int_equal(b.hugepages[1].page_size, 1ULL << 30);
	assert_int_equal(b.hugepages[1].count, 4);
	assert_int_equal(b.default_hugepagesz, 2ULL << 20);
	assert_int_equal(b.sysctl_nr_hugepages, 300);
	assert_int_equal(parse("sysctl.vm/nr_hugepages=7", &b, &d), 0);
	assert_int_equal(b.sysctl_nr_hugepages, 7);
	assert_int_equal(b.nhugepages, 0);
	assert_int_equal(parse("hugepages=lots hugepagesz=huge", &b, &d), 2);
	assert_true(diag_contains(&d, "cmdline: hugepages=lots: not a page count"));
	assert_true(diag_contains(&d, "cmdline: hugepagesz=huge: not a page size"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hugepage_words),
		cmocka_unit_test(test_nothing_set),
		cmocka_unit_test(test_admin_choice),
		cmocka_unit_test(test_admin_bad_value),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_quotes_and_init_args),
	};

	return cmocka_run_group_tests_name("cmdline", tests, NULL, NULL);
}
