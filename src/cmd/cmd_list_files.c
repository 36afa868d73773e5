/*
 * cmd_list_files.c -- list_files(), list_files('.'), list_files({'path':
 * '.'}): the sorted file names of the workspace (the only directory).
 */
#include "config.h"

#include "base/arena.h"
#include "cmd.h"
#include "record/effect.h"
#include "fs/fsops.h"
#include "base/sbuf.h"
#include "fs/workspace.h"

static bool
run(struct cmd_run *r)
{
	struct workspace *ws = r->ws;
	struct sbuf b = SBUF_INIT;
	const char *dir = cmd_arg(r, "path");

	if (!fsops_listdir(ws, dir != NULL ? dir : ".", &r->result))
		return false;
	if (!value_repr(ws->rt, r->result, &b)) {
		sbuf_free(&b);
		return false;
	}
	r->message = arena_strdup(ws->rt->arena, sbuf_cstr(&b));
	sbuf_free(&b);
	effect_add(ws->effects, "list", ".", EFFECT_HARMLESS,
	    "listed the workspace", false);
	return true;
}

static const char *const keys[] = { "path", NULL };
static const char *const required[] = { NULL };

static const char *const docs[] = {
	CMD_DOC_PATH,
	NULL
};

/* The function a CPython world runs (cmd.h): CPython's own calls. */
static const char world[] =
	"names = sorted(__import__('os').listdir(d.get('path', '.')))\n"
	"said[0] = repr(names)\n"
	"return names\n";

const struct cmd_entry cmd_list_files_entry = {
	.name = "list_files",
	.op = "list",
	.example = "list_files()",
	.keys = keys,
	.required = required,
	.path_key = "path",
	.run = run,
	.title = "List files",
	.description = "List the workspace's file names.",
	.docs = docs,
	.hints = { .read_only = true, .idempotent = true },
	.world = world,
};
