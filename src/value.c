/*
 * value.c -- constructors, containers, repr and the non-numeric operations.
 *
 * (Skeleton: constructors only.  Numbers live in num.c.)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
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

/*
 * value_repr -- PROVISIONAL: a simple repr good enough for the parser's
 * tests; the values work replaces it with CPython's exact rules.
 */
void
value_float_repr(double f, struct sbuf *out)
{
	char buf[64];
	int prec;
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, f);
		if (strtod(buf, NULL) == f)
			break;
	}
	sbuf_adds(out, buf);
	if (strspn(buf, "-0123456789") == strlen(buf))
		sbuf_adds(out, ".0");
}

void
value_str_repr(const struct vstr *s, bool is_bytes, struct sbuf *out)
{
	char q = memchr(s->data, '\'', s->len) && !memchr(s->data, '"', s->len)
	    ? '"' : '\'';
	size_t i;
	if (is_bytes)
		sbuf_addc(out, 'b');
	sbuf_addc(out, q);
	for (i = 0; i < s->len; i++) {
		unsigned char c = (unsigned char)s->data[i];
		if (c == (unsigned char)q || c == '\\')
			sbuf_addf(out, "\\%c", c);
		else if (c == '\n')
			sbuf_adds(out, "\\n");
		else if (c == '\t')
			sbuf_adds(out, "\\t");
		else if (c == '\r')
			sbuf_adds(out, "\\r");
		else if (c < 0x20 || c == 0x7f || (is_bytes && c >= 0x80))
			sbuf_addf(out, "\\x%02x", c);
		else
			sbuf_addc(out, (char)c);
	}
	sbuf_addc(out, q);
}

bool
value_repr(struct rt *rt, value v, struct sbuf *out)
{
	size_t i;
	switch (v.type) {
	case VT_NONE: sbuf_adds(out, "None"); return true;
	case VT_BOOL: sbuf_adds(out, v.as.b ? "True" : "False"); return true;
	case VT_INT: sbuf_addf(out, "%lld", (long long)v.as.i); return true;
	case VT_BIGINT: {
		char *s = mpz_get_str(NULL, 10, v.as.big->z);
		sbuf_adds(out, s);
		free(s);
		return true;
	}
	case VT_FLOAT: value_float_repr(v.as.f, out); return true;
	case VT_STR: value_str_repr(v.as.s, false, out); return true;
	case VT_BYTES: value_str_repr(v.as.s, true, out); return true;
	case VT_ELLIPSIS: sbuf_adds(out, "Ellipsis"); return true;
	case VT_COMPLEX:
		sbuf_addc(out, '(');
		value_float_repr(v.as.c->re, out);
		sbuf_addc(out, '+');
		value_float_repr(v.as.c->im, out);
		sbuf_adds(out, "j)");
		return true;
	case VT_LIST:
	case VT_TUPLE: {
		size_t n = v.type == VT_LIST ? v.as.list->len : v.as.tuple->len;
		value *items = v.type == VT_LIST ? v.as.list->items : v.as.tuple->items;
		sbuf_addc(out, v.type == VT_LIST ? '[' : '(');
		for (i = 0; i < n; i++) {
			if (i)
				sbuf_adds(out, ", ");
			if (!value_repr(rt, items[i], out))
				return false;
		}
		if (v.type == VT_TUPLE && n == 1)
			sbuf_addc(out, ',');
		sbuf_addc(out, v.type == VT_LIST ? ']' : ')');
		return true;
	}
	default:
		sbuf_addf(out, "<%s object>", value_type_name(v));
		return true;
	}
}
