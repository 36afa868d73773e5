/*
 * mock.h -- the unsafe path's stand-in for CPython's object graph.
 *
 * On the unsafe path there is no boundary: builtins such as open and
 * __import__ exist, modules such as os can be imported, and their
 * dangerous functions "work" -- on the path's mock filesystem, through a
 * mock shell, with every consequence written down as an effect.  Nothing is
 * ever executed on the host.
 *
 * Mock objects are VT_OBJECT values whose class is a static table of
 * attributes (a row per attribute: what exists has a row, nothing else
 * has a code path).
 */
#ifndef SANDBOXREPL_MOCK_H
#define SANDBOXREPL_MOCK_H

#include <stdbool.h>

#include "value.h"

struct eval;
struct sbuf;

struct mattr {
	const char	*name;
	native_fn	 fn;
};

struct mclass {
	const char		*name;		/* type name: "module", ... */
	const struct mattr	*attrs;		/* NULL-name terminated */
};

struct vobject {
	const struct mclass	*cls;
	const char		*name;		/* module or file name */
	const struct mattr	*attrs;		/* a module's own table */
	bool			 writable;	/* files: opened for writing */
	bool			 closed;
};

/* An unsafe-only builtin (open, __import__, ...); false when none. */
bool mock_builtin(struct eval *ev, const char *name, value *out);
/* Import a module by dotted name; ModuleNotFoundError when unknown. */
bool mock_import(struct eval *ev, const char *name, value *out);
/* Attribute access on any value; AttributeError when absent. */
bool mock_getattr(struct eval *ev, value obj, const char *name, value *out);
/* Subscript on a mock object. */
bool mock_getitem(struct eval *ev, value obj, value idx, value *out);
/* Call a mock object (a class, an instance with __call__). */
bool mock_call(struct eval *ev, value fn, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *out);
/* Wrap the items a generator expression produced into a generator. */
bool mock_generator(struct eval *ev, value items, value *out);
/* repr of a mock object. */
void mock_repr(value v, struct sbuf *out);

/*
 * The mock shell behind os.system: runs a command line against the path's
 * mock filesystem and writes down what it did.  Output goes to out (may be
 * NULL).  Returns the exit status the shell would have returned.
 */
int mock_shell(struct eval *ev, const char *cmdline, struct sbuf *out);

#endif
