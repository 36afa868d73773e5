/*
 * methods_format.c -- str.format and str.format_map.
 *
 * str.format walks fields as CPython's unicode_format.h does: the literal
 * and field grammar, automatic or manual numbering, nested fields in the
 * spec (two levels), then '.attr' through the object model's getattr (the
 * evaluator's own attribute lookup, so format-string escapes see the same object model as
 * attribute syntax) and '[key]' through a small getitem.  The spec itself
 * is format_value()'s.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "eval.h"
#include "value/format.h"
#include "methods_int.h"
#include "value/num.h"
#include "value/rt.h"
#include "base/sbuf.h"
#include "base/unicode.h"
#include "value/value.h"

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
			return rt_raise(rt, PYEXC_ValueError,
			    "Too many decimal digits in format string");
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

/* KeyError's message is the repr of the key. */
bool
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
			return rt_raise(rt, PYEXC_TypeError,
			    "string indices must be integers, not '%s'",
			    value_type_name(key));
		if (!NUM_IS_INTLIKE(key))
			return rt_raise(rt, PYEXC_TypeError,
			    "%s indices must be integers or slices, not %s",
			    obj.type == VT_BYTES ?
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
		return rt->ev->model->getitem(rt->ev, obj, key, out);
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
				return rt_raise(rt, PYEXC_AttributeError,
				    "'%s' object has no attribute '%s'",
				    value_type_name(*obj), attr);
			if (!rt->ev->model->getattr(rt->ev, *obj, attr, &next))
				return false;
			i = j;
		} else if (c == '[') {
			while (j < n && s[j] != ']')
				j++;
			if (j == n)
				return rt_raise(rt, PYEXC_ValueError,
				    "Missing ']' in format string");
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
			return rt_raise(rt, PYEXC_ValueError,
			    "Only '.' or '[' may follow ']' in format field "
			    "specifier");
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
			return rt_raise(rt, PYEXC_ValueError,
			    "cannot switch from manual field specification to "
			    "automatic field "
			    "numbering");
		if (f->an == AN_AUTO && !empty)
			return rt_raise(rt, PYEXC_ValueError,
			    "cannot switch from automatic field numbering to "
			    "manual field "
			    "specification");
		if (empty)
			idx = f->next_auto++;
		if (!f->has_args)
			return rt_raise(rt, PYEXC_ValueError, "Format string "
			    "contains positional fields");
		if ((uint64_t)idx >= f->nargs)
			return rt_raise(rt, PYEXC_IndexError,
			    "Replacement index %lld out of range for "
			    "positional args tuple",
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
			return rt_raise(rt, PYEXC_ValueError,
			    "Unknown conversion specifier \\x%x", conversion);
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
				return rt_raise(rt, PYEXC_ValueError,
				    "Single '}' encountered in format string");
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
				return rt_raise(rt, PYEXC_ValueError,
				    "unexpected '{' in field name");
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
			return rt_raise(rt, PYEXC_ValueError,
			    "expected '}' before end of string");
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
