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
 * is read and written with jansson.
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
};

/*
 * Answer requests from in on out until EOF, flushing after each reply.
 * Returns 0 at EOF, 1 when reading in or writing out failed.
 */
int serve_loop(struct session *s, const struct serve_opts *o, FILE *in,
    FILE *out);

/*
 * The line reader both stdio loops share (--serve, --mcp): one line of at
 * most max bytes into line, without its newline.  A longer line is read to
 * its end but only its first max bytes are kept (*too_long is set), so a
 * huge line never grows the buffer past max.  Returns 1 for a line, 0 at
 * EOF, -1 when reading failed.
 */
int serve_read_line(FILE *in, size_t max, struct sbuf *line, bool *too_long);
/* Only spaces, tabs and CRs. */
bool serve_is_blank(const char *s, size_t len);
/* Write reply as one line of compact JSON (streamed, never held whole:
 * see record_json_write), flush, and drop the reference.  0, or -1 when
 * out failed. */
int serve_write_reply(FILE *out, json_t *reply);

#endif
