/*
 * surface.c -- the surface layer: a command that names a file may name
 * only one of the sandbox's own (no path out of its folder, no hidden or
 * special file; cmd_surface_check in cmd.c holds the rule).  A refused
 * command's effect is recorded as refused.
 */
#include "config.h"

#include "cmd/cmd.h"
#include "layers.h"

bool
surface_decide(struct layer_call *c, struct layer_decision *d)
{
	const char *path, *why;

	if (c->e == NULL || c->e->path_key == NULL ||
	    (path = cmd_arg(c->run, c->e->path_key)) == NULL ||
	    (why = cmd_surface_check(c->a, path)) == NULL)
		return true;
	d->node = c->arg;
	d->effect_op = c->e->op;
	d->effect_target = path;
	d->verdict = VERDICT_BLOCKED;
	d->rule = "surface";
	d->reason = why;
	return false;
}
