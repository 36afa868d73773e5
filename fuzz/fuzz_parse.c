/*
 * fuzz_parse.c -- libFuzzer target: the lexer and the parser.
 *
 * The input is one REPL entry, bytes as typed (NULs and invalid UTF-8
 * included).  The lexer is pulled to its end on its own, then the parser
 * runs on the same bytes and, on an error, formats the message with its
 * caret line.  A crash, a sanitizer report or a timeout is a finding.
 * Build with `make fuzz`; run as described in fuzz/README.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "lang/lex.h"
#include "lang/parse.h"
#include "base/sbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena *a;
	struct lexer lx;
	struct parse_result r;
	size_t guard = 0;

	if (size > 1u << 20)
		return 0;
	a = arena_new();
	lex_init(&lx, a, (const char *)data, 0, (uint32_t)size);
	for (;;) {
		struct token t = lex_next(&lx);
		if (t.kind == TOK_EOF || t.kind == TOK_ERROR ||
		    ++guard > size + 16)
			break;
	}
	arena_free(a);

	a = arena_new();
	parse_input(a, (const char *)data, size, &r);
	if (r.status != PARSE_OK) {
		struct sbuf sb = SBUF_INIT;
		parse_format_error((const char *)data, size, &r.error, &sb);
		sbuf_free(&sb);
	}
	arena_free(a);
	return 0;
}
