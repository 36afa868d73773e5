/*
 * methods_list.c -- the methods of list and of tuple (index and count,
 * which the two share).
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "methods_int.h"
#include "value/rt.h"
#include "base/sbuf.h"
#include "value/value.h"

/* ================================================================ */
/* list                                                              */
/* ================================================================ */

METHOD(list_append)
{
	if (!one_arg(rt, "list.append", nargs, nkw) ||
	    !rt_check_seq_len(rt, self.as.list->len + 1))
		return false;
	value_list_append(rt->arena, self, args[0]);
	note_mutation(rt);
	*out = value_none();
	return true;
}

/* The items of any iterable, as a fresh list. */
bool
items_of(struct rt *rt, value it, value *out)
{
	return value_collect(rt, it, out);
}

METHOD(list_extend)
{
	value items;
	size_t i;
	if (!one_arg(rt, "list.extend", nargs, nkw))
		return false;
	/* collect first: x.extend(x) adds x's items once */
	if (!items_of(rt, args[0], &items) ||
	    !rt_check_seq_len(rt, self.as.list->len + items.as.list->len))
		return false;
	for (i = 0; i < items.as.list->len; i++)
		value_list_append(rt->arena, self, items.as.list->items[i]);
	note_mutation(rt);
	*out = value_none();
	return true;
}

METHOD(list_insert)
{
	struct vlist *l = self.as.list;
	int64_t at;
	if (!pos_args(rt, "list.insert", 2, 2, nargs, nkw) ||
	    !arg_index(rt, args[0], &at) ||
	    !rt_check_seq_len(rt, l->len + 1))
		return false;
	if (at < 0) {
		at += (int64_t)l->len;
		if (at < 0)
			at = 0;
	}
	if (at > (int64_t)l->len)
		at = (int64_t)l->len;
	value_list_append(rt->arena, self, value_none());
	memmove(l->items + at + 1, l->items + at,
	    (l->len - 1 - (size_t)at) * sizeof *l->items);
	l->items[at] = args[1];
	note_mutation(rt);
	*out = value_none();
	return true;
}

METHOD(list_pop)
{
	struct vlist *l = self.as.list;
	int64_t at = -1;
	if (!pos_args(rt, "list.pop", 0, 1, nargs, nkw))
		return false;
	if (nargs == 1 && !arg_index(rt, args[0], &at))
		return false;
	if (l->len == 0)
		return rt_raise(rt, PYEXC_IndexError, "pop from empty list");
	if (at < 0)
		at += (int64_t)l->len;
	if (at < 0 || at >= (int64_t)l->len)
		return rt_raise(rt, PYEXC_IndexError, "pop index out of range");
	*out = l->items[at];
	memmove(l->items + at, l->items + at + 1,
	    (l->len - 1 - (size_t)at) * sizeof *l->items);
	l->len--;
	note_mutation(rt);
	return true;
}

/* The first index in [start, end) holding an item equal to x, or -1. */
static bool
seq_find(struct rt *rt, const value *items, size_t len, value x,
    int64_t start, int64_t end, int64_t *at)
{
	int64_t i;
	adjust_bounds((int64_t)len, &start, &end);
	*at = -1;
	for (i = start; i < end && i < (int64_t)len; i++) {
		bool eq;
		if (!value_eq(rt, items[i], x, &eq))
			return false;
		if (eq) {
			*at = i;
			return true;
		}
	}
	return true;
}

METHOD(list_remove)
{
	struct vlist *l = self.as.list;
	int64_t at;
	if (!one_arg(rt, "list.remove", nargs, nkw) ||
	    !seq_find(rt, l->items, l->len, args[0], 0, INT64_MAX, &at))
		return false;
	if (at < 0)
		return rt_raise(rt, PYEXC_ValueError,
		    "list.remove(x): x not in list");
	memmove(l->items + at, l->items + at + 1,
	    (l->len - 1 - (size_t)at) * sizeof *l->items);
	l->len--;
	note_mutation(rt);
	*out = value_none();
	return true;
}

static bool
seq_index(struct rt *rt, value self, const char *qual, const value *items,
    size_t len, const value *args, size_t nargs, size_t nkw, value *out)
{
	int64_t start = 0, end = INT64_MAX, at;
	if (!pos_args(rt, qual, 1, 3, nargs, nkw))
		return false;
	if (nargs > 1 && !arg_slice_bound(rt, args[1], false, 0, &start))
		return false;
	if (nargs > 2 && !arg_slice_bound(rt, args[2], false, 0, &end))
		return false;
	if (!seq_find(rt, items, len, args[0], start, end, &at))
		return false;
	if (at >= 0) {
		*out = value_int(at);
		return true;
	}
	if (self.type == VT_TUPLE)
		return rt_raise(rt, PYEXC_ValueError,
		    "tuple.index(x): x not in tuple");
	{
		struct sbuf b = SBUF_INIT;
		if (value_repr(rt, args[0], &b))
			rt_raise(rt, PYEXC_ValueError, "%s is not in list",
			    sbuf_cstr(&b));
		sbuf_free(&b);
		return false;
	}
}

static bool
seq_count(struct rt *rt, const char *qual, const value *items, size_t len,
    const value *args, size_t nargs, size_t nkw, value *out)
{
	size_t i;
	int64_t n = 0;
	if (!one_arg(rt, qual, nargs, nkw))
		return false;
	for (i = 0; i < len; i++) {
		bool eq;
		if (!value_eq(rt, items[i], args[0], &eq))
			return false;
		n += eq;
	}
	*out = value_int(n);
	return true;
}

METHOD(list_index)
{
	return seq_index(rt, self, "list.index", self.as.list->items,
	    self.as.list->len, args, nargs, nkw, out);
}

METHOD(list_count)
{
	return seq_count(rt, "list.count", self.as.list->items,
	    self.as.list->len, args, nargs, nkw, out);
}

METHOD(tuple_index)
{
	return seq_index(rt, self, "tuple.index", self.as.tuple->items,
	    self.as.tuple->len, args, nargs, nkw, out);
}

METHOD(tuple_count)
{
	return seq_count(rt, "tuple.count", self.as.tuple->items,
	    self.as.tuple->len, args, nargs, nkw, out);
}

/*
 * sort(*, key=None, reverse=False): a stable merge sort on (key, item)
 * pairs.  Like CPython, reverse keeps equal items in their order (the
 * list is reversed, sorted, reversed back), and the comparison is "<"
 * only.  If a comparison fails the list is left as it was.
 */
struct sort_item {
	value	key;
	value	item;
};

static bool
merge_sort(struct rt *rt, struct sort_item *a, struct sort_item *tmp,
    size_t n)
{
	size_t mid = n / 2, i = 0, j, k = 0;
	if (n < 2)
		return true;
	if (!merge_sort(rt, a, tmp, mid) ||
	    !merge_sort(rt, a + mid, tmp, n - mid))
		return false;
	j = mid;
	while (i < mid && j < n) {
		value lt;
		if (!rt_step(rt) ||
		    !value_compare(rt, CMPOP_LT, a[j].key, a[i].key, &lt))
			return false;
		if (lt.type != VT_BOOL) {
			bool t;
			if (!value_truthy(rt, lt, &t))
				return false;
			lt = value_bool(t);
		}
		tmp[k++] = lt.as.b ? a[j++] : a[i++];
	}
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof *a);
	return true;
}

static void
reverse_items(struct sort_item *a, size_t n)
{
	size_t i;
	for (i = 0; i < n / 2; i++) {
		struct sort_item t = a[i];
		a[i] = a[n - 1 - i];
		a[n - 1 - i] = t;
	}
}

METHOD(list_sort)
{
	static const struct param params[] = {
		{ "key", true }, { "reverse", true },
	};
	struct vlist *l = self.as.list;
	value a[2];
	bool given[2], reverse = false;
	struct sort_item *items, *tmp;
	size_t i, n = l->len;

	if (!kw_args(rt, "sort", params, 2, args, nargs, kwnames, nkw, a,
	    given))
		return false;
	if (given[1]) {
		int64_t r;
		if (!arg_index(rt, a[1], &r))
			return false;
		reverse = r != 0;
	}
	items = arena_array(rt->arena, n + 1, sizeof *items);
	tmp = arena_array(rt->arena, n + 1, sizeof *tmp);
	for (i = 0; i < n; i++) {
		items[i].item = l->items[i];
		items[i].key = l->items[i];
		if (a[0].type != VT_NONE) {
			if (rt->call == NULL)
				return rt_raise(rt, PYEXC_TypeError,
				    "'%s' object is not callable",
				    value_type_name(a[0]));
			if (!rt->call(rt, a[0], &l->items[i], 1, &items[i].key))
				return false;
		}
	}
	if (reverse)
		reverse_items(items, n);
	if (!merge_sort(rt, items, tmp, n))
		return false;
	if (reverse)
		reverse_items(items, n);
	for (i = 0; i < n && i < l->len; i++)
		l->items[i] = items[i].item;
	*out = value_none();
	return true;
}

METHOD(list_reverse)
{
	struct vlist *l = self.as.list;
	size_t i;
	if (!no_args(rt, "list.reverse", nargs, nkw))
		return false;
	for (i = 0; i < l->len / 2; i++) {
		value t = l->items[i];
		l->items[i] = l->items[l->len - 1 - i];
		l->items[l->len - 1 - i] = t;
	}
	*out = value_none();
	return true;
}

METHOD(list_copy)
{
	size_t i;
	if (!no_args(rt, "list.copy", nargs, nkw))
		return false;
	*out = value_list(rt->arena, self.as.list->len);
	for (i = 0; i < self.as.list->len; i++)
		value_list_append(rt->arena, *out, self.as.list->items[i]);
	return true;
}

METHOD(list_clear)
{
	if (!no_args(rt, "list.clear", nargs, nkw))
		return false;
	self.as.list->len = 0;
	*out = value_none();
	return true;
}
