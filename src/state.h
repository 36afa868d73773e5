/*
 * state.h -- a session's state on disk (--state=DIR).
 *
 * DIR/state.json holds every path's files, names, budget and idempotency
 * ledger; it is replaced atomically after every input (write a temporary
 * file, fsync it, rename it over the old one, fsync the directory), so a
 * kill -9 at any moment leaves either the old state or the new one, never
 * a torn one.  DIR/journal.jsonl gets one line per input (its verdicts),
 * appended and fsynced after the state: the log of what was acknowledged.
 * Because the idempotency ledger is part of the state, a write retried
 * after a crash is done exactly once.
 *
 * Names whose values are not plain data (lambdas, modules) are not saved.
 */
#ifndef SANDBOXREPL_STATE_H
#define SANDBOXREPL_STATE_H

#include <stdbool.h>
#include <stddef.h>

struct record;
struct session;

/* Load DIR/state.json into s (a missing file is an empty start; DIR is
 * created).  false with *err (heap) on an unreadable or corrupt state. */
bool state_load(struct session *s, const char *dir, char **err);
/* Save s durably, then journal the step's records. */
bool state_save(struct session *s, const char *dir, const struct record *r,
    size_t n, char **err);

#endif
