/*
 * methods_str.c -- the methods of str and bytes.
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
 * The codecs (str.encode, bytes.decode, bytes.hex) are methods_codec.c's,
 * str.format methods_format.c's; argument checking is methods_args.c's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "methods_int.h"
#include "num.h"
#include "rt.h"
#include "unicode.h"
#include "value.h"

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
 * unicodedata by tools/gen_methods.py --tables):
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
