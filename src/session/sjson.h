/*
 * sjson.h -- a session state's JSON forms (sjson.c), for state.c.
 *
 * Names, strings, bytes and ledger messages are hex, so any byte survives
 * and every encoding is ASCII; values are typed ({"t":"int","v":"123"},
 * {"t":"list","v":[...]}); building is checked: a set or an append that
 * fails clears the caller's struct enc, and every function that takes
 * a json_t * it is given takes it, failed or not (as jansson's *_new).
 */
#ifndef SANDBOXREPL_SJSON_H
#define SANDBOXREPL_SJSON_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "value/value.h"

struct ledger;
struct ns;
struct rt;

/* A building's outcome: false once any set or append failed. */
struct enc {
	bool	ok;
};

/* n bytes at p as a hex string. */
json_t *sjson_hex(const char *p, size_t n);
/* A lowercase hex digit's value, or -1. */
int sjson_nibble(char c);
/* A hex string decoded into heap bytes (NUL-terminated, *len of them);
 * NULL when it is not one. */
char *sjson_unhex(json_t *j, size_t *len);
/* The same, for a C string (no NUL inside); NULL otherwise. */
char *sjson_unhex_name(json_t *j);

void sjson_set(struct enc *e, json_t *obj, const char *key, json_t *v);
void sjson_push(struct enc *e, json_t *arr, json_t *v);
/* [a, b] */
json_t *sjson_pair(struct enc *e, json_t *a, json_t *b);

/* Typed JSON back into a value in rt's arena; false when it is not one. */
bool sjson_to_value(struct rt *rt, json_t *j, int depth, value *out);

/* The names of ns as [[name hex, value], ...] in order of first
 * assignment (those not plain data left out); *bytes gets the encoded
 * size. */
json_t *sjson_names(struct enc *e, struct ns *ns, size_t *bytes);
/* Ledger entries [from, end) as [[key digest, args digest, msg hex]]. */
json_t *sjson_ledger(struct enc *e, const struct ledger *l, size_t from);

#endif
