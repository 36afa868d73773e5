/*
 * test_parse.c -- the parser against CPython 3.11.
 *
 * The tables in tests/data/ were written once by tools/gen_parse.py from
 * CPython's ast module and codeop; this program only reads them:
 *   parse_ok.tsv     input -> ast.dump() output
 *   parse_err.tsv    input -> incomplete, or error class, message, column
 *   parse_spans.tsv  input -> Kind@start-end of every located node
 * and adds the cases a table cannot hold: NFKC names, hostile bytes,
 * deep nesting and megabyte inputs (with generous time bounds that only
 * guard against hangs), error formatting, and the tree dump.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/arena.h"
#include "lang/ast.h"
#include "lang/parse.h"
#include "base/sbuf.h"

#ifndef TEST_DATA_DIR
#define TEST_DATA_DIR "tests/data"
#endif

/* Time bounds are hang guards; sanitizers make everything ~20x slower. */
#if defined(__SANITIZE_ADDRESS__)
#define SLOWDOWN 20
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLOWDOWN 20
#endif
#endif
#ifndef SLOWDOWN
#define SLOWDOWN 1
#endif

/* ------------------------------------------------------------ tables */

struct row {
	char	*field[6];
	size_t	 len[6];
	int	 nfields;
	int	 lineno;
};

/* Undo gen_parse.py's esc(): \\ \t \n \r \xHH. In place; returns length. */
static size_t
unescape(char *s)
{
	char *w = s, *r = s;
	while (*r) {
		if (*r != '\\') {
			*w++ = *r++;
			continue;
		}
		r++;
		switch (*r) {
		case '\\': *w++ = '\\'; r++; break;
		case 't': *w++ = '\t'; r++; break;
		case 'n': *w++ = '\n'; r++; break;
		case 'r': *w++ = '\r'; r++; break;
		case 'x': {
			char hex[3] = { r[1], r[2], 0 };
			*w++ = (char)strtol(hex, NULL, 16);
			r += 3;
			break;
		}
		default: *w++ = '\\'; break;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

/* All rows of a table; the buffer and rows are leaked to the test end. */
static struct row *
load_table(const char *name, size_t *nrows)
{
	char path[1024];
	FILE *f;
	char *buf, *line, *save = NULL;
	long size;
	struct row *rows = NULL;
	size_t n = 0, cap = 0;
	int lineno = 0;

	snprintf(path, sizeof path, "%s/%s", TEST_DATA_DIR, name);
	f = fopen(path, "rb");
	if (f == NULL)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)size + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
	buf[size] = '\0';
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save)) {
		struct row *r;
		char *tab, *p = line;
		lineno++;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			rows = realloc(rows, cap * sizeof *rows);
			assert_non_null(rows);
		}
		r = &rows[n++];
		memset(r, 0, sizeof *r);
		r->lineno = lineno;
		for (;;) {
			tab = strchr(p, '\t');
			if (tab)
				*tab = '\0';
			r->field[r->nfields] = p;
			r->len[r->nfields] = unescape(p);
			r->nfields++;
			if (tab == NULL || r->nfields == 6)
				break;
			p = tab + 1;
		}
	}
	*nrows = n;
	return rows;
}

static double
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ------------------------------------------------------- table tests */

static void
test_ok_table(void **state)
{
	size_t n, i, bad = 0;
	struct row *rows = load_table("parse_ok.tsv", &n);
	(void)state;
	assert_true(n >= 300);
	for (i = 0; i < n; i++) {
		struct arena *a = arena_new();
		struct parse_result r;
		struct sbuf b = SBUF_INIT;
		parse_input(a, rows[i].field[0], rows[i].len[0], &r);
		if (r.status != PARSE_OK) {
			print_message("line %d: %s: unexpected %s: %s\n",
			    rows[i].lineno, rows[i].field[0],
			    r.status == PARSE_INCOMPLETE ? "incomplete" :
			    "error", r.error.msg);
			bad++;
		} else {
			ast_dump_line(r.root, &b);
			if (strcmp(sbuf_cstr(&b), rows[i].field[1]) != 0) {
				print_message("line %d: %s\n  want %s\n  got  "
				    "%s\n", rows[i].lineno, rows[i].field[0],
				    rows[i].field[1], sbuf_cstr(&b));
				bad++;
			}
		}
		sbuf_free(&b);
		arena_free(a);
	}
	print_message("parse_ok.tsv: %zu of %zu rows pass\n", n - bad, n);
	assert_int_equal(bad, 0);
	free(rows[0].field[0]);
	free(rows);
}

static void
test_err_table(void **state)
{
	size_t n, i, bad = 0;
	struct row *rows = load_table("parse_err.tsv", &n);
	(void)state;
	assert_true(n >= 150);
	for (i = 0; i < n; i++) {
		struct row *w = &rows[i];
		struct arena *a = arena_new();
		struct parse_result r;
		bool want_incomplete = strcmp(w->field[1], "incomplete") == 0;
		const char *check = w->field[5];
		bool ok;
		parse_input(a, w->field[0], w->len[0], &r);
		if (want_incomplete)
			ok = r.status == PARSE_INCOMPLETE;
		else if (r.status != PARSE_ERROR)
			ok = false;
		else if (strcmp(check, "class") == 0)
			ok = strcmp(pyexc_name(r.error.cls), w->field[2]) == 0;
		else if (strcmp(check, "ours") == 0)
			ok = strcmp(pyexc_name(r.error.cls), w->field[2]) == 0 &&
			    strcmp(r.error.msg, w->field[3]) == 0;
		else
			ok = strcmp(pyexc_name(r.error.cls), w->field[2]) == 0 &&
			    strcmp(r.error.msg, w->field[3]) == 0 &&
			    r.error.column == (uint32_t)atoi(w->field[4]);
		if (!ok) {
			print_message("line %d: %s\n  want %s %s: %s (column "
			    "%s)\n  got  %s %s: %s (column %u)\n", w->lineno,
			    w->field[0], w->field[1], w->field[2], w->field[3],
			    w->field[4], r.status == PARSE_OK ? "ok" :
			    r.status == PARSE_INCOMPLETE ? "incomplete" :
			    "error", pyexc_name(r.error.cls),
			    r.error.msg ? r.error.msg : "", r.error.column);
			bad++;
		}
		arena_free(a);
	}
	print_message("parse_err.tsv: %zu of %zu rows pass\n", n - bad, n);
	assert_int_equal(bad, 0);
	free(rows[0].field[0]);
	free(rows);
}

/* Kinds that carry no position in CPython's tree. */
static bool
is_located(const char *kind, size_t len)
{
	static const char *const unlocated[] = {
		"Expression", "Module", "comprehension", "arguments", "None"
	};
	size_t i;
	for (i = 0; i < sizeof unlocated / sizeof unlocated[0]; i++)
		if (strlen(unlocated[i]) == len &&
		    memcmp(unlocated[i], kind, len) == 0)
			return false;
	return true;
}

/*
 * The spans come out of the tree dump: each line is "[s,e) <indent>
 * [label: ]Kind ...", in pre-order and field order as ast.iter_child_nodes
 * walks, so this checks the parser's spans and the tree dump together.
 */
static void
test_spans_table(void **state)
{
	size_t n, i, bad = 0;
	struct row *rows = load_table("parse_spans.tsv", &n);
	(void)state;
	assert_true(n >= 20);
	for (i = 0; i < n; i++) {
		struct arena *a = arena_new();
		struct parse_result r;
		struct sbuf tree = SBUF_INIT, got = SBUF_INIT;
		const char *line;
		parse_input(a, rows[i].field[0], rows[i].len[0], &r);
		assert_int_equal(r.status, PARSE_OK);
		assert_true(ast_dump_tree(r.root, true, &tree));
		for (line = sbuf_cstr(&tree); *line; ) {
			const char *eol = strchr(line, '\n');
			unsigned s, e;
			const char *k, *colon;
			size_t klen;
			if (strncmp(line, "[-) ", 4) == 0) {	/* None */
				line = eol + 1;
				continue;
			}
			assert_int_equal(sscanf(line, "[%u,%u)", &s, &e), 2);
			k = strchr(line, ')') + 1;
			while (*k == ' ')
				k++;
			colon = strstr(k, ": ");
			if (colon && colon < eol)
				k = colon + 2;
			klen = strcspn(k, " \n");
			if (is_located(k, klen))
				sbuf_addf(&got, "%s%.*s@%u-%u",
				    got.len ? " " : "", (int)klen, k, s, e);
			line = eol + 1;
		}
		if (strcmp(sbuf_cstr(&got), rows[i].field[1]) != 0) {
			print_message("line %d: %s\n  want %s\n  got  %s\n",
			    rows[i].lineno, rows[i].field[0], rows[i].field[1],
			    sbuf_cstr(&got));
			bad++;
		}
		sbuf_free(&tree);
		sbuf_free(&got);
		arena_free(a);
	}
	print_message("parse_spans.tsv: %zu of %zu rows pass\n", n - bad, n);
	assert_int_equal(bad, 0);
	free(rows[0].field[0]);
	free(rows);
}

/* ------------------------------------------------------ single cases */

static enum parse_status
parse_status_of(const char *src, size_t len, struct parse_result *r,
    struct arena *a)
{
	parse_input(a, src, len, r);
	return r->status;
}

static void
expect_dump(const char *src, const char *want)
{
	struct arena *a = arena_new();
	struct parse_result r;
	struct sbuf b = SBUF_INIT;
	parse_input(a, src, strlen(src), &r);
	assert_int_equal(r.status, PARSE_OK);
	assert_true(ast_dump_line(r.root, &b));
	assert_string_equal(sbuf_cstr(&b), want);
	sbuf_free(&b);
	arena_free(a);
}

static void
test_nfkc(void **state)
{
	(void)state;
	/* fullwidth letters, a ligature and a math letter: CPython's ids */
	expect_dump("\xef\xbd\x8f\xef\xbd\x90\xef\xbd\x85\xef\xbd\x8e('x')",
	    "Expression(body=Call(func=Name(id='open', ctx=Load()), "
	    "args=[Constant(value='x')], keywords=[]))");
	expect_dump("\xef\xac\x81le", "Expression(body=Name(id='file', "
	    "ctx=Load()))");
	expect_dump("a.\xef\xbd\x82", "Expression(body=Attribute(value=Name("
	    "id='a', ctx=Load()), attr='b', ctx=Load()))");
}

static void
test_incomplete(void **state)
{
	static const char *const inputs[] = {
		"(", "[1,", "{'a':", "f(a,\n", "'''abc", "\"\"\"abc\n",
		"1 + \\", "x = (1 +\n2", "(lambda:", "f'''{x",
		"[\n[\n[", "import os; (", "{1: [2, (3,",
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
		struct arena *a = arena_new();
		struct parse_result r;
		if (parse_status_of(inputs[i], strlen(inputs[i]), &r, a) !=
		    PARSE_INCOMPLETE)
			fail_msg("%s: not incomplete", inputs[i]);
		assert_null(r.root);
		assert_non_null(r.error.msg);
		arena_free(a);
	}
}

/* A block (a logical line ending in ':') goes on until a blank line, as
 * in Python's REPL, and so does a decorator waiting for its def or
 * class; a ':' or '@' elsewhere does not make an input incomplete. */
static void
test_incomplete_block(void **state)
{
	static const char *const open_[] = {
		"for i in range(3):", "for i in range(3):\n  print(i)",
		"def f(a):\n    return a", "if x:  # a comment",
		"class A:\n  pass", "for i in (1,\n 2):",
		"@dataclass", "@dataclass\n@functools.total_ordering",
		"x = 1\n@dataclass",
	};
	static const char *const done[] = {
		"for i in range(3):\n  print(i)\n", "def f(a):\n  return a\n  \n",
		"class A:\n  pass\n  ",
		"for i in x: print(i)", "{'a': 1}", "x[1:]", "lambda: 1",
		"# ends with a colon:", "'a string:'",
		"@dataclass\n", "@d\ndef f(): pass", "a @ b", "x = 1\n@d\n",
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof open_ / sizeof open_[0]; i++)
		if (!parse_is_incomplete(open_[i], strlen(open_[i])))
			fail_msg("%s: not incomplete", open_[i]);
	for (i = 0; i < sizeof done / sizeof done[0]; i++)
		if (parse_is_incomplete(done[i], strlen(done[i])))
			fail_msg("%s: incomplete", done[i]);
}

static void
expect_error(const char *src, size_t len, const char *msg,
    uint32_t start, double max_ms)
{
	struct arena *a = arena_new();
	struct parse_result r;
	double t0 = now_ms(), dt;
	parse_input(a, src, len, &r);
	dt = now_ms() - t0;
	assert_int_equal(r.status, PARSE_ERROR);
	assert_null(r.root);
	if (strstr(r.error.msg, msg) == NULL)
		fail_msg("want '%s', got '%s'", msg, r.error.msg);
	if (start != UINT32_MAX)
		assert_int_equal(r.error.start, start);
	if (dt > max_ms * SLOWDOWN)
		fail_msg("%.20s...: took %.1f ms", src, dt);
	arena_free(a);
}

/*
 * The source is checked for NULs and bad UTF-8 sixteen bytes at a time
 * (SSE2), then eight, then one: a NUL or a 0xff at any place in a source
 * of any length to 70 is found where it is.
 */
static void
test_hostile_byte_anywhere(void **state)
{
	char src[72], msg[64];
	size_t len, at;

	(void)state;
	for (len = 1; len <= 70; len++)
		for (at = 0; at < len; at++) {
			size_t i;
			for (i = 0; i < len; i++)
				src[i] = i % 2 ? '+' : '1';
			src[at] = '\0';
			expect_error(src, len, "null bytes", (uint32_t)at, 50);
			src[at] = (char)0xff;
			snprintf(msg, sizeof msg, "can't decode byte 0xff in "
			    "position %zu", at);
			expect_error(src, len, msg, (uint32_t)at, 50);
		}
}

static void
test_hostile_bytes(void **state)
{
	(void)state;
	expect_error("1 +\0 2", 6, "source code string cannot contain null "
	    "bytes", 3, 50);
	expect_error("'a\0b'", 5, "null bytes", 2, 50);
	expect_error("x = '\xff'", 7, "can't decode byte 0xff in position 5: "
	    "invalid start byte", 5, 50);
	expect_error("\xc3", 1, "byte 0xc3 in position 0: unexpected end of "
	    "data", 0, 50);
	expect_error("\xc3(", 2, "byte 0xc3 in position 0: invalid "
	    "continuation byte", 0, 50);
	expect_error("\xed\xa0\x80", 3, "can't decode", 0, 50);	/* surrogate */
	expect_error("\xc0\x80", 2, "can't decode", 0, 50);	/* overlong */
	expect_error("1 + \xe2\x82\xac", 7, "invalid character '\xe2\x82\xac' "
	    "(U+20AC)", 4, 50);
	expect_error("a\xc2\xa0" "b", 4, "invalid non-printable character "
	    "U+00A0", 1, 50);
}

static char *
repeat(const char *head, const char *unit, size_t times, const char *tail,
    size_t *len)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail), i;
	char *s = malloc(hl + ul * times + tl + 1), *p = s;
	assert_non_null(s);
	memcpy(p, head, hl);
	p += hl;
	for (i = 0; i < times; i++, p += ul)
		memcpy(p, unit, ul);
	memcpy(p, tail, tl);
	p[tl] = '\0';
	*len = hl + ul * times + tl;
	return s;
}

static void
test_deep_nesting(void **state)
{
	static const struct {
		const char *head, *unit, *tail, *msg;
	} cases[] = {
		{ "", "(", "1", "too many nested parentheses" },
		{ "", "[", "", "too many nested parentheses" },
		{ "", "{", "", "too many nested parentheses" },
		{ "x = ", "f(", "", "too many nested parentheses" },
		{ "", "-", "1", "too many nested expressions" },
		{ "", "~+", "1", "too many nested expressions" },
		{ "", "not ", "x", "too many nested expressions" },
		{ "", "lambda: ", "0", "too many nested expressions" },
		{ "", "1 if 1 else ", "1", "too many nested expressions" },
		{ "2", "**2", "", "too many nested expressions" },
		{ "", "-(", "1", "too many nested parentheses" },
		{ "f'{x:", "{", "'", "f-string" },
	};
	size_t i, len;
	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *s = repeat(cases[i].head, cases[i].unit, 100000,
		    cases[i].tail, &len);
		expect_error(s, len, cases[i].msg, UINT32_MAX, 50);
		free(s);
	}
}

/* A megabyte of flat input parses in linear time, and the dumps of a
 * tree too deep for them give up cleanly instead of recursing on. */
static void
test_long_flat(void **state)
{
	static const struct {
		const char *head, *unit, *tail;
		bool deep;
	} cases[] = {
		{ "1", "+1", "", true },
		{ "[", "1,", "]", false },
		{ "x = a", " or a", "", false },
		{ "", "a.", "b", true },
		{ "f", "(1)", "", true },
		{ "1", " < 1", "", false },
		{ "", "1;", "", false },
		{ "'", "abcd", "'", false },
	};
	size_t i, len;
	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *s = repeat(cases[i].head, cases[i].unit,
		    (1u << 20) / strlen(cases[i].unit), cases[i].tail, &len);
		struct arena *a = arena_new();
		struct parse_result r;
		struct sbuf b = SBUF_INIT;
		double t0 = now_ms(), dt;
		parse_input(a, s, len, &r);
		dt = now_ms() - t0;
		if (r.status != PARSE_OK)
			fail_msg("case %zu: %s", i, r.error.msg);
		/* well under 100 ms in an -O2 build; the bound here only
		 * catches a quadratic or hanging parse in -O0/ASan builds */
		print_message("1 MiB of '%s': %.1f ms\n", cases[i].unit, dt);
		if (dt > 1000 * SLOWDOWN)
			fail_msg("case %zu took %.1f ms", i, dt);
		assert_int_equal(ast_dump_line(r.root, &b), !cases[i].deep);
		sbuf_truncate(&b, 0);
		assert_int_equal(ast_dump_tree(r.root, true, &b),
		    !cases[i].deep);
		sbuf_free(&b);
		arena_free(a);
		free(s);
	}
}

static void
test_format_error(void **state)
{
	static const struct {
		const char *src, *want;
	} cases[] = {
		{ "(1 2)", "SyntaxError: invalid syntax. Perhaps you forgot a "
		    "comma? (column 2)\n(1 2)\n ^^^\n" },
		{ "x = 1 +", "SyntaxError: invalid syntax (column 8)\n"
		    "x = 1 +\n       ^\n" },
		{ "a = 1\nb = ) ", "SyntaxError: unmatched ')' (column 5)\n"
		    "b = ) \n    ^\n" },
		{ "'\xc3\xa9' + \xe2\x82\xac", "SyntaxError: invalid character "
		    "'\xe2\x82\xac' (U+20AC) (column 7)\n'\xc3\xa9' + "
		    "\xe2\x82\xac\n      ^\n" },
		{ "  1", "IndentationError: unexpected indent (column 2)\n"
		    "  1\n ^\n" },
		{ "x = 1\r\ny = )", "SyntaxError: unmatched ')' (column 5)\n"
		    "y = )\n    ^\n" },
		{ "x = 1\ry = )", "SyntaxError: unmatched ')' (column 5)\n"
		    "y = )\n    ^\n" },
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct arena *a = arena_new();
		struct parse_result r;
		struct sbuf b = SBUF_INIT;
		parse_input(a, cases[i].src, strlen(cases[i].src), &r);
		assert_int_equal(r.status, PARSE_ERROR);
		parse_format_error(cases[i].src, strlen(cases[i].src),
		    &r.error, &b);
		assert_string_equal(sbuf_cstr(&b), cases[i].want);
		sbuf_free(&b);
		arena_free(a);
	}
}

static void
test_tree_dump(void **state)
{
	struct arena *a = arena_new();
	struct parse_result r;
	struct sbuf b = SBUF_INIT;
	const char *src = "round(sum(orders) / len(orders), 2)";
	(void)state;
	parse_input(a, src, strlen(src), &r);
	assert_int_equal(r.status, PARSE_OK);
	assert_true(ast_dump_tree(r.root, false, &b));
	assert_string_equal(sbuf_cstr(&b),
	    "Expression\n"
	    "  body: Call\n"
	    "    func: Name id='round' ctx=Load\n"
	    "    args[0]: BinOp op=Div\n"
	    "      left: Call\n"
	    "        func: Name id='sum' ctx=Load\n"
	    "        args[0]: Name id='orders' ctx=Load\n"
	    "      right: Call\n"
	    "        func: Name id='len' ctx=Load\n"
	    "        args[0]: Name id='orders' ctx=Load\n"
	    "    args[1]: Constant value=2\n");
	sbuf_free(&b);
	arena_free(a);
}

/* Not a benchmark, a guard: the essay's line stays far below 10 us. */
static void
test_speed(void **state)
{
	const char *src = "round(sum(orders) / len(orders), 2)";
	struct arena *a = arena_new();
	struct parse_result r;
	double t0 = now_ms(), dt;
	int i, n = 100000;
	(void)state;
	for (i = 0; i < n; i++) {
		arena_free(a);
		a = arena_new();
		parse_input(a, src, strlen(src), &r);
	}
	dt = (now_ms() - t0) * 1000.0 / n;
	print_message("parse of the essay line: %.3f us\n", dt);
	assert_int_equal(r.status, PARSE_OK);
	assert_true(dt < 10.0 * SLOWDOWN);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ok_table),
		cmocka_unit_test(test_err_table),
		cmocka_unit_test(test_spans_table),
		cmocka_unit_test(test_nfkc),
		cmocka_unit_test(test_incomplete),
		cmocka_unit_test(test_incomplete_block),
		cmocka_unit_test(test_hostile_bytes),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_long_flat),
		cmocka_unit_test(test_format_error),
		cmocka_unit_test(test_tree_dump),
		cmocka_unit_test(test_speed),
		cmocka_unit_test(test_hostile_byte_anywhere),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
