/*
 * methods.c -- str, bytes, list, dict, tuple, int and float methods.
 *
 * A method is a row in its type's table (sorted by name, searched with
 * bsearch); methods_getattr() binds the row to the receiver.  Every native
 * checks its arguments the way CPython 3.11 does for that method -- the
 * wording differs between METH_NOARGS ("str.upper() takes no arguments"),
 * METH_O ("list.append() takes exactly one argument"), positional-only
 * clinic functions ("pop expected at most 1 argument, got 2"), the older
 * find family ("find() takes at least 1 argument (0 given)") and clinic
 * functions with keywords ("'foo' is an invalid keyword argument for
 * split()") -- so there is one small checker per style.
 *
 * str and bytes share their algorithms: both are turned into an array of
 * units (code points for str, bytes for bytes), searched, split and padded
 * as units, and turned back into a str or a bytes.  Indices are then code
 * point indices, as Python's are.  Every result whose size the user
 * controls is checked against the caps before it is built.
 *
 * Case mapping (upper, lower, title, casefold, swapcase with the full
 * mappings: ß -> SS, İ -> i̇, the final sigma) and the character classes
 * are CPython's for all of Unicode 14.0, from tables generated out of its
 * unicodedata (methods_tables.gen.h); isalpha is XID_Start with corrections.
 *
 * str.format walks fields as CPython's unicode_format.h does: the literal
 * and field grammar, automatic or manual numbering, nested fields in the
 * spec (two levels), then '.attr' through mock_getattr (the evaluator's own
 * attribute lookup, so format-string escapes see the same object model as
 * attribute syntax) and '[key]' through a small getitem.  The spec itself
 * is format_value()'s.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "eval.h"
#include "format.h"
#include "methods.h"
#include "builtins.h"
#include "mock.h"
#include "ns.h"
#include "num.h"
#include "sbuf.h"
#include "unicode.h"
#include "value.h"

#define METHOD(fn) static bool fn(struct rt *rt, value self,		\
    const value *args, size_t nargs, const char *const *kwnames,	\
    size_t nkw, value *out)

/* ================================================================ */
/* argument checking, one helper per CPython calling style           */
/* ================================================================ */

static const char *
plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* METH_NOARGS: "str.upper() takes no arguments (1 given)" */
static bool
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
static bool
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
static bool
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
			return rt_raise(rt, PYEXC_TypeError, "%s expected at least "
			    "%zu argument%s, got %zu", shortname, min,
			    plural(min), nargs);
		return rt_raise(rt, PYEXC_TypeError, "%s expected at most %zu "
		    "argument%s, got %zu", shortname, max, plural(max), nargs);
	}
	return true;
}

/* The find family's older parser: "find() takes at least 1 argument". */
static bool
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

/* A parameter of a clinic function with keywords. */
struct param {
	const char	*name;
	bool		 kwonly;
};

/*
 * Clinic with keywords: bind args to params (given[i] says which were
 * passed), with CPython's errors in CPython's order.
 */
static bool
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
			return rt_raise(rt, PYEXC_TypeError, "'%s' is an invalid "
			    "keyword argument for %s()", kwnames[j], fname);
		if (given[i])
			return rt_raise(rt, PYEXC_TypeError, "argument for %s() "
			    "given by name ('%s') and position (%zu)", fname,
			    kwnames[j], i + 1);
		vals[i] = args[nargs + j];
		given[i] = true;
	}
	return true;
}

/* The type name a clinic conversion error shows: None, not NoneType. */
static const char *
clinic_type_name(value v)
{
	return v.type == VT_NONE ? "None" : value_type_name(v);
}

/* ================================================================ */
/* integers as arguments                                             */
/* ================================================================ */

/* An index argument (Py_ssize_t): OverflowError past 64 bits. */
static bool
arg_index(struct rt *rt, value v, int64_t *out)
{
	if (!NUM_IS_INTLIKE(v))
		return rt_raise(rt, PYEXC_TypeError, "'%s' object cannot be "
		    "interpreted as an integer", value_type_name(v));
	if (!num_to_int64_clamped(v, out))
		return rt_raise(rt, PYEXC_OverflowError, "Python int too large to "
		    "convert to C ssize_t");
	return true;
}

/* A slice bound (start/end): clamped, None allowed when none_ok. */
static bool
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
static void
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
static void
note_mutation(struct rt *rt)
{
	struct eval *ev = rt->ev;
	if (ev != NULL)
		ev->mutated = true;
}

/* ================================================================ */
/* units: str as code points, bytes as bytes                         */
/* ================================================================ */

struct units {
	uint32_t	*u;
	size_t		 n;
};

/* Decode generalised UTF-8 (surrogates allowed; the value layer made it). */
static struct units
units_of(struct rt *rt, value v)
{
	struct units r;
	const unsigned char *s = (const unsigned char *)v.as.s->data;
	size_t i = 0, len = v.as.s->len;

	r.n = 0;
	r.u = arena_array(rt->arena, v.as.s->nchars + 1, sizeof *r.u);
	if (v.type == VT_BYTES) {
		for (i = 0; i < len; i++)
			r.u[i] = s[i];
		r.n = len;
		return r;
	}
	while (i < len)
		r.u[r.n++] = unicode_next((const char *)s, len, &i);
	return r;
}

/* Build a str (or bytes) from units; the caller checked the caps. */
static value
units_value(struct rt *rt, bool is_bytes, const uint32_t *u, size_t n)
{
	size_t i, len = 0;
	char *p;
	value v;
	if (is_bytes) {
		v = value_str_alloc(rt->arena, VT_BYTES, n, &p);
		for (i = 0; i < n; i++)
			p[i] = (char)u[i];
		value_str_finish(v);
		return v;
	}
	/* measured, then encoded in place: no second copy */
	for (i = 0; i < n; i++)
		len += unicode_encoded_len(u[i]);
	v = value_str_alloc(rt->arena, VT_STR, len, &p);
	for (i = 0, len = 0; i < n; i++)
		len += unicode_encode(u[i], p + len);
	value_str_finish(v);
	return v;
}

/*
 * What a method of str or bytes holds while it works, for each byte of
 * its receiver or of its result: the units of the one and of the other
 * (4 bytes a character, and a growing array may have twice what it
 * uses), and the value made of them.
 */
#define UNITS_HELD 12

/*
 * Caps for a result of base + count * per bytes, checked before the
 * result is built (an overflowing size is simply refused).  The units
 * arrays on the way are a constant factor of inputs that were themselves
 * within the caps; the checks are for what a user's number multiplies.
 */
static bool
check_bytes(struct rt *rt, uint64_t base, uint64_t count, uint64_t per)
{
	if (per != 0 && count > (UINT64_MAX - base) / per)
		return rt_check_str_bytes(rt, UINT64_MAX);
	return rt_check_str_bytes(rt, base + count * per) &&
	    rt_check_bytes(rt, UNITS_HELD * (base + count * per));
}

/* Bytes one unit takes in its str (UTF-8) or bytes. */
static size_t
unit_bytes(bool is_bytes, uint32_t c)
{
	if (is_bytes || c < 0x80)
		return 1;
	return c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

/* units_value() after checking the exact size against the caps. */
static bool
units_result(struct rt *rt, bool is_bytes, const uint32_t *u, size_t n,
    value *out)
{
	uint64_t bytes = 0;
	size_t i;
	for (i = 0; i < n; i++)
		bytes += unit_bytes(is_bytes, u[i]);
	if (!rt_check_str_bytes(rt, bytes) ||
	    !rt_check_bytes(rt, bytes + 1))
		return false;
	*out = units_value(rt, is_bytes, u, n);
	return true;
}

/* A growable array of units in the arena. */
struct ubuf {
	uint32_t	*u;
	size_t		 n, cap;
};

static void
ubuf_add(struct rt *rt, struct ubuf *b, const uint32_t *u, size_t n)
{
	if (n == 0)
		return;
	if (b->n + n > b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 16;
		while (ncap < b->n + n)
			ncap *= 2;
		b->u = arena_grow(rt->arena, b->u, b->n, ncap, sizeof *b->u);
		b->cap = ncap;
	}
	memcpy(b->u + b->n, u, n * sizeof *u);
	b->n += n;
}

static void
ubuf_add1(struct rt *rt, struct ubuf *b, uint32_t c)
{
	ubuf_add(rt, b, &c, 1);
}

/* Same type as the receiver, with the message its type gives. */
static bool
want_same(struct rt *rt, value self, value v)
{
	if (self.type == VT_STR) {
		if (v.type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError, "must be str, not %s",
			    value_type_name(v));
		return true;
	}
	if (v.type != VT_BYTES)
		return rt_raise(rt, PYEXC_TypeError, "a bytes-like object is "
		    "required, not '%s'", value_type_name(v));
	return true;
}

/*
 * Substring search, linear in the window (Knuth-Morris-Pratt), so that a
 * long haystack and a long needle cost their lengths, not their product:
 * CPython's own search is linear too, and the caps bound only sizes, not
 * time.  backward searches from the end of the window for the last match
 * (rsplit and rfind call it repeatedly with a shrinking window).
 */
static ptrdiff_t
search(struct rt *rt, const struct units *h, const struct units *n,
    size_t start, size_t end, bool backward)
{
	size_t m = n->n, len, i, k = 0, *fail;
#define PAT(j) (backward ? n->u[m - 1 - (j)] : n->u[j])
#define HAY(j) (backward ? h->u[end - 1 - (j)] : h->u[start + (j)])
	if (end < start || m > end - start)
		return -1;
	len = end - start;
	if (m == 0)
		return (ptrdiff_t)(backward ? end : start);
	if (m == 1) {
		for (i = 0; i < len; i++)
			if (HAY(i) == n->u[0])
				return (ptrdiff_t)(backward ? end - 1 - i :
				    start + i);
		return -1;
	}
	/* fail[j]: length of the longest proper border of PAT(0..j] */
	fail = arena_array(rt->arena, m, sizeof *fail);
	fail[0] = 0;
	for (i = 1; i < m; i++) {
		while (k > 0 && PAT(i) != PAT(k))
			k = fail[k - 1];
		if (PAT(i) == PAT(k))
			k++;
		fail[i] = k;
	}
	for (i = 0, k = 0; i < len; i++) {
		while (k > 0 && HAY(i) != PAT(k))
			k = fail[k - 1];
		if (HAY(i) == PAT(k))
			k++;
		if (k == m)
			return (ptrdiff_t)(backward ? end - 1 - i :
			    start + i + 1 - m);
	}
	return -1;
#undef PAT
#undef HAY
}

static ptrdiff_t
find_at(struct rt *rt, const struct units *h, const struct units *n,
    size_t start, size_t end)
{
	return search(rt, h, n, start, end, false);
}

static ptrdiff_t
rfind_at(struct rt *rt, const struct units *h, const struct units *n,
    size_t start, size_t end)
{
	return search(rt, h, n, start, end, true);
}

/* ================================================================ */
/* character classes and case (see the file comment for the scope)   */
/* ================================================================ */

static bool
is_space_unit(uint32_t c, bool is_bytes)
{
	if (c == ' ' || (c >= 0x09 && c <= 0x0D))
		return true;
	if (is_bytes)
		return false;
	return (c >= 0x1C && c <= 0x1F) || c == 0x85 || c == 0xA0 ||
	    c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
	    c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

static bool
is_linebreak(uint32_t c)
{
	return c == '\n' || c == '\r' || c == 0x0B || c == 0x0C ||
	    (c >= 0x1C && c <= 0x1E) || c == 0x85 || c == 0x2028 ||
	    c == 0x2029;
}

/*
 * The tables (src/methods_tables.gen.h, generated from CPython 3.11's
 * unicodedata by tests/gen_methods.py --tables):
 *
 *   upper_runs, lower_runs	simple one-to-one mappings, as runs: c in
 *				[lo, hi] with (c - lo) % stride == 0 maps to
 *				c + delta (stride 2 for alternating pairs)
 *   upper_strings		full uppercase longer than one (ß -> SS)
 *   title_strings		title case where it is not the uppercase
 *   casefold_runs, _strings	casefold where it is not the lowercase
 *   titlecase_letters		category Lt
 *   lower_toggle, upper_toggle	where islower (isupper) is not "has an
 *				upper (lower) mapping and is not Lt"
 *   case_ignorable		skipped around a final sigma
 *   decimal_zeros, digit_ranges, numeric_ranges	the numeric classes
 */
struct caserun {
	uint32_t	lo, hi, stride;
	int32_t		delta;
};
struct casestr {
	uint32_t	 cp;
	const char	*s;	/* UTF-8 */
};
struct cprange {
	uint32_t	lo, hi;
};

#include "methods_tables.gen.h"

#define RANGES(r) (r), sizeof(r) / sizeof((r)[0])

/* Whether a run holds c, and what it maps c to. */
static bool
run_lookup(const struct caserun *r, size_t n, uint32_t c, uint32_t *out)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {		/* the last run with r.lo <= c */
		size_t mid = (lo + hi) / 2;
		if (r[mid].lo <= c)
			lo = mid + 1;
		else
			hi = mid;
	}
	*out = c;
	if (lo == 0)
		return false;
	r += lo - 1;
	if (c > r->hi || (c - r->lo) % r->stride != 0)
		return false;
	*out = (uint32_t)((int64_t)c + r->delta);
	return true;
}

/* c mapped by the run that holds it, or c itself. */
static uint32_t
run_map(const struct caserun *r, size_t n, uint32_t c)
{
	uint32_t out;
	run_lookup(r, n, c, &out);
	return out;
}

static int
cmp_casestr(const void *key, const void *row)
{
	uint32_t c = *(const uint32_t *)key;
	uint32_t cp = ((const struct casestr *)row)->cp;
	return c < cp ? -1 : c > cp;
}

/* The string c maps to in t, or NULL. */
static const char *
str_map(const struct casestr *t, size_t n, uint32_t c)
{
	const struct casestr *e = bsearch(&c, t, n, sizeof *t, cmp_casestr);
	return e != NULL ? e->s : NULL;
}

static bool
in_ranges(const struct cprange *r, size_t n, uint32_t c)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (c < r[mid].lo)
			hi = mid;
		else if (c > r[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

static uint32_t
upper1(uint32_t c)
{
	return run_map(RANGES(upper_runs), c);
}

static uint32_t
lower1(uint32_t c)
{
	return run_map(RANGES(lower_runs), c);
}

static bool
is_titlecase(uint32_t c)
{
	size_t i;
	for (i = 0; i < sizeof titlecase_letters / sizeof titlecase_letters[0];
	    i++)
		if (titlecase_letters[i] == c)
			return true;
	return false;
}

static bool
is_lower_cp(uint32_t c)
{
	bool mapped = (upper1(c) != c ||
	    str_map(RANGES(upper_strings), c) != NULL) && !is_titlecase(c);
	return mapped != in_ranges(RANGES(lower_toggle), c);
}

static bool
is_upper_cp(uint32_t c)
{
	/* İ is the one letter whose lowercase is two code points */
	bool mapped = (lower1(c) != c || c == 0x130) && !is_titlecase(c);
	return mapped != in_ranges(RANGES(upper_toggle), c);
}

static bool
is_cased(uint32_t c)
{
	return is_upper_cp(c) || is_lower_cp(c) || is_titlecase(c);
}

static bool
is_decimal_cp(uint32_t c)
{
	size_t lo = 0, hi = sizeof decimal_zeros / sizeof decimal_zeros[0];
	/* the last zero at or below c, then c within its ten */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (decimal_zeros[mid] <= c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && c - decimal_zeros[lo - 1] < 10;
}

static bool
is_digit_cp(uint32_t c)
{
	return is_decimal_cp(c) || in_ranges(digit_ranges,
	    sizeof digit_ranges / sizeof digit_ranges[0], c);
}

static bool
is_numeric_cp(uint32_t c)
{
	return is_digit_cp(c) || in_ranges(numeric_ranges,
	    sizeof numeric_ranges / sizeof numeric_ranges[0], c);
}

/*
 * isalpha (categories L*) from XID_Start, which unicode.c has: XID_Start
 * is the letters plus the letter numbers (Nl) and four Other_ID_Start
 * symbols, minus a few letters that NFKC would change.  With those
 * corrections it is exact for Unicode 14.0 (checked against CPython 3.11).
 */
static const struct cprange letter_numbers[] = {
	{ 0x16EE, 0x16F0 }, { 0x2160, 0x2182 }, { 0x2185, 0x2188 },
	{ 0x3007, 0x3007 }, { 0x3021, 0x3029 }, { 0x3038, 0x303A },
	{ 0xA6E6, 0xA6EF }, { 0x10140, 0x10174 }, { 0x10341, 0x10341 },
	{ 0x1034A, 0x1034A }, { 0x103D1, 0x103D5 }, { 0x12400, 0x1246E },
};
static const struct cprange alpha_not_xid[] = {
	{ 0x37A, 0x37A }, { 0xE33, 0xE33 }, { 0xEB3, 0xEB3 },
	{ 0x2E2F, 0x2E2F }, { 0xFC5E, 0xFC63 }, { 0xFDFA, 0xFDFB },
	{ 0xFE70, 0xFE70 }, { 0xFE72, 0xFE72 }, { 0xFE74, 0xFE74 },
	{ 0xFE76, 0xFE76 }, { 0xFE78, 0xFE78 }, { 0xFE7A, 0xFE7A },
	{ 0xFE7C, 0xFE7C }, { 0xFE7E, 0xFE7E }, { 0xFF9E, 0xFF9F },
};
static const struct cprange xid_not_alpha[] = {
	{ 0x1885, 0x1886 }, { 0x2118, 0x2118 }, { 0x212E, 0x212E },
};

static bool
is_alpha_cp(uint32_t c)
{
	if (c < 0x80)
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
	if (in_ranges(RANGES(alpha_not_xid), c))
		return true;
	if (in_ranges(RANGES(xid_not_alpha), c) ||
	    in_ranges(RANGES(letter_numbers), c))
		return false;
	return unicode_is_xid_start(c);
}

/* ================================================================ */
/* str and bytes: the shared algorithms                              */
/* ================================================================ */

/* Append the UTF-8 string t as units. */
static void
add_utf8(struct rt *rt, struct ubuf *b, const char *t)
{
	size_t n = strlen(t), i = 0, k;
	uint32_t c;
	while (i < n && (k = unicode_decode(t + i, n - i, &c)) != 0) {
		ubuf_add1(rt, b, c);
		i += k;
	}
}

/* Append the full uppercase of c (ß -> SS, ŉ -> ʼN, ligatures). */
static void
full_upper(struct rt *rt, struct ubuf *b, uint32_t c)
{
	const char *t = c < 0xDF ? NULL : str_map(RANGES(upper_strings), c);
	if (t != NULL)
		add_utf8(rt, b, t);
	else
		ubuf_add1(rt, b, upper1(c));
}

/* Title case of c: the uppercase, except where the table differs. */
static void
full_title(struct rt *rt, struct ubuf *b, uint32_t c)
{
	const char *t = c < 0xDF ? NULL : str_map(RANGES(title_strings), c);
	if (t != NULL)
		add_utf8(rt, b, t);
	else
		full_upper(rt, b, c);
}

/* casefold of c: the lowercase, except where the tables differ. */
static void
full_casefold(struct rt *rt, struct ubuf *b, uint32_t c)
{
	const char *t = c < 0xDF ? NULL : str_map(RANGES(casefold_strings),
	    c);
	uint32_t f;
	if (t != NULL) {
		add_utf8(rt, b, t);
		return;
	}
	if (c == 0x130) {		/* as lower(): i + combining dot */
		ubuf_add1(rt, b, 'i');
		ubuf_add1(rt, b, 0x307);
		return;
	}
	/* a run may map c to itself: Cherokee capitals fold to themselves */
	ubuf_add1(rt, b, run_lookup(RANGES(casefold_runs), c, &f) ? f :
	    lower1(c));
}

static bool
is_case_ignorable(uint32_t c)
{
	return in_ranges(RANGES(case_ignorable), c);
}

/*
 * Full lowercase of u[i]: İ -> i + combining dot, and Σ -> ς in the
 * Final_Sigma context (a cased letter before it and none after it, case-
 * ignorable characters skipped on both sides), as CPython's lower() does.
 */
static void
full_lower(struct rt *rt, struct ubuf *b, const uint32_t *u, size_t n,
    size_t i)
{
	uint32_t c = u[i];
	if (c == 0x130) {
		ubuf_add1(rt, b, 'i');
		ubuf_add1(rt, b, 0x307);
		return;
	}
	if (c == 0x3A3) {
		bool final = false;
		size_t j;
		for (j = i; j-- > 0;)
			if (!is_case_ignorable(u[j])) {
				final = is_cased(u[j]);
				break;
			}
		if (final) {
			for (j = i + 1; j < n && is_case_ignorable(u[j]); j++)
				;
			final = j == n || !is_cased(u[j]);
		}
		ubuf_add1(rt, b, final ? 0x3C2 : 0x3C3);
		return;
	}
	ubuf_add1(rt, b, lower1(c));
}

enum casemode { C_UPPER, C_LOWER, C_CASEFOLD, C_CAPITALIZE, C_TITLE,
	C_SWAPCASE };

static bool
change_case(struct rt *rt, value self, enum casemode m, value *out)
{
	bool is_bytes = self.type == VT_BYTES;
	struct units s = units_of(rt, self);
	struct ubuf b = { 0 };
	bool prev_cased = false;
	size_t i;

	/* at most three units per unit (ß -> SS, ﬃ -> FFI), so the units
	 * stay a small multiple of the input; the result is checked below */
	for (i = 0; i < s.n; i++) {
		uint32_t c = s.u[i];
		if (is_bytes && c >= 0x80) {
			ubuf_add1(rt, &b, c);	/* bytes: ASCII only */
			prev_cased = false;
			continue;
		}
		switch (m) {
		case C_UPPER:
			full_upper(rt, &b, c);
			break;
		case C_LOWER:
			full_lower(rt, &b, s.u, s.n, i);
			break;
		case C_CASEFOLD:
			full_casefold(rt, &b, c);
			break;
		case C_CAPITALIZE:
			if (i == 0)
				full_title(rt, &b, c);
			else
				full_lower(rt, &b, s.u, s.n, i);
			break;
		case C_TITLE:
			if (prev_cased)
				full_lower(rt, &b, s.u, s.n, i);
			else
				full_title(rt, &b, c);
			prev_cased = is_cased(c);
			break;
		case C_SWAPCASE:
			/* a titlecase letter is neither, and stays */
			if (is_upper_cp(c))
				full_lower(rt, &b, s.u, s.n, i);
			else if (is_lower_cp(c))
				full_upper(rt, &b, c);
			else
				ubuf_add1(rt, &b, c);
			break;
		}
	}
	return units_result(rt, is_bytes, b.u, b.n, out);
}

#define CASE_METHOD(fn, qual, mode)					\
	METHOD(fn)							\
	{								\
		if (!no_args(rt, qual, nargs, nkw))			\
			return false;					\
		return change_case(rt, self, mode, out);		\
	}

CASE_METHOD(str_upper, "str.upper", C_UPPER)
CASE_METHOD(str_lower, "str.lower", C_LOWER)
CASE_METHOD(str_casefold, "str.casefold", C_CASEFOLD)
CASE_METHOD(str_capitalize, "str.capitalize", C_CAPITALIZE)
CASE_METHOD(str_title, "str.title", C_TITLE)
CASE_METHOD(str_swapcase, "str.swapcase", C_SWAPCASE)
CASE_METHOD(bytes_upper, "bytes.upper", C_UPPER)
CASE_METHOD(bytes_lower, "bytes.lower", C_LOWER)
CASE_METHOD(bytes_capitalize, "bytes.capitalize", C_CAPITALIZE)
CASE_METHOD(bytes_title, "bytes.title", C_TITLE)
CASE_METHOD(bytes_swapcase, "bytes.swapcase", C_SWAPCASE)

/* ---- predicates ---- */

enum pred { P_DIGIT, P_ALPHA, P_ALNUM, P_SPACE, P_DECIMAL, P_NUMERIC,
	P_ASCII, P_PRINTABLE };

/* bytes classify ASCII only: a byte past 0x7F is in no class */
static bool
pred_one(uint32_t c, enum pred p, bool is_bytes)
{
	if (is_bytes && c >= 0x80)
		return false;
	switch (p) {
	case P_DIGIT: return is_digit_cp(c);
	case P_ALPHA: return is_alpha_cp(c);
	case P_ALNUM: return is_alpha_cp(c) || is_numeric_cp(c);
	case P_SPACE: return is_space_unit(c, is_bytes);
	case P_DECIMAL: return is_decimal_cp(c);
	case P_NUMERIC: return is_numeric_cp(c);
	case P_ASCII: return c < 0x80;
	case P_PRINTABLE: return unicode_is_printable(c);
	}
	return false;
}

static bool
str_pred(struct rt *rt, value self, const char *qual, enum pred p,
    size_t nargs, size_t nkw, value *out)
{
	struct units s;
	size_t i;
	if (!no_args(rt, qual, nargs, nkw))
		return false;
	s = units_of(rt, self);
	if (s.n == 0) {
		*out = value_bool(p == P_ASCII || p == P_PRINTABLE);
		return true;
	}
	for (i = 0; i < s.n; i++)
		if (!pred_one(s.u[i], p, self.type == VT_BYTES)) {
			*out = value_bool(false);
			return true;
		}
	*out = value_bool(true);
	return true;
}

#define PRED_METHOD(fn, qual, p)					\
	METHOD(fn)							\
	{								\
		return str_pred(rt, self, qual, p, nargs, nkw, out);	\
	}

PRED_METHOD(str_isdigit, "str.isdigit", P_DIGIT)
PRED_METHOD(str_isalpha, "str.isalpha", P_ALPHA)
PRED_METHOD(str_isalnum, "str.isalnum", P_ALNUM)
PRED_METHOD(str_isspace, "str.isspace", P_SPACE)
PRED_METHOD(str_isdecimal, "str.isdecimal", P_DECIMAL)
PRED_METHOD(str_isnumeric, "str.isnumeric", P_NUMERIC)
PRED_METHOD(str_isascii, "str.isascii", P_ASCII)
PRED_METHOD(str_isprintable, "str.isprintable", P_PRINTABLE)
PRED_METHOD(bytes_isdigit, "bytes.isdigit", P_DIGIT)
PRED_METHOD(bytes_isalpha, "bytes.isalpha", P_ALPHA)
PRED_METHOD(bytes_isalnum, "bytes.isalnum", P_ALNUM)
PRED_METHOD(bytes_isspace, "bytes.isspace", P_SPACE)
PRED_METHOD(bytes_isascii, "bytes.isascii", P_ASCII)

/* isupper/islower: no cased character of the other kind, at least one. */
static bool
str_case_pred(struct rt *rt, value self, const char *qual, bool upper,
    size_t nargs, size_t nkw, value *out)
{
	struct units s;
	bool any = false;
	size_t i;
	if (!no_args(rt, qual, nargs, nkw))
		return false;
	s = units_of(rt, self);
	for (i = 0; i < s.n; i++) {
		uint32_t c = s.u[i];
		if (self.type == VT_BYTES && c >= 0x80)
			continue;	/* uncased */
		if (upper ? (is_lower_cp(c) || is_titlecase(c)) :
		    (is_upper_cp(c) || is_titlecase(c))) {
			*out = value_bool(false);
			return true;
		}
		if (upper ? is_upper_cp(c) : is_lower_cp(c))
			any = true;
	}
	*out = value_bool(any);
	return true;
}

METHOD(str_isupper)
{
	return str_case_pred(rt, self, "str.isupper", true, nargs, nkw, out);
}

METHOD(str_islower)
{
	return str_case_pred(rt, self, "str.islower", false, nargs, nkw, out);
}

METHOD(bytes_isupper)
{
	return str_case_pred(rt, self, "bytes.isupper", true, nargs, nkw, out);
}

METHOD(bytes_islower)
{
	return str_case_pred(rt, self, "bytes.islower", false, nargs, nkw,
	    out);
}

/* istitle: uppercase only after uncased, lowercase only after cased. */
static bool
do_istitle(struct rt *rt, value self, const char *qual, size_t nargs,
    size_t nkw, value *out)
{
	struct units s;
	bool prev_cased = false, any = false;
	size_t i;
	if (!no_args(rt, qual, nargs, nkw))
		return false;
	s = units_of(rt, self);
	for (i = 0; i < s.n; i++) {
		uint32_t c = s.u[i];
		if (self.type == VT_BYTES && c >= 0x80)
			prev_cased = false;
		else if (is_upper_cp(c) || is_titlecase(c)) {
			if (prev_cased) {
				*out = value_bool(false);
				return true;
			}
			prev_cased = any = true;
		} else if (is_lower_cp(c)) {
			if (!prev_cased) {
				*out = value_bool(false);
				return true;
			}
			prev_cased = any = true;
		} else
			prev_cased = false;
	}
	*out = value_bool(any);
	return true;
}

METHOD(str_istitle)
{
	return do_istitle(rt, self, "str.istitle", nargs, nkw, out);
}

METHOD(bytes_istitle)
{
	return do_istitle(rt, self, "bytes.istitle", nargs, nkw, out);
}

/* isidentifier: XID_Start or '_', then XID_Continue. */
METHOD(str_isidentifier)
{
	struct units s;
	size_t i;
	if (!no_args(rt, "str.isidentifier", nargs, nkw))
		return false;
	s = units_of(rt, self);
	if (s.n == 0 || (s.u[0] != '_' && !unicode_is_xid_start(s.u[0]))) {
		*out = value_bool(false);
		return true;
	}
	for (i = 1; i < s.n; i++)
		if (!unicode_is_xid_continue(s.u[i])) {
			*out = value_bool(false);
			return true;
		}
	*out = value_bool(true);
	return true;
}

/* ---- strip, lstrip, rstrip ---- */

static bool
in_units(const struct units *set, uint32_t c)
{
	size_t k;
	for (k = 0; k < set->n; k++)
		if (set->u[k] == c)
			return true;
	return false;
}

static bool
do_strip(struct rt *rt, value self, const char *qual, bool left, bool right,
    const value *args, size_t nargs, size_t nkw, value *out)
{
	bool is_bytes = self.type == VT_BYTES;
	struct units s, chars = { NULL, 0 };
	bool have_chars = false;
	size_t i = 0, j;

	if (!pos_args(rt, qual, 0, 1, nargs, nkw))
		return false;
	if (nargs == 1 && args[0].type != VT_NONE) {
		if (!is_bytes && args[0].type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError, "%s arg must be None "
			    "or str", strchr(qual, '.') + 1);
		if (!want_same(rt, self, args[0]))
			return false;
		chars = units_of(rt, args[0]);
		have_chars = true;
	}
	s = units_of(rt, self);
	j = s.n;
#define STRIPPED(c) (have_chars ? in_units(&chars, (c)) :		\
	is_space_unit((c), is_bytes))
	if (left)
		while (i < j && STRIPPED(s.u[i]))
			i++;
	if (right)
		while (j > i && STRIPPED(s.u[j - 1]))
			j--;
#undef STRIPPED
	*out = units_value(rt, is_bytes, s.u + i, j - i);
	return true;
}

METHOD(str_strip)
{
	return do_strip(rt, self, "str.strip", true, true, args, nargs, nkw,
	    out);
}

METHOD(str_lstrip)
{
	return do_strip(rt, self, "str.lstrip", true, false, args, nargs, nkw,
	    out);
}

METHOD(str_rstrip)
{
	return do_strip(rt, self, "str.rstrip", false, true, args, nargs, nkw,
	    out);
}

METHOD(bytes_strip)
{
	return do_strip(rt, self, "bytes.strip", true, true, args, nargs, nkw,
	    out);
}

METHOD(bytes_lstrip)
{
	return do_strip(rt, self, "bytes.lstrip", true, false, args, nargs,
	    nkw, out);
}

METHOD(bytes_rstrip)
{
	return do_strip(rt, self, "bytes.rstrip", false, true, args, nargs,
	    nkw, out);
}

/* ---- split, rsplit ---- */

/* One more piece: a million pieces of a split hold more than the
 * string, so each asks first, as a list's append does. */
static bool
push_piece(struct rt *rt, value list, bool is_bytes, const uint32_t *u,
    size_t n)
{
	if (!rt_check_seq_len(rt, list.as.list->len + 1) ||
	    !rt_check_bytes(rt, 4 * (uint64_t)n + 48))
		return false;
	value_list_append(rt->arena, list, units_value(rt, is_bytes, u, n));
	return true;
}

static bool
do_split(struct rt *rt, value self, bool reverse, const value *args,
    size_t nargs, const char *const *kwnames, size_t nkw, value *out)
{
	static const struct param params[] = {
		{ "sep", false }, { "maxsplit", false },
	};
	bool is_bytes = self.type == VT_BYTES;
	const char *fname = reverse ? "rsplit" : "split";
	value a[2];
	bool given[2];
	int64_t maxsplit = -1;
	struct units s, sep;
	value list;
	size_t i, j, nsplit = 0;

	if (!kw_args(rt, fname, params, 2, args, nargs, kwnames, nkw, a, given))
		return false;
	/* the clinic converts maxsplit before the body looks at sep */
	if (given[1] && !arg_index(rt, a[1], &maxsplit))
		return false;
	if (a[0].type != VT_NONE) {
		if (!is_bytes && a[0].type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError, "must be str or None, "
			    "not %s", value_type_name(a[0]));
		if (!want_same(rt, self, a[0]))
			return false;
	}
	if (maxsplit < 0)
		maxsplit = INT64_MAX;
	s = units_of(rt, self);
	list = value_list(rt->arena, 0);
#define SP(k) is_space_unit(s.u[k], is_bytes)
	if (a[0].type == VT_NONE) {
		/* runs of whitespace separate; none at either end counts */
		if (!reverse) {
			i = 0;
			for (;;) {
				while (i < s.n && SP(i))
					i++;
				if (i == s.n)
					break;
				if ((int64_t)nsplit == maxsplit) {
					/* the rest, trailing space and all */
					if (!push_piece(rt, list, is_bytes,
					    s.u + i, s.n - i))
						return false;
					break;
				}
				j = i;
				while (j < s.n && !SP(j))
					j++;
				if (!push_piece(rt, list, is_bytes,
				    s.u + i, j - i))
					return false;
				nsplit++;
				i = j;
			}
		} else {
			size_t n;
			value rev = value_list(rt->arena, 0);
			j = s.n;
			for (;;) {
				while (j > 0 && SP(j - 1))
					j--;
				if (j == 0)
					break;
				if ((int64_t)nsplit == maxsplit) {
					if (!push_piece(rt, rev, is_bytes,
					    s.u, j))
						return false;
					break;
				}
				i = j;
				while (i > 0 && !SP(i - 1))
					i--;
				if (!push_piece(rt, rev, is_bytes,
				    s.u + i, j - i))
					return false;
				nsplit++;
				j = i;
			}
			for (n = rev.as.list->len; n-- > 0;)
				value_list_append(rt->arena, list,
				    rev.as.list->items[n]);
		}
		*out = list;
		return true;
	}
#undef SP
	sep = units_of(rt, a[0]);
	if (sep.n == 0)
		return rt_raise(rt, PYEXC_ValueError, "empty separator");
	if (!reverse) {
		i = 0;
		for (;;) {
			ptrdiff_t f = (int64_t)nsplit == maxsplit ? -1 :
			    find_at(rt, &s, &sep, i, s.n);
			if (f < 0) {
				if (!push_piece(rt, list, is_bytes, s.u + i,
				    s.n - i))
					return false;
				break;
			}
			if (!push_piece(rt, list, is_bytes,
			    s.u + i, (size_t)f - i))
				return false;
			i = (size_t)f + sep.n;
			nsplit++;
		}
	} else {
		size_t n;
		value rev = value_list(rt->arena, 0);
		j = s.n;
		for (;;) {
			ptrdiff_t f = (int64_t)nsplit == maxsplit ? -1 :
			    rfind_at(rt, &s, &sep, 0, j);
			if (f < 0) {
				if (!push_piece(rt, rev, is_bytes, s.u, j))
					return false;
				break;
			}
			if (!push_piece(rt, rev, is_bytes, s.u + f + sep.n,
			    j - (size_t)f - sep.n))
				return false;
			j = (size_t)f;
			nsplit++;
		}
		for (n = rev.as.list->len; n-- > 0;)
			value_list_append(rt->arena, list,
			    rev.as.list->items[n]);
	}
	*out = list;
	return true;
}

METHOD(str_split)
{
	return do_split(rt, self, false, args, nargs, kwnames, nkw, out);
}

METHOD(str_rsplit)
{
	return do_split(rt, self, true, args, nargs, kwnames, nkw, out);
}

/* ---- splitlines(keepends=False) ---- */

static bool
do_splitlines(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *out)
{
	static const struct param params[] = { { "keepends", false } };
	bool is_bytes = self.type == VT_BYTES;
	value a[1];
	bool given[1], keep = false;
	struct units s;
	value list;
	size_t i = 0, j;

	if (!kw_args(rt, "splitlines", params, 1, args, nargs, kwnames, nkw, a,
	    given))
		return false;
	if (given[0]) {
		int64_t k;
		if (!arg_index(rt, a[0], &k))
			return false;
		keep = k != 0;
	}
	s = units_of(rt, self);
	list = value_list(rt->arena, 0);
	while (i < s.n) {
		size_t eol;
		j = i;
		/* bytes break at \n and \r only */
		while (j < s.n && !(is_bytes ? s.u[j] == '\n' ||
		    s.u[j] == '\r' : is_linebreak(s.u[j])))
			j++;
		eol = j;
		if (j < s.n) {
			if (s.u[j] == '\r' && j + 1 < s.n && s.u[j + 1] == '\n')
				j += 2;
			else
				j++;
		}
		if (!push_piece(rt, list, is_bytes,
		    s.u + i, (keep ? j : eol) - i))
			return false;
		i = j;
	}
	*out = list;
	return true;
}

METHOD(str_splitlines)
{
	return do_splitlines(rt, self, args, nargs, kwnames, nkw, out);
}

METHOD(bytes_splitlines)
{
	return do_splitlines(rt, self, args, nargs, kwnames, nkw, out);
}

/* ---- join(iterable) ---- */

struct join_ctx {
	value		self;
	struct ubuf	b;
	struct units	sep;
	size_t		i;
	uint64_t	bytes;
};

static bool
join_step(struct rt *rt, value item, void *p)
{
	struct join_ctx *c = p;
	struct units u;
	if (c->self.type == VT_STR ? item.type != VT_STR :
	    item.type != VT_BYTES)
		return rt_raise(rt, PYEXC_TypeError, c->self.type == VT_STR ?
		    "sequence item %zu: expected str instance, %s found" :
		    "sequence item %zu: expected a bytes-like object, %s found",
		    c->i, value_type_name(item));
	c->bytes += item.as.s->len + (c->i > 0 ? c->self.as.s->len : 0);
	if (!rt_check_str_bytes(rt, c->bytes))
		return false;
	u = units_of(rt, item);
	if (c->i > 0)
		ubuf_add(rt, &c->b, c->sep.u, c->sep.n);
	ubuf_add(rt, &c->b, u.u, u.n);
	c->i++;
	return true;
}

static bool
do_join(struct rt *rt, value self, const char *qual, const value *args,
    size_t nargs, size_t nkw, value *out)
{
	struct join_ctx c = { .self = self };
	if (!one_arg(rt, qual, nargs, nkw))
		return false;
	if (!value_is_iterable(args[0]))
		return rt_raise(rt, PYEXC_TypeError, "can only join an iterable");
	c.sep = units_of(rt, self);
	if (!value_iterate(rt, args[0], join_step, &c))
		return false;
	*out = units_value(rt, self.type == VT_BYTES, c.b.u, c.b.n);
	return true;
}

METHOD(str_join)
{
	return do_join(rt, self, "str.join", args, nargs, nkw, out);
}

METHOD(bytes_join)
{
	return do_join(rt, self, "bytes.join", args, nargs, nkw, out);
}

/* ---- replace(old, new, count=-1) ---- */

static bool
do_replace(struct rt *rt, value self, const char *qual, const value *args,
    size_t nargs, size_t nkw, value *out)
{
	bool is_bytes = self.type == VT_BYTES;
	struct units s, from, to;
	struct ubuf b = { 0 };
	int64_t count = -1, done = 0;
	uint64_t nres;
	size_t i = 0;
	ptrdiff_t f;

	if (!pos_args(rt, qual, 2, 3, nargs, nkw))
		return false;
	if (!is_bytes) {
		if (args[0].type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError, "replace() argument 1 "
			    "must be str, not %s", clinic_type_name(args[0]));
		if (args[1].type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError, "replace() argument 2 "
			    "must be str, not %s", clinic_type_name(args[1]));
	} else if (!want_same(rt, self, args[0]) ||
	    !want_same(rt, self, args[1]))
		return false;
	if (nargs == 3 && !arg_index(rt, args[2], &count))
		return false;
	if (count < 0)
		count = INT64_MAX;
	s = units_of(rt, self);
	from = units_of(rt, args[0]);
	to = units_of(rt, args[1]);
	if (from.n == 0) {
		/* the empty string matches before every unit and at the end */
		uint64_t k = (uint64_t)count < s.n + 1 ? (uint64_t)count :
		    s.n + 1;
		if (!check_bytes(rt, self.as.s->len, k, args[1].as.s->len))
			return false;
		for (i = 0; i <= s.n; i++) {
			if ((int64_t)i < count)
				ubuf_add(rt, &b, to.u, to.n);
			if (i < s.n)
				ubuf_add1(rt, &b, s.u[i]);
		}
		*out = units_value(rt, is_bytes, b.u, b.n);
		return true;
	}
	/* count the matches first, so the size is known before building */
	for (i = 0; done < count && (f = find_at(rt, &s, &from, i, s.n)) >= 0;
	    done++)
		i = (size_t)f + from.n;
	nres = self.as.s->len - (uint64_t)done * args[0].as.s->len;
	if (!check_bytes(rt, nres, (uint64_t)done, args[1].as.s->len))
		return false;
	i = 0;
	for (done = 0; done < count &&
	    (f = find_at(rt, &s, &from, i, s.n)) >= 0; done++) {
		ubuf_add(rt, &b, s.u + i, (size_t)f - i);
		ubuf_add(rt, &b, to.u, to.n);
		i = (size_t)f + from.n;
	}
	ubuf_add(rt, &b, s.u + i, s.n - i);
	*out = units_value(rt, is_bytes, b.u, b.n);
	return true;
}

METHOD(str_replace)
{
	return do_replace(rt, self, "str.replace", args, nargs, nkw, out);
}

METHOD(bytes_replace)
{
	return do_replace(rt, self, "bytes.replace", args, nargs, nkw, out);
}

/* ---- startswith, endswith ---- */

static bool
do_affix(struct rt *rt, value self, const char *qual, bool ends,
    const value *args, size_t nargs, size_t nkw, value *out)
{
	const char *fname = strchr(qual, '.') + 1;
	bool is_bytes = self.type == VT_BYTES;
	const char *tname = is_bytes ? "bytes" : "str";
	int64_t start = 0, end = INT64_MAX;
	struct units s;
	const value *cands;
	size_t ncand, i;

	if (!old_args(rt, qual, 1, 3, nargs, nkw))
		return false;
	if (nargs > 1 && !arg_slice_bound(rt, args[1], true, 0, &start))
		return false;
	if (nargs > 2 && !arg_slice_bound(rt, args[2], true, INT64_MAX, &end))
		return false;
	if (args[0].type == VT_TUPLE) {
		cands = args[0].as.tuple->items;
		ncand = args[0].as.tuple->len;
		for (i = 0; i < ncand; i++)
			if (cands[i].type != self.type && is_bytes)
				return rt_raise(rt, PYEXC_TypeError, "a bytes-like "
				    "object is required, not '%s'",
				    value_type_name(cands[i]));
			else if (cands[i].type != self.type)
				return rt_raise(rt, PYEXC_TypeError, "tuple for %s "
				    "must only contain %s, not %s", fname,
				    tname, value_type_name(cands[i]));
	} else if (args[0].type == self.type) {
		cands = &args[0];
		ncand = 1;
	} else
		return rt_raise(rt, PYEXC_TypeError, "%s first arg must be %s or a "
		    "tuple of %s, not %s", fname, tname, tname,
		    value_type_name(args[0]));
	s = units_of(rt, self);
	adjust_bounds((int64_t)s.n, &start, &end);
	for (i = 0; i < ncand; i++) {
		struct units a = units_of(rt, cands[i]);
		int64_t at;
		if (start > (int64_t)s.n)
			continue;
		if (end - start < (int64_t)a.n)
			continue;
		at = ends ? end - (int64_t)a.n : start;
		if (memcmp(s.u + at, a.u, a.n * sizeof *a.u) == 0) {
			*out = value_bool(true);
			return true;
		}
	}
	*out = value_bool(false);
	return true;
}

METHOD(str_startswith)
{
	return do_affix(rt, self, "str.startswith", false, args, nargs, nkw,
	    out);
}

METHOD(str_endswith)
{
	return do_affix(rt, self, "str.endswith", true, args, nargs, nkw, out);
}

METHOD(bytes_startswith)
{
	return do_affix(rt, self, "bytes.startswith", false, args, nargs, nkw,
	    out);
}

METHOD(bytes_endswith)
{
	return do_affix(rt, self, "bytes.endswith", true, args, nargs, nkw,
	    out);
}

/* ---- find, rfind, index, rindex, count ---- */

enum findop { F_FIND, F_RFIND, F_INDEX, F_RINDEX, F_COUNT };

static bool
do_find(struct rt *rt, value self, const char *qual, enum findop op,
    const value *args, size_t nargs, size_t nkw, value *out)
{
	bool is_bytes = self.type == VT_BYTES;
	int64_t start = 0, end = INT64_MAX, r = -1;
	struct units s, sub;
	uint32_t byte;

	if (!old_args(rt, qual, 1, 3, nargs, nkw))
		return false;
	/* the bounds are parsed with the arguments, before sub is looked at */
	if (nargs > 1 && !arg_slice_bound(rt, args[1], true, 0, &start))
		return false;
	if (nargs > 2 && !arg_slice_bound(rt, args[2], true, INT64_MAX, &end))
		return false;
	if (!is_bytes) {
		if (args[0].type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError, "must be str, not %s",
			    value_type_name(args[0]));
		sub = units_of(rt, args[0]);
	} else if (NUM_IS_INTLIKE(args[0])) {
		int64_t k;
		if (!num_to_int64_clamped(args[0], &k) || k < 0 || k > 255)
			return rt_raise(rt, PYEXC_ValueError, "byte must be in "
			    "range(0, 256)");
		byte = (uint32_t)k;
		sub.u = &byte;
		sub.n = 1;
	} else if (args[0].type == VT_BYTES)
		sub = units_of(rt, args[0]);
	else
		return rt_raise(rt, PYEXC_TypeError, "argument should be integer "
		    "or bytes-like object, not '%s'", value_type_name(args[0]));
	s = units_of(rt, self);
	adjust_bounds((int64_t)s.n, &start, &end);
	if (op == F_COUNT) {
		int64_t n = 0;
		if (start <= (int64_t)s.n && end >= start) {
			if (sub.n == 0)
				n = end - start + 1;
			else {
				size_t i = (size_t)start;
				ptrdiff_t f;
				while ((f = find_at(rt, &s, &sub, i,
				    (size_t)end)) >= 0) {
					n++;
					i = (size_t)f + sub.n;
				}
			}
		}
		*out = value_int(n);
		return true;
	}
	if (start <= (int64_t)s.n && end >= start)
		r = op == F_FIND || op == F_INDEX ?
		    find_at(rt, &s, &sub, (size_t)start, (size_t)end) :
		    rfind_at(rt, &s, &sub, (size_t)start, (size_t)end);
	if (r < 0 && (op == F_INDEX || op == F_RINDEX))
		return rt_raise(rt, PYEXC_ValueError, is_bytes ?
		    "subsection not found" : "substring not found");
	*out = value_int(r);
	return true;
}

#define FIND_METHOD(fn, qual, op)					\
	METHOD(fn)							\
	{								\
		return do_find(rt, self, qual, op, args, nargs, nkw, out); \
	}

FIND_METHOD(str_find, "str.find", F_FIND)
FIND_METHOD(str_rfind, "str.rfind", F_RFIND)
FIND_METHOD(str_index, "str.index", F_INDEX)
FIND_METHOD(str_rindex, "str.rindex", F_RINDEX)
FIND_METHOD(str_count, "str.count", F_COUNT)
FIND_METHOD(bytes_find, "bytes.find", F_FIND)
FIND_METHOD(bytes_rfind, "bytes.rfind", F_RFIND)
FIND_METHOD(bytes_index, "bytes.index", F_INDEX)
FIND_METHOD(bytes_rindex, "bytes.rindex", F_RINDEX)
FIND_METHOD(bytes_count, "bytes.count", F_COUNT)

/* ---- partition, rpartition ---- */

static bool
do_partition(struct rt *rt, value self, const char *qual, bool reverse,
    const value *args, size_t nargs, size_t nkw, value *out)
{
	bool is_bytes = self.type == VT_BYTES;
	struct units s, sep;
	ptrdiff_t f;
	value t;

	if (!one_arg(rt, qual, nargs, nkw) ||
	    !want_same(rt, self, args[0]))
		return false;
	sep = units_of(rt, args[0]);
	if (sep.n == 0)
		return rt_raise(rt, PYEXC_ValueError, "empty separator");
	s = units_of(rt, self);
	f = reverse ? rfind_at(rt, &s, &sep, 0, s.n) :
	    find_at(rt, &s, &sep, 0, s.n);
	t = value_tuple(rt->arena, 3);
	if (f < 0) {
		value whole = self, empty = units_value(rt, is_bytes, NULL, 0);
		t.as.tuple->items[0] = reverse ? empty : whole;
		t.as.tuple->items[1] = empty;
		t.as.tuple->items[2] = reverse ? whole : empty;
	} else {
		t.as.tuple->items[0] = units_value(rt, is_bytes, s.u,
		    (size_t)f);
		t.as.tuple->items[1] = args[0];
		t.as.tuple->items[2] = units_value(rt, is_bytes,
		    s.u + f + sep.n, s.n - (size_t)f - sep.n);
	}
	*out = t;
	return true;
}

METHOD(str_partition)
{
	return do_partition(rt, self, "str.partition", false, args, nargs, nkw,
	    out);
}

METHOD(str_rpartition)
{
	return do_partition(rt, self, "str.rpartition", true, args, nargs, nkw,
	    out);
}

METHOD(bytes_partition)
{
	return do_partition(rt, self, "bytes.partition", false, args, nargs,
	    nkw, out);
}

METHOD(bytes_rpartition)
{
	return do_partition(rt, self, "bytes.rpartition", true, args, nargs,
	    nkw, out);
}

/* ---- removeprefix, removesuffix ---- */

static bool
do_remove_affix(struct rt *rt, value self, const char *qual, bool suffix,
    const value *args, size_t nargs, size_t nkw, value *out)
{
	struct units s, a;
	if (!one_arg(rt, qual, nargs, nkw))
		return false;
	if (self.type == VT_STR && args[0].type != VT_STR)
		return rt_raise(rt, PYEXC_TypeError, "%s() argument must be str, "
		    "not %s", strchr(qual, '.') + 1, clinic_type_name(args[0]));
	if (!want_same(rt, self, args[0]))
		return false;
	s = units_of(rt, self);
	a = units_of(rt, args[0]);
	*out = self;
	if (a.n == 0 || a.n > s.n)
		return true;
	if (!suffix && memcmp(s.u, a.u, a.n * sizeof *a.u) == 0)
		*out = units_value(rt, self.type == VT_BYTES, s.u + a.n,
		    s.n - a.n);
	if (suffix && memcmp(s.u + s.n - a.n, a.u, a.n * sizeof *a.u) == 0)
		*out = units_value(rt, self.type == VT_BYTES, s.u, s.n - a.n);
	return true;
}

METHOD(bytes_removeprefix)
{
	return do_remove_affix(rt, self, "bytes.removeprefix", false, args,
	    nargs, nkw, out);
}

METHOD(bytes_removesuffix)
{
	return do_remove_affix(rt, self, "bytes.removesuffix", true, args,
	    nargs, nkw, out);
}

METHOD(str_removeprefix)
{
	return do_remove_affix(rt, self, "str.removeprefix", false, args,
	    nargs, nkw, out);
}

METHOD(str_removesuffix)
{
	return do_remove_affix(rt, self, "str.removesuffix", true, args,
	    nargs, nkw, out);
}

/* ---- zfill, center, ljust, rjust ---- */

static bool
do_zfill(struct rt *rt, value self, const char *qual, const value *args,
    size_t nargs, size_t nkw, value *out)
{
	struct units s;
	struct ubuf b = { 0 };
	int64_t width;
	size_t i, fill, at = 0;

	if (!one_arg(rt, qual, nargs, nkw) ||
	    !arg_index(rt, args[0], &width))
		return false;
	s = units_of(rt, self);
	if (width <= (int64_t)s.n) {
		*out = self;
		return true;
	}
	if (!check_bytes(rt, self.as.s->len, (uint64_t)width - s.n, 1))
		return false;
	fill = (size_t)width - s.n;
	if (s.n > 0 && (s.u[0] == '+' || s.u[0] == '-')) {
		ubuf_add1(rt, &b, s.u[0]);
		at = 1;
	}
	for (i = 0; i < fill; i++)
		ubuf_add1(rt, &b, '0');
	ubuf_add(rt, &b, s.u + at, s.n - at);
	*out = units_value(rt, self.type == VT_BYTES, b.u, b.n);
	return true;
}

METHOD(str_zfill)
{
	return do_zfill(rt, self, "str.zfill", args, nargs, nkw, out);
}

METHOD(bytes_zfill)
{
	return do_zfill(rt, self, "bytes.zfill", args, nargs, nkw, out);
}

enum justify { J_LEFT, J_RIGHT, J_CENTER };

static bool
do_justify(struct rt *rt, value self, const char *qual, enum justify how,
    const value *args, size_t nargs, size_t nkw, value *out)
{
	struct units s;
	struct ubuf b = { 0 };
	uint32_t fillc = ' ';
	int64_t width;
	size_t i, pad, left;

	if (!pos_args(rt, qual, 1, 2, nargs, nkw) ||
	    !arg_index(rt, args[0], &width))
		return false;
	if (nargs == 2 && self.type == VT_BYTES) {
		if (args[1].type != VT_BYTES || args[1].as.s->len != 1)
			return rt_raise(rt, PYEXC_TypeError, "%s() argument 2 must "
			    "be a byte string of length 1, not %s",
			    strchr(qual, '.') + 1, clinic_type_name(args[1]));
		fillc = (unsigned char)args[1].as.s->data[0];
	} else if (nargs == 2) {
		if (args[1].type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError, "The fill character "
			    "must be a unicode character, not %s",
			    value_type_name(args[1]));
		if (args[1].as.s->nchars != 1)
			return rt_raise(rt, PYEXC_TypeError, "The fill character "
			    "must be exactly one character long");
		fillc = units_of(rt, args[1]).u[0];
	}
	s = units_of(rt, self);
	if (width <= (int64_t)s.n) {
		*out = self;
		return true;
	}
	if (!check_bytes(rt, self.as.s->len, (uint64_t)width - s.n,
	    unit_bytes(false, fillc)))
		return false;
	pad = (size_t)width - s.n;
	/* CPython's center: the odd pad goes left when width is odd */
	left = how == J_LEFT ? 0 : how == J_RIGHT ? pad :
	    pad / 2 + (pad & (size_t)width & 1);
	for (i = 0; i < left; i++)
		ubuf_add1(rt, &b, fillc);
	ubuf_add(rt, &b, s.u, s.n);
	for (i = left; i < pad; i++)
		ubuf_add1(rt, &b, fillc);
	*out = units_value(rt, self.type == VT_BYTES, b.u, b.n);
	return true;
}

METHOD(bytes_center)
{
	return do_justify(rt, self, "bytes.center", J_CENTER, args, nargs, nkw,
	    out);
}

METHOD(bytes_ljust)
{
	return do_justify(rt, self, "bytes.ljust", J_LEFT, args, nargs, nkw,
	    out);
}

METHOD(bytes_rjust)
{
	return do_justify(rt, self, "bytes.rjust", J_RIGHT, args, nargs, nkw,
	    out);
}

METHOD(str_center)
{
	return do_justify(rt, self, "str.center", J_CENTER, args, nargs, nkw,
	    out);
}

METHOD(str_ljust)
{
	return do_justify(rt, self, "str.ljust", J_LEFT, args, nargs, nkw,
	    out);
}

METHOD(str_rjust)
{
	return do_justify(rt, self, "str.rjust", J_RIGHT, args, nargs, nkw,
	    out);
}

/* ---- expandtabs(tabsize=8) ---- */

static bool
do_expandtabs(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *out)
{
	static const struct param params[] = { { "tabsize", false } };
	value a[1];
	bool given[1];
	int64_t tab = 8;
	uint64_t col = 0, total = 0;
	struct units s;
	struct ubuf b = { 0 };
	size_t i, k;

	if (!kw_args(rt, "expandtabs", params, 1, args, nargs, kwnames, nkw, a,
	    given))
		return false;
	if (given[0]) {
		if (!NUM_IS_INTLIKE(a[0]))
			return rt_raise(rt, PYEXC_TypeError, "'%s' object cannot "
			    "be interpreted as an integer",
			    value_type_name(a[0]));
		if (!num_to_int64_clamped(a[0], &tab) || tab > INT32_MAX ||
		    tab < INT32_MIN)
			return rt_raise(rt, PYEXC_OverflowError, "Python int too "
			    "large to convert to C int");
	}
	s = units_of(rt, self);
	/* measure first: the result is at most len + tabs * tabsize */
	for (i = 0; i < s.n; i++) {
		if (s.u[i] == '\t') {
			if (tab > 0) {
				total += (uint64_t)tab - col % (uint64_t)tab;
				col = 0;
			}
		} else {
			total += unit_bytes(self.type == VT_BYTES, s.u[i]);
			col = s.u[i] == '\n' || s.u[i] == '\r' ? 0 : col + 1;
		}
		if (!check_bytes(rt, total, 0, 0))
			return false;
	}
	col = 0;
	for (i = 0; i < s.n; i++) {
		if (s.u[i] == '\t') {
			if (tab > 0) {
				size_t n = (size_t)tab - col % (size_t)tab;
				for (k = 0; k < n; k++)
					ubuf_add1(rt, &b, ' ');
				col = 0;
			}
			continue;
		}
		ubuf_add1(rt, &b, s.u[i]);
		col = s.u[i] == '\n' || s.u[i] == '\r' ? 0 : col + 1;
	}
	*out = units_value(rt, self.type == VT_BYTES, b.u, b.n);
	return true;
}

METHOD(str_expandtabs)
{
	return do_expandtabs(rt, self, args, nargs, kwnames, nkw, out);
}

METHOD(bytes_expandtabs)
{
	return do_expandtabs(rt, self, args, nargs, kwnames, nkw, out);
}

/* ================================================================ */
/* encode and decode: utf-8, ascii, latin-1                          */
/* ================================================================ */

enum codec { CODEC_UTF8, CODEC_ASCII, CODEC_LATIN1 };

/* Python's encoding names, normalised (lower case, '-' and ' ' -> '_'). */
static const struct { const char *name; enum codec codec; } codec_names[] = {
	{ "646", CODEC_ASCII }, { "8859", CODEC_LATIN1 },
	{ "ascii", CODEC_ASCII }, { "cp367", CODEC_ASCII },
	{ "cp65001", CODEC_UTF8 }, { "cp819", CODEC_LATIN1 },
	{ "iso8859", CODEC_LATIN1 }, { "iso8859_1", CODEC_LATIN1 },
	{ "iso_8859_1", CODEC_LATIN1 }, { "l1", CODEC_LATIN1 },
	{ "latin", CODEC_LATIN1 }, { "latin1", CODEC_LATIN1 },
	{ "latin_1", CODEC_LATIN1 }, { "u8", CODEC_UTF8 },
	{ "us", CODEC_ASCII }, { "us_ascii", CODEC_ASCII },
	{ "utf", CODEC_UTF8 }, { "utf8", CODEC_UTF8 },
	{ "utf_8", CODEC_UTF8 },
};
static const char *const codec_display[] = { "utf-8", "ascii", "latin-1" };

static bool
find_codec(struct rt *rt, value name, enum codec *out)
{
	char norm[32];
	size_t i, n = 0;
	const char *s = name.as.s->data;
	for (i = 0; s[i] != '\0' && n + 1 < sizeof norm; i++) {
		char c = s[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c + 32);
		if (c == '-' || c == ' ')
			c = '_';
		norm[n++] = c;
	}
	norm[n] = '\0';
	if (s[i] == '\0')
		for (i = 0; i < sizeof codec_names / sizeof codec_names[0]; i++)
			if (strcmp(codec_names[i].name, norm) == 0) {
				*out = codec_names[i].codec;
				return true;
			}
	return rt_raise(rt, PYEXC_LookupError, "unknown encoding: %s", s);
}

enum errors { E_STRICT, E_IGNORE, E_REPLACE, E_XMLCHARREF, E_BACKSLASH };

/* The handler is looked up only when an error happens, as in CPython. */
static bool
find_errors(struct rt *rt, const char *name, bool encoding, enum errors *out)
{
	if (strcmp(name, "strict") == 0)
		*out = E_STRICT;
	else if (strcmp(name, "ignore") == 0)
		*out = E_IGNORE;
	else if (strcmp(name, "replace") == 0)
		*out = E_REPLACE;
	else if (strcmp(name, "backslashreplace") == 0)
		*out = E_BACKSLASH;
	else if (encoding && strcmp(name, "xmlcharrefreplace") == 0)
		*out = E_XMLCHARREF;
	else
		return rt_raise(rt, PYEXC_LookupError, "unknown error handler name "
		    "'%s'", name);
	return true;
}

static void
char_escape(uint32_t c, char *buf, size_t n)
{
	if (c < 0x100)
		snprintf(buf, n, "\\x%02x", c);
	else if (c < 0x10000)
		snprintf(buf, n, "\\u%04x", c);
	else
		snprintf(buf, n, "\\U%08x", c);
}

METHOD(str_encode)
{
	static const struct param params[] = {
		{ "encoding", false }, { "errors", false },
	};
	value a[2];
	bool given[2];
	enum codec codec = CODEC_UTF8;
	const char *errname = "strict";
	struct units s;
	struct sbuf b = SBUF_INIT;
	size_t i, j;

	if (!kw_args(rt, "encode", params, 2, args, nargs, kwnames, nkw, a,
	    given))
		return false;
	for (i = 0; i < 2; i++)
		if (given[i] && a[i].type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError, "encode() argument "
			    "'%s' must be str, not %s", params[i].name,
			    clinic_type_name(a[i]));
	if (given[0] && !find_codec(rt, a[0], &codec))
		return false;
	if (given[1])
		errname = a[1].as.s->data;
	/* the output is at most 2.5 times the input (a 4-byte character
	 * becomes a 10-byte escape); checked against the caps at the end */
	s = units_of(rt, self);
	for (i = 0; i < s.n; i = j) {
		uint32_t c = s.u[i];
		uint32_t limit = codec == CODEC_ASCII ? 0x80 :
		    codec == CODEC_LATIN1 ? 0x100 : 0x110000;
		bool bad = codec == CODEC_UTF8 ? (c >= 0xD800 && c < 0xE000) :
		    c >= limit;
		enum errors eh;
		char esc[16];
		j = i + 1;
		if (!bad) {
			if (codec == CODEC_UTF8) {
				char e[4];
				sbuf_add(&b, e, unicode_encode(c, e));
			} else
				sbuf_addc(&b, (char)c);
			continue;
		}
		/* a run of unencodable characters is one error */
		while (j < s.n && (codec == CODEC_UTF8 ?
		    (s.u[j] >= 0xD800 && s.u[j] < 0xE000) : s.u[j] >= limit))
			j++;
		if (!find_errors(rt, errname, true, &eh)) {
			sbuf_free(&b);
			return false;
		}
		if (eh == E_STRICT) {
			const char *reason = codec == CODEC_UTF8 ?
			    "surrogates not allowed" : codec == CODEC_ASCII ?
			    "ordinal not in range(128)" :
			    "ordinal not in range(256)";
			sbuf_free(&b);
			if (j - i == 1) {
				char_escape(c, esc, sizeof esc);
				return rt_raise(rt, PYEXC_UnicodeEncodeError,
				    "'%s' codec can't encode character '%s' "
				    "in position %zu: %s", codec_display[codec],
				    esc, i, reason);
			}
			return rt_raise(rt, PYEXC_UnicodeEncodeError, "'%s' codec "
			    "can't encode characters in position %zu-%zu: %s",
			    codec_display[codec], i, j - 1, reason);
		}
		for (; i < j; i++) {
			switch (eh) {
			case E_REPLACE:
				sbuf_addc(&b, '?');
				break;
			case E_XMLCHARREF:
				sbuf_addf(&b, "&#%u;", s.u[i]);
				break;
			case E_BACKSLASH:
				char_escape(s.u[i], esc, sizeof esc);
				sbuf_adds(&b, esc);
				break;
			default:
				break;
			}
		}
	}
	if (!rt_check_str_bytes(rt, b.len)) {
		sbuf_free(&b);
		return false;
	}
	*out = value_bytes(rt->arena, sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	return true;
}

METHOD(bytes_decode)
{
	static const struct param params[] = {
		{ "encoding", false }, { "errors", false },
	};
	value a[2];
	bool given[2];
	enum codec codec = CODEC_UTF8;
	const char *errname = "strict";
	const unsigned char *s = (const unsigned char *)self.as.s->data;
	size_t n = self.as.s->len, i, len;
	struct sbuf b = SBUF_INIT;
	value v;

	if (!kw_args(rt, "decode", params, 2, args, nargs, kwnames, nkw, a,
	    given))
		return false;
	for (i = 0; i < 2; i++)
		if (given[i] && a[i].type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError, "decode() argument "
			    "'%s' must be str, not %s", params[i].name,
			    clinic_type_name(a[i]));
	if (given[0] && !find_codec(rt, a[0], &codec))
		return false;
	if (given[1])
		errname = a[1].as.s->data;
	/* at most 4 output bytes per input byte ("\\xNN") */
	for (i = 0; i < n; i += len) {
		const char *why = NULL;
		enum errors eh;
		char e[4];
		len = 1;
		if (codec == CODEC_LATIN1 || (codec == CODEC_ASCII &&
		    s[i] < 0x80)) {
			sbuf_add(&b, e, unicode_encode(s[i], e));
			continue;
		}
		if (codec == CODEC_ASCII)
			why = "ordinal not in range(128)";
		else if ((why = unicode_decode_error((const char *)s + i, n - i,
		    &len)) == NULL) {
			sbuf_add(&b, (const char *)s + i, len);
			continue;
		}
		if (!find_errors(rt, errname, false, &eh)) {
			sbuf_free(&b);
			return false;
		}
		switch (eh) {
		case E_STRICT:
			sbuf_free(&b);
			if (len == 1)
				return rt_raise(rt, PYEXC_UnicodeDecodeError,
				    "'%s' codec can't decode byte 0x%02x in "
				    "position %zu: %s", codec_display[codec],
				    s[i], i, why);
			return rt_raise(rt, PYEXC_UnicodeDecodeError, "'%s' codec "
			    "can't decode bytes in position %zu-%zu: %s",
			    codec_display[codec], i, i + len - 1, why);
		case E_REPLACE:
			sbuf_add(&b, e, unicode_encode(0xFFFD, e));
			break;
		case E_BACKSLASH: {
			size_t k;
			for (k = 0; k < len; k++)
				sbuf_addf(&b, "\\x%02x", s[i + k]);
			break;
		}
		default:
			break;
		}
	}
	if (!rt_check_str_bytes(rt, b.len)) {
		sbuf_free(&b);
		return false;
	}
	v = value_str(rt->arena, sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	*out = v;
	return true;
}

/* bytes.hex(sep=<unset>, bytes_per_sep=1) */
METHOD(bytes_hex)
{
	static const struct param params[] = {
		{ "sep", false }, { "bytes_per_sep", false },
	};
	static const char digits[] = "0123456789abcdef";
	value a[2];
	bool given[2];
	const unsigned char *s = (const unsigned char *)self.as.s->data;
	size_t n = self.as.s->len, i, group = 1;
	int64_t per = 1;
	char sep = 0;
	struct sbuf b = SBUF_INIT;

	if (!kw_args(rt, "hex", params, 2, args, nargs, kwnames, nkw, a, given))
		return false;
	if (given[1] && !arg_index(rt, a[1], &per))
		return false;
	if (given[0]) {
		/* CPython asks len(sep) first, then checks it, then type */
		size_t len;
		switch (a[0].type) {
		case VT_STR: case VT_BYTES: len = a[0].as.s->nchars; break;
		case VT_LIST: len = a[0].as.list->len; break;
		case VT_TUPLE: len = a[0].as.tuple->len; break;
		case VT_DICT: case VT_SET: case VT_FROZENSET:
			len = a[0].as.dict->len; break;
		default:
			return rt_raise(rt, PYEXC_TypeError, "object of type '%s' "
			    "has no len()", value_type_name(a[0]));
		}
		if (len != 1)
			return rt_raise(rt, PYEXC_ValueError,
			    "sep must be length 1.");
		if (a[0].type != VT_STR && a[0].type != VT_BYTES)
			return rt_raise(rt, PYEXC_TypeError, "sep must be str or "
			    "bytes.");
		if ((unsigned char)a[0].as.s->data[0] >= 0x80)
			return rt_raise(rt, PYEXC_ValueError, "sep must be ASCII.");
		sep = a[0].as.s->data[0];
	}
	if (!check_bytes(rt, 0, n, 3))
		return false;
	group = per < 0 ? (size_t)-per : (size_t)per;
	for (i = 0; i < n; i++) {
		/* groups count from the right, or from the left if negative */
		if (sep != 0 && i > 0 && group != 0 &&
		    (per < 0 ? i % group == 0 : (n - i) % group == 0))
			sbuf_addc(&b, sep);
		sbuf_addc(&b, digits[s[i] >> 4]);
		sbuf_addc(&b, digits[s[i] & 15]);
	}
	*out = value_str(rt->arena, sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	return true;
}

METHOD(bytes_split)
{
	return do_split(rt, self, false, args, nargs, kwnames, nkw, out);
}

METHOD(bytes_rsplit)
{
	return do_split(rt, self, true, args, nargs, kwnames, nkw, out);
}

/* ================================================================ */
/* str.format and str.format_map                                     */
/* ================================================================ */

/*
 * The replacement-field grammar, as unicode_format.h parses it:
 *
 *   format_string := (literal | "{{" | "}}" | field)*
 *   field         := "{" field_name ["!" conversion] [":" format_spec] "}"
 *   field_name    := arg_name ("." attribute | "[" key "]")*
 *   arg_name      := [digits | identifier-ish]   (empty: automatic)
 *
 * A format_spec may itself hold fields ("{:{width}}"), expanded once more
 * with the same arguments (CPython allows two levels in all).
 */

enum autonum { AN_INIT, AN_AUTO, AN_MANUAL };

struct fmt {
	bool		 has_args;	/* false for format_map */
	const value	*args;
	size_t		 nargs;
	const value	*kwvals;	/* keyword values */
	const char *const *kwnames;
	size_t		 nkw;
	bool		 has_mapping;	/* format_map */
	value		 mapping;
	enum autonum	 an;
	int64_t		 next_auto;
};

/* CPython's get_integer: the decimal value of s, or -1 if not digits. */
static bool
field_integer(struct rt *rt, const char *s, size_t n, int64_t *out)
{
	size_t i;
	int64_t v = 0;
	*out = -1;
	if (n == 0)
		return true;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return true;
	for (i = 0; i < n; i++) {
		if (v > (INT64_MAX - (s[i] - '0')) / 10)
			return rt_raise(rt, PYEXC_ValueError, "Too many decimal "
			    "digits in format string");
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

/* KeyError's message is the repr of the key. */
static bool
raise_key_error(struct rt *rt, value key)
{
	struct sbuf b = SBUF_INIT;
	if (!value_repr(rt, key, &b)) {
		sbuf_free(&b);
		return false;
	}
	rt_raise(rt, PYEXC_KeyError, "%s", sbuf_cstr(&b));
	sbuf_free(&b);
	return false;
}

/* obj[key] for the containers, as the evaluator's subscript does. */
static bool
field_getitem(struct rt *rt, value obj, value key, value *out)
{
	int64_t i, len;
	bool found;
	switch (obj.type) {
	case VT_DICT:
		if (!value_dict_get(rt, obj, key, out, &found))
			return false;
		if (!found)
			return raise_key_error(rt, key);
		return true;
	case VT_LIST: case VT_TUPLE: case VT_STR: case VT_BYTES:
		if (!NUM_IS_INTLIKE(key) && obj.type == VT_STR)
			return rt_raise(rt, PYEXC_TypeError, "string indices must "
			    "be integers, not '%s'", value_type_name(key));
		if (!NUM_IS_INTLIKE(key))
			return rt_raise(rt, PYEXC_TypeError, "%s indices must be "
			    "integers or slices, not %s", obj.type == VT_BYTES ?
			    "byte" : value_type_name(obj),
			    value_type_name(key));
		num_to_int64_clamped(key, &i);
		len = obj.type == VT_LIST ? (int64_t)obj.as.list->len :
		    obj.type == VT_TUPLE ? (int64_t)obj.as.tuple->len :
		    (int64_t)obj.as.s->nchars;
		if (i < 0)
			i += len;
		if (i < 0 || i >= len)
			return rt_raise(rt, PYEXC_IndexError, "%s index out of "
			    "range", obj.type == VT_STR ? "string" :
			    obj.type == VT_BYTES ? "index" :
			    value_type_name(obj));
		if (obj.type == VT_LIST)
			*out = obj.as.list->items[i];
		else if (obj.type == VT_TUPLE)
			*out = obj.as.tuple->items[i];
		else if (obj.type == VT_BYTES)
			*out = value_int((unsigned char)obj.as.s->data[i]);
		else {
			struct units u = units_of(rt, obj);
			*out = units_value(rt, false, u.u + i, 1);
		}
		return true;
	case VT_OBJECT:
		return mock_getitem(rt->ev, obj, key, out);
	default:
		return rt_raise(rt, PYEXC_TypeError, "'%s' object is not "
		    "subscriptable", value_type_name(obj));
	}
}

/* The ".attr" and "[key]" steps after the argument name. */
static bool
field_object_rest(struct rt *rt, const char *s, size_t n, value *obj,
    value *out)
{
	size_t i = 0, j;
	while (i < n) {
		char c = s[i++];
		value next, key;
		int64_t idx;
		j = i;
		if (c == '.') {
			char *attr;
			while (j < n && s[j] != '.' && s[j] != '[')
				j++;
			if (j == i)
				return rt_raise(rt, PYEXC_ValueError, "Empty "
				    "attribute in format string");
			attr = arena_strndup(rt->arena, s + i, j - i);
			if (rt->ev == NULL)
				return rt_raise(rt, PYEXC_AttributeError, "'%s' "
				    "object has no attribute '%s'",
				    value_type_name(*obj), attr);
			if (!mock_getattr(rt->ev, *obj, attr, &next))
				return false;
			i = j;
		} else if (c == '[') {
			while (j < n && s[j] != ']')
				j++;
			if (j == n)
				return rt_raise(rt, PYEXC_ValueError, "Missing ']' "
				    "in format string");
			if (j == i)
				return rt_raise(rt, PYEXC_ValueError, "Empty "
				    "attribute in format string");
			if (!field_integer(rt, s + i, j - i, &idx))
				return false;
			/* digits index, anything else is a str key */
			key = idx != -1 ? value_int(idx) :
			    value_str(rt->arena, s + i, j - i);
			if (!field_getitem(rt, *obj, key, &next))
				return false;
			i = j + 1;
		} else
			return rt_raise(rt, PYEXC_ValueError, "Only '.' or '[' may "
			    "follow ']' in format field specifier");
		*obj = next;
	}
	*out = *obj;
	return true;
}

/* The object a field name designates, its attribute and item steps done. */
static bool
field_object(struct rt *rt, struct fmt *f, const char *name, size_t n,
    value *out)
{
	size_t i = 0, k;
	int64_t idx;
	bool empty;
	value obj;

	while (i < n && name[i] != '.' && name[i] != '[')
		i++;
	if (!field_integer(rt, name, i, &idx))
		return false;
	empty = i == 0;
	if (empty || idx != -1) {
		if (f->an == AN_INIT)
			f->an = empty ? AN_AUTO : AN_MANUAL;
		if (f->an == AN_MANUAL && empty)
			return rt_raise(rt, PYEXC_ValueError, "cannot switch from "
			    "manual field specification to automatic field "
			    "numbering");
		if (f->an == AN_AUTO && !empty)
			return rt_raise(rt, PYEXC_ValueError, "cannot switch from "
			    "automatic field numbering to manual field "
			    "specification");
		if (empty)
			idx = f->next_auto++;
		if (!f->has_args)
			return rt_raise(rt, PYEXC_ValueError, "Format string "
			    "contains positional fields");
		if ((uint64_t)idx >= f->nargs)
			return rt_raise(rt, PYEXC_IndexError, "Replacement index "
			    "%lld out of range for positional args tuple",
			    (long long)idx);
		obj = f->args[idx];
	} else {
		value key = value_str(rt->arena, name, i);
		bool found = false;
		if (f->has_mapping) {
			/* any other mapping: its subscript decides */
			if (f->mapping.type != VT_DICT) {
				if (!field_getitem(rt, f->mapping, key, &obj))
					return false;
				found = true;
			} else if (!value_dict_get(rt, f->mapping, key, &obj,
			    &found))
				return false;
		} else
			for (k = 0; k < f->nkw; k++)
				if (strlen(f->kwnames[k]) == i &&
				    memcmp(f->kwnames[k], name, i) == 0) {
					obj = f->kwvals[k];
					found = true;
				}
		if (!found)
			return raise_key_error(rt, key);
	}
	return field_object_rest(rt, name + i, n - i, &obj, out);
}

/* ascii(): repr with every non-ASCII character escaped. */
static bool
ascii_of(struct rt *rt, value v, struct sbuf *out)
{
	struct sbuf r = SBUF_INIT;
	value rv;
	struct units u;
	size_t i;
	if (!value_repr(rt, v, &r)) {
		sbuf_free(&r);
		return false;
	}
	rv = value_str(rt->arena, sbuf_cstr(&r), r.len);
	sbuf_free(&r);
	u = units_of(rt, rv);
	for (i = 0; i < u.n; i++) {
		char esc[16];
		if (u.u[i] < 0x80) {
			sbuf_addc(out, (char)u.u[i]);
			continue;
		}
		char_escape(u.u[i], esc, sizeof esc);
		sbuf_adds(out, esc);
	}
	return true;
}

/*
 * format_value() builds what the spec asks for before anything could
 * check its size, so the width (times the fill's bytes) and, for numbers,
 * the precision are checked against the caps here first.  The spec is
 * read as format.c reads it; a malformed one, a number of eleven digits
 * or more (format.c's "Too many decimal digits") or a type that takes no
 * spec is left for format_value to report.
 */
static bool
spec_precheck(struct rt *rt, value obj, const char *s, size_t n)
{
	size_t i = 0, fill = 1;
	uint64_t width = 0, prec = 0;
	if (!NUM_IS_INTLIKE(obj) && obj.type != VT_FLOAT && obj.type != VT_STR)
		return true;
	if (n > 1) {
		size_t cl = unicode_char_len((unsigned char)s[0]);
		if (cl < n && strchr("<>^=", s[cl]) != NULL) {
			fill = cl;
			i = cl + 1;
		}
	}
	if (i == 0 && n > 0 && strchr("<>^=", s[0]) != NULL)
		i = 1;
	while (i < n && strchr("+- z#", s[i]) != NULL)
		i++;
	while (i < n && s[i] >= '0' && s[i] <= '9' && width < 10000000000)
		width = width * 10 + (uint64_t)(s[i++] - '0');
	while (i < n && (s[i] == ',' || s[i] == '_'))
		i++;
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9' &&
		    prec < 10000000000; i++)
			prec = prec * 10 + (uint64_t)(s[i] - '0');
	if (width >= 10000000000 || prec >= 10000000000)
		return true;	/* format.c refuses eleven digits or more */
	if (!check_bytes(rt, 0, width, fill))
		return false;
	if (obj.type != VT_STR && !rt_check_str_bytes(rt, prec))
		return false;
	return true;
}

/* One field: its object, conversion, expanded spec, then format(). */
static bool build_string(struct rt *rt, struct fmt *f, const char *s,
    size_t n, int depth, struct sbuf *out);

static bool
render_field(struct rt *rt, struct fmt *f, const char *name, size_t nname,
    uint32_t conversion, const char *spec, size_t nspec, bool expand,
    int depth,
    struct sbuf *out)
{
	struct sbuf conv = SBUF_INIT, xspec = SBUF_INIT;
	value obj;
	bool ok;

	if (!field_object(rt, f, name, nname, &obj))
		return false;
	if (conversion != 0) {
		switch (conversion) {
		case 'r': ok = value_repr(rt, obj, &conv); break;
		case 's': ok = value_str_of(rt, obj, &conv); break;
		case 'a': ok = ascii_of(rt, obj, &conv); break;
		default:
			if (conversion > 32 && conversion < 127)
				return rt_raise(rt, PYEXC_ValueError, "Unknown "
				    "conversion specifier %c",
				    (char)conversion);
			return rt_raise(rt, PYEXC_ValueError, "Unknown conversion "
			    "specifier \\x%x", conversion);
		}
		if (ok)
			obj = value_str(rt->arena, sbuf_cstr(&conv), conv.len);
		sbuf_free(&conv);
		if (!ok)
			return false;
	}
	if (expand) {
		if (!build_string(rt, f, spec, nspec, depth - 1, &xspec)) {
			sbuf_free(&xspec);
			return false;
		}
		spec = sbuf_cstr(&xspec);
		nspec = xspec.len;
	}
	ok = spec_precheck(rt, obj, spec, nspec) &&
	    format_value(rt, obj, spec, nspec, out);
	sbuf_free(&xspec);
	return ok;
}

static bool
build_string(struct rt *rt, struct fmt *f, const char *s, size_t n,
    int depth, struct sbuf *out)
{
	size_t i = 0;

	if (depth <= 0)
		return rt_raise(rt, PYEXC_ValueError, "Max string recursion "
		    "exceeded");
	while (i < n) {
		size_t lit = i, name, nend, spec = 0, nspec = 0, k;
		char c = 0;
		uint32_t conversion = 0;
		bool expand = false;

		/* literal text up to a '{' or '}' */
		while (i < n && s[i] != '{' && s[i] != '}')
			i++;
		sbuf_add(out, s + lit, i - lit);
		if (i == n)
			break;
		c = s[i++];
		if (c == '}') {
			if (i == n || s[i] != '}')
				return rt_raise(rt, PYEXC_ValueError, "Single '}' "
				    "encountered in format string");
			sbuf_addc(out, '}');
			i++;
			continue;
		}
		if (i == n)
			return rt_raise(rt, PYEXC_ValueError, "Single '{' "
			    "encountered in format string");
		if (s[i] == '{') {
			sbuf_addc(out, '{');
			i++;
			continue;
		}
		/* the field name ends at '}', ':' or '!' (not inside []) */
		name = i;
		c = 0;
		while (i < n) {
			c = s[i++];
			if (c == '{')
				return rt_raise(rt, PYEXC_ValueError, "unexpected "
				    "'{' in field name");
			if (c == '[') {
				while (i < n && s[i] != ']')
					i++;
				continue;
			}
			if (c == '}' || c == ':' || c == '!')
				break;
		}
		nend = i - 1;
		if (c == '!' || c == ':') {
			int count = 1;
			if (c == '!') {
				if (i >= n)
					return rt_raise(rt, PYEXC_ValueError,
					    "end of string while looking for "
					    "conversion specifier");
				/* one code point, maybe several bytes */
				k = unicode_decode(s + i, n - i, &conversion);
				if (k == 0) {
					conversion = (unsigned char)s[i];
					k = 1;
				}
				i += k;
				/* at the end, the spec loop below reports */
				c = i < n ? s[i++] : ':';
				if (c == '}')
					goto field_done;
				if (c != ':')
					return rt_raise(rt, PYEXC_ValueError,
					    "expected ':' after conversion "
					    "specifier");
			}
			spec = i;
			for (;;) {
				if (i >= n)
					return rt_raise(rt, PYEXC_ValueError,
					    "unmatched '{' in format spec");
				c = s[i++];
				if (c == '{') {
					expand = true;
					count++;
				} else if (c == '}' && --count == 0)
					break;
			}
			nspec = i - 1 - spec;
		} else if (c != '}')
			return rt_raise(rt, PYEXC_ValueError, "expected '}' before "
			    "end of string");
field_done:
		if (!render_field(rt, f, s + name, nend - name, conversion,
		    s + spec, nspec, expand, depth, out))
			return false;
		if (!rt_check_str_bytes(rt, out->len))
			return false;
	}
	return true;
}

static bool
do_format(struct rt *rt, struct fmt *f, value self, value *out)
{
	struct sbuf b = SBUF_INIT;
	if (!build_string(rt, f, self.as.s->data, self.as.s->len, 2, &b)) {
		sbuf_free(&b);
		return false;
	}
	*out = value_str(rt->arena, sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	return true;
}

METHOD(str_format)
{
	struct fmt f = { true, args, nargs, args + nargs, kwnames, nkw, false,
	    value_none(), AN_INIT, 0 };
	return do_format(rt, &f, self, out);
}

METHOD(str_format_map)
{
	struct fmt f = { false, NULL, 0, NULL, NULL, 0, true, value_none(),
	    AN_INIT, 0 };
	if (!one_arg(rt, "str.format_map", nargs, nkw))
		return false;
	f.mapping = args[0];
	return do_format(rt, &f, self, out);
}

/* ================================================================ */
/* list                                                              */
/* ================================================================ */

METHOD(list_append)
{
	if (!one_arg(rt, "list.append", nargs, nkw) ||
	    !rt_check_seq_len(rt, self.as.list->len + 1))
		return false;
	value_list_append(rt->arena, self, args[0]);
	note_mutation(rt);
	*out = value_none();
	return true;
}

/* The items of any iterable, as a fresh list. */
static bool
items_of(struct rt *rt, value it, value *out)
{
	return value_collect(rt, it, out);
}

METHOD(list_extend)
{
	value items;
	size_t i;
	if (!one_arg(rt, "list.extend", nargs, nkw))
		return false;
	/* collect first: x.extend(x) adds x's items once */
	if (!items_of(rt, args[0], &items) ||
	    !rt_check_seq_len(rt, self.as.list->len + items.as.list->len))
		return false;
	for (i = 0; i < items.as.list->len; i++)
		value_list_append(rt->arena, self, items.as.list->items[i]);
	note_mutation(rt);
	*out = value_none();
	return true;
}

METHOD(list_insert)
{
	struct vlist *l = self.as.list;
	int64_t at;
	if (!pos_args(rt, "list.insert", 2, 2, nargs, nkw) ||
	    !arg_index(rt, args[0], &at) ||
	    !rt_check_seq_len(rt, l->len + 1))
		return false;
	if (at < 0) {
		at += (int64_t)l->len;
		if (at < 0)
			at = 0;
	}
	if (at > (int64_t)l->len)
		at = (int64_t)l->len;
	value_list_append(rt->arena, self, value_none());
	memmove(l->items + at + 1, l->items + at,
	    (l->len - 1 - (size_t)at) * sizeof *l->items);
	l->items[at] = args[1];
	note_mutation(rt);
	*out = value_none();
	return true;
}

METHOD(list_pop)
{
	struct vlist *l = self.as.list;
	int64_t at = -1;
	if (!pos_args(rt, "list.pop", 0, 1, nargs, nkw))
		return false;
	if (nargs == 1 && !arg_index(rt, args[0], &at))
		return false;
	if (l->len == 0)
		return rt_raise(rt, PYEXC_IndexError, "pop from empty list");
	if (at < 0)
		at += (int64_t)l->len;
	if (at < 0 || at >= (int64_t)l->len)
		return rt_raise(rt, PYEXC_IndexError, "pop index out of range");
	*out = l->items[at];
	memmove(l->items + at, l->items + at + 1,
	    (l->len - 1 - (size_t)at) * sizeof *l->items);
	l->len--;
	note_mutation(rt);
	return true;
}

/* The first index in [start, end) holding an item equal to x, or -1. */
static bool
seq_find(struct rt *rt, const value *items, size_t len, value x,
    int64_t start, int64_t end, int64_t *at)
{
	int64_t i;
	adjust_bounds((int64_t)len, &start, &end);
	*at = -1;
	for (i = start; i < end && i < (int64_t)len; i++) {
		bool eq;
		if (!value_eq(rt, items[i], x, &eq))
			return false;
		if (eq) {
			*at = i;
			return true;
		}
	}
	return true;
}

METHOD(list_remove)
{
	struct vlist *l = self.as.list;
	int64_t at;
	if (!one_arg(rt, "list.remove", nargs, nkw) ||
	    !seq_find(rt, l->items, l->len, args[0], 0, INT64_MAX, &at))
		return false;
	if (at < 0)
		return rt_raise(rt, PYEXC_ValueError, "list.remove(x): x not in "
		    "list");
	memmove(l->items + at, l->items + at + 1,
	    (l->len - 1 - (size_t)at) * sizeof *l->items);
	l->len--;
	note_mutation(rt);
	*out = value_none();
	return true;
}

static bool
seq_index(struct rt *rt, value self, const char *qual, const value *items,
    size_t len, const value *args, size_t nargs, size_t nkw, value *out)
{
	int64_t start = 0, end = INT64_MAX, at;
	if (!pos_args(rt, qual, 1, 3, nargs, nkw))
		return false;
	if (nargs > 1 && !arg_slice_bound(rt, args[1], false, 0, &start))
		return false;
	if (nargs > 2 && !arg_slice_bound(rt, args[2], false, 0, &end))
		return false;
	if (!seq_find(rt, items, len, args[0], start, end, &at))
		return false;
	if (at >= 0) {
		*out = value_int(at);
		return true;
	}
	if (self.type == VT_TUPLE)
		return rt_raise(rt, PYEXC_ValueError, "tuple.index(x): x not in "
		    "tuple");
	{
		struct sbuf b = SBUF_INIT;
		if (value_repr(rt, args[0], &b))
			rt_raise(rt, PYEXC_ValueError, "%s is not in list",
			    sbuf_cstr(&b));
		sbuf_free(&b);
		return false;
	}
}

static bool
seq_count(struct rt *rt, const char *qual, const value *items, size_t len,
    const value *args, size_t nargs, size_t nkw, value *out)
{
	size_t i;
	int64_t n = 0;
	if (!one_arg(rt, qual, nargs, nkw))
		return false;
	for (i = 0; i < len; i++) {
		bool eq;
		if (!value_eq(rt, items[i], args[0], &eq))
			return false;
		n += eq;
	}
	*out = value_int(n);
	return true;
}

METHOD(list_index)
{
	return seq_index(rt, self, "list.index", self.as.list->items,
	    self.as.list->len, args, nargs, nkw, out);
}

METHOD(list_count)
{
	return seq_count(rt, "list.count", self.as.list->items,
	    self.as.list->len, args, nargs, nkw, out);
}

METHOD(tuple_index)
{
	return seq_index(rt, self, "tuple.index", self.as.tuple->items,
	    self.as.tuple->len, args, nargs, nkw, out);
}

METHOD(tuple_count)
{
	return seq_count(rt, "tuple.count", self.as.tuple->items,
	    self.as.tuple->len, args, nargs, nkw, out);
}

/*
 * sort(*, key=None, reverse=False): a stable merge sort on (key, item)
 * pairs.  Like CPython, reverse keeps equal items in their order (the
 * list is reversed, sorted, reversed back), and the comparison is "<"
 * only.  If a comparison fails the list is left as it was.
 */
struct sort_item {
	value	key;
	value	item;
};

static bool
merge_sort(struct rt *rt, struct sort_item *a, struct sort_item *tmp,
    size_t n)
{
	size_t mid = n / 2, i = 0, j, k = 0;
	if (n < 2)
		return true;
	if (!merge_sort(rt, a, tmp, mid) ||
	    !merge_sort(rt, a + mid, tmp, n - mid))
		return false;
	j = mid;
	while (i < mid && j < n) {
		value lt;
		if (!rt_step(rt) ||
		    !value_compare(rt, CMPOP_LT, a[j].key, a[i].key, &lt))
			return false;
		if (lt.type != VT_BOOL) {
			bool t;
			if (!value_truthy(rt, lt, &t))
				return false;
			lt = value_bool(t);
		}
		tmp[k++] = lt.as.b ? a[j++] : a[i++];
	}
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof *a);
	return true;
}

static void
reverse_items(struct sort_item *a, size_t n)
{
	size_t i;
	for (i = 0; i < n / 2; i++) {
		struct sort_item t = a[i];
		a[i] = a[n - 1 - i];
		a[n - 1 - i] = t;
	}
}

METHOD(list_sort)
{
	static const struct param params[] = {
		{ "key", true }, { "reverse", true },
	};
	struct vlist *l = self.as.list;
	value a[2];
	bool given[2], reverse = false;
	struct sort_item *items, *tmp;
	size_t i, n = l->len;

	if (!kw_args(rt, "sort", params, 2, args, nargs, kwnames, nkw, a,
	    given))
		return false;
	if (given[1]) {
		int64_t r;
		if (!arg_index(rt, a[1], &r))
			return false;
		reverse = r != 0;
	}
	items = arena_array(rt->arena, n + 1, sizeof *items);
	tmp = arena_array(rt->arena, n + 1, sizeof *tmp);
	for (i = 0; i < n; i++) {
		items[i].item = l->items[i];
		items[i].key = l->items[i];
		if (a[0].type != VT_NONE) {
			if (rt->call == NULL)
				return rt_raise(rt, PYEXC_TypeError, "'%s' object "
				    "is not callable", value_type_name(a[0]));
			if (!rt->call(rt, a[0], &l->items[i], 1, &items[i].key))
				return false;
		}
	}
	if (reverse)
		reverse_items(items, n);
	if (!merge_sort(rt, items, tmp, n))
		return false;
	if (reverse)
		reverse_items(items, n);
	for (i = 0; i < n && i < l->len; i++)
		l->items[i] = items[i].item;
	*out = value_none();
	return true;
}

METHOD(list_reverse)
{
	struct vlist *l = self.as.list;
	size_t i;
	if (!no_args(rt, "list.reverse", nargs, nkw))
		return false;
	for (i = 0; i < l->len / 2; i++) {
		value t = l->items[i];
		l->items[i] = l->items[l->len - 1 - i];
		l->items[l->len - 1 - i] = t;
	}
	*out = value_none();
	return true;
}

METHOD(list_copy)
{
	size_t i;
	if (!no_args(rt, "list.copy", nargs, nkw))
		return false;
	*out = value_list(rt->arena, self.as.list->len);
	for (i = 0; i < self.as.list->len; i++)
		value_list_append(rt->arena, *out, self.as.list->items[i]);
	return true;
}

METHOD(list_clear)
{
	if (!no_args(rt, "list.clear", nargs, nkw))
		return false;
	self.as.list->len = 0;
	*out = value_none();
	return true;
}

/* ================================================================ */
/* dict                                                              */
/* ================================================================ */

/*
 * Deleting is the one dict operation the value layer does not offer: the
 * entry is marked dead and its index slot becomes -2 (deleted), which is
 * how value.c's probing already treats it.  Probing mirrors value.c's.
 */
static bool
dict_take(struct rt *rt, value dict, value key, bool *found, value *val)
{
	struct vdict *d = dict.as.dict;
	uint64_t h;
	size_t mask, i;

	*found = false;
	if (d->len == 0 || d->nindex == 0)	/* {}.pop([]) is a KeyError */
		return true;
	if (!value_hash(rt, key, &h))
		return false;
	mask = d->nindex - 1;
	for (i = (size_t)h & mask;; i = (i + 1) & mask) {
		int64_t ix = d->index[i];
		bool eq;
		if (ix == -1)
			return true;
		if (ix == -2 || d->entries[ix].hash != h)
			continue;
		if (!value_eq(rt, d->entries[ix].key, key, &eq))
			return false;
		if (!eq)
			continue;
		*val = d->entries[ix].val;
		d->entries[ix].live = false;
		d->index[i] = -2;
		d->len--;
		*found = true;
		return true;
	}
}

METHOD(dict_get)
{
	bool found;
	if (!pos_args(rt, "dict.get", 1, 2, nargs, nkw) ||
	    !value_dict_get(rt, self, args[0], out, &found))
		return false;
	if (!found)
		*out = nargs == 2 ? args[1] : value_none();
	return true;
}

enum view { V_KEYS, V_VALUES, V_ITEMS };

/*
 * keys(), values(), items(): a view, "dict_keys(['a'])" as CPython shows
 * it, that iterates, has a len() and answers "in".  It holds what the
 * dict held when it was made (CPython's views follow later changes).
 */
static bool
dict_view(struct rt *rt, value self, const char *qual, enum view v,
    size_t nargs, size_t nkw, value *out)
{
	static const char *const names[] = {
		"dict_keys", "dict_values", "dict_items"
	};
	struct vdict *d = self.as.dict;
	struct vobject *o;
	value items;
	size_t i;
	if (!no_args(rt, qual, nargs, nkw))
		return false;
	items = value_list(rt->arena, d->len);
	for (i = 0; i < d->used; i++) {
		value item;
		if (!d->entries[i].live)
			continue;
		if (v == V_KEYS)
			item = d->entries[i].key;
		else if (v == V_VALUES)
			item = d->entries[i].val;
		else {
			item = value_tuple(rt->arena, 2);
			item.as.tuple->items[0] = d->entries[i].key;
			item.as.tuple->items[1] = d->entries[i].val;
		}
		value_list_append(rt->arena, items, item);
	}
	*out = mock_object(rt->arena, MK_VIEW, names[v]);
	o = out->as.obj;
	o->type = -1;
	o->data = items;
	return true;
}

METHOD(dict_keys)
{
	return dict_view(rt, self, "dict.keys", V_KEYS, nargs, nkw, out);
}

METHOD(dict_values)
{
	return dict_view(rt, self, "dict.values", V_VALUES, nargs, nkw, out);
}

METHOD(dict_items)
{
	return dict_view(rt, self, "dict.items", V_ITEMS, nargs, nkw, out);
}

METHOD(dict_pop)
{
	bool found;
	if (!pos_args(rt, "dict.pop", 1, 2, nargs, nkw) ||
	    !dict_take(rt, self, args[0], &found, out))
		return false;
	if (!found) {
		if (nargs == 2) {
			*out = args[1];
			return true;
		}
		return raise_key_error(rt, args[0]);
	}
	return true;
}

METHOD(dict_popitem)
{
	struct vdict *d = self.as.dict;
	size_t i;
	bool found;
	value key, val, t;
	if (!no_args(rt, "dict.popitem", nargs, nkw))
		return false;
	if (d->len == 0)
		return rt_raise(rt, PYEXC_KeyError, "'popitem(): dictionary is "
		    "empty'");
	for (i = d->used; i-- > 0;)
		if (d->entries[i].live)
			break;
	key = d->entries[i].key;
	if (!dict_take(rt, self, key, &found, &val))
		return false;
	t = value_tuple(rt->arena, 2);
	t.as.tuple->items[0] = key;
	t.as.tuple->items[1] = val;
	*out = t;
	return true;
}

METHOD(dict_setdefault)
{
	bool found;
	if (!pos_args(rt, "dict.setdefault", 1, 2, nargs, nkw) ||
	    !value_dict_get(rt, self, args[0], out, &found))
		return false;
	if (found)
		return true;
	*out = nargs == 2 ? args[1] : value_none();
	if (!value_dict_set(rt, self, args[0], *out))
		return false;
	note_mutation(rt);
	return true;
}

struct update_ctx {
	value	dict;
	size_t	i;
};

static bool
update_step(struct rt *rt, value item, void *p)
{
	struct update_ctx *c = p;
	value pair;
	if (item.type != VT_LIST && item.type != VT_TUPLE &&
	    item.type != VT_STR && item.type != VT_BYTES &&
	    item.type != VT_DICT && item.type != VT_SET &&
	    item.type != VT_FROZENSET)
		return rt_raise(rt, PYEXC_TypeError, "cannot convert dictionary "
		    "update sequence element #%zu to a sequence", c->i);
	if (!items_of(rt, item, &pair))
		return false;
	if (pair.as.list->len != 2)
		return rt_raise(rt, PYEXC_ValueError, "dictionary update sequence "
		    "element #%zu has length %zu; 2 is required", c->i,
		    pair.as.list->len);
	c->i++;
	return value_dict_set(rt, c->dict, pair.as.list->items[0],
	    pair.as.list->items[1]);
}

METHOD(dict_update)
{
	struct update_ctx c = { self, 0 };
	size_t i;
	if (nargs > 1)
		return rt_raise(rt, PYEXC_TypeError, "update expected at most 1 "
		    "argument, got %zu", nargs);
	if (nargs == 1) {
		if (args[0].type == VT_DICT) {
			struct vdict *d = args[0].as.dict;
			size_t used = d->used;
			for (i = 0; i < used; i++)
				if (d->entries[i].live &&
				    !value_dict_set(rt, self, d->entries[i].key,
				    d->entries[i].val))
					return false;
		} else if (!value_iterate(rt, args[0], update_step, &c))
			return false;
	}
	for (i = 0; i < nkw; i++)
		if (!value_dict_set(rt, self, value_cstr(rt->arena, kwnames[i]),
		    args[nargs + i]))
			return false;
	note_mutation(rt);
	*out = value_none();
	return true;
}

struct fromkeys_ctx {
	value	dict;
	value	val;
};

static bool
fromkeys_step(struct rt *rt, value key, void *p)
{
	struct fromkeys_ctx *c = p;
	return value_dict_set(rt, c->dict, key, c->val);
}

/* dict.fromkeys(iterable, value=None): a new dict, self is not used */
METHOD(dict_fromkeys)
{
	struct fromkeys_ctx c;
	if (!pos_args(rt, "dict.fromkeys", 1, 2, nargs, nkw))
		return false;
	c.dict = value_dict(rt->arena);
	c.val = nargs == 2 ? args[1] : value_none();
	if (!value_iterate(rt, args[0], fromkeys_step, &c))
		return false;
	*out = c.dict;
	return true;
}

METHOD(dict_copy)
{
	struct vdict *d = self.as.dict;
	size_t i;
	if (!no_args(rt, "dict.copy", nargs, nkw))
		return false;
	*out = value_dict(rt->arena);
	for (i = 0; i < d->used; i++)
		if (d->entries[i].live &&
		    !value_dict_set(rt, *out, d->entries[i].key,
		    d->entries[i].val))
			return false;
	return true;
}

METHOD(dict_clear)
{
	struct vdict *d = self.as.dict;
	if (!no_args(rt, "dict.clear", nargs, nkw))
		return false;
	d->len = d->used = 0;
	d->nindex = 0;
	d->index = NULL;
	*out = value_none();
	return true;
}

/* ================================================================ */
/* int and float                                                     */
/* ================================================================ */

static void
int_mpz(value self, mpz_t z)
{
	num_get_mpz(self, z);
}

METHOD(int_bit_length)
{
	mpz_t z;
	if (!no_args(rt, "int.bit_length", nargs, nkw))
		return false;
	int_mpz(self, z);
	*out = value_int(mpz_sgn(z) == 0 ? 0 :
	    (int64_t)mpz_sizeinbase(z, 2));
	mpz_clear(z);
	return true;
}

METHOD(int_bit_count)
{
	mpz_t z;
	if (!no_args(rt, "int.bit_count", nargs, nkw))
		return false;
	int_mpz(self, z);
	mpz_abs(z, z);
	*out = value_int((int64_t)mpz_popcount(z));
	mpz_clear(z);
	return true;
}

METHOD(int_as_integer_ratio)
{
	value t;
	if (!no_args(rt, "int.as_integer_ratio", nargs, nkw))
		return false;
	t = value_tuple(rt->arena, 2);
	t.as.tuple->items[0] = self.type == VT_BOOL ? value_int(self.as.b) :
	    self;
	t.as.tuple->items[1] = value_int(1);
	*out = t;
	return true;
}

METHOD(int_conjugate)
{
	if (!no_args(rt, "int.conjugate", nargs, nkw))
		return false;
	*out = self.type == VT_BOOL ? value_int(self.as.b) : self;
	return true;
}

/* to_bytes(length=1, byteorder='big', *, signed=False) */
METHOD(int_to_bytes)
{
	static const struct param params[] = {
		{ "length", false }, { "byteorder", false }, { "signed", true },
	};
	value a[3];
	bool given[3], little = false, is_signed = false;
	int64_t length = 1;
	mpz_t z, m;
	char *buf;
	size_t i, nbits;

	if (!kw_args(rt, "to_bytes", params, 3, args, nargs, kwnames, nkw, a,
	    given))
		return false;
	if (given[0] && !arg_index(rt, a[0], &length))
		return false;
	if (given[1]) {
		if (a[1].type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError, "to_bytes() argument "
			    "'byteorder' must be str, not %s",
			    clinic_type_name(a[1]));
		if (strcmp(a[1].as.s->data, "little") == 0)
			little = true;
		else if (strcmp(a[1].as.s->data, "big") != 0)
			return rt_raise(rt, PYEXC_ValueError, "byteorder must be "
			    "either 'little' or 'big'");
	}
	if (given[2] && !value_truthy(rt, a[2], &is_signed))
		return false;
	if (length < 0)
		return rt_raise(rt, PYEXC_ValueError, "length argument must be "
		    "non-negative");
	if (!rt_check_str_bytes(rt, (uint64_t)length))
		return false;
	int_mpz(self, z);
	if (!is_signed && mpz_sgn(z) < 0) {
		mpz_clear(z);
		return rt_raise(rt, PYEXC_OverflowError, "can't convert negative "
		    "int to unsigned");
	}
	/* bits needed: magnitude bits, plus a sign bit when signed */
	if (mpz_sgn(z) == 0)
		nbits = 0;
	else if (mpz_sgn(z) > 0)
		nbits = mpz_sizeinbase(z, 2) + (is_signed ? 1 : 0);
	else {
		/* -2**(k-1) fits in k bits; CPython lets -1 fit in none */
		mpz_init(m);
		mpz_neg(m, z);
		mpz_sub_ui(m, m, 1);
		nbits = mpz_sgn(m) == 0 ? 0 : mpz_sizeinbase(m, 2) + 1;
		mpz_clear(m);
	}
	if (nbits > (uint64_t)length * 8) {
		mpz_clear(z);
		return rt_raise(rt, PYEXC_OverflowError, "int too big to convert");
	}
	/* two's complement: add 2**(8*length) to a negative value */
	if (mpz_sgn(z) < 0) {
		mpz_init(m);
		mpz_ui_pow_ui(m, 2, (unsigned long)length * 8);
		mpz_add(z, z, m);
		mpz_clear(m);
	}
	buf = arena_alloc(rt->arena, (size_t)length + 1);
	for (i = 0; i < (size_t)length; i++) {
		unsigned char byte = (unsigned char)mpz_getlimbn(z, 0) & 0xFF;
		if (mpz_sgn(z) == 0)
			byte = 0;
		buf[little ? i : (size_t)length - 1 - i] = (char)byte;
		mpz_fdiv_q_2exp(z, z, 8);
	}
	mpz_clear(z);
	*out = value_bytes(rt->arena, buf, (size_t)length);
	return true;
}

METHOD(float_is_integer)
{
	double f = self.as.f;
	if (!no_args(rt, "float.is_integer", nargs, nkw))
		return false;
	*out = value_bool(isfinite(f) && floor(f) == f);
	return true;
}

METHOD(float_conjugate)
{
	if (!no_args(rt, "float.conjugate", nargs, nkw))
		return false;
	*out = self;
	return true;
}

/* float.hex(): [-]0x1.<13 hex digits>p<exp>, subnormals as 0x0.<...>p-1022 */
METHOD(float_hex)
{
	double f = self.as.f, m;
	int e, i;
	char buf[64];
	size_t n = 0;
	uint64_t bits;

	if (!no_args(rt, "float.hex", nargs, nkw))
		return false;
	if (isnan(f)) {
		*out = value_cstr(rt->arena, "nan");
		return true;
	}
	if (isinf(f)) {
		*out = value_cstr(rt->arena, f < 0 ? "-inf" : "inf");
		return true;
	}
	if (signbit(f))
		buf[n++] = '-';
	f = fabs(f);
	if (f == 0) {
		strcpy(buf + n, "0x0.0p+0");
		*out = value_cstr(rt->arena, buf);
		return true;
	}
	m = frexp(f, &e);	/* f = m * 2**e, 0.5 <= m < 1 */
	e -= 1;			/* 1 <= 2m < 2 */
	if (e < -1022) {
		/* subnormal: scale to the fixed exponent */
		m = ldexp(f, 1022);
		e = -1022;
	} else
		m *= 2;
	n += (size_t)snprintf(buf + n, sizeof buf - n, "0x%d.", (int)m);
	m -= floor(m);
	bits = (uint64_t)ldexp(m, 52);
	for (i = 12; i >= 0; i--)
		buf[n++] = "0123456789abcdef"[(bits >> (i * 4)) & 15];
	snprintf(buf + n, sizeof buf - n, "p%+d", e);
	*out = value_cstr(rt->arena, buf);
	return true;
}

METHOD(float_as_integer_ratio)
{
	double f = self.as.f, m;
	int e;
	mpz_t num, den;
	value t;

	if (!no_args(rt, "float.as_integer_ratio", nargs, nkw))
		return false;
	if (isnan(f))
		return rt_raise(rt, PYEXC_ValueError, "cannot convert NaN to "
		    "integer ratio");
	if (isinf(f))
		return rt_raise(rt, PYEXC_OverflowError, "cannot convert Infinity "
		    "to integer ratio");
	/* m * 2**e with m an integer of at most 53 bits */
	m = frexp(f, &e);
	while (m != floor(m)) {
		m *= 2;
		e--;
	}
	mpz_init_set_d(num, m);
	mpz_init_set_ui(den, 1);
	if (e > 0)
		mpz_mul_2exp(num, num, (mp_bitcnt_t)e);
	else
		mpz_mul_2exp(den, den, (mp_bitcnt_t)-e);
	t = value_tuple(rt->arena, 2);
	t.as.tuple->items[0] = value_int_mpz(rt->arena, num);
	t.as.tuple->items[1] = value_int_mpz(rt->arena, den);
	mpz_clear(num);
	mpz_clear(den);
	*out = t;
	return true;
}

/* ================================================================ */
/* the tables                                                        */
/* ================================================================ */

struct method {
	const char	*name;
	native_fn	 fn;
};

/* Sorted by name (strcmp order): methods_getattr() bsearches them. */
static const struct method str_methods[] = {
	{ "capitalize",		str_capitalize },
	{ "casefold",		str_casefold },
	{ "center",		str_center },
	{ "count",		str_count },
	{ "encode",		str_encode },
	{ "endswith",		str_endswith },
	{ "expandtabs",		str_expandtabs },
	{ "find",		str_find },
	{ "format",		str_format },
	{ "format_map",		str_format_map },
	{ "index",		str_index },
	{ "isalnum",		str_isalnum },
	{ "isalpha",		str_isalpha },
	{ "isascii",		str_isascii },
	{ "isdecimal",		str_isdecimal },
	{ "isdigit",		str_isdigit },
	{ "isidentifier",	str_isidentifier },
	{ "islower",		str_islower },
	{ "isnumeric",		str_isnumeric },
	{ "isprintable",	str_isprintable },
	{ "isspace",		str_isspace },
	{ "istitle",		str_istitle },
	{ "isupper",		str_isupper },
	{ "join",		str_join },
	{ "ljust",		str_ljust },
	{ "lower",		str_lower },
	{ "lstrip",		str_lstrip },
	{ "partition",		str_partition },
	{ "removeprefix",	str_removeprefix },
	{ "removesuffix",	str_removesuffix },
	{ "replace",		str_replace },
	{ "rfind",		str_rfind },
	{ "rindex",		str_rindex },
	{ "rjust",		str_rjust },
	{ "rpartition",		str_rpartition },
	{ "rsplit",		str_rsplit },
	{ "rstrip",		str_rstrip },
	{ "split",		str_split },
	{ "splitlines",		str_splitlines },
	{ "startswith",		str_startswith },
	{ "strip",		str_strip },
	{ "swapcase",		str_swapcase },
	{ "title",		str_title },
	{ "upper",		str_upper },
	{ "zfill",		str_zfill },
};

static const struct method bytes_methods[] = {
	{ "capitalize",		bytes_capitalize },
	{ "center",		bytes_center },
	{ "count",		bytes_count },
	{ "decode",		bytes_decode },
	{ "endswith",		bytes_endswith },
	{ "expandtabs",		bytes_expandtabs },
	{ "find",		bytes_find },
	{ "hex",		bytes_hex },
	{ "index",		bytes_index },
	{ "isalnum",		bytes_isalnum },
	{ "isalpha",		bytes_isalpha },
	{ "isascii",		bytes_isascii },
	{ "isdigit",		bytes_isdigit },
	{ "islower",		bytes_islower },
	{ "isspace",		bytes_isspace },
	{ "istitle",		bytes_istitle },
	{ "isupper",		bytes_isupper },
	{ "join",		bytes_join },
	{ "ljust",		bytes_ljust },
	{ "lower",		bytes_lower },
	{ "lstrip",		bytes_lstrip },
	{ "partition",		bytes_partition },
	{ "removeprefix",	bytes_removeprefix },
	{ "removesuffix",	bytes_removesuffix },
	{ "replace",		bytes_replace },
	{ "rfind",		bytes_rfind },
	{ "rindex",		bytes_rindex },
	{ "rjust",		bytes_rjust },
	{ "rpartition",		bytes_rpartition },
	{ "rsplit",		bytes_rsplit },
	{ "rstrip",		bytes_rstrip },
	{ "split",		bytes_split },
	{ "splitlines",		bytes_splitlines },
	{ "startswith",		bytes_startswith },
	{ "strip",		bytes_strip },
	{ "swapcase",		bytes_swapcase },
	{ "title",		bytes_title },
	{ "upper",		bytes_upper },
	{ "zfill",		bytes_zfill },
};

static const struct method list_methods[] = {
	{ "append",		list_append },
	{ "clear",		list_clear },
	{ "copy",		list_copy },
	{ "count",		list_count },
	{ "extend",		list_extend },
	{ "index",		list_index },
	{ "insert",		list_insert },
	{ "pop",		list_pop },
	{ "remove",		list_remove },
	{ "reverse",		list_reverse },
	{ "sort",		list_sort },
};

static const struct method dict_methods[] = {
	{ "clear",		dict_clear },
	{ "copy",		dict_copy },
	{ "fromkeys",		dict_fromkeys },
	{ "get",		dict_get },
	{ "items",		dict_items },
	{ "keys",		dict_keys },
	{ "pop",		dict_pop },
	{ "popitem",		dict_popitem },
	{ "setdefault",		dict_setdefault },
	{ "update",		dict_update },
	{ "values",		dict_values },
};

static const struct method tuple_methods[] = {
	{ "count",		tuple_count },
	{ "index",		tuple_index },
};

static const struct method int_methods[] = {
	{ "as_integer_ratio",	int_as_integer_ratio },
	{ "bit_count",		int_bit_count },
	{ "bit_length",		int_bit_length },
	{ "conjugate",		int_conjugate },
	{ "to_bytes",		int_to_bytes },
};

static const struct method float_methods[] = {
	{ "as_integer_ratio",	float_as_integer_ratio },
	{ "conjugate",		float_conjugate },
	{ "hex",		float_hex },
	{ "is_integer",		float_is_integer },
};

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

METHOD(dunder_getitem)
{
	(void)kwnames;
	if (!one_arg(rt, dunder_qual(rt, self, "__getitem__"), nargs, nkw))
		return false;
	return value_getitem(rt, self, args[0], out);
}

METHOD(dunder_contains)
{
	(void)kwnames;
	if (!one_arg(rt, dunder_qual(rt, self, "__contains__"), nargs, nkw))
		return false;
	return value_compare(rt, CMPOP_IN, args[0], self, out);
}

METHOD(dunder_len)
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

METHOD(dunder_repr)
{
	(void)args;
	(void)kwnames;
	return dunder_text(rt, self, "__repr__", true, nargs, nkw, out);
}

METHOD(dunder_str)
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
