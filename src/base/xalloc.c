/*
 * xalloc.c -- allocation wrappers that never return NULL.
 *
 * Out of memory is fatal: there is no sensible way to keep a session
 * consistent when malloc fails halfway through an evaluation, and every
 * size a user controls is capped long before this point.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

static int oom_exit = 1;

void
xalloc_set_oom_exit(int status)
{
	oom_exit = status;
}

void
xalloc_die(size_t size)
{
	char msg[96];
	int n = snprintf(msg, sizeof msg,
	    "sandboxrepl: out of memory (%zu bytes)\n", size);
	if (n > 0 && oom_exit == 1)
		(void)!write(2, msg, (size_t)n);
	_exit(oom_exit);
}

static void __attribute__((noreturn))
out_of_memory(size_t size)
{
	xalloc_die(size);
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (p == NULL)
		out_of_memory(size);
	return p;
}

void *
xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (p == NULL)
		out_of_memory(count * size);
	return p;
}

void *
xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (p == NULL)
		out_of_memory(size);
	return p;
}

void *
xreallocarray(void *ptr, size_t count, size_t size)
{
	if (size != 0 && count > SIZE_MAX / size)
		out_of_memory(SIZE_MAX);
	return xrealloc(ptr, count * size);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char *p;
	if (vasprintf(&p, fmt, ap) < 0)
		out_of_memory(0);
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}
