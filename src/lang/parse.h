/*
 * parse.h -- the parser: one input (one REPL entry, possibly several
 * lines) to one syntax tree in the arena of that input.
 *
 * The tree is the one Python 3.11's ast module builds for the same text:
 * a lone expression gives an EXPRESSION root (ast.parse(src, 'eval')),
 * anything else (assignments, imports, several statements joined by ';'
 * or newlines) a MODULE root (ast.parse(src)).  Statements other than
 * expressions, assignments, augmented assignments and imports are
 * rejected with a SyntaxError that says so.
 *
 * Errors are values: the first error is kept with its class, CPython's
 * message and the byte span it points at.  Nothing is printed, nothing
 * exits, and nesting is capped so that hostile input cannot exhaust the
 * C stack.  Everything (tokens, nodes, names, constants, messages) lives
 * in the arena passed in and dies with it.
 */
#ifndef SANDBOXREPL_PARSE_H
#define SANDBOXREPL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ast.h"
#include "base/pyexc.h"

struct arena;
struct sbuf;

enum parse_status { PARSE_OK, PARSE_INCOMPLETE, PARSE_ERROR };

struct parse_error {
	enum pyexc_class cls;		/* PYEXC_SyntaxError (or IndentationError) */
	const char *msg;	/* arena string, CPython's wording where it has one */
	uint32_t start, end;	/* byte span the error points at */
	uint32_t line, column;	/* 1-based; column counts code points as CPython's offset does */
};

struct parse_result {
	enum parse_status status;
	struct node *root;	/* NODE_EXPRESSION for a lone expression, else NODE_MODULE; NULL unless PARSE_OK */
	struct parse_error error;	/* when PARSE_ERROR (and PARSE_INCOMPLETE: why) */
};

/* Nesting of the parser's own recursion (unary chains, not, lambda, if-else,
 * '**', brackets) past which an input is refused as too complex. */
#define PARSE_MAX_DEPTH 1000

/*
 * Parse src[0, len).  src need not be NUL-terminated and may contain NUL
 * bytes and invalid UTF-8 (both are clean errors).  PARSE_INCOMPLETE means
 * more lines could complete the input (an open bracket, an unterminated
 * triple-quoted string, a trailing backslash).  Inputs of 4 GiB or more are
 * refused.  Everything is allocated in a.
 */
void parse_input(struct arena *a, const char *src, size_t len,
    struct parse_result *out);

/*
 * "SyntaxError: MSG (column N)\n" + the offending source line + "\n" + a
 * caret line ("    ^^^") under the span, appended to out.
 */
/* Would more lines complete this input (an open bracket, an unterminated
 * triple-quoted string, a trailing backslash; or a block: a logical line
 * ending in ':' -- "for x in y:", "def f():" -- until a blank line ends
 * the input, as in Python's REPL)?  For REPLs and readers that accumulate
 * continuation lines. */
bool parse_is_incomplete(const char *src, size_t len);

void parse_format_error(const char *src, size_t len,
    const struct parse_error *e, struct sbuf *out);

#endif
