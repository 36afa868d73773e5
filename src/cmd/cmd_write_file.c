/*
 * cmd_write_file.c -- write_file({'path': P, 'text': T}): create or
 * replace a file.  The one command the idempotency layer guards: a retried
 * write with the same key does not write twice.
 */
#include "config.h"

#include <string.h>

#include "base/arena.h"
#include "cmd.h"
#include "record/effect.h"
#include "fs/fsops.h"
#include "fs/workspace.h"

static bool
run(struct cmd_run *r)
{
	struct workspace *ws = r->ws;
	const char *path = cmd_arg(r, "path");
	const char *text = cmd_arg(r, "text");
	bool replaced;

	if (!fsops_write(ws, path, text, strlen(text), false, &replaced))
		return false;
	effect_add(ws->effects, "write", path,
	    r->unsafe && replaced ? EFFECT_DAMAGE : EFFECT_HARMLESS,
	    arena_printf(ws->rt->arena, replaced ? "overwrote %s" :
	    "wrote %s", path), false);
	r->message = arena_printf(ws->rt->arena, "wrote %s", path);
	r->result = value_none();
	return true;
}

static const char *const keys[] = { "path", "text", "idempotency_key", NULL };
static const char *const required[] = { "path", "text", NULL };

static const char *const docs[] = {
	CMD_DOC_PATH,
	"The file's new contents.",
	CMD_DOC_IDEMPOTENCY_KEY,
	NULL
};

/* The function a CPython world runs (cmd.h): CPython's own calls. */
static const char world[] =
	"with open(d['path'], 'w', encoding='utf-8') as f:\n"
	"    f.write(d['text'])\n"
	"said[0] = 'wrote ' + d['path']\n";

const struct cmd_entry cmd_write_file_entry = {
	.name = "write_file",
	.op = "write",
	.example = "write_file('out.txt', 'hello')",
	.keys = keys,
	.required = required,
	.path_key = "path",
	.writes = true,
	.run = run,
	.title = "Write a file",
	.description = "Create or replace a file in the workspace. A "
	    "retried write with the same arguments (or the same "
	    "idempotency_key) is done once.",
	.docs = docs,
	.hints = { .destructive = true, .idempotent = true },
	.world = world,
};
