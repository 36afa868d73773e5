/*
 * strlist.h -- NULL-terminated lists of names (allowlists, argument keys,
 * module rows): is a name on the list?
 */
#ifndef SANDBOXREPL_STRLIST_H
#define SANDBOXREPL_STRLIST_H

#include <stdbool.h>
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

static inline bool
strlist_has(const char *const *list, const char *name)
{
	for (; list != NULL && *list != NULL; list++)
		if (strlist_cmp(*list, name) == 0)
			return true;
	return false;
}

#endif
