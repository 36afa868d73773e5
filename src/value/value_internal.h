/*
 * value_internal.h -- what the value layer's files share and nobody else
 * needs.
 *
 * value.c owns the storage of values; compare.c, repr.c and operator.c,
 * above it, read and fill that storage directly: a list's or tuple's
 * items, the slots of an object of the layers above, the dict/set
 * table's index, the order CPython's set table would list a set in.
 */
#ifndef SANDBOXREPL_VALUE_INTERNAL_H
#define SANDBOXREPL_VALUE_INTERNAL_H

#include <stddef.h>

#include "value.h"

struct arena;

/* The slots of an object of the layers above (value.h); NULL for the
 * value layer's own types. */
static inline const struct value_slots *
slots_of(value v)
{
	if (v.type == VT_OBJECT)
		return ((const struct vhead *)(const void *)v.as.obj)->slots;
	if (v.type == VT_FUNCTION)
		return ((const struct vhead *)(const void *)v.as.func)->slots;
	return NULL;
}

/* The length of a list or tuple (0 for anything else). */
static inline size_t
seq_len(value v)
{
	switch (v.type) {
	case VT_LIST: return v.as.list->len;
	case VT_TUPLE: return v.as.tuple->len;
	default: return 0;
	}
}

/* The items of a list or tuple. */
static inline value *
seq_items(value v)
{
	return v.type == VT_LIST ? v.as.list->items : v.as.tuple->items;
}

/* Compact d's live entries and index them afresh in a table of nindex
 * slots (a power of two, more than the entries), allocated in a. */
void value_dict_reindex(struct arena *a, struct vdict *d, size_t nindex);

/* The entries of set d (their numbers in d->entries), in the order
 * CPython's set would list them; *count of them.  The caller frees. */
size_t *value_set_order(const struct vdict *d, size_t *count);

#endif
