/*
 * focus.c -- which path's column the scroll keys move: the one the user
 * chose with Tab if that path is enabled, else the first enabled one; and
 * every column's scroll back to its newest rows.
 * A leaf the layout, the path pane (which marks the column) and the
 * input keys all consult, so the path pane does not call the layout that
 * draws it.
 */
#include "config.h"

#include "session.h"
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
	int p = (int)focus_column(u), k;

	for (k = 1; k <= PATH__COUNT; k++)
		if (mask & PATH_BIT((p + k) % PATH__COUNT)) {
			u->focus = (enum path_id)((p + k) % PATH__COUNT);
			return;
		}
}

void
focus_scroll_reset(struct ui *u)
{
	int p;

	for (p = 0; p < PATH__COUNT; p++)
		u->scroll[p] = 0;
}
