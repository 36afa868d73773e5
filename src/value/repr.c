/*
 * repr.c -- repr() and str() of every value, as CPython 3.11 writes them.
 *
 * CPython's quote choice and escapes for str and bytes, floats in their
 * shortest round-trip form and ints through num.c (with 3.11's cap on
 * the digits of a big int), containers with "[...]" for one inside
 * itself and a depth cap, a set in the order CPython's table would list
 * it, and the objects of the layers above through their type's slots.
 * The repr of a big value is capped as it is written.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "base/sbuf.h"
#include "base/textesc.h"
#include "value.h"
#include "value_internal.h"

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
		return rt_raise(rt, PYEXC_RecursionError,
		    "maximum recursion depth exceeded while getting the repr "
		    "of an object");
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
		size_t count, *order = value_set_order(v.as.dict, &count);
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
