/*
 * test_diff.c -- the differential table: CPython 3.11's answers.
 *
 * tests/diff/cases.tsv holds one expression per line with what CPython 3.11
 * printed for it (repr of the value, or "ExceptionClass: message"), as
 * generated once by tools/gen_diff.py.  Each expression goes through
 * the sandbox path exactly as a user's input would, and the record must say
 * the same.  No Python is needed to run this.
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
#include "record/record.h"
#include "session/session.h"
#include "world/world.h"

/* Undo the table's escapes (\t \n \r \\) in place. */
static void
unescape(char *s)
{
	char *r = s, *w = s;
	while (*r) {
		if (*r == '\\' && r[1]) {
			r++;
			switch (*r) {
			case 't': *w++ = '\t'; break;
			case 'n': *w++ = '\n'; break;
			case 'r': *w++ = '\r'; break;
			case '\\': *w++ = '\\'; break;
			default: *w++ = '\\'; *w++ = *r; break;
			}
			r++;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

/* Run every case of a table on one path; returns the number that differ. */
static unsigned
run_table_on(const char *table, enum path_id path, int engine,
    unsigned *total_out)
{
	const char *srcdir = getenv("srcdir");
	char path_buf[4096];
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned total = 0, failed = 0;
	struct session_opts o = { .paths = PATH_BIT(path), .engine = engine };
	struct session *s;

	snprintf(path_buf, sizeof path_buf, "%s/%s", srcdir ? srcdir : ".",
	    table);
	f = fopen(path_buf, "r");
	assert_non_null(f);
	o.budget = 1000000;
	o.budget_set = true;
	s = session_new(&o);
	while ((n = getline(&line, &cap, f)) > 0) {
		char *tab, *expr, *want;
		const char *got;
		struct arena *a;
		struct record *r;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		tab = strchr(line, '\t');
		assert_non_null(tab);
		*tab = '\0';
		expr = line;
		want = tab + 1;
		unescape(expr);
		unescape(want);
		a = arena_new();
		session_run(s, expr, strlen(expr), NULL, 0, a, &r);
		got = r->verdict == VERDICT_OK ? r->result : r->reason;
		total++;
		/* (the engine asked for ran it, not a fallback) */
		assert_non_null(r->engine);
		assert_string_equal(r->engine, world_engine_name(engine));
		if (got == NULL || strcmp(got, want) != 0) {
			if (failed < 40)
				fprintf(stderr, "MISMATCH %s\n  want %s\n  got  "
				    "%s (%s/%s)\n", expr, want, got ? got : "-",
				    record_verdict_name(r->verdict),
				    record_layer_name(r->layer));
			failed++;
		}
		arena_free(a);
	}
	free(line);
	fclose(f);
	session_free(s);
	fprintf(stderr, "%s: %u cases, %u agree, %u differ\n", table,
	    total, total - failed, failed);
	*total_out = total;
	return failed;
}

static unsigned
run_table(const char *table, enum path_id path, unsigned *total_out)
{
	return run_table_on(table, path, WORLD_ENGINE_MODEL, total_out);
}

/* The essay's safe subset, on the sandbox path as a user would run it. */
static void
test_cases(void **state)
{
	unsigned total, failed = run_table("tests/diff/cases.tsv",
	    PATH_SANDBOX, &total);
	(void)state;
	assert_true(total >= 100);
	assert_int_equal(failed, 0);
}

/* format() and f-strings: the format-spec mini-language. */
static void
test_format(void **state)
{
	unsigned total, failed = run_table("tests/data/format_cases.tsv",
	    PATH_UNSAFE, &total);
	(void)state;
	assert_true(total >= 100);
	assert_int_equal(failed, 0);
}

/* Everyday builtins and idioms (join over map, isinstance with a tuple,
 * complex, frozenset, slice) on the unsafe path's full model. */
static void
test_idioms(void **state)
{
	unsigned total, failed = run_table("tests/data/idiom_cases.tsv",
	    PATH_UNSAFE, &total);
	(void)state;
	assert_true(total >= 90);
	assert_int_equal(failed, 0);
}

/*
 * The same tables on the unsafe path's real runtime: CPython in a replica
 * world, one world for the whole table (names persist, as at a prompt).
 * The tables are CPython's own answers, so every case must agree.  Where
 * a world cannot be built (no user namespaces) the unsafe path is the
 * model, which the tests above cover; on Linux that is a failure here.
 */
static void
test_cpython(void **state)
{
	static const char *const tables[] = {
		"tests/diff/cases.tsv", "tests/data/idiom_cases.tsv",
		"tests/data/format_cases.tsv",
	};
	const char *why = NULL;
	unsigned total, failed;
	size_t i;

	(void)state;
	if (world_best_engine(&why) != WORLD_ENGINE_CPYTHON) {
#ifdef __linux__
		fail_msg("no CPython world can be built here: %s", why);
#else
		skip();
#endif
	}
	for (i = 0; i < sizeof tables / sizeof tables[0]; i++) {
		failed = run_table_on(tables[i], PATH_UNSAFE,
		    WORLD_ENGINE_CPYTHON, &total);
		assert_true(total >= 100);
		assert_int_equal(failed, 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_idioms),
		cmocka_unit_test(test_cpython),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
