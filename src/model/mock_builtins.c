/*
 * mock_builtins.c -- the builtins only the full model has: open,
 * __import__, eval, exec, compile, getattr, globals, help, breakpoint ...
 *
 * These are the doors an in-process sandbox must keep shut, and on the
 * unsafe path they are open: each works on the path's mock filesystem
 * (open), on the object model (getattr, vars, dir, type), or through the
 * evaluator itself (eval, exec: the essay's parser, then eval_root), and
 * what would do harm outside a model (a pager, a debugger prompt, exit)
 * is written down as an effect.  In a jail the same builtins make real
 * calls (fsops.h) that the kernel refuses.  mock_builtin() finds them by
 * name for the evaluator (ev->model->builtin).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "lang/ast.h"
#include "interp/builtins.h"
#include "record/effect.h"
#include "interp/eval.h"
#include "fs/fsops.h"
#include "mock.h"
#include "mock_int.h"
#include "interp/ns.h"
#include "lang/parse.h"
#include "base/sbuf.h"
#include "base/strlist.h"

NATIVE(builtin_open)
{
	struct eval *ev = rt->ev;
	const value *file = arg_or_kw(args, nargs, kw, nkw, 0, "file");
	const value *modev = arg_or_kw(args, nargs, kw, nkw, 1, "mode");
	const char *mode = "r";
	value o;
	bool existed;

	if (file == NULL)
		return rt_raise(rt, PYEXC_TypeError, "open() missing required "
		    "argument 'file' (pos 1)");
	if (!want_str(rt, "open() argument 'file'", *file))
		return false;
	if (modev != NULL) {
		if (!want_str(rt, "open() argument 'mode'", *modev))
			return false;
		mode = modev->as.s->data;
	}
	o = mock_new(ev, MK_FILE, arena_strdup(rt->arena, file->as.s->data));
	o.as.obj->writable = strpbrk(mode, "wax+") != NULL;
	existed = fsops_exists(&ev->ws, o.as.obj->name);
	if (!o.as.obj->writable) {
		const char *d;
		size_t len;
		if (!fsops_read(&ev->ws, o.as.obj->name, &d, &len))
			return false;
	}
	if (strchr(mode, 'w') != NULL) {
		bool was;
		if (!fsops_write(&ev->ws, o.as.obj->name, "", 0, false, &was))
			return false;
		effect_add(&ev->effects, "write", o.as.obj->name,
		    existed ? EFFECT_DAMAGE : EFFECT_HARMLESS,
		    arena_printf(rt->arena, existed ? "%s truncated" :
		    "created %s", o.as.obj->name), false);
	}
	*out = o;
	return true;
}

NATIVE(builtin_import)
{
	const value *n = arg_or_kw(args, nargs, kw, nkw, 0, "name");
	value top;
	char *dot;
	if (n == NULL)
		return rt_raise(rt, PYEXC_TypeError,
		    "__import__() missing required argument 'name' (pos 1)");
	if (!want_str(rt, "__import__() argument 1", *n))
		return false;
	if (!mock_import(rt->ev, n->as.s->data, out))
		return false;
	/* __import__('a.b') returns a, as CPython's does */
	dot = strchr(n->as.s->data, '.');
	if (dot != NULL && mock_import(rt->ev, arena_strndup(rt->arena,
	    n->as.s->data, (size_t)(dot - n->as.s->data)), &top))
		*out = top;
	return true;
}

/* eval/exec of a string: the same evaluator, the same model, one level
 * deeper (the depth cap bounds eval('eval(...)') chains). */
static bool
eval_source(struct rt *rt, value src, bool is_exec, value *out)
{
	struct eval *ev = rt->ev;
	struct parse_result pr;
	const char *s;
	size_t len;
	bool has_value;

	if (src.type == VT_OBJECT && src.as.obj->kind == MK_CODE &&
	    src.as.obj->data.type == VT_STR) {
		/* a code object compiled in 'exec' mode runs statements even
		 * under eval(), which then returns None */
		if (src.as.obj->pos == 1)
			is_exec = true;
		src = src.as.obj->data;
	}
	if (src.type != VT_STR && src.type != VT_BYTES)
		return rt_raise(rt, PYEXC_TypeError,
		    "%s() arg 1 must be a string, bytes or code object",
		    is_exec ? "exec" : "eval");
	s = src.as.s->data;
	len = src.as.s->len;
	parse_input(rt->arena, s, len, &pr);
	if (pr.status != PARSE_OK)
		return rt_raise(rt, PYEXC_SyntaxError, "%s", pr.error.msg ?
		    pr.error.msg : "invalid syntax");
	if (!is_exec && pr.root->kind != NODE_EXPRESSION)
		return rt_raise(rt, PYEXC_SyntaxError, "invalid syntax");
	if (rt->depth + 8 >= rt->limits.max_depth && rt->limits.max_depth)
		return rt_raise(rt, PYEXC_RecursionError,
		    "maximum recursion depth exceeded");
	rt->depth += 8;
	if (!eval_root(ev, pr.root, out, &has_value)) {
		rt->depth -= 8;
		ev->exc_node = NULL;	/* the span is in the other source */
		return false;
	}
	rt->depth -= 8;
	if (is_exec)
		*out = value_none();
	return true;
}

NATIVE(builtin_eval)
{
	if (nargs < 1)
		return rt_raise(rt, PYEXC_TypeError, "eval expected at least 1 "
		    "argument, got 0");
	return eval_source(rt, args[0], false, out);
}

NATIVE(builtin_exec)
{
	if (nargs < 1)
		return rt_raise(rt, PYEXC_TypeError, "exec expected at least 1 "
		    "argument, got 0");
	return eval_source(rt, args[0], true, out);
}

NATIVE(builtin_compile)
{
	if (nargs < 3)
		return rt_raise(rt, PYEXC_TypeError,
		    "compile() missing required argument 'mode' (pos 3)");
	if (args[0].type != VT_STR)
		return rt_raise(rt, PYEXC_TypeError,
		    "compile() arg 1 must be a string, bytes or AST object");
	*out = mock_new(rt->ev, MK_CODE, "<module>");
	out->as.obj->data = args[0];
	out->as.obj->pos = args[2].type == VT_STR &&
	    strcmp(args[2].as.s->data, "exec") == 0;
	return true;
}

/* help(): pydoc's pager runs a program ($PAGER, less), and a pager takes
 * "!command" -- the known escape from help() in a restricted shell. */
NATIVE(builtin_help)
{
	struct eval *ev = rt->ev;
	if (ev->ws.jailed)
		return fsops_exec(&ev->ws, "less");
	effect_add(&ev->effects, "exec", "pager", EFFECT_PROCESS,
	    "help() would start a pager, which runs '!command'", false);
	*out = value_none();
	return true;
}

/* license(), credits(), copyright(): print text, harmless */
NATIVE(builtin_site_text)
{
	effect_add(&rt->ev->effects, "print", "stdout", EFFECT_HARMLESS,
	    "(the interpreter's license text)", false);
	*out = value_none();
	return true;
}

NATIVE(builtin_getattr)
{
	if (nargs < 2 || nargs > 3)
		return rt_raise(rt, PYEXC_TypeError, "getattr expected %s 3 "
		    "arguments, got %zu", nargs < 2 ? "at least 2" : "at most",
		    nargs);
	if (args[1].type != VT_STR)
		return rt_raise(rt, PYEXC_TypeError,
		    "attribute name must be string, not '%s'",
		    value_type_name(args[1]));
	if (mock_getattr(rt->ev, args[0], args[1].as.s->data, out))
		return true;
	if (nargs == 3 && rt->exc.kind == EXC_PYTHON &&
	    pyexc_is(rt->exc.cls, PYEXC_AttributeError)) {
		rt_clear(rt);
		*out = args[2];
		return true;
	}
	return false;
}

NATIVE(builtin_hasattr)
{
	if (!mock_want_args(rt, "hasattr", nargs, nkw, 2, 2))
		return false;
	if (args[1].type != VT_STR)
		return rt_raise(rt, PYEXC_TypeError,
		    "attribute name must be string, not '%s'",
		    value_type_name(args[1]));
	*out = value_bool(mock_getattr(rt->ev, args[0], args[1].as.s->data,
	    out));
	rt_clear(rt);
	return true;
}

NATIVE(builtin_setattr)
{
	if (!mock_want_args(rt, "setattr", nargs, nkw, 3, 3))
		return false;
	if (args[0].type == VT_OBJECT && args[0].as.obj->kind == MK_INSTANCE &&
	    args[1].type == VT_STR) {
		*out = value_none();
		return value_dict_set(rt, args[0].as.obj->data, args[1],
		    args[2]);
	}
	return rt_raise(rt, PYEXC_TypeError, "cannot set '%s' attribute of "
	    "immutable type '%s'", args[1].type == VT_STR ?
	    args[1].as.s->data : "?", value_type_name(args[0]));
}

NATIVE(builtin_vars)
{
	if (nargs == 0) {
		*out = mock_main_globals(rt->ev);
		return true;
	}
	return mock_getattr(rt->ev, args[0], "__dict__", out);
}

NATIVE(builtin_globals)
{
	if (!mock_want_args(rt, "globals", nargs, nkw, 0, 0))
		return false;
	*out = mock_main_globals(rt->ev);
	return true;
}

NATIVE(builtin_type)
{
	if (nargs == 1 && nkw == 0) {
		*out = mock_type_of(rt->ev, args[0]);
		return true;
	}
	return rt_raise(rt, PYEXC_TypeError, "type() takes 1 or 3 arguments");
}

NATIVE(builtin_dir)
{
	struct eval *ev = rt->ev;
	static const char *const common[] = { "__class__", "__doc__",
	    "__getattribute__", "__init__", NULL };
	const char *const *n;
	*out = value_list(rt->arena, 8);
	if (nargs == 0) {
		size_t i;
		for (i = 0; ev->ns != NULL && i < ns_count(ev->ns); i++)
			value_list_append(rt->arena, *out,
			    sv(rt, ns_name(ev->ns, i, NULL)));
		return true;
	}
	if (args[0].type == VT_OBJECT && args[0].as.obj->kind == MK_MODULE &&
	    (n = mock_module_names(args[0].as.obj->name)) != NULL)
		for (; *n != NULL; n++)
			value_list_append(rt->arena, *out, sv(rt, *n));
	for (n = common; *n != NULL; n++)
		value_list_append(rt->arena, *out, sv(rt, *n));
	return true;
}

NATIVE(builtin_print)
{
	struct eval *ev = rt->ev;
	struct sbuf b = SBUF_INIT;
	size_t i;
	for (i = 0; i < nargs; i++) {
		if (i)
			sbuf_addc(&b, ' ');
		if (!value_str_of(rt, args[i], &b)) {
			sbuf_free(&b);
			return false;
		}
	}
	if (!rt_check_bytes(rt, effect_text_held(sbuf_cstr(&b),
	    b.len))) {
		sbuf_free(&b);
		return false;
	}
	effect_add(&ev->effects, "print", "stdout", EFFECT_HARMLESS,
	    sbuf_cstr(&b), false);
	sbuf_free(&b);
	*out = value_none();
	return true;
}

NATIVE(builtin_input)
{
	return rt_raise(rt, PYEXC_EOFError, "EOF when reading a line");
}

NATIVE(builtin_breakpoint)
{
	struct eval *ev = rt->ev;
	if (ev->ws.jailed)
		return fsops_exec(&ev->ws, "pdb");
	effect_add(&ev->effects, "debugger", "pdb", EFFECT_PROCESS,
	    "a debugger prompt would take any command", false);
	*out = value_none();
	return true;
}

NATIVE(builtin_id)
{
	if (!mock_want_args(rt, "id", nargs, nkw, 1, 1))
		return false;
	*out = value_int(args[0].type == VT_INT ? 9788 + args[0].as.i * 32 :
	    (int64_t)((uintptr_t)args[0].as.obj & 0xffffffffffff));
	return true;
}

NATIVE(builtin_callable)
{
	if (!mock_want_args(rt, "callable", nargs, nkw, 1, 1))
		return false;
	*out = value_bool(args[0].type == VT_NATIVE ||
	    args[0].type == VT_FUNCTION || (args[0].type == VT_OBJECT &&
	    (args[0].as.obj->kind == MK_TYPE ||
	    args[0].as.obj->kind == MK_PYFUNC)));
	return true;
}

NATIVE(builtin_next)
{
	if (nargs < 1)
		return rt_raise(rt, PYEXC_TypeError, "next expected at least 1 "
		    "argument, got 0");
	if (args[0].type == VT_OBJECT && (args[0].as.obj->kind == MK_GENERATOR ||
	    args[0].as.obj->kind == MK_ITER)) {
		struct vobject *g = args[0].as.obj;
		if (g->data.type == VT_LIST && g->pos < g->data.as.list->len) {
			*out = g->data.as.list->items[g->pos++];
			return true;
		}
		if (nargs > 1) {
			*out = args[1];
			return true;
		}
		return rt_raise(rt, PYEXC_StopIteration, "%s", "");
	}
	return rt_raise(rt, PYEXC_TypeError, "'%s' object is not an iterator",
	    value_type_name(args[0]));
}

/* Is v's type t or below it?  t a type, or a tuple of them (nested too,
 * as CPython allows). */
static bool
instance_of(struct rt *rt, value v, value t, unsigned depth, bool *res)
{
	value cur;
	size_t i;
	if (t.type == VT_TUPLE) {
		if (depth > 64)
			return rt_raise(rt, PYEXC_RecursionError,
			    "maximum recursion depth exceeded in "
			    "__instancecheck__");
		for (i = 0, *res = false; i < t.as.tuple->len && !*res; i++)
			if (!instance_of(rt, v, t.as.tuple->items[i], depth + 1,
			    res))
				return false;
		return true;
	}
	if (t.type != VT_OBJECT || t.as.obj->kind != MK_TYPE)
		return rt_raise(rt, PYEXC_TypeError,
		    "isinstance() arg 2 must be a type, a tuple of types, or a "
		    "union");
	cur = mock_type_of(rt->ev, v);
	for (int guard = 0; guard < 16 && cur.type == VT_OBJECT; guard++) {
		if (cur.as.obj == t.as.obj) {
			*res = true;
			return true;
		}
		if (!mock_getattr(rt->ev, cur, "__base__", &cur))
			return false;
	}
	*res = false;
	return true;
}

NATIVE(builtin_isinstance)
{
	bool res;
	if (!mock_want_args(rt, "isinstance", nargs, nkw, 2, 2) ||
	    !instance_of(rt, args[0], args[1], 0, &res))
		return false;
	*out = value_bool(res);
	return true;
}

NATIVE(builtin_exit)
{
	return mock_sys_exit(rt, self, args, nargs, kw, nkw, out);
}

static const struct mattr unsafe_builtins[] = {
	{ "__import__", builtin_import }, { "breakpoint", builtin_breakpoint },
	{ "callable", builtin_callable }, { "compile", builtin_compile },
	{ "dir", builtin_dir }, { "eval", builtin_eval },
	{ "exec", builtin_exec }, { "exit", builtin_exit },
	{ "copyright", builtin_site_text }, { "credits", builtin_site_text },
	{ "getattr", builtin_getattr }, { "globals", builtin_globals },
	{ "help", builtin_help }, { "license", builtin_site_text },
	{ "hasattr", builtin_hasattr }, { "id", builtin_id },
	{ "input", builtin_input }, { "isinstance", builtin_isinstance },
	{ "locals", builtin_globals }, { "next", builtin_next },
	{ "open", builtin_open }, { "print", builtin_print },
	{ "quit", builtin_exit }, { "setattr", builtin_setattr },
	{ "type", builtin_type }, { "vars", builtin_vars },
	/* (type and object are answered as the type objects they are) */
	{ NULL, NULL },
};

const char *const *
mock_builtin_names(void)
{
	static const char *names[sizeof unsafe_builtins /
	    sizeof unsafe_builtins[0] + 1];
	size_t i;
	if (names[0] == NULL)
		for (i = 0; unsafe_builtins[i].name != NULL; i++)
			names[i] = unsafe_builtins[i].name;
	return names;
}

bool
mock_builtin(struct eval *ev, const char *name, value *out)
{
	const struct mattr *m;
	if (strcmp(name, "__builtins__") == 0)
		return mock_import(ev, "builtins", out);
	if (strcmp(name, "object") == 0 || strcmp(name, "type") == 0)
		return mock_type_named(ev, "builtins", name, out);
	for (m = unsafe_builtins; m->name != NULL; m++)
		if (strcmp(m->name, name) == 0) {
			*out = value_native(ev->rt.arena, m->name, m->fn,
			    value_none(), NULL);
			return true;
		}
	return false;
}
