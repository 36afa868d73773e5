/*
 * format.c -- the format-spec mini-language.
 *
 *   spec := [[fill]align][sign]["z"]["#"]["0"][width][grouping]["." precision][type]
 *
 * The spec is parsed once into struct spec, then the digits are produced
 * per type (GMP for ints of any size, snprintf for floats, whose %e/%f/%g
 * are correctly rounded in glibc as CPython's are), then sign, prefix,
 * grouping and padding are applied in CPython's order.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "base/sbuf.h"
#include "base/unicode.h"
#include "base/xalloc.h"

struct spec {
	char	 fill[5];	/* one code point, UTF-8 */
	char	 align;		/* 0, '<', '>', '^', '=' */
	char	 sign;		/* 0, '+', '-', ' ' */
	bool	 zflag;
	bool	 alt;
	bool	 zero;
	long	 width;		/* -1: none */
	char	 grouping;	/* 0, ',', '_' */
	long	 precision;	/* -1: none */
	int	 type;		/* 0 or the type (a code point) */
	bool	 zero_align;	/* '=' came from the '0' flag, not typed */
};

static bool
is_align(char c)
{
	return c == '<' || c == '>' || c == '^' || c == '=';
}

static bool
parse_spec(struct rt *rt, const char *s, size_t n, const char *tname,
    struct spec *sp)
{
	size_t i = 0;

	memset(sp, 0, sizeof *sp);
	strcpy(sp->fill, " ");
	sp->width = -1;
	sp->precision = -1;
	if (n > 0) {
		size_t cl = unicode_char_len((unsigned char)s[0]);
		if (cl < n && is_align(s[cl])) {
			memcpy(sp->fill, s, cl);
			sp->fill[cl] = '\0';
			sp->align = s[cl];
			i = cl + 1;
		} else if (is_align(s[0])) {
			sp->align = s[0];
			i = 1;
		}
	}
	if (i < n && (s[i] == '+' || s[i] == '-' || s[i] == ' '))
		sp->sign = s[i++];
	if (i < n && s[i] == 'z')
		sp->zflag = true, i++;
	if (i < n && s[i] == '#')
		sp->alt = true, i++;
	if (i < n && s[i] == '0') {
		sp->zero = true;
		i++;
	}
	if (i < n && s[i] >= '0' && s[i] <= '9') {
		sp->width = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			if (sp->width > 100000000)
				return rt_raise(rt, PYEXC_ValueError,
				    "Too many decimal digits in format string");
			sp->width = sp->width * 10 + (s[i++] - '0');
		}
	}
	if (sp->zero && sp->width < 0)
		sp->width = 0;
	if (i < n && (s[i] == ',' || s[i] == '_'))
		sp->grouping = s[i++];
	if (i < n && (s[i] == ',' || s[i] == '_'))
		return rt_raise(rt, PYEXC_ValueError,
		    "Cannot specify both ',' and '_'.");
	if (i < n && s[i] == '.') {
		i++;
		if (i >= n || s[i] < '0' || s[i] > '9')
			return rt_raise(rt, PYEXC_ValueError,
			    "Format specifier missing precision");
		sp->precision = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			if (sp->precision > 100000000)
				return rt_raise(rt, PYEXC_ValueError,
				    "Too many decimal digits in format string");
			sp->precision = sp->precision * 10 + (s[i++] - '0');
		}
	}
	if (n - i > 1 && n - i == unicode_char_len((unsigned char)s[i])) {
		/* one non-ASCII character: an unknown type, named as CPython
		 * names it */
		uint32_t cp = unicode_next(s, n, &i);
		return rt_raise(rt, PYEXC_ValueError,
		    "Unknown format code '\\x%x' for object of type '%s'",
		    (unsigned)cp, tname);
	}
	if (n - i > 1)
		return rt_raise(rt, PYEXC_ValueError,
		    "Invalid format specifier '%.*s' for object of type '%s'",
		    (int)n, s, tname);
	if (i < n)
		sp->type = (unsigned char)s[i];
	if (sp->zero && sp->align == 0) {
		strcpy(sp->fill, "0");
		sp->align = '=';
		sp->zero_align = true;
	}
	/* every width is capped before any padding is made */
	if (sp->width > 0 && !rt_check_str_bytes(rt, (uint64_t)sp->width *
	    strlen(sp->fill)))
		return false;
	return true;
}

/* Insert grouping separators into a run of digits. */
static void
group_digits(const char *d, size_t n, char sep, int every, struct sbuf *out)
{
	size_t i;
	for (i = 0; i < n; i++) {
		if (i > 0 && (n - i) % (size_t)every == 0)
			sbuf_addc(out, sep);
		sbuf_addc(out, d[i]);
	}
}

/*
 * Pad sign+prefix+body to the width: '=' puts the fill between the sign
 * and the digits, the others around the whole.
 */
static void
pad(const struct spec *sp, const char *signpfx, const char *body,
    size_t bodylen, char default_align, struct sbuf *out)
{
	size_t len = unicode_count(signpfx, strlen(signpfx)) + unicode_count(body, bodylen);
	size_t fill = sp->width > 0 && (size_t)sp->width > len ?
	    (size_t)sp->width - len : 0, left = 0, right = 0, k;
	char align = sp->align ? sp->align : default_align;

	switch (align) {
	case '<': right = fill; break;
	case '^': left = fill / 2; right = fill - left; break;
	default: left = fill; break;
	}
	if (align == '=') {
		sbuf_adds(out, signpfx);
		for (k = 0; k < left; k++)
			sbuf_adds(out, sp->fill);
		sbuf_add(out, body, bodylen);
		return;
	}
	for (k = 0; k < left; k++)
		sbuf_adds(out, sp->fill);
	sbuf_adds(out, signpfx);
	sbuf_add(out, body, bodylen);
	for (k = 0; k < right; k++)
		sbuf_adds(out, sp->fill);
}

static const char *
sign_of(const struct spec *sp, bool negative)
{
	if (negative)
		return "-";
	if (sp->sign == '+')
		return "+";
	if (sp->sign == ' ')
		return " ";
	return "";
}

/*
 * With '0' padding and grouping, CPython pads the digits themselves with
 * zeros and separators to the width.  This helper regroups zero-padded
 * digits so "{:010,}" gives "00,001,234".
 */
static void
zero_pad_grouped(const struct spec *sp, const char *digits, size_t n,
    int every, size_t used, struct sbuf *out)
{
	struct sbuf d = SBUF_INIT;
	size_t want = sp->width > 0 && (size_t)sp->width > used ?
	    (size_t)sp->width - used : 0;
	size_t nd = n;
	/* Grow the digit run until digits plus separators fill want. */
	while (nd + (nd - 1) / (size_t)every < want)
		nd++;
	for (size_t i = n; i < nd; i++)
		sbuf_addc(&d, '0');
	sbuf_add(&d, digits, n);
	group_digits(sbuf_cstr(&d), d.len, sp->grouping, every, out);
	sbuf_free(&d);
}

static bool
format_int(struct rt *rt, value v, const struct spec *sp, struct sbuf *out)
{
	mpz_t z;
	char type = sp->type ? sp->type : 'd';
	int base = 10, every = 3;
	const char *prefix = "";
	char *digits;
	bool neg;
	struct sbuf body = SBUF_INIT, sp_pfx = SBUF_INIT;

	switch (type) {
	case 'b': base = 2; prefix = "0b"; every = 4; break;
	case 'o': base = 8; prefix = "0o"; every = 4; break;
	case 'x': base = 16; prefix = "0x"; every = 4; break;
	case 'X': base = -16; prefix = "0X"; every = 4; break;
	case 'd': case 'n': break;
	case 'c':
		break;
	default:
		return rt_raise(rt, PYEXC_ValueError,
		    "Unknown format code '%c' for object of type '%s'",
		    type, v.type == VT_BOOL ? "bool" :
		    "int");
	}
	/* (CPython looks at the type before the precision) */
	if (sp->precision >= 0)
		return rt_raise(rt, PYEXC_ValueError,
		    "Precision not allowed in integer format specifier");
	if (sp->grouping == ',' && base != 10)
		return rt_raise(rt, PYEXC_ValueError, "Cannot specify ',' with "
		    "'%c'.", type);
	if (sp->grouping && type == 'n')
		return rt_raise(rt, PYEXC_ValueError, "Cannot specify ',' with "
		    "'n'.");
	if (sp->zflag)
		return rt_raise(rt, PYEXC_ValueError,
		    "Negative zero coercion (z) not allowed in integer format "
		    "specifier");
	mpz_init(z);
	if (v.type == VT_BIGINT)
		mpz_set(z, v.as.big->z);
	else
		mpz_set_si(z, v.type == VT_BOOL ? v.as.b : v.as.i);
	if (type == 'c') {
		if (sp->sign)
			return mpz_clear(z), rt_raise(rt, PYEXC_ValueError,
			    "Sign not allowed with integer format specifier 'c'");
		if (sp->alt)
			return mpz_clear(z), rt_raise(rt, PYEXC_ValueError,
			    "Alternate form (#) not allowed with integer "
			    "format specifier 'c'");
		if (mpz_sgn(z) < 0 || mpz_cmp_ui(z, 0x10FFFF) > 0) {
			mpz_clear(z);
			return rt_raise(rt, PYEXC_OverflowError,
			    "%%c arg not in range(0x110000)");
		}
		{
			unsigned long cp = mpz_get_ui(z);
			char u[4];
			size_t k = unicode_encode((uint32_t)cp, u);
			pad(sp, "", u, k, '<', out);
		}
		mpz_clear(z);
		return true;
	}
	neg = mpz_sgn(z) < 0;
	mpz_abs(z, z);
	if (base == 10 && mpz_sizeinbase(z, 10) > INT_MAX_STR_DIGITS + 1) {
		mpz_clear(z);
		return rt_raise(rt, PYEXC_ValueError, "Exceeds the limit (%d "
		    "digits) for integer string conversion; use "
		    "sys.set_int_max_str_digits() to increase the limit",
		    INT_MAX_STR_DIGITS);
	}
	digits = mpz_get_str(NULL, base, z);
	mpz_clear(z);
	sbuf_adds(&sp_pfx, sign_of(sp, neg));
	if (sp->alt)
		sbuf_adds(&sp_pfx, prefix);
	if (sp->grouping && sp->align == '=' && sp->fill[0] == '0' &&
	    sp->fill[1] == '\0')
		zero_pad_grouped(sp, digits, strlen(digits), every,
		    unicode_count(sp_pfx.data ? sp_pfx.data : "", sp_pfx.len),
		    &body);
	else if (sp->grouping)
		group_digits(digits, strlen(digits), sp->grouping, every, &body);
	else
		sbuf_adds(&body, digits);
	free(digits);
	pad(sp, sbuf_cstr(&sp_pfx), sbuf_cstr(&body), body.len, '>', out);
	sbuf_free(&body);
	sbuf_free(&sp_pfx);
	return true;
}

/* Digits of a finite non-negative double for types e f g %, or repr. */
static void
float_digits(double x, char type, long prec, bool alt, bool none_type,
    struct sbuf *out)
{
	char fmt[16], *buf;
	int n;

	if (none_type && prec < 0) {
		value_float_repr(x, out);
		return;
	}
	if (prec < 0)
		prec = 6;
	if (prec > 10000)
		prec = 10000;
	if (type == '%') {
		x *= 100;
		type = 'f';
	}
	if (type == 'g' || none_type) {
		if (prec == 0)
			prec = 1;
		if (none_type) {
			/*
			 * No type but a precision: 'g', except that the switch
			 * to an exponent comes one digit earlier (CPython's
			 * ADD_DOT_0 rule: when the decimal point would fall
			 * past precision - 1), and a fixed-point result keeps
			 * a digit after the point.
			 */
			/* sized to the digits: with a long precision a fixed
			 * buffer cut off the exponent (f'{4.:.2113}' crashed) */
			char *e;
			int decpt, elen;
			elen = snprintf(NULL, 0, "%.*e", (int)prec - 1, x);
			e = xmalloc((size_t)elen + 1);
			snprintf(e, (size_t)elen + 1, "%.*e", (int)prec - 1, x);
			decpt = atoi(strchr(e, 'e') + 1) + 1;
			free(e);
			if (decpt <= -4 || decpt > prec - 1)
				type = 'e', prec = prec - 1;
			else
				type = 'f', prec = prec - decpt;
		}
	}
	snprintf(fmt, sizeof fmt, "%%%s.%ld%c", alt ? "#" : "", prec, type);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	/* fmt is built above from a fixed set of conversions. */
	n = snprintf(NULL, 0, fmt, x);
	buf = malloc((size_t)n + 1);
	if (buf == NULL)
		return;
	snprintf(buf, (size_t)n + 1, fmt, x);
#pragma GCC diagnostic pop
	if (none_type && !alt) {
		/* as 'g' does: no trailing zeros in the digits */
		char *e = strchr(buf, 'e'), *end = e ? e : buf + strlen(buf);
		char *dot = memchr(buf, '.', (size_t)(end - buf)), *z = end;
		if (dot != NULL) {
			while (z > dot + 1 && z[-1] == '0')
				z--;
			if (z == dot + 1)
				z = dot;
			memmove(z, end, strlen(end) + 1);
		}
	}
	sbuf_adds(out, buf);
	/* No type: "at least one digit past the decimal point" when the
	 * result is in fixed-point. */
	if (none_type && strpbrk(buf, ".e") == NULL)
		sbuf_adds(out, ".0");
	free(buf);
}

static bool
format_float(struct rt *rt, double x, const struct spec *sp, struct sbuf *out)
{
	char type = sp->type;
	bool none_type = type == 0, upper = false, neg;
	struct sbuf body = SBUF_INIT, digits = SBUF_INIT;
	const char *d;
	size_t intlen;

	switch (type) {
	case 0: case 'e': case 'f': case 'g': case '%':
		break;
	case 'n':
		type = 'g';
		break;
	case 'E': case 'F': case 'G':
		upper = true;
		type = (char)(type - 'A' + 'a');
		break;
	default:
		return rt_raise(rt, PYEXC_ValueError,
		    "Unknown format code '%c' for object of type 'float'",
		    sp->type);
	}
	if (sp->alt && none_type && sp->precision < 0)
		none_type = true;
	neg = signbit(x) != 0;
	x = fabs(x);
	if (isnan(x)) {
		sbuf_adds(&digits, "nan");
		neg = false;
	} else if (isinf(x))
		sbuf_adds(&digits, "inf");
	else {
		if (none_type && sp->precision >= 0) {
			/* like 'g' but keep a digit past the point */
			float_digits(x, 'g', sp->precision, sp->alt, true,
			    &digits);
		} else
			float_digits(x, type, sp->precision, sp->alt,
			    none_type, &digits);
		if (type == '%')
			sbuf_addc(&digits, '%');
	}
	if ((isinf(x) || isnan(x)) && type == '%')
		sbuf_addc(&digits, '%');
	if (sp->zflag && neg) {
		/* negative zero after rounding becomes positive */
		const char *p;
		bool allzero = true;
		for (p = sbuf_cstr(&digits); *p && *p != 'e'; p++)
			if (*p >= '1' && *p <= '9')
				allzero = false;
		if (allzero)
			neg = false;
	}
	if (upper) {
		size_t i;
		for (i = 0; i < digits.len; i++)
			if (digits.data[i] >= 'a' && digits.data[i] <= 'z')
				digits.data[i] = (char)(digits.data[i] - 32);
	}
	d = sbuf_cstr(&digits);
	intlen = strspn(d, "0123456789");
	if (sp->grouping && intlen > 0 && !isnan(x) && !isinf(x)) {
		if (sp->align == '=' && strcmp(sp->fill, "0") == 0) {
			size_t used = strlen(sign_of(sp, neg)) +
			    unicode_count(d + intlen, digits.len - intlen);
			zero_pad_grouped(sp, d, intlen, 3, used, &body);
		} else
			group_digits(d, intlen, sp->grouping, 3, &body);
		sbuf_adds(&body, d + intlen);
	} else
		sbuf_add(&body, d, digits.len);
	pad(sp, sign_of(sp, neg), sbuf_cstr(&body), body.len, '>', out);
	sbuf_free(&body);
	sbuf_free(&digits);
	return true;
}

static bool
format_str(struct rt *rt, const struct vstr *s, const struct spec *sp,
    struct sbuf *out)
{
	size_t n = s->len;

	if (sp->type != 0 && sp->type != 's')
		return rt_raise(rt, PYEXC_ValueError,
		    "Unknown format code '%c' for object of type 'str'",
		    sp->type);
	if (sp->sign)
		return rt_raise(rt, PYEXC_ValueError,
		    "%s not allowed in string format specifier",
		    sp->sign == ' ' ? "Space" : "Sign");
	if (sp->alt)
		return rt_raise(rt, PYEXC_ValueError, "Alternate form (#) not "
		    "allowed in string format specifier");
	if (sp->zflag)
		return rt_raise(rt, PYEXC_ValueError,
		    "Negative zero coercion (z) not allowed in format specifier");
	if (sp->grouping)
		return rt_raise(rt, PYEXC_ValueError,
		    "Cannot specify '%c' with 's'.", sp->grouping);
	if (sp->align == '=' && !sp->zero_align)
		return rt_raise(rt, PYEXC_ValueError,
		    "'=' alignment not allowed in string format specifier");
	if (sp->precision >= 0) {
		size_t cps = 0, i = 0;
		while (i < s->len && cps < (size_t)sp->precision) {
			i += unicode_char_len((unsigned char)s->data[i]);
			cps++;
		}
		n = i < s->len ? i : s->len;
	}
	{
		struct spec left = *sp;
		if (left.zero_align)
			left.align = '<';	/* '0' on a str pads to the right */
		pad(&left, "", s->data, n, '<', out);
	}
	return true;
}

bool
format_value(struct rt *rt, value v, const char *spec, size_t speclen,
    struct sbuf *out)
{
	struct spec sp;

	switch (v.type) {
	case VT_BOOL:
		if (speclen == 0) {
			sbuf_adds(out, v.as.b ? "True" : "False");
			return true;
		}
		/* FALLTHROUGH */
	case VT_INT: case VT_BIGINT:
		if (!parse_spec(rt, spec, speclen, v.type == VT_BOOL ? "bool" :
		    "int", &sp))
			return false;
		if (sp.type && strchr("eEfFgG%", sp.type)) {
			value f;
			if (v.type == VT_BIGINT) {
				/* int -> float may overflow */
				double d = mpz_get_d(v.as.big->z);
				if (isinf(d))
					return rt_raise(rt, PYEXC_OverflowError,
					    "int too large to convert to float");
				f = value_float(d);
			} else
				f = value_float(v.type == VT_BOOL ? v.as.b :
				    (double)v.as.i);
			return format_float(rt, f.as.f, &sp, out);
		}
		return format_int(rt, v, &sp, out);
	case VT_FLOAT:
		if (!parse_spec(rt, spec, speclen, "float", &sp))
			return false;
		return format_float(rt, v.as.f, &sp, out);
	case VT_STR:
		if (!parse_spec(rt, spec, speclen, "str", &sp))
			return false;
		return format_str(rt, v.as.s, &sp, out);
	default:
		if (speclen != 0)
			return rt_raise(rt, PYEXC_TypeError,
			    "unsupported format string passed to %s.__format__",
			    value_type_name(v));
		return value_str_of(rt, v, out);
	}
}
