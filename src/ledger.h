/*
 * ledger.h -- the idempotency ledger: which keyed writes were done.
 *
 * The key is the command with its canonical arguments, or the caller's
 * explicit idempotency_key.  A retry with the same key and the same
 * arguments is answered from the ledger without acting again; the same key
 * with different arguments is refused, as payment APIs do.  Heap-owned:
 * the ledger copies what it keeps.
 */
#ifndef SANDBOXREPL_LEDGER_H
#define SANDBOXREPL_LEDGER_H

#include <stdbool.h>
#include <stddef.h>

struct ledger;

struct ledger *ledger_new(void);
void ledger_free(struct ledger *l);
/* Find key: NULL when unknown, else the stored message; *args receives the
 * canonical arguments it was first used with. */
const char *ledger_find(const struct ledger *l, const char *key,
    const char **args);
void ledger_add(struct ledger *l, const char *key, const char *args,
    const char *message);
size_t ledger_count(const struct ledger *l);
/* The i-th entry, in the order they were added; false past the end. */
bool ledger_at(const struct ledger *l, size_t i, const char **key,
    const char **args, const char **message);
void ledger_clear(struct ledger *l);

#endif
