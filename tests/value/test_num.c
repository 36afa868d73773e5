/*
 * test_num.c -- operators on values against CPython 3.11, table first.
 *
 * tests/data/num_cases.tsv (made once by tools/gen_values.py) holds every
 * binary operator and comparison over pairs of ints, floats, complexes,
 * bools and a few other types, subscripts and slices, the unary
 * operators, numeric hashes and reprs, each with CPython's repr of the result or its "Class: message".
 * This program decodes each operand, calls value_binop / value_compare /
 * value_unaryop / value_hash / value_repr and compares byte for byte.
 * A few hand cases check what a table cannot: the caps.
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
#include <time.h>

#include "base/arena.h"
#include "interp/builtins.h"
#include "value/num.h"
#include "base/sbuf.h"
#include "value/value.h"

#define X_NAME(e, name, sym) name,
static const char *const binop_names[] = { BINOPS(X_NAME) };
static const char *const unaryop_names[] = { UNARYOPS(X_NAME) };
static const char *const cmpop_names[] = { CMPOPS(X_NAME) };
#undef X_NAME

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
unhex(const char *h, size_t n, char *out)
{
	size_t k = 0, i;
	for (i = 0; i + 1 < n; i += 2) {
		unsigned x;
		char two[3] = { h[i], h[i + 1], 0 };
		x = (unsigned)strtoul(two, NULL, 16);
		out[k++] = (char)x;
	}
	return k;
}

/* Decode one operand of n bytes (see gen_values.py). */
static value
decode(struct rt *rt, const char *s, size_t n)
{
	char tmp[4096];
	if (n == 1 && s[0] == 'T')
		return value_bool(true);
	if (n == 1 && s[0] == 'F')
		return value_bool(false);
	if (n == 1 && s[0] == 'N')
		return value_none();
	if (n < 2 || s[1] != ':' || n - 2 >= sizeof tmp) {
		fail_msg("bad operand %.*s", (int)n, s);
		abort();
	}
	memcpy(tmp, s + 2, n - 2);
	tmp[n - 2] = '\0';
	switch (s[0]) {
	case 'i':
		return value_int_str(rt->arena, tmp, 10);
	case 'f':
		return value_float(strtod(tmp, NULL));
	case 'c': {
		char *comma = strchr(tmp, ',');
		*comma = '\0';
		return value_complex(rt->arena, strtod(tmp, NULL),
		    strtod(comma + 1, NULL));
	}
	case 's':
	case 'b': {
		char *buf = arena_alloc(rt->arena, n);
		size_t k = unhex(tmp, n - 2, buf);
		return s[0] == 's' ? value_str(rt->arena, buf, k) :
		    value_bytes(rt->arena, buf, k);
	}
	default: {
		/* l: t: S: d: items separated by '|' */
		value items[64];
		size_t count = 0, i;
		const char *p = s + 2, *end = s + n;
		while (p < end) {
			const char *bar = memchr(p, '|', (size_t)(end - p));
			const char *e = bar ? bar : end;
			items[count++] = decode(rt, p, (size_t)(e - p));
			p = bar ? bar + 1 : end;
		}
		if (s[0] == 'l') {
			value l = value_list(rt->arena, count);
			for (i = 0; i < count; i++)
				value_list_append(rt->arena, l, items[i]);
			return l;
		}
		if (s[0] == 't') {
			value t = value_tuple(rt->arena, count);
			for (i = 0; i < count; i++)
				t.as.tuple->items[i] = items[i];
			return t;
		}
		if (s[0] == 'x') {
			assert_int_equal(count, 3);
			return value_slice(rt->arena, items[0], items[1],
			    items[2]);
		}
		if (s[0] == 'S') {
			value set = value_set(rt->arena);
			for (i = 0; i < count; i++)
				assert_true(value_set_add(rt, set, items[i]));
			return set;
		}
		value d = value_dict(rt->arena);
		for (i = 0; i + 1 < count; i += 2)
			assert_true(value_dict_set(rt, d, items[i], items[i + 1]));
		return d;
	}
	}
}

static int
find(const char *const *names, size_t n, const char *name)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return (int)i;
	return -1;
}

static void
run_case(struct rt *rt, char **f, size_t nf, struct sbuf *out)
{
	const char *op = f[0];
	value a = decode(rt, f[1], strlen(f[1])), b, r;
	bool ok;
	int k;

	if (nf == 4) {
		b = decode(rt, f[2], strlen(f[2]));
		if (strcmp(op, "Subscript") == 0)
			ok = value_getitem(rt, a, b, &r);
		else if ((k = find(binop_names, BINOP__COUNT, op)) >= 0)
			ok = value_binop(rt, (enum binop)k, a, b, &r);
		else {
			k = find(cmpop_names, CMPOP__COUNT, op);
			assert_true(k >= 0);
			ok = value_compare(rt, (enum cmpop)k, a, b, &r);
		}
	} else if (strcmp(op, "hash") == 0) {
		uint64_t h;
		assert_true(value_hash(rt, a, &h));
		sbuf_addf(out, "%lld", (long long)(int64_t)h);
		return;
	} else if (strcmp(op, "repr") == 0) {
		r = a;
		ok = true;
	} else {
		k = find(unaryop_names, UNARYOP__COUNT, op);
		assert_true(k >= 0);
		ok = value_unaryop(rt, (enum unaryop)k, a, &r);
	}
	if (ok && value_repr(rt, r, out))
		return;
	sbuf_truncate(out, 0);
	assert_int_equal(rt->exc.kind, EXC_PYTHON);
	sbuf_addf(out, "%s: %s", pyexc_name(rt->exc.cls), rt->exc.msg);
}

static void
test_num_table(void **state)
{
	const char *srcdir = getenv("srcdir");
	char path[4096], line[8192];
	FILE *fp;
	int total = 0, passed = 0;
	(void)state;

	snprintf(path, sizeof path, "%s/tests/data/num_cases.tsv",
	    srcdir ? srcdir : ".");
	fp = fopen(path, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof line, fp) != NULL) {
		char *fields[4], *p = line, copy[8192];
		size_t nf = 0;
		struct rt rt = { 0 };
		struct sbuf out = SBUF_INIT;

		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(copy, sizeof copy, "%s", line);
		while (nf < 4) {
			fields[nf++] = p;
			p = strchr(p, '\t');
			if (p == NULL)
				break;
			*p++ = '\0';
		}
		assert_true(nf == 3 || nf == 4);
		unescape(fields[nf - 1]);
		rt.arena = arena_new();
		run_case(&rt, fields, nf, &out);
		total++;
		if (strcmp(sbuf_cstr(&out), fields[nf - 1]) == 0)
			passed++;
		else
			print_message("MISMATCH %s\n  got  %s\n", copy,
			    sbuf_cstr(&out));
		sbuf_free(&out);
		arena_free(rt.arena);
	}
	fclose(fp);
	print_message("operator table: %d of %d cases match CPython 3.11\n",
	    passed, total);
	assert_true(total > 10000);
	assert_int_equal(passed, total);
}

/* 9**9**9 and friends are refused by prediction, in microseconds. */
static void
test_caps_refuse_fast(void **state)
{
	static const struct {
		enum binop	 op;
		int64_t		 a, b;
	} cases[] = {
		{ BINOP_POW, 9, 387420489 },	/* 9 ** 9 ** 9 */
		{ BINOP_POW, 2, 100000000 },
		{ BINOP_LSHIFT, 1, 1000000000 },
		{ BINOP_POW, -3, INT64_MAX },
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct rt rt = { 0 };
		value r;
		clock_t t0 = clock();
		rt.arena = arena_new();
		rt.limits.max_int_bits = 100000;
		assert_false(value_binop(&rt, cases[i].op,
		    value_int(cases[i].a), value_int(cases[i].b), &r));
		assert_int_equal(rt.exc.kind, EXC_LIMIT);
		assert_true(clock() - t0 < CLOCKS_PER_SEC / 100);
		arena_free(rt.arena);
	}
	/* under the cap the same machinery computes */
	{
		struct rt rt = { 0 };
		struct sbuf out = SBUF_INIT;
		value r;
		rt.arena = arena_new();
		rt.limits.max_int_bits = 100000;
		assert_true(value_binop(&rt, BINOP_POW, value_int(2),
		    value_int(100), &r));
		assert_true(value_repr(&rt, r, &out));
		/* repr(2**100) from CPython */
		assert_string_equal(sbuf_cstr(&out),
		    "1267650600228229401496703205376");
		sbuf_free(&out);
		arena_free(rt.arena);
	}
}

/* 'a' * n and [0] * n predict their size against the caps. */
static void
test_caps_sequences(void **state)
{
	struct rt rt = { 0 };
	value r, l;
	(void)state;
	rt.arena = arena_new();
	rt.limits.max_str_bytes = 1000;
	rt.limits.max_seq_len = 1000;
	assert_false(value_binop(&rt, BINOP_MULT, value_cstr(rt.arena, "ab"),
	    value_int(501), &r));
	assert_int_equal(rt.exc.kind, EXC_LIMIT);
	rt_clear(&rt);
	assert_true(value_binop(&rt, BINOP_MULT, value_cstr(rt.arena, "ab"),
	    value_int(500), &r));
	assert_int_equal(r.as.s->len, 1000);
	l = value_list(rt.arena, 1);
	value_list_append(rt.arena, l, value_int(0));
	assert_false(value_binop(&rt, BINOP_MULT, value_int(1001), l, &r));
	assert_int_equal(rt.exc.kind, EXC_LIMIT);
	arena_free(rt.arena);
}

/*
 * round(x, n)'s fast path against its exact path (num_round_exact_only):
 * the same double, bit for bit, over values the fast path takes -- short
 * decimals, random floats, values at and next to a tie -- and values it
 * leaves alone (huge, tiny, negative n).
 */
static uint64_t rng = 0x2545f4914f6cdd1du;

static uint64_t
next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void
same_rounding(struct rt *rt, double x, int n)
{
	value fast, exact;
	bool ok_fast, ok_exact;

	num_round_exact_only = false;
	ok_fast = num_round(rt, value_float(x), value_int(n), &fast);
	rt_clear(rt);
	num_round_exact_only = true;
	ok_exact = num_round(rt, value_float(x), value_int(n), &exact);
	rt_clear(rt);
	num_round_exact_only = false;
	if (ok_fast != ok_exact || (ok_fast &&
	    (fast.type != VT_FLOAT || exact.type != VT_FLOAT ||
	    memcmp(&fast.as.f, &exact.as.f, sizeof fast.as.f) != 0)))
		fail_msg("round(%.17g, %d): %.17g, the exact path %.17g", x, n,
		    ok_fast ? fast.as.f : 0.0, ok_exact ? exact.as.f : 0.0);
}

static void
test_round_fast_as_exact(void **state)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
	    1e8, 1e9, 1e10 };
	struct rt rt = { 0 };
	int i, n, k, d;
	(void)state;

	rt.arena = arena_new();
	for (i = 0; i < 300000; i++) {
		uint64_t r = next_random();
		double m = (double)(r % 2000000000u) - 1e9, x, y;
		k = (int)((r >> 32) % 11);
		n = (int)((r >> 40) % 24) - 1;
		switch (i % 4) {
		case 0:		/* a short decimal */
			x = m / p10[k];
			break;
		case 1:		/* a tie at n digits, or next to one */
			x = (m + 0.5) / p10[n < 0 ? 0 : n > 10 ? 10 : n];
			for (d = (int)(r >> 60) % 4; d > 0; d--)
				x = nextafter(x, (r >> 59) & 1 ? 1e300 : -1e300);
			break;
		case 2:		/* any double in a range */
			memcpy(&y, &r, sizeof y);
			x = isfinite(y) ? fmod(y, 1e6) : 0.5;
			break;
		default:	/* any double at all */
			memcpy(&x, &r, sizeof x);
			if (!isfinite(x))
				x = -0.0;
			break;
		}
		same_rounding(&rt, x, n);
	}
	arena_free(rt.arena);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_num_table),
		cmocka_unit_test(test_caps_refuse_fast),
		cmocka_unit_test(test_caps_sequences),
		cmocka_unit_test(test_round_fast_as_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
