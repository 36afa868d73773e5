/*
 * ledger.h -- the idempotency ledger: which keyed writes were done.
 *
 * The key is the command with its canonical arguments, or the caller's
 * explicit idempotency_key.  A retry with the same key and the same
 * arguments is answered from the ledger without acting again; the same key
 * with different arguments is refused, as payment APIs do.
 *
 * The ledger keeps digests, not text: an entry is the SHA-256 of its key,
 * the SHA-256 of its canonical arguments and the message the write
 * answered with.  So an entry costs the same for a 16 MB write as for a
 * short one, the text of a write is kept once (in the file it wrote), and
 * any key -- lone surrogates, any byte -- is stored as 64 hex digits that
 * round-trip through the state's JSON.  Heap-owned: the ledger copies what
 * it keeps.
 */
#ifndef SANDBOXREPL_LEDGER_H
#define SANDBOXREPL_LEDGER_H

#include <stdbool.h>
#include <stddef.h>

struct ledger;

struct ledger *ledger_new(void);
void ledger_free(struct ledger *l);
/* Find key: NULL when unknown, else the stored message; *same_args tells
 * whether args are the canonical arguments it was first used with. */
const char *ledger_find(const struct ledger *l, const char *key,
    const char *args, bool *same_args);
/* Record that key with args was done and answered message. */
void ledger_add(struct ledger *l, const char *key, const char *args,
    const char *message);
/* The same from the digests (64 hex digits each), as the state stores
 * them; false (and nothing added) when one is not such a digest. */
bool ledger_add_digests(struct ledger *l, const char *key_hex,
    const char *args_hex, const char *message);
size_t ledger_count(const struct ledger *l);
/* What the entries hold, in bytes (for the state's size cap). */
size_t ledger_bytes(const struct ledger *l);
/* The i-th entry, in the order they were added, as digests; false past
 * the end.  The pointers stay valid until the ledger changes. */
bool ledger_at(const struct ledger *l, size_t i, const char **key_hex,
    const char **args_hex, const char **message);
void ledger_clear(struct ledger *l);

#endif
