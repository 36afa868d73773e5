/*
 * strfmt.c -- printf-style formatting: 'fmt' % args and b'fmt' % args.
 *
 * This follows CPython 3.11's PyUnicode_Format and bytes_format: walk the
 * format, copy literal text, and for each '%' spec parse an optional
 * "(key)", flags (-+ #0), width and precision (either may be '*', taken
 * from the arguments), skip an h/l/L length modifier, fetch the next
 * argument *before* looking at the conversion character (so '%z' % ()
 * reports the missing argument, as CPython does), convert, then pad.
 *
 * The arguments are a tuple (consumed in order), or any other value taken
 * as one argument.  A value that supports subscripting (list, dict, and
 * bytes for str formats) is also remembered as the mapping for "%(key)s",
 * which is why 'a' % [] is fine while 'a' % 1 leaves an argument over.
 *
 * Widths and precisions count code points.  Every piece is built in an
 * sbuf, and a width or precision is checked against the str-bytes cap
 * before it is used.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "num.h"
#include "base/sbuf.h"
#include "strfmt.h"
#include "base/unicode.h"
#include "value.h"

#define F_LJUST	0x01
#define F_SIGN	0x02
#define F_BLANK	0x04
#define F_ALT	0x08
#define F_ZERO	0x10

struct fmtctx {
	struct rt	*rt;
	bool		 is_bytes;
	value		 args;
	int64_t		 arglen;	/* -1: one non-tuple argument */
	int64_t		 argidx;
	value		 dict;		/* VT_NONE when args is no mapping */
};

static bool
next_arg(struct fmtctx *c, value *out)
{
	if (c->argidx < c->arglen) {
		c->argidx++;
		*out = c->arglen < 0 ? c->args :
		    c->args.as.tuple->items[c->argidx - 1];
		return true;
	}
	return rt_raise(c->rt, PYEXC_TypeError,
	    "not enough arguments for format string");
}

static size_t
count_chars(const char *s, size_t n, bool is_bytes)
{
	size_t i, k = 0;
	if (is_bytes)
		return n;
	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			k++;
	return k;
}

/* Byte length of the first nchars code points of s. */
static size_t
prefix_bytes(const char *s, size_t n, size_t nchars)
{
	size_t i = 0, k = 0;
	while (i < n) {
		if (((unsigned char)s[i] & 0xC0) != 0x80) {
			if (k == nchars)
				break;
			k++;
		}
		i++;
	}
	return i;
}

/* ascii(v): repr with every non-ASCII code point escaped. */
static bool
ascii_of(struct rt *rt, value v, struct sbuf *out)
{
	struct sbuf r = SBUF_INIT;
	size_t i = 0;
	if (!value_repr(rt, v, &r)) {
		sbuf_free(&r);
		return false;
	}
	while (i < r.len) {
		uint32_t cp = unicode_next(r.data, r.len, &i);
		if (cp < 0x80)
			sbuf_addc(out, (char)cp);
		else if (cp <= 0xff)
			sbuf_addf(out, "\\x%02x", (unsigned)cp);
		else if (cp <= 0xffff)
			sbuf_addf(out, "\\u%04x", (unsigned)cp);
		else
			sbuf_addf(out, "\\U%08x", (unsigned)cp);
	}
	sbuf_free(&r);
	return true;
}

/* _PyUnicode_FormatLong: [-][0x]digits, digits zero-padded to prec. */
static bool
format_long(struct rt *rt, value v, int flags, int64_t prec, char type,
    struct sbuf *out)
{
	struct sbuf digits = SBUF_INIT;
	const char *d;
	bool neg;
	if (type == 'd' || type == 'i' || type == 'u') {
		if (!num_int_repr(rt, v, &digits)) {
			sbuf_free(&digits);
			return false;
		}
	} else {
		mpz_t z;
		num_get_mpz(v, z);
		char *s = mpz_get_str(NULL, type == 'o' ? 8 : 16, z);
		sbuf_adds(&digits, s);
		free(s);
		mpz_clear(z);
	}
	d = sbuf_cstr(&digits);
	neg = d[0] == '-';
	if (neg) {
		sbuf_addc(out, '-');
		d++;
	}
	if ((flags & F_ALT) && type != 'd' && type != 'i' && type != 'u') {
		sbuf_addc(out, '0');
		sbuf_addc(out, type == 'o' ? 'o' : type);
	}
	for (int64_t k = (int64_t)strlen(d); k < prec; k++)
		sbuf_addc(out, '0');
	for (; *d; d++)
		sbuf_addc(out, type == 'X' ? (char)(*d >= 'a' && *d <= 'f' ?
		    *d - 'a' + 'A' : *d) : *d);
	sbuf_free(&digits);
	return true;
}

/* formatfloat: C's correctly rounded conversions, Python's inf/nan. */
static void
format_double(double x, int flags, int64_t prec, char type, struct sbuf *out)
{
	bool upper = type == 'E' || type == 'F' || type == 'G';
	if (prec < 0)
		prec = 6;
	if (isnan(x)) {
		sbuf_adds(out, upper ? "NAN" : "nan");
		return;
	}
	if (isinf(x)) {
		if (x < 0)
			sbuf_addc(out, '-');
		sbuf_adds(out, upper ? "INF" : "inf");
		return;
	}
	/* literal formats, so the compiler can check every one */
#define FMT_CASE(c, t)						\
	case c:								\
		if (flags & F_ALT)					\
			sbuf_addf(out, "%#.*" t, (int)prec, x);		\
		else							\
			sbuf_addf(out, "%.*" t, (int)prec, x);		\
		break;
	switch (type) {
	FMT_CASE('e', "e") FMT_CASE('E', "E") FMT_CASE('f', "f")
	FMT_CASE('F', "F") FMT_CASE('g', "g")
	default:
	FMT_CASE('G', "G")
	}
#undef FMT_CASE
}

static bool
is_mapping(const struct fmtctx *c, value v)
{
	return v.type == VT_LIST || v.type == VT_DICT ||
	    (!c->is_bytes && v.type == VT_BYTES);
}

/* The value of "%(key)..." from the mapping. */
static bool
mapping_get(struct fmtctx *c, const char *key, size_t n, value *out)
{
	struct rt *rt = c->rt;
	value k = c->is_bytes ? value_bytes(rt->arena, key, n) :
	    value_str(rt->arena, key, n);
	bool found;
	if (c->dict.type == VT_NONE)
		return rt_raise(rt, PYEXC_TypeError,
		    "format requires a mapping");
	if (c->dict.type == VT_LIST)
		return rt_raise(rt, PYEXC_TypeError,
		    "list indices must be integers or slices, not %s",
		    value_type_name(k));
	if (c->dict.type == VT_BYTES)
		return rt_raise(rt, PYEXC_TypeError,
		    "byte indices must be integers or slices, not %s",
		    value_type_name(k));
	if (!value_dict_get(rt, c->dict, k, out, &found))
		return false;
	if (!found) {
		struct sbuf r = SBUF_INIT;
		value_repr(rt, k, &r);
		rt_raise(rt, PYEXC_KeyError, "%s", sbuf_cstr(&r));
		sbuf_free(&r);
		return false;
	}
	return true;
}

/* '*' in a width (a Py_ssize_t) or precision (a C int): an int from the
 * arguments. */
static bool
star_arg(struct fmtctx *c, int64_t *out, bool is_prec)
{
	value v;
	if (!next_arg(c, &v))
		return false;
	if (!NUM_IS_INTLIKE(v))
		return rt_raise(c->rt, PYEXC_TypeError, "* wants int");
	if (!num_to_int64_clamped(v, out) ||
	    (is_prec && (*out > INT32_MAX || *out < INT32_MIN)))
		return rt_raise(c->rt, PYEXC_OverflowError,
		    "Python int too large to convert to C %s",
		    is_prec ? "int" : "ssize_t");
	return true;
}

static bool
parse_number(struct fmtctx *c, const char *f, size_t n, size_t *i,
    int64_t *out, const char *what)
{
	int64_t v = 0;
	while (*i < n && f[*i] >= '0' && f[*i] <= '9') {
		if (v > (INT64_MAX - 9) / 10)
			return rt_raise(c->rt, PYEXC_ValueError,
			    "%s too big", what);
		v = v * 10 + (f[*i] - '0');
		(*i)++;
	}
	*out = v;
	return true;
}

/* Convert one argument for conversion ch into body (no padding yet). */
static bool
convert(struct fmtctx *c, value v, char ch, uint32_t cp, int flags,
    int64_t prec, size_t at, struct sbuf *body, bool *numeric)
{
	struct rt *rt = c->rt;
	*numeric = false;
	switch (ch) {
	case 's':
	case 'r':
	case 'a':
	case 'b':
		if (c->is_bytes && (ch == 's' || ch == 'b')) {
			if (v.type != VT_BYTES)
				return rt_raise(rt, PYEXC_TypeError,
				    "%%b requires a bytes-like object, or an "
				    "object that "
				    "implements __bytes__, not '%s'",
				    value_type_name(v));
			sbuf_add(body, v.as.s->data, v.as.s->len);
		} else if (ch == 'b') {
			goto unsupported;
		} else if (ch == 'a' || (c->is_bytes && ch == 'r')) {
			if (!ascii_of(rt, v, body))
				return false;
		} else if (ch == 'r') {
			if (!value_repr(rt, v, body))
				return false;
		} else if (!value_str_of(rt, v, body))
			return false;
		if (prec >= 0) {
			size_t keep = c->is_bytes ?
			    ((size_t)prec < body->len ? (size_t)prec : body->len) :
			    prefix_bytes(body->data, body->len, (size_t)prec);
			sbuf_truncate(body, keep);
		}
		return true;
	case 'i':
	case 'd':
	case 'u':
	case 'o':
	case 'x':
	case 'X': {
		value iv = v;
		*numeric = true;
		if (v.type == VT_FLOAT && (ch == 'i' || ch == 'd' || ch == 'u')) {
			if (!num_round(rt, value_float(trunc(v.as.f)),
			    value_none(), &iv))
				return false;
		} else if (!NUM_IS_INTLIKE(v)) {
			if (ch == 'i' || ch == 'd' || ch == 'u')
				return rt_raise(rt, PYEXC_TypeError,
				    "%%%c format: a real number is required, "
				    "not %s",
				    c->is_bytes && ch == 'i' ? 'd' : ch,
				    value_type_name(v));
			return rt_raise(rt, PYEXC_TypeError, "%%%c format: an "
			    "integer is required, not %s", ch,
			    value_type_name(v));
		}
		return format_long(rt, iv, flags, prec, ch, body);
	}
	case 'e':
	case 'E':
	case 'f':
	case 'F':
	case 'g':
	case 'G': {
		double x;
		*numeric = true;
		if (c->is_bytes && !NUM_IS_INTLIKE(v) && v.type != VT_FLOAT)
			return rt_raise(rt, PYEXC_TypeError, "float argument "
			    "required, not %s", value_type_name(v));
		if (!num_to_double(rt, v, &x))
			return false;
		format_double(x, flags, prec, ch, body);
		return true;
	}
	case 'c':
		if (NUM_IS_INTLIKE(v)) {
			int64_t code;
			bool fits = num_to_int64_clamped(v, &code);
			int64_t top = c->is_bytes ? 0x100 : 0x110000;
			if (!fits || code < 0 || code >= top)
				return rt_raise(rt, PYEXC_OverflowError,
				    "%%c arg not in range(%s)",
				    c->is_bytes ? "256" :
				    "0x110000");
			if (c->is_bytes) {
				sbuf_addc(body, (char)code);
			} else {
				/* the code point as (generalised) UTF-8 */
				char b[4];
				sbuf_add(body, b, unicode_encode((uint32_t)code,
				    b));
			}
			return true;
		}
		if (c->is_bytes) {
			if (v.type == VT_BYTES && v.as.s->len == 1) {
				sbuf_add(body, v.as.s->data, 1);
				return true;
			}
			return rt_raise(rt, PYEXC_TypeError,
			    "%%c requires an integer in range(256) or a single "
			    "byte");
		}
		if (v.type == VT_STR && v.as.s->nchars == 1) {
			sbuf_add(body, v.as.s->data, v.as.s->len);
			return true;
		}
		return rt_raise(rt, PYEXC_TypeError,
		    "%%c requires int or char");
	default:
		break;
	}
unsupported:
	/* CPython shows a non-ASCII character as '?' and its code point */
	return rt_raise(rt, PYEXC_ValueError,
	    "unsupported format character '%c' (0x%x) at index %zu",
	    cp < 0x80 ? (char)cp : '?', (unsigned)cp,
	    at);
}

/* unicode_format_arg_output: sign, 0x prefix, fill and padding. */
static void
output(struct sbuf *out, const struct sbuf *body, char ch, int flags,
    int64_t width, bool numeric, bool is_bytes)
{
	const char *p = body->len ? body->data : "";
	size_t len = count_chars(p, body->len, is_bytes), nb = body->len;
	char fill = ' ', signchar = 0;
	bool has_prefix = (flags & F_ALT) &&
	    (ch == 'x' || ch == 'X' || ch == 'o');
	bool sign = numeric;

	if (numeric && (flags & F_ZERO) && !(flags & F_LJUST))
		fill = '0';
	if (sign) {
		if (p[0] == '-' || p[0] == '+') {
			signchar = p[0];
			p++;
			nb--;
			len--;
		} else if (flags & F_SIGN)
			signchar = '+';
		else if (flags & F_BLANK)
			signchar = ' ';
		else
			sign = false;
	}
	if (width < (int64_t)len)
		width = (int64_t)len;
	if (sign) {
		if (fill != ' ')
			sbuf_addc(out, signchar);
		if (width > (int64_t)len)
			width--;
	}
	if (has_prefix) {
		if (fill != ' ') {
			sbuf_add(out, p, 2);
			p += 2;
			nb -= 2;
		}
		width -= 2;
		if (width < 0)
			width = 0;
		len -= 2;
	}
	if (width > (int64_t)len && !(flags & F_LJUST)) {
		for (int64_t k = (int64_t)len; k < width; k++)
			sbuf_addc(out, fill);
		width = (int64_t)len;
	}
	if (fill == ' ') {
		if (sign)
			sbuf_addc(out, signchar);
		if (has_prefix) {
			sbuf_add(out, p, 2);
			p += 2;
			nb -= 2;
		}
	}
	sbuf_add(out, p, nb);
	for (int64_t k = (int64_t)len; k < width; k++)
		sbuf_addc(out, ' ');
}

static bool
format_all(struct fmtctx *c, const char *f, size_t n, struct sbuf *out)
{
	struct rt *rt = c->rt;
	size_t i = 0, cpos = 0;	/* byte index, code point index */

	while (i < n) {
		if (f[i] != '%') {
			if (((unsigned char)f[i] & 0xC0) != 0x80)
				cpos++;
			sbuf_addc(out, f[i++]);
			continue;
		}
		i++;
		cpos++;
		if (i < n && f[i] == '%') {
			sbuf_addc(out, '%');
			i++;
			cpos++;
			continue;
		}
		int flags = 0;
		int64_t width = -1, prec = -1;
		value arg;
		bool have_arg = false;
		size_t start = i;

		if (i < n && f[i] == '(') {
			/* "%(key)s": the key may hold balanced parentheses */
			size_t depth = 1, k0 = ++i;
			while (i < n && depth > 0) {
				if (f[i] == '(')
					depth++;
				else if (f[i] == ')')
					depth--;
				i++;
			}
			if (depth > 0)
				return rt_raise(rt, PYEXC_ValueError,
				    "incomplete format key");
			if (!mapping_get(c, f + k0, i - 1 - k0, &arg))
				return false;
			have_arg = true;
			c->arglen = -1;
			c->argidx = -2;
		}
		for (; i < n; i++) {
			if (f[i] == '-') flags |= F_LJUST;
			else if (f[i] == '+') flags |= F_SIGN;
			else if (f[i] == ' ') flags |= F_BLANK;
			else if (f[i] == '#') flags |= F_ALT;
			else if (f[i] == '0') flags |= F_ZERO;
			else break;
		}
		if (i < n && f[i] == '*') {
			if (!star_arg(c, &width, false))
				return false;
			if (width < 0) {
				flags |= F_LJUST;
				width = width == INT64_MIN ? INT64_MAX : -width;
			}
			i++;
		} else if (i < n && f[i] >= '0' && f[i] <= '9') {
			if (!parse_number(c, f, n, &i, &width, "width"))
				return false;
		}
		if (i < n && f[i] == '.') {
			i++;
			if (i < n && f[i] == '*') {
				if (!star_arg(c, &prec, true))
					return false;
				if (prec < 0)
					prec = 0;
				i++;
			} else {
				prec = 0;
				if (!parse_number(c, f, n, &i, &prec,
				    "precision"))
					return false;
			}
		}
		if (i < n && (f[i] == 'h' || f[i] == 'l' || f[i] == 'L'))
			i++;
		if (i >= n)
			return rt_raise(rt, PYEXC_ValueError,
			    "incomplete format");
		if ((width > 0 && !rt_check_str_bytes(rt, (uint64_t)width)) ||
		    (prec > 0 && !rt_check_str_bytes(rt, (uint64_t)prec)))
			return false;
		/* code points consumed by the spec, for the error index */
		cpos += count_chars(f + start, i - start, c->is_bytes);
		/* the conversion character, as a code point for errors */
		char ch = f[i];
		uint32_t cp = c->is_bytes ? (unsigned char)f[i++] :
		    unicode_next(f, n, &i);
		if (!have_arg && !next_arg(c, &arg))
			return false;
		struct sbuf body = SBUF_INIT;
		bool numeric;
		if (!convert(c, arg, ch, cp, flags, prec, cpos, &body,
		    &numeric)) {
			sbuf_free(&body);
			return false;
		}
		cpos++;
		output(out, &body, ch, flags, width, numeric, c->is_bytes);
		sbuf_free(&body);
		if (!rt_check_str_bytes(rt, out->len))
			return false;
	}
	if (c->argidx < c->arglen && c->dict.type == VT_NONE)
		return rt_raise(rt, PYEXC_TypeError,
		    "not all arguments converted during %s formatting",
		    c->is_bytes ? "bytes" : "string");
	return true;
}

bool
strfmt_percent(struct rt *rt, value fmt, value args, value *out)
{
	struct fmtctx c = { rt, fmt.type == VT_BYTES, args, -1, -2,
	    { .type = VT_NONE } };
	struct sbuf buf = SBUF_INIT;
	bool ok;

	if (args.type == VT_TUPLE) {
		c.arglen = (int64_t)args.as.tuple->len;
		c.argidx = 0;
	} else if (is_mapping(&c, args))
		c.dict = args;
	ok = format_all(&c, fmt.as.s->data, fmt.as.s->len, &buf);
	if (ok)
		*out = c.is_bytes ? value_bytes(rt->arena, sbuf_cstr(&buf),
		    buf.len) : value_str(rt->arena, sbuf_cstr(&buf), buf.len);
	sbuf_free(&buf);
	return ok;
}
