/*
 * sbuf.c -- growable byte strings.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"
#include "xalloc.h"

static void
reserve(struct sbuf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	if (need < b->len)	/* overflow */
		xreallocarray(NULL, (size_t)-1, 2);
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap * 2 > cap ? cap * 2 : need;
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
}

void
sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	reserve(b, n);
	if (n != 0)
		memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
sbuf_adds(struct sbuf *b, const char *s)
{
	sbuf_add(b, s, strlen(s));
}

void
sbuf_addc(struct sbuf *b, char c)
{
	reserve(b, 1);
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
}

void
sbuf_vaddf(struct sbuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	reserve(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sbuf_vaddf(b, fmt, ap);
	va_end(ap);
}

const char *
sbuf_cstr(struct sbuf *b)
{
	if (b->data == NULL)
		reserve(b, 0), b->data[0] = '\0';
	return b->data;
}

char *
sbuf_take(struct sbuf *b)
{
	char *p;
	sbuf_cstr(b);
	p = b->data;
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

void
sbuf_truncate(struct sbuf *b, size_t len)
{
	if (len < b->len) {
		b->len = len;
		b->data[len] = '\0';
	}
}

void
sbuf_free(struct sbuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
