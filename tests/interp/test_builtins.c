/*
 * test_builtins.c -- the builtins, and the whole differential table.
 *
 * tests/diff/cases.rpn holds every case of the differential table as a
 * postfix program over our value functions (value_binop, value_unaryop,
 * builtin_find(...)->fn, value_repr) with CPython 3.11's answer; this
 * program runs each one and compares the repr or "Class: message" byte for
 * byte.  tools/gen_diff.py made the table; no Python is needed here.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "interp/builtins.h"
#include "base/sbuf.h"
#include "value/value.h"

#define X_NAME(e, name, sym) name,
static const char *const binop_names[] = { BINOPS(X_NAME) };
static const char *const unaryop_names[] = { UNARYOPS(X_NAME) };
#undef X_NAME

/* Undo the TSV escapes (\\ \t \n \r) in place. */
static void
unescape(char *s)
{
	char *w = s;
	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			*w++ = *s == 't' ? '\t' : *s == 'n' ? '\n' :
			    *s == 'r' ? '\r' : *s;
		} else
			*w++ = *s;
	}
	*w = '\0';
}

static size_t
unhex(const char *h, char *out)
{
	size_t n = 0;
	while (h[0] && h[1]) {
		unsigned x;
		sscanf(h, "%2x", &x);
		out[n++] = (char)x;
		h += 2;
	}
	return n;
}

#define STACK 64

/* Run one postfix program; false with rt->exc set on a Python error. */
static bool
run_rpn(struct rt *rt, char *prog, value *result)
{
	value st[STACK];
	size_t sp = 0, i;
	char *tok, *save = NULL;

	for (tok = strtok_r(prog, " ", &save); tok != NULL;
	    tok = strtok_r(NULL, " ", &save)) {
		if (strncmp(tok, "i:", 2) == 0)
			st[sp++] = value_int_str(rt->arena, tok + 2, 10);
		else if (strncmp(tok, "f:", 2) == 0)
			st[sp++] = value_float(strtod(tok + 2, NULL));
		else if (strncmp(tok, "s:", 2) == 0 || strncmp(tok, "b:", 2) == 0) {
			char *buf = arena_alloc(rt->arena, strlen(tok));
			size_t n = unhex(tok + 2, buf);
			st[sp++] = tok[0] == 's' ? value_str(rt->arena, buf, n) :
			    value_bytes(rt->arena, buf, n);
		} else if (strcmp(tok, "T") == 0 || strcmp(tok, "F") == 0)
			st[sp++] = value_bool(tok[0] == 'T');
		else if (strcmp(tok, "N") == 0)
			st[sp++] = value_none();
		else if (strcmp(tok, "n:orders") == 0) {
			value l = value_list(rt->arena, 3);
			value_list_append(rt->arena, l, value_float(250.0));
			value_list_append(rt->arena, l, value_float(180.0));
			value_list_append(rt->arena, l, value_float(90.0));
			st[sp++] = l;
		} else if (strncmp(tok, "bin:", 4) == 0) {
			for (i = 0; i < BINOP__COUNT; i++)
				if (strcmp(tok + 4, binop_names[i]) == 0)
					break;
			assert_true(i < BINOP__COUNT && sp >= 2);
			if (!value_binop(rt, (enum binop)i, st[sp - 2], st[sp - 1],
			    &st[sp - 2]))
				return false;
			sp--;
		} else if (strncmp(tok, "un:", 3) == 0) {
			for (i = 0; i < UNARYOP__COUNT; i++)
				if (strcmp(tok + 3, unaryop_names[i]) == 0)
					break;
			assert_true(i < UNARYOP__COUNT && sp >= 1);
			if (!value_unaryop(rt, (enum unaryop)i, st[sp - 1],
			    &st[sp - 1]))
				return false;
		} else if (strncmp(tok, "list:", 5) == 0 ||
		    strncmp(tok, "tuple:", 6) == 0) {
			size_t n = strtoul(strchr(tok, ':') + 1, NULL, 10);
			value v;
			assert_true(sp >= n);
			if (tok[0] == 'l') {
				v = value_list(rt->arena, n);
				for (i = 0; i < n; i++)
					value_list_append(rt->arena, v,
					    st[sp - n + i]);
			} else {
				v = value_tuple(rt->arena, n);
				for (i = 0; i < n; i++)
					v.as.tuple->items[i] = st[sp - n + i];
			}
			sp -= n;
			st[sp++] = v;
		} else if (strncmp(tok, "call:", 5) == 0) {
			char *name = tok + 5, *p = strchr(name, ':');
			const char *kw[8];
			size_t npos, nkw = 0;
			*p++ = '\0';
			npos = strtoul(p, &p, 10);
			p++;
			while (*p) {
				char *c = strchr(p, ',');
				kw[nkw++] = p;
				if (c == NULL)
					break;
				*c = '\0';
				p = c + 1;
			}
			const struct builtin *b = builtin_find(name);
			assert_non_null(b);
			assert_true(sp >= npos + nkw);
			sp -= npos + nkw;
			value r;
			if (!b->fn(rt, value_none(), &st[sp], npos, kw, nkw, &r))
				return false;
			st[sp++] = r;
		} else
			fail_msg("bad token %s", tok);
		assert_true(sp < STACK);
	}
	assert_int_equal(sp, 1);
	*result = st[0];
	return true;
}

static void
outcome(struct rt *rt, bool ok, value v, struct sbuf *out)
{
	if (ok && value_repr(rt, v, out))
		return;
	sbuf_truncate(out, 0);
	assert_int_equal(rt->exc.kind, EXC_PYTHON);
	sbuf_addf(out, "%s: %s", pyexc_name(rt->exc.cls), rt->exc.msg);
}

/* Run every case of one postfix table; all must match CPython. */
static void
run_table(const char *relpath, int min_cases, const char *what)
{
	const char *srcdir = getenv("srcdir");
	char path[4096];
	static char line[65536], prog[65536];
	FILE *f;
	int total = 0, passed = 0;

	snprintf(path, sizeof path, "%s/%s", srcdir ? srcdir : ".", relpath);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f) != NULL) {
		char *tab, *nl;
		struct rt rt = { 0 };
		struct sbuf out = SBUF_INIT;
		value v;
		bool ok;

		if (line[0] == '#')
			continue;
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		tab = strchr(line, '\t');
		assert_non_null(tab);
		*tab++ = '\0';
		unescape(tab);
		snprintf(prog, sizeof prog, "%s", line);
		rt.arena = arena_new();
		ok = run_rpn(&rt, line, &v);
		outcome(&rt, ok, v, &out);
		total++;
		if (strcmp(sbuf_cstr(&out), tab) == 0)
			passed++;
		else
			print_message("MISMATCH %s\n  want %s\n  got  %s\n", prog,
			    tab, sbuf_cstr(&out));
		sbuf_free(&out);
		arena_free(rt.arena);
	}
	fclose(f);
	print_message("%s: %d of %d cases match CPython 3.11\n", what, passed,
	    total);
	assert_true(total >= min_cases);
	assert_int_equal(passed, total);
}

/* The differential table of the essay's safe subset. */
static void
test_diff_table(void **state)
{
	(void)state;
	run_table("tests/diff/cases.rpn", 800, "differential table");
}

/* The builtins beyond the essay's six. */
static void
test_more_builtins(void **state)
{
	(void)state;
	run_table("tests/data/builtin_cases.rpn", 150, "more builtins");
}

/*
 * sum() adds a float to a float in its own loop (builtins.c's sum_step):
 * over random lists of floats -- with infinities, NaNs, signed zeros,
 * huge and tiny values, and ints among them -- it must give what adding
 * the items in turn with value_binop() gives, bit for bit.
 */
static uint64_t rng = 0x9e3779b97f4a7c15u;

static double
some_float(void)
{
	static const double odd[] = { 0.0, -0.0, 1e308, -1e308, 5e-324,
	    0.1, 0.2, 0.3, 1e16, -1e16 };
	uint64_t r;
	double d;

	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	r = rng;
	switch (r % 8) {
	case 0:
		return odd[(r >> 8) % (sizeof odd / sizeof odd[0])];
	case 1:
		return (r >> 8) % 2 ? INFINITY : -INFINITY;
	case 2:
		return (r >> 8) % 50 == 0 ? NAN : (double)(int64_t)(r >> 40);
	default:
		memcpy(&d, &r, sizeof d);
		return isnan(d) ? 1.5 : d;
	}
}

static void
test_sum_floats_as_binop(void **state)
{
	const struct builtin *sum = builtin_find("sum");
	int round_;
	(void)state;
	for (round_ = 0; round_ < 2000; round_++) {
		struct rt rt = { 0 };
		size_t n = (size_t)(rng % 12), i;
		value list, got, want = value_int(0);

		rt.arena = arena_new();
		list = value_list(rt.arena, n);
		for (i = 0; i < n; i++) {
			value item = rng % 7 == 0 ?
			    value_int((int64_t)(rng % 1000) - 500) :
			    value_float(some_float());
			value_list_append(rt.arena, list, item);
			assert_true(value_binop(&rt, BINOP_ADD, want, item,
			    &want));
		}
		assert_true(sum->fn(&rt, value_none(), &list, 1, NULL, 0,
		    &got));
		assert_int_equal(got.type, want.type);
		if (want.type == VT_FLOAT && !(isnan(want.as.f) &&
		    isnan(got.as.f)))
			assert_memory_equal(&got.as.f, &want.as.f,
			    sizeof want.as.f);
		else if (want.type == VT_INT)
			assert_int_equal(got.as.i, want.as.i);
		arena_free(rt.arena);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_table),
		cmocka_unit_test(test_more_builtins),
		cmocka_unit_test(test_sum_floats_as_binop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
