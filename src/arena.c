/*
 * arena.c -- a bump allocator in chunks, with finalisers.
 *
 * Small requests are carved from the current block; a request larger than a
 * quarter of the block size gets a block of its own so that a big list does
 * not waste the rest of a block.  Everything is zeroed.
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "xalloc.h"

#define BLOCK_SIZE	(16 * 1024)
#define ALIGN		16

struct block {
	struct block	*next;
	size_t		 size;
	size_t		 used;
	_Alignas(ALIGN) unsigned char data[];
};

struct finaliser {
	struct finaliser *next;
	void		(*fn)(void *);
	void		 *data;
};

struct arena {
	struct block	 *head;
	struct finaliser *finalisers;
	size_t		  used;
};

/*
 * One arena kept for reuse: a session makes and frees an arena per input,
 * and handing the same first block back avoids a malloc and free of a
 * 16 KiB block (and glibc's consolidation of it) on every input.  Only an
 * arena that holds nothing but its first block is kept; the process is
 * single-threaded.
 */
static struct arena *spare;

struct arena *
arena_new(void)
{
	struct arena *a = spare;
	if (a != NULL) {
		spare = NULL;
		return a;
	}
	return xcalloc(1, sizeof(struct arena));
}

void
arena_free(struct arena *a)
{
	struct block *b, *next;
	struct finaliser *f, *fnext;

	if (a == NULL)
		return;
	for (f = a->finalisers; f != NULL; f = fnext) {
		fnext = f->next;
		f->fn(f->data);
	}
	a->finalisers = NULL;
	if (spare == NULL && a->head != NULL && a->head->next == NULL &&
	    a->head->size == BLOCK_SIZE) {
		/* keep it: empty, with its one block ready */
		a->head->used = 0;
		a->used = 0;
		spare = a;
		return;
	}
	for (b = a->head; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
	free(a);
}

static struct block *
new_block(size_t size)
{
	struct block *b = xmalloc(sizeof *b + size);
	b->next = NULL;
	b->size = size;
	b->used = 0;
	return b;
}

void *
arena_alloc(struct arena *a, size_t size)
{
	struct block *b = a->head;
	void *p;

	size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (size == 0)
		size = ALIGN;
	if (size > BLOCK_SIZE / 4) {
		/* A block of its own, kept behind the current one. */
		struct block *big = new_block(size);
		big->used = size;
		if (b != NULL) {
			big->next = b->next;
			b->next = big;
		} else
			a->head = big;
		a->used += size;
		memset(big->data, 0, size);
		return big->data;
	}
	if (b == NULL || b->size - b->used < size) {
		b = new_block(BLOCK_SIZE);
		b->next = a->head;
		a->head = b;
	}
	p = b->data + b->used;
	b->used += size;
	a->used += size;
	memset(p, 0, size);
	return p;
}

void *
arena_array(struct arena *a, size_t count, size_t size)
{
	if (size != 0 && count > SIZE_MAX / size / 2)
		return xreallocarray(NULL, SIZE_MAX, 2);	/* dies */
	return arena_alloc(a, count * size);
}

void *
arena_grow(struct arena *a, void *old, size_t oldcount, size_t newcount,
    size_t size)
{
	void *p = arena_array(a, newcount, size);
	if (old != NULL && oldcount != 0)
		memcpy(p, old, (oldcount < newcount ? oldcount : newcount) * size);
	return p;
}

char *
arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	return p;
}

char *
arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *
arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	char *tmp, *p;

	va_start(ap, fmt);
	tmp = xvasprintf(fmt, ap);
	va_end(ap);
	p = arena_strdup(a, tmp);
	free(tmp);
	return p;
}

void
arena_on_free(struct arena *a, void (*fn)(void *), void *data)
{
	struct finaliser *f = arena_alloc(a, sizeof *f);
	f->fn = fn;
	f->data = data;
	f->next = a->finalisers;
	a->finalisers = f;
}

size_t
arena_used(const struct arena *a)
{
	return a->used;
}
