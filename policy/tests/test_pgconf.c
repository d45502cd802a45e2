// SPDX-License-Identifier: GPL-2.0
/* postgresql.conf parsing, includes and their bounds. */
#include "pgconf.h"
#include "test_util.h"

struct pg_test {
	char dir[256];
	struct diag_list diags;
	struct pg_reader reader;
	struct pg_settings s;
};

static int setup(void **state)
{
	struct pg_test *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	make_temp_dir(t->dir, sizeof(t->dir));
	t->reader.root = t->dir;
	t->reader.diags = &t->diags;
	pg_settings_init(&t->s);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct pg_test *t = *state;

	remove_tree(t->dir);
	free(t);
	return 0;
}

static unsigned int parse_text(struct pg_test *t, const char *text)
{
	return pgconf_parse_text(&t->reader, &t->s, text, strlen(text),
				 "/etc/pg.conf", 0);
}

static void test_defaults(void **state)
{
	struct pg_test *t = *state;

	assert_int_equal(parse_text(t, "# nothing\n\n   \n"), 0);
	assert_int_equal(t->s.shared_buffers, 128ULL << 20);
	assert_int_equal(t->s.huge_pages, PG_HUGE_TRY);
	assert_false(t->s.shared_buffers_set);
}

static void test_settings_syntax(void **state)
{
	struct pg_test *t = *state;

	assert_int_equal(parse_text(t,
		"shared_buffers = 4GB   # comment\n"
		"Huge_Pages='on'\n"
		"huge_page_size 2048\n"
		"data_directory = '/var/lib/pg''s data'\n"
		"work_mem = 64MB\n"), 0);
	assert_int_equal(t->s.shared_buffers, 4ULL << 30);
	assert_int_equal(t->s.huge_pages, PG_HUGE_ON);
	assert_int_equal(t->s.huge_page_size, 2ULL << 20);
	assert_string_equal(t->s.data_directory, "/var/lib/pg's data");
	/* Later settings win. */
	assert_int_equal(parse_text(t, "shared_buffers = 1024\n"
				       "huge_pages = false\n"), 0);
	assert_int_equal(t->s.shared_buffers, 8ULL << 20);
	assert_int_equal(t->s.huge_pages, PG_HUGE_OFF);
}

static void test_errors_name_line(void **state)
{
	struct pg_test *t = *state;

	assert_int_equal(parse_text(t,
		"shared_buffers = 1GB\n"
		"\n"
		"shared_buffers = 8 gigs\n"
		"huge_pages = maybe\n"
		"= 5\n"
		"name = 'unterminated\n"
		"shared_buffers = 64kB\n"), 5);
	assert_true(diag_contains(&t->diags, "/etc/pg.conf:3: syntax error"));
	assert_true(diag_contains(&t->diags, "/etc/pg.conf:4: invalid value for huge_pages"));
	assert_true(diag_contains(&t->diags, "/etc/pg.conf:5: syntax error"));
	assert_true(diag_contains(&t->diags, "/etc/pg.conf:6: syntax error: unterminated"));
	/* Below PostgreSQL's 128kB minimum. */
	assert_true(diag_contains(&t->diags, "/etc/pg.conf:7: invalid value for shared_buffers"));
	/* The valid earlier value stays. */
	assert_int_equal(t->s.shared_buffers, 1ULL << 30);
}

static void test_long_line(void **state)
{
	struct pg_test *t = *state;
	char *text = malloc(5000);

	assert_non_null(text);
	memset(text, 'a', 4999);
	text[4999] = '\0';
	assert_int_equal(parse_text(t, text), 1);
	assert_true(diag_contains(&t->diags, "line too long"));
	free(text);
}

static void test_includes(void **state)
{
	struct pg_test *t = *state;

	write_file_at(t->dir, "etc/pg/postgresql.conf",
		      "shared_buffers = 1GB\n"
		      "include 'sub/mem.conf'\n"
		      "include_if_exists = 'absent.conf'\n"
		      "include_dir 'conf.d'\n");
	write_file_at(t->dir, "etc/pg/sub/mem.conf", "shared_buffers = 2GB\n");
	write_file_at(t->dir, "etc/pg/conf.d/10-a.conf", "shared_buffers = 3GB\n");
	write_file_at(t->dir, "etc/pg/conf.d/20-b.conf", "huge_pages = off\n"
		      "shared_buffers = 5GB\n");
	write_file_at(t->dir, "etc/pg/conf.d/.dot.conf", "shared_buffers = 9GB\n");
	write_file_at(t->dir, "etc/pg/conf.d/30-c.conf.bak", "shared_buffers = 9GB\n");
	assert_int_equal(pgconf_read_file(&t->reader, &t->s,
					  "/etc/pg/postgresql.conf", 0), 0);
	assert_int_equal(t->s.errors, 0);
	assert_int_equal(t->s.shared_buffers, 5ULL << 30);
	assert_int_equal(t->s.huge_pages, PG_HUGE_OFF);
	/* The line a DBA must edit: the include that set it last. */
	assert_string_equal(t->s.huge_pages_origin, "/etc/pg/conf.d/20-b.conf:1");
	assert_string_equal(t->s.shm_type_origin, "");
	assert_int_equal(t->s.files_read, 4);
}

static void test_include_missing(void **state)
{
	struct pg_test *t = *state;

	write_file_at(t->dir, "p.conf", "\n\ninclude 'gone.conf'\n"
		      "include_dir 'nodir'\n");
	assert_int_equal(pgconf_read_file(&t->reader, &t->s, "/p.conf", 0), 0);
	assert_int_equal(t->s.errors, 2);
	assert_true(diag_contains(&t->diags, "/p.conf:3: could not open included file"));
	assert_true(diag_contains(&t->diags, "/p.conf:4: could not open configuration directory"));
}

static void test_include_loop_bounded(void **state)
{
	struct pg_test *t = *state;

	/* Includes itself twice: without bounds 2^depth files. */
	write_file_at(t->dir, "loop.conf", "include 'loop.conf'\n"
		      "include 'loop.conf'\nshared_buffers = 2GB\n");
	assert_int_equal(pgconf_read_file(&t->reader, &t->s, "/loop.conf", 0),
			 0);
	assert_true(t->s.errors > 0);
	assert_true(t->s.files_read <= MAX_PG_FILES);
	assert_true(diag_contains(&t->diags, "nesting too deep") ||
		    diag_contains(&t->diags, "too many configuration files"));
}

static void test_include_depth_limit(void **state)
{
	struct pg_test *t = *state;
	char name[32], text[64];
	unsigned int i;

	/* A straight chain 0 -> 1 -> ... -> 14: c10 (depth 10) is read. */
	for (i = 0; i < 15; i++) {
		snprintf(name, sizeof(name), "c%u.conf", i);
		snprintf(text, sizeof(text), "include 'c%u.conf'\n", i + 1);
		write_file_at(t->dir, name, text);
	}
	assert_int_equal(pgconf_read_file(&t->reader, &t->s, "/c0.conf", 0), 0);
	assert_int_equal(t->s.files_read, MAX_INCLUDE_DEPTH + 1);
	assert_int_equal(t->s.errors, 1);
	assert_true(diag_contains(&t->diags, "/c10.conf:1: could not open \"c11.conf\": nesting too deep"));
}

static void test_absolute_include_under_root(void **state)
{
	struct pg_test *t = *state;

	/* An absolute include means the root's /srv, not the host's. */
	write_file_at(t->dir, "etc/a.conf", "include '/srv/b.conf'\n"
		      "data_directory = 'data'\n");
	write_file_at(t->dir, "srv/b.conf", "shared_buffers = 6GB\n");
	assert_int_equal(pgconf_read_file(&t->reader, &t->s, "/etc/a.conf", 0),
			 0);
	assert_int_equal(t->s.errors, 0);
	assert_int_equal(t->s.shared_buffers, 6ULL << 30);
	/* Relative data_directory resolves from the file's directory. */
	assert_string_equal(t->s.data_directory, "/etc/data");
}

/* Huge pages of 2 MiB for the model's estimate. */
static uint64_t pages_2m(const struct pg_shm_settings *shm)
{
	return (pg_estimate_shm(shm, 15) + (2ULL << 20) - 1) / (2ULL << 20);
}

static void test_estimate(void **state)
{
	struct pg_shm_settings shm;
	uint64_t base;

	/*
	 * PostgreSQL 15.18's shared_memory_size_in_huge_pages for these
	 * (the full grid against the server is tests/pg_shmem_real.sh).
	 */
	pg_shm_settings_init(&shm);
	assert_int_equal(pages_2m(&shm), 72);
	shm.shared_buffers = 65536;		/* 512MB */
	assert_int_equal(pages_2m(&shm), 276);
	shm.shared_buffers = 131072;		/* 1GB */
	assert_int_equal(pages_2m(&shm), 537);
	shm.max_connections = 1000;
	assert_int_equal(pages_2m(&shm), 558);
	/* Every setting of the model moves it. */
	pg_shm_settings_init(&shm);
	base = pg_estimate_shm(&shm, 15);
	shm.max_locks_per_transaction = 256;
	assert_true(pg_estimate_shm(&shm, 15) > base);
	pg_shm_settings_init(&shm);
	shm.max_prepared_transactions = 10;
	assert_true(pg_estimate_shm(&shm, 15) > base);
	pg_shm_settings_init(&shm);
	shm.wal_buffers = 8192;			/* 64MB */
	assert_true(pg_estimate_shm(&shm, 15) > base + (60ULL << 20));
	/* 17 sizes its SLRU caches from shared_buffers; unknown is the largest. */
	pg_shm_settings_init(&shm);
	assert_true(pg_estimate_shm(&shm, 17) > pg_estimate_shm(&shm, 15));
	assert_int_equal(pg_estimate_shm(&shm, 0), pg_estimate_shm(&shm, 17));
	/* Saturates rather than wrapping. */
	shm.shared_buffers = INT64_MAX;
	shm.max_locks_per_transaction = INT64_MAX;
	assert_true(pg_estimate_shm(&shm, 15) > (1ULL << 60));
}

/* Integers as the server's parse_int() reads them. */
static void test_server_integers(void **state)
{
	struct pg_test *t = *state;

	assert_int_equal(parse_text(t, "shared_buffers = 010000\n"), 0);
	assert_int_equal(t->s.shared_buffers, 4096 * PG_BLOCK_SIZE);
	assert_int_equal(parse_text(t, "shared_buffers = 0x8000\n"), 0);
	assert_int_equal(t->s.shared_buffers, 256ULL << 20);
	assert_int_equal(parse_text(t, "shared_buffers = +131072\n"), 0);
	assert_int_equal(t->s.shared_buffers, 1ULL << 30);
	assert_int_equal(parse_text(t, "shared_buffers = 1.5GB\n"), 0);
	assert_int_equal(t->s.shared_buffers, 3ULL << 29);
	assert_int_equal(parse_text(t, "shared_buffers = '0x10 MB'\n"), 0);
	assert_int_equal(t->s.shared_buffers, 16ULL << 20);
	assert_int_equal(parse_text(t, "max_connections = 0x3e8\n"
				       "max_locks_per_transaction = 0200\n"
				       "wal_buffers = -1\n"
				       "track_activity_query_size = 4kB\n"
				       "min_dynamic_shared_memory = 1GB\n"), 0);
	assert_int_equal(t->s.shm.max_connections, 1000);
	assert_int_equal(t->s.shm.max_locks_per_transaction, 128);
	assert_int_equal(t->s.shm.wal_buffers, -1);
	assert_int_equal(t->s.shm.track_activity_query_size, 4096);
	assert_int_equal(t->s.shm.min_dynamic_shared_memory, 1024);
	/* What the server rejects: bad octal, units on a count, range. */
	assert_int_equal(parse_text(t, "shared_buffers = 08\n"
				       "max_connections = 10kB\n"
				       "max_connections = 0\n"
				       "max_connections = 0x40000\n"
				       "shared_buffers = 1gb\n"
				       "wal_buffers = -2\n"), 6);
	assert_true(diag_contains(&t->diags, "/etc/pg.conf:2: invalid value for max_connections"));
	assert_int_equal(t->s.shm.max_connections, 1000);
	assert_int_equal(t->s.shared_buffers, 16ULL << 20);
}

/* Backslash escapes in quoted values, as the server's GUC_scanstr(). */
static void test_quoted_escapes(void **state)
{
	struct pg_test *t = *state;

	assert_int_equal(parse_text(t, "shared_buffers = '\\0612GB'\n"
				       "data_directory = '/srv/a\\tb\\\\c\\'d'\n"
				       "shared_memory_type = 'sysv'\n"), 0);
	assert_int_equal(t->s.shared_buffers, 12ULL << 30);
	assert_string_equal(t->s.data_directory, "/srv/a\tb\\c'd");
	assert_true(t->s.shm_sysv);
	assert_int_equal(parse_text(t, "shared_memory_type = windows\n"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settings_syntax, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors_name_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_includes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_include_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_include_loop_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_include_depth_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_absolute_include_under_root, setup, teardown),
		cmocka_unit_test(test_estimate),
		cmocka_unit_test_setup_teardown(test_server_integers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quoted_escapes, setup, teardown),
	};

	return cmocka_run_group_tests_name("pgconf", tests, NULL, NULL);
}
