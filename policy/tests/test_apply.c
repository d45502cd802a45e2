// SPDX-License-Identifier: GPL-2.0
/* apply against a fake kernel: refusals, failed writes, read-back. */
#include "apply.h"
#include "exit_codes.h"
#include "test_util.h"

/* A pretend kernel: a mode list, and knobs to misbehave. */
struct fake_kernel {
	struct mode_list modes;
	int write_error;		/* returned by write_mode */
	int ignore_writes;		/* accept but do not switch */
	unsigned int writes;
	char last_write[32];
	unsigned int logs;
	char last_log[1024];
	int last_level;
};

static int fake_read(void *ctx, const char *path, struct mode_list *out)
{
	struct fake_kernel *k = ctx;

	(void)path;
	*out = k->modes;
	return 0;
}

static int fake_write(void *ctx, const char *path, const char *mode)
{
	struct fake_kernel *k = ctx;
	int m = mode_from_span(mode, strlen(mode));

	(void)path;
	k->writes++;
	snprintf(k->last_write, sizeof(k->last_write), "%s", mode);
	if (k->write_error)
		return k->write_error;
	/* Like the kernel: unknown or unlisted -> EINVAL. */
	if (!mode_available(&k->modes, m))
		return -22;
	if (!k->ignore_writes)
		k->modes.current = m;
	return 0;
}

static int fake_log(void *ctx, int level, const char *msg)
{
	struct fake_kernel *k = ctx;

	k->logs++;
	k->last_level = level;
	snprintf(k->last_log, sizeof(k->last_log), "%s", msg);
	return 0;
}

static const struct kernel_ops fake_ops = {
	.read_modes = fake_read, .write_mode = fake_write, .log = fake_log,
};

struct apply_test {
	struct facts f;
	struct policy p;
	struct diag_list d;
	struct run run;
	struct env env;
	struct fake_kernel k;
	FILE *out;
};

static void set_kernel(struct apply_test *t, const char *list)
{
	assert_int_equal(parse_mode_list(list, strlen(list), &t->k.modes), 0);
	t->f.modes = t->k.modes;
	t->f.support = mode_available(&t->f.modes, MODE_NONE) ?
		       KERNEL_PATCHED : KERNEL_UNPATCHED;
	strcpy(t->f.mode_path, "/fake/mode");
}

static int setup(void **state)
{
	struct apply_test *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	set_kernel(t, "none voluntary full (lazy)");
	t->run.facts = &t->f;
	t->run.policy = &t->p;
	t->run.policy_diags = &t->d;
	t->run.decision.mode = MODE_NONE;
	t->run.decision.source = SRC_RULE;
	t->run.decision.rule = -1;
	t->run.decision.keep_mode = MODE_UNKNOWN;
	strcpy(t->run.decision.reason, "because");
	t->env.sys = "/fake";
	t->out = fopen("/dev/null", "w");
	assert_non_null(t->out);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct apply_test *t = *state;

	fclose(t->out);
	free(t);
	return 0;
}

static int do_apply(struct apply_test *t)
{
	return apply_decision(&t->run, &t->env, &fake_ops, &t->k, t->out);
}

static void test_switches_and_logs(void **state)
{
	struct apply_test *t = *state;

	assert_int_equal(do_apply(t), EXIT_OK);
	assert_int_equal(t->k.writes, 1);
	assert_string_equal(t->k.last_write, "none");
	assert_int_equal(t->k.modes.current, MODE_NONE);
	assert_int_equal(t->k.logs, 1);
	assert_non_null(strstr(t->k.last_log, "switched from lazy to none"));
	assert_non_null(strstr(t->k.last_log, "because"));
}

static void test_already_there(void **state)
{
	struct apply_test *t = *state;

	set_kernel(t, "(none) voluntary full lazy");
	assert_int_equal(do_apply(t), EXIT_OK);
	assert_int_equal(t->k.writes, 0);
	assert_non_null(strstr(t->k.last_log, "already none"));
}

static void test_unpatched_refused(void **state)
{
	struct apply_test *t = *state;

	set_kernel(t, "full (lazy)");
	assert_int_equal(do_apply(t), EXIT_CANNOT);
	assert_int_equal(t->k.writes, 0);
	assert_non_null(strstr(t->k.last_log, "unpatched 7.x"));
}

static void test_unknown_modes_refused(void **state)
{
	struct apply_test *t = *state;

	t->f.modes.available = 0;
	t->f.modes.current = MODE_UNKNOWN;
	t->f.mode_path[0] = '\0';
	assert_int_equal(do_apply(t), EXIT_CANNOT);
	assert_int_equal(t->k.writes, 0);
}

static void test_write_fails(void **state)
{
	struct apply_test *t = *state;

	t->k.write_error = -13;
	assert_int_equal(do_apply(t), EXIT_WRITE_FAILED);
	assert_int_equal(t->k.writes, 1);
	assert_int_equal(t->k.last_level, 3);
	assert_non_null(strstr(t->k.last_log, "failed"));
}

static void test_readback_mismatch(void **state)
{
	struct apply_test *t = *state;

	t->k.ignore_writes = 1;
	assert_int_equal(do_apply(t), EXIT_WRITE_FAILED);
	assert_non_null(strstr(t->k.last_log, "kernel reports lazy"));
}

static void test_keep_disabled_admin(void **state)
{
	struct apply_test *t = *state;

	t->run.decision.mode = MODE_KEEP;
	t->run.decision.source = SRC_DEFAULT;
	assert_int_equal(do_apply(t), EXIT_OK);
	t->run.decision.source = SRC_FALLBACK;
	t->run.decision.bad_input = true;
	assert_int_equal(do_apply(t), EXIT_BAD_INPUT);
	t->run.decision.bad_input = false;
	t->run.decision.source = SRC_DISABLED;
	assert_int_equal(do_apply(t), EXIT_DISABLED);
	t->run.decision.mode = MODE_FULL;
	t->run.decision.source = SRC_ADMIN;
	assert_int_equal(do_apply(t), EXIT_OK);
	assert_non_null(strstr(t->k.last_log, "admin's choice"));
	assert_int_equal(t->k.writes, 0);
	assert_int_equal(t->k.logs, 4);
}

/*
 * keep with a known build default: the initramfs chose none on a pool that
 * was not there yet; a later run with the pool in place returns to lazy.
 */
static void test_keep_returns_to_build_default(void **state)
{
	struct apply_test *t = *state;

	set_kernel(t, "(none) voluntary full lazy");
	t->run.decision.mode = MODE_KEEP;
	t->run.decision.source = SRC_DEFAULT;
	t->run.decision.keep_mode = MODE_LAZY;
	assert_int_equal(do_apply(t), EXIT_OK);
	assert_int_equal(t->k.writes, 1);
	assert_string_equal(t->k.last_write, "lazy");
	assert_int_equal(t->k.modes.current, MODE_LAZY);
	assert_non_null(strstr(t->k.last_log, "switched from none to lazy"));
	/* Already there: nothing written. */
	t->f.modes = t->k.modes;
	assert_int_equal(do_apply(t), EXIT_OK);
	assert_int_equal(t->k.writes, 1);
	/* Unknown build default: keep means the current mode, as before. */
	set_kernel(t, "(none) voluntary full lazy");
	t->run.decision.keep_mode = MODE_UNKNOWN;
	assert_int_equal(do_apply(t), EXIT_OK);
	assert_int_equal(t->k.writes, 1);
	assert_non_null(strstr(t->k.last_log, "keeping none"));
}

static void test_dry_run_touches_nothing(void **state)
{
	struct apply_test *t = *state;

	t->env.dry_run = true;
	assert_int_equal(do_apply(t), EXIT_OK);
	assert_int_equal(t->k.writes, 0);
	assert_int_equal(t->k.logs, 0);
}

/* The live logger writes "<5>preempt-policy: ..." records to --kmsg. */
static void test_live_log_prefix(void **state)
{
	struct apply_test *t = *state;
	char dir[256], path[300], buf[512];
	FILE *f;

	make_temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/kmsg", dir);
	t->env.kmsg = path;
	assert_int_equal(live_kernel_ops.log(&t->env, 5, "hello"), 0);
	assert_int_equal(live_kernel_ops.log(&t->env, 4, "again"), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	assert_string_equal(buf, "<5>preempt-policy: hello\n");
	assert_non_null(fgets(buf, sizeof(buf), f));
	assert_string_equal(buf, "<4>preempt-policy: again\n");
	fclose(f);
	remove_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_switches_and_logs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_already_there, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unpatched_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_modes_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readback_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keep_disabled_admin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keep_returns_to_build_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dry_run_touches_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_log_prefix, setup, teardown),
	};

	return cmocka_run_group_tests_name("apply", tests, NULL, NULL);
}
