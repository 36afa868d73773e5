/*
 * mockobj.c -- the object graph of the unsafe model.
 *
 * What escape payloads walk: every value has a __class__; every type has
 * __name__, __module__, __bases__, __base__, __mro__, mro() and
 * __subclasses__(); object.__subclasses__() lists the classes CPython 3.11
 * lists, in its order (mock_subclasses.gen.h, generated), so a payload that
 * indexes it by number lands where it would in CPython; a class defined in
 * Python has an __init__ function whose __globals__ are its module's, with
 * __builtins__ in them; C types have a slot wrapper there instead, which
 * has no __globals__.  Lambdas and builtins carry __globals__, __self__,
 * __code__; generators carry gi_frame, whose f_globals are __main__'s.
 *
 * Type objects and modules are canonical (static objects), so "is" and
 * sys.modules behave; everything else lives in the evaluation's arena.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "interp/builtins.h"
#include "record/effect.h"
#include "interp/eval.h"
#include "interp/methods.h"
#include "mock.h"
#include "mock_subclasses.gen.h"
#include "interp/ns.h"
#include "base/sbuf.h"
#include "base/textesc.h"
#include "base/xalloc.h"

/* ---- the type table ---- */

struct mtype {
	const char	*module;
	const char	*name;		/* qualname */
	const char	*init_module;	/* __init__ is a Python function of */
	const char	*base;		/* "module.qualname" of the base */
};

#define X(m, n, i) { m, n, i, "builtins.object" },
static const struct mtype types[] = {
	{ "builtins", "object", NULL, NULL },
	MOCK_SUBCLASSES(X)
	/* classes that are not direct subclasses of object */
	{ "builtins", "bool", NULL, "builtins.int" },
	{ "_io", "TextIOWrapper", NULL, "_io._IOBase" },
	/* (their real bases are not modelled; they stay out of
	 * object.__subclasses__() as in CPython) */
	{ "socket", "socket", "socket", "_socket.socket" },
	{ "http.client", "HTTPResponse", "http.client", "_io._IOBase" },
	{ "io", "UnsupportedOperation", NULL, "builtins.OSError" },
};
#undef X
#define NTYPES ((int)(sizeof types / sizeof types[0]))

static struct vobject type_objects[sizeof types / sizeof types[0]];

static int
find_type(const char *module, const char *name)
{
	int i;
	for (i = 0; i < NTYPES; i++)
		if (strcmp(types[i].name, name) == 0 &&
		    strcmp(types[i].module, module) == 0)
			return i;
	return -1;
}

static int
find_type_dotted(const char *dotted)
{
	const char *dot = strrchr(dotted, '.');
	char mod[64];
	int i;
	if (dot == NULL || (size_t)(dot - dotted) >= sizeof mod)
		return -1;
	/* module names may contain dots: try each split */
	for (i = 0; i < NTYPES; i++) {
		size_t ml = strlen(types[i].module);
		if (strncmp(dotted, types[i].module, ml) == 0 &&
		    dotted[ml] == '.' && strcmp(dotted + ml + 1,
		    types[i].name) == 0)
			return i;
	}
	(void)mod;
	return -1;
}

static int
base_of(int t)
{
	return types[t].base ? find_type_dotted(types[t].base) : -1;
}

static value
type_value(int t)
{
	value v = { .type = VT_OBJECT };
	struct vobject *o = &type_objects[t];
	o->head.slots = &mock_object_slots;
	o->kind = MK_TYPE;
	o->type = t;
	o->name = types[t].name;
	o->module = types[t].module;
	v.as.obj = o;
	return v;
}

/* Is o one of the model's static objects (a module, a type), which live
 * for the whole process and never need their input's arena kept? */
static bool
mock_is_static(const struct vobject *o)
{
	return (o >= type_objects && o < type_objects + NTYPES) ||
	    mock_module_is_static(o);
}

bool
mock_type_named(struct eval *ev, const char *module, const char *name,
    value *out)
{
	int t = find_type(module, name);
	(void)ev;
	if (t < 0)
		return false;
	*out = type_value(t);
	return true;
}

static int
builtin_type(const char *name)
{
	return find_type("builtins", name);
}

/* The type index of any value. */
static int
type_index(value v)
{
	switch (v.type) {
	case VT_BIGINT: return builtin_type("int");
	case VT_FUNCTION: return builtin_type("function");
	case VT_OBJECT:
		switch (v.as.obj->kind) {
		case MK_MODULE: return builtin_type("module");
		case MK_FILE: return find_type("_io", "TextIOWrapper");
		case MK_PIPE: return find_type("os", "_wrap_close");
		case MK_TYPE: return builtin_type("type");
		case MK_INSTANCE: return v.as.obj->type;
		case MK_PYFUNC: return builtin_type("function");
		case MK_WRAPPER: return builtin_type("wrapper_descriptor");
		case MK_FRAME: return builtin_type("frame");
		case MK_GENERATOR: return builtin_type("generator");
		case MK_CODE: return builtin_type("code");
		case MK_SOCKET: return find_type("socket", "socket");
		case MK_RESPONSE: return find_type("http.client", "HTTPResponse");
		case MK_RANGE: return builtin_type("range");
		case MK_ITER: {
			int t = builtin_type(v.as.obj->name);
			return t >= 0 ? t : builtin_type("list_iterator");
		}
		case MK_VIEW: return builtin_type(v.as.obj->name);
		}
		return 0;
	default:
		return builtin_type(value_type_name(v));
	}
}

value
mock_type_of(struct eval *ev, value v)
{
	int t = type_index(v);
	(void)ev;
	return type_value(t < 0 ? 0 : t);
}

/* Names the messages use ('module', 'function', ...): the type_name slot. */
static const char *
object_type_name(value v)
{
	int t = type_index(v);
	return t < 0 ? "object" : types[t].name;
}

/* ---- small constructors ---- */

value
mock_object(struct arena *a, enum mkind kind, const char *name)
{
	value v = { .type = VT_OBJECT };
	struct vobject *o = arena_alloc(a, sizeof *o);
	o->head.slots = &mock_object_slots;
	o->kind = kind;
	o->name = name;
	o->data = value_none();
	v.as.obj = o;
	return v;
}

value
mock_new(struct eval *ev, enum mkind kind, const char *name)
{
	return mock_object(ev->rt.arena, kind, name);
}

static value
str_value(struct eval *ev, const char *s)
{
	return value_cstr(ev->rt.arena, s);
}

static value
bound(struct eval *ev, const char *name, native_fn fn, value self)
{
	return value_native(ev->rt.arena, name, fn, self, NULL);
}

static bool
dict_put(struct eval *ev, value d, const char *key, value v)
{
	return value_dict_set(&ev->rt, d, str_value(ev, key), v);
}

/* ---- globals and builtins ---- */

/* The builtins as a dict (what a module's __builtins__ is). */
static value
mock_builtins_dict(struct eval *ev)
{
	value d = value_dict(ev->rt.arena), v;
	const char *const *n;
	size_t i;

	for (n = mock_builtin_names(); *n != NULL; n++)
		if (mock_module_attr(ev, "builtins", *n, &v))
			dict_put(ev, d, *n, v);
	for (i = 0; i < builtin_count; i++)
		dict_put(ev, d, builtin_table[i].name, value_native(
		    ev->rt.arena, builtin_table[i].name, builtin_table[i].fn,
		    value_none(), NULL));
	dict_put(ev, d, "__name__", str_value(ev, "builtins"));
	return d;
}

value
mock_main_globals(struct eval *ev)
{
	value d = value_dict(ev->rt.arena), v;
	size_t i;

	dict_put(ev, d, "__name__", str_value(ev, "__main__"));
	dict_put(ev, d, "__doc__", value_none());
	if (mock_import(ev, "builtins", &v))
		dict_put(ev, d, "__builtins__", v);
	else
		rt_clear(&ev->rt);
	for (i = 0; ev->ns != NULL && i < ns_count(ev->ns); i++) {
		const char *name = ns_name(ev->ns, i, &v);
		dict_put(ev, d, name, v);
	}
	return d;
}

/* The globals of a module: its names, __name__, __builtins__ (a dict). */
static value
mock_module_globals(struct eval *ev, const char *module)
{
	value d, v;
	const char *const *n;

	if (strcmp(module, "__main__") == 0)
		return mock_main_globals(ev);
	d = value_dict(ev->rt.arena);
	dict_put(ev, d, "__name__", str_value(ev, module));
	dict_put(ev, d, "__builtins__", mock_builtins_dict(ev));
	if (mock_import(ev, "sys", &v))
		dict_put(ev, d, "sys", v);
	rt_clear(&ev->rt);
	if (strcmp(module, "os") != 0 && mock_import(ev, "os", &v))
		dict_put(ev, d, "os", v);
	rt_clear(&ev->rt);
	for (n = mock_module_names(module); n != NULL && *n != NULL; n++)
		if (mock_module_attr(ev, module, *n, &v))
			dict_put(ev, d, *n, v);
	return d;
}

/* ---- natives the object graph hands out ---- */


static bool
type_subclasses(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	int t = self.as.obj->type, i;
	/* type.__subclasses__(object): the method called through type */
	if (nargs == 1 && nkw == 0 && strcmp(types[t].name, "type") == 0 &&
	    args[0].type == VT_OBJECT && args[0].as.obj->kind == MK_TYPE)
		t = args[0].as.obj->type;
	else if (!mock_want_args(rt, "__subclasses__", nargs, nkw, 0, 0))
		return false;
	*out = value_list(rt->arena, 0);
	for (i = 0; i < NTYPES; i++)
		if (base_of(i) == t)
			value_list_append(rt->arena, *out, type_value(i));
	return true;
}

static value
mro_list(struct eval *ev, int t)
{
	value l = value_list(ev->rt.arena, 4);
	int guard = 0;
	for (; t >= 0 && guard++ < 16; t = base_of(t))
		value_list_append(ev->rt.arena, l, type_value(t));
	return l;
}

static bool
type_mro(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	if (!mock_want_args(rt, "mro", nargs, nkw, 0, 0))
		return false;
	*out = mro_list(rt->ev, self.as.obj->type);
	return true;
}

static bool
call_self(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	return eval_call_value(rt->ev, self, args, nargs, kw, nkw, out);
}

static bool
getattribute(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	if (!mock_want_args(rt, "__getattribute__", nargs, nkw, 1, 1))
		return false;
	if (args[0].type != VT_STR)
		return rt_raise(rt, PYEXC_TypeError,
		    "attribute name must be string, not '%s'",
		    value_type_name(args[0]));
	return mock_getattr(rt->ev, self, args[0].as.s->data, out);
}

static bool
importer_load_module(struct rt *rt, value self, const value *args,
    size_t nargs, const char *const *kw, size_t nkw, value *out)
{
	if (!mock_want_args(rt, "load_module", nargs, nkw, 1, 1))
		return false;
	if (args[0].type != VT_STR)
		return rt_raise(rt, PYEXC_TypeError,
		    "load_module() argument must be str, not %s",
		    value_type_name(args[0]));
	return mock_import(rt->ev, args[0].as.s->data, out);
}

static bool
generator_next(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	struct vobject *g = self.as.obj;
	if (!mock_want_args(rt, "__next__", nargs, nkw, 0, 1))
		return false;
	if (g->data.type != VT_LIST || g->pos >= g->data.as.list->len)
		return rt_raise(rt, PYEXC_StopIteration, "%s", "");
	*out = g->data.as.list->items[g->pos++];
	return true;
}

static bool
noop_none(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	*out = value_none();
	return true;
}

/* ---- attributes, by kind ---- */

static bool
no_attr(struct eval *ev, value obj, const char *name)
{
	if (obj.type == VT_OBJECT && obj.as.obj->kind == MK_MODULE)
		return rt_raise(&ev->rt, PYEXC_AttributeError,
		    "module '%s' has no attribute '%s'",
		    obj.as.obj->name, name);
	if (obj.type == VT_OBJECT && obj.as.obj->kind == MK_TYPE)
		return rt_raise(&ev->rt, PYEXC_AttributeError,
		    "type object '%s' has no attribute '%s'",
		    obj.as.obj->name, name);
	return rt_raise(&ev->rt, PYEXC_AttributeError, "'%s' object has no "
	    "attribute '%s'", object_type_name(obj), name);
}

static value
code_object(struct eval *ev, const char *name)
{
	return mock_new(ev, MK_CODE, name);
}

static value
init_of(struct eval *ev, int t)
{
	value v;
	int k;
	/* the nearest class in the MRO that defines a Python __init__ */
	for (k = t; k >= 0; k = base_of(k))
		if (types[k].init_module != NULL) {
			v = mock_new(ev, MK_PYFUNC, "__init__");
			v.as.obj->module = types[k].init_module;
			v.as.obj->type = k;
			return v;
		}
	v = mock_new(ev, MK_WRAPPER, "__init__");
	v.as.obj->type = 0;		/* object.__init__ */
	return v;
}

static bool
type_attr(struct eval *ev, value obj, const char *name, value *out)
{
	int t = obj.as.obj->type, b = base_of(t);
	const char *qual = types[t].name, *dot = strrchr(qual, '.');

	if (strcmp(name, "__name__") == 0)
		*out = str_value(ev, dot ? dot + 1 : qual);
	else if (strcmp(name, "__qualname__") == 0)
		*out = str_value(ev, qual);
	else if (strcmp(name, "__module__") == 0)
		*out = str_value(ev, types[t].module);
	else if (strcmp(name, "__bases__") == 0) {
		*out = value_tuple(ev->rt.arena, b >= 0 ? 1 : 0);
		if (b >= 0)
			out->as.tuple->items[0] = type_value(b);
	} else if (strcmp(name, "__base__") == 0)
		*out = b >= 0 ? type_value(b) : value_none();
	else if (strcmp(name, "__mro__") == 0) {
		value l = mro_list(ev, t);
		size_t i;
		*out = value_tuple(ev->rt.arena, l.as.list->len);
		for (i = 0; i < l.as.list->len; i++)
			out->as.tuple->items[i] = l.as.list->items[i];
	} else if (strcmp(name, "mro") == 0)
		*out = bound(ev, "mro", type_mro, obj);
	else if (strcmp(name, "__subclasses__") == 0)
		*out = bound(ev, "__subclasses__", type_subclasses, obj);
	else if (strcmp(name, "__init__") == 0)
		*out = init_of(ev, t);
	else if (strcmp(name, "__call__") == 0)
		*out = bound(ev, "__call__", call_self, obj);
	else if (strcmp(name, "__doc__") == 0)
		*out = value_none();
	else if (strcmp(name, "__dict__") == 0) {
		*out = value_dict(ev->rt.arena);
		dict_put(ev, *out, "__module__", str_value(ev, types[t].module));
		if (types[t].init_module != NULL)
			dict_put(ev, *out, "__init__", init_of(ev, t));
		dict_put(ev, *out, "__doc__", value_none());
	} else if (strcmp(name, "load_module") == 0 &&
	    strcmp(types[t].name, "BuiltinImporter") == 0)
		*out = bound(ev, "load_module", importer_load_module, obj);
	else
		return no_attr(ev, obj, name);
	return true;
}

static bool
module_attr(struct eval *ev, value obj, const char *name, value *out)
{
	const char *m = obj.as.obj->name;

	if (mock_module_attr(ev, m, name, out))
		return true;
	if (ev->rt.exc.kind != EXC_NONE)
		return false;
	if (strcmp(name, "__name__") == 0)
		*out = str_value(ev, m);
	else if (strcmp(name, "__dict__") == 0)
		*out = strcmp(m, "builtins") == 0 ? mock_builtins_dict(ev) :
		    mock_module_globals(ev, m);
	else if (strcmp(name, "__builtins__") == 0 &&
	    strcmp(m, "builtins") != 0)
		*out = mock_builtins_dict(ev);
	else if (strcmp(name, "__loader__") == 0)
		*out = type_value(find_type("_frozen_importlib",
		    "BuiltinImporter"));
	else if (strcmp(name, "__spec__") == 0 || strcmp(name, "__doc__") == 0)
		*out = value_none();
	else
		return no_attr(ev, obj, name);
	return true;
}

static bool
function_attr(struct eval *ev, value obj, const char *name,
    const char *fname, const char *qualname, const char *module, value *out)
{
	if (strcmp(name, "__globals__") == 0)
		*out = mock_module_globals(ev, module);
	else if (strcmp(name, "__builtins__") == 0)
		*out = mock_builtins_dict(ev);
	else if (strcmp(name, "__name__") == 0)
		*out = str_value(ev, fname);
	else if (strcmp(name, "__qualname__") == 0)
		*out = str_value(ev, qualname);
	else if (strcmp(name, "__module__") == 0)
		*out = str_value(ev, module);
	else if (strcmp(name, "__code__") == 0)
		*out = code_object(ev, fname);
	else if (strcmp(name, "__defaults__") == 0 ||
	    strcmp(name, "__closure__") == 0 ||
	    strcmp(name, "__kwdefaults__") == 0 ||
	    strcmp(name, "__doc__") == 0)
		*out = value_none();
	else if (strcmp(name, "__dict__") == 0 ||
	    strcmp(name, "__annotations__") == 0)
		*out = value_dict(ev->rt.arena);
	else if (strcmp(name, "__call__") == 0)
		*out = bound(ev, "__call__", call_self, obj);
	else
		return no_attr(ev, obj, name);
	return true;
}

static bool
frame_attr(struct eval *ev, value obj, const char *name, value *out)
{
	if (strcmp(name, "f_globals") == 0 || strcmp(name, "f_locals") == 0)
		*out = obj.as.obj->data.type == VT_DICT ? obj.as.obj->data :
		    mock_main_globals(ev);
	else if (strcmp(name, "f_builtins") == 0)
		*out = mock_builtins_dict(ev);
	else if (strcmp(name, "f_back") == 0) {
		/* A generator's frame leads back to the module's frame,
		 * whose own f_back is None. */
		if (obj.as.obj->name != NULL &&
		    strcmp(obj.as.obj->name, "<module>") == 0)
			*out = value_none();
		else
			*out = mock_new(ev, MK_FRAME, "<module>");
	} else if (strcmp(name, "f_code") == 0)
		*out = code_object(ev, obj.as.obj->name ? obj.as.obj->name :
		    "<module>");
	else if (strcmp(name, "f_lineno") == 0)
		*out = value_int(1);
	else if (strcmp(name, "f_lasti") == 0)
		*out = value_int(0);
	else if (strcmp(name, "clear") == 0)
		*out = bound(ev, "clear", noop_none, obj);
	else
		return no_attr(ev, obj, name);
	return true;
}

static bool
code_attr(struct eval *ev, value obj, const char *name, value *out)
{
	if (strcmp(name, "co_name") == 0)
		*out = str_value(ev, obj.as.obj->name ? obj.as.obj->name :
		    "<module>");
	else if (strcmp(name, "co_filename") == 0)
		*out = str_value(ev, "<stdin>");
	else if (strcmp(name, "co_firstlineno") == 0)
		*out = value_int(1);
	else if (strcmp(name, "co_argcount") == 0 ||
	    strcmp(name, "co_posonlyargcount") == 0 ||
	    strcmp(name, "co_kwonlyargcount") == 0 ||
	    strcmp(name, "co_nlocals") == 0 || strcmp(name, "co_flags") == 0)
		*out = value_int(0);
	else if (strcmp(name, "co_consts") == 0 ||
	    strcmp(name, "co_names") == 0 ||
	    strcmp(name, "co_varnames") == 0 ||
	    strcmp(name, "co_freevars") == 0 ||
	    strcmp(name, "co_cellvars") == 0)
		*out = value_tuple(ev->rt.arena, 0);
	else if (strcmp(name, "co_code") == 0)
		*out = value_bytes(ev->rt.arena, "", 0);
	else
		return no_attr(ev, obj, name);
	return true;
}

static bool
generator_attr(struct eval *ev, value obj, const char *name, value *out)
{
	if (strcmp(name, "gi_frame") == 0) {
		*out = mock_new(ev, MK_FRAME, "<genexpr>");
		out->as.obj->data = mock_main_globals(ev);
	} else if (strcmp(name, "gi_code") == 0)
		*out = code_object(ev, "<genexpr>");
	else if (strcmp(name, "gi_running") == 0)
		*out = value_bool(false);
	else if (strcmp(name, "gi_yieldfrom") == 0)
		*out = value_none();
	else if (strcmp(name, "__next__") == 0 || strcmp(name, "send") == 0)
		*out = bound(ev, name, generator_next, obj);
	else if (strcmp(name, "close") == 0)
		*out = bound(ev, "close", noop_none, obj);
	else
		return no_attr(ev, obj, name);
	return true;
}

static bool
instance_attr(struct eval *ev, value obj, const char *name, value *out)
{
	struct vobject *o = obj.as.obj;
	bool found;
	if (o->data.type == VT_DICT) {
		if (!value_dict_get(&ev->rt, o->data, str_value(ev, name), out,
		    &found))
			return false;
		if (found)
			return true;
	}
	if (strcmp(name, "__dict__") == 0) {
		*out = o->data.type == VT_DICT ? o->data :
		    value_dict(ev->rt.arena);
		return true;
	}
	if (strcmp(name, "__init__") == 0) {
		*out = init_of(ev, o->type);
		return true;
	}
	return no_attr(ev, obj, name);
}

/* Dunders every value has (as far as the escapes go). */
static bool
common_attr(struct eval *ev, value obj, const char *name, value *out,
    bool *found)
{
	*found = true;
	if (strcmp(name, "__class__") == 0)
		*out = mock_type_of(ev, obj);
	else if (strcmp(name, "__getattribute__") == 0)
		*out = bound(ev, "__getattribute__", getattribute, obj);
	else if (strcmp(name, "__init__") == 0 && obj.type != VT_OBJECT) {
		*out = mock_new(ev, MK_WRAPPER, "__init__");
		out->as.obj->type = 0;
	} else
		*found = false;
	return true;
}

bool
mock_getattr(struct eval *ev, value obj, const char *name, value *out)
{
	bool found;

	/*
	 * A policy that forbids private names checks the syntax tree; a
	 * format string's fields ('{0.__class__}') walk attributes the tree
	 * never shows.  When that happens behind the boundary, write it down:
	 * the record then says the boundary was bypassed.
	 */
	if (ev->calls != NULL && ev->calls->notes_private && name[0] == '_')
		effect_add(&ev->effects, "introspect", name, EFFECT_HARMLESS,
		    arena_printf(ev->rt.arena,
		    "reached the private attribute %s", name), false);

	if (obj.type != VT_OBJECT) {
		/* the built-in types' methods (str.upper, list.append, ...) */
		if (!methods_getattr(ev, obj, name, out, &found))
			return false;
		if (found)
			return true;
	}
	if (obj.type == VT_OBJECT && obj.as.obj->kind == MK_TYPE &&
	    strcmp(name, "__class__") != 0 &&
	    strcmp(name, "__getattribute__") != 0)
		return type_attr(ev, obj, name, out);
	common_attr(ev, obj, name, out, &found);
	if (found)
		return true;
	switch (obj.type) {
	case VT_FUNCTION:
		return function_attr(ev, obj, name, "<lambda>", "<lambda>",
		    "__main__", out);
	case VT_NATIVE:
		if (strcmp(name, "__self__") == 0) {
			if (obj.as.native->self.type != VT_NONE)
				*out = obj.as.native->self;
			else if (!mock_import(ev, "builtins", out))
				return false;
			return true;
		}
		if (strcmp(name, "__name__") == 0 ||
		    strcmp(name, "__qualname__") == 0) {
			*out = str_value(ev, obj.as.native->name);
			return true;
		}
		if (strcmp(name, "__module__") == 0) {
			*out = obj.as.native->self.type == VT_NONE ?
			    str_value(ev, "builtins") : value_none();
			return true;
		}
		if (strcmp(name, "__call__") == 0) {
			*out = bound(ev, "__call__", call_self, obj);
			return true;
		}
		return no_attr(ev, obj, name);
	case VT_OBJECT:
		break;
	default:
		return no_attr(ev, obj, name);
	}
	switch (obj.as.obj->kind) {
	case MK_MODULE:
		return module_attr(ev, obj, name, out);
	case MK_INSTANCE:
		return instance_attr(ev, obj, name, out);
	case MK_PYFUNC: {
		const struct vobject *o = obj.as.obj;
		const char *q = o->type >= 0 ? arena_printf(ev->rt.arena,
		    "%s.%s", types[o->type].name, o->name) : o->name;
		return function_attr(ev, obj, name, o->name, q, o->module, out);
	}
	case MK_WRAPPER:
		if (strcmp(name, "__name__") == 0)
			*out = str_value(ev, obj.as.obj->name);
		else if (strcmp(name, "__qualname__") == 0)
			*out = value_cstr(ev->rt.arena, arena_printf(
			    ev->rt.arena, "%s.%s",
			    types[obj.as.obj->type].name, obj.as.obj->name));
		else if (strcmp(name, "__objclass__") == 0)
			*out = type_value(obj.as.obj->type);
		else
			return no_attr(ev, obj, name);
		return true;
	case MK_FRAME:
		return frame_attr(ev, obj, name, out);
	case MK_GENERATOR:
		return generator_attr(ev, obj, name, out);
	case MK_CODE:
		return code_attr(ev, obj, name, out);
	default:
		/* files, pipes, sockets, responses: their own rows */
		if (mock_object_attr(ev, obj, name, out))
			return true;
		if (ev->rt.exc.kind != EXC_NONE)
			return false;
		return no_attr(ev, obj, name);
	}
}

bool
mock_getitem(struct eval *ev, value obj, value idx, value *out)
{
	return rt_raise(&ev->rt, PYEXC_TypeError, "'%s' object is not "
	    "subscriptable", object_type_name(obj));
}

/* ---- calling types and functions ---- */

static bool
new_instance(struct eval *ev, int t, value *out)
{
	*out = mock_new(ev, MK_INSTANCE, types[t].name);
	out->as.obj->type = t;
	out->as.obj->data = value_dict(ev->rt.arena);
	return true;
}

bool
mock_call(struct eval *ev, value fn, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *out)
{
	struct vobject *o = fn.as.obj;
	const char *m, *n;
	const struct builtin *b;
	value v;

	if (o->kind == MK_PYFUNC)
		return rt_raise(&ev->rt, PYEXC_TypeError,
		    "%s() missing required positional arguments", o->name);
	if (o->kind != MK_TYPE)
		return rt_raise(&ev->rt, PYEXC_TypeError, "'%s' object is not "
		    "callable", object_type_name(fn));
	m = types[o->type].module;
	n = types[o->type].name;
	if (strcmp(m, "builtins") == 0) {
		if (strcmp(n, "type") == 0 && nargs == 1 && nkw == 0) {
			*out = mock_type_of(ev, args[0]);
			return true;
		}
		if (strcmp(n, "type") == 0 && nargs != 3)
			return rt_raise(&ev->rt, PYEXC_TypeError,
			    "type() takes 1 or 3 arguments");
		if (strcmp(n, "object") == 0) {
			if (nargs || nkw)
				return rt_raise(&ev->rt, PYEXC_TypeError,
				    "object() takes no arguments");
			return new_instance(ev, 0, out);
		}
		if ((b = builtin_find(n)) != NULL)
			return b->fn(&ev->rt, value_none(), args, nargs,
			    kwnames, nkw, out);
		/* not when the builtin is this very type (type, object):
		 * calling it again would recurse without end */
		if (mock_builtin(ev, n, &v) && !value_is(v, fn))
			return eval_call_value(ev, v, args, nargs, kwnames, nkw,
			    out);
		return rt_raise(&ev->rt, PYEXC_TypeError, "cannot create '%s' "
		    "instances", n);
	}
	/* Classes with behaviour of their own live with their module. */
	if (mock_module_attr(ev, m, n, &v) && v.type == VT_NATIVE)
		return eval_call_value(ev, v, args, nargs, kwnames, nkw, out);
	rt_clear(&ev->rt);
	if (strcmp(n, "catch_warnings") == 0) {
		new_instance(ev, o->type, out);
		if (!mock_import(ev, "warnings", &v))
			return false;
		dict_put(ev, out->as.obj->data, "_module", v);
		dict_put(ev, out->as.obj->data, "_record", value_bool(false));
		dict_put(ev, out->as.obj->data, "_entered", value_bool(false));
		return true;
	}
	if (types[o->type].init_module != NULL)
		return new_instance(ev, o->type, out);
	return rt_raise(&ev->rt, PYEXC_TypeError, "cannot create '%s.%s' "
	    "instances", m, n);
}

/* ---- generators ---- */

bool
mock_generator(struct eval *ev, value items, value *out)
{
	*out = mock_new(ev, MK_GENERATOR, "<genexpr>");
	out->as.obj->data = items;
	return true;
}

/* Generators, iterators, views and ranges iterate; nothing else of the
 * model does (value_iterate() raises CPython's TypeError for those). */
static bool
object_iterable(value obj)
{
	const struct vobject *o = obj.as.obj;
	return ((o->kind == MK_GENERATOR || o->kind == MK_ITER) &&
	    o->data.type == VT_LIST) || o->kind == MK_VIEW ||
	    o->kind == MK_RANGE;
}

static bool
object_iterate(struct rt *rt, value obj, value_item_fn fn, void *ctx)
{
	struct vobject *o = obj.as.obj;
	if (o->kind == MK_GENERATOR && o->data.type == VT_LIST) {
		while (o->pos < o->data.as.list->len)
			if (!fn(rt, o->data.as.list->items[o->pos++], ctx))
				return false;
		return true;
	}
	if (o->kind == MK_ITER && o->data.type == VT_LIST) {
		while (o->pos < o->data.as.list->len)
			if (!fn(rt, o->data.as.list->items[o->pos++], ctx))
				return false;
		return true;
	}
	if (o->kind == MK_VIEW)		/* a view iterates again and again */
		return value_iterate(rt, o->data, fn, ctx);
	if (o->kind == MK_RANGE) {
		/* lazily, one step of fuel per item */
		int64_t i = o->data.as.tuple->items[0].as.i;
		int64_t stop = o->data.as.tuple->items[1].as.i;
		int64_t step = o->data.as.tuple->items[2].as.i;
		for (; step > 0 ? i < stop : i > stop; i += step) {
			if (!rt_step(rt) || !fn(rt, value_int(i), ctx))
				return false;
			if ((step > 0 && i > INT64_MAX - step) ||
			    (step < 0 && i < INT64_MIN - step))
				break;
		}
		return true;
	}
	return rt_raise(rt, PYEXC_TypeError, "'%s' object is not iterable",
	    object_type_name(obj));		/* (not object_iterable) */
}

/* ---- repr ---- */

static void
object_repr(value v, struct sbuf *out)
{
	const struct vobject *o;

	if (v.type == VT_FUNCTION) {
		sbuf_addf(out, "<function <lambda> at %p>", (void *)v.as.func);
		return;
	}
	o = v.as.obj;
	switch (o->kind) {
	case MK_MODULE:
		sbuf_addf(out, "<module '%s' (built-in)>", o->name);
		return;
	case MK_FILE:
		sbuf_adds(out, "<_io.TextIOWrapper name=");
		textesc_repr(out, o->name, strlen(o->name));
		sbuf_addf(out, " mode='%s' encoding='UTF-8'>",
		    o->writable ? "w" : "r");
		return;
	case MK_TYPE:
		if (strcmp(types[o->type].module, "builtins") == 0)
			sbuf_addf(out, "<class '%s'>", types[o->type].name);
		else
			sbuf_addf(out, "<class '%s.%s'>",
			    types[o->type].module, types[o->type].name);
		return;
	case MK_PYFUNC:
		sbuf_addf(out, "<function %s.%s at %p>", o->type >= 0 ?
		    types[o->type].name : "?", o->name, (const void *)o);
		return;
	case MK_WRAPPER:
		sbuf_addf(out, "<slot wrapper '%s' of '%s' objects>", o->name,
		    types[o->type].name);
		return;
	case MK_FRAME:
		sbuf_addf(out, "<frame at %p, file '<stdin>', line 1, code "
		    "%s>", (const void *)o, o->name ? o->name : "<module>");
		return;
	case MK_GENERATOR:
		sbuf_addf(out, "<generator object <genexpr> at %p>",
		    (const void *)o);
		return;
	case MK_CODE:
		sbuf_addf(out, "<code object %s at %p, file \"<stdin>\", line 1>",
		    o->name ? o->name : "<module>", (const void *)o);
		return;
	case MK_INSTANCE:
		sbuf_addf(out, "<%s.%s object at %p>", types[o->type].module,
		    types[o->type].name, (const void *)o);
		return;
	case MK_SOCKET:
		sbuf_addf(out, "<socket.socket fd=3, family=2, type=1, proto=0%s%s>",
		    o->name ? ", raddr=" : "", o->name ? o->name : "");
		return;
	case MK_PIPE:
		sbuf_addf(out, "<os._wrap_close object at %p>", (const void *)o);
		return;
	case MK_RESPONSE:
		sbuf_addf(out, "<http.client.HTTPResponse object at %p>",
		    (const void *)o);
		return;
	case MK_RANGE: {
		const value *r = o->data.as.tuple->items;
		if (r[2].as.i == 1)
			sbuf_addf(out, "range(%lld, %lld)", (long long)r[0].as.i,
			    (long long)r[1].as.i);
		else
			sbuf_addf(out, "range(%lld, %lld, %lld)",
			    (long long)r[0].as.i, (long long)r[1].as.i,
			    (long long)r[2].as.i);
		return;
	}
	case MK_ITER:
		sbuf_addf(out, "<%s object at %p>", o->name, (const void *)o);
		return;
	case MK_VIEW:		/* (value_repr shows the items) */
		sbuf_addf(out, "%s(...)", o->name);
		return;
	}
}

/* A dict view shows its items: "dict_keys(['a'])". */
static bool
object_repr_items(value v, const char **name, value *items)
{
	if (v.type != VT_OBJECT || v.as.obj->kind != MK_VIEW)
		return false;
	*name = v.as.obj->name;
	*items = v.as.obj->data;
	return true;
}

static bool
object_len(struct rt *rt, value obj, int64_t *out)
{
	const struct vobject *o = obj.as.obj;
	if (o->kind == MK_RANGE) {
		int64_t a = o->data.as.tuple->items[0].as.i;
		int64_t b = o->data.as.tuple->items[1].as.i;
		int64_t st = o->data.as.tuple->items[2].as.i;
		__int128 n = st > 0 ? ((__int128)b - a + st - 1) / st :
		    ((__int128)a - b - st - 1) / -st;
		*out = n > 0 ? (int64_t)n : 0;
		return true;
	}
	if (o->kind == MK_VIEW) {
		*out = (int64_t)o->data.as.list->len;
		return true;
	}
	return rt_raise(rt, PYEXC_TypeError, "object of type '%s' has no len()",
	    object_type_name(obj));
}

/* A type object and a module live for the whole process; every other
 * object, and every lambda, in the arena of the input that made it. */
static bool
object_in_arena(value v)
{
	return v.type == VT_FUNCTION || !mock_is_static(v.as.obj);
}

/* ---- the slots (value.h) ---- */

const struct value_slots mock_object_slots = {
	.type_name = object_type_name,
	.repr = object_repr,
	.repr_items = object_repr_items,
	.iterable = object_iterable,
	.iterate = object_iterate,
	.len = object_len,
	.in_arena = object_in_arena,
};

/* A lambda: "function", "<function <lambda> at 0x...>", no items. */
const struct value_slots mock_function_slots = {
	.type_name = object_type_name,
	.repr = object_repr,
	.in_arena = object_in_arena,
};

/* ---- the model, as the evaluator asks it (object.h) ---- */

const struct eval_model mock_model = {
	.builtin = mock_builtin,
	.import = mock_import,
	.type_named = mock_type_named,
	.getattr = mock_getattr,
	.getitem = mock_getitem,
	.call = mock_call,
	.generator = mock_generator,
	.object = mock_object,
	.function_slots = &mock_function_slots,
};
