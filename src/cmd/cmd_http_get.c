/*
 * cmd_http_get.c -- http_get({'url': U, 'body': B}): a request to a host.
 *
 * There is no network on any path.  On the unsafe path the request is the
 * essay's exfiltration, simulated; behind the boundary it never gets past
 * the network layer unless a policy lists the host, and even then the
 * answer is a canned one from this file: nothing leaves the machine.
 */
#include "config.h"

#include "base/arena.h"
#include "cmd.h"
#include "record/effect.h"
#include "fs/fsops.h"
#include "fs/workspace.h"

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

static const char *const docs[] = {
	"The URL, e.g. https://example.com/x.",
	"Optional. A body to send.",
	NULL
};

/* The function a CPython world runs (cmd.h): CPython's own calls. */
static const char world[] =
	"request = __import__('urllib.request').request\n"
	"body = d.get('body')\n"
	"req = request.Request(d['url'],\n"
	"                      data=None if body is None else body.encode())\n"
	"try:\n"
	"    with request.urlopen(req, timeout=3) as r:\n"
	"        text = r.read(65536).decode('utf-8', 'replace')\n"
	"        said[0] = f'{r.status} {r.reason} from {d[\"url\"]}'\n"
	"        return text\n"
	"except OSError as e:\n"
	"    said[0] = f'no answer from {d[\"url\"]} ({e})'\n"
	"    return ''\n";

const struct cmd_entry cmd_http_get_entry = {
	.name = "http_get",
	.op = "send",
	.example = "http_get('https://example.com/')",
	.keys = keys,
	.required = required,
	.url_key = "url",
	.run = run,
	.title = "Fetch a URL",
	.description = "Fetch a URL, optionally sending a body.",
	.docs = docs,
	.hints = { .open_world = true },
	.world = world,
};
