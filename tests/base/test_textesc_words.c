/*
 * test_textesc_words.c -- textesc's runs of plain bytes, read eight at a
 * time (plain_run in textesc.c), against the same escapes taken one
 * character at a time with textesc_next().
 *
 * Random texts of printable ASCII with the bytes that end a run sprinkled
 * in at every offset of a word: controls, DEL, the quotes, a backslash,
 * UTF-8 and bytes that start none.  textesc_add (with no quote, ' and ")
 * and textesc_needed must say what the byte-by-byte reading says, and
 * textesc_repr_in what textesc_repr says.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/sbuf.h"
#include "base/textesc.h"

/* textesc_add, one character at a time */
static bool
reference(struct sbuf *out, const char *s, size_t len, char quote)
{
	size_t i = 0;
	bool escaped = false;

	while (i < len) {
		char buf[TEXTESC_MAX];
		size_t used = textesc_next(s + i, len - i, quote, buf);
		if (buf[0] != '\0') {
			sbuf_adds(out, buf);
			escaped = true;
		} else
			sbuf_add(out, s + i, used);
		i += used;
	}
	return escaped;
}

static uint64_t rng = 0x2545f4914f6cdd1du;

static unsigned
next(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void
test_words(void **state)
{
	static const char *const odd[] = {
		"\n", "\t", "\x01", "\x1f", "\x7f", "'", "\"", "\\", "\xc3\xa9",
		"\xe2\x80\x94", "\xff", "\x80", "\xed\xa0\x80", " ", "~", "\x20",
		"\xe2\x80\x8b", "\xf0\x9f\x98\x80",
	};
	static const char quotes[] = { 0, '\'', '"' };
	int round;

	(void)state;
	for (round = 0; round < 20000; round++) {
		char text[96];
		size_t len = next(80), i, k;
		struct sbuf got = SBUF_INIT, want = SBUF_INIT;

		for (i = 0; i < len; i++)
			text[i] = (char)(0x20 + next(0x5f));
		/* zero to three odd pieces, anywhere */
		for (k = next(4); k > 0; k--) {
			const char *o = odd[next(sizeof odd / sizeof odd[0])];
			size_t at = len ? next((unsigned)len) : 0, n = strlen(o);
			if (at + n <= len)
				memcpy(text + at, o, n);
		}
		for (k = 0; k < sizeof quotes; k++) {
			bool esc;
			sbuf_truncate(&got, 0);
			sbuf_truncate(&want, 0);
			textesc_add(&got, text, len, quotes[k]);
			esc = reference(&want, text, len, quotes[k]);
			assert_int_equal(got.len, want.len);
			assert_memory_equal(sbuf_cstr(&got), sbuf_cstr(&want),
			    got.len);
			if (quotes[k] == 0)
				assert_int_equal(textesc_needed(text, len), esc);
		}
		{
			struct arena *a = arena_new();
			const char *in = textesc_repr_in(a, text, len);
			sbuf_truncate(&want, 0);
			textesc_repr(&want, text, len);
			assert_int_equal(strlen(in), want.len);
			assert_memory_equal(in, sbuf_cstr(&want), want.len);
			arena_free(a);
		}
		sbuf_free(&got);
		sbuf_free(&want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
