/*
 * snap.c -- snapshots: the session as it is now, in memory, to go back
 * to later (session.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sandbox/ledger.h"
#include "fs/mockfs.h"
#include "interp/ns.h"
#include "sandbox/policy.h"
#include "session_int.h"
#include "base/xalloc.h"

/* One path as it was: files, names, ledger, budget, and what its world
 * held of plain data. */
struct snap_path {
	struct mfs	*fs;
	struct ns	*ns;
	struct ledger	*ledger;
	unsigned	 used;
	char		*restore;	/* "name = repr\n"... or NULL */
};

struct session_snap {
	struct snap_path	 paths[PATH__COUNT];
	char			*policy;	/* its name */
	bool			 policy_preset;
	unsigned		 budget;
	bool			 budget_explicit;
	unsigned		 steps;
	char			*setup;
};

/* Copy every name of from into to (emptied first), as one graph. */
static void
ns_copy_into(struct ns *to, const struct ns *from)
{
	size_t i;
	value v;

	while (ns_count(to) > 0)
		ns_delete(to, ns_name(to, 0, &v));
	for (i = 0; i < ns_count(from); i++) {
		const char *name = ns_name(from, i, &v);
		ns_set_pending(to, name, v);
	}
	ns_commit(to);
}

static void
ledger_copy_into(struct ledger *to, const struct ledger *from)
{
	const char *k, *a, *m;
	size_t i;

	ledger_clear(to);
	for (i = 0; ledger_at(from, i, &k, &a, &m); i++)
		(void)ledger_add_digests(to, k, a, m);
}

/* The source that binds a world's plain names again (its literals), or
 * NULL. */
static char *
world_literal_source(const struct session *s, enum path_id p)
{
	const char *const *lits;
	size_t n;

	if ((lits = session_world_literals(s, p, &n)) == NULL)
		return NULL;
	return restore_literal_source(s, p, lits, n);
}

struct session_snap *
session_snap_take(struct session *s)
{
	struct session_snap *sn = xcalloc(1, sizeof *sn);
	size_t p;

	for (p = 0; p < PATH__COUNT; p++) {
		struct pathstate *ps = &s->paths[p];
		struct snap_path *sp = &sn->paths[p];

		sp->fs = mfs_clone(ps->fs);
		sp->ns = ns_new();
		ns_copy_into(sp->ns, ps->ns);
		sp->ledger = ledger_new();
		ledger_copy_into(sp->ledger, ps->ledger);
		sp->used = ps->used;
		/* a world not run since it was built holds the seeds only;
		 * one rebuilt after a restore, what that restore gave it */
		sp->restore = ps->world != NULL && ps->world->built ?
		    world_literal_source(s, (enum path_id)p) :
		    ps->restore != NULL && ps->resumed ? xstrdup(ps->restore) :
		    NULL;
	}
	sn->policy = xstrdup(s->policy->name);
	sn->policy_preset = policy_preset(s->policy->name) == s->policy;
	sn->budget = s->budget;
	sn->budget_explicit = s->budget_explicit;
	sn->steps = s->steps;
	sn->setup = xstrdup(sbuf_cstr(&s->setup));
	s->nsnaps++;
	return sn;
}

void
session_snap_restore_path(struct session *s, const struct session_snap *sn,
    enum path_id p)
{
	struct pathstate *ps = &s->paths[p];
	const struct snap_path *sp = &sn->paths[p];

	mfs_assign(ps->fs, sp->fs);
	ns_copy_into(ps->ns, sp->ns);
	ledger_copy_into(ps->ledger, sp->ledger);
	ps->used = sp->used;
	/* A new world, built from the files restored, the seeds and the
	 * plain names the old one held. */
	if (ps->world != NULL && (ps->world->built || ps->restore != NULL)) {
		struct world *w = ps->world;
		ps->world = world_new_kind(w->ops->engine, w->kind,
		    s->world_wall_ms, s->world_fail_at);
		world_free(w);
	}
	free(ps->restore);
	ps->restore = sp->restore ? xstrdup(sp->restore) : NULL;
	ps->resumed = ps->restore != NULL;
}

void
session_snap_restore(struct session *s, const struct session_snap *sn)
{
	size_t p;

	for (p = 0; p < PATH__COUNT; p++)
		session_snap_restore_path(s, sn, (enum path_id)p);
	if (sn->policy_preset)
		session_take_policy(s, policy_preset(sn->policy));
	s->budget = sn->budget;
	s->budget_explicit = sn->budget_explicit;
	s->steps = sn->steps;
	sbuf_truncate(&s->setup, 0);
	sbuf_adds(&s->setup, sn->setup);
}

size_t
session_snap_bytes(const struct session_snap *sn)
{
	size_t p, n = sizeof *sn + strlen(sn->setup);

	for (p = 0; p < PATH__COUNT; p++) {
		n += mfs_bytes(sn->paths[p].fs) + ns_held(sn->paths[p].ns) +
		    ledger_bytes(sn->paths[p].ledger);
		if (sn->paths[p].restore != NULL)
			n += strlen(sn->paths[p].restore);
	}
	return n;
}

void
session_snap_free(struct session *s, struct session_snap *sn)
{
	size_t p;

	if (sn == NULL)
		return;
	for (p = 0; p < PATH__COUNT; p++) {
		mfs_free(sn->paths[p].fs);
		ns_free(sn->paths[p].ns);
		ledger_free(sn->paths[p].ledger);
		free(sn->paths[p].restore);
	}
	free(sn->policy);
	free(sn->setup);
	free(sn);
	if (s->nsnaps > 0)
		s->nsnaps--;
}
