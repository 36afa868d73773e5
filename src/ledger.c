/*
 * ledger.c -- a small array of (key, arguments, message).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "xalloc.h"

struct entry {
	char	*key;
	char	*args;
	char	*message;
};

struct ledger {
	struct entry	*items;
	size_t		 n, cap;
};

struct ledger *
ledger_new(void)
{
	return xcalloc(1, sizeof(struct ledger));
}

void
ledger_clear(struct ledger *l)
{
	size_t i;
	for (i = 0; i < l->n; i++) {
		free(l->items[i].key);
		free(l->items[i].args);
		free(l->items[i].message);
	}
	l->n = 0;
}

void
ledger_free(struct ledger *l)
{
	if (l == NULL)
		return;
	ledger_clear(l);
	free(l->items);
	free(l);
}

const char *
ledger_find(const struct ledger *l, const char *key, const char **args)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		if (strcmp(l->items[i].key, key) == 0) {
			if (args != NULL)
				*args = l->items[i].args;
			return l->items[i].message;
		}
	return NULL;
}

void
ledger_add(struct ledger *l, const char *key, const char *args,
    const char *message)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->items = xreallocarray(l->items, l->cap, sizeof *l->items);
	}
	l->items[l->n].key = xstrdup(key);
	l->items[l->n].args = xstrdup(args);
	l->items[l->n].message = xstrdup(message);
	l->n++;
}

size_t
ledger_count(const struct ledger *l)
{
	return l->n;
}

bool
ledger_at(const struct ledger *l, size_t i, const char **key,
    const char **args, const char **message)
{
	if (i >= l->n)
		return false;
	*key = l->items[i].key;
	*args = l->items[i].args;
	*message = l->items[i].message;
	return true;
}
