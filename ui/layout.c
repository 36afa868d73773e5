/*
 * layout.c -- where the panes go.  Top: the status line.  Then one column
 * per enabled path, side by side while each gets 26 cells, else stacked;
 * under them the AST pane, when it leaves the columns room or F2 asks.
 * At the bottom: a message line and the input line (drawn by input.c).
 * The help overlay goes last.  The panes are a table (panes[]): each
 * row's place() says where it goes this time, or that it does not.
 */
#include "config.h"

#include <string.h>

#include "session/session.h"
#include "uipriv.h"

/* Side by side while every column gets this many cells (three paths fit
 * at 80 columns); narrower terminals stack the paths. */
#define MIN_COLUMN 26
/* The AST pane shows (unless F2 chose) while every column keeps this
 * many transcript rows.  At 80x24 they would keep seven: it gives way. */
#define MIN_TRANSCRIPT_ROWS 8

/* The message in msg's rows, each broken at its last space that fits. */
static void
draw_message(struct ui *u, struct rect msg)
{
	const char *s = u->message;
	size_t len = strlen(s), take, k;
	int row;

	for (row = 0; row < msg.h && len > 0; row++) {
		take = draw_fit(s, len, msg.w);
		if (take < len && row + 1 < msg.h && s[take] != ' ') {
			for (k = take; k > 0 && s[k - 1] != ' '; k--)
				;
			if (k > 0)
				take = k;
		}
		draw_textn(msg, row, 0, draw_attr(u, UC_DIM), s, take);
		s += take;
		len -= take;
		while (len > 0 && *s == ' ') {
			s++;
			len--;
		}
	}
}

/* Was the AST pane drawn last time? */
/* The AST pane's rows when it shows: enough for the welcome or a short
 * tree, never more than the paths keep (stacked: n of them). */
static int
ast_rows(const struct ui *u, int main_h, int n)
{
	int ast_h = u->m.input == NULL ? pane_ast_welcome_rows(u,
	    COLS - 2) + 2 : LINES < 30 ? main_h / 3 : main_h * 2 / 5;

	if (ast_h > main_h - 6 * n)
		ast_h = main_h - 6 * n;
	if (ast_h > 16)
		ast_h = 16;
	if (ast_h < 4)
		ast_h = main_h >= 10 ? 4 : 0;
	return ast_h;
}

/* Each enabled path's column in paths_h rows (u->col), side by side
 * when wide, else stacked; returns the fewest transcript rows any of them
 * keeps. */
static int
place_each_column(struct ui *u, unsigned mask, int n, bool wide, int paths_h)
{
	int p, k = 0, least = -1, t;

	for (p = 0; p < PATH__COUNT; p++) {
		struct rect r;
		if (!(mask & PATH_BIT(p)))
			continue;
		if (wide) {
			int w = COLS / n;
			r = (struct rect){ 1, k * w, paths_h,
			    k == n - 1 ? COLS - k * w : w - 1 };
		} else {
			int h = paths_h / n;
			r = (struct rect){ 1 + k * h, 0,
			    k == n - 1 ? paths_h - k * h : h, COLS };
		}
		u->col[p] = r;
		t = pane_path_transcript_rows(u, r);
		if (least < 0 || t < least)
			least = t;
		k++;
	}
	return least < 0 ? 0 : least;
}

/* Where the parts go this time (layout_draw works it out). */
struct frame {
	int		 main_h;	/* rows between the status and the
					   message lines */
	int		 paths_h;	/* of them, the columns' */
	int		 ast_h;		/* and the AST pane's, or 0 */
	unsigned	 mask;		/* the enabled paths */
	int		 n;		/* how many (at least 1) */
	bool		 wide;		/* side by side */
};

/* The presenter view takes the columns' and the AST's rows. */
static bool
place_play(struct ui *u, const struct frame *f, struct rect *r)
{
	*r = (struct rect){ 1, 0, f->main_h, COLS };
	return play_view_shown(u);
}

/* Every column's place first (u->col): their transcripts share one grid
 * (pane_path.c). */
static bool
place_columns(struct ui *u, const struct frame *f, struct rect *r)
{
	if (play_view_shown(u))
		return false;
	place_each_column(u, f->mask, f->n, f->wide, f->paths_h);
	u->col_shown = f->mask;
	*r = (struct rect){ 1, 0, f->paths_h, COLS };
	return true;
}

static bool
place_ast(struct ui *u, const struct frame *f, struct rect *r)
{
	*r = (struct rect){ 1 + f->paths_h, 0, f->ast_h, COLS };
	return !play_view_shown(u) && f->ast_h > 0;
}

static bool
place_status(struct ui *u, const struct frame *f, struct rect *r)
{
	(void)u;
	(void)f;
	*r = (struct rect){ 0, 0, 1, COLS };
	return true;
}

/* The screen's panes, drawn in this order wherever their place() puts
 * them (false: not this time).  A new pane is one file exporting its
 * pane_ops and one row here (an overlay: u->overlay, drawn last). */
static const struct {
	const struct pane_ops	*pane;
	bool			(*place)(struct ui *u, const struct frame *f,
				    struct rect *r);
} panes[] = {
	{ &pane_play, place_play },
	{ &pane_columns, place_columns },
	{ &pane_ast, place_ast },
	{ &pane_status, place_status },
};

void
layout_draw(struct ui *u)
{
	int rows = LINES, cols = COLS, p;
	int in_h = input_rows(u);
	struct rect msg = { rows - 1 - in_h, 0, 1, cols }, r;
	struct frame f = { .mask = session_paths(u->s) };
	size_t i;

	u->col_shown = 0;
	erase();
	if (rows < 8 || cols < 30) {
		struct rect all = { 0, 0, rows, cols };
		draw_text(all, 0, 0, A_BOLD, "sandboxrepl: terminal too small");
		return;
	}
	for (p = 0; p < PATH__COUNT; p++)
		f.n += (f.mask & PATH_BIT(p)) != 0;
	if (f.n == 0)
		f.n = 1;
	f.wide = cols / f.n >= MIN_COLUMN;
	u->input_h = in_h;
	f.main_h = rows - 2 - in_h;
	/* A message wider than the screen (a policy's word list) takes a
	 * second row, broken at a space, rather than being cut. */
	if (u->message != NULL && draw_width(u->message,
	    strlen(u->message)) > cols && rows >= 20) {
		msg = (struct rect){ rows - 2 - in_h, 0, 2, cols };
		f.main_h--;
	}
	f.ast_h = ast_rows(u, f.main_h, f.wide ? 1 : f.n);
	if (u->ast_asked && !u->show_ast)
		f.ast_h = 0;
	/* Unless F2 asked for it, the tree gives way to the transcripts
	 * when they would keep too few rows (80x24); the welcome shows
	 * while there is no transcript. */
	if (!u->ast_asked && u->m.input != NULL && f.ast_h > 0 &&
	    place_each_column(u, f.mask, f.n, f.wide, f.main_h - f.ast_h) <
	    MIN_TRANSCRIPT_ROWS)
		f.ast_h = 0;
	u->ast_on = f.ast_h > 0;
	f.paths_h = f.main_h - f.ast_h;
	for (i = 0; i < sizeof panes / sizeof panes[0]; i++)
		if (panes[i].place(u, &f, &r))
			panes[i].pane->draw(u, r, PANE_NO_PATH);
	if (u->message != NULL)
		draw_message(u, msg);
	if (u->overlay != NULL)
		u->overlay->draw(u, (struct rect){ 0, 0, rows, cols },
		    PANE_NO_PATH);
}
