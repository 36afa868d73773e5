/*
 * typecons.h -- the type constructors and iterator builtins (typecons.c).
 */
#ifndef SANDBOXREPL_TYPECONS_H
#define SANDBOXREPL_TYPECONS_H

struct builtin;

/* The row for name, or NULL. */
const struct builtin *typecons_find(const char *name);

#endif
