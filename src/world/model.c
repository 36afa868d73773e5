/*
 * model.c -- the model world: sandboxrepl's own object model, in-process.
 *
 * The engine where CPython worlds cannot be built (no user namespaces, no
 * libpython) or where --engine=model asks for it.  Its workspace is the
 * path's mock filesystem itself, so there is nothing to build, read back
 * or destroy, and its run is the session's evaluator, which the input
 * carries (world.h): the evaluator writes the record itself.
 */
#include "config.h"

#include <string.h>

#include "world.h"
#include "world_int.h"

bool
model_build(struct world *w, const struct world_seed *seed, char **err)
{
	(void)seed;
	*err = NULL;
	w->built = true;
	return true;
}

static void
model_run(struct world *w, const struct world_input *in,
    struct world_reply *out)
{
	(void)w;
	memset(out, 0, sizeof *out);
	in->model_run(in->model_ctx);
	out->status = WORLD_OK;
	out->decided = true;
}

void
model_read_back(struct world *w, struct mfs *fs)
{
	(void)w;
	(void)fs;
}

static void
model_destroy(struct world *w)
{
	(void)w;
}

const struct world_ops world_model_ops = {
	.engine = WORLD_ENGINE_MODEL,
	.build = model_build,
	.run_input = model_run,
	.read_back = model_read_back,
	.destroy = model_destroy,
};
