/*
 * methods_dict.c -- the methods of dict; keys(), values() and items() make
 * the view objects of the object model (mock.h).
 */
#include "config.h"

#include <stdint.h>

#include "base/arena.h"
#include "eval.h"
#include "methods_int.h"
#include "value/rt.h"
#include "value/value.h"

/* ================================================================ */
/* dict                                                              */
/* ================================================================ */

METHOD(dict_get)
{
	bool found;
	if (!pos_args(rt, "dict.get", 1, 2, nargs, nkw) ||
	    !value_dict_get(rt, self, args[0], out, &found))
		return false;
	if (!found)
		*out = nargs == 2 ? args[1] : value_none();
	return true;
}

enum view { V_KEYS, V_VALUES, V_ITEMS };

/*
 * keys(), values(), items(): a view, "dict_keys(['a'])" as CPython shows
 * it, that iterates, has a len() and answers "in".  It holds what the
 * dict held when it was made (CPython's views follow later changes).
 */
static bool
dict_view(struct rt *rt, value self, const char *qual, enum view v,
    size_t nargs, size_t nkw, value *out)
{
	static const char *const names[] = {
		"dict_keys", "dict_values", "dict_items"
	};
	struct vdict *d = self.as.dict;
	struct vobject *o;
	value items;
	size_t i;
	if (!no_args(rt, qual, nargs, nkw))
		return false;
	items = value_list(rt->arena, d->len);
	for (i = 0; i < d->used; i++) {
		value item;
		if (!d->entries[i].live)
			continue;
		if (v == V_KEYS)
			item = d->entries[i].key;
		else if (v == V_VALUES)
			item = d->entries[i].val;
		else {
			item = value_tuple(rt->arena, 2);
			item.as.tuple->items[0] = d->entries[i].key;
			item.as.tuple->items[1] = d->entries[i].val;
		}
		value_list_append(rt->arena, items, item);
	}
	*out = eval_object(rt, MK_VIEW, names[v]);
	o = out->as.obj;
	o->type = -1;
	o->data = items;
	return true;
}

METHOD(dict_keys)
{
	return dict_view(rt, self, "dict.keys", V_KEYS, nargs, nkw, out);
}

METHOD(dict_values)
{
	return dict_view(rt, self, "dict.values", V_VALUES, nargs, nkw, out);
}

METHOD(dict_items)
{
	return dict_view(rt, self, "dict.items", V_ITEMS, nargs, nkw, out);
}

METHOD(dict_pop)
{
	bool found;
	if (!pos_args(rt, "dict.pop", 1, 2, nargs, nkw) ||
	    !value_dict_take(rt, self, args[0], out, &found))
		return false;
	if (!found) {
		if (nargs == 2) {
			*out = args[1];
			return true;
		}
		return raise_key_error(rt, args[0]);
	}
	return true;
}

METHOD(dict_popitem)
{
	struct vdict *d = self.as.dict;
	size_t i;
	bool found;
	value key, val, t;
	if (!no_args(rt, "dict.popitem", nargs, nkw))
		return false;
	if (d->len == 0)
		return rt_raise(rt, PYEXC_KeyError, "'popitem(): dictionary is "
		    "empty'");
	for (i = d->used; i-- > 0;)
		if (d->entries[i].live)
			break;
	key = d->entries[i].key;
	if (!value_dict_take(rt, self, key, &val, &found))
		return false;
	t = value_tuple(rt->arena, 2);
	t.as.tuple->items[0] = key;
	t.as.tuple->items[1] = val;
	*out = t;
	return true;
}

METHOD(dict_setdefault)
{
	bool found;
	if (!pos_args(rt, "dict.setdefault", 1, 2, nargs, nkw) ||
	    !value_dict_get(rt, self, args[0], out, &found))
		return false;
	if (found)
		return true;
	*out = nargs == 2 ? args[1] : value_none();
	if (!value_dict_set(rt, self, args[0], *out))
		return false;
	note_mutation(rt);
	return true;
}

struct update_ctx {
	value	dict;
	size_t	i;
};

static bool
update_step(struct rt *rt, value item, void *p)
{
	struct update_ctx *c = p;
	value pair;
	if (item.type != VT_LIST && item.type != VT_TUPLE &&
	    item.type != VT_STR && item.type != VT_BYTES &&
	    item.type != VT_DICT && item.type != VT_SET &&
	    item.type != VT_FROZENSET)
		return rt_raise(rt, PYEXC_TypeError,
		    "cannot convert dictionary update sequence element #%zu to "
		    "a sequence", c->i);
	if (!items_of(rt, item, &pair))
		return false;
	if (pair.as.list->len != 2)
		return rt_raise(rt, PYEXC_ValueError,
		    "dictionary update sequence element #%zu has length %zu; 2 "
		    "is required", c->i,
		    pair.as.list->len);
	c->i++;
	return value_dict_set(rt, c->dict, pair.as.list->items[0],
	    pair.as.list->items[1]);
}

METHOD(dict_update)
{
	struct update_ctx c = { self, 0 };
	size_t i;
	if (nargs > 1)
		return rt_raise(rt, PYEXC_TypeError,
		    "update expected at most 1 argument, got %zu", nargs);
	if (nargs == 1) {
		if (args[0].type == VT_DICT) {
			struct vdict *d = args[0].as.dict;
			size_t used = d->used;
			for (i = 0; i < used; i++)
				if (d->entries[i].live &&
				    !value_dict_set(rt, self, d->entries[i].key,
				    d->entries[i].val))
					return false;
		} else if (!value_iterate(rt, args[0], update_step, &c))
			return false;
	}
	for (i = 0; i < nkw; i++)
		if (!value_dict_set(rt, self, value_cstr(rt->arena, kwnames[i]),
		    args[nargs + i]))
			return false;
	note_mutation(rt);
	*out = value_none();
	return true;
}

struct fromkeys_ctx {
	value	dict;
	value	val;
};

static bool
fromkeys_step(struct rt *rt, value key, void *p)
{
	struct fromkeys_ctx *c = p;
	return value_dict_set(rt, c->dict, key, c->val);
}

/* dict.fromkeys(iterable, value=None): a new dict, self is not used */
METHOD(dict_fromkeys)
{
	struct fromkeys_ctx c;
	if (!pos_args(rt, "dict.fromkeys", 1, 2, nargs, nkw))
		return false;
	c.dict = value_dict(rt->arena);
	c.val = nargs == 2 ? args[1] : value_none();
	if (!value_iterate(rt, args[0], fromkeys_step, &c))
		return false;
	*out = c.dict;
	return true;
}

METHOD(dict_copy)
{
	struct vdict *d = self.as.dict;
	size_t i;
	if (!no_args(rt, "dict.copy", nargs, nkw))
		return false;
	*out = value_dict(rt->arena);
	for (i = 0; i < d->used; i++)
		if (d->entries[i].live &&
		    !value_dict_set(rt, *out, d->entries[i].key,
		    d->entries[i].val))
			return false;
	return true;
}

METHOD(dict_clear)
{
	struct vdict *d = self.as.dict;
	if (!no_args(rt, "dict.clear", nargs, nkw))
		return false;
	d->len = d->used = 0;
	d->nindex = 0;
	d->index = NULL;
	*out = value_none();
	return true;
}
