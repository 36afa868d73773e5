/*
 * serve.h -- the JSON Lines tool mode (--serve) for agent frameworks.
 *
 * One request per line in, one reply per line out, one session for the
 * whole loop, so filesystems, budget, ledger and names persist across
 * requests:
 *
 *   {"id": ID, "input": "TEXT", "paths": ["sandbox", ...]}   paths optional
 *   {"id": ID, "records": [RECORD, ...]}                      the reply
 *   {"id": ID|null, "error": "why"}                           a bad request
 *
 * ID is a string, a number or null, echoed as it came; a request that is
 * not an object with a readable id is answered with "id": null.  With an
 * agent (serve_opts.agent), an input starting with '?' is a task: the
 * reply also holds "task" and "proposal" (the lines the agent proposed),
 * and its records say "source": "agent".  Blank lines are skipped.  JSON
 * is read and written with jansson.  A request may name only the paths
 * the server was started with (--path, serve_opts.paths): another is an
 * error naming the allowed ones.
 */
#ifndef SANDBOXREPL_SERVE_H
#define SANDBOXREPL_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

struct agent_opts;
struct sbuf;
struct session;

/* The longest request line read; a longer one is skipped to its end and
 * answered with an error. */
#define SERVE_MAX_LINE	(1u << 20)

struct serve_opts {
	const struct agent_opts	*agent;		/* NULL: no agent tasks */
	size_t			 max_line;	/* 0: SERVE_MAX_LINE */
	unsigned		 paths;		/* PATH_BIT()s a request may
						 * name (--path); 0: any */
};

/*
 * Answer requests from in on out until EOF, flushing after each reply.
 * Returns 0 at EOF, 1 when reading in or writing out failed.
 */
int serve_loop(struct session *s, const struct serve_opts *o, FILE *in,
    FILE *out);

/*
 * The loop both stdio servers share (--serve, --mcp): lines of at most
 * max bytes from in until EOF, blank ones skipped, each answered on out
 * with answer()'s reply (a new reference, written as one line of compact
 * JSON and flushed; NULL: no reply, a notification's).  A longer line is
 * read to its end but only its first max bytes are kept, and answer() is
 * told (too_long).  Returns 0 at EOF, 1 when reading in or writing out
 * failed.
 */
typedef json_t *serve_answer_fn(void *arg, const char *line, size_t len,
    bool too_long);
int serve_lines(FILE *in, FILE *out, size_t max, serve_answer_fn *answer,
    void *arg);
/* Is the line only spaces, tabs and CRs (skipped, never answered)? */
bool serve_is_blank(const char *s, size_t len);

#endif
