/*
 * cmd_list_files.c -- list_files({}): the sorted file names.
 */
#include "config.h"

#include "arena.h"
#include "cmd.h"
#include "eval.h"
#include "mockfs.h"
#include "sbuf.h"

static bool
run(struct cmd_run *r)
{
	struct eval *ev = r->ev;
	struct sbuf b = SBUF_INIT;
	size_t i;

	r->result = value_list(ev->rt.arena, mfs_count(ev->fs));
	for (i = 0; i < mfs_count(ev->fs); i++)
		value_list_append(ev->rt.arena, r->result,
		    value_cstr(ev->rt.arena, mfs_name(ev->fs, i)));
	if (!value_repr(&ev->rt, r->result, &b)) {
		sbuf_free(&b);
		return false;
	}
	r->message = arena_strdup(ev->rt.arena, sbuf_cstr(&b));
	sbuf_free(&b);
	eval_effect(ev, "list", ".", NULL, "listed the workspace", false);
	return true;
}

static const char *const keys[] = { NULL };

const struct cmd_entry cmd_list_files_entry = {
	.name = "list_files",
	.keys = keys,
	.required = keys,
	.run = run,
};
