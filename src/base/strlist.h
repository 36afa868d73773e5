/*
 * strlist.h -- NULL-terminated lists of names (allowlists, argument keys,
 * module rows): is a name on the list?  And arrays of entries kept
 * sorted by a name: where is a name, or where would it go?
 */
#ifndef SANDBOXREPL_STRLIST_H
#define SANDBOXREPL_STRLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* strcmp() for the short names these lists hold, inline: a name is
 * a few bytes, and a call into libc costs more than comparing them. */
static inline int
strlist_cmp(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

/* The row of name in list, or -1. */
static inline long
strlist_index(const char *const *list, const char *name)
{
	long i;
	/* (the first byte rules out most rows without the loop) */
	for (i = 0; list != NULL && list[i] != NULL; i++)
		if (list[i][0] == name[0] && strlist_cmp(list[i], name) == 0)
			return i;
	return -1;
}

static inline bool
strlist_has(const char *const *list, const char *name)
{
	return strlist_index(list, name) >= 0;
}

/*
 * Binary search in an array of n entries of size bytes, sorted by the
 * "const char *" or "char *" member at offset name_off (offsetof): the
 * index of name with *found true, or where it would be inserted to keep
 * the order with *found false.  The mock filesystem and the --state
 * directory's file lists share it.
 */
static inline size_t
sorted_find(const void *base, size_t n, size_t size, size_t name_off,
    const char *name, bool *found)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *at;
		int c;
		memcpy(&at, (const char *)base + mid * size + name_off,
		    sizeof at);
		c = strcmp(at, name);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

#endif
