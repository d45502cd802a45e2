// SPDX-License-Identifier: GPL-2.0
/* Escaping for terminals, the kernel log and JSON (issue 15, class 8). */
#include "escape.h"
#include "json.h"
#include "test_util.h"

static const char *esc(const char *in)
{
	static char out[256];

	text_escape(out, sizeof(out), in);
	return out;
}

static const char *json(const char *in)
{
	static char out[256];
	FILE *f = fmemopen(out, sizeof(out), "w");

	assert_non_null(f);
	json_string(f, in);
	fclose(f);
	return out;
}

static void test_terminal(void **state)
{
	(void)state;
	assert_string_equal(esc("15/main"), "15/main");
	/* A screen clear and a forged log line from a directory name. */
	assert_string_equal(esc("a\x1b[2Jb\nfake: line"),
			    "a\\x1b[2Jb\\x0afake: line");
	assert_string_equal(esc("del\x7f back\\slash"), "del\\x7f back\\\\slash");
	/* UTF-8 stays; C1 CSI (U+009B) and stray bytes do not. */
	assert_string_equal(esc("d\xc3\xa9j\xc3\xa0"), "d\xc3\xa9j\xc3\xa0");
	assert_string_equal(esc("\xc2\x9b" "2J"), "\\xc2\\x9b2J");
	assert_string_equal(esc("\x9b\xff\xc3"), "\\x9b\\xff\\xc3");
	/* Overlong and surrogate encodings are not UTF-8. */
	assert_string_equal(esc("\xc0\xaf\xed\xa0\x80"),
			    "\\xc0\\xaf\\xed\\xa0\\x80");
	/* Cut at the buffer, never in the middle of an escape. */
	{
		char small[6];

		text_escape(small, sizeof(small), "ab\x1b" "cd");
		assert_string_equal(small, "ab");
	}
}

static void test_json(void **state)
{
	(void)state;
	assert_string_equal(json("d\xc3\xa9j\xc3\xa0 \xe2\x82\xac"),
			    "\"d\xc3\xa9j\xc3\xa0 \xe2\x82\xac\"");
	assert_string_equal(json("q\"b\\\x1b\n\t\x7f"),
			    "\"q\\\"b\\\\\\u001b\\n\\t\x7f\"");
	assert_string_equal(json("bad\xff\xc3"), "\"bad\\ufffd\\ufffd\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_terminal),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests_name("escape", tests, NULL, NULL);
}
