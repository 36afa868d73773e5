/*
 * arena.h -- one arena per input line.
 *
 * Tokens, the AST and every value created while one input is evaluated live
 * in the arena of that input and die together with arena_free().  Stores that
 * outlive a line (the namespace, the mock filesystems, the ledger) copy what
 * they keep into their own arena.  Objects that own memory outside the arena
 * (GMP integers) register a finaliser that arena_free() runs.
 */
#ifndef SANDBOXREPL_ARENA_H
#define SANDBOXREPL_ARENA_H

#include <stddef.h>

struct arena;

struct arena *arena_new(void);
/* Frees every block and runs every finaliser; NULL is accepted. */
void arena_free(struct arena *a);
/* Zeroed memory, aligned for any object, valid until arena_free(). */
void *arena_alloc(struct arena *a, size_t size);
/* count*size with overflow check. */
void *arena_array(struct arena *a, size_t count, size_t size);
/* Grow an arena array: old contents are copied, the old block is wasted. */
void *arena_grow(struct arena *a, void *old, size_t oldcount, size_t newcount,
    size_t size);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_printf(struct arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* fn(data) runs when the arena is freed, in reverse order of registration. */
void arena_on_free(struct arena *a, void (*fn)(void *), void *data);
/* Bytes handed out so far (for caps and benchmarks). */
size_t arena_used(const struct arena *a);

#endif
