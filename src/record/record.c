/*
 * record.c -- names of the record's enums, and the JSON form of a record.
 *
 * The trace line is joined here too, from escaped parts (textesc.h).
 * JSON is written with jansson, a well-kept library, rather than by hand:
 * inputs are hostile and every string must come out escaped correctly.
 * Strings that are not valid UTF-8 (a hostile input may be anything) are
 * passed through jansson's length-aware constructor after replacing the
 * bad bytes, so a record is always valid JSON.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/arena.h"
#include "paths.h"
#include "record.h"
#include "base/sbuf.h"
#include "base/textesc.h"
#include "base/unicode.h"

#define X_NAME(e, name) name,
#define X_VNAME(e, name, word, colour, refusal) name,
static const char *const verdict_names[] = { VERDICTS(X_VNAME) };
#undef X_VNAME
#define X_VWORD(e, name, word, colour, refusal) word,
static const char *const verdict_words[] = { VERDICTS(X_VWORD) };
#undef X_VWORD
#define X_VCOLOUR(e, name, word, colour, refusal) VERDICT_COLOUR_##colour,
static const enum verdict_colour verdict_colours[] = {
	VERDICTS(X_VCOLOUR)
};
#undef X_VCOLOUR
#define X_VREFUSAL(e, name, word, colour, refusal) refusal,
static const bool verdict_refusals[] = { VERDICTS(X_VREFUSAL) };
#undef X_VREFUSAL
#define X_LNAME(e, name, refuser) name,
static const char *const layer_names[] = { LAYERS(X_LNAME) };
#undef X_LNAME
#define X_LREFUSER(e, name, refuser) refuser,
static const char *const layer_refusers[] = { LAYERS(X_LREFUSER) };
#undef X_LREFUSER
static const char *const kind_names[] = { KINDS(X_NAME) };
#undef X_NAME

const char *record_verdict_name(enum verdict v) { return verdict_names[v]; }
const char *record_verdict_word(enum verdict v) { return verdict_words[v]; }
const char *record_layer_name(enum layer l) { return layer_names[l]; }
const char *record_kind_name(enum input_kind k) { return kind_names[k]; }

enum verdict_colour
record_verdict_colour(enum verdict v)
{
	return verdict_colours[v];
}

bool
record_verdict_is_refusal(enum verdict v)
{
	return verdict_refusals[v];
}

const char *
record_layer_refuser(enum layer l)
{
	return layer_refusers[l];
}

const char *
record_layer_word(const struct record *r)
{
	return r->layer == LAYER_ALLOWLIST && r->filter != NULL ? r->filter :
	    layer_names[r->layer];
}

static void join_line(struct record *r, struct arena *a, bool escape_shown);

void
record_set_line(struct record *r, struct arena *a)
{
	join_line(r, a, true);
}

void
record_set_line_shown(struct record *r, struct arena *a)
{
	join_line(r, a, false);
}

static void
join_line(struct record *r, struct arena *a, bool escape_shown)
{
	size_t nl, ns, no;
	char *p;

	/* (a path's code label, the table's, is plain ASCII: as it is) */
	if (r->label != NULL && r->label == path_row(r->path)->code_label)
		nl = path_row(r->path)->code_label_len;
	else
		r->label = textesc_text_n(a, r->label ? r->label : "", &nl);
	r->shown = r->shown == NULL ? "" : escape_shown ?
	    textesc_text(a, r->shown) : r->shown;
	r->outcome = textesc_text_n(a, r->outcome ? r->outcome : "", &no);
	/* "LABEL: SHOWN -> OUTCOME", joined without printf (once per
	 * record on every path: a --batch line's cost) */
	ns = strlen(r->shown);
	p = arena_alloc(a, nl + ns + no + 7);
	r->line = p;
	r->line_len = nl + ns + no + 6;
	memcpy(p, r->label, nl);
	p += nl;
	memcpy(p, ": ", 2);
	p += 2;
	memcpy(p, r->shown, ns);
	p += ns;
	memcpy(p, " -> ", 4);
	p += 4;
	memcpy(p, r->outcome, no);
	p[no] = '\0';
}

/* A JSON string from arbitrary bytes: invalid UTF-8 (including encoded
 * surrogates) becomes U+FFFD. */
static json_t *jstrn(const char *s, size_t len);

static json_t *
jstr(const char *s)
{
	return s == NULL ? json_null() : jstrn(s, strlen(s));
}

/* The same for len bytes (a NUL among them is U+0000). */
static json_t *
jstrn(const char *s, size_t len)
{
	size_t i = 0;
	struct sbuf b = SBUF_INIT;
	json_t *j;

	while (i < len) {
		uint32_t cp;
		size_t n = unicode_decode(s + i, len - i, &cp);
		if (n == 0) {
			sbuf_adds(&b, "\xEF\xBF\xBD");
			i++;
			continue;
		}
		sbuf_add(&b, s + i, n);
		i += n;
	}
	j = json_stringn(sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	return j;
}

json_t *
record_to_json(const struct record *r)
{
	json_t *o = json_object(), *effects = json_array(), *fs = json_array(),
	    *output = json_array();
	size_t i;

	json_object_set_new(o, "step", json_integer(r->step));
	json_object_set_new(o, "path", json_string(record_path_name(r->path)));
	json_object_set_new(o, "input", jstr(r->input));
	json_object_set_new(o, "kind", json_string(kind_names[r->kind]));
	json_object_set_new(o, "verdict",
	    json_string(verdict_names[r->verdict]));
	json_object_set_new(o, "layer", json_string(layer_names[r->layer]));
	json_object_set_new(o, "rule", jstr(r->rule));
	json_object_set_new(o, "reason", jstr(r->reason));
	if (r->has_node)
		json_object_set_new(o, "node", json_pack("{s:s,s:I,s:I}",
		    "type", r->node_type, "start", (json_int_t)r->node_start,
		    "end", (json_int_t)r->node_end));
	else
		json_object_set_new(o, "node", json_null());
	json_object_set_new(o, "result", jstr(r->result));
	for (i = 0; i < r->noutput; i++)
		json_array_append_new(output, json_pack("{s:s,s:o}",
		    "stream", r->output[i].stream, "text",
		    jstrn(r->output[i].text, r->output[i].len)));
	json_object_set_new(o, "output", output);
	for (i = 0; i < r->neffects; i++) {
		const struct effect *e = &r->effects[i];
		json_t *je = json_object();
		json_object_set_new(je, "op", jstr(e->op));
		json_object_set_new(je, "target", jstr(e->target));
		json_object_set_new(je, "simulated",
		    json_boolean(e->simulated));
		json_object_set_new(je, "denied", json_boolean(e->denied));
		if (e->category != NULL)
			json_object_set_new(je, "category", jstr(e->category));
		if (e->text != NULL)
			json_object_set_new(je, "text", jstr(e->text));
		if (e->source != NULL)
			json_object_set_new(je, "source", jstr(e->source));
		json_array_append_new(effects, je);
	}
	json_object_set_new(o, "effects", effects);
	for (i = 0; i < r->nfs; i++)
		json_array_append_new(fs, jstr(r->fs[i].name));
	json_object_set_new(o, "fs", fs);
	json_object_set_new(o, "truncated", jstr(r->truncated));
	json_object_set_new(o, "budget", json_pack("{s:I,s:I}",
	    "used", (json_int_t)r->budget_used,
	    "limit", (json_int_t)r->budget_limit));
	json_object_set_new(o, "label", jstr(r->label));
	json_object_set_new(o, "source", jstr(r->source));
	json_object_set_new(o, "engine", jstr(r->engine));
	json_object_set_new(o, "boundary", jstr(r->boundary));
	json_object_set_new(o, "line", jstr(r->line));
	return o;
}

/* Every JSON record is written with these flags. */
#define RECORD_JSON_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | \
	JSON_ENSURE_ASCII)

static int
add_to_sbuf(const char *buf, size_t size, void *data)
{
	sbuf_add(data, buf, size);
	return 0;
}

void
record_json(const struct record *r, struct sbuf *out)
{
	json_t *o = record_to_json(r);

	(void)json_dump_callback(o, add_to_sbuf, out, RECORD_JSON_FLAGS);
	json_decref(o);
}

int
record_json_write(const struct record *r, FILE *f)
{
	json_t *o = record_to_json(r);
	int rc;

	/* Streamed: jansson writes the object to f in small pieces, so a
	 * big result is not held once more as one string (and once more
	 * as \uXXXX escapes) on its way out. */
	rc = json_dumpf(o, f, RECORD_JSON_FLAGS);
	json_decref(o);
	return rc;
}
