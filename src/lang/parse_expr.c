/*
 * parse_expr.c -- the expression grammar: atoms, primaries (calls,
 * subscripts, attributes), the operators Pratt style from one precedence
 * table, lambda, if-else and the walrus; the targets an assignment
 * checks; numbers.
 *
 * This is the parser's hot path: its plumbing is inline (parse_int.h),
 * and the grammar functions call each other within this file.  The
 * bracketed displays and their comprehensions are parse_display.c's
 * (atom_other, already out of line, calls them), string literals
 * parse_string.c's, statements parse_stmt.c's.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "ast.h"
#include "lex.h"
#include "parse_int.h"
#include "base/sbuf.h"
#include "base/unicode.h"
#include "value/value.h"

static struct node *factor(struct parser *p);
static struct node *atom(struct parser *p);

/* ================================================ errors, targets, names */

/*
 * After an element inside brackets another expression starts: CPython's
 * "Perhaps you forgot a comma?", else plain "invalid syntax".
 */
struct node *
error_after_element(struct parser *p, const struct node *elem)
{
	struct node *next;
	uint32_t at = p->tok.start, at_end = tok_end(&p->tok);
	bool is_assign = p->tok.kind == TOK_EQUAL;

	if (p->tok.kind == TOK_ERROR)
		return error_lexer(p);
	if (elem == NULL || !(is_assign || (starts_expression(&p->tok) &&
	    !(elem->kind == NODE_NAME && p->tok.kind == TOK_STRING))))
		return error_here(p, NULL);
	/*
	 * CPython's second pass parses the expression that follows (to
	 * report the whole range); if that runs into the end of the input
	 * inside brackets, the bracket that was never closed is reported.
	 */
	if (is_assign)
		advance(p);
	p->probe_depth = *p->depth + 1;	/* expression() enters once */
	p->probe_operand = false;
	next = expression(p);
	p->probe_depth = UINT_MAX;
	if (!is_assign && is_generic_error(p) && p->probe_operand) {
		/* an operand parsed before the failure: 3.11's PEG parser
		 * would have stopped there with an expression in hand */
		p->err.msg = "invalid syntax. Perhaps you forgot a comma?";
		p->err.end = p->err.start;
		p->err.start = elem->start;
		return NULL;
	}
	if (p->failed) {
		if (p->err_from_lexer && !p->lx.error.is_incomplete)
			return NULL;	/* a tokenizer error wins */
		if (p->tok.kind != TOK_ERROR || !p->lx.error.is_incomplete) {
			/* what follows is no expression either: the
			 * first pass's "invalid syntax" stands */
			p->failed = false;
			p->err_from_lexer = false;
			p->incomplete = false;
			return error_span(p, at, at_end, "invalid syntax");
		}
	} else if (p->tok.kind == TOK_NEWLINE || p->tok.kind == TOK_EOF ||
	    p->tok.kind == TOK_SEMI)
		peek(p);
	if ((p->tok.kind == TOK_ERROR || (p->has_next &&
	    p->next.kind == TOK_ERROR)) && p->lx.error.is_incomplete) {
		p->failed = false;
		p->incomplete = false;
		error_span(p, p->lx.error.start, p->lx.error.end,
		    p->lx.error.msg);
		return NULL;
	}
	if (!is_assign)
		return error_span(p, elem->start, next->end,
		    "invalid syntax. Perhaps you forgot a comma?");
	if (p->tok.kind == TOK_EQUAL || p->tok.kind == TOK_COLONEQUAL)
		return error_span(p, at, at_end, "invalid syntax");
	if (elem->kind == NODE_NAME)
		return error_span(p, elem->start, next->end, "invalid syntax. "
		    "Maybe you meant '==' or ':=' instead of '='?");
	if (is_bitwise_operand(elem))
		return error_span(p, elem->start, elem->end, arena_printf(p->a,
		    "cannot assign to %s here. Maybe you meant '==' instead "
		    "of '='?", expr_name(elem)));
	return error_span(p, at, at_end, "invalid syntax");
}

/* The name of an expression as CPython's messages use it. */
const char *
expr_name(const struct node *n)
{
	switch (n->kind) {
	case NODE_ATTRIBUTE: return "attribute";
	case NODE_SUBSCRIPT: return "subscript";
	case NODE_STARRED: return "starred";
	case NODE_NAME: return "name";
	case NODE_LIST: return "list";
	case NODE_TUPLE: return "tuple";
	case NODE_LAMBDA: return "lambda";
	case NODE_CALL: return "function call";
	case NODE_BOOLOP: case NODE_BINOP: case NODE_UNARYOP:
		return "expression";
	case NODE_GENERATOREXP: return "generator expression";
	case NODE_LISTCOMP: return "list comprehension";
	case NODE_SETCOMP: return "set comprehension";
	case NODE_DICTCOMP: return "dict comprehension";
	case NODE_DICT: return "dict literal";
	case NODE_SET: return "set display";
	case NODE_JOINEDSTR: case NODE_FORMATTEDVALUE:
		return "f-string expression";
	case NODE_CONSTANT:
		switch (n->u.constant.value.type) {
		case VT_NONE: return "None";
		case VT_BOOL: return n->u.constant.value.as.b ? "True" : "False";
		case VT_ELLIPSIS: return "ellipsis";
		default: return "literal";
		}
	case NODE_COMPARE: return "comparison";
	case NODE_IFEXP: return "conditional expression";
	case NODE_NAMEDEXPR: return "named expression";
	default: return "expression";
	}
}

/* The first node in t that cannot be assigned to, or NULL. */
const struct node *
invalid_target(const struct node *t)
{
	size_t i;
	switch (t->kind) {
	case NODE_NAME: case NODE_ATTRIBUTE: case NODE_SUBSCRIPT:
		return NULL;
	case NODE_STARRED:
		return invalid_target(t->u.starred.value);
	case NODE_TUPLE: case NODE_LIST:
		for (i = 0; i < t->u.seq.elts.len; i++) {
			const struct node *bad =
			    invalid_target(t->u.seq.elts.items[i]);
			if (bad)
				return bad;
		}
		return NULL;
	default:
		return t;
	}
}

/* Switch a valid target to Store context (and its elements). */
void
set_store(struct node *t)
{
	size_t i;
	switch (t->kind) {
	case NODE_NAME: t->u.name.ctx = CTX_STORE; break;
	case NODE_ATTRIBUTE: t->u.attribute.ctx = CTX_STORE; break;
	case NODE_SUBSCRIPT: t->u.subscript.ctx = CTX_STORE; break;
	case NODE_STARRED:
		t->u.starred.ctx = CTX_STORE;
		set_store(t->u.starred.value);
		break;
	case NODE_TUPLE: case NODE_LIST:
		t->u.seq.ctx = CTX_STORE;
		for (i = 0; i < t->u.seq.elts.len; i++)
			set_store(t->u.seq.elts.items[i]);
		break;
	default:
		break;
	}
}

/* A target list: valid -> Store, else "cannot assign to ...". */
bool
check_target(struct parser *p, struct node *t)
{
	const struct node *bad = invalid_target(t);
	if (bad) {
		error_span(p, bad->start, bad->end, arena_printf(p->a,
		    "cannot assign to %s", expr_name(bad)));
		return false;
	}
	set_store(t);
	return true;
}

/*
 * Copy the plain ASCII name of token t to id, which has room for it,
 * its NUL and up to 8 bytes in all, and is zeroed (carved with the
 * nodes): the NUL is there.
 */
static inline void
copy_name(const struct parser *p, const struct token *t, char *id)
{
	const char *src = p->src + t->start;
	uint32_t n = t->length;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* a short name is one 8-byte load with the bytes after it masked
	 * off, when the source has 8 bytes from its start */
	if (n <= 8 && t->start + 8 <= p->len) {
		uint64_t w;
		memcpy(&w, src, 8);
		w &= ~UINT64_C(0) >> (64 - 8 * n);
		memcpy(id, &w, 8);
		return;
	}
#endif
	if (n > 8 && n <= 16) {
		/* two 8-byte copies that overlap in the middle */
		memcpy(id, src, 8);
		memcpy(id + n - 8, src + n - 8, 8);
		return;
	}
	memcpy(id, src, n);
}

const char *
identifier(struct parser *p, const struct token *t)
{
	char *id;
	if (t->is_non_ascii)
		return unicode_nfkc_identifier(p->a, p->src + t->start,
		    t->length);
	id = node_alloc(p, (size_t)t->length + 1);
	copy_name(p, t, id);
	return id;
}

/*
 * A Name node (Load) for the NAME token t.  A plain ASCII name is carved
 * with the node, right after it, as mk() and identifier() one after the
 * other would place it.
 */
static struct node *
name_node(struct parser *p, const struct token *t)
{
	struct node *n;
	if (t->is_non_ascii) {
		n = mk(p, NODE_NAME, t->start, tok_end(t));
		n->u.name.id = identifier(p, t);
	} else {
		char *id;
		n = mk_extra(p, NODE_NAME, t->start, tok_end(t),
		    (size_t)t->length + 1);
		id = (char *)n + node_size(NODE_NAME);
		copy_name(p, t, id);
		n->u.name.id = id;
	}
	n->u.name.ctx = CTX_LOAD;
	return n;
}
/* ============================================================ numbers */

static struct node *number_slow(struct parser *p);

/* NUMBER: the value of an int, float or imaginary literal.  (Out of
 * line: inlined into atom() it made every name's atom save six
 * registers.) */
static struct node * __attribute__((noinline))
number(struct parser *p)
{
	struct token t = p->tok;

	/* the usual literal, up to 18 plain decimal digits (which fit an
	 * int64_t), is read here directly; others take the way below */
	if (t.flags == NUM_INT && t.length <= 18 &&
	    (p->src[t.start] != '0' || t.length == 1)) {
		const char *d = p->src + t.start;
		int64_t v = 0;
		uint32_t i;
		for (i = 0; i < t.length && d[i] >= '0' && d[i] <= '9'; i++)
			v = v * 10 + (d[i] - '0');
		if (i == t.length) {
			struct node *c = mk(p, NODE_CONSTANT, t.start,
			    tok_end(&t));
			c->u.constant.value = value_int(v);
			advance(p);
			return c;
		}
	}
	return number_slow(p);
}

/* NUMBER, any of them: underscores, prefixes, floats, big ints. */
static struct node *
number_slow(struct parser *p)
{
	struct token t = p->tok;
	const char *s = p->src + t.start;
	char small[32];
	char *digits = t.length < sizeof small ? small :
	    arena_alloc(p->a, (size_t)t.length + 1);
	size_t n = 0, i, ndigits = 0;
	struct node *c = mk(p, NODE_CONSTANT, t.start, tok_end(&t));
	int base = 10;

	for (i = 0; i < t.length; i++)
		if (s[i] != '_')
			digits[n++] = s[i];
	digits[n] = '\0';
	if (t.flags == NUM_INT) {
		const char *d = digits;
		if (n > 1 && digits[0] == '0' && digits[1] != '0' &&
		    !(digits[1] >= '1' && digits[1] <= '9')) {
			char b = (char)(digits[1] | 0x20);
			base = b == 'x' ? 16 : b == 'o' ? 8 : 2;
			d = digits + 2;
		}
		if (base == 10) {
			while (d[0] == '0' && d[1] != '\0')
				d++;
			ndigits = n - (size_t)(d - digits);
			if (ndigits > INT_MAX_STR_DIGITS) {
				p->column_override = 0;
				return error_span(p, t.start, tok_end(&t),
				    arena_printf(p->a, "Exceeds the limit "
				    "(%d digits) for integer string conversion:"
				    " value has %zu digits; use "
				    "sys.set_int_max_str_digits() to increase "
				    "the limit - Consider hexadecimal for huge "
				    "integer literals to avoid decimal "
				    "conversion limits.", INT_MAX_STR_DIGITS,
				    ndigits));
			}
		}
		/* up to 18 decimal digits fit an int64_t: skip GMP */
		if (base == 10 && ndigits <= 18)
			c->u.constant.value = value_int(strtoll(d, NULL, 10));
		else
			c->u.constant.value = value_int_str(p->a, d, base);
	} else if (t.flags == NUM_FLOAT) {
		c->u.constant.value = value_float(strtod(digits, NULL));
	} else {
		digits[n - 1] = '\0';	/* the j */
		c->u.constant.value = value_complex(p->a, 0.0,
		    strtod(digits, NULL));
	}
	advance(p);
	return c;
}

/* ============================================================ plumbing */

/* The slow path of parse_int.h's vec_push. */
void
vec_grow(struct parser *p, struct vec *v)
{
	size_t ncap = v->cap * 2;
	struct node **items = node_alloc(p, ncap * sizeof *items);
	memcpy(items, v->items, v->len * sizeof *items);
	v->items = items;
	v->cap = ncap;
}

/*
 * atom -> NAME | 'True' | 'False' | 'None' | strings | NUMBER | '...' |
 *         tuple | group | genexp | list | listcomp | dict | set | ...comp
 */
static struct node *atom_other(struct parser *p) __attribute__((noinline));

static struct node *
atom(struct parser *p)
{
	struct node *n;
	/* a name or a number here, the rest out of line */
	if (p->tok.kind == TOK_NAME) {
		n = name_node(p, &p->tok);
		advance(p);
		return n;
	}
	if (p->tok.kind == TOK_NUMBER)
		return number(p);
	return atom_other(p);
}

static struct node *
atom_other(struct parser *p)
{
	struct node *n;
	struct token t = p->tok;
	switch (t.kind) {
	case TOK_TRUE: case TOK_FALSE: case TOK_NONE: case TOK_ELLIPSIS:
		n = mk(p, NODE_CONSTANT, t.start, tok_end(&t));
		n->u.constant.value = t.kind == TOK_TRUE ? value_bool(true) :
		    t.kind == TOK_FALSE ? value_bool(false) :
		    t.kind == TOK_NONE ? value_none() : value_ellipsis();
		advance(p);
		return n;
	case TOK_STRING:
		return strings(p);
	case TOK_LPAR: {
		struct node *r;
		if (!enter(p))
			return NULL;
		r = paren(p);
		leave(p);
		return r;
	}
	case TOK_LSQB: {
		struct node *r;
		if (!enter(p))
			return NULL;
		r = list_display(p);
		leave(p);
		return r;
	}
	case TOK_LBRACE: {
		struct node *r;
		if (!enter(p))
			return NULL;
		r = brace_display(p);
		leave(p);
		return r;
	}
	case TOK_YIELD:
		return error_here(p, "'yield' is not supported here");
	case TOK_AWAIT:
		return error_here(p, "'await' is not supported here");
	default:
		return error_here(p, NULL);
	}
}

/* ============================================================ primaries */

/*
 * args -> ','.(starred_expression | (assignment_expression | expression
 *         !':=') !'=')+ [',' kwargs] | kwargs
 * kwargs -> ','.(NAME '=' expression | '*' expression | '**' expression)+
 * A lone generator expression argument takes the call's parentheses.
 */
static struct node *
call(struct parser *p, struct node *func, uint32_t start)
{
	uint32_t open = p->tok.start;
	struct vec args = { NULL, 0, 0 }, kws = { NULL, 0, 0 };
	bool seen_kw = false, seen_dstar = false;
	const char *pending = NULL;	/* reported at the ')' as 3.11 does */
	struct node *n, *e = NULL;

	advance(p);
	while (p->tok.kind != TOK_RPAR) {
		uint32_t s0 = p->tok.start;
		if (p->tok.kind == TOK_DOUBLESTAR) {
			advance(p);
			if ((e = expression(p)) == NULL)
				return NULL;
			n = mk(p, NODE_KEYWORD, s0, p->prev_end);
			n->u.keyword.value = e;
			vec_push(p, &kws, n);
			seen_dstar = true;
		} else if (p->tok.kind == TOK_STAR) {
			if (seen_dstar)
				return error_here(p, "iterable argument "
				    "unpacking follows keyword argument "
				    "unpacking");
			advance(p);
			if ((e = expression(p)) == NULL)
				return NULL;
			n = mk(p, NODE_STARRED, s0, p->prev_end);
			n->u.starred.value = e;
			vec_push(p, &args, n);
		} else if (p->tok.kind == TOK_NAME &&
		    peek(p)->kind == TOK_EQUAL) {
			struct token name = p->tok;
			advance(p);
			advance(p);
			if ((e = expression(p)) == NULL)
				return NULL;
			n = mk(p, NODE_KEYWORD, s0, p->prev_end);
			n->u.keyword.arg = identifier(p, &name);
			n->u.keyword.value = e;
			vec_push(p, &kws, n);
			seen_kw = true;
		} else {
			if ((e = named_expression(p)) == NULL)
				return NULL;
			if (p->tok.kind == TOK_EQUAL) {
				if (e->kind == NODE_CONSTANT &&
				    (e->u.constant.value.type == VT_BOOL ||
				    e->u.constant.value.type == VT_NONE))
					return error_span(p, e->start, e->end,
					    arena_printf(p->a,
					    "cannot assign to %s",
					    expr_name(e)));
				return error_span(p, e->start,
				    tok_end(&p->tok), "expression cannot "
				    "contain assignment, perhaps you meant "
				    "\"==\"?");
			}
			if (p->tok.kind == TOK_FOR || p->tok.kind == TOK_ASYNC) {
				struct vec gens = { NULL, 0, 0 };
				struct node *g;
				bool alone = args.len == 0 && kws.len == 0;
				if (!comprehensions(p, &gens))
					return NULL;
				if (!alone || p->tok.kind != TOK_RPAR) {
					uint32_t gend = p->prev_end;
					if (!alone || p->tok.kind == TOK_COMMA)
						return error_span(p, e->start,
						    gend, "Generator expression"
						    " must be parenthesized");
					return error_after_element(p, NULL);
				}
				g = mk(p, NODE_GENERATOREXP, open,
				    tok_end(&p->tok));
				g->u.comp.elt = e;
				g->u.comp.generators = vec_list(&gens);
				e = g;
			} else if (seen_dstar && pending == NULL)
				pending = "positional argument follows keyword "
				    "argument unpacking";
			else if (seen_kw && pending == NULL)
				pending = "positional argument follows keyword "
				    "argument";
			vec_push(p, &args, e);
		}
		if (!accept(p, TOK_COMMA)) {
			if (p->tok.kind != TOK_RPAR)
				return error_after_element(p, e);
			break;
		}
		/* a generator argument must be the only argument */
		if (e->kind == NODE_GENERATOREXP && e->start == open &&
		    p->tok.kind != TOK_RPAR)
			return error_span(p, e->u.comp.elt->start, p->prev_end,
			    "Generator expression must be parenthesized");
	}
	if (pending)
		return error_here(p, pending);
	advance(p);
	n = mk(p, NODE_CALL, start, p->prev_end);
	n->u.call.func = func;
	n->u.call.args = vec_list(&args);
	n->u.call.keywords = vec_list(&kws);
	return n;
}

/*
 * slice -> [expression] ':' [expression] [':' [expression]] | named_expression
 */
static struct node *
slice(struct parser *p)
{
	uint32_t start = p->tok.start;
	struct node *lower = NULL, *upper = NULL, *step = NULL, *n;

	if (p->tok.kind == TOK_STAR) {
		struct node *e;
		advance(p);
		if ((e = bitwise_or(p)) == NULL)
			return NULL;
		n = mk(p, NODE_STARRED, start, p->prev_end);
		n->u.starred.value = e;
		return n;
	}
	if (p->tok.kind != TOK_COLON) {
		if ((lower = named_expression(p)) == NULL)
			return NULL;
		if (p->tok.kind != TOK_COLON)
			return lower;
	}
	advance(p);
	if (p->tok.kind != TOK_COLON && p->tok.kind != TOK_COMMA &&
	    p->tok.kind != TOK_RSQB && (upper = expression(p)) == NULL)
		return NULL;
	if (accept(p, TOK_COLON) && p->tok.kind != TOK_COMMA &&
	    p->tok.kind != TOK_RSQB && (step = expression(p)) == NULL)
		return NULL;
	n = mk(p, NODE_SLICE, start, p->prev_end);
	n->u.slice.lower = lower;
	n->u.slice.upper = upper;
	n->u.slice.step = step;
	return n;
}

/* slices -> slice !',' | ','.(slice | starred_expression)+ [','] */
static struct node *
subscript(struct parser *p, struct node *val, uint32_t start)
{
	struct node *n, *s, *first;
	struct vec elts = { NULL, 0, 0 };
	uint32_t sstart;

	advance(p);
	sstart = p->tok.start;
	if ((first = slice(p)) == NULL)
		return NULL;
	s = first;
	if (p->tok.kind == TOK_COMMA) {
		vec_push(p, &elts, first);
		while (accept(p, TOK_COMMA)) {
			struct node *e;
			if (p->tok.kind == TOK_RSQB)
				break;
			if ((e = slice(p)) == NULL)
				return NULL;
			vec_push(p, &elts, e);
		}
		s = mk(p, NODE_TUPLE, sstart, p->prev_end);
		s->u.seq.elts = vec_list(&elts);
	} else if (first->kind == NODE_STARRED) {
		/* 3.11 accepts a[*b] as a one-element tuple */
		vec_push(p, &elts, first);
		s = mk(p, NODE_TUPLE, first->start, first->end);
		s->u.seq.elts = vec_list(&elts);
	}
	if (!accept(p, TOK_RSQB))
		return error_after_element(p, s);
	n = mk(p, NODE_SUBSCRIPT, start, p->prev_end);
	n->u.subscript.value = val;
	n->u.subscript.slice = s;
	n->u.subscript.ctx = CTX_LOAD;
	return n;
}

/* primary -> primary '.' NAME | primary '(' args ')' |
 *            primary '[' slices ']' | atom */
/*
 * Spans: a node built on a left operand starts where the operand's first
 * token starts, brackets included, as in CPython: in "(a).b" the
 * Attribute starts at '(' while the Name keeps its own span.
 */
static struct node *
primary(struct parser *p)
{
	uint32_t start = p->tok.start;
	struct node *e = atom(p), *n;

	while (e != NULL) {
		switch (p->tok.kind) {
		case TOK_DOT:
			advance(p);
			if (p->tok.kind != TOK_NAME)
				return error_here(p, NULL);
			n = mk(p, NODE_ATTRIBUTE, start, tok_end(&p->tok));
			n->u.attribute.value = e;
			n->u.attribute.attr = identifier(p, &p->tok);
			n->u.attribute.ctx = CTX_LOAD;
			advance(p);
			e = n;
			break;
		case TOK_LPAR:
			e = call(p, e, start);
			break;
		case TOK_LSQB:
			e = subscript(p, e, start);
			break;
		default:
			return e;
		}
	}
	return NULL;
}

/* ============================================================ operators */

/*
 * The one precedence table of the binary operators below comparison
 * (Python's bitwise_or .. term).  '**' is not here: it binds tighter than
 * a unary minus on its left and is parsed by power().
 */
static const struct {
	uint8_t		prec;		/* 0: not a binary operator */
	enum binop	op;
} binary_ops[TOK__COUNT] = {
	[TOK_VBAR]        = { 1, BINOP_BITOR },
	[TOK_CIRCUMFLEX]  = { 2, BINOP_BITXOR },
	[TOK_AMPER]       = { 3, BINOP_BITAND },
	[TOK_LEFTSHIFT]   = { 4, BINOP_LSHIFT },
	[TOK_RIGHTSHIFT]  = { 4, BINOP_RSHIFT },
	[TOK_PLUS]        = { 5, BINOP_ADD },
	[TOK_MINUS]       = { 5, BINOP_SUB },
	[TOK_STAR]        = { 6, BINOP_MULT },
	[TOK_SLASH]       = { 6, BINOP_DIV },
	[TOK_DOUBLESLASH] = { 6, BINOP_FLOORDIV },
	[TOK_PERCENT]     = { 6, BINOP_MOD },
	[TOK_AT]          = { 6, BINOP_MATMULT },
};

/*
 * Tokens that can continue an expression after an operand: a trailer of
 * a primary, '**', a binary or comparison operator, and the words of
 * comparisons, boolean operators and if-else.  After any other token a
 * lone NAME or NUMBER is a whole expression.
 */
static const bool continues_operand[TOK__COUNT] = {
	[TOK_LPAR] = true, [TOK_LSQB] = true, [TOK_DOT] = true,
	[TOK_DOUBLESTAR] = true,
	[TOK_VBAR] = true, [TOK_CIRCUMFLEX] = true, [TOK_AMPER] = true,
	[TOK_LEFTSHIFT] = true, [TOK_RIGHTSHIFT] = true, [TOK_PLUS] = true,
	[TOK_MINUS] = true, [TOK_STAR] = true, [TOK_SLASH] = true,
	[TOK_DOUBLESLASH] = true, [TOK_PERCENT] = true, [TOK_AT] = true,
	[TOK_EQEQUAL] = true, [TOK_NOTEQUAL] = true, [TOK_LESS] = true,
	[TOK_LESSEQUAL] = true, [TOK_GREATER] = true,
	[TOK_GREATEREQUAL] = true, [TOK_IN] = true, [TOK_NOT] = true,
	[TOK_IS] = true, [TOK_AND] = true, [TOK_OR] = true, [TOK_IF] = true,
};

/* Tokens that start a primary (an atom and its trailers). */
static const bool starts_primary[TOK__COUNT] = {
	[TOK_NAME] = true, [TOK_NUMBER] = true, [TOK_STRING] = true,
	[TOK_LPAR] = true, [TOK_LSQB] = true, [TOK_LBRACE] = true,
	[TOK_TRUE] = true, [TOK_FALSE] = true, [TOK_NONE] = true,
	[TOK_ELLIPSIS] = true,
};

/*
 * Is the current token a NAME or NUMBER that the next token does not
 * extend into a bigger primary ('.', '(', '[') or a power?  Then the
 * operand is that one atom, and the descent through every precedence
 * level (which would find no operator and hand it back unchanged) can
 * be skipped: lone_operand() parses it as factor() would.
 */
static bool
is_lone_atom(struct parser *p)
{
	enum token_kind k;
	if (p->tok.kind != TOK_NAME && p->tok.kind != TOK_NUMBER)
		return false;
	k = peek(p)->kind;
	return k != TOK_LPAR && k != TOK_LSQB && k != TOK_DOT &&
	    k != TOK_DOUBLESTAR;
}

static struct node *
lone_operand(struct parser *p)
{
	struct node *n = atom(p);
	if (n != NULL && *p->depth == p->probe_depth)
		p->probe_operand = true;
	return n;
}

/* Where the operand about to be parsed starts: the pending one's start
 * when expression() has parsed it already. */
static uint32_t
operand_start(const struct parser *p)
{
	return p->pending != NULL ? p->pending_start : p->tok.start;
}

/* power -> primary '**' factor | primary */
static struct node *
power(struct parser *p)
{
	uint32_t start = operand_start(p);
	struct node *base, *exp, *n;

	if (p->pending != NULL) {
		base = p->pending;
		p->pending = NULL;
	} else
		base = primary(p);
	if (base == NULL || p->tok.kind != TOK_DOUBLESTAR)
		return base;
	advance(p);
	if (!enter(p))
		return NULL;
	exp = factor(p);
	leave(p);
	if (exp == NULL)
		return NULL;
	n = mk(p, NODE_BINOP, start, p->prev_end);
	n->u.binop.left = base;
	n->u.binop.op = BINOP_POW;
	n->u.binop.right = exp;
	return n;
}

/* factor -> '+' factor | '-' factor | '~' factor | power */
static struct node *
factor(struct parser *p)
{
	enum unaryop op;
	uint32_t start = p->tok.start;
	struct node *operand, *n;

	switch (p->pending != NULL ? TOK_NAME : p->tok.kind) {
	case TOK_PLUS: op = UNARYOP_UADD; break;
	case TOK_MINUS: op = UNARYOP_USUB; break;
	case TOK_TILDE: op = UNARYOP_INVERT; break;
	default:
		n = power(p);
		if (n != NULL && *p->depth == p->probe_depth)
			p->probe_operand = true;
		return n;
	}
	advance(p);
	if (!enter(p))
		return NULL;
	operand = factor(p);
	leave(p);
	if (operand == NULL)
		return NULL;
	n = mk(p, NODE_UNARYOP, start, p->prev_end);
	n->u.unaryop.op = op;
	n->u.unaryop.operand = operand;
	if (*p->depth == p->probe_depth)
		p->probe_operand = true;
	return n;
}

static struct node *binary(struct parser *p, unsigned min_prec);

/*
 * The right operand of an operator of precedence prec that starts with
 * a primary: the primary is parsed first, as factor() would, and is the
 * whole operand unless '**' or a tighter operator follows it; then
 * binary() takes it (pending) as its first operand.
 */
static struct node *
right_operand(struct parser *p, unsigned prec)
{
	uint32_t start = p->tok.start;
	struct node *e = primary(p);
	if (e == NULL)
		return NULL;
	if (p->tok.kind != TOK_DOUBLESTAR &&
	    binary_ops[p->tok.kind].prec <= prec) {
		if (*p->depth == p->probe_depth)
			p->probe_operand = true;
		return e;
	}
	p->pending = e;
	p->pending_start = start;
	return binary(p, prec + 1);
}

/*
 * bitwise_or .. term, Pratt style: operators of at least min_prec are
 * folded left in a loop; only a tighter operator on the right recurses,
 * so the recursion is bounded by the number of precedence levels.
 * binary_fold() is the loop, from a left operand already parsed.
 */
static struct node *
binary_fold(struct parser *p, struct node *left, uint32_t start,
    unsigned min_prec)
{
	while (left != NULL) {
		unsigned prec = binary_ops[p->tok.kind].prec;
		enum binop op = binary_ops[p->tok.kind].op;
		struct node *right, *n;
		if (prec == 0 || prec < min_prec)
			break;
		advance(p);
		/* a lone atom before an operator that binds no tighter is
		 * the whole right operand: binary(prec + 1) would stop */
		if (is_lone_atom(p) && binary_ops[p->next.kind].prec <= prec)
			right = lone_operand(p);
		else if (starts_primary[p->tok.kind])
			right = right_operand(p, prec);
		else
			right = binary(p, prec + 1);
		if (right == NULL)
			return NULL;
		n = mk(p, NODE_BINOP, start, p->prev_end);
		n->u.binop.left = left;
		n->u.binop.op = op;
		n->u.binop.right = right;
		left = n;
	}
	return left;
}

static struct node *
binary(struct parser *p, unsigned min_prec)
{
	uint32_t start = operand_start(p);
	return binary_fold(p, factor(p), start, min_prec);
}

struct node *
bitwise_or(struct parser *p)
{
	return binary(p, 1);
}

/* The comparison operator at the current token, consuming it. */
static bool
compare_op(struct parser *p, enum cmpop *op)
{
	switch (p->tok.kind) {
	case TOK_EQEQUAL: *op = CMPOP_EQ; break;
	case TOK_NOTEQUAL: *op = CMPOP_NOTEQ; break;
	case TOK_LESS: *op = CMPOP_LT; break;
	case TOK_LESSEQUAL: *op = CMPOP_LTE; break;
	case TOK_GREATER: *op = CMPOP_GT; break;
	case TOK_GREATEREQUAL: *op = CMPOP_GTE; break;
	case TOK_IN: *op = CMPOP_IN; break;
	case TOK_IS:
		advance(p);
		*op = accept(p, TOK_NOT) ? CMPOP_ISNOT : CMPOP_IS;
		return true;
	case TOK_NOT:
		if (peek(p)->kind != TOK_IN) {
			/* 'not' after an operand can only be 'not in' */
			advance(p);
			error_here(p, NULL);
			return false;
		}
		advance(p);
		*op = CMPOP_NOTIN;
		break;
	default:
		return false;
	}
	advance(p);
	return true;
}

/* comparison -> bitwise_or (compare_op bitwise_or)* */
static struct node *
comparison(struct parser *p)
{
	uint32_t start = operand_start(p);
	struct node *left = bitwise_or(p), *n, *right;
	struct vec comps = { NULL, 0, 0 };
	enum cmpop *ops = NULL;
	size_t nops = 0, cap = 0;
	enum cmpop op;

	if (left == NULL)
		return NULL;
	while (compare_op(p, &op) || p->failed) {
		if (p->failed)
			return NULL;
		if ((right = bitwise_or(p)) == NULL)
			return NULL;
		if (nops == cap) {
			size_t ncap = cap ? cap * 2 : 2;
			ops = arena_grow(p->a, ops, cap, ncap, sizeof *ops);
			cap = ncap;
		}
		ops[nops++] = op;
		vec_push(p, &comps, right);
	}
	if (nops == 0)
		return left;
	n = mk(p, NODE_COMPARE, start, p->prev_end);
	n->u.compare.left = left;
	n->u.compare.ops = ops;
	n->u.compare.comparators = vec_list(&comps);
	return n;
}

/* inversion -> 'not' inversion | comparison */
static struct node *
inversion(struct parser *p)
{
	uint32_t start = p->tok.start;
	struct node *operand, *n;
	if (p->pending != NULL || p->tok.kind != TOK_NOT)
		return comparison(p);
	advance(p);
	if (!enter(p))
		return NULL;
	operand = inversion(p);
	leave(p);
	if (operand == NULL)
		return NULL;
	n = mk(p, NODE_UNARYOP, start, p->prev_end);
	n->u.unaryop.op = UNARYOP_NOT;
	n->u.unaryop.operand = operand;
	return n;
}

/* conjunction -> inversion ('and' inversion)* ;
 * disjunction -> conjunction ('or' conjunction)*  (one BoolOp per chain) */
static struct node *
boolop(struct parser *p, enum boolop op)
{
	enum token_kind k = op == BOOLOP_AND ? TOK_AND : TOK_OR;
	struct node *first, *e = NULL, *n;
	struct vec values = { NULL, 0, 0 };
	uint32_t start = operand_start(p);

	first = op == BOOLOP_AND ? inversion(p) : boolop(p, BOOLOP_AND);
	if (first == NULL || p->tok.kind != k)
		return first;
	vec_push(p, &values, first);
	while (accept(p, k)) {
		e = op == BOOLOP_AND ? inversion(p) : boolop(p, BOOLOP_AND);
		if (e == NULL)
			return NULL;
		vec_push(p, &values, e);
	}
	n = mk(p, NODE_BOOLOP, start, p->prev_end);
	n->u.boolop.op = op;
	n->u.boolop.values = vec_list(&values);
	return n;
}

struct node *
disjunction(struct parser *p)
{
	return boolop(p, BOOLOP_OR);
}

/*
 * lambda_params -> the parameter list of a lambda, with defaults,
 * positional-only ('/'), *args or a bare '*', keyword-only and **kwargs.
 */
static struct node *
lambda_params(struct parser *p)
{
	struct node *args = mk(p, NODE_ARGUMENTS, p->tok.start, p->tok.start);
	struct vec pos = { NULL, 0, 0 }, defaults = { NULL, 0, 0 };
	struct vec kwonly = { NULL, 0, 0 }, kwdefaults = { NULL, 0, 0 };
	bool star = false;
	struct node *a, *d;

	while (p->tok.kind != TOK_COLON) {
		if (p->tok.kind == TOK_LPAR)
			return error_here(p, "Lambda expression parameters "
			    "cannot be parenthesized");
		if (p->tok.kind == TOK_SLASH) {
			if (args->u.arguments.posonlyargs.len > 0)
				return error_here(p, "/ may appear only once");
			if (star)
				return error_here(p, "/ must be ahead of *");
			if (pos.len == 0)
				return error_here(p, NULL);
			advance(p);
			args->u.arguments.posonlyargs = vec_list(&pos);
			memset(&pos, 0, sizeof pos);
		} else if (p->tok.kind == TOK_STAR) {
			if (star)
				return error_here(p, "* argument may appear "
				    "only once");
			star = true;
			advance(p);
			if (p->tok.kind == TOK_NAME) {
				a = mk(p, NODE_ARG, p->tok.start,
				    tok_end(&p->tok));
				a->u.arg.arg = identifier(p, &p->tok);
				args->u.arguments.vararg = a;
				advance(p);
			} else {
				if (p->tok.kind == TOK_COLON)
					return error_here(p, "named arguments "
					    "must follow bare *");
				if (p->tok.kind == TOK_COMMA &&
				    (peek(p)->kind == TOK_COLON ||
				    peek(p)->kind == TOK_DOUBLESTAR)) {
					advance(p);
					return error_here(p, "named arguments "
					    "must follow bare *");
				}
			}
		} else if (p->tok.kind == TOK_DOUBLESTAR) {
			advance(p);
			if (p->tok.kind != TOK_NAME)
				return error_here(p, NULL);
			a = mk(p, NODE_ARG, p->tok.start, tok_end(&p->tok));
			a->u.arg.arg = identifier(p, &p->tok);
			args->u.arguments.kwarg = a;
			advance(p);
			if (accept(p, TOK_COMMA) && (p->tok.kind == TOK_NAME ||
			    p->tok.kind == TOK_STAR ||
			    p->tok.kind == TOK_DOUBLESTAR))
				return error_here(p, "arguments cannot follow "
				    "var-keyword argument");
			if (p->tok.kind != TOK_COLON)
				return error_here(p, NULL);
			break;
		} else if (p->tok.kind == TOK_NAME) {
			a = mk(p, NODE_ARG, p->tok.start, tok_end(&p->tok));
			a->u.arg.arg = identifier(p, &p->tok);
			advance(p);
			d = NULL;
			if (accept(p, TOK_EQUAL) && (d = expression(p)) == NULL)
				return NULL;
			if (star) {
				vec_push(p, &kwonly, a);
				vec_push(p, &kwdefaults, d);
			} else {
				if (d == NULL && defaults.len > 0)
					return error_span(p, a->start, a->end,
					    "non-default argument follows "
					    "default argument");
				vec_push(p, &pos, a);
				if (d)
					vec_push(p, &defaults, d);
			}
		} else
			return error_here(p, NULL);
		if (!accept(p, TOK_COMMA))
			break;
	}
	args->u.arguments.args = vec_list(&pos);
	args->u.arguments.defaults = vec_list(&defaults);
	args->u.arguments.kwonlyargs = vec_list(&kwonly);
	args->u.arguments.kw_defaults = vec_list(&kwdefaults);
	args->end = p->prev_end;
	return args;
}

/* lambdef -> 'lambda' [lambda_params] ':' expression */
static struct node *
lambdef(struct parser *p)
{
	uint32_t start = p->tok.start;
	struct node *args, *body, *n;

	advance(p);
	if ((args = lambda_params(p)) == NULL)
		return NULL;
	if (p->tok.kind != TOK_COLON)
		return error_here(p, NULL);
	advance(p);
	if ((body = expression(p)) == NULL)
		return NULL;
	n = mk(p, NODE_LAMBDA, start, p->prev_end);
	n->u.lambda.args = args;
	n->u.lambda.body = body;
	return n;
}

/* expression -> disjunction 'if' disjunction 'else' expression |
 *               disjunction | lambdef */
struct node *
expression(struct parser *p)
{
	struct node *body, *test, *orelse, *n = NULL;
	uint32_t start = p->tok.start;

	if (!enter(p))
		return NULL;
	if (p->tok.kind == TOK_LAMBDA) {
		n = lambdef(p);
		leave(p);
		return n;
	}
	if (is_lone_atom(p) && !continues_operand[p->next.kind]) {
		n = lone_operand(p);
		leave(p);
		return n;
	}
	if (starts_primary[p->tok.kind]) {
		/*
		 * Parse the primary first, as factor() would: when no
		 * operator follows it, it is the whole expression and the
		 * descent through the precedence levels is skipped; else
		 * those levels take it as their first operand.
		 */
		uint32_t pstart = p->tok.start;
		struct node *e = primary(p);
		if (e == NULL || !continues_operand[p->tok.kind]) {
			if (e != NULL && *p->depth == p->probe_depth)
				p->probe_operand = true;
			leave(p);
			return e;
		}
		if (binary_ops[p->tok.kind].prec != 0) {
			/*
			 * An arithmetic or bitwise operator: fold it here
			 * as binary(1) would (factor() marks the operand
			 * first), and go down the levels only when a
			 * comparison, 'and', 'or' or 'if' follows.
			 */
			if (*p->depth == p->probe_depth)
				p->probe_operand = true;
			e = binary_fold(p, e, pstart, 1);
			if (e == NULL || (!continues_operand[p->tok.kind] &&
			    !p->failed)) {
				leave(p);
				return e;
			}
		}
		p->pending = e;
		p->pending_start = pstart;
	}
	body = disjunction(p);
	if (body == NULL || p->tok.kind != TOK_IF) {
		leave(p);
		return body;
	}
	advance(p);
	p->probe_depth = *p->depth;
	p->probe_operand = false;
	test = disjunction(p);
	p->probe_depth = UINT_MAX;
	if (test == NULL) {
		/* 3.11's second pass takes the longest test that parses
		 * and, with no 'else' after it, says so */
		if (is_generic_error(p) && p->probe_operand) {
			p->err.msg = "expected 'else' after 'if' expression";
			p->err.end = p->err.start;
			p->err.start = body->start;
		}
		goto out;
	}
	if (p->tok.kind != TOK_ELSE) {
		if (p->tok.kind == TOK_ERROR)
			error_lexer(p);
		else
			error_span(p, body->start, test->end,
			    "expected 'else' after 'if' expression");
		goto out;
	}
	advance(p);
	if ((orelse = expression(p)) == NULL)
		goto out;
	n = mk(p, NODE_IFEXP, start, p->prev_end);
	n->u.ifexp.test = test;
	n->u.ifexp.body = body;
	n->u.ifexp.orelse = orelse;
out:
	leave(p);
	return n;
}

/* NAME ':=' expression, at the NAME (out of line: named_expression()
 * is entered for every argument and element, this rarely) */
static struct node * __attribute__((noinline))
walrus(struct parser *p)
{
	struct node *target, *val, *n;
	target = mk(p, NODE_NAME, p->tok.start, tok_end(&p->tok));
	target->u.name.id = identifier(p, &p->tok);
	target->u.name.ctx = CTX_STORE;
	advance(p);
	advance(p);
	if ((val = expression(p)) == NULL)
		return NULL;
	n = mk(p, NODE_NAMEDEXPR, target->start, p->prev_end);
	n->u.namedexpr.target = target;
	n->u.namedexpr.value = val;
	return n;
}

/* The error for an assignment expression to n (out of line, as walrus). */
static struct node * __attribute__((noinline))
walrus_target_error(struct parser *p, struct node *n)
{
	return error_span(p, n->start, n->end, arena_printf(p->a,
	    "cannot use assignment expressions with %s", expr_name(n)));
}

/* named_expression -> NAME ':=' expression | expression !':=' */
struct node *
named_expression(struct parser *p)
{
	struct node *n;
	if (p->tok.kind == TOK_NAME && peek(p)->kind == TOK_COLONEQUAL)
		return walrus(p);
	n = expression(p);
	if (n && p->tok.kind == TOK_COLONEQUAL)
		return walrus_target_error(p, n);
	return n;
}

/* star_named_expression -> '*' bitwise_or | named_expression */
struct node *
star_named_expression(struct parser *p)
{
	uint32_t start = p->tok.start;
	struct node *e, *n;
	if (p->tok.kind != TOK_STAR)
		return named_expression(p);
	advance(p);
	if ((e = bitwise_or(p)) == NULL)
		return NULL;
	n = mk(p, NODE_STARRED, start, p->prev_end);
	n->u.starred.value = e;
	n->u.starred.ctx = CTX_LOAD;
	return n;
}

/* star_expression -> '*' bitwise_or | expression */
static struct node *
star_expression(struct parser *p)
{
	if (p->tok.kind == TOK_STAR)
		return star_named_expression(p);
	return expression(p);
}

/* star_expressions -> star_expression (',' star_expression)* [','] */
struct node *
star_expressions(struct parser *p)
{
	uint32_t start = p->tok.start;
	struct node *first = star_expression(p), *n;
	struct vec elts = { NULL, 0, 0 };
	if (first == NULL || p->tok.kind != TOK_COMMA)
		return first;
	vec_push(p, &elts, first);
	while (accept(p, TOK_COMMA)) {
		struct node *e;
		if (!starts_expression(&p->tok) && p->tok.kind != TOK_STAR)
			break;
		if ((e = star_expression(p)) == NULL)
			return NULL;
		vec_push(p, &elts, e);
	}
	n = mk(p, NODE_TUPLE, start, p->prev_end);
	n->u.seq.elts = vec_list(&elts);
	return n;
}

/* A bitwise_or other than a display or a keyword constant: what 3.11's
 * invalid_named_expression reports with "here". */
bool
is_bitwise_operand(const struct node *t)
{
	switch (t->kind) {
	case NODE_GENERATOREXP: case NODE_TUPLE: case NODE_LIST:
	case NODE_STARRED: case NODE_COMPARE: case NODE_BOOLOP:
	case NODE_IFEXP: case NODE_LAMBDA: case NODE_NAMEDEXPR:
		return false;
	case NODE_UNARYOP:
		return t->u.unaryop.op != UNARYOP_NOT;
	case NODE_CONSTANT:
		return t->u.constant.value.type != VT_BOOL &&
		    t->u.constant.value.type != VT_NONE;
	default:
		return true;
	}
}
