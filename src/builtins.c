/*
 * builtins.c -- sum, len, min, max, round, abs (the essay's six) with
 * CPython 3.11's behaviour and messages.
 *
 * Arguments arrive as the evaluator collected them: args[0..nargs) are
 * positional, args[nargs..nargs+nkw) the keyword values named by kwnames.
 * parse_args() binds them to parameters the way CPython's argument clinic
 * does for these functions, with the same errors in the same order: too
 * many arguments, a missing required one, a name given twice, an unknown
 * keyword.  The numeric work is num.c's; iteration is value_iterate().
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "num.h"
#include "value.h"

/* A parameter: its name, or NULL for positional-only. */
struct param {
	const char	*name;
	bool		 required;
	bool		 kwonly;
};

/*
 * Bind args to params (out[i] stays VT_NONE-and-unset when absent; *given
 * says which were given).  Positional-only parameters come first.
 */
static bool
parse_args(struct rt *rt, const char *fname, const struct param *params,
    size_t nparams, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *out, bool *given)
{
	size_t i, j, npos_max = 0;
	for (i = 0; i < nparams; i++) {
		out[i] = value_none();
		given[i] = false;
		if (!params[i].kwonly)
			npos_max++;
	}
	if (nargs + nkw > nparams || nargs > npos_max)
		return rt_raise(rt, "TypeError",
		    "%s() takes at most %zu argument%s (%zu given)", fname,
		    npos_max, npos_max == 1 ? "" : "s", nargs + nkw);
	for (i = 0; i < nargs; i++) {
		out[i] = args[i];
		given[i] = true;
	}
	for (j = 0; j < nkw; j++) {
		for (i = 0; i < nparams; i++)
			if (params[i].name != NULL &&
			    strcmp(params[i].name, kwnames[j]) == 0)
				break;
		if (i == nparams)
			continue;	/* reported after the missing check */
		if (given[i])
			return rt_raise(rt, "TypeError", "argument for %s() "
			    "given by name ('%s') and position (%zu)", fname,
			    kwnames[j], i + 1);
		out[i] = args[nargs + j];
		given[i] = true;
	}
	for (i = 0; i < nparams; i++) {
		if (!params[i].required || given[i])
			continue;
		if (params[i].name == NULL)
			return rt_raise(rt, "TypeError", "%s() takes at least "
			    "%zu positional argument%s (%zu given)", fname, i + 1,
			    i == 0 ? "" : "s", nargs);
		return rt_raise(rt, "TypeError", "%s() missing required "
		    "argument '%s' (pos %zu)", fname, params[i].name, i + 1);
	}
	for (j = 0; j < nkw; j++) {
		for (i = 0; i < nparams; i++)
			if (params[i].name != NULL &&
			    strcmp(params[i].name, kwnames[j]) == 0)
				break;
		if (i == nparams)
			return rt_raise(rt, "TypeError", "'%s' is an invalid "
			    "keyword argument for %s()", kwnames[j], fname);
	}
	return true;
}

/* For f(obj) builtins: exactly one positional argument, no keywords. */
static bool
one_arg(struct rt *rt, const char *fname, size_t nargs, size_t nkw)
{
	if (nkw != 0)
		return rt_raise(rt, "TypeError",
		    "%s() takes no keyword arguments", fname);
	if (nargs != 1)
		return rt_raise(rt, "TypeError",
		    "%s() takes exactly one argument (%zu given)", fname, nargs);
	return true;
}

/* ---- sum(iterable, /, start=0) ---- */

struct sum_ctx {
	value	acc;
};

static bool
sum_step(struct rt *rt, value item, void *p)
{
	struct sum_ctx *c = p;
	/* CPython's int and float fast paths are plain addition too */
	if (c->acc.type == VT_FLOAT && item.type == VT_FLOAT) {
		c->acc.as.f += item.as.f;
		return true;
	}
	if (!rt_step(rt))
		return false;
	return value_binop(rt, BINOP_ADD, c->acc, item, &c->acc);
}

static bool
bi_sum(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *out)
{
	static const struct param params[] = {
		{ NULL, true, false }, { "start", false, false },
	};
	value a[2];
	bool given[2];
	struct sum_ctx c;
	if (!parse_args(rt, "sum", params, 2, args, nargs, kwnames, nkw, a,
	    given))
		return false;
	c.acc = given[1] ? a[1] : value_int(0);
	if (c.acc.type == VT_STR)
		return rt_raise(rt, "TypeError", "sum() can't sum strings "
		    "[use ''.join(seq) instead]");
	if (c.acc.type == VT_BYTES)
		return rt_raise(rt, "TypeError", "sum() can't sum bytes "
		    "[use b''.join(seq) instead]");
	if (!value_iterate(rt, a[0], sum_step, &c))
		return false;
	*out = c.acc;
	return true;
}

/* ---- len(obj) ---- */

static bool
bi_len(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *out)
{
	if (!one_arg(rt, "len", nargs, nkw))
		return false;
	value v = args[0];
	switch (v.type) {
	case VT_STR:
	case VT_BYTES: *out = value_int((int64_t)v.as.s->nchars); return true;
	case VT_LIST: *out = value_int((int64_t)v.as.list->len); return true;
	case VT_TUPLE: *out = value_int((int64_t)v.as.tuple->len); return true;
	case VT_DICT:
	case VT_SET:
	case VT_FROZENSET: *out = value_int((int64_t)v.as.dict->len); return true;
	default:
		return rt_raise(rt, "TypeError",
		    "object of type '%s' has no len()", value_type_name(v));
	}
}

/* ---- min / max ---- */

struct minmax_ctx {
	enum cmpop	op;	/* LT for min, GT for max */
	value		key;	/* None: no key function */
	bool		has_best;
	value		best_item, best_val;
};

static bool
minmax_step(struct rt *rt, value item, void *p)
{
	struct minmax_ctx *c = p;
	value val = item, r;
	if (!rt_step(rt))
		return false;
	if (c->key.type != VT_NONE) {
		if (rt->call == NULL)
			return rt_raise(rt, "TypeError", "'%s' object is not "
			    "callable", value_type_name(c->key));
		if (!rt->call(rt, c->key, &item, 1, &val))
			return false;
	}
	if (!c->has_best) {
		c->has_best = true;
		c->best_item = item;
		c->best_val = val;
		return true;
	}
	/* CPython compares the new value against the best so far */
	if (!value_compare(rt, c->op, val, c->best_val, &r))
		return false;
	if (r.as.b) {
		c->best_item = item;
		c->best_val = val;
	}
	return true;
}

static bool
min_max(struct rt *rt, const char *fname, enum cmpop op, const value *args,
    size_t nargs, const char *const *kwnames, size_t nkw, value *out)
{
	struct minmax_ctx c = { op, value_none(), false, { 0 }, { 0 } };
	value dflt = value_none(), seq;
	bool has_default = false;
	size_t j;

	if (nargs == 0)
		return rt_raise(rt, "TypeError",
		    "%s expected at least 1 argument, got 0", fname);
	for (j = 0; j < nkw; j++) {
		if (strcmp(kwnames[j], "key") == 0)
			c.key = args[nargs + j];
		else if (strcmp(kwnames[j], "default") == 0) {
			dflt = args[nargs + j];
			has_default = true;
		} else
			return rt_raise(rt, "TypeError", "'%s' is an invalid "
			    "keyword argument for %s()", kwnames[j], fname);
	}
	if (has_default && nargs > 1)
		return rt_raise(rt, "TypeError", "Cannot specify a default for "
		    "%s() with multiple positional arguments", fname);
	if (nargs > 1) {
		/* the positional arguments are the sequence */
		seq = value_tuple(rt->arena, 0);
		seq.as.tuple->len = nargs;
		seq.as.tuple->items = (value *)args;
	} else
		seq = args[0];
	if (!value_iterate(rt, seq, minmax_step, &c))
		return false;
	if (!c.has_best) {
		if (has_default) {
			*out = dflt;
			return true;
		}
		return rt_raise(rt, "ValueError",
		    "%s() arg is an empty sequence", fname);
	}
	*out = c.best_item;
	return true;
}

static bool
bi_min(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *out)
{
	return min_max(rt, "min", CMPOP_LT, args, nargs, kwnames, nkw, out);
}

static bool
bi_max(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *out)
{
	return min_max(rt, "max", CMPOP_GT, args, nargs, kwnames, nkw, out);
}

/* ---- round(number, ndigits=None) ---- */

static bool
bi_round(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *out)
{
	static const struct param params[] = {
		{ "number", true, false }, { "ndigits", false, false },
	};
	value a[2];
	bool given[2];
	/* the common call round(float, small int) skips the binder */
	if (nkw == 0 && nargs == 2 && args[0].type == VT_FLOAT &&
	    args[1].type == VT_INT)
		return num_round(rt, args[0], args[1], out);
	if (!parse_args(rt, "round", params, 2, args, nargs, kwnames, nkw, a,
	    given))
		return false;
	return num_round(rt, a[0], a[1], out);
}

/* ---- abs(x) ---- */

static bool
bi_abs(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *out)
{
	if (!one_arg(rt, "abs", nargs, nkw))
		return false;
	return num_abs(rt, args[0], out);
}

/* ---- the table ---- */

const struct builtin builtin_table[] = {
	{ "abs",	bi_abs },
	{ "len",	bi_len },
	{ "max",	bi_max },
	{ "min",	bi_min },
	{ "round",	bi_round },
	{ "sum",	bi_sum },
};
const size_t builtin_count = sizeof builtin_table / sizeof builtin_table[0];

static int
cmp_name(const void *key, const void *row)
{
	return strcmp(key, ((const struct builtin *)row)->name);
}

const struct builtin *
builtin_find(const char *name)
{
	return bsearch(name, builtin_table, builtin_count,
	    sizeof builtin_table[0], cmp_name);
}
