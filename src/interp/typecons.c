/*
 * typecons.c -- builtins that make values of a type or walk iterables:
 * int float str bytes dict range sorted reversed enumerate zip map filter
 * iter hash format.  Each is a row of the table at the bottom;
 * builtin_find() (builtins.c) falls back to typecons_find() for these
 * names, and nothing here calls back into builtins.c: the lookup runs
 * one way.
 *
 * Iterators (map, filter, zip, enumerate, reversed, iter) are evaluated
 * eagerly into a list wrapped in an iterator object of the right type, so
 * that type(), repr() and a second iteration behave as CPython's; ranges
 * stay lazy (iterating one costs one step of fuel per item).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "builtins.h"
#include "eval.h"
#include "value/format.h"
#include "value/num.h"
#include "base/sbuf.h"
#include "typecons.h"

#define NATIVE(fn) static bool fn(struct rt *rt, value self, \
    const value *args, size_t nargs, const char *const *kw, size_t nkw, \
    value *out)

static bool
no_kw(struct rt *rt, const char *f, size_t nkw)
{
	if (nkw != 0)
		return rt_raise(rt, PYEXC_TypeError, "%s() takes no keyword "
		    "arguments", f);
	return true;
}

static bool
at_most(struct rt *rt, const char *f, size_t nargs, size_t max)
{
	if (nargs > max)
		return rt_raise(rt, PYEXC_TypeError, "%s expected at most %zu "
		    "argument%s, got %zu", f, max, max == 1 ? "" : "s", nargs);
	return true;
}

/* ---- collecting an iterable ---- */

static bool
collect(struct rt *rt, value it, value *out)
{
	return value_collect(rt, it, out);
}

static value
iterator(struct rt *rt, const char *type, value items)
{
	value v = eval_object(rt, MK_ITER, type);
	v.as.obj->data = items;
	return v;
}

/* ---- int ---- */

/* CPython's int(str, base): whitespace, sign, underscores between digits,
 * a prefix matching the base (or any, for base 0). */
static bool
int_from_str(struct rt *rt, const char *s, size_t len, int base, value *out)
{
	struct sbuf digits = SBUF_INIT;
	const char *p = s, *end = s + len;
	bool neg = false, ok = false, prev_us = true;
	mpz_t z;

	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	if (p < end && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	if (end - p >= 2 && p[0] == '0') {
		char c = (char)tolower((unsigned char)p[1]);
		int pb = c == 'x' ? 16 : c == 'o' ? 8 : c == 'b' ? 2 : 0;
		if (pb != 0 && (base == 0 || base == pb)) {
			base = pb;
			p += 2;
			prev_us = false;	/* "0x_1" is allowed */
		}
	}
	if (base == 0) {
		base = 10;
		/* base 0: no leading zeros in a decimal other than 0 */
		if (end - p > 1 && p[0] == '0') {
			const char *q;
			for (q = p; q < end && (*q == '0' || *q == '_'); q++)
				;
			if (q != end)
				goto bad;
		}
	}
	if (p == end)
		goto bad;
	for (; p < end; p++) {
		int d;
		if (*p == '_') {
			if (prev_us)
				goto bad;
			prev_us = true;
			continue;
		}
		if (isdigit((unsigned char)*p))
			d = *p - '0';
		else if (isalpha((unsigned char)*p))
			d = tolower((unsigned char)*p) - 'a' + 10;
		else
			goto bad;
		if (d >= base)
			goto bad;
		sbuf_addc(&digits, *p);
		prev_us = false;
	}
	if (prev_us)
		goto bad;
	if (base == 10 && digits.len > INT_MAX_STR_DIGITS) {
		size_t n = digits.len;
		sbuf_free(&digits);
		return rt_raise(rt, PYEXC_ValueError,
		    "Exceeds the limit (%d digits) for integer string "
		    "conversion: value has %zu digits; use "
		    "sys.set_int_max_str_digits() to increase the limit",
		    INT_MAX_STR_DIGITS, n);
	}
	if (!rt_check_int_bits(rt, (uint64_t)digits.len * 4 + 64)) {
		sbuf_free(&digits);
		return false;
	}
	mpz_init(z);
	ok = mpz_set_str(z, sbuf_cstr(&digits), base) == 0;
	if (ok) {
		if (neg)
			mpz_neg(z, z);
		*out = value_int_mpz(rt->arena, z);
	}
	mpz_clear(z);
	sbuf_free(&digits);
	if (ok)
		return true;
bad:
	{
		struct sbuf r = SBUF_INIT;
		value sv = value_str(rt->arena, s, len);
		value_str_repr(sv.as.s, false, &r);
		rt_raise(rt, PYEXC_ValueError,
		    "invalid literal for int() with base %d: %s",
		    base, sbuf_cstr(&r));
		sbuf_free(&r);
		sbuf_free(&digits);
		return false;
	}
}

NATIVE(tc_int)
{
	value x;
	int64_t base = 10;
	bool has_base = false;
	size_t i;

	for (i = 0; i < nkw; i++) {
		if (strcmp(kw[i], "base") == 0 && args[nargs + i].type == VT_INT) {
			base = args[nargs + i].as.i;
			has_base = true;
		} else
			return rt_raise(rt, PYEXC_TypeError,
			    "'%s' is an invalid keyword argument for int()",
			    kw[i]);
	}
	if (!at_most(rt, "int", nargs, 2))
		return false;
	if (nargs == 0) {
		*out = value_int(0);
		return true;
	}
	x = args[0];
	if (nargs == 2) {
		if (args[1].type != VT_INT)
			return rt_raise(rt, PYEXC_TypeError,
			    "'%s' object cannot be interpreted as an integer",
			    value_type_name(args[1]));
		base = args[1].as.i;
		has_base = true;
	}
	if (has_base && (base != 0 && (base < 2 || base > 36)))
		return rt_raise(rt, PYEXC_ValueError,
		    "int() base must be >= 2 and <= 36, or 0");
	if (x.type == VT_STR || x.type == VT_BYTES)
		return int_from_str(rt, x.as.s->data, x.as.s->len, (int)base,
		    out);
	if (has_base)
		return rt_raise(rt, PYEXC_TypeError,
		    "int() can't convert non-string with explicit base");
	switch (x.type) {
	case VT_BOOL: *out = value_int(x.as.b); return true;
	case VT_INT: case VT_BIGINT: *out = x; return true;
	case VT_FLOAT: {
		mpz_t z;
		if (isinf(x.as.f))
			return rt_raise(rt, PYEXC_OverflowError,
			    "cannot convert float infinity to integer");
		if (isnan(x.as.f))
			return rt_raise(rt, PYEXC_ValueError,
			    "cannot convert float NaN to integer");
		mpz_init_set_d(z, x.as.f);
		*out = value_int_mpz(rt->arena, z);
		mpz_clear(z);
		return true;
	}
	default:
		return rt_raise(rt, PYEXC_TypeError, "int() argument must be a "
		    "string, a bytes-like object or a real number, not '%s'",
		    value_type_name(x));
	}
}

/* ---- float ---- */

NATIVE(tc_float)
{
	value x;
	if (!no_kw(rt, "float", nkw) || !at_most(rt, "float", nargs, 1))
		return false;
	if (nargs == 0) {
		*out = value_float(0.0);
		return true;
	}
	x = args[0];
	switch (x.type) {
	case VT_BOOL: *out = value_float(x.as.b); return true;
	case VT_INT: *out = value_float((double)x.as.i); return true;
	case VT_FLOAT: *out = x; return true;
	case VT_BIGINT: {
		value one = value_int(1);
		/* x / 1 is CPython's correctly rounded int -> float */
		return value_binop(rt, BINOP_DIV, x, one, out);
	}
	case VT_STR: {
		struct sbuf b = SBUF_INIT;
		const char *p = x.as.s->data, *e = p + x.as.s->len;
		char *end;
		bool prev_digit = false, ok = true;
		double d;
		while (p < e && isspace((unsigned char)*p))
			p++;
		while (e > p && isspace((unsigned char)e[-1]))
			e--;
		for (const char *q = p; q < e; q++) {
			if (*q == '_') {
				if (!prev_digit || q + 1 >= e ||
				    !isdigit((unsigned char)q[1]))
					ok = false;
				continue;
			}
			prev_digit = isdigit((unsigned char)*q);
			sbuf_addc(&b, *q);
		}
		errno = 0;
		d = strtod(sbuf_cstr(&b), &end);
		/* C accepts hex floats and "infinity"-ish spellings that
		 * Python accepts too, but not hex: reject 0x */
		if (!ok || b.len == 0 || *end != '\0' ||
		    strpbrk(sbuf_cstr(&b), "xX") != NULL) {
			struct sbuf r = SBUF_INIT;
			value_str_repr(x.as.s, false, &r);
			rt_raise(rt, PYEXC_ValueError,
			    "could not convert string to float: %s",
			    sbuf_cstr(&r));
			sbuf_free(&r);
			sbuf_free(&b);
			return false;
		}
		sbuf_free(&b);
		*out = value_float(d);
		return true;
	}
	default:
		return rt_raise(rt, PYEXC_TypeError,
		    "float() argument must be a string or a real number, not "
		    "'%s'", value_type_name(x));
	}
}

/* ---- str, bytes ---- */

NATIVE(tc_str)
{
	struct sbuf b = SBUF_INIT;
	if (!no_kw(rt, "str", nkw) || !at_most(rt, "str", nargs, 3))
		return false;
	if (nargs == 0) {
		*out = value_str(rt->arena, "", 0);
		return true;
	}
	if (nargs >= 2) {
		if (args[0].type != VT_BYTES)
			return rt_raise(rt, PYEXC_TypeError,
			    "decoding to str: need a bytes-like object, %s "
			    "found",
			    value_type_name(args[0]));
		*out = value_str(rt->arena, args[0].as.s->data,
		    args[0].as.s->len);
		return true;
	}
	if (!value_str_of(rt, args[0], &b)) {
		sbuf_free(&b);
		return false;
	}
	*out = value_str(rt->arena, sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	return true;
}

static bool
byte_item(struct rt *rt, value item, void *ctx)
{
	struct sbuf *b = ctx;
	if (item.type != VT_INT && item.type != VT_BOOL)
		return rt_raise(rt, PYEXC_TypeError, "'%s' object cannot be "
		    "interpreted as an integer", value_type_name(item));
	if (item.type == VT_INT && (item.as.i < 0 || item.as.i > 255))
		return rt_raise(rt, PYEXC_ValueError,
		    "bytes must be in range(0, 256)");
	if (!rt_check_str_bytes(rt, b->len + 1))
		return false;
	sbuf_addc(b, (char)(item.type == VT_BOOL ? item.as.b : item.as.i));
	return true;
}

NATIVE(tc_bytes)
{
	struct sbuf b = SBUF_INIT;
	if (!no_kw(rt, "bytes", nkw) || !at_most(rt, "bytes", nargs, 3))
		return false;
	if (nargs == 0) {
		*out = value_bytes(rt->arena, "", 0);
		return true;
	}
	if (args[0].type == VT_STR) {
		if (nargs < 2)
			return rt_raise(rt, PYEXC_TypeError, "string argument "
			    "without an encoding");
		*out = value_bytes(rt->arena, args[0].as.s->data,
		    args[0].as.s->len);
		return true;
	}
	if (args[0].type == VT_INT) {
		if (args[0].as.i < 0)
			return rt_raise(rt, PYEXC_ValueError, "negative count");
		if (!rt_check_str_bytes(rt, (uint64_t)args[0].as.i))
			return false;
		{
			char *z = arena_alloc(rt->arena,
			    (size_t)args[0].as.i + 1);
			*out = value_bytes(rt->arena, z, (size_t)args[0].as.i);
		}
		return true;
	}
	if (args[0].type == VT_BYTES) {
		*out = args[0];
		return true;
	}
	if (!value_is_iterable(args[0])) {
		sbuf_free(&b);
		return rt_raise(rt, PYEXC_TypeError,
		    "cannot convert '%s' object to bytes",
		    value_type_name(args[0]));
	}
	if (!value_iterate(rt, args[0], byte_item, &b)) {
		sbuf_free(&b);
		return false;
	}
	*out = value_bytes(rt->arena, sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	return true;
}

/* ---- dict ---- */

struct pair_ctx {
	value	 dict;
	size_t	 index;
};

static bool
pair_item(struct rt *rt, value item, void *ctx)
{
	struct pair_ctx *c = ctx;
	value list;
	if (!collect(rt, item, &list)) {
		rt_clear(rt);
		return rt_raise(rt, PYEXC_TypeError,
		    "cannot convert dictionary update sequence element #%zu to "
		    "a sequence", c->index);
	}
	if (list.as.list->len != 2)
		return rt_raise(rt, PYEXC_ValueError,
		    "dictionary update sequence element #%zu has length %zu; 2 "
		    "is required", c->index,
		    list.as.list->len);
	c->index++;
	return value_dict_set(rt, c->dict, list.as.list->items[0],
	    list.as.list->items[1]);
}

NATIVE(tc_dict)
{
	struct pair_ctx c;
	size_t i;
	if (!at_most(rt, "dict", nargs, 1))
		return false;
	c.dict = value_dict(rt->arena);
	c.index = 0;
	if (nargs == 1) {
		if (args[0].type == VT_DICT) {
			for (i = 0; i < args[0].as.dict->used; i++)
				if (args[0].as.dict->entries[i].live &&
				    !value_dict_set(rt, c.dict,
				    args[0].as.dict->entries[i].key,
				    args[0].as.dict->entries[i].val))
					return false;
		} else if (!value_iterate(rt, args[0], pair_item, &c))
			return false;
	}
	for (i = 0; i < nkw; i++)
		if (!value_dict_set(rt, c.dict, value_cstr(rt->arena, kw[i]),
		    args[nargs + i]))
			return false;
	*out = c.dict;
	return true;
}

/* ---- range ---- */

NATIVE(tc_range)
{
	int64_t v[3] = { 0, 0, 1 };
	size_t i;
	value t;
	if (!no_kw(rt, "range", nkw))
		return false;
	if (nargs == 0 || nargs > 3)
		return rt_raise(rt, PYEXC_TypeError,
		    nargs == 0 ? "range expected at least 1 argument, got 0" : "range expected at most 3 "
		    "arguments, got %zu", nargs);
	for (i = 0; i < nargs; i++) {
		value a = args[i];
		if (a.type == VT_BOOL)
			a = value_int(a.as.b);
		if (a.type == VT_BIGINT)
			return rt_raise(rt, PYEXC_OverflowError,
			    "Python int too large to convert to C ssize_t");
		if (a.type != VT_INT)
			return rt_raise(rt, PYEXC_TypeError,
			    "'%s' object cannot be interpreted as an integer",
			    value_type_name(a));
		v[nargs == 1 ? 1 : i] = a.as.i;
	}
	if (nargs == 3 && v[2] == 0)
		return rt_raise(rt, PYEXC_ValueError,
		    "range() arg 3 must not be zero");
	t = value_tuple(rt->arena, 3);
	for (i = 0; i < 3; i++)
		t.as.tuple->items[i] = value_int(v[i]);
	*out = eval_object(rt, MK_RANGE, "range");
	out->as.obj->data = t;
	return true;
}

/* ---- sorted, reversed ---- */

struct sort_ctx {
	struct rt	*rt;
	value		*keys;
	bool		 failed;
	bool		 reverse;
};

/* A stable merge sort on (key, item) pairs, comparing with "<" as
 * list.sort() does. */
static bool
less(struct rt *rt, value a, value b, bool *out)
{
	value r;
	if (!value_compare(rt, CMPOP_LT, a, b, &r))
		return false;
	return value_truthy(rt, r, out);
}

static bool
merge_sort(struct rt *rt, value *items, value *keys, size_t n, bool reverse,
    value *tmp_i, value *tmp_k)
{
	size_t mid = n / 2, i = 0, j, k = 0;
	bool lt;
	if (n < 2)
		return true;
	if (!merge_sort(rt, items, keys, mid, reverse, tmp_i, tmp_k) ||
	    !merge_sort(rt, items + mid, keys + mid, n - mid, reverse, tmp_i,
	    tmp_k))
		return false;
	j = mid;
	while (i < mid && j < n) {
		/* take from the right only when strictly before: stable */
		if (!rt_step(rt))
			return false;
		if (reverse) {
			if (!less(rt, keys[i], keys[j], &lt))
				return false;
		} else if (!less(rt, keys[j], keys[i], &lt))
			return false;
		if (lt) {
			tmp_i[k] = items[j];
			tmp_k[k++] = keys[j++];
		} else {
			tmp_i[k] = items[i];
			tmp_k[k++] = keys[i++];
		}
	}
	while (i < mid) {
		tmp_i[k] = items[i];
		tmp_k[k++] = keys[i++];
	}
	while (j < n) {
		tmp_i[k] = items[j];
		tmp_k[k++] = keys[j++];
	}
	memcpy(items, tmp_i, n * sizeof *items);
	memcpy(keys, tmp_k, n * sizeof *keys);
	return true;
}

NATIVE(tc_sorted)
{
	value list, key = value_none();
	bool reverse = false;
	size_t i, n;
	value *keys, *ti, *tk;

	if (nargs != 1)
		return rt_raise(rt, PYEXC_TypeError,
		    "sorted expected 1 argument, got %zu", nargs);
	for (i = 0; i < nkw; i++) {
		if (strcmp(kw[i], "key") == 0)
			key = args[nargs + i];
		else if (strcmp(kw[i], "reverse") == 0) {
			if (!value_truthy(rt, args[nargs + i], &reverse))
				return false;
		} else
			return rt_raise(rt, PYEXC_TypeError, "sort() got an "
			    "unexpected keyword argument '%s'", kw[i]);
	}
	if (!collect(rt, args[0], &list))
		return false;
	n = list.as.list->len;
	keys = arena_array(rt->arena, n + 1, sizeof *keys);
	ti = arena_array(rt->arena, n + 1, sizeof *ti);
	tk = arena_array(rt->arena, n + 1, sizeof *tk);
	for (i = 0; i < n; i++) {
		keys[i] = list.as.list->items[i];
		if (key.type != VT_NONE && !rt->call(rt, key,
		    &list.as.list->items[i], 1, &keys[i]))
			return false;
	}
	if (!merge_sort(rt, list.as.list->items, keys, n, reverse, ti, tk))
		return false;
	*out = list;
	return true;
}

NATIVE(tc_reversed)
{
	value list;
	size_t i, n;
	if (!no_kw(rt, "reversed", nkw))
		return false;
	if (nargs != 1)
		return rt_raise(rt, PYEXC_TypeError,
		    "reversed expected 1 argument, got %zu", nargs);
	if (args[0].type == VT_DICT || args[0].type == VT_SET ||
	    (args[0].type == VT_OBJECT && args[0].as.obj->kind == MK_ITER))
		return rt_raise(rt, PYEXC_TypeError, "'%s' object is not "
		    "reversible", value_type_name(args[0]));
	if (!collect(rt, args[0], &list))
		return false;
	n = list.as.list->len;
	for (i = 0; i < n / 2; i++) {
		value t = list.as.list->items[i];
		list.as.list->items[i] = list.as.list->items[n - 1 - i];
		list.as.list->items[n - 1 - i] = t;
	}
	*out = iterator(rt, args[0].type == VT_LIST ? "list_reverseiterator" :
	    "reversed", list);
	return true;
}

/* ---- enumerate, zip, map, filter, iter ---- */

NATIVE(tc_enumerate)
{
	value list, res;
	int64_t start = 0;
	size_t i;
	if (nargs < 1 || nargs > 2)
		return rt_raise(rt, PYEXC_TypeError,
		    "enumerate() missing required argument 'iterable' (pos 1)");
	if (nargs == 2 || nkw == 1) {
		value s = nargs == 2 ? args[1] : args[nargs];
		if (s.type != VT_INT)
			return rt_raise(rt, PYEXC_TypeError,
			    "'%s' object cannot be interpreted as an integer",
			    value_type_name(s));
		start = s.as.i;
	}
	if (!collect(rt, args[0], &list))
		return false;
	res = value_list(rt->arena, list.as.list->len);
	for (i = 0; i < list.as.list->len; i++) {
		value t = value_tuple(rt->arena, 2);
		t.as.tuple->items[0] = value_int(start + (int64_t)i);
		t.as.tuple->items[1] = list.as.list->items[i];
		value_list_append(rt->arena, res, t);
	}
	*out = iterator(rt, "enumerate", res);
	return true;
}

NATIVE(tc_zip)
{
	value *lists, res;
	size_t i, k, n = SIZE_MAX;
	if (!no_kw(rt, "zip", nkw))
		return false;
	lists = arena_array(rt->arena, nargs + 1, sizeof *lists);
	for (i = 0; i < nargs; i++) {
		if (!collect(rt, args[i], &lists[i]))
			return false;
		if (lists[i].as.list->len < n)
			n = lists[i].as.list->len;
	}
	if (nargs == 0)
		n = 0;
	res = value_list(rt->arena, n);
	for (k = 0; k < n; k++) {
		value t = value_tuple(rt->arena, nargs);
		for (i = 0; i < nargs; i++)
			t.as.tuple->items[i] = lists[i].as.list->items[k];
		value_list_append(rt->arena, res, t);
	}
	*out = iterator(rt, "zip", res);
	return true;
}

NATIVE(tc_map)
{
	value *lists, res;
	size_t i, k, n = SIZE_MAX;
	if (!no_kw(rt, "map", nkw))
		return false;
	if (nargs < 2)
		return rt_raise(rt, PYEXC_TypeError,
		    "map() must have at least two arguments.");
	lists = arena_array(rt->arena, nargs, sizeof *lists);
	for (i = 1; i < nargs; i++) {
		if (!collect(rt, args[i], &lists[i]))
			return false;
		if (lists[i].as.list->len < n)
			n = lists[i].as.list->len;
	}
	res = value_list(rt->arena, n);
	for (k = 0; k < n; k++) {
		value *a = arena_array(rt->arena, nargs, sizeof *a), r;
		for (i = 1; i < nargs; i++)
			a[i - 1] = lists[i].as.list->items[k];
		if (!rt->call(rt, args[0], a, nargs - 1, &r))
			return false;
		value_list_append(rt->arena, res, r);
	}
	*out = iterator(rt, "map", res);
	return true;
}

NATIVE(tc_filter)
{
	value list, res;
	size_t i;
	if (!no_kw(rt, "filter", nkw))
		return false;
	if (nargs != 2)
		return rt_raise(rt, PYEXC_TypeError,
		    "filter expected 2 arguments, got %zu", nargs);
	if (!collect(rt, args[1], &list))
		return false;
	res = value_list(rt->arena, list.as.list->len);
	for (i = 0; i < list.as.list->len; i++) {
		value r = list.as.list->items[i];
		bool keep;
		if (args[0].type != VT_NONE &&
		    !rt->call(rt, args[0], &list.as.list->items[i], 1, &r))
			return false;
		if (!value_truthy(rt, r, &keep))
			return false;
		if (keep)
			value_list_append(rt->arena, res,
			    list.as.list->items[i]);
	}
	*out = iterator(rt, "filter", res);
	return true;
}

NATIVE(tc_iter)
{
	value list;
	static const struct { enum vtype t; const char *name; } names[] = {
		{ VT_LIST, "list_iterator" }, { VT_TUPLE, "tuple_iterator" },
		{ VT_STR, "str_ascii_iterator" }, { VT_BYTES, "bytes_iterator" },
		{ VT_DICT, "dict_keyiterator" }, { VT_SET, "set_iterator" },
	};
	const char *name = "iterator";
	size_t i;
	if (!no_kw(rt, "iter", nkw))
		return false;
	if (nargs != 1)
		return rt_raise(rt, PYEXC_TypeError,
		    "iter expected 1 argument, got %zu", nargs);
	if (args[0].type == VT_OBJECT && (args[0].as.obj->kind == MK_ITER ||
	    args[0].as.obj->kind == MK_GENERATOR)) {
		*out = args[0];
		return true;
	}
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].t == args[0].type)
			name = names[i].name;
	if (!collect(rt, args[0], &list))
		return false;
	*out = iterator(rt, name, list);
	return true;
}

/* ---- complex, frozenset, slice ---- */

static bool
is_number(value v)
{
	return v.type == VT_BOOL || v.type == VT_INT || v.type == VT_BIGINT ||
	    v.type == VT_FLOAT || v.type == VT_COMPLEX;
}

/* complex('1+2j'): [(] [real] [(+|-) imag j] [)], spaces around, as
 * CPython's complex_subtype_from_string reads it. */
static bool
complex_from_str(struct rt *rt, value x, value *out)
{
	const char *s = x.as.s->data, *e = s + x.as.s->len;
	char buf[256], *end;
	double re = 0.0, im = 0.0, d;
	size_t n;

	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if (e - s >= 2 && *s == '(' && e[-1] == ')') {
		s++, e--;
		while (s < e && isspace((unsigned char)*s))
			s++;
		while (e > s && isspace((unsigned char)e[-1]))
			e--;
	}
	/* underscores only between digits, and dropped */
	for (n = 0; s < e; s++) {
		if (*s == '_') {
			if (n == 0 || !isdigit((unsigned char)buf[n - 1]) ||
			    s + 1 >= e || !isdigit((unsigned char)s[1])) {
				/* CPython's underscore check speaks this way */
				struct sbuf r = SBUF_INIT;
				value_str_repr(x.as.s, false, &r);
				rt_raise(rt, PYEXC_ValueError,
				    "could not convert string to complex: %s",
				    sbuf_cstr(&r));
				sbuf_free(&r);
				return false;
			}
			continue;
		}
		if (*s == '\0' || n + 1 >= sizeof buf)
			goto bad;
		buf[n++] = *s;
	}
	if (n == 0)
		goto bad;
	buf[n] = '\0';
	if (strpbrk(buf, "xX ") != NULL)
		goto bad;
	s = buf;
	/* a bare sign before j: "j", "+j", "-j" */
	if ((s[0] == 'j' || s[0] == 'J') && s[1] == '\0') {
		*out = value_complex(rt->arena, 0.0, 1.0);
		return true;
	}
	d = strtod(s, &end);
	if (end == s) {
		if ((s[0] == '+' || s[0] == '-') && (s[1] == 'j' ||
		    s[1] == 'J') && s[2] == '\0') {
			*out = value_complex(rt->arena, 0.0,
			    s[0] == '-' ? -1.0 : 1.0);
			return true;
		}
		goto bad;
	}
	if (*end == 'j' || *end == 'J') {
		im = d;
		end++;
	} else if (*end == '+' || *end == '-') {
		const char *q = end;
		re = d;
		d = strtod(q, &end);
		if (end == q) {
			if ((q[1] == 'j' || q[1] == 'J')) {
				d = *q == '-' ? -1.0 : 1.0;
				end = (char *)q + 1;
			} else
				goto bad;
		}
		if (*end != 'j' && *end != 'J')
			goto bad;
		im = d;
		end++;
	} else
		re = d;
	if (*end != '\0')
		goto bad;
	*out = value_complex(rt->arena, re, im);
	return true;
bad:
	return rt_raise(rt, PYEXC_ValueError, "complex() arg is a malformed "
	    "string");
}

NATIVE(tc_complex)
{
	value re = value_int(0), im = value_int(0), j, t;
	size_t i;
	bool have_im = false;

	if (nargs > 2)
		return rt_raise(rt, PYEXC_TypeError,
		    "complex() takes at most 2 arguments (%zu given)",
		    nargs + nkw);
	if (nargs > 0)
		re = args[0];
	if (nargs > 1) {
		im = args[1];
		have_im = true;
	}
	for (i = 0; i < nkw; i++) {
		const value *a = &args[nargs + i];
		if (strcmp(kw[i], "real") == 0 && nargs < 1)
			re = *a;
		else if (strcmp(kw[i], "imag") == 0 && nargs < 2) {
			im = *a;
			have_im = true;
		} else if (strcmp(kw[i], "real") == 0 ||
		    strcmp(kw[i], "imag") == 0)
			return rt_raise(rt, PYEXC_TypeError,
			    "argument for complex() given by name ('%s') and "
			    "position (%d)", kw[i],
			    strcmp(kw[i], "real") == 0 ? 1 : 2);
		else
			return rt_raise(rt, PYEXC_TypeError, "complex() got an "
			    "unexpected keyword argument '%s'", kw[i]);
	}
	if (re.type == VT_STR) {
		if (have_im)
			return rt_raise(rt, PYEXC_TypeError,
			    "complex() can't take second arg if first is a "
			    "string");
		return complex_from_str(rt, re, out);
	}
	if (!is_number(re))
		return rt_raise(rt, PYEXC_TypeError,
		    "complex() first argument must be a string or a number, "
		    "not '%s'", value_type_name(re));
	if (im.type == VT_STR)
		return rt_raise(rt, PYEXC_TypeError,
		    "complex() second arg can't be a string");
	if (!is_number(im))
		return rt_raise(rt, PYEXC_TypeError,
		    "complex() second argument must be a number, not '%s'",
		    value_type_name(im));
	/* re + im*1j, each part a float as CPython makes it */
	j = value_complex(rt->arena, 0.0, 1.0);
	if (!value_binop(rt, BINOP_MULT, im, j, &t) ||
	    !value_binop(rt, BINOP_ADD, re, t, out))
		return false;
	if (out->type != VT_COMPLEX) {
		double d;
		if (!num_to_double(rt, *out, &d))
			return false;
		*out = value_complex(rt->arena, d, 0.0);
	}
	return true;
}

NATIVE(tc_frozenset)
{
	if (!no_kw(rt, "frozenset", nkw) ||
	    !at_most(rt, "frozenset", nargs, 1))
		return false;
	*out = value_set(rt->arena);
	if (nargs == 1 && !value_set_update(rt, *out, args[0]))
		return false;
	out->type = VT_FROZENSET;
	return true;
}

NATIVE(tc_slice)
{
	value none = value_none();
	if (!no_kw(rt, "slice", nkw))
		return false;
	if (nargs == 0)
		return rt_raise(rt, PYEXC_TypeError,
		    "slice expected at least 1 argument, got 0");
	if (!at_most(rt, "slice", nargs, 3))
		return false;
	if (nargs == 1)
		*out = value_slice(rt->arena, none, args[0], none);
	else
		*out = value_slice(rt->arena, args[0], args[1],
		    nargs == 3 ? args[2] : none);
	return true;
}

/* ---- hash, format ---- */

NATIVE(tc_hash)
{
	uint64_t h;
	if (!no_kw(rt, "hash", nkw))
		return false;
	if (nargs != 1)
		return rt_raise(rt, PYEXC_TypeError, "hash() takes exactly one "
		    "argument (%zu given)", nargs);
	if (!value_hash(rt, args[0], &h))
		return false;
	*out = value_int((int64_t)h);
	return true;
}

NATIVE(tc_format)
{
	struct sbuf b = SBUF_INIT;
	if (!no_kw(rt, "format", nkw))
		return false;
	if (nargs < 1 || nargs > 2)
		return rt_raise(rt, PYEXC_TypeError,
		    "format expected at most 2 arguments, got %zu", nargs);
	if (nargs == 2 && args[1].type != VT_STR)
		return rt_raise(rt, PYEXC_TypeError,
		    "format() argument 2 must be str, not %s",
		    value_type_name(args[1]));
	if (!format_value(rt, args[0], nargs == 2 ? args[1].as.s->data : "",
	    nargs == 2 ? args[1].as.s->len : 0, &b)) {
		sbuf_free(&b);
		return false;
	}
	*out = value_str(rt->arena, sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	return true;
}

static const struct builtin table[] = {
	{ "bytes", tc_bytes }, { "complex", tc_complex }, { "dict", tc_dict },
	{ "enumerate", tc_enumerate }, { "filter", tc_filter },
	{ "float", tc_float }, { "format", tc_format },
	{ "frozenset", tc_frozenset }, { "hash", tc_hash },
	{ "int", tc_int }, { "iter", tc_iter }, { "map", tc_map },
	{ "range", tc_range }, { "reversed", tc_reversed },
	{ "slice", tc_slice }, { "sorted", tc_sorted }, { "str", tc_str }, { "zip", tc_zip },
};

const struct builtin *
typecons_find(const char *name)
{
	size_t i;
	for (i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}
