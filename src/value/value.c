/*
 * value.c -- constructors, containers, repr and the non-numeric operations.
 *
 * Values are passed by value; payloads live in the arena handed to the
 * constructor (operations use rt->arena).  Numbers are num.c's: when both
 * operands of an operator are numbers value_binop() hands them over, and
 * repr/hash/compare call num.c for numeric values.  This file owns what
 * CPython's sequence, mapping and set types do: concatenation and
 * repetition with their exact TypeErrors, lexicographic comparison, the
 * insertion-ordered dict (entries[] plus an open-addressed index[]), repr
 * with CPython's quote choice, escapes and "[...]" for a container inside
 * itself, and the deep copy a store makes of a value it keeps.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "num.h"
#include "sbuf.h"
#include "strfmt.h"
#include "textesc.h"
#include "unicode.h"
#include "value.h"
#include "xalloc.h"

value
value_none(void)
{
	value v = { .type = VT_NONE };
	return v;
}

value
value_bool(bool b)
{
	value v = { .type = VT_BOOL, .as.b = b };
	return v;
}

value
value_int(int64_t i)
{
	value v = { .type = VT_INT, .as.i = i };
	return v;
}

static void
big_clear(void *p)
{
	mpz_clear(((struct vbig *)p)->z);
}

value
value_int_mpz(struct arena *a, const mpz_t z)
{
	value v;
	if (mpz_fits_slong_p(z))
		return value_int(mpz_get_si(z));
	v.type = VT_BIGINT;
	v.as.big = arena_alloc(a, sizeof *v.as.big);
	mpz_init_set(v.as.big->z, z);
	arena_on_free(a, big_clear, v.as.big);
	/* its limbs are GMP's heap memory, held as long as the arena */
	arena_charge(a, mpz_size(z) * sizeof(mp_limb_t));
	return v;
}

value
value_int_str(struct arena *a, const char *digits, int base)
{
	mpz_t z;
	value v;
	mpz_init(z);
	if (mpz_set_str(z, digits, base) != 0)
		mpz_set_ui(z, 0);
	v = value_int_mpz(a, z);
	mpz_clear(z);
	return v;
}

value
value_float(double f)
{
	value v = { .type = VT_FLOAT, .as.f = f };
	return v;
}

value
value_complex(struct arena *a, double re, double im)
{
	value v = { .type = VT_COMPLEX };
	v.as.c = arena_alloc(a, sizeof *v.as.c);
	v.as.c->re = re;
	v.as.c->im = im;
	return v;
}

/* Count vs's code points, once its data is written. */
static struct vstr *
vstr_finish(struct vstr *vs)
{
	size_t i, n = 0;
	bool ascii = true;

	for (i = 0; i < vs->len; i++) {
		unsigned char c = (unsigned char)vs->data[i];
		if (c >= 0x80)
			ascii = false;
		if ((c & 0xC0) != 0x80)
			n++;
	}
	vs->nchars = n;
	vs->is_ascii = ascii;
	return vs;
}

/* A vstr of len bytes for the caller to write (zeroed, so terminated). */
static struct vstr *
vstr_alloc(struct arena *a, size_t len)
{
	struct vstr *vs = arena_alloc(a, sizeof *vs + len + 1);
	vs->len = len;
	return vs;
}

static struct vstr *
new_vstr(struct arena *a, const char *s, size_t len)
{
	struct vstr *vs = vstr_alloc(a, len);
	memcpy(vs->data, s, len);
	return vstr_finish(vs);
}

value
value_str(struct arena *a, const char *s, size_t len)
{
	value v = { .type = VT_STR };
	v.as.s = new_vstr(a, s, len);
	return v;
}

value
value_cstr(struct arena *a, const char *s)
{
	return value_str(a, s, strlen(s));
}

value
value_bytes(struct arena *a, const char *s, size_t len)
{
	value v = { .type = VT_BYTES };
	v.as.s = new_vstr(a, s, len);
	v.as.s->nchars = len;
	return v;
}

value
value_str_alloc(struct arena *a, enum vtype type, size_t len, char **data)
{
	value v = { .type = type };
	v.as.s = vstr_alloc(a, len);
	*data = v.as.s->data;
	return v;
}

void
value_str_finish(value v)
{
	vstr_finish(v.as.s);
	if (v.type == VT_BYTES)
		v.as.s->nchars = v.as.s->len;
}

value
value_list(struct arena *a, size_t cap)
{
	value v = { .type = VT_LIST };
	v.as.list = arena_alloc(a, sizeof *v.as.list);
	v.as.list->cap = cap;
	if (cap != 0)
		v.as.list->items = arena_array(a, cap, sizeof(value));
	return v;
}

value
value_tuple(struct arena *a, size_t len)
{
	value v = { .type = VT_TUPLE };
	v.as.tuple = arena_alloc(a, sizeof *v.as.tuple);
	v.as.tuple->len = len;
	if (len != 0)
		v.as.tuple->items = arena_array(a, len, sizeof(value));
	return v;
}

value
value_ellipsis(void)
{
	value v = { .type = VT_ELLIPSIS };
	return v;
}

value
value_slice(struct arena *a, value start, value stop, value step)
{
	value v = { .type = VT_SLICE };
	v.as.slice = arena_alloc(a, sizeof *v.as.slice);
	v.as.slice->start = start;
	v.as.slice->stop = stop;
	v.as.slice->step = step;
	return v;
}

value
value_native(struct arena *a, const char *name, native_fn fn, value self,
    const void *data)
{
	value v = { .type = VT_NATIVE };
	v.as.native = arena_alloc(a, sizeof *v.as.native);
	v.as.native->name = name;
	v.as.native->fn = fn;
	v.as.native->self = self;
	v.as.native->data = data;
	return v;
}

void
value_list_append(struct arena *a, value list, value item)
{
	struct vlist *l = list.as.list;
	if (l->len == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 4;
		l->items = arena_grow(a, l->items, l->len, ncap, sizeof(value));
		l->cap = ncap;
	}
	l->items[l->len++] = item;
}

/* Add an item to the list or set at ctx, within the cap on its length. */
static bool
extend_step(struct rt *rt, value item, void *ctx)
{
	value *c = ctx;
	size_t len = c->type == VT_LIST ? c->as.list->len : c->as.dict->len;
	if (!rt_check_seq_len(rt, len + 1))
		return false;
	if (c->type != VT_LIST)
		return value_set_add(rt, *c, item);
	value_list_append(rt->arena, *c, item);
	return true;
}

bool
value_list_extend(struct rt *rt, value list, value iterable)
{
	return value_iterate(rt, iterable, extend_step, &list);
}

bool
value_set_update(struct rt *rt, value set, value iterable)
{
	return value_iterate(rt, iterable, extend_step, &set);
}

bool
value_collect(struct rt *rt, value iterable, value *list)
{
	*list = value_list(rt->arena, 8);
	return value_list_extend(rt, *list, iterable);
}

#define X_NAME(e, name) name,
static const char *const type_names[] = { VALUE_TYPES(X_NAME) };
#undef X_NAME

/* The slots of an object of the layers above (value.h); NULL for the
 * value layer's own types. */
static const struct value_slots *
slots_of(value v)
{
	if (v.type == VT_OBJECT)
		return ((const struct vhead *)(const void *)v.as.obj)->slots;
	if (v.type == VT_FUNCTION)
		return ((const struct vhead *)(const void *)v.as.func)->slots;
	return NULL;
}

const char *
value_type_name(value v)
{
	const struct value_slots *sl = slots_of(v);
	if (sl != NULL && sl->type_name != NULL)
		return sl->type_name(v);
	return (unsigned)v.type < VT__COUNT ? type_names[v.type] : "?";
}


value
value_dict(struct arena *a)
{
	value v = { .type = VT_DICT };
	v.as.dict = arena_alloc(a, sizeof *v.as.dict);
	return v;
}

value
value_set(struct arena *a)
{
	value v = { .type = VT_SET };
	v.as.dict = arena_alloc(a, sizeof *v.as.dict);
	return v;
}

/* ================================================================ */
/* dict and set: insertion-ordered entries, open-addressed index     */
/* ================================================================ */

/*
 * entries[] keeps insertion order; index[] maps a hash slot to an entry
 * number (-1 empty, -2 deleted) and is probed linearly.  The index is
 * rebuilt at twice the size when two thirds full, so a probe always ends.
 * Both arrays live in the arena the dict was made in, which the caller
 * passes as rt->arena (a store copies values in with value_copy()).
 */

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

static void
dict_reindex(struct arena *a, struct vdict *d, size_t nindex)
{
	size_t i, j = 0;
	/* compact the live entries, then index them */
	for (i = 0; i < d->used; i++)
		if (d->entries[i].live)
			d->entries[j++] = d->entries[i];
	d->used = j;
	d->nindex = nindex;
	d->index = arena_array(a, nindex, sizeof *d->index);
	memset(d->index, 0xff, nindex * sizeof *d->index);	/* all -1 */
	for (i = 0; i < d->used; i++) {
		size_t s = (size_t)d->entries[i].hash & (nindex - 1);
		while (d->index[s] != -1)
			s = (s + 1) & (nindex - 1);
		d->index[s] = (int64_t)i;
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
		dict_reindex(rt->arena, d, 8);
	if (!dict_lookup(rt, d, key, h, &e, &slot))
		return false;
	if (e >= 0) {
		d->entries[e].val = val;	/* the first key object stays */
		return true;
	}
	if (!rt_check_seq_len(rt, d->len + 1))
		return false;
	if ((d->used + 1) * 3 >= d->nindex * 2) {
		dict_reindex(rt->arena, d, d->len * 3 >= d->nindex ?
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

/* ================================================================ */
/* queries                                                           */
/* ================================================================ */

static size_t
seq_len(value v)
{
	switch (v.type) {
	case VT_LIST: return v.as.list->len;
	case VT_TUPLE: return v.as.tuple->len;
	default: return 0;
	}
}

static value *
seq_items(value v)
{
	return v.type == VT_LIST ? v.as.list->items : v.as.tuple->items;
}

bool
value_truthy(struct rt *rt, value v, bool *out)
{
	switch (v.type) {
	case VT_NONE: *out = false; break;
	case VT_BOOL: *out = v.as.b; break;
	case VT_INT: *out = v.as.i != 0; break;
	case VT_BIGINT: *out = true; break;
	case VT_FLOAT: *out = v.as.f != 0.0; break;
	case VT_COMPLEX: *out = v.as.c->re != 0.0 || v.as.c->im != 0.0; break;
	case VT_STR:
	case VT_BYTES: *out = v.as.s->len != 0; break;
	case VT_LIST:
	case VT_TUPLE: *out = seq_len(v) != 0; break;
	case VT_DICT:
	case VT_SET:
	case VT_FROZENSET: *out = v.as.dict->len != 0; break;
	default: *out = true; break;
	}
	return true;
}

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

bool
value_is(value a, value b)
{
	if (a.type != b.type)
		return false;
	switch (a.type) {
	case VT_NONE:
	case VT_ELLIPSIS: return true;
	case VT_BOOL: return a.as.b == b.as.b;
	/* CPython caches small ints; we treat every equal int64 as one */
	case VT_INT: return a.as.i == b.as.i;
	case VT_FLOAT: return memcmp(&a.as.f, &b.as.f, sizeof a.as.f) == 0;
	default: return a.as.obj == b.as.obj;
	}
}

/* ================================================================ */
/* repr                                                              */
/* ================================================================ */

void
value_float_repr(double f, struct sbuf *out)
{
	char buf[40];
	num_format_double(f, true, false, buf);
	sbuf_adds(out, buf);
}

void
value_str_repr(const struct vstr *s, bool is_bytes, struct sbuf *out)
{
	const unsigned char *d = (const unsigned char *)s->data;
	/* Python's choice: single quotes unless only ' occurs */
	char q = memchr(s->data, '\'', s->len) && !memchr(s->data, '"', s->len)
	    ? '"' : '\'';
	size_t i;
	if (!is_bytes) {
		/* the escapes every text sandboxrepl shows uses */
		textesc_repr(out, s->data, s->len);
		return;
	}
	sbuf_addc(out, 'b');
	sbuf_addc(out, q);
	for (i = 0; i < s->len; i++) {
		unsigned c = d[i];
		if (c == (unsigned char)q || c == '\\')
			sbuf_addf(out, "\\%c", (char)c);
		else if (c == '\n')
			sbuf_adds(out, "\\n");
		else if (c == '\t')
			sbuf_adds(out, "\\t");
		else if (c == '\r')
			sbuf_adds(out, "\\r");
		else if (c < 0x20 || c >= 0x7f)
			sbuf_addf(out, "\\x%02x", c);
		else
			sbuf_addc(out, (char)c);
	}
	sbuf_addc(out, q);
}

/*
 * The order CPython's set would list these entries in.  Our sets keep
 * insertion order, but a CPython set iterates its hash table, so {3, 1, 2}
 * prints as {1, 2, 3}.  Replaying the insertions into a model of 3.11's
 * table (setobject.c: 8 slots, 9 linear probes then perturbed jumps, grown
 * to four times the used count when three fifths full) gives that order.
 * It is exact for sets built by adding items one by one (a display of
 * computed items, set() of an iterable) whose hashes are CPython's
 * (numbers, tuples of them); str hashes are randomised per CPython process
 * anyway.  (CPython folds a display of constants into a frozenset at
 * compile time and copies that, which can order colliding items otherwise;
 * set algebra results are also laid out by copying.)  The caller frees.
 */
#define LINEAR_PROBES 9
#define PERTURB_SHIFT 5

static void
table_insert_clean(int64_t *table, uint64_t *hashes, size_t mask,
    int64_t entry, uint64_t hash)
{
	size_t perturb = hash, i = hash & mask, j;
	for (;;) {
		if (table[i] < 0)
			goto found;
		if (i + LINEAR_PROBES <= mask)
			for (j = 1; j <= LINEAR_PROBES; j++)
				if (table[i + j] < 0) {
					i += j;
					goto found;
				}
		perturb >>= PERTURB_SHIFT;
		i = (i * 5 + 1 + perturb) & mask;
	}
found:
	table[i] = entry;
	hashes[i] = hash;
}

static size_t *
set_order(const struct vdict *d, size_t *count)
{
	size_t mask = 7, used = 0, i, k;
	int64_t *table = xmalloc(8 * sizeof *table);
	uint64_t *hashes = xmalloc(8 * sizeof *hashes);
	size_t *order;

	memset(table, 0xff, 8 * sizeof *table);
	for (i = 0; i < d->used; i++) {
		if (!d->entries[i].live)
			continue;
		/* keys are distinct, so an insert always takes a free slot */
		table_insert_clean(table, hashes, mask, (int64_t)i,
		    d->entries[i].hash);
		used++;
		if (used * 5 >= mask * 3) {
			size_t minused = used > 50000 ? used * 2 : used * 4;
			size_t newsize = 8, old = mask + 1;
			int64_t *ot = table;
			uint64_t *oh = hashes;
			while (newsize <= minused)
				newsize <<= 1;
			table = xmalloc(newsize * sizeof *table);
			hashes = xmalloc(newsize * sizeof *hashes);
			memset(table, 0xff, newsize * sizeof *table);
			mask = newsize - 1;
			for (k = 0; k < old; k++)
				if (ot[k] >= 0)
					table_insert_clean(table, hashes, mask,
					    ot[k], oh[k]);
			free(ot);
			free(oh);
		}
	}
	order = xreallocarray(NULL, used ? used : 1, sizeof *order);
	for (i = 0, k = 0; i <= mask; i++)
		if (table[i] >= 0)
			order[k++] = (size_t)table[i];
	free(table);
	free(hashes);
	*count = used;
	return order;
}

/* Containers being printed, innermost first (CPython's Py_ReprEnter). */
struct repr_seen {
	const void		*p;
	const struct repr_seen	*up;
	unsigned		 depth;
};

static bool
repr_depth_ok(struct rt *rt, const struct repr_seen *seen)
{
	unsigned cap = rt->limits.max_depth ? rt->limits.max_depth : 10000;
	if (seen != NULL && seen->depth >= cap)
		return rt_raise(rt, PYEXC_RecursionError, "maximum recursion depth "
		    "exceeded while getting the repr of an object");
	return true;
}

static bool repr_rec(struct rt *rt, value v, struct sbuf *out,
    const struct repr_seen *seen);

static bool
repr_container(struct rt *rt, value v, struct sbuf *out,
    const struct repr_seen *seen)
{
	const struct repr_seen *s;
	struct repr_seen me;
	size_t i, n = 0;
	const void *p = v.as.obj;

	for (s = seen; s != NULL; s = s->up)
		if (s->p == p) {
			sbuf_adds(out, v.type == VT_LIST ? "[...]" :
			    v.type == VT_DICT ? "{...}" : "(...)");
			return true;
		}
	if (!repr_depth_ok(rt, seen))
		return false;
	me.p = p;
	me.up = seen;
	me.depth = seen ? seen->depth + 1 : 1;

	switch (v.type) {
	case VT_LIST:
	case VT_TUPLE:
		sbuf_addc(out, v.type == VT_LIST ? '[' : '(');
		for (i = 0; i < seq_len(v); i++) {
			if (i)
				sbuf_adds(out, ", ");
			if (!repr_rec(rt, seq_items(v)[i], out, &me))
				return false;
		}
		if (v.type == VT_TUPLE && seq_len(v) == 1)
			sbuf_addc(out, ',');
		sbuf_addc(out, v.type == VT_LIST ? ']' : ')');
		return true;
	case VT_DICT:
		sbuf_addc(out, '{');
		for (i = 0; i < v.as.dict->used; i++) {
			struct ventry *e = &v.as.dict->entries[i];
			if (!e->live)
				continue;
			if (n++)
				sbuf_adds(out, ", ");
			if (!repr_rec(rt, e->key, out, &me))
				return false;
			sbuf_adds(out, ": ");
			if (!repr_rec(rt, e->val, out, &me))
				return false;
		}
		sbuf_addc(out, '}');
		return true;
	default:	/* SET, FROZENSET */
		if (v.as.dict->len == 0) {
			sbuf_adds(out, v.type == VT_SET ? "set()" : "frozenset()");
			return true;
		}
		if (v.type == VT_FROZENSET)
			sbuf_adds(out, "frozenset(");
		sbuf_addc(out, '{');
		size_t count, *order = set_order(v.as.dict, &count);
		for (i = 0; i < count; i++) {
			if (i)
				sbuf_adds(out, ", ");
			if (!repr_rec(rt, v.as.dict->entries[order[i]].key, out,
			    &me)) {
				free(order);
				return false;
			}
		}
		free(order);
		sbuf_addc(out, '}');
		if (v.type == VT_FROZENSET)
			sbuf_addc(out, ')');
		return true;
	}
}

/*
 * At most how many bytes value_str_repr() writes for s: a byte of
 * printable ASCII is one (two with its backslash), a control byte four
 * (\x00), a byte of a non-ASCII character at most three (\ud800 for
 * three bytes, \U0001f600 for four), every byte of a bytes four.
 */
uint64_t
value_repr_bound(const char *s, size_t len, bool is_bytes)
{
	const unsigned char *p = (const unsigned char *)s;
	uint64_t n = 3;		/* quotes, and the b of bytes */
	size_t i;
	for (i = 0; i < len; i++)
		n += p[i] >= 0x20 && p[i] < 0x7f ? 2 - (p[i] != '\\' &&
		    p[i] != '\'' && p[i] != '"') : p[i] >= 0x80 && !is_bytes ?
		    3 : 4;
	return n;
}

static bool
repr_rec(struct rt *rt, value v, struct sbuf *out,
    const struct repr_seen *seen)
{
	char buf[40];
	/* A repr can be far larger than the value ([[1]*10**6]*10**6 holds
	 * one inner list): the string cap applies to what is written. */
	if (rt->limits.max_str_bytes != 0 &&
	    out->len > rt->limits.max_str_bytes)
		return rt_check_str_bytes(rt, out->len);
	switch (v.type) {
	case VT_NONE: sbuf_adds(out, "None"); return true;
	case VT_BOOL: sbuf_adds(out, v.as.b ? "True" : "False"); return true;
	case VT_INT:
	case VT_BIGINT:
		return num_int_repr(rt, v, out);
	case VT_FLOAT: value_float_repr(v.as.f, out); return true;
	case VT_COMPLEX:
		/* complex_repr: no parentheses for a pure imaginary with +0.0
		 * real part; the parts never get ".0" */
		if (v.as.c->re == 0.0 && !signbit(v.as.c->re)) {
			num_format_double(v.as.c->im, false, false, buf);
			sbuf_adds(out, buf);
			sbuf_addc(out, 'j');
			return true;
		}
		num_format_double(v.as.c->re, false, false, buf);
		sbuf_addc(out, '(');
		sbuf_adds(out, buf);
		num_format_double(v.as.c->im, false, true, buf);
		sbuf_adds(out, buf);
		sbuf_adds(out, "j)");
		return true;
	case VT_STR:
	case VT_BYTES:
		/* the repr of a big string is held too, as long as it is
		 * being written: asked for before */
		if (v.as.s->len > 4096 && !rt_check_bytes(rt, out->len +
		    value_repr_bound(v.as.s->data, v.as.s->len,
		    v.type == VT_BYTES)))
			return false;
		value_str_repr(v.as.s, v.type == VT_BYTES, out);
		return true;
	case VT_ELLIPSIS: sbuf_adds(out, "Ellipsis"); return true;
	case VT_LIST:
	case VT_TUPLE:
	case VT_DICT:
	case VT_SET:
	case VT_FROZENSET:
		return repr_container(rt, v, out, seen);
	case VT_SLICE:
		sbuf_adds(out, "slice(");
		if (!repr_rec(rt, v.as.slice->start, out, seen))
			return false;
		sbuf_adds(out, ", ");
		if (!repr_rec(rt, v.as.slice->stop, out, seen))
			return false;
		sbuf_adds(out, ", ");
		if (!repr_rec(rt, v.as.slice->step, out, seen))
			return false;
		sbuf_addc(out, ')');
		return true;
	case VT_NATIVE:
		if (v.as.native->self.type == VT_NONE)
			sbuf_addf(out, "<built-in function %s>",
			    v.as.native->name);
		else
			sbuf_addf(out, "<built-in method %s of %s object>",
			    v.as.native->name,
			    value_type_name(v.as.native->self));
		return true;
	case VT_OBJECT: case VT_FUNCTION: {
		const struct value_slots *sl = slots_of(v);
		const char *name;
		value items;
		if (sl->repr_items != NULL && sl->repr_items(v, &name,
		    &items)) {
			sbuf_addf(out, "%s(", name);
			if (!repr_rec(rt, items, out, seen))
				return false;
			sbuf_addc(out, ')');
			return true;
		}
		sl->repr(v, out);
		return true;
	}
	default:
		sbuf_addf(out, "<%s object>", value_type_name(v));
		return true;
	}
}

bool
value_repr(struct rt *rt, value v, struct sbuf *out)
{
	return repr_rec(rt, v, out, NULL);
}

bool
value_str_of(struct rt *rt, value v, struct sbuf *out)
{
	if (v.type == VT_STR) {
		sbuf_add(out, v.as.s->data, v.as.s->len);
		return true;
	}
	return value_repr(rt, v, out);
}

/* ================================================================ */
/* comparison                                                        */
/* ================================================================ */

#define X_SYM(e, name, sym) sym,
static const char *const cmp_syms[] = { CMPOPS(X_SYM) };
static const char *const bin_syms[] = { BINOPS(X_SYM) };
#undef X_SYM

static bool
not_supported(struct rt *rt, enum cmpop op, value a, value b)
{
	return rt_raise(rt, PYEXC_TypeError,
	    "'%s' not supported between instances of '%s' and '%s'",
	    cmp_syms[op], value_type_name(a), value_type_name(b));
}

static bool
three_way(enum cmpop op, int c)
{
	switch (op) {
	case CMPOP_EQ: return c == 0;
	case CMPOP_NOTEQ: return c != 0;
	case CMPOP_LT: return c < 0;
	case CMPOP_LTE: return c <= 0;
	case CMPOP_GT: return c > 0;
	default: return c >= 0;
	}
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
		*res = three_way(op, (na > nb) - (na < nb));
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
		*res = three_way(op, c);
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
			return rt_raise(rt, PYEXC_TypeError, "'in <string>' requires "
			    "string as left operand, not %s",
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
			return rt_raise(rt, PYEXC_TypeError, "a bytes-like object is "
			    "required, not '%s'", value_type_name(item));
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
		return rt_raise(rt, PYEXC_TypeError, "argument of type '%s' is not "
		    "iterable", value_type_name(c));
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

/* ================================================================ */
/* iteration                                                         */
/* ================================================================ */

bool
value_iterate(struct rt *rt, value it,
    bool (*fn)(struct rt *rt, value item, void *ctx), void *ctx)
{
	size_t i;
	switch (it.type) {
	case VT_LIST:
		/* re-read the length: fn may append to the list */
		for (i = 0; i < it.as.list->len; i++)
			if (!fn(rt, it.as.list->items[i], ctx))
				return false;
		return true;
	case VT_TUPLE:
		for (i = 0; i < it.as.tuple->len; i++)
			if (!fn(rt, it.as.tuple->items[i], ctx))
				return false;
		return true;
	case VT_STR: {
		const char *d = it.as.s->data;
		i = 0;
		while (i < it.as.s->len) {
			size_t j = i;
			unicode_next(d, it.as.s->len, &j);
			if (!fn(rt, value_str(rt->arena, d + i, j - i), ctx))
				return false;
			i = j;
		}
		return true;
	}
	case VT_BYTES:
		for (i = 0; i < it.as.s->len; i++)
			if (!fn(rt, value_int((unsigned char)it.as.s->data[i]),
			    ctx))
				return false;
		return true;
	case VT_SET:
	case VT_FROZENSET: {
		/* in CPython's order; the items are fixed before the first
		 * call, and a set changed meanwhile raises as CPython's does */
		struct vdict *d = it.as.dict;
		size_t count, *order = set_order(d, &count), len = d->len;
		for (i = 0; i < count; i++) {
			if (!fn(rt, d->entries[order[i]].key, ctx)) {
				free(order);
				return false;
			}
			if (d->len != len) {
				free(order);
				return rt_raise(rt, PYEXC_RuntimeError,
				    "Set changed size during iteration");
			}
		}
		free(order);
		return true;
	}
	case VT_DICT: {
		struct vdict *d = it.as.dict;
		size_t used = d->used, len = d->len;
		for (i = 0; i < d->used; i++) {
			if (!d->entries[i].live)
				continue;
			if (!fn(rt, d->entries[i].key, ctx))
				return false;
			if (d->used != used || d->len != len)
				return rt_raise(rt, PYEXC_RuntimeError, "dictionary "
				    "changed size during iteration");
		}
		return true;
	}
	default:
		if (value_is_iterable(it))
			return slots_of(it)->iterate(rt, it, fn, ctx);
		return rt_raise(rt, PYEXC_TypeError, "'%s' object is not iterable",
		    value_type_name(it));
	}
}

bool
value_is_iterable(value v)
{
	const struct value_slots *sl;
	switch (v.type) {
	case VT_STR: case VT_BYTES: case VT_LIST: case VT_TUPLE:
	case VT_DICT: case VT_SET: case VT_FROZENSET:
		return true;
	default:
		sl = slots_of(v);
		return sl != NULL && sl->iterable != NULL &&
		    sl->iterate != NULL && sl->iterable(v);
	}
}

bool
value_len(struct rt *rt, value v, int64_t *out)
{
	const struct value_slots *sl;
	switch (v.type) {
	case VT_STR:
	case VT_BYTES: *out = (int64_t)v.as.s->nchars; return true;
	case VT_LIST: *out = (int64_t)v.as.list->len; return true;
	case VT_TUPLE: *out = (int64_t)v.as.tuple->len; return true;
	case VT_DICT:
	case VT_SET:
	case VT_FROZENSET: *out = (int64_t)v.as.dict->len; return true;
	default:
		sl = slots_of(v);
		if (sl != NULL && sl->len != NULL)
			return sl->len(rt, v, out);
		return rt_raise(rt, PYEXC_TypeError,
		    "object of type '%s' has no len()", value_type_name(v));
	}
}

/* ================================================================ */
/* subscripts                                                        */
/* ================================================================ */

/* _PyEval_SliceIndex: an int clamped to the int64 range. */
static bool
slice_index(struct rt *rt, value v, int64_t *out)
{
	if (!NUM_IS_INTLIKE(v))
		return rt_raise(rt, PYEXC_TypeError, "slice indices must be integers "
		    "or None or have an __index__ method");
	num_to_int64_clamped(v, out);
	return true;
}

/* PySlice_Unpack + PySlice_AdjustIndices: start, step and item count. */
static bool
slice_indices(struct rt *rt, const struct vslice *sl, int64_t length,
    int64_t *start, int64_t *step, int64_t *count)
{
	int64_t stop;
	if (sl->step.type == VT_NONE)
		*step = 1;
	else {
		if (!slice_index(rt, sl->step, step))
			return false;
		if (*step == 0)
			return rt_raise(rt, PYEXC_ValueError,
			    "slice step cannot be zero");
		if (*step < -INT64_MAX)
			*step = -INT64_MAX;
	}
	if (sl->start.type == VT_NONE)
		*start = *step < 0 ? INT64_MAX : 0;
	else if (!slice_index(rt, sl->start, start))
		return false;
	if (sl->stop.type == VT_NONE)
		stop = *step < 0 ? INT64_MIN : INT64_MAX;
	else if (!slice_index(rt, sl->stop, &stop))
		return false;
	if (*start < 0) {
		*start += length;
		if (*start < 0)
			*start = *step < 0 ? -1 : 0;
	} else if (*start >= length)
		*start = *step < 0 ? length - 1 : length;
	if (stop < 0) {
		stop += length;
		if (stop < 0)
			stop = *step < 0 ? -1 : 0;
	} else if (stop >= length)
		stop = *step < 0 ? length - 1 : length;
	*count = 0;
	if (*step < 0) {
		if (stop < *start)
			*count = (*start - stop - 1) / (-*step) + 1;
	} else if (*start < stop)
		*count = (stop - *start - 1) / *step + 1;
	return true;
}

/* Byte offsets of every code point of s (and of its end), for indexing a
 * non-ASCII str. */
static size_t *
char_offsets(struct rt *rt, const struct vstr *s)
{
	size_t *off = arena_array(rt->arena, s->nchars + 1, sizeof *off);
	size_t i, k = 0;
	for (i = 0; i < s->len; i++)
		if (((unsigned char)s->data[i] & 0xC0) != 0x80)
			off[k++] = i;
	off[k] = s->len;
	return off;
}

bool
value_getitem(struct rt *rt, value c, value key, value *out)
{
	int64_t len, i, start = 0, step = 1, count = 0, k;
	const char *what;

	switch (c.type) {
	case VT_DICT: {
		bool found;
		if (!value_dict_get(rt, c, key, out, &found))
			return false;
		if (!found) {
			struct sbuf r = SBUF_INIT;
			bool ok = value_repr(rt, key, &r);
			if (ok)
				rt_raise(rt, PYEXC_KeyError, "%s", sbuf_cstr(&r));
			sbuf_free(&r);
			return false;
		}
		return true;
	}
	case VT_LIST: what = "list"; len = (int64_t)c.as.list->len; break;
	case VT_TUPLE: what = "tuple"; len = (int64_t)c.as.tuple->len; break;
	case VT_STR: what = "string"; len = (int64_t)c.as.s->nchars; break;
	case VT_BYTES: what = "byte"; len = (int64_t)c.as.s->len; break;
	default:
		return rt_raise(rt, PYEXC_TypeError, "'%s' object is not "
		    "subscriptable", value_type_name(c));
	}

	if (key.type == VT_SLICE) {
		if (!slice_indices(rt, key.as.slice, len, &start, &step, &count))
			return false;
		if (c.type == VT_STR || c.type == VT_BYTES) {
			struct sbuf b = SBUF_INIT;
			bool wide = c.type == VT_STR && !c.as.s->is_ascii;
			uint64_t most = wide ? 4 * (uint64_t)count :
			    (uint64_t)count;
			const size_t *off;
			/* held: the buffer, the value, a non-ASCII string's
			 * offsets */
			if (most > c.as.s->len)
				most = c.as.s->len;
			if (!rt_check_bytes(rt, 2 * most + (wide ? 8 *
			    ((uint64_t)c.as.s->nchars + 1) : 0)))
				return false;
			off = wide ? char_offsets(rt, c.as.s) : NULL;
			/* (start + k * step: stepping past the last item could
			 * overflow when the step is huge) */
			for (k = 0; k < count; k++) {
				i = start + k * step;
				size_t from = off ? off[i] : (size_t)i;
				size_t to = off ? off[i + 1] : (size_t)i + 1;
				sbuf_add(&b, c.as.s->data + from, to - from);
			}
			*out = c.type == VT_STR ?
			    value_str(rt->arena, sbuf_cstr(&b), b.len) :
			    value_bytes(rt->arena, sbuf_cstr(&b), b.len);
			sbuf_free(&b);
			return true;
		}
		if (!rt_check_seq_len(rt, (uint64_t)count))
			return false;
		value r = c.type == VT_LIST ? value_list(rt->arena, (size_t)count) :
		    value_tuple(rt->arena, (size_t)count);
		for (k = 0; k < count; k++)
			seq_items(r)[k] = seq_items(c)[start + k * step];
		if (r.type == VT_LIST)
			r.as.list->len = (size_t)count;
		*out = r;
		return true;
	}

	if (!NUM_IS_INTLIKE(key)) {
		if (c.type == VT_STR)
			return rt_raise(rt, PYEXC_TypeError, "string indices must be "
			    "integers, not '%s'", value_type_name(key));
		return rt_raise(rt, PYEXC_TypeError, "%s indices must be integers "
		    "or slices, not %s", what, value_type_name(key));
	}
	if (!num_to_int64_clamped(key, &i))
		return rt_raise(rt, PYEXC_IndexError,
		    "cannot fit 'int' into an index-sized integer");
	if (i < 0)
		i += len;
	if (i < 0 || i >= len) {
		if (c.type == VT_BYTES)
			return rt_raise(rt, PYEXC_IndexError, "index out of range");
		return rt_raise(rt, PYEXC_IndexError, "%s index out of range", what);
	}
	switch (c.type) {
	case VT_LIST:
	case VT_TUPLE:
		*out = seq_items(c)[i];
		return true;
	case VT_BYTES:
		*out = value_int((unsigned char)c.as.s->data[i]);
		return true;
	default:
		if (c.as.s->is_ascii)
			*out = value_str(rt->arena, c.as.s->data + i, 1);
		else {
			const size_t *off = char_offsets(rt, c.as.s);
			*out = value_str(rt->arena, c.as.s->data + off[i],
			    off[i + 1] - off[i]);
		}
		return true;
	}
}

/* ================================================================ */
/* copying between arenas                                            */
/* ================================================================ */

/* old payload pointer -> its copy, open-addressed, on the heap */
struct copy_map {
	const void	**keys;
	value		 *vals;
	size_t		  n, cap;
	bool		  keep_own;	/* what is in dst stays there */
};

static value *
map_find(struct copy_map *m, const void *p, bool *fresh)
{
	size_t i;
	if ((m->n + 1) * 2 > m->cap) {
		struct copy_map big = { NULL, NULL, 0, m->cap ? m->cap * 2 : 64,
		    m->keep_own };
		big.keys = xcalloc(big.cap, sizeof *big.keys);
		big.vals = xcalloc(big.cap, sizeof *big.vals);
		for (i = 0; i < m->cap; i++) {
			bool f;
			if (m->keys[i] != NULL)
				*map_find(&big, m->keys[i], &f) = m->vals[i];
		}
		free(m->keys);
		free(m->vals);
		*m = big;
	}
	i = ((uintptr_t)p >> 4) * 11400714819323198485ULL >> 20;
	for (i &= m->cap - 1; m->keys[i] != NULL; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == p) {
			*fresh = false;
			return &m->vals[i];
		}
	m->keys[i] = p;
	m->n++;
	*fresh = true;
	return &m->vals[i];
}

/*
 * Copying is iterative: a container's copy is made empty first (and put in
 * the map, so a cycle or a shared part finds it), and filling it is a task
 * on an explicit stack.  A list nested 100,000 deep copies without
 * touching the C stack.
 */
struct copy_task {
	value	src, dst;
};

struct copy_work {
	struct copy_task *t;
	size_t		  n, cap;
};

static void
push_task(struct copy_work *w, value src, value dst)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		w->t = xreallocarray(w->t, w->cap, sizeof *w->t);
	}
	w->t[w->n].src = src;
	w->t[w->n].dst = dst;
	w->n++;
}

/* The copy of v: made now for leaves, made empty (to be filled by a task)
 * for containers. */
static value
copy_one(struct arena *dst, value v, struct copy_map *m, struct copy_work *w)
{
	value c = v, *slot;
	bool fresh;
	size_t i;

	switch (v.type) {
	case VT_BIGINT: case VT_COMPLEX: case VT_STR: case VT_BYTES:
	case VT_LIST: case VT_TUPLE: case VT_DICT: case VT_SET:
	case VT_FROZENSET: case VT_SLICE: case VT_NATIVE:
		break;
	default:
		/* immediates; functions and objects belong to their owner */
		return v;
	}
	if (m->keep_own && arena_owns(dst, v.as.obj))
		return v;	/* already there, with all it reaches */
	slot = map_find(m, v.as.obj, &fresh);
	if (!fresh)
		return *slot;
	switch (v.type) {
	case VT_BIGINT:
		c = value_int_mpz(dst, v.as.big->z);
		break;
	case VT_COMPLEX:
		c = value_complex(dst, v.as.c->re, v.as.c->im);
		break;
	case VT_STR:
	case VT_BYTES:
		c.as.s = arena_alloc(dst, sizeof *c.as.s + v.as.s->len + 1);
		memcpy(c.as.s, v.as.s, sizeof *c.as.s + v.as.s->len + 1);
		break;
	case VT_LIST:
		c = value_list(dst, v.as.list->len);
		c.as.list->len = v.as.list->len;
		push_task(w, v, c);
		break;
	case VT_TUPLE:
		c = value_tuple(dst, v.as.tuple->len);
		push_task(w, v, c);
		break;
	case VT_DICT:
	case VT_SET:
	case VT_FROZENSET: {
		struct vdict *od = v.as.dict, *nd;
		c.as.dict = nd = arena_alloc(dst, sizeof *nd);
		/* same hashes, same order: the live entries (keys and values
		 * still the originals until the task), a new index */
		nd->cap = od->len;
		if (nd->cap)
			nd->entries = arena_array(dst, nd->cap,
			    sizeof *nd->entries);
		for (i = 0; i < od->used; i++)
			if (od->entries[i].live)
				nd->entries[nd->used++] = od->entries[i];
		nd->len = nd->used;
		if (nd->len) {
			size_t n = 8;
			while (n * 2 <= nd->len * 3)
				n *= 2;
			dict_reindex(dst, nd, n);
		}
		push_task(w, v, c);
		break;
	}
	case VT_SLICE:
		c.as.slice = arena_alloc(dst, sizeof *c.as.slice);
		*c.as.slice = *v.as.slice;
		push_task(w, v, c);
		break;
	case VT_NATIVE:
		c.as.native = arena_alloc(dst, sizeof *c.as.native);
		*c.as.native = *v.as.native;
		push_task(w, v, c);
		break;
	default:
		break;
	}
	*slot = c;	/* (slot is still valid: nothing grew the map since) */
	return c;
}

/*
 * Copy n values into dst as one graph: an object that two of them reach
 * (x and y bound to the same list) is copied once, so they still share
 * it afterwards, as they would in Python.
 */
static void
copy_graph(struct arena *dst, value *vs, size_t n, bool keep_own)
{
	struct copy_map m = { NULL, NULL, 0, 0, keep_own };
	struct copy_work w = { NULL, 0, 0 };
	size_t i, k;

	for (k = 0; k < n; k++) {
		vs[k] = copy_one(dst, vs[k], &m, &w);
		while (w.n > 0) {
			struct copy_task t = w.t[--w.n];
			switch (t.dst.type) {
			case VT_LIST:
				for (i = 0; i < t.dst.as.list->len; i++)
					t.dst.as.list->items[i] = copy_one(dst,
					    t.src.as.list->items[i], &m, &w);
				break;
			case VT_TUPLE:
				for (i = 0; i < t.dst.as.tuple->len; i++)
					t.dst.as.tuple->items[i] = copy_one(dst,
					    t.src.as.tuple->items[i], &m, &w);
				break;
			case VT_DICT: case VT_SET: case VT_FROZENSET:
				for (i = 0; i < t.dst.as.dict->used; i++) {
					struct ventry *e =
					    &t.dst.as.dict->entries[i];
					e->key = copy_one(dst, e->key, &m, &w);
					e->val = copy_one(dst, e->val, &m, &w);
				}
				break;
			case VT_SLICE:
				t.dst.as.slice->start = copy_one(dst,
				    t.src.as.slice->start, &m, &w);
				t.dst.as.slice->stop = copy_one(dst,
				    t.src.as.slice->stop, &m, &w);
				t.dst.as.slice->step = copy_one(dst,
				    t.src.as.slice->step, &m, &w);
				break;
			case VT_NATIVE:
				t.dst.as.native->self = copy_one(dst,
				    t.src.as.native->self, &m, &w);
				break;
			default:
				break;
			}
		}
	}
	free(w.t);
	free(m.keys);
	free(m.vals);
}

void
value_copy_many(struct arena *dst, value *vs, size_t n)
{
	copy_graph(dst, vs, n, false);
}

void
value_copy_new(struct arena *dst, value *vs, size_t n)
{
	copy_graph(dst, vs, n, true);
}

/* An arena allocation of n bytes, as arena_alloc() rounds it. */
static size_t
rounded(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

size_t
value_size_many(const value *vs, size_t n)
{
	struct copy_map m = { NULL, NULL, 0, 0, false };
	struct copy_work w = { NULL, 0, 0 };
	size_t i, k, size = 0;
	bool fresh;

	for (k = 0; k < n; k++)
		push_task(&w, vs[k], vs[k]);
	while (w.n > 0) {
		value v = w.t[--w.n].src;
		switch (v.type) {
		case VT_BIGINT: case VT_COMPLEX: case VT_STR: case VT_BYTES:
		case VT_LIST: case VT_TUPLE: case VT_DICT: case VT_SET:
		case VT_FROZENSET: case VT_SLICE: case VT_NATIVE:
			break;
		default:
			continue;
		}
		(void)map_find(&m, v.as.obj, &fresh);
		if (!fresh)
			continue;
		switch (v.type) {
		case VT_BIGINT:
			size += rounded(sizeof *v.as.big) +
			    mpz_size(v.as.big->z) * sizeof(mp_limb_t);
			break;
		case VT_COMPLEX:
			size += rounded(sizeof *v.as.c);
			break;
		case VT_STR: case VT_BYTES:
			size += rounded(sizeof *v.as.s + v.as.s->len + 1);
			break;
		case VT_LIST:
			size += rounded(sizeof *v.as.list) +
			    rounded(v.as.list->len * sizeof(value));
			for (i = 0; i < v.as.list->len; i++)
				push_task(&w, v.as.list->items[i], v);
			break;
		case VT_TUPLE:
			size += rounded(sizeof *v.as.tuple) +
			    rounded(v.as.tuple->len * sizeof(value));
			for (i = 0; i < v.as.tuple->len; i++)
				push_task(&w, v.as.tuple->items[i], v);
			break;
		case VT_SLICE:
			size += rounded(sizeof *v.as.slice);
			push_task(&w, v.as.slice->start, v);
			push_task(&w, v.as.slice->stop, v);
			push_task(&w, v.as.slice->step, v);
			break;
		case VT_NATIVE:
			size += rounded(sizeof *v.as.native);
			push_task(&w, v.as.native->self, v);
			break;
		default: {	/* DICT, SET, FROZENSET */
			const struct vdict *d = v.as.dict;
			size_t nindex = 8;
			while (nindex * 2 <= d->len * 3)
				nindex *= 2;
			size += rounded(sizeof *d) +
			    rounded(d->len * sizeof *d->entries) +
			    (d->len ? rounded(nindex * sizeof *d->index) : 0);
			for (i = 0; i < d->used; i++)
				if (d->entries[i].live) {
					push_task(&w, d->entries[i].key, v);
					push_task(&w, d->entries[i].val, v);
				}
			break;
		}
		}
	}
	free(w.t);
	free(m.keys);
	free(m.vals);
	return size;
}

value
value_copy(struct arena *dst, value v)
{
	value_copy_many(dst, &v, 1);
	return v;
}

/* ================================================================ */
/* operators on non-numbers                                          */
/* ================================================================ */

static bool
is_sequence(value v)
{
	return v.type == VT_STR || v.type == VT_BYTES || v.type == VT_LIST ||
	    v.type == VT_TUPLE;
}

static bool
binop_unsupported(struct rt *rt, enum binop op, value a, value b)
{
	return rt_raise(rt, PYEXC_TypeError,
	    "unsupported operand type(s) for %s: '%s' and '%s'",
	    op == BINOP_POW ? "** or pow()" : bin_syms[op], value_type_name(a),
	    value_type_name(b));
}

/* Past this no allocation is tried even with no cap set: CPython's
 * allocation would fail with MemoryError, ours would end the program. */
#define HARD_SEQ_BYTES ((uint64_t)1 << 40)

/* sq_concat of str, bytes, list, tuple: a is the sequence. */
static bool
concat(struct rt *rt, value a, value b, value *out)
{
	if (a.type != b.type) {
		if (a.type == VT_BYTES)
			return rt_raise(rt, PYEXC_TypeError, "can't concat %s to %s",
			    value_type_name(b), value_type_name(a));
		return rt_raise(rt, PYEXC_TypeError,
		    "can only concatenate %s (not \"%s\") to %s",
		    value_type_name(a), value_type_name(b), value_type_name(a));
	}
	if (a.type == VT_STR || a.type == VT_BYTES) {
		size_t n = a.as.s->len + b.as.s->len;
		if (!rt_check_str_bytes(rt, n))
			return false;
		/* written in place: a copy through a buffer would hold the
		 * result twice */
		struct vstr *vs = vstr_alloc(rt->arena, n);
		memcpy(vs->data, a.as.s->data, a.as.s->len);
		memcpy(vs->data + a.as.s->len, b.as.s->data, b.as.s->len);
		out->type = a.type;
		out->as.s = vstr_finish(vs);
		if (a.type == VT_BYTES)
			vs->nchars = n;
		return true;
	}
	size_t na = seq_len(a), nb = seq_len(b);
	if (!rt_check_seq_len(rt, (uint64_t)na + nb))
		return false;
	value r = a.type == VT_LIST ? value_list(rt->arena, na + nb) :
	    value_tuple(rt->arena, na + nb);
	value *items = seq_items(r);
	if (na)
		memcpy(items, seq_items(a), na * sizeof(value));
	if (nb)
		memcpy(items + na, seq_items(b), nb * sizeof(value));
	if (r.type == VT_LIST)
		r.as.list->len = na + nb;
	*out = r;
	return true;
}

/* sequence_repeat: seq * n (n must be an int). */
static bool
repeat(struct rt *rt, value seq, value n, value *out)
{
	int64_t count;
	size_t unit, i;
	if (!NUM_IS_INTLIKE(n))
		return rt_raise(rt, PYEXC_TypeError,
		    "can't multiply sequence by non-int of type '%s'",
		    value_type_name(n));
	if (!num_to_int64_clamped(n, &count))
		return rt_raise(rt, PYEXC_OverflowError,
		    "cannot fit 'int' into an index-sized integer");
	if (count < 0)
		count = 0;
	/* an empty sequence repeats to nothing, however large the count */
	if ((seq.type == VT_STR || seq.type == VT_BYTES ? seq.as.s->len :
	    seq_len(seq)) == 0)
		count = 0;
	if (seq.type == VT_STR || seq.type == VT_BYTES) {
		unit = seq.as.s->len;
		uint64_t total;
		if (__builtin_mul_overflow((uint64_t)unit, (uint64_t)count,
		    &total) || total > (uint64_t)INT64_MAX)
			return rt_raise(rt, PYEXC_OverflowError, "%s",
			    seq.type == VT_STR ? "repeated string is too long" :
			    "repeated bytes are too long");
		if (!rt_check_str_bytes(rt, total))
			return false;
		if (total > HARD_SEQ_BYTES)
			return rt_raise(rt, PYEXC_MemoryError, "%s", "");
		struct vstr *vs = vstr_alloc(rt->arena, (size_t)total);
		for (i = 0; i < (size_t)count; i++)
			memcpy(vs->data + i * unit, seq.as.s->data, unit);
		/* the counts are the unit's, times count */
		vs->nchars = seq.as.s->nchars * (size_t)count;
		vs->is_ascii = seq.as.s->is_ascii;
		out->type = seq.type;
		out->as.s = vs;
		return true;
	}
	unit = seq_len(seq);
	uint64_t total;
	if (__builtin_mul_overflow((uint64_t)unit, (uint64_t)count, &total) ||
	    total > (uint64_t)INT64_MAX / sizeof(value))
		return rt_raise(rt, PYEXC_MemoryError, "%s", "");
	if (!rt_check_seq_len(rt, total))
		return false;
	if (total > HARD_SEQ_BYTES / sizeof(value))
		return rt_raise(rt, PYEXC_MemoryError, "%s", "");
	value r = seq.type == VT_LIST ? value_list(rt->arena, (size_t)total) :
	    value_tuple(rt->arena, (size_t)total);
	for (i = 0; i < (size_t)count; i++)
		memcpy(seq_items(r) + i * unit, seq_items(seq),
		    unit * sizeof(value));
	if (r.type == VT_LIST)
		r.as.list->len = (size_t)total;
	*out = r;
	return true;
}

/* set | & - ^ and dict | dict */
static bool
set_binop(struct rt *rt, enum binop op, value a, value b, value *out)
{
	value r = a.type == VT_DICT ? value_dict(rt->arena) :
	    value_set(rt->arena);
	size_t i;
	r.type = a.type;
	if (op == BINOP_BITOR || a.type == VT_DICT) {
		for (i = 0; i < a.as.dict->used; i++)
			if (a.as.dict->entries[i].live &&
			    !dict_insert(rt, r, a.as.dict->entries[i].key,
			    a.as.dict->entries[i].val))
				return false;
		for (i = 0; i < b.as.dict->used; i++)
			if (b.as.dict->entries[i].live &&
			    !dict_insert(rt, r, b.as.dict->entries[i].key,
			    b.as.dict->entries[i].val))
				return false;
		*out = r;
		return true;
	}
	/* & and - keep a's items by membership in b; ^ adds b's not in a */
	for (i = 0; i < a.as.dict->used; i++) {
		bool found;
		if (!a.as.dict->entries[i].live)
			continue;
		if (!set_contains(rt, b, a.as.dict->entries[i].key, &found))
			return false;
		if ((op == BINOP_BITAND) == found &&
		    !value_set_add(rt, r, a.as.dict->entries[i].key))
			return false;
	}
	if (op == BINOP_BITXOR)
		for (i = 0; i < b.as.dict->used; i++) {
			bool found;
			if (!b.as.dict->entries[i].live)
				continue;
			if (!set_contains(rt, a, b.as.dict->entries[i].key, &found))
				return false;
			if (!found && !value_set_add(rt, r,
			    b.as.dict->entries[i].key))
				return false;
		}
	*out = r;
	return true;
}

bool
value_binop(struct rt *rt, enum binop op, value a, value b, value *out)
{
	/* two small ints whose sum, difference or product fits: what
	 * num_binop() would make, without the way through it */
	if (a.type == VT_INT && b.type == VT_INT) {
		int64_t r;
		bool overflow = true;
		switch (op) {
		case BINOP_ADD:
			overflow = __builtin_add_overflow(a.as.i, b.as.i, &r);
			break;
		case BINOP_SUB:
			overflow = __builtin_sub_overflow(a.as.i, b.as.i, &r);
			break;
		case BINOP_MULT:
			overflow = __builtin_mul_overflow(a.as.i, b.as.i, &r);
			break;
		default:
			break;
		}
		if (!overflow) {
			*out = value_int(r);
			return true;
		}
	}
	/* a float and a float or small int under + - * /: what
	 * float_binop() computes ((double) of the int, then the IEEE
	 * operation); a division by zero goes on for its error */
	if ((a.type == VT_FLOAT || b.type == VT_FLOAT) &&
	    (a.type == VT_FLOAT || a.type == VT_INT) &&
	    (b.type == VT_FLOAT || b.type == VT_INT)) {
		double x = a.type == VT_FLOAT ? a.as.f : (double)a.as.i;
		double y = b.type == VT_FLOAT ? b.as.f : (double)b.as.i;
		switch (op) {
		case BINOP_ADD: *out = value_float(x + y); return true;
		case BINOP_SUB: *out = value_float(x - y); return true;
		case BINOP_MULT: *out = value_float(x * y); return true;
		case BINOP_DIV:
			if (y != 0.0) {
				*out = value_float(x / y);
				return true;
			}
			break;
		default:
			break;
		}
	}
	if (NUM_IS_NUMBER(a) && NUM_IS_NUMBER(b))
		return num_binop(rt, op, a, b, out);
	switch (op) {
	case BINOP_ADD:
		if (is_sequence(a))
			return concat(rt, a, b, out);
		break;
	case BINOP_MULT:
		if (is_sequence(a))
			return repeat(rt, a, b, out);
		if (is_sequence(b))
			return repeat(rt, b, a, out);
		break;
	case BINOP_MOD:
		if (a.type == VT_STR || a.type == VT_BYTES)
			return strfmt_percent(rt, a, b, out);
		break;
	case BINOP_BITOR:
		if (a.type == VT_DICT && b.type == VT_DICT)
			return set_binop(rt, op, a, b, out);
		/* FALLTHROUGH */
	case BINOP_BITAND:
	case BINOP_BITXOR:
	case BINOP_SUB:
		if ((a.type == VT_SET || a.type == VT_FROZENSET) &&
		    (b.type == VT_SET || b.type == VT_FROZENSET))
			return set_binop(rt, op, a, b, out);
		break;
	default:
		break;
	}
	return binop_unsupported(rt, op, a, b);
}

bool
value_unaryop(struct rt *rt, enum unaryop op, value a, value *out)
{
	bool t;
	if (op == UNARYOP_NOT) {
		if (!value_truthy(rt, a, &t))
			return false;
		*out = value_bool(!t);
		return true;
	}
	return num_unaryop(rt, op, a, out);
}

/* ---- what a value keeps pointing into ---- */

/*
 * Does v hold something value_copy() shares instead of copying (a lambda,
 * a mock object)?  Such values keep pointing into the arena of the input
 * that made them, so that arena must outlive the input.
 *
 * The walk is iterative, over each container once (a set of those seen),
 * so that a list 10,000 deep or one that holds itself twice is answered
 * exactly: a wrong "yes" keeps an input's arenas for the whole session,
 * and the session's memory cap counts them.  Past WALK_BUDGET containers
 * it answers yes (the safe answer).
 */
#define WALK_BUDGET (4u << 20)

struct walk {
	value		*stack;
	size_t		 n, cap;
	const void	**seen;		/* open addressing, NULL: empty */
	size_t		 nseen, capseen;	/* capseen a power of two */
};

/* Has p been seen?  Marks it seen. */
static bool
walk_seen(struct walk *w, const void *p)
{
	size_t i, mask;
	if (2 * (w->nseen + 1) > w->capseen) {
		const void **old = w->seen;
		size_t oldcap = w->capseen;
		w->capseen = oldcap ? 2 * oldcap : 64;
		w->seen = xcalloc(w->capseen, sizeof *w->seen);
		w->nseen = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i] != NULL)
				(void)walk_seen(w, old[i]);
		free(old);
	}
	mask = w->capseen - 1;
	for (i = ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15u & mask;
	    w->seen[i] != NULL; i = (i + 1) & mask)
		if (w->seen[i] == p)
			return true;
	w->seen[i] = p;
	w->nseen++;
	return false;
}

static void
walk_push(struct walk *w, value v)
{
	switch (v.type) {
	case VT_FUNCTION: case VT_OBJECT: case VT_NATIVE: case VT_LIST:
	case VT_TUPLE: case VT_DICT: case VT_SET: case VT_FROZENSET:
		break;
	default:
		return;		/* holds nothing */
	}
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->stack = xreallocarray(w->stack, w->cap, sizeof *w->stack);
	}
	w->stack[w->n++] = v;
}

bool
value_holds_shared(value v)
{
	struct walk w = { 0 };
	bool shared = false;
	size_t i;

	walk_push(&w, v);
	while (w.n > 0 && !shared) {
		v = w.stack[--w.n];
		if (v.type == VT_FUNCTION)
			shared = true;
		else if (v.type == VT_OBJECT)
			shared = slots_of(v)->in_arena(v);
		else if (walk_seen(&w, v.as.obj))
			continue;
		else if (w.nseen > WALK_BUDGET)
			shared = true;		/* too big to tell */
		else if (v.type == VT_NATIVE)
			walk_push(&w, v.as.native->self);
		else if (v.type == VT_LIST)
			for (i = 0; i < v.as.list->len; i++)
				walk_push(&w, v.as.list->items[i]);
		else if (v.type == VT_TUPLE)
			for (i = 0; i < v.as.tuple->len; i++)
				walk_push(&w, v.as.tuple->items[i]);
		else
			for (i = 0; i < v.as.dict->used; i++) {
				const struct ventry *e = &v.as.dict->entries[i];
				if (e->live) {
					walk_push(&w, e->key);
					walk_push(&w, e->val);
				}
			}
	}
	free(w.stack);
	free(w.seen);
	return shared;
}
