/*
 * test_serve.c -- the JSON Lines tool mode, driven through memory streams:
 * one reply per request, records as DESIGN.md has them, session state kept
 * across requests, every malformed request answered with an error while
 * the loop goes on, overlong lines capped, agent tasks answered with the
 * proposal, a '!' line run as the shell command.  Replies are read back with jansson.
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

#include <jansson.h>

#include "app/agent.h"
#include "record/record.h"
#include "base/sbuf.h"
#include "app/serve.h"
#include "session/session.h"

/* Replies to the requests in, as one JSON array; exit status in *status. */
static json_t *
serve(struct session *s, const struct serve_opts *o, const char *in,
    size_t len, int *status)
{
	FILE *fin = fmemopen((void *)in, len, "r"), *fout;
	char *out = NULL;
	size_t outlen = 0;
	const char *p;
	json_t *replies = json_array();

	assert_non_null(fin);
	fout = open_memstream(&out, &outlen);
	assert_non_null(fout);
	*status = serve_loop(s, o, fin, fout);
	fclose(fin);
	fclose(fout);
	for (p = out; p < out + outlen;) {
		const char *nl = memchr(p, '\n', (size_t)(out + outlen - p));
		json_error_t je;
		json_t *j;
		assert_non_null(nl);	/* every reply ends its line */
		j = json_loadb(p, (size_t)(nl - p), 0, &je);
		if (j == NULL)
			fail_msg("reply is not JSON: %s: %.*s", je.text,
			    (int)(nl - p), p);
		json_array_append_new(replies, j);
		p = nl + 1;
	}
	free(out);
	return replies;
}

static json_t *
serve_str(struct session *s, const char *in)
{
	struct serve_opts o = { 0 };
	int status;
	json_t *r = serve(s, &o, in, strlen(in), &status);
	assert_int_equal(status, 0);
	return r;
}

static struct session *
new_session(void)
{
	struct session_opts so = { 0 };
	return session_new(&so);
}

/* reply[i].records[k].key as a string (or NULL). */
static const char *
rec_str(json_t *replies, size_t i, size_t k, const char *key)
{
	json_t *recs = json_object_get(json_array_get(replies, i), "records");
	assert_true(json_is_array(recs));
	return json_string_value(json_object_get(json_array_get(recs, k),
	    key));
}

static size_t
nrecords(json_t *replies, size_t i)
{
	return json_array_size(json_object_get(json_array_get(replies, i),
	    "records"));
}

static const char *
error_of(json_t *replies, size_t i)
{
	json_t *r = json_array_get(replies, i);
	assert_null(json_object_get(r, "records"));
	return json_string_value(json_object_get(r, "error"));
}

static void
test_records_and_state(void **state)
{
	struct session *s = new_session();
	json_t *r, *rec;
	(void)state;

	r = serve_str(s,
	    "{\"id\": 1, \"input\": \"write_file({'path': 'out.txt', "
	    "'text': 'ok'})\", \"paths\": [\"sandbox\"]}\n"
	    "{\"id\": \"two\", \"input\": \"write_file({'path': 'out.txt', "
	    "'text': 'ok'})\", \"paths\": [\"sandbox\"]}\n"
	    "{\"id\": 3.5, \"input\": \"round(sum(orders) / len(orders), 2)"
	    "\"}\n"
	    "{\"input\": \"x = 21\", \"paths\": [\"unsafe\"]}\n"
	    "{\"id\": null, \"input\": \"x * 2\", \"paths\": [\"unsafe\"]}\n");
	assert_int_equal(json_array_size(r), 5);

	/* Ids come back as they went. */
	assert_int_equal(json_integer_value(json_object_get(
	    json_array_get(r, 0), "id")), 1);
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(r, 1), "id")), "two");
	assert_true(json_real_value(json_object_get(json_array_get(r, 2),
	    "id")) == 3.5);
	assert_true(json_is_null(json_object_get(json_array_get(r, 3), "id")));
	assert_true(json_is_null(json_object_get(json_array_get(r, 4), "id")));

	/* A record has DESIGN.md's fields. */
	assert_int_equal(nrecords(r, 0), 1);
	rec = json_array_get(json_object_get(json_array_get(r, 0), "records"),
	    0);
	assert_int_equal(json_integer_value(json_object_get(rec, "step")), 1);
	assert_string_equal(rec_str(r, 0, 0, "path"), "sandbox");
	assert_string_equal(rec_str(r, 0, 0, "kind"), "command");
	assert_string_equal(rec_str(r, 0, 0, "verdict"), "ok");
	assert_string_equal(rec_str(r, 0, 0, "source"), "user");
	assert_true(json_is_array(json_object_get(rec, "effects")));
	assert_true(json_is_array(json_object_get(rec, "fs")));
	assert_true(json_is_object(json_object_get(rec, "budget")));
	assert_non_null(json_object_get(rec, "node"));
	assert_string_equal(rec_str(r, 0, 0, "line"), "sandboxed write_file: "
	    "write_file({'path': 'out.txt', 'text': 'ok'}) -> wrote out.txt");

	/* The ledger persists: the retry is already done. */
	assert_string_equal(rec_str(r, 1, 0, "layer"), "idempotency");
	assert_non_null(strstr(rec_str(r, 1, 0, "line"),
	    "wrote out.txt (idempotent: already done)"));

	/* Without paths, the session's paths; steps count on. */
	assert_int_equal(nrecords(r, 2), 2);
	assert_string_equal(rec_str(r, 2, 0, "path"), "unsafe");
	assert_string_equal(rec_str(r, 2, 1, "path"), "sandbox");
	assert_string_equal(rec_str(r, 2, 1, "result"), "173.33");

	/* Names persist; the budget was spent across requests. */
	assert_string_equal(rec_str(r, 4, 0, "result"), "42");
	rec = json_array_get(json_object_get(json_array_get(r, 2), "records"),
	    1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
	    rec, "budget"), "used")), 3);
	json_decref(r);

	/* A second loop on the same session still knows it all. */
	r = serve_str(s, "{\"id\": 9, \"input\": \"x\", \"paths\": "
	    "[\"unsafe\"]}");
	assert_string_equal(rec_str(r, 0, 0, "result"), "21");
	json_decref(r);
	session_free(s);
}

/* A '!' line is the shell command run_shell, on every path, as typed. */
static void
test_shell_line(void **state)
{
	struct session *s = new_session();
	json_t *r, *out;
	const char *text;
	(void)state;

	r = serve_str(s,
	    "{\"id\": 1, \"input\": \"!ls\", \"paths\": [\"unsafe\", "
	    "\"sandbox\"]}\n"
	    "{\"id\": 2, \"input\": \"run_shell({'cmd': 'rm report.txt'})\", "
	    "\"paths\": [\"unsafe\"]}\n"
	    "{\"id\": 3, \"input\": \"  !ls \", \"paths\": [\"unsafe\"]}\n"
	    "{\"id\": 4, \"input\": \"!   \"}\n");
	assert_int_equal(json_array_size(r), 4);

	/* unsafe: the listing is sh's output; sandbox: the allowlist */
	assert_string_equal(rec_str(r, 0, 0, "input"), "!ls");
	assert_string_equal(rec_str(r, 0, 0, "kind"), "command");
	out = json_object_get(json_array_get(json_object_get(
	    json_array_get(r, 0), "records"), 0), "output");
	text = json_string_value(json_object_get(json_array_get(out, 0),
	    "text"));
	assert_non_null(text);
	assert_string_equal(text, "report.txt\nsecrets.txt\n");
	assert_string_equal(rec_str(r, 0, 1, "verdict"), "blocked");
	assert_string_equal(rec_str(r, 0, 1, "layer"), "commands");
	assert_string_equal(rec_str(r, 0, 1, "line"), "sandboxed run_shell: "
	    "!ls -> BLOCKED by the command allowlist: run_shell is not "
	    "allowed (read_file, write_file are)");

	/* the call typed as Python did the damage; the next '!ls' sees it */
	assert_string_equal(rec_str(r, 1, 0, "verdict"), "landed");
	out = json_object_get(json_array_get(json_object_get(
	    json_array_get(r, 2), "records"), 0), "output");
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(out, 0), "text")), "secrets.txt\n");

	/* a '!' alone: the same clear error on every path */
	assert_int_equal(nrecords(r, 3), 2);
	assert_string_equal(rec_str(r, 3, 0, "verdict"), "error");
	assert_string_equal(rec_str(r, 3, 1, "verdict"), "error");
	assert_non_null(strstr(rec_str(r, 3, 0, "reason"),
	    "'!' runs a shell command"));
	assert_string_equal(rec_str(r, 3, 0, "reason"),
	    rec_str(r, 3, 1, "reason"));
	json_decref(r);
	session_free(s);
}

static void
test_malformed(void **state)
{
	static const struct {
		const char *line;
		bool has_id;	/* (a malformed request's reply has id null) */
		const char *error;
	} cases[] = {
		{ "not json", false, "not JSON: " },
		{ "{\"id\": 7, \"input\": \"1\"", false, "not JSON: " },
		{ "[\"input\", \"1\"]", false, "a request is a JSON object" },
		{ "\"1 + 1\"", false, "a request is a JSON object" },
		{ "42", false, "a request is a JSON object" },
		{ "{\"id\": 7}", false, "missing \"input\" (a string)" },
		{ "{\"id\": 7, \"input\": null}", false,
		  "\"input\" must be a string" },
		{ "{\"id\": 7, \"input\": [\"1\"]}", false,
		  "\"input\" must be a string" },
		{ "{\"id\": 7, \"input\": \"1\", \"paths\": \"sandbox\"}", false,
		  "\"paths\" must be a list of path names" },
		{ "{\"id\": 7, \"input\": \"1\", \"paths\": [1]}", false,
		  "\"paths\" must be a list of path names" },
		{ "{\"id\": 7, \"input\": \"1\", \"paths\": [\"sandbox\", "
		  "\"kernel\"]}", false, "unknown path 'kernel' in \"paths\"" },
		{ "{\"id\": 7, \"input\": \"1\", \"paths\": []}", false,
		  "\"paths\" is empty" },
		{ "{\"id\": 7, \"input\": \"1\", \"path\": [\"unsafe\"]}", false,
		  "unknown key 'path' (expected id, input, paths)" },
		{ "{\"id\": {\"a\": 1}, \"input\": \"1\"}", false,
		  "\"id\" must be a string, a number or null" },
		{ "{\"id\": [7], \"input\": \"1\"}", false,
		  "\"id\" must be a string, a number or null" },
		{ "{\"id\": 7, \"input\": \"1\", \"input\": \"2\"}", false,
		  "not JSON: duplicate object key" },
		{ "{\"id\": 7, \"input\": \"\xff\"}", false, "not JSON: " },
	};
	struct session *s = new_session();
	struct sbuf in = SBUF_INIT;
	json_t *r;
	size_t i, n = sizeof cases / sizeof cases[0];
	(void)state;

	for (i = 0; i < n; i++)
		sbuf_addf(&in, "%s\n", cases[i].line);
	sbuf_adds(&in, "{\"id\": \"after\", \"input\": \"6 * 7\"}\n");
	r = serve_str(s, sbuf_cstr(&in));
	assert_int_equal(json_array_size(r), n + 1);
	for (i = 0; i < n; i++) {
		json_t *id = json_object_get(json_array_get(r, i), "id");
		const char *err = error_of(r, i);
		assert_non_null(err);
		if (strstr(err, cases[i].error) == NULL)
			fail_msg("%s: '%s' does not say '%s'", cases[i].line,
			    err, cases[i].error);
		if (cases[i].has_id)
			assert_int_equal(json_integer_value(id), 7);
		else
			assert_true(json_is_null(id));
	}
	/* The loop went on, and no malformed request ran. */
	assert_string_equal(rec_str(r, n, 1, "result"), "42");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(
	    json_object_get(json_array_get(r, n), "records"), 0), "step")), 1);
	json_decref(r);
	sbuf_free(&in);
	session_free(s);
}

static void
test_lines(void **state)
{
	struct session *s = new_session();
	struct serve_opts o = { 0 };
	struct sbuf in = SBUF_INIT;
	json_t *r;
	int status;
	size_t i;
	(void)state;

	/* Blank lines are skipped; CRLF and a missing final newline are
	 * fine; a NUL inside the input is Python's error, not ours. */
	r = serve_str(s, "\n  \r\n{\"id\": 1, \"input\": \"1\"}\r\n\n"
	    "{\"id\": 2, \"input\": \"1\\u0000\", \"paths\": [\"sandbox\"]}\n"
	    "{\"id\": 3, \"input\": \"2\"}");
	assert_int_equal(json_array_size(r), 3);
	assert_string_equal(rec_str(r, 0, 0, "result"), "1");
	assert_string_equal(rec_str(r, 1, 0, "verdict"), "error");
	assert_string_equal(rec_str(r, 2, 0, "result"), "2");
	json_decref(r);

	/* A line of several MB is capped, answered, and skipped whole. */
	sbuf_adds(&in, "{\"id\": 1, \"input\": \"");
	for (i = 0; i < (3u << 20); i++)
		sbuf_addc(&in, '1');
	sbuf_adds(&in, "\"}\n{\"id\": 2, \"input\": \"3\"}\n");
	r = serve(s, &o, in.data, in.len, &status);
	assert_int_equal(status, 0);
	assert_int_equal(json_array_size(r), 2);
	assert_string_equal(error_of(r, 0),
	    "request line longer than 1048576 bytes");
	assert_true(json_is_null(json_object_get(json_array_get(r, 0), "id")));
	assert_string_equal(rec_str(r, 1, 0, "result"), "3");
	json_decref(r);

	/* The cap is an option. */
	o.max_line = 16;
	r = serve(s, &o, "{\"id\": 1, \"input\": \"1\"}\n{\"input\":\"4\"}\n",
	    38, &status);
	assert_string_equal(error_of(r, 0),
	    "request line longer than 16 bytes");
	assert_string_equal(rec_str(r, 1, 0, "result"), "4");
	json_decref(r);

	/* EOF at once: no reply, status 0. */
	o.max_line = 0;
	r = serve(s, &o, "", 0, &status);
	assert_int_equal(status, 0);
	assert_int_equal(json_array_size(r), 0);
	json_decref(r);
	sbuf_free(&in);
	session_free(s);
}

static char *
fake_agent(const char *mode)
{
	const char *srcdir = getenv("srcdir");
	struct sbuf b = SBUF_INIT;
	const char *p;
	sbuf_adds(&b, "sh '");
	for (p = srcdir ? srcdir : "."; *p; p++) {
		if (*p == '\'')
			sbuf_adds(&b, "'\\''");
		else
			sbuf_addc(&b, *p);
	}
	sbuf_addf(&b, "/tests/fake_agent.sh' %s", mode);
	return sbuf_take(&b);
}

static void
test_agent_tasks(void **state)
{
	struct session *s = new_session();
	char *avg = fake_agent("average"), *fail = fake_agent("fail");
	struct agent_opts ao = { .command = avg };
	struct serve_opts o = { .agent = &ao };
	const char *in = "{\"id\": 1, \"input\": \"? compute the average "
	    "order value\", \"paths\": [\"sandbox\"]}\n";
	json_t *r, *reply;
	int status;
	(void)state;

	r = serve(s, &o, in, strlen(in), &status);
	assert_int_equal(status, 0);
	reply = json_array_get(r, 0);
	assert_string_equal(json_string_value(json_object_get(reply, "task")),
	    "compute the average order value");
	assert_string_equal(json_string_value(json_array_get(
	    json_object_get(reply, "proposal"), 0)),
	    "round(sum(orders) / len(orders), 2)");
	assert_int_equal(nrecords(r, 0), 1);
	assert_string_equal(rec_str(r, 0, 0, "path"), "sandbox");
	assert_string_equal(rec_str(r, 0, 0, "result"), "173.33");
	assert_string_equal(rec_str(r, 0, 0, "source"), "agent");
	json_decref(r);

	/* A failing agent is an error reply with the id; the loop goes on. */
	ao.command = fail;
	in = "{\"id\": \"t\", \"input\": \"? anything\"}\n"
	    "{\"id\": \"u\", \"input\": \"1 + 1\"}\n";
	r = serve(s, &o, in, strlen(in), &status);
	assert_int_equal(json_array_size(r), 2);
	assert_string_equal(error_of(r, 0), "agent: the agent exited with "
	    "status 3: fake agent: no API key");
	assert_string_equal(json_string_value(json_object_get(json_array_get(r,
	    0), "id")), "t");
	assert_string_equal(rec_str(r, 1, 0, "result"), "2");
	json_decref(r);

	/* Without an agent, '?' is just (bad) Python. */
	r = serve_str(s, "{\"id\": 1, \"input\": \"? x\"}\n");
	assert_string_equal(rec_str(r, 0, 0, "verdict"), "error");
	assert_string_equal(rec_str(r, 0, 0, "source"), "user");
	json_decref(r);
	free(avg);
	free(fail);
	session_free(s);
}

/* --path restricts what a request may name: another path is refused,
 * its id kept, the allowed paths named; the allowed ones run, and a
 * request without paths runs the session's. */
static void
test_path_restriction(void **state)
{
	struct session_opts so = { .paths = PATH_BIT(PATH_UNSAFE) |
	    PATH_BIT(PATH_SANDBOX) };
	struct session *s = session_new(&so);
	struct serve_opts o = { .paths = so.paths };
	const char *in =
	    "{\"id\": 1, \"input\": \"1 + 1\", \"paths\": [\"jail\"]}\n"
	    "{\"id\": 2, \"input\": \"1 + 1\", \"paths\": "
	    "[\"sandbox\", \"jail\"]}\n"
	    "{\"id\": 3, \"input\": \"1 + 1\", \"paths\": [\"sandbox\"]}\n"
	    "{\"id\": 4, \"input\": \"2 + 2\"}\n";
	int status;
	json_t *r;
	(void)state;

	r = serve(s, &o, in, strlen(in), &status);
	assert_int_equal(status, 0);
	assert_int_equal(json_array_size(r), 4);
	assert_string_equal(error_of(r, 0), "\"paths\" names jail, which "
	    "this server does not run (--path allows unsafe, sandbox)");
	assert_int_equal(json_integer_value(json_object_get(
	    json_array_get(r, 0), "id")), 1);
	assert_non_null(strstr(error_of(r, 1), "names jail, which"));
	assert_int_equal(nrecords(r, 2), 1);
	assert_string_equal(rec_str(r, 2, 0, "path"), "sandbox");
	assert_string_equal(rec_str(r, 2, 0, "result"), "2");
	assert_int_equal(nrecords(r, 3), 2);
	assert_string_equal(rec_str(r, 3, 0, "path"), "unsafe");
	assert_string_equal(rec_str(r, 3, 1, "path"), "sandbox");
	json_decref(r);
	session_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_and_state),
		cmocka_unit_test(test_shell_line),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_agent_tasks),
		cmocka_unit_test(test_path_restriction),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
