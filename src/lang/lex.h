/*
 * lex.h -- the tokenizer of the Python expression language.
 *
 * Tokens borrow the input: a token is a kind and a byte span [start,
 * start+length) of the source buffer, nothing is copied.  The lexer is
 * pulled one token at a time (lex_next) and never fails: a malformed input
 * gives a TOK_ERROR token and the reason is left in the lexer's error
 * field (CPython's wording), with is_incomplete set when more input lines
 * could complete it (an open bracket, a triple-quoted string, a trailing
 * backslash at the end of the input).
 *
 * The lexer keeps the bracket stack (at most LEX_MAX_NESTING deep, as
 * CPython's tokenizer), joins lines inside brackets and after a backslash,
 * drops comments and reports NEWLINE only between logical lines.  Strings
 * and numbers are only delimited and checked here; their values are made
 * by the parser.
 */
#ifndef SANDBOXREPL_LEX_H
#define SANDBOXREPL_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pyexc.h"

struct arena;

/* X(enum suffix, text as it appears in the source or a description) */
#define TOKEN_KINDS(X)				\
	X(EOF,          "end of input")		\
	X(NEWLINE,      "newline")		\
	X(NAME,         "name")			\
	X(NUMBER,       "number")		\
	X(STRING,       "string")		\
	X(ERROR,        "error")		\
	/* operators and delimiters (parse_*.c	\
	 * relies on LPAR..RBRACE and on	\
	 * PLUSEQUAL..ATEQUAL being runs) */	\
	X(LPAR,         "(")			\
	X(RPAR,         ")")			\
	X(LSQB,         "[")			\
	X(RSQB,         "]")			\
	X(LBRACE,       "{")			\
	X(RBRACE,       "}")			\
	X(COLON,        ":")			\
	X(COMMA,        ",")			\
	X(SEMI,         ";")			\
	X(PLUS,         "+")			\
	X(MINUS,        "-")			\
	X(STAR,         "*")			\
	X(SLASH,        "/")			\
	X(VBAR,         "|")			\
	X(AMPER,        "&")			\
	X(LESS,         "<")			\
	X(GREATER,      ">")			\
	X(EQUAL,        "=")			\
	X(DOT,          ".")			\
	X(PERCENT,      "%")			\
	X(EQEQUAL,      "==")			\
	X(NOTEQUAL,     "!=")			\
	X(LESSEQUAL,    "<=")			\
	X(GREATEREQUAL, ">=")			\
	X(TILDE,        "~")			\
	X(CIRCUMFLEX,   "^")			\
	X(LEFTSHIFT,    "<<")			\
	X(RIGHTSHIFT,   ">>")			\
	X(DOUBLESTAR,   "**")			\
	X(PLUSEQUAL,    "+=")			\
	X(MINEQUAL,     "-=")			\
	X(STAREQUAL,    "*=")			\
	X(SLASHEQUAL,   "/=")			\
	X(PERCENTEQUAL, "%=")			\
	X(AMPEREQUAL,   "&=")			\
	X(VBAREQUAL,    "|=")			\
	X(CIRCUMFLEXEQUAL, "^=")		\
	X(LEFTSHIFTEQUAL,  "<<=")		\
	X(RIGHTSHIFTEQUAL, ">>=")		\
	X(DOUBLESTAREQUAL, "**=")		\
	X(DOUBLESLASH,  "//")			\
	X(DOUBLESLASHEQUAL, "//=")		\
	X(AT,           "@")			\
	X(ATEQUAL,      "@=")			\
	X(RARROW,       "->")			\
	X(ELLIPSIS,     "...")			\
	X(COLONEQUAL,   ":=")			\
	X(EXCLAMATION,  "!")			\
	/* keywords */				\
	X(FALSE,    "False")			\
	X(NONE,     "None")			\
	X(TRUE,     "True")			\
	X(AND,      "and")			\
	X(AS,       "as")			\
	X(ASSERT,   "assert")			\
	X(ASYNC,    "async")			\
	X(AWAIT,    "await")			\
	X(BREAK,    "break")			\
	X(CLASS,    "class")			\
	X(CONTINUE, "continue")			\
	X(DEF,      "def")			\
	X(DEL,      "del")			\
	X(ELIF,     "elif")			\
	X(ELSE,     "else")			\
	X(EXCEPT,   "except")			\
	X(FINALLY,  "finally")			\
	X(FOR,      "for")			\
	X(FROM,     "from")			\
	X(GLOBAL,   "global")			\
	X(IF,       "if")			\
	X(IMPORT,   "import")			\
	X(IN,       "in")			\
	X(IS,       "is")			\
	X(LAMBDA,   "lambda")			\
	X(NONLOCAL, "nonlocal")			\
	X(NOT,      "not")			\
	X(OR,       "or")			\
	X(PASS,     "pass")			\
	X(RAISE,    "raise")			\
	X(RETURN,   "return")			\
	X(TRY,      "try")			\
	X(WHILE,    "while")			\
	X(WITH,     "with")			\
	X(YIELD,    "yield")

#define X_ENUM(e, text) TOK_##e,
enum token_kind { TOKEN_KINDS(X_ENUM) TOK__COUNT };
#undef X_ENUM

#define TOK_FIRST_KEYWORD TOK_FALSE

/* What kind of literal a NUMBER token is. */
enum number_kind { NUM_INT, NUM_FLOAT, NUM_IMAG };

/* String prefix flags of a STRING token. */
#define STR_RAW		0x01
#define STR_BYTES	0x02
#define STR_F		0x04
#define STR_U		0x08

struct token {
	enum token_kind	kind;
	uint32_t	start;		/* byte offset in the source */
	uint32_t	length;		/* bytes */
	/* NUMBER: enum number_kind.  STRING: STR_* flags. */
	uint8_t		flags;
	/* STRING: bytes of prefix and of one quote (1 or 3). */
	uint8_t		prefix_len, quote_len;
	bool		is_non_ascii;	/* NAME: needs NFKC */
};

/* CPython's tokenizer gives up at this many open brackets. */
#define LEX_MAX_NESTING 200

struct lex_error {
	enum pyexc_class	 cls;		/* PYEXC_SyntaxError,
					   PYEXC_IndentationError, ... */
	const char	*msg;		/* arena string */
	uint32_t	 start, end;	/* byte span the error points at */
	bool		 is_incomplete;
};

/* The state of one tokenisation; fields are private to lex.c. */
struct lexer {
	struct arena	*arena;
	const char	*src;
	uint32_t	 pos, end;	/* next byte, end of the range */
	uint32_t	 begin;		/* start of the range */
	unsigned	 depth;		/* open brackets */
	char		 brackets[LEX_MAX_NESTING];
	uint32_t	 bracket_pos[LEX_MAX_NESTING];
	bool		 at_line_start;	/* only whitespace since the last NEWLINE */
	bool		 emitted_any;	/* a token since the last NEWLINE */
	bool		 in_fstring;	/* lexing an f-string replacement field */
	struct lex_error error;
};

/*
 * Tokenise src[begin, end).  Offsets in tokens and errors are offsets into
 * src, so that a sub-range (an f-string field) reports positions in the
 * whole input.  Nothing is allocated until an error message is made.
 */
void lex_init(struct lexer *lx, struct arena *a, const char *src,
    uint32_t begin, uint32_t end);
/* The next token; after TOK_EOF or TOK_ERROR the same kind again. */
struct token lex_next(struct lexer *lx);
/* Test hook: lex_next() by the general scanner alone, without its fast
 * tables (tests/test_lex.c compares the two on generated inputs). */
struct token lex_next_general(struct lexer *lx);
/* "(" or "[" etc. for a token kind, or its description. */
const char *lex_token_text(enum token_kind kind);
/* Is s (NUL-terminated) a name as the lexer reads one: letters, digits,
 * '_' and non-ASCII bytes, not starting with a digit? */
bool lex_is_name(const char *s);
/* The 1-based line and the 1-based column in code points of byte off. */
void lex_position(const char *src, size_t len, uint32_t off, uint32_t *line,
    uint32_t *column);

#endif
