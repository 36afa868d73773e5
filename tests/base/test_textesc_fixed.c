/*
 * test_textesc_fixed.c -- a repr is already text: textesc_text() of what
 * textesc_repr_in() returns is the same string.
 *
 * The trace line relies on it (record_set_line_shown does not escape the
 * shown input a second time), so random inputs of every kind of byte a
 * line may hold -- controls, DEL, quotes, backslashes, printable and
 * unprintable UTF-8 (U+202E, U+200B, U+00A0, surrogates), truncated
 * sequences and bytes that start none -- must come out of the repr with
 * nothing left for textesc_needed() to find.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/textesc.h"

static const char *const pieces[] = {
	"a", "Z", "0", " ", "~", "'", "\"", "\\", "\n", "\r", "\t", "\x01",
	"\x1b[31m", "\x7f", "\xc3\xa9", "\xc2\xa0", "\xe2\x80\xae",
	"\xe2\x80\x8b", "\xed\xa0\x80", "\xf0\x9f\x98\x80", "\xe2\x82",
	"\x80", "\xff", "\xc0\xaf", "\xef\xbb\xbf", "\xe4\xb8\xad",
	"round(sum(orders) / len(orders), 2)",
};

static void
check_fixed(struct arena *a, const char *s, size_t len)
{
	const char *r = textesc_repr_in(a, s, len);

	assert_false(textesc_needed(r, strlen(r)));
	assert_ptr_equal(textesc_text(a, r), r);
}

static void
test_repr_is_text(void **state)
{
	struct arena *a = arena_new();
	char buf[256];
	unsigned seed = 32;
	int n;

	(void)state;
	for (n = 0; n < 20000; n++) {
		size_t len = 0;
		int k = (int)(rand_r(&seed) % 12);
		while (k-- > 0) {
			const char *p = pieces[rand_r(&seed) %
			    (sizeof pieces / sizeof pieces[0])];
			size_t pl = strlen(p);
			if (len + pl >= sizeof buf)
				break;
			memcpy(buf + len, p, pl);
			len += pl;
		}
		check_fixed(a, buf, len);
	}
	/* a NUL inside the input is escaped too */
	check_fixed(a, "a\0b", 3);
	arena_free(a);
}

/* the check itself can fail: unescaped text is found */
static void
test_needed_finds_raw(void **state)
{
	(void)state;
	assert_true(textesc_needed("a\nb", 3));
	assert_true(textesc_needed("\xe2\x80\xae", 3));
	assert_true(textesc_needed("\xff", 1));
	assert_false(textesc_needed("'a\\\\n'", 6));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repr_is_text),
		cmocka_unit_test(test_needed_finds_raw),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
