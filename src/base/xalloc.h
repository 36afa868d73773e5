/*
 * xalloc.h -- the one allocation path.
 *
 * Every heap allocation in sandboxrepl goes through these wrappers.  They
 * never return NULL: running out of memory is the only fatal error in the
 * program, reported once on stderr before exiting with status 1.  Sizes a
 * user controls are capped by the caller *before* they reach here.
 */
#ifndef SANDBOXREPL_XALLOC_H
#define SANDBOXREPL_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
/* Grow an array of count elements of size bytes; dies on overflow. */
void *xreallocarray(void *ptr, size_t count, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* The exit status used when memory runs out (default 1).  The jailed
 * evaluator sets JAIL_EXIT_NOMEM so the kernel's RLIMIT_AS is named. */
void xalloc_set_oom_exit(int status);
/* Report out of memory and exit; for other allocators (GMP). */
void xalloc_die(size_t size) __attribute__((noreturn));
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
