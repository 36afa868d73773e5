/*
 * test_allowlist.c -- the AST allowlist: what the essay policy lets through,
 * what it stops, which rule and which node it names.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/arena.h"
#include "lang/ast.h"
#include "sandbox/allowlist.h"
#include "cmd/cmd.h"
#include "lang/parse.h"
#include "sandbox/policy.h"
#include "base/sbuf.h"

struct want {
	const char	*input;
	const char	*rule;		/* NULL: allowed */
	const char	*node;		/* offending node type */
	int		 start, end;	/* its span; -1: whole input */
	const char	*reason;	/* NULL: not checked */
	const char	*essay;		/* the essay's phrase; NULL: not
					   checked */
};

static const struct want table[] = {
	{ "round(sum(orders) / len(orders), 2)", NULL, NULL, 0, 0, NULL, NULL },
	{ "1 + 2 * 3 - 4 / 5 // 6 % 7 ** 8", NULL, NULL, 0, 0, NULL, NULL },
	{ "-x + +y", NULL, NULL, 0, 0, NULL, NULL },
	{ "[1, (2, 3), 'a', b'b', None, True, 1.5]", NULL, NULL, 0, 0, NULL,
	  NULL },
	{ "max([1, 2], default=0)", NULL, NULL, 0, 0, NULL, NULL },
	/* the outermost call decides (the essay's answer); its sentence
	 * names the call a student points at, and what the policy allows */
	{ "__import__('os').system('rm report.txt')", "calls", "Call", 0, -1,
	  "__import__ is not one of sum, len, min, max, round, abs",
	  "disallowed function call" },
	{ "open('secrets.txt').read()", "calls", "Call", 0, -1,
	  "open is not one of sum, len, min, max, round, abs",
	  "disallowed function call" },
	{ "[1].count(1)", "calls", "Call", 0, -1, "the method .count() is "
	  "not one of sum, len, min, max, round, abs",
	  "disallowed function call" },
	{ "open('secrets.txt')", "calls", "Call", 0, -1, NULL, NULL },
	{ "eval('1')", "calls", "Call", 0, -1, NULL, NULL },
	{ "len(open('x'))", "calls", "Call", 4, 13, NULL, NULL },
	{ "orders.__class__", "nodes", "Attribute", 0, -1,
	  "attribute access (.__class__) is not allowed",
	  "disallowed node type 'Attribute'" },
	{ "1 << 2", "operators", "BinOp", 0, -1, "the operator << is not "
	  "allowed (allowed: + - * / % ** //)", "disallowed operator '<<'" },
	{ "~1", "operators", "UnaryOp", 0, -1, "the operator ~ is not "
	  "allowed (allowed: unary + -)", "disallowed operator '~'" },
	{ "1 + (not 2)", "operators", "UnaryOp", 5, 10, NULL, NULL },
	{ "1 if 2 else 3", "nodes", "IfExp", 0, -1, NULL, NULL },
	{ "[x for x in y]", "nodes", "ListComp", 0, -1, NULL, NULL },
	{ "lambda: 1", "nodes", "Lambda", 0, -1, "a lambda is not allowed",
	  "disallowed node type 'Lambda'" },
	{ "a[0]", "nodes", "Subscript", 0, -1, NULL, NULL },
	{ "{'a': 1}", "nodes", "Dict", 0, -1, NULL, NULL },
	{ "f'{x}'", "nodes", "JoinedStr", 0, -1, NULL, NULL },
	{ "1 < 2", "nodes", "Compare", 0, -1, NULL, NULL },
	{ "x = 1", "nodes", "Assign", 0, -1, NULL, NULL },
	{ "import os", "nodes", "Import", 0, -1, NULL, NULL },
	{ "sum(*[1])", "nodes", "Starred", 4, 8, NULL, NULL },
	{ "(lambda: 0)()", "calls", "Call", 0, -1, NULL, NULL },
	{ "1; 2; 3", NULL, NULL, 0, 0, NULL, NULL },
};

static void
test_table(void **state)
{
	const struct policy *p = policy_preset("essay");
	size_t i;
	(void)state;
	assert_non_null(p);
	for (i = 0; i < sizeof table / sizeof table[0]; i++) {
		const struct want *w = &table[i];
		struct arena *a = arena_new();
		struct parse_result pr;
		struct check_result cr;
		bool ok;

		parse_input(a, w->input, strlen(w->input), &pr);
		assert_int_equal(pr.status, PARSE_OK);
		ok = check_tree(p, pr.root, a, &cr);
		if (w->rule == NULL) {
			if (!ok)
				fail_msg("%s: blocked (%s)", w->input,
				    cr.reason);
		} else {
			if (ok)
				fail_msg("%s: allowed", w->input);
			assert_string_equal(cr.rule, w->rule);
			assert_string_equal(ast_kind_name(cr.node->kind),
			    w->node);
			assert_int_equal(cr.node->start, w->start);
			assert_int_equal(cr.node->end, w->end < 0 ?
			    (int)strlen(w->input) : w->end);
			if (w->reason != NULL)
				assert_string_equal(cr.reason, w->reason);
			if (w->essay != NULL)
				assert_string_equal(cr.essay, w->essay);
		}
		arena_free(a);
	}
}

static void
test_commands_are_matched_only_at_top(void **state)
{
	static const struct { const char *in; const char *cmd; } t[] = {
		{ "read_file({'path': 'x'})", "read_file" },
		{ "delete_file({'path': 'x'})", "delete_file" },
		{ "len(read_file({'path': 'x'}))", NULL },
		{ "read_file", NULL },
		{ "rm_file({})", NULL },
		{ "x.read_file({})", NULL },
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct arena *a = arena_new();
		struct parse_result pr;
		const struct node *call;
		const struct cmd_entry *e;
		parse_input(a, t[i].in, strlen(t[i].in), &pr);
		assert_int_equal(pr.status, PARSE_OK);
		e = cmd_match(pr.root, &call);
		if (t[i].cmd == NULL)
			assert_null(e);
		else {
			assert_non_null(e);
			assert_string_equal(e->name, t[i].cmd);
		}
		arena_free(a);
	}
}

static void
test_surface_rule(void **state)
{
	static const struct { const char *path; bool ok; } t[] = {
		{ "out.txt", true }, { "a/b.txt", true }, { "./x", true },
		{ "a..b", true }, { "..", false }, { "../x", false },
		{ "a/../../x", false }, { "a/..", false }, { "/etc/passwd", false },
		{ "~/x", false }, { "", false }, { "a\nb", false },
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct arena *a = arena_new();
		const char *why = cmd_surface_check(a, t[i].path);
		if (t[i].ok && why != NULL)
			fail_msg("%s refused: %s", t[i].path, why);
		if (!t[i].ok && why == NULL)
			fail_msg("%s allowed", t[i].path);
		arena_free(a);
	}
}

static void
test_url_host(void **state)
{
	struct arena *a = arena_new();
	(void)state;
	assert_string_equal(cmd_url_host(a, "https://evil.com/x"), "evil.com");
	assert_string_equal(cmd_url_host(a, "http://u:p@h.example:8080/p"),
	    "h.example");
	assert_null(cmd_url_host(a, "evil.com"));
	assert_null(cmd_url_host(a, "https:///x"));
	arena_free(a);
}

/*
 * check_tree()'s fast yes-or-no walk against the pre-order walk alone
 * (check_tree_general): the same verdict, and when blocked the same
 * node, rule and sentences, for random expressions under every preset.
 */
static uint64_t rng = 0x853c49e6748fea9bu;

static unsigned
pick(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void
random_expr(struct sbuf *b, int depth)
{
	static const char *const leaf[] = { "1", "2.5", "'a'", "x", "orders",
	    "None", "True", "b'b'", "-3" };
	static const char *const callee[] = { "sum", "len", "min", "max",
	    "round", "abs", "open", "eval", "__import__", "f", "x.count",
	    "(lambda: 0)" };
	static const char *const binop[] = { " + ", " - ", " * ", " / ",
	    " % ", " ** ", " // ", " << ", " & ", " | ", " @ " };
	static const char *const unop[] = { "-", "+", "~", "not " };
	static const char *const attr[] = { ".real", ".__class__", "._x",
	    ".count" };
	unsigned k = depth > 4 ? 0 : pick(11), i, n;

	switch (k) {
	case 0: case 1:
		sbuf_adds(b, leaf[pick(sizeof leaf / sizeof leaf[0])]);
		break;
	case 2: case 3:
		random_expr(b, depth + 1);
		sbuf_adds(b, binop[pick(sizeof binop / sizeof binop[0])]);
		random_expr(b, depth + 1);
		break;
	case 4:
		sbuf_adds(b, unop[pick(sizeof unop / sizeof unop[0])]);
		random_expr(b, depth + 1);
		break;
	case 5: case 6:
		sbuf_adds(b, callee[pick(sizeof callee / sizeof callee[0])]);
		sbuf_addc(b, '(');
		for (i = 0, n = pick(4); i < n; i++) {
			if (i > 0)
				sbuf_adds(b, ", ");
			if (i == n - 1 && pick(4) == 0)
				sbuf_adds(b, pick(2) ? "default=" : "*");
			random_expr(b, depth + 1);
		}
		sbuf_addc(b, ')');
		break;
	case 7: {
		bool list = pick(2);
		sbuf_addc(b, list ? '[' : '(');
		for (i = 0, n = pick(4); i < n; i++) {
			random_expr(b, depth + 1);
			sbuf_adds(b, ", ");
		}
		sbuf_addc(b, list ? ']' : ')');
		break;
	}
	case 8:
		sbuf_addc(b, '(');
		random_expr(b, depth + 1);
		sbuf_adds(b, ")");
		sbuf_adds(b, attr[pick(sizeof attr / sizeof attr[0])]);
		break;
	case 9:
		random_expr(b, depth + 1);
		sbuf_adds(b, pick(2) ? " < " : " if x else ");
		random_expr(b, depth + 1);
		break;
	default:
		random_expr(b, depth + 1);
		sbuf_addc(b, '[');
		random_expr(b, depth + 1);
		sbuf_addc(b, ']');
		break;
	}
}

static void
test_fast_walk_as_general(void **state)
{
	static const char *const presets[] = { "essay", "dunder",
	    "blocklist" };
	size_t i, j, parsed = 0, allowed = 0;
	(void)state;

	for (i = 0; i < 60000; i++) {
		struct sbuf src = SBUF_INIT;
		struct arena *a = arena_new();
		struct parse_result pr;

		random_expr(&src, 0);
		parse_input(a, sbuf_cstr(&src), src.len, &pr);
		for (j = 0; pr.status == PARSE_OK && j < 3; j++) {
			const struct policy *p = policy_preset(presets[j]);
			struct check_result fast, general;
			bool ok = check_tree(p, pr.root, a, &fast);

			parsed++;
			allowed += ok;
			if (ok != check_tree_general(p, pr.root, a, &general) ||
			    fast.node != general.node ||
			    (fast.rule != general.rule &&
			    strcmp(fast.rule, general.rule) != 0) ||
			    (fast.reason != general.reason &&
			    strcmp(fast.reason, general.reason) != 0) ||
			    (fast.essay != general.essay &&
			    strcmp(fast.essay, general.essay) != 0))
				fail_msg("%s under %s: %s, the pre-order walk "
				    "%s", sbuf_cstr(&src), presets[j],
				    ok ? "allowed" : "blocked",
				    ok ? "blocks it" : "differs");
		}
		arena_free(a);
		sbuf_free(&src);
	}
	/* both verdicts were met often */
	assert_true(allowed > parsed / 10);
	assert_true(parsed - allowed > parsed / 10);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_commands_are_matched_only_at_top),
		cmocka_unit_test(test_surface_rule),
		cmocka_unit_test(test_url_host),
		cmocka_unit_test(test_fast_walk_as_general),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
