/*
 * parse.c -- a recursive-descent parser for Python 3.11's expression
 * language and its simple statements, producing the tree ast.parse makes.
 *
 * Tokens are pulled from the lexer one at a time with one token of
 * lookahead beyond the current one; the grammar needs no backtracking
 * because every place where CPython's PEG parser tries alternatives can be
 * decided by the first element parsed and the token after it (a target is
 * parsed as an expression and then checked and switched to Store).
 *
 * Binary operators are parsed Pratt style from one precedence table, so a
 * left-associative chain of any length is a loop, not a recursion.  The
 * only recursion is for real nesting (brackets, unary operators, 'not',
 * '**', lambda and if-else); it is counted in p->depth and refused past
 * PARSE_MAX_DEPTH, and the lexer refuses more than 200 open brackets.
 *
 * Every function returns NULL after an error; the first error is kept in
 * p->err and later ones are ignored, so callers only test for NULL.
 * Each grammar function is preceded by its rule.
 *
 * Errors imitate CPython 3.11, whose PEG parser reports in a second pass
 * with extra "invalid_*" rules, and then lets a tokenizer error found
 * later in the input win.  Where those rules read further than the token
 * that failed, the error paths here parse ahead too (error_after_element,
 * the junk after a statement) and tokenizer_error_first() scans the rest;
 * tests/data/parse_err.tsv holds CPython's verdicts they are checked
 * against.  Only the happy path has to be fast; error paths may not be
 * slower than linear.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ast.h"
#include "lex.h"
#include "parse.h"
#include "sbuf.h"
#include "unicode.h"
#include "value.h"

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
	char		*chunk;		/* nodes are carved from here */
	size_t		 chunk_left, chunk_size;
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

static struct node *expression(struct parser *p);
static bool is_bitwise_operand(const struct node *t);
static const char *expr_name(const struct node *n);
static struct node *named_expression(struct parser *p);
static struct node *star_named_expression(struct parser *p);
static struct node *star_expressions(struct parser *p);
static struct node *disjunction(struct parser *p);
static struct node *bitwise_or(struct parser *p);
static struct node *factor(struct parser *p);
static struct node *atom(struct parser *p);
static bool fstring_parts(struct parser *p, struct token t, uint32_t body,
    uint32_t body_end, struct vec *parts, struct sbuf *lit);

/* ============================================================ plumbing */

static void *node_alloc(struct parser *p, size_t size);

static void vec_grow(struct parser *p, struct vec *v)
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

static void
vec_grow(struct parser *p, struct vec *v)
{
	size_t ncap = v->cap * 2;
	struct node **items = node_alloc(p, ncap * sizeof *items);
	memcpy(items, v->items, v->len * sizeof *items);
	v->items = items;
	v->cap = ncap;
}

static struct nodelist
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
static size_t
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
 * from arena chunks that double from 1 KiB to 64 KiB: a one-line
 * input costs one small chunk, a megabyte of nodes costs no per-node
 * call into the arena.  A request of more than a quarter of a chunk (a
 * long list's items) goes to the arena itself.
 */
static void *node_alloc_slow(struct parser *p, size_t size)
    __attribute__((noinline));

static inline void *
node_alloc(struct parser *p, size_t size)
{
	void *r;
	size = (size + 7) & ~(size_t)7;
	if (size > p->chunk_left)
		return node_alloc_slow(p, size);
	r = p->chunk;
	p->chunk += size;
	p->chunk_left -= size;
	return r;
}

/* A new chunk (or, for a big request, the arena itself). */
static void *
node_alloc_slow(struct parser *p, size_t size)
{
	size_t next = p->chunk_size == 0 ? 1024 :
	    p->chunk_size < 65536 ? p->chunk_size * 2 : 65536;
	if (size > next / 4)
		return arena_alloc(p->a, size);
	p->chunk_size = next;
	p->chunk = arena_alloc(p->a, p->chunk_size);
	p->chunk_left = p->chunk_size;
	return node_alloc(p, size);
}

static struct node *
mk_extra(struct parser *p, enum node_kind kind, uint32_t start, uint32_t end,
    size_t extra)
{
	struct node *n = node_alloc(p, node_size(kind) + extra);
	n->kind = kind;
	n->start = start;
	n->end = end;
	return n;
}

static struct node *
mk(struct parser *p, enum node_kind kind, uint32_t start, uint32_t end)
{
	return mk_extra(p, kind, start, end, 0);
}

/* Record the first error; always returns NULL. */
static struct node *
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

static struct node *
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
static struct node *
error_here(struct parser *p, const char *msg)
{
	if (p->tok.kind == TOK_ERROR)
		return error_lexer(p);
	return error_span(p, p->tok.start, p->tok.start + p->tok.length,
	    msg ? msg : "invalid syntax");
}

static void
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

static struct token *
peek(struct parser *p)
{
	if (!p->has_next) {
		p->next = p->tok.kind == TOK_ERROR ? p->tok : lex_next(&p->lx);
		p->has_next = true;
	}
	return &p->next;
}

static bool
accept(struct parser *p, enum token_kind k)
{
	if (p->tok.kind != k)
		return false;
	advance(p);
	return true;
}

static uint32_t
tok_end(const struct token *t)
{
	return t->start + t->length;
}

/* Expect a token; the error names what was expected. */
static bool
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

static bool
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

static void
leave(struct parser *p)
{
	--*p->depth;
}

/* The start of the last character of node n (where 3.11 points some
 * messages: at its end_col_offset - 1). */
static uint32_t
last_char_start(const struct parser *p, const struct node *n)
{
	uint32_t i = n->end > n->start ? n->end - 1 : n->start;
	while (i > n->start && ((unsigned char)p->src[i] & 0xC0) == 0x80)
		i--;
	return i;
}

/* Can the current token start an expression? */
static bool
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
static bool
is_generic_error(const struct parser *p)
{
	return p->failed && !p->err_from_lexer && !p->err_is_ours &&
	    p->err.msg != NULL && strcmp(p->err.msg, "invalid syntax") == 0;
}

/*
 * After an element inside brackets another expression starts: CPython's
 * "Perhaps you forgot a comma?", else plain "invalid syntax".
 */
static struct node *
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
static const char *
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
static const struct node *
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
static void
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
static bool
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

static const char *
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

/* ============================================================ literals */

static struct node *number_slow(struct parser *p);

/* NUMBER: the value of an int, float or imaginary literal. */
static struct node *
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

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * Where CPython's unicode-escape decoder would say a byte is: it decodes
 * a copy of the body in which every non-ASCII character became a ten-byte
 * \UXXXXXXXX escape, so positions count those as ten.
 */
static size_t
escape_pos(const char *body, size_t off)
{
	size_t i, pos = 0;
	for (i = 0; i < off; i++) {
		unsigned char c = (unsigned char)body[i];
		if (c < 0x80)
			pos++;
		else if ((c & 0xC0) != 0x80)
			pos += 10;
	}
	return pos;
}

/* Literal text, with CR LF and lone CR read as LF as CPython reads source. */
static void
add_text(struct sbuf *out, const char *s, size_t n)
{
	const char *cr;
	while (n > 0 && (cr = memchr(s, '\r', n)) != NULL) {
		size_t k = (size_t)(cr - s);
		sbuf_add(out, s, k);
		sbuf_addc(out, '\n');
		k++;
		if (k < n && s[k] == '\n')
			k++;
		s += k;
		n -= k;
	}
	sbuf_add(out, s, n);
}

/*
 * Decode a string or bytes body with its escapes into out.  Returns false
 * with an error (placed at err_at, as CPython places escape errors at the
 * end of the literal) for a malformed \x, \u, \U or \N escape.
 */
static bool
decode_escapes(struct parser *p, const char *b, size_t n, bool is_bytes,
    uint32_t err_at, struct sbuf *out)
{
	size_t i = 0;
	while (i < n) {
		const char *bs = memchr(b + i, '\\', n - i);
		size_t start, digits, k;
		uint32_t cp = 0;
		char buf[4];
		int c;
		if (bs == NULL) {
			add_text(out, b + i, n - i);
			break;
		}
		add_text(out, b + i, (size_t)(bs - (b + i)));
		start = (size_t)(bs - b);
		i = start + 1;
		if (i >= n) {		/* cannot happen: the lexer pairs them */
			sbuf_addc(out, '\\');
			break;
		}
		c = (unsigned char)b[i++];
		switch (c) {
		case '\n': continue;
		case '\r':	/* a continuation line ending in CR LF or CR */
			if (i < n && b[i] == '\n')
				i++;
			continue;
		case '\\': sbuf_addc(out, '\\'); continue;
		case '\'': sbuf_addc(out, '\''); continue;
		case '"': sbuf_addc(out, '"'); continue;
		case 'a': sbuf_addc(out, '\a'); continue;
		case 'b': sbuf_addc(out, '\b'); continue;
		case 'f': sbuf_addc(out, '\f'); continue;
		case 'n': sbuf_addc(out, '\n'); continue;
		case 'r': sbuf_addc(out, '\r'); continue;
		case 't': sbuf_addc(out, '\t'); continue;
		case 'v': sbuf_addc(out, '\v'); continue;
		case '0': case '1': case '2': case '3':
		case '4': case '5': case '6': case '7':
			cp = (uint32_t)(c - '0');
			for (k = 0; k < 2 && i < n && b[i] >= '0' && b[i] <= '7';
			    k++)
				cp = cp * 8 + (uint32_t)(b[i++] - '0');
			if (is_bytes)
				sbuf_addc(out, (char)(cp & 0xFF));
			else
				sbuf_add(out, buf, unicode_encode(cp, buf));
			continue;
		case 'x':
			digits = 2;
			break;
		case 'u':
			digits = 4;
			break;
		case 'U':
			digits = 8;
			break;
		case 'N':
			if (is_bytes)
				goto verbatim;
			{
				/* no name table: every name is unknown */
				const char *close = i < n && b[i] == '{' ?
				    memchr(b + i, '}', n - i) : NULL;
				if (close == NULL || close == b + i + 1) {
					size_t endp = close ? (size_t)(close - b)
					    : i - 1;
					error_span(p, err_at, err_at,
					    arena_printf(p->a, "(unicode error) "
					    "'unicodeescape' codec can't decode "
					    "bytes in position %zu-%zu: malformed "
					    "\\N character escape",
					    escape_pos(b, start),
					    escape_pos(b, endp)));
					return false;
				}
				error_span(p, err_at, err_at, arena_printf(p->a,
				    "(unicode error) 'unicodeescape' codec "
				    "can't decode bytes in position %zu-%zu: "
				    "unknown Unicode character name",
				    escape_pos(b, start),
				    escape_pos(b, (size_t)(close - b))));
				return false;
			}
		default:
		verbatim:
			/* an invalid escape stays as written */
			sbuf_addc(out, '\\');
			i--;
			continue;
		}
		if (is_bytes && c != 'x')
			goto verbatim;
		for (k = 0; k < digits; k++) {
			int h = i + k < n ? hexval((unsigned char)b[i + k]) : -1;
			if (h < 0)
				break;
			cp = cp * 16 + (uint32_t)h;
		}
		if (k < digits) {
			if (is_bytes)
				error_span(p, err_at, err_at, arena_printf(p->a,
				    "(value error) invalid \\x escape at "
				    "position %zu", start));
			else
				error_span(p, err_at, err_at, arena_printf(p->a,
				    "(unicode error) 'unicodeescape' codec "
				    "can't decode bytes in position %zu-%zu: "
				    "truncated \\%s escape",
				    escape_pos(b, start),
				    escape_pos(b, i + k - 1),
				    c == 'x' ? "xXX" : c == 'u' ? "uXXXX" :
				    "UXXXXXXXX"));
			return false;
		}
		i += digits;
		if (is_bytes) {
			sbuf_addc(out, (char)cp);
			continue;
		}
		if (cp > 0x10FFFF) {
			error_span(p, err_at, err_at, arena_printf(p->a,
			    "(unicode error) 'unicodeescape' codec can't "
			    "decode bytes in position %zu-%zu: illegal Unicode "
			    "character", escape_pos(b, start),
			    escape_pos(b, i - 1)));
			return false;
		}
		sbuf_add(out, buf, unicode_encode(cp, buf));
	}
	return true;
}

/* The body of one non-f string token, decoded, appended to out. */
static bool
string_body(struct parser *p, const struct token *t, struct sbuf *out)
{
	uint32_t body = t->start + t->prefix_len + t->quote_len;
	uint32_t n = t->length - t->prefix_len - 2u * t->quote_len;
	const char *b = p->src + body;
	uint32_t i;

	if (t->flags & STR_BYTES)
		for (i = 0; i < n; i++)
			if ((unsigned char)b[i] >= 0x80) {
				error_span(p, t->start, tok_end(t), "bytes can "
				    "only contain ASCII literal characters");
				return false;
			}
	if (t->flags & STR_RAW) {
		add_text(out, b, n);
		return true;
	}
	return decode_escapes(p, b, n, (t->flags & STR_BYTES) != 0,
	    p->str_err_at, out);
}

static struct node *
str_constant(struct parser *p, struct sbuf *lit, uint32_t start, uint32_t end)
{
	struct node *c = mk(p, NODE_CONSTANT, start, end);
	c->u.constant.value = value_str(p->a, lit->data ? lit->data : "",
	    lit->len);
	sbuf_truncate(lit, 0);
	return c;
}

/*
 * strings -> STRING+
 * Adjacent literals are one constant; with any f-string among them they
 * are one JoinedStr whose adjacent literal parts are merged, as 3.11 does
 * (and as 3.11 does, the parts carry the span of the whole JoinedStr).
 */
static struct node *
strings(struct parser *p)
{
	struct token first = p->tok, last = p->tok;
	bool any_f = false, any_bytes = false, any_str = false;
	struct sbuf lit = SBUF_INIT;
	struct vec parts = { NULL, 0, 0 };
	struct node *n = NULL;
	struct token *toks = NULL;
	size_t ntoks = 0, cap = 0, i;

	while (p->tok.kind == TOK_STRING) {
		if (ntoks == cap) {
			size_t ncap = cap ? cap * 2 : 4;
			toks = arena_grow(p->a, toks, cap, ncap, sizeof *toks);
			cap = ncap;
		}
		toks[ntoks++] = p->tok;
		if (p->tok.flags & STR_F)
			any_f = true;
		if (p->tok.flags & STR_BYTES)
			any_bytes = true;
		else
			any_str = true;
		last = p->tok;
		advance(p);
	}
	/* 3.11 reports string errors at the token after the run */
	p->str_err_at = p->tok.start;
	for (i = 0; i < ntoks; i++) {
		const struct token *t = &toks[i];
		if (t->flags & STR_F) {
			uint32_t body = t->start + t->prefix_len + t->quote_len;
			uint32_t bend = tok_end(t) - t->quote_len;
			if (!fstring_parts(p, *t, body, bend, &parts, &lit))
				goto out;
		} else if (!string_body(p, t, &lit))
			goto out;
	}
	/* checked after the parts, whose errors 3.11 reports first */
	if (any_bytes && any_str) {
		error_span(p, p->str_err_at, p->str_err_at,
		    "cannot mix bytes and nonbytes literals");
		goto out;
	}
	if (any_f) {
		struct node *part;
		if (lit.len > 0)
			vec_push(p, &parts, str_constant(p, &lit, 0, 0));
		n = mk(p, NODE_JOINEDSTR, first.start, tok_end(&last));
		for (i = 0; i < parts.len; i++) {
			part = parts.items[i];
			part->start = n->start;
			part->end = n->end;
			/* 3.11 marks every literal part of a u'' run */
			if (part->kind == NODE_CONSTANT &&
			    p->src[first.start] == 'u')
				part->is_u_string = true;
		}
		n->u.joinedstr.values = vec_list(&parts);
	} else {
		n = mk(p, NODE_CONSTANT, first.start, tok_end(&last));
		if (any_bytes)
			n->u.constant.value = value_bytes(p->a,
			    lit.data ? lit.data : "", lit.len);
		else
			n->u.constant.value = value_str(p->a,
			    lit.data ? lit.data : "", lit.len);
		if (p->src[first.start] == 'u')	/* as CPython: not for U'' */
			n->is_u_string = true;
	}
out:
	sbuf_free(&lit);
	return p->failed ? NULL : n;
}

/* ============================================================ f-strings */

/* f-string errors point where 3.11 points: after the literal */
static struct node *
ferror(struct parser *p, uint32_t at, const char *msg)
{
	(void)at;
	return error_span(p, p->str_err_at, p->str_err_at, msg);
}

/*
 * The expression of a replacement field, src[start, end): parsed by a
 * sub-parser over the same buffer, so spans are spans of the input.
 * 3.11 compiles the text as "(" text ")", so a tuple needs no brackets.
 */
static struct node *
fstring_expr(struct parser *p, uint32_t start, uint32_t end)
{
	struct parser sub;
	struct node *e;
	uint32_t i;

	for (i = start; i < end; i++) {
		char c = p->src[i];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r' &&
		    c != '\f')
			break;
	}
	if (i == end) {
		char c = end < p->len ? p->src[end] : '}';
		if (c == '!' || c == ':' || c == '=')
			return ferror(p, start, arena_printf(p->a, "f-string: "
			    "expression required before '%c'", c));
		return ferror(p, start, "f-string: empty expression not "
		    "allowed");
	}
	memset(&sub, 0, sizeof sub);
	sub.a = p->a;
	sub.src = p->src;
	sub.len = p->len;
	sub.depth = p->depth;
	sub.chunk = p->chunk;		/* share the node chunk */
	sub.chunk_left = p->chunk_left;
	sub.chunk_size = p->chunk_size;
	sub.column_override = -1;
	sub.probe_depth = UINT_MAX;
	lex_init(&sub.lx, p->a, p->src, start, end);
	sub.lx.in_fstring = true;
	sub.lx.at_line_start = false;
	sub.tok = lex_next(&sub.lx);
	e = star_expressions(&sub);
	p->chunk = sub.chunk;
	p->chunk_left = sub.chunk_left;
	p->chunk_size = sub.chunk_size;
	if (e && sub.tok.kind != TOK_EOF && sub.tok.kind != TOK_NEWLINE)
		e = error_here(&sub, NULL);
	if (e && e->kind == NODE_STARRED)
		e = error_span(&sub, e->start, e->end,
		    "cannot use starred expression here");
	if (e == NULL) {
		if (!p->failed) {
			p->failed = true;
			p->incomplete = false;
			p->err = sub.err;
			p->column_override = sub.column_override;
			/* 3.11 parses the field as "(" text ")" on its own,
			 * and reports the column within that text */
			if (strncmp(p->err.msg, "f-string", 8) != 0) {
				p->err.msg = arena_printf(p->a, "f-string: %s",
				    p->err.msg);
				if (p->column_override < 0)
					p->column_override = (int32_t)
					    unicode_count(p->src + start,
					    p->err.start > start ?
					    p->err.start - start : 0) + 2;
			}
		}
		return NULL;
	}
	return e;
}

/*
 * One replacement field, from just after its '{' (at *pos) to its '}':
 *   field -> expr ['='] ['!' conversion] [':' format_spec] '}'
 * The end of the expression is found as 3.11's fstring_find_expr does:
 * brackets and quotes are tracked, and '!', ':', '=' or '}' outside them
 * end it.  Appends to parts (and the "x=" text of a debug field to lit).
 */
static bool
fstring_field(struct parser *p, struct token t, uint32_t *pos, uint32_t end,
    struct vec *parts, struct sbuf *lit)
{
	uint32_t i = *pos, expr_start = *pos, expr_end;
	char stack[LEX_MAX_NESTING];
	unsigned nest = 0;
	int quote = 0;
	unsigned qlen = 0;
	int conversion = -1;
	struct node *val, *fv, *spec = NULL;
	bool debug = false;
	const char *s = p->src;

	if (p->fstring_level >= 2) {
		ferror(p, i, "f-string: expressions nested too deeply");
		return false;
	}
	for (; i < end; i++) {
		char c = s[i];
		if (c == '\\') {
			ferror(p, i, "f-string expression part cannot include "
			    "a backslash");
			return false;
		}
		if (quote) {
			if (c == quote && (qlen == 1 || (i + 2 < end &&
			    s[i + 1] == quote && s[i + 2] == quote))) {
				i += qlen - 1;
				quote = 0;
			}
			continue;
		}
		if (c == '\'' || c == '"') {
			quote = c;
			qlen = i + 2 < end && s[i + 1] == c && s[i + 2] == c ?
			    3 : 1;
			i += qlen - 1;
			continue;
		}
		if (c == '[' || c == '(' || c == '{') {
			if (nest >= LEX_MAX_NESTING) {
				ferror(p, i, "f-string: too many nested "
				    "parenthesis");
				return false;
			}
			stack[nest++] = c;
			continue;
		}
		if (c == '#') {
			ferror(p, i, "f-string expression part cannot include "
			    "'#'");
			return false;
		}
		/* the field's expression ends at '}', ':', a '!' that is not
		 * "!=", or an '=' that is not part of "==", "!=", "<=", ">=" */
		if (nest == 0 && (c == '}' || c == ':'))
			break;
		if (nest == 0 && c == '!' && !(i + 1 < end && s[i + 1] == '='))
			break;
		if (nest == 0 && c == '=' && !(i + 1 < end && s[i + 1] == '=') &&
		    !(i > expr_start && strchr("=!<>", s[i - 1])))
			break;
		if (c == ']' || c == ')' || c == '}') {
			char open;
			if (nest == 0) {
				ferror(p, i, arena_printf(p->a,
				    "f-string: unmatched '%c'", c));
				return false;
			}
			open = stack[--nest];
			if (!((open == '(' && c == ')') ||
			    (open == '[' && c == ']') ||
			    (open == '{' && c == '}'))) {
				ferror(p, i, arena_printf(p->a,
				    "f-string: closing parenthesis '%c' does "
				    "not match opening parenthesis '%c'",
				    c, open));
				return false;
			}
		}
	}
	if (quote) {
		ferror(p, i - 1, "f-string: unterminated string");
		return false;
	}
	if (nest > 0) {
		ferror(p, i - 1, arena_printf(p->a, "f-string: unmatched '%c'",
		    stack[nest - 1]));
		return false;
	}
	if (i >= end) {
		ferror(p, i - 1, "f-string: expecting '}'");
		return false;
	}
	expr_end = i;
	val = fstring_expr(p, expr_start, expr_end);
	if (val == NULL)
		return false;
	if (s[i] == '=') {
		debug = true;
		i++;
		/* the text of the field, '=' and spaces around it kept */
		while (i < end && (s[i] == ' ' || s[i] == '\t'))
			i++;
		sbuf_add(lit, s + expr_start, i - expr_start);
	}
	if (i < end && s[i] == '!') {
		i++;
		if (i >= end) {
			ferror(p, i - 1, "f-string: expecting '}'");
			return false;
		}
		if (s[i] != 's' && s[i] != 'r' && s[i] != 'a') {
			ferror(p, i, arena_printf(p->a, "f-string: invalid "
			    "conversion character: expected 's', 'r', or 'a'"));
			return false;
		}
		conversion = s[i];
		i++;
	}
	if (i < end && s[i] == ':') {
		struct vec sparts = { NULL, 0, 0 };
		struct sbuf slit = SBUF_INIT;
		uint32_t spec_start = ++i;
		unsigned level = 0;
		/* the spec runs to the '}' that closes this field */
		for (; i < end; i++) {
			if (s[i] == '{')
				level++;
			else if (s[i] == '}') {
				if (level == 0)
					break;
				level--;
			}
		}
		if (i >= end) {
			ferror(p, i - 1, "f-string: expecting '}'");
			return false;
		}
		p->fstring_level++;
		fstring_parts(p, t, spec_start, i, &sparts, &slit);
		p->fstring_level--;
		if (p->failed) {	/* the spec's own error */
			sbuf_free(&slit);
			return false;
		}
		if (slit.len > 0)
			vec_push(p, &sparts, str_constant(p, &slit, 0, 0));
		sbuf_free(&slit);
		spec = mk(p, NODE_JOINEDSTR, t.start, tok_end(&t));
		spec->u.joinedstr.values = vec_list(&sparts);
		for (size_t k = 0; k < sparts.len; k++) {
			sparts.items[k]->start = t.start;
			sparts.items[k]->end = tok_end(&t);
		}
	}
	if (i >= end || s[i] != '}') {
		ferror(p, i < end ? i : i - 1, "f-string: expecting '}'");
		return false;
	}
	i++;
	if (debug && conversion == -1 && spec == NULL)
		conversion = 'r';
	if (lit->len > 0)
		vec_push(p, parts, str_constant(p, lit, 0, 0));
	fv = mk(p, NODE_FORMATTEDVALUE, t.start, tok_end(&t));
	fv->u.formatted.value = val;
	fv->u.formatted.conversion = conversion;
	fv->u.formatted.format_spec = spec;
	vec_push(p, parts, fv);
	*pos = i;
	return true;
}

/*
 * fstring -> (literal | '{{' | '}}' | field)*
 * Literal text goes to lit (decoded unless raw); each field flushes lit
 * into a Constant part and appends a FormattedValue.  Returns false
 * after an error.
 */
static bool
fstring_parts(struct parser *p, struct token t, uint32_t body,
    uint32_t body_end, struct vec *parts, struct sbuf *lit)
{
	uint32_t i = body, run = body;
	const char *s = p->src;
	bool raw = (t.flags & STR_RAW) != 0;

#define FLUSH_LITERAL(upto) do {					\
	if ((upto) > run) {						\
		if (raw)						\
			add_text(lit, s + run, (upto) - run);		\
		else if (!decode_escapes(p, s + run, (upto) - run,	\
		    false, p->str_err_at, lit))			\
			return false;					\
	}								\
} while (0)

	while (i < body_end) {
		char c = s[i];
		if (c == '\\' && !raw && i + 1 < body_end) {
			/* \N{...} holds braces that are not fields; in "\{"
			 * the backslash stays and the brace opens a field */
			if (s[i + 1] == 'N' && i + 2 < body_end &&
			    s[i + 2] == '{') {
				const char *close = memchr(s + i, '}',
				    body_end - i);
				i = close ? (uint32_t)(close - s) + 1 : body_end;
			} else if (s[i + 1] == '{' || s[i + 1] == '}')
				i += 1;
			else
				i += 2;
			continue;
		}
		if (c == '{' || c == '}') {
			FLUSH_LITERAL(i);
			/* doubled braces are literal, except in a format
			 * spec, where '{' always opens a nested field */
			if (i + 1 < body_end && s[i + 1] == c &&
			    !(p->fstring_level > 0 && c == '{')) {
				sbuf_addc(lit, c);
				i += 2;
				run = i;
				continue;
			}
			if (c == '}') {
				ferror(p, i, "f-string: single '}' is not "
				    "allowed");
				return false;
			}
			i++;
			if (!fstring_field(p, t, &i, body_end, parts, lit))
				return false;
			run = i;
			continue;
		}
		i++;
	}
	FLUSH_LITERAL(body_end);
#undef FLUSH_LITERAL
	return true;
}

/* ============================================================ displays */

/*
 * for_if_clauses -> ('for' star_targets 'in' disjunction ('if' disjunction)*)+
 */
static bool
comprehensions(struct parser *p, struct vec *gens)
{
	while (p->tok.kind == TOK_FOR || p->tok.kind == TOK_ASYNC) {
		struct node *c, *target;
		uint32_t start = p->tok.start;
		struct vec ifs = { NULL, 0, 0 };
		if (p->tok.kind == TOK_ASYNC) {
			error_here(p, "asynchronous comprehensions are not "
			    "supported");
			return false;
		}
		advance(p);
		/* star_targets: a bitwise_or list, checked as a target */
		{
			uint32_t tstart = p->tok.start;
			struct node *first, *e;
			struct vec elts = { NULL, 0, 0 };
			uint32_t tend;
			if (p->tok.kind == TOK_STAR) {
				uint32_t s0 = p->tok.start;
				advance(p);
				if ((e = bitwise_or(p)) == NULL)
					return false;
				first = mk(p, NODE_STARRED, s0, p->prev_end);
				first->u.starred.value = e;
			} else if ((first = bitwise_or(p)) == NULL)
				return false;
			target = first;
			if (p->tok.kind == TOK_COMMA) {
				vec_push(p, &elts, first);
				tend = tok_end(&p->tok);
				while (accept(p, TOK_COMMA)) {
					tend = p->prev_end;
					if (p->tok.kind == TOK_IN)
						break;
					if (p->tok.kind == TOK_STAR) {
						uint32_t s0 = p->tok.start;
						advance(p);
						if ((e = bitwise_or(p)) == NULL)
							return false;
						struct node *st = mk(p,
						    NODE_STARRED, s0, p->prev_end);
						st->u.starred.value = e;
						e = st;
					} else if ((e = bitwise_or(p)) == NULL)
						return false;
					vec_push(p, &elts, e);
					tend = e->end;
				}
				target = mk(p, NODE_TUPLE, tstart, tend);
				target->u.seq.elts = vec_list(&elts);
			}
			if (p->tok.kind != TOK_IN) {
				error_after_element(p, elts.len ?
				    elts.items[elts.len - 1] : first);
				return false;
			}
			if (!check_target(p, target))
				return false;
		}
		advance(p);
		c = mk(p, NODE_COMPREHENSION, start, 0);
		c->u.comprehension.target = target;
		if ((c->u.comprehension.iter = disjunction(p)) == NULL)
			return false;
		c->end = c->u.comprehension.iter->end;
		while (p->tok.kind == TOK_IF) {
			struct node *cond;
			advance(p);
			if ((cond = disjunction(p)) == NULL)
				return false;
			vec_push(p, &ifs, cond);
			c->end = cond->end;
		}
		c->u.comprehension.ifs = vec_list(&ifs);
		vec_push(p, gens, c);
	}
	return true;
}

/* A comprehension may not unpack its element. */
static struct node *
comp_elt_ok(struct parser *p, struct node *elt)
{
	if (elt->kind == NODE_STARRED)
		return error_span(p, elt->start, elt->end,
		    "iterable unpacking cannot be used in comprehension");
	return elt;
}

/*
 * tuple | group | genexp ->
 *   '(' ')' | '(' named_expression ')' | '(' star_named_expression ','
 *   [star_named_expressions] ')' | '(' named_expression for_if_clauses ')'
 */
static struct node *
paren(struct parser *p)
{
	uint32_t open = p->tok.start;
	struct node *first, *n;
	struct vec elts = { NULL, 0, 0 };

	advance(p);
	if (p->tok.kind == TOK_RPAR) {
		advance(p);
		n = mk(p, NODE_TUPLE, open, p->prev_end);
		return n;
	}
	if (p->tok.kind == TOK_YIELD)
		return error_here(p, "'yield' is not supported here");
	if ((first = star_named_expression(p)) == NULL)
		return NULL;
	if (p->tok.kind == TOK_FOR || p->tok.kind == TOK_ASYNC) {
		struct vec gens = { NULL, 0, 0 };
		if (comp_elt_ok(p, first) == NULL || !comprehensions(p, &gens))
			return NULL;
		if (!accept(p, TOK_RPAR))
			return error_after_element(p, NULL);
		n = mk(p, NODE_GENERATOREXP, open, p->prev_end);
		n->u.comp.elt = first;
		n->u.comp.generators = vec_list(&gens);
		return n;
	}
	if (p->tok.kind == TOK_RPAR) {
		if (first->kind == NODE_STARRED)
			return error_span(p, first->start, first->end,
			    "cannot use starred expression here");
		advance(p);
		return first;
	}
	if (p->tok.kind != TOK_COMMA)
		return error_after_element(p, first);
	vec_push(p, &elts, first);
	while (accept(p, TOK_COMMA)) {
		struct node *e;
		if (p->tok.kind == TOK_RPAR)
			break;
		if ((e = star_named_expression(p)) == NULL)
			return NULL;
		vec_push(p, &elts, e);
		if (p->tok.kind != TOK_COMMA && p->tok.kind != TOK_RPAR)
			return error_after_element(p, e);
	}
	if (!accept(p, TOK_RPAR))
		return error_after_element(p, NULL);
	n = mk(p, NODE_TUPLE, open, p->prev_end);
	n->u.seq.elts = vec_list(&elts);
	return n;
}

/* list | listcomp -> '[' [star_named_expressions] ']' |
 *                    '[' named_expression for_if_clauses ']' */
static struct node *
list_display(struct parser *p)
{
	uint32_t open = p->tok.start;
	struct vec elts = { NULL, 0, 0 };
	struct node *n, *e;

	advance(p);
	while (p->tok.kind != TOK_RSQB) {
		if ((e = star_named_expression(p)) == NULL)
			return NULL;
		if (elts.len == 0 && (p->tok.kind == TOK_FOR ||
		    p->tok.kind == TOK_ASYNC)) {
			struct vec gens = { NULL, 0, 0 };
			if (comp_elt_ok(p, e) == NULL ||
			    !comprehensions(p, &gens))
				return NULL;
			if (!accept(p, TOK_RSQB))
				return error_after_element(p, NULL);
			n = mk(p, NODE_LISTCOMP, open, p->prev_end);
			n->u.comp.elt = e;
			n->u.comp.generators = vec_list(&gens);
			return n;
		}
		vec_push(p, &elts, e);
		if (!accept(p, TOK_COMMA)) {
			if (p->tok.kind == TOK_FOR)
				return error_span(p,
				    elts.items[0]->start, e->end,
				    "did you forget parentheses around the "
				    "comprehension target?");
			if (p->tok.kind != TOK_RSQB)
				return error_after_element(p, e);
			break;
		}
	}
	advance(p);
	n = mk(p, NODE_LIST, open, p->prev_end);
	n->u.seq.elts = vec_list(&elts);
	return n;
}

/*
 * dict | set | dictcomp | setcomp ->
 *   '{' [double_starred_kvpairs] '}' | '{' star_named_expressions '}' |
 *   '{' kvpair for_if_clauses '}' | '{' named_expression for_if_clauses '}'
 */
static struct node *
brace_display(struct parser *p)
{
	uint32_t open = p->tok.start;
	struct vec keys = { NULL, 0, 0 }, values = { NULL, 0, 0 };
	struct node *n, *k, *v;
	bool is_dict;

	advance(p);
	if (accept(p, TOK_RBRACE))
		return mk(p, NODE_DICT, open, p->prev_end);
	/* the first entry decides between dict and set */
	if (p->tok.kind == TOK_DOUBLESTAR) {
		uint32_t s0 = p->tok.start;
		is_dict = true;
		advance(p);
		if ((v = bitwise_or(p)) == NULL)
			return NULL;
		if (p->tok.kind == TOK_FOR || p->tok.kind == TOK_ASYNC)
			return error_span(p, s0, v->end, "dict unpacking cannot "
			    "be used in dict comprehension");
		vec_push(p, &keys, NULL);
		vec_push(p, &values, v);
		if (!accept(p, TOK_COMMA) && p->tok.kind != TOK_RBRACE)
			return error_after_element(p, v);
	} else {
		if ((k = star_named_expression(p)) == NULL)
			return NULL;
		is_dict = p->tok.kind == TOK_COLON;
		if (is_dict) {
			if (k->kind == NODE_STARRED)
				return error_span(p, k->start, k->end,
				    "cannot use a starred expression in a "
				    "dictionary value");
			advance(p);
			if (p->tok.kind == TOK_STAR)
				return error_here(p, "cannot use a starred "
				    "expression in a dictionary value");
			if ((v = expression(p)) == NULL)
				return NULL;
			if (p->tok.kind == TOK_FOR || p->tok.kind == TOK_ASYNC) {
				struct vec gens = { NULL, 0, 0 };
				if (!comprehensions(p, &gens))
					return NULL;
				if (!accept(p, TOK_RBRACE))
					return error_after_element(p, NULL);
				n = mk(p, NODE_DICTCOMP, open, p->prev_end);
				n->u.comp.elt = k;
				n->u.comp.value = v;
				n->u.comp.generators = vec_list(&gens);
				return n;
			}
			vec_push(p, &keys, k);
			vec_push(p, &values, v);
		} else {
			if (p->tok.kind == TOK_FOR || p->tok.kind == TOK_ASYNC) {
				struct vec gens = { NULL, 0, 0 };
				if (comp_elt_ok(p, k) == NULL ||
				    !comprehensions(p, &gens))
					return NULL;
				if (!accept(p, TOK_RBRACE))
					return error_after_element(p, NULL);
				n = mk(p, NODE_SETCOMP, open, p->prev_end);
				n->u.comp.elt = k;
				n->u.comp.generators = vec_list(&gens);
				return n;
			}
			vec_push(p, &keys, k);
		}
		if (!accept(p, TOK_COMMA)) {
			if (p->tok.kind != TOK_RBRACE)
				return error_after_element(p, is_dict ? v : k);
		}
	}
	while (p->tok.kind != TOK_RBRACE) {
		if (is_dict) {
			if (accept(p, TOK_DOUBLESTAR)) {
				k = NULL;
				if ((v = bitwise_or(p)) == NULL)
					return NULL;
			} else {
				if ((k = expression(p)) == NULL)
					return NULL;
				if (p->tok.kind == TOK_COMMA ||
				    p->tok.kind == TOK_RBRACE ||
				    p->tok.kind == TOK_FOR)
					/* 3.11 points at the key's last
					 * character */
					return error_span(p,
					    last_char_start(p, k), k->end,
					    "':' expected after dictionary "
					    "key");
				if (p->tok.kind != TOK_COLON)
					return error_after_element(p, k);
				advance(p);
				if (p->tok.kind == TOK_STAR)
					return error_here(p, "cannot use a "
					    "starred expression in a dictionary "
					    "value");
				if ((v = expression(p)) == NULL)
					return NULL;
			}
			vec_push(p, &keys, k);
			vec_push(p, &values, v);
		} else {
			if ((v = star_named_expression(p)) == NULL)
				return NULL;
			vec_push(p, &keys, v);
			if (p->tok.kind == TOK_FOR)
				return error_span(p,
				    keys.items[0]->start, v->end,
				    "did you forget parentheses around the "
				    "comprehension target?");
		}
		if (!accept(p, TOK_COMMA)) {
			if (p->tok.kind != TOK_RBRACE)
				return error_after_element(p, v);
			break;
		}
	}
	advance(p);
	n = mk(p, is_dict ? NODE_DICT : NODE_SET, open, p->prev_end);
	if (is_dict) {
		n->u.dict.keys = vec_list(&keys);
		n->u.dict.values = vec_list(&values);
	} else
		n->u.seq.elts = vec_list(&keys);
	return n;
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

static struct node *
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

static struct node *
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
static struct node *
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

/* named_expression -> NAME ':=' expression | expression !':=' */
static struct node *
named_expression(struct parser *p)
{
	struct node *target, *val, *n;
	if (p->tok.kind == TOK_NAME && peek(p)->kind == TOK_COLONEQUAL) {
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
	n = expression(p);
	if (n && p->tok.kind == TOK_COLONEQUAL)
		return error_span(p, n->start, n->end, arena_printf(p->a,
		    "cannot use assignment expressions with %s",
		    expr_name(n)));
	return n;
}

/* star_named_expression -> '*' bitwise_or | named_expression */
static struct node *
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
static struct node *
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

/* ============================================================ statements */

/* dotted_name -> NAME ('.' NAME)*, NFKC-normalised part by part */
static const char *
dotted_name(struct parser *p)
{
	struct sbuf b = SBUF_INIT;
	const char *r;
	for (;;) {
		if (p->tok.kind != TOK_NAME) {
			sbuf_free(&b);
			error_here(p, NULL);
			return NULL;
		}
		sbuf_adds(&b, identifier(p, &p->tok));
		advance(p);
		if (p->tok.kind != TOK_DOT)
			break;
		sbuf_addc(&b, '.');
		advance(p);
	}
	r = arena_strdup(p->a, sbuf_cstr(&b));
	sbuf_free(&b);
	return r;
}

/* alias -> dotted_name ['as' NAME] (a plain NAME after 'from') */
static struct node *
alias(struct parser *p, bool dotted)
{
	uint32_t start = p->tok.start;
	struct node *n = mk(p, NODE_ALIAS, start, start);
	if (dotted) {
		if ((n->u.alias.name = dotted_name(p)) == NULL)
			return NULL;
	} else {
		if (p->tok.kind != TOK_NAME)
			return error_here(p, NULL);
		n->u.alias.name = identifier(p, &p->tok);
		advance(p);
	}
	if (accept(p, TOK_AS)) {
		if (p->tok.kind != TOK_NAME)
			return error_here(p, NULL);
		n->u.alias.asname = identifier(p, &p->tok);
		advance(p);
	}
	n->end = p->prev_end;
	return n;
}

/* import_name -> 'import' ','.(dotted_name ['as' NAME])+ */
static struct node *
import_name(struct parser *p)
{
	uint32_t start = p->tok.start;
	struct vec names = { NULL, 0, 0 };
	struct node *n;
	advance(p);
	do {
		struct node *a = alias(p, true);
		if (a == NULL)
			return NULL;
		vec_push(p, &names, a);
	} while (accept(p, TOK_COMMA));
	n = mk(p, NODE_IMPORT, start, p->prev_end);
	n->u.import.names = vec_list(&names);
	return n;
}

/*
 * import_from -> 'from' ('.' | '...')* dotted_name 'import' targets |
 *                'from' ('.' | '...')+ 'import' targets
 * targets -> '(' aliases [','] ')' | aliases | '*'
 */
static struct node *
import_from(struct parser *p)
{
	uint32_t start = p->tok.start;
	struct vec names = { NULL, 0, 0 };
	struct node *n = mk(p, NODE_IMPORTFROM, start, start);
	int level = 0;
	bool paren;

	advance(p);
	for (;;) {
		if (accept(p, TOK_DOT))
			level++;
		else if (accept(p, TOK_ELLIPSIS))
			level += 3;
		else
			break;
	}
	if (p->tok.kind != TOK_IMPORT || level == 0)
		if ((n->u.importfrom.module = dotted_name(p)) == NULL)
			return NULL;
	n->u.importfrom.level = level;
	if (!expect(p, TOK_IMPORT))
		return NULL;
	if (p->tok.kind == TOK_STAR) {
		struct node *a = mk(p, NODE_ALIAS, p->tok.start,
		    tok_end(&p->tok));
		a->u.alias.name = "*";
		advance(p);
		vec_push(p, &names, a);
	} else {
		paren = accept(p, TOK_LPAR);
		do {
			struct node *a;
			if (paren && p->tok.kind == TOK_RPAR && names.len > 0)
				break;
			if (!paren && names.len > 0 &&
			    (p->tok.kind == TOK_NEWLINE ||
			    p->tok.kind == TOK_EOF || p->tok.kind == TOK_SEMI))
				return error_here(p, "trailing comma not "
				    "allowed without surrounding parentheses");
			if ((a = alias(p, false)) == NULL)
				return NULL;
			vec_push(p, &names, a);
		} while (accept(p, TOK_COMMA));
		if (paren && !expect(p, TOK_RPAR))
			return NULL;
		if (!paren && p->tok.kind == TOK_COMMA)
			return error_here(p, "trailing comma not allowed "
			    "without surrounding parentheses");
	}
	n->u.importfrom.names = vec_list(&names);
	n->end = p->prev_end;
	return n;
}

static const struct {
	enum token_kind	 kind;
	const char	*what;
} unsupported[] = {
	{ TOK_DEF, "'def' statements" }, { TOK_CLASS, "'class' statements" },
	{ TOK_FOR, "'for' statements" }, { TOK_WHILE, "'while' statements" },
	{ TOK_IF, "'if' statements" }, { TOK_WITH, "'with' statements" },
	{ TOK_TRY, "'try' statements" }, { TOK_RETURN, "'return' statements" },
	{ TOK_DEL, "'del' statements" }, { TOK_PASS, "'pass' statements" },
	{ TOK_BREAK, "'break' statements" },
	{ TOK_CONTINUE, "'continue' statements" },
	{ TOK_RAISE, "'raise' statements" },
	{ TOK_GLOBAL, "'global' statements" },
	{ TOK_NONLOCAL, "'nonlocal' statements" },
	{ TOK_ASSERT, "'assert' statements" },
	{ TOK_ASYNC, "'async' statements" },
	{ TOK_YIELD, "'yield' expressions" }, { TOK_AWAIT, "'await' expressions" },
};

/* A bitwise_or other than a display or a keyword constant: what 3.11's
 * invalid_named_expression reports with "here". */
static bool
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

static const struct {
	enum token_kind	kind;
	enum binop	op;
} augassign_ops[] = {
	{ TOK_PLUSEQUAL, BINOP_ADD }, { TOK_MINEQUAL, BINOP_SUB },
	{ TOK_STAREQUAL, BINOP_MULT }, { TOK_ATEQUAL, BINOP_MATMULT },
	{ TOK_SLASHEQUAL, BINOP_DIV }, { TOK_PERCENTEQUAL, BINOP_MOD },
	{ TOK_AMPEREQUAL, BINOP_BITAND }, { TOK_VBAREQUAL, BINOP_BITOR },
	{ TOK_CIRCUMFLEXEQUAL, BINOP_BITXOR },
	{ TOK_LEFTSHIFTEQUAL, BINOP_LSHIFT },
	{ TOK_RIGHTSHIFTEQUAL, BINOP_RSHIFT },
	{ TOK_DOUBLESTAREQUAL, BINOP_POW },
	{ TOK_DOUBLESLASHEQUAL, BINOP_FLOORDIV },
};

/*
 * simple_stmt -> assignment | star_expressions | import_name | import_from
 * assignment -> (star_targets '=')+ star_expressions |
 *               single_target augassign star_expressions
 */
static struct node *
simple_stmt(struct parser *p)
{
	struct node *e, *n;
	uint32_t start;
	size_t i;

	if (p->tok.kind == TOK_IMPORT)
		return import_name(p);
	if (p->tok.kind == TOK_FROM)
		return import_from(p);
	for (i = 0; p->tok.kind >= TOK_FIRST_KEYWORD &&
	    i < sizeof unsupported / sizeof unsupported[0]; i++)
		if (p->tok.kind == unsupported[i].kind) {
			if (!p->failed)
				p->err_is_ours = true;
			return error_here(p, arena_printf(p->a, "%s are not "
			    "supported here: only expressions, assignments "
			    "and imports", unsupported[i].what));
		}
	start = p->tok.start;
	if ((e = star_expressions(p)) == NULL)
		return NULL;
	if (p->tok.kind == TOK_COLONEQUAL) {
		/* a walrus needs brackets at statement level */
		if (e->kind == NODE_NAME)
			return error_here(p, NULL);
		return error_span(p, e->start, e->end, arena_printf(p->a,
		    "cannot use assignment expressions with %s",
		    expr_name(e)));
	}
	if (p->tok.kind == TOK_EQUAL) {
		struct vec targets = { NULL, 0, 0 };
		struct node *val = e;
		while (accept(p, TOK_EQUAL)) {
			vec_push(p, &targets, val);
			if (p->tok.kind == TOK_YIELD)
				return error_here(p, "'yield' expressions are "
				    "not supported here");
			if ((val = star_expressions(p)) == NULL)
				return NULL;
		}
		for (i = 0; i < targets.len; i++) {
			struct node *t = targets.items[i];
			const struct node *bad = invalid_target(t);
			if (bad == NULL) {
				set_store(t);
				continue;
			}
			/*
			 * 3.11's invalid_named_expression: with one '=', an
			 * operand (or the last item of a bare tuple) that is
			 * a plain expression gets "Maybe you meant '=='".
			 */
			if (targets.len == 1 && t->kind == NODE_TUPLE &&
			    t->u.seq.elts.len > 0 &&
			    t->start == t->u.seq.elts.items[0]->start)
				t = t->u.seq.elts.items[t->u.seq.elts.len - 1];
			if (targets.len == 1 && t->kind != NODE_NAME &&
			    t->kind != NODE_ATTRIBUTE &&
			    t->kind != NODE_SUBSCRIPT && is_bitwise_operand(t))
				return error_span(p, t->start, t->end,
				    arena_printf(p->a, "cannot assign to %s "
				    "here. Maybe you meant '==' instead of "
				    "'='?", expr_name(t)));
			return error_span(p, bad->start, bad->end,
			    arena_printf(p->a, "cannot assign to %s",
			    expr_name(bad)));
		}
		n = mk(p, NODE_ASSIGN, start, p->prev_end);
		n->u.assign.targets = vec_list(&targets);
		n->u.assign.value = val;
		return n;
	}
	/* the augmented assignment tokens run from += to @= */
	i = p->tok.kind >= TOK_PLUSEQUAL && p->tok.kind <= TOK_ATEQUAL ? 0 :
	    sizeof augassign_ops / sizeof augassign_ops[0];
	for (; i < sizeof augassign_ops / sizeof augassign_ops[0]; i++)
		if (p->tok.kind == augassign_ops[i].kind)
			break;
	if (i < sizeof augassign_ops / sizeof augassign_ops[0]) {
		struct node *val;
		if (e->kind != NODE_NAME && e->kind != NODE_ATTRIBUTE &&
		    e->kind != NODE_SUBSCRIPT)
			return error_span(p, e->start, e->end,
			    arena_printf(p->a, "'%s' is an illegal expression "
			    "for augmented assignment", expr_name(e)));
		advance(p);
		if (p->tok.kind == TOK_YIELD)
			return error_here(p, "'yield' expressions are not "
			    "supported here");
		if ((val = star_expressions(p)) == NULL)
			return NULL;
		set_store(e);
		n = mk(p, NODE_AUGASSIGN, start, p->prev_end);
		n->u.augassign.target = e;
		n->u.augassign.op = augassign_ops[i].op;
		n->u.augassign.value = val;
		return n;
	}
	if (p->tok.kind == TOK_COLON)
		return error_here(p, "annotated assignments are not "
		    "supported here: only expressions, assignments and "
		    "imports");
	n = mk(p, NODE_EXPR, start, p->prev_end);
	n->u.expr.value = e;
	return n;
}

/* Is a lone expression statement also valid in eval mode? */
static bool
is_eval_expression(const struct node *e)
{
	size_t i;
	if (e->kind == NODE_STARRED)
		return false;
	if (e->kind == NODE_TUPLE && e->u.seq.elts.len > 0 &&
	    e->start == e->u.seq.elts.items[0]->start)
		for (i = 0; i < e->u.seq.elts.len; i++)
			if (e->u.seq.elts.items[i]->kind == NODE_STARRED)
				return false;
	return true;
}

/*
 * A last line of only blanks, with no newline after it, is an "unexpected
 * indent" in eval mode but fine in exec mode: ast.parse gives a Module.
 */
static bool
ends_in_blank_indent(const char *src, uint32_t len)
{
	uint32_t i = len;
	while (i > 0 && (src[i - 1] == ' ' || src[i - 1] == '\t' ||
	    src[i - 1] == '\f'))
		i--;
	/* (not after a backslash: that line continues the last one) */
	return i < len && i > 0 && src[i - 1] == '\n' &&
	    !(i > 1 && src[i - 2] == '\\');
}

/* Are the eight bytes of w all ASCII and none of them NUL? */
static bool
is_plain_ascii(uint64_t w)
{
	return (w & UINT64_C(0x8080808080808080)) == 0 &&
	    ((w - UINT64_C(0x0101010101010101)) & ~w &
	    UINT64_C(0x8080808080808080)) == 0;
}

/* Byte span of the first NUL or invalid UTF-8 sequence, if any. */
static bool
check_bytes(struct parser *p)
{
	uint32_t i = 0, cp;
	size_t n;
	while (i < p->len) {
		unsigned char c;
		uint64_t w;
		/* eight bytes at a time while they are ASCII and not NUL,
		 * the last eight of the input too (overlapping) */
		while (i + 8 <= p->len) {
			memcpy(&w, p->src + i, 8);
			if (!is_plain_ascii(w))
				break;
			i += 8;
		}
		if (i >= p->len)
			break;
		if (i + 8 > p->len && p->len >= 8) {
			memcpy(&w, p->src + p->len - 8, 8);
			if (is_plain_ascii(w))
				break;
		}
		c = (unsigned char)p->src[i];
		if (c == 0) {
			error_span(p, i, i + 1, "source code string cannot "
			    "contain null bytes");
			return false;
		}
		if (c < 0x80) {
			i++;
			continue;
		}
		n = unicode_decode(p->src + i, p->len - i, &cp);
		if (n == 0) {
			/* Python's own UTF-8 decoder's three verdicts */
			size_t len;
			const char *why = unicode_decode_error(p->src + i,
			    p->len - i, &len);
			error_span(p, i, i + 1, arena_printf(p->a,
			    "(unicode error) 'utf-8' codec can't decode byte "
			    "0x%02x in position %u: %s", c, i, why));
			return false;
		}
		i += (uint32_t)n;
	}
	return true;
}

/*
 * A statement that fails to parse and reads "print x" or "exec x" gets
 * 3.11's hint, whatever the first error was (invalid_legacy_expression).
 */
static void
legacy_print(struct parser *p, uint32_t stmt_start)
{
	struct lexer lx;
	struct token name, next;
	const char *id;

	lex_init(&lx, p->a, p->src, stmt_start, p->len);
	lx.at_line_start = false;
	name = lex_next(&lx);
	if (name.kind != TOK_NAME || name.is_non_ascii)
		return;
	if (name.length == 5 && memcmp(p->src + name.start, "print", 5) == 0)
		id = "print";
	else if (name.length == 4 &&
	    memcmp(p->src + name.start, "exec", 4) == 0)
		id = "exec";
	else
		return;
	next = lex_next(&lx);
	if (next.kind == TOK_LPAR || !(starts_expression(&next) ||
	    next.kind == TOK_STAR))
		return;
	p->incomplete = false;
	p->column_override = -1;
	p->err.cls = PYEXC_SyntaxError;
	p->err.msg = arena_printf(p->a, "Missing parentheses in call to '%s'. "
	    "Did you mean %s(...)?", id, id);
	p->err.start = name.start;
	p->err.end = tok_end(&next);
}

/*
 * After a parser error CPython 3.11 tokenizes the rest of the input, and a
 * tokenizer error found there is reported instead (an invalid character
 * or an unmatched bracket further on).  A bracket left open at the end
 * replaces the error only when it was opened on an earlier line.
 */
static void
tokenizer_error_first(struct parser *p)
{
	struct token t = p->has_next ? p->next : p->tok;
	uint32_t err_line, err_col, br_line, br_col;
	int guard = 0;

	while (t.kind != TOK_EOF && t.kind != TOK_ERROR && guard++ < 1 << 24)
		t = lex_next(&p->lx);
	if (t.kind != TOK_ERROR)
		return;
	/* errors CPython's tokenizer only reports when the parser asks */
	if (pyexc_is(p->lx.error.cls, PYEXC_IndentationError) ||
	    strncmp(p->lx.error.msg, "unexpected ", 11) == 0)
		return;
	if (p->lx.error.is_incomplete) {
		if (strncmp(p->lx.error.msg, "unterminated", 12) != 0) {
			if (p->lx.depth == 0)
				return;
			lex_position(p->src, p->len, p->err.start, &err_line,
			    &err_col);
			lex_position(p->src, p->len, p->lx.error.start,
			    &br_line, &br_col);
			if (err_line <= br_line)
				return;
		}
	}
	p->incomplete = false;
	p->err.cls = p->lx.error.cls;
	p->err.msg = p->lx.error.msg;
	p->err.start = p->lx.error.start;
	p->err.end = p->lx.error.end;
	p->column_override = -1;
}

/*
 * file -> [statements] ; statements -> simple_stmt ((';' | NEWLINE)
 * simple_stmt)* [';']
 */
void
parse_input(struct arena *a, const char *src, size_t len,
    struct parse_result *out)
{
	struct parser p;
	struct vec body = { NULL, 0, 0 };
	bool joined = false;
	struct node *root;
	uint32_t stmt_start = 0;

	memset(out, 0, sizeof *out);
	memset(&p, 0, offsetof(struct parser, lx));
	p.a = a;
	p.src = src;
	p.depth = &p.own_depth;
	p.column_override = -1;
	p.probe_depth = UINT_MAX;
	if (len >= UINT32_MAX) {
		out->status = PARSE_ERROR;
		out->error.cls = PYEXC_SyntaxError;
		out->error.msg = "input too long";
		out->error.line = out->error.column = 1;
		return;
	}
	p.len = (uint32_t)len;
	if (!check_bytes(&p))
		goto fail;
	lex_init(&p.lx, a, src, 0, p.len);
	p.tok = lex_next(&p.lx);
	while (p.tok.kind != TOK_EOF) {
		struct node *s;
		if (p.tok.kind == TOK_NEWLINE) {
			advance(&p);
			continue;
		}
		stmt_start = p.tok.start;
		if ((s = simple_stmt(&p)) == NULL)
			goto fail;
		vec_push(&p, &body, s);
		if (accept(&p, TOK_SEMI)) {
			joined = true;
			continue;
		}
		if (p.tok.kind == TOK_NEWLINE) {
			advance(&p);
			continue;
		}
		if (p.tok.kind != TOK_EOF) {
			if (starts_expression(&p.tok)) {
				/*
				 * CPython reads the expression that follows
				 * before saying "invalid syntax" here, so an
				 * error its tokenizer finds there comes first.
				 */
				struct token junk = p.tok;
				expression(&p);
				if (!p.failed)
					peek(&p);
				p.failed = false;
				if (p.tok.kind == TOK_ERROR || (p.has_next &&
				    p.next.kind == TOK_ERROR)) {
					/* an error even if more lines could
					 * close it: the junk came first */
					error_lexer(&p);
					p.incomplete = false;
				} else {
					error_span(&p, junk.start, tok_end(&junk),
					    "invalid syntax");
					p.incomplete = false;
				}
			} else
				error_after_element(&p, NULL);
			goto fail;
		}
	}
	if (body.len == 1 && !joined && body.items[0]->kind == NODE_EXPR &&
	    is_eval_expression(body.items[0]->u.expr.value) &&
	    !ends_in_blank_indent(src, p.len)) {
		struct node *e = body.items[0]->u.expr.value;
		root = mk(&p, NODE_EXPRESSION, e->start, e->end);
		root->u.expression.body = e;
	} else {
		root = mk(&p, NODE_MODULE, 0, p.len);
		root->u.module.body = vec_list(&body);
	}
	out->status = PARSE_OK;
	out->root = root;
	return;
fail:
	if (!p.err_from_lexer && !p.err_is_ours)
		legacy_print(&p, stmt_start);
	if (!p.err_from_lexer && !p.err_is_ours)
		tokenizer_error_first(&p);
	out->status = p.incomplete ? PARSE_INCOMPLETE : PARSE_ERROR;
	out->error = p.err;
	lex_position(src, len, p.err.start, &out->error.line,
	    &out->error.column);
	if (p.column_override >= 0)
		out->error.column = (uint32_t)p.column_override;
}

void
parse_format_error(const char *src, size_t len, const struct parse_error *e,
    struct sbuf *out)
{
	uint32_t ls = e->start, le, i, width, lead;
	if (ls > len)
		ls = (uint32_t)len;
	while (ls > 0 && src[ls - 1] != '\n' && src[ls - 1] != '\r')
		ls--;
	for (le = ls; le < len && src[le] != '\n' && src[le] != '\r'; le++)
		;
	sbuf_addf(out, "%s: %s (column %u)\n", pyexc_name(e->cls),
	    e->msg ? e->msg : "invalid syntax", (unsigned)e->column);
	/* the line, with control bytes shown as '?' so the caret lines up */
	for (i = ls; i < le; i++) {
		unsigned char c = (unsigned char)src[i];
		sbuf_addc(out, c < 0x20 || c == 0x7f ? '?' : (char)c);
	}
	sbuf_addc(out, '\n');
	lead = e->start >= ls ? (uint32_t)unicode_count(src + ls,
	    (e->start < le ? e->start : le) - ls) : 0;
	width = e->end > e->start ? (uint32_t)unicode_count(src + e->start,
	    (e->end < le ? e->end : le) > e->start ?
	    (e->end < le ? e->end : le) - e->start : 0) : 0;
	if (width == 0)
		width = 1;
	for (i = 0; i < lead; i++)
		sbuf_addc(out, ' ');
	for (i = 0; i < width; i++)
		sbuf_addc(out, '^');
	sbuf_addc(out, '\n');
}

bool
parse_is_incomplete(const char *src, size_t len)
{
	struct arena *a;
	struct parse_result pr;
	bool incomplete;

	/*
	 * What can make an input incomplete is lexical (an open bracket, an
	 * open triple-quoted string, a trailing backslash), so the tokens
	 * alone say "complete" for almost every input, cheaply; only an
	 * input the lexer finds open is parsed, so that an earlier syntax
	 * error is still reported at once instead of waiting for more lines.
	 */
	if (len < UINT32_MAX) {
		struct lexer lx;
		struct token t;
		enum token_kind prev = TOK_NEWLINE;
		bool block = false;
		size_t k;
		a = arena_new();
		lex_init(&lx, a, src, 0, (uint32_t)len);
		do {
			t = lex_next(&lx);
			/* a logical line ending in ':' opens a block (the
			 * parser will say what it makes of it) */
			if ((t.kind == TOK_NEWLINE || t.kind == TOK_EOF) &&
			    prev == TOK_COLON)
				block = true;
			prev = t.kind;
		} while (t.kind != TOK_EOF && t.kind != TOK_ERROR);
		incomplete = t.kind == TOK_ERROR && lx.error.is_incomplete;
		arena_free(a);
		if (block && !incomplete) {
			/* ... which a blank last line ends */
			for (k = len; k > 0 && (src[k - 1] == ' ' ||
			    src[k - 1] == '\t' || src[k - 1] == '\r'); k--)
				;
			return !(k > 0 && src[k - 1] == '\n');
		}
		if (!incomplete)
			return false;
	}
	a = arena_new();
	parse_input(a, src, len, &pr);
	incomplete = pr.status == PARSE_INCOMPLETE;
	arena_free(a);
	return incomplete;
}
