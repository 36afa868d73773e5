/*
 * test_echo_args.c -- the README's "How to add a command", walked
 * through: a build of the command table with one more entry, the dummy
 * echo_args (cmd_echo_args.c, its X given by -D in Makefile.am), and
 * nothing else.  The new command must then be found, run on a path and
 * give its record (the JSON batch mode and MCP print), be refused by the
 * sandbox's command allowlist like any command not on it, appear in
 * MCP's tools/list with its words and schema, run from MCP, and exist
 * as a Python function in a CPython world's source.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "base/arena.h"
#include "cmd/cmd.h"
#include "cmd/cmd_world.h"
#include "fixtures.h"
#include "app/mcp.h"
#include "record/record.h"
#include "base/sbuf.h"
#include "session/session.h"

static void
test_in_the_table(void **state)
{
	const struct cmd_entry *e = cmd_find("echo_args");
	size_t i;
	bool named = false;

	(void)state;
	assert_non_null(e);
	assert_ptr_equal(e, &cmd_echo_args_entry);
	for (i = 0; cmd_names[i] != NULL; i++)
		named |= strcmp(cmd_names[i], "echo_args") == 0;
	assert_true(named);
	/* the six are still there */
	assert_non_null(cmd_find("read_file"));
	assert_non_null(cmd_find("run_shell"));
}

/* The record as batch mode's --json prints it. */
static json_t *
run_json(struct fx *f, enum path_id p, const char *input)
{
	struct record *r = fx_run(f->s, f->a, PATH_BIT(p), p, input);
	struct sbuf b = SBUF_INIT;
	json_t *j;

	assert_non_null(r);
	record_json(r, &b);
	j = json_loads(sbuf_cstr(&b), 0, NULL);
	sbuf_free(&b);
	assert_non_null(j);
	return j;
}

static const char *
field(json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);
	return json_is_string(v) ? json_string_value(v) : "(not a string)";
}

static void
test_runs_on_a_path(void **state)
{
	struct session_opts o = { 0 };
	struct fx *f = fx_new(&o);
	static const char *const forms[] = { "echo_args('hi')",
	    "echo_args({'text': 'hi'})", "echo_args(text='hi')", NULL };
	const char *const *in;
	json_t *j;

	(void)state;
	for (in = forms; *in != NULL; in++) {
		j = run_json(f, PATH_UNSAFE, *in);
		assert_string_equal(field(j, "kind"), "command");
		assert_string_equal(field(j, "verdict"), "ok");
		assert_string_equal(field(j, "result"), "'hi'");
		assert_non_null(strstr(field(j, "line"), "-> echoed hi"));
		json_decref(j);
	}
	/* its keys are checked as every command's are */
	j = run_json(f, PATH_UNSAFE, "echo_args({'txt': 'hi'})");
	assert_string_equal(field(j, "verdict"), "error");
	assert_non_null(strstr(field(j, "reason"), "echo_args('hi')"));
	json_decref(j);
	/* not on the sandbox's command allowlist: refused there */
	j = run_json(f, PATH_SANDBOX, "echo_args('hi')");
	assert_string_equal(field(j, "verdict"), "blocked");
	assert_string_equal(field(j, "layer"), "commands");
	json_decref(j);
	fx_free(f);
}

/* The replies to lines, one JSON value each, in an array. */
static json_t *
mcp_replies(const char *lines)
{
	struct session_opts so = { 0 };
	struct mcp_opts mo = { 0 };

	/* the unsafe path alone: the commands run there, where every one
	 * works, so every one is listed (the sandbox's lists only what its
	 * policy allows) */
	so.paths = PATH_BIT(PATH_UNSAFE);
	mo.paths = so.paths;
	return fx_mcp_replies(session_new(&so), &mo, lines);
}

static json_t *
reply_to(json_t *all, json_int_t id)
{
	json_t *j;
	size_t i;

	json_array_foreach(all, i, j)
		if (json_integer_value(json_object_get(j, "id")) == id)
			return json_object_get(j, "result");
	fail_msg("no reply to %lld", (long long)id);
	return NULL;
}

static void
test_in_mcp(void **state)
{
	json_t *all = mcp_replies(
	    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"2025-11-25\","
	    "\"capabilities\":{}}}\n"
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"run_code\",\"arguments\":{\"code\":"
	    "\"echo_args('hi')\",\"path\":\"unsafe\"}}}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"echo_args\",\"arguments\":{\"text\":"
	    "\"hi\"}}}\n");
	json_t *tools, *t, *echo = NULL, *r, *text;
	size_t i;
	const char *prev = "";

	(void)state;
	tools = json_object_get(reply_to(all, 1), "tools");
	assert_true(json_array_size(tools) > 7);
	json_array_foreach(tools, i, t) {
		const char *name = field(t, "name");
		if (i > 1)	/* run_code first, then by name */
			assert_true(strcmp(prev, name) < 0);
		prev = name;
		if (strcmp(name, "echo_args") == 0)
			echo = t;
	}
	assert_non_null(echo);
	assert_non_null(strstr(field(echo, "description"),
	    "Return the text given, unchanged."));
	assert_string_equal(field(echo, "title"), "Echo the arguments");
	assert_string_equal(field(json_object_get(json_object_get(
	    json_object_get(echo, "inputSchema"), "properties"), "text"),
	    "description"), "The text to echo back.");
	assert_true(json_is_true(json_object_get(json_object_get(echo,
	    "annotations"), "readOnlyHint")));
	/* run as code on the unsafe path */
	r = reply_to(all, 2);
	assert_true(json_is_false(json_object_get(r, "isError")));
	text = json_array_get(json_object_get(r, "content"), 0);
	assert_non_null(strstr(field(text, "text"), "-> echoed hi"));
	/* its own tool, on the server's path */
	r = reply_to(all, 3);
	assert_true(json_is_false(json_object_get(r, "isError")));
	text = json_array_get(json_object_get(r, "content"), 0);
	assert_non_null(strstr(field(text, "text"), "-> echoed hi"));
	json_decref(all);
}

/* The worlds' Python, run by python3 outside a world: the factory makes
 * echo_args, which checks its argument and says its message. */
static void
test_in_a_world(void **state)
{
	char path[] = "/tmp/test_echo_args.XXXXXX", cmd[64], got[256];
	char *src = cmd_world_source();
	FILE *f, *p;
	int fd;
	size_t n;

	(void)state;
	assert_non_null(strstr(src, "    def echo_args(*args, **kwargs):\n"));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(src, f);
	fputs("said, *made = _sandboxrepl_commands()\n"
	    "fs = {f.__name__: f for f in made}\n"
	    "print(fs['echo_args']('hi'), said[0])\n"
	    "try:\n"
	    "    fs['echo_args']({'txt': 'hi'})\n"
	    "except TypeError as e:\n"
	    "    print(e)\n", f);
	fclose(f);
	free(src);
	snprintf(cmd, sizeof cmd, "python3 %s", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(got, 1, sizeof got - 1, p);
	got[n] = '\0';
	assert_int_equal(pclose(p), 0);
	unlink(path);
	assert_string_equal(got, "hi echoed hi\n"
	    "echo_args() got an unexpected key 'txt', e.g. echo_args('hi')\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_the_table),
		cmocka_unit_test(test_runs_on_a_path),
		cmocka_unit_test(test_in_mcp),
		cmocka_unit_test(test_in_a_world),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
