/*
 * methods_str.c -- the methods of str and bytes: search, split, join,
 * replace, strip, pad; and the units every str and bytes method works on.
 *
 * str and bytes share their algorithms: both are turned into an array of
 * units (code points for str, bytes for bytes), searched, split and padded
 * as units, and turned back into a str or a bytes.  Indices are then code
 * point indices, as Python's are.  Every result whose size the user
 * controls is checked against the caps before it is built.
 *
 * Case mapping and the character classes (upper, isalpha, istitle...)
 * are methods_case.c's, on the units made here.
 *
 * The codecs (str.encode, bytes.decode, bytes.hex) are methods_codec.c's,
 * str.format methods_format.c's; argument checking is methods_args.c's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "methods_int.h"
#include "value/num.h"
#include "value/rt.h"
#include "base/unicode.h"
#include "value/value.h"

/* ================================================================ */
/* units: str as code points, bytes as bytes                         */
/* ================================================================ */

/* Decode generalised UTF-8 (surrogates allowed; the value layer made it). */
struct units
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
value
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
 * Caps for a result of base + count * per bytes, checked before the
 * result is built (an overflowing size is simply refused).  The units
 * arrays on the way are a constant factor of inputs that were themselves
 * within the caps; the checks are for what a user's number multiplies.
 */
bool
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
bool
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

void
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

/* Same type as the receiver, with the message its type gives. */
static bool
want_same(struct rt *rt, value self, value v)
{
	if (self.type == VT_STR) {
		if (v.type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError,
			    "must be str, not %s",
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

bool
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
			return rt_raise(rt, PYEXC_TypeError,
			    "%s arg must be None or str",
			    strchr(qual, '.') + 1);
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
			return rt_raise(rt, PYEXC_TypeError,
			    "must be str or None, not %s",
			    value_type_name(a[0]));
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
		return rt_raise(rt, PYEXC_TypeError,
		    "can only join an iterable");
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
			return rt_raise(rt, PYEXC_TypeError,
			    "replace() argument 1 must be str, not %s",
			    clinic_type_name(args[0]));
		if (args[1].type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError,
			    "replace() argument 2 must be str, not %s",
			    clinic_type_name(args[1]));
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
				return rt_raise(rt, PYEXC_TypeError,
				    "a bytes-like object is required, not '%s'",
				    value_type_name(cands[i]));
			else if (cands[i].type != self.type)
				return rt_raise(rt, PYEXC_TypeError,
				    "tuple for %s must only contain %s, not %s",
				    fname,
				    tname, value_type_name(cands[i]));
	} else if (args[0].type == self.type) {
		cands = &args[0];
		ncand = 1;
	} else
		return rt_raise(rt, PYEXC_TypeError,
		    "%s first arg must be %s or a tuple of %s, not %s",
		    fname, tname, tname,
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
			return rt_raise(rt, PYEXC_TypeError,
			    "must be str, not %s",
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
		return rt_raise(rt, PYEXC_TypeError,
		    "argument should be integer or bytes-like object, not '%s'",
		    value_type_name(args[0]));
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
		return rt_raise(rt, PYEXC_TypeError,
		    "%s() argument must be str, not %s",
		    strchr(qual, '.') + 1, clinic_type_name(args[0]));
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
			return rt_raise(rt, PYEXC_TypeError,
			    "%s() argument 2 must be a byte string of length "
			    "1, not %s",
			    strchr(qual, '.') + 1, clinic_type_name(args[1]));
		fillc = (unsigned char)args[1].as.s->data[0];
	} else if (nargs == 2) {
		if (args[1].type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError,
			    "The fill character must be a unicode character, "
			    "not %s",
			    value_type_name(args[1]));
		if (args[1].as.s->nchars != 1)
			return rt_raise(rt, PYEXC_TypeError,
			    "The fill character must be exactly one character "
			    "long");
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
			return rt_raise(rt, PYEXC_TypeError,
			    "'%s' object cannot be interpreted as an integer",
			    value_type_name(a[0]));
		if (!num_to_int64_clamped(a[0], &tab) || tab > INT32_MAX ||
		    tab < INT32_MIN)
			return rt_raise(rt, PYEXC_OverflowError,
			    "Python int too large to convert to C int");
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


METHOD(bytes_split)
{
	return do_split(rt, self, false, args, nargs, kwnames, nkw, out);
}

METHOD(bytes_rsplit)
{
	return do_split(rt, self, true, args, nargs, kwnames, nkw, out);
}
