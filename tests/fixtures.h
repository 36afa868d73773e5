/*
 * fixtures.h -- what the session-level cmocka tests share: a session with
 * an arena for its records, running one input and reading its record,
 * asking a record's file listing, the MCP server's replies to lines
 * (over memory streams), and a canary file on the host that a
 * jailed input must not be able to touch.  Test code: failures are cmocka
 * assertions, never return values.
 */
#ifndef SANDBOXREPL_TESTS_FIXTURES_H
#define SANDBOXREPL_TESTS_FIXTURES_H

#include <stdbool.h>

#include <jansson.h>

#include "record/record.h"
#include "session/session.h"

struct arena;
struct mcp_opts;

struct fx {
	struct session	*s;
	struct arena	*a;
};

/* A session made with o and an arena; free with fx_free(). */
struct fx *fx_new(const struct session_opts *o);
void fx_free(struct fx *f);
/* A cmocka teardown: fx_free(*state). */
int fx_teardown(void **state);

/* Run input on s (mask as session_run() takes it: 0 for the session's
 * paths) and assert it gave one record, on path p.  The record lives in
 * a. */
struct record *fx_run(struct session *s, struct arena *a, unsigned mask,
    enum path_id p, const char *input);

/* True when the record's file listing names name. */
bool fx_has(const struct record *r, const char *name);

/* The MCP server's replies to lines (mcp_loop() on s with options mo,
 * over memory streams: one message after another, in this process), one
 * JSON value per reply line, in an array.  s is freed. */
json_t *fx_mcp_replies(struct session *s, const struct mcp_opts *mo,
    const char *lines);

/* A file "canary" holding "canary" in a new directory (mode 0755) under
 * $TMPDIR or /tmp, named after tag: its path, or NULL when it cannot be
 * made.  fx_canary_remove() takes both away.  One canary per process. */
const char *fx_canary_new(const char *tag);
void fx_canary_remove(void);

#endif
