/*
 * methods_int.h -- what the files of the built-in types' methods share:
 * methods.c and methods_*.c include it, nothing else does.
 *
 * A native is defined as METHOD(type_name) in its type's file; the lists
 * below name every one, sorted by name (strcmp order), and methods.c makes
 * of them the tables methods_getattr() bsearches.  A method that is not in
 * a list has no code path at all.  The argument checkers, one per CPython
 * calling style, are methods_args.c's; the units of str and bytes are
 * methods_str.c's (their case and classes methods_case.c's).
 */
#ifndef SANDBOXREPL_METHODS_INT_H
#define SANDBOXREPL_METHODS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "value/value.h"

struct rt;

/* The parameters of every native (native_fn in value.h). */
#define METHOD_PARAMS struct rt *rt, value self, const value *args,	\
    size_t nargs, const char *const *kwnames, size_t nkw, value *out
#define METHOD(fn) bool fn(METHOD_PARAMS)

#define STR_METHODS(X)							\
	X(str, capitalize)						\
	X(str, casefold)						\
	X(str, center)							\
	X(str, count)							\
	X(str, encode)							\
	X(str, endswith)						\
	X(str, expandtabs)						\
	X(str, find)							\
	X(str, format)							\
	X(str, format_map)						\
	X(str, index)							\
	X(str, isalnum)							\
	X(str, isalpha)							\
	X(str, isascii)							\
	X(str, isdecimal)						\
	X(str, isdigit)							\
	X(str, isidentifier)						\
	X(str, islower)							\
	X(str, isnumeric)						\
	X(str, isprintable)						\
	X(str, isspace)							\
	X(str, istitle)							\
	X(str, isupper)							\
	X(str, join)							\
	X(str, ljust)							\
	X(str, lower)							\
	X(str, lstrip)							\
	X(str, partition)						\
	X(str, removeprefix)						\
	X(str, removesuffix)						\
	X(str, replace)							\
	X(str, rfind)							\
	X(str, rindex)							\
	X(str, rjust)							\
	X(str, rpartition)						\
	X(str, rsplit)							\
	X(str, rstrip)							\
	X(str, split)							\
	X(str, splitlines)						\
	X(str, startswith)						\
	X(str, strip)							\
	X(str, swapcase)						\
	X(str, title)							\
	X(str, upper)							\
	X(str, zfill)

#define BYTES_METHODS(X)						\
	X(bytes, capitalize)						\
	X(bytes, center)						\
	X(bytes, count)							\
	X(bytes, decode)						\
	X(bytes, endswith)						\
	X(bytes, expandtabs)						\
	X(bytes, find)							\
	X(bytes, hex)							\
	X(bytes, index)							\
	X(bytes, isalnum)						\
	X(bytes, isalpha)						\
	X(bytes, isascii)						\
	X(bytes, isdigit)						\
	X(bytes, islower)						\
	X(bytes, isspace)						\
	X(bytes, istitle)						\
	X(bytes, isupper)						\
	X(bytes, join)							\
	X(bytes, ljust)							\
	X(bytes, lower)							\
	X(bytes, lstrip)						\
	X(bytes, partition)						\
	X(bytes, removeprefix)						\
	X(bytes, removesuffix)						\
	X(bytes, replace)						\
	X(bytes, rfind)							\
	X(bytes, rindex)						\
	X(bytes, rjust)							\
	X(bytes, rpartition)						\
	X(bytes, rsplit)						\
	X(bytes, rstrip)						\
	X(bytes, split)							\
	X(bytes, splitlines)						\
	X(bytes, startswith)						\
	X(bytes, strip)							\
	X(bytes, swapcase)						\
	X(bytes, title)							\
	X(bytes, upper)							\
	X(bytes, zfill)

#define LIST_METHODS(X)							\
	X(list, append)							\
	X(list, clear)							\
	X(list, copy)							\
	X(list, count)							\
	X(list, extend)							\
	X(list, index)							\
	X(list, insert)							\
	X(list, pop)							\
	X(list, remove)							\
	X(list, reverse)						\
	X(list, sort)

#define DICT_METHODS(X)							\
	X(dict, clear)							\
	X(dict, copy)							\
	X(dict, fromkeys)						\
	X(dict, get)							\
	X(dict, items)							\
	X(dict, keys)							\
	X(dict, pop)							\
	X(dict, popitem)						\
	X(dict, setdefault)						\
	X(dict, update)							\
	X(dict, values)

#define TUPLE_METHODS(X)						\
	X(tuple, count)							\
	X(tuple, index)

#define INT_METHODS(X)							\
	X(int, as_integer_ratio)					\
	X(int, bit_count)						\
	X(int, bit_length)						\
	X(int, conjugate)						\
	X(int, to_bytes)

#define FLOAT_METHODS(X)						\
	X(float, as_integer_ratio)					\
	X(float, conjugate)						\
	X(float, hex)							\
	X(float, is_integer)

#define METHOD_DECLARE(type, name) bool type##_##name(METHOD_PARAMS);
STR_METHODS(METHOD_DECLARE)
BYTES_METHODS(METHOD_DECLARE)
LIST_METHODS(METHOD_DECLARE)
DICT_METHODS(METHOD_DECLARE)
TUPLE_METHODS(METHOD_DECLARE)
INT_METHODS(METHOD_DECLARE)
FLOAT_METHODS(METHOD_DECLARE)
#undef METHOD_DECLARE

/* ---- argument checking (methods_args.c) ---- */

/* A parameter of a clinic function with keywords. */
struct param {
	const char	*name;
	bool		 kwonly;
};

/* METH_NOARGS, METH_O, positional-only clinic, the find family's older
 * parser, clinic with keywords: CPython's messages for each. */
bool no_args(struct rt *rt, const char *qual, size_t nargs, size_t nkw);
bool one_arg(struct rt *rt, const char *qual, size_t nargs, size_t nkw);
bool pos_args(struct rt *rt, const char *qual, size_t min, size_t max,
    size_t nargs, size_t nkw);
bool old_args(struct rt *rt, const char *qual, size_t min, size_t max,
    size_t nargs, size_t nkw);
bool kw_args(struct rt *rt, const char *fname, const struct param *params,
    size_t nparams, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *vals, bool *given);
const char *clinic_type_name(value v);
bool arg_index(struct rt *rt, value v, int64_t *out);
bool arg_slice_bound(struct rt *rt, value v, bool none_ok, int64_t dflt,
    int64_t *out);
void adjust_bounds(int64_t len, int64_t *start, int64_t *end);
/* A mutating method was called: see methods_args.c. */
void note_mutation(struct rt *rt);

/* ---- units: str as code points, bytes as bytes (methods_str.c) ---- */

struct units {
	uint32_t	*u;
	size_t		 n;
};

/*
 * What a method of str or bytes holds while it works, for each byte of
 * its receiver or of its result: the units of the one and of the other
 * (4 bytes a character, and a growing array may have twice what it
 * uses), and the value made of them.
 */
#define UNITS_HELD 12

struct units units_of(struct rt *rt, value v);
value units_value(struct rt *rt, bool is_bytes, const uint32_t *u, size_t n);
bool check_bytes(struct rt *rt, uint64_t base, uint64_t count, uint64_t per);
/* units_value() after checking the exact size against the caps. */
bool units_result(struct rt *rt, bool is_bytes, const uint32_t *u, size_t n,
    value *out);
/* Python's whitespace (bytes: ASCII's only). */
bool is_space_unit(uint32_t c, bool is_bytes);

/* A growable array of units in the arena. */
struct ubuf {
	uint32_t	*u;
	size_t		 n, cap;
};

void ubuf_add(struct rt *rt, struct ubuf *b, const uint32_t *u, size_t n);

static inline void
ubuf_add1(struct rt *rt, struct ubuf *b, uint32_t c)
{
	ubuf_add(rt, b, &c, 1);
}

/* ---- shared by two types' files ---- */

/* "\x..", "\u....", "\U........" for c, as repr and ascii() write it
 * (methods_codec.c). */
void char_escape(uint32_t c, char *buf, size_t n);
/* A KeyError whose message is the repr of key; false (methods_format.c). */
bool raise_key_error(struct rt *rt, value key);
/* The items of any iterable, as a fresh list (methods_list.c). */
bool items_of(struct rt *rt, value it, value *out);

#endif
