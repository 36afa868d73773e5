/*
 * test_textesc.c -- text escaped as Python's repr() escapes it: what a
 * terminal would act on is escaped, what is printable is kept, escaping
 * twice changes nothing, and a repr picks its quotes as Python does.
 * The expected strings are CPython 3.11's repr() of the same text.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/arena.h"
#include "base/sbuf.h"
#include "base/textesc.h"

static void
expect_text(const char *in, size_t len, const char *want)
{
	struct sbuf b = SBUF_INIT, again = SBUF_INIT;
	textesc_add(&b, in, len, 0);
	assert_string_equal(sbuf_cstr(&b), want);
	textesc_add(&again, b.data ? b.data : "", b.len, 0);
	assert_string_equal(sbuf_cstr(&again), want);	/* idempotent */
	assert_int_equal(textesc_needed(in, len), strcmp(in, want) != 0 ||
	    len != strlen(in));
	sbuf_free(&b);
	sbuf_free(&again);
}

static void
test_controls(void **state)
{
	(void)state;
	expect_text("plain text, 'quoted' \\ kept", 27,
	    "plain text, 'quoted' \\ kept");
	expect_text("a\x1b]52;c;SGk=\x07\r\nforged", 21,
	    "a\\x1b]52;c;SGk=\\x07\\r\\nforged");
	expect_text("tab\there\x7f", 9, "tab\\there\\x7f");
	expect_text("nul\0byte", 8, "nul\\x00byte");
	/* C1 controls, bidi override, line separator: escaped; accents and
	 * CJK: kept */
	expect_text("\xc2\x9b" "1m\xe2\x80\xae" "x\xe2\x80\xa8", 11,
	    "\\x9b1m\\u202ex\\u2028");
	expect_text("caf\xc3\xa9 \xe6\x96\x87", 9, "caf\xc3\xa9 \xe6\x96\x87");
	expect_text("\xf3\xa0\x80\x81", 4, "\\U000e0001");
	/* not UTF-8: each bad byte; a lone surrogate as a Python str holds */
	expect_text("\xff\xc3(", 3, "\\xff\\xc3(");
	expect_text("\xed\xb2\x80", 3, "\\udc80");
}

static void
test_repr(void **state)
{
	struct sbuf b = SBUF_INIT;
	(void)state;
	textesc_repr(&b, "it's\x1b", 5);
	assert_string_equal(sbuf_cstr(&b), "\"it's\\x1b\"");
	sbuf_truncate(&b, 0);
	textesc_repr(&b, "a'b\"c\\", 6);
	assert_string_equal(sbuf_cstr(&b), "'a\\'b\"c\\\\'");
	sbuf_free(&b);
}

static void
test_text_in_arena(void **state)
{
	struct arena *a = arena_new();
	const char *clean = "report.txt";
	(void)state;
	assert_ptr_equal(textesc_text(a, clean), clean);
	assert_null(textesc_text(a, NULL));
	assert_string_equal(textesc_text(a, "x\ny"), "x\\ny");
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_repr),
		cmocka_unit_test(test_text_in_arena),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
