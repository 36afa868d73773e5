/*
 * play.c -- the presenter view: a scenario one step at a time.
 *
 * :play FILE (or --play FILE) loads a scenario; each visible step (an
 * input, an echo, a listing) is shown full width: "step N of M" and the
 * step's label, its caption (the scenario's '#' lines above it), the
 * payload once, then one line per record -- per path, and on the sandbox
 * path per policy when the scenario runs several -- with the verdict,
 * the layer that decided and what happened, and each path's files.
 * Set-up steps (files, names, policies) run silently on the way; those
 * before the first visible step run when the play starts, and step 0,
 * the welcome, shows the scenario's title and opening question (its
 * "title" and "question" lines) on the files they made.  While a step
 * runs the view shows its caption and input, and progress.c the paths
 * still running.
 *
 * Going back is exact: before the first step and after each one, the
 * session is saved whole in memory (session_snap_take: files on every
 * path, names, budget, ledger) with the UI's model, and Left, Home and
 * :goto put one back; a step already run is shown again from what it
 * recorded, not run again.  A live input typed meanwhile runs on the
 * session as it is, and the steps after the one shown are forgotten, so
 * the next step runs on what the class sees.  Esc switches to the three
 * columns and back; Enter on an empty line steps in either view, and in
 * the presenter PgDn and Space step on, PgUp back (a clicker's keys).
 * :reset goes back to step 0 as the play began, forgetting the steps
 * run; :stop, or Esc on the last step, leaves the play, the session as
 * it is.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "sandbox/policy.h"
#include "record/record.h"
#include "base/sbuf.h"
#include "session/session.h"
#include "lesson.h"
#include "uipriv.h"
#include "base/xalloc.h"

/* A scenario for the view has at most this many visible steps. */
#define PLAY_MAX_STEPS 1000
/* The snapshots kept to go back to (the session's and the model's) hold
 * at most this much; past it the oldest steps' are let go (the start's
 * is always kept). */
#define PLAY_MAX_SNAP_BYTES ((size_t)512 << 20)

/* One visible step, once it ran. */
struct play_done {
	size_t			 idx;		/* its place in the scenario */
	const char		*caption;	/* the scenario's, or NULL */
	struct arena		*a;		/* out's records and text */
	struct scn_output	 out;
	const char		*failed;	/* a step that failed: why */
	struct session_snap	*snap;		/* the session after it, or
						   NULL: let go for the cap */
	size_t			 snap_bytes;
	struct model		 m;		/* the UI's model after it */
};

struct play {
	struct scenario		 sc;
	size_t			 total;		/* visible steps */
	size_t			 first;		/* the first step after the
						   set-up run at the start */
	struct arena		*pre_a;		/* what that set-up said */
	const char		*pre_caption;	/* its caption, step 1's when
						   it has none */
	const char		*pre_failed;	/* a set-up step that failed */
	bool			 jail_named;	/* a step names the jail path */
	/* the visible step running now (its caption), or NULL */
	const struct scn_step	*running;
	const char		*running_caption;
	struct play_done	*done;		/* the steps run so far */
	size_t			 ndone;
	size_t			 cur;		/* shown: 1..ndone; 0: the
						   start */
	struct session_snap	*start;		/* the session at the start */
	size_t			 snap_bytes;	/* the steps' snapshots hold */
	struct model		 start_m;
	bool			 view;		/* the presenter view is on */
	/* A live input typed during the play, shown until the next move:
	 * its text and records (copied into live_a), or live_a NULL. */
	struct arena		*live_a;
	const char		*live_input;
	struct record		*live;
	size_t			 nlive;
};

static bool
is_visible(const struct scn_step *st)
{
	return st->kind == SCN_RUN || st->kind == SCN_ECHO ||
	    st->kind == SCN_LS;
}

static void
snap_drop(struct ui *u, struct play_done *d)
{
	if (d->snap == NULL)
		return;
	session_snap_free(u->s, d->snap);
	d->snap = NULL;
	u->play->snap_bytes -= d->snap_bytes;
	model_free(&d->m);
	memset(&d->m, 0, sizeof d->m);
}

static void
done_free(struct ui *u, struct play_done *d)
{
	arena_free(d->a);
	snap_drop(u, d);
}

/* Forget the steps after the one shown: the session changed under
 * them. */
static void
forget_ahead(struct ui *u)
{
	struct play *pl = u->play;

	while (pl->ndone > pl->cur)
		done_free(u, &pl->done[--pl->ndone]);
}

static void
take_start(struct ui *u)
{
	struct play *pl = u->play;

	pl->start = session_snap_take(u->s);
	model_copy(&pl->start_m, &u->m);
}

static void
live_clear(struct play *pl)
{
	arena_free(pl->live_a);
	pl->live_a = NULL;
	pl->live = NULL;
	pl->nlive = 0;
}

static void
set_progress(struct ui *u)
{
	struct play *pl = u->play;

	live_clear(pl);

	if (pl->cur == 0)
		message_set(u, "%s: step 0, the start; Enter, PgDn or Space "
		    "runs step 1 of %zu", pl->sc.name, pl->total);
	else if (pl->cur < pl->total)
		message_set(u, "step %zu of %zu: Enter, PgDn or Space for the "
		    "next, PgUp back, Esc the columns", pl->cur, pl->total);
	else
		message_set(u, "step %zu of %zu, the end of %s: Esc or :stop "
		    "leaves it, :summary the table, Home the start", pl->cur,
		    pl->total, pl->sc.name);
}

/* Show step k (0: the start) as it was after it ran. */
static void
show(struct ui *u, size_t k)
{
	struct play *pl = u->play;

	if (k > 0 && pl->done[k - 1].snap == NULL) {
		message_set(u, "step %zu is too far back: the steps kept "
		    "to go back to hold at most %zu MiB; Home goes to the "
		    "start", k, PLAY_MAX_SNAP_BYTES >> 20);
		return;
	}

	session_snap_restore(u->s, k == 0 ? pl->start : pl->done[k - 1].snap);
	model_free(&u->m);
	model_copy(&u->m, k == 0 ? &pl->start_m : &pl->done[k - 1].m);
	pl->cur = k;
	focus_scroll_reset(u);
	set_progress(u);
}

/* Run one step of the scenario on the session and the model; a set-up
 * step that failed says why in *failed. */
static void
exec_step(struct ui *u, const struct scn_step *st, struct arena *a,
    struct scn_output *out, const char **failed)
{
	ui_running(true);
	scenario_exec(u->s, st, a, out);
	ui_running(false);
	if (out->failed) {
		*failed = out->text ? out->text : "a set-up step failed";
		model_note(&u->m, 0, *failed);
	} else if (out->nrecords > 0)
		model_apply(&u->m, st->arg, st->arglen, out->records,
		    out->nrecords);
	else if (out->text != NULL)
		model_note(&u->m, st->kind == SCN_LS ? st->paths : 0,
		    out->text);
	if (st->kind == SCN_RESET)
		model_clear(&u->m);
	else if (!is_visible(st) && !out->failed)
		model_rebase(&u->m);
}

/*
 * Run the scenario on to its next visible step, its set-up steps first,
 * and keep what it showed; the set-up steps after the last visible one
 * run with that one.  The view shows the step's caption and input while
 * it runs.  False at the end.
 */
static bool
run_next(struct ui *u)
{
	struct play *pl = u->play;
	size_t i = pl->ndone > 0 ? pl->done[pl->ndone - 1].idx + 1 :
	    pl->first;
	struct play_done d;
	bool seen = false;
	size_t last = pl->sc.n;	/* the last visible step */

	if (pl->ndone >= pl->total)
		return false;
	while (last > 0 && !is_visible(&pl->sc.steps[last - 1]))
		last--;
	memset(&d, 0, sizeof d);
	d.a = arena_new();
	if (pl->ndone == 0)
		d.caption = pl->pre_caption;
	for (; i < pl->sc.n; i++) {
		const struct scn_step *st = &pl->sc.steps[i];
		bool visible = is_visible(st);
		struct scn_output out;

		/* the set-up for the next step is the next step's, unless
		 * nothing visible follows */
		if (seen && i < last)
			break;
		if (!seen && st->caption != NULL)
			d.caption = st->caption;
		if (visible && st->kind == SCN_RUN && pl->view) {
			/* the class sees what runs, and progress.c for how
			 * long */
			pl->running = st;
			pl->running_caption = d.caption;
			live_clear(pl);
			message_set(u, "step %zu of %zu: running ...",
			    pl->ndone + 1, pl->total);
			u->redraw(u);
			pl->running = NULL;
		}
		exec_step(u, st, d.a, &out, &d.failed);
		if (visible && !out.failed)	/* :summary's, :export's */
			lesson_played(pl->sc.name, d.caption, st->label,
			    st->arg, st->arglen, out.records, out.nrecords,
			    out.text);
		if (visible) {
			d.idx = i;
			d.out = out;
			seen = true;
		}
	}
	d.snap = session_snap_take(u->s);
	model_copy(&d.m, &u->m);
	d.snap_bytes = session_snap_bytes(d.snap) + model_bytes(&d.m);
	pl->done = xreallocarray(pl->done, pl->ndone + 1, sizeof *pl->done);
	pl->done[pl->ndone++] = d;
	pl->snap_bytes += d.snap_bytes;
	/* the cap: the oldest steps' snapshots go first */
	for (i = 0; pl->snap_bytes > PLAY_MAX_SNAP_BYTES &&
	    i + 1 < pl->ndone; i++)
		snap_drop(u, &pl->done[i]);
	pl->cur = pl->ndone;
	focus_scroll_reset(u);
	set_progress(u);
	flushinp();	/* keys pressed while it ran do not skip a step */
	return true;
}

bool
play_active(const struct ui *u)
{
	return u->play != NULL;
}

bool
play_view_shown(const struct ui *u)
{
	return u->play != NULL && u->play->view;
}

bool
play_progress(const struct ui *u, size_t *cur, size_t *total)
{
	if (u->play == NULL)
		return false;
	*cur = u->play->cur;
	*total = u->play->total;
	return true;
}

void
play_stop(struct ui *u)
{
	struct play *pl = u->play;

	if (pl == NULL)
		return;
	while (pl->ndone > 0)
		done_free(u, &pl->done[--pl->ndone]);
	free(pl->done);
	live_clear(pl);
	session_snap_free(u->s, pl->start);
	model_free(&pl->start_m);
	scenario_free(&pl->sc);
	arena_free(pl->pre_a);
	free(pl);
	u->play = NULL;
}

bool
play_start(struct ui *u, const char *file)
{
	struct play *pl;
	char *err = NULL;
	size_t i;

	pl = xcalloc(1, sizeof *pl);
	if (!scenario_load(file, &pl->sc, &err)) {
		message_set(u, "%s", err ? err : "cannot load scenario");
		free(err);
		free(pl);
		return false;
	}
	for (i = 0; i < pl->sc.n; i++) {
		const struct scn_step *st = &pl->sc.steps[i];
		pl->total += is_visible(st);
		if ((st->kind == SCN_RUN || st->kind == SCN_LS) &&
		    (st->paths & paths_guarded(GUARD_KERNEL)))
			pl->jail_named = true;
	}
	if (pl->total == 0 || pl->total > PLAY_MAX_STEPS) {
		message_set(u, "%s: %zu steps to show (a scenario for "
		    ":play has 1 to %u)", file, pl->total, PLAY_MAX_STEPS);
		scenario_free(&pl->sc);
		free(pl);
		return false;
	}
	play_stop(u);
	pl->view = true;
	u->play = pl;
	/* the set-up before the first visible step: the start's files,
	 * names and policy */
	pl->pre_a = arena_new();
	for (i = 0; i < pl->sc.n && !is_visible(&pl->sc.steps[i]); i++) {
		const struct scn_step *st = &pl->sc.steps[i];
		struct scn_output out;
		if (st->caption != NULL)
			pl->pre_caption = st->caption;
		exec_step(u, st, pl->pre_a, &out, &pl->pre_failed);
	}
	pl->first = i;
	take_start(u);
	pl->cur = 0;
	focus_scroll_reset(u);
	set_progress(u);
	return true;
}

void
play_next(struct ui *u)
{
	struct play *pl = u->play;

	if (pl->cur < pl->ndone)
		show(u, pl->cur + 1);
	else if (!run_next(u))
		set_progress(u);
}

void
play_back(struct ui *u)
{
	if (u->play->cur > 0)
		show(u, u->play->cur - 1);
	else
		set_progress(u);
}

void
play_home(struct ui *u)
{
	show(u, 0);
}

void
play_goto(struct ui *u, const char *arg)
{
	struct play *pl = u->play;
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	if (*arg < '0' || *arg > '9' || *end != '\0' || n > pl->total) {
		message_set(u, "usage: :goto N (0 to %zu; 0 is the start)",
		    pl->total);
		return;
	}
	if (n <= pl->ndone) {
		show(u, n);
		return;
	}
	if (pl->cur != pl->ndone)
		show(u, pl->ndone);
	while (pl->ndone < n && run_next(u))
		;
}

/* :reset during a play: step 0 as the play began (the session restored
 * from the start's snapshot, new worlds), the steps run forgotten. */
void
play_reset(struct ui *u)
{
	struct play *pl = u->play;

	while (pl->ndone > 0)
		done_free(u, &pl->done[--pl->ndone]);
	show(u, 0);
	message_set(u, "reset: step 0 of %zu, the start of %s (its files, "
	    "names and policy; no step run); Enter runs step 1",
	    pl->total, pl->sc.name);
}

/* :stop, or Esc on the last step: the play ends, the session and the
 * columns stay as they are. */
void
play_leave(struct ui *u)
{
	struct play *pl = u->play;
	const struct policy *pol = session_policy(u->s);
	char *name;
	size_t cur, total;

	if (pl == NULL) {
		message_set(u, ":stop leaves a scenario playing; none is "
		    "(:play FILE starts one)");
		return;
	}
	name = xstrdup(pl->sc.name);
	cur = pl->cur;
	total = pl->total;
	play_stop(u);
	message_set(u, "left %s at step %zu of %zu; the session stays as it "
	    "is (policy %s): :reset for the essay's files", name, cur, total,
	    pol != NULL ? pol->name : "?");
	free(name);
}

static void toggle_view(struct ui *u);

/* Esc: on the last step of the presenter, leave; else the columns and
 * back. */
void
play_escape(struct ui *u)
{
	struct play *pl = u->play;

	if (pl->view && pl->cur == pl->total && pl->live_a == NULL)
		play_leave(u);
	else
		toggle_view(u);
}

const char *
play_policies(const struct ui *u)
{
	const struct play *pl = u->play;
	size_t i;

	if (pl == NULL || pl->live_a != NULL)
		return NULL;
	if (pl->cur > 0)
		return pl->sc.steps[pl->done[pl->cur - 1].idx].policies;
	for (i = pl->first; i < pl->sc.n; i++)	/* the next step's */
		if (is_visible(&pl->sc.steps[i]))
			return pl->sc.steps[i].policies;
	return NULL;
}

static void
toggle_view(struct ui *u)
{
	u->play->view = !u->play->view;
	if (!u->play->view)
		message_set(u, "step %zu of %zu in the columns: Enter for "
		    "the next, Esc for the presenter view", u->play->cur,
		    u->play->total);
	else
		set_progress(u);
}

void
play_show_view(struct ui *u)
{
	u->play->view = true;
	set_progress(u);
}

void
play_changed(struct ui *u)
{
	if (u->play != NULL)
		forget_ahead(u);
}

static const char *
dup_in(struct arena *a, const char *s)
{
	return s != NULL ? arena_strdup(a, s) : NULL;
}

void
play_live(struct ui *u, const char *input, size_t len,
    const struct record *r, size_t n)
{
	struct play *pl = u->play;
	size_t i, k;

	if (pl == NULL)
		return;
	live_clear(pl);
	pl->live_a = arena_new();
	pl->live_input = arena_strndup(pl->live_a, input, len);
	pl->live = arena_array(pl->live_a, n + 1, sizeof *pl->live);
	for (i = 0; i < n; i++) {
		struct record *c = &pl->live[i];
		*c = r[i];
		c->label = dup_in(pl->live_a, r[i].label);
		c->rule = dup_in(pl->live_a, r[i].rule);
		c->reason = dup_in(pl->live_a, r[i].reason);
		c->result = dup_in(pl->live_a, r[i].result);
		c->outcome = dup_in(pl->live_a, r[i].outcome);
		c->effects = arena_array(pl->live_a, r[i].neffects + 1,
		    sizeof *c->effects);
		for (k = 0; k < r[i].neffects; k++) {
			c->effects[k].category = dup_in(pl->live_a,
			    r[i].effects[k].category);
			c->effects[k].text = dup_in(pl->live_a,
			    r[i].effects[k].text);
		}
		/* (what the view reads of a record, no more) */
		c->input = c->shown = c->line = c->node_type = NULL;
		c->truncated = c->source = c->engine = NULL;
		c->fs = NULL;
		c->nfs = 0;
		c->tree = NULL;
	}
	pl->nlive = n;
	message_set(u, "a live input, run on the session as it is; "
	    "Enter or Right for step %zu of %zu", pl->cur + 1 > pl->total ?
	    pl->total : pl->cur + 1, pl->total);
}

/* ---- drawing ---- */

/* One row of the view. */
struct prow {
	const char	*s;
	size_t		 len;
	int		 attr;
	int		 x;
};

struct rows {
	struct prow	*r;
	size_t		 n, cap;
};

static void
push(struct rows *rs, const char *s, size_t len, int attr, int x)
{
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 32;
		rs->r = xreallocarray(rs->r, rs->cap, sizeof *rs->r);
	}
	rs->r[rs->n++] = (struct prow){ s, len, attr, x };
}

/* Wrap s into rows from column x, the first of width w1 and the others
 * of width w2, breaking at a space, else between a name and
 * punctuation; returns the rows it took (all are pushed when rs is not
 * NULL). */
static size_t
wrap_to(struct rows *rs, const char *s, size_t len, int attr, int x, int w1,
    int w2)
{
	size_t n = 0, take;
	int w = w1;

	do {
		take = draw_wrap(s, len, w);
		if (rs != NULL)
			push(rs, s, take, attr, x);
		n++;
		s += take;
		len -= take;
		while (len > 0 && *s == ' ') {
			s++;
			len--;
		}
		w = w2;
	} while (len > 0);
	return n;
}

/* Wrap s into rows of width w from column x (wrap_to). */
static size_t
wrap(struct rows *rs, const char *s, size_t len, int attr, int x, int w)
{
	return wrap_to(rs, s, len, attr, x, w, w);
}

/* s in at most max rows of width w: whole, or its start and end with
 * the middle left out and marked.  The text is in a. */
static const char *
elide(struct arena *a, const char *s, int w, size_t max)
{
	size_t len = strlen(s), keep;

	if (wrap(NULL, s, len, 0, 0, w) <= max)
		return s;
	keep = max * (size_t)w / 2;
	for (;;) {
		size_t cut = len - 2 * keep;
		const char *t = arena_printf(a, "%.*s [... %zu bytes left "
		    "out ...] %s", (int)keep, s, cut, s + len - keep);
		if (keep <= 8 || wrap(NULL, t, strlen(t), 0, 0, w) <= max)
			return t;
		keep -= keep / 8 + 1;
	}
}

/* The policy of a sandbox record run once per policy ("... [dunder]"). */
static const char *
policy_of(struct arena *a, const struct record *r, const struct scn_step *st)
{
	const char *l = r->label, *open;
	size_t n;

	if (st->policies == NULL || path_guard(r->path) != GUARD_POLICY ||
	    l == NULL || (n = strlen(l)) < 3 || l[n - 1] != ']' ||
	    (open = strrchr(l, '[')) == NULL)
		return NULL;
	return arena_strndup(a, open + 1, (size_t)(l + n - 2 - open));
}

/* The files of path p on one row: "unsafe files: a.txt, b.txt (deleted)". */
static const char *
files_line(struct ui *u, struct arena *a, enum path_id p, int *attr)
{
	const struct model_fsrow *rows;
	size_t n = model_fs_rows(&u->m, p, &rows), i;
	struct sbuf b = SBUF_INIT;
	static const char *const word[] = { "", " (new)", " (changed)",
	    " (deleted)" };
	const char *s;

	*attr = A_NORMAL;
	sbuf_addf(&b, "%s files: ", record_path_name(p));
	for (i = 0; i < n; i++) {
		sbuf_addf(&b, "%s%s%s", i ? ", " : "", rows[i].name,
		    word[rows[i].mark]);
		if (rows[i].mark == FS_DELETED)
			*attr = draw_attr(u, UC_DAMAGE);
	}
	if (n == 0)
		sbuf_adds(&b, "(none)");
	s = arena_strdup(a, sbuf_cstr(&b));
	sbuf_free(&b);
	return s;
}

/* Lines a row each from row on, while the rectangle has rows, each cut
 * with a dim "..." where it is wider; returns the row after them. */
static int
draw_cut_rows(struct ui *u, struct rect r, int row, const char *const *lines,
    const int *attr, size_t n)
{
	size_t i;

	for (i = 0; i < n && row < r.h; i++, row++) {
		size_t len = strlen(lines[i]);
		size_t take = draw_fit(lines[i], len, r.w - 2);
		if (take < len)
			take = draw_fit(lines[i], len, r.w - 5);
		draw_textn(r, row, 1, attr[i], lines[i], take);
		if (take < len)
			draw_text(r, row, 1 + draw_width(lines[i], take),
			    draw_attr(u, UC_DIM), "...");
	}
	return row;
}

/* The files one record left, on one row, against its path's baseline:
 * a policy's own, when the sandbox ran the step under several
 * ("sandbox [dunder] files: report.txt (deleted), secrets.txt"). */
static const char *
record_files_line(struct ui *u, struct arena *a, const struct record *rec,
    const char *who, int *attr)
{
	const struct model_path *mp = &u->m.paths[rec->path];
	struct sbuf b = SBUF_INIT;
	const char *s;
	size_t i, j, n = 0;

	*attr = A_NORMAL;
	sbuf_addf(&b, "%s files: ", who);
	for (i = 0; i < rec->nfs; i++) {
		const struct record_file *f = &rec->fs[i];
		const struct model_file *bf = NULL;
		for (j = 0; j < mp->nbase && bf == NULL; j++)
			if (strcmp(mp->base[j].name, f->name) == 0)
				bf = &mp->base[j];
		sbuf_addf(&b, "%s%s%s", n++ ? ", " : "", f->name,
		    bf == NULL ? " (new)" : f->digest != NULL &&
		    bf->size == f->size && memcmp(bf->digest, f->digest,
		    sizeof bf->digest) == 0 ? "" : " (changed)");
	}
	for (j = 0; j < mp->nbase; j++) {
		for (i = 0; i < rec->nfs; i++)
			if (strcmp(mp->base[j].name, rec->fs[i].name) == 0)
				break;
		if (i < rec->nfs)
			continue;
		sbuf_addf(&b, "%s%s (deleted)", n++ ? ", " : "",
		    mp->base[j].name);
		*attr = draw_attr(u, UC_DAMAGE);
	}
	if (n == 0)
		sbuf_adds(&b, "(none)");
	s = arena_strdup(a, sbuf_cstr(&b));
	sbuf_free(&b);
	return s;
}

static int
pad_width(const char *s)
{
	return draw_width(s, strlen(s));
}

/* The rows s takes folded into a first row of width w1 and the others
 * of width w2 (broken as wrap() breaks); with rs, each row's start and
 * length pushed (x is 0: the caller places them). */
static size_t
fold(struct rows *rs, const char *s, int w1, int w2)
{
	return wrap_to(rs, s, strlen(s), A_NORMAL, 0, w1, w2);
}

/* The label a step shows in the title row: its own, else its kind. */
static const char *
step_label(const struct scn_step *st)
{
	if (st->label != NULL)
		return st->label;
	return st->kind == SCN_RUN ? "an input" : st->kind == SCN_LS ?
	    "a listing" : "a note";
}

/* The keys the title row names, the first of them that fits. */
static void
draw_keys(struct ui *u, struct rect r, int x, bool at_end)
{
	static const char *const keys[] = {
		"Enter/PgDn next  PgUp back  Home start  :goto N  "
		"Esc columns ",
		"PgDn next  PgUp back  Esc columns ",
		"PgDn next  PgUp back ", NULL };
	static const char *const end_keys[] = {
		"PgUp back  Home start  :summary  Esc leaves ",
		"PgUp back  Esc leaves ", "Esc leaves ", NULL };
	const char *const *k = at_end ? end_keys : keys;
	size_t i;

	for (i = 0; k[i] != NULL; i++)
		if (pad_width(k[i]) + x + 2 <= r.w) {
			draw_text(r, 0, r.w - pad_width(k[i]),
			    draw_attr(u, UC_TITLE), k[i]);
			break;
		}
}

#define PLAY_MAX_RECS 64
#define PLAY_MAX_NOTES 4

/* What the view shows, gathered before it is laid out (struct view),
 * and the rows each part gets (allot). */
struct view {
	const struct play_done	*d;	/* the step shown, or NULL */
	const struct scn_step	*st;	/* its step (or the running one) */
	const char		*heading, *caption, *payload;
	const struct record	*recs[PLAY_MAX_RECS];
	const char		*who[PLAY_MAX_RECS], *what[PLAY_MAX_RECS];
	size_t			 want[PLAY_MAX_RECS], got[PLAY_MAX_RECS];
	size_t			 nrec;
	const char		*notes[PLAY_MAX_NOTES];
	int			 nattr[PLAY_MAX_NOTES];
	size_t			 nnotes;
	const char		*files[PATH__COUNT + PLAY_MAX_RECS];
	int			 fattr[PATH__COUNT + PLAY_MAX_RECS];
	size_t			 nfiles;
	int			 whow, layw;	/* the who and layer columns */
	int			 tx, tw, cx, cw;	/* what happened: first row's
						   and the others' x, width */
	size_t			 cap_max, pay_max;	/* rows given */
	bool			 blank[3];	/* after the caption, before the
						   records, before the files */
};

static void
note(struct view *v, int attr, const char *s)
{
	v->nattr[v->nnotes] = attr;
	v->notes[v->nnotes++] = s;
}

/* The title row: where we are, always, and the keys. */
static void
draw_title(struct ui *u, struct arena *a, struct rect r, struct view *v)
{
	struct play *pl = u->play;
	const struct scn_step *st = v->st;
	const char *title;
	int x;

	if (pl->running != NULL)
		title = arena_printf(a, " step %zu of %zu: %s (running)",
		    pl->ndone + 1, pl->total, step_label(st));
	else if (pl->live_a != NULL)
		title = arena_printf(a, " step %zu of %zu, then a live input",
		    pl->cur, pl->total);
	else if (v->d == NULL)
		title = arena_printf(a, " step 0 of %zu: %s", pl->total,
		    pl->sc.title ? pl->sc.title : pl->sc.name);
	else
		title = arena_printf(a, " step %zu of %zu%s%s", pl->cur,
		    pl->total, st->label ? ": " : "", st->label ? st->label :
		    "");
	draw_fill(r, 0, draw_attr(u, UC_TITLE));
	x = draw_text(r, 0, 0, draw_attr(u, UC_TITLE), title);
	draw_keys(u, r, x, pl->running == NULL && pl->live_a == NULL &&
	    pl->cur == pl->total);
}

/* The heading, caption, payload and notes. */
static void
gather_text(struct ui *u, struct arena *a, struct view *v)
{
	struct play *pl = u->play;
	unsigned mask = session_paths(u->s);
	size_t i;

	if (pl->jail_named && !(mask & paths_guarded(GUARD_KERNEL))) {
		char paths[128];

		note(v, draw_attr(u, UC_HL), arena_printf(a, "the jail path "
		    "is off (this scenario shows it): :paths %s",
		    path_list(paths, sizeof paths, paths_offered(), ",")));
	}
	if (pl->running != NULL) {
		v->caption = pl->running_caption;
		v->payload = v->st->arg;
		note(v, draw_attr(u, UC_DIM), "running ...");
	} else if (pl->live_a != NULL) {
		v->caption = "Typed live, on the session as the step left it "
		    "(the scenario waits).";
		v->payload = pl->live_input;
	} else if (v->d == NULL) {	/* the welcome */
		v->heading = pl->sc.title ? pl->sc.title : pl->sc.name;
		v->caption = pl->sc.question;
		v->payload = NULL;
		if (pl->pre_failed != NULL)
			note(v, draw_attr(u, UC_DAMAGE), pl->pre_failed);
		for (i = pl->first; i < pl->sc.n; i++)
			if (is_visible(&pl->sc.steps[i]))
				break;
		note(v, draw_attr(u, UC_DIM), i < pl->sc.n ? arena_printf(a,
		    "Enter, PgDn or Space runs step 1: %s.",
		    step_label(&pl->sc.steps[i])) : "Enter runs step 1.");
	} else {
		v->caption = v->d->caption;
		v->payload = v->st->kind == SCN_RUN ? v->st->arg :
		    v->d->out.text;
		if (v->d->failed != NULL)
			v->payload = v->d->failed;
	}
}

/* The records, path by path, with who ran them and what happened. */
static void
gather_records(struct ui *u, struct arena *a, struct view *v)
{
	struct play *pl = u->play;
	const struct play_done *d = v->d;
	size_t i, k, n = pl->live_a ? pl->nlive : d ? d->out.nrecords : 0;

	for (k = 0; k < PATH__COUNT && pl->running == NULL; k++)
		for (i = 0; i < n && v->nrec < PLAY_MAX_RECS; i++) {
			const struct record *rec = pl->live_a ? &pl->live[i] :
			    &d->out.records[i];
			const char *pol, **who = &v->who[v->nrec];
			if (rec->path != (enum path_id)k)
				continue;
			v->recs[v->nrec] = rec;
			pol = pl->live_a ? NULL : policy_of(a, rec, v->st);
			*who = pol ? arena_printf(a, "%s [%s]",
			    record_path_name(rec->path), pol) :
			    record_path_name(rec->path);
			v->what[v->nrec] = record_happened(a, rec);
			if (pad_width(*who) > v->whow)
				v->whow = pad_width(*who);
			if ((int)strlen(record_layer_word(rec)) > v->layw)
				v->layw = (int)strlen(record_layer_word(rec));
			v->nrec++;
		}
}

/* Each path's files: a step run under several policies, each one's. */
static void
gather_files(struct ui *u, struct arena *a, struct view *v)
{
	unsigned mask = session_paths(u->s);
	size_t i, k;

	for (k = 0; k < PATH__COUNT; k++) {
		size_t per = 0;
		if (!(mask & PATH_BIT(k)))
			continue;
		for (i = 0; i < v->nrec; i++)
			if (v->recs[i]->path == (enum path_id)k &&
			    v->who[i] != record_path_name(v->recs[i]->path))
				per++;
		if (per > 1) {
			for (i = 0; i < v->nrec; i++)
				if (v->recs[i]->path == (enum path_id)k)
					v->files[v->nfiles] =
					    record_files_line(u, a, v->recs[i],
					    v->who[i], &v->fattr[v->nfiles]),
					    v->nfiles++;
			continue;
		}
		v->files[v->nfiles] = files_line(u, a, (enum path_id)k,
		    &v->fattr[v->nfiles]);
		v->nfiles++;
	}
}

/* Give the room (rows) to one part after another while each wants it
 * (*have < want) and may have it (*have < lim); returns the room left. */
static int
grow(int room, size_t *have, size_t want, size_t lim)
{
	while (room > 0 && *have < want && *have < lim) {
		(*have)++;
		room--;
	}
	return room;
}

/* The rows, in the order of what matters (see draw()). */
static void
allot(struct view *v, struct rect r)
{
	size_t i, caprows, payrows, lim = r.h >= 30 ? 6 : 3, vmax;
	int room;

	/* the records' columns: what happened from tx, folded under
	 * itself, or under the verdict word when that is too narrow */
	v->tx = 1 + v->whow + 2 + 9 + 2 + v->layw + 2;
	v->tw = r.w - v->tx;
	v->cx = v->tw >= 24 || r.w - (1 + v->whow + 2) <= v->tw ? v->tx :
	    1 + v->whow + 2;
	v->cw = r.w - v->cx;
	for (i = 0; i < v->nrec; i++) {
		v->want[i] = v->tw >= 8 ? fold(NULL, v->what[i], v->tw, v->cw) :
		    1;
		v->got[i] = 1;
	}
	room = r.h - (int)(v->heading != NULL) - (int)v->nnotes -
	    (int)v->nrec;
	caprows = v->caption ? wrap(NULL, v->caption, strlen(v->caption), 0,
	    0, r.w - 2) : 0;
	payrows = v->payload ? wrap(NULL, v->payload, strlen(v->payload), 0,
	    0, r.w - 4) : 0;
	v->cap_max = caprows > 0 && room > 0;
	room -= (int)v->cap_max;
	v->pay_max = payrows > 0 && room > 0;
	room -= (int)v->pay_max;
	for (i = 0; i < v->nrec && room > 0; i++)	/* a second row each */
		if (v->want[i] > 1) {
			v->got[i]++;
			room--;
		}
	if (room >= (int)v->nfiles)
		room -= (int)v->nfiles;
	else
		v->nfiles = 0;
	while (room > 0 && (v->pay_max < payrows || v->cap_max < caprows)) {
		bool grew = false;
		if (v->pay_max < payrows && v->pay_max < lim) {
			v->pay_max++;
			room--;
			grew = true;
		}
		if (room > 0 && v->cap_max < caprows && v->cap_max < lim) {
			v->cap_max++;
			room--;
			grew = true;
		}
		if (!grew)
			break;
	}
	/* blank rows: before the records, before the files, after the
	 * caption (or heading) */
	if (room > 0 && (v->nrec > 0 || v->nnotes > 0)) {
		v->blank[1] = true;
		room--;
	}
	if (room > 0 && v->nfiles > 0) {
		v->blank[2] = true;
		room--;
	}
	if (room > 0 && v->cap_max > 0) {
		v->blank[0] = true;
		room--;
	}
	for (vmax = 3; vmax <= 6 && room > 0; vmax++)	/* and more */
		for (i = 0; i < v->nrec && room > 0; i++)
			if (v->want[i] > v->got[i] && v->got[i] < vmax) {
				v->got[i]++;
				room--;
			}
	/* the rest, whole */
	room = grow(room, &v->cap_max, caprows, caprows);
	(void)grow(room, &v->pay_max, payrows, payrows);
}

/* The heading, the caption and the payload from row; returns the row
 * after them. */
static int
draw_text_part(struct ui *u, struct arena *a, struct rect r, struct view *v,
    struct rows *rs, int row)
{
	size_t i;

	if (v->heading != NULL && row < r.h) {
		size_t take = draw_fit(v->heading, strlen(v->heading),
		    r.w - 2);
		draw_textn(r, row++, 1, A_BOLD, v->heading, take);
		if (v->blank[0]) {	/* (between it and the question) */
			row++;
			v->blank[0] = false;
		}
	}
	if (v->caption != NULL && v->cap_max > 0) {
		const char *c = elide(a, v->caption, r.w - 2, v->cap_max);
		rs->n = 0;
		wrap(rs, c, strlen(c), A_BOLD, 1, r.w - 2);
		for (i = 0; i < rs->n && i < v->cap_max && row < r.h; i++)
			draw_textn(r, row++, 1, v->heading ? A_NORMAL : A_BOLD,
			    rs->r[i].s, rs->r[i].len);
	}
	if (v->blank[0])
		row++;
	/* the payload, once; "> " marks an input's first row */
	if (v->payload != NULL && v->pay_max > 0) {
		const char *p = elide(a, v->payload, r.w - 4, v->pay_max);
		rs->n = 0;
		wrap(rs, p, strlen(p), A_NORMAL, 3, r.w - 4);
		for (i = 0; i < rs->n && i < v->pay_max && row < r.h; i++) {
			if (i == 0 && (u->play->live_a || v->st->kind ==
			    SCN_RUN))
				draw_text(r, row, 1, draw_attr(u, UC_DIM),
				    ">");
			draw_textn(r, row++, 3, A_NORMAL, rs->r[i].s,
			    rs->r[i].len);
		}
	}
	return row;
}

/* The records: who, the word, the layer, what happened folded in the
 * rows it got, "..." where it is cut; returns the row after them. */
static int
draw_records(struct ui *u, struct rect r, struct view *v, struct rows *rs,
    int row)
{
	size_t i, k;

	for (i = 0; i < v->nrec && row < r.h; i++) {
		draw_text(r, row, 1, A_BOLD, v->who[i]);
		draw_text(r, row, 1 + v->whow + 2,
		    draw_verdict_attr(u, v->recs[i]->verdict) | A_BOLD,
		    record_verdict_word(v->recs[i]->verdict));
		draw_text(r, row, 1 + v->whow + 2 + 9 + 2,
		    draw_attr(u, UC_DIM), record_layer_word(v->recs[i]));
		if (v->tw < 8) {
			row++;
			continue;
		}
		rs->n = 0;
		fold(rs, v->what[i], v->tw, v->cw);
		for (k = 0; k < v->got[i] && k < rs->n && row < r.h; k++) {
			int at = k == 0 ? v->tx : v->cx, w = k == 0 ? v->tw :
			    v->cw;
			size_t take = rs->r[k].len;
			bool cut = k + 1 == v->got[i] && rs->n > v->got[i];
			if (cut)
				take = draw_fit(rs->r[k].s,
				    strlen(rs->r[k].s), w - 3);
			draw_textn(r, row, at, A_NORMAL, rs->r[k].s, take);
			if (cut)
				draw_text(r, row, at + draw_width(rs->r[k].s,
				    take), draw_attr(u, UC_DIM), "...");
			row++;
		}
	}
	return row;
}

/*
 * The view, under its title row: a heading (the welcome's title), the
 * caption, the payload once, notes (the jail path being off, what runs,
 * what Enter does), one or more rows per record -- who, the verdict
 * word, the layer, then what happened, folded under itself -- and each
 * path's files.  Every record's first row is there before anything
 * grows: then each record's second row, the files, the caption and
 * payload (three rows each, six on a tall screen), blank rows between
 * the parts, more rows for what happened, and the rest of the caption
 * and payload.
 */
static void
draw(struct ui *u, struct rect r, enum path_id unused)
{
	struct play *pl = u->play;
	struct arena *a;
	struct rows rs = { NULL, 0, 0 };
	struct view v;
	int row;

	(void)unused;
	if (r.h < 3 || r.w < 20)
		return;
	a = arena_new();
	memset(&v, 0, sizeof v);
	v.d = pl->cur > 0 ? &pl->done[pl->cur - 1] : NULL;
	v.st = pl->running != NULL ? pl->running : v.d ?
	    &pl->sc.steps[v.d->idx] : NULL;
	draw_title(u, a, r, &v);
	r.y++;
	r.h--;
	gather_text(u, a, &v);
	gather_records(u, a, &v);
	gather_files(u, a, &v);
	allot(&v, r);
	row = draw_text_part(u, a, r, &v, &rs, 0);
	if (v.blank[1])
		row++;
	row = draw_cut_rows(u, r, row, v.notes, v.nattr, v.nnotes);
	row = draw_records(u, r, &v, &rs, row);
	if (v.blank[2])
		row++;
	draw_cut_rows(u, r, row, v.files, v.fattr, v.nfiles);
	free(rs.r);
	arena_free(a);
}

const struct pane_ops pane_play = { "play", draw, NULL };
