/*
 * test_mcp.c -- the MCP server over memory streams (mcp.h: the fuzzer's
 * and a library caller's way in, where messages are answered one after
 * another in the caller's process): batches under 2025-03-26 answered as
 * one array, refused under every other revision and before initialize,
 * an empty one an error, one of notifications only no reply at all.
 * (tests/app/mcp-rpc.test checks the same and the parallel loop through
 * pipes.)
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

#include "app/mcp.h"
#include "fixtures.h"
#include "record/paths.h"
#include "session/session.h"

#define INIT(rev) "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"," \
	"\"params\":{\"protocolVersion\":\"" rev "\",\"capabilities\":{}}}\n"

/* The replies to lines, one JSON value each, in an array. */
static json_t *
replies(const char *lines)
{
	struct session_opts so = { 0 };
	struct mcp_opts mo = { 0 };

	so.paths = PATH_BIT(PATH_SANDBOX);
	so.engine = 0;	/* the model: no world in a unit test */
	mo.paths = so.paths;
	mo.policy_set = true;
	return fx_mcp_replies(session_new(&so), &mo, lines);
}

static json_int_t
error_code(const json_t *reply)
{
	return json_integer_value(json_object_get(json_object_get(reply,
	    "error"), "code"));
}

static void
test_batch_answered_as_one_array(void **state)
{
	json_t *all = replies(INIT("2025-03-26")
	    "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"},"
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"run_code\",\"arguments\":"
	    "{\"code\":\"6 * 7\"}}},"
	    "7]\n"
	    "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/y\"}]\n"
	    "[]\n");
	json_t *batch, *r;

	(void)state;
	/* initialize, the batch's array, the empty batch's error: the
	 * notifications-only batch has no reply */
	assert_int_equal(json_array_size(all), 3);
	batch = json_array_get(all, 1);
	assert_true(json_is_array(batch));
	assert_int_equal(json_array_size(batch), 3);
	r = json_array_get(batch, 0);
	assert_int_equal(json_integer_value(json_object_get(r, "id")), 1);
	assert_true(json_is_object(json_object_get(r, "result")));
	r = json_array_get(batch, 1);
	assert_int_equal(json_integer_value(json_object_get(r, "id")), 2);
	assert_non_null(strstr(json_string_value(json_object_get(
	    json_array_get(json_object_get(json_object_get(r, "result"),
	    "content"), 0), "text")), "42"));
	r = json_array_get(batch, 2);
	assert_true(json_is_null(json_object_get(r, "id")));
	assert_int_equal(error_code(r), -32600);
	r = json_array_get(all, 2);
	assert_true(json_is_object(r));
	assert_int_equal(error_code(r), -32600);
	json_decref(all);
}

static void
test_batch_refused_elsewhere(void **state)
{
	static const char batch[] =
	    "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n";
	const char *const revs[] = { INIT("2025-06-18"), INIT("2025-11-25"),
	    INIT("2024-11-05"), "" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof revs / sizeof revs[0]; i++) {
		char *lines = malloc(strlen(revs[i]) + sizeof batch);
		json_t *all, *r;

		assert_non_null(lines);
		strcpy(lines, revs[i]);
		strcat(lines, batch);
		all = replies(lines);
		r = json_array_get(all, json_array_size(all) - 1);
		assert_true(json_is_object(r));
		assert_true(json_is_null(json_object_get(r, "id")));
		assert_int_equal(error_code(r), -32600);
		assert_non_null(strstr(json_string_value(json_object_get(
		    json_object_get(r, "error"), "message")), "2025-03-26"));
		json_decref(all);
		free(lines);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_answered_as_one_array),
		cmocka_unit_test(test_batch_refused_elsewhere),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
