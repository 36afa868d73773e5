/*
 * session.h -- one session: the paths, their state, and the flow of an
 * input through the layers of each path.
 *
 * A session owns, per path, a mock filesystem, a namespace, a budget and an
 * idempotency ledger.  session_run() takes one input, parses it once, and
 * produces one record per enabled path (record.h).  The core stops here:
 * printing records is the caller's business.
 */
#ifndef SANDBOXREPL_SESSION_H
#define SANDBOXREPL_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "lang/parse.h"
#include "record/paths.h"
#include "record/record.h"

struct arena;
struct mfs;
struct ns;
struct policy;
struct policy_names;

/* The names a policy file may list, as this program answers them: the
 * builtins of the evaluator and the object model, and the commands
 * (policy_parse checks a policy's lists with them). */
extern const struct policy_names session_policy_names;

struct session_opts {
	unsigned		 paths;		/* PATH_BIT()s; 0: the default */
	const struct policy	*policy;	/* NULL: the essay preset */
	unsigned		 budget;	/* with budget_set; else the policy's */
	bool			 budget_set;
	bool			 bare;		/* do not seed the essay's state */
	bool			 jail_filter;	/* the jail path checks the sandbox
						   policy first (defense in depth) */
	int			 jail_fail_at;	/* test hook: a jail set-up step
						   to fail (jail.h); 0 = none */
	int			 jail;		/* enum boundary (paths.h: a
						   jail_option), with jail_set;
						   else the policy's jail key,
						   or the jail path's own */
	bool			 jail_set;
	int			 engine;	/* the paths' worlds: enum
						   world_engine (world.h); 0 =
						   the model */
	bool			 fresh_world;	/* a new world per input */
	unsigned		 world_wall_ms;	/* per input; 0: the default */
	int			 world_fail_at;	/* test hook: a world set-up
						   step to fail; 0 = none */
	/* The memory caps of the paths that run in this process (unsafe,
	 * sandbox); 0: the defaults below.  An input may hold memory_input
	 * bytes, and no more than the session then has left of
	 * memory_session beside the names and files it keeps. */
	size_t			 memory_input;
	size_t			 memory_session;
};

#define MEMORY_INPUT_DEFAULT	((size_t)256 << 20)
#define MEMORY_SESSION_DEFAULT	((size_t)512 << 20)

struct session;

struct session *session_new(const struct session_opts *opts);
void session_free(struct session *s);
/* Back to a first state: filesystems, names, budgets, ledgers, step
 * count; with seed, the essay's files and names, else nothing at all. */
void session_reset(struct session *s, bool seed);

/* Seed a file on every path. */
void session_seed_file(struct session *s, const char *name, const char *data,
    size_t len);
/* Seed a name on every path from an expression evaluated without any
 * boundary (it is the teacher's set-up, not the agent's code).  On failure
 * returns false and *err (heap, caller frees) says why. */
bool session_seed_name(struct session *s, const char *name, const char *expr,
    char **err);

/*
 * Run one input on the paths in mask (0: the session's paths), in path
 * order.  label (may be NULL) replaces the automatic label.  Records and
 * everything they point to are allocated in a.  Returns the number of
 * records written to *out.
 */
size_t session_run(struct session *s, const char *input, size_t len,
    const char *label, unsigned mask, struct arena *a, struct record **out);

/*
 * An input parsed ahead of its run, for a reader that takes it line by
 * line (batch mode): the parse that tells it the input is complete is
 * the one session_run_parsed() runs, so the input is not read twice.
 * session_parse() parses as session_run() does, in an arena of its own;
 * true when the input parsed, and then session_input_incomplete() would
 * say it is complete (what parses has no open bracket, string or joined
 * line, and no block or decorator: only simple statements parse).  False
 * (a syntax error, or more lines wanted): ask session_input_incomplete().
 * Either way the parse is run (session_run_parsed) or dropped
 * (session_parsed_drop), once.
 */
struct session_parsed {
	const char		*input;
	size_t			 len;
	struct arena		*ea;	/* the tree's (NULL once run or dropped) */
	const char		*src;	/* what a world compiles (struct line, */
	size_t			 srclen;/* session_int.h) */
	bool			 shell;
	struct parse_result	 pr;
};

bool session_parse(struct session_parsed *sp, const char *input,
    size_t len);
size_t session_run_parsed(struct session *s, struct session_parsed *sp,
    const char *label, unsigned mask, struct arena *a, struct record **out);
void session_parsed_drop(struct session_parsed *sp);

/*
 * Does the input want more lines before it runs (an open bracket or
 * string, a block's header "for x in y:" until a blank line)?  A reader
 * that takes an input line by line (the UI, batch mode) asks this, so it
 * needs no parser of its own.
 */
bool session_input_incomplete(const char *input, size_t len);

/*
 * Told as each path of an input starts (done false) and ends (done
 * true), on the thread that called session_run(), so that a screen can
 * show which path is still running; fn NULL: nobody is told.
 */
typedef void session_progress_fn(void *ctx, enum path_id p, bool done);
void session_set_progress(struct session *s, session_progress_fn *fn,
    void *ctx);

/*
 * Told, during session_run() and on its thread, what the code on path p
 * writes as it writes it (a CPython world's stdout or stderr, text of
 * len bytes, not NUL-terminated), so that a screen can show it while
 * the input runs; the record's output is what stays.  fn NULL: nobody.
 */
typedef void session_output_fn(void *ctx, enum path_id p, const char *stream,
    const char *text, size_t len);
void session_set_output(struct session *s, session_output_fn *fn, void *ctx);

/* The memory the session keeps between inputs: names, files and the
 * arenas its names still point into, on every path. */
size_t session_kept(const struct session *s);

unsigned session_paths(const struct session *s);
void session_set_paths(struct session *s, unsigned paths);
/* The boundary of the paths whose kind --jail chooses (paths.h's
 * kind_by_jail: the jail path); setting another one (a jail_option) ends
 * their worlds (their names; their files are kept) and the next input
 * builds one of the new boundary.  Set so, or by --jail, it stays when a
 * policy with a jail key comes (session_set_policy); otherwise the
 * policy's key sets it. */
enum boundary session_jail(const struct session *s);
void session_set_jail(struct session *s, enum boundary b);
/* Path p's boundary now: its row's kind, or the session's jail kind for
 * a path whose kind --jail chooses. */
const struct boundary_row *session_boundary(const struct session *s,
    enum path_id p);
const struct policy *session_policy(const struct session *s);
void session_set_policy(struct session *s, const struct policy *p);
void session_set_budget(struct session *s, unsigned limit);
const struct mfs *session_fs(const struct session *s, enum path_id p);

/*
 * Keep the session's state in dir (state.c): loaded now, and saved --
 * atomically and durably -- after every input, before session_run()
 * returns its records, so a record the user saw is never lost.  Returns
 * false with *err (heap) when dir cannot be used.
 */
bool session_use_state(struct session *s, const char *dir, char **err);
struct ns *session_ns(const struct session *s, enum path_id p);
unsigned session_budget_used(const struct session *s, enum path_id p);
unsigned session_budget_limit(const struct session *s, enum path_id p);

/* The engine that runs path p's code now ("cpython", "model"), or NULL
 * when the jail path runs the model in its own kernel jail.  The sandbox
 * path's is "cpython" only under a policy wider than the essay's subset
 * (policy_runs_in_world) where worlds are used, else "model": its own
 * evaluator. */
const char *session_engine(const struct session *s, enum path_id p);
/* The boundary in force on path p as the records and the status line
 * name it: its kind's name, and how its world runs where that varies --
 * "ns", "microvm (tcg, emulated: slow)" (static or the session's, valid
 * until the session goes). */
const char *session_boundary_words(const struct session *s, enum path_id p);
/* Start every enabled path's world that takes seconds to start (a
 * microVM boots) now, while the user reads: its first input waits only
 * for what is left (world.h's world_prestart). */
void session_prestart(struct session *s);
/* While path p's world boots ahead: true, with *secs since it began and
 * *ready once it is up. */
bool session_booting(const struct session *s, enum path_id p, double *secs,
    bool *ready);
/* The names path p's world binds (sorted; valid until the next input),
 * or NULL when its namespace (session_ns) holds them. */
const char *const *session_world_names(const struct session *s,
    enum path_id p, size_t *n);
/* Of those, the ones bound to plain data, as 2 * *n strings (name, its
 * repr, ...), or NULL; reported only while the session keeps a --state
 * (valid until the next input). */
const char *const *session_world_literals(const struct session *s,
    enum path_id p, size_t *n);
/* Why the unsafe path (or the sandbox path, under a policy wider than
 * the essay's subset) runs the model although another engine was asked
 * for (worlds could not be built), or NULL. */
const char *session_engine_note(const struct session *s);

/*
 * Snapshots: the session as it is now, in memory, to go back to later (the
 * UI's presenter view steps back through a scenario).  A snapshot holds
 * every path's files (modes too), names, ledger and budget used, the
 * policy (a preset's; a policy file's is left as it is then), the budget,
 * the step count and the seeded names.  Restoring one puts all that back
 * in place and gives every path that had a world a new one, built on its
 * next input from the files restored; a CPython world's names are objects
 * and cannot be copied, so those bound to plain data are bound again from
 * their reprs (as --state does), the others are gone.  While snapshots
 * live, worlds report their plain names after every input, and the arenas
 * names point into are kept across resets.  Free every snapshot before
 * the session.  session_snap_bytes() is what one holds, for a cap.  A
 * world's plain names are those it reported after its last input: a
 * caller that may take a snapshot at any time (the UI) calls
 * session_report_literals() first, so that every input reports them.
 */
struct session_snap;
struct session_snap *session_snap_take(struct session *s);
void session_snap_restore(struct session *s, const struct session_snap *sn);
/* One path's part of it (its files, names, ledger, budget used and a new
 * world): a scenario's step run under several policies starts each one
 * from the same sandbox. */
void session_snap_restore_path(struct session *s,
    const struct session_snap *sn, enum path_id p);
void session_snap_free(struct session *s, struct session_snap *sn);
size_t session_snap_bytes(const struct session_snap *sn);
void session_report_literals(struct session *s);

/*
 * Ctrl-C while session_run() runs (async-signal-safe: the UI's SIGINT
 * handler calls it): the input is interrupted on every path still
 * running it -- KeyboardInterrupt in each CPython world, whose names
 * stay; a world whose code does not end within a second is killed and
 * restarts on the next input.  Each session_run() starts uninterrupted.
 */
void session_interrupt(void);

/*
 * Panes: from now on, the records of an input carry what a screen's
 * panes show beyond the JSON record: the input's tree or parse error
 * (r->tree) and each file's digest (r->fs[i].digest).  A screen (the UI)
 * asks for them before its first input; the JSON, batch and serve modes
 * do not pay for them.
 */
void session_report_panes(struct session *s);
/*
 * Path p's files now, in the records' shape (record.h; with digests once
 * panes are reported): what a screen starts from before any record, and
 * after the session changed without one (a reset, a set-up step).
 * Everything is allocated in a; returns their number.
 */
size_t session_files(struct session *s, enum path_id p, struct arena *a,
    struct record_file **out);

/* "unsafe", "sandboxed", "jailed": the word the essay's labels use
 * (path_row(p)->adjective). */
const char *session_path_adjective(enum path_id p);

#endif
