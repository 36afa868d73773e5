/*
 * budget.c -- the budget layer: the sandbox path runs so many inputs, and
 * then refuses the rest.  Every input the layers before it let through
 * costs one, whether it then runs well or not; the count is the
 * session's (and --state keeps it).
 */
#include "config.h"

#include "base/arena.h"
#include "layers.h"

bool
budget_decide(struct layer_call *c, struct layer_decision *d)
{
	if (*c->used >= c->limit) {
		d->verdict = VERDICT_BLOCKED;
		d->rule = "budget";
		d->reason = arena_printf(c->a, "budget exhausted (%u of %u "
		    "inputs used)", *c->used, c->limit);
		return false;
	}
	(*c->used)++;
	return true;
}
