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

#include "arena.h"
#include "ast.h"
#include "allowlist.h"
#include "cmd.h"
#include "parse.h"
#include "policy.h"

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_commands_are_matched_only_at_top),
		cmocka_unit_test(test_surface_rule),
		cmocka_unit_test(test_url_host),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
