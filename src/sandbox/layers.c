/*
 * layers.c -- the sandbox's layers as one ordered table, and the first
 * of them, "commands": the command allowlist (policy.c) and the call's
 * written shape (cmd.c).  The other layers have a file each (layers.h):
 * "allowlist" is allowlist.c.
 */
#include "config.h"

#include <string.h>

#include "base/arena.h"
#include "lang/ast.h"
#include "cmd/cmd.h"
#include "layers.h"
#include "policy.h"

const struct layer_entry sandbox_layers[] = {
	{ LAYER_COMMANDS,    LAYER_STAGE_CHECK, true,  commands_decide },
	{ LAYER_ALLOWLIST,   LAYER_STAGE_CHECK, false, allowlist_decide },
	{ LAYER_BUDGET,      LAYER_STAGE_CHECK, false, budget_decide },
	{ LAYER_SURFACE,     LAYER_STAGE_ARGS,  true,  surface_decide },
	{ LAYER_NETWORK,     LAYER_STAGE_ARGS,  true,  network_decide },
	{ LAYER_IDEMPOTENCY, LAYER_STAGE_ARGS,  true,  idempotency_decide },
	{ LAYER__COUNT,      LAYER_STAGE_CHECK, false, NULL }
};

size_t
layers_path(enum boundary b, enum input_kind k,
    enum layer out[LAYERS_PATH_MAX])
{
	const struct boundary_row *row = boundary_row(b);
	const struct layer_entry *l;
	size_t n = 0;

	if (row->layers == NULL) {	/* the policy's: this table */
		out[n++] = LAYER_PARSE;
		for (l = sandbox_layers; l->decide != NULL; l++)
			if (k == KIND_COMMAND || !l->commands_only)
				out[n++] = l->layer;
		out[n++] = LAYER_EVAL;
		return n;
	}
	/* (the other kinds' rules live in their boundary: jail.h,
	 * world.h; paths.c lists them in the order they stand) */
	for (n = 0; n < row->nlayers && n < LAYERS_PATH_MAX; n++)
		out[n] = row->layers[n];
	return n;
}

bool
layers_walk(enum layer_stage stage, enum layer last, struct layer_call *c,
    struct layer_decision *d)
{
	const struct layer_entry *l;

	for (l = sandbox_layers; l->decide != NULL; l++) {
		if (l->stage == stage && (c->e != NULL || !l->commands_only)) {
			*d = (struct layer_decision){ .verdict = VERDICT_OK,
			    .layer = l->layer };
			if (!l->decide(c, d))
				return false;
		}
		if (l->layer == last)
			break;
	}
	return true;
}

/* The literal str a command's call gives key, by position, keyword
 * or in its dict, or NULL. */
static const char *
literal_arg(const struct cmd_entry *e, const struct node *call,
    const char *key)
{
	const struct nodelist *args = &call->u.call.args;
	const struct node *v = NULL;
	size_t i, k;

	if (args->len == 1 && args->items[0]->kind == NODE_DICT) {
		const struct node *d = args->items[0];
		for (i = 0; i < d->u.dict.keys.len; i++) {
			const struct node *kn = d->u.dict.keys.items[i];
			if (kn != NULL && kn->kind == NODE_CONSTANT &&
			    kn->u.constant.value.type == VT_STR &&
			    strcmp(kn->u.constant.value.as.s->data, key) == 0)
				v = d->u.dict.values.items[i];
		}
	} else		/* by position: the entry's keys in order */
		for (i = 0, k = 0; e->keys[k] != NULL; k++) {
			if (strcmp(e->keys[k], "idempotency_key") == 0)
				continue;
			if (i < args->len && strcmp(e->keys[k], key) == 0)
				v = args->items[i];
			i++;
		}
	for (i = 0; i < call->u.call.keywords.len; i++) {
		const struct node *kw = call->u.call.keywords.items[i];
		if (kw->u.keyword.arg != NULL &&
		    strcmp(kw->u.keyword.arg, key) == 0)
			v = kw->u.keyword.value;
	}
	return v != NULL && v->kind == NODE_CONSTANT &&
	    v->u.constant.value.type == VT_STR ?
	    v->u.constant.value.as.s->data : NULL;
}

/* Best-effort target of a command from its literal argument, for
 * records of commands refused before evaluation. */
static const char *
literal_target(const struct cmd_entry *e, const struct node *call)
{
	const char *key = e->path_key ? e->path_key : e->url_key;
	const char *t = key != NULL ? literal_arg(e, call, key) : NULL;

	return t != NULL ? t : e->name;
}

bool
commands_decide(struct layer_call *c, struct layer_decision *d)
{
	const struct policy *p = c->policy;
	const struct cmd_entry *e = c->e;

	if (!policy_allows_command(p, e->name)) {
		d->node = c->call;
		d->effect_op = e->op;
		d->effect_target = literal_target(e, c->call);
		d->verdict = VERDICT_BLOCKED;
		d->rule = "commands";
		d->reason = arena_printf(c->a, "%s is not allowed (%s)",
		    e->name, p->commands[0] == NULL ? "no command is" :
		    p->commands[1] == NULL ? arena_printf(c->a, "only %s is",
		    p->commands[0]) : arena_printf(c->a, "%s are",
		    policy_list_words(c->a, p->commands, 12)));
		d->essay = arena_printf(c->a, "command '%s' not on the "
		    "allowlist", e->name);
		return false;
	}
	return command_shape_decide(c, d);
}

/* A command's call is written out: its argument as one dict, or by
 * position and keyword (cmd.h); else an error that shows a call that
 * works.  Every path asks this, the unsafe and jail paths too. */
bool
command_shape_decide(struct layer_call *c, struct layer_decision *d)
{
	const char *why;

	if (c->e == NULL)
		return true;
	why = cmd_shape_error(c->a, c->e, c->call);
	if (why == NULL)
		return true;
	d->node = c->call;
	d->verdict = VERDICT_ERROR;
	d->layer = LAYER_COMMANDS;
	d->rule = "arguments";
	d->reason = why;
	return false;
}
