/*
 * textesc.h -- the one escaping function for text that reaches a terminal
 * or a text file.
 *
 * Every string sandboxrepl did not write itself (a file name from the
 * jail, a file's contents, an agent's answer or stderr, an input) may hold
 * bytes a terminal acts on: ESC starts a control sequence (OSC 52 writes
 * the clipboard), CR and LF start a new line and so forge one.  Such text
 * is written with the characters Python's repr() escapes, escaped as
 * repr() escapes them (\n \r \t \x1b \x85 \u202e \U000e0001): every
 * character str.isprintable() rejects, and every byte that is not UTF-8
 * (as \xNN).  Inside a Python string literal (value_str_repr) the quote
 * and the backslash are escaped too; in text that is not Python they are
 * left alone, so that escaping twice changes nothing.
 */
#ifndef SANDBOXREPL_TEXTESC_H
#define SANDBOXREPL_TEXTESC_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct sbuf;

/* Longest escape of one character ("\U0010ffff") and its NUL. */
#define TEXTESC_MAX 11

/*
 * The character at s (n > 0 bytes available): returns the bytes it takes
 * (1..4) and writes to buf its escape (NUL-terminated), or "" when it is
 * printable as it is.  quote is 0 outside Python, else the literal's quote
 * character (then it and the backslash are escaped as well).
 */
size_t textesc_next(const char *s, size_t n, char quote,
    char buf[TEXTESC_MAX]);

/* Append s[0, len) escaped to out (see textesc_next for quote). */
void textesc_add(struct sbuf *out, const char *s, size_t len, char quote);

/* Python's repr() of the str s[0, len): quotes chosen as Python chooses
 * them, the inside escaped by textesc_add(). */
void textesc_repr(struct sbuf *out, const char *s, size_t len);
/* The same as a string in a (a trace line's shown input).  What it
 * returns is its own textesc_text(): printable ASCII, escapes and
 * printable characters, which nothing escapes again. */
const char *textesc_repr_in(struct arena *a, const char *s, size_t len);

/* How many of s[0, n) come before the first byte that is not plain
 * printable ASCII (0x20 to 0x7e), nor, when quote is not 0, a backslash
 * or quote: the run that escaping copies as it is. */
size_t textesc_plain_run(const char *s, size_t n, char quote);

/* Would textesc_add(quote 0) change s[0, len)? */
bool textesc_needed(const char *s, size_t len);

/* s escaped as text (quote 0), NUL-terminated in a; s itself when nothing
 * needs escaping; NULL for NULL. */
const char *textesc_text(struct arena *a, const char *s);
/* The same, with the length of what it returns in *len (unset for NULL). */
const char *textesc_text_n(struct arena *a, const char *s, size_t *len);

#endif
