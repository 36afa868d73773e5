/*
 * input.c -- GNU readline inside curses, through the callback interface.
 *
 * Curses owns the terminal; readline owns the line.  Keys are read with
 * wgetch on a one-line pad whose keypad mode is off, so readline sees the
 * raw escape sequences and its own keymaps decide (F-keys and paging are
 * readline bindings too).  Readline never touches the terminal: its
 * terminal preparation is disabled, its output goes nowhere, and our
 * redisplay hook draws the prompt and line on the bottom rows (with the
 * earlier lines of a continued input above it).  History is a file of
 * what people typed, whole inputs, so it is created 0600 and can be
 * turned off (--no-history).  Tab completes names, commands and, after
 * :play, :save and :policy, paths.
 */
#include "config.h"

#include <dirent.h>
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

#include "cmd/cmd.h"
#include "interp/ns.h"
#include "sandbox/policy.h"
#include "session/session.h"
#include "uipriv.h"
#include "base/xalloc.h"

/* History entries kept in the file. */
#define HISTORY_MAX 1000

/* Readline's hooks take no context: the one UI of this process, and
 * what it asked to be called back with. */
static struct ui *U;
static const struct input_hooks *H;
static WINDOW *pad;
static FILE *devnull;
static int hscroll;	/* bytes of the line scrolled off the left */

static const char *input_prompt(const struct ui *u);

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

/* Is a path's world booting ahead and not up yet? */
static bool
booting(void)
{
	double secs;
	bool ready;
	int p;

	for (p = 0; p < PATH__COUNT; p++)
		if (session_booting(U->s, (enum path_id)p, &secs, &ready) &&
		    !ready)
			return true;
	return false;
}

/* Block for one byte for readline; resizes and the help overlay are
 * handled here, before readline sees anything. */
static int
getc_hook(FILE *f)
{
	int errors = 0;
	(void)f;
	progress_end();
	for (;;) {
		/* (a world booting ahead: its seconds tick, twice a second,
		 * until it is up) */
		bool ticking = booting();
		int c;

		wtimeout(pad, ticking ? 500 : -1);
		errno = 0;
		c = wgetch(pad);
		wtimeout(pad, -1);
		if (c == KEY_RESIZE) {
			H->resize(U);
			continue;
		}
		if (c == ERR && ticking && errno != EINTR) {
			H->redraw(U);
			continue;
		}
		if (c == ERR) {
			if (errno == EINTR && !H->stopped() && ++errors < 1000)
				continue;
			return EOF;
		}
		errors = 0;
		if (c == 27 && play_active(U) && U->overlay == NULL &&
		    lone_escape()) {
			/* (readline's callback mode never acts on Esc alone) */
			play_escape(U);
			H->redraw(U);
			continue;
		}
		if (U->overlay != NULL && U->overlay->key != NULL &&
		    c == 27) {
			/* an overlay with keys of its own (the summary
			 * scrolls): the key's whole sequence */
			char seq[8];
			size_t n = 0;

			seq[n++] = (char)c;
			wtimeout(pad, 30);
			while (n < sizeof seq && (c = wgetch(pad)) != ERR) {
				seq[n++] = (char)c;
				if (n > 2 && ((c >= 'A' && c <= 'Z') ||
				    c == '~'))
					break;
			}
			wtimeout(pad, -1);
			if (U->overlay->key(U, key_of_seq(seq, n))) {
				H->redraw(U);
				continue;
			}
		}
		if (U->overlay != NULL) {
			/* Esc, F1 or any key closes the overlay. */
			U->overlay = NULL;
			drain();
			H->redraw(U);
			continue;
		}
		return c;
	}
}

static int
available_hook(void)
{
	int c;
	progress_end();
	wtimeout(pad, 10);
	c = wgetch(pad);
	wtimeout(pad, -1);
	if (c == ERR)
		return 0;
	ungetch(c);
	return 1;
}

/* Lines in the first len bytes of s. */
static int
count_lines(const char *s, size_t len)
{
	int n = 1;
	const char *p = s, *end = s + len;

	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	return n;
}

int
input_rows(const struct ui *u)
{
	const char *buf = rl_line_buffer ? rl_line_buffer : "";
	int n = count_lines(buf, strlen(buf)), cap = LINES / 4;

	if (u->pending != NULL)
		n += count_lines(u->pending, u->npending);
	if (cap < 1)
		cap = 1;
	return n < cap ? n : cap;
}

/* Draw one line of the input area on screen row y: its prompt, then
 * the text from byte skip. */
static void
draw_input_line(int y, const char *prompt, const char *s, size_t len,
    size_t skip)
{
	struct rect r = { y, 0, 1, COLS };
	int x;

	draw_fill(r, 0, A_NORMAL);
	x = draw_text(r, 0, 0, A_BOLD, prompt);
	draw_textn(r, 0, x, A_NORMAL, s + skip, len - skip);
}

/*
 * The input area, on the bottom rows: the earlier lines of a continued
 * input (as typed, each after its prompt), then the line being edited,
 * which holds several lines when the history gave back a whole input.
 * When they do not all fit, the rows end at the cursor's line.
 */
void
input_redisplay(void)
{
	const char *prompt = rl_display_prompt ? rl_display_prompt : "";
	const char *buf = rl_line_buffer ? rl_line_buffer : "";
	const char *line, *cur;
	int rows, total, npend, curidx, start, idx, top, pw, x = 0, y = 0;

	progress_end();
	if (LINES < 8 || COLS < 30)
		return;
	rows = input_rows(U);
	if (rows != U->input_h)
		H->layout(U);		/* the area grew or shrank */
	npend = U->pending != NULL ? count_lines(U->pending, U->npending) : 0;
	total = npend + count_lines(buf, strlen(buf));
	curidx = npend + count_lines(buf, (size_t)rl_point) - 1;
	start = total - rows;
	if (curidx < start)
		start = curidx;
	top = LINES - rows;
	/* the earlier lines of a continued input */
	for (idx = 0, line = U->pending; idx < npend; idx++) {
		size_t len = strcspn(line, "\n");
		if (idx >= start && idx < start + rows)
			draw_input_line(top + idx - start, idx == 0 ? ">>> " :
			    "... ", line, len, 0);
		line += len + (line[len] == '\n');
	}
	/* the line being edited, scrolled sideways on the cursor's line */
	for (cur = buf; cur + strcspn(cur, "\n") < buf + rl_point;)
		cur += strcspn(cur, "\n") + 1;
	pw = draw_width(cur == buf ? prompt : "... ", strlen(cur == buf ?
	    prompt : "... "));
	{
		int point = (int)(buf + rl_point - cur);
		if (hscroll > point)
			hscroll = 0;
		while (pw + draw_width(cur + hscroll, (size_t)(point -
		    hscroll)) > COLS - 2 && hscroll < point) {
			hscroll++;
			while (hscroll < point &&
			    ((unsigned char)cur[hscroll] & 0xc0) == 0x80)
				hscroll++;
		}
		if (pw + draw_width(cur, (size_t)point) <= COLS - 2)
			hscroll = 0;
		x = pw + draw_width(cur + hscroll, (size_t)(point - hscroll));
	}
	for (line = buf; idx < total; idx++) {
		size_t len = strcspn(line, "\n");
		if (idx >= start && idx < start + rows) {
			draw_input_line(top + idx - start, line == buf ?
			    prompt : "... ", line, len, line == cur ?
			    (size_t)hscroll : 0);
			if (line == cur)
				y = top + idx - start;
		}
		line += len + (line[len] == '\n');
	}
	move(y, x < COLS ? x : COLS - 1);
	refresh();
}

/* ---- key bindings ---- */

static int
do_key_help(int count, int key)
{
	U->overlay = U->overlay == &pane_help ? NULL : &pane_help;
	H->redraw(U);
	return 0;
}

static int
do_key_ast(int count, int key)
{
	/* (an explicit choice: the layout no longer decides) */
	U->show_ast = !U->ast_on;
	U->ast_asked = true;
	H->redraw(U);
	return 0;
}

static int
do_key_quit(int count, int key)
{
	H->quit(U);
	if (!U->quit)
		H->redraw(U);
	return 0;
}

/* PgUp/PgDn scroll every column together, or the focused one alone
 * (F3); from the live view they open the folded output (pane_path.c):
 * PgDn where the view is, PgUp a page before it.  PgDn past the end
 * goes back to the live view. */
static int
do_page_up(int count, int key)
{
	struct tscroll *sc;
	int page;

	if (play_view_shown(U) && U->pending == NULL) {
		/* a clicker's back: the presenter has nothing to scroll */
		play_back(U);
		H->redraw(U);
		return 0;
	}
	sc = focus_scroll(U, focus_column(U));
	page = sc->page > 1 ? sc->page : 1;
	if (!sc->open) {
		sc->open = true;
		sc->top = -1;
		sc->delta = -page;
	} else
		sc->top = sc->top > page ? sc->top - page : 0;
	H->redraw(U);
	return 0;
}

static int
do_page_down(int count, int key)
{
	struct tscroll *sc = focus_scroll(U, focus_column(U));
	int page = sc->page > 1 ? sc->page : 1;

	if (play_view_shown(U) && U->pending == NULL) {
		/* a clicker's next */
		play_next(U);
		H->redraw(U);
		return 0;
	}
	if (!sc->open) {
		sc->open = true;
		sc->top = -1;
		sc->delta = 0;
	} else if (sc->top >= sc->max_top)
		sc->open = false;
	else if ((sc->top += page) > sc->max_top)
		sc->top = sc->max_top;
	H->redraw(U);
	return 0;
}

/* Shift-Tab or F3: from all columns together to each one alone, in
 * turn, and back (Tab completes). */
static int
do_focus_next(int count, int key)
{
	focus_next(U);
	if (U->scroll_each)
		message_set(U, "PgUp/PgDn scroll the %s column alone; F3: "
		    "the next", record_path_name(focus_column(U)));
	else
		message_set(U, "PgUp/PgDn scroll every column together");
	H->redraw(U);
	return 0;
}

static int
do_key_redraw(int count, int key)
{
	clearok(curscr, TRUE);
	H->redraw(U);
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
	message_set(U, "cancelled");
	H->redraw(U);
	return 0;
}

/*
 * The presenter's keys (play.c), while a scenario plays and the line is
 * empty: Right steps on, Left back, Home to the start, and in the
 * presenter view Space steps on.  Otherwise they edit the line as ever.
 * (PgDn and PgUp step in the presenter view whatever the line holds:
 * do_page_down, do_page_up.  Esc, between the presenter view and the
 * columns, or out of the play on its last step, is seen in getc_hook.)
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
	H->redraw(U);
	return 0;
}

static int
do_play_left(int count, int key)
{
	if (!play_keys())
		return rl_backward_char(count, key);
	play_back(U);
	H->redraw(U);
	return 0;
}

static int
do_play_home(int count, int key)
{
	if (!play_keys())
		return rl_beg_of_line(count, key);
	play_home(U);
	H->redraw(U);
	return 0;
}

static int
do_play_space(int count, int key)
{
	if (!play_keys() || !play_view_shown(U))
		return rl_insert(count, key);
	play_next(U);
	H->redraw(U);
	return 0;
}

/*
 * What each key does, one row per key (keys.c says what sends it), bound
 * in this order.  Keys the presenter takes (Right, Left, Home, Space)
 * edit the line as ever when no scenario plays.
 */
static const struct binding {
	enum ui_key		 key;
	rl_command_func_t	*fn;
	const char		*status;	/* the status line's word for
						   it, or NULL */
} bindings[] = {
	{ UK_F1, do_key_help, "help" },
	{ UK_F2, do_key_ast, "AST" },
	{ UK_F10, do_key_quit, "quit" },
	{ UK_BTAB, do_focus_next, NULL },
	{ UK_F3, do_focus_next, NULL },
	{ UK_PGUP, do_page_up, NULL },
	{ UK_PGDN, do_page_down, NULL },
	{ UK_HOME, do_play_home, NULL },
	{ UK_END, rl_end_of_line, NULL },
	{ UK_DELETE, rl_delete, NULL },
	{ UK_UP, rl_get_previous_history, NULL },
	{ UK_DOWN, rl_get_next_history, NULL },
	{ UK_RIGHT, do_play_right, NULL },
	{ UK_LEFT, do_play_left, NULL },
	{ UK_PASTE, rl_bracketed_paste_begin, NULL },
	{ UK_CTRL_L, do_key_redraw, NULL },
	{ UK_CTRL_C, do_key_cancel, NULL },
	{ UK_SPACE, do_play_space, NULL },
};

static void
bind(const char *seq, rl_command_func_t *fn)
{
	if (seq != NULL && seq != (const char *)-1 && *seq != '\0')
		rl_bind_keyseq(seq, fn);
}

/* Every row of bindings: a key's terminfo sequence, then the ones
 * terminals send, or its byte. */
static void
bind_keys(void)
{
	size_t i, j;

	for (i = 0; i < sizeof bindings / sizeof bindings[0]; i++) {
		const struct key_def *k = &key_defs[bindings[i].key];
		if (k->cap != NULL)
			bind(tigetstr((char *)k->cap), bindings[i].fn);
		for (j = 0; j < KEY_MAX_SEQS && k->seqs[j] != NULL; j++)
			bind(k->seqs[j], bindings[i].fn);
		if (k->byte != 0)
			rl_bind_key(k->byte, bindings[i].fn);
	}
}

const char *
input_status_keys(void)
{
	static char buf[64];
	size_t i, len = 0;

	if (buf[0] != '\0')
		return buf;
	for (i = 0; i < sizeof bindings / sizeof bindings[0]; i++)
		if (bindings[i].status != NULL)
			len += (size_t)snprintf(buf + len, sizeof buf - len,
			    "%s%s %s", len ? "  " : "",
			    key_defs[bindings[i].key].name,
			    bindings[i].status);
	snprintf(buf + len, sizeof buf - len, " ");
	return buf;
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

/*
 * The meta commands that take a file (meta_file_arg): Tab completes a
 * path relative to the current directory (directories end in '/'),
 * keeping the files of the kind the command reads; :policy also offers
 * the presets.  The path is one word, '/' and all (see word_breaks).
 */
/* A directory listing for Tab stops at this many names. */
#define MAX_LISTED 2000

static bool completing_files;	/* show_matches: the names, not paths */

static char *
word_breaks(void)
{
	static char spaces[] = " \t";
	const char *ext;
	bool presets;

	return meta_file_arg(rl_line_buffer, &ext, &presets) ? spaces :
	    (char *)rl_basic_word_break_characters;
}

static bool
has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && strcmp(s + n - k, suffix) == 0;
}

/* The names in text's directory that start as text's last part does. */
static void
add_files(const char *text, const char *ext)
{
	const char *slash = strrchr(text, '/');
	size_t dirlen = slash ? (size_t)(slash - text) + 1 : 0;
	const char *base = text + dirlen;
	size_t baselen = strlen(base), listed = 0;
	char *dir = dirlen ? xstrndup(text, dirlen) : xstrdup("");
	DIR *d = opendir(dirlen ? dir : ".");
	struct dirent *de;

	while (d != NULL && listed < MAX_LISTED && (de = readdir(d)) != NULL) {
		struct stat st;
		char *path;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    (de->d_name[0] == '.' && base[0] != '.') ||
		    strncmp(de->d_name, base, baselen) != 0)
			continue;
		listed++;
		path = xasprintf("%s%s", dir, de->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			char *d2 = xasprintf("%s/", path);
			add_candidate(d2);
			free(d2);
		} else if (ext == NULL || has_suffix(de->d_name, ext))
			add_candidate(path);
		free(path);
	}
	if (d != NULL)
		closedir(d);
	free(dir);
}

static char **
complete(const char *text, int start, int end)
{
	const char *line = rl_line_buffer, *ext, *name;
	size_t i;
	int p;
	bool presets;

	rl_attempted_completion_over = 1;
	rl_completion_append_character = '\0';
	completing_files = false;
	clear_candidates();
	if (line[0] == ':' && start == 0) {
		for (i = 0; (name = meta_name(i)) != NULL; i++)
			add_candidate(name);
		rl_completion_append_character = ' ';
	} else if (meta_file_arg(line, &ext, &presets)) {
		if (presets)
			for (i = 0; policy_preset_names[i] != NULL; i++)
				add_candidate(policy_preset_names[i]);
		add_files(text, ext);
		completing_files = true;
	} else {
		for (i = 0; builtin_names[i] != NULL; i++)
			add_candidate(builtin_names[i]);
		for (i = 0; cmd_names[i] != NULL; i++)
			add_candidate(cmd_names[i]);
		for (p = 0; p < PATH__COUNT; p++) {
			/* the files the files pane shows (model.h) */
			const struct model_path *mp = &U->m.paths[p];
			struct ns *ns = session_ns(U->s, (enum path_id)p);
			for (i = 0; i < mp->nnow; i++)
				add_candidate(mp->now[i].name);
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
		const char *m = matches[i];
		int k;
		/* A file by its name in its directory: "essay.scn",
		 * "lessons/" (without "scenarios/"). */
		if (completing_files) {
			size_t e = strlen(m), j;
			if (e > 0 && m[e - 1] == '/')
				e--;
			for (j = e; j > 0 && m[j - 1] != '/'; j--)
				;
			m += j;
		}
		k = snprintf(buf + len, sizeof buf - len, "%s%s",
		    i > 1 ? "  " : "", m);
		if (k < 0)
			break;
		len += (size_t)k;
	}
	message_set(U, "%s", buf);
	H->redraw(U);
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
	char *trimmed;
	size_t len = strlen(line);

	/* (the empty line that ended a continued input is not part of it) */
	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == ' '))
		len--;
	if (len == 0)
		return;
	trimmed = xstrndup(line, len);
	line = trimmed;
	last = history_length > 0 ? history_get(history_base +
	    history_length - 1) : NULL;
	if (last == NULL || strcmp(last->line, line) != 0) {
		add_history(line);
		if (u->history_path != NULL)
			(void)append_history(1, u->history_path);
	}
	free(trimmed);
}

/* Does the history file start with a timestamp line ("#1712345678")? */
static bool
has_timestamps(const char *path)
{
	char head[2] = { 0, 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool yes;

	if (fd < 0)
		return false;
	yes = read(fd, head, 2) == 2 && head[0] == '#' && head[1] >= '0' &&
	    head[1] <= '9';
	close(fd);
	return yes;
}

/* ---- set-up ---- */

static const char *
input_prompt(const struct ui *u)
{
	return u->pending != NULL ? "... " : ">>> ";
}

static void
on_line(char *line)
{
	H->line(U, line);
	free(line);
	rl_set_prompt(input_prompt(U));
}

void
input_init(struct ui *u, const struct input_hooks *h, bool no_history)
{
	U = u;
	H = h;
	pad = newpad(1, 1);
	keypad(pad, FALSE);
	nodelay(pad, FALSE);
	devnull = fopen("/dev/null", "w");

	using_history();
	stifle_history(HISTORY_MAX);
	/* A whole input is one entry, its lines and all: in the file each
	 * entry starts with a timestamp line, and readline joins the lines
	 * up to the next one. */
	history_comment_char = '#';
	history_write_timestamps = 1;
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
			/* A file of one line per entry (as written before
			 * entries could hold several lines) is rewritten
			 * with timestamps, so that what follows one is one
			 * entry, its newlines and all. */
			if (history_length > 0 && !has_timestamps(path))
				(void)write_history(path);
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
	rl_completion_word_break_hook = word_breaks;
	rl_basic_word_break_characters = " \t\n\"'`@$><=;|&{(,)}[]+-*/%";
	rl_callback_handler_install(input_prompt(u), on_line);
	rl_variable_bind("bell-style", "none");
	rl_variable_bind("enable-bracketed-paste", "on");
	bind_keys();
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
	/* The file keeps the last HISTORY_MAX entries (whole inputs, not
	 * lines): what this and any other session appended, read back and
	 * stifled. */
	if (u->history_path != NULL) {
		clear_history();
		if (read_history(u->history_path) == 0)
			(void)write_history(u->history_path);
	}
	free(u->history_path);
	u->history_path = NULL;
	clear_candidates();
	if (devnull != NULL)
		fclose(devnull);
	devnull = NULL;
	delwin(pad);
}
