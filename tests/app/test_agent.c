/*
 * test_agent.c -- an outside agent proposes the code: the task check, the
 * context block it receives, the answer formats it may use, and the ways a
 * misbehaving agent command is stopped (exit status, signal, silence,
 * timeout, a flood of output, a child left behind, a deaf reader) without
 * ever hanging the caller or leaving a process behind.
 *
 * The agent is tests/fake_agent.sh, found through $srcdir.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app/agent.h"
#include "base/arena.h"
#include "sandbox/policy.h"
#include "record/record.h"
#include "base/sbuf.h"
#include "session/session.h"
#include "base/xalloc.h"

static char tmpdir[4096];
static char logpath[4096 + 16];

/* "sh 'SRCDIR/tests/fake_agent.sh' MODE" (heap). */
static char *
fake_agent(const char *mode)
{
	const char *srcdir = getenv("srcdir"), *p;
	struct sbuf b = SBUF_INIT;
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

static double
seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned baseline_fds;

static unsigned
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;
	assert_non_null(d);
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

/* No child of ours is left, running or unreaped, and no pipe is left
 * open. */
static void
assert_no_children(void)
{
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(count_fds(), baseline_fds);
}

static char *
read_log(void)
{
	FILE *f = fopen(logpath, "r");
	struct sbuf b = SBUF_INIT;
	char buf[4096];
	size_t n;
	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&b, buf, n);
	fclose(f);
	return sbuf_take(&b);
}

/* Propose with mode; on success the proposal, else NULL and *err. */
static bool
propose(struct session *s, const char *mode, unsigned timeout_ms,
    size_t cap, const char *task, struct agent_proposal *p, char **err)
{
	char *cmd = fake_agent(mode);
	struct agent_opts o = { .command = cmd, .timeout_ms = timeout_ms,
	    .max_output = cap };
	bool ok = agent_propose(&o, s, task, p, err);
	free(cmd);
	return ok;
}

static void
test_is_task(void **state)
{
	const char *t;
	size_t n;
	(void)state;
	assert_true(agent_is_task("? compute it ", 13, &t, &n));
	assert_int_equal(n, 10);
	assert_memory_equal(t, "compute it", 10);
	assert_true(agent_is_task("  ?x", 4, &t, &n));
	assert_int_equal(n, 1);
	assert_true(agent_is_task("?", 1, &t, &n));
	assert_int_equal(n, 0);
	assert_false(agent_is_task("x ? y", 5, &t, &n));
	assert_false(agent_is_task("", 0, &t, &n));
	assert_false(agent_is_task("sum(orders)", 11, &t, &n));
}

/* ---- the answer formats ---- */

static void
assert_answer(const char *answer, size_t nlines, const char *const *want)
{
	struct agent_proposal p = { 0 };
	char *err = NULL;
	size_t i;
	if (!agent_parse_answer(answer, strlen(answer), &p, &err))
		fail_msg("%s: %s", answer, err);
	assert_int_equal(p.nlines, nlines);
	for (i = 0; i < nlines; i++)
		assert_string_equal(p.lines[i], want[i]);
	agent_proposal_free(&p);
}

static void
assert_bad_answer(const char *answer, size_t len, const char *why)
{
	struct agent_proposal p = { 0 };
	char *err = NULL;
	assert_false(agent_parse_answer(answer, len, &p, &err));
	assert_non_null(err);
	if (strstr(err, why) == NULL)
		fail_msg("'%s' does not say '%s'", err, why);
	assert_int_equal(p.nlines, 0);
	assert_null(p.lines);
	free(err);
}

static void
test_answer_formats(void **state)
{
	static const char *const avg[] = {
		"round(sum(orders) / len(orders), 2)" };
	static const char *const three[] = { "sum(orders)",
		"max(orders,\n    [1])", "read_file({'path': 'report.txt'})" };
	static const char *const unclosed[] = { "1 + 1", "2" };
	(void)state;
	assert_answer("round(sum(orders) / len(orders), 2)\n", 1, avg);
	assert_answer("\n  round(sum(orders) / len(orders), 2)  \r\n\n", 1,
	    avg);
	assert_answer("`round(sum(orders) / len(orders), 2)`", 1, avg);
	assert_answer("# the average\nround(sum(orders) / len(orders), 2)",
	    1, avg);
	assert_answer("Here it is:\n```python\n# total\nsum(orders)\n\n"
	    "max(orders,\n    [1])\n  read_file({'path': 'report.txt'})\n"
	    "```\nDone.\n```\nignored()\n```\n", 3, three);
	assert_answer("```\n1 + 1\n2", 2, unclosed);
	/* Inside a fence every line is an input, prose or not. */
	assert_answer("text\n```\n`x`\n```", 1, (const char *const[]){ "`x`" });
}

/* An input spans at most AGENT_MAX_INPUT_LINES lines, however long the
 * answer: a flood of open brackets costs linear time. */
static void
test_long_continuation(void **state)
{
	struct agent_proposal p = { 0 };
	struct sbuf b = SBUF_INIT;
	char *err = NULL;
	double t0 = seconds();
	unsigned i;
	(void)state;

	sbuf_adds(&b, "```\n");
	for (i = 0; i < 10 * AGENT_MAX_INPUT_LINES; i++)
		sbuf_adds(&b, "[\n");
	if (!agent_parse_answer(b.data, b.len, &p, &err))
		fail_msg("%s", err);
	assert_int_equal(p.nlines, 10);
	assert_int_equal(strlen(p.lines[0]), 2 * AGENT_MAX_INPUT_LINES - 1);
	assert_true(seconds() - t0 < 5);
	agent_proposal_free(&p);

	/* Below the cap, open brackets join as before. */
	sbuf_truncate(&b, 0);
	sbuf_adds(&b, "```\n[\n1,\n1]\n```\n");
	if (!agent_parse_answer(b.data, b.len, &p, &err))
		fail_msg("%s", err);
	assert_int_equal(p.nlines, 1);
	assert_string_equal(p.lines[0], "[\n1,\n1]");
	agent_proposal_free(&p);
	sbuf_free(&b);
}

static void
test_bad_answers(void **state)
{
	struct sbuf b = SBUF_INIT;
	unsigned i;
	(void)state;
	assert_bad_answer("", 0, "proposed nothing");
	assert_bad_answer("\n \n# only a comment\n", 19, "proposed nothing");
	assert_bad_answer("```\n\n```\n", 9, "code block is empty");
	assert_bad_answer("Sure!\n1 + 1\nHope that helps.\n", 29,
	    "3 lines of text without a fenced code block");
	assert_bad_answer("1 + \xff", 5, "not text");
	assert_bad_answer("1 +\0 1", 6, "not text");
	sbuf_adds(&b, "```\n");
	for (i = 0; i <= AGENT_MAX_LINES; i++)
		sbuf_addf(&b, "%u\n", i);
	assert_bad_answer(b.data, b.len, "more than 64 inputs");
	sbuf_truncate(&b, 0);
	/* The same when the 65th is still open at the end. */
	sbuf_adds(&b, "```\n");
	for (i = 0; i < AGENT_MAX_LINES; i++)
		sbuf_addf(&b, "%u\n", i);
	sbuf_adds(&b, "[1,\n```\n");
	assert_bad_answer(b.data, b.len, "more than 64 inputs");
	sbuf_free(&b);
}

/* ---- the context block ---- */

static void
test_context(void **state)
{
	struct session_opts so = { 0 };
	struct session *s = session_new(&so);
	struct sbuf b = SBUF_INIT;
	const char *ctx;
	char *err = NULL;
	(void)state;
	assert_true(session_seed_name(s, "label", "'Q2'", &err));
	agent_context(s, "compute the average order value", 31, &b);
	ctx = sbuf_cstr(&b);
	assert_non_null(strstr(ctx, "TASK: compute the average order value\n"));
	assert_non_null(strstr(ctx, "runs on the paths unsafe, sandbox;\n"));
	assert_non_null(strstr(ctx, "  orders: list\n"));
	assert_non_null(strstr(ctx, "  label: str\n"));
	assert_non_null(strstr(ctx, "  report.txt: 18\n"));
	assert_non_null(strstr(ctx, "  secrets.txt: 22\n"));
	/* Names and sizes, never contents. */
	assert_null(strstr(ctx, "Q2 refunds"));
	assert_null(strstr(ctx, "sk-live"));
	assert_non_null(strstr(ctx, "POLICY essay: "));
	assert_non_null(strstr(ctx, "  calls: sum len min max round abs\n"
	    "  attributes: none\n  commands: read_file write_file\n"));
	assert_non_null(strstr(ctx, "  commands: read_file write_file\n"));
	assert_non_null(strstr(ctx, "  syntax: Expression, BinOp, UnaryOp, "
	    "Call, Constant, Name, List, Tuple, keyword\n"));
	assert_non_null(strstr(ctx, "  operators: +, -, *, /, %, **, //\n"));
	assert_non_null(strstr(ctx, "  comparisons: none\n"));
	assert_non_null(strstr(ctx, "  hosts: none (no network)\n"));
	assert_non_null(strstr(ctx, "  budget: 0 of 1000 inputs used\n"));
	assert_non_null(strstr(ctx, "  read_file({'path': str})\n"));
	assert_non_null(strstr(ctx, "  write_file({'path': str, 'text': str, "
	    "'idempotency_key': str (optional)})\n"));
	assert_non_null(strstr(ctx, "ANSWER FORMAT: reply with exactly one "
	    "input line"));
	sbuf_free(&b);

	/* The weaker presets say what they let through. */
	session_set_policy(s, policy_preset("dunder"));
	agent_context(s, "x", 1, &b);
	ctx = sbuf_cstr(&b);
	assert_non_null(strstr(ctx, "  calls: any callee; builtins: "));
	assert_non_null(strstr(ctx, "  attributes: public only (no name "
	    "that starts with '_')\n"));
	assert_null(strstr(ctx, "refused when"));
	assert_non_null(strstr(ctx, "  comparisons: ==, !=, <, <=, >, >=, is, "
	    "is not, in, not in\n"));
	sbuf_free(&b);
	session_set_policy(s, policy_preset("blocklist"));
	agent_context(s, "x", 1, &b);
	ctx = sbuf_cstr(&b);
	assert_non_null(strstr(ctx, "POLICY blocklist: "));
	assert_non_null(strstr(ctx, "  calls: any callee; builtins: all\n"
	    "  attributes: any\n  refused when the source contains: "));
	sbuf_free(&b);

	/* An empty session says so; without the sandbox, the first path. */
	session_reset(s, false);
	session_set_paths(s, PATH_BIT(PATH_UNSAFE));
	agent_context(s, "x", 1, &b);
	ctx = sbuf_cstr(&b);
	assert_non_null(strstr(ctx, "NAMES (unsafe path; name: type):\n"
	    "  (none)\n"));
	assert_non_null(strstr(ctx, "FILES (name: bytes):\n  (none)\n"));
	sbuf_free(&b);
	session_free(s);
}

/* ---- the whole exchange, with the fake agent ---- */

/* The essay's task: the agent gets the names and the allowed calls, its
 * proposal runs on both paths as the agent's, and yields 173.33. */
static void
test_average_order_value(void **state)
{
	struct session_opts so = { 0 };
	struct session *s = session_new(&so);
	struct agent_proposal p;
	struct arena *a = arena_new();
	struct record *r;
	char *err = NULL, *log;
	size_t n;
	(void)state;

	setenv("FAKE_AGENT_LOG", logpath, 1);
	if (!propose(s, "average", 0, 0, "compute the average order value",
	    &p, &err))
		fail_msg("%s", err);
	unsetenv("FAKE_AGENT_LOG");
	assert_string_equal(p.task, "compute the average order value");
	assert_string_equal(p.answer, "round(sum(orders) / len(orders), 2)\n");
	assert_int_equal(p.nlines, 1);
	assert_string_equal(p.lines[0], "round(sum(orders) / len(orders), 2)");

	log = read_log();
	assert_non_null(strstr(log, "TASK: compute the average order value"));
	assert_non_null(strstr(log, "orders: list"));
	assert_non_null(strstr(log, "calls: sum len min max round abs"));
	free(log);

	n = agent_run_line(s, p.lines[0], 0, a, &r);
	assert_int_equal(n, 2);
	assert_int_equal(r[1].path, PATH_SANDBOX);
	assert_int_equal(r[1].verdict, VERDICT_OK);
	assert_string_equal(r[1].result, "173.33");
	assert_string_equal(r[0].source, "agent");
	assert_string_equal(r[1].source, "agent");
	assert_string_equal(r[1].line, "sandboxed code: "
	    "'round(sum(orders) / len(orders), 2)' -> 173.33");

	/* A mask picks the paths, as for typed input. */
	n = agent_run_line(s, "write_file({'path': 'out.txt', 'text': 'ok'})",
	    PATH_BIT(PATH_SANDBOX), a, &r);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].kind, KIND_COMMAND);
	assert_string_equal(r[0].source, "agent");
	agent_proposal_free(&p);
	arena_free(a);
	session_free(s);
	assert_no_children();
}

static void
test_fenced_and_env(void **state)
{
	struct session_opts so = { 0 };
	struct session *s = session_new(&so);
	struct agent_proposal p;
	struct sbuf b = SBUF_INIT;
	char *err = NULL;
	(void)state;

	if (!propose(s, "fenced", 0, 0, "a few things", &p, &err))
		fail_msg("%s", err);
	assert_int_equal(p.nlines, 3);
	assert_string_equal(p.lines[1], "max(orders,\n    [1])");
	agent_proposal_show(&p, false, &b);
	assert_string_equal(sbuf_cstr(&b), "agent proposes: sum(orders)\n"
	    "agent proposes: max(orders,\\n    [1])\n"
	    "agent proposes: read_file({'path': 'report.txt'})");
	sbuf_truncate(&b, 0);
	agent_proposal_show(&p, true, &b);
	assert_string_equal(sbuf_cstr(&b), "{\"agent\":{\"task\":\"a few "
	    "things\",\"proposal\":[\"sum(orders)\",\"max(orders,\\n    "
	    "[1])\",\"read_file({'path': 'report.txt'})\"]}}");
	sbuf_free(&b);
	agent_proposal_free(&p);

	/* The task is in the environment too. */
	if (!propose(s, "task", 0, 0, "say \"hi\"", &p, &err))
		fail_msg("%s", err);
	assert_string_equal(p.lines[0], "'say \"hi\"'");
	agent_proposal_free(&p);
	session_free(s);
	assert_no_children();
}

static void
assert_agent_fails(const char *mode, const char *cmd, unsigned timeout_ms,
    size_t cap, const char *why)
{
	struct session_opts so = { 0 };
	struct session *s = session_new(&so);
	struct agent_proposal p;
	struct agent_opts o = { .command = cmd, .timeout_ms = timeout_ms,
	    .max_output = cap };
	char *err = NULL, *fake = mode ? fake_agent(mode) : NULL;
	double t0 = seconds();

	if (fake != NULL)
		o.command = fake;
	assert_false(agent_propose(&o, s, "the task", &p, &err));
	assert_true(seconds() - t0 < 10);
	assert_non_null(err);
	if (strstr(err, why) == NULL)
		fail_msg("'%s' does not say '%s'", err, why);
	assert_int_equal(p.nlines, 0);
	assert_null(p.task);
	free(err);
	free(fake);
	session_free(s);
	assert_no_children();
}

static void
test_failing_agents(void **state)
{
	(void)state;
	assert_agent_fails("fail", NULL, 0, 0,
	    "the agent exited with status 3: fake agent: no API key");
	assert_agent_fails("silent", NULL, 0, 0, "the agent proposed nothing");
	assert_agent_fails("chatter", NULL, 0, 0, "without a fenced code block");
	assert_agent_fails(NULL, "exec /nonexistent/agent", 0, 0,
	    "the agent exited with status 127: ");
	assert_agent_fails(NULL, "kill -9 $$", 0, 0,
	    "the agent was killed by signal 9");
	assert_agent_fails(NULL, "", 0, 0, "no agent command");
}

static void
test_bad_tasks(void **state)
{
	struct session_opts so = { 0 };
	struct session *s = session_new(&so);
	struct agent_opts o = { .command = "echo 1" };
	struct agent_proposal p;
	char *err, *big = xmalloc(AGENT_MAX_TASK + 2);
	(void)state;

	assert_false(agent_propose(&o, s, "", &p, &err));
	assert_string_equal(err, "no task after '?' (type '? TASK')");
	free(err);
	assert_false(agent_propose(&o, s, "caf\xc3", &p, &err));
	assert_string_equal(err, "the task is not valid UTF-8");
	free(err);
	memset(big, 'x', AGENT_MAX_TASK + 1);
	big[AGENT_MAX_TASK + 1] = '\0';
	assert_false(agent_propose(&o, s, big, &p, &err));
	assert_string_equal(err, "the task is longer than 65536 bytes");
	free(err);
	big[AGENT_MAX_TASK] = '\0';
	if (!agent_propose(&o, s, big, &p, &err))
		fail_msg("%s", err);
	assert_string_equal(p.lines[0], "1");
	agent_proposal_free(&p);
	free(big);
	session_free(s);
	assert_no_children();
}

static void
test_runaway_agents(void **state)
{
	struct session_opts so = { 0 };
	struct session *s = session_new(&so);
	struct agent_proposal p;
	char *err = NULL;
	double t0;
	(void)state;

	t0 = seconds();
	assert_agent_fails("sleep", NULL, 300, 0,
	    "the agent timed out after 0.300 s (killed)");
	assert_true(seconds() - t0 >= 0.29);
	assert_agent_fails(NULL, "sleep 30", 1000, 0,
	    "the agent timed out after 1 s (killed)");
	/* Output closed early does not end the wait for the exit. */
	assert_agent_fails(NULL, "exec >&- 2>&-; sleep 30", 300, 0,
	    "timed out");
	assert_agent_fails("flood", NULL, 0, 1000,
	    "the agent wrote more than 1000 bytes (killed)");
	assert_agent_fails("flood", NULL, 0, 0,
	    "the agent wrote more than 262144 bytes (killed)");

	/* A child left holding stdout is killed with the group: the answer
	 * still counts, long before the child would have ended. */
	t0 = seconds();
	if (!propose(s, "linger", 0, 0, "x", &p, &err))
		fail_msg("%s", err);
	assert_true(seconds() - t0 < 5);
	assert_string_equal(p.lines[0], "2 + 2");
	agent_proposal_free(&p);
	session_free(s);
	assert_no_children();
}

static bool
cancel_after_three(void *arg)
{
	unsigned *calls = arg;
	return ++*calls > 3;
}

/* A caller (the UI's Ctrl-C) can end a run early. */
static void
test_cancel(void **state)
{
	unsigned calls = 0;
	char *cmd = fake_agent("sleep"), *out, *err;
	struct agent_opts o = { .command = cmd,
	    .is_cancelled = cancel_after_three, .cancel_arg = &calls };
	size_t outlen;
	double t0 = seconds();
	(void)state;

	assert_false(agent_exec(&o, NULL, "x", 1, &out, &outlen, &err));
	assert_string_equal(err, "the agent was cancelled (killed)");
	assert_int_equal(calls, 4);
	assert_true(seconds() - t0 < 5);
	free(err);
	free(cmd);
	assert_no_children();
}

/* An agent that never reads its stdin: the write fails with EPIPE, the
 * SIGPIPE it raised is consumed, and the answer still counts. */
static void
test_deaf_agent(void **state)
{
	struct agent_opts o = { 0 };
	size_t big = 4u << 20, outlen;
	char *in = xmalloc(big), *out, *err, *cmd = fake_agent("deaf");
	sigset_t pending;
	(void)state;

	memset(in, 'x', big);
	o.command = cmd;
	if (!agent_exec(&o, NULL, in, big, &out, &outlen, &err))
		fail_msg("%s", err);
	assert_string_equal(out, "1 + 1\n");
	assert_int_equal(outlen, 6);
	sigpending(&pending);
	assert_int_equal(sigismember(&pending, SIGPIPE), 0);
	free(out);
	free(in);
	free(cmd);
	assert_no_children();
}

/* ---- the loop (--agent-turns) ---- */

/* "sh 'SRCDIR/tests/loop_agent.sh' MODE" (heap). */
static char *
loop_agent(const char *mode)
{
	char *fake = fake_agent(mode), *at = strstr(fake, "fake_agent.sh");
	char *cmd;

	*at = '\0';
	cmd = xasprintf("%sloop_agent.sh%s", fake, at + strlen("fake_agent.sh"));
	free(fake);
	return cmd;
}

/* Run a turn's lines on the session, the records going back to the
 * loop; the last record's verdict. */
static enum verdict
run_turn(struct agent_loop *l, struct session *s,
    const struct agent_proposal *p)
{
	enum verdict v = VERDICT_OK;
	size_t i;

	for (i = 0; i < p->nlines; i++) {
		struct arena *a = arena_new();
		struct record *r;
		size_t n = agent_run_line(s, p->lines[i], 0, a, &r);
		assert_true(n > 0);
		agent_loop_records(l, r, n);
		v = r[n - 1].verdict;
		arena_free(a);
	}
	return v;
}

static void
assert_end(const struct agent_loop *l, bool json, const char *want)
{
	struct sbuf b = SBUF_INIT;
	agent_loop_show_end(l, json, &b);
	assert_string_equal(sbuf_cstr(&b), want);
	sbuf_free(&b);
}

/* The scripted agent is refused, sees the refusal in its next turn's
 * stdin, passes, then says DONE; each turn is its own run, reaped. */
static void
test_loop_retries_after_block(void **state)
{
	struct session_opts so = { 0 };
	struct session *s = session_new(&so);
	char *cmd = loop_agent("probe"), *err;
	struct agent_opts o = { .command = cmd, .turns = 3 };
	struct agent_loop l;
	struct agent_proposal p;
	(void)state;

	session_set_paths(s, PATH_BIT(PATH_SANDBOX));
	agent_loop_init(&l, &o, s, "the average", 11);
	assert_true(agent_loop_next(&l, &p, &err));
	assert_int_equal(p.turn, 1);
	assert_int_equal(p.turns, 3);
	assert_string_equal(p.lines[0], "open('secrets.txt').read()");
	assert_int_equal(run_turn(&l, s, &p), VERDICT_BLOCKED);
	agent_proposal_free(&p);
	assert_no_children();

	assert_true(agent_loop_next(&l, &p, &err));
	assert_int_equal(p.turn, 2);
	assert_string_equal(p.lines[0], "round(sum(orders) / len(orders), 2)");
	assert_int_equal(run_turn(&l, s, &p), VERDICT_OK);
	agent_proposal_free(&p);

	assert_false(agent_loop_next(&l, &p, &err));
	assert_null(err);
	assert_int_equal(l.end, AGENT_DONE);
	assert_int_equal(l.turn, 3);
	assert_int_equal(p.nlines, 0);
	assert_end(&l, false, "agent: done after 2 turns (--agent-turns=3)");
	assert_end(&l, true, "{\"agent\":{\"task\":\"the average\","
	    "\"end\":\"done\",\"turns\":2}}");
	/* An ended loop stays ended, without asking again. */
	assert_false(agent_loop_next(&l, &p, &err));
	assert_null(err);
	assert_int_equal(l.turn, 3);
	agent_loop_free(&l);
	free(cmd);
	session_free(s);
	assert_no_children();
}

/* The default bound is one turn: no turn numbers, no end line. */
static void
test_loop_single_turn(void **state)
{
	struct session_opts so = { 0 };
	struct session *s = session_new(&so);
	char *cmd = loop_agent("quit"), *err;
	struct agent_opts o = { .command = cmd };
	struct agent_loop l;
	struct agent_proposal p;
	struct sbuf b = SBUF_INIT;
	(void)state;

	session_set_paths(s, PATH_BIT(PATH_SANDBOX));
	agent_loop_init(&l, &o, s, "x", 1);
	assert_true(agent_loop_next(&l, &p, &err));
	/* DONE only means done in a loop */
	assert_string_equal(p.lines[0], "DONE");
	assert_int_equal(p.turn, 0);
	assert_int_equal(p.turns, 0);
	agent_proposal_show(&p, false, &b);
	assert_string_equal(sbuf_cstr(&b), "agent proposes: DONE");
	sbuf_free(&b);
	run_turn(&l, s, &p);
	agent_proposal_free(&p);
	assert_false(agent_loop_next(&l, &p, &err));
	assert_null(err);
	assert_int_equal(l.end, AGENT_TURNS_USED);
	assert_end(&l, false, "");
	assert_end(&l, true, "");
	agent_loop_free(&l);
	free(cmd);
	session_free(s);
	assert_no_children();
}

/* A turn that hangs fails the loop at its deadline; what the turns so
 * far wrote back passes AGENT_MAX_HISTORY and stops the loop. */
static void
test_loop_limits(void **state)
{
	struct session_opts so = { 0 };
	struct session *s = session_new(&so);
	char *cmd = loop_agent("hang"), *err, *big;
	struct agent_opts o = { .command = cmd, .turns = 3,
	    .timeout_ms = 300 };
	struct agent_loop l;
	struct agent_proposal p;
	struct arena *a;
	struct record *r;
	size_t n, i;
	double t0;
	(void)state;

	session_set_paths(s, PATH_BIT(PATH_SANDBOX));
	agent_loop_init(&l, &o, s, "x", 1);
	assert_true(agent_loop_next(&l, &p, &err));
	run_turn(&l, s, &p);
	agent_proposal_free(&p);
	t0 = seconds();
	assert_false(agent_loop_next(&l, &p, &err));
	assert_true(seconds() - t0 < 5);
	assert_int_equal(l.end, AGENT_FAILED);
	assert_string_equal(err, "the agent timed out after 0.300 s (killed)");
	assert_end(&l, false, "");
	free(err);
	agent_loop_free(&l);
	free(cmd);
	assert_no_children();

	cmd = loop_agent("never");
	o.command = cmd;
	o.turns = 5;
	o.timeout_ms = 0;
	agent_loop_init(&l, &o, s, "x", 1);
	assert_true(agent_loop_next(&l, &p, &err));
	a = arena_new();
	n = agent_run_line(s, p.lines[0], 0, a, &r);
	assert_int_equal(n, 1);
	big = xmalloc((1u << 20) + 1);
	memset(big, 'x', 1u << 20);
	big[1u << 20] = '\0';
	r[0].result = big;
	for (i = 0; i < 5; i++)
		agent_loop_records(&l, r, n);
	agent_proposal_free(&p);
	assert_false(agent_loop_next(&l, &p, &err));
	assert_null(err);
	assert_int_equal(l.end, AGENT_HISTORY_FULL);
	assert_int_equal(l.turn, 1);
	assert_end(&l, false, "agent: stopped after 1 turn (--agent-turns=5): "
	    "its records passed 4 MiB");
	assert_end(&l, true, "{\"agent\":{\"task\":\"x\",\"end\":"
	    "\"history\",\"turns\":1}}");
	agent_loop_free(&l);
	free(big);
	arena_free(a);
	free(cmd);
	session_free(s);
	assert_no_children();
}

/* ---- agent_loop_run(): the turns as the front ends run them ----
 *
 * (-e and --batch in main.c, the curses UI in ui.c): each turn's
 * proposal shown before its lines run, each line run with its records
 * marked as the agent's, the "next turn" hook only when another turn
 * will be asked, a cancel (the UI's Ctrl-C) after a line stopping every
 * further line and turn, and a failing turn's message handed back.  The
 * agents are one-line shell commands (/bin/sh -c). */

/* Two lines every turn, never DONE. */
#define TWO_LINES	"printf '```\\n1 + 1\\n2 + 2\\n```\\n'"
/* What the callbacks log for one of its turns' proposal, and for its
 * two lines. */
#define PROPOSED(k)	"proposed turn " #k " of 3: 2 lines\n"
#define RAN_1		"ran 1 + 1 -> 2 (agent)\n"
#define RAN_2		"ran 2 + 2 -> 4 (agent)\n"
#define NEXT(k)		"next: turn " #k " of 3\n"

/* What the callbacks saw, one event per line of log. */
struct seen {
	struct sbuf	 log;
	size_t		 ran;
	size_t		 cancel_after;	/* lines; 0: never cancel */
};

static void
on_proposed(void *arg, const struct agent_proposal *p)
{
	struct seen *sn = arg;

	sbuf_addf(&sn->log, "proposed turn %u of %u: %zu lines\n", p->turn,
	    p->turns, p->nlines);
}

static void
on_ran(void *arg, const char *line, const struct record *r, size_t n)
{
	struct seen *sn = arg;

	assert_int_equal(n, 1);		/* one path: the sandbox */
	sbuf_addf(&sn->log, "ran %s -> %s (%s)\n", line, r[0].result,
	    r[0].source);
	sn->ran++;
}

static void
on_between(void *arg, const struct agent_loop *l)
{
	struct seen *sn = arg;

	sbuf_addf(&sn->log, "next: turn %u of %u\n", l->turn + 1, l->turns);
}

static bool
cancelled(void *arg)
{
	struct seen *sn = arg;

	return sn->cancel_after != 0 && sn->ran >= sn->cancel_after;
}

static struct session *
sandbox_session(void)
{
	struct session_opts so = { 0 };
	struct session *s = session_new(&so);

	session_set_paths(s, PATH_BIT(PATH_SANDBOX));
	return s;
}

/* One run of the loop and what it must show. */
struct run_case {
	const char	*why;
	const char	*command;
	unsigned	 turns;
	size_t		 cancel_after;	/* lines; 0: never */
	const char	*log;		/* what the callbacks saw */
	size_t		 proposed;
	bool		 stopped;
	enum agent_end	 end;
	unsigned	 turn;		/* turns asked */
	const char	*err;		/* in the error; NULL: none */
};

static const struct run_case cases[] = {
	/* Every turn: the proposal first, then its lines in order, records
	 * marked "agent"; the hook before turns 2 and 3, never after the
	 * last. */
	{ "three turns", TWO_LINES, 3, 0,
	  PROPOSED(1) RAN_1 RAN_2 NEXT(2) PROPOSED(2) RAN_1 RAN_2 NEXT(3)
	  PROPOSED(3) RAN_1 RAN_2, 6, false, AGENT_TURNS_USED, 3, NULL },
	/* A single turn (the default bound): no turn numbers, no hook. */
	{ "one turn", TWO_LINES, 0, 0,
	  "proposed turn 0 of 0: 2 lines\n" RAN_1 RAN_2, 2, false,
	  AGENT_TURNS_USED, 1, NULL },
	/* Cancelled after turn 2's first line: its second line does not
	 * run, turn 3 is never asked for, and the count is the lines
	 * proposed. */
	{ "cancelled", TWO_LINES, 3, 3,
	  PROPOSED(1) RAN_1 RAN_2 NEXT(2) PROPOSED(2) RAN_1, 4, true,
	  AGENT_RUNNING, 2, NULL },
	/* A turn that fails ends the loop with its message; the turns
	 * before it stand.  (Turn 2's agent fails: its stdin then holds
	 * turn 1.) */
	{ "failed", "if grep -q '^{\"agent\":'; then echo 'no key' >&2; "
	  "exit 3; fi; echo '1 + 1'", 3, 0,
	  "proposed turn 1 of 3: 1 lines\n" RAN_1 NEXT(2), 1, false,
	  AGENT_FAILED, 2, "no key" },
};

static void
test_runs(void **state)
{
	struct agent_turn_ops ops = { on_proposed, on_ran, on_between, NULL };
	size_t i;
	(void)state;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct run_case *c = &cases[i];
		struct seen sn = { SBUF_INIT, 0, c->cancel_after };
		struct agent_opts o = { .command = c->command,
		    .turns = c->turns, .is_cancelled = cancelled,
		    .cancel_arg = &sn };
		struct session *s = sandbox_session();
		struct agent_loop l;
		struct agent_run out;

		ops.arg = &sn;
		agent_loop_init(&l, &o, s, "add", 3);
		agent_loop_run(&l, &ops, &out);
		if (strcmp(sbuf_cstr(&sn.log), c->log) != 0)
			fail_msg("%s: saw\n%s", c->why, sbuf_cstr(&sn.log));
		assert_int_equal(out.proposed, c->proposed);
		assert_int_equal(out.stopped, c->stopped);
		assert_int_equal(l.end, c->end);
		assert_int_equal(l.turn, c->turn);
		if (c->err == NULL)
			assert_null(out.err);
		else
			assert_non_null(strstr(out.err, c->err));
		free(out.err);
		agent_loop_free(&l);
		session_free(s);
		sbuf_free(&sn.log);
	}
}

static int
make_tmpdir(void **state)
{
	const char *base = getenv("TMPDIR");
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "%s/test_agent.XXXXXX",
	    base && *base ? base : "/tmp");
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	snprintf(logpath, sizeof logpath, "%s/log", tmpdir);
	baseline_fds = count_fds();
	return 0;
}

static int
remove_tmpdir(void **state)
{
	(void)state;
	unlink(logpath);
	return rmdir(tmpdir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is_task),
		cmocka_unit_test(test_answer_formats),
		cmocka_unit_test(test_bad_answers),
		cmocka_unit_test(test_long_continuation),
		cmocka_unit_test(test_context),
		cmocka_unit_test(test_average_order_value),
		cmocka_unit_test(test_fenced_and_env),
		cmocka_unit_test(test_failing_agents),
		cmocka_unit_test(test_bad_tasks),
		cmocka_unit_test(test_runaway_agents),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_deaf_agent),
		cmocka_unit_test(test_loop_retries_after_block),
		cmocka_unit_test(test_loop_single_turn),
		cmocka_unit_test(test_loop_limits),
		cmocka_unit_test(test_runs),
	};
	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
