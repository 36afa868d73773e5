/*
 * cmd_args.c -- reading a command's evaluated argument: what each
 * cmd_*.c needs from the shared command code.  A leaf, so that cmd.c
 * (the table, which names every command) calls the commands and the
 * commands call only this, never cmd.c back.
 */
#include "config.h"

#include <string.h>

#include "cmd.h"

const char *
cmd_arg(const struct cmd_run *r, const char *key)
{
	size_t i;
	const struct vdict *d = r->args.as.dict;
	for (i = 0; i < d->used; i++) {
		const struct ventry *e = &d->entries[i];
		if (e->live && e->key.type == VT_STR &&
		    strcmp(e->key.as.s->data, key) == 0)
			return e->val.type == VT_STR ? e->val.as.s->data : NULL;
	}
	return NULL;
}
