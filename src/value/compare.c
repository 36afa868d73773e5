/*
 * compare.c -- hash, ==, <, in, and the dict/set lookup built on them.
 *
 * One file because they are one recursion: looking a key up in a dict
 * compares keys, and comparing two dicts (or sets) looks their keys up
 * in each other.  Numbers are num.c's: hash and comparison of two numbers
 * call it, so 1 == 1.0 == True and hash(1) == hash(1.0) as in CPython.
 * This file owns lexicographic comparison of sequences with its depth
 * cap, set and dict equality, containment ('in') for every type, and
 * insertion and lookup in the insertion-ordered table whose storage is
 * value.c's.
 */
#include "config.h"

#include <string.h>

#include "num.h"
#include "value.h"
#include "value_internal.h"

/* ================================================================ */
/* dict and set: insertion-ordered entries, open-addressed index     */
/* ================================================================ */

/* The table's layout (entries[] in insertion order, index[] probed
 * linearly, -1 empty, -2 deleted) is described in value.c, above
 * value_dict_reindex(). */

static bool
keys_equal(struct rt *rt, value a, value b, bool *eq)
{
	if (a.type == b.type) {
		switch (a.type) {
		case VT_INT: *eq = a.as.i == b.as.i; return true;
		case VT_STR:
		case VT_BYTES:
			*eq = a.as.s->len == b.as.s->len &&
			    memcmp(a.as.s->data, b.as.s->data, a.as.s->len) == 0;
			return true;
		default:
			break;
		}
	}
	return value_eq(rt, a, b, eq);
}

/* The entry holding key, or -1; *slot is where it is or would go. */
static bool
dict_lookup(struct rt *rt, struct vdict *d, value key, uint64_t h,
    int64_t *entry, size_t *slot)
{
	size_t mask = d->nindex - 1, i = (size_t)h & mask;
	size_t first_free = (size_t)-1;
	*entry = -1;
	for (;;) {
		int64_t ix = d->index[i];
		if (ix == -1) {
			*slot = first_free != (size_t)-1 ? first_free : i;
			return true;
		}
		if (ix == -2) {
			if (first_free == (size_t)-1)
				first_free = i;
		} else if (d->entries[ix].hash == h) {
			bool eq;
			if (!keys_equal(rt, d->entries[ix].key, key, &eq))
				return false;
			if (eq) {
				*entry = ix;
				*slot = i;
				return true;
			}
		}
		i = (i + 1) & mask;
	}
}

static bool
dict_insert(struct rt *rt, value dict, value key, value val)
{
	struct vdict *d = dict.as.dict;
	uint64_t h;
	int64_t e;
	size_t slot;

	if (!value_hash(rt, key, &h))
		return false;
	if (d->nindex == 0)
		value_dict_reindex(rt->arena, d, 8);
	if (!dict_lookup(rt, d, key, h, &e, &slot))
		return false;
	if (e >= 0) {
		d->entries[e].val = val;	/* the first key object stays */
		return true;
	}
	if (!rt_check_seq_len(rt, d->len + 1))
		return false;
	if ((d->used + 1) * 3 >= d->nindex * 2) {
		value_dict_reindex(rt->arena, d, d->len * 3 >= d->nindex ?
		    d->nindex * 2 : d->nindex);
		if (!dict_lookup(rt, d, key, h, &e, &slot))
			return false;
	}
	if (d->used == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 8;
		d->entries = arena_grow(rt->arena, d->entries, d->used, ncap,
		    sizeof *d->entries);
		d->cap = ncap;
	}
	d->entries[d->used].hash = h;
	d->entries[d->used].live = true;
	d->entries[d->used].key = key;
	d->entries[d->used].val = val;
	d->index[slot] = (int64_t)d->used;
	d->used++;
	d->len++;
	return true;
}

bool
value_dict_set(struct rt *rt, value dict, value key, value val)
{
	return dict_insert(rt, dict, key, val);
}

bool
value_set_add(struct rt *rt, value set, value key)
{
	return dict_insert(rt, set, key, value_none());
}

bool
value_dict_get(struct rt *rt, value dict, value key, value *out, bool *found)
{
	struct vdict *d = dict.as.dict;
	uint64_t h;
	int64_t e;
	size_t slot;
	*found = false;
	if (!value_hash(rt, key, &h))
		return false;
	if (d->len == 0)
		return true;
	if (!dict_lookup(rt, d, key, h, &e, &slot))
		return false;
	if (e >= 0) {
		*found = true;
		if (out)
			*out = d->entries[e].val;
	}
	return true;
}

bool
value_dict_take(struct rt *rt, value dict, value key, value *out, bool *found)
{
	struct vdict *d = dict.as.dict;
	uint64_t h;
	int64_t e;
	size_t slot;
	*found = false;
	if (d->len == 0 || d->nindex == 0)	/* {}.pop([]) is a KeyError */
		return true;
	if (!value_hash(rt, key, &h) || !dict_lookup(rt, d, key, h, &e, &slot))
		return false;
	if (e < 0)
		return true;
	*found = true;
	if (out)
		*out = d->entries[e].val;
	d->entries[e].live = false;
	d->index[slot] = -2;		/* deleted: probing goes on past it */
	d->len--;
	return true;
}

/* Add an item to the set at ctx, within the cap on its length. */
static bool
update_step(struct rt *rt, value item, void *ctx)
{
	value *set = ctx;
	if (!rt_check_seq_len(rt, set->as.dict->len + 1))
		return false;
	return value_set_add(rt, *set, item);
}

bool
value_set_update(struct rt *rt, value set, value iterable)
{
	return value_iterate(rt, iterable, update_step, &set);
}

/* ================================================================ */
/* hash                                                              */
/* ================================================================ */

/* FNV-1a, for str and bytes (any good hash will do: only ints, floats and
 * complexes must agree with each other as CPython's do). */
static uint64_t
hash_bytes(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i;
	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h == (uint64_t)-1 ? (uint64_t)-2 : h;
}

#define XXPRIME_1 11400714785074694791ULL
#define XXPRIME_2 14029467366897019727ULL
#define XXPRIME_5 2870177450012600261ULL
#define XXROTATE(x) (((x) << 31) | ((x) >> 33))

bool
value_hash(struct rt *rt, value v, uint64_t *out)
{
	size_t i;
	switch (v.type) {
	case VT_NONE: *out = 0xFCA86420u; return true;
	case VT_ELLIPSIS: *out = 0xE11195E5u; return true;
	case VT_BOOL:
	case VT_INT:
	case VT_BIGINT:
	case VT_FLOAT:
	case VT_COMPLEX:
		*out = num_hash(v);
		return true;
	case VT_STR:
	case VT_BYTES:
		*out = hash_bytes(v.as.s->data, v.as.s->len);
		return true;
	case VT_TUPLE: {
		/* CPython's tuplehash (xxHash lanes) */
		uint64_t acc = XXPRIME_5, lane;
		/* nested tuples recurse: capped as comparison is */
		if (rt->depth++ > (rt->limits.max_depth ?
		    rt->limits.max_depth : 10000)) {
			rt->depth--;
			return rt_raise(rt, PYEXC_RecursionError, "maximum "
			    "recursion depth exceeded while calling a "
			    "Python object");
		}
		for (i = 0; i < v.as.tuple->len; i++) {
			if (!value_hash(rt, v.as.tuple->items[i], &lane)) {
				rt->depth--;
				return false;
			}
			acc += lane * XXPRIME_2;
			acc = XXROTATE(acc);
			acc *= XXPRIME_1;
		}
		rt->depth--;
		acc += v.as.tuple->len ^ (XXPRIME_5 ^ 3527539UL);
		*out = acc == (uint64_t)-1 ? 1546275796 : acc;
		return true;
	}
	case VT_FROZENSET: {
		/* order-independent: a sum of shuffled entry hashes */
		uint64_t acc = 1927868237ULL * (v.as.dict->len + 1);
		for (i = 0; i < v.as.dict->used; i++) {
			uint64_t h = v.as.dict->entries[i].hash;
			if (!v.as.dict->entries[i].live)
				continue;
			acc ^= ((h ^ (h << 16)) ^ 89869747ULL) * 3644798167ULL;
		}
		*out = acc == (uint64_t)-1 ? 590923713ULL : acc;
		return true;
	}
	case VT_LIST:
	case VT_DICT:
	case VT_SET:
	case VT_SLICE:
		return rt_raise(rt, PYEXC_TypeError, "unhashable type: '%s'",
		    value_type_name(v));
	default:
		*out = (uint64_t)(uintptr_t)v.as.obj >> 4;
		return true;
	}
}

/* ================================================================ */
/* comparison                                                        */
/* ================================================================ */

#define X_SYM(e, name, sym) sym,
static const char *const cmp_syms[] = { CMPOPS(X_SYM) };
#undef X_SYM

static bool
not_supported(struct rt *rt, enum cmpop op, value a, value b)
{
	return rt_raise(rt, PYEXC_TypeError,
	    "'%s' not supported between instances of '%s' and '%s'",
	    cmp_syms[op], value_type_name(a), value_type_name(b));
}

static bool compare_bool(struct rt *rt, enum cmpop op, value a, value b,
    bool *res);

/* list_richcompare / tuplerichcompare */
static bool
compare_seq(struct rt *rt, enum cmpop op, value a, value b, bool *res)
{
	size_t na = seq_len(a), nb = seq_len(b), i;
	bool eq;
	if (na != nb && (op == CMPOP_EQ || op == CMPOP_NOTEQ)) {
		*res = op == CMPOP_NOTEQ;
		return true;
	}
	if (rt->depth++ > (rt->limits.max_depth ? rt->limits.max_depth : 10000)) {
		rt->depth--;
		return rt_raise(rt, PYEXC_RecursionError,
		    "maximum recursion depth exceeded in comparison");
	}
	for (i = 0; i < na && i < nb; i++) {
		value x = seq_items(a)[i], y = seq_items(b)[i];
		if (value_is(x, y) && x.type != VT_FLOAT)
			continue;
		if (!compare_bool(rt, CMPOP_EQ, x, y, &eq)) {
			rt->depth--;
			return false;
		}
		if (!eq)
			break;
	}
	bool ok = true;
	if (i >= na || i >= nb)
		*res = cmpop_holds(op, (na > nb) - (na < nb));
	else if (op == CMPOP_EQ)
		*res = false;
	else if (op == CMPOP_NOTEQ)
		*res = true;
	else
		ok = compare_bool(rt, op, seq_items(a)[i], seq_items(b)[i], res);
	rt->depth--;
	return ok;
}

static bool
set_contains(struct rt *rt, value set, value key, bool *found)
{
	return value_dict_get(rt, set, key, NULL, found);
}

/* a <= b for sets */
static bool
set_issubset(struct rt *rt, value a, value b, bool *res)
{
	size_t i;
	*res = false;
	if (a.as.dict->len > b.as.dict->len)
		return true;
	for (i = 0; i < a.as.dict->used; i++) {
		bool found;
		if (!a.as.dict->entries[i].live)
			continue;
		if (!set_contains(rt, b, a.as.dict->entries[i].key, &found))
			return false;
		if (!found)
			return true;
	}
	*res = true;
	return true;
}

/* set_richcompare, for compare_bool (under its depth cap) */
static bool
compare_sets(struct rt *rt, enum cmpop op, value a, value b, bool *res)
{
	bool sub;
	size_t na = a.as.dict->len, nb = b.as.dict->len;
	switch (op) {
	case CMPOP_EQ:
	case CMPOP_NOTEQ:
		if (na != nb)
			sub = false;
		else if (!set_issubset(rt, a, b, &sub))
			return false;
		*res = op == CMPOP_EQ ? sub : !sub;
		return true;
	case CMPOP_LT:
	case CMPOP_LTE:
		if (!set_issubset(rt, a, b, &sub))
			return false;
		*res = sub && (op == CMPOP_LTE || na < nb);
		return true;
	default:
		if (!set_issubset(rt, b, a, &sub))
			return false;
		*res = sub && (op == CMPOP_GTE || na > nb);
		return true;
	}
}

/* dict_richcompare ==, !=, for compare_bool (under its depth cap) */
static bool
compare_dicts(struct rt *rt, enum cmpop op, value a, value b, bool *res)
{
	/* dict_equal: same size and every key maps to an equal value */
	size_t i;
	bool eq = a.as.dict->len == b.as.dict->len;
	for (i = 0; eq && i < a.as.dict->used; i++) {
		struct ventry *e = &a.as.dict->entries[i];
		value other;
		bool found;
		if (!e->live)
			continue;
		if (!value_dict_get(rt, b, e->key, &other, &found))
			return false;
		if (!found)
			eq = false;
		else if (!(value_is(e->val, other) &&
		    e->val.type != VT_FLOAT) &&
		    !compare_bool(rt, CMPOP_EQ, e->val, other, &eq))
			return false;
	}
	*res = op == CMPOP_EQ ? eq : !eq;
	return true;
}

/*
 * Sets and dicts hold containers too: a dict holding itself, or a
 * frozenset nested 100,000 deep, recursed here without a bound.  Counted
 * in rt->depth as compare_seq() does.
 */
static bool
compare_nested(struct rt *rt, enum cmpop op, value a, value b, bool *res,
    bool (*fn)(struct rt *, enum cmpop, value, value, bool *))
{
	bool ok;
	if (rt->depth++ > (rt->limits.max_depth ? rt->limits.max_depth : 10000)) {
		rt->depth--;
		return rt_raise(rt, PYEXC_RecursionError,
		    "maximum recursion depth exceeded in comparison");
	}
	ok = fn(rt, op, a, b, res);
	rt->depth--;
	return ok;
}

static bool
compare_bool(struct rt *rt, enum cmpop op, value a, value b, bool *res)
{
	bool is_set_a = a.type == VT_SET || a.type == VT_FROZENSET;
	bool is_set_b = b.type == VT_SET || b.type == VT_FROZENSET;

	if (NUM_IS_NUMBER(a) && NUM_IS_NUMBER(b))
		return num_compare(rt, op, a, b, res);
	if (a.type == b.type && (a.type == VT_STR || a.type == VT_BYTES)) {
		size_t n = a.as.s->len < b.as.s->len ? a.as.s->len : b.as.s->len;
		int c = memcmp(a.as.s->data, b.as.s->data, n);
		if (c == 0)
			c = (a.as.s->len > b.as.s->len) - (a.as.s->len < b.as.s->len);
		*res = cmpop_holds(op, c);
		return true;
	}
	if (a.type == b.type && (a.type == VT_LIST || a.type == VT_TUPLE))
		return compare_seq(rt, op, a, b, res);
	if (is_set_a && is_set_b)
		return compare_nested(rt, op, a, b, res, compare_sets);
	if (a.type == VT_DICT && b.type == VT_DICT &&
	    (op == CMPOP_EQ || op == CMPOP_NOTEQ))
		return compare_nested(rt, op, a, b, res, compare_dicts);
	if (op == CMPOP_EQ || op == CMPOP_NOTEQ) {
		/* unrelated types: identity */
		bool same = value_is(a, b);
		*res = op == CMPOP_EQ ? same : !same;
		return true;
	}
	return not_supported(rt, op, a, b);
}

/* item in container, as CPython's sq_contains of each type. */
struct in_ctx {
	value	item;
	bool	found;
};

/* Stops the iteration (by failing) once the item is found. */
static bool
in_step(struct rt *rt, value e, void *p)
{
	struct in_ctx *c = p;
	bool eq;
	if (!compare_bool(rt, CMPOP_EQ, e, c->item, &eq))
		return false;
	if (eq) {
		c->found = true;
		return false;
	}
	return true;
}

static bool
contains(struct rt *rt, value c, value item, bool *res)
{
	size_t i;
	*res = false;
	switch (c.type) {
	case VT_LIST:
	case VT_TUPLE:
		for (i = 0; i < seq_len(c); i++) {
			value e = seq_items(c)[i];
			bool eq;
			if (value_is(e, item) && e.type != VT_FLOAT) {
				*res = true;
				return true;
			}
			if (!compare_bool(rt, CMPOP_EQ, e, item, &eq))
				return false;
			if (eq) {
				*res = true;
				return true;
			}
		}
		return true;
	case VT_STR:
		if (item.type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError,
			    "'in <string>' requires string as left operand, "
			    "not %s",
			    value_type_name(item));
		*res = memmem(c.as.s->data, c.as.s->len, item.as.s->data,
		    item.as.s->len) != NULL;
		return true;
	case VT_BYTES:
		if (NUM_IS_INTLIKE(item)) {
			int64_t byte;
			if (!num_to_int64_clamped(item, &byte) || byte < 0 ||
			    byte > 255)
				return rt_raise(rt, PYEXC_ValueError,
				    "byte must be in range(0, 256)");
			*res = memchr(c.as.s->data, (int)byte, c.as.s->len) != NULL;
			return true;
		}
		if (item.type != VT_BYTES)
			return rt_raise(rt, PYEXC_TypeError,
			    "a bytes-like object is required, not '%s'",
			    value_type_name(item));
		*res = memmem(c.as.s->data, c.as.s->len, item.as.s->data,
		    item.as.s->len) != NULL;
		return true;
	case VT_SET:
	case VT_FROZENSET:
		/* set_contains: a set is looked up as the frozenset it equals */
		if (item.type == VT_SET)
			item.type = VT_FROZENSET;
		return value_dict_get(rt, c, item, NULL, res);
	case VT_DICT:
		return value_dict_get(rt, c, item, NULL, res);
	case VT_OBJECT: {
		/* ranges, generators, iterators: by iterating, as CPython's
		 * fallback does (a range answers ints without iterating) */
		struct in_ctx ic = { item, false };
		bool ok = value_iterate(rt, c, in_step, &ic);
		*res = ic.found;
		if (!ok && ic.found)
			return true;
		return ok;
	}
	default:
		return rt_raise(rt, PYEXC_TypeError,
		    "argument of type '%s' is not iterable",
		    value_type_name(c));
	}
}

bool
value_compare(struct rt *rt, enum cmpop op, value a, value b, value *out)
{
	bool res;
	switch (op) {
	case CMPOP_IS:
	case CMPOP_ISNOT:
		res = value_is(a, b) == (op == CMPOP_IS);
		break;
	case CMPOP_IN:
	case CMPOP_NOTIN:
		if (!contains(rt, b, a, &res))
			return false;
		res = res == (op == CMPOP_IN);
		break;
	default:
		if (!compare_bool(rt, op, a, b, &res))
			return false;
	}
	*out = value_bool(res);
	return true;
}

bool
value_eq(struct rt *rt, value a, value b, bool *out)
{
	return compare_bool(rt, CMPOP_EQ, a, b, out);
}
