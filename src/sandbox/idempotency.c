/*
 * idempotency.c -- the idempotency layer: a write runs once per key.  Its
 * key is the caller's idempotency_key, else the command and its
 * canonical arguments; the session's ledger (ledger.c) remembers what
 * ran.  The same key again with the same arguments is done already (ok,
 * and nothing runs); with other arguments it is refused.
 */
#include "config.h"

#include <string.h>

#include "base/arena.h"
#include "cmd/cmd.h"
#include "layers.h"
#include "ledger.h"
#include "base/sbuf.h"
#include "value/value.h"

/* Canonical arguments: the dict's items sorted by key, without the
 * idempotency key itself, as a repr. */
static const char *
canonical_args(struct arena *a, value args)
{
	struct sbuf b = SBUF_INIT;
	const struct vdict *d = args.as.dict;
	const struct ventry **sorted = arena_array(a, d->used + 1,
	    sizeof *sorted);
	size_t i, j, n = 0;
	const char *s;

	for (i = 0; i < d->used; i++) {
		const struct ventry *e = &d->entries[i];
		if (!e->live || strcmp(e->key.as.s->data,
		    "idempotency_key") == 0)
			continue;
		for (j = n; j > 0 && strcmp(sorted[j - 1]->key.as.s->data,
		    e->key.as.s->data) > 0; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = e;
		n++;
	}
	sbuf_addc(&b, '{');
	for (i = 0; i < n; i++) {
		if (i)
			sbuf_adds(&b, ", ");
		value_str_repr(sorted[i]->key.as.s, false, &b);
		sbuf_adds(&b, ": ");
		value_str_repr(sorted[i]->val.as.s, false, &b);
	}
	sbuf_addc(&b, '}');
	s = arena_strdup(a, sbuf_cstr(&b));
	sbuf_free(&b);
	return s;
}

bool
idempotency_decide(struct layer_call *c, struct layer_decision *d)
{
	const char *key, *canon, *done;
	bool same_args = true;

	if (c->e == NULL || !c->e->writes)
		return true;
	canon = canonical_args(c->a, c->run->args);
	key = cmd_arg(c->run, "idempotency_key");
	key = key ? arena_printf(c->a, "key:%s", key) :
	    arena_printf(c->a, "%s:%s", c->e->name, canon);
	done = ledger_find(c->ledger, key, canon, &same_args);
	if (done != NULL && !same_args) {
		d->node = c->arg;
		d->verdict = VERDICT_BLOCKED;
		d->rule = "idempotency";
		d->reason = arena_printf(c->a, "idempotency key '%s' was "
		    "already used with different arguments",
		    cmd_arg(c->run, "idempotency_key"));
		return false;
	}
	if (done != NULL) {	/* done already: ok, and it does not run */
		d->outcome = arena_printf(c->a, "%s (idempotent: already "
		    "done)", done);
		return false;
	}
	c->key = key;
	c->args_canon = canon;
	return true;
}
