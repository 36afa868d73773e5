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
#include "base/sbuf.h"
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

/* The plain run byte by byte, as the rule says it. */
static size_t
plain_reference(const char *s, size_t n, char quote)
{
	size_t i;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x7f || (quote != 0 && (c == '\\' ||
		    c == (unsigned char)quote)))
			break;
	}
	return i;
}

/*
 * textesc_plain_run() counts sixteen bytes at a time (SSE2) and the rest
 * eight at a time: the same count as byte by byte, for texts of every
 * length up to 80 with the first byte that is not plain anywhere (or
 * nowhere), and the same escaping through it (textesc_repr_in against
 * textesc_repr, textesc_text_n's length).
 */
static void
test_plain_run_fast(void **state)
{
	static const char odd[] = { '\0', '\n', 0x1f, 0x7f, (char)0x80,
	    (char)0xff, (char)0xc3, '\'', '"', '\\', ' ', '~', 'a' };
	struct arena *a = arena_new();
	static const char quotes[] = { 0, '\'', '"' };
	char buf[96];
	unsigned seed = 33;
	size_t n, at, q, k;

	(void)state;
	for (n = 0; n <= 80; n++)
		for (at = 0; at <= n; at++)
			for (k = 0; k < sizeof odd; k++) {
				size_t i, len, off = rand_r(&seed) % 8;
				const char *r, *t;
				struct sbuf b = SBUF_INIT;
				for (i = 0; i < n; i++)
					buf[off + i] = (char)(0x20 +
					    rand_r(&seed) % 0x5f);
				if (at < n)
					buf[off + at] = odd[k];
				for (q = 0; q < sizeof quotes; q++)
					assert_int_equal(textesc_plain_run(
					    buf + off, n, quotes[q]),
					    plain_reference(buf + off, n,
					    quotes[q]));
				r = textesc_repr_in(a, buf + off, n);
				textesc_repr(&b, buf + off, n);
				assert_string_equal(r, sbuf_cstr(&b));
				sbuf_free(&b);
				buf[off + n] = '\0';
				t = textesc_text_n(a, buf + off, &len);
				assert_int_equal(len, strlen(t));
				assert_string_equal(t, textesc_text(a,
				    buf + off));
			}
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
		cmocka_unit_test(test_plain_run_fast),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
