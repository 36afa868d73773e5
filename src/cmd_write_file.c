/*
 * cmd_write_file.c -- write_file({'path': P, 'text': T}): create or
 * replace a file.  The one command the idempotency layer guards: a retried
 * write with the same key does not write twice.
 */
#include "config.h"

#include <string.h>

#include "arena.h"
#include "cmd.h"
#include "eval.h"
#include "mockfs.h"

static bool
run(struct cmd_run *r)
{
	struct eval *ev = r->ev;
	const char *path = cmd_arg(r, "path");
	const char *text = cmd_arg(r, "text");
	size_t oldlen;
	const char *old = mfs_get(ev->fs, path, &oldlen);
	bool replaced = old != NULL;
	size_t len = strlen(text);

	(void)oldlen;
	mfs_put(ev->fs, path, text, len);
	eval_effect(ev, "write", path,
	    r->unsafe && replaced ? "damage" : NULL,
	    arena_printf(ev->rt.arena, replaced ? "overwrote %s" :
	    "wrote %s", path), false);
	r->message = arena_printf(ev->rt.arena, "wrote %s", path);
	r->result = value_none();
	return true;
}

static const char *const keys[] = { "path", "text", "idempotency_key", NULL };
static const char *const required[] = { "path", "text", NULL };

const struct cmd_entry cmd_write_file_entry = {
	.name = "write_file",
	.keys = keys,
	.required = required,
	.path_key = "path",
	.writes = true,
	.run = run,
};
