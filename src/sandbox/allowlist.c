/*
 * allowlist.c -- the essay's allowlist: the AST walk, and the layer
 * (allowlist_decide) that runs it over the input's code, or over a
 * command's arguments (the dict display around them is the command's own
 * syntax, so its keys and values are checked, not it), then the name rule.
 *
 * The policy is a table of what exists (policy.h); this file only asks the
 * table.  Structural nodes (the Expression/Module roots and expression
 * statements) carry no behaviour of their own and are always allowed; every
 * other node must be listed.  A Call is allowed only when its callee is a
 * plain Name on the policy's call list: the callee itself is then not
 * walked (the name is the call), its arguments are.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "allowlist.h"
#include "base/arena.h"
#include "lang/ast.h"
#include "cmd/cmd.h"
#include "layers.h"
#include "policy.h"
#include "base/sbuf.h"

#define BIT(x) (UINT64_C(1) << (x))

/* The rule of p that n itself breaks (its children are checked when they
 * are popped); for V_CMPOP, *which is the comparison's index.  Every
 * question the checker asks of a node is asked here, for check_node()'s
 * verdict and all_allowed()'s yes or no alike. */
enum violation {
	V_NONE, V_NODE, V_BINOP, V_UNARYOP, V_BOOLOP, V_CMPOP, V_CALL, V_ATTR,
};

static inline __attribute__((always_inline)) enum violation
violation(const struct policy *p, const struct node *n, size_t *which)
{
	size_t i;

	switch (n->kind) {
	case NODE_EXPRESSION: case NODE_MODULE: case NODE_EXPR:
		return V_NONE;
	default:
		break;
	}
	if ((p->nodes & BIT(n->kind)) == 0)
		return V_NODE;
	switch (n->kind) {
	case NODE_BINOP:
		if ((p->binops & BIT(n->u.binop.op)) == 0)
			return V_BINOP;
		break;
	case NODE_UNARYOP:
		if ((p->unaryops & BIT(n->u.unaryop.op)) == 0)
			return V_UNARYOP;
		break;
	case NODE_BOOLOP:
		if ((p->boolops & BIT(n->u.boolop.op)) == 0)
			return V_BOOLOP;
		break;
	case NODE_COMPARE:
		for (i = 0; i < n->u.compare.comparators.len; i++)
			if ((p->cmpops & BIT(n->u.compare.ops[i])) == 0) {
				*which = i;
				return V_CMPOP;
			}
		break;
	case NODE_CALL: {
		const struct node *f = n->u.call.func;
		if (p->call_rule == CALLS_NAMED && (f->kind != NODE_NAME ||
		    !policy_allows_call(p, f->u.name.id)))
			return V_CALL;
		break;
	}
	case NODE_ATTRIBUTE:
		if (p->attr_rule == ATTRS_PUBLIC &&
		    n->u.attribute.attr[0] == '_')
			return V_ATTR;
		break;
	default:
		break;
	}
	return V_NONE;
}

static inline bool name_allowed(const struct policy *p, const char *id);
static unsigned name_flags(const char *name);
enum { NAME_CMD = 1, NAME_BUILTIN = 2 };

/* The walk's stack: on the C stack for the usual small tree, in the
 * arena beyond that. */
#define STACK_INLINE 64

struct stack {
	const struct node	**items;
	size_t			  len, cap;
	struct arena		 *arena;
	/* set for all_allowed(): leaves are checked as they are pushed */
	const struct policy	 *leaf_policy;
	bool			  leaf_names;	/* and a Name by the name
						   rule too */
	bool			  leaf_blocked;
	const struct node	 *inl[STACK_INLINE];
};


static void
stack_init(struct stack *s, struct arena *a)
{
	s->items = s->inl;
	s->len = 0;
	s->cap = STACK_INLINE;
	s->arena = a;
	s->leaf_policy = NULL;
	s->leaf_names = false;
	s->leaf_blocked = false;
}

static void
grow(struct stack *s)
{
	size_t ncap = s->cap * 2;
	s->items = arena_grow(s->arena, s->items, s->len, ncap,
	    sizeof *s->items);
	s->cap = ncap;
}

/* (inline: push_children() pushes every child of every node) */
static inline void
push(struct stack *s, const struct node *n)
{
	if (n == NULL)
		return;
	if (s->leaf_policy != NULL && (n->kind == NODE_CONSTANT ||
	    n->kind == NODE_NAME)) {
		size_t i;
		if (violation(s->leaf_policy, n, &i) != V_NONE ||
		    (s->leaf_names && n->kind == NODE_NAME &&
		    !name_allowed(s->leaf_policy, n->u.name.id)))
			s->leaf_blocked = true;
		return;
	}
	if (s->len == s->cap)
		grow(s);
	s->items[s->len++] = n;
}

/* push() for all_allowed()'s own cases: a leaf is checked against p
 * instead of being pushed; false when it is not allowed. */
static inline bool
push_checked(struct stack *s, const struct policy *p, const struct node *n)
{
	size_t i;

	if (n == NULL)
		return true;
	if (n->kind == NODE_CONSTANT || n->kind == NODE_NAME)
		return violation(p, n, &i) == V_NONE && (!s->leaf_names ||
		    n->kind != NODE_NAME || name_allowed(p, n->u.name.id));
	if (s->len == s->cap)
		grow(s);
	s->items[s->len++] = n;
	return true;
}

/* Push a list so that its first item is popped first. */
static void
push_list(struct stack *s, const struct nodelist *l)
{
	size_t i;
	for (i = l->len; i > 0; i--)
		push(s, l->items[i - 1]);
}

/* Push the children of n in reverse order, so pre-order pops them in
 * source order.  The callee of an allowed call is left out. */
static void
push_children(struct stack *s, const struct node *n)
{
	switch (n->kind) {
	case NODE_EXPRESSION: push(s, n->u.expression.body); break;
	case NODE_MODULE: push_list(s, &n->u.module.body); break;
	case NODE_EXPR: push(s, n->u.expr.value); break;
	case NODE_ASSIGN:
		push(s, n->u.assign.value);
		push_list(s, &n->u.assign.targets);
		break;
	case NODE_AUGASSIGN:
		push(s, n->u.augassign.value);
		push(s, n->u.augassign.target);
		break;
	case NODE_IMPORT: push_list(s, &n->u.import.names); break;
	case NODE_IMPORTFROM: push_list(s, &n->u.importfrom.names); break;
	case NODE_BOOLOP: push_list(s, &n->u.boolop.values); break;
	case NODE_NAMEDEXPR:
		push(s, n->u.namedexpr.value);
		push(s, n->u.namedexpr.target);
		break;
	case NODE_BINOP:
		push(s, n->u.binop.right);
		push(s, n->u.binop.left);
		break;
	case NODE_UNARYOP: push(s, n->u.unaryop.operand); break;
	case NODE_LAMBDA:
		push(s, n->u.lambda.body);
		push(s, n->u.lambda.args);
		break;
	case NODE_IFEXP:
		push(s, n->u.ifexp.orelse);
		push(s, n->u.ifexp.body);
		push(s, n->u.ifexp.test);
		break;
	case NODE_DICT: {
		size_t i;
		for (i = n->u.dict.keys.len; i > 0; i--) {
			push(s, n->u.dict.values.items[i - 1]);
			push(s, n->u.dict.keys.items[i - 1]);
		}
		break;
	}
	case NODE_SET: case NODE_LIST: case NODE_TUPLE:
		push_list(s, &n->u.seq.elts);
		break;
	case NODE_LISTCOMP: case NODE_SETCOMP: case NODE_GENERATOREXP:
	case NODE_DICTCOMP:
		push_list(s, &n->u.comp.generators);
		push(s, n->u.comp.value);
		push(s, n->u.comp.elt);
		break;
	case NODE_COMPARE:
		push_list(s, &n->u.compare.comparators);
		push(s, n->u.compare.left);
		break;
	case NODE_CALL:
		push_list(s, &n->u.call.keywords);
		push_list(s, &n->u.call.args);
		/* The callee of a call that names its function is the call
		 * itself (checked with the Call); any other callee is an
		 * expression and is walked like one. */
		if (n->u.call.func->kind != NODE_NAME)
			push(s, n->u.call.func);
		break;
	case NODE_FORMATTEDVALUE:
		push(s, n->u.formatted.format_spec);
		push(s, n->u.formatted.value);
		break;
	case NODE_JOINEDSTR: push_list(s, &n->u.joinedstr.values); break;
	case NODE_ATTRIBUTE: push(s, n->u.attribute.value); break;
	case NODE_SUBSCRIPT:
		push(s, n->u.subscript.slice);
		push(s, n->u.subscript.value);
		break;
	case NODE_STARRED: push(s, n->u.starred.value); break;
	case NODE_SLICE:
		push(s, n->u.slice.step);
		push(s, n->u.slice.upper);
		push(s, n->u.slice.lower);
		break;
	case NODE_COMPREHENSION:
		push_list(s, &n->u.comprehension.ifs);
		push(s, n->u.comprehension.iter);
		push(s, n->u.comprehension.target);
		break;
	case NODE_ARGUMENTS:
		push(s, n->u.arguments.kwarg);
		push_list(s, &n->u.arguments.kw_defaults);
		push_list(s, &n->u.arguments.kwonlyargs);
		push(s, n->u.arguments.vararg);
		push_list(s, &n->u.arguments.defaults);
		push_list(s, &n->u.arguments.args);
		push_list(s, &n->u.arguments.posonlyargs);
		break;
	case NODE_KEYWORD: push(s, n->u.keyword.value); break;
	case NODE_CONSTANT: case NODE_NAME: case NODE_ARG: case NODE_ALIAS:
	case NODE__COUNT:
		break;
	}
}

static bool
block(struct check_result *out, const struct node *n, const char *rule,
    const char *reason, const char *essay)
{
	out->node = n;
	out->rule = rule;
	out->reason = reason;
	out->essay = essay;
	return false;
}

/* The symbols of the operators a mask allows: "+ - * / % ** //". */
static const char *
allowed_ops(struct arena *a, uint32_t mask, size_t count,
    const char *(*symbol)(unsigned), const char *prefix)
{
	struct sbuf b = SBUF_INIT;
	const char *s;
	size_t i;

	for (i = 0; i < count; i++)
		if (mask & (UINT32_C(1) << i))
			sbuf_addf(&b, "%s%s", b.len ? " " : "",
			    symbol((unsigned)i));
	s = b.len ? arena_printf(a, "allowed: %s%s", prefix, sbuf_cstr(&b)) :
	    "no operator of this kind is allowed";
	sbuf_free(&b);
	return s;
}

static const char *binop_sym(unsigned i) { return ast_binop_symbol((enum binop)i); }
static const char *unaryop_sym(unsigned i) { return ast_unaryop_symbol((enum unaryop)i); }
static const char *cmpop_sym(unsigned i) { return ast_cmpop_symbol((enum cmpop)i); }
static const char *boolop_sym(unsigned i) { return ast_boolop_name((enum boolop)i); }

/* "is not one of sum, len, min, max, round, abs", or that none is. */
static const char *
not_one_of(const struct policy *p, struct arena *a)
{
	if (p->calls == NULL || p->calls[0] == NULL)
		return "is not allowed: this policy allows no calls";
	return arena_printf(a, "is not one of %s",
	    policy_list_words(a, p->calls, 12));
}

/* The first call in the subtree at n whose callee is a plain name the
 * policy refuses (pre-order), or NULL. */
static const struct node *
named_refused_call(const struct policy *p, const struct node *n,
    struct arena *a)
{
	struct stack s;

	stack_init(&s, a);
	push(&s, n);
	while (s.len > 0) {
		const struct node *c = s.items[--s.len];
		if (c->kind == NODE_CALL && c->u.call.func->kind == NODE_NAME &&
		    !policy_allows_call(p, c->u.call.func->u.name.id))
			return c;
		push_children(&s, c);
	}
	return NULL;
}

/* The full sentence for a call the policy refuses: the name a student
 * points at (for a callee that is not a plain name, the refused named
 * call inside it, else the method), and the calls it allows. */
static const char *
call_reason(const struct policy *p, const struct node *n, struct arena *a)
{
	const struct node *f = n->u.call.func, *inner;

	if (f->kind == NODE_NAME)
		return arena_printf(a, "%s %s", f->u.name.id, not_one_of(p, a));
	inner = named_refused_call(p, f, a);
	if (inner != NULL)
		return arena_printf(a, "%s %s",
		    inner->u.call.func->u.name.id, not_one_of(p, a));
	if (f->kind == NODE_ATTRIBUTE)
		return arena_printf(a, "the method .%s() %s",
		    f->u.attribute.attr, not_one_of(p, a));
	return arena_printf(a, "a call of %s %s", ast_kind_words(f->kind),
	    not_one_of(p, a));
}

/* Is n itself allowed?  If not, the verdict: the rule and the reason. */
static bool
check_node(const struct policy *p, const struct node *n, struct arena *a,
    struct check_result *out)
{
	size_t i = 0;

	switch (violation(p, n, &i)) {
	case V_NONE:
		return true;
	case V_NODE:
		return block(out, n, "nodes", n->kind == NODE_ATTRIBUTE ?
		    arena_printf(a, "attribute access (.%s) is not allowed",
		    n->u.attribute.attr) : arena_printf(a, "%s is not allowed",
		    ast_kind_words(n->kind)), arena_printf(a,
		    "disallowed node type '%s'", ast_kind_name(n->kind)));
	case V_BINOP:
		return block(out, n, "operators", arena_printf(a,
		    "the operator %s is not allowed (%s)",
		    ast_binop_symbol(n->u.binop.op), allowed_ops(a, p->binops,
		    BINOP__COUNT, binop_sym, "")), arena_printf(a,
		    "disallowed operator '%s'",
		    ast_binop_symbol(n->u.binop.op)));
	case V_UNARYOP:
		return block(out, n, "operators", arena_printf(a,
		    "the operator %s is not allowed (%s)",
		    ast_unaryop_symbol(n->u.unaryop.op), allowed_ops(a,
		    p->unaryops, UNARYOP__COUNT, unaryop_sym, "unary ")),
		    arena_printf(a, "disallowed operator '%s'",
		    ast_unaryop_symbol(n->u.unaryop.op)));
	case V_BOOLOP:
		return block(out, n, "operators", arena_printf(a,
		    "the operator %s is not allowed (%s)",
		    ast_boolop_name(n->u.boolop.op), allowed_ops(a, p->boolops,
		    BOOLOP__COUNT, boolop_sym, "")), arena_printf(a,
		    "disallowed operator '%s'",
		    ast_boolop_name(n->u.boolop.op)));
	case V_CMPOP:
		return block(out, n, "operators", arena_printf(a,
		    "the comparison %s is not allowed (%s)",
		    ast_cmpop_symbol(n->u.compare.ops[i]), allowed_ops(a,
		    p->cmpops, CMPOP__COUNT, cmpop_sym, "")), arena_printf(a,
		    "disallowed operator '%s'",
		    ast_cmpop_symbol(n->u.compare.ops[i])));
	case V_CALL:
		return block(out, n, "calls", call_reason(p, n, a),
		    "disallowed function call");
	case V_ATTR:
		return block(out, n, "attributes", arena_printf(a,
		    ".%s is not allowed: names starting with '_' are private",
		    n->u.attribute.attr), arena_printf(a,
		    "disallowed attribute '%s' (names starting with "
		    "'_' are private)", n->u.attribute.attr));
	}
	return true;
}

/*
 * Is every node allowed?  The walk of check_tree(), except that a leaf
 * (a Constant or a Name) is checked as it is pushed instead of being
 * pushed: a left-deep chain a+b+c+... or a long list then needs no stack
 * at all (check_tree's walk holds every right operand of a chain).  The
 * order is not the pre-order, so it only says whether something is
 * blocked, not what comes first.  With names, every Name (a callee's too)
 * must also pass the name rule: check_names()'s yes in the same walk.
 */
static bool
all_allowed(const struct policy *p, const struct node *root, struct arena *a,
    bool names)
{
	struct stack s;

	stack_init(&s, a);
	s.leaf_policy = p;
	s.leaf_names = names;
	push(&s, root);
	while (s.len > 0 && !s.leaf_blocked) {
		const struct node *n = s.items[--s.len];
		size_t i;

		if (violation(p, n, &i) != V_NONE)
			return false;
		/* the essay's kinds: push_children()'s pushes, with each
		 * leaf child checked on the way instead of pushed */
		switch (n->kind) {
		case NODE_EXPRESSION:
			if (!push_checked(&s, p, n->u.expression.body))
				return false;
			break;
		case NODE_BINOP:
			if (!push_checked(&s, p, n->u.binop.right) ||
			    !push_checked(&s, p, n->u.binop.left))
				return false;
			break;
		case NODE_CALL:
			for (i = n->u.call.keywords.len; i > 0; i--)
				push(&s, n->u.call.keywords.items[i - 1]);
			for (i = n->u.call.args.len; i > 0; i--)
				if (!push_checked(&s, p,
				    n->u.call.args.items[i - 1]))
					return false;
			/* (a named callee is the call's own: push_children;
			 * the name rule still asks about it) */
			if (n->u.call.func->kind != NODE_NAME) {
				if (!push_checked(&s, p, n->u.call.func))
					return false;
			} else if (names && !(p->call_rule == CALLS_NAMED ?
			    (name_flags(n->u.call.func->u.name.id) &
			    NAME_CMD) == 0 :
			    name_allowed(p, n->u.call.func->u.name.id)))
				/* (under CALLS_NAMED, violation() found the
				 * name on the policy's calls: only a command
				 * is left to refuse) */
				return false;
			break;
		default:
			push_children(&s, n);
			break;
		}
	}
	return !s.leaf_blocked;
}

/*
 * all_allowed() first: without it, the chains' parse + check + evaluate
 * took 14-18% more instructions in make bench (the 1 MiB chain 18%).
 */
bool
check_tree(const struct policy *p, const struct node *root, struct arena *a,
    struct check_result *out)
{
	out->node = NULL;
	out->rule = NULL;
	out->reason = NULL;
	out->essay = NULL;
	if (all_allowed(p, root, a, false))
		return true;
	/* blocked: walk again in pre-order for the first offender */
	return check_tree_general(p, root, a, out);
}

bool
check_tree_general(const struct policy *p, const struct node *root,
    struct arena *a, struct check_result *out)
{
	struct stack s;

	out->node = NULL;
	out->rule = NULL;
	out->reason = NULL;
	out->essay = NULL;
	stack_init(&s, a);
	push(&s, root);
	while (s.len > 0) {
		const struct node *n = s.items[--s.len];
		if (!check_node(p, n, a, out))
			return false;
		push_children(&s, n);
	}
	return true;
}

bool
check_source(const struct policy *p, const struct node *root,
    const char *src, size_t len, struct arena *a, struct check_result *out)
{
	const char *const *w;
	struct stack s;

	stack_init(&s, a);
	out->node = NULL;
	out->rule = NULL;
	out->reason = NULL;
	out->essay = NULL;
	for (w = p->blocked_words; w != NULL && *w != NULL; w++) {
		size_t wl = strlen(*w);
		const char *hit = wl ? memmem(src, len, *w, wl) : NULL;
		const struct node *best = root;
		uint32_t at;
		if (hit == NULL)
			continue;
		at = (uint32_t)(hit - src);
		push(&s, root);
		while (s.len > 0) {
			const struct node *n = s.items[--s.len];
			if (n->start <= at && n->end >= at + wl &&
			    n->end - n->start <= best->end - best->start)
				best = n;
			push_children(&s, n);
		}
		if (best->kind == NODE_EXPRESSION)
			best = best->u.expression.body;
		return block(out, best, "blocklist", arena_printf(a,
		    "the code contains '%s', one of its blocked words (%s)",
		    *w, policy_list_words(a, p->blocked_words, 12)),
		    arena_printf(a, "blocked word '%s' in the code", *w));
	}
	return true;
}

/* ---- the name rule, for code CPython runs ---- */

/* dir(builtins) of CPython 3.11 without the dunders (those are refused as
 * dunders), sorted for bsearch. */
static const char *const python_builtins[] = {
	"ArithmeticError", "AssertionError", "AttributeError",
	"BaseException", "BaseExceptionGroup", "BlockingIOError",
	"BrokenPipeError", "BufferError", "BytesWarning",
	"ChildProcessError", "ConnectionAbortedError", "ConnectionError",
	"ConnectionRefusedError", "ConnectionResetError",
	"DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning",
	"EnvironmentError", "Exception", "ExceptionGroup", "False",
	"FileExistsError", "FileNotFoundError", "FloatingPointError",
	"FutureWarning", "GeneratorExit", "IOError", "ImportError",
	"ImportWarning", "IndentationError", "IndexError",
	"InterruptedError", "IsADirectoryError", "KeyError",
	"KeyboardInterrupt", "LookupError", "MemoryError",
	"ModuleNotFoundError", "NameError", "None", "NotADirectoryError",
	"NotImplemented", "NotImplementedError", "OSError", "OverflowError",
	"PendingDeprecationWarning", "PermissionError", "ProcessLookupError",
	"RecursionError", "ReferenceError", "ResourceWarning",
	"RuntimeError", "RuntimeWarning", "StopAsyncIteration",
	"StopIteration", "SyntaxError", "SyntaxWarning", "SystemError",
	"SystemExit", "TabError", "TimeoutError", "True", "TypeError",
	"UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError",
	"UnicodeError", "UnicodeTranslateError", "UnicodeWarning",
	"UserWarning", "ValueError", "Warning", "ZeroDivisionError", "abs",
	"aiter", "all", "anext", "any", "ascii", "bin", "bool", "breakpoint",
	"bytearray", "bytes", "callable", "chr", "classmethod", "compile",
	"complex", "copyright", "credits", "delattr", "dict", "dir",
	"divmod", "enumerate", "eval", "exec", "exit", "filter", "float",
	"format", "frozenset", "getattr", "globals", "hasattr", "hash",
	"help", "hex", "id", "input", "int", "isinstance", "issubclass",
	"iter", "len", "license", "list", "locals", "map", "max",
	"memoryview", "min", "next", "object", "oct", "open", "ord", "pow",
	"print", "property", "quit", "range", "repr", "reversed", "round",
	"set", "setattr", "slice", "sorted", "staticmethod", "str", "sum",
	"super", "tuple", "type", "vars", "zip",
};

static int
cmp_name(const void *key, const void *elt)
{
	const unsigned char *k = key;
	const unsigned char *e = *(const unsigned char *const *)elt;

	/* (strcmp's order: the first bytes decide most steps) */
	return k[0] != e[0] ? k[0] - e[0] : strcmp(key, (const char *)e);
}

/* What a Name would find in CPython that the session did not put there:
 * a builtin, or a dunder of __main__ (__builtins__, __loader__ ...). */
static bool
is_python_builtin(const char *name)
{
	return strncmp(name, "__", 2) == 0 || bsearch(name, python_builtins,
	    sizeof python_builtins / sizeof python_builtins[0],
	    sizeof python_builtins[0], cmp_name) != NULL;
}

/*
 * The name rule's two fixed tables (the commands, CPython's builtins) in
 * one open-addressed hash set, filled before main() from the tables
 * themselves: a name is hashed once and compared once, where cmd_find()
 * and the bsearch compared it with a dozen entries (about 240
 * instructions a name of the essay's, in make bench's batch row).  The
 * set is read-only after it is filled, so every thread may read it.
 */
#define NAMESET_SIZE 512	/* a power of 2, over twice the entries */

static struct {
	const char	*name;
	unsigned	 flags;
} nameset[NAMESET_SIZE];
static bool nameset_ready;

/* (the length and three bytes: libc's strlen and a multiply cost less
 * than a byte loop, and the set's collisions are few and compared) */
static inline uint32_t
name_hash(const char *s)
{
	size_t n = strlen(s);
	const unsigned char *u = (const unsigned char *)s;

	if (n == 0)
		return 0;
	return ((uint32_t)n * 0x9e3779b1u) ^ ((uint32_t)u[0] * 0x85ebca6bu) ^
	    ((uint32_t)u[n - 1] * 0xc2b2ae35u) ^
	    ((uint32_t)u[n / 2] * 0x27d4eb2fu);
}

static void
nameset_add(const char *name, unsigned flag)
{
	uint32_t i = name_hash(name) & (NAMESET_SIZE - 1);

	while (nameset[i].name != NULL && strcmp(nameset[i].name, name) != 0)
		i = (i + 1) & (NAMESET_SIZE - 1);
	nameset[i].name = name;
	nameset[i].flags |= flag;
}

__attribute__((constructor)) static void
nameset_fill(void)
{
	const struct cmd_entry *e;
	size_t i;

	for (i = 0; (e = cmd_at(i)) != NULL; i++)
		nameset_add(e->name, NAME_CMD);
	for (i = 0; i < sizeof python_builtins / sizeof python_builtins[0];
	    i++)
		nameset_add(python_builtins[i], NAME_BUILTIN);
	nameset_ready = true;
}

/* NAME_CMD when cmd_find(name) finds it, NAME_BUILTIN when it is one of
 * python_builtins (not a dunder: is_python_builtin() adds those). */
static unsigned __attribute__((noinline))
name_flags_slow(const char *name)
{
	return (cmd_find(name) != NULL ? NAME_CMD : 0) |
	    (bsearch(name, python_builtins, sizeof python_builtins /
	    sizeof python_builtins[0], sizeof python_builtins[0],
	    cmp_name) != NULL ? NAME_BUILTIN : 0);
}

/* (the slow way out of line: its calls made every lookup save and
 * restore six registers) */
static unsigned
name_flags(const char *name)
{
	uint32_t i;

	if (!nameset_ready)	/* (never after main(): the slow way) */
		return name_flags_slow(name);
	for (i = name_hash(name) & (NAMESET_SIZE - 1); nameset[i].name != NULL;
	    i = (i + 1) & (NAMESET_SIZE - 1))
		if (strlist_cmp(nameset[i].name, name) == 0)
			return nameset[i].flags;
	return 0;
}

/* check_name()'s yes, without its reasons: the name rule allows id. */
static inline bool
name_allowed(const struct policy *p, const char *id)
{
	unsigned f = name_flags(id);

	if (f & NAME_CMD)
		return false;
	/* (the same answer as check_name's, the policy's list asked last:
	 * most names are neither commands nor builtins) */
	return p->name_rule != NAMES_CALLS ||
	    !((f & NAME_BUILTIN) || (id[0] == '_' && id[1] == '_')) ||
	    policy_allows_call(p, id);
}

bool
check_name(const struct policy *p, const char *id, const struct node *n,
    struct arena *a, struct check_result *out)
{
	const char *why;

	if (name_allowed(p, id))
		return true;
	if (cmd_find(id) != NULL)
		return block(out, n, "names", arena_printf(a, "%s is a "
		    "command: call it on its own, as %s(...), not inside "
		    "other code", id, id), arena_printf(a, "disallowed name "
		    "'%s' (a command is called on its own, through the "
		    "command layers)", id));
	/* (the policy's calls first: most names an input uses are) */
	if (p->name_rule != NAMES_CALLS || policy_allows_call(p, id) ||
	    !is_python_builtin(id))
		return true;
	if (p->attr_rule == ATTRS_PUBLIC && id[0] == '_')
		why = arena_printf(a, "%s is not allowed: names starting "
		    "with '_' are private", id);
	else if (p->calls == NULL || p->calls[0] == NULL)
		why = arena_printf(a, "%s is not allowed: this policy allows "
		    "no builtins", id);
	else
		why = arena_printf(a, "%s is not one of the builtins it "
		    "allows: %s", id, policy_list_words(a, p->calls, 12));
	return block(out, n, "names", why, arena_printf(a, "disallowed "
	    "name '%s' (the policy's only builtins are its calls)", id));
}

bool
check_names(const struct policy *p, const struct node *root, struct arena *a,
    struct check_result *out)
{
	struct stack s;

	out->node = NULL;
	out->rule = NULL;
	out->reason = NULL;
	out->essay = NULL;
	stack_init(&s, a);
	push(&s, root);
	while (s.len > 0) {
		const struct node *n = s.items[--s.len];
		const char *id;

		push_children(&s, n);
		if (n->kind == NODE_CALL && n->u.call.func->kind == NODE_NAME)
			push(&s, n->u.call.func);	/* (a callee too) */
		if (n->kind != NODE_NAME)
			continue;
		id = n->u.name.id;
		if (!check_name(p, id, n, a, out))
			return false;
	}
	return true;
}

/* ---- the layer: the policy over the input's code ---- */

/* The checker said no: the layer's decision (layers.h). */
void
layers_blocked(const struct check_result *cr, struct layer_decision *d)
{
	*d = (struct layer_decision){ .verdict = VERDICT_BLOCKED,
	    .layer = LAYER_ALLOWLIST, .rule = cr->rule, .reason = cr->reason,
	    .essay = cr->essay, .node = cr->node };
}

/* The code policy on one argument of a command: a dict display is the
 * command's own syntax, so its keys and values are checked, not it. */
static bool
check_arg(const struct layer_call *c, const struct node *arg,
    struct check_result *cr)
{
	size_t i;

	if (arg->kind != NODE_DICT)
		return check_tree(c->policy, arg, c->a, cr);
	for (i = 0; i < arg->u.dict.keys.len; i++) {
		const struct node *k = arg->u.dict.keys.items[i];
		if (k == NULL) {
			cr->node = arg->u.dict.values.items[i];
			cr->rule = "nodes";
			cr->reason = "unpacking a dict (**) is not allowed";
			cr->essay = "disallowed ** unpacking";
			return false;
		}
		if (!check_tree(c->policy, k, c->a, cr) ||
		    !check_tree(c->policy, arg->u.dict.values.items[i], c->a,
		    cr))
			return false;
	}
	return true;
}

/* The code the input runs: the whole tree, or a command's arguments. */
static size_t
code_count(const struct layer_call *c)
{
	return c->e == NULL ? 1 :
	    c->call->u.call.args.len + c->call->u.call.keywords.len;
}

static const struct node *
code_at(const struct layer_call *c, size_t i)
{
	const struct node *call = c->call;

	if (c->e == NULL)
		return c->root;
	return i < call->u.call.args.len ? call->u.call.args.items[i] :
	    call->u.call.keywords.items[i -
	    call->u.call.args.len]->u.keyword.value;
}

bool
allowlist_decide(struct layer_call *c, struct layer_decision *d)
{
	const struct node *whole = c->e == NULL ? c->root : c->call;
	struct check_result cr;
	bool ok;
	size_t i, n = code_count(c);

	ok = check_source(c->policy, whole, c->input, strlen(c->input), c->a,
	    &cr);
	/* the usual input, allowed: the code and the name rule in one walk
	 * (anything blocked is found again below, in the order it is
	 * reported) */
	if (ok && c->e == NULL && c->names &&
	    all_allowed(c->policy, c->root, c->a, true))
		return true;
	for (i = 0; ok && i < n; i++)
		ok = c->e == NULL ? check_tree(c->policy, c->root, c->a, &cr) :
		    i < c->call->u.call.args.len ?
		    check_arg(c, code_at(c, i), &cr) :
		    check_tree(c->policy, code_at(c, i), c->a, &cr);
	/* the name rule: a name the policy does not give is refused by its
	 * filter, not left to a NameError */
	for (i = 0; ok && c->names && i < n; i++)
		ok = check_names(c->policy, code_at(c, i), c->a, &cr);
	if (!ok)
		layers_blocked(&cr, d);
	return ok;
}
