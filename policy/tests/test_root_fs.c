// SPDX-License-Identifier: GPL-2.0
/*
 * The --root boundary (issue 15, classes 5 and 6): every path stays in the
 * root, and FIFOs, devices and sockets are never opened.  Each test runs
 * twice: with openat2(RESOLVE_IN_ROOT) and with the fallback walk.
 */
#include "root_fs.h"
#include "test_util.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct root_test {
	char top[256];		/* holds root/ and outside/ */
	char root[300];
};

static int setup_with(void **state, bool walk)
{
	struct root_test *t = calloc(1, sizeof(*t));
	char p[600];

	assert_non_null(t);
	make_temp_dir(t->top, sizeof(t->top));
	snprintf(t->root, sizeof(t->root), "%s/root", t->top);
	write_file_at(t->top, "root/etc/a.conf", "inside\n");
	write_file_at(t->top, "outside/secret.conf", "outside\n");
	write_file_at(t->top, "root/outside/secret.conf", "root's own\n");
	snprintf(p, sizeof(p), "%s/etc/abs.conf", t->root);
	assert_int_equal(symlink("/etc/a.conf", p), 0);
	snprintf(p, sizeof(p), "%s/etc/climb.conf", t->root);
	assert_int_equal(symlink("../../../../../outside/secret.conf", p), 0);
	snprintf(p, sizeof(p), "%s/etc/loop.conf", t->root);
	assert_int_equal(symlink("loop.conf", p), 0);
	snprintf(p, sizeof(p), "%s/etc/fifo.conf", t->root);
	assert_int_equal(mkfifo(p, 0600), 0);
	snprintf(p, sizeof(p), "%s/etc/dirlink", t->root);
	assert_int_equal(symlink("/etc", p), 0);
	root_fs_force_walk = walk;
	*state = t;
	return 0;
}

static int setup_openat2(void **state)
{
	return setup_with(state, false);
}

static int setup_walk(void **state)
{
	return setup_with(state, true);
}

static int teardown(void **state)
{
	struct root_test *t = *state;

	root_fs_force_walk = false;
	remove_tree(t->top);
	free(t);
	return 0;
}

/* Read @path in the root; its text, or "" with the error in *err. */
static const char *read_in(struct root_test *t, const char *path, int *err)
{
	static char text[64];
	size_t len;
	char *buf;

	text[0] = '\0';
	*err = root_read_file(t->root, path, 4096, &buf, &len);
	if (!*err) {
		snprintf(text, sizeof(text), "%s", buf);
		free(buf);
	}
	return text;
}

static void test_stays_inside(void **state)
{
	struct root_test *t = *state;
	int err;

	assert_string_equal(read_in(t, "/etc/a.conf", &err), "inside\n");
	/* An absolute symlink means the root's /etc, as its init sees it. */
	assert_string_equal(read_in(t, "/etc/abs.conf", &err), "inside\n");
	/* Climbing out stops at the root: the root's /outside, not the host's. */
	assert_string_equal(read_in(t, "/etc/climb.conf", &err), "root's own\n");
	assert_string_equal(read_in(t, "/../../outside/secret.conf", &err),
			    "root's own\n");
	assert_string_equal(read_in(t, "/etc/dirlink/../etc/dirlink/a.conf",
				    &err), "inside\n");
	read_in(t, "/etc/loop.conf", &err);
	assert_int_equal(err, -ELOOP);
	read_in(t, "/etc/missing.conf", &err);
	assert_int_equal(err, -ENOENT);
}

static void test_never_opens_special_files(void **state)
{
	struct root_test *t = *state;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	time_t start = time(NULL);
	int err, s;

	/* A FIFO nobody writes to: refused at once, not opened. */
	read_in(t, "/etc/fifo.conf", &err);
	assert_int_equal(err, -EINVAL);
	assert_true(time(NULL) - start < 2);
	/* A device: /dev/null of the host root, refused before open(). */
	assert_int_equal(root_read_file("/", "/dev/null", 16, &(char *){ NULL },
					&(size_t){ 0 }), -EINVAL);
	/* A socket. */
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(s >= 0);
	assert_true(strlen(t->root) + 16 < sizeof(sa.sun_path));
	memcpy(sa.sun_path, t->root, strlen(t->root));
	memcpy(sa.sun_path + strlen(t->root), "/etc/sock.conf", 15);
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	read_in(t, "/etc/sock.conf", &err);
	assert_int_equal(err, -EINVAL);
	close(s);
	/* A directory where a file belongs, and the other way round. */
	read_in(t, "/etc", &err);
	assert_int_equal(err, -EINVAL);
	assert_null(root_opendir(t->root, "/etc/a.conf"));
	assert_int_equal(errno, ENOTDIR);
}

static void test_opendir_and_stat(void **state)
{
	struct root_test *t = *state;
	struct stat st;
	DIR *d;

	d = root_opendir(t->root, "/etc/dirlink");
	assert_non_null(d);
	closedir(d);
	assert_int_equal(root_stat(t->root, "/etc/abs.conf", &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(root_stat(t->root, "/etc/fifo.conf", &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stays_inside, setup_openat2, teardown),
		cmocka_unit_test_setup_teardown(test_stays_inside, setup_walk, teardown),
		cmocka_unit_test_setup_teardown(test_never_opens_special_files, setup_openat2, teardown),
		cmocka_unit_test_setup_teardown(test_never_opens_special_files, setup_walk, teardown),
		cmocka_unit_test_setup_teardown(test_opendir_and_stat, setup_openat2, teardown),
		cmocka_unit_test_setup_teardown(test_opendir_and_stat, setup_walk, teardown),
	};

	return cmocka_run_group_tests_name("root_fs", tests, NULL, NULL);
}
