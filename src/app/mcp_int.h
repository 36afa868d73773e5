/*
 * mcp_int.h -- between the MCP protocol (mcp.c) and the loop that runs
 * its calls in parallel (mcp_calls.c).
 *
 * mcp.c knows the messages: what a line is, which revision it speaks,
 * what a request's reply is, which path a tools/call runs on.  mcp_calls.c
 * knows the processes: one worker per path, the queues, cancellation,
 * progress, batches.  The main process routes each message
 * (mcp_route); a call goes to its path's worker as a job, which the
 * worker answers with mcp_job() on its own copy of the session.
 * json_t references: "new" ones are the caller's to drop.
 */
#ifndef SANDBOXREPL_MCP_INT_H
#define SANDBOXREPL_MCP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

struct mcp;
struct session;

/* JSON-RPC error codes (and MCP's own). */
enum {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL_ERROR = -32603,
	RPC_SERVER_BUSY = -32000,	/* past the bound on calls in flight */
	RPC_UNSUPPORTED_VERSION = -32022,
};

/* The most messages one batch (2025-03-26) may hold: their replies are
 * held until its last call ends. */
#define MCP_BATCH_MAX	64

/* What one message (a JSON object) is, for the loop. */
enum mcp_verb {
	MCP_REPLY,	/* answered here: reply (NULL: no reply at all) */
	MCP_CALL,	/* a tools/call for path's worker */
	MCP_CANCEL,	/* notifications/cancelled of request id */
};

struct mcp_msg {
	enum mcp_verb	 verb;
	json_t		*reply;	/* MCP_REPLY: new, or NULL */
	json_t		*id;	/* MCP_CALL: its id; MCP_CANCEL: the id
				   cancelled; new */
	json_t		*token;	/* MCP_CALL: params._meta.progressToken
				   (a string or a number), new, or NULL */
	json_t		*job;	/* MCP_CALL: for mcp_job(), new */
	int		 path;	/* MCP_CALL: enum path_id */
};

/* A line to a message (new), or NULL with *reply the parse error. */
json_t *mcp_parse(const char *line, size_t len, json_t **reply);
/* A message object to what it is (out filled; its references new).
 * initialize, ping, tools/list and a call whose arguments are wrong are
 * answered here; a valid tools/call is MCP_CALL. */
void mcp_route(struct mcp *m, json_t *msg, struct mcp_msg *out);
/* The reply to a batch (an array) that cannot be answered as one: not
 * under a revision that has batches, or empty.  NULL: answer each
 * element (each non-object element is mcp_batch_element()'s error). */
json_t *mcp_batch_refused(const struct mcp *m, const json_t *batch);
json_t *mcp_batch_element(void);
/* A line longer than the cap, of which len bytes were kept: -32600 on
 * the id they show. */
json_t *mcp_cut(const struct mcp *m, const char *line, size_t len);
/* A JSON-RPC error on id (borrowed; NULL: null); new. */
json_t *mcp_error(json_t *id, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* In a path's worker: the reply to a job (mcp_msg.job), run on the
 * worker's session; new. */
json_t *mcp_job(struct mcp *m, json_t *job);

unsigned mcp_paths(const struct mcp *m);	/* PATH_BIT()s offered */
size_t mcp_max(const struct mcp *m);		/* a message's bytes */

/*
 * The loop over descriptors (mcp_calls.c): messages read from in, every
 * reply and notification written on out, calls run by one worker process
 * per path forked from s now (one_worker: one for every path, in order).
 * Returns 0 at EOF once every call was answered, 1 when reading, writing
 * or starting the workers failed.
 */
int mcp_calls(struct mcp *m, struct session *s, int in, FILE *out,
    bool one_worker);

#endif
