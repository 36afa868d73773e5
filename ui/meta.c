/*
 * meta.c -- the ':' commands.
 *
 * A table of what exists: each row is a name, its argument and its
 * handler.  :play, :goto, :stop and :reset during a play drive the
 * presenter view (play.c).  Quitting is :quit's, whatever asks for it (F10,
 * Ctrl-D): ui.c hands meta_quit to the input line as its quit hook.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "app/export.h"
#include "lesson.h"
#include "sandbox/policy.h"
#include "base/sbuf.h"
#include "session/session.h"
#include "uipriv.h"
#include "base/xalloc.h"

/* A row's flags. */
#define META_CHANGES	0x1	/* changes what the next step runs on (a
				   scenario playing forgets the steps it ran
				   past the one shown) */
#define META_FILE	0x2	/* takes a file: Tab completes paths */
#define META_PRESETS	0x4	/* and the policy presets */
#define META_HIDDEN	0x8	/* not offered by Tab (an alias) */

struct meta {
	const char	*name;
	const char	*arg;
	void		(*run)(struct ui *u, const char *arg);
	unsigned	 flags;
	const char	*ext;		/* META_FILE: the files kept, or NULL:
					   any */
};

static void
do_help(struct ui *u, const char *arg)
{
	u->overlay = &pane_help;
}

/* :reset: fresh worlds and the essay's files and names (the policy
 * stays); during a play, the scenario's step 0 as it began, no step
 * run. */
static void
do_reset(struct ui *u, const char *arg)
{
	if (play_active(u)) {
		play_reset(u);
		return;
	}
	session_reset(u->s, true);
	session_prestart(u->s);
	model_clear(&u->m);
	message_set(u, "reset: the essay's files and names again");
}

static void
do_policy(struct ui *u, const char *arg)
{
	const struct policy *p;
	if (*arg == '\0') {
		p = session_policy(u->s);
		message_set(u, "policy %s: %s", p ? p->name : "?",
		    p && p->summary ? p->summary : "");
		return;
	}
	{
		char *err;
		p = policy_resolve(arg, &session_policy_names, &err);
		if (p == NULL) {
			message_set(u, "%s", err);
			free(err);
			return;
		}
	}
	if (policy_preset(p->name) != p) {
		/* a file: the UI owns it; the one it replaces goes */
		session_set_policy(u->s, p);
		policy_free(u->owned_policy);
		u->owned_policy = (struct policy *)p;
		message_set(u, "policy %s (from %s)", p->name, arg);
		return;
	}
	session_set_policy(u->s, p);
	message_set(u, "policy %s: %s", p->name,
	    p->summary ? p->summary : "");
}

static void
do_budget(struct ui *u, const char *arg)
{
	char *end;
	long n;
	errno = 0;
	n = strtol(arg, &end, 10);
	if (*arg == '\0' || errno != 0 || *end != '\0' || n < 0 ||
	    n > 1000000) {
		message_set(u, "usage: :budget N (0 to 1000000)");
		return;
	}
	session_set_budget(u->s, (unsigned)n);
	message_set(u, "sandbox budget: %ld inputs", n);
}

static void
do_paths(struct ui *u, const char *arg)
{
	unsigned mask = 0;
	const char *s = arg;
	while (*s != '\0') {
		size_t n = strcspn(s, ", ");
		enum path_id p;
		char list[256];
		if (n > 0) {
			if (!record_path_parse(s, n, &p)) {
				message_set(u, "unknown path '%.*s' "
				    "(expected %s)", (int)n, s, path_list(list,
				    sizeof list, ~0u, ","));
				return;
			}
			mask |= PATH_BIT(p);
		}
		s += n + (s[n] != '\0');
	}
	if (mask == 0) {
		char list[256];

		message_set(u, "usage: :paths %s", path_list(list,
		    sizeof list, paths_offered(), ","));
		return;
	}
	session_set_paths(u->s, mask);
	session_prestart(u->s);
	message_set(u, "paths: %s", arg);
}

/* :play FILE: the presenter view (play.c); :play alone, back to it. */
static void
do_play(struct ui *u, const char *arg)
{
	if (*arg == '\0') {
		if (play_active(u))
			play_show_view(u);
		else if (!play_active(u))
			message_set(u, "usage: :play FILE (a .scn "
			    "scenario)");
		return;
	}
	play_start(u, arg);
}

/* :goto N: step N of the scenario playing. */
static void
do_goto(struct ui *u, const char *arg)
{
	if (!play_active(u)) {
		message_set(u, ":goto N moves in a scenario: :play FILE "
		    "first");
		return;
	}
	play_goto(u, arg);
}

/* :stop: the scenario playing ends; the session stays as it is. */
static void
do_stop(struct ui *u, const char *arg)
{
	(void)arg;
	play_leave(u);
}

static void
do_save(struct ui *u, const char *arg)
{
	if (*arg == '\0') {
		message_set(u, "usage: :save FILE");
		return;
	}
	if (!model_save(&u->m, arg))
		message_set(u, "%s: %s", arg, strerror(errno));
	else
		message_set(u, "saved %zu trace lines to %s", u->m.nlog,
		    arg);
}

void
meta_quit(struct ui *u)
{
	size_t n = u->m.unsaved;

	if (n == 0 || u->quit_asked) {
		u->quit = true;
		return;
	}
	u->quit_asked = true;
	message_set(u, "%zu step%s not saved: :save FILE first, or "
	    "press F10 or :quit again to quit", n, n == 1 ? "" : "s");
}

static void
do_quit(struct ui *u, const char *arg)
{
	meta_quit(u);
}

/* :jail [BOUNDARY]: say or set the jail path's boundary (a kind --jail
 * takes). */
static void
do_jail(struct ui *u, const char *arg)
{
	enum boundary b;
	char list[128];

	if (*arg == '\0') {
		message_set(u, "jail: %s",
		    boundary_name(session_jail(u->s)));
		return;
	}
	if (!boundary_parse(arg, &b)) {
		message_set(u, "usage: :jail %s", boundary_list(list,
		    sizeof list, "|"));
		return;
	}
	session_set_jail(u->s, b);
	session_prestart(u->s);
	message_set(u, "jail: %s (a new jail world: its names are "
	    "forgotten, its files kept)", boundary_name(b));
}

/*
 * :summary: what the class ran this session (lesson.h), through every
 * :reset and play -- the steps and the counts over the screen
 * (pane_summary.c), and the counts on the message line for a narrow
 * screen and for scripts: per path, how many of its inputs each verdict
 * ended, "jail:gvisor 2 contained, 1 ok".  The paths that ran nothing
 * are left out.  ":summary clear" starts it again from here.
 */
static void
do_summary(struct ui *u, const char *arg)
{
	struct sbuf b = SBUF_INIT;
	size_t count[VERDICT__COUNT], p, i, v;

	if (strcmp(arg, "clear") == 0) {
		lesson_clear();
		message_set(u, "summary cleared: :summary counts from here");
		return;
	}
	if (*arg != '\0') {
		message_set(u, "usage: :summary, or :summary clear");
		return;
	}
	for (p = 0; p < PATH__COUNT; p++) {
		if (!summary_count(u, (enum path_id)p, count))
			continue;
		sbuf_addf(&b, "%s%s", b.len ? " | " : "",
		    record_path_name((enum path_id)p));
		if (path_row((enum path_id)p)->kind_by_jail)	/* :jail's */
			sbuf_adds(&b, session_boundary(u->s,
			    (enum path_id)p)->tag);
		for (v = 0, i = 0; v < VERDICT__COUNT; v++)
			if (count[v] > 0)
				sbuf_addf(&b, "%s %zu %s", i++ ? "," : "",
				    count[v], record_verdict_name(
				    (enum verdict)v));
	}
	message_set(u, "summary: %s", b.len ? sbuf_cstr(&b) :
	    "nothing has run yet");
	sbuf_free(&b);
	summary_open(u);
}

/* :export FILE: the session's handout, one HTML page (export.h). */
static void
do_export(struct ui *u, const char *arg)
{
	char *err, *title;

	if (*arg == '\0') {
		message_set(u, "usage: :export FILE.html (the session as a "
		    "handout)");
		return;
	}
	title = lesson_title();
	if (!export_write(lesson_log(), title, arg, &err)) {
		message_set(u, "export failed: %s", err);
		free(err);
	} else
		message_set(u, "exported %zu input%s to %s", lesson_inputs(),
		    lesson_inputs() == 1 ? "" : "s", arg);
	free(title);
}

static const struct meta metas[] = {
	{ ":help", "", do_help, 0, NULL },
	{ ":reset", "", do_reset, 0, NULL },
	{ ":policy", "NAME", do_policy, META_CHANGES | META_FILE |
	    META_PRESETS, ".policy" },
	{ ":budget", "N", do_budget, META_CHANGES, NULL },
	{ ":paths", "LIST", do_paths, META_CHANGES, NULL },
	{ ":jail", "BOUNDARY", do_jail, META_CHANGES, NULL },
	{ ":summary", "", do_summary, 0, NULL },
	{ ":play", "FILE", do_play, META_FILE, ".scn" },
	{ ":goto", "N", do_goto, 0, NULL },
	{ ":stop", "", do_stop, 0, NULL },
	{ ":save", "FILE", do_save, META_FILE, NULL },
	{ ":export", "FILE", do_export, META_FILE, NULL },
	{ ":quit", "", do_quit, 0, NULL },
	{ ":q", "", do_quit, META_HIDDEN, NULL },
};

#define NMETAS (sizeof metas / sizeof metas[0])

/* The row of line's first word (n bytes), or NULL. */
static const struct meta *
find(const char *line, size_t n)
{
	size_t i;

	for (i = 0; i < NMETAS; i++)
		if (strlen(metas[i].name) == n &&
		    strncmp(metas[i].name, line, n) == 0)
			return &metas[i];
	return NULL;
}

const char *
meta_name(size_t i)
{
	size_t k;

	for (k = 0; k < NMETAS; k++)
		if (!(metas[k].flags & META_HIDDEN) && i-- == 0)
			return metas[k].name;
	return NULL;
}

bool
meta_changes_session(const char *line)
{
	const struct meta *m = find(line, strcspn(line, " \t"));

	return m != NULL && (m->flags & META_CHANGES);
}

bool
meta_file_arg(const char *line, const char **ext, bool *presets)
{
	size_t i, n;

	line += strspn(line, " \t");
	n = strcspn(line, " ");
	for (i = 0; i < NMETAS; i++)
		if ((metas[i].flags & META_FILE) &&
		    strlen(metas[i].name) == n && line[n] == ' ' &&
		    strncmp(metas[i].name, line, n) == 0) {
			*ext = metas[i].ext;
			*presets = (metas[i].flags & META_PRESETS) != 0;
			return true;
		}
	return false;
}

bool
meta_run(struct ui *u, const char *line)
{
	size_t n = strcspn(line, " \t");
	const char *arg = line + n;
	const struct meta *m;
	char *a;
	size_t alen;

	if (line[0] != ':')
		return false;
	arg += strspn(arg, " \t");
	alen = strlen(arg);
	while (alen > 0 && (arg[alen - 1] == ' ' || arg[alen - 1] == '\t'))
		alen--;
	a = xstrndup(arg, alen);
	if ((m = find(line, n)) != NULL) {
		m->run(u, a);
		free(a);
		return true;
	}
	message_set(u, "unknown command '%.*s'; :help lists them",
	    (int)n, line);
	free(a);
	return true;
}
