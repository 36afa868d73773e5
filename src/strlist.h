/*
 * strlist.h -- NULL-terminated lists of names (allowlists, argument keys,
 * module rows): is a name on the list?
 */
#ifndef SANDBOXREPL_STRLIST_H
#define SANDBOXREPL_STRLIST_H

#include <stdbool.h>
#include <string.h>

static inline bool
strlist_has(const char *const *list, const char *name)
{
	for (; list != NULL && *list != NULL; list++)
		if ((*list)[0] == name[0] && strcmp(*list, name) == 0)
			return true;
	return false;
}

#endif
