/*
 * test_agent_run.c -- agent_loop_run(), the turns as the front ends run
 * them (-e and --batch in main.c, the curses UI in ui.c): each turn's
 * proposal shown before its lines run, each line run with its records
 * marked as the agent's, the "next turn" hook only when another turn
 * will be asked, a cancel (the UI's Ctrl-C) after a line stopping every
 * further line and turn, and a failing turn's message handed back.
 *
 * The agents are one-line shell commands (/bin/sh -c).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "app/agent.h"
#include "base/sbuf.h"
#include "record/record.h"
#include "session/session.h"

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
