/*
 * effect.c -- an input's log of effects (see effect.h).
 */
#include "config.h"

#include <string.h>

#include "base/arena.h"
#include "effect.h"
#include "record.h"
#include "value/value.h"

#define X_NAME(e, name) name,
static const char *const category_names[] = { EFFECT_CATEGORIES(X_NAME) };
#undef X_NAME

const char *
effect_category_name(enum effect_category c)
{
	return (unsigned)c < EFFECT__COUNT ? category_names[c] : NULL;
}

bool
effect_category_parse(const char *name, enum effect_category *out)
{
	unsigned c;
	for (c = 0; c < EFFECT__COUNT; c++)
		if (name == NULL ? category_names[c] == NULL :
		    category_names[c] != NULL &&
		    strcmp(category_names[c], name) == 0) {
			*out = (enum effect_category)c;
			return true;
		}
	return false;
}

uint64_t
effect_text_held(const char *text, size_t len)
{
	return 3 * (uint64_t)len + 4 * value_repr_bound(text, len, false);
}

/* The category is a static name or (effect_add_named) copied. */
static void
add(struct effect_log *log, const char *op, const char *target,
    const char *category, const char *text, bool denied)
{
	struct effect *e;
	if (log->n == log->cap) {
		size_t ncap = log->cap ? log->cap * 2 : 8;
		log->items = arena_grow(log->arena, log->items, log->n, ncap,
		    sizeof *log->items);
		log->cap = ncap;
	}
	e = &log->items[log->n++];
	e->op = arena_strdup(log->arena, op);
	e->target = arena_strdup(log->arena, target);
	e->category = category;
	e->text = text ? arena_strdup(log->arena, text) : NULL;
	if (text != NULL)
		arena_charge(log->arena, (size_t)effect_text_held(text,
		    strlen(text)) - strlen(text));
	e->simulated = log->simulated;
	e->denied = denied;
	e->source = NULL;
	if (log->sink != NULL)
		log->sink(e);
}

void
effect_add(struct effect_log *log, const char *op, const char *target,
    enum effect_category category, const char *text, bool denied)
{
	add(log, op, target, effect_category_name(category), text, denied);
}

void
effect_add_named(struct effect_log *log, const char *op, const char *target,
    const char *category, const char *text, bool denied)
{
	enum effect_category c;
	add(log, op, target, effect_category_parse(category, &c) ?
	    effect_category_name(c) : arena_strdup(log->arena, category),
	    text, denied);
}
