/*
 * network.c -- the no-network layer: a command that sends a request may
 * reach only a host the policy lists (by default none).  A refused
 * request is recorded as a "send" that was refused.
 */
#include "config.h"

#include "base/arena.h"
#include "cmd/cmd.h"
#include "layers.h"
#include "policy.h"

bool
network_decide(struct layer_call *c, struct layer_decision *d)
{
	const char *url, *host;

	if (c->e == NULL || c->e->url_key == NULL)
		return true;
	url = cmd_arg(c->run, c->e->url_key);
	host = cmd_url_host(c->a, url);
	if (host != NULL && policy_allows_host(c->policy, host))
		return true;
	d->node = c->arg;
	d->effect_op = "send";
	d->effect_target = url;
	d->verdict = VERDICT_BLOCKED;
	d->rule = "network";
	d->reason = arena_printf(c->a, "host '%s' is not reachable (no "
	    "network)", host ? host : url);
	return false;
}
