/*
 * layout.c -- where the panes go.  Top: the status line.  Then one column
 * per enabled path, side by side from 100 columns up and stacked below;
 * under them the AST pane (F2 hides it).  At the bottom: a message line
 * and the input line (drawn by input.c).  The help overlay goes last.
 */
#include "config.h"

#include "session.h"
#include "uipriv.h"

/* Side by side from this width; narrower terminals stack the paths. */
#define WIDE_COLUMNS 100

enum path_id
layout_focus(const struct ui *u)
{
	unsigned mask = session_paths(u->s);
	int p;

	if (mask & PATH_BIT(u->focus))
		return u->focus;
	for (p = 0; p < PATH__COUNT; p++)
		if (mask & PATH_BIT(p))
			return (enum path_id)p;
	return u->focus;
}

void
layout_focus_next(struct ui *u)
{
	unsigned mask = session_paths(u->s);
	int p = (int)layout_focus(u), k;

	for (k = 1; k <= PATH__COUNT; k++)
		if (mask & PATH_BIT((p + k) % PATH__COUNT)) {
			u->focus = (enum path_id)((p + k) % PATH__COUNT);
			return;
		}
}

void
layout_scroll_reset(struct ui *u)
{
	int p;

	for (p = 0; p < PATH__COUNT; p++)
		u->scroll[p] = 0;
}

void
layout_draw(struct ui *u)
{
	unsigned mask = session_paths(u->s);
	int rows = LINES, cols = COLS, main_h, ast_h = 0, n = 0, p;
	struct rect status = { 0, 0, 1, cols };
	struct rect msg = { rows - 2, 0, 1, cols };

	erase();
	if (rows < 8 || cols < 30) {
		struct rect all = { 0, 0, rows, cols };
		draw_text(all, 0, 0, A_BOLD, "sandboxrepl: terminal too small");
		return;
	}
	for (p = 0; p < PATH__COUNT; p++)
		n += (mask & PATH_BIT(p)) != 0;
	if (n == 0)
		n = 1;
	main_h = rows - 3;
	if (u->show_ast) {
		/* Enough for the welcome or a short tree, never more than
		 * the paths keep. */
		ast_h = u->m.input == NULL ? 12 : rows < 30 ? main_h / 3 :
		    main_h * 2 / 5;
		if (ast_h > main_h - 6 * (cols >= WIDE_COLUMNS ? 1 : n))
			ast_h = main_h - 6 * (cols >= WIDE_COLUMNS ? 1 : n);
		if (ast_h > 16)
			ast_h = 16;
		if (ast_h < 4)
			ast_h = main_h >= 10 ? 4 : 0;
	}
	{
		int paths_h = main_h - ast_h, k = 0;
		for (p = 0; p < PATH__COUNT; p++) {
			struct rect r;
			if (!(mask & PATH_BIT(p)))
				continue;
			if (cols >= WIDE_COLUMNS) {
				int w = cols / n;
				r = (struct rect){ 1, k * w, paths_h,
				    k == n - 1 ? cols - k * w : w - 1 };
			} else {
				int h = paths_h / n;
				r = (struct rect){ 1 + k * h, 0,
				    k == n - 1 ? paths_h - k * h : h, cols };
			}
			pane_path.draw(u, r, (enum path_id)p);
			k++;
		}
		if (ast_h > 0)
			pane_ast.draw(u, (struct rect){ 1 + paths_h, 0, ast_h,
			    cols }, PATH_SANDBOX);
	}
	pane_status.draw(u, status, PATH_SANDBOX);
	if (u->message != NULL)
		draw_text(msg, 0, 0, draw_attr(u, UC_DIM), u->message);
	if (u->show_help)
		pane_help.draw(u, (struct rect){ 0, 0, rows, cols },
		    PATH_SANDBOX);
}
