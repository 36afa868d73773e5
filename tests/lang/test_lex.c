/*
 * test_lex.c -- the tokenizer: kinds and spans of tokens, borrowed from
 * the input; errors as tokens with CPython's message and place.
 * Expected messages are CPython 3.11's (checked with python3 -c when this
 * table was written; the parser tables re-check them through
 * tools/gen_parse.py).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "lang/lex.h"
#include "base/sbuf.h"

/* "KIND:text KIND:text ..." for every token up to EOF or ERROR. */
static void
tokens_of(const char *src, struct sbuf *out, struct lex_error *err)
{
	struct arena *a = arena_new();
	struct lexer lx;
	struct token t;
	int guard = 0;

	lex_init(&lx, a, src, 0, (uint32_t)strlen(src));
	do {
		t = lex_next(&lx);
		if (out->len)
			sbuf_addc(out, ' ');
		if (t.kind == TOK_NEWLINE)
			sbuf_adds(out, "NL");
		else if (t.kind == TOK_EOF)
			sbuf_adds(out, "EOF");
		else if (t.kind == TOK_ERROR)
			sbuf_adds(out, "ERROR");
		else {
			if (t.kind == TOK_NAME)
				sbuf_adds(out, "N:");
			else if (t.kind == TOK_NUMBER)
				sbuf_addf(out, "%c:", "ifj"[t.flags]);
			else if (t.kind == TOK_STRING)
				sbuf_addf(out, "S%u%u:", t.prefix_len,
				    t.quote_len);
			sbuf_add(out, src + t.start, t.length);
		}
	} while (t.kind != TOK_EOF && t.kind != TOK_ERROR && ++guard < 1000);
	*err = lx.error;
	err->msg = NULL;	/* it lived in the arena */
	arena_free(a);
}

static void
test_token_table(void **state)
{
	static const struct {
		const char *src, *want;
	} cases[] = {
		{ "round(sum(orders) / len(orders), 2)",
		  "N:round ( N:sum ( N:orders ) / N:len ( N:orders ) , i:2 ) "
		  "NL EOF" },
		{ "a**=b//=c>>=d<<=e", "N:a **= N:b //= N:c >>= N:d <<= N:e "
		  "NL EOF" },
		{ "x := ... -> != == <= >= @= @ ~ ^", "N:x := ... -> != == <= "
		  ">= @= @ ~ ^ NL EOF" },
		{ "1 1.5 .5 1e3 1j 0x_f 0o7 0b1 1_000 1.", "i:1 f:1.5 f:.5 "
		  "f:1e3 j:1j i:0x_f i:0o7 i:0b1 i:1_000 f:1. NL EOF" },
		{ "1if x else 2", "i:1 if N:x else i:2 NL EOF" },
		{ "'a' \"b\" '''c''' r'\\'' b'x' Rb\"y\" f'{x}' u'z'",
		  "S01:'a' S01:\"b\" S03:'''c''' S11:r'\\'' S11:b'x' "
		  "S21:Rb\"y\" S11:f'{x}' S11:u'z' NL EOF" },
		{ "not in is and or lambda None True False",
		  "not in is and or lambda None True False NL EOF" },
		{ "a # comment\nb", "N:a NL N:b NL EOF" },
		{ "(a,\n b)", "( N:a , N:b ) NL EOF" },
		{ "a + \\\n b", "N:a + N:b NL EOF" },
		{ "\n\n  # only a comment\n\nx", "N:x NL EOF" },
		{ "ur'x'", "N:ur S01:'x' NL EOF" },
		{ "\xef\xbd\x8f", "N:\xef\xbd\x8f NL EOF" },
		{ "", "EOF" },
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sbuf b = SBUF_INIT;
		struct lex_error e;
		tokens_of(cases[i].src, &b, &e);
		assert_string_equal(sbuf_cstr(&b), cases[i].want);
		sbuf_free(&b);
	}
}

/* The kind of the one token src is, or TOK_ERROR when it is more. */
static enum token_kind
kind_of(const char *src)
{
	struct arena *a = arena_new();
	struct lexer lx;
	struct token t, next;

	lex_init(&lx, a, src, 0, (uint32_t)strlen(src));
	t = lex_next(&lx);
	next = lex_next(&lx);
	arena_free(a);
	return next.kind == TOK_NEWLINE ? t.kind : TOK_ERROR;
}

/* The keyword whose text is s, or TOK_NAME. */
static enum token_kind
keyword_named(const char *s)
{
	int k;
	for (k = TOK_FIRST_KEYWORD; k < TOK__COUNT; k++)
		if (strcmp(lex_token_text((enum token_kind)k), s) == 0)
			return (enum token_kind)k;
	return TOK_NAME;
}

/*
 * The lexer finds keywords by a slot table (keywords.gen.h): every
 * keyword is found, and every other name is a name -- every name of up
 * to three letters, and each keyword with a byte added, taken away or
 * changed, which are the names a wrong slot would let through.
 */
static void
test_keywords(void **state)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyzFNT_";
	char buf[16];
	size_t i, j, l;
	int k;
	(void)state;
	assert_int_equal(TOK__COUNT - TOK_FIRST_KEYWORD, 35);
	for (k = TOK_FIRST_KEYWORD; k < TOK__COUNT; k++) {
		const char *text = lex_token_text((enum token_kind)k);
		size_t n = strlen(text);
		assert_int_equal(kind_of(text), k);
		for (i = 0; i < sizeof letters - 1; i++) {
			snprintf(buf, sizeof buf, "%s%c", text, letters[i]);
			assert_int_equal(kind_of(buf), keyword_named(buf));
			snprintf(buf, sizeof buf, "%c%s", letters[i], text);
			assert_int_equal(kind_of(buf), keyword_named(buf));
			for (j = 0; j < n; j++) {
				memcpy(buf, text, n + 1);
				buf[j] = letters[i];
				assert_int_equal(kind_of(buf),
				    keyword_named(buf));
			}
		}
		memcpy(buf, text, n + 1);
		buf[n - 1] = '\0';
		if (n > 1)
			assert_int_equal(kind_of(buf), keyword_named(buf));
	}
	for (i = 0; i < sizeof letters - 1; i++)
		for (j = 0; j < sizeof letters; j++)
			for (l = 0; l < sizeof letters; l++) {
				buf[0] = letters[i];
				buf[1] = letters[j];
				buf[2] = letters[l];
				buf[3] = '\0';
				assert_int_equal(kind_of(buf),
				    keyword_named(buf));
			}
}

static void
test_error_tokens(void **state)
{
	static const struct {
		const char *src, *msg;
		uint32_t start;
		bool incomplete;
	} cases[] = {
		{ "'abc", "unterminated string literal (detected at line 1)",
		  0, false },
		{ "x = '''abc\n", "unterminated triple-quoted string literal "
		  "(detected at line 1)", 4, true },
		{ "(1, [2", "'[' was never closed", 4, true },
		{ "1 + \\", "unexpected EOF while parsing", 4, true },
		{ "1 \\ 2", "unexpected character after line continuation "
		  "character", 3, false },
		{ ")", "unmatched ')'", 0, false },
		{ "(]", "closing parenthesis ']' does not match opening "
		  "parenthesis '('", 1, false },
		{ "(\n]", "closing parenthesis ']' does not match opening "
		  "parenthesis '(' on line 1", 2, false },
		{ "1__0", "invalid decimal literal", 1, false },
		{ "012", "leading zeros in decimal integer literals are not "
		  "permitted; use an 0o prefix for octal integers", 0, false },
		{ "0o8", "invalid digit '8' in octal literal", 2, false },
		{ "0b12", "invalid digit '2' in binary literal", 3, false },
		{ "1abc", "invalid decimal literal", 0, false },
		{ "a \xe2\x82\xac", "invalid character '\xe2\x82\xac' (U+20AC)",
		  2, false },
		{ "$", "invalid syntax", 0, false },
		{ "  x", "unexpected indent", 1, false },
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct arena *a = arena_new();
		struct lexer lx;
		struct token t;
		int guard = 0;
		lex_init(&lx, a, cases[i].src, 0,
		    (uint32_t)strlen(cases[i].src));
		do
			t = lex_next(&lx);
		while (t.kind != TOK_ERROR && t.kind != TOK_EOF &&
		    ++guard < 100);
		if (t.kind != TOK_ERROR)
			fail_msg("%s: no error", cases[i].src);
		assert_string_equal(lx.error.msg, cases[i].msg);
		assert_int_equal(lx.error.start, cases[i].start);
		assert_int_equal(lx.error.is_incomplete, cases[i].incomplete);
		/* the error is sticky */
		t = lex_next(&lx);
		assert_int_equal(t.kind, TOK_ERROR);
		arena_free(a);
	}
}

/* A token is a span of the input, nothing copied. */
static void
test_borrowed_spans(void **state)
{
	const char *src = "  (abc + 'd')";
	struct arena *a = arena_new();
	struct lexer lx;
	struct token t;
	(void)state;
	lex_init(&lx, a, src, 2, (uint32_t)strlen(src));
	t = lex_next(&lx);
	assert_int_equal(t.kind, TOK_LPAR);
	assert_int_equal(t.start, 2);
	t = lex_next(&lx);
	assert_int_equal(t.kind, TOK_NAME);
	assert_int_equal(t.start, 3);
	assert_int_equal(t.length, 3);
	assert_memory_equal(src + t.start, "abc", 3);
	t = lex_next(&lx);
	assert_int_equal(t.kind, TOK_PLUS);
	t = lex_next(&lx);
	assert_int_equal(t.kind, TOK_STRING);
	assert_int_equal(t.start, 9);
	assert_int_equal(t.length, 3);
	assert_string_equal(lex_token_text(TOK_DOUBLESTAREQUAL), "**=");
	assert_string_equal(lex_token_text(TOK_LAMBDA), "lambda");
	assert_int_equal(arena_used(a), 0);	/* no error, no allocation */
	arena_free(a);
}

static void
test_position(void **state)
{
	const char *src = "ab\n\xc3\xa9\xc3\xa9x";
	uint32_t line, column;
	(void)state;
	lex_position(src, strlen(src), 0, &line, &column);
	assert_int_equal(line, 1);
	assert_int_equal(column, 1);
	lex_position(src, strlen(src), 7, &line, &column);
	assert_int_equal(line, 2);
	assert_int_equal(column, 3);	/* code points, not bytes */
}

/*
 * The fast tables against the general scanner.  lex_next() decides most
 * tokens from its tables and leaves the rest to the general scanner;
 * lex_next_general() takes every token there.  Both must give the same
 * tokens, the same error and its place, for every input: every string of
 * up to three bytes from the bytes the tables know, then random strings
 * of fragments (keywords, numbers, operators, strings, brackets,
 * indentation, comments, joined lines, non-ASCII names).
 */
static const char *const frag[] = {
	" ", "  ", "\t", "\n", "\r\n", "\\\n", "#c\n", "a", "b_1", "_", "x",
	"if", "in", "is", "not", "and", "or", "lambda", "None", "True",
	"False", "else", "for", "await", "rb", "f", "u", "0", "1", "9", "10",
	"0x1f", "1e5", "1.5", ".5", "1_0", "1j", "07", "'s'", "\"t\"",
	"'''u'''", "f'{a}'", "'", "\"", "+", "-", "*", "/", "%", "&", "|",
	"^", "@", "<", ">", "=", ".", ":", "!", "~", ",", ";", "**", "//",
	"->", "...", ":=", "!=", "<<=", "(", ")", "[", "]", "{", "}",
	"\xc3\xa9", "\xe2\x82\xac", "$", "?", "`",
};
static const char single[] =
    " \t\n\\#ab_fi0159.+-*/%&|^@<>=:!~,;()[]{}'\"$";

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t
next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Fails, naming src, unless both scanners agree on every token. */
static void
same_tokens(const char *src, size_t len)
{
	struct arena *a = arena_new(), *b = arena_new();
	struct lexer fast, general;
	struct token t, u;
	int guard = 0;

	lex_init(&fast, a, src, 0, (uint32_t)len);
	lex_init(&general, b, src, 0, (uint32_t)len);
	do {
		t = lex_next(&fast);
		u = lex_next_general(&general);
		if (t.kind != u.kind || t.start != u.start ||
		    t.length != u.length || t.flags != u.flags ||
		    t.prefix_len != u.prefix_len ||
		    t.quote_len != u.quote_len ||
		    t.is_non_ascii != u.is_non_ascii ||
		    fast.pos != general.pos)
			fail_msg("token %d of \"%.*s\": kind %d at %u+%u, the "
			    "general scanner's %d at %u+%u", guard, (int)len,
			    src, (int)t.kind, t.start, t.length, (int)u.kind,
			    u.start, u.length);
	} while (t.kind != TOK_EOF && t.kind != TOK_ERROR && ++guard < 200);
	if ((fast.error.msg == NULL) != (general.error.msg == NULL) ||
	    (fast.error.msg != NULL &&
	    (strcmp(fast.error.msg, general.error.msg) != 0 ||
	    fast.error.cls != general.error.cls ||
	    fast.error.start != general.error.start ||
	    fast.error.end != general.error.end ||
	    fast.error.is_incomplete != general.error.is_incomplete)))
		fail_msg("the error of \"%.*s\": %s, the general scanner's %s",
		    (int)len, src, fast.error.msg ? fast.error.msg : "none",
		    general.error.msg ? general.error.msg : "none");
	arena_free(a);
	arena_free(b);
}

static void
test_fast_tables_as_general(void **state)
{
	const size_t nsingle = sizeof single - 1;
	const size_t nfrag = sizeof frag / sizeof frag[0];
	char buf[256];
	size_t i, j, k, n;
	(void)state;

	for (i = 0; i < nsingle; i++)
		for (j = 0; j <= nsingle; j++)
			for (k = 0; k <= nsingle; k++) {
				n = 0;
				buf[n++] = single[i];
				if (j < nsingle)
					buf[n++] = single[j];
				if (j < nsingle && k < nsingle)
					buf[n++] = single[k];
				same_tokens(buf, n);
			}
	for (i = 0; i < 200000; i++) {
		size_t parts = next_random() % 12;
		n = 0;
		for (j = 0; j < parts; j++) {
			const char *f = frag[next_random() % nfrag];
			size_t fl = strlen(f);
			memcpy(buf + n, f, fl);
			n += fl;
		}
		same_tokens(buf, n);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_table),
		cmocka_unit_test(test_keywords),
		cmocka_unit_test(test_error_tokens),
		cmocka_unit_test(test_borrowed_spans),
		cmocka_unit_test(test_position),
		cmocka_unit_test(test_fast_tables_as_general),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
