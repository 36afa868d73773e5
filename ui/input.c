/*
 * input.c -- GNU readline inside curses, through the callback interface.
 *
 * Curses owns the terminal; readline owns the line.  Keys are read with
 * wgetch on a one-line pad whose keypad mode is off, so readline sees the
 * raw escape sequences and its own keymaps decide (F-keys and paging are
 * readline bindings too).  Readline never touches the terminal: its
 * terminal preparation is disabled, its output goes nowhere, and our
 * redisplay hook draws the prompt and line on the bottom row.  History is
 * a file of what people typed, so it is created 0600 and can be turned
 * off (--no-history).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <term.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "cmd.h"
#include "mockfs.h"
#include "ns.h"
#include "policy.h"
#include "session.h"
#include "uipriv.h"
#include "xalloc.h"

/* History entries kept in the file. */
#define HISTORY_MAX 1000

/* Readline's hooks take no context: the one UI of this process. */
static struct ui *U;
static WINDOW *pad;
static FILE *devnull;
static int hscroll;	/* bytes of the line scrolled off the left */

/* Names Tab offers besides the session's files, names and commands. */
static const char *const builtin_names[] = {
	"abs", "len", "max", "min", "round", "sum", "open", "print",
	"__import__", "eval", "exec", "getattr", "globals", "sorted",
	"range", "str", "int", "float", "list", "dict", "type", "True",
	"False", "None", NULL
};

static void
drain(void)
{
	wtimeout(pad, 20);
	while (wgetch(pad) != ERR)
		;
	wtimeout(pad, -1);
}

/* Esc on its own, not the start of a key's sequence: nothing follows
 * it within a moment. */
static bool
lone_escape(void)
{
	int c;

	wtimeout(pad, 30);
	c = wgetch(pad);
	wtimeout(pad, -1);
	if (c == ERR)
		return true;
	ungetch(c);
	return false;
}

/* Block for one byte for readline; resizes and the help overlay are
 * handled here, before readline sees anything. */
static int
getc_hook(FILE *f)
{
	int errors = 0;
	(void)f;
	for (;;) {
		int c = wgetch(pad);
		if (c == KEY_RESIZE) {
			ui_resize(U);
			continue;
		}
		if (c == ERR) {
			if (errno == EINTR && !ui_stopped() && ++errors < 1000)
				continue;
			return EOF;
		}
		errors = 0;
		if (c == 27 && play_active(U) && !U->show_help &&
		    lone_escape()) {
			/* (readline's callback mode never acts on Esc alone) */
			play_toggle_view(U);
			ui_redraw(U);
			continue;
		}
		if (U->show_help) {
			/* Esc, F1 or any key closes the overlay. */
			U->show_help = false;
			drain();
			ui_redraw(U);
			continue;
		}
		return c;
	}
}

static int
available_hook(void)
{
	int c;
	wtimeout(pad, 10);
	c = wgetch(pad);
	wtimeout(pad, -1);
	if (c == ERR)
		return 0;
	ungetch(c);
	return 1;
}

void
input_redisplay(void)
{
	const char *prompt = rl_display_prompt ? rl_display_prompt : "";
	const char *buf = rl_line_buffer ? rl_line_buffer : "";
	struct rect r = { LINES - 1, 0, 1, COLS };
	int pw, x;

	if (LINES < 8 || COLS < 30)
		return;
	pw = draw_width(prompt, strlen(prompt));
	/* Scroll horizontally so the cursor stays on screen. */
	if (hscroll > rl_point)
		hscroll = 0;
	while (pw + draw_width(buf + hscroll, (size_t)(rl_point - hscroll)) >
	    COLS - 2 && hscroll < rl_point) {
		hscroll++;
		while (hscroll < rl_point &&
		    ((unsigned char)buf[hscroll] & 0xc0) == 0x80)
			hscroll++;
	}
	if (pw + draw_width(buf, (size_t)rl_point) <= COLS - 2)
		hscroll = 0;
	draw_fill(r, 0, A_NORMAL);
	x = draw_text(r, 0, 0, A_BOLD, prompt);
	draw_textn(r, 0, x, A_NORMAL, buf + hscroll,
	    strlen(buf + hscroll));
	x += draw_width(buf + hscroll, (size_t)(rl_point - hscroll));
	move(LINES - 1, x < COLS ? x : COLS - 1);
	refresh();
}

/* ---- key bindings ---- */

static int
do_key_help(int count, int key)
{
	U->show_help = !U->show_help;
	ui_redraw(U);
	return 0;
}

static int
do_key_ast(int count, int key)
{
	U->show_ast = !U->show_ast;
	ui_redraw(U);
	return 0;
}

static int
do_key_quit(int count, int key)
{
	U->quit = true;
	return 0;
}

/* PgUp/PgDn scroll the focused column only, by its height less a row
 * kept for context; its pane clamps the top. */
static int
page(void)
{
	int h = U->page[layout_focus(U)] - 1;

	return h > 1 ? h : 1;
}

static int
do_page_up(int count, int key)
{
	U->scroll[layout_focus(U)] += page();
	U->focus_shown = true;
	ui_redraw(U);
	return 0;
}

static int
do_page_down(int count, int key)
{
	int *sc = &U->scroll[layout_focus(U)];

	*sc -= page();
	if (*sc < 0)
		*sc = 0;
	U->focus_shown = true;
	ui_redraw(U);
	return 0;
}

/* Shift-Tab or F3: the next column takes PgUp/PgDn (Tab completes). */
static int
do_focus_next(int count, int key)
{
	layout_focus_next(U);
	U->focus_shown = true;
	ui_redraw(U);
	return 0;
}

static int
do_key_redraw(int count, int key)
{
	clearok(curscr, TRUE);
	ui_redraw(U);
	return 0;
}

static int
do_key_cancel(int count, int key)
{
	free(U->pending);
	U->pending = NULL;
	U->npending = 0;
	rl_replace_line("", 0);
	rl_point = 0;
	rl_set_prompt(input_prompt(U));
	meta_set_message(U, "cancelled");
	ui_redraw(U);
	return 0;
}

static void
bind(const char *seq, rl_command_func_t *fn)
{
	if (seq != NULL && seq != (const char *)-1 && *seq != '\0')
		rl_bind_keyseq(seq, fn);
}

static void
bind_cap(const char *cap, rl_command_func_t *fn)
{
	bind(tigetstr((char *)cap), fn);
}

static void
bind_keys(void)
{
	bind_cap("kf1", do_key_help);
	bind("\033OP", do_key_help);
	bind("\033[11~", do_key_help);
	bind_cap("kf2", do_key_ast);
	bind("\033OQ", do_key_ast);
	bind("\033[12~", do_key_ast);
	bind_cap("kf10", do_key_quit);
	bind("\033[21~", do_key_quit);
	bind_cap("kcbt", do_focus_next);
	bind("\033[Z", do_focus_next);
	bind_cap("kf3", do_focus_next);
	bind("\033OR", do_focus_next);
	bind("\033[13~", do_focus_next);
	bind_cap("kpp", do_page_up);
	bind("\033[5~", do_page_up);
	bind_cap("knp", do_page_down);
	bind("\033[6~", do_page_down);
	/* With a custom redisplay readline binds nothing from terminfo. */
	bind_cap("khome", rl_beg_of_line);
	bind("\033[1~", rl_beg_of_line);
	bind("\033[H", rl_beg_of_line);
	bind("\033OH", rl_beg_of_line);
	bind_cap("kend", rl_end_of_line);
	bind("\033[4~", rl_end_of_line);
	bind("\033[F", rl_end_of_line);
	bind("\033OF", rl_end_of_line);
	bind_cap("kdch1", rl_delete);
	bind("\033[3~", rl_delete);
	bind("\033[A", rl_get_previous_history);
	bind("\033[B", rl_get_next_history);
	bind("\033OA", rl_get_previous_history);
	bind("\033OB", rl_get_next_history);
	bind("\033[C", rl_forward_char);
	bind("\033[D", rl_backward_char);
	bind("\033OC", rl_forward_char);
	bind("\033OD", rl_backward_char);
	bind("\033[200~", rl_bracketed_paste_begin);
	rl_bind_key('\f', do_key_redraw);
	rl_bind_key(3, do_key_cancel);
}

/*
 * The presenter's keys (play.c), while a scenario plays and the line is
 * empty: Right steps on, Left back, Home to the start.  Otherwise they
 * edit the line as ever.  (Esc, between the presenter view and the
 * columns, is seen in getc_hook.)
 */
static bool
play_keys(void)
{
	return play_active(U) && rl_end == 0 && U->pending == NULL;
}

static int
do_play_right(int count, int key)
{
	if (!play_keys())
		return rl_forward_char(count, key);
	play_next(U);
	ui_redraw(U);
	return 0;
}

static int
do_play_left(int count, int key)
{
	if (!play_keys())
		return rl_backward_char(count, key);
	play_back(U);
	ui_redraw(U);
	return 0;
}

static int
do_play_home(int count, int key)
{
	if (!play_keys())
		return rl_beg_of_line(count, key);
	play_home(U);
	ui_redraw(U);
	return 0;
}

static void
bind_play_keys(void)
{
	bind("\033[C", do_play_right);
	bind("\033OC", do_play_right);
	bind("\033[D", do_play_left);
	bind("\033OD", do_play_left);
	bind_cap("khome", do_play_home);
	bind("\033[1~", do_play_home);
	bind("\033[H", do_play_home);
	bind("\033OH", do_play_home);
}

/* ---- completion ---- */

static char **candidates;
static size_t ncandidates;

static void
add_candidate(const char *s)
{
	size_t i;
	for (i = 0; i < ncandidates; i++)
		if (strcmp(candidates[i], s) == 0)
			return;
	candidates = xreallocarray(candidates, ncandidates + 1,
	    sizeof *candidates);
	candidates[ncandidates++] = xstrdup(s);
}

static void
clear_candidates(void)
{
	size_t i;
	for (i = 0; i < ncandidates; i++)
		free(candidates[i]);
	free(candidates);
	candidates = NULL;
	ncandidates = 0;
}

static char *
generator(const char *text, int state)
{
	static size_t next;
	size_t len = strlen(text);
	if (state == 0)
		next = 0;
	while (next < ncandidates) {
		const char *c = candidates[next++];
		if (strncmp(c, text, len) == 0)
			return xstrdup(c);
	}
	return NULL;
}

static char **
complete(const char *text, int start, int end)
{
	const char *line = rl_line_buffer;
	size_t i;
	int p;

	rl_attempted_completion_over = 1;
	rl_completion_append_character = '\0';
	clear_candidates();
	if (line[0] == ':' && start == 0) {
		for (i = 0; meta_names[i] != NULL; i++)
			add_candidate(meta_names[i]);
		rl_completion_append_character = ' ';
	} else if (strncmp(line, ":play ", 6) == 0 ||
	    strncmp(line, ":save ", 6) == 0 ||
	    strncmp(line, ":policy ", 8) == 0) {
		if (strncmp(line, ":policy ", 8) == 0)
			for (i = 0; policy_preset_names[i] != NULL; i++)
				add_candidate(policy_preset_names[i]);
		else {
			rl_attempted_completion_over = 0;
			return NULL;	/* readline's own file names */
		}
	} else {
		for (i = 0; builtin_names[i] != NULL; i++)
			add_candidate(builtin_names[i]);
		for (i = 0; cmd_names[i] != NULL; i++)
			add_candidate(cmd_names[i]);
		for (p = 0; p < PATH__COUNT; p++) {
			const struct mfs *fs = session_fs(U->s,
			    (enum path_id)p);
			struct ns *ns = session_ns(U->s, (enum path_id)p);
			for (i = 0; fs != NULL && i < mfs_count(fs); i++)
				add_candidate(mfs_name(fs, i));
			for (i = 0; ns != NULL && i < ns_count(ns); i++) {
				value v;
				add_candidate(ns_name(ns, i, &v));
			}
		}
	}
	(void)end;
	return rl_completion_matches(text, generator);
}

/* Several matches: list them on the message line, not behind curses. */
static void
show_matches(char **matches, int n, int max)
{
	char buf[512];
	size_t len = 0;
	int i;
	buf[0] = '\0';
	for (i = 1; i <= n && len < sizeof buf - 1; i++) {
		int k = snprintf(buf + len, sizeof buf - len, "%s%s",
		    i > 1 ? "  " : "", matches[i]);
		if (k < 0)
			break;
		len += (size_t)k;
	}
	meta_set_message(U, "%s", buf);
	ui_redraw(U);
	(void)max;
}

/* ---- history ---- */

static char *
history_file(void)
{
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char *dir, *path, *p;

	if (state != NULL && state[0] == '/')
		dir = xasprintf("%s/sandboxrepl", state);
	else if (home != NULL && home[0] != '\0')
		dir = xasprintf("%s/.local/state/sandboxrepl", home);
	else
		return NULL;
	/* mkdir -p, private. */
	for (p = dir + 1; *p != '\0'; p++)
		if (*p == '/') {
			*p = '\0';
			(void)mkdir(dir, 0700);
			*p = '/';
		}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		free(dir);
		return NULL;
	}
	path = xasprintf("%s/history", dir);
	free(dir);
	return path;
}

void
input_add_history(struct ui *u, const char *line)
{
	HIST_ENTRY *last;
	if (line[0] == '\0')
		return;
	last = history_length > 0 ? history_get(history_base +
	    history_length - 1) : NULL;
	if (last != NULL && strcmp(last->line, line) == 0)
		return;
	add_history(line);
	if (u->history_path != NULL)
		(void)append_history(1, u->history_path);
}

/* ---- set-up ---- */

const char *
input_prompt(const struct ui *u)
{
	return u->pending != NULL ? "... " : ">>> ";
}

static void
on_line(char *line)
{
	ui_line(U, line);
	free(line);
	rl_set_prompt(input_prompt(U));
}

void
input_init(struct ui *u, bool no_history)
{
	U = u;
	pad = newpad(1, 1);
	keypad(pad, FALSE);
	nodelay(pad, FALSE);
	devnull = fopen("/dev/null", "w");

	using_history();
	stifle_history(HISTORY_MAX);
	if (!no_history) {
		char *path = history_file();
		if (path != NULL) {
			/* Created private; an existing file is made so. */
			int fd = open(path, O_WRONLY | O_CREAT | O_APPEND |
			    O_CLOEXEC, 0600);
			if (fd >= 0)
				close(fd);
			(void)chmod(path, 0600);
			(void)read_history(path);
		}
		u->history_path = path;
	}

	rl_readline_name = "sandboxrepl";
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_change_environment = 0;
	rl_prep_term_function = NULL;
	rl_deprep_term_function = NULL;
	rl_redisplay_function = input_redisplay;
	rl_getc_function = getc_hook;
	rl_input_available_hook = available_hook;
	rl_instream = stdin;
	rl_outstream = devnull ? devnull : stderr;
	rl_attempted_completion_function = complete;
	rl_completion_display_matches_hook = show_matches;
	rl_basic_word_break_characters = " \t\n\"'`@$><=;|&{(,)}[]+-*/%";
	rl_callback_handler_install(input_prompt(u), on_line);
	rl_variable_bind("bell-style", "none");
	rl_variable_bind("enable-bracketed-paste", "on");
	bind_keys();
	bind_play_keys();
	/* Bracketed paste: a paste arrives as one input, newlines and all. */
	fputs("\033[?2004h", stdout);
	fflush(stdout);
}

void
input_read(struct ui *u)
{
	rl_callback_read_char();
}

void
input_end(struct ui *u)
{
	rl_callback_handler_remove();
	fputs("\033[?2004l", stdout);
	fflush(stdout);
	if (u->history_path != NULL)
		(void)history_truncate_file(u->history_path, HISTORY_MAX);
	free(u->history_path);
	u->history_path = NULL;
	clear_candidates();
	if (devnull != NULL)
		fclose(devnull);
	devnull = NULL;
	delwin(pad);
}
