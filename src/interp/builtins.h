/*
 * builtins.h -- Python's builtin functions as a table of rows.
 *
 * A builtin is a row: its name and its native function.  A name that is not
 * in the table has no code path at all (house rule 3); the evaluator and the
 * policy look names up here.  Each native takes its arguments as the
 * evaluator passes them (positional, then keyword values named by kwnames)
 * and behaves as CPython 3.11's builtin of that name, down to the wording of
 * its TypeErrors.
 */
#ifndef SANDBOXREPL_BUILTINS_H
#define SANDBOXREPL_BUILTINS_H

#include <stddef.h>

#include "value/value.h"

struct builtin {
	const char	*name;
	native_fn	 fn;
};

/* The row named name, or NULL when there is no such builtin. */
const struct builtin *builtin_find(const char *name);

/* Every row, sorted by name, and how many there are. */
extern const struct builtin builtin_table[];
extern const size_t builtin_count;

#endif
