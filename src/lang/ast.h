/*
 * ast.h -- the syntax tree, named as Python's ast module names it.
 *
 * The parser builds these nodes in the arena of the input line; they borrow
 * nothing from the input except through their byte span [start, end), which
 * every node carries so that a verdict can point at the offending code.
 * Names in the tree are NFKC-normalised, NUL-terminated copies.
 *
 * Node kinds, operators and expression contexts come from X-macros so their
 * names (what ast.dump prints) can never drift from their numbers.
 */
#ifndef SANDBOXREPL_AST_H
#define SANDBOXREPL_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "value/ops.h"
#include "value/value.h"

struct sbuf;

/*
 * Node kinds: X(enum suffix, ast name, what it is in words: the
 * allowlist's verdicts are read aloud, "attribute access is not allowed").
 * Helper nodes that Python's ast module also has as classes (comprehension,
 * arguments, arg, keyword, alias) are nodes here too, so that the dump and
 * the walk treat them uniformly.
 */
#define NODE_KINDS(X)								\
	/* roots */								\
	X(EXPRESSION,     "Expression",     "an expression")			\
	X(MODULE,         "Module",         "several statements")		\
	/* statements */							\
	X(EXPR,           "Expr",           "an expression statement")		\
	X(ASSIGN,         "Assign",         "assignment (=)")			\
	X(AUGASSIGN,      "AugAssign",      "augmented assignment (+=)")	\
	X(IMPORT,         "Import",         "an import")			\
	X(IMPORTFROM,     "ImportFrom",     "an import (from ... import)") \
	/* expressions */							\
	X(BOOLOP,         "BoolOp",         "and/or")				\
	X(NAMEDEXPR,      "NamedExpr",      "an assignment expression (:=)") \
	X(BINOP,          "BinOp",          "arithmetic")			\
	X(UNARYOP,        "UnaryOp",        "a unary operator")		\
	X(LAMBDA,         "Lambda",         "a lambda")			\
	X(IFEXP,          "IfExp",          "a conditional (x if c else y)") \
	X(DICT,           "Dict",           "a dict ({...})")			\
	X(SET,            "Set",            "a set ({...})")			\
	X(LISTCOMP,       "ListComp",       "a list comprehension")		\
	X(SETCOMP,        "SetComp",        "a set comprehension")		\
	X(DICTCOMP,       "DictComp",       "a dict comprehension")		\
	X(GENERATOREXP,   "GeneratorExp",   "a generator expression")		\
	X(COMPARE,        "Compare",        "a comparison")			\
	X(CALL,           "Call",           "a function call")			\
	X(FORMATTEDVALUE, "FormattedValue", "an f-string field")		\
	X(JOINEDSTR,      "JoinedStr",      "an f-string")			\
	X(CONSTANT,       "Constant",       "a constant")			\
	X(ATTRIBUTE,      "Attribute",      "attribute access")		\
	X(SUBSCRIPT,      "Subscript",      "indexing or slicing ([...])") \
	X(STARRED,        "Starred",        "unpacking (*)")			\
	X(NAME,           "Name",           "a name")				\
	X(LIST,           "List",           "a list")				\
	X(TUPLE,          "Tuple",          "a tuple")				\
	X(SLICE,          "Slice",          "a slice (a:b)")			\
	/* helpers */								\
	X(COMPREHENSION,  "comprehension",  "a comprehension's for clause") \
	X(ARGUMENTS,      "arguments",      "a lambda's parameters")		\
	X(ARG,            "arg",            "a parameter")			\
	X(KEYWORD,        "keyword",        "a keyword argument (name=...)") \
	X(ALIAS,          "alias",          "an imported name")

#define X_ENUM(e, name, words) NODE_##e,
enum node_kind { NODE_KINDS(X_ENUM) NODE__COUNT };
#undef X_ENUM

struct node;

struct nodelist {
	struct node	**items;
	size_t		  len;
};

/*
 * One node.  Which union member is live depends on kind; the comment on
 * each member names the kinds that use it and their ast field names.
 * Optional children are NULL when absent.  The parser allocates a node at
 * the size its kind needs (header plus its own union member), so handle
 * nodes by pointer: never copy a struct node by value.
 */
struct node {
	enum node_kind	 kind;
	uint32_t	 start;		/* byte offset of the first byte */
	uint32_t	 end;		/* byte offset one past the last */
	/* CONSTANT: a u'' string, whose ast kind is "u".  Here, in what
	 * would be padding before the union, so that a Constant takes 32
	 * bytes instead of 40 (a megabyte of literals is 8 MiB less). */
	bool		 is_u_string;
	union {
		struct { struct node *body; } expression;	/* EXPRESSION */
		struct { struct nodelist body; } module;	/* MODULE */
		struct { struct node *value; } expr;		/* EXPR */
		/* ASSIGN: targets, value */
		struct { struct nodelist targets; struct node *value; } assign;
		/* AUGASSIGN: target, op, value */
		struct { struct node *target; enum binop op; struct node *value; } augassign;
		struct { struct nodelist names; } import;	/* IMPORT */
		/* IMPORTFROM: module (NULL for "from . import x"), names, level */
		struct { const char *module; struct nodelist names; int level; } importfrom;
		/* BOOLOP: op, values (two or more) */
		struct { enum boolop op; struct nodelist values; } boolop;
		/* NAMEDEXPR: target (a Name), value */
		struct { struct node *target; struct node *value; } namedexpr;
		/* BINOP: left, op, right */
		struct { struct node *left; enum binop op; struct node *right; } binop;
		/* UNARYOP: op, operand */
		struct { enum unaryop op; struct node *operand; } unaryop;
		/* LAMBDA: args (an ARGUMENTS node), body */
		struct { struct node *args; struct node *body; } lambda;
		/* IFEXP: test, body, orelse */
		struct { struct node *test; struct node *body; struct node *orelse; } ifexp;
		/* DICT: keys (an item is NULL for a ** entry), values */
		struct { struct nodelist keys; struct nodelist values; } dict;
		/* SET, LIST, TUPLE: elts (ctx for LIST and TUPLE) */
		struct { struct nodelist elts; enum exprctx ctx; } seq;
		/* LISTCOMP, SETCOMP, GENERATOREXP: elt, generators;
		 * DICTCOMP: key (in elt), value, generators */
		struct { struct node *elt; struct node *value; struct nodelist generators; } comp;
		/* COMPARE: left, ops, comparators (ops.len == comparators.len) */
		struct { struct node *left; enum cmpop *ops; struct nodelist comparators; } compare;
		/* CALL: func, args, keywords (KEYWORD nodes) */
		struct { struct node *func; struct nodelist args; struct nodelist keywords; } call;
		/* FORMATTEDVALUE: value, conversion (-1, 's', 'r', 'a'),
		 * format_spec (a JOINEDSTR or NULL) */
		struct { struct node *value; int conversion; struct node *format_spec; } formatted;
		/* JOINEDSTR: values (CONSTANT str and FORMATTEDVALUE nodes) */
		struct { struct nodelist values; } joinedstr;
		/* CONSTANT: value (its kind: is_u_string above) */
		struct { value value; } constant;
		/* ATTRIBUTE: value, attr, ctx */
		struct { struct node *value; const char *attr; enum exprctx ctx; } attribute;
		/* SUBSCRIPT: value, slice, ctx */
		struct { struct node *value; struct node *slice; enum exprctx ctx; } subscript;
		/* STARRED: value, ctx */
		struct { struct node *value; enum exprctx ctx; } starred;
		/* NAME: id, ctx */
		struct { const char *id; enum exprctx ctx; } name;
		/* SLICE: lower, upper, step (each optional) */
		struct { struct node *lower; struct node *upper; struct node *step; } slice;
		/* COMPREHENSION: target, iter, ifs, is_async (always 0) */
		struct { struct node *target; struct node *iter; struct nodelist ifs; } comprehension;
		/* ARGUMENTS: posonlyargs, args, vararg, kwonlyargs, kw_defaults
		 * (an item is NULL where a keyword-only arg has no default),
		 * kwarg, defaults */
		struct {
			struct nodelist posonlyargs, args;
			struct node *vararg;
			struct nodelist kwonlyargs, kw_defaults;
			struct node *kwarg;
			struct nodelist defaults;
		} arguments;
		struct { const char *arg; } arg;		/* ARG */
		/* KEYWORD: arg (NULL for **value), value */
		struct { const char *arg; struct node *value; } keyword;
		/* ALIAS: name (dotted), asname or NULL */
		struct { const char *name; const char *asname; } alias;
	} u;
};

/* The ast module's name of a kind, operator or context. */
const char *ast_kind_name(enum node_kind kind);
/* What a node of the kind is, in words ("attribute access"). */
const char *ast_kind_words(enum node_kind kind);
const char *ast_binop_name(enum binop op);
const char *ast_binop_symbol(enum binop op);
const char *ast_unaryop_name(enum unaryop op);
const char *ast_unaryop_symbol(enum unaryop op);
const char *ast_cmpop_name(enum cmpop op);
const char *ast_cmpop_symbol(enum cmpop op);
const char *ast_boolop_name(enum boolop op);
const char *ast_ctx_name(enum exprctx ctx);

/*
 * ast_dump_line: the tree on one line, exactly as Python 3.11's ast.dump()
 * prints it (fields that are None are left out, empty lists are shown).
 * ast_dump_tree: the same fields as an indented tree, one node per line,
 * each line prefixed by its span "[start,end)" when with_spans is set.
 * Both append to out.  They return false (having appended an error marker)
 * only when the tree is deeper than the dump's own limit.
 */
bool ast_dump_line(const struct node *root, struct sbuf *out);
bool ast_dump_tree(const struct node *root, bool with_spans, struct sbuf *out);

/*
 * ast_dump_tree_at: the tree dump without spans, and where each node's
 * line starts, for a screen that points at nodes: *at (heap, the caller
 * frees it) gets one entry per line of a node or of an absent list item
 * ("None"), in order, and *nat their number.  (The marker
 * of a tree too deep has no entry.)
 */
struct ast_line {
	size_t			 off;	/* the line's first byte in out */
	const struct node	*node;	/* NULL: an absent item */
};
bool ast_dump_tree_at(const struct node *root, struct sbuf *out,
    struct ast_line **at, size_t *nat);

#endif
