/*
 * state.h -- a session's state on disk (--state=DIR).
 *
 * DIR holds three things, each file opened with O_NOFOLLOW:
 *
 *   blobs/SHA256      a file's contents, once, named by their digest (two
 *                     files or two paths with the same contents share it);
 *   state.json        the snapshot: every path's files (name, digest,
 *                     length, and a CPython world's entry's mode when it
 *                     is not the usual one), names, budget and
 *                     idempotency ledger;
 *   journal.jsonl     one line per input since the snapshot: its verdicts
 *                     and what it changed (files put or deleted, names,
 *                     ledger entries, budget), numbered by "seq".
 *
 * After every input, before its records are shown, the new contents are
 * written to blobs (a temporary file, fsync, rename, fsync of blobs/) and
 * then the input's line is appended to the journal and fsynced: that line
 * is the commit.  A kill -9 at any moment leaves the line whole (kept) or
 * torn (not kept: loading cuts it off); nothing acknowledged is lost and a
 * write retried after a crash is done once, because the ledger is part of
 * the state.  When the journal outgrows the snapshot, a new snapshot is
 * written (temporary file, fsync, rename, fsync of DIR) and the journal
 * emptied; loading skips journal lines the snapshot already holds.  Saving
 * costs what the input changed, not what the state holds: a file is
 * hashed and written only when the input wrote it, and a path's names
 * (saved whole when one of them changed) are left alone otherwise.
 *
 * The state may hold at most STATE_MAX_BYTES (files of every path, names,
 * ledgers); an input that would pass it is refused: nothing of it is saved
 * and the session goes back to the saved state.
 *
 * DIR must belong to the caller and not be writable by group or others,
 * as ssh wants of its files; a session holds an exclusive flock(2) on it,
 * so a second process on the same DIR is refused.  Names whose values are
 * not plain data (lambdas, modules) are not saved; of a CPython world's,
 * the list of them (state_world_names) and the reprs of those bound to
 * plain data (state_world_values) are.
 */
#ifndef SANDBOXREPL_STATE_H
#define SANDBOXREPL_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "record/record.h"

#define STATE_MAX_BYTES	(256u << 20)

struct ledger;
struct mfs;
struct ns;
struct state;

/*
 * A session as its state sees it: what the state saves from and loads
 * into.  The session fills one before it calls the state and takes back
 * the counters after (session.c); the state knows nothing else of it.
 */
struct state_path {
	/* the session's own stores: saved from, loaded into */
	struct mfs		*fs;
	struct ns		*ns;
	struct ledger		*ledger;
	unsigned		 used;		/* budget used */
	/* what its CPython world holds (world.h), or NULL */
	const char *const	*world_names;
	size_t			 nworld_names;
	const char *const	*world_literals; /* name, repr, ... */
	size_t			 nworld_literals;
};

struct state_session {
	struct state_path	 paths[PATH__COUNT];
	unsigned		 steps;
	/* empty the session (no seed, its worlds new) and point paths at
	 * its new stores, counters at zero: before a load */
	void			(*reset)(struct state_session *ss);
	void			*ctx;		/* the session */
};

/*
 * Open DIR (created 0700 when missing), check who owns it, lock it and
 * load it into s (a new DIR keeps s as it is and saves it as the first
 * snapshot).  NULL with *err (heap) when DIR is not safe to use, is locked
 * by another process, or holds an unreadable or corrupt state.  The caller
 * frees the result with state_close(), which releases the lock.
 */
struct state *state_open(struct state_session *s, const char *dir,
    char **err);
/*
 * Save what the step changed in s, durably, with the verdicts of its
 * records.  false with *err (heap) when the step could not be kept (the
 * size cap, a write error): s is then put back as it was saved.
 */
bool state_save(struct state *st, struct state_session *s,
    const struct record *r, size_t n, char **err);
void state_close(struct state *st);
/* DIR held a state when it was opened: the session was resumed. */
bool state_resumed(const struct state *st);
/*
 * The names path's CPython world held when the state was loaded (*n of
 * them; valid until the state is closed or reloaded), or NULL when the
 * state recorded no world for it (the model ran it: its names are values,
 * restored).  A world's names
 * are objects in its interpreter and are not saved: the state keeps only
 * their names, so that a resumed session can say which ones its new world
 * lacks.  Names of the model are values and are saved (see above).
 */
const char *const *state_world_names(const struct state *st, int path,
    size_t *n);
/*
 * Of those, the ones bound to plain data, as 2 * *n strings: name, its
 * repr, ... (or NULL).  Text a world wrote: the session binds a name
 * again only when its repr parses as a literal.
 */
const char *const *state_world_values(const struct state *st, int path,
    size_t *n);

#endif
