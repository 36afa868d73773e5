/*
 * uipriv.h -- what the UI's files share: the screen state, the pane
 * table, drawing helpers and the input line.  Only ui/ includes curses.
 */
#ifndef SANDBOXREPL_UI_PRIV_H
#define SANDBOXREPL_UI_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#include "model.h"
#include "app/scenario.h"

struct session;

struct rect {
	int	 y, x, h, w;
};

/* Colour pairs; attributes stand in when colour is off. */
enum ui_color {
	UC_NONE,
	UC_OK,
	UC_BLOCKED,
	UC_DAMAGE,
	UC_ERROR,
	UC_CONTAINED,
	UC_INSIDE,	/* harm inside a jail's own copy: neither OK's
			   green nor CONTAINED's colour */
	UC_TITLE,
	UC_DIM,
	UC_HL,
	UC__COUNT
};

/* Where a transcript is scrolled (pane_path.c).  Live: the newest
 * inputs, each top-anchored, long output folded under "... N more
 * lines"; open: every row unfolded, from grid row top.  PgUp/PgDn open
 * it, PgDn past the end goes live again, a new input too. */
struct tscroll {
	bool		 open;
	int		 top;		/* open: the grid row at the top; -1:
					   where the live view's top was,
					   moved by delta rows */
	int		 delta;
	/* what the last draw found, for the keys */
	unsigned	 anchor_seq;	/* the live view's top input */
	int		 anchor_off;	/* and its row in it */
	int		 max_top;	/* open: the last top (-1 live) */
	int		 page;		/* rows a page moves */
};

struct ui {
	struct session	*s;
	struct model	 m;
	bool		 has_color;
	bool		 light;		/* --theme=light */
	int		 color_attr[UC__COUNT];	/* with colour: each one's */
	/* The AST pane: shown while the screen leaves the transcripts
	 * enough rows (layout.c), unless F2 chose (ast_asked: show_ast
	 * is the choice). */
	bool		 show_ast;
	bool		 ast_asked;
	bool		 ast_on;	/* it shows now: the layout's last
					   choice, which F2 turns over */
	/* Draw the whole screen again (ui.c's ui_redraw): a part that must
	 * show something before it returns to the loop -- a presenter
	 * step that starts running -- calls it through here, so that no
	 * part below the loop calls the loop's file. */
	void		(*redraw)(struct ui *);
	const struct pane_ops *overlay;	/* the help or the summary, drawn
					   over the rest; any key closes it */
	bool		 quit;
	bool		 quit_asked;	/* unsaved steps were pointed out */
	/* The transcripts scroll together (scroll_all) on one grid, each
	 * input on the same row in every column; F3/Shift-Tab give the
	 * focused column a scroll of its own (scroll_each). */
	struct tscroll	 scroll_all;
	struct tscroll	 scroll[PATH__COUNT];
	bool		 scroll_each;
	enum path_id	 focus;		/* layout_focus() gives the live one */
	char		*message;	/* the line above the input */
	int		 input_h;	/* rows the layout gave the input */
	struct rect	 col[PATH__COUNT];	/* each path's column */
	struct rect	 trans[PATH__COUNT];	/* its transcript's rows */
	int		 trans_used[PATH__COUNT];	/* of them, drawn */
	unsigned	 col_shown;	/* the paths drawn in col */
	struct play	*play;		/* the presenter (play.c), or NULL */
	/* Continuation: lines typed so far of an incomplete input. */
	char		*pending;
	size_t		 npending;
	char		*history_path;	/* heap; NULL: no history */
	struct policy	*owned_policy;	/* one loaded by :policy FILE */
	const struct agent_opts *agent;	/* --agent: '?' inputs are tasks */
	const char	*missing;	/* ui_opts.missing */
};

/* keys.c: the keys the UI reads, one row each (key_defs). */
enum ui_key {
	UK_NONE,
	UK_F1, UK_F2, UK_F3, UK_F10, UK_BTAB,
	UK_PGUP, UK_PGDN, UK_HOME, UK_END, UK_DELETE,
	UK_UP, UK_DOWN, UK_RIGHT, UK_LEFT,
	UK_PASTE,		/* bracketed paste's start */
	UK_CTRL_C, UK_CTRL_L, UK_SPACE,
	UK__COUNT
};

#define KEY_MAX_SEQS 4

struct key_def {
	const char	*name;		/* as the help says it */
	const char	*cap;		/* its terminfo capability, or NULL */
	const char	*seqs[KEY_MAX_SEQS];	/* what terminals send;
						   NULL-ended */
	int		 byte;		/* a control key's byte, or 0 */
};

extern const struct key_def key_defs[UK__COUNT];
/* The key a whole escape sequence is (its listed sequences, not
 * terminfo's), UK_NONE for any other. */
enum ui_key key_of_seq(const char *seq, size_t n);

/*
 * A pane: one file exporting one of these (tmux's window_mode).  Per-path
 * panes are drawn once per column; an overlay (u->overlay: help,
 * summary) is drawn over the rest, and any key closes it unless its key
 * hook takes the key.
 */
/* The path a pane that is not per path is drawn with. */
#define PANE_NO_PATH PATH__COUNT

struct pane_ops {
	const char	*name;
	/* Draw into r; path is the column's path for per-path panes
	 * (PANE_NO_PATH for the others). */
	void		(*draw)(struct ui *u, struct rect r, enum path_id path);
	/* An overlay's own keys: true if it took k (then it stays open);
	 * NULL: none. */
	bool		(*key)(struct ui *u, enum ui_key k);
};

extern const struct pane_ops pane_path;	/* header, strip, transcript */
extern const struct pane_ops pane_columns;	/* every placed column */
extern const struct pane_ops pane_fs;	/* files and names */
extern const struct pane_ops pane_ast;	/* tree and span, or welcome */
extern const struct pane_ops pane_status;	/* policy, budget, paths */
extern const struct pane_ops pane_help;	/* the F1 overlay */
extern const struct pane_ops pane_summary;	/* the :summary overlay */
extern const struct pane_ops pane_play;	/* the presenter view */

/* pane_ast.c: the rows the welcome takes in width columns. */
int pane_ast_welcome_rows(const struct ui *u, int width);

/* draw.c: clipped text in a rectangle. */
int draw_attr(const struct ui *u, enum ui_color c);
int draw_verdict_attr(const struct ui *u, enum verdict v);
/* Put s at (row, col) of r, clipped to r; returns the columns used. */
int draw_text(struct rect r, int row, int col, int attr, const char *s);
int draw_textn(struct rect r, int row, int col, int attr, const char *s,
    size_t len);
void draw_fill(struct rect r, int row, int attr);
void draw_box(struct rect r, int attr, const char *title);
/* Display columns of the first len bytes of s. */
int draw_width(const char *s, size_t len);
/* How many bytes of s fit in cols columns. */
size_t draw_fit(const char *s, size_t len, int cols);
/* How much of s goes on a row cols cells wide: what fits, broken at the
 * last space, else between a name and punctuation, never inside a name
 * (nor a UTF-8 sequence) unless the row holds nothing else; at least one
 * byte while len > 0.  The caller skips the spaces it broke at. */
size_t draw_wrap(const char *s, size_t len, int cols);

/* focus.c: the focused column: u->focus if that path is enabled, else
 * the first enabled one.  focus_next() goes from all columns together
 * to each enabled column on its own in turn, then back to together. */
enum path_id focus_column(const struct ui *u);
void focus_next(struct ui *u);
/* The scroll path p's transcript follows. */
struct tscroll *focus_scroll(struct ui *u, enum path_id p);
/* Every column back to its newest rows (live). */
void focus_scroll_reset(struct ui *u);

/* message.c: the message line's text, printf-style (replaces it). */
void message_set(struct ui *u, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* layout.c: where each pane goes for this screen size. */
void layout_draw(struct ui *u);
/* Is the AST pane on screen (F2's choice, else room enough)? */

/* pane_path.c: the transcript rows a column in r keeps.  (pane_columns
 * draws the columns in u->col, layout_draw sets them first, on one grid
 * built for them and freed after drawing.) */
int pane_path_transcript_rows(struct ui *u, struct rect r);
/* Does path p's code run in a CPython world (a boundary row's _world
 * words)? */
bool pane_path_in_world(const struct ui *u, enum path_id p);

/* input.c: the readline input line inside curses.  It calls back the UI
 * that owns it through these hooks (ui.c gives them), never by name. */
struct input_hooks {
	/* A line from readline, NULL at end of input. */
	void	(*line)(struct ui *u, const char *line);
	void	(*redraw)(struct ui *u);
	void	(*layout)(struct ui *u);	/* the input area grew or
						   shrank: lay the screen
						   out again */
	void	(*resize)(struct ui *u);
	void	(*quit)(struct ui *u);	/* F10, Ctrl-D */
	bool	(*stopped)(void);	/* a terminating signal arrived */
};
void input_init(struct ui *u, const struct input_hooks *h, bool no_history);
void input_end(struct ui *u);
void input_redisplay(void);
/* The rows the input area wants: a continued input's earlier lines and
 * the line being edited (a recalled input may hold several). */
int input_rows(const struct ui *u);
/* pane_summary.c: inputs on path p by verdict since the session began
 * (or :summary clear); false if it ran none.  summary_open() shows the
 * overlay from its top; its key hook scrolls it (PgUp, PgDn, the arrows,
 * Home, End). */
bool summary_count(const struct ui *u, enum path_id p,
    size_t count[VERDICT__COUNT]);
void summary_open(struct ui *u);
void input_read(struct ui *u);	/* one key (blocks) */
/* The keys the status line names, from the binding table: "F1 help  F2
 * AST  F10 quit ". */
const char *input_status_keys(void);
void input_add_history(struct ui *u, const char *line);

/* progress.c: a running path's elapsed seconds, drawn by a thread while
 * session_run() runs.  progress_end() stops it: call it before any
 * curses call on the main thread. */
void progress_init(struct ui *u);
void progress_end(void);
void progress_fini(struct ui *u);

/* meta.c: ':' commands.  Returns true when line was one. */
bool meta_run(struct ui *u, const char *line);
/* The i-th command's name Tab offers (from 0; NULL past the last). */
const char *meta_name(size_t i);
/* Does line's command change what the next step runs on (a scenario
 * playing forgets the steps past the one shown)? */
bool meta_changes_session(const char *line);
/* Does line start with a command that takes a file, and its space?
 * Then *ext: the files Tab keeps (NULL: any); *presets: the policy
 * presets too. */
bool meta_file_arg(const char *line, const char **ext, bool *presets);
/* :quit, :q, F10, Ctrl-D, the end of input: quit, unless the transcript
 * has inputs not saved and this is the first ask since the last input. */
void meta_quit(struct ui *u);

/* play.c: the presenter view of a scenario (:play, --play).  Start
 * runs its set-up and shows step 0, the welcome (false with a message
 * when it cannot load); next, back, home and goto move, restoring the
 * session as it was after the step shown; reset (:reset) goes back to
 * step 0 as the play began; leave (:stop) ends the play, the session as
 * it is; escape is Esc's (leave on the last step, else the columns and
 * back); changed (a live input or a setting) forgets the steps after the
 * one shown; policies is the step's "policies" list, or NULL. */
bool play_start(struct ui *u, const char *file);
void play_stop(struct ui *u);
bool play_active(const struct ui *u);
bool play_view_shown(const struct ui *u);
bool play_progress(const struct ui *u, size_t *cur, size_t *total);
void play_next(struct ui *u);
void play_back(struct ui *u);
void play_home(struct ui *u);
void play_goto(struct ui *u, const char *arg);
void play_reset(struct ui *u);
void play_leave(struct ui *u);
void play_escape(struct ui *u);
const char *play_policies(const struct ui *u);
void play_show_view(struct ui *u);	/* :play alone */
void play_changed(struct ui *u);
/* A live input's records, shown in the view until the next move. */
void play_live(struct ui *u, const char *input, size_t len,
    const struct record *r, size_t n);

/* running.c */
/* An input runs (true) or the prompt is back (false): Ctrl-C is
 * SIGINT for the input's worlds, or a key for readline. */
void ui_running(bool running);

#endif
