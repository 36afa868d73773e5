/*
 * test_value.c -- containers, repr of structures, iteration, copying.
 *
 * tests/data/value_cases.tsv (made once by tools/gen_values.py) names
 * structures and holds CPython 3.11's repr (or error) of each; the builders
 * below make the same structure by hand, name for name.  The other tests
 * check properties that need no oracle: a copy equals its original, keeps
 * shared parts shared and cycles cyclic, and lives in its own arena.
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
#include "interp/builtins.h"
#include "base/pyexc.h"
#include "value/rt.h"
#include "base/sbuf.h"
#include "value/value.h"

static value
S(struct rt *rt, const char *s)
{
	return value_cstr(rt->arena, s);
}

static value
tuple2(struct rt *rt, value a, value b)
{
	value t = value_tuple(rt->arena, 2);
	t.as.tuple->items[0] = a;
	t.as.tuple->items[1] = b;
	return t;
}

static value
list_of(struct rt *rt, size_t n, const value *items)
{
	value l = value_list(rt->arena, n);
	size_t i;
	for (i = 0; i < n; i++)
		value_list_append(rt->arena, l, items[i]);
	return l;
}

static bool
append_item(struct rt *rt, value item, void *ctx)
{
	value_list_append(rt->arena, *(value *)ctx, item);
	return true;
}

/* Sets whose order CPython's hash table decides (set_* snippets). */
static bool
build_set(struct rt *rt, const char *name, value *r)
{
	value s = value_set(rt->arena), items[16];
	size_t n = 0, i;
	if (strcmp(name, "set_order") == 0) {
		items[n++] = value_int(3);
		items[n++] = value_int(1);
		items[n++] = value_int(2);
	} else if (strcmp(name, "set_collide") == 0) {
		static const int64_t ints[] = { 8, 16, 0, 24, -1, -2 };
		for (i = 0; i < 6; i++)
			items[n++] = value_int(ints[i]);
		items[n++] = value_float(0.5);
		items[n++] = value_int((int64_t)1 << 61);
		items[n++] = value_int(((int64_t)1 << 61) - 1);
	} else if (strcmp(name, "set_grow") == 0) {
		for (int64_t k = 40; k > 0; k -= 3)
			items[n++] = value_int(k);
	} else if (strcmp(name, "set_tuples") == 0) {
		items[n++] = tuple2(rt, value_int(1), value_int(2));
		items[n++] = tuple2(rt, value_int(3), value_int(4));
		items[n] = value_tuple(rt->arena, 1);
		items[n++].as.tuple->items[0] = value_int(0);
		items[n++] = value_tuple(rt->arena, 0);
	} else if (strcmp(name, "set_iter") == 0) {
		static const int64_t ints[] = { 5, 3, 9, 1 };
		for (i = 0; i < 4; i++)
			items[n++] = value_int(ints[i]);
		items[n++] = value_float(1e100);
		items[n++] = value_float(7.5);
	} else
		fail_msg("no builder for %s", name);
	for (i = 0; i < n; i++)
		if (!value_set_add(rt, s, items[i]))
			return false;
	*r = s;
	if (strcmp(name, "set_iter") == 0) {
		value l = value_list(rt->arena, 0);
		if (!value_iterate(rt, s, append_item, &l))
			return false;
		*r = l;
	}
	return true;
}

/* Each builder makes the structure of the snippet of the same name in
 * tools/gen_values.py; false when building raised (as Python would). */
static bool
build(struct rt *rt, const char *name, value *r)
{
	if (strcmp(name, "self_list") == 0) {
		value l = value_list(rt->arena, 0);
		value_list_append(rt->arena, l, l);
		*r = l;
	} else if (strcmp(name, "self_list2") == 0) {
		value l = value_list(rt->arena, 0);
		value_list_append(rt->arena, l, value_int(1));
		value inner[2] = { l, value_int(2) };
		value_list_append(rt->arena, l, list_of(rt, 2, inner));
		*r = l;
	} else if (strcmp(name, "self_dict") == 0) {
		value d = value_dict(rt->arena);
		if (!value_dict_set(rt, d, S(rt, "a"), d))
			return false;
		*r = d;
	} else if (strcmp(name, "list_in_tuple") == 0) {
		value one = value_int(1);
		value l = list_of(rt, 1, &one);
		value t = tuple2(rt, l, l);
		value_list_append(rt->arena, l, t);
		*r = t;
	} else if (strcmp(name, "dict_order") == 0) {
		value d = value_dict(rt->arena);
		*r = d;
		return value_dict_set(rt, d, S(rt, "b"), value_int(1)) &&
		    value_dict_set(rt, d, S(rt, "a"), value_int(2)) &&
		    value_dict_set(rt, d, value_int(1), value_int(3)) &&
		    value_dict_set(rt, d, value_float(1.0), value_int(4)) &&
		    value_dict_set(rt, d, value_bool(true), value_int(5)) &&
		    value_dict_set(rt, d, tuple2(rt, value_int(1),
		    value_int(2)), value_int(6));
	} else if (strcmp(name, "set_small") == 0) {
		value s = value_set(rt->arena);
		*r = s;
		return value_set_add(rt, s, value_int(1)) &&
		    value_set_add(rt, s, value_int(2)) &&
		    value_set_add(rt, s, value_int(3));
	} else if (strcmp(name, "set_empty") == 0) {
		*r = value_set(rt->arena);
	} else if (strcmp(name, "set_mixed") == 0) {
		value s = value_set(rt->arena);
		*r = s;
		return value_set_add(rt, s, value_int(1)) &&
		    value_set_add(rt, s, value_float(1.0)) &&
		    value_set_add(rt, s, value_bool(true));
	} else if (strcmp(name, "dict_empty") == 0) {
		*r = value_dict(rt->arena);
	} else if (strcmp(name, "nested") == 0) {
		value one = value_int(1), items[5], inner[2];
		value t1 = value_tuple(rt->arena, 1), empty = value_tuple(rt->arena, 0);
		value d = value_dict(rt->arena);
		t1.as.tuple->items[0] = one;
		inner[0] = value_none();
		inner[1] = value_ellipsis();
		if (!value_dict_set(rt, d, S(rt, "k"), list_of(rt, 2, inner)))
			return false;
		items[0] = t1;
		items[1] = list_of(rt, 1, &empty);
		items[2] = d;
		items[3] = value_bytes(rt->arena, "x", 1);
		items[4] = value_float(1.0);
		*r = list_of(rt, 5, items);
	} else if (strcmp(name, "dict_unhashable") == 0) {
		value two = value_int(2);
		value d = value_dict(rt->arena);
		*r = d;
		return value_dict_set(rt, d, list_of(rt, 1, &two), two);
	} else if (strcmp(name, "set_unhashable") == 0) {
		value s = value_set(rt->arena);
		*r = s;
		return value_set_add(rt, s, value_dict(rt->arena));
	} else if (strcmp(name, "tuple_unhashable") == 0) {
		value two = value_int(2);
		value d = value_dict(rt->arena);
		*r = d;
		return value_dict_set(rt, d, tuple2(rt, value_int(1),
		    list_of(rt, 1, &two)), value_int(3));
	} else if (strncmp(name, "set_", 4) == 0) {
		return build_set(rt, name, r);
	} else
		fail_msg("no builder for %s", name);
	return true;
}

static void
test_structures(void **state)
{
	const char *srcdir = getenv("srcdir");
	char path[4096], line[4096];
	FILE *fp;
	int n = 0;
	(void)state;

	snprintf(path, sizeof path, "%s/tests/data/value_cases.tsv",
	    srcdir ? srcdir : ".");
	fp = fopen(path, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof line, fp) != NULL) {
		struct rt rt = { 0 };
		struct sbuf out = SBUF_INIT;
		char *tab;
		value v;

		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		tab = strchr(line, '\t');
		assert_non_null(tab);
		*tab++ = '\0';
		rt.arena = arena_new();
		if (!build(&rt, line, &v) || !value_repr(&rt, v, &out)) {
			sbuf_truncate(&out, 0);
			sbuf_addf(&out, "%s: %s", pyexc_name(rt.exc.cls), rt.exc.msg);
		}
		if (strcmp(sbuf_cstr(&out), tab) != 0)
			fail_msg("%s: want %s, got %s", line, tab,
			    sbuf_cstr(&out));
		sbuf_free(&out);
		arena_free(rt.arena);
		n++;
	}
	fclose(fp);
	assert_int_equal(n, 18);
}

/* A dict keeps one entry per equal key, finds keys of equal value across
 * types, and survives many inserts (index rebuilt, order kept). */
static void
test_dict_many(void **state)
{
	struct rt rt = { 0 };
	value d, got;
	bool found;
	int64_t i;
	(void)state;
	rt.arena = arena_new();
	d = value_dict(rt.arena);
	for (i = 0; i < 5000; i++)
		assert_true(value_dict_set(&rt, d, value_int(i * 7),
		    value_int(i)));
	for (i = 0; i < 5000; i += 3)
		assert_true(value_dict_set(&rt, d, value_float((double)(i * 7)),
		    value_int(-i)));
	assert_int_equal(d.as.dict->len, 5000);
	for (i = 0; i < 5000; i++) {
		assert_true(value_dict_get(&rt, d, value_int(i * 7), &got,
		    &found));
		assert_true(found);
		assert_int_equal(got.as.i, i % 3 == 0 ? -i : i);
		/* insertion order: the first key object stays */
		assert_int_equal(d.as.dict->entries[i].key.type, VT_INT);
		assert_int_equal(d.as.dict->entries[i].key.as.i, i * 7);
	}
	assert_true(value_dict_get(&rt, d, value_int(1), &got, &found));
	assert_false(found);
	assert_true(value_dict_get(&rt, d, S(&rt, "x"), &got, &found));
	assert_false(found);
	arena_free(rt.arena);
}

struct collect {
	struct sbuf	*out;
};

static bool
collect(struct rt *rt, value item, void *ctx)
{
	struct collect *c = ctx;
	if (!value_repr(rt, item, c->out))
		return false;
	sbuf_addc(c->out, ',');
	return true;
}

/* Iteration yields str code points, bytes as ints, dict keys in order;
 * list(x) in CPython 3.11 gives the same items. */
static void
test_iterate(void **state)
{
	static const struct {
		const char	*text;
		bool		 is_bytes;
		const char	*want;	/* from list('é中🎉a') etc. in python3 */
	} cases[] = {
		{ "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x8e\x89" "a", false,
		    "'é','中','🎉','a'," },
		{ "\x00\xff" "a", true, "0,255,97," },
		{ "", false, "" },
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct rt rt = { 0 };
		struct sbuf out = SBUF_INIT;
		struct collect c = { &out };
		size_t n = cases[i].is_bytes ? 3 : strlen(cases[i].text);
		value v;
		rt.arena = arena_new();
		v = cases[i].is_bytes ? value_bytes(rt.arena, cases[i].text, n) :
		    value_str(rt.arena, cases[i].text, n);
		assert_true(value_iterate(&rt, v, collect, &c));
		assert_string_equal(sbuf_cstr(&out), cases[i].want);
		sbuf_free(&out);
		arena_free(rt.arena);
	}
	{
		struct rt rt = { 0 };
		value r;
		rt.arena = arena_new();
		assert_false(value_iterate(&rt, value_int(1), collect, NULL));
		/* iter(1) in python3 */
		assert_string_equal(rt.exc.msg, "'int' object is not iterable");
		(void)r;
		arena_free(rt.arena);
	}
}

/* value_copy: equal, shared parts stay shared, cycles stay cycles, and
 * the copy outlives the source arena. */
static void
test_copy(void **state)
{
	struct rt rt = { 0 }, rt2 = { 0 };
	struct sbuf a = SBUF_INIT, b = SBUF_INIT;
	value l, shared, d, copy, big;
	bool eq;
	(void)state;
	rt.arena = arena_new();
	rt2.arena = arena_new();
	big = value_int_str(rt.arena, "123456789012345678901234567890", 10);
	shared = value_list(rt.arena, 0);
	value_list_append(rt.arena, shared, big);
	l = value_list(rt.arena, 0);
	value_list_append(rt.arena, l, shared);
	value_list_append(rt.arena, l, shared);
	value_list_append(rt.arena, l, l);
	d = value_dict(rt.arena);
	assert_true(value_dict_set(&rt, d, S(&rt, "k"), l));
	assert_true(value_dict_set(&rt, d, value_float(0.5), S(&rt, "é")));
	value_list_append(rt.arena, l, d);
	assert_true(value_repr(&rt, d, &a));

	copy = value_copy(rt2.arena, d);
	arena_free(rt.arena);		/* the copy must not need it */
	assert_true(value_repr(&rt2, copy, &b));
	assert_string_equal(a.data, b.data);
	{
		value cl, got;
		bool found;
		assert_true(value_dict_get(&rt2, copy, S(&rt2, "k"), &cl,
		    &found));
		assert_true(found);
		assert_ptr_equal(cl.as.list->items[0].as.list,
		    cl.as.list->items[1].as.list);
		assert_ptr_equal(cl.as.list->items[2].as.list, cl.as.list);
		assert_ptr_equal(cl.as.list->items[3].as.dict, copy.as.dict);
		assert_true(value_dict_get(&rt2, copy, value_int(0), &got,
		    &found));
		assert_false(found);
		assert_true(value_eq(&rt2, cl.as.list->items[0].as.list->items[0],
		    value_int_str(rt2.arena, "123456789012345678901234567890",
		    10), &eq));
		assert_true(eq);
	}
	sbuf_free(&a);
	sbuf_free(&b);
	arena_free(rt2.arena);
}

/* Truth values as bool(x) in python3. */
static void
test_truthy(void **state)
{
	struct rt rt = { 0 };
	bool t;
	(void)state;
	rt.arena = arena_new();
	struct { value v; bool want; } cases[] = {
		{ value_none(), false }, { value_int(0), false },
		{ value_int(-1), true }, { value_float(-0.0), false },
		{ value_float(0.1), true }, { S(&rt, ""), false },
		{ S(&rt, "0"), true }, { value_list(rt.arena, 4), false },
		{ value_tuple(rt.arena, 1), true }, { value_dict(rt.arena), false },
		{ value_complex(rt.arena, 0.0, -0.0), false },
		{ value_complex(rt.arena, 0.0, 1.0), true },
		{ value_ellipsis(), true },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_true(value_truthy(&rt, cases[i].v, &t));
		assert_int_equal(t, cases[i].want);
	}
	arena_free(rt.arena);
}

/* The table holds exactly the essay's six, and nothing else answers. */
static void
test_builtin_table(void **state)
{
	static const char *const six[] = { "abs", "len", "max", "min", "round",
	    "sum" };
	size_t i;
	(void)state;
	for (i = 0; i < 6; i++) {
		const struct builtin *b = builtin_find(six[i]);
		assert_non_null(b);
		assert_string_equal(b->name, six[i]);
	}
	assert_null(builtin_find("open"));
	assert_null(builtin_find("__import__"));
	assert_null(builtin_find(""));
	assert_null(builtin_find("Sum"));
	/* builtin_find() looks in the rows of a first byte: every row must
	 * be found, which fails when the table is out of order */
	for (i = 0; i < builtin_count; i++)
		assert_ptr_equal(builtin_find(builtin_table[i].name),
		    &builtin_table[i]);
}

/* min/max key= calls back through rt->call: key=len here. */
static bool
call_len(struct rt *rt, value fn, const value *args, size_t nargs,
    value *out)
{
	(void)fn;
	return builtin_find("len")->fn(rt, value_none(), args, nargs, NULL, 0,
	    out);
}

static void
test_min_max_key(void **state)
{
	struct rt rt = { 0 };
	struct sbuf out = SBUF_INIT;
	value items[3], args[2], r;
	const char *kw[] = { "key" };
	(void)state;
	rt.arena = arena_new();
	rt.call = call_len;
	items[0] = S(&rt, "bb");
	items[1] = S(&rt, "a");
	items[2] = S(&rt, "cc");
	args[0] = list_of(&rt, 3, items);
	args[1] = value_native(rt.arena, "len", builtin_find("len")->fn,
	    value_none(), NULL);
	/* max(['bb', 'a', 'cc'], key=len) == 'bb' and min(...) == 'a' */
	assert_true(builtin_find("max")->fn(&rt, value_none(), args, 1, kw, 1,
	    &r));
	assert_true(value_repr(&rt, r, &out));
	assert_string_equal(sbuf_cstr(&out), "'bb'");
	sbuf_truncate(&out, 0);
	assert_true(builtin_find("min")->fn(&rt, value_none(), args, 1, kw, 1,
	    &r));
	assert_true(value_repr(&rt, r, &out));
	assert_string_equal(sbuf_cstr(&out), "'a'");
	/* max([1, 'a'], key=len): TypeError: object of type 'int' has no len() */
	items[0] = value_int(1);
	args[0] = list_of(&rt, 2, items);
	assert_false(builtin_find("max")->fn(&rt, value_none(), args, 1, kw, 1,
	    &r));
	assert_string_equal(rt.exc.msg, "object of type 'int' has no len()");
	sbuf_free(&out);
	arena_free(rt.arena);
}

/* Exceptions are classes with CPython's hierarchy: what the evaluator
 * raises names its class by value, and "is it a LookupError?" follows
 * the bases, as except clauses do. */
static void
test_exception_classes(void **state)
{
	struct arena *a = arena_new();
	struct rt rt;
	int c;
	(void)state;

	memset(&rt, 0, sizeof rt);
	rt.arena = a;
	assert_false(rt_raise(&rt, PYEXC_KeyError, "'%s'", "k"));
	assert_int_equal(rt.exc.kind, EXC_PYTHON);
	assert_string_equal(pyexc_name(rt.exc.cls), "KeyError");
	assert_true(pyexc_is(rt.exc.cls, PYEXC_LookupError));
	assert_true(pyexc_is(rt.exc.cls, PYEXC_Exception));
	assert_false(pyexc_is(rt.exc.cls, PYEXC_ValueError));
	assert_false(pyexc_is(PYEXC_LookupError, PYEXC_KeyError));
	assert_true(pyexc_is(PYEXC_TabError, PYEXC_SyntaxError));
	assert_true(pyexc_is(PYEXC_UnicodeDecodeError, PYEXC_ValueError));
	assert_true(pyexc_is(PYEXC_BrokenPipeError, PYEXC_OSError));
	assert_true(pyexc_is(PYEXC_UnsupportedOperation, PYEXC_OSError));
	assert_string_equal(pyexc_name(PYEXC_UnsupportedOperation),
	    "io.UnsupportedOperation");
	assert_false(pyexc_is(PYEXC_KeyboardInterrupt, PYEXC_Exception));
	for (c = 0; c < PYEXC_COUNT; c++) {
		assert_true(pyexc_is((enum pyexc_class)c, PYEXC_BaseException));
		assert_true(pyexc_is((enum pyexc_class)c, (enum pyexc_class)c));
	}
	assert_false(rt_limit(&rt, "too big"));
	assert_int_equal(rt.exc.kind, EXC_LIMIT);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_structures),
		cmocka_unit_test(test_exception_classes),
		cmocka_unit_test(test_dict_many),
		cmocka_unit_test(test_iterate),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_truthy),
		cmocka_unit_test(test_builtin_table),
		cmocka_unit_test(test_min_max_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
