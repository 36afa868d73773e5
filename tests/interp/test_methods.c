/*
 * test_methods.c -- the built-in types' methods against CPython 3.11.
 *
 * tests/data/methods.tsv holds one input per line with what CPython 3.11
 * gave for it (repr of the value, "Class: message", or "-" for statements
 * with no value), generated once by tools/gen_methods.py.  Every input runs
 * on the unsafe path of one session, in order, each in an arena of its own
 * that is freed before the next input: names assigned by one line (and
 * mutated by later lines' methods) must survive that.  No Python is needed
 * to run this.  The cap tests check that sizes the user controls are
 * refused before anything is allocated.
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

/* Undo the table's escapes (\t \n \\) in place. */
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

static struct session *
unsafe_session(void)
{
	struct session_opts o = { .paths = PATH_BIT(PATH_UNSAFE) };
	return session_new(&o);
}

/* Run one input; the record's outcome is copied to the heap. */
static char *
run(struct session *s, const char *expr, enum verdict *v)
{
	struct arena *a = arena_new();
	struct record *r;
	const char *got;
	char *copy;
	session_run(s, expr, strlen(expr), NULL, 0, a, &r);
	got = r->verdict == VERDICT_OK ? (r->result ? r->result : "-") :
	    r->reason;
	copy = strdup(got ? got : "(null)");
	if (v != NULL)
		*v = r->verdict;
	arena_free(a);
	return copy;
}

static void
test_cases(void **state)
{
	const char *srcdir = getenv("srcdir");
	char path[4096];
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned total = 0, failed = 0;
	struct session *s;

	(void)state;
	snprintf(path, sizeof path, "%s/tests/data/methods.tsv",
	    srcdir ? srcdir : ".");
	f = fopen(path, "r");
	assert_non_null(f);
	s = unsafe_session();
	while ((n = getline(&line, &cap, f)) > 0) {
		char *tab, *expr, *want, *got;
		enum verdict v;
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
		got = run(s, expr, &v);
		total++;
		if (strcmp(got, want) != 0) {
			if (failed < 60)
				fprintf(stderr, "MISMATCH %s\n  want %s\n  got  "
				    "%s (%s)\n", expr, want, got,
				    record_verdict_name(v));
			failed++;
		}
		free(got);
	}
	free(line);
	fclose(f);
	session_free(s);
	fprintf(stderr, "methods: %u cases, %u agree, %u differ\n", total,
	    total - failed, failed);
	assert_true(total >= 400);
	assert_int_equal(failed, 0);
}

/* Sizes the user controls are refused by the caps, never attempted: a
 * cap on one object (a simulated bomb, on the unsafe path) or the cap on
 * what one input may hold. */
static void
test_caps(void **state)
{
	static const char *const bombs[] = {
		"'x'.zfill(10**12)",
		"'a'.center(10**10)",
		"'ab'.ljust(10**18)",
		"'ab'.rjust(10**15, '*')",
		"'\\t'.expandtabs(2**31 - 1) * 1",
		"('\\t' * 100).expandtabs(10**9)",
		"'a'.replace('', 'x' * 10**6) .replace('x', 'y' * 10**3)",
		"(5).to_bytes(10**12, 'big')",
		"'{:{}}'.format(1, 10**12)",
		"'{:>999999999}'.format(1)",
		"'{:{}}'.format('s', 10**9)",
		"'{:{}}'.format(1.5, 1000000009)",
		"'{:\u20ac^200000000}'.format('x')",
		"'{:.900000000f}'.format(1.5)",
		"x = ['ab' * 10**6] * 100; ''.join(x)",
	};
	struct session *s = unsafe_session();
	size_t i;
	(void)state;
	for (i = 0; i < sizeof bombs / sizeof bombs[0]; i++) {
		enum verdict v;
		char *got = run(s, bombs[i], &v);
		bool capped = v == VERDICT_LANDED ||
		    strncmp(got, "ValueError", 10) == 0 ||
		    (v == VERDICT_BLOCKED && strncmp(got, "this input would "
		    "hold more than", 31) == 0);
		if (!capped)
			fprintf(stderr, "NOT CAPPED %s: %s (%s)\n", bombs[i], got,
			    record_verdict_name(v));
		assert_true(capped);
		free(got);
	}
	session_free(s);
}

/* A list kept in the namespace and grown over many inputs stays valid. */
static void
test_mutation_persists(void **state)
{
	struct session *s = unsafe_session();
	char *got;
	int i;
	(void)state;
	free(run(s, "acc = []", NULL));
	for (i = 0; i < 50; i++) {
		char in[64];
		snprintf(in, sizeof in, "acc.append([%d, 'x' * %d])", i, i % 3);
		free(run(s, in, NULL));
	}
	free(run(s, "acc.sort(key=lambda p: -p[0]); acc.pop()", NULL));
	got = run(s, "acc[0]", NULL);
	assert_string_equal(got, "[49, 'x']");
	free(got);
	got = run(s, "len(acc)", NULL);
	assert_string_equal(got, "49");
	free(got);
	/* a bound method kept in a name keeps its receiver alive too */
	free(run(s, "ap = [1].append", NULL));
	for (i = 0; i < 20; i++)
		free(run(s, "ap('x' * 100)", NULL));
	got = run(s, "ap(2)", NULL);
	assert_string_equal(got, "None");
	free(got);
	free(run(s, "cfg = {}", NULL));
	free(run(s, "cfg.setdefault('hosts', []).append('a')", NULL));
	free(run(s, "cfg.update(port=80); cfg['hosts'].extend(['b', 'c'])",
	    NULL));
	got = run(s, "cfg", NULL);
	assert_string_equal(got, "{'hosts': ['a', 'b', 'c'], 'port': 80}");
	free(got);
	session_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_mutation_persists),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
