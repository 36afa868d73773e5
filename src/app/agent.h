/*
 * agent.h -- an outside agent writes the code: a task in, input lines out.
 *
 * An input that starts with '?' is a task for an agent.  agent_propose()
 * writes the task and a context block (the names and their types, the
 * files, what the active policy allows, the answer format) to the stdin of
 * an agent command run through /bin/sh -c, reads the proposal from its
 * stdout, and splits it into input lines.  agent_run_line() then runs one
 * proposed line through the session's paths like typed input; its records
 * say "source": "agent".  agent_loop_*() ask again, turn after turn, with
 * the records of the turns so far (--agent-turns).
 *
 * The agent never hangs sandboxrepl: it runs in a process group of its own
 * with pipes to its stdin and from its stdout and stderr, read in a poll()
 * loop against a wall-clock deadline with a byte cap; on timeout or an
 * overlong answer the whole group gets SIGKILL, and the child is always
 * reaped.  The caller is the child subreaper while the agent runs, and
 * every process descended from the agent (in its group or not: setsid)
 * is killed and reaped before agent_exec() returns.  Nothing here prints or exits: failures come back as messages.
 * The caller must not reap children it did not start (waitpid(-1) in a
 * SIGCHLD handler would take the agent's exit status away).
 */
#ifndef SANDBOXREPL_AGENT_H
#define SANDBOXREPL_AGENT_H

#include <stdbool.h>
#include <stddef.h>

#include "record/record.h"

struct arena;
struct sbuf;
struct session;

#define AGENT_DEFAULT_TIMEOUT_MS	60000u
#define AGENT_MAX_TIMEOUT_MS		3600000u
/* Bytes of stdout the agent may write before it is killed. */
#define AGENT_DEFAULT_MAX_OUTPUT	(256u << 10)
/* Bytes of stderr kept for the error message (the rest is drained). */
#define AGENT_MAX_STDERR		4096u
/* Inputs one proposal may hold, and lines one input may span. */
#define AGENT_MAX_LINES			64u
#define AGENT_MAX_INPUT_LINES		100u
/* Bytes of task text (it also travels in the environment). */
#define AGENT_MAX_TASK			(64u << 10)
/* Names and files listed in the context block; the rest are counted. */
#define AGENT_MAX_LISTED		200u
/* Turns one task may take (--agent-turns), and bytes of the turns'
 * records written back to the agent before the loop stops. */
#define AGENT_DEFAULT_TURNS		1u
#define AGENT_MAX_TURNS			20u
#define AGENT_MAX_HISTORY		(4u << 20)

struct agent_opts {
	const char	*command;	/* run as /bin/sh -c COMMAND */
	unsigned	 timeout_ms;	/* 0: AGENT_DEFAULT_TIMEOUT_MS */
	size_t		 max_output;	/* 0: AGENT_DEFAULT_MAX_OUTPUT */
	unsigned	 turns;		/* 0: AGENT_DEFAULT_TURNS */
	/* Asked while the agent runs, at least every 100 ms: true ends the
	 * run as a timeout would (a UI's Ctrl-C).  NULL: never. */
	bool		(*is_cancelled)(void *arg);
	void		*cancel_arg;
};

/* A proposal: heap memory owned by the struct, freed by
 * agent_proposal_free(). */
struct agent_proposal {
	char	*task;		/* the task, without the '?' */
	char	*answer;	/* the agent's stdout, as it came */
	char	**lines;	/* the input lines to run, in order */
	size_t	 nlines;
	/* In a loop of more than one turn (agent_loop_next()), this turn
	 * and the bound; 0 and 0 for a lone proposal. */
	unsigned turn, turns;
};

void agent_proposal_free(struct agent_proposal *p);

/*
 * Is input a task?  When it starts with '?' (after blanks), returns true
 * and points *task at the text after the '?' with blanks trimmed (borrowed
 * from input) and *tasklen at its length.
 */
bool agent_is_task(const char *input, size_t len, const char **task,
    size_t *tasklen);

/*
 * The block written to the agent's stdin: the task, then the state of the
 * session's sandbox path (or its first path when the sandbox is off): the
 * names with their types, the files with their sizes (never their
 * contents), the calls, commands, syntax and hosts the active policy
 * allows, the budget, and the expected answer format.  Appended to out.
 */
void agent_context(struct session *s, const char *task, size_t tasklen,
    struct sbuf *out);

/*
 * Split an agent's answer into input lines.  The first fenced code block
 * (a line starting with ```, up to the next such line or the end) gives one
 * input per line, lines whose brackets are still open continuing on the
 * next (up to AGENT_MAX_INPUT_LINES); outside a fence the answer must be one non-blank line (one pair of
 * enclosing backticks is dropped).  Blank lines and '#' comments are
 * skipped.  On success fills p->lines; on failure returns false with *err
 * (heap) saying why.
 */
bool agent_parse_answer(const char *answer, size_t len,
    struct agent_proposal *p, char **err);

/*
 * Run cmd through /bin/sh -c with in[0, inlen) on its stdin (the task is
 * also in the environment as SANDBOXREPL_TASK when task is not NULL).
 * Success means the command exited with status 0 within the deadline and
 * wrote at most max_output bytes: *out (heap, NUL-terminated, caller
 * frees) and *outlen receive its stdout.  Otherwise returns false and *err
 * (heap) says what happened, with the first line of the command's stderr.
 */
bool agent_exec(const struct agent_opts *o, const char *task, const char *in,
    size_t inlen, char **out, size_t *outlen, char **err);

/*
 * Ask the agent: build the context for task, run the command, parse the
 * answer.  On success *out holds the proposal (caller frees with
 * agent_proposal_free()); on failure returns false, *out is empty and *err
 * (heap, caller frees) says why.  The session is only read.
 */
bool agent_propose(const struct agent_opts *o, struct session *s,
    const char *task, struct agent_proposal *out, char **err);

/*
 * Run one proposed line on the paths in mask (0: the session's paths),
 * exactly as session_run() would with the automatic labels, and mark the
 * records "source": "agent".  Records live in a.  Returns their number.
 */
size_t agent_run_line(struct session *s, const char *line, unsigned mask,
    struct arena *a, struct record **out);

/* The proposal as shown before it runs: "agent proposes: LINE" per line
 * (trace; LINE escaped by textesc.h, so an input of several lines shows
 * "\n"), or one JSON object {"agent":{"task","proposal":[...]}} (json).
 * In a loop of more than one turn, "agent proposes (turn K of N): LINE"
 * and {"agent":{"task","turn":K,"turns":N,"proposal":[...]}}.
 * No trailing newline. */
void agent_proposal_show(const struct agent_proposal *p, bool json,
    struct sbuf *out);

/*
 * --agent-turns: the agent as a loop, the way agent frameworks run a model.
 * The command is run again for every turn (a model call is stateless: it
 * gets the whole conversation each time), each run an agent_exec() with
 * all its guarantees and its own --agent-timeout deadline.  Turn 1's
 * stdin is the context block, as agent_propose() writes it; with a bound
 * above 1 the block also says how the loop works, and from turn 2 on it
 * ends with the turns so far as JSON lines: for each turn the proposal
 * object and then its lines' records, exactly what --json prints.  The
 * loop ends when the agent answers with the one line DONE, when the bound
 * is reached, or when the turns' records pass AGENT_MAX_HISTORY bytes.
 *
 *	agent_loop_init(&l, o, s, task, len);
 *	while (agent_loop_next(&l, &p, &err)) {
 *		show p; for each line: n = agent_run_line(...);
 *		    agent_loop_records(&l, r, n);
 *		agent_proposal_free(&p);
 *	}
 *	err ? report err : show agent_loop_show_end();
 *	agent_loop_free(&l);
 *
 * (agent_loop_run() is that middle part, with callbacks for showing.)
 *
 * The session is only read by the loop itself (the caller runs the
 * lines); the loop borrows o and s until agent_loop_free().
 */
enum agent_end {
	AGENT_RUNNING,		/* not ended yet */
	AGENT_DONE,		/* the agent answered DONE */
	AGENT_TURNS_USED,	/* the bound was reached */
	AGENT_HISTORY_FULL,	/* the records passed AGENT_MAX_HISTORY */
	AGENT_FAILED		/* a turn failed (its message in err) */
};

struct agent_loop {
	const struct agent_opts	*o;
	struct session		*s;
	char			*task;		/* heap, NUL-terminated */
	size_t			 tasklen;
	unsigned		 turn;		/* turns asked so far */
	unsigned		 turns;		/* the bound */
	enum agent_end		 end;
	struct sbuf		*history;	/* the JSON lines so far */
};

void agent_loop_init(struct agent_loop *l, const struct agent_opts *o,
    struct session *s, const char *task, size_t tasklen);

/*
 * The next turn: true with *p filled (the caller runs its lines, hands
 * their records to agent_loop_records() and frees *p).  False when the
 * loop has ended: l->end says why; on AGENT_FAILED *err (heap, caller
 * frees) says what went wrong, otherwise *err is NULL.
 */
bool agent_loop_next(struct agent_loop *l, struct agent_proposal *p,
    char **err);

/* The records of one of the current turn's lines, for the next turn. */
void agent_loop_records(struct agent_loop *l, const struct record *r,
    size_t n);

/*
 * How the loop ended, as shown after its last turn: nothing for a single
 * turn (the bound 1, today's behaviour) or a failure; else a trace line
 * "agent: done after K turns (--agent-turns=N)" / "agent: stopped after N
 * turns (--agent-turns=N)" / "agent: stopped after K turns
 * (--agent-turns=N): its records passed 4 MiB", K counting the turns
 * whose proposal ran; or with json one object {"agent":{"task","end":
 * "done"|"turns"|"history","turns":K}}.  No trailing newline.
 */
void agent_loop_show_end(const struct agent_loop *l, bool json,
    struct sbuf *out);

void agent_loop_free(struct agent_loop *l);

/*
 * The loop's turns as every front end runs them (-e and --batch, the
 * curses UI): each turn's proposal goes to ops->proposed before any of
 * its lines runs; then each line runs on the session's paths
 * (agent_run_line), its records go to the loop for the next turn and to
 * ops->ran (they live until it returns); before the next turn is asked,
 * ops->between (NULL: nothing).  When the loop's opts say is_cancelled
 * after a line (a UI's Ctrl-C), no further line or turn runs.  Then
 * *out says what happened; the caller shows agent_loop_show_end() or
 * the error and calls agent_loop_free().
 */
struct agent_turn_ops {
	void	(*proposed)(void *arg, const struct agent_proposal *p);
	void	(*ran)(void *arg, const char *line, const struct record *r,
		    size_t n);
	void	(*between)(void *arg, const struct agent_loop *l);
	void	*arg;
};

struct agent_run {
	size_t	 proposed;	/* the lines every turn proposed */
	bool	 stopped;	/* cancelled after a line */
	char	*err;		/* heap: why a turn failed (agent_loop_next),
				 * or NULL */
};

void agent_loop_run(struct agent_loop *l, const struct agent_turn_ops *ops,
    struct agent_run *out);

#endif
