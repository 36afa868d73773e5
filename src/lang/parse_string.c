/*
 * parse_string.c -- string and bytes literals: adjacent literals joined
 * into one constant (or, with an f-string among them, one JoinedStr),
 * their escapes decoded with CPython's errors and positions.
 */
#include "config.h"

#include <string.h>

#include "base/arena.h"
#include "ast.h"
#include "lex.h"
#include "parse_int.h"
#include "base/sbuf.h"
#include "base/unicode.h"
#include "value/value.h"

/* ============================================================ literals */

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
void
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
bool
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

struct node *
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
struct node *
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
