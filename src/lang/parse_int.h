/*
 * parse_int.h -- what the parser's files share: struct parser, the
 * grammar functions one file calls in another, and the plumbing every
 * rule uses (nodes, vectors, tokens, errors), inline, as it was when the
 * parser was one file.  Only src/lang/parse*.c include it.
 *
 *   parse.c		the entry points: parse_input, parse_is_incomplete,
 *			parse_format_error, and the checks around a whole input
 *   parse_expr.c	expressions: atoms, primaries, operators, lambda,
 *			targets, and numbers
 *   parse_display.c	tuples, lists, dicts, sets and their comprehensions
 *   parse_string.c	string and bytes literals and their escapes
 *   parse_fstring.c	f-strings: their fields parsed by a sub-parser
 *   parse_stmt.c	the simple statements: assignments, imports
 */
#ifndef SANDBOXREPL_PARSE_INT_H
#define SANDBOXREPL_PARSE_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "ast.h"
#include "lex.h"
#include "parse.h"
#include "base/sbuf.h"

struct parser {
	struct arena	*a;
	const char	*src;
	uint32_t	 len;
	struct token	 tok;		/* current */
	struct token	 next;		/* lookahead, when has_next */
	bool		 has_next;
	uint32_t	 prev_end;	/* end of the previous token */
	unsigned	*depth;		/* shared with f-string sub-parsers */
	unsigned	 own_depth;
	int		 fstring_level;	/* nesting of format specs */
	bool		 failed;
	bool		 incomplete;
	bool		 err_from_lexer;
	bool		 err_is_ours;	/* our own refusal, kept as is */
	/* error paths: did an operand complete at this nesting depth?
	 * (what a PEG parser could have stopped after) */
	unsigned	 probe_depth;
	bool		 probe_operand;
	int32_t		 column_override; /* CPython's column, or -1 */
	/* an operand expression() parsed ahead (a primary), for the
	 * operator levels to take as their left operand; its start */
	struct node	*pending;
	uint32_t	 pending_start;
	struct arena_bump nodes;	/* nodes are carved from here */
	uint32_t	 str_err_at;	/* where string errors point: the end
					 * of the last literal of a strings run */
	struct parse_error err;
	/* last: parse_input clears the fields above, lex_init its own */
	struct lexer	 lx;
};

struct vec {
	struct node	**items;
	size_t		  len, cap;
};

/* ---- parse_expr.c ---- */
struct node *expression(struct parser *p);
struct node *star_expressions(struct parser *p);
/* error paths: what 3.11 says after an element, and of a target */
struct node *error_after_element(struct parser *p, const struct node *elem);
bool is_bitwise_operand(const struct node *t);
const char *expr_name(const struct node *n);
const struct node *invalid_target(const struct node *t);
void set_store(struct node *t);
const char *identifier(struct parser *p, const struct token *t);
/* the rules parse_display.c's displays are made of */
struct node *named_expression(struct parser *p);
struct node *star_named_expression(struct parser *p);
struct node *disjunction(struct parser *p);
struct node *bitwise_or(struct parser *p);
bool check_target(struct parser *p, struct node *t);

/* ---- parse_display.c ---- */
bool comprehensions(struct parser *p, struct vec *gens);
struct node *paren(struct parser *p);
struct node *list_display(struct parser *p);
struct node *brace_display(struct parser *p);

/* ---- parse_string.c ---- */
struct node *strings(struct parser *p);
void add_text(struct sbuf *out, const char *s, size_t n);
bool decode_escapes(struct parser *p, const char *b, size_t n, bool is_bytes,
    uint32_t err_at, struct sbuf *out);
struct node *str_constant(struct parser *p, struct sbuf *lit, uint32_t start,
    uint32_t end);

/* ---- parse_fstring.c ---- */
bool fstring_parts(struct parser *p, struct token t, uint32_t body,
    uint32_t body_end, struct vec *parts, struct sbuf *lit);

/* ---- parse_stmt.c ---- */
struct node *simple_stmt(struct parser *p);

/* ============================================================ plumbing */

static inline void *node_alloc(struct parser *p, size_t size);

void vec_grow(struct parser *p, struct vec *v)
    __attribute__((noinline));

/* The items are carved with the nodes; a vector that grows leaves its
 * old items behind in the chunk. */
static inline void
vec_push(struct parser *p, struct vec *v, struct node *n)
{
	if (v->len == v->cap) {
		if (v->cap == 0) {
			/* the first four items, in place */
			v->items = node_alloc(p, 4 * sizeof *v->items);
			v->cap = 4;
		} else
			vec_grow(p, v);
	}
	v->items[v->len++] = n;
}

static inline struct nodelist
vec_list(struct vec *v)
{
	struct nodelist l = { v->items, v->len };
	return l;
}

/*
 * The bytes a node of this kind needs: the header and its own union
 * member.  Nodes are allocated at that size (a megabyte of "1+1+..." is
 * 40 bytes a node instead of 112), so a struct node must never be copied
 * whole by value; pointers to nodes are what the tree hands out.
 */
static inline size_t
node_size(enum node_kind kind)
{
#define SIZE(member) (offsetof(struct node, u) + \
	sizeof(((struct node *)0)->u.member))
	switch (kind) {
	case NODE_EXPRESSION: return SIZE(expression);
	case NODE_MODULE: return SIZE(module);
	case NODE_EXPR: return SIZE(expr);
	case NODE_ASSIGN: return SIZE(assign);
	case NODE_AUGASSIGN: return SIZE(augassign);
	case NODE_IMPORT: return SIZE(import);
	case NODE_IMPORTFROM: return SIZE(importfrom);
	case NODE_BOOLOP: return SIZE(boolop);
	case NODE_NAMEDEXPR: return SIZE(namedexpr);
	case NODE_BINOP: return SIZE(binop);
	case NODE_UNARYOP: return SIZE(unaryop);
	case NODE_LAMBDA: return SIZE(lambda);
	case NODE_IFEXP: return SIZE(ifexp);
	case NODE_DICT: return SIZE(dict);
	case NODE_SET: case NODE_LIST: case NODE_TUPLE: return SIZE(seq);
	case NODE_LISTCOMP: case NODE_SETCOMP: case NODE_DICTCOMP:
	case NODE_GENERATOREXP: return SIZE(comp);
	case NODE_COMPARE: return SIZE(compare);
	case NODE_CALL: return SIZE(call);
	case NODE_FORMATTEDVALUE: return SIZE(formatted);
	case NODE_JOINEDSTR: return SIZE(joinedstr);
	case NODE_CONSTANT: return SIZE(constant);
	case NODE_ATTRIBUTE: return SIZE(attribute);
	case NODE_SUBSCRIPT: return SIZE(subscript);
	case NODE_STARRED: return SIZE(starred);
	case NODE_NAME: return SIZE(name);
	case NODE_SLICE: return SIZE(slice);
	case NODE_COMPREHENSION: return SIZE(comprehension);
	case NODE_ARGUMENTS: return SIZE(arguments);
	case NODE_ARG: return SIZE(arg);
	case NODE_KEYWORD: return SIZE(keyword);
	case NODE_ALIAS: return SIZE(alias);
	default: return sizeof(struct node);
	}
#undef SIZE
}

/*
 * Nodes (and names and node lists) are carved 8-byte aligned and zeroed
 * by the arena's bump allocator (arena.h): a one-line input costs one
 * small chunk, a megabyte of nodes costs no per-node call into the arena.
 */
static inline void *
node_alloc(struct parser *p, size_t size)
{
	return arena_bump(&p->nodes, size);
}

static inline struct node *
mk_extra(struct parser *p, enum node_kind kind, uint32_t start, uint32_t end,
    size_t extra)
{
	struct node *n = node_alloc(p, node_size(kind) + extra);
	n->kind = kind;
	n->start = start;
	n->end = end;
	return n;
}

static inline struct node *
mk(struct parser *p, enum node_kind kind, uint32_t start, uint32_t end)
{
	return mk_extra(p, kind, start, end, 0);
}

/* Record the first error; always returns NULL. */
static inline struct node *
error_span(struct parser *p, uint32_t start, uint32_t end, const char *msg)
{
	if (!p->failed) {
		p->failed = true;
		p->err.cls = PYEXC_SyntaxError;
		p->err.msg = msg;
		p->err.start = start;
		p->err.end = end;
	}
	return NULL;
}

static inline struct node *
error_lexer(struct parser *p)
{
	if (!p->failed) {
		p->failed = true;
		p->incomplete = p->lx.error.is_incomplete;
		p->err_from_lexer = true;
		p->err.cls = p->lx.error.cls;
		p->err.msg = p->lx.error.msg;
		p->err.start = p->lx.error.start;
		p->err.end = p->lx.error.end;
	}
	return NULL;
}

/* "invalid syntax" at the current token (or the lexer's own error). */
static inline struct node *
error_here(struct parser *p, const char *msg)
{
	if (p->tok.kind == TOK_ERROR)
		return error_lexer(p);
	return error_span(p, p->tok.start, p->tok.start + p->tok.length,
	    msg ? msg : "invalid syntax");
}

static inline void
advance(struct parser *p)
{
	if (p->tok.kind == TOK_ERROR)
		return;
	p->prev_end = p->tok.start + p->tok.length;
	if (p->has_next) {
		p->tok = p->next;
		p->has_next = false;
	} else
		p->tok = lex_next(&p->lx);
}

static inline struct token *
peek(struct parser *p)
{
	if (!p->has_next) {
		p->next = p->tok.kind == TOK_ERROR ? p->tok : lex_next(&p->lx);
		p->has_next = true;
	}
	return &p->next;
}

static inline bool
accept(struct parser *p, enum token_kind k)
{
	if (p->tok.kind != k)
		return false;
	advance(p);
	return true;
}

static inline uint32_t
tok_end(const struct token *t)
{
	return t->start + t->length;
}

/* Expect a token; the error names what was expected. */
static inline bool
expect(struct parser *p, enum token_kind k)
{
	if (accept(p, k))
		return true;
	if (p->tok.kind == TOK_ERROR)
		error_lexer(p);
	else
		error_here(p, NULL);
	return false;
}

static inline bool
enter(struct parser *p)
{
	if (++*p->depth > PARSE_MAX_DEPTH) {
		/* our own limit: final, no scan of the rest for a better
		 * message (the input may be a megabyte of nesting) */
		if (!p->failed)
			p->err_is_ours = true;
		error_span(p, p->tok.start, tok_end(&p->tok),
		    "too many nested expressions (the parser's limit is "
		    "1000)");
		return false;
	}
	return true;
}

static inline void
leave(struct parser *p)
{
	--*p->depth;
}

/* The start of the last character of node n (where 3.11 points some
 * messages: at its end_col_offset - 1). */
static inline uint32_t
last_char_start(const struct parser *p, const struct node *n)
{
	uint32_t i = n->end > n->start ? n->end - 1 : n->start;
	while (i > n->start && ((unsigned char)p->src[i] & 0xC0) == 0x80)
		i--;
	return i;
}

/* Can the current token start an expression? */
static inline bool
starts_expression(const struct token *t)
{
	switch (t->kind) {
	case TOK_NAME: case TOK_NUMBER: case TOK_STRING:
	case TOK_LPAR: case TOK_LSQB: case TOK_LBRACE:
	case TOK_MINUS: case TOK_PLUS: case TOK_TILDE:
	case TOK_NOT: case TOK_LAMBDA: case TOK_AWAIT: case TOK_ELLIPSIS:
	case TOK_TRUE: case TOK_FALSE: case TOK_NONE:
		return true;
	default:
		return false;
	}
}

/* Is the error a plain "invalid syntax" of the parser's own? */
static inline bool
is_generic_error(const struct parser *p)
{
	return p->failed && !p->err_from_lexer && !p->err_is_ours &&
	    p->err.msg != NULL && strcmp(p->err.msg, "invalid syntax") == 0;
}

#endif
