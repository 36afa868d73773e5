/*
 * sbuf.h -- a growable byte string on the heap.
 *
 * The owner calls sbuf_free(); sbuf_take() hands the NUL-terminated buffer
 * over to the caller and leaves the sbuf empty.  Used for repr, trace lines
 * and dumps, where the result is copied into an arena or printed.
 */
#ifndef SANDBOXREPL_SBUF_H
#define SANDBOXREPL_SBUF_H

#include <stdarg.h>
#include <stddef.h>

struct sbuf {
	char	*data;	/* NUL-terminated when len > 0 or after sbuf_cstr */
	size_t	 len;
	size_t	 cap;
};

#define SBUF_INIT { NULL, 0, 0 }

void sbuf_add(struct sbuf *b, const char *s, size_t n);
void sbuf_adds(struct sbuf *b, const char *s);
void sbuf_addc(struct sbuf *b, char c);
void sbuf_addf(struct sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sbuf_vaddf(struct sbuf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Always a valid C string ("" when empty); owned by b. */
const char *sbuf_cstr(struct sbuf *b);
char *sbuf_take(struct sbuf *b);
void sbuf_truncate(struct sbuf *b, size_t len);
void sbuf_free(struct sbuf *b);

#endif
