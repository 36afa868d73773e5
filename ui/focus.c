/*
 * focus.c -- which transcript the scroll keys move.  By default every
 * column scrolls together, one grid, each input on the same row in every
 * column.  F3 (Shift-Tab) gives one column a scroll of its own -- the
 * first enabled path, then the next, then all together again -- and that
 * column's header is marked '>'.  A new input brings every column back to
 * its newest rows.
 * A leaf the layout, the path pane (which marks the column) and the
 * input keys all consult, so the path pane does not call the layout that
 * draws it.
 */
#include "config.h"

#include "session/session.h"
#include "uipriv.h"

enum path_id
focus_column(const struct ui *u)
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
focus_next(struct ui *u)
{
	unsigned mask = session_paths(u->s);
	int p, k;

	if (!u->scroll_each) {
		/* Each column starts where they all were. */
		for (p = 0; p < PATH__COUNT; p++)
			u->scroll[p] = u->scroll_all;
		u->scroll_each = true;
		for (p = 0; p < PATH__COUNT; p++)
			if (mask & PATH_BIT(p)) {
				u->focus = (enum path_id)p;
				return;
			}
		return;
	}
	p = (int)focus_column(u);
	for (k = p + 1; k < PATH__COUNT; k++)
		if (mask & PATH_BIT(k)) {
			u->focus = (enum path_id)k;
			return;
		}
	/* Past the last column: all together again, at the newest. */
	u->scroll_each = false;
	u->scroll_all = (struct tscroll){ .top = 0 };
}

struct tscroll *
focus_scroll(struct ui *u, enum path_id p)
{
	return u->scroll_each ? &u->scroll[p] : &u->scroll_all;
}

void
focus_scroll_reset(struct ui *u)
{
	int p;

	for (p = 0; p < PATH__COUNT; p++)
		u->scroll[p].open = false;
	u->scroll_all.open = false;
}
