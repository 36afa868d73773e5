/*
 * cmd_delete_file.c -- delete_file({'path': P}): remove a file.  Not on
 * the essay's allowlist; on the unsafe path it is the essay's damage.
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
	const char *path = cmd_arg(r, "path");

	if (!fsops_delete(ws, path))
		return false;
	effect_add(ws->effects, "delete", path, EFFECT_DAMAGE,
	    arena_printf(ws->rt->arena, "deleted %s", path), false);
	r->message = arena_printf(ws->rt->arena, "deleted %s", path);
	r->result = value_none();
	return true;
}

static const char *const keys[] = { "path", "idempotency_key", NULL };
static const char *const required[] = { "path", NULL };

static const char *const docs[] = {
	CMD_DOC_PATH, CMD_DOC_IDEMPOTENCY_KEY,
	NULL
};

/* The function a CPython world runs (cmd.h): CPython's own calls. */
static const char world[] =
	"__import__('os').remove(d['path'])\n"
	"said[0] = 'deleted ' + d['path']\n";

const struct cmd_entry cmd_delete_file_entry = {
	.name = "delete_file",
	.op = "delete",
	.example = "delete_file('out.txt')",
	.keys = keys,
	.required = required,
	.path_key = "path",
	.writes = true,
	.run = run,
	.title = "Delete a file",
	.description = "Delete a file from the workspace.",
	.docs = docs,
	.hints = { .destructive = true },
	.world = world,
};
