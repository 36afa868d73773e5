/*
 * mock.h -- the fallback model: a stand-in for CPython's object graph.
 *
 * On the unsafe path there is no boundary: builtins such as open,
 * __import__, eval and getattr exist, modules such as os, subprocess,
 * socket and urllib.request can be imported, and the object graph that
 * in-process sandboxes are escaped through is there -- every type has
 * __class__, __bases__, __mro__ and __subclasses__(), a class defined in
 * Python has an __init__ whose __globals__ hold its module's names and
 * __builtins__, a generator has gi_frame.f_globals.  Dangerous functions
 * "work" on the path's mock filesystem, through a mock shell, with every
 * consequence written down as an effect (effect.h).  Nothing is ever
 * executed on the host.  In a jail (ws.jailed, workspace_real) the same
 * model makes real system calls instead (fsops.h), inside the kernel jail.
 *
 * Mock objects are VT_OBJECT values (struct vobject, object.h).  What exists is tables: the types come
 * from mock_subclasses.gen.h (generated from CPython 3.11), the modules and
 * their functions are rows (mock.c), the attributes of each kind of object
 * are a switch over names that exist (mockobj.c); any other name raises
 * CPython's AttributeError.
 */
#ifndef SANDBOXREPL_MOCK_H
#define SANDBOXREPL_MOCK_H

#include <stdbool.h>

#include "interp/object.h"
#include "value/value.h"

struct eval;
struct sbuf;

/* A row of a module or of a kind of object: a function by name. */
struct mattr {
	const char	*name;
	native_fn	 fn;
};

/* ---- mock.c, mock_builtins.c, mock_shell.c: builtins, modules, files,
 * the shell ---- */

/* CPython's TypeError when a native gets the wrong number of arguments
 * (or any keyword); true when the count is right. */
bool mock_want_args(struct rt *rt, const char *fname, size_t nargs,
    size_t nkw, size_t min, size_t max);

/* An unsafe-only builtin (open, __import__, eval, ...); false when none. */
bool mock_builtin(struct eval *ev, const char *name, value *out);
/* Import a module by dotted name; ModuleNotFoundError when unknown. */
bool mock_import(struct eval *ev, const char *name, value *out);
/* A module's own attribute (function, submodule, constant); false when
 * the module has none (no exception set). */
bool mock_module_attr(struct eval *ev, const char *module, const char *name,
    value *out);
/* An attribute of a file, pipe, socket or response object (their rows);
 * false with no exception when it has none. */
bool mock_object_attr(struct eval *ev, value obj, const char *name,
    value *out);
/* Every attribute name of a module, for __dict__, globals and dir(). */
const char *const *mock_module_names(const char *module);
/* The builtins' names (unsafe model), NULL-terminated. */
const char *const *mock_builtin_names(void);
/* A new object of the model in ev's arena (mock_object: in a), with the
 * model's slots (value.h); data None, the rest zero. */
value mock_new(struct eval *ev, enum mkind kind, const char *name);
value mock_object(struct arena *a, enum mkind kind, const char *name);
/* The slots of the model's objects, and of a lambda (eval.c makes
 * those). */
extern const struct value_slots mock_object_slots;
extern const struct value_slots mock_function_slots;
/* The mock shell behind os.system: runs a command line on the path's
 * filesystem and writes down what it did.  Returns the exit status. */
int mock_shell(struct eval *ev, const char *cmdline, struct sbuf *out);

/* ---- mockobj.c: the object graph ---- */

/* The model as the evaluator asks it (object.h): these functions, for
 * eval_init(). */
extern const struct eval_model mock_model;

/* Attribute access on any value; AttributeError when absent. */
bool mock_getattr(struct eval *ev, value obj, const char *name, value *out);
/* Subscript on a mock object. */
bool mock_getitem(struct eval *ev, value obj, value idx, value *out);
/* Call a mock object (a class, a Python-level function). */
bool mock_call(struct eval *ev, value fn, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *out);
/* Is o one of the model's modules, which live for the whole process and
 * never need their input's arena kept? */
bool mock_module_is_static(const struct vobject *o);
/* Wrap the items a generator expression produced into a generator. */
bool mock_generator(struct eval *ev, value items, value *out);
/* The type object of any value (type(x)). */
value mock_type_of(struct eval *ev, value v);
/* The type object named module.qualname; false when there is none. */
bool mock_type_named(struct eval *ev, const char *module, const char *name,
    value *out);
/* The globals of the __main__ module: the path's names + __builtins__. */
value mock_main_globals(struct eval *ev);

#endif
