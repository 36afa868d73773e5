/*
 * ast.c -- names of node kinds and operators, and the two dumps.
 *
 * Both dumps walk a node's fields in the order Python's ast module
 * declares them (_fields), through one per-kind function, dump_fields(),
 * that calls a field emitter per field.  The line dump prints every field
 * as ast.dump() does; the tree dump calls dump_fields() twice per node,
 * first printing the scalar fields on the node's own line, then the child
 * nodes on the lines below it.  Recursion is bounded by AST_DUMP_MAX_DEPTH:
 * a deeper tree is cut with a marker and the dump returns false.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "ast.h"
#include "value/rt.h"
#include "base/sbuf.h"
#include "value/value.h"
#include "base/xalloc.h"

#define AST_DUMP_MAX_DEPTH 800

#define X_NAME(e, name, words) name,
static const char *const kind_names[] = { NODE_KINDS(X_NAME) };
#undef X_NAME
#define X_WORDS(e, name, words) words,
static const char *const kind_words[] = { NODE_KINDS(X_WORDS) };
#undef X_WORDS
#define X_NAME(e, name, sym) name,
static const char *const binop_names[] = { BINOPS(X_NAME) };
static const char *const unaryop_names[] = { UNARYOPS(X_NAME) };
static const char *const cmpop_names[] = { CMPOPS(X_NAME) };
static const char *const boolop_names[] = { BOOLOPS(X_NAME) };
#undef X_NAME
#define X_SYM(e, name, sym) sym,
static const char *const binop_symbols[] = { BINOPS(X_SYM) };
static const char *const unaryop_symbols[] = { UNARYOPS(X_SYM) };
static const char *const cmpop_symbols[] = { CMPOPS(X_SYM) };
#undef X_SYM
#define X_NAME(e, name) name,
static const char *const ctx_names[] = { CTXS(X_NAME) };
#undef X_NAME

const char *
ast_kind_name(enum node_kind kind)
{
	return kind < NODE__COUNT ? kind_names[kind] : "?";
}

const char *
ast_kind_words(enum node_kind kind)
{
	return kind < NODE__COUNT ? kind_words[kind] : "?";
}

const char *
ast_binop_name(enum binop op)
{
	return op < BINOP__COUNT ? binop_names[op] : "?";
}

const char *
ast_binop_symbol(enum binop op)
{
	return op < BINOP__COUNT ? binop_symbols[op] : "?";
}

const char *
ast_unaryop_name(enum unaryop op)
{
	return op < UNARYOP__COUNT ? unaryop_names[op] : "?";
}

const char *
ast_unaryop_symbol(enum unaryop op)
{
	return op < UNARYOP__COUNT ? unaryop_symbols[op] : "?";
}

const char *
ast_cmpop_name(enum cmpop op)
{
	return op < CMPOP__COUNT ? cmpop_names[op] : "?";
}

const char *
ast_cmpop_symbol(enum cmpop op)
{
	return op < CMPOP__COUNT ? cmpop_symbols[op] : "?";
}

const char *
ast_boolop_name(enum boolop op)
{
	return op < BOOLOP__COUNT ? boolop_names[op] : "?";
}

const char *
ast_ctx_name(enum exprctx ctx)
{
	return ctx < CTX__COUNT ? ctx_names[ctx] : "?";
}

/* ================================================================ dumper */

enum phase { PH_ALL, PH_SCALARS, PH_CHILDREN };

struct dumper {
	struct sbuf	*out;
	bool		 tree;
	bool		 spans;
	enum phase	 phase;
	bool		 first;		/* line dump: no ", " before a field */
	unsigned	 depth;
	bool		 too_deep;
	struct rt	 rt;		/* for value_repr */
	/* ast_dump_tree_at: where each line starts, or NULL */
	struct ast_line	**lines;
	size_t		 nlines;
};

static void dump_node(struct dumper *d, const struct node *n,
    const char *label);

static void
sep(struct dumper *d, const char *name)
{
	if (!d->first)
		sbuf_adds(d->out, d->tree ? " " : ", ");
	d->first = false;
	sbuf_adds(d->out, name);
	sbuf_addc(d->out, '=');
}

static void
f_node(struct dumper *d, const char *name, const struct node *n)
{
	if (n == NULL)		/* optional fields that are None are left out */
		return;
	if (d->tree) {
		if (d->phase == PH_CHILDREN)
			dump_node(d, n, name);
		return;
	}
	sep(d, name);
	dump_node(d, n, NULL);
}

static void
f_list(struct dumper *d, const char *name, struct nodelist l)
{
	size_t i;
	if (d->tree) {
		char label[64];
		if (d->phase != PH_CHILDREN)
			return;
		for (i = 0; i < l.len && !d->too_deep; i++) {
			snprintf(label, sizeof label, "%s[%zu]", name, i);
			dump_node(d, l.items[i], label);
		}
		return;
	}
	sep(d, name);
	sbuf_addc(d->out, '[');
	for (i = 0; i < l.len && !d->too_deep; i++) {
		if (i)
			sbuf_adds(d->out, ", ");
		dump_node(d, l.items[i], NULL);
	}
	sbuf_addc(d->out, ']');
}

static bool
scalar_phase(struct dumper *d)
{
	return !d->tree || d->phase == PH_SCALARS;
}

static void
f_str(struct dumper *d, const char *name, const char *s)
{
	value v;
	if (s == NULL || !scalar_phase(d))
		return;
	sep(d, name);
	v = value_str(d->rt.arena, s, strlen(s));
	value_str_repr(v.as.s, false, d->out);
}

static void
f_int(struct dumper *d, const char *name, long i)
{
	if (!scalar_phase(d))
		return;
	sep(d, name);
	sbuf_addf(d->out, "%ld", i);
}

/* an operator or context: Add() on one line, Add in the tree */
static void
f_op(struct dumper *d, const char *name, const char *opname)
{
	if (!scalar_phase(d))
		return;
	sep(d, name);
	sbuf_adds(d->out, opname);
	if (!d->tree)
		sbuf_adds(d->out, "()");
}

static void
f_value(struct dumper *d, const char *name, value v)
{
	if (!scalar_phase(d))
		return;
	sep(d, name);
	if (!value_repr(&d->rt, v, d->out)) {
		rt_clear(&d->rt);
		sbuf_adds(d->out, "<unrepresentable>");
	}
}

/* Statements, and the module and expression that hold them. */
static bool
stmt_fields(struct dumper *d, const struct node *n)
{
	switch (n->kind) {
	case NODE_EXPRESSION:
		f_node(d, "body", n->u.expression.body);
		break;
	case NODE_MODULE:
		f_list(d, "body", n->u.module.body);
		if (!d->tree)
			f_list(d, "type_ignores", (struct nodelist){ NULL, 0 });
		break;
	case NODE_EXPR:
		f_node(d, "value", n->u.expr.value);
		break;
	case NODE_ASSIGN:
		f_list(d, "targets", n->u.assign.targets);
		f_node(d, "value", n->u.assign.value);
		break;
	case NODE_AUGASSIGN:
		f_node(d, "target", n->u.augassign.target);
		f_op(d, "op", ast_binop_name(n->u.augassign.op));
		f_node(d, "value", n->u.augassign.value);
		break;
	case NODE_IMPORT:
		f_list(d, "names", n->u.import.names);
		break;
	case NODE_IMPORTFROM:
		f_str(d, "module", n->u.importfrom.module);
		f_list(d, "names", n->u.importfrom.names);
		f_int(d, "level", n->u.importfrom.level);
		break;
	case NODE_ALIAS:
		f_str(d, "name", n->u.alias.name);
		f_str(d, "asname", n->u.alias.asname);
		break;
	default:
		return false;
	}
	return true;
}

/* Operators, lambda and the conditional expression. */
static bool
operator_fields(struct dumper *d, const struct node *n)
{
	size_t i;

	switch (n->kind) {
	case NODE_BOOLOP:
		f_op(d, "op", ast_boolop_name(n->u.boolop.op));
		f_list(d, "values", n->u.boolop.values);
		break;
	case NODE_NAMEDEXPR:
		f_node(d, "target", n->u.namedexpr.target);
		f_node(d, "value", n->u.namedexpr.value);
		break;
	case NODE_BINOP:
		f_node(d, "left", n->u.binop.left);
		f_op(d, "op", ast_binop_name(n->u.binop.op));
		f_node(d, "right", n->u.binop.right);
		break;
	case NODE_UNARYOP:
		f_op(d, "op", ast_unaryop_name(n->u.unaryop.op));
		f_node(d, "operand", n->u.unaryop.operand);
		break;
	case NODE_LAMBDA:
		f_node(d, "args", n->u.lambda.args);
		f_node(d, "body", n->u.lambda.body);
		break;
	case NODE_IFEXP:
		f_node(d, "test", n->u.ifexp.test);
		f_node(d, "body", n->u.ifexp.body);
		f_node(d, "orelse", n->u.ifexp.orelse);
		break;
	case NODE_COMPARE:
		f_node(d, "left", n->u.compare.left);
		if (scalar_phase(d)) {
			sep(d, "ops");
			if (!d->tree)
				sbuf_addc(d->out, '[');
			for (i = 0; i < n->u.compare.comparators.len; i++) {
				if (i)
					sbuf_adds(d->out, d->tree ? "," : ", ");
				sbuf_adds(d->out,
				    ast_cmpop_name(n->u.compare.ops[i]));
				if (!d->tree)
					sbuf_adds(d->out, "()");
			}
			if (!d->tree)
				sbuf_addc(d->out, ']');
		}
		f_list(d, "comparators", n->u.compare.comparators);
		break;
	default:
		return false;
	}
	return true;
}

/* Displays and comprehensions. */
static bool
display_fields(struct dumper *d, const struct node *n)
{
	switch (n->kind) {
	case NODE_DICT:
		f_list(d, "keys", n->u.dict.keys);
		f_list(d, "values", n->u.dict.values);
		break;
	case NODE_SET:
		f_list(d, "elts", n->u.seq.elts);
		break;
	case NODE_LIST:
	case NODE_TUPLE:
		f_list(d, "elts", n->u.seq.elts);
		f_op(d, "ctx", ast_ctx_name(n->u.seq.ctx));
		break;
	case NODE_LISTCOMP:
	case NODE_SETCOMP:
	case NODE_GENERATOREXP:
		f_node(d, "elt", n->u.comp.elt);
		f_list(d, "generators", n->u.comp.generators);
		break;
	case NODE_DICTCOMP:
		f_node(d, "key", n->u.comp.elt);
		f_node(d, "value", n->u.comp.value);
		f_list(d, "generators", n->u.comp.generators);
		break;
	case NODE_COMPREHENSION:
		f_node(d, "target", n->u.comprehension.target);
		f_node(d, "iter", n->u.comprehension.iter);
		f_list(d, "ifs", n->u.comprehension.ifs);
		f_int(d, "is_async", 0);
		break;
	default:
		return false;
	}
	return true;
}

/* Primaries and atoms, and the parts of calls and lambdas. */
static bool
atom_fields(struct dumper *d, const struct node *n)
{
	const struct node *a;

	switch (n->kind) {
	case NODE_CALL:
		f_node(d, "func", n->u.call.func);
		f_list(d, "args", n->u.call.args);
		f_list(d, "keywords", n->u.call.keywords);
		break;
	case NODE_FORMATTEDVALUE:
		f_node(d, "value", n->u.formatted.value);
		f_int(d, "conversion", n->u.formatted.conversion);
		f_node(d, "format_spec", n->u.formatted.format_spec);
		break;
	case NODE_JOINEDSTR:
		f_list(d, "values", n->u.joinedstr.values);
		break;
	case NODE_CONSTANT:
		f_value(d, "value", n->u.constant.value);
		f_str(d, "kind", n->is_u_string ? "u" : NULL);
		break;
	case NODE_ATTRIBUTE:
		f_node(d, "value", n->u.attribute.value);
		f_str(d, "attr", n->u.attribute.attr);
		f_op(d, "ctx", ast_ctx_name(n->u.attribute.ctx));
		break;
	case NODE_SUBSCRIPT:
		f_node(d, "value", n->u.subscript.value);
		f_node(d, "slice", n->u.subscript.slice);
		f_op(d, "ctx", ast_ctx_name(n->u.subscript.ctx));
		break;
	case NODE_STARRED:
		f_node(d, "value", n->u.starred.value);
		f_op(d, "ctx", ast_ctx_name(n->u.starred.ctx));
		break;
	case NODE_NAME:
		f_str(d, "id", n->u.name.id);
		f_op(d, "ctx", ast_ctx_name(n->u.name.ctx));
		break;
	case NODE_SLICE:
		f_node(d, "lower", n->u.slice.lower);
		f_node(d, "upper", n->u.slice.upper);
		f_node(d, "step", n->u.slice.step);
		break;
	case NODE_ARGUMENTS:
		a = n;
		f_list(d, "posonlyargs", a->u.arguments.posonlyargs);
		f_list(d, "args", a->u.arguments.args);
		f_node(d, "vararg", a->u.arguments.vararg);
		f_list(d, "kwonlyargs", a->u.arguments.kwonlyargs);
		f_list(d, "kw_defaults", a->u.arguments.kw_defaults);
		f_node(d, "kwarg", a->u.arguments.kwarg);
		f_list(d, "defaults", a->u.arguments.defaults);
		break;
	case NODE_ARG:
		f_str(d, "arg", n->u.arg.arg);
		break;
	case NODE_KEYWORD:
		f_str(d, "arg", n->u.keyword.arg);
		f_node(d, "value", n->u.keyword.value);
		break;
	default:
		return false;
	}
	return true;
}

/* The fields of one node, in the ast module's _fields order. */
static void
dump_fields(struct dumper *d, const struct node *n)
{
	(void)(stmt_fields(d, n) || operator_fields(d, n) ||
	    display_fields(d, n) || atom_fields(d, n));
}

static void
dump_node(struct dumper *d, const struct node *n, const char *label)
{
	bool first = d->first;
	enum phase phase = d->phase;
	unsigned i;

	if (d->too_deep)
		return;
	if (d->depth >= AST_DUMP_MAX_DEPTH) {
		d->too_deep = true;
		sbuf_adds(d->out, d->tree ? "\n... (tree too deep)\n" :
		    "... (tree too deep)");
		return;
	}
	d->depth++;
	if (d->tree) {
		if (d->lines != NULL) {
			*d->lines = xreallocarray(*d->lines, d->nlines + 1,
			    sizeof **d->lines);
			(*d->lines)[d->nlines++] = (struct ast_line){
			    .off = d->out->len, .node = n };
		}
		if (d->spans && n != NULL)
			sbuf_addf(d->out, "[%u,%u) ", n->start, n->end);
		else if (d->spans)
			sbuf_adds(d->out, "[-) ");	/* an absent item */
		for (i = 1; i < d->depth; i++)
			sbuf_adds(d->out, "  ");
		if (label)
			sbuf_addf(d->out, "%s: ", label);
		if (n == NULL) {
			sbuf_adds(d->out, "None\n");
			d->depth--;
			return;
		}
		sbuf_adds(d->out, ast_kind_name(n->kind));
		d->phase = PH_SCALARS;
		d->first = false;
		dump_fields(d, n);
		sbuf_addc(d->out, '\n');
		d->phase = PH_CHILDREN;
		dump_fields(d, n);
	} else if (n == NULL) {
		sbuf_adds(d->out, "None");
	} else {
		sbuf_adds(d->out, ast_kind_name(n->kind));
		sbuf_addc(d->out, '(');
		d->first = true;
		dump_fields(d, n);
		sbuf_addc(d->out, ')');
	}
	d->first = first;
	d->phase = phase;
	d->depth--;
}

static bool
dump(const struct node *root, bool tree, bool spans, struct sbuf *out,
    struct ast_line **lines, size_t *nlines)
{
	struct dumper d;
	bool ok;
	memset(&d, 0, sizeof d);
	d.out = out;
	d.tree = tree;
	d.spans = spans;
	d.lines = lines;
	d.first = true;
	d.phase = PH_ALL;
	d.rt.arena = arena_new();
	d.rt.limits.max_depth = AST_DUMP_MAX_DEPTH;
	dump_node(&d, root, NULL);
	arena_free(d.rt.arena);
	ok = !d.too_deep;
	if (nlines != NULL)
		*nlines = d.nlines;
	return ok;
}

bool
ast_dump_line(const struct node *root, struct sbuf *out)
{
	return dump(root, false, false, out, NULL, NULL);
}

bool
ast_dump_tree(const struct node *root, bool with_spans, struct sbuf *out)
{
	return dump(root, true, with_spans, out, NULL, NULL);
}

bool
ast_dump_tree_at(const struct node *root, struct sbuf *out,
    struct ast_line **at, size_t *nat)
{
	*at = NULL;
	return dump(root, true, false, out, at, nat);
}
