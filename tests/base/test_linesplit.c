/*
 * test_linesplit.c -- the stdio servers' line reader (--serve, --mcp):
 * lines come out whole whatever chunks the bytes arrive in, capped at
 * max bytes kept (an over-long line flagged and skipped to its end), a
 * line of exactly max bytes intact, empty lines, NUL and CR kept as they
 * came, a last line without its newline handed over at the end, and a
 * callback's non-zero return stopping the feed.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/linesplit.h"
#include "base/sbuf.h"

#define MAXGOT	16

/* What the callback saw. */
struct got {
	struct sbuf	 line[MAXGOT];
	bool		 too_long[MAXGOT];
	size_t		 n;
	size_t		 stop_at;	/* return 1 for this line (1-based) */
};

static int
collect(void *arg, const char *line, size_t len, bool too_long)
{
	struct got *g = arg;

	assert_non_null(line);
	assert_int_equal(line[len], '\0');
	assert_true(g->n < MAXGOT);
	sbuf_add(&g->line[g->n], line, len);
	g->too_long[g->n] = too_long;
	g->n++;
	return g->n == g->stop_at ? 1 : 0;
}

static void
got_free(struct got *g)
{
	size_t i;

	for (i = 0; i < MAXGOT; i++)
		sbuf_free(&g->line[i]);
	memset(g, 0, sizeof *g);
}

/* in[0, len) split with cap max, fed in chunks of chunk bytes (0: all
 * at once), then ended. */
static void
split(const char *in, size_t len, size_t max, size_t chunk, struct got *g)
{
	struct linesplit ls;
	size_t off = 0;

	memset(g, 0, sizeof *g);
	linesplit_init(&ls, max);
	while (off < len) {
		size_t k = chunk == 0 || len - off < chunk ? len - off : chunk;
		assert_int_equal(linesplit_feed(&ls, in + off, k, collect, g),
		    0);
		off += k;
	}
	assert_int_equal(linesplit_end(&ls, collect, g), 0);
	linesplit_free(&ls);
}

static void
assert_line(const struct got *g, size_t i, const char *want, size_t len,
    bool too_long)
{
	assert_true(i < g->n);
	assert_int_equal(g->line[i].len, len);
	if (len > 0)
		assert_memory_equal(g->line[i].data, want, len);
	assert_int_equal(g->too_long[i], too_long);
}

/* Every chunk size gives the same lines as the whole input at once. */
static void
test_chunks(void **state)
{
	static const char in[] = "one\n\ntwo three\nfour";
	size_t chunk;
	(void)state;

	for (chunk = 0; chunk <= sizeof in; chunk++) {
		struct got g;
		split(in, sizeof in - 1, 64, chunk, &g);
		assert_int_equal(g.n, 4);
		assert_line(&g, 0, "one", 3, false);
		assert_line(&g, 1, "", 0, false);	/* an empty line */
		assert_line(&g, 2, "two three", 9, false);
		assert_line(&g, 3, "four", 4, false);	/* no newline */
		got_free(&g);
	}
}

/* The cap: max bytes intact; one more and the line is cut to max, flagged,
 * read to its end, and the next line is whole again -- in any chunks. */
static void
test_cap(void **state)
{
	static const char in[] = "abcdefgh\nabcdefghi\nabcdefghijklmnopqrstu\n"
	    "ok\n";
	size_t chunk;
	(void)state;

	for (chunk = 0; chunk <= sizeof in; chunk++) {
		struct got g;
		split(in, sizeof in - 1, 8, chunk, &g);
		assert_int_equal(g.n, 4);
		assert_line(&g, 0, "abcdefgh", 8, false);	/* exactly */
		assert_line(&g, 1, "abcdefgh", 8, true);	/* one over */
		assert_line(&g, 2, "abcdefgh", 8, true);
		assert_line(&g, 3, "ok", 2, false);
		got_free(&g);
	}
}

/* The end of input: a last line without its newline comes out at
 * linesplit_end(), over-long or not; after a newline, or with no input
 * at all, nothing does. */
static void
test_end(void **state)
{
	struct got g;
	(void)state;

	split("", 0, 8, 0, &g);
	assert_int_equal(g.n, 0);
	got_free(&g);

	split("a\n", 2, 8, 0, &g);
	assert_int_equal(g.n, 1);
	assert_line(&g, 0, "a", 1, false);
	got_free(&g);

	split("a\nlonger than eight", 19, 8, 3, &g);
	assert_int_equal(g.n, 2);
	assert_line(&g, 1, "longer t", 8, true);
	got_free(&g);

	split("\n", 1, 8, 0, &g);	/* one empty line, then nothing */
	assert_int_equal(g.n, 1);
	assert_line(&g, 0, "", 0, false);
	got_free(&g);
}

/* Bytes are the line's as they came: NUL inside, CR before the newline
 * (CRLF is not stripped; the servers treat a CR as blank space). */
static void
test_bytes(void **state)
{
	static const char in[] = "a\0b\r\n\r\n\0\n";
	struct got g;
	(void)state;

	split(in, sizeof in - 1, 8, 1, &g);
	assert_int_equal(g.n, 3);
	assert_line(&g, 0, "a\0b\r", 4, false);
	assert_line(&g, 1, "\r", 1, false);
	assert_line(&g, 2, "\0", 1, false);
	got_free(&g);
}

/* A callback's non-zero return stops the feed at once: the rest of the
 * chunk is not taken. */
static void
test_stop(void **state)
{
	struct linesplit ls;
	struct got g;
	(void)state;

	memset(&g, 0, sizeof g);
	g.stop_at = 2;
	linesplit_init(&ls, 8);
	assert_int_equal(linesplit_feed(&ls, "a\nb\nc\n", 6, collect, &g), 1);
	assert_int_equal(g.n, 2);
	assert_line(&g, 1, "b", 1, false);
	g.stop_at = 0;
	assert_int_equal(linesplit_end(&ls, collect, &g), 0);
	assert_int_equal(g.n, 2);
	linesplit_free(&ls);
	got_free(&g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_end),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_stop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
