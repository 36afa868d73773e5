/*
 * restore.c -- what a session keeps on disk (--state, state.h) and the
 * plain names a new world is given back.
 *
 * A CPython world's names are objects and cannot be saved: of those bound
 * to plain data, the state (or a snapshot) keeps their reprs, and a new
 * world binds them again from source that is checked to be literals only
 * (restore_literal_source), so nothing saved is ever run but a literal.
 * The state sees the session through a struct state_session filled here.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interp/ns.h"
#include "lang/parse.h"
#include "session_int.h"
#include "state.h"
#include "base/strlist.h"

/* Plain data whose repr is Python source that rebuilds it. */
static bool
is_literal(value v, int depth)
{
	size_t i;

	if (depth > 100)
		return false;
	switch (v.type) {
	case VT_NONE: case VT_BOOL: case VT_INT: case VT_BIGINT: case VT_STR:
	case VT_BYTES:
		return true;
	case VT_FLOAT:
		return isfinite(v.as.f);	/* (repr(inf) is not source) */
	case VT_LIST:
		for (i = 0; i < v.as.list->len; i++)
			if (!is_literal(v.as.list->items[i], depth + 1))
				return false;
		return true;
	case VT_TUPLE:
		for (i = 0; i < v.as.tuple->len; i++)
			if (!is_literal(v.as.tuple->items[i], depth + 1))
				return false;
		return true;
	case VT_DICT: case VT_SET:
		for (i = 0; i < v.as.dict->used; i++) {
			const struct ventry *en = &v.as.dict->entries[i];
			if (en->live && (!is_literal(en->key, depth + 1) ||
			    (v.type == VT_DICT &&
			    !is_literal(en->val, depth + 1))))
				return false;
		}
		return true;
	default:
		return false;
	}
}

static bool
is_identifier(const char *s)
{
	size_t i;

	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
	    *s == '_'))
		return false;
	for (i = 1; s[i] != '\0'; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* A tree of literals only: constants (not ...), signed numbers, and
 * lists, tuples, sets and dicts of them -- what ast.literal_eval takes,
 * less complex numbers.  Nothing in it can run anything. */
bool
restore_is_literal_node(const struct node *n, int depth)
{
	size_t i;

	if (n == NULL || depth > 100)
		return false;
	switch (n->kind) {
	case NODE_CONSTANT:
		return n->u.constant.value.type != VT_ELLIPSIS;
	case NODE_UNARYOP:
		return (n->u.unaryop.op == UNARYOP_USUB ||
		    n->u.unaryop.op == UNARYOP_UADD) &&
		    n->u.unaryop.operand->kind == NODE_CONSTANT &&
		    (n->u.unaryop.operand->u.constant.value.type == VT_INT ||
		    n->u.unaryop.operand->u.constant.value.type == VT_BIGINT ||
		    n->u.unaryop.operand->u.constant.value.type == VT_FLOAT);
	case NODE_LIST: case NODE_TUPLE: case NODE_SET:
		for (i = 0; i < n->u.seq.elts.len; i++)
			if (!restore_is_literal_node(n->u.seq.elts.items[i],
			    depth + 1))
				return false;
		return true;
	case NODE_DICT:
		for (i = 0; i < n->u.dict.keys.len; i++)
			if (!restore_is_literal_node(n->u.dict.keys.items[i],
			    depth + 1) ||
			    !restore_is_literal_node(n->u.dict.values.items[i],
			    depth + 1))
				return false;	/* (a NULL key: **) */
		return true;
	default:
		return false;
	}
}

/*
 * The source that binds path p's plain names again from lits (n pairs of
 * name and repr): each "name = repr" only when the name is an identifier
 * the path's own names do not hold and the repr parses as a literal (the
 * pairs came from a world, or from the state's file), so nothing but
 * literals is run.  NULL when there is none.
 */
char *
restore_literal_source(const struct session *s, enum path_id p,
    const char *const *lits, size_t n)
{
	struct sbuf src = SBUF_INIT;
	size_t i;

	for (i = 0; lits != NULL && i < n; i++) {
		const char *name = lits[2 * i], *repr = lits[2 * i + 1];
		struct arena *a = arena_new();
		struct parse_result pr;
		value v;

		parse_input(a, repr, strlen(repr), &pr);
		if (is_identifier(name) && !ns_get(s->paths[p].ns, name, &v) &&
		    pr.status == PARSE_OK && pr.root->kind == NODE_EXPRESSION &&
		    restore_is_literal_node(pr.root->u.expression.body, 0))
			sbuf_addf(&src, "%s = %s\n", name, repr);
		arena_free(a);
	}
	if (src.len == 0) {
		sbuf_free(&src);
		return NULL;
	}
	return sbuf_take(&src);
}

/* The source that binds path p's old world's plain names again, from
 * what the state kept of them. */
static char *
restore_source(const struct session *s, enum path_id p)
{
	const char *const *lits;
	size_t n;

	if (s->state == NULL ||
	    (lits = state_world_values(s->state, p, &n)) == NULL)
		return NULL;
	return restore_literal_source(s, p, lits, n);
}

/* Did the restore source bind name? */
bool
restore_bound(const struct pathstate *ps, const char *name)
{
	const char *line = ps->restore;
	size_t n = strlen(name);

	while (line != NULL && *line != '\0') {
		if (strncmp(line, name, n) == 0 &&
		    strncmp(line + n, " = ", 3) == 0)
			return true;
		line = strchr(line, '\n');
		if (line != NULL)
			line++;
	}
	return false;
}

/*
 * After --state loaded the session: a new world's set-up binds the names
 * the state restored (the essay's orders, the teacher's names, the
 * model's plain data), each as its repr, which is Python source for
 * plain data: nothing the state holds is run, only literals are.
 */
static void
reseed_setup(struct session *s)
{
	struct ns *ns = session_seed_path(s)->ns;
	struct arena *a = arena_new();
	struct rt rt;
	size_t i;

	memset(&rt, 0, sizeof rt);
	rt.arena = a;
	rt.limits = session_unsafe_limits;
	sbuf_truncate(&s->setup, 0);
	for (i = 0; i < ns_count(ns); i++) {
		struct sbuf r = SBUF_INIT;
		value v;
		const char *name = ns_name(ns, i, &v);

		if (is_identifier(name) && is_literal(v, 0) &&
		    value_repr(&rt, v, &r))
			sbuf_addf(&s->setup, "%s = %s\n", name, sbuf_cstr(&r));
		sbuf_free(&r);
	}
	arena_free(a);
}

/* ---- the session as its state sees it (state.h) ---- */

static void view_reset(struct state_session *ss);

/* What the state saves from and loads into: this session's stores. */
static void
view_fill(struct session *s, struct state_session *ss)
{
	size_t p;

	ss->steps = s->steps;
	ss->reset = view_reset;
	ss->ctx = s;
	for (p = 0; p < PATH__COUNT; p++) {
		struct state_path *sp = &ss->paths[p];
		sp->fs = s->paths[p].fs;
		sp->ns = s->paths[p].ns;
		sp->ledger = s->paths[p].ledger;
		sp->used = s->paths[p].used;
		sp->world_names = session_world_names(s, (enum path_id)p,
		    &sp->nworld_names);
		sp->world_literals = session_world_literals(s,
		    (enum path_id)p, &sp->nworld_literals);
	}
}

static void
view_reset(struct state_session *ss)
{
	struct session *s = ss->ctx;

	session_reset(s, false);
	view_fill(s, ss);
}

/* The counters a load or a save's rollback set. */
static void
view_take(struct session *s, const struct state_session *ss)
{
	size_t p;

	s->steps = ss->steps;
	for (p = 0; p < PATH__COUNT; p++)
		s->paths[p].used = ss->paths[p].used;
}

/*
 * Save the input's step in the state; when it cannot be kept, each of
 * its records says so instead of what it did (in a).
 */
void
restore_save_step(struct session *s, struct record *recs, size_t n,
    struct arena *a)
{
	char *err = NULL;
	struct state_session ss;
	bool saved;
	size_t i;

	view_fill(s, &ss);
	saved = state_save(s->state, &ss, recs, n, &err);
	view_take(s, &ss);
	if (saved)
		return;
	for (i = 0; i < n; i++) {
		recs[i].verdict = VERDICT_ERROR;
		recs[i].layer = LAYER_EVAL;
		recs[i].reason = arena_printf(a, "the state could not be "
		    "saved, so this step is not kept: %s", err);
		recs[i].outcome = arena_printf(a, "OSError: %s",
		    recs[i].reason);
		record_set_line(&recs[i], a);
	}
	free(err);
}

bool
session_use_state(struct session *s, const char *dir, char **err)
{
	struct state_session ss;
	struct state *st;
	size_t p;

	view_fill(s, &ss);
	st = state_open(&ss, dir, err);
	view_take(s, &ss);
	if (st == NULL)
		return false;
	state_close(s->state);
	s->state = st;
	if (state_resumed(st))
		reseed_setup(s);
	for (p = 0; p < PATH__COUNT; p++) {
		s->paths[p].resumed = state_resumed(st);
		free(s->paths[p].restore);
		s->paths[p].restore = restore_source(s, (enum path_id)p);
	}
	return true;
}
