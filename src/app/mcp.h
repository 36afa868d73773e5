/*
 * mcp.h -- the Model Context Protocol server (--mcp): sandboxrepl's
 * boundary as a code tool any agent host can attach over stdio.
 *
 * JSON-RPC 2.0, one message per line in and out, as the MCP stdio
 * transport says.  The server is dual-era: it serves the current revision
 * (2026-07-28: no handshake, every request carries its protocol version
 * and client capabilities in params._meta, server/discover) and, after an
 * initialize request, the handshake revisions 2025-11-25, 2025-06-18,
 * 2025-03-26 and 2024-11-05, negotiated as their lifecycle says; under
 * 2025-03-26, the only one that has them, JSON-RPC batches too (an array
 * of messages answered with one array).
 *
 * Calls run in parallel (mcp_calls.c): one worker process per path, each
 * with its copy of the session, so a quick call on one path never waits
 * for a slow one on another, and calls on one path keep their order; at
 * most 16 wait or run at once (one more is error -32000).  A
 * notifications/cancelled interrupts its call as Ctrl-C does and no reply
 * is ever sent for it; a call with params._meta.progressToken gets
 * notifications/progress about once a second after its first.
 *
 * Seven tools: run_code {code, boundary} runs code on one of the session's
 * paths exactly as typed input; read_file, write_file, delete_file,
 * list_files, http_get and the shell, run_shell {cmd} (a typed !ls), are
 * the computer-use commands (cmd.h), their argument
 * schemas made from the command table, typed on the default path as
 * `read_file({'path': ...})` would be.  tools/list holds run_code and the
 * commands the default path's boundary can let through (the sandbox's
 * policy: unless --policy names one, the MCP default, the essay's with
 * list_files; see README).  Every call runs through
 * session_run() on its path's worker's copy of the session the loop was
 * given, so each path's files, names, budget and ledger live as long as
 * its worker (the process, unless the worker dies).  A result holds the trace
 * line (its input echo cut at 1 KiB) as text, and the record
 * (record_to_json) less its line as structuredContent under a declared
 * outputSchema (a text of its own before 2025-06-18); a step the boundary
 * blocked, contained or that failed is a result with isError true, never a
 * protocol error.  What is wrong with a message is a JSON-RPC error
 * (-32700, -32600, -32601, -32602, -32022) and the loop goes on; a call
 * whose worker died is -32603.
 */
#ifndef SANDBOXREPL_MCP_H
#define SANDBOXREPL_MCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct session;

/* The longest message read; a longer one is read to its end without being
 * kept and answered with -32600 (on its id when the first MCP_MAX_LINE
 * bytes show it). */
#define MCP_MAX_LINE	((size_t)4 << 20)

struct mcp_opts {
	unsigned	 paths;		/* PATH_BIT()s the tools may use;
					   0: every path */
	size_t		 max_line;	/* 0: MCP_MAX_LINE */
	bool		 one_worker;	/* one worker runs every path's
					   calls, in order: the session
					   keeps a --state directory, which
					   has one writer */
	bool		 policy_set;	/* --policy named the sandbox's
					   policy; else the MCP default
					   (mcp.c) replaces the session's */
	bool		 jail_filter;	/* --jail-filter: the jails check
					   the policy first */
};

/*
 * Answer messages from in on out until EOF (and every call's end),
 * flushing after each reply.  Writes block while the client does not
 * read (nothing is queued).  When in and out have descriptors, the
 * workers are forked from s now, s itself never runs an input, and they
 * are ended and reaped before this returns; memory streams (fmemopen)
 * are answered one message after another on s in this process, where a
 * cancel always comes after its reply.  Returns 0 at EOF, 1 when reading
 * in, writing out or starting the workers failed.
 */
int mcp_loop(struct session *s, const struct mcp_opts *o, FILE *in,
    FILE *out);

/* The protocol revisions served, newest first, NULL-terminated. */
extern const char *const mcp_versions[];

#endif
