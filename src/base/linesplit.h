/*
 * linesplit.h -- bytes in, lines of at most a cap out.
 *
 * The one line reader of the stdio servers (--serve and --mcp, serve.c
 * and mcp_calls.c): bytes are pushed in as they arrive, in chunks of any
 * size, and each line is handed to a callback without its '\n', once
 * whole.  At most max bytes of a line are kept: a longer one is read to
 * its end, its first max bytes handed over with too_long set, the rest
 * dropped, never held.  Every other byte (NUL, '\r') is part of the line
 * as it came; an empty line is a line.  At the end of the input,
 * linesplit_end() hands over a last line that had no '\n'.
 */
#ifndef SANDBOXREPL_LINESPLIT_H
#define SANDBOXREPL_LINESPLIT_H

#include <stdbool.h>
#include <stddef.h>

#include "sbuf.h"

/* One whole line: line[0, len) (never NULL; NUL-terminated, owned by the
 * splitter until the call returns).  0 goes on; anything else stops
 * linesplit_feed() where it is and is returned by it. */
typedef int linesplit_fn(void *arg, const char *line, size_t len,
    bool too_long);

struct linesplit {
	struct sbuf	 line;		/* the line so far, at most max */
	size_t		 max;
	bool		 too_long;	/* bytes past max were dropped */
	bool		 any;		/* a line has begun */
};

void linesplit_init(struct linesplit *ls, size_t max);
/* s[0, n) in: fn for every line it ends.  0, or fn's first non-zero
 * return (the bytes after that line are not taken). */
int linesplit_feed(struct linesplit *ls, const char *s, size_t n,
    linesplit_fn *fn, void *arg);
/* The input ended: fn for the last line if it had no '\n' (its return),
 * else 0. */
int linesplit_end(struct linesplit *ls, linesplit_fn *fn, void *arg);
void linesplit_free(struct linesplit *ls);

#endif
