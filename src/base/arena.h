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

#include <stdbool.h>
#include <stddef.h>

struct arena;

/*
 * A meter: the memory a group of arenas holds, against a cap.  An arena
 * on a meter adds the size of every block it takes from the system and of
 * every charge (memory held outside the arena for its values: GMP limbs,
 * buffers about to be copied), and takes them off again when it is freed.
 *
 * An arena cannot refuse a request (its callers do not check), so the cap
 * is kept by those who know a size before they allocate: rt_check_bytes()
 * (rt.h) compares held + size with limit.  What slips past them in small
 * pieces sets over when a block takes held past limit, and the
 * evaluator's next step refuses (rt_step): an overshoot of one block.
 */
struct meter {
	size_t	 held;		/* bytes, blocks and charges */
	size_t	 limit;		/* 0: no cap */
	bool	 over;		/* held went past limit */
	const char *note;	/* said after a refusal's figure, or NULL */
};

struct arena *arena_new(void);
/* Frees every block and runs every finaliser; NULL is accepted. */
void arena_free(struct arena *a);
/* Zeroed memory, aligned for any object, valid until arena_free(). */
void *arena_alloc(struct arena *a, size_t size);
/*
 * Many small objects without a call each (the parser's nodes): a bump
 * pointer over chunks this arena hands out, 8-byte aligned, zeroed and
 * valid until arena_free() like the rest.  Chunks double from 1 KiB to
 * 64 KiB, so a one-line input costs one small chunk and a megabyte of
 * nodes no per-node call; a request of more than a quarter of a chunk
 * goes to arena_alloc() itself.  Start from { a } (the rest zero); a copy
 * carries on where the original stopped, and the original must not be
 * used again until it is copied back (the parser's f-string sub-parsers).
 */
struct arena_bump {
	struct arena	*a;
	char		*next;		/* the chunk's unused, zeroed bytes */
	size_t		 left, chunk_size;
};
void *arena_bump_slow(struct arena_bump *b, size_t size)
    __attribute__((noinline));

static inline void *
arena_bump(struct arena_bump *b, size_t size)
{
	void *r;
	size = (size + 7) & ~(size_t)7;
	if (size > b->left)
		return arena_bump_slow(b, size);
	r = b->next;
	b->next += size;
	b->left -= size;
	return r;
}

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
/* Does p point into one of a's blocks?  (A walk over the blocks.) */
bool arena_owns(const struct arena *a, const void *p);
/* Bytes the arena holds: its blocks and its charges. */
size_t arena_held(const struct arena *a);
/*
 * Put a on meter m (NULL: on none): what a holds moves from its old meter
 * to m.  A meter must outlive the arenas on it, or take them off first.
 */
void arena_set_meter(struct arena *a, struct meter *m);
/* Count bytes held elsewhere for a's values until a is freed. */
void arena_charge(struct arena *a, size_t bytes);

#endif
