// SPDX-License-Identifier: GPL-2.0
/* Sizes with units: policy style and PostgreSQL style. */
#include "diag.h"
#include "size.h"
#include "test_util.h"

#include <errno.h>

static uint64_t policy_size(const char *s, int *err)
{
	uint64_t v = 0;

	*err = parse_size(s, strlen(s), SIZE_POLICY, 1, &v);
	return v;
}

static uint64_t pg_size(const char *s, uint64_t base, int *err)
{
	uint64_t v = 0;

	*err = parse_size(s, strlen(s), SIZE_POSTGRES, base, &v);
	return v;
}

static void test_policy_units(void **state)
{
	int err;

	assert_int_equal(policy_size("1GiB", &err), 1ULL << 30);
	assert_int_equal(err, 0);
	assert_int_equal(policy_size("1g", &err), 1ULL << 30);
	assert_int_equal(policy_size("512MB", &err), 512ULL << 20);
	assert_int_equal(policy_size("2048 kB", &err), 2ULL << 20);
	assert_int_equal(err, 0);
	assert_int_equal(policy_size("3T", &err), 3ULL << 40);
	assert_int_equal(policy_size("1073741824", &err), 1ULL << 30);
	assert_int_equal(policy_size("100b", &err), 100);
	assert_int_equal(policy_size("1.5GiB", &err), 3ULL << 29);
	assert_int_equal(err, 0);
	assert_int_equal(policy_size("0.1KiB", &err), 102);
}

static void test_policy_rejects(void **state)
{
	int err;

	policy_size("", &err);
	assert_int_equal(err, -EINVAL);
	policy_size("GiB", &err);
	assert_int_equal(err, -EINVAL);
	policy_size("1 GiBs", &err);
	assert_int_equal(err, -EINVAL);
	policy_size("-1G", &err);
	assert_int_equal(err, -EINVAL);
	policy_size("1e9", &err);
	assert_int_equal(err, -EINVAL);
	policy_size("9999999999999999999999", &err);
	assert_int_equal(err, -ERANGE);
	policy_size("16777216T", &err);
	assert_int_equal(err, -ERANGE);
}

static void test_postgres_units(void **state)
{
	int err;

	/* No unit: 8kB blocks for shared_buffers. */
	assert_int_equal(pg_size("16384", 8192, &err), 128ULL << 20);
	assert_int_equal(err, 0);
	assert_int_equal(pg_size("128MB", 8192, &err), 128ULL << 20);
	assert_int_equal(pg_size("8GB", 8192, &err), 8ULL << 30);
	assert_int_equal(pg_size("1TB", 8192, &err), 1ULL << 40);
	assert_int_equal(pg_size("2048kB", 8192, &err), 2ULL << 20);
	assert_int_equal(pg_size("1.5GB", 8192, &err), 3ULL << 29);
	assert_int_equal(err, 0);
	/* PostgreSQL's units are case sensitive. */
	pg_size("8gb", 8192, &err);
	assert_int_equal(err, -EINVAL);
	pg_size("8GiB", 8192, &err);
	assert_int_equal(err, -EINVAL);
	pg_size("8 gigs", 8192, &err);
	assert_int_equal(err, -EINVAL);
}

static void test_format(void **state)
{
	char buf[32];

	format_size(1ULL << 30, buf, sizeof(buf));
	assert_string_equal(buf, "1GiB");
	format_size(1536ULL << 20, buf, sizeof(buf));
	assert_string_equal(buf, "1.50GiB");
	format_size(1023, buf, sizeof(buf));
	assert_string_equal(buf, "1023B");
	format_size(1024 + 1023, buf, sizeof(buf));
	assert_string_equal(buf, "1.99KiB");
	format_size(512ULL << 20, buf, sizeof(buf));
	assert_string_equal(buf, "512MiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_units),
		cmocka_unit_test(test_policy_rejects),
		cmocka_unit_test(test_postgres_units),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests_name("size", tests, NULL, NULL);
}
