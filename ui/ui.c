/*
 * ui.c -- the terminal UI's main loop.
 *
 * Sets up curses (newterm, so a bad TERM is an error value rather than an
 * exit), colours unless NO_COLOR, and readline; then reads one key at a
 * time until :quit, F10 or end of input.  Every line readline accepts
 * comes to ui_line(): a ':' meta command, a presenter step (Enter on an
 * empty line while a scenario plays, play.c), or code, which is
 * accumulated while the parser says it is incomplete and then run on
 * every path.
 */
#include "config.h"

#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "arena.h"
#include "parse.h"
#include "policy.h"
#include "session.h"
#include "ui.h"
#include "uipriv.h"
#include "xalloc.h"

/* Continuation stops growing an input past this many bytes. */
#define MAX_PENDING (1u << 20)

/* A terminating signal: leave the loop, restore the terminal, then die
 * of the same signal. */
static volatile sig_atomic_t stop_signal;

static void
on_signal(int sig)
{
	stop_signal = sig;
}

bool
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

void
ui_redraw(struct ui *u)
{
	layout_draw(u);
	input_redisplay();
}

void
ui_resize(struct ui *u)
{
	/* ncurses has already resized stdscr (LINES, COLS). */
	clearok(curscr, TRUE);
	ui_redraw(u);
}

/*
 * '? TASK' with --agent: ask the agent, show its proposal in every path's
 * transcript before it runs, then run each proposed line like typed input.
 */
static void
submit_task(struct ui *u, const char *task, size_t tasklen)
{
	struct agent_proposal prop;
	char *t = xstrndup(task, tasklen), *err = NULL;
	size_t i;

	meta_set_message(u, "asking the agent...");
	ui_redraw(u);
	if (!agent_propose(u->agent, u->s, t, &prop, &err)) {
		meta_set_message(u, "agent: %s", err);
		free(err);
		free(t);
		return;
	}
	for (i = 0; i < prop.nlines; i++) {
		char *note = xasprintf("agent proposes: %s", prop.lines[i]);
		model_note(&u->m, 0, note);
		free(note);
	}
	for (i = 0; i < prop.nlines; i++) {
		struct arena *a = arena_new();
		struct record *r;
		size_t n = agent_run_line(u->s, prop.lines[i], 0, a, &r);
		model_apply(&u->m, prop.lines[i], strlen(prop.lines[i]), r, n);
		arena_free(a);
	}
	meta_set_message(u, "the agent proposed %zu line%s for: %s",
	    prop.nlines, prop.nlines == 1 ? "" : "s", t);
	agent_proposal_free(&prop);
	free(t);
	layout_scroll_reset(u);
}

/* Run one complete input on every path and take in its records. */
static void
submit(struct ui *u, const char *input, size_t len)
{
	struct arena *a;
	struct record *r;
	const char *task;
	size_t n, tasklen;

	if (u->agent != NULL && agent_is_task(input, len, &task, &tasklen)) {
		submit_task(u, task, tasklen);
		return;
	}
	a = arena_new();
	n = session_run(u->s, input, len, NULL, 0, a, &r);
	model_apply(&u->m, input, len, r, n);
	layout_scroll_reset(u);
	free(u->message);
	u->message = NULL;
	play_live(u, input, len, r, n);
	arena_free(a);
}

/* A meta command that changes what the next step runs on (a scenario
 * playing forgets the steps it ran past the one shown). */
static bool
changes_session(const char *line)
{
	static const char *const which[] = { ":policy", ":budget", ":paths",
	    ":jail", NULL };
	size_t n = strcspn(line, " \t"), i;

	for (i = 0; which[i] != NULL; i++)
		if (strlen(which[i]) == n && strncmp(which[i], line, n) == 0)
			return true;
	return false;
}

void
ui_line(struct ui *u, const char *line)
{
	size_t len;

	if (line == NULL) {
		u->quit = true;
		return;
	}
	len = strlen(line);
	if (u->pending == NULL) {
		const char *p = line + strspn(line, " \t");
		if (*p == ':') {
			input_add_history(u, p);
			if (changes_session(p))
				play_changed(u);
			meta_run(u, p);
			ui_redraw(u);
			return;
		}
		if (*p == '\0' || *p == '#') {
			if (*p == '\0' && play_active(u))
				play_next(u);
			ui_redraw(u);
			return;
		}
	}
	input_add_history(u, line);
	if (u->npending + len + 1 > MAX_PENDING) {
		meta_set_message(u, "input too long; dropped");
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
	/* An empty line ends a continuation whatever the parser says. */
	if (len > 0 && parse_is_incomplete(u->pending, u->npending)) {
		meta_set_message(u, "incomplete input: go on, or Ctrl-C");
		ui_redraw(u);
		return;
	}
	play_changed(u);	/* a live input: the scenario waits */
	submit(u, u->pending, u->npending);
	free(u->pending);
	u->pending = NULL;
	u->npending = 0;
	ui_redraw(u);
}

static void
init_colors(struct ui *u)
{
	const char *nc = getenv("NO_COLOR");
	u->has_color = (nc == NULL || nc[0] == '\0') && has_colors();
	if (!u->has_color)
		return;
	start_color();
	use_default_colors();
	init_pair(UC_OK, COLOR_GREEN, -1);
	init_pair(UC_BLOCKED, COLOR_YELLOW, -1);
	init_pair(UC_DAMAGE, COLOR_RED, -1);
	init_pair(UC_ERROR, COLOR_MAGENTA, -1);
	init_pair(UC_CONTAINED, COLOR_CYAN, -1);
	init_pair(UC_TITLE, COLOR_WHITE, COLOR_BLUE);
	init_pair(UC_DIM, COLOR_CYAN, -1);
	init_pair(UC_HL, COLOR_BLACK, COLOR_YELLOW);
}

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
	setlocale(LC_ALL, "");
	scr = newterm(NULL, stdout, stdin);
	if (scr == NULL)
		return -1;
	set_term(scr);
	raw();
	noecho();
	nonl();
	init_colors(&u);
	model_init(&u.m, s);
	/* (a play's first snapshot may come after inputs: see session.h) */
	session_report_literals(s);
	meta_set_message(&u, "Type an input and Enter; F1 help, :quit "
	    "leaves.");
	input_init(&u, o->no_history);
	catch_signals();
	if (o->play != NULL) {	/* --play FILE: straight into it */
		ui_redraw(&u);
		play_start(&u, o->play);
	}
	ui_redraw(&u);
	while (!u.quit && !ui_stopped())
		input_read(&u);
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
