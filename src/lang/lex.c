/*
 * lex.c -- the tokenizer.
 *
 * lex_next() skips what is not a token (spaces, comments, joined lines),
 * then looks at one byte to decide what the token is: a name (or keyword,
 * or the prefix of a string), a number, a string, or an operator found by
 * longest match.  Each scanner checks its token the way CPython 3.11's
 * tokenizer does and reports the same message at the same place; the
 * place is the byte just before where CPython's tokenizer stood, because
 * CPython's column for a tokenizer error counts the characters up to its
 * read position.
 *
 * The input is known to be valid UTF-8 without NUL bytes (parse_input
 * checks that first), but the lexer stays safe on any bytes.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "base/arena.h"
#include "lex.h"
#include "base/unicode.h"

#define X_TEXT(e, text) text,
static const char *const token_texts[] = { TOKEN_KINDS(X_TEXT) };
#undef X_TEXT

const char *
lex_token_text(enum token_kind kind)
{
	return kind < TOK__COUNT ? token_texts[kind] : "?";
}

void
lex_init(struct lexer *lx, struct arena *a, const char *src, uint32_t begin,
    uint32_t end)
{
	/* the bracket stack needs no clearing: depth says what is live */
	memset(lx, 0, offsetof(struct lexer, brackets));
	memset(&lx->at_line_start, 0,
	    sizeof *lx - offsetof(struct lexer, at_line_start));
	lx->arena = a;
	lx->src = src;
	lx->pos = begin;
	lx->begin = begin;
	lx->end = end;
	lx->at_line_start = true;
}

void
lex_position(const char *src, size_t len, uint32_t off, uint32_t *line,
    uint32_t *column)
{
	uint32_t ln = 1, ls = 0, i;
	if (off > len)
		off = (uint32_t)len;
	for (i = 0; i < off; i++)
		if (src[i] == '\n' || (src[i] == '\r' &&
		    (i + 1 >= len || src[i + 1] != '\n'))) {
			ln++;
			ls = i + 1;
		}
	*line = ln;
	*column = (uint32_t)unicode_count(src + ls, off - ls) + 1;
}

/* The 1-based line of byte off (for "detected at line N"). */
static uint32_t
line_of(const struct lexer *lx, uint32_t off)
{
	uint32_t line, column;
	lex_position(lx->src, lx->end, off, &line, &column);
	return line;
}

static int
peekc(const struct lexer *lx, uint32_t at)
{
	return at < lx->end ? (unsigned char)lx->src[at] : -1;
}

static struct token
make(struct lexer *lx, enum token_kind kind, uint32_t start)
{
	struct token t;
	memset(&t, 0, sizeof t);
	t.kind = kind;
	t.start = start;
	t.length = lx->pos - start;
	lx->emitted_any = true;
	lx->at_line_start = false;
	return t;
}

/* An error token; the lexer stays at the error from now on. */
static struct token
fail(struct lexer *lx, enum pyexc_class cls, uint32_t start, uint32_t end,
    bool incomplete, const char *msg)
{
	struct token t;
	memset(&t, 0, sizeof t);
	t.kind = TOK_ERROR;
	t.start = start;
	t.length = end - start;
	if (lx->error.msg == NULL) {
		lx->error.cls = cls;
		lx->error.msg = msg;
		lx->error.start = start;
		lx->error.end = end;
		lx->error.is_incomplete = incomplete;
	}
	lx->pos = lx->end;
	return t;
}

/* An error at the character just before byte position cur. */
static struct token
fail_at(struct lexer *lx, uint32_t cur, const char *msg)
{
	uint32_t start = cur;
	if (start > lx->begin)
		start--;
	while (start > lx->begin &&
	    ((unsigned char)lx->src[start] & 0xC0) == 0x80)
		start--;
	return fail(lx, PYEXC_SyntaxError, start, cur, false, msg);
}

static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool
is_xdigit(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Letters, digits, '_' and every non-ASCII byte (checked later). */
static const bool ident_bytes[256] = {
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1,
	['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, ['_'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
	['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1,
	['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
	['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
	['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1,
	['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1,
	['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
	['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1,
	[128 ... 255] = 1,
};

static bool
is_ident_char(int c)
{
	return c >= 0 && ident_bytes[c];
}

bool
lex_is_name(const char *s)
{
	if (!is_ident_char((unsigned char)*s) || (*s >= '0' && *s <= '9'))
		return false;
	while (*++s != '\0')
		if (!is_ident_char((unsigned char)*s))
			return false;
	return true;
}

/* ---------------------------------------------------------------- names */

#define X_LEN(e, text) (uint8_t)(sizeof(text) - 1),
static const uint8_t token_lengths[] = { TOKEN_KINDS(X_LEN) };
#undef X_LEN

/* (a byte loop, not memcmp: a keyword is a few bytes, and a call here
 * made lex_next() save and restore four registers for every token) */
static inline bool
is_text(enum token_kind k, const char *s, uint32_t n)
{
	const char *t = token_texts[k];
	uint32_t i;

	if (token_lengths[k] != n || t[1] != s[1])
		return false;
	for (i = 0; i < n; i++)
		if (t[i] != s[i])
			return false;
	return true;
}

/*
 * The keywords, a slot each (tools/gen_keywords.py, from CPython's
 * keyword.kwlist): a name's first and last bytes and its length pick the
 * one slot it can be in, and one compare says whether it is that keyword.
 * An empty slot is 0, which is TOK_EOF.
 */
#include "keywords.gen.h"
_Static_assert(TOK__COUNT <= 256, "keyword_slots holds token kinds in bytes");

/* A name's keyword kind, or TOK_NAME. */
static inline enum token_kind
keyword(const char *s, uint32_t n)
{
	enum token_kind k = (enum token_kind)keyword_slots[KEYWORD_SLOT(s, n)];
	return k != TOK_EOF && is_text(k, s, n) ? k : TOK_NAME;
}

/* The STR_* flags of a string prefix, or -1 when s[0..n) is not one. */
static int
string_prefix(const char *s, uint32_t n)
{
	int flags = 0;
	uint32_t i;
	if (n > 2)
		return -1;
	for (i = 0; i < n; i++) {
		int f;
		switch (s[i]) {
		case 'r': case 'R': f = STR_RAW; break;
		case 'b': case 'B': f = STR_BYTES; break;
		case 'f': case 'F': f = STR_F; break;
		case 'u': case 'U': f = STR_U; break;
		default: return -1;
		}
		if (flags & f)
			return -1;
		flags |= f;
	}
	/* u goes alone; b and f do not mix */
	if ((flags & STR_U) && n != 1)
		return -1;
	if ((flags & STR_BYTES) && (flags & STR_F))
		return -1;
	return flags;
}

/*
 * CPython checks an identifier that holds non-ASCII characters with
 * _PyUnicode_ScanIdentifier: the first character must be XID_Start (or
 * '_'), the others XID_Continue, and the first one that is not is named.
 */
static struct token
check_identifier(struct lexer *lx, uint32_t start)
{
	uint32_t i = start, n;
	uint32_t cp;
	bool first = true;

	while (i < lx->pos) {
		n = (uint32_t)unicode_decode(lx->src + i, lx->pos - i, &cp);
		if (n == 0)
			return fail(lx, PYEXC_SyntaxError, i, i + 1, false,
			    arena_printf(lx->arena,
			    "invalid UTF-8 byte 0x%02x",
			    (unsigned char)lx->src[i]));
		if (!(first ? unicode_is_xid_start(cp) :
		    unicode_is_xid_continue(cp))) {
			char buf[5];
			size_t bl = unicode_encode(cp, buf);
			if (unicode_is_printable(cp))
				return fail(lx, PYEXC_SyntaxError,
				    i, i + n, false,
				    arena_printf(lx->arena,
				    "invalid character '%.*s' (U+%04X)",
				    (int)bl, buf, (unsigned)cp));
			return fail(lx, PYEXC_SyntaxError, i, i + n, false,
			    arena_printf(lx->arena,
			    "invalid non-printable character U+%04X",
			    (unsigned)cp));
		}
		first = false;
		i += n;
	}
	return make(lx, TOK_NAME, start);
}

/* -------------------------------------------------------------- strings */

/*
 * string -> PREFIX? (QUOTE ... QUOTE | TRIPLE ... TRIPLE)
 * A backslash hides the next character from the end-quote search (also
 * in raw strings); a newline ends a single-quoted string with an error.
 */
static struct token
scan_string(struct lexer *lx, uint32_t start, int flags)
{
	uint32_t body = lx->pos;
	int q = peekc(lx, body);
	uint8_t qlen = 1;
	struct token t;

	if (peekc(lx, body + 1) == q && peekc(lx, body + 2) == q)
		qlen = 3;
	lx->pos = body + qlen;
	for (;;) {
		int c = peekc(lx, lx->pos);
		if (c < 0) {
			if (qlen == 3)
				return fail(lx, PYEXC_SyntaxError,
				    start, start + 1,
				    true, arena_printf(lx->arena,
				    "unterminated triple-quoted string literal"
				    " (detected at line %u)",
				    line_of(lx, lx->end - 1)));
			return fail(lx, PYEXC_SyntaxError,
			    start, start + 1, false,
			    arena_printf(lx->arena,
			    "unterminated string literal (detected at line %u)",
			    line_of(lx, lx->end - 1)));
		}
		if (c == '\\') {
			int n = peekc(lx, lx->pos + 1);
			lx->pos += n < 0 ? 1 : 2;
			if (n == '\r' && peekc(lx, lx->pos) == '\n')
				lx->pos++;	/* CR LF continues the line too */
			continue;
		}
		if ((c == '\n' || c == '\r') && qlen == 1)
			return fail(lx, PYEXC_SyntaxError,
			    start, start + 1, false,
			    arena_printf(lx->arena,
			    "unterminated string literal (detected at line %u)",
			    line_of(lx, lx->pos)));
		if (c == q && (qlen == 1 || (peekc(lx, lx->pos + 1) == q &&
		    peekc(lx, lx->pos + 2) == q))) {
			lx->pos += qlen;
			break;
		}
		lx->pos++;
	}
	t = make(lx, TOK_STRING, start);
	t.flags = (uint8_t)flags;
	t.prefix_len = (uint8_t)(body - start);
	t.quote_len = qlen;
	return t;
}

/* -------------------------------------------------------------- numbers */

/*
 * CPython 3.11's verify_end_of_number: a number may run into a keyword
 * that can follow it (1if x else y) but not into any other name.
 */
static bool
ends_number(struct lexer *lx, uint32_t at)
{
	static const char *const kws[] = {
		"and", "else", "for", "if", "in", "is", "not", "or"
	};
	size_t i;
	int c = peekc(lx, at);
	/* CPython lets a non-ASCII character follow: 1.é is two tokens */
	if (!is_ident_char(c) || c >= 128)
		return true;
	for (i = 0; i < sizeof kws / sizeof kws[0]; i++) {
		size_t n = strlen(kws[i]);
		if (at + n <= lx->end && memcmp(lx->src + at, kws[i], n) == 0)
			return true;
	}
	return false;
}

/* Digits with single underscores between them; false on a bad '_'. */
static bool
decimal_tail(struct lexer *lx)
{
	for (;;) {
		while (is_digit(peekc(lx, lx->pos)))
			lx->pos++;
		if (peekc(lx, lx->pos) != '_')
			return true;
		lx->pos++;
		if (!is_digit(peekc(lx, lx->pos)))
			return false;
	}
}

static struct token
number_end(struct lexer *lx, uint32_t start, enum number_kind kind,
    const char *what)
{
	struct token t;
	if (!ends_number(lx, lx->pos))
		return fail_at(lx, lx->pos, arena_printf(lx->arena,
		    "invalid %s literal", what));
	t = make(lx, TOK_NUMBER, start);
	t.flags = (uint8_t)kind;
	return t;
}

/* fraction, exponent and imaginary suffix of a decimal number */
static struct token
scan_float_tail(struct lexer *lx, uint32_t start, bool is_float)
{
	int c = peekc(lx, lx->pos);
	if (c == '.') {
		lx->pos++;
		is_float = true;
		if (is_digit(peekc(lx, lx->pos)) && !decimal_tail(lx))
			return fail_at(lx, lx->pos, "invalid decimal literal");
		c = peekc(lx, lx->pos);
	}
	if (c == 'e' || c == 'E') {
		uint32_t e = lx->pos;
		lx->pos++;
		c = peekc(lx, lx->pos);
		if (c == '+' || c == '-') {
			lx->pos++;
			if (!is_digit(peekc(lx, lx->pos)))
				return fail_at(lx, lx->pos,
				    "invalid decimal literal");
		} else if (!is_digit(c)) {
			/* "1else": the e starts a keyword */
			lx->pos = e;
			return number_end(lx, start,
			    is_float ? NUM_FLOAT : NUM_INT, "decimal");
		}
		if (!decimal_tail(lx))
			return fail_at(lx, lx->pos, "invalid decimal literal");
		is_float = true;
		c = peekc(lx, lx->pos);
	}
	if (c == 'j' || c == 'J') {
		lx->pos++;
		return number_end(lx, start, NUM_IMAG, "imaginary");
	}
	return number_end(lx, start, is_float ? NUM_FLOAT : NUM_INT,
	    "decimal");
}

/* 0x.. 0o.. 0b.. digits of a prefixed integer */
static struct token
scan_radix(struct lexer *lx, uint32_t start, int radix)
{
	const char *what = radix == 16 ? "hexadecimal" :
	    radix == 8 ? "octal" : "binary";
	int c;
	lx->pos += 2;
	for (;;) {
		bool any = false;
		c = peekc(lx, lx->pos);
		if (c == '_') {
			lx->pos++;
			c = peekc(lx, lx->pos);
		}
		for (;;) {
			bool ok = radix == 16 ? is_xdigit(c) :
			    c >= '0' && c < '0' + radix;
			if (!ok)
				break;
			any = true;
			lx->pos++;
			c = peekc(lx, lx->pos);
		}
		if (!any) {
			if (radix != 16 && is_digit(c))
				return fail_at(lx, lx->pos + 1,
				    arena_printf(lx->arena,
				    "invalid digit '%c' in %s literal", c,
				    what));
			return fail_at(lx, lx->pos, arena_printf(lx->arena,
			    "invalid %s literal", what));
		}
		if (c != '_')
			break;
	}
	if (radix != 16 && is_digit(c))
		return fail_at(lx, lx->pos + 1, arena_printf(lx->arena,
		    "invalid digit '%c' in %s literal", c, what));
	return number_end(lx, start, NUM_INT, what);
}

/* number -> DIGITS ('.' DIGITS?)? EXP? 'j'? | '.' DIGITS EXP? 'j'? | 0x.. */
static struct token
scan_number(struct lexer *lx, uint32_t start)
{
	int c = peekc(lx, start);
	if (c == '.') {
		lx->pos = start;
		return scan_float_tail(lx, start, true);
	}
	if (c == '0') {
		int c1 = peekc(lx, start + 1);
		bool nonzero = false;
		if (c1 == 'x' || c1 == 'X')
			return scan_radix(lx, start, 16);
		if (c1 == 'o' || c1 == 'O')
			return scan_radix(lx, start, 8);
		if (c1 == 'b' || c1 == 'B')
			return scan_radix(lx, start, 2);
		lx->pos = start + 1;
		for (;;) {
			while (peekc(lx, lx->pos) == '0')
				lx->pos++;
			if (peekc(lx, lx->pos) != '_')
				break;
			lx->pos++;
			if (!is_digit(peekc(lx, lx->pos)))
				return fail_at(lx, lx->pos,
				    "invalid decimal literal");
		}
		if (is_digit(peekc(lx, lx->pos))) {
			nonzero = true;
			if (!decimal_tail(lx))
				return fail_at(lx, lx->pos,
				    "invalid decimal literal");
		}
		c = peekc(lx, lx->pos);
		if (c == '.' || c == 'e' || c == 'E' || c == 'j' || c == 'J')
			return scan_float_tail(lx, start, false);
		if (nonzero)
			return fail(lx, PYEXC_SyntaxError,
			    start, lx->pos, false,
			    "leading zeros in decimal integer literals are not "
			    "permitted; use an 0o prefix for octal integers");
		return number_end(lx, start, NUM_INT, "decimal");
	}
	lx->pos = start;
	if (!decimal_tail(lx))
		return fail_at(lx, lx->pos, "invalid decimal literal");
	return scan_float_tail(lx, start, false);
}

/* ------------------------------------------------------------ operators */

/*
 * The operator at src[start]: longest match, decided by the first
 * character and at most two more.
 */
static enum token_kind
longest_op(const struct lexer *lx, uint32_t start, uint32_t *len)
{
	int c = peekc(lx, start), c1 = peekc(lx, start + 1),
	    c2 = peekc(lx, start + 2);
	*len = 2;
	switch (c) {
	case '*':
		if (c1 == '*') {
			if (c2 == '=') {
				*len = 3;
				return TOK_DOUBLESTAREQUAL;
			}
			return TOK_DOUBLESTAR;
		}
		return c1 == '=' ? TOK_STAREQUAL : TOK_ERROR;
	case '/':
		if (c1 == '/') {
			if (c2 == '=') {
				*len = 3;
				return TOK_DOUBLESLASHEQUAL;
			}
			return TOK_DOUBLESLASH;
		}
		return c1 == '=' ? TOK_SLASHEQUAL : TOK_ERROR;
	case '<':
		if (c1 == '<') {
			if (c2 == '=') {
				*len = 3;
				return TOK_LEFTSHIFTEQUAL;
			}
			return TOK_LEFTSHIFT;
		}
		return c1 == '=' ? TOK_LESSEQUAL : TOK_ERROR;
	case '>':
		if (c1 == '>') {
			if (c2 == '=') {
				*len = 3;
				return TOK_RIGHTSHIFTEQUAL;
			}
			return TOK_RIGHTSHIFT;
		}
		return c1 == '=' ? TOK_GREATEREQUAL : TOK_ERROR;
	case '.':
		if (c1 == '.' && c2 == '.') {
			*len = 3;
			return TOK_ELLIPSIS;
		}
		return TOK_ERROR;
	case '-':
		return c1 == '=' ? TOK_MINEQUAL : c1 == '>' ? TOK_RARROW :
		    TOK_ERROR;
	case '!': return c1 == '=' ? TOK_NOTEQUAL : TOK_ERROR;
	case '%': return c1 == '=' ? TOK_PERCENTEQUAL : TOK_ERROR;
	case '&': return c1 == '=' ? TOK_AMPEREQUAL : TOK_ERROR;
	case '+': return c1 == '=' ? TOK_PLUSEQUAL : TOK_ERROR;
	case ':': return c1 == '=' ? TOK_COLONEQUAL : TOK_ERROR;
	case '=': return c1 == '=' ? TOK_EQEQUAL : TOK_ERROR;
	case '@': return c1 == '=' ? TOK_ATEQUAL : TOK_ERROR;
	case '^': return c1 == '=' ? TOK_CIRCUMFLEXEQUAL : TOK_ERROR;
	case '|': return c1 == '=' ? TOK_VBAREQUAL : TOK_ERROR;
	default: return TOK_ERROR;
	}
}

static enum token_kind
op1(int c)
{
	switch (c) {
	case '(': return TOK_LPAR;
	case ')': return TOK_RPAR;
	case '[': return TOK_LSQB;
	case ']': return TOK_RSQB;
	case '{': return TOK_LBRACE;
	case '}': return TOK_RBRACE;
	case ':': return TOK_COLON;
	case ',': return TOK_COMMA;
	case ';': return TOK_SEMI;
	case '+': return TOK_PLUS;
	case '-': return TOK_MINUS;
	case '*': return TOK_STAR;
	case '/': return TOK_SLASH;
	case '|': return TOK_VBAR;
	case '&': return TOK_AMPER;
	case '<': return TOK_LESS;
	case '>': return TOK_GREATER;
	case '=': return TOK_EQUAL;
	case '.': return TOK_DOT;
	case '%': return TOK_PERCENT;
	case '~': return TOK_TILDE;
	case '^': return TOK_CIRCUMFLEX;
	case '@': return TOK_AT;
	case '!': return TOK_EXCLAMATION;
	default: return TOK_ERROR;
	}
}

static struct token
bracket(struct lexer *lx, uint32_t start, enum token_kind kind, int c)
{
	if (c == '(' || c == '[' || c == '{') {
		if (lx->depth >= LEX_MAX_NESTING) {
			lx->pos = start + 1;
			return fail_at(lx, lx->pos, "too many nested parentheses");
		}
		lx->brackets[lx->depth] = (char)c;
		lx->bracket_pos[lx->depth] = start;
		lx->depth++;
	} else {
		char open;
		if (lx->depth == 0)
			return fail_at(lx, start + 1, arena_printf(lx->arena,
			    "unmatched '%c'", c));
		open = lx->brackets[lx->depth - 1];
		if ((open == '(' && c != ')') || (open == '[' && c != ']') ||
		    (open == '{' && c != '}')) {
			uint32_t ol = line_of(lx, lx->bracket_pos[lx->depth - 1]);
			uint32_t cl = line_of(lx, start);
			if (ol != cl)
				return fail_at(lx, start + 1,
				    arena_printf(lx->arena,
				    "closing parenthesis '%c' does not match "
				    "opening parenthesis '%c' on line %u",
				    c, open, ol));
			return fail_at(lx, start + 1, arena_printf(lx->arena,
			    "closing parenthesis '%c' does not match opening "
			    "parenthesis '%c'", c, open));
		}
		lx->depth--;
	}
	lx->pos = start + 1;
	return make(lx, kind, start);
}

static struct token
scan_operator(struct lexer *lx, uint32_t start)
{
	int c = peekc(lx, start);
	uint32_t len;
	enum token_kind k = longest_op(lx, start, &len);

	if (k != TOK_ERROR) {
		lx->pos = start + len;
		return make(lx, k, start);
	}
	k = op1(c);
	if (k == TOK_ERROR) {
		if (c < 0x20 || c == 0x7f) {
			lx->pos = start + 1;
			return fail(lx, PYEXC_SyntaxError,
			    start, start + 1, false,
			    arena_printf(lx->arena,
			    "invalid non-printable character U+%04X", c));
		}
		lx->pos = start + 1;
		return fail(lx, PYEXC_SyntaxError, start, start + 1, false,
		    "invalid syntax");
	}
	if (k <= TOK_RBRACE && k >= TOK_LPAR)
		return bracket(lx, start, k, c);
	lx->pos = start + 1;
	return make(lx, k, start);
}

/* ----------------------------------------------------------------- main */

/*
 * The fast path: one look at fast_class[] decides most tokens.  Blanks
 * are skipped; an ASCII letter or '_' starts a name, a digit a decimal
 * integer, a bracket keeps the bracket stack, and an operator byte is the
 * token fast_ops[] names unless the byte after it lengthens it (a bit of
 * longer_after[next] is the bit of each operator that next lengthens:
 * '=' after '+', '>' after '-', '*' after '*', a digit after '.').
 * Anything else, and every error, goes to lex_general().  Without it the
 * essay expression took 1.2x the instructions in make bench and the
 * 1 MiB inputs 1.35x, and 2.2x the time; tests/test_lex.c checks it
 * against lex_general() alone (lex_next_general) on generated inputs.
 */
enum fast_class {
	FC_OTHER, FC_BLANK, FC_NAME, FC_DIGIT, FC_OP, FC_OPEN, FC_CLOSE
};

#define LETTERS(v) \
	['A' ... 'Z'] = v, ['a' ... 'z'] = v, ['_'] = v
static const uint8_t fast_class[256] = {
	[' '] = FC_BLANK, ['\t'] = FC_BLANK,
	LETTERS(FC_NAME), ['0' ... '9'] = FC_DIGIT,
	['('] = FC_OPEN, ['['] = FC_OPEN, ['{'] = FC_OPEN,
	[')'] = FC_CLOSE, [']'] = FC_CLOSE, ['}'] = FC_CLOSE,
	[','] = FC_OP, [';'] = FC_OP, ['~'] = FC_OP, ['+'] = FC_OP,
	['-'] = FC_OP, ['*'] = FC_OP, ['/'] = FC_OP, ['%'] = FC_OP,
	['&'] = FC_OP, ['|'] = FC_OP, ['^'] = FC_OP, ['@'] = FC_OP,
	['<'] = FC_OP, ['>'] = FC_OP, ['='] = FC_OP, ['.'] = FC_OP,
	[':'] = FC_OP, ['!'] = FC_OP,
};
static const uint8_t fast_ops[256] = {
	['('] = TOK_LPAR, [')'] = TOK_RPAR, ['['] = TOK_LSQB,
	[']'] = TOK_RSQB, ['{'] = TOK_LBRACE, ['}'] = TOK_RBRACE,
	[','] = TOK_COMMA, [';'] = TOK_SEMI, ['~'] = TOK_TILDE,
	['+'] = TOK_PLUS, ['-'] = TOK_MINUS, ['*'] = TOK_STAR,
	['/'] = TOK_SLASH, ['%'] = TOK_PERCENT, ['&'] = TOK_AMPER,
	['|'] = TOK_VBAR, ['^'] = TOK_CIRCUMFLEX, ['@'] = TOK_AT,
	['<'] = TOK_LESS, ['>'] = TOK_GREATER, ['='] = TOK_EQUAL,
	['.'] = TOK_DOT, [':'] = TOK_COLON, ['!'] = TOK_EXCLAMATION,
};
/* the opening bracket a closing one matches */
static const char opener[256] = { [')'] = '(', [']'] = '[', ['}'] = '{' };

/* a bit for each operator byte that a next byte can lengthen */
enum {
	OB_PLUS = 1 << 0, OB_MINUS = 1 << 1, OB_STAR = 1 << 2,
	OB_SLASH = 1 << 3, OB_PERCENT = 1 << 4, OB_AMPER = 1 << 5,
	OB_VBAR = 1 << 6, OB_CIRCUMFLEX = 1 << 7, OB_AT = 1 << 8,
	OB_LESS = 1 << 9, OB_GREATER = 1 << 10, OB_EQUAL = 1 << 11,
	OB_DOT = 1 << 12, OB_COLON = 1 << 13, OB_EXCLAMATION = 1 << 14,
};
static const uint16_t op_bit[256] = {
	['+'] = OB_PLUS, ['-'] = OB_MINUS, ['*'] = OB_STAR,
	['/'] = OB_SLASH, ['%'] = OB_PERCENT, ['&'] = OB_AMPER,
	['|'] = OB_VBAR, ['^'] = OB_CIRCUMFLEX, ['@'] = OB_AT,
	['<'] = OB_LESS, ['>'] = OB_GREATER, ['='] = OB_EQUAL,
	['.'] = OB_DOT, [':'] = OB_COLON, ['!'] = OB_EXCLAMATION,
};
/* the operators each next byte lengthens (longest_op()'s cases):
 * X=, ->, **, //, <<, >>, ..(.), and '.' before a digit is a number */
static const uint16_t longer_after[256] = {
	['='] = OB_PLUS | OB_MINUS | OB_STAR | OB_SLASH | OB_PERCENT |
	    OB_AMPER | OB_VBAR | OB_CIRCUMFLEX | OB_AT | OB_LESS |
	    OB_GREATER | OB_EQUAL | OB_COLON | OB_EXCLAMATION,
	['>'] = OB_MINUS | OB_GREATER, ['<'] = OB_LESS, ['*'] = OB_STAR,
	['/'] = OB_SLASH, ['.'] = OB_DOT, ['0' ... '9'] = OB_DOT,
};
/* the bytes of an ASCII name after its first */
static const bool name_tail[256] = { LETTERS(true), ['0' ... '9'] = true };
/* after a name: a string (a prefix) or a non-ASCII name goes slow */
static const bool name_stop_slow[256] = {
	['\''] = true, ['"'] = true, [128 ... 255] = true
};
#undef LETTERS

static struct token lex_general(struct lexer *lx) __attribute__((noinline));

/*
 * Inside a line, with no error: skip blanks and take the token the fast
 * tables decide, else leave it to lex_general().  (Blanks at the start
 * of a line are the general scanner's: they may be an unexpected indent.)
 */
struct token
lex_next(struct lexer *lx)
{
	const unsigned char *s = (const unsigned char *)lx->src;
	uint32_t pos = lx->pos, end = lx->end, p;
	enum token_kind k;
	int c;

	if (lx->error.msg != NULL)
		return lex_general(lx);
	if (pos >= end)
		goto at_end;
again:
	c = s[pos];
	p = pos + 1;
	switch (fast_class[c]) {
	case FC_BLANK:
		if (lx->at_line_start)
			return lex_general(lx);
		while (p < end && fast_class[s[p]] == FC_BLANK)
			p++;
		pos = p;
		if (pos < end)
			goto again;
		goto at_end;
	case FC_NAME:
		while (p < end && name_tail[s[p]])
			p++;
		if (p < end && name_stop_slow[s[p]])
			return lex_general(lx);
		k = keyword((const char *)s + pos, p - pos);
		break;
	case FC_DIGIT:
		if (c != '0')
			while (p < end && s[p] >= '0' && s[p] <= '9')
				p++;
		/* a letter, '_' or '.' next: another kind of number */
		if (p < end && (name_tail[s[p]] || s[p] == '.'))
			return lex_general(lx);
		k = TOK_NUMBER;		/* flags 0: NUM_INT */
		break;
	case FC_OP:
		if (p < end && (longer_after[s[p]] & op_bit[c]) != 0)
			return lex_general(lx);
		k = (enum token_kind)fast_ops[c];
		break;
	case FC_OPEN:
		if (lx->depth >= LEX_MAX_NESTING)
			return lex_general(lx);
		lx->brackets[lx->depth] = (char)c;
		lx->bracket_pos[lx->depth] = pos;
		lx->depth++;
		k = (enum token_kind)fast_ops[c];
		break;
	case FC_CLOSE:
		/* unmatched or mismatched: bracket() says which */
		if (lx->depth == 0 || lx->brackets[lx->depth - 1] != opener[c])
			return lex_general(lx);
		lx->depth--;
		k = (enum token_kind)fast_ops[c];
		break;
	default:
		return lex_general(lx);
	}
	lx->pos = p;
	lx->emitted_any = true;
	lx->at_line_start = false;
	return (struct token){ k, pos, p - pos, 0, 0, 0, false };

at_end:
	if (lx->depth != 0)
		return lex_general(lx);
	/* the end: NEWLINE after a line's tokens, then EOF */
	k = lx->emitted_any ? TOK_NEWLINE : TOK_EOF;
	lx->pos = pos;
	lx->emitted_any = k == TOK_EOF;
	lx->at_line_start = k == TOK_NEWLINE;
	return (struct token){ k, pos, 0, 0, 0, 0, false };
}

struct token
lex_next_general(struct lexer *lx)
{
	return lex_general(lx);
}

static struct token
lex_general(struct lexer *lx)
{
	int c;
	uint32_t start;

	if (lx->error.msg != NULL)
		return fail(lx, lx->error.cls, lx->error.start, lx->error.end,
		    lx->error.is_incomplete, lx->error.msg);
again:
	/* indentation: only the first line of a statement may be indented
	 * nowhere, so any leading white space before code is an error */
	if (lx->at_line_start && lx->depth == 0) {
		uint32_t p = lx->pos;
		while ((c = peekc(lx, p)) == ' ' || c == '\t' || c == '\f')
			p++;
		if (p > lx->pos && c >= 0 && c != '#' && c != '\n' &&
		    c != '\r' && c != '\\' && !lx->in_fstring)
			return fail(lx, PYEXC_IndentationError, p - 1, p, false,
			    "unexpected indent");
		lx->pos = p;
	}
	while ((c = peekc(lx, lx->pos)) == ' ' || c == '\t' || c == '\f')
		lx->pos++;
	start = lx->pos;
	if (c == '#') {
		while ((c = peekc(lx, lx->pos)) >= 0 && c != '\n' && c != '\r')
			lx->pos++;
		start = lx->pos;
	}
	if (c < 0) {
		if (lx->depth > 0) {
			uint32_t bp = lx->bracket_pos[lx->depth - 1];
			return fail(lx, PYEXC_SyntaxError, bp, bp + 1, true,
			    arena_printf(lx->arena, "'%c' was never closed",
			    lx->brackets[lx->depth - 1]));
		}
		if (lx->emitted_any) {
			struct token t = make(lx, TOK_NEWLINE, start);
			lx->emitted_any = false;
			lx->at_line_start = true;
			return t;
		}
		return make(lx, TOK_EOF, start);
	}
	if (c == '\\') {
		int n = peekc(lx, lx->pos + 1);
		if (n == '\n' || n == '\r') {
			lx->pos += 2;
			if (n == '\r' && peekc(lx, lx->pos) == '\n')
				lx->pos++;
			/* a joined line that never comes: CPython's REPL
			 * reports this as an error, not as more to read */
			if (lx->pos >= lx->end)
				return fail(lx, PYEXC_SyntaxError,
				    start, start + 1,
				    false, "unexpected EOF while parsing");
			lx->at_line_start = false;
			goto again;
		}
		if (n < 0)
			return fail(lx, PYEXC_SyntaxError,
			    start, start + 1, true,
			    "unexpected EOF while parsing");
		return fail_at(lx, start + 2, "unexpected character after "
		    "line continuation character");
	}
	if (c == '\n' || c == '\r') {
		lx->pos++;
		if (c == '\r' && peekc(lx, lx->pos) == '\n')
			lx->pos++;
		if (lx->depth > 0 || lx->in_fstring)
			goto again;
		if (lx->emitted_any) {
			struct token t = make(lx, TOK_NEWLINE, start);
			t.length = 1;
			lx->emitted_any = false;
			lx->at_line_start = true;
			return t;
		}
		lx->at_line_start = true;
		goto again;
	}
	if (is_ident_char(c) && !is_digit(c)) {
		bool non_ascii = false;
		int flags;
		while (is_ident_char(c = peekc(lx, lx->pos))) {
			if (c >= 128)
				non_ascii = true;
			lx->pos++;
		}
		if ((c == '\'' || c == '"') &&
		    (flags = string_prefix(lx->src + start, lx->pos - start))
		    >= 0)
			return scan_string(lx, start, flags);
		if (non_ascii) {
			struct token t = check_identifier(lx, start);
			t.is_non_ascii = true;
			return t;
		}
		return make(lx, keyword(lx->src + start, lx->pos - start),
		    start);
	}
	if (is_digit(c) || (c == '.' && is_digit(peekc(lx, lx->pos + 1))))
		return scan_number(lx, start);
	if (c == '\'' || c == '"')
		return scan_string(lx, start, 0);
	return scan_operator(lx, start);
}
