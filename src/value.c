/*
 * value.c -- constructors, containers, repr and the non-numeric operations.
 *
 * (Skeleton: constructors only.  Numbers live in num.c.)
 */
#include "config.h"

#include <string.h>

#include "arena.h"
#include "sbuf.h"
#include "value.h"

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

static struct vstr *
new_vstr(struct arena *a, const char *s, size_t len)
{
	struct vstr *vs = arena_alloc(a, sizeof *vs + len + 1);
	size_t i, n = 0;
	bool ascii = true;

	memcpy(vs->data, s, len);
	vs->len = len;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80)
			ascii = false;
		if ((c & 0xC0) != 0x80)
			n++;
	}
	vs->nchars = n;
	vs->is_ascii = ascii;
	return vs;
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

#define X_NAME(e, name) name,
static const char *const type_names[] = { VALUE_TYPES(X_NAME) };
#undef X_NAME

const char *
value_type_name(value v)
{
	return type_names[v.type];
}
