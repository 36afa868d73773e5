/*
 * session_int.h -- private to the session's files (src/session/): the
 * session's and a step's state, and the functions the files share.
 *
 * The input is parsed once; each enabled path then takes the same tree,
 * the way its boundary's row (paths.h) says -- none, the policy, a
 * kernel:
 *
 *   unsafe:   run in the path's world (world.h): CPython in a disposable
 *             replica world, or the mock object model where worlds
 *             cannot be built; dangerous effects happen to the replica
 *             (or the mock filesystem): LANDED, in a throwaway copy.
 *   sandbox:  code:     allowlist -> budget -> evaluate (reduced names, caps)
 *             commands: command allowlist -> allowlist (argument code) ->
 *                       budget -> surface -> network -> idempotency -> effect
 *             Under a policy that admits more than the essay's subset
 *             (policy_runs_in_world) what the allowlist and the name rule
 *             (check_names) admit runs in CPython in the path's offline
 *             world, behind the same layers: a weak filter's bypass has
 *             its real effect on the sandbox's files; the essay's subset
 *             stays on the evaluator, and so does the model engine.
 *   jail:     [--jail-filter: the sandbox's allowlists] -> CPython in a
 *             world of the jail kind (world.h), whose kernel refusals
 *             are "contained", and whose harm to its own copy (a file
 *             deleted, the secret read) is "inside"; or, with the model
 *             engine, the model in its own kernel jail per input
 *             (a world of the model-jail kind, which runs jailpath.h).  Never anything unjailed: a jail that
 *             cannot be built refuses.
 *
 * The sandbox's layers are one table, walked in step.c: layers.c (each layer
 * in its own file: budget.c, surface.c, network.c, idempotency.c; the
 * allowlists are allowlist.c and policy.c).  The first layer that says no
 * decides the record; later layers are not consulted.  Every record ends
 * with the path's filesystem listing and budget after the step, and the
 * trace line built from label, shown input and outcome (trace.c).
 *
 * Each path evaluates in an arena of its own on a meter (arena.h): the
 * input may hold the session's memory_input, or what is left of
 * memory_session beside the names and files kept; past it the record is
 * BLOCKED at the limits layer, on the unsafe path too.
 *
 * The files: session.c (a session, its settings and stores), input.c
 * (one input through every path), step.c (one path's layers, evaluator,
 * commands and jail), worldstep.c (a path's world), records.c (the
 * record's end, and the panes), restore.c (--state and plain names
 * given back), snap.c (snapshots); state.c keeps the state on disk
 * (state.h), in the JSON forms of sjson.c.  Nothing outside src/session
 * includes this header: session.h is the interface.
 */
#ifndef SANDBOXREPL_SESSION_INT_H
#define SANDBOXREPL_SESSION_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "interp/eval.h"
#include "record/paths.h"
#include "record/record.h"
#include "base/sbuf.h"
#include "session.h"
#include "world/world.h"

struct check_result;
struct cmd_entry;
struct effect;
struct meter;
struct node;
struct parse_result;

struct pathstate {
	struct mfs	*fs;
	struct ns	*ns;
	struct ledger	*ledger;
	unsigned	 used;		/* budget used */
	struct world	*world;		/* where code runs, or NULL: the
					   path's own layers run it */
	bool		 resumed;	/* loaded from --state, and its world
					   has not run yet */
	char		*restore;	/* while resumed: source binding its
					   old world's plain names, or NULL */
	struct live {			/* its world's live output's way to
					   session_set_output's fn */
		struct session	*s;
		enum path_id	 p;
	} live;
};

struct session {
	struct pathstate	 paths[PATH__COUNT];
	unsigned		 enabled;
	const struct policy	*policy;
	struct eval_calls	*calls;		/* policy's builtins, made on
					   first use, dropped with it */
	unsigned		 budget;	/* the sandbox's limit */
	bool			 budget_explicit; /* set by the user, kept
					    across policy changes */
	bool			 bare;
	bool			 jail_filter;
	int			 jail_fail_at;
	enum boundary		 jail;		/* the jail path's boundary */
	bool			 jail_explicit;	/* by --jail or :jail, kept
					   across policy changes */
	unsigned		 steps;
	/* Arenas of inputs whose lambdas or objects the names still hold
	 * (value_copy shares those; see ns.h). Freed on reset. */
	struct arena		**pinned;
	size_t			 npinned, cappinned;
	struct state		*state;		/* --state, or NULL */
	enum world_engine	 engine;	/* the unsafe path's world */
	bool			 fresh_world;
	unsigned		 world_wall_ms;
	int			 world_fail_at;
	struct sbuf		 setup;		/* the seeded names, as Python
						   source, for new worlds */
	char			*engine_note;	/* why the model runs instead */
	session_progress_fn	*progress;	/* told as each path runs */
	void			*progress_ctx;
	session_output_fn	*output;	/* told what a world writes */
	void			*output_ctx;
	unsigned		 nsnaps;	/* snapshots alive: pinned
						   arenas are kept across
						   resets, and worlds report
						   their literals */
	bool			 literals;	/* worlds report them always
						   (session_report_literals) */
	bool			 panes;		/* records carry trees and
						   digests (session.h) */
	size_t			 mem_input;	/* memory caps (session.h) */
	size_t			 mem_session;
};

/* ---- one path ---- */

struct step {
	struct session		*s;
	enum path_id		 path;
	const struct boundary_row *kind; /* its boundary now (paths.h) */
	struct pathstate	*ps;
	struct record		*r;
	struct arena		*a;	/* the records' arena (the caller's) */
	struct eval		 ev;	/* allocates in the input's own arena */
	struct world		*world;	/* the sandbox path's CPython world,
					   or NULL: its own evaluator */
	bool			 restarted; /* its world had died */
	bool			 resumed;   /* its world is new, after --state
					   restored all but its names */
	const char		*raised_after; /* the exception that ended
					   code which had done harm first */
	const char		*essay;	/* the deciding rule's phrase in the
					   essay's words (allowlist.h), or NULL */
	const char		*src;	/* what a world compiles: the input,
					   or a shell line's Python form */
};

/* An input as the paths take it: a shell line ('!ls') is run_shell's
 * call (input.c). */
struct line {
	const char	*src;		/* what a world compiles */
	size_t		 len;
	bool		 shell;		/* a '!' line */
};

/* The step's record is decided: its verdict, the layer and rule that
 * decided it, and why (NULL when ok). */
static inline void
step_decide(struct step *st, enum verdict v, enum layer l, const char *rule,
    const char *reason)
{
	st->r->verdict = v;
	st->r->layer = l;
	st->r->rule = rule;
	st->r->reason = reason;
	st->essay = NULL;
}

/* ---- session.c ---- */

/* Caps on the paths without a policy (the teacher's set-up, the unsafe
 * path): there is no boundary, but the demo machine must survive it. */
extern const struct limits session_unsafe_limits;
/* The environment the session's worlds get (the essay's live key). */
const char *const *session_env(const struct session *s);
/* The boundary in force on the path whose state ps is. */
const struct boundary_row *session_boundary_of(const struct session *s,
    const struct pathstate *ps);
/* A set-up step after ps's world was built: the next input gets a new
 * one. */
void session_renew_world(struct session *s, struct pathstate *ps);
/* Do the names of mask's paths, changed since gens, point into the
 * arenas of the input that made them? */
bool session_holds_shared(struct session *s, unsigned mask,
    const unsigned long *gens);
/* Keep an input's arena for the session (off any input's meter). */
void session_pin(struct session *s, struct arena *a);
void session_generations(const struct session *s, unsigned long *gens);
/* The path set-up names are evaluated on (the first without a boundary). */
struct pathstate *session_seed_path(struct session *s);
/* The world path p's code runs in now, or NULL. */
struct world *session_live_world(const struct session *s, enum path_id p);
/* The policy is p from now on; the calls made for the one before go. */
void session_take_policy(struct session *s, const struct policy *p);

/* ---- restore.c ---- */

/* A tree of literals only (what ast.literal_eval takes, less complex
 * numbers): nothing in it can run anything. */
bool restore_is_literal_node(const struct node *n, int depth);
/* "name = repr\n" for each of n (name, repr) pairs that binds a literal
 * to an identifier path p's names do not hold (heap), or NULL. */
char *restore_literal_source(const struct session *s, enum path_id p,
    const char *const *lits, size_t n);
/* Did ps's restore source bind name? */
bool restore_bound(const struct pathstate *ps, const char *name);
/* Save the input's step in the state (--state); when it cannot be kept,
 * its records say so. */
void restore_save_step(struct session *s, struct record *recs, size_t n,
    struct arena *a);

/* ---- step.c ---- */

/* Run the parsed input on path p, in pa on the meter mem: its record
 * in r, allocated in a. */
void step_run_path(struct session *s, enum path_id p, const char *input,
    size_t len, const struct parse_result *pr, const struct line *ln,
    const char *label, struct arena *a, struct arena *pa, struct meter *mem,
    struct record *r);

/* ---- worldstep.c ---- */

/* Path ps's world, built now if it was not; NULL with *why where a
 * boundary refuses, or where the path falls back to its own evaluator. */
struct world *worldstep_ready(struct session *s, struct pathstate *ps,
    struct arena *a, const char **why);
/* What a world is given to run src (a command's name with it). */
struct world_input worldstep_input(struct session *s, struct pathstate *ps,
    const char *src, const struct cmd_entry *e, struct arena *a);
/* Run src (e's call, with e) in the step's path's world and make its
 * reply the record; a model world runs model_run(model_ctx). */
void worldstep_run(struct step *st, const char *src, const struct cmd_entry *e,
    void (*model_run)(void *ctx), void *model_ctx);

/* ---- records.c ---- */

/* The step's record completed: effects, output, files, budget, label,
 * outcome and trace line. */
void records_finish(struct step *st, const char *input, size_t len,
    const char *label, const char *cmdname);
/* The input's tree as the AST pane draws it, or why it did not parse. */
const struct record_tree *records_tree(struct arena *a,
    const struct parse_result *pr);
/* Is target the session's secret (secrets.txt, in any folder)? */
bool records_is_secret(const char *target);
/* Code's reads of the secret become disclosures (effect.h). */
void records_mark_disclosures(struct step *st, struct effect *effects,
    size_t n);

#endif
