/*
 * value.c -- values themselves: making them, holding them, walking them.
 *
 * The bottom of the value layer: it needs nothing above it (not num.c,
 * not the operators), so every other file of src/value/ can build on it.
 * Values are passed by value; payloads live in the arena handed to the
 * constructor (operations use rt->arena).  This file owns the
 * constructors and type names, the storage of str/bytes, lists, tuples
 * and the dict/set table's index (compare.c looks keys up in it), truth,
 * identity, len and iteration (in CPython's order for a set), the deep
 * copy a store makes of a value it keeps, and the question whether a
 * value points into the arena of the input that made it.
 *
 * The rest of the layer, each file needing only the ones before it:
 * num.c (numbers), compare.c (hash, ==, <, in, and dict/set lookup),
 * repr.c (repr and str), format.c and strfmt.c (format() and '%'), and
 * operator.c (the operators and subscripts that dispatch to all of them).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/unicode.h"
#include "value.h"
#include "value_internal.h"
#include "base/xalloc.h"

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

/* Append an item to the list at ctx, within the cap on its length. */
static bool
extend_step(struct rt *rt, value item, void *ctx)
{
	value *list = ctx;
	if (!rt_check_seq_len(rt, list->as.list->len + 1))
		return false;
	value_list_append(rt->arena, *list, item);
	return true;
}

bool
value_list_extend(struct rt *rt, value list, value iterable)
{
	return value_iterate(rt, iterable, extend_step, &list);
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

/*
 * The dict/set table (compare.c looks keys up and inserts):
 * entries[] keeps insertion order; index[] maps a hash slot to an entry
 * number (-1 empty, -2 deleted) and is probed linearly.  The index is
 * rebuilt at twice the size when two thirds full, so a probe always ends.
 * Both arrays live in the arena the dict was made in, which the caller
 * passes as rt->arena (a store copies values in with value_copy()).
 */
void
value_dict_reindex(struct arena *a, struct vdict *d, size_t nindex)
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

/* ================================================================ */
/* queries                                                           */
/* ================================================================ */

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

size_t *
value_set_order(const struct vdict *d, size_t *count)
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
		size_t count, *order = value_set_order(d, &count), len = d->len;
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
				return rt_raise(rt, PYEXC_RuntimeError,
				    "dictionary changed size during iteration");
		}
		return true;
	}
	default:
		if (value_is_iterable(it))
			return slots_of(it)->iterate(rt, it, fn, ctx);
		return rt_raise(rt, PYEXC_TypeError,
		    "'%s' object is not iterable",
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
			value_dict_reindex(dst, nd, n);
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
