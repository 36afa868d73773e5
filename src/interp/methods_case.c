/*
 * methods_case.c -- what str and bytes know of characters: case mapping
 * (upper, lower, title, casefold, swapcase, capitalize) and the
 * predicates (isdigit, isalpha, isspace, isupper, istitle, isidentifier,
 * ...).
 *
 * Case mapping (with the full mappings: ß -> SS, İ -> i̇, the final
 * sigma) and the character classes are CPython's for all of Unicode 14.0,
 * from tables generated out of its unicodedata (methods_tables.gen.h);
 * isalpha is XID_Start with corrections.  bytes classify and map ASCII
 * only.  A receiver is turned into units and a result built from them
 * with methods_str.c's helpers (methods_int.h), checked against the caps
 * before it is built.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "methods_int.h"
#include "value/rt.h"
#include "base/unicode.h"
#include "value/value.h"

/* ================================================================ */
/* character classes and case                                       */
/* ================================================================ */

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
