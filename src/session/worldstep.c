/*
 * worldstep.c -- a path's world: built when first needed, given the
 * input, and its reply made the path's record.
 *
 * A world that cannot be built falls back to the model where the path's
 * boundary allows it (never behind a kernel: that path refuses), and the
 * session says why (session_engine_note).  A reply's effects, output and
 * status become the record's verdict here: a limit that stopped the code
 * is the bomb going off on the replica, contained by a jail, or the
 * policy's world stopping what its policy let through.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "fs/mockfs.h"
#include "interp/ns.h"
#include "session_int.h"
#include "state.h"
#include "base/strlist.h"
#include "base/xalloc.h"

/* A world's live output (world_input.live), to the session's fn. */
static void
live_output(void *ctx, const char *stream, const char *text, size_t len)
{
	struct live *l = ctx;

	if (l->s->output != NULL)
		l->s->output(l->s->output_ctx, l->p, stream, text, len);
}

/*
 * Build the path's world from its files, the environment and the seeded
 * names.  Where that fails, the path runs the model from now on, and
 * the session keeps the reason (session_engine_note): never a silent
 * change of engine.
 */
struct world *
worldstep_ready(struct session *s, struct pathstate *ps, struct arena *a,
    const char **why)
{
	struct world_seed seed = {
		.fs = ps->fs, .env = session_env(s),
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
	if (session_boundary_of(s, ps)->model == MODEL_IN_PROCESS)
		return NULL;	/* (its own evaluator, as before) */
	ps->world = world_new(WORLD_ENGINE_MODEL, 0, 0);
	(void)world_build(ps->world, &seed, &err);
	return ps->world;
}

/* The layer a world's reply names ("rlimit", "seccomp", "gvisor": the
 * world's side of this process says which, never the code), by its
 * name in records; eval when it names none. */
static enum layer
layer_named(const char *name)
{
	int l;

	for (l = 0; name != NULL && l < LAYER__COUNT; l++)
		if (strcmp(name, record_layer_name((enum layer)l)) == 0)
			return (enum layer)l;
	return LAYER_EVAL;
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
		if (restore_bound(st->ps, names[i])) {
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

struct world_input
worldstep_input(struct session *s, struct pathstate *ps,
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
 * The secret in the world's environment (session_env: the agent's live
 * key) is read without a file: when its value comes back in what the code
 * returned or printed, the code had it in hand -- a disclosure, as a read
 * of secrets.txt is (mark_disclosures), unless one is already told.
 */
static void
secret_values(struct step *st, const struct world_reply *rep)
{
	const char *const *env = session_env(st->s);
	size_t i, k;

	for (i = 0; i < st->ev.effects.n; i++) {
		const struct effect *f = &st->ev.effects.items[i];
		if ((f->category != NULL &&
		    strcmp(f->category, "disclosure") == 0) ||
		    (strcmp(f->op, "read") == 0 &&
		    records_is_secret(f->target)))
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

void
worldstep_run(struct step *st, const char *src, const struct cmd_entry *e,
    void (*model_run)(void *ctx), void *model_ctx)
{
	struct world_input in = worldstep_input(st->s, st->ps, src, e, st->a);
	struct world *w = st->ps->world;
	struct world_reply rep;
	size_t i;

	in.model_run = model_run;
	in.model_ctx = model_ctx;
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
		step_decide(st, VERDICT_CONTAINED, layer_named(rep.layer),
		    st->kind->rule,
		    rep.status == WORLD_RAISED ? arena_printf(st->a,
		    "%s; then %s", rep.refused, rep.error) : rep.refused);
		st->r->result = rep.result;
		return;
	}
	switch (rep.status) {
	case WORLD_OK:
		step_decide(st, VERDICT_OK, LAYER_EVAL, NULL, NULL);
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
			step_decide(st, VERDICT_ERROR, LAYER_EVAL, NULL,
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
			step_decide(st, VERDICT_LANDED, LAYER_EVAL, NULL,
			    rep.error);
			st->raised_after = rep.error;
			break;
		}
		step_decide(st, VERDICT_ERROR, LAYER_EVAL, NULL, rep.error);
		break;
	case WORLD_LOST:
		step_decide(st, VERDICT_ERROR, LAYER_EVAL, NULL, rep.error);
		break;
	case WORLD_KILLED:
		/* a bomb goes off in a replica; a jail contains it; the
		 * sandbox's world stops what its policy let through */
		if (st->kind->guard == GUARD_POLICY)
			step_decide(st, VERDICT_BLOCKED, layer_named(rep.layer),
			    "limits", rep.error);
		else
			step_decide(st, world_kind_contains(w->kind) ?
			    VERDICT_CONTAINED : VERDICT_LANDED,
			    layer_named(rep.layer),
			    world_kind_contains(w->kind) ? st->kind->rule :
			    NULL, rep.error);
		break;
	default:
		break;
	}
}
