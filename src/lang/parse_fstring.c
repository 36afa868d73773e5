/*
 * parse_fstring.c -- f-strings: the literal text between fields, and each
 * replacement field, whose expression a sub-parser over the same buffer
 * parses (so spans are spans of the input), with 3.11's messages.
 */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "base/arena.h"
#include "ast.h"
#include "lex.h"
#include "parse_int.h"
#include "base/sbuf.h"
#include "base/unicode.h"
#include "value/value.h"

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
	sub.nodes = p->nodes;		/* share the node chunk */
	sub.column_override = -1;
	sub.probe_depth = UINT_MAX;
	lex_init(&sub.lx, p->a, p->src, start, end);
	sub.lx.in_fstring = true;
	sub.lx.at_line_start = false;
	sub.tok = lex_next(&sub.lx);
	e = star_expressions(&sub);
	p->nodes = sub.nodes;
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
 * Where a field's expression, from start, ends: as 3.11's
 * fstring_find_expr finds it, brackets and quotes are tracked, and '!',
 * ':', '=' or '}' outside them end it.  false (the error set) when the
 * field is not closed or holds what an expression part may not.
 */
static bool
field_expr_end(struct parser *p, uint32_t start, uint32_t end,
    uint32_t *expr_end)
{
	uint32_t i = start;
	char stack[LEX_MAX_NESTING];
	unsigned nest = 0;
	int quote = 0;
	unsigned qlen = 0;
	const char *s = p->src;

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
		    !(i > start && strchr("=!<>", s[i - 1])))
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
	*expr_end = i;
	return true;
}

/*
 * A field's format spec, from just after its ':' (at *pos) to the '}'
 * that closes the field (*pos is left there): itself f-string parts, one
 * level down, joined into *spec.
 */
static bool
field_spec(struct parser *p, struct token t, uint32_t *pos, uint32_t end,
    struct node **spec)
{
	struct vec sparts = { NULL, 0, 0 };
	struct sbuf slit = SBUF_INIT;
	const char *s = p->src;
	uint32_t i = *pos, spec_start = i;
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
	*spec = mk(p, NODE_JOINEDSTR, t.start, tok_end(&t));
	(*spec)->u.joinedstr.values = vec_list(&sparts);
	for (size_t k = 0; k < sparts.len; k++) {
		sparts.items[k]->start = t.start;
		sparts.items[k]->end = tok_end(&t);
	}
	*pos = i;
	return true;
}

/*
 * One replacement field, from just after its '{' (at *pos) to its '}':
 *   field -> expr ['='] ['!' conversion] [':' format_spec] '}'
 * Appends to parts (and the "x=" text of a debug field to lit).
 */
static bool
fstring_field(struct parser *p, struct token t, uint32_t *pos, uint32_t end,
    struct vec *parts, struct sbuf *lit)
{
	uint32_t i = *pos, expr_start = *pos, expr_end;
	int conversion = -1;
	struct node *val, *fv, *spec = NULL;
	bool debug = false;
	const char *s = p->src;

	if (p->fstring_level >= 2) {
		ferror(p, i, "f-string: expressions nested too deeply");
		return false;
	}
	if (!field_expr_end(p, expr_start, end, &expr_end))
		return false;
	i = expr_end;
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
		i++;
		if (!field_spec(p, t, &i, end, &spec))
			return false;
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
bool
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
