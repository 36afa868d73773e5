/*
 * pane_fs.c -- a path's live filesystem and names.  Files are compared
 * with the baseline: '+' created, '~' changed, '-' deleted (kept on screen
 * so a loss stays visible), a directory as "loot/" with what it holds
 * after it, an entry's kind or unusual mode after its name ("mode 000,
 * unreadable"), then the names the path holds.  The title
 * says when the last step could not read back all the files (the jail's
 * caps).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "interp/ns.h"
#include "session/session.h"
#include "uipriv.h"

static void
draw(struct ui *u, struct rect r, enum path_id p)
{
	const struct model_fsrow *rows;
	size_t n = model_fs_rows(&u->m, p, &rows), i, live;
	struct ns *ns = session_ns(u->s, p);
	const char *const *wnames;
	size_t nwnames, count;
	struct rect in;
	char title[48];
	int row = 0;

	if (r.h < 3 || r.w < 6)
		return;
	for (i = 0, live = 0; i < n; i++)
		live += rows[i].mark != FS_DELETED;
	/* never silently: a read-back that stopped at its caps says so */
	snprintf(title, sizeof title, u->m.paths[p].last.fs_partial ?
	    " files (%zu, read back in part) " : " files (%zu) ", live);
	draw_box(r, draw_attr(u, UC_DIM), title);
	in = (struct rect){ r.y + 1, r.x + 1, r.h - 2, r.w - 2 };
	if (n == 0)
		draw_text(in, row++, 0, draw_attr(u, UC_DIM), "(empty)");
	else if ((int)n > in.h) {
		/* Too short for a file per row: flow them, marks kept. */
		int x = 0;
		for (i = 0; i < n && row < in.h; i++) {
			static const char tag[] = " +~-";
			enum fs_mark mk = rows[i].mark;
			int w = (int)strlen(rows[i].name) + 1;
			int attr = mk == FS_DELETED ? draw_attr(u, UC_DAMAGE) :
			    mk == FS_SAME ? (int)A_NORMAL : draw_attr(u, UC_OK);
			char c[2] = { tag[mk], '\0' };
			if (x > 0 && x + w > in.w) {
				row++;
				x = 0;
				if (row >= in.h)
					break;
			}
			draw_text(in, row, x, attr | A_BOLD, c);
			draw_text(in, row, x + 1, attr, rows[i].name);
			x += w + 1;
		}
		return;
	}
	for (i = 0; i < n && row < in.h; i++) {
		static const char *const tag[] = { " ", "+", "~", "-" };
		static const char *const word[] = { "", " new", " changed",
		    " deleted" };
		enum fs_mark mk = rows[i].mark;
		/* (dim washes out on a light background) */
		int attr = mk == FS_DELETED ? draw_attr(u, UC_DAMAGE) |
		    (u->light ? 0 : (int)A_DIM) : mk == FS_SAME ?
		    (int)A_NORMAL : draw_attr(u, UC_OK);
		int x = draw_text(in, row, 0, attr | (mk ? A_BOLD : 0),
		    tag[mk]);
		x += draw_text(in, row, x + 1, attr, rows[i].name) + 1;
		x += draw_text(in, row, x, draw_attr(u, UC_DIM), word[mk]);
		if (rows[i].note[0] != '\0') {
			char note[40];
			snprintf(note, sizeof note, " (%s)", rows[i].note);
			draw_text(in, row, x, draw_attr(u, UC_DIM), note);
		}
		row++;
	}
	/* A world's own names where it keeps them (CPython), else the
	 * path's namespace. */
	wnames = session_world_names(u->s, p, &nwnames);
	count = wnames != NULL ? nwnames : ns != NULL ? ns_count(ns) : 0;
	if (count > 0 && row < in.h) {
		char line[256];
		size_t k, len = 0;
		line[0] = '\0';
		for (k = 0; k < count; k++) {
			value v;
			const char *name = wnames != NULL ? wnames[k] :
			    ns_name(ns, k, &v);
			int m = snprintf(line + len, sizeof line - len, "%s%s",
			    k ? ", " : "", name);
			if (m < 0 || (size_t)m >= sizeof line - len)
				break;
			len += (size_t)m;
		}
		draw_text(in, row, 7, A_NORMAL, line);
		draw_text(in, row, 0, draw_attr(u, UC_DIM), "names:");
	}
}

const struct pane_ops pane_fs = { "fs", draw, NULL };
