// SPDX-License-Identifier: GPL-2.0
/* Fact gathering against the fixture trees in tests/fixtures. */
#include "fact_keys.h"
#include "pgconf.h"
#include "rules.h"
#include "state.h"
#include "test_util.h"

struct facts_test {
	struct facts f;
	struct policy p;
	struct diag_list d;
	char proc[1024], sys[1024], root[1024];
	struct env env;
};

static int setup(void **state)
{
	struct facts_test *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static void gather(struct facts_test *t, const char *kernel, const char *root)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/proc", kernel);
	fixture_path(t->proc, sizeof(t->proc), rel);
	snprintf(rel, sizeof(rel), "%s/sys", kernel);
	fixture_path(t->sys, sizeof(t->sys), rel);
	fixture_path(t->root, sizeof(t->root), root);
	memset(&t->env, 0, sizeof(t->env));
	t->env.proc = t->proc;
	t->env.sys = t->sys;
	t->env.root = t->root;
	t->env.arch = "aarch64";
	memset(&t->d, 0, sizeof(t->d));
	policy_load(&t->p, &t->env, &t->d);
	facts_gather(&t->f, &t->env, &t->p);
}

static uint64_t fact_number(struct facts_test *t, enum fact_key k)
{
	struct fact_value v;

	fact_get(&t->f, k, &v);
	assert_true(v.known);
	return v.number;
}

static void test_patched_kernel(void **state)
{
	struct facts_test *t = *state;

	gather(t, "patched", "root-empty");
	assert_int_equal(t->f.support, KERNEL_PATCHED);
	assert_int_equal(t->f.mode_source, MODE_SRC_SYSFS);
	assert_non_null(strstr(t->f.mode_path, "kernel/preempt/mode"));
	assert_int_equal(t->f.modes.current, MODE_LAZY);
	assert_true(mode_available(&t->f.modes, MODE_NONE));
	assert_int_equal(t->f.cpus, 96);
	assert_int_equal(t->f.mem_total, 65843212ULL * 1024);
	assert_int_equal(t->f.default_hugepage_size, 2ULL << 20);
	assert_int_equal(t->f.npools, 2);
	assert_int_equal(t->f.pools[0].page_size, 2ULL << 20);
	assert_int_equal(t->f.pools[1].page_size, 1ULL << 30);
	assert_string_equal(t->f.thp_enabled, "madvise");
	assert_string_equal(t->f.thp_shmem_enabled, "never");
	assert_int_equal(t->f.shm_warn_count, 0);
	assert_int_equal(t->f.shm_warn_bytes, 1ULL << 30);
	assert_string_equal(t->f.arch, "aarch64");
	assert_false(t->f.boot.admin_set);
	assert_int_equal(t->f.nclusters, 0);
	assert_int_equal(diag_total(&t->f.diags), 0);
}

static void test_unpatched_kernel(void **state)
{
	struct facts_test *t = *state;

	gather(t, "unpatched", "root-empty");
	assert_int_equal(t->f.support, KERNEL_UNPATCHED);
	assert_int_equal(t->f.mode_source, MODE_SRC_DEBUGFS);
	assert_false(mode_available(&t->f.modes, MODE_NONE));
	assert_int_equal(t->f.modes.current, MODE_LAZY);
	/* "0-3,8,10-11" */
	assert_int_equal(t->f.cpus, 7);
	/* Counter absent: unknown, not zero. */
	assert_int_equal(t->f.shm_warn_count, -1);
}

static void test_no_mode_files(void **state)
{
	struct facts_test *t = *state;

	gather(t, "nomodes", "root-empty");
	assert_int_equal(t->f.support, KERNEL_UNKNOWN);
	assert_int_equal(t->f.modes.available, 0);
	assert_string_equal(t->f.mode_path, "");
}

static void test_debian_cluster(void **state)
{
	struct facts_test *t = *state;
	const struct pg_cluster *c = &t->f.clusters[0];
	struct pg_shm_settings shm;

	gather(t, "patched", "root-pg-big");
	assert_int_equal(t->f.nclusters, 1);
	assert_string_equal(c->name, "16/main");
	assert_string_equal(c->data_dir, "/var/lib/postgresql/16/main");
	/* conf.d/20-memory.conf wins; .hidden.conf and notes.txt are skipped. */
	assert_int_equal(c->shared_buffers, 8ULL << 30);
	assert_int_equal(c->huge_pages, PG_HUGE_TRY);
	/* ALTER SYSTEM's file sets it, last: there is where to change it. */
	assert_string_equal(c->huge_pages_origin,
			    "/var/lib/postgresql/16/main/postgresql.auto.conf:4");
	assert_string_equal(c->auto_conf,
			    "/var/lib/postgresql/16/main/postgresql.auto.conf");
	assert_false(c->bad);
	assert_int_equal(c->backing, PG_BACKING_4K);
	pg_shm_settings_init(&shm);
	shm.shared_buffers = (8LL << 30) / (int64_t)PG_BLOCK_SIZE;
	assert_int_equal(c->version, 16);
	assert_int_equal(c->hugepages_needed,
			 (pg_estimate_shm(&shm, 16) + (2ULL << 20) - 1) /
			 (2ULL << 20));
	assert_int_equal(fact_number(t, FACT_PG_SHM_WITHOUT_HUGEPAGES),
			 pg_estimate_shm(&shm, 16));
	assert_int_equal(diag_total(&t->f.diags), 0);
}

static void test_hugetlb_assignment(void **state)
{
	struct facts_test *t = *state;
	struct pg_cluster *c = &t->f.clusters[0];

	gather(t, "patched", "root-pg-big");
	/* Enough pages reserved: huge_pages=try gets them. */
	t->f.pools[0].nr = (long long)c->hugepages_needed;
	facts_derive(&t->f);
	assert_int_equal(c->backing, PG_BACKING_HUGETLB);
	assert_int_equal(t->f.pg_shm_without_hugepages, 0);
	/* One page short: try falls back to 4KiB pages. */
	t->f.pools[0].nr = (long long)c->hugepages_needed - 1;
	facts_derive(&t->f);
	assert_int_equal(c->backing, PG_BACKING_4K);
	assert_false(c->start_fails);
	/*
	 * huge_pages=on one page short of the model: the model errs high
	 * by up to 2 %, so that is no sure start failure.
	 */
	c->huge_pages = PG_HUGE_ON;
	facts_derive(&t->f);
	assert_false(c->start_fails);
	/*
	 * A tenth short: the server refuses to start, which is a
	 * diagnostic (bad input), and maps nothing.
	 */
	t->f.pools[0].nr = (long long)c->hugepages_needed * 9 / 10;
	facts_derive(&t->f);
	assert_true(c->start_fails);
	assert_int_equal(c->pool_left, (long long)c->hugepages_needed * 9 / 10);
	assert_int_equal(c->backing, PG_BACKING_4K);
	facts_check_start(&t->f);
	assert_true(diag_contains(&t->f.diags, "cluster 16/main: huge_pages = on (/var/lib/postgresql/16/main/postgresql.auto.conf:4) needs"));
	assert_true(diag_contains(&t->f.diags, "the server will not start"));
	/* With its pages it starts in them. */
	t->f.pools[0].nr = (long long)c->hugepages_needed;
	facts_derive(&t->f);
	assert_false(c->start_fails);
	assert_int_equal(c->backing, PG_BACKING_HUGETLB);
	/* SysV memory and huge_pages=on: refused whatever the pool. */
	c->shm_sysv = true;
	facts_derive(&t->f);
	assert_true(c->start_fails);
	c->shm_sysv = false;
	/* off, shmem THP advise: PostgreSQL does not madvise, so no. */
	c->huge_pages = PG_HUGE_OFF;
	strcpy(t->f.thp_shmem_enabled, "advise");
	facts_derive(&t->f);
	assert_int_equal(c->backing, PG_BACKING_4K);
	strcpy(t->f.thp_shmem_enabled, "within_size");
	facts_derive(&t->f);
	assert_int_equal(c->backing, PG_BACKING_THP);
	strcpy(t->f.thp_shmem_enabled, "always");
	facts_derive(&t->f);
	assert_int_equal(c->backing, PG_BACKING_THP);
	assert_int_equal(t->f.pg_shm_without_hugepages, 0);
}

static void test_configured_pgdata(void **state)
{
	struct facts_test *t = *state;
	const struct pg_cluster *c = &t->f.clusters[0];

	gather(t, "patched", "root-pg-custom");
	assert_int_equal(t->p.npgdatas, 1);
	assert_int_equal(t->f.nclusters, 1);
	assert_string_equal(c->name, "/srv/pgdata");
	/* postgresql.auto.conf (ALTER SYSTEM) overrides postgresql.conf. */
	assert_int_equal(c->shared_buffers, 3ULL << 30);
}

static void test_malformed_cluster(void **state)
{
	struct facts_test *t = *state;

	gather(t, "patched", "root-pg-bad");
	assert_int_equal(t->f.nclusters, 1);
	assert_true(t->f.clusters[0].bad);
	assert_true(diag_contains(&t->f.diags, "tuning.conf:3:"));
}

/*
 * After pg_upgradecluster: 13/main stays behind as "manual" and is not
 * running; 15/old is "disabled"; 15/main (no start.conf) is auto; 15/sysv
 * uses System V shared memory, which PostgreSQL never backs with huge
 * pages, however many are reserved.
 */
static void test_cluster_state(void **state)
{
	struct facts_test *t = *state;
	unsigned int i;

	gather(t, "patched", "root-pg-upgraded");
	assert_int_equal(t->f.nclusters, 2);
	assert_string_equal(t->f.clusters[0].name, "15/main");
	assert_string_equal(t->f.clusters[1].name, "15/sysv");
	assert_true(t->f.clusters[1].shm_sysv);
	t->f.pools[0].nr = 100000;
	facts_derive(&t->f);
	assert_int_equal(t->f.clusters[0].backing, PG_BACKING_HUGETLB);
	assert_int_equal(t->f.clusters[1].backing, PG_BACKING_4K);
	assert_int_equal(t->f.pg_shm_without_hugepages,
			 t->f.clusters[1].shm_estimate);
	for (i = 0; i < t->f.nclusters; i++)
		assert_false(t->f.clusters[i].bad);
}

/*
 * The pool the root will have: /etc/sysctl.d masks /usr/lib/sysctl.d's
 * file of the same name, files go in name order across directories,
 * /etc/sysctl.conf comes last, the last assignment wins.
 */
static void test_sysctl_prediction(void **state)
{
	struct facts_test *t = *state;
	const struct hugetlb_pool *p2m;

	gather(t, "patched", "root-pg-sysctl");
	p2m = &t->f.pools[0];
	assert_int_equal(p2m->page_size, 2ULL << 20);
	assert_int_equal(p2m->live, 0);
	assert_int_equal(p2m->nr, 4300);
	assert_string_equal(p2m->origin, "/etc/sysctl.d/60-pg.conf:3");
	assert_int_equal(t->f.clusters[0].backing, PG_BACKING_HUGETLB);
	assert_int_equal(t->f.pg_shm_without_hugepages, 0);
	assert_true(diag_contains(&t->f.diags, "/usr/lib/sysctl.d/20-bad.conf:1: vm.nr_hugepages: not a page count"));
	/* The kernel's build default, for keep. */
	assert_int_equal(t->f.build_mode, MODE_UNKNOWN);
}

static void test_parsers(void **state)
{
	char out[16];

	assert_int_equal(parse_cpu_list("0\n"), 1);
	assert_int_equal(parse_cpu_list("0-127"), 128);
	assert_true(parse_cpu_list("3-1") < 0);
	assert_true(parse_cpu_list("0-") < 0);
	assert_true(parse_cpu_list("x") < 0);
	assert_true(parse_cpu_list("0-4294967295") < 0);
	assert_int_equal(parse_bracketed_choice("always [madvise] never\n", out,
						sizeof(out)), 0);
	assert_string_equal(out, "madvise");
	assert_true(parse_bracketed_choice("always madvise never", out,
					   sizeof(out)) < 0);
	assert_true(parse_bracketed_choice("[a] [b]", out, sizeof(out)) < 0);
}

static void test_state_parse(void **state)
{
	static const char ok[] =
		"# preempt-policy state: the mode for the next boot, see preempt-policy(8)\n"
		"mode=none\n"
		"reason=rule pg-fell-back (/etc/preempt-policy.d/60-live.conf:1): pg_live_fallbacks > 0 (is 1)\n"
		"cluster=16/main\n"
		"\n"
		"cluster=15/main";
	struct saved_state st;
	char many[512] = "mode=full\n";
	unsigned int i;

	assert_true(state_parse(&st, ok, sizeof(ok) - 1));
	assert_false(st.bad);
	assert_false(st.present);
	assert_int_equal(st.mode, MODE_NONE);
	assert_int_equal(st.nclusters, 2);
	assert_string_equal(st.clusters[0], "16/main");
	assert_string_equal(st.clusters[1], "15/main");
	assert_true(strncmp(st.reason, "rule pg-fell-back ", 18) == 0);
	/* Not NUL-terminated: only @len bytes are read. */
	assert_true(state_parse(&st, "mode=full\ncluster=a/b", 19));
	assert_string_equal(st.clusters[0], "a");
	/* Unknown mode, no cluster, a foreign line, "mode=keep". */
	assert_false(state_parse(&st, "mode=bogus\ncluster=16/main\n", 27));
	assert_int_equal(st.mode, MODE_UNKNOWN);
	assert_false(state_parse(&st, "mode=none\n", 10));
	assert_false(state_parse(&st, "mode=none\ncluster=1/a\nx=1\n", 26));
	assert_false(state_parse(&st, "mode=keep\ncluster=1/a\n", 22));
	assert_false(state_parse(&st, "", 0));
	/* More clusters than state_record writes: not its file. */
	for (i = 0; i < STATE_MAX_CLUSTERS + 3; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many),
			 "cluster=%u/main\n", i);
	assert_false(state_parse(&st, many, strlen(many)));
	assert_true(st.bad);
	assert_int_equal(st.nclusters, STATE_MAX_CLUSTERS);
	assert_string_equal(st.clusters[STATE_MAX_CLUSTERS - 1], "7/main");
}

/*
 * A NUL byte in a cluster= value (here the whole name: "cluster=" and
 * then a NUL) names no cluster: the file is not one state_record wrote.
 * The diagnostic names the file, the line and the key; the state holds
 * nothing.
 */
static void test_state_nul(void **state)
{
	static const char lead[] = "mode=none\ncluster=\0\n";
	static const char mid[] = "mode=none\ncluster=16/main\ncluster=15\0/main\n";
	struct facts_test *t = *state;
	struct saved_state st;
	char tmp[256], path[512];
	FILE *f;

	assert_false(state_parse(&st, lead, sizeof(lead) - 1));
	assert_true(st.bad);
	assert_int_equal(st.bad_line, 2);
	assert_string_equal(st.bad_key, "cluster=");
	assert_int_equal(st.nclusters, 0);
	assert_false(state_parse(&st, mid, sizeof(mid) - 1));
	assert_true(st.bad);
	assert_int_equal(st.bad_line, 3);
	assert_string_equal(st.bad_key, "cluster=");
	assert_int_equal(st.nclusters, 1);
	/* A well-formed file names no line. */
	assert_true(state_parse(&st, "mode=none\ncluster=1/a\n", 22));
	assert_int_equal(st.bad_line, 0);
	assert_null(st.bad_key);

	make_temp_dir(tmp, sizeof(tmp));
	write_file_at(tmp, "var/lib/preempt-policy/.keep", "");
	snprintf(path, sizeof(path), "%s/var/lib/preempt-policy/state", tmp);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(lead, 1, sizeof(lead) - 1, f), sizeof(lead) - 1);
	assert_int_equal(fclose(f), 0);
	memset(&t->f, 0, sizeof(t->f));
	memset(&t->env, 0, sizeof(t->env));
	t->env.root = tmp;
	facts_gather_state(&t->f, &t->env);
	assert_true(t->f.state.present);
	assert_true(t->f.state.bad);
	assert_null(state_holds(&t->f));
	assert_true(diag_contains(&t->f.diags,
				  "var/lib/preempt-policy/state:2: cluster="));
	remove_tree(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_parse),
		cmocka_unit_test_setup_teardown(test_state_nul, setup, teardown),
		cmocka_unit_test_setup_teardown(test_patched_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unpatched_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_mode_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_debian_cluster, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hugetlb_assignment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_configured_pgdata, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_cluster, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cluster_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sysctl_prediction, setup, teardown),
		cmocka_unit_test(test_parsers),
	};

	return cmocka_run_group_tests_name("facts", tests, NULL, NULL);
}
