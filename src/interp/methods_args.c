/*
 * methods_args.c -- how the methods of the built-in types check their
 * arguments.
 *
 * Every native checks its arguments the way CPython 3.11 does for that
 * method -- the wording differs between METH_NOARGS ("str.upper() takes no
 * arguments"), METH_O ("list.append() takes exactly one argument"),
 * positional-only clinic functions ("pop expected at most 1 argument, got
 * 2"), the older find family ("find() takes at least 1 argument (0
 * given)") and clinic functions with keywords ("'foo' is an invalid
 * keyword argument for split()") -- so there is one small checker per
 * style.  Integer arguments (indices, slice bounds) and the note a
 * mutating method leaves for the session are here too.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "eval.h"
#include "methods_int.h"
#include "value/num.h"
#include "value/rt.h"
#include "value/value.h"

/* ================================================================ */
/* argument checking, one helper per CPython calling style           */
/* ================================================================ */

static const char *
plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* METH_NOARGS: "str.upper() takes no arguments (1 given)" */
bool
no_args(struct rt *rt, const char *qual, size_t nargs, size_t nkw)
{
	if (nkw != 0)
		return rt_raise(rt, PYEXC_TypeError, "%s() takes no keyword "
		    "arguments", qual);
	if (nargs != 0)
		return rt_raise(rt, PYEXC_TypeError, "%s() takes no arguments "
		    "(%zu given)", qual, nargs);
	return true;
}

/* METH_O: "list.append() takes exactly one argument (0 given)" */
bool
one_arg(struct rt *rt, const char *qual, size_t nargs, size_t nkw)
{
	if (nkw != 0)
		return rt_raise(rt, PYEXC_TypeError, "%s() takes no keyword "
		    "arguments", qual);
	if (nargs != 1)
		return rt_raise(rt, PYEXC_TypeError, "%s() takes exactly one "
		    "argument (%zu given)", qual, nargs);
	return true;
}

/* Positional-only clinic: "pop expected at most 1 argument, got 2". */
bool
pos_args(struct rt *rt, const char *qual, size_t min, size_t max,
    size_t nargs, size_t nkw)
{
	const char *shortname = strchr(qual, '.') + 1;
	if (nkw != 0)
		return rt_raise(rt, PYEXC_TypeError, "%s() takes no keyword "
		    "arguments", qual);
	if (nargs < min || nargs > max) {
		if (min == max)
			return rt_raise(rt, PYEXC_TypeError, "%s expected %zu "
			    "argument%s, got %zu", shortname, min, plural(min),
			    nargs);
		if (nargs < min)
			return rt_raise(rt, PYEXC_TypeError,
			    "%s expected at least %zu argument%s, got %zu",
			    shortname, min,
			    plural(min), nargs);
		return rt_raise(rt, PYEXC_TypeError, "%s expected at most %zu "
		    "argument%s, got %zu", shortname, max, plural(max), nargs);
	}
	return true;
}

/* The find family's older parser: "find() takes at least 1 argument". */
bool
old_args(struct rt *rt, const char *qual, size_t min, size_t max,
    size_t nargs, size_t nkw)
{
	const char *shortname = strchr(qual, '.') + 1;
	if (nkw != 0)
		return rt_raise(rt, PYEXC_TypeError, "%s() takes no keyword "
		    "arguments", qual);
	if (nargs < min)
		return rt_raise(rt, PYEXC_TypeError, "%s() takes at least %zu "
		    "argument%s (%zu given)", shortname, min, plural(min),
		    nargs);
	if (nargs > max)
		return rt_raise(rt, PYEXC_TypeError, "%s() takes at most %zu "
		    "argument%s (%zu given)", shortname, max, plural(max),
		    nargs);
	return true;
}


/*
 * Clinic with keywords: bind args to params (given[i] says which were
 * passed), with CPython's errors in CPython's order.
 */
bool
kw_args(struct rt *rt, const char *fname, const struct param *params,
    size_t nparams, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *vals, bool *given)
{
	size_t i, j, npos = 0;
	for (i = 0; i < nparams; i++) {
		vals[i] = value_none();
		given[i] = false;
		if (!params[i].kwonly)
			npos++;
	}
	if (nargs + nkw > nparams)
		return rt_raise(rt, PYEXC_TypeError, "%s() takes at most %zu "
		    "argument%s (%zu given)", fname, nparams, plural(nparams),
		    nargs + nkw);
	if (nargs > npos) {
		if (npos == 0)
			return rt_raise(rt, PYEXC_TypeError, "%s() takes no "
			    "positional arguments", fname);
		return rt_raise(rt, PYEXC_TypeError, "%s() takes at most %zu "
		    "positional argument%s (%zu given)", fname, npos,
		    plural(npos), nargs);
	}
	for (i = 0; i < nargs; i++) {
		vals[i] = args[i];
		given[i] = true;
	}
	for (j = 0; j < nkw; j++) {
		for (i = 0; i < nparams; i++)
			if (strcmp(params[i].name, kwnames[j]) == 0)
				break;
		if (i == nparams)
			return rt_raise(rt, PYEXC_TypeError,
			    "'%s' is an invalid keyword argument for %s()",
			    kwnames[j], fname);
		if (given[i])
			return rt_raise(rt, PYEXC_TypeError,
			    "argument for %s() given by name ('%s') and "
			    "position (%zu)", fname,
			    kwnames[j], i + 1);
		vals[i] = args[nargs + j];
		given[i] = true;
	}
	return true;
}

/* The type name a clinic conversion error shows: None, not NoneType. */
const char *
clinic_type_name(value v)
{
	return v.type == VT_NONE ? "None" : value_type_name(v);
}

/* ================================================================ */
/* integers as arguments                                             */
/* ================================================================ */

/* An index argument (Py_ssize_t): OverflowError past 64 bits. */
bool
arg_index(struct rt *rt, value v, int64_t *out)
{
	if (!NUM_IS_INTLIKE(v))
		return rt_raise(rt, PYEXC_TypeError, "'%s' object cannot be "
		    "interpreted as an integer", value_type_name(v));
	if (!num_to_int64_clamped(v, out))
		return rt_raise(rt, PYEXC_OverflowError,
		    "Python int too large to convert to C ssize_t");
	return true;
}

/* A slice bound (start/end): clamped, None allowed when none_ok. */
bool
arg_slice_bound(struct rt *rt, value v, bool none_ok, int64_t dflt,
    int64_t *out)
{
	if (none_ok && v.type == VT_NONE) {
		*out = dflt;
		return true;
	}
	if (!NUM_IS_INTLIKE(v))
		return rt_raise(rt, PYEXC_TypeError, none_ok ?
		    "slice indices must be integers or None or have an "
		    "__index__ method" : "slice indices must be integers or "
		    "have an __index__ method");
	num_to_int64_clamped(v, out);
	return true;
}

/* Python's slice adjustment of [start, end) to a length. */
void
adjust_bounds(int64_t len, int64_t *start, int64_t *end)
{
	if (*end > len)
		*end = len;
	else if (*end < 0) {
		*end += len;
		if (*end < 0)
			*end = 0;
	}
	if (*start < 0) {
		*start += len;
		if (*start < 0)
			*start = 0;
	}
}

/* ================================================================ */
/* mutation of values the namespace keeps                            */
/* ================================================================ */

/*
 * A list or dict fetched from the namespace lives in the namespace's
 * arena, but what a method adds to it (the grown array, the new items)
 * lives in the input's arena, which dies with the input.  A mutating
 * method says so here; the session then has the namespace copy its
 * bindings again before the input's arena goes (session.c).
 */
void
note_mutation(struct rt *rt)
{
	struct eval *ev = rt->ev;
	if (ev != NULL)
		ev->mutated = true;
}

