/*
 * ns.h -- a path's namespace: the names a session keeps between inputs.
 *
 * Values stored here are deep-copied into the namespace's own arena, so
 * they outlive the input line that made them.  The bindings are copied
 * together, as one graph: two names bound to one list still share it, as
 * Python names do.  ns_get() returns a value
 * that points into that arena: valid until the next ns_set() or ns_free().
 */
#ifndef SANDBOXREPL_NS_H
#define SANDBOXREPL_NS_H

#include <stdbool.h>
#include <stddef.h>

#include "value/value.h"

struct ns;

struct ns *ns_new(void);
void ns_free(struct ns *ns);
bool ns_get(const struct ns *ns, const char *name, value *out);
/* Bind name to a copy of v (in the namespace's arena). */
void ns_set(struct ns *ns, const char *name, value v);
/*
 * Bind name to v itself, for the rest of the input that made v: the
 * evaluator binds this way, so that an assignment in a loop costs nothing
 * and "x is x" holds within an input.  ns_commit() must run before the
 * input's arena is freed: it copies every binding made this way.
 */
void ns_set_pending(struct ns *ns, const char *name, value v);
void ns_commit(struct ns *ns);
/* Copy every binding again, after an input changed values in place: what
 * the change added lives in the input's arena. */
void ns_recopy(struct ns *ns);
bool ns_delete(struct ns *ns, const char *name);
size_t ns_count(const struct ns *ns);
/* Bytes the namespace's arenas hold. */
size_t ns_held(const struct ns *ns);
/* Grows with every ns_set() and ns_delete(): a cheap "did it change". */
unsigned long ns_generation(const struct ns *ns);
/* The i-th name in order of first assignment, and its value. */
const char *ns_name(const struct ns *ns, size_t i, value *v);
/* Was the i-th name bound by the input now running (not yet committed)? */
bool ns_is_pending(const struct ns *ns, size_t i);

#endif
