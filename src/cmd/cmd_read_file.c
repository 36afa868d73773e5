/*
 * cmd_read_file.c -- read_file({'path': P}): the file's text.
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
	size_t len;
	const char *d;

	if (!fsops_read(ws, path, &d, &len))
		return false;
	effect_add(ws->effects, "read", path, EFFECT_HARMLESS,
	    arena_printf(ws->rt->arena, "read %s", path), false);
	r->result = value_str(ws->rt->arena, d, len);
	r->message = r->result.as.s->data;
	return true;
}

static const char *const keys[] = { "path", NULL };

static const char *const docs[] = {
	CMD_DOC_PATH,
	NULL
};

/* The function a CPython world runs (cmd.h): CPython's own calls. */
static const char world[] =
	"with open(d['path'], encoding='utf-8', errors='replace') as f:\n"
	"    text = f.read()\n"
	"said[0] = text\n"
	"return text\n";

const struct cmd_entry cmd_read_file_entry = {
	.name = "read_file",
	.op = "read",
	.example = "read_file('report.txt')",
	.keys = keys,
	.required = keys,
	.path_key = "path",
	.run = run,
	.title = "Read a file",
	.description = "Read a file from the workspace.",
	.docs = docs,
	.hints = { .read_only = true, .idempotent = true },
	.world = world,
};
