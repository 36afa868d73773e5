/*
 * mock_int.h -- what the model's files share and nobody else sees: the
 * shape of a native (NATIVE), the argument checks every module function
 * makes, and the natives one file's table borrows from another's.
 * Private to src/model (mock.c, mock_builtins.c, mock_shell.c).
 */
#ifndef SANDBOXREPL_MOCK_INT_H
#define SANDBOXREPL_MOCK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "value/rt.h"
#include "value/value.h"

#define NATIVE(fn) static bool fn(struct rt *rt, value self, \
    const value *args, size_t nargs, const char *const *kw, size_t nkw, \
    value *out)

/* CPython's TypeError unless v is a str. */
static inline bool
want_str(struct rt *rt, const char *what, value v)
{
	if (v.type != VT_STR)
		return rt_raise(rt, PYEXC_TypeError,
		    "%s must be str, not %s", what,
		    value_type_name(v));
	return true;
}

/* The value of keyword name, or of positional index pos, or NULL. */
static inline const value *
arg_or_kw(const value *args, size_t nargs, const char *const *kw, size_t nkw,
    size_t pos, const char *name)
{
	size_t i;
	if (pos < nargs)
		return &args[pos];
	for (i = 0; i < nkw; i++)
		if (strcmp(kw[i], name) == 0)
			return &args[nargs + i];
	return NULL;
}

static inline value
sv(struct rt *rt, const char *s)
{
	return value_cstr(rt->arena, s);
}

/* sys.exit(), which exit() and quit() are too (mock.c). */
bool mock_sys_exit(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out);

#endif
