/*
 * cmd_http_get.c -- http_get({'url': U, 'body': B}): a request to a host.
 *
 * There is no network on any path.  On the unsafe path the request is the
 * essay's exfiltration, simulated; behind the boundary it never gets past
 * the network layer unless a policy lists the host, and even then the
 * answer is a canned one from this file: nothing leaves the machine.
 */
#include "config.h"

#include "arena.h"
#include "cmd.h"
#include "effect.h"
#include "fsops.h"
#include "workspace.h"

static bool
run(struct cmd_run *r)
{
	struct workspace *ws = r->ws;
	const char *url = cmd_arg(r, "url");
	const char *body = cmd_arg(r, "body");
	struct arena *a = ws->rt->arena;

	if (ws->jailed)
		return fsops_connect(ws, url);
	if (body != NULL)
		effect_add(ws->effects, "send", url, EFFECT_EXFILTRATION,
		    arena_printf(a, "sent '%s' to %s", body, url), false);
	else
		effect_add(ws->effects, "send", url, EFFECT_EXFILTRATION,
		    arena_printf(a, "fetched %s", url), false);
	r->message = arena_printf(a, "200 OK (mock response from %s)", url);
	r->result = value_cstr(a, "");
	return true;
}

static const char *const keys[] = { "url", "body", NULL };
static const char *const required[] = { "url", NULL };

const struct cmd_entry cmd_http_get_entry = {
	.name = "http_get",
	.op = "send",
	.example = "http_get('https://example.com/')",
	.keys = keys,
	.required = required,
	.url_key = "url",
	.run = run,
};
