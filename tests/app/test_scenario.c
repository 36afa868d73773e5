/*
 * test_scenario.c -- scenario files: every directive, the listing computed
 * from the live filesystem, and bad lines reported with file and line.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "record/record.h"
#include "app/scenario.h"
#include "session/session.h"

static const char good[] =
	"# comment\n"
	"\n"
	"reset\n"
	"file a.txt: one\\ntwo\n"
	"let n = [1, 2, 3]\n"
	"budget 5\n"
	"policy essay\n"
	"sandbox total: sum(n)\n"
	"unsafe,sandbox: delete_file({'path': 'a.txt'})\n"
	"echo -- and then --\n"
	"ls unsafe after | (gone)\n"
	"ls sandbox after\n"
	"all read: read_file({'path': 'a.txt'})\n";

/* A path whose name holds a colon (jail:gvisor) is a path, not a label:
 * "jail:gvisor avg: ..." runs on the gVisor jail, labelled avg. */
static void
test_colon_path(void **state)
{
	static const char text[] = "jail:gvisor avg: 1 + 1\n"
	    "unsafe,jail:gvisor: 2\njail ns: 3\nunsafe:4\n";
	struct scenario sc;
	char *err;
	(void)state;

	assert_true(scenario_parse("c.scn", text, sizeof text - 1, &sc, &err));
	assert_int_equal(sc.n, 4);
	assert_int_equal(sc.steps[0].paths, PATH_BIT(PATH_GVISOR));
	assert_string_equal(sc.steps[0].label, "avg");
	assert_string_equal(sc.steps[0].arg, "1 + 1");
	assert_int_equal(sc.steps[1].paths,
	    PATH_BIT(PATH_UNSAFE) | PATH_BIT(PATH_GVISOR));
	assert_string_equal(sc.steps[1].arg, "2");
	assert_int_equal(sc.steps[2].paths, PATH_BIT(PATH_JAIL));
	assert_string_equal(sc.steps[2].label, "ns");
	assert_int_equal(sc.steps[3].paths, PATH_BIT(PATH_UNSAFE));
	assert_string_equal(sc.steps[3].arg, "4");
	scenario_free(&sc);
}

/* The comment lines right above a step are its caption, joined; a blank
 * line ends a comment block, so a file's header is no step's caption. */
static void
test_captions(void **state)
{
	static const char text[] = "# the header\n\n"
	    "# first line\n#   second line\nreset essay\n"
	    "all a: 1\n"
	    "# not above anything\n\nall b: 2\n"
	    "#\n# after an empty comment\necho hi\n";
	struct scenario sc;
	char *err;
	(void)state;

	assert_true(scenario_parse("c.scn", text, sizeof text - 1, &sc, &err));
	assert_int_equal(sc.n, 4);
	assert_string_equal(sc.steps[0].caption, "first line second line");
	assert_null(sc.steps[1].caption);
	assert_null(sc.steps[2].caption);
	assert_string_equal(sc.steps[3].caption, "after an empty comment");
	scenario_free(&sc);
}

/* "title" and "question" are the scenario's opening, not steps: the
 * question's lines are joined, a comment above them is no step's
 * caption, and a run step labelled "title" still runs. */
static void
test_opening(void **state)
{
	static const char text[] = "# the header\n"
	    "title The Code-Running Tool\n"
	    "question What would you\nquestion   let it do?\n"
	    "all a: 1\n"
	    "all title: 2\n";
	static const char bare[] = "all a: 1\n";
	struct scenario sc;
	char *err;
	(void)state;

	assert_true(scenario_parse("t.scn", text, sizeof text - 1, &sc, &err));
	assert_int_equal(sc.n, 2);
	assert_string_equal(sc.title, "The Code-Running Tool");
	assert_string_equal(sc.question, "What would you let it do?");
	assert_null(sc.steps[0].caption);
	assert_string_equal(sc.steps[1].label, "title");
	scenario_free(&sc);
	assert_true(scenario_parse("b.scn", bare, sizeof bare - 1, &sc, &err));
	assert_null(sc.title);
	assert_null(sc.question);
	scenario_free(&sc);
}

static void
test_run_all_directives(void **state)
{
	struct scenario sc;
	struct session_opts o = { 0 };
	struct session *s = session_new(&o);
	char *err;
	struct arena *a = arena_new();
	struct scn_output out;
	(void)state;

	assert_true(scenario_parse("good.scn", good, sizeof good - 1, &sc,
	    &err));
	assert_int_equal(sc.n, 11);
	assert_int_equal(sc.steps[1].kind, SCN_FILE);
	assert_int_equal(sc.steps[1].arglen, 7);	/* "one\ntwo" */
	assert_int_equal(sc.steps[1].lineno, 4);
	for (size_t i = 0; i < 5; i++) {
		scenario_exec(s, &sc.steps[i], a, &out);
		if (out.failed)
			fail_msg("step %zu: %s", i, out.text);
	}
	scenario_exec(s, &sc.steps[5], a, &out);	/* sum(n) */
	assert_int_equal(out.nrecords, 1);
	assert_string_equal(out.records[0].line, "total: 'sum(n)' -> 6");
	assert_int_equal(out.records[0].budget_limit, 5);
	scenario_exec(s, &sc.steps[6], a, &out);	/* delete on both */
	assert_int_equal(out.nrecords, 2);
	assert_int_equal(out.records[0].verdict, VERDICT_LANDED);
	assert_int_equal(out.records[1].verdict, VERDICT_BLOCKED);
	assert_string_equal(out.records[0].label, "unsafe delete_file");
	assert_string_equal(out.records[1].label, "sandboxed delete_file");
	scenario_exec(s, &sc.steps[7], a, &out);
	assert_string_equal(out.text, "-- and then --");
	scenario_exec(s, &sc.steps[8], a, &out);
	assert_string_equal(out.text, "after: []  (gone)");
	scenario_exec(s, &sc.steps[9], a, &out);
	assert_string_equal(out.text, "after: ['a.txt']");
	scenario_exec(s, &sc.steps[10], a, &out);
	assert_int_equal(out.nrecords, 2);		/* the session's paths */
	assert_int_equal(out.records[0].verdict, VERDICT_ERROR);
	/* a file of two lines, read back on one trace line */
	assert_string_equal(out.records[1].outcome, "one\\ntwo");
	scenario_free(&sc);
	session_free(s);
	arena_free(a);
}

static void
test_bad_lines(void **state)
{
	static const struct { const char *text; const char *err; } t[] = {
		{ "sandbx x: 1\n", "t.scn:1: unknown directive" },
		{ "\n\nsandbox x 1\n", "t.scn:3: a step wants" },
		{ "file nocolon\n", "t.scn:1: file wants" },
		{ "let x\n", "t.scn:1: let wants" },
		{ "let = 1\n", "t.scn:1: let wants a Python name" },
		{ "let 1x = 2\n", "t.scn:1: let wants a Python name" },
		{ "let a b = 2\n", "t.scn:1: let wants a Python name" },
		{ "budget lots\n", "t.scn:1: budget wants" },
		{ "policy nope\n", "t.scn:1: unknown policy" },
		{ "ls unsafe,sandbox x\n", "t.scn:1: ls wants one path" },
		{ "sandbox x: \n", "t.scn:1: a step wants an input" },
		{ "sandbox:\n", "t.scn:1: a step wants an input" },
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct scenario sc;
		char *err;
		assert_false(scenario_parse("t.scn", t[i].text,
		    strlen(t[i].text), &sc, &err));
		if (strncmp(err, t[i].err, strlen(t[i].err)) != 0)
			fail_msg("%s: got '%s'", t[i].text, err);
		free(err);
	}
	{
		struct scenario sc;
		char *err;
		assert_false(scenario_parse("nul.scn", "echo a\0b\n", 9, &sc,
		    &err));
		free(err);
		assert_false(scenario_load("/nonexistent/x.scn", &sc, &err));
		assert_non_null(strstr(err, "No such file"));
		free(err);
	}
}

static void
test_let_failure_is_reported(void **state)
{
	struct scenario sc;
	struct session_opts o = { 0 };
	struct session *s = session_new(&o);
	struct arena *a = arena_new();
	struct scn_output out;
	char *err;
	const char text[] = "let x = 1 / 0\nlet y = (\n";
	(void)state;
	assert_true(scenario_parse("t.scn", text, sizeof text - 1, &sc, &err));
	scenario_exec(s, &sc.steps[0], a, &out);
	assert_true(out.failed);
	assert_non_null(strstr(out.text, "ZeroDivisionError"));
	scenario_exec(s, &sc.steps[1], a, &out);
	assert_true(out.failed);
	scenario_free(&sc);
	session_free(s);
	arena_free(a);
}

/* "wording essay" prints a scenario's refusals in the essay's words; the
 * records keep the full sentence, and "wording full" (the default) says
 * it on the line too. */
static void
test_wording(void **state)
{
	static const char text[] =
	    "sandbox a: __import__('os').system('rm report.txt')\n"
	    "wording essay\n"
	    "sandbox b: __import__('os').system('rm report.txt')\n"
	    "sandbox c: delete_file({'path': 'secrets.txt'})\n"
	    "wording full\n"
	    "sandbox d: delete_file({'path': 'secrets.txt'})\n";
	struct scenario sc;
	struct session_opts o = { 0 };
	struct session *s = session_new(&o);
	struct arena *a = arena_new();
	struct scn_output out;
	char *err;
	(void)state;

	assert_true(scenario_parse("w.scn", text, sizeof text - 1, &sc, &err));
	scenario_exec(s, &sc.steps[0], a, &out);
	assert_string_equal(out.records[0].line, "a: \"__import__('os')."
	    "system('rm report.txt')\" -> BLOCKED by the allowlist: "
	    "__import__ is not one of sum, len, min, max, round, abs");
	scenario_exec(s, &sc.steps[1], a, &out);
	scenario_exec(s, &sc.steps[2], a, &out);
	assert_string_equal(out.records[0].line, "b: \"__import__('os')."
	    "system('rm report.txt')\" -> BLOCKED: disallowed function call");
	assert_string_equal(out.records[0].reason,
	    "__import__ is not one of sum, len, min, max, round, abs");
	assert_string_equal(out.records[0].rule, "calls");
	scenario_exec(s, &sc.steps[3], a, &out);
	assert_string_equal(out.records[0].outcome,
	    "BLOCKED: command 'delete_file' not on the allowlist");
	scenario_exec(s, &sc.steps[4], a, &out);
	scenario_exec(s, &sc.steps[5], a, &out);
	assert_string_equal(out.records[0].outcome, "BLOCKED by the command "
	    "allowlist: delete_file is not allowed (read_file, write_file "
	    "are)");
	scenario_free(&sc);
	assert_false(scenario_parse("x.scn", "wording plain\n", 14, &sc,
	    &err));
	assert_string_equal(err, "x.scn:1: wording takes 'essay' or 'full'");
	free(err);
	session_free(s);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_all_directives),
		cmocka_unit_test(test_colon_path),
		cmocka_unit_test(test_captions),
		cmocka_unit_test(test_opening),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_let_failure_is_reported),
		cmocka_unit_test(test_wording),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
