/*
 * world.c -- making a world of an engine and kind, the calls every world
 * answers (dispatched through its ops), and finding the best engine this
 * process can use.  The engine and kind tables the kinds consult live in
 * kinds.c, so that world.c calls the kinds and nothing calls back.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "fs/mockfs.h"
#include "world.h"
#include "world_int.h"
#include "base/xalloc.h"

void
world_worker_main(int argc, char **argv)
{
#ifdef HAVE_PYTHON
	gvisor_worker_main(argc, argv);
	microvm_worker_main(argc, argv);
#else
	(void)argc;
	(void)argv;
#endif
}

struct world *
world_new_kind(enum world_engine e, enum world_kind k, unsigned wall_ms,
    int fail_at)
{
	struct world *w = xcalloc(1, sizeof *w);

	if (k == WORLD_KIND_MODEL_JAIL) {	/* (the model's, any engine) */
		w->ops = &world_modeljail_ops;
		w->kind = k;
		w->impl = modeljail_new(wall_ms, fail_at);
		return w;
	}
	w->ops = &world_model_ops;
	w->kind = WORLD_KIND_REPLICA;
#ifdef HAVE_PYTHON
	if (e == WORLD_ENGINE_CPYTHON) {
		w->ops = &world_cpython_ops;
		w->kind = k;
		w->impl = world_cpython_new(wall_ms, fail_at, k);
	}
#else
	(void)e;
	(void)k;
	(void)wall_ms;
	(void)fail_at;
#endif
	return w;
}

struct world *
world_new(enum world_engine e, unsigned wall_ms, int fail_at)
{
	return world_new_kind(e, WORLD_KIND_REPLICA, wall_ms, fail_at);
}

void
world_free(struct world *w)
{
	if (w == NULL)
		return;
	w->ops->destroy(w);
	free(w);
}

struct world *
world_renew(struct world *w, unsigned wall_ms, int fail_at)
{
	struct world *next = world_new_kind(w->ops->engine, w->kind, wall_ms,
	    fail_at);

	if (w->built && w->ops->renew != NULL && next->ops == w->ops)
		w->ops->renew(w, next);
	world_free(w);
	return next;
}

bool
world_build(struct world *w, const struct world_seed *seed, char **err)
{
	return w->ops->build(w, seed, err);
}

void
world_prestart(struct world *w)
{
	if (w != NULL && !w->built && w->ops->prestart != NULL)
		w->ops->prestart(w);
}

bool
world_booting(const struct world *w, double *secs, bool *ready)
{
	*secs = 0;
	*ready = false;
	return w != NULL && !w->built && w->ops->booting != NULL &&
	    w->ops->booting(w, secs, ready);
}

const char *
world_kind_detail(enum world_kind k)
{
#ifdef HAVE_PYTHON
	const struct world_launcher *l = world_kind_launcher(k);

	return l != NULL && l->detail != NULL ? l->detail() : NULL;
#else
	(void)k;
	return NULL;
#endif
}

void
world_run(struct world *w, const struct world_input *in,
    struct world_reply *out)
{
	w->ops->run_input(w, in, out);
}

bool
world_start(struct world *w, const struct world_input *in)
{
	if (w->ops->start_input == NULL || !w->built)
		return false;
	w->ops->start_input(w, in);
	return true;
}

void
world_settle(struct world *w)
{
	if (w != NULL && w->ops->settle != NULL)
		w->ops->settle(w);
}

void
world_read_back(struct world *w, struct mfs *fs)
{
	w->ops->read_back(w, fs);
}

const char *const *
world_names(const struct world *w, size_t *n)
{
	*n = 0;
	return w->ops->names != NULL ? w->ops->names(w, n) : NULL;
}

const char *const *
world_literals(const struct world *w, size_t *n)
{
	*n = 0;
	return w->ops->literals != NULL ? w->ops->literals(w, n) : NULL;
}

const char *
world_python_version(char *buf, size_t n)
{
#ifdef HAVE_PYTHON
	return pyrun_version(buf, n);
#else
	(void)buf;
	(void)n;
	return NULL;
#endif
}

void
world_zygote_start(void)
{
#ifdef HAVE_PYTHON
	(void)janitor_start();	/* (forked while the session is small) */
	(void)zygote_start();
#endif
}

pid_t
world_zygote_forget(void)
{
#ifdef HAVE_PYTHON
	return zygote_forget();
#else
	return -1;
#endif
}

#ifndef HAVE_PYTHON
const char *
gvisor_memory_bound(void)
{
	return NULL;
}

enum microvm_accel
microvm_accel(const char **why)
{
	if (why != NULL)
		*why = "built without libpython";
	return MICROVM_TCG;
}

const char *
microvm_accel_words(void)
{
	return "tcg, emulated: slow";
}

bool
microvm_found(char *buf, size_t n)
{
	snprintf(buf, n, "this sandboxrepl was built without libpython");
	return false;
}

const char *
microvm_memory_bound(void)
{
	return "none: built without libpython";
}
#endif

enum world_engine
world_best_engine(const char **why)
{
	static int known = -1;
	static const char *known_why;

	if (known < 0) {
#ifdef HAVE_PYTHON
		struct world *w = world_new(WORLD_ENGINE_CPYTHON, 0, 0);
		struct mfs *fs = mfs_new();
		struct world_seed seed = { .fs = fs };
		char *err = NULL;

		known = WORLD_ENGINE_CPYTHON;
		if (!world_build(w, &seed, &err)) {
			known = WORLD_ENGINE_MODEL;
			known_why = "worlds cannot be built here (no user "
			    "namespaces?)";
		}
		free(err);
		mfs_free(fs);
		world_free(w);
#else
		known = WORLD_ENGINE_MODEL;
		known_why = "built without libpython";
#endif
	}
	if (why != NULL)
		*why = known_why;
	return (enum world_engine)known;
}
