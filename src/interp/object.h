/*
 * object.h -- the objects the evaluator makes and meets, and what it asks
 * of the object model.
 *
 * A VT_OBJECT value (value.h) points at a struct vobject: a module, a
 * type, a file, a range, an iterator, a dict view ...  The evaluator's own
 * builtins make a few kinds of them (range(), map(), iter(), dict.keys():
 * typecons.c, methods_dict.c); the object model (src/model/, mock.h) makes
 * the rest and gives all of them their behaviour.
 *
 * The evaluator never calls the model by name: it asks the table its
 * caller gave eval_init() (ev->model), as CPython's evaluator asks a
 * type's slots.  So the model sits above the evaluator, calling down into
 * it (eval_root() for eval(), eval_call_value() for a callback) while the
 * evaluator calls up only through this table, and the model could be
 * replaced or deleted whole without an edit here.
 */
#ifndef SANDBOXREPL_OBJECT_H
#define SANDBOXREPL_OBJECT_H

#include <stdbool.h>
#include <stddef.h>

#include "value/value.h"

struct arena;
struct eval;

enum mkind {
	MK_MODULE,	/* name: the module */
	MK_FILE,	/* name: the file; writable, closed */
	MK_PIPE,	/* os.popen's result: data = the output (str) */
	MK_TYPE,	/* type: index in the type table */
	MK_INSTANCE,	/* type: its class; data: its __dict__ (dict) */
	MK_PYFUNC,	/* a function defined in a module: name, module */
	MK_WRAPPER,	/* a slot wrapper such as object.__init__: name, type */
	MK_FRAME,	/* data: f_globals */
	MK_GENERATOR,	/* data: the items (list); pos: next item */
	MK_CODE,	/* name: co_name; data: the source (str) or None */
	MK_SOCKET,	/* name: the peer "host:port", or NULL */
	MK_RESPONSE,	/* urlopen's answer: name = the URL */
	MK_RANGE,	/* data: (start, stop, step) as a tuple of ints */
	MK_ITER,	/* map, filter, zip, enumerate, reversed, iter():
			   name = the type; data = the items; pos */
	MK_VIEW,	/* dict.keys(), values(), items(): name = the type
			   ("dict_keys", ...); data = the items (list) */
};

struct vobject {
	struct vhead	 head;		/* the slots: the model's */
	enum mkind	 kind;
	const char	*name;
	const char	*module;	/* MK_PYFUNC: the defining module */
	int		 type;		/* MK_TYPE, MK_INSTANCE, MK_WRAPPER */
	value		 data;
	size_t		 pos;
	bool		 writable;	/* MK_FILE */
	bool		 closed;	/* MK_FILE, MK_SOCKET */
};

/*
 * What the evaluator asks of the object model.  Each entry is the
 * model's function of the same name in mock.h (mock_getattr, ...), with
 * its contract; every evaluation has one (eval_init()).
 */
struct eval_model {
	/* A builtin only the full model has (open, __import__, eval, ...);
	 * false, with no exception, when none. */
	bool	(*builtin)(struct eval *ev, const char *name, value *out);
	/* Import a module by dotted name. */
	bool	(*import)(struct eval *ev, const char *name, value *out);
	/* The type object named module.qualname; false when none. */
	bool	(*type_named)(struct eval *ev, const char *module,
		    const char *name, value *out);
	/* Attribute access on any value; AttributeError when absent. */
	bool	(*getattr)(struct eval *ev, value obj, const char *name,
		    value *out);
	/* Subscript on an object. */
	bool	(*getitem)(struct eval *ev, value obj, value idx, value *out);
	/* Call an object (a class, a Python-level function). */
	bool	(*call)(struct eval *ev, value fn, const value *args,
		    size_t nargs, const char *const *kwnames, size_t nkw,
		    value *out);
	/* The items a generator expression produced, as a generator. */
	bool	(*generator)(struct eval *ev, value items, value *out);
	/* A new object in a, with the model's slots; data None, the rest
	 * zero. */
	value	(*object)(struct arena *a, enum mkind kind, const char *name);
	/* The slots of a lambda (eval.c makes those). */
	const struct value_slots *function_slots;
};

#endif
