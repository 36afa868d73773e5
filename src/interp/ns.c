/*
 * ns.c -- names kept across inputs.
 *
 * A workshop namespace holds a handful of names, so a small array searched
 * linearly is enough.  Every ns_set() copies the value into the namespace
 * arena; when the arena has grown to several times what the live values
 * need, the live values are copied into a fresh arena and the old one is
 * freed, so rebinding a name in a loop does not grow memory without bound.
 * A namespace past a megabyte is copied into a fresh arena at every
 * commit (the copy it makes anyway): what it holds is then what its
 * names need, which the session's memory cap counts (ns_held).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "ns.h"
#include "base/strlist.h"
#include "base/xalloc.h"

struct binding {
	char	*name;
	value	 v;
	bool	 pending;	/* v still lives in the input's arena */
};

struct ns {
	struct arena	*arena;
	struct binding	*items;
	size_t		 n, cap;
	size_t		 live_hint;	/* arena bytes right after a compaction */
	unsigned long	 gen;
	bool		 dropped;	/* a committed value was rebound or
					   deleted since the last commit */
	/* arenas left by compactions while a binding held a shared value
	 * (a lambda's default, a dict view), which may point into them */
	struct arena	**retired;
	size_t		 nretired;
};

struct ns *
ns_new(void)
{
	struct ns *ns = xcalloc(1, sizeof *ns);
	ns->arena = arena_new();
	return ns;
}

void
ns_free(struct ns *ns)
{
	size_t i;
	if (ns == NULL)
		return;
	for (i = 0; i < ns->n; i++)
		free(ns->items[i].name);
	free(ns->items);
	arena_free(ns->arena);
	for (i = 0; i < ns->nretired; i++)
		arena_free(ns->retired[i]);
	free(ns->retired);
	free(ns);
}

/* (A plain search: a bitset of the bound names' first bytes, to turn
 * builtins' names away at once, was worth under 1% in make bench.) */
static inline struct binding *
find(const struct ns *ns, const char *name)
{
	size_t i;
	for (i = 0; i < ns->n; i++)
		if (strlist_cmp(ns->items[i].name, name) == 0)
			return &ns->items[i];
	return NULL;
}

bool
ns_get(const struct ns *ns, const char *name, value *out)
{
	struct binding *b = find(ns, name);
	if (b == NULL)
		return false;
	*out = b->v;
	return true;
}

/* Copy every binding into arena a as one graph, so that names bound to
 * the same object still share it; with only_new, what is in a already
 * stays where it is. */
static void
copy_graph_of(struct ns *ns, struct arena *a, bool only_new)
{
	value *vs = xreallocarray(NULL, ns->n ? ns->n : 1, sizeof *vs);
	size_t i;
	for (i = 0; i < ns->n; i++)
		vs[i] = ns->items[i].v;
	if (only_new)
		value_copy_new(a, vs, ns->n);
	else
		value_copy_many(a, vs, ns->n);
	for (i = 0; i < ns->n; i++) {
		ns->items[i].v = vs[i];
		ns->items[i].pending = false;
	}
	free(vs);
}

static void
copy_all(struct ns *ns, struct arena *a)
{
	copy_graph_of(ns, a, false);
}

/* What the bindings need, in bytes of arena. */
static size_t
live_bytes(const struct ns *ns)
{
	value *vs = xreallocarray(NULL, ns->n ? ns->n : 1, sizeof *vs);
	size_t i, n;
	for (i = 0; i < ns->n; i++)
		vs[i] = ns->items[i].v;
	n = value_size_many(vs, ns->n);
	free(vs);
	return n;
}

/* Into a fresh arena.  The old one is freed unless a binding holds a
 * value that value_copy() shares rather than copies: that value may
 * still point into it. */
static void
compact(struct ns *ns)
{
	struct arena *fresh = arena_new();
	bool shared = false;
	size_t i;
	copy_all(ns, fresh);
	for (i = 0; i < ns->n && !shared; i++)
		shared = value_holds_shared(ns->items[i].v);
	if (shared) {
		ns->retired = xreallocarray(ns->retired, ns->nretired + 1,
		    sizeof *ns->retired);
		ns->retired[ns->nretired++] = ns->arena;
	} else
		arena_free(ns->arena);
	ns->arena = fresh;
	ns->live_hint = arena_used(fresh);
}

static struct binding *
bind(struct ns *ns, const char *name)
{
	struct binding *b = find(ns, name);
	if (b == NULL) {
		if (ns->n == ns->cap) {
			ns->cap = ns->cap ? ns->cap * 2 : 8;
			ns->items = xreallocarray(ns->items, ns->cap,
			    sizeof *ns->items);
		}
		b = &ns->items[ns->n++];
		b->name = xstrdup(name);
		b->pending = false;
	}
	return b;
}

/* Where a commit copies every binding: past BIG_NS, a fresh arena. */
#define BIG_NS (1u << 20)

static void
copy_for_commit(struct ns *ns)
{
	if (arena_used(ns->arena) > BIG_NS)
		compact(ns);
	else
		copy_all(ns, ns->arena);
}

static void
maybe_compact(struct ns *ns)
{
	if (arena_used(ns->arena) > 4 * ns->live_hint + (1u << 20))
		compact(ns);
}

void
ns_set(struct ns *ns, const char *name, value v)
{
	struct binding *b = bind(ns, name);
	b->v = value_copy(ns->arena, v);
	b->pending = false;
	ns->gen++;
	maybe_compact(ns);
}

void
ns_set_pending(struct ns *ns, const char *name, value v)
{
	struct binding *b = find(ns, name);
	if (b != NULL && !b->pending)
		ns->dropped = true;
	b = bind(ns, name);
	b->v = v;
	b->pending = true;
	ns->gen++;
}

/*
 * A pending binding may share objects with other names (y = x, or a list
 * holding another name's dict), so all bindings are copied as one graph,
 * into the namespace's own arena; what lives there already is not copied
 * again (the input did not change it in place: else ns_recopy()), so a
 * commit costs what the input added.  What a rebinding or a delete left
 * behind is dropped by a compaction: past a megabyte, once the arena
 * holds half again what the names need (measured then), and below it at
 * four times the hint.
 */
void
ns_commit(struct ns *ns)
{
	size_t i, used;
	for (i = 0; i < ns->n; i++)
		if (ns->items[i].pending) {
			copy_graph_of(ns, ns->arena, true);
			used = arena_used(ns->arena);
			if (used > BIG_NS && (ns->dropped ||
			    used > 2 * ns->live_hint + BIG_NS)) {
				ns->live_hint = live_bytes(ns);
				if (used > ns->live_hint + BIG_NS &&
				    used - ns->live_hint > ns->live_hint / 2)
					compact(ns);
			} else
				maybe_compact(ns);
			ns->dropped = false;
			return;
		}
}

void
ns_recopy(struct ns *ns)
{
	copy_for_commit(ns);
	ns->gen++;
	maybe_compact(ns);
}

bool
ns_delete(struct ns *ns, const char *name)
{
	struct binding *b = find(ns, name);
	size_t i;
	if (b == NULL)
		return false;
	i = (size_t)(b - ns->items);
	ns->gen++;
	ns->dropped = true;
	free(b->name);
	memmove(&ns->items[i], &ns->items[i + 1],
	    (ns->n - i - 1) * sizeof *ns->items);
	ns->n--;
	return true;
}

size_t
ns_count(const struct ns *ns)
{
	return ns->n;
}

size_t
ns_held(const struct ns *ns)
{
	size_t i, n;

	if (ns->nretired == 0)	/* (the common case: a call, no frame) */
		return arena_held(ns->arena);
	n = arena_held(ns->arena);
	for (i = 0; i < ns->nretired; i++)
		n += arena_held(ns->retired[i]);
	return n;
}

const char *
ns_name(const struct ns *ns, size_t i, value *v)
{
	if (i >= ns->n)
		return NULL;
	if (v != NULL)
		*v = ns->items[i].v;
	return ns->items[i].name;
}

unsigned long
ns_generation(const struct ns *ns)
{
	return ns->gen;
}

bool
ns_is_pending(const struct ns *ns, size_t i)
{
	return i < ns->n && ns->items[i].pending;
}
