/*
 * eval.c -- the tree-walking evaluator.
 *
 * Each node kind has one case in eval_expr().  Numbers, containers and
 * comparisons are the value layer's business (src/value/); this file
 * only walks, resolves names, and calls.
 *
 * Two things keep hostile trees from taking the process down:
 *  - a depth count (rt.depth against limits.max_depth) around every
 *    recursive descent, reported as RecursionError like CPython;
 *  - left-leaning BinOp chains (1+2+...+N, the shape long expressions
 *    take) are walked with a loop, not recursion, so a megabyte of
 *    additions costs no stack.
 * Every node evaluated costs one step of fuel (rt_step), so a sandbox
 * evaluation cannot run for ever.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "lang/ast.h"
#include "builtins.h"
#include "eval.h"
#include "value/format.h"
#include "methods.h"
#include "ns.h"
#include "base/sbuf.h"
#include "base/strlist.h"
#include "base/xalloc.h"

/* A local scope (lambda parameters, comprehension targets). */
struct scope {
	struct scope	*parent;
	bool		 comprehension;	/* a walrus inside binds outside it */
	const char	**names;
	value		 *values;
	size_t		  n, cap;
};

static bool
call_hook(struct rt *rt, value fn, const value *args, size_t nargs,
    value *out)
{
	return eval_call_value(rt->ev, fn, args, nargs, NULL, 0, out);
}

void
eval_init(struct eval *ev, struct arena *a, const struct eval_model *model,
    const struct workspace_ops *ops, bool jailed)
{
	memset(ev, 0, sizeof *ev);
	ev->model = model;
	ev->rt.arena = a;
	ev->rt.call = call_hook;
	ev->rt.ev = ev;
	ev->rt.limits.max_depth = 500;
	ev->effects.arena = a;
	ev->effects.simulated = !jailed;
	ev->ws.ops = ops;
	ev->ws.rt = &ev->rt;
	ev->ws.jailed = jailed;
	ev->ws.effects = &ev->effects;
}

static bool builtin_cached(const struct builtin *b, value *out);

struct eval_calls *
eval_calls_new(const char *const *list, bool calls_only, bool notes_private)
{
	struct eval_calls *c = xcalloc(1, sizeof *c);
	long n = 0, i;

	while (list != NULL && list[n] != NULL)
		n++;
	c->list = list;
	c->calls_only = calls_only;
	c->notes_private = notes_private;
	c->builtins = xcalloc((size_t)n + 1, sizeof *c->builtins);
	c->values = xcalloc((size_t)n + 1, sizeof *c->values);
	for (i = 0; i < n; i++) {
		c->builtins[i] = builtin_find(list[i]);
		/* (none when the static objects ran out: then looked up
		 * as before) */
		if (c->builtins[i] == NULL ||
		    !builtin_cached(c->builtins[i], &c->values[i]))
			c->values[i].type = VT_NONE;
	}
	return c;
}

void
eval_calls_free(struct eval_calls *c)
{
	if (c == NULL)
		return;
	free(c->builtins);
	free(c->values);
	free(c);
}

/* Remember where an exception arose: the innermost node wins. */
static bool
fail_at(struct eval *ev, const struct node *n)
{
	if (ev->exc_node == NULL)
		ev->exc_node = n;
	if (!ev->rt.exc.has_span) {
		ev->rt.exc.start = n->start;
		ev->rt.exc.end = n->end;
		ev->rt.exc.has_span = true;
	}
	return false;
}

/* ---- names ---- */

static bool
scope_get(const struct scope *s, const char *name, value *out)
{
	size_t i;
	for (; s != NULL; s = s->parent)
		for (i = s->n; i > 0; i--)
			if (strlist_cmp(s->names[i - 1], name) == 0) {
				*out = s->values[i - 1];
				return true;
			}
	return false;
}

static void
scope_set(struct eval *ev, struct scope *sc, const char *name, value v)
{
	size_t i;
	for (i = 0; i < sc->n; i++)
		if (strcmp(sc->names[i], name) == 0) {
			sc->values[i] = v;
			return;
		}
	if (sc->n == sc->cap) {
		size_t ncap = sc->cap ? sc->cap * 2 : 4;
		sc->names = arena_grow(ev->rt.arena, sc->names, sc->n, ncap,
		    sizeof *sc->names);
		sc->values = arena_grow(ev->rt.arena, sc->values, sc->n, ncap,
		    sizeof *sc->values);
		sc->cap = ncap;
	}
	sc->names[sc->n] = name;
	sc->values[sc->n++] = v;
}

static struct scope *
scope_new(struct eval *ev, struct scope *parent)
{
	struct scope *sc = arena_alloc(ev->rt.arena, sizeof *sc);
	sc->parent = parent;
	return sc;
}

/* Bind a name where an assignment in the current context binds it: the
 * innermost local scope, else the path's namespace. */
static void
bind_name(struct eval *ev, const char *name, value v)
{
	if (ev->scope != NULL)
		scope_set(ev, ev->scope, name, v);
	else if (ev->ns != NULL)
		ns_set_pending(ev->ns, name, v);
}

/*
 * The value of a builtin function: one static object per builtin, made
 * on first use, so a name lookup allocates nothing and "len is len" holds
 * as in CPython.  (The objects never change once made.)
 */
static bool
builtin_cached(const struct builtin *b, value *out)
{
	enum { NCACHE = 128 };
	static struct vnative cache[NCACHE];
	static const struct builtin *keys[NCACHE];
	size_t h = ((uintptr_t)b >> 4) % NCACHE, i;
	value v = { .type = VT_NATIVE };

	for (i = 0; i < NCACHE; i++, h = (h + 1) % NCACHE) {
		if (keys[h] == b) {
			v.as.native = &cache[h];
			*out = v;
			return true;
		}
		if (keys[h] == NULL) {
			cache[h].name = b->name;
			cache[h].fn = b->fn;
			cache[h].self = value_none();
			cache[h].data = NULL;
			keys[h] = b;
			v.as.native = &cache[h];
			*out = v;
			return true;
		}
	}
	return false;
}

static value
builtin_value(struct arena *a, const struct builtin *b)
{
	value v;

	if (builtin_cached(b, &v))
		return v;
	return value_native(a, b->name, b->fn, value_none(), NULL);
}

bool
eval_lookup(struct eval *ev, const char *name, value *out)
{
	const struct builtin *b = NULL;
	bool resolved = false;

	if (ev->scope != NULL && scope_get(ev->scope, name, out))
		return true;
	if (ev->ns != NULL && ns_get(ev->ns, name, out))
		return true;
	/* Which builtins exist is the policy's to say (the essay's reduced
	 * namespace); the unsafe and jail paths have them all.  The row
	 * that admits the name has its builtin. */
	if (ev->calls != NULL && ev->calls->calls_only) {
		long row = strlist_index(ev->calls->list, name);
		if (row < 0) {
			ev->withheld = name;
			goto undefined;
		}
		b = ev->calls->builtins[row];
		/* (the object model's names come first when it has them) */
		if (ev->calls->values[row].type == VT_NATIVE &&
		    !ev->full_model) {
			*out = ev->calls->values[row];
			return true;
		}
		resolved = true;
	}
	/* In the object model a builtin type's name is the type object
	 * (calling it constructs), as in CPython: str is type('') */
	if (ev->full_model && strcmp(name, "__builtins__") != 0 &&
	    ev->model->type_named(ev, "builtins", name, out))
		return true;
	if (ev->full_model && ev->model->builtin(ev, name, out))
		return true;
	if (!resolved)
		b = builtin_find(name);
	if (b != NULL) {
		*out = builtin_value(ev->rt.arena, b);
		return true;
	}
undefined:
	return rt_raise(&ev->rt, PYEXC_NameError, "name '%s' is not defined",
	    name);
}

/* Every node evaluated costs a step and must fit under the depth limit. */
static inline bool
eval_enter(struct eval *ev, const struct node *n)
{
	struct rt *rt = &ev->rt;

	if (!rt_step(rt))
		return fail_at(ev, n);
	if (rt->limits.max_depth != 0 && rt->depth >= rt->limits.max_depth) {
		rt_raise(rt, PYEXC_RecursionError, "maximum recursion depth "
		    "exceeded");
		return fail_at(ev, n);
	}
	return true;
}

/*
 * eval_expr() of a Constant or a Name without the call: the same step,
 * the same depth test, the same answer.  The evaluator's hot spots (a
 * call's function and arguments, a chain's operands, the items of a
 * list or tuple display) are mostly leaves, and eval_expr() is a big
 * function to enter and leave.
 */
static inline bool
eval_operand(struct eval *ev, const struct node *n, value *out)
{
	struct rt *rt = &ev->rt;
	bool ok;

	if (n->kind != NODE_CONSTANT && n->kind != NODE_NAME)
		return eval_expr(ev, n, out);
	if (!eval_enter(ev, n))
		return false;
	if (n->kind == NODE_CONSTANT) {
		*out = n->u.constant.value;
		return true;
	}
	rt->depth++;
	ok = eval_lookup(ev, n->u.name.id, out) || fail_at(ev, n);
	rt->depth--;
	return ok;
}

/* ---- calls ---- */

static bool call_lambda(struct eval *ev, const struct vfunction *f,
    const value *args, size_t nargs, const char *const *kwnames, size_t nkw,
    value *out);

/* A call's arguments: on the stack for the usual few, in the arena
 * beyond that. */
#define ARGV_INLINE 6

struct argv {
	value		*args;
	const char	**kwnames;
	size_t		 n, nkw, cap;
	struct arena	*arena;
	value		 inl_args[ARGV_INLINE];
	const char	*inl_kw[ARGV_INLINE];
};

/* Double the room, out of line: most calls fit in the inline arrays. */
static void __attribute__((noinline))
argv_grow(struct argv *av)
{
	size_t ncap = av->cap * 2;

	av->args = arena_grow(av->arena, av->args, av->n + av->nkw, ncap,
	    sizeof *av->args);
	av->kwnames = arena_grow(av->arena, av->kwnames, av->n + av->nkw,
	    ncap, sizeof *av->kwnames);
	av->cap = ncap;
}

static inline void
argv_push(struct argv *av, const char *kw, value v)
{
	if (av->n + av->nkw == av->cap)
		argv_grow(av);
	av->args[av->n + av->nkw] = v;
	av->kwnames[av->n + av->nkw] = kw;
	if (kw == NULL)
		av->n++;
	else
		av->nkw++;
}

static bool
push_item(struct rt *rt, value item, void *ctx)
{
	(void)rt;
	argv_push(ctx, NULL, item);
	return true;
}

/* eval_call_value(), inline for eval_call(): most calls are builtins. */
static inline bool
call_value(struct eval *ev, value fn, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *out)
{
	if (fn.type == VT_NATIVE)
		return fn.as.native->fn(&ev->rt, fn.as.native->self, args,
		    nargs, kwnames, nkw, out);
	if (fn.type == VT_FUNCTION)
		return call_lambda(ev, fn.as.func, args, nargs, kwnames, nkw,
		    out);
	if (fn.type == VT_OBJECT)
		return ev->model->call(ev, fn, args, nargs, kwnames, nkw, out);

	return rt_raise(&ev->rt, PYEXC_TypeError, "'%s' object is not callable",
	    value_type_name(fn));
}

bool
eval_call_value(struct eval *ev, value fn, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *out)
{
	return call_value(ev, fn, args, nargs, kwnames, nkw, out);
}

static bool
eval_call(struct eval *ev, const struct node *n, value *out)
{
	struct argv av;
	value fn, v;
	size_t i;

	/* (field by field: the inline arrays need no clearing) */
	av.args = av.inl_args;
	av.kwnames = av.inl_kw;
	av.n = av.nkw = 0;
	av.cap = ARGV_INLINE;
	av.arena = ev->rt.arena;

	if (!eval_operand(ev, n->u.call.func, &fn))
		return false;
	for (i = 0; i < n->u.call.args.len; i++) {
		const struct node *a = n->u.call.args.items[i];
		if (a->kind == NODE_STARRED) {
			if (!eval_expr(ev, a->u.starred.value, &v))
				return false;
			if (!value_iterate(&ev->rt, v, push_item, &av))
				return fail_at(ev, a);
			continue;
		}
		if (!eval_operand(ev, a, &v))
			return false;
		argv_push(&av, NULL, v);
	}
	for (i = 0; i < n->u.call.keywords.len; i++) {
		const struct node *k = n->u.call.keywords.items[i];
		if (!eval_expr(ev, k->u.keyword.value, &v))
			return false;
		if (k->u.keyword.arg != NULL) {
			argv_push(&av, k->u.keyword.arg, v);
			continue;
		}
		if (v.type != VT_DICT) {
			rt_raise(&ev->rt, PYEXC_TypeError, "argument after ** "
			    "must be a mapping, not %s", value_type_name(v));
			return fail_at(ev, k);
		}
		for (size_t j = 0; j < v.as.dict->used; j++) {
			struct ventry *e = &v.as.dict->entries[j];
			if (!e->live)
				continue;
			if (e->key.type != VT_STR) {
				rt_raise(&ev->rt, PYEXC_TypeError,
				    "keywords must be strings");
				return fail_at(ev, k);
			}
			argv_push(&av, e->key.as.s->data, e->val);
		}
	}
	/* Keyword arguments follow the positional ones in av.args. */
	if (av.nkw != 0) {
		value *args = arena_array(ev->rt.arena, av.n + av.nkw,
		    sizeof *args);
		const char **names = arena_array(ev->rt.arena, av.nkw,
		    sizeof *names);
		size_t p = 0, k = 0;
		for (i = 0; i < av.n + av.nkw; i++) {
			if (av.kwnames[i] == NULL)
				args[p++] = av.args[i];
			else {
				names[k] = av.kwnames[i];
				args[av.n + k++] = av.args[i];
			}
		}
		av.args = args;
		av.kwnames = names;
	}
	if (av.args == NULL)
		av.args = av.inl_args;	/* never a null array, even empty */
	if (!call_value(ev, fn, av.args, av.n,
	    av.nkw ? av.kwnames : NULL, av.nkw, out))
		return fail_at(ev, n);
	return true;
}

/* ---- subscripts ---- */

/* Subscripts are the value layer's (value_getitem); mock objects are the
 * object model's. */
static bool
getitem(struct eval *ev, value obj, value idx, value *out)
{
	if (obj.type == VT_OBJECT)
		return ev->model->getitem(ev, obj, idx, out);
	return value_getitem(&ev->rt, obj, idx, out);
}

/* ---- displays ---- */

/* Evaluate elts (with *starred entries) into a new list. */
static bool
eval_elts(struct eval *ev, const struct nodelist *elts, value *list)
{
	size_t i;
	value v;
	*list = value_list(ev->rt.arena, elts->len);
	for (i = 0; i < elts->len; i++) {
		const struct node *e = elts->items[i];
		if (e->kind == NODE_STARRED) {
			if (!eval_expr(ev, e->u.starred.value, &v))
				return false;
			if (!value_list_extend(&ev->rt, *list, v))
				return fail_at(ev, e);
			continue;
		}
		if (!eval_operand(ev, e, &v))
			return false;
		value_list_append(ev->rt.arena, *list, v);
	}
	return true;
}

static value
list_to_tuple(struct arena *a, value list)
{
	value t = value_tuple(a, list.as.list->len);
	if (list.as.list->len != 0)
		memcpy(t.as.tuple->items, list.as.list->items,
		    list.as.list->len * sizeof(value));
	return t;
}

static bool
eval_dict(struct eval *ev, const struct node *n, value *out)
{
	size_t i;
	value k, v;
	*out = value_dict(ev->rt.arena);
	for (i = 0; i < n->u.dict.keys.len; i++) {
		const struct node *kn = n->u.dict.keys.items[i];
		if (!eval_expr(ev, n->u.dict.values.items[i], &v))
			return false;
		if (kn == NULL) {	/* {**mapping} */
			size_t j;
			if (v.type != VT_DICT) {
				rt_raise(&ev->rt, PYEXC_TypeError,
				    "'%s' object is not a mapping",
				    value_type_name(v));
				return fail_at(ev, n->u.dict.values.items[i]);
			}
			for (j = 0; j < v.as.dict->used; j++) {
				struct ventry *e = &v.as.dict->entries[j];
				if (e->live && !value_dict_set(&ev->rt, *out,
				    e->key, e->val))
					return fail_at(ev, n);
			}
			continue;
		}
		if (!eval_expr(ev, kn, &k))
			return false;
		if (!value_dict_set(&ev->rt, *out, k, v))
			return fail_at(ev, kn);
	}
	return true;
}

/* ---- operators ---- */

/*
 * A chain a+b+c+... parses as BinOp(BinOp(BinOp(a,b),c),...).  Walk down
 * the left spine collecting the BinOps, evaluate the leftmost operand, then
 * apply the operators upwards: constant stack, whatever the length.  The
 * spine is kept in segments, the first on the C stack and the others in
 * the arena, linked backwards: one walk down the tree, no copies, and a
 * megabyte of "1+1+..." takes 4 MiB for it, not 8 MiB of doublings.
 */
#define SPINE_SEGMENT 64

struct spine_segment {
	struct spine_segment	*prev;
	size_t			 len;
	const struct node	*items[SPINE_SEGMENT];
};

static bool
eval_binop_chain(struct eval *ev, const struct node *n, value *out)
{
	struct spine_segment first, *seg = &first;
	const struct node *p;
	value acc, right;

	first.prev = NULL;
	first.len = 0;
	for (p = n; p->kind == NODE_BINOP; p = p->u.binop.left) {
		if (seg->len == SPINE_SEGMENT) {
			struct spine_segment *next = arena_alloc(ev->rt.arena,
			    sizeof *next);
			next->prev = seg;
			seg = next;
		}
		seg->items[seg->len++] = p;
	}
	if (!eval_operand(ev, p, &acc))
		return false;
	while (seg->len > 0 || seg->prev != NULL) {
		const struct node *b;
		if (seg->len == 0)
			seg = seg->prev;
		b = seg->items[--seg->len];
		if (!rt_step(&ev->rt))
			return fail_at(ev, b);
		if (!eval_operand(ev, b->u.binop.right, &right))
			return false;
		if (!value_binop(&ev->rt, b->u.binop.op, acc, right, &acc))
			return fail_at(ev, b);
	}
	*out = acc;
	return true;
}

static bool
eval_compare(struct eval *ev, const struct node *n, value *out)
{
	value left, right, r;
	size_t i;
	bool b;

	if (!eval_expr(ev, n->u.compare.left, &left))
		return false;
	for (i = 0; i < n->u.compare.comparators.len; i++) {
		enum cmpop op = n->u.compare.ops[i];
		if (!eval_expr(ev, n->u.compare.comparators.items[i], &right))
			return false;
		if (!value_compare(&ev->rt, op, left, right, &r))
			return fail_at(ev, n);
		if (i + 1 < n->u.compare.comparators.len) {
			if (!value_truthy(&ev->rt, r, &b))
				return fail_at(ev, n);
			if (!b) {
				*out = r;
				return true;
			}
		}
		left = right;
		*out = r;
	}
	return true;
}

/* ---- lambdas ---- */

static bool assign_to(struct eval *ev, const struct node *t, value v);

static bool
make_lambda(struct eval *ev, const struct node *n, value *out)
{
	const struct node *args = n->u.lambda.args;
	struct vfunction *f = arena_alloc(ev->rt.arena, sizeof *f);
	size_t i;

	f->head.slots = ev->model->function_slots;
	f->lambda = n;
	f->closure = ev->scope;
	f->name = "<lambda>";
	f->defaults = arena_array(ev->rt.arena, args->u.arguments.defaults.len,
	    sizeof(value));
	for (i = 0; i < args->u.arguments.defaults.len; i++)
		if (!eval_expr(ev, args->u.arguments.defaults.items[i],
		    &f->defaults[i]))
			return false;
	f->kw_defaults = arena_array(ev->rt.arena,
	    args->u.arguments.kw_defaults.len, sizeof(value));
	for (i = 0; i < args->u.arguments.kw_defaults.len; i++) {
		const struct node *d = args->u.arguments.kw_defaults.items[i];
		f->kw_defaults[i].type = VT__COUNT;	/* no default */
		if (d != NULL && !eval_expr(ev, d, &f->kw_defaults[i]))
			return false;
	}
	ev->made_function = true;
	out->type = VT_FUNCTION;
	out->as.func = f;
	return true;
}

static const char *
plural(size_t n, const char *word, const char *words)
{
	return n == 1 ? word : words;
}

/*
 * Bind arguments to a lambda's parameters as CPython does, with its
 * messages: positional first, then keywords, then defaults.
 */
static bool
call_lambda(struct eval *ev, const struct vfunction *f, const value *args,
    size_t nargs, const char *const *kwnames, size_t nkw, value *out)
{
	const struct node *a = f->lambda->u.lambda.args;
	const struct nodelist *po = &a->u.arguments.posonlyargs;
	const struct nodelist *pa = &a->u.arguments.args;
	const struct nodelist *ko = &a->u.arguments.kwonlyargs;
	size_t npos = po->len + pa->len, i, k;
	struct scope *sc = scope_new(ev, f->closure), *saved;
	bool *bound;
	value kwdict = value_none(), rest;
	bool ok;

	bound = arena_array(ev->rt.arena, npos + ko->len + 1, sizeof *bound);
	/* positional */
	for (i = 0; i < nargs && i < npos; i++) {
		const struct node *p = i < po->len ? po->items[i] :
		    pa->items[i - po->len];
		scope_set(ev, sc, p->u.arg.arg, args[i]);
		bound[i] = true;
	}
	if (nargs > npos) {
		if (a->u.arguments.vararg == NULL)
			return rt_raise(&ev->rt, PYEXC_TypeError,
			    "%s() takes %zu positional %s but %zu %s given",
			    f->name, npos,
			    plural(npos, "argument", "arguments"), nargs,
			    nargs == 1 ? "was" : "were");
	}
	if (a->u.arguments.vararg != NULL) {
		size_t extra = nargs > npos ? nargs - npos : 0;
		rest = value_tuple(ev->rt.arena, extra);
		for (i = 0; i < extra; i++)
			rest.as.tuple->items[i] = args[npos + i];
		scope_set(ev, sc, a->u.arguments.vararg->u.arg.arg, rest);
	}
	if (a->u.arguments.kwarg != NULL) {
		kwdict = value_dict(ev->rt.arena);
		scope_set(ev, sc, a->u.arguments.kwarg->u.arg.arg, kwdict);
	}
	/* keywords */
	for (k = 0; k < nkw; k++) {
		const char *name = kwnames[k];
		value v = args[nargs + k];
		bool found = false;
		for (i = 0; i < npos + ko->len && !found; i++) {
			const struct node *p = i < po->len ? po->items[i] :
			    i < npos ? pa->items[i - po->len] :
			    ko->items[i - npos];
			if (strcmp(p->u.arg.arg, name) != 0)
				continue;
			found = true;
			if (i < po->len) {
				if (a->u.arguments.kwarg != NULL) {
					found = false;
					break;
				}
				return rt_raise(&ev->rt, PYEXC_TypeError,
				    "%s() got some positional-only arguments "
				    "passed as "
				    "keyword arguments: '%s'", f->name, name);
			}
			if (bound[i])
				return rt_raise(&ev->rt, PYEXC_TypeError,
				    "%s() got multiple values for argument '%s'",
				    
				    f->name, name);
			scope_set(ev, sc, p->u.arg.arg, v);
			bound[i] = true;
		}
		if (found)
			continue;
		if (a->u.arguments.kwarg == NULL)
			return rt_raise(&ev->rt, PYEXC_TypeError, "%s() got an "
			    "unexpected keyword argument '%s'", f->name, name);
		if (!value_dict_set(&ev->rt, kwdict,
		    value_cstr(ev->rt.arena, name), v))
			return false;
	}
	/* defaults, and what is still missing */
	{
		size_t nd = a->u.arguments.defaults.len, missing = 0;
		struct sbuf names = SBUF_INIT;
		for (i = 0; i < npos; i++) {
			const struct node *p = i < po->len ? po->items[i] :
			    pa->items[i - po->len];
			if (bound[i])
				continue;
			if (i >= npos - nd) {
				scope_set(ev, sc, p->u.arg.arg,
				    f->defaults[i - (npos - nd)]);
				continue;
			}
			if (missing++)
				sbuf_adds(&names, ", ");
			sbuf_addf(&names, "'%s'", p->u.arg.arg);
		}
		if (missing) {
			rt_raise(&ev->rt, PYEXC_TypeError,
			    "%s() missing %zu required positional %s: %s",
			    f->name, missing,
			    plural(missing, "argument", "arguments"),
			    sbuf_cstr(&names));
			sbuf_free(&names);
			return false;
		}
		for (i = 0; i < ko->len; i++) {
			if (bound[npos + i])
				continue;
			if (f->kw_defaults[i].type != VT__COUNT) {
				scope_set(ev, sc, ko->items[i]->u.arg.arg,
				    f->kw_defaults[i]);
				continue;
			}
			if (missing++)
				sbuf_adds(&names, ", ");
			sbuf_addf(&names, "'%s'", ko->items[i]->u.arg.arg);
		}
		if (missing) {
			rt_raise(&ev->rt, PYEXC_TypeError,
			    "%s() missing %zu required keyword-only %s: %s",
			    f->name, missing,
			    plural(missing, "argument", "arguments"),
			    sbuf_cstr(&names));
			sbuf_free(&names);
			return false;
		}
		sbuf_free(&names);
	}
	saved = ev->scope;
	ev->scope = sc;
	ok = eval_expr(ev, f->lambda->u.lambda.body, out);
	ev->scope = saved;
	return ok;
}

/* ---- comprehensions ---- */

struct comp {
	struct eval		*ev;
	const struct node	*n;	/* the comprehension node */
	size_t			 gen;	/* the generator being iterated */
	value			 acc;	/* list, set or dict being built */
};

static bool comp_run(struct comp *c, size_t gen);

static bool
comp_item(struct rt *rt, value item, void *ctx)
{
	struct comp *c = ctx;
	struct eval *ev = c->ev;
	const struct node *g = c->n->u.comp.generators.items[c->gen];
	size_t i, saved = c->gen;
	bool b;
	value v;

	(void)rt;
	if (!rt_step(&ev->rt))
		return false;
	if (!assign_to(ev, g->u.comprehension.target, item))
		return false;
	for (i = 0; i < g->u.comprehension.ifs.len; i++) {
		if (!eval_expr(ev, g->u.comprehension.ifs.items[i], &v))
			return false;
		if (!value_truthy(&ev->rt, v, &b))
			return false;
		if (!b)
			return true;
	}
	if (c->gen + 1 < c->n->u.comp.generators.len) {
		bool ok = comp_run(c, c->gen + 1);
		c->gen = saved;
		return ok;
	}
	if (!eval_expr(ev, c->n->u.comp.elt, &v))
		return false;
	switch (c->n->kind) {
	case NODE_SETCOMP:
		return value_set_add(&ev->rt, c->acc, v);
	case NODE_DICTCOMP: {
		value val;
		if (!eval_expr(ev, c->n->u.comp.value, &val))
			return false;
		return value_dict_set(&ev->rt, c->acc, v, val);
	}
	default:
		if (!rt_check_seq_len(&ev->rt, c->acc.as.list->len + 1))
			return false;
		value_list_append(ev->rt.arena, c->acc, v);
		return true;
	}
}

static bool
comp_run(struct comp *c, size_t gen)
{
	struct eval *ev = c->ev;
	const struct node *g = c->n->u.comp.generators.items[gen];
	value it;

	c->gen = gen;
	if (!eval_expr(ev, g->u.comprehension.iter, &it))
		return false;
	return value_iterate(&ev->rt, it, comp_item, c);
}

/*
 * A comprehension runs in a scope of its own (its targets do not leak).
 * The first iterable is evaluated in the enclosing scope, as in Python.
 * Generator expressions are evaluated eagerly into a list here; the caps
 * bound how much that can cost.
 */
static bool
eval_comprehension(struct eval *ev, const struct node *n, value *out)
{
	struct comp c = { .ev = ev, .n = n };
	struct scope *saved = ev->scope;
	const struct node *g0 = n->u.comp.generators.items[0];
	value first;
	bool ok;

	switch (n->kind) {
	case NODE_SETCOMP: c.acc = value_set(ev->rt.arena); break;
	case NODE_DICTCOMP: c.acc = value_dict(ev->rt.arena); break;
	default: c.acc = value_list(ev->rt.arena, 0); break;
	}
	if (!eval_expr(ev, g0->u.comprehension.iter, &first))
		return false;
	ev->scope = scope_new(ev, saved);
	ev->scope->comprehension = true;
	{
		/* Iterate the pre-evaluated first iterable. */
		c.gen = 0;
		ok = value_iterate(&ev->rt, first, comp_item, &c);
	}
	ev->scope = saved;
	if (!ok) {
		if (ev->exc_node == NULL)
			fail_at(ev, n);
		return false;
	}
	*out = c.acc;
	if (n->kind == NODE_GENERATOREXP)
		return ev->model->generator(ev, c.acc, out);
	return true;
}

/* ---- f-strings ---- */

static bool
eval_joinedstr(struct eval *ev, const struct node *n, value *out)
{
	struct sbuf b = SBUF_INIT;
	size_t i;
	bool ok = true;

	for (i = 0; ok && i < n->u.joinedstr.values.len; i++) {
		const struct node *part = n->u.joinedstr.values.items[i];
		value v, spec;
		struct sbuf conv = SBUF_INIT;
		if (part->kind == NODE_CONSTANT) {
			sbuf_add(&b, part->u.constant.value.as.s->data,
			    part->u.constant.value.as.s->len);
			continue;
		}
		if (!eval_expr(ev, part->u.formatted.value, &v)) {
			ok = false;
			break;
		}
		switch (part->u.formatted.conversion) {
		case 'r': case 'a':
			ok = value_repr(&ev->rt, v, &conv);
			if (ok)
				v = value_str(ev->rt.arena, sbuf_cstr(&conv),
				    conv.len);
			break;
		case 's':
			ok = value_str_of(&ev->rt, v, &conv);
			if (ok)
				v = value_str(ev->rt.arena, sbuf_cstr(&conv),
				    conv.len);
			break;
		default:
			break;
		}
		sbuf_free(&conv);
		if (!ok)
			break;
		if (part->u.formatted.format_spec != NULL) {
			if (!eval_joinedstr(ev, part->u.formatted.format_spec,
			    &spec)) {
				ok = false;
				break;
			}
			ok = format_value(&ev->rt, v, spec.as.s->data,
			    spec.as.s->len, &b) || fail_at(ev, part);
		} else
			ok = format_value(&ev->rt, v, "", 0, &b) ||
			    fail_at(ev, part);
		if (ok && !rt_check_str_bytes(&ev->rt, b.len))
			ok = fail_at(ev, n);
	}
	if (ok)
		*out = value_str(ev->rt.arena, sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	return ok;
}

/* ---- the dispatcher ---- */

static bool
not_yet(struct eval *ev, const struct node *n)
{
	rt_raise(&ev->rt, PYEXC_NotImplementedError, "%s is parsed but not "
	    "evaluated yet", ast_kind_name(n->kind));
	return fail_at(ev, n);
}

bool
eval_expr(struct eval *ev, const struct node *n, value *out)
{
	struct rt *rt = &ev->rt;
	bool ok = false, b;
	value v, w;
	size_t i;

	if (!eval_enter(ev, n))
		return false;
	rt->depth++;
	switch (n->kind) {
	case NODE_CONSTANT:
		*out = n->u.constant.value;
		ok = true;
		break;
	case NODE_NAME:
		ok = eval_lookup(ev, n->u.name.id, out) || fail_at(ev, n);
		break;
	case NODE_BINOP:
		ok = eval_binop_chain(ev, n, out);
		break;
	case NODE_UNARYOP:
		ok = eval_expr(ev, n->u.unaryop.operand, &v) &&
		    (value_unaryop(rt, n->u.unaryop.op, v, out) ||
		    fail_at(ev, n));
		break;
	case NODE_BOOLOP:
		for (i = 0; i < n->u.boolop.values.len; i++) {
			if (!eval_expr(ev, n->u.boolop.values.items[i], &v))
				goto done;
			if (!value_truthy(rt, v, &b)) {
				fail_at(ev, n);
				goto done;
			}
			if (b == (n->u.boolop.op == BOOLOP_OR))
				break;
		}
		*out = v;
		ok = true;
		break;
	case NODE_IFEXP:
		if (!eval_expr(ev, n->u.ifexp.test, &v))
			break;
		if (!value_truthy(rt, v, &b)) {
			fail_at(ev, n);
			break;
		}
		ok = eval_expr(ev, b ? n->u.ifexp.body : n->u.ifexp.orelse, out);
		break;
	case NODE_COMPARE:
		ok = eval_compare(ev, n, out);
		break;
	case NODE_CALL:
		ok = eval_call(ev, n, out);
		break;
	case NODE_LIST:
		ok = eval_elts(ev, &n->u.seq.elts, out);
		break;
	case NODE_TUPLE:
		if ((ok = eval_elts(ev, &n->u.seq.elts, &v)))
			*out = list_to_tuple(rt->arena, v);
		break;
	case NODE_SET:
		if (!eval_elts(ev, &n->u.seq.elts, &v))
			break;
		*out = value_set(rt->arena);
		ok = true;
		for (i = 0; ok && i < v.as.list->len; i++)
			ok = value_set_add(rt, *out, v.as.list->items[i]) ||
			    fail_at(ev, n);
		break;
	case NODE_DICT:
		ok = eval_dict(ev, n, out);
		break;
	case NODE_SUBSCRIPT:
		if (!eval_expr(ev, n->u.subscript.value, &v))
			break;
		if (!eval_expr(ev, n->u.subscript.slice, &w))
			break;
		ok = getitem(ev, v, w, out) || fail_at(ev, n);
		break;
	case NODE_SLICE: {
		struct vslice *sl = arena_alloc(rt->arena, sizeof *sl);
		const struct node *parts[3] = { n->u.slice.lower,
		    n->u.slice.upper, n->u.slice.step };
		value *dst[3] = { &sl->start, &sl->stop, &sl->step };
		ok = true;
		for (i = 0; ok && i < 3; i++) {
			*dst[i] = value_none();
			if (parts[i] != NULL)
				ok = eval_expr(ev, parts[i], dst[i]);
		}
		out->type = VT_SLICE;
		out->as.slice = sl;
		break;
	}
	case NODE_ATTRIBUTE:
		if (!eval_expr(ev, n->u.attribute.value, &v))
			break;
		ok = ev->model->getattr(ev, v, n->u.attribute.attr, out) ||
		    fail_at(ev, n);
		break;
	case NODE_NAMEDEXPR:
		if (!eval_expr(ev, n->u.namedexpr.value, out))
			break;
		{
			/* PEP 572: the target belongs to the scope around any
			 * comprehensions, as in CPython */
			struct scope *saved = ev->scope;
			while (ev->scope != NULL && ev->scope->comprehension)
				ev->scope = ev->scope->parent;
			bind_name(ev, n->u.namedexpr.target->u.name.id, *out);
			ev->scope = saved;
		}
		ok = true;
		break;
	case NODE_LAMBDA:
		ok = make_lambda(ev, n, out);
		break;
	case NODE_LISTCOMP: case NODE_SETCOMP: case NODE_DICTCOMP:
	case NODE_GENERATOREXP:
		ok = eval_comprehension(ev, n, out);
		break;
	case NODE_JOINEDSTR:
		ok = eval_joinedstr(ev, n, out);
		break;
	case NODE_STARRED:
		rt_raise(rt, PYEXC_SyntaxError,
		    "can't use starred expression here");
		fail_at(ev, n);
		break;
	default:
		not_yet(ev, n);
		break;
	}
done:
	rt->depth--;
	return ok;
}

/* ---- statements ---- */

struct unpack {
	value	*items;
	size_t	 n, cap;
	struct arena *arena;
};

static bool
unpack_item(struct rt *rt, value v, void *ctx)
{
	struct unpack *u = ctx;
	if (u->n == u->cap) {
		size_t ncap = u->cap ? u->cap * 2 : 8;
		if (!rt_check_seq_len(rt, ncap))
			return false;
		u->items = arena_grow(u->arena, u->items, u->n, ncap,
		    sizeof *u->items);
		u->cap = ncap;
	}
	u->items[u->n++] = v;
	return true;
}

/*
 * obj[key] = v: lists (an index, or a slice of step 1 replaced by any
 * iterable) and dicts; everything else as CPython refuses it.  The change
 * is made in place, so the session copies the names again afterwards.
 */
static bool
setitem(struct eval *ev, const struct node *t, value obj, value key, value v)
{
	struct rt *rt = &ev->rt;

	if (obj.type == VT_DICT) {
		ev->mutated = true;
		return value_dict_set(rt, obj, key, v) || fail_at(ev, t);
	}
	if (obj.type != VT_LIST) {
		rt_raise(rt, PYEXC_TypeError,
		    "'%s' object does not support item assignment",
		    value_type_name(obj));
		return fail_at(ev, t);
	}
	if (key.type == VT_SLICE) {
		struct vlist *l = obj.as.list;
		value items;
		int64_t len = (int64_t)l->len, lo, hi, step = 1;
		const struct vslice *sl = key.as.slice;
		size_t n, i;
		if (sl->step.type != VT_NONE && !(sl->step.type == VT_INT &&
		    sl->step.as.i == 1)) {
			rt_raise(rt, PYEXC_NotImplementedError,
			    "assignment to an extended slice");
			return fail_at(ev, t);
		}
		lo = sl->start.type == VT_INT ? sl->start.as.i :
		    sl->start.type == VT_NONE ? 0 : -1;
		hi = sl->stop.type == VT_INT ? sl->stop.as.i :
		    sl->stop.type == VT_NONE ? len : -1;
		if ((sl->start.type != VT_INT && sl->start.type != VT_NONE) ||
		    (sl->stop.type != VT_INT && sl->stop.type != VT_NONE)) {
			rt_raise(rt, PYEXC_TypeError, "slice indices must be "
			    "integers or None or have an __index__ method");
			return fail_at(ev, t);
		}
		if (lo < 0 && (lo += len) < 0) lo = 0;
		if (lo > len) lo = len;
		if (hi < 0 && (hi += len) < 0) hi = 0;
		if (hi > len) hi = len;
		if (hi < lo) hi = lo;
		(void)step;
		if (!value_is_iterable(v)) {
			rt_raise(rt, PYEXC_TypeError, "can only assign an "
			    "iterable");
			return fail_at(ev, t);
		}
		if (!value_collect(rt, v, &items))
			return fail_at(ev, t);
		n = items.as.list->len;
		if (!rt_check_seq_len(rt, l->len - (size_t)(hi - lo) + n))
			return fail_at(ev, t);
		{
			size_t newlen = l->len - (size_t)(hi - lo) + n;
			value *a = arena_array(rt->arena, newlen + 1,
			    sizeof *a);
			memcpy(a, l->items, (size_t)lo * sizeof *a);
			for (i = 0; i < n; i++)
				a[lo + (int64_t)i] = items.as.list->items[i];
			memcpy(a + lo + n, l->items + hi,
			    (l->len - (size_t)hi) * sizeof *a);
			l->items = a;
			l->len = l->cap = newlen;
		}
		ev->mutated = true;
		return true;
	}
	if (key.type != VT_INT && key.type != VT_BOOL) {
		rt_raise(rt, PYEXC_TypeError,
		    "list indices must be integers or slices, not %s",
		    value_type_name(key));
		return fail_at(ev, t);
	}
	{
		int64_t i = key.type == VT_BOOL ? key.as.b : key.as.i;
		int64_t len = (int64_t)obj.as.list->len;
		if (i < 0)
			i += len;
		if (i < 0 || i >= len) {
			rt_raise(rt, PYEXC_IndexError,
			    "list assignment index out of range");
			return fail_at(ev, t);
		}
		obj.as.list->items[i] = v;
	}
	ev->mutated = true;
	return true;
}

static bool
assign_to(struct eval *ev, const struct node *t, value v)
{
	switch (t->kind) {
	case NODE_NAME:
		bind_name(ev, t->u.name.id, v);
		return true;
	case NODE_TUPLE: case NODE_LIST: {
		struct unpack u = { .arena = ev->rt.arena };
		const struct nodelist *elts = &t->u.seq.elts;
		size_t i, star = elts->len, nafter;
		if (!value_is_iterable(v)) {
			rt_raise(&ev->rt, PYEXC_TypeError, "cannot unpack "
			    "non-iterable %s object", value_type_name(v));
			return fail_at(ev, t);
		}
		if (!value_iterate(&ev->rt, v, unpack_item, &u))
			return fail_at(ev, t);
		for (i = 0; i < elts->len; i++)
			if (elts->items[i]->kind == NODE_STARRED)
				star = i;
		if (star == elts->len) {
			if (u.n != elts->len) {
				if (u.n > elts->len)
					rt_raise(&ev->rt, PYEXC_ValueError,
					    "too many values to unpack "
					    "(expected "
					    "%zu)", elts->len);
				else
					rt_raise(&ev->rt, PYEXC_ValueError,
					    "not enough values to unpack "
					    "(expected "
					    "%zu, got %zu)", elts->len, u.n);
				return fail_at(ev, t);
			}
			for (i = 0; i < u.n; i++)
				if (!assign_to(ev, elts->items[i], u.items[i]))
					return false;
			return true;
		}
		nafter = elts->len - star - 1;
		if (u.n < elts->len - 1) {
			rt_raise(&ev->rt, PYEXC_ValueError,
			    "not enough values to unpack (expected at least "
			    "%zu, got %zu)",
			    elts->len - 1, u.n);
			return fail_at(ev, t);
		}
		for (i = 0; i < star; i++)
			if (!assign_to(ev, elts->items[i], u.items[i]))
				return false;
		{
			value rest = value_list(ev->rt.arena, 0);
			for (i = star; i < u.n - nafter; i++)
				value_list_append(ev->rt.arena, rest, u.items[i]);
			if (!assign_to(ev, elts->items[star]->u.starred.value,
			    rest))
				return false;
		}
		for (i = 0; i < nafter; i++)
			if (!assign_to(ev, elts->items[star + 1 + i],
			    u.items[u.n - nafter + i]))
				return false;
		return true;
	}
	case NODE_SUBSCRIPT: {
		value obj, key;
		if (!eval_expr(ev, t->u.subscript.value, &obj) ||
		    !eval_expr(ev, t->u.subscript.slice, &key))
			return false;
		return setitem(ev, t, obj, key, v);
	}
	case NODE_ATTRIBUTE: {
		value obj;
		if (!eval_expr(ev, t->u.attribute.value, &obj))
			return false;
		if (obj.type == VT_OBJECT && obj.as.obj->kind == MK_INSTANCE &&
		    obj.as.obj->data.type == VT_DICT) {
			ev->mutated = true;
			return value_dict_set(&ev->rt, obj.as.obj->data,
			    value_cstr(ev->rt.arena, t->u.attribute.attr), v) ||
			    fail_at(ev, t);
		}
		if (obj.type == VT_OBJECT && obj.as.obj->kind == MK_TYPE)
			rt_raise(&ev->rt, PYEXC_TypeError, "cannot set '%s' "
			    "attribute of immutable type '%s'",
			    t->u.attribute.attr, obj.as.obj->name);
		else
			rt_raise(&ev->rt, PYEXC_AttributeError,
			    "'%s' object has no attribute '%s'",
			    value_type_name(obj),
			    t->u.attribute.attr);
		return fail_at(ev, t);
	}
	default:
		rt_raise(&ev->rt, PYEXC_SyntaxError, "cannot assign to %s",
		    ast_kind_name(t->kind));
		return fail_at(ev, t);
	}
}


/*
 * x op= v.  A list, set or dict changes in place, as CPython's __iadd__,
 * __imul__, __ior__... do, so every name bound to it sees the change
 * (y = x; x += [1] changes y; x += [x] makes x hold itself).  Anything
 * else is x op v, bound again.
 */
static bool
inplace_binop(struct eval *ev, enum binop op, value cur, value v, value *out)
{
	value res;
	*out = cur;
	if (cur.type == VT_LIST && op == BINOP_ADD) {
		/* list += any iterable: list.extend */
		value ext, ignored;
		bool found;
		if (!methods_getattr(ev, cur, "extend", &ext, &found) || !found)
			return false;
		return eval_call_value(ev, ext, &v, 1, NULL, 0, &ignored);
	}
	if (!value_binop(&ev->rt, op, cur, v, &res))
		return false;
	if ((cur.type == VT_LIST && op == BINOP_MULT &&
	    res.type == VT_LIST) ||
	    ((cur.type == VT_SET || cur.type == VT_DICT) &&
	    res.type == cur.type && (op == BINOP_BITOR || (cur.type == VT_SET &&
	    (op == BINOP_BITAND || op == BINOP_SUB || op == BINOP_BITXOR))))) {
		if (cur.type == VT_LIST)
			*cur.as.list = *res.as.list;
		else
			*cur.as.dict = *res.as.dict;
		ev->mutated = true;
		return true;
	}
	*out = res;
	return true;
}

static bool
eval_stmt(struct eval *ev, const struct node *s, value *out, bool *has_value)
{
	value v, cur;
	size_t i;

	switch (s->kind) {
	case NODE_EXPR:
		if (!eval_expr(ev, s->u.expr.value, out))
			return false;
		*has_value = true;
		return true;
	case NODE_ASSIGN:
		if (!eval_expr(ev, s->u.assign.value, &v))
			return false;
		for (i = 0; i < s->u.assign.targets.len; i++)
			if (!assign_to(ev, s->u.assign.targets.items[i], v))
				return false;
		return true;
	case NODE_AUGASSIGN: {
		/* x op= v: the target is read once and written once (a
		 * subscript's container and key are evaluated once) */
		const struct node *t = s->u.augassign.target;
		value obj, key;
		if (t->kind == NODE_SUBSCRIPT) {
			if (!eval_expr(ev, t->u.subscript.value, &obj) ||
			    !eval_expr(ev, t->u.subscript.slice, &key))
				return false;
			if (!getitem(ev, obj, key, &cur))
				return fail_at(ev, t);
		} else if (!eval_expr(ev, t, &cur))
			return false;
		if (!eval_expr(ev, s->u.augassign.value, &v))
			return false;
		if (!inplace_binop(ev, s->u.augassign.op, cur, v, &cur))
			return fail_at(ev, s);
		if (t->kind == NODE_SUBSCRIPT)
			return setitem(ev, t, obj, key, cur);
		return assign_to(ev, t, cur);
	}
	case NODE_IMPORT:
		for (i = 0; i < s->u.import.names.len; i++) {
			const struct node *al = s->u.import.names.items[i];
			const char *bind = al->u.alias.asname;
			char *top;
			if (!ev->model->import(ev, al->u.alias.name, &v))
				return fail_at(ev, s);
			if (bind == NULL) {
				/* "import a.b" binds a */
				top = arena_strdup(ev->rt.arena,
				    al->u.alias.name);
				top[strcspn(top, ".")] = '\0';
				if (!ev->model->import(ev, top, &v))
					return fail_at(ev, s);
				bind = top;
			}
			if (ev->ns != NULL)
				ns_set_pending(ev->ns, bind, v);
		}
		return true;
	case NODE_IMPORTFROM: {
		value mod;
		if (s->u.importfrom.module == NULL ||
		    s->u.importfrom.level != 0) {
			rt_raise(&ev->rt, PYEXC_ImportError,
			    "attempted relative import with no known parent "
			    "package");
			return fail_at(ev, s);
		}
		if (!ev->model->import(ev, s->u.importfrom.module, &mod))
			return fail_at(ev, s);
		for (i = 0; i < s->u.importfrom.names.len; i++) {
			const struct node *al = s->u.importfrom.names.items[i];
			const char *bind = al->u.alias.asname ?
			    al->u.alias.asname : al->u.alias.name;
			if (!ev->model->getattr(ev, mod, al->u.alias.name, &v)) {
				rt_clear(&ev->rt);
				rt_raise(&ev->rt, PYEXC_ImportError,
				    "cannot import name '%s' from '%s'",
				    al->u.alias.name,
				    s->u.importfrom.module);
				return fail_at(ev, s);
			}
			if (ev->ns != NULL)
				ns_set_pending(ev->ns, bind, v);
		}
		return true;
	}
	default:
		return not_yet(ev, s);
	}
}

bool
eval_root(struct eval *ev, const struct node *root, value *out,
    bool *has_value)
{
	size_t i;

	*has_value = false;
	*out = value_none();
	if (root->kind == NODE_EXPRESSION) {
		*has_value = true;
		return eval_expr(ev, root->u.expression.body, out);
	}
	for (i = 0; i < root->u.module.body.len; i++) {
		*has_value = false;
		if (!eval_stmt(ev, root->u.module.body.items[i], out,
		    has_value))
			return false;
	}
	return true;
}
