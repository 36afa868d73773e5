/*
 * step.c -- one input on one path: the sandbox's layers, the evaluator,
 * the commands and the jail, deciding the path's record.
 *
 * step_run_path() takes the parsed input (input.c) on one path, whose
 * boundary's row (paths.h) says which way it goes: the policy's layers
 * (layers.c) then the evaluator or the policy's world; no boundary: the
 * path's world; a kernel: the jail's world or the model in its own
 * kernel jail.  Code that ran in a world becomes its record in
 * worldstep.c; every record is finished in records.c.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "interp/builtins.h"
#include "sandbox/allowlist.h"
#include "cmd/cmd.h"
#include "sandbox/layers.h"
#include "sandbox/ledger.h"
#include "model/mock.h"
#include "interp/ns.h"
#include "value/num.h"
#include "lang/parse.h"
#include "sandbox/policy.h"
#include "session_int.h"

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
			step_decide(st, VERDICT_LANDED, LAYER_EVAL, NULL, NULL);
			return;
		}
		step_decide(st, VERDICT_BLOCKED, LAYER_LIMITS, "limits",
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
	step_decide(st, VERDICT_ERROR, LAYER_EVAL, NULL,
	    arena_printf(st->a, "%s: %s", pyexc_name(ev->rt.exc.cls), ev->rt.exc.msg));
}

/* The result's repr, in the records' arena; NULL with the exception
 * in st->ev.rt when it cannot be had. */
static const char *
repr_of(struct step *st, value v)
{
	struct sbuf b = SBUF_INIT;
	const char *s = NULL;

	if (v.type == VT_FLOAT) {	/* (value_repr's, without a buffer) */
		char buf[40];
		size_t n;
		num_format_double(v.as.f, true, false, buf);
		n = strlen(buf);
		return rt_check_bytes(&st->ev.rt, 4 * (uint64_t)n) ?
		    arena_strndup(st->a, buf, n) : NULL;
	}
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
	step_decide(st, d->verdict, d->layer, d->rule, d->reason);
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
	step_decide(st, VERDICT_OK, LAYER_EVAL, NULL, NULL);
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

	if (restore_is_literal_node(arg, 0)) {
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
	    restore_is_literal_node(pr.root->u.expression.body, 0) &&
	    eval_expr(&st->ev, pr.root->u.expression.body, out))
		return true;
	mark_node(st->r, arg);
	step_decide(st, VERDICT_ERROR, LAYER_COMMANDS, "arguments",
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
	step_decide(st, VERDICT_ERROR, LAYER_COMMANDS, "arguments",
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
		step_decide(st, VERDICT_ERROR, LAYER_EVAL, NULL,
		    arena_printf(st->a, "%s: %s", pyexc_name(ev->rt.exc.cls),
		    ev->rt.exc.msg));
		return;
	}
	if (key != NULL)
		ledger_add(st->ps->ledger, key, args_canon, run.message);
	step_decide(st, VERDICT_OK, LAYER_EVAL, NULL, NULL);
	st->r->result = repr_of(st, run.result);
	if (st->r->result == NULL)
		decide_exception(st);
	st->r->outcome = run.message ? arena_strdup(st->a, run.message) : NULL;
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

	records_mark_disclosures(st, effects, n);
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
 * The jail path under the model engine (the row's MODEL_IN_JAIL): with
 * --jail-filter the sandbox's allowlists run first, in-process, as the
 * essay recommends (defense in depth); then the input runs for real in
 * a world of the model-jail kind, a kernel jail of its own per input,
 * which writes the record (world.h).
 */
static void
run_jail(struct step *st, const struct node *root, const struct cmd_entry *e,
    const struct node *call)
{
	const struct world_parsed parsed = {
		.root = root, .cmd = e, .call = call, .fs = st->ps->fs,
		.ns = st->ps->ns, .record = st->r,
	};
	const struct world_input in = {
		.src = st->r->input, .len = strlen(st->r->input),
		.command = e != NULL ? e->name : NULL, .a = st->a,
		.parsed = &parsed,
	};
	struct world_reply rep;
	struct world *w;

	st->r->kind = e ? KIND_COMMAND : KIND_CODE;
	if (st->s->jail_filter && !jail_filter(st, root, e, call))
		return;
	if (e != NULL && !command_shape(st, e, call))
		return;
	w = world_new_kind(WORLD_ENGINE_MODEL, WORLD_KIND_MODEL_JAIL,
	    st->s->world_wall_ms, st->s->jail_fail_at);
	world_run(w, &in, &rep);
	world_free(w);
	told_inside(st, st->r->effects, st->r->neffects);
}

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
		step_decide(st, VERDICT_ERROR, st->kind->refuses_at, "jail",
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

/* Run src in the step's world (worldstep.c), whose model, if it is the
 * model world, is this session's own evaluator on root or e's call. */
static void
run_world(struct step *st, const char *src, const struct node *root,
    const struct cmd_entry *e, const struct node *call)
{
	struct model_job job = { st, root, e, call };

	worldstep_run(st, src, e, model_step, &job);
}

void
step_run_path(struct session *s, enum path_id p, const char *input, size_t len,
    const struct parse_result *pr, const struct line *ln, const char *label,
    struct arena *a, struct arena *pa, struct meter *mem, struct record *r)
{
	struct step st;
	const struct cmd_entry *e = NULL;
	const struct node *call = NULL;
	const char *refused = NULL;
	struct world *w = NULL;

	/* (every field but ev, which eval_init() below clears: it is
	 * most of the step, and was cleared twice) */
	memset(&st, 0, offsetof(struct step, ev));
	memset((char *)&st + offsetof(struct step, ev) + sizeof st.ev, 0,
	    sizeof st - offsetof(struct step, ev) - sizeof st.ev);
	st.s = s;
	st.path = p;
	st.ps = &s->paths[p];
	st.r = r;
	st.a = a;
	st.kind = session_boundary(s, p);
	if (session_live_world(s, p) != NULL)
		w = worldstep_ready(s, st.ps, a, &refused);
	else
		/* (the sandbox's files changed without its world, under a
		 * policy that stays in the subset: a later one is built
		 * from them) */
		session_renew_world(s, st.ps);
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
	/* (no boundary: the model's files are the pretend host's copy) */
	eval_init(&st.ev, pa, &mock_model, st.kind->guard == GUARD_NONE ?
	    &workspace_host : &workspace_mock, st.kind->guard == GUARD_KERNEL);
	st.ev.rt.mem = mem;
	st.ev.ws.fs = st.ps->fs;
	st.ev.ns = st.ps->ns;
	st.ev.src = r->input;
	if (st.kind->guard == GUARD_POLICY) {
		if (s->calls == NULL)
			s->calls = eval_calls_new(s->policy->calls,
			    s->policy->name_rule != NAMES_ALL,
			    s->policy->attr_rule == ATTRS_PUBLIC);
		st.ev.calls = s->calls;
		st.ev.rt.limits = s->policy->limits;
		st.ev.full_model = s->policy->object_model;
	} else {
		st.ev.full_model = true;
		st.ev.rt.limits = session_unsafe_limits;
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
		step_decide(&st, VERDICT_ERROR, LAYER_PARSE, "syntax",
		    arena_strdup(a, sbuf_cstr(&b)));
		sbuf_free(&b);
		records_finish(&st, input, len, label, NULL);
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
			session_renew_world(s, st.ps);
		records_finish(&st, input, len, label, e ? e->name : NULL);
		return;
	}
	if (w != NULL && st.world == NULL)
		run_world(&st, st.src, pr->root, e, call);
	else if (e != NULL)
		run_command(&st, e, call);
	else
		run_code(&st, pr->root);
	if (s->fresh_world)
		session_renew_world(s, st.ps);
	/* bindings the input made are copied now, before its arena goes
	 * (all of them if it changed a value in place: the change lives in
	 * the input's arena too) */
	if (st.ev.mutated)
		ns_recopy(st.ps->ns);
	else
		ns_commit(st.ps->ns);
	records_finish(&st, input, len, label, e ? e->name : NULL);
}
