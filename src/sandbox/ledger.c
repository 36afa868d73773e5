/*
 * ledger.c -- a small array of (key digest, arguments digest, message).
 *
 * Workshops make a few writes, so a lookup is a scan of 64-byte digests;
 * hashing the key once costs what reading it does.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "base/sha256.h"
#include "base/xalloc.h"

struct entry {
	char	 key[SHA256_HEX];
	char	 args[SHA256_HEX];
	char	*message;
};

struct ledger {
	struct entry	*items;
	size_t		 n, cap;
	size_t		 bytes;
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
	for (i = 0; i < l->n; i++)
		free(l->items[i].message);
	l->n = 0;
	l->bytes = 0;
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

static const struct entry *
find(const struct ledger *l, const char *key_hex)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		if (memcmp(l->items[i].key, key_hex, SHA256_HEX) == 0)
			return &l->items[i];
	return NULL;
}

const char *
ledger_find(const struct ledger *l, const char *key, const char *args,
    bool *same_args)
{
	char kh[SHA256_HEX], ah[SHA256_HEX];
	const struct entry *e;

	sha256_hex(key, strlen(key), kh);
	if ((e = find(l, kh)) == NULL)
		return NULL;
	sha256_hex(args, strlen(args), ah);
	*same_args = strcmp(e->args, ah) == 0;
	return e->message;
}

static void
add(struct ledger *l, const char *kh, const char *ah, const char *message)
{
	struct entry *e;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->items = xreallocarray(l->items, l->cap, sizeof *l->items);
	}
	e = &l->items[l->n++];
	memcpy(e->key, kh, SHA256_HEX);
	memcpy(e->args, ah, SHA256_HEX);
	e->message = xstrdup(message);
	l->bytes += 2 * SHA256_HEX + strlen(message);
}

void
ledger_add(struct ledger *l, const char *key, const char *args,
    const char *message)
{
	char kh[SHA256_HEX], ah[SHA256_HEX];
	sha256_hex(key, strlen(key), kh);
	sha256_hex(args, strlen(args), ah);
	add(l, kh, ah, message);
}

static bool
is_digest(const char *s)
{
	size_t i;
	for (i = 0; i < SHA256_HEX - 1; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' &&
		    s[i] <= 'f')))
			return false;
	return s[i] == '\0';
}

bool
ledger_add_digests(struct ledger *l, const char *key_hex,
    const char *args_hex, const char *message)
{
	if (!is_digest(key_hex) || !is_digest(args_hex))
		return false;
	add(l, key_hex, args_hex, message);
	return true;
}

size_t
ledger_count(const struct ledger *l)
{
	return l->n;
}

size_t
ledger_bytes(const struct ledger *l)
{
	return l->bytes;
}

bool
ledger_at(const struct ledger *l, size_t i, const char **key_hex,
    const char **args_hex, const char **message)
{
	if (i >= l->n)
		return false;
	*key_hex = l->items[i].key;
	*args_hex = l->items[i].args;
	*message = l->items[i].message;
	return true;
}
