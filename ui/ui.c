/*
 * ui.c -- the terminal UI's main loop.
 *
 * Sets up curses (newterm, so a bad TERM is an error value rather than an
 * exit), colours for a dark or light background unless NO_COLOR, and
 * readline; then reads one key at a
 * time until :quit, F10 or end of input.  Every line readline accepts
 * comes to ui_line(): a ':' meta command, a presenter step (Enter on an
 * empty line while a scenario plays, play.c), or code, which is
 * accumulated while the session says it is incomplete and then run on
 * every path.
 */
#include "config.h"

#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "app/agent.h"
#include "base/arena.h"
#include "base/sbuf.h"
#include "sandbox/policy.h"
#include "session/session.h"
#include "ui.h"
#include "world/world.h"
#include "lesson.h"
#include "uipriv.h"
#include "base/xalloc.h"

/* Continuation stops growing an input past this many bytes. */
#define MAX_PENDING (1u << 20)

/* A terminating signal: leave the loop, restore the terminal, then die
 * of the same signal.  An input or an agent's task that runs is
 * interrupted as by Ctrl-C, so that the loop is left now and not when
 * the input's timeout or every turn of the task has passed. */
static volatile sig_atomic_t stop_signal;

static void
on_signal(int sig)
{
	stop_signal = sig;
	session_interrupt();
}

static bool
ui_stopped(void)
{
	return stop_signal != 0;
}

static void
catch_signals(void)
{
	static const int sigs[] = { SIGTERM, SIGHUP, SIGINT, SIGQUIT };
	struct sigaction sa;
	size_t i;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: wgetch must return */
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
}

bool
ui_usable(const char **why)
{
	const char *term = getenv("TERM");
	if (term == NULL || term[0] == '\0') {
		*why = "TERM is not set";
		return false;
	}
	if (strcmp(term, "dumb") == 0) {
		*why = "TERM is dumb";
		return false;
	}
	return true;
}

static void
ui_redraw(struct ui *u)
{
	progress_end();
	layout_draw(u);
	input_redisplay();
}

static void
ui_resize(struct ui *u)
{
	/* ncurses has already resized stdscr (LINES, COLS). */
	clearok(curscr, TRUE);
	ui_redraw(u);
}

/*
 * '? TASK' with --agent: ask the agent, show its proposal in every path's
 * transcript before it runs, then run each proposed line like typed input;
 * with --agent-turns, again for every turn, the records going back to it.
 * Ctrl-C, as while any input runs: the agent is killed while it thinks,
 * a proposed line gets KeyboardInterrupt, and no further line or turn
 * runs.
 */
static bool
agent_interrupted(void *arg)
{
	(void)arg;
	return world_interrupt_pending();
}

/* A turn's proposal, a note in every path's transcript per line. */
static void
task_proposed(void *arg, const struct agent_proposal *p)
{
	struct ui *u = arg;
	size_t i;

	for (i = 0; i < p->nlines; i++) {
		char *note = p->turns > 1 ? xasprintf("agent proposes (turn %u "
		    "of %u): %s", p->turn, p->turns, p->lines[i]) :
		    xasprintf("agent proposes: %s", p->lines[i]);
		model_note(&u->m, 0, note);
		free(note);
	}
	ui_redraw(u);	/* (before its lines run, which may take long) */
}

/* A proposed line has run: taken in like typed input's records. */
static void
task_ran(void *arg, const char *line, const struct record *r, size_t n)
{
	struct ui *u = arg;

	model_apply(&u->m, line, strlen(line), r, n);
	lesson_typed(line, strlen(line), r, n);
}

/* Another turn is to be asked: say so while the agent thinks. */
static void
task_between(void *arg, const struct agent_loop *l)
{
	struct ui *u = arg;

	message_set(u, "asking the agent (turn %u of %u)...", l->turn + 1,
	    l->turns);
	focus_scroll_reset(u);
	ui_redraw(u);
}

static void
submit_task(struct ui *u, const char *task, size_t tasklen)
{
	struct agent_opts o = *u->agent;
	struct agent_turn_ops ops = { task_proposed, task_ran, task_between,
	    u };
	struct agent_loop l;
	struct agent_run run;
	struct sbuf end = SBUF_INIT;
	char *t = xstrndup(task, tasklen), *err;

	o.is_cancelled = agent_interrupted;
	agent_loop_init(&l, &o, u->s, task, tasklen);
	message_set(u, "asking the agent...");
	ui_redraw(u);
	world_interrupt_clear();	/* (an earlier input's Ctrl-C) */
	ui_running(true);
	agent_loop_run(&l, &ops, &run);
	ui_running(false);
	err = run.err;
	if (err != NULL && world_interrupt_pending()) {
		free(err);
		err = xasprintf("interrupted (Ctrl-C) while it answered turn "
		    "%u: killed", l.turn);
	} else if (run.stopped)
		err = xasprintf("interrupted (Ctrl-C) in turn %u; %zu line%s "
		    "run", l.turn, run.proposed, run.proposed == 1 ? "" : "s");
	else
		agent_loop_show_end(&l, false, &end);
	if (err != NULL) {
		message_set(u, "agent: %s", err);
		free(err);
	} else if (end.len > 0)
		message_set(u, "%s; %zu line%s for: %s", sbuf_cstr(&end),
		    run.proposed, run.proposed == 1 ? "" : "s", t);
	else
		message_set(u, "the agent proposed %zu line%s for: %s",
		    run.proposed, run.proposed == 1 ? "" : "s", t);
	sbuf_free(&end);
	agent_loop_free(&l);
	free(t);
	focus_scroll_reset(u);
}

/* Run one complete input on every path and take in its records. */
static void
submit(struct ui *u, const char *input, size_t len)
{
	struct arena *a;
	struct record *r;
	const char *task;
	size_t n, tasklen;

	u->quit_asked = false;
	if (u->agent != NULL && agent_is_task(input, len, &task, &tasklen)) {
		submit_task(u, task, tasklen);
		return;
	}
	a = arena_new();
	ui_running(true);
	n = session_run(u->s, input, len, NULL, 0, a, &r);
	ui_running(false);
	model_apply(&u->m, input, len, r, n);
	lesson_typed(input, len, r, n);
	focus_scroll_reset(u);
	free(u->message);
	u->message = NULL;
	play_live(u, input, len, r, n);
	arena_free(a);
}

/* A line from readline (NULL at end of input): meta command,
 * continuation, presenter step or an input to run. */
static void
ui_line(struct ui *u, const char *line)
{
	size_t len;

	if (line == NULL) {
		meta_quit(u);
		ui_redraw(u);
		return;
	}
	len = strlen(line);
	if (u->pending == NULL) {
		const char *p = line + strspn(line, " \t");
		if (*p == ':') {
			input_add_history(u, p);
			if (meta_changes_session(p))
				play_changed(u);
			meta_run(u, p);
			ui_redraw(u);
			return;
		}
		if (*p == '\0' || *p == '#') {
			if (*p == '\0' && play_active(u)) {
				u->quit_asked = false;
				play_next(u);
			}
			ui_redraw(u);
			return;
		}
	}
	if (u->npending + len + 1 > MAX_PENDING) {
		message_set(u, "input too long; dropped");
		free(u->pending);
		u->pending = NULL;
		u->npending = 0;
		ui_redraw(u);
		return;
	}
	u->pending = xrealloc(u->pending, u->npending + len + 2);
	if (u->npending > 0)
		u->pending[u->npending++] = '\n';
	memcpy(u->pending + u->npending, line, len);
	u->npending += len;
	u->pending[u->npending] = '\0';
	/* An empty line ends a continuation whatever the session says. */
	if (len > 0 && session_input_incomplete(u->pending, u->npending)) {
		message_set(u, "incomplete input: go on, or Ctrl-C");
		ui_redraw(u);
		return;
	}
	/* The history keeps the whole input, its lines and all. */
	input_add_history(u, u->pending);
	play_changed(u);	/* a live input: the scenario waits */
	submit(u, u->pending, u->npending);
	free(u->pending);
	u->pending = NULL;
	u->npending = 0;
	ui_redraw(u);
}

bool
ui_theme_parse(const char *s, enum ui_theme *out)
{
	if (strcmp(s, "dark") == 0)
		*out = UI_THEME_DARK;
	else if (strcmp(s, "light") == 0)
		*out = UI_THEME_LIGHT;
	else
		return false;
	return true;
}

/*
 * Each colour's foreground, background (-1: the terminal's) and extra
 * attribute.  On a light background yellow and cyan text wash out (as
 * dim does), so the light palettes use darker colours: from the 256-colour
 * cube where the terminal has it, else the readable ones of the eight.
 */
struct shade {
	short	 fg, bg;
	int	 attr;
};

static const struct shade dark[UC__COUNT] = {
	[UC_OK] = { COLOR_GREEN, -1, 0 },
	[UC_BLOCKED] = { COLOR_YELLOW, -1, 0 },
	[UC_DAMAGE] = { COLOR_RED, -1, 0 },
	[UC_ERROR] = { COLOR_MAGENTA, -1, 0 },
	[UC_CONTAINED] = { COLOR_CYAN, -1, 0 },
	[UC_INSIDE] = { COLOR_BLUE, -1, A_BOLD },	/* bright blue */
	[UC_TITLE] = { COLOR_WHITE, COLOR_BLUE, A_BOLD },
	[UC_DIM] = { COLOR_CYAN, -1, 0 },
	[UC_HL] = { COLOR_BLACK, COLOR_YELLOW, A_BOLD },
};

static const struct shade light256[UC__COUNT] = {
	[UC_OK] = { 28, -1, 0 },		/* green4 */
	[UC_BLOCKED] = { 130, -1, A_BOLD },	/* dark orange */
	[UC_DAMAGE] = { 160, -1, 0 },		/* red3 */
	[UC_ERROR] = { 90, -1, 0 },		/* dark magenta */
	[UC_CONTAINED] = { 25, -1, A_BOLD },	/* dark blue */
	[UC_INSIDE] = { 94, -1, A_BOLD },	/* brown (orange4) */
	[UC_TITLE] = { 231, 25, A_BOLD },
	[UC_DIM] = { 242, -1, 0 },		/* grey */
	[UC_HL] = { 16, 153, A_BOLD },		/* black on light blue */
};

static const struct shade light8[UC__COUNT] = {
	[UC_OK] = { COLOR_GREEN, -1, 0 },
	[UC_BLOCKED] = { COLOR_BLUE, -1, A_BOLD },
	[UC_DAMAGE] = { COLOR_RED, -1, 0 },
	[UC_ERROR] = { COLOR_MAGENTA, -1, 0 },
	[UC_CONTAINED] = { -1, -1, A_BOLD },
	[UC_INSIDE] = { COLOR_BLACK, COLOR_CYAN, 0 },
	[UC_TITLE] = { COLOR_WHITE, COLOR_BLUE, A_BOLD },
	[UC_DIM] = { -1, -1, 0 },
	[UC_HL] = { COLOR_WHITE, COLOR_BLUE, A_BOLD },
};

static void
init_colors(struct ui *u, enum ui_theme theme)
{
	const char *nc = getenv("NO_COLOR");
	const char *env = getenv("SANDBOXREPL_THEME");
	const struct shade *pal;
	int c;

	/* an unknown value in the environment is the default */
	if (theme == UI_THEME_UNSET && (env == NULL ||
	    !ui_theme_parse(env, &theme)))
		theme = UI_THEME_DARK;
	u->light = theme == UI_THEME_LIGHT;
	u->has_color = (nc == NULL || nc[0] == '\0') && has_colors();
	if (!u->has_color)
		return;
	start_color();
	use_default_colors();
	pal = !u->light ? dark : COLORS >= 256 ? light256 : light8;
	for (c = UC_NONE + 1; c < UC__COUNT; c++) {
		init_pair((short)c, pal[c].fg, pal[c].bg);
		u->color_attr[c] = (int)COLOR_PAIR(c) | pal[c].attr;
	}
	u->color_attr[UC_NONE] = A_NORMAL;
}

/* What the input line calls back (input.c does not name ui.c). */
static const struct input_hooks hooks = {
	ui_line, ui_redraw, layout_draw, ui_resize, meta_quit, ui_stopped
};

int
ui_run(struct session *s, const struct ui_opts *o)
{
	struct ui u;
	SCREEN *scr;

	memset(&u, 0, sizeof u);
	u.s = s;
	u.agent = o->agent;
	u.missing = o->missing;
	u.show_ast = true;
	u.redraw = ui_redraw;
	setlocale(LC_ALL, "");
	scr = newterm(NULL, stdout, stdin);
	if (scr == NULL)
		return -1;
	set_term(scr);
	raw();
	noecho();
	nonl();
	init_colors(&u, o->theme);
	/* (the AST pane and the files pane draw what records carry) */
	session_report_panes(s);
	model_init(&u.m, s);
	/* (a play's first snapshot may come after inputs: see session.h) */
	session_report_literals(s);
	message_set(&u, "Type an input and Enter; F1 help, :quit "
	    "leaves.");
	input_init(&u, &hooks, o->no_history);
	progress_init(&u);
	catch_signals();
	/* a world that boots (a microVM) starts now, while the welcome is
	 * read; its column counts the seconds */
	session_prestart(s);
	if (o->play != NULL) {	/* --play FILE: straight into it */
		ui_redraw(&u);
		play_start(&u, o->play);
	}
	ui_redraw(&u);
	while (!u.quit && !ui_stopped())
		input_read(&u);
	progress_fini(&u);
	input_end(&u);
	endwin();
	delscreen(scr);
	if (stop_signal != 0) {
		signal(stop_signal, SIG_DFL);
		raise(stop_signal);
	}
	model_free(&u.m);
	play_stop(&u);
	free(u.pending);
	free(u.message);
	if (u.owned_policy != NULL) {
		session_set_policy(s, policy_preset("essay"));
		policy_free(u.owned_policy);
	}
	return 0;
}
