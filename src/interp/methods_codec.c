/*
 * methods_codec.c -- str.encode and bytes.decode for utf-8, ascii and
 * latin-1 with CPython's names, error handlers and messages, and
 * bytes.hex.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "methods_int.h"
#include "value/rt.h"
#include "base/sbuf.h"
#include "base/unicode.h"
#include "value/value.h"

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
		return rt_raise(rt, PYEXC_LookupError,
		    "unknown error handler name '%s'", name);
	return true;
}

void
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
			return rt_raise(rt, PYEXC_TypeError,
			    "encode() argument '%s' must be str, not %s",
			    params[i].name,
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
			return rt_raise(rt, PYEXC_UnicodeEncodeError,
			    "'%s' codec can't encode characters in position "
			    "%zu-%zu: %s",
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
			return rt_raise(rt, PYEXC_TypeError,
			    "decode() argument '%s' must be str, not %s",
			    params[i].name,
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
			return rt_raise(rt, PYEXC_UnicodeDecodeError,
			    "'%s' codec can't decode bytes in position "
			    "%zu-%zu: %s",
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
			return rt_raise(rt, PYEXC_TypeError,
			    "object of type '%s' has no len()",
			    value_type_name(a[0]));
		}
		if (len != 1)
			return rt_raise(rt, PYEXC_ValueError,
			    "sep must be length 1.");
		if (a[0].type != VT_STR && a[0].type != VT_BYTES)
			return rt_raise(rt, PYEXC_TypeError,
			    "sep must be str or bytes.");
		if ((unsigned char)a[0].as.s->data[0] >= 0x80)
			return rt_raise(rt, PYEXC_ValueError,
			    "sep must be ASCII.");
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
