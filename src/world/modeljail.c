/*
 * modeljail.c -- the model-jail world: the jail path under the model
 * engine, the model evaluating each input in a fresh kernel jail of its
 * own (jailpath.h; its container is jail.h's MODEL row).
 *
 * Nothing lives between inputs: each run is a new jail, built and gone
 * with the input, so there is nothing to build beforehand, read back or
 * destroy but its options.  Its run is given the parsed input
 * (world_input.parsed) and decides the record itself, as the model
 * world's does (world_reply.decided): the jail path's files and names
 * become the workspace as the jail left it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "jail/jailpath.h"
#include "world.h"
#include "world_int.h"

struct modeljail {
	unsigned	 wall_ms;	/* 0: the jail's default */
	int		 fail_at;	/* test hook: a jail set-up step */
};

void *
modeljail_new(unsigned wall_ms, int fail_at)
{
	struct modeljail *m = xcalloc(1, sizeof *m);

	m->wall_ms = wall_ms;
	m->fail_at = fail_at;
	return m;
}

static void
modeljail_run(struct world *w, const struct world_input *in,
    struct world_reply *out)
{
	const struct modeljail *m = w->impl;
	const struct world_parsed *p = in->parsed;
	struct jailpath_job job;

	memset(out, 0, sizeof *out);
	if (p == NULL) {	/* (nothing parsed: nothing runs) */
		out->status = WORLD_LOST;
		out->error = "the model's jail runs parsed input only";
		return;
	}
	job = (struct jailpath_job){
		.root = p->root, .cmd = p->cmd, .call = p->call, .fs = p->fs,
		.ns = p->ns, .fail_at = m->fail_at, .wall_ms = m->wall_ms,
	};
	jailpath_run(&job, in->a, p->record);
	out->status = WORLD_OK;
	out->decided = true;
}

static void
modeljail_destroy(struct world *w)
{
	free(w->impl);
	w->impl = NULL;
}

const struct world_ops world_modeljail_ops = {
	.engine = WORLD_ENGINE_MODEL,
	.build = model_build,	/* (nothing to build: a jail per input) */
	.run_input = modeljail_run,
	.read_back = model_read_back,	/* (jailpath_run wrote the files) */
	.destroy = modeljail_destroy,
};
