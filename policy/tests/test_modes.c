// SPDX-License-Identifier: GPL-2.0
/* The kernel's mode list format. */
#include "modes.h"
#include "test_util.h"

static int parse(const char *s, struct mode_list *ml)
{
	return parse_mode_list(s, strlen(s), ml);
}

static void test_patched_sysfs(void **state)
{
	struct mode_list ml;
	char buf[64];

	assert_int_equal(parse("none voluntary full [lazy]\n", &ml), 0);
	assert_int_equal(ml.current, MODE_LAZY);
	assert_true(mode_available(&ml, MODE_NONE));
	assert_true(mode_available(&ml, MODE_VOLUNTARY));
	assert_true(mode_available(&ml, MODE_FULL));
	format_mode_list(&ml, buf, sizeof(buf));
	assert_string_equal(buf, "none voluntary full lazy");
}

static void test_unpatched_debugfs(void **state)
{
	struct mode_list ml;

	assert_int_equal(parse("full (lazy)\n", &ml), 0);
	assert_int_equal(ml.current, MODE_LAZY);
	assert_false(mode_available(&ml, MODE_NONE));
	assert_false(mode_available(&ml, MODE_VOLUNTARY));
	assert_int_equal(parse("none voluntary (full) lazy", &ml), 0);
	assert_int_equal(ml.current, MODE_FULL);
}

static void test_unknown_words(void **state)
{
	struct mode_list ml;

	/* A newer kernel may add modes; we ignore them but keep the rest. */
	assert_int_equal(parse("none (rt) full", &ml), 0);
	assert_int_equal(ml.current, MODE_UNKNOWN);
	assert_true(ml.current_unrecognized);
	assert_int_equal(ml.unknown_words, 1);
	assert_true(mode_available(&ml, MODE_NONE));
}

static void test_rejects(void **state)
{
	struct mode_list ml;

	assert_int_not_equal(parse("", &ml), 0);
	assert_int_not_equal(parse("\n", &ml), 0);
	assert_int_not_equal(parse("(none) (full)", &ml), 0);
	assert_int_not_equal(parse("(none", &ml), 0);
	assert_int_not_equal(parse("none)", &ml), 0);
	assert_int_not_equal(parse("none,full", &ml), 0);
	assert_int_not_equal(parse("bogus", &ml), 0);
	assert_int_not_equal(parse("()", &ml), 0);
	/* Brackets as in sysfs, but matched like the parentheses. */
	assert_int_not_equal(parse("[none) full", &ml), 0);
	assert_int_not_equal(parse("(none] full", &ml), 0);
	assert_int_not_equal(parse("[none] (full)", &ml), 0);
	assert_int_not_equal(parse("[]", &ml), 0);
}

static void test_names(void **state)
{
	assert_int_equal(mode_from_span("voluntary", 9), MODE_VOLUNTARY);
	assert_int_equal(mode_from_span("keep", 4), MODE_UNKNOWN);
	assert_int_equal(mode_from_span("non", 3), MODE_UNKNOWN);
	assert_string_equal(mode_name(MODE_KEEP), "keep");
	assert_string_equal(mode_name(MODE_UNKNOWN), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_patched_sysfs),
		cmocka_unit_test(test_unpatched_debugfs),
		cmocka_unit_test(test_unknown_words),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("modes", tests, NULL, NULL);
}
