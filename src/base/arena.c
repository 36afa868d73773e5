/*
 * arena.c -- a bump allocator in chunks, with finalisers.
 *
 * Small requests are carved from the current block; a request larger than a
 * quarter of the next block's size gets a block of its own so that a big
 * list does not waste the rest of a block.  Everything is zeroed.
 *
 * A block is zeroed ahead of the requests, a kilobyte at a time (a mapped
 * block comes zeroed from the kernel), so a request is a bump of a
 * pointer and rarely a memset, and the part of a block never handed out
 * is never cleared.
 *
 * Block sizes double from 16 KiB to 4 MiB as an arena grows: a one-line
 * input costs one small block, a megabyte of input a few dozen blocks
 * instead of thousands.  Blocks of 2 MiB and more are mapped directly,
 * aligned to 2 MiB and marked MADV_HUGEPAGE: an input that needs tens of
 * MiB of nodes then takes a few dozen page faults instead of thousands
 * (where transparent huge pages are enabled for madvise), and unmapping
 * gives the memory back to the system at once.  Only touched pages count
 * against RSS, so the unused tail of a big block costs address space only.
 *
 * arena_bump() carves many small objects from chunks of a block with no
 * call each: the parser's nodes, a megabyte of them for a megabyte of
 * "1+1+...".
 *
 * An arena counts the bytes of its blocks (and what is charged to it) and
 * tells its meter, if it has one: that count is what the memory caps of
 * an input and a session are held against (rt_check_bytes, session.c).
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arena.h"
#include "xalloc.h"

#define BLOCK_SIZE	(16 * 1024)
#define MAX_BLOCK_SIZE	(4u * 1024 * 1024)
#define HUGE_SIZE	(2u * 1024 * 1024)	/* a transparent huge page */
#define ALIGN		16

struct block {
	struct block	*next;
	size_t		 size;		/* of data[] */
	size_t		 used;
	size_t		 zeroed;	/* data[0, zeroed) is known zero */
	size_t		 map_size;	/* bytes mapped, or 0: malloc'd */
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
	size_t		  next_size;	/* of the next shared block */
	size_t		  held;		/* blocks and charges, in bytes */
	struct meter	 *meter;	/* or NULL */
};

/* a holds bytes more: its meter learns of it. */
static void
hold(struct arena *a, size_t bytes)
{
	struct meter *m = a->meter;
	a->held += bytes;
	if (m != NULL) {
		m->held += bytes;
		if (m->limit != 0 && m->held > m->limit)
			m->over = true;
	}
}

static size_t
block_bytes(const struct block *b)
{
	return b->map_size ? b->map_size : sizeof *b + b->size;
}

/*
 * A few arenas kept for reuse: a session makes and frees two or three
 * arenas per input, and handing the same first blocks back avoids a
 * malloc and free of a 16 KiB block (and glibc's consolidation of it) on
 * every input.  Only an arena that holds nothing but its first block, or
 * never held anything, is kept; the process is single-threaded.
 */
#define NSPARES 4
static struct arena *spares[NSPARES];
static size_t nspares;

struct arena *
arena_new(void)
{
	struct arena *a;
	if (nspares > 0)
		return spares[--nspares];
	a = xcalloc(1, sizeof(struct arena));
	a->next_size = BLOCK_SIZE;
	return a;
}

/*
 * Mapped blocks kept for the next big input, up to CACHE_BYTES: an input
 * of a megabyte needs tens of MiB, and mapping them afresh each time has
 * the kernel clear every huge page before it is handed over (a fifth of
 * the time of such an input).  A kept block is cleared again as it is
 * handed out, a kilobyte ahead of the requests, which the requests then
 * find in cache.
 */
#define NCACHED		16
#define CACHE_BYTES	(64u * 1024 * 1024)
static struct block *cached[NCACHED];
static size_t ncached, cached_bytes;
static pid_t cached_pid;	/* the process whose blocks these are */

static void
block_free(struct block *b)
{
	if (b->map_size == 0)
		free(b);
	else if (ncached < NCACHED && cached_bytes + b->map_size <= CACHE_BYTES) {
		/*
		 * Not inherited by a fork: a jailed child has no use for
		 * them, and fork() would copy their page tables.  (So a
		 * child must not take them: cached_pid.)
		 */
		(void)madvise(b, b->map_size, MADV_DONTFORK);
		if (ncached == 0)
			cached_pid = getpid();
		cached[ncached++] = b;
		cached_bytes += b->map_size;
	} else
		munmap(b, b->map_size);
}

/* A kept block of len bytes or a little more (an eighth: a meter counts
 * the whole block, and a namespace keeps it), or NULL. */
static struct block *
cached_block(size_t len)
{
	size_t i;
	if (ncached > 0 && cached_pid != getpid()) {
		/* a forked child: the blocks were not inherited */
		ncached = 0;
		cached_bytes = 0;
	}
	for (i = ncached; i > 0; i--) {
		struct block *b = cached[i - 1];
		if (b->map_size >= len && b->map_size <= len + len / 8) {
			cached[i - 1] = cached[--ncached];
			cached_bytes -= b->map_size;
			(void)madvise(b, b->map_size, MADV_DOFORK);
			b->size = b->map_size - sizeof *b;
			b->zeroed = 0;
			return b;
		}
	}
	return NULL;
}

/* arena_free()'s rarer ways, out of line (their calls made every free
 * save registers): the finalisers, and freeing the blocks. */
static void __attribute__((noinline))
run_finalisers(struct arena *a)
{
	struct finaliser *f, *fnext;

	for (f = a->finalisers; f != NULL; f = fnext) {
		fnext = f->next;
		f->fn(f->data);
	}
	a->finalisers = NULL;
}

static void __attribute__((noinline))
free_blocks(struct arena *a)
{
	struct block *b, *next;

	for (b = a->head; b != NULL; b = next) {
		next = b->next;
		block_free(b);
	}
	free(a);
}

void
arena_free(struct arena *a)
{
	struct block *h;
	size_t used;

	if (a == NULL)
		return;
	if (a->finalisers != NULL)
		run_finalisers(a);
	arena_set_meter(a, NULL);
	h = a->head;
	if (nspares < NSPARES && h != NULL && h->next == NULL &&
	    h->map_size == 0 && h->size == BLOCK_SIZE - sizeof(struct block)) {
		/* keep it: empty, with its one block ready.  What was
		 * handed out is zeroed now, exactly, so the block stays
		 * zero as far as it was: the next input's requests need no
		 * zeroing (it was a kilobyte at a time, ahead, as they came:
		 * two or three kilobytes for a --batch input of 1,900 bytes
		 * used) */
		used = h->used;
		h->used = 0;
		a->used = 0;
		a->held = block_bytes(h);
		a->next_size = 2 * BLOCK_SIZE;	/* as after its first block */
		spares[nspares++] = a;
		memset(h->data, 0, used);	/* (last: no frame for it) */
		return;
	}
	if (nspares < NSPARES && h == NULL && a->held == 0) {
		/* one that never held a byte (a path whose evaluation made
		 * no value of its own: the essay's), as arena_new makes it */
		a->used = 0;
		a->next_size = BLOCK_SIZE;
		spares[nspares++] = a;
		return;
	}
	free_blocks(a);
}

/* len fresh bytes (a multiple of HUGE_SIZE) at a HUGE_SIZE boundary. */
static struct block *
map_huge(size_t len, size_t need)
{
	struct block *b;
	unsigned char *m = mmap(NULL, len + HUGE_SIZE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t at;
	size_t lead;

	if (m == MAP_FAILED)
		xalloc_die(need);
	at = ((uintptr_t)m + HUGE_SIZE - 1) & ~(uintptr_t)(HUGE_SIZE - 1);
	lead = at - (uintptr_t)m;
	if (lead > 0)
		munmap(m, lead);
	if (HUGE_SIZE - lead > 0)
		munmap((unsigned char *)at + len, HUGE_SIZE - lead);
#ifdef MADV_HUGEPAGE
	(void)madvise((void *)at, len, MADV_HUGEPAGE);
#endif
	b = (struct block *)at;
	b->map_size = len;
	b->size = len - sizeof *b;
	b->zeroed = b->size;
	return b;
}

/*
 * A zeroed block with room for size bytes.  From 2 MiB on it is mapped
 * at a 2 MiB boundary, in whole huge pages, and offered to the kernel for
 * transparent huge pages; the slack of the alignment is unmapped again.
 */
static struct block *
new_block(size_t size)
{
	struct block *b;
	size_t need = sizeof *b + size;

	if (size > SIZE_MAX - sizeof *b - 2 * HUGE_SIZE)
		xalloc_die(size);
	if (need >= HUGE_SIZE) {
		size_t len = (need + HUGE_SIZE - 1) & ~(size_t)(HUGE_SIZE - 1);
		/* a kept block is zeroed as it is handed out */
		b = cached_block(len);
		if (b == NULL)
			b = map_huge(len, need);
	} else {
		b = xmalloc(need);
		b->map_size = 0;
		b->size = size;
		b->zeroed = 0;
	}
	b->next = NULL;
	b->used = 0;
	return b;
}

/*
 * Zero b's data up to at least upto, a kilobyte ahead: few enough calls,
 * and small enough that memset stores vectors (from 2 KiB on glibc's
 * memset switches to rep stosb, which starts slowly).
 */
#define ZERO_AHEAD	1024

static void * __attribute__((noinline))
zero_to(struct block *b, size_t upto, void *p)
{
	size_t z = (upto + ZERO_AHEAD - 1) & ~(size_t)(ZERO_AHEAD - 1);
	if (z > b->size)
		z = b->size;
	memset(b->data + b->zeroed, 0, z - b->zeroed);
	b->zeroed = z;
	return p;	/* (so that arena_alloc's call is its last) */
}

/* arena_alloc() when the head block is full (or there is none): out of
 * line, so that the common case saves no registers. */
static void * __attribute__((noinline))
alloc_slow(struct arena *a, size_t size)
{
	struct block *b = a->head;
	void *p;

	if (size > a->next_size / 4) {
		/* A block of its own, kept behind the current one; the
		 * arena is growing, so the next shared block grows too. */
		struct block *big = new_block(size);
		hold(a, block_bytes(big));
		if (a->next_size < MAX_BLOCK_SIZE)
			a->next_size *= 2;
		big->used = size;
		if (big->zeroed < size)
			(void)zero_to(big, size, NULL);
		if (b != NULL) {
			big->next = b->next;
			b->next = big;
		} else
			a->head = big;
		a->used += size;
		return big->data;
	}
	/* (the header inside the size: a 2 MiB block is one huge page) */
	b = new_block(a->next_size - sizeof *b);
	hold(a, block_bytes(b));
	if (a->next_size < MAX_BLOCK_SIZE)
		a->next_size *= 2;
	b->next = a->head;
	a->head = b;
	p = b->data;
	b->used = size;
	if (b->zeroed < size)
		(void)zero_to(b, size, NULL);
	a->used += size;
	return p;
}

/*
 * The common case, a request that fits in the head block, takes a dozen
 * instructions: a --batch input makes a dozen requests, and this function
 * spent forty on each while the rare paths shared its frame.
 */
void *
arena_alloc(struct arena *a, size_t size)
{
	struct block *b = a->head;
	unsigned char *p;

	size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (size == 0)
		size = ALIGN;
	if (b == NULL || b->size - b->used < size)
		return alloc_slow(a, size);
	p = b->data + b->used;
	b->used += size;
	a->used += size;
	return b->used > b->zeroed ? zero_to(b, b->used, p) : p;
}

/* A new chunk (or, for a big request, the arena itself). */
void *
arena_bump_slow(struct arena_bump *b, size_t size)
{
	size_t next = b->chunk_size == 0 ? 1024 :
	    b->chunk_size < 65536 ? b->chunk_size * 2 : 65536;
	if (size > next / 4)
		return arena_alloc(b->a, size);
	b->chunk_size = next;
	b->next = arena_alloc(b->a, b->chunk_size);
	b->left = b->chunk_size;
	return arena_bump(b, size);
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

bool
arena_owns(const struct arena *a, const void *p)
{
	const struct block *b;
	for (b = a->head; b != NULL; b = b->next)
		if ((const unsigned char *)p >= b->data &&
		    (const unsigned char *)p < b->data + b->used)
			return true;
	return false;
}

size_t
arena_held(const struct arena *a)
{
	return a->held;
}

void
arena_set_meter(struct arena *a, struct meter *m)
{
	if (a->meter != NULL) {
		a->meter->held -= a->held;
		if (a->meter->limit == 0 || a->meter->held <= a->meter->limit)
			a->meter->over = false;
	}
	a->meter = NULL;
	if (m != NULL) {
		size_t held = a->held;
		a->held = 0;
		a->meter = m;
		hold(a, held);
	}
}

void
arena_charge(struct arena *a, size_t bytes)
{
	hold(a, bytes);
}
