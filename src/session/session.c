/*
 * session.c -- a session: its paths' stores and worlds, its settings,
 * and what callers ask of it.
 *
 * The flow of an input through the paths is told in session_int.h, the
 * private header the session's files share; this file makes and frees
 * a session, seeds it, and answers and sets what session.h offers
 * (paths, jail, policy, budget, engines, names).  What a path's code
 * runs in is its boundary's row (paths.h): path_world() asks it.
 */
#include "config.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "interp/builtins.h"
#include "cmd/cmd.h"
#include "sandbox/ledger.h"
#include "model/mock.h"
#include "fs/mockfs.h"
#include "interp/ns.h"
#include "lang/parse.h"
#include "sandbox/policy.h"
#include "session_int.h"
#include "state.h"
#include "base/xalloc.h"

/* The scenario's environment in a world: the essay's agent holds a live
 * key (the mock object model's os.environ says the same). */
static const char *const essay_env[] = { "API_KEY=sk-live-9f3a2b", NULL };
static const char *const bare_env[] = { NULL };

/* The environment the session's worlds get. */
const char *const *
session_env(const struct session *s)
{
	return s->bare ? bare_env : essay_env;
}

/* Caps on the paths without a policy (the unsafe path, the teacher's
 * set-up): there is no boundary, but the demo machine must survive it;
 * what would exceed them is reported, not performed. */
const struct limits session_unsafe_limits = {
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
 * (a world of the model-jail kind, world.h, which runs jailpath.h per
 * input), never in an unjailed world, and a kind that runs CPython
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
const struct boundary_row *
session_boundary_of(const struct session *s, const struct pathstate *ps)
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
	s->jail = opts->jail_set && (unsigned)opts->jail < BOUNDARY__COUNT &&
	    boundary_row((enum boundary)opts->jail)->jail_option ?
	    (enum boundary)opts->jail : boundary_jail_default();
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
void
session_renew_world(struct session *s, struct pathstate *ps)
{
	struct world *w = ps->world;
	if (w == NULL || !w->built)
		return;
	ps->world = world_renew(w, s->world_wall_ms, s->world_fail_at);
}

static void
renew_worlds(struct session *s)
{
	size_t p;
	for (p = 0; p < PATH__COUNT; p++)
		session_renew_world(s, &s->paths[p]);
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
bool
session_holds_shared(struct session *s, unsigned mask,
    const unsigned long *gens)
{
	size_t p, i;
	unsigned left;
	/* (the paths in mask, in order: for each input, one) */
	for (left = mask & (PATH_BIT(PATH__COUNT) - 1); left != 0;
	    left &= left - 1) {
		struct ns *ns;
		p = (size_t)__builtin_ctz(left);
		ns = s->paths[p].ns;
		if (ns_generation(ns) == gens[p])
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
void
session_pin(struct session *s, struct arena *a)
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
	if (session_holds_shared(s, ~0u, gens))
		session_pin(s, ea);
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

void
session_generations(const struct session *s, unsigned long *gens)
{
	size_t p;
	for (p = 0; p < PATH__COUNT; p++)
		gens[p] = ns_generation(s->paths[p].ns);
}

/* The path whose names a set-up step evaluates in and reads back: the
 * first without a boundary (the teacher's set-up is not the agent's
 * code); every path gets the same names. */
struct pathstate *
session_seed_path(struct session *s)
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
	session_generations(s, gens);
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
	eval_init(&ev, a, &mock_model, &workspace_host, false);
	ev.rt.limits = session_unsafe_limits;
	ev.full_model = true;
	ev.ws.fs = scratch;
	ev.ns = session_seed_path(s)->ns;
	if (!eval_root(&ev, pr.root, &v, &has_value)) {
		*err = xasprintf("%s: %s", pyexc_name(ev.rt.exc.cls), ev.rt.exc.msg);
		goto out;
	}
	for (p = 0; p < PATH__COUNT; p++)
		ns_set(s->paths[p].ns, name, v);
	sbuf_addf(&s->setup, "%s = %s\n", name, expr);
	renew_worlds(s);
	if (ev.mutated)
		ns_recopy(session_seed_path(s)->ns);
	else
		ns_commit(session_seed_path(s)->ns);
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

const char *session_engine_note(const struct session *s) { return s->engine_note; }

void
session_set_output(struct session *s, session_output_fn *fn, void *ctx)
{
	s->output = fn;
	s->output_ctx = ctx;
}

void
session_set_progress(struct session *s, session_progress_fn *fn, void *ctx)
{
	s->progress = fn;
	s->progress_ctx = ctx;
}

/* The world path p's code runs in now, or NULL: a policy's path's only
 * while its policy admits more than the essay's subset. */
struct world *
session_live_world(const struct session *s, enum path_id p)
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
	const struct world *w = session_live_world(s, p);
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
	const struct world *w = session_live_world(s, p);
	if (w == NULL && session_boundary(s, p)->model == MODEL_IN_PROCESS)
		return world_engine_name(WORLD_ENGINE_MODEL);
	return w != NULL ? world_engine_name(w->ops->engine) : NULL;
}

const char *
session_boundary_words(const struct session *s, enum path_id p)
{
	static char words[BOUNDARY__COUNT][64];
	const struct boundary_row *b = session_boundary(s, p);
	const char *d = world_kind_detail(boundary_worlds[b->id]);

	if (d == NULL)
		return b->name;
	snprintf(words[b->id], sizeof words[b->id], "%s (%s)", b->name, d);
	return words[b->id];
}

void
session_prestart(struct session *s)
{
	size_t p;

	for (p = 0; p < PATH__COUNT; p++)
		if (s->enabled & PATH_BIT(p))
			world_prestart(s->paths[p].world);
}

bool
session_booting(const struct session *s, enum path_id p, double *secs,
    bool *ready)
{
	return world_booting(s->paths[p].world, secs, ready);
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
 * before go with it (step_run_path() makes p's on first use). */
void
session_take_policy(struct session *s, const struct policy *p)
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
	session_take_policy(s, p);
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

void
session_report_literals(struct session *s)
{
	s->literals = true;
}
