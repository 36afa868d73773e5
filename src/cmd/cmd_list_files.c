/*
 * cmd_list_files.c -- list_files(), list_files('.'), list_files({'path':
 * '.'}): the sorted file names of the workspace (the only directory).
 */
#include "config.h"

#include "arena.h"
#include "cmd.h"
#include "eval.h"
#include "fsops.h"
#include "sbuf.h"

static bool
run(struct cmd_run *r)
{
	struct eval *ev = r->ev;
	struct sbuf b = SBUF_INIT;
	const char *dir = cmd_arg(r, "path");

	if (!fsops_listdir(ev, dir != NULL ? dir : ".", &r->result))
		return false;
	if (!value_repr(&ev->rt, r->result, &b)) {
		sbuf_free(&b);
		return false;
	}
	r->message = arena_strdup(ev->rt.arena, sbuf_cstr(&b));
	sbuf_free(&b);
	eval_effect(ev, "list", ".", NULL, "listed the workspace", false);
	return true;
}

static const char *const keys[] = { "path", NULL };
static const char *const required[] = { NULL };

const struct cmd_entry cmd_list_files_entry = {
	.name = "list_files",
	.op = "list",
	.example = "list_files()",
	.keys = keys,
	.required = required,
	.path_key = "path",
	.run = run,
};
