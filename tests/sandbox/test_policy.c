/*
 * test_policy.c -- presets and policy files: every key is read, every
 * mistake is named with its file and line, and a loaded policy decides
 * what the sandbox path lets through.
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

#include "base/arena.h"
#include "interp/builtins.h"
#include "interp/eval.h"
#include "sandbox/policy.h"
#include "record/record.h"
#include "session/session.h"

static void
test_presets(void **state)
{
	const char *const *n;
	(void)state;
	for (n = policy_preset_names; *n != NULL; n++) {
		const struct policy *p = policy_preset(*n);
		assert_non_null(p);
		assert_string_equal(p->name, *n);
		assert_true(policy_allows_call(p, "len"));
		assert_false(policy_allows_command(p, "delete_file"));
		assert_false(policy_allows_host(p, "evil.com"));
	}
	assert_null(policy_preset("nope"));
}

static void
test_file_keys(void **state)
{
	static const char text[] =
	    "# a comment\n"
	    "extends: essay\n"
	    "name: classroom\n"
	    "compare: == < not-in\n"
	    "boolops: and\n"
	    "operators: + - -u\n"
	    "calls: sum len sorted\n"
	    "commands: read_file list_files\n"
	    "hosts: example.org\n"
	    "blocked-words: secret\n"
	    "attributes: public\n"
	    "call-rule: named\n"
	    "names: calls\n"
	    "object-model: no\n"
	    "budget: 7\n"
	    "max-steps: 1000\n"
	    "max-int-bits: 4096\n"
	    "max-seq-len: 100\n"
	    "max-str-bytes: 100\n"
	    "max-depth: 50\n";
	char *err;
	struct policy *p = policy_parse("t.policy", text, sizeof text - 1,
	    &session_policy_names, &err);
	(void)state;
	if (p == NULL)
		fail_msg("%s", err);
	assert_string_equal(p->name, "classroom");
	assert_true(policy_allows_call(p, "sorted"));
	assert_false(policy_allows_call(p, "max"));
	assert_true(policy_allows_command(p, "list_files"));
	assert_false(policy_allows_command(p, "write_file"));
	assert_true(policy_allows_host(p, "example.org"));
	assert_int_equal(p->budget, 7);
	assert_int_equal(p->limits.max_int_bits, 4096);
	assert_int_equal(p->limits.max_depth, 50);
	assert_true(p->binops & (1u << BINOP_SUB));
	assert_false(p->binops & (1u << BINOP_MULT));
	assert_true(p->cmpops & (1u << CMPOP_NOTIN));
	assert_true(p->nodes & (UINT64_C(1) << NODE_COMPARE));
	assert_int_equal(p->attr_rule, ATTRS_PUBLIC);
	policy_free(p);
}

static void
test_file_errors(void **state)
{
	static const struct { const char *text, *err; } t[] = {
		{ "nodes: Foo\n", "t.policy:1: unknown node type 'Foo'" },
		{ "\n\noperators: +++\n", "t.policy:3: unknown operator" },
		{ "commands: rm\n", "t.policy:1: unknown command 'rm'" },
		{ "colour: red\n", "t.policy:1: unknown key 'colour'" },
		{ "just words\n", "t.policy:1: expected 'key: value'" },
		{ "budget: lots\n", "t.policy:1: budget wants" },
		{ "max-steps: 0\n", "t.policy:1: wants a positive number" },
		{ "extends: nope\n", "t.policy:1: unknown preset" },
		{ "calls: len\nextends: essay\n", "t.policy:2: extends must" },
		{ "attributes: some\n", "t.policy:1: bad value" },
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		char *err = NULL;
		struct policy *p = policy_parse("t.policy", t[i].text,
		    strlen(t[i].text), &session_policy_names, &err);
		if (p != NULL)
			fail_msg("accepted: %s", t[i].text);
		if (strncmp(err, t[i].err, strlen(t[i].err)) != 0)
			fail_msg("%s: got '%s'", t[i].text, err);
		free(err);
	}
}

static void
test_loaded_policy_decides(void **state)
{
	const char *srcdir = getenv("srcdir");
	char path[4096], *err;
	const struct policy *p;
	struct session_opts o = { .paths = PATH_BIT(PATH_SANDBOX) };
	struct session *s;
	struct arena *a = arena_new();
	struct record *r;
	const char *in;
	(void)state;
	snprintf(path, sizeof path, "%s/scenarios/classroom.policy",
	    srcdir ? srcdir : ".");
	p = policy_resolve(path, &session_policy_names, &err);
	if (p == NULL)
		fail_msg("%s", err);
	o.policy = p;
	s = session_new(&o);
	in = "round(sum(orders) / len(orders), 2) > 150";
	session_run(s, in, strlen(in), NULL, 0, a, &r);
	assert_string_equal(r->result, "True");
	in = "list_files({})";
	session_run(s, in, strlen(in), NULL, 0, a, &r);
	assert_int_equal(r->verdict, VERDICT_OK);
	in = "open('secrets.txt').read()";
	session_run(s, in, strlen(in), NULL, 0, a, &r);
	assert_int_equal(r->layer, LAYER_ALLOWLIST);
	assert_int_equal(r->budget_limit, 50);
	session_free(s);
	policy_free((struct policy *)p);
	arena_free(a);
	assert_null(policy_resolve("no-such-preset",
	    &session_policy_names, &err));
	assert_non_null(strstr(err, "unknown policy"));
	/* (the shipped policies follow where there are any: man.test) */
	assert_non_null(strstr(err, "expected a preset: essay, dunder, "
	    "blocklist; "));
	free(err);
	assert_null(policy_resolve("/nonexistent/x.policy",
	    &session_policy_names, &err));
	assert_non_null(strstr(err, "No such file"));
	free(err);
}

/*
 * The evaluator finds a call's builtin on the row of the policy's calls
 * that admits the name (eval_calls, made by the session per policy).
 * Each preset's rows are builtin_find()'s answers, and a session that
 * takes another policy, whose rows hold other names, answers with the
 * new rows: abs is row 5 of the essay's calls and row 0 here, so a
 * table kept from the essay would call sum.
 */
static void
test_calls_rows(void **state)
{
	static const char text[] = "calls: abs len\n";
	const char *const *name;
	struct session_opts o = { .paths = PATH_BIT(PATH_SANDBOX) };
	struct session *s = session_new(&o);
	struct arena *a = arena_new();
	struct policy *p;
	struct record *r;
	char *err = NULL;
	const char *in;
	size_t i;
	(void)state;
	for (name = policy_preset_names; *name != NULL; name++) {
		const struct policy *pre = policy_preset(*name);
		struct eval_calls *c = eval_calls_new(pre->calls,
		    pre->name_rule != NAMES_ALL, pre->attr_rule == ATTRS_PUBLIC);
		for (i = 0; pre->calls[i] != NULL; i++)
			assert_ptr_equal(c->builtins[i],
			    builtin_find(pre->calls[i]));
		eval_calls_free(c);
	}
	in = "abs(-3) + round(2.5)";
	session_run(s, in, strlen(in), NULL, 0, a, &r);
	assert_string_equal(r->result, "5");
	p = policy_parse("t.policy", text, strlen(text),
	    &session_policy_names, &err);
	assert_non_null(p);
	session_set_policy(s, p);
	in = "abs(-3) + len('ab')";
	session_run(s, in, strlen(in), NULL, 0, a, &r);
	assert_string_equal(r->result, "5");
	in = "round(2.5)";
	session_run(s, in, strlen(in), NULL, 0, a, &r);
	assert_int_equal(r->verdict, VERDICT_BLOCKED);
	session_set_policy(s, policy_preset("essay"));
	in = "abs(-3) + round(2.5)";
	session_run(s, in, strlen(in), NULL, 0, a, &r);
	assert_string_equal(r->result, "5");
	session_free(s);
	policy_free(p);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presets),
		cmocka_unit_test(test_file_keys),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_loaded_policy_decides),
		cmocka_unit_test(test_calls_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
