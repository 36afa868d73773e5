/*
 * sjson.c -- a session state's JSON forms (state.c): names and bytes as
 * hex, objects and arrays built with every set checked, and values as
 * typed JSON, read back with the value constructors only.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sandbox/ledger.h"
#include "interp/ns.h"
#include "sjson.h"
#include "base/xalloc.h"

#define MAX_DEPTH	200

/* ---- hex ---- */

json_t *
sjson_hex(const char *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char *s = xmalloc(2 * n + 1);
	json_t *j;
	size_t i;
	for (i = 0; i < n; i++) {
		s[2 * i] = digits[(unsigned char)p[i] >> 4];
		s[2 * i + 1] = digits[(unsigned char)p[i] & 15];
	}
	s[2 * n] = '\0';
	j = json_stringn(s, 2 * n);
	free(s);
	return j;
}

int
sjson_nibble(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	return -1;
}

/* Decode a hex string into heap bytes (NUL-terminated); NULL when bad. */
char *
sjson_unhex(json_t *j, size_t *len)
{
	const char *s = json_string_value(j);
	size_t n, i;
	char *out;
	if (s == NULL || (n = json_string_length(j)) % 2 != 0)
		return NULL;
	out = xmalloc(n / 2 + 1);
	for (i = 0; i < n / 2; i++) {
		int hi = sjson_nibble(s[2 * i]);
		int lo = sjson_nibble(s[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			free(out);
			return NULL;
		}
		out[i] = (char)(hi << 4 | lo);
	}
	out[n / 2] = '\0';
	*len = n / 2;
	return out;
}

/* A hex string that must decode to a C string (no NUL inside). */
char *
sjson_unhex_name(json_t *j)
{
	size_t len;
	char *s = sjson_unhex(j, &len);
	if (s != NULL && strlen(s) != len) {
		free(s);
		return NULL;
	}
	return s;
}

/* ---- checked encoding: every set and append is checked ---- */

void
sjson_set(struct enc *e, json_t *obj, const char *key, json_t *v)
{
	/* jansson's *_new calls take v even when they fail */
	if (obj == NULL || v == NULL || json_object_set_new(obj, key, v) != 0) {
		if (obj == NULL)
			json_decref(v);
		e->ok = false;
	}
}

void
sjson_push(struct enc *e, json_t *arr, json_t *v)
{
	if (arr == NULL || v == NULL || json_array_append_new(arr, v) != 0) {
		if (arr == NULL)
			json_decref(v);
		e->ok = false;
	}
}

json_t *
sjson_pair(struct enc *e, json_t *a, json_t *b)
{
	json_t *arr = json_array();
	sjson_push(e, arr, a);
	sjson_push(e, arr, b);
	return arr;
}

/* ---- values ---- */

static json_t *
typed(const char *t, json_t *v)
{
	json_t *o;
	if (v == NULL)
		return NULL;
	o = json_object();
	if (o == NULL || json_object_set_new(o, "t", json_string(t)) != 0) {
		json_decref(v);
		json_decref(o);
		return NULL;
	}
	if (json_object_set_new(o, "v", v) != 0) {	/* it took v */
		json_decref(o);
		return NULL;
	}
	return o;
}

/* v as typed JSON, or NULL when v is not plain data (or too deep): the
 * name is skipped. */
static json_t *
sjson_value(value v, int depth)
{
	struct enc e = { true };
	json_t *a;
	char buf[40];
	size_t i;

	if (depth > MAX_DEPTH)
		return NULL;
	switch (v.type) {
	case VT_NONE: return typed("none", json_null());
	case VT_BOOL: return typed("bool", json_boolean(v.as.b));
	case VT_INT:
		/* repr of a number reads back exactly (floats round-trip) */
		snprintf(buf, sizeof buf, "%lld", (long long)v.as.i);
		return typed("int", json_string(buf));
	case VT_BIGINT: {
		char *d = mpz_get_str(NULL, 10, v.as.big->z);
		json_t *j = typed("int", json_string(d));
		free(d);
		return j;
	}
	case VT_FLOAT:
		snprintf(buf, sizeof buf, "%.17g", v.as.f);
		return typed("float", json_string(buf));
	case VT_COMPLEX: {
		char im[40];
		snprintf(buf, sizeof buf, "%.17g", v.as.c->re);
		snprintf(im, sizeof im, "%.17g", v.as.c->im);
		a = sjson_pair(&e, json_string(buf), json_string(im));
		return e.ok ? typed("complex", a) : (json_decref(a), NULL);
	}
	case VT_STR: return typed("str", sjson_hex(v.as.s->data, v.as.s->len));
	case VT_BYTES:
		return typed("bytes", sjson_hex(v.as.s->data, v.as.s->len));
	case VT_LIST: case VT_TUPLE: {
		size_t n = v.type == VT_LIST ? v.as.list->len : v.as.tuple->len;
		const value *items = v.type == VT_LIST ? v.as.list->items :
		    v.as.tuple->items;
		a = json_array();
		for (i = 0; i < n && e.ok; i++)
			sjson_push(&e, a, sjson_value(items[i], depth + 1));
		if (!e.ok) {
			json_decref(a);
			return NULL;
		}
		return typed(v.type == VT_LIST ? "list" : "tuple", a);
	}
	case VT_DICT: case VT_SET: case VT_FROZENSET:
		a = json_array();
		for (i = 0; i < v.as.dict->used && e.ok; i++) {
			const struct ventry *en = &v.as.dict->entries[i];
			json_t *k;
			if (!en->live)
				continue;
			k = sjson_value(en->key, depth + 1);
			sjson_push(&e, a, v.type == VT_DICT ? sjson_pair(&e, k,
			    sjson_value(en->val, depth + 1)) : k);
		}
		if (!e.ok) {
			json_decref(a);
			return NULL;
		}
		return typed(v.type == VT_DICT ? "dict" : v.type == VT_SET ?
		    "set" : "frozenset", a);
	default:
		return NULL;
	}
}

bool
sjson_to_value(struct rt *rt, json_t *j, int depth, value *out)
{
	const char *t = json_string_value(json_object_get(j, "t"));
	json_t *v = json_object_get(j, "v");
	size_t i, len;
	char *bytes;

	if (t == NULL || v == NULL || depth > MAX_DEPTH)
		return false;
	if (strcmp(t, "none") == 0) {
		*out = value_none();
		return true;
	}
	if (strcmp(t, "bool") == 0 && json_is_boolean(v)) {
		*out = value_bool(json_is_true(v));
		return true;
	}
	if (strcmp(t, "int") == 0 && json_is_string(v)) {
		mpz_t z;
		const char *s = json_string_value(v);
		if (mpz_init_set_str(z, s, 10) != 0) {
			mpz_clear(z);
			return false;
		}
		*out = value_int_mpz(rt->arena, z);
		mpz_clear(z);
		return true;
	}
	if (strcmp(t, "float") == 0 && json_is_string(v)) {
		*out = value_float(strtod(json_string_value(v), NULL));
		return true;
	}
	if (strcmp(t, "complex") == 0 && json_is_array(v) &&
	    json_array_size(v) == 2) {
		*out = value_complex(rt->arena,
		    strtod(json_string_value(json_array_get(v, 0)) ?: "0", NULL),
		    strtod(json_string_value(json_array_get(v, 1)) ?: "0", NULL));
		return true;
	}
	if (strcmp(t, "str") == 0 || strcmp(t, "bytes") == 0) {
		if ((bytes = sjson_unhex(v, &len)) == NULL)
			return false;
		*out = t[0] == 's' ? value_str(rt->arena, bytes, len) :
		    value_bytes(rt->arena, bytes, len);
		free(bytes);
		return true;
	}
	if (!json_is_array(v))
		return false;
	if (strcmp(t, "list") == 0 || strcmp(t, "tuple") == 0) {
		size_t n = json_array_size(v);
		*out = t[0] == 'l' ? value_list(rt->arena, n) :
		    value_tuple(rt->arena, n);
		for (i = 0; i < n; i++) {
			value e;
			if (!sjson_to_value(rt, json_array_get(v, i), depth + 1,
			    &e))
				return false;
			if (t[0] == 'l')
				value_list_append(rt->arena, *out, e);
			else
				out->as.tuple->items[i] = e;
		}
		return true;
	}
	if (strcmp(t, "dict") == 0 || strcmp(t, "set") == 0 ||
	    strcmp(t, "frozenset") == 0) {
		*out = t[0] == 'd' ? value_dict(rt->arena) :
		    value_set(rt->arena);
		if (t[0] == 'f')
			out->type = VT_FROZENSET;
		for (i = 0; i < json_array_size(v); i++) {
			json_t *e = json_array_get(v, i);
			value k, val;
			if (t[0] == 'd') {
				if (!json_is_array(e) || json_array_size(e) != 2 ||
				    !sjson_to_value(rt, json_array_get(e, 0),
				    depth + 1, &k) ||
				    !sjson_to_value(rt, json_array_get(e, 1),
				    depth + 1, &val) ||
				    !value_dict_set(rt, *out, k, val))
					return false;
			} else if (!sjson_to_value(rt, e, depth + 1, &k) ||
			    !value_set_add(rt, *out, k))
				return false;
		}
		return true;
	}
	return false;
}

/* The names as [[name hex, value], ...] in order of first assignment;
 * *bytes gets the encoded size (for the cap). */
json_t *
sjson_names(struct enc *e, struct ns *ns, size_t *bytes)
{
	json_t *names = json_array();
	size_t i;

	for (i = 0; i < ns_count(ns); i++) {
		value v;
		const char *name = ns_name(ns, i, &v);
		json_t *j = sjson_value(v, 0);
		if (j != NULL)
			sjson_push(e, names, sjson_pair(e,
			    sjson_hex(name, strlen(name)), j));
	}
	*bytes = names != NULL ? json_dumpb(names, NULL, 0, JSON_COMPACT) : 0;
	return names;
}

/* Ledger entries [from, count) as [[key digest, args digest, msg hex]]. */
json_t *
sjson_ledger(struct enc *e, const struct ledger *l, size_t from)
{
	json_t *arr = json_array();
	const char *k, *a, *m;
	size_t i;

	for (i = from; ledger_at(l, i, &k, &a, &m); i++) {
		json_t *entry = sjson_pair(e, json_string(k), json_string(a));
		sjson_push(e, entry, sjson_hex(m, strlen(m)));
		sjson_push(e, arr, entry);
	}
	return arr;
}
