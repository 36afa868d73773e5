/*
 * methods.c -- str, bytes, list, dict, tuple, int and float methods: the
 * tables, and the dunders every built-in type answers.
 *
 * A method is a row in its type's table (sorted by name, searched with
 * bsearch); methods_getattr() binds the row to the receiver.  The natives
 * are in a file per type (methods_int.h lists them):
 *
 *   methods_str.c	str and bytes, which share their algorithms
 *   methods_codec.c	str.encode, bytes.decode and bytes.hex
 *   methods_format.c	str.format and str.format_map
 *   methods_list.c	list and tuple
 *   methods_dict.c	dict
 *   methods_num.c	int and float
 *
 * and each checks its arguments with methods_args.c's checkers.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "builtins.h"
#include "eval.h"
#include "methods.h"
#include "methods_int.h"
#include "value/rt.h"
#include "base/sbuf.h"
#include "value/value.h"

/* ================================================================ */
/* the tables                                                        */
/* ================================================================ */

struct method {
	const char	*name;
	native_fn	 fn;
};

#define ROW(type, name) { #name, type##_##name },
/* Sorted by name (strcmp order): methods_getattr() bsearches them. */
static const struct method str_methods[] = { STR_METHODS(ROW) };
static const struct method bytes_methods[] = { BYTES_METHODS(ROW) };
static const struct method list_methods[] = { LIST_METHODS(ROW) };
static const struct method dict_methods[] = { DICT_METHODS(ROW) };
static const struct method tuple_methods[] = { TUPLE_METHODS(ROW) };
static const struct method int_methods[] = { INT_METHODS(ROW) };
static const struct method float_methods[] = { FLOAT_METHODS(ROW) };
#undef ROW

static int
cmp_method(const void *key, const void *row)
{
	return strcmp(key, ((const struct method *)row)->name);
}

/* ---- dunders of the built-in types ----
 * What payloads call when '[' or 'in' is filtered out:
 * "".__class__.__mro__.__getitem__(1), g.__getitem__('system'). */

static const char *
dunder_qual(struct rt *rt, value self, const char *name)
{
	return arena_printf(rt->arena, "%s.%s", value_type_name(self), name);
}

static METHOD(dunder_getitem)
{
	(void)kwnames;
	if (!one_arg(rt, dunder_qual(rt, self, "__getitem__"), nargs, nkw))
		return false;
	return value_getitem(rt, self, args[0], out);
}

static METHOD(dunder_contains)
{
	(void)kwnames;
	if (!one_arg(rt, dunder_qual(rt, self, "__contains__"), nargs, nkw))
		return false;
	return value_compare(rt, CMPOP_IN, args[0], self, out);
}

static METHOD(dunder_len)
{
	(void)args;
	if (!no_args(rt, dunder_qual(rt, self, "__len__"), nargs, nkw))
		return false;
	return builtin_find("len")->fn(rt, value_none(), &self, 1, kwnames, 0,
	    out);
}

/* __repr__ and __str__: repr(self) or str(self), as a str */
static bool
dunder_text(struct rt *rt, value self, const char *name, bool repr,
    size_t nargs, size_t nkw, value *out)
{
	struct sbuf b = SBUF_INIT;
	bool ok;
	if (!no_args(rt, dunder_qual(rt, self, name), nargs, nkw))
		return false;
	ok = repr ? value_repr(rt, self, &b) : value_str_of(rt, self, &b);
	if (ok)
		*out = value_str(rt->arena, sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	return ok;
}

static METHOD(dunder_repr)
{
	(void)args;
	(void)kwnames;
	return dunder_text(rt, self, "__repr__", true, nargs, nkw, out);
}

static METHOD(dunder_str)
{
	(void)args;
	(void)kwnames;
	return dunder_text(rt, self, "__str__", false, nargs, nkw, out);
}

#define SEQS	(1u << VT_STR | 1u << VT_BYTES | 1u << VT_LIST | \
		 1u << VT_TUPLE | 1u << VT_DICT)
#define SIZED	(SEQS | 1u << VT_SET | 1u << VT_FROZENSET)
#define ANY	(~0u & ~(1u << VT_OBJECT) & ~(1u << VT_FUNCTION))

static const struct {
	const char	*name;
	unsigned	 types;		/* 1 << vtype for each that has it */
	native_fn	 fn;
} dunders[] = {
	{ "__contains__", SIZED, dunder_contains },
	{ "__getitem__", SEQS, dunder_getitem },
	{ "__len__", SIZED, dunder_len },
	{ "__repr__", ANY, dunder_repr },
	{ "__str__", ANY, dunder_str },
};

#undef SEQS
#undef SIZED
#undef ANY

static bool
dunder_getattr(struct eval *ev, value obj, const char *name, value *out)
{
	size_t i;
	for (i = 0; i < sizeof dunders / sizeof dunders[0]; i++)
		if (strcmp(dunders[i].name, name) == 0 &&
		    (dunders[i].types & (1u << obj.type))) {
			*out = value_native(ev->rt.arena, dunders[i].name,
			    dunders[i].fn, obj, NULL);
			return true;
		}
	return false;
}

bool
methods_getattr(struct eval *ev, value obj, const char *name, value *out,
    bool *found)
{
	const struct method *table = NULL, *m;
	size_t n = 0;

	*found = false;
	if (name[0] == '_' && obj.type < 32 && dunder_getattr(ev, obj, name,
	    out)) {
		*found = true;
		return true;
	}
#define USE(t) (table = (t), n = sizeof(t) / sizeof((t)[0]))
	switch (obj.type) {
	case VT_STR:
	case VT_BYTES:
		/* the memory a method will work in, asked before it is
		 * bound: the receiver's units, and as much for a result */
		if (!rt_check_bytes(&ev->rt, UNITS_HELD *
		    (uint64_t)obj.as.s->len))
			return false;
		if (obj.type == VT_STR)
			USE(str_methods);
		else
			USE(bytes_methods);
		break;
	case VT_LIST:	USE(list_methods); break;
	case VT_DICT:	USE(dict_methods); break;
	case VT_TUPLE:	USE(tuple_methods); break;
	/* bool is an int: True.bit_length() works, True.hex() does not */
	case VT_BOOL: case VT_INT: case VT_BIGINT:
			USE(int_methods); break;
	case VT_FLOAT:	USE(float_methods); break;
	default:	return true;
	}
#undef USE
	m = bsearch(name, table, n, sizeof *table, cmp_method);
	if (m == NULL)
		return true;
	*out = value_native(ev->rt.arena, m->name, m->fn, obj, NULL);
	*found = true;
	return true;
}
