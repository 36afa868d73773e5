/*
 * parse.c -- a recursive-descent parser for Python 3.11's expression
 * language and its simple statements, producing the tree ast.parse makes:
 * its entry points, and the checks around a whole input.
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
 *
 * The grammar is in a file per part (parse_int.h says which): parse_expr.c,
 * parse_string.c, parse_fstring.c and parse_stmt.c.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/arena.h"
#include "ast.h"
#include "lex.h"
#include "parse.h"
#include "parse_int.h"
#include "base/sbuf.h"
#include "base/unicode.h"
#include "value/value.h"

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
		/* sixteen bytes at a time (SSE2), then eight, while they are
		 * ASCII and not NUL; the last eight of the input too
		 * (overlapping) */
#ifdef __SSE2__
		while (i + 16 <= p->len) {
			__m128i v = _mm_loadu_si128(
			    (const __m128i *)(const void *)(p->src + i));
			if (_mm_movemask_epi8(_mm_or_si128(v,
			    _mm_cmpeq_epi8(v, _mm_setzero_si128()))) != 0)
				break;
			i += 16;
		}
#endif
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
	p.nodes.a = a;
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

/*
 * The answer for most lines without lexing them: with no quote, comment,
 * backslash, ':' or '@' among its bytes, an input has no string, no
 * comment, no joined line, no block and no decorator, so only a bracket
 * left open at the end could make it incomplete, and its brackets are
 * its bytes.  Balanced, or a closer the lexer refuses (unmatched,
 * mismatched): complete.  True when that settles it.
 */
/* The bytes quick_complete() looks at */
static const bool quick_special[256] = {
	['\''] = true, ['"'] = true, ['#'] = true, ['\\'] = true,
	[':'] = true, ['@'] = true, ['('] = true, ['['] = true, ['{'] = true,
	[')'] = true, [']'] = true, ['}'] = true,
};

/* One of those bytes: 0 to read on, 1 for "not settled", 2 for
 * "complete" (a closer the lexer refuses). */
static inline int
quick_byte(char c, char *open, size_t *depth)
{
	switch (c) {
	case '\'': case '"': case '#': case '\\': case ':': case '@':
		return 1;
	case '(': case '[': case '{':
		if (*depth == LEX_MAX_NESTING)
			return 1;	/* (the lexer's own error) */
		open[(*depth)++] = c;
		return 0;
	case ')': case ']': case '}':
		if (*depth == 0 || open[*depth - 1] != (c == ')' ? '(' :
		    c == ']' ? '[' : '{'))
			return 2;	/* an error, not more to read */
		(*depth)--;
		return 0;
	default:
		return 0;
	}
}

static bool
quick_complete(const char *src, size_t len)
{
	char open[LEX_MAX_NESTING];
	size_t i = 0, depth = 0;
	int r;

#ifdef __SSE2__
	/* Sixteen bytes at a time, the special ones found as a bit mask:
	 * the byte loop below cost six instructions a byte of every
	 * --batch line. */
	for (; len - i >= 16; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(src + i));
		__m128i m;
		unsigned bits;
#define QC_EQ(c) _mm_cmpeq_epi8(v, _mm_set1_epi8(c))
		m = _mm_or_si128(_mm_or_si128(_mm_or_si128(QC_EQ('\''),
		    QC_EQ('"')), _mm_or_si128(QC_EQ('#'), QC_EQ('\\'))),
		    _mm_or_si128(_mm_or_si128(QC_EQ(':'), QC_EQ('@')),
		    _mm_or_si128(QC_EQ('('), QC_EQ(')'))));
		m = _mm_or_si128(m, _mm_or_si128(_mm_or_si128(QC_EQ('['),
		    QC_EQ(']')), _mm_or_si128(QC_EQ('{'), QC_EQ('}'))));
#undef QC_EQ
		for (bits = (unsigned)_mm_movemask_epi8(m); bits != 0;
		    bits &= bits - 1)
			if ((r = quick_byte(src[i + (unsigned)__builtin_ctz(
			    bits)], open, &depth)) != 0)
				return r == 2;
	}
#endif
	for (; i < len; i++)
		if (quick_special[(unsigned char)src[i]] &&
		    (r = quick_byte(src[i], open, &depth)) != 0)
			return r == 2;
	return depth == 0;
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
	if (len < UINT32_MAX && quick_complete(src, len))
		return false;
	if (len < UINT32_MAX) {
		struct lexer lx;
		struct token t;
		enum token_kind prev = TOK_NEWLINE;
		bool block = false, decorator = false;
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
			/* a last logical line that is a decorator waits for
			 * its def or class, as at the prompt */
			if (prev == TOK_NEWLINE && t.kind != TOK_NEWLINE &&
			    t.kind != TOK_EOF)
				decorator = t.kind == TOK_AT;
			prev = t.kind;
		} while (t.kind != TOK_EOF && t.kind != TOK_ERROR);
		incomplete = t.kind == TOK_ERROR && lx.error.is_incomplete;
		arena_free(a);
		if ((block || decorator) && !incomplete) {
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
