/*
 * methods.h -- the methods of the built-in types: str, bytes, list, dict,
 * tuple, int and float, as CPython 3.11 has them.
 *
 * Each type has one table of rows (name, native function), sorted by name;
 * a method that is not a row has no code path at all (house rule 3).  A
 * method looked up on a value comes back bound: a native whose self is the
 * value, called later with the arguments as the evaluator collected them.
 */
#ifndef SANDBOXREPL_METHODS_H
#define SANDBOXREPL_METHODS_H

#include <stdbool.h>

#include "value/value.h"

struct eval;

/*
 * When obj's type has a method called name, *out is that method bound to
 * obj (allocated in ev->rt.arena) and *found is true; otherwise *found is
 * false and nothing is raised, so that the caller can report CPython's
 * AttributeError.  Returns false only with an exception set.
 *
 * Methods that mutate (list.append, dict.update, ...) change obj in place.
 * When obj may be a value kept in ev->ns, the namespace is brought up to
 * date when the input's arena is freed (see note_mutation in
 * methods_args.c): so the arena of an input must be freed before the
 * session it ran in.
 */
bool methods_getattr(struct eval *ev, value obj, const char *name,
    value *out, bool *found);

#endif
